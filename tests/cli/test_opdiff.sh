#!/bin/sh
# test_opdiff.sh - the diff matched by op identity (module path, op, input shapes, occurrence in
# the step; a backward kernel by its forward op), on real traces of one model recorded twice
# with different kernels, and across vendors on a rocprofv3 marker trace derived from a real
# Kineto trace (tests/data/derived/README.md). Every per-op figure is checked against
# tests/cli/opdiff_oracle.py over the raw events; the op rows must cover the whole difference
# of device kernel time, and the report must name the matching it used.
. tests/cli/lib.sh
ORACLE=tests/cli/opdiff_oracle.py
BF16=$REAL/pytorch-h100-gpt-train
FP32=$REAL/pytorch-h100-gpt-fp32
MK16=tests/data/derived/rocprofv3-markers-gpt-bf16
MK32=tests/data/derived/rocprofv3-markers-gpt-fp32
REG=$REAL/pytorch-h100-abba-regress

# checkops NAME EXPORT.csv ORACLE_A ORACLE_B: every op row's before/after and calls equal the
# oracle's, every oracle op is a row, the status says which sides have it, and the op rows'
# deltas add up to the difference of the oracle's totals
checkops() {
    python3 - "$2" "$3" "$4" <<'EOF' >"$TMP/chk" 2>&1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
def load(p):
    d = {}
    for l in open(p):
        k, t, c = l.rstrip("\n").split("\t")
        d[k] = (int(t), int(c))
    return d
A, B = load(sys.argv[2]), load(sys.argv[3])
bad = []
names = set()
for r in rows:
    k = r["name"]
    names.add(k)
    if k.startswith("unlinked "):
        bad.append("unlinked row " + k)
        continue
    a, b = A.get(k, (0, 0)), B.get(k, (0, 0))
    got_a = (int(r["before"] or 0), int(r["calls_before"] or 0))
    got_b = (int(r["after"] or 0), int(r["calls_after"] or 0))
    if got_a != a or got_b != b:
        bad.append("%s: A %s vs %s, B %s vs %s" % (k, got_a, a, got_b, b))
    want = "both" if k in A and k in B else ("gone" if k in A else "new")
    if r["status"] != want:
        bad.append("%s: status %s, want %s" % (k, r["status"], want))
for k in list(A) + list(B):
    if k not in names and k not in ("TOTAL", "UNLINKED"):
        bad.append("oracle op missing: " + k)
delta = sum(int(r["delta"] or 0) for r in rows)
want = B["TOTAL"][0] - A["TOTAL"][0]
if abs(delta - want) > len(rows):  # each row's delta is rounded to 1 ns
    bad.append("op deltas sum to %d, totals differ by %d" % (delta, want))
if A["UNLINKED"][0] or B["UNLINKED"][0]:
    bad.append("oracle: unlinked kernel time %d / %d" % (A["UNLINKED"][0], B["UNLINKED"][0]))
print("\n".join(bad[:8]) if bad else "OK %d rows, delta %d" % (len(rows), delta))
EOF
    if [ "$(head -c 2 "$TMP/chk")" = "OK" ]; then
        ok "$1: $(cat "$TMP/chk")"
    else
        notok "$1"
        sed 's/^/#   /' "$TMP/chk"
    fi
}

python3 $ORACLE $BF16/gpt_train.trace.json.gz >"$TMP/o_bf16"
python3 $ORACLE $FP32/gpt_fp32.trace.json.gz >"$TMP/o_fp32"
python3 $ORACLE $MK16 >"$TMP/o_mk16"
python3 $ORACLE $MK32 >"$TMP/o_mk32"
same "oracle: the bf16 trace's kernel time (README: 9,161,545 ns)" "TOTAL	9161545	840" \
    "$(grep '^TOTAL' "$TMP/o_bf16")"
same "oracle: the fp32 trace's kernel time (README: 32,316,999 ns)" "TOTAL	32316999	657" \
    "$(grep '^TOTAL' "$TMP/o_fp32")"
same "oracle: the derived marker trace gives the ops of the Kineto trace it came from" \
    "$(cat "$TMP/o_bf16")" "$(cat "$TMP/o_mk16")"

# 1. bf16 against fp32 of one model (Kineto both): kernel names share little, ops match
$DCUTOP --diff $BF16 $FP32 --export diff -o "$TMP/d1.csv" 2>"$TMP/err"
checkops "bf16 vs fp32 (Kineto): per-op device time, calls and status = the oracle's" \
    "$TMP/d1.csv" "$TMP/o_bf16" "$TMP/o_fp32"
same "bf16 vs fp32: the export is the per-op table" \
    "name,status,pass,module,op,shapes,occurrence,category,before,after,delta,delta_pct,ratio,calls_before,calls_after,share_pct,noise,ci_lo,ci_hi,kernels_before,kernels_after" \
    "$(head -1 "$TMP/d1.csv" | tr -d '\r')"
$DCUTOP --diff $BF16 $FP32 --width 400 >"$TMP/d1.txt" 2>&1
check "bf16 vs fp32: the report names the matching (op identity, from PyTorch op links)" \
    grep -q "^Matching: by op identity (module path, op, input shapes, occurrence in the step" "$TMP/d1.txt"
check "bf16 vs fp32: ... and how much kernel time has an op (100% both sides)" \
    grep -q "kernel time with an op: A 100.0%, B 100.0%" "$TMP/d1.txt"
# the largest difference: the lm_head Linear's backward (cutlass/xmma sgemm in fp32, nvjet in bf16)
same "bf16 vs fp32: largest |delta| first: lm_head's backward aten::linear" \
    "backward,TinyGPT_0/Linear_16,aten::linear" \
    "$(python3 -c "import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(r['pass']+','+r['module']+','+r['op'])" "$TMP/d1.csv")"
# that op ran GEMM kernels with no name in common on the two sides
python3 - "$TMP/d1.csv" >"$TMP/k1" <<'EOF'
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
a = {k.rsplit(" x", 1)[0] for k in r["kernels_before"].split("; ")}
b = {k.rsplit(" x", 1)[0] for k in r["kernels_after"].split("; ")}
print("nvjet" if any("nvjet" in k for k in a) else "-", "sgemm-or-xmma" if any("sgemm" in k or "xmma" in k for k in b) else "-", len(a & b))
EOF
same "bf16 vs fp32: the kernels each side ran under it share no name" "nvjet sgemm-or-xmma 0" \
    "$(cat "$TMP/k1")"
check "bf16 vs fp32: unmatched ops listed apart (autocast's aten::to of the logits, only in bf16)" \
    grep -q "gone .*forward - aten::to\[\[16,256,4096\]" "$TMP/d1.txt"
$DCUTOP --diff $BF16 $FP32 --format json >"$TMP/d1.json" 2>&1
python3 - "$TMP/d1.json" >"$TMP/j1" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
mods = {r["module"]: r for r in d["modules"]}
names = {r["op"]: r for r in d["op_names"]}
ops = d["ops"]
def total(rows):
    return sum(r["delta"] for r in rows)
print(sorted(k for k in ("ops", "modules", "op_names", "categories", "kernels", "matching") if k in d),
      abs(total(d["modules"]) - total(ops)) <= len(ops), abs(total(d["op_names"]) - total(ops)) <= len(ops),
      "aten::linear (backward)" in names, d["matching"][0]["note"].startswith("by op identity"))
EOF
same "bf16 vs fp32 --format json: ops, op names, modules; the roll-ups add up to the ops" \
    "['categories', 'kernels', 'matching', 'modules', 'op_names', 'ops'] True True True True" \
    "$(cat "$TMP/j1")"

# 2. across vendors: the bf16 Kineto trace against the derived rocprofv3 marker trace of fp32
$DCUTOP --diff $BF16 $MK32 --export diff -o "$TMP/d2.csv" 2>"$TMP/err"
checkops "Kineto (H100 bf16) vs rocprofv3 markers (fp32, Cijk_* GEMMs): per-op figures = the oracle's" \
    "$TMP/d2.csv" "$TMP/o_bf16" "$TMP/o_mk32"
$DCUTOP --diff $BF16 $MK32 --width 400 >"$TMP/d2.txt" 2>&1
check "Kineto vs markers: the matching names both sources" \
    grep -q "from PyTorch op links on A and markers on B" "$TMP/d2.txt"
python3 - "$TMP/d2.csv" >"$TMP/k2" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["op"] == "aten::linear"]
both = sum(r["status"] == "both" for r in rows)
amd = sum("Cijk_Ailk_Bljk" in r["kernels_after"] and "Cijk" not in r["kernels_before"] for r in rows)
print(len(rows), both, amd)
EOF
# 17 Linear modules, forward and backward: every one matched, every B side on Cijk_* kernels
same "Kineto vs markers: all 34 aten::linear ops matched though their GEMMs share no name" \
    "34 34 34" "$(cat "$TMP/k2")"
# one trace read two ways: every op matches, nothing changes
$DCUTOP --diff $BF16 $MK16 --export diff -o "$TMP/d3.csv" 2>"$TMP/err"
same "the same run as Kineto and as markers: every op matched, every delta 0" "0 0" \
    "$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(sum(x['status']!='both' for x in r), sum(abs(int(x['delta'])) for x in r))" "$TMP/d3.csv")"

# 3. the A-B-B-A regression: B adds u = u * 1.0 after each block's GELU
python3 $ORACLE $REG/A1/A1.trace.json.gz >"$TMP/o_a1"
python3 $ORACLE $REG/B1/B1.trace.json.gz >"$TMP/o_b1"
$DCUTOP --diff $REG/A1 $REG/B1 --export diff -o "$TMP/d4.csv" 2>"$TMP/err"
checkops "regression A1 vs B1: per-op figures = the oracle's" "$TMP/d4.csv" "$TMP/o_a1" "$TMP/o_b1"
python3 - "$TMP/d4.csv" "$TMP/o_b1" >"$TMP/k4" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
top = rows[:8]
muls = [r for r in top if r["op"] == "aten::mul" and r["shapes"] == "[[16,256,2048],[]]" and r["status"] == "new"]
passes = sorted({r["pass"] for r in muls})
oracle = sum(int(l.split("\t")[1]) for l in open(sys.argv[2]) if " aten::mul[[16,256,2048],[]] " in l)
total = sum(int(r["delta"]) for r in rows)
print(len(muls), passes, sum(int(r["after"]) for r in muls) == oracle, round(100 * sum(int(r["delta"]) for r in muls) / total))
EOF
# the muls are 80.6% of the kernel-time difference (the rest: the other ops' noise)
same "regression: the 8 largest differences are the added aten::mul [16,256,2048] (4 forward, 4 backward), 81% of the delta" \
    "8 ['backward', 'forward'] True 81" "$(cat "$TMP/k4")"
$DCUTOP --diff $REG/A1 $REG/B1 --format csv >"$TMP/d4r.csv" 2>&1
same "regression: the op-name roll-up puts aten::mul first" "aten::mul (backward),new" \
    "$(sed -n '/^# op_names/,$p' "$TMP/d4r.csv" | sed -n 3p | cut -d, -f1,2 | tr -d '"')"
$DCUTOP --abba $REG/A1 $REG/B1 $REG/B2 $REG/A2 --export abba -o "$TMP/ab.csv" 2>"$TMP/err"
same "A-B-B-A by op: after the layers, the 8 added aten::mul ops, each trusted" "8 8" \
    "$(python3 -c "
import csv,sys
r=list(csv.DictReader(open(sys.argv[1])))[2:10]
print(sum(x['layer']=='op' and 'aten::mul[[16,256,2048],[]]' in x['name'] for x in r), sum(x['verdict']=='trusted' for x in r))" "$TMP/ab.csv")"

# 4. one program on two kinds of hardware (H100, H200): every op on both
python3 $ORACLE $REAL/pytorch-h100-abba-sdpa/A1/A1.trace.json.gz >"$TMP/o_h100"
python3 $ORACLE $REAL/pytorch-h200-abba-sdpa/A1/A1.trace.json.gz >"$TMP/o_h200"
$DCUTOP --diff $REAL/pytorch-h100-abba-sdpa/A1 $REAL/pytorch-h200-abba-sdpa/A1 --export diff \
    -o "$TMP/d5.csv" 2>"$TMP/err"
checkops "H100 vs H200 (same program): per-op figures = the oracle's" "$TMP/d5.csv" \
    "$TMP/o_h100" "$TMP/o_h200"

# 5. the fallback and the choice
$DCUTOP --diff $BF16 $FP32 --match full --width 200 >"$TMP/d6.txt" 2>&1
check "--match full: by kernel name, and said so" grep -q "^Matching: by full kernel name (--match full)" "$TMP/d6.txt"
check "--match full: no op table" sh -c "! grep -q '^Ops: where' '$TMP/d6.txt'"
$DCUTOP --diff sample-traces/rocprofv3-sdk-docs-csv $MK16 --width 200 >"$TMP/d7.txt" 2>&1
check "a side without op identity: kernel names, and the report says which side lacks it" \
    grep -q "^Matching: by full kernel name: no op identity in the baseline (A)" "$TMP/d7.txt"
exits "--match other: a usage error" 2 $DCUTOP --diff $BF16 $FP32 --match nope

# 6. the manual's worked example is this binary's output (the title line names the paths)
$DCUTOP -q --diff $REAL/pytorch-h100-abba-sdpa/A1 $REAL/pytorch-h200-abba-sdpa/A1 --top 3 \
    --width 110 >"$TMP/man1.txt" 2>&1
check "doc/manual.md shows the current H100 vs H200 op diff" python3 - "$TMP/man1.txt" <<'PYEOF'
import sys
out = open(sys.argv[1]).read().rstrip("\n").split("\n")[1:]
block = "\n".join(("    " + l) if l else "" for l in out)
sys.exit(block not in open("doc/manual.md").read())
PYEOF
$DCUTOP -q --diff $BF16 $FP32 --top 3 --width 110 >"$TMP/man2.txt" 2>&1
check "doc/manual.md: the bf16 vs fp32 lines it quotes are the current output" python3 - "$TMP/man2.txt" <<'PYEOF'
import sys
out = open(sys.argv[1]).read().split("\n")
man = open("doc/manual.md").read()
sec = man[man.index("## Compare the same model on two machines"):]
sec = sec[sec.index("Two configurations of one model"):sec.index("(`aten::to` of the logits")]
quoted = [l[4:] for l in sec.split("\n") if l.startswith("    ")]
sys.exit(not quoted or any(q not in out for q in quoted))
PYEOF

# 7. the Diff screen: per op, then v through categories and kernels to modules; Enter on a
# module lists its ops, Enter on an op names the kernels each side ran
printf ':dump ops\nv\nv\nv\n:dump modules\n<Enter>\n:dump module-ops\n<Enter>\n:dump op\n' >"$TMP/ds.keys"
$DCUTOP --headless --size 120x30 --keys "$TMP/ds.keys" --diff $BF16 $FP32 >"$TMP/ds.txt" 2>&1
check "Diff screen: per op first, the matching named" sh -c \
    "sed -n '/--- ops/,/--- modules/p' '$TMP/ds.txt' | grep -q '^ Op  .*Status' && grep -q '^ Matched     by op identity' '$TMP/ds.txt'"
check "Diff screen: v three times: per module, lm_head's Linear first" sh -c \
    "sed -n '/--- modules/,/--- module-ops/p' '$TMP/ds.txt' | grep -q '^ TinyGPT_0/Linear_16  *both'"
check "Diff screen: Enter on a module: its ops (forward and backward)" sh -c \
    "sed -n '/--- module-ops/,/--- op /p' '$TMP/ds.txt' | grep -c 'TinyGPT_0/Linear_16 aten::linear' | grep -qx 2"
check "Diff screen: Enter on an op: the kernels each side ran" sh -c \
    "sed -n '/--- op /,\$p' '$TMP/ds.txt' | grep -q '^A ran nvjet.* | B ran Kernel2<cutlass'"

# 8. no aten ops: the Kokkos trace's marker ranges are its ops (dispatch_op 'range'); with every
# kernel renamed (another compiler or architecture), the ops under a range still match
K=$REAL/kokkos-rocprof-v1-hiptrace-rocm4
mkdir -p "$TMP/kk"
cp $K/results.db "$TMP/kk/"
sqlite3 "$TMP/kk/results.db" "UPDATE OPS SET Name = Name || '_gfx942' WHERE Name <> 'Unknown command type'"
$DCUTOP --diff $K/results.db "$TMP/kk/results.db" --export diff -o "$TMP/kk.csv" 2>"$TMP/err"
same "Kokkos, kernels renamed: the 6 calls under ranges match with delta 0, the 2 kernels outside any range by name" \
    "both:6:0 gone:2 new:2" "$(python3 -c "
import csv,sys
r=list(csv.DictReader(open(sys.argv[1])))
b=[x for x in r if x['status']=='both']
print('both:%d:%d gone:%d new:%d' % (len(b), sum(abs(int(x['delta'])) for x in b), sum(x['status']=='gone' for x in r), sum(x['status']=='new' for x in r)))" "$TMP/kk.csv")"
$DCUTOP --diff $K/results.db "$TMP/kk/results.db" --width 400 >"$TMP/kk.txt" 2>&1
check "Kokkos: the matching names the marker ranges" grep -q "from marker ranges on A and marker ranges on B" "$TMP/kk.txt"

# 9. held out (recorded after this code was written): fp32 against bf16 autocast on one H100
N=$REAL/pytorch-h100-abba-numerics
if [ -d "$N" ]; then
    python3 $ORACLE $N/A1/A1.trace.json.gz >"$TMP/o_n1"
    python3 $ORACLE $N/B1/B1.trace.json.gz >"$TMP/o_n2"
    $DCUTOP --diff $N/A1 $N/B1 --export diff -o "$TMP/d9.csv" 2>"$TMP/err"
    checkops "held out, numerics A1 (fp32) vs B1 (bf16): per-op figures = the oracle's" \
        "$TMP/d9.csv" "$TMP/o_n1" "$TMP/o_n2"
fi
