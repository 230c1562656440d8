/* range_groups.c - see range_groups.h. */
#include "dcutop/range_groups.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/dispatch_scan.h"
#include "dcutop/intern.h"
#include "dcutop/tuple_ids.h"
#include "dcutop/xalloc.h"

typedef struct {
    uint32_t* range;      /* by dispatch id: range_id, 0 when NULL or no row */
    unsigned char* how;   /* by dispatch id: 0 no row, 1 how = 'none', 2 another how,
                           * 3 'forward op' (a backward kernel placed by its forward op) */
    uint32_t* module;     /* by dispatch id: 1 + index of its module path; 0 none */
    int64_t nid;          /* entries of range, how and module */
    unsigned char* kernel; /* by kernel id: 1 when the kernel row exists */
    int64_t nkernel;
    int64_t file_id;      /* the span being read */
    TupleIds groups;      /* (range, kernel, none, module) -> group id, in order of first sight */
    int64_t* calls;       /* by group id */
    double* time;
    int64_t cap;
} Scan;

static int scan_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    Scan* x = ctx;
    for (int64_t i = from; i < to; i++) {
        int64_t kid = DS_AT(d, DS_KERNEL_ID, i), id = row0 + i + 1;
        if (DS_AT(d, DS_FILE_ID, i) != x->file_id || kid < 0 || kid >= x->nkernel ||
            !x->kernel[kid]) {
            continue; /* another file's row, or no kernel row to join */
        }
        int h = id < x->nid ? x->how[id] : 0;
        int64_t key[4] = {h ? x->range[id] : 0, kid, h == 2 ? 0 : h == 3 ? 2 : 1,
                          id < x->nid ? x->module[id] : 0};
        int64_t seen = x->groups.n;
        uint32_t g = TupleIds_id(&x->groups, key);
        if (x->groups.n > seen) { /* a new group */
            if (g >= x->cap) {
                x->cap = x->cap ? x->cap * 2 : 1024;
                x->calls = xrealloc(x->calls, (size_t)x->cap * sizeof(*x->calls));
                x->time = xrealloc(x->time, (size_t)x->cap * sizeof(*x->time));
            }
            x->calls[g] = 0;
            x->time[g] = 0.0;
        }
        int64_t dur = DS_AT(d, DS_DUR_NS, i);
        x->calls[g] += 1;
        x->time[g] += dur == DISPATCH_STORE_NULL ? 0.0 : (double)dur; /* total() skips NULL */
    }
    return 1;
}

/* dispatch_range by dispatch id. 0 when a range id does not fit the 32-bit array (the
 * SQL path then reads it). */
static int read_ranges(TraceDb* db, Scan* x, DcuStatus* s, DcuError* err) {
    sqlite3_stmt* st = NULL;
    *s = TraceDb_prepare(db,
                         "SELECT dispatch_id, range_id, CASE how WHEN 'none' THEN 1"
                         " WHEN 'forward op' THEN 3 ELSE 2 END FROM dispatch_range"
                         " ORDER BY dispatch_id",
                         &st, err);
    int fits = 1, rc = SQLITE_DONE;
    while (*s == DCU_OK && fits && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id <= 0 || id >= x->nid) {
            continue; /* no such dispatch: the LEFT JOIN never reads it */
        }
        int null = sqlite3_column_type(st, 1) == SQLITE_NULL;
        int64_t r = sqlite3_column_int64(st, 1);
        fits = null || (r > 0 && r < (int64_t)UINT32_MAX);
        x->range[id] = null ? 0 : (uint32_t)r;
        x->how[id] = (unsigned char)sqlite3_column_int(st, 2);
    }
    if (*s == DCU_OK && fits && rc != SQLITE_DONE) {
        *s = Error_set(err, DCU_ERR_SQL, "ranges: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return fits;
}

static DcuStatus read_kernels(TraceDb* db, Scan* x, DcuError* err) {
    int64_t max = TraceDb_scalarInt(db, "SELECT coalesce(max(id), -1) FROM kernel");
    x->nkernel = max + 1 > 0 ? max + 1 : 0;
    x->kernel = xcalloc((size_t)x->nkernel + 1, 1);
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT id FROM kernel WHERE id >= 0", &st, err);
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < x->nkernel) {
            x->kernel[id] = 1;
        }
    }
    sqlite3_finalize(st);
    return s;
}

static int cmp_group(const void* a, const void* b) {
    const RangeGroup *x = a, *y = b;
    if (x->range_id != y->range_id) {
        return x->range_id < y->range_id ? -1 : 1;
    }
    if (x->kernel_id != y->kernel_id) {
        return x->kernel_id < y->kernel_id ? -1 : 1;
    }
    if (x->none != y->none) {
        return x->none - y->none;
    }
    return x->module < y->module ? -1 : x->module > y->module;
}

/* dispatch_op's module paths of PyTorch traces (nn.Module spans; a marker trace's module is
 * its ranges, on the tree already): their distinct texts in order into *names, and each
 * dispatch's index + 1 into x->module. */
static DcuStatus read_modules(TraceDb* db, Scan* x, char*** names, int64_t* n, DcuError* err) {
    sqlite3_stmt* st = NULL;
    Intern* ix = Intern_new();
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT DISTINCT module FROM dispatch_op"
                                  " WHERE module IS NOT NULL AND op_name IS NULL ORDER BY 1",
                                  &st, err);
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char* m = (const char*)sqlite3_column_text(st, 0);
        *names = xrealloc(*names, sizeof(char*) * (size_t)(*n + 1));
        (*names)[(*n)++] = xstrdup(m ? m : "");
        Intern_put(ix, m ? m : "", m ? strlen(m) : 0, *n);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (s == DCU_OK && rc == SQLITE_DONE && *n > 0) {
        s = TraceDb_prepare(db,
                            "SELECT dispatch_id, module FROM dispatch_op WHERE module IS NOT NULL"
                            " AND op_name IS NULL",
                            &st, err);
        while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(st, 0);
            const char* m = (const char*)sqlite3_column_text(st, 1);
            if (id > 0 && id < x->nid && m) {
                x->module[id] = (uint32_t)Intern_get(ix, m, strlen(m));
            }
        }
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "ranges: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    Intern_delete(ix);
    return s;
}

static DcuStatus scan_spans(TraceDb* db, DispatchStore* store, Scan* x, DcuError* err) {
    DispatchSpan* sp = NULL;
    int64_t nsp = 0;
    DcuStatus s = DispatchScan_usedSpans(db, &sp, &nsp, err);
    for (int64_t i = 0; s == DCU_OK && i < nsp; i++) {
        x->file_id = sp[i].file_id;
        s = DispatchScan_span(store, &sp[i], scan_block, x, err);
    }
    free(sp);
    return s;
}

int RangeGroups_read(TraceDb* db, RangeGroup** out, int64_t* n, char*** modules,
                     int64_t* nmodules, DcuStatus* s, DcuError* err) {
    *out = NULL;
    *n = 0;
    *modules = NULL;
    *nmodules = 0;
    *s = DCU_OK;
    DispatchStore* store = DispatchScan_store(db);
    if (!store) {
        return 0;
    }
    Scan x = {0};
    x.nid = DispatchStore_count(store) + 1;
    x.range = xcalloc((size_t)x.nid, sizeof(*x.range));
    x.how = xcalloc((size_t)x.nid, 1);
    x.module = xcalloc((size_t)x.nid, sizeof(*x.module));
    TupleIds_init(&x.groups, 4);
    int direct = read_ranges(db, &x, s, err);
    if (*s == DCU_OK && direct) {
        *s = read_modules(db, &x, modules, nmodules, err);
    }
    if (*s == DCU_OK && direct) {
        *s = read_kernels(db, &x, err);
    }
    if (*s == DCU_OK && direct) {
        *s = scan_spans(db, store, &x, err);
    }
    if (*s == DCU_OK && direct) {
        *out = xmalloc((size_t)(x.groups.n ? x.groups.n : 1) * sizeof(**out));
        for (int64_t g = 0; g < x.groups.n; g++) {
            (*out)[g] = (RangeGroup){TupleIds_value(&x.groups, (uint32_t)g, 0),
                                     TupleIds_value(&x.groups, (uint32_t)g, 1),
                                     (int)TupleIds_value(&x.groups, (uint32_t)g, 2),
                                     TupleIds_value(&x.groups, (uint32_t)g, 3), x.calls[g],
                                     x.time[g]};
        }
        *n = x.groups.n;
        qsort(*out, (size_t)*n, sizeof(**out), cmp_group);
    }
    TupleIds_done(&x.groups);
    free(x.range);
    free(x.how);
    free(x.module);
    free(x.kernel);
    free(x.calls);
    free(x.time);
    return direct;
}
