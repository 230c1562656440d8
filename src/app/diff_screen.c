/* diff_screen.c - the Diff screen (key 7): the comparison summary on top, then the per-kernel
 * table (v: per category; with --abba the A-B-B-A table, per kernel or per category). Matched
 * by op, the table is per op and v goes per op -> per category -> per kernel -> per module.
 * Sorting, filtering, search and export are the shared table behaviour; Enter on a kernel
 * opens its kernel detail: the candidate's, or the baseline's for a kernel gone from the
 * candidate; Enter on a module lists its ops; on an op the status line names its kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/diff_view.h"
#include "dcutop/filter.h"
#include "dcutop/format.h"
#include "dcutop/runs.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static const char* const kernel_keys[] = {"name", "status", "before", "after", "delta",
                                          "delta_pct", "ratio", "calls_before", "calls_after",
                                          "share_pct", "noise", "match", "category", NULL};
static const char* const op_keys[] = {"name", "status", "before", "after", "delta", "delta_pct",
                                      "ratio", "share_pct", "noise", "category", NULL};
static const char* const mod_keys[] = {"module", "status", "before", "after", "delta",
                                       "delta_pct", "ratio", "share_pct", "noise", NULL};
static const char* const cat_keys[] = {"category", "group", "before", "after", "delta",
                                       "delta_pct", "ratio", "calls_before", "calls_after",
                                       "share_pct", "noise", NULL};
static const char* const abba_keys[] = {"name", "a1", "b1", "b2", "a2", "effect", "effect_pct",
                                        "drift", "drift_pct", "repeats", "verdict", NULL};
static const char* const drop[] = {"category", "match", "calls_before", "calls_after",
                                   "share_pct", "ratio", "group", "a1", "a2", "b1", "b2", NULL};
static const char* const abba_drop[] = {"effect_pct", "drift_pct", "repeats", "b2", "a2", NULL};
/* narrow numbers: the four runs go last */
static const char* const abba_narrow_drop[] = {"effect_pct", "drift_pct", "repeats", "drift",
                                               "b2", "a2", NULL};
static const char* const cat_drop[] = {"calls_before", "calls_after", "share_pct", "ratio",
                                       "group", NULL};

/* The summary's height: what DiffView draws, kept to a third of the body. */
/* The summary's lines at width w, its verdicts wrapped (drawn once on a scratch canvas), at
 * most half the screen so the table keeps rows. */
static int summary_lines(const Screen* s, int w, int h) {
    Canvas* scratch = Canvas_new(w, 64);
    int n = s->abba ? DiffView_abbaSummary(s->abba, scratch, 0, 64)
                    : DiffView_summary(s->diff, scratch, 0, 64);
    Canvas_delete(scratch);
    return n < h / 2 ? n : h / 2;
}

/* A copy of the rows of all that keep(i) accepts (i: the row's index in all). */
static ResultSet* keep_rows(ResultSet* all, int (*keep)(const Screen*, const ResultSet*, int),
                            const Screen* s) {
    ResultSet* rs = ResultSet_new(all->name, all->cols, all->ncols);
    for (int r = 0; r < all->nrows; r++) {
        if (!keep(s, all, r)) {
            continue;
        }
        int k = ResultSet_addRow(rs);
        for (int c = 0; c < all->ncols; c++) {
            RsCell* dst = ResultSet_cell(rs, k, c);
            *dst = *ResultSet_cellc(all, r, c);
            dst->s = dst->s ? xstrdup(dst->s) : NULL;
        }
    }
    ResultSet_delete(all);
    return rs;
}

/* the views of a diff (Screen.diff_view); matched by op the first is per op */
enum { DV_MAIN, DV_CATEGORY, DV_KERNEL, DV_MODULE };

static int in_category(const Screen* s, const ResultSet* all, int r) {
    int cc = ResultSet_columnIndex(all, s->in_module ? "module" : "category");
    return cc >= 0 && strcmp(ResultSet_cellc(all, r, cc)->s, s->category) == 0;
}

/* Abba_table's rows are the Abba's rows, in order: the kernels of the category. */
static int abba_in_category(const Screen* s, const ResultSet* all, int r) {
    (void)all;
    const AbbaRow* x = &s->abba->rows[r];
    return r >= s->abba->nhead && x->category && strcmp(x->category, s->category) == 0;
}

/* Narrow numbers: one unit for the table (us, or ms past a second), 4 significant digits at
 * most, so that A1 B1 B2 A2, the effect and the drift fit 80 columns with the name. */
static RsColumn narrow_cols[32];
static const char* const narrow_titles[][2] = {
    {"a1", "A1"}, {"b1", "B1"}, {"b2", "B2"}, {"a2", "A2"}, {"mean_a", "mean A"},
    {"mean_b", "mean B"}, {"effect", "Effect"}, {"drift", "Drift"}, {"repeats", "B2-B1"},
    {"noise", "Noise"}, {"effect_pct", "Eff%"}, {"drift_pct", "Drift%"}};

static void narrow_text(double ms, double scale, char* buf, size_t cap) {
    double x = ms * scale, a = fabs(x);
    if (x == 0) {
        snprintf(buf, cap, "0");
    } else {
        snprintf(buf, cap, "%.*f", a >= 100 ? 0 : a >= 10 ? 1 : 2, x);
    }
}

static ResultSet* abba_narrow(ResultSet* all) {
    int nc = all->ncols < 32 ? all->ncols : 32;
    double mx = 0;
    for (int c = 0; c < nc; c++) {
        narrow_cols[c] = all->cols[c];
        for (size_t t = 0; t < sizeof(narrow_titles) / sizeof(narrow_titles[0]); t++) {
            if (strcmp(all->cols[c].key, narrow_titles[t][0]) == 0) {
                narrow_cols[c].title = narrow_titles[t][1];
            }
        }
        for (int r = 0; r < all->nrows && all->cols[c].type == CT_REAL; r++) {
            const RsCell* x = ResultSet_cellc(all, r, c);
            mx = !x->null && fabs(x->d) > mx ? fabs(x->d) : mx;
        }
    }
    int us = mx < 1000; /* under a second: microseconds */
    static char name_title[64]; /* "Name (us)", or "Category (us)" in the category view */
    for (int c = 0; c < nc; c++) {
        if (strcmp(all->cols[c].key, "name") == 0) {
            snprintf(name_title, sizeof(name_title), "%s (%s)", all->cols[c].title,
                     us ? "us" : "ms");
            narrow_cols[c].title = name_title;
        }
    }
    ResultSet* rs = ResultSet_new(all->name, narrow_cols, nc);
    for (int r = 0; r < all->nrows; r++) {
        int k = ResultSet_addRow(rs);
        for (int c = 0; c < nc; c++) {
            RsCell* dst = ResultSet_cell(rs, k, c);
            *dst = *ResultSet_cellc(all, r, c);
            dst->s = dst->s ? xstrdup(dst->s) : NULL;
            if (all->cols[c].type == CT_REAL && !dst->null && isfinite(dst->d)) {
                char buf[32];
                narrow_text(dst->d, us ? 1000 : 1, buf, sizeof(buf));
                dst->s = xstrdup(buf);
            }
        }
    }
    rs->pinned = all->pinned;
    ResultSet_delete(all);
    return rs;
}

static ResultSet* abba_rows(const Screen* s) {
    ResultSet* rs = s->diff_view ? Abba_categoryTable(s->abba) : Abba_table(s->abba);
    if (s->category && !s->diff_view) {
        rs = keep_rows(rs, abba_in_category, s);
    }
    return s->abba_narrow ? abba_narrow(rs) : rs;
}

DcuStatus DiffScreen_requery(Screen* s, App* app, DcuError* err) {
    (void)app;
    ResultSet* rs = NULL;
    if (s->abba) {
        rs = abba_rows(s);
    } else if (s->diff) {
        const char* f = s->filter;
        int v = s->diff_view;
        DcuStatus st = v == DV_CATEGORY ? Diff_categoryTable(s->diff, f, &rs, err)
                       : v == DV_MODULE ? Diff_moduleTable(s->diff, f, &rs, err)
                       : v == DV_MAIN && s->diff->by_op ? Diff_opTable(s->diff, f, &rs, err)
                                                        : Diff_kernelTable(s->diff, f, &rs, err);
        if (st != DCU_OK) {
            return st;
        }
        if (s->category && (v == DV_MAIN || v == DV_KERNEL)) { /* a category's, a module's */
            rs = keep_rows(rs, in_category, s);
        }
    } else {
        return DCU_OK;
    }
    if (s->sort && Query_sort(rs, s->sort, err) != DCU_OK) {
        ResultSet_delete(rs);
        return err->code;
    }
    ResultSet_delete(s->rs);
    s->rs = rs;
    s->layout_w = -1;
    s->tv.sort_col = -1;
    if (s->sort) {
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)strcspn(s->sort, ":"), s->sort);
        s->tv.sort_col = ResultSet_columnIndex(rs, key);
        s->tv.sort_desc = strstr(s->sort, ":asc") == NULL;
    }
    return DCU_OK;
}

/* The layers and the rows whose name matches pattern: the rows the screen shows filtered. */
static ResultSet* filtered(ResultSet* all, const char* pattern) {
    Filter* f = NULL;
    DcuError err;
    if (!pattern || !*pattern || Filter_new(pattern, &f, &err) != DCU_OK) {
        return all;
    }
    ResultSet* rs = ResultSet_new(all->name, all->cols, all->ncols);
    int cn = ResultSet_columnIndex(all, "name");
    for (int r = 0; r < all->nrows; r++) {
        const char* n = ResultSet_cellc(all, r, cn)->s;
        if (r < all->pinned || Filter_matches(f, n, strlen(n))) {
            int k = ResultSet_addRow(rs);
            for (int c = 0; c < all->ncols; c++) {
                RsCell* dst = ResultSet_cell(rs, k, c);
                *dst = *ResultSet_cellc(all, r, c);
                dst->s = dst->s ? xstrdup(dst->s) : NULL;
            }
        }
    }
    rs->pinned = all->pinned;
    Filter_delete(f);
    ResultSet_delete(all);
    return rs;
}

ResultSet* DiffScreen_exportTable(const Screen* s) {
    if (!s->abba) {
        return NULL;
    }
    ResultSet* rs = s->diff_view ? Abba_categoryTableNs(s->abba) : Abba_tableNs(s->abba);
    if (s->category && !s->diff_view) {
        rs = keep_rows(rs, abba_in_category, s);
    }
    rs = filtered(rs, s->filter);
    DcuError err;
    if (s->sort && Query_sort(rs, s->sort, &err) != DCU_OK) {
        ResultSet_delete(rs); /* the shown table sorted the same; this cannot fail where it did not */
        return NULL;
    }
    return rs;
}

static DcuStatus ds_open(Screen* s, App* app, DcuError* err) {
    return DiffScreen_requery(s, app, err);
}

/* The kernel row named name: its baseline and candidate full names (NULL when gone / new);
 * 0 when the row is no kernel (a layer of the A-B-B-A). */
static int row_names(const Screen* s, const char* name, const char** a, const char** b) {
    for (int i = 0; s->diff && i < s->diff->nrows; i++) {
        if (strcmp(s->diff->rows[i].name, name) == 0) {
            *a = s->diff->rows[i].a_name;
            *b = s->diff->rows[i].b_name;
            return 1;
        }
    }
    for (int i = s->abba ? s->abba->nhead : 0; s->abba && i < s->abba->nrows; i++) {
        if (strcmp(s->abba->rows[i].name, name) == 0) {
            *a = s->abba->rows[i].a_name;
            *b = s->abba->rows[i].b_name;
            return 1;
        }
    }
    return 0;
}

/* "first kernel xN (+K more)" of a side's "name xN; ..." list, the name cut to fit. */
static void first_kernel(const char* list, int width, char* out, size_t cap) {
    if (!list || !*list) {
        snprintf(out, cap, "(none)");
        return;
    }
    int more = 0;
    for (const char* p = strstr(list, "; "); p; p = strstr(p + 2, "; ")) {
        more++;
    }
    size_t len = strcspn(list, ";");
    char item[1024], cut[512];
    snprintf(item, sizeof(item), "%.*s", (int)len, list);
    char* x = strrchr(item, ' '); /* " xN" */
    if (x) {
        *x = '\0';
    }
    Format_cutName(item, width, cut, sizeof(cut));
    if (more) {
        snprintf(out, cap, "%s %s (+%d more)", cut, x ? x + 1 : "", more);
    } else {
        snprintf(out, cap, "%s %s", cut, x ? x + 1 : "");
    }
}

/* Enter on an op: the kernels each side ran for it, on the status line (all of them in
 * --export diff's kernels_before / kernels_after). */
static Reaction show_op(Screen* s, App* app) {
    const char* name = ResultSet_cellc(s->rs, s->tv.selected, 0)->s;
    int w = (App_width(app) - 50) / 2; /* both sides, their counts and words on one line */
    w = w < 12 ? 12 : w;
    for (int i = 0; i < s->diff->nops; i++) {
        const DiffRow* r = &s->diff->ops[i];
        if (strcmp(r->name, name) == 0) {
            char a[600], b[600];
            first_kernel(r->op ? r->op->kernels : NULL, w, a, sizeof(a));
            first_kernel(r->b_kernels, w, b, sizeof(b));
            App_setStatus(app, 0, "A ran %s | B ran %s", a, b);
            return REACT_REDRAW;
        }
    }
    return REACT_NONE;
}

/* Enter on a kernel: the candidate's detail; for a kernel gone from the candidate, the
 * baseline's (its own database when the sides were loaded path by path). */
static Reaction open_kernel(Screen* s, App* app) {
    const char* name = ResultSet_cellc(s->rs, s->tv.selected, 0)->s;
    const char *a = NULL, *b = NULL;
    if (!row_names(s, name, &a, &b) || (!a && !b)) {
        App_setStatus(app, 0, "No kernel detail for this row.");
        return REACT_REDRAW;
    }
    if (b) {
        return App_open(app, &KernelScreen, b, NULL, xasprintf("Diff > %s (candidate)", name));
    }
    Screen* n = Screen_new(&KernelScreen);
    n->kernel = xstrdup(a);
    n->crumb = xasprintf("Diff > A (baseline; gone from B) > %s", name);
    n->db = App_diffBaselineDb(app);
    DcuError err;
    if (App_push(app, n, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
    }
    return REACT_REDRAW;
}

/* v: per kernel / per category (both for a diff and an A-B-B-A); matched by op, a diff's
 * views go per op, per category, per kernel, per module. */
static Reaction toggle_view(Screen* s, App* app, DcuError* err) {
    int by_op = s->diff && s->diff->by_op;
    s->diff_view = (s->diff_view + 1) % (by_op ? 4 : 2);
    free(s->sort);
    s->sort = NULL;
    free(s->category);
    s->category = NULL;
    s->in_module = 0;
    s->tv.selected = s->tv.scroll = 0;
    if (DiffScreen_requery(s, app, err) != DCU_OK) {
        return REACT_REDRAW;
    }
    static const char* const said[2][4] = {
        {"Per kernel (v: per category).", "Per category (v: per kernel).", "", ""},
        {"Per op (v: per category).", "Per category (v: per kernel).",
         "Per kernel (v: per module).", "Per module (v: per op)."}};
    App_setStatus(app, 0, "%s", said[by_op][s->diff_view]);
    return REACT_REDRAW;
}

static Reaction ds_handle(Screen* s, App* app, Action a, DcuError* err) {
    if (!s->rs) {
        return REACT_NONE;
    }
    if (a == ACT_DIFF_VIEW && (s->diff || s->abba)) {
        return toggle_view(s, app, err);
    }
    if (a == ACT_ENTER && s->rs->nrows > 0) {
        int v = s->diff_view;
        if (v == DV_CATEGORY || v == DV_MODULE) { /* its kernels (ops, matched by op) */
            const char* picked = ResultSet_cellc(s->rs, s->tv.selected, 0)->s;
            int outside = v == DV_MODULE && strcmp(picked, "(outside every module)") == 0;
            char* cat = xstrdup(outside ? "" : picked);
            free(s->category);
            s->category = cat;
            s->in_module = v == DV_MODULE;
            s->diff_view = DV_MAIN;
            free(s->sort);
            s->sort = NULL;
            s->tv.selected = s->tv.scroll = 0;
            DiffScreen_requery(s, app, err);
            int ops = (s->diff && s->diff->by_op) || (s->abba && s->abba->by_op);
            App_setStatus(app, 0, "%s of %s (v: %s).", ops ? "Ops" : "Kernels",
                          outside ? "no module" : cat,
                          s->diff && s->diff->by_op ? "other views" : "back to categories");
            return REACT_REDRAW;
        }
        if (v == DV_MAIN && s->diff && s->diff->by_op) {
            return show_op(s, app);
        }
        return open_kernel(s, app);
    }
    return TableScreen_handle(s, app, a, err);
}

/* Words of text over lines of width w from row y, indented; returns the rows used. */
static int put_words(Canvas* c, int y, int x, int w, int max, Style st, const char* text) {
    int rows = 0;
    const char* p = text;
    while (*p && rows < max && w > 12) {
        int len = (int)strlen(p), take = len <= w ? len : w;
        if (take < len) {
            int sp = take;
            while (sp > 0 && p[sp] != ' ') {
                sp--;
            }
            take = sp > 0 ? sp : take;
        }
        Canvas_put(c, y + rows, x, st, p, take);
        p += take;
        while (*p == ' ') {
            p++;
        }
        rows++;
    }
    return rows;
}

/* No comparison yet: how to make one from what is loaded, and the runs it could compare. */
static void empty_render(App* app, Canvas* c, int y0, int h) {
    TraceDb* db = App_db(app);
    int w = App_width(app) - 4, y = y0 + 1, end = y0 + h;
    int n = Runs_count(db);
    y += put_words(c, y, 2, w, end - y, STYLE_TITLE, "No comparison loaded.");
    y++;
    if (n >= 2) {
        y += put_words(c, y, 2, w, end - y, STYLE_DEFAULT,
                       "To compare the runs loaded here: U opens the Runs screen; there a marks "
                       "the baseline run (A) and b the candidate (B), several on a side for "
                       "repeats, two and two for an A-B-B-A; then 7 shows the comparison.");
    } else {
        y += put_words(c, y, 2, w, end - y, STYLE_DEFAULT,
                       "One run is loaded: there is nothing to compare it with here. Load two "
                       "or more (dcutop A B, or a folder of runs), then U opens the Runs "
                       "screen, a and b mark the baseline and the candidate, and 7 compares "
                       "them.");
    }
    y++;
    char* labels = Runs_labels(db);
    char line[4096];
    snprintf(line, sizeof(line), "Runs loaded (%d): %s", n, labels && *labels ? labels : "none");
    free(labels);
    y += put_words(c, y, 2, w, end - y, STYLE_DEFAULT, line);
    y++;
    put_words(c, y, 2, w, end - y, STYLE_DIM,
              "From the command line: dcutop --diff A B, dcutop --abba A1 B1 B2 A2.");
}

/* 1 when the A-B-B-A table in full numbers keeps all four runs' columns at width w. */
static int abba_wide_fits(const Screen* s, int w) {
    ResultSet* rs = s->diff_view ? Abba_categoryTable(s->abba) : Abba_table(s->abba);
    TableLayout l;
    TableLayout_compute(&l, rs, abba_keys, "name", abba_drop, w);
    int runs = 0;
    for (int i = 0; i < l.n; i++) {
        const char* k = rs->cols[l.col[i]].key;
        runs += k[0] && (k[0] == 'a' || k[0] == 'b') && (k[1] == '1' || k[1] == '2') && !k[2];
    }
    ResultSet_delete(rs);
    return runs == 4;
}

static void ds_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    if (!s->diff && !s->abba) {
        empty_render(app, c, y0, h);
        return;
    }
    int top = summary_lines(s, App_width(app), h);
    int used = s->abba ? DiffView_abbaSummary(s->abba, c, y0, top)
                       : DiffView_summary(s->diff, c, y0, top);
    int ty = y0 + used + 1;
    int th = h - used - 1;
    int w = App_width(app);
    if (s->abba && s->layout_w != w) { /* narrow numbers when A1 B1 B2 A2 would not fit */
        int narrow = !abba_wide_fits(s, w);
        if (narrow != s->abba_narrow) {
            s->abba_narrow = narrow;
            DcuError err;
            DiffScreen_requery(s, app, &err);
        }
    }
    if (s->layout_w != w) {
        int v = s->diff_view, by_op = s->diff && s->diff->by_op;
        const char* const* keys = s->abba             ? abba_keys
                                  : v == DV_CATEGORY ? cat_keys
                                  : v == DV_MODULE   ? mod_keys
                                  : v == DV_MAIN && by_op ? op_keys
                                                          : kernel_keys;
        const char* flex = s->abba || v == DV_MAIN || v == DV_KERNEL ? "name"
                           : v == DV_MODULE                          ? "module"
                                                                     : "category";
        const char* const* dr = s->abba_narrow ? abba_narrow_drop : abba_drop;
        TableLayout_compute(&s->layout, s->rs, keys, flex,
                            s->abba ? dr : (v == DV_CATEGORY || v == DV_MODULE ? cat_drop : drop),
                            w);
        s->layout_w = w;
    }
    if (th < 2) {
        return;
    }
    /* the table gets what is left: keep the selection visible in it */
    if (s->tv.selected >= s->rs->nrows) {
        s->tv.selected = s->rs->nrows - 1;
    }
    if (s->tv.selected < 0) {
        s->tv.selected = 0;
    }
    if (s->tv.scroll > s->tv.selected) {
        s->tv.scroll = s->tv.selected;
    }
    if (s->tv.selected >= s->tv.scroll + th - 1) {
        s->tv.scroll = s->tv.selected - th + 2;
    }
    TableView_render(&s->tv, &s->layout, s->rs, c, ty, th);
    if (s->rs->nrows == 0 && th > 2) {
        Canvas_put(c, ty + 2, 2, STYLE_DIM, "No rows match the filter (Esc clears it).", -1);
    }
}

static const char* ds_selection(Screen* s) {
    if (!s->rs || s->rs->nrows == 0) {
        return NULL;
    }
    return ResultSet_cellc(s->rs, s->tv.selected, 0)->s;
}

static void ds_close(Screen* s) {
    Diff_delete(s->diff);
    Abba_delete(s->abba);
    s->diff = NULL;
    s->abba = NULL;
}

const ScreenOps DiffScreen = {
    .name = "diff",
    .title = "Diff",
    .tab = 6,
    .open = ds_open,
    .handle = ds_handle,
    .render = ds_render,
    .selection = ds_selection,
    .close = ds_close,
    .view = VIEW_COUNT,
    .keys = kernel_keys,
    .flex = "name",
    .drop = drop,
    .filterable = 1,
};

int DiffScreen_open(Screen* s, App* app, const DiffSide* const* a, int na,
                    const DiffSide* const* b, int nb, int abba, DiffMatch match,
                    struct AbbaEvidence_* ev, DcuError* err) {
    Diff* d = NULL;
    Abba* ab = NULL;
    DcuStatus st;
    if (abba) {
        const DiffSide* const runs[4] = {a[0], b[0], b[1], a[1]};
        st = Abba_compute(runs, match, &ab, err);
        if (st == DCU_OK && ev) {
            Abba_borrowEvidence(ab, ev); /* the App keeps it: each recompute borrows again */
        }
    } else {
        st = Diff_compute(a, na, b, nb, match, &d, err);
    }
    if (st != DCU_OK) {
        return -1;
    }
    s->ops->close(s);
    s->diff = d;
    s->abba = ab;
    s->diff_view = 0;
    s->tv.selected = s->tv.scroll = 0;
    return DiffScreen_requery(s, app, err) == DCU_OK ? 0 : 1;
}
