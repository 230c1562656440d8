/* ranks_explain.h - inside the ranks model (ranks.c): the compute time of each rank per
 * (kernel, step), and from it the kernels that make up the straggler's excess (ranks.h). */
#ifndef DCUTOP_RANKS_EXPLAIN_H
#define DCUTOP_RANKS_EXPLAIN_H

#include "dcutop/i64_map.h"
#include "dcutop/ranks.h"

typedef struct RankKernelStep_ {
    int64_t kernel_id;
    int step;
    int64_t ns, calls;
} RankKernelStep;

/* Adds one compute dispatch of r (kernel, 0-based step, duration) to r->ks; map (kernel,
 * step) -> 1 + index, one per rank while its dispatches are read. */
void RanksExplain_add(RankRow* r, I64Map* map, int64_t kernel, int step, int64_t ns);

/* Fills j->verdict.kernels for straggler `best` over the steps with straggling[s] set, then
 * drops every rank's ks. Names from db (kernel.name, short_name). */
void RanksExplain_kernels(TraceDb* db, Ranks* j, int best, const unsigned char* straggling);

#endif
