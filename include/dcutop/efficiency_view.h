/* efficiency_view.h - the Efficiency screen: the table of ops against peak and a terminal
 * roofline (ops by arithmetic intensity and achieved TFLOP/s under the memory and compute
 * roofs, in braille cells, log-log). Pure functions of (state, ResultSet, device) that
 * write to a Canvas; the texts the report shares. */
#ifndef DCUTOP_EFFICIENCY_VIEW_H
#define DCUTOP_EFFICIENCY_VIEW_H

#include <stddef.h>

#include "dcutop/canvas.h"
#include "dcutop/efficiency.h"
#include "dcutop/result_set.h"

/* "NVIDIA H200: bf16 989.5, fp16 989.5, fp32 67, fp8 1979, TFLOP/s; 4800 GB/s (peaks:
 * built-in line 31)" */
void EfficiencyView_deviceLine(const EffDevice* d, char* buf, size_t cap);
/* Why there is no % of peak, and how to give one. */
const char* EfficiencyView_noPeakText(void);

#endif
