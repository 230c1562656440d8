/* trace_view.h - the strip above the Trace screen's table (issue 22): in one time window,
 * the launching thread's host activity (a host lane, names written where they fit), the
 * device lane's ops (kernels █, memsets and copies ▓; where no op is drawn, ░ when the device
 * was busy all the same, on another queue or with an op the filter hides, blank only where
 * it was idle: a blank run is a device idle interval), the queue depth as a sparkline, and a
 * line on the selected op's gap. Under the queue, the device's state where the data has it
 * (device_lane.h): SM clock, memory clock, utilisation, memory used, power, temperature from a
 * device-state log, and the trace's own allocated and reserved memory; each a sparkline in
 * eighths of its full scale (clocks below 95% of their maximum drawn as warnings), its value
 * at the selected op in the margin.
 * A pure view: it draws what it is given into the Canvas. */
#ifndef DCUTOP_TRACE_VIEW_H
#define DCUTOP_TRACE_VIEW_H

#include <stdint.h>

#include "dcutop/canvas.h"
#include "dcutop/device_lane.h"
#include "dcutop/trace_lane.h"

#define TRACE_STRIP_ROWS 4 /* host, device, queue, gap line (one more when it wraps) */

typedef struct TraceStrip_ {
    int64_t lo, hi;             /* the window, ns (trace clock); hi > lo */
    const HostSpan* host;       /* borrowed, by start; NULL/0: no host layer */
    int nhost;
    const char* host_label;     /* "host 1234/1234" or NULL (no launch call) */
    const int64_t* op_start;    /* borrowed: the lane's ops in the window */
    const int64_t* op_end;
    const unsigned char* op_copy; /* borrowed, per op: 1 a memset or copy; NULL: all kernels */
    int nops;
    const TraceGap* gaps;       /* borrowed: the device's idle gaps by g1 (TraceGap_lane);
                                 * NULL: not known (columns without an op stay blank) */
    int64_t ngaps;
    int sel;                    /* index of the selected op in op_*, -1 none */
    const QueueDepth* queue;    /* borrowed; NULL or n = 0: no launch calls */
    const char* gap_line;       /* the selected gap and its cause, or NULL */
    const DeviceLanes* dev;     /* borrowed, may be NULL: the device's state lanes */
    int dev_rows;               /* how many of its lanes with data to draw (TraceView_rows) */
    int64_t at;                 /* the time whose values the lanes' margin shows (ns) */
} TraceStrip;

/* The rows the strip takes at width w: TRACE_STRIP_ROWS, one more when gap_line is wider
 * than w (it wraps at a space onto a second row, so that its figures and names stay whole on
 * an 80-column screen), and dev_rows device lanes. */
int TraceView_rows(const char* gap_line, int dev_rows, int w);
/* Draws TraceView_rows(s->gap_line, s->dev_rows, w) rows from row y, w cells wide. */
void TraceView_render(const TraceStrip* s, Canvas* c, int y, int w);

#endif
