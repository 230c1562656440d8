/* csv_reader.c - libcsv driven block by block, fed line by line to know line numbers.
 *
 * Two threads: a producer reads the file and runs libcsv, packing finished rows into
 * batches; the calling thread takes the batches and hands each row to on_row (where the
 * loader parses numbers and talks to SQLite, which therefore stays on one thread). Parsing
 * and inserting overlap, which is most of the load time of a large trace on two cores.
 * Every file goes through zlib's gzread, which reads a plain file as it is and a gzip file
 * (.csv.gz) decompressed, within the limits of gz_limit.h. */
#include "dcutop/csv_reader.h"

#include <csv.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "gz_limit.h"

enum { N_BATCHES = 4, BATCH_ROWS = 4096, BATCH_BYTES = 1 << 20, SYNC_BYTES = 1 << 18 };

typedef struct Batch_ {
    char* buf; /* field bytes, each NUL-terminated */
    size_t len, cap;
    size_t* foff; /* per field: offset in buf and length */
    size_t* flen;
    int nf, capf;
    int* rfirst; /* per row: first field, field count, too_wide, line */
    int* rn;
    unsigned char* rwide;
    long* rline;
    int nrows, caprows;
    uint64_t bytes_done; /* file bytes read when the batch was handed over */
    int last;            /* the producer's final batch */
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
    const char* path;
    /* the consumer: on_row for every row of a full batch, then progress */
    CsvRowFn on_row;
    CsvProgressFn progress;
    void* ctx;
    CsvField* fields;
    int sync; /* 1: small file, no thread: hand_over consumes each batch at once */
} Shared;

typedef struct Producer_ {
    Shared* sh;
    Batch* cur;
    int cur_idx;
    /* the row being built */
    int row_first, row_n, too_wide;
    long line, row_line;
    uint64_t done;
} Producer;

static int no_space(unsigned char c) {
    (void)c;
    return 0;
}

static void batch_reset(Batch* b) {
    b->len = 0;
    b->nf = 0;
    b->nrows = 0;
    b->last = 0;
}

static void batch_free(Batch* b) {
    if (!b) {
        return;
    }
    free(b->buf);
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

/* Hands each row of b to on_row, then reports progress; 1 when on_row asked to stop. */
static int consume(Shared* sh, const Batch* b) {
    int stop = 0;
    for (int r = 0; r < b->nrows && !stop; r++) {
        int n = b->rn[r] < CSV_MAX_FIELDS ? b->rn[r] : CSV_MAX_FIELDS;
        for (int k = 0; k < n; k++) {
            int fi = b->rfirst[r] + k;
            sh->fields[k].s = b->buf + b->foff[fi];
            sh->fields[k].len = b->flen[fi];
        }
        CsvRow row = {sh->fields, n, b->rwide[r], b->rline[r]};
        if (sh->on_row(&row, sh->ctx)) {
            stop = 1;
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
    if (sh->sync) { /* one thread: consume now, and the batch is free again */
        if (consume(sh, p->cur)) {
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
        /* libcsv reports a field when it ends: a quoted first field spanning lines
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
    xgrow((void**)&b->buf, &b->cap, b->len + len + 1);
    if (len) {
        memcpy(b->buf + b->len, s, len);
    }
    b->buf[b->len + len] = '\0';
    if (b->nf == b->capf) {
        b->capf = b->capf ? b->capf * 2 : 4096;
        b->foff = xrealloc(b->foff, sizeof(size_t) * (size_t)b->capf);
        b->flen = xrealloc(b->flen, sizeof(size_t) * (size_t)b->capf);
    }
    b->foff[b->nf] = b->len;
    b->flen[b->nf] = len;
    b->nf++;
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
    if (p->row_line == 0) { /* a row with no field callback (cannot happen with libcsv 3) */
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
    if (b->nrows >= BATCH_ROWS || b->len >= BATCH_BYTES) {
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
    gzFile gz;
    uint64_t limit; /* most bytes a gzip file may expand to; UINT64_MAX for a plain one */
} ProducerArgs;

/* Reads the next block; 0 at the end, -1 on an error (in m). */
static int read_block(ProducerArgs* a, unsigned char* block, unsigned cap, uint64_t total,
                      char* m, size_t mcap) {
    int got = gzread(a->gz, block, cap);
    if (got < 0) {
        int zerr;
        const char* zm = gzerror(a->gz, &zerr);
        snprintf(m, mcap, "%s: %s error at byte %llu: %s", a->sh->path,
                 gzdirect(a->gz) ? "read" : "gzip", (unsigned long long)total,
                 zerr == Z_ERRNO ? strerror(errno) : (zm ? zm : "?"));
        return -1;
    }
    if ((uint64_t)got > a->limit - total) {
        snprintf(m, mcap,
                 "%s: gzip data expands past %llu MiB, over %d times its size on disk: "
                 "reading stopped at byte %llu",
                 a->sh->path, (unsigned long long)(a->limit >> 20), GZ_RATIO,
                 (unsigned long long)total);
        return -1;
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
    struct csv_parser cp;
    if (csv_init(&cp, 0) != 0) {
        producer_fail(sh, DCU_ERR_NOMEM, "csv_init failed");
    } else {
        csv_set_space_func(&cp, no_space);
        enum { BLOCK = 1 << 16 };
        unsigned char* block = xmalloc(BLOCK);
        int first = 1;
        int got;
        uint64_t total = 0;
        char m[512];
        while (!stopped(sh) &&
               (got = read_block(a, block, BLOCK, total, m, sizeof(m))) > 0) {
            size_t i = 0;
            total += (uint64_t)got;
            if (first) {
                first = 0;
                if (got >= 3 && block[0] == 0xEF && block[1] == 0xBB && block[2] == 0xBF) {
                    i = 3;
                }
            }
            while (i < (size_t)got) {
                unsigned char* nl = memchr(block + i, '\n', (size_t)got - i);
                size_t seg = nl ? (size_t)(nl - (block + i)) + 1 : (size_t)got - i;
                if (csv_parse(&cp, block + i, seg, on_field, on_row_end, &p) != seg) {
                    snprintf(m, sizeof(m), "%s:%ld: %s", sh->path, p.line,
                             csv_strerror(csv_error(&cp)));
                    producer_fail(sh, DCU_ERR_NOMEM, m);
                    break;
                }
                i += seg;
                if (nl) {
                    p.line++;
                }
            }
            /* progress counts bytes on disk, as the load's total does */
            p.done = gzdirect(a->gz) ? total : (uint64_t)gzoffset(a->gz);
        }
        if (got < 0) {
            producer_fail(sh, DCU_ERR_IO, m);
        }
        if (!stopped(sh)) {
            csv_fini(&cp, on_field, on_row_end, &p);
        }
        csv_free(&cp);
        free(block);
    }
    /* the final (possibly empty) batch tells the consumer that the file ended */
    if (ensure_batch(&p)) {
        hand_over(&p, 1);
    }
    return NULL;
}

DcuStatus CsvReader_readFile(const char* path, CsvRowFn on_row, CsvProgressFn progress,
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
    /* A thread pays off on large files; on a small one its start costs more than the
     * overlap saves (a folder of 100,000 small files). */
    struct stat st;
    sh.sync = fstat(fileno(f), &st) == 0 && st.st_size <= SYNC_BYTES;
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
        pthread_mutex_destroy(&sh.mu);
        pthread_cond_destroy(&sh.cv);
        return Error_set(err, DCU_ERR_NOMEM, "%s: cannot start zlib", path);
    }
    gzbuffer(gz, 1 << 16);
    ProducerArgs args = {&sh, gz, UINT64_MAX};
    if (!gzdirect(gz)) {
        args.limit = GzLimit_bytes(path);
    }
    pthread_t th;
    DcuStatus s = DCU_OK;
    if (sh.sync) {
        produce(&args);
        if (sh.status != DCU_OK) {
            s = Error_set(err, sh.status, "%s", sh.msg);
        }
    } else if (pthread_create(&th, NULL, produce, &args) != 0) {
        s = Error_set(err, DCU_ERR_NOMEM, "%s: cannot start the reader thread", path);
    } else {
        int stop = 0, last = 0;
        while (!last) {
            pthread_mutex_lock(&sh.mu);
            while (sh.nfull == 0) {
                pthread_cond_wait(&sh.cv, &sh.mu);
            }
            int idx = sh.full[sh.head];
            sh.head = (sh.head + 1) % N_BATCHES;
            sh.nfull--;
            pthread_mutex_unlock(&sh.mu);
            Batch* b = sh.batches[idx];
            last = b->last;
            stop = consume(&sh, b);
            pthread_mutex_lock(&sh.mu);
            sh.freelist[sh.nfree++] = idx;
            if (stop) {
                sh.stop = 1;
            }
            pthread_cond_broadcast(&sh.cv);
            pthread_mutex_unlock(&sh.mu);
            if (stop) {
                break; /* the producer sees stop and ends; its last batch is not needed */
            }
        }
        pthread_join(th, NULL);
        if (sh.status != DCU_OK) {
            s = Error_set(err, sh.status, "%s", sh.msg);
        }
    }
    for (int i = 0; i < N_BATCHES; i++) {
        batch_free(sh.batches[i]);
    }
    free(sh.fields);
    pthread_mutex_destroy(&sh.mu);
    pthread_cond_destroy(&sh.cv);
    gzclose(gz);
    fclose(f);
    return s;
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
