/* screen.h - what app.c shares with the screens (private to src/app).
 * A screen is a few static functions and one const ScreenOps (tig's view_ops). Table
 * screens share one implementation (table_screen.c); Summary, Kernel detail and Help are
 * documents (doc_screen.c). */
#ifndef DCUTOP_SCREEN_H
#define DCUTOP_SCREEN_H

#include "dcutop/amdahl.h"
#include "dcutop/app.h"
#include "dcutop/diff.h"
#include "dcutop/doc_view.h"
#include "dcutop/kernel_query.h"
#include "dcutop/query.h"
#include "dcutop/stacks.h"
#include "dcutop/table_view.h"
#include "dcutop/trace_query.h"

typedef struct Screen_ Screen;

typedef struct ScreenOps_ {
    const char* name;  /* keymap screen name: "hotspots" */
    const char* title; /* tab title */
    int tab;           /* unused: the tab strip and Tab follow app.c's top_table */
    DcuStatus (*open)(Screen* s, App* app, DcuError* err); /* (re)run queries */
    Reaction (*handle)(Screen* s, App* app, Action a, DcuError* err);
    void (*render)(Screen* s, App* app, Canvas* c, int y0, int h);
    /* the text of the status line for the current selection (full name); may be NULL */
    const char* (*selection)(Screen* s);
    void (*close)(Screen* s);
    /* table screens: which view, columns shown, name column, columns dropped first */
    ViewId view;
    const char* const* keys;
    const char* flex;
    const char* const* drop;
    int filterable; /* accepts '/' */
} ScreenOps;

#define MAX_WHATIF 32

struct Screen_ {
    const ScreenOps* ops;
    char* crumb;     /* breadcrumb text for drill-down screens (owned) */
    /* tables */
    ResultSet* rs;
    TableLayout layout;
    int layout_w;
    TableViewState tv;
    char* filter;    /* active filter (owned), NULL = none */
    char* sort;      /* "key:desc" (owned), NULL = default */
    char* category;  /* hotspots drill-down: a category or group (owned) */
    char* kernel;    /* kernel detail / dispatches: full kernel name (owned) */
    WhatIf what_if[MAX_WHATIF];
    int n_what_if;
    int cold_split; /* API/Copies: the first-iteration split from the timeline */
    int64_t run;    /* Files: only this run's files (opened from the Runs screen); 0: scope */
    TraceDb* db;    /* Kernel: the database it reads (a comparison's baseline; borrowed);
                     * NULL: the App's */
    /* a long dispatch list read a page at a time (owned; NULL: rs holds every row): rs holds
     * rows page_first .. of it, and page_units the units of its duration columns */
    struct DispatchPage_* page;
    int64_t page_first;
    int page_units[TABLE_MAX_COLS];
    /* documents */
    Doc* doc;
    int doc_w;
    int doc_scroll;
    int doc_sel;             /* Summary: line of the selected link, -1 before the first draw */
    struct AdviceList_* advice; /* Summary: what to optimise first (owned) */
    KernelDetail detail;
    int has_detail;
    /* what a document is built from, kept so that a new width only rebuilds the Doc */
    int has_data;
    SummaryData summary;     /* Summary: totals and borrowed views of the sets below */
    Timeline* timeline;      /* Summary (owned) */
    ResultSet* aux[6];       /* Summary: hotspots, categories, files, gaps, per-run timeline
                              * rows, memory peaks; Kernel: paths, ranges, rocprof-compute
                              * metrics, launch stats; Runs: the runs (owned) */
    /* trees (stacks_screen.c) */
    StackTree* tree;
    unsigned char* expanded; /* per node */
    int* visible;            /* node indices shown */
    int nvisible;
    int tsel, tscroll;
    int tree_src, tree_mode, tree_fold;
    /* the dispatch trace (trace_screen.c) */
    TraceLane* lanes; /* owned */
    int nlanes, lane;
    int64_t goto_abs; /* after opening, select the op starting here (trace clock); -1: none */
    struct TraceExtra_* trace_x; /* the host lane, queue depth and gap causes (owned) */
    int reserve;      /* rows drawn above the table (the Trace's strip): fewer rows a page */
    /* the Diff screen (diff_screen.c) */
    struct Diff_* diff;  /* owned; NULL with an A-B-B-A or before a comparison */
    struct Abba_* abba;  /* owned */
    int diff_view;       /* 0 per kernel, 1 per category */
    int abba_narrow;     /* the A-B-B-A table in narrow numbers (A1 B1 B2 A2 in a narrow
                          * terminal; DiffScreen_requery builds it so) */
    /* the Ranks screen (ranks_screen.c): the job, computed once (owned); aux[0]: its matrix */
    struct Ranks_* ranks;
    /* the SQL result (sql_screen.c): its statement (owned) and the window of rows in aux[0] */
    char* sql;
    int64_t sql_first; /* the window's first row in the whole result, from 0 */
    int sql_more;      /* rows follow the window */
};

/* Screens. */
extern const ScreenOps SummaryScreen, HotspotsScreen, CategoriesScreen, ApiScreen, CopiesScreen,
    FilesScreen, KernelScreen, DispatchScreen, HelpScreen, StacksScreen, TraceScreen,
    DiffScreen, RunsScreen;
/* efficiency_screen.c: ops against peak with a roofline; one op (Enter) */
extern const ScreenOps EfficiencyScreen, EffOpScreen;

/* App services the screens use. */
TraceDb* App_db(App* app);
int App_width(const App* app);
int App_height(const App* app);
/* Rows the screen body has (between the tabs and the status line). */
int App_bodyHeight(const App* app);
const char* App_title(const App* app);
void App_setStatus(App* app, int is_error, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Pushes a new screen (owned by the app from now on) and opens it. */
DcuStatus App_push(App* app, Screen* s, DcuError* err);
/* Drills into a new screen of ops with its kernel and/or category (copied; may be NULL) and
 * breadcrumb (owned from now on); a failure goes to the status line. */
Reaction App_open(App* app, const ScreenOps* ops, const char* kernel, const char* category,
                  char* crumb);
Screen* Screen_new(const ScreenOps* ops);
void Screen_delete(Screen* s);
/* The help entries for a screen name (for the help screen). */
int App_helpEntries(App* app, const char* screen, HelpEntry* out, int max);
const char* App_previousScreenName(App* app);

/* Opens a launch gap found on the Summary: the Trace screen on the lane (file, gpu, stream)
 * at the first op from the gap's start at_ns (relative to its run's start), i.e. the gap's
 * next kernel; with no file id (0), that kernel's detail. */
Reaction Summary_openGap(App* app, int64_t file, int64_t gpu, int64_t stream, int64_t at_ns,
                         const char* next_kernel);

/* `l`: the Summary's largest gap, a device's idle interval (idle.h; never a stream waiting
 * while another stream of the device works), opened as Summary_openGap does; the largest gap
 * of any lane when idle.h finds none. */
Reaction Summary_openLargestGap(App* app);

/* doc_screen.c: the Summary shows before its timeline and advice are computed; pending: 1
 * while they are not; finish: computes them and rebuilds the page (1 when it did). */
int DocScreen_pending(const Screen* s);
int DocScreen_finish(Screen* s, App* app);

/* table_screen.c: shared table behaviour, used by app.c for global actions. */
DcuStatus TableScreen_requery(Screen* s, App* app, DcuError* err);
Reaction TableScreen_handle(Screen* s, App* app, Action a, DcuError* err);
void TableScreen_clamp(Screen* s, App* app);
/* Selects the next/previous row whose name matches pattern; 0 when none does. */
int TableScreen_search(Screen* s, const char* pattern, int dir, DcuError* err);
/* stacks_screen.c: rebuild with the screen's filter; the tree as the --export table (owned). */
DcuStatus StacksScreen_refilter(Screen* s, App* app, DcuError* err);
ResultSet* StacksScreen_table(Screen* s);

/* Requeries every open screen and the header (after a change that touches every view: the
 * Amdahl basis, the region of interest). */
void App_refreshAll(App* app);
/* roi_keys.c: [ and ] (ROI start/end at the selected dispatch of a dispatch list or the trace),
 * I (iterations as the ROI), Esc / roi-clear. */
Reaction RoiKeys_handle(App* app, Screen* s, Action a);

/* Shared table behaviour for screens defined elsewhere (trace_screen.c). */
DcuStatus TableScreen_open(Screen* s, App* app, DcuError* err);
void TableScreen_render(Screen* s, App* app, Canvas* c, int y0, int h);
const char* TableScreen_selection(Screen* s);
/* trace_screen.c: the ops of the selected lane (TableScreen_requery calls it); opening the
 * trace at a lane and op: lane NULL = the first lane; abs_start < 0: the first row. */
DcuStatus TraceScreen_query(Screen* s, App* app, ResultSet** out, DcuError* err);
Reaction TraceScreen_openAt(App* app, const TraceLane* lane, int64_t abs_start);
/* diff_screen.c: rebuild the table from the screen's Diff/Abba, filter and sort. */
DcuStatus DiffScreen_requery(Screen* s, App* app, DcuError* err);
/* What e writes on an A-B-B-A: the rows shown (same view, category, sort) with every time in
 * ns, as every export; NULL for a diff (its table is in ns already). Owned by the caller. */
ResultSet* DiffScreen_exportTable(const Screen* s);
/* sql_screen.c: the `;` prompt's query results (a table screen with its own columns). */
extern const ScreenOps SqlScreen;
typedef struct SqlHistory_ SqlHistory;
/* The longest text a prompt holds: an SQL query (and so a history line) of up to 8 KiB. */
#define PROMPT_TEXT_MAX 8192
/* $XDG_STATE_HOME/dcutop/sql_history (default ~/.local/state), one query a line, each read
 * whole (a line longer than PROMPT_TEXT_MAX - 1 is skipped, never split). A FIFO, device or
 * folder there is never opened blocking and never used: the history is then in memory only. */
SqlHistory* SqlHistory_load(void);
void SqlHistory_delete(SqlHistory* h);
/* Appends q (not a repeat of the last one) in memory and to the file. */
void SqlHistory_add(SqlHistory* h, const char* q);
/* Up (dir -1) / Down (1) from the line being typed: the text to show, NULL = no change. */
const char* SqlHistory_step(SqlHistory* h, int dir, const char* typed);
/* Tab: completes the view or column name before *cur in buf; lists the choices in the
 * status line when several fit. */
void SqlPrompt_complete(App* app, char* buf, size_t cap, int* cur);
/* Runs sql: a new result screen, or the current one's result replaced; an error goes to
 * the status line and the previous result stays. */
void SqlScreen_run(App* app, const char* sql);
DcuStatus SqlScreen_refilter(Screen* s, App* app, DcuError* err);
/* Shows the current frame at once on a real terminal (nothing headless). */
void App_drawNow(App* app);
/* 1 when the user asked to stop a running query (Esc, Ctrl-C). */
int App_cancelRequested(App* app);
/* runs_screen.c: the Runs screen's keys (marks, Enter: the run's files), the rest to the
 * table behaviour. RunsScreen_table: a new table (owned by the caller) of every run with
 * the App's A/B marks in a "mark" column in front (the runs themselves are computed once
 * and kept in s->aux[0]; RunsScreen_close frees them). */
Reaction RunsScreen_handle(Screen* s, App* app, Action a, DcuError* err);
DcuStatus RunsScreen_table(Screen* s, App* app, ResultSet** out, DcuError* err);
void RunsScreen_close(Screen* s);
/* The items of the R picker (htop's user filter), owned arrays of n items and their scope ids
 * (Runs_setScope's: 0 the default, RUNS_ALL every run added, else one run): "Default: X (the
 * most complete timed run)" and "All runs added (a total over runs)" where the default is one
 * run of a program (runs.h), else "All runs"; then every run. *sel: the scope now. */
int RunsScreen_scopeItems(TraceDb* db, char*** items, int64_t** ids, int* sel);
/* ranks_screen.c: the Ranks screen (9); RanksScreen_table: a new table (owned by the caller)
 * of the ranks, the job computed once into s->ranks. */
extern const ScreenOps RanksScreen;
DcuStatus RanksScreen_table(Screen* s, App* app, ResultSet** out, DcuError* err);

/* The rows of a table screen: those of s->rs, or of its whole paged list. */
int TableScreen_rows(const Screen* s);
/* Row r (of all) as a row of s->rs, -1 when not read (outside the page shown). */
int TableScreen_rsRow(const Screen* s, int r);

/* Sort keys a menu can offer: column titles of the ResultSet. */
int TableScreen_isTable(const Screen* s);

#endif
