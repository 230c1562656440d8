/* efficiency.h - how far each aten op is from the device's peak: FLOPs and bytes from the
 * recorded shapes (perf_model.h), achieved TFLOP/s and GB/s over the kernels the op
 * launched (cpu_op -> External id -> kernel), % of peak and the roofline bound from the
 * device's peaks (peaks.h). Fills op_perf, dispatch_perf, kernel_perf and eff_device
 * (schema in trace_db.c); every figure is a query over those tables. */
#ifndef DCUTOP_EFFICIENCY_H
#define DCUTOP_EFFICIENCY_H

#include <stddef.h>

#include "dcutop/error.h"
#include "dcutop/peaks.h"
#include "dcutop/query.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* Evaluates the models of every op that launched kernels in a used kernel file and
 * stores the figures. override (--peak) replaces the table for every device; peaks may
 * be NULL (then only achieved figures). Safe to call again (tables are rebuilt). */
DcuStatus Efficiency_build(TraceDb* db, const Peaks* peaks, const PeakFigures* override,
                           DcuError* err);

/* 1 when some cpu_op carries recorded shapes. */
int Efficiency_hasShapes(TraceDb* db);
/* Number of ops a model covered (rows of op_perf). */
long long Efficiency_modelledOps(TraceDb* db);

typedef struct EffDevice_ {
    char name[128];     /* "" when the trace names no device */
    PeakFigures peak;   /* 0 = unknown figure */
    int has_peak;       /* 1 when a compute roof and the bandwidth are both known */
} EffDevice;

/* The device most modelled kernel time ran on; 0 when there is none (no modelled op). */
int Efficiency_device(TraceDb* db, EffDevice* out);

/* Where figure fig of p came from (fig: a PEAK_* type, or PEAK_NTYPES for the bandwidth):
 * "measured (FILE)" (rocprof-compute's roofline), "table (built-in line N)", "user file
 * (FILE line N)", "--peak", or "no peak known". */
void Efficiency_figureSource(const PeakFigures* p, int fig, char* buf, size_t cap);

/* One row per op name, shape and dtype, sorted by time lost against peak (lost_ns).
 * Columns: op, shape, dtype, calls, flops, bytes, kernel_ns, tflops, gbps, pct_peak, bound,
 * peak_source (where the dtype's roof and the bandwidth came from: Efficiency_figureSource),
 * then (unless export_only) kind, intensity, peak_ns, lost_ns. Filter (o->filter) over the
 * op name; o->sort a column key. pct_peak, bound, peak_ns and lost_ns are NULL where the
 * device's peaks are unknown. */
DcuStatus Efficiency_query(TraceDb* db, const QueryOpts* o, int export_only, ResultSet** out,
                           DcuError* err);

/* The kernels one op group (name, shape, dtype as in Efficiency_query) launched: columns
 * name (full kernel name), short_name, dispatches, kernel_ns; most time first. */
DcuStatus Efficiency_opKernels(TraceDb* db, const char* op, const char* shape, const char* dtype,
                               ResultSet** out, DcuError* err);

/* The text that says a trace has no shapes, and how to record them. */
const char* Efficiency_noShapesText(void);

#endif
