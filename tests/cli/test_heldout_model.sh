#!/bin/sh
# test_heldout_model.sh - the checks of the model link, the op-matched diff, the health
# verdict and memory, on real H100 recordings that none of that code was written against
# (pytorch-h100-vit-*: a small vision transformer, recorded after it was written, see their
# README): at least 99% of kernel time linked to an op and per-module forward and backward
# time exact against heldout_model_oracle.py over the raw events; the bf16-against-fp32 diff
# matched by op gives each module's time on both sides as the oracle does, and its ops add up
# to the whole difference; the health verdict places the second process's load within its
# stated edge of the recorded window; each memory peak and its op equal heldout_mem_oracle.py.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg XDG_STATE_HOME=$TMP/state TZ=UTC LC_ALL=C.UTF-8
export XDG_CONFIG_HOME XDG_STATE_HOME TZ LC_ALL
V=$REAL/pytorch-h100-vit

for t in bf16 fp32; do # (the contention recording has no module events: recorded without stacks)
    tr=$(ls "$V-$t"/*.trace.json.gz)
    python3 tests/cli/heldout_model_oracle.py "$tr" >"$TMP/$t.oracle"
    "$DCUTOP" -q --export ops "$V-$t" >"$TMP/$t.ops.csv"
    out=$(python3 - "$TMP/$t.ops.csv" "$TMP/$t.oracle" <<'P'
import csv, collections, sys
rows = list(csv.DictReader(open(sys.argv[1])))
total = sum(int(r["device_ns"]) for r in rows)
linked = sum(int(r["device_ns"]) for r in rows if r["op"])
got = collections.Counter()
for r in rows:
    if r["module"] and r["pass"] in ("forward", "backward"):
        got[(r["pass"], r["module"])] += int(r["device_ns"])
want, o = {}, {}
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] == "module":
        want[(f[1], f[2])] = int(f[3])
    else:
        o[f[0]] = int(f[1])
bad = [k for k in set(got) | set(want) if got.get(k) != want.get(k)]
print("%.4f %d %d %d %d" % (100.0 * linked / total, total == o["total"], linked == o["linked"], len(want), len(bad)))
P
)
    set -- $out
    check "vit-$t: at least 99% of kernel time linked to an op ($1%)" \
        awk -v p="$1" 'BEGIN { exit !(p >= 99) }'
    same "vit-$t: kernel time and linked time = the oracle's" "1 1" "$2 $3"
    same "vit-$t: per-module forward and backward time = the oracle's ($4 module-pass totals)" "0" "$5"
done

# the diff of fp32 (A) against bf16 (B), matched by op: each module's time on both sides
"$DCUTOP" -q --diff "$V-fp32" "$V-bf16" --format json >"$TMP/diff.json"
out=$(python3 - "$TMP/diff.json" "$TMP/fp32.oracle" "$TMP/bf16.oracle" <<'P'
import collections, json, sys
d = json.load(open(sys.argv[1]))
side = []
for p in sys.argv[2:4]:
    m = collections.Counter()
    for line in open(p):
        f = line.split()
        if f[0] == "module":
            m[f[2]] += int(f[3])
    side.append(m)
bad = [r["module"] for r in d["modules"] if r["module"] and not r["module"].startswith("(") and
       (r["before"] != side[0].get(r["module"], 0) or r["after"] != side[1].get(r["module"], 0))]
mods = {r["module"] for r in d["modules"] if r["module"]}  # "(outside every module)" is no module
missing = [m for m in set(side[0]) | set(side[1]) if m not in mods]
total = [r for r in d["summary"] if r["metric"] == "device kernel time"][0]["delta"]
ops = sum(r["delta"] for r in d["ops"])
big = max(set(side[0]) | set(side[1]), key=lambda m: abs(side[1].get(m, 0) - side[0].get(m, 0)))
top = max((r for r in d["modules"] if r["module"]), key=lambda r: abs(r["delta"]))["module"]
print(len(bad), len(missing), int(abs(ops - total) <= 1), int(big == top), "by op identity" in d["matching"][0]["note"])
P
)
same "diff fp32 -> bf16: every module's time on both sides = the oracle's, none missing; the ops add up to the whole difference; the largest module difference is the oracle's; matched by op" \
    "0 0 1 1 True" "$out"

# the health verdict: another process, where the recording put it (wall clock, UTC)
"$DCUTOP" -q --report --format json "$V-contention" >"$TMP/c.json"
out=$(python3 - "$TMP/c.json" "$V-contention/second-process.json" <<'P'
import json, re, sys, calendar, time
h = json.load(open(sys.argv[1]))["health"]
sp = json.load(open(sys.argv[2]))
line = [l for l in h["lines"] if l["kind"] == "other-process"][0]
m = re.search(r"(\d\d):(\d\d):(\d\d\.\d+)-(\d\d):(\d\d):(\d\d\.\d+) UTC", line["text"])
day = calendar.timegm(time.gmtime(sp["start_time_ns"] // 10**9)[:3] + (0, 0, 0))
t = lambda a, b, c: (day + int(a) * 3600 + int(b) * 60 + float(c)) * 1e9
s, e = t(*m.group(1, 2, 3)), t(*m.group(4, 5, 6))
edge = line["edge_ns"] + 1e6  # the text's millisecond rounding
print(int(abs(s - sp["start_time_ns"]) <= edge), int(abs(e - sp["end_time_ns"]) <= edge))
P
)
same "vit-contention: the verdict places another process within its edge of the recorded start and end" "1 1" "$out"

# memory: each device's peak allocated, the reserved bytes then and the op live there
for t in bf16 fp32 contention; do
    tr=$(ls "$V-$t"/*.trace.json.gz)
    want=$(python3 tests/cli/heldout_mem_oracle.py "$tr")
    got=$("$DCUTOP" -q --view memory --format json "$V-$t" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["memory_peaks"]:
    if p["device"] >= 0:
        print("peak", p["device"], p["peak_allocated"], p["reserved_at_peak"], p["op"])')
    same "vit-$t: memory peak, reserved then and its op = the oracle's" "$want" "$got"
done
