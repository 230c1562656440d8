#!/bin/sh
# bench/run.sh [N] - dcutop vs the sqlite3 CLI vs pandas on a synthetic rocprof v1 results.csv
#
#   N   number of dispatches in the generated trace (default 1000000)
#
# Builds nothing: `make bench` builds ./dcutop and the generator
# ($(BUILD)/bench/gen_results_csv from bench/gen_results_csv.c) and then runs this.
# GEN=/path/to/gen_results_csv overrides where the generator is looked for.
#
# The trace is cached as bench/out/trace_N/results.csv and reused when present
# (delete bench/out/ to regenerate). Each tool gets 1 untimed warm-up run, then
# BENCH_RUNS timed runs (default 1); the best wall time, with that run's peak RSS,
# is reported. Both come from GNU time: /usr/bin/time -f '%e %M'.
# stdout of every tool goes to /dev/null, stderr to bench/out/logs/TOOL.err.
#
# If bench/tui_bench.sh exists and is executable it runs afterwards as
#   bench/tui_bench.sh N   with BENCH_N and BENCH_TRACE_DIR exported.
#
# Exits 0 once the benchmark has run: targets are reported, not enforced.
# Exits 2 on bad usage or when no trace can be produced.
# POSIX sh (the Makefile runs it with `sh`).
set -u

cd "$(dirname "$0")/.." || exit 2
root=$(pwd)

N=${1:-1000000}
case "$N" in
'' | *[!0-9]*)
    echo "usage: bench/run.sh [N]   (N = number of dispatches, default 1000000)" >&2
    exit 2
    ;;
esac
N=$(echo "$N" | sed 's/^0*//')
[ -n "$N" ] || N=0
RUNS=${BENCH_RUNS:-1}
case "$RUNS" in '' | *[!0-9]* | 0) RUNS=1 ;; esac

TIME=/usr/bin/time
if ! [ -x "$TIME" ]; then
    echo "bench: GNU time not found at $TIME (sh scripts/install-deps.sh bench)" >&2
    exit 2
fi

outdir=bench/out
tdir=$outdir/trace_$N
csv=$tdir/results.csv
logdir=$outdir/logs
mkdir -p "$tdir" "$logdir" || exit 2

# ---------------------------------------------------------------- trace
if [ -s "$csv" ]; then
    echo "trace: reusing $csv"
else
    gen=${GEN:-}
    if [ -z "$gen" ]; then
        for c in "${BUILD:-build}/bench/gen_results_csv" build/bench/gen_results_csv bench/gen_results_csv; do
            if [ -x "$c" ]; then
                gen=$c
                break
            fi
        done
    fi
    if [ -z "$gen" ] || ! [ -x "$gen" ]; then
        echo "bench: generator not built (looked for ${BUILD:-build}/bench/gen_results_csv and" >&2
        echo "       bench/gen_results_csv; or set GEN=...). Run: make bench" >&2
        exit 2
    fi
    echo "trace: generating $N dispatches with $gen"
    t0=$(date +%s.%N)
    if ! "$gen" "$N" "$csv.tmp.$$"; then
        rm -f "$csv.tmp.$$"
        echo "bench: generator failed" >&2
        exit 2
    fi
    mv -f "$csv.tmp.$$" "$csv" || exit 2
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "trace: generated in %.2f s\n", b - a }'
fi
csv_bytes=$(wc -c <"$csv" | tr -d ' ')
csv_mib=$(awk -v b="$csv_bytes" 'BEGIN { printf "%.1f", b / 1048576 }')

# ---------------------------------------------------------------- machine
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
[ -n "$cpu" ] || cpu=$(awk -F': *' '/^(Hardware|cpu model|Processor)/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
echo "machine: $(nproc) CPUs, ${cpu:-unknown CPU}, ${mem:-? GiB} RAM, $(uname -sr)"
echo "trace:   $csv  ($N dispatches, $csv_mib MiB)"
echo "method:  1 untimed warm-up run per tool, then the best wall time of $RUNS timed run(s);"
echo "         GNU time: %e = wall s, %M = peak RSS"
echo

# ---------------------------------------------------------------- tools
sqlfile=$outdir/sqlite3_query.sql
cat >"$sqlfile" <<EOF
.mode csv
.import $csv r
SELECT KernelName, count(*), sum(DurationNs), avg(DurationNs), min(DurationNs), max(DurationNs) FROM r GROUP BY KernelName ORDER BY 3 DESC;
EOF

PANDAS_CODE='import sys
import pandas as pd
df = pd.read_csv(sys.argv[1])
g = df.groupby("KernelName")["DurationNs"].agg(["count", "sum", "mean", "min", "max"])
g = g.sort_values("sum", ascending=False)
g.to_csv(sys.stdout)'

# measure NAME STDIN CMD...: runs CMD under GNU time (stdin from STDIN, stdout to
# /dev/null, stderr to $logdir/NAME.err), once as warm-up, then RUNS times.
# Sets m_wall, m_rss (KiB) and m_rc from the timed run with the best wall time.
measure() {
    m_name=$1 m_in=$2
    shift 2
    m_tf=$logdir/$m_name.time
    m_wall="" m_rss="" m_rc=0
    m_i=0
    while [ "$m_i" -le "$RUNS" ]; do
        : >"$m_tf"
        "$TIME" -f '%e %M' -o "$m_tf" "$@" <"$m_in" >/dev/null 2>"$logdir/$m_name.err"
        m_r=$?
        m_line=$(tail -n 1 "$m_tf")
        m_w=${m_line%% *}
        m_k=${m_line##* }
        if [ "$m_i" -gt 0 ]; then # run 0 is the warm-up
            if [ -z "$m_wall" ] || awk -v a="$m_w" -v b="$m_wall" 'BEGIN { exit !(a + 0 < b + 0) }'; then
                m_wall=$m_w m_rss=$m_k m_rc=$m_r
            fi
        fi
        m_i=$((m_i + 1))
    done
}

rows=$logdir/rows.tsv
: >"$rows"
# add_row TOOL WALL RSS_KIB NOTE
add_row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$rows"; }

have_dcutop=0 d_wall=0 d_rss=0
if [ -x ./dcutop ]; then
    echo "running ./dcutop --report $tdir/ ..."
    measure dcutop /dev/null ./dcutop --report "$tdir/"
    note=""
    if [ "$m_rc" -ne 0 ]; then
        note="FAILED rc=$m_rc, see $logdir/dcutop.err"
    else
        have_dcutop=1 d_wall=$m_wall d_rss=$m_rss
    fi
    add_row dcutop "$m_wall" "$m_rss" "$note"
else
    echo "dcutop: ./dcutop not found or not executable (run make) - dcutop row skipped"
fi

s_ok=0 s_wall=0
if command -v sqlite3 >/dev/null 2>&1; then
    echo "running sqlite3 CLI $(sqlite3 --version | cut -d' ' -f1) (:memory:, .import, GROUP BY) ..."
    measure sqlite3 "$sqlfile" sqlite3 :memory:
    note=""
    if [ "$m_rc" -ne 0 ]; then
        note="FAILED rc=$m_rc, see $logdir/sqlite3.err"
    else
        s_ok=1 s_wall=$m_wall
        [ -s "$logdir/sqlite3.err" ] && note="warnings in $logdir/sqlite3.err"
    fi
    add_row sqlite3 "$m_wall" "$m_rss" "$note"
else
    echo "sqlite3: not installed - sqlite3 row skipped"
fi

if /usr/bin/python3 -c 'import pandas' >/dev/null 2>&1; then
    echo "running pandas $(/usr/bin/python3 -c 'import pandas; print(pandas.__version__)' 2>/dev/null) (read_csv, groupby) ..."
    # Debian's python3-pandas belongs to /usr/bin/python3, not to the pyenv python3 on PATH;
    # this environment's OPENBLAS_* overrides are dropped for this command only.
    measure pandas /dev/null env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 -c "$PANDAS_CODE" "$csv"
    note=""
    [ "$m_rc" -ne 0 ] && note="FAILED rc=$m_rc, see $logdir/pandas.err"
    add_row pandas "$m_wall" "$m_rss" "$note"
else
    echo "pandas: /usr/bin/python3 cannot import pandas (python3-pandas) - pandas row skipped"
fi

bare=""
for c in "${BUILD:-build}/bench/csv_bare" build/bench/csv_bare; do
    [ -x "$c" ] && { bare=$c; break; }
done
l_ok=0 l_wall=0
if [ -n "$bare" ]; then
    echo "running bare libcsv (bench/csv_bare.c: parse only, count fields) ..."
    measure libcsv /dev/null "$bare" "$csv"
    note=""
    if [ "$m_rc" -ne 0 ]; then note="FAILED rc=$m_rc"; else l_ok=1 l_wall=$m_wall; fi
    add_row libcsv "$m_wall" "$m_rss" "$note"
else
    echo "libcsv: bench/csv_bare not built (make bench builds it) - libcsv row skipped"
fi
echo

# ---------------------------------------------------------------- report
awk -F '\t' -v hd="$have_dcutop" -v dw="$d_wall" -v dr="$d_rss" '
BEGIN { printf "%-8s %9s %14s %12s %11s\n", "tool", "wall s", "peak RSS MiB", "wall/dcutop", "RSS/dcutop" }
{
    rw = (hd && dw > 0) ? sprintf("%.2fx", $2 / dw) : "n/a"
    rr = (hd && dr > 0) ? sprintf("%.2fx", $3 / dr) : "n/a"
    printf "%-8s %9.2f %14.1f %12s %11s%s\n", $1, $2, $3 / 1024, rw, rr, ($4 == "" ? "" : "  " $4)
}' "$rows"
echo "CSV size: $csv_mib MiB ($csv_bytes bytes, $N dispatches)"
echo

# goal GOAL_TEXT VALUE LIMIT: prints "VALUE (goal GOAL_TEXT) MET|MISSED"
goal() {
    awk -v t="$1" -v v="$2" -v l="$3" 'BEGIN {
        printf "  %-44s %8.3f  (goal <= %s) %s\n", t, v, l, (v <= l ? "MET" : "MISSED") }'
}
echo "goals (issue 11):"
if [ "$have_dcutop" = 1 ]; then
    [ "$s_ok" = 1 ] && awk -v s="$s_wall" 'BEGIN { exit !(s > 0) }' &&
        goal "dcutop wall / sqlite3 CLI wall" "$(awk -v d="$d_wall" -v s="$s_wall" 'BEGIN { print d / s }')" 0.25
    [ "$l_ok" = 1 ] && awk -v s="$l_wall" 'BEGIN { exit !(s > 0) }' &&
        goal "dcutop wall / bare libcsv wall" "$(awk -v d="$d_wall" -v s="$l_wall" 'BEGIN { print d / s }')" 2.1
    goal "dcutop wall, s" "$d_wall" 2.5
    goal "dcutop peak RSS, MB" "$(awk -v r="$d_rss" 'BEGIN { print r * 1024 / 1e6 }')" 200
    goal "dcutop peak RSS / CSV size" "$(awk -v r="$d_rss" -v b="$csv_bytes" 'BEGIN { print r * 1024 / b }')" 0.4
else
    echo "  dcutop did not run or failed: no goal can be judged"
fi

# ---------------------------------------------------------------- 10x the trace
# The same generator at 10 N (5 GB at N = 1M): dcutop against bare libcsv, and against
# dcutop's own time at N. BENCH_10X=0 skips it (it needs 5 GB of disk and minutes).
if [ "${BENCH_10X:-1}" != 0 ] && [ "$have_dcutop" = 1 ]; then
    N10=$((N * 10))
    echo
    echo "== rocprof v1 CSV, $N10 dispatches =="
    t10=$outdir/trace_$N10
    c10=$t10/results.csv
    mkdir -p "$t10" || exit 2
    if ! [ -s "$c10" ]; then
        g=${GEN:-${BUILD:-build}/bench/gen_results_csv}
        "$g" "$N10" "$c10.tmp.$$" >/dev/null && mv -f "$c10.tmp.$$" "$c10" || { rm -f "$c10.tmp.$$"; c10=""; }
    fi
    if [ -n "$c10" ]; then
        b10=$(wc -c <"$c10" | tr -d ' ')
        echo "trace:   $c10 ($(awk -v b="$b10" 'BEGIN { printf "%.1f", b / 1048576 }') MiB)"
        r10=$logdir/rows10.tsv
        : >"$r10"
        BENCH_RUNS_SAVED=$RUNS RUNS=1
        measure dcutop10 /dev/null ./dcutop --report "$t10/"
        d10_wall=$m_wall d10_rss=$m_rss d10_rc=$m_rc
        printf 'dcutop\t%s\t%s\t%s\n' "$m_wall" "$m_rss" "$([ "$m_rc" -ne 0 ] && echo "FAILED rc=$m_rc")" >>"$r10"
        if [ -n "$bare" ]; then
            measure libcsv10 /dev/null "$bare" "$c10"
            printf 'libcsv\t%s\t%s\t\n' "$m_wall" "$m_rss" >>"$r10"
        fi
        RUNS=$BENCH_RUNS_SAVED
        awk -F '\t' 'BEGIN { printf "%-8s %9s %14s\n", "tool", "wall s", "peak RSS MiB" }
            { printf "%-8s %9.2f %14.1f%s\n", $1, $2, $3 / 1024, ($4 == "" ? "" : "  " $4) }' "$r10"
        echo "goals (issue 11):"
        if [ "$d10_rc" -eq 0 ]; then
            goal "dcutop wall at 10N / at N" "$(awk -v a="$d10_wall" -v b="$d_wall" 'BEGIN { print (b > 0 ? a / b : 0) }')" 12
            goal "dcutop peak RSS at 10N, GB" "$(awk -v r="$d10_rss" 'BEGIN { print r * 1024 / 1e9 }')" 1.5
            goal "dcutop peak RSS / CSV size" "$(awk -v r="$d10_rss" -v b="$b10" 'BEGIN { print r * 1024 / b }')" 0.4
        else
            echo "  dcutop failed at 10N (exit $d10_rc, see $logdir/dcutop10.err)"
        fi
    else
        echo "bench: could not generate $N10 dispatches - 10x section skipped"
    fi
fi

# ---------------------------------------------------------------- PyTorch (Kineto) JSON trace
# N kernels (plus N runtime launches, N/4 cpu_ops, ProfilerStep ranges) from
# bench/gen_kineto_json.c, cached as bench/out/kineto_N/trace.json; dcutop --report against
# python3's json module loading the same file and summing kernel time per name.
# Skipped with BENCH_KINETO=0.
if [ "${BENCH_KINETO:-1}" != 0 ]; then
    echo
    echo "== PyTorch (Kineto) trace, $N kernels =="
    kdir=$outdir/kineto_$N
    kjson=$kdir/trace.json
    mkdir -p "$kdir" || exit 2
    kgen=""
    for c in "${BUILD:-build}/bench/gen_kineto_json" build/bench/gen_kineto_json; do
        [ -x "$c" ] && { kgen=$c; break; }
    done
    if [ -s "$kjson" ]; then
        echo "trace: reusing $kjson"
    elif [ -n "$kgen" ] && "$kgen" "$N" "$kjson.tmp.$$" && mv -f "$kjson.tmp.$$" "$kjson"; then
        echo "trace: generated $kjson with $kgen"
    else
        rm -f "$kjson.tmp.$$"
        echo "bench: gen_kineto_json not built (make bench builds it) - Kineto section skipped"
        kjson=""
    fi
    if [ -n "$kjson" ]; then
        kbytes=$(wc -c <"$kjson" | tr -d ' ')
        echo "trace:   $kjson ($(awk -v b="$kbytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB)"
        krows=$logdir/kineto_rows.tsv
        : >"$krows"
        if [ -x ./dcutop ]; then
            measure dcutop_kineto /dev/null ./dcutop --report "$kjson"
            printf 'dcutop\t%s\t%s\t%s\n' "$m_wall" "$m_rss" "$([ "$m_rc" -ne 0 ] && echo "FAILED rc=$m_rc")" >>"$krows"
        fi
        if [ -x /usr/bin/python3 ]; then
            KPY='import json, sys
agg = {}
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("cat") == "kernel":
        c, t = agg.get(e["name"], (0, 0)); agg[e["name"]] = (c + 1, t + e["dur"])
for k, (c, t) in sorted(agg.items(), key=lambda x: -x[1][1]): print(c, t, k[:60])'
            measure python3_json /dev/null /usr/bin/python3 -c "$KPY" "$kjson"
            printf 'python3\t%s\t%s\t%s\n' "$m_wall" "$m_rss" "$([ "$m_rc" -ne 0 ] && echo "FAILED rc=$m_rc")" >>"$krows"
        fi
        awk -F '\t' 'BEGIN { printf "%-8s %9s %14s\n", "tool", "wall s", "peak RSS MiB" }
            { printf "%-8s %9.2f %14.1f%s\n", $1, $2, $3 / 1024, ($4 == "" ? "" : "  " $4) }' "$krows"
        k_line=$(awk -F '\t' '$1 == "dcutop" && $4 == "" { print $2, $3 }' "$krows")
        if [ -n "$k_line" ]; then
            echo "goals (issue 11, at 1M kernels):"
            goal "dcutop wall, s" "${k_line%% *}" 6
            goal "dcutop peak RSS, MB" "$(awk -v r="${k_line##* }" 'BEGIN { print r * 1024 / 1e6 }')" 400
        fi
        if [ -x "${BUILD:-build}/bench/json_libs" ]; then
            echo "JSON parse alone (bench/json_libs.c, the README's library choice):"
            for lib in yajl json-c; do
                "$TIME" -f "  $lib: %e s, peak RSS %M KiB" "${BUILD:-build}/bench/json_libs" "$lib" "$kjson" >/dev/null
            done
        fi
    fi
fi

# ---------------------------------------------------------------- DuckDB (issue 23)
# dcutop against DuckDB's C library (fetched from npm by bench/fetch_duckdb.sh) at all
# threads and at 1, on the traces above; MET/MISSED per goal of issue 23.
echo
BUILD=${BUILD:-build} sh bench/duckdb_bench.sh "$N"

# ---------------------------------------------------------------- optional TUI section
if [ -x bench/tui_bench.sh ]; then
    echo
    echo "== bench/tui_bench.sh $N =="
    BENCH_N=$N BENCH_TRACE_DIR=$root/$tdir
    export BENCH_N BENCH_TRACE_DIR
    bench/tui_bench.sh "$N"
    rc=$?
    [ "$rc" -ne 0 ] && echo "bench/tui_bench.sh exited with status $rc"
fi
# ---------------------------------------------------------------- runs: 100,000 tiny files
echo
echo "== bench/runs_bench.sh =="
DCUTOP=./dcutop sh bench/runs_bench.sh 100000
# ---------------------------------------------------------------- ranks: 64 x 100k dispatches
echo
echo "== bench/ranks_bench.sh ${BENCH_RANKS:-64} ${BENCH_RANK_DISPATCHES:-100000} =="
DCUTOP=./dcutop sh bench/ranks_bench.sh "${BENCH_RANKS:-64}" "${BENCH_RANK_DISPATCHES:-100000}"
# ---------------------------------------------------------------- map/reduce: 1,024 rank summaries
echo
echo "== bench/jobsum_bench.sh ${BENCH_JOB_RANKS:-1024} ${BENCH_JOB_DISPATCHES:-2000} =="
DCUTOP=./dcutop TIME_BIN=$TIME sh bench/jobsum_bench.sh "${BENCH_JOB_RANKS:-1024}" "${BENCH_JOB_DISPATCHES:-2000}"
# ---------------------------------------------------------------- hostile inputs: linear growth
echo
echo "== bench/hostile_bench.sh =="
DCUTOP=./dcutop sh bench/hostile_bench.sh
# ---------------------------------------------------------------- names: demangled text capped
echo
echo "== bench/names_bench.sh ${BENCH_NAMES:-4000} =="
DCUTOP=./dcutop sh bench/names_bench.sh "${BENCH_NAMES:-4000}"

exit 0
