/* variab.h - variability inside one run, per kernel: the time a kernel spent above its
 * fastest non-outlier dispatch of the same launch shape ("time above golden"). dcutop's own
 * figure, not RAPTOR's: ROCm rocmProfileData's RAPTOR (raptor_parser.py, VarSum) groups each
 * op with the two ops before it (its "kernel sequence", prekernel_seq = 2, over the ops of
 * every GPU in start order, device-to-device copies included), and takes (mean - min) x calls
 * per group, the plain minimum with no outlier test. dcutop groups by kernel, launch shape
 * and run, sets |z| > 3 outliers aside for the golden, and leaves collectives out.
 *
 * Definitions, per kernel, launch shape and run (one per-dispatch file in use: a run's
 * dispatch record; used_file decides which, so scope and supersession apply). The shape is
 * the dispatch's (grid, workgroup) where recorded (NULL is a shape of its own): a kernel run
 * at several sizes has a golden per size, so a slow size is not variability of a fast one:
 *   z        = (duration - mean) / sd, sd the population standard deviation of the kernel's
 *              durations in that run (as scipy.stats.zscore, which RAPTOR uses);
 *              sd = 0 makes every z 0
 *   outlier  = a dispatch with |z| > 3 (|z| = 3 is not an outlier)
 *   golden   = the shortest duration among the non-outliers
 *   variab.  = sum over the run's dispatches of max(0, duration - golden): the time above
 *              golden. Fast outliers (below golden) add nothing; slow ones add all their
 *              excess.
 * A kernel's figures sum the shapes and runs: var_ns and outliers are sums, golden_ns is
 * the shortest of their goldens (kernel_var_shape keeps each shape's, all runs summed). With n <= 10 dispatches no |z| can exceed sqrt(n - 1) <= 3, so the
 * golden is the plain minimum; one dispatch gives 0. Kernels known only from aggregated
 * stats files have no dispatches: their three columns stay NULL (n/a), never 0.
 * The z test is exact (integer arithmetic) while count * longest duration <= 2^61 ns in a
 * run; beyond that (only corrupt timestamps get there) it falls back to long double. */
#ifndef DCUTOP_VARIAB_H
#define DCUTOP_VARIAB_H

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* Fills kernel_summary.golden_ns, var_ns and outliers from the dispatch rows of the used
 * kernel files, in two scans of dispatch and memory per (kernel, run) pair only.
 * Call it after every (re)build of kernel_summary from kernel_summary_v; kernels without
 * dispatches are set to NULL. It also rewrites kernel_var_run: the figures per kernel and
 * run. Errors: DCU_ERR_SQL with SQLite's message. */
DcuStatus Variab_compute(TraceDb* db, DcuError* err);

/* Leaves the collectives (kernels of category `comm`: NCCL, RCCL, ...) out of variability:
 * their figures become NULL (n/a) and their rows leave kernel_var_run and kernel_var_shape.
 * A collective ends when the slowest rank reaches it, so the spread of its durations is
 * waiting for other ranks, which a trace of one rank cannot tell from slowness. Variab_compute
 * calls it; call it again after the categories are (re)applied (RuleSet_apply), as they are
 * set after loading. Errors: DCU_ERR_SQL. */
DcuStatus Variab_leaveOutCollectives(TraceDb* db, DcuError* err);

/* Variability per run, from the kernel_var_run table Variab_compute fills: one row per
 * per-dispatch file in use, in load order. Columns: file, kernels, dispatches, kernel_ns (its
 * summed dispatch durations), var_ns, var_pct (of kernel_ns), outliers. *out is a new
 * ResultSet (ResultSet_delete). */
DcuStatus Variab_runs(TraceDb* db, ResultSet** out, DcuError* err);

#endif
