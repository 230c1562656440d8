/* chunk_sealer.h - full store chunks encoded on a thread of their own, in order, while the
 * loading thread fills the next one (dispatch_store.h: encoding a chunk was about a third
 * of the loading thread's time, and on 16 cores that thread bounds the load).
 *
 * The loading thread pushes a full buffer and gets an empty one back (waiting only when all
 * are in flight); the sealer thread calls fn on each pushed buffer, in push order. fn may
 * change whatever the loading thread leaves alone until the next drain: the caller must
 * drain before it reads or changes anything fn touches. Drain is a full barrier. */
#ifndef DCUTOP_CHUNK_SEALER_H
#define DCUTOP_CHUNK_SEALER_H

#include <stddef.h>
#include <stdint.h>

typedef struct ChunkSealer_ ChunkSealer;
typedef void (*ChunkSealFn)(void* ctx, int64_t* full);

/* nbuf spare buffers of buf_bytes each (owned); NULL when the thread cannot start. */
ChunkSealer* ChunkSealer_new(ChunkSealFn fn, void* ctx, int nbuf, size_t buf_bytes);
/* Drains, ends the thread, frees the spare buffers (a buffer handed out is one of them or
 * the caller's first: the caller must not use one after this). */
void ChunkSealer_delete(ChunkSealer* this);
/* Queues full for fn; returns an empty buffer to fill next. */
int64_t* ChunkSealer_push(ChunkSealer* this, int64_t* full);
/* Waits until fn has returned for every pushed buffer. Cheap when nothing was pushed since
 * the last drain (the loading thread's own count, no lock). */
void ChunkSealer_drain(ChunkSealer* this);
/* Buffers pushed that fn has not finished yet (at most: one may finish as this returns). */
int ChunkSealer_inFlight(ChunkSealer* this);

#endif
