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

static DcuStatus build(Screen* s, App* app, DcuError* err);

static DcuStatus ds_open(Screen* s, App* app, DcuError* err) {
    drop_doc(s);
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
            Screen* n = Screen_new(&DispatchScreen);
            n->kernel = xstrdup(s->kernel);
            n->crumb = xasprintf("%s > dispatches", s->crumb ? s->crumb : "Kernel");
            if (App_push(app, n, err) != DCU_OK) {
                App_setStatus(app, 1, "%s", err->msg);
            }
            return REACT_REDRAW;
        }
        if (s->ops == &SummaryScreen) {
            return REACT_NONE;
        }
        return REACT_NONE;
    case ACT_CATEGORY:
        if (s->ops == &KernelScreen && s->has_detail) {
            Screen* n = Screen_new(&HotspotsScreen);
            n->category = xstrdup(s->detail.category);
            n->crumb = xasprintf("Category > %s", s->detail.category);
            if (App_push(app, n, err) != DCU_OK) {
                App_setStatus(app, 1, "%s", err->msg);
            }
            return REACT_REDRAW;
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
    if (s->has_detail) {
        KernelDetail_done(&s->detail);
        s->has_detail = 0;
    }
}

static DcuStatus build(Screen* s, App* app, DcuError* err) {
    int w = App_width(app);
    s->doc_w = w;
    TraceDb* db = App_db(app);
    if (s->ops == &SummaryScreen) {
        SummaryData sd;
        memset(&sd, 0, sizeof(sd));
        sd.title = App_title(app);
        DcuStatus st = Query_totals(db, &sd.totals, err);
        ResultSet *hot = NULL, *cat = NULL, *files = NULL;
        if (st == DCU_OK) {
            st = Query_view(db, VIEW_HOTSPOTS, NULL, &hot, err);
        }
        if (st == DCU_OK) {
            st = Query_view(db, VIEW_CATEGORIES, NULL, &cat, err);
        }
        if (st == DCU_OK) {
            st = Query_view(db, VIEW_FILES, NULL, &files, err);
        }
        Timeline* tl = NULL;
        DcuError e2;
        ResultSet* gaps = NULL;
        if (st == DCU_OK && Timeline_new(db, &tl, &e2) == DCU_OK) {
            sd.timeline = Timeline_summary(tl);
            if (sd.timeline->available &&
                Timeline_view(tl, TL_GAPS, NULL, AMDAHL_BASIS_KERNEL, &gaps, &e2) == DCU_OK) {
                sd.gaps = gaps;
            }
        }
        if (st == DCU_OK) {
            sd.hotspots = hot;
            sd.categories = cat;
            sd.files = files;
            sd.rows_rejected = sd.totals.rows_rejected;
            sd.wall_basis = Query_amdahlBasis(db) == 1;
            s->doc = SummaryView_build(&sd, w);
        }
        ResultSet_delete(gaps);
        Timeline_delete(tl);
        ResultSet_delete(hot);
        ResultSet_delete(cat);
        ResultSet_delete(files);
        return st;
    }
    if (s->ops == &KernelScreen) {
        if (!s->has_detail) {
            DcuStatus st = KernelQuery_detail(db, s->kernel, &s->detail, err);
            if (st != DCU_OK) {
                return st;
            }
            s->has_detail = 1;
        }
        /* who launched it, and in which ranges (library frames folded) */
        ResultSet *paths = NULL, *ranges = NULL;
        DcuError e2;
        if (Stacks_available(db, STACKS_SRC_STACKS)) {
            Stacks_kernelPaths(db, STACKS_SRC_STACKS, s->kernel, 1, 8, &paths, &e2);
        }
        if (Stacks_available(db, STACKS_SRC_RANGES)) {
            Stacks_kernelPaths(db, STACKS_SRC_RANGES, s->kernel, 0, 8, &ranges, &e2);
        }
        KernelExtras x = {paths, ranges, NULL};
        s->doc = KernelView_build(&s->detail, &x, w);
        ResultSet_delete(paths);
        ResultSet_delete(ranges);
        return DCU_OK;
    }
    /* help for the screen below it */
    HelpEntry e[ACT_COUNT];
    const char* for_screen = App_previousScreenName(app);
    int n = App_helpEntries(app, for_screen, e, ACT_COUNT);
    s->doc = HelpView_build(for_screen, e, n, w);
    return DCU_OK;
}

#define DOC_OPS(name_, title_, tab_)                                                           \
    {name_, title_, tab_, ds_open, ds_handle, ds_render, ds_selection, ds_close,               \
     VIEW_HOTSPOTS, NULL, NULL, NULL, 0}

const ScreenOps SummaryScreen = DOC_OPS("summary", "Summary", 0);
const ScreenOps KernelScreen = DOC_OPS("kernel", "Kernel", -1);
const ScreenOps HelpScreen = DOC_OPS("help", "Help", -1);
