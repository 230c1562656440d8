/* mem_alloc.h - device memory allocations (rocpd memory_allocations, stored by the loader in
 * mem_alloc): the list of operations with each block's lifetime, for --export allocations. The
 * Summary's peak and count come from query.h's totals. */
#ifndef DCUTOP_MEM_ALLOC_H
#define DCUTOP_MEM_ALLOC_H

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* One row per allocation operation of the runs in scope, in time order per file: run, pid,
 * agent, op (ALLOC, FREE, REALLOC, RECLAIM), level (REAL, VIRTUAL, SCRATCH), address, bytes,
 * start_ns, end_ns, freed_ns (an ALLOC's: the start of the next FREE or RECLAIM of its address
 * at its level in the file; NULL when never freed in the trace), lifetime_ns (freed_ns -
 * start_ns) and live_bytes (bytes live at its level in the file after the operation: peak
 * live bytes over time). *out owned by the caller. */
DcuStatus MemAlloc_list(TraceDb* db, ResultSet** out, DcuError* err);

#endif
