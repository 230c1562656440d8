/* table_screen.c - the table screens (Hotspots, Categories, API, Copies, Files,
 * Dispatches): shared selection, scrolling, sorting, search and drill-down. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/dispatch_page.h"
#include "dcutop/efficiency.h"
#include "dcutop/filter.h"
#include "dcutop/runs.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static const char* cell_text(const ResultSet* rs, int r, const char* key) {
    int c = ResultSet_columnIndex(rs, key);
    if (c < 0 || r < 0 || r >= rs->nrows) {
        return NULL;
    }
    return ResultSet_cellc(rs, r, c)->s;
}

/* The column that identifies a row (kept selected across requeries). */
static const char* id_key(const Screen* s) {
    if (s->ops->view == VIEW_CATEGORIES) {
        return "category";
    }
    if (s->ops == &DispatchScreen || s->ops == &TraceScreen || s->ops == &OpsDispatchScreen) {
        return NULL;
    }
    if (OpsScreen_is(s)) {
        return s->ops->flex; /* the level's name column */
    }
    if (s->ops->view == VIEW_FILES) {
        return "path";
    }
    return s->ops == &RunsScreen || s->ops == &RanksScreen ? "run"
           : s->ops == &EfficiencyScreen                 ? "op"
                                                         : "name";
}

int TableScreen_rows(const Screen* s) {
    if (s->page) {
        int64_t n = DispatchPage_count(s->page);
        return n < INT32_MAX ? (int)n : INT32_MAX;
    }
    return s->rs ? s->rs->nrows : 0;
}

int TableScreen_rsRow(const Screen* s, int r) {
    if (s->page && s->page_first < 0) {
        return -1; /* the layout's sample, not a page: none read yet */
    }
    int64_t i = s->page ? r - s->page_first : r;
    return s->rs && i >= 0 && i < s->rs->nrows ? (int)i : -1;
}

/* A list of fewer rows is read whole (its screens as they always were); DCUTOP_PAGE_MIN
 * sets the bound (tests page short lists: 1). */
static int64_t page_min(void) {
    const char* e = getenv("DCUTOP_PAGE_MIN");
    return e && *e ? atoll(e) : 10000;
}

/* The page shown (rows scroll .. scroll + page) with a page of margin each side: read again
 * only when the screen leaves it. */
static void page_window(Screen* s, App* app, int force) {
    int page = App_bodyHeight(app);
    int64_t n = DispatchPage_count(s->page);
    if (!force && s->rs && s->tv.scroll >= s->page_first &&
        (s->tv.scroll + page <= s->page_first + s->rs->nrows ||
         s->page_first + s->rs->nrows >= n)) {
        return;
    }
    int64_t first = s->tv.scroll - page > 0 ? s->tv.scroll - page : 0;
    ResultSet* rs = NULL;
    DcuError err;
    if (DispatchPage_rows(s->page, first, 3 * (int64_t)page, 1, &rs, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
        return;
    }
    ResultSet_delete(s->rs);
    s->rs = rs;
    s->page_first = first;
}

/* A column's counts for its unit (TableView_unitForCounts), from the paged list. */
typedef struct {
    DispatchPage* page;
    const char* key;
    DcuError* err;
    DcuStatus st;
} PageCount;

static void page_count(void* ctx, int64_t bound, int64_t* n, int64_t* below) {
    PageCount* pc = ctx;
    int64_t mx;
    pc->st = DispatchPage_magnitude(pc->page, pc->key, bound, n, &mx, below, pc->err);
}

/* The unit of each time column of the paged list, from all its rows (-1: not a time). */
static DcuStatus page_units(DispatchPage* p, const ResultSet* sample, int* units,
                            DcuError* err) {
    DcuStatus st = DCU_OK;
    for (int c = 0; c < TABLE_MAX_COLS; c++) {
        units[c] = -1;
    }
    for (int c = 0; c < sample->ncols && c < TABLE_MAX_COLS && st == DCU_OK; c++) {
        PageCount pc = {p, sample->cols[c].key, err, DCU_OK};
        int64_t nv, mx, below;
        if (sample->cols[c].type == CT_NS &&
            (st = DispatchPage_magnitude(p, pc.key, 0, &nv, &mx, &below, err)) == DCU_OK) {
            units[c] = (int)TableView_unitForCounts(mx, page_count, &pc);
            st = pc.st;
        }
    }
    return st;
}

/* The paged list (DispatchScreen): its layout from every row of a list of up to 2000 (as
 * the whole list's), from 500 spread over a longer one (2000 read one by one cost 20 ms at
 * 10M), with the units of all its rows; then the page shown. */
static DcuStatus page_open(Screen* s, App* app, DcuError* err) {
    DispatchPage* p = NULL;
    DcuStatus st = DispatchPage_open(App_db(app), s->kernel, s->filter, page_min(), &p, err);
    if (st != DCU_OK || !p) {
        return st;
    }
    int64_t n = DispatchPage_count(p);
    ResultSet* sample = NULL;
    int units[TABLE_MAX_COLS];
    st = DispatchPage_rows(p, 0, n, n > 2000 ? n / 500 : 1, &sample, err);
    if (st == DCU_OK) {
        st = page_units(p, sample, units, err);
    }
    if (st == DCU_OK && s->sort) {
        st = DispatchPage_sort(p, s->sort, err);
    }
    if (st != DCU_OK) {
        ResultSet_delete(sample);
        DispatchPage_delete(p);
        return st;
    }
    DispatchPage_delete(s->page);
    s->page = p;
    memcpy(s->page_units, units, sizeof(units));
    ResultSet_delete(s->rs);
    s->rs = sample; /* laid out at the first draw, then replaced by the page */
    s->page_first = -1;
    return DCU_OK;
}

int TableScreen_isTable(const Screen* s) {
    return s->ops->keys != NULL;
}

void TableScreen_clamp(Screen* s, App* app) {
    if (!s->rs) {
        return;
    }
    int n = TableScreen_rows(s);
    int page = App_bodyHeight(app) - 1 - (s->rs->footer ? 1 : 0) - s->reserve;
    if (page < 1) {
        page = 1;
    }
    if (s->tv.selected >= n) {
        s->tv.selected = n - 1;
    }
    if (s->tv.selected < 0) {
        s->tv.selected = 0;
    }
    if (s->tv.scroll > s->tv.selected) {
        s->tv.scroll = s->tv.selected;
    }
    if (s->tv.selected >= s->tv.scroll + page) {
        s->tv.scroll = s->tv.selected - page + 1;
    }
    if (s->tv.scroll > n - page) {
        s->tv.scroll = n - page;
    }
    if (s->tv.scroll < 0) {
        s->tv.scroll = 0;
    }
}

static void sync_sort(Screen* s) {
    s->tv.sort_col = -1;
    s->tv.sort_desc = 1;
    if (!s->rs) {
        return;
    }
    const char* spec = s->sort ? s->sort
                               : (s->ops == &DispatchScreen || s->ops == &TraceScreen ? NULL
                                                                                     : "total_ns");
    if ((s->ops->view == VIEW_FILES || s->ops == &RunsScreen || s->ops == &RanksScreen) &&
        !s->sort) {
        spec = NULL; /* load order */
    }
    if (!spec) {
        return;
    }
    char key[64];
    const char* colon = strchr(spec, ':');
    size_t kl = colon ? (size_t)(colon - spec) : strlen(spec);
    snprintf(key, sizeof(key), "%.*s", (int)kl, spec);
    s->tv.sort_col = ResultSet_columnIndex(s->rs, key);
    s->tv.sort_desc = colon ? strcmp(colon + 1, "desc") == 0
                            : ResultSet_defaultDesc(s->rs, s->tv.sort_col);
}

/* The dispatch list: a new page (*paged = 1, the screen set up), else the whole list in
 * *rs (too short, or a region of interest). */
static DcuStatus dispatch_query(Screen* s, App* app, const QueryOpts* q, ResultSet** rs,
                                int* paged, DcuError* err) {
    DispatchPage* was = s->page;
    DcuStatus st = page_open(s, app, err); /* a new page replaces the one before */
    if (st == DCU_OK && s->page != was) {
        s->layout_w = -1;
        sync_sort(s);
        TableScreen_clamp(s, app);
        *paged = 1;
        return DCU_OK;
    }
    if (st != DCU_OK) {
        return st;
    }
    DispatchPage_delete(s->page);
    s->page = NULL;
    return KernelQuery_dispatches(App_db(app), s->kernel, q, rs, err);
}

DcuStatus TableScreen_requery(Screen* s, App* app, DcuError* err) {
    if (s->ops == &DiffScreen) {
        return DiffScreen_requery(s, app, err);
    }
    char* keep = NULL;
    const char* ik = id_key(s);
    if (s->rs && ik) {
        const char* t = cell_text(s->rs, s->tv.selected, ik);
        keep = t ? xstrdup(t) : NULL;
    }
    QueryOpts q = {s->filter, s->sort, s->what_if, s->n_what_if, s->category, s->run,
                   s->ops == &HotspotsScreen};
    ResultSet* rs = NULL;
    DcuStatus st;
    if (s->cold_split) {
        /* the timeline's split: all calls, those of the first iteration, the steady state */
        Timeline* tl = NULL;
        st = Timeline_new(App_db(app), &tl, err);
        if (st == DCU_OK) {
            st = Timeline_view(tl, s->ops->view == VIEW_API ? TL_API : TL_COPIES, NULL,
                               AMDAHL_BASIS_KERNEL, &rs, err);
        }
        Timeline_delete(tl);
        if (st == DCU_OK && s->filter && *s->filter) {
            Filter* f = NULL;
            int nc = ResultSet_columnIndex(rs, "name");
            if (Filter_new(s->filter, &f, err) == DCU_OK && nc >= 0) {
                ResultSet* kept = ResultSet_new(rs->name, rs->cols, rs->ncols);
                for (int r = 0; r < rs->nrows; r++) {
                    const char* t = ResultSet_cellc(rs, r, nc)->s;
                    if (t && Filter_matches(f, t, strlen(t))) {
                        int k = ResultSet_addRow(kept);
                        for (int c = 0; c < rs->ncols; c++) {
                            RsCell* dst = ResultSet_cell(kept, k, c);
                            const RsCell* src = ResultSet_cellc(rs, r, c);
                            *dst = *src;
                            dst->s = src->s ? xstrdup(src->s) : NULL;
                        }
                    }
                }
                ResultSet_delete(rs);
                rs = kept;
            }
            Filter_delete(f);
        }
        if (st == DCU_OK && s->sort) {
            st = Query_sort(rs, s->sort, err);
        }
        if (st != DCU_OK) {
            ResultSet_delete(rs);
            rs = NULL;
        }
    } else if (s->ops == &DispatchScreen) {
        int paged = 0;
        st = dispatch_query(s, app, &q, &rs, &paged, err);
        if (paged) {
            return DCU_OK;
        }
    } else if (s->ops == &TraceScreen) {
        st = TraceScreen_query(s, app, &rs, err);
    } else if (s->ops == &RunsScreen) {
        st = RunsScreen_table(s, app, &rs, err);
        if (st == DCU_OK && s->sort) {
            st = Query_sort(rs, s->sort, err);
        }
    } else if (s->ops == &RanksScreen) {
        st = RanksScreen_table(s, app, &rs, err);
        if (st == DCU_OK && s->sort) {
            st = Query_sort(rs, s->sort, err);
        }
    } else if (s->ops == &EfficiencyScreen) {
        st = Efficiency_query(App_db(app), &q, 0, &rs, err);
    } else if (OpsScreen_is(s)) {
        st = OpsScreen_query(s, app, &q, &rs, err);
    } else {
        st = Query_view(App_db(app), s->ops->view, &q, &rs, err);
    }
    if (st != DCU_OK) {
        free(keep);
        return st;
    }
    ResultSet_delete(s->rs);
    s->rs = rs;
    s->layout_w = -1;
    if (keep) {
        for (int r = 0; r < rs->nrows; r++) {
            const char* t = cell_text(rs, r, ik);
            if (t && strcmp(t, keep) == 0) {
                s->tv.selected = r;
                break;
            }
        }
        free(keep);
    }
    sync_sort(s);
    TableScreen_clamp(s, app);
    return DCU_OK;
}

static const char* const api_split_keys[] = {"name", "domain", "calls", "total_ns",
                                             "first_calls", "first_ns", "first_pct",
                                             "steady_calls", "steady_ns", "steady_avg_ns", NULL};
static const char* const copy_split_keys[] = {"name", "direction", "calls", "bytes", "total_ns",
                                              "steady_calls", "steady_bytes", "steady_ns", "flag",
                                              NULL};
/* What the split views leave out first when narrow (80 columns): the name keeps a third of
 * the width, so that names stay told apart, and the totals stay on screen. */
static const char* const api_split_drop[] = {"steady_avg_ns", "domain", "first_pct",
                                             "first_calls", "steady_calls", NULL};
static const char* const copy_split_drop[] = {"steady_bytes", "bytes", "steady_calls", "calls",
                                              NULL};

static void ts_render(Screen* s, App* app, Canvas* c, int y0, int h);

DcuStatus TableScreen_open(Screen* s, App* app, DcuError* err) {
    return TableScreen_requery(s, app, err);
}

void TableScreen_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    ts_render(s, app, c, y0, h);
}

static DcuStatus ts_open(Screen* s, App* app, DcuError* err) {
    return TableScreen_requery(s, app, err);
}

/* With one run the Runs screen is filled when first shown (App_key), not at start-up. */
static DcuStatus runs_open(Screen* s, App* app, DcuError* err) {
    return Runs_count(App_db(app)) > 1 ? TableScreen_requery(s, app, err) : DCU_OK;
}

static void ts_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    if (!s->rs) {
        return;
    }
    int w = App_width(app);
    if (s->layout_w != w) {
        const char* const* keys = s->ops->keys;
        const char* const* drop = s->ops->drop;
        if (s->cold_split) {
            int api = s->ops->view == VIEW_API;
            keys = api ? api_split_keys : copy_split_keys;
            drop = api ? api_split_drop : copy_split_drop;
        }
        TableLayout_computeUnits(&s->layout, s->rs, keys, s->ops->flex, drop, w,
                                 s->page ? s->page_units : NULL);
        s->layout_w = w;
    }
    int th = h - (s->rs->footer ? 1 : 0);
    TableScreen_clamp(s, app);
    TableViewState tv = s->tv;
    if (s->page) { /* the page's rows, where they are in the whole list */
        page_window(s, app, s->page_first < 0);
        tv.selected -= (int)s->page_first;
        tv.scroll -= (int)s->page_first;
    }
    TableView_render(&tv, &s->layout, s->rs, c, y0, th);
    if (TableScreen_rows(s) == 0 && th > 2) {
        Canvas_put(c, y0 + 2, 2, STYLE_DIM,
                   s->filter ? "No rows match the filter (Esc clears it)."
                             : "No data of this kind in the loaded trace.",
                   -1);
    }
    if (s->rs->footer) {
        Canvas_fillRow(c, y0 + h - 1, 0, STYLE_DEFAULT);
        Canvas_put(c, y0 + h - 1, 1, STYLE_TITLE, s->rs->footer, -1);
    }
}

static const char* ts_selection(Screen* s);

const char* TableScreen_selection(Screen* s) {
    return ts_selection(s);
}

static const char* ts_selection(Screen* s) {
    if (!s->rs || s->rs->nrows == 0) {
        return NULL;
    }
    const char* k = s->ops->view == VIEW_CATEGORIES ? NULL
                    : s->ops->view == VIEW_FILES    ? "status"
                    : s->ops == &RunsScreen         ? "clock"
                                                    : "name";
    return k ? cell_text(s->rs, s->tv.selected, k) : NULL;
}

static void ts_close(Screen* s) {
    DispatchPage_delete(s->page);
    s->page = NULL;
}

int TableScreen_search(Screen* s, const char* pattern, int dir, DcuError* err) {
    if (!s->rs || s->rs->nrows == 0 || s->page) { /* a paged list: its filter (/) instead */
        return 0;
    }
    Filter* f = NULL;
    if (Filter_new(pattern, &f, err) != DCU_OK) {
        return 0;
    }
    const char* k = id_key(s);
    if (!k) {
        k = "file";
    }
    int n = s->rs->nrows;
    int found = 0;
    for (int i = 1; i <= n && !found; i++) {
        int r = ((s->tv.selected + dir * i) % n + n) % n;
        /* the columns a filter looks at: the name (full and short) and the category */
        const char* const cols[] = {k, "short_name", "category"};
        int neg = Filter_isNegated(f), hit = 0;
        for (int j = 0; j < 3 && !hit; j++) {
            const char* t = cell_text(s->rs, r, cols[j]);
            hit = t && Filter_matches(f, t, strlen(t)) != neg;
        }
        if (hit != neg) {
            s->tv.selected = r;
            found = 1;
        }
    }
    Filter_delete(f);
    return found;
}

/* The what-if steps of + and -: 1 means none. */
static const double steps[] = {1, 1.25, 1.5, 2, 3, 4, 8, 16, INFINITY};
#define N_STEPS ((int)(sizeof(steps) / sizeof(steps[0])))

static Reaction whatif_step(Screen* s, App* app, int dir, DcuError* err) {
    const char* cat = cell_text(s->rs, s->tv.selected, "category");
    if (!cat) {
        return REACT_NONE;
    }
    int idx = -1;
    for (int i = 0; i < s->n_what_if; i++) {
        if (strcmp(s->what_if[i].name, cat) == 0) {
            idx = i;
        }
    }
    double cur = idx >= 0 ? s->what_if[idx].k : 1.0;
    int at = 0;
    for (int i = 0; i < N_STEPS; i++) {
        if (steps[i] <= cur) {
            at = i;
        }
    }
    if (dir < 0 && steps[at] < cur) {
        at++; /* a typed factor between two steps: - goes to the step below it */
    }
    at += dir;
    if (at < 0) {
        at = 0;
    }
    if (at >= N_STEPS) {
        at = N_STEPS - 1;
    }
    double k = steps[at];
    if (k == 1.0) {
        if (idx >= 0) {
            s->what_if[idx] = s->what_if[--s->n_what_if];
        }
    } else if (idx >= 0) {
        s->what_if[idx].k = k;
        s->what_if[idx].at_peak = 0; /* a step replaces an X%peak with a plain factor */
    } else if (s->n_what_if < MAX_WHATIF) {
        snprintf(s->what_if[s->n_what_if].name, sizeof(s->what_if[0].name), "%s", cat);
        s->what_if[s->n_what_if].at_peak = 0;
        s->what_if[s->n_what_if++].k = k;
    }
    if (TableScreen_requery(s, app, err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err->msg);
    }
    return REACT_REDRAW;
}

static Reaction drill(Screen* s, App* app) {
    if (!s->rs || s->rs->nrows == 0) {
        return REACT_NONE;
    }
    if (s->ops->view == VIEW_CATEGORIES) {
        const char* cat = cell_text(s->rs, s->tv.selected, "category");
        return App_open(app, &HotspotsScreen, NULL, cat, xasprintf("Categories > %s", cat));
    }
    if (s->ops->view == VIEW_HOTSPOTS && s->ops != &DispatchScreen) {
        const char* name = cell_text(s->rs, s->tv.selected, "name");
        const char* shrt = cell_text(s->rs, s->tv.selected, "short_name");
        return App_open(app, &KernelScreen, name ? name : "", NULL,
                        xasprintf("%s > %s", s->crumb ? s->crumb : "Hotspots", shrt ? shrt : ""));
    }
    App_setStatus(app, 0, "Nothing to open here: Enter drills into categories and kernels.");
    return REACT_REDRAW;
}

static void set_sort(Screen* s, int col, int desc) {
    char spec[96];
    snprintf(spec, sizeof(spec), "%s:%s", s->rs->cols[col].key, desc ? "desc" : "asc");
    free(s->sort);
    s->sort = xstrdup(spec);
}

/* i on API or Copies: all calls, or with and without the first iteration; when nothing
 * splits, the table's footer says why (timeline.c), in the Summary's terms. */
static Reaction cold_split(Screen* s, App* app, DcuError* err) {
    if (s->ops != &ApiScreen && s->ops != &CopiesScreen) {
        return REACT_NONE;
    }
    s->cold_split = !s->cold_split;
    free(s->sort);
    s->sort = NULL; /* the two tables have different columns */
    s->tv.selected = 0;
    if (TableScreen_requery(s, app, err) != DCU_OK) {
        s->cold_split = 0;
        TableScreen_requery(s, app, err);
        App_setStatus(app, 1, "%s", err->msg);
        return REACT_REDRAW;
    }
    int sc = ResultSet_columnIndex(s->rs, "steady_calls");
    int any = 0;
    for (int r = 0; sc >= 0 && r < s->rs->nrows && !any; r++) {
        any = !ResultSet_cellc(s->rs, r, sc)->null;
    }
    App_setStatus(app, 0, "%s%s",
                  !s->cold_split ? "All calls."
                  : any          ? "With and without the first iteration (cold start); i: back"
                  : s->rs->footer ? s->rs->footer
                                  : "Nothing to split.",
                  s->cold_split && !any ? " (i: back)" : "");
    return REACT_REDRAW;
}

Reaction TableScreen_handle(Screen* s, App* app, Action a, DcuError* err) {
    if (!s->rs) {
        return REACT_NONE;
    }
    int page = App_bodyHeight(app) - 2 - (s->rs->footer ? 1 : 0) - s->reserve;
    if (page < 1) {
        page = 1;
    }
    switch (a) {
    case ACT_MOVE_UP:
        s->tv.selected--;
        break;
    case ACT_MOVE_DOWN:
        s->tv.selected++;
        break;
    case ACT_PAGE_UP:
        s->tv.selected -= page;
        s->tv.scroll -= page;
        break;
    case ACT_PAGE_DOWN:
        s->tv.selected += page;
        s->tv.scroll += page;
        break;
    case ACT_MOVE_FIRST:
        s->tv.selected = 0;
        break;
    case ACT_MOVE_LAST:
        s->tv.selected = TableScreen_rows(s) - 1;
        break;
    case ACT_ENTER:
        return drill(s, app);
    case ACT_SORT_PREV:
    case ACT_SORT_NEXT: {
        /* move along the columns on screen */
        int at = -1;
        for (int i = 0; i < s->layout.n; i++) {
            if (s->layout.col[i] == s->tv.sort_col) {
                at = i;
            }
        }
        int n = s->layout.n;
        if (n == 0) {
            return REACT_NONE;
        }
        at = at < 0 ? 0 : (at + (a == ACT_SORT_NEXT ? 1 : n - 1)) % n;
        int col = s->layout.col[at];
        set_sort(s, col, ResultSet_defaultDesc(s->rs, col));
        break;
    }
    case ACT_SORT_REVERSE:
        if (s->tv.sort_col < 0) {
            set_sort(s, 0, 1);
        } else {
            set_sort(s, s->tv.sort_col, !s->tv.sort_desc);
        }
        break;
    case ACT_CATEGORY: {
        const char* cat = cell_text(s->rs, s->tv.selected, "category");
        if (s->ops->view != VIEW_HOTSPOTS || s->ops == &DispatchScreen || !cat) {
            return REACT_NONE;
        }
        return App_open(app, &HotspotsScreen, NULL, cat, xasprintf("Category > %s", cat));
    }
    case ACT_WHATIF_UP:
    case ACT_WHATIF_DOWN:
        if (s->ops->view != VIEW_CATEGORIES) {
            return REACT_NONE;
        }
        return whatif_step(s, app, a == ACT_WHATIF_UP ? 1 : -1, err);
    case ACT_COLD_SPLIT:
        return cold_split(s, app, err);
    case ACT_WHATIF_CLEAR:
        if (s->ops->view != VIEW_CATEGORIES) {
            return REACT_NONE;
        }
        s->n_what_if = 0;
        if (TableScreen_requery(s, app, err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err->msg);
        }
        return REACT_REDRAW;
    default:
        return REACT_NONE;
    }
    if (s->page && (a == ACT_SORT_PREV || a == ACT_SORT_NEXT || a == ACT_SORT_REVERSE)) {
        if (DispatchPage_sort(s->page, s->sort, err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err->msg);
        }
        s->page_first = -1; /* the page again, in the new order */
        sync_sort(s);
    } else if (a == ACT_SORT_PREV || a == ACT_SORT_NEXT || a == ACT_SORT_REVERSE) {
        DcuStatus st = Query_sort(s->rs, s->sort, err);
        if (st != DCU_OK) {
            App_setStatus(app, 1, "%s", err->msg);
        }
        sync_sort(s);
    }
    TableScreen_clamp(s, app);
    return REACT_REDRAW;
}

/* pct_peak and bound exist only when the trace has recorded shapes (efficiency.h), the
 * launch group only when its dispatches have launch calls (idle.h): the first columns a
 * narrow screen drops, the launch delay's median last of them (the group's headline) */
static const char* const hot_keys[] = {"short_name", "category", "calls", "total_ns", "avg_ns",
                                       "min_ns", "max_ns", "stddev_ns", "pct", "cum_pct",
                                       "ceiling", "var_ns", "pct_peak", "bound", "launched",
                                       "call_p50_ns", "delay_p50_ns", "delay_p95_ns",
                                       "short_launch_pct", NULL};
static const char* const hot_drop[] = {"bound", "call_p50_ns", "short_launch_pct", "launched",
                                       "pct_peak", "delay_p95_ns", "stddev_ns", "min_ns",
                                       "delay_p50_ns", "max_ns", "cum_pct", "var_ns", "avg_ns",
                                       "ceiling", "calls", NULL};
static const char* const cat_keys[] = {"category", "group", "kernels", "calls", "total_ns",
                                       "pct", "ceiling", "what_if", "speedup", "var_ns", NULL};
static const char* const cat_drop[] = {"var_ns", "calls", "kernels", "group", NULL};
static const char* const api_keys[] = {"name", "domain", "calls", "total_ns", "avg_ns",
                                       "min_ns", "max_ns", "pct", "source", NULL};
static const char* const api_drop[] = {"source", "min_ns", "max_ns", "domain", "avg_ns", NULL};
static const char* const copy_keys[] = {"name", "calls", "bytes", "total_ns", "avg_ns",
                                        "min_ns", "max_ns", "pct", "gbps", NULL};
static const char* const copy_drop[] = {"min_ns", "max_ns", "gbps", "avg_ns", NULL};
static const char* const file_keys[] = {"name", "format", "layer", "rows", "rejected", "status",
                                        NULL};
static const char* const file_drop[] = {"layer", "rejected", NULL};
static const char* const run_keys[] = {"mark", "run", "layers", "mode", "kernel_ns",
                                       "dispatches", "span_ns", "iterations", "cold_ratio", "pmc",
                                       "files", NULL};
static const char* const run_drop[] = {"files", "dispatches", "pmc", "iterations", "layers",
                                       NULL};
static const char* const disp_keys[] = {"seq", "start_ns", "dur_ns", "gpu", "queue", "stream",
                                        "pid", "tid", "grid", "workgroup", "lds", "vgpr", "sgpr",
                                        "file", NULL};
static const char* const disp_drop[] = {"sgpr", "vgpr", "lds", "tid", "pid", "stream", NULL};

#define TABLE_OPS(name_, title_, tab_, view_, keys_, flex_, drop_, filterable_)                 \
    {name_,       title_,       tab_,  ts_open, TableScreen_handle, ts_render, ts_selection,     \
     ts_close,    view_,        keys_, flex_,   drop_,              filterable_}

const ScreenOps HotspotsScreen =
    TABLE_OPS("hotspots", "Hotspots", 1, VIEW_HOTSPOTS, hot_keys, "short_name", hot_drop, 1);
const ScreenOps CategoriesScreen =
    TABLE_OPS("categories", "Categories", 2, VIEW_CATEGORIES, cat_keys, NULL, cat_drop, 1);
const ScreenOps ApiScreen = TABLE_OPS("api", "API", 3, VIEW_API, api_keys, "name", api_drop, 1);
const ScreenOps CopiesScreen =
    TABLE_OPS("copies", "Copies", 4, VIEW_COPIES, copy_keys, "name", copy_drop, 1);
const ScreenOps FilesScreen =
    TABLE_OPS("files", "Files", 7, VIEW_FILES, file_keys, "status", file_drop, 1);
const ScreenOps DispatchScreen =
    TABLE_OPS("dispatches", "Dispatches", -1, VIEW_HOTSPOTS, disp_keys, "file", disp_drop, 1);
/* view: Runs_table, not a ViewId (VIEW_COUNT stands for none); no flexible column: labels
 * are short, and every figure should show */
const ScreenOps RunsScreen = {"runs",    "Runs",       8,
                              runs_open, RunsScreen_handle, ts_render,
                              ts_selection, RunsScreen_close, VIEW_COUNT,
                              run_keys,  NULL,         run_drop, 0};
