/* kernel_query.h - one kernel: its names, the rule that categorized it, statistics,
 * duration histogram and dispatch list (where per-dispatch data exists). */
#ifndef DCUTOP_KERNEL_QUERY_H
#define DCUTOP_KERNEL_QUERY_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/query.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

#define KQ_BUCKETS 12
#define KQ_SHAPES 8 /* launch shapes listed in the detail, most time first */

/* Variability at one launch shape (kernel_var_shape): its own golden and time above it. */
typedef struct KernelShape_ {
    int64_t grid, workgroup; /* -1: not recorded */
    int64_t dispatches, total_ns, golden_ns, var_ns, outliers;
} KernelShape;

typedef struct KernelDetail_ {
    int64_t id;
    char* name;        /* full normalised name (owned) */
    char* name_raw;    /* the name as the trace gave it, e.g. the mangled symbol (owned) */
    int name_capped;   /* name is a symbol kept mangled: its demangled text passes the cap */
    char* short_name;  /* (owned) */
    char* category;    /* (owned) */
    char* rule_source; /* (owned, NULL when no rule matched) */
    char* rule_pattern; /* the rule's regex (owned, NULL when no rule matched) */
    int rule_line;
    int64_t calls, total_ns, min_ns, max_ns;
    int has_minmax;           /* 0: aggregated stats only, min and max unknown (not 0) */
    double avg_ns, stddev_ns; /* stddev < 0 when unknown */
    double pct;               /* share of device kernel time, 0..100 */
    double ceiling;
    int per_dispatch;         /* dispatch rows exist */
    int64_t dispatches;       /* per-dispatch rows of used files */
    /* log2 duration histogram over per-dispatch rows: bucket i holds durations in
     * [lo_ns * 2^i, lo_ns * 2^(i+1)) */
    int64_t bucket_lo_ns;
    int64_t bucket[KQ_BUCKETS];
    int n_buckets;
    int64_t short_dispatches; /* per-dispatch rows under 10 us (a launch-bound signal) */
    int64_t short_ns;         /* their summed time */
    char* sources;      /* file names that fed it, comma separated (owned) */
    int n_counters;     /* PMC counters: name and mean value */
    char** counter_name;
    double* counter_mean;
    int pmc;
    /* variability inside one run (variab.h); has_var 0: n/a (no dispatches) */
    int has_var;
    int64_t golden_ns, var_ns, outliers;
    /* the launch shapes its dispatches ran at (grid, workgroup), each with its own golden:
     * n_shapes in all, the first KQ_SHAPES by time in shape[] (only when n_shapes > 1) */
    int n_shapes;
    KernelShape shape[KQ_SHAPES];
    /* efficiency (efficiency.h), through the aten ops its dispatches came from;
     * eff_dispatches 0: none has a modelled op */
    int64_t eff_dispatches, eff_ns; /* those dispatches and their time */
    double eff_flops, eff_bytes;
    int eff_known;                  /* the device's peaks are known: eff_peak_ns is set */
    double eff_peak_ns;             /* time at peak; compute-bound when compute >= memory */
    int eff_compute_bound;
    char* eff_ops;                  /* "aten::mm M=8944 N=2816 K=1024 B^T bf16 (48)", one a
                                     * line, most time first, at most 4 (owned) */
} KernelDetail;

DcuStatus KernelQuery_detail(TraceDb* db, const char* name, KernelDetail* out, DcuError* err);
void KernelDetail_done(KernelDetail* d);

/* The dispatches of one kernel (per-dispatch files in use), in launch order.
 * Columns: seq, gpu, queue, stream, pid, tid, start_ns (from the first dispatch of the
 * trace), dur_ns, grid, workgroup, lds, vgpr, sgpr, file. */
DcuStatus KernelQuery_dispatches(TraceDb* db, const char* name, const QueryOpts* opts,
                                 ResultSet** out, DcuError* err);

/* Builds the dispatch(kernel_id) index the first time it is needed (drill-down only).
 * Values the database caches stay valid (an index changes no answer). */
DcuStatus KernelQuery_ensureIndex(TraceDb* db, DcuError* err);

/* The same as work for idle time: stop() is asked every few thousand SQLite steps, and when
 * it says 1 the build is abandoned (rolled back) and 0 returned, to be tried again at the
 * next idle moment. 1 when the index exists. */
int KernelQuery_indexWhenIdle(TraceDb* db, int (*stop)(void));

#endif
