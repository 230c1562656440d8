/* launch_calls.h - the launch call of each dispatch for the idle analysis, looked up in
 * memory: every API call with a correlation id read once, grouped by correlation id. Stands
 * for idle.c's LAUNCH_JOIN (two index lookups per dispatch through SQL, 2.5 s of a
 * million-kernel report) with the same choice: the lowest id among the calls of the
 * dispatch's own file, else among its run's files a HIP call first, then the lowest id. */
#ifndef DCUTOP_LAUNCH_CALLS_H
#define DCUTOP_LAUNCH_CALLS_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    int64_t corr, file, run, id; /* run: its file's run_id; has_run 0 when NULL */
    int64_t start, end, pid, tid; /* NULL: the has_ flags below are 0 */
    uint32_t name;                /* index in LaunchCalls names */
    signed char hip;              /* the SQL's lower(substr(name, 1, 3)) <> 'hip': -1 NULL */
    unsigned char has_run, has_start, has_end, has_pid, has_tid;
} LaunchCall;

typedef struct LaunchCalls_ LaunchCalls;

/* The table of the database's current state, read once per state (the idle causes and the
 * launch stats both use it); borrowed from the database's cache. */
DcuStatus LaunchCalls_get(TraceDb* db, const LaunchCalls** out, DcuError* err);
/* The launch call of a dispatch of file (in run, has_run 0: NULL) with correlation id corr;
 * NULL when none. */
const LaunchCall* LaunchCalls_find(const LaunchCalls* this, int64_t file, int64_t run,
                                   int has_run, int64_t corr);
/* The text of name index i, and how many there are. */
const char* LaunchCalls_name(const LaunchCalls* this, uint32_t i);
uint32_t LaunchCalls_names(const LaunchCalls* this);

#endif
