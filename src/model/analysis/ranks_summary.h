/* ranks_summary.h - inside the ranks model (ranks.c): the ranks of a job read back from the
 * summaries of its ranks (job_summary.h) that the loader put in the job_* tables, in place
 * of the dispatches a full load reads. */
#ifndef DCUTOP_RANKS_SUMMARY_H
#define DCUTOP_RANKS_SUMMARY_H

#include "dcutop/ranks.h"

/* 1 when the database holds job summaries (job_rank rows). */
int RanksSummary_present(TraceDb* db);

/* Fills j (empty) with the job from the summaries: each rank's row, steps and compute per
 * (kernel, step) as the map computed them, the rank-waits from every rank's comm dispatches
 * (the k-th dispatch of a comm kernel on each rank is one collective: its shortest duration
 * is the transfer, the rest each rank's wait, as idle.c computes them), the ranks numbered.
 * The caller judges (Ranks_judge) or deletes j. Errors: DCU_ERR_SQL. */
DcuStatus RanksSummary_fill(TraceDb* db, Ranks* j, DcuError* err);

#endif
