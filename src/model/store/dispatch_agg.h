/* dispatch_agg.h - per-kernel aggregates of one file's dispatches, summed while loading
 * (issue 11). The kernel summary used to GROUP BY over every dispatch row after loading, a
 * sort of a million rows that was a fifth of a 1M-dispatch report. Each file's sums go to
 * the dispatch_agg table when the file is done; kernel_summary_agg_v (trace_db.c) combines
 * those of the used files. The sums are taken exactly as SQLite's total() and sum() take
 * them (doubles, in insertion order), so the summary is the same to the last bit for a
 * file, and equal up to rounding order when one kernel's time spreads over several files. */
#ifndef DCUTOP_DISPATCH_AGG_H
#define DCUTOP_DISPATCH_AGG_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct DispatchAgg_ DispatchAgg;

DispatchAgg* DispatchAgg_new(void);
void DispatchAgg_delete(DispatchAgg* this);

/* One stored dispatch (rowid row_id) of kernel_id (> 0) lasting dur_ns, starting at
 * start_ns (INT64_MIN: no start; the earliest start feeds each run's clock origin,
 * kernel_query.c). */
void DispatchAgg_add(DispatchAgg* this, int64_t row_id, int64_t kernel_id, int64_t dur_ns,
                     int64_t start_ns);

/* Writes the sums gathered since the last flush as rows of dispatch_agg for file_id, and
 * the rowid range they came from as its dispatch_span row, and starts again from zero. */
DcuStatus DispatchAgg_flush(DispatchAgg* this, TraceDb* db, int64_t file_id, DcuError* err);

#endif
