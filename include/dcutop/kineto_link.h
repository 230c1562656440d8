/* kineto_link.h - the aten op that launched each kernel of a PyTorch (Kineto) file: the
 * dispatch's correlation id -> ext_link -> cpu_op with that External id, the latest-starting
 * one (the innermost), ties to the lowest id; ops without a start come last. This was a
 * correlated SQL subquery per dispatch (two index probes and a sort each: a fifth of a
 * 1M-kernel load, issue 11); here it is two hash maps built from one file's rows, so memory
 * holds one file (one rank), not the job (issue 15). */
#ifndef DCUTOP_KINETO_LINK_H
#define DCUTOP_KINETO_LINK_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    int64_t dispatch_id, kernel_id, dur_ns;
    int64_t op; /* cpu_op.id; 0: no op for this launch */
} KinetoLink;

/* The dispatches of file `file` that have a correlation id, in id order, with their op
 * (*out owned, *n entries; NULL when none). only_file: every ext_link and cpu_op row is
 * this file's, so they are read by one scan of each table, with no index (building the
 * (file_id, corr_id) index over 2,000,000 links and reading through it cost more than the
 * scan, issue 23); else through the indexes ext_link_corr and cpu_op_ext. */
DcuStatus KinetoLink_file(TraceDb* db, int64_t file, int only_file, KinetoLink** out,
                          int64_t* n, DcuError* err);

#endif
