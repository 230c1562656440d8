/* ranks.h - multi-rank jobs (README "Multi-rank jobs"): the runs loaded, taken as the ranks
 * of one job, side by side. Pure model: no curses.
 *
 * A rank is a run (README "Runs"). Its number comes from:
 *   distributedInfo  Kineto's top-level distributedInfo.rank (source_file.dist_rank);
 *   pid/gpu          otherwise, when every run lies in one folder and their spans overlap on
 *                    one clock (concurrent runs): numbered 0.. in (GPU, PID) order;
 *   unknown          otherwise: no number ("?"), the runs ordered by GPU.
 *
 * Definitions (integer ns, the run's used kernel files, timed dispatches only):
 *   compute / comm   kernel time of kernels outside / inside the `comm` category (NCCL, RCCL,
 *                    MSCCL, custom all-reduce kernels: default.rules);
 *   exposed comm     per GPU, the union of comm kernel intervals minus the part covered by
 *                    the union of compute kernel intervals: comm that no compute hides;
 *   idle             the device idle time of the run's devices as idle.h counts it (busy:
 *                    kernels, memsets and copies; `--view idle`), for the ranks of a job;
 *                    unknown (NULL) for a run out of scope or runs that are no job;
 *   steps            the timeline's iterations of the run (ProfilerStep# or detected); a
 *                    dispatch belongs to the step whose window (timeline.h
 *                    Timeline_iterationWindow) holds its start. Step time: the ProfilerStep#
 *                    host range's duration, else the window's span;
 *   critical path    per step, the rank with the longest compute (ties: the first in rank
 *                    order) defines the step (its
 *                    critical rank); the job's step time is the longest step time of any
 *                    rank. A rank's share = the job step time of the steps it defines / the
 *                    job step time of every step, in %;
 *   straggler        per step, the critical rank's compute minus the median compute of the
 *                    other ranks (its excess); a step straggles when the excess is over
 *                    RANKS_STRAGGLE_PCT % of that median and over RANKS_STRAGGLE_MIN_NS. The
 *                    straggler is the rank that defines the most straggling steps; the other
 *                    ranks' comm time in those steps is waiting, never a communication cost;
 *   excess kernels   per compute kernel (by name), its time per straggling step on the
 *                    straggler minus the median over the other ranks of theirs (each rank's
 *                    time in those steps / their number); the same with dispatch counts.
 *                    With two ranks they add up to the excess exactly; with more, the
 *                    median of sums is not the sum of medians, so nearly;
 *   wait             a rank's rank-wait (idle.h: a collective's duration beyond the fastest
 *                    rank's for the same collective) in the dispatches of the straggling
 *                    steps, per step; the rank waiting most is the waiter. The waiter's
 *                    whole collective time in those steps is given beside it. */
#ifndef DCUTOP_RANKS_H
#define DCUTOP_RANKS_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

#define RANKS_STRAGGLE_PCT 5.0       /* excess over the others' median compute, % */
#define RANKS_STRAGGLE_MIN_NS 100000 /* and at least this much, ns (0.1 ms) */
#define RANKS_PERCENTILES_ABOVE 16   /* more ranks than this: percentile rows as well */

typedef enum { RANK_SRC_DIST = 0, RANK_SRC_PIDGPU, RANK_SRC_UNKNOWN } RankSource;

typedef struct RankRow_ {
    int64_t run_id;
    char* label;        /* run label (owned) */
    int rank;           /* -1: rank unknown */
    int world;          /* distributedInfo.world_size, 0 when not said */
    int gpu;            /* lowest GPU of its dispatches, -1 when unknown */
    int64_t pid;        /* lowest PID of its dispatches, -1 when unknown */
    int64_t dispatches, comm_dispatches;
    int64_t kernel_ns, compute_ns, comm_ns; /* summed kernel durations */
    int64_t exposed_comm_ns;                /* see above */
    int64_t busy_ns, wall_ns, idle_ns;      /* wall = span x devices */
    int nsteps;
    int64_t* step_ns;         /* [nsteps] step times (owned) */
    int64_t* step_compute_ns; /* [nsteps] (owned) */
    int64_t* step_comm_ns;    /* [nsteps] (owned) */
    int64_t* step_wait_ns;    /* [nsteps] rank-wait per step (owned) */
    int idle_known;           /* 0: idle_ns unknown (out of scope, or no job) */
    struct RankKernelStep_* ks; /* compute time per (kernel, step), while judged (owned) */
    int64_t nks, capks;
    struct RankComm_* comm;   /* its comm dispatches in start order, kept for a job summary
                               * (Ranks_newRank; job_summary.h), else NULL (owned) */
    int64_t ncomm;
    int64_t first_ns, last_ns; /* its timed dispatches' earliest start and latest end */
    double critical_pct;      /* share of the job's critical path, 0..100 */
    int critical_steps;       /* steps it defines */
} RankRow;

typedef struct RankExcess_ { /* a kernel of the straggler's excess */
    int64_t kernel_id;
    char* name;       /* kernel.name (owned) */
    char* short_name; /* kernel.short_name (owned) */
    double excess_ns; /* per straggling step: the straggler's minus the others' median */
    double straggler_ns, others_ns; /* the two terms */
    double calls_excess;            /* dispatches per step, the same way */
} RankExcess;

typedef struct RankVerdict_ {
    int found;             /* 1: a straggler (fields below), 0: none */
    int straggler;         /* index into rows */
    int steps, of_steps;   /* straggling steps / steps compared */
    int first_step;        /* 1-based, the first straggling step */
    double excess_ns;      /* mean compute excess per straggling step */
    int waiter;            /* index of the other rank with the most rank-wait in those steps
                            * (no rank-wait known: the most comm time) */
    int wait_known;        /* 1: the rank-waits are known (wait_ns, wait_median_ns) */
    double wait_ns;        /* its rank-wait per straggling step */
    double wait_median_ns; /* the other ranks' median of that */
    double comm_ns;        /* the waiter's whole comm time per straggling step */
    RankExcess* kernels;   /* the straggler's excess by kernel, largest first, > 0 (owned) */
    int nkernels;
    double straggler_comm_ns; /* the straggler's own mean comm per straggling step */
    double max_gap_ns;     /* no straggler: the largest excess of any step */
    int max_gap_step;
    char collective[32];   /* "AllReduce" etc. from the top comm kernel, "collectives" */
} RankVerdict;

typedef struct Ranks_ {
    RankRow* rows; /* in rank order (unknown: GPU order) (owned) */
    int n;
    int nsteps;    /* steps compared: the fewest steps of any rank with steps */
    RankSource source;
    int have_waits; /* the rank-waits were read (Ranks_new, not Ranks_storeWaiting) */
    RankVerdict verdict;
} Ranks;

/* Builds the job from every run loaded, whatever the scope. *out owns a new Ranks
 * (Ranks_delete). Works (n = 0) without timed dispatches. Errors: DCU_ERR_SQL. */
DcuStatus Ranks_new(TraceDb* db, Ranks** out, DcuError* err);
void Ranks_delete(Ranks* this);

/* One comm dispatch of a rank, for the rank-waits a job summary's reduce computes. */
typedef struct RankComm_ {
    int64_t kernel_id, start_ns, dur_ns;
    int step; /* 0-based step whose window holds its start, -1: none */
} RankComm;

/* The rows of the runs loaded, each taken alone as one rank of a job that is not all here
 * (the map of a job summary, job_summary.h): everything Ranks_new gives a rank that needs
 * no other rank (no rank-waits, no verdict), with its idle, its compute per (kernel, step)
 * (ks) and its comm dispatches (comm) kept. Errors: DCU_ERR_SQL. */
DcuStatus Ranks_newRank(TraceDb* db, Ranks** out, DcuError* err);

/* For a job opened from summaries: the trace a rank was summarized from (owned), as the
 * map recorded it; NULL when the run is no summary. */
char* Ranks_summarySource(TraceDb* db, int64_t run_id);

/* The job's straggler verdict and critical path over rows already filled (a reduce of job
 * summaries, ranks_summary.c): what Ranks_new does after reading the dispatches. */
void Ranks_judge(TraceDb* db, Ranks* j);

/* 1 when the runs are ranks of one job (2 or more, numbered by distributedInfo or pid/gpu). */
int Ranks_isJob(const Ranks* this);
/* The same answer from the database alone, without reading the dispatches (which runs have
 * timed kernel dispatches, their distributedInfo ranks, and whether they are concurrent):
 * cheap enough to choose the first screen. In ranks_job.c, which calls no analysis: the
 * idle module asks it, and ranks.c reads the idle module. */
int Ranks_isJobDb(TraceDb* db);
/* 1 when every run with timed kernels overlaps the others in one folder and clock: ranks
 * told apart by process and GPU, not by a rank in their files. */
int Ranks_concurrentDb(TraceDb* db);
/* The same for a job opened from summaries (job_rank rows): one folder and clock, every
 * rank's span overlapping the others'. */
int Ranks_summaryConcurrentDb(TraceDb* db);
/* 1 when the verdict found a straggler and the others' comm time is mostly waiting for it
 * (their comm per straggling step over twice the straggler's own). */
int Ranks_isWaiting(const Ranks* this);
/* When the loaded runs are a job whose verdict says the comm time is waiting for a straggler,
 * records it in the database (meta 'wait_category' = "comm", 'wait_rank'): Hotspots, the
 * Summary and Categories then mark that time `wait` and give it no ceiling (query.h). Else
 * clears it. Costs one Ranks_new pass, and nothing for a single run. */
DcuStatus Ranks_storeWaiting(TraceDb* db, DcuError* err);

const char* Ranks_sourceName(RankSource s); /* "distributedInfo", "pid/gpu", "unknown" */

/* The verdict as one or two sentences (owned), e.g. "rank 0 computes 24.2 ms more per step
 * (3 of 3 steps), mostly nvjet_... (+23.9 ms, +48.7 dispatches); rank 1 waits 40.4 ms per
 * step in AllReduce (rank-wait; 41.4 ms in collectives). ..." */
char* Ranks_verdictText(const Ranks* this);

/* One row per rank: rank, run, source, gpu, pid, dispatches, kernel_ns, compute_ns, comm_ns,
 * comm_pct, exposed_ns, idle_ns, steps, step_mean_ns, step_max_ns, critical_pct, run_id;
 * with more than RANKS_PERCENTILES_ABOVE ranks, four more rows (rank "min", "median", "p90",
 * "max") pinned on top. Owned by the caller. */
ResultSet* Ranks_table(const Ranks* this);

/* The straggler's excess by kernel (see above): rank, kernel, short_name, excess_ns,
 * straggler_ns, others_ns, calls_excess, pct (of the excess); empty without a straggler.
 * Owned by the caller. */
ResultSet* Ranks_excessTable(const Ranks* this);

/* The rank x step matrix: per rank a row of kind "step" (step time; only with step_rows),
 * "compute", "comm" (kernel time in the step) and "wait" (rank-wait in the step), one column per step
 * (s1, s2, ...), ns. Owned by the caller. */
ResultSet* Ranks_matrix(const Ranks* this, int step_rows);

#endif
