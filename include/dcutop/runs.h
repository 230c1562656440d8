/* runs.h - runs (README "Runs"): what one profiler invocation wrote. The loader puts every
 * file that gave rows into one run (run table, source_file.run_id); this module picks the
 * scope - the runs every screen and the report show (run_scope) - and lists the runs with
 * their own figures, each run as if it had been loaded alone. */
#ifndef DCUTOP_RUNS_H
#define DCUTOP_RUNS_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* Sets the scope to the runs ids[0..n); ids NULL or n == 0: all runs. Rebuilds the
 * kernel_summary table (and so every view built on used_file). DCU_ERR_USAGE for an id that
 * is not a run (the scope is then unchanged). */
DcuStatus Runs_setScope(TraceDb* db, const int64_t* ids, int n, DcuError* err);

/* The run with this label; 0: none. */
int64_t Runs_byLabel(TraceDb* db, const char* label);

/* Runs loaded. */
int Runs_count(TraceDb* db);

/* Runs in the scope now. */
int Runs_inScope(TraceDb* db);

/* The single run of the scope, 0 when the scope holds every run or several. */
int64_t Runs_scopeRun(TraceDb* db);

/* Label of a run (owned; NULL if none). */
char* Runs_label(TraceDb* db, int64_t id);

/* Every label, ", "-separated, in run order (owned): for "unknown run" messages. */
char* Runs_labels(TraceDb* db);

/* The profiled program's command line when the loaded files name exactly one (rocpd's
 * rocpd_info_process, a rocprof-compute sysinfo.csv), owned; NULL otherwise. Each run's own
 * is the Runs table's "command" column. */
char* Runs_command(TraceDb* db);

/* The most runs loaded that give one layer (kernel, api or copy), whatever the scope: with
 * 2 or more, the header says how many runs there are and which the scope shows. */
int Runs_sameLayer(TraceDb* db);

/* Every run, whatever the scope, in id order: run (label), layers, mode, kernel_ns (its device kernel time), dispatches, span_ns
 * (its wall span), iterations, cold_ratio, pmc ("PMC" for a PMC run), files, clock, id.
 * Each run's figures are its own (its used files, its timeline), as if loaded alone. */
DcuStatus Runs_table(TraceDb* db, ResultSet** out, DcuError* err);

#endif
