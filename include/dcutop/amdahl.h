/* amdahl.h - Amdahl bounds. p is a share (0..1) of total device kernel time, not of
 * wall time: these are bounds over device kernel time (PRODUCT.md 1). */
#ifndef DCUTOP_AMDAHL_H
#define DCUTOP_AMDAHL_H

#include "dcutop/error.h"

/* 1/(1-p): the whole-program speedup if the part took no time at all.
 * Returns INFINITY for p >= 1. p is clamped to [0, 1]. */
double Amdahl_ceiling(double p);

/* 1/((1-p) + p/k): the speedup if the part became k times faster (k > 0). */
double Amdahl_speedup(double p, double k);

/* Several disjoint parts sped up together: 1/((1 - sum p_i) + sum p_i/k_i). */
double Amdahl_combined(const double* p, const double* k, int n);

/* One what-if entry: a category name (or "gemm-group"/"non-gemm") and its factor. */
typedef struct WhatIf_ {
    char name[64];
    double k; /* > 0; INFINITY allowed ("inf") */
    double at_peak; /* "gemm=80%peak": 80 (0 < at_peak <= 100), k then comes from the
                     * modelled ops (query.c: k = time / time at that % of peak); 0: k given */
} WhatIf;

/* Parses "gemm=2,copy=4,softmax=inf,attention=80%peak" into out (at most max entries).
 * DCU_ERR_USAGE with a message naming the bad part. */
DcuStatus WhatIf_parse(const char* spec, WhatIf* out, int max, int* n, DcuError* err);

#endif
