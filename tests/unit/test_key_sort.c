/* test_key_sort.c - SortKey_sort gives the order a stable merge sort (glibc qsort) of the
 * records gives, on random, sorted, reversed, all-equal and interleaved input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dcutop/key_sort.h"
#include "dcutop/xalloc.h"

typedef struct {
    int64_t start, end, id;
    uint32_t group, pad;
} Rec;

static int cmp_rec(const void* a, const void* b) {
    const Rec *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int tie(void* ctx, uint32_t a, uint32_t b) {
    const Rec* r = ctx;
    if (r[a].end != r[b].end) return r[a].end < r[b].end ? -1 : 1;
    return (r[a].id > r[b].id) - (r[a].id < r[b].id);
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* shape 0: random (few distinct values: many ties), 1: sorted, 2: reversed, 3: all equal
 * but the id, 4: sorted runs of groups interleaved (several GPUs in one file) */
static void fill(Rec* r, size_t n, int shape) {
    for (size_t i = 0; i < n; i++) {
        uint64_t v = next();
        r[i] = (Rec){(int64_t)(v % 50) - 10, (int64_t)(v >> 20) % 7, (int64_t)((v >> 8) % 1000),
                     (uint32_t)((v >> 40) % 3), (uint32_t)i};
        if (shape == 1 || shape == 2) {
            int64_t t = shape == 1 ? (int64_t)i : (int64_t)(n - i);
            r[i] = (Rec){t, t + 1, (int64_t)i, 0, 0};
        } else if (shape == 3) {
            r[i] = (Rec){5, 6, (int64_t)(n - i), 1, 0};
        } else if (shape == 4) {
            r[i] = (Rec){(int64_t)i / 2, (int64_t)i, (int64_t)i, (uint32_t)(i % 4), 0};
        }
    }
}

static void check_shape(int shape, size_t n) {
    Rec* r = xmalloc(n * sizeof(*r) + 1);
    Rec* want = xmalloc(n * sizeof(*r) + 1);
    SortKey* k = xmalloc(n * sizeof(*k) + 1);
    fill(r, n, shape);
    for (size_t i = 0; i < n; i++) {
        k[i] = (SortKey){r[i].start, r[i].group, (uint32_t)i};
    }
    memcpy(want, r, n * sizeof(*r));
    qsort(want, n, sizeof(*want), cmp_rec);
    SortKey_sort(k, n, tie, r);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(cmp_rec(&r[k[i].idx], &want[i]), 0);
    }
    free(r);
    free(want);
    free(k);
}

static void test_shapes(void** state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 3, 5, 16, 17, 100, 1000, 100000};
    for (int shape = 0; shape < 5; shape++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            check_shape(shape, sizes[s]);
        }
    }
}

/* Without a tie function, equal (group, key) entries keep their index order. */
static void test_no_tie(void** state) {
    (void)state;
    enum { N = 5000 };
    SortKey* k = xmalloc(N * sizeof(*k));
    for (uint32_t i = 0; i < N; i++) {
        k[i] = (SortKey){(int64_t)(next() % 4), (uint32_t)(next() % 2), i};
    }
    SortKey_sort(k, N, NULL, NULL);
    for (size_t i = 1; i < N; i++) {
        const SortKey *a = &k[i - 1], *b = &k[i];
        assert_true(a->group < b->group ||
                    (a->group == b->group &&
                     (a->key < b->key || (a->key == b->key && a->idx < b->idx))));
    }
    free(k);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_no_tie),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
