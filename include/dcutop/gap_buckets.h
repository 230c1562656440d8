/* gap_buckets.h - GPU idle gaps bucketed by size, as ROCm's RAPTOR shows them: how many idle
 * gaps of each size a device had and how much time they hold. A gap is idle time on a
 * device: from the latest kernel end so far on that device (whatever its stream) to the
 * next kernel start, plus the idle time before the device's first kernel and after its last
 * one within the run's span. So the gaps of a device add up to its idle time (device wall -
 * busy), never to a sum over streams. */
#ifndef DCUTOP_GAP_BUCKETS_H
#define DCUTOP_GAP_BUCKETS_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

#define GAP_BUCKETS_MAX 16

typedef struct GapBuckets_ {
    int nbounds;                        /* buckets = nbounds + 1 */
    int64_t bound[GAP_BUCKETS_MAX - 1]; /* upper bounds (inclusive), ns, increasing */
    int64_t count[GAP_BUCKETS_MAX];
    int64_t total_ns[GAP_BUCKETS_MAX];
} GapBuckets;

/* RAPTOR's buckets: <= 10 us, 10-20 us, 20-50 us, 50-100 us, 100 us-1 ms, 1-10 ms, > 10 ms. */
void GapBuckets_initDefault(GapBuckets* b);

/* "10us,20us,50us,100us,1ms,10ms": increasing upper bounds with a unit (ns, us, ms, s).
 * DCU_ERR_USAGE with a message for anything else; b is unchanged then. */
DcuStatus GapBuckets_parse(GapBuckets* b, const char* spec, DcuError* err);

/* Counts one gap (ns > 0; zero and negative gaps are not idle time). */
void GapBuckets_add(GapBuckets* b, int64_t ns);

/* "<= 10 us", "10 us - 20 us", "> 10 ms" for bucket i. */
void GapBuckets_label(const GapBuckets* b, int i, char* buf, size_t cap);

/* The bounds in effect for a database: meta 'gap_buckets' (set by GapBuckets_store, e.g. from
 * --gap-buckets), else the default. */
void GapBuckets_load(GapBuckets* b, TraceDb* db);
DcuStatus GapBuckets_store(TraceDb* db, const char* spec, DcuError* err);

#endif
