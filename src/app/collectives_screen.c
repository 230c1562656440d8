/* collectives_screen.c - the Collectives screen (C on the Ranks screen): the collectives of a
 * multi-rank job (collectives.h) per type and size bucket, with the bus bandwidth, its spread,
 * the arrival skew and the % of a --collective-ref curve; below, per rank how often it arrived
 * last, and one sentence naming the rank that arrives last most often. */
#include <stdlib.h>
#include <string.h>

#include "dcutop/canvas.h"
#include "dcutop/coll_ref.h"
#include "dcutop/collectives.h"
#include "dcutop/theme.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static const char* const bucket_keys[] = {"type", "size", "count", "latency_ns", "wait_ns",
                                          "busbw_median", "busbw_p10", "busbw_p90",
                                          "skew_median_ns", "skew_max_ns", "ref_pct", NULL};
static const char* const bucket_drop[] = {"busbw_p10", "busbw_p90", "wait_ns", "skew_max_ns",
                                          NULL};

DcuStatus CollectivesScreen_table(Screen* s, App* app, ResultSet** out, DcuError* err) {
    Collectives* c = NULL;
    DcuStatus st = Collectives_new(App_db(app), &c, err);
    if (st != DCU_OK) {
        return st;
    }
    CollRef ref;
    CollRef_init(&ref);
    st = CollRef_fromDb(App_db(app), &ref, err);
    if (st == DCU_OK) {
        *out = Collectives_buckets(c, ref.n ? &ref : NULL);
        ResultSet_delete(s->aux[0]);
        s->aux[0] = Collectives_lastArrivals(c);
        char* sum = Collectives_summaryText(c, s->aux[0]);
        free(s->aux[0]->footer);
        s->aux[0]->footer = xasprintf("%d collectives across %d ranks, arrivals on the traces' "
                                      "clock (%s). %s",
                                      c->n, c->nranks, c->clock ? c->clock : "unknown", sum);
        free(sum);
    }
    CollRef_done(&ref);
    Collectives_delete(c);
    return st;
}

static DcuStatus co_open(Screen* s, App* app, DcuError* err) {
    return TableScreen_requery(s, app, err);
}

static void co_close(Screen* s) {
    ResultSet_delete(s->aux[0]);
    s->aux[0] = NULL;
}

static void co_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    const ResultSet* last = s->aux[0];
    if (!s->rs || !last) {
        return;
    }
    int w = App_width(app);
    const char* text = last->footer ? last->footer : "";
    int vh = RanksScreen_putWrapped(NULL, 0, w, h / 3 > 3 ? h / 3 : 3, text);
    int lh = last->nrows > 0 ? last->nrows + 2 : 0;
    int th = s->rs->nrows + 1;
    if (th > h - vh - lh) { /* not all fits: the buckets get up to half, the ranks scroll */
        int half = (h - vh) / 2;
        th = th < half ? th : half > 5 ? half : 5;
    }
    th = th > h ? h : th;
    TableScreen_render(s, app, c, y0, th);
    int y = y0 + th, left = h - th;
    if (lh > 0 && left > vh + 2) {
        static const char* const keys[] = {"rank", "instances", "last", "last_pct", "skew_ns",
                                           "skew_median_ns", "first", NULL};
        TableLayout l;
        TableLayout_compute(&l, last, keys, NULL, NULL, w);
        TableViewState st = {-1, 0, -1, 1};
        int rows = left - vh - 1;
        int shown = rows < last->nrows + 1 ? rows : last->nrows + 1;
        Canvas_put(c, y, 1, STYLE_DIM,
                   "Last to arrive, per rank (arrival = the collective kernel's start)", -1);
        TableView_render(&st, &l, last, c, y + 1, shown);
        y += 1 + shown;
        left = h - (y - y0);
    }
    if (left > 0) {
        RanksScreen_putWrapped(c, y, w, left < vh ? left : vh, text);
    }
}

static const char* co_selection(Screen* s) {
    int c = ResultSet_columnIndex(s->rs, "type");
    return s->rs && c >= 0 && s->rs->nrows > 0 ? ResultSet_cellc(s->rs, s->tv.selected, c)->s
                                               : NULL;
}

/* view: its own table, not a ViewId (VIEW_COUNT stands for none) */
const ScreenOps CollectivesScreen = {"collectives", "Collectives", -1,          co_open,
                                     TableScreen_handle, co_render, co_selection, co_close,
                                     VIEW_COUNT,    bucket_keys,  "size",      bucket_drop,
                                     0};
