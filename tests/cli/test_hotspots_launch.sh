#!/bin/sh
# test_hotspots_launch.sh - Hotspots' launch-statistics column group (issue 22, idle.h):
# per kernel, as HTA's get_cuda_kernel_launch_stats computes them (launch_stats.c): over its
# dispatches launched by cudaLaunchKernel (HIP: hipLaunchKernel; cuLaunchKernelEx left out),
# on whole-us events, how many (launched), the call's median duration, HTA's launch delay
# (start - call start + call duration) median, p95 (pandas' quantile) and max, the share
# short (call <= 50 us and shorter on the GPU), the delays over 100 us. The top kernels of
# the real Kineto trace and of the RPD are checked against HTA's rules applied to the raw
# events (hta_oracle.py over the JSON, python3's sqlite3 over the .rpd); a stats-only and a
# kernel-only trace get no such
# columns; the existing columns keep their places; the TUI shows, sorts and drops them.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg XDG_STATE_HOME=$TMP/state TZ=UTC LC_ALL=C.UTF-8
export XDG_CONFIG_HOME XDG_STATE_HOME TZ LC_ALL
K=$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz
RPD=$REAL/rpd-matmul/matmul_result.rpd
LAUNCH="launched,call_p50_ns,delay_p50_ns,delay_p95_ns,delay_max_ns,short_launch_pct,delay_outliers"

# the launch figures of the first N rows of a hotspots CSV (name first), one line each
cat >"$TMP/pick.py" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = sys.argv[3].split(",")
for r in rows[:int(sys.argv[2])]:
    v = []
    for k in keys:
        x = r.get(k, "MISSING")
        v.append("%.3f" % float(x) if x not in ("", "MISSING") else x)
    print(r["name"] + "|" + ",".join(v))
PY

# the same figures by HTA's rules (hta_oracle.py's): lines "name|launches, delay p50, p95,
# max, call p50, p95, max, short, delay outliers, call outliers" on stdin, the hotspot
# columns out, for the names of argv[1]'s first N rows
cat >"$TMP/stats.py" <<'PY'
import csv, sys
want = [r["name"] for r in list(csv.DictReader(open(sys.argv[1])))[:int(sys.argv[2])]]
by = {}
for line in sys.stdin:
    n, v = line.rstrip("\n").rsplit("|", 1)
    by[n] = [float(x) for x in v.split(",")]
for n in want:
    v = by.get(n)
    if not v:
        print(n + "|" + ",".join([""] * 7))
        continue
    print(n + "|" + ",".join("%.3f" % x for x in
                             [v[0], v[4], v[1], v[2], v[3], 100.0 * v[7] / v[0], v[8]]))
PY

# ---- Kineto: kernels and their cuda_runtime / cuda_driver call by args.correlation ----------
"$DCUTOP" -q --export hotspots "$K" >"$TMP/k.csv"
head -1 "$TMP/k.csv" | tr ',' '\n' >"$TMP/k.head"
same "Kineto: the launch group ends the export's columns, the others keep their places" \
    "name,short_name,category,calls,total_ns,avg_ns,min_ns,max_ns,stddev_ns,pct,cum_pct,ceiling,var_ns,golden_ns,outliers,name_raw,flops,bytes,intensity,tflops,gbps,pct_peak,bound,peak_ns,$LAUNCH" \
    "$(head -1 "$TMP/k.csv" | tr -d '\r')"
python3 "$TMP/pick.py" "$TMP/k.csv" 8 "$LAUNCH" >"$TMP/k.got"
python3 tests/cli/hta_oracle.py launch "$K" | python3 "$TMP/stats.py" "$TMP/k.csv" 8 >"$TMP/k.want"
check "Kineto: 8 kernels compared" test "$(wc -l <"$TMP/k.want")" -eq 8
if cmp -s "$TMP/k.want" "$TMP/k.got"; then
    ok "Kineto: launched, call p50, delay p50/p95/max, short%, outliers of the top 8 kernels as HTA's rules give them over the raw events"
else
    notok "Kineto: launch figures differ from the raw events"
    diff "$TMP/k.want" "$TMP/k.got" | head -6 | sed 's/^/#   /'
fi
check "Kineto: some top kernel is shorter than its launch call (the check is not vacuous)" \
    awk -F'|' '{ split($2, v, ","); if (v[6] + 0 > 0) f = 1 } END { exit !f }' "$TMP/k.got"
check "Kineto: some top kernel has no launch of HTA's set (cuLaunchKernelEx: left out)" \
    awk -F'|' '$2 ~ /^,/ { f = 1 } END { exit !f }' "$TMP/k.got"

# ---- RPD: ops and their launching API call through rocpd_api_ops ----------------------------
"$DCUTOP" -q --export hotspots "$RPD" >"$TMP/r.csv"
same "RPD: no efficiency group, the launch group right after name_raw" \
    "name,short_name,category,calls,total_ns,avg_ns,min_ns,max_ns,stddev_ns,pct,cum_pct,ceiling,var_ns,golden_ns,outliers,name_raw,$LAUNCH" \
    "$(head -1 "$TMP/r.csv" | tr -d '\r')"
python3 "$TMP/pick.py" "$TMP/r.csv" 5 "$LAUNCH" >"$TMP/r.got"
python3 - "$RPD" <<'PY' | python3 "$TMP/stats.py" "$TMP/r.csv" 5 >"$TMP/r.want"
import math, sqlite3, sys
# HTA's rules (hta_oracle.py) on the ops whose launching call is of HTA's set (HIP names)
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
q = """SELECT CASE WHEN d.string <> '' THEN d.string ELSE t.string END, o.start, o."end",
       a.start, a."end"
       FROM rocpd_op o JOIN rocpd_string d ON d.id = o.description_id
       JOIN rocpd_string t ON t.id = o.opType_id
       JOIN (SELECT op_id, min(api_id) AS api_id FROM rocpd_api_ops GROUP BY op_id) ao
         ON ao.op_id = o.id
       JOIN rocpd_api a ON a.id = ao.api_id JOIN rocpd_string an ON an.id = a.apiName_id
       WHERE an.string IN ('hipLaunchKernel', 'hipMemsetAsync', 'hipMemcpyAsync')"""
up = lambda ns: -((-ns) // 1000)
down = lambda ns: ns // 1000
def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2.0
def p95(v):
    v = sorted(v)
    pos = 0.95 * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])
by = {}
for n, ks, ke, cs, ce in db.execute(q):
    ks, ke, cs, ce = up(ks), down(ke), up(cs), down(ce)
    call = ce - cs
    by.setdefault(n, []).append((call, ke - ks, ks - cs + call))
for n, r in by.items():
    d = [x[2] for x in r]
    c = [x[0] for x in r]
    v = [len(r), 1000 * median(d), 1000 * p95(d), 1000 * max(d), 1000 * median(c),
         1000 * p95(c), 1000 * max(c), sum(1 for x, g, _ in r if x <= 50 and g < x),
         sum(1 for x in d if x > 100), sum(1 for x in c if x > 50)]
    print(n + "|" + ",".join("%.3f" % x for x in v))
PY
check "RPD: 5 kernels compared" test "$(wc -l <"$TMP/r.want")" -eq 5
check "RPD: some of them launched by HTA's set, some not (hipExtModuleLaunchKernel)" \
    sh -c "grep -q '|[0-9]' '$TMP/r.want' && grep -q '|,' '$TMP/r.want'"
if cmp -s "$TMP/r.want" "$TMP/r.got"; then
    ok "RPD: the launch figures of the top 5 kernels by HTA's rules over rocpd_op, rocpd_api_ops and rocpd_api"
else
    notok "RPD: launch figures differ from the database"
    diff "$TMP/r.want" "$TMP/r.got" | head -6 | sed 's/^/#   /'
fi

# ---- Kernel detail and --view idle read the same table ---------------------------------------
top=$(sed -n 1p "$TMP/k.got")
"$DCUTOP" -q --report --view idle --format csv "$K" | sed -n '/^# launch_stats/,/^\r*$/p' |
    python3 -c '
import csv, sys
name, v = sys.argv[1].split("|", 1)
v = v.split(",")
for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#")):
    if r["kernel"] == name:
        ok = [float(r[k]) for k in ("launches", "call_median_ns", "median_ns", "p95_ns", "max_ns")] == [float(x) for x in v[:5]]
        sys.exit(0 if ok else 1)
sys.exit(1)' "$top"
check "--view idle's launch stats give the top kernel the same figures" test $? -eq 0

# ---- traces without launch calls: no such columns --------------------------------------------
for t in sample-traces/llamacpp-rocprof-v1-stats sample-traces/rocprofv3-sdk-docs-csv; do
    "$DCUTOP" -q --export hotspots "$t" >"$TMP/s.csv"
    check "$(basename "$t"): --export hotspots has no launch columns" \
        sh -c "! head -1 '$TMP/s.csv' | grep -q 'launched\|delay_p50_ns'"
    "$DCUTOP" -q --report --view hotspots --format json "$t" >"$TMP/s.json"
    check "$(basename "$t"): the JSON report has no launch keys" sh -c "! grep -q '\"launched\"' '$TMP/s.json'"
    "$DCUTOP" -q --report --view hotspots --width 250 "$t" >"$TMP/s.txt"
    check "$(basename "$t"): the text report has no launch columns (not a column of dashes)" \
        sh -c "! grep -q 'Launched\|Delay p50' '$TMP/s.txt'"
done
exits "stats only: --sort delay_p95_ns is an unknown column" 2 \
    "$DCUTOP" -q --report --view hotspots --sort delay_p95_ns sample-traces/llamacpp-rocprof-v1-stats
check "... which lists the columns there are" grep -q "one of: name" "$TMP/err"

# ---- reports ----------------------------------------------------------------------------------
"$DCUTOP" -q --report --view hotspots --format json "$K" >"$TMP/k.json"
check "JSON report: every hotspot row has the launch keys" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["hotspots"]
sys.exit(0 if rows and all("delay_p95_ns" in r and "short_launch_pct" in r for r in rows) else 1)' "$TMP/k.json"
"$DCUTOP" -q --report --view hotspots --width 260 --top 3 "$K" >"$TMP/k.txt"
check "text report, wide: the launch group with units in its titles" \
    grep -q "Launched  Call p50([mun]*s)  Delay p50([mun]*s)  Delay p95([mun]*s)  Short%" "$TMP/k.txt"
"$DCUTOP" -q --report --view hotspots --width 100 --top 3 "$K" >"$TMP/k100.txt"
check "text report, 100 wide: the launch group left out before the name narrows" \
    sh -c "! grep -q 'Delay\|Launched' '$TMP/k100.txt'"
"$DCUTOP" -q --export hotspots --sort delay_p95_ns "$K" >"$TMP/sorted.csv"
check "--sort delay_p95_ns: the largest p95 launch delay first" python3 -c '
import csv, sys
v = [float(r["delay_p95_ns"]) for r in csv.DictReader(open(sys.argv[1])) if r["delay_p95_ns"]]
sys.exit(0 if len(v) > 5 and v == sorted(v, reverse=True) else 1)' "$TMP/sorted.csv"

# ---- the TUI: shown when wide, dropped before the name narrows, sortable, in F6 --------------
printf '2\n:dump wide\n' >"$TMP/w.keys"
"$DCUTOP" --headless --size 260x24 --keys "$TMP/w.keys" "$K" >"$TMP/w.out"
check "TUI 260 wide: Launched, Call p50, Delay p50, Delay p95 and Short% shown" \
    grep -q "Launched  Call p50 [mun]*s  Delay p50 [mun]*s  Delay p95 [mun]*s  Short%" "$TMP/w.out"
printf '2\n:dump narrow\n' >"$TMP/n.keys"
"$DCUTOP" --headless --size 100x24 --keys "$TMP/n.keys" "$K" >"$TMP/n.out"
check "TUI 100 wide: no launch column" sh -c "! grep -q 'Delay\|Launched' '$TMP/n.out'"
printf '2\n<F6>\n:dump menu\n' >"$TMP/m.keys"
"$DCUTOP" --headless --size 100x50 --keys "$TMP/m.keys" "$K" >"$TMP/m.out"
check "F6 lists the launch columns (hidden ones say so)" \
    sh -c "grep -q 'Delay p95 (delay_p95_ns, hidden)' '$TMP/m.out' && grep -q 'Short% (short_launch_pct, hidden)' '$TMP/m.out'"
printf '2\n<F6>\n<End>\n<Up><Up><Up>\n<Enter>\n:dump sorted\n' >"$TMP/s.keys"
"$DCUTOP" --headless --size 260x24 --keys "$TMP/s.keys" "$K" >"$TMP/s.out"
check "F6, 4th column from the end (Delay p95): its title carries the arrow" grep -q "Delay p95 [mun]*s▼" "$TMP/s.out"
