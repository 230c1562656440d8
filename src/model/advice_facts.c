/* advice_facts.c - see advice_facts.h. */
#include "advice_facts.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

static void drop_parts(AdvFacts* f) {
    for (int i = 0; i < f->nkernels; i++) {
        free(f->kernels[i].name);
        free(f->kernels[i].short_name);
        free(f->kernels[i].category);
    }
    for (int i = 0; i < f->ncats; i++) {
        free(f->cats[i].name);
    }
    free(f->kernels);
    free(f->cats);
    f->kernels = NULL;
    f->cats = NULL;
    f->nkernels = f->ncats = 0;
}

void AdvFacts_done(AdvFacts* f) {
    drop_parts(f);
}

/* Kernel time from the views' total_ns, never their pct: the pct follows the w key's basis,
 * and the "GPU idle" row that basis adds to the categories is no category. */
void AdvFacts_fromViews(AdvFacts* f, const ResultSet* categories, const ResultSet* hotspots,
                        const Timeline* tl) {
    const ResultSet* c = categories;
    f->cats = xcalloc((size_t)(c ? c->nrows : 0) + 1, sizeof(AdvCategory));
    int64_t sum = 0;
    for (int r = c ? c->pinned : 0; c && r < c->nrows; r++) {
        if (strcmp(ResultSet_textOf(c, r, "group"), "idle") == 0 ||
            ResultSet_intOf(c, r, "total_ns") <= 0) {
            continue;
        }
        AdvCategory* a = &f->cats[f->ncats++];
        a->name = xstrdup(ResultSet_textOf(c, r, "category"));
        a->ns = ResultSet_intOf(c, r, "total_ns");
        a->calls = ResultSet_intOf(c, r, "calls");
        a->kernels = ResultSet_intOf(c, r, "kernels");
        sum += a->ns;
    }
    const ResultSet* h = hotspots;
    f->kernels = xcalloc((size_t)(h ? h->nrows : 0) + 1, sizeof(AdvKernel));
    for (int r = 0; h && r < h->nrows; r++) {
        AdvKernel* k = &f->kernels[f->nkernels++];
        k->name = xstrdup(ResultSet_textOf(h, r, "name"));
        k->short_name = xstrdup(ResultSet_textOf(h, r, "short_name"));
        k->category = xstrdup(ResultSet_textOf(h, r, "category"));
        k->ns = ResultSet_intOf(h, r, "total_ns");
        k->calls = ResultSet_intOf(h, r, "calls");
    }
    f->kernel_ns = f->totals.kernel_ns > 0 ? f->totals.kernel_ns : sum;
    const TimelineSummary* t = f->tl;
    f->wall_basis = t && t->available && t->wall_ns > 0;
    if (f->wall_basis) {
        f->wall_ns = (double)t->wall_ns;
        f->kdenom = (double)Timeline_basisNs(tl, AMDAHL_BASIS_WALL);
        f->short_ns = t->short_ns;
        f->short_n = t->short_dispatches;
        f->dispatches = t->dispatches;
        f->idle_ns = t->idle_ns;
        f->copy_h2d = t->steady_h2d;
        f->copy_d2h = t->steady_d2h;
    }
    for (int r = 0; f->copies && r < f->copies->nrows; r++) {
        const char* dir = ResultSet_textOf(f->copies, r, "direction");
        if (strcmp(dir, "H2D") == 0 || strcmp(dir, "D2H") == 0) {
            f->copy_ns += ResultSet_intOf(f->copies, r, "steady_ns");
        }
    }
    if (f->idle) {
        memcpy(f->cause_ns, f->idle->ns, sizeof(f->cause_ns));
        memcpy(f->cause_n, f->idle->count, sizeof(f->cause_n));
        memcpy(f->host, f->idle->host, sizeof(f->host));
        memcpy(f->host_ns, f->idle->host_ns, sizeof(f->host_ns));
        f->explained = f->idle->explained;
    }
}

static const RankRow* critical_rank(const Ranks* r) {
    const RankRow* best = NULL;
    for (int i = 0; i < r->n; i++) {
        const RankRow* w = &r->rows[i];
        if (!best || w->critical_pct > best->critical_pct ||
            (w->critical_pct == best->critical_pct && w->wall_ns > best->wall_ns)) {
            best = w;
        }
    }
    return best;
}

/* The critical rank's kernels, its own timed dispatches only (?1 = its run). */
static const char* const rank_kernels_sql =
    "SELECT k.name, coalesce(k.short_name, k.name), coalesce(k.category, 'other'), count(*),"
    " total(d.dur_ns), count(CASE WHEN d.dur_ns < ?2 THEN 1 END),"
    " total(CASE WHEN d.dur_ns < ?2 THEN d.dur_ns END)"
    " FROM dispatch d JOIN kernel k ON k.id = d.kernel_id"
    " WHERE d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL AND d.file_id IN"
    " (SELECT sl.file_id FROM source_layer sl JOIN source_file f ON f.id = sl.file_id"
    "  WHERE sl.used AND sl.layer = 'kernel' AND f.run_id = ?1)"
    " GROUP BY k.id ORDER BY 5 DESC, k.name";

static int read_rank_kernels(AdvFacts* f, TraceDb* db, int64_t run) {
    sqlite3_stmt* st = NULL;
    DcuError e;
    if (TraceDb_prepare(db, rank_kernels_sql, &st, &e) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, TIMELINE_SHORT_NS);
    drop_parts(f);
    int cap = 0;
    f->kernel_ns = f->short_ns = f->short_n = f->dispatches = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (f->nkernels == cap) {
            cap = cap ? 2 * cap : 64;
            f->kernels = xrealloc(f->kernels, sizeof(AdvKernel) * (size_t)cap);
        }
        AdvKernel* k = &f->kernels[f->nkernels++];
        k->name = xstrdup((const char*)sqlite3_column_text(st, 0));
        k->short_name = xstrdup((const char*)sqlite3_column_text(st, 1));
        k->category = xstrdup((const char*)sqlite3_column_text(st, 2));
        k->calls = sqlite3_column_int64(st, 3);
        k->ns = (int64_t)sqlite3_column_double(st, 4);
        f->dispatches += k->calls;
        f->kernel_ns += k->ns;
        f->short_n += sqlite3_column_int64(st, 5);
        f->short_ns += (int64_t)sqlite3_column_double(st, 6);
    }
    sqlite3_finalize(st);
    /* its categories, largest first */
    f->cats = xcalloc((size_t)f->nkernels + 1, sizeof(AdvCategory));
    for (int i = 0; i < f->nkernels; i++) {
        const AdvKernel* k = &f->kernels[i];
        int j = 0;
        while (j < f->ncats && strcmp(f->cats[j].name, k->category) != 0) {
            j++;
        }
        if (j == f->ncats) {
            f->cats[f->ncats++].name = xstrdup(k->category);
        }
        f->cats[j].ns += k->ns;
        f->cats[j].calls += k->calls;
        f->cats[j].kernels++;
    }
    for (int i = 1; i < f->ncats; i++) { /* few categories: insertion sort */
        AdvCategory c = f->cats[i];
        int j = i - 1;
        for (; j >= 0 && f->cats[j].ns < c.ns; j--) {
            f->cats[j + 1] = f->cats[j];
        }
        f->cats[j + 1] = c;
    }
    return f->nkernels > 0;
}

/* The critical rank's host<->device copies after its first iteration (the timeline's cut of
 * each file, temp.timeline_cut, as its steady-state copies are counted). */
static void read_rank_copies(AdvFacts* f, TraceDb* db, const RankRow* w) {
    sqlite3_stmt* st = NULL;
    DcuError e;
    f->copy_ns = f->copy_h2d = f->copy_d2h = 0;
    if (TraceDb_prepare(db,
                        "SELECT regexp('(?i)HtoD|HostToDevice|H2D|HOST_TO_DEVICE', c.name),"
                        " count(*), total(c.dur_ns) FROM copy c"
                        " JOIN temp.timeline_cut k ON k.file_id = c.file_id"
                        " JOIN source_file f ON f.id = c.file_id"
                        " WHERE c.start_ns >= k.cut_ns AND f.run_id = ?1"
                        "  AND c.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"
                        "  AND (regexp('(?i)HtoD|HostToDevice|H2D|HOST_TO_DEVICE', c.name)"
                        "   OR regexp('(?i)DtoH|DeviceToHost|D2H|DEVICE_TO_HOST', c.name))"
                        " GROUP BY 1",
                        &st, &e) != DCU_OK) {
        return;
    }
    sqlite3_bind_int64(st, 1, w->run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        *(sqlite3_column_int(st, 0) ? &f->copy_h2d : &f->copy_d2h) += sqlite3_column_int64(st, 1);
        f->copy_ns += (int64_t)sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
}

/* The critical rank's largest host activities per cause: its gap rows' host time summed by
 * activity. */
static void read_rank_hosts(AdvFacts* f, TraceDb* db, const RankRow* w) {
    ResultSet* rs = NULL;
    DcuError e;
    memset(f->host, 0, sizeof(f->host));
    memset(f->host_ns, 0, sizeof(f->host_ns));
    if (Idle_view(db, IDLE_GAPS, &rs, &e) != DCU_OK) {
        return;
    }
    struct { int cause; const char* name; int64_t ns; }* acc = NULL;
    int n = 0, cap = 0;
    for (int r = 0; r < rs->nrows; r++) {
        if (strcmp(ResultSet_textOf(rs, r, "run"), w->label) != 0) {
            continue;
        }
        int c = (int)Idle_causeOf(ResultSet_textOf(rs, r, "cause"));
        const char* h = ResultSet_textOf(rs, r, "host_activity");
        int j = 0;
        while (j < n && !(acc[j].cause == c && strcmp(acc[j].name, h) == 0)) {
            j++;
        }
        if (j == n) {
            if (n == cap) { /* doubled: a rank may hold thousands of gap rows */
                cap = cap ? 2 * cap : 16;
                acc = xrealloc(acc, sizeof(*acc) * (size_t)cap);
            }
            acc[n].cause = c;
            acc[n].name = h;
            acc[n++].ns = 0;
        }
        acc[j].ns += ResultSet_intOf(rs, r, "host_ns");
    }
    for (int j = 0; j < n; j++) { /* keep the largest IDLE_SUMMARY_HOSTS per cause */
        int c = acc[j].cause;
        for (int k = 0; c < IDLE_CAUSE_COUNT && k < IDLE_SUMMARY_HOSTS; k++) {
            if (acc[j].ns > f->host_ns[c][k]) {
                for (int m = IDLE_SUMMARY_HOSTS - 1; m > k; m--) {
                    f->host_ns[c][m] = f->host_ns[c][m - 1];
                    memcpy(f->host[c][m], f->host[c][m - 1], sizeof(f->host[c][m]));
                }
                f->host_ns[c][k] = acc[j].ns;
                snprintf(f->host[c][k], sizeof(f->host[c][k]), "%s", acc[j].name);
                break;
            }
        }
    }
    free(acc);
    ResultSet_delete(rs);
}

/* The critical rank's idle time by cause (the idle view's rows of its run). */
static void read_rank_idle(AdvFacts* f, TraceDb* db, const RankRow* w) {
    ResultSet* rs = NULL;
    DcuError e;
    memset(f->cause_ns, 0, sizeof(f->cause_ns));
    memset(f->cause_n, 0, sizeof(f->cause_n));
    f->idle_ns = 0;
    if (Idle_view(db, IDLE_CAUSES, &rs, &e) != DCU_OK) {
        return;
    }
    for (int r = 0; r < rs->nrows; r++) {
        if (strcmp(ResultSet_textOf(rs, r, "run"), w->label) != 0) {
            continue;
        }
        IdleCause c = Idle_causeOf(ResultSet_textOf(rs, r, "cause"));
        if (c < IDLE_CAUSE_COUNT) {
            f->cause_ns[c] += ResultSet_intOf(rs, r, "total_ns");
            f->cause_n[c] += ResultSet_intOf(rs, r, "gaps");
            f->idle_ns += Idle_causeIsIdle(c) ? ResultSet_intOf(rs, r, "total_ns") : 0;
        }
    }
    ResultSet_delete(rs);
}

int AdvFacts_fromCriticalRank(AdvFacts* f, TraceDb* db, const Timeline* tl) {
    const RankRow* w = f->ranks ? critical_rank(f->ranks) : NULL;
    int64_t wall = 0; /* its wall as the timeline and the idle view count it (memsets and
                       * copies at its ends included), else the span of its kernels */
    for (int i = 0; w && i < Timeline_runCount(tl); i++) {
        int64_t id = 0;
        const TimelineSummary* rs = Timeline_runSummary(tl, i, &id);
        if (id == w->run_id && rs) {
            wall = rs->wall_ns;
        }
    }
    if (w && wall <= 0) {
        wall = w->wall_ns;
    }
    if (!w || wall <= 0 || !read_rank_kernels(f, db, w->run_id)) {
        return 0;
    }
    f->crit = w;
    f->wall_basis = 1;
    f->wall_ns = (double)wall;
    /* its kernels' union (ranks.h busy) scales kernel time as the run's basis does */
    f->kdenom = w->busy_ns > 0 && f->kernel_ns > w->busy_ns
                    ? (double)wall * (double)f->kernel_ns / (double)w->busy_ns
                    : (double)wall;
    read_rank_idle(f, db, w);
    read_rank_hosts(f, db, w);
    read_rank_copies(f, db, w);
    return 1;
}
