/* idle.c - see idle.h. */
#include "dcutop/idle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "dcutop/xalloc.h"

enum { C_HOST, C_LAUNCH, C_SYNC, C_OTHER_STREAM, C_UNKNOWN, C_COUNT };
static const char* const cause_names[C_COUNT] = {"host-bound", "launch-overhead", "sync",
                                                 "other-stream", "unknown"};

typedef struct {
    int64_t run, gpu, stream, start, end, file;
    char *kernel, *call;     /* owned; call NULL when no launch call */
    int64_t cs, ce, pid, tid; /* the launch call */
} Disp;

typedef struct { /* a host interval on one thread */
    int64_t pid, tid, start, end, maxend; /* maxend: max end of this and earlier on the thread */
    const char* name;                    /* owned by the Host array's names */
} Host;

typedef struct {
    Disp* d;
    int64_t nd;
    Host* h; /* host activity of the run being processed */
    int64_t nh;
    Host* sy; /* sync calls */
    int64_t nsy;
    char** names;
    int64_t nnames, capnames;
} Ctx;

static char* dup_col(sqlite3_stmt* st, int c) {
    const unsigned char* s = sqlite3_column_text(st, c);
    return s ? xstrdup((const char*)s) : NULL;
}

static int64_t col_i(sqlite3_stmt* st, int c, int64_t dflt) {
    return sqlite3_column_type(st, c) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, c);
}

static const char used_files[] = "(SELECT file_id FROM used_file WHERE layer = 'kernel')";

static DcuStatus read_dispatches(TraceDb* db, Ctx* c, DcuError* err) {
    char* sql = xasprintf(
        /* the launch call: the call with the dispatch's correlation id in its own file,
         * else among its run's files (rocprofv3 CSV: API calls in a file of their own), a
         * HIP call first, then the lowest id (as launch_link.h) */
        "WITH lc AS (SELECT file_id, corr_id, min(id) AS id FROM api_call"
        "  WHERE corr_id IS NOT NULL AND file_id IN (SELECT id FROM source_file"
        "   WHERE run_id IS NOT NULL) GROUP BY file_id, corr_id),"
        " lr AS (SELECT run, corr_id, id FROM (SELECT f.run_id AS run, a.corr_id, a.id,"
        "  row_number() OVER (PARTITION BY f.run_id, a.corr_id"
        "   ORDER BY a.name NOT LIKE 'hip%%', a.id) AS rn"
        "  FROM api_call a JOIN source_file f ON f.id = a.file_id"
        "  WHERE a.corr_id IS NOT NULL AND f.run_id IS NOT NULL) WHERE rn = 1)"
        " SELECT f.run_id, coalesce(d.gpu, -1), coalesce(d.stream, d.queue, -1), d.start_ns,"
        "  d.end_ns, k.name, a.name, a.start_ns, a.end_ns, a.pid, a.tid, d.file_id"
        " FROM dispatch d JOIN source_file f ON f.id = d.file_id"
        " JOIN kernel k ON k.id = d.kernel_id"
        " LEFT JOIN lc ON lc.file_id = d.file_id AND lc.corr_id = d.corr_id"
        " LEFT JOIN lr ON lc.id IS NULL AND lr.run = f.run_id AND lr.corr_id = d.corr_id"
        " LEFT JOIN api_call a ON a.id = coalesce(lc.id, lr.id)"
        " WHERE d.file_id IN %s AND d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"
        "  AND f.run_id IS NOT NULL"
        " ORDER BY f.run_id, 2, d.start_ns, d.end_ns, d.id",
        used_files);
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    free(sql);
    if (s != DCU_OK) {
        return s;
    }
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((size_t)c->nd == cap) {
            cap = cap ? cap * 2 : 1024;
            c->d = xrealloc(c->d, cap * sizeof(*c->d));
        }
        Disp* x = &c->d[c->nd++];
        x->run = col_i(st, 0, 0);
        x->gpu = col_i(st, 1, -1);
        x->stream = col_i(st, 2, -1);
        x->start = col_i(st, 3, 0);
        x->end = col_i(st, 4, 0);
        if (x->end < x->start) {
            x->end = x->start;
        }
        x->kernel = dup_col(st, 5);
        x->call = dup_col(st, 6);
        x->cs = col_i(st, 7, 0);
        x->ce = col_i(st, 8, x->cs);
        x->pid = col_i(st, 9, -1);
        x->tid = col_i(st, 10, -1);
        x->file = col_i(st, 11, 0);
        if (x->call && sqlite3_column_type(st, 7) == SQLITE_NULL) {
            free(x->call);
            x->call = NULL;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? DCU_OK
                             : Error_set(err, DCU_ERR_SQL, "idle: %s",
                                         sqlite3_errmsg(TraceDb_handle(db)));
}

static int cmp_host(const void* a, const void* b) {
    const Host *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end; /* outer first */
}

static const char* intern_name(Ctx* c, const char* s) {
    if (c->nnames == c->capnames) {
        c->capnames = c->capnames ? c->capnames * 2 : 1024;
        c->names = xrealloc(c->names, (size_t)c->capnames * sizeof(char*));
    }
    return c->names[c->nnames++] = xstrdup(s ? s : "?");
}

/* The host rows of one run (sql with ? = run id), sorted per thread, with maxend. */
static DcuStatus read_hosts(TraceDb* db, Ctx* c, const char* sql, int64_t run, Host** out,
                            int64_t* n, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    size_t cap = 0;
    Host* h = NULL;
    int64_t k = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((size_t)k == cap) {
            cap = cap ? cap * 2 : 1024;
            h = xrealloc(h, cap * sizeof(*h));
        }
        Host* x = &h[k++];
        x->pid = col_i(st, 0, -1);
        x->tid = col_i(st, 1, -1);
        x->start = col_i(st, 2, 0);
        x->end = col_i(st, 3, x->start);
        if (x->end < x->start) {
            x->end = x->start;
        }
        x->name = intern_name(c, (const char*)sqlite3_column_text(st, 4));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(h);
        return Error_set(err, DCU_ERR_SQL, "idle: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    if (k) {
        qsort(h, (size_t)k, sizeof(*h), cmp_host);
    }
    for (int64_t i = 0; i < k; i++) {
        int same = i && h[i - 1].pid == h[i].pid && h[i - 1].tid == h[i].tid;
        h[i].maxend = same && h[i - 1].maxend > h[i].end ? h[i - 1].maxend : h[i].end;
    }
    *out = h;
    *n = k;
    return DCU_OK;
}

/* Index one past the last entry of thread (pid, tid) with start < t. */
static int64_t upper(const Host* h, int64_t n, int64_t pid, int64_t tid, int64_t t) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        const Host* x = &h[m];
        int before = x->pid < pid || (x->pid == pid && (x->tid < tid ||
                                                        (x->tid == tid && x->start < t)));
        if (before) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    return lo;
}

/* A sync call on (pid, tid) overlapping [g0, g1) that ended by `by`. */
static int sync_in(const Ctx* c, int64_t pid, int64_t tid, int64_t g0, int64_t g1, int64_t by) {
    for (int64_t i = upper(c->sy, c->nsy, pid, tid, g1) - 1; i >= 0; i--) {
        const Host* x = &c->sy[i];
        if (x->pid != pid || x->tid != tid || x->maxend <= g0) {
            break;
        }
        if (x->end > g0 && x->end <= by) {
            return 1;
        }
    }
    return 0;
}

/* ---- output rows --------------------------------------------------------------------- */

typedef struct {
    int64_t gaps[C_COUNT], ns[C_COUNT], idle;
} DevSum;

typedef struct {
    int64_t run, gpu, g0, g1;
    int cause;
    int64_t pid, tid; /* launching thread, -1 none */
} Gap;

static const char* run_label(TraceDb* db, int64_t run, char* buf, size_t cap) {
    sqlite3_stmt* st = NULL;
    DcuError e = {0};
    snprintf(buf, cap, "%lld", (long long)run);
    if (TraceDb_prepareCached(db, "SELECT label FROM run WHERE id = ?", &st, &e) == DCU_OK) {
        sqlite3_bind_int64(st, 1, run);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            snprintf(buf, cap, "%s", (const char*)sqlite3_column_text(st, 0));
        }
        TraceDb_release(db, st);
    }
    return buf;
}

/* Host activity over [g0, g1) on one thread: calls emit(name, ns) per maximal part. */
typedef void (*EmitFn)(void* ctx, const char* name, int64_t ns);

static void host_parts(const Ctx* c, int64_t pid, int64_t tid, int64_t g0, int64_t g1,
                       EmitFn emit, void* ectx) {
    enum { MAXI = 512 };
    const Host* iv[MAXI];
    int ni = 0;
    if (pid != -1 || tid != -1) {
        for (int64_t i = upper(c->h, c->nh, pid, tid, g1) - 1; i >= 0 && ni < MAXI; i--) {
            const Host* x = &c->h[i];
            if (x->pid != pid || x->tid != tid || x->maxend <= g0) {
                break;
            }
            if (x->end > g0) {
                iv[ni++] = x;
            }
        }
    }
    /* breakpoints */
    int64_t* pts = xmalloc((size_t)(2 * ni + 2) * sizeof(int64_t));
    int np = 0;
    pts[np++] = g0;
    pts[np++] = g1;
    for (int i = 0; i < ni; i++) {
        if (iv[i]->start > g0 && iv[i]->start < g1) pts[np++] = iv[i]->start;
        if (iv[i]->end > g0 && iv[i]->end < g1) pts[np++] = iv[i]->end;
    }
    for (int i = 1; i < np; i++) { /* insertion sort: few points */
        int64_t v = pts[i];
        int j = i - 1;
        while (j >= 0 && pts[j] > v) {
            pts[j + 1] = pts[j];
            j--;
        }
        pts[j + 1] = v;
    }
    const char* cur = NULL;
    int64_t acc = 0;
    for (int p = 0; p + 1 < np; p++) {
        int64_t a = pts[p], b = pts[p + 1];
        if (b <= a) {
            continue;
        }
        const Host* best = NULL;
        for (int i = 0; i < ni; i++) {
            const Host* x = iv[i];
            if (x->start <= a && x->end >= b &&
                (!best || x->start > best->start ||
                 (x->start == best->start && x->end < best->end))) {
                best = x;
            }
        }
        const char* name = best ? best->name : "(untraced)";
        if (cur && strcmp(cur, name) != 0) {
            emit(ectx, cur, acc);
            acc = 0;
        }
        cur = name;
        acc += b - a;
    }
    if (cur) {
        emit(ectx, cur, acc);
    }
    free(pts);
}

typedef struct {
    ResultSet* rs;
    const char* run;
    const Gap* g;
    const char* best;
    int64_t best_ns;
} EmitCtx;

static void emit_row(void* p, const char* name, int64_t ns) {
    EmitCtx* e = p;
    if (e->rs) {
        int r = ResultSet_addRow(e->rs);
        ResultSet_setText(e->rs, r, 0, e->run);
        ResultSet_setInt(e->rs, r, 1, e->g->gpu);
        ResultSet_setInt(e->rs, r, 2, e->g->g0);
        ResultSet_setNs(e->rs, r, 3, (double)(e->g->g1 - e->g->g0));
        ResultSet_setText(e->rs, r, 4, cause_names[e->g->cause]);
        ResultSet_setText(e->rs, r, 5, name);
        ResultSet_setNs(e->rs, r, 6, (double)ns);
    }
    if (ns > e->best_ns) {
        e->best_ns = ns;
        e->best = name;
    }
}

static const RsColumn cause_cols[] = {
    {"run", "Run", CT_TEXT},       {"device", "Device", CT_INT},
    {"cause", "Cause", CT_TEXT},   {"gaps", "Gaps", CT_INT},
    {"total_ns", "Total", CT_NS},  {"pct_idle", "%Idle", CT_PCT},
};
static const RsColumn launch_cols[] = {
    {"run", "Run", CT_TEXT},
    {"device", "Device", CT_INT},
    {"stream", "Stream", CT_INT},
    {"kernel", "Kernel", CT_TEXT},
    {"launch_call", "Launch call", CT_TEXT},
    {"call_start_ns", "Call start", CT_INT},
    {"call_end_ns", "Call end", CT_INT},
    {"kernel_start_ns", "Kernel start", CT_INT},
    {"kernel_end_ns", "Kernel end", CT_INT},
    {"launch_delay_ns", "Launch delay", CT_NS},
};
static const RsColumn gap_cols[] = {
    {"run", "Run", CT_TEXT},           {"device", "Device", CT_INT},
    {"gap_start_ns", "Gap start", CT_INT}, {"gap_ns", "Gap", CT_NS},
    {"cause", "Cause", CT_TEXT},       {"host_activity", "Host activity", CT_TEXT},
    {"host_ns", "Host time", CT_NS},
};
static const RsColumn top_cols[] = {
    {"run", "Run", CT_TEXT},           {"device", "Device", CT_INT},
    {"gap_start_ns", "Gap start", CT_INT}, {"gap_ns", "Gap", CT_NS},
    {"cause", "Cause", CT_TEXT},       {"host_activity", "Main host activity", CT_TEXT},
    {"host_ns", "Host time", CT_NS},   {"next_kernel", "Next kernel", CT_TEXT},
};
static const RsColumn kern_cols[] = {
    {"kernel", "Kernel", CT_TEXT},     {"launches", "Launches", CT_INT},
    {"median_ns", "Median delay", CT_NS}, {"p95_ns", "p95 delay", CT_NS},
    {"max_ns", "Max delay", CT_NS},
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char* const view_names[IDLE_VIEW_COUNT] = {"idle", "launches", "idle-gaps",
                                                        "idle-top", "launch-stats"};

int Idle_viewByName(const char* name) {
    for (int i = 0; name && i < IDLE_VIEW_COUNT; i++) {
        if (strcmp(view_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

const char* Idle_viewName(IdleView v) {
    return v < IDLE_VIEW_COUNT ? view_names[v] : "?";
}

static int64_t delay_of(const Disp* d) {
    return d->start > d->ce ? d->start - d->ce : 0;
}


static int cmp_kernel(const void* a, const void* b) {
    const Disp *x = *(Disp* const*)a, *y = *(Disp* const*)b;
    int c = strcmp(x->kernel ? x->kernel : "", y->kernel ? y->kernel : "");
    return c ? c : (delay_of(x) > delay_of(y)) - (delay_of(x) < delay_of(y));
}

static void kernel_stats(const Ctx* c, ResultSet* rs) {
    Disp** p = xmalloc((size_t)(c->nd ? c->nd : 1) * sizeof(*p));
    int64_t n = 0;
    for (int64_t i = 0; i < c->nd; i++) {
        if (c->d[i].call) {
            p[n++] = &c->d[i];
        }
    }
    if (n) {
        qsort(p, (size_t)n, sizeof(*p), cmp_kernel);
    }
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        while (j < n && strcmp(p[j]->kernel ? p[j]->kernel : "", p[i]->kernel ? p[i]->kernel : "") == 0) {
            j++;
        }
        int64_t k = j - i; /* sorted by delay */
        int64_t med2 = delay_of(p[i + (k - 1) / 2]) + delay_of(p[i + k / 2]);
        int64_t r95 = (95 * k + 99) / 100; /* nearest rank */
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, p[i]->kernel ? p[i]->kernel : "?");
        ResultSet_setInt(rs, r, 1, k);
        ResultSet_setNs(rs, r, 2, (double)med2 / 2.0);
        ResultSet_setNs(rs, r, 3, (double)delay_of(p[i + (r95 ? r95 - 1 : 0)]));
        ResultSet_setNs(rs, r, 4, (double)delay_of(p[j - 1]));
        i = j;
    }
    ResultSet_sort(rs, 3, 1); /* the largest p95 delay first */
    free(p);
}

static const char host_sql[] =
    "SELECT pid, tid, start_ns, end_ns, name FROM cpu_op WHERE start_ns IS NOT NULL AND"
    " file_id IN (SELECT id FROM source_file WHERE run_id = ?1)"
    " UNION ALL SELECT pid, tid, start_ns, end_ns, name FROM range WHERE start_ns IS NOT NULL"
    " AND end_ns IS NOT NULL AND file_id IN (SELECT id FROM source_file WHERE run_id = ?1)"
    " UNION ALL SELECT pid, tid, start_ns, end_ns, name FROM api_call WHERE start_ns IS NOT NULL"
    " AND file_id IN (SELECT id FROM source_file WHERE run_id = ?1)";
static const char sync_sql[] =
    "SELECT a.pid, a.tid, a.start_ns, a.end_ns, a.name FROM api_call a"
    " WHERE a.start_ns IS NOT NULL AND a.end_ns IS NOT NULL"
    " AND a.file_id IN (SELECT id FROM source_file WHERE run_id = ?1) AND (a.name IN ("
    "  'hipDeviceSynchronize', 'hipStreamSynchronize', 'hipEventSynchronize',"
    "  'cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize',"
    "  'cuCtxSynchronize', 'cuStreamSynchronize', 'cuEventSynchronize', 'hipCtxSynchronize',"
    "  'hipMemcpyDtoH', 'cuMemcpyDtoH', 'cuMemcpyDtoH_v2')"
    " OR (a.name IN ('hipMemcpy', 'cudaMemcpy') AND NOT EXISTS (SELECT 1 FROM copy c"
    "  WHERE c.file_id = a.file_id AND c.corr_id = a.corr_id AND NOT (c.name LIKE '%DtoH%'"
    "  OR c.name LIKE '%D2H%' OR c.name LIKE '%DEVICE_TO_HOST%' OR c.name LIKE"
    "  '%DeviceToHost%'))))";

static int cmp_gap(const void* a, const void* b) {
    const Gap *x = a, *y = b;
    int64_t p = x->g1 - x->g0, q = y->g1 - y->g0;
    return p != q ? (p < q ? 1 : -1) : (x->g0 > y->g0) - (x->g0 < y->g0);
}

/* Walks every device of every run: gaps, causes, other-stream waits; fills the table v. */
static DcuStatus walk(TraceDb* db, Ctx* c, IdleView v, ResultSet* rs, DcuError* err) {
    DcuStatus s = DCU_OK;
    Gap* top = NULL;
    int64_t ntop = 0, captop = 0;
    int64_t* ends = NULL;
    for (int64_t r0 = 0; r0 < c->nd && s == DCU_OK;) {
        int64_t r1 = r0, run = c->d[r0].run;
        int64_t lo = c->d[r0].start, hi = c->d[r0].end;
        while (r1 < c->nd && c->d[r1].run == run) {
            lo = c->d[r1].start < lo ? c->d[r1].start : lo;
            hi = c->d[r1].end > hi ? c->d[r1].end : hi;
            r1++;
        }
        char label[512];
        run_label(db, run, label, sizeof(label));
        free(c->h);
        free(c->sy);
        c->h = c->sy = NULL;
        c->nh = c->nsy = 0;
        if (v != IDLE_LAUNCHES && v != IDLE_KERNELS) {
            s = read_hosts(db, c, host_sql, run, &c->h, &c->nh, err);
            if (s == DCU_OK) {
                s = read_hosts(db, c, sync_sql, run, &c->sy, &c->nsy, err);
            }
        }
        for (int64_t d0 = r0; d0 < r1 && s == DCU_OK;) {
            int64_t d1 = d0, gpu = c->d[d0].gpu;
            while (d1 < r1 && c->d[d1].gpu == gpu) {
                d1++;
            }
            DevSum sum;
            memset(&sum, 0, sizeof(sum));
            /* idle intervals: [lo, first start), between the union's pieces, [last end, hi) */
            int64_t reach = lo;
            Gap* dg = NULL;
            int64_t ndg = 0, capdg = 0;
            for (int64_t i = d0; i <= d1; i++) {
                int64_t st = i < d1 ? c->d[i].start : hi;
                if (st > reach) {
                    if (ndg == capdg) {
                        capdg = capdg ? capdg * 2 : 256;
                        dg = xrealloc(dg, (size_t)capdg * sizeof(*dg));
                    }
                    Gap* g = &dg[ndg++];
                    *g = (Gap){run, gpu, reach, st, C_UNKNOWN, -1, -1};
                    if (i < d1 && c->d[i].call) {
                        const Disp* nx = &c->d[i];
                        g->pid = nx->pid;
                        g->tid = nx->tid;
                        g->cause = sync_in(c, nx->pid, nx->tid, reach, st, nx->cs) ? C_SYNC
                                   : nx->cs > reach                              ? C_HOST
                                                                                 : C_LAUNCH;
                    }
                    sum.gaps[g->cause]++;
                    sum.ns[g->cause] += st - reach;
                    sum.idle += st - reach;
                }
                if (i < d1 && c->d[i].end > reach) {
                    reach = c->d[i].end;
                }
            }
            /* other-stream: per stream, the busy part of the gaps between its kernels */
            int64_t nstream = 0;
            ends = xrealloc(ends, (size_t)(2 * (d1 - d0) + 2) * sizeof(int64_t));
            for (int64_t i = d0; i < d1; i++) {
                int seen = 0;
                for (int64_t j = 0; j < nstream && !seen; j++) {
                    seen = ends[2 * j] == c->d[i].stream;
                }
                if (!seen) {
                    ends[2 * nstream] = c->d[i].stream;
                    ends[2 * nstream + 1] = INT64_MIN;
                    nstream++;
                }
            }
            for (int64_t j = 0; j < nstream && nstream > 1; j++) {
                int64_t last = INT64_MIN;
                for (int64_t i = d0; i < d1; i++) {
                    if (c->d[i].stream != ends[2 * j]) {
                        continue;
                    }
                    if (last != INT64_MIN && c->d[i].start > last) {
                        int64_t a = last, b = c->d[i].start, idle = 0;
                        for (int64_t q = 0; q < ndg; q++) { /* sorted, disjoint */
                            int64_t x = dg[q].g0 > a ? dg[q].g0 : a;
                            int64_t y = dg[q].g1 < b ? dg[q].g1 : b;
                            if (y > x) {
                                idle += y - x;
                            }
                        }
                        if (b - a - idle > 0) {
                            sum.gaps[C_OTHER_STREAM]++;
                            sum.ns[C_OTHER_STREAM] += b - a - idle;
                        }
                    }
                    if (c->d[i].end > last) {
                        last = c->d[i].end;
                    }
                }
            }
            if (v == IDLE_CAUSES) {
                for (int k = 0; k < C_COUNT; k++) {
                    if (!sum.gaps[k]) {
                        continue;
                    }
                    int r = ResultSet_addRow(rs);
                    ResultSet_setText(rs, r, 0, label);
                    ResultSet_setInt(rs, r, 1, gpu);
                    ResultSet_setText(rs, r, 2, cause_names[k]);
                    ResultSet_setInt(rs, r, 3, sum.gaps[k]);
                    ResultSet_setNs(rs, r, 4, (double)sum.ns[k]);
                    ResultSet_setReal(rs, r, 5,
                                      sum.idle ? 100.0 * (double)sum.ns[k] / (double)sum.idle : 0);
                }
            } else if (v == IDLE_GAPS) {
                for (int64_t q = 0; q < ndg; q++) {
                    EmitCtx e = {rs, label, &dg[q], NULL, 0};
                    host_parts(c, dg[q].pid, dg[q].tid, dg[q].g0, dg[q].g1, emit_row, &e);
                }
            } else if (v == IDLE_TOP) { /* the largest IDLE_TOP_GAPS of each device */
                ntop = 0;
                for (int64_t q = 0; q < ndg; q++) {
                    if (ntop == captop) {
                        captop = captop ? captop * 2 : 256;
                        top = xrealloc(top, (size_t)captop * sizeof(*top));
                    }
                    top[ntop++] = dg[q];
                }
                if (ntop) {
                    qsort(top, (size_t)ntop, sizeof(*top), cmp_gap);
                }
                if (ntop > IDLE_TOP_GAPS) {
                    ntop = IDLE_TOP_GAPS;
                }
            }
            if (v == IDLE_TOP) {
                /* fill rows now for gaps of this device still in the list (host data is
                 * per run): rows are sorted at the end */
                for (int64_t q = 0; q < ntop; q++) {
                    if (top[q].run != run || top[q].gpu != gpu) {
                        continue;
                    }
                    EmitCtx e = {NULL, label, &top[q], NULL, 0};
                    host_parts(c, top[q].pid, top[q].tid, top[q].g0, top[q].g1, emit_row, &e);
                    const char* next = "";
                    for (int64_t i = d0; i < d1; i++) {
                        if (c->d[i].start == top[q].g1) {
                            next = c->d[i].kernel ? c->d[i].kernel : "?";
                            break;
                        }
                    }
                    int r = ResultSet_addRow(rs);
                    ResultSet_setText(rs, r, 0, label);
                    ResultSet_setInt(rs, r, 1, gpu);
                    ResultSet_setInt(rs, r, 2, top[q].g0);
                    ResultSet_setNs(rs, r, 3, (double)(top[q].g1 - top[q].g0));
                    ResultSet_setText(rs, r, 4, cause_names[top[q].cause]);
                    ResultSet_setText(rs, r, 5, e.best ? e.best : "(untraced)");
                    ResultSet_setNs(rs, r, 6, (double)e.best_ns);
                    ResultSet_setText(rs, r, 7, next);
                }
            }
            free(dg);
            d0 = d1;
        }
        if (v == IDLE_LAUNCHES) {
            for (int64_t i = r0; i < r1; i++) {
                const Disp* d = &c->d[i];
                if (!d->call) {
                    continue;
                }
                int r = ResultSet_addRow(rs);
                ResultSet_setText(rs, r, 0, label);
                ResultSet_setInt(rs, r, 1, d->gpu);
                ResultSet_setInt(rs, r, 2, d->stream);
                ResultSet_setText(rs, r, 3, d->kernel ? d->kernel : "?");
                ResultSet_setText(rs, r, 4, d->call);
                ResultSet_setInt(rs, r, 5, d->cs);
                ResultSet_setInt(rs, r, 6, d->ce);
                ResultSet_setInt(rs, r, 7, d->start);
                ResultSet_setInt(rs, r, 8, d->end);
                ResultSet_setNs(rs, r, 9, (double)delay_of(d));
            }
        }
        r0 = r1;
    }
    free(top);
    free(ends);
    return s;
}

DcuStatus Idle_view(TraceDb* db, IdleView v, ResultSet** out, DcuError* err) {
    static const struct {
        const RsColumn* cols;
        int n;
    } tabs[IDLE_VIEW_COUNT] = {{cause_cols, NCOLS(cause_cols)},   {launch_cols, NCOLS(launch_cols)},
                               {gap_cols, NCOLS(gap_cols)},       {top_cols, NCOLS(top_cols)},
                               {kern_cols, NCOLS(kern_cols)}};
    *out = NULL;
    if (v >= IDLE_VIEW_COUNT) {
        return Error_set(err, DCU_ERR_USAGE, "idle: unknown view");
    }
    Ctx c;
    memset(&c, 0, sizeof(c));
    ResultSet* rs = ResultSet_new(view_names[v], tabs[v].cols, tabs[v].n);
    DcuStatus s = read_dispatches(db, &c, err);
    if (s == DCU_OK) {
        if (v == IDLE_KERNELS) {
            kernel_stats(&c, rs);
        } else {
            s = walk(db, &c, v, rs, err);
        }
    }
    for (int64_t i = 0; i < c.nd; i++) {
        free(c.d[i].kernel);
        free(c.d[i].call);
    }
    for (int64_t i = 0; i < c.nnames; i++) {
        free(c.names[i]);
    }
    free(c.names);
    free(c.d);
    free(c.h);
    free(c.sy);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
