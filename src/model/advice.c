/* advice.c - see advice.h. The facts come from the views every screen already shows
 * (categories, hotspots, the timeline); each rule of the table turns them into
 * opportunities; the caps then limit what the ranking may claim. */
#include "dcutop/advice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/amdahl.h"
#include "dcutop/idle.h"
#include "dcutop/query.h"
#include "dcutop/ranks.h"
#include "dcutop/runs.h"
#include "dcutop/shortname.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"

#define MIN_SHARE 0.05          /* parts under 5% of their basis are not worth a line */
#define KERNEL_MIN_SHARE 0.15   /* one kernel gets its own line from 15% of kernel time */
#define COLD_RATIO_WARN 1.5     /* a first iteration this much longer distorts the totals */

/* "825.0 ms" (the model does not link the view's formatting; as stacks.c) */
static void dur_text(char* buf, size_t cap, int64_t ns) {
    int64_t a = ns < 0 ? -ns : ns;
    if (a >= 1000000000LL) {
        snprintf(buf, cap, "%.2f s", (double)ns / 1e9);
    } else if (a >= 1000000LL) {
        snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
    } else if (a >= 1000LL) {
        snprintf(buf, cap, "%.1f us", (double)ns / 1e3);
    } else {
        snprintf(buf, cap, "%lld ns", (long long)ns);
    }
}

/* What the rules read; borrowed views, any may be NULL. */
typedef struct {
    Totals totals;
    const ResultSet* categories;
    const ResultSet* hotspots;
    const TimelineSummary* tl; /* NULL or available == 0: no per-dispatch timestamps */
    const ResultSet* shorts;   /* TL_SHORT, per kernel */
    const ResultSet* copies;   /* TL_COPIES */
    double variability_pct;    /* hook for issue #6: NAN until the model has the figure */
    const Ranks* ranks;        /* the runs as ranks of one job; NULL with fewer than 2 runs */
    const IdleSummary* idle;   /* idle time by cause; NULL without per-dispatch times */
} Facts;

typedef struct {
    AdviceList* list;
    int cap;
} Sink;

static const RsCell* cell(const ResultSet* rs, int r, const char* key) {
    int c = rs ? ResultSet_columnIndex(rs, key) : -1;
    return c >= 0 ? ResultSet_cellc(rs, r, c) : NULL;
}

static const char* text(const ResultSet* rs, int r, const char* key) {
    const RsCell* c = cell(rs, r, key);
    return c && !c->null && c->s ? c->s : "";
}

static int64_t ival(const ResultSet* rs, int r, const char* key) {
    const RsCell* c = cell(rs, r, key);
    return c && !c->null ? c->i : 0;
}

static Advice* add(Sink* k, AdviceKind kind, const char* rule, const char* layer,
                   const char* basis, double share) {
    AdviceList* l = k->list;
    if (l->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 16;
        l->items = xrealloc(l->items, sizeof(Advice) * (size_t)k->cap);
    }
    Advice* a = &l->items[l->n++];
    memset(a, 0, sizeof(*a));
    a->kind = kind;
    a->rule = rule;
    a->layer = layer;
    a->basis = basis;
    a->share = share;
    a->ceiling = Amdahl_ceiling(share);
    a->wall_ceiling = NAN;
    a->cause = -1;
    return a;
}

/* ---- the rules -------------------------------------------------------------------------- */

static const struct {
    const char* category;
    const char* why;
} category_why[] = {
    {"copy", "layout changes and materialized intermediates: fuse them into their producer or "
             "consumer, keep tensors contiguous"},
    {"gemm", "matrix multiplies: better shapes, batching, precision or a faster library path"},
    {"elementwise", "one memory pass per op: fuse chains of elementwise ops (bias + activation)"},
    {"softmax", "memory-bound: fuse into attention (flash attention) or with its neighbours"},
    {"norm", "memory-bound: fuse with the residual add or the next op"},
    {"reduce", "memory-bound: fuse with the producer, or reduce less often"},
    {"index", "gathers and scatters: avoid materialising indexed copies"},
    {"attention", "use a fused attention kernel at the right head size"},
    {"conv", "check algorithm choice (benchmark mode) and data layout"},
    {"optimizer", "use a fused (multi-tensor) optimizer step"},
    {"comm", "collectives: overlap them with compute (bucketing), or communicate less"},
    {"memcpy", "device copies: keep data where it is used, avoid staging buffers"},
    {"random", "random number generation: generate once, or fuse it (dropout)"},
    {"sort", "sorts and scans: avoid them in the loop, or use a segmented variant"},
    {"other", "kernels no category rule matched: add a rule to see what they are"},
};

static const char* why_for(const char* category) {
    for (size_t i = 0; i < sizeof(category_why) / sizeof(category_why[0]); i++) {
        if (strcmp(category_why[i].category, category) == 0) {
            return category_why[i].why;
        }
    }
    return "the largest share of device kernel time in one family of kernels";
}

/* Categories: Amdahl over device kernel time, with their two largest kernels as evidence. */
static void rule_category(const Facts* f, Sink* k) {
    const ResultSet* c = f->categories;
    for (int r = c ? c->pinned : 0; c && r < c->nrows; r++) {
        const char* name = text(c, r, "category");
        double p = cell(c, r, "pct") ? cell(c, r, "pct")->d / 100.0 : 0;
        if (p < MIN_SHARE) {
            continue;
        }
        char names[3][64] = {"", "", ""};
        int nn = 0; /* its largest kernels, by a word each: "direct_copy, roll_cuda" */
        for (int h = 0; f->hotspots && h < f->hotspots->nrows && nn < 3; h++) {
            if (strcmp(text(f->hotspots, h, "category"), name) == 0) {
                ShortName_label(text(f->hotspots, h, "short_name"), names[nn], sizeof(names[0]));
                int dup = 0;
                for (int j = 0; j < nn; j++) {
                    dup |= strcmp(names[j], names[nn]) == 0;
                }
                if (dup) {
                    names[nn][0] = '\0';
                } else {
                    nn++;
                }
            }
        }
        Advice* a = add(k, ADV_CATEGORY, "category", "device kernels", "kernel time", p);
        snprintf(a->what, sizeof(a->what), "%s kernels (%s%s%s%s%s)", name, names[0],
                 nn > 1 ? ", " : "", names[1], nn > 2 ? ", " : "", names[2]);
        char t[32];
        dur_text(t, sizeof(t), ival(c, r, "total_ns"));
        snprintf(a->evidence, sizeof(a->evidence), "%s in %lld dispatches of %lld kernel%s", t,
                 (long long)ival(c, r, "calls"), (long long)ival(c, r, "kernels"),
                 ival(c, r, "kernels") == 1 ? "" : "s");
        snprintf(a->why, sizeof(a->why), "%s", why_for(name));
        snprintf(a->target, sizeof(a->target), "%s", name);
    }
}

static double category_share(const Facts* f, const char* category) {
    const ResultSet* c = f->categories;
    for (int r = c ? c->pinned : 0; c && r < c->nrows; r++) {
        if (strcmp(text(c, r, "category"), category) == 0) {
            return cell(c, r, "pct") ? cell(c, r, "pct")->d / 100.0 : 0;
        }
    }
    return 0;
}

/* One kernel large enough to be a target of its own. */
static void rule_kernel(const Facts* f, Sink* k) {
    const ResultSet* h = f->hotspots;
    for (int r = 0; h && r < h->nrows && r < 3; r++) {
        double p = cell(h, r, "pct") ? cell(h, r, "pct")->d / 100.0 : 0;
        if (p < KERNEL_MIN_SHARE) {
            break;
        }
        if (category_share(f, text(h, r, "category")) * 0.8 <= p) {
            continue; /* the kernel is most of its category: the category's line says it */
        }
        Advice* a = add(k, ADV_KERNEL, "kernel", "device kernels", "kernel time", p);
        ShortName_fit(text(h, r, "short_name"), NULL, 60, a->what, sizeof(a->what));
        char t[32], avg[32];
        dur_text(t, sizeof(t), ival(h, r, "total_ns"));
        const RsCell* av = cell(h, r, "avg_ns");
        dur_text(avg, sizeof(avg), av && !av->null ? (int64_t)av->d : 0);
        snprintf(a->evidence, sizeof(a->evidence), "%s in %lld calls, %s each on average", t,
                 (long long)ival(h, r, "calls"), avg);
        snprintf(a->why, sizeof(a->why), "one kernel holds %.0f%% of device time: look at "
                 "its shape, launch count and the op that calls it", 100 * p);
        snprintf(a->target, sizeof(a->target), "%s", text(h, r, "name"));
    }
}

/* The fix class of each idle cause: what removes that kind of idle time. */
static const char* const idle_why[IDLE_CAUSE_COUNT] = {
    [IDLE_HOST_BOUND] = "the host launched late: move work off the host loop (data loading, "
                        "Python, host copies) to workers or another thread, or capture the "
                        "loop in a CUDA/HIP graph",
    [IDLE_LAUNCH_OVERHEAD] = "kernels were queued but wait on the launch path: capture them in "
                             "CUDA/HIP graphs or fuse the small kernels",
    [IDLE_SYNC] = "the host blocked on a synchronisation (.item(), .cpu(), a blocking copy): "
                  "remove or defer the sync, or overlap the copy (non_blocking, pinned memory)",
    [IDLE_UNKNOWN] = "no host layer says why: synchronisations, data loading, Python overhead; "
                     "profile the host (CPU ops, API calls) to split it",
};

/* "aten::to and Python": the largest host activities of a cause (untraced named so). */
static void idle_hosts(const IdleSummary* s, int k, char* buf, size_t cap) {
    buf[0] = '\0';
    for (int j = 0; j < IDLE_SUMMARY_HOSTS && s->host_ns[k][j] > 0; j++) {
        char nm[64];
        const char* h = s->host[k][j];
        if (strcmp(h, "(untraced)") == 0) {
            snprintf(nm, sizeof(nm), "untraced host code");
        } else {
            ShortName_fit(h, NULL, 28, nm, sizeof(nm));
        }
        size_t l = strlen(buf);
        snprintf(buf + l, cap - l, "%s%s", j ? " and " : "", nm);
    }
}

/* One cause of GPU idle as an opportunity over wall time. */
static void idle_cause(const Facts* f, Sink* k, int c, double p) {
    const IdleSummary* s = f->idle;
    Advice* a = add(k, ADV_IDLE, "idle", "timeline + host", "wall time", p);
    a->cause = c;
    char t[32], i[32], g[32], hosts[160];
    dur_text(t, sizeof(t), s->ns[c]);
    dur_text(i, sizeof(i), s->idle_ns);
    idle_hosts(s, c, hosts, sizeof(hosts));
    if (c == IDLE_UNKNOWN) {
        snprintf(a->what, sizeof(a->what), "GPU idle, cause unknown");
    } else {
        snprintf(a->what, sizeof(a->what), "GPU idle, %s%s%s", Idle_causeName(c),
                 hosts[0] ? ": mostly in " : "", hosts);
    }
    const IdleGap* lg = &s->largest[c];
    dur_text(g, sizeof(g), lg->gap_ns);
    char nm[64] = "the end of its run";
    if (lg->next[0]) {
        ShortName_fit(lg->next, NULL, 32, nm, sizeof(nm));
    }
    snprintf(a->evidence, sizeof(a->evidence),
             "%s %s in %lld gaps of %s GPU idle; largest %s before %s", Idle_causeName(c), t,
             (long long)s->count[c], i, g, nm);
    snprintf(a->why, sizeof(a->why), "%s", idle_why[c]);
    snprintf(a->target, sizeof(a->target), "%s", lg->next);
}

/* GPU idle: device wall minus the union of kernel intervals per device (never summed over
 * streams), so the ceilings are over wall time. With a host layer, one opportunity per cause
 * of 5% or more of the wall (idle.h); else, or when no cause reaches it, idle as one. */
static void rule_idle(const Facts* f, Sink* k) {
    const TimelineSummary* t = f->tl;
    if (!t || !t->available || t->wall_ns <= 0) {
        return;
    }
    double p = (double)t->idle_ns / (double)t->wall_ns;
    if (p < MIN_SHARE) {
        return;
    }
    int split = 0;
    for (int c = 0; f->idle && f->idle->explained && c < IDLE_CAUSE_COUNT; c++) {
        double q = (double)f->idle->ns[c] / (double)t->wall_ns;
        if (Idle_causeIsIdle((IdleCause)c) && q >= MIN_SHARE) {
            idle_cause(f, k, c, q);
            split++;
        }
    }
    if (split) {
        return;
    }
    Advice* a = add(k, ADV_IDLE, "idle", "timeline", "wall time", p);
    char i[32], w[32], g[32] = "";
    dur_text(i, sizeof(i), t->idle_ns);
    dur_text(w, sizeof(w), t->wall_ns);
    snprintf(a->what, sizeof(a->what), "GPU idle and launch gaps");
    const IdleGap* top = f->idle && f->idle->ntop > 0 ? &f->idle->top[0] : NULL;
    if (top) {
        dur_text(g, sizeof(g), top->gap_ns);
        char nm[64] = "the end of its run";
        if (top->next[0]) {
            ShortName_fit(top->next, NULL, 32, nm, sizeof(nm));
        }
        snprintf(a->evidence, sizeof(a->evidence),
                 "idle %s of %s device wall (union of kernels per device); largest gap %s "
                 "before %s", i, w, g, nm);
        snprintf(a->target, sizeof(a->target), "%s", top->next);
    } else {
        snprintf(a->evidence, sizeof(a->evidence),
                 "idle %s of %s device wall (union of kernels per device)", i, w);
    }
    if (f->idle && f->idle->explained) { /* causes each under 5%: say them */
        const char* sep = "; ";
        for (int c = 0; c < IDLE_CAUSE_COUNT; c++) {
            size_t l = strlen(a->evidence);
            if (Idle_causeIsIdle((IdleCause)c) && f->idle->ns[c] > 0) {
                dur_text(g, sizeof(g), f->idle->ns[c]);
                snprintf(a->evidence + l, sizeof(a->evidence) - l, "%s%s %s", sep,
                         Idle_causeName(c), g);
                sep = ", ";
            }
        }
    }
    snprintf(a->why, sizeof(a->why), "the GPU waits for the host: synchronisations, data "
             "loading, Python overhead; overlap them or capture graphs");
}

/* Launch-bound: many short dispatches holding a high share of kernel time. */
static void rule_launch(const Facts* f, Sink* k) {
    const TimelineSummary* t = f->tl;
    if (!t || !t->available || !Timeline_isLaunchBound(t->short_count_pct, t->short_time_pct)) {
        return;
    }
    double p = t->short_time_pct / 100.0;
    Advice* a = add(k, ADV_LAUNCH, "launch", "timeline", "kernel time", p);
    snprintf(a->what, sizeof(a->what), "launch-bound kernels (dispatches under 10 us)");
    snprintf(a->evidence, sizeof(a->evidence),
             "%lld of %lld dispatches (%.0f%%) under 10 us hold %.1f%% of kernel time",
             (long long)t->short_dispatches, (long long)t->dispatches, t->short_count_pct,
             t->short_time_pct);
    snprintf(a->why, sizeof(a->why), "launch overhead rivals the work: fuse the tiny kernels "
             "or capture the loop in a graph");
    const ResultSet* s = f->shorts; /* the kernel with the most short time is the target */
    int best = -1;
    for (int r = 0; s && r < s->nrows; r++) {
        if (best < 0 || ival(s, r, "short_ns") > ival(s, best, "short_ns")) {
            best = r;
        }
    }
    if (best >= 0) {
        snprintf(a->target, sizeof(a->target), "%s", text(s, best, "name"));
    }
}

/* Host<->device copies inside the steady-state loop (synchronous copies stall the GPU). */
static void rule_copies(const Facts* f, Sink* k) {
    const TimelineSummary* t = f->tl;
    if (!t || !t->available || t->steady_h2d + t->steady_d2h == 0 || t->wall_ns <= 0) {
        return;
    }
    int64_t ns = 0;
    for (int r = 0; f->copies && r < f->copies->nrows; r++) {
        const char* dir = text(f->copies, r, "direction");
        if (strcmp(dir, "H2D") == 0 || strcmp(dir, "D2H") == 0) {
            ns += ival(f->copies, r, "steady_ns");
        }
    }
    double p = (double)ns / (double)t->wall_ns;
    Advice* a = add(k, ADV_COPIES, "copies", "timeline + copies", "wall time", p);
    char c[32];
    dur_text(c, sizeof(c), ns);
    snprintf(a->what, sizeof(a->what), "host<->device copies inside the loop");
    snprintf(a->evidence, sizeof(a->evidence), "%lld H2D and %lld D2H copies in the steady "
             "state, %s", (long long)t->steady_h2d, (long long)t->steady_d2h, c);
    snprintf(a->why, sizeof(a->why), "each synchronous copy stalls the GPU: keep data on the "
             "device, or copy asynchronously from pinned memory");
}

/* Hook for run-to-run variability (issue #6): when the model has a variability figure (the
 * spread of repeated runs or iterations, %), a large spread means comparisons need more
 * repeats before any optimisation can be trusted. Fires nothing while it is NAN. */
static void rule_variability(const Facts* f, Sink* k) {
    if (isnan(f->variability_pct) || f->variability_pct < 5.0) {
        return;
    }
    Advice* a = add(k, ADV_VARIABILITY, "variability", "runs", "wall time",
                    f->variability_pct / 100.0);
    a->ceiling = NAN;
    snprintf(a->what, sizeof(a->what), "run-to-run variability");
    snprintf(a->evidence, sizeof(a->evidence), "spread %.1f%%", f->variability_pct);
    snprintf(a->why, sizeof(a->why), "noise this large hides gains: repeat runs (A-B-B-A)");
}

/* A straggler rank (issue 15): the others wait in collectives for it, so its extra compute
 * per step is what the job loses; the waiting is never a communication cost to optimise.
 * Share of the job's step time (the longest mean step of any rank). */
static void rule_straggler(const Facts* f, Sink* k) {
    const Ranks* r = f->ranks;
    if (!r || !Ranks_isJob(r) || !r->verdict.found) {
        return;
    }
    double step = 0; /* the job's step: the longest mean step of any rank */
    for (int i = 0; i < r->n; i++) {
        const RankRow* w = &r->rows[i];
        double sum = 0;
        for (int j = 0; j < w->nsteps; j++) {
            sum += (double)w->step_ns[j];
        }
        if (w->nsteps > 0 && sum / w->nsteps > step) {
            step = sum / w->nsteps;
        }
    }
    if (step <= 0 || r->verdict.excess_ns <= 0) {
        return;
    }
    double p = r->verdict.excess_ns / (double)step;
    Advice* a = add(k, ADV_STRAGGLER, "straggler", "ranks", "step time", p < 1 ? p : 0.99);
    const RankRow* s = &r->rows[r->verdict.straggler];
    snprintf(a->what, sizeof(a->what), "straggler rank %d (%s)", s->rank, s->label);
    char* v = Ranks_verdictText(r);
    snprintf(a->evidence, sizeof(a->evidence), "%s", v ? v : "");
    free(v);
    snprintf(a->why, sizeof(a->why), "balance its work: the other ranks wait for it in "
             "collectives (that wait is not a communication cost to optimise)");
    snprintf(a->target, sizeof(a->target), "%s", s->label); /* Summary: Ranks on this run */
    /* the comm category is mostly that wait: it is not a cost to optimise */
    for (int i = 0; i < k->list->n; i++) {
        Advice* c = &k->list->items[i];
        if (c->kind == ADV_CATEGORY && strncmp(c->what, "comm ", 5) == 0) {
            c->ceiling = NAN;
            snprintf(c->why, sizeof(c->why), "mostly waiting for straggler rank %d in "
                     "collectives: not a communication cost to optimise", s->rank);
        }
    }
}

/* The rule table: every opportunity dcutop weighs. */
static const struct {
    const char* name;
    void (*fn)(const Facts* f, Sink* k);
} rules[] = {
    {"category", rule_category}, {"kernel", rule_kernel},   {"idle", rule_idle},
    {"launch", rule_launch},     {"copies", rule_copies},   {"variability", rule_variability},
    {"straggler", rule_straggler},
};

/* ---- caps --------------------------------------------------------------------------------- */

static void warn(AdviceList* l, const char* text) {
    if (l->nwarn < 4) {
        snprintf(l->warnings[l->nwarn++], sizeof(l->warnings[0]), "%s", text);
    }
}

static void apply_caps(const Facts* f, AdviceList* l) {
    if (f->totals.pmc) {
        warn(l, "PMC run: kernel times are instrumented, not performance; ceilings are not "
                "claimed and the list is ranked by share only");
        for (int i = 0; i < l->n; i++) {
            l->items[i].ceiling = NAN;
        }
    }
    if (!f->tl || !f->tl->available) {
        warn(l, "Aggregated stats only: no wall basis, so GPU idle, launch gaps and copies in "
                "the loop cannot be weighed");
    }
    if (f->tl && f->tl->available && f->tl->cold_ratio >= COLD_RATIO_WARN) {
        char w[160];
        snprintf(w, sizeof(w), "Cold start: the first iteration spans %.1fx the steady ones and "
                 "is in these totals; ceilings are approximate", f->tl->cold_ratio);
        warn(l, w);
        for (int i = 0; i < l->n; i++) {
            l->items[i].capped = 1;
        }
    }
}

/* A kernel-time part's ceiling on the device wall time: its kernel time, at most the busy
 * time (concurrent kernels), over the wall. Added to its evidence, since the list is ranked
 * by it. */
static void wall_ceilings(const Facts* f, AdviceList* l) {
    const TimelineSummary* t = f->tl;
    if (!t || !t->available || t->wall_ns <= 0) {
        return;
    }
    for (int i = 0; i < l->n; i++) {
        Advice* a = &l->items[i];
        if (strcmp(a->basis, "kernel time") != 0 || isnan(a->ceiling)) {
            continue;
        }
        double part = a->share * (double)t->kernel_ns;
        part = part < (double)t->busy_ns ? part : (double)t->busy_ns;
        a->wall_ceiling = Amdahl_ceiling(part / (double)t->wall_ns);
        size_t n = strlen(a->evidence);
        snprintf(a->evidence + n, sizeof(a->evidence) - n, "; on wall time at most %.2fx",
                 a->wall_ceiling);
    }
}

static int cmp_advice(const void* x, const void* y) {
    const Advice* a = x;
    const Advice* b = y;
    double ka = !isnan(a->wall_ceiling) ? a->wall_ceiling : isnan(a->ceiling) ? a->share
                                                                              : a->ceiling;
    double kb = !isnan(b->wall_ceiling) ? b->wall_ceiling : isnan(b->ceiling) ? b->share
                                                                              : b->ceiling;
    if (ka != kb) {
        return ka > kb ? -1 : 1;
    }
    return a->kind - b->kind;
}

DcuStatus Advice_build(TraceDb* db, AdviceList** out, DcuError* err) {
    Facts f;
    memset(&f, 0, sizeof(f));
    f.variability_pct = NAN;
    ResultSet* own[5] = {NULL};
    Timeline* tl = NULL;
    DcuStatus s = Query_totals(db, &f.totals, err);
    if (s == DCU_OK) {
        s = Query_view(db, VIEW_CATEGORIES, NULL, &own[0], err);
    }
    if (s == DCU_OK) {
        s = Query_view(db, VIEW_HOTSPOTS, NULL, &own[1], err);
    }
    if (s == DCU_OK) {
        s = Timeline_new(db, &tl, err);
    }
    if (s != DCU_OK) {
        for (int i = 0; i < 5; i++) {
            ResultSet_delete(own[i]);
        }
        Timeline_delete(tl);
        return s;
    }
    Ranks* ranks = NULL;
    if (Runs_count(db) >= 2) { /* a job needs several runs; one run costs no extra pass */
        DcuError e3;
        if (Ranks_new(db, &ranks, &e3) == DCU_OK) {
            f.ranks = ranks;
        }
    }
    f.categories = own[0];
    f.hotspots = own[1];
    f.tl = Timeline_summary(tl);
    if (f.tl->available) {
        static const TimelineView tv[] = {TL_SHORT, TL_COPIES};
        for (int i = 0; i < 2; i++) {
            DcuError e2;
            Timeline_view(tl, tv[i], NULL, AMDAHL_BASIS_KERNEL, &own[3 + i], &e2);
        }
        f.shorts = own[3];
        f.copies = own[4];
    }
    AdviceList* l = xcalloc(1, sizeof(*l));
    if (f.tl->available) { /* idle time by cause; without it idle stays one opportunity */
        IdleSummary* is = xcalloc(1, sizeof(*is));
        DcuError e4;
        if (Idle_summary(db, is, &e4) == DCU_OK) {
            l->idle = is;
            f.idle = is;
        } else {
            free(is);
        }
    }
    Sink k = {l, 0};
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        rules[i].fn(&f, &k);
    }
    apply_caps(&f, l);
    wall_ceilings(&f, l);
    if (l->n > 1) {
        qsort(l->items, (size_t)l->n, sizeof(Advice), cmp_advice);
    }
    for (int i = 0; i < 5; i++) {
        ResultSet_delete(own[i]);
    }
    Ranks_delete(ranks);
    Timeline_delete(tl);
    *out = l;
    return DCU_OK;
}

void AdviceList_delete(AdviceList* this) {
    if (this) {
        free(this->idle);
        free(this->items);
        free(this);
    }
}

void Advice_ceilingText(const Advice* a, char* buf, size_t cap) {
    if (isnan(a->ceiling)) {
        snprintf(buf, cap, "not claimed");
        return;
    }
    if (isinf(a->ceiling)) {
        snprintf(buf, cap, "inf");
    } else {
        snprintf(buf, cap, "%.2fx", a->ceiling);
    }
}

static const RsColumn adv_cols[] = {
    {"rank", "#", CT_INT},           {"rule", "Rule", CT_TEXT},
    {"what", "Opportunity", CT_TEXT}, {"share_pct", "%Basis", CT_PCT},
    {"basis", "Basis", CT_TEXT},     {"ceiling", "Ceiling", CT_RATIO},
    {"layer", "Layer", CT_TEXT},     {"evidence", "Evidence", CT_TEXT},
    {"why", "Why", CT_TEXT},         {"target", "Target", CT_TEXT},
    {"wall_ceiling", "Wall ceiling", CT_RATIO},
};

ResultSet* Advice_toResultSet(const AdviceList* l) {
    ResultSet* rs = ResultSet_new("advice", adv_cols, (int)(sizeof(adv_cols) / sizeof(adv_cols[0])));
    for (int i = 0; i < l->n; i++) {
        const Advice* a = &l->items[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setInt(rs, r, 0, i + 1);
        ResultSet_setText(rs, r, 1, a->rule);
        ResultSet_setText(rs, r, 2, a->what);
        ResultSet_setReal(rs, r, 3, 100.0 * a->share);
        ResultSet_setText(rs, r, 4, a->basis);
        if (!isnan(a->ceiling)) {
            ResultSet_setReal(rs, r, 5, a->ceiling);
        }
        ResultSet_setText(rs, r, 6, a->layer);
        ResultSet_setText(rs, r, 7, a->evidence);
        ResultSet_setText(rs, r, 8, a->why);
        ResultSet_setText(rs, r, 9, a->target);
        if (!isnan(a->wall_ceiling)) {
            ResultSet_setReal(rs, r, 10, a->wall_ceiling);
        }
    }
    return rs;
}
