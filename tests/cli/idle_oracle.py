#!/usr/bin/env python3
"""idle_oracle.py - an independent reading of Kineto traces for test_idle.sh: per device the
idle intervals of the run span (the first start to the last end of the kernels, memsets and
copies) outside the union over streams of the kernels and of the memsets and copies the device
ran (gpu_memset / gpu_memcpy, device from args "device", else pid; those of no length left out:
busy as HTA counts it; a device that ran only memsets or copies is listed), each classified by
the next such event's
launch call (cuda_runtime / cuda_driver event with its correlation id):
sync (a synchronising call on the launching thread overlaps the interval and ended by the
launch), host-bound (launch started after the device went idle), launch-overhead (launched
before), unknown (no next event or no launch call). Prints "device<TAB>cause<TAB>gaps<TAB>ns"
and a last line "idle<TAB>device<TAB>ns". Usage: idle_oracle.py TRACE.json[.gz]..."""
import collections
import decimal
import gzip
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from idle_causes import print_causes  # noqa: E402 (beside this file)

SYNC = {"hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "hipCtxSynchronize",
        "hipMemcpyDtoH", "cuMemcpyDtoH", "cuMemcpyDtoH_v2"}


def ns(x):
    return int(decimal.Decimal(str(x)) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f, parse_float=decimal.Decimal)["traceEvents"]


def main():
    for path in sys.argv[1:]:
        ev = [e for e in load(path) if e.get("ph") == "X"]
        kern, launch, syncs = [], {}, collections.defaultdict(list)
        copies, busy = {}, []
        for e in ev:
            a = e.get("args") or {}
            s = ns(e["ts"]); t = s + ns(e.get("dur", 0))
            if e.get("cat") == "kernel":
                kern.append((a.get("device", -1), s, t, a.get("correlation")))
            elif e.get("cat") in ("gpu_memcpy", "gpu_memset"):
                if e.get("cat") == "gpu_memcpy":
                    copies[a.get("correlation")] = e["name"]
                busy.append((a.get("device", e.get("pid")), s, t, a.get("correlation")))
            elif e.get("cat") in ("cuda_runtime", "cuda_driver"):
                c = a.get("correlation")
                if c is not None and c not in launch:
                    launch[c] = (s, t, e.get("pid"), e.get("tid"))
        for e in ev:
            if e.get("cat") in ("cuda_runtime", "cuda_driver"):
                n = e["name"]
                c = (e.get("args") or {}).get("correlation")
                d2h = n in ("cudaMemcpy", "hipMemcpy") and (
                    c not in copies or "DtoH" in copies[c] or "D2H" in copies[c])
                if n in SYNC or d2h:
                    s = ns(e["ts"])
                    syncs[(e.get("pid"), e.get("tid"))].append((s, s + ns(e.get("dur", 0))))
        print_causes(kern, busy,
                     lambda c: (launch[c][0], launch[c][2:]) if c in launch else None,
                     lambda thread: syncs[thread])


main()
