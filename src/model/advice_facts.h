/* advice_facts.h - what the advice rules read (internal to advice.c): the parts of the run on
 * the list's one basis. For a single run (or runs that are not a job) they come from the
 * views every screen shows; for a job, from its critical rank alone (ranks never added). */
#ifndef DCUTOP_ADVICE_FACTS_H
#define DCUTOP_ADVICE_FACTS_H

#include <stdint.h>

#include "dcutop/idle.h"
#include "dcutop/query.h"
#include "dcutop/ranks.h"
#include "dcutop/timeline.h"

typedef struct {
    char* name;        /* full name (owned) */
    char* short_name;  /* (owned) */
    char* category;    /* (owned) */
    int64_t ns, calls; /* kernel time and dispatches */
} AdvKernel;

typedef struct {
    char* name;                 /* category (owned) */
    int64_t ns, calls, kernels;
} AdvCategory;

typedef struct {
    Totals totals;
    AdvKernel* kernels; /* largest first (owned) */
    int nkernels;
    AdvCategory* cats;  /* largest first (owned) */
    int ncats;
    int64_t kernel_ns;  /* the kernel time the parts are of */
    int wall_basis;     /* 1: shares of the wall (a timeline), 0: of kernel_ns */
    double kdenom;      /* a kernel-time part's denominator on the wall basis: wall x kernel
                         * time / kernel busy time when streams overlap, else the wall */
    double wall_ns;     /* the wall: the run's device wall, or the critical rank's */
    const TimelineSummary* tl;   /* borrowed; NULL or available == 0: no timeline */
    const ResultSet* shorts;     /* TL_SHORT per kernel (borrowed, may be NULL) */
    const ResultSet* copies;     /* TL_COPIES (borrowed, may be NULL) */
    int64_t short_ns, short_n, dispatches; /* kernels under 10 us, of the timed dispatches */
    int64_t copy_ns, copy_h2d, copy_d2h;   /* host<->device copies in the steady state */
    const IdleSummary* idle;     /* borrowed, NULL without a timeline */
    int64_t idle_ns;             /* device idle on the basis' wall */
    int64_t cause_ns[IDLE_CAUSE_COUNT], cause_n[IDLE_CAUSE_COUNT];
    int explained;               /* a host layer tells the causes apart */
    /* per cause, its largest host activities over its gaps (IdleSummary's, or the critical
     * rank's own from the idle view's gap rows) */
    char host[IDLE_CAUSE_COUNT][IDLE_SUMMARY_HOSTS][128];
    int64_t host_ns[IDLE_CAUSE_COUNT][IDLE_SUMMARY_HOSTS];
    const Ranks* ranks;          /* NULL with fewer than 2 runs */
    const RankRow* crit;         /* a job: its critical rank (the basis), else NULL */
    double variability_pct;      /* hook: NAN until the model has the figure */
} AdvFacts;

/* Fills the parts of a single run (or of every run in the scope) from its views. */
void AdvFacts_fromViews(AdvFacts* f, const ResultSet* categories, const ResultSet* hotspots,
                        const Timeline* tl);
/* A job: the parts of its critical rank (the rank that defines the most steps; ties: the
 * longest wall). Returns 0 (f unchanged) when the job's dispatches cannot be read. */
int AdvFacts_fromCriticalRank(AdvFacts* f, TraceDb* db, const Timeline* tl);
void AdvFacts_done(AdvFacts* f);

#endif
