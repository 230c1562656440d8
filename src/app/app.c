/* app.c - the application: screen stack, global actions, prompts, the frame around the
 * screens. No curses here: keys come in as codes, the frame goes out as a Canvas. */
#include "dcutop/app.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/chrome_view.h"
#include "dcutop/export.h"
#include "dcutop/filter.h"
#include "dcutop/format.h"
#include "dcutop/out_file.h"
#include "dcutop/xalloc.h"
#include "screen.h"

enum { PROMPT_NONE, PROMPT_FILTER, PROMPT_EXPORT, PROMPT_CONFIRM, PROMPT_WHATIF };
enum { TOP_SUMMARY, TOP_HOTSPOTS, TOP_CATEGORIES, TOP_API, TOP_COPIES, TOP_FILES, TOP_STACKS,
       TOP_EFFICIENCY, N_TOPS };
#define MAX_DEPTH 64

struct App_ {
    TraceDb* db;
    Keymap* km;
    Canvas* canvas;
    char* title;
    char* export_dir;
    char header[512];
    Screen* tops[N_TOPS];
    Screen* stack[MAX_DEPTH];
    int depth;
    char status[1024];
    int status_err;
    int prompt;
    char label[1400];
    char buf[1024];
    int cur;
    char* saved_filter;
    char pending[1024];
    int menu, menu_sel;
    char last_pattern[1024];
    int quit;
};

static const ScreenOps* const top_ops[N_TOPS] = {&SummaryScreen, &HotspotsScreen,
                                                  &CategoriesScreen, &ApiScreen, &CopiesScreen,
                                                  &FilesScreen,    &StacksScreen,
                                                  &EfficiencyScreen};
/* Tab and S-Tab cycle these, in tab order (Files is on 0, outside the tabs; Efficiency on F,
 * in the cycle but outside the tab strip) */
static const int tab_order[] = {TOP_SUMMARY, TOP_HOTSPOTS, TOP_CATEGORIES, TOP_API, TOP_COPIES,
                                TOP_STACKS, TOP_EFFICIENCY};
#define N_TABBED ((int)(sizeof(tab_order) / sizeof(tab_order[0])))

static DcuStatus requery(Screen* s, App* app, DcuError* err) {
    if (s->ops == &StacksScreen) {
        return StacksScreen_refilter(s, app, err);
    }
    return TableScreen_requery(s, app, err);
}
static const char* const tabs[] = {"1 Summary", "2 Hotspots", "3 Categories", "4 API",
                                   "5 Copies",  "6 Stacks",   "7 Diff"};

/* ---- services for screens ---------------------------------------------------------- */

TraceDb* App_db(App* app) {
    return app->db;
}
int App_width(const App* app) {
    return app->canvas->w;
}
int App_height(const App* app) {
    return app->canvas->h;
}
int App_bodyHeight(const App* app) {
    return app->canvas->h - 4;
}
const char* App_title(const App* app) {
    return app->title;
}

void App_setStatus(App* app, int is_error, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->status, sizeof(app->status), fmt, ap);
    va_end(ap);
    app->status_err = is_error;
}

Screen* Screen_new(const ScreenOps* ops) {
    Screen* s = xcalloc(1, sizeof(*s));
    s->ops = ops;
    s->tv.sort_col = -1;
    s->layout_w = -1;
    return s;
}

void Screen_delete(Screen* s) {
    if (!s) {
        return;
    }
    s->ops->close(s);
    ResultSet_delete(s->rs);
    Doc_delete(s->doc);
    free(s->crumb);
    free(s->filter);
    free(s->sort);
    free(s->category);
    free(s->kernel);
    free(s);
}

static Screen* current(App* app) {
    return app->stack[app->depth - 1];
}

static int is_top(App* app, Screen* s) {
    for (int i = 0; i < N_TOPS; i++) {
        if (app->tops[i] == s) {
            return 1;
        }
    }
    return 0;
}

DcuStatus App_push(App* app, Screen* s, DcuError* err) {
    if (app->depth == MAX_DEPTH) {
        Screen_delete(s);
        return Error_set(err, DCU_ERR_USAGE, "too many screens open");
    }
    DcuStatus st = s->ops->open(s, app, err);
    if (st != DCU_OK) {
        Screen_delete(s);
        return st;
    }
    app->stack[app->depth++] = s;
    return DCU_OK;
}

Reaction App_open(App* app, const ScreenOps* ops, const char* kernel, const char* category,
                  char* crumb) {
    Screen* n = Screen_new(ops);
    n->kernel = kernel ? xstrdup(kernel) : NULL;
    n->category = category ? xstrdup(category) : NULL;
    n->crumb = crumb;
    DcuError err;
    if (App_push(app, n, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
    }
    return REACT_REDRAW;
}

static void pop(App* app) {
    if (app->depth <= 1) {
        return;
    }
    Screen* s = app->stack[--app->depth];
    if (!is_top(app, s)) {
        Screen_delete(s);
    }
}

static void switch_top(App* app, int i) {
    while (app->depth > 1) {
        pop(app);
    }
    app->stack[0] = app->tops[i];
}

int App_helpEntries(App* app, const char* screen, HelpEntry* out, int max) {
    int n = 0;
    for (int a = 1; a < ACT_COUNT && n < max; a++) {
        Keymap_keysFor(app->km, screen, (Action)a, out[n].keys, (int)sizeof(out[n].keys));
        out[n].action = Action_name((Action)a);
        out[n].help = Action_help((Action)a);
        n++;
    }
    return n;
}

const char* App_previousScreenName(App* app) {
    return app->depth >= 2 ? app->stack[app->depth - 2]->ops->name : "generic";
}

/* ---- lifetime ------------------------------------------------------------------------ */

/* The top line: totals, the GEMM share and its ceiling over the current Amdahl basis. */
static void make_header(App* app) {
    Totals t;
    DcuError err;
    if (Query_totals(app->db, &t, &err) != DCU_OK) {
        snprintf(app->header, sizeof(app->header), " dcutop | %s", app->title);
        return;
    }
    if (t.kernel_ns == 0) {
        snprintf(app->header, sizeof(app->header), " dcutop | no device kernel times loaded | %s",
                 app->title);
        return;
    }
    char a[64], b[64];
    Format_durationAuto(a, sizeof(a), t.kernel_ns);
    double p = t.kernel_ns ? (double)t.gemm_ns / (double)t.kernel_ns : 0;
    int wall = Query_amdahlBasis(app->db) == 1;
    int64_t basis = Query_basisNs(app->db, wall);
    double pb = basis > 0 ? (double)t.gemm_ns / (double)basis : p;
    Format_ratio(b, sizeof(b), Amdahl_ceiling(pb));
    snprintf(app->header, sizeof(app->header),
             " dcutop | kernels %s | GEMM %.2f%% (ceiling %s%s)%s | %s", a, 100 * p, b,
             wall ? " over wall time" : "", t.pmc ? " | PMC RUN: times distorted" : "",
             app->title);
}

App* App_new(TraceDb* db, Keymap* km, const AppOptions* opt, int w, int h) {
    App* app = xcalloc(1, sizeof(*app));
    app->db = db;
    app->km = km;
    app->canvas = Canvas_new(w, h);
    app->title = xstrdup(opt && opt->title ? opt->title : "");
    app->export_dir = xstrdup(opt && opt->export_dir ? opt->export_dir : ".");
    DcuError err;
    make_header(app);
    for (int i = 0; i < N_TOPS; i++) {
        app->tops[i] = Screen_new(top_ops[i]);
        if (app->tops[i]->ops->open(app->tops[i], app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
    }
    app->stack[0] = app->tops[TOP_SUMMARY];
    app->depth = 1;
    return app;
}

void App_delete(App* app) {
    if (!app) {
        return;
    }
    while (app->depth > 1) {
        pop(app);
    }
    for (int i = 0; i < N_TOPS; i++) {
        Screen_delete(app->tops[i]);
    }
    Canvas_delete(app->canvas);
    free(app->title);
    free(app->export_dir);
    free(app->saved_filter);
    free(app);
}

void App_resize(App* app, int w, int h) {
    Canvas_resize(app->canvas, w, h);
    for (int i = 0; i < app->depth; i++) {
        if (TableScreen_isTable(app->stack[i])) {
            app->stack[i]->layout_w = -1;
            TableScreen_clamp(app->stack[i], app);
        }
    }
}

int App_quitting(const App* app) {
    return app->quit;
}

const char* App_screenName(const App* app) {
    return app->stack[app->depth - 1]->ops->name;
}

const char* App_status(const App* app) {
    return app->status;
}

/* ---- prompts -------------------------------------------------------------------------- */

static void open_prompt(App* app, int kind, const char* label, const char* initial) {
    app->prompt = kind;
    snprintf(app->label, sizeof(app->label), "%s", label);
    snprintf(app->buf, sizeof(app->buf), "%s", initial ? initial : "");
    app->cur = (int)strlen(app->buf);
}

static void set_filter(App* app, Screen* s, const char* text) {
    free(s->filter);
    s->filter = text && *text ? xstrdup(text) : NULL;
    DcuError err;
    if (requery(s, app, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
    }
}

/* Applies the filter being typed; a bad pattern keeps the previous filter. */
static void live_filter(App* app) {
    Screen* s = current(app);
    if (app->buf[0]) {
        Filter* f = NULL;
        DcuError err;
        if (Filter_new(app->buf, &f, &err) != DCU_OK) {
            App_setStatus(app, 1, "PCRE2: %s (previous filter kept)", err.msg);
            return;
        }
        Filter_delete(f);
    }
    set_filter(app, s, app->buf);
    int n = s->ops == &StacksScreen ? s->nvisible : s->rs ? s->rs->nrows : 0;
    App_setStatus(app, 0, "%d row%s", n, n == 1 ? "" : "s");
}

static void do_export(App* app, const char* path, int overwrite) {
    Screen* s = current(app);
    DcuError err;
    ResultSet* owned = s->ops == &StacksScreen ? StacksScreen_table(s) : NULL;
    const ResultSet* rs = owned ? owned : s->rs;
    if (!rs) {
        App_setStatus(app, 1, "Nothing to export.");
        return;
    }
    if (Export_csvFile(rs, path, overwrite, &err) != DCU_OK) {
        App_setStatus(app, 1, "Export failed: %s", err.msg);
    } else {
        App_setStatus(app, 0, "Exported %d rows to %s", rs->nrows, path);
    }
    ResultSet_delete(owned);
}

static void accept_prompt(App* app) {
    Screen* s = current(app);
    int kind = app->prompt;
    app->prompt = PROMPT_NONE;
    if (kind == PROMPT_FILTER) {
        free(app->saved_filter);
        app->saved_filter = NULL;
        if (app->buf[0]) {
            snprintf(app->last_pattern, sizeof(app->last_pattern), "%s", app->buf);
        }
        if (app->status_err) { /* the typed text was bad: say which filter stays */
            App_setStatus(app, 1, "Bad pattern; filter %s%s%s kept", s->filter ? "/" : "(none)",
                          s->filter ? s->filter : "", s->filter ? "/" : "");
        }
    } else if (kind == PROMPT_EXPORT) {
        if (!app->buf[0]) {
            App_setStatus(app, 0, "Not exported.");
            return;
        }
        if (OutFile_wouldReplace(app->buf)) { /* a FIFO or device is written, not replaced */
            snprintf(app->pending, sizeof(app->pending), "%s", app->buf);
            char label[1200];
            snprintf(label, sizeof(label), "%s exists. Overwrite? (y/N) ", app->pending);
            open_prompt(app, PROMPT_CONFIRM, label, "");
            return;
        }
        do_export(app, app->buf, 0);
    } else if (kind == PROMPT_WHATIF) {
        const char* cat = NULL;
        int c = ResultSet_columnIndex(s->rs, "category");
        if (c >= 0 && s->rs->nrows > 0) {
            cat = ResultSet_cellc(s->rs, s->tv.selected, c)->s;
        }
        if (!cat) {
            return;
        }
        int idx = -1;
        for (int i = 0; i < s->n_what_if; i++) {
            if (strcmp(s->what_if[i].name, cat) == 0) {
                idx = i;
            }
        }
        if (!app->buf[0]) {
            if (idx >= 0) {
                s->what_if[idx] = s->what_if[--s->n_what_if];
            }
        } else {
            WhatIf w[1];
            int n;
            DcuError err;
            char spec[1200];
            snprintf(spec, sizeof(spec), "%s=%s", cat, app->buf);
            if (WhatIf_parse(spec, w, 1, &n, &err) != DCU_OK) {
                App_setStatus(app, 1, "%s", err.msg);
                return;
            }
            if (idx >= 0) {
                s->what_if[idx] = w[0]; /* a factor or an X%peak */
            } else if (s->n_what_if < MAX_WHATIF) {
                s->what_if[s->n_what_if++] = w[0];
            }
        }
        DcuError err;
        if (TableScreen_requery(s, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
    }
}

static void cancel_prompt(App* app) {
    Screen* s = current(app);
    if (app->prompt == PROMPT_FILTER) {
        const char* back = app->saved_filter;
        if (!(back == NULL && s->filter == NULL) &&
            !(back && s->filter && strcmp(back, s->filter) == 0)) {
            set_filter(app, s, back);
        }
        free(app->saved_filter);
        app->saved_filter = NULL;
        app->status[0] = '\0';
    } else if (app->prompt == PROMPT_EXPORT || app->prompt == PROMPT_CONFIRM) {
        App_setStatus(app, 0, "Not exported.");
    }
    app->prompt = PROMPT_NONE;
}

static Reaction prompt_key(App* app, int key) {
    if (app->prompt == PROMPT_CONFIRM) {
        app->prompt = PROMPT_NONE;
        if (key == 'y' || key == 'Y') {
            do_export(app, app->pending, 1);
        } else {
            App_setStatus(app, 0, "Not exported: %s kept.", app->pending);
        }
        return REACT_REDRAW;
    }
    int len = (int)strlen(app->buf);
    int edited = 0;
    if (key == KC_ENTER) {
        accept_prompt(app);
        return REACT_REDRAW;
    } else if (key == KC_ESC || key == KC_CTRL('g')) {
        cancel_prompt(app);
        return REACT_REDRAW;
    } else if (key == KC_BACKSPACE || key == KC_CTRL('h')) {
        if (app->cur > 0) {
            int p = app->cur - 1;
            while (p > 0 && ((unsigned char)app->buf[p] & 0xC0) == 0x80) {
                p--;
            }
            memmove(app->buf + p, app->buf + app->cur, (size_t)(len - app->cur) + 1);
            app->cur = p;
            edited = 1;
        }
    } else if (key == KC_DELETE) {
        if (app->cur < len) {
            int q = app->cur + 1;
            while (q < len && ((unsigned char)app->buf[q] & 0xC0) == 0x80) {
                q++;
            }
            memmove(app->buf + app->cur, app->buf + q, (size_t)(len - q) + 1);
            edited = 1;
        }
    } else if (key == KC_LEFT) {
        while (app->cur > 0) {
            app->cur--;
            if (((unsigned char)app->buf[app->cur] & 0xC0) != 0x80) {
                break;
            }
        }
    } else if (key == KC_RIGHT) {
        while (app->cur < len) {
            app->cur++;
            if (((unsigned char)app->buf[app->cur] & 0xC0) != 0x80) {
                break;
            }
        }
    } else if (key == KC_HOME || key == KC_CTRL('a')) {
        app->cur = 0;
    } else if (key == KC_END || key == KC_CTRL('e')) {
        app->cur = len;
    } else if (key == KC_CTRL('u')) {
        app->buf[0] = '\0';
        app->cur = 0;
        edited = 1;
    } else if (key >= 32 && key < KEY_CODE_BASE && key != 127) {
        char u[4];
        int n = Format_utf8Encode((unsigned int)key, u);
        if (len + n < (int)sizeof(app->buf)) {
            memmove(app->buf + app->cur + n, app->buf + app->cur, (size_t)(len - app->cur) + 1);
            memcpy(app->buf + app->cur, u, (size_t)n);
            app->cur += n;
            edited = 1;
        }
    }
    if (edited && app->prompt == PROMPT_FILTER) {
        live_filter(app); /* applied as you type */
    }
    return REACT_REDRAW;
}

/* ---- the sort menu -------------------------------------------------------------------- */

static Reaction menu_key(App* app, int key) {
    Screen* s = current(app);
    Action a = Keymap_lookup(app->km, "generic", key);
    int n = s->layout.n;
    if (a == ACT_MOVE_UP) {
        app->menu_sel = app->menu_sel > 0 ? app->menu_sel - 1 : 0;
    } else if (a == ACT_MOVE_DOWN) {
        app->menu_sel = app->menu_sel < n - 1 ? app->menu_sel + 1 : n - 1;
    } else if (key == KC_ENTER && n > 0) {
        int col = s->layout.col[app->menu_sel];
        int desc = ResultSet_defaultDesc(s->rs, col);
        if (col == s->tv.sort_col) {
            desc = s->tv.sort_desc; /* picking the current column keeps its direction */
        }
        char spec[96];
        snprintf(spec, sizeof(spec), "%s:%s", s->rs->cols[col].key, desc ? "desc" : "asc");
        free(s->sort);
        s->sort = xstrdup(spec);
        DcuError err;
        if (TableScreen_requery(s, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
        app->menu = 0;
    } else if (key == KC_ESC || a == ACT_SORT_MENU || a == ACT_QUIT || a == ACT_BACK) {
        app->menu = 0;
    }
    return REACT_REDRAW;
}

/* ---- keys ------------------------------------------------------------------------------- */

static const char* export_name(App* app, Screen* s, char* buf, size_t cap) {
    if (s->category) {
        char safe[64];
        size_t j = 0;
        for (const char* p = s->category; *p && j + 1 < sizeof(safe); p++) {
            safe[j++] = (*p == '/' || *p == ' ') ? '_' : *p;
        }
        safe[j] = '\0';
        snprintf(buf, cap, "%s/%s-%s.csv", app->export_dir, s->ops->name, safe);
    } else {
        snprintf(buf, cap, "%s/%s.csv", app->export_dir,
                 s->ops == &StacksScreen ? (s->tree_src ? "ranges" : "stacks") : s->ops->name);
    }
    if (strncmp(buf, "./", 2) == 0) {
        memmove(buf, buf + 2, strlen(buf + 2) + 1);
    }
    return buf;
}

/* w: ceilings over wall time or device kernel time; every table and the Summary again. */
static void toggle_basis(App* app) {
    DcuError err;
    Error_clear(&err);
    int wall = Query_amdahlBasis(app->db) != 1;
    if (Query_setAmdahlBasis(app->db, wall, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
        return;
    }
    if (wall && Query_basisNs(app->db, 1) <= 0) {
        Query_setAmdahlBasis(app->db, 0, &err);
        App_setStatus(app, 0, "Wall time needs per-dispatch timestamps; ceilings stay over "
                              "device kernel time.");
        return;
    }
    for (int i = 0; i < N_TOPS; i++) {
        Screen* t = app->tops[i];
        if (TableScreen_isTable(t) && requery(t, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        } else if (t->ops == &SummaryScreen && t->ops->open(t, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
    }
    for (int i = 1; i < app->depth; i++) {
        if (TableScreen_isTable(app->stack[i])) {
            requery(app->stack[i], app, &err);
        }
    }
    make_header(app);
    App_setStatus(app, 0, "Ceilings now over %s.",
                  wall ? "wall time (device wall: idle gaps count)" : "device kernel time");
}

Reaction App_key(App* app, int key) {
    if (key == KC_RESIZE) {
        return REACT_REDRAW;
    }
    if (app->prompt != PROMPT_NONE) {
        return prompt_key(app, key);
    }
    if (app->menu) {
        return menu_key(app, key);
    }
    app->status[0] = '\0';
    app->status_err = 0;
    Screen* s = current(app);
    Action a = Keymap_lookup(app->km, s->ops->name, key);
    DcuError err;
    Error_clear(&err);
    switch (a) {
    case ACT_NONE:
        return REACT_NONE;
    case ACT_QUIT:
        app->quit = 1;
        return REACT_QUIT;
    case ACT_HELP:
        if (s->ops != &HelpScreen && App_push(app, Screen_new(&HelpScreen), &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
        return REACT_REDRAW;
    case ACT_REDRAW:
        return REACT_REDRAW;
    case ACT_SCREEN_SUMMARY:
    case ACT_SCREEN_HOTSPOTS:
    case ACT_SCREEN_CATEGORIES:
    case ACT_SCREEN_API:
    case ACT_SCREEN_COPIES:
        switch_top(app, (int)(a - ACT_SCREEN_SUMMARY));
        return REACT_REDRAW;
    case ACT_SCREEN_FILES:
        switch_top(app, TOP_FILES);
        return REACT_REDRAW;
    case ACT_SCREEN_STACKS:
        switch_top(app, TOP_STACKS);
        return REACT_REDRAW;
    case ACT_SCREEN_DIFF:
        App_setStatus(app, 0, "Diff (two runs side by side): not in this version of dcutop.");
        return REACT_REDRAW;
    case ACT_NEXT_SCREEN:
    case ACT_PREV_SCREEN: {
        int at = -1;
        for (int i = 0; i < N_TABBED; i++) {
            if (app->tops[tab_order[i]] == app->stack[0]) {
                at = i;
            }
        }
        at = at < 0 ? 0 : (at + (a == ACT_NEXT_SCREEN ? 1 : N_TABBED - 1)) % N_TABBED;
        switch_top(app, tab_order[at]);
        return REACT_REDRAW;
    }
    case ACT_AMDAHL_BASIS:
        toggle_basis(app);
        return REACT_REDRAW;
    case ACT_SCREEN_EFFICIENCY:
        switch_top(app, TOP_EFFICIENCY);
        return REACT_REDRAW;
    case ACT_BACK:
        if (s->filter) {
            set_filter(app, s, NULL);
            App_setStatus(app, 0, "Filter cleared.");
        } else if (app->depth > 1) {
            pop(app);
        }
        return REACT_REDRAW;
    case ACT_FILTER:
        if (!s->ops->filterable) {
            App_setStatus(app, 0, "No filter on this screen.");
            return REACT_REDRAW;
        }
        free(app->saved_filter);
        app->saved_filter = s->filter ? xstrdup(s->filter) : NULL;
        open_prompt(app, PROMPT_FILTER, "Filter (PCRE2, !negates): ", s->filter);
        return REACT_REDRAW;
    case ACT_MATCH_NEXT:
    case ACT_MATCH_PREV:
        if (!TableScreen_isTable(s)) {
            return REACT_NONE;
        }
        if (!app->last_pattern[0]) {
            App_setStatus(app, 0, "No pattern yet: type / first.");
        } else if (!TableScreen_search(s, app->last_pattern, a == ACT_MATCH_NEXT ? 1 : -1,
                                       &err)) {
            App_setStatus(app, err.msg[0] ? 1 : 0, "%s",
                          err.msg[0] ? err.msg : "No other row matches.");
        } else {
            TableScreen_clamp(s, app);
        }
        return REACT_REDRAW;
    case ACT_SORT_MENU:
        if (!TableScreen_isTable(s) || s->layout.n == 0) {
            return REACT_NONE;
        }
        app->menu = 1;
        app->menu_sel = 0;
        for (int i = 0; i < s->layout.n; i++) {
            if (s->layout.col[i] == s->tv.sort_col) {
                app->menu_sel = i;
            }
        }
        return REACT_REDRAW;
    case ACT_EXPORT: {
        if ((!TableScreen_isTable(s) || !s->rs) && s->ops != &StacksScreen) {
            App_setStatus(app, 0, "Export works on table screens (Hotspots, Categories, API, "
                                  "Copies, Files, Dispatches) and on Stacks.");
            return REACT_REDRAW;
        }
        char def[1024];
        open_prompt(app, PROMPT_EXPORT, "Export to CSV: ", export_name(app, s, def, sizeof(def)));
        return REACT_REDRAW;
    }
    case ACT_WHATIF_SET:
        if (s->ops != &CategoriesScreen || !s->rs || s->rs->nrows == 0) {
            return REACT_NONE;
        } else {
            int c = ResultSet_columnIndex(s->rs, "category");
            char label[256];
            snprintf(label, sizeof(label),
                     "What-if speedup for %s (>= 1, inf, X%%peak; empty clears): ",
                     ResultSet_cellc(s->rs, s->tv.selected, c)->s);
            open_prompt(app, PROMPT_WHATIF, label, "");
        }
        return REACT_REDRAW;
    default:
        break;
    }
    Reaction r = s->ops->handle(s, app, a, &err);
    if (err.msg[0] && !app->status[0]) {
        App_setStatus(app, 1, "%s", err.msg);
    }
    return r;
}

/* ---- drawing ------------------------------------------------------------------------------ */

static const FooterItem table_footer[] = {
    {"F1", "Help"}, {"/", "Filter"}, {"F6", "Sort"}, {"r", "Reverse"}, {"Enter", "Open"},
    {"Esc", "Back"}, {"e", "Export"}, {"Tab", "Next"}, {"q", "Quit"}};
static const FooterItem cat_footer[] = {
    {"F1", "Help"}, {"+-", "What-if"}, {"=", "Type k"}, {"x", "Clear"}, {"Enter", "Kernels"},
    {"/", "Filter"}, {"F6", "Sort"}, {"e", "Export"}, {"q", "Quit"}};
static const FooterItem doc_footer[] = {
    {"F1", "Help"}, {"Enter", "Open"}, {"Esc", "Back"}, {"Tab", "Next"}, {"0", "Files"},
    {"q", "Quit"}};
static const FooterItem stacks_footer[] = {
    {"F1", "Help"}, {"+-", "Expand"}, {"E/C", "All"}, {"m", "Mode"}, {"f", "Fold"},
    {"t", "Stacks/Ranges"}, {"/", "Filter"}, {"e", "Export"}, {"q", "Quit"}};
static const FooterItem prompt_footer[] = {
    {"Enter", "Accept"}, {"Esc", "Cancel"}, {"C-u", "Clear"}};
static const FooterItem menu_footer[] = {
    {"Up/Down", "Pick"}, {"Enter", "Sort"}, {"Esc", "Cancel"}};

const Canvas* App_render(App* app) {
    Canvas* c = app->canvas;
    Canvas_clear(c, STYLE_DEFAULT);
    if (c->w < 30 || c->h < 8) {
        Canvas_putf(c, 0, 0, STYLE_WARNING, "Terminal too small (%dx%d)", c->w, c->h);
        Canvas_put(c, 1, 0, STYLE_DEFAULT, "need 30x8", -1);
        return c;
    }
    Screen* s = current(app);
    char right[1100] = "";
    if (s->filter) {
        snprintf(right, sizeof(right), "filter /%s/ ", s->filter);
    }
    ChromeView_header(c, 0, app->header, right);
    int active = -1;
    Screen* top = app->stack[0];
    if (top->ops->tab >= 0) {
        active = top->ops->tab;
    }
    char trail[1200] = "";
    if (app->depth > 1 || top->ops->tab < 0) { /* Files, Efficiency: outside the tab strip */
        snprintf(trail, sizeof(trail), "> %s", s->crumb ? s->crumb : s->ops->title);
    }
    ChromeView_tabs(c, 1, tabs, (int)(sizeof(tabs) / sizeof(tabs[0])), active, trail);
    int body = App_bodyHeight(app);
    s->ops->render(s, app, c, 2, body);
    if (app->menu) {
        const char* items[TABLE_MAX_COLS];
        char titles[TABLE_MAX_COLS][64];
        for (int i = 0; i < s->layout.n; i++) {
            TableView_title(&s->layout, s->rs, i, titles[i], sizeof(titles[i]));
            items[i] = titles[i];
        }
        ChromeView_menu(c, 2, "Sort by", items, s->layout.n, app->menu_sel);
    }
    int sy = c->h - 2;
    if (app->prompt != PROMPT_NONE) {
        ChromeView_prompt(c, sy, app->label, app->buf, app->cur);
        if (app->status[0] && app->status_err) {
            /* a PCRE2 error while typing: on the line above the prompt, in full */
            ChromeView_status(c, sy - 1, app->status, 1);
        } else if (app->status[0]) {
            int w = Format_width(app->status); /* "6 rows": on the right of the prompt */
            if (w < c->w / 3) {
                Canvas_put(c, sy, c->w - w, STYLE_DIM, app->status, -1);
            }
        }
    } else if (app->status[0]) {
        ChromeView_status(c, sy, app->status, app->status_err);
    } else {
        const char* sel = s->ops->selection ? s->ops->selection(s) : NULL;
        char line[4096];
        if (TableScreen_isTable(s) && s->rs) {
            snprintf(line, sizeof(line), "%d/%d  %s", s->rs->nrows ? s->tv.selected + 1 : 0,
                     s->rs->nrows, sel ? sel : "");
        } else {
            snprintf(line, sizeof(line), "%s", sel ? sel : "");
        }
        ChromeView_status(c, sy, line, 0);
    }
    if (app->prompt != PROMPT_NONE) {
        ChromeView_footer(c, c->h - 1, prompt_footer, 3);
    } else if (app->menu) {
        ChromeView_footer(c, c->h - 1, menu_footer, 3);
    } else if (s->ops == &StacksScreen) {
        ChromeView_footer(c, c->h - 1, stacks_footer,
                          (int)(sizeof(stacks_footer) / sizeof(stacks_footer[0])));
    } else if (s->ops == &CategoriesScreen) {
        ChromeView_footer(c, c->h - 1, cat_footer, (int)(sizeof(cat_footer) / sizeof(cat_footer[0])));
    } else if (TableScreen_isTable(s)) {
        ChromeView_footer(c, c->h - 1, table_footer,
                          (int)(sizeof(table_footer) / sizeof(table_footer[0])));
    } else {
        ChromeView_footer(c, c->h - 1, doc_footer, (int)(sizeof(doc_footer) / sizeof(doc_footer[0])));
    }
    return c;
}
