#!/bin/sh
# test_health.sh - the health verdict at the head of the report (health.h): on the real
# recording with a second process loading the GPU, the window it names, the low clocks and
# the reason equal an independent script over smi.csv, the trace and second-process.json
# (health_oracle.py), and the window lies within one sample of the second process's own
# times; what must not be flagged is not: a trace without a device-state log says so once
# and nothing more, and a synthetic log of a healthy device (clocks at their maximum while
# busy and down only while idle, utilisation and memory the trace's own, health_synth.py)
# gives no verdict.
. tests/cli/lib.sh
D=$REAL/pytorch-h100-smi-contention
python3 tests/cli/health_oracle.py "$D" >"$TMP/oracle" || notok "the oracle runs"
o() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/oracle"; }
"$DCUTOP" --report --format json "$D" >"$TMP/c.json" 2>"$TMP/err"
python3 - "$TMP/c.json" >"$TMP/got" <<'PY' || notok "the JSON report has a health member"
import json, sys
h = json.load(open(sys.argv[1]))["health"]
print("state", h["state"])
print("log", h["log"])
w = [l for l in h["lines"] if l["kind"] == "other-process"]
print("windows", len(w))
print("window_start_ns", w[0]["start_ns"])
print("window_end_ns", w[0]["end_ns"])
print("window_edge_ns", w[0]["edge_ns"])
print("kinds", ",".join(l["kind"] for l in h["lines"]))
for l in h["lines"]:
    print("text_" + l["kind"], l["text"].replace(" ", "_"))
PY
g() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/got"; }
same "the log judged is smi.csv, not the coarser dmon.txt" "smi.csv" "$(g log)"
same "one window of another process" "1" "$(g windows)"
same "its start = half-way between the samples around the memory step (oracle)" \
    "$(o window_start_ns)" "$(g window_start_ns)"
same "its end = half-way between the samples around the memory step back (oracle)" \
    "$(o window_end_ns)" "$(g window_end_ns)"
same "its edges +- half the sample spacing there (oracle)" "$(o window_edge_ns)" "$(g window_edge_ns)"
near "the start within one edge of the second process's start (second-process.json)" \
    "$(g window_start_ns)" "$(o second_start_ns)" "$(g window_edge_ns)"
near "the end within one edge of the second process's end (second-process.json)" \
    "$(g window_end_ns)" "$(o second_end_ns)" "$(g window_edge_ns)"
same "verdicts: another process, low clock, throttle reason, power cap" \
    "other-process,low-clock,throttle,power-cap" "$(g kinds)"
check "the low clocks' range and maximum are the oracle's" \
    grep -q "_$(o low_clock_min)-$(o low_clock_max)_MHz_" "$TMP/got"
check "... below the maximum $(o max_clock) MHz" grep -q "maximum_($(o max_clock)_MHz)" "$TMP/got"
check "the throttle reason is the oracle's ($(o reasons))" grep -q "_$(o reasons)_" "$TMP/got"
check "the low clock's share of the busy time is the oracle's ($(o low_share_pct)%)" \
    grep -q "^text_low-clock .*_for_$(o low_share_pct)%_of_its_busy_time" "$TMP/got"
check "the clock reasons' share of the busy time is the oracle's ($(o throttle_share_pct)%)" \
    grep -q "^text_throttle clock_reasons_active_for_$(o throttle_share_pct)%_of" "$TMP/got"
excess=$(awk -v b="$(o window_excess_bytes)" 'BEGIN { printf "%.1f_GiB", b / 1073741824 }')
check "the memory beyond the trace's own is the oracle's ($excess)" grep -q "used_${excess}_above" "$TMP/got"
"$DCUTOP" --report --width 200 "$D" >"$TMP/c.txt" 2>&1
start=$(awk -v n="$(o window_start_ns)" 'BEGIN { printf "%.1f", n / 1e6 }')
end=$(awk -v n="$(o window_end_ns)" 'BEGIN { printf "%.1f", n / 1e6 }')
check "the text report names the window: from $start to $end ms" \
    grep -q "^Health: ! another process on GPU 0 from $start to $end ms" "$TMP/c.txt"
first=$(grep -n -m1 '^Health:' "$TMP/c.txt" | cut -d: -f1)
kern=$(grep -n -m1 '^Device kernel time' "$TMP/c.txt" | cut -d: -f1)
check "the verdict comes before the summary's figures" test "${first:-99999}" -lt "${kern:-0}"
"$DCUTOP" --report --format csv "$D" >"$TMP/c.csv" 2>&1
check "the CSV report has a health block with the window" \
    grep -q "^other-process,1,0,$(o window_start_ns),$(o window_end_ns)," "$TMP/c.csv"

# must not be flagged: no log at all
"$DCUTOP" --report --width 200 "$REAL/pytorch-h100-gpt-train" >"$TMP/g.txt" 2>&1
same "no device-state log: said once" "1" "$(grep -c 'no device-state log' "$TMP/g.txt")"
same "... and no verdict" "0" "$(grep -c '^Health: !' "$TMP/g.txt")"
"$DCUTOP" --report --format json "$REAL/pytorch-h100-gpt-train" >"$TMP/g.json" 2>&1
same "... JSON state no-log" "no-log" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["health"]["state"])' "$TMP/g.json")"

# must not be flagged: a healthy device whose clocks drop only while the trace is idle
mkdir -p "$TMP/synth"
cp "$D/gpt_contention.trace.json.gz" "$TMP/synth/"
python3 tests/cli/health_synth.py "$D" "$TMP/synth/smi.csv"
"$DCUTOP" --report --width 300 "$TMP/synth" >"$TMP/s.txt" 2>&1
same "a healthy synthetic log: no verdict" "0" "$(grep -c '^Health: !' "$TMP/s.txt")"
check "... one line saying it is healthy, from smi.csv" \
    grep -q "^Health: GPU 0 healthy over its busy time ([0-9]* samples of smi.csv, every 100 ms)" "$TMP/s.txt"
check "... its clocks at 345 MHz while idle do not count: at the maximum for 100.0% of the busy time" \
    grep -q "(1980 MHz) or more for 100.0% of it, no clock reason but idle, no other process seen" "$TMP/s.txt"
check "... the synthetic log does drop to 345 MHz while idle (gpu_idle)" \
    grep -q " 345 MHz, .*, 0x0000000000000001$" "$TMP/synth/smi.csv"
# the same log with the SM clock at 1200 MHz while busy: flagged
sed 's/, 1980 MHz, 2619 MHz, 1980 MHz,/, 1200 MHz, 2619 MHz, 1980 MHz,/' "$TMP/synth/smi.csv" >"$TMP/x" &&
    mv "$TMP/x" "$TMP/synth/smi.csv"
"$DCUTOP" --report --width 300 "$TMP/synth" >"$TMP/s2.txt" 2>&1
check "the same log at 1200 MHz while busy: a low clock for all the busy time" \
    grep -q "^Health: ! clock below GPU 0's maximum (1980 MHz) for 100% of its busy time: 1200-1200 MHz" "$TMP/s2.txt"

# --view trace: each op with the device's state at its start; the SM clock, utilisation and
# memory used of every op equal smi.csv's latest sample at or before it (independently)
"$DCUTOP" --report --view trace --format csv "$D" >"$TMP/t.csv" 2>&1
python3 - "$D" "$TMP/t.csv" >"$TMP/t.out" <<'PY'
import bisect, calendar, csv, datetime, gzip, json, sys
d, f = sys.argv[1], sys.argv[2]
base = json.load(gzip.open(d + "/gpt_contention.trace.json.gz", "rt"))["baseTimeNanoseconds"]
rows = list(csv.reader(open(d + "/smi.csv")))[1:]
def t_of(s):
    t = datetime.datetime.strptime(s.strip(), "%Y/%m/%d %H:%M:%S.%f")
    return calendar.timegm(t.timetuple()) * 10**9 + t.microsecond * 1000 - base
ts = [t_of(r[0]) for r in rows]
lines = [l for l in open(f, newline="").read().split("\r\n") if l and not l.startswith("#")]
ops = list(csv.DictReader(lines))
bad = n = 0
for o in ops:
    k = bisect.bisect_right(ts, int(o["abs_start_ns"])) - 1
    if k < 0:
        continue
    r = rows[k]
    want = (r[3].split()[0], r[6].split()[0], str(int(r[8].split()[0]) << 20))
    got = (o["sm_clock_mhz"], o["util_pct"], o["mem_used_bytes"])
    n += 1
    bad += want != got
inside = sum(1 for o in ops if o["sm_clock_mhz"] and int(o["sm_clock_mhz"]) < 1900)
print(n, bad, inside)
PY
read -r nops nbad ninside <"$TMP/t.out"
check "--view trace gives the device's state at $nops ops" test "${nops:-0}" -gt 11000
same "... each equal to smi.csv's latest sample before the op" "0" "$nbad"
check "... the ops inside the load at a low SM clock ($ninside)" test "${ninside:-0}" -gt 1000

# a log beside a trace without a wall-clock anchor: not judged, and said why
mkdir -p "$TMP/unaligned"
cp sample-traces/dcu-weather-transformer/results.csv "$D/smi.csv" "$TMP/unaligned/"
"$DCUTOP" --report --width 300 "$TMP/unaligned" >"$TMP/u.txt" 2>&1
n=$(python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))) - 1)' "$D/smi.csv")
check "a log off the trace's clock: not judged, with its $n samples and the reason" \
    grep -q "^Health: smi.csv ($n samples) is not on the trace's clock (unaligned: .*): not judged" "$TMP/u.txt"
same "... and no verdict" "0" "$(grep -c '^Health: !' "$TMP/u.txt")"

# a log of another GPU (less memory used than this trace alone reserved): said, not judged
mkdir -p "$TMP/other"
cp "$D/gpt_contention.trace.json.gz" "$TMP/other/"
python3 tests/cli/health_synth.py "$D" "$TMP/other/x.csv"
python3 - "$TMP/other/x.csv" "$TMP/other/smi.csv" <<'PY'
import re, sys
out = open(sys.argv[2], "w")
for i, l in enumerate(open(sys.argv[1])):
    out.write(l if i == 0 else re.sub(r", \d+ MiB, 81559 MiB,", ", 100 MiB, 81559 MiB,", l))
PY
rm "$TMP/other/x.csv"
"$DCUTOP" --report --width 300 "$TMP/other" >"$TMP/o.txt" 2>&1
check "a log of another device: 'not the device the trace ran on'" \
    grep -q "^Health: ! GPU 0: device 0 of smi.csv used less memory than this trace alone reserved .*not the device the trace ran on" "$TMP/o.txt"
same "... and no other verdict" "1" "$(grep -c '^Health:' "$TMP/o.txt")"

# held out: the A-B-B-A recording with an nvidia-smi log per run, whose clocks sit at 405 MHz
# (reason gpu_idle) before and after each run and at 1980 MHz while it trains: every run is
# healthy, its clock at the maximum for all its busy time; the traces (36-62 ms) are shorter
# than the 100 ms spacing, so no sample falls inside them and another process is not judged
N=$REAL/pytorch-h100-abba-numerics
for r in A1 B1 B2 A2; do
    "$DCUTOP" --report --width 400 "$N/$r" >"$TMP/n.txt" 2>&1
    want=$(python3 - "$N/$r" <<'PY'
import calendar, csv, datetime, glob, gzip, json, sys
d = sys.argv[1]
tr = json.load(gzip.open(glob.glob(d + "/*.trace.json.gz")[0], "rt"))
ns = lambda u: int(round(float(u) * 1000))
k = [e for e in tr["traceEvents"] if e.get("cat") == "kernel"]
a, b = min(ns(e["ts"]) for e in k), max(ns(e["ts"]) + ns(e["dur"]) for e in k)
rows = list(csv.reader(open(d + "/smi.csv")))[1:]
def t(q):
    x = datetime.datetime.strptime(q[0].strip(), "%Y/%m/%d %H:%M:%S.%f")
    return calendar.timegm(x.timetuple()) * 10**9 + x.microsecond * 1000 - tr["baseTimeNanoseconds"]
ts = [t(q) for q in rows]
near = [i for i in range(1, len(rows) - 1)
        if (ts[i - 1] + ts[i]) // 2 < b and (ts[i] + ts[i + 1]) // 2 > a]
idle = sum(1 for q in rows if q[3].strip() != q[5].strip() and q[12].strip().endswith("1"))
at_max = all(rows[i][3].strip() == rows[i][5].strip() for i in near)
print("%d %d %d" % (len(near), at_max, idle))
PY
)
    set -- $want
    check "$r: $1 samples around the trace all at the maximum clock, $3 below it while idle (oracle)" \
        test "${1:-0}" -ge 1 -a "${2:-0}" = 1 -a "${3:-0}" -ge 1
    check "$r: healthy, clock at the maximum for 100.0% of the busy time" \
        grep -q "^Health: GPU 0 healthy over its busy time ($1 samples\{0,1\} of smi.csv, every 10[0-9] ms): clock at 95% of its maximum (1980 MHz) or more for 100.0% of it" "$TMP/n.txt"
    same "$r: no verdict" "0" "$(grep -c '^Health: !' "$TMP/n.txt")"
done

# a region of interest inside the second process's load: judged over the whole trace all the
# same (inside the load there is no edge to see), and said so
"$DCUTOP" --report --width 300 --roi 1000ms..2000ms "$D" >"$TMP/r.txt" 2>&1
check "with a region inside the load: 'judged over the whole trace'" \
    grep -q "^Health: judged over the whole trace, not only the region of interest" "$TMP/r.txt"
check "... and the same window as without it" \
    grep -q "^Health: ! another process on GPU 0 from $start to $end ms" "$TMP/r.txt"

# the 1 s dmon log alone, whose times are whole seconds: each sample half a second later and
# that half second in the error; the window still holds the second process's
mkdir -p "$TMP/dmon"
cp "$D/gpt_contention.trace.json.gz" "$D/dmon.txt" "$TMP/dmon/"
"$DCUTOP" --report --format json "$TMP/dmon" >"$TMP/d.json" 2>&1
python3 - "$TMP/d.json" >"$TMP/d.out" <<'PY'
import json, sys
w = [l for l in json.load(open(sys.argv[1]))["health"]["lines"] if l["kind"] == "other-process"]
print(len(w), w[0]["start_ns"], w[0]["end_ns"], w[0]["edge_ns"])
PY
read -r dn d0 d1 de <"$TMP/d.out"
same "dmon.txt alone: one window" "1" "$dn"
same "... +- 1 s (half its spacing and half its whole second)" "1000000000" "$de"
near "... its start within that of the second process's start" "$d0" "$(o second_start_ns)" "$de"
near "... its end within that of the second process's end" "$d1" "$(o second_end_ns)" "$de"

# the trace's own allocation 20 ms after a sample that already shows it (the sample read a
# little late, or the clocks differ by a few ms): its own memory, not another process
mkdir -p "$TMP/skew"
(cd "$TMP/skew" && python3 - <<'PY'
import datetime, json
base, t0 = 1796672800000000000, 5000000000.0  # epoch ns of ts 0; first kernel (us)
ev = [{"ph": "X", "cat": "kernel", "name": "k%d" % (i % 3), "pid": 0, "tid": 7,
       "ts": t0 + i * 100000 + 20000, "dur": 5000,
       "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(30)]
def mem(ts, res, b):
    ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 5,
               "tid": 5, "ts": ts, "args": {"Total Reserved": res, "Total Allocated": res // 2,
               "Bytes": b, "Device Id": 0, "Device Type": 1, "Addr": 1234}})
mem(t0 + 1000, 1 << 30, 1 << 20)
mem(t0 + 1520000, 3 << 30, 2 << 30)  # 2 GiB more, 20 ms after the sample at 1.5 s
json.dump({"traceEvents": ev, "baseTimeNanoseconds": base}, open("t.trace.json", "w"))
with open("smi.csv", "w") as f:
    f.write("timestamp, name, driver_version, clocks.current.sm [MHz], clocks.current.memory [MHz], "
            "clocks.max.sm [MHz], utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
            "memory.total [MiB], power.draw [W], temperature.gpu, clocks_event_reasons.active\n")
    for i in range(-5, 36):
        t = int(t0 * 1000) + i * 100000000
        own = 3072 if i >= 15 else 1024  # the 1.5 s sample already sees the allocation
        w = datetime.datetime.fromtimestamp((t + base) / 1e9, datetime.timezone.utc)
        f.write("%s.%03d, NVIDIA H100 80GB HBM3, 580.159.04, 1980 MHz, 2619 MHz, 1980 MHz, 5 %%, "
                "1 %%, %d MiB, 81559 MiB, 130.00 W, 40, 0x0000000000000000\n"
                % (w.strftime("%Y/%m/%d %H:%M:%S"), w.microsecond // 1000, 2000 + own))
PY
)
"$DCUTOP" --report --width 300 "$TMP/skew" >"$TMP/k.txt" 2>&1
check "the trace's own allocation 20 ms after a sample that shows it: healthy" \
    grep -q "^Health: GPU 0 healthy over its busy time" "$TMP/k.txt"
same "... no verdict" "0" "$(grep -c '^Health: !' "$TMP/k.txt")"
