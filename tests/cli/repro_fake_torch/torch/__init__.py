"""A stand-in for torch, for test_repro.sh on machines without PyTorch. It has only what the
runtime of a `dcutop --export repro` script calls, and torch.ops.aten ops whose schemas are
copied from PyTorch's native_functions.yaml. Each op call is checked against its schema as
the real dispatcher does (positional and keyword arguments, types: a ScalarType must be a
dtype, a bool a bool, a Tensor a tensor) and logged to $REPRO_FAKE_LOG as
`aten::NAME.OVERLOAD arg=value ...` (autograd.grad calls too: an op's output requires grad
when an input does). Tensors are descriptions (sizes, strides, dtype, the
bound of random integers), not data; nothing is computed."""
import builtins
import os
import re


class dtype:
    def __init__(self, name, floating=False, cplx=False):
        self.name, self.is_floating_point, self.is_complex = name, floating, cplx

    def __repr__(self):
        return "torch." + self.name


for _n in ["float32", "float64", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
           "float8_e4m3fnuz", "float8_e5m2fnuz"]:
    globals()[_n] = dtype(_n, floating=True)
for _n in ["complex32", "complex64", "complex128"]:
    globals()[_n] = dtype(_n, cplx=True)
for _n in ["int64", "int32", "int16", "int8", "uint8", "bool"]:
    globals()[_n] = dtype(_n)
contiguous_format, preserve_format = "contiguous_format", "preserve_format"
channels_last, channels_last_3d, strided = "channels_last", "channels_last_3d", "strided"


class device:
    def __init__(self, spec):
        self.type = str(spec).split(":")[0]


class Tensor:
    def __init__(self, size, dt, stride=None, hi=None):
        self.size, self.dtype, self.stride, self.hi = list(size), dt, stride, hi
        self.requires_grad = False

    def detach(self):
        return Tensor(self.size, self.dtype, self.stride, self.hi)

    def requires_grad_(self, flag=True):
        self.requires_grad = flag
        return self

    def to(self, dt):
        return Tensor(self.size, dt, self.stride, self.hi)

    def bool(self):
        return self.to(globals()["bool"])

    def as_strided(self, size, stride):
        need = 0 if any(s == 0 for s in size) else \
            1 + builtins.sum((s - 1) * st for s, st in zip(size, stride))
        if len(self.size) != 1 or need > self.size[0]:
            raise RuntimeError("as_strided: storage of %s too small for %s %s" % (
                self.size, size, stride))
        return Tensor(size, self.dtype, list(stride), self.hi)

    def __repr__(self):
        return "T(%s,%s,%s%s)" % (self.size, self.stride, self.dtype.name,
                                  "" if self.hi is None else ",hi=%d" % self.hi)


def randn(n, device=None):
    return Tensor([n], float32)


def randint(lo, hi, size, device=None):
    return Tensor(list(size), int64, hi=hi)


def zeros(n, device=None, dtype=None):
    return Tensor([n], dtype)


def manual_seed(seed):
    pass


def randn_like(t):
    return Tensor(t.size, t.dtype)


class autograd:
    @staticmethod
    def grad(outputs, inputs, grad_outputs, retain_graph=False, allow_unused=False):
        if not all(o.requires_grad for o in outputs) or not all(i.requires_grad for i in inputs) \
                or len(grad_outputs) != len(outputs) or not retain_graph:
            raise RuntimeError("autograd.grad: bad call")
        log = os.environ.get("REPRO_FAKE_LOG")
        if log:
            with open(log, "a") as f:
                f.write("autograd.grad outputs=%r inputs=%r\n" % (outputs, inputs))
        return tuple(Tensor(i.size, i.dtype) for i in inputs)


class enable_grad:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class no_grad:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class cuda:
    @staticmethod
    def is_available():
        return False


SCHEMAS = """
mm(Tensor self, Tensor mat2) -> Tensor
mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)
mul.Tensor(Tensor self, Tensor other) -> Tensor
mul.Scalar(Tensor self, Scalar other) -> Tensor
sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
cat(Tensor[] tensors, int dim=0) -> Tensor
cat.names(Tensor[] tensors, Dimname dim) -> Tensor
copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)
gelu(Tensor self, *, str approximate='none') -> Tensor
gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor
native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)
native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor
_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor
_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor
nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)
nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor
gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) -> Tensor(a!)
arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)
"""

_NO_DEFAULT = object()


class Argument:
    def __init__(self, text, kwarg_only):
        m = re.match(r"^(\S+) (\w+)(?:=(.*))?$", text)
        self.type = re.sub(r"\([a-z]!?\)", "", m.group(1))  # Tensor(a!) -> Tensor
        self.name, self.kwarg_only = m.group(2), kwarg_only
        d = m.group(3)
        self._default = _NO_DEFAULT if d is None else eval(d, {"None": None})

    def has_default_value(self):
        return self._default is not _NO_DEFAULT

    @property
    def default_value(self):
        return None if self._default is _NO_DEFAULT else self._default


class Schema:
    def __init__(self, args):
        self.arguments = args


def _check(t, v):
    opt = t.endswith("?")
    t = t.rstrip("?")
    if v is None:
        return opt
    lst = re.match(r"^(\w+)\[\d*\]$", t)
    if lst:
        return isinstance(v, list) and all(_check(lst.group(1), x) for x in v)
    isbool = isinstance(v, builtins.bool)
    return {"Tensor": lambda: isinstance(v, Tensor),
            "int": lambda: isinstance(v, int) and not isbool,
            "SymInt": lambda: isinstance(v, int) and not isbool,
            "float": lambda: isinstance(v, (int, float)) and not isbool,
            "bool": lambda: isbool,
            "Scalar": lambda: isinstance(v, (int, float)),
            "ScalarType": lambda: isinstance(v, dtype),
            "str": lambda: isinstance(v, str)}.get(t, lambda: False)()


class OpOverload:
    def __init__(self, qual, args):
        self.qual, self._schema = qual, Schema(args)

    def __call__(self, *pos, **kw):
        args = self._schema.arguments
        positional = [a for a in args if not a.kwarg_only]
        if len(pos) > len(positional):
            raise RuntimeError("%s: too many positional arguments" % self.qual)
        bound = {}
        for a, v in zip(positional, pos):
            bound[a.name] = v
        for k, v in kw.items():
            if k in bound or k not in [a.name for a in args]:
                raise RuntimeError("%s: unexpected or repeated argument %s" % (self.qual, k))
            bound[k] = v
        for a in args:
            if a.name not in bound:
                if not a.has_default_value():
                    raise RuntimeError("%s: missing argument %s" % (self.qual, a.name))
                continue
            if not _check(a.type, bound[a.name]):
                raise RuntimeError("%s: argument %s must be %s, not %r" % (
                    self.qual, a.name, a.type, bound[a.name]))
        log = os.environ.get("REPRO_FAKE_LOG")
        if log:
            with open(log, "a") as f:
                f.write(self.qual + "".join(" %s=%r" % kv for kv in bound.items()) + "\n")
        out = Tensor([1], float32)
        out.requires_grad = any(isinstance(v, Tensor) and v.requires_grad for v in bound.values())
        return out


class OpOverloadPacket:
    def __init__(self):
        self._ov = {}

    def overloads(self):
        return list(self._ov)

    def __getattr__(self, name):
        try:
            return self.__dict__["_ov"][name]
        except KeyError:
            raise AttributeError(name)


class _Namespace:
    def __init__(self, name):
        self._name, self._ops = name, {}

    def __getattr__(self, name):
        ops = self.__dict__["_ops"]
        if name not in ops:
            raise AttributeError("'_OpNamespace' '%s' object has no attribute '%s'" % (
                self.__dict__["_name"], name))
        return ops[name]


class _Ops:
    def __init__(self):
        self.aten = _Namespace("aten")

    def __getattr__(self, name):
        raise AttributeError(name)


ops = _Ops()
for _line in SCHEMAS.strip().splitlines():
    _m = re.match(r"^(\w+)(?:\.(\w+))?\((.*)\) -> ", _line)
    _name, _ov, _args = _m.group(1), _m.group(2) or "default", []
    _kwonly = False
    for _a in re.split(r", (?![^\[]*\])", _m.group(3)):
        if _a == "*":
            _kwonly = True
            continue
        _args.append(Argument(_a, _kwonly))
    _packet = ops.aten._ops.setdefault(_name, OpOverloadPacket())
    _packet._ov[_ov] = OpOverload("aten::%s.%s" % (_name, _ov), _args)
