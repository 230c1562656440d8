/* trace_lane.c - see trace_lane.h. */
#include "dcutop/trace_lane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/idle.h"
#include "dcutop/launch_calls.h"
#include "dcutop/xalloc.h"

/* The timed ops of used files with their lane key and correlation id: dispatches and the
 * copies a device ran (as trace_query.c's lanes). */
#define LANE_OPS_SQL                                                                           \
    "SELECT d.file_id AS file, coalesce(d.gpu, -1) AS gpu,"                                    \
    "  coalesce(d.stream, d.queue, -1) AS lane, d.corr_id AS corr, d.end_ns AS end_ns,"        \
    "  d.start_ns AS start_ns"                                                                 \
    " FROM dispatch d WHERE d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"                   \
    "  AND d.corr_id IS NOT NULL"                                                              \
    "  AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"                \
    " UNION ALL SELECT c.file_id, coalesce(c.gpu, -1), coalesce(c.stream, c.queue, -1),"       \
    "  c.corr_id, c.end_ns, c.start_ns FROM copy c WHERE c.start_ns IS NOT NULL AND c.end_ns IS NOT NULL"  \
    "  AND c.corr_id IS NOT NULL"                                                              \
    "  AND c.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"

/* Launch calls per run and correlation id: the earliest start. */
#define LAUNCH_SQL                                                                             \
    "lc AS (SELECT f.run_id AS run, a.corr_id AS corr, min(a.start_ns) AS ls,"                 \
    "  min(a.pid) AS pid, min(a.tid) AS tid"                                                   \
    "  FROM api_call a JOIN source_file f ON f.id = a.file_id"                                 \
    "  WHERE a.corr_id IS NOT NULL AND a.start_ns IS NOT NULL GROUP BY f.run_id, a.corr_id)"

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

void QueueDepth_fromOps(const int64_t* ls, const int64_t* ends, int64_t n, QueueDepth* out) {
    memset(out, 0, sizeof(*out));
    if (n <= 0) {
        return;
    }
    /* events as 2t (+0 an end, +1 a launch): ends come first at the same instant */
    int64_t* ev = xmalloc(sizeof(int64_t) * (size_t)(2 * n));
    int64_t lo = ls[0], hi = ends[0];
    for (int64_t i = 0; i < n; i++) {
        int64_t e = ends[i] < ls[i] ? ls[i] : ends[i];
        ev[2 * i] = ls[i] * 2 + 1;
        ev[2 * i + 1] = e * 2;
        lo = ls[i] < lo ? ls[i] : lo;
        hi = e > hi ? e : hi;
    }
    qsort(ev, (size_t)(2 * n), sizeof(int64_t), cmp_i64);
    out->steps = xmalloc(sizeof(QueueStep) * (size_t)(2 * n));
    int64_t depth = 0;
    for (int64_t i = 0; i < 2 * n; i++) {
        int64_t t = ev[i] >> 1; /* floor: times may be negative */
        depth += (ev[i] & 1) ? 1 : -1;
        if (out->n > 0 && out->steps[out->n - 1].t == t) {
            out->steps[out->n - 1].depth = depth;
        } else {
            out->steps[out->n++] = (QueueStep){t, depth};
        }
        out->max = depth > out->max ? depth : out->max;
    }
    for (int64_t i = 0; i + 1 < out->n; i++) {
        if (out->steps[i].depth == 0) {
            out->empty_ns += out->steps[i + 1].t - out->steps[i].t;
        }
    }
    out->window_ns = hi - lo;
    out->launched = n;
    free(ev);
}

void QueueDepth_done(QueueDepth* q) {
    free(q->steps);
    memset(q, 0, sizeof(*q));
}

int64_t QueueDepth_maxIn(const QueueDepth* q, int64_t a, int64_t b) {
    /* the last step at or before a, then every step before b */
    int64_t lo = 0, hi = q->n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (q->steps[m].t <= a) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    int64_t best = lo > 0 ? q->steps[lo - 1].depth : 0;
    for (int64_t i = lo; i < q->n && q->steps[i].t < b; i++) {
        best = q->steps[i].depth > best ? q->steps[i].depth : best;
    }
    return best;
}

/* Reads (lane key, launch start, end) rows; calls fn per lane with its ops. */
typedef void (*LaneFn)(void* ctx, const int64_t* ls, const int64_t* ends, int64_t n);

static DcuStatus read_lanes(TraceDb* db, const TraceLane* only, LaneFn fn, void* ctx,
                            DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "WITH " LAUNCH_SQL " SELECT o.file, o.gpu, o.lane, lc.ls, o.end_ns FROM (" LANE_OPS_SQL
        ") o JOIN source_file f ON f.id = o.file JOIN lc ON lc.run = f.run_id AND lc.corr = o.corr"
        " WHERE ?1 IS NULL OR (o.file = ?1 AND o.gpu = ?2 AND o.lane = ?3)"
        " ORDER BY o.file, o.gpu, o.lane",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    if (only) {
        sqlite3_bind_int64(st, 1, only->file);
        sqlite3_bind_int64(st, 2, only->gpu);
        sqlite3_bind_int64(st, 3, only->stream);
    }
    int64_t *ls = NULL, *ends = NULL, n = 0, cap = 0, key[3] = {0, 0, 0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t k[3] = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                        sqlite3_column_int64(st, 2)};
        if (n > 0 && memcmp(k, key, sizeof(k)) != 0) {
            fn(ctx, ls, ends, n);
            n = 0;
        }
        memcpy(key, k, sizeof(k));
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            ls = xrealloc(ls, sizeof(int64_t) * (size_t)cap);
            ends = xrealloc(ends, sizeof(int64_t) * (size_t)cap);
        }
        ls[n] = sqlite3_column_int64(st, 3);
        ends[n] = sqlite3_column_int64(st, 4);
        n++;
    }
    if (n > 0 && rc == SQLITE_DONE) {
        fn(ctx, ls, ends, n);
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "queue depth: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    free(ls);
    free(ends);
    return s;
}

static void keep_lane(void* ctx, const int64_t* ls, const int64_t* ends, int64_t n) {
    QueueDepth* q = ctx;
    QueueDepth_done(q);
    QueueDepth_fromOps(ls, ends, n, q);
}

DcuStatus QueueDepth_lane(TraceDb* db, const TraceLane* lane, QueueDepth* out, DcuError* err) {
    memset(out, 0, sizeof(*out));
    return read_lanes(db, lane, keep_lane, out, err);
}

typedef struct {
    int64_t empty, window;
    int lanes;
} EmptySum;

static void sum_lane(void* ctx, const int64_t* ls, const int64_t* ends, int64_t n) {
    EmptySum* e = ctx;
    QueueDepth q;
    QueueDepth_fromOps(ls, ends, n, &q);
    e->empty += q.empty_ns;
    e->window += q.window_ns;
    e->lanes++;
    QueueDepth_done(&q);
}

int QueueDepth_emptyPct(TraceDb* db, double* pct, int* lanes) {
    EmptySum e = {0, 0, 0};
    DcuError err;
    Error_clear(&err);
    *pct = 0;
    if (lanes) {
        *lanes = 0;
    }
    if (read_lanes(db, NULL, sum_lane, &e, &err) != DCU_OK || e.lanes == 0 || e.window <= 0) {
        return 0;
    }
    *pct = 100.0 * (double)e.empty / (double)e.window;
    if (lanes) {
        *lanes = e.lanes;
    }
    return 1;
}

/* The GPU ops of the used files with their lane, correlation id and start (HTA's queue length
 * steps each down at its start; its launch call, looked up in memory, steps up). */
#define HTA_OPS_SQL                                                                            \
    "SELECT o.file, f.run_id, o.gpu, o.lane, o.corr, o.start_ns FROM (" LANE_ALL_OPS_SQL       \
    ") o JOIN source_file f ON f.id = o.file WHERE f.run_id IS NOT NULL"
#define LANE_ALL_OPS_SQL                                                                       \
    "SELECT d.file_id AS file, coalesce(d.gpu, -1) AS gpu,"                                    \
    "  coalesce(d.stream, d.queue, -1) AS lane, d.corr_id AS corr, d.start_ns AS start_ns"     \
    " FROM dispatch d WHERE d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"                   \
    "  AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"                \
    " UNION ALL SELECT c.file_id, coalesce(c.gpu, -1), coalesce(c.stream, c.queue, -1),"       \
    "  c.corr_id, c.start_ns FROM copy c WHERE c.start_ns IS NOT NULL AND c.end_ns IS NOT NULL" \
    "  AND c.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"

typedef struct {
    int64_t file, gpu, lane, us;
    int step; /* +1 a launch call, -1 a GPU op */
} QueueEvent;

static int cmp_event(const void* a, const void* b) {
    const QueueEvent *x = a, *y = b;
    if (x->file != y->file) {
        return x->file < y->file ? -1 : 1;
    }
    if (x->gpu != y->gpu) {
        return x->gpu < y->gpu ? -1 : 1;
    }
    if (x->lane != y->lane) {
        return x->lane < y->lane ? -1 : 1;
    }
    if (x->us != y->us) {
        return x->us < y->us ? -1 : 1;
    }
    return y->step - x->step; /* at one instant the calls first, as HTA concatenates them */
}

/* HTA's parser rounds a start up to a whole us. */
static int64_t us_up(int64_t ns) {
    return ns >= 0 ? (ns + 999) / 1000 : -((-ns) / 1000);
}

static const char* const hta_calls[] = {"cudaLaunchKernel", "cudaMemcpyAsync",
                                        "cudaMemsetAsync",  "hipLaunchKernel",
                                        "hipMemcpyAsync",   "hipMemsetAsync"};

/* 1 per call name index of lc that is in HTA's set (caller frees). */
static unsigned char* hta_set(const LaunchCalls* lc) {
    uint32_t n = LaunchCalls_names(lc);
    unsigned char* in = xcalloc((size_t)n + 1, 1);
    for (uint32_t i = 0; i < n; i++) {
        for (size_t j = 0; j < sizeof(hta_calls) / sizeof(hta_calls[0]); j++) {
            in[i] |= strcmp(LaunchCalls_name(lc, i), hta_calls[j]) == 0;
        }
    }
    return in;
}

int QueueLength_hta(TraceDb* db, HtaQueue* out) {
    memset(out, 0, sizeof(*out));
    const LaunchCalls* lc = NULL;
    sqlite3_stmt* st = NULL;
    DcuError err;
    Error_clear(&err);
    if (TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM api_call"
                              " WHERE corr_id IS NOT NULL)") != 1 ||
        LaunchCalls_get(db, &lc, &err) != DCU_OK ||
        TraceDb_prepare(db, HTA_OPS_SQL, &st, &err) != DCU_OK) {
        return 0;
    }
    unsigned char* in = hta_set(lc);
    QueueEvent* ev = NULL;
    int64_t n = 0, cap = 0, calls = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n + 2 > cap) {
            cap = cap ? cap * 2 : 4096;
            ev = xrealloc(ev, (size_t)cap * sizeof(*ev));
        }
        QueueEvent e = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2),
                        sqlite3_column_int64(st, 3), us_up(sqlite3_column_int64(st, 5)), -1};
        ev[n++] = e;
        if (sqlite3_column_type(st, 4) == SQLITE_NULL) {
            continue;
        }
        const LaunchCall* a = LaunchCalls_find(lc, e.file, sqlite3_column_int64(st, 1), 1,
                                               sqlite3_column_int64(st, 4));
        if (a && a->has_start && a->has_end && in[a->name]) { /* HTA drops events without dur */
            e.us = us_up(a->start);
            e.step = 1;
            ev[n++] = e;
            calls++;
        }
    }
    sqlite3_finalize(st);
    free(in);
    if (rc == SQLITE_DONE && calls > 0) { /* no call of HTA's set: HTA has no queue either */
        qsort(ev, (size_t)n, sizeof(*ev), cmp_event);
        int64_t len = 0;
        for (int64_t i = 0; i < n; i++) {
            if (i == 0 || ev[i].file != ev[i - 1].file || ev[i].gpu != ev[i - 1].gpu ||
                ev[i].lane != ev[i - 1].lane) {
                out->lanes++;
                len = 0;
            }
            len += ev[i].step;
            out->empty += len == 0;
            out->max = len > out->max ? len : out->max;
        }
        out->events = n;
    }
    free(ev);
    if (out->events == 0) {
        memset(out, 0, sizeof(*out));
        return 0;
    }
    return 1;
}

int HostLane_thread(TraceDb* db, const TraceLane* lane, int64_t lo, int64_t hi, int64_t* pid,
                    int64_t* tid) {
    sqlite3_stmt* st = NULL;
    int found = 0;
    if (TraceDb_prepare(db,
                        "WITH " LAUNCH_SQL " SELECT lc.pid, lc.tid, count(*) AS n FROM ("
                        LANE_OPS_SQL ") o JOIN source_file f ON f.id = o.file"
                        " JOIN lc ON lc.run = f.run_id AND lc.corr = o.corr"
                        " WHERE o.file = ?1 AND o.gpu = ?2 AND o.lane = ?3"
                        "  AND o.start_ns >= ?4 AND o.start_ns < ?5"
                        " GROUP BY lc.pid, lc.tid ORDER BY n DESC, lc.pid, lc.tid LIMIT 1",
                        &st, NULL) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_int64(st, 1, lane->file);
    sqlite3_bind_int64(st, 2, lane->gpu);
    sqlite3_bind_int64(st, 3, lane->stream);
    sqlite3_bind_int64(st, 4, lo);
    sqlite3_bind_int64(st, 5, hi);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *pid = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
        *tid = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        found = 1;
    }
    sqlite3_finalize(st);
    return found;
}

static int cmp_launch(const void* a, const void* b) {
    const LaunchRef *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

DcuStatus HostLane_launches(TraceDb* db, const TraceLane* lane, LaunchRef** out, int64_t* n,
                            DcuError* err) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "WITH " LAUNCH_SQL " SELECT o.start_ns, lc.pid, lc.tid FROM ("
                                  LANE_OPS_SQL ") o JOIN source_file f ON f.id = o.file"
                                  " JOIN lc ON lc.run = f.run_id AND lc.corr = o.corr"
                                  " WHERE o.file = ?1 AND o.gpu = ?2 AND o.lane = ?3",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, lane->file);
    sqlite3_bind_int64(st, 2, lane->gpu);
    sqlite3_bind_int64(st, 3, lane->stream);
    LaunchRef* l = NULL;
    int64_t k = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (k == cap) {
            cap = cap ? cap * 2 : 1024;
            l = xrealloc(l, sizeof(LaunchRef) * (size_t)cap);
        }
        l[k].start = sqlite3_column_int64(st, 0);
        l[k].pid = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        l[k].tid = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
        k++;
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "host lane: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        free(l);
        return s;
    }
    if (k > 0) {
        qsort(l, (size_t)k, sizeof(LaunchRef), cmp_launch);
    }
    *out = l;
    *n = k;
    return DCU_OK;
}

int HostLane_threadIn(const LaunchRef* l, int64_t n, int64_t lo, int64_t hi, int64_t* pid,
                      int64_t* tid) {
    int64_t a = 0, b = n;
    while (a < b) { /* the first op from lo */
        int64_t m = a + (b - a) / 2;
        if (l[m].start < lo) {
            a = m + 1;
        } else {
            b = m;
        }
    }
    /* the most frequent thread among the ops in the window (a few hundred at most on a
     * screen; a wider window is sampled by its first 512 ops) */
    int64_t best = -1, best_n = 0;
    for (int64_t i = a; i < n && l[i].start < hi && i < a + 512; i++) {
        int64_t c = 0;
        for (int64_t j = a; j < n && l[j].start < hi && j < a + 512; j++) {
            c += l[j].pid == l[i].pid && l[j].tid == l[i].tid;
        }
        if (c > best_n) {
            best = i;
            best_n = c;
        }
        if (best_n * 2 > 512) {
            break;
        }
    }
    if (best < 0) {
        return 0;
    }
    *pid = l[best].pid;
    *tid = l[best].tid;
    return 1;
}

static int cmp_span_start(const void* a, const void* b) {
    const HostSpan *x = a, *y = b;
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    return (x->end < y->end) - (x->end > y->end); /* outer first */
}

static int cmp_span_len(const void* a, const void* b) {
    const HostSpan *x = a, *y = b;
    int64_t p = x->end - x->start, q = y->end - y->start;
    return (p < q) - (p > q);
}

/* Nesting depth by a stack of open ends (spans sorted outer first). */
static void set_depths(HostSpan* h, int n) {
    int64_t stack[64];
    int top = 0;
    for (int i = 0; i < n; i++) {
        while (top > 0 && stack[top - 1] <= h[i].start) {
            top--;
        }
        h[i].depth = top;
        if (top < 64) {
            stack[top++] = h[i].end;
        }
    }
}

/* Indexes on each thread's start times: a window reads the spans from lo - the longest
 * span of the thread on, not the whole thread. They add no data (cached values stay). */
static DcuStatus ensure_indexes(TraceDb* db, DcuError* err) {
    TraceDbState before = TraceDb_state(db);
    DcuStatus s = TraceDb_exec(
        db,
        "CREATE INDEX IF NOT EXISTS main.cpu_op_thread ON cpu_op(pid, tid, start_ns);"
        "CREATE INDEX IF NOT EXISTS main.range_thread ON range(pid, tid, start_ns);"
        "CREATE INDEX IF NOT EXISTS main.api_call_thread ON api_call(pid, tid, start_ns);",
        err);
    if (s == DCU_OK) {
        TraceDb_keepCached(db, before, TraceDb_state(db));
    }
    return s;
}

int64_t HostLane_longest(TraceDb* db, int64_t pid, int64_t tid) {
    sqlite3_stmt* st = NULL;
    int64_t v = 0;
    if (TraceDb_prepare(db,
                        "SELECT max(coalesce((SELECT max(end_ns - start_ns) FROM cpu_op"
                        "  WHERE pid IS ?1 AND tid IS ?2), 0),"
                        " coalesce((SELECT max(end_ns - start_ns) FROM range"
                        "  WHERE pid IS ?1 AND tid IS ?2), 0),"
                        " coalesce((SELECT max(end_ns - start_ns) FROM api_call"
                        "  WHERE pid IS ?1 AND tid IS ?2), 0))",
                        &st, NULL) != DCU_OK) {
        return INT64_MAX / 4;
    }
    if (pid != -1) {
        sqlite3_bind_int64(st, 1, pid);
    }
    if (tid != -1) {
        sqlite3_bind_int64(st, 2, tid);
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return v < 0 ? 0 : v;
}

DcuStatus HostLane_spans(TraceDb* db, const TraceLane* lane, int64_t pid, int64_t tid,
                         int64_t lo, int64_t hi, int max, HostSpan** out, int* n,
                         DcuError* err) {
    return HostLane_spansFrom(db, lane, pid, tid, lo, hi, INT64_MAX / 4, max, out, n, err);
}

DcuStatus HostLane_spansFrom(TraceDb* db, const TraceLane* lane, int64_t pid, int64_t tid,
                             int64_t lo, int64_t hi, int64_t longest, int max,
                             HostSpan** out, int* n, DcuError* err) {
    *out = NULL;
    *n = 0;
    /* ?6: no span that starts before it reaches lo */
    static const char sql[] =
        "WITH rf AS (SELECT id FROM source_file WHERE run_id IS"
        "  (SELECT run_id FROM source_file WHERE id = ?1))"
        " SELECT start_ns, end_ns, 0, name FROM cpu_op WHERE pid IS ?2 AND tid IS ?3"
        "  AND start_ns >= ?6 AND start_ns < ?5 AND end_ns > ?4 AND file_id IN rf"
        " UNION ALL SELECT start_ns, end_ns, 1, name FROM range WHERE pid IS ?2 AND tid IS ?3"
        "  AND start_ns >= ?6 AND start_ns < ?5 AND end_ns > ?4 AND file_id IN rf"
        " UNION ALL SELECT start_ns, end_ns, 2, name FROM api_call WHERE pid IS ?2 AND tid IS ?3"
        "  AND start_ns >= ?6 AND start_ns < ?5 AND end_ns > ?4 AND file_id IN rf";
    DcuError ignored;
    ensure_indexes(db, &ignored); /* a database that takes no index is only slower */
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 6, lo - (longest < INT64_MAX / 4 ? longest : INT64_MAX / 4));
    sqlite3_bind_int64(st, 1, lane->file);
    if (pid != -1) {
        sqlite3_bind_int64(st, 2, pid);
    }
    if (tid != -1) {
        sqlite3_bind_int64(st, 3, tid);
    }
    sqlite3_bind_int64(st, 4, lo);
    sqlite3_bind_int64(st, 5, hi);
    HostSpan* h = NULL;
    int k = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (k == cap) {
            cap = cap ? cap * 2 : 256;
            h = xrealloc(h, sizeof(HostSpan) * (size_t)cap);
        }
        HostSpan* x = &h[k++];
        x->start = sqlite3_column_int64(st, 0);
        x->end = sqlite3_column_int64(st, 1);
        x->end = x->end < x->start ? x->start : x->end;
        x->kind = sqlite3_column_int(st, 2);
        const char* nm = (const char*)sqlite3_column_text(st, 3);
        snprintf(x->name, sizeof(x->name), "%s", nm ? nm : "?");
        for (char* p = x->name; *p; p++) {
            if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                *p = '?';
            }
        }
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "host lane: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        free(h);
        return s;
    }
    if (k > 0) {
        qsort(h, (size_t)k, sizeof(HostSpan), cmp_span_start);
        set_depths(h, k);
    }
    if (max > 0 && k > max) {
        qsort(h, (size_t)k, sizeof(HostSpan), cmp_span_len);
        k = max;
        qsort(h, (size_t)k, sizeof(HostSpan), cmp_span_start);
    }
    *out = h;
    *n = k;
    return DCU_OK;
}

static int cmp_gap_end(const void* a, const void* b) {
    const TraceGap *x = a, *y = b;
    return (x->g1 > y->g1) - (x->g1 < y->g1);
}

DcuStatus TraceGap_lane(TraceDb* db, const TraceLane* lane, TraceGap** out, int64_t* n,
                        DcuError* err) {
    *out = NULL;
    *n = 0;
    ResultSet* rs = NULL;
    DcuStatus s = Idle_view(db, IDLE_GAPS, &rs, err);
    if (s == DCU_OK) {
        s = TraceGap_laneFrom(db, rs, lane, out, n, err);
    }
    ResultSet_delete(rs);
    return s;
}

DcuStatus TraceGap_laneFrom(TraceDb* db, const ResultSet* rs, const TraceLane* lane,
                            TraceGap** out, int64_t* n, DcuError* err) {
    *out = NULL;
    *n = 0;
    /* Idle's rows name the run by its label */
    char label[512] = "";
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT coalesce(r.label, f.run_id) FROM source_file f"
                                  " LEFT JOIN run r ON r.id = f.run_id WHERE f.id = ?1",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, lane->file);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(label, sizeof(label), "%s", (const char*)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    int cr = ResultSet_columnIndex(rs, "run"), cd = ResultSet_columnIndex(rs, "device"),
        c0 = ResultSet_columnIndex(rs, "abs_start_ns"), cg = ResultSet_columnIndex(rs, "gap_ns"),
        cc = ResultSet_columnIndex(rs, "cause"), ch = ResultSet_columnIndex(rs, "host_activity"),
        cn = ResultSet_columnIndex(rs, "host_ns");
    TraceGap* g = NULL;
    int64_t k = 0, cap = 0;
    for (int r = 0; r < rs->nrows; r++) {
        const RsCell* run = ResultSet_cellc(rs, r, cr);
        if (!run->s || strcmp(run->s, label) != 0 || ResultSet_cellc(rs, r, cd)->i != lane->gpu) {
            continue;
        }
        int64_t g0 = ResultSet_cellc(rs, r, c0)->i, g1 = g0 + ResultSet_cellc(rs, r, cg)->i;
        int64_t hn = ResultSet_cellc(rs, r, cn)->i;
        const char* host = ResultSet_cellc(rs, r, ch)->s;
        if (k > 0 && g[k - 1].g0 == g0) {
            continue; /* the same gap, another host activity: its first row is the main one */
        }
        if (k == cap) {
            cap = cap ? cap * 2 : 256;
            g = xrealloc(g, sizeof(TraceGap) * (size_t)cap);
        }
        TraceGap* x = &g[k++];
        x->g0 = g0;
        x->g1 = g1;
        const char* cause = ResultSet_cellc(rs, r, cc)->s;
        snprintf(x->cause, sizeof(x->cause), "%s", cause ? cause : "?");
        snprintf(x->host, sizeof(x->host), "%s", host ? host : "?");
        x->host_ns = hn;
    }
    if (k > 0) {
        qsort(g, (size_t)k, sizeof(TraceGap), cmp_gap_end);
    }
    *out = g;
    *n = k;
    return DCU_OK;
}

const TraceGap* TraceGap_endingAt(const TraceGap* g, int64_t n, int64_t t) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (g[m].g1 < t) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    return lo < n && g[lo].g1 == t ? &g[lo] : NULL;
}

int64_t TraceGap_idleIn(const TraceGap* g, int64_t n, int64_t a, int64_t b) {
    int64_t lo = 0, hi = n, idle = 0;
    while (lo < hi) { /* the first gap ending after a (gaps are disjoint: by g0 as well) */
        int64_t m = lo + (hi - lo) / 2;
        if (g[m].g1 <= a) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    for (int64_t i = lo; i < n && g[i].g0 < b; i++) {
        int64_t x = g[i].g0 > a ? g[i].g0 : a, y = g[i].g1 < b ? g[i].g1 : b;
        idle += y > x ? y - x : 0;
    }
    return idle;
}

/* The columns of a trace page and the two more (a ResultSet borrows its column table: one
 * static table, the same for every page, as TraceQuery's is static). */
static const RsColumn* annotated_columns(const ResultSet* rs) {
    static RsColumn cols[32];
    if (rs->ncols + 2 > (int)(sizeof(cols) / sizeof(cols[0]))) {
        return NULL;
    }
    memcpy(cols, rs->cols, sizeof(RsColumn) * (size_t)rs->ncols);
    cols[rs->ncols] = (RsColumn){"idle_ns", "Idle", CT_NS};
    cols[rs->ncols + 1] = (RsColumn){"cause", "Cause", CT_TEXT};
    return cols;
}

ResultSet* TraceGap_annotate(ResultSet* rs, const TraceGap* g, int64_t n) {
    const RsColumn* cols = annotated_columns(rs);
    if (!cols) {
        return rs; /* not a trace page */
    }
    ResultSet* o = ResultSet_new(rs->name, cols, rs->ncols + 2);
    o->footer = rs->footer;
    rs->footer = NULL;
    ResultSet_reserve(o, rs->nrows);
    int ac = ResultSet_columnIndex(rs, "abs_start_ns"), gc = ResultSet_columnIndex(rs, "gap_ns");
    for (int r = 0; r < rs->nrows; r++) {
        int nr = ResultSet_addRow(o);
        for (int c = 0; c < rs->ncols; c++) {
            RsCell* from = ResultSet_cell(rs, r, c);
            *ResultSet_cell(o, nr, c) = *from;
            from->s = NULL;
        }
        const TraceGap* x = TraceGap_endingAt(g, n, ResultSet_cellc(o, nr, ac)->i);
        const RsCell* gap = ResultSet_cellc(o, nr, gc);
        if (x) {
            ResultSet_setInt(o, nr, rs->ncols, x->g1 - x->g0);
            ResultSet_setText(o, nr, rs->ncols + 1, x->cause);
        } else if (!gap->null && gap->i > 0) {
            /* the queue waited while the device ran something else: not device idle */
            ResultSet_setText(o, nr, rs->ncols + 1, "other-stream");
        }
    }
    ResultSet_delete(rs);
    return o;
}
