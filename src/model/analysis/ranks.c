/* ranks.c - the runs as ranks of one job: compute vs communication, exposed communication,
 * steps, the critical path and the straggler verdict (definitions in ranks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/idle.h"
#include "dcutop/ranks.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"
#include "ranks_explain.h"
#include "ranks_summary.h"

typedef struct Disp_ {
    int64_t s, e;
    int64_t kernel, id; /* kernel.id, dispatch.id */
    int gpu;
    int comm;
} Disp;

static int by_gpu_start(const void* a, const void* b) {
    const Disp *x = a, *y = b;
    if (x->gpu != y->gpu) {
        return x->gpu < y->gpu ? -1 : 1;
    }
    return x->s < y->s ? -1 : x->s > y->s;
}


static int cmp_dbl(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* Merged intervals of one class of one GPU, in start order (v sorted by start). */
typedef struct Ivs_ {
    int64_t* s;
    int64_t* e;
    int n, cap;
} Ivs;

static void ivs_add(Ivs* u, int64_t s, int64_t e) {
    if (u->n > 0 && s <= u->e[u->n - 1]) {
        if (e > u->e[u->n - 1]) {
            u->e[u->n - 1] = e;
        }
        return;
    }
    if (u->n == u->cap) {
        u->cap = u->cap ? u->cap * 2 : 64;
        u->s = xrealloc(u->s, sizeof(int64_t) * (size_t)u->cap);
        u->e = xrealloc(u->e, sizeof(int64_t) * (size_t)u->cap);
    }
    u->s[u->n] = s;
    u->e[u->n] = e;
    u->n++;
}

static int64_t ivs_len(const Ivs* u) {
    int64_t t = 0;
    for (int i = 0; i < u->n; i++) {
        t += u->e[i] - u->s[i];
    }
    return t;
}

/* Length of the intersection of two merged lists (two-pointer sweep). */
static int64_t ivs_overlap(const Ivs* a, const Ivs* b) {
    int64_t t = 0;
    int i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t lo = a->s[i] > b->s[j] ? a->s[i] : b->s[j];
        int64_t hi = a->e[i] < b->e[j] ? a->e[i] : b->e[j];
        if (hi > lo) {
            t += hi - lo;
        }
        if (a->e[i] < b->e[j]) {
            i++;
        } else {
            j++;
        }
    }
    return t;
}

/* busy and exposed comm of r from its dispatches (sorted by gpu, start). */
static void union_figures(RankRow* r, const Disp* d, int64_t n) {
    Ivs comp = {0}, comm = {0};
    for (int64_t i = 0; i < n;) {
        int gpu = d[i].gpu;
        comp.n = comm.n = 0;
        for (; i < n && d[i].gpu == gpu; i++) {
            ivs_add(d[i].comm ? &comm : &comp, d[i].s, d[i].e);
        }
        int64_t c = ivs_len(&comp), m = ivs_len(&comm), both = ivs_overlap(&comp, &comm);
        r->exposed_comm_ns += m - both;
        r->busy_ns += c + m - both;
    }
    free(comp.s);
    free(comp.e);
    free(comm.s);
    free(comm.e);
}

static const char* const files_of_run =
    "SELECT sl.file_id FROM source_layer sl JOIN source_file f ON f.id = sl.file_id"
    " WHERE sl.used AND sl.layer = 'kernel' AND f.run_id = ?1";

/* The statement that reads one run's timed dispatches (?1 = run id), prepared once for all
 * runs: a folder of 100,000 one-file runs spent most of its time re-parsing it. */
static sqlite3_stmt* prepare_dispatches(TraceDb* db, DcuError* err) {
    /* a run's kernel files were loaded one after another: their rowid spans (dispatch_span)
     * make one range, so a rank costs its own rows, not a scan of the job's */
    char* sql = xasprintf("SELECT coalesce(d.gpu, -1), d.pid, d.start_ns, d.end_ns,"
                          " coalesce(k.category = 'comm', 0), d.kernel_id, d.id FROM dispatch d"
                          " JOIN kernel k ON k.id = d.kernel_id"
                          " WHERE d.id BETWEEN (SELECT min(lo_id) FROM dispatch_span"
                          " WHERE file_id IN (%s)) AND (SELECT max(hi_id) FROM dispatch_span"
                          " WHERE file_id IN (%s)) AND d.start_ns IS NOT NULL"
                          " AND d.end_ns IS NOT NULL AND d.file_id IN (%s)",
                          files_of_run, files_of_run, files_of_run);
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db, sql, &st, err);
    free(sql);
    return rc == DCU_OK ? st : NULL;
}

/* The timed dispatches of a run (owned, sorted by gpu and start). */
static Disp* read_dispatches(sqlite3_stmt* st, int64_t run, int64_t* n, RankRow* r) {
    *n = 0;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run);
    int64_t cap = 0;
    Disp* v = NULL;
    int64_t first = INT64_MAX, last = INT64_MIN;
    r->gpu = -1;
    r->pid = -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 1024;
            v = xrealloc(v, sizeof(Disp) * (size_t)cap);
        }
        Disp* x = &v[(*n)++];
        x->gpu = sqlite3_column_int(st, 0);
        x->s = sqlite3_column_int64(st, 2);
        x->e = sqlite3_column_int64(st, 3);
        if (x->e < x->s) {
            x->e = x->s;
        }
        x->comm = sqlite3_column_int(st, 4);
        x->kernel = sqlite3_column_int64(st, 5);
        x->id = sqlite3_column_int64(st, 6);
        if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
            (r->pid < 0 || sqlite3_column_int64(st, 1) < r->pid)) {
            r->pid = sqlite3_column_int64(st, 1);
        }
        if (x->gpu >= 0 && (r->gpu < 0 || x->gpu < r->gpu)) {
            r->gpu = x->gpu;
        }
        first = x->s < first ? x->s : first;
        last = x->e > last ? x->e : last;
        r->dispatches++;
        r->kernel_ns += x->e - x->s;
        if (x->comm) {
            r->comm_dispatches++;
            r->comm_ns += x->e - x->s;
        } else {
            r->compute_ns += x->e - x->s;
        }
    }
    sqlite3_reset(st);
    r->first_ns = first;
    r->last_ns = last;
    if (*n > 0) {
        qsort(v, (size_t)*n, sizeof(Disp), by_gpu_start);
        int devices = 0;
        for (int64_t i = 0; i < *n; i++) {
            devices += i == 0 || v[i].gpu != v[i - 1].gpu;
        }
        r->wall_ns = (last - first) * devices;
    }
    return v;
}

/* ProfilerStep# host ranges of the run's kernel files, by start: durations (owned). */
static int64_t* read_step_ranges(TraceDb* db, int64_t run, int* n) {
    char* sql = xasprintf("SELECT end_ns - start_ns FROM range WHERE file_id IN (%s)"
                          " AND domain = 'ANNOTATION' AND name LIKE 'ProfilerStep#%%'"
                          " AND start_ns IS NOT NULL AND end_ns IS NOT NULL ORDER BY start_ns",
                          files_of_run);
    sqlite3_stmt* st = NULL;
    int64_t* v = NULL;
    int cap = 0;
    *n = 0;
    if (TraceDb_prepareCached(db, sql, &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, run);
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                v = xrealloc(v, sizeof(int64_t) * (size_t)cap);
            }
            v[(*n)++] = sqlite3_column_int64(st, 0);
        }
        TraceDb_release(db, st);
    }
    free(sql);
    return v;
}

/* The rank-wait of dispatch id (0: none); w sorted by dispatch id. */
static int64_t wait_of(const IdleWait* w, int64_t nw, int64_t id) {
    int64_t a = 0, b = nw - 1;
    while (a <= b) {
        int64_t m = a + (b - a) / 2;
        if (w[m].dispatch == id) {
            return w[m].wait_ns;
        }
        if (w[m].dispatch < id) {
            a = m + 1;
        } else {
            b = m - 1;
        }
    }
    return 0;
}

/* Keeps a comm dispatch of r for its job summary (RankRow.comm). */
static void keep(RankRow* r, const Disp* d, int step) {
    if (r->ncomm % 1024 == 0) {
        r->comm = xrealloc(r->comm, sizeof(RankComm) * (size_t)(r->ncomm + 1024));
    }
    r->comm[r->ncomm++] = (RankComm){d->kernel, d->s, d->e - d->s, step};
}

/* Steps of a run from the timeline's iterations of its (first) kernel file: per-step
 * compute, comm and rank-wait (w: the job's, by dispatch id), compute per kernel and step,
 * and the step times. */
static void fill_steps(TraceDb* db, const Timeline* tl, RankRow* r, const Disp* d, int64_t n,
                       const IdleWait* w, int64_t nw, int keep_comm) {
    int64_t file = 0;
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepareCached(db, "SELECT min(sl.file_id) FROM source_layer sl JOIN source_file f"
                            " ON f.id = sl.file_id WHERE sl.used AND sl.layer = 'kernel'"
                            " AND f.run_id = ?1",
                        &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, r->run_id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            file = sqlite3_column_int64(st, 0);
        }
        TraceDb_release(db, st);
    }
    int k = 0;
    int64_t lo, hi;
    while (Timeline_iterationWindow(tl, file, k + 1, &lo, &hi)) {
        k++;
    }
    if (k == 0) { /* no steps: a job summary still needs the comm dispatches' waits */
        for (int64_t i = 0; keep_comm && i < n; i++) {
            if (d[i].comm) {
                keep(r, &d[i], -1);
            }
        }
        return;
    }
    int64_t* los = xmalloc(sizeof(int64_t) * (size_t)k);
    int64_t* his = xmalloc(sizeof(int64_t) * (size_t)k);
    for (int i = 0; i < k; i++) {
        Timeline_iterationWindow(tl, file, i + 1, &los[i], &his[i]);
    }
    r->nsteps = k;
    r->step_ns = xcalloc((size_t)k, sizeof(int64_t));
    r->step_compute_ns = xcalloc((size_t)k, sizeof(int64_t));
    r->step_comm_ns = xcalloc((size_t)k, sizeof(int64_t));
    r->step_wait_ns = xcalloc((size_t)k, sizeof(int64_t));
    I64Map* ks = I64Map_new();
    for (int64_t i = 0; i < n; i++) {
        int a = 0, b = k - 1, hit = -1;
        while (a <= b) { /* the last window starting at or before the dispatch */
            int m = (a + b) / 2;
            if (los[m] <= d[i].s) {
                hit = m;
                a = m + 1;
            } else {
                b = m - 1;
            }
        }
        if (keep_comm && d[i].comm) {
            keep(r, &d[i], hit >= 0 && d[i].s <= his[hit] ? hit : -1);
        }
        if (hit >= 0 && d[i].s <= his[hit]) {
            int64_t* acc = d[i].comm ? r->step_comm_ns : r->step_compute_ns;
            acc[hit] += d[i].e - d[i].s;
            if (d[i].comm) {
                r->step_wait_ns[hit] += wait_of(w, nw, d[i].id);
            } else {
                RanksExplain_add(r, ks, d[i].kernel, hit, d[i].e - d[i].s);
            }
        }
    }
    I64Map_delete(ks);
    int nr = 0;
    int64_t* ranges = read_step_ranges(db, r->run_id, &nr);
    for (int i = 0; i < k; i++) {
        r->step_ns[i] = nr == k ? ranges[i] : his[i] - los[i] + (i + 1 < k ? 1 : 0);
    }
    free(ranges);
    free(los);
    free(his);
}

static int by_rank(const void* a, const void* b) {
    const RankRow *x = a, *y = b;
    if ((x->rank < 0) != (y->rank < 0)) {
        return x->rank < 0 ? 1 : -1;
    }
    if (x->rank != y->rank) {
        return x->rank < y->rank ? -1 : 1;
    }
    if (x->gpu != y->gpu) {
        return x->gpu < y->gpu ? -1 : 1;
    }
    if (x->pid != y->pid) {
        return x->pid < y->pid ? -1 : 1;
    }
    return x->run_id < y->run_id ? -1 : x->run_id > y->run_id;
}

/* Runs with timed dispatches: their rows with distributedInfo where the files say it. */
static DcuStatus read_runs(TraceDb* db, Ranks* j, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(
        db,
        "SELECT r.id, r.label, (SELECT min(dist_rank) FROM source_file f WHERE f.run_id = r.id),"
        " (SELECT max(dist_world) FROM source_file f WHERE f.run_id = r.id) FROM run r"
        " ORDER BY r.id",
        &st, err);
    if (rc != DCU_OK) {
        return rc;
    }
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (j->n == cap) {
            cap = cap ? cap * 2 : 8;
            j->rows = xrealloc(j->rows, sizeof(RankRow) * (size_t)cap);
        }
        RankRow* r = &j->rows[j->n++];
        memset(r, 0, sizeof(*r));
        r->run_id = sqlite3_column_int64(st, 0);
        r->label = xstrdup((const char*)sqlite3_column_text(st, 1));
        r->rank = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
        r->world = sqlite3_column_int(st, 3);
    }
    sqlite3_finalize(st);
    return DCU_OK;
}

/* Every run in one folder, on one clock, each span overlapping every other: concurrent. */

static double median_of(double* v, int n) {
    if (n == 0) {
        return 0;
    }
    qsort(v, (size_t)n, sizeof(double), cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A step straggles when its defining rank's excess over the others' median is large. */
static int straggles(double excess, double median) {
    return excess > median * RANKS_STRAGGLE_PCT / 100.0 && excess > RANKS_STRAGGLE_MIN_NS;
}

/* The median compute of step s over every rank but skip; tmp has room for n. */
static double others_median(const Ranks* j, int s, int skip, double* tmp) {
    int m = 0;
    for (int i = 0; i < j->n; i++) {
        if (i != skip) {
            tmp[m++] = (double)j->rows[i].step_compute_ns[s];
        }
    }
    return median_of(tmp, m);
}

/* The verdict for straggler `best` over its straggling steps (crit: each step's defining
 * rank, excess: its excess): its excess kernels, and who waits for it how long. */
static void blame(TraceDb* db, Ranks* j, int best, const int* crit, const double* excess,
                  double* tmp) {
    RankVerdict* v = &j->verdict;
    double* comm = xcalloc((size_t)j->n, sizeof(double));
    double* wait = xcalloc((size_t)j->n, sizeof(double));
    unsigned char* straggling = xcalloc((size_t)j->nsteps, 1);
    v->found = 1;
    v->straggler = best;
    for (int s = 0; s < j->nsteps; s++) {
        if (crit[s] != best || !straggles(excess[s], others_median(j, s, best, tmp))) {
            continue;
        }
        straggling[s] = 1;
        if (v->first_step == 0) {
            v->first_step = s + 1;
        }
        v->excess_ns += excess[s] / v->steps;
        for (int i = 0; i < j->n; i++) {
            comm[i] += (double)j->rows[i].step_comm_ns[s] / v->steps;
            wait[i] += (double)j->rows[i].step_wait_ns[s] / v->steps;
        }
    }
    v->wait_known = j->have_waits;
    const double* by = v->wait_known ? wait : comm; /* who waits: by rank-wait where known */
    v->waiter = best == 0 ? 1 : 0;
    int m = 0;
    for (int i = 0; i < j->n; i++) {
        if (i != best) {
            tmp[m++] = by[i];
            if (by[i] > by[v->waiter]) {
                v->waiter = i;
            }
        }
    }
    v->wait_ns = by[v->waiter];
    v->comm_ns = comm[v->waiter];
    v->straggler_comm_ns = comm[best];
    v->wait_median_ns = median_of(tmp, m);
    RanksExplain_kernels(db, j, best, straggling);
    free(straggling);
    free(comm);
    free(wait);
}

/* The critical path share and the straggler (ranks.h). */
static void judge(TraceDb* db, Ranks* j) {
    j->nsteps = 0;
    for (int i = 0; i < j->n; i++) {
        if (j->rows[i].nsteps == 0) {
            return; /* a rank without steps: nothing to compare per step */
        }
        if (j->nsteps == 0 || j->rows[i].nsteps < j->nsteps) {
            j->nsteps = j->rows[i].nsteps;
        }
    }
    RankVerdict* v = &j->verdict;
    if (j->n < 2 || j->nsteps == 0) {
        return;
    }
    int* crit = xcalloc((size_t)j->nsteps, sizeof(int));
    double* excess = xcalloc((size_t)j->nsteps, sizeof(double));
    double* job_step = xcalloc((size_t)j->nsteps, sizeof(double));
    double* tmp = xmalloc(sizeof(double) * (size_t)j->n);
    int* count = xcalloc((size_t)j->n, sizeof(int));
    double job_total = 0;
    for (int s = 0; s < j->nsteps; s++) {
        int c = 0;
        for (int i = 0; i < j->n; i++) {
            if (j->rows[i].step_compute_ns[s] > j->rows[c].step_compute_ns[s]) {
                c = i;
            }
            if (j->rows[i].step_ns[s] > job_step[s]) {
                job_step[s] = (double)j->rows[i].step_ns[s];
            }
        }
        crit[s] = c;
        job_total += job_step[s];
        excess[s] = (double)j->rows[c].step_compute_ns[s] - others_median(j, s, c, tmp);
        count[c] += straggles(excess[s], others_median(j, s, c, tmp));
        if (s == 0 || excess[s] > v->max_gap_ns) {
            v->max_gap_ns = excess[s];
            v->max_gap_step = s + 1;
        }
    }
    int best = 0;
    for (int s = 0; s < j->nsteps; s++) {
        j->rows[crit[s]].critical_steps++;
        j->rows[crit[s]].critical_pct += job_total > 0 ? 100.0 * job_step[s] / job_total : 0;
    }
    for (int i = 1; i < j->n; i++) {
        best = count[i] > count[best] ? i : best;
    }
    v->of_steps = j->nsteps;
    v->steps = count[best];
    if (count[best] > 0) {
        blame(db, j, best, crit, excess, tmp);
    }
    free(crit);
    free(excess);
    free(job_step);
    free(tmp);
    free(count);
}

/* "AllReduce", "AllGather", ... from the comm kernel with the most time. */
static void collective_name(TraceDb* db, char* out, size_t cap) {
    static const char* const names[] = {"AllReduce", "AllGather",  "ReduceScatter", "AllToAll",
                                        "Broadcast", "SendRecv",   "Reduce",        "Gather",
                                        "Scatter",   "all_reduce", "allreduce",     NULL};
    snprintf(out, cap, "collectives");
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        RanksSummary_present(db)
                            /* a reduce of job summaries: their kernel sums, no dispatches */
                            ? "SELECT k.name FROM kernel_summary s JOIN kernel k ON k.id ="
                              " s.kernel_id WHERE k.category = 'comm' ORDER BY s.total_ns DESC,"
                              " k.id LIMIT 1"
                            : "SELECT k.name FROM dispatch d JOIN kernel k ON k.id = d.kernel_id"
                              " WHERE k.category = 'comm' GROUP BY k.id ORDER BY sum(d.dur_ns)"
                              " DESC LIMIT 1",
                        &st, NULL) != DCU_OK) {
        return;
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char* k = (const char*)sqlite3_column_text(st, 0);
        for (int i = 0; names[i] && k; i++) {
            if (strstr(k, names[i])) {
                snprintf(out, cap, "%s", i >= 9 ? "AllReduce" : names[i]);
                break;
            }
        }
    }
    sqlite3_finalize(st);
}

/* 1 for an idle cause that is device idle, by its name. */
static int idle_cause(const char* name) {
    return Idle_causeIsIdle(Idle_causeOf(name));
}

typedef struct {
    const char* label;
    int at; /* its index: a rank's in j->rows, a row's in the idle table */
} LabelAt;

static int by_label(const void* a, const void* b) {
    const LabelAt *x = a, *y = b;
    int c = strcmp(x->label ? x->label : "", y->label ? y->label : "");
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Each rank's idle as `--view idle` counts it (idle.h: kernels, memsets and copies busy),
 * summed over its devices; a run out of scope has none (idle_known 0). */
static DcuStatus idle_of_runs(TraceDb* db, Ranks* j, DcuError* err) {
    ResultSet* rs = NULL;
    DcuStatus s = Idle_view(db, IDLE_CAUSES, &rs, err);
    sqlite3_stmt* st = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT count(*) FROM run_scope WHERE run_id = ?1", &st, err);
    }
    int cr = rs ? ResultSet_columnIndex(rs, "run") : -1;
    int cc = rs ? ResultSet_columnIndex(rs, "cause") : -1;
    int ct = rs ? ResultSet_columnIndex(rs, "total_ns") : -1;
    /* the ranks and the idle rows, each in label order, merged: a folder of 20,000 runs
     * made a search of every row per rank quadratic */
    LabelAt* ranks = xmalloc(sizeof(LabelAt) * (size_t)(j->n ? j->n : 1));
    LabelAt* rows = xmalloc(sizeof(LabelAt) * (size_t)(rs && rs->nrows ? rs->nrows : 1));
    int nrows = 0;
    for (int i = 0; s == DCU_OK && i < j->n; i++) {
        RankRow* r = &j->rows[i];
        sqlite3_bind_int64(st, 1, r->run_id);
        r->idle_known = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
        sqlite3_reset(st);
        r->idle_ns = 0;
        ranks[i] = (LabelAt){r->label, i};
    }
    for (int q = 0; s == DCU_OK && q < rs->nrows; q++) {
        if (idle_cause(ResultSet_cellc(rs, q, cc)->s)) {
            rows[nrows++] = (LabelAt){ResultSet_cellc(rs, q, cr)->s, q};
        }
    }
    if (s == DCU_OK) {
        qsort(ranks, (size_t)j->n, sizeof(LabelAt), by_label);
        qsort(rows, (size_t)nrows, sizeof(LabelAt), by_label);
        for (int i = 0, q = 0; i < j->n; i++) {
            while (q < nrows && strcmp(rows[q].label, ranks[i].label) < 0) {
                q++;
            }
            for (int k = q; k < nrows && strcmp(rows[k].label, ranks[i].label) == 0; k++) {
                j->rows[ranks[i].at].idle_ns += ResultSet_cellc(rs, rows[k].at, ct)->i;
            }
        }
    }
    free(ranks);
    free(rows);
    sqlite3_finalize(st);
    ResultSet_delete(rs);
    return s;
}

/* The job; full: with the rank-waits and idle of the idle module (two more passes over the
 * dispatches), which the straggler's mark (Ranks_storeWaiting) does without. */
enum { BUILD_FULL = 1, BUILD_RANK = 2 }; /* waits and idle; one rank kept whole (ranks.h) */

static DcuStatus build(TraceDb* db, int mode, Ranks** out, DcuError* err) {
    int full = mode & BUILD_FULL, one = mode & BUILD_RANK;
    Ranks* j = xcalloc(1, sizeof(Ranks));
    DcuStatus rc = read_runs(db, j, err);
    IdleWait* w = NULL;
    int64_t nw = 0;
    if (rc == DCU_OK && full && !one && j->n >= 2 && Ranks_isJobDb(db)) { /* no job: no wait */
        rc = Idle_rankWaits(db, &w, &nw, err);
        j->have_waits = nw > 0;
    }
    Timeline* tl = NULL;
    if (rc == DCU_OK) {
        rc = Timeline_newAllRuns(db, &tl, err);
    }
    sqlite3_stmt* disp_st = NULL;
    if (rc == DCU_OK && !(disp_st = prepare_dispatches(db, err))) {
        rc = DCU_ERR_SQL;
    }
    int keep = 0, dist = 1;
    for (int i = 0; rc == DCU_OK && i < j->n; i++) {
        RankRow* r = &j->rows[i];
        int64_t n = 0;
        Disp* d = read_dispatches(disp_st, r->run_id, &n, r);
        if (n == 0) { /* no timed dispatches: not a rank */
            free(d);
            free(r->label);
            continue;
        }
        union_figures(r, d, n);
        fill_steps(db, tl, r, d, n, w, nw, one);
        free(d);
        dist = dist && r->rank >= 0;
        j->rows[keep++] = *r;
    }
    j->n = keep;
    free(w);
    sqlite3_finalize(disp_st);
    Timeline_delete(tl);
    if (rc != DCU_OK) {
        Ranks_delete(j);
        return rc;
    }
    if (dist) {
        j->source = RANK_SRC_DIST;
    } else {
        j->source = j->n >= 2 && Ranks_concurrentDb(db) ? RANK_SRC_PIDGPU : RANK_SRC_UNKNOWN;
        for (int i = 0; i < j->n; i++) {
            j->rows[i].rank = -1;
        }
    }
    qsort(j->rows, (size_t)j->n, sizeof(RankRow), by_rank); /* unknown: GPU, PID order */
    if (j->source == RANK_SRC_PIDGPU) {
        for (int i = 0; i < j->n; i++) {
            j->rows[i].rank = i;
        }
    }
    /* the idle module's pass only for a job: runs that are no job get no verdict and are
     * compared elsewhere (a folder of many runs paid for it in every report) */
    DcuStatus is = full && (one || Ranks_isJob(j)) ? idle_of_runs(db, j, err) : DCU_OK;
    if (is != DCU_OK) {
        Ranks_delete(j);
        return is;
    }
    if (!one) {
        Ranks_judge(db, j);
    }
    *out = j;
    return DCU_OK;
}

void Ranks_judge(TraceDb* db, Ranks* j) {
    collective_name(db, j->verdict.collective, sizeof(j->verdict.collective));
    if (Ranks_isJob(j)) {
        judge(db, j);
    }
    for (int i = 0; i < j->n; i++) { /* no straggler: the per-kernel figures unused */
        free(j->rows[i].ks);
        j->rows[i].ks = NULL;
        j->rows[i].nks = j->rows[i].capks = 0;
    }
}

static DcuStatus from_summaries(TraceDb* db, Ranks** out, DcuError* err) {
    Ranks* j = xcalloc(1, sizeof(Ranks));
    DcuStatus s = RanksSummary_fill(db, j, err);
    if (s != DCU_OK) {
        Ranks_delete(j);
        return s;
    }
    Ranks_judge(db, j);
    *out = j;
    return DCU_OK;
}

DcuStatus Ranks_new(TraceDb* db, Ranks** out, DcuError* err) {
    if (RanksSummary_present(db)) { /* a reduce of job summaries: no dispatches to read */
        return from_summaries(db, out, err);
    }
    return build(db, BUILD_FULL, out, err);
}

DcuStatus Ranks_newRank(TraceDb* db, Ranks** out, DcuError* err) {
    return build(db, BUILD_FULL | BUILD_RANK, out, err);
}

void Ranks_delete(Ranks* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->n; i++) {
        free(this->rows[i].label);
        free(this->rows[i].step_ns);
        free(this->rows[i].step_compute_ns);
        free(this->rows[i].step_comm_ns);
        free(this->rows[i].step_wait_ns);
        free(this->rows[i].ks);
        free(this->rows[i].comm);
    }
    for (int i = 0; i < this->verdict.nkernels; i++) {
        free(this->verdict.kernels[i].name);
        free(this->verdict.kernels[i].short_name);
    }
    free(this->verdict.kernels);
    free(this->rows);
    free(this);
}

int Ranks_isJob(const Ranks* this) {
    return this && this->n >= 2 && this->source != RANK_SRC_UNKNOWN;
}


int Ranks_isWaiting(const Ranks* this) {
    const RankVerdict* v = &this->verdict;
    return Ranks_isJob(this) && v->found && v->comm_ns > 2 * v->straggler_comm_ns;
}

DcuStatus Ranks_storeWaiting(TraceDb* db, DcuError* err) {
    DcuStatus s = TraceDb_exec(db, "DELETE FROM meta WHERE key IN ('wait_category', 'wait_rank')",
                               err);
    if (s != DCU_OK || TraceDb_scalarInt(db, "SELECT count(*) FROM run") < 2 ||
        !Ranks_isJobDb(db)) {
        return s;
    }
    Ranks* j = NULL;
    s = RanksSummary_present(db) ? from_summaries(db, &j, err) : build(db, 0, &j, err);
    if (s == DCU_OK && Ranks_isWaiting(j)) {
        char* sql = xasprintf("INSERT INTO meta(key, value) VALUES ('wait_category', 'comm'),"
                              " ('wait_rank', '%d')",
                              j->rows[j->verdict.straggler].rank);
        s = TraceDb_exec(db, sql, err);
        free(sql);
    }
    Ranks_delete(j);
    return s;
}

const char* Ranks_sourceName(RankSource s) {
    return s == RANK_SRC_DIST ? "distributedInfo" : s == RANK_SRC_PIDGPU ? "pid/gpu" : "unknown";
}

static char* rank_name(const RankRow* r, char* buf, size_t n) {
    if (r->rank >= 0) {
        snprintf(buf, n, "rank %d", r->rank);
    } else {
        snprintf(buf, n, "%s", r->label);
    }
    return buf;
}

#define EXCESS_NAMED 3       /* kernels named in the verdict, at most */
#define EXCESS_NAMED_PCT 5.0 /* after the first, those with this % of the excess or more */

/* ", mostly in K1 (+23.9 ms, +48.7 dispatches), K2 (+0.2 ms) and K3 (+0.1 ms)" (owned; "":
 * no kernel): what the straggler's excess is made of, per step as the excess is. */
static char* excess_text(const RankVerdict* v) {
    if (v->nkernels == 0) {
        return xstrdup("");
    }
    char* t = xstrdup(", mostly in ");
    int named = 1;
    while (named < v->nkernels && named < EXCESS_NAMED &&
           v->kernels[named].excess_ns >= v->excess_ns * EXCESS_NAMED_PCT / 100.0) {
        named++;
    }
    for (int i = 0; i < named; i++) {
        const RankExcess* k = &v->kernels[i];
        char calls[48] = "";
        if (k->calls_excess >= 0.05 || k->calls_excess <= -0.05) {
            snprintf(calls, sizeof(calls), ", %+.1f dispatches", k->calls_excess);
        }
        int last = i + 1 == named;
        char* n = xasprintf("%s%s%s (+%.1f ms%s)", t, i == 0 ? "" : last ? " and " : ", ",
                            k->short_name, k->excess_ns / 1e6, calls);
        free(t);
        t = n;
    }
    return t;
}

char* Ranks_verdictText(const Ranks* this) {
    const RankVerdict* v = &this->verdict;
    if (!Ranks_isJob(this)) {
        return xstrdup(this->n >= 2 ? "No verdict: the runs are not recognised as the ranks of"
                                      " one job (no distributedInfo, not concurrent)."
                                    : "No verdict: fewer than 2 ranks.");
    }
    if (this->nsteps == 0) {
        return xstrdup("No verdict: no steps (no ProfilerStep# annotation and no repeating "
                       "kernel sequence) to compare the ranks by.");
    }
    if (!v->found) {
        return xasprintf("No straggler: in each of %d steps the longest compute is within "
                         "%.0f%% (or %.1f ms) of the other ranks' median (largest excess "
                         "%.1f ms, step %d).",
                         this->nsteps, RANKS_STRAGGLE_PCT, RANKS_STRAGGLE_MIN_NS / 1e6,
                         v->max_gap_ns / 1e6, v->max_gap_step);
    }
    char a[160], b[160], when[64];
    rank_name(&this->rows[v->straggler], a, sizeof(a));
    rank_name(&this->rows[v->waiter], b, sizeof(b));
    if (v->steps == v->of_steps) {
        snprintf(when, sizeof(when), "per step (%d of %d steps)", v->steps, v->of_steps);
    } else if (v->steps == 1) {
        snprintf(when, sizeof(when), "in step %d (1 of %d steps)", v->first_step, v->of_steps);
    } else {
        snprintf(when, sizeof(when), "per straggling step (%d of %d steps, from step %d)",
                 v->steps, v->of_steps, v->first_step);
    }
    const char* per = v->steps == 1 ? "in that step" : "per step";
    char others[96] = "";
    if (this->n > 2) {
        snprintf(others, sizeof(others), "; the other ranks' median: %.1f ms",
                 v->wait_median_ns / 1e6);
    }
    char* why = excess_text(v);
    char* wait = v->wait_known
                     ? xasprintf("%s waits %.1f ms %s in %s (rank-wait: its collectives' "
                                 "time beyond the fastest rank's; %.1f ms in collectives in "
                                 "all%s)",
                                 b, v->wait_ns / 1e6, per, v->collective, v->comm_ns / 1e6,
                                 others)
                     : xasprintf("%s spends %.1f ms %s in %s (its whole collective time: "
                                 "no rank-wait, the collectives were not matched across "
                                 "ranks%s)",
                                 b, v->wait_ns / 1e6, per, v->collective, others);
    char* text = xasprintf(
        "Straggler: %s computes %.1f ms more %s%s; %s. %s", a, v->excess_ns / 1e6, when, why,
        wait,
        Ranks_isWaiting(this) ? "That communication time is mostly waiting for the straggler, "
                                "not a communication cost to optimise: shorten or rebalance "
                                "the straggler's compute."
                              : "Shorten or rebalance the straggler's compute.");
    free(why);
    free(wait);
    return text;
}
