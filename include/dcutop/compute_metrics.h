/* compute_metrics.h - what a rocprof-compute analysis database says about each kernel
 * (load_compute.c stores it): its Speed-of-Light metrics, by the database's own metric
 * names, and its point on the roofline the database measured. Kernels are the trace's
 * kernels (joined by normalized name), so a hotspot of a trace shows them too. */
#ifndef DCUTOP_COMPUTE_METRICS_H
#define DCUTOP_COMPUTE_METRICS_H

#include "dcutop/error.h"
#include "dcutop/query.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* One kernel (its full name as kernel.name): one row per Speed-of-Light metric value, in the
 * database's order. Columns: table (sub-table title, 'System Speed-of-Light'), metric_id,
 * metric, value_name ('Avg', 'Peak', 'Pct of Peak', ...), value, unit. Empty when the kernel
 * has none. *out owned by the caller. */
DcuStatus ComputeMetrics_kernel(TraceDb* db, const char* kernel, ResultSet** out,
                                DcuError* err);

/* One kernel's roofline point: achieved GFLOP/s, arithmetic intensity (FLOP/byte) at L1,
 * L2 and HBM, and the measured roofs of the same database (HBM GB/s, FP32 VALU GFLOP/s; 0
 * when absent). 0 when the kernel has no point. */
typedef struct ComputeRoof_ {
    double gflops, ai_l1, ai_l2, ai_hbm;
    double hbm_gbps, fp32_gflops; /* measured roofs */
} ComputeRoof;
int ComputeMetrics_roofline(TraceDb* db, const char* kernel, ComputeRoof* out);

/* Every kernel with a roofline point, most GFLOP/s first: columns name, short_name, gflops,
 * ai_hbm, ai_l2, ai_l1, roof_gflops (the measured roof at its HBM intensity: min(FP32
 * GFLOP/s, ai_hbm * HBM GB/s); NULL when a roof is missing), pct_roof. *fp32_gflops and
 * *hbm_gbps get the measured roofs of the first database (0 when absent). Empty set when no
 * database was loaded. */
DcuStatus ComputeMetrics_points(TraceDb* db, ResultSet** out, double* fp32_gflops,
                                double* hbm_gbps, DcuError* err);

/* The measured figure of the roofline benchmark named metric (roofline.csv's column, e.g.
 * "HBMBw" GB/s, "FP32Flops" GFLOP/s) in file fid, lowest device index first (rocprof-compute
 * reads the first row); 0 when absent or not measured. */
double ComputeMetrics_measuredPeak(TraceDb* db, int64_t fid, const char* metric);

/* --export compute: one row per kernel and value: kernel, short_name, table, metric_id,
 * metric, value_name, value, unit; the Speed-of-Light tables, then each kernel's roofline
 * point (table 'Roofline point': 'Performance' GFLOP/s, 'AI L1', 'AI L2', 'AI HBM' FLOP/byte).
 * o->filter (a regex over the kernel name) applies. */
DcuStatus ComputeMetrics_export(TraceDb* db, const QueryOpts* o, ResultSet** out,
                                DcuError* err);

#endif
