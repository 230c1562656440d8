/* compare_runs.h - the runs of a comparison (--diff, --abba, `dcutop A B`): each path loaded
 * into its own database with the session's rules, and read as a DiffSide. Private to src/app;
 * prints nothing (main.c says what went wrong). */
#ifndef DCUTOP_COMPARE_RUNS_H
#define DCUTOP_COMPARE_RUNS_H

#include "dcutop/category.h"
#include "dcutop/diff.h"
#include "dcutop/trace_db.h"

#define COMPARE_MAX_RUNS 64 /* runs a side */

typedef struct CompareRuns_ {
    DiffSide* side[2][COMPARE_MAX_RUNS]; /* [0] baseline, [1] candidate (owned) */
    TraceDb* db[2][COMPARE_MAX_RUNS];    /* each run's database (owned) */
    char* real[2][COMPARE_MAX_RUNS];     /* each run's path, resolved (owned; NULL: unknown) */
    int n[2];
} CompareRuns;

/* Loads path as one more run of side (0 baseline, 1 candidate). *db gets the run's database
 * (borrowed; NULL when none could be opened) even when loading fails, for its load messages.
 * DCU_ERR_EMPTY: nothing could be loaded; DCU_ERR_USAGE: too many runs, or a path that is
 * already a run of this side (a repeat given twice measures no noise, so it is refused). */
DcuStatus CompareRuns_add(CompareRuns* this, int side, const char* path, RuleSet* rules,
                          int strict, int64_t memory, TraceDb** db, DcuError* err);
/* 1 when run i of side holds one run: one folder and one process tag among its kernel files. */
int CompareRuns_isOneRun(const CompareRuns* this, int side, int i);
/* 1 when the two sides are one run each and their files say (Kineto distributedInfo) they
 * are two ranks of one job: different ranks of the same world size. Never a comparison. */
int CompareRuns_areRanks(const CompareRuns* this);
/* The next label of the comma-separated list at *p, for --baseline / --candidate: a label
 * may hold commas itself, so the longest run of items that names a run of db is taken. The
 * label is NUL-terminated in place (*label points at it) and *p moves past it. Returns the
 * run's id, or 0 when no run is named (the label is then the first item). */
int64_t CompareRuns_nextLabel(TraceDb* db, char** p, char** label);
/* The A-B-B-A's evidence beside time (abba_evidence.h) of the four runs A1 = side 0 run 0,
 * B1 = side 1 run 0, B2 = side 1 run 1, A2 = side 0 run 1: read from each run's database, or,
 * for runs marked in one database (marks, with ids[side][i] their run ids), from it with that
 * run alone in scope (the scope is restored). *out owned by the caller. */
struct AbbaEvidence_;
DcuStatus CompareRuns_evidence(const CompareRuns* this, TraceDb* marks, const int64_t* ids[2],
                               struct AbbaEvidence_** out, DcuError* err);
/* Frees every run; the struct is empty again. */
void CompareRuns_done(CompareRuns* this);

#endif
