#!/usr/bin/env python3
"""opdiff_oracle.py - per-op device time of one run, computed from the raw events without
dcutop, for tests/cli/test_opdiff.sh. Input: a rocprofv3 CSV folder (marker_api_trace,
hip_runtime_trace, kernel_trace; .csv or .csv.gz) or a Kineto trace (.json / .json.gz),
read as the same three lists (ranges, launches, kernels).

An op's identity: '{forward|backward} {module path or -} {op}{input dims} #{occurrence}'.
- a kernel's launch: the runtime call with its correlation id (time, thread); the innermost
  range open on that thread at that time (start <= t < end);
- backward: a range on that chain named '...Backward<N>' or 'autograd::...' with a sequence
  number; the forward op is the latest-starting op range (name with '::', not autograd::,
  outside the autograd engine's ranges) with that sequence number; the op named is the outermost op range around it (or around the launch
  for a forward kernel), below the innermost module;
- module path: the 'nn.Module: X' ranges around that op, outermost first, joined by '/';
- occurrence: the op's rank, in start order, among ops of its step ('ProfilerStep#N' around
  it on its thread) with the same module, name and dims.
Prints 'key<TAB>total_ns<TAB>calls' per op (kernels without an op: 'unlinked' lines are
summed into one 'UNLINKED' line), then 'TOTAL<TAB>ns<TAB>dispatches'."""
import csv
import gzip
import io
import json
import os
import re
import sys
from collections import defaultdict


def opener(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def rows(folder, stem):
    for ext in (".csv", ".csv.gz"):
        p = os.path.join(folder, stem + ext)
        if os.path.exists(p):
            with opener(p) as f:
                return list(csv.DictReader(f))
    return []


def from_csv(folder):
    ranges = [(int(r["Start_Timestamp"]), int(r["End_Timestamp"]), int(r["Thread_Id"]),
               r["Function"]) for r in rows(folder, "marker_api_trace")]
    launch = {int(r["Correlation_Id"]): (int(r["Start_Timestamp"]), int(r["Thread_Id"]))
              for r in rows(folder, "hip_runtime_trace")}
    kernels = [(int(r["Correlation_Id"]), int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
               for r in rows(folder, "kernel_trace")]
    return ranges, launch, kernels


def ns(us):
    return int(round(us * 1000))


def from_kineto(path):
    with opener(path) as f:
        ev = json.load(f)["traceEvents"]
    ranges, launch, kernels = [], {}, []
    for e in ev:
        c, n, a = e.get("cat"), e.get("name", ""), e.get("args", {})
        if e.get("ph") != "X":
            continue
        if (c == "user_annotation" and n.startswith("ProfilerStep#")) or \
                (c == "python_function" and n.startswith("nn.Module: ")):
            text = n
        elif c == "cpu_op":
            text = n + (", seq = %d" % a["Sequence number"] if "Sequence number" in a else "")
            if a.get("Input Dims"):
                text += ", sizes = " + json.dumps(a["Input Dims"])
        elif c in ("cuda_runtime", "cuda_driver") and "correlation" in a:
            launch[a["correlation"]] = (ns(e["ts"]), e["tid"])
            continue
        elif c == "kernel":
            kernels.append((a["correlation"], ns(e["dur"])))
            continue
        else:
            continue
        s = ns(e["ts"])
        ranges.append((s, s + max(1, ns(e["dur"])), e["tid"], text))
    return ranges, launch, kernels


def parse(text):
    name = text.split(", ")[0]
    m = re.search(r"seq = (\d+)", text)
    z = re.search(r"sizes = (\[.*\])", text)
    dims = z.group(1).replace(" ", "") if z else ""
    if dims:  # up to the bracket that closes the first one
        d = 0
        for i, ch in enumerate(dims):
            d += ch == "["
            d -= ch == "]"
            if d == 0:
                dims = dims[:i + 1]
                break
    if name.startswith("autograd::"):
        kind = "wrap"
    elif re.search(r"Backward\d*$", name):
        kind = "bwd"
    elif name.startswith("ProfilerStep#"):
        kind = "step"
    elif "::" in name:
        kind = "op"
    elif name.startswith("nn.Module: "):
        kind, name = "mod", name[len("nn.Module: "):]
    else:
        kind = "other"
    return {"name": name, "seq": int(m.group(1)) if m else None, "dims": dims, "kind": kind}


def main():
    src = sys.argv[1]
    ranges, launch, kernels = from_kineto(src) if ".json" in src else from_csv(src)
    ranges = [r for r in ranges if r[1] > r[0]]
    ranges.sort(key=lambda r: (r[2], r[0], -r[1]))
    info = [dict(parse(r[3]), start=r[0], end=r[1], tid=r[2], parent=None) for r in ranges]
    stack = []
    for i, r in enumerate(info):  # nesting per thread: a range starting inside another
        while stack and (info[stack[-1]]["tid"] != r["tid"] or info[stack[-1]]["end"] <= r["start"]):
            stack.pop()
        r["parent"] = stack[-1] if stack else None
        stack.append(i)
    by_tid = defaultdict(list)
    for i, r in enumerate(info):
        by_tid[r["tid"]].append(i)
    def in_autograd(i):
        while i is not None:
            if info[i]["kind"] in ("bwd", "wrap"):
                return True
            i = info[i]["parent"]
        return False

    # ops record the sequence number they find on entry: the op that made backward node N is
    # the last one to start with seq N (those before it ran with no node made); the autograd
    # thread counts its own sequence numbers, so its ops are left out
    first_seq = {}
    for i in sorted(range(len(info)), key=lambda i: (info[i]["start"], -info[i]["end"])):
        r = info[i]
        if r["kind"] == "op" and r["seq"] is not None and not in_autograd(i):
            first_seq[r["seq"]] = i

    def innermost(t, tid):
        best = None
        for i in by_tid.get(tid, []):
            r = info[i]
            if r["start"] > t:
                break
            if r["start"] <= t < r["end"]:
                best = i  # later start = deeper (ranges sorted by start, longer first)
        return best

    def chain(i):
        while i is not None:
            yield i
            i = info[i]["parent"]

    def walk(i):
        top, mods, step = None, [], None
        for j in chain(i):
            r = info[j]
            if r["kind"] in ("op", "wrap") and not mods:
                top = j
            elif r["kind"] == "step" and step is None:
                step = int(r["name"][len("ProfilerStep#"):])
            elif r["kind"] == "mod" and top is not None:
                mods.append(r["name"])
        return top, "/".join(reversed(mods)), step

    recs = []
    for corr, dur in kernels:
        l = launch.get(corr)
        g = innermost(l[0], l[1]) if l else None
        back, fwd = False, None
        for j in chain(g):
            r = info[j]
            if r["kind"] in ("bwd", "wrap"):
                back = True
                if r["seq"] is not None:
                    fwd = first_seq.get(r["seq"])
                    break
        top, mod, step = walk(fwd if fwd is not None else g) if g is not None else (None, "", None)
        recs.append((top, back, mod, step, dur))
    tops = {}
    for top, back, mod, step, dur in recs:
        if top is None:
            continue
        t = tops.setdefault(top, {"step": None, "mod": None, "mod_back": True})
        if step is not None and (t["step"] is None or step < t["step"]):
            t["step"] = step
        if t["mod"] is None or (not back and t["mod_back"]):
            t["mod"], t["mod_back"] = mod, back
    seen = defaultdict(int)
    for i in sorted(tops, key=lambda i: (tops[i]["step"] if tops[i]["step"] is not None else 1 << 62,
                                         info[i]["start"])):
        t = tops[i]
        k = (t["step"], t["mod"], info[i]["name"], info[i]["dims"])
        t["occ"] = seen[k]
        seen[k] += 1
    total = defaultdict(int)
    calls = defaultdict(set)
    unlinked = 0
    for top, back, mod, step, dur in recs:
        if top is None:
            unlinked += dur
            continue
        t = tops[top]
        key = "%s %s %s%s #%d" % ("backward" if back else "forward", t["mod"] or "-",
                                  info[top]["name"], info[top]["dims"], t["occ"])
        total[key] += dur
        calls[key].add(top)
    out = io.StringIO()
    for k in sorted(total):
        out.write("%s\t%d\t%d\n" % (k, total[k], len(calls[k])))
    out.write("UNLINKED\t%d\t0\n" % unlinked)
    out.write("TOTAL\t%d\t%d\n" % (sum(d for *_, d in recs), len(recs)))
    sys.stdout.write(out.getvalue())


if __name__ == "__main__":
    main()
