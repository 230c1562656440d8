/* doc_screen.c - the document screens: Summary, Kernel detail, Help. They build a Doc from
 * model queries and scroll it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"
#include "screen.h"

static void drop_doc(Screen* s) {
    Doc_delete(s->doc);
    s->doc = NULL;
}

static void drop_data(Screen* s) {
    for (int i = 0; i < (int)(sizeof(s->aux) / sizeof(s->aux[0])); i++) {
        ResultSet_delete(s->aux[i]);
        s->aux[i] = NULL;
    }
    Timeline_delete(s->timeline);
    s->timeline = NULL;
    if (s->has_detail) {
        KernelDetail_done(&s->detail);
        s->has_detail = 0;
    }
    s->has_data = 0;
}

static DcuStatus build(Screen* s, App* app, DcuError* err);

/* (Re)opening queries again: the trace's Amdahl basis may have changed since. */
static DcuStatus ds_open(Screen* s, App* app, DcuError* err) {
    drop_doc(s);
    drop_data(s);
    return build(s, app, err);
}

static void ds_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    if (!s->doc || s->doc_w != App_width(app)) {
        DcuError err;
        drop_doc(s);
        if (build(s, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
            return;
        }
    }
    int max = s->doc->n - h;
    if (s->doc_scroll > max) {
        s->doc_scroll = max;
    }
    if (s->doc_scroll < 0) {
        s->doc_scroll = 0;
    }
    DocView_render(s->doc, s->doc_scroll, c, y0, h);
}

static Reaction ds_handle(Screen* s, App* app, Action a, DcuError* err) {
    (void)err; /* drill-downs report their errors on the status line */
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
    case ACT_MOVE_LAST:
        s->doc_scroll = s->doc ? s->doc->n : 0;
        break;
    case ACT_ENTER:
        if (s->ops == &KernelScreen && s->has_detail) {
            if (!s->detail.per_dispatch) {
                App_setStatus(app, 0, "No per-dispatch data for this kernel (aggregated stats).");
                return REACT_REDRAW;
            }
            return App_open(app, &DispatchScreen, s->kernel, NULL,
                            xasprintf("%s > dispatches", s->crumb ? s->crumb : "Kernel"));
        }
        return REACT_NONE;
    case ACT_CATEGORY:
        if (s->ops == &KernelScreen && s->has_detail) {
            return App_open(app, &HotspotsScreen, NULL, s->detail.category,
                            xasprintf("Category > %s", s->detail.category));
        }
        return REACT_NONE;
    default:
        return REACT_NONE;
    }
    if (s->doc_scroll < 0) {
        s->doc_scroll = 0;
    }
    if (s->doc && s->doc_scroll > s->doc->n - 1) {
        s->doc_scroll = s->doc->n - 1;
    }
    return REACT_REDRAW;
}

static const char* ds_selection(Screen* s) {
    if (s->ops == &KernelScreen && s->has_detail) {
        return s->detail.name;
    }
    return NULL;
}

static void ds_close(Screen* s) {
    drop_doc(s);
    drop_data(s);
}

/* The queries behind a document, run once per open. */
static DcuStatus load_data(Screen* s, App* app, DcuError* err) {
    TraceDb* db = App_db(app);
    if (s->ops == &SummaryScreen) {
        SummaryData* sd = &s->summary;
        memset(sd, 0, sizeof(*sd));
        sd->title = App_title(app);
        DcuStatus st = Query_totals(db, &sd->totals, err);
        static const ViewId views[] = {VIEW_HOTSPOTS, VIEW_CATEGORIES, VIEW_FILES};
        for (int i = 0; i < 3 && st == DCU_OK; i++) {
            st = Query_view(db, views[i], NULL, &s->aux[i], err);
        }
        if (st != DCU_OK) {
            return st;
        }
        DcuError e2;
        if (Timeline_new(db, &s->timeline, &e2) == DCU_OK) {
            sd->timeline = Timeline_summary(s->timeline);
            if (sd->timeline->available &&
                Timeline_view(s->timeline, TL_GAPS, NULL, AMDAHL_BASIS_KERNEL, &s->aux[3],
                              &e2) == DCU_OK) {
                sd->gaps = s->aux[3];
            }
            /* several runs: their iterations and cold starts, one row each */
            if (sd->timeline->runs > 1 &&
                Timeline_view(s->timeline, TL_RUNS, NULL, AMDAHL_BASIS_KERNEL, &s->aux[4],
                              &e2) == DCU_OK) {
                sd->runs = s->aux[4];
            }
        }
        sd->hotspots = s->aux[0];
        sd->categories = s->aux[1];
        sd->files = s->aux[2];
        sd->rows_rejected = sd->totals.rows_rejected;
        sd->wall_basis = Query_amdahlBasis(db) == 1;
    } else if (s->ops == &KernelScreen) {
        DcuStatus st = KernelQuery_detail(db, s->kernel, &s->detail, err);
        if (st != DCU_OK) {
            return st;
        }
        s->has_detail = 1;
        /* who launched it, and in which ranges (library frames folded) */
        DcuError e2;
        if (Stacks_available(db, STACKS_SRC_STACKS)) {
            Stacks_kernelPaths(db, STACKS_SRC_STACKS, s->kernel, 1, 8, &s->aux[0], &e2);
        }
        if (Stacks_available(db, STACKS_SRC_RANGES)) {
            Stacks_kernelPaths(db, STACKS_SRC_RANGES, s->kernel, 0, 8, &s->aux[1], &e2);
        }
    }
    s->has_data = 1;
    return DCU_OK;
}

/* The Doc for the current width, from the data loaded once. */
static DcuStatus build(Screen* s, App* app, DcuError* err) {
    int w = App_width(app);
    s->doc_w = w;
    if (!s->has_data) {
        DcuStatus st = load_data(s, app, err);
        if (st != DCU_OK) {
            return st;
        }
    }
    if (s->ops == &SummaryScreen) {
        s->doc = SummaryView_build(&s->summary, w);
    } else if (s->ops == &KernelScreen) {
        KernelExtras x = {s->aux[0], s->aux[1], NULL};
        s->doc = KernelView_build(&s->detail, &x, w);
    } else {
        /* help for the screen below it */
        HelpEntry e[4 * ACT_COUNT];
        const char* for_screen = App_previousScreenName(app);
        int n = App_helpEntries(app, for_screen, e, 4 * ACT_COUNT);
        s->doc = HelpView_build(for_screen, e, n, w);
    }
    return DCU_OK;
}

#define DOC_OPS(name_, title_, tab_)                                                           \
    {name_, title_, tab_, ds_open, ds_handle, ds_render, ds_selection, ds_close,               \
     VIEW_HOTSPOTS, NULL, NULL, NULL, 0}

const ScreenOps SummaryScreen = DOC_OPS("summary", "Summary", 0);
const ScreenOps KernelScreen = DOC_OPS("kernel", "Kernel", -1);
const ScreenOps HelpScreen = DOC_OPS("help", "Help", -1);
