/* advice.h - "what to optimise first": the evidence of every layer put together into a
 * ranked list of opportunities on one basis, each with its Amdahl ceiling, its evidence and
 * layer, and a one-line fix.
 *
 * The basis (AdviceList.basis): with a timeline, every share is of the run's wall time (device
 * wall: the run span per device), and that is the ceiling shown and ranked; for a job (ranks.h)
 * it is the wall of its critical rank (the rank that defines most steps) and every part is
 * that rank's own (ranks are never added). A kernel-time part (a category, a kernel, short
 * kernels) then takes its kernel time over wall x kernel time / kernel busy time (as the
 * Categories' wall basis does: with overlapping streams the kernel parts add up to the
 * kernels' busy share of the wall); its share and ceiling of kernel time come beside it
 * (kernel_share, kernel_ceiling). Without a timeline (aggregated stats) the basis is device
 * kernel time, and the list says so. The w key (--amdahl-basis) changes nothing here.
 *
 * The items are disjoint: a kernel large enough to be a target is nested ("of which") under
 * its category, never a rival item; the launch-bound and straggler items cut across the
 * categories (across = 1) and are never added to another. The list gives what fixing the
 * first two disjoint items together could give (together), on the same basis.
 *
 * Launch-bound is judged by what launches cost the wall: the launch-overhead idle time (the
 * next kernel was launched before the GPU went idle) plus the time of kernels under 10 us,
 * over the wall; most dispatches short and that cost at least 30% of the wall (the timeline's
 * thresholds). When it holds, the launch-overhead idle time is in the launch item, not in an
 * idle item of its own. No curses: the Summary, --report, --view advice and JSON all read an
 * AdviceList. */
#ifndef DCUTOP_ADVICE_H
#define DCUTOP_ADVICE_H

#include <stddef.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"


typedef enum {
    ADV_CATEGORY,    /* a category of kernels (over device kernel time) */
    ADV_KERNEL,      /* one kernel (over device kernel time) */
    ADV_IDLE,        /* GPU idle and launch gaps (over device wall time) */
    ADV_LAUNCH,      /* launch-bound: launch-overhead idle plus kernels under 10 us */
    ADV_COPIES,      /* host<->device copies in the steady state (over device wall time) */
    ADV_VARIABILITY, /* run-to-run variability (a hook: no figure in this model yet) */
    ADV_STRAGGLER    /* a rank of a multi-rank job that computes longer (over step time) */
} AdviceKind;

typedef struct Advice_ {
    AdviceKind kind;
    const char* rule;    /* the rule's name in the table: "category", "idle", ... (static) */
    char what[256];      /* "copy kernels (elementwise…direct_copy…, roll_cuda_kernel…)" */
    double share;        /* 0..1 of the basis: the share shown and ranked */
    const char* basis;   /* "wall time" | "kernel time" (static): the list's basis */
    double ceiling;      /* 1/(1 - share); NAN when a warning withholds it (PMC run) */
    double kernel_share; /* kernel-time parts on the wall basis: their share of device kernel
                          * time, and its ceiling, shown beside and labelled; NAN otherwise */
    double kernel_ceiling;
    int nested;          /* 1: "of which" under the item before it (a kernel of its category) */
    int across;          /* 1: cuts across the categories (launch-bound, straggler): never
                          * added to another item */
    char evidence[512];  /* the numbers behind it (a straggler names kernels and waits) */
    const char* layer;   /* "device kernels", "timeline", ... (static) */
    char why[256];       /* one line */
    char target[1024];   /* what Enter opens: a category, a kernel's full name; "" = none */
    int capped;          /* 1: a warning limits the claim (cold start in the totals) */
    int cause;           /* ADV_IDLE: the IdleCause of that part of idle time, -1: all of it */
    char group[64];      /* a nested kernel: its category */
} Advice;

typedef struct AdviceList_ {
    Advice* items; /* owned, n entries, best first; a nested item right after its parent */
    int n;
    const char* basis;   /* "wall time" | "kernel time" (static) */
    int rank;            /* a job: its critical rank, whose wall is the basis; -1 otherwise */
    char basis_note[160]; /* "the run's wall time", "rank 0's wall time (the job's critical
                           * rank; ranks never added)", "device kernel time (aggregated
                           * stats: no timeline)" */
    int together_a, together_b; /* the first two disjoint items (-1: fewer than two) */
    double together;     /* fixing both: 1/(1 - share_a - share_b); NAN when none */
    /* launch-bound, by what launches cost the wall (timeline only; 0 otherwise) */
    int has_launch;      /* 1: the figures below are known */
    int launch_bound;
    double launch_cost_pct;  /* (launch-overhead idle + short kernel time) / wall, % */
    double short_wall_pct;   /* kernels under 10 us, % of the wall (kernel-time scaling) */
    double short_count_pct;  /* dispatches under 10 us, % of dispatches */
    int64_t launch_idle_ns;  /* launch-overhead idle time; -1: no host layer to tell it */
    char warnings[4][256]; /* what caps the ranking, one line each */
    int nwarn;
    struct IdleSummary_* idle; /* owned, NULL without per-dispatch times: idle by cause */
} AdviceList;

/* Builds the list from a loaded trace. *out is owned (AdviceList_delete). */
DcuStatus Advice_build(TraceDb* db, AdviceList** out, DcuError* err);
void AdviceList_delete(AdviceList* this);

/* The list as a table (rank, rule, what, share_pct, basis, ceiling, kernel_share_pct,
 * kernel_ceiling, of_which (the rank of the item a nested one belongs to), across, layer,
 * evidence, why, target): what --format csv|json and --view advice print. A nested item
 * has no rank of its own. New ResultSet. */
ResultSet* Advice_toResultSet(const AdviceList* a);

/* The rank shown for item i (1-based, nested items not counted); 0 for a nested one. */
int Advice_rank(const AdviceList* l, int i);

/* "1 and 2 together: at most 1.85x of the run's wall time", or "" when there is no pair. */
void Advice_togetherText(const AdviceList* l, char* buf, size_t cap);

/* "1.64x", or "not claimed" when a warning withholds the ceiling. */
void Advice_ceilingText(const Advice* a, char* buf, size_t cap);

#endif
