/* load_event.c - see load_event.h. */
#include "load_event.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/dispatch_store.h"
#include "dcutop/intern.h"
#include "dcutop/names.h"
#include "store/dispatch_agg.h"
#include "store/row_batch.h"
#include "dcutop/xalloc.h"

void LoadDispatch_init(LoadDispatch* d) {
    int64_t* p = (int64_t*)d;
    for (size_t i = 0; i < sizeof(*d) / sizeof(int64_t); i++) {
        p[i] = LOAD_NULL;
    }
}

static void bind_i(sqlite3_stmt* st, int idx, int64_t v) {
    if (v == LOAD_NULL) {
        sqlite3_bind_null(st, idx);
    } else {
        sqlite3_bind_int64(st, idx, v);
    }
}

/* 1 when an insert's result rc is SQLITE_DONE; else says why on f and returns 0 */
static int stored(LoaderCore* core, LoadFile* f, int rc) {
    if (rc != SQLITE_DONE) {
        int base = rc & 0xff;
        if (base == SQLITE_FULL || base == SQLITE_IOERR || base == SQLITE_NOMEM) {
            /* not the row's fault: load_one stops the load and says why, once; every row
             * after it fails alike and would repeat it */
            Load_storageFailed(core, rc, sqlite3_errmsg(TraceDb_handle(core->db)));
            return 0;
        }
        Load_message(core, f, "SQLite: %s", sqlite3_errmsg(TraceDb_handle(core->db)));
        return 0;
    }
    return 1;
}

static int step(LoaderCore* core, LoadFile* f, sqlite3_stmt* st) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return stored(core, f, rc);
}

/* Rejects the row: "where: reason" for formats without lines, "reason" at f->line for CSV. */
__attribute__((format(printf, 4, 5))) static void reject(LoaderCore* core, LoadFile* f,
                                                         const char* where, const char* fmt,
                                                         ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (where) {
        Load_reject(core, f, f->line, "%s: %s", where, msg);
    } else {
        Load_reject(core, f, f->line, "%s", msg);
    }
}

static void count(LoadFile* f, int layer, int rank) {
    if (f->layer_rows[layer] == 0 || rank > f->layer_rank[layer]) {
        f->layer_rank[layer] = rank;
    }
    f->layer_rows[layer]++;
    f->layer_grain[layer] = 2;
    f->rows++;
}

/* start/end/dur: both timestamps give the duration; a lone duration is kept as is.
 * Returns 0 (row rejected) for negative values, an end before the start or a duration
 * over LOAD_MAX_AMOUNT. */
/* The time rule, once: TIMES_FIT, or which test a row failed (check_times words it). */
typedef enum { TIMES_FIT, TIMES_NEGATIVE, TIMES_BACKWARDS, TIMES_NONE, TIMES_RANGE } TimesVerdict;

static TimesVerdict times_verdict(int64_t* start, int64_t* end, int64_t* dur) {
    if (*start != LOAD_NULL && *end != LOAD_NULL) {
        if (*start < 0 || *end < 0) {
            return TIMES_NEGATIVE;
        }
        if (*end < *start) {
            return TIMES_BACKWARDS;
        }
        *dur = *end - *start;
    } else if (*dur != LOAD_NULL && *dur >= 0) {
        *start = *end = LOAD_NULL;
    } else {
        return TIMES_NONE;
    }
    return *dur <= LOAD_MAX_AMOUNT ? TIMES_FIT : TIMES_RANGE;
}

int LoadEvent_timesFit(int64_t* start, int64_t* end, int64_t* dur) {
    return times_verdict(start, end, dur) == TIMES_FIT;
}

static int check_times(LoaderCore* core, LoadFile* f, const char* where, int64_t* start,
                       int64_t* end, int64_t* dur) {
    switch (times_verdict(start, end, dur)) {
    case TIMES_FIT:
        return 1;
    case TIMES_NEGATIVE:
        reject(core, f, where, "negative timestamp");
        break;
    case TIMES_BACKWARDS:
        reject(core, f, where, "end timestamp %lld before start %lld", (long long)*end,
               (long long)*start);
        break;
    case TIMES_NONE:
        reject(core, f, where, "%s", *dur != LOAD_NULL ? "negative duration" : "no timestamps");
        break;
    case TIMES_RANGE:
        reject(core, f, where, "duration %lld ns is out of range (over 2^53 ns, 104 days)",
               (long long)*dur);
        break;
    }
    return 0;
}

static int64_t store_dispatch(LoaderCore* core, LoadFile* f, int64_t kid,
                              const LoadDispatch* d, int rank);

int64_t LoadEvent_dispatch(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                           size_t name_len, LoadDispatch* d, int rank) {
    return LoadEvent_dispatchHashed(core, f, where, name, name_len, Intern_hash(name, name_len),
                                    d, rank);
}

int64_t LoadEvent_dispatchHashed(LoaderCore* core, LoadFile* f, const char* where,
                                 const char* name, size_t name_len, uint64_t hash,
                                 LoadDispatch* d, int rank) {
    if (name_len == 0) {
        reject(core, f, where, "empty kernel name");
        return 0;
    }
    if (!check_times(core, f, where, &d->start, &d->end, &d->dur)) {
        return 0;
    }
    size_t keep = Load_capName(core, f, f->line, where, name, name_len);
    if (keep < name_len) {
        name_len = keep;
        hash = Intern_hash(name, name_len);
    }
    int64_t kid = Load_kernelIdHashed(core, name, name_len, hash);
    if (!kid) {
        Load_message(core, f, "SQLite: %s", sqlite3_errmsg(TraceDb_handle(core->db)));
        return 0;
    }
    return store_dispatch(core, f, kid, d, rank);
}

int64_t LoadEvent_dispatchKernel(LoaderCore* core, LoadFile* f, const char* where, int64_t kid,
                                 LoadDispatch* d, int rank) {
    if (!check_times(core, f, where, &d->start, &d->end, &d->dur)) {
        return 0;
    }
    return store_dispatch(core, f, kid, d, rank);
}

/* A checked dispatch of kernel kid into the store and the file's per-kernel sums. */
int64_t LoadEvent_dispatchFit(LoaderCore* core, LoadFile* f, int64_t kid,
                              const LoadDispatch* d, int rank) {
    return store_dispatch(core, f, kid, d, rank);
}

static int64_t store_dispatch(LoaderCore* core, LoadFile* f, int64_t kid,
                              const LoadDispatch* d, int rank) {
    /* the columnar store (dispatch_store.h): no SQL INSERT per dispatch */
    const int64_t v[DS_NCOLS] = {f->id,   kid,        d->seq,   d->gpu,     d->queue,
                                 d->stream, d->pid,   d->tid,   d->corr,    d->start,
                                 d->end,  d->dur,     d->grid,  d->workgroup, d->lds,
                                 d->scratch, d->vgpr, d->sgpr};
    DcuError e; /* not `= {0}`: zeroing its 516 bytes for every dispatch was a fifth of
                 * the loading thread's time; append sets it whole when it fails */
    e.code = DCU_OK;
    e.msg[0] = '\0';
    int64_t row = DispatchStore_append(TraceDb_dispatchStore(core->db), v, &e);
    if (!row) { /* not the row's fault: load_one stops the load and says why, as stored() */
        Load_storageFailed(core,
                           DispatchStore_outOfRoom(TraceDb_dispatchStore(core->db)) ? SQLITE_FULL
                                                                                   : SQLITE_IOERR,
                           e.msg);
        return 0;
    }
    DispatchAgg_add(core->agg, row, kid, d->dur, d->start);
    count(f, LAYER_KERNEL, rank);
    return row;
}

static void batch_i(RowBatch* b, int64_t v) {
    v == LOAD_NULL ? RowBatch_null(b) : RowBatch_int(b, v);
}

/* The domains the readers name, as static text a batch may keep (row_batch.h); NULL for
 * another, which the batch gets a copy of. */
static const char* static_domain(const char* d) {
    static const char* const known[] = {"HIP", "HSA", "CUDA", "CUDA_DRIVER", "MARKER"};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(d, known[i]) == 0) {
            return known[i];
        }
    }
    return NULL;
}

int LoadEvent_apiCall(LoaderCore* core, LoadFile* f, const char* where, const char* domain,
                      const char* name, size_t name_len, int64_t pid, int64_t tid,
                      int64_t corr, int64_t start, int64_t end, int rank) {
    int64_t dur = LOAD_NULL;
    if (name_len == 0) {
        reject(core, f, where, "empty API name");
        return 0;
    }
    if (!check_times(core, f, where, &start, &end, &dur)) {
        return 0;
    }
    RowBatch* b = core->calls;
    RowBatch_int(b, f->id);
    const char* known = domain ? static_domain(domain) : NULL;
    if (known) {
        RowBatch_text(b, known);
    } else if (domain) {
        RowBatch_textOwned(b, xstrdup(domain));
    } else {
        RowBatch_null(b);
    }
    name_len = Load_capName(core, f, f->line, where, name, name_len);
    RowBatch_textOwned(b, Names_normalize(name, name_len));
    batch_i(b, pid);
    batch_i(b, tid);
    batch_i(b, corr);
    batch_i(b, start);
    batch_i(b, end);
    RowBatch_int(b, dur);
    /* no domain: NOT NULL refuses the row; stored alone (after the rows before it), so
     * that only it is lost, with SQLite's message, as when each row had its statement */
    if (!stored(core, f, domain ? RowBatch_endRow(b) : RowBatch_flush(b))) {
        return 0;
    }
    count(f, LAYER_API, rank);
    return 1;
}

int LoadEvent_copy(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                   size_t name_len, int64_t src, int64_t dst, int64_t stream, int64_t corr,
                   int64_t bytes, int64_t start, int64_t end, int rank) {
    return LoadEvent_copyOn(core, f, where, name, name_len, src, dst, stream, corr, bytes, start,
                            end, LOAD_NULL, rank);
}

int LoadEvent_copyOn(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                     size_t name_len, int64_t src, int64_t dst, int64_t stream, int64_t corr,
                     int64_t bytes, int64_t start, int64_t end, int64_t gpu, int rank) {
    int64_t dur = LOAD_NULL;
    if (name_len == 0) {
        reject(core, f, where, "empty copy kind");
        return 0;
    }
    if (bytes != LOAD_NULL && bytes < 0) {
        reject(core, f, where, "negative byte count");
        return 0;
    }
    if (bytes != LOAD_NULL && bytes > LOAD_MAX_AMOUNT) {
        reject(core, f, where, "byte count %lld is out of range (over 2^53)", (long long)bytes);
        return 0;
    }
    if (!check_times(core, f, where, &start, &end, &dur)) {
        return 0;
    }
    sqlite3_stmt* st = core->st[ST_COPY];
    sqlite3_bind_int64(st, 1, f->id);
    name_len = Load_capName(core, f, f->line, where, name, name_len);
    sqlite3_bind_text(st, 2, Names_normalize(name, name_len), -1, free);
    bind_i(st, 3, src);
    bind_i(st, 4, dst);
    bind_i(st, 5, stream);
    bind_i(st, 6, corr);
    bind_i(st, 7, bytes);
    bind_i(st, 8, start);
    bind_i(st, 9, end);
    sqlite3_bind_int64(st, 10, dur);
    bind_i(st, 11, gpu);
    if (!step(core, f, st)) {
        return 0;
    }
    count(f, LAYER_COPY, rank);
    return 1;
}

int LoadEvent_range(LoaderCore* core, LoadFile* f, const char* where, const char* domain,
                    const char* event, const char* name, size_t name_len, int64_t pid,
                    int64_t tid, int64_t corr, int64_t start, int64_t end, int rank) {
    int64_t dur = LOAD_NULL;
    if (start != LOAD_NULL && end == LOAD_NULL) {
        end = start; /* a mark */
    }
    if (!check_times(core, f, where, &start, &end, &dur)) {
        return 0;
    }
    sqlite3_stmt* st = core->st[ST_RANGE];
    sqlite3_bind_int64(st, 1, f->id);
    sqlite3_bind_text(st, 2, domain, -1, SQLITE_STATIC);
    name_len = Load_capName(core, f, f->line, where, name, name_len);
    sqlite3_bind_text(st, 3, Names_normalize(name, name_len), -1, free);
    bind_i(st, 4, pid);
    bind_i(st, 5, tid);
    bind_i(st, 6, corr);
    sqlite3_bind_text(st, 7, event, -1, SQLITE_STATIC);
    bind_i(st, 8, start);
    bind_i(st, 9, end);
    if (!step(core, f, st)) {
        return 0;
    }
    count(f, LAYER_RANGE, rank);
    return 1;
}

int LoadEvent_counter(LoaderCore* core, LoadFile* f, int64_t dispatch_id, const char* name,
                      double value) {
    sqlite3_stmt* st = core->st[ST_COUNTER];
    sqlite3_bind_int64(st, 1, dispatch_id);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 3, value);
    f->pmc = 1;
    return step(core, f, st);
}

int LoadEvent_extLink(LoaderCore* core, LoadFile* f, int64_t corr, int64_t ext) {
    RowBatch_int(core->links, f->id);
    RowBatch_int(core->links, corr);
    RowBatch_int(core->links, ext);
    return stored(core, f, RowBatch_endRow(core->links));
}

int LoadEvent_flush(LoaderCore* core, LoadFile* f) {
    int ok = stored(core, f, RowBatch_flush(core->calls));
    return stored(core, f, RowBatch_flush(core->links)) && ok;
}

int LoadEvent_cpuOp(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                    size_t name_len, int64_t pid, int64_t tid, int64_t ext, int64_t start,
                    int64_t end, const char* call_stack, size_t stack_len) {
    return LoadEvent_cpuOpShaped(core, f, where, name, name_len, pid, tid, ext, start, end,
                                 call_stack, stack_len, NULL);
}

int LoadEvent_cpuOpShaped(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                          size_t name_len, int64_t pid, int64_t tid, int64_t ext, int64_t start,
                          int64_t end, const char* call_stack, size_t stack_len,
                          const LoadShapes* shapes) {
    int64_t dur = LOAD_NULL;
    if (start == LOAD_NULL || end == LOAD_NULL) {
        reject(core, f, where, "cpu_op without ts/dur");
        return 0;
    }
    if (!check_times(core, f, where, &start, &end, &dur)) {
        return 0;
    }
    sqlite3_stmt* st = core->st[ST_CPUOP];
    sqlite3_bind_int64(st, 1, f->id);
    name_len = Load_capName(core, f, f->line, where, name, name_len);
    sqlite3_bind_text(st, 2, Names_sanitize(name, name_len), -1, free);
    bind_i(st, 3, pid);
    bind_i(st, 4, tid);
    bind_i(st, 5, ext);
    bind_i(st, 6, start);
    bind_i(st, 7, end);
    if (call_stack && stack_len > 0) {
        sqlite3_bind_text(st, 8, Names_sanitize(call_stack, stack_len), -1, free);
    } else {
        sqlite3_bind_null(st, 8);
    }
    for (int i = 0; i < LOAD_SHAPE_FIELDS; i++) {
        /* JSON text as the loader wrote it back: control characters are escaped there */
        if (shapes && shapes->json[i]) {
            sqlite3_bind_text(st, 9 + i, shapes->json[i], -1, SQLITE_TRANSIENT);
        } else {
            sqlite3_bind_null(st, 9 + i);
        }
    }
    bind_i(st, 13, shapes ? shapes->seq : LOAD_NULL);
    bind_i(st, 14, shapes ? shapes->fwd_tid : LOAD_NULL);
    if (!step(core, f, st)) {
        return 0;
    }
    f->rows++;
    return 1;
}

int LoadEvent_pyFrame(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                      size_t name_len, int64_t pid, int64_t tid, int64_t py_id,
                      int64_t parent_py_id, int64_t start, int64_t end) {
    int64_t dur = LOAD_NULL;
    if (start == LOAD_NULL || end == LOAD_NULL) {
        reject(core, f, where, "python_function without ts/dur");
        return 0;
    }
    if (!check_times(core, f, where, &start, &end, &dur)) {
        return 0;
    }
    sqlite3_stmt* st = core->st[ST_PYFRAME];
    sqlite3_bind_int64(st, 1, f->id);
    bind_i(st, 2, pid);
    bind_i(st, 3, tid);
    bind_i(st, 4, py_id);
    bind_i(st, 5, parent_py_id);
    name_len = Load_capName(core, f, f->line, where, name, name_len);
    sqlite3_bind_text(st, 6, Names_sanitize(name, name_len), -1, free);
    bind_i(st, 7, start);
    bind_i(st, 8, end);
    if (!step(core, f, st)) {
        return 0;
    }
    f->rows++;
    return 1;
}

void LoadEvent_linkFrames(LoaderCore* core, LoadFile* f) {
    sqlite3* db = TraceDb_handle(core->db);
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(db,
                           "UPDATE py_frame SET parent_id = (SELECT p.id FROM py_frame p"
                           " WHERE p.file_id = ?1 AND p.py_id = py_frame.parent_py_id"
                           " ORDER BY p.id LIMIT 1)"
                           " WHERE file_id = ?1 AND parent_py_id IS NOT NULL",
                           -1, &st, NULL) != SQLITE_OK) {
        Load_message(core, f, "SQLite: %s", sqlite3_errmsg(db));
        return;
    }
    sqlite3_bind_int64(st, 1, f->id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        Load_message(core, f, "SQLite: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
}

int LoadEvent_parseScaled(const char* s, size_t n, int scale, int64_t* out) {
    while (n > 0 && (*s == ' ' || *s == '"')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '"')) {
        n--;
    }
    if (n == 0 || n > 64) {
        return 0;
    }
    size_t i = 0;
    int neg = 0;
    if (s[i] == '-' || s[i] == '+') {
        neg = s[i] == '-';
        i++;
    }
    /* exact path: digits [. digits], no exponent */
    int64_t v = 0;
    int digits = 0, exact = 1, round_up = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (v > (INT64_MAX - 9) / 10) {
            return 0;
        }
        v = v * 10 + (s[i] - '0');
    }
    int kept = 0;
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
            if (kept < scale) {
                if (v > (INT64_MAX - 9) / 10) {
                    return 0;
                }
                v = v * 10 + (s[i] - '0');
                kept++;
            } else if (kept == scale) {
                round_up = s[i] >= '5';
                kept++;
            }
        }
    }
    if (i < n) {
        exact = 0;
    }
    if (exact && digits > 0) {
        for (int k = kept < scale ? kept : scale; k < scale; k++) {
            if (v > INT64_MAX / 10) {
                return 0;
            }
            v *= 10;
        }
        v += round_up;
        *out = neg ? -v : v;
        return 1;
    }
    char buf[72];
    memcpy(buf, s, n);
    buf[n] = '\0';
    char* end;
    errno = 0;
    double d = strtod(buf, &end);
    /* decimal only: strtod would read "0x10" as 16 and "infinity" as a number */
    if (*end != '\0' || !isfinite(d) || errno == ERANGE || buf[strspn(buf, "0123456789.eE+-")]) {
        return 0;
    }
    d *= pow(10.0, scale);
    if (!(fabs(d) < 9.2e18)) {
        return 0;
    }
    *out = llround(d);
    return 1;
}
