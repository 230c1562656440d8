#!/bin/sh
# test_device_state.sh - device-state logs beside a trace (doc/formats.md "Device-state
# logs"): the real nvidia-smi --query-gpu CSV and dmon log of pytorch-h100-smi-contention,
# every sample and its time on the Kineto trace's clock against tests/cli/smi_oracle.py over
# the raw files; the time zone the local timestamps are read in; the --view device summary;
# each written rocm-smi / hy-smi / amd-smi / dmon sample of tests/data/device-state parsed to
# the values written in it; alignment and its absence; bad and cut logs named by file and
# line while the rest of the folder loads.
. tests/cli/lib.sh
R=$REAL/pytorch-h100-smi-contention
S=tests/data/device-state

# the export projected as the oracle prints a sample: file, line, device, wall, ts, values
project() { # $1: the export CSV, $2: the id,name CSV of source_file
    python3 - "$1" "$2" <<'EOF'
import csv, sys
names = {r["id"]: r["name"] for r in csv.DictReader(open(sys.argv[2]))}
keys = ["line", "device", "wall_ns", "ts_ns", "sm_clock_mhz", "mem_clock_mhz",
        "max_sm_clock_mhz", "util_pct", "mem_util_pct", "mem_used_bytes", "mem_total_bytes",
        "power_w", "temp_c", "throttle", "device_name", "driver"]
rows = [[names[r["file_id"]]] + [r[k] for k in keys] for r in csv.DictReader(open(sys.argv[1]))]
for r in sorted(rows, key=lambda r: (r[0], int(r[1]))):
    print(",".join(r))
EOF
}

samples() { # $1: TZ, $2: the zone's seconds east of UTC
    TZ=$1 "$DCUTOP" -q --export device-state -o "$TMP/dev.csv" --force "$R" &&
        "$DCUTOP" -q --sql "SELECT id, name FROM source_file" --format csv "$R" >"$TMP/ids.csv" &&
        project "$TMP/dev.csv" "$TMP/ids.csv" >"$TMP/got.txt" &&
        python3 tests/cli/smi_oracle.py samples "$R" "$2" >"$TMP/want.txt"
}

samples UTC 0
n=$(wc -l <"$TMP/want.txt")
check "real smi.csv and dmon.txt: every sample's values and trace time as the oracle reads them ($n)" \
    cmp -s "$TMP/want.txt" "$TMP/got.txt"
[ "$n" -eq 247 ] && ok "223 smi.csv samples and 24 dmon samples" || notok "samples: $n, expected 247"
diff "$TMP/want.txt" "$TMP/got.txt" | head -4 | sed 's/^/#   /'

# nvidia-smi writes local time: read in another zone (TZ=UTC-8 is 8 h east), every wall and
# trace time moves by 8 h
samples UTC-8 28800
check "local timestamps read in TZ (UTC-8: 8 h earlier on the trace's clock)" \
    cmp -s "$TMP/want.txt" "$TMP/got.txt"
check "... and the log says which zone it read them in" sh -c \
    "TZ=UTC-8 '$DCUTOP' -q --sql \"SELECT clock FROM device_log\" '$R' | grep -q 'TZ=UTC-8'"

# the summary of --view device against the oracle's
TZ=UTC "$DCUTOP" -q --report --view device --format csv "$R" >"$TMP/sum.csv"
python3 - "$TMP/sum.csv" >"$TMP/sum_got.txt" <<'EOF'
import csv, sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("#") and l.strip()]
for r in csv.DictReader(lines):
    print(",".join([r["file"], r["samples"], r["sm_min_mhz"], r["sm_median_mhz"], r["sm_max_mhz"],
                    r["below_max_pct"], r["util_mean_pct"], r["util_max_pct"],
                    r["mem_used_max_bytes"], r["power_mean_w"], r["power_max_w"], r["temp_max_c"],
                    r["throttle"]]))
EOF
python3 tests/cli/smi_oracle.py summary "$R" >"$TMP/sum_want.txt"
check "--view device: clocks min/median/max, share below max, utilisation, memory, power, temperature, throttle reasons per log" \
    cmp -s "$TMP/sum_want.txt" "$TMP/sum_got.txt"
diff "$TMP/sum_want.txt" "$TMP/sum_got.txt" | head -4 | sed 's/^/#   /'
check "... smi.csv: SM clock below the device's 1980 MHz in 20.18% of samples, sw_power_cap in 22" \
    grep -q '^smi.csv,223,345.000000,1980.000000,1980.000000,20.179372,.*sw_power_cap (22)' "$TMP/sum_got.txt"
TZ=UTC "$DCUTOP" -q --report --view device --width 200 "$R" >"$TMP/sum.txt"
check "--view device text: both logs aligned to the Kineto trace" sh -c \
    "grep -q 'smi.csv device 0 (nvidia-smi): throttle reasons: gpu_idle (23), sw_power_cap (22); times: local time (TZ=UTC, UTC); aligned to gpt_contention.trace.json.gz' '$TMP/sum.txt' &&
     grep -q 'dmon.txt device 0 (nvidia-smi dmon).*aligned to gpt_contention' '$TMP/sum.txt'"
TZ=UTC "$DCUTOP" -q --report --view device --format json "$R" >"$TMP/sum.json"
check "--view device json: one device member per log" python3 -c "
import json, sys
d = json.load(open('$TMP/sum.json'))['device']
sys.exit(not (len(d) == 2 and d[1]['file'] == 'smi.csv' and d[1]['samples'] == 223))"

# ---- the written samples: the values written in them -------------------------------------
# file|tool|expected rows: line device wall_s sm memclk maxsm util memutil used total power temp throttle
expect() {
    f=$1
    tool=$2
    shift 2
    TZ=UTC "$DCUTOP" -q --export device-state -o "$TMP/one.csv" --force "$S/$f" 2>"$TMP/one.err"
    got=$(python3 - "$TMP/one.csv" <<'EOF'
import csv, sys
def n(x):
    return "-" if x == "" else ("%g" % float(x))
for r in csv.DictReader(open(sys.argv[1])):
    w = r["wall_ns"]
    print(" ".join([r["line"], r["device"], "-" if w == "" else str(int(w) // 10**9)] +
                   [n(r[k]) for k in ("sm_clock_mhz", "mem_clock_mhz", "max_sm_clock_mhz",
                                      "util_pct", "mem_util_pct", "mem_used_bytes",
                                      "mem_total_bytes", "power_w", "temp_c")] +
                   [r["throttle"] or "-"]))
EOF
)
    if [ "$1" = - ]; then
        want=$(cat "$TMP/dmon_want.txt")
    else
        want=$(printf '%s\n' "$@")
    fi
    same "$f: every sample as written" "$want" "$got"
    same "$f: read as $tool" "$tool" \
        "$(TZ=UTC "$DCUTOP" -q --sql "SELECT tool FROM device_log" --format csv "$S/$f" | tail -1 | tr -d '"')"
}
# `date`: Mon Dec  7 19:46:58 UTC 2026 = 1796672818
expect rocm-smi-loop.txt rocm-smi \
    "6 0 1796672818 2100 1300 - 4 1 - - 134 - -" \
    "8 1 1796672818 131 1300 - 0 0 - - 131 - -" \
    "36 0 1796672819 1700 1300 - 97 35 - - 742 - -" \
    "37 1 1796672819 131 1300 - 0 0 - - 131 - -"
expect rocm-smi-loop.json rocm-smi \
    "2 0 1796672820 1700 1300 - 97 35 9.51919e+09 2.06142e+11 742 71 -" \
    "2 1 1796672820 131 1300 - 0 0 2.97431e+08 2.06142e+11 131 38 -" \
    "4 0 1796672821 2100 1300 - 4 1 2.96957e+09 2.06142e+11 210 60 -" \
    "4 1 1796672821 131 1300 - 0 0 2.97431e+08 2.06142e+11 131 38 -"
expect rocm-smi-loop.csv rocm-smi \
    "3 0 1796672820 1700 1300 - 97 35 9.51919e+09 2.06142e+11 742 71 -" \
    "4 1 1796672820 131 1300 - 0 0 2.97431e+08 2.06142e+11 131 38 -" \
    "7 0 1796672821 2100 1300 - 4 1 2.96957e+09 2.06142e+11 210 60 -" \
    "8 1 1796672821 131 1300 - 0 0 2.97431e+08 2.06142e+11 131 38 -"
# hy-smi: MiB keys (12058 MiB = 12643729408 B), `date '+%F %T'` (local: TZ=UTC)
expect hy-smi-loop.txt hy-smi \
    "4 0 1796672820 1600 - - 88.5 72 1.26437e+10 6.87027e+10 412 62 -" \
    "16 0 1796672821 800 - - 0 0 3.14573e+06 6.87027e+10 92 48 -"
expect hy-smi-loop.json hy-smi \
    "2 0 1796672820 1500 - - 27.5 31 2.14748e+10 6.87027e+10 301 55 -" \
    "2 1 1796672820 800 - - 0 0 3.14573e+06 6.87027e+10 90 41 -"
expect hy-smi-loop.csv hy-smi \
    "3 0 1796672820 - - - 27.5 31 2.14748e+10 6.87027e+10 301 55 -" \
    "4 1 1796672820 - - - 0 0 3.14573e+06 6.87027e+10 90 41 -"
# amd-smi: VRAM in MB (9078 MB = 9518972928 B), hotspot before edge, THROTTLED said
expect amd-smi-metric.csv amd-smi \
    "2 0 1796672820 1702 1300 2100 95 80 9.51897e+09 2.06142e+11 742 71 throttled" \
    "3 1 1796672820 131 1300 2100 0 0 2.96747e+08 2.06142e+11 131 38 -" \
    "4 0 1796672821 2100 1300 2100 4 1 2.96957e+09 2.06142e+11 210 60 -" \
    "5 1 1796672821 131 1300 2100 0 0 2.96747e+08 2.06142e+11 131 38 -"
expect amd-smi-metric-loop.json amd-smi \
    "2 0 1796672820 1702 1300 2100 95 80 9.51897e+09 2.06142e+11 742 71 throttled" \
    "2 1 1796672820 131 1300 2100 0 0 2.96747e+08 2.06142e+11 131 38 -" \
    "175 0 1796672821 2100 1300 2100 4 1 2.96957e+09 2.06142e+11 210 60 -"
# dmon without -o DT: no time of its own (the rows from the file's own columns: gpu pwr
# gtemp mtemp sm mem enc dec jpg ofa mclk pclk fb ...)
awk '!/^#/ {printf "%d %s - %g %g - %g %g %g - %g %g -\n", NR, $1, $12, $11, $5, $6, $13 * 1048576, $2, $3}' \
    $S/nvidia-dmon-plain.txt >"$TMP/dmon_want.txt"
expect nvidia-dmon-plain.txt "nvidia-smi dmon" -
same "nvidia-dmon-plain.txt: 24 samples, none placed in time" "24 0" \
    "$("$DCUTOP" -q --sql "SELECT count(*) || ' ' || count(wall_ns) FROM device_sample" --format csv $S/nvidia-dmon-plain.txt | tail -1 | tr -d '"')"

# nvidia-smi with nounits, an index column, two GPUs, the one-reason throttle fields, the
# header again after a rerun (another field order), a `date` line between (ignored: the
# lines carry their own time)
mkdir "$TMP/nv"
cat >"$TMP/nv/q.csv" <<'EOF'
index, timestamp, clocks.sm [MHz], memory.used [MiB], power.draw [W], clocks_event_reasons.sw_power_cap, clocks_event_reasons.hw_slowdown
0, 2026/12/07 19:46:48.100, 1410, 100, 300.50, Active, Not Active
1, 2026/12/07 19:46:48.100, 1980, 200, [N/A], Not Active, Not Active
Mon Dec  7 19:46:49 UTC 2026
timestamp, index, clocks.gr [MHz], memory.used [GiB]
2026/12/07 19:46:49.250, 1, 1755, 3
EOF
TZ=UTC "$DCUTOP" -q --sql "SELECT line || ' ' || device || ' ' || wall_ns || ' ' || sm_clock_mhz || ' ' || mem_used_bytes || ' ' || coalesce(power_w, '-') || ' ' || coalesce(throttle, 'NULL') FROM device_sample ORDER BY id" --format csv "$TMP/nv" | tr -d '"' | tail -n +2 >"$TMP/nv.txt"
same "nvidia-smi nounits, index, two GPUs, one-reason fields, a rerun's header" \
    "2 0 1796672808100000000 1410.0 104857600 300.5 sw_power_cap
3 1 1796672808100000000 1980.0 209715200 - 
6 1 1796672809250000000 1755.0 3221225472 - NULL" "$(cat "$TMP/nv.txt")"

# ---- alignment ----------------------------------------------------------------------------
"$DCUTOP" -q --sql "SELECT align FROM device_log" --format csv "$S/rocm-smi-loop.txt" >"$TMP/al.txt"
check "a log without a trace beside it: unaligned, and why" \
    grep -q 'unaligned: no trace with a wall-clock anchor' "$TMP/al.txt"
check "... no sample placed on a trace's clock" sh -c \
    "'$DCUTOP' -q --sql 'SELECT count(ts_ns) FROM device_sample' --format csv '$S/rocm-smi-loop.txt' | tail -1 | grep -qx 0"
mkdir "$TMP/al"
cp "$R/gpt_contention.trace.json.gz" "$S/rocm-smi-loop.json" "$TMP/al/"
base=$(python3 -c "import gzip, json; print(json.load(gzip.open('$R/gpt_contention.trace.json.gz', 'rt'))['baseTimeNanoseconds'])")
same "a rocm-smi log beside a Kineto trace: ts = wall - baseTimeNanoseconds for every sample" \
    "4 $((1796672820000000000 - base))" \
    "$("$DCUTOP" -q --sql "SELECT count(*) || ' ' || min(ts_ns) FROM device_sample WHERE ts_ns = wall_ns - $base" --format csv "$TMP/al" | tail -1 | tr -d '"')"
same "the trace's wall anchor is kept" "$base" \
    "$("$DCUTOP" -q --sql "SELECT base_ns FROM wall_anchor" --format csv "$TMP/al" | tail -1 | tr -d '"')"

# ---- bad and cut logs ----------------------------------------------------------------------
mkdir "$TMP/bad"
cp "$R/gpt_contention.trace.json.gz" "$TMP/bad/"
head -3 "$R/smi.csv" >"$TMP/bad/smi.csv"
sed -n 4p "$R/smi.csv" | sed 's/1980 MHz, 2619/abc MHz, 2619/' >>"$TMP/bad/smi.csv"
sed -n 5p "$R/smi.csv" | sed 's|2026/12/07|2026/13/07|' >>"$TMP/bad/smi.csv"
sed -n 6p "$R/smi.csv" | cut -c1-40 | tr -d '\n' >>"$TMP/bad/smi.csv"
printf 'Mon Dec  7 19:47:00 UTC 2026\n{"card0": {"GPU use (%%)": "97",\n' >"$TMP/bad/rocm.json"
printf 'GPU[0]\t\t: GPU use (%%): 12\nGPU[0\nGPU[0]\t\t: GPU use (%%): 120\n' >"$TMP/bad/rocm.txt"
head -8 "$R/dmon.txt" >"$TMP/bad/dmon.txt"
echo ' 20261207    19:46:55       0    125     36' >>"$TMP/bad/dmon.txt"
head -c 3000 "$S/amd-smi-metric-loop.json" >"$TMP/bad/amd.json"
gzip -c "$R/smi.csv" >"$TMP/cut.gz"
head -c $(($(wc -c <"$TMP/cut.gz") / 2)) "$TMP/cut.gz" >"$TMP/bad/smi2.csv.gz"
"$DCUTOP" -q --report --view files --width 300 "$TMP/bad" >"$TMP/bad.txt" 2>&1
for m in "smi.csv:4: clocks.current.sm: 'abc MHz' is not a number" \
    "smi.csv:5: timestamp: '2026/13/07 19:46:48.899' is not a date and time" \
    "smi.csv:6: expected 13 fields (the header at line 1), found 2" \
    "rocm.json:2: JSON document cut short" \
    "rocm.txt:2: a device line cut short" \
    "rocm.txt:3: GPU use (%): '120' is out of range" \
    "dmon.txt:9: expected 17 columns (the header at line 1), found 5" \
    "amd.json:2: JSON document cut short"; do
    check "bad log named by file and line: $m" grep -qF "bad/$m" "$TMP/bad.txt"
done
check "a gzip log cut short: said, with the samples before the cut kept" sh -c \
    "grep -q 'smi2.csv.gz:[0-9]*: read error after line [0-9]*: gzip data ends inside a member' '$TMP/bad.txt' && '$DCUTOP' -q --sql \"SELECT count(*) FROM device_sample d JOIN source_file f ON f.id = d.file_id WHERE f.name LIKE '%smi2%'\" --format csv '$TMP/bad' | tail -1 | grep -q '^[1-9]'"
check "... the trace and the good samples beside them still load" sh -c \
    "grep -q 'gpt_contention.trace.json.gz .*used' '$TMP/bad.txt' && grep -q 'smi.csv  *nvidia-smi --query-gpu CSV  *-  *2 ' '$TMP/bad.txt'"
exits "--strict: rejected device-state lines fail the load" 1 "$DCUTOP" -q --strict --report "$TMP/bad"
