/* test_abba_evidence.c - the A-B-B-A's evidence beside time (abba_evidence.h) judged on
 * hand-made facts: the tolerance rule either way, a metric without tolerance against its own
 * noise, a metric missing from a run, the clock rule (a run's own p10..p90 spread, the 1%
 * floor), differing device names, and memory with a noise of exactly 0. Each expectation is
 * worked out next to the facts that produce it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/abba_evidence.h"
#include "dcutop/xalloc.h"

/* Four empty runs (nothing known), A1 B1 B2 A2. */
static void blank(AbbaRunFacts f[4]) {
    memset(f, 0, sizeof(AbbaRunFacts) * 4);
    for (int i = 0; i < 4; i++) {
        f[i].peak_alloc = f[i].peak_reserved = f[i].clock_mhz = f[i].clock_max = NAN;
    }
}

/* One metric in every run: values v, tolerance tol (NAN none), better. */
static void metric(AbbaRunFacts f[4], const char* name, const double v[4], double tol,
                   int better) {
    for (int i = 0; i < 4; i++) {
        if (isnan(v[i])) {
            continue;
        }
        f[i].metrics = xrealloc(f[i].metrics, sizeof(AbbaMetricVal) * (size_t)(f[i].nmetrics + 1));
        AbbaMetricVal* m = &f[i].metrics[f[i].nmetrics++];
        m->name = xstrdup(name);
        m->value = v[i];
        m->tolerance = tol;
        m->better = better;
    }
}

static void test_tolerance_either_way(void** state) {
    (void)state;
    AbbaRunFacts f[4];
    blank(f);
    /* loss 8.022506 in A, 8.022427 in B: effect -7.9e-5, beyond 1e-5 although lower is
     * better: rejected */
    metric(f, "loss", (const double[]){8.022506, 8.022427, 8.022427, 8.022506}, 1e-5, -1);
    AbbaEvidence* e = AbbaEvidence_judge(f);
    assert_int_equal(e->nmetrics, 1);
    assert_int_equal(e->metrics[0].state, METRIC_REJECT);
    assert_true(fabs(e->metrics[0].effect + 7.9e-5) < 1e-12);
    assert_int_equal(e->rejected, 1);
    assert_non_null(strstr(e->reject, "metric loss changed by -7.9e-05"));
    assert_non_null(strstr(e->reject, "the better way"));
    assert_int_equal(e->env_differs, 0);
    AbbaEvidence_delete(e);
}

static void test_within_tolerance_and_noise(void** state) {
    (void)state;
    AbbaRunFacts f[4];
    blank(f);
    /* acc: A 0.90 0.92 (drift 0.02), B 0.905 0.915: effect 0, within tolerance 0.01 */
    metric(f, "acc", (const double[]){0.90, 0.905, 0.915, 0.92}, 0.01, 1);
    /* x without tolerance: A 1.0 1.2 (noise 0.2), B 1.25 1.35: effect +0.2, not beyond 0.2 */
    metric(f, "x", (const double[]){1.0, 1.25, 1.35, 1.2}, NAN, 0);
    /* y without tolerance: A 5 5, B 6 6: effect +1 beyond its noise 0, a warning */
    metric(f, "y", (const double[]){5, 6, 6, 5}, NAN, 0);
    /* z only in A1 and B1: missing */
    metric(f, "z", (const double[]){1, 2, NAN, NAN}, 0.5, 0);
    AbbaEvidence* e = AbbaEvidence_judge(f);
    assert_int_equal(e->nmetrics, 4);
    assert_int_equal(e->metrics[0].state, METRIC_WITHIN_TOL);
    assert_int_equal(e->metrics[1].state, METRIC_WITHIN_NOISE);
    assert_int_equal(e->metrics[2].state, METRIC_BEYOND_NOISE);
    assert_int_equal(e->metrics[3].state, METRIC_MISSING);
    assert_int_equal(e->rejected, 0);
    assert_int_equal(e->metric_warn, 1);
    assert_non_null(strstr(e->warn, "metric y changed by +1"));
    assert_non_null(strstr(e->notes, "metric z is not in every run"));
    AbbaEvidence_delete(e);
}

static void test_exactly_the_tolerance(void** state) {
    (void)state;
    AbbaRunFacts f[4];
    blank(f);
    /* 1.01 - 1.0 is 0.010000000000000009 in doubles: a change of exactly the tolerance 0.01
     * is within it; 1.0101 is beyond */
    metric(f, "m", (const double[]){1.0, 1.01, 1.01, 1.0}, 0.01, 0);
    metric(f, "n", (const double[]){1.0, 1.0101, 1.0101, 1.0}, 0.01, 0);
    AbbaEvidence* e = AbbaEvidence_judge(f);
    assert_int_equal(e->metrics[0].state, METRIC_WITHIN_TOL);
    assert_int_equal(e->metrics[1].state, METRIC_REJECT);
    AbbaEvidence_delete(e);
}

static void test_better_way_without_tolerance_is_no_warning(void** state) {
    (void)state;
    AbbaRunFacts f[4];
    blank(f);
    /* higher is better and B is higher beyond its noise 0: reported, not a warning */
    metric(f, "acc", (const double[]){0.9, 0.95, 0.95, 0.9}, NAN, 1);
    AbbaEvidence* e = AbbaEvidence_judge(f);
    assert_int_equal(e->metrics[0].state, METRIC_BEYOND_NOISE);
    assert_int_equal(e->metric_warn, 0);
    AbbaEvidence_delete(e);
}

static void set_clock(AbbaRunFacts* f, double median, double p10, double p90) {
    f->clock_mhz = median;
    f->clock_p10 = p10;
    f->clock_p90 = p90;
    f->clock_n = 10;
    f->clock_in_span = 1;
}

static void test_clocks(void** state) {
    (void)state;
    AbbaRunFacts f[4];
    /* B2 at 1500 against 1980: 480 MHz apart, the runs steady (spread 0), floor 19.8 MHz */
    blank(f);
    set_clock(&f[0], 1980, 1980, 1980);
    set_clock(&f[1], 1980, 1980, 1980);
    set_clock(&f[2], 1500, 1500, 1500);
    set_clock(&f[3], 1980, 1980, 1980);
    AbbaEvidence* e = AbbaEvidence_judge(f);
    assert_int_equal(e->env_differs, 1);
    assert_non_null(strstr(e->env, "B2 1500"));
    assert_non_null(strstr(e->env, "480 MHz apart, beyond the runs' own clock noise 20 MHz"));
    AbbaEvidence_delete(e);
    /* 1965 against 1980: 15 MHz, under the 1% floor (19.8 MHz): the same */
    blank(f);
    set_clock(&f[0], 1980, 1980, 1980);
    set_clock(&f[1], 1965, 1965, 1980);
    set_clock(&f[2], 1980, 1980, 1980);
    set_clock(&f[3], 1980, 1980, 1980);
    e = AbbaEvidence_judge(f);
    assert_int_equal(e->env_differs, 0);
    AbbaEvidence_delete(e);
    /* 1700 against 1980 but one run's own samples span 1500..1980: within its noise */
    blank(f);
    set_clock(&f[0], 1980, 1500, 1980);
    set_clock(&f[1], 1700, 1600, 1980);
    set_clock(&f[2], 1980, 1900, 1980);
    set_clock(&f[3], 1980, 1980, 1980);
    e = AbbaEvidence_judge(f);
    assert_int_equal(e->env_differs, 0);
    AbbaEvidence_delete(e);
    /* one run without a log: not compared, a note */
    blank(f);
    set_clock(&f[0], 1980, 1980, 1980);
    set_clock(&f[1], 1980, 1980, 1980);
    set_clock(&f[3], 1980, 1980, 1980);
    e = AbbaEvidence_judge(f);
    assert_int_equal(e->env_differs, 0);
    assert_non_null(strstr(e->notes, "the SM clock (no device log) unknown for B2"));
    AbbaEvidence_delete(e);
}

static void test_device_and_memory(void** state) {
    (void)state;
    AbbaRunFacts f[4];
    blank(f);
    const double alloc[4] = {866446336, 858057728, 858057728, 866446336};
    for (int i = 0; i < 4; i++) {
        f[i].device = xstrdup(i == 2 ? "NVIDIA H200" : "NVIDIA H100 80GB HBM3");
        f[i].software = xstrdup("cuda_driver_version 13000");
        f[i].peak_alloc = alloc[i];
        f[i].mem_source = "memory events";
    }
    AbbaEvidence* e = AbbaEvidence_judge(f);
    assert_int_equal(e->env_differs, 1);
    assert_string_equal(e->env, "the device differs: A1 B1 A2 'NVIDIA H100 80GB HBM3'; "
                                "B2 'NVIDIA H200'");
    /* peak allocated only (reserved unknown): effect -8 MiB, noise exactly 0, trusted */
    assert_int_equal(e->nmem, 1);
    assert_true(e->mem[0].effect == -8388608.0);
    assert_true(e->mem[0].noise == 0);
    assert_int_equal(e->mem[0].trusted, 1);
    assert_int_equal(e->mem[0].no_noise, 0);
    AbbaEvidence_delete(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tolerance_either_way),
        cmocka_unit_test(test_within_tolerance_and_noise),
        cmocka_unit_test(test_exactly_the_tolerance),
        cmocka_unit_test(test_better_way_without_tolerance_is_no_warning),
        cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_device_and_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
