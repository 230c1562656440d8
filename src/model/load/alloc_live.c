/* alloc_live.c - AllocLive (alloc_live.h): live bytes per memory level, with no sum that can
 * overflow, and the checks of an allocation row. */
#include "alloc_live.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/xalloc.h"
#include "load_event.h"

void AllocLive_init(AllocLive* l) {
    memset(l, 0, sizeof(*l));
    l->at = I64Map_new();
}

void AllocLive_done(AllocLive* l) {
    I64Map_delete(l->at);
    free(l->sizes);
    memset(l, 0, sizeof(*l));
}

int64_t AllocLive_apply(AllocLive* l, int is_free, int64_t addr, int64_t size) {
    int64_t k = addr != LOAD_NULL ? I64Map_get(l->at, addr) : 0;
    int64_t old = k > 0 ? l->sizes[k - 1] : 0; /* a block at this address: freed or replaced */
    int adds = !is_free && size != LOAD_NULL && size > 0;
    if (adds && size > LOAD_MAX_AMOUNT - (l->bytes - old)) {
        return -1;
    }
    if (old > 0) {
        l->bytes -= old;
        l->sizes[k - 1] = 0;
    } else if (is_free && size != LOAD_NULL && size > 0 && size <= l->bytes) {
        l->bytes -= size; /* a free of a block allocated before the trace started */
    }
    if (adds) {
        l->bytes += size;
        if (addr != LOAD_NULL) {
            if (k <= 0) {
                if (l->n == l->cap) {
                    l->cap = l->cap ? 2 * l->cap : 64;
                    l->sizes = xrealloc(l->sizes, sizeof(int64_t) * l->cap);
                }
                l->sizes[l->n] = size;
                k = (int64_t)++l->n;
                I64Map_put(l->at, addr, k);
            }
            l->sizes[k - 1] = size;
        }
    }
    return l->bytes;
}

const char* AllocLive_rejected(const char* op, size_t ol, int64_t size, int64_t start,
                               int64_t end, int* is_free) {
    static const char* const frees[] = {"FREE", "RECLAIM"};
    static const char* const allocs[] = {"ALLOC", "REALLOC"};
    *is_free = -1;
    for (int i = 0; i < 2; i++) {
        if (ol == strlen(frees[i]) && strncasecmp(op, frees[i], ol) == 0) {
            *is_free = 1;
        }
        if (ol == strlen(allocs[i]) && strncasecmp(op, allocs[i], ol) == 0) {
            *is_free = 0;
        }
    }
    if (*is_free < 0) {
        return "operation is none of ALLOC, REALLOC, FREE, RECLAIM";
    }
    if (size != LOAD_NULL && (size < 0 || size >= LOAD_MAX_AMOUNT)) {
        return size < 0 ? "size below 0" : "size of 2^53 bytes (8 PiB) or more";
    }
    if (start != LOAD_NULL && end != LOAD_NULL && end < start) {
        return "end before start";
    }
    return NULL;
}
