/* timeline.h - the timeline layer: what per-dispatch timestamps tell beyond per-kernel sums
 * (PRODUCT.md 2): wall span, GPU busy and idle time, short kernels, launch gaps, iterations
 * with the first (cold) one apart from the steady state, API and copy tables with and
 * without the first iteration, host<->device copies inside the steady state, PMC counters.
 * Pure model: no curses; everything comes out as a TimelineSummary or a ResultSet.
 *
 * Definitions (all times integer ns, from the dispatch rows of the files used for the kernel
 * layer that carry start and end timestamps; each run (source_file.run_id, README "Runs") is
 * one clock domain, so nothing is compared or blended across runs):
 *   run span      last kernel end - first kernel start, per run.
 *   device wall   the run span counted once per device (gpu) of the run: with 2 GPUs a
 *                 10 ms run gives 20 ms of device wall time.
 *   busy          per device, the union of its kernel intervals (overlapping kernels on
 *                 several streams count once); idle = device wall - busy.
 *   short kernel  a dispatch shorter than TIMELINE_SHORT_NS (10 us): many of them mean the
 *                 run is launch-bound.
 *   launch gap    start of a kernel - the latest end so far on the same stream (queue when
 *                 the format has no stream) of the same device and run; overlaps count 0.
 *                 Over kernels only: a memset or copy on the stream, or another stream's
 *                 work, sits inside a gap, so the gaps are not GPU idle (idle.h is; shown
 *                 as "kernel gaps").
 *                 The median of an even count is the mean of the two middle values.
 *   iterations    ProfilerStep#N annotations (Kineto), a dispatch belonging to the step whose
 *                 host range holds its launch (the runtime call with its correlation id); without
 *                 a launch in the trace, the step whose gpu_user_annotation holds its start,
 *                 else outside (never by GPU start against the host range); else
 *                 a repeating kernel sequence: the rarest kernel that occurs at a fixed
 *                 distance, whose windows repeat (>= 90% same kernels) and cover at least half
 *                 of the run; boundaries go before the largest launch gap of the period.
 *   steady state  from the start of the second iteration on; with one iteration or none it
 *                 does not exist and "without first iteration" columns are empty.
 */
#ifndef DCUTOP_TIMELINE_H
#define DCUTOP_TIMELINE_H

#include <stdint.h>

#include "dcutop/amdahl.h"
#include "dcutop/error.h"
#include "dcutop/gap_buckets.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

#define TIMELINE_SHORT_NS 10000 /* "short kernel" threshold, ns */
#define TIMELINE_TOP_GAPS 20    /* rows of the largest-gaps table */

/* What Amdahl ceilings are computed over (PRODUCT.md 1): device kernel time (default; a bound
 * that ignores gaps and host time) or wall time (device wall: gaps and idle time count, so
 * ceilings are lower and closer to what a run would gain). */
typedef enum { AMDAHL_BASIS_KERNEL = 0, AMDAHL_BASIS_WALL = 1 } AmdahlBasis;

typedef enum { ITER_NONE = 0, ITER_ANNOTATION, ITER_DETECTED } IterSource;

typedef struct TimelineSummary_ {
    int available;            /* 1 if timed per-dispatch rows exist; else all below are 0 */
    int runs;                 /* runs with timed dispatches */
    int devices;              /* (run, gpu) pairs */
    int streams;              /* (run, gpu, stream) triples */
    int64_t dispatches;       /* timed dispatches */
    int64_t kernel_ns;        /* their summed durations */
    int64_t span_ns;          /* sum of run spans */
    int64_t wall_ns;          /* device wall time (span per device, summed) */
    int64_t busy_ns;          /* union of kernel intervals per device, summed */
    int64_t idle_ns;          /* wall_ns - busy_ns */
    double idle_pct;          /* idle share of device wall, 0..100 */
    double kernel_pct_of_wall; /* kernel_ns / wall_ns, 0..100 (> 100 with concurrent kernels) */
    int64_t short_dispatches; /* dispatches < TIMELINE_SHORT_NS */
    int64_t short_ns;
    double short_count_pct, short_time_pct;
    int64_t gaps;             /* consecutive kernel pairs on a stream */
    int64_t gap_ns;           /* summed (positive) gaps */
    int64_t gap_max_ns, gap_p50_ns;
    double gap_mean_ns;
    IterSource iter_source;
    int iterations;           /* iterations found (0 = none) */
    int64_t iter_period;      /* ITER_DETECTED: dispatches per iteration */
    int64_t first_iter_ns;    /* kernel time of the first iteration */
    int64_t first_iter_span_ns;
    double steady_iter_ns;    /* mean kernel time of the other iterations */
    double steady_iter_span_ns;
    double cold_ratio;        /* first span / steady mean span (0 when unknown); the
                               * warm-up prefix is not in the first span */
    int64_t warmup_dispatches; /* ITER_DETECTED: dispatches before iteration 1 (the warm-up
                                * prefix, a row of its own in TL_ITERATIONS) */
    int64_t steady_h2d, steady_d2h;             /* host<->device copies in the steady state */
    int64_t steady_h2d_bytes, steady_d2h_bytes; /* their bytes (where the format has them) */
    int pmc;                  /* kernel data from a PMC run (timings distorted) */
    int64_t counter_values;   /* dispatch_counter rows of used files */
    int64_t idle_gaps;        /* GPU idle gaps (gap_buckets.h), all devices */
    GapBuckets idle_buckets;  /* their counts and totals by size, summed over devices: the
                               * totals add up to idle_ns */
} TimelineSummary;

typedef struct Timeline_ Timeline;

/* Computes the whole layer once (one pass over the timed dispatches, in memory). *out owns a
 * new Timeline (Timeline_delete). Works (available = 0) when there is no per-dispatch data. */
DcuStatus Timeline_new(TraceDb* db, Timeline** out, DcuError* err);
void Timeline_delete(Timeline* this);

/* The same over every run's used files, whatever the scope (each run as if loaded alone):
 * for the Runs screen. Only the per-run summaries and the views of timestamps (devices,
 * gaps, iterations, runs) are meaningful; it leaves the scope's steady-state cut alone. */
DcuStatus Timeline_newAllRuns(TraceDb* db, Timeline** out, DcuError* err);

/* Borrowed, valid until Timeline_delete. With several runs the iteration figures of the
 * whole (first iteration, steady mean, cold ratio) are 0: they are per run only. */
const TimelineSummary* Timeline_summary(const Timeline* this);

/* Runs with timed dispatches, in run id order, and each one's own summary (borrowed; NULL
 * for i out of range); *run_id (may be NULL) gets its run.id. */
int Timeline_runCount(const Timeline* this);
const TimelineSummary* Timeline_runSummary(const Timeline* this, int i, int64_t* run_id);

typedef enum {
    TL_OVERVIEW,   /* metric, value, unit, note: the summary as rows (report, Summary screen) */
    TL_DEVICES,    /* per file and device: dispatches, span, busy, idle, idle %, kernel time */
    TL_GAPS,       /* the largest launch gaps: file, gpu, stream, gap, before, after, at */
    TL_SHORT,      /* per kernel: calls, short calls (< 10 us), their share, time shares */
    TL_ITERATIONS, /* per iteration: name, dispatches, kernel time, span, first/steady */
    TL_API,        /* API calls: all vs without the first iteration (per-call data only) */
    TL_COPIES,     /* copies: all vs steady state, direction, H2D/D2H in the loop flagged */
    TL_COUNTERS,   /* PMC counters per kernel: dispatches, mean, min, max (+ PMC warning) */
    TL_AMDAHL,     /* GEMM/non-GEMM and categories: ceilings over kernel time and wall time */
    TL_IDLE,       /* per device and gap-size bucket: idle gaps, their total, % of idle */
    TL_RUNS,       /* per run: dispatches, span, wall, busy, gaps, iterations, cold start */
    TL_COUNT
} TimelineView;

const char* Timeline_viewName(TimelineView v); /* "timeline", "devices", "gaps", ... */

/* One table. kernel: for TL_SHORT/TL_COUNTERS, only kernels whose name matches this PCRE2
 * pattern (NULL: all) - Kernel detail passes its kernel's name as a \Q...\E pattern.
 * basis: TL_AMDAHL's "ceiling" column (both bases are always there as well).
 * Errors: DCU_ERR_SQL, DCU_ERR_REGEX for a bad pattern. */
DcuStatus Timeline_view(Timeline* this, TimelineView v, const char* kernel, AmdahlBasis basis,
                        ResultSet** out, DcuError* err);

/* The Amdahl ceiling of a part taking part_ns over the chosen basis: 1/(1 - p) with p =
 * part_ns / total device kernel time, or part_ns / device wall time (with overlapping
 * streams, wall x kernel / busy: the parts add up to the busy share). Falls back to kernel
 * time when the wall is unknown (*used, when not NULL, says which basis was applied). */
double Timeline_ceiling(const Timeline* this, int64_t part_ns, AmdahlBasis basis,
                        AmdahlBasis* used);
/* The denominator of that share (ns); 0 when unknown. */
int64_t Timeline_basisNs(const Timeline* this, AmdahlBasis basis);

/* "device kernel time" / "wall time" (labels for headers and footers). */
const char* Timeline_basisLabel(AmdahlBasis b);
/* "kernel" / "wall" -> basis; -1 if unknown. */
int Timeline_basisByName(const char* name);

/* The time window [lo, hi] (ns, the file's clock) of iteration `index` (1-based) of a file:
 * from its first dispatch start to just before the next iteration's first start (its own last
 * end for the last one); index 0: the steady state, from the second iteration's start to the
 * end of the last. Returns 0 when the file has no such iteration. (The region of interest.) */
int Timeline_iterationWindow(const Timeline* this, int64_t file, int index, int64_t* lo,
                             int64_t* hi);

/* GPU idle time (device wall - busy, gap_buckets.h; busy: kernels, memsets and copies the
 * device ran) by SQL (a window over each device's dispatches and copies), for callers without
 * a Timeline (the Categories' "GPU idle" row). */
int64_t Timeline_idleNs(TraceDb* db);

/* The union of the kernels per device, summed (no memsets or copies): the time kernels run,
 * overlapping streams counted once (query.c scales kernel shares by it). */
int64_t Timeline_kernelBusyNs(TraceDb* db);

/* Device wall time by a single SQL pass (no Timeline needed), for callers that only need the
 * wall basis (query.c); 0 without timed per-dispatch data. */
int64_t Timeline_wallNs(TraceDb* db);

/* The PMC-run warning of PRODUCT.md 1, for any screen that shows counters or PMC timings. */
const char* Timeline_pmcWarning(void);

/* Launch-bound: most dispatches are short (under 10 us) AND launches cost a large share of
 * the time; the verdict rests on the share of time, not of dispatches. The run's verdict is
 * the advice's (advice.h): short_time_pct is then what launches cost the wall (launch-overhead
 * idle plus the short kernels' time, over the wall), never their share of kernel time; Kernel
 * detail asks it of one kernel's own time. */
#define TIMELINE_SHORT_COUNT_PCT 50.0 /* % of dispatches under 10 us */
#define TIMELINE_SHORT_TIME_PCT 30.0  /* % of the time spent in them */
static inline int Timeline_isLaunchBound(double short_count_pct, double short_time_pct) {
    return short_count_pct >= TIMELINE_SHORT_COUNT_PCT && short_time_pct >= TIMELINE_SHORT_TIME_PCT;
}

#endif
