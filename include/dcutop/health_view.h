/* health_view.h - the health verdict (health.h) in words: the lines the Summary screen, the
 * text report and the JSON report open with, each verdict with its evidence. Times are
 * milliseconds from the Trace screen's time zero (the run's first kernel, as the timeline
 * and --view trace count them), and UTC where the log has wall-clock times. No curses. */
#ifndef DCUTOP_HEALTH_VIEW_H
#define DCUTOP_HEALTH_VIEW_H

#include "dcutop/health.h"

#define HEALTH_LINE_MAX 640

typedef struct HealthLine_ {
    const char* kind; /* "no-log", "unaligned", "no-trace", "unpaired", "no-samples",
                       * "mismatch", "scope", "other-process", "low-clock", "throttle", "power-cap",
                       * "temperature", "memory-full", "healthy" (static strings) */
    int warn;         /* 1: a verdict against the run (shown as a warning) */
    int64_t gpu;      /* the trace's device; -1 none */
    int64_t t0, t1;   /* its window, ns from the time zero (other-process, low-clock,
                       * throttle); t1 < t0: none */
    int64_t res_ns;   /* the window's edges +- this */
    char text[HEALTH_LINE_MAX];
} HealthLine;

/* Fills at most max lines; returns how many. Each is one verdict or one statement of what
 * could not be judged. */
int HealthView_lines(const Health* h, HealthLine* out, int max);

#endif
