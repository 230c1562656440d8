/* load_summary.h - job summaries written by `dcutop --summarize` (job_summary.h), read back
 * in place of a rank's trace. Private to the model's load/ floor. */
#ifndef DCUTOP_LOAD_SUMMARY_H
#define DCUTOP_LOAD_SUMMARY_H

#include <sqlite3.h>

#include "load_internal.h"

/* 1 when the database (read-only connection, borrowed) is a job summary. */
int LoadSummary_isDb(sqlite3* in);

/* Reads it: the rank's kernel sums (dispatch_agg rows of this file: hotspots and
 * categories), its distributedInfo rank, and its Ranks figures (job_* tables). A summary of
 * another version, or a table that cannot be read, is said (load_message) and skipped. */
void LoadSummary_read(LoaderCore* core, LoadFile* f, sqlite3* in);

#endif
