#!/usr/bin/env python3
"""idle_gap_oracle.py - an independent reading of each device idle gap of a Kineto trace and
what the host did in it, for test_idle_one.sh; written from the manual's rules, none of
dcutop's code.

Gaps: per device, the idle intervals of the run span outside the union of its kernels and of
the memsets and copies it ran (gpu_memset / gpu_memcpy, of some length), each classified by
the next such event's launch call (idle_causes.py's rules). Host activity of a gap: on the
thread of that launch call, each instant goes to the innermost CPU op, user annotation or
CUDA runtime/driver call covering it (the one that started last, the shorter on a tie), else
"(untraced)"; each activity gets its total within the gap. The main activity is the one
with the largest total; for a sync gap, the synchronising call (the one that started last
among those on the thread that overlap the gap and returned by the launch) named
"<call> in <op>" (op: the innermost activity holding the call, other than a namesake and
ATen's private aten::_* ops), with the call's time in the gap. Times from the trace start:
the first kernel's start.

Prints, per gap, largest first (the earlier on a tie):
  gap<TAB>abs_start_ns<TAB>start_from_trace_start_ns<TAB>gap_ns<TAB>cause<TAB>main<TAB>main_ns
and per gap and activity
  host<TAB>abs_start_ns<TAB>activity<TAB>total_ns
Usage: idle_gap_oracle.py TRACE.json[.gz]"""
import bisect
import collections
import decimal
import gzip
import json
import sys

SYNC = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuMemcpyDtoH",
        "cuMemcpyDtoH_v2", "hipDeviceSynchronize", "hipStreamSynchronize",
        "hipEventSynchronize", "hipCtxSynchronize", "hipMemcpyDtoH"}
HOST_CATS = ("cpu_op", "operator", "user_annotation", "cuda_runtime", "cuda_driver")


def ns(x):
    return int(decimal.Decimal(str(x)) * 1000)


def main(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        ev = [e for e in json.load(f, parse_float=decimal.Decimal)["traceEvents"]
              if e.get("ph") == "X"]
    busy, launch, host, copies = [], {}, collections.defaultdict(list), {}
    first_kernel = None
    for e in ev:
        a = e.get("args") or {}
        s = ns(e["ts"])
        t = s + ns(e.get("dur", 0))
        cat = e.get("cat")
        if cat == "kernel":
            first_kernel = s if first_kernel is None else min(first_kernel, s)
        if cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            if cat == "gpu_memcpy":
                copies[a.get("correlation")] = e["name"]
            if t > s or cat == "kernel":
                busy.append((a.get("device", e.get("pid")), s, t, a.get("correlation"),
                             cat != "kernel"))
        if cat in ("cuda_runtime", "cuda_driver"):
            c = a.get("correlation")
            if c is not None and c not in launch:
                launch[c] = (s, (e.get("pid"), e.get("tid")))
        if cat in HOST_CATS:
            host[(e.get("pid"), e.get("tid"))].append((s, t, e["name"]))
    syncs = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver"):
            n, c = e["name"], (e.get("args") or {}).get("correlation")
            blocking = n in ("cudaMemcpy", "hipMemcpy", "hipMemcpyWithStream") and (
                c not in copies or "DtoH" in copies[c] or "D2H" in copies[c])
            if n in SYNC or blocking:
                s = ns(e["ts"])
                syncs[(e.get("pid"), e.get("tid"))].append((s, s + ns(e.get("dur", 0)), n))
    lo = min(b[1] for b in busy)
    hi = max(b[2] for b in busy)
    gaps = []
    for dev in sorted({b[0] for b in busy}):
        ks = sorted([b for b in busy if b[0] == dev], key=lambda b: (b[1], b[2], b[4]))
        reach = lo
        for i in range(len(ks) + 1):
            st = ks[i][1] if i < len(ks) else hi
            if st > reach:
                gaps.append(classify(reach, st, launch.get(ks[i][3]) if i < len(ks) else None,
                                     syncs, host))
            if i < len(ks):
                reach = max(reach, ks[i][2])
    gaps.sort(key=lambda g: (-(g[1] - g[0]), g[0]))
    for g0, g1, cause, main, main_ns, parts in gaps:
        print(f"gap\t{g0}\t{g0 - first_kernel}\t{g1 - g0}\t{cause}\t{main}\t{main_ns}")
        for name, t in parts.items():
            print(f"host\t{g0}\t{name}\t{t}")


def innermost(spans, a, b):
    best = None
    for s, t, n in spans:
        if s <= a and t >= b and (best is None or s > best[0] or (s == best[0] and t < best[1])):
            best = (s, t, n)
    return best


def classify(g0, g1, call, syncs, host):
    cause, thread, sync = "unknown", None, None
    if call:
        cs, thread = call
        cand = [y for y in syncs[thread] if y[0] < g1 and y[1] > g0 and y[1] <= cs]
        if cand:
            cause = "sync"
            sync = max(cand, key=lambda y: (y[0], -y[1]))
        else:
            cause = "host-bound" if cs > g0 else "launch-overhead"
    spans = [h for h in host.get(thread, []) if h[1] > g0 and h[0] < g1] if thread else []
    label = None
    if sync:
        holders = [h for h in host.get(thread, []) if h[0] <= sync[0] and h[1] >= sync[1]
                   and h[2] != sync[2] and not h[2].startswith("aten::_")]
        op = max(holders, key=lambda h: (h[0], -h[1])) if holders else None
        label = f"{sync[2]} in {op[2]}" if op else sync[2]
    pts = sorted({g0, g1} | {p for h in spans for p in h[:2] if g0 < p < g1})
    parts = collections.OrderedDict()
    if sync:
        parts[label] = 0
    for a, b in zip(pts, pts[1:]):
        x = innermost(spans, a, b)
        name = "(untraced)" if x is None else (
            label if sync and x[:3] == sync[:2] + (sync[2],) else x[2])
        parts[name] = parts.get(name, 0) + (b - a)
    if sync:
        main, main_ns = label, parts[label]
    else:
        order = list(parts.items())
        main, main_ns = max(order, key=lambda kv: (kv[1], -order.index(kv)))
    return (g0, g1, cause, main, main_ns, parts)


main(sys.argv[1])
