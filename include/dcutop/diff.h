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
#define DIFF_MIN_STEPS 3  /* steps a run needs for its step time's noise to be judged alone */

/* What names one op of a PyTorch model across runs (op matching, diff_ops.c): the module path,
 * the op the model called (the outermost aten op; for a backward kernel, the outermost op around
 * its forward op), its input shapes, and its occurrence in the step among ops with the same
 * module, name, shapes and pass. Two runs of one model on other hardware or another backend
 * name their ops alike though their kernels share no name. */
typedef struct DiffOp_ {
    char* module;   /* module path joined by '/', "" outside every module (owned) */
    char* op;       /* op name, e.g. aten::linear; "" when the kernel has no op (owned) */
    char* shapes;   /* input dims, compact JSON '[[16,256,512],[1536,512]]'; "" none (owned) */
    char* pass;     /* forward | backward | other (owned) */
    int occurrence; /* 0-based */
    char* kernels;  /* the kernels it ran: "short name xCALLS; ..." largest time first (owned) */
} DiffOp;

DiffOp* DiffOp_copy(const DiffOp* o);
void DiffOp_delete(DiffOp* o);

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
    DiffOp* op;       /* an op of DiffSide.ops (owned); NULL: a kernel of DiffSide.k */
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
    /* the run's work by op (diff_ops.c): name is the op's identity text, op its parts;
     * dispatches without an op are one entry per kernel (op->op ""). nops 0: no op identity */
    DiffKernel* ops;    /* owned */
    int nops;
    const char* op_source; /* "PyTorch op links" | "markers" (static); NULL: none */
    int64_t op_linked_ns;  /* kernel time with an op */
} DiffSide;

/* Reads what the db's current scope shows (kernel_summary, used files, dispatch durations,
 * step_time, each dispatch's op). label is copied. *out: a new DiffSide (DiffSide_delete). */
DcuStatus DiffSide_fromDb(TraceDb* db, const char* label, DiffSide** out, DcuError* err);
void DiffSide_delete(DiffSide* this);
/* The run's step time: the median of its steps, ms; NAN when it has none. */
double DiffSide_stepMs(const DiffSide* this);

/* DIFF_MATCH_OP: by op identity (DiffOp) when every run of both sides carries it, else as
 * DIFF_MATCH_FULL; Diff.by_op and Diff.matching say which was used. */
typedef enum { DIFF_MATCH_FULL, DIFF_MATCH_SHORT, DIFF_MATCH_OP } DiffMatch;
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
    DiffOp* op;        /* op rows: the op (a copy; kernels is the baseline's), else NULL (owned) */
    char* b_kernels;   /* op rows: the kernels the candidate ran, NULL when gone (owned) */
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
    DiffNoise steps_noise; /* the step time's noise: with repeats the ranges of the runs'
                            * medians, else a bootstrap of each run's steps (DIFF_MIN_STEPS) */
    int steps_has_ci;
    double steps_ci_lo, steps_ci_hi; /* 95% interval of the median's delta, ms */
    double gemm_share_before, gemm_share_after; /* % of device kernel time */
    double gemm_ceil_before, gemm_ceil_after;   /* Amdahl ceiling if GEMM took no time */
    double other_ceil_before, other_ceil_after; /* ... if everything but GEMM took none */
    char top_before[64], top_after[64];         /* largest category on each side */
    double top_share_before, top_share_after;   /* its % */
    int unmatched_a, unmatched_b;               /* kernels gone, new */
    char notes[1024];     /* what cannot be compared, one note a line ('\n'); "" if none */
    /* op matching (DIFF_MATCH_OP with op identity on every run): rows stay per kernel; ops
     * and mods hold the same time per op and per module, largest |delta| first */
    int by_op;
    char matching[512];   /* which matching was used, in words */
    DiffRow* ops;         /* owned; name is the op's identity text */
    int nops;
    DiffRow* mods;        /* per module path (name; "" outside every module), owned */
    int nmods;
    DiffRow* names;       /* per op name and pass ("aten::mul (backward)"), owned */
    int nnames;
    int ops_gone, ops_new;
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
/* The per-op table ("diff_ops": name (the op's identity), status, pass, module, op, shapes,
 * occurrence, category, before, after, delta, delta_pct, ratio, calls_before, calls_after,
 * share_pct, noise, kernels_before, kernels_after, ...) and the per-module one
 * ("diff_modules"), when d->by_op; filter: PCRE2 over the name. *out owned. */
DcuStatus Diff_opTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err);
DcuStatus Diff_moduleTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err);
/* The same per op name and pass ("diff_op_names", first column "op"). */
DcuStatus Diff_opNameTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err);
/* Reads each dispatch's op identity in the db's scope into s->ops (diff_ops.c); leaves
 * s->nops 0 when the trace carries none. ids[i]: kernel id of s->k[i]. */
DcuStatus DiffSide_readOps(TraceDb* db, DiffSide* s, const int64_t* ids, DcuError* err);
const char* Diff_presenceName(DiffPresence p);

/* The CI gate's answers: a trusted regression beyond the limit on any layer fails; one beyond
 * the limit that the noise cannot tell from no change is untrusted, or inconclusive when the
 * layers disagree (the caller warns, or fails with --strict). */
enum { GATE_PASSED = 0, GATE_FAILED = 1, GATE_UNTRUSTED = 2, GATE_INCONCLUSIVE = 3 };
/* "passed", "failed", "untrusted", "inconclusive" */
const char* Gate_resultName(int result);

/* The CI gate on every layer: device kernel time (noise that cannot be judged counts as a real
 * change) and the median step time when both sides have it (noise that cannot be judged is
 * untrusted). With part (a category name, else a PCRE2 over kernel names) only those kernels'
 * summed time is judged. GATE_FAILED when any layer is slower than the baseline by more than
 * pct percent and outside noise; GATE_UNTRUSTED (GATE_INCONCLUSIVE when the layers disagree)
 * when one is slower by more than pct but within noise. why gets one line naming the layer
 * that decided and what the others say ("gate passed: ...", "gate FAILED: ...", "gate
 * WARNING: ..."). Returns -1 on a bad pattern (err set). */
int Diff_gate(const Diff* d, double pct, const char* part, char* why, size_t cap, DcuError* err);
/* The layers' overall verdict of a diff, as Abba_result's: trusted (every layer that can be
 * judged says the same), untrusted (none is outside noise) or inconclusive (they disagree). */
const char* Diff_verdict(const Diff* d, char* buf, size_t n, const char** result);
/* The kernels of part summed into g (a category name, else a PCRE2 over kernel names); label
 * names it. -1 on a bad pattern (err set). Free g with Diff_partDone. */
int Diff_partRow(const Diff* d, const char* part, DiffRow* g, char* label, size_t cap,
                 DcuError* err);
void Diff_partDone(DiffRow* g);

/* A-B-B-A over four runs: effect = mean(B) - mean(A), drift = A2 - A1; trusted when
 * |effect| > |drift|. Rows: device kernel time, step time (when all four runs have steps),
 * then each kernel, largest |effect| first. */
/* The A-B-B-A verdict. Runs in the order taken, A1 B1 B2 A2:
 *   effect  = mean(B1, B2) - mean(A1, A2)
 *   drift   = A2 - A1: the machine changing while the runs were taken
 *   repeats = B2 - B1: how much two runs of the same code disagree
 *   noise   = max(|drift|, |repeats|); a row is trusted only when |effect| > noise.
 * One row per layer (device kernel time; the median step time when every run has steps) and
 * per kernel. When the layers agree the verdict is theirs (it rests on the step time, plain
 * timing, when present); when they disagree it is INCONCLUSIVE, and the text names the trusted
 * layer and what it says.
 * A layer missing from a run is left out of the comparison (a note says so), never shown as nan. */
typedef struct AbbaRow_ {
    char* name;        /* kernel name, or "device kernel time" / "step time (median)" (owned) */
    const char* layer; /* "kernel", "op" or "steps" (static) */
    double v[4];       /* A1, B1, B2, A2: ms */
    double mean_a, mean_b, effect, effect_pct, drift, drift_pct;
    double repeats, repeats_pct; /* B2 - B1, ms, and % of B1 */
    double noise;                /* max(|drift|, |repeats|), ms */
    int no_noise;                /* noise exactly 0 on a time in all four runs: a run given
                                  * twice; never trusted */
    int trusted;                 /* |effect| > noise, and noise measured */
    char* category;              /* a kernel row's category (owned); NULL on the layer rows */
    char* a_name;                /* kernel rows: the baseline's full name, NULL when new */
    char* b_name;                /* ... the candidate's, NULL when gone (both owned) */
} AbbaRow;

typedef struct Abba_ {
    AbbaRow* rows;     /* owned; rows[0] device kernel time, rows[1] step time if has_steps */
    int nrows;
    int has_steps;
    int decides;       /* the layer row the verdict rests on: the steps row when has_steps, else 0
                        * (meaningful only when nhead > 0) */
    int disagree;      /* 1: the two layer rows give different verdicts (trusted vs not, or
                        * trusted effects of opposite sign) */
    int nhead;         /* rows[0..nhead): the layers compared, before the kernels */
    char notes[512];
    int by_op;         /* the rows after nhead are ops (layer "op"), matched by op identity */
    char matching[512]; /* which matching was used (Diff.matching) */
    AbbaRow* krows;    /* by_op: the kernels, for the categories (owned) */
    int nkrows;
    struct AbbaEvidence_* ev; /* memory, numerics, environment (abba_evidence.h; owned
                               * unless ev_borrowed); NULL: time only */
    int ev_borrowed;
} Abba;

DcuStatus Abba_compute(const DiffSide* const runs[4], DiffMatch match, Abba** out,
                       DcuError* err);
void Abba_delete(Abba* this);
/* Fills a row's means, effect, drift, repeats, noise and trust from its v[4]. */
void Abba_finishRow(AbbaRow* r);
/* "abba": name, layer, a1, b1, b2, a2, mean_a, mean_b, effect, effect_pct, drift, drift_pct,
 * repeats, repeats_pct, noise, verdict (trusted / untrusted); times in ms. */
ResultSet* Abba_table(const Abba* a);
/* The same table with every time in integer ns (--export abba, as every export). */
ResultSet* Abba_tableNs(const Abba* a);
/* The same per category ("abba_categories"; name is the category, layer "category"): each
 * category's kernels summed per run, then judged as a layer is; largest |effect| first. */
ResultSet* Abba_categoryTable(const Abba* a);
/* The same with every time in integer ns (an export of the category view). */
ResultSet* Abba_categoryTableNs(const Abba* a);
/* Why row r is (un)trusted, e.g. "TRUSTED (|effect| > noise 0.003 ms)" or "UNTRUSTED (the
 * repeats B2 - B1 disagree by 1.071 ms >= |effect|)". Writes at most n bytes to buf. */
const char* Abba_rowWhy(const AbbaRow* r, char* buf, size_t n);
/* The one verdict in words (Abba_result says which kind): the layers agreeing, e.g. "step
 * time decides (plain timing): B faster by 2.1%, beyond its noise (0.05 ms, drift A2 - A1);
 * device kernel time agrees", or disagreeing: what each says. */
const char* Abba_verdict(const Abba* a, char* buf, size_t n);
/* When the layers disagree, which to trust and what it means, in the direction the trusted
 * layer shows (never a gain on a regression); else "". */
const char* Abba_disagreement(const Abba* a, char* buf, size_t n);
typedef enum { ABBA_TRUSTED, ABBA_UNTRUSTED, ABBA_INCONCLUSIVE, ABBA_NONE,
               ABBA_REJECTED } AbbaResult;
/* The overall verdict: REJECTED when a metric of the evidence changed beyond its tolerance
 * (whatever time says), INCONCLUSIVE when the layers disagree, NONE with no layer; a trusted
 * verdict is UNTRUSTED when the runs' environment differs (abba_evidence.h). */
AbbaResult Abba_result(const Abba* a);
/* Hands the evidence of the four runs (abba_evidence.h) to a: its verdict and gate judge it
 * too. a owns it from here. */
void Abba_setEvidence(Abba* a, struct AbbaEvidence_* ev);
/* The same, ev borrowed (it must outlive a): the Diff screen recomputes its Abba. */
void Abba_borrowEvidence(Abba* a, struct AbbaEvidence_* ev);
/* "trusted", "untrusted", "inconclusive", "none", "rejected" */
const char* Abba_resultName(AbbaResult r);
/* 1 when the overall verdict is trusted. */
int Abba_trusted(const Abba* a);
/* The CI gate on an A-B-B-A, on every layer (or with part on the kernels of that category,
 * else matching that PCRE2, their times summed per run). GATE_FAILED when any layer's effect
 * is a slowdown of more than pct percent and trusted (|effect| > noise), GATE_UNTRUSTED (or
 * GATE_INCONCLUSIVE when the layers disagree) when one is more than pct but untrusted, else
 * GATE_PASSED; -1 on a bad pattern (err set) or a part that matches no kernel. why: one line,
 * as Diff_gate's. */
int Abba_gate(const Abba* a, double pct, const char* part, char* why, size_t cap, DcuError* err);

#endif
