/* ranks_screen.c - the Ranks screen (9): the runs as ranks of one job (ranks.h), one row per
 * rank; below them the rank x step matrix of compute and collective time and the straggler
 * verdict. Enter sets the scope to the selected rank's run (every screen follows, as with
 * R). The job is computed once (it does not depend on the scope) and kept in s->ranks. */
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "dcutop/canvas.h"
#include "dcutop/ranks.h"
#include "dcutop/runs.h"
#include "dcutop/theme.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static const char* const rank_keys[] = {"rank", "run", "gpu", "kernel_ns", "compute_ns",
                                        "comm_ns", "comm_pct", "exposed_ns", "idle_ns", "steps",
                                        "step_mean_ns", "critical_pct", NULL};
static const char* const rank_drop[] = {"gpu", "idle_ns", "steps", "comm_pct", "kernel_ns",
                                        NULL};

DcuStatus RanksScreen_table(Screen* s, App* app, ResultSet** out, DcuError* err) {
    if (!s->ranks) {
        DcuStatus st = Ranks_new(App_db(app), &s->ranks, err);
        if (st != DCU_OK) {
            return st;
        }
        ResultSet_delete(s->aux[0]);
        s->aux[0] = Ranks_matrix(s->ranks, 0); /* step times: the table's step columns */
    }
    *out = Ranks_table(s->ranks);
    free((*out)->footer); /* the verdict is drawn under the matrix, wrapped */
    (*out)->footer = NULL;
    return DCU_OK;
}

static DcuStatus rk_open(Screen* s, App* app, DcuError* err) {
    return TableScreen_requery(s, app, err);
}

static void rk_close(Screen* s) {
    Ranks_delete(s->ranks);
    s->ranks = NULL;
    ResultSet_delete(s->aux[0]);
    s->aux[0] = NULL;
}

int RanksScreen_putWrapped(Canvas* c, int y, int w, int max, const char* text) {
    int rows = 0;
    const char* p = text;
    if (w < 12) {
        return 0; /* too narrow for words */
    }
    while (*p && rows < max) {
        int len = (int)strlen(p);
        int take = len <= w - 2 ? len : w - 2;
        if (take < len) {
            int sp = take;
            while (sp > 0 && p[sp] != ' ') {
                sp--;
            }
            take = sp > 0 ? sp : take;
        }
        if (c) {
            Canvas_fillRow(c, y + rows, 0, STYLE_DEFAULT);
            Canvas_put(c, y + rows, 1, STYLE_TITLE, p, take);
        }
        p += take;
        while (*p == ' ') {
            p++;
        }
        rows++;
    }
    return rows;
}

static void rk_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    if (!s->rs || !s->ranks) {
        return;
    }
    int w = App_width(app);
    char* verdict = Ranks_verdictText(s->ranks);
    const ResultSet* mx = s->aux[0];
    /* the verdict (all its lines, up to a third of the screen; at least 3) at the bottom,
     * the matrix above it, the ranks on top */
    int vh = RanksScreen_putWrapped(NULL, 0, w, h / 3 > 3 ? h / 3 : 3, verdict), mh = mx && mx->nrows > 0 ? mx->nrows + 2 : 0;
    int th = s->rs->nrows + 1;
    if (th > h - vh - mh) { /* not all fits: the ranks get up to half, the matrix scrolls */
        int half = (h - vh) / 2;
        th = th < half ? th : half > 5 ? half : 5;
    }
    if (th > h) {
        th = h;
    }
    TableScreen_render(s, app, c, y0, th);
    int y = y0 + th;
    int left = h - th;
    if (mh > 0 && left > vh + 2) {
        const char* keys[TABLE_MAX_COLS + 1];
        int nk = 0;
        for (int i = 0; i < mx->ncols && nk < TABLE_MAX_COLS; i++) {
            keys[nk++] = mx->cols[i].key;
        }
        keys[nk] = NULL;
        TableLayout l;
        TableLayout_compute(&l, mx, keys, NULL, NULL, w);
        TableViewState st = {-1, 0, -1, 1};
        int rows = left - vh - 1;
        int shown = rows < mx->nrows + 1 ? rows : mx->nrows + 1;
        /* the selected rank's rows in view when the matrix does not fit */
        int rc = ResultSet_columnIndex(s->rs, "rank");
        const char* rank = s->rs->nrows > 0 ? ResultSet_cellc(s->rs, s->tv.selected, rc)->s : NULL;
        for (int r = 0; rank && r < mx->nrows; r++) {
            if (strcmp(ResultSet_cellc(mx, r, 0)->s, rank) == 0) {
                st.scroll = r + 2 > shown - 1 ? r + 2 - (shown - 1) : 0;
                break;
            }
        }
        Canvas_put(c, y, 1, STYLE_DIM,
                   "Ranks x steps: compute, collective (comm) and rank-wait (wait) per step", -1);
        TableView_render(&st, &l, mx, c, y + 1, shown);
        y += 1 + shown;
        left = h - (y - y0);
    }
    if (left > 0) {
        RanksScreen_putWrapped(c, y, w, left < vh ? left : vh, verdict);
    }
    free(verdict);
}

static int64_t selected_run(const Screen* s) {
    int c = ResultSet_columnIndex(s->rs, "run_id");
    if (!s->rs || c < 0 || s->rs->nrows == 0 || ResultSet_cellc(s->rs, s->tv.selected, c)->null) {
        return 0;
    }
    return ResultSet_cellc(s->rs, s->tv.selected, c)->i;
}

static Reaction rk_handle(Screen* s, App* app, Action a, DcuError* err) {
    if (a == ACT_SCREEN_COLLECTIVES) {
        return App_open(app, &CollectivesScreen, NULL, NULL, xstrdup("Ranks > Collectives"));
    }
    if (a != ACT_ENTER) {
        return TableScreen_handle(s, app, a, err);
    }
    int64_t id = selected_run(s);
    if (!id) {
        return REACT_NONE; /* a percentile row */
    }
    char* source = Ranks_summarySource(App_db(app), id);
    if (source) { /* a job opened from summaries: the rank's own trace, where reachable */
        struct stat st;
        if (stat(source, &st) == 0) {
            const char* argv[] = {"/proc/self/exe", source, NULL};
            int rc = App_runChild(app, argv);
            if (rc >= 0) {
                App_setStatus(app, rc != 0, "Back from %s (exit %d)", source, rc);
            }
        } else {
            App_setStatus(app, 1, "%s is not reachable from here: the summary is all there is",
                          source);
        }
        free(source);
        return REACT_REDRAW;
    }
    if (Runs_setScope(App_db(app), &id, 1, err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err->msg);
        return REACT_REDRAW;
    }
    App_refreshAll(app);
    char* label = Runs_label(App_db(app), id);
    int rc = ResultSet_columnIndex(s->rs, "rank");
    App_setStatus(app, 0, "Scope: rank %s (%s); every screen shows it. R: all runs.",
                  ResultSet_cellc(s->rs, s->tv.selected, rc)->s, label ? label : "?");
    free(label);
    return REACT_REDRAW;
}

static const char* rk_selection(Screen* s) {
    int c = ResultSet_columnIndex(s->rs, "run");
    return s->rs && c >= 0 && s->rs->nrows > 0 ? ResultSet_cellc(s->rs, s->tv.selected, c)->s
                                               : NULL;
}

/* view: the Ranks table, not a ViewId (VIEW_COUNT stands for none) */
const ScreenOps RanksScreen = {"ranks",      "Ranks",   -1,        rk_open,
                               rk_handle,    rk_render, rk_selection, rk_close,
                               VIEW_COUNT,   rank_keys, "run",     rank_drop,
                               0};
