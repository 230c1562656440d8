#!/bin/sh
# test_efficiency.sh - FLOPs, bytes and % of peak from recorded shapes, end to end. On the
# real traces taken with record_shapes (MI300X Qwen, H200 climate transformer), the GEMM
# FLOPs and kernel time dcutop reports are recomputed here from the .json.gz with python3
# (gzip + json): kernels linked to their aten op by External id (on the kernel, else on the
# runtime call of the same correlation), the innermost op, FLOPs 2*M*N*K*batch per op.
# Also --peak, --peaks, an unknown device, a trace without shapes, and usage errors.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
QWEN=$REAL/pytorch-kineto-mi300-qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
TRAIN=$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz
INFER=$REAL/pytorch-h200-climate-transformer/climate_infer.trace.json.gz

# gemm_python FILE: "flops kernel_ns ops" of aten::mm/addmm/bmm computed from the JSON
gemm_python() {
    python3 - "$1" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
ev = d["traceEvents"]
ops = {}
for e in ev:
    if e.get("cat") == "cpu_op" and e.get("ph") == "X":
        x = e.get("args", {}).get("External id")
        if x is not None:
            ops.setdefault(x, []).append(e)
rt = {}
for e in ev:
    if e.get("cat") in ("cuda_runtime", "cuda_driver") and "External id" in e.get("args", {}):
        rt[e["args"]["correlation"]] = e["args"]["External id"]
def ns(us):  # µs with 3 decimals -> exact ns
    return int(round(float(us) * 1000))
op_ns = {}
for e in ev:
    if e.get("cat") != "kernel":
        continue
    a = e.get("args", {})
    x = a.get("External id")
    if x is None or x not in ops:
        x = rt.get(a.get("correlation"))
    if x is None or x not in ops:
        continue
    op = max(ops[x], key=lambda o: ns(o["ts"]))   # the innermost op: latest start
    op_ns[id(op)] = op_ns.get(id(op), (op, 0))[0], op_ns.get(id(op), (op, 0))[1] + ns(e["dur"])
flops = 0; t = 0; n = 0
for op, k in op_ns.values():
    name = op["name"]; dims = op["args"].get("Input Dims")
    if dims is None:
        continue
    if name == "aten::mm":
        (m, kk), (_, nn) = dims[0], dims[1]; b = 1
    elif name == "aten::addmm":
        (m, kk), (_, nn) = dims[1], dims[2]; b = 1
    elif name == "aten::bmm":
        (b, m, kk), (_, _, nn) = dims[0], dims[1]
    else:
        continue
    flops += 2 * m * nn * kk * b; t += k; n += 1
print(flops, t, n)
PY
}

# gemm_dcutop FILE [OPTS]: the same sums over dcutop's efficiency export
gemm_dcutop() {
    f=$1
    shift
    "$DCUTOP" -q --export efficiency "$@" "$f" | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))
g = [x for x in r if x["op"] in ("aten::mm", "aten::addmm", "aten::bmm")]
print(round(sum(float(x["flops"]) for x in g)), sum(int(x["kernel_ns"]) for x in g),
      sum(int(x["calls"]) for x in g))'
}

for f in "$QWEN" "$TRAIN" "$INFER"; do
    b=$(basename "$f")
    if [ ! -f "$f" ]; then
        notok "$b exists"
        continue
    fi
    exp=$(gemm_python "$f")
    got=$(gemm_dcutop "$f")
    same "$b: GEMM FLOPs, kernel ns and op calls equal the python recomputation" "$exp" "$got"
    case $exp in "0 0 0") notok "$b: the trace has GEMM ops with shapes" ;; esac
done

# the export's columns, in the issue's order
hdr=$("$DCUTOP" -q --export efficiency "$QWEN" | head -1 | tr -d '\r')
same "export columns" "op,shape,dtype,calls,flops,bytes,kernel_ns,tflops,gbps,pct_peak,bound,peak_source" "$hdr"

# % of peak of the biggest Qwen GEMM, by hand: 48 calls of M=8944 N=2816 K=1024 bf16 on an
# MI300X (1307.4 TFLOP/s bf16, 5300 GB/s): compute-bound, time at peak = FLOPs / 1307.4e12
"$DCUTOP" -q --export efficiency "$QWEN" >"$TMP/q.csv"
python3 - "$TMP/q.csv" <<'PY' >"$TMP/check" 2>&1
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["op"] == "aten::mm" and x["shape"] == "M=8944 N=2816 K=1024 B^T"]
assert len(r) == 1, r
x = r[0]
calls, flops, by, ns = int(x["calls"]), float(x["flops"]), int(x["bytes"]), int(x["kernel_ns"])
assert x["dtype"] == "bf16"
assert calls == 48, calls
assert flops == 48 * 2 * 8944 * 2816 * 1024, flops
assert by == 48 * 2 * (8944 * 1024 + 1024 * 2816 + 8944 * 2816), by
assert abs(float(x["tflops"]) - flops / ns / 1e3) < 1e-5, x["tflops"]
assert abs(float(x["gbps"]) - by / ns) < 1e-5, x["gbps"]
at_peak = max(flops / 1307.4e3, by / 5300.0)   # ns
assert abs(float(x["pct_peak"]) - 100 * at_peak / ns) < 1e-5, (x["pct_peak"], 100 * at_peak / ns)
assert x["bound"] == "compute", x["bound"]
print("fine")
PY
same "Qwen mm 8944x2816x1024: FLOPs, bytes, TFLOP/s, GB/s, % of MI300X peak, bound" "fine" "$(cat "$TMP/check")"

# --peak replaces the table: the same row at 100 TFLOP/s, 1000 GB/s
"$DCUTOP" -q --export efficiency --peak 100,1000 "$QWEN" >"$TMP/p.csv"
python3 - "$TMP/p.csv" <<'PY' >"$TMP/check" 2>&1
import csv, sys
x = [x for x in csv.DictReader(open(sys.argv[1])) if x["op"] == "aten::mm" and x["shape"] == "M=8944 N=2816 K=1024 B^T"][0]
flops, by, ns = float(x["flops"]), int(x["bytes"]), int(x["kernel_ns"])
at_peak = max(flops / 100e3, by / 1000.0)
assert abs(float(x["pct_peak"]) - 100 * at_peak / ns) < 1e-5, (x["pct_peak"], 100 * at_peak / ns)
print("fine")
PY
same "--peak 100,1000 sets the roofs" "fine" "$(cat "$TMP/check")"

# an unknown device: achieved figures, no % of peak, and the report says how to give one
mkdir -p "$TMP/u"
zcat "$QWEN" | sed 's/AMD Instinct MI300X VF/Mystery GPU 9000/' | gzip >"$TMP/u/t.json.gz"
"$DCUTOP" -q --export efficiency "$TMP/u/t.json.gz" >"$TMP/u.csv"
n_pct=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(sum(1 for x in r if x["pct_peak"]), sum(1 for x in r if x["tflops"]))' "$TMP/u.csv")
case $n_pct in "0 "[1-9]*) ok "unknown device: TFLOP/s shown, no % of peak" ;; *) notok "unknown device: $n_pct" ;; esac
"$DCUTOP" -q --report --view efficiency "$TMP/u/t.json.gz" >"$TMP/u.txt"
check "unknown device: the report asks for --peak" grep -q -- "--peak TFLOPS,GBps" "$TMP/u.txt"
check "unknown device: named as the trace names it" grep -q "Mystery GPU 9000: no peak known (not in the peaks table)" "$TMP/u.txt"
# ... and a peaks file of one's own names it
mkdir -p "$TMP/xdg/dcutop"
printf '# measured\nMystery\t200 200 50 - 2000\n' >"$TMP/xdg/dcutop/peaks"
"$DCUTOP" -q --report --view efficiency "$TMP/u/t.json.gz" >"$TMP/u2.txt"
check "\$XDG_CONFIG_HOME/dcutop/peaks is read" grep -q "Mystery GPU 9000: bf16 200, fp16 200, fp32 50 TFLOP/s; 2000 GB/s" "$TMP/u2.txt"
rm -f "$TMP/xdg/dcutop/peaks"
printf 'Mystery\t300 300 50 - 2500\n' >"$TMP/my.peaks"
"$DCUTOP" -q --report --view efficiency --peaks "$TMP/my.peaks" "$TMP/u/t.json.gz" >"$TMP/u3.txt"
check "--peaks FILE is read" grep -q "bf16 300, fp16 300, fp32 50 TFLOP/s; 2500 GB/s (peaks: $TMP/my.peaks line 1)" "$TMP/u3.txt"

# a trace without shapes says so, and how to record them
ABBA=$REAL/pytorch-h200-abba-sdpa/A1/A1.trace.json.gz
"$DCUTOP" -q --report --view efficiency "$ABBA" >"$TMP/n.txt"
check "no shapes: says record_shapes=True" grep -q "record_shapes=True" "$TMP/n.txt"
"$DCUTOP" --export efficiency "$ABBA" >"$TMP/n.csv" 2>"$TMP/n.err"
same "no shapes: the export is a header only" "1" "$(wc -l <"$TMP/n.csv" | tr -d ' ')"
check "no shapes: the export says why on stderr" grep -q "record_shapes=True" "$TMP/n.err"
# CSV-only traces: no efficiency columns in hotspots (exports unchanged)
hh=$("$DCUTOP" -q --export hotspots sample-traces/dcu-weather-transformer | head -1 | tr -d '\r')
same "hotspots without shapes: columns unchanged" \
    "name,short_name,category,calls,total_ns,avg_ns,min_ns,max_ns,stddev_ns,pct,cum_pct,ceiling,var_ns,golden_ns,outliers,name_raw" "$hh"
# with shapes: per kernel, pct_peak through its op (sum over kernels equals the ops' time)
"$DCUTOP" -q --export hotspots "$TRAIN" >"$TMP/h.csv"
"$DCUTOP" -q --export efficiency "$TRAIN" >"$TMP/t.csv"
python3 - "$TMP/h.csv" "$TMP/t.csv" <<'PY' >"$TMP/check" 2>&1
import csv, sys
h = list(csv.DictReader(open(sys.argv[1])))
e = list(csv.DictReader(open(sys.argv[2])))
assert "pct_peak" in h[0] and "bound" in h[0] and "tflops" in h[0]
assert any(x["bound"] == "compute" for x in h) and any(x["bound"] == "memory" for x in h)
fh = sum(float(x["flops"]) for x in h if x["flops"])
fe = sum(float(x["flops"]) for x in e)
assert abs(fh - fe) <= 1e-6 * fe, (fh, fe)
bh = sum(int(x["bytes"]) for x in h if x["bytes"])
be = sum(int(x["bytes"]) for x in e)
assert abs(bh - be) <= len(h) + len(e), (bh, be)
print("fine")
PY
same "hotspots per kernel: FLOPs and bytes add up to the ops'" "fine" "$(cat "$TMP/check")"

# usage errors
exits "--peak without GB/s is a usage error" 2 "$DCUTOP" --peak 100 --export efficiency "$QWEN"
exits "--peak with junk is a usage error" 2 "$DCUTOP" --peak 1,x --export efficiency "$QWEN"
printf 'MI300X 1 2 3 4 5\n' >"$TMP/bad.peaks"
exits "a bad peaks file is a usage error" 2 "$DCUTOP" --peaks "$TMP/bad.peaks" --export efficiency "$QWEN"
check "... naming the file and line" grep -q "bad.peaks:1:" "$TMP/err"
exits "a missing peaks file is a usage error" 2 "$DCUTOP" --peaks "$TMP/none.peaks" --export efficiency "$QWEN"

# --what-if gemm=80%peak: k = time / time with each modelled GEMM kernel at 80% of its peak,
# recomputed from the hotspots export (per kernel: total, and through its ops the linked
# time = AtPeak * 100 / %Peak)
"$DCUTOP" -q --export hotspots "$QWEN" >"$TMP/qh.csv"
"$DCUTOP" -q --export categories --what-if gemm=80%peak "$QWEN" >"$TMP/qc.csv"
python3 - "$TMP/qh.csv" "$TMP/qc.csv" <<'PY' >"$TMP/check" 2>&1
import csv, sys
h = [x for x in csv.DictReader(open(sys.argv[1])) if x["category"] == "gemm"]
t = sum(int(x["total_ns"]) for x in h)
d = a = 0.0
for x in h:
    if x["pct_peak"]:
        peak = float(x["peak_ns"]); dur = peak * 100 / float(x["pct_peak"])
        d += dur; a += min(dur, peak * 100 / 80)
k = t / (t - d + a)
c = [x for x in csv.DictReader(open(sys.argv[2])) if x["category"] == "gemm"][0]
assert abs(float(c["what_if"]) - k) < 1e-3 * k, (c["what_if"], k)
assert k > 1.01, k
print("fine")
PY
same "--what-if gemm=80%peak: k from the modelled kernels" "fine" "$(cat "$TMP/check")"
exits "--what-if gemm=0%peak is a usage error" 2 "$DCUTOP" --what-if gemm=0%peak --export categories "$QWEN"

# a Hygon DCU: named by the table, its figures not published: achieved rates only
mkdir -p "$TMP/k"
zcat "$QWEN" | sed 's/AMD Instinct MI300X VF/K100_AI/' | gzip >"$TMP/k/t.json.gz"
"$DCUTOP" -q --report --view efficiency "$TMP/k/t.json.gz" >"$TMP/k.txt"
check "K100_AI: named, no published figures, asks for --peak" \
    grep -q "K100_AI: no peak known (no published figures) (peaks: built-in line" "$TMP/k.txt"
"$DCUTOP" -q --export efficiency "$TMP/k/t.json.gz" >"$TMP/k.csv"
same "K100_AI: no % of peak in the export" "0" \
    "$(python3 -c 'import csv,sys; print(sum(1 for x in csv.DictReader(open(sys.argv[1])) if x["pct_peak"]))' "$TMP/k.csv")"
