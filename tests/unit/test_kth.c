/* test_kth.c - Kth_select gives the k-th order statistic of a sort, at any part count, for
 * spread, skewed, repeated and extreme values, and leaves its input as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dcutop/kth.h"
#include "dcutop/parallel.h"
#include "dcutop/xalloc.h"

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

static uint64_t rnd(uint64_t* s) { /* xorshift: the same values on every run */
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* kind 0: spread; 1: skewed (most values in a few ns, a long tail); 2: few distinct;
 * 3: the int64 extremes among them. */
static void fill(int64_t* v, int64_t n, int kind, uint64_t seed) {
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rnd(&seed);
        v[i] = kind == 0   ? (int64_t)(r % 1000000007) - 500000000
               : kind == 1 ? (r % 100 ? (int64_t)(r % 4000) : (int64_t)(r % 80000000))
               : kind == 2 ? (int64_t)(r % 3)
                           : (r % 5 == 0 ? INT64_MIN : r % 5 == 1 ? INT64_MAX : (int64_t)r);
    }
}

static void check(int64_t n, int kind, int threads) {
    int64_t* v = xmalloc((size_t)n * sizeof(int64_t));
    int64_t* s = xmalloc((size_t)n * sizeof(int64_t));
    fill(v, n, kind, 88172645463325252ull + (uint64_t)n);
    memcpy(s, v, (size_t)n * sizeof(int64_t));
    qsort(s, (size_t)n, sizeof(int64_t), cmp_i64);
    Parallel_setThreads(threads);
    int64_t ks[] = {0, n / 2, n / 2 - 1 >= 0 ? n / 2 - 1 : 0, n - 1, n / 7};
    for (size_t q = 0; q < sizeof(ks) / sizeof(ks[0]); q++) {
        int64_t* before = xmalloc((size_t)n * sizeof(int64_t));
        memcpy(before, v, (size_t)n * sizeof(int64_t));
        assert_true(Kth_select(v, n, ks[q]) == s[ks[q]]);
        assert_memory_equal(before, v, (size_t)n * sizeof(int64_t));
        free(before);
    }
    Parallel_setThreads(0);
    free(v);
    free(s);
}

static void test_kth(void** state) {
    (void)state;
    int64_t sizes[] = {1, 2, 255, 256, 257, 5000, 300000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (int kind = 0; kind < 4; kind++) {
            check(sizes[i], kind, 1);
            check(sizes[i], kind, 3);
            check(sizes[i], kind, 8);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
