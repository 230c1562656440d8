/* app.h - the interactive application without a terminal: a stack of screens, keys in,
 * a Canvas out. term_curses.c (the only file with curses) and the headless script runner
 * both drive it, so every screen and interaction is testable as text. */
#ifndef DCUTOP_APP_H
#define DCUTOP_APP_H

#include <stdint.h>

#include "dcutop/canvas.h"
#include "dcutop/diff.h"
#include "dcutop/keymap.h"
#include "dcutop/trace_db.h"

typedef enum { REACT_NONE = 0, REACT_REDRAW = 1, REACT_REQUERY = 2, REACT_QUIT = 4 } Reaction;

typedef struct App_ App;

typedef struct AppOptions_ {
    const char* title;      /* the paths shown in the header */
    int gemm_like;
    const char* export_dir; /* where exports go by default ("." when NULL) */
    int (*poll_cancel)(void); /* while an SQL query runs: 1 when the user pressed Esc or
                               * Ctrl-C (Term_pollCancel); NULL: never */
    void (*draw_now)(App* app); /* shows the frame at once (before a long query); NULL: no */
    const char* warning;        /* shown on the status line at start (a bad rc line); or NULL */
    /* runs argv (argv[0] a path) on the terminal, the screen given back to it meanwhile
     * (Term_runChild); returns its exit status, -1 when it could not start. NULL: no
     * terminal to lend (headless), the App says what it would have run. */
    int (*run_child)(const char* const* argv);
    int diff_match;             /* DiffMatch of runs compared from the Runs screen's marks */
} AppOptions;

/* db and keymap are borrowed and must outlive the App. */
App* App_new(TraceDb* db, Keymap* keymap, const AppOptions* opt, int w, int h);
void App_delete(App* this);

/* Handles one key (Keymap codes). Returns what changed. */
Reaction App_key(App* this, int key);

/* Work that waits for the user to read the screen (the Summary's timeline and advice, 0.6 s
 * at 1M dispatches, and the drill-down index, which used to delay the first screen).
 * input_pending() (may be NULL) says a key is waiting: the work stops between its steps and
 * is resumed at the next idle moment. Returns 1 when the screen changed: draw it, then call
 * again (the Summary's late parts are drawn before the index is built); 0 when nothing is
 * left to do now. */
int App_idle(App* this, int (*input_pending)(void));
/* Mouse events, as the terminal reports them (term_curses.c) or a script says (:mouse):
 * a click on a tab opens its screen, on a table row selects it; a double click opens the
 * row (Enter); the wheel moves the selection three rows (htop). x, y: cells from 0. */
typedef enum { MOUSE_CLICK, MOUSE_DOUBLE, MOUSE_WHEEL_UP, MOUSE_WHEEL_DOWN } MouseKind;
Reaction App_mouse(App* this, MouseKind kind, int x, int y);
/* Draws the current state into the App's canvas (borrowed, valid until the next call). */
const Canvas* App_render(App* this);
void App_resize(App* this, int w, int h);
int App_quitting(const App* this);
/* The name of the current screen ("hotspots") and the last status message. */
const char* App_screenName(const App* this);
const char* App_status(const App* this);
/* 1 while the Summary still has late parts to compute (App_idle computes them). */
int App_summaryPending(const App* this);

/* Runs argv on the terminal (AppOptions.run_child) and returns its exit status; -1 and a
 * status line naming the command when there is no terminal to lend. */
int App_runChild(App* this, const char* const* argv);

/* Shows the Ranks screen (key 9) over the current one; a job opens there. */
Reaction App_openRanks(App* this);

/* The comparison (issue 8). App_setDiffSides gives the App the runs loaded path by path
 * (borrowed: they must outlive the App); abba: the four runs are A1 A2 in a, B1 B2 in b.
 * App_openDiff computes the comparison and shows the Diff screen: with na == nb == 0 from
 * those sides, else from the runs of the App's database with these ids (the Runs screen's
 * a/b marks; needs the run model). A failure goes to the status line. */
void App_setDiffSides(App* this, const DiffSide* const* a, int na, const DiffSide* const* b,
                      int nb, int abba, DiffMatch match);
void App_openDiff(App* this, const int64_t* a_runs, int na, const int64_t* b_runs, int nb);
/* The baseline's first run's database, when the sides were loaded path by path (borrowed:
 * it must outlive the App); the Diff screen opens a gone kernel's detail there. NULL (the
 * default, and with the Runs screen's marks): the App's own database holds both sides. */
void App_setDiffBaselineDb(App* this, TraceDb* db);
/* What an A-B-B-A of the sides of App_setDiffSides judges beside time (abba_evidence.h);
 * owned by the App from here. Runs marked on the Runs screen get their own. */
struct AbbaEvidence_;
void App_setDiffEvidence(App* this, struct AbbaEvidence_* ev);
TraceDb* App_diffBaselineDb(const App* this);
/* Runs marked on the Runs screen for a comparison: side 'a' (baseline) or 'b' (candidate).
 * *ids is borrowed, valid until the next key; returns how many. */
int App_runMarks(const App* this, int side, const int64_t** ids);
/* Marks or unmarks run id on side 'a' or 'b' (a run is on one side at most). Returns 1 when
 * the run is marked now, 0 when unmarked. */
int App_toggleRunMark(App* this, int side, int64_t id);

#endif
