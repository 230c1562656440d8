#!/bin/sh
# test_trace_copies.sh - memsets and copies on the device lane (issue 22): they widen the wall
# (a device's wall runs from the first kernel, memset or copy to the last one), a device that
# ran only copies gets its lane and its idle rows, the Trace screen draws them apart from the
# kernels (▓) with the device's other queues (░), and a gap it shows is one device-idle
# interval of the idle breakdown (the Idle column, the gap line, --report --view trace).
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
R=tests/data/real

# A crafted Kineto trace (times in us). Device 0: an H2D copy on stream 7 before the first
# kernel, k1, a memset on stream 9 that fills part of the gap before k2, k2, a D2H copy after
# the last kernel; device 1: two copies only, no launch call; device 2: a copy of no length
# (not busy: it neither widens the wall nor lists its device).
python3 - "$TMP/copies.trace.json" <<'PY'
import json, sys
ev = []
def op(cat, name, dev, stream, ts, dur, corr):
    a = {"device": dev, "stream": stream}
    if corr is not None:
        a["correlation"] = corr
    ev.append({"ph": "X", "cat": cat, "name": name, "pid": dev, "tid": stream, "ts": ts,
               "dur": dur, "args": a})
def r(name, ts, dur, corr):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts,
               "dur": dur, "args": {"correlation": corr}})
r("cudaMemcpyAsync", 40, 5, 10); op("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, 50, 20, 10)
r("cudaLaunchKernel", 90, 5, 1); op("kernel", "k1", 0, 7, 100, 10, 1)
r("cudaMemsetAsync", 105, 1, 11); op("gpu_memset", "Memset (Device)", 0, 9, 120, 20, 11)
r("cudaLaunchKernel", 135, 2, 2); op("kernel", "k2", 0, 7, 140, 10, 2)
r("cudaMemcpyAsync", 152, 1, 12); op("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0, 7, 160, 40, 12)
op("gpu_memcpy", "Memcpy PtoP (Device -> Device)", 1, 3, 80, 10, None)
op("gpu_memcpy", "Memcpy PtoP (Device -> Device)", 1, 3, 170, 10, None)
op("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 2, 3, 10, 0, None)
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
PY
C=$TMP/copies.trace.json

# By hand: the wall is 50..200 = 150 us for each device (the copies widen it: the kernels
# alone span 100..150). Device 0 is busy 50..70, 100..110, 120..140, 140..150, 160..200 =
# 100 us; idle 70..100 (k1's launch at 90, after: host-bound), 110..120 (the memset's launch
# at 105, before: launch-overhead), 150..160 (the D2H copy's launch at 152: host-bound);
# stream 7 waits 110..140 while stream 9's memset runs 120..140: other-stream 20 us, not idle.
# Device 1 is busy 80..90 and 170..180: idle 50..80, 90..170, 180..200, no launch call: unknown.
# Device 2: not listed.
"$DCUTOP" -q --export idle "$C" >"$TMP/idle.csv"
same "idle causes: copies widen the wall, the copy-only device is listed" \
'run,device,cause,gaps,total_ns,pct_idle
"copies.trace.json",0,"host-bound",2,40000,80.000000
"copies.trace.json",0,"launch-overhead",1,10000,20.000000
"copies.trace.json",0,"other-stream",1,20000,40.000000
"copies.trace.json",1,"unknown",3,130000,100.000000' "$(tr -d '\r' <"$TMP/idle.csv")"
"$DCUTOP" -q --export idle-gaps "$C" | tr -d '\r' | cut -d, -f2-5 | uniq >"$TMP/gaps.csv"
same "idle gaps: before the first kernel, after the last, on the copy-only device (starts from the trace start, k1 at 100 us)" \
'device,gap_start_ns,gap_ns,cause
0,-30000,30000,"host-bound"
0,10000,10000,"launch-overhead"
0,50000,10000,"host-bound"
1,-50000,30000,"unknown"
1,-10000,80000,"unknown"
1,80000,20000,"unknown"' "$(cat "$TMP/gaps.csv")"
same "the independent oracle reads the same idle per device" \
"$(printf '0\thost-bound\t2\t40000\n0\tlaunch-overhead\t1\t10000\n1\tunknown\t3\t130000\nidle\t0\t50000\nidle\t1\t130000')" \
    "$(python3 tests/cli/idle_oracle.py "$C")"

"$DCUTOP" -q --report --view timeline "$C" >"$TMP/tl.txt"
check "timeline: wall span 150 us, device wall 300 us, busy 120 us, idle 180 us" \
    grep -q "Wall span 150.0 us (device wall 300.0 us); GPU busy 120.0 us (40.00%), idle 180.0 us (60.00%)" \
    "$TMP/tl.txt"
check "devices: device 0 wall 150, busy 100, idle 50, kernel time 20" \
    grep -qE "^  .*copies.trace.json +0 +2 +150.00 +100.00 +50.00 +33.33 +20.00 +13.33$" "$TMP/tl.txt"
check "devices: the copy-only device 1, no dispatches, busy 20, idle 130" \
    grep -qE "^  .*copies.trace.json +1 +0 +150.00 +20.00 +130.00 +86.67 +0.00 +0.00$" "$TMP/tl.txt"
# Amdahl over kernel time does not move (k1 and k2 are all of it); over wall time GPU idle
# is the SQL figure (Timeline_idleNs), which must agree with the timeline's
check "categories: kernel time shares unchanged; over wall time GPU idle 180 us = 60%" \
    sh -c "'$DCUTOP' -q --report --view categories '$C' |
            grep -qE '^  other +non-GEMM +2 +2 +20.00 +100.00 ' &&
        '$DCUTOP' -q --report --view categories --amdahl-basis wall '$C' |
            grep -qE '^  GPU idle +idle +0 +0 +180.00 +60.00 '"

# --report --view trace: each row's idle is the device idle interval that ends at its op
"$DCUTOP" -q --report --view trace "$C" >"$TMP/trace.txt"
same "report trace, GPU 0 queue 7: k1 and the D2H copy close idle gaps, k2 waited on stream 9" \
'     -50.00        -         -  -                    20.00  Memcpy HtoD (Pageable -> Device)  (copy)    copy
       0.00    30.00     30.00  host-bound           10.00  k1                                other     kernel
      40.00    30.00         -  other-stream         10.00  k2                                other     kernel
      60.00    10.00     10.00  host-bound           40.00  Memcpy DtoH (Device -> Pinned)    (copy)    copy' \
    "$(sed -n '/GPU 0 queue 7/,/^$/p' "$TMP/trace.txt" | grep -E '^ +-?[0-9]')"
check "report trace: the copy-only device's lane, its gaps unknown" \
    grep -qE "^ +70.00 +80.00 +80.00 +unknown +10.00 +Memcpy PtoP" "$TMP/trace.txt"

# every row's idle, on real traces too, is one interval of --export idle-gaps
for T in "$C" $R/rpd-matmul $R/pytorch-h200-climate-transformer/climate_train.trace.json.gz; do
    "$DCUTOP" -q --report --view trace --format csv "$T" >"$TMP/t.csv"
    "$DCUTOP" -q --export idle-gaps "$T" >"$TMP/g.csv"
    same "$(basename "$T"): every Idle of the trace is a device-idle interval, with its cause" "ok" \
        "$(python3 - "$TMP/t.csv" "$TMP/g.csv" <<'PY'
import csv, io, sys
gaps = {(int(r["abs_start_ns"]), int(r["gap_ns"])): r["cause"]
        for r in csv.DictReader(open(sys.argv[2]))}
rows, bad = 0, []
for block in open(sys.argv[1]).read().split("# trace")[1:]:
    body = "\n".join(l for l in block.splitlines() if l and not l.startswith("#"))
    for r in csv.DictReader(io.StringIO(body)):
        if r["idle_ns"]:
            rows += 1
            key = (int(r["abs_start_ns"]) - int(r["idle_ns"]), int(r["idle_ns"]))
            if gaps.get(key) != r["cause"]:
                bad.append(key)
print("ok" if rows and not bad else "rows %d, not idle gaps: %s" % (rows, bad[:3]))
PY
)"
done

# the Trace screen: copies drawn apart, the other queue's memset as ░, blanks only where idle
printf '8\n:dump a\nj\nj\n:dump k2\nj\n:dump d2h\nL\nL\nj\n:dump dev1\nq\n' >"$TMP/t.keys"
"$DCUTOP" --headless --size 100x24 --keys "$TMP/t.keys" "$C" >"$TMP/t.out"
check "GPU row: the H2D copy ▓, idle, k1, idle, stream 9's memset ░, k2, idle, the D2H copy ▓" \
    grep -qE "^GPU   ▓+ +█+ +░+█+ +▓+ ▓cp ░oth$" "$TMP/t.out"
check "k2's gap line: the queue's wait split into device idle and other-stream" \
    grep -q "^Gap before it: 30.0 us on this queue = GPU idle 10.0 us + other-stream 20.0 us.$" \
    "$TMP/t.out"
check "the D2H copy after the last kernel closes a host-bound gap (9 of its 10 us untraced, two stretches)" \
    grep -q "^Gap before it: GPU idle 10.0 us, host-bound; host mostly 9.0 us in (untraced)" \
    "$TMP/t.out"
check "the copy-only device's lane: its 80 us gap, cause unknown" \
    grep -q "^Gap before it: GPU idle 80.0 us, cause unknown" "$TMP/t.out"
# l on the Summary: the largest gap is device 1's, closed by a copy: the row of that copy
printf 'l\n:dump l\nq\n' >"$TMP/l.keys"
"$DCUTOP" --headless --size 100x24 --keys "$TMP/l.keys" "$C" >"$TMP/l.out"
check "l: lands on the copy after the copy-only device's largest gap" \
    grep -q "^2/2  Memcpy PtoP (Device -> Device)" "$TMP/l.out"
