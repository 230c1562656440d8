#!/bin/sh
# test_variab.sh - variability inside one run (src/model/analysis/variab.c, README "Variability"):
# per kernel golden, time above golden and |z| > 3 outliers in --report --format json, checked
# against the definition computed independently by the sqlite3 CLI over the --save-db output
# of the same trace (float two-pass statistics, golden = min over the non-outliers, sum of
# max(0, dur - golden) taken literally, one group per kernel, launch shape (grid, workgroup)
# and run's dispatch file; collectives, category comm, left out).
# Also: stats-only data is null / n/a (never 0), the export and sort columns, the text report.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

W=sample-traces/dcu-weather-transformer

# The definition, over a saved database: name<TAB>golden<TAB>variability<TAB>outliers
INDEPENDENT="
WITH d AS (SELECT k.name, x.file_id, coalesce(x.grid, -9) AS gr, coalesce(x.workgroup, -9) AS wg,
           x.dur_ns AS dur FROM dispatch x JOIN kernel k
           ON k.id = x.kernel_id WHERE x.file_id IN (SELECT file_id FROM source_layer
           WHERE layer = 'kernel' AND used) AND k.category IS NOT 'comm'),
m AS (SELECT name, file_id, gr, wg, avg(dur) AS mean FROM d GROUP BY 1, 2, 3, 4),
v AS (SELECT d.name, d.file_id, d.gr, d.wg, m.mean, avg((d.dur - m.mean) * (d.dur - m.mean)) AS var
      FROM d JOIN m USING (name, file_id, gr, wg) GROUP BY 1, 2, 3, 4),
c AS (SELECT d.name, d.file_id, d.gr, d.wg, d.dur, (d.dur - v.mean) * (d.dur - v.mean) > 9 * v.var AS outl
      FROM d JOIN v USING (name, file_id, gr, wg)),
g AS (SELECT name, file_id, gr, wg, min(CASE WHEN NOT outl THEN dur END) AS golden, sum(outl) AS outl,
      count(*) AS n FROM c GROUP BY 1, 2, 3, 4),
s AS (SELECT c.name, c.file_id, g.n, g.golden, g.outl, sum(max(0, c.dur - g.golden)) AS var
      FROM c JOIN g USING (name, file_id, gr, wg) GROUP BY c.name, c.file_id, c.gr, c.wg),
r AS (SELECT name, file_id, sum(n) AS n, min(golden) AS golden, sum(outl) AS outl, sum(var) AS var
      FROM s GROUP BY name, file_id)
SELECT name, min(golden), sum(var), sum(outl) FROM r GROUP BY name ORDER BY name;"
# ... and per run: file<TAB>kernels<TAB>dispatches<TAB>variability<TAB>outliers
INDEPENDENT_RUNS=$(echo "$INDEPENDENT" | sed \
    -e 's/^SELECT name, min(golden).*/SELECT f.name, count(*), sum(n), sum(var), sum(outl) FROM r JOIN source_file f ON f.id = r.file_id GROUP BY r.file_id ORDER BY r.file_id;/')

# The same four fields from the report's hotspots, for kernels that have a figure
json_rows() {
    sqlite3 -batch -init /dev/null -separator '	' :memory: \
        "SELECT json_extract(value, '\$.name'), json_extract(value, '\$.golden_ns'),
                json_extract(value, '\$.var_ns'), json_extract(value, '\$.outliers')
         FROM json_each(readfile('$1'), '\$.hotspots')
         WHERE json_extract(value, '\$.var_ns') IS NOT NULL ORDER BY 1;"
}

# compare LABEL PATH: the report's figures equal the independent ones, kernel by kernel
compare() {
    label=$1
    shift
    rm -f "$TMP/v.db"
    "$DCUTOP" -q --save-db "$TMP/v.db" "$@" && "$DCUTOP" -q --report --format json "$@" >"$TMP/v.json"
    check "$label: --save-db and --report --format json exit 0" [ $? -eq 0 ]
    sqlite3 -batch -init /dev/null -separator '	' "$TMP/v.db" "$INDEPENDENT" >"$TMP/v.exp"
    json_rows "$TMP/v.json" >"$TMP/v.act"
    n=$(wc -l <"$TMP/v.exp")
    check "$label: some kernels have per-dispatch data ($n)" [ "$n" -gt 0 ]
    if cmp -s "$TMP/v.exp" "$TMP/v.act"; then
        ok "$label: golden, variability and outliers of all $n kernels = sqlite3 over --save-db"
    else
        notok "$label: golden, variability and outliers per kernel = sqlite3 over --save-db"
        diff "$TMP/v.exp" "$TMP/v.act" | head -6 | sed 's/^/#   /'
    fi
    tot=$(sqlite3 -batch -init /dev/null "$TMP/v.db" \
        "SELECT coalesce(sum(var_ns), 0) FROM kernel_summary")
    exp_tot=$(awk -F '	' '{ s += $3 } END { printf "%d\n", s }' "$TMP/v.exp")
    act_tot=$(sqlite3 -batch -init /dev/null :memory: \
        "SELECT json_extract(readfile('$TMP/v.json'), '\$.totals.variability_ns')")
    same "$label: totals.variability_ns = the kernels' sum" "$exp_tot" "$act_tot"
    same "$label: kernel_summary.var_ns in the saved database sums the same" "$exp_tot" "$tot"
    sqlite3 -batch -init /dev/null -separator '	' "$TMP/v.db" "$INDEPENDENT_RUNS" >"$TMP/r.exp"
    sqlite3 -batch -init /dev/null -separator '	' :memory: \
        "SELECT json_extract(value, '\$.file'), json_extract(value, '\$.kernels'),
                json_extract(value, '\$.dispatches'), json_extract(value, '\$.var_ns'),
                json_extract(value, '\$.outliers')
         FROM json_each(readfile('$TMP/v.json'), '\$.variability_runs')" >"$TMP/r.act"
    if [ -s "$TMP/r.exp" ] && cmp -s "$TMP/r.exp" "$TMP/r.act"; then
        ok "$label: variability_runs ($(wc -l <"$TMP/r.exp") runs) = sqlite3 per dispatch file"
    else
        notok "$label: variability_runs = sqlite3 per dispatch file"
        diff "$TMP/r.exp" "$TMP/r.act" | head -6 | sed 's/^/#   /'
    fi
}

compare "weather (rocprof v1 results.csv)" "$W"
compare "llama.cpp (rocprof v1, real)" sample-traces/llamacpp-rocprof-v1-stats
compare "rocprofv3 kernel_trace.csv (real)" sample-traces/rocprofv3-sdk-docs-csv
if [ -d "$REAL/pytorch-h200-ddp-2rank" ]; then
    # two ranks: two runs, each with its own golden per kernel
    compare "PyTorch DDP, 2 ranks (Kineto JSON, real)" "$REAL/pytorch-h200-ddp-2rank"
    runs=$(sqlite3 -batch -init /dev/null "$TMP/v.db" "SELECT count(DISTINCT file_id) FROM dispatch
        WHERE file_id IN (SELECT file_id FROM source_layer WHERE layer = 'kernel' AND used)")
    same "PyTorch DDP: two per-dispatch runs" 2 "$runs"
    compare "rocprofv3 database (real)" "$REAL/llamacpp-rocprofv3-rocpd"
    # four runs of two programs: added only when asked (--run all), each with its own golden
    compare "PyTorch A-B-B-A, 4 runs (Kineto JSON, real)" --run all "$REAL/pytorch-h200-abba-sdpa"
else
    ok "real samples under $REAL - skipped (not present)"
fi

# One golden per run, not one over all runs: a kernel 2x slower in a second run is not
# "variability inside a run". Run a: 100, 110 (golden 100, +10); run b: 200, 230 (+30); the
# runs added as asked (--run all: the default shows one run).
mkdir -p "$TMP/two/a" "$TMP/two/b"
for r in a:100:110 b:200:230; do
    dir=${r%%:*}
    rest=${r#*:}
    {
        printf 'Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,'
        printf 'Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,Kernel_Name,'
        printf 'Start_Timestamp,End_Timestamp,Correlation_ID\n\n'
        printf '1,1,0,7,7,1,1,0,0,8,0,8,64,"void k(int)",1000,%d,1\n' $((1000 + ${rest%%:*}))
        printf '2,1,0,7,7,1,1,0,0,8,0,8,64,"void k(int)",5000,%d,2\n' $((5000 + ${rest#*:}))
    } >"$TMP/two/$dir/results_7.csv"
done
"$DCUTOP" -q --export hotspots --run all "$TMP/two" >"$TMP/two.csv"
same "two runs: variability 10 + 30, golden 100 (the shortest of the runs' goldens)" \
    "40,100,0" "$(csvq "$TMP/two.csv" "select var_ns || ',' || golden_ns || ',' || outliers from t" | tail -1)"
compare "two generated runs" --run all "$TMP/two"
"$DCUTOP" -q --report --run all "$TMP/two" >"$TMP/two.txt"
check "two runs: the text report lists variability per run" \
    grep -Eq '^  b/results_7\.csv +1 +2 +[0-9.]+ +30(\.00)? ' "$TMP/two.txt"

# ---------------------------------------------------------------- stats only: n/a, never 0
K=sample-traces/kokkos-rocprof-v1-hiptrace-rocm4
"$DCUTOP" -q --report --format json "$K" >"$TMP/k.json"
same "stats only: totals.variability_ns is null" "null" \
    "$(sqlite3 -batch -init /dev/null :memory: \
        "SELECT json_type(readfile('$TMP/k.json'), '\$.totals.variability_ns')")"
same "stats only: every hotspot has var_ns, golden_ns and outliers null" "0" \
    "$(sqlite3 -batch -init /dev/null :memory: \
        "SELECT count(*) FROM json_each(readfile('$TMP/k.json'), '\$.hotspots') WHERE
         json_type(value, '\$.var_ns') <> 'null' OR json_type(value, '\$.golden_ns') <> 'null'
         OR json_type(value, '\$.outliers') <> 'null'")"
"$DCUTOP" -q --report "$K" >"$TMP/k.txt"
check "stats only: the text report says variability is n/a" \
    grep -q '^Variability n/a: aggregated stats only' "$TMP/k.txt"
check "stats only: no Var column in the text hotspots" sh -c "! grep -q 'Var(' '$TMP/k.txt'"

# ---------------------------------------------------------------- export, sort, text report
"$DCUTOP" -q --export hotspots --sort var_ns "$W" >"$TMP/s.csv"
check "--export hotspots --sort var_ns exits 0" [ $? -eq 0 ]
csvq "$TMP/s.csv" "select var_ns from t" >"$TMP/s.var"
check "--sort var_ns: largest variability first" sort -c -n -r "$TMP/s.var"
"$DCUTOP" -q --report --width 120 "$W" >"$TMP/w.txt"
"$DCUTOP" -q --report --format json "$W" >"$TMP/v.json"
vt=$(sqlite3 -batch -init /dev/null :memory: \
    "SELECT printf('%.1f ms', json_extract(readfile('$TMP/v.json'), '\$.totals.variability_ns') / 1e6)")
check "text report: the Variability line gives the JSON total ($vt)" \
    grep -q "^Variability $vt above each kernel's golden" "$TMP/w.txt"
check "text report: hotspots and categories have a Var column" \
    sh -c "[ \$(grep -c 'Var(ms)' '$TMP/w.txt') -eq 2 ]"

# ---------------------------------------------------------------- collectives, RAPTOR's VarSum
DDP=$REAL/pytorch-h200-ddp-2rank
RPD=$REAL/rpd-matmul/matmul_result.rpd
"$DCUTOP" -q --report --format json "$DDP" >"$TMP/ddp.json"
# a collective's spread is waiting for the slowest rank: no variability, and the runs' Var
# equal the raw JSON's time above golden over the other kernels
same "ddp job: Var per run = the raw JSON's time above golden, NCCL kernels left out" \
    "$(python3 tests/cli/ranks_oracle.py "$DDP" | sed -n 's/^var //p')" \
    "$(python3 -c '
import json, sys
for i, r in enumerate(json.load(open(sys.argv[1]))["variability_runs"]):
    print(i, r["var_ns"])' "$TMP/ddp.json")"
same "ddp job: the NCCL kernels have no variability (null)" "None None None" \
    "$(python3 -c '
import json, sys
for h in json.load(open(sys.argv[1]))["hotspots"]:
    if "nccl" in h["name"].lower():
        print(h["var_ns"], h["golden_ns"], h["outliers"])' "$TMP/ddp.json" | sort -u)"
# RAPTOR's VarSum as RAPTOR computes it: per run, against raptor_oracle.py over the raw
# files (the RPD through its own op view, as RAPTOR reads it)
"$DCUTOP" -q --report --format json "$RPD" >"$TMP/rpd.json"
same "RAPTOR's VarSum and its comm part per run = raptor_oracle.py over the raw RPD and Kineto files" \
    "$(python3 tests/cli/raptor_oracle.py "$RPD" "$DDP"/rank0.trace.json.gz "$DDP"/rank1.trace.json.gz)" \
    "$(python3 -c '
import json, sys
for p in sys.argv[1:]:
    for r in json.load(open(p))["variability_runs"]:
        print(r["file"].split("/")[-1], r["raptor_var_ns"], r["raptor_comm_ns"])' "$TMP/rpd.json" "$TMP/ddp.json")"
"$DCUTOP" -q --report --width 200 "$RPD" >"$TMP/rpd.txt"
check "text report: RAPTOR's VarSum has its own line, labelled" \
    grep -q "^RAPTOR's VarSum 483 ns (each kernel with the two ops before it, (mean - min) x calls" "$TMP/rpd.txt"
# the documents call dcutop's figure its own and state RAPTOR's
check "docs: dcutop's Var is not said to be computed as RAPTOR computes it" \
    sh -c "! grep -rqi 'as ROCm.s RAPTOR computes it' doc/manual.md README.md dcutop.1 include/dcutop/variab.h"
check "docs: RAPTOR's VarSum defined as RAPTOR computes it" \
    sh -c "tr -s ' \n' ' ' <doc/manual.md | grep -q 'each op is grouped with the two ops before it' &&
           tr -s ' \n' ' ' <doc/manual.md | grep -q '(mean − min) × calls'"
printf '2\n/nccl\n<Enter>\n<Enter>\n:dump kernel\n' >"$TMP/k.keys"
"$DCUTOP" --headless --size 120x40 --keys "$TMP/k.keys" "$DDP" >"$TMP/k.out" 2>&1
check "Kernel detail of an NCCL kernel says why it has no variability" \
    grep -q "Variability  n/a (a collective: its time waits for the slowest rank)" "$TMP/k.out"
