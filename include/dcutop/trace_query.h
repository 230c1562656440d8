/* trace_query.h - the dispatch trace (RAPTOR's op-by-op text trace): every kernel dispatch and
 * copy that ran on one GPU and queue (a "lane"), in time order, with the gap before each one.
 *
 * Times are relative to the run's start: the first dispatch start of the file's run (README
 * "Runs"), from TraceQuery_origin(), as the timeline's times are. The gap before an op is its start
 * minus the latest end so far on the lane (0 when it overlaps, NULL for the first op). */
#ifndef DCUTOP_TRACE_QUERY_H
#define DCUTOP_TRACE_QUERY_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

typedef struct TraceLane_ {
    int64_t file;   /* source_file.id */
    int64_t gpu;    /* -1: the format does not say */
    int64_t stream; /* stream, else queue; -1: neither */
    int64_t ops;    /* timed dispatches and copies on it */
    char label[160]; /* "results.csv GPU 2 queue 0" (the file's base name) */
} TraceLane;

/* The time zero of the file's run: its earliest timed dispatch start (ns), over the whole
 * data (a region of interest does not move it); 0 when none. */
int64_t TraceQuery_origin(TraceDb* db, int64_t file);

/* The lanes with timed dispatches or copies of used files, by file, gpu, stream.
 * *out is owned by the caller (free()); *n may be 0. */
DcuStatus TraceQuery_lanes(TraceDb* db, TraceLane** out, int* n, DcuError* err);

/* The ops of one lane as a ResultSet "trace": start_ns (relative), gap_ns, dur_ns, name,
 * short_name, category ("(copy)" for copies), kind (kernel|copy), bar (empty; a view fills
 * it), abs_start_ns. filter: a PCRE2 pattern on names ('!' negates), NULL for all; gaps are
 * computed before filtering. */
DcuStatus TraceQuery_ops(TraceDb* db, const TraceLane* lane, const char* filter, ResultSet** out,
                         DcuError* err);

/* At most limit ops (> 0; 0 = all) of the same, around = the trace clock time the page is
 * centred on (-1: from the first op); a footer says which ops of how many when not all fit.
 * (The screen holds a page: a row costs about 800 bytes.) */
DcuStatus TraceQuery_opsPage(TraceDb* db, const TraceLane* lane, const char* filter,
                             int64_t around, int limit, ResultSet** out, DcuError* err);

/* The first row starting at or after abs_start (ns, the trace's own clock); -1 if none. */
int TraceQuery_rowAt(const ResultSet* rs, int64_t abs_start);

/* The lane and start (abs ns) of the op after the largest gap of any lane (dispatches and
 * copies both close a gap); 0 when no lane has two ops. */
int TraceQuery_largestGap(TraceDb* db, TraceLane* lane, int64_t* abs_start);

/* The kernel files in use, grouped by run (run 0: a file with none), in id order within a
 * run (the order their dispatch rows lie in): those of the scope, or with every_run those
 * of every run whatever the scope. *files and *runs are owned, *n entries each. Readers go
 * one run at a time with them, so memory holds one rank, not the job. */
DcuStatus TraceQuery_kernelFiles(TraceDb* db, int every_run, int64_t** files,
                                 int64_t** runs, int64_t* n, DcuError* err);

#endif
