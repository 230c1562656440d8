/* advice.h - "what to optimise first": the evidence of every layer put together into a
 * ranked list of opportunities, each with its Amdahl ceiling on the basis that fits it
 * (device kernel time for kernels and categories, device wall time for idle time, launch
 * overhead and copies), its evidence and layer, and a one-line why. The list is ranked by
 * what each part could give the whole run: with a timeline, a kernel-time part is ranked by
 * its ceiling on the wall time (a GEMM at 11x of kernel time in a run idle half the time
 * gives at most 1.7x), so that the first line is the largest opportunity whatever its basis. The rules live in one
 * table in advice.c; warnings (PMC timings, stats only, cold start) cap what the list may
 * claim. GPU idle splits into its causes (idle.h), one opportunity each with the fix class
 * of that cause. No curses: the Summary, --report, --view advice and JSON all read an AdviceList. */
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
    ADV_LAUNCH,      /* launch-bound kernels (over device kernel time) */
    ADV_COPIES,      /* host<->device copies in the steady state (over device wall time) */
    ADV_VARIABILITY, /* run-to-run variability (a hook: no figure in this model yet) */
    ADV_STRAGGLER    /* a rank of a multi-rank job that computes longer (over step time) */
} AdviceKind;

typedef struct Advice_ {
    AdviceKind kind;
    const char* rule;    /* the rule's name in the table: "category", "idle", ... (static) */
    char what[256];      /* "copy kernels (elementwise…direct_copy…, roll_cuda_kernel…)" */
    double share;        /* 0..1 of the basis */
    const char* basis;   /* "kernel time" | "wall time" (static) */
    double ceiling;      /* 1/(1 - share); NAN when a warning withholds it (PMC run) */
    double wall_ceiling; /* kernel-time parts with a timeline: the ceiling on device wall
                          * time (their kernel time taken from the busy time, over the wall),
                          * what the list is ranked by; NAN otherwise */
    char evidence[256];  /* the numbers behind it */
    const char* layer;   /* "device kernels", "timeline", ... (static) */
    char why[256];       /* one line */
    char target[1024];   /* what Enter opens: a category, a kernel's full name; "" = none */
    int capped;          /* 1: a warning limits the claim (cold start in the totals) */
    int cause;           /* ADV_IDLE: the IdleCause of that part of idle time, -1: all of it */
} Advice;

typedef struct AdviceList_ {
    Advice* items; /* owned, n entries, best first */
    int n;
    char warnings[4][256]; /* what caps the ranking, one line each */
    int nwarn;
    struct IdleSummary_* idle; /* owned, NULL without per-dispatch times: idle by cause */
} AdviceList;

/* Builds the list from a loaded trace. *out is owned (AdviceList_delete). */
DcuStatus Advice_build(TraceDb* db, AdviceList** out, DcuError* err);
void AdviceList_delete(AdviceList* this);

/* The list as a table (rank, kind, what, share_pct, basis, ceiling, layer, evidence, why,
 * target, wall_ceiling): what --format csv|json and --view advice print. New ResultSet. */
ResultSet* Advice_toResultSet(const AdviceList* a);

/* "1.64x", or "not claimed" when a warning withholds the ceiling. */
void Advice_ceilingText(const Advice* a, char* buf, size_t cap);

#endif
