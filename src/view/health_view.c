/* health_view.c - see health_view.h. */
#include "dcutop/health_view.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dcutop/format.h"

typedef struct {
    HealthLine* out;
    int n, max;
} Lines;

static HealthLine* add(Lines* l, const char* kind, int warn, int64_t gpu, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

static HealthLine* add(Lines* l, const char* kind, int warn, int64_t gpu, const char* fmt, ...) {
    if (l->n >= l->max) {
        return NULL;
    }
    HealthLine* x = &l->out[l->n++];
    memset(x, 0, sizeof(*x));
    x->kind = kind;
    x->warn = warn;
    x->gpu = gpu;
    x->t1 = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->text, sizeof(x->text), fmt, ap);
    va_end(ap);
    return x;
}

static double ms(const HealthDevice* d, int64_t t) {
    return (double)(t - d->origin_ns) / 1e6;
}

/* " (19:47:01.433-19:47:03.391 UTC)" when the log has wall-clock times, else "". */
static void utc_range(char* buf, size_t cap, const HealthDevice* d, int64_t t0, int64_t t1) {
    buf[0] = '\0';
    if (!d->has_wall) {
        return;
    }
    char a[32], b[32];
    int64_t w[2] = {t0 + d->wall_offset_ns, t1 + d->wall_offset_ns};
    char* o[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        time_t s = (time_t)(w[i] / 1000000000LL);
        struct tm tm;
        gmtime_r(&s, &tm);
        snprintf(o[i], 32, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
                 (int)(w[i] % 1000000000LL / 1000000));
    }
    snprintf(buf, cap, "; %s-%s UTC", a, b);
}

static const char* gpu_name(const HealthDevice* d, char* buf, size_t cap) {
    if (d->gpu >= 0) {
        snprintf(buf, cap, "GPU %" PRId64, d->gpu);
    } else {
        snprintf(buf, cap, "the GPU");
    }
    return buf;
}

static double pct(int64_t part, int64_t whole) {
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void other_process(Lines* l, const HealthDevice* d, const char* g) {
    int kept = d->nwin < HEALTH_MAX_WINDOWS ? d->nwin : HEALTH_MAX_WINDOWS;
    for (int i = 0; i < kept; i++) {
        const HealthWindow* w = &d->win[i];
        char utc[96], ev[320] = "", b[32];
        utc_range(utc, sizeof(utc), d, w->t0, w->t1);
        if (w->by_memory) {
            Format_bytes(b, sizeof(b), w->mem_excess);
            snprintf(ev, sizeof(ev), "memory used %s above its usual level beyond this trace's "
                     "own", b);
        }
        if (w->by_util) {
            size_t k = strlen(ev);
            snprintf(ev + k, sizeof(ev) - k, "%sutilisation %.0f-%.0f%% while this trace kept it "
                     "%.1f%% busy", k ? ", " : "", w->util_min, w->util_max, w->own_pct);
        } else if (d->has_util && w->util_judged == 0) {
            size_t k = strlen(ev);
            snprintf(ev + k, sizeof(ev) - k, "; utilisation not judged there (its readings lag "
                     "up to 1 s: none far enough inside the trace)");
        } else if (d->has_util) { /* memory alone: say what else it could be */
            size_t k = strlen(ev);
            snprintf(ev + k, sizeof(ev) - k, "; utilisation the trace's own: a process holding "
                     "memory, or this one allocating outside PyTorch's allocator (NCCL, a "
                     "CUDA context)");
        }
        HealthLine* x = add(l, "other-process", 1, d->gpu,
                            "another process on %s from %.1f to %.1f ms (Trace time, +-%.0f "
                            "ms%s): %s "
                            "(%d samples of %s)%s",
                            g, ms(d, w->t0), ms(d, w->t1), (double)w->res_ns / 1e6, utc, ev,
                            w->samples, d->log[0] ? d->log : "the log",
                            i == 0 && d->nwin > kept ? " and more windows not listed" : "");
        if (x) {
            x->t0 = w->t0 - d->origin_ns;
            x->t1 = w->t1 - d->origin_ns;
            x->res_ns = w->res_ns;
        }
    }
}

static void state_lines(Lines* l, const HealthDevice* d, const char* g) {
    HealthLine* x;
    if (Health_lowClock(d)) {
        x = add(l, "low-clock", 1, d->gpu,
                "clock below %s's maximum (%.0f MHz%s) for %.0f%% of its busy time: %.0f-%.0f "
                "MHz from %.1f to %.1f ms",
                g, d->max_clock, d->max_seen ? ", the highest the log shows" : "",
                pct(d->low_busy_ns, d->busy_ns), d->low_min, d->low_max, ms(d, d->low_t0),
                ms(d, d->low_t1));
        if (x) {
            x->t0 = d->low_t0 - d->origin_ns;
            x->t1 = d->low_t1 - d->origin_ns;
            x->res_ns = d->spacing_ns / 2;
        }
    }
    if (Health_throttled(d)) {
        x = add(l, "throttle", 1, d->gpu,
                "clock reasons active for %.0f%% of %s's busy time: %s (from %.1f to %.1f ms)",
                pct(d->thr_busy_ns, d->busy_ns), g, d->reasons, ms(d, d->thr_t0),
                ms(d, d->thr_t1));
        if (x) {
            x->t0 = d->thr_t0 - d->origin_ns;
            x->t1 = d->thr_t1 - d->origin_ns;
            x->res_ns = d->spacing_ns / 2;
        }
    }
    if (Health_powerCapped(d)) {
        if (d->power_cap > 0 && pct(d->power_cap_busy_ns, d->busy_ns) >= 100 * HEALTH_SHARE_MIN) {
            add(l, "power-cap", 1, d->gpu,
                "power at its cap: at %.0f%% of %.0f W or more for %.0f%% of the busy time "
                "(up to %.1f W)",
                100 * HEALTH_POWER_FRAC, d->power_cap, pct(d->power_cap_busy_ns, d->busy_ns),
                d->power_max);
        } else {
            add(l, "power-cap", 1, d->gpu,
                "power cap: a power reason active for %.0f%% of the busy time, up to %.1f W%s",
                pct(d->power_reason_ns, d->busy_ns), d->power_max,
                d->power_cap > 0 ? "" : " (the log gives no power limit)");
        }
    }
    if (Health_hot(d)) {
        add(l, "temperature", 1, d->gpu,
            "temperature up to %.0f C at %.1f ms; %.0f C or more for %.0f%% of the busy time, "
            "a thermal reason for %.0f%%",
            d->temp_max, ms(d, d->temp_max_t), HEALTH_TEMP_HOT_C,
            pct(d->hot_busy_ns, d->busy_ns), pct(d->thermal_reason_ns, d->busy_ns));
    }
    if (Health_memoryFull(d)) {
        char a[32], b[32], c[32], own[96] = "";
        Format_bytes(a, sizeof(a), d->mem_used_max);
        Format_bytes(b, sizeof(b), d->mem_total);
        Format_bytes(c, sizeof(c), d->own_reserved);
        if (d->has_mem_events) {
            snprintf(own, sizeof(own), "; this trace's own reserved at most %s", c);
        }
        add(l, "memory-full", 1, d->gpu, "memory near full: %s of %s used (%.0f%%) at %.1f ms%s",
            a, b, pct(d->mem_used_max, d->mem_total), ms(d, d->mem_max_t), own);
    }
}

/* The one line of a device with no verdict: what was checked and found normal (shares under
 * HEALTH_SHARE_MIN are said as they are). */
static void healthy_line(Lines* l, const HealthDevice* d, const char* g) {
    char mem[96] = "", extra[160] = "", thr[256] = "no clock reason but idle";
    if (d->mem_total > 0) {
        snprintf(mem, sizeof(mem), ", memory at most %.0f%% used",
                 pct(d->mem_used_max, d->mem_total));
    }
    if (!d->has_mem_events) {
        snprintf(extra, sizeof(extra), "; memory used not compared with the trace's own (no "
                 "memory events: profile_memory=True records them)");
    }
    if (d->thr_busy_ns > 0) {
        snprintf(thr, sizeof(thr), "clock reasons for %.1f%% of it (%s)",
                 pct(d->thr_busy_ns, d->busy_ns), d->reasons);
    }
    const char* other = d->other_judged > 0
                            ? "no other process seen"
                            : "another process not judged (no sample inside the trace's span)";
    add(l, "healthy", 0, d->gpu,
        "%s healthy over its busy time (%d sample%s of %s, every %.0f ms): clock at 95%% of its "
        "maximum (%.0f MHz) or more for %.1f%% of it, %s, %s%s%s",
        g, d->samples, d->samples == 1 ? "" : "s", d->log[0] ? d->log : "the log",
        (double)d->spacing_ns / 1e6, d->max_clock, 100.0 - pct(d->low_busy_ns, d->busy_ns), thr,
        other, mem, extra);
}

int HealthView_lines(const Health* h, HealthLine* out, int max) {
    Lines l = {out, 0, max};
    switch (h->state) {
    case HEALTH_NO_LOG:
        add(&l, "no-log", 0, -1,
            "no device-state log (nvidia-smi, rocm-smi, hy-smi, amd-smi): clocks, throttling, "
            "other processes not checked");
        return l.n;
    case HEALTH_UNALIGNED:
        add(&l, "unaligned", 0, -1, "%s (%" PRId64 " samples) is not on the trace's clock (%s): "
            "not judged", h->log, h->log_rows,
            h->why[0] ? h->why : "no wall-clock anchor to align it");
        return l.n;
    case HEALTH_NO_TRACE:
        add(&l, "no-trace", 0, -1,
            "%s: no timed kernel or copy in the trace to judge its samples against", h->log);
        return l.n;
    case HEALTH_JUDGED:
        break;
    }
    if (h->whole_trace) {
        add(&l, "scope", 0, -1, "judged over the whole trace, not only the region of interest");
    }
    for (int i = 0; i < h->ndev; i++) {
        const HealthDevice* d = &h->dev[i];
        char g[32];
        gpu_name(d, g, sizeof(g));
        if (!d->paired) {
            add(&l, "unpaired", 0, d->gpu, "%s: no device of %s pairs with it (not judged)", g,
                h->log);
            continue;
        }
        if (d->samples == 0) {
            add(&l, "no-samples", 0, d->gpu,
                "%s: no sample of %s inside the trace's span (%.1f to %.1f ms): not judged", g,
                d->log[0] ? d->log : h->log, ms(d, d->span0), ms(d, d->span1));
            continue;
        }
        if (Health_mismatch(d)) {
            char a[32];
            Format_bytes(a, sizeof(a), d->own_reserved);
            add(&l, "mismatch", 1, d->gpu,
                "%s: device %" PRId64 " of %s used less memory than this trace alone reserved "
                "(%s) at %d of its %d samples: not the device the trace ran on "
                "(CUDA_VISIBLE_DEVICES renumbers devices); not judged",
                g, d->log_device, d->log[0] ? d->log : h->log, a, d->below_own, d->with_own);
            continue;
        }
        int before = l.n;
        other_process(&l, d, g);
        state_lines(&l, d, g);
        if (l.n == before) {
            healthy_line(&l, d, g);
        }
    }
    return l.n;
}
