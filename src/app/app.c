/* app.c - the application: screen stack, global actions, prompts, the frame around the
 * screens. No curses here: keys come in as codes, the frame goes out as a Canvas. */
#include "dcutop/app.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_runs.h"
#include "dcutop/abba_evidence.h"
#include "dcutop/chrome_view.h"
#include "dcutop/export.h"
#include "dcutop/filter.h"
#include "dcutop/format.h"
#include "dcutop/names.h"
#include "dcutop/out_file.h"
#include "dcutop/runs.h"
#include "dcutop/xalloc.h"
#include "dcutop/roi.h"
#include "screen.h"

enum { PROMPT_NONE, PROMPT_FILTER, PROMPT_EXPORT, PROMPT_CONFIRM, PROMPT_WHATIF, PROMPT_SQL,
       PROMPT_CONFIRM_OUTSIDE }; /* the last: type "yes" to export through a link that leaves
                                    its folder */
/* The top screens, in the order of the strip and of Tab (top_table below). */
enum { TOP_SUMMARY, TOP_HOTSPOTS, TOP_CATEGORIES, TOP_API, TOP_COPIES, TOP_STACKS, TOP_DIFF,
       TOP_TRACE, TOP_RANKS, TOP_EFFICIENCY, TOP_RUNS, TOP_FILES, N_TOPS };
enum { MENU_NONE, MENU_SORT, MENU_SCOPE }; /* App.menu */
#define MAX_MARKS 64
#define MAX_DEPTH 64

struct App_ {
    TraceDb* db;
    Keymap* km;
    Canvas* canvas;
    char* title;
    char* export_dir;
    char header[512];
    Screen* tops[N_TOPS];
    int opened[N_TOPS];            /* its queries have run (Trace, Ranks: when first shown) */
    char tab_keys[N_TOPS][16];     /* the key of each tab, from the keymap */
    ChromeTab strip[N_TOPS];       /* the tabs (borrowing top_table and tab_keys) */
    Screen* stack[MAX_DEPTH];
    int depth;
    char status[1024];
    int status_err;
    int prompt;
    char label[1400];
    char buf[PROMPT_TEXT_MAX];
    int cur;
    char* saved_filter;
    int saved_sel, saved_scroll; /* the selection when the filter prompt opened */
    char pending[4096]; /* the export path asked about */
    int pending_flags;  /* OUT_* for it once confirmed */
    int export_repro;   /* the export prompt writes the microbenchmark script (M) */
    int menu, menu_sel;
    char last_pattern[PROMPT_TEXT_MAX];
    int quit;
    /* the comparison sides loaded path by path (App_setDiffSides; borrowed) */
    const DiffSide* const* diff_a;
    const DiffSide* const* diff_b;
    int diff_na, diff_nb;
    int diff_abba;
    DiffMatch diff_match;
    TraceDb* diff_db_a; /* the baseline's database, loaded path by path (borrowed); NULL */
    SqlHistory* sql_hist; /* loaded at the first `;` (owned) */
    int (*poll_cancel)(void);
    int (*run_child)(const char* const* argv);
    int idle_done; /* the work App_idle does is done */
    void (*draw_now)(App* app);
    /* the scope picker (R): "All runs" and each run, their ids (0: all) */
    char** scope_items;
    int64_t* scope_ids;
    int n_scope_items;
    /* Runs screen marks for a comparison: baseline (A) and candidate (B) runs */
    int64_t marks[2][MAX_MARKS];
    /* sides built from marked runs of this database (App_openDiff; owned) */
    DiffSide* own_sides[2][MAX_MARKS];
    int n_own[2];
    AbbaEvidence* diff_ev; /* an A-B-B-A's evidence beside time (owned); NULL: none */
    int nmarks[2];
};

/* Each top screen: the action that shows it (its key in the strip is that action's key),
 * its name and short name in the strip, and whether its queries wait until it is first shown
 * (a trace of a million dispatches, the ranks of a job: nothing to pay for at start-up). */
static const struct {
    const ScreenOps* ops;
    Action action;
    const char* abbrev;
    int lazy;
} top_table[N_TOPS] = {
    [TOP_SUMMARY] = {&SummaryScreen, ACT_SCREEN_SUMMARY, "Sum", 0},
    [TOP_HOTSPOTS] = {&HotspotsScreen, ACT_SCREEN_HOTSPOTS, "Hot", 0},
    [TOP_CATEGORIES] = {&CategoriesScreen, ACT_SCREEN_CATEGORIES, "Cat", 0},
    [TOP_API] = {&ApiScreen, ACT_SCREEN_API, "API", 0},
    [TOP_COPIES] = {&CopiesScreen, ACT_SCREEN_COPIES, "Copy", 0},
    [TOP_STACKS] = {&StacksScreen, ACT_SCREEN_STACKS, "Stk", 0},
    [TOP_DIFF] = {&DiffScreen, ACT_SCREEN_DIFF, "Diff", 0},
    [TOP_TRACE] = {&TraceScreen, ACT_SCREEN_TRACE, "Trace", 1},
    [TOP_RANKS] = {&RanksScreen, ACT_SCREEN_RANKS, "Rank", 1},
    [TOP_EFFICIENCY] = {&EfficiencyScreen, ACT_SCREEN_EFFICIENCY, "Eff", 0},
    [TOP_RUNS] = {&RunsScreen, ACT_SCREEN_RUNS, "Runs", 0},
    [TOP_FILES] = {&FilesScreen, ACT_SCREEN_FILES, "File", 0},
};

static DcuStatus requery(Screen* s, App* app, DcuError* err) {
    if (s->ops == &StacksScreen) {
        return StacksScreen_refilter(s, app, err);
    }
    if (s->ops == &SqlScreen) {
        return SqlScreen_refilter(s, app, err);
    }
    return TableScreen_requery(s, app, err);
}
int App_runMarks(const App* app, int side, const int64_t** ids) {
    int k = side == 'b';
    *ids = app->marks[k];
    return app->nmarks[k];
}

int App_toggleRunMark(App* app, int side, int64_t id) {
    int k = side == 'b';
    for (int s = 0; s < 2; s++) { /* a run is on one side at most */
        for (int i = 0; i < app->nmarks[s]; i++) {
            if (app->marks[s][i] == id) {
                memmove(&app->marks[s][i], &app->marks[s][i + 1],
                        sizeof(int64_t) * (size_t)(app->nmarks[s] - i - 1));
                app->nmarks[s]--;
                if (s == k) {
                    return 0; /* pressed on its own side: unmarked */
                }
                break;
            }
        }
    }
    if (app->nmarks[k] == MAX_MARKS) {
        return 0;
    }
    app->marks[k][app->nmarks[k]++] = id;
    return 1;
}

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
int App_idle(App* app, int (*input_pending)(void)) {
    if (DocScreen_pending(app->tops[TOP_SUMMARY]) && !(input_pending && input_pending()) &&
        DocScreen_finish(app->tops[TOP_SUMMARY], app)) {
        return 1; /* shown before the index below is built: at 10M that took 0.3-0.9 s */
    }
    if (!app->idle_done && !(input_pending && input_pending())) {
        app->idle_done = KernelQuery_indexWhenIdle(app->db, input_pending);
    }
    return 0;
}

int App_summaryPending(const App* app) {
    return DocScreen_pending(app->tops[TOP_SUMMARY]);
}

int App_runChild(App* app, const char* const* argv) {
    if (!app->run_child) {
        App_setStatus(app, 1, "No terminal to lend: would run %s %s", argv[0],
                      argv[1] ? argv[1] : "");
        return -1;
    }
    int rc = app->run_child(argv);
    return rc;
}

int App_cancelRequested(App* app) {
    return app->poll_cancel ? app->poll_cancel() : 0;
}
void App_drawNow(App* app) {
    if (app->draw_now) {
        app->draw_now(app);
    }
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

static Reaction go_to_screen(App* app, Action a);

/* The Ranks screen is a top screen: a job opens on it as if 9 had been pressed. */
Reaction App_openRanks(App* app) {
    if (current(app)->ops == &RanksScreen) {
        return REACT_REDRAW;
    }
    return go_to_screen(app, ACT_SCREEN_RANKS);
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

/* One help row per action bound on screen `on`, its keys as they act on `keys_on`. */
static int help_section(App* app, const char* on, const char* keys_on, const char* section,
                        HelpEntry* out, int max) {
    Action acts[ACT_COUNT];
    int na = Keymap_actionsOn(app->km, on, acts, ACT_COUNT);
    int n = 0;
    for (int i = 0; i < na && n < max; i++, n++) {
        Keymap_keysFor(app->km, keys_on, acts[i], out[n].keys, (int)sizeof(out[n].keys));
        out[n].section = section;
        out[n].action = Action_name(acts[i]);
        out[n].help = Action_help(acts[i]);
    }
    return n;
}

/* The help rows, grouped: the keys of this screen, then those of every screen (as they act
 * here), then each other screen's own keys, then the actions without a key. */
int App_helpEntries(App* app, const char* screen, HelpEntry* out, int max) {
    int n = 0;
    if (strcmp(screen, "generic") != 0) {
        n += help_section(app, screen, screen, screen, out + n, max - n);
    }
    n += help_section(app, "generic", screen, "generic", out + n, max - n);
    for (int i = 1; Keymap_screen(i); i++) {
        const char* other = Keymap_screen(i);
        if (strcmp(other, screen) != 0) {
            n += help_section(app, other, other, other, out + n, max - n);
        }
    }
    for (int a = 1; a < ACT_COUNT && n < max; a++) {
        if (!Keymap_isBound(app->km, (Action)a)) {
            out[n].keys[0] = '\0';
            out[n].section = NULL;
            out[n].action = Action_name((Action)a);
            out[n].help = Action_help((Action)a);
            n++;
        }
    }
    return n;
}

/* The screen the help is about: the one under the help screen, or the top one while the help
 * screen is being opened (it is pushed after its open). */
const char* App_previousScreenName(App* app) {
    Screen* top = app->stack[app->depth - 1];
    if (top->ops == &HelpScreen) {
        return app->depth >= 2 ? app->stack[app->depth - 2]->ops->name : "generic";
    }
    return top->ops->name;
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
        snprintf(app->header, sizeof(app->header), " dcutop | no device kernel times %s | %s",
                 Roi_active(app->db, NULL) ? "in the region of interest (Esc clears it)"
                                           : "loaded",
                 app->title);
        return;
    }
    char a[64], b[64], runs[300] = "";
    /* several runs of one layer: say how many, and which the screens show */
    int nruns = Runs_count(app->db);
    if (nruns > 1 && Runs_sameLayer(app->db) > 1) {
        char* label = Runs_scopeName(app->db);
        snprintf(runs, sizeof(runs), " %d runs, scope: %.200s \u2014 R to pick |", nruns, label);
        free(label);
    }
    Format_durationAuto(a, sizeof(a), t.kernel_ns);
    int wall = Query_amdahlBasis(app->db) == 1;
    int64_t basis = Query_basisNs(app->db, wall);
    /* the share and its ceiling over the same basis */
    double p = basis > 0 ? (double)t.gemm_ns / (double)basis : 0;
    Format_ratio(b, sizeof(b), Amdahl_ceiling(p));
    char roi[300] = "";
    Roi_label(app->db, roi + 3, sizeof(roi) - 3);
    if (roi[3]) {
        memcpy(roi, " | ", 3);
    }
    snprintf(app->header, sizeof(app->header),
             " dcutop%s |%s kernels %s | GEMM %.2f%%%s (ceiling %s)%s | %s", roi, runs, a, 100 * p,
             wall ? " of wall time" : "", b, t.pmc ? " | PMC RUN: times distorted" : "",
             app->title);
}

App* App_new(TraceDb* db, Keymap* km, const AppOptions* opt, int w, int h) {
    App* app = xcalloc(1, sizeof(*app));
    app->diff_match = opt ? (DiffMatch)opt->diff_match : DIFF_MATCH_OP;
    app->db = db;
    app->km = km;
    app->canvas = Canvas_new(w, h);
    app->title = xstrdup(opt && opt->title ? opt->title : "");
    app->export_dir = xstrdup(opt && opt->export_dir ? opt->export_dir : ".");
    app->poll_cancel = opt ? opt->poll_cancel : NULL;
    app->draw_now = opt ? opt->draw_now : NULL;
    app->run_child = opt ? opt->run_child : NULL;
    DcuError err;
    make_header(app);
    for (int i = 0; i < N_TOPS; i++) {
        app->tops[i] = Screen_new(top_table[i].ops);
        app->tops[i]->goto_abs = -1;
        /* the key the keymap gives the screen ("<F2>" shows as "F2") */
        char k[64];
        Keymap_keysFor(km, "generic", top_table[i].action, k, (int)sizeof(k));
        k[strcspn(k, " ")] = '\0';
        snprintf(app->tab_keys[i], sizeof(app->tab_keys[i]), "%.*s",
                 (int)strcspn(k + (k[0] == '<' && k[1]), ">"), k + (k[0] == '<' && k[1]));
        app->strip[i] = (ChromeTab){app->tab_keys[i], top_table[i].ops->title,
                                    top_table[i].abbrev};
        if (top_table[i].lazy) {
            continue;
        }
        app->opened[i] = 1;
        if (app->tops[i]->ops->open(app->tops[i], app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
    }
    app->stack[0] = app->tops[TOP_SUMMARY];
    app->depth = 1;
    /* a folder of call stacks only: where its time is shows on Stacks, not on an empty
     * Summary */
    Totals t;
    if (Query_totals(db, &t, &err) == DCU_OK && t.kernels == 0 &&
        Stacks_available(db, STACKS_SRC_STACKS)) {
        app->stack[0] = app->tops[TOP_STACKS];
    }
    if (opt && opt->warning) {
        App_setStatus(app, 1, "%s", opt->warning);
    }
    return app;
}

static void drop_own_sides(App* app) {
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < app->n_own[side]; i++) {
            DiffSide_delete(app->own_sides[side][i]);
        }
        app->n_own[side] = 0;
    }
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
    SqlHistory_delete(app->sql_hist);
    drop_own_sides(app);
    AbbaEvidence_delete(app->diff_ev);
    for (int i = 0; i < app->n_scope_items; i++) {
        free(app->scope_items[i]);
    }
    free(app->scope_items);
    free(app->scope_ids);
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

/* "6 rows, 181.0 ms, 21.94%": the rows of a filtered table and what they add up to (group
 * rows of Categories left out: their categories are rows too). */
static void rows_total(const Screen* s, char* buf, size_t cap) {
    int n = s->ops == &StacksScreen ? s->nvisible : TableScreen_rows(s);
    int len = snprintf(buf, cap, "%d row%s", n, n == 1 ? "" : "s");
    /* a paged list has no total column: its rows are not all read */
    const ResultSet* rs = s->ops == &StacksScreen || s->page ? NULL : s->rs;
    int ct = rs ? ResultSet_columnIndex(rs, "total_ns") : -1;
    if (ct < 0 || len < 0 || (size_t)len >= cap) {
        return;
    }
    int cp = ResultSet_columnIndex(rs, "pct");
    int cg = ResultSet_columnIndex(rs, "group");
    int64_t total = 0;
    double pct = 0;
    for (int r = 0; r < rs->nrows; r++) {
        const RsCell* g = cg >= 0 ? ResultSet_cellc(rs, r, cg) : NULL;
        if (g && !g->null && g->s && strcmp(g->s, "group") == 0) {
            continue;
        }
        total += ResultSet_cellc(rs, r, ct)->i;
        pct += cp >= 0 ? ResultSet_cellc(rs, r, cp)->d : 0;
    }
    char t[64];
    Format_durationAuto(t, sizeof(t), total);
    if (cp >= 0) {
        snprintf(buf + len, cap - (size_t)len, ", %s, %.2f%%", t, pct);
    } else {
        snprintf(buf + len, cap - (size_t)len, ", %s", t);
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
    char total[160];
    rows_total(s, total, sizeof(total));
    App_setStatus(app, 0, "%s", total);
}

/* flags: OUT_* of what the user confirmed (OUT_FORCE: replace, OUT_OUTSIDE: through a link
 * that leaves its folder). A FIFO is never waited for: the TUI must not freeze. */
static void do_export(App* app, const char* path, int flags) {
    Screen* s = current(app);
    DcuError err;
    if (app->export_repro) {
        if (ExportFiles_repro(app, s, path, flags, &err) != DCU_OK) {
            App_setStatus(app, 1, "Not written: %s", err.msg);
        }
        return;
    }
    ResultSet* owned = s->ops == &StacksScreen ? StacksScreen_table(s)
                       : s->ops == &DiffScreen ? DiffScreen_exportTable(s) /* A-B-B-A: ns */
                                               : NULL;
    if (s->page) { /* a paged list: every row, read whole for the file */
        QueryOpts q = {s->filter, s->sort, NULL, 0, NULL, 0, 0};
        if (KernelQuery_dispatches(app->db, s->kernel, &q, &owned, &err) != DCU_OK) {
            App_setStatus(app, 1, "Export failed: %s", err.msg);
            return;
        }
    }
    const ResultSet* rs = owned ? owned : s->rs;
    if (!rs) {
        App_setStatus(app, 1, "Nothing to export.");
        return;
    }
    if (Export_csvFile(rs, path, OUT_NOWAIT | flags, &err) != DCU_OK) {
        App_setStatus(app, 1, "Export failed: %s", err.msg);
    } else {
        App_setStatus(app, 0, "Exported %d rows to %s", rs->nrows, path);
        /* the next export prompt starts in the same folder */
        const char* slash = strrchr(path, '/');
        char* dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
                          : xstrdup(".");
        free(app->export_dir);
        app->export_dir = dir;
    }
    ResultSet_delete(owned);
}

/* The export prompt's Enter: asks first when the name is a link (showing where it leads) or
 * an existing file; a link that leaves its folder needs "yes" typed out. A FIFO or device
 * is written, not replaced, without a question. */
static void ask_export(App* app) {
    OutFileInfo in;
    DcuError err;
    if (strlen(app->buf) >= sizeof(app->pending)) {
        App_setStatus(app, 1, "Export failed: the name is too long");
        return;
    }
    if (OutFile_inspect(app->buf, &in, &err) != DCU_OK) {
        App_setStatus(app, 1, "Export failed: %s", err.msg);
        return;
    }
    if (!in.is_link && !in.regular) {
        free(in.target);
        do_export(app, app->buf, 0);
        return;
    }
    snprintf(app->pending, sizeof(app->pending), "%s", app->buf);
    app->pending_flags = (in.regular ? OUT_FORCE : 0) | (in.outside ? OUT_OUTSIDE : 0);
    char* name = Names_sanitize(app->buf, strlen(app->buf)); /* text from the disk: shown */
    char* to = Names_sanitize(in.target, strlen(in.target)); /* with controls neutralised */
    char label[sizeof(app->label)];
    if (in.outside) {
        snprintf(label, sizeof(label), "%s -> %s is outside its folder%s. Type yes to write there: ",
                 name, to, in.regular ? " and exists" : "");
        open_prompt(app, PROMPT_CONFIRM_OUTSIDE, label, "");
    } else if (in.is_link) {
        snprintf(label, sizeof(label), "%s -> %s %s (y/N) ", name, to,
                 in.regular   ? "exists. Overwrite?"
                 : in.exists ? "is not a regular file. Write into it?"
                             : "does not exist. Create it?");
        open_prompt(app, PROMPT_CONFIRM, label, "");
    } else {
        snprintf(label, sizeof(label), "%s exists. Overwrite? (y/N) ", name);
        open_prompt(app, PROMPT_CONFIRM, label, "");
    }
    free(to);
    free(name);
    free(in.target);
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
        ask_export(app);
    } else if (kind == PROMPT_CONFIRM_OUTSIDE) {
        if (strcmp(app->buf, "yes") == 0) {
            do_export(app, app->pending, app->pending_flags);
        } else {
            App_setStatus(app, 0, "Not exported (type yes to write outside the folder).");
        }
    } else if (kind == PROMPT_SQL) {
        if (app->buf[0]) {
            SqlHistory_add(app->sql_hist, app->buf);
            SqlScreen_run(app, app->buf);
        }
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
            char spec[PROMPT_TEXT_MAX + 256];
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
        /* the rows are those of before the prompt again: so is the selection */
        s->tv.selected = app->saved_sel;
        s->tv.scroll = app->saved_scroll;
        if (TableScreen_isTable(s)) {
            TableScreen_clamp(s, app);
        }
        free(app->saved_filter);
        app->saved_filter = NULL;
        app->status[0] = '\0';
    } else if (app->prompt == PROMPT_EXPORT || app->prompt == PROMPT_CONFIRM ||
               app->prompt == PROMPT_CONFIRM_OUTSIDE) {
        App_setStatus(app, 0, "Not exported.");
    }
    app->prompt = PROMPT_NONE;
}

static Reaction prompt_key(App* app, int key) {
    if (app->prompt == PROMPT_CONFIRM) {
        app->prompt = PROMPT_NONE;
        if (key == 'y' || key == 'Y') {
            do_export(app, app->pending, app->pending_flags);
        } else {
            App_setStatus(app, 0, "Not exported: %s kept.", app->pending);
        }
        return REACT_REDRAW;
    }
    if (app->prompt == PROMPT_SQL && (key == KC_UP || key == KC_DOWN)) {
        const char* h = SqlHistory_step(app->sql_hist, key == KC_UP ? -1 : 1, app->buf);
        if (h) {
            snprintf(app->buf, sizeof(app->buf), "%s", h);
            app->cur = (int)strlen(app->buf);
        }
        return REACT_REDRAW;
    }
    if (app->prompt == PROMPT_SQL && key == KC_TAB) {
        SqlPrompt_complete(app, app->buf, sizeof(app->buf), &app->cur);
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
    int n = s->rs ? s->rs->ncols : 0; /* every column, those not shown too */
    if (a == ACT_MOVE_UP) {
        app->menu_sel = app->menu_sel > 0 ? app->menu_sel - 1 : 0;
    } else if (a == ACT_MOVE_DOWN) {
        app->menu_sel = app->menu_sel < n - 1 ? app->menu_sel + 1 : n - 1;
    } else if ((a == ACT_MOVE_FIRST || a == ACT_MOVE_LAST) && n > 0) {
        app->menu_sel = a == ACT_MOVE_FIRST ? 0 : n - 1;
    } else if (key == KC_ENTER && n > 0) {
        int col = app->menu_sel;
        int desc = ResultSet_defaultDesc(s->rs, col);
        if (col == s->tv.sort_col) {
            desc = s->tv.sort_desc; /* picking the current column keeps its direction */
        }
        char spec[96];
        snprintf(spec, sizeof(spec), "%s:%s", s->rs->cols[col].key, desc ? "desc" : "asc");
        free(s->sort);
        s->sort = xstrdup(spec);
        DcuError err;
        if (requery(s, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
        app->menu = MENU_NONE;
    } else if (key == KC_ESC || a == ACT_SORT_MENU || a == ACT_QUIT || a == ACT_QUIT_OR_BACK ||
               a == ACT_BACK) {
        app->menu = MENU_NONE;
    }
    return REACT_REDRAW;
}

/* ---- the scope picker (R) -------------------------------------------------------------- */

/* Every screen again over the new scope (or Amdahl basis): tables and trees requeried, the
 * Summary rebuilt, the header redone. drop_drill: close drill-down screens too (a kernel
 * or category may not exist in the new scope), else requery them. */
static void refresh_all(App* app, int drop_drill) {
    DcuError err;
    if (drop_drill) {
        while (app->depth > 1) {
            pop(app);
        }
    }
    for (int i = 0; i < N_TOPS; i++) {
        Screen* t = app->tops[i];
        if ((t->ops == &RunsScreen && !t->rs) || !app->opened[i]) {
            continue; /* not shown yet: filled when first opened */
        }
        if (t->ops == &TraceScreen && drop_drill) {
            t->ops->close(t); /* its lanes again, over the new scope */
            t->lane = 0;
        }
        if ((TableScreen_isTable(t) || t->ops == &StacksScreen) && requery(t, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        } else if (t->ops == &SummaryScreen && t->ops->open(t, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
    }
    for (int i = 1; i < app->depth; i++) {
        Screen* t = app->stack[i];
        if (TableScreen_isTable(t)) {
            requery(t, app, &err);
        } else if (t->ops == &KernelScreen) {
            t->ops->open(t, app, &err);
        }
    }
    make_header(app);
}

static void drop_scope_items(App* app) {
    for (int i = 0; i < app->n_scope_items; i++) {
        free(app->scope_items[i]);
    }
    free(app->scope_items);
    free(app->scope_ids);
    app->scope_items = NULL;
    app->scope_ids = NULL;
    app->n_scope_items = 0;
}

/* htop's user filter (RunsScreen_scopeItems); the current scope is selected. */
static Reaction open_scope_menu(App* app) {
    drop_scope_items(app);
    app->n_scope_items =
        RunsScreen_scopeItems(app->db, &app->scope_items, &app->scope_ids, &app->menu_sel);
    app->menu = app->n_scope_items > 0 ? MENU_SCOPE : MENU_NONE;
    return app->n_scope_items > 0 ? REACT_REDRAW : REACT_NONE;
}

static Reaction scope_key(App* app, int key) {
    Action a = Keymap_lookup(app->km, "generic", key);
    int n = app->n_scope_items;
    if (a == ACT_MOVE_UP) {
        app->menu_sel = app->menu_sel > 0 ? app->menu_sel - 1 : 0;
    } else if (a == ACT_MOVE_DOWN) {
        app->menu_sel = app->menu_sel < n - 1 ? app->menu_sel + 1 : n - 1;
    } else if (a == ACT_MOVE_FIRST || a == ACT_MOVE_LAST) {
        app->menu_sel = a == ACT_MOVE_FIRST ? 0 : n - 1;
    } else if (key == KC_ENTER && n > 0) {
        int64_t id = app->scope_ids[app->menu_sel];
        DcuError err;
        app->menu = MENU_NONE;
        if (Runs_setScope(app->db, id ? &id : NULL, id ? 1 : 0, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
            return REACT_REDRAW;
        }
        refresh_all(app, 1);
        App_setStatus(app, 0, "Scope: %s.", app->scope_items[app->menu_sel]);
    } else if (key == KC_ESC || a == ACT_RUN_SCOPE || a == ACT_QUIT || a == ACT_QUIT_OR_BACK ||
               a == ACT_BACK) {
        app->menu = MENU_NONE;
    }
    return REACT_REDRAW;
}

/* ---- keys ------------------------------------------------------------------------------- */

void App_refreshAll(App* app) {
    refresh_all(app, 0);
}

static Reaction act(App* app, Action a);

/* Shows top screen i (its drill-downs closed); a screen opened on first sight (Trace, Ranks)
 * runs its queries now; one that fails says why and shows empty. */
static void show_top(App* app, int i) {
    switch_top(app, i);
    Screen* t = app->tops[i];
    DcuError err;
    Error_clear(&err);
    if (!app->opened[i]) {
        app->opened[i] = 1;
        if (t->ops->open(t, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
    }
    if (i == TOP_RUNS && !t->rs && requery(t, app, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg); /* one run: filled when first shown */
    }
}

/* The top screens: by their own key, or the next / previous one in the strip (Tab, S-Tab). */
static Reaction go_to_screen(App* app, Action a) {
    int top = -1, at = 0;
    for (int i = 0; i < N_TOPS; i++) {
        top = top_table[i].action == a ? i : top;
        at = app->tops[i] == app->stack[0] ? i : at;
    }
    if (a == ACT_NEXT_SCREEN || a == ACT_PREV_SCREEN) {
        top = (at + (a == ACT_NEXT_SCREEN ? 1 : N_TOPS - 1)) % N_TOPS;
    }
    if (top < 0) {
        return REACT_NONE;
    }
    if (a == ACT_SCREEN_DIFF && app->nmarks[0] > 0 && app->nmarks[1] > 0) {
        /* 7 compares the Runs screen's a/b marks (Tab only shows the last comparison) */
        App_openDiff(app, app->marks[0], app->nmarks[0], app->marks[1], app->nmarks[1]);
        return REACT_REDRAW;
    }
    show_top(app, top);
    return REACT_REDRAW;
}

/* Leaving, one rule on every screen: Esc and q go back one level from a pushed screen (help
 * too); on a top screen q quits, and Esc clears the filter, then the region of interest,
 * then does nothing. F10 and C-c quit from anywhere. -1: not a leaving key. */
static int leave_keys(App* app, Screen* s, Action a) {
    switch (a) {
    case ACT_NONE:
        return REACT_NONE;
    case ACT_QUIT_OR_BACK:
    case ACT_BACK:
        if (app->depth > 1) {
            pop(app);
        } else if (a == ACT_QUIT_OR_BACK) {
            app->quit = 1;
            return REACT_QUIT;
        } else if (s->filter) {
            set_filter(app, s, NULL);
            App_setStatus(app, 0, "Filter cleared.");
        } else if (Roi_active(app->db, NULL)) {
            return RoiKeys_handle(app, s, ACT_ROI_CLEAR);
        }
        return REACT_REDRAW;
    case ACT_QUIT:
        app->quit = 1;
        return REACT_QUIT;
    case ACT_HELP: {
        DcuError err;
        if (s->ops != &HelpScreen && App_push(app, Screen_new(&HelpScreen), &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
        return REACT_REDRAW;
    }
    case ACT_REDRAW:
        return REACT_REDRAW;
    default:
        return -1;
    }
}

/* Where to go and what every screen follows: the top screens, the scope, the trace's
 * largest gap, the Amdahl basis, the region of interest. -1: not one of these. */
static int screen_keys(App* app, Screen* s, Action a) {
    switch (a) {
    case ACT_SCREEN_SUMMARY:
    case ACT_SCREEN_HOTSPOTS:
    case ACT_SCREEN_CATEGORIES:
    case ACT_SCREEN_API:
    case ACT_SCREEN_COPIES:
    case ACT_SCREEN_FILES:
    case ACT_SCREEN_STACKS:
    case ACT_SCREEN_DIFF:
    case ACT_SCREEN_TRACE:
    case ACT_SCREEN_RANKS:
    case ACT_SCREEN_RUNS:
    case ACT_SCREEN_EFFICIENCY:
    case ACT_NEXT_SCREEN:
    case ACT_PREV_SCREEN:
        return go_to_screen(app, a);
    case ACT_SCREEN_OPS:
        return OpsScreen_is(s) ? REACT_NONE : App_open(app, &OpsScreen, NULL, NULL, NULL);
    case ACT_RUN_SCOPE:
        if (Runs_count(app->db) < 2) {
            App_setStatus(app, 0, "One run loaded: nothing to pick.");
            return REACT_REDRAW;
        }
        return open_scope_menu(app);
    case ACT_TRACE_GAP:
        return Summary_openLargestGap(app);
    case ACT_AMDAHL_BASIS:
        return App_toggleBasis(app);
    case ACT_ROI_START:
    case ACT_ROI_END:
    case ACT_ROI_ITERATION:
    case ACT_ROI_CLEAR:
        return RoiKeys_handle(app, s, a);
    default:
        return -1;
    }
}

/* n / N: the next or previous row matching the last pattern. */
static Reaction match_key(App* app, Screen* s, Action a) {
    DcuError err;
    Error_clear(&err);
    if (!TableScreen_isTable(s)) {
        return REACT_NONE;
    }
    if (!app->last_pattern[0]) {
        App_setStatus(app, 0, "No pattern yet: type / first.");
    } else if (!TableScreen_search(s, app->last_pattern, a == ACT_MATCH_NEXT ? 1 : -1, &err)) {
        App_setStatus(app, err.msg[0] ? 1 : 0, "%s",
                      err.msg[0] ? err.msg : "No other row matches.");
    } else {
        TableScreen_clamp(s, app);
    }
    return REACT_REDRAW;
}

/* The keys that open a prompt or a menu over a table: filter, sort menu, export, SQL,
 * what-if. -1: not one of these. */
static int prompt_keys(App* app, Screen* s, Action a) {
    char text[1024];
    switch (a) {
    case ACT_FILTER:
        if (!s->ops->filterable) {
            App_setStatus(app, 0, "No filter on this screen.");
            return REACT_REDRAW;
        }
        free(app->saved_filter);
        app->saved_filter = s->filter ? xstrdup(s->filter) : NULL;
        app->saved_sel = s->tv.selected;
        app->saved_scroll = s->tv.scroll;
        open_prompt(app, PROMPT_FILTER, "Filter (PCRE2, !negates): ", s->filter);
        return REACT_REDRAW;
    case ACT_MATCH_NEXT:
    case ACT_MATCH_PREV:
        return match_key(app, s, a);
    case ACT_SORT_MENU:
        if (!TableScreen_isTable(s) || s->layout.n == 0) {
            return REACT_NONE;
        }
        app->menu = MENU_SORT;
        app->menu_sel = s->tv.sort_col >= 0 && s->rs && s->tv.sort_col < s->rs->ncols
                            ? s->tv.sort_col
                            : 0;
        return REACT_REDRAW;
    case ACT_EXPORT:
        if ((!TableScreen_isTable(s) || !s->rs) && s->ops != &StacksScreen) {
            App_setStatus(app, 0, "Export works on table screens (Hotspots, Categories, API, "
                                  "Copies, Files, Dispatches) and on Stacks.");
            return REACT_REDRAW;
        }
        app->export_repro = 0;
        open_prompt(app, PROMPT_EXPORT, "Export to CSV: ",
                    ExportFiles_name(app->export_dir, s, 0, text, sizeof(text)));
        return REACT_REDRAW;
    case ACT_REPRO:
        if (!ExportFiles_canRepro(s)) {
            App_setStatus(app, 0, "A microbenchmark script is written from a Kernel screen "
                                  "or an Ops screen's row.");
            return REACT_REDRAW;
        }
        app->export_repro = 1;
        open_prompt(app, PROMPT_EXPORT, "Microbenchmark script of its ops: ",
                    ExportFiles_name(app->export_dir, s, 1, text, sizeof(text)));
        return REACT_REDRAW;
    case ACT_SQL_PROMPT:
        if (!app->sql_hist) {
            app->sql_hist = SqlHistory_load();
        }
        open_prompt(app, PROMPT_SQL, "SQL: ", "");
        return REACT_REDRAW;
    case ACT_WHATIF_SET:
        if (s->ops != &CategoriesScreen || !s->rs || s->rs->nrows == 0) {
            return REACT_NONE;
        }
        snprintf(text, sizeof(text), "What-if speedup for %s (>= 1, inf, X%%peak; empty clears): ",
                 ResultSet_cellc(s->rs, s->tv.selected,
                                 ResultSet_columnIndex(s->rs, "category"))->s);
        open_prompt(app, PROMPT_WHATIF, text, "");
        return REACT_REDRAW;
    default:
        return -1;
    }
}

Reaction App_key(App* app, int key) {
    if (key == KC_RESIZE) {
        return REACT_REDRAW;
    }
    if (app->prompt != PROMPT_NONE) {
        return prompt_key(app, key);
    }
    if (app->menu == MENU_SCOPE) {
        return scope_key(app, key);
    }
    if (app->menu) {
        return menu_key(app, key);
    }
    app->status[0] = '\0';
    app->status_err = 0;
    return act(app, Keymap_lookup(app->km, current(app)->ops->name, key));
}

/* What an action does on the current screen (keys and the mouse come here): the app's key
 * groups first, then the screen's own handler. */
static Reaction act(App* app, Action a) {
    static int (*const groups[])(App*, Screen*, Action) = {leave_keys, screen_keys, prompt_keys};
    Screen* s = current(app);
    for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
        int r = groups[i](app, s, a);
        if (r >= 0) {
            return (Reaction)r;
        }
    }
    DcuError err;
    Error_clear(&err);
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
static const FooterItem diff_footer[] = {
    {"F1", "Help"}, {"v", "Kernels/Categories"}, {"Enter", "Open"}, {"/", "Filter"},
    {"F6", "Sort"}, {"e", "Export"}, {"q", "Quit"}};
static const FooterItem runs_footer[] = {
    {"F1", "Help"}, {"Enter", "Files"}, {"a", "Baseline"}, {"b", "Candidate"}, {"R", "Scope"},
    {"F6", "Sort"}, {"e", "Export"}, {"Tab", "Next"}, {"q", "Quit"}};
static const FooterItem confirm_footer[] = {{"y", "Overwrite"}, {"N", "Keep (any other key)"}};
static const FooterItem prompt_footer[] = {
    {"Enter", "Accept"}, {"Esc", "Cancel"}, {"C-u", "Clear"}};
static const FooterItem scope_footer[] = {
    {"Up/Down", "Pick"}, {"Enter", "Show"}, {"Esc", "Cancel"}};
static const FooterItem menu_footer[] = {
    {"Up/Down", "Pick"}, {"Enter", "Sort"}, {"Esc", "Cancel"}};

/* The smallest terminal every screen is laid out for; below it a message, not cut lines. */
enum { MIN_W = 80, MIN_H = 24 };
static int too_small(const Canvas* c) {
    return c->w < MIN_W || c->h < MIN_H;
}

/* The breadcrumb after the tabs: where a drill-down (or a screen without a tab) is. */
static void tab_trail(App* app, char* buf, size_t cap) {
    Screen* s = current(app);
    Screen* top = app->stack[0];
    buf[0] = '\0';
    if (app->depth > 1 || top->crumb) { /* the Trace screen names its lane */
        snprintf(buf, cap, "> %s", s->crumb ? s->crumb : s->ops->title);
    }
}

/* The index of the top screen under the current one in the strip. */
static int active_top(const App* app) {
    for (int i = 0; i < N_TOPS; i++) {
        if (app->tops[i] == app->stack[0]) {
            return i;
        }
    }
    return -1;
}

Reaction App_mouse(App* app, MouseKind kind, int x, int y) {
    if (app->prompt != PROMPT_NONE || app->menu || too_small(app->canvas)) {
        return REACT_NONE; /* a prompt or a menu takes keys only */
    }
    app->status[0] = '\0';
    app->status_err = 0;
    if (kind == MOUSE_WHEEL_UP || kind == MOUSE_WHEEL_DOWN) {
        for (int i = 0; i < 3; i++) {
            act(app, kind == MOUSE_WHEEL_UP ? ACT_MOVE_UP : ACT_MOVE_DOWN);
        }
        return REACT_REDRAW;
    }
    if (y == 1) {
        char trail[1200];
        tab_trail(app, trail, sizeof(trail));
        int t = ChromeView_tabAt(app->canvas->w, app->strip, N_TOPS, active_top(app), trail, x);
        return t >= 0 ? act(app, top_table[t].action) : REACT_NONE;
    }
    Screen* s = current(app);
    /* a table: its title row at y = 2, rows from y = 3 down to the status line */
    int row = s->tv.scroll + (y - 3);
    if (!TableScreen_isTable(s) || !s->rs || y < 3 || y >= app->canvas->h - 2 ||
        row >= TableScreen_rows(s)) {
        return REACT_NONE;
    }
    s->tv.selected = row;
    TableScreen_clamp(s, app);
    return kind == MOUSE_DOUBLE ? act(app, ACT_ENTER) : REACT_REDRAW;
}

/* F6: every column of the table, in its order; those the width leaves out say so. */
static void sort_menu(const Screen* s, Canvas* c, int sel) {
    int n = s->rs->ncols;
    const char** items = xcalloc((size_t)n + 1, sizeof(char*));
    char(*titles)[96] = xcalloc((size_t)n + 1, sizeof(*titles));
    for (int col = 0; col < n; col++) {
        int shown = -1;
        for (int i = 0; i < s->layout.n; i++) {
            shown = s->layout.col[i] == col ? i : shown;
        }
        int twin = 0; /* another column of the same title ("Kernel": name, short name) */
        for (int k = 0; k < n; k++) {
            twin |= k != col && strcmp(s->rs->cols[k].title, s->rs->cols[col].title) == 0;
        }
        /* the column's key in words: "short name"; "full name" beside a twin */
        char words[64];
        snprintf(words, sizeof(words), "%s",
                 twin && strcmp(s->rs->cols[col].key, "name") == 0 ? "full name"
                                                                   : s->rs->cols[col].key);
        for (char* p = words; *p; p++) {
            *p = *p == '_' ? ' ' : *p;
        }
        if (shown >= 0) {
            char t[64];
            TableView_title(&s->layout, s->rs, shown, t, sizeof(t));
            snprintf(titles[col], sizeof(titles[col]), twin ? "%s (%s)" : "%s", t, words);
        } else {
            snprintf(titles[col], sizeof(titles[col]), "%s (%s, hidden)", s->rs->cols[col].title,
                     twin ? words : s->rs->cols[col].key);
        }
        items[col] = titles[col];
    }
    ChromeView_menu(c, 2, "Sort by", items, n, sel);
    free(titles);
    free((void*)items);
}

/* The footer of a screen: on help or a drilled-in screen q goes back, and says so; on a top
 * screen there is nothing to go back to, and Esc clears the filter (then the ROI). */
static void footer(App* app, Canvas* c, const FooterItem* items, int n) {
    FooterItem own[16];
    n = n < 16 ? n : 16;
    for (int i = 0; i < n; i++) {
        own[i] = items[i];
        if (app->depth > 1 && strcmp(own[i].key, "q") == 0) {
            own[i].label = "Back";
        } else if (app->depth <= 1 && strcmp(own[i].key, "Esc") == 0) {
            own[i].label = "Clear";
        }
    }
    ChromeView_footer(c, c->h - 1, own, n);
}

const Canvas* App_render(App* app) {
    Canvas* c = app->canvas;
    Canvas_clear(c, STYLE_DEFAULT);
    if (too_small(c)) { /* a message rather than cut lines (htop, tig) */
        Canvas_putf(c, 0, 0, STYLE_WARNING, "Terminal too small (%dx%d)", c->w, c->h);
        Canvas_putf(c, 1, 0, STYLE_DEFAULT, "dcutop needs %dx%d: enlarge it (F10 quits)", MIN_W,
                    MIN_H);
        return c;
    }
    Screen* s = current(app);
    char right[1100] = "";
    if (s->filter && ((TableScreen_isTable(s) && s->rs) || s->ops == &StacksScreen)) {
        char total[160];
        rows_total(s, total, sizeof(total));
        snprintf(right, sizeof(right), "| filter /%s/: %s ", s->filter, total);
    } else if (s->filter) {
        snprintf(right, sizeof(right), "| filter /%s/ ", s->filter);
    }
    ChromeView_header(c, 0, app->header, right);
    char trail[1200];
    tab_trail(app, trail, sizeof(trail));
    ChromeView_tabs(c, 1, app->strip, N_TOPS, active_top(app), trail);
    int body = App_bodyHeight(app);
    s->ops->render(s, app, c, 2, body);
    if (app->menu == MENU_SCOPE) {
        ChromeView_menu(c, 2, "Runs shown", (const char* const*)app->scope_items,
                        app->n_scope_items, app->menu_sel);
    } else if (app->menu && s->rs) {
        sort_menu(s, c, app->menu_sel);
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
            snprintf(line, sizeof(line), "%d/%d  %s", TableScreen_rows(s) ? s->tv.selected + 1 : 0,
                     TableScreen_rows(s), sel ? sel : "");
        } else {
            snprintf(line, sizeof(line), "%s", sel ? sel : "");
        }
        ChromeView_status(c, sy, line, 0);
    }
    if (app->prompt == PROMPT_CONFIRM) {
        ChromeView_footer(c, c->h - 1, confirm_footer, 2);
    } else if (app->prompt != PROMPT_NONE) {
        ChromeView_footer(c, c->h - 1, prompt_footer, 3);
    } else if (app->menu == MENU_SCOPE) {
        ChromeView_footer(c, c->h - 1, scope_footer, 3);
    } else if (app->menu) {
        ChromeView_footer(c, c->h - 1, menu_footer, 3);
    } else if (s->ops == &StacksScreen) {
        footer(app, c, stacks_footer, (int)(sizeof(stacks_footer) / sizeof(stacks_footer[0])));
    } else if (s->ops == &DiffScreen) {
        footer(app, c, diff_footer, (int)(sizeof(diff_footer) / sizeof(diff_footer[0])));
    } else if (s->ops == &RunsScreen) {
        footer(app, c, runs_footer, (int)(sizeof(runs_footer) / sizeof(runs_footer[0])));
    } else if (s->ops == &CategoriesScreen) {
        footer(app, c, cat_footer, (int)(sizeof(cat_footer) / sizeof(cat_footer[0])));
    } else if (TableScreen_isTable(s)) {
        footer(app, c, table_footer, (int)(sizeof(table_footer) / sizeof(table_footer[0])));
    } else {
        footer(app, c, doc_footer, (int)(sizeof(doc_footer) / sizeof(doc_footer[0])));
    }
    return c;
}

/* ---- comparison ------------------------------------------------------------------------ */

void App_setDiffSides(App* app, const DiffSide* const* a, int na, const DiffSide* const* b,
                      int nb, int abba, DiffMatch match) {
    app->diff_a = a;
    app->diff_b = b;
    app->diff_na = na;
    app->diff_nb = nb;
    app->diff_abba = abba;
    app->diff_match = match;
}

void App_setDiffBaselineDb(App* app, TraceDb* db) {
    app->diff_db_a = db;
}

TraceDb* App_diffBaselineDb(const App* app) {
    return app->diff_db_a;
}

void App_setDiffEvidence(App* app, AbbaEvidence* ev) {
    AbbaEvidence_delete(app->diff_ev);
    app->diff_ev = ev;
}

/* The sides of a comparison of runs of this database: each run's figures as the screens
 * show them with that run alone in scope; the scope is put back afterwards. */
static DcuStatus sides_from_runs(App* app, const int64_t* ids, int n, int side, DcuError* err) {
    DcuStatus st = DCU_OK;
    for (int i = 0; st == DCU_OK && i < n && i < MAX_MARKS; i++) {
        st = Runs_setScope(app->db, &ids[i], 1, err);
        char* label = st == DCU_OK ? Runs_label(app->db, ids[i]) : NULL;
        if (st == DCU_OK) {
            st = DiffSide_fromDb(app->db, label ? label : "?", &app->own_sides[side][i], err);
        }
        if (st == DCU_OK) {
            app->n_own[side]++;
        }
        free(label);
    }
    return st;
}

/* Marked runs: two groups (A/B with repeats), or two and two marks as an A-B-B-A in the
 * order they were marked (A1 A2, B1 B2). */
static DcuStatus diff_marked(App* app, const int64_t* a_runs, int na, const int64_t* b_runs,
                             int nb, DcuError* err) {
    int64_t scope = Runs_scopeRun(app->db);
    drop_own_sides(app);
    DcuStatus st = sides_from_runs(app, a_runs, na, 0, err);
    if (st == DCU_OK) {
        st = sides_from_runs(app, b_runs, nb, 1, err);
    }
    DcuError e2;
    Runs_setScope(app->db, scope ? &scope : NULL, scope ? 1 : 0, &e2);
    refresh_all(app, 0);
    if (st != DCU_OK) {
        drop_own_sides(app);
        return st;
    }
    app->diff_a = (const DiffSide* const*)app->own_sides[0];
    app->diff_b = (const DiffSide* const*)app->own_sides[1];
    app->diff_na = app->n_own[0];
    app->diff_nb = app->n_own[1];
    app->diff_abba = na == 2 && nb == 2;
    app->diff_db_a = NULL; /* both sides are runs of the App's database */
    const CompareRuns none = {0};
    const int64_t* ids[2] = {a_runs, b_runs};
    AbbaEvidence* ev = NULL; /* the marked runs' own memory, metrics and environment */
    st = app->diff_abba ? CompareRuns_evidence(&none, app->db, ids, &ev, err) : DCU_OK;
    App_setDiffEvidence(app, ev);
    return st;
}

void App_openDiff(App* app, const int64_t* a_runs, int na, const int64_t* b_runs, int nb) {
    Screen* s = app->tops[TOP_DIFF];
    DcuError err;
    Error_clear(&err);
    if ((na > 0) != (nb > 0)) {
        App_setStatus(app, 1, "Mark runs on both sides: a (baseline) and b (candidate).");
        return;
    }
    if (na > 0 && diff_marked(app, a_runs, na, b_runs, nb, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
        return;
    }
    if (app->diff_na == 0 || app->diff_nb == 0) {
        App_setStatus(app, 1, "No comparison: give dcutop --diff A B or two runs.");
        return;
    }
    int r = DiffScreen_open(s, app, app->diff_a, app->diff_na, app->diff_b, app->diff_nb,
                            app->diff_abba, app->diff_match, app->diff_ev, &err);
    if (r != 0) {
        App_setStatus(app, 1, "%s", err.msg);
    }
    if (r >= 0) {
        switch_top(app, TOP_DIFF);
    }
}
