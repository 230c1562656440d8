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

/* The scope id of "every run, added together": a total over runs, shown only when asked
 * (--run all, the R picker's "All runs"). */
#define RUNS_ALL ((int64_t)-1)

/* Sets the scope to the runs ids[0..n); ids NULL or n == 0: the default scope (Runs_choice);
 * one id RUNS_ALL: every run. Rebuilds the kernel_summary table (and so every view built on
 * used_file). DCU_ERR_USAGE for an id that is not a run (the scope is then unchanged). */
DcuStatus Runs_setScope(TraceDb* db, const int64_t* ids, int n, DcuError* err);

/* The default scope (run_choice.c). Runs of one program - repeats, or one program collected
 * in several modes - are never added together: the default shows ONE run, the most complete
 * timed run, ranked by
 *   1. not a PMC run (counter collection distorts its times);
 *   2. its mode: a per-dispatch timeline ("trace") before aggregates ("stats"), before
 *      stacks or step times only;
 *   3. more of the timed layers (kernel, api, copy);
 *   4. more kernel dispatches (per-dispatch rows, or the calls of its stats);
 *   5. its label, in byte order.
 * Beside it the scope takes the runs that give only layers nothing in the scope gives yet (in
 * the same order; a PMC run's kernel layer counts as its counters, whose times used_file keeps
 * out): a stack run's call stacks, a counter run's counters. Every other run is left out (not
 * added) and listed. The ranks of one job (Ranks_isJobDb) and a single run: every run. */
typedef struct RunsChoice_ {
    int64_t chosen;   /* the run shown; 0: the default is every run (one run, or a job) */
    int job;          /* the runs are the ranks of one job */
    char why[320];    /* why chosen, against the best run left out ("" when chosen is 0) */
    char with[512];   /* the runs added beside it and what each gives, "" when none */
    char left[512];   /* the runs left out, ", "-separated ("..." when too many) */
    int nleft;        /* how many */
} RunsChoice;

/* Fills *out (computed once per database, kept in a temp table). */
DcuStatus Runs_choice(TraceDb* db, RunsChoice* out, DcuError* err);

/* After loading (the loader leaves every run in scope): the default scope, set only where it
 * differs from every run, so one run or a job's ranks cost no rebuild. */
DcuStatus Runs_applyDefault(TraceDb* db, DcuError* err);

/* What the scope shows, one line for a headline (owned): "run X, the most complete timed run
 * (why); with ...; not added: ..." for the default, "all N runs added together (a total over
 * runs, as asked)" for RUNS_ALL, "run X (picked)" for one run picked; NULL with one run
 * loaded or when the default is every run (a job). */
char* Runs_scopeText(TraceDb* db);

/* The run with this label; 0: none. */
int64_t Runs_byLabel(TraceDb* db, const char* label);

/* Runs loaded. */
int Runs_count(TraceDb* db);

/* Runs in the scope now. */
int Runs_inScope(TraceDb* db);

/* The scope as Runs_setScope takes it back: 0 for the default scope, RUNS_ALL for every
 * run when that is not the default, else the single run picked. */
int64_t Runs_scopeRun(TraceDb* db);

/* The scope in a word or two for a header (owned): the run shown (the default's or the one
 * picked), "all, added" for every run added as asked, "all" where the default is every run. */
char* Runs_scopeName(TraceDb* db);

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
