/* report_efficiency.c - the Efficiency section of --report (--view efficiency): ops against
 * the device's peaks (efficiency.h), one row per op name and shape, time lost first. */
#include <inttypes.h>
#include <stdio.h>

#include "dcutop/compute_metrics.h"
#include "dcutop/efficiency.h"
#include "dcutop/efficiency_view.h"
#include "dcutop/export.h"
#include "dcutop/format.h"
#include "dcutop/report.h"
#include "dcutop/report_table.h"

static const char* const eff_keys[] = {"op", "shape", "dtype", "calls", "kernel_ns", "tflops",
                                       "gbps", "pct_peak", "bound", "lost_ns", NULL};

static const char* const point_keys[] = {"short_name", "gflops", "ai_hbm", "ai_l2", "ai_l1",
                                         "roof_gflops", "pct_roof", NULL};

/* Kernels of a rocprof-compute analysis database on its measured roofline (no shapes needed:
 * the database counted the FLOPs and bytes). */
static void compute_points(TraceDb* db, const ReportOpts* o, FILE* out) {
    ResultSet* rs = NULL;
    double fp32 = 0, hbm = 0;
    DcuError e;
    if (ComputeMetrics_points(db, &rs, &fp32, &hbm, &e) != DCU_OK || rs->nrows == 0) {
        ResultSet_delete(rs);
        return;
    }
    fputs("\n  rocprof-compute kernels on the measured roofline", out);
    if (fp32 > 0 && hbm > 0) {
        fprintf(out, " (FP32 %g GFLOP/s, HBM %g GB/s; roof = min(FP32, FLOP/B HBM x HBM))", fp32,
                hbm);
    }
    fputs("\n", out);
    Report_table(out, rs, point_keys, "short_name", o->width, o->top);
    ResultSet_delete(rs);
}

DcuStatus Report_efficiency(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    QueryOpts q = o->query;
    q.what_if = NULL;
    q.n_what_if = 0;
    ResultSet* rs = NULL;
    DcuStatus s = Efficiency_query(db, &q, o->format != FMT_TEXT, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet_keepTop(rs, o->top_all);
    if (o->format == FMT_CSV) {
        fputs("# efficiency\r\n", out);
        s = Export_csv(rs, out, err);
        fputs("\r\n", out);
    } else if (o->format == FMT_JSON) {
        fputs(",\n\"efficiency\": ", out);
        s = Export_json(rs, out, err);
    } else {
        fputs("\nEfficiency: ops against the device's peak, most time lost first\n", out);
        EffDevice d;
        char line[512];
        if (!Efficiency_hasShapes(db)) {
            fprintf(out, "  %s\n", Efficiency_noShapesText());
            compute_points(db, o, out);
        } else if (!Efficiency_device(db, &d)) {
            fputs("  (no kernel of this trace comes from an op with a performance model)\n", out);
        } else {
            EfficiencyView_deviceLine(&d, line, sizeof(line));
            fprintf(out, "  %s\n", line);
            if (!d.has_peak) {
                fprintf(out, "  %s\n", EfficiencyView_noPeakText());
            }
            Report_table(out, rs, eff_keys, "shape", o->width, o->top);
        }
    }
    ResultSet_delete(rs);
    return s;
}
