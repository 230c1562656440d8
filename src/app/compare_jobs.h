/* compare_jobs.h - `--diff JOB_A JOB_B` where each side is one multi-rank job (ranks.h): the
 * jobs compared rank by rank (ranks matched by number), and by their critical ranks, the
 * slowest, whose time is the job's. Private to src/app. */
#ifndef DCUTOP_COMPARE_JOBS_H
#define DCUTOP_COMPARE_JOBS_H

#include "compare_runs.h"
#include "dcutop/diff.h"

typedef struct CompareJobs_ {
    DiffSide* crit[2]; /* each job's critical rank as one run: [0] A, [1] B (owned) */
    int crit_rank[2];  /* their rank numbers (-1: unknown) */
    char* text;        /* the per-rank section of the text report (owned) */
} CompareJobs;

/* 1 when each side is one path and holds a job (two ranks or more). */
int CompareJobs_applies(const CompareRuns* c);
/* Compares the two jobs of c (CompareJobs_applies). *out is filled (CompareJobs_done). */
DcuStatus CompareJobs_build(const CompareRuns* c, DiffMatch match, CompareJobs* out,
                            DcuError* err);
void CompareJobs_done(CompareJobs* this);

#endif
