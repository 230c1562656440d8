#!/usr/bin/env python3
"""ops_oracle.py - per (step, module, op, pass) kernel time of a PyTorch profiler trace,
computed from the raw events alone, for tests/cli/test_ops.sh to check dcutop's Ops view.

  ops_oracle.py TRACE.json[.gz] [--no-flows] [--no-ops]

Prints CSV rows step,module,op,pass,kernels,device_ns sorted, then a line
'#coverage,<linked ns>,<total ns>' (kernel time with an op).

Rules, as the trace states them (no dcutop code is used):
- a kernel's launching op: the cpu_op with the kernel's 'External id' (args) that starts
  last (the innermost), through the runtime call with the same correlation when the
  kernel has none ('ac2g' flows join the same correlation ids);
- backward: the op or an op enclosing it (same thread, by time) is an autograd node
  (name 'autograd::engine::evaluate_function: ...', or 'Fwd thread id' > 0, or the 'f'
  end of a 'fwdbwd' flow); its forward op is the op at the matching 's' end, else the
  forward op with the node's 'Sequence number' that starts last;
- module: the 'nn.Module: X' python_function events enclosing the forward op's start on
  its thread, outermost first, joined by '/';
- step: N of the 'ProfilerStep#N' user_annotation enclosing the launching op's start;
- op: the forward op's name for backward kernels, else the launching op's name; pass
  'forward' when the op runs in a module or under an op with a Sequence number, else
  'other'. With --no-flows the fwdbwd events are ignored; --no-ops drops the cpu_ops.
"""
import bisect
import collections
import gzip
import json
import sys


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)["traceEvents"]


def us_to_ns(v):
    # exact decimal -> integer ns, as the trace's text says
    s = repr(v) if isinstance(v, float) else str(v)
    if "e" in s or "E" in s:
        return round(float(s) * 1000)
    whole, _, frac = s.partition(".")
    frac = (frac + "000")[:3]
    neg = whole.startswith("-")
    n = int(whole or "0") * 1000 + (int(frac) if frac else 0) * (-1 if neg else 1)
    return n


def main():
    path = sys.argv[1]
    no_flows = "--no-flows" in sys.argv
    no_ops = "--no-ops" in sys.argv
    ev = load(path)
    ops = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    if no_ops:
        ops = []
    for i, o in enumerate(ops):
        o["_i"] = i
        o["_s"] = us_to_ns(o["ts"])
        o["_e"] = o["_s"] + us_to_ns(o.get("dur", 0))
    by_thread = collections.defaultdict(list)
    for o in ops:
        by_thread[(o["pid"], o["tid"])].append(o)

    def enclosing(o):
        """ops on o's thread that contain it, innermost first (o itself first)"""
        out = [o]
        for p in by_thread[(o["pid"], o["tid"])]:
            if p is not o and p["_s"] <= o["_s"] and p["_e"] >= o["_e"] and \
                    (p["_s"], -p["_e"], p["_i"]) < (o["_s"], -o["_e"], o["_i"]):
                out.append(p)
        out[1:] = sorted(out[1:], key=lambda p: (-p["_s"], p["_e"]))
        return out

    ext = {}
    for o in ops:
        x = o["args"].get("External id")
        if x is None:
            continue
        c = ext.get(x)
        if c is None or o["_s"] > c["_s"]:
            ext[x] = o
    corr_ext = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
            a = e.get("args", {})
            if "correlation" in a and "External id" in a:
                corr_ext[a["correlation"]] = a["External id"]
    # fwdbwd flows: each end binds to the op starting at its ts on its thread
    starts = {}
    for o in ops:
        k = (o["pid"], o["tid"], o["_s"])
        c = starts.get(k)
        if c is None or ("Sequence number" in o["args"] and "Sequence number" not in c["args"]):
            starts[k] = c if (c is not None and "Sequence number" in c["args"]) else o
    flow_s, flow_f = {}, {}
    if not no_flows:
        for e in ev:
            if e.get("cat") == "fwdbwd" and e.get("ph") in ("s", "f"):
                o = starts.get((e["pid"], e["tid"], us_to_ns(e["ts"])))
                if o is not None:
                    (flow_s if e["ph"] == "s" else flow_f)[e["id"]] = o
    fwd_of = {}
    for i, b in flow_f.items():
        if i in flow_s:
            fwd_of[b["_i"]] = flow_s[i]
    seq_fwd = {}
    for o in ops:
        a = o["args"]
        if "Sequence number" in a and a.get("Fwd thread id", 0) == 0 and \
                not o["name"].startswith("autograd::engine::evaluate_function:"):
            k = (o["pid"], o["tid"], a["Sequence number"])
            if k not in seq_fwd or o["_s"] >= seq_fwd[k]["_s"]:
                seq_fwd[k] = o
    fwd_threads = collections.defaultdict(set)
    for (pid, tid, _s) in seq_fwd:
        fwd_threads[pid].add(tid)

    mods = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "python_function" and \
                e["name"].startswith("nn.Module: "):
            s = us_to_ns(e["ts"])
            mods[(e["pid"], e["tid"])].append((s, s + us_to_ns(e.get("dur", 0)), e["name"][11:]))
    for v in mods.values():
        v.sort(key=lambda m: (m[0], -m[1]))

    def module(o):
        chain = [m for m in mods[(o["pid"], o["tid"])] if m[0] <= o["_s"] <= m[1]]
        return "/".join(m[2] for m in chain)

    steps = []
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "user_annotation" and \
                e["name"].startswith("ProfilerStep#"):
            s = us_to_ns(e["ts"])
            steps.append((s, s + us_to_ns(e["dur"]), int(e["name"][13:])))
    steps.sort()

    def step_at(t):
        for s, e, n in steps:
            if s <= t <= e:
                return str(n)
        return ""

    calls = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
            c = e.get("args", {}).get("correlation")
            if c is not None and c not in calls:
                calls[c] = us_to_ns(e["ts"])

    rows = collections.Counter()
    nk = collections.Counter()
    linked = total = 0
    for k in ev:
        if k.get("ph") != "X" or k.get("cat") != "kernel":
            continue
        dur = us_to_ns(k["dur"])
        total += dur
        a = k.get("args", {})
        x = a.get("External id", corr_ext.get(a.get("correlation")))
        o = ext.get(x)
        if o is None:
            t = calls.get(a.get("correlation"))
            key = (step_at(t) if t is not None else "", "", "", "other")
            rows[key] += dur
            nk[key] += 1
            continue
        linked += dur
        chain = enclosing(o)
        node = any(p["name"].startswith("autograd::engine::evaluate_function:") or
                   p["args"].get("Fwd thread id", 0) > 0 or p["_i"] in fwd_of for p in chain)
        if node:
            fwd = None
            for p in chain:
                if p["_i"] in fwd_of:
                    fwd = fwd_of[p["_i"]]
                    break
            if fwd is None:
                for p in chain:
                    pa = p["args"]
                    if "Sequence number" in pa and pa.get("Fwd thread id", 0) > 0:
                        cands = [seq_fwd[(p["pid"], t, pa["Sequence number"])]
                                 for t in fwd_threads[p["pid"]]
                                 if (p["pid"], t, pa["Sequence number"]) in seq_fwd]
                        fwd = cands[0] if len(cands) == 1 else None
                        break
            name = fwd["name"] if fwd is not None else o["name"]
            key = (step_at(o["_s"]), module(fwd) if fwd is not None else "", name, "backward")
        else:
            m = module(o)
            seq = any("Sequence number" in p["args"] for p in chain)
            key = (step_at(o["_s"]), m, o["name"], "forward" if (m or seq) else "other")
        rows[key] += dur
        nk[key] += 1
    for key in sorted(rows):
        print("%s,%s,%s,%s,%d,%d" % (key + (nk[key], rows[key])))
    print("#coverage,%d,%d" % (linked, total))


if __name__ == "__main__":
    main()
