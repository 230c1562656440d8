/* parallel.h - a parallel for: [0, n) cut into a few contiguous parts, each run on its own
 * thread and joined before the call returns. The analyses use it for one pass per part
 * over the dispatch arrays followed by a merge in part order, so their figures do not
 * depend on how many parts there were. */
#ifndef DCUTOP_PARALLEL_H
#define DCUTOP_PARALLEL_H

#include <stdint.h>

/* --threads: how many threads a read or an analysis may use (0: the CPUs available). */
void Parallel_setThreads(int n);
/* The last Parallel_setThreads, else the CPUs available (at least 1). */
int Parallel_threads(void);

/* How many parts to cut n items into: at most Parallel_threads(), and none smaller than
 * min_part items (a thread costs tens of microseconds; a small input stays on one). The
 * environment's DCUTOP_PART_MIN, when set, replaces min_part: tests cut small inputs. */
int Parallel_parts(int64_t n, int64_t min_part);

/* Part p of [0, n) cut into parts: [lo, hi), contiguous, in order, sizes within one. */
void Parallel_range(int64_t n, int parts, int p, int64_t* lo, int64_t* hi);

typedef void (*ParallelFn)(void* ctx, int part, int64_t lo, int64_t hi);

/* Calls fn(ctx, p, lo, hi) for each part p of [0, n) (Parallel_range), part 0 on the calling
 * thread and the others on threads of their own, and returns when all are done. parts <= 1
 * calls fn once, inline, with no thread at all; a thread that cannot be started has its
 * part run on the calling thread. Parts must not write what another part reads. */
void Parallel_for(int64_t n, int parts, ParallelFn fn, void* ctx);

#endif
