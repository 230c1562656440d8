# test_advice.sh - "what to optimise first" in the report: the bundled DCU sample leads with
# copy, with the share of the wall and the ceilings computed independently from the hotspots
# export and the timeline's wall; the text honours --width; CSV and JSON carry the same list.
. tests/cli/lib.sh
W=sample-traces/dcu-weather-transformer

"$DCUTOP" -q --report --view advice --format csv "$W" >"$TMP/adv.csv"
"$DCUTOP" -q --export hotspots -o "$TMP/hot.csv" "$W"
"$DCUTOP" -q --view timeline --format json "$W" >"$TMP/wtl.json"
python3 - "$TMP/adv.csv" "$TMP/hot.csv" "$TMP/wtl.json" >"$TMP/py" <<'P'
import csv, json, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]
adv = [dict(zip(rows[0], r)) for r in rows[1:]]
hot = list(csv.DictReader(open(sys.argv[2])))
wall = json.load(open(sys.argv[3]))["timeline"]["summary"]["wall_ns"]
total = sum(int(r["total_ns"]) for r in hot)
copy = sum(int(r["total_ns"]) for r in hot if r["category"] == "copy")
p, k = copy / wall, copy / total  # one stream: kernel time over the wall
print(adv[0]["rule"], adv[0]["target"])
print("%.4f %.4f" % (float(adv[0]["share_pct"]), 100 * p))
print("%.4f %.4f" % (float(adv[0]["ceiling"]), 1 / (1 - p)))
gemm = [a for a in adv if a["target"] == "gemm"][0]
g = sum(int(r["total_ns"]) for r in hot if r["category"] == "gemm") / wall
print("%.4f %.4f" % (float(gemm["ceiling"]), 1 / (1 - g)))
print("%.4f %.4f" % (float(adv[0]["kernel_ceiling"]), 1 / (1 - k)))
P
same "the DCU sample leads with the copy category" "category copy" "$(sed -n 1p "$TMP/py")"
set -- $(sed -n 2p "$TMP/py")
near "copy share equals copy time / the wall (timeline) from the export" "$1" "$2" 0.0001
set -- $(sed -n 3p "$TMP/py")
near "copy ceiling is 1/(1-p)" "$1" "$2" 0.0001
set -- $(sed -n 4p "$TMP/py")
near "GEMM's ceiling is 1/(1-p) and ranks below copy" "$1" "$2" 0.0001
set -- $(sed -n 5p "$TMP/py")
near "copy's kernel-time ceiling beside it is 1/(1 - copy / kernel time)" "$1" "$2" 0.0001

for w in 80 120; do
    "$DCUTOP" -q --report --view advice --width "$w" "$W" >"$TMP/adv.txt"
    long=$(awk -v w="$w" 'length($0) > w' "$TMP/adv.txt" | wc -l)
    same "advice text fits --width $w" "0" "$long"
    check "advice text at $w names copy first" grep -q "^  1\. at most 1\.61x .*copy kernels" "$TMP/adv.txt"
done
"$DCUTOP" -q --report "$W" >"$TMP/full.txt"
check "the full report has the advice section before the hotspots" \
    awk '/^What to optimise first/ { a = NR } /^Hotspots/ { h = NR } END { exit !(a && h && a < h) }' "$TMP/full.txt"
"$DCUTOP" -q --report --format json "$W" >"$TMP/r.json"
check "JSON carries the advice list" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["advice"]
sys.exit(not (a[0]["target"] == "copy" and a[0]["rank"] == 1 and "evidence" in a[0]))' "$TMP/r.json"
# stats only: the cap is said, and no line rests on a wall basis
"$DCUTOP" -q --report --view advice "$REAL/llamacpp-rocprof-v1-stats/results.stats.csv" >"$TMP/st.txt"
check "stats only: the ranking says it has no wall basis" grep -q "no wall basis" "$TMP/st.txt"
check "stats only: no line over wall time" sh -c "! grep -q 'of wall time' '$TMP/st.txt'"

# the Summary's cursor reaches the Copies line (after the categories, before the three gap
# rows) and Enter opens the Copies screen; a gap row opens the Trace at its gap
C="$REAL/pytorch-h200-climate-transformer"
# (the last rows are the two timed runs' lines, then the three gaps above them)
printf 'G\n<Enter>\n:dump run\n<Esc><Up><Up>\n<Enter>\n:dump gap\n<Esc><Up><Up><Up>\n<Enter>\n:dump copies\n' \
    >"$TMP/sum.keys"
# (--run all: both runs in scope, as the lines per run need; the default shows one run)
"$DCUTOP" -q --headless --size 200x30 --keys "$TMP/sum.keys" --run all "$C" >"$TMP/sum.out"
check "Summary: G then Enter on the last run's line opens the Runs screen" \
    grep -q "> Summary > Runs" "$TMP/sum.out"
check "Summary: Enter on the last gap opens the Trace screen at it" \
    grep -q "> Trace > climate_train" "$TMP/sum.out"
check "Summary: ... with the gap's next kernel selected" \
    grep -q "^[0-9]*/[0-9]*  void at::native::(anonymous namespace)::multi_tensor_apply_kernel" \
    "$TMP/sum.out"
check "Summary: Enter on the Copies line opens the Copies screen" \
    grep -q "> Summary > Copies$" "$TMP/sum.out"
check "Summary: the Copies screen lists the trace's copies" grep -q "^ Memcpy DtoD" "$TMP/sum.out"

# Ranked by what each part could give the whole run: on the llama.cpp sample the device is
# idle 55% of its wall, so GEMM's 11.8x of kernel time is at most 1.70x of the wall and the
# idle time (2.22x) leads; each kernel-time part is shown on the wall, its kernel-time ceiling
# beside it, computed here from the timeline's own kernel and wall times.
L=sample-traces/llamacpp-rocprof-v1-stats
"$DCUTOP" -q --report --view advice --format csv "$L" >"$TMP/ladv.csv"
"$DCUTOP" -q --report --format json "$L" >"$TMP/l.json"
python3 - "$TMP/ladv.csv" "$TMP/l.json" >"$TMP/lpy" <<'P'
import csv, json, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]
adv = [dict(zip(rows[0], r)) for r in rows[1:]]
t = json.load(open(sys.argv[2]))["timeline"]["summary"]
print(" ".join(a["rule"] for a in adv[:2]))
bad = 0
for a in adv:
    bad += a["basis"] != "wall time"
    if a["kernel_share_pct"]:
        part = float(a["kernel_share_pct"]) / 100 * t["kernel_ns"]
        want = 1 / (1 - part / t["wall_ns"])
        bad += abs(float(a["ceiling"]) - want) > 1e-4 or \
            ("at most %.2fx of kernel time" % float(a["kernel_ceiling"])) not in a["evidence"]
print("bad", bad)
P
same "llama.cpp: idle time leads, GEMM (11.8x of kernel time, 1.70x of wall) second" \
    "idle category" "$(sed -n 1p "$TMP/lpy")"
same "every kernel-time part's ceiling of the wall from the timeline's kernel and wall time" \
    "bad 0" "$(sed -n 2p "$TMP/lpy")"
