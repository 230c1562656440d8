#!/usr/bin/env python3
"""ranks_oracle.py DIR - the Ranks figures of a Kineto multi-rank job (rank*.trace.json.gz),
computed from the raw JSON alone, for tests/cli/test_ranks.sh and test_variab.sh. Prints:
  step RANK compute_ns...        compute (non-NCCL kernel) time per step
  excess NAME EXCESS_NS CALLS     the straggler's top kernel over the straggling steps, per
                                  step, against the other ranks' median (2 ranks: the other's)
  wait RANK WAIT_NS COMM_NS       rank-wait and whole NCCL time per straggling step
  waittotal RANK NS COLLECTIVES   rank-wait over the whole trace
  idle RANK NS                    span x device minus the union of kernels, memsets, copies
  var RANK NS                     time above golden, NCCL kernels left out
Times in ns as dcutop converts them: round(ts*1000), end = round((ts+dur)*1000). Steps: the
kernels launched (by correlation) inside ProfilerStep#k; step k's window runs from its first
kernel's start to just before step k+1's, the last to its last kernel's end."""
import glob
import gzip
import json
import os
import statistics
import sys


def t0(e):
    return round(e["ts"] * 1000)


def t1(e):
    return round(e["ts"] * 1000 + e["dur"] * 1000)


def nccl(e):
    return "nccl" in e["name"].lower()


def load(path):
    d = json.load(gzip.open(path))
    ev = d["traceEvents"]
    k = [e for e in ev if e.get("cat") == "kernel"]
    calls = {e["args"]["correlation"]: e for e in ev
             if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    steps = sorted((e for e in ev if e.get("cat") == "user_annotation"
                    and e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
    launched = [[x for x in k if x["args"]["correlation"] in calls
                 and t0(s) <= t0(calls[x["args"]["correlation"]]) <= t1(s)] for s in steps]
    firsts = [min(t0(x) for x in ks) for ks in launched]
    wins = [(f, firsts[i + 1] - 1 if i + 1 < len(firsts) else max(t1(x) for x in launched[i]))
            for i, f in enumerate(firsts)]
    busy = k + [e for e in ev if e.get("cat") in ("gpu_memset", "gpu_memcpy")]
    return {"rank": d["distributedInfo"]["rank"], "k": k, "wins": wins, "busy": busy}


def step_of(r, x):
    for i, (lo, hi) in enumerate(r["wins"]):
        if lo <= t0(x) <= hi:
            return i
    return None


def idle(r):
    lo = min(t0(x) for x in r["k"])
    hi = max(t1(x) for x in r["k"])
    iv = sorted((max(lo, t0(x)), min(hi, t1(x))) for x in r["busy"] if t1(x) > lo and t0(x) < hi)
    busy, end = 0, lo
    for a, b in iv:
        if b > end:
            busy += b - max(a, end)
            end = b
    return hi - lo - busy


def rank_waits(ranks):
    """{(rank, kernel index in r["k"]): wait}: the n-th dispatch of an NCCL kernel on each rank
    is one collective; its shortest duration is the transfer, the rest each rank's wait."""
    waits = {}
    names = sorted({x["name"] for r in ranks for x in r["k"] if nccl(x)})
    for n in names:
        per = [sorted((t0(x), i) for i, x in enumerate(r["k"]) if x["name"] == n) for r in ranks]
        for c in range(max(len(p) for p in per)):
            have = [(ri, p[c][1]) for ri, p in enumerate(per) if c < len(p)]
            if len(have) < 2:
                continue
            durs = {h: t1(ranks[h[0]]["k"][h[1]]) - t0(ranks[h[0]]["k"][h[1]]) for h in have}
            mn = min(durs.values())
            for h in have:
                waits[h] = durs[h] - mn
    return waits


def variability(r):
    groups = {}
    for x in r["k"]:
        if nccl(x):
            continue
        key = (x["name"], tuple(x["args"].get("grid", ())), tuple(x["args"].get("block", ())))
        groups.setdefault(key, []).append(t1(x) - t0(x))
    total = 0
    for v in groups.values():
        m = sum(v) / len(v)
        var = sum((d - m) ** 2 for d in v) / len(v)
        keep = [d for d in v if not (d - m) ** 2 > 9 * var]
        g = min(keep)
        total += sum(max(0, d - g) for d in v if not ((d - m) ** 2 > 9 * var and d < m))
    return total


def main():
    ranks = sorted((load(p) for p in glob.glob(os.path.join(sys.argv[1], "rank*.trace.json.gz"))),
                   key=lambda r: r["rank"])
    n = min(len(r["wins"]) for r in ranks)
    comp = [[0] * n for _ in ranks]
    for ri, r in enumerate(ranks):
        for x in r["k"]:
            s = step_of(r, x)
            if s is not None and s < n and not nccl(x):
                comp[ri][s] += t1(x) - t0(x)
        print("step", r["rank"], *comp[ri])
    # the straggler: each step's longest compute against the median of the others
    strag = {}
    for s in range(n):
        c = max(range(len(ranks)), key=lambda i: (comp[i][s], -i))
        med = statistics.median(comp[i][s] for i in range(len(ranks)) if i != c)
        if comp[c][s] - med > med * 0.05 and comp[c][s] - med > 100000:
            strag.setdefault(c, []).append(s)
    best = max(strag, key=lambda c: len(strag[c]))
    steps = strag[best]
    per = [{} for _ in ranks]  # kernel name -> [ns, calls] in the straggling steps
    for ri, r in enumerate(ranks):
        for x in r["k"]:
            if not nccl(x) and step_of(r, x) in steps:
                a = per[ri].setdefault(x["name"], [0, 0])
                a[0] += t1(x) - t0(x)
                a[1] += 1
    ex = []
    for name, (ns, calls) in per[best].items():
        o = [per[i].get(name, [0, 0]) for i in range(len(ranks)) if i != best]
        ex.append(((ns - statistics.median(a[0] for a in o)) / len(steps),
                   (calls - statistics.median(a[1] for a in o)) / len(steps), name))
    e = max(ex)
    print("excess", json.dumps(e[2]), "%.0f" % e[0], "%.1f" % e[1])
    waits = rank_waits(ranks)
    for ri, r in enumerate(ranks):
        w = sum(v for (q, i), v in waits.items() if q == ri and step_of(r, r["k"][i]) in steps)
        c = sum(t1(x) - t0(x) for x in r["k"] if nccl(x) and step_of(r, x) in steps)
        print("wait", r["rank"], "%.0f" % (w / len(steps)), "%.0f" % (c / len(steps)))
        print("waittotal", r["rank"], sum(v for (q, i), v in waits.items() if q == ri),
              sum(1 for (q, i), v in waits.items() if q == ri and v > 0))
    for r in ranks:
        print("idle", r["rank"], idle(r))
    for r in ranks:
        print("var", r["rank"], variability(r))


main()
