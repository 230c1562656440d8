/* api_split.h - the timeline's API table (timeline.c v_api): per domain and name, the calls
 * and time before and from each file's cut (temp.timeline_cut), in ORDER BY total DESC,
 * name. SQL grouped every API call for it with a sort (0.6 s at a million launches, issue
 * 23); here the calls in memory (api_scan.h) are summed per group. The figures are SQL's
 * exactly where api_scan.h says so, and the order where no two rows have the same total
 * and name (SQL may order those either way); otherwise the caller runs its SQL instead. */
#ifndef DCUTOP_API_SPLIT_H
#define DCUTOP_API_SPLIT_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    char *domain, *name;                    /* owned */
    int64_t calls, total_ns;                /* count(*), total(dur_ns) */
    int64_t first_calls, first_ns;          /* start_ns < cut_ns */
    int64_t steady_calls, steady_ns;        /* start_ns >= cut_ns */
    int cut;                                /* a row of a file with a cut */
} ApiSplit;

/* *out, *n: the rows; *exact 0 when the figures or their order might not be SQL's (then
 * no rows). */
DcuStatus ApiSplit_read(TraceDb* db, ApiSplit** out, int* n, int* exact, DcuError* err);
void ApiSplit_free(ApiSplit* v, int n);

#endif
