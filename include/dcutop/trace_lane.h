/* trace_lane.h - what the Trace screen draws above a lane's ops (issue 22): the queue depth
 * of the lane over time and the launching thread's host activity in a time window.
 *
 * Definitions (integer ns on the trace's own clock, like abs_start_ns of trace_query.h):
 *   launch call   of an op (kernel dispatch, or a copy/memset a device ran) of the lane: the
 *                 API call with its correlation id among the files of the op's run (the
 *                 earliest one when several share it).
 *   queue depth   of a lane at time t (dcutop's, not HTA's queue length: see HtaQueue): its
 *                 ops (kernels, memsets, copies) with a launch call whose call started at or
 *                 before t and that have not ended by t (launched but unfinished: an op
 *                 leaves at its end, where HTA takes it off at its start). Ops without a
 *                 launch call are not counted.
 *   queue empty   the share of a lane's active window (its first launch call start to its
 *                 last op end) during which its depth is 0; over several lanes the empty times
 *                 and the windows are summed.
 *   launching     thread of a lane's ops: the (pid, tid) that made most of their launch calls.
 *   host activity on a thread: its CPU ops (Kineto cpu_op), ranges (roctx/hiptx, rocpd
 *                 regions) and API calls (cuda_runtime, HIP API, RPD api ops). */
#ifndef DCUTOP_TRACE_LANE_H
#define DCUTOP_TRACE_LANE_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"
#include "dcutop/trace_query.h"

typedef struct QueueStep_ {
    int64_t t;     /* ns, trace clock */
    int64_t depth; /* from t until the next step's t */
} QueueStep;

typedef struct QueueDepth_ {
    QueueStep* steps; /* owned, by time; the depth before the first step is 0 */
    int64_t n;
    int64_t max;      /* largest depth */
    int64_t window_ns; /* the active window (first launch start to last op end) */
    int64_t empty_ns;  /* time in that window with depth 0 */
    int64_t launched;  /* ops counted (those with a launch call) */
} QueueDepth;

/* The queue depth of one lane (the same ops as TraceQuery_ops, copies included).
 * out is filled (QueueDepth_done frees it); n = 0 when no op has a launch call.
 * Errors: DCU_ERR_SQL. */
DcuStatus QueueDepth_lane(TraceDb* db, const TraceLane* lane, QueueDepth* out, DcuError* err);
void QueueDepth_done(QueueDepth* q);
/* The largest depth over [a, b) (0 when no step). */
int64_t QueueDepth_maxIn(const QueueDepth* q, int64_t a, int64_t b);
/* The depth from a sorted list of launch-call starts and op ends (n ops; ends may be in any
 * order, ls[i] <= ends[i] is not required: an op that ends before its call starts counts 0
 * time). The pure core of QueueDepth_lane, for tests. */
void QueueDepth_fromOps(const int64_t* ls, const int64_t* ends, int64_t n, QueueDepth* out);

/* "queue empty X% of the time" over every lane with launch calls of the used files:
 * *pct (0..100) = summed empty time / summed windows; *lanes = lanes counted. Returns 0 when
 * no lane has a launch call (*pct then 0). */
int QueueDepth_emptyPct(TraceDb* db, double* pct, int* lanes);

/* HTA's queue length (get_queue_length_time_series / _summary), as HTA computes it: per lane
 * (HTA: per stream of a rank), a running count stepped at events in time order: +1 at the
 * start of each launch call named cudaLaunchKernel, cudaMemcpyAsync or cudaMemsetAsync (HIP's
 * same names too) that has a GPU op, -1 at the start of every GPU op of the lane (kernels,
 * memsets and copies, whatever launched them: an op launched by another call, such as
 * cuLaunchKernelEx, steps only down), on HTA's whole-us times (starts rounded up). HTA
 * samples it at its events, so its "empty" share counts events, not time: the events after
 * which the length is 0, over all events. Unlike the queue depth above (an op leaves when it
 * ends, time-weighted). */
typedef struct HtaQueue_ {
    int64_t events; /* samples over all lanes */
    int64_t empty;  /* of them with length 0 */
    int64_t max;    /* the largest length */
    int lanes;
} HtaQueue;

/* Fills *out over the used files; 0 (and *out zeroed) when no launch call of HTA's set. */
int QueueLength_hta(TraceDb* db, HtaQueue* out);

typedef struct HostSpan_ {
    int64_t start, end; /* ns, trace clock */
    int depth;          /* nesting on the thread: 0 outermost */
    int kind;           /* 0 CPU op, 1 range, 2 API call */
    char name[96];      /* control characters neutralised, cut */
} HostSpan;

/* The launching thread of the lane's ops that start in [lo, hi) (INT64_MIN, INT64_MAX: the
 * whole lane); 0 when none of them has a launch call. */
int HostLane_thread(TraceDb* db, const TraceLane* lane, int64_t lo, int64_t hi, int64_t* pid,
                    int64_t* tid);

/* The same from memory, for a screen that asks at every move: the lane's ops with a launch
 * call, by op start, read once (HostLane_launches; *out owned, free()). */
typedef struct LaunchRef_ {
    int64_t start;    /* the op's start, ns (trace clock) */
    int64_t pid, tid; /* its launch call's thread */
} LaunchRef;
DcuStatus HostLane_launches(TraceDb* db, const TraceLane* lane, LaunchRef** out, int64_t* n,
                            DcuError* err);
int HostLane_threadIn(const LaunchRef* l, int64_t n, int64_t lo, int64_t hi, int64_t* pid,
                      int64_t* tid);

/* The host activity of thread (pid, tid) in the run of the lane's file that overlaps
 * [lo, hi) (at most max spans, the longest kept), by start. *out owned (free()). The first
 * call adds indexes on the threads' start times (cpu_op, range, api_call): a window then
 * reads only the spans that can reach it. */
DcuStatus HostLane_spans(TraceDb* db, const TraceLane* lane, int64_t pid, int64_t tid,
                         int64_t lo, int64_t hi, int max, HostSpan** out, int* n,
                         DcuError* err);
/* The same reading only spans that start from lo - longest on (longest: HostLane_longest of
 * the thread, which a screen keeps while the thread stays the same). */
DcuStatus HostLane_spansFrom(TraceDb* db, const TraceLane* lane, int64_t pid, int64_t tid,
                             int64_t lo, int64_t hi, int64_t longest, int max,
                             HostSpan** out, int* n, DcuError* err);
/* The longest host span (ns) of thread (pid, tid), over every table and run. */
int64_t HostLane_longest(TraceDb* db, int64_t pid, int64_t tid);

/* A device idle gap of the lane's device with its cause (idle.h, IDLE_GAPS): [g0, g1) ns on
 * the trace clock, the cause name, and its main host activity with that activity's total
 * within the gap (a sync gap: "<sync call> in <op>" and the call's time in the gap), as
 * --view idle and --export idle-gaps name it. */
typedef struct TraceGap_ {
    int64_t g0, g1;
    char cause[24];
    char host[96];
    int64_t host_ns;
} TraceGap;

/* The idle gaps of the lane's device (its run and gpu), by g1. *out owned (free()).
 * Errors: those of Idle_view. */
DcuStatus TraceGap_lane(TraceDb* db, const TraceLane* lane, TraceGap** out, int64_t* n,
                        DcuError* err);
/* The same from the rows of Idle_view(IDLE_GAPS) (borrowed), read once for several lanes. */
DcuStatus TraceGap_laneFrom(TraceDb* db, const ResultSet* idle_gaps, const TraceLane* lane,
                            TraceGap** out, int64_t* n, DcuError* err);
/* The gap that ends at t (an op's start), or NULL. */
const TraceGap* TraceGap_endingAt(const TraceGap* g, int64_t n, int64_t t);
/* The device idle time of the gaps g[0..n) inside [a, b) (ns). */
int64_t TraceGap_idleIn(const TraceGap* g, int64_t n, int64_t a, int64_t b);

/* A page of TraceQuery_ops (consumed: rs is deleted) with two columns more: idle_ns, the
 * device idle gap that ends where the op starts (so that a row's idle is one interval of the
 * idle breakdown), and cause, that gap's cause; where none ends there but the queue waited
 * (gap_ns > 0), cause "other-stream" and no idle (the device ran another queue's op). */
ResultSet* TraceGap_annotate(ResultSet* rs, const TraceGap* g, int64_t n);

#endif
