#!/bin/sh
# test_repro.sh - --export repro: the PyTorch microbenchmark script of the hot ops, on the real
# H100 GPT traces (bf16 and fp32, record_shapes). Checked apart from dcutop by
# repro_oracle.py over the raw .json.gz: the script is valid Python whose ops are the trace's
# top ops by device time (or those --filter names), each with its recorded sizes, dtypes,
# strides and scalars, its calls and its device time per call; every tensor is rebuilt with
# the recorded sizes, strides and dtype; ops whose tensor lists carry no shapes are listed as
# not rebuilt with the reason (in the script, and on stderr). The script is then run: on
# real torch on the CPU when this machine has it, else on repro_fake_torch (a stand-in that
# checks each call against the op's schema): each op gets the overload that fits its inputs,
# scalars of the right type, valid index bounds, and one parseable line.
. tests/cli/lib.sh
TRAIN=$REAL/pytorch-h100-gpt-train/gpt_train.trace.json.gz
FP32=$REAL/pytorch-h100-gpt-fp32/gpt_fp32.trace.json.gz
ORACLE=tests/cli/repro_oracle.py

# valid DESC FILE: FILE parses as Python
valid() {
    check "$1" python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$2"
}

# default selection: the 10 ops of most device time
exits "repro: bf16 trace, default top 10, exit 0" 0 "$DCUTOP" --export repro -o "$TMP/train.py" "$TRAIN"
cp "$TMP/err" "$TMP/train.err"
valid "repro: the script is valid Python" "$TMP/train.py"
python3 "$ORACLE" "$TRAIN" "$TMP/train.py" 10
check "repro: the optimizer's foreach ops are said on stderr with the reason" \
    grep -q "not rebuilt: op=aten::_foreach_addcdiv_ shapes=\[\[\],\[\],\[\],\[\]\]: argument 0: the profiler did not record the shapes in the tensor list" "$TMP/train.err"
check "repro: and in the script's header" \
    grep -q "^#   aten::_foreach_addcdiv_ shapes=.* trace_us=109.930: argument 0: the profiler did not record" "$TMP/train.py"
same "repro: the summary line" "dcutop: repro: 10 ops, 8 rebuilt, 2 not rebuilt" \
    "$(grep '^dcutop: repro: [0-9]' "$TMP/train.err")"
check "repro: the script takes --device and --reps" grep -q 'add_argument("--reps"' "$TMP/train.py"
check "repro: device events, and no CUDA-only API (torch.cuda calls that HIP builds have too)" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
run = t[t.index("# ---- the runtime"):t.index("LIST_DTYPE = ")]
used = set(re.findall(r"torch\.cuda\.(\w+)", run))
sys.exit(not ("Event" in used and used <= {"Event", "synchronize", "is_available", "empty_cache",
                                         "get_device_name"}
              and not re.search(r"cupy|pycuda|nvtx|CUDAGraph|cudnn|\.graph\(", run)))' "$TMP/train.py"

check "repro: the header names the GPU the trace was recorded on (its deviceProperties)" sh -c \
    "grep -q '^# Recorded on: '\"\$(python3 -c 'import gzip, json, sys; print(json.load(gzip.open(sys.argv[1]))[\"deviceProperties\"][0][\"name\"])' '$TRAIN')\"'\$' '$TMP/train.py'"

exits "repro: an existing -o file is kept without --force (exit 2)" 2 "$DCUTOP" --export repro -o "$TMP/train.py" "$TRAIN"
check "repro: ... with the usual message" grep -q "file exists (not overwritten; use --force)" "$TMP/err"

# every op, both traces
exits "repro: --top 0: every op of the bf16 trace" 0 "$DCUTOP" -q --export repro --top 0 -o "$TMP/all.py" "$TRAIN"
valid "repro: --top 0 script is valid Python" "$TMP/all.py"
python3 "$ORACLE" "$TRAIN" "$TMP/all.py" 0
exits "repro: fp32 trace, --top 25" 0 "$DCUTOP" -q --export repro --top 25 -o "$TMP/fp32.py" "$FP32"
valid "repro: fp32 script is valid Python" "$TMP/fp32.py"
python3 "$ORACLE" "$FP32" "$TMP/fp32.py" 25
check "repro: fp32 tensor lists default to float32" grep -q '^LIST_DTYPE = "float32"$' "$TMP/fp32.py"
check "repro: bf16 tensor lists default to bfloat16" grep -q '^LIST_DTYPE = "bfloat16"$' "$TMP/all.py"

# --filter: the ops whose name (or a kernel's) matches, all of them with --top 0
exits "repro: --filter 'aten::mm\$' --top 0" 0 "$DCUTOP" -q --export repro --top 0 --filter 'aten::mm$' -o "$TMP/mm.py" "$TRAIN"
python3 "$ORACLE" "$TRAIN" "$TMP/mm.py" 0 'aten::mm$'
exits "repro: --filter on the fp32 trace's attention" 0 "$DCUTOP" -q --export repro --top 0 --filter 'attention' -o "$TMP/attn.py" "$FP32"
python3 "$ORACLE" "$FP32" "$TMP/attn.py" 0 'attention'
"$DCUTOP" -q --export repro --top 0 --filter 'sgemm|gemm' "$FP32" >"$TMP/gemm.py" 2>/dev/null
check "repro: --filter matches kernel names too (GEMM kernels -> aten::mm/addmm)" sh -c \
    "grep -q 'name=\"aten::mm\"' '$TMP/gemm.py' && grep -q 'name=\"aten::addmm\"' '$TMP/gemm.py' && ! grep -q 'name=\"aten::copy_\"' '$TMP/gemm.py'"
python3 "$ORACLE" "$FP32" "$TMP/gemm.py" 0 'sgemm|gemm'
exits "repro: a bad filter is a usage error" 2 "$DCUTOP" --export repro --filter '(' "$TRAIN"
exits "repro: a filter that matches nothing: exit 1" 1 "$DCUTOP" --export repro --filter 'no_such_op_xyz' "$TRAIN"
check "repro: ... and says so" grep -q "no op matches the filter" "$TMP/err"

# the Kernel screen: M writes the script of the ops that launched its kernel
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac
printf '2<Enter>\nM<Enter>\n:dump after\n' >"$TMP/k.keys"
mkdir "$TMP/tui"
(cd "$TMP/tui" && "$D" --headless --size 120x30 --keys ../k.keys "$(cd - >/dev/null && pwd)/$TRAIN" >../tui.out 2>../tui.err)
check "repro: M on the Kernel screen writes repro.py" test -s "$TMP/tui/repro.py"
check "repro: ... and says so on the status line" grep -q "^Wrote repro.py: 10 ops (0 not rebuilt; see its header)" "$TMP/tui.out"
valid "repro: the Kernel screen's script is valid Python" "$TMP/tui/repro.py"
python3 "$ORACLE" "$TRAIN" "$TMP/tui/repro.py" 0 kernel=TOP
# the Ops screen: M on an op row (aten::_log_softmax, outside any module) writes its forward
# launch and the ops its backward node launched, found here from the raw events: launching
# ops named aten::_log_softmax, and those inside a LogSoftmaxBackward0 autograd node
printf 'O\n<Enter>\nM<Enter>\n:dump after\n' >"$TMP/o.keys"
mkdir "$TMP/tui2"
(cd "$TMP/tui2" && "$D" --headless --size 140x30 --keys ../o.keys "$(cd - >/dev/null && pwd)/$TRAIN" >../ops.out 2>&1)
check "repro: M on an Ops screen row says what it wrote" grep -q "^Wrote repro.py: 2 ops (0 not rebuilt; see its header)" "$TMP/ops.out"
check "repro: ... the op's forward and backward launches, with their shapes" python3 - "$TRAIN" "$TMP/tui2/repro.py" <<'PY'
import sys
sys.path.insert(0, "tests/cli")
import repro_oracle as ro
ev = ro.load(sys.argv[1])
ops = [e for e in ev if e.get("cat") == "cpu_op"]
ext = {}
for o in ops:
    ext.setdefault(o["args"].get("External id"), []).append(o)
nodes = [o for o in ops if o["name"] == "autograd::engine::evaluate_function: LogSoftmaxBackward0"]
want = set()
for k in ev:
    if k.get("cat") != "kernel" or k["args"].get("External id") not in ext:
        continue
    o = max(ext[k["args"]["External id"]], key=lambda e: e["ts"])
    inside = any(n["tid"] == o["tid"] and n["ts"] <= o["ts"] <= n["ts"] + n["dur"] for n in nodes)
    if o["name"] == "aten::_log_softmax" or inside:
        want.add((o["name"], repr(o["args"]["Input Dims"])))
got = ro.script_ops(open(sys.argv[2]).read())
have = {(e["name"], repr(e["dims"])) for e in got["OPS"] + got.get("NOT_REBUILT", [])}
print("# want", sorted(want), "have", sorted(have))
sys.exit(not (want == have and len(want) == 2))
PY
printf '2\nM\n:dump hotspots\n' >"$TMP/h.keys"
"$D" --headless --size 120x30 --keys "$TMP/h.keys" "$TRAIN" >"$TMP/h.out" 2>&1
check "repro: M elsewhere says where it works" grep -q "A microbenchmark script is written from a Kernel screen or an Ops screen" "$TMP/h.out"

# a backward node that launched a kernel itself (a custom autograd Function's backward): no
# aten op inside it, so the script rebuilds its forward op (same Sequence number on the
# forward thread) and times the backward; with no forward op linked it is listed, with why
python3 - "$TMP/bwd.json" "$TMP/nofwd.json" <<'PY'
import json, sys
def trace(path, bwd_seq):
    ev = []
    def x(cat, name, tid, ts, dur, args):
        ev.append(dict(ph="X", cat=cat, name=name, pid=100 if cat != "kernel" else 0,
                       tid=tid, ts=ts, dur=dur, args=args))
    x("cpu_op", "aten::mm", 100, 10, 20, {"External id": 1, "Sequence number": 5,
      "Input Dims": [[64, 32], [32, 16]], "Input type": ["float", "float"],
      "Input Strides": [[32, 1], [16, 1]], "Concrete Inputs": ["", ""]})
    x("cuda_runtime", "cudaLaunchKernel", 100, 12, 5, {"External id": 1, "correlation": 11})
    x("kernel", "gemm_fwd_kernel", 7, 15, 3, {"External id": 1, "correlation": 11, "device": 0, "stream": 7})
    x("cpu_op", "autograd::engine::evaluate_function: MyMmBackward0", 200, 50, 30,
      {"External id": 2, "Sequence number": bwd_seq, "Fwd thread id": 1,
       "Input Dims": [[64, 16]], "Input type": ["float"], "Input Strides": [[16, 1]],
       "Concrete Inputs": [""]})
    x("cuda_runtime", "cudaLaunchKernel", 200, 55, 5, {"External id": 2, "correlation": 12})
    x("kernel", "custom_bwd_kernel", 7, 60, 7, {"External id": 2, "correlation": 12, "device": 0, "stream": 7})
    json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}],
               "traceEvents": ev}, open(path, "w"))
trace(sys.argv[1], 5)
trace(sys.argv[2], 9)
PY
exits "repro: a backward node with its forward op" 0 "$DCUTOP" --export repro -o "$TMP/bwd.py" "$TMP/bwd.json"
check "repro: ... is rebuilt as the backward of its forward op aten::mm with the forward's shapes" python3 -c '
import sys
sys.path.insert(0, "tests/cli")
import repro_oracle
e = repro_oracle.script_ops(open(sys.argv[1]).read())["OPS"][0]
a = [repro_oracle.spec(x) for x in e["args"].elts]
sys.exit(not (e["name"] == "autograd::engine::evaluate_function: MyMmBackward0" and e["grad"]
              and e["fwd"]["name"] == "aten::mm" and e["fwd"]["dims"] == [[64, 32], [32, 16]]
              and a == [("T", [64, 32], [32, 1], "float32", None), ("T", [32, 16], [16, 1], "float32", None)]
              and e["trace_us"] == 7.0 and e["pass_"] == "backward"))' "$TMP/bwd.py"
if ! python3 -c 'import torch' 2>/dev/null; then
    REPRO_FAKE_LOG=$TMP/bwd.log PYTHONPATH=tests/cli/repro_fake_torch \
        python3 "$TMP/bwd.py" --device cpu --reps 2 >"$TMP/bwd.out" 2>&1
    check "repro: ... and its backward is timed (autograd.grad over both inputs)" sh -c \
        "grep -Eq '^op=autograd::engine::evaluate_function:_MyMmBackward0 shapes=\[\[64,16\]\] trace_us=7.000 bench_us=[0-9.]+ .*pass=backward overload=default:backward\$' '$TMP/bwd.out' && grep -q '^autograd.grad outputs=\[T(\[1\],None,float32)\] inputs=\[T(\[64, 32\],\[32, 1\],float32), T(\[32, 16\],\[16, 1\],float32)\]' '$TMP/bwd.log'"
fi
exits "repro: a backward node without a forward op" 0 "$DCUTOP" --export repro -o "$TMP/nofwd.py" "$TMP/nofwd.json"
check "repro: ... is listed as not rebuilt, with the reason" grep -q "not rebuilt: op=autograd::engine::evaluate_function: MyMmBackward0 shapes=\[\[64,16\]\]: an autograd backward node that launched kernels itself, and no forward op is linked to it" "$TMP/err"

# held out: traces this test was not written on (H200 bf16, MI300X ROCm Qwen inference, an
# A-B-B-A run), and one recorded without record_shapes (every op listed, with why)
for f in "$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz" \
    "$REAL"/pytorch-kineto-mi300-qwen/*.json.gz \
    "$REAL"/pytorch-h100-abba-numerics/B1/*.json.gz \
    "$REAL"/pytorch-h100-abba-sdpa/A1/*.json.gz; do
    "$DCUTOP" -q --export repro --top 0 --force -o "$TMP/held.py" "$f"
    python3 "$ORACLE" "$f" "$TMP/held.py" 0
done

# a trace without PyTorch ops
exits "repro: a rocprof trace has no ops: exit 1" 1 "$DCUTOP" --export repro sample-traces/dcu-weather-transformer
check "repro: ... with the reason" grep -q "needs a PyTorch profiler (Kineto) trace" "$TMP/err"

# running the script: real torch on the CPU if installed, else the stand-in
if python3 -c 'import torch' 2>/dev/null; then
    python3 "$TMP/train.py" --device cpu --reps 2 --warmup 1 >"$TMP/run.out" 2>"$TMP/run.err"
    check "repro: the script runs on CPU torch" test $? -eq 0
    check "repro: one parseable line per op" sh -c \
        "[ \$(grep -Ec '^op=[^ ]+ shapes=[^ ]+ trace_us=[0-9.]+ bench_us=(nan|[0-9.]+)( |\$)' '$TMP/run.out') -eq 10 ]"
else
    REPRO_FAKE_LOG=$TMP/fake.log PYTHONPATH=tests/cli/repro_fake_torch \
        python3 "$TMP/all.py" --device cpu --reps 2 --warmup 1 >"$TMP/run.out" 2>"$TMP/run.err"
    check "repro: the script runs (torch stand-in: $(grep -c . "$TMP/run.out") ops)" test $? -eq 0
    python3 - "$TMP/all.py" "$TMP/run.out" "$TMP/run.err" "$TMP/fake.log" <<'PY'
import re, sys
sys.path.insert(0, "tests/cli/repro_fake_torch")
sys.path.insert(0, "tests/cli")
import torch, repro_oracle
script, out, err, log = sys.argv[1:5]
try:
    open(script).close(), open(log).close()
except OSError as e:
    print("not ok - repro: each op called with the overload its recorded inputs need (%s)" % e)
    sys.exit(1)
ents = repro_oracle.script_ops(open(script).read())
ops = sorted(ents["OPS"] + ents["NOT_REBUILT"], key=lambda e: e["rank"])
lines = open(out).read().splitlines()
errs = open(err).read()
calls = open(log).read().splitlines()
known = set(torch.ops.aten._ops)
fails = []
pat = re.compile(r"^op=(\S+) shapes=(\S+) trace_us=([0-9.]+) bench_us=(nan|[0-9.]+) ratio=(nan|[0-9.]+) .*calls=(\d+)")
if len(lines) != len(ops):
    fails.append("%d lines for %d ops" % (len(lines), len(ops)))
for e, line in zip(ops, lines):
    m = pat.match(line)
    if not m:
        fails.append("not parseable: " + line)
        continue
    name = e["name"]
    shapes = repr(e["dims"]).replace(" ", "")
    if m.group(1) != name or m.group(2) != shapes or abs(float(m.group(3)) - e["trace_us"]) > 5e-4:
        fails.append("line %s for %s %s" % (line, name, shapes))
    op = name.split("::")[1]
    timed = m.group(4) != "nan"
    if timed and abs(float(m.group(5)) - float(m.group(4)) / float(m.group(3))) > 2e-3 * float(m.group(5)) + 1e-3:
        fails.append("ratio of " + line)
    if "reason" in e:
        if timed or ("not rebuilt: op=%s: %s" % (name, e["reason"])) not in errs:
            fails.append("%s: not rebuilt, yet %s" % (name, line))
    elif timed != (op in known):
        fails.append("%s: %s" % (name, line))
    elif not timed and ("failed: op=%s" % name) not in errs:
        fails.append("%s: failed without a word on stderr" % name)
want = {"aten::sum": "dim_IntList", "aten::add": "Tensor", "aten::add_": "Tensor",
        "aten::gather": "out", "aten::arange": "start_out", "aten::fill_": "Scalar",
        "aten::mm": "default", "aten::cat": "default"}
for line in lines:
    m = re.match(r"^op=(\S+) .* overload=(\S+)$", line)
    if m and m.group(1) in want and want[m.group(1)] != m.group(2):
        fails.append("%s took overload %s, want %s" % (m.group(1), m.group(2), want[m.group(1)]))
musts = [
    "aten::_log_softmax_backward_data.default grad_output=T([4096, 4096],[4096, 1],float32) output=T([4096, 4096],[4096, 1],float32) dim=1 input_dtype=torch.float32",
    "aten::embedding_dense_backward.default grad_output=T([16, 256, 512],[131072, 512, 1],float32) indices=T([16, 256],[256, 1],int64,hi=4096) num_weights=4096 padding_idx=-1 scale_grad_by_freq=False",
    "aten::embedding_dense_backward.default grad_output=T([256, 512],[512, 1],float32) indices=T([256],[1],int64,hi=256) num_weights=256 padding_idx=-1 scale_grad_by_freq=False",
    "aten::nll_loss_forward.default self=T([4096, 4096],[4096, 1],float32) target=T([4096],[1],int64,hi=4096) weight=None reduction=1 ignore_index=-100",
    "aten::gather.out self=T([4096, 512],[512, 1],float32) dim=0 index=T([4096, 512],[1, 0],int64,hi=4096) sparse_grad=False out=T([4096, 512],[512, 1],float32)",
    "aten::native_layer_norm_backward.default grad_out=T([16, 256, 512],[131072, 512, 1],float32) input=T([16, 256, 512],[131072, 512, 1],float32) normalized_shape=[512] mean=T([16, 256, 1],[256, 1, 1],float32) rstd=T([16, 256, 1],[256, 1, 1],float32) weight=T([512],[1],float32) bias=T([512],[1],float32) output_mask=[True, True, True]",
    "aten::gelu.default self=T([16, 256, 2048],[524288, 2048, 1],bfloat16)",
    "aten::sum.dim_IntList self=T([4096, 512],[512, 1],bfloat16) dim=[0] keepdim=True",
    "aten::native_layer_norm.default input=T([16, 256, 512],[131072, 512, 1],float32) normalized_shape=[512] weight=T([512],[1],float32) bias=T([512],[1],float32) eps=1e-05",
]
for c in musts:
    if c not in calls:
        fails.append("no call " + c)
for f in fails:
    print("#   " + f)
print("%s - repro: each op called with the overload, scalars and index bounds its recorded inputs need (%d calls)" % ("not ok" if fails else "ok", len(set(calls))))
PY
fi
