/* csv_reader.c - CSV rows read block by block with line numbers, parsed by csv_scan.c
 * (libcsv 3's state machine, the same fields, about five times faster; tested against
 * libcsv itself).
 *
 * Two threads: a producer reads the file and runs the parser, packing finished rows into
 * batches; the calling thread takes the batches and hands each row to on_row (where the
 * loader parses numbers and talks to SQLite, which therefore stays on one thread). Parsing
 * and inserting overlap, which is most of the load time of a large trace on two cores.
 * Every file goes through zlib's gzread, which reads a plain file as it is and a gzip file
 * (.csv.gz) decompressed, within the limits of gz_limit.h; only a plain file can be cut into
 * chunks for parallel parsers (a gzip stream is read in order). */
#include "dcutop/csv_reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "dcutop/parallel.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "csv_scan.h"
#include "gz_file.h"
#include "gz_limit.h"

enum { N_BATCHES = 4, BATCH_ROWS = 4096, BATCH_BYTES = 1 << 20, SYNC_BYTES = 1 << 18 };

typedef struct Batch_ {
    char* buf; /* field bytes, each NUL-terminated */
    size_t len, cap;
    /* a chunk's bytes as read (chunk_parse): a field found whole there stays where it is,
     * its terminator overwritten by a NUL once the chunk is parsed (nul_terminate) */
    char* src;
    size_t srclen, srccap;
    size_t* foff; /* per field: offset in src, or IN_BUF | offset in buf; and length */
    size_t* flen;
    int nf, capf;
    int* rfirst; /* per row: first field, field count, too_wide, line */
    int* rn;
    unsigned char* rwide;
    long* rline;
    int nrows, caprows;
    uint64_t bytes_done; /* file bytes read when the batch was handed over */
    int last;            /* the producer's final batch */
    unsigned char* pbuf; /* per row: the CsvPrepare payload, and whether it was made */
    unsigned char* phas;
    int prows;           /* rows pbuf and phas hold */
    int phas_valid;      /* phas was filled for this batch's rows */
} Batch;

typedef struct Shared_ {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    Batch* batches[N_BATCHES];
    int full[N_BATCHES]; /* ring of full batch indices, in order */
    int nfull, head;
    int freelist[N_BATCHES];
    int nfree;
    int stop;            /* the consumer wants no more rows */
    DcuStatus status;    /* producer error */
    char msg[512];
    char cut[512];       /* a gzip file cut short: the reason; the rows before it are kept */
    const char* path;
    /* the consumer: on_row for every row of a full batch, then progress */
    CsvRowFn on_row;
    CsvProgressFn progress;
    void* ctx;
    CsvField* fields;
    int sync; /* 1: small file, no thread: hand_over consumes each batch at once */
    const CsvPrepare* prep; /* NULL: none */
    atomic_int prep_ready;  /* on_row has returned for the first row: prep may run */
    long rows_seen;         /* rows handed to on_row (the calling thread's) */
    unsigned char* pscratch; /* a payload made on the calling thread */
} Shared;

typedef struct Producer_ {
    Shared* sh;
    Batch* cur;
    int cur_idx;
    int whole; /* a chunk's parser: cur holds the whole chunk, never handed over */
    /* the row being built */
    int row_first, row_n, too_wide;
    long line, row_line;
    uint64_t done;
    CsvField* fields; /* scratch of prepare_batch (owned) */
} Producer;

/* foff's tag for a field copied into buf (not left in src) */
#define IN_BUF ((size_t)1 << (sizeof(size_t) * 8 - 1))

static void batch_reset(Batch* b) {
    b->len = 0;
    b->srclen = 0;
    b->nf = 0;
    b->nrows = 0;
    b->last = 0;
    b->phas_valid = 0;
}

static void batch_free(Batch* b) {
    if (!b) {
        return;
    }
    free(b->pbuf);
    free(b->phas);
    free(b->buf);
    free(b->src);
    free(b->foff);
    free(b->flen);
    free(b->rfirst);
    free(b->rn);
    free(b->rwide);
    free(b->rline);
    free(b);
}

/* Takes a free batch (waits for the consumer); -1 when the consumer stopped. */
static int take_free(Shared* sh) {
    pthread_mutex_lock(&sh->mu);
    while (sh->nfree == 0 && !sh->stop) {
        pthread_cond_wait(&sh->cv, &sh->mu);
    }
    int idx = sh->stop ? -1 : sh->freelist[--sh->nfree];
    pthread_mutex_unlock(&sh->mu);
    return idx;
}

/* Row r of b as on_row sees it, in fields (CSV_MAX_FIELDS). */
static CsvRow row_view(const Batch* b, int r, CsvField* fields, long line_base) {
    int n = b->rn[r] < CSV_MAX_FIELDS ? b->rn[r] : CSV_MAX_FIELDS;
    for (int k = 0; k < n; k++) {
        int fi = b->rfirst[r] + k;
        size_t off = b->foff[fi];
        fields[k].s = off & IN_BUF ? b->buf + (off & ~IN_BUF) : b->src + off;
        fields[k].len = b->flen[fi];
    }
    return (CsvRow){fields, n, b->rwide[r], line_base + b->rline[r], NULL};
}

/* The payloads of b's rows, on a parser thread, once prep may run (else the calling thread
 * makes them in consume). fields: this thread's scratch. */
static void prepare_batch(Shared* sh, Batch* b, CsvField* fields) {
    if (!sh->prep || !atomic_load_explicit(&sh->prep_ready, memory_order_acquire)) {
        return;
    }
    if (b->prows < b->nrows) {
        b->prows = b->caprows > b->nrows ? b->caprows : b->nrows;
        b->pbuf = xrealloc(b->pbuf, (size_t)b->prows * sh->prep->size);
        b->phas = xrealloc(b->phas, (size_t)b->prows);
    }
    for (int r = 0; r < b->nrows; r++) {
        CsvRow row = row_view(b, r, fields, 0);
        b->phas[r] = (unsigned char)sh->prep->fn(&row, sh->ctx,
                                                 b->pbuf + (size_t)r * sh->prep->size);
    }
    b->phas_valid = 1;
}

/* Hands each row of b to on_row, then reports progress; 1 when on_row asked to stop.
 * line_base: lines before the rows' first line (a chunk's rows count from its start). */
static int consume(Shared* sh, const Batch* b, long line_base) {
    int stop = 0;
    for (int r = 0; r < b->nrows && !stop; r++) {
        CsvRow row;
        if (b->phas_valid && b->phas[r] == 2 && sh->rows_seen > 0) { /* fields not read */
            int n = b->rn[r] < CSV_MAX_FIELDS ? b->rn[r] : CSV_MAX_FIELDS;
            row = (CsvRow){NULL, n, b->rwide[r], line_base + b->rline[r],
                           b->pbuf + (size_t)r * sh->prep->size};
        } else {
            row = row_view(b, r, sh->fields, line_base);
        }
        if (sh->prep && sh->rows_seen > 0 && !row.prep) {
            if (b->phas_valid) {
                row.prep = b->phas[r] ? b->pbuf + (size_t)r * sh->prep->size : NULL;
            } else if (sh->prep->fn(&row, sh->ctx, sh->pscratch)) {
                row.prep = sh->pscratch;
            }
        }
        if (sh->on_row(&row, sh->ctx)) {
            stop = 1;
        }
        if (sh->rows_seen++ == 0 && sh->prep) {
            atomic_store_explicit(&sh->prep_ready, 1, memory_order_release);
        }
    }
    if (sh->progress) {
        sh->progress(b->bytes_done, sh->ctx);
    }
    return stop;
}

static void hand_over(Producer* p, int last) {
    Shared* sh = p->sh;
    p->cur->bytes_done = p->done;
    p->cur->last = last;
    if (!sh->sync) { /* the reader thread makes the payloads (sync: consume does) */
        if (!p->fields) {
            p->fields = xmalloc(sizeof(CsvField) * CSV_MAX_FIELDS);
        }
        prepare_batch(sh, p->cur, p->fields);
    }
    if (sh->sync) { /* one thread: consume now, and the batch is free again */
        if (consume(sh, p->cur, 0)) {
            sh->stop = 1;
        }
        sh->freelist[sh->nfree++] = p->cur_idx;
        p->cur = NULL;
        p->cur_idx = -1;
        return;
    }
    pthread_mutex_lock(&sh->mu);
    sh->full[(sh->head + sh->nfull) % N_BATCHES] = p->cur_idx;
    sh->nfull++;
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
    p->cur = NULL;
    p->cur_idx = -1;
}

static int ensure_batch(Producer* p) {
    if (p->cur) {
        return 1;
    }
    int idx = take_free(p->sh);
    if (idx < 0) {
        return 0;
    }
    p->cur_idx = idx;
    p->cur = p->sh->batches[idx];
    batch_reset(p->cur);
    return 1;
}

static void on_field(void* s, size_t len, void* data) {
    Producer* p = data;
    if (!ensure_batch(p)) {
        return;
    }
    Batch* b = p->cur;
    if (p->row_line == 0) {
        /* the parser reports a field when it ends: a quoted first field spanning lines
         * started one line earlier per newline it holds */
        long nl = 0;
        for (size_t i = 0; i < len; i++) {
            nl += ((const char*)s)[i] == '\n';
        }
        p->row_line = p->line - nl;
        p->row_first = b->nf;
    }
    if (p->row_n >= CSV_MAX_FIELDS) {
        p->too_wide = 1;
        return;
    }
    if (b->nf == b->capf) {
        b->capf = b->capf ? b->capf * 2 : 4096;
        b->foff = xrealloc(b->foff, sizeof(size_t) * (size_t)b->capf);
        b->flen = xrealloc(b->flen, sizeof(size_t) * (size_t)b->capf);
    }
    b->flen[b->nf] = len;
    const char* at = s;
    if (b->src && at >= b->src && at + len < b->src + b->srclen) {
        /* found whole in the chunk's bytes (csv_scan.h: a direct field, its terminator
         * after it): left there, not copied */
        b->foff[b->nf++] = (size_t)(at - b->src);
        p->row_n++;
        return;
    }
    if (b->len + len + 1 > b->cap) { /* tested here: a call per field was 2% of a load */
        xgrow((void**)&b->buf, &b->cap, b->len + len + 1);
    }
    if (len) {
        memcpy(b->buf + b->len, s, len);
    }
    b->buf[b->len + len] = '\0';
    b->foff[b->nf++] = IN_BUF | b->len;
    b->len += len + 1;
    p->row_n++;
}

static void on_row_end(int c, void* data) {
    (void)c;
    Producer* p = data;
    if (!ensure_batch(p)) {
        return;
    }
    Batch* b = p->cur;
    if (p->row_line == 0) { /* a row with no field callback (cannot happen: as libcsv 3) */
        p->row_line = p->line;
        p->row_first = b->nf;
    }
    if (b->nrows == b->caprows) {
        b->caprows = b->caprows ? b->caprows * 2 : 1024;
        b->rfirst = xrealloc(b->rfirst, sizeof(int) * (size_t)b->caprows);
        b->rn = xrealloc(b->rn, sizeof(int) * (size_t)b->caprows);
        b->rwide = xrealloc(b->rwide, (size_t)b->caprows);
        b->rline = xrealloc(b->rline, sizeof(long) * (size_t)b->caprows);
    }
    b->rfirst[b->nrows] = p->row_first;
    b->rn[b->nrows] = p->row_n;
    b->rwide[b->nrows] = (unsigned char)p->too_wide;
    b->rline[b->nrows] = p->row_line;
    b->nrows++;
    p->row_n = 0;
    p->too_wide = 0;
    p->row_line = 0;
    if (!p->whole && (b->nrows >= BATCH_ROWS || b->len >= BATCH_BYTES)) {
        hand_over(p, 0);
    }
}

static int stopped(Shared* sh) {
    pthread_mutex_lock(&sh->mu);
    int s = sh->stop;
    pthread_mutex_unlock(&sh->mu);
    return s;
}

static void producer_fail(Shared* sh, DcuStatus code, const char* msg) {
    pthread_mutex_lock(&sh->mu);
    if (sh->status == DCU_OK) {
        sh->status = code;
        snprintf(sh->msg, sizeof(sh->msg), "%s", msg);
    }
    pthread_mutex_unlock(&sh->mu);
}

typedef struct ProducerArgs_ {
    Shared* sh;
    GzRead in; /* the file through zlib, within gz_limit.h's bound */
} ProducerArgs;

/* Reads the next block; 0 at the end, GZ_READ_ERROR on an error (in m), GZ_READ_TRUNCATED when
 * a gzip file ends inside a member (m says so): the rows before the cut are still good and are
 * kept. */
static int read_block(ProducerArgs* a, unsigned char* block, unsigned cap, uint64_t total,
                      char* m, size_t mcap) {
    int got = GzRead_next(&a->in, block, cap);
    if (got == GZ_READ_ERROR) {
        const char* kind;
        const char* zm = GzRead_error(a->in.gz, &kind);
        snprintf(m, mcap, "%s: %s error at byte %llu: %s", a->sh->path, kind,
                 (unsigned long long)total, zm);
        return GZ_READ_ERROR;
    }
    if (got == GZ_READ_TRUNCATED) {
        char t[256];
        GzRead_cutText(t, sizeof(t), total);
        snprintf(m, mcap, "%s: %s", a->sh->path, t);
        return GZ_READ_TRUNCATED;
    }
    if (got == GZ_READ_TOO_BIG) {
        snprintf(m, mcap,
                 "%s: gzip data expands past %llu MiB, over %d times its size on disk: "
                 "reading stopped at byte %llu",
                 a->sh->path, (unsigned long long)(a->in.limit >> 20), GZ_RATIO,
                 (unsigned long long)total);
        return GZ_READ_ERROR;
    }
    return got;
}

static void* produce(void* arg) {
    ProducerArgs* a = arg;
    Shared* sh = a->sh;
    Producer p = {0};
    p.sh = sh;
    p.cur_idx = -1;
    p.line = 1;
    CsvScan cp;
    CsvScan_init(&cp);
    enum { BLOCK = 1 << 16 };
    unsigned char* block = xmalloc(BLOCK);
    int first = 1;
    int got;
    uint64_t total = 0;
    char m[512];
    while (!stopped(sh) && (got = read_block(a, block, BLOCK, total, m, sizeof(m))) > 0) {
        size_t i = 0;
        total += (uint64_t)got;
        if (first) {
            first = 0;
            if (got >= 3 && block[0] == 0xEF && block[1] == 0xBB && block[2] == 0xBF) {
                i = 3;
            }
        }
        CsvScan_parse(&cp, (char*)block + i, (size_t)got - i, 0, &p.line, on_field,
                      on_row_end, &p);
        /* progress counts bytes on disk, as the load's total does */
        p.done = gzdirect(a->in.gz) ? total : (uint64_t)gzoffset(a->in.gz);
    }
    if (got == GZ_READ_TRUNCATED) {
        pthread_mutex_lock(&sh->mu);
        snprintf(sh->cut, sizeof(sh->cut), "%s", m);
        pthread_mutex_unlock(&sh->mu);
    } else if (got < 0) {
        producer_fail(sh, DCU_ERR_IO, m);
    }
    if (!stopped(sh)) {
        CsvScan_fini(&cp, on_field, on_row_end, &p);
    }
    CsvScan_free(&cp);
    free(block);
    /* the final (possibly empty) batch tells the consumer that the file ended */
    if (ensure_batch(&p)) {
        hand_over(&p, 1);
    }
    free(p.fields);
    return NULL;
}

/* ---- the parallel reader: chunks parsed by worker threads, rows consumed in order ----
 *
 * The file is cut every `step` bytes, each cut moved to just after the next '\n'. A cut
 * may fall inside a quoted field that holds newlines; the chunk before it then shows it:
 * its parser, started at a true row start, is not at a row start when it reaches the cut,
 * so it reads on to the first newline that ends a row, and the consumer parses the next
 * chunk again from there (its worker's guess is dropped). Chunk 0 starts at a true row
 * start, so by induction every row is parsed once, from a true row start, with the same
 * state machine as one sequential parser: the same rows, fields and line numbers. */

/* --threads is kept by parallel.c: the analyses after the load use the same count */
void CsvReader_setThreads(int n) {
    Parallel_setThreads(n);
}

int CsvReader_threads(void) {
    return Parallel_threads();
}

/* MAX_WORKERS: the loading thread, not the parse, bounds a read beyond a few workers (8
 * threads load a 1M-dispatch CSV as fast as 16 on a 16-core host); the cap keeps the chunks
 * in flight (2 per worker, 1-2 MiB each) small on a machine with a hundred CPUs. */
enum { CHUNK_BYTES = 1 << 20, CHUNKED_MIN = 8 << 20, READ_BLOCK = 1 << 16, MAX_WORKERS = 15 };

typedef struct Chunk_ {
    Batch* b;            /* its rows; rline counts from 1 at the chunk's start */
    uint64_t start, end; /* the bytes parsed: [start, end) */
    long lines;          /* '\n' in [start, end) */
    DcuStatus status;
    const char* why; /* with status: strerror's text */
    long err_line;   /* relative, as rline */
    long index;      /* the chunk the slot holds */
    int done;
    int partial; /* a worker gave up past its look-ahead: the consumer parses it again */
} Chunk;

typedef struct Chunks_ {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    uint64_t size, step;
    long nchunks, next, consumed; /* next: the first chunk no worker has taken */
    int window;                   /* chunks parsed ahead of the consumer, at most */
    Chunk* slots;                 /* chunk k lives in slots[k % window] */
    int stop;
    int serial; /* no workers: the loading thread parses each chunk as it comes to it */
    Shared* sh; /* the row payloads (prepare_batch) */
} Chunks;

/* The first offset after a '\n' at pos - 1 or later (0 for 0; size when there is none). */
static uint64_t chunk_cut(const Chunks* c, uint64_t pos) {
    if (pos == 0 || pos >= c->size) {
        return pos == 0 ? 0 : c->size;
    }
    char buf[4096];
    uint64_t off = pos - 1;
    while (off < c->size) {
        ssize_t got = pread(c->fd, buf, sizeof(buf), (off_t)off);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break; /* a read error shows again when the chunk is read */
        }
        const char* nl = memchr(buf, '\n', (size_t)got);
        if (nl) {
            return off + (uint64_t)(nl - buf) + 1;
        }
        off += (uint64_t)got;
    }
    return c->size;
}

/* Feeds one block to cp; 1 when the parse ends here (a row ended at or after `until`).
 * *used: the bytes taken. */
static int feed_block(CsvScan* cp, Producer* p, unsigned char* block, size_t got,
                      uint64_t off, uint64_t until, size_t* used) {
    size_t i = 0;
    if (off == 0 && got >= 3 && block[0] == 0xEF && block[1] == 0xBB && block[2] == 0xBF) {
        i = 3;
    }
    size_t stop_at = until > off + i ? (size_t)(until - off - i) : 1;
    size_t n = CsvScan_parse(cp, (char*)block + i, got - i, stop_at, &p->line, on_field,
                             on_row_end, p);
    *used = i + n;
    return i + n < got || (n > 0 && block[i + n - 1] == '\n' && off + i + n >= until &&
                           CsvScan_atRowStart(cp));
}

/* Reads up to want bytes at off onto the end of b->src; the bytes read, -1 on an error. */
static ssize_t read_more(int fd, Batch* b, size_t want, uint64_t off) {
    if (b->srclen + want > b->srccap) { /* room for a block more: a chunk's last row */
        /* doubled: a last row that runs on (a quoted field to the end of the file) must not
         * copy the buffer once per block */
        size_t need = b->srclen + want + READ_BLOCK;
        b->srccap = need > 2 * b->srccap ? need : 2 * b->srccap;
        b->src = xrealloc(b->src, b->srccap);
    }
    for (;;) {
        ssize_t got = pread(fd, b->src + b->srclen, want, (off_t)off);
        if (got >= 0 || errno != EINTR) {
            return got;
        }
    }
}

/* The terminator after each field left in src becomes its NUL (csv_scan.h: the parse is
 * past it), as CsvField promises. */
static void nul_terminate(Batch* b) {
    for (int i = 0; i < b->nf; i++) {
        if (!(b->foff[i] & IN_BUF)) {
            b->src[b->foff[i] + b->flen[i]] = '\0';
        }
    }
}

/* Parses from start (a true row start) to the first row end at or after until, or to the
 * end of the file, into out. The chunk is read whole into out->b->src (then a block at a
 * time while its last row goes on), so that fields stay where they were read. A worker's
 * guess at a row start may fall inside a quoted field: it stops at limit (out->partial), so
 * that a field running to the end of the file is read by the consumer alone, not once per
 * worker. */
static void chunk_parse(const Chunks* c, uint64_t start, uint64_t until, uint64_t limit,
                        Chunk* out) {
    Batch* b = out->b;
    batch_reset(b);
    out->start = out->end = start;
    out->lines = 0;
    out->status = DCU_OK;
    out->partial = 0;
    if (start >= until) {
        return;
    }
    Producer p = {0};
    p.whole = 1;
    p.cur = b;
    p.cur_idx = -1;
    p.line = 1;
    CsvScan cp;
    CsvScan_init(&cp);
    uint64_t off = start;
    size_t want = (size_t)(until - start);
    for (;;) {
        ssize_t got = read_more(c->fd, b, want, off);
        if (got < 0) {
            out->status = DCU_ERR_IO;
            out->why = strerror(errno);
            out->err_line = p.line;
            break;
        }
        if (got == 0) {
            CsvScan_fini(&cp, on_field, on_row_end, &p);
            break;
        }
        unsigned char* seg = (unsigned char*)b->src + b->srclen;
        b->srclen += (size_t)got;
        size_t used;
        int end = feed_block(&cp, &p, seg, (size_t)got, off, until, &used);
        off += used;
        if (end) {
            break;
        }
        if (off >= limit) {
            out->partial = 1;
            break;
        }
        want = READ_BLOCK;
    }
    nul_terminate(b);
    out->end = off;
    out->lines = p.line - 1;
    CsvScan_free(&cp);
}

/* How far past its chunk a worker reads on to find its last row's end: four chunks. Rows
 * longer than that are rare (a kernel name is capped far below); the consumer reads them. */
static uint64_t chunk_lookahead(const Chunks* c) {
    return 4 * c->step;
}

/* A worker that parsed chunk k >= 1 before the loading thread read the header waits a
 * little for it (chunk_release wakes it), so that its rows get their payloads here and not
 * on the loading thread: at 16 threads the first 32 chunks, 24,000 rows of a 1M CSV, were
 * converted there. Chunk 0 holds the header: its worker never waits; nor does anyone
 * longer than 50 ms, so a file whose first chunk holds no row cannot stall. */
static void wait_prep_ready(Chunks* c, long k) {
    Shared* sh = c->sh;
    if (k == 0 || atomic_load_explicit(&sh->prep_ready, memory_order_acquire)) {
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 50 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&c->mu);
    while (!c->stop && !atomic_load_explicit(&sh->prep_ready, memory_order_acquire)) {
        if (pthread_cond_timedwait(&c->cv, &c->mu, &until) != 0) {
            break; /* timed out: the loading thread converts these rows */
        }
    }
    pthread_mutex_unlock(&c->mu);
}

static void* chunk_worker(void* arg) {
    Chunks* c = arg;
    CsvField* fields = c->sh->prep ? xmalloc(sizeof(CsvField) * CSV_MAX_FIELDS) : NULL;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->stop && c->next < c->nchunks && c->next >= c->consumed + c->window) {
            pthread_cond_wait(&c->cv, &c->mu);
        }
        if (c->stop || c->next >= c->nchunks) {
            break;
        }
        long k = c->next++;
        Chunk* ch = &c->slots[k % c->window];
        pthread_mutex_unlock(&c->mu);
        uint64_t from = chunk_cut(c, (uint64_t)k * c->step);
        uint64_t until = chunk_cut(c, (uint64_t)(k + 1) * c->step);
        chunk_parse(c, from, until, until + chunk_lookahead(c), ch);
        if (fields) {
            wait_prep_ready(c, k);
            prepare_batch(c->sh, ch->b, fields);
        }
        pthread_mutex_lock(&c->mu);
        ch->index = k;
        ch->done = 1;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    free(fields);
    return NULL;
}

/* Waits for chunk k; the slot, or redo re-parsed from pos when the chunk before ran past
 * this one's start; NULL when that chunk lay wholly inside the one before. */
static Chunk* chunk_take(Chunks* c, long k, uint64_t pos, Chunk* redo) {
    if (!c->serial) {
        Chunk* ch = &c->slots[k % c->window];
        pthread_mutex_lock(&c->mu);
        while (!(ch->done && ch->index == k)) {
            pthread_cond_wait(&c->cv, &c->mu);
        }
        pthread_mutex_unlock(&c->mu);
        if (ch->start == pos && !ch->partial) {
            return ch;
        }
    }
    uint64_t until = chunk_cut(c, (uint64_t)(k + 1) * c->step);
    if (pos >= until) {
        return NULL;
    }
    chunk_parse(c, pos, until, UINT64_MAX, redo);
    return redo;
}

static void chunk_release(Chunks* c, long k) {
    if (c->serial) { /* no slots, no parser to wake */
        return;
    }
    pthread_mutex_lock(&c->mu);
    c->slots[k % c->window].done = 0;
    c->consumed = k + 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* The consumer: every chunk's rows in file order; DCU_OK, or the first chunk's error. */
static DcuStatus chunks_consume(Chunks* c, Shared* sh, DcuError* err) {
    Chunk redo = {0};
    redo.b = xcalloc(1, sizeof(Batch));
    uint64_t pos = 0;
    long base = 0;
    DcuStatus s = DCU_OK;
    for (long k = 0; k < c->nchunks && s == DCU_OK; k++) {
        Chunk* ch = chunk_take(c, k, pos, &redo);
        if (ch && ch->status != DCU_OK) {
            s = Error_set(err, ch->status, "%s:%ld: %s%s", sh->path, base + ch->err_line,
                          ch->status == DCU_ERR_IO ? "read error: " : "", ch->why);
        }
        int stop = 0;
        if (ch) {
            ch->b->bytes_done = ch->end;
            stop = consume(sh, ch->b, base); /* rows before an error are kept, as one parser */
            pos = ch->end;
            base += ch->lines;
        }
        chunk_release(c, k);
        if (stop) {
            break;
        }
    }
    batch_free(redo.b);
    return s;
}

/* Reads the open file f of `size` bytes with `workers` parser threads. */
static DcuStatus read_chunked(FILE* f, uint64_t size, size_t step, int workers, Shared* sh,
                              DcuError* err) {
    Chunks c;
    memset(&c, 0, sizeof(c));
    workers = workers < MAX_WORKERS ? workers : MAX_WORKERS;
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    c.fd = fileno(f);
    c.sh = sh;
    c.size = size;
    c.step = step ? step : 1;
    c.nchunks = (long)((size + c.step - 1) / c.step);
    c.serial = workers == 0; /* this thread parses each chunk as it comes to it: no slots */
    c.window = c.serial ? 0 : workers * 2 + 2;
    c.slots = xcalloc((size_t)c.window, sizeof(Chunk));
    for (int i = 0; i < c.window; i++) {
        c.slots[i].b = xcalloc(1, sizeof(Batch));
        c.slots[i].index = -1;
    }
    pthread_t* th = xcalloc((size_t)workers, sizeof(pthread_t));
    int started = 0;
    while (started < workers && pthread_create(&th[started], NULL, chunk_worker, &c) == 0) {
        started++;
    }
    DcuStatus s;
    if (started == 0 && !c.serial) {
        s = Error_set(err, DCU_ERR_NOMEM, "%s: cannot start the reader threads", sh->path);
    } else {
        s = chunks_consume(&c, sh, err);
    }
    pthread_mutex_lock(&c.mu);
    c.stop = 1;
    pthread_cond_broadcast(&c.cv);
    pthread_mutex_unlock(&c.mu);
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
    }
    for (int i = 0; i < c.window; i++) {
        batch_free(c.slots[i].b);
    }
    free(c.slots);
    free(th);
    pthread_mutex_destroy(&c.mu);
    pthread_cond_destroy(&c.cv);
    return s;
}

/* The reader thread and the calling thread (issue 11's pipeline). */
static DcuStatus read_pipelined(Shared* sh, ProducerArgs* args, DcuError* err) {
    pthread_t th;
    if (pthread_create(&th, NULL, produce, args) != 0) {
        return Error_set(err, DCU_ERR_NOMEM, "%s: cannot start the reader thread", sh->path);
    }
    int stop = 0, last = 0;
    while (!last) {
        pthread_mutex_lock(&sh->mu);
        while (sh->nfull == 0) {
            pthread_cond_wait(&sh->cv, &sh->mu);
        }
        int idx = sh->full[sh->head];
        sh->head = (sh->head + 1) % N_BATCHES;
        sh->nfull--;
        pthread_mutex_unlock(&sh->mu);
        Batch* b = sh->batches[idx];
        last = b->last;
        stop = consume(sh, b, 0);
        pthread_mutex_lock(&sh->mu);
        sh->freelist[sh->nfree++] = idx;
        if (stop) {
            sh->stop = 1;
        }
        pthread_cond_broadcast(&sh->cv);
        pthread_mutex_unlock(&sh->mu);
        if (stop) {
            break; /* the producer sees stop and ends; its last batch is not needed */
        }
    }
    pthread_join(th, NULL);
    return sh->status != DCU_OK ? Error_set(err, sh->status, "%s", sh->msg) : DCU_OK;
}

/* threads 1: this thread alone; 2: the pipeline; more: threads - 1 chunk parsers. A small
 * file is read on this thread: a thread's start costs more than the overlap saves (a folder
 * of 100,000 small files). force_chunks: chunks of `step` bytes whatever the size. */
static DcuStatus read_file(const char* path, size_t step, int threads, int force_chunks,
                           CsvRowFn on_row, CsvProgressFn progress, const CsvPrepare* prep,
                           void* ctx, DcuError* err) {
    DcuError oe;
    FILE* f = SafeFile_fopen(path, &oe); /* never a FIFO or device */
    if (!f) {
        return Error_set(err, DCU_ERR_IO, "%s: %s", path, oe.msg);
    }
    Shared sh;
    memset(&sh, 0, sizeof(sh));
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.cv, NULL);
    sh.path = path;
    for (int i = 0; i < N_BATCHES; i++) {
        sh.batches[i] = xcalloc(1, sizeof(Batch));
        sh.freelist[sh.nfree++] = i;
    }
    sh.on_row = on_row;
    sh.progress = progress;
    sh.ctx = ctx;
    sh.fields = xmalloc(sizeof(CsvField) * CSV_MAX_FIELDS);
    sh.prep = prep && prep->fn && prep->size > 0 ? prep : NULL;
    atomic_init(&sh.prep_ready, 0);
    sh.pscratch = sh.prep ? xmalloc(sh.prep->size) : NULL;
    struct stat st;
    int64_t size = fstat(fileno(f), &st) == 0 ? (int64_t)st.st_size : -1;
    sh.sync = !force_chunks && (size <= SYNC_BYTES || threads <= 1);
    int fd = dup(fileno(f));
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL; /* owns fd; gzclose closes it */
    if (!gz) {
        if (fd >= 0) {
            close(fd);
        }
        fclose(f);
        for (int i = 0; i < N_BATCHES; i++) {
            batch_free(sh.batches[i]);
        }
        free(sh.fields);
        free(sh.pscratch);
        pthread_mutex_destroy(&sh.mu);
        pthread_cond_destroy(&sh.cv);
        return Error_set(err, DCU_ERR_NOMEM, "%s: cannot start zlib", path);
    }
    gzbuffer(gz, 1 << 16);
    ProducerArgs args = {.sh = &sh};
    GzRead_init(&args.in, gz, path);
    int plain = gzdirect(gz); /* chunks read the file itself with pread: plain files only */
    /* a large plain file is read in chunks, by workers beside the loading thread or, with
     * --threads 1, by the loading thread itself: its fields then stay where they were read,
     * not copied a field at a time as the stream reader below does */
    int chunked = plain && size >= 0 && (force_chunks || size >= CHUNKED_MIN);
    DcuStatus s = DCU_OK;
    if (chunked) {
        /* a parser per thread but the loading thread's, and two with --threads 2: the
         * loading thread needs a fifth of a parser's time, so one parser left the second CPU
         * mostly idle (a 1M report on 2 CPUs: 0.82-1.12 s with one parser, 0.67-0.74 s with two) */
        int workers = threads > 2 ? threads - 1 : threads == 2 ? 2 : 0;
        s = read_chunked(f, (uint64_t)size, step, workers, &sh, err);
    } else if (sh.sync) {
        produce(&args);
        if (sh.status != DCU_OK) {
            s = Error_set(err, sh.status, "%s", sh.msg);
        }
    } else {
        s = read_pipelined(&sh, &args, err);
    }
    for (int i = 0; i < N_BATCHES; i++) {
        batch_free(sh.batches[i]);
    }
    free(sh.fields);
    free(sh.pscratch);
    pthread_mutex_destroy(&sh.mu);
    pthread_cond_destroy(&sh.cv);
    if (s == DCU_OK && sh.cut[0]) { /* every row before the cut was delivered */
        s = Error_set(err, DCU_ERR_CUT, "%s", sh.cut);
    }
    gzclose(gz);
    fclose(f);
    return s;
}

DcuStatus CsvReader_readFile(const char* path, CsvRowFn on_row, CsvProgressFn progress,
                             void* ctx, DcuError* err) {
    return read_file(path, CHUNK_BYTES, CsvReader_threads(), 0, on_row, progress, NULL, ctx,
                     err);
}

DcuStatus CsvReader_readFilePrepared(const char* path, CsvRowFn on_row, CsvProgressFn progress,
                                     const CsvPrepare* prep, void* ctx, DcuError* err) {
    return read_file(path, CHUNK_BYTES, CsvReader_threads(), 0, on_row, progress, prep, ctx,
                     err);
}

DcuStatus CsvReader_readFileChunked(const char* path, size_t chunk_bytes, int threads,
                                    CsvRowFn on_row, CsvProgressFn progress, void* ctx,
                                    DcuError* err) {
    return read_file(path, chunk_bytes, threads < 1 ? 1 : threads, 1, on_row, progress, NULL,
                     ctx, err);
}

size_t CsvReader_peek(const char* path, unsigned char* buf, size_t cap) {
    FILE* f = SafeFile_fopen(path, NULL);
    if (!f || cap == 0) {
        if (f) {
            fclose(f);
        }
        return 0;
    }
    size_t got = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[got] = '\0';
    return got;
}
