#!/usr/bin/env python3
"""gen_ranks.py OUTDIR CASE - writes a generated multi-rank job, one Kineto JSON per rank
(distributedInfo, ProfilerStep# user annotations, kernels incl. ncclDevKernel_AllReduce),
for tests/cli/test_ranks.sh. All times in us with ns precision.

CASE straggler: 8 ranks, 4 steps; each step a 10 ms GEMM then an AllReduce that ends 1 ms
  after the slowest rank's compute; rank 3 computes 16 ms in step 2 (6 ms more).
CASE even: the same without the straggler.
CASE overlap: 2 ranks, 3 steps; the AllReduce (3 ms, stream 20) runs inside a 10 ms GEMM
  (stream 7) on rank 0; on rank 1 it runs after the GEMM (exposed).
CASE many: 20 ranks, 4 steps, rank r computes 10 + 0.1 r ms a step (percentile rows)."""
import json, os, sys

out, case = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
n = 2 if case == "overlap" else 20 if case == "many" else 8
steps = 3 if case == "overlap" else 4
T0 = 1_000_000.0  # us
STEP = 30_000.0


def kernel(name, gpu, stream, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": gpu, "tid": stream, "ts": ts,
            "dur": dur, "args": {"device": gpu, "stream": stream, "correlation": corr}}


def launch(rank, step_start, corr):
    """The host's launch of kernel corr, inside its step's CPU range, as Kineto writes it:
    a step owns the kernels it launched (issue 13, ProfilerStep attribution)."""
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100 + rank,
            "tid": 100 + rank, "ts": step_start + 10.0 + corr % 50, "dur": 5.0,
            "args": {"correlation": corr}}


for r in range(n):
    ev, corr = [], 1
    for s in range(steps):
        t = T0 + s * STEP
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s,
                   "pid": 100 + r, "tid": 100 + r, "ts": t, "dur": STEP - 100.0})
        if case == "overlap":
            ev.append(kernel("gemm_bf16_tn", r, 7, t + 100, 10_000.0, corr))
            start = t + 2_000 if r == 0 else t + 10_200
            ev.append(kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", r, 20, start, 3_000.0,
                             corr + 1))
            corr += 2
            continue
        comp = 16_000.0 if (case == "straggler" and r == 3 and s == 1) else 10_000.0
        slow = 16_000.0 if (case == "straggler" and s == 1) else 10_000.0
        if case == "many":
            comp, slow = 10_000.0 + 100.0 * r, 10_000.0 + 100.0 * (n - 1)
        ev.append(kernel("gemm_bf16_tn", r, 7, t + 100, comp, corr))
        end = t + 100 + slow + 1_000.0  # the all-reduce ends 1 ms after the slowest compute
        ev.append(kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", r, 20, t + 100 + comp,
                         end - (t + 100 + comp), corr + 1))
        corr += 2
    ev += [launch(r, T0 + (e["ts"] - T0) // STEP * STEP, e["args"]["correlation"])
           for e in list(ev) if e["cat"] == "kernel"]
    doc = {"schemaVersion": 1,
           "distributedInfo": {"backend": "nccl", "rank": r, "world_size": n,
                               "pg_config": [{"pg_size": n, "ranks": list(range(n))}]},
           "traceEvents": ev}
    with open(os.path.join(out, "rank%d.trace.json" % r), "w") as f:
        json.dump(doc, f)
