/* variab.c - golden duration, variability and |z| > 3 outliers per kernel; see variab.h. */
#include "dcutop/dispatch_scan.h"
#include "dcutop/variab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/parallel.h"
#include "dcutop/xalloc.h"

typedef unsigned __int128 u128;

/* Exact sums stay below 2^127 while n * dmax <= 2^61 (variab.h): S <= 2^61,
 * n*Q <= (n*dmax)^2 <= 2^122, and 9 * (n*Q - S^2) < 2^126. */
#define EXACT_LIMIT ((u128)1 << 61)

/* One kernel at one launch shape in one run. */
typedef struct Slot_ {
    int used;
    int64_t kernel_id, file_id;
    int64_t grid, wg;     /* the launch shape (dispatch.grid, .workgroup); SHAPE_NONE: none */
    int64_t n, dmax;
    u128 total;           /* summed durations (never wraps: n < 2^63, d < 2^63) */
    u128 s, q;            /* sum and sum of squares of durations, exact while !wide */
    int64_t k;            /* the first duration: shifts the long double sums below */
    long double sl, ql;   /* sums of (d - k) and (d - k)^2, used when wide; the shift keeps
                           * the squares small beside their sum (no cancellation) */
    int wide;             /* n * dmax went past EXACT_LIMIT */
    int prepared;         /* pass 2 has its threshold (prepare) */
    u128 d9;              /* pass 2, exact: 9 * (n*Q - S^2) = 9 * n^2 * variance */
    long double mean, var9; /* pass 2, wide: mean - k and 9 * variance */
    int64_t golden;       /* shortest non-low-outlier duration, -1 none yet */
    u128 hi_sum;          /* durations of the dispatches that are not fast outliers */
    int64_t hi_n, outliers;
    int64_t gi;           /* a part's slot (the parallel passes): its index in the whole map */
} Slot;

typedef struct SlotMap_ {
    Slot* slot;
    size_t cap, used; /* cap is a power of two */
} SlotMap;

/* A slot's key: kernel, run (its dispatch file) and launch shape. */
typedef struct Key_ {
    int64_t k, f, grid, wg;
} Key;

#define SHAPE_NONE INT64_MIN /* grid or workgroup not recorded (SQL NULL) */

static size_t hash(const Key* x) {
    uint64_t h = (uint64_t)x->k * 0x9E3779B97F4A7C15ull ^ (uint64_t)x->f * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)x->grid * 0x165667B19E3779F9ull ^ (uint64_t)x->wg * 0x27D4EB2F165667C5ull;
    return (size_t)(h ^ (h >> 29));
}

static Slot* find(SlotMap* m, const Key* x, int add);

static void grow(SlotMap* m) {
    SlotMap big = {xcalloc(m->cap * 2, sizeof(Slot)), m->cap * 2, 0};
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slot[i].used) {
            Key x = {m->slot[i].kernel_id, m->slot[i].file_id, m->slot[i].grid, m->slot[i].wg};
            *find(&big, &x, 1) = m->slot[i];
        }
    }
    free(m->slot);
    *m = big;
}

/* The slot of x; with add, a new zeroed one when absent, else NULL. */
static Slot* find(SlotMap* m, const Key* x, int add) {
    if (add && (m->used + 1) * 2 > m->cap) {
        grow(m);
    }
    size_t mask = m->cap - 1;
    for (size_t i = hash(x) & mask;; i = (i + 1) & mask) {
        Slot* s = &m->slot[i];
        if (s->used && s->kernel_id == x->k && s->file_id == x->f && s->grid == x->grid &&
            s->wg == x->wg) {
            return s;
        }
        if (!s->used) {
            if (!add) {
                return NULL;
            }
            memset(s, 0, sizeof(*s));
            s->used = 1;
            s->kernel_id = x->k;
            s->file_id = x->f;
            s->grid = x->grid;
            s->wg = x->wg;
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
    s->total += (u128)d;
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

/* Pass 2. z^2 > 9 <=> (n*d - S)^2 > 9 * (n*Q - S^2), both sides multiplied by n^2 * sd^2.
 * th has the thresholds, s gets the counts (the same slot, or a part's). */
static void classify(const Slot* th, Slot* s, int64_t d) {
    int outlier, below;
    if (!th->wide) {
        u128 nd = (u128)th->n * (u128)d;
        below = nd < th->s;
        u128 t = below ? th->s - nd : nd - th->s;
        outlier = t * t > th->d9;
    } else {
        long double dev = (long double)(d - th->k) - th->mean;
        below = dev < 0;
        outlier = dev * dev > th->var9;
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

/* One dispatch as read by pass 1, for pass 2 (issue 11: the second SQL scan of every
 * dispatch was half of this module's time; 16 bytes a dispatch of one file at a time). */
typedef struct {
    int64_t kernel_id, dur, grid, wg;
} Seen;

static int64_t shape_col(sqlite3_stmt* st, int c) {
    return sqlite3_column_type(st, c) == SQLITE_NULL ? SHAPE_NONE : sqlite3_column_int64(st, c);
}

/* One file's rows into *seen, through st (the SQL read). */
static DcuStatus read_seen(TraceDb* db, sqlite3_stmt* st, int64_t file, Seen** seen,
                           size_t* cap, int64_t* n, DcuError* err) {
    *n = 0;
    sqlite3_bind_int64(st, 1, file);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((size_t)*n == *cap) {
            *cap = *cap ? 2 * *cap : 4096;
            *seen = xrealloc(*seen, *cap * sizeof(Seen));
        }
        (*seen)[(*n)++] = (Seen){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                 shape_col(st, 2), shape_col(st, 3)};
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? DCU_OK
                             : Error_set(err, DCU_ERR_SQL, "variability: %s",
                                         sqlite3_errmsg(TraceDb_handle(db)));
}

/* ---- the direct read, in parts ---------------------------------------------------------
 * From the store's columns (dispatch_scan.h) the two passes read the chunks themselves,
 * each part of the file's chunks on its own thread (parallel.h), with no copy of the rows
 * in between (32 bytes a dispatch). Pass 1 fills a map per part; the parts' slots go into
 * the whole map in part order, each part's in the order it first saw them, which is the
 * order one pass inserts them in: the map's layout, and so the order store() writes the
 * slots in, is the one pass's. The sums are exact integers; the long double sums a slot
 * uses once wide depend on their order, so a wide slot's are summed again in one pass.
 * Pass 2 counts per part against the whole map's thresholds; counts and minima merge. */

/* A row as the SQL read gives it: a NULL kernel id or duration reads as 0
 * (sqlite3_column_int64), a NULL shape as SHAPE_NONE. */
typedef struct {
    int64_t file, kernel, dur, grid, wg;
} Row;

static int64_t or_zero(int64_t v) {
    return v == DISPATCH_STORE_NULL ? 0 : v;
}

static int64_t or_none(int64_t v) {
    return v == DISPATCH_STORE_NULL ? SHAPE_NONE : v;
}

static Row row_at(const int64_t* d, int64_t i) {
    return (Row){DS_AT(d, DS_FILE_ID, i), or_zero(DS_AT(d, DS_KERNEL_ID, i)),
                 or_zero(DS_AT(d, DS_DUR_NS, i)), or_none(DS_AT(d, DS_GRID, i)),
                 or_none(DS_AT(d, DS_WORKGROUP, i))};
}

/* Row i of chunk d and its key, as every pass counts it: 0 for another file's row or a
 * negative duration (the table may be edited), which no pass counts. */
static int counted_row(const int64_t* d, int64_t i, int64_t file, Row* r, Key* key) {
    *r = row_at(d, i);
    if (r->file != file || r->dur < 0) {
        return 0;
    }
    *key = (Key){r->kernel, r->file, r->grid, r->wg};
    return 1;
}

typedef struct {
    SlotMap map;   /* pass 1: the part's sums; pass 2: its counts (gi: the whole's slot) */
    Key* order;    /* its keys, as first seen */
    int64_t* first; /* per key in order: the row it was first seen at */
    int64_t n, cap;
    int64_t last;  /* the last row it counted; -1: none */
    DcuError err;
    DcuStatus s;
} Part;

typedef struct {
    DispatchStore* store;
    const DispatchSpan* sp;
    int64_t file, nchunks;
    int parts;
    Part* part;
    SlotMap* m; /* the whole map: pass 2 reads its thresholds, the wide pass sums in it */
} Scan;

typedef struct {
    Scan* x;
    Part* p;
} PartCtx;

static int pass1_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    PartCtx* c = ctx;
    Part* p = c->p;
    for (int64_t i = from; i < to; i++) {
        Row r;
        Key key;
        if (!counted_row(d, i, c->x->file, &r, &key)) {
            continue;
        }
        Slot* sl = find(&p->map, &key, 1);
        if (sl->n == 0) {
            if (p->n == p->cap) {
                p->cap = p->cap ? 2 * p->cap : 64;
                p->order = xrealloc(p->order, (size_t)p->cap * sizeof(Key));
                p->first = xrealloc(p->first, (size_t)p->cap * sizeof(int64_t));
            }
            p->order[p->n] = key;
            p->first[p->n++] = row0 + i;
        }
        add_duration(sl, r.dur);
        p->last = row0 + i;
    }
    return 1;
}

static int pass2_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    (void)row0;
    PartCtx* c = ctx;
    for (int64_t i = from; i < to; i++) {
        Row r;
        Key key;
        if (!counted_row(d, i, c->x->file, &r, &key)) {
            continue;
        }
        Slot* sl = find(&c->p->map, &key, 0);
        classify(&c->x->m->slot[sl->gi], sl, r.dur);
    }
    return 1;
}

/* The wide slots' long double sums in one pass, in row order (as scan_file sums them). */
static int wide_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    (void)row0;
    Scan* x = ctx;
    for (int64_t i = from; i < to; i++) {
        Row r;
        Key key;
        if (!counted_row(d, i, x->file, &r, &key)) {
            continue;
        }
        Slot* sl = find(x->m, &key, 0);
        if (sl->wide) {
            long double dk = (long double)(r.dur - sl->k);
            sl->sl += dk;
            sl->ql += dk * dk;
        }
    }
    return 1;
}

static void run_part(Scan* x, int part, int64_t c0, int64_t c1, DispatchBlockFn fn) {
    Part* p = &x->part[part];
    PartCtx c = {x, p};
    if (p->s == DCU_OK) {
        p->s = DispatchScan_spanChunks(x->store, x->sp, c0, c1, fn, &c, &p->err);
    }
}

static void pass1_part(void* ctx, int part, int64_t c0, int64_t c1) {
    run_part(ctx, part, c0, c1, pass1_block);
}

static void pass2_part(void* ctx, int part, int64_t c0, int64_t c1) {
    run_part(ctx, part, c0, c1, pass2_block);
}

/* A part's sums into the whole's slot g (new: zeroed by find). */
static void merge_sums(Slot* g, const Slot* p) {
    if (g->n == 0) {
        Slot keep = *g;
        *g = *p;
        g->used = keep.used;
        g->golden = -1;
        g->gi = 0;
        return;
    }
    g->n += p->n;
    g->dmax = p->dmax > g->dmax ? p->dmax : g->dmax;
    g->total += p->total;
    g->s += p->s; /* exact while the whole is not wide, as no part is then */
    g->q += p->q;
    g->wide = (u128)g->n * (u128)g->dmax > EXACT_LIMIT; /* what one pass ends with */
}

/* Pass 1's parts into the whole map, in the order one pass inserts their keys; then each
 * part slot's gi (after the last insert: growing moves the slots). Returns whether a slot
 * of the file went wide from more than one part. */
static int merge_pass1(Scan* x) {
    SlotMap* m = x->m;
    int64_t last_new = -1, last_row = -1;
    int wide = 0;
    for (int p = 0; p < x->parts; p++) {
        Part* pt = &x->part[p];
        for (int64_t i = 0; i < pt->n; i++) {
            size_t before = m->used;
            Slot* g = find(m, &pt->order[i], 1);
            last_new = m->used > before ? pt->first[i] : last_new;
            merge_sums(g, find(&pt->map, &pt->order[i], 0));
            wide |= g->wide && g->n > find(&pt->map, &pt->order[i], 0)->n;
        }
        last_row = pt->last > last_row ? pt->last : last_row;
    }
    /* one pass looks a slot up once more per row after its last new key, and the map grows
     * at the first lookup that finds it half full: grow as that lookup would have */
    if (last_row >= 0 && last_row > last_new && (m->used + 1) * 2 > m->cap) {
        grow(m);
    }
    for (int p = 0; p < x->parts; p++) {
        Part* pt = &x->part[p];
        for (int64_t i = 0; i < pt->n; i++) {
            find(&pt->map, &pt->order[i], 0)->gi = find(m, &pt->order[i], 0) - m->slot;
        }
    }
    return wide;
}

/* Pass 2's counts into the whole's slots: sums and counts add, the golden is the least. */
static void merge_pass2(Scan* x) {
    for (int p = 0; p < x->parts; p++) {
        Part* pt = &x->part[p];
        for (int64_t i = 0; i < pt->n; i++) {
            const Slot* ps = find(&pt->map, &pt->order[i], 0);
            Slot* g = &x->m->slot[ps->gi];
            g->outliers += ps->outliers;
            g->hi_sum += ps->hi_sum;
            g->hi_n += ps->hi_n;
            if (ps->golden >= 0 && (g->golden < 0 || ps->golden < g->golden)) {
                g->golden = ps->golden;
            }
        }
    }
}

/* Each new slot's threshold; wide: the long double sums again, in one pass, first. */
static DcuStatus prepare_all(Scan* x, int wide, DcuError* err) {
    DcuStatus s = DCU_OK;
    if (wide) {
        for (int p = 0; p < x->parts; p++) {
            for (int64_t i = 0; i < x->part[p].n; i++) {
                Slot* g = &x->m->slot[find(&x->part[p].map, &x->part[p].order[i], 0)->gi];
                g->sl = g->wide ? 0 : g->sl;
                g->ql = g->wide ? 0 : g->ql;
            }
        }
        s = DispatchScan_spanChunks(x->store, x->sp, 0, x->nchunks, wide_block, x, err);
    }
    for (int p = 0; p < x->parts; p++) {
        for (int64_t i = 0; i < x->part[p].n; i++) {
            Slot* g = &x->m->slot[find(&x->part[p].map, &x->part[p].order[i], 0)->gi];
            if (!g->prepared) {
                prepare(g);
                g->prepared = 1;
            }
        }
    }
    return s;
}

/* The first part error, in part order (as one pass would meet it). */
static DcuStatus part_error(const Scan* x, DcuError* err) {
    for (int p = 0; p < x->parts; p++) {
        if (x->part[p].s != DCU_OK) {
            if (err) {
                *err = x->part[p].err;
            }
            return x->part[p].s;
        }
    }
    return DCU_OK;
}

/* Both passes over one file's rows in the store, sp its span. */
static DcuStatus scan_parts(DispatchStore* store, const DispatchSpan* sp, SlotMap* m,
                            DcuError* err) {
    int64_t nchunks = DispatchScan_chunks(store, sp);
    int parts = Parallel_parts(nchunks, 16); /* 64K rows a part at least */
    Scan x = {store, sp, sp->file_id, nchunks, parts, xcalloc((size_t)parts, sizeof(Part)), m};
    for (int p = 0; p < parts; p++) {
        x.part[p].map = (SlotMap){xcalloc(64, sizeof(Slot)), 64, 0};
        x.part[p].last = -1;
    }
    Parallel_for(nchunks, parts, pass1_part, &x);
    DcuStatus s = part_error(&x, err);
    if (s == DCU_OK) {
        s = prepare_all(&x, merge_pass1(&x) && parts > 1, err);
    }
    if (s == DCU_OK) {
        Parallel_for(nchunks, parts, pass2_part, &x);
        s = part_error(&x, err);
    }
    if (s == DCU_OK) {
        merge_pass2(&x);
    }
    for (int p = 0; p < parts; p++) {
        free(x.part[p].map.slot);
        free(x.part[p].order);
        free(x.part[p].first);
    }
    free(x.part);
    return s;
}

/* Both passes over one file's dispatches (its rowid range): slots are per (kernel, file),
 * so a file is done when its rows are, and memory holds one rank's rows, not the job's
 * (issue 15). */
static DcuStatus scan_file(TraceDb* db, DispatchStore* store, sqlite3_stmt* st, int64_t file,
                           SlotMap* m, Seen** seen, size_t* cap, DcuError* err) {
    if (store) {
        DispatchSpan sp;
        return DispatchScan_fileSpan(db, file, &sp) ? scan_parts(store, &sp, m, err)
                                                    : DCU_OK;
    }
    int64_t n = 0;
    DcuStatus s = read_seen(db, st, file, seen, cap, &n, err);
    if (s != DCU_OK) {
        return s;
    }
    for (int64_t i = 0; i < n; i++) { /* pass 1: each slot's sums */
        const Seen* x = &(*seen)[i];
        if (x->dur < 0) {
            continue; /* the loader rejects negative durations; the table may be edited */
        }
        Key key = {x->kernel_id, file, x->grid, x->wg};
        add_duration(find(m, &key, 1), x->dur);
    }
    for (int64_t i = 0; i < n; i++) { /* pass 2: the thresholds need every duration first */
        if ((*seen)[i].dur < 0) {
            continue;
        }
        Key key = {(*seen)[i].kernel_id, file, (*seen)[i].grid, (*seen)[i].wg};
        Slot* sl = find(m, &key, 0);
        if (!sl->prepared) {
            prepare(sl);
            sl->prepared = 1;
        }
        classify(sl, sl, (*seen)[i].dur);
    }
    return DCU_OK;
}

/* The used kernel files in id order (their rows' order), one after another. */
static DcuStatus scan(TraceDb* db, SlotMap* m, DcuError* err) {
    sqlite3_stmt *files = NULL, *st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT DISTINCT file_id FROM used_file WHERE layer = 'kernel'"
                                  " ORDER BY file_id",
                                  &files, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT d.kernel_id, d.dur_ns, d.grid, d.workgroup FROM dispatch d WHERE "
                                DISPATCH_OF_FILE("?1"),
                            &st, err);
    }
    Seen* seen = NULL;
    size_t cap = 0;
    int rc = SQLITE_DONE;
    DispatchStore* store = DispatchScan_store(db);
    while (s == DCU_OK && (rc = sqlite3_step(files)) == SQLITE_ROW) {
        /* its own message: the store's read error is no SQLite error */
        s = scan_file(db, store, st, sqlite3_column_int64(files, 0), m, &seen, &cap, err);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "variability: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    free(seen);
    sqlite3_finalize(files);
    sqlite3_finalize(st);
    return s;
}

static int64_t clamp64(u128 v) {
    return v > (u128)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Each slot's figures, added to its kernel's run (kernel_var_run), its kernel's shape
 * (kernel_var_shape: the shapes of all runs together) and its kernel's summary row. Sums add
 * up; a golden is the shortest of the slots'. */
static const char* const store_sql[4] = {
    "INSERT INTO kernel_var_run(kernel_id, file_id, dispatches, total_ns, golden_ns, var_ns,"
    " outliers) VALUES(?1, ?5, ?6, ?7, ?2, ?3, ?4)"
    " ON CONFLICT(kernel_id, file_id) DO UPDATE SET dispatches = dispatches + ?6,"
    " total_ns = min(total_ns + ?7, 9223372036854775807), golden_ns = min(golden_ns, ?2),"
    " var_ns = min(var_ns + ?3, 9223372036854775807), outliers = outliers + ?4",
    "UPDATE kernel_summary SET golden_ns = min(coalesce(golden_ns, ?2), ?2),"
    " var_ns = min(coalesce(var_ns, 0) + ?3, 9223372036854775807),"
    " outliers = coalesce(outliers, 0) + ?4 WHERE kernel_id = ?1",
    "UPDATE kernel_var_shape SET dispatches = dispatches + ?6,"
    " total_ns = min(total_ns + ?7, 9223372036854775807), golden_ns = min(golden_ns, ?2),"
    " var_ns = min(var_ns + ?3, 9223372036854775807), outliers = outliers + ?4"
    " WHERE kernel_id = ?1 AND grid IS ?8 AND workgroup IS ?9",
    "INSERT INTO kernel_var_shape(kernel_id, grid, workgroup, dispatches, total_ns, golden_ns,"
    " var_ns, outliers) SELECT ?1, ?8, ?9, ?6, ?7, ?2, ?3, ?4 WHERE changes() = 0",
};

static void bind_shape(sqlite3_stmt* st, int i, int64_t v) {
    if (v == SHAPE_NONE) {
        sqlite3_bind_null(st, i);
    } else {
        sqlite3_bind_int64(st, i, v);
    }
}

static DcuStatus store_slot(sqlite3_stmt* const* st, const Slot* sl) {
    u128 v = sl->hi_sum - (u128)sl->golden * (u128)sl->hi_n; /* each term >= golden */
    for (int k = 0; k < 4; k++) {
        sqlite3_bind_int64(st[k], 1, sl->kernel_id);
        sqlite3_bind_int64(st[k], 2, sl->golden);
        sqlite3_bind_int64(st[k], 3, clamp64(v));
        sqlite3_bind_int64(st[k], 4, sl->outliers);
        if (k != 1) {
            sqlite3_bind_int64(st[k], 6, sl->n);
            sqlite3_bind_int64(st[k], 7, clamp64(sl->total));
        }
        if (k == 0) {
            sqlite3_bind_int64(st[k], 5, sl->file_id);
        }
        if (k >= 2) {
            bind_shape(st[k], 8, sl->grid);
            bind_shape(st[k], 9, sl->wg);
        }
        int rc = sqlite3_step(st[k]);
        sqlite3_reset(st[k]);
        if (rc != SQLITE_DONE) {
            return DCU_ERR_SQL;
        }
    }
    return DCU_OK;
}

static DcuStatus store(TraceDb* db, SlotMap* m, DcuError* err) {
    sqlite3_stmt* st[4] = {NULL, NULL, NULL, NULL};
    DcuStatus s = DCU_OK;
    for (int k = 0; k < 4 && s == DCU_OK; k++) {
        s = TraceDb_prepare(db, store_sql[k], &st[k], err);
    }
    for (size_t i = 0; s == DCU_OK && i < m->cap; i++) {
        Slot* sl = &m->slot[i];
        if (sl->used && sl->golden >= 0 && store_slot(st, sl) != DCU_OK) {
            s = Error_set(err, DCU_ERR_SQL, "variability: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
        }
    }
    for (int k = 0; k < 4; k++) {
        sqlite3_finalize(st[k]);
    }
    return s;
}

/* A job opened from its ranks' summaries (job_summary.h) has no dispatches to scan: each
 * rank's figures, as its map computed them, are added the way store() adds slots. */
static DcuStatus add_summaries(TraceDb* db, DcuError* err) {
    return TraceDb_exec(
        db,
        "INSERT INTO kernel_var_run(kernel_id, file_id, dispatches, total_ns, golden_ns, var_ns,"
        " outliers) SELECT kernel_id, file_id, dispatches, total_ns, golden_ns, var_ns, outliers"
        " FROM job_var_run WHERE true ON CONFLICT(kernel_id, file_id) DO UPDATE SET"
        " dispatches = dispatches + excluded.dispatches,"
        " total_ns = min(total_ns + excluded.total_ns, 9223372036854775807),"
        " golden_ns = min(golden_ns, excluded.golden_ns),"
        " var_ns = min(var_ns + excluded.var_ns, 9223372036854775807),"
        " outliers = outliers + excluded.outliers;"
        "INSERT INTO kernel_var_shape(kernel_id, grid, workgroup, dispatches, total_ns, golden_ns,"
        " var_ns, outliers) SELECT kernel_id, grid, workgroup, sum(dispatches),"
        " min(sum(total_ns), 9223372036854775807), min(golden_ns),"
        " min(sum(var_ns), 9223372036854775807), sum(outliers) FROM job_var_shape"
        " GROUP BY kernel_id, grid, workgroup;"
        "UPDATE kernel_summary SET golden_ns = v.g, var_ns = v.v, outliers = v.o FROM"
        " (SELECT kernel_id AS k, min(golden_ns) AS g, min(sum(var_ns), 9223372036854775807) AS v,"
        " sum(outliers) AS o FROM job_var_run GROUP BY kernel_id) AS v"
        " WHERE kernel_summary.kernel_id = v.k",
        err);
}

DcuStatus Variab_compute(TraceDb* db, DcuError* err) {
    DcuStatus s = TraceDb_exec(db,
                               "DELETE FROM kernel_var_run; DELETE FROM kernel_var_shape;"
                               "UPDATE kernel_summary SET golden_ns = NULL, var_ns = NULL,"
                               " outliers = NULL",
                               err);
    if (s != DCU_OK) {
        return s;
    }
    SlotMap m = {xcalloc(64, sizeof(Slot)), 64, 0};
    s = scan(db, &m, err);
    if (s == DCU_OK) {
        s = store(db, &m, err);
    }
    free(m.slot);
    if (s == DCU_OK) {
        s = add_summaries(db, err);
    }
    return s == DCU_OK ? Variab_leaveOutCollectives(db, err) : s;
}

DcuStatus Variab_leaveOutCollectives(TraceDb* db, DcuError* err) {
    /* a collective lasts until its slowest peer arrives: its spread is waiting, not the
     * kernel running slower than it can (variab.h) */
    return TraceDb_exec(db,
                        "UPDATE kernel_summary SET golden_ns = NULL, var_ns = NULL,"
                        " outliers = NULL WHERE kernel_id IN (SELECT id FROM kernel"
                        " WHERE category = 'comm');"
                        "DELETE FROM kernel_var_run WHERE kernel_id IN (SELECT id FROM kernel"
                        " WHERE category = 'comm');"
                        "DELETE FROM kernel_var_shape WHERE kernel_id IN (SELECT id FROM kernel"
                        " WHERE category = 'comm')",
                        err);
}
