#!/bin/sh
# test_figures.sh - the edge figures of issue 13, each against an oracle computed here with
# python3 from the raw trace (never from dcutop's own database).
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

# 1. Kineto ProfilerStep attribution: by launch (the cuda_runtime event with the kernel's
# correlation id inside the step's host range), never by GPU start; a kernel without a launch
# in the trace is outside (unless a gpu_user_annotation of the step holds its start).
Q=$REAL/pytorch-kineto-mi300-qwen
if [ -d "$Q" ] && command -v python3 >/dev/null; then
    "$DCUTOP" -q --report --format json --view timeline "$Q" >"$TMP/q.json"
    exp=$(python3 - "$Q"/*.json.gz <<'PY'
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
ns = lambda us: round(us * 1000)
steps = [e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
gsteps = [e for e in ev if e.get("cat") == "gpu_user_annotation" and e["name"].startswith("ProfilerStep#")]
launch = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
          if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
out = []
for st in steps:
    s0, s1 = ns(st["ts"]), ns(st["ts"]) + ns(st["dur"])
    g = [x for x in gsteps if x["name"] == st["name"]]
    ks = []
    for k in (e for e in ev if e.get("cat") == "kernel"):
        at = launch.get(k["args"].get("correlation"))
        if at is not None:
            inside = s0 <= at <= s1
        else:
            inside = any(ns(x["ts"]) <= ns(k["ts"]) <= ns(x["ts"]) + ns(x["dur"]) for x in g)
        if inside:
            ks.append((ns(k["ts"]), ns(k["ts"]) + ns(k["dur"])))
    out.append("%s %d %d %d" % (st["name"], len(ks), sum(b - a for a, b in ks),
                                max(b for a, b in ks) - min(a for a, b in ks)))
nk = sum(1 for e in ev if e.get("cat") == "kernel")
print(" ".join(out), "outside", nk - sum(int(o.split()[1]) for o in out))
PY
)
    act=$(python3 -c '
import json, sys
it = json.load(open(sys.argv[1]))["timeline"]["iterations"]
steps = ["%s %d %d %d" % (i["name"], i["dispatches"], i["kernel_ns"], i["span_ns"]) for i in it if i["iteration"]]
out = [i["dispatches"] for i in it if not i["iteration"]]
print(" ".join(steps), "outside", out[0] if out else 0)' "$TMP/q.json")
    same "kineto qwen: ProfilerStep#6 by launch, as python counts it" "$exp" "$act"
    same "kineto qwen: the issue's figures" \
        "ProfilerStep#6 1053 29743178 33131334 outside 463" "$act"
fi
