#!/bin/sh
# test_idle.sh - why the GPU idles (issue 22, idle.h): every idle interval of a device
# classified by the launch call of the next kernel, memset or copy. A crafted Kineto trace
# injects each cause at a known place; on the real traces an independent script over the raw
# events (idle_oracle.py) gives every cause's gaps and total; the causes of a device add up
# to the timeline's idle time; the host activity of a gap adds up to the gap; launch delay is
# kernel start - call end.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
R=tests/data/real

# a crafted trace (times in us): device 0 streams 7 and 9, device 1 without launch calls
python3 - "$TMP/crafted.trace.json" <<'PY'
import json, sys
ev = []
def k(name, dev, stream, ts, dur, corr):
    a = {"device": dev, "stream": stream}
    if corr is not None:
        a["correlation"] = corr
    ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": dev, "tid": stream, "ts": ts,
               "dur": dur, "args": a})
def r(name, ts, dur, corr=None):
    a = {} if corr is None else {"correlation": corr}
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts,
               "dur": dur, "args": a})
r("cudaLaunchKernel", 90, 5, 1); k("k1", 0, 7, 100, 10, 1)
# host-bound 110..140: k2's launch starts at 130, after the device went idle, inside aten::foo
ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::foo", "pid": 1, "tid": 1, "ts": 112,
           "dur": 24})
r("cudaLaunchKernel", 130, 5, 2); k("k2", 0, 7, 140, 10, 2)
r("cudaLaunchKernel", 136.5, 0.5, 5); k("k5", 0, 9, 141, 8, 5)
# sync 150..180: a cudaStreamSynchronize spans the gap's start, k3 launched after it
r("cudaStreamSynchronize", 145, 25)
r("cudaLaunchKernel", 172, 2, 3); k("k3", 0, 7, 180, 10, 3)
r("cudaLaunchKernel", 175, 0.5, 6); k("k6", 0, 9, 185, 4, 6)
# launch overhead 190..192: k4 launched at 176, long before k3 ended
r("cudaLaunchKernel", 176, 2, 4); k("k4", 0, 7, 192, 8, 4)
# device 1: no launch calls, one gap 120..150: unknown
k("k7", 1, 7, 100, 20, None); k("k8", 1, 7, 150, 50, None)
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
PY
C=$TMP/crafted.trace.json
"$DCUTOP" -q --export idle "$C" >"$TMP/c.csv"
same "crafted: each injected cause at its place; other-stream apart" \
'run,device,cause,gaps,total_ns,pct_idle
"crafted.trace.json",0,"host-bound",1,30000,48.387097
"crafted.trace.json",0,"launch-overhead",1,2000,3.225806
"crafted.trace.json",0,"sync",1,30000,48.387097
"crafted.trace.json",0,"other-stream",1,6000,9.677419
"crafted.trace.json",1,"unknown",1,30000,100.000000' "$(tr -d '\r' <"$TMP/c.csv")"
"$DCUTOP" -q --export idle-gaps "$C" >"$TMP/cg.csv"
same "crafted: the host-bound gap's host activity, each activity's total (innermost), largest first" \
'aten::foo 19000
(untraced) 5500
cudaLaunchKernel 5500' "$(python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["cause"] == "host-bound":
        print(r["host_activity"], r["host_ns"])' "$TMP/cg.csv")"
check "crafted: the sync gap is attributed to cudaStreamSynchronize first; start 50 us from the trace start (the first kernel, 100 us)" \
    grep -q '"crafted.trace.json",0,50000,30000,"sync","cudaStreamSynchronize",20000,150000' "$TMP/cg.csv"
check "crafted: the device without launch calls is untraced" \
    grep -q '"crafted.trace.json",1,20000,30000,"unknown","(untraced)",30000,120000' "$TMP/cg.csv"
"$DCUTOP" -q --export launches "$C" >"$TMP/cl.csv"
check "crafted: k6 launched at 175.5 us, started at 185 us: delay 9500 ns" \
    grep -q '"crafted.trace.json",0,9,"k6","cudaLaunchKernel",175000,175500,185000,189000,9500' \
    "$TMP/cl.csv"

# dcutop's causes (no other-stream) as oracle lines, and its causes summed per device against
# the timeline's idle time; the host activity of each gap against the gap
ours() {
    python3 -c '
import csv, sys, collections
idle = collections.Counter()
for r in csv.DictReader(open(sys.argv[1])):
    if r["cause"] not in ("other-stream", "rank-wait"):
        print("%s\t%s\t%s\t%s" % (r["device"], r["cause"], r["gaps"], r["total_ns"]))
        idle[r["device"]] += int(r["total_ns"])
for d, t in sorted(idle.items()):
    print("idle\t%s\t%d" % (d, t))' "$1"
}
adds_up() { # IDLE_CSV REPORT_JSON GAPS_CSV: "ok" when the figures agree
    python3 -c '
import csv, json, sys, collections
causes = sum(int(r["total_ns"]) for r in csv.DictReader(open(sys.argv[1]))
             if r["cause"] not in ("other-stream", "rank-wait"))
tl = json.load(open(sys.argv[2]))["timeline"]["summary"]["idle_ns"]
g, n = collections.Counter(), {}
for r in csv.DictReader(open(sys.argv[3])):
    k = (r["run"], r["device"], r["gap_start_ns"])
    g[k] += int(r["host_ns"]); n[k] = int(r["gap_ns"])
ok = causes == tl and all(g[k] == n[k] for k in n) and sum(n.values()) == tl
print("ok" if ok else "causes %d timeline %d gaps %d" % (causes, tl, sum(n.values())))' "$@"
}
i=0
for T in "$C" $R/pytorch-h200-climate-transformer/climate_train.trace.json.gz \
    $R/pytorch-h200-ddp-2rank/rank0.trace.json.gz $R/pytorch-h200-ddp-2rank/rank1.trace.json.gz; do
    i=$((i + 1))
    "$DCUTOP" -q --export idle "$T" >"$TMP/i$i.csv"
    same "$(basename "$T"): every cause's gaps and total as the raw events give them" \
        "$(python3 tests/cli/idle_oracle.py "$T")" "$(ours "$TMP/i$i.csv")"
done
# the SQLite traces (an RPD and a rocprof v1 --hip-trace results.db) against a script of their
# own over the raw tables (idle_oracle_raw.py): PyTorch's .item() on ROCm is a
# hipMemcpyWithStream device to host, a sync
oracle_raw= ours_raw=
for T in $R/rpd-matmul/matmul_result.rpd $R/kokkos-rocprof-v1-hiptrace-rocm4/results.db; do
    i=$((i + 1))
    "$DCUTOP" -q --export idle "$(dirname "$T")" >"$TMP/i$i.csv"
    oracle_raw="$oracle_raw$(basename "$(dirname "$T")")
$(python3 tests/cli/idle_oracle_raw.py "$T")
"
    ours_raw="$ours_raw$(basename "$(dirname "$T")")
$(ours "$TMP/i$i.csv")
"
done
same "rpd-matmul, kokkos hip trace: every cause's gaps and total as the raw tables give them" \
    "$oracle_raw" "$ours_raw"
# the copies widen the wall: the .item() copies (hipMemcpyWithStream D2H) after the last
# kernel add 48 sync gaps between them; over the kernels' span (an ROI) the four inside it
same "rpd-matmul: the .item() copies make sync gaps, 52 in all" 1 \
    "$(grep -c '"rpd-matmul",2,"sync",52,' "$TMP/i$((i - 1)).csv")"
same "rpd-matmul: four of them over the kernels' span" 1 "$("$DCUTOP" -q --roi-from . --roi-to . \
    --export idle $R/rpd-matmul | grep -c '"rpd-matmul",2,"sync",4,')"
for T in $R/pytorch-h200-climate-transformer/climate_train.trace.json.gz \
    $R/pytorch-h200-ddp-2rank $R/rpd-matmul $R/kokkos-rocprof-v1-hiptrace-rocm4 "$C"; do
    i=$((i + 1))
    "$DCUTOP" -q --export idle "$T" >"$TMP/i$i.csv"
    "$DCUTOP" -q --export idle-gaps "$T" >"$TMP/g$i.csv"
    "$DCUTOP" -q --report --format json "$T" >"$TMP/r$i.json"
    same "$(basename "$T"): causes and gaps add up to the timeline's idle time" ok \
        "$(adds_up "$TMP/i$i.csv" "$TMP/r$i.json" "$TMP/g$i.csv")"
done
same "ddp-2rank: a sync gap found on rank 0 (cudaStreamSynchronize / D2H copy)" 1 \
    "$(grep -c '"rank0.trace.json.gz",0,"sync",2,' "$TMP/i8.csv")"

# rank-wait (a collective waiting for a slower rank, not device idle): the n-th dispatch of a
# comm kernel on each rank is one collective; its shortest duration over the ranks is the
# transfer, the rest of each rank's duration the wait. Read from the raw events of both ranks.
D=$R/pytorch-h200-ddp-2rank
"$DCUTOP" -q --export idle $R/pytorch-h200-ddp-2rank/rank1.trace.json.gz >"$TMP/one.csv"
same "ddp-2rank: rank-wait per rank as the raw collectives give it; none for one rank alone" \
    "$(python3 -c '
import collections, decimal, gzip, json, re, sys
comm = re.compile(r"(?<![A-Za-z])(?:nccl|rccl|msccl|hccl)[A-Z_]")
per = []
for p in sys.argv[1:]:
    ev = json.load(gzip.open(p, "rt"), parse_float=decimal.Decimal)["traceEvents"]
    ks = collections.defaultdict(list)
    for e in sorted((e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"
                     and comm.search(e["name"])), key=lambda e: e["ts"]):
        ks[e["name"]].append(int(decimal.Decimal(str(e["dur"])) * 1000))
    per.append(ks)
for i, p in enumerate(sys.argv[1:]):
    n = t = 0
    for name, durs in per[i].items():
        for k, d in enumerate(durs):
            mn = min(o[name][k] for o in per if k < len(o.get(name, [])))
            if d > mn:
                n += 1; t += d - mn
    if n:
        print("%s %d %d" % (p.rsplit("/", 1)[1], n, t))' $D/rank0.trace.json.gz $D/rank1.trace.json.gz)
alone 0" \
    "$(python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["cause"] == "rank-wait":
        print(r["run"], r["gaps"], r["total_ns"])' "$TMP/i8.csv")
alone $(grep -c rank-wait "$TMP/one.csv")"
check "ddp-2rank: rank 1 waits over 100 ms for rank 0 in its AllReduces" \
    grep -q '"rank1.trace.json.gz",1,"rank-wait",24,1[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9],' "$TMP/i8.csv"

# launch delay: kernel start - call end clipped at 0, one row per dispatch with a launch call
L=$R/pytorch-h200-climate-transformer/climate_train.trace.json.gz
"$DCUTOP" -q --export launches "$L" >"$TMP/l.csv"
same "climate: launches: header as fixed by the issue" \
    "run,device,stream,kernel,launch_call,call_start_ns,call_end_ns,kernel_start_ns,kernel_end_ns,launch_delay_ns" \
    "$(head -1 "$TMP/l.csv" | tr -d '\r')"
same "climate: launch_delay_ns = max(0, kernel start - call end) on every row; 768 rows" "768 0" \
    "$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = sum(int(r["launch_delay_ns"]) != max(0, int(r["kernel_start_ns"]) - int(r["call_end_ns"]))
          for r in rows)
print(len(rows), bad)' "$TMP/l.csv")"

# the report view
"$DCUTOP" -q --report --view idle "$L" >"$TMP/v.txt"
check "report --view idle: the cause table" grep -q 'Idle time per device and cause' "$TMP/v.txt"
check "report --view idle: the largest gaps" grep -q 'Largest idle gaps' "$TMP/v.txt"
check "report --view idle: launch statistics per GPU op as HTA computes them" grep -q 'Launch statistics per GPU op as HTA computes them' "$TMP/v.txt"
"$DCUTOP" -q --report --view idle --format json "$L" >"$TMP/v.json"
same "report --view idle --format json: its members" "idle idle_top_gaps launch_stats" \
    "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(k for k in ("idle", "idle_top_gaps", "launch_stats") if d.get(k)))' "$TMP/v.json")"
exits "an unknown --view lists idle" 2 "$DCUTOP" -q --report --view nosuch "$L"
"$DCUTOP" -q --report --view nosuch "$L" 2>"$TMP/e.txt"
check "the --view error names idle" grep -q 'ranks, idle)' "$TMP/e.txt"

# The Summary and the advice use the causes. The 2-rank job: the NCCL stream waits 43.1 ms on
# rank 0 while the compute stream works: not device idle, so never a gap of the Summary (whose
# gaps are device idle, each with its cause); that wait and rank 1's wait for rank 0 in its
# AllReduces are shown apart. Memsets and copies on the device are busy (HTA): the 1.9 ms
# gap of step 0 on rank 0 holds device-to-device copies, so it is no longer among the largest.
printf '1\n:dump s\n' >"$TMP/s.keys"
"$DCUTOP" --headless --size 130x70 --keys "$TMP/s.keys" $R/pytorch-h200-ddp-2rank >"$TMP/s.txt"
same "ddp-2rank Summary: the largest gaps are device idle (3.1 ms at most), each with a cause" \
    "3.1 ms host-bound (fill_) vectorized_elementwise_kernel
1.5 ms host-bound (Optimizer.step#AdamW.st…) multi_tensor_apply_ke
1.1 ms host-bound (empty_strided) multi_tensor_apply_kernel" \
    "$(sed -n 's/^ *\([0-9.]* [mu]s\) idle at *[0-9.]* ms, \([a-z-]*\) \(([^)]*)\), before \([a-z_]*\).*/\1 \2 \3 \4/p' "$TMP/s.txt")"
check "ddp-2rank Summary: idle causes with their ceilings" \
    grep -q 'Idle causes    host-bound 33.4 ms (at most 1.12x), launch-overhead 5.9 ms (at most 1.02x), sync 1.6 ms (at most 1.01x)' "$TMP/s.txt"
check "ddp-2rank Summary: the waits apart, never in idle" \
    grep -q 'not idle: streams waiting while another stream works 200.8 ms; collectives waiting for a slower rank 121.2 ms' "$TMP/s.txt"
# the advice: one opportunity per cause of 5% or more of the wall, share = cause / wall and
# ceiling = 1 / (1 - share) from the export and the timeline's wall, with the fix of its cause
adv() { # DIR: "cause share ceiling fix" per idle opportunity, from dcutop's advice CSV
    "$DCUTOP" -q --report --view advice --format csv "$1" | python3 -c '
import csv, sys
fix = {"host-bound": "off the host loop", "launch-overhead": "CUDA/HIP graphs",
       "sync": "remove or defer the sync"}
rows = [r for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#"))
        if r["rule"] == "idle"]
for r in rows:
    c = r["what"].split(", ")[1].split(":")[0]
    print(c, "%.2f" % float(r["share_pct"]), "%.3f" % float(r["ceiling"]),
          fix.get(c, "?") in r["why"])'
}
expect_adv() { # IDLE_CSV REPORT_JSON [RUN]: a job's list is of its critical rank's wall
    python3 -c '
import csv, json, sys
t = json.load(open(sys.argv[2]))["timeline"]
run = sys.argv[3] if len(sys.argv) > 3 else None
wall = t["summary"]["wall_ns"] if not run else \
    sum(d["span_ns"] for d in t["devices"] if d["file"] == run)
tot = {}
for r in csv.DictReader(open(sys.argv[1])):
    if run and r["run"] != run:
        continue
    if r["cause"] in ("host-bound", "launch-overhead", "sync", "unknown"):
        tot[r["cause"]] = tot.get(r["cause"], 0) + int(r["total_ns"])
for c, t in sorted(tot.items(), key=lambda x: -x[1]):
    if t / wall >= 0.05:
        print(c, "%.2f" % (100 * t / wall), "%.3f" % (1 / (1 - t / wall)), True)' "$@"
}
"$DCUTOP" -q --report --format json $R/rpd-matmul >"$TMP/rpd.json"
"$DCUTOP" -q --export idle $R/rpd-matmul >"$TMP/rpd.csv"
same "rpd-matmul advice: GPU idle split into host-bound, launch-overhead and sync, each its ceiling and fix" \
    "$(expect_adv "$TMP/rpd.csv" "$TMP/rpd.json")" "$(adv $R/rpd-matmul)"
"$DCUTOP" -q --report --format json $R/pytorch-h200-ddp-2rank >"$TMP/ddp.json"
"$DCUTOP" -q --export idle $R/pytorch-h200-ddp-2rank >"$TMP/ddp.csv"
same "ddp-2rank advice: host-bound alone reaches 5% of the critical rank's wall" \
    "$(expect_adv "$TMP/ddp.csv" "$TMP/ddp.json" rank0.trace.json.gz)" "$(adv $R/pytorch-h200-ddp-2rank)"
"$DCUTOP" -q --report --view advice $R/pytorch-h200-ddp-2rank >"$TMP/adv.txt"
# over the whole wall the sync gaps are 0.2% of it (2.7 s of setup after the first copies):
# over the kernels' span they pass the advice's 5%
check "rpd-matmul advice: a sync names its synchronising call (.item() on ROCm)" \
    sh -c "'$DCUTOP' -q --roi-from . --roi-to . --report --view advice $R/rpd-matmul |
        grep -q 'GPU idle, sync: mostly in hipMemcpyWithStream'"
check "ddp-2rank advice: the idle line names the critical rank's host activity" \
    grep -q 'GPU idle, host-bound: mostly in DistributedDataParallel.for… and cudaLaunchKernel' "$TMP/adv.txt"

# launch statistics per GPU op (HTA's get_cuda_kernel_launch_stats as it computes them): its
# launch set (cudaLaunchKernel, cudaMemsetAsync, cudaMemcpyAsync: memsets and copies in,
# cuLaunchKernelEx out), whole-us events, the call and HTA's delay (median, p95 as pandas'
# quantile, max), short (call <= 50 us and shorter on the GPU), outliers over 100 us and 50 us;
# the oracle applies HTA's rules to the raw Kineto events (hta_oracle.py)
"$DCUTOP" -q --report --view idle --format csv "$L" | sed -n '/^# launch_stats/,$p' | tail -n +2 \
    >"$TMP/ls.csv"
python3 tests/cli/hta_oracle.py launch "$L" | sort >"$TMP/ls.want"
python3 -c '
import csv, sys
k = ("launches", "median_ns", "p95_ns", "max_ns", "call_median_ns", "call_p95_ns",
     "call_max_ns", "short", "delay_outliers", "call_outliers")
for r in csv.DictReader(l for l in open(sys.argv[1]) if l.strip()):
    print(r["kernel"] + "|" + ",".join("%.3f" % float(r[x]) for x in k))' "$TMP/ls.csv" |
    sort >"$TMP/ls.got"
same "climate: launch stats per GPU op as HTA's rules give them over the raw events" \
    "$(cat "$TMP/ls.want")" "$(cat "$TMP/ls.got")"
check "climate: the memsets and the device-to-device copies have their rows (HTA's memory events)" \
    sh -c "grep -q '^Memset (Device)|40.000,' '$TMP/ls.got' && grep -q '^Memcpy DtoD (Device -> Device)|16.000,' '$TMP/ls.got'"
check "climate: 41 op names, as HTA's rules give" test "$(wc -l <"$TMP/ls.got")" -eq 41
printf '2\n<Enter>\n:dump k\n' >"$TMP/k.keys"
"$DCUTOP" --headless --size 110x60 --keys "$TMP/k.keys" "$L" >"$TMP/k.txt"
check "Kernel detail: its launch statistics" grep -q 'Launch statistics  (108 by cudaLaunchKernel/hipLaunchKernel, as HTA computes them' "$TMP/k.txt"
check "Kernel detail: short launches flagged (HTA's rule: 89 of 108)" \
    sh -c "grep -q 'Short         89 of 108 shorter on the GPU than a call of at most 50 us' '$TMP/k.txt' &&
        grep -q 'launching costs more than running' '$TMP/k.txt'"
