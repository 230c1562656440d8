/* trace_screen.c - the dispatch trace screen (key 8): every kernel dispatch and copy of one
 * GPU and queue in time order, with the gap before each one, the device idle interval that
 * ends at it and its cause (trace_lane.h), and a bar for its duration (trace_query.h); above,
 * the strip (trace_view.h). A table screen: filter, sort, search and export are the shared
 * ones; Enter opens the kernel, L goes to the next GPU/queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/format.h"
#include "dcutop/query.h"
#include "dcutop/trace_lane.h"
#include "dcutop/trace_view.h"
#include "dcutop/xalloc.h"
#include "screen.h"

#define BAR_W 16
#define PAGE_OPS 50000 /* ops held at a time: about 40 MB (trace_query.h) */

/* What the strip above the table needs, per lane (computed when the lane changes) and per
 * window (the host spans, read again only when the window moves). */
typedef struct TraceExtra_ {
    int lane;            /* the lane the rest is for; -1 none yet */
    QueueDepth queue;
    int has_thread;
    int64_t pid, tid;    /* the launching thread */
    char thread[64];
    LaunchRef* launches; /* the lane's ops with launch calls, by start (owned) */
    int64_t nlaunches;
    int64_t longest;     /* HostLane_longest of the thread; -1: not read yet */
    TraceGap* gaps;      /* the device's idle gaps with causes (owned) */
    int64_t ngaps;
    int64_t lo, hi;      /* the window of the spans below */
    HostSpan* spans;     /* owned */
    int nspans;
    int64_t *op_start, *op_end; /* scratch for the view (owned) */
    unsigned char* op_copy;
    int capops;
    char gap_line[320];
    DeviceLanes dev;     /* the lane's device state over time (device_lane.h) */
} TraceExtra;

static void extra_reset(TraceExtra* x) {
    QueueDepth_done(&x->queue);
    DeviceLanes_done(&x->dev);
    free(x->gaps);
    free(x->spans);
    free(x->launches);
    x->launches = NULL;
    x->nlaunches = 0;
    x->longest = -1;
    x->gaps = NULL;
    x->spans = NULL;
    x->ngaps = 0;
    x->nspans = 0;
    x->lo = x->hi = 0;
    x->has_thread = 0;
    x->lane = -1;
}

static void extra_delete(TraceExtra* x) {
    if (x) {
        extra_reset(x);
        free(x->op_start);
        free(x->op_end);
        free(x->op_copy);
        free(x);
    }
}

/* The lane's queue depth, launching thread and gap causes, once per lane. */
static DcuStatus extra_lane(Screen* s, App* app, DcuError* err) {
    if (!s->trace_x) {
        s->trace_x = xcalloc(1, sizeof(TraceExtra));
        s->trace_x->lane = -1;
    }
    TraceExtra* x = s->trace_x;
    if (x->lane == s->lane) {
        return DCU_OK;
    }
    extra_reset(x);
    const TraceLane* l = &s->lanes[s->lane];
    DcuStatus st = QueueDepth_lane(App_db(app), l, &x->queue, err);
    if (st == DCU_OK) {
        st = TraceGap_lane(App_db(app), l, &x->gaps, &x->ngaps, err);
    }
    if (st != DCU_OK) {
        return st;
    }
    st = HostLane_launches(App_db(app), l, &x->launches, &x->nlaunches, err);
    if (st == DCU_OK) {
        st = DeviceLanes_read(App_db(app), l->gpu, &x->dev, err);
    }
    if (st != DCU_OK) {
        return st;
    }
    x->has_thread = x->nlaunches > 0;
    x->pid = x->nlaunches ? x->launches[0].pid : -1;
    x->tid = x->nlaunches ? x->launches[0].tid : -1;
    x->lane = s->lane;
    return DCU_OK;
}

/* Fills the bar column: the op's duration against the longest on the lane, in eighths. */
static void fill_bars(ResultSet* rs) {
    static const char* const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    int dc = ResultSet_columnIndex(rs, "dur_ns"), bc = ResultSet_columnIndex(rs, "bar");
    int64_t max = 0;
    for (int r = 0; r < rs->nrows; r++) {
        const RsCell* d = ResultSet_cellc(rs, r, dc);
        if (!d->null && d->i > max) {
            max = d->i;
        }
    }
    for (int r = 0; max > 0 && r < rs->nrows; r++) {
        int64_t units = ResultSet_cellc(rs, r, dc)->i * BAR_W * 8 / max;
        char buf[BAR_W * 3 + 4] = "";
        for (int64_t i = 0; i < units / 8; i++) {
            strcat(buf, "█");
        }
        strcat(buf, units == 0 ? "▏" : eighths[units % 8]);
        ResultSet_setText(rs, r, bc, buf);
    }
}

static void set_crumb(Screen* s) {
    free(s->crumb);
    s->crumb = s->nlanes ? xasprintf("Trace > %s (%d/%d, L: next)", s->lanes[s->lane].label,
                                     s->lane + 1, s->nlanes)
                         : xstrdup("Trace");
}

DcuStatus TraceScreen_query(Screen* s, App* app, ResultSet** out, DcuError* err) {
    *out = NULL;
    if (!s->lanes) {
        DcuStatus st = TraceQuery_lanes(App_db(app), &s->lanes, &s->nlanes, err);
        if (st != DCU_OK) {
            return st;
        }
        set_crumb(s);
    }
    if (s->nlanes == 0) {
        static const RsColumn none[] = {{"name", "Name", CT_TEXT}};
        *out = ResultSet_new("trace", none, 1);
        (*out)->footer = xstrdup("No per-dispatch timestamps: no trace.");
        return DCU_OK;
    }
    DcuStatus st = TraceQuery_opsPage(App_db(app), &s->lanes[s->lane], s->filter, s->goto_abs,
                                      PAGE_OPS, out, err);
    if (st == DCU_OK && s->sort) {
        st = Query_sort(*out, s->sort, err);
    }
    if (st != DCU_OK) {
        ResultSet_delete(*out);
        *out = NULL;
        return st;
    }
    st = extra_lane(s, app, err);
    if (st != DCU_OK) {
        ResultSet_delete(*out);
        *out = NULL;
        return st;
    }
    *out = TraceGap_annotate(*out, s->trace_x->gaps, s->trace_x->ngaps);
    fill_bars(*out);
    return DCU_OK;
}

static DcuStatus trace_open(Screen* s, App* app, DcuError* err) {
    DcuStatus st = TableScreen_open(s, app, err);
    if (st == DCU_OK && s->goto_abs >= 0 && s->rs) {
        /* the op that ends the gap: the first from the gap's start (nothing of its lane
         * starts inside a device idle gap) */
        int r = TraceQuery_rowAt(s->rs, s->goto_abs);
        if (r >= 0) {
            s->tv.selected = r;
            s->tv.scroll = r > 2 ? r - 2 : 0;
        }
        s->goto_abs = -1;
    }
    return st;
}

static Reaction trace_handle(Screen* s, App* app, Action a, DcuError* err) {
    if (a == ACT_TRACE_LANE) {
        if (s->nlanes < 2) {
            App_setStatus(app, 0, "Only one GPU/queue in this trace.");
            return REACT_REDRAW;
        }
        s->lane = (s->lane + 1) % s->nlanes;
        s->tv.selected = 0;
        s->tv.scroll = 0;
        set_crumb(s);
        if (TableScreen_requery(s, app, err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err->msg);
        }
        return REACT_REDRAW;
    }
    if (a == ACT_ENTER && s->rs && s->rs->nrows > 0) {
        int r = s->tv.selected, kc = ResultSet_columnIndex(s->rs, "kind");
        const RsCell* kind = kc >= 0 ? ResultSet_cellc(s->rs, r, kc) : NULL;
        if (!kind || !kind->s || strcmp(kind->s, "kernel") != 0) {
            App_setStatus(app, 0, "A copy: no kernel detail (Enter opens kernels).");
            return REACT_REDRAW;
        }
        const RsCell* name = ResultSet_cellc(s->rs, r, ResultSet_columnIndex(s->rs, "name"));
        const RsCell* shrt = ResultSet_cellc(s->rs, r, ResultSet_columnIndex(s->rs, "short_name"));
        return App_open(app, &KernelScreen, name->s ? name->s : "", NULL,
                        xasprintf("Trace > %s", shrt->s ? shrt->s : ""));
    }
    return TableScreen_handle(s, app, a, err);
}

/* The selected op's gap in words, with its cause and its main host activity (the activity's
 * total in the gap; a sync gap: the call and the op that issued it, and the call's time);
 * where no device idle gap ends at the op, the device idle inside its queue gap (ended by
 * another queue's op) and the rest, other-stream. */
static void gap_line(const Screen* s, TraceExtra* x, int sel, int64_t start) {
    const RsCell* gap = ResultSet_cellc(s->rs, sel, ResultSet_columnIndex(s->rs, "gap_ns"));
    const TraceGap* g = TraceGap_endingAt(x->gaps, x->ngaps, start);
    char a[32], b[32];
    if (g && strcmp(g->cause, "unknown") == 0) {
        Format_durationAuto(a, sizeof(a), g->g1 - g->g0);
        snprintf(x->gap_line, sizeof(x->gap_line),
                 "Gap before it: GPU idle %s, cause unknown (no launch call traced for it).", a);
    } else if (g) {
        Format_durationAuto(a, sizeof(a), g->g1 - g->g0);
        Format_durationAuto(b, sizeof(b), g->host_ns);
        /* the figures before the name: a narrow screen cuts the name, never them */
        snprintf(x->gap_line, sizeof(x->gap_line), "Gap before it: GPU idle %s, %s; %s %s in %s",
                 a, g->cause, strcmp(g->cause, "sync") == 0 ? "host blocked" : "host mostly", b,
                 g->host);
    } else if (gap->null) {
        snprintf(x->gap_line, sizeof(x->gap_line), "The first op of this GPU/queue.");
    } else if (gap->i > 0) {
        int64_t idle = TraceGap_idleIn(x->gaps, x->ngaps, start - gap->i, start);
        char c[32];
        Format_durationAuto(a, sizeof(a), gap->i);
        Format_durationAuto(b, sizeof(b), idle);
        Format_durationAuto(c, sizeof(c), gap->i - idle);
        if (idle > 0) { /* device idle that another queue's op ended, then a wait */
            snprintf(x->gap_line, sizeof(x->gap_line),
                     "Gap before it: %s on this queue = GPU idle %s + other-stream %s.", a, b,
                     c);
        } else {
            snprintf(x->gap_line, sizeof(x->gap_line),
                     "Gap before it: %s on this queue while the GPU ran another queue "
                     "(other-stream: not GPU idle).", a);
        }
    } else {
        snprintf(x->gap_line, sizeof(x->gap_line), "No gap before it: the queue was busy.");
    }
}

/* The window of the strip: the rows on screen in time order, else around the selected op;
 * fills the view's op arrays with the lane's ops in it. */
static void strip_window(Screen* s, TraceExtra* x, int page, int64_t* lo, int64_t* hi) {
    const ResultSet* rs = s->rs;
    int ac = ResultSet_columnIndex(rs, "abs_start_ns"), dc = ResultSet_columnIndex(rs, "dur_ns");
    int gc = ResultSet_columnIndex(rs, "gap_ns");
    int sel = s->tv.selected, first = s->tv.scroll, last = first + page;
    last = last > rs->nrows ? rs->nrows : last;
    int64_t ss = ResultSet_cellc(rs, sel, ac)->i, se = ss + ResultSet_cellc(rs, sel, dc)->i;
    if (!s->sort && first < last) {
        *lo = ResultSet_cellc(rs, first, ac)->i;
        *hi = *lo + 1;
        for (int r = first; r < last; r++) {
            int64_t e = ResultSet_cellc(rs, r, ac)->i + ResultSet_cellc(rs, r, dc)->i;
            *hi = e > *hi ? e : *hi;
        }
    } else { /* sorted: the selected op and its gap, a quarter of that on each side */
        const RsCell* g = ResultSet_cellc(rs, sel, gc);
        int64_t span = se - ss + (g->null ? 0 : g->i), pad = span / 4 + 1;
        *lo = ss - (g->null ? 0 : g->i) - pad;
        *hi = se + pad;
        first = 0;
        last = rs->nrows;
    }
    if (x->capops < rs->nrows) {
        x->capops = rs->nrows;
        x->op_start = xrealloc(x->op_start, sizeof(int64_t) * (size_t)x->capops);
        x->op_end = xrealloc(x->op_end, sizeof(int64_t) * (size_t)x->capops);
        x->op_copy = xrealloc(x->op_copy, (size_t)x->capops);
    }
}

static void trace_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    TraceExtra* x = s->trace_x;
    int rows = TRACE_STRIP_ROWS, dev_rows = 0;
    int64_t at = 0;
    if (x && s->rs && s->rs->nrows > 0 && s->tv.selected >= 0 &&
        s->tv.selected < s->rs->nrows) { /* a long gap line wraps onto a row of its own */
        int ac = ResultSet_columnIndex(s->rs, "abs_start_ns");
        at = ResultSet_cellc(s->rs, s->tv.selected, ac)->i;
        gap_line(s, x, s->tv.selected, at);
        /* the device lanes that fit while the table keeps 10 rows (and its header) */
        dev_rows = DeviceLanes_count(&x->dev);
        int room = h - TraceView_rows(x->gap_line, 0, App_width(app)) - 12;
        dev_rows = dev_rows < room ? dev_rows : room > 0 ? room : 0;
        rows = TraceView_rows(x->gap_line, dev_rows, App_width(app));
    }
    s->reserve = x && s->rs && s->rs->nrows > 0 && h > rows + 6 ? rows : 0;
    TableScreen_render(s, app, c, y0 + s->reserve, h - s->reserve);
    if (!s->reserve) {
        return;
    }
    const ResultSet* rs = s->rs;
    int page = h - s->reserve - 1 - (rs->footer ? 1 : 0);
    int64_t lo, hi;
    strip_window(s, x, page, &lo, &hi);
    int ac = ResultSet_columnIndex(rs, "abs_start_ns"), dc = ResultSet_columnIndex(rs, "dur_ns");
    int kc = ResultSet_columnIndex(rs, "kind");
    TraceStrip st;
    memset(&st, 0, sizeof(st));
    st.lo = lo;
    st.hi = hi;
    st.sel = -1;
    for (int r = 0; r < rs->nrows; r++) {
        int64_t a = ResultSet_cellc(rs, r, ac)->i, e = a + ResultSet_cellc(rs, r, dc)->i;
        if (a < hi && e >= lo) {
            st.sel = r == s->tv.selected ? st.nops : st.sel;
            const RsCell* kind = ResultSet_cellc(rs, r, kc);
            x->op_copy[st.nops] = kind->s && strcmp(kind->s, "kernel") != 0;
            x->op_start[st.nops] = a;
            x->op_end[st.nops++] = e;
        }
    }
    st.op_start = x->op_start;
    st.op_end = x->op_end;
    st.op_copy = x->op_copy;
    st.gaps = x->gaps;
    st.ngaps = x->ngaps;
    if (x->has_thread && (lo != x->lo || hi != x->hi)) {
        /* the thread that launched the ops in the window (backward passes launch from
         * another thread than the optimizer) */
        int64_t pid = x->pid, tid = x->tid;
        HostLane_threadIn(x->launches, x->nlaunches, lo, hi, &pid, &tid);
        if (pid != x->pid || tid != x->tid || x->longest < 0) {
            x->pid = pid;
            x->tid = tid;
            x->longest = HostLane_longest(App_db(app), pid, tid);
        }
        snprintf(x->thread, sizeof(x->thread), "%lld/%lld", (long long)x->pid,
                 (long long)x->tid);
        DcuError err;
        Error_clear(&err);
        free(x->spans);
        x->spans = NULL;
        x->nspans = 0;
        HostLane_spansFrom(App_db(app), &s->lanes[s->lane], x->pid, x->tid, lo, hi,
                           x->longest, 4096, &x->spans, &x->nspans, &err);
        x->lo = lo;
        x->hi = hi;
    }
    st.host = x->spans;
    st.nhost = x->nspans;
    st.host_label = x->has_thread ? x->thread : NULL;
    st.queue = &x->queue;
    st.gap_line = x->gap_line;
    st.dev = &x->dev;
    st.dev_rows = dev_rows;
    st.at = at;
    TraceView_render(&st, c, y0, App_width(app));
}

static void trace_close(Screen* s) {
    free(s->lanes);
    s->lanes = NULL;
    extra_delete(s->trace_x);
    s->trace_x = NULL;
}

Reaction TraceScreen_openAt(App* app, const TraceLane* lane, int64_t abs_start) {
    Screen* s = Screen_new(&TraceScreen);
    s->goto_abs = abs_start;
    DcuError err;
    Error_clear(&err);
    if (TraceQuery_lanes(App_db(app), &s->lanes, &s->nlanes, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
        Screen_delete(s);
        return REACT_REDRAW;
    }
    for (int i = 0; lane && i < s->nlanes; i++) {
        if (s->lanes[i].file == lane->file && s->lanes[i].gpu == lane->gpu &&
            s->lanes[i].stream == lane->stream) {
            s->lane = i;
        }
    }
    set_crumb(s);
    if (App_push(app, s, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
    }
    return REACT_REDRAW;
}

static const char* const trace_keys[] = {"start_ns", "gap_ns", "idle_ns", "cause", "dur_ns",
                                         "short_name", "category", "bar", NULL};
static const char* const trace_drop[] = {"bar", "category", "idle_ns", "cause", NULL};

const ScreenOps TraceScreen = {"trace", "Trace", -1, trace_open, trace_handle,
                               trace_render, TableScreen_selection, trace_close,
                               VIEW_COUNT, trace_keys, "short_name", trace_drop, 1};
