/* efficiency_view.c - texts of the Efficiency screen and report (efficiency_view.h). */
#include "dcutop/efficiency_view.h"

#include <stdio.h>

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
    if (n < cap && d->peak.source[0]) {
        if (d->peak.line > 0) {
            snprintf(buf + n, cap - n, " (peaks: %s line %d)", d->peak.source, d->peak.line);
        } else {
            snprintf(buf + n, cap - n, " (peaks: %s)", d->peak.source);
        }
    } else if (n < cap && !any) {
        snprintf(buf + n, cap - n, " not in the peaks table");
    }
}

const char* EfficiencyView_noPeakText(void) {
    return "No peak figures for this device: achieved TFLOP/s and GB/s only. Give --peak "
           "TFLOPS,GBps, or add a line to $XDG_CONFIG_HOME/dcutop/peaks.";
}
