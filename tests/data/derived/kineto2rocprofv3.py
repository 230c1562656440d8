#!/usr/bin/env python3
"""kineto2rocprofv3.py - DERIVES a rocprofv3 CSV trace (kernel_trace.csv, hip_runtime_trace.csv,
marker_api_trace.csv) from a real PyTorch profiler (Kineto) trace, as the same program would
look on ROCm under torch.autograd.profiler.emit_nvtx(record_shapes=True) with module ranges.
Nothing here was recorded on an AMD GPU: the kernel times, threads, launch times and op
nesting are the Kineto trace's own; only the GEMM and attention kernels are renamed to
AMD-like names (Cijk_Ailk_Bljk_... as hipBLASLt/Tensile names them, attn_fwd/attn_bwd as
aotriton does), so that no GEMM or attention kernel name is shared with a CUDA trace.

usage: kineto2rocprofv3.py TRACE.json[.gz] OUTDIR

Ranges written (one marker_api_trace row each, on the thread of the event):
  ProfilerStep#N                      from user_annotation ProfilerStep#N
  nn.Module: NAME                     from python_function 'nn.Module: NAME'
  OP[, seq = S][, sizes = [[..], ..]] from every cpu_op (emit_nvtx's format)
Kernels keep their correlation id; the hipLaunchKernel row of each is the cuda_runtime
launch (cuda_runtime or cuda_driver) with that correlation id (time and thread)."""
import gzip
import hashlib
import json
import os
import sys


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)["traceEvents"]


def ns(us):
    return int(round(us * 1000))


def amd_name(name):
    h = hashlib.sha1(name.encode()).hexdigest()[:8]
    low = name.lower()
    if any(k in low for k in ("nvjet", "gemm", "sgemm", "cublas", "cutlass_80_simt", "gemv")) \
            and "fmha" not in low:
        dt = "S" if ("f32" in low or "sgemm" in low or "simt" in low) else "BBS"
        return "Cijk_Ailk_Bljk_%s_BH_MT128x128x32_MI16x16x1_SN_%s" % (dt, h)
    if "fmha" in low or "sdpa" in low or "flash" in low or "attention" in low:
        kind = "bwd" if ("bprop" in low or "cutlassb" in low or "backward" in low
                         or "bwd" in low) else "fwd"
        return "attn_%s_%s" % (kind, h)
    return name


def sizes(dims):
    return "[" + ", ".join("[" + ", ".join(str(x) for x in d) + "]" for d in dims) + "]"


def q(s):
    return '"' + s.replace('"', '""') + '"'


def main():
    src, out = sys.argv[1], sys.argv[2]
    ev = load(src)
    os.makedirs(out, exist_ok=True)
    pid = next(e["pid"] for e in ev if e.get("cat") == "cpu_op")
    ranges = []
    for e in ev:
        c, n = e.get("cat"), e.get("name", "")
        if e.get("ph") != "X":
            continue
        if c == "user_annotation" and n.startswith("ProfilerStep#"):
            text = n
        elif c == "python_function" and n.startswith("nn.Module: "):
            text = n
        elif c == "cpu_op":
            a = e.get("args", {})
            text = n
            if "Sequence number" in a:
                text += ", seq = %d" % a["Sequence number"]
            if a.get("Input Dims"):
                text += ", sizes = " + sizes(a["Input Dims"])
        else:
            continue
        start = ns(e["ts"])
        ranges.append((start, start + max(1, ns(e["dur"])), e["tid"], text))
    launch = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = e
    kernels = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    with open(os.path.join(out, "marker_api_trace.csv"), "w") as f:
        f.write('"Domain","Function","Process_Id","Thread_Id","Correlation_Id",'
                '"Start_Timestamp","End_Timestamp"\n')
        for i, (s, e, tid, text) in enumerate(sorted(ranges)):
            f.write('"MARKER_CORE_API",%s,%d,%d,%d,%d,%d\n' % (q(text), pid, tid, i + 1, s, e))
    with open(os.path.join(out, "hip_runtime_trace.csv"), "w") as f:
        f.write('"Domain","Function","Process_Id","Thread_Id","Correlation_Id",'
                '"Start_Timestamp","End_Timestamp"\n')
        for k in kernels:
            corr = k["args"]["correlation"]
            l = launch.get(corr)
            if l is None:
                continue
            s = ns(l["ts"])
            f.write('"HIP_RUNTIME_API","hipLaunchKernel",%d,%d,%d,%d,%d\n'
                    % (pid, l["tid"], corr, s, s + max(1, ns(l["dur"]))))
    with open(os.path.join(out, "kernel_trace.csv"), "w") as f:
        f.write('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id",'
                '"Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp",'
                '"Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
                '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y",'
                '"Grid_Size_Z"\n')
        ids = {}
        for i, k in enumerate(kernels):
            a = k["args"]
            corr = a["correlation"]
            l = launch.get(corr)
            name = amd_name(k["name"])
            kid = ids.setdefault(name, len(ids) + 1)
            s = ns(k["ts"])
            blk = a.get("block", [1, 1, 1])
            grd = a.get("grid", [1, 1, 1])
            f.write('"KERNEL_DISPATCH",1,%d,%d,%d,%d,%s,%d,%d,%d,0,%d,%d,%d,%d,%d,%d,%d\n'
                    % (a.get("stream", 1), l["tid"] if l else pid, i + 1, kid, q(name), corr,
                       s, s + ns(k["dur"]), a.get("shared memory", 0), blk[0], blk[1], blk[2],
                       grd[0] * blk[0], grd[1] * blk[1], grd[2] * blk[2]))


if __name__ == "__main__":
    main()
