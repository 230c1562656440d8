/* efficiency_view.h - the Efficiency screen: the table of ops against peak and a terminal
 * roofline (ops by arithmetic intensity and achieved TFLOP/s under the memory and compute
 * roofs, in braille cells, log-log). Pure functions of (state, ResultSet, device) that
 * write to a Canvas; the texts the report shares. */
#ifndef DCUTOP_EFFICIENCY_VIEW_H
#define DCUTOP_EFFICIENCY_VIEW_H

#include <stddef.h>

#include "dcutop/canvas.h"
#include "dcutop/doc_view.h"
#include "dcutop/efficiency.h"
#include "dcutop/result_set.h"

/* "NVIDIA H200: bf16 989.5, fp16 989.5, fp32 67, fp8 1979, TFLOP/s; 4800 GB/s (peaks:
 * built-in line 31)" */
void EfficiencyView_deviceLine(const EffDevice* d, char* buf, size_t cap);
/* Why there is no % of peak, and how to give one. */
const char* EfficiencyView_noPeakText(void);

/* One op on the roofline: arithmetic intensity (FLOP/byte) and achieved TFLOP/s; a point
 * with either <= 0 (a copy has no FLOPs) cannot sit on log axes and is counted, not drawn. */
typedef struct RooflinePoint_ {
    double x, y;
} RooflinePoint;

/* A log-log roofline in the rectangle (y0, x0, w, h): a title row, the plot, an axis row.
 * The two roofs (bandwidth gbps: y = x * gbps / 1000, and peak_tflops) are braille dots;
 * ops are '•', the selected one '◆' (distinct glyphs: readable in mono). peak_tflops or
 * gbps <= 0: no roofs, points only. Needs w >= 24 and h >= 5, else draws nothing. */
void RooflineView_render(Canvas* c, int y0, int x0, int w, int h, const RooflinePoint* p,
                         int n, int selected, double peak_tflops, double gbps,
                         const char* roof_label);

/* The cell column (relative to x0) where point i lands, -1 if it is not drawn; for tests
 * and for mapping a point back to its row. */
int RooflineView_column(const RooflinePoint* p, int n, int i, int w, double peak_tflops,
                        double gbps);

/* One op group (row r of an Efficiency_query set) as a document: what the model counted,
 * the rates, how far from peak, and the kernels it launched (Efficiency_opKernels). */
Doc* EfficiencyView_opDoc(const ResultSet* rs, int r, const ResultSet* kernels,
                          const EffDevice* dev, int width);

#endif
