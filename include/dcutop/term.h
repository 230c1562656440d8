/* term.h - the real terminal (term_curses.c, the only file that includes <curses.h>). */
#ifndef DCUTOP_TERM_H
#define DCUTOP_TERM_H

#include <stdint.h>

#include "dcutop/app.h"
#include "dcutop/error.h"
#include "dcutop/key_timing.h"
#include "dcutop/theme.h"

/* Starts curses with the theme's colors (attributes only when theme->mono). Installs
 * handlers so that Ctrl-C, SIGTERM and crashes leave the terminal clean. */
/* mouse: report clicks and the wheel to the App (App_mouse); 0 leaves the mouse to the
 * terminal (--no-mouse). */
DcuStatus Term_init(const Theme* theme, int mouse, DcuError* err);
/* Draws "Loading PATH  45%" while a trace loads (share of bytes read). */
void Term_progress(uint64_t done, uint64_t total, const char* path, void* ctx);
void Term_size(int* w, int* h);
/* Without waiting: 1 when Esc or Ctrl-C is pending (consumed), other keys stay queued. */
int Term_pollCancel(void);
/* Draws the app's frame now, outside the event loop (a long query is about to run). */
void Term_drawNow(App* app);
/* Runs the event loop until the app quits; timing (may be NULL): --timing's lines. */
void Term_loop(App* app, KeyTiming* timing);
/* Restores the terminal; safe to call twice. */
void Term_end(void);
/* Lends the terminal to argv (argv[0] a path: no shell) and takes it back when it exits:
 * curses suspended, the child's exit status returned (-1: it could not start). */
int Term_runChild(const char* const* argv);

#endif
