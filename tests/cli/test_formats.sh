#!/bin/sh
# test_formats.sh - profiler databases and JSON traces on the real samples, against numbers
# computed independently here: the sqlite3 CLI over the same databases (read-only), a python3
# one-liner over the JSON (only where /usr/bin/python3 exists, else an ok line says skipped),
# and climate_oracle.json (per-kernel calls and summed us written by the run that made the
# PyTorch traces). Also: the timeline numbers (wall, busy, short kernels) against SQL over the
# rocpd views, --amdahl-basis, and that no input file changed (sha256 before and after).
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

L=$REAL/llamacpp-rocprof-v1-stats
K=$REAL/kokkos-rocprof-v1-hiptrace-rocm4
P=$REAL/llamacpp-rocprofv3-rocpd
Q=$REAL/pytorch-kineto-mi300-qwen
C=$REAL/pytorch-h200-climate-transformer
if [ ! -f "$L/results.db" ] || [ ! -f "$P/32432_results.db" ] || [ ! -d "$C" ]; then
    ok "real database/JSON samples not found under $REAL - skipped"
    exit 0
fi
PY=""
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

INPUTS="$L/results.db $L/results.json $K/results.db $K/results.json $P/32432_results.db
$Q/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz $C/climate_infer.trace.json.gz $C/climate_train.trace.json.gz"
# shellcheck disable=SC2086
sha256sum $INPUTS >"$TMP/sha.before"

# sq DB SQL: the sqlite3 CLI, read-only, tab-separated
sq() {
    sqlite3 -batch -init /dev/null -readonly "$1" '.mode tabs' "$2"
}
# kernel-name normalisation as FORMATS.md 6.2 says: quotes, then ' [clone .kd]' / '.kd'
NORM="CASE WHEN n LIKE '% [clone .kd]' THEN substr(n, 1, length(n) - 12)
           WHEN n LIKE '%.kd' THEN substr(n, 1, length(n) - 3) ELSE n END"
# hot NAME ARGS...: dcutop hotspots as "name calls total min max", sorted
hot() {
    _n=$1
    shift
    dexp "$_n" hotspots "$@" || notok "$_n: dcutop --export hotspots exits 0"
    csvq "$TMP/$_n.csv" 'select name, cast(calls as integer), cast(total_ns as integer), min_ns, max_ns from t' |
        LC_ALL=C sort >"$TMP/$_n.act"
}
# status NAME FILESCSV FILE: the Files table's status of FILE
status_of() {
    csvq "$1" "select status from t where name = '$2'"
}

# ================================================================ rocprof v1 results.db (ROCm 7, KERN)
sq "$L/results.db" "SELECT $NORM, count(*), sum(EndNs - BeginNs), min(EndNs - BeginNs), max(EndNs - BeginNs)
    FROM (SELECT trim(KernelName, '\"') AS n, BeginNs, EndNs FROM KERN) GROUP BY 1" | LC_ALL=C sort >"$TMP/ldb.exp"
hot ldb "$L/results.db"
same "llama results.db: kernels (sqlite3 over KERN)" "$(wc -l <"$TMP/ldb.exp")" "$(wc -l <"$TMP/ldb.act")"
cmp_keyed "llama results.db: calls,total,min,max of" "$TMP/ldb.exp" "$TMP/ldb.act"
same "llama results.db: dispatches" "$(sq "$L/results.db" 'SELECT count(*) FROM KERN')" \
    "$(csvq "$TMP/ldb.csv" 'select sum(calls) from t')"

# results.json of the same run: the same dispatches (python3 over the JSON)
hot ljs "$L/results.json"
if [ -n "$PY" ]; then
    "$PY" -c '
import json, sys
def norm(n):
    n = n.strip().strip("\"")
    return n[:-12] if n.endswith(" [clone .kd]") else n[:-3] if n.endswith(".kd") else n
agg = {}
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    a = e.get("args", {})
    if e.get("ph") == "X" and "KernelName" in a:
        d = int(a["EndNs"]) - int(a["BeginNs"]); k = norm(a["KernelName"])
        c, t, lo, hi = agg.get(k, (0, 0, d, d)); agg[k] = (c + 1, t + d, min(lo, d), max(hi, d))
for k, (c, t, lo, hi) in agg.items(): print("%s\t%d\t%d\t%d\t%d" % (k, c, t, lo, hi))' "$L/results.json" |
        LC_ALL=C sort >"$TMP/ljs.exp"
    cmp_keyed "llama results.json: calls,total,min,max of" "$TMP/ljs.exp" "$TMP/ljs.act"
else
    ok "llama results.json vs python3 - skipped (no /usr/bin/python3)"
fi
same_text "llama results.json holds the same dispatches as results.db" "$(cat "$TMP/ldb.act")" "$(cat "$TMP/ljs.act")"

# the folder: CSV, DB and JSON of one run are not counted three times
dexp lf files "$L" || notok "llama folder: --export files exits 0"
check "llama folder: results.db superseded by results.csv" \
    sh -c "echo '$(status_of "$TMP/lf.csv" results.db)' | grep -q '^superseded by results.csv'"
check "llama folder: results.json superseded by results.csv" \
    sh -c "echo '$(status_of "$TMP/lf.csv" results.json)' | grep -q '^superseded by results.csv'"
same "llama folder: rows read from results.db = KERN rows" "$(sq "$L/results.db" 'SELECT count(*) FROM KERN')" \
    "$(csvq "$TMP/lf.csv" "select rows from t where name = 'results.db'")"
"$DCUTOP" -q --report --format json "$L" >"$TMP/lfold.json"
same "llama folder: kernel time counted once (= sum over KERN)" \
    "$(sq "$L/results.db" 'SELECT sum(EndNs - BeginNs) FROM KERN')" "$(json_num "$TMP/lfold.json" kernel_ns)"

# ================================================================ rocprof v1 results.db (ROCm 4.0 columns)
sq "$K/results.db" "SELECT Name, count(*), sum(EndNs - BeginNs), min(EndNs - BeginNs), max(EndNs - BeginNs)
    FROM OPS WHERE Name NOT IN ('Unknown command type', '<barrier packet>') GROUP BY 1" | LC_ALL=C sort >"$TMP/kdb.exp"
hot kdb "$K/results.db"
cmp_keyed "kokkos results.db: OPS kernels calls,total,min,max of" "$TMP/kdb.exp" "$TMP/kdb.act"
sq "$K/results.db" "SELECT Name, count(*), sum(EndNs - BeginNs) FROM HIP GROUP BY 1" | LC_ALL=C sort >"$TMP/kapi.exp"
dexp kapi api "$K/results.db" || notok "kokkos: --export api exits 0"
csvq "$TMP/kapi.csv" 'select name, cast(calls as integer), cast(total_ns as integer) from t' | LC_ALL=C sort >"$TMP/kapi.act"
cmp_keyed "kokkos results.db: HIP API calls,total of" "$TMP/kapi.exp" "$TMP/kapi.act"
sq "$K/results.db" "SELECT Name, count(*), sum(EndNs - BeginNs) FROM COPY GROUP BY 1" | LC_ALL=C sort >"$TMP/kcp.exp"
dexp kcp copies "$K/results.db" || notok "kokkos: --export copies exits 0"
csvq "$TMP/kcp.csv" 'select name, cast(calls as integer), cast(total_ns as integer) from t' | LC_ALL=C sort >"$TMP/kcp.act"
cmp_keyed "kokkos results.db: COPY calls,total of" "$TMP/kcp.exp" "$TMP/kcp.act"
rm -f "$TMP/k.db"
"$DCUTOP" -q --save-db "$TMP/k.db" "$K/results.db"
same "kokkos results.db: rocTX ranges (quotes stripped)" \
    "$(sq "$K/results.db" "SELECT count(*) || ' ' || sum(EndNs - BeginNs) || ' ' || min(trim(Name, '\"')) FROM rocTX")" \
    "$(sq "$TMP/k.db" "SELECT count(*) || ' ' || sum(end_ns - start_ns) || ' ' || min(name) FROM range")"
same "kokkos results.db: launches linked to kernels by Index" \
    "$(sq "$K/results.db" "SELECT count(*) FROM OPS o JOIN HIP h ON h.\"Index\" = o.\"Index\" WHERE o.Name <> 'Unknown command type'")" \
    "$(sq "$TMP/k.db" 'SELECT count(*) FROM dispatch d JOIN api_call a ON a.corr_id = d.corr_id')"
# results.json of the same run: same kernels, API calls and copies as the DB
hot kjs "$K/results.json"
same_text "kokkos results.json: kernels as in results.db" "$(cat "$TMP/kdb.exp")" "$(cat "$TMP/kjs.act")"
dexp kjapi api "$K/results.json" || notok "kokkos json: --export api exits 0"
csvq "$TMP/kjapi.csv" 'select name, cast(calls as integer), cast(total_ns as integer) from t' | LC_ALL=C sort >"$TMP/kjapi.act"
same_text "kokkos results.json: HIP API as in results.db" "$(cat "$TMP/kapi.exp")" "$(cat "$TMP/kjapi.act")"
# the folder: the DB supersedes the stats CSVs and the JSON
dexp kf files "$K" || notok "kokkos folder: --export files exits 0"
for f in results.stats.csv results.hip_stats.csv results.copy_stats.csv results.json; do
    check "kokkos folder: $f superseded by results.db" \
        sh -c "echo '$(status_of "$TMP/kf.csv" $f)' | grep -q '^superseded by results.db'"
done

# ================================================================ rocpd (rocprofv3)
sq "$P/32432_results.db" "SELECT name, count(*), sum(duration), min(duration), max(duration) FROM kernels GROUP BY name" |
    LC_ALL=C sort >"$TMP/rp.exp"
hot rp "$P/32432_results.db"
same "rocpd: kernels (sqlite3 over the kernels view)" "$(wc -l <"$TMP/rp.exp")" "$(wc -l <"$TMP/rp.act")"
cmp_keyed "rocpd: calls,total,min,max of" "$TMP/rp.exp" "$TMP/rp.act"
same "rocpd: schema_version read is 3" "3" "$(sq "$P/32432_results.db" "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'")"
"$DCUTOP" -q --report --view timeline --format json "$P/32432_results.db" >"$TMP/rpt.json"
check "rocpd: --view timeline --format json exits 0 and is JSON" sh -c "[ -s '$TMP/rpt.json' ] && { [ -z '$PY' ] || $PY -m json.tool '$TMP/rpt.json' >/dev/null; }"
same "rocpd timeline: dispatches" "$(sq "$P/32432_results.db" 'SELECT count(*) FROM kernels')" "$(json_num "$TMP/rpt.json" dispatches)"
same "rocpd timeline: kernel time = busy view GpuTime" "$(sq "$P/32432_results.db" 'SELECT GpuTime FROM busy')" "$(json_num "$TMP/rpt.json" kernel_ns)"
same "rocpd timeline: wall = busy view WallTime" "$(sq "$P/32432_results.db" 'SELECT WallTime FROM busy')" "$(json_num "$TMP/rpt.json" wall_ns)"
# busy = union of kernel intervals (gaps and islands in SQL)
same "rocpd timeline: busy = union of kernel intervals" "$(sq "$P/32432_results.db" "
    WITH o AS (SELECT start, \"end\", max(\"end\") OVER (ORDER BY start, \"end\" ROWS BETWEEN UNBOUNDED PRECEDING
               AND 1 PRECEDING) AS pm FROM kernels),
         g AS (SELECT start, \"end\", sum(CASE WHEN pm IS NULL OR start > pm THEN 1 ELSE 0 END)
               OVER (ORDER BY start, \"end\") AS grp FROM o)
    SELECT sum(e - s) FROM (SELECT min(start) AS s, max(\"end\") AS e FROM g GROUP BY grp)")" "$(json_num "$TMP/rpt.json" busy_ns)"
same "rocpd timeline: short kernels (< 10 us)" "$(sq "$P/32432_results.db" 'SELECT count(*) FROM kernels WHERE duration < 10000')" \
    "$(json_num "$TMP/rpt.json" short_dispatches)"
same "rocpd timeline: launch gaps = dispatches - streams" \
    "$(sq "$P/32432_results.db" 'SELECT count(*) - count(DISTINCT agent_abs_index || "/" || stream_id) FROM kernels')" \
    "$(json_num "$TMP/rpt.json" gaps)"
# Amdahl over wall time: ceiling = 1 / (1 - gemm_ns / WallTime)
dexp rpc categories --amdahl-basis wall "$P/32432_results.db" || notok "rocpd: --export categories --amdahl-basis wall exits 0"
gemm=$(csvq "$TMP/rpc.csv" "select total_ns from t where category = 'GEMM'")
wall=$(sq "$P/32432_results.db" 'SELECT WallTime FROM busy')
near "rocpd: --amdahl-basis wall: GEMM ceiling = 1/(1 - GEMM/WallTime)" \
    "$(csvq "$TMP/rpc.csv" "select ceiling from t where category = 'GEMM'")" \
    "$(awk -v g="$gemm" -v w="$wall" 'BEGIN { printf "%.9f", 1 / (1 - g / w) }')" 0.000001
dexp rpk categories "$P/32432_results.db" || notok "rocpd: --export categories exits 0"
near "rocpd: default basis: GEMM ceiling = 1/(1 - GEMM/kernel time)" \
    "$(csvq "$TMP/rpk.csv" "select ceiling from t where category = 'GEMM'")" \
    "$(awk -v g="$gemm" -v k="$(sq "$P/32432_results.db" 'SELECT GpuTime FROM busy')" 'BEGIN { printf "%.9f", 1 / (1 - g / k) }')" 0.000001
exits "--amdahl-basis must be kernel or wall (usage error)" 2 "$DCUTOP" --report --amdahl-basis gpu "$P"

# ================================================================ PyTorch (Kineto), H200: climate_oracle.json
for run in infer train; do
    f=$C/climate_$run.trace.json.gz
    hot "c$run" "$f"
    if [ -n "$PY" ]; then
        "$PY" -c '
import json, sys
o = json.load(open(sys.argv[1]))[sys.argv[2]]
for k in o["kernels"]: print("%s\t%d\t%d" % (k["name"], k["calls"], round(k["total_us"] * 1000)))' \
            "$C/climate_oracle.json" $run | LC_ALL=C sort >"$TMP/c$run.exp"
        cut -f 1-3 "$TMP/c$run.act" >"$TMP/c$run.act3"
        cmp_keyed "climate $run (oracle): calls,total of" "$TMP/c$run.exp" "$TMP/c$run.act3"
        same "climate $run: dispatches = oracle dispatches" \
            "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["dispatches"])' "$C/climate_oracle.json" $run)" \
            "$(csvq "$TMP/c$run.csv" 'select sum(calls) from t')"
    else
        ok "climate $run vs climate_oracle.json - skipped (no /usr/bin/python3)"
    fi
done
# iterations: SOURCE.txt says 3 inference steps and 2 training steps (no ProfilerStep markers)
"$DCUTOP" -q --report --view timeline --format json "$C/climate_infer.trace.json.gz" >"$TMP/ci.json"
"$DCUTOP" -q --report --view timeline --format json "$C/climate_train.trace.json.gz" >"$TMP/ct.json"
same "climate infer: 3 iterations detected (3 steps in SOURCE.txt)" 3 "$(json_num "$TMP/ci.json" iterations)"
same "climate infer: 432 / 3 = 144 dispatches per iteration" 144 "$(json_num "$TMP/ci.json" iteration_period)"
same "climate train: 2 iterations detected (2 steps in SOURCE.txt)" 2 "$(json_num "$TMP/ct.json" iterations)"
same "climate train: 768 / 2 = 384 dispatches per iteration" 384 "$(json_num "$TMP/ct.json" iteration_period)"
if [ -n "$PY" ]; then
    same "climate infer timeline: short kernels (python3 over the JSON)" \
        "$("$PY" -c '
import json, gzip, sys
print(sum(1 for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("cat") == "kernel" and round(e["dur"] * 1000) < 10000))' \
            "$C/climate_infer.trace.json.gz")" "$(json_num "$TMP/ci.json" short_dispatches)"
    same "climate infer timeline: wall span (python3 over the JSON)" \
        "$("$PY" -c '
import json, gzip, sys
k = [e for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("cat") == "kernel"]
s = [round(e["ts"] * 1000) for e in k]; print(max(a + round(e["dur"] * 1000) for a, e in zip(s, k)) - min(s))' \
            "$C/climate_infer.trace.json.gz")" "$(json_num "$TMP/ci.json" wall_ns)"
else
    ok "climate timeline vs python3 - skipped (no /usr/bin/python3)"
fi

# ================================================================ PyTorch (Kineto), MI300 Qwen: ProfilerStep
QF=$Q/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
hot qw "$QF"
rm -f "$TMP/q.db"
"$DCUTOP" -q --save-db "$TMP/q.db" "$QF"
"$DCUTOP" -q --report --view timeline --format json "$QF" >"$TMP/qt.json"
if [ -n "$PY" ]; then
    "$PY" -c '
import json, gzip, sys
agg = {}
for e in json.load(gzip.open(sys.argv[1]))["traceEvents"]:
    if e.get("cat") == "kernel":
        c, t = agg.get(e["name"], (0, 0)); agg[e["name"]] = (c + 1, t + round(e["dur"] * 1000))
for k, (c, t) in agg.items(): print("%s\t%d\t%d" % (k, c, t))' "$QF" | LC_ALL=C sort >"$TMP/qw.exp"
    cut -f 1-3 "$TMP/qw.act" >"$TMP/qw.act3"
    cmp_keyed "qwen (python3): kernel calls,total of" "$TMP/qw.exp" "$TMP/qw.act3"
    "$PY" -c '
import json, gzip, sys
from collections import Counter
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
c = Counter(e.get("cat") for e in ev if e.get("ph") == "X")
py = [e for e in ev if e.get("cat") == "python_function"]
print(c["kernel"], c["cuda_runtime"], c["gpu_memcpy"] + c["gpu_memset"], c["cpu_op"], c["python_function"],
      sum(1 for e in py if e["args"].get("Python parent id") is not None))
rt = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("cat") == "cuda_runtime"}
st = [e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")][0]
ks = [e for e in ev if e.get("cat") == "kernel"]
print(sum(1 for k in ks if k["args"]["correlation"] in rt and st["ts"] <= rt[k["args"]["correlation"]] <= st["ts"] + st["dur"]))
print(sum(1 for k in ks if k["args"]["correlation"] in rt))' "$QF" >"$TMP/qc.exp"
    same "qwen: kernels, runtime calls, copies, cpu_ops, python frames, frames with a parent" \
        "$(head -1 "$TMP/qc.exp")" \
        "$(sq "$TMP/q.db" "SELECT (SELECT count(*) FROM dispatch) || ' ' || (SELECT count(*) FROM api_call) || ' ' ||
            (SELECT count(*) FROM copy) || ' ' || (SELECT count(*) FROM cpu_op) || ' ' || (SELECT count(*) FROM py_frame)
            || ' ' || (SELECT count(*) FROM py_frame WHERE parent_id IS NOT NULL)")"
    same "qwen: kernels linked to a runtime call by correlation id (python3 count)" "$(sed -n 3p "$TMP/qc.exp")" \
        "$(sq "$TMP/q.db" 'SELECT count(*) FROM dispatch d WHERE EXISTS (SELECT 1 FROM api_call a WHERE a.corr_id = d.corr_id)')"
    same "qwen: dispatches launched inside ProfilerStep#6" "$(sed -n 2p "$TMP/qc.exp")" \
        "$(csvq "$("$DCUTOP" -q --report --view timeline --format csv "$QF" | awk '/^# iterations/ { on = 1; next } /^# / { on = 0 } on' | tr -d '\r' >"$TMP/qi.csv"; echo "$TMP/qi.csv")" \
            "select dispatches from t where name = 'ProfilerStep#6'")"
else
    ok "qwen vs python3 - skipped (no /usr/bin/python3)"
fi
same "qwen: one iteration, from the ProfilerStep annotation" "annotation 1" \
    "$(sed -n 's/.*"iteration_source": "\([a-z]*\)", "iterations": \([0-9]*\).*/\1 \2/p' "$TMP/qt.json")"
same "qwen: kernels with an External id reach their aten op" \
    "$(sq "$TMP/q.db" 'SELECT count(*) FROM ext_link l JOIN dispatch d ON d.corr_id = l.corr_id')" \
    "$(sq "$TMP/q.db" 'SELECT count(*) FROM dispatch d JOIN ext_link l ON l.corr_id = d.corr_id JOIN cpu_op o ON o.ext_id = l.ext_id')"

# ================================================================ text report and inputs unchanged
"$DCUTOP" -q --report "$C" >"$TMP/crep.txt"
check "climate folder: the text report has a Timeline section" grep -q '^Timeline: per-dispatch timestamps' "$TMP/crep.txt"
dexp cf files "$C" || notok "climate folder: --export files exits 0"
check "climate folder: the oracle JSON is listed as not a trace" \
    sh -c "echo '$(status_of "$TMP/cf.csv" climate_oracle.json)' | grep -q 'no traceEvents'"
"$DCUTOP" -q --report --format csv --view timeline "$P" >"$TMP/rp.csv"
check "--view timeline --format csv has a devices block" grep -q '^# devices' "$TMP/rp.csv"
# shellcheck disable=SC2086
sha256sum $INPUTS >"$TMP/sha.after"
same_text "every database and JSON input is byte-identical after loading" "$(cat "$TMP/sha.before")" "$(cat "$TMP/sha.after")"
