# ---- the runtime (the same in every script dcutop writes; the ops follow it) ----------------
import argparse
import json
import re
import sys
import time

import torch


def T(size, stride, dtype, hi=None):
    """A tensor: sizes, strides (None: contiguous), torch dtype name, index values below hi."""
    return ("tensor", list(size), None if stride is None else list(stride), dtype, hi)


def L(items):
    """A list of tensors."""
    return ("list", list(items))


def S(value):
    """A scalar, or a list of scalars, as recorded."""
    return ("scalar", value)


def N():
    """An argument the profiler did not record: the schema's default, else None."""
    return ("none",)


# c10::ScalarType, MemoryFormat and Layout codes, as the profiler records such arguments
DTYPE_CODES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
               6: "float32", 7: "float64", 8: "complex32", 9: "complex64", 10: "complex128",
               11: "bool", 15: "bfloat16", 23: "float8_e5m2", 24: "float8_e4m3fn",
               25: "float8_e5m2fnuz", 26: "float8_e4m3fnuz"}
MEMORY_FORMATS = {0: "contiguous_format", 1: "preserve_format", 2: "channels_last",
                  3: "channels_last_3d"}
SHORT_TYPES = {"float": "fp32", "double": "fp64", "c10::Half": "fp16", "c10::BFloat16": "bf16",
               "long int": "int64", "int": "int32", "bool": "bool", "Scalar": "scalar",
               "ScalarList": "scalars", "TensorList": "tensors", "": "-"}


def contiguous_stride(size):
    stride, acc = [], 1
    for n in reversed(size):
        stride.append(acc)
        acc *= max(n, 1)
    return list(reversed(stride))


def make_tensor(spec, dev, list_dtype=None):
    _, size, stride, dtype, hi = spec
    if list_dtype and dtype == LIST_DTYPE:
        dtype = list_dtype
    dt = getattr(torch, dtype)
    stride = contiguous_stride(size) if stride is None else stride
    # the storage the strides reach: a view of a larger tensor or an expanded one (stride 0)
    n = 0 if any(s == 0 for s in size) else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    if hi is not None:
        base = torch.randint(0, max(int(hi), 1), (n,), device=dev).to(dt)
    elif dt == torch.bool:
        base = torch.randint(0, 2, (n,), device=dev).bool()
    elif dt.is_floating_point or dt.is_complex:
        base = torch.randn(n, device=dev).to(dt)
    else:
        base = torch.zeros(n, device=dev, dtype=dt)
    return base.as_strided(size, stride)


def build(spec, dev, list_dtype):
    kind = spec[0]
    if kind == "tensor":
        return make_tensor(spec, dev)
    if kind == "list":
        return [make_tensor(s, dev, list_dtype) for s in spec[1]]
    if kind == "scalar":
        return spec[1]
    return None


def strip_optional(s):
    """(optional, inner) of a type text: Tensor? and Optional[Tensor] -> (True, Tensor)."""
    if s.startswith("Optional[") and s.endswith("]"):
        return True, s[len("Optional["):-1]
    return s.endswith("?"), s.rstrip("?")


def type_info(arg):
    """(optional, list, base) of a schema argument's type, in either spelling torch gives:
    int[1]? or Optional[List[int]] -> (True, True, int); Tensor?[] -> (False, True, Tensor)."""
    opt, s = strip_optional(str(arg.type).replace(" ", ""))
    if s.startswith("List[") and s.endswith("]"):
        return opt, True, strip_optional(s[len("List["):-1])[1]
    if s.endswith("]") and "[" in s:
        return opt, True, strip_optional(s[:s.index("[")])[1]
    return opt, False, s


SCALAR_TYPES = {"Scalar", "int", "SymInt", "float", "bool", "number", "ScalarType", "complex",
                "MemoryFormat", "Layout"}


def fits(spec, arg):
    _, lst, base = type_info(arg)
    kind = spec[0]
    if kind == "tensor":
        return base == "Tensor" and not lst
    if kind == "list":
        return base == "Tensor" and lst
    if kind == "scalar":
        return lst == isinstance(spec[1], list) and base in SCALAR_TYPES
    return True  # not recorded: None, or the default (a call that rejects it says so)


def convert(value, arg):
    _, lst, base = type_info(arg)
    if lst or value is None or isinstance(value, list):
        return value
    if base == "ScalarType" and isinstance(value, int) and not isinstance(value, bool):
        return getattr(torch, DTYPE_CODES.get(value, "float32"))
    if base == "MemoryFormat" and isinstance(value, int):
        return getattr(torch, MEMORY_FORMATS.get(value, "contiguous_format"))
    if base == "Layout" and isinstance(value, int):
        return torch.strided
    if base == "bool":
        return bool(value)
    if base == "float" and isinstance(value, int):
        return float(value)
    return value


def call_for(overload, specs, vals):
    """A call of overload with the recorded values, or None when its schema does not fit."""
    args = overload._schema.arguments
    if len(args) != len(specs) or not all(fits(s, a) for s, a in zip(specs, args)):
        return None
    pos, kw = [], {}
    # trailing unrecorded positional arguments with defaults are left to the schema
    last = len(args)
    while last > 0 and specs[last - 1][0] == "none" and not args[last - 1].kwarg_only \
            and args[last - 1].has_default_value():
        last -= 1
    for i, (s, a, v) in enumerate(zip(specs, args, vals)):
        if s[0] == "none":
            if a.kwarg_only and a.has_default_value():
                continue
            if not a.kwarg_only and i >= last:
                continue
            v = a.default_value if a.has_default_value() else None
        else:
            v = convert(v, a)
        if a.kwarg_only:
            kw[a.name] = v
        else:
            pos.append(v)
    return lambda: overload(*pos, **kw)


def overloads(name):
    ns, op = name.split("::")
    packet = getattr(getattr(torch.ops, ns), op)
    names = list(packet.overloads())
    names.sort(key=lambda n: (n != "default", "out" in n))
    return [(n, getattr(packet, n)) for n in names]


def bench(fn, reps, dev):
    if dev.type == "cuda":  # torch.cuda is HIP on ROCm builds: the same events there
        torch.cuda.synchronize(dev)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1000.0 / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) * 1e6 / reps


def run_op(op, dev, opts):
    vals = [build(s, dev, opts.list_dtype) for s in op["args"]]
    tried = []
    for name, overload in overloads(op["name"]):
        call = call_for(overload, op["args"], vals)
        if call is None:
            continue
        try:
            call()
        except Exception as e:  # this overload took the arguments but not the values
            tried.append("%s: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))
            continue
        for _ in range(opts.warmup):
            call()
        return bench(call, opts.reps, dev), name
    raise RuntimeError("no overload takes the recorded inputs" +
                       ("" if not tried else " (" + "; ".join(tried)[:300] + ")"))


def run_backward(op, dev, opts):
    """A backward node that launched kernels itself: its forward op rebuilt with
    requires_grad on its floating inputs, run once, then its backward timed (autograd.grad
    with random output gradients, the graph kept)."""
    leaves = []

    def leaf(v):
        if isinstance(v, torch.Tensor) and (v.dtype.is_floating_point or v.dtype.is_complex):
            v = v.detach().requires_grad_()
            leaves.append(v)
        return v

    vals = [[leaf(x) for x in v] if isinstance(v, list) else leaf(v)
            for v in (build(s, dev, opts.list_dtype) for s in op["args"])]
    tried = []
    for name, overload in overloads(op["fwd"]["name"]):
        call = call_for(overload, op["args"], vals)
        if call is None:
            continue
        try:
            out = call()
        except Exception as e:
            tried.append("%s: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))
            continue
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                if isinstance(o, torch.Tensor) and o.requires_grad]
        if not outs or not leaves:
            raise RuntimeError("the forward op %s gives no gradient to time" % op["fwd"]["name"])
        grads = [torch.randn_like(o) for o in outs]

        def backward():
            return torch.autograd.grad(outs, leaves, grads, retain_graph=True, allow_unused=True)

        backward()
        for _ in range(opts.warmup):
            backward()
        return bench(backward, opts.reps, dev), name + ":backward"
    raise RuntimeError("no overload of %s takes the recorded inputs" % op["fwd"]["name"] +
                       ("" if not tried else " (" + "; ".join(tried)[:300] + ")"))


def token(text):
    return str(text).replace(" ", "_") if text else "-"


def report(op, us, overload=None):
    shapes = json.dumps(op["dims"], separators=(",", ":"))
    types = ",".join(token(SHORT_TYPES.get(t, t)) for t in (op["types"] or []))
    ratio = "nan" if us is None or op["trace_us"] <= 0 else "%.3f" % (us / op["trace_us"])
    print("op=%s shapes=%s trace_us=%.3f bench_us=%s ratio=%s dtypes=%s calls=%d pass=%s%s" % (
        token(op["name"]), shapes, op["trace_us"], "nan" if us is None else "%.3f" % us, ratio,
        types or "-", op["calls"], token(op.get("pass_")),
        "" if overload is None else " overload=" + overload), flush=True)


def main(ops, not_rebuilt):
    ap = argparse.ArgumentParser(description="Times each op alone with its recorded shapes.")
    ap.add_argument("--device", default="cuda", help="cuda (also ROCm/HIP builds) or cpu")
    ap.add_argument("--reps", type=int, default=100, help="timed calls per op (default 100)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed calls first (default 10)")
    ap.add_argument("--only", default=None, help="only the ops whose name matches this regex")
    ap.add_argument("--list-dtype", default=None,
                    help="dtype of tensor list elements (default %s)" % LIST_DTYPE)
    opts = ap.parse_args()
    dev = torch.device(opts.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        print("repro: no GPU visible to torch (try --device cpu)", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    if dev.type == "cuda":  # the machine beside the trace's, for reading the ratios
        hip = getattr(torch.version, "hip", None)
        runtime = "HIP %s" % hip if hip else "CUDA %s" % getattr(torch.version, "cuda", None)
        print("repro: running on %s (torch %s, %s); the trace was recorded on %s" % (
            torch.cuda.get_device_name(dev), torch.__version__, runtime,
            TRACE_DEVICE or "a GPU it does not name"), file=sys.stderr)
    timed = failed = 0
    for op in sorted(ops + not_rebuilt, key=lambda o: o["rank"]):
        if opts.only and not re.search(opts.only, op["name"]):
            continue
        if "reason" in op:
            print("repro: not rebuilt: op=%s: %s" % (token(op["name"]), op["reason"]),
                  file=sys.stderr)
            report(op, None)
            continue
        try:
            if op.get("grad"):
                with torch.enable_grad():
                    us, overload = run_backward(op, dev, opts)
            else:
                with torch.no_grad():
                    us, overload = run_op(op, dev, opts)
            report(op, us, overload)
            timed += 1
        except Exception as e:
            print("repro: failed: op=%s: %s: %s" % (token(op["name"]), type(e).__name__,
                                                    str(e).splitlines()[0] if str(e) else ""),
                  file=sys.stderr)
            report(op, None)
            failed += 1
        if dev.type == "cuda":
            torch.cuda.empty_cache()
    return 1 if failed and not timed else 0
