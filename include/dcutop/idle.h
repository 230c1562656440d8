/* idle.h - why the GPU idles (issue 22): every idle interval of a device explained by what
 * the host was doing, and the launch delay of every dispatch with a correlated launch call.
 *
 * Definitions (integer ns; each run is one clock domain; the dispatches are those of the
 * files used for the kernel layer, as in timeline.h):
 *   device        (run, gpu). Its wall is the run span (first kernel start to last kernel
 *                 end of the run), its busy time the union of its dispatch intervals over
 *                 all its streams; memsets and copies that the trace records as device
 *                 activity rows count as busy (HTA does the same). Its idle intervals are
 *                 the parts of the wall that no dispatch covers; they add up to
 *                 Timeline's idle time.
 *   next kernel   the first dispatch of the device that starts when an idle interval ends;
 *                 its launch call is the API call with its correlation id in its file.
 *   causes        of one idle interval [g0, g1), first match wins:
 *     sync            a synchronising call (IDLE_SYNC_CALLS, or a blocking hipMemcpy /
 *                     hipMemcpyWithStream (PyTorch's .item() / .cpu() on ROCm) /
 *                     cudaMemcpy that copies device to host or whose copy is not traced) on
 *                     the launching thread overlaps the interval and ended no later than
 *                     the next launch call started;
 *     host-bound      the next launch call started after g0: the host was late (nearest to
 *                     HTA's "host wait", which differs: HTA takes it per stream, between
 *                     consecutive ops of one stream, so it also counts time the stream waits
 *                     while other streams keep the device busy; here only device idle);
 *     launch-overhead the next kernel was launched before g0: the interval is the
 *                     launch-to-start latency (HTA "kernel wait"; HTA counts it so only
 *                     below its consecutive_kernel_delay, 30 trace units (us in a Kineto
 *                     trace; its documentation says ns), IDLE_HTA_KERNEL_WAIT_NS, and the
 *                     rest as "other": dcutop counts the whole interval);
 *     unknown         no next kernel (the tail of the run) or no correlated launch call
 *                     (no host layer).
 *   other-stream  per stream, the parts of the gaps between its consecutive kernels during
 *                 which another stream of the same device is busy: a wait, not device
 *                 idle, listed apart and never added to idle; summed over the streams, so
 *                 its pct_idle (share of the device's idle time) may pass 100.
 *   rank-wait     (runs that are ranks of one job, ranks.h) a collective waiting for a
 *                 slower rank: the n-th dispatch of a comm kernel on each rank is one
 *                 collective; its shortest duration over the ranks is the transfer, the
 *                 rest of each rank's duration its wait. The device is busy then (the
 *                 collective runs): listed for information, never added to idle. Durations
 *                 only, so the ranks' clocks need not agree.
 *   launch delay  dcutop's: kernel start - launch call end, clipped at 0 (--export launches,
 *                 one row per dispatch with any launch call). HTA states the same difference
 *                 unclipped but computes another (below).
 *   launch stats  per GPU op name, as HTA's get_cuda_kernel_launch_stats computes them with
 *                 its defaults (launch_stats.c): over the kernels, memsets and copies whose
 *                 launch call is cudaLaunchKernel, cudaMemsetAsync or cudaMemcpyAsync (HIP's
 *                 same three names too; cuLaunchKernelEx and the other launch calls left out,
 *                 as HTA leaves them), on HTA's whole-us events (start rounded up, end down):
 *                 the call duration and HTA's launch delay (GPU start - call start + call
 *                 duration, as its code computes it), each as median, p95 (pandas'
 *                 quantile, linear) and max; "short" launches, a call of at most
 *                 IDLE_HTA_RUNTIME_CUTOFF_US whose GPU op is shorter than the call (HTA's
 *                 short GPU kernels); delay outliers, HTA's delay above
 *                 IDLE_HTA_DELAY_CUTOFF_US; call outliers, a call above
 *                 IDLE_HTA_RUNTIME_CUTOFF_US (HTA's defaults, in trace units: us).
 *   host activity over a part of an interval: the innermost CPU op, range or API call on the
 *                 launching thread (the one that started latest covering that instant),
 *                 "(untraced)" where nothing covers it; the parts add up to the interval.
 */
#ifndef DCUTOP_IDLE_H
#define DCUTOP_IDLE_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* HTA get_idle_time_breakdown's consecutive_kernel_delay: 30 trace units, microseconds */
#define IDLE_HTA_KERNEL_WAIT_NS 30000
#define IDLE_TOP_GAPS 20           /* rows of the largest-gaps table */
#define IDLE_HTA_RUNTIME_CUTOFF_US 50 /* HTA launch stats runtime_cutoff (trace units: us) */
#define IDLE_HTA_DELAY_CUTOFF_US 100  /* HTA launch stats launch_delay_cutoff (us) */

/* The causes, in the order of --export idle. */
typedef enum {
    IDLE_HOST_BOUND,
    IDLE_LAUNCH_OVERHEAD,
    IDLE_SYNC,
    IDLE_OTHER_STREAM, /* not device idle */
    IDLE_RANK_WAIT,    /* not device idle */
    IDLE_UNKNOWN,
    IDLE_CAUSE_COUNT
} IdleCause;

typedef enum {
    IDLE_CAUSES,   /* run, device, cause, gaps, total_ns, pct_idle (--export idle) */
    IDLE_LAUNCHES, /* one row per dispatch with a launch call (--export launches) */
    IDLE_GAPS,     /* one row per gap and host activity (--export idle-gaps) */
    IDLE_TOP,      /* the largest gaps with cause and main host activity */
    IDLE_KERNELS,  /* launch stats per kernel (see above): launches, call and delay median,
                    * p95 and max, short, delay outliers; the largest p95 delay first */
    IDLE_VIEW_COUNT
} IdleView;

/* The idle breakdown as one table. Errors: DCU_ERR_SQL. */
DcuStatus Idle_view(TraceDb* db, IdleView v, ResultSet** out, DcuError* err);
/* IDLE_CAUSES' and IDLE_TOP's tables from one pass over the dispatches (the default report's
 * idle-causes section). *causes and *top owned. Errors: DCU_ERR_SQL. */
DcuStatus Idle_causesTop(TraceDb* db, ResultSet** causes, ResultSet** top, DcuError* err);

/* The launch stats (IDLE_KERNELS' table) of one kernel, by its full name (kernel.name): one
 * row, or none when no dispatch of it has a launch call of HTA's set; kernel NULL: every kernel, the
 * largest p95 delay first. A copy of Idle_launchTable's rows. */
DcuStatus Idle_launchStats(TraceDb* db, const char* kernel, ResultSet** out, DcuError* err);

/* The launch stats of every GPU op name (kernels, memsets, copies) with a launch of HTA's set
 * (IDLE_KERNELS' columns; launch_stats.c), in name order (strcmp), computed once and kept while the data is unchanged (TraceDb_cached): what
 * Kernel detail, Hotspots' launch columns and --view idle read. Empty, and read without a
 * pass over the dispatches, when no API call has a correlation id. *out is borrowed: valid
 * until the next write to db or the next call. Errors: DCU_ERR_SQL. */
DcuStatus Idle_launchTable(TraceDb* db, const ResultSet** out, DcuError* err);
/* The row of kernel (full name) in Idle_launchTable's table, -1 when it has none. */
int Idle_launchRow(const ResultSet* table, const char* kernel);

/* "host-bound", "launch-overhead", "sync", "other-stream", "rank-wait", "unknown". */
const char* Idle_causeName(IdleCause c);
/* The cause a name gives (Idle_causeName's inverse), IDLE_CAUSE_COUNT for NULL or another
 * text: for readers of the idle views' "cause" column. */
IdleCause Idle_causeOf(const char* name);
/* 1 for the causes that are device idle (they add up to it). */
int Idle_causeIsIdle(IdleCause c);

#define IDLE_SUMMARY_GAPS 3  /* the largest device-idle gaps kept in an IdleSummary */
#define IDLE_SUMMARY_HOSTS 2 /* host activities kept per cause */

/* One device-idle gap. Times in ns; at_ns relative to the next kernel's run start
 * (TraceQuery_origin), as the timeline's times are. */
typedef struct IdleGap_ {
    int64_t file, gpu, stream; /* the lane of the kernel after the gap; file 0: none */
    int64_t at_ns;             /* gap start, relative */
    int64_t gap_ns;
    IdleCause cause;
    char next[512];            /* the kernel after the gap ("" at a run's tail) */
    char host[256];            /* the main host activity over it; sync: the sync call
                                * and the op that issued it ("cudaStreamSynchronize in
                                * aten::item") */
} IdleGap;

/* Idle time by cause over every device of the scope: what the Summary and the advice read. */
typedef struct IdleSummary_ {
    int64_t idle_ns;                   /* the causes that are idle add up to it */
    int64_t ns[IDLE_CAUSE_COUNT];      /* total per cause */
    int64_t count[IDLE_CAUSE_COUNT];   /* gaps (rank-wait: collectives) per cause */
    int explained;                     /* 1: some gap had a launch call (a host layer) */
    /* per cause, its largest host activities over its gaps ("(untraced)" included); a sync
     * gap counts whole for its synchronising call */
    char host[IDLE_CAUSE_COUNT][IDLE_SUMMARY_HOSTS][128];
    int64_t host_ns[IDLE_CAUSE_COUNT][IDLE_SUMMARY_HOSTS];
    IdleGap top[IDLE_SUMMARY_GAPS];    /* the largest device-idle gaps, largest first */
    int ntop;
    IdleGap largest[IDLE_CAUSE_COUNT]; /* the largest gap of each idle cause (gap_ns 0: none) */
} IdleSummary;

/* Fills *out (zeroed first). Errors: DCU_ERR_SQL. */
DcuStatus Idle_summary(TraceDb* db, IdleSummary* out, DcuError* err);

/* The rank-wait (see above) of each comm dispatch that has one (> 0), by dispatch id: what
 * the Ranks verdict sums per step. *out owned by the caller (free); none when the runs in
 * scope are not ranks of one job. Errors: DCU_ERR_SQL. */
typedef struct IdleWait_ {
    int64_t dispatch; /* dispatch.id */
    int64_t wait_ns;
} IdleWait;
DcuStatus Idle_rankWaits(TraceDb* db, IdleWait** out, int64_t* n, DcuError* err);

/* "idle", "launches", "idle-gaps", "idle-top", "launch-stats"; -1 / "?" when unknown. */
int Idle_viewByName(const char* name);
const char* Idle_viewName(IdleView v);

#endif
