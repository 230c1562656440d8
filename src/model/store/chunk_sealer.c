/* chunk_sealer.c - one thread, a queue of full buffers and a list of empty ones (see
 * chunk_sealer.h). The buffers circulate: the caller's first one goes into the queue and
 * comes back empty like the spares; at the end the spares are freed, whichever is where. */
#include "dcutop/chunk_sealer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "dcutop/xalloc.h"

enum { MAX_BUF = 8 };

struct ChunkSealer_ {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    ChunkSealFn fn;
    void* ctx;
    int64_t* queue[MAX_BUF + 1]; /* full buffers in push order (a ring) */
    int qhead, qlen;
    int64_t* empty[MAX_BUF + 1]; /* sealed buffers ready to be filled again */
    int nempty;
    int stop;
    long pushed;         /* the caller's count */
    atomic_long sealed;  /* fn has returned for this many (released after fn's writes) */
    int64_t* spares[MAX_BUF];
    int nspares;
};

static void* seal_loop(void* arg) {
    ChunkSealer* s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->qlen == 0 && !s->stop) {
            pthread_cond_wait(&s->cv, &s->mu);
        }
        if (s->qlen == 0) {
            break; /* stop, and nothing left */
        }
        int64_t* b = s->queue[s->qhead];
        s->qhead = (s->qhead + 1) % (MAX_BUF + 1);
        s->qlen--;
        pthread_mutex_unlock(&s->mu);
        s->fn(s->ctx, b);
        pthread_mutex_lock(&s->mu);
        atomic_fetch_add_explicit(&s->sealed, 1, memory_order_release);
        s->empty[s->nempty++] = b;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

ChunkSealer* ChunkSealer_new(ChunkSealFn fn, void* ctx, int nbuf, size_t buf_bytes) {
    ChunkSealer* s = xcalloc(1, sizeof(*s));
    s->fn = fn;
    s->ctx = ctx;
    atomic_init(&s->sealed, 0);
    s->nspares = nbuf < 1 ? 1 : nbuf > MAX_BUF ? MAX_BUF : nbuf;
    for (int i = 0; i < s->nspares; i++) {
        s->spares[i] = xmalloc(buf_bytes);
        s->empty[s->nempty++] = s->spares[i];
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->th, NULL, seal_loop, s) != 0) {
        s->stop = 1;
        ChunkSealer_delete(s);
        return NULL;
    }
    return s;
}

void ChunkSealer_delete(ChunkSealer* this) {
    if (!this) {
        return;
    }
    if (!this->stop) {
        pthread_mutex_lock(&this->mu);
        this->stop = 1; /* the thread seals what is queued, then ends */
        pthread_cond_broadcast(&this->cv);
        pthread_mutex_unlock(&this->mu);
        pthread_join(this->th, NULL);
    }
    pthread_mutex_destroy(&this->mu);
    pthread_cond_destroy(&this->cv);
    for (int i = 0; i < this->nspares; i++) {
        free(this->spares[i]);
    }
    free(this);
}

int64_t* ChunkSealer_push(ChunkSealer* this, int64_t* full) {
    pthread_mutex_lock(&this->mu);
    this->queue[(this->qhead + this->qlen) % (MAX_BUF + 1)] = full;
    this->qlen++;
    pthread_cond_broadcast(&this->cv);
    while (this->nempty == 0) {
        pthread_cond_wait(&this->cv, &this->mu);
    }
    int64_t* b = this->empty[--this->nempty];
    pthread_mutex_unlock(&this->mu);
    this->pushed++;
    return b;
}

void ChunkSealer_drain(ChunkSealer* this) {
    if (ChunkSealer_inFlight(this) == 0) {
        return; /* the acquire load saw fn's last return: its writes are visible */
    }
    pthread_mutex_lock(&this->mu);
    while (atomic_load_explicit(&this->sealed, memory_order_relaxed) < this->pushed) {
        pthread_cond_wait(&this->cv, &this->mu);
    }
    pthread_mutex_unlock(&this->mu);
}

int ChunkSealer_inFlight(ChunkSealer* this) {
    return (int)(this->pushed - atomic_load_explicit(&this->sealed, memory_order_acquire));
}
