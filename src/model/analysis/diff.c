/* diff.c - the comparison of two sides (diff.h): matching kernels, per-repeat totals, the
 * bootstrap, categories, the summary and the gate. */
#include "dcutop/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/amdahl.h"
#include "dcutop/filter.h"
#include "dcutop/intern.h"
#include "dcutop/shortname.h"
#include "dcutop/xalloc.h"

/* ---- statistics ---------------------------------------------------------------------- */

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static DiffStat stat_of(const double* v, int n) {
    DiffStat s = {0, 0, 0, 0, n};
    if (n == 0) {
        s.mean = s.median = s.min = s.max = NAN;
        return s;
    }
    double* t = xmalloc(sizeof(double) * (size_t)n);
    memcpy(t, v, sizeof(double) * (size_t)n);
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += t[i];
    }
    s.mean = sum / n;
    s.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    s.min = t[0];
    s.max = t[n - 1];
    free(t);
    return s;
}

/* splitmix64: a small generator with a fixed seed per row, so results never depend on the
 * order rows are computed in, and every run of dcutop prints the same intervals. */
static uint64_t next_rand(uint64_t* x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t seed_of(const char* key) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char* p = (const unsigned char*)key; *p; p++) {
        h = (h ^ *p) * 1099511628211ull;
    }
    return h ^ 0xD1FF5EEDull;
}

/* ---- matching ------------------------------------------------------------------------- */

/* What one side contributes to one row: kernels of one repeat that share the row's key. */
typedef struct Part_ {
    const DiffKernel* k[8]; /* short-name matching can merge several; more are summed only */
    int nk;
    double total, calls;
    int has_durs;           /* every merged kernel has per-dispatch durations */
} Part;

typedef struct Builder_ {
    DiffRow* rows;
    int n, cap;
    Intern* idx; /* key -> row + 1 */
    Part* pa; /* rows x na */
    Part* pb; /* rows x nb */
    int na, nb;
} Builder;

static const char* key_of(const DiffKernel* k, DiffMatch m) {
    return m == DIFF_MATCH_SHORT ? k->short_name : k->name;
}

static int find_row(const Builder* b, const char* key) {
    return (int)Intern_get(b->idx, key, strlen(key)) - 1;
}

static int add_row(Builder* b, const char* key, const DiffKernel* k) {
    if (b->n == b->cap) {
        int old = b->cap;
        b->cap = b->cap ? b->cap * 2 : 64;
        b->rows = xrealloc(b->rows, sizeof(DiffRow) * (size_t)b->cap);
        b->pa = xrealloc(b->pa, sizeof(Part) * (size_t)(b->cap * (b->na ? b->na : 1)));
        b->pb = xrealloc(b->pb, sizeof(Part) * (size_t)(b->cap * (b->nb ? b->nb : 1)));
        memset(b->pa + old * b->na, 0, sizeof(Part) * (size_t)((b->cap - old) * b->na));
        memset(b->pb + old * b->nb, 0, sizeof(Part) * (size_t)((b->cap - old) * b->nb));
    }
    DiffRow* r = &b->rows[b->n];
    memset(r, 0, sizeof(*r));
    r->name = xstrdup(key);
    Intern_put(b->idx, key, strlen(key), b->n + 1);
    r->category = xstrdup(k->category);
    r->is_gemm = k->is_gemm;
    return b->n++;
}

static void add_side(Builder* b, const DiffSide* s, int rep, int is_b, DiffMatch m, int ops) {
    const DiffKernel* ks = ops ? s->ops : s->k;
    int nk = ops ? s->nops : s->nk;
    for (int i = 0; i < nk; i++) {
        const DiffKernel* k = &ks[i];
        const char* key = key_of(k, m);
        int r = find_row(b, key);
        if (r < 0) {
            r = add_row(b, key, k);
        }
        Part* p = is_b ? &b->pb[r * b->nb + rep] : &b->pa[r * b->na + rep];
        if (p->nk == 0) {
            p->has_durs = 1;
        }
        if (p->nk < 8) {
            p->k[p->nk] = k;
        } else {
            p->has_durs = 0; /* too many merged to resample: no interval */
        }
        p->nk++;
        p->total += (double)k->total_ns;
        p->calls += (double)k->calls;
        p->has_durs &= k->durs != NULL;
        char** nm = is_b ? &b->rows[r].b_name : &b->rows[r].a_name;
        if (!*nm) {
            *nm = xstrdup(k->name);
        } else if (strcmp(*nm, k->name) != 0) {
            b->rows[r].fuzzy = 1; /* one side holds several full names for the short name */
        }
        DiffRow* row = &b->rows[r];
        if (k->op && !row->op) { /* the op, with the baseline's kernels (none when new) */
            row->op = DiffOp_copy(k->op);
            if (is_b) {
                free(row->op->kernels);
                row->op->kernels = NULL;
            }
        }
        if (k->op && is_b && !row->b_kernels) {
            row->b_kernels = xstrdup(k->op->kernels ? k->op->kernels : "");
        }
    }
}

/* ---- one row --------------------------------------------------------------------------- */

static void finish_values(DiffRow* r) {
    r->delta = r->after.mean - r->before.mean;
    r->delta_pct = r->before.mean > 0 ? 100.0 * r->delta / r->before.mean : NAN;
    r->ratio = r->before.mean > 0 ? r->after.mean / r->before.mean
                                  : (r->after.mean > 0 ? INFINITY : NAN);
}

/* The 95% percentile interval of boot[0..n). */
static void interval(const double* boot, int n, double* lo, double* hi) {
    double* t = xmalloc(sizeof(double) * (size_t)n);
    memcpy(t, boot, sizeof(double) * (size_t)n);
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    *lo = t[(int)floor(0.025 * (n - 1))];
    *hi = t[(int)ceil(0.975 * (n - 1))];
    free(t);
}

/* Noise from the row's per-repeat totals (va, vb) and replicates (boot), see diff.h. */
static void judge_noise(DiffRow* r, int na, int nb, int nboot) {
    if (r->boot && nboot > 1) {
        r->has_ci = 1;
        interval(r->boot, nboot, &r->ci_lo, &r->ci_hi);
    }
    if (na >= 2 && nb >= 2) {
        int overlap = r->before.min <= r->after.max && r->after.min <= r->before.max;
        r->noise = overlap ? DIFF_NOISE_WITHIN : DIFF_NOISE_OUTSIDE;
    } else if (r->has_ci) {
        r->noise = r->ci_lo <= 0 && r->ci_hi >= 0 ? DIFF_NOISE_WITHIN : DIFF_NOISE_OUTSIDE;
    } else {
        r->noise = DIFF_NOISE_UNKNOWN;
    }
    if (r->delta == 0 && r->noise == DIFF_NOISE_UNKNOWN) {
        r->noise = DIFF_NOISE_WITHIN; /* nothing changed: no noise needed to say so */
    }
}

/* Sum of the n draws (with replacement) from one side's dispatches of the row. */
static double resample(const Part* p, uint64_t* rng) {
    double sum = 0;
    for (int j = 0; j < p->nk && j < 8; j++) {
        const DiffKernel* k = p->k[j];
        for (int64_t i = 0; i < k->ndurs; i++) {
            sum += (double)k->durs[next_rand(rng) % (uint64_t)k->ndurs];
        }
    }
    return sum;
}

static void bootstrap_row(DiffRow* r, const Part* pa, int na, const Part* pb, int nb, int nboot,
                          const int* side_pd_a, const int* side_pd_b) {
    for (int i = 0; i < na; i++) { /* a repeat without the kernel counts when it is per-dispatch */
        if (pa[i].nk ? !pa[i].has_durs : !side_pd_a[i]) {
            return;
        }
    }
    for (int i = 0; i < nb; i++) {
        if (pb[i].nk ? !pb[i].has_durs : !side_pd_b[i]) {
            return;
        }
    }
    uint64_t rng = seed_of(r->name);
    r->boot = xmalloc(sizeof(double) * (size_t)nboot);
    for (int t = 0; t < nboot; t++) {
        double sa = 0, sb = 0;
        for (int i = 0; i < na; i++) {
            sa += resample(&pa[i], &rng);
        }
        for (int i = 0; i < nb; i++) {
            sb += resample(&pb[i], &rng);
        }
        r->boot[t] = sb / nb - sa / na;
    }
}

/* ---- groups of rows: categories, GEMM, total, a gated part ----------------------------- */

/* Fills g (name already set) from rows[i] where sel[i] is set (kernel or op rows of d). */
static void sum_rows_of(const Diff* d, const DiffRow* rows, int nrows, const unsigned char* sel,
                        DiffRow* g) {
    g->va = xcalloc((size_t)d->na, sizeof(double));
    g->vb = xcalloc((size_t)d->nb, sizeof(double));
    int all_boot = d->nboot > 0, any = 0;
    for (int i = 0; i < nrows; i++) {
        if (sel[i]) {
            any = 1;
            all_boot &= rows[i].boot != NULL;
        }
    }
    if (all_boot && any) {
        g->boot = xcalloc((size_t)d->nboot, sizeof(double));
    }
    int in_a = 0, in_b = 0;
    for (int i = 0; i < nrows; i++) {
        const DiffRow* r = &rows[i];
        if (!sel[i]) {
            continue;
        }
        for (int j = 0; j < d->na; j++) {
            g->va[j] += r->va[j];
        }
        for (int j = 0; j < d->nb; j++) {
            g->vb[j] += r->vb[j];
        }
        g->calls_before += r->calls_before;
        g->calls_after += r->calls_after;
        in_a |= r->presence != DIFF_NEW;
        in_b |= r->presence != DIFF_GONE;
        for (int t = 0; g->boot && t < d->nboot; t++) {
            g->boot[t] += r->boot[t];
        }
    }
    g->presence = in_a && in_b ? DIFF_BOTH : (in_b ? DIFF_NEW : DIFF_GONE);
    g->before = stat_of(g->va, d->na);
    g->after = stat_of(g->vb, d->nb);
    finish_values(g);
    judge_noise(g, d->na, d->nb, d->nboot);
}

static void sum_rows(const Diff* d, const unsigned char* sel, DiffRow* g) {
    sum_rows_of(d, d->rows, d->nrows, sel, g);
}

static void row_free(DiffRow* r) {
    DiffOp_delete(r->op);
    free(r->b_kernels);
    free(r->name);
    free(r->a_name);
    free(r->b_name);
    free(r->category);
    free(r->va);
    free(r->vb);
    free(r->boot);
}

static int cmp_abs_delta(const void* x, const void* y) {
    const DiffRow* a = x;
    const DiffRow* b = y;
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db) {
        return da < db ? 1 : -1;
    }
    double ta = fmax(a->before.mean, a->after.mean), tb = fmax(b->before.mean, b->after.mean);
    if (ta != tb) {
        return ta < tb ? 1 : -1;
    }
    return strcmp(a->name, b->name);
}

static void shares(DiffRow* rows, int n, double total_delta) {
    for (int i = 0; i < n; i++) {
        rows[i].share = total_delta != 0 ? 100.0 * rows[i].delta / total_delta : NAN;
    }
}

static void build_categories(Diff* d) {
    unsigned char* sel = xcalloc((size_t)d->nrows + 1, 1);
    int cap = 0;
    for (int i = 0; i < d->nrows; i++) {
        int found = 0;
        for (int c = 0; c < d->ncats; c++) {
            found |= strcmp(d->cats[c].name, d->rows[i].category) == 0;
        }
        if (found) {
            continue;
        }
        if (d->ncats == cap) {
            cap = cap ? cap * 2 : 16;
            d->cats = xrealloc(d->cats, sizeof(DiffRow) * (size_t)cap);
        }
        DiffRow* g = &d->cats[d->ncats++];
        memset(g, 0, sizeof(*g));
        g->name = xstrdup(d->rows[i].category);
        g->category = xstrdup(d->rows[i].category);
        g->is_gemm = d->rows[i].is_gemm;
        for (int j = 0; j < d->nrows; j++) {
            sel[j] = strcmp(d->rows[j].category, g->name) == 0;
        }
        sum_rows(d, sel, g);
    }
    for (int j = 0; j < d->nrows; j++) {
        sel[j] = (unsigned char)d->rows[j].is_gemm;
    }
    d->gemm.name = xstrdup("GEMM group");
    d->gemm.category = xstrdup("GEMM");
    sum_rows(d, sel, &d->gemm);
    memset(sel, 1, (size_t)d->nrows);
    d->total.name = xstrdup("device kernel time");
    d->total.category = xstrdup("");
    sum_rows(d, sel, &d->total);
    free(sel);
    if (d->ncats > 1) {
        qsort(d->cats, (size_t)d->ncats, sizeof(DiffRow), cmp_abs_delta);
    }
    shares(d->cats, d->ncats, d->total.delta);
    shares(d->rows, d->nrows, d->total.delta);
}

/* The largest category of one side, and the Amdahl ceilings that bound the program there. */
static void ceilings(Diff* d) {
    double tb = d->total.before.mean, ta = d->total.after.mean;
    double gb = tb > 0 ? d->gemm.before.mean / tb : 0, ga = ta > 0 ? d->gemm.after.mean / ta : 0;
    d->gemm_share_before = 100 * gb;
    d->gemm_share_after = 100 * ga;
    d->gemm_ceil_before = Amdahl_ceiling(gb);
    d->gemm_ceil_after = Amdahl_ceiling(ga);
    d->other_ceil_before = Amdahl_ceiling(tb > 0 ? 1 - gb : 0);
    d->other_ceil_after = Amdahl_ceiling(ta > 0 ? 1 - ga : 0);
    double mb = -1, ma = -1;
    for (int c = 0; c < d->ncats; c++) {
        const DiffRow* g = &d->cats[c];
        if (tb > 0 && g->before.mean / tb > mb) {
            mb = g->before.mean / tb;
            snprintf(d->top_before, sizeof(d->top_before), "%s", g->name);
        }
        if (ta > 0 && g->after.mean / ta > ma) {
            ma = g->after.mean / ta;
            snprintf(d->top_after, sizeof(d->top_after), "%s", g->name);
        }
    }
    d->top_share_before = mb > 0 ? 100 * mb : NAN;
    d->top_share_after = ma > 0 ? 100 * ma : NAN;
}

static void note(Diff* d, const char* text) {
    size_t l = strlen(d->notes);
    snprintf(d->notes + l, sizeof(d->notes) - l, "%s\n", text);
}

static const char* const side_name[2] = {"the baseline (A)", "the candidate (B)"};

/* What the two sides' layers allow to compare (PRODUCT.md 1: layers are never mixed). */
static void layer_notes(Diff* d, const DiffSide* const* a, int na, const DiffSide* const* b,
                        int nb) {
    int k[2] = {1, 1}, pd[2] = {1, 1}, st[2] = {1, 1}, anyst[2] = {0, 0}, pmc = 0;
    const DiffSide* const* sides[2] = {a, b};
    int n[2] = {na, nb};
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < n[s]; i++) {
            k[s] &= sides[s][i]->nk > 0;
            pd[s] &= sides[s][i]->per_dispatch;
            st[s] &= sides[s][i]->nsteps > 0;
            anyst[s] |= sides[s][i]->nsteps > 0;
            pmc |= sides[s][i]->pmc;
        }
    }
    char buf[400];
    if (!k[0] || !k[1]) {
        snprintf(buf, sizeof(buf), "no device kernel times in %s: kernel times cannot be compared",
                 !k[0] && !k[1] ? "either side" : side_name[k[0] ? 1 : 0]);
        note(d, buf);
    } else if (pd[0] != pd[1]) {
        snprintf(buf, sizeof(buf),
                 "%s has per-kernel statistics only, %s per-dispatch data: totals and calls "
                 "compare; per-dispatch noise, wall span and timelines cannot be compared",
                 side_name[pd[0] ? 1 : 0], side_name[pd[0] ? 0 : 1]);
        note(d, buf);
    } else if (!pd[0] && (na < 2 || nb < 2)) {
        note(d, "per-kernel statistics only and one run a side: noise cannot be judged "
                "(give repeats: --diff A1,A2 B1,B2)");
    }
    if (anyst[0] != anyst[1] || (anyst[0] && (!st[0] || !st[1]))) {
        snprintf(buf, sizeof(buf), "step times only in %s: plain timing cannot be compared",
                 anyst[0] != anyst[1] ? side_name[anyst[0] ? 0 : 1] : "some runs");
        note(d, buf);
    }
    if (pmc) {
        note(d, "kernel times from a PMC (counter) run: instrumented timings distort the "
                "comparison");
    }
}

static DiffStat side_stat(const DiffSide* const* s, int n, int steps) {
    double v[64];
    int m = 0;
    for (int i = 0; i < n && m < 64; i++) {
        double x = steps ? DiffSide_stepMs(s[i]) : (double)s[i]->wall_ns;
        if (steps ? !isnan(x) : s[i]->wall_ns > 0) {
            v[m++] = x;
        }
    }
    return stat_of(v, m == n ? m : 0); /* a side with a run lacking it: not comparable */
}

/* The median of n draws (with replacement) from v[0..n), in t (scratch of n). */
static double resampled_median(const double* v, int n, double* t, uint64_t* rng) {
    for (int i = 0; i < n; i++) {
        t[i] = v[next_rand(rng) % (uint64_t)n];
    }
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Noise on the step time, judged as a kernel row's is: with two or more runs a side, the
 * ranges of the runs' medians; else a percentile bootstrap of the difference of the medians,
 * resampling each run's steps (at least DIFF_MIN_STEPS a run); else it cannot be judged. */
static void steps_noise(Diff* d, const DiffSide* const* a, int na, const DiffSide* const* b,
                        int nb) {
    d->steps_noise = DIFF_NOISE_UNKNOWN;
    if (!d->steps_before.n || !d->steps_after.n) {
        return;
    }
    if (d->steps_before.mean == d->steps_after.mean) {
        d->steps_noise = DIFF_NOISE_WITHIN; /* nothing changed: no noise needed to say so */
        return;
    }
    if (na >= 2 && nb >= 2) {
        int overlap = d->steps_before.min <= d->steps_after.max &&
                      d->steps_after.min <= d->steps_before.max;
        d->steps_noise = overlap ? DIFF_NOISE_WITHIN : DIFF_NOISE_OUTSIDE;
        return;
    }
    int most = 0;
    for (int i = 0; i < na + nb; i++) {
        const DiffSide* s = i < na ? a[i] : b[i - na];
        if (s->nsteps < DIFF_MIN_STEPS) {
            return;
        }
        most = s->nsteps > most ? s->nsteps : most;
    }
    double* t = xmalloc(sizeof(double) * (size_t)most);
    double* boot = xmalloc(sizeof(double) * DIFF_BOOT_MAX);
    uint64_t rng = seed_of("step time (median)");
    for (int r = 0; r < DIFF_BOOT_MAX; r++) {
        double sa = 0, sb = 0;
        for (int i = 0; i < na; i++) {
            sa += resampled_median(a[i]->steps_ms, a[i]->nsteps, t, &rng);
        }
        for (int i = 0; i < nb; i++) {
            sb += resampled_median(b[i]->steps_ms, b[i]->nsteps, t, &rng);
        }
        boot[r] = sb / nb - sa / na;
    }
    interval(boot, DIFF_BOOT_MAX, &d->steps_ci_lo, &d->steps_ci_hi);
    d->steps_has_ci = 1;
    d->steps_noise = d->steps_ci_lo <= 0 && d->steps_ci_hi >= 0 ? DIFF_NOISE_WITHIN
                                                                 : DIFF_NOISE_OUTSIDE;
    free(t);
    free(boot);
}

/* Every kernel of every run, both sides together, to the shortener: names that look alike
 * across the sides get the words that tell them apart (see ShortName_registerAcross). */
static void names_across(const DiffSide* const* a, int na, const DiffSide* const* b, int nb) {
    int n = 0;
    for (int i = 0; i < na; i++) {
        n += a[i]->nk;
    }
    for (int i = 0; i < nb; i++) {
        n += b[i]->nk;
    }
    const char** names = xmalloc(sizeof(char*) * (size_t)(n ? n : 1));
    int m = 0;
    for (int side = 0; side < 2; side++) {
        const DiffSide* const* s = side ? b : a;
        for (int i = 0; i < (side ? nb : na); i++) {
            for (int k = 0; k < s[i]->nk; k++) {
                names[m++] = s[i]->k[k].name;
            }
        }
    }
    ShortName_registerAcross(names, m);
    free(names);
}

/* The rows of one matching: kernels (by m) or, with ops, the runs' ops by identity. */
static void build_rows(Diff* d, const DiffSide* const* a, int na, const DiffSide* const* b,
                       int nb, DiffMatch m, int ops, DiffRow** rows, int* nrows, int* gone,
                       int* fresh) {
    Builder bl = {NULL, 0, 0, Intern_new(), NULL, NULL, na, nb};
    for (int i = 0; i < na; i++) {
        add_side(&bl, a[i], i, 0, m, ops);
    }
    for (int i = 0; i < nb; i++) {
        add_side(&bl, b[i], i, 1, m, ops);
    }
    int spa[64], spb[64];
    for (int i = 0; i < na; i++) {
        spa[i] = a[i]->per_dispatch;
    }
    for (int i = 0; i < nb; i++) {
        spb[i] = b[i]->per_dispatch;
    }
    for (int r = 0; r < bl.n; r++) {
        DiffRow* row = &bl.rows[r];
        const Part* pa = &bl.pa[r * na];
        const Part* pb = &bl.pb[r * nb];
        row->va = xcalloc((size_t)na, sizeof(double));
        row->vb = xcalloc((size_t)nb, sizeof(double));
        int in_a = 0, in_b = 0;
        for (int i = 0; i < na; i++) {
            row->va[i] = pa[i].total;
            row->calls_before += pa[i].calls / na;
            in_a |= pa[i].nk > 0;
        }
        for (int i = 0; i < nb; i++) {
            row->vb[i] = pb[i].total;
            row->calls_after += pb[i].calls / nb;
            in_b |= pb[i].nk > 0;
        }
        row->presence = in_a && in_b ? DIFF_BOTH : (in_b ? DIFF_NEW : DIFF_GONE);
        if (m == DIFF_MATCH_SHORT && row->a_name && row->b_name &&
            strcmp(row->a_name, row->b_name) != 0) {
            row->fuzzy = 1;
        }
        if (m == DIFF_MATCH_FULL) {
            row->fuzzy = 0;
        }
        row->before = stat_of(row->va, na);
        row->after = stat_of(row->vb, nb);
        finish_values(row);
        bootstrap_row(row, pa, na, pb, nb, d->nboot, spa, spb);
        judge_noise(row, na, nb, d->nboot);
        *gone += row->presence == DIFF_GONE;
        *fresh += row->presence == DIFF_NEW;
    }
    free(bl.pa);
    free(bl.pb);
    Intern_delete(bl.idx);
    if (bl.n > 1) { /* rows is NULL with none (steps only): qsort must not see it */
        qsort(bl.rows, (size_t)bl.n, sizeof(DiffRow), cmp_abs_delta);
    }
    *rows = bl.rows;
    *nrows = bl.n;
}

/* Whether every run carries op identity; else the first run that does not (its side in *s). */
static const DiffSide* without_ops(const DiffSide* const* a, int na, const DiffSide* const* b,
                                   int nb, int* s) {
    for (int i = 0; i < na + nb; i++) {
        const DiffSide* x = i < na ? a[i] : b[i - na];
        if (x->nops == 0) {
            *s = i < na ? 0 : 1;
            return x;
        }
    }
    return NULL;
}

static double linked_pct(const DiffSide* const* s, int n) {
    double l = 0, t = 0;
    for (int i = 0; i < n; i++) {
        l += (double)s[i]->op_linked_ns;
        t += (double)s[i]->kernel_ns;
    }
    return t > 0 ? 100 * l / t : 0;
}

/* Which matching is used, in words (Diff.matching). */
static void say_matching(Diff* d, DiffMatch m, const DiffSide* const* a, int na,
                         const DiffSide* const* b, int nb) {
    int side = 0;
    const DiffSide* lack = without_ops(a, na, b, nb, &side);
    if (d->by_op) {
        snprintf(d->matching, sizeof(d->matching),
                 "by op identity (module path, op, input shapes, occurrence in the step; a "
                 "backward kernel by its forward op), from %s on A and %s on B; kernel time "
                 "with an op: A %.1f%%, B %.1f%% (the rest matched by kernel name)",
                 a[0]->op_source, b[0]->op_source, linked_pct(a, na), linked_pct(b, nb));
    } else if (m == DIFF_MATCH_SHORT) {
        snprintf(d->matching, sizeof(d->matching), "by kernel short name (--match short)");
    } else if (m == DIFF_MATCH_FULL) {
        snprintf(d->matching, sizeof(d->matching), "by full kernel name (--match full)");
    } else {
        snprintf(d->matching, sizeof(d->matching),
                 "by full kernel name: no op identity in %s (%s: no PyTorch op links, "
                 "no op-named marker ranges, no kernel under a marker range or stack frame)",
                 side ? "the candidate (B)" : "the baseline (A)", lack ? lack->label : "?");
    }
}

/* The op rows summed by a part of their identity: the module path (by_name 0) or the op name
 * with its pass (by_name 1: "aten::mul (backward)"; no op: "(no op) (other)"), into *out. */
static void group_ops(Diff* d, int by_name, DiffRow** out, int* nout) {
    unsigned char* sel = xcalloc((size_t)d->nops + 1, 1);
    char** keys = xcalloc((size_t)d->nops + 1, sizeof(char*));
    for (int i = 0; i < d->nops; i++) {
        const DiffOp* o = d->ops[i].op;
        char buf[1024];
        if (by_name) {
            snprintf(buf, sizeof(buf), "%s (%s)", o && *o->op ? o->op : "(no op)",
                     o ? o->pass : "other");
        } else {
            snprintf(buf, sizeof(buf), "%s", o ? o->module : "");
        }
        keys[i] = xstrdup(buf);
    }
    int cap = 0;
    for (int i = 0; i < d->nops; i++) {
        int found = 0;
        for (int c = 0; c < *nout && !found; c++) {
            found = strcmp((*out)[c].name, keys[i]) == 0;
        }
        if (found) {
            continue;
        }
        if (*nout == cap) {
            cap = cap ? cap * 2 : 32;
            *out = xrealloc(*out, sizeof(DiffRow) * (size_t)cap);
        }
        DiffRow* g = &(*out)[(*nout)++];
        memset(g, 0, sizeof(*g));
        g->name = xstrdup(keys[i]);
        g->category = xstrdup("");
        for (int j = 0; j < d->nops; j++) {
            sel[j] = strcmp(keys[j], keys[i]) == 0;
        }
        sum_rows_of(d, d->ops, d->nops, sel, g);
    }
    for (int i = 0; i < d->nops; i++) {
        free(keys[i]);
    }
    free(keys);
    free(sel);
    if (*nout > 1) {
        qsort(*out, (size_t)*nout, sizeof(DiffRow), cmp_abs_delta);
    }
    shares(*out, *nout, d->total.delta);
}

static void build_modules(Diff* d) {
    group_ops(d, 0, &d->mods, &d->nmods);
    group_ops(d, 1, &d->names, &d->nnames);
    shares(d->ops, d->nops, d->total.delta);
}

DcuStatus Diff_compute(const DiffSide* const* a, int na, const DiffSide* const* b, int nb,
                       DiffMatch match, Diff** out, DcuError* err) {
    *out = NULL;
    if (na < 1 || nb < 1 || na > 64 || nb > 64) {
        return Error_set(err, DCU_ERR_USAGE, "a comparison needs 1 to 64 runs a side");
    }
    names_across(a, na, b, nb);
    Diff* d = xcalloc(1, sizeof(*d));
    int side = 0;
    d->by_op = match == DIFF_MATCH_OP && !without_ops(a, na, b, nb, &side);
    d->match = match == DIFF_MATCH_SHORT ? DIFF_MATCH_SHORT : DIFF_MATCH_FULL;
    d->na = na;
    d->nb = nb;
    int64_t ndisp = 0;
    for (int i = 0; i < na; i++) {
        ndisp += a[i]->dispatches;
    }
    for (int i = 0; i < nb; i++) {
        ndisp += b[i]->dispatches;
    }
    /* about 4e7 draws at most: a second or two on a large trace */
    d->nboot = ndisp > 0 && (double)ndisp * DIFF_BOOT_MAX > 4e7 ? (int)(4e7 / (double)ndisp)
                                                                : DIFF_BOOT_MAX;
    if (d->nboot < 50) {
        d->nboot = 50;
    }
    build_rows(d, a, na, b, nb, d->match, 0, &d->rows, &d->nrows, &d->unmatched_a,
               &d->unmatched_b);
    if (d->by_op) {
        build_rows(d, a, na, b, nb, DIFF_MATCH_FULL, 1, &d->ops, &d->nops, &d->ops_gone,
                   &d->ops_new);
    }
    int any_boot = 0;
    for (int r = 0; r < d->nrows; r++) {
        any_boot |= d->rows[r].boot != NULL;
    }
    if (!any_boot) {
        d->nboot = 0;
    }
    build_categories(d);
    if (d->by_op) {
        build_modules(d);
    }
    say_matching(d, match, a, na, b, nb);
    ceilings(d);
    d->wall_before = side_stat(a, na, 0);
    d->wall_after = side_stat(b, nb, 0);
    d->steps_before = side_stat(a, na, 1);
    d->steps_after = side_stat(b, nb, 1);
    steps_noise(d, a, na, b, nb);
    layer_notes(d, a, na, b, nb);
    (void)err;
    *out = d;
    return DCU_OK;
}

void Diff_delete(Diff* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->nrows; i++) {
        row_free(&this->rows[i]);
    }
    for (int i = 0; i < this->ncats; i++) {
        row_free(&this->cats[i]);
    }
    for (int i = 0; i < this->nops; i++) {
        row_free(&this->ops[i]);
    }
    for (int i = 0; i < this->nmods; i++) {
        row_free(&this->mods[i]);
    }
    for (int i = 0; i < this->nnames; i++) {
        row_free(&this->names[i]);
    }
    free(this->names);
    free(this->ops);
    free(this->mods);
    row_free(&this->total);
    row_free(&this->gemm);
    free(this->rows);
    free(this->cats);
    free(this);
}

const char* Diff_noiseName(DiffNoise n) {
    return n == DIFF_NOISE_WITHIN ? "within" : (n == DIFF_NOISE_OUTSIDE ? "outside" : "unknown");
}

const char* Diff_presenceName(DiffPresence p) {
    return p == DIFF_NEW ? "new" : (p == DIFF_GONE ? "gone" : "both");
}

/* ---- a gated part ----------------------------------------------------------------------- */

int Diff_partRow(const Diff* d, const char* part, DiffRow* g, char* label, size_t cap,
                 DcuError* err) {
    memset(g, 0, sizeof(*g));
    unsigned char* sel = xcalloc((size_t)d->nrows + 1, 1);
    int is_cat = 0;
    for (int c = 0; c < d->ncats; c++) {
        is_cat |= strcmp(d->cats[c].name, part) == 0;
    }
    Filter* f = NULL;
    if (!is_cat && Filter_new(part, &f, err) != DCU_OK) {
        free(sel);
        return -1;
    }
    for (int i = 0; i < d->nrows; i++) {
        const char* n = d->rows[i].name;
        sel[i] = is_cat ? strcmp(d->rows[i].category, part) == 0
                        : Filter_matches(f, n, strlen(n));
    }
    Filter_delete(f);
    sum_rows(d, sel, g);
    free(sel);
    snprintf(label, cap, "%s '%s'", is_cat ? "category" : "kernels matching", part);
    return 0;
}

void Diff_partDone(DiffRow* g) {
    free(g->va);
    free(g->vb);
    free(g->boot);
}

DiffOp* DiffOp_copy(const DiffOp* o) {
    DiffOp* c = xcalloc(1, sizeof(*c));
    c->module = xstrdup(o->module ? o->module : "");
    c->op = xstrdup(o->op ? o->op : "");
    c->shapes = xstrdup(o->shapes ? o->shapes : "");
    c->pass = xstrdup(o->pass ? o->pass : "");
    c->occurrence = o->occurrence;
    c->kernels = o->kernels ? xstrdup(o->kernels) : NULL;
    return c;
}

