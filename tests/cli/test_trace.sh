#!/bin/sh
# test_trace.sh - the dispatch trace (--report --view trace; the TUI screen 8 shares the query):
# every dispatch and copy of a GPU/queue in time order, start from the trace's start (the
# first dispatch of the file's group), the gap before each op (start - latest end so far on
# the lane), duration and name, against the sqlite3 CLI over the RPD file's own tables and awk
# over the weather results.csv. A filter keeps the gaps of the whole lane.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

sq() { sqlite3 -batch -init /dev/null -readonly "$1" '.mode tabs' "$2"; }
# section REPORT: the first trace block of a --format csv report (the lane line dropped)
trace_block() { tr -d '\r' <"$1" | sed -n '/^# trace$/,/^$/p' | sed '1,2d;/^$/d'; }
# gaps: stdin "abs_start<TAB>end<TAB>..." in time order -> "abs_start<TAB>gap" (gap empty first)
gaps() {
    awk -F'\t' '{ if (NR == 1) g = ""; else g = ($1 > pe ? $1 - pe : 0)
                  if (NR == 1 || $2 > pe) pe = $2; print $1 "\t" g }'
}

# ================================================================ RPD: kernels and copies
R=$REAL/rpd-matmul/matmul_result.rpd
if [ -f "$R" ]; then
    "$DCUTOP" -q --report --format csv --view trace "$R" >"$TMP/r.csv"
    trace_block "$TMP/r.csv" >"$TMP/rt.csv"
    check "rpd trace: one lane, GPU 2 queue 0" grep -q '^# lane: matmul_result.rpd GPU 2 queue 0' "$TMP/r.csv"
    # the ops the trace must hold: kernels (KernelExecution, Task) and copies, in time order
    sq "$R" "SELECT o.start, o.\"end\", CASE WHEN d.string = '' THEN t.string ELSE d.string END
        FROM rocpd_op o JOIN rocpd_string d ON d.id = o.description_id
        JOIN rocpd_string t ON t.id = o.opType_id
        WHERE t.string IN ('KernelExecution', 'Task', 'CopyHostToDevice', 'CopyDeviceToHost',
          'CopyDeviceToDevice', 'FillBuffer') AND o.gpuId = 2 AND o.queueId = 0
        ORDER BY o.start, o.\"end\"" >"$TMP/r.ops"
    same "rpd trace: every op, in time order (start, duration, name) = sqlite3 over rocpd_op" \
        "$(awk -F'\t' '{ print $1 "\t" $2 - $1 "\t" $3 }' "$TMP/r.ops")" \
        "$(csvq "$TMP/rt.csv" 'select abs_start_ns, dur_ns, name from t')"
    ORIGIN=$(sq "$R" "SELECT min(o.start) FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
        WHERE t.string IN ('KernelExecution', 'Task')")
    same "rpd trace: start = time from the first dispatch (copies before it are negative)" \
        "$(awk -F'\t' -v o="$ORIGIN" '{ print $1 - o }' "$TMP/r.ops")" \
        "$(csvq "$TMP/rt.csv" 'select start_ns from t')"
    same "rpd trace: gap before each op = start - latest end so far (awk)" \
        "$(gaps <"$TMP/r.ops")" "$(csvq "$TMP/rt.csv" 'select abs_start_ns, gap_ns from t')"
    same "rpd trace: kinds" "kernel	29
copy	56" "$(csvq "$TMP/rt.csv" 'select kind, count(*) from t group by kind order by 2')"
else
    ok "rpd trace: $R not found - skipped"
fi

# ================================================================ weather: 2090 dispatches
W=sample-traces/dcu-weather-transformer
"$DCUTOP" -q --report --format csv --view trace "$W" >"$TMP/w.csv"
trace_block "$TMP/w.csv" >"$TMP/wt.csv"
awk "$AWKCSV"'FNR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    { csvsplit($0, f); print f[col["BeginNs"]] "\t" f[col["EndNs"]] }' "$W/results.csv" |
    sort -t "$(printf '\t')" -k1,1n -k2,2n >"$TMP/w.ops"
same "weather trace: 2090 ops" "2090" "$(csvq "$TMP/wt.csv" 'select count(*) from t')"
same "weather trace: start and gap of every op = awk over results.csv" \
    "$(gaps <"$TMP/w.ops")" "$(csvq "$TMP/wt.csv" 'select abs_start_ns, gap_ns from t')"
# one GPU, one queue: the gaps of the trace add up to the timeline's GPU idle time
"$DCUTOP" -q --report --format csv --view timeline "$W" | tr -d '\r' |
    sed -n '/^# devices$/,/^$/p' | sed '1d;/^$/d' >"$TMP/wd.csv"
same "weather trace: gaps add up to the device's idle time (timeline)" \
    "$(csvq "$TMP/wd.csv" 'select idle_ns from t')" "$(csvq "$TMP/wt.csv" 'select sum(cast(gap_ns as integer)) from t')"
# a filter keeps the lane's gaps: the FillFunctor kernels with the same gaps as unfiltered
"$DCUTOP" -q --report --format csv --view trace --filter FillFunctor "$W" >"$TMP/wf.csv"
trace_block "$TMP/wf.csv" >"$TMP/wft.csv"
same "weather trace --filter: the matching ops with their gaps on the whole lane" \
    "$(csvq "$TMP/wt.csv" "select abs_start_ns, gap_ns from t where name like '%FillFunctor%'")" \
    "$(csvq "$TMP/wft.csv" 'select abs_start_ns, gap_ns from t')"
"$DCUTOP" -q --report --view trace "$W" >"$TMP/w.txt"
check "weather trace text: titled with its lane" grep -q '^Trace: results.csv GPU 2 queue 0 (2090 dispatches and copies' "$TMP/w.txt"
exits "--view trace with a bad filter is a usage error" 2 "$DCUTOP" -q --report --view trace --filter '(' "$W"
# JSON: one object per lane, its label escaped, the ops as in the CSV
if [ -x /usr/bin/python3 ]; then
    mkdir -p "$TMP/q"
    cp "$W/results.csv" "$TMP/q/a\"b\\c.csv"
    "$DCUTOP" -q --report --format json --view trace "$TMP/q" >"$TMP/t.json"
    same "trace JSON: valid with a quote and a backslash in the file name; one lane, 2090 ops, gaps as in the CSV" \
        "a\"b\\c.csv GPU 2 queue 0 1 2090 $(csvq "$TMP/wt.csv" 'select sum(cast(gap_ns as integer)) from t')" \
        "$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["trace"]
print(d[0]["lane"], len(d), len(d[0]["ops"]), sum(o["gap_ns"] or 0 for o in d[0]["ops"]))' "$TMP/t.json")"
fi

# ---------------------------------------------------------------- a lane longer than a page
# 60000 dispatches on one queue, 1 us each, 1 us apart, one 5 ms gap before dispatch 55001:
# the screen holds 50000 ops at a time and says so; the Summary's l centres the page on the gap
mkdir -p "$TMP/long"
awk 'BEGIN { print "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\",\"scr\",\"vgpr\",\"sgpr\",\"fbar\",\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\""
    t = 1000000
    for (i = 0; i < 60000; i++) {
        if (i == 55000) t += 5000000
        printf "%d,\"k%d\",0,0,0,1,1,64,64,0,0,8,8,0,\"0x0\",\"0x0\",%d,%d,%d,%d,1000\n", i, i % 7, t, t, t + 1000, t + 1000
        t += 2000
    } }' >"$TMP/long/results.csv"
printf '8\n:dump first-page\n1\nl\n:dump gap-page\nq\n' >"$TMP/long.keys"
"$DCUTOP" --headless --size 100x24 --keys "$TMP/long.keys" "$TMP/long" >"$TMP/long.out"
check "long lane: the first page says which ops of how many" \
    grep -q 'Ops 1-50000 of 60000 on this GPU/queue' "$TMP/long.out"
check "long lane: l opens the page around the largest gap (ops 30001-60000)" \
    grep -q 'Ops 30001-60000 of 60000 on this GPU/queue' "$TMP/long.out"
check "long lane: the op after the gap is selected (row 25001 of the page)" \
    grep -q '^25001/30000 ' "$TMP/long.out"
