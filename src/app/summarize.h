/* summarize.h - `dcutop --summarize PATH... -o DIR`: the map of a job's map/reduce. Each
 * PATH is loaded alone, its rules applied, and each of its runs written as a job summary
 * (job_summary.h), so memory holds one PATH at a time whatever the job's size. */
#ifndef DCUTOP_SUMMARIZE_H
#define DCUTOP_SUMMARIZE_H

#include "dcutop/category.h"
#include "dcutop/cli.h"

/* Returns the exit status: 0 when every PATH gave its summaries, 1 when one could not be
 * loaded or written (the others are still written; each failure said on stderr), 2 for a
 * usage error (an existing summary without --force). */
int Summarize_run(const Cli* cli, RuleSet* rules);

#endif
