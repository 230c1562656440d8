/* dispatch_page.c - see dispatch_page.h. */
#include "dcutop/dispatch_page.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/dispatch_scan.h"
#include "dcutop/kernel_query.h"
#include "dcutop/xalloc.h"
#include "dispatch_files.h"

/* A sort key and the row's natural position: distinct, so the order is total and the same
 * however much of it was computed. */
typedef struct {
    int64_t k;
    int64_t pos;
} Item;

struct DispatchPage_ {
    DispatchStore* store; /* borrowed */
    DispatchFiles files;
    int64_t kid, nk; /* the kernel and its rows, kept or not */
    int64_t n;
    const int64_t* row; /* store row of each kept dispatch, in row order: the store's
                         * kernel index itself while every row is kept (no copy) */
    int64_t* row_own;   /* else the kept ones (owned) */
    int32_t* fidx; /* its file (index into files) */
    int64_t* nat;  /* natural position -> kept index; NULL: the same (rows in start order) */
    int64_t* seg;  /* with the rows in start order (place_by_spans): seg[i] .. seg[i + 1] are
                    * the kept rows of one file, nseg of them; else NULL */
    int64_t nseg;
    int64_t* vals[D_NINT]; /* a column as shown, per kept index (read when first asked) */
    /* the current sort; none: the natural order */
    int sorted, desc;
    const int64_t* keys; /* the sort column per kept index (vals[c], or rank) */
    int64_t* rank;       /* the file column's keys per kept index (owned) */
    int64_t m;           /* the non-NULL keys */
    int64_t* nulls;      /* natural positions of the NULL keys, in order: they come last */
    int64_t nnull;
    Item* top;           /* [0, ntop) of the order, from one pass (select_top) */
    int64_t ntop;
    Item* items;   /* every non-NULL key, once a page past top is asked for: [0, m) in
                    * order where fin says so */
    unsigned char* fin; /* items[i] is in its final place */
};

static DispatchCol col_of(int c) {
    /* the list's integer columns (D_ order) as the store's */
    static const DispatchCol map[D_NINT] = {DS_SEQ,    DS_GPU,       DS_QUEUE, DS_STREAM,
                                           DS_PID,    DS_TID,       DS_START_NS, DS_DUR_NS,
                                           DS_GRID,   DS_WORKGROUP, DS_LDS,   DS_VGPR,
                                           DS_SGPR};
    return map[c];
}

void DispatchPage_delete(DispatchPage* this) {
    if (!this) {
        return;
    }
    DispatchFiles_done(&this->files);
    free(this->row_own);
    free(this->fidx);
    free(this->nat);
    for (int c = 0; c < D_NINT; c++) {
        free(this->vals[c]);
    }
    free(this->seg);
    free(this->rank);
    free(this->items);
    free(this->nulls);
    free(this->top);
    free(this->fin);
    free(this);
}

int64_t DispatchPage_count(const DispatchPage* this) {
    return this->n;
}

/* A kept row's natural order key: file, then start (NULL first: INT64_MIN), then row. */
typedef struct {
    int64_t file, start, row, j;
} NatKey;

static int by_natural(const void* x, const void* y) {
    const NatKey *a = x, *b = y;
    if (a->file != b->file) {
        return a->file < b->file ? -1 : 1;
    }
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    return a->row < b->row ? -1 : a->row > b->row;
}

/* Rows out of start order: the natural order apart, by a sort of their keys (qsort's
 * comparator sees the keys alone, no file-static state). */
static void order_natural(DispatchPage* p, const int64_t* start) {
    NatKey* k = xmalloc(sizeof(NatKey) * (size_t)(p->n > 0 ? p->n : 1));
    for (int64_t j = 0; j < p->n; j++) {
        k[j] = (NatKey){p->fidx[j], start[j], p->row[j], j};
    }
    qsort(k, (size_t)p->n, sizeof(NatKey), by_natural);
    p->nat = xmalloc(sizeof(int64_t) * (size_t)(p->n > 0 ? p->n : 1));
    for (int64_t i = 0; i < p->n; i++) {
        p->nat[i] = k[i].j;
    }
    free(k);
}

/* A start as shown: from the run's start, NULL where that is unknown. */
static int64_t shown_start(const DispatchPage* p, int64_t j, int64_t raw) {
    const DispatchFile* f = &p->files.v[p->fidx[j]];
    return raw == DISPATCH_STORE_NULL || !f->t0_known ? DISPATCH_STORE_NULL : raw - f->t0;
}

/* Reads the file and start of every row of the kernel (those values alone, not whole
 * chunks): the rows the filter keeps, and whether they are in the natural order already
 * (the usual case: no sort). start has room for nk values. */
static DcuStatus read_keys(DispatchPage* p, const int64_t* kr, int64_t nk, int64_t* start,
                           int* in_order, DcuError* err) {
    enum { SLICE = 65536 }; /* file ids a slice at a time: no array as long as the list */
    int64_t* fid = xmalloc(sizeof(int64_t) * SLICE);
    *in_order = 1;
    int64_t last_id = 0, fi = 0;
    for (int64_t i = 0; i < nk; i++) {
        if (i % SLICE == 0) {
            int64_t len = nk - i < SLICE ? nk - i : SLICE;
            if (!DispatchStore_gather(p->store, kr + i, len, DS_FILE_ID, fid) ||
                !DispatchStore_gather(p->store, kr + i, len, DS_START_NS, start + i)) {
                free(fid);
                return Error_set(err, DCU_ERR_IO,
                                 "dispatch store: cannot read back its temporary file");
            }
        }
        int64_t id = fid[i % SLICE];
        if (i == 0 || id != last_id) { /* a file's rows come together: one look-up */
            last_id = id;
            fi = I64Map_get(p->files.ix, id);
        }
        if (!fi) {
            if (!p->row_own) { /* the first row left out: the kept ones apart from here on */
                p->row_own = xmalloc(sizeof(int64_t) * (size_t)(nk > 0 ? nk : 1));
                memcpy(p->row_own, kr, sizeof(int64_t) * (size_t)p->n);
                p->row = p->row_own;
            }
            continue; /* not a used kernel file, or the filter leaves it out */
        }
        int64_t j = p->n++;
        if (p->row_own) {
            p->row_own[j] = kr[i];
        }
        p->fidx[j] = (int32_t)(fi - 1);
        start[j] = start[i];
        if (j > 0 && *in_order) {
            int64_t a = j - 1, b = j;
            int an = start[a] == DISPATCH_STORE_NULL, bn = start[b] == DISPATCH_STORE_NULL;
            *in_order = p->fidx[a] < p->fidx[b] ||
                        (p->fidx[a] == p->fidx[b] &&
                         (an > bn || (an == bn && (an || start[a] <= start[b]))));
        }
    }
    free(fid);
    return DCU_OK;
}

/* The kept rows and their files from the files' row ranges, where the kernel's rows are in
 * start order (DispatchStore_kernelInStartOrder): a file's rows are a run of the kernel's,
 * in file id order, so nothing of the rows is read. 0 (p untouched) when the ranges cannot
 * say (DispatchScan_fileRuns). */
static int place_by_spans(DispatchPage* p, TraceDb* db, const int64_t* kr, int64_t nk) {
    DispatchRun* run;
    int64_t nrun, n = 0, nseg = 0;
    if (!DispatchScan_fileRuns(db, kr, nk, &run, &nrun)) {
        return 0;
    }
    int64_t* own = NULL;
    int64_t* seg = xmalloc(sizeof(int64_t) * (size_t)(nrun + 1));
    for (int64_t k = 0; k < nrun; k++) {
        int64_t i = run[k].from, e = run[k].to;
        int64_t fi = I64Map_get(p->files.ix, run[k].file_id);
        if (!fi && !own) { /* rows left out: the kept ones apart from here on */
            own = xmalloc(sizeof(int64_t) * (size_t)(nk > 0 ? nk : 1));
            memcpy(own, kr, sizeof(int64_t) * (size_t)n);
        }
        if (fi) {
            seg[nseg++] = n;
            for (int64_t r = i; r < e; r++) {
                p->fidx[n + r - i] = (int32_t)(fi - 1);
            }
            if (own) {
                memcpy(own + n, kr + i, sizeof(int64_t) * (size_t)(e - i));
            }
            n += e - i;
        }
    }
    free(run);
    seg[nseg] = n;
    p->seg = seg;
    p->nseg = nseg;
    p->n = n;
    p->row_own = own;
    p->row = own ? own : kr;
    return 1;
}

DcuStatus DispatchPage_open(TraceDb* db, const char* name, const char* filter, int64_t min_rows,
                            DispatchPage** out, DcuError* err) {
    *out = NULL;
    DcuStatus s = KernelQuery_ensureIndex(db, err);
    DispatchStore* store = s == DCU_OK ? DispatchScan_store(db) : NULL;
    sqlite3_stmt* q = NULL;
    if (!store || TraceDb_prepare(db, "SELECT id FROM kernel WHERE name = ?1", &q, err) != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(q, 1, name, -1, SQLITE_TRANSIENT);
    int64_t kid = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
    sqlite3_finalize(q);
    const int64_t* kr;
    int64_t nk;
    if (!DispatchStore_kernelRows(store, kid, &kr, &nk) || nk < min_rows) {
        return DCU_OK;
    }
    DispatchPage* p = xcalloc(1, sizeof(*p));
    p->store = store;
    p->kid = kid;
    p->nk = nk;
    s = DispatchFiles_read(db, filter, &p->files, err);
    if (s != DCU_OK) {
        DispatchPage_delete(p);
        return s;
    }
    p->row = kr; /* until a row is left out (read_keys) */
    p->fidx = xmalloc(sizeof(int32_t) * (size_t)(nk > 0 ? nk : 1));
    if (DispatchStore_kernelInStartOrder(store, kid) && place_by_spans(p, db, kr, nk)) {
        *out = p; /* starts are read when asked for (column, values, rows) */
        return DCU_OK;
    }
    int64_t* start = xmalloc(sizeof(int64_t) * (size_t)(nk > 0 ? nk : 1));
    int in_order = 1;
    s = read_keys(p, kr, nk, start, &in_order, err);
    if (s == DCU_OK && !in_order) { /* rows out of start order: the natural order apart */
        order_natural(p, start);
    }
    for (int64_t j = 0; s == DCU_OK && j < p->n; j++) {
        start[j] = shown_start(p, j, start[j]);
    }
    p->vals[D_START] = start;
    if (s != DCU_OK) {
        DispatchPage_delete(p);
        return s;
    }
    *out = p;
    return DCU_OK;
}

static int64_t kept(const DispatchPage* p, int64_t natural) {
    return p->nat ? p->nat[natural] : natural;
}

/* Column c (integer) of every kept row (rows ascend: chunk by chunk, the values alone). */
static const int64_t* column(DispatchPage* p, int c, DcuError* err) {
    if (p->vals[c]) {
        return p->vals[c];
    }
    int64_t* v = xmalloc(sizeof(int64_t) * (size_t)(p->n > 0 ? p->n : 1));
    if (!DispatchStore_gather(p->store, p->row, p->n, col_of(c), v)) {
        Error_set(err, DCU_ERR_IO, "dispatch store: cannot read back its temporary file");
        free(v);
        return NULL;
    }
    for (int64_t j = 0; c == D_START && j < p->n; j++) {
        v[j] = shown_start(p, j, v[j]);
    }
    p->vals[c] = v;
    return v;
}

static int col_index(const char* key) {
    for (int c = 0; c < D_NINT; c++) {
        if (strcmp(DispatchList_cols[c].key, key) == 0) {
            return c;
        }
    }
    return -1;
}

/* Value c of kept row j as shown; *ok = 0 on a read error. */
static int64_t shown(DispatchPage* p, int64_t j, int c, int* ok) {
    *ok = 1;
    if (p->vals[c]) {
        return p->vals[c][j];
    }
    int64_t x = DispatchStore_value(p->store, p->row[j], col_of(c), ok);
    return c == D_START ? shown_start(p, j, x) : x;
}

static int64_t mag(int64_t v) {
    return v < 0 ? -v : v; /* as table_view.c takes it */
}

/* The first kept row of [a, b) whose start, from the run's start t0, is at least x (the rows
 * of one file, in start order: NULL first, as INT64_MIN); x INT64_MIN + 1: the first not NULL.
 * A value per step of a binary search, not every row. */
static int64_t first_from(DispatchPage* p, int64_t a, int64_t b, int64_t t0, int64_t x,
                          int* ok) {
    while (a < b && *ok) {
        int64_t mid = a + (b - a) / 2;
        int64_t raw = DispatchStore_value(p->store, p->row[mid], DS_START_NS, ok);
        int64_t v = raw == DISPATCH_STORE_NULL ? raw : raw - t0;
        if (v < x) {
            a = mid + 1;
        } else {
            b = mid;
        }
    }
    return a;
}

/* DispatchPage_magnitude of the starts of rows in start order: each file's are sorted, so
 * its largest magnitude is at an end and those below a bound lie between two binary searches. */
static void start_magnitude(DispatchPage* p, int64_t bound, int64_t* n, int64_t* max_abs,
                            int64_t* below, int* ok) {
    for (int64_t i = 0; i < p->nseg && *ok; i++) {
        int64_t a = p->seg[i], b = p->seg[i + 1];
        const DispatchFile* f = &p->files.v[p->fidx[a]];
        if (!f->t0_known) {
            continue; /* every start NULL */
        }
        int64_t z = first_from(p, a, b, f->t0, INT64_MIN + 1, ok);
        if (z == b || !*ok) {
            continue;
        }
        int64_t lo = mag(shown(p, z, D_START, ok)), hi = mag(shown(p, b - 1, D_START, ok));
        *n += b - z;
        *max_abs = lo > *max_abs ? lo : *max_abs;
        *max_abs = hi > *max_abs ? hi : *max_abs;
        if (bound > 0) { /* -bound < v < bound */
            int64_t from = first_from(p, z, b, f->t0, -bound + 1, ok);
            *below += first_from(p, from, b, f->t0, bound, ok) - from;
        }
    }
}

/* DispatchPage_magnitude of the durations from the kernel's range of them (the store's
 * kernel index), while every row of the kernel is kept: 0 when the range cannot say how many
 * lie below bound (the smallest is below it, the largest magnitude not). */
static int dur_magnitude(DispatchPage* p, int64_t bound, int64_t* n, int64_t* max_abs,
                         int64_t* below) {
    int64_t lo, hi;
    if (p->n != p->nk || !DispatchStore_kernelDurations(p->store, p->kid, &lo, &hi, n)) {
        return 0;
    }
    if (*n == 0) {
        return 1;
    }
    *max_abs = mag(lo) > mag(hi) ? mag(lo) : mag(hi);
    if (bound > *max_abs) {
        *below = *n; /* every magnitude is at most max_abs */
        return 1;
    }
    return bound <= 0 || (lo >= 0 && bound <= lo); /* none below */
}

DcuStatus DispatchPage_magnitude(DispatchPage* this, const char* key, int64_t bound, int64_t* n,
                                 int64_t* max_abs, int64_t* below, DcuError* err) {
    *n = *max_abs = *below = 0;
    int c = col_index(key);
    if (c < 0) {
        return DCU_OK;
    }
    int ok = 1;
    if (c == D_START && this->seg && !this->vals[c]) {
        start_magnitude(this, bound, n, max_abs, below, &ok);
        return ok ? DCU_OK
                  : Error_set(err, DCU_ERR_IO,
                              "dispatch store: cannot read back its temporary file");
    }
    if (c == D_DUR && !this->vals[c] && dur_magnitude(this, bound, n, max_abs, below)) {
        return DCU_OK;
    }
    *n = *max_abs = *below = 0;
    const int64_t* v = column(this, c, err);
    if (!v) {
        return DCU_ERR_IO;
    }
    for (int64_t j = 0; j < this->n; j++) {
        if (v[j] != DISPATCH_STORE_NULL) {
            int64_t m = mag(v[j]);
            *n += 1;
            *max_abs = m > *max_abs ? m : *max_abs;
            *below += m < bound;
        }
    }
    return DCU_OK;
}


/* The first rows of a sort found by one pass (select_top): a few screens. */
enum { TOP_ROWS = 1024 };

/* ---- the lazy sort --------------------------------------------------------------------- */

static inline int before(const Item* a, const Item* b, int desc) {
    if (a->k != b->k) {
        return desc ? a->k > b->k : a->k < b->k;
    }
    return a->pos < b->pos;
}

static inline void swap_items(Item* a, int64_t i, int64_t j) {
    Item t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Puts a median of three pivot in its final place in [l, r) and returns that place. */
static int64_t partition(Item* a, int64_t l, int64_t r, int desc) {
    int64_t m = l + (r - l) / 2;
    if (before(&a[m], &a[l], desc)) {
        swap_items(a, l, m);
    }
    if (before(&a[r - 1], &a[l], desc)) {
        swap_items(a, l, r - 1);
    }
    if (before(&a[r - 1], &a[m], desc)) {
        swap_items(a, m, r - 1);
    }
    swap_items(a, m, r - 1);
    Item piv = a[r - 1];
    int64_t i = l;
    for (int64_t j = l; j < r - 1; j++) {
        if (before(&a[j], &piv, desc)) {
            swap_items(a, i++, j);
        }
    }
    swap_items(a, i, r - 1);
    return i;
}

/* [l, r) holds the items of those ranks, unordered: orders as much of it as puts the
 * window [wl, wr) in place (quickselect that follows the window). */
static void settle_range(DispatchPage* p, int64_t l, int64_t r, int64_t wl, int64_t wr) {
    Item* a = p->items;
    while (r - l > 16) {
        int64_t k = partition(a, l, r, p->desc);
        p->fin[k] = 1;
        int left = wl < k && wr > l, right = wr > k + 1 && wl < r;
        if (left && right) {
            settle_range(p, l, k, wl, wr);
            l = k + 1;
        } else if (left) {
            r = k;
        } else if (right) {
            l = k + 1;
        } else {
            return;
        }
    }
    for (int64_t i = l + 1; i < r; i++) { /* a few items: insertion sort */
        Item x = a[i];
        int64_t j = i;
        while (j > l && before(&x, &a[j - 1], p->desc)) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
    if (r > l) {
        memset(p->fin + l, 1, (size_t)(r - l));
    }
}

static void settle(DispatchPage* p, int64_t lo, int64_t hi) {
    hi = hi < p->m ? hi : p->m;
    for (int64_t i = lo < 0 ? 0 : lo; i < hi; i++) {
        if (p->fin[i]) {
            continue;
        }
        int64_t l = i, r = i;
        while (l > 0 && !p->fin[l - 1]) {
            l--;
        }
        while (r < p->m && !p->fin[r]) {
            r++;
        }
        settle_range(p, l, r, i, hi);
    }
}

static void drop_sort(DispatchPage* p) {
    free(p->items);
    free(p->nulls);
    free(p->top);
    free(p->fin);
    free(p->rank);
    p->items = p->top = NULL;
    p->nulls = p->rank = NULL;
    p->fin = NULL;
    p->keys = NULL;
    p->m = p->nnull = p->ntop = 0;
    p->sorted = 0;
}

/* The files' names as ranks (strcmp order, equal names equal ranks), per kept row: the file
 * column's keys. A folder of 50,000 runs has as many files: sorted, not compared pairwise. */
typedef struct {
    const char* name;
    int64_t i;
} Named;

static int by_name(const void* x, const void* y) {
    return strcmp(((const Named*)x)->name, ((const Named*)y)->name);
}

static int64_t* file_ranks(const DispatchPage* p) {
    int64_t nf = p->files.n;
    Named* order = xmalloc(sizeof(Named) * (size_t)(nf > 0 ? nf : 1));
    int64_t* rank = xmalloc(sizeof(int64_t) * (size_t)(nf > 0 ? nf : 1));
    for (int64_t i = 0; i < nf; i++) {
        order[i] = (Named){p->files.v[i].name, i};
    }
    qsort(order, (size_t)nf, sizeof(Named), by_name);
    for (int64_t i = 0; i < nf; i++) {
        int same = i > 0 && strcmp(order[i].name, order[i - 1].name) == 0;
        rank[order[i].i] = same ? rank[order[i - 1].i] : i;
    }
    free(order);
    int64_t* keys = xmalloc(sizeof(int64_t) * (size_t)(p->n > 0 ? p->n : 1));
    for (int64_t j = 0; j < p->n; j++) {
        keys[j] = rank[p->fidx[j]];
    }
    free(rank);
    return keys;
}

static int by_item_asc(const void* x, const void* y) {
    return before(x, y, 0) ? -1 : before(y, x, 0);
}

static int by_item_desc(const void* x, const void* y) {
    return before(x, y, 1) ? -1 : before(y, x, 1);
}

static void sort_items(Item* a, int64_t n, int desc) {
    qsort(a, (size_t)n, sizeof(Item), desc ? by_item_desc : by_item_asc);
}

static void push(Item** a, int64_t* n, int64_t* cap, Item x) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *a = xrealloc(*a, sizeof(Item) * (size_t)*cap);
    }
    (*a)[(*n)++] = x;
}

/* A key that about 2 * want (and 4 / 1024 of the list) of the non-NULL keys come before,
 * from 1024 spread over the list; 0 when the spread holds no key. */
static int pick_bound(const DispatchPage* p, int64_t want, Item* bound) {
    enum { SAMPLE = 1024 };
    Item smp[SAMPLE];
    int64_t ns = 0, s = p->n < SAMPLE ? p->n : SAMPLE;
    for (int64_t i = 0; i < s; i++) {
        int64_t q = (int64_t)((double)i * (double)p->n / (double)s);
        int64_t k = p->keys[kept(p, q)];
        if (k != DISPATCH_STORE_NULL) {
            smp[ns++] = (Item){k, q};
        }
    }
    if (ns == 0) {
        return 0;
    }
    sort_items(smp, ns, p->desc);
    double r = 2.0 * (double)want * (double)ns / (double)p->n + 4;
    *bound = smp[r < (double)ns ? (int64_t)r : ns - 1];
    return 1;
}

/* One pass over the keys: the NULLs (last, in natural order), the count of the others, and
 * the first want or more of the order (top): those whose key comes before a bound, sorted
 * (a few times want, unless the spread of pick_bound misled it: then none), then the first
 * want whose key equals it (ties go in natural order). The first page of a sort of
 * 2,000,000 rows is then this pass, not a partial quicksort of them all. */
static void select_top(DispatchPage* p, int64_t want) {
    Item bound = {0, 0};
    int has = pick_bound(p, want, &bound);
    int64_t limit = want * 64 > 65536 ? want * 64 : 65536, cap = 0, ncap = 0, nb = 0;
    Item* eq = xmalloc(sizeof(Item) * (size_t)(want > 0 ? want : 1));
    int64_t neq = 0;
    for (int64_t q = 0; q < p->n; q++) {
        int64_t k = p->keys[kept(p, q)];
        if (k == DISPATCH_STORE_NULL) {
            if (p->nnull == ncap) {
                ncap = ncap ? 2 * ncap : 1024;
                p->nulls = xrealloc(p->nulls, sizeof(int64_t) * (size_t)ncap);
            }
            p->nulls[p->nnull++] = q;
            continue;
        }
        p->m++;
        if (!has || nb > limit) {
            continue; /* no bound, or it let too many through: no top */
        }
        if (k == bound.k) {
            if (neq < want) {
                eq[neq++] = (Item){k, q};
            }
        } else if (p->desc ? k > bound.k : k < bound.k) {
            push(&p->top, &nb, &cap, (Item){k, q});
        }
    }
    if (!has || nb > limit) {
        free(p->top);
        p->top = NULL;
        nb = neq = 0;
    }
    if (nb > 0) {
        sort_items(p->top, nb, p->desc);
    }
    p->top = xrealloc(p->top, sizeof(Item) * (size_t)(nb + neq > 0 ? nb + neq : 1));
    memcpy(p->top + nb, eq, sizeof(Item) * (size_t)neq);
    p->ntop = nb + neq;
    free(eq);
}

/* Every non-NULL key for the lazy quicksort, once a position past top is asked for. */
static void build_items(DispatchPage* p) {
    if (p->items) {
        return;
    }
    p->items = xmalloc(sizeof(Item) * (size_t)(p->m > 0 ? p->m : 1));
    int64_t m = 0;
    for (int64_t q = 0; q < p->n; q++) {
        int64_t k = p->keys[kept(p, q)];
        if (k != DISPATCH_STORE_NULL) {
            p->items[m++] = (Item){k, q};
        }
    }
    p->fin = xcalloc((size_t)(p->m > 0 ? p->m : 1), 1);
}

/* Column c read for a sort, kept for the next (a reverse reads nothing); other columns read
 * for a sort before go, so at most one besides start and duration is held. */
static const int64_t* sort_keys(DispatchPage* p, int c, DcuError* err) {
    for (int i = 0; i < D_NINT; i++) {
        if (i != c && i != D_START && i != D_DUR) {
            free(p->vals[i]);
            p->vals[i] = NULL;
        }
    }
    return column(p, c, err);
}

DcuStatus DispatchPage_sort(DispatchPage* this, const char* spec, DcuError* err) {
    drop_sort(this);
    if (!spec || !*spec) {
        return DCU_OK;
    }
    const char* colon = strchr(spec, ':');
    size_t kl = colon ? (size_t)(colon - spec) : strlen(spec);
    int c = -1;
    for (int i = 0; i < D_NCOLS && c < 0; i++) {
        if (strlen(DispatchList_cols[i].key) == kl &&
            strncmp(DispatchList_cols[i].key, spec, kl) == 0) {
            c = i;
        }
    }
    if (c < 0) {
        return Error_set(err, DCU_ERR_USAGE, "unknown sort column '%.*s' for dispatches",
                         (int)kl, spec);
    }
    int desc = c != D_FILE;
    if (colon) {
        desc = strcmp(colon + 1, "desc") == 0;
    }
    this->rank = c == D_FILE ? file_ranks(this) : NULL;
    this->keys = this->rank ? this->rank : sort_keys(this, c, err);
    if (!this->keys) {
        return DCU_ERR_IO;
    }
    this->desc = desc;
    this->sorted = 1;
    select_top(this, TOP_ROWS);
    return DCU_OK;
}

/* The natural position of the row at position i of the current order. */
static int64_t natural_at(DispatchPage* p, int64_t i) {
    if (!p->sorted) {
        return i;
    }
    if (i >= p->m) {
        return p->nulls[i - p->m];
    }
    if (i < p->ntop) {
        return p->top[i].pos;
    }
    build_items(p);
    if (!p->fin[i]) {
        settle(p, i, i + 1);
    }
    return p->items[i].pos;
}

DcuStatus DispatchPage_rows(DispatchPage* this, int64_t first, int64_t n, int64_t step,
                            ResultSet** out, DcuError* err) {
    *out = NULL;
    step = step < 1 ? 1 : step;
    first = first < 0 ? 0 : first;
    int64_t from = first > this->ntop ? first : this->ntop;
    if (this->sorted && step == 1 && from < this->m && from < first + n) {
        build_items(this);
        settle(this, from, first + n); /* the page in one go */
    }
    ResultSet* rs = ResultSet_new("dispatches", DispatchList_cols, D_NCOLS);
    for (int64_t t = 0; t < n && first + t * step < this->n; t++) {
        int64_t j = kept(this, natural_at(this, first + t * step));
        const DispatchFile* f = &this->files.v[this->fidx[j]];
        int r = ResultSet_addRow(rs);
        for (int c = 0; c < D_NINT; c++) {
            int ok;
            int64_t x = shown(this, j, c, &ok);
            if (!ok) {
                ResultSet_delete(rs);
                return Error_set(err, DCU_ERR_IO,
                                 "dispatch store: cannot read back its temporary file");
            }
            if (x != DISPATCH_STORE_NULL) {
                ResultSet_setInt(rs, r, c, x);
            }
        }
        ResultSet_setText(rs, r, D_FILE, f->name);
    }
    *out = rs;
    return DCU_OK;
}
