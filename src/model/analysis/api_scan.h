/* api_scan.h - every API call of the used API files read once into memory, grouped by
 * domain and name in a hash table, and kept while the database is unchanged (the timeline's
 * cut tables aside: timeline.c keeps other cached values across them). The API view's rows
 * (query.c) and the timeline's API split (api_split.c) were each a GROUP BY that sorted
 * every call (0.4 and 0.6 s at a million launches, issue 23); both now come from this one
 * scan. Their figures are SQL's exactly only where `exact` says so: names are text without
 * a NUL, durations and starts integers, and each group's durations add up to at most 2^53
 * in magnitude (every partial sum a double holds, whatever the order SQL adds them in);
 * otherwise callers run their SQL. */
#ifndef DCUTOP_API_SCAN_H
#define DCUTOP_API_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    char *domain, *name;        /* owned */
    int64_t calls, total_ns;    /* count(*), total(dur_ns) */
    int64_t min_ns, max_ns;     /* min(dur_ns), max(dur_ns) */
    int64_t abs_ns;             /* the sum of |dur_ns|, for the 2^53 bound */
} ApiGroup;

typedef struct {
    ApiGroup* g; /* in first-seen order */
    int ng;
    int64_t n;          /* calls */
    uint32_t* group;    /* per call: its index in g */
    int64_t* file;      /* per call: file_id */
    int64_t* start;     /* per call: start_ns (has_start 0: NULL) */
    uint8_t* has_start;
    int64_t* dur;       /* per call: dur_ns */
    int exact;          /* 0: the figures might not be SQL's (then nothing else is set) */
} ApiScan;

/* The bound of the exact sums: every whole number up to it in magnitude is a double, so a
 * sum whose partial sums stay within it is SQL's total() whatever the order of adding. */
#define API_EXACT_LIMIT ((int64_t)1 << 53)

/* |x|; past API_EXACT_LIMIT for INT64_MIN, whose magnitude no int64 holds. */
int64_t ApiScan_magnitude(int64_t x);

/* The hash key of the group (domain, name): the domain's length, the domain, the name, in
 * *key (grown to *cap as needed); returns the key's length. */
size_t ApiScan_groupKey(char** key, size_t* cap, const char* d, int dl, const char* nm,
                        size_t nl);

/* The scan, cached (owned by the database's cache: valid until the next call). */
DcuStatus ApiScan_get(TraceDb* db, const ApiScan** out, DcuError* err);

/* SQL's BINARY collation of two NUL-free texts (bytes as unsigned, then the shorter first:
 * strcmp's order). */
int ApiScan_cmpText(const char* x, const char* y);

#endif
