/* efficiency_screen.c - the Efficiency screen (key F, in the Tab cycle): ops grouped by name
 * and shape against the device's peak, most time lost first, over a terminal roofline where
 * the selected row is the '◆' point; Enter opens the op (its figures and kernels). A table
 * screen for sorting, filtering and export (table_screen.c); only the layout is its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/compute_metrics.h"
#include "dcutop/efficiency_view.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static const char* const eff_keys[] = {"op", "shape", "dtype", "calls", "kernel_ns", "tflops",
                                       "gbps", "pct_peak", "bound", "lost_ns", NULL};
static const char* const eff_drop[] = {"gbps", "calls", "dtype", "bound", "tflops", NULL};

/* has_data: 1 the trace has recorded shapes, 2 it has none (asked once, not per frame) */
static DcuStatus es_open(Screen* s, App* app, DcuError* err) {
    s->has_data = Efficiency_hasShapes(App_db(app)) ? 1 : 2;
    return TableScreen_requery(s, app, err);
}

/* Long text over several rows, broken at spaces. Returns the rows used. */
static int put_wrapped(Canvas* c, int y, int h, int w, Style st, const char* text) {
    int rows = 0;
    const char* p = text;
    while (*p && rows < h) {
        int n = (int)strlen(p);
        if (n > w - 2) {
            n = w - 2;
            while (n > 0 && p[n] != ' ') {
                n--;
            }
            if (n == 0) {
                n = w - 2;
            }
        }
        char line[512];
        snprintf(line, sizeof(line), "%.*s", n, p);
        Canvas_put(c, y + rows, 1, st, line, w - 1);
        rows++;
        p += n;
        while (*p == ' ') {
            p++;
        }
    }
    return rows;
}

static void roofline(Screen* s, const EffDevice* d, Canvas* c, int y, int w, int h) {
    const ResultSet* rs = s->rs;
    int ai = ResultSet_columnIndex(rs, "intensity"), tf = ResultSet_columnIndex(rs, "tflops");
    int dt = ResultSet_columnIndex(rs, "dtype");
    RooflinePoint* p = xcalloc((size_t)(rs->nrows + 1), sizeof(*p));
    for (int r = 0; r < rs->nrows; r++) {
        p[r].x = ResultSet_cellc(rs, r, ai)->d;
        p[r].y = ResultSet_cellc(rs, r, tf)->d;
    }
    /* one compute roof for the whole plot: the type of the op group with the most FLOPs (a
     * roof per selection would move the axes under the cursor); bf16 when it has none */
    int fl = ResultSet_columnIndex(rs, "flops"), best = -1;
    for (int r = 0; r < rs->nrows; r++) {
        if (best < 0 || ResultSet_cellc(rs, r, fl)->d > ResultSet_cellc(rs, best, fl)->d) {
            best = r;
        }
    }
    const char* type = best >= 0 ? ResultSet_cellc(rs, best, dt)->s : NULL;
    double peak = PeakFigures_tflops(&d->peak, type);
    if (peak <= 0) {
        type = "bf16";
        peak = d->peak.tflops[PEAK_BF16];
    }
    char label[96];
    snprintf(label, sizeof(label), "%s %g TFLOP/s, %g GB/s", type ? type : "", peak,
             d->peak.gbps);
    RooflineView_render(c, y, 0, w, h, p, rs->nrows, s->tv.selected, peak, d->peak.gbps, label);
    free(p);
}

/* Without shapes: the kernels of a rocprof-compute analysis database on its measured
 * roofline (FP32 roof and HBM bandwidth), when one was loaded. */
static void compute_roofline(TraceDb* db, Canvas* c, int y, int w, int h) {
    ResultSet* rs = NULL;
    double fp32 = 0, hbm = 0;
    DcuError e;
    if (h < 5 || ComputeMetrics_points(db, &rs, &fp32, &hbm, &e) != DCU_OK || rs->nrows == 0) {
        ResultSet_delete(rs);
        return;
    }
    RooflinePoint* p = xcalloc((size_t)rs->nrows, sizeof(*p));
    for (int r = 0; r < rs->nrows; r++) {
        p[r].x = ResultSet_cellc(rs, r, ResultSet_columnIndex(rs, "ai_hbm"))->d;
        p[r].y = ResultSet_cellc(rs, r, ResultSet_columnIndex(rs, "gflops"))->d / 1e3;
    }
    char label[128];
    snprintf(label, sizeof(label), "rocprof-compute kernels: FP32 %g TFLOP/s, HBM %g GB/s",
             fp32 / 1e3, hbm);
    RooflineView_render(c, y, 0, w, h, p, rs->nrows, -1, fp32 / 1e3, hbm, label);
    free(p);
    ResultSet_delete(rs);
}

static void es_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    int w = App_width(app);
    TraceDb* db = App_db(app);
    if (s->has_data == 2) {
        Canvas_put(c, y0 + 1, 1, STYLE_TITLE, "Efficiency", -1);
        int used = put_wrapped(c, y0 + 3, h - 3, w, STYLE_DEFAULT, Efficiency_noShapesText());
        compute_roofline(db, c, y0 + 4 + used, w, h - 4 - used);
        return;
    }
    EffDevice d;
    if (!s->rs || !Efficiency_device(db, &d)) {
        Canvas_put(c, y0 + 1, 1, STYLE_DIM,
                   "No kernel of this trace comes from an op with a performance model.", w - 1);
        return;
    }
    char line[512];
    EfficiencyView_deviceLine(&d, line, sizeof(line));
    Canvas_put(c, y0, 1, STYLE_DIM, line, w - 1);
    int y = 1;
    if (!d.has_peak) {
        y += put_wrapped(c, y0 + y, 2, w, STYLE_WARNING, EfficiencyView_noPeakText());
    }
    int rest = h - y;
    int rh = rest >= 14 ? rest * 3 / 5 : 0; /* the roofline below the table when room */
    int th = rest - rh;
    if (s->layout_w != w) {
        TableLayout_compute(&s->layout, s->rs, s->ops->keys, s->ops->flex, s->ops->drop, w);
        s->layout_w = w;
    }
    /* keep the selection inside the table's own rows (its header takes one) */
    int page = th - 1 > 0 ? th - 1 : 1;
    if (s->tv.selected >= s->tv.scroll + page) {
        s->tv.scroll = s->tv.selected - page + 1;
    }
    if (s->tv.scroll > s->tv.selected) {
        s->tv.scroll = s->tv.selected;
    }
    TableView_render(&s->tv, &s->layout, s->rs, c, y0 + y, th);
    if (s->rs->nrows == 0) {
        Canvas_put(c, y0 + y + 1, 2, STYLE_DIM, "No rows match the filter (Esc clears it).", -1);
    }
    if (rh > 0) {
        roofline(s, &d, c, y0 + y + th, w, rh);
    }
}

static const char* es_selection(Screen* s) {
    static char buf[256];
    if (!s->rs || s->rs->nrows == 0) {
        return NULL;
    }
    const RsCell* op = ResultSet_cellc(s->rs, s->tv.selected, ResultSet_columnIndex(s->rs, "op"));
    const RsCell* sh =
        ResultSet_cellc(s->rs, s->tv.selected, ResultSet_columnIndex(s->rs, "shape"));
    snprintf(buf, sizeof(buf), "%s  %s", op->s ? op->s : "", sh->s ? sh->s : "");
    return buf;
}

static void es_close(Screen* s) {
    (void)s;
}

/* ---- the op, opened with Enter (a document) ---------------------------------------------- */

static void op_close(Screen* s) {
    ResultSet_delete(s->aux[0]);
    ResultSet_delete(s->aux[1]);
    s->aux[0] = s->aux[1] = NULL;
}

static DcuStatus op_build(Screen* s, App* app, DcuError* err) {
    (void)err;
    EffDevice d;
    Efficiency_device(App_db(app), &d);
    Doc_delete(s->doc);
    s->doc = EfficiencyView_opDoc(s->aux[0], 0, s->aux[1], &d, App_width(app));
    s->doc_w = App_width(app);
    return DCU_OK;
}

static DcuStatus op_open(Screen* s, App* app, DcuError* err) {
    return op_build(s, app, err);
}

static void op_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    DcuError err;
    if (!s->doc || s->doc_w != App_width(app)) {
        op_build(s, app, &err);
    }
    int max = s->doc->n - h;
    s->doc_scroll = s->doc_scroll > max ? max : s->doc_scroll;
    s->doc_scroll = s->doc_scroll < 0 ? 0 : s->doc_scroll;
    DocView_render(s->doc, s->doc_scroll, c, y0, h);
}

static Reaction op_handle(Screen* s, App* app, Action a, DcuError* err) {
    (void)err;
    int page = App_bodyHeight(app) - 1;
    switch (a) {
    case ACT_MOVE_UP:
        s->doc_scroll--;
        break;
    case ACT_MOVE_DOWN:
        s->doc_scroll++;
        break;
    case ACT_PAGE_UP:
        s->doc_scroll -= page;
        break;
    case ACT_PAGE_DOWN:
        s->doc_scroll += page;
        break;
    case ACT_MOVE_FIRST:
        s->doc_scroll = 0;
        break;
    case ACT_ENTER: /* the kernel with the most time */
        if (s->aux[1] && s->aux[1]->nrows > 0) {
            const char* k = ResultSet_cellc(s->aux[1], 0, 0)->s;
            const char* shown = ResultSet_cellc(s->aux[1], 0, 1)->s;
            return App_open(app, &KernelScreen, k, NULL, xstrdup(shown ? shown : "kernel"));
        }
        return REACT_NONE;
    default:
        return REACT_NONE;
    }
    return REACT_REDRAW;
}

static const char* op_selection(Screen* s) {
    return s->aux[0] && s->aux[0]->nrows ? ResultSet_cellc(s->aux[0], 0, 0)->s : NULL;
}

const ScreenOps EffOpScreen = {"efficiency", "Op", -1, op_open, op_handle, op_render,
                               op_selection, op_close, VIEW_HOTSPOTS, NULL, NULL, NULL, 0};

/* A one-row copy of row r. */
static ResultSet* copy_row(const ResultSet* rs, int r) {
    ResultSet* one = ResultSet_new(rs->name, rs->cols, rs->ncols);
    int k = ResultSet_addRow(one);
    for (int c = 0; c < rs->ncols; c++) {
        RsCell* dst = ResultSet_cell(one, k, c);
        const RsCell* src = ResultSet_cellc(rs, r, c);
        *dst = *src;
        dst->s = src->s ? xstrdup(src->s) : NULL;
    }
    return one;
}

static Reaction es_handle(Screen* s, App* app, Action a, DcuError* err) {
    if (a != ACT_ENTER) {
        return TableScreen_handle(s, app, a, err);
    }
    if (!s->rs || s->rs->nrows == 0) {
        return REACT_NONE;
    }
    Screen* n = Screen_new(&EffOpScreen);
    n->aux[0] = copy_row(s->rs, s->tv.selected);
    const ResultSet* row = n->aux[0];
    const char* op = ResultSet_cellc(row, 0, ResultSet_columnIndex(row, "op"))->s;
    if (Efficiency_opKernels(App_db(app), op,
                             ResultSet_cellc(row, 0, ResultSet_columnIndex(row, "shape"))->s,
                             ResultSet_cellc(row, 0, ResultSet_columnIndex(row, "dtype"))->s,
                             &n->aux[1], err) != DCU_OK) {
        Screen_delete(n);
        return REACT_REDRAW;
    }
    n->crumb = xstrdup(op ? op : "op");
    if (App_push(app, n, err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err->msg);
    }
    return REACT_REDRAW;
}

const ScreenOps EfficiencyScreen = {"efficiency", "Efficiency", -1,        es_open,
                                    es_handle,    es_render,    es_selection, es_close,
                                    VIEW_HOTSPOTS, eff_keys,    "shape",   eff_drop, 1};
