"""advice_oracle.py - the advice list's figures recomputed from a raw Kineto trace, for the
advice tests: per device the wall (first start to last end of its kernels, memsets and
copies), the kernels' time
and their union, the union of kernels, memsets and copies (busy), idle = wall - busy; a part's
share of the wall is its kernel time over wall x kernel / kernel union when streams overlap
(as advice.h says), its ceiling 1 / (1 - share).

usage: advice_oracle.py TRACE.json[.gz] HOTSPOTS.csv -> JSON on stdout"""
import csv
import gzip
import json
import sys


def union(iv):
    tot, end = 0, None
    for s, e in sorted(iv):
        if end is None or s > end:
            tot += e - s
            end = e
        elif e > end:
            tot += e - end
            end = e
    return tot


def main():
    path, hot = sys.argv[1], sys.argv[2]
    d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    cat_of = {r["name"]: r["category"] for r in csv.DictReader(open(hot))}
    ns = lambda x: int(round(float(x) * 1000))
    kern, busy, cats = [], [], {}
    short_ns = short_n = 0
    for e in ev:
        if e.get("ph") != "X" or e.get("cat") not in ("kernel", "gpu_memset", "gpu_memcpy"):
            continue
        s = ns(e["ts"])
        t = s + ns(e["dur"])
        busy.append((s, t))
        if e["cat"] == "kernel":
            kern.append((s, t))
            c = cat_of.get(e["name"], "?")
            cats[c] = cats.get(c, 0) + (t - s)
            if t - s < 10000:
                short_ns += t - s
                short_n += 1
    first, last = min(s for s, t in busy), max(t for s, t in busy)
    wall = last - first
    k = sum(t - s for s, t in kern)
    ku = union(kern)
    b = union(busy)
    kdenom = wall * k / ku if k > ku else wall
    out = {"wall_ns": wall, "kernel_ns": k, "kernel_union_ns": ku, "busy_ns": b,
           "idle_ns": wall - b, "kdenom": kdenom, "short_ns": short_ns, "short_n": short_n,
           "dispatches": len(kern), "categories": {}}
    for c, v in cats.items():
        p = v / kdenom
        out["categories"][c] = {"ns": v, "share": p, "ceiling": 1 / (1 - p),
                                "kernel_share": v / k, "kernel_ceiling": 1 / (1 - v / k)}
    json.dump(out, sys.stdout, indent=1)


main()
