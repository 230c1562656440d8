/* diff_ops.h - what the sources of op identity (diff_ops.c: dispatch_op; marker_ops.c: marker
 * ranges) hand to the builder of a run's ops: each dispatch with its outermost op (a "top"),
 * whether it is a backward kernel, its module path and its step. Internal to src/model. */
#ifndef DCUTOP_DIFF_OPS_H
#define DCUTOP_DIFF_OPS_H

#include <stdint.h>

#include "dcutop/diff.h"
#include "dcutop/i64_map.h"
#include "dcutop/intern.h"

/* One outermost op of the trace (a cpu_op or a marker range). */
typedef struct OpTop_ {
    char* name;          /* owned; the source fills it */
    char* dims;          /* input dims, compact JSON, "" none (owned; the source fills it) */
    int64_t start;       /* ns, orders the ops of a step; the source fills it */
    int64_t step;        /* smallest step of its dispatches, INT64_MAX none */
    const char* module;  /* borrowed from the builder's pool */
    int module_from_back;
    const char* fwd_pass; /* the pass its forward dispatches gave (pool) */
    int occ;
    int key[2];          /* its entry, forward and backward, -1 none yet */
} OpTop;

typedef struct OpRec_ {
    int kidx;            /* index in the side's k[], -1 unknown */
    int64_t dur;
    int top;             /* index in tops[], -1 unlinked */
    int back;
    const char* pass;    /* pool */
} OpRec;

typedef struct OpBuild_ {
    const DiffSide* side;
    I64Map* kidx;        /* kernel id -> index + 1 */
    I64Map* top_of;      /* the source's op id -> index in tops + 1 */
    OpTop* tops;
    int ntops, tcap;
    OpRec* recs;
    int64_t nrecs, rcap;
    int64_t nlinked, linked_ns;
    Intern* strings;
    char** pool;
    int npool, pcap;
} OpBuild;

void OpBuild_init(OpBuild* b, const DiffSide* s, const int64_t* ids);
/* The index in b->tops of the op with the source's id (added, fields empty, when new). */
int OpBuild_top(OpBuild* b, int64_t id);
/* One dispatch: top -1 when it has no op. module, pass: copied. step -1: none. */
void OpBuild_add(OpBuild* b, int64_t kernel_id, int64_t dur, int top, int back,
                 const char* module, const char* pass, int64_t step);
/* Occurrences, then the entries into s->ops (when any dispatch has an op). */
void OpBuild_finish(OpBuild* b, DiffSide* s, const char* source);
void OpBuild_done(OpBuild* b);

/* The marker source (marker_ops.c): dispatches under op-named ranges. */
DcuStatus MarkerOps_read(TraceDb* db, OpBuild* b, DcuError* err);

#endif
