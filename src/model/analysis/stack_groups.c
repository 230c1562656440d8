/* stack_groups.c - see stack_groups.h. */
#include "dcutop/stack_groups.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/intern.h"
#include "dcutop/tuple_ids.h"
#include "dcutop/xalloc.h"

#define NONE INT64_MIN /* a NULL stack or kernel id in a key: sorts first, as SQL's NULL */

typedef struct {
    double c, t; /* sum(CAST(calls AS REAL)), sum(CAST(time_ns AS REAL)) */
} Sums;

typedef struct {
    TupleIds keys; /* (stack, kernel, kname id) -> group */
    Sums* g;
    int64_t gcap;
    TupleIds kernels; /* (kernel) -> its sums */
    Sums* k;
    int64_t kcap;
    Intern* ix;   /* kname -> 1 + its index */
    int64_t* off; /* by index: offset of its bytes in names, then their length */
    size_t* len;
    int64_t nn, ncap;
    char* names;
    size_t nlen, ncapb;
} Acc;

static Sums* add_to(TupleIds* t, const int64_t* key, Sums** v, int64_t* cap) {
    int64_t seen = t->n;
    uint32_t id = TupleIds_id(t, key);
    if (t->n > seen) {
        if (id >= *cap) {
            *cap = *cap ? *cap * 2 : 1024;
            *v = xrealloc(*v, (size_t)*cap * sizeof(**v));
        }
        (*v)[id] = (Sums){0.0, 0.0};
    }
    return &(*v)[id];
}

static int64_t name_id(Acc* a, const char* s, size_t n) {
    int64_t id = Intern_get(a->ix, s, n);
    if (id) {
        return id;
    }
    if (a->nn == a->ncap) {
        a->ncap = a->ncap ? a->ncap * 2 : 64;
        a->off = xrealloc(a->off, (size_t)a->ncap * sizeof(*a->off));
        a->len = xrealloc(a->len, (size_t)a->ncap * sizeof(*a->len));
    }
    xgrow((void**)&a->names, &a->ncapb, a->nlen + n + 1);
    memcpy(a->names + a->nlen, s, n);
    a->names[a->nlen + n] = '\0';
    a->off[a->nn] = (int64_t)a->nlen;
    a->len[a->nn] = n;
    a->nlen += n + 1;
    Intern_put(a->ix, s, n, ++a->nn);
    return a->nn;
}

static void add_row(Acc* a, sqlite3_stmt* st) {
    int has_s = sqlite3_column_type(st, 0) != SQLITE_NULL;
    int has_k = sqlite3_column_type(st, 1) != SQLITE_NULL;
    int not_folded = sqlite3_column_type(st, 2) != SQLITE_NULL && sqlite3_column_int(st, 2);
    int64_t kname = 0;
    if (!has_k && not_folded && sqlite3_column_type(st, 3) != SQLITE_NULL) {
        const char* s = (const char*)sqlite3_column_text(st, 3);
        kname = name_id(a, s ? s : "", (size_t)sqlite3_column_bytes(st, 3));
    }
    int64_t key[3] = {has_s ? sqlite3_column_int64(st, 0) : NONE,
                      has_k ? sqlite3_column_int64(st, 1) : NONE, kname};
    double c = sqlite3_column_double(st, 4), t = sqlite3_column_double(st, 5);
    Sums* g = add_to(&a->keys, key, &a->g, &a->gcap);
    g->c += c;
    g->t += t;
    if (has_k) {
        Sums* k = add_to(&a->kernels, &key[1], &a->k, &a->kcap);
        k->c += c;
        k->t += t;
    }
}

/* kname order: NULL first, then SQLite's BINARY collation (memcmp, then the shorter). */
static const Acc* sort_acc;

static int cmp_name(int64_t x, int64_t y) {
    if (x == 0 || y == 0) {
        return (x != 0) - (y != 0);
    }
    size_t lx = sort_acc->len[x - 1], ly = sort_acc->len[y - 1];
    int c = memcmp(sort_acc->names + sort_acc->off[x - 1], sort_acc->names + sort_acc->off[y - 1],
                   lx < ly ? lx : ly);
    return c ? c : (lx > ly) - (lx < ly);
}

static int cmp_key(const void* a, const void* b) {
    const int64_t *x = a, *y = b;
    for (int i = 0; i < 2; i++) {
        if (x[i] != y[i]) {
            return x[i] < y[i] ? -1 : 1;
        }
    }
    int c = cmp_name(x[2], y[2]);
    return c ? c : (x[3] > y[3]) - (x[3] < y[3]);
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* The groups in SQL's order, and the kernels by id, out of the sums. */
static void finish(Acc* a, StackGroups* out) {
    int64_t n = a->keys.n;
    int64_t* order = xmalloc((size_t)(n ? n : 1) * 4 * sizeof(*order)); /* key, then id */
    for (int64_t i = 0; i < n; i++) {
        for (int f = 0; f < 3; f++) {
            order[4 * i + f] = TupleIds_value(&a->keys, (uint32_t)i, f);
        }
        order[4 * i + 3] = i;
    }
    sort_acc = a;
    qsort(order, (size_t)n, 4 * sizeof(*order), cmp_key);
    out->names = a->names;
    a->names = NULL;
    out->g = xmalloc((size_t)(n ? n : 1) * sizeof(*out->g));
    for (int64_t i = 0; i < n; i++) {
        const int64_t* k = order + 4 * i;
        const Sums* s = &a->g[k[3]];
        out->g[i] = (StackGroup){k[0] == NONE ? 0 : k[0], k[1] == NONE ? 0 : k[1], k[0] != NONE,
                                 k[1] != NONE, k[2] ? out->names + a->off[k[2] - 1] : NULL,
                                 (int64_t)s->c, (int64_t)s->t};
    }
    out->n = n;
    free(order);
    int64_t nk = a->kernels.n;
    int64_t* kv = xmalloc((size_t)(nk ? nk : 1) * 2 * sizeof(*kv)); /* kernel id, index */
    for (int64_t i = 0; i < nk; i++) {
        kv[2 * i] = TupleIds_value(&a->kernels, (uint32_t)i, 0);
        kv[2 * i + 1] = i;
    }
    qsort(kv, (size_t)nk, 2 * sizeof(*kv), cmp_i64);
    out->kid = xmalloc((size_t)(nk ? nk : 1) * sizeof(int64_t));
    out->kcalls = xmalloc((size_t)(nk ? nk : 1) * sizeof(int64_t));
    out->ktime = xmalloc((size_t)(nk ? nk : 1) * sizeof(int64_t));
    for (int64_t i = 0; i < nk; i++) {
        const Sums* s = &a->k[kv[2 * i + 1]];
        out->kid[i] = kv[2 * i];
        out->kcalls[i] = (int64_t)s->c;
        out->ktime[i] = (int64_t)s->t;
    }
    out->nk = nk;
    free(kv);
}

DcuStatus StackGroups_read(TraceDb* db, int only_folded, StackGroups* out, DcuError* err) {
    memset(out, 0, sizeof(*out));
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT stack_id, kernel_id, form <> 'folded', kernel_name,"
                                  " calls, time_ns FROM kernel_stack",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    Acc a = {0};
    TupleIds_init(&a.keys, 3);
    TupleIds_init(&a.kernels, 1);
    a.ix = Intern_new();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int not_folded = sqlite3_column_type(st, 2) != SQLITE_NULL && sqlite3_column_int(st, 2);
        if (only_folded || not_folded) {
            add_row(&a, st);
        }
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "SQL error: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    if (s == DCU_OK) {
        finish(&a, out);
    }
    TupleIds_done(&a.keys);
    TupleIds_done(&a.kernels);
    Intern_delete(a.ix);
    free(a.g);
    free(a.k);
    free(a.off);
    free(a.len);
    free(a.names);
    return s;
}

int StackGroups_kernel(const StackGroups* sg, int64_t kernel_id, int64_t* calls, int64_t* t) {
    int64_t lo = 0, hi = sg->nk - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sg->kid[mid] == kernel_id) {
            *calls = sg->kcalls[mid];
            *t = sg->ktime[mid];
            return 1;
        }
        if (sg->kid[mid] < kernel_id) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    *calls = 0;
    *t = 0;
    return 0;
}

void StackGroups_done(StackGroups* sg) {
    free(sg->g);
    free(sg->kid);
    free(sg->kcalls);
    free(sg->ktime);
    free(sg->names);
    memset(sg, 0, sizeof(*sg));
}
