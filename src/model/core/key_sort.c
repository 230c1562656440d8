/* key_sort.c - see key_sort.h. */
#include "dcutop/key_sort.h"

typedef struct {
    SortTieFn tie;
    void* ctx;
} Order;

static inline int before(const SortKey* a, const SortKey* b, const Order* o) {
    if (a->group != b->group) {
        return a->group < b->group;
    }
    if (a->key != b->key) {
        return a->key < b->key;
    }
    return o->tie ? o->tie(o->ctx, a->idx, b->idx) < 0 : a->idx < b->idx;
}

static inline void swap(SortKey* a, SortKey* b) {
    SortKey t = *a;
    *a = *b;
    *b = t;
}

static void insertion(SortKey* k, size_t n, const Order* o) {
    for (size_t i = 1; i < n; i++) {
        SortKey v = k[i];
        size_t j = i;
        while (j > 0 && before(&v, &k[j - 1], o)) {
            k[j] = k[j - 1];
            j--;
        }
        k[j] = v;
    }
}

static void sift_down(SortKey* k, size_t root, size_t n, const Order* o) {
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n) {
            return;
        }
        if (c + 1 < n && before(&k[c], &k[c + 1], o)) {
            c++;
        }
        if (!before(&k[root], &k[c], o)) {
            return;
        }
        swap(&k[root], &k[c]);
        root = c;
    }
}

static void heap_sort(SortKey* k, size_t n, const Order* o) {
    for (size_t i = n / 2; i-- > 0;) {
        sift_down(k, i, n, o);
    }
    for (size_t end = n; end-- > 1;) {
        swap(&k[0], &k[end]);
        sift_down(k, 0, end, o);
    }
}

/* Hoare's partition around the median of the first, middle and last entries: returns j
 * with k[0..j] <= pivot <= k[j+1..n), both parts non-empty (n >= 3). */
static size_t partition(SortKey* k, size_t n, const Order* o) {
    size_t m = (n - 1) / 2;
    if (before(&k[m], &k[0], o)) {
        swap(&k[m], &k[0]);
    }
    if (before(&k[n - 1], &k[m], o)) {
        swap(&k[n - 1], &k[m]);
        if (before(&k[m], &k[0], o)) {
            swap(&k[m], &k[0]);
        }
    }
    SortKey pivot = k[m];
    size_t i = 0, j = n - 1;
    for (;;) { /* k[0] <= pivot <= k[n-1]: the scans stop inside the array */
        while (before(&k[i], &pivot, o)) {
            i++;
        }
        while (before(&pivot, &k[j], o)) {
            j--;
        }
        if (i >= j) {
            return j < n - 1 ? j : n - 2;
        }
        swap(&k[i], &k[j]);
        i++;
        j--;
    }
}

static void intro(SortKey* k, size_t n, int depth, const Order* o) {
    while (n > 16) {
        if (depth-- == 0) {
            heap_sort(k, n, o);
            return;
        }
        size_t j = partition(k, n, o) + 1; /* k[0..j) <= k[j..n) */
        if (j < n - j) {                   /* recurse into the smaller part: log n deep */
            intro(k, j, depth, o);
            k += j;
            n -= j;
        } else {
            intro(k + j, n - j, depth, o);
            n = j;
        }
    }
    insertion(k, n, o);
}

void SortKey_sort(SortKey* k, size_t n, SortTieFn tie, void* ctx) {
    Order o = {tie, ctx};
    int depth = 0;
    for (size_t m = n; m > 1; m >>= 1) {
        depth += 2;
    }
    intro(k, n, depth, &o);
}
