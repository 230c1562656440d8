/* api_summary.h - api_summary_v's rows (trace_db.c) in the API view's order, ORDER BY
 * domain = 'PROFILER', total_ns DESC, name, from the calls in memory (api_scan.h) and the
 * api_stat rows: no GROUP BY that sorts every API call (0.4 s at a million launches,
 * issue 23). Exact where api_scan.h says so, the stats' values are integers, their sums
 * with the calls' stay within 2^53 in magnitude, and no two rows tie on the order's keys;
 * otherwise the caller runs the view's SQL. */
#ifndef DCUTOP_API_SUMMARY_H
#define DCUTOP_API_SUMMARY_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    char *domain, *name;       /* owned */
    int64_t calls, total_ns;   /* CAST(total(...) AS INTEGER) */
    int64_t min_ns, max_ns;    /* has_min, has_max 0: NULL */
    int has_min, has_max;
    int per_call;              /* max(per_call): some row from api_call */
    int profiler;              /* domain = 'PROFILER' */
} ApiSumRow;

/* *exact 0: no rows, run the SQL. */
DcuStatus ApiSummary_rows(TraceDb* db, ApiSumRow** out, int* n, int* exact, DcuError* err);
void ApiSummary_free(ApiSumRow* v, int n);

#endif
