/* abba.c - the A-B-B-A verdict (diff.h): four runs in the order they ran, A1 B1 B2 A2.
 * effect = mean(B1, B2) - mean(A1, A2); drift = A2 - A1; repeats = B2 - B1. A drift as large
 * as the effect means the machine changed while the runs were taken; repeats of B that
 * disagree by as much as the effect mean one run cannot tell the change from noise. Either
 * way the effect cannot be trusted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/abba_evidence.h"
#include "dcutop/diff.h"
#include "dcutop/filter.h"
#include "dcutop/xalloc.h"

void Abba_finishRow(AbbaRow* r) {
    r->mean_a = (r->v[0] + r->v[3]) / 2;
    r->mean_b = (r->v[1] + r->v[2]) / 2;
    r->effect = r->mean_b - r->mean_a;
    r->drift = r->v[3] - r->v[0];
    r->effect_pct = r->mean_a > 0 ? 100 * r->effect / r->mean_a : NAN;
    r->drift_pct = r->v[0] > 0 ? 100 * r->drift / r->v[0] : NAN;
    r->repeats = r->v[2] - r->v[1];
    r->repeats_pct = r->v[1] > 0 ? 100 * r->repeats / r->v[1] : NAN;
    r->noise = fmax(fabs(r->drift), fabs(r->repeats));
    /* Two separate runs never agree to the nanosecond on a time present in all four: a noise
     * of exactly 0 means a run was given twice (or copied), and nothing was measured. */
    r->no_noise = r->noise == 0 && r->v[0] > 0 && r->v[1] > 0 && r->v[2] > 0 && r->v[3] > 0;
    r->trusted = !r->no_noise && fabs(r->effect) > r->noise;
}

/* -1 faster, +1 slower (trusted), 0 untrusted or no change */
static int says(const AbbaRow* r) {
    return !r->trusted || r->effect == 0 ? 0 : r->effect < 0 ? -1 : 1;
}

const char* Abba_rowWhy(const AbbaRow* r, char* buf, size_t n) {
    if (r->no_noise) {
        snprintf(buf, n, "UNTRUSTED (drift and repeats are both exactly 0: a run given twice "
                         "measures no noise)");
    } else if (r->trusted) {
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

AbbaResult Abba_result(const Abba* a) {
    if (a->ev && a->ev->rejected) { /* a wrong answer is no speedup, however fast */
        return ABBA_REJECTED;
    }
    if (a->nhead == 0) {
        return ABBA_NONE;
    }
    if (a->disagree) {
        return ABBA_INCONCLUSIVE;
    }
    if (a->ev && a->ev->env_differs) {
        return ABBA_UNTRUSTED;
    }
    return a->rows[a->decides].trusted ? ABBA_TRUSTED : ABBA_UNTRUSTED;
}

void Abba_setEvidence(Abba* a, AbbaEvidence* ev) {
    if (!a->ev_borrowed) {
        AbbaEvidence_delete(a->ev);
    }
    a->ev = ev;
    a->ev_borrowed = 0;
}

void Abba_borrowEvidence(Abba* a, AbbaEvidence* ev) {
    Abba_setEvidence(a, ev);
    a->ev_borrowed = 1;
}

const char* Abba_resultName(AbbaResult r) {
    static const char* const names[] = {"trusted", "untrusted", "inconclusive", "none",
                                        "rejected"};
    return names[r];
}

int Abba_trusted(const Abba* a) {
    return Abba_result(a) == ABBA_TRUSTED;
}

static const char* layer_name(const Abba* a, int i) {
    return strcmp(a->rows[i].layer, "steps") == 0 ? "step time" : "device kernel time";
}

/* what one layer's row says, e.g. "B faster by 30.69%, beyond its noise 0.5 ms" */
static void layer_says(const AbbaRow* r, char* buf, size_t n) {
    const char* src = fabs(r->repeats) > fabs(r->drift) ? "B2 - B1" : "drift A2 - A1";
    if (r->no_noise) {
        snprintf(buf, n, "effect %+.2f%% with no noise measured (a run given twice)",
                 r->effect_pct);
    } else if (!r->trusted) {
        snprintf(buf, n, "effect %+.2f%% is within its noise (%.4g ms, %s)", r->effect_pct,
                 r->noise, src);
    } else {
        snprintf(buf, n, "B %s by %.2f%%, beyond its noise (%.4g ms, %s)",
                 r->effect < 0 ? "faster" : "slower", fabs(r->effect_pct), r->noise, src);
    }
}

/* What time says in a few words, for a rejection: "B faster by 2.77% (device kernel time)". */
static void time_phrase(const Abba* a, char* buf, size_t n) {
    const AbbaRow* r = NULL;
    for (int i = 0; i < a->nhead && !r; i++) {
        r = says(&a->rows[i]) < 0 ? &a->rows[i] : NULL; /* a trusted gain is what tempts */
    }
    r = r ? r : a->nhead ? &a->rows[a->decides] : NULL;
    if (!r) {
        snprintf(buf, n, "with no time layer in all four runs");
    } else if (says(r) != 0) {
        snprintf(buf, n, "B %s by %.2f%% (%s)", r->effect < 0 ? "faster" : "slower",
                 fabs(r->effect_pct), r->name);
    } else {
        snprintf(buf, n, "B's time within its noise (%s %+.2f%%)", r->name, r->effect_pct);
    }
}

/* The evidence beside time: a rejection first, then the environment, the metric warning and
 * memory, each after what time says. */
static void with_evidence(const Abba* a, char* buf, size_t n) {
    const AbbaEvidence* e = a->ev;
    if (!e) {
        return;
    }
    char* time = xstrdup(buf);
    size_t l = 0;
    if (e->rejected) {
        char tp[200];
        time_phrase(a, tp, sizeof(tp));
        l = (size_t)snprintf(buf, n, "%s but %s; time alone: %s", tp, e->reject, time);
    } else {
        l = (size_t)snprintf(buf, n, "%s", time);
    }
    free(time);
    if (e->env_differs && l < n) {
        l += (size_t)snprintf(buf + l, n - l, "; UNTRUSTED, the runs' environment differs: %s",
                              e->env);
    }
    if (e->metric_warn && l < n) {
        l += (size_t)snprintf(buf + l, n - l, "; WARNING: %s", e->warn);
    }
    for (int i = 0; i < e->nmem && l < n; i++) {
        char m[200];
        l += (size_t)snprintf(buf + l, n - l, "; %s: %s", e->mem[i].name,
                              AbbaMemory_says(&e->mem[i], m, sizeof(m)));
    }
}

static const char* time_verdict(const Abba* a, char* buf, size_t n);

const char* Abba_verdict(const Abba* a, char* buf, size_t n) {
    time_verdict(a, buf, n);
    with_evidence(a, buf, n);
    return buf;
}

static const char* time_verdict(const Abba* a, char* buf, size_t n) {
    if (a->nhead == 0) { /* no layer in all four runs */
        snprintf(buf, n, "nothing to compare: no layer is in all four runs");
        return buf;
    }
    char what[200], other[200];
    if (a->disagree) { /* both layers, each in its own words; neither outvotes the other */
        layer_says(&a->rows[0], what, sizeof(what));
        layer_says(&a->rows[1], other, sizeof(other));
        snprintf(buf, n, "the layers disagree: %s: %s; %s: %s", layer_name(a, 0), what,
                 layer_name(a, 1), other);
        return buf;
    }
    layer_says(&a->rows[a->decides], what, sizeof(what));
    snprintf(buf, n, "%s decides%s: %s%s", layer_name(a, a->decides),
             a->has_steps ? " (plain timing)" : " (no step timing in every run)", what,
             a->nhead > 1 ? "; device kernel time agrees" : "");
    return buf;
}

const char* Abba_disagreement(const Abba* a, char* buf, size_t n) {
    buf[0] = '\0';
    if (!a->disagree) {
        return buf;
    }
    const AbbaRow* k = &a->rows[0];
    const AbbaRow* s = &a->rows[1];
    if (says(k) != 0 && says(s) != 0) { /* both trusted, opposite ways */
        const AbbaRow* slow = says(k) > 0 ? k : s;
        snprintf(buf, n, "Both layers are beyond their noise: B is slower in %s (by %.2f%%) and "
                 "faster in %s. The regression is real all the same: step time holds what "
                 "kernel time leaves out (host, launches, idle), and a gate counts any trusted "
                 "regression.", slow == k ? "device kernel time" : "step time",
                 fabs(slow->effect_pct), slow == k ? "step time" : "device kernel time");
        return buf;
    }
    int t = says(k) != 0 ? 0 : 1; /* the trusted layer */
    const AbbaRow* tr = &a->rows[t];
    const char* tn = layer_name(a, t);
    const char* un = layer_name(a, 1 - t);
    if (tr->effect > 0) {
        snprintf(buf, n, "Trust %s: B is slower there by %.2f%%, a regression; %s can neither "
                 "confirm nor rule it out (take more steps or repeats)%s.", tn,
                 fabs(tr->effect_pct), un,
                 t == 1 ? "; the change lies outside the kernels' summed time (host, launches, "
                          "idle)" : "");
    } else {
        snprintf(buf, n, "Trust %s: B is faster there by %.2f%%; %s does not confirm it yet "
                 "(take more steps or repeats before claiming a gain in %s)%s.", tn,
                 fabs(tr->effect_pct), un, un,
                 t == 1 ? "; the change lies outside the kernels' summed time (host, launches, "
                          "idle)" : "");
    }
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
        Abba_finishRow(t);
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
        Abba_finishRow(st);
        a->decides = a->nrows - 1; /* 0 when no run has kernel times */
        a->disagree = has_kernels && says(&a->rows[0]) != says(st);
    }
    int head = a->nhead = a->nrows;
    /* matched by op: a row per op; the categories still sum the kernels (krows) */
    a->by_op = d->by_op;
    snprintf(a->matching, sizeof(a->matching), "%s", d->matching);
    Abba kr = {0};
    int kcap = 0;
    for (int pass = 0; pass < (d->by_op ? 2 : 1); pass++) {
        Abba* into = pass == 0 && d->by_op ? &kr : a;
        int* c = into == a ? &cap : &kcap;
        for (int k = 0; k < (pass == 1 ? d->nops : d->nrows); k++) {
            const DiffRow* dr = pass == 1 ? &d->ops[k] : &d->rows[k];
            AbbaRow* r = add(into, c, dr->name, pass == 1 ? "op" : "kernel");
            r->category = xstrdup(dr->category ? dr->category : "");
            r->a_name = dr->a_name ? xstrdup(dr->a_name) : NULL;
            r->b_name = dr->b_name ? xstrdup(dr->b_name) : NULL;
            r->v[0] = dr->va[0] / 1e6;
            r->v[3] = dr->va[1] / 1e6;
            r->v[1] = dr->vb[0] / 1e6;
            r->v[2] = dr->vb[1] / 1e6;
            Abba_finishRow(r);
        }
    }
    a->krows = kr.rows;
    a->nkrows = kr.nrows;
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

void Abba_delete(Abba* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->nrows + this->nkrows; i++) {
        AbbaRow* r = i < this->nrows ? &this->rows[i] : &this->krows[i - this->nrows];
        free(r->name);
        free(r->category);
        free(r->a_name);
        free(r->b_name);
    }
    free(this->rows);
    free(this->krows);
    if (!this->ev_borrowed) {
        AbbaEvidence_delete(this->ev);
    }
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

/* The same columns with every time in integer ns, as every --export writes times. */
static const RsColumn abba_cols_ns[B_NCOLS] = {
    {"name", "Name", CT_TEXT},         {"layer", "Layer", CT_TEXT},
    {"a1", "A1", CT_NS},               {"b1", "B1", CT_NS},
    {"b2", "B2", CT_NS},               {"a2", "A2", CT_NS},
    {"mean_a", "mean A", CT_NS},       {"mean_b", "mean B", CT_NS},
    {"effect", "Effect", CT_NS},       {"effect_pct", "Effect%", CT_PCT},
    {"drift", "Drift", CT_NS},         {"drift_pct", "Drift%", CT_PCT},
    {"repeats", "B2-B1", CT_NS},       {"repeats_pct", "B2-B1%", CT_PCT},
    {"noise", "Noise", CT_NS},
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
            if (isnan(v[c])) {
                continue;
            }
            if (rs->cols[B_A1 + c].type == CT_NS) {
                /* ms -> ns, to a thousandth of a ns so whole sums stay whole */
                ResultSet_setNs(rs, r, B_A1 + c, (double)llround(v[c] * 1e9) / 1e3);
            } else {
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

ResultSet* Abba_tableNs(const Abba* a) {
    ResultSet* rs = ResultSet_new("abba", abba_cols_ns, B_NCOLS);
    fill(rs, a->rows, a->nrows);
    rs->pinned = a->nhead;
    return rs;
}

static ResultSet* category_table(const Abba* a, int ns) {
    const AbbaRow* ks = a->krows ? a->krows : a->rows + a->nhead;
    int nk = a->krows ? a->nkrows : a->nrows - a->nhead;
    AbbaRow* c = xcalloc((size_t)(nk > 0 ? nk : 1), sizeof(AbbaRow));
    int n = 0;
    for (int i = 0; i < nk; i++) {
        const AbbaRow* k = &ks[i];
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
        Abba_finishRow(&c[j]);
    }
    if (n > 1) {
        qsort(c, (size_t)n, sizeof(AbbaRow), cmp_effect);
    }
    ResultSet* rs = ResultSet_new("abba_categories", ns ? abba_cols_ns : abba_cols, B_NCOLS);
    fill(rs, c, n);
    for (int j = 0; j < n; j++) {
        free(c[j].name);
    }
    free(c);
    return rs;
}

ResultSet* Abba_categoryTable(const Abba* a) {
    return category_table(a, 0);
}

ResultSet* Abba_categoryTableNs(const Abba* a) {
    return category_table(a, 1);
}
