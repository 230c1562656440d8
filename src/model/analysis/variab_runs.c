/* variab_runs.c - variability per run: dcutop's time above golden (variab.h, from
 * kernel_var_run) and, beside it, RAPTOR's VarSum computed as RAPTOR computes it.
 *
 * RAPTOR's VarSum (rocmProfileData raptor_parser.py, get_top_df with its defaults), per
 * dispatch file: the ops are the kernels and the device-to-device copies, in start order
 * over every GPU of the file (ties: kernels before copies, then load order); each op is
 * grouped with the names of the two ops before it (prekernel_seq = 2; the first two ops have
 * none and are in no group); a group's VarSum is (mean - min) x calls of its durations (end -
 * start, 0 when negative), truncated to an integer; the file's is their sum, and "comm" the
 * sum over the groups whose own op is a collective (RAPTOR's by_comm). */
#include "dcutop/variab.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/dispatch_scan.h"
#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"

typedef struct {
    int64_t s, id, dur, key; /* key: kernel id (> 0), or -(1 + copy name index) */
    int copy;
} Op;

typedef struct {
    Op* v;
    int64_t n, cap, file;
} Ops;

static void op_add(Ops* o, int64_t s, int64_t e, int64_t id, int64_t key, int copy) {
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 1024;
        o->v = xrealloc(o->v, sizeof(Op) * (size_t)o->cap);
    }
    o->v[o->n++] = (Op){s, id, e > s ? e - s : 0, key, copy};
}

static int op_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    Ops* o = ctx;
    for (int64_t i = from; i < to; i++) {
        int64_t s = DS_AT(d, DS_START_NS, i), e = DS_AT(d, DS_END_NS, i);
        if (DS_AT(d, DS_FILE_ID, i) == o->file && s != DISPATCH_STORE_NULL &&
            e != DISPATCH_STORE_NULL && DS_AT(d, DS_KERNEL_ID, i) != DISPATCH_STORE_NULL) {
            op_add(o, s, e, row0 + i + 1, DS_AT(d, DS_KERNEL_ID, i), 0);
        }
    }
    return 1;
}

static int by_start(const void* a, const void* b) {
    const Op *x = a, *y = b;
    if (x->s != y->s) {
        return x->s < y->s ? -1 : 1;
    }
    if (x->copy != y->copy) {
        return x->copy - y->copy;
    }
    return (x->id > y->id) - (x->id < y->id);
}

/* The file's ops: its timed dispatches (from the store when there is one) and its
 * device-to-device copies (names: their index in *names, kept across files). */
static DcuStatus read_ops(TraceDb* db, Ops* o, char*** names, int64_t* nnames, DcuError* err) {
    DispatchStore* store = DispatchScan_store(db);
    DispatchSpan sp;
    DcuStatus s = DCU_OK;
    sqlite3_stmt* st = NULL;
    if (store) {
        if (DispatchScan_fileSpan(db, o->file, &sp)) {
            s = DispatchScan_span(store, &sp, op_block, o, err);
        }
    } else if ((s = TraceDb_prepareCached(db,
                                          "SELECT d.start_ns, d.end_ns, d.id, d.kernel_id"
                                          " FROM dispatch d WHERE " DISPATCH_OF_FILE("?1")
                                          " AND d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"
                                          " AND d.kernel_id IS NOT NULL",
                                          &st, err)) == DCU_OK) {
        sqlite3_bind_int64(st, 1, o->file);
        while (sqlite3_step(st) == SQLITE_ROW) {
            op_add(o, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                   sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), 0);
        }
        TraceDb_release(db, st);
    }
    if (s == DCU_OK &&
        (s = TraceDb_prepareCached(
             db,
             "SELECT start_ns, end_ns, id, name FROM copy WHERE file_id = ?1"
             " AND start_ns IS NOT NULL AND end_ns IS NOT NULL"
             " AND regexp('(?i)DtoD|DeviceToDevice|D2D|DEVICE_TO_DEVICE', name)",
             &st, err)) == DCU_OK) {
        sqlite3_bind_int64(st, 1, o->file);
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char* name = (const char*)sqlite3_column_text(st, 3);
            int64_t k = 0;
            while (k < *nnames && strcmp((*names)[k], name ? name : "") != 0) {
                k++; /* a few copy kinds: a list is enough */
            }
            if (k == *nnames) {
                *names = xrealloc(*names, sizeof(char*) * (size_t)(*nnames + 1));
                (*names)[(*nnames)++] = xstrdup(name ? name : "");
            }
            op_add(o, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                   sqlite3_column_int64(st, 2), -(k + 1), 1);
        }
        TraceDb_release(db, st);
    }
    return s;
}

typedef struct {
    int64_t k0, k1, k2;
    int64_t n, min;
    int64_t sum; /* durations of one file: below 2^63 */
    int used;
} Group;

static size_t group_hash(int64_t a, int64_t b, int64_t c) {
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)c * 0x165667B19E3779F9ull;
    return (size_t)(h ^ (h >> 31));
}

/* RAPTOR's VarSum of one file's ops (sorted here), and its comm part. */
static void varsum(Ops* o, const I64Map* comm, int64_t* v, int64_t* vcomm) {
    *v = *vcomm = 0;
    if (o->n < 3) {
        return;
    }
    qsort(o->v, (size_t)o->n, sizeof(Op), by_start);
    size_t cap = 64;
    while (cap < (size_t)o->n * 2) {
        cap *= 2;
    }
    Group* g = xcalloc(cap, sizeof(Group));
    for (int64_t i = 2; i < o->n; i++) {
        int64_t a = o->v[i].key, b = o->v[i - 1].key, c = o->v[i - 2].key;
        size_t at = group_hash(a, b, c) & (cap - 1);
        while (g[at].used && !(g[at].k0 == a && g[at].k1 == b && g[at].k2 == c)) {
            at = (at + 1) & (cap - 1);
        }
        Group* x = &g[at];
        if (!x->used) {
            *x = (Group){a, b, c, 0, o->v[i].dur, 0, 1};
        }
        x->n++;
        x->sum += o->v[i].dur;
        x->min = o->v[i].dur < x->min ? o->v[i].dur : x->min;
    }
    for (size_t i = 0; i < cap; i++) {
        if (g[i].used) {
            /* as pandas: the mean in double, (mean - min) * calls truncated */
            double mean = (double)g[i].sum / (double)g[i].n;
            int64_t s = (int64_t)((mean - (double)g[i].min) * (double)g[i].n);
            *v += s;
            *vcomm += g[i].k0 > 0 && I64Map_get(comm, g[i].k0) ? s : 0;
        }
    }
    free(g);
}

/* RAPTOR's VarSum per used kernel file: file -> 1 + index into v / vcomm. */
static DcuStatus raptor(TraceDb* db, I64Map* at, int64_t** v, int64_t** vcomm, DcuError* err) {
    I64Map* comm = I64Map_new();
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT id FROM kernel WHERE category = 'comm'", &st, err);
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        I64Map_put(comm, sqlite3_column_int64(st, 0), 1);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            /* a job summary's rank has no dispatches to read: none */
                            "SELECT DISTINCT file_id FROM used_file WHERE layer = 'kernel'"
                            " AND file_id NOT IN (SELECT file_id FROM job_rank)"
                            " ORDER BY file_id",
                            &st, err);
    }
    char** names = NULL;
    int64_t nnames = 0, n = 0;
    Ops o = {0};
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        o.file = sqlite3_column_int64(st, 0);
        o.n = 0;
        s = read_ops(db, &o, &names, &nnames, err);
        *v = xrealloc(*v, sizeof(int64_t) * (size_t)(n + 1));
        *vcomm = xrealloc(*vcomm, sizeof(int64_t) * (size_t)(n + 1));
        varsum(&o, comm, &(*v)[n], &(*vcomm)[n]);
        I64Map_put(at, o.file, ++n);
    }
    sqlite3_finalize(st);
    for (int64_t i = 0; i < nnames; i++) {
        free(names[i]);
    }
    free(names);
    free(o.v);
    I64Map_delete(comm);
    return s;
}

static const RsColumn run_cols[] = {
    {"file", "Run (dispatch file)", CT_TEXT}, {"kernels", "Kernels", CT_INT},
    {"dispatches", "Dispatches", CT_INT},     {"kernel_ns", "Kernel time", CT_NS},
    {"var_ns", "Var", CT_NS},                 {"var_pct", "Var%", CT_PCT},
    {"outliers", "Outliers", CT_INT},         {"raptor_var_ns", "RAPTOR VarSum", CT_NS},
    {"raptor_comm_ns", "of it comm", CT_NS},
};

DcuStatus Variab_runs(TraceDb* db, ResultSet** out, DcuError* err) {
    *out = NULL;
    I64Map* at = I64Map_new();
    int64_t *rv = NULL, *rc_comm = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = raptor(db, at, &rv, &rc_comm, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "SELECT f.name, count(*), CAST(total(v.dispatches) AS INTEGER),"
                            " CAST(total(v.total_ns) AS INTEGER),"
                            " CAST(total(v.var_ns) AS INTEGER),"
                            " CAST(total(v.outliers) AS INTEGER), v.file_id"
                            " FROM kernel_var_run v JOIN source_file f ON f.id = v.file_id"
                            " GROUP BY v.file_id ORDER BY v.file_id",
                            &st, err);
    }
    ResultSet* rs = NULL;
    if (s == DCU_OK) {
        rs = ResultSet_new("variability_runs", run_cols,
                           (int)(sizeof(run_cols) / sizeof(run_cols[0])));
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int r = ResultSet_addRow(rs);
            ResultSet_setText(rs, r, 0, (const char*)sqlite3_column_text(st, 0));
            for (int c = 1; c <= 4; c++) {
                ResultSet_setInt(rs, r, c, sqlite3_column_int64(st, c));
            }
            int64_t t = sqlite3_column_int64(st, 3), v = sqlite3_column_int64(st, 4);
            ResultSet_setReal(rs, r, 5, t > 0 ? 100.0 * (double)v / (double)t : 0.0);
            ResultSet_setInt(rs, r, 6, sqlite3_column_int64(st, 5));
            int64_t i = I64Map_get(at, sqlite3_column_int64(st, 6));
            if (i > 0) { /* none for a job summary's rank: RAPTOR reads every dispatch */
                ResultSet_setInt(rs, r, 7, rv[i - 1]);
                ResultSet_setInt(rs, r, 8, rc_comm[i - 1]);
            }
        }
        if (rc != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "variability: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
            ResultSet_delete(rs);
            rs = NULL;
        }
    }
    sqlite3_finalize(st);
    free(rv);
    free(rc_comm);
    I64Map_delete(at);
    *out = rs;
    return s;
}
