/* key_timing.h - --timing FILE: how long the interactive view made its user wait, measured
 * inside dcutop, in the TUI as in a headless run. A benchmark that polls a terminal from
 * outside measures its own polling too (on two CPUs, tmux and grep every 20 ms slowed a 10M
 * load by 0.2-0.6 s); these figures are the program's own. One line per event, tab-separated:
 *   load<TAB>US<TAB>-                 dcutop's start to the end of the load
 *   first-screen<TAB>US<TAB>SCREEN    the end of the load to the first screen drawn
 *   summary-complete<TAB>US<TAB>Summary  the end of the load to the Summary's late parts
 *                                     (idle, advice, timeline) drawn
 *   KEY<TAB>US<TAB>SCREEN             one key handled and the screen drawn (KEY in the rc
 *                                     key syntax; SCREEN: where it left the user)
 * The work done while the user reads a screen (App_idle) is not a key's time. */
#ifndef DCUTOP_KEY_TIMING_H
#define DCUTOP_KEY_TIMING_H

#include <stdio.h>

#include "dcutop/app.h"

typedef struct {
    FILE* fp;        /* NULL: nothing is measured */
    double start_us; /* KeyTiming_nowUs() when dcutop started */
    double load_us;  /* ... when the load ended */
    int first_done, complete_done;
} KeyTiming;

/* Monotonic microseconds. */
double KeyTiming_nowUs(void);
/* The first screen was just drawn: writes the load and first-screen lines. */
void KeyTiming_first(KeyTiming* t, const App* app);
/* After an idle step: writes summary-complete once the Summary has nothing left to compute. */
void KeyTiming_idle(KeyTiming* t, const App* app);
/* A key handled and drawn: t0 is KeyTiming_nowUs() before the key was handled. */
void KeyTiming_key(KeyTiming* t, int key, double t0, const App* app);

#endif
