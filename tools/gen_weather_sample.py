#!/usr/bin/env python3
"""Generate the SYNTHETIC sample trace folder sample-traces/dcu-weather-transformer/.

The data reproduces the published figures of the DCU weather-transformer case
(the product's worked example): device kernel time ~825 ms, GEMM 21.94 %,
direct_copy 32.35 %, then add, softmax, layernorm, non-GEMM > 73 %, and a host API
table where hipMalloc dominates through three cold-start calls.

Files written (all plain LF, deterministic: fixed seed, standard library only):
  weather.hipkernel.csv  hipprof kernel stats (5 columns + trailing "Total" row)
  weather.hiptrace.csv   hipprof HIP API stats (5 columns + trailing "Total" row)
  results.csv            rocprof-v1 (ROCm <= 5.2 columns) per-dispatch file of the same run;
                         its per-kernel sums equal weather.hipkernel.csv exactly
  README.md              what the folder is, the totals printed below and the awk checks

Usage: python3 tools/gen_weather_sample.py [OUTDIR]
"""

import os
import random
import sys

SEED = 20251130
rng = random.Random(SEED)

# --------------------------------------------------------------------------------------
# Model of the run (autoregressive rollout of a windowed weather transformer)
# --------------------------------------------------------------------------------------
STEPS = 6            # rollout steps, step 0 is the warm-up step
DEPTH = 12           # transformer blocks; odd blocks are shifted (torch.roll)
C_IN, C_STATIC = 69, 3
H, W, P = 720, 1440, 4
TOK = (H // P) * (W // P)          # 64800 tokens
D, HEADS, MLP = 384, 8, 4 * 384
WIN = 36 * 36                      # 1296 tokens per window (> 1024 -> cunn_SoftMaxForward)
NWIN = TOK // WIN                  # 50 windows

# Published figures to reproduce
TOTAL_NS = 824_963_118             # ~825 ms of device kernel time
GEMM_PCT = 21.94
COPY_PCT = 32.35

# --------------------------------------------------------------------------------------
# Kernel names (demangled, as hipprof's hipkernel.csv writes them)
# --------------------------------------------------------------------------------------
TENSILE_TAIL = (
    "APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTL0_DTVA0_"
    "DVO0_ETSP_EPS1_FL0_GRVW8_{gsu}_GLS0_ISA928_IU1_K1_KLA_LBSPP128_LPA16_LPB16_LDL1_LRVW8_"
    "LWPMn1_LDW0_FMA_MIAV1_MDA2_MO40_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_"
    "PAP0_PGR2_PLR1_RK0_SIA3_SS1_SU32_SUM0_SUS128_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_{tt}_TLDS1_"
    "USFGROn1_VAW2_VSn1_VW4_WSGRA1_WSGRB1_WS64_{wg}_WGM{wgm}"
)


def tensile(ab, mt, mi, ldsb, gsu, tt, wg, wgm):
    return ("Cijk_%s_HHS_BH_MT%s_MI%s_SN_%s_" % (ab, mt, mi, ldsb)
            + TENSILE_TAIL.format(gsu=gsu, tt=tt, wg=wg, wgm=wgm))


def dcopy_float():
    lam = ("at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const"
           "::{lambda()#7}::operator()() const::{lambda(float)#1}")
    inner = ("at::native::gpu_kernel_impl_nocast<%s>(at::TensorIteratorBase&, %s const&)::{lambda(int, bool)#1}"
             % (lam, lam))
    return "void at::native::elementwise_kernel_manual_unroll<128, 8, %s>(int, %s)" % (inner, inner)


def vec(vw, functor, arity):
    return ("void at::native::vectorized_elementwise_kernel<%d, %s, std::array<char*, %dul> >(int, %s, std::array<char*, %dul>)"
            % (vw, functor, arity, functor, arity))


def manual_unroll(functor):
    inner = ("at::native::gpu_kernel_impl_nocast<%s >(at::TensorIteratorBase&, %s const&)::{lambda(int, bool)#1}"
             % (functor, functor))
    return "void at::native::elementwise_kernel_manual_unroll<128, 8, %s>(int, %s)" % (inner, inner)


def index_kernel():
    lam = ("at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, "
           "c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}")
    inner = ("at::native::gpu_index_kernel<%s>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, "
             "%s const&, bool)::{lambda(int)#1}" % (lam, lam))
    return "void at::native::index_elementwise_kernel<128, 4, %s>(long, %s)" % (inner, inner)


SUM_OP = ("at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>"
          "::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>")
GELU_F = ("at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const"
          "::{lambda()#2}::operator()() const::{lambda(float)#1}")
DCOPY_VEC_F = ("at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const"
               "::{lambda()#7}::operator()() const::{lambda(float)#1}")

# key -> (name, category, c_linkage, wgr, lds, scr, vgpr, sgpr)
K = {
    "gemm_big":  (tensile("Ailk_Bljk", "128x128x32", "32x32x8x1", "1LDSB1", "GSU1_GSUASB", "TT2_64", "WG64_4_1", 8),
                  "gemm", True, 256, 33280, 0, 256, 104),
    "gemm_proj": (tensile("Ailk_Bljk", "64x128x32", "32x32x8x1", "1LDSB0", "GSU1_GSUASB", "TT1_64", "WG64_4_1", 8),
                  "gemm", True, 256, 25088, 0, 192, 104),
    "gemm_fc2":  (tensile("Ailk_Bljk", "128x64x32", "32x32x8x1", "1LDSB1", "GSU4_GSUAMB", "TT2_32", "WG64_4_1", 8),
                  "gemm", True, 256, 25088, 0, 192, 104),
    "gemm_qk":   (tensile("Ailk_Bjlk", "64x64x32", "16x16x16x1", "1LDSB0", "GSU1_GSUASB", "TT1_16", "WG64_4_1", 1),
                  "gemm", True, 256, 16896, 0, 128, 96),
    "gemm_av":   (tensile("Ailk_Bljk", "64x32x64", "16x16x16x1", "1LDSB0", "GSU1_GSUASB", "TT1_8", "WG64_4_1", 1),
                  "gemm", True, 256, 16896, 0, 128, 96),
    "postgsu":   ("Cijk_H_PostGSU", "gemm", True, 256, 0, 0, 16, 24),
    "dcopy_mu":  (dcopy_float(), "direct_copy", False, 128, 0, 0, 40, 48),
    "dcopy_vec": (vec(4, DCOPY_VEC_F, 2), "direct_copy", False, 256, 0, 0, 24, 32),
    "add":       (vec(4, "at::native::CUDAFunctor_add<float>", 3), "add", False, 256, 0, 0, 28, 32),
    "softmax":   ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
                  "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
                  "softmax", False, 512, 256, 0, 48, 40),
    "layernorm": ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, "
                  "float const*, float const*, float const*, float*, float*, float*)",
                  "layernorm", False, 256, 64, 0, 40, 40),
    "gelu":      (vec(4, GELU_F, 2), "gelu", False, 256, 0, 0, 32, 32),
    "bias_add":  (manual_unroll("at::native::CUDAFunctor_add<float>"), "bias_add", False, 128, 0, 0, 40, 48),
    "roll":      ("void at::native::roll_cuda_kernel<float>(float const*, float*, long, long, long, long, long, long)",
                  "roll", False, 512, 0, 0, 24, 32),
    "cat":       ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>(float*, "
                  "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 64, 64>, "
                  "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
                  "cat", False, 512, 0, 0, 40, 48),
    "index":     (index_kernel(), "index", False, 128, 0, 0, 36, 48),
    "reduce":    ("void at::native::reduce_kernel<512, 1, %s >(%s)" % (SUM_OP, SUM_OP),
                  "reduce", False, 512, 2048, 0, 32, 40),
    "fill":      (vec(4, "at::native::FillFunctor<float>", 1), "fill", False, 256, 0, 0, 12, 24),
}

# Category shares of the total (percent). gemm and direct_copy are the published figures;
# the rest fill 100 - 21.94 - 32.35 = 45.71 in the published order add > softmax > layernorm > ...
CAT_PCT = {
    "gemm": GEMM_PCT, "direct_copy": COPY_PCT,
    "add": 10.10, "softmax": 8.30, "layernorm": 7.00, "gelu": 5.20, "bias_add": 4.60,
    "roll": 3.90, "cat": 2.60, "index": 2.00, "reduce": 1.20, "fill": 0.81,
}
assert abs(sum(CAT_PCT.values()) - 100.0) < 1e-9
# Split of a category over its kernels (fractions)
KERNEL_SPLIT = {
    "gemm": {"gemm_big": 0.47, "gemm_proj": 0.19, "gemm_fc2": 0.155, "gemm_qk": 0.095, "gemm_av": 0.08, "postgsu": 0.01},
    "direct_copy": {"dcopy_mu": 0.83, "dcopy_vec": 0.17},
}

# --------------------------------------------------------------------------------------
# Dispatch schedule: (kernel key, relative cost weight, numel of the main tensor)
# --------------------------------------------------------------------------------------
X = TOK * D                 # 24.9 M activations
QKV = TOK * 3 * D
HID = TOK * MLP
SCORES = NWIN * HEADS * WIN * WIN
FIELD = (C_IN + C_STATIC) * H * W


def gemm_site(key, m, n, k, batch=1, w=1.0):
    return (key, w * 2.0 * m * n * k * batch / 1e9, (m, n, batch))


def step_schedule():
    s = []
    s.append(("fill", 1.0, C_IN * H * W))
    s.append(("cat", 1.0, FIELD))
    s.append(("dcopy_vec", 1.0, FIELD))                     # normalisation input, .contiguous()
    s.append(("dcopy_mu", 1.3, FIELD))                      # patchify permute
    s.append(gemm_site("gemm_proj", TOK, D, (C_IN + C_STATIC) * P * P))
    s.append(("bias_add", 1.0, X))
    s.append(("layernorm", 1.0, X))
    for b in range(DEPTH):
        shifted = b % 2 == 1
        s.append(("layernorm", 1.0, X))
        if shifted:
            s.append(("roll", 1.0, X))
        s.append(("dcopy_mu", 1.0, X))                      # window partition
        s.append(gemm_site("gemm_big", TOK, 3 * D, D))      # QKV projection
        s.append(("bias_add", 3.0, QKV))
        for _ in range(3):
            s.append(("dcopy_mu", 1.0, X))                  # q, k, v permute(0,2,1,3).contiguous()
        s.append(gemm_site("gemm_qk", WIN, WIN, D // HEADS, NWIN * HEADS))
        s.append(("bias_add", SCORES / X * 0.5, SCORES))     # relative position bias
        if shifted:
            s.append(("bias_add", SCORES / X * 0.5, SCORES))  # shift mask
        s.append(("softmax", 1.0, SCORES))
        s.append(gemm_site("gemm_av", WIN, D // HEADS, WIN, NWIN * HEADS))
        s.append(("dcopy_mu", 1.0, X))                      # transpose heads back
        s.append(gemm_site("gemm_proj", TOK, D, D))
        s.append(("bias_add", 1.0, X))
        s.append(("dcopy_mu", 1.0, X))                      # window reverse
        if shifted:
            s.append(("roll", 1.0, X))
        s.append(("add", 1.0, X))                           # residual
        s.append(("dcopy_vec", 1.0, X))                     # .contiguous() before LayerNorm
        s.append(("layernorm", 1.0, X))
        s.append(("dcopy_mu", 1.0, X))                      # reorder after LayerNorm
        s.append(gemm_site("gemm_big", TOK, MLP, D))        # fc1
        s.append(("bias_add", 4.0, HID))
        s.append(("gelu", 1.0, HID))
        s.append(gemm_site("gemm_fc2", TOK, D, MLP))        # fc2 (GSU 4)
        s.append(("postgsu", 1.0, X))
        s.append(("bias_add", 1.0, X))
        s.append(("add", 1.0, X))                           # residual
    s.append(("layernorm", 1.0, X))
    s.append(("dcopy_mu", 1.0, X))
    s.append(gemm_site("gemm_proj", TOK, C_IN * P * P, D))  # head
    s.append(("bias_add", 2.8, TOK * C_IN * P * P))
    s.append(("dcopy_mu", 2.9, C_IN * H * W))               # unpatchify
    s.append(("index", 1.0, C_IN * H * W))                  # output channel selection
    s.append(("index", 0.3, C_STATIC * H * W * 6))          # static fields gather for next step
    s.append(("add", 2.9, C_IN * H * W))                    # x_{t+1} = x_t + delta
    s.append(("reduce", 1.0, C_IN * H * W))                 # global mean (monitoring)
    s.append(("reduce", 1.0, C_IN * H * W))                 # sum of squares (monitoring)
    s.append(("fill", 1.0, C_IN * H * W))
    return s


def grid_of(key, numel):
    name, cat, clink, wgr, *_ = K[key]
    if isinstance(numel, tuple):            # GEMM (m, n, batch)
        m, n, batch = numel
        mt = name.split("_MT")[1].split("_")[0].split("x")
        tiles = -(-m // int(mt[0])) * -(-n // int(mt[1])) * batch
        if "GSU4" in name:
            tiles *= 4
        return tiles * wgr
    per_thread = {"dcopy_mu": 8, "bias_add": 8, "index": 4, "dcopy_vec": 4, "add": 4, "gelu": 4, "fill": 4}.get(key)
    if per_thread:
        return -(-numel // (wgr * per_thread)) * wgr
    if key == "layernorm":
        return TOK * wgr
    if key == "softmax":
        return (numel // WIN) * wgr
    if key == "reduce":
        return 1024 * wgr
    if key == "cat":
        return 4 * 1024 * wgr
    return -(-numel // (wgr * 16)) * wgr    # roll: grid-stride loop


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "sample-traces", "dcu-weather-transformer")
    outdir = os.path.normpath(outdir)
    os.makedirs(outdir, exist_ok=True)

    # ---- dispatch list -----------------------------------------------------------------
    disp = []            # dicts: key, step, weight, numel
    for init in (C_IN * H * W, C_STATIC * H * W):           # buffer init before the loop
        disp.append({"key": "fill", "step": -1, "w": init / (C_IN * H * W), "numel": init})
    for st in range(STEPS):
        for key, w, numel in step_schedule():
            disp.append({"key": key, "step": st, "w": w, "numel": numel})

    # ---- exact per-kernel targets --------------------------------------------------------
    cat_ns = {c: round(TOTAL_NS * p / 100.0) for c, p in CAT_PCT.items()}
    cat_ns["add"] += TOTAL_NS - sum(cat_ns.values())          # absorb rounding (a few ns)
    kern_ns = {}
    for c, tot in cat_ns.items():
        split = KERNEL_SPLIT.get(c)
        if not split:
            [key] = [k for k, v in K.items() if v[1] == c]
            kern_ns[key] = tot
            continue
        acc = 0
        keys = list(split)
        for key in keys[:-1]:
            kern_ns[key] = round(tot * split[key])
            acc += kern_ns[key]
        kern_ns[keys[-1]] = tot - acc
    assert sum(kern_ns.values()) == TOTAL_NS

    # ---- per-dispatch durations: weight * jitter, scaled to the exact kernel total -------
    for d in disp:
        j = rng.gauss(1.0, 0.025)
        if d["step"] == 0:                                     # warm-up step: clocks ramping
            j *= 1.09 if K[d["key"]][1] == "gemm" else 1.04
        d["raw"] = d["w"] * max(j, 0.85)
    for key, tot in kern_ns.items():
        ds = [d for d in disp if d["key"] == key]
        s = sum(d["raw"] for d in ds)
        acc = 0
        for d in ds:
            d["dur"] = int(tot * d["raw"] / s)
            acc += d["dur"]
        rem = tot - acc                                       # < len(ds) ns, spread 1 ns each
        for d in ds[:rem]:
            d["dur"] += 1
        assert sum(d["dur"] for d in ds) == tot

    # ---- timeline: one queue, host runs ahead, GPU back to back with small gaps ----------
    host = 5_000_000_000_000 + 31_415_926              # HSA system clock (ns), not epoch
    gpu_free = host
    seen = set()
    cur_step = -1
    qidx = 0
    for i, d in enumerate(disp):
        if d["step"] != cur_step:
            if cur_step >= 0:
                # end of step: host synchronises (event sync), then Python work between steps
                host = max(host, gpu_free) + rng.randint(14_000, 40_000) + rng.randint(1_500_000, 3_800_000)
            cur_step = d["step"]
        host += rng.randint(16_000, 44_000) if K[d["key"]][1] != "gemm" else rng.randint(28_000, 61_000)
        if d["key"] not in seen:                               # first use: code object load / rocBLAS setup
            seen.add(d["key"])
            host += rng.randint(150_000, 900_000) if K[d["key"]][2] else rng.randint(40_000, 160_000)
        d["DispatchNs"] = host
        begin = max(gpu_free + rng.randint(2_600, 7_400), host + rng.randint(4_200, 9_800))
        d["BeginNs"] = begin
        d["EndNs"] = begin + d["dur"]
        if rng.random() < 0.006:                               # rocprof quirk: CompleteNs < EndNs
            d["CompleteNs"] = d["EndNs"] - rng.randint(40, 160)
        else:
            d["CompleteNs"] = d["EndNs"] + rng.randint(1_800, 24_000)
        gpu_free = d["EndNs"]
        d["qidx"] = qidx
        qidx += 2
    t_first, t_last = disp[0]["BeginNs"], disp[-1]["EndNs"]

    # ---- per-kernel properties ---------------------------------------------------------
    obj_base = 0x7F3A5C200000
    obj = {}
    for n, key in enumerate(sorted(K)):
        obj[key] = "0x%x" % (obj_base + rng.randint(0, 0x3FFFF) * 0x40 + n * 0x1000000)

    def rocprof_name(key):
        name, _, clink, *_ = K[key]
        return name + (".kd" if clink else " [clone .kd]")

    pid = 48213
    lines = ['"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr",'
             '"vgpr","sgpr","fbar","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"']
    for i, d in enumerate(disp):
        name, cat, clink, wgr, lds, scr, vgpr, sgpr = K[d["key"]]
        lines.append('%d,"%s",%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,"%s","%s",%d,%d,%d,%d,%d' % (
            i, rocprof_name(d["key"]), 2, 0, d["qidx"], pid, pid, grid_of(d["key"], d["numel"]), wgr, lds, scr,
            vgpr, sgpr, 0, "0x0", obj[d["key"]], d["DispatchNs"], d["BeginNs"], d["EndNs"], d["CompleteNs"],
            d["EndNs"] - d["BeginNs"]))
    with open(os.path.join(outdir, "results.csv"), "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")

    # ---- hipkernel.csv -------------------------------------------------------------------
    kstats = {}
    for d in disp:
        st = kstats.setdefault(d["key"], [0, 0])
        st[0] += 1
        st[1] += d["dur"]
    write_stats(os.path.join(outdir, "weather.hipkernel.csv"),
                [(K[k][0], c, t) for k, (c, t) in kstats.items()])

    # ---- hiptrace.csv (HIP API stats) ------------------------------------------------------
    n_tensile = sum(1 for d in disp if K[d["key"]][2])
    n_launch = len(disp) - n_tensile
    n_params = 146
    n_alloc = 318

    def spread(calls, avg):
        # total of `calls` calls whose integer average (AverageNs) is exactly `avg`
        return calls * avg + rng.randint(0, calls - 1)

    api = [
        ("hipMalloc", 3, 2_371_884_105 + 406_117_932 + 125_470_518),   # three cold-start allocations
        ("hipLaunchKernel", n_launch, spread(n_launch, 6_917)),
        ("hipExtModuleLaunchKernel", n_tensile, spread(n_tensile, 9_436)),
        ("hipMemcpy", 4, 26_904_337 + 1_188_462 + 24_731_905 + 61_208),
        ("hipMemcpyAsync", n_params, spread(n_params, 101_347)),
        ("hipEventSynchronize", STEPS, spread(STEPS, 16_118_733)),
        ("hipDeviceSynchronize", 2, 11_874_226 + 2_904_118),
        ("hipModuleLoadData", 2, 14_206_551 + 7_118_903),
        ("hipStreamSynchronize", n_params, spread(n_params, 21_463)),
        ("hipFree", 3, 4_218_330 + 1_377_915 + 806_441),
        ("hipGetDeviceProperties", 1, 348_912),
        ("hipGetDevice", 4 * len(disp) + 61, spread(4 * len(disp) + 61, 183)),
        ("hipGetLastError", n_launch, spread(n_launch, 139)),
        ("hipStreamIsCapturing", n_alloc, spread(n_alloc, 397)),
        ("hipDeviceGetAttribute", 40, spread(40, 1_263)),
        ("hipEventRecord", 2 * STEPS, spread(2 * STEPS, 4_873)),
        ("hipEventCreateWithFlags", 2 * STEPS, spread(2 * STEPS, 2_317)),
        ("hipEventElapsedTime", STEPS, spread(STEPS, 1_947)),
        ("hipEventDestroy", 2 * STEPS, spread(2 * STEPS, 1_126)),
        ("hipGetDeviceCount", 2, 5_410 + 1_130),
        ("hipSetDevice", 3, 2_950 + 880 + 720),
    ]
    write_stats(os.path.join(outdir, "weather.hiptrace.csv"), api)

    # ---- summary -------------------------------------------------------------------------
    tot = sum(t for _, t in kstats.values())
    gemm = sum(t for k, (_, t) in kstats.items() if K[k][1] == "gemm")
    copy = sum(t for k, (_, t) in kstats.items() if K[k][1] == "direct_copy")
    api_tot = sum(t for _, _, t in api)
    summary = []
    summary.append("dispatches            %d (%d Tensile via hipExtModuleLaunchKernel, %d via hipLaunchKernel)"
                   % (len(disp), n_tensile, n_launch))
    summary.append("device kernel time    %d ns (%.3f ms), mean %.1f us/dispatch" % (tot, tot / 1e6, tot / len(disp) / 1e3))
    summary.append("GEMM (Cijk_*)         %d ns = %.2f %%" % (gemm, gemm * 100.0 / tot))
    summary.append("direct_copy           %d ns = %.2f %%" % (copy, copy * 100.0 / tot))
    summary.append("non-GEMM              %d ns = %.2f %%" % (tot - gemm, (tot - gemm) * 100.0 / tot))
    summary.append("GPU span (first Begin -> last End)  %d ns; busy %.1f %%" % (t_last - t_first, tot * 100.0 / (t_last - t_first)))
    summary.append("HIP API time          %d ns; hipMalloc %d ns in 3 calls = %.2f %%"
                   % (api_tot, api[0][2], api[0][2] * 100.0 / api_tot))
    summary.append("hipLaunchKernel       %d calls, avg %d ns" % (api[1][1], api[1][2] // api[1][1]))
    summary.append("")
    summary.append("%-12s %6s %12s %10s %7s  %s" % ("category", "calls", "total_ns", "avg_ns", "pct", "kernel"))
    for k, (c, t) in sorted(kstats.items(), key=lambda kv: -kv[1][1]):
        summary.append("%-12s %6d %12d %10d %6.2f%%  %s" % (K[k][1], c, t, t // c, t * 100.0 / tot, K[k][0][:70]))
    text = "\n".join(summary)
    print(text)
    write_readme(os.path.join(outdir, "README.md"), text, dict(
        n_disp=len(disp), n_tensile=n_tensile, n_launch=n_launch, tot=tot, gemm=gemm, copy=copy,
        api_tot=api_tot, malloc=api[0][2], n_kernels=len(kstats), n_api=len(api),
        n_cplt=sum(1 for d in disp if d["CompleteNs"] < d["EndNs"]),
        first_disp=disp[0]["DispatchNs"], t_first=t_first, t_last=t_last,
        launch_avg=api[1][2] // api[1][1],
        cat_pct={c: sum(t for k, (_, t) in kstats.items() if K[k][1] == c) * 100.0 / tot for c in CAT_PCT}))
    return text


AWK_KERNEL = (r"""awk -F'"' 'NR>1 && $2!="Total"{split($3,f,","); t+=f[3]; if($2~/^Cijk_/)g+=f[3]; """
              r"""if($2~/direct_copy/)d+=f[3]} END{printf "total=%d gemm=%d (%.2f%%) direct_copy=%d (%.2f%%) """
              r"""non-gemm=%.2f%%\n",t,g,100*g/t,d,100*d/t,100-100*g/t}' weather.hipkernel.csv""")
AWK_JOIN = (r"""awk -F'"' 'FNR==1{next} FILENAME~/results/{n=$2; sub(/ \[clone \.kd\]$/,"",n); sub(/\.kd$/,"",n); """
            r"""k=split($7,f,","); if(f[4]-f[3]!=f[6])bad_dur++; s[n]+=f[k]; c[n]++; T+=f[k]; N++; next} """
            r"""$2!="Total"{split($3,f,","); if(s[$2]!=f[3]||c[$2]!=f[2]){bad++; print "MISMATCH",$2}; m++} """
            r"""END{print "kernels",m,"mismatches",bad+0,"bad DurationNs",bad_dur+0,"dispatches",N,"results.csv total",T}' """
            r"""results.csv weather.hipkernel.csv""")
AWK_API = (r"""awk -F'"' 'NR>1 && $2!="Total"{split($3,f,","); t+=f[3]; if($2=="hipMalloc"){m=f[3];mc=f[2]}} """
           r"""END{printf "api=%d hipMalloc=%d calls=%d share=%.2f%%\n",t,m,mc,100*m/t}' weather.hiptrace.csv""")


def write_readme(path, summary, v):
    tot, gemm, copy = v["tot"], v["gemm"], v["copy"]
    exp_kernel = "total=%d gemm=%d (%.2f%%) direct_copy=%d (%.2f%%) non-gemm=%.2f%%" % (
        tot, gemm, 100.0 * gemm / tot, copy, 100.0 * copy / tot, 100 - 100.0 * gemm / tot)
    exp_join = "kernels %d mismatches 0 bad DurationNs 0 dispatches %d results.csv total %d" % (
        v["n_kernels"], v["n_disp"], tot)
    exp_api = "api=%d hipMalloc=%d calls=3 share=%.2f%%" % (v["api_tot"], v["malloc"], 100.0 * v["malloc"] / v["api_tot"])
    md = """# dcu-weather-transformer — SYNTHETIC sample

**This data is SYNTHETIC.** No profiler produced it. It was generated by
`tools/gen_weather_sample.py` (Python 3, standard library only, fixed seed {seed}, deterministic:
re-running it rewrites byte-identical files) from the published figures of the DCU case in
`PRODUCT.md` section 1 (a weather transformer, 69 channels, full spatial resolution, on a Hygon DCU):

| published figure | reproduced here |
| --- | --- |
| device kernel time ≈ 825 ms | {tot} ns = {tot_ms:.3f} ms |
| GEMM 21.94 % | Tensile `Cijk_*` kernels: {gemm} ns = {gemm_pct:.2f} % |
| `direct_copy` 32.35 % | {copy} ns = {copy_pct:.2f} % |
| then add, softmax, layernorm | add {c[add]:.2f} %, softmax {c[softmax]:.2f} %, layernorm {c[layernorm]:.2f} % (by category) |
| non-GEMM > 73 % | {nongemm_pct:.2f} % |
| hipMalloc dominates host API time through 3 cold-start calls | 3 calls, {malloc} ns = {malloc_pct:.2f} % of API time |
| hipLaunchKernel ≈ 6.9 µs average on the host | {launch_avg} ns average |

The remaining non-GEMM time is GELU (exact, erf) {c[gelu]:.2f} %, bias add {c[bias_add]:.2f} %, roll {c[roll]:.2f} %, cat {c[cat]:.2f} %,
index {c[index]:.2f} %, reduce {c[reduce]:.2f} %, fill {c[fill]:.2f} % (shares chosen by the generator, in the order the case
describes; only GEMM, direct_copy and the ordering are published figures).

## Files

| file | format | what it holds |
| --- | --- | --- |
| `weather.hipkernel.csv` | hipprof kernel stats, `"Name","Calls","TotalDurationNs","AverageNs","Percentage"` | {n_kernels} kernels (demangled names, no `.kd`), sorted by TotalDurationNs desc, AverageNs = integer division, Percentage = Python float repr; a trailing `"Total"` row (hipprof quirk: Calls and TotalDurationNs summed, AverageNs = total/calls, Percentage 100.0) that parsers must skip |
| `weather.hiptrace.csv` | hipprof HIP API stats, same 5 columns | {n_api} HIP APIs of the same run + trailing `"Total"` row; hipMalloc first (3 calls), then the blocking waits, copies, launches |
| `results.csv` | rocprof v1 per-dispatch CSV, ROCm ≤ 5.2 column set (`vgpr`,`sgpr`,`fbar`), quoted header | {n_disp} dispatches of the same run on one queue (gpu-id 2, queue-id 0, pid/tid 48213); KernelName in rocprof form: demangled names + ` [clone .kd]`, Tensile (C linkage) names + `.kd`; `sig`/`obj` quoted hex; DurationNs = EndNs − BeginNs. Per-kernel calls and summed DurationNs equal `weather.hipkernel.csv` exactly |
| `README.md` | this file | |

## Run that the data models

Autoregressive rollout, {steps} steps (step 0 is a warm-up: kernels ~4 % slower, GEMMs ~9 %, and
host gaps before the first use of each kernel), a {depth}-block windowed transformer on a
{h}x{w} grid, patch {p}, {tok} tokens, dim {d}, {heads} heads, windows of {win} tokens, shifted
windows (`torch.roll` before and after attention) on odd blocks. Per step: fill, cat (69 + 3 static
channels), copies/patchify, patch-embedding GEMM + bias add, then per block: LayerNorm, [roll],
window-partition copy, QKV GEMM, bias add, three q/k/v permute copies, QKᵀ batched GEMM, bias add
(relative position bias) [+ shift mask], softmax, attn·V GEMM, transpose copy, projection GEMM,
bias add, window-reverse copy, [roll], residual add, `.contiguous()` copy, LayerNorm, reorder copy,
fc1 GEMM, bias add, GELU, fc2 GEMM (GSU 4) + `Cijk_H_PostGSU`, bias add, residual add; then final
LayerNorm, head GEMM, unpatchify copy, index (output channels, static fields), add, 2 reduces, fill.

Timestamps are ns on a monotonic clock (HSA system clock style, first DispatchNs {first_disp}).
The host runs ahead of the GPU; kernels run back to back with 2.6–7.4 µs gaps, with larger gaps
at step boundaries and before first uses. GPU span {span} ns (first BeginNs → last EndNs).
`queue-index` advances by 2 per dispatch and `sig` is `0x0`, as in the real rocprof v1 sample
`llamacpp-rocprof-v1-stats/results.csv`; {n_cplt} rows have CompleteNs < EndNs (the quirk in
FORMATS.md §2.2 — use BeginNs/EndNs). HIP API consistency: hipLaunchKernel calls ({n_launch}) =
non-Tensile dispatches, hipExtModuleLaunchKernel calls ({n_tensile}) = Tensile dispatches,
hipGetLastError calls = hipLaunchKernel calls.

## Totals printed by the generator

```
{summary}
```

## Independent check (awk over the generated CSVs)

Run in this folder. Names contain commas but never `"`, so splitting on `"` gives the name as `$2`
and the numeric tail as the next field.

```sh
{awk_kernel}
# -> {exp_kernel}

{awk_join}
# -> {exp_join}

{awk_api}
# -> {exp_api}
```

## Known differences from a real hipprof/rocprof capture

* Kernel names: the ATen names use real PyTorch-on-ROCm forms (`elementwise_kernel_manual_unroll<128, 8, ...{{lambda(int, bool)#1}}>`,
  float dispatch lambda `#7` as in real traces); the Tensile names are composed in rocBLAS style with
  `ISA928`, which is not verified against a real DCU trace (CATEGORIES.md §5).
* Whether hipprof quotes names in its stats CSVs is unverified (FORMATS.md §1.3); these files quote
  them like rocprof ≥ 5.3.
* Dispatch count is kept low so that `results.csv` stays small: the mean kernel is
  {mean_us:.1f} µs, not the 18.8 µs of the real run.
* The API table is not derived from the dispatch timeline. A GPU-bound run would spend roughly the
  device time blocked in synchronising calls; here the blocking calls sum to far less, so that
  hipMalloc keeps its dominant share ({malloc_pct:.2f} %; the real short run reported 98 %).
""".format(seed=SEED, tot=tot, tot_ms=tot / 1e6, gemm=gemm, gemm_pct=100.0 * gemm / tot, copy=copy,
           copy_pct=100.0 * copy / tot, nongemm_pct=100 - 100.0 * gemm / tot, malloc=v["malloc"],
           malloc_pct=100.0 * v["malloc"] / v["api_tot"], n_kernels=v["n_kernels"], n_api=v["n_api"],
           n_disp=v["n_disp"], steps=STEPS, h=H, w=W, p=P, tok=TOK, d=D, heads=HEADS, win=WIN,
           first_disp=v["first_disp"], span=v["t_last"] - v["t_first"], n_cplt=v["n_cplt"],
           n_launch=v["n_launch"], n_tensile=v["n_tensile"], summary=summary, depth=DEPTH,
           launch_avg=v["launch_avg"], c=v["cat_pct"],
           awk_kernel=AWK_KERNEL, exp_kernel=exp_kernel, awk_join=AWK_JOIN, exp_join=exp_join,
           awk_api=AWK_API, exp_api=exp_api, mean_us=tot / v["n_disp"] / 1e3)
    with open(path, "w", newline="\n") as f:
        f.write(md)


def write_stats(path, rows):
    """rocprof-v1 / hipprof stats layout: quoted header, quoted names, AverageNs int division,
    Percentage = Python repr of a float, sorted by TotalDurationNs desc, then hipprof's Total row."""
    rows = sorted(rows, key=lambda r: -r[2])
    tot = sum(r[2] for r in rows)
    calls = sum(r[1] for r in rows)
    out = ['"Name","Calls","TotalDurationNs","AverageNs","Percentage"']
    for name, c, t in rows:
        out.append('"%s",%d,%d,%d,%r' % (name, c, t, t // c, t * 100.0 / tot))
    out.append('"Total",%d,%d,%d,%r' % (calls, tot, tot // calls, 100.0))
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
