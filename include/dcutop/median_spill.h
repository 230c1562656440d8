/* median_spill.h - the exact median of many int64 values in bounded memory. The timeline's
 * launch-gap median spans every run of a job: 64 ranks of 100k dispatches are 6.4 million
 * gaps, and the memory must not grow with the ranks (issue 15). Values stay in memory up
 * to a limit; past it, each full buffer is sorted and written to an unlinked temp file, and
 * the median is found by bisection over the values, counting in each sorted chunk. While
 * nothing was spilled the answer comes from the buffer alone, as before. */
#ifndef DCUTOP_MEDIAN_SPILL_H
#define DCUTOP_MEDIAN_SPILL_H

#include <stdint.h>

typedef struct MedianSpill_ MedianSpill;

/* limit: values held in memory before a spill (>= 1). */
MedianSpill* MedianSpill_new(int64_t limit);
void MedianSpill_delete(MedianSpill* this);

void MedianSpill_add(MedianSpill* this, const int64_t* v, int64_t n);
int64_t MedianSpill_count(const MedianSpill* this);

/* 1 when the values no longer fit the limit and went to a temp file. When no temp file can
 * be made the buffer grows instead: the answer stays exact. */
int MedianSpill_spilled(const MedianSpill* this);

/* The median: the middle value, or of the two middle ones the mean rounded up (lo +
 * (hi - lo + 1) / 2); 0 when empty. Reorders the buffered values. */
int64_t MedianSpill_median(MedianSpill* this);

/* lo + (hi - lo + 1) / 2 for lo <= hi, without overflow at the ends of int64. */
int64_t MedianSpill_middle(int64_t lo, int64_t hi);

/* The k-th smallest (0-based, k < count) of buffer v[0..n): reorders v (quickselect). */
int64_t MedianSpill_kth(int64_t* v, int64_t n, int64_t k);

#endif
