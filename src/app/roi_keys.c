/* roi_keys.c - the region of interest in the interactive view (roi.h): [ and ] set its start
 * and end from the selected dispatch of a dispatch list or of the trace screen, I picks the
 * steady state and then each iteration in turn, Esc on a top screen without a filter (or
 * roi-clear) clears it. Every screen is requeried after a change; the header shows the ROI. */
#include <stdio.h>
#include <string.h>

#include "dcutop/roi.h"
#include "screen.h"

static Reaction set_roi(App* app, const RoiSpec* spec) {
    DcuError err;
    Error_clear(&err);
    if (Roi_apply(App_db(app), spec, &err) != DCU_OK) {
        App_refreshAll(app); /* a failed ROI leaves the data whole: show it so */
        App_setStatus(app, 1, "%s", err.msg);
        return REACT_REDRAW;
    }
    App_refreshAll(app);
    char label[400];
    Roi_label(App_db(app), label, sizeof(label));
    App_setStatus(app, 0, "%s (Esc on a top screen clears it).", label);
    return REACT_REDRAW;
}

static int64_t cell_int(const ResultSet* rs, int r, const char* key, int* ok) {
    int c = ResultSet_columnIndex(rs, key);
    const RsCell* v = c >= 0 && r >= 0 && r < rs->nrows ? ResultSet_cellc(rs, r, c) : NULL;
    *ok = v && !v->null;
    return *ok ? v->i : 0;
}

/* The selected op's file and absolute start and end (its clock); 0 when there is none. */
static int selected_op(App* app, Screen* s, int64_t* file, int64_t* start, int64_t* end) {
    int r = TableScreen_rsRow(s, s->tv.selected), ok1, ok2;
    if (!s->rs || r < 0) {
        return 0;
    }
    int64_t dur = cell_int(s->rs, r, "dur_ns", &ok2);
    if (s->ops == &TraceScreen) {
        *start = cell_int(s->rs, r, "abs_start_ns", &ok1);
        *file = s->lanes[s->lane].file;
    } else {
        /* the dispatch list shows starts from the first dispatch in view (kernel_query.c) */
        int64_t rel = cell_int(s->rs, r, "start_ns", &ok1);
        *start = rel + TraceDb_scalarInt(App_db(app), "SELECT min(start_ns) FROM dispatch");
        sqlite3_stmt* st = NULL;
        int c = ResultSet_columnIndex(s->rs, "file");
        *file = -1;
        if (c >= 0 && TraceDb_prepare(App_db(app), "SELECT id FROM source_file WHERE name = ?1",
                                      &st, NULL) == DCU_OK) {
            sqlite3_bind_text(st, 1, ResultSet_cellc(s->rs, r, c)->s, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(st) == SQLITE_ROW) {
                *file = sqlite3_column_int64(st, 0);
            }
            sqlite3_finalize(st);
        }
        ok1 = ok1 && *file >= 0;
    }
    *end = *start + dur;
    return ok1 && ok2;
}

static Reaction bound_here(App* app, Screen* s, int is_end) {
    if (s->ops != &TraceScreen && s->ops != &DispatchScreen) {
        App_setStatus(app, 0, "[ and ] work on a dispatch list and on the trace screen (8).");
        return REACT_REDRAW;
    }
    int64_t file, start, end;
    if (!selected_op(app, s, &file, &start, &end)) {
        App_setStatus(app, 0, "No timed dispatch selected.");
        return REACT_REDRAW;
    }
    RoiSpec spec;
    if (!Roi_active(App_db(app), &spec) || spec.kind != ROI_WINDOW) {
        memset(&spec, 0, sizeof(spec));
        spec.kind = ROI_WINDOW;
    }
    if (is_end) {
        spec.has_end = 1;
        spec.end_from_end = 0;
        spec.end_ns = Roi_relative(App_db(app), file, end);
    } else {
        spec.has_start = 1;
        spec.start_from_end = 0;
        spec.start_ns = Roi_relative(App_db(app), file, start);
    }
    if (spec.has_start && spec.has_end && spec.end_ns < spec.start_ns) {
        App_setStatus(app, 1, "The ROI would end before it starts: pick a later dispatch for ].");
        return REACT_REDRAW;
    }
    Reaction r = set_roi(app, &spec);
    if (!is_end && s->rs && s->rs->nrows > 0) {
        s->tv.selected = 0; /* the start dispatch is now the first row */
        s->tv.scroll = 0;
    }
    return r;
}

/* off -> steady state -> iteration 1 -> 2 -> ... -> off (when the next does not exist). */
static Reaction next_iteration(App* app) {
    RoiSpec spec;
    int active = Roi_active(App_db(app), &spec) && spec.kind == ROI_ITERATION;
    int next = !active ? 0 : spec.iteration + 1;
    memset(&spec, 0, sizeof(spec));
    spec.kind = ROI_ITERATION;
    spec.iteration = next;
    DcuError err;
    Error_clear(&err);
    if (Roi_apply(App_db(app), &spec, &err) != DCU_OK) {
        App_refreshAll(app);
        App_setStatus(app, err.code != DCU_ERR_USAGE, "%s",
                      err.code == DCU_ERR_USAGE ? "Region of interest cleared (no more iterations)."
                                                : err.msg);
        return REACT_REDRAW;
    }
    App_refreshAll(app);
    char label[400];
    Roi_label(App_db(app), label, sizeof(label));
    App_setStatus(app, 0, "%s (I: next, Esc on a top screen clears it).", label);
    return REACT_REDRAW;
}

Reaction RoiKeys_handle(App* app, Screen* s, Action a) {
    switch (a) {
    case ACT_ROI_START:
    case ACT_ROI_END:
        return bound_here(app, s, a == ACT_ROI_END);
    case ACT_ROI_ITERATION:
        return next_iteration(app);
    case ACT_ROI_CLEAR: {
        DcuError err;
        Error_clear(&err);
        if (Roi_clear(App_db(app), &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        } else {
            App_setStatus(app, 0, "Region of interest cleared.");
        }
        App_refreshAll(app);
        return REACT_REDRAW;
    }
    default:
        return REACT_NONE;
    }
}
