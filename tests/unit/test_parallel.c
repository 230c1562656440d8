/* test_parallel.c - Parallel_for covers [0, n) once, in contiguous parts in order, with
 * one part or many, and Parallel_parts keeps to the thread count and the least part size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dcutop/parallel.h"
#include "dcutop/xalloc.h"

typedef struct {
    int* hits;    /* per item: how many parts covered it */
    int64_t* lo;  /* per part: its range, to check the cut */
    int64_t* hi;
    int64_t* sum; /* per part: the sum of its items (the merge) */
} Ctx;

static void part_fn(void* ctx, int part, int64_t lo, int64_t hi) {
    Ctx* c = ctx;
    c->lo[part] = lo;
    c->hi[part] = hi;
    for (int64_t i = lo; i < hi; i++) {
        c->hits[i]++; /* parts never share an item: no race */
        c->sum[part] += i;
    }
}

static void check(int64_t n, int parts) {
    Ctx c = {xcalloc((size_t)n + 1, sizeof(int)), xcalloc((size_t)parts, sizeof(int64_t)),
             xcalloc((size_t)parts, sizeof(int64_t)), xcalloc((size_t)parts, sizeof(int64_t))};
    Parallel_for(n, parts, part_fn, &c);
    for (int64_t i = 0; i < n; i++) {
        assert_int_equal(c.hits[i], 1);
    }
    int used = parts <= 1 || n <= 1 ? 1 : parts > n ? (int)n : parts;
    int64_t total = 0, at = 0;
    for (int p = 0; p < used; p++) {
        assert_int_equal(c.lo[p], at); /* contiguous and in part order */
        assert_true(c.hi[p] >= c.lo[p]);
        assert_true(c.hi[p] - c.lo[p] <= n / used + 1);
        at = c.hi[p];
        total += c.sum[p];
    }
    assert_int_equal(at, n);
    assert_int_equal(total, n * (n - 1) / 2);
    free(c.hits);
    free(c.lo);
    free(c.hi);
    free(c.sum);
}

static void test_cover(void** state) {
    (void)state;
    int64_t ns[] = {0, 1, 2, 3, 7, 100, 1001, 65537};
    int ps[] = {1, 2, 3, 4, 8, 16};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
            check(ns[i], ps[j]);
        }
    }
}

static void test_parts(void** state) {
    (void)state;
    Parallel_setThreads(4);
    assert_int_equal(Parallel_threads(), 4);
    assert_int_equal(Parallel_parts(0, 1000), 1);
    assert_int_equal(Parallel_parts(999, 1000), 1);
    assert_int_equal(Parallel_parts(2500, 1000), 2);
    assert_int_equal(Parallel_parts(1000000, 1000), 4);
    Parallel_setThreads(1);
    assert_int_equal(Parallel_parts(1000000, 1000), 1);
    Parallel_setThreads(0); /* back to the CPUs */
    assert_true(Parallel_threads() >= 1);
}

static void test_range(void** state) {
    (void)state;
    int64_t lo, hi, at = 0;
    for (int p = 0; p < 7; p++) { /* 10 in 7 parts: 2, 2, 2, 1, 1, 1, 1 */
        Parallel_range(10, 7, p, &lo, &hi);
        assert_int_equal(lo, at);
        assert_int_equal(hi - lo, p < 3 ? 2 : 1);
        at = hi;
    }
    assert_int_equal(at, 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cover),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
