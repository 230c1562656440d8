#!/usr/bin/env python3
"""repro_oracle.py TRACE.json[.gz] SCRIPT.py TOP [NAME_REGEX | kernel=TOP]

Checks a script written by `dcutop --export repro` against the raw Kineto trace, computed
apart from dcutop: each kernel event goes to the innermost cpu_op (latest start) carrying its
own 'External id'; ops are grouped by name and recorded inputs (Input Dims, Input type,
Input Strides, Concrete Inputs); device time is the sum of the kernels' dur. The script's
ops (OPS and NOT_REBUILT, by rank) must be the TOP groups of most device time (all of those
whose name or a kernel's name matches NAME_REGEX (smart case) when given, or that launched the kernel of most device time
with kernel=TOP; TOP 0 = all), each with its recorded inputs,
calls, device time per call and pass (backward: under an autograd engine node of its
thread; forward: inside an nn.Module frame, with that module path, or under an op with a
Sequence number; else other); every tensor argument must be rebuilt with the recorded
sizes, strides and dtype; ops whose tensor lists have no recorded shapes must be listed as
not rebuilt with a reason, and every other op rebuilt. Prints TAP lines."""
import ast
import collections
import gzip
import json
import re
import sys

DTYPES = {"float": "float32", "c10::BFloat16": "bfloat16", "c10::Half": "float16",
          "long int": "int64", "int": "int32", "bool": "bool", "double": "float64"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def enclosing(op, frames):
    """The frames of op's thread whose span holds op's, outermost first."""
    end = op["ts"] + op.get("dur", 0)
    return [f for f in frames.get((op["pid"], op["tid"]), ())
            if f["ts"] <= op["ts"] and f["ts"] + f.get("dur", 0) >= end]


def pass_of(op, nodes, modules, seq_ops):
    """backward under an autograd engine node of its thread; forward inside an nn.Module or
    under an op autograd recorded (a Sequence number); else other. With the module path of a
    forward op."""
    if op["name"].startswith("autograd::engine::evaluate_function") or enclosing(op, nodes):
        return "backward", None
    mods = enclosing(op, modules)
    if mods or "Sequence number" in op["args"] or enclosing(op, seq_ops):
        mods.sort(key=lambda f: (f["ts"], -f.get("dur", 0)))
        return "forward", "/".join(f["name"][len("nn.Module: "):] for f in mods)
    return "other", None


def groups(events):
    nodes, modules = collections.defaultdict(list), collections.defaultdict(list)
    seq_ops = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "cpu_op" and "Sequence number" in e.get("args", {}):
            seq_ops[(e["pid"], e["tid"])].append(e)
        if e.get("cat") == "cpu_op" and e["name"].startswith("autograd::engine::evaluate_function"):
            nodes[(e["pid"], e["tid"])].append(e)
        if e.get("cat") == "python_function" and e["name"].startswith("nn.Module: "):
            modules[(e["pid"], e["tid"])].append(e)
    by_ext = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "cpu_op" and "External id" in e.get("args", {}):
            by_ext[e["args"]["External id"]].append(e)
    agg = {}
    for k in events:
        if k.get("cat") != "kernel":
            continue
        ops = by_ext.get(k.get("args", {}).get("External id"))
        if not ops:
            continue
        o = max(ops, key=lambda e: e["ts"])
        a = o["args"]
        key = (o["name"], json.dumps(a.get("Input Dims")), json.dumps(a.get("Input type")),
               json.dumps(a.get("Input Strides")), json.dumps(a.get("Concrete Inputs")))
        g = agg.setdefault(key, {"ns": 0.0, "ops": set(), "kernels": 0, "names": set(),
                                 "passes": set(), "modules": set()})
        g["names"].add(k["name"])
        p, m = pass_of(o, nodes, modules, seq_ops)
        g["passes"].add(p)
        if m:
            g["modules"].add(m)
        g["ns"] += k["dur"] * 1000.0
        g["ops"].add(id(o))
        g["kernels"] += 1
    return agg


def lit(node):
    """A literal, or dict(k=literal, ...)."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "dict":
        return {k.arg: lit(k.value) for k in node.keywords}
    return ast.literal_eval(node)


def script_ops(text):
    """The OPS and NOT_REBUILT entries: literal fields, and the arg calls as (fn, args, kw)."""
    tree = ast.parse(text)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("OPS", "NOT_REBUILT"):
            ents = []
            for call in node.value.elts:
                d = {}
                for kw in call.keywords:
                    if kw.arg == "args":
                        d["args"] = kw.value
                    else:
                        d[kw.arg] = lit(kw.value)
                ents.append(d)
            out[node.targets[0].id] = ents
    return out


def spec(node):
    """T(size, stride, dtype, hi=...) / L([...]) / S(v) / N() as plain tuples."""
    fn = node.func.id
    args = node.args
    if fn == "T":
        kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        return ("T", ast.literal_eval(args[0]), ast.literal_eval(args[1]),
                ast.literal_eval(args[2]), kw.get("hi"))
    if fn == "L":
        return ("L", [spec(e) for e in args[0].elts])
    if fn == "S":
        return ("S", ast.literal_eval(args[0]))
    return ("N",)


def main():
    trace, script, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
    name_re = sys.argv[4] if len(sys.argv) > 4 else None
    events = load(trace)
    agg = groups(events)
    ranked = sorted(agg.items(), key=lambda kv: -kv[1]["ns"])
    if name_re == "kernel=TOP":
        per_kernel = collections.Counter()
        for k in events:
            if k.get("cat") == "kernel":
                per_kernel[k["name"]] += k["dur"]
        top_kernel = per_kernel.most_common(1)[0][0]
        ranked = [kv for kv in ranked if top_kernel in kv[1]["names"]]
    elif name_re:  # the op's name or one of its kernels' names; smart case as dcutop
        rx = re.compile(name_re, 0 if re.search("[A-Z]", name_re) else re.I)
        ranked = [kv for kv in ranked
                  if rx.search(kv[0][0]) or any(rx.search(n) for n in kv[1]["names"])]
    want = ranked[:top] if top > 0 else ranked
    text = open(script).read()
    got = script_ops(text)
    ents = sorted(got.get("OPS", []) + got.get("NOT_REBUILT", []), key=lambda d: d["rank"])
    fails = []
    if len(ents) != len(want):
        fails.append("%d ops in the script, %d expected" % (len(ents), len(want)))
    # a tie at the cut may order equal groups differently: compare as sets of keys, and the
    # device times in order
    keyset = lambda name, d, t, s, c: (name, json.dumps(d), json.dumps(t), json.dumps(s),
                                       json.dumps(c))
    want_keys = {k for k, _ in want}
    for i, e in enumerate(ents):
        k = keyset(e["name"], e["dims"], e["types"], e["strides"], e["concrete"])
        if k not in agg:
            fails.append("rank %d: %s %s is no op group of the trace" % (e["rank"], e["name"],
                                                                       e["dims"]))
            continue
        g = agg[k]
        if k not in want_keys and abs(g["ns"] - want[-1][1]["ns"]) > 1.0 * g["kernels"]:
            fails.append("rank %d: %s %s is not among the expected ops" % (e["rank"], e["name"],
                                                                          e["dims"]))
        if i < len(want) and abs(g["ns"] - want[i][1]["ns"]) > 1.0 * g["kernels"]:
            fails.append("rank %d: device time %.0f, expected %.0f" % (e["rank"], g["ns"],
                                                                    want[i][1]["ns"]))
        calls = len(g["ops"])
        per_call = g["ns"] / calls / 1000.0
        if e["calls"] != calls or e["kernels"] != g["kernels"]:
            fails.append("%s: calls %d kernels %d, expected %d and %d" % (
                e["name"], e["calls"], e["kernels"], calls, g["kernels"]))
        if abs(e["trace_us"] - per_call) > 0.0015 + 0.001 * g["kernels"] / calls:
            fails.append("%s %s: trace_us %.3f, expected %.3f" % (e["name"], e["dims"],
                                                                 e["trace_us"], per_call))
        if set(e["pass_"].split("+")) != g["passes"]:
            fails.append("%s %s: pass %s, expected %s" % (e["name"], e["dims"], e["pass_"],
                                                          "+".join(sorted(g["passes"]))))
        if e["pass_"] == "forward" and e["module"] != min(g["modules"], default=None):
            fails.append("%s %s: module %s, expected %s" % (
                e["name"], e["dims"], e["module"], min(g["modules"], default=None)))
        if e["types"] is None or e["dims"] is None:  # no record_shapes
            if "no shapes recorded" not in e.get("reason", ""):
                fails.append("%s without shapes: %s" % (e["name"], e.get("reason", "rebuilt")))
            continue
        lists_unrecorded = any(t == "TensorList" and d == []
                               for t, d in zip(e["types"], e["dims"]))
        if lists_unrecorded != ("reason" in e):
            fails.append("%s: %s" % (e["name"], "rebuilt without list shapes" if lists_unrecorded
                                     else "not rebuilt: " + e.get("reason", "")))
        if "reason" in e:
            if not e["reason"] or e["name"] not in text.split("\nimport argparse")[0]:
                fails.append("%s: not rebuilt but no reason in the header" % e["name"])
            continue
        args = [spec(a) for a in e["args"].elts]
        for j, (a, t, d, s) in enumerate(zip(args, e["types"], e["dims"], e["strides"])):
            if t in DTYPES and a[:4] != ("T", d, s, DTYPES[t]):
                fails.append("%s arg %d: %s, recorded %s %s %s" % (e["name"], j, a, d, s, t))
            if t == "TensorList" and [x[1] for x in a[1]] != d:
                fails.append("%s arg %d: list sizes %s, recorded %s" % (e["name"], j, a, d))
        if e["name"] == "aten::embedding_dense_backward":
            if args[1][4] != int(e["concrete"][2]):
                fails.append("embedding_dense_backward: indices below %s, want %s" % (
                    args[1][4], e["concrete"][2]))
    for f in fails:
        print("#   " + f)
    print("%s - %s: the script's %d ops are the trace's top ops with their recorded inputs" % (
        "not ok" if fails else "ok", trace.split("/")[-2], len(ents)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
