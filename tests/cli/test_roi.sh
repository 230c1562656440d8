#!/bin/sh
# test_roi.sh - the region of interest (--roi, --roi-from/--roi-to) on the bundled per-dispatch
# samples, against awk over the raw results.csv (a dispatch is in the ROI when it starts inside
# the window, both ends included; times from the first dispatch, '-' from the last end) and
# the sqlite3 CLI over the RPD file: time window, from the end, regex, auto-top, trim,
# iteration, steady state; every view follows (hotspots, categories, timeline, trace, API,
# copies); aggregated stats stay whole and the ROI says so.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

W=sample-traces/dcu-weather-transformer
# "begin<TAB>end<TAB>normalised name" of every dispatch
awk "$AWKCSV"'FNR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    { csvsplit($0, f); print f[col["BeginNs"]] "\t" f[col["EndNs"]] "\t" norm(f[col["KernelName"]]) }' \
    "$W/results.csv" >"$TMP/d.tsv"
ORIGIN=$(awk -F'\t' 'NR == 1 || $1 < m { m = $1 } END { printf "%.0f", m }' "$TMP/d.tsv")
LAST=$(awk -F'\t' 'NR == 1 || $2 > m { m = $2 } END { printf "%.0f", m }' "$TMP/d.tsv")
# window LO HI: "count<TAB>sum of durations" of the dispatches starting in [LO, HI] (absolute)
window() {
    awk -F'\t' -v lo="$1" -v hi="$2" '$1 >= lo && $1 <= hi { n++; s += $2 - $1 }
        END { printf "%d\t%.0f\n", n, s }' "$TMP/d.tsv"
}
# per_kernel LO HI: "name<TAB>calls<TAB>total" in the window, sorted
per_kernel() {
    awk -F'\t' -v lo="$1" -v hi="$2" '$1 >= lo && $1 <= hi { c[$3]++; t[$3] += $2 - $1 }
        END { for (k in c) printf "%s\t%d\t%.0f\n", k, c[k], t[k] }' "$TMP/d.tsv" | LC_ALL=C sort
}
# got NAME ARGS...: "count<TAB>total" of dcutop's hotspots export with ARGS
got() {
    _n=$1
    shift
    dexp "$_n" hotspots "$@" || notok "$_n: --export hotspots exits 0"
    csvq "$TMP/$_n.csv" 'select sum(calls), sum(cast(total_ns as integer)) from t'
}

# ---------------------------------------------------------------- time windows
same "--roi 100ms..200ms: dispatches and kernel time = awk" \
    "$(window $((ORIGIN + 100000000)) $((ORIGIN + 200000000)))" "$(got w1 --roi 100ms..200ms "$W")"
csvq "$TMP/w1.csv" 'select name, calls, total_ns from t' | LC_ALL=C sort >"$TMP/w1.act"
per_kernel $((ORIGIN + 100000000)) $((ORIGIN + 200000000)) >"$TMP/w1.exp"
same "--roi 100ms..200ms: per kernel calls and totals = awk" "$(cat "$TMP/w1.exp")" "$(cat "$TMP/w1.act")"
same "--roi 0.1s..200000us: units" "$(got w1 --roi 100ms..200ms "$W")" "$(got w2 --roi 0.1s..200000us "$W")"
same "--roi -100ms..: the last 100 ms (from the last dispatch end) = awk" \
    "$(window $((LAST - 100000000)) "$LAST")" "$(got w3 --roi -100ms.. "$W")"
same "--roi ..50ms: open start = awk" "$(window "$ORIGIN" $((ORIGIN + 50000000)))" \
    "$(got w4 --roi ..50ms "$W")"

# ---------------------------------------------------------------- regex, auto-top, trim
LO=$(awk -F'\t' '$3 ~ /layer_norm/ && (!n++ || $1 < m) { m = $1 } END { printf "%.0f", m }' "$TMP/d.tsv")
HI=$(awk -F'\t' '$3 ~ /SoftMax/ && (!n++ || $2 > m) { m = $2 } END { printf "%.0f", m }' "$TMP/d.tsv")
same "--roi-from layer_norm --roi-to SoftMax = awk" "$(window "$LO" "$HI")" \
    "$(got r1 --roi-from layer_norm --roi-to SoftMax "$W")"
same "--roi-from alone runs to the end" "$(window "$LO" "$LAST")" "$(got r2 --roi-from layer_norm "$W")"
TOP=$(awk -F'\t' '{ t[$3] += $2 - $1 } END { for (k in t) printf "%.0f\t%s\n", t[k], k }' "$TMP/d.tsv" |
    sort -t "$(printf '\t')" -k1,1nr | head -1 | cut -f2)
LO=$(awk -F'\t' -v k="$TOP" '$3 == k && (!n++ || $1 < m) { m = $1 } END { printf "%.0f", m }' "$TMP/d.tsv")
HI=$(awk -F'\t' -v k="$TOP" '$3 == k && (!n++ || $2 > m) { m = $2 } END { printf "%.0f", m }' "$TMP/d.tsv")
same "--roi auto-top: first to last dispatch of the hottest kernel = awk" "$(window "$LO" "$HI")" \
    "$(got a1 --roi auto-top "$W")"
same "--roi trim: every dispatch stays" "$(window "$ORIGIN" "$LAST")" "$(got t1 --roi trim "$W")"

# ---------------------------------------------------------------- iterations
"$DCUTOP" -q --report --format csv --view timeline "$W" | tr -d '\r' |
    sed -n '/^# iterations$/,/^$/p' | sed '1d;/^$/d' >"$TMP/it.csv"
S2=$(csvq "$TMP/it.csv" 'select start_ns from t where iteration = 2')
S3=$(csvq "$TMP/it.csv" 'select start_ns from t where iteration = 3')
same "--roi iteration:2 = the iteration's dispatches and kernel time (timeline)" \
    "$(csvq "$TMP/it.csv" 'select dispatches, kernel_ns from t where iteration = 2')" \
    "$(got i2 --roi iteration:2 "$W")"
same "--roi iteration:2 = awk over its window" "$(window $((ORIGIN + S2)) $((ORIGIN + S3 - 1)))" \
    "$(got i2b --roi iteration:2 "$W")"
same "--roi steady: without the first iteration = the steady iterations (timeline)" \
    "$(csvq "$TMP/it.csv" "select sum(dispatches), sum(kernel_ns) from t where phase = 'steady'")" \
    "$(got st --roi steady "$W")"
same "--roi steady = awk from the second iteration on" "$(window $((ORIGIN + S2)) "$LAST")" \
    "$(got st2 --roi steady "$W")"

# ---------------------------------------------------------------- every view follows
dexp c1 categories --roi 100ms..200ms "$W"
same "ROI: categories add up to the hotspots in the ROI" \
    "$(csvq "$TMP/w1.csv" 'select sum(total_ns) from t')" \
    "$(csvq "$TMP/c1.csv" "select sum(total_ns) from t where \"group\" <> 'group'")"
"$DCUTOP" -q --report --format csv --view timeline --roi 100ms..200ms "$W" | tr -d '\r' |
    sed -n '/^# timeline$/,/^$/p' | sed '1d;/^$/d' >"$TMP/tl.csv"
same "ROI: the timeline's dispatches and kernel time" "$(window $((ORIGIN + 100000000)) $((ORIGIN + 200000000)))" \
    "$(csvq "$TMP/tl.csv" "select count, ns from t where metric = 'kernel time'")"
"$DCUTOP" -q --report --format csv --view trace --roi 100ms..200ms "$W" | tr -d '\r' |
    sed -n '/^# trace$/,/^$/p' | sed '1,2d;/^$/d' >"$TMP/tr.csv"
same "ROI: the trace lists the ROI's dispatches, times still from the trace's start" \
    "$(awk -F'\t' -v lo=$((ORIGIN + 100000000)) -v hi=$((ORIGIN + 200000000)) -v o="$ORIGIN" \
        '$1 >= lo && $1 <= hi { print $1 - o }' "$TMP/d.tsv" | sort -n | head -3)" \
    "$(csvq "$TMP/tr.csv" 'select start_ns from t limit 3')"
"$DCUTOP" -q --report --roi 100ms..200ms "$W" >"$TMP/rep.txt"
check "ROI: the text report names it and says stats are not cut" \
    grep -q '^Region of interest: ROI 100.000 ms..200.000 ms (aggregated stats not cut)$' "$TMP/rep.txt"
"$DCUTOP" -q --report --format json --view hotspots --roi-from 'layer_norm|"\\' "$W" >"$TMP/rep.json"
check "ROI: the JSON report names it (pattern escaped)" \
    grep -qF '"roi": "ROI /layer_norm|\"\\\\/../$/ (aggregated stats not cut)"' "$TMP/rep.json"
if [ -x /usr/bin/python3 ]; then
    check "ROI: the JSON report is valid JSON" /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/rep.json"
fi
dexp api0 api "$W"
dexp api1 api --roi 100ms..200ms "$W"
same "ROI: aggregated API stats (weather.hiptrace.csv) stay whole" "$(cat "$TMP/api0.csv")" \
    "$(cat "$TMP/api1.csv")"

# ---------------------------------------------------------------- RPD: API calls and copies are cut
R=$REAL/rpd-matmul/matmul_result.rpd
if [ -f "$R" ]; then
    sq() { sqlite3 -batch -init /dev/null -readonly "$1" '.mode tabs' "$2"; }
    KERN="SELECT o.start, o.\"end\" FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
          WHERE t.string IN ('KernelExecution', 'Task')"
    RLO=$(sq "$R" "SELECT min(start) FROM ($KERN)")
    RHI=$(sq "$R" "SELECT max(\"end\") FROM ($KERN)")
    dexp rapi api --roi trim "$R"
    same "rpd --roi trim: API calls starting between the first kernel start and the last end (sqlite3)" \
        "$(sq "$R" "SELECT count(*), sum(\"end\" - start) FROM rocpd_api a JOIN rocpd_string n
            ON n.id = a.apiName_id WHERE n.string <> 'UserMarker' AND start BETWEEN $RLO AND $RHI")" \
        "$(csvq "$TMP/rapi.csv" 'select sum(calls), sum(cast(total_ns as integer)) from t')"
    dexp rcp copies --roi trim "$R"
    same "rpd --roi trim: the copies in it (the two H2D copies before the first kernel are out)" \
        "$(sq "$R" "SELECT count(*), sum(o.\"end\" - o.start) FROM rocpd_op o
            JOIN rocpd_string t ON t.id = o.opType_id WHERE (t.string LIKE 'Copy%'
            OR t.string = 'FillBuffer') AND o.start BETWEEN $RLO AND $RHI")" \
        "$(csvq "$TMP/rcp.csv" 'select sum(calls), sum(cast(total_ns as integer)) from t')"
fi

# ---------------------------------------------------------------- errors
STATS=$TMP/stats
mkdir -p "$STATS"
cp sample-traces/llamacpp-rocprof-v1-stats/results.stats.csv "$STATS/"
exits "--roi on stats-only data: the report goes on (exit 0)" 0 "$DCUTOP" -q --export hotspots --roi 1ms..2ms "$STATS"
check "--roi on stats-only data: a message says the data cannot be cut" grep -q 'no per-dispatch timestamps (aggregated stats cannot be cut by time); the data is left whole' "$TMP/err"
same "--roi on stats-only data: left whole" "$("$DCUTOP" -q --export hotspots "$STATS")" "$(cat "$TMP/out")"
exits "--roi with a bad time is a usage error" 2 "$DCUTOP" --roi 10..20ms "$W"
exits "--roi with --roi-from is a usage error" 2 "$DCUTOP" --roi trim --roi-from x "$W"
exits "--roi-from with a bad pattern is a usage error" 2 "$DCUTOP" -q --report --roi-from '(' "$W"
exits "--roi-from matching no kernel: exit 1" 1 "$DCUTOP" -q --report --roi-from no_such_kernel_xyz "$W"
exits "--roi iteration:99: no such iteration, exit 1" 1 "$DCUTOP" -q --report --roi iteration:99 "$W"
