/* launch_stats.c - the launch statistics per GPU op name (idle.h's "launch stats"), as HTA's
 * get_cuda_kernel_launch_stats computes them with its defaults. HTA (0.5.0,
 * hta/analyzers/cuda_kernel_analysis.py) takes the correlation ids of the runtime calls named
 * cudaLaunchKernel, cudaMemsetAsync and cudaMemcpyAsync (include_memory_events=True), joins
 * each CPU event with the GPU events (kernels, memsets, copies) of the same id, and computes
 * per pair, on its events rounded to whole microseconds (start up, end down: its parser's
 * answer to overlapping ns events):
 *   cpu_duration  the call's duration;
 *   launch_delay  GPU start - call start + call duration (its code; its docstring says "GPU
 *                 start minus call end", which would be the call duration twice less);
 *   short         cpu_duration <= runtime_cutoff (50 us) and GPU duration < cpu_duration;
 *   outliers      cpu_duration > 50 us, launch_delay > launch_delay_cutoff (100 us).
 * dcutop reads HIP's hipLaunchKernel, hipMemsetAsync and hipMemcpyAsync as the same set (HTA
 * has no HIP names: on a ROCm trace it finds no launch). Launches by other calls
 * (cuLaunchKernelEx, cudaLaunchKernelExC, hipExtModuleLaunchKernel, ...) are not in the set,
 * as in HTA. The median is pandas' (the mean of the two middle values); p95 is pandas'
 * quantile(0.95) (linear between the nearest ranks). The rows pool every used file (HTA
 * reads one rank at a time). */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/dispatch_scan.h"
#include "dcutop/i64_map.h"
#include "dcutop/idle.h"
#include "dcutop/intern.h"
#include "dcutop/launch_calls.h"
#include "dcutop/xalloc.h"

static const char* const launch_set[] = {"cudaLaunchKernel", "cudaMemsetAsync",
                                         "cudaMemcpyAsync",  "hipLaunchKernel",
                                         "hipMemsetAsync",   "hipMemcpyAsync"};

static const RsColumn kern_cols[] = {
    {"kernel", "Kernel", CT_TEXT},            {"launches", "Launches", CT_INT},
    {"median_ns", "Median delay", CT_NS},     {"p95_ns", "p95 delay", CT_NS},
    {"max_ns", "Max delay", CT_NS},           {"call_median_ns", "Median call", CT_NS},
    {"call_p95_ns", "p95 call", CT_NS},       {"call_max_ns", "Max call", CT_NS},
    {"short", "Short", CT_INT},               {"delay_outliers", "Delay>100us", CT_INT},
    {"call_outliers", "Call>50us", CT_INT},
};
#define NCOLS ((int)(sizeof(kern_cols) / sizeof(kern_cols[0])))

/* One launch of HTA's set: its group (kernel id >= 0, or -1 - a memset/copy name's index)
 * and its events in whole us as HTA rounds them. */
typedef struct {
    int64_t key, start, end, cs, ce;
} Launch;

typedef struct {
    const LaunchCalls* lc;
    unsigned char* in_set; /* per call name index: 1 when in launch_set */
    int64_t file, run;
    Launch* v;
    int64_t n, cap;
} Reader;

static int64_t floor_div(int64_t a, int64_t b) {
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static int64_t ceil_div(int64_t a, int64_t b) {
    return -floor_div(-a, b);
}

/* Adds the op [t0, t1) with correlation id corr of r's file when its call is in the set. */
static void add_op(Reader* r, int64_t key, int64_t t0, int64_t t1, int64_t corr) {
    const LaunchCall* a = LaunchCalls_find(r->lc, r->file, r->run, 1, corr);
    if (!a || !a->has_start || !a->has_end || !r->in_set[a->name]) {
        return; /* HTA drops events without a duration */
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 1024;
        r->v = xrealloc(r->v, (size_t)r->cap * sizeof(*r->v));
    }
    r->v[r->n++] = (Launch){key, ceil_div(t0, 1000), floor_div(t1, 1000),
                            ceil_div(a->start, 1000), floor_div(a->end, 1000)};
}

static int store_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    (void)row0;
    Reader* r = ctx;
    for (int64_t i = from; i < to; i++) {
        int64_t t0 = DS_AT(d, DS_START_NS, i), t1 = DS_AT(d, DS_END_NS, i),
                corr = DS_AT(d, DS_CORR_ID, i), kid = DS_AT(d, DS_KERNEL_ID, i);
        if (DS_AT(d, DS_FILE_ID, i) == r->file && t0 != DISPATCH_STORE_NULL &&
            t1 != DISPATCH_STORE_NULL && corr != DISPATCH_STORE_NULL) {
            add_op(r, kid == DISPATCH_STORE_NULL ? 0 : kid, t0, t1, corr);
        }
    }
    return 1;
}

/* The dispatches of the used kernel files from the dispatch store. */
static DcuStatus read_store(TraceDb* db, DispatchStore* store, Reader* r, DcuError* err) {
    DispatchSpan* sp = NULL;
    int64_t nsp = 0;
    sqlite3_stmt* run = NULL;
    DcuStatus s = DispatchScan_usedSpans(db, &sp, &nsp, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT run_id FROM source_file WHERE id = ?1", &run, err);
    }
    for (int64_t i = 0; s == DCU_OK && i < nsp; i++) {
        sqlite3_bind_int64(run, 1, sp[i].file_id);
        int has = sqlite3_step(run) == SQLITE_ROW && sqlite3_column_type(run, 0) != SQLITE_NULL;
        r->file = sp[i].file_id;
        r->run = has ? sqlite3_column_int64(run, 0) : 0;
        sqlite3_reset(run);
        if (has) {
            s = DispatchScan_span(store, &sp[i], store_block, r, err);
        }
    }
    sqlite3_finalize(run);
    free(sp);
    return s;
}

/* The dispatches through SQL (when a region of interest cuts them: no store) and always the
 * memsets and copies the devices ran (HTA's memory events); copies are keyed by name into
 * names. */
static DcuStatus read_sql(TraceDb* db, int dispatches, Reader* r, Intern* ix, char*** names,
                          int64_t* nnames, DcuError* err) {
    static const char dsql[] =
        "SELECT d.file_id, f.run_id, d.corr_id, d.kernel_id, d.start_ns, d.end_ns, NULL"
        " FROM dispatch d JOIN source_file f ON f.id = d.file_id"
        " WHERE d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"
        "  AND d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL AND f.run_id IS NOT NULL"
        "  AND d.corr_id IS NOT NULL";
    static const char csql[] =
        "SELECT x.file_id, f.run_id, x.corr_id, NULL, x.start_ns, x.end_ns, x.name"
        " FROM copy x JOIN source_file f ON f.id = x.file_id"
        " WHERE x.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"
        "  AND x.start_ns IS NOT NULL AND x.end_ns IS NOT NULL AND f.run_id IS NOT NULL"
        "  AND x.corr_id IS NOT NULL";
    DcuStatus s = DCU_OK;
    for (int q = dispatches ? 0 : 1; s == DCU_OK && q < 2; q++) {
        sqlite3_stmt* st = NULL;
        s = TraceDb_prepare(db, q == 0 ? dsql : csql, &st, err);
        int rc = SQLITE_DONE;
        while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            r->file = sqlite3_column_int64(st, 0);
            r->run = sqlite3_column_int64(st, 1);
            int64_t key = sqlite3_column_int64(st, 3);
            if (q == 1) {
                const char* nm = (const char*)sqlite3_column_text(st, 6);
                nm = nm ? nm : "";
                int64_t id = Intern_get(ix, nm, strlen(nm));
                if (!id) {
                    *names = xrealloc(*names, (size_t)(*nnames + 1) * sizeof(char*));
                    (*names)[(*nnames)++] = xstrdup(nm);
                    id = *nnames;
                    Intern_put(ix, nm, strlen(nm), id);
                }
                key = -id;
            }
            add_op(r, key, sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
                   sqlite3_column_int64(st, 2));
        }
        if (s == DCU_OK && rc != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "launch stats: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_finalize(st);
    }
    return s;
}

static int cmp_launch(const void* a, const void* b) {
    const Launch *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* Median, p95 and max (pandas' median and quantile(0.95)) of v[0..k) in us into columns col,
 * col+1, col+2 in ns (sorts v). */
static void put_stats(ResultSet* rs, int r, int col, int64_t* v, int64_t k) {
    qsort(v, (size_t)k, sizeof(*v), cmp_i64);
    double pos = 0.95 * (double)(k - 1);
    int64_t lo = (int64_t)floor(pos);
    int64_t hi = lo + 1 < k ? lo + 1 : lo;
    double p95 = (double)v[lo] + (pos - (double)lo) * (double)(v[hi] - v[lo]);
    ResultSet_setNs(rs, r, col, (double)(v[(k - 1) / 2] + v[k / 2]) * 500.0);
    ResultSet_setNs(rs, r, col + 1, p95 * 1000.0);
    ResultSet_setNs(rs, r, col + 2, (double)v[k - 1] * 1000.0);
}

/* One row for the launches p[0..k) of the op named name. */
static void op_row(ResultSet* rs, const Launch* p, int64_t k, const char* name, int64_t* buf) {
    int64_t shorts = 0, dout = 0, cout = 0;
    int r = ResultSet_addRow(rs);
    ResultSet_setText(rs, r, 0, name ? name : "?");
    ResultSet_setInt(rs, r, 1, k);
    for (int64_t q = 0; q < k; q++) {
        int64_t call = p[q].ce - p[q].cs;
        buf[q] = p[q].start - p[q].cs + call;
        dout += buf[q] > IDLE_HTA_DELAY_CUTOFF_US;
        cout += call > IDLE_HTA_RUNTIME_CUTOFF_US;
        shorts += call <= IDLE_HTA_RUNTIME_CUTOFF_US && p[q].end - p[q].start < call;
    }
    put_stats(rs, r, 2, buf, k);
    for (int64_t q = 0; q < k; q++) {
        buf[q] = p[q].ce - p[q].cs;
    }
    put_stats(rs, r, 5, buf, k);
    ResultSet_setInt(rs, r, 8, shorts);
    ResultSet_setInt(rs, r, 9, dout);
    ResultSet_setInt(rs, r, 10, cout);
}

static DcuStatus op_stats(TraceDb* db, ResultSet* rs, DcuError* err) {
    Reader r = {0};
    DcuStatus s = LaunchCalls_get(db, &r.lc, err);
    if (s != DCU_OK) {
        return s;
    }
    uint32_t nn = LaunchCalls_names(r.lc);
    r.in_set = xcalloc((size_t)nn + 1, 1);
    for (uint32_t i = 0; i < nn; i++) {
        for (size_t j = 0; j < sizeof(launch_set) / sizeof(launch_set[0]); j++) {
            r.in_set[i] |= strcmp(LaunchCalls_name(r.lc, i), launch_set[j]) == 0;
        }
    }
    Intern* ix = Intern_new();
    char** names = NULL;
    int64_t nnames = 0;
    DispatchStore* store = DispatchScan_store(db);
    if (store) {
        s = read_store(db, store, &r, err);
    }
    if (s == DCU_OK) {
        s = read_sql(db, !store, &r, ix, &names, &nnames, err);
    }
    sqlite3_stmt* name = NULL;
    if (s == DCU_OK && r.n) {
        s = TraceDb_prepare(db, "SELECT name FROM kernel WHERE id = ?1", &name, err);
        qsort(r.v, (size_t)r.n, sizeof(*r.v), cmp_launch);
    }
    int64_t* buf = xmalloc((size_t)(r.n ? r.n : 1) * sizeof(*buf));
    for (int64_t i = 0; s == DCU_OK && i < r.n;) {
        int64_t j = i;
        while (j < r.n && r.v[j].key == r.v[i].key) {
            j++;
        }
        if (r.v[i].key < 0) {
            op_row(rs, r.v + i, j - i, names[-r.v[i].key - 1], buf);
        } else {
            sqlite3_bind_int64(name, 1, r.v[i].key);
            sqlite3_step(name);
            op_row(rs, r.v + i, j - i, (const char*)sqlite3_column_text(name, 0), buf);
            sqlite3_reset(name);
        }
        i = j;
    }
    sqlite3_finalize(name);
    ResultSet_sort(rs, 0, 0);
    for (int64_t i = 0; i < nnames; i++) {
        free(names[i]);
    }
    free(names);
    Intern_delete(ix);
    free(buf);
    free(r.v);
    free(r.in_set);
    return s;
}

static void table_free(void* p) {
    ResultSet_delete(p);
}

DcuStatus Idle_launchTable(TraceDb* db, const ResultSet** out, DcuError* err) {
    *out = TraceDb_cached(db, TRACEDB_CACHE_LAUNCH_STATS, TraceDb_state(db));
    if (*out) {
        return DCU_OK;
    }
    ResultSet* rs = ResultSet_new("launch-stats", kern_cols, NCOLS) /* Idle_viewName(IDLE_KERNELS), named here: idle.c calls this file */;
    int any = TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM api_call"
                                    " WHERE corr_id IS NOT NULL)") == 1;
    DcuStatus s = any ? op_stats(db, rs, err) : DCU_OK;
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    TraceDb_setCached(db, TRACEDB_CACHE_LAUNCH_STATS, TraceDb_state(db), rs, table_free);
    *out = rs;
    return DCU_OK;
}

int Idle_launchRow(const ResultSet* t, const char* kernel) {
    int lo = 0, hi = t->nrows - 1;
    while (kernel && lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const char* s = ResultSet_cellc(t, mid, 0)->s;
        int c = strcmp(s ? s : "", kernel);
        if (c == 0) {
            return mid;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

static void copy_row(ResultSet* dst, const ResultSet* src, int r) {
    int k = ResultSet_addRow(dst);
    for (int c = 0; c < src->ncols; c++) {
        RsCell* d = ResultSet_cell(dst, k, c);
        const RsCell* x = ResultSet_cellc(src, r, c);
        *d = *x;
        d->s = x->s ? xstrdup(x->s) : NULL;
    }
}

DcuStatus Idle_launchStats(TraceDb* db, const char* kernel, ResultSet** out, DcuError* err) {
    *out = NULL;
    const ResultSet* t = NULL;
    DcuStatus s = Idle_launchTable(db, &t, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("launch-stats", kern_cols, NCOLS) /* Idle_viewName(IDLE_KERNELS), named here: idle.c calls this file */;
    if (kernel) {
        int r = Idle_launchRow(t, kernel);
        if (r >= 0) {
            copy_row(rs, t, r);
        }
    } else {
        for (int r = 0; r < t->nrows; r++) {
            copy_row(rs, t, r);
        }
        ResultSet_sort(rs, 3, 1); /* the largest p95 delay first */
    }
    *out = rs;
    return DCU_OK;
}
