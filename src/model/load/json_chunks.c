/* json_chunks.c - see json_chunks.h. */
#include "json_chunks.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcutop/xalloc.h"
#include "json_feed.h"

/* HEAD_MAX: "traceEvents" must open within this many bytes (Kineto writes a few KiB of
 * schemaVersion, deviceProperties and distributedInfo first), else the file is read serially.
 * CHUNK_EVENT_MAX: an event longer than this stops the cutting (memory stays bounded).
 * DEPTH_MAX: nesting inside an event past this stops it too, well before JSON_MAX_DEPTH
 * counts the root object and the array around the events. */
enum {
    CHUNK_BYTES = 1 << 20,
    CHUNKED_MIN = 8 << 20,
    HEAD_MAX = 4 << 20,
    CHUNK_EVENT_MAX = 64 << 20,
    DEPTH_MAX = JSON_MAX_DEPTH - 16,
    READ_STEP = 256 << 10,
};

static size_t g_chunk_bytes;
static uint64_t g_min_file;
static long g_cut_total; /* under a JsonChunks' mu; read by tests after the workers stop */

long JsonChunks_cutTotal(void) {
    return g_cut_total;
}

void JsonChunks_setTesting(size_t chunk_bytes, uint64_t min_file) {
    g_chunk_bytes = chunk_bytes;
    g_min_file = min_file;
}

/* DCUTOP_JSON_CHUNK_BYTES (tests): chunks of that many bytes, from files of any size. */
static size_t env_chunk(void) {
    const char* e = getenv("DCUTOP_JSON_CHUNK_BYTES");
    char* end;
    unsigned long long v = e ? strtoull(e, &end, 10) : 0;
    return e && *e && *end == '\0' && v > 0 && v < (1ULL << 30) ? (size_t)v : 0;
}

size_t JsonChunks_chunkBytes(void) {
    size_t e = g_chunk_bytes ? 0 : env_chunk();
    return g_chunk_bytes ? g_chunk_bytes : e ? e : CHUNK_BYTES;
}

uint64_t JsonChunks_minFile(void) {
    return g_min_file ? g_min_file : env_chunk() ? 1 : CHUNKED_MIN;
}

typedef struct Node_ {
    JsonChunk c;
    struct Node_* next;
} Node;

struct JsonChunks_ {
    int fd;
    uint64_t size, cap;
    size_t chunk_bytes;
    JsonChunkParseFn parse;
    JsonChunkFreeFn free_out;
    void* ctx;
    /* the cutter, under mu */
    uint64_t pos;       /* file offset the next cut scans from */
    int need_comma;     /* 0 before the first element */
    int cut_done;       /* no more chunks will be cut */
    unsigned char* buf; /* bytes [base, base + n) of the file */
    size_t n, bcap;
    uint64_t base;
    /* the chunks cut and not yet taken, in file order */
    Node *head, *tail;
    int in_flight, max_in_flight;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t* th;
    int nth;
};

/* ---- the scanner ------------------------------------------------------------------------ */

/* Byte classes outside strings: B_WS space, B_DELIM ends a number or literal, B_OPEN and
 * B_CLOSE nest, B_QUOTE opens a string; 0: part of a number or literal. */
enum { B_WS = 1, B_DELIM, B_OPEN, B_CLOSE, B_QUOTE };
static const unsigned char cls[256] = {
    [' '] = B_WS,     ['\t'] = B_WS,     ['\n'] = B_WS,      ['\r'] = B_WS,
    [':'] = B_DELIM,  [','] = B_DELIM,   ['{'] = B_OPEN,     ['['] = B_OPEN,
    ['}'] = B_CLOSE,  [']'] = B_CLOSE,   ['"'] = B_QUOTE,    ['\0'] = B_DELIM,
};
static const unsigned char str_stop[256] = {['"'] = 1, ['\\'] = 1};

static int is_ws(unsigned char c) {
    return cls[c] == B_WS;
}

/* Makes buf hold file byte base + i; 0 at the end of the file, on a read error or when the
 * buffer would pass `limit` bytes. */
static int have(JsonChunks* cs, size_t i, size_t limit) {
    while (i >= cs->n) {
        if (cs->base + cs->n >= cs->size || cs->n >= limit) {
            return 0;
        }
        size_t want = cs->n + READ_STEP;
        xgrow((void**)&cs->buf, &cs->bcap, want);
        ssize_t r = pread(cs->fd, cs->buf + cs->n, cs->bcap - cs->n, (off_t)(cs->base + cs->n));
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return 0;
        }
        cs->n += (size_t)r;
    }
    return 1;
}

/* Starts the buffer at file offset off. */
static void rebase(JsonChunks* cs, uint64_t off) {
    if (off >= cs->base && off <= cs->base + cs->n) {
        size_t d = (size_t)(off - cs->base);
        if (d > 0 && cs->n > d) {
            memmove(cs->buf, cs->buf + d, cs->n - d);
        }
        cs->n -= d;
    } else {
        cs->n = 0;
    }
    cs->base = off;
}

/* have(), with the common case inline. */
#define HAVE(cs, i, limit) ((i) < (cs)->n || have((cs), (i), (limit)))

static size_t skip_ws(JsonChunks* cs, size_t i, size_t limit) {
    while (have(cs, i, limit) && is_ws(cs->buf[i])) {
        i++;
    }
    return i;
}

/* A string token at buf[*i] (its opening quote): *i moves past the closing quote. 0 at the
 * end of the data or when the token (quotes included) reaches the cap. */
static int scan_string(JsonChunks* cs, size_t* i, size_t limit) {
    size_t k = *i + 1, tok = *i;
    for (;;) {
        if (!have(cs, k, limit) || k - tok >= cs->cap) {
            return 0;
        }
        const unsigned char* p = cs->buf + k;
        const unsigned char* e = cs->buf + cs->n;
        while (p < e && !str_stop[*p]) {
            p++;
        }
        k = (size_t)(p - cs->buf);
        if (p == e) {
            continue;
        }
        if (*p == '"') {
            *i = k + 1;
            return k + 1 - tok < cs->cap;
        }
        k += 2; /* a backslash and the byte it escapes */
    }
}

/* The event object at buf[*i] ('{'): *i moves just past its closing brace. 0 when the
 * cutting must stop before it (see json_chunks.h). */
static int scan_event(JsonChunks* cs, size_t* i, size_t limit) {
    size_t k = *i, start = *i;
    int depth = 0;
    while (HAVE(cs, k, limit)) {
        unsigned char c = cs->buf[k];
        if (k - start > CHUNK_EVENT_MAX) {
            return 0;
        }
        switch (cls[c]) {
        case B_QUOTE:
            if (!scan_string(cs, &k, limit)) {
                return 0;
            }
            continue;
        case B_OPEN:
            if (++depth > DEPTH_MAX) {
                return 0;
            }
            break;
        case B_CLOSE:
            if (--depth == 0) {
                *i = k + 1;
                return c == '}';
            }
            break;
        case B_WS:
        case B_DELIM:
            break;
        default: { /* a number or literal: up to the next delimiter */
            size_t tok = k;
            while (HAVE(cs, k + 1, limit) && cls[cs->buf[k + 1]] == 0) {
                if (++k - tok + 1 >= cs->cap) {
                    return 0;
                }
            }
            break;
        }
        }
        k++;
    }
    return 0;
}

/* The head: the offset just after the '[' of the root object's "traceEvents" key, 0 when
 * it is not found in the first HEAD_MAX bytes (or the document is not an object). */
static uint64_t find_events(JsonChunks* cs) {
    static const char key[] = "\"traceEvents\"";
    rebase(cs, 0);
    size_t i = skip_ws(cs, 0, HEAD_MAX);
    if (!have(cs, i, HEAD_MAX) || cs->buf[i] != '{') {
        return 0;
    }
    int depth = 0;
    while (have(cs, i, HEAD_MAX)) {
        unsigned char c = cs->buf[i];
        if (c == '"') {
            size_t s = i;
            if (!scan_string(cs, &i, HEAD_MAX)) {
                return 0;
            }
            if (depth == 1 && i - s == sizeof(key) - 1 && memcmp(cs->buf + s, key, i - s) == 0) {
                size_t j = skip_ws(cs, i, HEAD_MAX);
                if (!have(cs, j, HEAD_MAX) || cs->buf[j] != ':') {
                    return 0;
                }
                j = skip_ws(cs, j + 1, HEAD_MAX);
                return have(cs, j, HEAD_MAX) && cs->buf[j] == '[' ? cs->base + j + 1 : 0;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (++depth > DEPTH_MAX) {
                return 0;
            }
        } else if (c == '}' || c == ']') {
            if (--depth <= 0) {
                return 0;
            }
        }
        i++;
    }
    return 0;
}

/* The next chunk from cs->pos, under mu; NULL when no more are cut. */
static Node* cut(JsonChunks* cs) {
    size_t limit = cs->chunk_bytes + (size_t)CHUNK_EVENT_MAX + READ_STEP;
    rebase(cs, cs->pos);
    size_t i = skip_ws(cs, 0, limit);
    if (cs->need_comma) {
        if (!have(cs, i, limit) || cs->buf[i] != ',') {
            return NULL;
        }
        i = skip_ws(cs, i + 1, limit);
    }
    if (!have(cs, i, limit) || cs->buf[i] != '{') {
        return NULL;
    }
    size_t s = i, last = 0;
    for (;;) {
        if (!scan_event(cs, &i, limit)) {
            break;
        }
        last = i;
        if (last - s >= cs->chunk_bytes) {
            break;
        }
        size_t j = skip_ws(cs, i, limit);
        if (!have(cs, j, limit) || cs->buf[j] != ',') {
            break;
        }
        j = skip_ws(cs, j + 1, limit);
        if (!have(cs, j, limit) || cs->buf[j] != '{') {
            break;
        }
        i = j;
    }
    if (last == 0) {
        return NULL;
    }
    Node* nd = xcalloc(1, sizeof(*nd));
    nd->c.start = cs->base + s;
    nd->c.end = cs->base + last;
    nd->c.data = xmalloc(last - s);
    memcpy(nd->c.data, cs->buf + s, last - s);
    for (const unsigned char *p = nd->c.data, *e = p + (last - s);
         (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) {
        nd->c.lines++;
    }
    cs->pos = nd->c.end;
    cs->need_comma = 1;
    g_cut_total++;
    return nd;
}

/* ---- the threads ------------------------------------------------------------------------ */

static void* worker(void* arg) {
    JsonChunks* cs = arg;
    pthread_mutex_lock(&cs->mu);
    for (;;) {
        while (!cs->stop && !cs->cut_done && cs->in_flight >= cs->max_in_flight) {
            pthread_cond_wait(&cs->cv, &cs->mu);
        }
        if (cs->stop || cs->cut_done) {
            break;
        }
        Node* nd = cut(cs);
        if (!nd) {
            cs->cut_done = 1;
            free(cs->buf); /* the last cutter frees the buffer */
            cs->buf = NULL;
            cs->n = cs->bcap = 0;
            pthread_cond_broadcast(&cs->cv);
            break;
        }
        if (cs->tail) {
            cs->tail->next = nd;
        } else {
            cs->head = nd;
        }
        cs->tail = nd;
        cs->in_flight++;
        pthread_mutex_unlock(&cs->mu);
        cs->parse(cs->ctx, &nd->c);
        pthread_mutex_lock(&cs->mu);
        nd->c.done = 1;
        pthread_cond_broadcast(&cs->cv);
    }
    pthread_mutex_unlock(&cs->mu);
    return NULL;
}

JsonChunks* JsonChunks_start(int fd, uint64_t size, uint64_t cap, size_t chunk_bytes,
                             int workers, JsonChunkParseFn parse, JsonChunkFreeFn free_out,
                             void* ctx) {
    JsonChunks* cs = xcalloc(1, sizeof(*cs));
    cs->fd = fd;
    cs->size = size;
    cs->cap = cap > 16 ? cap : 16;
    cs->chunk_bytes = chunk_bytes > 0 ? chunk_bytes : 1;
    cs->parse = parse;
    cs->free_out = free_out;
    cs->ctx = ctx;
    cs->pos = find_events(cs);
    if (cs->pos == 0 || workers < 1) {
        free(cs->buf);
        free(cs);
        return NULL;
    }
    cs->max_in_flight = 2 * workers + 2;
    pthread_mutex_init(&cs->mu, NULL);
    pthread_cond_init(&cs->cv, NULL);
    cs->th = xcalloc((size_t)workers, sizeof(pthread_t));
    while (cs->nth < workers && pthread_create(&cs->th[cs->nth], NULL, worker, cs) == 0) {
        cs->nth++;
    }
    if (cs->nth == 0) {
        JsonChunks_stop(cs);
        return NULL;
    }
    return cs;
}

JsonChunk* JsonChunks_next(JsonChunks* cs) {
    pthread_mutex_lock(&cs->mu);
    while (cs->head ? !cs->head->c.done : !cs->cut_done) {
        pthread_cond_wait(&cs->cv, &cs->mu);
    }
    Node* nd = cs->head;
    if (nd) {
        cs->head = nd->next;
        if (!cs->head) {
            cs->tail = NULL;
        }
    }
    pthread_mutex_unlock(&cs->mu);
    return nd ? &nd->c : NULL;
}

static void free_node(JsonChunks* cs, Node* nd) {
    free(nd->c.data);
    if (nd->c.out && cs->free_out) {
        cs->free_out(nd->c.out);
    }
    free(nd);
}

void JsonChunks_release(JsonChunks* cs, JsonChunk* c) {
    free_node(cs, (Node*)c); /* c is the first member of its Node */
    pthread_mutex_lock(&cs->mu);
    cs->in_flight--;
    pthread_cond_broadcast(&cs->cv);
    pthread_mutex_unlock(&cs->mu);
}

void JsonChunks_stop(JsonChunks* cs) {
    if (!cs) {
        return;
    }
    pthread_mutex_lock(&cs->mu);
    cs->stop = 1;
    pthread_cond_broadcast(&cs->cv);
    pthread_mutex_unlock(&cs->mu);
    for (int i = 0; i < cs->nth; i++) {
        pthread_join(cs->th[i], NULL);
    }
    while (cs->head) {
        Node* nd = cs->head;
        cs->head = nd->next;
        free_node(cs, nd);
    }
    pthread_mutex_destroy(&cs->mu);
    pthread_cond_destroy(&cs->cv);
    free(cs->th);
    free(cs->buf);
    free(cs);
}
