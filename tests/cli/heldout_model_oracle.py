#!/usr/bin/env python3
"""heldout_model_oracle.py TRACE.json.gz - from the raw Kineto events alone: each kernel's launching op
(its correlation id names the runtime launch call; the innermost cpu_op enclosing that call
on its thread launched it), forward or backward (a backward op lies under an autograd
evaluate_function op whose fwdbwd flow ends there; the flow's start names the forward op), the
module path of the forward op (the nn.Module python_function spans enclosing it on its thread,
outermost first, joined by '/'). Prints:
  total NS            kernel time
  linked NS           kernel time whose launch lies inside a cpu_op
  module PASS PATH NS per (module path, pass) with a non-empty path
Times as dcutop converts them: round(ts*1000), round((ts+dur)*1000)."""
import bisect, collections, gzip, json, sys

ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
ns = lambda e: round(e["ts"] * 1000 + e["dur"] * 1000) - round(e["ts"] * 1000)
ops = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
by_ext = {}
for o in ops:
    x = o.get("args", {}).get("External id")
    if x is not None:
        by_ext.setdefault(x, o)
mods = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X" and e.get("cat") == "python_function" and e["name"].startswith("nn.Module: "):
        mods[(e["pid"], e["tid"])].append(e)
ops_by_tid = collections.defaultdict(list)
for o in ops:
    ops_by_tid[(o["pid"], o["tid"])].append(o)
# per list of intervals (one thread's ops, or its nn.Module spans), by start (outer first on
# ties) with each one's parent: the nearest earlier one that still holds it (a stack pass), so
# the intervals around a time are a walk up from the last one starting at or before it
index = {}


def indexed(v):
    if id(v) not in index:
        v.sort(key=lambda o: (o["ts"], -o["dur"]))
        par, stack = [], []
        for i, o in enumerate(v):
            while stack and v[stack[-1]]["ts"] + v[stack[-1]]["dur"] < o["ts"] + o["dur"]:
                stack.pop()
            par.append(stack[-1] if stack else -1)
            stack.append(i)
        index[id(v)] = ([o["ts"] for o in v], par)
    return index[id(v)]


def enclosing(lst, e):
    """the intervals of lst holding e, innermost first"""
    st, par = indexed(lst)
    i = bisect.bisect_right(st, e["ts"]) - 1
    out = []
    while i >= 0:
        o = lst[i]
        if o["ts"] <= e["ts"] and e["ts"] + e.get("dur", 0) <= o["ts"] + o["dur"]:
            out.append(o)
        i = par[i]
    return out


flows = collections.defaultdict(dict)
for e in ev:
    if e.get("cat") == "fwdbwd" and e.get("ph") in ("s", "f"):
        flows[e["id"]][e["ph"]] = e
fwd_of = {}  # (pid, tid, ts) of a backward op start -> the forward op
for f in flows.values():
    if "s" in f and "f" in f:
        s, t = f["s"], f["f"]
        cand = [o for o in ops_by_tid[(s["pid"], s["tid"])] if o["ts"] == s["ts"]]
        if not cand:
            continue
        fwd = min(cand, key=lambda o: o["dur"])
        # the flow ends on the autograd node's op; everything its evaluate_function runs (the
        # node, and what the engine does for it after) is that node's backward work
        lst = ops_by_tid[(t["pid"], t["tid"])]
        node = [o for o in lst if o["ts"] == t["ts"]]
        ev_fn = [o for o in enclosing(lst, {"ts": t["ts"]})
                 if o["name"].startswith("autograd::engine::evaluate_function")]
        for o in node + ev_fn:
            fwd_of[(o["pid"], o["tid"], o["ts"])] = fwd


def module_path(op):
    enc = sorted(enclosing(mods[(op["pid"], op["tid"])], op), key=lambda m: (m["ts"], -m["dur"]))
    return "/".join(m["name"][len("nn.Module: "):] for m in enc)


launch = {}
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
        c = e.get("args", {}).get("correlation")
        if c is not None:
            launch[c] = e


def launching_op(k):
    r = launch.get(k.get("args", {}).get("correlation"))
    if r is None:
        return None
    enc = enclosing(ops_by_tid[(r["pid"], r["tid"])], r)
    return max(enc, key=lambda o: (o["ts"], -o["dur"])) if enc else None


total = linked = 0
agg = collections.Counter()
for k in ev:
    if k.get("ph") != "X" or k.get("cat") != "kernel":
        continue
    d = ns(k)
    total += d
    op = launching_op(k)
    if op is None:
        continue
    linked += d
    # backward: an enclosing op on its thread starts a fwdbwd flow's end
    anc = enclosing(ops_by_tid[(op["pid"], op["tid"])], op)
    fwd = None
    for a in sorted(anc, key=lambda o: (o["ts"], -o["dur"])):
        fwd = fwd_of.get((a["pid"], a["tid"], a["ts"]))
        if fwd:
            break
    if fwd:
        path, p = module_path(fwd), "backward"
    else:
        path, p = module_path(op), "forward"
    if path:
        agg[(p, path)] += d
print("total", total)
print("linked", linked)
for (p, path), v in sorted(agg.items()):
    print("module", p, path, v)
