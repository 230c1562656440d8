/* health_judge.c - the verdicts over one paired device's busy intervals and samples
 * (health.h's definitions); health.c reads them from the database. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/health.h"
#include "dcutop/xalloc.h"

/* nvidia-smi's clocks_event_reasons (clocks_throttle_reasons) bits, as NVML names them. */
static const struct {
    unsigned long long bit;
    const char* name;
} nv_reasons[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};

static int has_word(const char* s, const char* w) {
    size_t n = strlen(w);
    for (; *s; s++) {
        if (strncasecmp(s, w, n) == 0) {
            return 1;
        }
    }
    return 0;
}

/* One reason name: idle, power or thermal? */
static void classify(const char* name, int* idle, int* power, int* thermal) {
    *idle = has_word(name, "idle");
    *power = has_word(name, "power");
    *thermal = has_word(name, "therm") || has_word(name, "temp");
}

void Health_reasons(const char* raw, char* out, int cap, int* idle_only, int* power,
                    int* thermal) {
    *idle_only = *power = *thermal = 0;
    if (cap > 0) {
        out[0] = '\0';
    }
    if (!raw) {
        return;
    }
    while (isspace((unsigned char)*raw)) {
        raw++;
    }
    char names[512] = "";
    if (raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X')) {
        char* end = NULL;
        unsigned long long m = strtoull(raw, &end, 16);
        for (size_t i = 0; i < sizeof(nv_reasons) / sizeof(nv_reasons[0]); i++) {
            if (m & nv_reasons[i].bit) {
                size_t k = strlen(names);
                snprintf(names + k, sizeof(names) - k, "%s%s", k ? ", " : "", nv_reasons[i].name);
                m &= ~nv_reasons[i].bit;
            }
        }
        if (m) { /* bits NVML does not name (yet) */
            size_t k = strlen(names);
            snprintf(names + k, sizeof(names) - k, "%sreason 0x%llx", k ? ", " : "", m);
        }
    } else if (strcasecmp(raw, "none") != 0 && strcasecmp(raw, "n/a") != 0 &&
               strcasecmp(raw, "not active") != 0) {
        snprintf(names, sizeof(names), "%s", raw);
    }
    /* each name, split at ',', ';' or '|' */
    int any = 0, non_idle = 0;
    for (char* p = names; *p;) {
        size_t len = strcspn(p, ",;|");
        char one[128];
        snprintf(one, sizeof(one), "%.*s", (int)(len < sizeof(one) - 1 ? len : sizeof(one) - 1),
                 p);
        int i, pw, th;
        classify(one, &i, &pw, &th);
        any = 1;
        non_idle |= !i;
        *power |= pw;
        *thermal |= th;
        p += len;
        while (*p == ',' || *p == ';' || *p == '|' || *p == ' ') {
            p++;
        }
    }
    *idle_only = any && !non_idle;
    if (cap > 0) {
        snprintf(out, (size_t)cap, "%s", names);
    }
}

/* Busy time before t from merged intervals and their prefix sums. */
static int64_t busy_before(const int64_t* bs, const int64_t* be, const int64_t* cum, int64_t nb,
                           int64_t t) {
    int64_t lo = 0, hi = nb;
    while (lo < hi) { /* the first interval starting after t */
        int64_t m = lo + (hi - lo) / 2;
        if (bs[m] <= t) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    if (lo == 0) {
        return 0;
    }
    int64_t k = lo - 1;
    return cum[k] + ((t < be[k] ? t : be[k]) - bs[k]);
}

typedef struct {
    const int64_t *bs, *be;
    int64_t* cum;
    int64_t nb;
} Busy;

static int64_t busy_in(const Busy* b, int64_t a, int64_t z) {
    if (z <= a) {
        return 0;
    }
    return busy_before(b->bs, b->be, b->cum, b->nb, z) -
           busy_before(b->bs, b->be, b->cum, b->nb, a);
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

static int64_t median_spacing(const HealthSample* s, int n) {
    if (n < 2) {
        return 0;
    }
    int64_t* d = xmalloc(sizeof(int64_t) * (size_t)(n - 1));
    for (int i = 1; i < n; i++) {
        d[i - 1] = s[i].t - s[i - 1].t;
    }
    qsort(d, (size_t)(n - 1), sizeof(int64_t), cmp_i64);
    int64_t m = d[(n - 1) / 2];
    free(d);
    return m;
}

/* Adds each name of list to the ", "-joined set out (cap bytes) that lacks it. */
static void add_names(char* out, size_t cap, const char* list) {
    for (const char* p = list; *p;) {
        size_t len = strcspn(p, ",");
        char one[128];
        snprintf(one, sizeof(one), "%.*s", (int)(len < sizeof(one) - 1 ? len : sizeof(one) - 1),
                 p);
        int idle, pw, th;
        classify(one, &idle, &pw, &th);
        if (!idle && one[0] && !strstr(out, one)) {
            size_t k = strlen(out);
            snprintf(out + k, cap - k, "%s%s", k ? ", " : "", one);
        }
        p += len;
        while (*p == ',' || *p == ' ') {
            p++;
        }
    }
}

/* The utilisation signal of sample i: 1 flagged, 0 not, -1 not judged. */
static int util_flag(const HealthDevice* d, const Busy* b, const HealthSample* x,
                     int64_t dt) {
    if (x->util < 0 || dt <= 0 || x->t > d->span1 ||
        x->t - HEALTH_UTIL_LAG_NS - dt < d->span0) {
        return -1;
    }
    double own_max = 0;
    for (int64_t lag = 0; lag <= HEALTH_UTIL_LAG_NS; lag += dt / 4 > 0 ? dt / 4 : 1) {
        double own = 100.0 * (double)busy_in(b, x->t - lag - dt, x->t - lag) / (double)dt;
        own_max = own > own_max ? own : own_max;
    }
    return x->util - own_max >= HEALTH_UTIL_EXCESS;
}

typedef struct {
    signed char util, mem; /* 1 flagged, 0 not, -1 not judged */
    int64_t excess;
} Flags;

static int cmp_window(const void* a, const void* b) {
    const HealthWindow *x = a, *y = b;
    int64_t p = x->t1 - x->t0, q = y->t1 - y->t0;
    return (p < q) - (p > q);
}

/* The edge between sample j and its neighbour k (the one before or after it): half-way,
 * kept inside the span, +- half their gap and half a whole-second log's second; without a
 * neighbour, the span's edge, +- up to sample j. */
static int64_t edge(const HealthDevice* d, const HealthSample* s, int n, int j, int k,
                    int64_t* res) {
    if (k < 0 || k >= n) {
        int64_t e = k < j ? d->span0 : d->span1;
        *res = (s[j].t > e ? s[j].t - e : e - s[j].t) + d->time_q_ns / 2;
        return e;
    }
    int64_t gap = s[j].t > s[k].t ? s[j].t - s[k].t : s[k].t - s[j].t;
    *res = gap / 2 + d->time_q_ns / 2; /* and where in its second a whole-second sample was */
    int64_t e = (s[j].t + s[k].t) / 2;
    return e < d->span0 ? d->span0 : e > d->span1 ? d->span1 : e;
}

static void add_window(HealthDevice* d, const Busy* b, const HealthSample* s, int n,
                       const Flags* f, int i0, int i1) {
    HealthWindow w;
    memset(&w, 0, sizeof(w));
    w.util_min = 101;
    int j0 = -1, j1 = -1;
    for (int i = i0; i <= i1; i++) {
        int flagged = f[i].util == 1 || f[i].mem == 1;
        w.samples += flagged;
        w.util_judged += f[i].util >= 0;
        if (f[i].mem == 1) {
            w.by_memory = 1;
            j0 = j0 < 0 ? i : j0;
            j1 = i;
            w.mem_excess = f[i].excess > w.mem_excess ? f[i].excess : w.mem_excess;
        }
        if (f[i].util == 1) {
            w.by_util = 1;
            w.util_min = s[i].util < w.util_min ? s[i].util : w.util_min;
            w.util_max = s[i].util > w.util_max ? s[i].util : w.util_max;
        }
    }
    if (j0 < 0) { /* utilisation only: its edges, late by its averaging */
        j0 = i0;
        j1 = i1;
    }
    if (!w.by_util) {
        w.util_min = w.util_max = -1;
    }
    int64_t r0 = 0, r1 = 0;
    w.t0 = edge(d, s, n, j0, j0 - 1, &r0);
    w.t1 = edge(d, s, n, j1, j1 + 1, &r1);
    w.res_ns = r0 > r1 ? r0 : r1;
    w.own_pct = w.t1 > w.t0 ? 100.0 * (double)busy_in(b, w.t0, w.t1) / (double)(w.t1 - w.t0) : 0;
    if (d->nwin < HEALTH_MAX_WINDOWS) {
        d->win[d->nwin] = w;
    } else if (cmp_window(&w, &d->win[HEALTH_MAX_WINDOWS - 1]) < 0) {
        d->win[HEALTH_MAX_WINDOWS - 1] = w; /* longer than the shortest kept */
    }
    d->nwin++;
    int kept = d->nwin < HEALTH_MAX_WINDOWS ? d->nwin : HEALTH_MAX_WINDOWS;
    qsort(d->win, (size_t)kept, sizeof(HealthWindow), cmp_window);
}

/* The clock, throttle, power, temperature and memory figures of judged sample x. */
static void state_figures(HealthDevice* d, const HealthSample* x, int64_t busy) {
    d->busy_ns += busy;
    if (x->sm >= 0 && d->max_clock > 0 && x->sm < HEALTH_CLOCK_FRAC * d->max_clock &&
        !x->idle_only) {
        if (busy > 0) { /* the first low sample with busy time sets the range */
            int first = d->low_busy_ns == 0;
            d->low_min = first || x->sm < d->low_min ? x->sm : d->low_min;
            d->low_max = first || x->sm > d->low_max ? x->sm : d->low_max;
            d->low_t0 = first ? x->t : d->low_t0;
            d->low_t1 = x->t;
        }
        d->low_busy_ns += busy;
    }
    if (x->reasons[0] && !x->idle_only) {
        if (busy > 0) {
            add_names(d->reasons, sizeof(d->reasons), x->reasons);
            d->thr_t0 = d->thr_busy_ns == 0 ? x->t : d->thr_t0;
            d->thr_t1 = x->t;
        }
        d->thr_busy_ns += busy;
    }
    d->power_reason_ns += x->power_r ? busy : 0;
    d->thermal_reason_ns += x->thermal_r ? busy : 0;
    if (x->power >= 0) {
        d->power_max = x->power > d->power_max ? x->power : d->power_max;
    }
    if (x->cap > 0) {
        d->power_cap = x->cap > d->power_cap ? x->cap : d->power_cap;
        d->power_cap_busy_ns += x->power >= HEALTH_POWER_FRAC * x->cap ? busy : 0;
    }
    if (x->temp > 0) {
        if (x->temp > d->temp_max) {
            d->temp_max = x->temp;
            d->temp_max_t = x->t;
        }
        d->hot_busy_ns += x->temp >= HEALTH_TEMP_HOT_C ? busy : 0;
    }
    if (x->used >= 0 && x->used > d->mem_used_max) {
        d->mem_used_max = x->used;
        d->mem_max_t = x->t;
    }
    if (x->total > 0) {
        d->mem_total = x->total;
    }
    if (x->own >= 0) {
        d->own_reserved = x->own > d->own_reserved ? x->own : d->own_reserved;
    }
    if (x->own >= 0 && x->used >= 0) {
        d->with_own++;
        d->below_own += x->used < x->own;
    }
}

void Health_judge(HealthDevice* d, const int64_t* bs, const int64_t* be, int64_t nb,
                  const HealthSample* s, int n) {
    Busy b = {bs, be, xmalloc(sizeof(int64_t) * (size_t)(nb + 1)), nb};
    b.cum[0] = 0;
    for (int64_t k = 0; k < nb; k++) {
        b.cum[k + 1] = b.cum[k] + (be[k] - bs[k]);
    }
    d->spacing_ns = median_spacing(s, n);
    int64_t dt = d->spacing_ns, hold = HEALTH_HOLD * dt / 2;
    if (d->max_clock <= 0) { /* no max column: the highest clock the log shows */
        for (int i = 0; i < n; i++) {
            d->max_clock = s[i].max_sm > d->max_clock ? s[i].max_sm : d->max_clock;
        }
        if (d->max_clock <= 0) {
            for (int i = 0; i < n; i++) {
                d->max_clock = s[i].sm > d->max_clock ? s[i].sm : d->max_clock;
            }
            d->max_seen = d->max_clock > 0;
        }
    }
    Flags* f = xcalloc((size_t)(n > 0 ? n : 1), sizeof(Flags));
    int64_t* resid = xmalloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    int nres = 0;
    int64_t min_excess = HEALTH_MEM_EXCESS;
    for (int i = 0; i < n; i++) {
        const HealthSample* x = &s[i];
        f[i].util = f[i].mem = -1;
        int64_t lo = i > 0 ? (s[i - 1].t + x->t) / 2 : x->t - dt / 2;
        int64_t hi = i + 1 < n ? (x->t + s[i + 1].t) / 2 : x->t + dt / 2;
        lo = lo < x->t - hold ? x->t - hold : lo;
        hi = hi > x->t + hold ? x->t + hold : hi;
        if (hi <= d->span0 || lo > d->span1) {
            continue; /* its reading holds nowhere in the span */
        }
        /* the state it reads holds over the part of its interval in the span (a trace
         * shorter than the spacing has samples only around it) */
        d->samples++;
        state_figures(d, x, busy_in(&b, lo, hi));
        if (x->t < d->span0 || x->t > d->span1) {
            continue; /* another process: judged only from samples inside the span */
        }
        f[i].util = (signed char)util_flag(d, &b, x, dt);
        if (x->own >= 0 && x->used >= 0) {
            resid[nres++] = x->used - x->own;
        }
        if (x->total > 0 && x->total / 100 > min_excess) {
            min_excess = x->total / 100;
        }
    }
    /* the level of memory used beyond the trace's own: its lower quartile over the span (a
     * level held for most of it; the process's own buffers freed at its end stay below) */
    int64_t base = 0;
    if (nres > 0) {
        qsort(resid, (size_t)nres, sizeof(int64_t), cmp_i64);
        base = resid[nres / 4];
    }
    free(resid);
    for (int i = 0; i < n && nres > 0; i++) {
        if (s[i].t >= d->span0 && s[i].t <= d->span1 && s[i].own >= 0 && s[i].used >= 0) {
            f[i].excess = s[i].used - s[i].own - base;
            f[i].mem = f[i].excess >= min_excess;
        }
        d->other_judged += f[i].util >= 0 || f[i].mem >= 0;
    }
    /* windows: runs of flagged samples, one unflagged sample inside does not split them */
    int i0 = -1, last = -1;
    for (int i = 0; i <= n; i++) {
        int flagged = i < n && (f[i].util == 1 || f[i].mem == 1);
        if (flagged) {
            if (i0 >= 0 && i - last > 2) {
                add_window(d, &b, s, n, f, i0, last);
                i0 = -1;
            }
            i0 = i0 < 0 ? i : i0;
            last = i;
        }
    }
    if (i0 >= 0) {
        add_window(d, &b, s, n, f, i0, last);
    }
    free(f);
    free(b.cum);
}

static int share(int64_t part, int64_t whole) {
    return whole > 0 && (double)part >= HEALTH_SHARE_MIN * (double)whole;
}

int Health_lowClock(const HealthDevice* d) {
    return share(d->low_busy_ns, d->busy_ns);
}

int Health_throttled(const HealthDevice* d) {
    return share(d->thr_busy_ns, d->busy_ns);
}

int Health_powerCapped(const HealthDevice* d) {
    return share(d->power_cap_busy_ns, d->busy_ns) || share(d->power_reason_ns, d->busy_ns);
}

int Health_hot(const HealthDevice* d) {
    return share(d->hot_busy_ns, d->busy_ns) || share(d->thermal_reason_ns, d->busy_ns);
}

int Health_mismatch(const HealthDevice* d) {
    return d->with_own > 0 && 2 * d->below_own > d->with_own;
}

int Health_memoryFull(const HealthDevice* d) {
    return d->mem_total > 0 &&
           (double)d->mem_used_max >= HEALTH_MEM_FULL_FRAC * (double)d->mem_total;
}
