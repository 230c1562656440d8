/* kth.c - see kth.h. */
#include "dcutop/kth.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/parallel.h"
#include "dcutop/xalloc.h"

enum {
    KTH_BUCKETS = 1 << 12, /* a round narrows the range 4096 times */
    KTH_SMALL = 256,       /* values left that a sort of a copy finishes */
    KTH_PART_MIN = 1 << 16
};

typedef struct {
    const int64_t* v;
    int64_t *mn, *mx; /* per part: its least and greatest value */
    uint64_t base;    /* the least value: the bucket of x is (x - base) >> shift, unsigned */
    int shift;
    int64_t* hist;  /* parts x KTH_BUCKETS */
    uint64_t b;     /* the bucket gathered */
    int64_t* at;    /* per part: where its values of bucket b go in out */
    int64_t* out;
} Round;

static uint64_t bucket(const Round* x, int64_t v) {
    return ((uint64_t)v - x->base) >> x->shift;
}

static void range_part(void* ctx, int part, int64_t lo, int64_t hi) {
    Round* x = ctx;
    int64_t mn = x->v[lo], mx = x->v[lo];
    for (int64_t i = lo; i < hi; i++) {
        mn = x->v[i] < mn ? x->v[i] : mn;
        mx = x->v[i] > mx ? x->v[i] : mx;
    }
    x->mn[part] = mn;
    x->mx[part] = mx;
}

static void hist_part(void* ctx, int part, int64_t lo, int64_t hi) {
    Round* x = ctx;
    int64_t* h = x->hist + (size_t)part * KTH_BUCKETS;
    for (int64_t i = lo; i < hi; i++) {
        h[bucket(x, x->v[i])]++;
    }
}

static void gather_part(void* ctx, int part, int64_t lo, int64_t hi) {
    Round* x = ctx;
    int64_t w = x->at[part];
    for (int64_t i = lo; i < hi; i++) {
        if (bucket(x, x->v[i]) == x->b) {
            x->out[w++] = x->v[i];
        }
    }
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* One round over v[0..n): 1 and the answer in *kth when all values are equal; else 0, with
 * the values of the bucket holding the k-th in *out (*n of them, *k its rank among them). */
static int narrow(const int64_t* v, int64_t* n, int64_t* k, int64_t** out, int64_t* kth) {
    int parts = Parallel_parts(*n, KTH_PART_MIN);
    Round x = {.v = v, .mn = xmalloc((size_t)parts * sizeof(int64_t)),
               .mx = xmalloc((size_t)parts * sizeof(int64_t))};
    Parallel_for(*n, parts, range_part, &x);
    int64_t mn = x.mn[0], mx = x.mx[0];
    for (int p = 1; p < parts; p++) {
        mn = x.mn[p] < mn ? x.mn[p] : mn;
        mx = x.mx[p] > mx ? x.mx[p] : mx;
    }
    free(x.mn);
    free(x.mx);
    if (mn == mx) {
        *kth = mn;
        return 1;
    }
    x.base = (uint64_t)mn;
    while ((((uint64_t)mx - x.base) >> x.shift) >= KTH_BUCKETS) {
        x.shift++;
    }
    x.hist = xcalloc((size_t)parts * KTH_BUCKETS, sizeof(int64_t));
    Parallel_for(*n, parts, hist_part, &x);
    int64_t below = 0, in = 0;
    for (x.b = 0;; x.b++) {
        in = 0;
        for (int p = 0; p < parts; p++) {
            in += x.hist[(size_t)p * KTH_BUCKETS + x.b];
        }
        if (below + in > *k) {
            break;
        }
        below += in;
    }
    x.at = xmalloc((size_t)parts * sizeof(int64_t));
    int64_t w = 0;
    for (int p = 0; p < parts; p++) {
        x.at[p] = w;
        w += x.hist[(size_t)p * KTH_BUCKETS + x.b];
    }
    x.out = xmalloc((size_t)in * sizeof(int64_t));
    Parallel_for(*n, parts, gather_part, &x);
    free(x.hist);
    free(x.at);
    *out = x.out;
    *n = in;
    *k -= below;
    return 0;
}

int64_t Kth_select(const int64_t* v, int64_t n, int64_t k) {
    int64_t* own = NULL; /* the values a round narrowed to */
    int64_t kth;
    for (;;) {
        if (n <= KTH_SMALL) {
            int64_t* c = xmalloc((size_t)(n ? n : 1) * sizeof(int64_t));
            memcpy(c, v, (size_t)n * sizeof(int64_t));
            qsort(c, (size_t)n, sizeof(int64_t), cmp_i64);
            kth = c[k];
            free(c);
            break;
        }
        int64_t* out = NULL;
        if (narrow(v, &n, &k, &out, &kth)) {
            break;
        }
        free(own);
        v = own = out;
    }
    free(own);
    return kth;
}
