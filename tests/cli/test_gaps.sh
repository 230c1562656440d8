#!/bin/sh
# test_gaps.sh - GPU idle gaps bucketed by size (RAPTOR's buckets, --gap-buckets), against an
# awk oracle over the raw results.csv: per device, dispatches in start order, a gap measured
# from the latest end so far (any stream), plus the idle time before the device's first and
# after its last kernel in the run's span. The buckets add up to the device's idle time; on a
# multi-stream trace the idle total stays below the wall time while the per-stream launch gaps
# add up to more. "GPU idle" is a Categories row over wall time.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

# oracle CSV BOUNDS: "gpu<TAB>bucket index<TAB>gaps<TAB>total_ns" for every bucket, BOUNDS in ns
# (comma-separated upper bounds, inclusive), from a rocprof v1 results.csv (gpu-id, BeginNs, EndNs)
oracle() {
    awk -v B="$2" "$AWKCSV"'
        FNR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
        /^[ \t\r]*$/ { next }
        { csvsplit($0, f); print f[col["gpu-id"]] "\t" f[col["BeginNs"]] "\t" f[col["EndNs"]] }' "$1" |
    sort -t "$(printf '\t')" -k1,1n -k2,2n -k3,3n |
    awk -F'\t' -v B="$2" '
        function add(g, v,   i) { if (v <= 0) return; for (i = 1; i <= nb && v > b[i]; i++); c[g, i]++; t[g, i] += v }
        BEGIN { nb = split(B, b, ",") }
        { if (NR == 1 || $2 < first) first = $2; if (NR == 1 || $3 > last) last = $3
          g = $1; if (!(g in ce)) { gpus[++ng] = g; lead[g] = $2; ce[g] = $3; next }
          if ($2 > ce[g]) add(g, $2 - ce[g]); if ($3 > ce[g]) ce[g] = $3 }
        END { for (k = 1; k <= ng; k++) { g = gpus[k]; add(g, lead[g] - first); add(g, last - ce[g])
                for (i = 1; i <= nb + 1; i++) printf "%s\t%d\t%d\t%.0f\n", g, i, c[g, i], t[g, i] } }'
}
# section REPORT NAME: one table of a --report --format csv output, header and all
section() { tr -d '\r' <"$1" | sed -n "/^# $2\$/,/^\$/p" | sed '1d;/^$/d'; }
# actual REPORT: "gpu<TAB>bucket index<TAB>gaps<TAB>total_ns" from the idle_gaps table
actual() {
    section "$1" idle_gaps >"$TMP/ig.csv"
    csvq "$TMP/ig.csv" 'select gpu, row_number() over (partition by gpu order by rowid), gaps, total_ns from t'
}

W=sample-traces/dcu-weather-transformer
"$DCUTOP" -q --report --format csv --view timeline "$W" >"$TMP/w.csv"
check "weather: the report has an idle_gaps table" grep -q '^# idle_gaps' "$TMP/w.csv"
oracle "$W/results.csv" 10000,20000,50000,100000,1000000,10000000 >"$TMP/w.exp"
actual "$TMP/w.csv" >"$TMP/w.act"
same "weather: gaps and totals in RAPTOR's 7 buckets = awk over results.csv" \
    "$(cat "$TMP/w.exp")" "$(cat "$TMP/w.act")"
section "$TMP/w.csv" devices >"$TMP/wd.csv"
same "weather: the buckets add up to the device's idle time" \
    "$(csvq "$TMP/wd.csv" 'select idle_ns from t')" "$(awk -F'\t' '{ s += $4 } END { print s }' "$TMP/w.act")"
same "weather: bucket labels" "<= 10 us|10 us - 20 us|20 us - 50 us|50 us - 100 us|100 us - 1 ms|1 ms - 10 ms|> 10 ms" \
    "$(csvq "$TMP/ig.csv" 'select group_concat(bucket, "|") from t')"

# --gap-buckets: other bounds, same oracle
"$DCUTOP" -q --report --format csv --view timeline --gap-buckets 5us,1ms "$W" >"$TMP/w2.csv"
oracle "$W/results.csv" 5000,1000000 >"$TMP/w2.exp"
actual "$TMP/w2.csv" >"$TMP/w2.act"
same "weather --gap-buckets 5us,1ms: 3 buckets = awk" "$(cat "$TMP/w2.exp")" "$(cat "$TMP/w2.act")"
exits "--gap-buckets with a bound without a unit is a usage error" 2 "$DCUTOP" --gap-buckets 5us,1 "$W"
exits "--gap-buckets must increase" 2 "$DCUTOP" --gap-buckets 1ms,5us "$W"

# ---------------------------------------------------------------- two streams, two GPUs
# gpu 0: queue 0 [0,100us] [300,400us], queue 1 [50,250us] [500,612us] (overlapping streams)
# gpu 1: [100,105us] [120,130us]: idle before, between and after
mkdir -p "$TMP/ms"
{
    echo '"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","vgpr","sgpr","fbar","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"'
    i=0
    for row in "k_a 0 0 0 100000" "k_b 0 1 50000 250000" "k_a 0 0 300000 400000" "k_b 0 1 500000 612000" \
        "k_c 1 0 100000 105000" "k_c 1 0 120000 130000"; do
        set -- $row
        echo "$i,\"$1\",$2,$3,0,1,1,64,64,0,0,8,8,0,\"0x0\",\"0x0\",$4,$4,$5,$5,$(($5 - $4))"
        i=$((i + 1))
    done
} >"$TMP/ms/results.csv"
"$DCUTOP" -q --report --format csv --view timeline "$TMP/ms" >"$TMP/ms.csv"
oracle "$TMP/ms/results.csv" 10000,20000,50000,100000,1000000,10000000 >"$TMP/ms.exp"
actual "$TMP/ms.csv" >"$TMP/ms.act"
same "two streams: buckets per device = awk" "$(cat "$TMP/ms.exp")" "$(cat "$TMP/ms.act")"
# by hand: gpu 0 gaps 50 us (20-50) and 100 us (50-100); gpu 1: 100 us before, 15 us, 482 us after
same "two streams: per-device idle by hand" "0	150000
1	597000" "$(awk -F'\t' '{ s[$1] += $4 } END { for (g in s) print g "\t" s[g] }' "$TMP/ms.act" | sort)"
section "$TMP/ms.csv" devices >"$TMP/msd.csv"
same "two streams: the buckets add up to each device's idle time" \
    "$(csvq "$TMP/msd.csv" 'select gpu, idle_ns from t order by gpu')" \
    "$(awk -F'\t' '{ s[$1] += $4 } END { for (g in s) print g "\t" s[g] }' "$TMP/ms.act" | sort)"
section "$TMP/ms.csv" timeline >"$TMP/mso.csv"
same "two streams: 3 launch gaps, with no total (summed over streams, 450 us on gpu 0 + 15 us on gpu 1, they would exceed its idle time, 150 us)" \
    "3|" "$(csvq "$TMP/mso.csv" "select count || '|' || coalesce(ns, '') from t where metric = 'launch gaps'")"
"$DCUTOP" -q --report --view timeline "$TMP/ms" >"$TMP/ms.txt"
check "two streams: the text report says idle gaps total = GPU idle (747 us)" \
    grep -q 'GPU idle gaps (union per device): 5 gaps, total 747.0 us = GPU idle' "$TMP/ms.txt"

# ---------------------------------------------------------------- GPU idle in Categories (wall)
dexp wcat categories --amdahl-basis wall "$W" || notok "categories --amdahl-basis wall exits 0"
IDLE=$(csvq "$TMP/wd.csv" 'select idle_ns from t')
WALL=$(csvq "$TMP/wd.csv" 'select span_ns from t')
same "Categories over wall time: a GPU idle row holding the idle time" "$IDLE" \
    "$(csvq "$TMP/wcat.csv" "select total_ns from t where category = 'GPU idle'")"
near "Categories over wall time: GPU idle ceiling = 1/(1 - idle/wall)" \
    "$(awk -v i="$IDLE" -v w="$WALL" 'BEGIN { printf "%.6f", 1 / (1 - i / w) }')" \
    "$(csvq "$TMP/wcat.csv" "select ceiling from t where category = 'GPU idle'")" 0.000001
dexp kcat categories "$W" || notok "categories exits 0"
same "Categories over kernel time: no GPU idle row" "0" \
    "$(csvq "$TMP/kcat.csv" "select count(*) from t where category = 'GPU idle'")"
