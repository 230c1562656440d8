#!/bin/sh
# test_figures.sh - the edge figures of issue 13, each against an oracle computed here with
# python3 from the raw trace (never from dcutop's own database).
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

# 1. Kineto ProfilerStep attribution: by launch (the cuda_runtime event with the kernel's
# correlation id inside the step's host range), never by GPU start; a kernel without a launch
# in the trace is outside (unless a gpu_user_annotation of the step holds its start).
Q=$REAL/pytorch-kineto-mi300-qwen
if [ -d "$Q" ] && command -v python3 >/dev/null; then
    "$DCUTOP" -q --report --format json --view timeline "$Q" >"$TMP/q.json"
    exp=$(python3 - "$Q"/*.json.gz <<'PY'
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
ns = lambda us: round(us * 1000)
steps = [e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
gsteps = [e for e in ev if e.get("cat") == "gpu_user_annotation" and e["name"].startswith("ProfilerStep#")]
launch = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
          if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
out = []
for st in steps:
    s0, s1 = ns(st["ts"]), ns(st["ts"]) + ns(st["dur"])
    g = [x for x in gsteps if x["name"] == st["name"]]
    ks = []
    for k in (e for e in ev if e.get("cat") == "kernel"):
        at = launch.get(k["args"].get("correlation"))
        if at is not None:
            inside = s0 <= at <= s1
        else:
            inside = any(ns(x["ts"]) <= ns(k["ts"]) <= ns(x["ts"]) + ns(x["dur"]) for x in g)
        if inside:
            ks.append((ns(k["ts"]), ns(k["ts"]) + ns(k["dur"])))
    out.append("%s %d %d %d" % (st["name"], len(ks), sum(b - a for a, b in ks),
                                max(b for a, b in ks) - min(a for a, b in ks)))
nk = sum(1 for e in ev if e.get("cat") == "kernel")
print(" ".join(out), "outside", nk - sum(int(o.split()[1]) for o in out))
PY
)
    act=$(python3 -c '
import json, sys
it = json.load(open(sys.argv[1]))["timeline"]["iterations"]
steps = ["%s %d %d %d" % (i["name"], i["dispatches"], i["kernel_ns"], i["span_ns"]) for i in it if i["iteration"]]
out = [i["dispatches"] for i in it if not i["iteration"]]
print(" ".join(steps), "outside", out[0] if out else 0)' "$TMP/q.json")
    same "kineto qwen: ProfilerStep#6 by launch, as python counts it" "$exp" "$act"
    same "kineto qwen: the issue's figures" \
        "ProfilerStep#6 1053 29743178 33131334 outside 463" "$act"
fi

# 2. Iterations with a warm-up prefix: iteration 1 starts where the kernel sequence really
# repeats; the dispatches before it are a row of their own, outside the cold-start ratio.
# iters DIR: "warm-up N; P P P ..." (dispatches per row) from the JSON iterations table
iters() {
    "$DCUTOP" -q --report --format json --view timeline "$1" | python3 -c '
import json, sys
it = json.load(sys.stdin)["timeline"]["iterations"]
w = [i["dispatches"] for i in it if i["phase"] == "warm-up"]
print("warm-up %d;" % (w[0] if w else 0), " ".join(str(i["dispatches"]) for i in it if i["iteration"]))'
}
# repeats CSV START PERIOD: python3 says the kernel sequence (dispatches in start order)
# repeats with PERIOD from START on, not from START - 1, and START + k*PERIOD covers it
repeats() {
    python3 - "$@" <<'PY'
import csv, sys
k = [r[0] for r in list(csv.reader(open(sys.argv[1])))[1:]]
s, g = int(sys.argv[2]), int(sys.argv[3])
ok = all(k[i] == k[i + g] for i in range(s, len(k) - g)) and (len(k) - s) % g == 0
print("yes" if ok else "no", len(k), (len(k) - s) // g)
PY
}
L=$REAL/llamacpp-rocprofv3-rocpd
if [ -d "$L" ] && command -v python3 >/dev/null; then
    "$DCUTOP" -q --format csv --sql "select kernel from dispatches order by start_ns, id" "$L" >"$TMP/ls.csv"
    same "llama.cpp rocpd: the sequence repeats from dispatch 98 with period 621 (python3)" \
        "yes 5687 9" "$(repeats "$TMP/ls.csv" 98 621)"
    same "llama.cpp rocpd: ... and not from 97 (python3)" "no" \
        "$(repeats "$TMP/ls.csv" 97 621 | cut -d' ' -f1)"
    same "llama.cpp rocpd: 98 warm-up dispatches apart, 9 iterations of 621" \
        "warm-up 98; 621 621 621 621 621 621 621 621 621" "$(iters "$L")"
    check "llama.cpp rocpd: the cold-start ratio says it leaves the warm-up out" \
        sh -c "'$DCUTOP' -q --report --view timeline '$L' | grep -q 'cold start [0-9.]*x, without the warm-up)'"
fi
W=sample-traces/dcu-weather-transformer
if command -v python3 >/dev/null; then
    "$DCUTOP" -q --format csv --sql "select kernel from dispatches order by start_ns, id" "$W" >"$TMP/ws.csv"
    same "DCU weather: the two init fills are FillFunctor kernels (python3)" "2" \
        "$(python3 -c 'import csv,sys; k=[r[0] for r in list(csv.reader(open(sys.argv[1])))[1:]]; print(sum("FillFunctor" in x for x in k[:2]))' "$TMP/ws.csv")"
    same "DCU weather: 6 iterations of 348 after them (python3)" "yes 2090 6" \
        "$(repeats "$TMP/ws.csv" 2 348)"
    same "DCU weather: the 2 init fills apart, 6 iterations of 348" \
        "warm-up 2; 348 348 348 348 348 348" "$(iters "$W")"
fi

# 3. Wall basis: one basis on every line; refused without per-dispatch timestamps; with
# overlapping streams the shares over wall use the busy union (never above 100% in all).
exits "--amdahl-basis wall on aggregated stats only: refused" 2 \
    "$DCUTOP" -q --report --amdahl-basis wall sample-traces/llamacpp-rocprof-v1-stats/results.stats.csv
check "... with a message that says why" grep -q 'no per-dispatch timestamps' "$TMP/err"
# gpu 0: stream 0 gemm [0,100us] [150,200us], stream 1 k_b [0,100us]: kernel 250 us, wall 200,
# busy 150, idle 50
mkdir -p "$TMP/ov"
{
    echo '"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","vgpr","sgpr","fbar","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"'
    echo '0,"Cijk_Alik_Bljk_gemm",0,0,0,1,1,64,64,0,0,8,8,0,"0x0","0x0",0,0,100000,100000,100000'
    echo '1,"k_b",0,1,0,1,1,64,64,0,0,8,8,0,"0x0","0x0",0,0,100000,100000,100000'
    echo '2,"Cijk_Alik_Bljk_gemm",0,0,0,1,1,64,64,0,0,8,8,0,"0x0","0x0",150000,150000,200000,200000,50000'
} >"$TMP/ov/results.csv"
"$DCUTOP" -q --export categories --amdahl-basis wall -o "$TMP/ovc.csv" "$TMP/ov"
"$DCUTOP" -q --export hotspots --amdahl-basis wall -o "$TMP/ovh.csv" "$TMP/ov"
exp=$(python3 - "$TMP/ov/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
iv = sorted((int(r["BeginNs"]), int(r["EndNs"]), r["KernelName"]) for r in rows)
busy, end = 0, None
for a, b, _ in iv:
    if end is None or a > end:
        busy += b - a; end = b
    elif b > end:
        busy += b - end; end = b
wall = max(b for _, b, _ in iv) - min(a for a, _, _ in iv)
kern = sum(b - a for a, b, _ in iv)
gemm = sum(b - a for a, b, n in iv if "gemm" in n)
share = lambda t: 100.0 * t / kern * busy / wall
print("%.4f %.4f %.4f" % (share(gemm), share(kern - gemm), 100.0 * (wall - busy) / wall))
PY
)
act=$(python3 - "$TMP/ovc.csv" <<'PY'
import csv, sys
r = {x["category"]: float(x["pct"]) for x in csv.DictReader(open(sys.argv[1]))}
print("%.4f %.4f %.4f" % (r["GEMM"], r["non-GEMM"], r["GPU idle"]))
PY
)
same "overlapping streams: GEMM, non-GEMM, GPU idle shares of wall (busy union, python3)" "$exp" "$act"
same "overlapping streams: the shares over wall add up to 100%" "100.00" \
    "$(echo "$act" | awk '{ printf "%.2f", $1 + $2 + $3 }')"
same "overlapping streams: the gemm hotspot's %Time is the same share of wall" \
    "$(echo "$exp" | cut -d' ' -f1)" \
    "$(python3 -c 'import csv,sys; print("%.4f" % [float(x["pct"]) for x in csv.DictReader(open(sys.argv[1])) if "gemm" in x["name"]][0])' "$TMP/ovh.csv")"
"$DCUTOP" -q --report --amdahl-basis wall "$TMP/ov" >"$TMP/ov.txt"
check "wall basis: the report's GEMM line is over wall time only" \
    grep -q '^GEMM [0-9.]*% of wall time: speeding it up alone gives at most [0-9.]*x on wall time' "$TMP/ov.txt"
check "wall basis: the Hotspots title says %Time is over wall time" \
    grep -q '^Hotspots: .*%Time and ceilings over wall time' "$TMP/ov.txt"
printf 'w\n:dump w\n' >"$TMP/w.keys"
"$DCUTOP" --headless --size 120x40 --keys "$TMP/w.keys" "$TMP/ov" >"$TMP/w.out"
check "w: the header's GEMM share is of wall time" grep -q 'GEMM [0-9.]*% of wall time (ceiling' "$TMP/w.out"
check "w: the Summary's Top kernels and Categories say wall time" \
    sh -c "grep -q 'Top kernels  (share of wall time' '$TMP/w.out' && grep -q 'Categories  (shares and Amdahl ceilings over wall time)' '$TMP/w.out'"
check "w: no line says device kernel time" sh -c "! grep -q 'device kernel time' '$TMP/w.out'"

# 4. Gaps: from the latest end so far on the stream; the median of an even count is the mean
# of the two middle values. One stream: long [0,100us], inner [20,50us] (inside long), late
# [120,130us], tail [170,171us]: gaps 0 (inner starts inside long), 20 us (late after long's
# end, not 70 after inner's), 40 us -> median of (0, 20, 40) = 20; without tail: (0, 20) -> 10.
mkdir -p "$TMP/g1" "$TMP/g2"
gaprow() { echo "$1,\"$2\",0,0,0,1,1,64,64,0,0,8,8,0,\"0x0\",\"0x0\",$3,$3,$4,$4,$(($4 - $3))"; }
H='"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","vgpr","sgpr","fbar","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"'
{ echo "$H"; gaprow 0 long 0 100000; gaprow 1 inner 20000 50000; gaprow 2 late 120000 130000; } >"$TMP/g1/results.csv"
{ cat "$TMP/g1/results.csv"; gaprow 3 tail 170000 171000; } >"$TMP/g2/results.csv"
# oracle: python3 over the CSV, gaps from the running max end, statistics.median
gapor() {
    python3 - "$1" <<'PY'
import csv, statistics, sys
rows = sorted((int(r["BeginNs"]), int(r["EndNs"]), r["KernelName"]) for r in csv.DictReader(open(sys.argv[1])))
gaps, latest, who, top = [], rows[0][1], rows[0][2], None
for b, e, n in rows[1:]:
    g = max(0, b - latest)
    gaps.append(g)
    if g > 0 and (top is None or g > top[0]):
        top = (g, latest, who, n)
    if e > latest:
        latest, who = e, n
m = statistics.median(gaps)
print(len(gaps), int(m + 0.5), max(gaps), top[1], top[2], top[3])
PY
}
gapact() {
    "$DCUTOP" -q --report --format json --view timeline "$1" | python3 -c '
import json, sys
t = json.load(sys.stdin)["timeline"]
s, g = t["summary"], t["gaps"][0]
print(s["gaps"], s["gap_p50_ns"], s["gap_max_ns"], g["at_ns"], g["before"], g["after"])'
}
same "gaps from the latest end so far (python3)" "$(gapor "$TMP/g2/results.csv")" "$(gapact "$TMP/g2")"
same "gaps by hand: 3 gaps, median 20 us, max 40 us (at 130 us, after late, before tail)" \
    "3 20000 40000 130000 late tail" "$(gapact "$TMP/g2")"
same "an even count of gaps: the median is the mean of the two middle values (python3)" \
    "$(gapor "$TMP/g1/results.csv")" "$(gapact "$TMP/g1")"
same "an even count by hand: (0 + 20 us) / 2" "2 10000 20000 100000 long late" "$(gapact "$TMP/g1")"

# 5. Rounding: an average is not cut to whole ns before rounding (100 calls, 5,698,521 ns:
# 56,985.21 ns -> 56.99 us, not 56.98); an exact half rounds away from zero from the integer
# ns (142,015 ns -> 142.02 us, not 142.01 through 142.01499.. in binary); JSON has the exact
# average.
mkdir -p "$TMP/rd"
{
    echo "$H"
    i=0
    while [ $i -lt 100 ]; do
        d=56985
        [ $i -eq 0 ] && d=57006
        gaprow $i avgk $((i * 200000)) $((i * 200000 + d))
        i=$((i + 1))
    done
    gaprow 100 halfk 30000000 30142015
} >"$TMP/rd/results.csv"
"$DCUTOP" -q --report --view hotspots --top 0 "$TMP/rd" >"$TMP/rd.txt"
"$DCUTOP" -q --report --view hotspots --format json "$TMP/rd" >"$TMP/rd.json"
exp=$(python3 - "$TMP/rd/results.csv" <<'PY'
import csv, sys
from decimal import Decimal, ROUND_HALF_UP
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    d.setdefault(r["KernelName"], []).append(int(r["EndNs"]) - int(r["BeginNs"]))
us = lambda v: (Decimal(sum(v)) / len(v) / 1000).quantize(Decimal("0.01"), ROUND_HALF_UP)
print(us(d["avgk"]), us(d["halfk"]), Decimal(sum(d["avgk"])) / len(d["avgk"]))
PY
)
act="$(awk '$1 == "avgk" { a = $5 } $1 == "halfk" { h = $5 } END { print a, h }' "$TMP/rd.txt") $(python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["hotspots"]
print("%.2f" % [x["avg_ns"] for x in h if x["name"] == "avgk"][0])' "$TMP/rd.json")"
same "averages and halves round once, half away from zero (python3 Decimal); JSON exact" "$exp" "$act"

# 6. Infinity in JSON is the string "inf" (never null, which reads as unknown); the combined
# what-if projection is in JSON and CSV too, = 1 / ((1 - sum p) + sum p / k) (python3).
"$DCUTOP" -q --report --view categories --format json --what-if gemm=2,copy=inf "$W" >"$TMP/wi.json"
same "JSON: an infinite what-if factor is \"inf\"" "inf" \
    "$(python3 -c 'import json,sys; print([c["what_if"] for c in json.load(open(sys.argv[1]))["categories"] if c["category"] == "copy"][0])' "$TMP/wi.json")"
same "JSON: the combined projection (python3 from the category totals)" \
    "$(python3 -c '
import json, sys
c = {x["category"]: x["total_ns"] for x in json.load(open(sys.argv[1]))["categories"] if x["group"] != "group"}
t = sum(c.values()); pg, pc = c["gemm"] / t, c["copy"] / t
print("%.4f kernel gemm=2,copy=inf" % (1 / ((1 - pg - pc) + pg / 2)))' "$TMP/wi.json")" \
    "$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["what_if"]; print("%.4f %s %s" % (w["speedup"], w["basis"], w["spec"]))' "$TMP/wi.json")"
"$DCUTOP" -q --report --view categories --format json --what-if gemm=inf,non-gemm=inf "$W" >"$TMP/wi2.json"
same "JSON: an unbounded projection is \"inf\"" "inf" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["what_if"]["speedup"])' "$TMP/wi2.json")"
"$DCUTOP" -q --report --view categories --format csv --what-if gemm=2,copy=4 "$W" >"$TMP/wi.csv"
same "CSV: a # what_if block with the projection the text gives" \
    "$("$DCUTOP" -q --report --view categories --what-if gemm=2,copy=4 "$W" | sed -n 's/.*whole program at most \([0-9.]*\)x faster.*/\1/p')" \
    "$(tr -d '\r' <"$TMP/wi.csv" | sed -n '/^# what_if$/,/^$/p' | awk -F, 'NR == 3 { printf "%.2f", $(NF - 1) }')"

# 7. Aggregated stats have no min, max or standard deviation: n/a, never 0 ns.
printf '2\n<Enter>\n:dump k\n' >"$TMP/k.keys"
"$DCUTOP" --headless --size 120x30 --keys "$TMP/k.keys" sample-traces/llamacpp-rocprof-v1-stats/results.stats.csv >"$TMP/k.out"
check "stats only: Kernel detail says min n/a, max n/a" grep -q 'Average .*min n/a   max n/a' "$TMP/k.out"
check "stats only: and the standard deviation n/a" grep -q 'Std dev      n/a' "$TMP/k.out"
check "stats only: no 0 ns anywhere in Kernel detail" sh -c "! grep -q ' 0 ns' '$TMP/k.out'"
"$DCUTOP" --headless --size 120x30 --keys "$TMP/k.keys" sample-traces/llamacpp-rocprof-v1-stats/results.csv >"$TMP/k2.out"
check "per-dispatch data: Kernel detail keeps its min and max" \
    grep -Eq 'Average .*min [0-9.]+ (us|ms)   max [0-9.]+ (us|ms)' "$TMP/k2.out"

# 8. A folder with only stacks opens on Stacks; its Summary says where the time is (awk: the
# VALUE column in us, one call per line), never "0 kernels (aggregated stats only)".
mkdir -p "$TMP/st"
cp sample-traces/pytorch-h200-climate-transformer/climate_infer.stacks.txt "$TMP/st/"
printf ':dump start\n1\n:dump sum\n' >"$TMP/st.keys"
"$DCUTOP" --headless --size 100x24 --keys "$TMP/st.keys" "$TMP/st" >"$TMP/st.out"
check "stacks only: opens on the Stacks screen" \
    sh -c "sed -n '/^--- start/,/^--- sum/p' '$TMP/st.out' | grep -q '^ Call stacks | calls |'"
exp=$(awk '{ s += $NF; n++ } END { printf "%.1f ms in all over %d calls", s / 1000, n }' "$TMP/st/climate_infer.stacks.txt")
check "stacks only: the Summary gives their time and calls ($exp, awk)" \
    grep -q "Call stacks    $exp" "$TMP/st.out"
check "stacks only: never '0 kernels (aggregated stats only)'" \
    sh -c "! grep -q 'of 0 kernels\|aggregated stats only' '$TMP/st.out'"

# 9. API i: when it cannot split, it says why, in the Summary's terms (the DCU sample has API
# totals only, and 6 iterations in the Summary; the Qwen sample has per-call API data and one
# iteration).
printf '1\n:dump s\n4\ni\n:dump i\n' >"$TMP/i.keys"
"$DCUTOP" --headless --size 120x60 --keys "$TMP/i.keys" "$W" >"$TMP/i.out"
n=$(sed -n 's/^  Iterations *\([0-9]*\) (.*/\1/p' "$TMP/i.out" | head -1)
check "the Summary shows the DCU sample's iterations" test -n "$n"
same "API i on API totals only: the reason, with the Summary's $n iterations" \
    "No per-call API data (totals only): the Summary's $n iterations cannot split them. (i: back)" \
    "$(sed -n '/^--- i /,$p' "$TMP/i.out" | tail -2 | head -1)"
if [ -d "$Q" ]; then
    "$DCUTOP" --headless --size 160x30 --keys "$TMP/i.keys" "$Q" >"$TMP/qi.out"
    check "API i with one iteration: no steady state, one iteration" \
        grep -q '^No steady state: one iteration (Summary); the split needs two iterations' "$TMP/qi.out"
fi

# 10. Labels. The largest-gaps table: GapStart is when the gap starts; the kernels on either
# side are titled as the JSON keys read (before/after), and agree with them.
"$DCUTOP" -q --report --view timeline --width 200 "$TMP/g2" >"$TMP/g2.txt"
check "gaps: the column is named for the time the gap starts" \
    grep -Eq '^  GPU +Stream +Gap\(us\) +GapStart\(us\) +Kernel before +Kernel after$' "$TMP/g2.txt"
same "gaps: text and JSON agree on the kernels before and after the largest gap" \
    "$(gapact "$TMP/g2" | awk '{ print $5, $6 }')" \
    "$(sed -n '/^Timeline: largest kernel gaps/{n;n;p;}' "$TMP/g2.txt" | awk '{ print $5, $6 }')"
"$DCUTOP" -q --report --view timeline --width 300 "$Q" >"$TMP/qs.txt" 2>/dev/null # no wrapping
if [ -s "$TMP/qs.txt" ]; then
    check "short kernels: the share column says it is of all short calls, and the footer says of how many" \
        sh -c "grep -q '%OfShortCalls\$' '$TMP/qs.txt' && grep -q '%OfShortCalls = a kernel.s share of these [0-9]*)' '$TMP/qs.txt'"
fi
# Kernel detail names the rule by its pattern (the built-in gemm rule, read here)
ln=$(grep -n "$(printf '^gemm\t(?i)')" src/model/names/default.rules | cut -d: -f1)
pat=$(sed -n "${ln}p" src/model/names/default.rules | cut -f 2)
check "Kernel detail: the rule that matched is shown as its pattern /$pat/" \
    grep -Fq "Rule         /$pat/" "$TMP/k.out"
check "Kernel detail: never a bare built-in:$ln" sh -c "! grep -q 'built-in:$ln' '$TMP/k.out'"
# Units stay readable: no six-digit value in a column (967824.19 us), no 0.00 for a value
# that is not 0 (hipSetDevice: 3 calls, 4.6 us in all, in a column of ms)
"$DCUTOP" -q --report --view api "$W" >"$TMP/api.txt"
check "units: no six-digit time in the API table" sh -c "! grep -Eq ' [0-9]{6}\.[0-9]{2} ' '$TMP/api.txt'"
check "units: a small total beside large ones keeps two significant digits, not 0.00" \
    grep -Eq '^  HIP +hipSetDevice +3 +0\.0046 ' "$TMP/api.txt"
