/* keymap.h - actions (one X-macro list with names and help, tig's REQ_INFO), key codes and
 * names, default bindings per screen plus a generic table, and `bind` lines from the rc
 * file ($XDG_CONFIG_HOME/dcutop/dcutoprc). The help screen is generated from these tables. */
#ifndef DCUTOP_KEYMAP_H
#define DCUTOP_KEYMAP_H

#include "dcutop/error.h"

#define ACTION_INFO(_)                                                                        \
    _(NONE, "none", "Do nothing (unbinds a key)")                                             \
    _(MOVE_UP, "move-up", "Move the selection up")                                            \
    _(MOVE_DOWN, "move-down", "Move the selection down")                                      \
    _(PAGE_UP, "page-up", "Move one page up")                                                 \
    _(PAGE_DOWN, "page-down", "Move one page down")                                           \
    _(MOVE_FIRST, "move-first", "Go to the first row")                                        \
    _(MOVE_LAST, "move-last", "Go to the last row")                                           \
    _(ENTER, "enter", "Drill in: category > kernels > kernel detail > dispatches")            \
    _(BACK, "back", "Back a level from a pushed screen (help too), to its row; on a top screen clear the filter, then the region of interest") \
    _(NEXT_SCREEN, "next-screen", "Next screen")                                              \
    _(PREV_SCREEN, "prev-screen", "Previous screen")                                          \
    _(SCREEN_SUMMARY, "screen-summary", "Summary screen")                                     \
    _(SCREEN_HOTSPOTS, "screen-hotspots", "Hotspots screen")                                  \
    _(SCREEN_CATEGORIES, "screen-categories", "Categories screen")                            \
    _(SCREEN_API, "screen-api", "HIP API screen")                                             \
    _(SCREEN_COPIES, "screen-copies", "Memory copies screen")                                 \
    _(SCREEN_STACKS, "screen-stacks", "Call stacks and ranges screen")                        \
    _(SCREEN_DIFF, "screen-diff", "Diff screen: two runs or groups of runs compared")          \
    _(SCREEN_FILES, "screen-files", "Loaded files")                                           \
    _(SCREEN_TRACE, "screen-trace", "Dispatch trace: every dispatch and copy of a GPU/queue in time order") \
    _(TRACE_LANE, "next-lane", "Trace: the next GPU/queue")                                   \
    _(TRACE_GAP, "largest-gap", "Summary: open the trace at the largest gap")                  \
    _(ROI_START, "roi-start", "Region of interest starts at the selected dispatch (dispatches, trace)") \
    _(ROI_END, "roi-end", "Region of interest ends with the selected dispatch (dispatches, trace)") \
    _(ROI_ITERATION, "roi-iteration", "Region of interest: steady state, then each iteration, then none") \
    _(ROI_CLEAR, "roi-clear", "Clear the region of interest (Esc on a top screen without a filter)") \
    _(SORT_MENU, "sort-menu", "Pick the sort column")                                         \
    _(SORT_PREV, "sort-prev", "Sort by the column to the left")                               \
    _(SORT_NEXT, "sort-next", "Sort by the column to the right")                              \
    _(SORT_REVERSE, "sort-reverse", "Reverse the sort order")                                 \
    _(FILTER, "filter", "Filter rows with a PCRE2 regex as you type ('!' negates)")           \
    _(MATCH_NEXT, "match-next", "Jump to the next row matching the last pattern")             \
    _(MATCH_PREV, "match-prev", "Jump to the previous row matching the last pattern")         \
    _(CATEGORY, "category", "Open the category of the selected kernel")                       \
    _(WHATIF_UP, "what-if-up", "Categories: raise the what-if speedup of the row")            \
    _(WHATIF_DOWN, "what-if-down", "Categories: lower the what-if speedup of the row")        \
    _(WHATIF_SET, "what-if-set", "Categories: type the what-if speedup of the row")           \
    _(WHATIF_CLEAR, "what-if-clear", "Categories: clear all what-if speedups")                \
    _(EXPAND, "expand", "Stacks: expand the selected node")                                   \
    _(COLLAPSE, "collapse", "Stacks: collapse the selected node (or go to its parent)")       \
    _(EXPAND_ALL, "expand-all", "Stacks: expand every node")                                  \
    _(COLLAPSE_ALL, "collapse-all", "Stacks: collapse to the roots")                          \
    _(TREE_MODE, "tree-mode", "Stacks: call tree > callers (kernel <- who launched it) > callees") \
    _(FOLD, "fold-library", "Stacks: hide runtime and library frames (first user frame shows)") \
    _(TREE_SOURCE, "stacks-ranges", "Stacks: switch between call stacks and roctx ranges")    \
    _(AMDAHL_BASIS, "amdahl-basis", "Ceilings over device kernel time or over wall time")      \
    _(COLD_SPLIT, "cold-start", "API, Copies: totals with and without the first iteration")   \
    _(SQL_PROMPT, "sql", "SQL query over the views of SCHEMA.md (Up/Down: history, Tab: names)") \
    _(EXPORT, "export", "Export the current view, filtered and sorted as shown, to CSV")      \
    _(HELP, "help", "This help")                                                              \
    _(REDRAW, "redraw", "Redraw the screen")                                                  \
    _(QUIT, "quit", "Quit")                                                                   \
    _(QUIT_OR_BACK, "back-or-quit", "Back a level from a pushed screen (help too); quit from a top screen") \
    _(DIFF_VIEW, "diff-view", "Diff: per kernel or per category") \
    _(SCREEN_RUNS, "screen-runs", "Runs screen: every run loaded (Enter: its files)")         \
    _(RUN_SCOPE, "run-scope", "Pick the runs every screen shows: one run, or all added")      \
    _(MARK_A, "mark-baseline", "Runs: mark or unmark the run as baseline (A) of a comparison") \
    _(MARK_B, "mark-candidate", "Runs: mark or unmark the run as candidate (B) of a comparison") \
    _(SCREEN_EFFICIENCY, "screen-efficiency", "Efficiency screen: ops against peak, roofline") \
    _(SCREEN_RANKS, "screen-ranks", "Ranks screen: ranks side by side, straggler (Enter: scope)") \
    _(SCREEN_OPS, "screen-ops", "Ops screen: device time per model module and op, forward and backward (PyTorch traces)")

#define ACTION_ENUM(id, name, help) ACT_##id,
typedef enum { ACTION_INFO(ACTION_ENUM) ACT_COUNT } Action;
#undef ACTION_ENUM

/* Key codes: Unicode code points for characters, and these for special keys. */
enum {
    KEY_CODE_BASE = 0x110000,
    KC_UP = KEY_CODE_BASE, KC_DOWN, KC_LEFT, KC_RIGHT, KC_PGUP, KC_PGDOWN, KC_HOME, KC_END,
    KC_ENTER, KC_ESC, KC_BACKSPACE, KC_TAB, KC_BTAB, KC_DELETE, KC_RESIZE,
    KC_F1, KC_F2, KC_F3, KC_F4, KC_F5, KC_F6, KC_F7, KC_F8, KC_F9, KC_F10, KC_F11, KC_F12
};
#define KC_CTRL(c) ((c) & 0x1f)

const char* Action_name(Action a);
const char* Action_help(Action a);
int Action_byName(const char* name); /* -1 if unknown */

/* "<Enter>", "<C-l>", "<F6>", or a character ("<" and ">" as themselves). */
void Key_name(int key, char* buf, int cap);
/* Parses one key name at *s (advancing it); -1 on a bad name. */
int Key_parse(const char** s);

typedef struct Keymap_ Keymap;

Keymap* Keymap_new(void); /* with the default bindings */
void Keymap_delete(Keymap* this);
/* The action for key on screen (screen-specific bindings first, then "generic"). */
Action Keymap_lookup(const Keymap* this, const char* screen, int key);
/* Parses rc text: `bind SCREEN KEY ACTION` lines and `#` comments. A bad line is skipped and
 * the others still bind; then DCU_ERR_USAGE and err names the first bad line (file:line)
 * and how many more there were. */
DcuStatus Keymap_parseRc(Keymap* this, const char* text, const char* source, DcuError* err);
/* Loads $XDG_CONFIG_HOME/dcutop/dcutoprc when it exists (or path when not NULL); bad lines
 * as Keymap_parseRc (the good ones are loaded). The file is read whole up to KEYMAP_RC_MAX
 * bytes; a larger one is not read at all: DCU_ERR_USAGE, "PATH: larger than 1 MiB: not read
 * (default keys)". */
#define KEYMAP_RC_MAX (1 << 20)
DcuStatus Keymap_loadRc(Keymap* this, const char* path, DcuError* err);
/* The keys bound to action on screen ("generic" too), as "<F6> <Gt>", into buf. */
void Keymap_keysFor(const Keymap* this, const char* screen, Action a, char* buf, int cap);
/* 1 if name is a screen name bindings may use. */
int Keymap_isScreen(const char* name);
/* The i-th screen name bindings may use ("generic" first); NULL past the last. */
const char* Keymap_screen(int i);
/* The actions bound on exactly this screen (not through "generic"), in table order, into
 * out; returns how many. */
int Keymap_actionsOn(const Keymap* this, const char* screen, Action* out, int max);
/* 1 if any screen binds a key to a. */
int Keymap_isBound(const Keymap* this, Action a);

#endif
