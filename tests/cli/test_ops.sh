#!/bin/sh
# test_ops.sh - the Ops view and the links behind it on real PyTorch training traces: per
# (step, module, op, pass) device time and kernels of --export ops against ops_oracle.py, an
# independent reading of the raw events (External id, fwdbwd flows, Sequence number,
# nn.Module spans, ProfilerStep spans); per-module forward and backward time; the coverage
# of the Ranges and Stacks views; backward kernels still linked with the flows removed (by
# Sequence number); a trace with nothing linkable names its unlinked time.
. tests/cli/lib.sh

GPT=$REAL/pytorch-h100-gpt-train/gpt_train.trace.json.gz
FP32=$REAL/pytorch-h100-gpt-fp32/gpt_fp32.trace.json.gz
IDLE=$REAL/pytorch-h200-idle-injected/idle_train.trace.json.gz

# step,module,op,pass,kernels,device_ns of --export ops, sorted
ops_rows() {
    "$DCUTOP" --export ops "$1" 2>"$TMP/err" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(",".join([r["step"], r["module"], r["op"], r["pass"], r["kernels"], r["device_ns"]]))
' | sort
}

# module label,pass,device_ns from the oracle rows (module labels as the Ops screen gives them)
module_sums() {
    python3 -c '
import collections, sys
t = collections.Counter()
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    step, module, op, pas, k, ns = line.rstrip("\n").split(",")
    label = "[unlinked]" if op == "" else (module or "[no module]")
    t[(label, pas)] += int(ns)
for (m, p), ns in sorted(t.items()):
    if p in ("forward", "backward"):
        print("%s,%s,%d" % (m, p, ns))
' "$1"
}

for T in "$GPT" "$FP32"; do
    name=$(basename "$T" .trace.json.gz)
    python3 tests/cli/ops_oracle.py "$T" >"$TMP/oracle.$name"
    grep -v '^#' "$TMP/oracle.$name" | sort >"$TMP/want.$name"
    ops_rows "$T" >"$TMP/got.$name"
    n=$(wc -l <"$TMP/want.$name")
    if [ -s "$TMP/got.$name" ] && cmp -s "$TMP/want.$name" "$TMP/got.$name"; then
        ok "$name: --export ops per step/module/op/pass kernels and device time = raw events ($n rows)"
    else
        notok "$name: --export ops per step/module/op/pass = raw events"
        diff "$TMP/want.$name" "$TMP/got.$name" | head -5 | sed 's/^/#   /'
        head -2 "$TMP/err" | sed 's/^/#   /'
    fi
    # forward and backward apart, per module: the Ops screen's module table (--view ops csv)
    module_sums "$TMP/oracle.$name" >"$TMP/mwant.$name"
    "$DCUTOP" --view ops --format csv "$T" 2>/dev/null | awk '/^# ops_modules/{on=1; next} on && /^\r?$/{on=0} on' |
        python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if int(r["fwd_ns"]): print("%s,forward,%s" % (r["module"], r["fwd_ns"]))
    if int(r["bwd_ns"]): print("%s,backward,%s" % (r["module"], r["bwd_ns"]))
' | sort >"$TMP/mgot.$name"
    sort -o "$TMP/mwant.$name" "$TMP/mwant.$name"
    m=$(wc -l <"$TMP/mwant.$name")
    if [ -s "$TMP/mgot.$name" ] && cmp -s "$TMP/mwant.$name" "$TMP/mgot.$name"; then
        ok "$name: per-module forward and backward device time = raw events ($m module/pass rows)"
    else
        notok "$name: per-module forward and backward device time = raw events"
        diff "$TMP/mwant.$name" "$TMP/mgot.$name" | head -5 | sed 's/^/#   /'
    fi
done

# every kernel of the bf16 trace linked; the backward kernels (58% of kernel time) have
# their forward op; the Ranges view covers >= 99% of kernel time
"$DCUTOP" --view ops --format json "$GPT" >"$TMP/ops.json" 2>/dev/null
cov=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["ops_coverage"]
print(c["linked_pct"], c["ranged_pct"], c["backward_ns"], c["backward_linked_ns"], c["kernel_ns"])
' "$TMP/ops.json" 2>/dev/null)
set -- $cov
total=$(grep '^#coverage' "$TMP/oracle.gpt_train" | cut -d, -f3)
same "gpt-train: --view ops json kernel time = raw events" "$total" "${5:-}"
check "gpt-train: >= 99% of kernel time linked to an op (${1:-?}%)" \
    awk -v p="${1:-0}" 'BEGIN{exit !(p >= 99)}'
check "gpt-train: every backward kernel has its forward op (${4:-?} of ${3:-?} ns)" \
    test -n "${3:-}" -a "${3:-0}" -gt 0 -a "${3:-}" = "${4:-}"

# the Ranges and Stacks views: kernel time outside every range / without a stack
tree_cover() { # VIEW TRACE: % of kernel time not under a top-level pseudo node
    "$DCUTOP" --export "$1" "$2" 2>/dev/null | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))
tot = sum(int(x["self_ns"]) for x in r)
out = sum(int(x["incl_ns"]) for x in r if x["depth"] == "0" and x["kind"] == "pseudo")
print("%.3f" % (100.0 * (tot - out) / tot if tot else 0))
'
}
for T in "$GPT" "$IDLE"; do
    name=$(basename "$T" .trace.json.gz)
    c=$(tree_cover ranges "$T")
    check "$name: the Ranges view covers >= 99% of kernel time ($c%)" \
        awk -v p="${c:-0}" 'BEGIN{exit !(p >= 99)}'
done
# the climate model's trace has no ProfilerStep: its modules place the kernels; what stays
# outside is the loss (computed outside any module) and the gradient seed, 1.2%
CLIMATE=$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz
c=$(tree_cover ranges "$CLIMATE")
check "climate_train: the Ranges view places >= 98.5% of kernel time in a range or module ($c%)" \
    awk -v p="${c:-0}" 'BEGIN{exit !(p >= 98.5)}'
out=$("$DCUTOP" --export ranges "$CLIMATE" 2>/dev/null | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))
print(sum(int(x["self_ns"]) for x in r if x["path"].startswith("[outside any range];")))')
want=$(python3 tests/cli/ops_oracle.py "$CLIMATE" | python3 -c '
import sys
t = 0
for line in sys.stdin:
    if line.startswith("#"):
        continue
    step, module, op, pas, k, ns = line.rstrip("\n").split(",")
    # outside every module and not in the optimizer step (its only range)
    if not module and not op.startswith("aten::_foreach_"):
        t += int(ns)
print(t)')
same "climate_train: outside any range = the kernels of ops outside every module and range" "$want" "$out"
c=$(tree_cover stacks "$GPT")
check "gpt-train: the Stacks view covers >= 99% of kernel time ($c%)" \
    awk -v p="${c:-0}" 'BEGIN{exit !(p >= 99)}'
# a backward kernel is labelled so: under its forward op's range, below '[backward]'; on
# Stacks, under the forward op's python stack and op, then the autograd node
"$DCUTOP" --export ranges "$GPT" >"$TMP/ranges.csv" 2>/dev/null
check "gpt-train: Ranges puts backward kernels under their forward op's step and modules, then '[backward]'" \
    grep -q '"ProfilerStep#3;nn.Module: TinyGPT_0;nn.Module: DecoderBlock_0;nn.Module: FeedForward_0;nn.Module: Linear_2;\[backward\];' "$TMP/ranges.csv"
"$DCUTOP" --export stacks "$GPT" >"$TMP/stacks.csv" 2>/dev/null
check "gpt-train: Stacks puts AddmmBackward0 kernels under the forward aten::addmm's stack" \
    grep -q 'torch/nn/modules/linear.py(130): forward;<built-in function linear>;aten::addmm;\[backward\] AddmmBackward0;' "$TMP/stacks.csv"

# the fwdbwd flows removed: backward kernels are linked through the Sequence number, to
# the same forward ops (the same rows as with the flows)
python3 -c '
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("cat") != "fwdbwd"]
json.dump(d, open(sys.argv[2], "w"))
' "$GPT" "$TMP/noflow.json"
ops_rows "$TMP/noflow.json" >"$TMP/got.noflow"
if [ -s "$TMP/got.noflow" ] && cmp -s "$TMP/got.gpt_train" "$TMP/got.noflow"; then
    ok "gpt-train without fwdbwd flows: the same per-op rows (backward linked by sequence number)"
else
    notok "gpt-train without fwdbwd flows: the same per-op rows"
    diff "$TMP/got.gpt_train" "$TMP/got.noflow" | head -5 | sed 's/^/#   /'
fi
python3 tests/cli/ops_oracle.py "$TMP/noflow.json" --no-flows | grep -v '^#' | sort >"$TMP/want.noflow"
check "gpt-train without flows: = the raw events read by Sequence number alone" \
    cmp -s "$TMP/want.noflow" "$TMP/got.noflow"
hows=$("$DCUTOP" --sql "SELECT group_concat(how || ':' || n, ' ') FROM (SELECT how, count(*) AS n
    FROM dispatch_op WHERE pass = 'backward' GROUP BY 1 ORDER BY 1)" --format csv "$TMP/noflow.json" 2>/dev/null | tail -1)
same "gpt-train without flows: every backward kernel linked by sequence" "sequence:534" "$hows"

# nothing linkable (the aten ops removed): every kernel counted in a row with an empty op,
# and named as unlinked
python3 -c '
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("cat") != "cpu_op"]
json.dump(d, open(sys.argv[2], "w"))
' "$GPT" "$TMP/noops.json"
"$DCUTOP" --export ops "$TMP/noops.json" >"$TMP/noops.csv" 2>/dev/null
got=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(int(r["device_ns"]) for r in rows if r["op"] == ""), sum(int(r["kernels"]) for r in rows if r["op"] == ""), len([r for r in rows if r["op"] != ""]))
' "$TMP/noops.csv" 2>/dev/null)
same "no aten ops: all kernel time (840 kernels) in rows with an empty op" "$total 840 0" "$got"
"$DCUTOP" --view ops "$TMP/noops.json" >"$TMP/noops.txt" 2>/dev/null
check "no aten ops: --view ops says 0% is tied to an op" grep -q '0.00% of kernel time (0 of 840 kernels) tied to an op' "$TMP/noops.txt"
why=$("$DCUTOP" --sql "SELECT group_concat(DISTINCT how) FROM dispatch_op" --format csv "$TMP/noops.json" 2>/dev/null | tail -1)
same "no aten ops: the reason is named" '"unlinked: no op encloses the launch"' "$why"

# the screen: O opens the modules; Enter a module's ops, an op's kernels, its dispatches
printf 'O\n:dump m\n<Enter>\n:dump o\n<Enter>\n:dump k\n<Enter>\n:dump d\n' >"$TMP/ops.keys"
"$DCUTOP" --headless --size 120x30 --keys "$TMP/ops.keys" "$GPT" >"$TMP/screen.txt" 2>&1
check "Ops screen: modules with forward, backward and total time" \
    grep -q 'Module .*Forward.*Backward.*Total' "$TMP/screen.txt"
# the figures the screen shows, from the raw events (us, two decimals): [no module] (the loss
# and the optimizer) and its aten::_log_softmax, forward, backward and together
us() { awk -v n="$1" 'BEGIN{printf "%.2f", n / 1000}'; }
set -- $(python3 -c '
import sys
f = b = t = lf = lb = 0
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    step, module, op, pas, k, ns = line.rstrip("\n").split(",")
    if module or not op:
        continue
    ns = int(ns)
    t += ns
    f += ns if pas == "forward" else 0
    b += ns if pas == "backward" else 0
    if op == "aten::_log_softmax":
        lf += ns if pas == "forward" else 0
        lb += ns if pas == "backward" else 0
print(f, b, t, lf, lb, lf + lb)
' "$TMP/oracle.gpt_train")
check "Ops screen: [no module] forward, backward, total = raw events" \
    grep -q "\[no module\] *$(us "$1") *$(us "$2") *$(us "$3") " "$TMP/screen.txt"
check "Ops screen: Enter lists the module's ops (aten::_log_softmax = raw events)" \
    grep -q "aten::_log_softmax *$(us "$4") *$(us "$5") *$(us "$6") " "$TMP/screen.txt"
check "Ops screen: Enter lists the op's kernels (backward $(us "$5") us)" \
    grep -q "cunn_SoftMaxBackwardSmem.*backward *3 *$(us "$5") " "$TMP/screen.txt"
check "Ops screen: Enter lists the dispatches and how each was linked" \
    grep -Eq '^ +[0-9]+ +1 +[234] backward +[0-9.]+ flow ' "$TMP/screen.txt"

# traces without aten ops: marker ranges and stack dumps feed the same view (op = the
# innermost range or user frame, module = the ones around it, outermost first)
KOKKOS=$REAL/kokkos-rocprof-v1-hiptrace-rocm4
if command -v sqlite3 >/dev/null 2>&1; then
    # independent: each kernel (OPS) is launched by the HIP call with the same Index; its op
    # is the innermost rocTX range of that thread open at the launch's BeginNs
    sqlite3 -batch "$KOKKOS/results.db" "
        SELECT coalesce((SELECT trim(r.Name, '\"') FROM rocTX r WHERE r.tid = h.tid
                         AND r.BeginNs <= h.BeginNs AND h.BeginNs < r.EndNs
                         ORDER BY r.BeginNs DESC LIMIT 1), ''), sum(o.EndNs - o.BeginNs)
        FROM OPS o JOIN HIP h ON h.\"Index\" = o.\"Index\" GROUP BY 1" | tr '|' ',' |
        LC_ALL=C sort >"$TMP/kk.want"
    "$DCUTOP" --export ops "$KOKKOS/results.db" 2>/dev/null | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print("%s,%s" % (r["op"], r["device_ns"]))' | LC_ALL=C sort >"$TMP/kk.got"
    if [ -s "$TMP/kk.got" ] && cmp -s "$TMP/kk.want" "$TMP/kk.got"; then
        ok "kokkos results.db: --export ops per rocTX range = sqlite3 over the raw db (empty op: outside every range)"
    else
        notok "kokkos results.db: --export ops per rocTX range = sqlite3 over the raw db"
        diff "$TMP/kk.want" "$TMP/kk.got" | head -5 | sed 's/^/#   /'
    fi
else
    notok "kokkos results.db ops: sqlite3 missing"
fi
D=$TMP/ks
mkdir -p "$D"
cat >"$D/results.csv" <<'EOF'
"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"
0,"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32.kd",0,0,0,100,100,256,256,0,0,16,0,128,64,"0x0","0x0",1000,2000,3000,3100,1000
1,"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32.kd",0,0,0,100,100,256,256,0,0,16,0,128,64,"0x0","0x0",1000,5000,7000,7100,2000
2,"softmax_warp_forward.kd",0,0,0,100,100,256,256,0,0,16,0,128,64,"0x0","0x0",1000,8000,8300,8400,300
EOF
cat >"$D/kernel_stack.txt" <<'EOF'
kernel[0]: Cijk_Ailk_Bljk_HHS_BH_MT128x128x32
#0  0x00007f3a1c2b4e10 in hipModuleLaunchKernel () from /opt/rocm/lib/libamdhip64.so.6
#1  0x00007f3a0a1b2c3d in rocblas_gemm_ex (handle=0x1) from /opt/rocm/lib/librocblas.so.4
#2  0x0000555555555abc in forward (x=0x1) at model.cpp:42
#3  0x0000555555555def in main (argc=1, argv=0x7ffd) at main.cpp:10

index: 1
/opt/rocm/lib/libamdhip64.so.6(hipModuleLaunchKernel+0x1a) [0x7f3a1c2b4e10]
./app(_Z8backwardv+0x40) [0x555555555abc]
./app(main+0x20) [0x555555555def]
EOF
dur() { awk -F, -v i="$1" 'NR > 1 && $1 == i { print $20 - $19 }' "$D/results.csv"; }
"$DCUTOP" --export ops "$D" 2>/dev/null | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print("%s|%s|%s" % (r["module"], r["op"], r["device_ns"]))' | LC_ALL=C sort >"$TMP/ks.got"
same "kernel-stack dump: op = innermost user frame, module = the frames above, time = the launch's" \
    "$(printf '%s\n' "||$(dur 2)" "main at main.cpp:10|forward at model.cpp:42|$(dur 0)" \
        "main from app|_Z8backwardv from app|$(dur 1)" | LC_ALL=C sort)" "$(cat "$TMP/ks.got")"
why=$("$DCUTOP" --sql "SELECT how FROM dispatch_op WHERE op_name IS NULL" --format csv "$D" 2>/dev/null | tail -1)
same "kernel-stack dump: the launch with no stack is counted and named" \
    '"unlinked: no marker range or stack at its launch"' "$why"
"$DCUTOP" --export ranges "$KOKKOS/results.db" >"$TMP/kk.ranges" 2>/dev/null
check "kokkos results.db: the Ranges view shows its rocTX ranges, no module levels of its own" \
    sh -c "grep -q 'Atomic Loop' '$TMP/kk.ranges' && ! grep -q 'nn.Module' '$TMP/kk.ranges'"
