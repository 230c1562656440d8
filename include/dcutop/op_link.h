/* op_link.h - every kernel of a PyTorch (Kineto) trace tied back to the model: the aten op
 * that launched it, the forward op for the kernels autograd launched in the backward pass,
 * the module path and the ProfilerStep. Built once after loading into table dispatch_op
 * (trace_db.c), which the Ranges, Stacks and Ops views read.
 *
 * The launching op is the innermost cpu_op whose External id the launch carries (the
 * dispatch's correlation id -> ext_link -> cpu_op, as kineto_link.h); op_id holds it and
 * top_op_id the outermost op enclosing it on its thread (aten::linear over aten::addmm).
 * A kernel is 'backward' when that op runs under an autograd node (an op that is the end
 * of a 'fwdbwd' flow, has a 'Fwd thread id' above 0, or is named
 * 'autograd::engine::evaluate_function: ...'); its forward op is the flow's start ('flow'),
 * else the forward op with the node's Sequence number on the forward thread, the
 * latest-starting one as PyTorch picks it ('sequence'). A kernel is 'forward' when its op
 * runs in an nn.Module or under an op with a Sequence number, else 'other' (optimizer,
 * data preparation). module: the 'nn.Module: Name_N' python_function frames enclosing the
 * (forward) op on its thread, outermost first, joined by '/'. step: N of the
 * 'ProfilerStep#N' range of the process open at the launching op's start (a backward op
 * runs inside the step on another thread: the time decides).
 *
 * Nothing is dropped: a dispatch with no op at its launch has op_id NULL and how
 * 'unlinked: <reason>'; a backward kernel whose forward op cannot be found keeps its
 * op_id and says 'unlinked: no forward op ...' (AccumulateGrad has none). */
#ifndef DCUTOP_OP_LINK_H
#define DCUTOP_OP_LINK_H

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

/* Rebuilds dispatch_op from every file with aten ops or in Kineto format. */
DcuStatus OpLink_build(TraceDb* db, DcuError* err);

/* Traces without aten ops (op_markers.c), after the stacks and ranges are attributed: a
 * dispatch launched inside a marker range gets the range's name as its op and the ranges
 * around it as its module (how 'range'); else one a stack dump matched exactly, its
 * innermost user frame as its op and the user frames above as its module (how 'stack').
 * op_id is NULL, op_name holds the op, pass is 'other'. Rows already there stay. */
DcuStatus OpLink_markers(TraceDb* db, DcuError* err);

#endif
