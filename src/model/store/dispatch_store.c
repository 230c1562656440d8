/* dispatch_store.c - the dispatch table as column arrays behind an SQLite virtual table
 * (see dispatch_store.h).
 *
 * Full chunks are kept encoded (chunk_codec.h: a constant, 1-, 2- or 4-byte offsets, or raw
 * int64 per column), typically 20-30 bytes a row instead of 144; only the chunk being filled
 * is raw. Readers get raw int64 columns back: DispatchStore_chunk decodes a whole chunk into
 * one of NDEC store-owned buffers (a small cache, least recently used reused), the virtual
 * table decodes the one value it is asked for. Spilling writes a chunk's encoded bytes once
 * to an append-only temporary file, as the load fills the budget (oldest first); a spilled
 * chunk is read back into a read buffer for each use and decoded from there, never made
 * resident again (see `encoded`). The budget counts the encoded bytes that are resident,
 * the raw, decode and read buffers, and the indexes. */
#include "dcutop/dispatch_store.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dcutop/chunk_codec.h"
#include "dcutop/chunk_sealer.h"
#include "dcutop/xalloc.h"

enum { CHUNK = DISPATCH_STORE_CHUNK, STRIDE = DISPATCH_STORE_STRIDE, NDEC = 4 };
#define CHUNK_BYTES ((int64_t)STRIDE * DS_NCOLS * (int64_t)sizeof(int64_t))

/* A full chunk, encoded. */
typedef struct {
    ChunkCol col[DS_NCOLS];
    uint8_t* enc;     /* the encoded bytes while resident (in an arena, or an own block) */
    int64_t bytes;    /* encoded size: a multiple of CHUNK, so of 4 KiB; 0: all constant */
    int64_t file_off; /* where the temporary file has them; -1: not written yet */
    int64_t tick;     /* last use, for least recently used eviction */
    int32_t arena;    /* the arena enc lies in; -1: a block of its own (malloc) */
    uint8_t resident; /* enc holds the bytes (always, when bytes is 0) */
    uint8_t end_derived; /* end_ns is not stored: every row's is end_of(start, dur) */
} Chunk;

/* end_ns as the loaders make it: start + duration (NULL when either is), in uint64 so that
 * it wraps as the check in seal() did; a chunk whose every end is this stores no end. */
static inline int64_t end_of(int64_t start, int64_t dur) {
    if (start == DISPATCH_STORE_NULL || dur == DISPATCH_STORE_NULL) {
        return DISPATCH_STORE_NULL;
    }
    return (int64_t)((uint64_t)start + (uint64_t)dur);
}

/* 1 when every row's end equals end_of(start, dur), bit for bit. */
static int end_derivable(const int64_t* raw) {
    const int64_t* s = raw + (int64_t)DS_START_NS * STRIDE;
    const int64_t* e = raw + (int64_t)DS_END_NS * STRIDE;
    const int64_t* d = raw + (int64_t)DS_DUR_NS * STRIDE;
    int same = 1;
    for (int64_t r = 0; r < DISPATCH_STORE_CHUNK; r++) {
        same &= e[r] == end_of(s[r], d[r]);
    }
    return same;
}

/* A slab that encoded chunks are cut from, one after another (a bump arena). */
typedef struct {
    char* base;   /* ARENA_BYTES at a 2 MiB boundary; NULL once unmapped */
    int64_t used; /* bytes handed out */
    int64_t live; /* chunks in it not yet released */
} Arena;

/* A decoded copy of a full chunk (DispatchStore_chunk). */
typedef struct {
    int64_t* buf; /* CHUNK_BYTES, column-major (in bufs) */
    int64_t ci;   /* the chunk it holds; -1: none */
    int64_t tick;
    int counted;  /* its bytes count in resident (from its first use on) */
} Decoded;

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
    Chunk* chunks;                /* the full chunks, encoded; the filling one is `raw` */
    int64_t nchunks, capchunks;
    int64_t n;        /* rows */
    int64_t budget;   /* bytes; 0: no bound */
    int64_t resident; /* bytes of resident encoded chunks, buffers and indexes */
    int64_t tick;
    char* tmpdir; /* where the spill file goes (owned) */
    int fd;       /* the spill file, -1 until the first spill */
    int64_t file_end; /* bytes written to it (chunks are appended, each once) */
    int full;     /* the spill file could not be written: out of room (ENOSPC, EFBIG) */
    int append_errno; /* an append failed for want of its file: every later one fails alike
                       * at once (each retry would encode the chunk and write it again) */
    int write_errno; /* errno of the last failed write to it */
    /* kernel_id index: rows of kernel k are krow[koff[k] .. koff[k + 1]) in row order */
    int64_t* koff;
    int64_t* krow;
    uint8_t* kord; /* kernel k's rows, in row order, ascend by (file_id, start_ns) */
    int64_t* kdur; /* kernel k's smallest and largest non-NULL dur_ns, and how many: 3k.. */
    int64_t kmax, kbuilt_n, kbytes;
    SortedIdx corr, seq;
    /* the raw buffer of the filling chunk, the NDEC decode buffers and the read buffer
     * (a spilled chunk's encoded bytes): one mapping of (2 + NDEC) * 576 KiB, on two 2 MiB
     * huge pages where the system gives them */
    char* bufs;
    int bufs_mapped; /* bufs came from mmap (else malloc) */
    int64_t* raw;    /* rows nchunks * CHUNK .. n, column-major; NULL before the first row */
    Decoded dec[NDEC];
    uint8_t* readbuf;
    int readbuf_counted;
    Arena* arenas;
    int64_t narenas;
    int64_t cur; /* the arena being filled; -1: none */
    /* full chunks sealed on a thread of their own (chunk_sealer.h) while the load fills
     * the next: only where no seal can need the spill file (see room_for_async), so a
     * write error still stops the append that met it. Every reader drains first. */
    int seal_thread;         /* DispatchStore_setSealThread: allowed */
    ChunkSealer* sealer;     /* started at the first full chunk that may use it */
    atomic_llong resident_pub; /* resident, as the sealer thread last left it */
    int seal_failed;         /* a seal on the thread failed (cannot happen: room was kept) */
};

/* Spare raw buffers of the sealer: chunks in flight before the loading thread waits. */
enum { SEAL_SPARES = 3 };

/* Encoded chunks come from 18 MiB arenas mapped with transparent huge pages: on this VM a
 * 4 KiB page fault per 4 KiB written was a sixth of a 1M-dispatch report. */
#define ARENA_BYTES ((int64_t)18 << 20)
#define HUGE_BYTES ((size_t)2 << 20)
#define BUFS_BYTES ((size_t)(2 + NDEC) * (size_t)CHUNK_BYTES)

/* len bytes (a multiple of 2 MiB) of fresh memory at a 2 MiB boundary (the unaligned head
 * and tail of a larger mapping unmapped), advised huge; MAP_FAILED when there is none. */
static void* map_huge(size_t len) {
    size_t big = len + HUGE_BYTES;
    char* m = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        return MAP_FAILED;
    }
    char* a = (char*)(((uintptr_t)m + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    if (a > m) {
        munmap(m, (size_t)(a - m));
    }
    if (a + len < m + big) {
        munmap(a + len, (size_t)(m + big - (a + len)));
    }
#ifdef MADV_HUGEPAGE
    madvise(a, len, MADV_HUGEPAGE);
#endif
    return a;
}

static size_t round_huge(size_t len) {
    return (len + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
}

/* bytes (a multiple of 4 KiB) for an encoded chunk, cut from the current arena or a new
 * one; *which: the arena, -1 for a block of its own when no arena can be mapped. */
static uint8_t* arena_alloc(DispatchStore* this, int64_t bytes, int32_t* which) {
    if (this->cur < 0 || this->arenas[this->cur].used + bytes > ARENA_BYTES) {
        void* m = map_huge((size_t)ARENA_BYTES);
        if (m == MAP_FAILED) {
            *which = -1;
            return xmalloc((size_t)bytes);
        }
        int64_t slot = 0;
        while (slot < this->narenas && this->arenas[slot].base) {
            slot++; /* an unmapped one's slot is taken again */
        }
        if (slot == this->narenas) {
            this->arenas = xrealloc(this->arenas, (size_t)(++this->narenas) * sizeof(Arena));
        }
        this->arenas[slot] = (Arena){m, 0, 0};
        this->cur = slot;
    }
    Arena* a = &this->arenas[this->cur];
    uint8_t* p = (uint8_t*)a->base + a->used;
    a->used += bytes;
    a->live++;
    *which = (int32_t)this->cur;
    return p;
}

/* Gives an evicted chunk's memory back. Its pages (whole 4 KiB pages: chunks are multiples
 * of 4 KiB at 4 KiB offsets) go back at once with MADV_DONTNEED, so the resident set
 * follows the budget even when a long-lived chunk keeps its arena mapped (the kernel splits
 * a huge page that is partly given back). An arena whose chunks are all gone is unmapped,
 * so the next one starts on fresh huge pages; eviction is least recently used first, which
 * for the load and the analyses' scans is oldest first, so arenas empty in turn. */
static void arena_release(DispatchStore* this, Chunk* c) {
    if (c->arena < 0) {
        free(c->enc);
        return;
    }
    Arena* a = &this->arenas[c->arena];
    if (--a->live > 0) {
        madvise(c->enc, (size_t)c->bytes, MADV_DONTNEED);
        return;
    }
    munmap(a->base, (size_t)ARENA_BYTES);
    a->base = NULL;
    if (this->cur == c->arena) {
        this->cur = -1;
    }
}

/* The raw and decode buffers, mapped on the first row. */
static void map_bufs(DispatchStore* this) {
    void* m = map_huge(round_huge(BUFS_BYTES));
    this->bufs_mapped = m != MAP_FAILED;
    this->bufs = this->bufs_mapped ? m : xmalloc(BUFS_BYTES);
    this->raw = (int64_t*)(void*)this->bufs;
    for (int i = 0; i < NDEC; i++) {
        this->dec[i] = (Decoded){(int64_t*)(void*)(this->bufs + (size_t)(1 + i) * CHUNK_BYTES),
                                 -1, 0, 0};
    }
    this->readbuf = (uint8_t*)this->bufs + (size_t)(1 + NDEC) * CHUNK_BYTES;
    this->resident += CHUNK_BYTES; /* the raw buffer; the others count once used */
}

DispatchStore* DispatchStore_new(int64_t budget, const char* tmpdir) {
    DispatchStore* this = xcalloc(1, sizeof(*this));
    this->tmpdir = xstrdup(tmpdir);
    this->budget = budget > 0 && budget < 2 * CHUNK_BYTES ? 2 * CHUNK_BYTES : budget;
    this->fd = -1;
    this->cur = -1;
    this->kbuilt_n = this->corr.built_n = this->seq.built_n = -1;
    return this;
}

/* Every chunk pushed to the sealer is sealed; the store's state is this thread's again. */
static void drain(const DispatchStore* this) {
    if (this->sealer) {
        ChunkSealer_drain(this->sealer);
    }
}

void DispatchStore_delete(DispatchStore* this) {
    if (!this) {
        return;
    }
    ChunkSealer_delete(this->sealer); /* drains: its spare buffers go, raw may be one */
    for (int64_t i = 0; i < this->nchunks; i++) {
        if (this->chunks[i].resident && this->chunks[i].arena < 0) {
            free(this->chunks[i].enc);
        }
    }
    for (int64_t i = 0; i < this->narenas; i++) {
        if (this->arenas[i].base) {
            munmap(this->arenas[i].base, (size_t)ARENA_BYTES);
        }
    }
    if (this->bufs_mapped) {
        munmap(this->bufs, round_huge(BUFS_BYTES));
    } else {
        free(this->bufs);
    }
    free(this->arenas);
    free(this->chunks);
    free(this->koff);
    free(this->krow);
    free(this->kord);
    free(this->kdur);
    free(this->corr.p);
    free(this->seq.p);
    if (this->fd >= 0) {
        close(this->fd);
    }
    free(this->tmpdir);
    free(this);
}

int64_t DispatchStore_spilled(const DispatchStore* this) {
    drain(this);
    int64_t n = 0;
    for (int64_t i = 0; i < this->nchunks; i++) {
        n += this->chunks[i].file_off >= 0;
    }
    return n;
}

int64_t DispatchStore_encodedBytes(const DispatchStore* this) {
    drain(this);
    int64_t n = 0;
    for (int64_t i = 0; i < this->nchunks; i++) {
        n += this->chunks[i].bytes;
    }
    return n;
}

int DispatchStore_outOfRoom(const DispatchStore* this) {
    drain(this);
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

/* The least recently used resident chunk with bytes to free, not `keep` (only one already
 * in the temporary file when filed); -1: none. */
static int64_t lru_victim(const DispatchStore* this, int64_t keep, int filed) {
    int64_t victim = -1;
    for (int64_t i = 0; i < this->nchunks; i++) {
        const Chunk* c = &this->chunks[i];
        if (c->resident && c->bytes > 0 && i != keep && (!filed || c->file_off >= 0) &&
            (victim < 0 || c->tick < this->chunks[victim].tick)) {
            victim = i;
        }
    }
    return victim;
}

/* Appends chunk c's encoded bytes to the temporary file; 0 (and write_errno) on an error. */
static int spill(DispatchStore* this, Chunk* c) {
    if ((this->fd < 0 && !open_spill(this)) ||
        !write_all(this->fd, c->enc, c->bytes, this->file_end)) {
        this->write_errno = errno;
        return 0;
    }
    c->file_off = this->file_end;
    this->file_end += c->bytes;
    return 1;
}

/* Evicts least recently used chunks (not `keep`) until `need` more bytes fit the budget or
 * none is left to evict; a chunk is written to the file the first time only (chunks never
 * change once encoded). After a write error only chunks already in the file are evicted,
 * and it returns 0: an append fails with it (the load stops and says why), a read goes on
 * over the budget rather than fail a query for want of temporary space. */
static int make_room(DispatchStore* this, int64_t need, int64_t keep) {
    int wrote = 1;
    while (this->budget > 0 && this->resident + need > this->budget) {
        int64_t victim = lru_victim(this, keep, !wrote);
        if (victim < 0) {
            break;
        }
        Chunk* c = &this->chunks[victim];
        if (c->file_off < 0 && !spill(this, c)) {
            wrote = 0;
            continue;
        }
        arena_release(this, c);
        c->enc = NULL;
        c->resident = 0;
        this->resident -= c->bytes;
    }
    return wrote;
}

/* The decode buffer holding full chunk ci; NULL when none does. */
static const int64_t* decoded(DispatchStore* this, int64_t ci) {
    for (int i = 0; i < NDEC; i++) {
        if (this->dec[i].ci == ci) {
            this->dec[i].tick = ++this->tick;
            return this->dec[i].buf;
        }
    }
    return NULL;
}

/* A buffer's bytes count against the budget from its first use on (a write error leaves
 * the store over the budget: see make_room). */
static void count_buffer(DispatchStore* this, int* counted, int64_t keep) {
    if (!*counted) {
        *counted = 1;
        make_room(this, CHUNK_BYTES, keep);
        this->resident += CHUNK_BYTES;
    }
}

/* The encoded bytes of full chunk ci: its own when resident, else read from the temporary
 * file into the read buffer (valid until the next read); NULL on a read error. A chunk read
 * back is not made resident again: the analyses scan every chunk in turn, and a least
 * recently used cache smaller than the scan would evict each chunk before its next use,
 * reading back all of them on every pass; this way a pass reads back only what was
 * spilled, and nothing else is evicted (nor its pages given back and faulted in again). */
static const uint8_t* encoded(DispatchStore* this, int64_t ci) {
    Chunk* c = &this->chunks[ci];
    if (c->resident) {
        c->tick = ++this->tick;
        return c->enc;
    }
    count_buffer(this, &this->readbuf_counted, ci);
    return read_all(this->fd, this->readbuf, c->bytes, c->file_off) ? this->readbuf : NULL;
}

static void derive_end(const int64_t* start, const int64_t* dur, int64_t* end) {
    for (int64_t r = 0; r < CHUNK; r++) {
        end[r] = end_of(start[r], dur[r]);
    }
}

/* Every column of full chunk c, from its encoded bytes enc, into b (column-major). */
static void decode_whole(const uint8_t* enc, const Chunk* c, int64_t* b) {
    for (int col = 0; col < DS_NCOLS; col++) {
        ChunkCodec_decodeCol(enc, &c->col[col], CHUNK, b + (int64_t)col * STRIDE);
    }
    if (c->end_derived) {
        derive_end(b + (int64_t)DS_START_NS * STRIDE, b + (int64_t)DS_DUR_NS * STRIDE,
                   b + (int64_t)DS_END_NS * STRIDE);
    }
}

/* Decodes full chunk ci into the least recently used decode buffer; NULL on an error. */
static const int64_t* decode_chunk(DispatchStore* this, int64_t ci) {
    Decoded* slot = &this->dec[0];
    for (int i = 1; i < NDEC; i++) {
        slot = this->dec[i].tick < slot->tick ? &this->dec[i] : slot;
    }
    count_buffer(this, &slot->counted, ci); /* before `encoded`: it may evict */
    const uint8_t* enc = encoded(this, ci);
    if (!enc) {
        return NULL;
    }
    decode_whole(enc, &this->chunks[ci], slot->buf);
    slot->ci = ci;
    slot->tick = ++this->tick;
    return slot->buf;
}

/* Value of column col of the 0-based row; *ok = 0 on a read error. A resident chunk
 * gives the one value (decoding a whole chunk per value would be 4096 times the work of a
 * scan); a spilled one is decoded whole into a decode buffer, where the next rows of a
 * scan find it. Called per value: its callers drain (ds_filter, DispatchStore_value). */
static int64_t get(DispatchStore* this, int64_t row, int col, int* ok) {
    int64_t ci = row / CHUNK, r = row % CHUNK;
    if (ci == this->nchunks) {
        return this->raw[(int64_t)col * STRIDE + r];
    }
    const int64_t* d = decoded(this, ci);
    Chunk* c = &this->chunks[ci];
    if (!d && c->resident) {
        c->tick = ++this->tick;
        if (col == DS_END_NS && c->end_derived) {
            return end_of(ChunkCodec_value(c->enc, &c->col[DS_START_NS], r),
                          ChunkCodec_value(c->enc, &c->col[DS_DUR_NS], r));
        }
        return ChunkCodec_value(c->enc, &c->col[col], r);
    }
    d = d ? d : decode_chunk(this, ci);
    if (!d) {
        *ok = 0;
        return DISPATCH_STORE_NULL;
    }
    return d[(int64_t)col * STRIDE + r];
}

/* Column col of chunk ci into out (CHUNK values); returns its rows, -1 on a read error.
 * Of a spilled chunk only that column's bytes are read. */
static int64_t read_col(DispatchStore* this, int64_t ci, int col, int64_t* out) {
    drain(this);
    if (ci == this->nchunks) {
        int64_t rows = this->n - ci * (int64_t)CHUNK;
        memcpy(out, this->raw + (int64_t)col * STRIDE, (size_t)rows * sizeof(int64_t));
        return rows;
    }
    const int64_t* d = decoded(this, ci);
    Chunk* c = &this->chunks[ci];
    if (d) {
        memcpy(out, d + (int64_t)col * STRIDE, (size_t)CHUNK * sizeof(int64_t));
        return CHUNK;
    }
    if (col == DS_END_NS && c->end_derived) { /* start, then duration added to it */
        int64_t* dur = xmalloc((size_t)CHUNK * sizeof(int64_t));
        int ok = read_col(this, ci, DS_START_NS, out) >= 0 &&
                 read_col(this, ci, DS_DUR_NS, dur) >= 0;
        if (ok) {
            derive_end(out, dur, out);
        }
        free(dur);
        return ok ? CHUNK : -1;
    }
    if (c->resident) {
        c->tick = ++this->tick;
        ChunkCodec_decodeCol(c->enc, &c->col[col], CHUNK, out);
        return CHUNK;
    }
    ChunkCol one = c->col[col];
    one.off = 0;
    int64_t len = (int64_t)one.width * CHUNK;
    count_buffer(this, &this->readbuf_counted, ci);
    if (len > 0 && !read_all(this->fd, this->readbuf, len, c->file_off + c->col[col].off)) {
        return -1;
    }
    ChunkCodec_decodeCol(this->readbuf, &one, CHUNK, out);
    return CHUNK;
}

int64_t DispatchStore_column(DispatchStore* this, int64_t ci, DispatchCol col, int64_t* out) {
    if (ci < 0 || ci * (int64_t)CHUNK >= this->n) {
        return 0;
    }
    return read_col(this, ci, col, out);
}

/* Rows [i, j) of rows (all in chunk ci) from a column read whole into buf: a spilled chunk
 * (one column's bytes read back) or one read before. */
static int gather_decoded(DispatchStore* this, int64_t ci, const int64_t* rows, int64_t i,
                          int64_t j, DispatchCol col, int64_t* out, int64_t* buf) {
    if (read_col(this, ci, col, buf) < 0) {
        return 0;
    }
    for (; i < j; i++) {
        out[i] = buf[rows[i] % CHUNK];
    }
    return 1;
}

int DispatchStore_gather(DispatchStore* this, const int64_t* rows, int64_t n, DispatchCol col,
                         int64_t* out) {
    drain(this);
    int64_t* buf = NULL;
    int ok = 1;
    for (int64_t i = 0, j; i < n && ok; i = j) {
        int64_t ci = rows[i] / CHUNK;
        for (j = i + 1; j < n && rows[j] / CHUNK == ci; j++) {
        }
        const Chunk* c = ci < this->nchunks ? &this->chunks[ci] : NULL;
        int derived = c && col == DS_END_NS && c->end_derived;
        if (c && c->resident && !derived && !decoded(this, ci)) {
            /* the values alone, from the encoded bytes: a kernel with a row in five of a
             * chunk's would decode four times what it needs */
            this->chunks[ci].tick = ++this->tick;
            for (int64_t k = i; k < j; k++) {
                out[k] = ChunkCodec_value(c->enc, &c->col[col], rows[k] % CHUNK);
            }
            continue;
        }
        buf = buf ? buf : xmalloc(sizeof(int64_t) * CHUNK);
        ok = gather_decoded(this, ci, rows, i, j, col, out, buf);
    }
    free(buf);
    return ok;
}

int64_t DispatchStore_value(DispatchStore* this, int64_t row, DispatchCol col, int* ok) {
    drain(this);
    *ok = row >= 0 && row < this->n;
    return *ok ? get(this, row, col, ok) : DISPATCH_STORE_NULL;
}

const int64_t* DispatchStore_chunk(DispatchStore* this, int64_t ci, int64_t* rows) {
    drain(this);
    *rows = 0;
    int64_t left = this->n - ci * (int64_t)CHUNK;
    if (ci < 0 || left <= 0) {
        return NULL;
    }
    if (ci == this->nchunks) {
        *rows = left;
        return this->raw;
    }
    const int64_t* d = decoded(this, ci);
    d = d ? d : decode_chunk(this, ci);
    *rows = d ? CHUNK : 0;
    return d;
}

int64_t DispatchStore_chunkCopy(const DispatchStore* this, int64_t ci, int64_t* buf,
                                uint8_t* rbuf) {
    drain(this); /* with none in flight (the analyses' case) one atomic load, safe on any thread */
    int64_t left = this->n - ci * (int64_t)CHUNK;
    if (ci < 0 || left <= 0) {
        return 0;
    }
    if (ci == this->nchunks) {
        for (int col = 0; col < DS_NCOLS; col++) {
            memcpy(buf + (int64_t)col * STRIDE, this->raw + (int64_t)col * STRIDE,
                   (size_t)left * sizeof(int64_t));
        }
        return left;
    }
    const Chunk* c = &this->chunks[ci]; /* no tick, no decode buffer: nothing is written */
    const uint8_t* enc = c->enc;
    if (!c->resident) {
        if (!read_all(this->fd, rbuf, c->bytes, c->file_off)) {
            return -1;
        }
        enc = rbuf;
    }
    decode_whole(enc, c, buf);
    return CHUNK;
}

/* Encodes the full raw chunk into a new entry of chunks; 0 when no room could be made. */
static int seal(DispatchStore* this, const int64_t* raw) {
    Chunk c = {.file_off = -1, .arena = -1, .resident = 1};
    c.bytes = (int64_t)ChunkCodec_plan(raw, STRIDE, CHUNK, DS_NCOLS, c.col);
    if (c.col[DS_END_NS].width > 0 && end_derivable(raw)) {
        c.end_derived = 1; /* 4 bytes a row fewer on a typical trace */
        c.col[DS_END_NS] = (ChunkCol){0};
        c.bytes = (int64_t)ChunkCodec_layout(c.col, DS_NCOLS, CHUNK);
    }
    if (!make_room(this, c.bytes, -1)) {
        return 0;
    }
    if (c.bytes > 0) {
        c.enc = arena_alloc(this, c.bytes, &c.arena);
        ChunkCodec_pack(raw, STRIDE, CHUNK, DS_NCOLS, c.col, c.enc);
    }
    if (this->nchunks == this->capchunks) {
        this->capchunks = this->capchunks ? this->capchunks * 2 : 16;
        this->chunks = xrealloc(this->chunks, (size_t)this->capchunks * sizeof(Chunk));
    }
    c.tick = ++this->tick;
    this->chunks[this->nchunks++] = c;
    this->resident += c.bytes;
    return 1;
}

/* ChunkSealFn: on the sealer thread. */
static void seal_job(void* ctx, int64_t* raw) {
    DispatchStore* this = ctx;
    if (!seal(this, raw)) {
        this->seal_failed = 1;
    }
    atomic_store_explicit(&this->resident_pub, this->resident, memory_order_release);
}

/* 1 when the chunk just filled may go to the sealer thread: no seal in flight can then
 * need make_room to spill (a seal adds at most CHUNK_BYTES), so none can fail there. The
 * figure read may be newer than the count of seals in flight: it only errs high. */
static int room_for_async(DispatchStore* this) {
    if (!this->seal_thread) {
        return 0;
    }
    int64_t spares = this->sealer ? 0 : SEAL_SPARES * CHUNK_BYTES;
    int64_t flight = this->sealer ? ChunkSealer_inFlight(this->sealer) : 0;
    /* none in flight: the seals' writes are visible, resident is exact (a seal made here
     * since does not publish it) */
    int64_t res = flight ? atomic_load_explicit(&this->resident_pub, memory_order_acquire)
                         : this->resident;
    if (this->budget > 0 && res + spares + (flight + 1) * CHUNK_BYTES > this->budget) {
        return 0;
    }
    if (!this->sealer) {
        this->sealer = ChunkSealer_new(seal_job, this, SEAL_SPARES, (size_t)CHUNK_BYTES);
        if (!this->sealer) {
            this->seal_thread = 0;
            return 0;
        }
        this->resident += spares; /* the spare raw buffers count as the raw one does */
        atomic_store_explicit(&this->resident_pub, this->resident, memory_order_relaxed);
    }
    return 1;
}

void DispatchStore_setSealThread(DispatchStore* this, int on) {
    this->seal_thread = on;
}

int64_t DispatchStore_append(DispatchStore* this, const int64_t* v, DcuError* err) {
    if (!this->raw) {
        map_bufs(this);
    }
    int64_t r = this->n % CHUNK;
    for (int i = 0; i < DS_NCOLS; i++) {
        this->raw[(int64_t)i * STRIDE + r] = v[i];
    }
    if (r == CHUNK - 1 && room_for_async(this)) {
        this->raw = ChunkSealer_push(this->sealer, this->raw);
        return ++this->n;
    }
    if (r == CHUNK - 1 && (this->append_errno || (drain(this), this->seal_failed) ||
                           !seal(this, this->raw))) {
        /* the row stays unwritten: n does not move */
        int e = this->append_errno ? this->append_errno
                                   : this->seal_failed ? EIO : this->write_errno;
        this->append_errno = e ? e : EIO;
        this->full = e == ENOSPC || e == EFBIG || e == EDQUOT;
        Error_set(err, DCU_ERR_IO, "dispatch store: cannot write its temporary file: %s",
                  strerror(e));
        return 0;
    }
    return ++this->n;
}

/* ---- indexes ---------------------------------------------------------------------------- */

/* An index's bytes count against the budget as chunks do: chunks make room for it (a
 * write error leaves them in memory, over the budget, as a failed spill does elsewhere). */
static void set_index_bytes(DispatchStore* this, int64_t before, int64_t after) {
    this->resident += after - before;
    make_room(this, 0, -1);
}

/* Calls fn on column col of every chunk in row order (decoded a chunk at a time, not a
 * value at a time); 0 on a read error. */
typedef void (*ColFn)(void* ctx, int64_t row0, const int64_t* v, int64_t rows);

static int scan_col(DispatchStore* this, int col, ColFn fn, void* ctx) {
    int64_t* buf = xmalloc((size_t)CHUNK * sizeof(int64_t));
    int ok = 1;
    for (int64_t ci = 0; ci * (int64_t)CHUNK < this->n && ok; ci++) {
        int64_t rows = read_col(this, ci, col, buf);
        ok = rows >= 0;
        if (ok) {
            fn(ctx, ci * (int64_t)CHUNK, buf, rows);
        }
    }
    free(buf);
    return ok;
}

typedef struct {
    DispatchStore* s;
    int64_t kmax;
    int64_t* fill; /* next place in krow of each kernel */
} KernelScan;

static void kernel_max(void* ctx, int64_t row0, const int64_t* v, int64_t rows) {
    KernelScan* k = ctx;
    (void)row0;
    for (int64_t r = 0; r < rows; r++) {
        k->kmax = v[r] > k->kmax ? v[r] : k->kmax;
    }
}

static void kernel_count(void* ctx, int64_t row0, const int64_t* v, int64_t rows) {
    KernelScan* k = ctx;
    (void)row0;
    for (int64_t r = 0; r < rows; r++) {
        if (v[r] >= 0) {
            k->s->koff[v[r] + 1]++;
        }
    }
}

/* A kernel's duration range (kdur) with one more row's. */
static void dur_add(int64_t* kd, int64_t dur) {
    if (dur != DISPATCH_STORE_NULL) {
        kd[0] = kd[2] == 0 || dur < kd[0] ? dur : kd[0];
        kd[1] = kd[2] == 0 || dur > kd[1] ? dur : kd[1];
        kd[2]++;
    }
}

/* The last pass: each kernel's rows into krow; whether they come in (file_id, start_ns)
 * order, NULL starts first (INT64_MIN is the smallest int64, so `<=` says it): a file's rows
 * mostly arrive in start order, and the dispatch list (dispatch_page.c) then needs no read
 * of its rows to order them; and their range of durations (the list's unit without a read
 * of them). Four columns a chunk at a time. */
static int kernel_fill(DispatchStore* this, KernelScan* k) {
    int64_t* buf = xmalloc(4 * (size_t)CHUNK * sizeof(int64_t));
    int64_t *kid = buf, *fid = buf + CHUNK, *start = buf + 2 * CHUNK, *dur = buf + 3 * CHUNK;
    int64_t* last = xmalloc(2 * (size_t)(k->kmax + 1) * sizeof(int64_t)); /* file, start */
    memset(this->kord, 1, (size_t)(k->kmax + 1));
    memset(this->kdur, 0, 3 * (size_t)(k->kmax + 1) * sizeof(int64_t));
    int ok = 1;
    for (int64_t ci = 0; ci * (int64_t)CHUNK < this->n && ok; ci++) {
        int64_t rows = read_col(this, ci, DS_KERNEL_ID, kid);
        ok = rows >= 0 && read_col(this, ci, DS_FILE_ID, fid) >= 0 &&
             read_col(this, ci, DS_START_NS, start) >= 0 &&
             read_col(this, ci, DS_DUR_NS, dur) >= 0;
        for (int64_t r = 0; ok && r < rows; r++) {
            int64_t x = kid[r];
            if (x < 0) {
                continue;
            }
            int64_t at = k->fill[x]++;
            this->krow[at] = ci * (int64_t)CHUNK + r;
            if (at > this->koff[x]) {
                int64_t lf = last[2 * x], ls = last[2 * x + 1];
                this->kord[x] &= lf < fid[r] || (lf == fid[r] && ls <= start[r]);
            }
            last[2 * x] = fid[r];
            last[2 * x + 1] = start[r];
            dur_add(this->kdur + 3 * x, dur[r]);
        }
    }
    free(last);
    free(buf);
    return ok;
}

static int build_kernel_index(DispatchStore* this) {
    drain(this);
    if (this->kbuilt_n == this->n) {
        return 1;
    }
    KernelScan k = {this, 0, NULL};
    int ok = scan_col(this, DS_KERNEL_ID, kernel_max, &k);
    if (!ok || k.kmax > this->n + 1000000) {
        return 0; /* ids are the loader's dense kernel ids; anything else: no index */
    }
    int64_t kmax = k.kmax;
    free(this->koff);
    free(this->krow);
    free(this->kord);
    free(this->kdur);
    this->koff = xcalloc((size_t)(kmax + 2), sizeof(int64_t));
    this->krow = xmalloc((size_t)(this->n > 0 ? this->n : 1) * sizeof(int64_t));
    this->kord = xmalloc((size_t)(kmax + 1));
    this->kdur = xmalloc(3 * (size_t)(kmax + 1) * sizeof(int64_t));
    ok = scan_col(this, DS_KERNEL_ID, kernel_count, &k);
    for (int64_t i = 0; i <= kmax; i++) {
        this->koff[i + 1] += this->koff[i];
    }
    k.fill = xmalloc((size_t)(kmax + 1) * sizeof(int64_t));
    memcpy(k.fill, this->koff, (size_t)(kmax + 1) * sizeof(int64_t));
    ok = ok && kernel_fill(this, &k);
    free(k.fill);
    this->kmax = kmax;
    this->kbuilt_n = ok ? this->n : -1;
    int64_t bytes = (4 * kmax + 5 + this->n) * (int64_t)sizeof(int64_t) + kmax + 1;
    set_index_bytes(this, this->kbytes, bytes);
    this->kbytes = bytes;
    return ok;
}

void DispatchStore_buildKernelIndex(DispatchStore* this) {
    build_kernel_index(this);
}

int DispatchStore_kernelRows(DispatchStore* this, int64_t kernel_id, const int64_t** rows,
                             int64_t* n) {
    drain(this);
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

int DispatchStore_kernelInStartOrder(DispatchStore* this, int64_t kernel_id) {
    const int64_t* rows;
    int64_t n;
    return DispatchStore_kernelRows(this, kernel_id, &rows, &n) && kernel_id >= 0 &&
           kernel_id <= this->kmax && this->kord[kernel_id];
}

int DispatchStore_kernelDurations(DispatchStore* this, int64_t kernel_id, int64_t* min,
                                  int64_t* max, int64_t* n) {
    const int64_t* rows;
    int64_t nk;
    if (!DispatchStore_kernelRows(this, kernel_id, &rows, &nk) || kernel_id < 0 ||
        kernel_id > this->kmax) {
        return 0;
    }
    const int64_t* kd = this->kdur + 3 * kernel_id;
    *min = kd[0];
    *max = kd[1];
    *n = kd[2];
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

static void sorted_add(void* ctx, int64_t row0, const int64_t* v, int64_t rows) {
    SortedIdx* ix = ctx;
    for (int64_t r = 0; r < rows; r++) {
        if (v[r] != DISPATCH_STORE_NULL) {
            ix->p[ix->np++] = (Pair){v[r], row0 + r};
        }
    }
}

static int build_sorted(DispatchStore* this, SortedIdx* ix, int col) {
    if (ix->built_n == this->n) {
        return 1;
    }
    free(ix->p);
    ix->p = xmalloc((size_t)(this->n > 0 ? this->n : 1) * sizeof(Pair));
    ix->np = 0;
    int ok = scan_col(this, col, sorted_add, ix);
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
    drain(s);
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
