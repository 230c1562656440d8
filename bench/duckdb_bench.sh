#!/bin/sh
# bench/duckdb_bench.sh [N] - issue 23: dcutop against DuckDB on the same rocprof v1 CSV,
# N dispatches (default 1,000,000) and 10 N, plus the N-kernel Kineto JSON against Python's
# json.load. Prints one table (wall, peak RSS, ratios to DuckDB with all threads and with 1)
# and MET/MISSED per goal of the issue. Targets are reported, never asserted.
#
# Environment: DCUTOP (default ./dcutop), GEN / KGEN (the generators, default
# $BUILD/bench/gen_results_csv and gen_kineto_json), DUCKDB_CSV (default
# $BUILD/bench/duckdb_csv), DUCKDB_LIB (default: bench/fetch_duckdb.sh), OUTDIR (traces
# and logs, default bench/out), BENCH_RUNS (timed runs, best kept; default 1),
# BENCH_10X=0 / BENCH_KINETO=0 skip those parts, BENCH_1X=0 the N CSV. GNU time ($TIMEBIN) gives wall and peak RSS; without
# it, wall comes from date and RSS is left out.
set -u
cd "$(dirname "$0")/.." || exit 2
N=${1:-1000000}
case "$N" in '' | *[!0-9]*) echo "usage: bench/duckdb_bench.sh [N]" >&2; exit 2 ;; esac
B=${BUILD:-build}
DCUTOP=${DCUTOP:-./dcutop}
GEN=${GEN:-$B/bench/gen_results_csv}
KGEN=${KGEN:-$B/bench/gen_kineto_json}
DUCK=${DUCKDB_CSV:-$B/bench/duckdb_csv}
LIB=${DUCKDB_LIB:-$(sh bench/fetch_duckdb.sh 2>/dev/null)}
OUT=${OUTDIR:-bench/out}
RUNS=${BENCH_RUNS:-1}
CPUS=$(nproc)
PY=${PYTHON:-python3}
TIMEBIN=${TIMEBIN:-/usr/bin/time}
mkdir -p "$OUT/logs" || exit 2
LOG=$OUT/logs

# trace N PATH: the generated CSV of N dispatches (cached)
trace() {
    [ -s "$2/results.csv" ] || { mkdir -p "$2" && "$GEN" "$1" "$2/results.csv" >/dev/null; } || return 1
}
# measure NAME CMD...: best wall of RUNS timed runs after one warm-up; sets m_wall m_rss(KiB)
measure() {
    name=$1
    shift
    m_wall="" m_rss="" i=0
    while [ "$i" -le "$RUNS" ]; do
        if [ -x "$TIMEBIN" ]; then
            "$TIMEBIN" -f '%e %M' -o "$LOG/$name.time" "$@" >/dev/null 2>"$LOG/$name.err"
            rc=$?
            read -r w k <"$LOG/$name.time"
        else
            t0=$(date +%s.%N)
            "$@" >/dev/null 2>"$LOG/$name.err"
            rc=$?
            w=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') k=0
        fi
        [ "$rc" -eq 0 ] || { m_wall=fail m_rss=0; echo "$name failed (exit $rc): $(tail -n 2 "$LOG/$name.err")" >&2; return; }
        if [ "$i" -gt 0 ] && { [ -z "$m_wall" ] || awk -v a="$w" -v b="$m_wall" 'BEGIN { exit !(a < b) }'; }; then
            m_wall=$w m_rss=$k
        fi
        i=$((i + 1))
    done
}
ROWS=$LOG/duckdb_rows.tsv
: >"$ROWS"
row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$ROWS"; } # WORK TOOL WALL RSS

size_row() { # WORK DIR: dcutop at all threads and 1, DuckDB at all threads and 1
    measure "dcutop_$1" "$DCUTOP" --report "$2/"
    row "$1" "dcutop --threads $CPUS" "$m_wall" "$m_rss"
    measure "dcutop1_$1" "$DCUTOP" --threads 1 --report "$2/"
    row "$1" "dcutop --threads 1" "$m_wall" "$m_rss"
    if [ -n "$LIB" ] && [ -x "$DUCK" ]; then
        measure "duckdb_$1" "$DUCK" "$LIB" "$CPUS" "$2/results.csv"
        row "$1" "DuckDB $CPUS threads" "$m_wall" "$m_rss"
        measure "duckdb1_$1" "$DUCK" "$LIB" 1 "$2/results.csv"
        row "$1" "DuckDB 1 thread" "$m_wall" "$m_rss"
    fi
}

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
echo "== issue 23: dcutop against DuckDB =="
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $CPUS CPUs, ${cpu:-unknown CPU}, $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
echo "DuckDB:  ${LIB:-not available (bench/fetch_duckdb.sh needs npm and the registry)}"
echo "method:  1 warm-up run, best of $RUNS timed run(s), whole process; GNU time"
trace "$N" "$OUT/trace_$N" || { echo "bench: cannot generate $N dispatches with $GEN" >&2; exit 2; }
[ "${BENCH_1X:-1}" != 0 ] && size_row "${N}" "$OUT/trace_$N"
if [ "${BENCH_10X:-1}" != 0 ]; then
    N10=$((N * 10))
    if trace "$N10" "$OUT/trace_$N10"; then size_row "$N10" "$OUT/trace_$N10"; fi
fi
if [ "${BENCH_KINETO:-1}" != 0 ] && [ -x "$KGEN" ]; then
    kj=$OUT/kineto_$N/trace.json
    [ -s "$kj" ] || { mkdir -p "$OUT/kineto_$N" && "$KGEN" "$N" "$kj" >/dev/null; }
    measure kineto "$DCUTOP" --report "$kj"
    row "kineto $N" "dcutop --threads $CPUS" "$m_wall" "$m_rss"
    measure kineto1 "$DCUTOP" --threads 1 --report "$kj" # the issue: json.load "on 1 core"
    row "kineto $N" "dcutop --threads 1" "$m_wall" "$m_rss"
    measure kineto_py "$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$kj"
    row "kineto $N" "python3 json.load" "$m_wall" "$m_rss"
fi

echo
awk -F '\t' '
{ w[$1, $2] = $3; r[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } tools[$1] = tools[$1] "\t" $2 }
END {
    printf "%-12s %-22s %8s %13s %12s %11s\n", "work", "tool", "wall s", "peak RSS MB", "/DuckDB all", "/DuckDB 1"
    for (i = 1; i <= n; i++) {
        wk = order[i]; m = split(substr(tools[wk], 2), t, "\t")
        da = ""; d1 = ""
        for (j = 1; j <= m; j++) { if (t[j] ~ /^DuckDB [0-9]+ threads/) da = w[wk, t[j]]; if (t[j] == "DuckDB 1 thread") d1 = w[wk, t[j]] }
        for (j = 1; j <= m; j++) {
            x = w[wk, t[j]]
            ra = (da > 0 && x != "fail") ? sprintf("%.2fx", x / da) : "-"
            r1 = (d1 > 0 && x != "fail") ? sprintf("%.2fx", x / d1) : "-"
            printf "%-12s %-22s %8s %13.0f %12s %11s\n", wk, t[j], x, r[wk, t[j]] * 1.024 / 1000, ra, r1
        }
    }
}' "$ROWS"

# goal TEXT VALUE LIMIT [UNIT]
goal() {
    if [ -z "$2" ] || [ "$2" = fail ] || [ -z "$3" ] || [ "$3" = fail ]; then
        printf '  %-58s not measured\n' "$1"
        return
    fi
    awk -v t="$1" -v v="$2" -v l="$3" -v u="${4:-s}" 'BEGIN {
        printf "  %-58s %8.2f %s (goal <= %.2f) %s", t, v, u, l, (v <= l ? "MET" : "MISSED")
        if (v > l) printf " by %.2f %s (%.1fx)", v - l, u, v / l
        printf "\n" }'
}
get() { awk -F '\t' -v a="$1" -v b="$2" '$1 == a && $2 == b { print ($3 == "fail" ? "fail" : $3 + 0) }' "$ROWS"; }
getr() { awk -F '\t' -v a="$1" -v b="$2" '$1 == a && $2 == b { print $4 * 1024 / 1e6 }' "$ROWS"; }
echo
echo "goals (issue 23), on this $CPUS-CPU machine:"
goal "$N CSV, dcutop vs DuckDB $CPUS threads" "$(get "$N" "dcutop --threads $CPUS")" "$(get "$N" "DuckDB $CPUS threads")"
goal "$N CSV, dcutop --threads 1 vs DuckDB 1 thread" "$(get "$N" "dcutop --threads 1")" "$(get "$N" "DuckDB 1 thread")"
if [ "${BENCH_10X:-1}" != 0 ]; then
    lim=3
    [ "$CPUS" -lt 16 ] && lim=12 # the issue: <= 3 s on 16 cores, <= 12 s on 2
    goal "$((N * 10)) CSV, dcutop wall ($CPUS CPUs)" "$(get "$((N * 10))" "dcutop --threads $CPUS")" "$lim"
    goal "$((N * 10)) CSV, dcutop peak RSS" "$(getr "$((N * 10))" "dcutop --threads $CPUS")" 1000 MB
fi
if [ "${BENCH_KINETO:-1}" != 0 ]; then
    [ "$CPUS" -ge 16 ] && goal "kineto $N, dcutop wall (16 cores)" "$(get "kineto $N" "dcutop --threads $CPUS")" 4
    goal "kineto $N, dcutop --threads 1 vs python3 json.load" "$(get "kineto $N" "dcutop --threads 1")" "$(get "kineto $N" "python3 json.load")"
fi
echo "  TUI goals (first screen <= 0.1 s after the load, p99 <= 50 ms at 10M): bench/tui_bench.sh"
exit 0
