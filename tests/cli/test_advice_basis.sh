# test_advice_basis.sh - "What to optimise first" on one basis, disjoint, launch-bound by
# what launches cost the wall, the same under w, and its fix on screen. Every shown figure is
# recomputed from the raw Kineto trace (advice_oracle.py) or from dcutop's exports.
. tests/cli/lib.sh
ORACLE=tests/cli/advice_oracle.py

# advice CSV -> one JSON list of rows (the table between "# advice" and the blank line)
rows() {
    python3 -c '
import csv, json, sys
rs = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]
json.dump([dict(zip(rs[0], r)) for r in rs[1:]], sys.stdout)' "$1"
}

# ---- One basis, shown: on a run with a timeline every item is of the wall, its ceiling is
# 1/(1 - share), shown and ranked; a kernel-time part's share is its kernel time over the
# wall (scaled by kernel / kernel union with overlapping streams), its kernel-time ceiling
# beside it, never above it.
basis_check() { # NAME TRACE HOTSPOTS-OF ADVICE-OF
    "$DCUTOP" -q --export hotspots -o "$TMP/$1.hot.csv" "$3"
    "$DCUTOP" -q --view advice --format csv "$4" >"$TMP/$1.adv.csv"
    rows "$TMP/$1.adv.csv" >"$TMP/$1.adv.json"
    python3 "$ORACLE" "$2" "$TMP/$1.hot.csv" >"$TMP/$1.oracle.json"
    python3 - "$TMP/$1.adv.json" "$TMP/$1.oracle.json" <<'P'
import json, sys
adv = json.load(open(sys.argv[1]))
o = json.load(open(sys.argv[2]))
bad = []
for a in adv:
    share, ceil = float(a["share_pct"]) / 100, float(a["ceiling"])
    if a["basis"] != "wall time":
        bad.append("basis " + a["basis"])
    if abs(ceil - 1 / (1 - share)) > 1e-4:
        bad.append("ceiling %s of share %s" % (ceil, share))
    if a["rule"] == "category":
        c = o["categories"][a["target"]]
        if abs(share - c["share"]) > 1e-6 or abs(float(a["kernel_ceiling"]) - c["kernel_ceiling"]) > 1e-4:
            bad.append("%s: %s vs %s" % (a["target"], share, c["share"]))
        if ceil > float(a["kernel_ceiling"]) + 1e-9:
            bad.append("%s above its kernel ceiling" % a["target"])
    if a["rule"] == "idle" and "cause unknown" not in a["what"] and "host-bound" not in a["what"]:
        pass
ranked = [float(a["share_pct"]) for a in adv if a["rank"]]
if ranked != sorted(ranked, reverse=True):
    bad.append("not ranked by the shown share")
print("bad", len(bad), "; ".join(bad[:3]))
P
}
I=$REAL/pytorch-h200-idle-injected
out=$(basis_check inj "$I/idle_train.trace.json.gz" "$I" "$I")
same "one basis: the injected-idle run's items are all of its wall, GEMM's 13.18% of it (1.15x, 7.79x of kernel time beside)" "bad 0 " "$out"
check "one basis: GEMM shows 1.15x, not its 7.79x of kernel time" \
    python3 -c 'import json,sys; a=[r for r in json.load(open(sys.argv[1])) if r["target"]=="gemm"][0]; sys.exit(not (abs(float(a["ceiling"])-1.151813)<1e-6 and abs(float(a["kernel_ceiling"])-7.790243)<1e-6))' "$TMP/inj.adv.json"
D=$REAL/pytorch-h200-ddp-2rank
out=$(basis_check ddp "$D/rank0.trace.json.gz" "$D" "$D")
same "job: every share is of the critical rank's wall (rank 0's own kernels over its own wall, ranks never added)" "bad 0 " "$out"
"$DCUTOP" -q --view advice --width 120 "$D" >"$TMP/ddp.txt"
check "job: the list says it is on rank 0's wall" \
    sh -c "tr -s ' \n' '  ' <'$TMP/ddp.txt' | grep -q \"on rank 0's wall time (the job's critical rank; ranks never added)\""
# rpd-matmul and llama.cpp: no item shows a kernel-time ceiling its wall basis cannot give
for t in rpd-matmul llamacpp-rocprof-v1-stats llamacpp-rocprofv3-rocpd; do
    "$DCUTOP" -q --view advice --format csv "$REAL/$t" >"$TMP/$t.csv"
    rows "$TMP/$t.csv" >"$TMP/$t.json"
    "$DCUTOP" -q --view timeline --format json "$REAL/$t" >"$TMP/$t.tl.json"
    out=$(python3 - "$TMP/$t.json" "$TMP/$t.tl.json" <<'P'
import json, sys
adv = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))["timeline"]["summary"]
bad = 0
for a in adv:
    p = float(a["share_pct"]) / 100
    bad += a["basis"] != "wall time" or abs(float(a["ceiling"]) - 1 / (1 - p)) > 1e-4
    if a["kernel_share_pct"]:
        # its kernel time, taken back from its kernel share, over the wall
        ns = float(a["kernel_share_pct"]) / 100 * t["kernel_ns"]
        bad += abs(ns / t["wall_ns"] - p) > 1e-6 and t["kernel_ns"] <= t["busy_ns"]
        bad += float(a["ceiling"]) > float(a["kernel_ceiling"]) + 1e-9
print("bad", bad)
P
)
    same "one basis: $t shows and ranks wall ceilings only" "bad 0" "$out"
done
# stats only: kernel time, said so, no kernel ceiling beside
"$DCUTOP" -q --view advice --format csv "$REAL/llamacpp-rocprof-v1-stats/results.stats.csv" >"$TMP/st.csv"
check "stats only: every item of kernel time, no second ceiling" python3 -c '
import csv, sys
rs = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]
a = [dict(zip(rs[0], r)) for r in rs[1:]]
sys.exit(not (a and all(r["basis"] == "kernel time" and r["kernel_ceiling"] == "" for r in a)))' "$TMP/st.csv"
"$DCUTOP" -q --view advice "$REAL/llamacpp-rocprof-v1-stats/results.stats.csv" >"$TMP/st.txt"
check "stats only: the list says it is on device kernel time" \
    sh -c "tr -s ' \n' '  ' <'$TMP/st.txt' | grep -q 'on device kernel time (aggregated stats: no timeline, no wall)'"

# ---- No double counting: on the DCU sample the direct_copy kernel (69% of copy) is nested
# under the copy category ("of which"), not an item; the items add up to at most 100% of the
# wall; "1 and 2 together" is 1/(1 - p1 - p2) of the first two disjoint items.
W=sample-traces/dcu-weather-transformer
"$DCUTOP" -q --view advice --format csv "$W" >"$TMP/w.csv"
rows "$TMP/w.csv" >"$TMP/w.json"
"$DCUTOP" -q --view advice --width 100 "$W" >"$TMP/w.txt"
out=$(python3 - "$TMP/w.json" "$TMP/w.txt" <<'P'
import json, re, sys
adv = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
k = [a for a in adv if a["rule"] == "kernel"]
copy = [a for a in adv if a["target"] == "copy"][0]
print("nested", len(k) == 1 and k[0]["rank"] == "" and k[0]["of_which"] == copy["rank"] and
      "direct_copy" in k[0]["target"] and float(k[0]["share_pct"]) < float(copy["share_pct"]))
top = [a for a in adv if a["rank"] and a["across"] == "0"]
print("disjoint", sum(float(a["share_pct"]) for a in top) <= 100)
p = (float(top[0]["share_pct"]) + float(top[1]["share_pct"])) / 100
m = re.search(r"%s and %s together: at most ([0-9.]+)x" % (top[0]["rank"], top[1]["rank"]), txt)
print("together", bool(m) and abs(float(m.group(1)) - 1 / (1 - p)) < 0.006)
P
)
same "no double counting: direct_copy nested under copy, not a rival item" "nested True" "$(echo "$out" | sed -n 1p)"
same "no double counting: the disjoint items add up to at most 100% of the wall" "disjoint True" "$(echo "$out" | sed -n 2p)"
same "no double counting: 1 and 2 together = 1/(1 - p1 - p2)" "together True" "$(echo "$out" | sed -n 3p)"
check "no double counting: the report shows the kernel as 'of which' under copy" \
    sh -c "tr -s ' \n' '  ' <'$TMP/w.txt' | grep -q '1\. at most 1\.61x  *37\.87% of wall time  *copy kernels .* of which: at most 1\.35x  *26\.17% of wall time  *elementwise_kernel_manual_unroll<12…direct_copy_kernel_cuda… .* 2\. at most'"
printf ':dump s\n' >"$TMP/s.keys"
"$DCUTOP" -q --headless --size 100x30 --keys "$TMP/s.keys" "$W" >"$TMP/ws.txt"
check "no double counting: the Summary nests the kernel under copy" \
    awk '/^  1\. .*copy kernels/ { c = NR } /^     of which .*elementwise_kernel_manual_unroll/ && c == NR - 1 { f = 1 } END { exit !f }' "$TMP/ws.txt"

# ---- Launch-bound by what launches cost the wall: the climate training step is 89% idle,
# host-bound; its kernels under 10 us hold 59% of kernel time but 6.7% of the wall, and the
# launch-overhead idle is 0.4 ms: not launch-bound, no launch item.
C=$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz
"$DCUTOP" -q --export hotspots -o "$TMP/c.hot.csv" "$C"
"$DCUTOP" -q --export idle -o "$TMP/c.idle.csv" "$C"
python3 "$ORACLE" "$C" "$TMP/c.hot.csv" >"$TMP/c.oracle.json"
"$DCUTOP" -q --headless --size 160x40 --keys "$TMP/s.keys" "$C" >"$TMP/cs.txt"
want=$(python3 - "$TMP/c.oracle.json" "$TMP/c.idle.csv" <<'P'
import csv, json, sys
o = json.load(open(sys.argv[1]))
li = sum(int(r["total_ns"]) for r in csv.DictReader(open(sys.argv[2])) if r["cause"] == "launch-overhead")
print("%.2f %.2f" % (100 * (li / o["wall_ns"] + o["short_ns"] / o["kdenom"]), 100 * o["short_ns"] / o["kdenom"]))
P
)
set -- $want
check "launch-bound: the Summary says no, with the cost of the wall computed from the trace ($1%)" \
    grep -q "Launch-bound   no: launches take $1% of the wall (launch-overhead idle 407.9 us, kernels < 10 us $2%)" "$TMP/cs.txt"
"$DCUTOP" -q --view advice --format csv "$C" >"$TMP/c.csv"
check "launch-bound: no launch item on the host-bound run" sh -c "! grep -q '\"launch\"' '$TMP/c.csv'"
# a run made of tiny kernels back to back is launch-bound: 10 x 5 us + 20 us, 71.4% of the wall
mkdir "$TMP/lb"
awk 'BEGIN { print "\"Index\",\"KernelName\",\"gpu-id\",\"BeginNs\",\"EndNs\""
    for (i = 0; i < 10; i++) printf "%d,\"tiny_add_kernel\",0,%d,%d\n", i, i * 5000, i * 5000 + 5000
    print "10,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,50000,70000" }' >"$TMP/lb/results.csv"
"$DCUTOP" -q --view advice --format csv "$TMP/lb" >"$TMP/lb.csv"
check "launch-bound: tiny kernels back to back give the launch item, 71.43% of the wall, across categories" \
    python3 -c 'import csv,sys; rs=[r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]; a=[dict(zip(rs[0],r)) for r in rs[1:]]; l=[r for r in a if r["rule"]=="launch"]; sys.exit(not (l and abs(float(l[0]["share_pct"])-100*50/70)<1e-4 and l[0]["across"]=="1"))' "$TMP/lb.csv"

# ---- w (--amdahl-basis wall) changes nothing in the list: no "GPU idle kernels ()" item
# counting the idle time again, and the rows keep their labels.
"$DCUTOP" -q --view advice --format csv --amdahl-basis wall "$I" >"$TMP/iw.csv"
"$DCUTOP" -q --view advice --format csv "$I" >"$TMP/ik.csv"
check "w: the advice list is the same on either Amdahl basis" cmp -s "$TMP/iw.csv" "$TMP/ik.csv"
check "w: no 'GPU idle kernels' item" sh -c "! grep -q 'GPU idle kernels' '$TMP/iw.csv'"
printf 'w\n:dump s\n' >"$TMP/w.keys"
"$DCUTOP" -q --headless --size 100x30 --keys "$TMP/w.keys" "$I" >"$TMP/iws.txt"
check "w: the Summary's list has no 'GPU idle kernels' row and every row says wall" \
    awk '/GPU idle kernels/ { bad = 1 } /^  [0-9]\. / && !/ wall / { bad = 1 } /^  [0-9]\. / { n++ } END { exit bad || !n }' "$TMP/iws.txt"

# ---- The fix on screen: the selected item's fix and evidence under the list, wrapped at
# 80 columns; the report wraps at its width and cuts nothing.
printf ':dump a\n<Down>\n:dump b\n' >"$TMP/f.keys"
"$DCUTOP" -q --headless --size 80x24 --keys "$TMP/f.keys" "$W" >"$TMP/f.txt"
check "fix on screen: item 1's fix under the list" \
    sh -c "sed -n '/--- a/,/--- b/p' '$TMP/f.txt' | grep -q '^  fix 1: layout changes and materialized intermediates: fuse them into their'"
check "fix on screen: ... with its evidence" \
    sh -c "sed -n '/--- a/,/--- b/p' '$TMP/f.txt' | grep -q '^  device kernels: 320.5 ms in 678 dispatches of 4 kernels'"
check "fix on screen: Down selects the nested kernel, its fix shows" \
    sh -c "sed -n '/--- b/,\$p' '$TMP/f.txt' | grep -q '^  fix (of which): one kernel holds 27% of device kernel time'"
check "fix on screen: the Summary fits 80 columns" awk 'length($0) > 80 { exit 1 }' "$TMP/f.txt"
"$DCUTOP" -q --view advice --width 80 "$I" >"$TMP/r80.txt"
check "report: no line over --width 80" awk 'length($0) > 80 { exit 1 }' "$TMP/r80.txt"
check "report: the fix is wrapped whole, not cut" sh -c "tr -s ' \n' '  ' <'$TMP/r80.txt' | grep -q 'why: the host launched late: move work off the host loop (data loading, Python, host copies) to workers or another thread, or capture the loop in a CUDA/HIP graph'"

# ---- the manual's worked example is the real report's text, line for line
"$DCUTOP" -q --view advice --width 100 "$W" >"$TMP/m100.txt"
check "the manual's advice example is what the report prints" python3 -c '
import re, sys
man = open("doc/manual.md").read()
i = man.index("The bundled sample, `--report --view advice --width 100`")
block = man[man.index("```\n", i) + 4:]
block = block[:block.index("```")]
rep = open(sys.argv[1]).read().splitlines()
lines = [l for l in block.splitlines() if l.strip() != "..."]
sys.exit(not (lines and all(l in rep for l in lines)))' "$TMP/m100.txt"
