/* collectives.h - the collectives of a multi-rank PyTorch (Kineto) job, each matched across
 * the ranks (README "Collectives"). Pure model: no curses.
 *
 * Input: comm_op (load/kineto_comm.c): per rank, each NCCL/RCCL kernel with the args PyTorch
 * wrote on it or on its record_param_comms (joined by External id). Definitions:
 *   rank           distributedInfo.rank of the run's file, else the run's position among
 *                  the runs (0..); never record_param_comms' 'Rank', which is the rank within
 *                  its process group;
 *   process group  'Process Group Name' (else its description, else its ranks, else "?");
 *   seq            the instance's index within its group: on each rank the group's
 *                  collectives in kernel start order, 0.. (the 'Seq' arg where every one of
 *                  the group's rows carries it); one instance = one seq of one group;
 *   bytes          max(In msg nelems, Out msg nelems) x the dtype's size: the buffer
 *                  nccl-tests calls size (all-gather: the gathered output, reduce-scatter:
 *                  the input);
 *   arrival, end   each rank's kernel start and end, on the trace's own clock (Kineto: the
 *                  host's clock the profiler converts GPU times to); ranks are compared on
 *                  it as they are, with no offset (the Ranks view's rank-wait also compares
 *                  ranks only by durations). Ranks on different hosts are then only as
 *                  aligned as the hosts' clocks;
 *   skew           last arrival - first arrival; last_rank the rank that arrived last
 *                  (ties: the lowest of them; none when the skew is 0);
 *   end spread     last end - first end: every rank leaves a collective when its data has
 *                  come, so the ends lie close together on clocks that agree; a spread far
 *                  above the latency says the ranks' clocks disagree (and so does the skew);
 *   latency        the shortest duration over the ranks: the transfer without the waiting;
 *   algbw          bytes / latency, GB/s (10^9 B/s);
 *   busbw          algbw x the nccl-tests factor for n ranks of the group (Group size, else
 *                  the ranks matched): all-reduce 2(n-1)/n; all-gather, reduce-scatter,
 *                  all-to-all, gather, scatter (n-1)/n; broadcast, reduce, send, recv 1;
 *                  none for a barrier or an unknown type. */
#ifndef DCUTOP_COLLECTIVES_H
#define DCUTOP_COLLECTIVES_H

#include <stdint.h>

#include "dcutop/coll_ref.h"
#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

typedef struct CollRank_ {
    int rank;
    int64_t start_ns, end_ns;
} CollRank;

typedef struct CollInstance_ {
    char* pg;          /* process group (owned) */
    char* pg_desc;     /* its description, NULL when none (owned) */
    int64_t seq;
    char type[24];     /* Collectives_typeOf */
    char* dtype;       /* as PyTorch names it, NULL unknown (owned) */
    int64_t bytes;     /* -1 unknown */
    int group_size;    /* n of the bus factor */
    int mismatch;      /* the ranks disagree on type or bytes (the first rank's are kept) */
    CollRank* r;       /* in arrival order (owned) */
    int nr;
    int64_t skew_ns, latency_ns;
    int64_t end_spread_ns; /* last end - first end: near 0 when the ranks' clocks agree */
    int last_rank;     /* -1: none (skew 0) */
    double algbw, busbw; /* GB/s, NAN unknown */
} CollInstance;

typedef struct Collectives_ {
    CollInstance* v;   /* by process group, then seq (owned) */
    int n;
    char* clock;       /* the runs' clock (run.clock), "mixed: ..." when they differ (owned) */
    int nranks;        /* ranks with collectives */
    double end_spread_median_ns; /* over the collectives of 2 ranks or more; NAN none */
} Collectives;

/* Builds every instance from the database, whatever the scope. *out owns a new Collectives
 * (Collectives_delete). n = 0 when the trace has no collective args. DCU_ERR_SQL. */
DcuStatus Collectives_new(TraceDb* db, Collectives** out, DcuError* err);
void Collectives_delete(Collectives* this);

/* One row per instance: process_group, pg_desc, seq, type, bytes, dtype, ranks, group_size,
 * first_arrival_ns, last_arrival_ns, skew_ns, first_rank, last_rank, latency_ns,
 * max_dur_ns, algbw_gbps, busbw_gbps, mismatch, arrivals ("rank:offset_ns/dur_ns" in arrival
 * order), end_spread_ns. Owned by the caller. */
ResultSet* Collectives_instances(const Collectives* this);

/* Per type and size bucket (powers of two: [2^k, 2^(k+1)) bytes): type, size, count,
 * bytes_median, latency_ns (summed), wait_ns (summed over ranks: duration - latency),
 * busbw_median, busbw_p10, busbw_p90, skew_median_ns, skew_max_ns, ref_busbw, ref_pct (the
 * median against the reference at the bucket's median size; NULL without one). ref may be
 * NULL. Owned by the caller. */
ResultSet* Collectives_buckets(const Collectives* this, const CollRef* ref);

/* Per rank: rank, instances, last (instances it arrived last at, of those with 2 ranks or
 * more), last_pct, skew_ns (summed skew of those), skew_median_ns, first (instances it arrived
 * first at), end_offset_ns (median of its end - the collective's first end). Owned by the
 * caller. */
ResultSet* Collectives_lastArrivals(const Collectives* this);

/* One sentence on the straggler evidence: which rank arrives last most often and its median
 * skew, from last (Collectives_lastArrivals of this). Owned by the caller. */
char* Collectives_summaryText(const Collectives* this, const ResultSet* last);

/* The size bucket of bytes as Collectives_buckets names it ("2 MiB-4 MiB"; "unknown" for
 * bytes < 1), into buf. */
const char* Collectives_sizeLabel(int64_t bytes, char* buf, int cap);

/* The canonical type of a collective or kernel name ("allreduce", "_allgather_base",
 * "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "reduce_scatter_tensor_coalesced"): all_reduce,
 * all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, send, recv, barrier,
 * gather, scatter; else "other". Writes into buf. */
const char* Collectives_typeOf(const char* name, char* buf, int cap);
/* The nccl-tests bus factor of type for n ranks; NAN when none. */
double Collectives_busFactor(const char* type, int n);
/* The size in bytes of a PyTorch dtype name (Float 4, BFloat16 2, ...); 0 unknown. */
int Collectives_dtypeSize(const char* dtype);

#endif
