/* dispatch_list.c - KernelQuery_dispatches (kernel_query.h): every dispatch of one kernel,
 * in (file, start, id) order, starts counted from each run's own start. The drill-in on a
 * kernel of 203,000 dispatches took 340 ms of SQL, most of it a sort of whole rows and a
 * join per row (issue 11). Now the rows come from the kernel_id index in rowid order,
 * usually already in start order; the file's name, run and filter match are looked up once
 * per file; and only when rows are out of order are they sorted, by an index on keys. */
#include "dcutop/kernel_query.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/dispatch_scan.h"
#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"
#include "dispatch_files.h"

const RsColumn DispatchList_cols[D_NCOLS] = {
    {"seq", "Index", CT_INT},      {"gpu", "GPU", CT_INT},        {"queue", "Queue", CT_INT},
    {"stream", "Stream", CT_INT},  {"pid", "PID", CT_INT},        {"tid", "TID", CT_INT},
    {"start_ns", "Start", CT_NS},  {"dur_ns", "Duration", CT_NS}, {"grid", "Grid", CT_INT},
    {"workgroup", "WG", CT_INT},   {"lds", "LDS", CT_INT},        {"vgpr", "VGPR", CT_INT},
    {"sgpr", "SGPR", CT_INT},      {"file", "File", CT_TEXT},
};

/* Each run's first dispatch start (one clock per run): a scan of every dispatch, so read
 * once while the database is unchanged; it was most of a drill-in's 450 ms at 1M (issue 11).
 * The same under a region of interest: times stay in trace time. */
typedef struct RunStarts_ {
    int64_t n;
    int64_t* t0;
    I64Map* ix; /* run id -> index + 1 (50,000 runs: no scan of them per file) */
} RunStarts;

static void run_starts_free(void* p) {
    RunStarts* r = p;
    free(r->t0);
    I64Map_delete(r->ix);
    free(r);
}

static const RunStarts* run_starts(TraceDb* db, DcuError* err) {
    RunStarts* r = TraceDb_cached(db, TRACEDB_CACHE_RUN_STARTS, TraceDb_state(db));
    if (r) {
        return r;
    }
    sqlite3_stmt* st = NULL;
    /* from the earliest start of each file's kernels, kept while loading (dispatch_agg): no
     * scan of the dispatches at all. A region of interest does not cut it (the main table),
     * so the times of the list stay in trace time, as the trace and the ROI label show */
    if (TraceDb_prepare(db,
                        "SELECT f0.run_id, min(a.min_start) FROM main.dispatch_agg a"
                        " JOIN source_file f0 ON f0.id = a.file_id"
                        " WHERE f0.run_id IS NOT NULL GROUP BY f0.run_id",
                        &st, err) != DCU_OK) {
        return NULL;
    }
    r = xcalloc(1, sizeof(*r));
    r->ix = I64Map_new();
    int64_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (r->n == cap) {
            cap = cap ? 2 * cap : 16;
            r->t0 = xrealloc(r->t0, sizeof(int64_t) * (size_t)cap);
        }
        /* NULL when no dispatch of the run has a start: INT64_MIN marks it */
        r->t0[r->n++] = sqlite3_column_type(st, 1) == SQLITE_NULL ? INT64_MIN
                                                                  : sqlite3_column_int64(st, 1);
        I64Map_put(r->ix, sqlite3_column_int64(st, 0), r->n);
    }
    sqlite3_finalize(st);
    TraceDb_setCached(db, TRACEDB_CACHE_RUN_STARTS, TraceDb_state(db), r, run_starts_free);
    return r;
}

typedef DispatchFile File;
typedef DispatchFiles Files;

void DispatchFiles_done(DispatchFiles* f) {
    for (int64_t i = 0; i < f->n; i++) {
        free(f->v[i].name);
    }
    free(f->v);
    I64Map_delete(f->ix);
}

static DcuStatus read_files(TraceDb* db, const RunStarts* starts, const char* filter, Files* out,
                            DcuError* err) {
    out->ix = out->ix ? out->ix : I64Map_new();
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT f.id, f.name, f.run_id FROM source_file f WHERE f.id IN"
                                  " (SELECT file_id FROM used_file WHERE layer = 'kernel')"
                                  " AND (?1 IS NULL OR regexp(?1, f.name)) ORDER BY f.id",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    if (filter && *filter) {
        sqlite3_bind_text(st, 1, filter, -1, SQLITE_TRANSIENT);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        out->v = xrealloc(out->v, sizeof(File) * (size_t)(out->n + 1));
        File* f = &out->v[out->n++];
        const char* name = (const char*)sqlite3_column_text(st, 1);
        f->name = xstrdup(name ? name : "");
        f->t0 = 0;
        f->t0_known = 0;
        int64_t i = sqlite3_column_type(st, 2) != SQLITE_NULL
                        ? I64Map_get(starts->ix, sqlite3_column_int64(st, 2))
                        : 0;
        if (i) {
            f->t0_known = starts->t0[i - 1] != INT64_MIN;
            f->t0 = f->t0_known ? starts->t0[i - 1] : 0;
        }
        I64Map_put(out->ix, sqlite3_column_int64(st, 0), out->n);
    }
    if (rc != SQLITE_DONE) { /* a bad filter pattern: regexp() says why */
        s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

DcuStatus DispatchFiles_read(TraceDb* db, const char* filter, DispatchFiles* out,
                            DcuError* err) {
    memset(out, 0, sizeof(*out));
    const RunStarts* starts = run_starts(db, err);
    return starts ? read_files(db, starts, filter, out, err) : DCU_ERR_SQL;
}

/* One dispatch as read: the integer columns (null bit per column) and its sort key. */
typedef struct {
    int64_t v[D_NINT];
    uint32_t nulls;
    int64_t file, id; /* file index (Files are in id order, so this orders as the id), id */
} Row;

static int row_before(const Row* a, const Row* b) {
    if (a->file != b->file) { /* ORDER BY d.file_id, d.start_ns, d.id: NULL starts first */
        return a->file < b->file;
    }
    int an = (a->nulls >> D_START) & 1, bn = (b->nulls >> D_START) & 1;
    if (an != bn) {
        return an;
    }
    if (!an && a->v[D_START] != b->v[D_START]) {
        return a->v[D_START] < b->v[D_START];
    }
    return a->id < b->id;
}

static const Row* sort_base;
static int by_key(const void* x, const void* y) {
    const Row *a = &sort_base[*(const int64_t*)x], *b = &sort_base[*(const int64_t*)y];
    return row_before(a, b) ? -1 : row_before(b, a) ? 1 : 0;
}

/* The columns of a Row, in D_ order, as the store holds them. */
static const DispatchCol store_cols[D_NINT] = {
    DS_SEQ,     DS_GPU,     DS_QUEUE,   DS_STREAM, DS_PID,  DS_TID,  DS_START_NS,
    DS_DUR_NS,  DS_GRID,    DS_WORKGROUP, DS_LDS,  DS_VGPR, DS_SGPR};

/* read_rows from the store's kernel index and columns (dispatch_scan.h): 1 when it could
 * (no region of interest, an index), with s set; a drill-in on 200,000 dispatches read
 * them through SQL in about half a second. */
static int read_rows_direct(TraceDb* db, const char* name, const Files* files, Row** rows,
                            int64_t* n, DcuStatus* s, DcuError* err) {
    DispatchStore* store = DispatchScan_store(db);
    sqlite3_stmt* q = NULL;
    if (!store || TraceDb_prepare(db, "SELECT id FROM kernel WHERE name = ?1", &q, err) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_text(q, 1, name, -1, SQLITE_TRANSIENT);
    int64_t kid = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
    sqlite3_finalize(q);
    const int64_t* kr;
    int64_t nk;
    if (!DispatchStore_kernelRows(store, kid, &kr, &nk)) {
        return 0;
    }
    *rows = xmalloc(sizeof(Row) * (size_t)(nk > 0 ? nk : 1));
    *s = DCU_OK;
    int64_t ci = -1, nrows;
    const int64_t* d = NULL;
    for (int64_t i = 0; i < nk; i++) {
        int64_t row = kr[i], r = row % DISPATCH_STORE_CHUNK;
        if (row / DISPATCH_STORE_CHUNK != ci) { /* rows ascend: each chunk read once */
            ci = row / DISPATCH_STORE_CHUNK;
            d = DispatchStore_chunk(store, ci, &nrows);
            if (!d) {
                *s = Error_set(err, DCU_ERR_IO, "dispatch store: cannot read back its temporary file");
                return 1;
            }
        }
        int64_t fi = I64Map_get(files->ix, DS_AT(d, DS_FILE_ID, r));
        if (!fi) {
            continue; /* not a used kernel file, or the filter leaves it out */
        }
        Row* x = &(*rows)[(*n)++];
        x->nulls = 0;
        for (int c = 0; c < D_NINT; c++) {
            int64_t v = DS_AT(d, store_cols[c], r);
            x->nulls |= (uint32_t)(v == DISPATCH_STORE_NULL) << c;
            x->v[c] = v == DISPATCH_STORE_NULL ? 0 : v;
        }
        x->file = fi - 1;
        x->id = row + 1;
    }
    return 1;
}

static DcuStatus read_rows(TraceDb* db, const char* name, const Files* files, Row** rows,
                           int64_t* n, DcuError* err) {
    DcuStatus direct;
    if (read_rows_direct(db, name, files, rows, n, &direct, err)) {
        return direct;
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT d.seq, d.gpu, d.queue, d.stream, d.pid, d.tid, d.start_ns, d.dur_ns, d.grid,"
        " d.workgroup, d.lds, d.vgpr, d.sgpr, d.file_id, d.id FROM dispatch d"
        " WHERE d.kernel_id = (SELECT id FROM kernel WHERE name = ?1)",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t fi = I64Map_get(files->ix, sqlite3_column_int64(st, D_FILE));
        if (!fi) {
            continue; /* not a used kernel file, or the filter leaves it out */
        }
        if ((size_t)*n == cap) {
            cap = cap ? cap * 2 : 1024;
            *rows = xrealloc(*rows, sizeof(Row) * cap);
        }
        Row* r = &(*rows)[(*n)++];
        r->nulls = 0;
        for (int c = 0; c < D_NINT; c++) {
            if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                r->nulls |= 1u << c;
                r->v[c] = 0;
            } else {
                r->v[c] = sqlite3_column_int64(st, c);
            }
        }
        r->file = fi - 1;
        r->id = sqlite3_column_int64(st, D_FILE + 1);
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

/* The rows in (file id, start, id) order: an index array, sorted only when needed. */
static int64_t* order_of(const Row* rows, int64_t n) {
    int64_t* ix = xmalloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    int sorted = 1;
    for (int64_t i = 0; i < n; i++) {
        ix[i] = i;
        if (i > 0 && row_before(&rows[i], &rows[i - 1])) {
            sorted = 0;
        }
    }
    if (!sorted) {
        sort_base = rows;
        qsort(ix, (size_t)n, sizeof(int64_t), by_key);
        sort_base = NULL;
    }
    return ix;
}

DcuStatus KernelQuery_dispatches(TraceDb* db, const char* name, const QueryOpts* opts,
                                 ResultSet** out, DcuError* err) {
    *out = NULL;
    DcuStatus s = KernelQuery_ensureIndex(db, err);
    if (s != DCU_OK) {
        return s;
    }
    const RunStarts* starts = run_starts(db, err);
    if (!starts) {
        return DCU_ERR_SQL;
    }
    Files files = {NULL, 0, I64Map_new()};
    Row* rows = NULL;
    int64_t n = 0;
    s = read_files(db, starts, opts ? opts->filter : NULL, &files, err);
    if (s == DCU_OK) {
        s = read_rows(db, name, &files, &rows, &n, err);
    }
    ResultSet* rs = NULL;
    if (s == DCU_OK) {
        rs = ResultSet_new("dispatches", DispatchList_cols, D_NCOLS);
        ResultSet_reserve(rs, n < INT32_MAX ? (int)n : INT32_MAX);
        int64_t* ix = order_of(rows, n);
        for (int64_t i = 0; i < n; i++) {
            const Row* r = &rows[ix[i]];
            const File* f = &files.v[r->file];
            int row = ResultSet_addRow(rs);
            for (int c = 0; c < D_NINT; c++) {
                /* start times from the start of the dispatch's own run (a clock per run) */
                if (!((r->nulls >> c) & 1) && (c != D_START || f->t0_known)) {
                    ResultSet_setInt(rs, row, c, r->v[c] - (c == D_START ? f->t0 : 0));
                }
            }
            ResultSet_setText(rs, row, D_FILE, f->name);
        }
        free(ix);
    }
    free(rows);
    DispatchFiles_done(&files);
    if (s == DCU_OK && opts && opts->sort && *opts->sort) {
        s = Query_sort(rs, opts->sort, err);
    }
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
