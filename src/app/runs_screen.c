/* runs_screen.c - the Runs screen: every run loaded, with its own figures (Runs_table).
 * Enter opens the Files screen restricted to the run; `a` and `b` mark the run as the
 * baseline or the candidate of a comparison (the marks live in the App, so they survive
 * scope changes and requeries, and show in the "A/B" column). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/runs.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static int64_t selected_run(const Screen* s) {
    int c = ResultSet_columnIndex(s->rs, "id");
    if (!s->rs || c < 0 || s->rs->nrows == 0) {
        return 0;
    }
    return ResultSet_cellc(s->rs, s->tv.selected, c)->i;
}

static const char* selected_label(const Screen* s) {
    int c = ResultSet_columnIndex(s->rs, "run");
    return c >= 0 && s->rs->nrows > 0 ? ResultSet_cellc(s->rs, s->tv.selected, c)->s : "";
}

/* The Runs table with an "A/B" column in front, from the App's marks. The model's table
 * has no marks (they are the TUI's); its columns are copied behind the mark column. */
static ResultSet* with_marks(const ResultSet* rs, App* app) {
    static RsColumn cols[32] = {{"mark", "A/B", CT_TEXT}};
    int nc = rs->ncols + 1 < 32 ? rs->ncols + 1 : 32;
    for (int c = 1; c < nc; c++) {
        cols[c] = rs->cols[c - 1];
    }
    ResultSet* out = ResultSet_new(rs->name, cols, nc);
    int ic = ResultSet_columnIndex(rs, "id");
    for (int r = 0; r < rs->nrows; r++) {
        int k = ResultSet_addRow(out);
        for (int c = 1; c < nc; c++) {
            RsCell* dst = ResultSet_cell(out, k, c);
            const RsCell* src = ResultSet_cellc(rs, r, c - 1);
            *dst = *src;
            dst->s = src->s ? xstrdup(src->s) : NULL;
        }
        for (int side = 'a'; side <= 'b' && ic >= 0; side++) {
            const int64_t* ids = NULL;
            int n = App_runMarks(app, side, &ids);
            for (int i = 0; i < n; i++) {
                if (ResultSet_cellc(rs, r, ic)->i == ids[i]) {
                    /* several on a side: numbered in the order marked (A1 A2: the drift) */
                    char m[16];
                    snprintf(m, sizeof(m), n > 1 ? "%c%d" : "%c", side == 'a' ? 'A' : 'B', i + 1);
                    ResultSet_setText(out, k, 0, m);
                }
            }
        }
    }
    return out;
}

/* Runs_table does not depend on the scope and the database does not change once loaded:
 * it is computed once (a timeline pass over every run) and kept in aux[0]. */
DcuStatus RunsScreen_table(Screen* s, App* app, ResultSet** out, DcuError* err) {
    if (!s->aux[0]) {
        DcuStatus st = Runs_table(App_db(app), &s->aux[0], err);
        if (st != DCU_OK) {
            return st;
        }
    }
    *out = with_marks(s->aux[0], app);
    return DCU_OK;
}

void RunsScreen_close(Screen* s) {
    ResultSet_delete(s->aux[0]);
    s->aux[0] = NULL;
}

static Reaction open_files(Screen* s, App* app) {
    int64_t id = selected_run(s);
    if (!id) {
        return REACT_NONE;
    }
    Screen* n = Screen_new(&FilesScreen);
    n->run = id;
    n->crumb = xasprintf("Runs > %s > Files", selected_label(s));
    DcuError err;
    if (App_push(app, n, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
    }
    return REACT_REDRAW;
}

static Reaction mark(Screen* s, App* app, int side, DcuError* err) {
    int64_t id = selected_run(s);
    if (!id) {
        return REACT_NONE;
    }
    int on = App_toggleRunMark(app, side, id);
    if (TableScreen_requery(s, app, err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err->msg);
        return REACT_REDRAW;
    }
    const int64_t *ia = NULL, *ib = NULL;
    int na = App_runMarks(app, 'a', &ia), nb = App_runMarks(app, 'b', &ib);
    if (na == 2 && nb == 2) { /* the order that decides the drift */
        TraceDb* db = App_db(app);
        char* l[4] = {Runs_label(db, ia[0]), Runs_label(db, ib[0]), Runs_label(db, ib[1]),
                      Runs_label(db, ia[1])};
        App_setStatus(app, 0, "A-B-B-A in this order: A1 = %s, B1 = %s, B2 = %s, A2 = %s (drift "
                              "= A2 - A1); 7 compares",
                      l[0] ? l[0] : "?", l[1] ? l[1] : "?", l[2] ? l[2] : "?", l[3] ? l[3] : "?");
        for (int i = 0; i < 4; i++) {
            free(l[i]);
        }
        return REACT_REDRAW;
    }
    App_setStatus(app, 0, "%s %s %s; marked: %d baseline (A), %d candidate (B)",
                  selected_label(s), on ? "marked as" : "no longer",
                  side == 'a' ? "baseline (A)" : "candidate (B)", na, nb);
    return REACT_REDRAW;
}

Reaction RunsScreen_handle(Screen* s, App* app, Action a, DcuError* err) {
    switch (a) {
    case ACT_ENTER:
        return open_files(s, app);
    case ACT_MARK_A:
        return mark(s, app, 'a', err);
    case ACT_MARK_B:
        return mark(s, app, 'b', err);
    default:
        return TableScreen_handle(s, app, a, err);
    }
}

int RunsScreen_scopeItems(TraceDb* db, char*** items, int64_t** ids, int* sel) {
    sqlite3_stmt* st = NULL;
    *items = NULL;
    *ids = NULL;
    *sel = 0;
    if (TraceDb_prepare(db, "SELECT id, label FROM run ORDER BY id", &st, NULL) != DCU_OK) {
        return 0;
    }
    RunsChoice ch;
    int chosen = Runs_choice(db, &ch, NULL) == DCU_OK && ch.chosen;
    int cap = Runs_count(db) + 2, n = 0;
    *items = xcalloc((size_t)cap, sizeof(char*));
    *ids = xcalloc((size_t)cap, sizeof(int64_t));
    if (chosen) { /* ids 0: the default scope; RUNS_ALL: every run added */
        char* label = Runs_label(db, ch.chosen);
        (*items)[n++] = xasprintf("Default: %s (the most complete timed run)", label ? label : "?");
        free(label);
        (*ids)[n] = RUNS_ALL;
        (*items)[n++] = xstrdup("All runs added (a total over runs)");
    } else {
        (*items)[n++] = xstrdup("All runs");
    }
    int64_t one = Runs_scopeRun(db);
    *sel = one == RUNS_ALL && chosen ? 1 : 0;
    while (sqlite3_step(st) == SQLITE_ROW && n < cap) {
        (*ids)[n] = sqlite3_column_int64(st, 0);
        (*items)[n] = xstrdup((const char*)sqlite3_column_text(st, 1));
        *sel = (*ids)[n] == one ? n : *sel;
        n++;
    }
    sqlite3_finalize(st);
    return n;
}
