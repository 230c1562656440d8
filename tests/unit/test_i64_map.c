/* test_i64_map.c - I64Map answers as a plain list of (key, value) pairs would, whether its
 * keys stay dense (held as an array) or spread (hashed): ascending, descending, strided,
 * random and scattered keys, keys at both ends of int64, overwrites and missing keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"

/* A reference map: keys in an array, looked up by scanning from the latest (slow, plain). */
typedef struct {
    int64_t *k, *v;
    size_t n;
} Ref;

static int64_t ref_get(const Ref* r, int64_t key) {
    for (size_t i = r->n; i-- > 0;) {
        if (r->k[i] == key) {
            return r->v[i];
        }
    }
    return 0;
}

/* Distinct keys (values are never 0). */
static size_t ref_count(const Ref* r) {
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t j = 0;
        while (r->k[j] != r->k[i]) {
            j++;
        }
        n += j == i;
    }
    return n;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The i-th key of shape s around base (unsigned sums: keys may wrap past int64's ends). */
static int64_t key_of(int s, uint64_t base, uint64_t i, uint64_t n) {
    switch (s) {
    case 0: return (int64_t)(base + i);
    case 1: return (int64_t)(base - i);
    case 2: return (int64_t)(base + i * 7);
    case 3: return (int64_t)(base + next() % (3 * n + 1));
    case 4: return (int64_t)next();
    case 5: return (int64_t)(i % 2 ? base + i : base - i * 1000);
    default: return (int64_t)(i < n / 2 ? base + i : base + 1000000000ull + i);
    }
}

static void check_shape(int s, uint64_t base, size_t n) {
    I64Map* m = I64Map_new();
    Ref r = {xcalloc(n, sizeof(int64_t)), xcalloc(n, sizeof(int64_t)), 0};
    for (size_t i = 0; i < n; i++) {
        int64_t k = i % 10 == 9 ? r.k[next() % r.n] : key_of(s, base, i, n); /* overwrites */
        int64_t v = (int64_t)(1 + next() % 1000);
        I64Map_put(m, k, v);
        r.k[r.n] = k;
        r.v[r.n++] = v;
    }
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(I64Map_get(m, r.k[i]), ref_get(&r, r.k[i]));
        int64_t near = (int64_t)((uint64_t)r.k[i] + next() % 64 - 32);
        assert_int_equal(I64Map_get(m, near), ref_get(&r, near));
    }
    assert_int_equal(I64Map_get(m, (int64_t)next()), 0);
    assert_int_equal(I64Map_count(m), ref_count(&r));
    I64Map_delete(m);
    free(r.k);
    free(r.v);
}

static void test_shapes(void** state) {
    (void)state;
    const uint64_t bases[] = {0, 1000, (uint64_t)INT64_MAX - 500, (uint64_t)INT64_MIN + 300,
                              (uint64_t)-2000};
    for (int s = 0; s < 7; s++) {
        for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
            check_shape(s, bases[b], 3000);
        }
    }
}

static void test_empty(void** state) {
    (void)state;
    I64Map* m = I64Map_new();
    assert_int_equal(I64Map_get(m, 0), 0);
    assert_int_equal(I64Map_get(m, INT64_MIN), 0);
    assert_int_equal(I64Map_count(m), 0);
    I64Map_delete(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
