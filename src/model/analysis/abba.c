/* abba.c - the A-B-B-A verdict (diff.h): four runs in the order they ran, A1 B1 B2 A2.
 * effect = mean(B1, B2) - mean(A1, A2); drift = A2 - A1. A drift as large as the effect means
 * the machine changed while the runs were taken, so the effect cannot be trusted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/diff.h"
#include "dcutop/xalloc.h"

static void finish(AbbaRow* r) {
    r->mean_a = (r->v[0] + r->v[3]) / 2;
    r->mean_b = (r->v[1] + r->v[2]) / 2;
    r->effect = r->mean_b - r->mean_a;
    r->drift = r->v[3] - r->v[0];
    r->effect_pct = r->mean_a > 0 ? 100 * r->effect / r->mean_a : NAN;
    r->drift_pct = r->v[0] > 0 ? 100 * r->drift / r->v[0] : NAN;
    r->trusted = fabs(r->effect) > fabs(r->drift);
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
    }
    int head = a->nhead = a->nrows;
    for (int k = 0; k < d->nrows; k++) {
        const DiffRow* dr = &d->rows[k];
        AbbaRow* r = add(a, &cap, dr->name, "kernel");
        r->v[0] = dr->va[0] / 1e6;
        r->v[3] = dr->va[1] / 1e6;
        r->v[1] = dr->vb[0] / 1e6;
        r->v[2] = dr->vb[1] / 1e6;
        finish(r);
    }
    qsort(a->rows + head, (size_t)(a->nrows - head), sizeof(AbbaRow), cmp_effect);
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
    for (int i = 0; i < this->nrows; i++) {
        free(this->rows[i].name);
    }
    free(this->rows);
    free(this);
}

enum { B_NAME, B_LAYER, B_A1, B_B1, B_B2, B_A2, B_MA, B_MB, B_EFF, B_EFFP, B_DRIFT, B_DRIFTP,
       B_VERDICT, B_NCOLS };
static const RsColumn abba_cols[B_NCOLS] = {
    {"name", "Name", CT_TEXT},          {"layer", "Layer", CT_TEXT},
    {"a1", "A1 ms", CT_REAL},           {"b1", "B1 ms", CT_REAL},
    {"b2", "B2 ms", CT_REAL},           {"a2", "A2 ms", CT_REAL},
    {"mean_a", "mean A ms", CT_REAL},   {"mean_b", "mean B ms", CT_REAL},
    {"effect", "Effect ms", CT_REAL},   {"effect_pct", "Effect%", CT_PCT},
    {"drift", "Drift ms", CT_REAL},     {"drift_pct", "Drift%", CT_PCT},
    {"verdict", "Verdict", CT_TEXT},
};

ResultSet* Abba_table(const Abba* a) {
    ResultSet* rs = ResultSet_new("abba", abba_cols, B_NCOLS);
    for (int i = 0; i < a->nrows; i++) {
        const AbbaRow* x = &a->rows[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, B_NAME, x->name);
        ResultSet_setText(rs, r, B_LAYER, x->layer);
        double v[] = {x->v[0], x->v[1], x->v[2], x->v[3], x->mean_a, x->mean_b, x->effect,
                      x->effect_pct, x->drift, x->drift_pct};
        for (int c = 0; c < 10; c++) {
            if (!isnan(v[c])) {
                ResultSet_setReal(rs, r, B_A1 + c, v[c]);
            }
        }
        ResultSet_setText(rs, r, B_VERDICT, x->trusted ? "trusted" : "untrusted");
    }
    rs->pinned = a->has_steps ? 2 : 1;
    return rs;
}
