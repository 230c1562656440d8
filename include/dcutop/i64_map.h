/* i64_map.h - an int64 -> int64 map for the joins done in C while loading (kineto_link.c,
 * load_ranges.c): a million probes cost milliseconds, where a correlated SQL subquery per
 * row cost seconds (issue 11). Dense keys (ids) are held as an array indexed by key, others
 * in a hash table (open addressing). Values are > 0; 0 means absent. */
#ifndef DCUTOP_I64_MAP_H
#define DCUTOP_I64_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct I64Map_ I64Map;

I64Map* I64Map_new(void);
void I64Map_delete(I64Map* this);
/* The value of key, or 0 when absent. */
int64_t I64Map_get(const I64Map* this, int64_t key);
/* Sets key's value (> 0). */
void I64Map_put(I64Map* this, int64_t key, int64_t value);
size_t I64Map_count(const I64Map* this);

#endif
