/* key_sort.h - sorting big arrays of records by a small key, without a copy of the records:
 * 16-byte (group, key, index) entries are sorted in place (an introsort: no allocation, as
 * glibc's merge sort allocates n times the element size), then the order is applied to the
 * records, and to any parallel array, by cycles. A million 32-byte records sort with 16 MB
 * beside them, not 32. */
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

/* Moves the records of base[0..n) (elements of size bytes) so that slot i holds the one
 * that was at k[i].idx; likewise in each of the nparallel arrays par[j] (element size
 * psize[j]; NULL arrays are skipped; at most 7 arrays). k's idx fields are left as 0..n-1. */
void SortKey_apply(SortKey* k, size_t n, void* base, size_t size, void* const* par,
                   const size_t* psize, int nparallel);

#endif
