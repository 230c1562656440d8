/* gate.c - the CI gate of a diff and of an A-B-B-A (diff.h), and a diff's overall verdict.
 * Every layer is judged: device kernel time, and the median step time where the runs have it.
 * A trusted regression beyond the limit on any layer fails, whatever the other layer says: a
 * layer that cannot tell the change from noise cannot clear one that can. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/abba_evidence.h"
#include "dcutop/diff.h"
#include "dcutop/filter.h"
#include "dcutop/xalloc.h"

/* One layer as the gate sees it. */
typedef struct GateLayer_ {
    char name[320];   /* "device kernel time", "A-B-B-A step time (median)", ... */
    char amount[64];  /* "+2.07%", "effect +2.07%", "new (no baseline time)" */
    char rule[320];   /* why it is (un)trusted */
    double change;    /* % slower; INFINITY when new */
    double worst;     /* % slower at the far edge of its noise (INFINITY: noise unknown) */
    int trusted;
} GateLayer;

enum { GATE_LAYERS = 4 }; /* kernel time, step time, peak allocated and reserved memory */

const char* Gate_resultName(int result) {
    switch (result) {
    case GATE_FAILED:
        return "failed";
    case GATE_UNTRUSTED:
        return "untrusted";
    case GATE_INCONCLUSIVE:
        return "inconclusive";
    default:
        return "passed";
    }
}

static void set_amount(GateLayer* l, double change, const char* prefix) {
    l->change = change;
    if (isfinite(change)) {
        snprintf(l->amount, sizeof(l->amount), "%s%+.2f%%", prefix, change);
    } else {
        snprintf(l->amount, sizeof(l->amount), "new (no baseline time)");
    }
}

/* The verdict over layers L[0..n): the failing layer first, else the untrusted regression,
 * else (layers that disagree) the untrusted layer whose noise reaches past the limit: it
 * cannot rule out a regression the other layer does not show; else the layer that slowed
 * most. Then what the others say. */
static int combine(const GateLayer* L, int n, double pct, int disagree, char* why, size_t cap) {
    int fail = -1, unt = -1, open = -1, top = 0;
    for (int i = 0; i < n; i++) {
        int slower = L[i].change > pct;
        if (slower && L[i].trusted && (fail < 0 || L[i].change > L[fail].change)) {
            fail = i;
        }
        if (slower && !L[i].trusted && (unt < 0 || L[i].change > L[unt].change)) {
            unt = i;
        }
        if (disagree && !L[i].trusted && L[i].worst > pct && open < 0) {
            open = i;
        }
        if (L[i].change > L[top].change) {
            top = i;
        }
    }
    int result = fail >= 0   ? GATE_FAILED
                 : unt >= 0  ? (disagree ? GATE_INCONCLUSIVE : GATE_UNTRUSTED)
                 : open >= 0 ? GATE_INCONCLUSIVE
                             : GATE_PASSED;
    int p = fail >= 0 ? fail : unt >= 0 ? unt : open >= 0 ? open : top;
    size_t len = (size_t)snprintf(why, cap, "gate %s: %s %s (limit +%g%%), %s%s",
                                  result == GATE_FAILED   ? "FAILED"
                                  : result == GATE_PASSED ? "passed"
                                                          : "WARNING",
                                  L[p].name, L[p].amount, pct, L[p].rule,
                                  unt >= 0 && fail < 0 ? ": an untrusted regression beyond the limit"
                                                       : "");
    if (result == GATE_INCONCLUSIVE && unt < 0 && len < cap) {
        char edge[64] = "its noise is unknown";
        if (isfinite(L[p].worst)) {
            snprintf(edge, sizeof(edge), "at the edge of its noise %+.2f%%", L[p].worst);
        }
        len += (size_t)snprintf(why + len, cap - len, ": it cannot rule out a regression beyond "
                                "the limit (%s)", edge);
    }
    if (result == GATE_INCONCLUSIVE && len < cap) {
        len += (size_t)snprintf(why + len, cap - len, "; the layers disagree (INCONCLUSIVE)");
    }
    for (int i = 0; i < n && len < cap; i++) {
        if (i != p) {
            len += (size_t)snprintf(why + len, cap - len, "; %s %s, %s%s", L[i].name,
                                    L[i].amount, L[i].rule,
                                    result == GATE_FAILED && !L[i].trusted
                                        ? " (an untrusted layer cannot clear a trusted one)"
                                        : "");
        }
    }
    return result;
}

/* ---- diff -------------------------------------------------------------------------------- */

static double change_of(double before, double after) {
    return before > 0 ? 100.0 * (after - before) / before : (after > 0 ? INFINITY : 0);
}

/* The slowdown in % of before at the far edge of the noise (delta_hi, the largest delta the
 * noise allows); INFINITY when it cannot be said. */
static double worst_of(double before, double delta_hi) {
    if (isnan(delta_hi)) {
        return INFINITY;
    }
    return before > 0 ? 100.0 * delta_hi / before : (delta_hi > 0 ? INFINITY : 0);
}

static const char* noise_text(DiffNoise n) {
    return n == DIFF_NOISE_WITHIN    ? "within noise"
           : n == DIFF_NOISE_OUTSIDE ? "outside noise"
                                     : "noise cannot be judged";
}

static int has_steps(const Diff* d) {
    return d->steps_before.n && d->steps_after.n;
}

static void steps_rule(const Diff* d, char* buf, size_t n) {
    if (d->steps_noise == DIFF_NOISE_UNKNOWN) {
        snprintf(buf, n, "noise cannot be judged (fewer than %d steps in a run): untrusted",
                 DIFF_MIN_STEPS);
    } else if (d->steps_has_ci) {
        snprintf(buf, n, "%s (95%% CI of delta %.4g .. %.4g ms)", noise_text(d->steps_noise),
                 d->steps_ci_lo, d->steps_ci_hi);
    } else {
        snprintf(buf, n, "%s (the runs' ranges %s)", noise_text(d->steps_noise),
                 d->steps_noise == DIFF_NOISE_WITHIN ? "overlap" : "do not overlap");
    }
}

/* -1 faster, +1 slower, 0 not outside noise: what a layer of a diff says. */
static int diff_says(DiffNoise noise, double before, double after) {
    return noise != DIFF_NOISE_OUTSIDE || after == before ? 0 : after > before ? 1 : -1;
}

static int diff_disagree(const Diff* d) {
    return has_steps(d) && d->nrows > 0 &&
           diff_says(d->total.noise, d->total.before.mean, d->total.after.mean) !=
               diff_says(d->steps_noise, d->steps_before.mean, d->steps_after.mean);
}

int Diff_gate(const Diff* d, double pct, const char* part, char* why, size_t cap, DcuError* err) {
    GateLayer L[GATE_LAYERS];
    memset(L, 0, sizeof(L));
    int n = 0;
    DiffRow g;
    const DiffRow* r = &d->total;
    snprintf(L[0].name, sizeof(L[0].name), "device kernel time");
    if (part && *part) {
        if (Diff_partRow(d, part, &g, L[0].name, sizeof(L[0].name), err) < 0) {
            return -1;
        }
        r = &g;
    }
    set_amount(&L[0], change_of(r->before.mean, r->after.mean), "");
    L[0].trusted = r->noise != DIFF_NOISE_WITHIN; /* unjudged noise counts as a real change */
    L[0].worst = worst_of(r->before.mean, r->has_ci ? fmax(r->delta, r->ci_hi)
                          : d->na > 1 && d->nb > 1 ? r->after.max - r->before.min : NAN);
    snprintf(L[0].rule, sizeof(L[0].rule), "%s%s", noise_text(r->noise),
             r->noise == DIFF_NOISE_UNKNOWN && L[0].change > pct ? ": counted as a real change"
                                                                 : "");
    n = 1;
    if (r == &g) {
        Diff_partDone(&g);
    } else if (has_steps(d)) { /* a gated part is kernels only */
        GateLayer* s = &L[n++];
        snprintf(s->name, sizeof(s->name), "step time (median)");
        set_amount(s, change_of(d->steps_before.mean, d->steps_after.mean), "");
        s->trusted = d->steps_noise == DIFF_NOISE_OUTSIDE;
        s->worst = worst_of(d->steps_before.mean,
                            d->steps_has_ci ? d->steps_ci_hi
                            : d->na > 1 && d->nb > 1 ? d->steps_after.max - d->steps_before.min
                                                     : NAN);
        steps_rule(d, s->rule, sizeof(s->rule));
    }
    return combine(L, n, pct, n > 1 && diff_disagree(d), why, cap);
}

/* "device kernel time: B slower by 86.44%, outside noise" */
static void diff_layer_says(const char* name, DiffNoise noise, double before, double after,
                            char* buf, size_t n) {
    double c = change_of(before, after);
    int s = diff_says(noise, before, after);
    if (s != 0 && isfinite(c)) {
        snprintf(buf, n, "%s: B %s by %.2f%%, outside noise", name, s > 0 ? "slower" : "faster",
                 fabs(c));
    } else if (s != 0) {
        snprintf(buf, n, "%s: B slower (no baseline time)", name);
    } else {
        snprintf(buf, n, "%s: %+.2f%%, %s", name, isfinite(c) ? c : 0.0, noise_text(noise));
    }
}

const char* Diff_verdict(const Diff* d, char* buf, size_t n, const char** result) {
    char k[200] = "", st[200] = "";
    int nk = d->nrows > 0, ns = has_steps(d);
    if (nk) {
        diff_layer_says("device kernel time", d->total.noise, d->total.before.mean,
                        d->total.after.mean, k, sizeof(k));
    }
    if (ns) {
        diff_layer_says("step time", d->steps_noise, d->steps_before.mean, d->steps_after.mean,
                        st, sizeof(st));
    }
    int sk = nk ? diff_says(d->total.noise, d->total.before.mean, d->total.after.mean) : 0;
    int ss = ns ? diff_says(d->steps_noise, d->steps_before.mean, d->steps_after.mean) : 0;
    if (!nk && !ns) {
        *result = "none";
        snprintf(buf, n, "nothing to compare: no layer on both sides");
    } else if (nk && ns && sk != ss) {
        *result = "inconclusive";
        const char* tn = sk != 0 ? "device kernel time" : "step time";
        const char* un = sk != 0 ? "step time" : "device kernel time";
        int t = sk != 0 ? sk : ss;
        if (sk != 0 && ss != 0) {
            snprintf(buf, n, "the layers disagree: %s; %s. B is slower in %s: the regression is "
                     "real all the same", k, st, sk > 0 ? "device kernel time" : "step time");
        } else if (t > 0) {
            snprintf(buf, n, "the layers disagree: %s; %s. Trust %s: B is slower there, a "
                     "regression; %s can neither confirm nor rule it out", k, st, tn, un);
        } else {
            snprintf(buf, n, "the layers disagree: %s; %s. Trust %s: B is faster there; %s does "
                     "not confirm it yet (take more steps or repeats before claiming a gain "
                     "in %s)", k, st, tn, un, un);
        }
    } else if (sk != 0 || ss != 0) {
        *result = "trusted";
        snprintf(buf, n, "%s%s%s", nk ? k : "", nk && ns ? "; " : "", ns ? st : "");
    } else {
        *result = "untrusted";
        snprintf(buf, n, "no layer is outside noise: %s%s%s", nk ? k : "", nk && ns ? "; " : "",
                 ns ? st : "");
    }
    return buf;
}

/* ---- A-B-B-A ----------------------------------------------------------------------------- */

static void abba_layer(GateLayer* l, const AbbaRow* r, const char* what) {
    snprintf(l->name, sizeof(l->name), "%s", what);
    double change = r->effect_pct;
    if (isnan(change)) {
        change = r->effect > 0 ? INFINITY : 0;
    }
    set_amount(l, change, "effect ");
    l->trusted = r->trusted;
    l->worst = r->no_noise ? INFINITY
               : r->mean_a > 0 ? 100 * (r->effect + r->noise) / r->mean_a
                               : (r->effect + r->noise > 0 ? INFINITY : 0);
    const char* src = fabs(r->repeats) > fabs(r->drift) ? "repeats B2 - B1" : "drift A2 - A1";
    if (r->layer && strcmp(r->layer, "memory") == 0) {
        const double mib = 1024.0 * 1024.0;
        snprintf(l->rule, sizeof(l->rule), "%s: |effect| %.4g MiB %s noise %.4g MiB (%s)",
                 r->trusted ? "trusted" : "untrusted", fabs(r->effect) / mib,
                 r->trusted ? ">" : "<=", r->noise / mib, src);
    } else if (r->no_noise) {
        snprintf(l->rule, sizeof(l->rule), "untrusted: drift and repeats are both exactly 0 (a "
                 "run given twice measures no noise)");
    } else {
        snprintf(l->rule, sizeof(l->rule), "%s: |effect| %.4g ms %s noise %.4g ms (%s)",
                 r->trusted ? "trusted" : "untrusted", fabs(r->effect),
                 r->trusted ? ">" : "<=", r->noise, src);
    }
}

/* The kernels of part summed per run into sum; -1 (err set) on a bad pattern or no match. */
static int abba_part(const Abba* a, const char* part, AbbaRow* sum, char* what, size_t cap,
                     DcuError* err) {
    int is_cat = 0;
    for (int i = 0; i < a->nrows; i++) {
        is_cat |= a->rows[i].category && strcmp(a->rows[i].category, part) == 0;
    }
    Filter* f = NULL;
    if (!is_cat && Filter_new(part, &f, err) != DCU_OK) {
        return -1;
    }
    int n = 0;
    for (int i = 0; i < a->nrows; i++) {
        const AbbaRow* k = &a->rows[i];
        if (k->category && (is_cat ? strcmp(k->category, part) == 0
                                   : Filter_matches(f, k->name, strlen(k->name)))) {
            for (int j = 0; j < 4; j++) {
                sum->v[j] += k->v[j];
            }
            n++;
        }
    }
    Filter_delete(f);
    if (n == 0) {
        Error_set(err, DCU_ERR_USAGE, "--gate '%s': no kernel of this category or name", part);
        return -1;
    }
    Abba_finishRow(sum);
    snprintf(what, cap, "A-B-B-A %s '%s'", is_cat ? "category" : "kernels matching", part);
    return 0;
}

static int abba_time_gate(const Abba* a, double pct, const char* part, char* why, size_t cap,
                          DcuError* err) {
    GateLayer L[GATE_LAYERS];
    memset(L, 0, sizeof(L));
    if (part && *part) {
        AbbaRow sum;
        memset(&sum, 0, sizeof(sum));
        char what[300];
        if (abba_part(a, part, &sum, what, sizeof(what), err) < 0) {
            return -1;
        }
        abba_layer(&L[0], &sum, what);
        return combine(L, 1, pct, 0, why, cap);
    }
    if (a->nhead == 0) {
        AbbaRow none;
        memset(&none, 0, sizeof(none));
        abba_layer(&L[0], &none, "A-B-B-A (no rows)");
        return combine(L, 1, pct, 0, why, cap);
    }
    int n = a->nhead < 2 ? a->nhead : 2;
    for (int i = 0; i < n; i++) {
        char what[300];
        snprintf(what, sizeof(what), "A-B-B-A %s", a->rows[i].name);
        abba_layer(&L[i], &a->rows[i], what);
    }
    for (int i = 0; a->ev && i < a->ev->nmem && n < GATE_LAYERS; i++) {
        char what[300];
        snprintf(what, sizeof(what), "A-B-B-A %s", a->ev->mem[i].name);
        abba_layer(&L[n++], &a->ev->mem[i], what);
    }
    return combine(L, n, pct, a->disagree, why, cap);
}

/* what the time and memory layers said, without its "gate ...: " head */
static const char* body_of(const char* why) {
    const char* c = strstr(why, ": ");
    return c ? c + 2 : why;
}

/* The evidence beside time overrules it: a metric beyond its tolerance fails the gate (exit 3,
 * as a trusted regression does: B is wrong, not slow); runs taken in different environments
 * leave nothing trusted, so a pass or a failure on time becomes a warning; a metric without
 * tolerance that moved beyond its own noise is a warning on a pass. */
int Abba_gate(const Abba* a, double pct, const char* part, char* why, size_t cap,
              DcuError* err) {
    int r = abba_time_gate(a, pct, part, why, cap, err);
    const AbbaEvidence* e = a->ev;
    if (r < 0 || !e || (!e->rejected && !e->env_differs && !e->metric_warn)) {
        return r;
    }
    char* time = xstrdup(body_of(why));
    if (e->rejected) {
        snprintf(why, cap, "gate FAILED: %s; time and memory: %s", e->reject, time);
        r = GATE_FAILED;
    } else if (e->env_differs) {
        snprintf(why, cap, "gate WARNING: the runs' environment differs (%s): no time or "
                 "memory verdict can be trusted; they say: %s", e->env, time);
        r = GATE_UNTRUSTED;
    } else if (r == GATE_PASSED) {
        snprintf(why, cap, "gate WARNING: %s; time and memory: %s", e->warn, time);
        r = GATE_UNTRUSTED;
    }
    free(time);
    return r;
}
