/* advice.c - see advice.h. The facts come from the views every screen already shows
 * (categories, hotspots, the timeline, idle by cause), or for a job from its critical rank
 * (advice_facts.c); each rule of the table turns them into opportunities on the list's one
 * basis; the caps then limit what the ranking may claim. */
#include "dcutop/advice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice_facts.h"
#include "dcutop/amdahl.h"
#include "dcutop/idle.h"
#include "dcutop/query.h"
#include "dcutop/ranks.h"
#include "dcutop/runs.h"
#include "dcutop/shortname.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"

#define MIN_SHARE 0.05          /* parts under 5% of the basis are not worth a line */
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

typedef AdvFacts Facts;

typedef struct {
    AdviceList* list;
    int cap;
    int launch_bound; /* the launch item holds the launch-overhead idle time */
} Sink;

static Advice* add(Sink* k, AdviceKind kind, const char* rule, const char* layer, double share) {
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
    a->basis = l->basis;
    a->share = share;
    a->ceiling = Amdahl_ceiling(share);
    a->kernel_share = NAN;
    a->kernel_ceiling = NAN;
    a->cause = -1;
    return a;
}

/* A part of kernel time on the list's basis: over the wall (scaled as advice.h says), or
 * over kernel time without a timeline. */
static double kernel_part(const Facts* f, int64_t ns) {
    if (f->wall_basis) {
        return f->kdenom > 0 ? (double)ns / f->kdenom : 0;
    }
    return f->kernel_ns > 0 ? (double)ns / (double)f->kernel_ns : 0;
}

/* A kernel-time part: its item on the basis, with its share of kernel time beside. */
static Advice* add_kernel_part(const Facts* f, Sink* k, AdviceKind kind, const char* rule,
                               int64_t ns) {
    Advice* a = add(k, kind, rule, "device kernels", kernel_part(f, ns));
    if (f->wall_basis && f->kernel_ns > 0) {
        a->kernel_share = (double)ns / (double)f->kernel_ns;
        a->kernel_ceiling = Amdahl_ceiling(a->kernel_share);
    }
    return a;
}

/* "; 87.16% of kernel time, at most 7.79x of it" after a kernel-time part's evidence */
static void kernel_beside(Advice* a) {
    if (!isnan(a->kernel_share)) {
        char c[32];
        if (isinf(a->kernel_ceiling)) {
            snprintf(c, sizeof(c), "inf");
        } else {
            snprintf(c, sizeof(c), "%.2fx", a->kernel_ceiling);
        }
        size_t n = strlen(a->evidence);
        snprintf(a->evidence + n, sizeof(a->evidence) - n,
                 "; %.2f%% of kernel time (at most %s of kernel time)", 100 * a->kernel_share, c);
    }
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

/* Categories, with their largest kernels by a word each as the name. */
static void rule_category(const Facts* f, Sink* k) {
    for (int r = 0; r < f->ncats; r++) {
        const AdvCategory* c = &f->cats[r];
        if (kernel_part(f, c->ns) < MIN_SHARE) {
            continue;
        }
        char names[3][64] = {"", "", ""};
        int nn = 0; /* "direct_copy, roll_cuda" */
        for (int h = 0; h < f->nkernels && nn < 3; h++) {
            if (strcmp(f->kernels[h].category, c->name) == 0) {
                ShortName_label(f->kernels[h].short_name, names[nn], sizeof(names[0]));
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
        Advice* a = add_kernel_part(f, k, ADV_CATEGORY, "category", c->ns);
        snprintf(a->what, sizeof(a->what), "%s kernels (%s%s%s%s%s)", c->name, names[0],
                 nn > 1 ? ", " : "", names[1], nn > 2 ? ", " : "", names[2]);
        char t[32];
        dur_text(t, sizeof(t), c->ns);
        snprintf(a->evidence, sizeof(a->evidence), "%s in %lld dispatches of %lld kernel%s", t,
                 (long long)c->calls, (long long)c->kernels, c->kernels == 1 ? "" : "s");
        kernel_beside(a);
        snprintf(a->why, sizeof(a->why), "%s", why_for(c->name));
        snprintf(a->target, sizeof(a->target), "%s", c->name);
    }
}

static int64_t category_ns(const Facts* f, const char* category) {
    for (int r = 0; r < f->ncats; r++) {
        if (strcmp(f->cats[r].name, category) == 0) {
            return f->cats[r].ns;
        }
    }
    return 0;
}

/* One kernel large enough to be a target of its own: nested under its category, whose
 * share holds it (never a rival item). */
static void rule_kernel(const Facts* f, Sink* k) {
    for (int r = 0; r < f->nkernels && r < 3 && f->kernel_ns > 0; r++) {
        const AdvKernel* h = &f->kernels[r];
        double p = (double)h->ns / (double)f->kernel_ns;
        if (p < KERNEL_MIN_SHARE) {
            break;
        }
        if ((double)category_ns(f, h->category) * 0.8 <= (double)h->ns ||
            kernel_part(f, h->ns) < MIN_SHARE) {
            continue; /* most of its category: the category's line says it */
        }
        Advice* a = add_kernel_part(f, k, ADV_KERNEL, "kernel", h->ns);
        a->nested = 1;
        snprintf(a->group, sizeof(a->group), "%s", h->category);
        ShortName_fit(h->short_name, NULL, 60, a->what, sizeof(a->what));
        char t[32], avg[32];
        dur_text(t, sizeof(t), h->ns);
        dur_text(avg, sizeof(avg), h->calls > 0 ? h->ns / h->calls : 0);
        snprintf(a->evidence, sizeof(a->evidence), "%s in %lld calls, %s each on average", t,
                 (long long)h->calls, avg);
        kernel_beside(a);
        snprintf(a->why, sizeof(a->why), "one kernel holds %.0f%% of device kernel time: look "
                 "at its shape, launch count and the op that calls it", 100 * p);
        snprintf(a->target, sizeof(a->target), "%s", h->name);
    }
}

/* "aten::to and Python": the largest host activities of a cause (untraced named so). */
static void idle_hosts(const Facts* s, int k, char* buf, size_t cap) {
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

/* " on rank 0" for a job's figures, "" for a run */
static void rank_words(const Facts* f, char* buf, size_t cap) {
    if (f->crit) {
        snprintf(buf, cap, " on rank %d", f->crit->rank);
    } else {
        buf[0] = '\0';
    }
}

/* One cause of GPU idle as an opportunity over the wall. A job's largest gaps are the whole
 * job's: only its critical rank's totals and host activities are said. */
static void idle_cause(const Facts* f, Sink* k, int c, double p) {
    const IdleSummary* s = f->crit ? NULL : f->idle;
    Advice* a = add(k, ADV_IDLE, "idle", "timeline + host", p);
    a->cause = c;
    char t[32], i[32], g[32], hosts[160], on[32];
    dur_text(t, sizeof(t), f->cause_ns[c]);
    dur_text(i, sizeof(i), f->idle_ns);
    idle_hosts(f, c, hosts, sizeof(hosts));
    rank_words(f, on, sizeof(on));
    if (c == IDLE_UNKNOWN) {
        snprintf(a->what, sizeof(a->what), "GPU idle, cause unknown");
    } else {
        snprintf(a->what, sizeof(a->what), "GPU idle, %s%s%s", Idle_causeName(c),
                 hosts[0] ? ": mostly in " : "", hosts);
    }
    snprintf(a->evidence, sizeof(a->evidence), "%s %s in %lld gaps of %s GPU idle%s",
             Idle_causeName(c), t, (long long)f->cause_n[c], i, on);
    if (s && s->largest[c].gap_ns > 0) {
        const IdleGap* lg = &s->largest[c];
        dur_text(g, sizeof(g), lg->gap_ns);
        char nm[64] = "the end of its run";
        if (lg->next[0]) {
            ShortName_fit(lg->next, NULL, 32, nm, sizeof(nm));
        }
        size_t n = strlen(a->evidence);
        snprintf(a->evidence + n, sizeof(a->evidence) - n, "; largest %s before %s", g, nm);
        snprintf(a->target, sizeof(a->target), "%s", lg->next);
    }
    snprintf(a->why, sizeof(a->why), "%s", idle_why[c]);
}

/* GPU idle: the wall less the union of kernels, memsets and copies per device (never summed
 * over streams). With a host layer, one opportunity per cause of 5% or more of the wall
 * (idle.h); else, or when no cause reaches it, idle as one. The launch-overhead idle time is
 * the launch item's when the run is launch-bound. */
static void rule_idle(const Facts* f, Sink* k) {
    if (!f->wall_basis || f->wall_ns <= 0) {
        return;
    }
    int split = 0;
    for (int c = 0; f->explained && c < IDLE_CAUSE_COUNT; c++) {
        double q = (double)f->cause_ns[c] / f->wall_ns;
        if (Idle_causeIsIdle((IdleCause)c) && q >= MIN_SHARE &&
            !(c == IDLE_LAUNCH_OVERHEAD && k->launch_bound)) {
            idle_cause(f, k, c, q);
            split++;
        }
    }
    int64_t idle = f->idle_ns - (k->launch_bound && f->explained ? f->cause_ns[IDLE_LAUNCH_OVERHEAD] : 0);
    double p = (double)idle / f->wall_ns;
    if (split || p < MIN_SHARE) {
        return;
    }
    Advice* a = add(k, ADV_IDLE, "idle", "timeline", p);
    char i[32], w[32], g[32] = "", on[32];
    dur_text(i, sizeof(i), idle);
    dur_text(w, sizeof(w), (int64_t)f->wall_ns);
    rank_words(f, on, sizeof(on));
    snprintf(a->what, sizeof(a->what), "GPU idle and launch gaps");
    snprintf(a->evidence, sizeof(a->evidence),
             "idle %s of %s device wall%s (the wall less kernels, memsets and copies)", i, w, on);
    const IdleGap* top = !f->crit && f->idle && f->idle->ntop > 0 ? &f->idle->top[0] : NULL;
    if (top) {
        dur_text(g, sizeof(g), top->gap_ns);
        char nm[64] = "the end of its run";
        if (top->next[0]) {
            ShortName_fit(top->next, NULL, 32, nm, sizeof(nm));
        }
        size_t l = strlen(a->evidence);
        snprintf(a->evidence + l, sizeof(a->evidence) - l, "; largest gap %s before %s", g, nm);
        snprintf(a->target, sizeof(a->target), "%s", top->next);
    }
    if (f->explained) { /* causes each under 5%: say them */
        const char* sep = "; ";
        for (int c = 0; c < IDLE_CAUSE_COUNT; c++) {
            size_t l = strlen(a->evidence);
            if (Idle_causeIsIdle((IdleCause)c) && f->cause_ns[c] > 0 &&
                !(c == IDLE_LAUNCH_OVERHEAD && k->launch_bound)) {
                dur_text(g, sizeof(g), f->cause_ns[c]);
                snprintf(a->evidence + l, sizeof(a->evidence) - l, "%s%s %s", sep,
                         Idle_causeName(c), g);
                sep = ", ";
            }
        }
    }
    snprintf(a->why, sizeof(a->why), "the GPU waits for the host: synchronisations, data "
             "loading, Python overhead; overlap them or capture graphs");
}

/* What launches cost the wall: the launch-overhead idle time (known with a host layer) plus
 * the kernels under 10 us (as kernel-time parts are scaled). Launch-bound when most
 * dispatches are short and that cost is 30% of the wall or more (Timeline_isLaunchBound's
 * thresholds, on the wall). */
static void launch_figures(const Facts* f, AdviceList* l) {
    if (!f->wall_basis || f->wall_ns <= 0 || f->dispatches <= 0) {
        return;
    }
    l->has_launch = 1;
    l->launch_idle_ns = f->explained ? f->cause_ns[IDLE_LAUNCH_OVERHEAD] : -1;
    l->short_wall_pct = 100 * kernel_part(f, f->short_ns);
    l->short_count_pct = 100.0 * (double)f->short_n / (double)f->dispatches;
    l->launch_cost_pct = l->short_wall_pct +
                         (l->launch_idle_ns > 0 ? 100.0 * (double)l->launch_idle_ns / f->wall_ns : 0);
    l->launch_bound = Timeline_isLaunchBound(l->short_count_pct, l->launch_cost_pct);
}

/* Launch-bound: its cost of the wall as one item (it cuts across the categories: the short
 * kernels are in them). */
static void rule_launch(const Facts* f, Sink* k) {
    const AdviceList* l = k->list;
    if (!l->launch_bound) {
        return;
    }
    Advice* a = add(k, ADV_LAUNCH, "launch", "timeline + host", l->launch_cost_pct / 100.0);
    a->across = 1;
    snprintf(a->what, sizeof(a->what), "launch-bound: kernels under 10 us and launch overhead");
    char s[32], i[32], on[32];
    dur_text(s, sizeof(s), f->short_ns);
    rank_words(f, on, sizeof(on));
    if (l->launch_idle_ns >= 0) {
        dur_text(i, sizeof(i), l->launch_idle_ns);
    } else {
        snprintf(i, sizeof(i), "unknown (no host layer)");
    }
    snprintf(a->evidence, sizeof(a->evidence),
             "%lld of %lld dispatches (%.0f%%) under 10 us take %s = %.1f%% of the wall%s; "
             "launch-overhead idle %s", (long long)f->short_n, (long long)f->dispatches,
             l->short_count_pct, s, l->short_wall_pct, on, i);
    snprintf(a->why, sizeof(a->why), "launch overhead rivals the work: fuse the tiny kernels "
             "or capture the loop in a CUDA/HIP graph");
    const ResultSet* sh = f->shorts; /* the kernel with the most short time is the target */
    int best = -1;
    for (int r = 0; sh && r < sh->nrows; r++) {
        if (best < 0 ||
            ResultSet_intOf(sh, r, "short_ns") > ResultSet_intOf(sh, best, "short_ns")) {
            best = r;
        }
    }
    if (best >= 0) {
        snprintf(a->target, sizeof(a->target), "%s", ResultSet_textOf(sh, best, "name"));
    }
}

/* Host<->device copies inside the steady-state loop (synchronous copies stall the GPU), of
 * the wall (a job: its critical rank's copies over its wall). */
static void rule_copies(const Facts* f, Sink* k) {
    if (!f->wall_basis || f->wall_ns <= 0 || f->copy_h2d + f->copy_d2h == 0) {
        return;
    }
    double p = (double)f->copy_ns / f->wall_ns;
    if (p < MIN_SHARE) {
        return;
    }
    Advice* a = add(k, ADV_COPIES, "copies", "timeline + copies", p);
    char c[32], on[32];
    dur_text(c, sizeof(c), f->copy_ns);
    rank_words(f, on, sizeof(on));
    snprintf(a->what, sizeof(a->what), "host<->device copies inside the loop");
    snprintf(a->evidence, sizeof(a->evidence), "%lld H2D and %lld D2H copies in the steady "
             "state%s, %s", (long long)f->copy_h2d, (long long)f->copy_d2h, on, c);
    snprintf(a->why, sizeof(a->why), "each synchronous copy stalls the GPU: keep data on the "
             "device, or copy asynchronously from pinned memory");
}

/* Hook for run-to-run variability: when the model has a variability figure (the spread of
 * repeated runs or iterations, %), a large spread means comparisons need more repeats before
 * any optimisation can be trusted. Fires nothing while it is NAN. */
static void rule_variability(const Facts* f, Sink* k) {
    if (isnan(f->variability_pct) || f->variability_pct < 5.0) {
        return;
    }
    Advice* a = add(k, ADV_VARIABILITY, "variability", "runs", f->variability_pct / 100.0);
    a->ceiling = NAN;
    a->across = 1;
    snprintf(a->what, sizeof(a->what), "run-to-run variability");
    snprintf(a->evidence, sizeof(a->evidence), "spread %.1f%%", f->variability_pct);
    snprintf(a->why, sizeof(a->why), "noise this large hides gains: repeat runs (A-B-B-A)");
}

/* A straggler rank: the others wait in collectives for it, so its extra compute per step is
 * what the job loses; the waiting is never a communication cost to optimise. Its excess over
 * the straggling steps, of the critical rank's wall; it is kernel time of that rank, so it
 * cuts across the categories. */
static void rule_straggler(const Facts* f, Sink* k) {
    const Ranks* r = f->ranks;
    if (!r || !f->crit || !Ranks_isJob(r) || !r->verdict.found || r->verdict.excess_ns <= 0) {
        return;
    }
    double p = r->verdict.excess_ns * r->verdict.steps / f->wall_ns;
    Advice* a = add(k, ADV_STRAGGLER, "straggler", "ranks", p < 1 ? p : 0.99);
    a->across = 1;
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
            c->kernel_ceiling = NAN;
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
    {"category", rule_category}, {"kernel", rule_kernel},   {"launch", rule_launch},
    {"idle", rule_idle},         {"copies", rule_copies},   {"variability", rule_variability},
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
            l->items[i].kernel_ceiling = NAN;
        }
    }
    if (!f->wall_basis) {
        warn(l, "Aggregated stats only: no timeline, so no wall basis; the shares are of device "
                "kernel time, and GPU idle, launch costs and copies in the loop cannot be weighed");
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

/* ---- order -------------------------------------------------------------------------------- */

static int cmp_advice(const void* x, const void* y) {
    const Advice* a = x;
    const Advice* b = y;
    if (a->share != b->share) { /* one basis: the larger share, the higher ceiling */
        return a->share > b->share ? -1 : 1;
    }
    return a->kind - b->kind;
}

/* Best first, each nested kernel right after its category (itself best first); the first
 * two disjoint items, and what fixing both together could give. */
static void order(AdviceList* l) {
    if (l->n > 1) {
        qsort(l->items, (size_t)l->n, sizeof(Advice), cmp_advice);
    }
    Advice* out = xcalloc((size_t)l->n + 1, sizeof(Advice));
    int m = 0;
    for (int i = 0; i < l->n; i++) {
        const Advice* a = &l->items[i];
        if (a->nested) {
            continue;
        }
        out[m++] = *a;
        for (int j = 0; a->kind == ADV_CATEGORY && j < l->n; j++) {
            if (l->items[j].nested && strcmp(l->items[j].group, a->target) == 0) {
                out[m++] = l->items[j];
            }
        }
    }
    for (int i = 0; i < l->n; i++) { /* a kernel whose category has no line: its own line */
        if (l->items[i].nested) {
            int placed = 0;
            for (int j = 0; j < m && !placed; j++) {
                placed = out[j].nested && strcmp(out[j].target, l->items[i].target) == 0;
            }
            if (!placed) {
                out[m] = l->items[i];
                out[m++].nested = 0;
            }
        }
    }
    free(l->items);
    l->items = out;
    l->together_a = l->together_b = -1;
    l->together = NAN;
    for (int i = 0; i < l->n; i++) {
        const Advice* a = &l->items[i];
        if (a->nested || a->across || isnan(a->ceiling)) {
            continue;
        }
        if (l->together_a < 0) {
            l->together_a = i;
        } else {
            l->together_b = i;
            l->together = Amdahl_ceiling(l->items[l->together_a].share + a->share);
            break;
        }
    }
}

static void basis_note(const Facts* f, AdviceList* l) {
    l->basis = f->wall_basis ? "wall time" : "kernel time";
    l->rank = f->crit ? f->crit->rank : -1;
    if (f->crit) {
        snprintf(l->basis_note, sizeof(l->basis_note),
                 "rank %d's wall time (the job's critical rank; ranks never added)", f->crit->rank);
    } else if (f->wall_basis) {
        snprintf(l->basis_note, sizeof(l->basis_note), "the run's wall time");
    } else {
        snprintf(l->basis_note, sizeof(l->basis_note),
                 "device kernel time (aggregated stats: no timeline, no wall)");
    }
}

DcuStatus Advice_build(TraceDb* db, AdviceList** out, DcuError* err) {
    Facts f;
    memset(&f, 0, sizeof(f));
    f.variability_pct = NAN;
    ResultSet* own[4] = {NULL};
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
        for (int i = 0; i < 4; i++) {
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
    f.tl = Timeline_summary(tl);
    if (f.tl->available) {
        static const TimelineView tv[] = {TL_SHORT, TL_COPIES};
        for (int i = 0; i < 2; i++) {
            DcuError e2;
            Timeline_view(tl, tv[i], NULL, AMDAHL_BASIS_KERNEL, &own[2 + i], &e2);
        }
        f.shorts = own[2];
        f.copies = own[3];
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
    AdvFacts_fromViews(&f, own[0], own[1], tl);
    if (f.wall_basis && f.ranks && Ranks_isJob(f.ranks)) {
        AdvFacts_fromCriticalRank(&f, db, tl);
    }
    basis_note(&f, l);
    launch_figures(&f, l);
    Sink k = {l, 0, l->launch_bound};
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        rules[i].fn(&f, &k);
    }
    apply_caps(&f, l);
    order(l);
    for (int i = 0; i < 4; i++) {
        ResultSet_delete(own[i]);
    }
    AdvFacts_done(&f);
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

int Advice_rank(const AdviceList* l, int i) {
    if (i < 0 || i >= l->n || l->items[i].nested) {
        return 0;
    }
    int r = 0;
    for (int j = 0; j <= i; j++) {
        r += !l->items[j].nested;
    }
    return r;
}

void Advice_togetherText(const AdviceList* l, char* buf, size_t cap) {
    buf[0] = '\0';
    if (l->together_b < 0 || isnan(l->together)) {
        return;
    }
    char c[32];
    if (isinf(l->together)) {
        snprintf(c, sizeof(c), "inf");
    } else {
        snprintf(c, sizeof(c), "%.2fx", l->together);
    }
    snprintf(buf, cap, "%d and %d together: at most %s of %s", Advice_rank(l, l->together_a),
             Advice_rank(l, l->together_b), c, l->basis_note);
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
    {"rank", "#", CT_INT},
    {"rule", "Rule", CT_TEXT},
    {"what", "Opportunity", CT_TEXT},
    {"share_pct", "%Basis", CT_PCT},
    {"basis", "Basis", CT_TEXT},
    {"ceiling", "Ceiling", CT_RATIO},
    {"kernel_share_pct", "%Kernel", CT_PCT},
    {"kernel_ceiling", "Kernel ceiling", CT_RATIO},
    {"of_which", "Of", CT_INT},
    {"across", "Across", CT_INT},
    {"layer", "Layer", CT_TEXT},
    {"evidence", "Evidence", CT_TEXT},
    {"why", "Why", CT_TEXT},
    {"target", "Target", CT_TEXT},
};

ResultSet* Advice_toResultSet(const AdviceList* l) {
    ResultSet* rs = ResultSet_new("advice", adv_cols, (int)(sizeof(adv_cols) / sizeof(adv_cols[0])));
    int parent = 0;
    for (int i = 0; i < l->n; i++) {
        const Advice* a = &l->items[i];
        int r = ResultSet_addRow(rs);
        if (a->nested) {
            ResultSet_setInt(rs, r, 8, parent);
        } else {
            parent = Advice_rank(l, i);
            ResultSet_setInt(rs, r, 0, parent);
        }
        ResultSet_setText(rs, r, 1, a->rule);
        ResultSet_setText(rs, r, 2, a->what);
        ResultSet_setReal(rs, r, 3, 100.0 * a->share);
        ResultSet_setText(rs, r, 4, a->basis);
        if (!isnan(a->ceiling)) {
            ResultSet_setReal(rs, r, 5, a->ceiling);
        }
        if (!isnan(a->kernel_share)) {
            ResultSet_setReal(rs, r, 6, 100.0 * a->kernel_share);
        }
        if (!isnan(a->kernel_ceiling)) {
            ResultSet_setReal(rs, r, 7, a->kernel_ceiling);
        }
        ResultSet_setInt(rs, r, 9, a->across);
        ResultSet_setText(rs, r, 10, a->layer);
        ResultSet_setText(rs, r, 11, a->evidence);
        ResultSet_setText(rs, r, 12, a->why);
        ResultSet_setText(rs, r, 13, a->target);
    }
    return rs;
}
