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
    int64_t n;
    const int64_t* row; /* store row of each kept dispatch, in row order: the store's
                         * kernel index itself while every row is kept (no copy) */
    int64_t* row_own;   /* else the kept ones (owned) */
    int32_t* fidx; /* its file (index into files) */
    int64_t* nat;  /* natural position -> kept index; NULL: the same (rows in start order) */
    int64_t* vals[D_NINT]; /* a column as shown, per kept index (read when first asked) */
    /* the current sort; none: the natural order */
    int sorted, desc;
    Item* items;   /* the non-NULL keys; [0, m) in order where fin says so */
    int64_t m;
    int64_t* nulls; /* natural positions of the NULL keys, in order: they come last */
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
    free(this->items);
    free(this->nulls);
    free(this->fin);
    free(this);
}

int64_t DispatchPage_count(const DispatchPage* this) {
    return this->n;
}

/* Natural order: file, then NULL starts first, start, row (dispatch_list.c's row_before). */
static const DispatchPage* order_base;
static const int64_t* order_start;
static int by_natural(const void* x, const void* y) {
    int64_t a = *(const int64_t*)x, b = *(const int64_t*)y;
    const DispatchPage* p = order_base;
    if (p->fidx[a] != p->fidx[b]) {
        return p->fidx[a] < p->fidx[b] ? -1 : 1;
    }
    int64_t sa = order_start[a], sb = order_start[b];
    int an = sa == DISPATCH_STORE_NULL, bn = sb == DISPATCH_STORE_NULL;
    if (an != bn) {
        return an ? -1 : 1;
    }
    if (!an && sa != sb) {
        return sa < sb ? -1 : 1;
    }
    return p->row[a] < p->row[b] ? -1 : p->row[a] > p->row[b];
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
    s = DispatchFiles_read(db, filter, &p->files, err);
    if (s != DCU_OK) {
        DispatchPage_delete(p);
        return s;
    }
    p->row = kr; /* until a row is left out (read_keys) */
    p->fidx = xmalloc(sizeof(int32_t) * (size_t)(nk > 0 ? nk : 1));
    int64_t* start = xmalloc(sizeof(int64_t) * (size_t)(nk > 0 ? nk : 1));
    int in_order = 1;
    s = read_keys(p, kr, nk, start, &in_order, err);
    if (s == DCU_OK && !in_order) { /* rows out of start order: the natural order apart */
        p->nat = xmalloc(sizeof(int64_t) * (size_t)(p->n > 0 ? p->n : 1));
        for (int64_t i = 0; i < p->n; i++) {
            p->nat[i] = i;
        }
        order_base = p;
        order_start = start;
        qsort(p->nat, (size_t)p->n, sizeof(int64_t), by_natural);
        order_base = NULL;
        order_start = NULL;
    }
    /* the start as shown: from the run's start, NULL where that is unknown */
    for (int64_t j = 0; s == DCU_OK && j < p->n; j++) {
        const DispatchFile* f = &p->files.v[p->fidx[j]];
        start[j] = start[j] == DISPATCH_STORE_NULL || !f->t0_known ? DISPATCH_STORE_NULL
                                                                   : start[j] - f->t0;
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
    p->vals[c] = v;
    return v;
}

const int64_t* DispatchPage_values(DispatchPage* this, const char* key, int64_t* n,
                                   DcuError* err) {
    *n = this->n;
    for (int c = 0; c < D_NINT; c++) {
        if (strcmp(DispatchList_cols[c].key, key) == 0) {
            return column(this, c, err);
        }
    }
    return NULL;
}

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
    free(p->fin);
    p->items = NULL;
    p->nulls = NULL;
    p->fin = NULL;
    p->m = 0;
    p->sorted = 0;
}

/* The files' names as ranks (strcmp order, equal names equal ranks): the file column's keys.
 * A folder of 50,000 runs has as many files: sorted, not compared pairwise. */
static const DispatchFiles* rank_files;
static int by_name(const void* x, const void* y) {
    return strcmp(rank_files->v[*(const int64_t*)x].name, rank_files->v[*(const int64_t*)y].name);
}

static int64_t* file_ranks(const DispatchPage* p) {
    int64_t nf = p->files.n;
    int64_t* order = xmalloc(sizeof(int64_t) * (size_t)(nf > 0 ? nf : 1));
    int64_t* rank = xmalloc(sizeof(int64_t) * (size_t)(nf > 0 ? nf : 1));
    for (int64_t i = 0; i < nf; i++) {
        order[i] = i;
    }
    rank_files = &p->files;
    qsort(order, (size_t)nf, sizeof(int64_t), by_name);
    rank_files = NULL;
    for (int64_t i = 0; i < nf; i++) {
        int same = i > 0 && strcmp(p->files.v[order[i]].name, p->files.v[order[i - 1]].name) == 0;
        rank[order[i]] = same ? rank[order[i - 1]] : i;
    }
    free(order);
    return rank;
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
    int64_t* rank = c == D_FILE ? file_ranks(this) : NULL;
    /* the keys straight from the store a slice at a time, when the rows are in the natural
     * order and the column was not read before: no copy of it as long as the list */
    enum { SLICE = 65536 };
    int sliced = !rank && !this->nat && !this->vals[c];
    int64_t* buf = sliced ? xmalloc(sizeof(int64_t) * SLICE) : NULL;
    const int64_t* v = rank ? NULL : sliced ? buf : column(this, c, err);
    if (!rank && !v) {
        return DCU_ERR_IO;
    }
    this->items = xmalloc(sizeof(Item) * (size_t)(this->n > 0 ? this->n : 1));
    this->nulls = xmalloc(sizeof(int64_t) * (size_t)(this->n > 0 ? this->n : 1));
    int64_t nn = 0;
    DcuStatus s = DCU_OK;
    for (int64_t q = 0; q < this->n && s == DCU_OK; q++) {
        if (sliced && q % SLICE == 0 &&
            !DispatchStore_gather(this->store, this->row + q,
                                  this->n - q < SLICE ? this->n - q : SLICE, col_of(c), buf)) {
            s = Error_set(err, DCU_ERR_IO, "dispatch store: cannot read back its temporary file");
        }
        int64_t j = kept(this, q);
        int64_t k = rank ? rank[this->fidx[j]] : sliced ? v[q % SLICE] : v[j];
        if (k == DISPATCH_STORE_NULL) {
            this->nulls[nn++] = q;
        } else {
            this->items[this->m++] = (Item){k, q};
        }
    }
    free(buf);
    if (s != DCU_OK) {
        free(rank);
        drop_sort(this);
        return s;
    }
    free(rank);
    this->fin = xcalloc((size_t)(this->m > 0 ? this->m : 1), 1);
    this->desc = desc;
    this->sorted = 1;
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
    if (this->sorted && step == 1) {
        settle(this, first, first + n); /* the page in one go */
    }
    ResultSet* rs = ResultSet_new("dispatches", DispatchList_cols, D_NCOLS);
    for (int64_t t = 0; t < n && first + t * step < this->n; t++) {
        int64_t j = kept(this, natural_at(this, first + t * step));
        const DispatchFile* f = &this->files.v[this->fidx[j]];
        int r = ResultSet_addRow(rs);
        for (int c = 0; c < D_NINT; c++) {
            int ok;
            int64_t x = c == D_START ? this->vals[D_START][j]
                                     : DispatchStore_value(this->store, this->row[j], col_of(c),
                                                           &ok);
            if (c != D_START && !ok) {
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
