/* launch_link.h - the host API call that launched each dispatch of a run: the call with the
 * dispatch's correlation id among the run's files, a HIP call first, then the lowest id
 * (load_ranges.c attributes the dispatch to the range open at that launch). This was a
 * subquery per dispatch; correlation ids restart in every rank, so with R ranks each probe
 * met R candidates. Here one run's calls make a hash map, and memory holds one run. */
#ifndef DCUTOP_LAUNCH_LINK_H
#define DCUTOP_LAUNCH_LINK_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    int64_t dispatch_id, file_id;
    int64_t tid, start;         /* the dispatch's own (has_tid, has_start) */
    int64_t call_tid, call_start; /* its launching call's (call: 1 when found) */
    unsigned has_tid : 1, has_start : 1, call : 1, call_has_tid : 1, call_has_start : 1;
} LaunchLink;

/* The dispatches of files[0..nfiles) (used kernel files of run `run`; run 0: none, so no
 * call is found), with their launching calls when with_calls (*out owned, *n entries). */
DcuStatus LaunchLink_run(TraceDb* db, int64_t run, const int64_t* files, int64_t nfiles,
                         int with_calls, LaunchLink** out, int64_t* n, DcuError* err);

#endif
