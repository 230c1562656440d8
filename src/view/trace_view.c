/* trace_view.c - see trace_view.h. */
#include "dcutop/trace_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/format.h"
#include "dcutop/xalloc.h"

#define LABEL_W 6 /* "Host  " */

/* The time at the left edge of column i of n over [lo, hi). */
static int64_t col_t(const TraceStrip* s, int i, int n) {
    return s->lo + (int64_t)((double)(s->hi - s->lo) * (double)i / (double)n);
}

/* The innermost host span covering column [a, b): the deepest that overlaps it most; -1. */
static int host_at(const TraceStrip* s, int64_t a, int64_t b) {
    int best = -1;
    int64_t best_cover = 0;
    for (int i = 0; i < s->nhost; i++) {
        const HostSpan* h = &s->host[i];
        if (h->start >= b) {
            break;
        }
        int64_t x = h->start > a ? h->start : a, y = h->end < b ? h->end : b;
        if (y <= x) {
            continue;
        }
        int64_t cover = y - x;
        if (best < 0 || h->depth > s->host[best].depth ||
            (h->depth == s->host[best].depth && cover > best_cover)) {
            best = i;
            best_cover = cover;
        }
    }
    return best;
}

static Style kind_style(int kind) {
    return kind == 2 ? STYLE_CATEGORY : STYLE_NONGEMM;
}

/* The host lane: runs of columns under one span carry its name where it fits. */
static void host_row(const TraceStrip* s, Canvas* c, int y, int n) {
    int* at = xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        at[i] = host_at(s, col_t(s, i, n), col_t(s, i + 1, n) > col_t(s, i, n)
                                               ? col_t(s, i + 1, n)
                                               : col_t(s, i, n) + 1);
    }
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && at[j] == at[i]) {
            j++;
        }
        if (at[i] < 0) {
            for (int k = i; k < j; k++) {
                Canvas_put(c, y, LABEL_W + k, STYLE_DIM, "·", 1);
            }
        } else {
            const HostSpan* h = &s->host[at[i]];
            Style st = kind_style(h->kind);
            if (j - i >= 4) {
                char cut[128];
                Format_cutName(h->name, j - i - 2, cut, sizeof(cut));
                Canvas_put(c, y, LABEL_W + i, st, "▕", 1);
                for (int k = i + 1; k < j - 1; k++) {
                    Canvas_put(c, y, LABEL_W + k, st, " ", 1);
                }
                Canvas_put(c, y, LABEL_W + i + 1, st, cut, j - i - 2);
                Canvas_put(c, y, LABEL_W + j - 1, st, "▏", 1);
            } else {
                for (int k = i; k < j; k++) {
                    Canvas_put(c, y, LABEL_W + k, st, h->kind == 2 ? "▒" : "█", 1);
                }
            }
        }
        i = j;
    }
    free(at);
}

/* The lane's op drawn in column [a, b): the selected one, else a kernel, else a memset or
 * copy; -1 none. */
static int op_at(const TraceStrip* s, int64_t a, int64_t b) {
    int hit = -1;
    for (int k = 0; k < s->nops; k++) {
        if (s->op_start[k] < b && s->op_end[k] >= a) {
            int copy = s->op_copy && s->op_copy[k];
            if (hit < 0 || k == s->sel ||
                (hit != s->sel && !copy && s->op_copy && s->op_copy[hit])) {
                hit = k;
            }
        }
    }
    return hit;
}

/* The device lane: a block where an op of the lane runs (memsets and copies apart); where
 * none does, the device ran an op not drawn (another queue's, or one the filter hides)
 * unless the column lies in its idle gaps. Returns a mask of what was drawn: 1 memset/copy,
 * 2 an op not drawn. */
static int device_row(const TraceStrip* s, Canvas* c, int y, int n) {
    int drawn = 0;
    for (int i = 0; i < n; i++) {
        int64_t a = col_t(s, i, n), b = col_t(s, i + 1, n);
        b = b > a ? b : a + 1;
        int hit = op_at(s, a, b);
        if (hit >= 0) {
            int copy = s->op_copy && s->op_copy[hit];
            drawn |= copy;
            Canvas_put(c, y, LABEL_W + i, hit == s->sel ? STYLE_SELECTED
                                          : copy        ? STYLE_CATEGORY
                                                        : STYLE_BAR,
                       copy ? "▓" : "█", 1);
        } else if (s->gaps && TraceGap_idleIn(s->gaps, s->ngaps, a, b) < b - a) {
            drawn |= 2;
            Canvas_put(c, y, LABEL_W + i, STYLE_DIM, "░", 1);
        } else {
            Canvas_put(c, y, LABEL_W + i, STYLE_DIM, " ", 1);
        }
    }
    return drawn;
}

/* The queue depth: the largest depth in each column, as eighths of the window's largest. */
static void queue_row(const TraceStrip* s, Canvas* c, int y, int n, int64_t* top) {
    static const char* const ticks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    int64_t* d = xmalloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    *top = 0;
    for (int i = 0; i < n; i++) {
        int64_t a = col_t(s, i, n), b = col_t(s, i + 1, n);
        d[i] = QueueDepth_maxIn(s->queue, a, b > a ? b : a + 1);
        *top = d[i] > *top ? d[i] : *top;
    }
    for (int i = 0; i < n; i++) {
        if (d[i] == 0) {
            Canvas_put(c, y, LABEL_W + i, STYLE_DIM, "_", 1);
        } else {
            int k = (int)((d[i] * 8 - 1) / *top);
            Canvas_put(c, y, LABEL_W + i, STYLE_NUMBER, ticks[k > 7 ? 7 : k], 1);
        }
    }
    free(d);
}

int TraceView_rows(const char* gap_line, int dev_rows, int w) {
    return TRACE_STRIP_ROWS + (gap_line && Format_width(gap_line) > w) + dev_rows;
}

/* A lane's value in the margin: "1980MHz", "99%", "8.9GiB", "712W", "57C". */
static void lane_value(char* buf, size_t cap, DeviceLaneKind k, double v) {
    switch (k) {
    case DLANE_SM_CLOCK:
    case DLANE_MEM_CLOCK:
        snprintf(buf, cap, "%.0fMHz", v);
        break;
    case DLANE_UTIL:
        snprintf(buf, cap, "%.0f%%", v);
        break;
    case DLANE_MEM_USED:
    case DLANE_ALLOCATED:
    case DLANE_RESERVED:
        snprintf(buf, cap, v >= 1024.0 * 1024 * 1024 ? "%.1fGiB" : "%.0fMiB",
                 v >= 1024.0 * 1024 * 1024 ? v / (1024.0 * 1024 * 1024) : v / (1024.0 * 1024));
        break;
    case DLANE_POWER:
        snprintf(buf, cap, "%.0fW", v);
        break;
    default:
        snprintf(buf, cap, "%.0fC", v);
        break;
    }
}

/* One device lane at row y: where no value holds, a dim '·'. */
static void dev_row(const TraceStrip* s, DeviceLaneKind k, Canvas* c, int y, int n) {
    static const char* const ticks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    const DeviceSeries* ser = &s->dev->s[k];
    int lowest = DeviceLane_lowest(k);
    Canvas_put(c, y, 0, STYLE_LABEL, DeviceLane_label(k), LABEL_W);
    for (int i = 0; i < n; i++) {
        int64_t a = col_t(s, i, n), b = col_t(s, i + 1, n);
        double v = 0;
        if (!DeviceSeries_at(ser, a, b > a ? b : a + 1, lowest, &v)) {
            Canvas_put(c, y, LABEL_W + i, STYLE_DIM, "·", 1);
            continue;
        }
        int t = ser->top > 0 ? (int)(v / ser->top * 8.0 - 1e-9) : 7;
        t = t < 0 ? 0 : t > 7 ? 7 : t;
        Style st = lowest && ser->top > 0 && v < 0.95 * ser->top ? STYLE_WARNING : STYLE_NUMBER;
        Canvas_put(c, y, LABEL_W + i, st, ticks[t], 1);
    }
    double v = 0;
    char val[32];
    if (DeviceSeries_at(ser, s->at, s->at + 1, lowest, &v)) {
        lane_value(val, sizeof(val), k, v);
        Canvas_put(c, y, LABEL_W + n + 1, STYLE_DIM, val, 9);
    }
}

/* The gap line at row y, wrapped at the last space that fits onto row y + 1 when wider than
 * w (the second row cut with an ellipsis if still too wide). */
static void gap_rows(const char* line, Canvas* c, int y, int w) {
    char cut[384];
    if (Format_width(line) <= w) {
        Canvas_put(c, y, 0, STYLE_DEFAULT, line, w);
        return;
    }
    int used = 0, brk = -1, i = 0;
    while (line[i]) {
        int len = 1, cw = Format_nextChar(line + i, &len);
        cw = cw < 0 ? 1 : cw;
        if (used + cw > w) {
            break;
        }
        brk = line[i] == ' ' ? i : brk;
        used += cw;
        i += len;
    }
    int first = brk > 0 ? brk : i;
    snprintf(cut, sizeof(cut), "%.*s", first, line);
    Canvas_put(c, y, 0, STYLE_DEFAULT, cut, w);
    const char* rest = line + first + (brk > 0);
    Canvas_fillRow(c, y + 1, 0, STYLE_DEFAULT);
    Canvas_put(c, y + 1, 2, STYLE_DEFAULT, Format_cutEnd(rest, w - 2, cut, sizeof(cut)), w - 2);
}

void TraceView_render(const TraceStrip* s, Canvas* c, int y, int w) {
    for (int r = 0; r < TRACE_STRIP_ROWS + (s->dev ? s->dev_rows : 0); r++) {
        Canvas_fillRow(c, y + r, 0, STYLE_DEFAULT);
    }
    int n = w - LABEL_W - 10; /* the right margin holds the scale */
    if (n < 10 || s->hi <= s->lo) {
        return;
    }
    char span[32];
    Format_durationAuto(span, sizeof(span), s->hi - s->lo);
    Canvas_put(c, y, 0, STYLE_LABEL, "Host", LABEL_W);
    if (s->host_label && s->nhost > 0) {
        host_row(s, c, y, n);
    } else {
        Canvas_put(c, y, LABEL_W, STYLE_DIM,
                   s->host_label ? "(no host activity traced in this window)"
                                 : "(no host layer: no API call correlates with these ops)",
                   n);
    }
    Canvas_putf(c, y, LABEL_W + n + 1, STYLE_DIM, "%.9s", span);
    Canvas_put(c, y + 1, 0, STYLE_LABEL, "GPU", LABEL_W);
    static const char* const legend[] = {"", "▓ copy", "░ other", "▓cp ░oth"};
    Canvas_put(c, y + 1, LABEL_W + n + 1, STYLE_DIM, legend[device_row(s, c, y + 1, n)], 9);
    Canvas_put(c, y + 2, 0, STYLE_LABEL, "Queue", LABEL_W);
    if (s->queue && s->queue->n > 0) {
        int64_t top = 0;
        queue_row(s, c, y + 2, n, &top);
        Canvas_putf(c, y + 2, LABEL_W + n + 1, STYLE_DIM, "max %lld", (long long)top);
    } else {
        Canvas_put(c, y + 2, LABEL_W, STYLE_DIM, "(no launch calls: no queue depth)", n);
    }
    int row = y + 3;
    for (int k = 0, drawn = 0; s->dev && k < DLANE_COUNT && drawn < s->dev_rows; k++) {
        if (s->dev->s[k].n > 0) {
            Canvas_fillRow(c, row, 0, STYLE_DEFAULT);
            dev_row(s, (DeviceLaneKind)k, c, row++, n);
            drawn++;
        }
    }
    if (s->gap_line) {
        gap_rows(s->gap_line, c, row, w);
    }
}
