/* job_summary.h - the map of a job's map/reduce: one rank loaded alone, written as a compact
 * SQLite summary (`dcutop --summarize`), which the loader reads back in place of the rank's
 * trace (load_summary.c) so that `dcutop DIR-of-summaries` opens the job without the raw
 * traces. The file's schema (doc/formats.md "Job summaries"):
 *   summary_meta(key, value)   format = 'dcutop-job-summary', version = '1', dcutop, label,
 *                              source (the trace paths summarized)
 *   kernel(id, name)           the kernels its other tables name
 *   kernel_agg(file, kernel, calls, total_ns, min_ns, max_ns, sumsq, min_start)
 *                              per kernel file of the rank, its per-kernel sums as the
 *                              loader took them (dispatch_agg): hotspots and categories sum
 *                              these over ranks exactly as a full load does
 *   rank(label, rank, world, gpu, pid, dispatches, comm_dispatches, kernel_ns, compute_ns,
 *        comm_ns, exposed_comm_ns, busy_ns, wall_ns, idle_ns, idle_known, first_ns, last_ns,
 *        dir, clock)           the Ranks view's row of the rank (ranks.h definitions)
 *   step(step, step_ns, compute_ns, comm_ns)        per step (0-based)
 *   kernel_step(kernel, step, ns, calls)            compute time per kernel and step
 *   comm(kernel, k, dur_ns, step)  each comm dispatch: the k-th of its kernel on the rank
 *                              (by start); the reduce matches the k-th across ranks as one
 *                              collective for the rank-waits; step -1: outside every step
 *   coll(name, in_nelems, out_nelems, group_size, dtype, pg_name, pg_desc, pg_ranks, seq,
 *        start_ns, end_ns)     each collective kernel with its args (collectives.h): the
 *                              reduce matches them across ranks as a full load does
 *   var_run, var_shape         variability per kernel (variab.h)
 *   idle(cause, gaps, ns)      device idle by cause (idle.h), summed over its devices
 * Pure model: no curses. */
#ifndef DCUTOP_JOB_SUMMARY_H
#define DCUTOP_JOB_SUMMARY_H

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

#define JOB_SUMMARY_FORMAT "dcutop-job-summary"
#define JOB_SUMMARY_VERSION 1

/* Writes one summary per run with timed kernel dispatches loaded in db (its rules applied),
 * each as DIR/<run label>.dcusum, replacing a file there only with force; *written counts
 * them. Several runs in one load are each taken alone: the rank-waits, which need the other
 * ranks, are left to the reduce. source: the paths loaded, for the record.
 * DCU_ERR_EMPTY when no run has timed kernel dispatches; DCU_ERR_IO / DCU_ERR_SQL / DCU_ERR_USAGE
 * (an existing file without force) when writing fails. */
DcuStatus JobSummary_write(TraceDb* db, const char* dir, const char* source, int force,
                           int* written, DcuError* err);

#endif
