/* test_amdahl.c - Amdahl bounds and --what-if parsing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dcutop/amdahl.h"

static void ceiling_of_published_case(void** state) {
    (void)state;
    /* PRODUCT.md 1: GEMM 21.94% -> optimizing GEMM alone is worth at most 1.28x */
    assert_float_equal(Amdahl_ceiling(0.2194), 1.0 / (1.0 - 0.2194), 1e-12);
    assert_float_equal(Amdahl_ceiling(0.2194), 1.281066, 1e-6);
    assert_float_equal(Amdahl_ceiling(0.0), 1.0, 0);
    assert_true(isinf(Amdahl_ceiling(1.0)));
    assert_float_equal(Amdahl_ceiling(-0.5), 1.0, 0); /* clamped */
}

static void speedup_with_factor(void** state) {
    (void)state;
    assert_float_equal(Amdahl_speedup(0.5, 2.0), 1.0 / (0.5 + 0.25), 1e-12);
    assert_float_equal(Amdahl_speedup(0.3235, 1.0), 1.0, 1e-12);
    assert_float_equal(Amdahl_speedup(0.2194, INFINITY), Amdahl_ceiling(0.2194), 1e-12);
    /* never more than the ceiling, whatever k */
    for (double k = 1; k < 1e6; k *= 3) {
        assert_true(Amdahl_speedup(0.4, k) <= Amdahl_ceiling(0.4) + 1e-12);
    }
}

static void combined_parts(void** state) {
    (void)state;
    double p[] = {0.2194, 0.3235};
    double k[] = {2, 4};
    assert_float_equal(Amdahl_combined(p, k, 2), 1.0 / ((1 - 0.2194 - 0.3235) + 0.2194 / 2 + 0.3235 / 4),
                       1e-12);
    double all[] = {0.6, 0.4};
    double inf[] = {INFINITY, INFINITY};
    assert_true(isinf(Amdahl_combined(all, inf, 2)));
    assert_float_equal(Amdahl_combined(NULL, NULL, 0), 1.0, 0);
}

static void parse_what_if(void** state) {
    (void)state;
    WhatIf w[8];
    int n;
    DcuError err;
    assert_int_equal(WhatIf_parse("gemm=2,copy=4,softmax=inf", w, 8, &n, &err), DCU_OK);
    assert_int_equal(n, 3);
    assert_string_equal(w[0].name, "gemm");
    assert_float_equal(w[0].k, 2, 0);
    assert_float_equal(w[1].k, 4, 0);
    assert_true(isinf(w[2].k));
    assert_int_equal(WhatIf_parse("gemm", w, 8, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("gemm=0", w, 8, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("gemm=-2", w, 8, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("gemm=x", w, 8, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("gemm=2,gemm=3", w, 8, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("a=1,b=1,c=1", w, 2, &n, &err), DCU_ERR_USAGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ceiling_of_published_case),
        cmocka_unit_test(speedup_with_factor),
        cmocka_unit_test(combined_parts),
        cmocka_unit_test(parse_what_if),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
