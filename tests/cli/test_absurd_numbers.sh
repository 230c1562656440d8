#!/bin/sh
# test_absurd_numbers.sh - absurd numbers are data, not failures (issue 9 point 6). One stats
# row with Calls = 2^63-1 made every report exit 1 ("integer overflow" from SQLite sum());
# four kernels of TotalDurationNs = 2^63-1 were each shown at 100%; Calls far above the
# total made the average fall below MinNs. Such rows are now rejected at load with a message
# (counts, durations and byte counts above 2^53), sums go through total(), and a healthy
# folder loaded beside them reports the numbers awk computes from its files.
. tests/cli/lib.sh

HEALTHY=sample-traces/kokkos-rocprof-v1-hiptrace-rocm4
BAD=$TMP/bad
mkdir -p "$BAD/calls" "$BAD/shares" "$BAD/minmax"
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k_big",9223372036854775807,1000,0,50\n"k_two",3,600,200,30\n"k_three",2,400,200,20\n' \
    >"$BAD/calls/results.stats.csv"
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n' >"$BAD/shares/results.stats.csv"
for k in 1 2 3 4; do
    printf '"k_max%s",1,9223372036854775807,9223372036854775807,25\n' $k >>"$BAD/shares/results.stats.csv"
done
printf '"k_small1",1,300,300,0\n"k_small2",2,700,350,0\n' >>"$BAD/shares/results.stats.csv"
# rocprofv3 stats with MinNs/MaxNs: Calls 2^53 (in range) over a total of 1000 ns is an
# average of 0, below MinNs 500; the second row's average 10 is above MaxNs 8
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"\n' >"$BAD/minmax/x_kernel_stats.csv"
printf '"k_lowavg",9007199254740992,1000,0,10,500,600,0\n"k_highavg",2,20,10,10,5,8,0\n"k_fine",4,40,10,80,9,11,1\n' \
    >>"$BAD/minmax/x_kernel_stats.csv"
sums_before=$(cat "$BAD"/*/*.csv | cksum)

# expected device kernel time: the healthy stats file plus the sane rows, by awk
exp_ns=$(awk -F, 'FNR > 1 { t += $(NF-2) } END { printf "%.0f", t }' "$HEALTHY/results.stats.csv")
exp_ns=$((exp_ns + 600 + 400))

for fmt in text json csv; do
    exits "Calls = 2^63-1 beside a healthy folder: --report --format $fmt exits 0" 0 \
        "$DCUTOP" --report --format "$fmt" --run all "$HEALTHY" "$BAD/calls"
done
for v in hotspots categories api copies files; do
    exits "Calls = 2^63-1: --export $v exits 0" 0 "$DCUTOP" --export "$v" --run all "$HEALTHY" "$BAD/calls"
done
exits "Calls = 2^63-1: --report --view timeline exits 0" 0 "$DCUTOP" --report --view timeline --run all "$HEALTHY" "$BAD/calls"
exits "Calls = 2^63-1: --report --view stacks exits 0" 0 "$DCUTOP" --report --view stacks --run all "$HEALTHY" "$BAD/calls"
printf ':dump start\n' >"$TMP/dump.keys"
exits "Calls = 2^63-1: the headless view exits 0" 0 \
    "$DCUTOP" --headless --keys "$TMP/dump.keys" --size 100x30 --run all "$HEALTHY" "$BAD/calls"

"$DCUTOP" --report --format json --run all "$HEALTHY" "$BAD/calls" >"$TMP/r.json" 2>"$TMP/r.err"
same "Calls = 2^63-1: device kernel time is the healthy rows' sum (awk)" "$exp_ns" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["kernel_ns"])' "$TMP/r.json")"
check "Calls = 2^63-1: the row is rejected with file, line and reason" \
    grep -q "calls/results.stats.csv:2: column 2 (Calls): 9223372036854775807 is out of range (over 2^53)" "$TMP/r.err"

# shares: never four kernels at 100%; they add up to 100
"$DCUTOP" --export hotspots "$BAD/shares" >"$TMP/s.csv" 2>"$TMP/s.err"
same "TotalDurationNs = 2^63-1: only the sane kernels are shown" "k_small1 300|k_small2 700" \
    "$(awk -F, 'NR > 1 { gsub(/"/, "", $1); print $1, $5 }' "$TMP/s.csv" | sort | paste -sd'|')"
same "TotalDurationNs = 2^63-1: shares add up to 100" "100.00" \
    "$(awk -F, 'NR > 1 { s += $10 } END { printf "%.2f", s }' "$TMP/s.csv")"
same "TotalDurationNs = 2^63-1: 4 rows rejected" 4 "$(grep -c 'TotalDurationNs): 9223372036854775807 is out of range' "$TMP/s.err")"

# no average below its minimum (or above its maximum)
"$DCUTOP" --export hotspots "$BAD/minmax" >"$TMP/m.csv" 2>"$TMP/m.err"
same "MinNs/MaxNs: every average lies between min and max" "" \
    "$(awk -F, 'NR > 1 && $7 != "" && ($6 < $7 || $6 > $8) { print $1 }' "$TMP/m.csv")"
same "MinNs/MaxNs: only k_fine is kept" "\"k_fine\"" "$(awk -F, 'NR > 1 { print $1 }' "$TMP/m.csv")"
check "MinNs/MaxNs: average below MinNs is named" grep -q "x_kernel_stats.csv:2: average 0 ns (TotalDurationNs / Calls) is below MinNs 500" "$TMP/m.err"
check "MinNs/MaxNs: average above MaxNs is named" grep -q "x_kernel_stats.csv:3: average 10 ns (TotalDurationNs / Calls) is above MaxNs 8" "$TMP/m.err"

# per-event values: a dispatch longer than 2^53 ns is rejected; the others load
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k_long", "pid": 0, "tid": 1, "ts": 1, "dur": 9100000000000},\n{"ph": "X", "cat": "kernel", "name": "k_ok", "pid": 0, "tid": 1, "ts": 1, "dur": 5}]}\n' \
    >"$TMP/long.json"
"$DCUTOP" --export hotspots "$TMP/long.json" >"$TMP/l.csv" 2>"$TMP/l.err"
same "dur over 2^53 ns: only k_ok loads" "\"k_ok\"" "$(awk -F, 'NR > 1 { print $1 }' "$TMP/l.csv")"
check "dur over 2^53 ns: named" grep -q "event 1: duration 9100000000000000 ns is out of range" "$TMP/l.err"

same "inputs unchanged" "$sums_before" "$(cat "$BAD"/*/*.csv | cksum)"
