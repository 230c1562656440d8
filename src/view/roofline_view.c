/* roofline_view.c - a terminal roofline (efficiency_view.h): log10 axes fitted to the
 * points and the roofs, whole decades at the ends; roofs drawn with braille dots (2x4 per
 * cell, U+2800 + bits), ops as whole-cell glyphs on top. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/efficiency_view.h"
#include "dcutop/format.h"

#define LABEL_W 7 /* y tick labels and the axis */

typedef struct Axes_ {
    double lx0, lx1, ly0, ly1; /* log10 ranges */
    int pw, ph;                /* plot size, cells */
} Axes;

static int usable(const RooflinePoint* p) {
    return p->x > 0 && p->y > 0 && isfinite(p->x) && isfinite(p->y);
}

/* Decade ranges over the points, the ridge and the compute roof. */
static int fit(const RooflinePoint* p, int n, double peak, double gbps, int w, int h, Axes* a) {
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (usable(&p[i])) {
            xmin = fmin(xmin, p[i].x);
            xmax = fmax(xmax, p[i].x);
            ymin = fmin(ymin, p[i].y);
            ymax = fmax(ymax, p[i].y);
        }
    }
    if (peak > 0 && gbps > 0) {
        double ridge = peak * 1000 / gbps;
        xmin = fmin(xmin, ridge / 10);
        xmax = fmax(xmax, ridge * 10);
        ymax = fmax(ymax, peak);
        ymin = fmin(ymin, peak / 1000);
    }
    if (!isfinite(xmin) || !isfinite(ymin)) {
        return 0;
    }
    a->lx0 = floor(log10(xmin));
    a->lx1 = ceil(log10(xmax));
    a->ly0 = floor(log10(ymin));
    a->ly1 = ceil(log10(ymax));
    if (a->lx1 <= a->lx0) {
        a->lx1 = a->lx0 + 1;
    }
    if (a->ly1 <= a->ly0) {
        a->ly1 = a->ly0 + 1;
    }
    a->pw = w - LABEL_W;
    a->ph = h - 2;
    return a->pw >= 8 && a->ph >= 3;
}

/* dot coordinates: dx in [0, 2*pw), dy in [0, 4*ph) from the top */
static int dot_x(const Axes* a, double x) {
    double f = (log10(x) - a->lx0) / (a->lx1 - a->lx0);
    return (int)lround(f * (2 * a->pw - 1));
}

static int dot_y(const Axes* a, double y) {
    double f = (log10(y) - a->ly0) / (a->ly1 - a->ly0);
    return (4 * a->ph - 1) - (int)lround(f * (4 * a->ph - 1));
}

int RooflineView_column(const RooflinePoint* p, int n, int i, int w, double peak_tflops,
                        double gbps) {
    Axes a;
    if (i < 0 || i >= n || !usable(&p[i]) || !fit(p, n, peak_tflops, gbps, w, 8, &a)) {
        return -1;
    }
    return LABEL_W + dot_x(&a, p[i].x) / 2;
}

static void braille(Canvas* c, int y, int x, unsigned bits) {
    unsigned cp = 0x2800 + bits;
    char u[4] = {(char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)),
                 (char)(0x80 | (cp & 0x3F)), 0};
    Canvas_put(c, y, x, STYLE_DIM, u, 1);
}

static void roofs(Canvas* c, int py, int px, const Axes* a, double peak, double gbps) {
    static const unsigned bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    unsigned char cells[200][256];
    int pw = a->pw > 256 ? 256 : a->pw, ph = a->ph > 200 ? 200 : a->ph;
    memset(cells, 0, sizeof(cells));
    int prev = -1;
    for (int dx = 0; dx < 2 * pw; dx++) {
        double x = pow(10, a->lx0 + (a->lx1 - a->lx0) * dx / (2.0 * a->pw - 1));
        double y = fmin(peak, x * gbps / 1000);
        int dy = dot_y(a, y);
        /* join the steps of the steep bandwidth roof so it reads as a line */
        int in = prev >= 0 && prev < 4 * ph;
        int lo = in && prev < dy ? prev : dy, hi = in && prev > dy ? prev : dy;
        for (int yy = lo; yy <= hi; yy++) {
            if (yy >= 0 && yy < 4 * ph) {
                cells[yy / 4][dx / 2] |= (unsigned char)bit[yy % 4][dx % 2];
            }
        }
        prev = dy;
    }
    for (int r = 0; r < ph; r++) {
        for (int k = 0; k < pw; k++) {
            if (cells[r][k]) {
                braille(c, py + r, px + k, cells[r][k]);
            }
        }
    }
}

static void ticks(Canvas* c, int y0, int x0, const Axes* a) {
    char buf[32];
    for (int r = 0; r < a->ph; r++) {
        Canvas_put(c, y0 + 1 + r, x0 + LABEL_W - 1, STYLE_DIM, "│", 1);
    }
    for (double e = a->ly0; e <= a->ly1 + 1e-9; e += 1) {
        int r = dot_y(a, pow(10, e)) / 4;
        snprintf(buf, sizeof(buf), "%g", pow(10, e));
        Canvas_put(c, y0 + 1 + r, x0 + LABEL_W - 2 - Format_width(buf), STYLE_DIM, buf, -1);
        Canvas_put(c, y0 + 1 + r, x0 + LABEL_W - 1, STYLE_DIM, "┤", 1);
    }
    int ay = y0 + 1 + a->ph;
    Canvas_put(c, ay, x0 + LABEL_W - 1, STYLE_DIM, "└", 1);
    for (int k = 0; k < a->pw; k++) {
        Canvas_put(c, ay, x0 + LABEL_W + k, STYLE_DIM, "─", 1);
    }
    int last_end = -1;
    for (double e = a->lx0; e <= a->lx1 + 1e-9; e += 1) {
        int col = x0 + LABEL_W + dot_x(a, pow(10, e)) / 2;
        snprintf(buf, sizeof(buf), "%g", pow(10, e));
        int bw = Format_width(buf);
        int at = col - bw / 2;
        if (at + bw > x0 + LABEL_W + a->pw) {
            at = x0 + LABEL_W + a->pw - bw;
        }
        if (at > last_end) {
            Canvas_put(c, ay, col, STYLE_DIM, "┴", 1);
            Canvas_put(c, ay, at, STYLE_DIM, buf, -1);
            last_end = at + bw;
        }
    }
}

void RooflineView_render(Canvas* c, int y0, int x0, int w, int h, const RooflinePoint* p,
                         int n, int selected, double peak_tflops, double gbps,
                         const char* roof_label) {
    Axes a;
    if (w < 24 || h < 5) {
        return;
    }
    int roof = peak_tflops > 0 && gbps > 0;
    int drawn = 0;
    for (int i = 0; i < n; i++) {
        drawn += usable(&p[i]);
    }
    char title[256];
    snprintf(title, sizeof(title), "Roofline  TFLOP/s by FLOP/byte (log)%s%s  ◆ selected  • op",
             roof ? "  roofs " : "", roof ? (roof_label ? roof_label : "") : "");
    Canvas_put(c, y0, x0, STYLE_TITLE, title, w);
    if (!fit(p, n, peak_tflops, gbps, w, h, &a)) {
        Canvas_put(c, y0 + 1, x0 + 2, STYLE_DIM, "(no op with FLOPs to place)", w - 2);
        return;
    }
    int px = x0 + LABEL_W, py = y0 + 1;
    ticks(c, y0, x0, &a);
    if (roof) {
        roofs(c, py, px, &a, peak_tflops, gbps);
    }
    for (int pass = 0; pass < 2; pass++) { /* the selected op last: always on top */
        for (int i = 0; i < n; i++) {
            if (!usable(&p[i]) || (i == selected) != (pass == 1)) {
                continue;
            }
            int cx = dot_x(&a, p[i].x) / 2, cy = dot_y(&a, p[i].y) / 4;
            if (cx >= 0 && cx < a.pw && cy >= 0 && cy < a.ph) {
                Canvas_put(c, py + cy, px + cx, i == selected ? STYLE_SELECTED : STYLE_NUMBER,
                           i == selected ? "◆" : "•", 1);
            }
        }
    }
    if (drawn < n) {
        char note[96];
        int sel_out = selected >= 0 && selected < n && !usable(&p[selected]);
        snprintf(note, sizeof(note), " %d op%s without FLOPs not shown%s ", n - drawn,
                 n - drawn == 1 ? "" : "s", sel_out ? " (◆ selected is one)" : "");
        int nw = Format_width(note);
        if (nw < a.pw) {
            Canvas_put(c, py + a.ph - 1, px + a.pw - nw, STYLE_DIM, note, -1);
        }
    }
}
