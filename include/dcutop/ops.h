/* ops.h - the Ops view: device kernel time per model op and module (dispatch_op, op_link.h),
 * forward and backward apart and together.
 *
 * An op row's name is the op the user's model called: the launching aten op for forward and
 * other kernels, the forward op for backward kernels (aten::addmm's backward is listed as
 * aten::addmm, pass 'backward'). A kernel with no op at its launch has an empty op (export)
 * or '[unlinked]' (the screen), with its reason. Input shapes and dtypes are those recorded
 * on that op (record_shapes), the distinct ones joined by ' | '.
 *
 * Share and Amdahl ceiling are on the opportunity list's basis (advice.h): the run's wall
 * time (device wall, kernel parts scaled by wall / kernel busy time) when the trace has a
 * timeline, else device kernel time. */
#ifndef DCUTOP_OPS_H
#define DCUTOP_OPS_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/query.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* 1 when some dispatch in use was tied to the model (a PyTorch trace). */
int Ops_available(TraceDb* db);

/* --export ops: one row per (run, step, module, op, pass) with the columns run, step,
 * module, op, pass, calls, kernels, device_ns, input_shapes, then input_types, share_pct,
 * ceiling. calls: distinct op calls (forward op calls for backward rows). q->filter matches
 * the op or module; q->sort a column key. */
DcuStatus Ops_export(TraceDb* db, const QueryOpts* q, ResultSet** out, DcuError* err);

typedef enum {
    OPS_MODULES,   /* per module path: fwd_ns, bwd_ns, total_ns, calls, kernels, share */
    OPS_OPS,       /* the ops of one module */
    OPS_KERNELS,   /* the kernels of one op of one module, per pass */
    OPS_DISPATCHES /* the dispatches of one kernel there */
} OpsLevel;

/* What a level lists: module (its label: the path, '[no module]', '[unlinked]'), op and
 * kernel (full name) narrow the deeper levels (borrowed). */
typedef struct {
    OpsLevel level;
    const char* module;
    const char* op;
    const char* kernel;
} OpsSel;

/* The screen's tables, most time first unless q->sort says; q->filter matches the level's
 * name column. */
DcuStatus Ops_table(TraceDb* db, const OpsSel* sel, const QueryOpts* q, ResultSet** out,
                    DcuError* err);

/* Kernel time of the dispatches in use that dispatch_op covers, and the part of it with an
 * op (linked) and with an op and a module or step (as the Ranges view places it). */
typedef struct {
    int64_t total_ns, linked_ns, kernels, linked;
    int64_t backward_ns, backward_fwd_ns; /* backward kernels; those with their forward op */
    int64_t ranged_ns; /* kernel time the Ranges view places under a range or module */
} OpsCoverage;
DcuStatus Ops_coverage(TraceDb* db, OpsCoverage* c, DcuError* err);

#endif
