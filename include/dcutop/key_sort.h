/* key_sort.h - sorting big arrays of records by a small key, without a copy of the records:
 * 16-byte (group, key, index) entries are sorted in place (an introsort: no allocation, as
 * glibc's merge sort allocates n times the element size); the caller then reads the records
 * in the entries' order. */
#ifndef DCUTOP_KEY_SORT_H
#define DCUTOP_KEY_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct SortKey_ {
    int64_t key;    /* the second key */
    uint32_t group; /* the first key */
    uint32_t idx;   /* the record's index before the sort */
} SortKey;

/* Orders records a and b (indexes) whose group and key are equal: < 0, 0, > 0. */
typedef int (*SortTieFn)(void* ctx, uint32_t a, uint32_t b);

/* Sorts k[0..n) by group, then key, then tie(ctx, a.idx, b.idx), or by idx when tie is
 * NULL. When the order is total (no tie answers 0 for distinct records) the result is the
 * one every sort gives; O(n log n) even on adversarial input. */
void SortKey_sort(SortKey* k, size_t n, SortTieFn tie, void* ctx);

#endif
