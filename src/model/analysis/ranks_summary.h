/* ranks_summary.h - inside the ranks model (ranks.c): the ranks of a job read back from the
 * summaries of its ranks (job_summary.h) that the loader put in the job_* tables, in place
 * of the dispatches a full load reads. */
#ifndef DCUTOP_RANKS_SUMMARY_H
#define DCUTOP_RANKS_SUMMARY_H

#include "dcutop/ranks.h"

/* 1 when the database holds job summaries (job_rank rows). */
int RanksSummary_present(TraceDb* db);

/* The job from the summaries: each rank's row, steps and compute per (kernel, step) as the
 * map computed them, the rank-waits from every rank's comm dispatches (the k-th dispatch of a
 * comm kernel on each rank is one collective: its shortest duration is the transfer, the
 * rest each rank's wait, as idle.c computes them), then the verdict (Ranks_judge).
 * Errors: DCU_ERR_SQL. */
DcuStatus RanksSummary_read(TraceDb* db, Ranks** out, DcuError* err);

#endif
