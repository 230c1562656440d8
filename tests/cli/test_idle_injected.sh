#!/bin/sh
# test_idle_injected.sh - issue 22's "real training loop with idle causes injected at known
# places": tests/data/real/pytorch-h200-idle-injected is a real PyTorch training loop on an
# H200 (make_trace.py beside it) that sleeps in record_function("inject_sleep"), runs pure
# Python in record_function("inject_python") and calls .item() after a large matmul, in each
# of three profiled steps. An independent script over the raw Kineto events finds the device
# idle interval under each injection (the union of the device's kernels, memsets and copies)
# and what dcutop must say of it: host-bound with the injected range as host activity over
# exactly its overlap with the gap, or sync for the gap after the .item() copy.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
D=tests/data/real/pytorch-h200-idle-injected
T=$D/idle_train.trace.json.gz

"$DCUTOP" -q --export idle "$D" >"$TMP/idle.csv"
"$DCUTOP" -q --export idle-gaps "$D" >"$TMP/gaps.csv"

# the raw side: the device's idle intervals, the injected ranges, the .item() syncs
python3 - "$T" "$D/injected.json" >"$TMP/expect.txt" <<'PY'
import decimal, gzip, json, sys
ev = json.load(gzip.open(sys.argv[1], "rt"))["traceEvents"]
inj = json.load(open(sys.argv[2]))
ns = lambda x: int(decimal.Decimal(str(x)) * 1000)
busy = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
              if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")
              and ns(e["dur"]) > 0)
hi = max(b[1] for b in busy)
gaps, reach = [], busy[0][0]
for s, e in busy:
    if s > reach:
        gaps.append((reach, s))
    reach = max(reach, e)
def gap_at(t):
    for g in gaps:
        if g[0] <= t < g[1]:
            return g
    return None
rng = lambda name: sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
                          if e.get("cat") == "user_annotation" and e.get("name") == name)
for name, key, floor in (("inject_sleep", "sleep_ns", 0.9), ("inject_python", "python_ns", 0.3)):
    rs = rng(name)
    print("%s ranges %d" % (name, len(rs)))
    for (s, e), step in zip(rs, inj["steps"]):
        g = gap_at(e - 1)
        over = min(e, g[1]) - max(s, g[0])
        # the injection left the device idle for most of what the host measured
        print("%s gap %d %d host %d enough %s" % (name, g[0], g[1] - g[0], over,
                                                  over >= floor * step[key]))
# .item(): an aten::item op with a cudaStreamSynchronize inside it on the same thread; the
# device idles from the end of the copy it waited for until the next launch
ops = [e for e in ev if e.get("cat") == "cpu_op" and e.get("name") == "aten::item"]
syncs = [e for e in ev if e.get("cat") == "cuda_runtime" and e.get("name") == "cudaStreamSynchronize"]
n = 0
for o in ops:
    s0, s1 = ns(o["ts"]), ns(o["ts"]) + ns(o["dur"])
    inside = [y for y in syncs if y["tid"] == o["tid"] and s0 <= ns(y["ts"]) < s1]
    if not inside:
        continue
    y = inside[0]
    g = gap_at(ns(y["ts"]) + ns(y["dur"]) - 1)
    if g and g[1] < hi:
        n += 1
        print("item gap %d %d" % g)
print("item syncs %d" % n)
PY
cat "$TMP/expect.txt" >&2

# dcutop's side: the gaps and host time of each injected range, the cause of each item gap
ours() {
    python3 - "$TMP/gaps.csv" "$TMP/expect.txt" <<'PY'
import csv, collections, sys
rows = list(csv.DictReader(open(sys.argv[1])))
host = collections.Counter()
cause, glen = {}, {}
for r in rows:
    k = int(r["abs_start_ns"])  # the trace clock (gap_start_ns: from the trace start)
    host[(k, r["host_activity"])] += int(r["host_ns"])
    cause[k], glen[k] = r["cause"], int(r["gap_ns"])
for line in open(sys.argv[2]):
    w = line.split()
    if w[1] == "gap" and w[0] != "item":
        g0, n = int(w[2]), int(w[3])
        print("%s gap %d %d host %d cause %s" % (w[0], g0, glen.get(g0, -1),
                                                 host[(g0, w[0])], cause.get(g0)))
for line in open(sys.argv[2]):
    w = line.split()
    if w[:2] == ["item", "gap"]:
        g0 = int(w[2])
        print("item gap %d %d cause %s" % (g0, glen.get(g0, -1), cause.get(g0)))
PY
}
ours >"$TMP/ours.txt"
cat "$TMP/ours.txt" >&2
same "three inject_sleep and three inject_python ranges in the trace" \
    "inject_sleep ranges 3
inject_python ranges 3" "$(grep ranges "$TMP/expect.txt")"
same "each sleep and Python range sits in a device idle interval that covers most of it" 6 \
    "$(grep -c 'enough True' "$TMP/expect.txt")"
same "dcutop: each such gap host-bound, bounds and the range's host time exact" \
    "$(awk '$2 == "gap" && $1 ~ /^inject/ {print $1, "gap", $3, $4, "host", $6, "cause host-bound"}' \
        "$TMP/expect.txt")" "$(grep '^inject' "$TMP/ours.txt")"
same "two .item() syncs with a launch after them (the third ends the trace)" "item syncs 2" \
    "$(grep 'item syncs' "$TMP/expect.txt")"
same "dcutop: the gap after each .item() copy is sync, bounds exact" \
    "$(awk '$1 == "item" && $2 == "gap" {print "item gap", $3, $4 - $3, "cause sync"}' \
        "$TMP/expect.txt")" "$(grep '^item' "$TMP/ours.txt")"
same "every cause's gaps and total as the raw events give them (idle_oracle.py)" \
    "$(python3 tests/cli/idle_oracle.py "$T" | grep -v '^idle')" \
    "$(tail -n +2 "$TMP/idle.csv" | tr -d '"' | awk -F, '{print $2 "\t" $3 "\t" $4 "\t" $5}')"
"$DCUTOP" -q --report --view advice --width 200 "$D" >"$TMP/advice.txt"
check "the advice names the injected sleep first in host-bound idle" \
    grep -q 'GPU idle, host-bound: mostly in inject_sleep and inject_python' "$TMP/advice.txt"
