/* collectives_screen.c - the Collectives screen (C on the Ranks screen): the collectives of a
 * multi-rank job (collectives.h) per type and size bucket, with the bus bandwidth, its spread,
 * the arrival skew and the % of a --collective-ref curve; below, per rank how often it arrived
 * last, and one sentence naming the rank that arrives last most often. Enter on a bucket lists
 * its collectives (CollectiveListScreen). */
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

/* The instances of one type (s->category) and size bucket (s->kernel), as the export has
 * them. Owned. */
static ResultSet* bucket_list(const Screen* s, const Collectives* c) {
    ResultSet* all = Collectives_instances(c);
    ResultSet* rs = ResultSet_new("collectives", all->cols, all->ncols);
    int tc = ResultSet_columnIndex(all, "type"), bc = ResultSet_columnIndex(all, "bytes");
    for (int r = 0; r < all->nrows; r++) {
        char size[72];
        const RsCell* b = ResultSet_cellc(all, r, bc);
        if (strcmp(ResultSet_cellc(all, r, tc)->s, s->category) != 0 ||
            strcmp(Collectives_sizeLabel(b->null ? -1 : b->i, size, sizeof(size)), s->kernel)) {
            continue;
        }
        int k = ResultSet_addRow(rs);
        for (int col = 0; col < all->ncols; col++) {
            RsCell* dst = ResultSet_cell(rs, k, col);
            *dst = *ResultSet_cellc(all, r, col);
            dst->s = dst->s ? xstrdup(dst->s) : NULL;
        }
    }
    ResultSet_delete(all);
    return rs;
}

DcuStatus CollectivesScreen_table(Screen* s, App* app, ResultSet** out, DcuError* err) {
    Collectives* c = NULL;
    DcuStatus st = Collectives_new(App_db(app), &c, err);
    if (st != DCU_OK) {
        return st;
    }
    if (s->category && s->kernel) { /* Enter on a bucket: its collectives */
        *out = bucket_list(s, c);
        Collectives_delete(c);
        return DCU_OK;
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
                                           "skew_median_ns", "first", "end_offset_ns", NULL};
        TableLayout l;
        static const char* const drop[] = {"skew_ns", "first", NULL};
        TableLayout_compute(&l, last, keys, NULL, drop, w);
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

static Reaction co_handle(Screen* s, App* app, Action a, DcuError* err) {
    int tc = ResultSet_columnIndex(s->rs, "type"), zc = ResultSet_columnIndex(s->rs, "size");
    if (a != ACT_ENTER || !s->rs || s->rs->nrows == 0 || tc < 0 || zc < 0) {
        return TableScreen_handle(s, app, a, err);
    }
    const char* type = ResultSet_cellc(s->rs, s->tv.selected, tc)->s;
    const char* size = ResultSet_cellc(s->rs, s->tv.selected, zc)->s;
    return App_open(app, &CollectiveListScreen, size, type,
                    xasprintf("Ranks > Collectives > %s %s", type, size));
}

static void list_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    TableScreen_render(s, app, c, y0, h);
}

static const char* co_selection(Screen* s) {
    int c = ResultSet_columnIndex(s->rs, "type");
    return s->rs && c >= 0 && s->rs->nrows > 0 ? ResultSet_cellc(s->rs, s->tv.selected, c)->s
                                               : NULL;
}

static const char* const list_keys[] = {"seq", "bytes", "ranks", "skew_ns", "last_rank",
                                        "latency_ns", "max_dur_ns", "busbw_gbps", "arrivals",
                                        NULL};
static const char* const list_drop[] = {"max_dur_ns", "ranks", NULL};

/* view: its own table, not a ViewId (VIEW_COUNT stands for none) */
const ScreenOps CollectivesScreen = {"collectives", "Collectives", -1,          co_open,
                                     co_handle,     co_render,     co_selection, co_close,
                                     VIEW_COUNT,    bucket_keys,   "size",       bucket_drop,
                                     0};
/* Enter on a bucket: one row per collective of it, each rank's arrival offset and duration */
const ScreenOps CollectiveListScreen = {"collectives", "Collectives", -1,         co_open,
                                        TableScreen_handle, list_render, co_selection,
                                        co_close,      VIEW_COUNT,    list_keys, "arrivals",
                                        list_drop,     0};
