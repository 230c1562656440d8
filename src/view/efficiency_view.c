/* efficiency_view.c - texts of the Efficiency screen and report (efficiency_view.h). */
#include "dcutop/efficiency_view.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "dcutop/format.h"

void EfficiencyView_deviceLine(const EffDevice* d, char* buf, size_t cap) {
    static const char* const names[PEAK_NTYPES] = {"bf16", "fp16", "fp32", "fp8"};
    size_t n = (size_t)snprintf(buf, cap, "%s:", d->name[0] ? d->name : "(device not named)");
    int any = 0;
    for (int i = 0; i < PEAK_NTYPES && n < cap; i++) {
        if (d->peak.tflops[i] > 0) {
            n += (size_t)snprintf(buf + n, cap - n, "%s %s %g", any ? "," : "", names[i],
                                  d->peak.tflops[i]);
            any = 1;
        }
    }
    if (n < cap && any) {
        n += (size_t)snprintf(buf + n, cap - n, " TFLOP/s;");
    }
    if (n < cap && d->peak.gbps > 0) {
        n += (size_t)snprintf(buf + n, cap - n, " %g GB/s", d->peak.gbps);
    }
    if (n < cap && !any && d->peak.gbps <= 0) {
        /* a table line that leaves every figure empty (not published), or no line at all */
        n += (size_t)snprintf(buf + n, cap - n, "%s",
                              d->peak.source[0] ? " no peak known (no published figures)"
                                                : " no peak known (not in the peaks table)");
    }
    if (n < cap && d->peak.measured) {
        /* which figures rocprof-compute measured, then where the others came from */
        static const char* const fig[PEAK_NTYPES + 1] = {"bf16", "fp16", "fp32", "fp8", "HBM"};
        n += (size_t)snprintf(buf + n, cap - n, " (peaks measured by rocprof-compute, %s:",
                              d->peak.measured_from);
        for (int i = 0, k = 0; i <= PEAK_NTYPES && n < cap; i++) {
            if (d->peak.measured & (1u << i)) {
                n += (size_t)snprintf(buf + n, cap - n, "%s %s", k++ ? "," : "", fig[i]);
            }
        }
        if (n < cap && d->peak.source[0]) {
            n += (size_t)snprintf(buf + n, cap - n, "; others: %s", d->peak.source);
            if (n < cap && d->peak.line > 0) {
                n += (size_t)snprintf(buf + n, cap - n, " line %d", d->peak.line);
            }
        }
        if (n < cap) {
            snprintf(buf + n, cap - n, ")");
        }
    } else if (n < cap && d->peak.source[0]) {
        if (d->peak.line > 0) {
            snprintf(buf + n, cap - n, " (peaks: %s line %d)", d->peak.source, d->peak.line);
        } else {
            snprintf(buf + n, cap - n, " (peaks: %s)", d->peak.source);
        }
    }
}

const char* EfficiencyView_noPeakText(void) {
    return "No peak known for this device: achieved TFLOP/s and GB/s only. To get one, load "
           "a rocprof-compute workload folder of this device with the trace (its roofline.csv "
           "holds the measured peaks, its sysinfo.csv names the device), or add a line "
           "'NAME<TAB>bf16 fp16 fp32 fp8 GBps' (dense TFLOP/s and HBM GB/s, '-' unknown; NAME "
           "a regex matched in the device name) to $XDG_CONFIG_HOME/dcutop/peaks or a --peaks "
           "FILE, or give --peak TFLOPS,GBps.";
}

/* Text of a cell, "" when NULL. */
static const char* txt(const char* s) {
    return s ? s : "";
}

static const RsCell* col(const ResultSet* rs, int r, const char* key) {
    static const RsCell none = {1, 0, 0, NULL};
    int c = ResultSet_columnIndex(rs, key);
    return c < 0 || r < 0 || r >= rs->nrows ? &none : ResultSet_cellc(rs, r, c);
}

Doc* EfficiencyView_opDoc(const ResultSet* rs, int r, const ResultSet* kernels,
                          const EffDevice* dev, int width) {
    Doc* d = Doc_new();
    const int lw = 12;
    char a[64], b[64], line[512];
    (void)width;
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "  %s", txt(col(rs, r, "op")->s));
    Doc_line(d);
    Doc_line(d);
    Doc_field(d, lw, "Shape", STYLE_DEFAULT, "%s", txt(col(rs, r, "shape")->s));
    Doc_field(d, lw, "Type", STYLE_DEFAULT, "%s   model: %s", txt(col(rs, r, "dtype")->s),
              txt(col(rs, r, "kind")->s));
    Doc_field(d, lw, "Calls", STYLE_NUMBER, "%" PRId64, col(rs, r, "calls")->i);
    double flops = col(rs, r, "flops")->d;
    int64_t bytes = col(rs, r, "bytes")->i, ns = col(rs, r, "kernel_ns")->i;
    Format_bytes(a, sizeof(a), bytes);
    Doc_field(d, lw, "Work", STYLE_NUMBER, "%.4g GFLOP, %s moved (model), %.3g FLOP/byte",
              flops / 1e9, a, bytes > 0 ? flops / (double)bytes : 0.0);
    Format_durationAuto(a, sizeof(a), ns);
    Doc_field(d, lw, "Kernel time", STYLE_NUMBER, "%s", a);
    Doc_field(d, lw, "Achieved", STYLE_NUMBER, "%.4g TFLOP/s, %.4g GB/s",
              col(rs, r, "tflops")->d, col(rs, r, "gbps")->d);
    if (!col(rs, r, "pct_peak")->null) {
        Format_durationAuto(a, sizeof(a), col(rs, r, "peak_ns")->i);
        Format_durationAuto(b, sizeof(b), col(rs, r, "lost_ns")->i);
        Doc_field(d, lw, "Of peak", STYLE_NUMBER, "%.2f%%, %s-bound", col(rs, r, "pct_peak")->d,
                  col(rs, r, "bound")->s ? col(rs, r, "bound")->s : "?");
        Doc_field(d, lw, "At peak", STYLE_NUMBER, "%s   lost against peak: %s", a, b);
    } else {
        Doc_field(d, lw, "Of peak", STYLE_DIM, "%s", EfficiencyView_noPeakText());
    }
    EfficiencyView_deviceLine(dev, line, sizeof(line));
    Doc_field(d, lw, "Device", STYLE_DIM, "%s", line);
    if (kernels && kernels->nrows > 0) {
        Doc_line(d);
        Doc_line(d);
        Doc_add(d, STYLE_TITLE, "  Kernels it launched");
        Doc_add(d, STYLE_DIM, "  (its FLOPs and bytes are shared among them by duration)");
        for (int k = 0; k < kernels->nrows; k++) {
            Format_durationAuto(a, sizeof(a), ResultSet_cellc(kernels, k, 3)->i);
            Doc_line(d);
            Doc_add(d, STYLE_NUMBER, "  %10s %6" PRId64 "x  ", a,
                    ResultSet_cellc(kernels, k, 2)->i);
            Doc_add(d, STYLE_NAME, "%s", txt(ResultSet_cellc(kernels, k, 1)->s));
        }
    }
    return d;
}
