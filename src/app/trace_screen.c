/* trace_screen.c - the dispatch trace screen (key 8): every kernel dispatch and copy of one
 * GPU and queue in time order, with the gap before each one and a bar for its duration
 * (trace_query.h). A table screen: filter, sort, search and export are the shared ones;
 * Enter opens the kernel, L goes to the next GPU/queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/query.h"
#include "dcutop/xalloc.h"
#include "screen.h"

#define BAR_W 16
#define PAGE_OPS 50000 /* ops held at a time: about 40 MB (trace_query.h) */

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
    fill_bars(*out);
    return DCU_OK;
}

static DcuStatus trace_open(Screen* s, App* app, DcuError* err) {
    DcuStatus st = TableScreen_open(s, app, err);
    if (st == DCU_OK && s->goto_abs >= 0 && s->rs) {
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

static void trace_close(Screen* s) {
    free(s->lanes);
    s->lanes = NULL;
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

static const char* const trace_keys[] = {"start_ns", "gap_ns", "dur_ns", "short_name",
                                         "category", "bar", NULL};
static const char* const trace_drop[] = {"bar", "category", NULL};

const ScreenOps TraceScreen = {"trace", "Trace", -1, trace_open, trace_handle,
                               TableScreen_render, TableScreen_selection, trace_close,
                               VIEW_COUNT, trace_keys, "short_name", trace_drop, 1};
