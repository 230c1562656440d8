/* abba.c - the A-B-B-A verdict (diff.h): four runs in the order they ran, A1 B1 B2 A2.
 * effect = mean(B1, B2) - mean(A1, A2); drift = A2 - A1; repeats = B2 - B1. A drift as large
 * as the effect means the machine changed while the runs were taken; repeats of B that
 * disagree by as much as the effect mean one run cannot tell the change from noise. Either
 * way the effect cannot be trusted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/diff.h"
#include "dcutop/filter.h"
#include "dcutop/xalloc.h"

static void finish(AbbaRow* r) {
    r->mean_a = (r->v[0] + r->v[3]) / 2;
    r->mean_b = (r->v[1] + r->v[2]) / 2;
    r->effect = r->mean_b - r->mean_a;
    r->drift = r->v[3] - r->v[0];
    r->effect_pct = r->mean_a > 0 ? 100 * r->effect / r->mean_a : NAN;
    r->drift_pct = r->v[0] > 0 ? 100 * r->drift / r->v[0] : NAN;
    r->repeats = r->v[2] - r->v[1];
    r->repeats_pct = r->v[1] > 0 ? 100 * r->repeats / r->v[1] : NAN;
    r->noise = fmax(fabs(r->drift), fabs(r->repeats));
    r->trusted = fabs(r->effect) > r->noise;
}

/* -1 faster, +1 slower (trusted), 0 untrusted or no change */
static int says(const AbbaRow* r) {
    return !r->trusted || r->effect == 0 ? 0 : r->effect < 0 ? -1 : 1;
}

const char* Abba_rowWhy(const AbbaRow* r, char* buf, size_t n) {
    if (r->trusted) {
        snprintf(buf, n, "TRUSTED (|effect| > noise %.4g ms)", r->noise);
    } else if (fabs(r->repeats) > fabs(r->drift)) {
        snprintf(buf, n, "UNTRUSTED (the repeats B2 - B1 disagree by %.4g ms >= |effect|)",
                 fabs(r->repeats));
    } else {
        snprintf(buf, n, "UNTRUSTED (the drift A2 - A1 is %.4g ms >= |effect|: the machine "
                         "changed between runs)", fabs(r->drift));
    }
    return buf;
}

int Abba_trusted(const Abba* a) {
    return a->nhead > a->decides && a->rows[a->decides].trusted;
}

static const char* layer_name(const Abba* a, int i) {
    return strcmp(a->rows[i].layer, "steps") == 0 ? "step time" : "device kernel time";
}

/* what one layer's row says, e.g. "B faster by 30.69%, beyond its noise 0.5 ms" */
static void layer_says(const AbbaRow* r, char* buf, size_t n) {
    const char* src = fabs(r->repeats) > fabs(r->drift) ? "B2 - B1" : "drift A2 - A1";
    if (!r->trusted) {
        snprintf(buf, n, "effect %+.2f%% is within its noise (%.4g ms, %s)", r->effect_pct,
                 r->noise, src);
    } else {
        snprintf(buf, n, "B %s by %.2f%%, beyond its noise (%.4g ms, %s)",
                 r->effect < 0 ? "faster" : "slower", fabs(r->effect_pct), r->noise, src);
    }
}

const char* Abba_verdict(const Abba* a, char* buf, size_t n) {
    if (a->nhead == 0) { /* no layer in all four runs */
        snprintf(buf, n, "nothing to compare: no layer is in all four runs");
        return buf;
    }
    char what[200];
    layer_says(&a->rows[a->decides], what, sizeof(what));
    snprintf(buf, n, "%s decides%s: %s", layer_name(a, a->decides),
             a->has_steps ? " (plain timing)" : " (no step timing in every run)", what);
    return buf;
}

const char* Abba_disagreement(const Abba* a, char* buf, size_t n) {
    buf[0] = '\0';
    if (!a->disagree) {
        return buf;
    }
    int other = a->decides == 1 ? 0 : 1;
    const AbbaRow* d = &a->rows[a->decides];
    const AbbaRow* o = &a->rows[other];
    char osays[200];
    layer_says(o, osays, sizeof(osays));
    const char* why;
    if (says(d) == 0) {
        why = "the kernel change does not show in the step time beyond its noise; take more "
              "steps or repeats before claiming a gain";
    } else if (says(o) == 0) {
        why = "the change lies outside the kernels' summed time (host, launches, idle)";
    } else {
        why = "it is the time the user waits for, and holds what kernel time leaves out "
              "(host, launches, idle)";
    }
    snprintf(buf, n, "The layers disagree: %s says %s. Believe %s: %s.", layer_name(a, other),
             osays, layer_name(a, a->decides), why);
    return buf;
}

static AbbaRow* add(Abba* a, int* cap, const char* name, const char* layer) {
    if (a->nrows == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        a->rows = xrealloc(a->rows, sizeof(AbbaRow) * (size_t)*cap);
    }
    AbbaRow* r = &a->rows[a->nrows++];
    memset(r, 0, sizeof(*r));
    r->name = xstrdup(name);
    r->layer = layer;
    return r;
}

static int cmp_effect(const void* x, const void* y) {
    const AbbaRow* a = x;
    const AbbaRow* b = y;
    double ea = fabs(a->effect), eb = fabs(b->effect);
    if (ea != eb) {
        return ea < eb ? 1 : -1;
    }
    return strcmp(a->name, b->name);
}

DcuStatus Abba_compute(const DiffSide* const runs[4], DiffMatch match, Abba** out,
                       DcuError* err) {
    /* the per-kernel values come from a Diff of the four runs as single repeats */
    const DiffSide* const as[2] = {runs[0], runs[3]};
    const DiffSide* const bs[2] = {runs[1], runs[2]};
    Diff* d = NULL;
    DcuStatus s = Diff_compute(as, 2, bs, 2, match, &d, err);
    if (s != DCU_OK) {
        return s;
    }
    Abba* a = xcalloc(1, sizeof(*a));
    int cap = 0;
    int has_kernels = 1;
    for (int i = 0; i < 4; i++) {
        has_kernels &= runs[i]->nk > 0;
    }
    if (has_kernels) {
        AbbaRow* t = add(a, &cap, "device kernel time", "kernel");
        for (int i = 0; i < 4; i++) {
            t->v[i] = (double)runs[i]->kernel_ns / 1e6;
        }
        finish(t);
    }
    a->has_steps = 1;
    for (int i = 0; i < 4; i++) {
        a->has_steps &= runs[i]->nsteps > 0;
    }
    if (a->has_steps) {
        AbbaRow* st = add(a, &cap, "step time (median)", "steps");
        for (int i = 0; i < 4; i++) {
            st->v[i] = DiffSide_stepMs(runs[i]);
        }
        finish(st);
        a->decides = a->nrows - 1; /* 0 when no run has kernel times */
        a->disagree = has_kernels && says(&a->rows[0]) != says(st);
    }
    int head = a->nhead = a->nrows;
    for (int k = 0; k < d->nrows; k++) {
        const DiffRow* dr = &d->rows[k];
        AbbaRow* r = add(a, &cap, dr->name, "kernel");
        r->category = xstrdup(dr->category ? dr->category : "");
        r->a_name = dr->a_name ? xstrdup(dr->a_name) : NULL;
        r->b_name = dr->b_name ? xstrdup(dr->b_name) : NULL;
        r->v[0] = dr->va[0] / 1e6;
        r->v[3] = dr->va[1] / 1e6;
        r->v[1] = dr->vb[0] / 1e6;
        r->v[2] = dr->vb[1] / 1e6;
        finish(r);
    }
    if (a->nrows - head > 1) { /* rows may be NULL (no layer, no kernel) */
        qsort(a->rows + head, (size_t)(a->nrows - head), sizeof(AbbaRow), cmp_effect);
    }
    size_t l = 0;
    for (int i = 0; i < 4; i++) {
        if (runs[i]->nk == 0 && l < sizeof(a->notes)) {
            l += (size_t)snprintf(a->notes + l, sizeof(a->notes) - l,
                                  "run %s has no device kernel times\n", runs[i]->label);
        }
    }
    int some_steps = 0;
    for (int i = 0; i < 4; i++) {
        some_steps |= runs[i]->nsteps > 0;
    }
    if (some_steps && !a->has_steps && l < sizeof(a->notes)) {
        snprintf(a->notes + l, sizeof(a->notes) - l,
                 "step times missing in some of the four runs: plain timing not judged\n");
    }
    Diff_delete(d);
    *out = a;
    return DCU_OK;
}

int Abba_gate(const Abba* a, double pct, const char* part, char* why, size_t cap,
              DcuError* err) {
    AbbaRow sum;
    memset(&sum, 0, sizeof(sum));
    const AbbaRow* r = a->nhead > a->decides ? &a->rows[a->decides] : &sum;
    char what[300];
    snprintf(what, sizeof(what), "A-B-B-A %s", a->nhead > a->decides ? r->name : "(no rows)");
    if (part && *part) {
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
                    sum.v[j] += k->v[j];
                }
                n++;
            }
        }
        Filter_delete(f);
        if (n == 0) {
            Error_set(err, DCU_ERR_USAGE, "--gate '%s': no kernel of this category or name", part);
            return -1;
        }
        finish(&sum);
        r = &sum;
        snprintf(what, sizeof(what), "A-B-B-A %s '%s'", is_cat ? "category" : "kernels matching",
                 part);
    }
    double change = r->effect_pct;
    if (isnan(change)) {
        change = r->effect > 0 ? INFINITY : 0;
    }
    int slower = change > pct;
    int fail = slower && r->trusted;
    int untrusted = slower && !r->trusted;
    char amount[64], rule[160];
    if (isfinite(change)) {
        snprintf(amount, sizeof(amount), "effect %+.2f%%", change);
    } else {
        snprintf(amount, sizeof(amount), "new (no baseline time)");
    }
    const char* src = fabs(r->repeats) > fabs(r->drift) ? "repeats B2 - B1" : "drift A2 - A1";
    snprintf(rule, sizeof(rule), "%s: |effect| %.4g ms %s noise %.4g ms (%s)",
             r->trusted ? "trusted" : "untrusted", fabs(r->effect), r->trusted ? ">" : "<=",
             r->noise, src);
    snprintf(why, cap, "gate %s: %s %s (limit +%g%%), %s%s",
             fail ? "FAILED" : untrusted ? "WARNING" : "passed", what, amount, pct, rule,
             untrusted ? ": an untrusted regression beyond the limit" : "");
    return fail ? GATE_FAILED : untrusted ? GATE_UNTRUSTED : GATE_PASSED;
}

void Abba_delete(Abba* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->nrows; i++) {
        free(this->rows[i].name);
        free(this->rows[i].category);
        free(this->rows[i].a_name);
        free(this->rows[i].b_name);
    }
    free(this->rows);
    free(this);
}

enum { B_NAME, B_LAYER, B_A1, B_B1, B_B2, B_A2, B_MA, B_MB, B_EFF, B_EFFP, B_DRIFT, B_DRIFTP,
       B_REP, B_REPP, B_NOISE, B_VERDICT, B_NCOLS };
static const RsColumn abba_cols[B_NCOLS] = {
    {"name", "Name", CT_TEXT},          {"layer", "Layer", CT_TEXT},
    {"a1", "A1 ms", CT_REAL},           {"b1", "B1 ms", CT_REAL},
    {"b2", "B2 ms", CT_REAL},           {"a2", "A2 ms", CT_REAL},
    {"mean_a", "mean A ms", CT_REAL},   {"mean_b", "mean B ms", CT_REAL},
    {"effect", "Effect ms", CT_REAL},   {"effect_pct", "Effect%", CT_PCT},
    {"drift", "Drift ms", CT_REAL},     {"drift_pct", "Drift%", CT_PCT},
    {"repeats", "B2-B1 ms", CT_REAL},   {"repeats_pct", "B2-B1%", CT_PCT},
    {"noise", "Noise ms", CT_REAL},
    {"verdict", "Verdict", CT_TEXT},
};

static void fill(ResultSet* rs, const AbbaRow* rows, int n) {
    for (int i = 0; i < n; i++) {
        const AbbaRow* x = &rows[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, B_NAME, x->name);
        ResultSet_setText(rs, r, B_LAYER, x->layer);
        double v[] = {x->v[0], x->v[1], x->v[2], x->v[3], x->mean_a, x->mean_b, x->effect,
                      x->effect_pct, x->drift, x->drift_pct, x->repeats, x->repeats_pct,
                      x->noise};
        for (int c = 0; c < 13; c++) {
            if (!isnan(v[c])) {
                ResultSet_setReal(rs, r, B_A1 + c, v[c]);
            }
        }
        ResultSet_setText(rs, r, B_VERDICT, x->trusted ? "trusted" : "untrusted");
    }
}

ResultSet* Abba_table(const Abba* a) {
    ResultSet* rs = ResultSet_new("abba", abba_cols, B_NCOLS);
    fill(rs, a->rows, a->nrows);
    rs->pinned = a->nhead;
    return rs;
}

ResultSet* Abba_categoryTable(const Abba* a) {
    AbbaRow* c = xcalloc((size_t)(a->nrows ? a->nrows : 1), sizeof(AbbaRow));
    int n = 0;
    for (int i = a->nhead; i < a->nrows; i++) {
        const AbbaRow* k = &a->rows[i];
        const char* cat = k->category && *k->category ? k->category : "other";
        int j = 0;
        while (j < n && strcmp(c[j].name, cat) != 0) {
            j++;
        }
        if (j == n) {
            c[n].name = xstrdup(cat);
            c[n++].layer = "category";
        }
        for (int v = 0; v < 4; v++) {
            c[j].v[v] += k->v[v];
        }
    }
    for (int j = 0; j < n; j++) {
        finish(&c[j]);
    }
    if (n > 1) {
        qsort(c, (size_t)n, sizeof(AbbaRow), cmp_effect);
    }
    ResultSet* rs = ResultSet_new("abba_categories", abba_cols, B_NCOLS);
    fill(rs, c, n);
    for (int j = 0; j < n; j++) {
        free(c[j].name);
    }
    free(c);
    return rs;
}
