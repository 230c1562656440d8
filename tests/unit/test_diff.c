/* test_diff.c - the comparison model (diff.h) on hand-built runs with known changes, the
 * A-B-B-A verdict, DiffSide_fromDb over a loaded trace with step times, and the Diff screen's
 * summary view. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/canvas.h"
#include "dcutop/diff.h"
#include "dcutop/diff_view.h"
#include "dcutop/shortname.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

/* cmocka's assert_float_equal compares floats; these figures are doubles and checked exactly. */
#define assert_double_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* A run with kernels given as name, category, is_gemm, n dispatches of base + (7 i mod 50)
 * ns times scale; per_dispatch 0 keeps statistics only. */
typedef struct KSpec_ {
    const char* name;
    const char* cat;
    int gemm;
    int n;
    double base, scale;
} KSpec;

static DiffSide* side(const char* label, const KSpec* ks, int nk, int per_dispatch) {
    DiffSide* s = xcalloc(1, sizeof(*s));
    s->label = xstrdup(label);
    s->k = xcalloc((size_t)nk, sizeof(DiffKernel));
    s->nk = nk;
    for (int i = 0; i < nk; i++) {
        DiffKernel* k = &s->k[i];
        k->name = xstrdup(ks[i].name);
        /* the short name: the text before '(' */
        k->short_name = xstrndup(ks[i].name, strcspn(ks[i].name, "("));
        k->category = xstrdup(ks[i].cat);
        k->is_gemm = ks[i].gemm;
        k->calls = ks[i].n;
        if (per_dispatch) {
            k->durs = xmalloc(sizeof(int64_t) * (size_t)ks[i].n);
            k->ndurs = ks[i].n;
        }
        for (int j = 0; j < ks[i].n; j++) {
            int64_t d = llround((ks[i].base + (7 * j) % 50) * ks[i].scale);
            if (per_dispatch) {
                k->durs[j] = d;
            }
            k->total_ns += d;
        }
        s->kernel_ns += k->total_ns;
        s->dispatches += k->calls;
        s->gemm_ns += k->is_gemm ? k->total_ns : 0;
    }
    s->per_dispatch = per_dispatch;
    return s;
}

static const KSpec base_k[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 1},
                               {"add_k(float*)", "elementwise", 0, 40, 500, 1}};
static const KSpec slow_k[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 2},
                               {"add_k(float*)", "elementwise", 0, 40, 500, 1}};

static int64_t sum_base(double base, int n, double scale) {
    int64_t t = 0;
    for (int j = 0; j < n; j++) {
        t += llround((base + (7 * j) % 50) * scale);
    }
    return t;
}

static Diff* compare(DiffSide* a, DiffSide* b, DiffMatch m) {
    const DiffSide* as[1] = {a};
    const DiffSide* bs[1] = {b};
    Diff* d = NULL;
    DcuError err;
    assert_int_equal(Diff_compute(as, 1, bs, 1, m, &d, &err), DCU_OK);
    return d;
}

static const DiffRow* row(const Diff* d, const char* name) {
    for (int i = 0; i < d->nrows; i++) {
        if (strcmp(d->rows[i].name, name) == 0) {
            return &d->rows[i];
        }
    }
    fail_msg("no row %s", name);
    return NULL;
}

static void self_is_zero(void** state) {
    (void)state;
    DiffSide* a = side("A", base_k, 2, 1);
    Diff* d = compare(a, a, DIFF_MATCH_FULL);
    for (int i = 0; i < d->nrows; i++) {
        assert_double_near(d->rows[i].delta, 0, 0);
        assert_int_equal(d->rows[i].presence, DIFF_BOTH);
        assert_int_equal(d->rows[i].noise, DIFF_NOISE_WITHIN);
    }
    assert_double_near(d->total.delta, 0, 0);
    assert_true(isnan(d->rows[0].share)); /* no total delta to share */
    char why[256];
    DcuError err;
    assert_int_equal(Diff_gate(d, 0, NULL, why, sizeof(why), &err), 0);
    assert_string_equal(why, "gate passed: device kernel time +0.00% (limit +0%), within noise");
    Diff_delete(d);
    DiffSide_delete(a);
}

static void one_kernel_twice_slower(void** state) {
    (void)state;
    DiffSide* a = side("A", base_k, 2, 1);
    DiffSide* b = side("B", slow_k, 2, 1);
    Diff* d = compare(a, b, DIFF_MATCH_FULL);
    int64_t g = sum_base(1000, 40, 1);
    const DiffRow* r = row(d, "gemm_k(float*)");
    assert_string_equal(d->rows[0].name, "gemm_k(float*)"); /* largest |delta| first */
    assert_double_near(r->delta, (double)g, 0);
    assert_double_near(r->ratio, 2, 1e-12);
    assert_double_near(r->delta_pct, 100, 1e-9);
    assert_double_near(r->share, 100, 1e-9);
    assert_int_equal(r->noise, DIFF_NOISE_OUTSIDE);
    assert_true(r->has_ci && r->ci_lo > 0);
    assert_double_near(row(d, "add_k(float*)")->delta, 0, 0);
    assert_double_near(d->total.delta, (double)g, 0);
    /* the GEMM group and shares */
    double tb = (double)(g + sum_base(500, 40, 1));
    assert_double_near(d->gemm_share_before, 100.0 * (double)g / tb, 1e-9);
    assert_double_near(d->gemm_ceil_before, 1 / (1 - (double)g / tb), 1e-9);
    char why[256];
    DcuError err;
    assert_int_equal(Diff_gate(d, 10, NULL, why, sizeof(why), &err), 1);
    assert_non_null(strstr(why, "gate FAILED: device kernel time +"));
    assert_int_equal(Diff_gate(d, 10, "elementwise", why, sizeof(why), &err), 0);
    assert_non_null(strstr(why, "category 'elementwise' +0.00%"));
    assert_int_equal(Diff_gate(d, 10, "^gemm_", why, sizeof(why), &err), 1);
    assert_int_equal(Diff_gate(d, 10, "([", why, sizeof(why), &err), -1);
    /* the baseline against the faster candidate passes */
    Diff* back = compare(b, a, DIFF_MATCH_FULL);
    assert_int_equal(Diff_gate(back, 10, NULL, why, sizeof(why), &err), 0);
    Diff_delete(back);
    Diff_delete(d);
    DiffSide_delete(a);
    DiffSide_delete(b);
}

static void new_and_gone(void** state) {
    (void)state;
    static const KSpec ng[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 1},
                               {"new_k(int)", "other", 0, 10, 300, 1}};
    DiffSide* a = side("A", base_k, 2, 1);
    DiffSide* b = side("B", ng, 2, 1);
    Diff* d = compare(a, b, DIFF_MATCH_FULL);
    assert_int_equal(row(d, "add_k(float*)")->presence, DIFF_GONE);
    assert_int_equal(row(d, "new_k(int)")->presence, DIFF_NEW);
    assert_true(isinf(row(d, "new_k(int)")->ratio));
    assert_double_near(row(d, "add_k(float*)")->ratio, 0, 0);
    assert_double_near(row(d, "new_k(int)")->calls_before, 0, 0);
    assert_double_near(row(d, "new_k(int)")->calls_after, 10, 0);
    assert_int_equal(d->unmatched_a, 1);
    assert_int_equal(d->unmatched_b, 1);
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Diff_kernelTable(d, "new_", &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 1);
    assert_string_equal(ResultSet_cellc(rs, 0, ResultSet_columnIndex(rs, "status"))->s, "new");
    ResultSet_delete(rs);
    Diff_delete(d);
    DiffSide_delete(a);
    DiffSide_delete(b);
}

static void short_name_match_is_fuzzy(void** state) {
    (void)state;
    static const KSpec reb[] = {{"gemm_k(double*)", "gemm", 1, 40, 1000, 1},
                                {"add_k(float*)", "elementwise", 0, 40, 500, 1}};
    DiffSide* a = side("A", base_k, 2, 1);
    DiffSide* b = side("B", reb, 2, 1);
    Diff* full = compare(a, b, DIFF_MATCH_FULL);
    assert_int_equal(full->nrows, 3);
    Diff* d = compare(a, b, DIFF_MATCH_SHORT);
    assert_int_equal(d->nrows, 2);
    assert_int_equal(row(d, "gemm_k")->fuzzy, 1);
    assert_string_equal(row(d, "gemm_k")->b_name, "gemm_k(double*)");
    assert_int_equal(row(d, "add_k")->fuzzy, 0);
    assert_double_near(row(d, "gemm_k")->delta, 0, 0);
    Diff_delete(full);
    Diff_delete(d);
    DiffSide_delete(a);
    DiffSide_delete(b);
}

static void repeats_and_stats_only(void** state) {
    (void)state;
    static const KSpec a2k[] = {{"gemm_k(float*)", "gemm", 1, 40, 1010, 1},
                                {"add_k(float*)", "elementwise", 0, 40, 500, 1}};
    DiffSide* a1 = side("A1", base_k, 2, 0);
    DiffSide* a2 = side("A2", a2k, 2, 0);
    DiffSide* b1 = side("B1", slow_k, 2, 0);
    DiffSide* b2 = side("B2", base_k, 2, 0);
    const DiffSide* as[2] = {a1, a2};
    const DiffSide* bs[2] = {b1, b2};
    Diff* d = NULL;
    DcuError err;
    assert_int_equal(Diff_compute(as, 2, bs, 2, DIFF_MATCH_FULL, &d, &err), DCU_OK);
    const DiffRow* g = row(d, "gemm_k(float*)");
    double v1 = (double)sum_base(1000, 40, 1), v2 = (double)sum_base(1010, 40, 1);
    assert_double_near(g->before.mean, (v1 + v2) / 2, 1e-9);
    assert_double_near(g->before.min, v1, 0);
    assert_double_near(g->before.max, v2, 0);
    assert_double_near(g->after.median, (v1 + (double)sum_base(1000, 40, 2)) / 2, 1e-9);
    /* B's range (base..2x) overlaps A's: within run-to-run noise */
    assert_int_equal(g->noise, DIFF_NOISE_WITHIN);
    assert_false(g->has_ci); /* statistics only: no bootstrap */
    Diff_delete(d);
    /* one run a side, statistics only: noise cannot be judged, the gate counts it as real */
    Diff* one = compare(a1, b1, DIFF_MATCH_FULL);
    assert_int_equal(row(one, "gemm_k(float*)")->noise, DIFF_NOISE_UNKNOWN);
    assert_non_null(strstr(one->notes, "noise cannot be judged"));
    char why[256];
    assert_int_equal(Diff_gate(one, 10, NULL, why, sizeof(why), &err), 1);
    assert_non_null(strstr(why, "noise cannot be judged: counted as a real change"));
    Diff_delete(one);
    /* statistics against per-dispatch data: a note on what compares */
    DiffSide* pd = side("P", base_k, 2, 1);
    Diff* mixed = compare(a1, pd, DIFF_MATCH_FULL);
    assert_non_null(strstr(mixed->notes, "the baseline (A) has per-kernel statistics only, the "
                                         "candidate (B) per-dispatch data"));
    assert_double_near(mixed->total.delta, 0, 0);
    Diff_delete(mixed);
    DiffSide_delete(pd);
    DiffSide_delete(a1);
    DiffSide_delete(a2);
    DiffSide_delete(b1);
    DiffSide_delete(b2);
}

static void bootstrap_is_deterministic(void** state) {
    (void)state;
    DiffSide* a = side("A", base_k, 2, 1);
    DiffSide* b = side("B", slow_k, 2, 1);
    Diff* d1 = compare(a, b, DIFF_MATCH_FULL);
    Diff* d2 = compare(a, b, DIFF_MATCH_FULL);
    for (int i = 0; i < d1->nrows; i++) {
        assert_double_near(d1->rows[i].ci_lo, d2->rows[i].ci_lo, 0);
        assert_double_near(d1->rows[i].ci_hi, d2->rows[i].ci_hi, 0);
    }
    assert_double_near(d1->total.ci_lo, d2->total.ci_lo, 0);
    Diff_delete(d1);
    Diff_delete(d2);
    DiffSide_delete(a);
    DiffSide_delete(b);
}

static void abba_drift(void** state) {
    (void)state;
    static const KSpec fast[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 0.9},
                                 {"add_k(float*)", "elementwise", 0, 40, 500, 1}};
    static const KSpec drifted[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 1.3},
                                    {"add_k(float*)", "elementwise", 0, 40, 500, 1.3}};
    DiffSide* a1 = side("A1", base_k, 2, 1);
    DiffSide* b = side("B", fast, 2, 1);
    DiffSide* a2 = side("A2", drifted, 2, 1);
    a1->steps_ms = xmalloc(3 * sizeof(double));
    a1->steps_ms[0] = 5;
    a1->steps_ms[1] = 3;
    a1->steps_ms[2] = 4; /* median 4 */
    a1->nsteps = 3;
    const DiffSide* const runs[4] = {a1, b, b, a2};
    Abba* ab = NULL;
    DcuError err;
    assert_int_equal(Abba_compute(runs, DIFF_MATCH_FULL, &ab, &err), DCU_OK);
    assert_false(ab->has_steps); /* only A1 has steps */
    assert_non_null(strstr(ab->notes, "step times missing"));
    const AbbaRow* t = &ab->rows[0];
    double va1 = (double)a1->kernel_ns / 1e6, vb = (double)b->kernel_ns / 1e6,
           va2 = (double)a2->kernel_ns / 1e6;
    assert_true(fabs(t->effect - (vb - (va1 + va2) / 2)) < 1e-12);
    assert_true(fabs(t->drift - (va2 - va1)) < 1e-12);
    assert_int_equal(t->trusted, fabs(vb - (va1 + va2) / 2) > fabs(va2 - va1));
    assert_false(t->trusted); /* the injected 30% drift is larger than the 10% gemm effect */
    ResultSet* rs = Abba_table(ab);
    assert_string_equal(ResultSet_cellc(rs, 0, ResultSet_columnIndex(rs, "verdict"))->s,
                        "untrusted");
    ResultSet_delete(rs);
    Abba_delete(ab);
    /* the same runs given twice: drift and repeats exactly 0, no noise measured, never
     * trusted however large the effect */
    const DiffSide* const calm[4] = {a1, b, b, a1};
    assert_int_equal(Abba_compute(calm, DIFF_MATCH_FULL, &ab, &err), DCU_OK);
    assert_false(ab->rows[0].trusted);
    assert_true(ab->rows[0].no_noise);
    assert_double_near(ab->rows[0].drift, 0, 0);
    assert_int_equal(Abba_result(ab), ABBA_UNTRUSTED);
    Abba_delete(ab);
    /* without drift but with repeats that measure a little noise, the effect is trusted */
    static const KSpec b2k[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 0.901},
                                {"add_k(float*)", "elementwise", 0, 40, 500, 1}};
    DiffSide* b2 = side("B2", b2k, 2, 1);
    const DiffSide* const quiet[4] = {a1, b, b2, a1};
    assert_int_equal(Abba_compute(quiet, DIFF_MATCH_FULL, &ab, &err), DCU_OK);
    assert_true(ab->rows[0].trusted);
    assert_false(ab->rows[0].no_noise);
    Abba_delete(ab);
    DiffSide_delete(b2);
    DiffSide_delete(a1);
    DiffSide_delete(b);
    DiffSide_delete(a2);
}

static void side_from_db(void** state) {
    (void)state;
    char* dir = TestUtil_tempDir();
    const char csv[] =
        "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"pid\",\"tid\",\"BeginNs\",\"EndNs\","
        "\"DurationNs\"\n"
        "0,\"Cijk_Alik_Bljk_SB_MT64x64x8\",0,0,1,1,1000,1400,400\n"
        "1,\"Cijk_Alik_Bljk_SB_MT64x64x8\",0,0,1,1,1500,2100,600\n"
        "2,\"add_kernel\",0,0,1,1,2200,2300,100\n";
    const char steps[] = "step_ms\n2.5\n1.5\n9.0\n";
    free(TestUtil_writeFile(dir, "results.csv", csv, sizeof(csv) - 1));
    free(TestUtil_writeFile(dir, "steps.csv", steps, sizeof(steps) - 1));
    DcuStatus st;
    TraceDb* db = TestUtil_load(dir, &st);
    assert_int_equal(st, DCU_OK);
    DiffSide* s = NULL;
    DcuError err;
    assert_int_equal(DiffSide_fromDb(db, "run", &s, &err), DCU_OK);
    assert_int_equal(s->nk, 2);
    assert_int_equal(s->kernel_ns, 1100);
    assert_int_equal(s->gemm_ns, 1000);
    assert_int_equal(s->dispatches, 3);
    assert_int_equal(s->wall_ns, 2300 - 1000);
    assert_true(s->per_dispatch);
    assert_int_equal(s->k[0].ndurs, 2); /* Cijk... sorts first */
    assert_int_equal(s->k[0].durs[0] + s->k[0].durs[1], 1000);
    assert_int_equal(s->nsteps, 3);
    assert_double_near(DiffSide_stepMs(s), 2.5, 0);
    DiffSide_delete(s);
    TraceDb_delete(db);
    TestUtil_rmTree(dir);
    free(dir);
}

static int canvas_has(const Canvas* c, const char* text) {
    char* dump = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&dump, &len);
    Canvas_dump(c, f);
    fclose(f);
    int found = strstr(dump, text) != NULL;
    if (!found) {
        printf("%s\n", dump);
    }
    free(dump);
    return found;
}

static void summary_view(void** state) {
    (void)state;
    DiffSide* a = side("A", base_k, 2, 1);
    DiffSide* b = side("B", slow_k, 2, 1);
    Diff* d = compare(a, b, DIFF_MATCH_FULL);
    Canvas* c = Canvas_new(100, 10);
    int n = DiffView_summary(d, c, 0, 10);
    assert_int_equal(n, 5); /* kernel time, wall span, GEMM share, unmatched, matching */
    char line[200];
    snprintf(line, sizeof(line), "Kernel time 61.9 us -> 102.9 us  delta 41.0 us (%+.2f%%)",
             100.0 * (double)sum_base(1000, 40, 1) / (double)(sum_base(1000, 40, 1) +
                                                              sum_base(500, 40, 1)));
    assert_true(canvas_has(c, line));
    assert_true(canvas_has(c, "outside noise"));
    assert_true(canvas_has(c, "Unmatched   0 gone, 0 new"));
    assert_true(canvas_has(c, "Matched     by full kernel name (--match full)"));
    Canvas_delete(c);
    Diff_delete(d);
    DiffSide_delete(a);
    DiffSide_delete(b);
}

/* Kernels that differ by one word, each alone on its side: each side's own keys do not tell
 * them apart; once compared, every fit of their names does (issue 21). */
static void names_across_sides(void** state) {
    (void)state;
    static const KSpec ka[] = {
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT", "gemm", 1, 10, 2000, 1},
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNN", "gemm", 1, 10, 1000, 1}};
    static const KSpec kb[] = {
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_gelubias_TNT", "gemm", 1, 10, 2300, 1},
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNN", "gemm", 1, 10, 1000, 1}};
    ShortName_forget();
    /* each side registered alone, as its own database's ShortName_assignAll does */
    const char* na[] = {ka[0].name, ka[1].name};
    const char* nb[] = {kb[0].name, kb[1].name};
    ShortName_registerAcross(na, 2);
    ShortName_registerAcross(nb, 2);
    DiffSide* a = side("A", ka, 2, 1);
    DiffSide* b = side("B", kb, 2, 1);
    const DiffSide* const as[1] = {a};
    const DiffSide* const bs[1] = {b};
    Diff* d = NULL;
    DcuError err;
    assert_int_equal(Diff_compute(as, 1, bs, 1, DIFF_MATCH_FULL, &d, &err), DCU_OK);
    for (int w = 16; w <= 40; w += 4) {
        char fa[128], fb[128];
        ShortName_fit(ka[0].name, NULL, w, fa, sizeof(fa));
        ShortName_fit(kb[0].name, NULL, w, fb, sizeof(fb));
        assert_string_not_equal(fa, fb);
        assert_non_null(strstr(fb, "gelu"));
    }
    Diff_delete(d);
    DiffSide_delete(a);
    DiffSide_delete(b);
    ShortName_forget();
}

/* v on an A-B-B-A: each category's kernels summed per run, judged as a layer is. */
static void abba_categories(void** state) {
    (void)state;
    static const KSpec slow[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 1.5},
                                 {"add_k(float*)", "elementwise", 0, 40, 500, 1}};
    static const KSpec slow2[] = {{"gemm_k(float*)", "gemm", 1, 40, 1000, 1.501},
                                  {"add_k(float*)", "elementwise", 0, 40, 500, 1}};
    DiffSide* a = side("A", base_k, 2, 1);
    DiffSide* b = side("B", slow, 2, 1);
    DiffSide* b2 = side("B2", slow2, 2, 1); /* a second run of B: its repeats measure noise */
    const DiffSide* const runs[4] = {a, b, b2, a};
    Abba* ab = NULL;
    DcuError err;
    assert_int_equal(Abba_compute(runs, DIFF_MATCH_FULL, &ab, &err), DCU_OK);
    ResultSet* rs = Abba_categoryTable(ab);
    assert_int_equal(rs->nrows, 2);
    int cn = ResultSet_columnIndex(rs, "name"), ce = ResultSet_columnIndex(rs, "effect");
    assert_string_equal(ResultSet_cellc(rs, 0, cn)->s, "gemm"); /* largest |effect| first */
    assert_double_near(ResultSet_cellc(rs, 0, ce)->d,
                       ((double)(b->k[0].total_ns + b2->k[0].total_ns) / 2 -
                        (double)a->k[0].total_ns) / 1e6, 1e-12);
    assert_string_equal(ResultSet_cellc(rs, 0, ResultSet_columnIndex(rs, "verdict"))->s,
                        "trusted");
    assert_string_equal(ResultSet_cellc(rs, 1, cn)->s, "elementwise");
    assert_string_equal(ResultSet_cellc(rs, 1, ResultSet_columnIndex(rs, "verdict"))->s,
                        "untrusted"); /* no change: not beyond its noise (0) */
    ResultSet_delete(rs);
    /* the kernel rows keep each side's full name: Enter opens the right detail */
    for (int i = ab->nhead; i < ab->nrows; i++) {
        assert_non_null(ab->rows[i].a_name);
        assert_non_null(ab->rows[i].b_name);
    }
    Abba_delete(ab);
    DiffSide_delete(a);
    DiffSide_delete(b);
    DiffSide_delete(b2);
}

/* Each kernel of s as one op of its own: module, op name and pass given per kernel, the
 * kernel's time and dispatches (as diff_ops.c would build them). */
static void ops_of_kernels(DiffSide* s, const char* const* modules, const char* const* ops,
                           const char* const* passes) {
    s->ops = xcalloc((size_t)s->nk, sizeof(DiffKernel));
    s->nops = s->nk;
    s->op_source = "PyTorch op links";
    for (int i = 0; i < s->nk; i++) {
        const DiffKernel* k = &s->k[i];
        DiffKernel* o = &s->ops[i];
        char name[256];
        snprintf(name, sizeof(name), "%s %s %s[[16,512]] #0",
                 strcmp(passes[i], "backward") == 0 ? "backward" : "forward", modules[i], ops[i]);
        o->name = xstrdup(name);
        o->short_name = xstrdup(name);
        o->category = xstrdup(k->category);
        o->is_gemm = k->is_gemm;
        o->calls = 1;
        o->total_ns = k->total_ns;
        o->ndurs = k->ndurs;
        o->durs = xmalloc(sizeof(int64_t) * (size_t)(k->ndurs ? k->ndurs : 1));
        memcpy(o->durs, k->durs, sizeof(int64_t) * (size_t)k->ndurs);
        o->op = xcalloc(1, sizeof(DiffOp));
        o->op->module = xstrdup(modules[i]);
        o->op->op = xstrdup(ops[i]);
        o->op->shapes = xstrdup("[[16,512]]");
        o->op->pass = xstrdup(passes[i]);
        char kn[300];
        snprintf(kn, sizeof(kn), "%s x%lld", k->short_name, (long long)k->calls);
        o->op->kernels = xstrdup(kn);
        s->op_linked_ns += k->total_ns;
    }
}

/* bf16 on one GPU against fp32 on another: no kernel name in common, every op matched; the
 * op rows, per name and per module, add up to the whole difference. */
static void matched_by_op(void** state) {
    (void)state;
    static const KSpec ka[] = {{"nvjet_sm90_tst(float*)", "gemm", 1, 40, 1000, 1},
                               {"nvjet_sm90_bwd(float*)", "gemm", 1, 40, 2000, 1},
                               {"add_bf16(float*)", "elementwise", 0, 40, 500, 1}};
    static const KSpec kb[] = {{"Cijk_Ailk_Bljk_S(float*)", "gemm", 1, 40, 1000, 2},
                               {"Cijk_Ailk_Bljk_T(float*)", "gemm", 1, 40, 2000, 2},
                               {"add_f32(float*)", "elementwise", 0, 40, 500, 1}};
    static const char* const mods[] = {"M_0/Linear_1", "M_0/Linear_1", "M_0"};
    static const char* const ops[] = {"aten::linear", "aten::linear", "aten::add"};
    static const char* const passes[] = {"forward", "backward", "forward"};
    DiffSide* a = side("A", ka, 3, 1);
    DiffSide* b = side("B", kb, 3, 1);
    ops_of_kernels(a, mods, ops, passes);
    ops_of_kernels(b, mods, ops, passes);
    Diff* d = compare(a, b, DIFF_MATCH_OP);
    assert_true(d->by_op);
    assert_int_equal(d->nops, 3);
    assert_int_equal(d->ops_gone + d->ops_new, 0);
    assert_int_equal(d->unmatched_a, 3); /* by kernel name nothing matches */
    assert_string_equal(d->ops[0].name, "backward M_0/Linear_1 aten::linear[[16,512]] #0");
    assert_double_near(d->ops[0].delta, (double)sum_base(2000, 40, 2) - sum_base(2000, 40, 1),
                       0);
    assert_string_equal(d->ops[0].op->kernels, "nvjet_sm90_bwd x40");
    assert_string_equal(d->ops[0].b_kernels, "Cijk_Ailk_Bljk_T x40");
    double sum = 0, mods_sum = 0, names_sum = 0;
    for (int i = 0; i < d->nops; i++) {
        sum += d->ops[i].delta;
    }
    for (int i = 0; i < d->nmods; i++) {
        mods_sum += d->mods[i].delta;
    }
    for (int i = 0; i < d->nnames; i++) {
        names_sum += d->names[i].delta;
    }
    assert_double_near(sum, d->total.delta, 0);
    assert_double_near(mods_sum, d->total.delta, 0);
    assert_double_near(names_sum, d->total.delta, 0);
    assert_int_equal(d->nmods, 2);
    assert_string_equal(d->mods[0].name, "M_0/Linear_1");
    assert_int_equal(d->nnames, 3); /* aten::linear forward, backward; aten::add forward */
    assert_string_equal(d->names[0].name, "aten::linear (backward)");
    assert_true(strncmp(d->matching, "by op identity", 14) == 0);
    Diff_delete(d);
    /* asked for kernel names: no op rows, and said so */
    d = compare(a, b, DIFF_MATCH_FULL);
    assert_false(d->by_op);
    assert_int_equal(d->nops, 0);
    assert_string_equal(d->matching, "by full kernel name (--match full)");
    Diff_delete(d);
    /* one side without op identity: kernel names, naming that side */
    DiffSide* c = side("C", kb, 3, 1);
    d = compare(a, c, DIFF_MATCH_OP);
    assert_false(d->by_op);
    assert_true(strstr(d->matching, "no op identity in the candidate (B) (C:") != NULL);
    Diff_delete(d);
    /* an A-B-B-A matched by op: op rows after the layer, categories from the kernels */
    const DiffSide* const runs[4] = {a, b, b, a};
    Abba* ab = NULL;
    DcuError err;
    assert_int_equal(Abba_compute(runs, DIFF_MATCH_OP, &ab, &err), DCU_OK);
    assert_true(ab->by_op);
    assert_string_equal(ab->rows[ab->nhead].layer, "op");
    assert_int_equal(ab->nrows - ab->nhead, 3);
    assert_int_equal(ab->nkrows, 6);
    ResultSet* cats = Abba_categoryTable(ab);
    assert_int_equal(cats->nrows, 2);
    ResultSet_delete(cats);
    Abba_delete(ab);
    DiffSide_delete(a);
    DiffSide_delete(b);
    DiffSide_delete(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_is_zero),
        cmocka_unit_test(one_kernel_twice_slower),
        cmocka_unit_test(new_and_gone),
        cmocka_unit_test(short_name_match_is_fuzzy),
        cmocka_unit_test(repeats_and_stats_only),
        cmocka_unit_test(bootstrap_is_deterministic),
        cmocka_unit_test(abba_drift),
        cmocka_unit_test(names_across_sides),
        cmocka_unit_test(abba_categories),
        cmocka_unit_test(side_from_db),
        cmocka_unit_test(summary_view),
        cmocka_unit_test(matched_by_op),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
