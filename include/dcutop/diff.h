/* diff.h - comparing runs (issue 8): a baseline side A against a candidate side B, each one run
 * or a group of repeated runs, per kernel and per category, with noise, a summary, a CI gate,
 * and the A-B-B-A verdict. No curses; SQL only in DiffSide_fromDb (diff_side.c).
 *
 * Noise, in this order of preference:
 *  - two or more repeats on both sides: a change is "within noise" when the two sides'
 *    min..max ranges over the repeats overlap (run-to-run noise is what repeats measure);
 *  - per-dispatch data on both sides: a percentile bootstrap (DIFF_BOOT_MAX replicates, a
 *    fixed seed per row, so the output is the same on every run) of Δ = total(B) - total(A),
 *    resampling each run's dispatch durations of the kernel with replacement; "within noise"
 *    when the 95% interval contains 0. Categories, the total and a gated part sum the
 *    kernels' replicates (a stratified bootstrap);
 *  - otherwise (per-kernel statistics only, one run a side): noise cannot be judged. */
#ifndef DCUTOP_DIFF_H
#define DCUTOP_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

#define DIFF_BOOT_MAX 400 /* bootstrap replicates (fewer for very large traces) */

/* One kernel of one run as the database's current scope shows it. */
typedef struct DiffKernel_ {
    char* name;       /* normalized full name (owned) */
    char* short_name; /* kernel.short_name (owned) */
    char* category;   /* (owned) */
    int is_gemm;
    int64_t calls;
    int64_t total_ns;
    int64_t* durs;    /* per-dispatch durations, ns (owned); NULL: statistics only */
    int64_t ndurs;
} DiffKernel;

/* One run (one repeat of a side). */
typedef struct DiffSide_ {
    char* label;        /* owned */
    DiffKernel* k;      /* owned, nk entries, by name */
    int nk;
    int64_t kernel_ns;  /* device kernel time, ns */
    int64_t gemm_ns;
    int64_t dispatches;
    int64_t wall_ns;    /* device wall span (first start to last end per file and device), 0:
                         * no timestamps */
    int per_dispatch;   /* every kernel's time comes from per-dispatch rows */
    int pmc;            /* kernel times from a PMC (counter) run */
    double* steps_ms;   /* plain step times, ms (owned); nsteps 0: none */
    int nsteps;
} DiffSide;

/* Reads what the db's current scope shows (kernel_summary, used files, dispatch durations,
 * step_time). label is copied. *out: a new DiffSide (DiffSide_delete). */
DcuStatus DiffSide_fromDb(TraceDb* db, const char* label, DiffSide** out, DcuError* err);
void DiffSide_delete(DiffSide* this);
/* The run's step time: the median of its steps, ms; NAN when it has none. */
double DiffSide_stepMs(const DiffSide* this);

typedef enum { DIFF_MATCH_FULL, DIFF_MATCH_SHORT } DiffMatch;
typedef enum { DIFF_NOISE_UNKNOWN, DIFF_NOISE_WITHIN, DIFF_NOISE_OUTSIDE } DiffNoise;
typedef enum { DIFF_BOTH, DIFF_NEW, DIFF_GONE } DiffPresence;

/* One quantity over the repeats of one side. */
typedef struct DiffStat_ {
    double mean, median, min, max;
    int n; /* repeats that have the quantity (0: none) */
} DiffStat;

/* One compared row: a kernel, a category, the GEMM group or the total. Times in ns. */
typedef struct DiffRow_ {
    char* name;        /* kernel (full name, or short name with --match short), category (owned) */
    char* a_name;      /* baseline full name, NULL when new (owned) */
    char* b_name;      /* candidate full name, NULL when gone (owned) */
    char* category;    /* (owned) */
    int is_gemm;
    DiffPresence presence;
    int fuzzy;          /* matched by short name and the full names differ */
    DiffStat before, after; /* total time per repeat */
    double calls_before, calls_after; /* mean over repeats */
    double delta;       /* after.mean - before.mean */
    double delta_pct;   /* 100 * delta / before.mean; NAN when before is 0 */
    double ratio;       /* after / before; INFINITY when new, 0 when gone */
    double share;       /* 100 * delta / total delta; NAN when the total Δ is 0 */
    DiffNoise noise;
    int has_ci;
    double ci_lo, ci_hi; /* 95% bootstrap interval of delta, when has_ci */
    /* internal: per-repeat totals and bootstrap replicates (owned) */
    double* va;
    double* vb;
    double* boot;
} DiffRow;

typedef struct Diff_ {
    DiffMatch match;
    int na, nb;           /* repeats per side */
    int nboot;            /* bootstrap replicates, 0 when no row has them */
    DiffRow* rows;        /* kernels, largest |delta| first (owned) */
    int nrows;
    DiffRow* cats;        /* categories, largest |delta| first (owned) */
    int ncats;
    DiffRow total;        /* device kernel time */
    DiffRow gemm;         /* the GEMM group */
    DiffStat wall_before, wall_after;   /* ns; n 0: no timestamps */
    DiffStat steps_before, steps_after; /* per-run median step, ms; n 0: none */
    double gemm_share_before, gemm_share_after; /* % of device kernel time */
    double gemm_ceil_before, gemm_ceil_after;   /* Amdahl ceiling if GEMM took no time */
    double other_ceil_before, other_ceil_after; /* ... if everything but GEMM took none */
    char top_before[64], top_after[64];         /* largest category on each side */
    double top_share_before, top_share_after;   /* its % */
    int unmatched_a, unmatched_b;               /* kernels gone, new */
    char notes[1024];     /* what cannot be compared, one note a line ('\n'); "" if none */
} Diff;

/* Compares the repeats a[0..na) (baseline) with b[0..nb) (candidate). Sides are borrowed.
 * *out: a new Diff (Diff_delete). */
DcuStatus Diff_compute(const DiffSide* const* a, int na, const DiffSide* const* b, int nb,
                       DiffMatch match, Diff** out, DcuError* err);
void Diff_delete(Diff* this);

/* The per-kernel table ("diff": name, status, match, category, before, after, delta, delta_pct,
 * ratio, calls_before, calls_after, share_pct, noise, ci_lo, ci_hi, then with repeats each
 * side's median, min and max) and the per-category table ("diff_categories", keyed by
 * category). Rows in the Diff's order; filter: PCRE2 over the name (NULL: all). *out owned. */
DcuStatus Diff_kernelTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err);
DcuStatus Diff_categoryTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err);
/* The summary as a table ("diff_summary": metric, unit, before, after, delta, speedup =
 * before / after, noise). */
ResultSet* Diff_summaryTable(const Diff* d);

/* Text of a DiffNoise as the tables write it: "within", "outside", "unknown". */
const char* Diff_noiseName(DiffNoise n);
const char* Diff_presenceName(DiffPresence p);

/* The CI gate: fails (returns 1) when the candidate's device kernel time, or the part named by
 * part (a category name, else a PCRE2 over kernel names; NULL: all), is slower than the
 * baseline by more than pct percent and the change is not within noise (noise that cannot be
 * judged counts as a real change). why gets one line saying which and why. Returns 0 when it
 * passes, -1 on a bad pattern (err set). */
int Diff_gate(const Diff* d, double pct, const char* part, char* why, size_t cap, DcuError* err);

/* A-B-B-A over four runs: effect = mean(B) - mean(A), drift = A2 - A1; trusted when
 * |effect| > |drift|. Rows: device kernel time (when all four runs have kernel times), step
 * time (when all four runs have steps), then each kernel, largest |effect| first. A layer
 * missing from a run is left out of the comparison (a note says so), never shown as nan. */
typedef struct AbbaRow_ {
    char* name;        /* kernel name, or "device kernel time" / "step time (median)" (owned) */
    const char* layer; /* "kernel" or "steps" (static) */
    double v[4];       /* A1, B1, B2, A2: ms */
    double mean_a, mean_b, effect, effect_pct, drift, drift_pct;
    int trusted;
} AbbaRow;

typedef struct Abba_ {
    AbbaRow* rows;     /* owned */
    int nrows;
    int has_steps;
    int nhead;         /* rows[0..nhead): the layers compared, before the kernels */
    char notes[512];
} Abba;

DcuStatus Abba_compute(const DiffSide* const runs[4], DiffMatch match, Abba** out,
                       DcuError* err);
void Abba_delete(Abba* this);
/* "abba": name, layer, a1, b1, b2, a2, mean_a, mean_b, effect, effect_pct, drift, drift_pct,
 * verdict (trusted / untrusted); times in ms. */
ResultSet* Abba_table(const Abba* a);

#endif
