/* dispatch_store.c - the dispatch table as column arrays behind an SQLite virtual table
 * (see dispatch_store.h). */
#include "dcutop/dispatch_store.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dcutop/xalloc.h"

enum { CHUNK = DISPATCH_STORE_CHUNK };
#define CHUNK_BYTES ((int64_t)CHUNK * DS_NCOLS * (int64_t)sizeof(int64_t))

typedef struct {
    int64_t* data; /* column-major: data[col * CHUNK + row]; NULL while spilled (owned) */
    int64_t tick;  /* last use, for least recently used eviction */
    int spilled;   /* its rows are in the temporary file (full chunks only) */
} Chunk;

typedef struct {
    int64_t v;
    int64_t row; /* 0-based */
} Pair;

/* A sorted (value, row) index of one column; rows with a NULL value left out. */
typedef struct {
    Pair* p;
    int64_t np;
    int64_t built_n; /* row count when built; -1: never */
    int64_t bytes;
} SortedIdx;

struct DispatchStore_ {
    Chunk* chunks;
    int64_t nchunks, capchunks;
    int64_t n;       /* rows */
    int64_t budget;  /* bytes; 0: no bound */
    int64_t resident; /* bytes of resident chunks and indexes */
    int64_t tick;
    char* tmpdir; /* where the spill file goes (owned) */
    int fd;       /* the spill file, -1 until the first spill */
    int full;     /* the spill file could not be written: out of room (ENOSPC, EFBIG) */
    /* kernel_id index: rows of kernel k are krow[koff[k] .. koff[k + 1]) in row order */
    int64_t* koff;
    int64_t* krow;
    int64_t kmax, kbuilt_n, kbytes;
    SortedIdx corr, seq;
    /* chunk buffers come from slabs of SLAB_CHUNKS, mapped with transparent huge pages
     * where the system allows: a 4 KiB page fault per 4 KiB of rows was a sixth of a
     * 1M-dispatch load. A buffer given back (spilled) returns its pages to the system. */
    void** slabs;
    int64_t nslabs;
    int64_t** freebufs;
    int64_t nfree, capfree;
};

/* 32 chunks of 576 KiB are 18 MiB: nine 2 MiB huge pages, the slab aligned to 2 MiB */
enum { SLAB_CHUNKS = 32 };
#define SLAB_BYTES ((size_t)SLAB_CHUNKS * (size_t)CHUNK_BYTES)
#define HUGE_BYTES ((size_t)2 << 20)

/* SLAB_BYTES of fresh memory at a 2 MiB boundary (the unaligned head and tail of a larger
 * mapping unmapped), advised huge; MAP_FAILED when the system has none. */
static void* map_slab(void) {
    size_t len = SLAB_BYTES + HUGE_BYTES;
    char* m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        return MAP_FAILED;
    }
    char* a = (char*)(((uintptr_t)m + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    if (a > m) {
        munmap(m, (size_t)(a - m));
    }
    if (a + SLAB_BYTES < m + len) {
        munmap(a + SLAB_BYTES, (size_t)(m + len - (a + SLAB_BYTES)));
    }
#ifdef MADV_HUGEPAGE
    madvise(a, SLAB_BYTES, MADV_HUGEPAGE);
#endif
    return a;
}

static void push_free(DispatchStore* this, int64_t* d) {
    if (this->nfree == this->capfree) {
        this->capfree = this->capfree ? this->capfree * 2 : 64;
        this->freebufs = xrealloc(this->freebufs, (size_t)this->capfree * sizeof(int64_t*));
    }
    this->freebufs[this->nfree++] = d;
}

static int64_t* chunk_alloc(DispatchStore* this) {
    if (this->nfree == 0) {
        void* slab = map_slab();
        if (slab == MAP_FAILED) {
            return xmalloc((size_t)CHUNK_BYTES); /* freed as a block of its own */
        }
        this->slabs = xrealloc(this->slabs, (size_t)(this->nslabs + 1) * sizeof(void*));
        this->slabs[this->nslabs++] = slab;
        for (int i = SLAB_CHUNKS - 1; i >= 0; i--) { /* the slab's first buffer first */
            push_free(this, (int64_t*)((char*)slab + (size_t)i * (size_t)CHUNK_BYTES));
        }
    }
    return this->freebufs[--this->nfree];
}

/* 1 when d lies in one of the slabs. */
static int in_slab(const DispatchStore* this, const int64_t* d) {
    for (int64_t i = 0; i < this->nslabs; i++) {
        const char* s = this->slabs[i];
        if ((const char*)d >= s && (const char*)d < s + SLAB_BYTES) {
            return 1;
        }
    }
    return 0;
}

static void chunk_release(DispatchStore* this, int64_t* d) {
    if (!in_slab(this, d)) {
        free(d);
        return;
    }
    madvise(d, (size_t)CHUNK_BYTES, MADV_DONTNEED); /* the pages go back; the range stays */
    push_free(this, d);
}

DispatchStore* DispatchStore_new(int64_t budget, const char* tmpdir) {
    DispatchStore* this = xcalloc(1, sizeof(*this));
    this->tmpdir = xstrdup(tmpdir);
    this->budget = budget > 0 && budget < 2 * CHUNK_BYTES ? 2 * CHUNK_BYTES : budget;
    this->fd = -1;
    this->kbuilt_n = this->corr.built_n = this->seq.built_n = -1;
    return this;
}

void DispatchStore_delete(DispatchStore* this) {
    if (!this) {
        return;
    }
    for (int64_t i = 0; i < this->nchunks; i++) {
        if (this->chunks[i].data && !in_slab(this, this->chunks[i].data)) {
            free(this->chunks[i].data);
        }
    }
    for (int64_t i = 0; i < this->nslabs; i++) {
        munmap(this->slabs[i], SLAB_BYTES);
    }
    free(this->slabs);
    free(this->freebufs);
    free(this->chunks);
    free(this->koff);
    free(this->krow);
    free(this->corr.p);
    free(this->seq.p);
    if (this->fd >= 0) {
        close(this->fd);
    }
    free(this->tmpdir);
    free(this);
}

int64_t DispatchStore_spilled(const DispatchStore* this) {
    int64_t n = 0;
    for (int64_t i = 0; i < this->nchunks; i++) {
        n += this->chunks[i].spilled;
    }
    return n;
}

int DispatchStore_outOfRoom(const DispatchStore* this) {
    return this->full;
}

int64_t DispatchStore_count(const DispatchStore* this) {
    return this->n;
}

/* ---- chunks and the spill file ---------------------------------------------------------- */

static int open_spill(DispatchStore* this) {
    /* where SQLite puts its temp files, which the out-of-room message names */
    char* path = xasprintf("%s/dcutop-dispatch-XXXXXX", this->tmpdir);
    this->fd = mkstemp(path);
    if (this->fd >= 0) {
        unlink(path);
    }
    free(path);
    return this->fd >= 0;
}

static int write_all(int fd, const void* buf, int64_t len, int64_t off) {
    const char* p = buf;
    while (len > 0) {
        ssize_t w = pwrite(fd, p, (size_t)len, (off_t)off);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return 0;
        }
        p += w;
        len -= w;
        off += w;
    }
    return 1;
}

static int read_all(int fd, void* buf, int64_t len, int64_t off) {
    char* p = buf;
    while (len > 0) {
        ssize_t r = pread(fd, p, (size_t)len, (off_t)off);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return 0;
        }
        p += r;
        len -= r;
        off += r;
    }
    return 1;
}

/* Frees least recently used full chunks (not `keep`) until `need` more bytes fit the
 * budget or none is left to free. Returns 0 on a write error. */
static int make_room(DispatchStore* this, int64_t need, int64_t keep) {
    while (this->budget > 0 && this->resident + need > this->budget) {
        int64_t victim = -1;
        for (int64_t i = 0; i < this->nchunks; i++) {
            const Chunk* c = &this->chunks[i];
            int full = (i + 1) * (int64_t)CHUNK <= this->n;
            if (c->data && full && i != keep && (victim < 0 || c->tick < this->chunks[victim].tick)) {
                victim = i;
            }
        }
        if (victim < 0) {
            return 1;
        }
        Chunk* c = &this->chunks[victim];
        if (!c->spilled) {
            if ((this->fd < 0 && !open_spill(this)) ||
                !write_all(this->fd, c->data, CHUNK_BYTES, victim * CHUNK_BYTES)) {
                return 0;
            }
            c->spilled = 1;
        }
        chunk_release(this, c->data);
        c->data = NULL;
        this->resident -= CHUNK_BYTES;
    }
    return 1;
}

/* The resident data of chunk ci, read back if spilled; NULL on a read error. */
static const int64_t* chunk_data(DispatchStore* this, int64_t ci) {
    Chunk* c = &this->chunks[ci];
    if (!c->data) {
        if (!make_room(this, CHUNK_BYTES, ci)) {
            return NULL;
        }
        int64_t* d = chunk_alloc(this);
        if (!read_all(this->fd, d, CHUNK_BYTES, ci * CHUNK_BYTES)) {
            chunk_release(this, d);
            return NULL;
        }
        c->data = d;
        this->resident += CHUNK_BYTES;
    }
    c->tick = ++this->tick;
    return c->data;
}

/* Value of column col of the 0-based row; *ok = 0 on a read error. */
static int64_t get(DispatchStore* this, int64_t row, int col, int* ok) {
    const int64_t* d = chunk_data(this, row / CHUNK);
    if (!d) {
        *ok = 0;
        return DISPATCH_STORE_NULL;
    }
    return d[(int64_t)col * CHUNK + row % CHUNK];
}

const int64_t* DispatchStore_chunk(DispatchStore* this, int64_t ci, int64_t* rows) {
    *rows = 0;
    if (ci < 0 || ci >= this->nchunks) {
        return NULL;
    }
    int64_t left = this->n - ci * (int64_t)CHUNK;
    const int64_t* d = chunk_data(this, ci);
    if (d) {
        *rows = left < CHUNK ? left : CHUNK;
    }
    return d;
}

int64_t DispatchStore_append(DispatchStore* this, const int64_t* v, DcuError* err) {
    int64_t ci = this->n / CHUNK;
    if (ci == this->nchunks) {
        if (!make_room(this, CHUNK_BYTES, -1)) {
            this->full = errno == ENOSPC || errno == EFBIG || errno == EDQUOT;
            Error_set(err, DCU_ERR_IO, "dispatch store: cannot write its temporary file: %s",
                      strerror(errno));
            return 0;
        }
        if (this->nchunks == this->capchunks) {
            this->capchunks = this->capchunks ? this->capchunks * 2 : 16;
            this->chunks = xrealloc(this->chunks, (size_t)this->capchunks * sizeof(Chunk));
        }
        Chunk* c = &this->chunks[this->nchunks++];
        memset(c, 0, sizeof(*c));
        c->data = chunk_alloc(this);
        this->resident += CHUNK_BYTES;
    }
    Chunk* c = &this->chunks[ci];
    /* the last chunk is never evicted (make_room spares chunks that are not full) */
    int64_t r = this->n % CHUNK;
    for (int i = 0; i < DS_NCOLS; i++) {
        c->data[(int64_t)i * CHUNK + r] = v[i];
    }
    c->tick = ++this->tick;
    return ++this->n;
}

/* ---- indexes ---------------------------------------------------------------------------- */

static void set_index_bytes(DispatchStore* this, int64_t before, int64_t after) {
    this->resident += after - before;
}

static int build_kernel_index(DispatchStore* this) {
    if (this->kbuilt_n == this->n) {
        return 1;
    }
    int ok = 1;
    int64_t kmax = 0;
    for (int64_t r = 0; r < this->n && ok; r++) {
        int64_t k = get(this, r, DS_KERNEL_ID, &ok);
        kmax = k > kmax ? k : kmax;
    }
    if (!ok || kmax > this->n + 1000000) {
        return 0; /* ids are the loader's dense kernel ids; anything else: no index */
    }
    free(this->koff);
    free(this->krow);
    this->koff = xcalloc((size_t)(kmax + 2), sizeof(int64_t));
    this->krow = xmalloc((size_t)(this->n > 0 ? this->n : 1) * sizeof(int64_t));
    for (int64_t r = 0; r < this->n && ok; r++) {
        int64_t k = get(this, r, DS_KERNEL_ID, &ok);
        if (k >= 0) {
            this->koff[k + 1]++;
        }
    }
    for (int64_t k = 0; k <= kmax; k++) {
        this->koff[k + 1] += this->koff[k];
    }
    int64_t* fill = xmalloc((size_t)(kmax + 1) * sizeof(int64_t));
    memcpy(fill, this->koff, (size_t)(kmax + 1) * sizeof(int64_t));
    for (int64_t r = 0; r < this->n && ok; r++) {
        int64_t k = get(this, r, DS_KERNEL_ID, &ok);
        if (k >= 0) {
            this->krow[fill[k]++] = r;
        }
    }
    free(fill);
    this->kmax = kmax;
    this->kbuilt_n = ok ? this->n : -1;
    int64_t bytes = (kmax + 2 + this->n) * (int64_t)sizeof(int64_t);
    set_index_bytes(this, this->kbytes, bytes);
    this->kbytes = bytes;
    return ok;
}

void DispatchStore_buildKernelIndex(DispatchStore* this) {
    build_kernel_index(this);
}

int DispatchStore_kernelRows(DispatchStore* this, int64_t kernel_id, const int64_t** rows,
                             int64_t* n) {
    *rows = NULL;
    *n = 0;
    if (!build_kernel_index(this)) {
        return 0;
    }
    if (kernel_id >= 0 && kernel_id <= this->kmax) {
        *rows = this->krow + this->koff[kernel_id];
        *n = this->koff[kernel_id + 1] - this->koff[kernel_id];
    }
    return 1;
}

static int cmp_pair(const void* a, const void* b) {
    const Pair* x = a;
    const Pair* y = b;
    if (x->v != y->v) {
        return x->v < y->v ? -1 : 1;
    }
    return x->row < y->row ? -1 : x->row > y->row;
}

static int build_sorted(DispatchStore* this, SortedIdx* ix, int col) {
    if (ix->built_n == this->n) {
        return 1;
    }
    free(ix->p);
    ix->p = xmalloc((size_t)(this->n > 0 ? this->n : 1) * sizeof(Pair));
    ix->np = 0;
    int ok = 1;
    for (int64_t r = 0; r < this->n && ok; r++) {
        int64_t v = get(this, r, col, &ok);
        if (v != DISPATCH_STORE_NULL) {
            ix->p[ix->np++] = (Pair){v, r};
        }
    }
    qsort(ix->p, (size_t)ix->np, sizeof(Pair), cmp_pair);
    ix->built_n = ok ? this->n : -1;
    int64_t bytes = (this->n > 0 ? this->n : 1) * (int64_t)sizeof(Pair);
    set_index_bytes(this, ix->bytes, bytes);
    ix->bytes = bytes;
    return ok;
}

/* ---- the virtual table ------------------------------------------------------------------ */

/* The columns as SCHEMA.md documents them (trace_db.c keeps the commented definition). */
static const char vtab_decl[] =
    "CREATE TABLE x(id INTEGER, file_id INTEGER, kernel_id INTEGER, seq INTEGER,"
    " gpu INTEGER, queue INTEGER, stream INTEGER, pid INTEGER, tid INTEGER, corr_id INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, dur_ns INTEGER, grid INTEGER, workgroup INTEGER,"
    " lds INTEGER, scratch INTEGER, vgpr INTEGER, sgpr INTEGER)";

enum { VCOL_ID = 0, VCOL_KERNEL = 1 + DS_KERNEL_ID, VCOL_SEQ = 1 + DS_SEQ,
       VCOL_CORR = 1 + DS_CORR_ID };

/* plans (idxNum): a rowid range with optional bounds, or one value of an index */
enum {
    PLAN_SCAN = 0,
    PLAN_RANGE = 1,
    PLAN_KERNEL = 2,
    PLAN_CORR = 3,
    PLAN_SEQ = 4,
    PLAN_KIND = 0xff,
    HAS_LO = 0x100, /* argv: lower bound first */
    LO_GT = 0x200,
    HAS_HI = 0x400,
    HI_LT = 0x800,
};

typedef struct {
    sqlite3_vtab base;
    DispatchStore* s;
} DsVtab;

typedef struct {
    sqlite3_vtab_cursor base;
    DispatchStore* s;
    int64_t i, end;      /* position in [i, end) of rows, krow or pairs */
    const int64_t* krow; /* PLAN_KERNEL: the kernel's rows */
    const Pair* pairs;   /* PLAN_CORR / PLAN_SEQ */
    int64_t row;         /* the current 0-based row */
} DsCursor;

static int ds_connect(sqlite3* db, void* aux, int argc, const char* const* argv,
                      sqlite3_vtab** out, char** errmsg) {
    (void)argc;
    (void)argv;
    (void)errmsg;
    int rc = sqlite3_declare_vtab(db, vtab_decl);
    if (rc != SQLITE_OK) {
        return rc;
    }
    DsVtab* v = sqlite3_malloc(sizeof(*v));
    if (!v) {
        return SQLITE_NOMEM;
    }
    memset(v, 0, sizeof(*v));
    v->s = aux;
    *out = &v->base;
    return SQLITE_OK;
}

static int ds_disconnect(sqlite3_vtab* vt) {
    sqlite3_free(vt);
    return SQLITE_OK;
}

static int is_rowid(int col) {
    return col == -1 || col == VCOL_ID;
}

static int ds_best_index(sqlite3_vtab* vt, sqlite3_index_info* info) {
    const DispatchStore* s = ((DsVtab*)vt)->s;
    double n = (double)(s->n > 0 ? s->n : 1);
    int eq_id = -1, lo = -1, hi = -1, eq_k = -1, eq_c = -1, eq_s = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint* c = &info->aConstraint[i];
        if (!c->usable) {
            continue;
        }
        unsigned char op = c->op;
        if (is_rowid(c->iColumn)) {
            if (op == SQLITE_INDEX_CONSTRAINT_EQ) {
                eq_id = i;
            } else if (op == SQLITE_INDEX_CONSTRAINT_GT || op == SQLITE_INDEX_CONSTRAINT_GE) {
                lo = i;
            } else if (op == SQLITE_INDEX_CONSTRAINT_LT || op == SQLITE_INDEX_CONSTRAINT_LE) {
                hi = i;
            }
        } else if (op == SQLITE_INDEX_CONSTRAINT_EQ) {
            eq_k = c->iColumn == VCOL_KERNEL ? i : eq_k;
            eq_c = c->iColumn == VCOL_CORR ? i : eq_c;
            eq_s = c->iColumn == VCOL_SEQ ? i : eq_s;
        }
    }
    int plan = PLAN_SCAN;
    double rows = n;
    if (eq_id >= 0) {
        plan = PLAN_RANGE | HAS_LO | HAS_HI;
        info->aConstraintUsage[eq_id].argvIndex = 1;
        info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
        rows = 1;
    } else if (eq_c >= 0 || eq_s >= 0) {
        plan = eq_c >= 0 ? PLAN_CORR : PLAN_SEQ;
        info->aConstraintUsage[eq_c >= 0 ? eq_c : eq_s].argvIndex = 1;
        rows = 2;
    } else if (eq_k >= 0) {
        plan = PLAN_KERNEL;
        info->aConstraintUsage[eq_k].argvIndex = 1;
        rows = n / 100 + 1;
    } else if (lo >= 0 || hi >= 0) {
        plan = PLAN_RANGE;
        int argv = 1;
        if (lo >= 0) {
            plan |= HAS_LO | (info->aConstraint[lo].op == SQLITE_INDEX_CONSTRAINT_GT ? LO_GT : 0);
            info->aConstraintUsage[lo].argvIndex = argv++;
        }
        if (hi >= 0) {
            plan |= HAS_HI | (info->aConstraint[hi].op == SQLITE_INDEX_CONSTRAINT_LT ? HI_LT : 0);
            info->aConstraintUsage[hi].argvIndex = argv;
        }
        rows = n / (lo >= 0 && hi >= 0 ? 16 : 4) + 1;
    }
    /* every plan but an index lookup runs in rowid order */
    int ordered = (plan & PLAN_KIND) == PLAN_SCAN ||
                  ((plan & PLAN_KIND) == PLAN_RANGE && eq_id < 0);
    if (ordered && info->nOrderBy == 1 && is_rowid(info->aOrderBy[0].iColumn) &&
        !info->aOrderBy[0].desc) {
        info->orderByConsumed = 1;
    }
    info->idxNum = plan;
    info->estimatedRows = (sqlite3_int64)rows;
    info->estimatedCost = rows + 10;
    return SQLITE_OK;
}

static int ds_open(sqlite3_vtab* vt, sqlite3_vtab_cursor** out) {
    DsCursor* c = sqlite3_malloc(sizeof(*c));
    if (!c) {
        return SQLITE_NOMEM;
    }
    memset(c, 0, sizeof(*c));
    c->s = ((DsVtab*)vt)->s;
    *out = &c->base;
    return SQLITE_OK;
}

static int ds_close(sqlite3_vtab_cursor* cur) {
    sqlite3_free(cur);
    return SQLITE_OK;
}

/* The integer a constraint compares with; 0 when it is not one (the plan falls back to a
 * full scan: SQLite checks every constraint again, so no row is lost). */
static int int_arg(sqlite3_value* v, int64_t* out) {
    if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER) {
        return 0;
    }
    *out = sqlite3_value_int64(v);
    return 1;
}

static void set_row(DsCursor* c) {
    if (c->i >= c->end) {
        return;
    }
    c->row = c->krow ? c->krow[c->i] : c->pairs ? c->pairs[c->i].row : c->i;
}

/* id > / >= / < / <= bounds; an argument that is no integer leaves the full scan. */
static void range_plan(DsCursor* c, int plan, int argc, sqlite3_value** argv) {
    int64_t lo = 1, hi = c->s->n, v = 0;
    int a = 0;
    if (plan & HAS_LO) {
        if (a >= argc || !int_arg(argv[a++], &v)) {
            return;
        }
        lo = (plan & LO_GT) ? (v == INT64_MAX ? INT64_MAX : v + 1) : v;
    }
    if (plan & HAS_HI) {
        if (a >= argc || !int_arg(argv[a], &v)) {
            return;
        }
        hi = (plan & HI_LT) ? (v == INT64_MIN ? INT64_MIN : v - 1) : v;
    }
    lo = lo < 1 ? 1 : lo;
    hi = hi > c->s->n ? c->s->n : hi;
    c->i = lo - 1;
    c->end = hi >= lo ? hi : lo - 1;
}

static int ds_filter(sqlite3_vtab_cursor* cur, int idxNum, const char* idxStr, int argc,
                     sqlite3_value** argv) {
    (void)idxStr;
    DsCursor* c = (DsCursor*)cur;
    DispatchStore* s = c->s;
    c->krow = NULL;
    c->pairs = NULL;
    c->i = 0;
    c->end = s->n;
    int kind = idxNum & PLAN_KIND;
    int64_t v = 0;
    if (kind == PLAN_RANGE) {
        if (argc == 1 && (idxNum & HAS_LO) && (idxNum & HAS_HI)) {
            if (int_arg(argv[0], &v)) { /* id = v */
                c->i = v >= 1 && v <= s->n ? v - 1 : 0;
                c->end = v >= 1 && v <= s->n ? v : 0;
            }
        } else {
            range_plan(c, idxNum, argc, argv);
        }
    } else if (kind == PLAN_KERNEL && argc == 1 && int_arg(argv[0], &v)) {
        if (build_kernel_index(s)) {
            int64_t in = v >= 0 && v <= s->kmax;
            c->krow = s->krow;
            c->i = in ? s->koff[v] : 0;
            c->end = in ? s->koff[v + 1] : 0;
        }
    } else if ((kind == PLAN_CORR || kind == PLAN_SEQ) && argc == 1 && int_arg(argv[0], &v)) {
        SortedIdx* ix = kind == PLAN_CORR ? &s->corr : &s->seq;
        if (build_sorted(s, ix, kind == PLAN_CORR ? DS_CORR_ID : DS_SEQ)) {
            int64_t a = 0, b = ix->np;
            while (a < b) { /* first pair >= (v, 0) */
                int64_t m = a + (b - a) / 2;
                if (ix->p[m].v < v) {
                    a = m + 1;
                } else {
                    b = m;
                }
            }
            int64_t e = a;
            while (e < ix->np && ix->p[e].v == v) {
                e++;
            }
            c->pairs = ix->p;
            c->i = a;
            c->end = e;
        }
    }
    set_row(c);
    return SQLITE_OK;
}

static int ds_next(sqlite3_vtab_cursor* cur) {
    DsCursor* c = (DsCursor*)cur;
    c->i++;
    set_row(c);
    return SQLITE_OK;
}

static int ds_eof(sqlite3_vtab_cursor* cur) {
    const DsCursor* c = (const DsCursor*)cur;
    return c->i >= c->end;
}

static int ds_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
    DsCursor* c = (DsCursor*)cur;
    if (col == VCOL_ID) {
        sqlite3_result_int64(ctx, c->row + 1);
        return SQLITE_OK;
    }
    int ok = 1;
    int64_t v = get(c->s, c->row, col - 1, &ok);
    if (!ok) {
        sqlite3_result_error(ctx, "dispatch store: cannot read its temporary file", -1);
        return SQLITE_IOERR;
    }
    if (v != DISPATCH_STORE_NULL) {
        sqlite3_result_int64(ctx, v);
    }
    return SQLITE_OK;
}

static int ds_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
    *out = ((DsCursor*)cur)->row + 1;
    return SQLITE_OK;
}

/* Rows come from the loader only. Having an xUpdate lets a write reach --sql's authorizer,
 * which refuses it as it refuses a write to any other table ("not authorized"). */
static int ds_update(sqlite3_vtab* vt, int argc, sqlite3_value** argv, sqlite3_int64* rowid) {
    (void)argc;
    (void)argv;
    (void)rowid;
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("dispatch is read-only: its rows come from the loader");
    return SQLITE_READONLY;
}

static const sqlite3_module ds_module = {
    .iVersion = 0,
    .xCreate = ds_connect,
    .xConnect = ds_connect,
    .xBestIndex = ds_best_index,
    .xDisconnect = ds_disconnect,
    .xDestroy = ds_disconnect,
    .xOpen = ds_open,
    .xClose = ds_close,
    .xFilter = ds_filter,
    .xNext = ds_next,
    .xEof = ds_eof,
    .xColumn = ds_column,
    .xRowid = ds_rowid,
    .xUpdate = ds_update,
};

DcuStatus DispatchStore_register(DispatchStore* this, sqlite3* db, DcuError* err) {
    if (sqlite3_create_module(db, "dcu_dispatch", &ds_module, this) != SQLITE_OK) {
        return Error_set(err, DCU_ERR_SQL, "cannot register the dispatch store: %s",
                         sqlite3_errmsg(db));
    }
    return DCU_OK;
}
