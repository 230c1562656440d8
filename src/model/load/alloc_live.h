/* alloc_live.h - the live bytes of one memory level while allocation rows (rocpd's
 * memory_allocations) are read in time order, and the checks a row passes before it counts.
 * Private to the model's loaders. */
#ifndef DCUTOP_ALLOC_LIVE_H
#define DCUTOP_ALLOC_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/i64_map.h"

/* address -> size of the block allocated there (I64Map values index sizes[], 0 once freed) */
typedef struct AllocLive_ {
    I64Map* at; /* owned */
    int64_t* sizes;
    size_t n, cap;
    int64_t bytes; /* at most LOAD_MAX_AMOUNT: a block that would pass it is refused */
} AllocLive;

void AllocLive_init(AllocLive* l);
void AllocLive_done(AllocLive* l);

/* Why an allocation row cannot be used, or NULL (a static text): its operation (op, ol bytes:
 * ALLOC, REALLOC, FREE or RECLAIM), its size (LOAD_NULL, or 0 <= size < 2^53) and its times
 * (end not before start). *is_free: 1 for a free, 0 for an allocation. */
const char* AllocLive_rejected(const char* op, size_t ol, int64_t size, int64_t start,
                               int64_t end, int* is_free);

/* Applies one checked operation; returns the level's live bytes after it, or -1 when the
 * block would take the level past 2^53 bytes (8 PiB: no device holds that; the row is
 * refused and nothing changes). addr may be LOAD_NULL. */
int64_t AllocLive_apply(AllocLive* l, int is_free, int64_t addr, int64_t size);

#endif
