/* query.h - every table dcutop shows, as a query over the TraceDb schema into a ResultSet.
 * Filters are PCRE2 patterns bound as SQL parameters (name REGEXP ?), never pasted into
 * SQL text; sort keys come from each table's column list (a whitelist). */
#ifndef DCUTOP_QUERY_H
#define DCUTOP_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/amdahl.h"
#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

typedef enum { VIEW_FILES, VIEW_HOTSPOTS, VIEW_CATEGORIES, VIEW_API, VIEW_COPIES, VIEW_COUNT } ViewId;

typedef struct QueryOpts_ {
    const char* filter;     /* PCRE2 over the name column; '!' negates; NULL = all */
    const char* sort;       /* column key (optionally ":asc" / ":desc"); NULL = default */
    const WhatIf* what_if;  /* categories view: factors per category or group (borrowed) */
    int n_what_if;
    const char* category;   /* hotspots, categories: only this category, or the group "GEMM" /
                             * "non-GEMM" (by the categoriser's verdict, not the name) */
    int64_t run;            /* files: only this run's files (0: the runs of the scope) */
    int launch_stats;       /* hotspots: 1 adds the launch-statistics columns (launched,
                             * call_p50_ns, delay_p50_ns, delay_p95_ns, delay_max_ns,
                             * short_launch_pct, delay_outliers; idle.h) at the end, when
                             * some dispatch has a correlated launch call; computed once per
                             * data state (Idle_launchTable) */
} QueryOpts;

typedef struct Totals_ {
    int64_t kernel_ns;     /* total device kernel time of used files */
    int64_t dispatches;    /* calls summed over kernels */
    int64_t kernels;       /* distinct kernels with time */
    int per_dispatch;      /* 1 if kernel data came (at least partly) from per-dispatch rows */
    int64_t api_ns, api_calls;
    int64_t copy_ns, copy_calls;
    int64_t files, files_loaded, rows_rejected;
    int pmc;               /* some used kernel file came from a PMC run */
    int64_t gemm_ns;       /* GEMM group time */
    int64_t wait_ns;       /* time waiting for a straggler rank (the wait category, ranks.h):
                            * not work, so no group's ceiling counts it */
    int wait_gemm;         /* 1 when that category is in the GEMM group */
    /* variability inside one run (variab.h), over the kernels with dispatches */
    int64_t var_ns;        /* summed time above golden */
    int64_t var_kernels;   /* kernels that have a figure; 0: variability is n/a */
    int64_t var_base_ns;   /* device kernel time of those kernels */
    int64_t outliers;      /* dispatches with |z| > 3 */
    int64_t mem_allocs;    /* memory allocations (rocpd memory_allocations), 0: none loaded */
    int64_t mem_peak_bytes; /* the most bytes live at once (level REAL) in any one file */
    int64_t scratch_peak_bytes; /* the same for scratch memory (level SCRATCH), 0: none */
} Totals;

/* Names of views, for --export and --view: "files", "hotspots", ... */
const char* Query_viewName(ViewId v);
int Query_viewByName(const char* name); /* -1 if unknown */

/* DCU_OK for NULL, "GEMM", "non-GEMM" or a category of the rule set; else DCU_ERR_USAGE. */
DcuStatus Query_checkCategory(TraceDb* db, const char* name, DcuError* err);

DcuStatus Query_totals(TraceDb* db, Totals* out, DcuError* err);

/* Runs a view. *out is a new ResultSet (ResultSet_delete). Errors: a bad filter
 * (DCU_ERR_REGEX with the PCRE2 message), an unknown sort key or what-if name
 * (DCU_ERR_USAGE listing the valid ones). */
DcuStatus Query_view(TraceDb* db, ViewId v, const QueryOpts* opts, ResultSet** out,
                     DcuError* err);

/* Sorts rs by "key", "key:asc" or "key:desc" (default direction: numbers descending).
 * Recomputes running columns (cum_pct) in the new order. */
DcuStatus Query_sort(ResultSet* rs, const char* spec, DcuError* err);

/* Whole-program bound for the what-if factors (categories or groups), over device kernel
 * time; 1.0 when none. */
DcuStatus Query_projection(TraceDb* db, const WhatIf* w, int n, double* speedup, DcuError* err);
/* The same bound over the chosen basis (0 device kernel time, 1 wall time; wall falls back to
 * kernel time when no per-dispatch timestamps exist). */
DcuStatus Query_projectionBasis(TraceDb* db, const WhatIf* w, int n, int basis, double* speedup,
                                DcuError* err);
/* What hotspot and category ceilings (and what-if speedups) are computed over: 0 device
 * kernel time (the default), 1 wall time (AMDAHL_BASIS_WALL, timeline.h). A setting of the
 * loaded trace (kept in its meta table) that the UI toggles; shares (pct) always stay shares
 * of device kernel time. Wall time needs per-dispatch timestamps, else kernel time is used. */
DcuStatus Query_setAmdahlBasis(TraceDb* db, int basis, DcuError* err);
int Query_amdahlBasis(TraceDb* db);
/* The denominator of Amdahl shares for a basis: total device kernel time, or device wall time
 * (timeline.h) when basis is 1 and timestamps exist; with overlapping streams (kernel time >
 * busy union) wall * kernel / busy, so that the shares of all parts add up to busy / wall.
 * Without timestamps the kernel time (callers refuse the wall basis: Query_wallAvailable). */
int Query_wallAvailable(TraceDb* db);

/* "gemm=2,copy=inf,attention=80%peak (k=1.6)" into buf: the what-if as given; resolved (may
 * be NULL) adds the factor an "X%peak" entry resolved to. */
void Query_whatIfSpec(const WhatIf* w, const WhatIf* resolved, int n, char* buf, size_t cap);
int64_t Query_basisNs(TraceDb* db, int basis);

#endif
