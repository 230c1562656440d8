#!/usr/bin/env python3
"""gen_ranks_job.py OUTDIR RANKS DISPATCHES - a synthetic multi-rank job for the Ranks scale
point: one Kineto JSON per rank (distributedInfo), 100 ProfilerStep# ranges (host, and the
span on the device: gpu_user_annotation), DISPATCHES
kernels per rank (per step: compute kernels of 50-250 us on stream 7, then one
ncclDevKernel_AllReduce on stream 20); rank 0 computes 10% longer (the straggler)."""
import os, sys

out, nranks, ndisp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out, exist_ok=True)
STEPS = 100
per = max(2, ndisp // STEPS)
names = ["gemm_bf16_tn_128x128", "vectorized_elementwise_kernel_add", "softmax_warp_forward",
         "layer_norm_fwd_kernel", "reduce_kernel_sum"]
K = '{"ph":"X","cat":"kernel","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,' \
    '"args":{"device":%d,"stream":%d,"correlation":%d}}'
A = '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":%d,"tid":%d,' \
    '"ts":%.3f,"dur":%.3f}'
# the step's span on the device, as Kineto writes it: how kernels find their step when the
# trace has no runtime launch events to correlate
G = '{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#%d","pid":%d,"tid":%d,' \
    '"ts":%.3f,"dur":%.3f,"args":{"device":%d,"stream":7}}'
for r in range(nranks):
    scale = 1.1 if r == 0 else 1.0
    with open(os.path.join(out, "rank%d.trace.json" % r), "w") as f:
        f.write('{"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":%d,'
                '"world_size":%d},"traceEvents":[\n' % (r, nranks))
        t, corr, first = 1_000_000.0, 1, True
        for s in range(STEPS):
            ev, t0 = [], t
            for k in range(per - 1):
                d = (50 + (k * 37) % 200) * scale
                ev.append(K % (names[k % 5], r, 7, t, d, r, 7, corr))
                t += d + 2.0
                corr += 1
            slow_end = t0 + (t - t0) / scale * 1.1 if r != 0 else t
            ar = max(slow_end - t, 0) + 500.0
            ev.append(K % ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", r, 20, t, ar, r, 20, corr))
            corr += 1
            t += ar + 50.0
            ev.append(A % (s, 1000 + r, 1000 + r, t0 - 10.0, t - t0 + 5.0))
            ev.append(G % (s, r, 7, t0 - 1.0, t - t0, r))
            if not first:
                f.write(",\n")
            f.write(",\n".join(ev))
            first = False
        f.write("\n]}\n")
