/* abba_evidence.c - memory, numerics and environment of an A-B-B-A judged (abba_evidence.h).
 * The order of the four runs is A1 B1 B2 A2, as everywhere in the A-B-B-A. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/abba_evidence.h"
#include "dcutop/xalloc.h"

static const char* const run_name[4] = {"A1", "B1", "B2", "A2"};

/* A clock difference smaller than this share of the clock is never called a difference: a
 * boost clock moves by a step or two of its own between samples (nvidia-smi: 15 MHz). */
#define CLOCK_FLOOR_PCT 1.0

/* ---- memory ------------------------------------------------------------------------------ */

static void mem_row(AbbaEvidence* e, const AbbaRunFacts f[4], int reserved) {
    AbbaRow* r = &e->mem[e->nmem];
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < 4; i++) {
        r->v[i] = reserved ? f[i].peak_reserved : f[i].peak_alloc;
        if (isnan(r->v[i])) {
            return;
        }
    }
    r->name = xstrdup(reserved ? "peak reserved memory" : "peak allocated memory");
    r->layer = "memory";
    /* the figures of Abba_finishRow (abba.c, which calls this module: not called back) */
    r->mean_a = (r->v[0] + r->v[3]) / 2;
    r->mean_b = (r->v[1] + r->v[2]) / 2;
    r->effect = r->mean_b - r->mean_a;
    r->drift = r->v[3] - r->v[0];
    r->repeats = r->v[2] - r->v[1];
    r->effect_pct = r->mean_a > 0 ? 100 * r->effect / r->mean_a : NAN;
    r->drift_pct = r->v[0] > 0 ? 100 * r->drift / r->v[0] : NAN;
    r->repeats_pct = r->v[1] > 0 ? 100 * r->repeats / r->v[1] : NAN;
    r->noise = fmax(fabs(r->drift), fabs(r->repeats));
    /* a caching allocator repeats itself to the byte: a noise of 0 measures a memory layer
     * that does not move, not a run given twice (the time layers catch that), so unlike
     * Abba_finishRow's rule it is judged */
    r->no_noise = 0;
    r->trusted = fabs(r->effect) > r->noise;
    e->nmem++;
}

static void fmt_bytes(double b, char* buf, size_t n) {
    double a = fabs(b);
    if (a >= 1024.0 * 1024 * 1024) {
        snprintf(buf, n, "%.3g GiB", b / (1024.0 * 1024 * 1024));
    } else if (a >= 1024.0 * 1024) {
        snprintf(buf, n, "%.4g MiB", b / (1024.0 * 1024));
    } else if (a >= 1024.0) {
        snprintf(buf, n, "%.4g KiB", b / 1024.0);
    } else {
        snprintf(buf, n, "%.0f B", b);
    }
}

const char* AbbaMemory_says(const AbbaRow* r, char* buf, size_t n) {
    char eff[32], noise[32];
    fmt_bytes(fabs(r->effect), eff, sizeof(eff));
    fmt_bytes(r->noise, noise, sizeof(noise));
    const char* src = fabs(r->repeats) > fabs(r->drift) ? "B2 - B1" : "drift A2 - A1";
    if (r->effect == 0) {
        snprintf(buf, n, "the same in A and B (noise %s)", noise);
    } else if (r->trusted) {
        snprintf(buf, n, "B %s by %s (%+.2f%%), beyond its noise %s (%s): TRUSTED",
                 r->effect < 0 ? "lower" : "higher", eff, r->effect_pct, noise, src);
    } else {
        snprintf(buf, n, "effect %s%s (%+.2f%%) is within its noise %s (%s): UNTRUSTED",
                 r->effect < 0 ? "-" : "+", eff, r->effect_pct, noise, src);
    }
    return buf;
}

/* ---- numerics ---------------------------------------------------------------------------- */

static const AbbaMetricVal* find_metric(const AbbaRunFacts* f, const char* name) {
    for (int i = 0; i < f->nmetrics; i++) {
        if (strcmp(f->metrics[i].name, name) == 0) {
            return &f->metrics[i];
        }
    }
    return NULL;
}

static int has_name(const AbbaEvidence* e, const char* name) {
    for (int i = 0; i < e->nmetrics; i++) {
        if (strcmp(e->metrics[i].name, name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* By how much B is worse: the change against the direction `better` names; any change
 * counts when it names none. */
static double worse_by(const AbbaMetric* m) {
    return m->better > 0 ? -m->effect : m->better < 0 ? m->effect : fabs(m->effect);
}

static void judge_metric(AbbaMetric* m) {
    for (int i = 0; i < 4; i++) {
        if (isnan(m->v[i])) {
            m->state = METRIC_MISSING;
            return;
        }
    }
    double ma = (m->v[0] + m->v[3]) / 2, mb = (m->v[1] + m->v[2]) / 2;
    m->effect = mb - ma;
    m->drift = m->v[3] - m->v[0];
    m->repeats = m->v[2] - m->v[1];
    m->noise = fmax(fabs(m->drift), fabs(m->repeats));
    if (m->v[0] == m->v[1] && m->v[1] == m->v[2] && m->v[2] == m->v[3]) {
        m->state = METRIC_SAME;
    } else if (!isnan(m->tolerance)) {
        /* beyond the tolerance either way: B does not compute what A computes, and a
         * metric that happens to improve is no proof of a correct change */
        /* "beyond" up to the rounding of the means: 1.01 - 1.0 is 0.010000000000000009, and
         * a change of exactly the tolerance is within it */
        double slack = 1e-12 * fmax(fabs(ma), fabs(mb));
        m->state = fabs(m->effect) > m->tolerance + slack ? METRIC_REJECT : METRIC_WITHIN_TOL;
    } else {
        m->state = fabs(m->effect) > m->noise ? METRIC_BEYOND_NOISE : METRIC_WITHIN_NOISE;
    }
}

static double mean_a(const AbbaMetric* m) {
    return (m->v[0] + m->v[3]) / 2;
}

const char* AbbaMetric_says(const AbbaMetric* m, char* buf, size_t n) {
    char rel[32] = "";
    double ma = mean_a(m);
    if (m->state != METRIC_MISSING && ma != 0) {
        snprintf(rel, sizeof(rel), " (%+.3g%%)", 100 * m->effect / fabs(ma));
    }
    const char* src = fabs(m->repeats) > fabs(m->drift) ? "B2 - B1" : "drift A2 - A1";
    switch (m->state) {
    case METRIC_MISSING:
        snprintf(buf, n, "not in every run: not judged");
        break;
    case METRIC_SAME:
        snprintf(buf, n, "the same in all four runs");
        break;
    case METRIC_REJECT:
        snprintf(buf, n, "changed by %+.6g%s, beyond its tolerance %g%s: reject", m->effect, rel,
                 m->tolerance, !m->better ? ""
                 : worse_by(m) > 0 ? " (the worse way)"
                                   : " (the better way, but not the same result)");
        break;
    case METRIC_WITHIN_TOL:
        snprintf(buf, n, "changed by %+.6g%s, within its tolerance %g%s", m->effect, rel,
                 m->tolerance, m->noise > m->tolerance ? "; its own repeats differ by more "
                 "than the tolerance" : "");
        break;
    case METRIC_WITHIN_NOISE:
        snprintf(buf, n, "changed by %+.6g%s, within its own repeat noise %.6g (%s); no "
                 "tolerance given", m->effect, rel, m->noise, src);
        break;
    case METRIC_BEYOND_NOISE:
        snprintf(buf, n, "changed by %+.6g%s, beyond its own repeat noise %.6g (%s); no "
                 "tolerance given, so not a rejection%s", m->effect, rel, m->noise, src,
                 m->noise == 0 ? " (the metric repeats exactly)" : "");
        break;
    }
    return buf;
}

static void metrics(AbbaEvidence* e, const AbbaRunFacts f[4]) {
    int cap = 0;
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < f[r].nmetrics; k++) {
            const char* name = f[r].metrics[k].name;
            if (has_name(e, name)) {
                continue;
            }
            if (e->nmetrics == cap) {
                cap = cap ? cap * 2 : 8;
                e->metrics = xrealloc(e->metrics, sizeof(AbbaMetric) * (size_t)cap);
            }
            AbbaMetric* m = &e->metrics[e->nmetrics++];
            memset(m, 0, sizeof(*m));
            m->name = xstrdup(name);
            m->tolerance = NAN;
            for (int i = 0; i < 4; i++) {
                const AbbaMetricVal* v = find_metric(&f[i], name);
                m->v[i] = v ? v->value : NAN;
                if (v && !isnan(v->tolerance)) { /* the strictest any run gives */
                    m->tolerance = isnan(m->tolerance) ? v->tolerance
                                                       : fmin(m->tolerance, v->tolerance);
                }
                if (v && v->better && !m->better) {
                    m->better = v->better;
                }
            }
            judge_metric(m);
        }
    }
    size_t ln = strlen(e->notes);
    for (int i = 0; i < e->nmetrics; i++) {
        AbbaMetric* m = &e->metrics[i];
        char says[256];
        AbbaMetric_says(m, says, sizeof(says));
        if (m->state == METRIC_REJECT && !e->rejected) {
            e->rejected = 1;
            snprintf(e->reject, sizeof(e->reject), "metric %s %s", m->name, says);
        } else if (m->state == METRIC_BEYOND_NOISE && worse_by(m) > 0 && !e->metric_warn) {
            e->metric_warn = 1;
            snprintf(e->warn, sizeof(e->warn), "metric %s %s", m->name, says);
        } else if (m->state == METRIC_MISSING && ln < sizeof(e->notes)) {
            ln += (size_t)snprintf(e->notes + ln, sizeof(e->notes) - ln,
                                   "metric %s is not in every run: not judged\n", m->name);
        }
    }
    for (int r = 0; r < 4 && ln < sizeof(e->notes); r++) {
        if (f[r].metric_dups) {
            ln += (size_t)snprintf(e->notes + ln, sizeof(e->notes) - ln,
                                   "run %s names %d metric(s) in two files: the first file's "
                                   "value counts\n", run_name[r], f[r].metric_dups);
        }
    }
}

/* ---- environment ------------------------------------------------------------------------- */

/* Groups the runs by a text (NULL: unknown): "A1 B1 A2 'x'; B2 'y'". Returns the number of
 * distinct known texts; unknown lists the runs without one ("" when none). */
static int group(const char* const v[4], char* buf, size_t n, char* unknown, size_t un) {
    int done[4] = {0}, distinct = 0;
    size_t l = 0, u = 0;
    buf[0] = unknown[0] = '\0';
    for (int i = 0; i < 4; i++) {
        if (!v[i]) {
            u += (size_t)snprintf(unknown + u, u < un ? un - u : 0, "%s%s", u ? " " : "",
                                  run_name[i]);
            continue;
        }
        if (done[i]) {
            continue;
        }
        distinct++;
        l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s", l ? "; " : "");
        for (int j = i; j < 4; j++) {
            if (v[j] && strcmp(v[j], v[i]) == 0) {
                done[j] = 1;
                l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s ", run_name[j]);
            }
        }
        l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "'%s'", v[i]);
    }
    return distinct;
}

/* "<what> <verb>: <detail>" appended to the reasons the environment differs */
static void add_env(AbbaEvidence* e, const char* what, const char* verb, const char* detail) {
    size_t l = strlen(e->env);
    snprintf(e->env + l, sizeof(e->env) - l, "%s%s %s: %s", l ? "; " : "", what, verb, detail);
}

static void add_note(AbbaEvidence* e, const char* what, const char* runs) {
    size_t l = strlen(e->notes);
    snprintf(e->notes + l, sizeof(e->notes) - l, "%s unknown for %s: not compared\n", what,
             runs);
}

static void compare_text(AbbaEvidence* e, const AbbaRunFacts f[4], size_t off, const char* what) {
    const char* v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = *(char* const*)((const char*)&f[i] + off);
    }
    char buf[600], unknown[32];
    int k = group(v, buf, sizeof(buf), unknown, sizeof(unknown));
    if (k > 1) {
        e->env_differs = 1;
        add_env(e, what, "differs", buf);
    } else if (k == 1 && unknown[0]) {
        add_note(e, what, unknown);
    }
}

static void compare_clocks(AbbaEvidence* e, const AbbaRunFacts f[4]) {
    double lo = INFINITY, hi = -INFINITY, spread = 0;
    int known = 0;
    char unknown[32] = "";
    size_t u = 0;
    for (int i = 0; i < 4; i++) {
        if (isnan(f[i].clock_mhz)) {
            u += (size_t)snprintf(unknown + u, sizeof(unknown) - u, "%s%s", u ? " " : "",
                                  run_name[i]);
            continue;
        }
        known++;
        lo = fmin(lo, f[i].clock_mhz);
        hi = fmax(hi, f[i].clock_mhz);
        spread = fmax(spread, f[i].clock_p90 - f[i].clock_p10);
    }
    if (known > 0 && unknown[0]) {
        add_note(e, "the SM clock (no device log)", unknown);
    }
    if (known < 2) {
        return;
    }
    double floor = hi * CLOCK_FLOOR_PCT / 100.0;
    double noise = fmax(spread, floor);
    if (hi - lo <= noise) {
        return;
    }
    e->env_differs = 1;
    char detail[400];
    size_t l = 0;
    for (int i = 0; i < 4; i++) {
        if (!isnan(f[i].clock_mhz)) {
            l += (size_t)snprintf(detail + l, sizeof(detail) - l, "%s%s %.0f", l ? ", " : "",
                                  run_name[i], f[i].clock_mhz);
        }
    }
    snprintf(detail + l, sizeof(detail) - l, " MHz (median SM clock of each run's device log): "
             "%.0f MHz apart, beyond the runs' own clock noise %.0f MHz (the widest p10..p90 "
             "of one run, at least %g%% of the clock)", hi - lo, noise, CLOCK_FLOOR_PCT);
    add_env(e, "the clocks", "differ", detail);
}

static void run_facts(char* buf, size_t n, const AbbaRunFacts* f) {
    char clock[128] = "no device log";
    if (!isnan(f->clock_mhz)) {
        snprintf(clock, sizeof(clock), "SM clock %.0f MHz median (p10 %.0f, p90 %.0f) over %d "
                 "samples%s", f->clock_mhz, f->clock_p10, f->clock_p90, f->clock_n,
                 f->clock_in_span == 2   ? " inside the trace"
                 : f->clock_in_span == 1 ? " (the log's busy ones)"
                                         : " (the whole log)");
    }
    snprintf(buf, n, "%s; %s%s%s; %s%s%s", f->device ? f->device : "device unknown",
             f->software ? f->software : "versions unknown", f->driver ? "; driver " : "",
             f->driver ? f->driver : "", clock, f->throttle ? "; throttle " : "",
             f->throttle ? f->throttle : "");
}

AbbaEvidence* AbbaEvidence_judge(AbbaRunFacts facts[4]) {
    AbbaEvidence* e = xcalloc(1, sizeof(*e));
    for (int i = 0; i < 4; i++) {
        e->runs[i] = facts[i];
        memset(&facts[i], 0, sizeof(facts[i]));
    }
    const AbbaRunFacts* f = e->runs;
    mem_row(e, f, 0);
    mem_row(e, f, 1);
    e->mem_source = e->nmem ? f[0].mem_source : NULL;
    int some_mem = 0;
    for (int i = 0; i < 4; i++) {
        some_mem |= f[i].mem_source != NULL;
        run_facts(e->facts[i], sizeof(e->facts[i]), &f[i]);
    }
    if (some_mem && e->nmem == 0) {
        snprintf(e->notes, sizeof(e->notes), "memory peaks missing in some of the four runs: "
                 "memory not judged\n");
    }
    metrics(e, f);
    compare_text(e, f, offsetof(AbbaRunFacts, device), "the device");
    compare_text(e, f, offsetof(AbbaRunFacts, software), "the software");
    compare_text(e, f, offsetof(AbbaRunFacts, driver), "the driver");
    compare_clocks(e, f);
    return e;
}

void AbbaEvidence_delete(AbbaEvidence* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->nmetrics; i++) {
        free(this->metrics[i].name);
    }
    free(this->metrics);
    for (int i = 0; i < 4; i++) {
        AbbaFacts_done(&this->runs[i]);
    }
    for (int i = 0; i < this->nmem; i++) {
        free(this->mem[i].name);
    }
    free(this);
}

/* ---- tables ------------------------------------------------------------------------------ */

static const RsColumn mem_cols[] = {
    {"name", "Name", CT_TEXT},       {"a1", "A1 MiB", CT_REAL},   {"b1", "B1 MiB", CT_REAL},
    {"b2", "B2 MiB", CT_REAL},       {"a2", "A2 MiB", CT_REAL},   {"effect", "Effect MiB", CT_REAL},
    {"effect_pct", "Effect%", CT_PCT}, {"drift", "Drift MiB", CT_REAL},
    {"repeats", "B2-B1 MiB", CT_REAL}, {"noise", "Noise MiB", CT_REAL},
    {"a1_bytes", "A1 bytes", CT_INT}, {"b1_bytes", "B1 bytes", CT_INT},
    {"b2_bytes", "B2 bytes", CT_INT}, {"a2_bytes", "A2 bytes", CT_INT},
    {"verdict", "Verdict", CT_TEXT},
};

ResultSet* AbbaEvidence_memoryTable(const AbbaEvidence* e) {
    ResultSet* rs = ResultSet_new("abba_memory", mem_cols, 15);
    const double mib = 1024.0 * 1024.0;
    for (int i = 0; i < e->nmem; i++) {
        const AbbaRow* x = &e->mem[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, x->name);
        double v[] = {x->v[0], x->v[1], x->v[2], x->v[3], x->effect};
        for (int c = 0; c < 5; c++) {
            ResultSet_setReal(rs, r, 1 + c, v[c] / mib);
        }
        if (!isnan(x->effect_pct)) {
            ResultSet_setReal(rs, r, 6, x->effect_pct);
        }
        ResultSet_setReal(rs, r, 7, x->drift / mib);
        ResultSet_setReal(rs, r, 8, x->repeats / mib);
        ResultSet_setReal(rs, r, 9, x->noise / mib);
        for (int c = 0; c < 4; c++) {
            ResultSet_setInt(rs, r, 10 + c, (int64_t)llround(x->v[c]));
        }
        ResultSet_setText(rs, r, 14, x->effect == 0 ? "same" : x->trusted ? "trusted"
                                                                          : "untrusted");
    }
    return rs;
}

static const char* const state_name[] = {"same", "within tolerance", "reject", "within noise",
                                         "beyond noise", "missing"};

static const RsColumn metric_cols[] = {
    {"name", "Metric", CT_TEXT},   {"a1", "A1", CT_VALUE},         {"b1", "B1", CT_VALUE},
    {"b2", "B2", CT_VALUE},        {"a2", "A2", CT_VALUE},         {"effect", "Effect", CT_VALUE},
    {"drift", "Drift", CT_VALUE},  {"repeats", "B2-B1", CT_VALUE}, {"noise", "Noise", CT_VALUE},
    {"tolerance", "Tolerance", CT_VALUE}, {"better", "Better", CT_TEXT},
    {"verdict", "Verdict", CT_TEXT},
};

ResultSet* AbbaEvidence_metricTable(const AbbaEvidence* e) {
    ResultSet* rs = ResultSet_new("abba_metrics", metric_cols, 12);
    for (int i = 0; i < e->nmetrics; i++) {
        const AbbaMetric* m = &e->metrics[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, m->name);
        for (int c = 0; c < 4; c++) {
            if (!isnan(m->v[c])) {
                ResultSet_setReal(rs, r, 1 + c, m->v[c]);
            }
        }
        if (m->state != METRIC_MISSING) {
            ResultSet_setReal(rs, r, 5, m->effect);
            ResultSet_setReal(rs, r, 6, m->drift);
            ResultSet_setReal(rs, r, 7, m->repeats);
            ResultSet_setReal(rs, r, 8, m->noise);
        }
        if (!isnan(m->tolerance)) {
            ResultSet_setReal(rs, r, 9, m->tolerance);
        }
        ResultSet_setText(rs, r, 10, m->better > 0 ? "higher" : m->better < 0 ? "lower" : "");
        ResultSet_setText(rs, r, 11, state_name[m->state]);
    }
    return rs;
}

static const RsColumn env_cols[] = {
    {"run", "Run", CT_TEXT},           {"device", "Device", CT_TEXT},
    {"software", "Software", CT_TEXT}, {"driver", "Driver", CT_TEXT},
    {"clock_mhz", "SM MHz", CT_REAL},  {"clock_p10", "p10 MHz", CT_REAL},
    {"clock_p90", "p90 MHz", CT_REAL}, {"clock_max_mhz", "Max MHz", CT_REAL},
    {"samples", "Samples", CT_INT},    {"throttle", "Throttle", CT_TEXT},
};

ResultSet* AbbaEvidence_envTable(const AbbaEvidence* e) {
    const AbbaRunFacts* f = e->runs;
    ResultSet* rs = ResultSet_new("abba_environment", env_cols, 10);
    for (int i = 0; i < 4; i++) {
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, run_name[i]);
        ResultSet_setText(rs, r, 1, f[i].device ? f[i].device : "");
        ResultSet_setText(rs, r, 2, f[i].software ? f[i].software : "");
        ResultSet_setText(rs, r, 3, f[i].driver ? f[i].driver : "");
        double c[] = {f[i].clock_mhz, f[i].clock_p10, f[i].clock_p90, f[i].clock_max};
        for (int k = 0; k < 4; k++) {
            if (!isnan(c[k]) && (k == 3 || f[i].clock_n > 0)) {
                ResultSet_setReal(rs, r, 4 + k, c[k]);
            }
        }
        ResultSet_setInt(rs, r, 8, f[i].clock_n);
        ResultSet_setText(rs, r, 9, f[i].throttle ? f[i].throttle : "");
    }
    return rs;
}
