/* repro.h - a runnable PyTorch microbenchmark of the hot ops of a PyTorch profiler (Kineto)
 * trace: `--export repro` and the Kernel screen's key. Each selected op (an op name with one
 * set of recorded input sizes, dtypes, strides and scalars) is rebuilt in the script through
 * torch.ops.<ns>.<op> with the overload that fits its recorded inputs, warmed up and timed
 * with device events (torch.cuda.Event, HIP on ROCm builds); the script prints one line per
 * op, `op=NAME shapes=SIZES trace_us=X bench_us=Y ...`, X the trace's device time per call
 * of the op (its kernels' summed time over its calls). A kernel belongs to its launching op
 * as dispatch_op gives it (op_link.h: the innermost op whose External id the launch
 * carries), which also gives the pass (forward, backward, other) and module shown. */
#ifndef DCUTOP_REPRO_H
#define DCUTOP_REPRO_H

#include <stdio.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct ReproOpts_ {
    const char* filter; /* PCRE2 over the op's name and its kernels' names; NULL: any */
    const char* kernel; /* only the ops that launched this kernel (full name); NULL: any */
    const char* module; /* only kernels of this module path ("[no module]": none), as the
                         * Ops view labels it; NULL: any */
    const char* model_op; /* only kernels of this op as the Ops view names it (the forward
                           * op of a backward kernel); NULL: any */
    int top;            /* the top ops by device time; <= 0: every op that matches */
    const char* source; /* the trace paths, for the script's header (borrowed; may be NULL) */
} ReproOpts;

typedef struct ReproStats_ {
    int ops;         /* selected */
    int rebuilt;     /* of which the script times */
    int not_rebuilt; /* listed with the reason */
} ReproStats;

#define REPRO_TOP_DEFAULT 10

/* Writes the script to out. Each op that cannot be rebuilt is listed in the script with its
 * reason, and also as a line "dcutop: repro: not rebuilt: op=NAME shapes=SIZES: REASON" to
 * notes when notes is not NULL. DCU_ERR_EMPTY (with the reason in err) when no op launched a kernel or none
 * matches; DCU_ERR_REGEX for a bad filter; DCU_ERR_SQL, DCU_ERR_IO. */
DcuStatus Repro_write(TraceDb* db, const ReproOpts* opts, FILE* out, FILE* notes,
                      ReproStats* stats, DcuError* err);

#endif
