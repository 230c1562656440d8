/* key_timing.c - the lines of --timing (key_timing.h). */
#include "dcutop/key_timing.h"

#include <time.h>

#include "dcutop/keymap.h"

double KeyTiming_nowUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void KeyTiming_first(KeyTiming* t, const App* app) {
    if (!t || !t->fp || t->first_done) {
        return;
    }
    t->first_done = 1;
    double now = KeyTiming_nowUs();
    fprintf(t->fp, "load\t%.0f\t-\n", t->load_us - t->start_us);
    fprintf(t->fp, "first-screen\t%.0f\t%s\n", now - t->load_us, App_screenName(app));
    KeyTiming_idle(t, app); /* a Summary with nothing late is complete at once */
}

void KeyTiming_idle(KeyTiming* t, const App* app) {
    if (!t || !t->fp || !t->first_done || t->complete_done || App_summaryPending(app)) {
        return;
    }
    t->complete_done = 1;
    fprintf(t->fp, "summary-complete\t%.0f\tSummary\n", KeyTiming_nowUs() - t->load_us);
}

void KeyTiming_key(KeyTiming* t, int key, double t0, const App* app) {
    if (!t || !t->fp) {
        return;
    }
    char k[32];
    Key_name(key, k, sizeof(k));
    fprintf(t->fp, "%s\t%.0f\t%s\n", k, KeyTiming_nowUs() - t0, App_screenName(app));
}
