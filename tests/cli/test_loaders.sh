#!/bin/sh
# test_loaders.sh - every CSV loader, checked against numbers computed independently from the raw
# files (awk over the CSV; header-bound columns; right-anchored split for pre-5.3 rocprof stats).
# Compared to: dcutop --export hotspots|api|copies|files, --report --format json totals, --save-db.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg   # never the developer's own categories.rules
export XDG_CONFIG_HOME

WEATHER=sample-traces/dcu-weather-transformer
LLAMA=$(sample llamacpp-rocprof-v1-stats)
KOKKOS=$(sample kokkos-rocprof-v1-hiptrace-rocm4)
V3=$(sample rocprofv3-sdk-docs-csv)

# ---------------------------------------------------------------- expected-value builders (awk)
# Names that every loader must skip (FORMATS.md section 6.5).
SKIPRE='^(Total|Unknown command type|<barrier packet>)$'

# per_event KEYCOL STARTCOL ENDCOL FILE...: per-event rows (rocprof v1 results.csv, rocprofv3
# traces), columns bound by header name; key normalised (.kd stripped); duration = end - start.
# Prints "key<TAB>calls<TAB>total<TAB>min<TAB>max", sorted.
per_event() {
    _k=$1
    _s=$2
    _e=$3
    shift 3
    awk -v KC="$_k" -v SC="$_s" -v EC="$_e" "$AWKCSV"'
        FNR == 1 { n = csvsplit($0, h); split("", col); for (i = 1; i <= n; i++) col[h[i]] = i
                   if (!(KC in col) || !(SC in col) || !(EC in col)) { print "bad header in " FILENAME > "/dev/stderr"; exit 1 }
                   next }
        /^[ \t\r]*$/ { next }
        { csvsplit($0, f); k = norm(f[col[KC]]); d = bigsub(f[col[EC]], f[col[SC]])
          c[k]++; t[k] += d
          if (!(k in mn) || d < mn[k]) mn[k] = d
          if (!(k in mx) || d > mx[k]) mx[k] = d }
        END { for (k in c) printf "%s\t%d\t%.0f\t%.0f\t%.0f\n", k, c[k], t[k], mn[k], mx[k] }' "$@" | LC_ALL=C sort
}

# stats_quoted FILE: 5/8-column stats file with quoted names (rocprof >= 5.3, rocprofv3, hipprof):
# "key<TAB>calls<TAB>total", skip rows dropped, same key summed.
stats_quoted() {
    awk -v SKIP="$SKIPRE" "$AWKCSV"'
        FNR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
        /^[ \t\r]*$/ { next }
        { csvsplit($0, f); k = norm(f[col["Name"]]); if (k ~ SKIP) next
          c[k] += f[col["Calls"]]; t[k] += f[col["TotalDurationNs"]] }
        END { for (k in c) printf "%s\t%.0f\t%.0f\n", k, c[k], t[k] }' "$1" | LC_ALL=C sort
}

# stats_ranchor FILE: pre-5.3 rocprof v1 stats (names NOT quoted, may contain commas): the last
# 4 comma fields are Calls,TotalDurationNs,AverageNs,Percentage, the rest is the name.
stats_ranchor() {
    awk -v SKIP="$SKIPRE" "$AWKCSV"'
        FNR == 1 { next }
        /^[ \t\r]*$/ { next }
        { rsplit($0, f, 4); k = norm(f[1]); if (k ~ SKIP) next
          c[k] += f[2]; t[k] += f[3] }
        END { for (k in c) printf "%s\t%.0f\t%.0f\n", k, c[k], t[k] }' "$1" | LC_ALL=C sort
}

# cols FILE N...: keep the given tab-separated columns
cols() {
    _f=$1
    shift
    _c=$(echo "$@" | tr ' ' ',')
    cut -f "$_c" "$_f"
}

# sum_col FILE N: sum of column N; count: lines
sum_col() { awk -F'\t' -v c="$2" '{ s += $c } END { printf "%.0f\n", s }' "$1"; }
nlines() { awk 'END { print NR }' "$1"; }

# ---------------------------------------------------------------- dcutop output readers
# act_hot NAME ARGS...: hotspots export -> $TMP/NAME.hot (name calls total min max), json totals
act_hot() {
    _n=$1
    shift
    if ! dexp "$_n" hotspots "$@"; then notok "$_n: dcutop --export hotspots exits 0"; fi
    csvq "$TMP/$_n.csv" 'select name, cast(calls as integer), cast(total_ns as integer), min_ns, max_ns from t' |
        LC_ALL=C sort >"$TMP/$_n.hot"
    "$DCUTOP" -q --report --format json "$@" >"$TMP/$_n.json" || notok "$_n: --report --format json exits 0"
}

# check_kernels WHAT EXP(name calls total min max | name calls total) ACT-PREFIX
check_kernels() {
    _w=$1
    _e=$2
    _a=$3
    cols "$_e" 1 2 3 >"$TMP/e3"
    cols "$TMP/$_a.hot" 1 2 3 >"$TMP/a3"
    same "$_w: number of kernels (hotspot rows)" "$(nlines "$TMP/e3")" "$(nlines "$TMP/a3")"
    same "$_w: number of kernels (json totals.kernels)" "$(nlines "$TMP/e3")" "$(json_num "$TMP/$_a.json" kernels)"
    same "$_w: total device kernel ns (sum of hotspots total_ns)" "$(sum_col "$TMP/e3" 3)" "$(sum_col "$TMP/a3" 3)"
    same "$_w: total device kernel ns (json totals.kernel_ns)" "$(sum_col "$TMP/e3" 3)" "$(json_num "$TMP/$_a.json" kernel_ns)"
    cmp_keyed "$_w: calls,total_ns of" "$TMP/e3" "$TMP/a3"
}

# check_minmax WHAT EXP ACT-PREFIX: per-event sources also carry exact min/max per kernel
check_minmax() {
    cols "$2" 1 4 5 >"$TMP/e45"
    cols "$TMP/$3.hot" 1 4 5 >"$TMP/a45"
    same_text "$1: min_ns,max_ns of every kernel" "$(cat "$TMP/e45")" "$(cat "$TMP/a45")"
}

# check_file WHAT FILESCSV NAME FORMAT-ERE LAYER ROWS STATUS-ERE (EREs matched case-insensitively)
check_file() {
    _row=$(csvq "$2" "select format, layer, rows, rejected, status from t where name = '$3'")
    if [ -z "$_row" ]; then
        notok "$1: $3 listed in --export files"
        return
    fi
    if printf '%s\n' "$_row" | awk -F'\t' -v f="$4" -v l="$5" -v r="$6" -v s="$7" '
        { ok = (tolower($1) ~ tolower(f)) && $2 == l && (r == "" || $3 == r) && $4 == 0 && (tolower($5) ~ tolower(s)) }
        END { exit !ok }'; then
        ok "$1: $3 is '$4' / $5 / rows ${6:-any} / '$7'"
    else
        notok "$1: $3 is '$4' / $5 / rows ${6:-any} / '$7'"
        echo "#   actual: $(printf '%s' "$_row" | tr '\t' '|')"
    fi
}

# data rows of a CSV file, without the header, blank lines and skip rows
rows_of() {
    awk -v SKIP="$SKIPRE" "$AWKCSV"'
        FNR == 1 || /^[ \t\r]*$/ { next }
        { csvsplit($0, f); if (unq(f[1]) ~ SKIP || f[1] ~ SKIP) next; n++ }
        END { print n + 0 }' "$1"
}

for d in "$WEATHER" "$LLAMA" "$KOKKOS" "$V3"; do
    if [ ! -d "$d" ]; then
        notok "sample folder $d exists"
    fi
done

# ================================================================ dcu-weather-transformer
# results.csv (per dispatch, ROCm <= 5.2 columns) supersedes weather.hipkernel.csv
per_event KernelName BeginNs EndNs "$WEATHER/results.csv" >"$TMP/w.exp"
act_hot w "$WEATHER"
check_kernels "weather" "$TMP/w.exp" w
check_minmax "weather" "$TMP/w.exp" w
same "weather: dispatches (json totals.dispatches)" "$(rows_of "$WEATHER/results.csv")" "$(json_num "$TMP/w.json" dispatches)"
# the hipkernel stats file, loaded on its own, gives the same per-kernel numbers (Total row skipped)
stats_quoted "$WEATHER/weather.hipkernel.csv" >"$TMP/wk.exp"
act_hot wk "$WEATHER/weather.hipkernel.csv"
check_kernels "weather.hipkernel.csv alone" "$TMP/wk.exp" wk
same_text "weather: hipkernel.csv stats agree with results.csv (data sanity)" "$(cols "$TMP/w.exp" 1 2 3)" "$(cat "$TMP/wk.exp")"
# HIP API stats (hiptrace.csv is an aggregate; its Total row is skipped)
stats_quoted "$WEATHER/weather.hiptrace.csv" >"$TMP/wa.exp"
dexp wapi api "$WEATHER" || notok "weather: --export api exits 0"
csvq "$TMP/wapi.csv" 'select name, cast(calls as integer), cast(total_ns as integer) from t' | LC_ALL=C sort >"$TMP/wa.act"
cmp_keyed "weather: API calls,total_ns of" "$TMP/wa.exp" "$TMP/wa.act"
same "weather: total API ns (json totals.api_ns)" "$(sum_col "$TMP/wa.exp" 3)" "$(json_num "$TMP/w.json" api_ns)"
same "weather: total API calls (json totals.api_calls)" "$(sum_col "$TMP/wa.exp" 2)" "$(json_num "$TMP/w.json" api_calls)"
same "weather: no copies" "0" "$(json_num "$TMP/w.json" copy_calls)"
dexp wf files "$WEATHER" || notok "weather: --export files exits 0"
check_file weather "$TMP/wf.csv" results.csv 'rocprof v1.*results' kernel "$(rows_of "$WEATHER/results.csv")" '^used$'
check_file weather "$TMP/wf.csv" weather.hipkernel.csv 'hipprof.*kernel' kernel "$(rows_of "$WEATHER/weather.hipkernel.csv")" '^superseded by results[.]csv'
check_file weather "$TMP/wf.csv" weather.hiptrace.csv 'hipprof.*api' api "$(rows_of "$WEATHER/weather.hiptrace.csv")" '^used$'
check_file weather "$TMP/wf.csv" README.md '^skipped$' '' 0 '^skipped'

# ================================================================ llamacpp rocprof v1 --stats (ROCm >= 5.3)
per_event KernelName BeginNs EndNs "$LLAMA/results.csv" >"$TMP/l.exp"
act_hot l "$LLAMA"
check_kernels "llamacpp" "$TMP/l.exp" l
check_minmax "llamacpp" "$TMP/l.exp" l
same "llamacpp: dispatches (json totals.dispatches)" "$(rows_of "$LLAMA/results.csv")" "$(json_num "$TMP/l.json" dispatches)"
stats_quoted "$LLAMA/results.stats.csv" >"$TMP/ls.exp"
act_hot ls "$LLAMA/results.stats.csv"
check_kernels "llamacpp results.stats.csv alone" "$TMP/ls.exp" ls
check "llamacpp: no ' [clone .kd]' or '.kd' left in names" \
    awk -F'\t' '$1 ~ /(\.kd|\[clone \.kd\])$/ { bad = 1 } END { exit bad }' "$TMP/l.hot"
dexp lf files "$LLAMA" || notok "llamacpp: --export files exits 0"
check_file llamacpp "$TMP/lf.csv" results.csv 'rocprof v1.*results' kernel "$(rows_of "$LLAMA/results.csv")" '^used$'
check_file llamacpp "$TMP/lf.csv" results.stats.csv 'rocprof v1.*stats' kernel "$(rows_of "$LLAMA/results.stats.csv")" '^superseded by results[.]csv'
for f in results.sysinfo.txt SOURCE.txt; do
    [ -f "$LLAMA/$f" ] || continue   # the in-repo copy has only the CSV files
    check_file llamacpp "$TMP/lf.csv" "$f" '^skipped$' '' 0 '^skipped'
done
# the database and JSON of the same run hold the same dispatches: read, then superseded by
# results.csv (one run is counted once; tests/cli/test_formats.sh checks their numbers)
[ -f "$LLAMA/results.db" ] && check_file llamacpp "$TMP/lf.csv" results.db 'rocprof v1 results.db' kernel \
    "$(rows_of "$LLAMA/results.csv")" '^superseded by results[.]csv'
[ -f "$LLAMA/results.json" ] && check_file llamacpp "$TMP/lf.csv" results.json 'rocprof v1 results.json' kernel \
    "$(rows_of "$LLAMA/results.csv")" '^superseded by results[.]csv'

dexp lapi api "$LLAMA" || notok "llamacpp: --export api exits 0"
same "llamacpp: no API rows (no --hip-trace in this run)" "0" "$(csvq "$TMP/lapi.csv" 'select count(*) from t')"

# ================================================================ kokkos rocprof v1 --hip-trace, ROCm 4 (unquoted names)
stats_ranchor "$KOKKOS/results.stats.csv" >"$TMP/k.exp"
act_hot k "$KOKKOS"
check_kernels "kokkos" "$TMP/k.exp" k
check "kokkos: every kernel name has its template commas (right-anchored parse)" \
    awk -F'\t' 'index($1, "Kokkos::") == 0 { bad = 1 } END { exit bad }' "$TMP/k.hot"
same "kokkos: 'Unknown command type' row not loaded as a kernel" "0" \
    "$(csvq "$TMP/k.csv" "select count(*) from t where name like 'Unknown command type%'")"
stats_ranchor "$KOKKOS/results.hip_stats.csv" >"$TMP/ka.exp"
dexp kapi api "$KOKKOS" || notok "kokkos: --export api exits 0"
csvq "$TMP/kapi.csv" 'select name, cast(calls as integer), cast(total_ns as integer) from t' | LC_ALL=C sort >"$TMP/ka.act"
cmp_keyed "kokkos: API calls,total_ns of" "$TMP/ka.exp" "$TMP/ka.act"
same "kokkos: total API ns (json totals.api_ns)" "$(sum_col "$TMP/ka.exp" 3)" "$(json_num "$TMP/k.json" api_ns)"
stats_ranchor "$KOKKOS/results.copy_stats.csv" >"$TMP/kc.exp"
dexp kcp copies "$KOKKOS" || notok "kokkos: --export copies exits 0"
csvq "$TMP/kcp.csv" 'select name, cast(calls as integer), cast(total_ns as integer) from t' | LC_ALL=C sort >"$TMP/kc.act"
cmp_keyed "kokkos: copy calls,total_ns of" "$TMP/kc.exp" "$TMP/kc.act"
same "kokkos: total copy ns (json totals.copy_ns)" "$(sum_col "$TMP/kc.exp" 3)" "$(json_num "$TMP/k.json" copy_ns)"
dexp kf files "$KOKKOS" || notok "kokkos: --export files exits 0"
# with the run's results.db present (the shared copy), its per-call rows supersede the stats
# files, whose numbers the checks above then confirm through the database; the in-repo copy
# has only the CSV files, which are then used
if [ -f "$KOKKOS/results.db" ]; then kst='^superseded by results[.]db'; else kst='^used$'; fi
check_file kokkos "$TMP/kf.csv" results.stats.csv 'rocprof v1.*kernel' kernel "$(stats_ranchor "$KOKKOS/results.stats.csv" | nlines /dev/stdin)" "$kst"
check_file kokkos "$TMP/kf.csv" results.hip_stats.csv 'rocprof v1.*api' api "$(nlines "$TMP/ka.exp")" "$kst"
check_file kokkos "$TMP/kf.csv" results.copy_stats.csv 'rocprof v1.*copy' copy "$(nlines "$TMP/kc.exp")" "$kst"
[ -f "$KOKKOS/results.db" ] && check_file kokkos "$TMP/kf.csv" results.db 'rocprof v1 results.db' api+copy+kernel+range '' '^used$'
[ -f "$KOKKOS/results.json" ] && check_file kokkos "$TMP/kf.csv" results.json 'rocprof v1 results.json' api+copy+kernel+range '' '^superseded by results[.]db'
[ -f "$KOKKOS/results.sysinfo.txt" ] && check_file kokkos "$TMP/kf.csv" results.sysinfo.txt '^skipped$' '' 0 '^skipped'


# ================================================================ rocprofv3 CSV (ROCm 6.2/6.3 column sets)
per_event Kernel_Name Start_Timestamp End_Timestamp "$V3/kernel_trace.csv" >"$TMP/v.exp"
act_hot v "$V3"
check_kernels "rocprofv3" "$TMP/v.exp" v
check_minmax "rocprofv3" "$TMP/v.exp" v
same "rocprofv3: dispatches (json totals.dispatches)" "$(rows_of "$V3/kernel_trace.csv")" "$(json_num "$TMP/v.json" dispatches)"
# API: the per-call traces (HIP runtime, HIP compiler, HSA); hip_api_stats.csv is superseded
per_event Function Start_Timestamp End_Timestamp "$V3/hip_runtime_trace.csv" "$V3/hip_compile_trace.csv" \
    "$V3/hsa_api_trace.csv" >"$TMP/va.exp"
dexp vapi api "$V3" || notok "rocprofv3: --export api exits 0"
csvq "$TMP/vapi.csv" 'select name, cast(calls as integer), cast(total_ns as integer), min_ns, max_ns from t' |
    LC_ALL=C sort >"$TMP/va.act"
cmp_keyed "rocprofv3: API calls,total_ns,min,max of" "$TMP/va.exp" "$TMP/va.act"
same "rocprofv3: total API ns (json totals.api_ns)" "$(sum_col "$TMP/va.exp" 3)" "$(json_num "$TMP/v.json" api_ns)"
# domain: the HSA trace rows are HSA*, the HIP ones HIP*
awk -F'"' 'FNR > 1 { print $4 "\t" $2 }' "$V3/hip_runtime_trace.csv" "$V3/hip_compile_trace.csv" \
    "$V3/hsa_api_trace.csv" | awk -F'\t' '{ split($2, x, "_"); print $1 "\t" x[1] }' | LC_ALL=C sort -u >"$TMP/vd.exp"
csvq "$TMP/vapi.csv" "select name, case when domain like 'HSA%' then 'HSA' when domain like 'HIP%' then 'HIP' else domain end from t" |
    LC_ALL=C sort -u >"$TMP/vd.act"
same_text "rocprofv3: API domain (HIP/HSA) of every API name" "$(cat "$TMP/vd.exp")" "$(cat "$TMP/vd.act")"
# markers are ranges, not API calls (the marker file reuses the names hipMemcpy/hipLaunchKernel)
same "rocprofv3: marker names not counted as API calls" "0" \
    "$(csvq "$TMP/vapi.csv" "select count(*) from t where name like '%range%' or name like 'before %' or name like 'after %'")"
per_event Function Start_Timestamp End_Timestamp "$V3/marker_api_trace.csv" | cut -f 1-3 >"$TMP/vm.exp"
rm -f "$TMP/v.db"
if "$DCUTOP" -q --save-db "$TMP/v.db" "$V3"; then
    sqlite3 -batch -init /dev/null "$TMP/v.db" '.mode tabs' \
        'select name, count(*), sum(end_ns - start_ns) from range group by name' | LC_ALL=C sort >"$TMP/vm.act"
    cmp_keyed "rocprofv3: marker ranges (save-db) count,duration of" "$TMP/vm.exp" "$TMP/vm.act"
else
    notok "rocprofv3: --save-db exits 0"
fi
# memory copies, per direction
per_event Direction Start_Timestamp End_Timestamp "$V3/memory_copy_trace.csv" >"$TMP/vc.exp"
dexp vcp copies "$V3" || notok "rocprofv3: --export copies exits 0"
csvq "$TMP/vcp.csv" 'select name, cast(calls as integer), cast(total_ns as integer), min_ns, max_ns from t' |
    LC_ALL=C sort >"$TMP/vc.act"
cmp_keyed "rocprofv3: copy calls,total_ns,min,max of" "$TMP/vc.exp" "$TMP/vc.act"
# hip_api_stats.csv alone (8-column stats) loads with its own numbers
stats_quoted "$V3/hip_api_stats.csv" >"$TMP/vs.exp"
dexp vsapi api "$V3/hip_api_stats.csv" || notok "rocprofv3: hip_api_stats.csv alone: --export api exits 0"
csvq "$TMP/vsapi.csv" 'select name, cast(calls as integer), cast(total_ns as integer) from t' | LC_ALL=C sort >"$TMP/vs.act"
cmp_keyed "rocprofv3 hip_api_stats.csv alone: calls,total_ns of" "$TMP/vs.exp" "$TMP/vs.act"
awk -F'"' 'FNR > 1 { split($3, f, ","); print $2 "\t" f[6] "\t" f[7] }' "$V3/hip_api_stats.csv" | LC_ALL=C sort >"$TMP/vsm.exp"
csvq "$TMP/vsapi.csv" 'select name, min_ns, max_ns from t' | LC_ALL=C sort >"$TMP/vsm.act"
same_text "rocprofv3 hip_api_stats.csv alone: MinNs,MaxNs kept" "$(cat "$TMP/vsm.exp")" "$(cat "$TMP/vsm.act")"
dexp vf files "$V3" || notok "rocprofv3: --export files exits 0"
check_file rocprofv3 "$TMP/vf.csv" kernel_trace.csv 'rocprofv3.*kernel trace' kernel "$(rows_of "$V3/kernel_trace.csv")" '^used [(]PMC counters[)]$'
check_file rocprofv3 "$TMP/vf.csv" hip_runtime_trace.csv 'rocprofv3.*api' api "$(rows_of "$V3/hip_runtime_trace.csv")" '^used$'
check_file rocprofv3 "$TMP/vf.csv" hip_compile_trace.csv 'rocprofv3.*api' api "$(rows_of "$V3/hip_compile_trace.csv")" '^used$'
check_file rocprofv3 "$TMP/vf.csv" hsa_api_trace.csv 'rocprofv3.*api' api "$(rows_of "$V3/hsa_api_trace.csv")" '^used$'
check_file rocprofv3 "$TMP/vf.csv" hip_api_stats.csv 'rocprofv3.*api.*stats' api "$(rows_of "$V3/hip_api_stats.csv")" '^superseded by '
check_file rocprofv3 "$TMP/vf.csv" marker_api_trace.csv 'rocprofv3.*marker' range "$(rows_of "$V3/marker_api_trace.csv")" '^used$'
check_file rocprofv3 "$TMP/vf.csv" memory_copy_trace.csv 'rocprofv3.*copy' copy "$(rows_of "$V3/memory_copy_trace.csv")" '^used$'
check_file rocprofv3 "$TMP/vf.csv" counter_collection.csv 'counter' '' 7 '^used: 7 of 7 counter values'
# its 4 values name dispatches (divide_kernel, pid 36499) no kernel trace of the folder holds:
# not kept, so rejected rows, and the file loads nothing
same "rocprofv3: kernel_names.csv's 4 counter values no dispatch takes are rejected" \
    "0|4|skipped: 0 of 4 counter values" \
    "$(csvq "$TMP/vf.csv" "select rows, rejected, substr(status, 1, 30) from t where name = 'kernel_names.csv'" | tr '\t' '|')"
