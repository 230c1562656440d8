#!/bin/sh
# test_hta_defs.sh - every figure that names HTA is computed as HTA 0.5.0 computes it, or its
# difference is stated: the launch statistics and the queue length against HTA's rules
# applied to the raw Kineto events (hta_oracle.py, standard library only) on traces the other
# tests do not use for them (the injected-idle loop, the DDP rank with two streams, ROCm's
# HIP names on the MI300 trace); consecutive_kernel_delay is 30 us (trace units); host-bound
# is not HTA's host wait and the report says how; the manual's worked examples quote figures
# the reports print.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg XDG_STATE_HOME=$TMP/state TZ=UTC LC_ALL=C.UTF-8
export XDG_CONFIG_HOME XDG_STATE_HOME TZ LC_ALL
INJ=$REAL/pytorch-h200-idle-injected/idle_train.trace.json.gz
DDP=$REAL/pytorch-h200-ddp-2rank/rank0.trace.json.gz
MI=$REAL/pytorch-kineto-mi300-qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
CLIMATE=$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz

# the launch-stats table of --report --view idle as "name|figures" lines, sorted
launch_got() {
    "$DCUTOP" -q --report --view idle --format csv "$1" | python3 tests/cli/hta_oracle.py got | sort
}

for t in "$INJ" "$DDP" "$MI"; do
    n=$(basename "$t")
    python3 tests/cli/hta_oracle.py launch "$t" | sort >"$TMP/want"
    launch_got "$t" >"$TMP/got"
    check "$n: HTA's launch set is not empty ($(wc -l <"$TMP/want") op names)" test -s "$TMP/want"
    if cmp -s "$TMP/want" "$TMP/got"; then
        ok "$n: launch counts, call and delay median/p95/max, short and outliers as HTA's rules give"
    else
        notok "$n: launch statistics differ from HTA's rules"
        diff "$TMP/want" "$TMP/got" | head -4 | cut -c1-200 | sed 's/^/#   /'
    fi
done

# the launch set: cuLaunchKernelEx out, memsets and copies in (the DDP rank has both)
python3 - "$DDP" >"$TMP/ddp.sets" <<'PY'
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
by = {}
for e in ev:
    c = (e.get("args") or {}).get("correlation")
    if e.get("cat") in ("cuda_runtime", "cuda_driver") and c is not None:
        by[c] = e["name"]
ex = memory = 0
for e in ev:
    c = (e.get("args") or {}).get("correlation")
    if e.get("cat") == "kernel" and by.get(c) == "cuLaunchKernelEx":
        ex += 1
    if e.get("cat") in ("gpu_memset", "gpu_memcpy") and by.get(c) in ("cudaMemsetAsync", "cudaMemcpyAsync"):
        memory += 1
print(ex, memory)
PY
set -- $(cat "$TMP/ddp.sets")
launch_got "$DDP" >"$TMP/ddp.got"
check "rank0: $1 kernels launched by cuLaunchKernelEx and $2 memory events (the check is not vacuous)" \
    sh -c "test $1 -gt 0 && test $2 -gt 0"
check "rank0: the launch table has memset and memcpy rows (HTA's include_memory_events)" \
    sh -c "grep -q '^Memset' '$TMP/ddp.got' && grep -q '^Memcpy' '$TMP/ddp.got'"
total=$(awk -F'|' '{ split($2, v, ","); s += v[1] } END { print s }' "$TMP/ddp.got")
want=$(python3 tests/cli/hta_oracle.py launch "$DDP" | awk -F'|' '{ split($2, v, ","); s += v[1] } END { print s }')
same "rank0: launches counted over HTA's set only" "$want" "$total"

# HTA's queue length, sampled at its events, per stream (two streams on the DDP rank)
printf ':dump s\nq\n' >"$TMP/s.keys"
for t in "$INJ" "$DDP" "$MI"; do
    set -- $(python3 tests/cli/hta_oracle.py queue "$t")
    pct=$(python3 -c "print('%.1f' % (100.0 * $2 / $1))")
    s=""
    test "$3" -eq 1 || s=s
    "$DCUTOP" --headless --size 160x90 --keys "$TMP/s.keys" "$t" >"$TMP/s.out"
    check "$(basename "$t"): HTA's queue length 0 at $pct% of its $1 events over $3 stream$s" \
        grep -q "Queue length   0 at $pct% of its $1 events (HTA's: +1 at a launch call, -1 when its GPU op starts; $3 stream$s)" \
        "$TMP/s.out"
    check "$(basename "$t"): dcutop's queue depth stays, labelled as its own" \
        grep -q "Queue depth    empty [0-9.]*% of the time (dcutop's: ops launched and not ended, kernels, memsets and copies" \
        "$TMP/s.out"
done

# consecutive_kernel_delay: 30 trace units, us; host-bound is not HTA's host wait
"$DCUTOP" -q --report --view idle "$INJ" >"$TMP/idle.txt"
tr '\n' ' ' <"$TMP/idle.txt" | tr -s ' ' >"$TMP/idle.flat"
check "idle report: HTA's consecutive_kernel_delay is 30 us" \
    grep -q "consecutive_kernel_delay, 30 us" "$TMP/idle.flat"
check "idle report: no 30 ns" sh -c "! grep -q '30 ns' '$TMP/idle.flat'"
check "idle report: host-bound paired with HTA's host wait says how they differ" \
    grep -q "nearest to HTA's host wait, which HTA takes per stream, waits behind other streams included" \
    "$TMP/idle.flat"
check "manual: consecutive_kernel_delay of 30 trace units, 30 µs" \
    grep -q "consecutive_kernel_delay\` of 30 trace units, 30 µs in a Kineto trace" doc/manual.md
check "manual: the cause table's HTA column says HTA's categories differ" \
    grep -q "| cause | rule | nearest HTA category (HTA's differs) |" doc/manual.md

# the manual's worked examples quote what the reports print
tr '\n' ' ' <doc/manual.md | tr -s ' ' >"$TMP/manual.flat"
check "manual: no run-level launch delay (no report prints one)" \
    sh -c "! grep -q 'Launch delay: median' '$TMP/manual.flat'"
"$DCUTOP" -q --report --view idle --format csv "$CLIMATE" | sed -n '/^# launch_stats/,$p' |
    tail -n +2 | python3 -c '
import csv, sys
for r in csv.DictReader(l for l in sys.stdin if l.strip()):
    if "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}" in r["kernel"] and "unrolled_elementwise_kernel" in r["kernel"]:
        print("%s launches by `cudaLaunchKernel`, a %.1f µs median call and HTA'"'"'s launch delay of %.1f µs median and %.2f µs p95, %s of the %s short" % (
            r["launches"], float(r["call_median_ns"]) / 1000, float(r["median_ns"]) / 1000,
            float(r["p95_ns"]) / 1000, r["short"], r["launches"]))' >"$TMP/climate.ex"
check "climate worked example: its launch figures as the idle report prints them ($(cat "$TMP/climate.ex"))" \
    sh -c "test -s '$TMP/climate.ex' && grep -qF \"\$(cat '$TMP/climate.ex')\" '$TMP/manual.flat'"
"$DCUTOP" --headless --size 160x90 --keys "$TMP/s.keys" "$CLIMATE" >"$TMP/cs.out"
q=$(sed -n 's/.*Queue depth    empty \([0-9.]*\)% of the time.*/\1/p' "$TMP/cs.out")
h=$(sed -n 's/.*Queue length   0 at \([0-9.]*% of its [0-9]* events\).*/\1/p' "$TMP/cs.out")
check "manual: the climate queue figures as the Summary prints them ($q%, $h)" \
    grep -qF "dcutop's queue is empty $q% of the time; HTA's length is 0 at $h" "$TMP/manual.flat"

# HTA's rules at their edges, on a crafted trace (us): a 60 us call launching a 2 us kernel is
# no short kernel (HTA: the call must be at most 50 us), a 50 us one is; a cuLaunchKernelEx
# launch is left out; a cudaMemsetAsync's memset is in; starts round up, ends down
python3 - "$TMP/edges.trace.json" <<'PY'
import json, sys
ev = []
def gpu(cat, name, ts, dur, corr):
    ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
               "args": {"device": 0, "stream": 7, "correlation": corr}})
def call(cat, name, ts, dur, corr):
    ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
               "args": {"correlation": corr}})
call("cuda_runtime", "cudaLaunchKernel", 100, 60, 1); gpu("kernel", "kA", 200, 2, 1)
call("cuda_runtime", "cudaLaunchKernel", 300, 50, 2); gpu("kernel", "kA", 400, 2, 2)
call("cuda_driver", "cuLaunchKernelEx", 500, 5, 3); gpu("kernel", "kA", 510, 2, 3)
call("cuda_driver", "cuLaunchKernelEx", 600, 5, 4); gpu("kernel", "kEx", 610, 2, 4)
call("cuda_runtime", "cudaMemsetAsync", 700.4, 3.2, 5); gpu("gpu_memset", "Memset (Device)", 710.5, 1.0, 5)
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
PY
E=$TMP/edges.trace.json
python3 tests/cli/hta_oracle.py launch "$E" | sort >"$TMP/e.want"
launch_got "$E" >"$TMP/e.got"
same "edges: launch statistics as HTA's rules give" "$(cat "$TMP/e.want")" "$(cat "$TMP/e.got")"
same "edges: kA: 2 launches (not the cuLaunchKernelEx one), 1 short (the 50 us call, not the 60 us), 1 call over 50 us" \
    "2 1 1" "$(awk -F'|' '$1 == "kA" { split($2, v, ","); print v[1] + 0, v[8] + 0, v[10] + 0 }' "$TMP/e.got")"
check "edges: kEx, launched only by cuLaunchKernelEx, has no row" sh -c "! grep -q '^kEx|' '$TMP/e.got'"
# the memset: call 701..703 us (700.4 up, 703.6 down), memset 711..711: delay 711 - 701 + 2
same "edges: the memset is in, on HTA's whole-us events (call 2 us, delay 12 us, short)" \
    "1 12000 2000 1" "$(awk -F'|' '$1 == "Memset (Device)" { split($2, v, ","); print v[1] + 0, v[2] + 0, v[5] + 0, v[8] + 0 }' "$TMP/e.got")"
