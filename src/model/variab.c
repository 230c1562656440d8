/* variab.c - golden duration, variability and |z| > 3 outliers per kernel; see variab.h. */
#include "dcutop/variab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

typedef unsigned __int128 u128;

/* Exact sums stay below 2^127 while n * dmax <= 2^61 (variab.h): S <= 2^61,
 * n*Q <= (n*dmax)^2 <= 2^122, and 9 * (n*Q - S^2) < 2^126. */
#define EXACT_LIMIT ((u128)1 << 61)

/* One kernel in one run. */
typedef struct Slot_ {
    int used;
    int64_t kernel_id, file_id;
    int64_t n, dmax;
    u128 s, q;            /* sum and sum of squares of durations, exact while !wide */
    int64_t k;            /* the first duration: shifts the long double sums below */
    long double sl, ql;   /* sums of (d - k) and (d - k)^2, used when wide; the shift keeps
                           * the squares small beside their sum (no cancellation) */
    int wide;             /* n * dmax went past EXACT_LIMIT */
    u128 d9;              /* pass 2, exact: 9 * (n*Q - S^2) = 9 * n^2 * variance */
    long double mean, var9; /* pass 2, wide: mean - k and 9 * variance */
    int64_t golden;       /* shortest non-low-outlier duration, -1 none yet */
    u128 hi_sum;          /* durations of the dispatches that are not fast outliers */
    int64_t hi_n, outliers;
} Slot;

typedef struct SlotMap_ {
    Slot* slot;
    size_t cap, used; /* cap is a power of two */
} SlotMap;

static size_t hash(int64_t k, int64_t f) {
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull ^ (uint64_t)f * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29));
}

static Slot* find(SlotMap* m, int64_t k, int64_t f, int add);

static void grow(SlotMap* m) {
    SlotMap big = {xcalloc(m->cap * 2, sizeof(Slot)), m->cap * 2, 0};
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slot[i].used) {
            *find(&big, m->slot[i].kernel_id, m->slot[i].file_id, 1) = m->slot[i];
        }
    }
    free(m->slot);
    *m = big;
}

/* The slot of (k, f); with add, a new zeroed one when absent, else NULL. */
static Slot* find(SlotMap* m, int64_t k, int64_t f, int add) {
    if (add && (m->used + 1) * 2 > m->cap) {
        grow(m);
    }
    size_t mask = m->cap - 1;
    for (size_t i = hash(k, f) & mask;; i = (i + 1) & mask) {
        Slot* s = &m->slot[i];
        if (s->used && s->kernel_id == k && s->file_id == f) {
            return s;
        }
        if (!s->used) {
            if (!add) {
                return NULL;
            }
            memset(s, 0, sizeof(*s));
            s->used = 1;
            s->kernel_id = k;
            s->file_id = f;
            s->golden = -1;
            m->used++;
            return s;
        }
    }
}

static void add_duration(Slot* s, int64_t d) {
    int64_t dmax = d > s->dmax ? d : s->dmax;
    if (!s->wide && (u128)(s->n + 1) * (u128)dmax > EXACT_LIMIT) {
        s->wide = 1;
    }
    if (s->n == 0) {
        s->k = d;
    }
    s->n++;
    s->dmax = dmax;
    if (!s->wide) {
        s->s += (u128)d;
        s->q += (u128)d * (u128)d;
    }
    long double dk = (long double)(d - s->k); /* both >= 0: the difference fits */
    s->sl += dk;
    s->ql += dk * dk;
}

/* Between the passes: the outlier threshold of each slot. */
static void prepare(Slot* s) {
    if (!s->wide) {
        s->d9 = 9 * ((u128)s->n * s->q - s->s * s->s); /* >= 0: Cauchy-Schwarz */
    } else {
        long double m = s->sl / (long double)s->n; /* mean - k */
        long double var = s->ql / (long double)s->n - m * m;
        s->mean = m; /* kept relative to k */
        s->var9 = var > 0 ? 9 * var : 0;
    }
}

/* Pass 2. z^2 > 9 <=> (n*d - S)^2 > 9 * (n*Q - S^2), both sides multiplied by n^2 * sd^2. */
static void classify(Slot* s, int64_t d) {
    int outlier, below;
    if (!s->wide) {
        u128 nd = (u128)s->n * (u128)d;
        below = nd < s->s;
        u128 t = below ? s->s - nd : nd - s->s;
        outlier = t * t > s->d9;
    } else {
        long double dev = (long double)(d - s->k) - s->mean;
        below = dev < 0;
        outlier = dev * dev > s->var9;
    }
    s->outliers += outlier;
    if (outlier && below) {
        return; /* a fast outlier: never the golden, and not time above it */
    }
    /* Every non-outlier is at most mean + 3 sd, below any slow outlier, and one exists (some
     * |z| <= 1): the shortest of these dispatches is the shortest non-outlier. */
    if (s->golden < 0 || d < s->golden) {
        s->golden = d;
    }
    s->hi_sum += (u128)d;
    s->hi_n++;
}

static DcuStatus scan(TraceDb* db, SlotMap* m, int pass, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT kernel_id, file_id, dur_ns FROM dispatch WHERE file_id"
                                  " IN (SELECT file_id FROM used_file WHERE layer = 'kernel')",
                                  &st, err);
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t d = sqlite3_column_int64(st, 2);
        Slot* sl = find(m, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), pass == 1);
        if (d < 0 || !sl) {
            continue; /* the loader rejects negative durations; the table may be edited */
        }
        if (pass == 1) {
            add_duration(sl, d);
        } else {
            classify(sl, d);
        }
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "variability: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

/* Adds each run's figures to its kernel's row. */
static DcuStatus store(TraceDb* db, SlotMap* m, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "UPDATE kernel_summary SET golden_ns = min(coalesce(golden_ns, ?2), ?2),"
        " var_ns = min(coalesce(var_ns, 0) + ?3, 9223372036854775807),"
        " outliers = coalesce(outliers, 0) + ?4 WHERE kernel_id = ?1",
        &st, err);
    for (size_t i = 0; s == DCU_OK && i < m->cap; i++) {
        Slot* sl = &m->slot[i];
        if (!sl->used || sl->golden < 0) {
            continue;
        }
        u128 v = sl->hi_sum - (u128)sl->golden * (u128)sl->hi_n; /* each term >= golden */
        sqlite3_bind_int64(st, 1, sl->kernel_id);
        sqlite3_bind_int64(st, 2, sl->golden);
        sqlite3_bind_int64(st, 3, v > (u128)INT64_MAX ? INT64_MAX : (int64_t)v);
        sqlite3_bind_int64(st, 4, sl->outliers);
        if (sqlite3_step(st) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "variability: %s", sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return s;
}

DcuStatus Variab_compute(TraceDb* db, DcuError* err) {
    DcuStatus s = TraceDb_exec(
        db, "UPDATE kernel_summary SET golden_ns = NULL, var_ns = NULL, outliers = NULL", err);
    if (s != DCU_OK) {
        return s;
    }
    SlotMap m = {xcalloc(64, sizeof(Slot)), 64, 0};
    s = scan(db, &m, 1, err);
    for (size_t i = 0; s == DCU_OK && i < m.cap; i++) {
        if (m.slot[i].used) {
            prepare(&m.slot[i]);
        }
    }
    if (s == DCU_OK) {
        s = scan(db, &m, 2, err);
    }
    if (s == DCU_OK) {
        s = store(db, &m, err);
    }
    free(m.slot);
    return s;
}
