#!/bin/sh
# test_direct_scan.sh - the analyses read the dispatch store's columns directly
# (dispatch_scan.h) instead of a SQL row per dispatch; DCUTOP_SQL_SCAN=1 makes them read
# through SQL as before. Both paths must give the same bytes on every view that reads
# dispatches (idle causes and gaps, timeline, trace, variability, ranks, advice, the stacks
# and ranges trees, the launch calls), on traces that reach their corners: several files and
# runs, a 2-rank job, rows of other files in a chunk, copies, untimed rows, a spilled store
# (--db-memory), and a region of interest (where the temp view cuts the dispatches and the
# SQL read is used).
. tests/cli/lib.sh
${CC:-cc} -O2 -o "$TMP/gencsv" bench/gen_results_csv.c -lm || exit 2
mkdir -p "$TMP/gen/a" "$TMP/gen/b"
"$TMP/gencsv" 9000 "$TMP/gen/a/results.csv" >/dev/null 2>&1 || exit 2
"$TMP/gencsv" 5000 "$TMP/gen/b/results.csv" >/dev/null 2>&1 || exit 2
# untimed rows: a dispatch with no begin/end (kept, counted, never on the timeline)
awk -F, 'NR == 40 || NR == 41 { OFS = ","; $(NF-2) = ""; $(NF-3) = "" } { print }' \
    "$TMP/gen/b/results.csv" >"$TMP/gen/b/r" && mv "$TMP/gen/b/r" "$TMP/gen/b/results.csv"
both() { # DESC ARGS...: the same stdout and exit status on both paths
    d=$1
    shift
    "$DCUTOP" -q "$@" >"$TMP/direct" 2>&1
    echo "exit $?" >>"$TMP/direct"
    DCUTOP_SQL_SCAN=1 "$DCUTOP" -q "$@" >"$TMP/sql" 2>&1
    echo "exit $?" >>"$TMP/sql"
    if cmp -s "$TMP/direct" "$TMP/sql"; then
        ok "$d"
    else
        notok "$d"
        diff "$TMP/sql" "$TMP/direct" | head -5
    fi
}
for dir in "$TMP/gen" "$REAL/pytorch-h200-ddp-2rank" "$REAL/rpd-matmul" \
    "$REAL/kokkos-rocprof-v1-hiptrace-rocm4" "$REAL/llamacpp-rocprofv3-rocpd" \
    "$REAL/pytorch-h200-idle-injected" sample-traces/dcu-weather-transformer tests/data/ranks8; do
    name=${dir##*/}
    both "$name: the report" --report --width 160 "$dir"
    for v in idle timeline trace ranks advice; do
        both "$name: --view $v" --report --view "$v" --width 160 --top 0 "$dir"
    done
    both "$name: the idle gaps" --export idle-gaps -o - "$dir"
    both "$name: the hotspots export (variability columns)" --export hotspots -o - "$dir"
    # the trees sum kernel_stack and dispatch_range in C, launches look calls up in memory
    for v in stacks ranges launches; do
        both "$name: --export $v" --export "$v" -o - "$dir"
    done
done
# the dispatch list of a kernel (Hotspots, Enter, Enter): the kernel index and columns
# against SQL, in launch order, sorted by duration, and at the end of the list; the kernel's
# detail before it (its histogram: durations by the files' row ranges)
printf '2\n<Enter>\n:dump detail\n<Enter>\n:dump list\n<End>\n:dump end\n>\n:dump sorted\n<Esc>\n<Esc>\n<Down>\n<Enter>\n<Enter>\n:dump second\n:quit\n' >"$TMP/list.keys"
for dir in "$TMP/gen" "$REAL/pytorch-h200-ddp-2rank" "$REAL/rpd-matmul" sample-traces/dcu-weather-transformer; do
    both "${dir##*/}: a kernel's dispatch list" --headless --size 200x40 --keys "$TMP/list.keys" "$dir"
done
both "a spilled store: the report" --db-memory 1M --report --width 160 "$TMP/gen"
both "a spilled store: the idle gaps" --db-memory 1M --export idle-gaps -o - "$TMP/gen"
both "a region of interest: the report" --roi-from 'Cijk' --roi-to 'Cijk' --report --width 160 "$TMP/gen/a"
# the environment switch is honoured: without it the direct read is used (a difference in
# speed only, so the check is that both reads ran: the SQL profile names the dispatch query)
DCUTOP_SQL_PROFILE=1 "$DCUTOP" -q --report --view idle "$TMP/gen/a" 2>"$TMP/prof" >/dev/null
check "the direct read asks SQL for no dispatch rows of the idle analysis" \
    sh -c "! grep -q 'coalesce(d.stream, d.queue, -1), d.start_ns' '$TMP/prof'"
DCUTOP_SQL_SCAN=1 DCUTOP_SQL_PROFILE=1 "$DCUTOP" -q --report --view idle "$TMP/gen/a" 2>"$TMP/prof" >/dev/null
check "DCUTOP_SQL_SCAN=1 reads them through SQL" \
    grep -q 'coalesce(d.stream, d.queue, -1), d.start_ns' "$TMP/prof"
