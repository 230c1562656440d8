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
 *                     cudaMemcpy that copies device to host or whose copy is not traced) on
 *                     the launching thread overlaps the interval and ended no later than
 *                     the next launch call started;
 *     host-bound      the next launch call started after g0: the host was late (HTA "host
 *                     wait");
 *     launch-overhead the next kernel was launched before g0: the interval is the
 *                     launch-to-start latency (HTA "kernel wait"; HTA counts it so only
 *                     below its consecutive_kernel_delay, IDLE_HTA_KERNEL_WAIT_NS, and the
 *                     rest as "other": dcutop counts the whole interval);
 *     unknown         no next kernel (the tail of the run) or no correlated launch call
 *                     (no host layer).
 *   other-stream  per stream, the parts of the gaps between its consecutive kernels during
 *                 which another stream of the same device is busy: a wait, not device
 *                 idle, listed apart and never added to idle; summed over the streams, so
                 its pct_idle (share of the device's idle time) may pass 100.
 *   launch delay  kernel start - launch call end, clipped at 0 (HTA's definition).
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

#define IDLE_HTA_KERNEL_WAIT_NS 30 /* HTA get_idle_time_breakdown consecutive_kernel_delay */
#define IDLE_TOP_GAPS 20           /* rows of the largest-gaps table */

typedef enum {
    IDLE_CAUSES,   /* run, device, cause, gaps, total_ns, pct_idle (--export idle) */
    IDLE_LAUNCHES, /* one row per dispatch with a launch call (--export launches) */
    IDLE_GAPS,     /* one row per gap and host activity (--export idle-gaps) */
    IDLE_TOP,      /* the largest gaps with cause and main host activity */
    IDLE_KERNELS,  /* launch delay per kernel: count, median, p95 (nearest rank), max; the
                    * largest p95 first */
    IDLE_VIEW_COUNT
} IdleView;

/* The idle breakdown as one table. Errors: DCU_ERR_SQL. */
DcuStatus Idle_view(TraceDb* db, IdleView v, ResultSet** out, DcuError* err);

/* "idle", "launches", "idle-gaps", "idle-top", "launch-stats"; -1 / "?" when unknown. */
int Idle_viewByName(const char* name);
const char* Idle_viewName(IdleView v);

#endif
