/* kth.h - the k-th smallest of many int64 values, found in parallel parts (parallel.h): the
 * values' range cut into buckets, counted per part, the bucket that holds the k-th gathered
 * (each part's values at their place, in part order), and narrowed again until few are left.
 * The value is the k-th order statistic, whatever the part count; the input is not moved. */
#ifndef DCUTOP_KTH_H
#define DCUTOP_KTH_H

#include <stdint.h>

/* The k-th smallest (0-based, k < n) of v[0..n). */
int64_t Kth_select(const int64_t* v, int64_t n, int64_t k);

#endif
