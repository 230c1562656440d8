/* dispatch_scan.c - see dispatch_scan.h. */
#include "dcutop/dispatch_scan.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "dcutop/xalloc.h"

DispatchStore* DispatchScan_store(TraceDb* db) {
    DispatchStore* st = TraceDb_dispatchStore(db);
    if (!st || getenv("DCUTOP_SQL_SCAN")) {
        return NULL; /* DCUTOP_SQL_SCAN: the SQL reads, which tests compare the direct ones to */
    }
    /* roi.c installs temp views named as the main tables; `dispatch` is then the cut one */
    int cut = TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM temp.sqlite_master"
                                    " WHERE name = 'dispatch')") == 1;
    return cut ? NULL : st;
}

DcuStatus DispatchScan_usedSpans(TraceDb* db, DispatchSpan** out, int64_t* n, DcuError* err) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt* q = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT s.file_id, s.lo_id, s.hi_id FROM dispatch_span s"
                                  " WHERE s.file_id IN (SELECT file_id FROM used_file"
                                  " WHERE layer = 'kernel') AND s.hi_id >= s.lo_id"
                                  " ORDER BY s.file_id",
                                  &q, err);
    size_t cap = 0;
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        if ((size_t)*n == cap) {
            cap = cap ? cap * 2 : 16;
            *out = xrealloc(*out, cap * sizeof(**out));
        }
        (*out)[(*n)++] = (DispatchSpan){sqlite3_column_int64(q, 0),
                                        sqlite3_column_int64(q, 1) - 1,
                                        sqlite3_column_int64(q, 2) - 1};
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "dispatch spans: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(q);
    if (s != DCU_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return s;
}

/* Every file's row range (dispatch_span), in row order; 0 unless each is whole (its n rows
 * are every row of the range, so no other file's lie in it) and none overlaps the next. */
static int whole_spans(TraceDb* db, DispatchSpan** out, int64_t* n) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt* q = NULL;
    DcuError e;
    if (TraceDb_prepare(db, "SELECT file_id, lo_id, hi_id, n FROM dispatch_span ORDER BY lo_id",
                        &q, &e) != DCU_OK) {
        return 0;
    }
    int ok = 1, rc = SQLITE_DONE;
    int64_t cap = 0;
    while (ok && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        DispatchSpan sp = {sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1) - 1,
                           sqlite3_column_int64(q, 2) - 1};
        ok = sqlite3_column_int64(q, 3) == sp.hi - sp.lo + 1 &&
             (*n == 0 || sp.lo > (*out)[*n - 1].hi);
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = xrealloc(*out, sizeof(DispatchSpan) * (size_t)cap);
        }
        (*out)[(*n)++] = sp;
    }
    sqlite3_finalize(q);
    return ok && rc == SQLITE_DONE;
}

/* The first of rows[i .. n) above x (rows ascend). */
static int64_t rows_upto(const int64_t* rows, int64_t i, int64_t n, int64_t x) {
    while (i < n) {
        int64_t mid = i + (n - i) / 2;
        if (rows[mid] <= x) {
            i = mid + 1;
        } else {
            n = mid;
        }
    }
    return i;
}

int DispatchScan_fileRuns(TraceDb* db, const int64_t* rows, int64_t n, DispatchRun** out,
                          int64_t* nruns) {
    DispatchSpan* sp;
    int64_t ns, i = 0;
    int ok = whole_spans(db, &sp, &ns);
    *out = NULL;
    *nruns = 0;
    for (int64_t k = 0; ok && k < ns && i < n; k++) {
        ok = rows[i] >= sp[k].lo || rows[i] > sp[k].hi; /* not in the gap before this range */
        int64_t e = ok ? rows_upto(rows, i, n, sp[k].hi) : i;
        if (e > i) {
            *out = xrealloc(*out, sizeof(DispatchRun) * (size_t)(*nruns + 1));
            (*out)[(*nruns)++] = (DispatchRun){sp[k].file_id, i, e};
        }
        i = e;
    }
    free(sp);
    if (!ok || i < n) { /* a row in no range */
        free(*out);
        *out = NULL;
        *nruns = 0;
        return 0;
    }
    return 1;
}

int DispatchScan_fileSpan(TraceDb* db, int64_t file_id, DispatchSpan* out) {
    sqlite3_stmt* q = NULL;
    DcuError e = {0};
    int found = 0;
    if (TraceDb_prepareCached(db, "SELECT lo_id, hi_id FROM dispatch_span WHERE file_id = ?1",
                              &q, &e) == DCU_OK) {
        sqlite3_bind_int64(q, 1, file_id);
        if (sqlite3_step(q) == SQLITE_ROW) {
            *out = (DispatchSpan){file_id, sqlite3_column_int64(q, 0) - 1,
                                  sqlite3_column_int64(q, 1) - 1};
            found = out->hi >= out->lo;
        }
        TraceDb_release(db, q);
    }
    return found;
}

/* The span's rows that the store holds: [*lo, *hi], 0-based (empty when *hi < *lo). */
static void clip(DispatchStore* st, const DispatchSpan* sp, int64_t* lo, int64_t* hi) {
    int64_t total = DispatchStore_count(st);
    *lo = sp->lo < 0 ? 0 : sp->lo;
    *hi = sp->hi < total ? sp->hi : total - 1;
}

DcuStatus DispatchScan_span(DispatchStore* st, const DispatchSpan* sp, DispatchBlockFn fn,
                            void* ctx, DcuError* err) {
    int64_t lo, hi;
    clip(st, sp, &lo, &hi);
    for (int64_t ci = lo / DISPATCH_STORE_CHUNK; lo <= hi; ci++) {
        int64_t rows, row0 = ci * DISPATCH_STORE_CHUNK;
        const int64_t* d = DispatchStore_chunk(st, ci, &rows);
        if (!d) {
            return Error_set(err, DCU_ERR_IO, "dispatch store: cannot read back its temporary file");
        }
        int64_t to = hi - row0 + 1 < rows ? hi - row0 + 1 : rows;
        if (!fn(ctx, d, lo - row0, to, row0)) {
            return DCU_OK;
        }
        lo = row0 + to;
    }
    return DCU_OK;
}

int64_t DispatchScan_chunks(DispatchStore* st, const DispatchSpan* sp) {
    int64_t lo, hi;
    clip(st, sp, &lo, &hi);
    return hi < lo ? 0 : hi / DISPATCH_STORE_CHUNK - lo / DISPATCH_STORE_CHUNK + 1;
}

int64_t DispatchScan_rowsBefore(const DispatchSpan* sp, int64_t c0) {
    int64_t lo = sp->lo < 0 ? 0 : sp->lo;
    int64_t first = (lo / DISPATCH_STORE_CHUNK + c0) * DISPATCH_STORE_CHUNK;
    return first > lo ? first - lo : 0;
}

DcuStatus DispatchScan_spanChunks(DispatchStore* st, const DispatchSpan* sp, int64_t c0,
                                  int64_t c1, DispatchBlockFn fn, void* ctx, DcuError* err) {
    int64_t lo, hi;
    clip(st, sp, &lo, &hi);
    int64_t first = lo / DISPATCH_STORE_CHUNK;
    int64_t* buf = xmalloc(DISPATCH_STORE_CHUNK_BYTES);
    uint8_t* rbuf = NULL; /* only when a chunk was spilled */
    DcuStatus s = DCU_OK;
    for (int64_t ci = first + c0; ci < first + c1 && s == DCU_OK; ci++) {
        int64_t row0 = ci * DISPATCH_STORE_CHUNK;
        if (!rbuf && DispatchStore_spilled(st) > 0) {
            rbuf = xmalloc(DISPATCH_STORE_CHUNK_BYTES);
        }
        int64_t rows = DispatchStore_chunkCopy(st, ci, buf, rbuf);
        if (rows < 0) {
            s = Error_set(err, DCU_ERR_IO, "dispatch store: cannot read back its temporary file");
            break;
        }
        int64_t from = lo > row0 ? lo - row0 : 0;
        int64_t to = hi - row0 + 1 < rows ? hi - row0 + 1 : rows;
        if (!fn(ctx, buf, from, to, row0)) {
            break;
        }
    }
    free(rbuf);
    free(buf);
    return s;
}
