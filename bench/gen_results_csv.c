/*
 * gen_results_csv - write a synthetic rocprof v1 per-dispatch results.csv
 *
 * Usage: gen_results_csv [-L MAXLEN] [N [OUTFILE]]
 *   N        number of dispatches (rows), default 1000000
 *   OUTFILE  output path, default "-" (stdout)
 *   -L       drop generated kernel-name candidates longer than MAXLEN bytes
 *            (default 1000: keeps the realistic 400-900 byte PyTorch tail)
 *
 * Layout is byte-for-byte the rocprof v1 "--stats" (.db mode, ROCm >= 5.3)
 * results.csv written by tblextr.py (see shared/FORMATS.md section 2.2):
 * quoted header, quoted KernelName, quoted hex sig/obj, all other fields raw
 * decimals, '\n' line ends, DurationNs = EndNs - BeginNs.
 *
 * Content: 300 distinct demangled kernel names (Tensile Cijk_..._ISA942 GEMMs,
 * PyTorch vectorized/unrolled/manual_unroll elementwise incl. direct_copy,
 * reduce, softmax, layer_norm, CatArrayBatchedCopy, index_elementwise, RCCL /
 * MSCCL, __amd_rocclr_* copies), chosen with Zipf(s=1.1) frequency; most are
 * 80..400 bytes, the PyTorch families that are longer in real traces keep their
 * real 400..980-byte length unless -L cuts them. Durations are log-normal per
 * kernel, clamped to 2 us .. 2 ms; one HSA clock with host launch gaps, GPU
 * queueing and occasional syncs/stalls, so DispatchNs and BeginNs increase.
 *
 * Output is fully deterministic: own xorshift64* PRNG with a fixed seed, one
 * draw per statement (argument evaluation order is unspecified in C) and no
 * libm (exp2 is computed here): the same N gives the same bytes with gcc and
 * clang at any -O level. A summary (distinct names, name lengths, bytes
 * written) goes to stderr.
 *
 * Only libc is used.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ PRNG */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull; /* fixed seed */

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* uniform in [0, n) */
static uint32_t rnd_below(uint32_t n)
{
    return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32);
}

/* uniform in [0, 1) */
static double rnd_unit(void)
{
    return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

/* approximately standard normal: Irwin-Hall sum of 4 uniforms, scaled */
static double rnd_normal(void)
{
    double s = rnd_unit();
    s += rnd_unit(); /* separate statements: operand evaluation order is unspecified */
    s += rnd_unit();
    s += rnd_unit();
    return (s - 2.0) * 1.7320508075688772; /* var(sum of 4) = 1/3 */
}

#define PICK(arr) (arr[rnd_below((uint32_t)(sizeof(arr) / sizeof(arr[0])))])

/* 2^x without libm: integer part by scaling, fraction by a Taylor series */
static double exp2_(double x)
{
    double r = 1.0, f, t, s;
    int i, k;
    if (x > 60) x = 60;
    if (x < -60) x = -60;
    k = (int)x;
    if ((double)k > x) k--;
    f = (x - k) * 0.6931471805599453; /* in [0, ln2) */
    for (i = 0; i < k; i++) r *= 2.0;
    for (i = 0; i > k; i--) r *= 0.5;
    t = 1.0;
    s = 1.0;
    for (i = 1; i < 16; i++) {
        t *= f / i;
        s += t;
    }
    return r * s;
}

/* ---------------------------------------------------------- name pool */

enum fam {
    F_GEMM, F_VEC_EW, F_UNROLL_EW, F_MANUAL, F_REDUCE, F_SOFTMAX, F_LNORM,
    F_CAT, F_INDEX, F_NCCL, F_ROCCLR, F_MISC, F_NFAM
};

/* per-family duration range, in log2(ns): 2^11 ~ 2 us, 2^21 ~ 2.1 ms */
static const double fam_lo[F_NFAM] = {14.0, 11.0, 11.0, 11.0, 12.5, 13.0, 12.5, 11.5, 12.0, 15.5, 11.0, 12.0};
static const double fam_hi[F_NFAM] = {20.5, 16.0, 16.0, 16.5, 17.0, 18.0, 16.5, 16.0, 16.0, 20.9, 17.5, 17.0};

struct kname {
    char *name;
    size_t len;
    int fam;
    double log2med;      /* median duration, log2(ns) */
    double sigma;        /* spread, log2 units */
    uint32_t wgr, lds, scr, arch_vgpr, accum_vgpr, sgpr;
    uint32_t grd[3];     /* a kernel is launched with up to 3 grid sizes */
    uint32_t queue;
    uint64_t obj;
};

#define NNAMES 300
static struct kname pool[NNAMES];
static int npool;
static size_t max_name_len = 1000;

static const char *const T_ALL[] = {"float", "c10::BFloat16", "c10::Half", "float", "c10::BFloat16"};
static const char *const T_INT[] = {"int", "long", "bool", "unsigned char", "signed char", "short"};

static char sbuf[8192];

static int add_name(int fam, const char *s)
{
    size_t n = strlen(s);
    int i;
    if (npool >= NNAMES || n > max_name_len || strchr(s, '"'))
        return 0;
    for (i = 0; i < npool; i++)
        if (pool[i].len == n && memcmp(pool[i].name, s, n) == 0)
            return 0;
    pool[npool].name = malloc(n + 1);
    if (!pool[npool].name) {
        perror("malloc");
        exit(1);
    }
    memcpy(pool[npool].name, s, n + 1);
    pool[npool].len = n;
    pool[npool].fam = fam;
    npool++;
    return 1;
}

/* snprintf into sbuf, then add */
#define ADDF(fam, ...) do { snprintf(sbuf, sizeof sbuf, __VA_ARGS__); add_name(fam, sbuf); } while (0)

static void gen_gemm(void)
{
    static const char *const ab[] = {"Ailk_Bljk", "Alik_Bljk", "Ailk_Bjlk", "Alik_Bjlk", "Ailk_Bljk", "Alik_Bljk"};
    static const char *const dt[] = {"BBS_BH", "B_BS_BH", "HHS_BH", "HSS_BH", "SB", "S_B", "BBS_BH"};
    static const char *const mt[] = {"MT256x128x64", "MT128x128x32", "MT128x128x64", "MT128x224x64", "MT64x64x64",
                                     "MT256x256x64", "MT64x128x64", "MT16x16x128", "MT32x32x64", "MT128x64x32",
                                     "MT96x256x64", "MT192x256x32"};
    static const char *const mi[] = {"MI16x16x1", "MI32x32x1", "MI16x16x1"};
    static const char *const lbs[] = {"128", "256", "512", "1024", "0"};
    static const char *const wg[] = {"WG32_8_1", "WG16_16_1", "WG32_4_1", "WG16_4_4", "WG64_4_1"};
    /* one draw per statement: argument evaluation order is unspecified in C,
     * and the output must not depend on the compiler */
    const char *s_ab = PICK(ab);
    const char *s_dt = PICK(dt);
    const char *s_bias = rnd_below(2) ? "Bias_" : "";
    const char *s_mt = PICK(mt);
    const char *s_mi = PICK(mi);
    unsigned ldsb = rnd_below(2);
    unsigned eps = rnd_below(2);
    unsigned grvwa = 2u << rnd_below(3);
    unsigned grvwb = 2u << rnd_below(3);
    const char *lbsppa = PICK(lbs);
    const char *lbsppb = PICK(lbs);
    unsigned lpb = 8u << rnd_below(2);
    unsigned miav = rnd_below(2);
    unsigned miwt0 = 1u + rnd_below(8);
    unsigned miwt1 = 1u + rnd_below(8);
    unsigned pgr = 1u + rnd_below(2);
    unsigned ss = rnd_below(2);
    unsigned svw = 1u << rnd_below(4);
    unsigned vwa = 1u << rnd_below(4);
    unsigned vwb = 1u << rnd_below(4);
    const char *s_wg = PICK(wg);
    snprintf(sbuf, sizeof sbuf,
             "Cijk_%s_%s_%sHA_S_SAV_UserArgs_%s_%s_SN_LDSB%u_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_"
             "EPS%u_FDSI0_GRPM1_GRVWA%u_GRVWB%u_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA%s_LBSPPB%s_LBSPPM0_"
             "LPA16_LPB%u_LRVW8_MIAV%u_MIWT%u_%u_MO40_NEPBS16_ONLL1_PGR%u_PLR1_PKA1_SIA3_SS%u_SVW%u_"
             "TLDS1_ULSGRO0_USL1_VWA%u_VWB%u_WSGRA0_WSGRB0_WS64_%s.kd",
             s_ab, s_dt, s_bias, s_mt, s_mi, ldsb, eps, grvwa, grvwb, lbsppa, lbsppb, lpb, miav, miwt0, miwt1,
             pgr, ss, svw, vwa, vwb, s_wg);
    add_name(F_GEMM, sbuf);
}

/* functor text for elementwise kernels; ty = element type; returns the
 * number of tensors it touches (the N of std::array<char*, N>) */
static unsigned functor(char *out, size_t cap, const char *ty)
{
    static const char *const bin_ops[] = {"MulFunctor<float>", "DivFunctor<float>"};
    static const char *const lam_ops[] = {"silu_kernel", "GeluCUDAKernelImpl", "rsqrt_kernel_cuda", "exp_kernel_cuda",
                                          "neg_kernel_cuda", "sigmoid_kernel_cuda", "tanh_kernel_cuda", "sin_kernel_cuda",
                                          "cos_kernel_cuda", "abs_kernel_cuda"};
    switch (rnd_below(7)) {
    case 0: snprintf(out, cap, "at::native::FillFunctor<%s>", rnd_below(3) ? ty : PICK(T_INT)); return 1;
    case 1: snprintf(out, cap, "at::native::CUDAFunctor_add<%s>", ty); return 3;
    case 2: snprintf(out, cap, "at::native::CUDAFunctorOnSelf_add<%s>", ty); return 2;
    case 3:
        snprintf(out, cap, "at::native::BinaryFunctor<%s, %s, %s, at::native::binary_internal::%s >", ty, ty, ty,
                 PICK(bin_ops));
        return 3;
    case 4:
        snprintf(out, cap, "at::native::AUnaryFunctor<%s, %s, %s, at::native::binary_internal::%s >", ty, ty, ty,
                 PICK(bin_ops));
        return 2;
    default: {
        const char *ns = rnd_below(3) ? "" : "(anonymous namespace)::";
        const char *op = PICK(lam_ops);
        unsigned l1 = 1u + rnd_below(3);
        unsigned l2 = 1u + rnd_below(12);
        snprintf(out, cap,
                 "at::native::%s%s(at::TensorIteratorBase&)::{lambda()#%u}::operator()() const::{lambda()#%u}::"
                 "operator()() const::{lambda(%s)#1}",
                 ns, op, l1, l2, ty);
        return 2;
    }
    }
}

static void direct_copy(char *out, size_t cap, const char *ty)
{
    snprintf(out, cap,
             "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
             "{lambda()#%u}::operator()() const::{lambda(%s)#1}",
             rnd_below(2) ? 7u : 12u + rnd_below(3), ty);
}

static void gen_vec_ew(void)
{
    char f[1024];
    const char *ty = PICK(T_ALL);
    unsigned vec = (strcmp(ty, "float") == 0) ? 4 : (rnd_below(3) ? 8 : 4);
    unsigned arity = 2;
    if (rnd_below(8) == 0)
        direct_copy(f, sizeof f, ty);
    else
        arity = functor(f, sizeof f, ty);
    ADDF(F_VEC_EW,
         "void at::native::vectorized_elementwise_kernel<%u, %s, std::array<char*, %uul> >(int, %s, std::array<char*, "
         "%uul>) [clone .kd]",
         vec, f, arity, f, arity);
}

static void gen_unroll_ew(void)
{
    char f[1024];
    const char *ty = PICK(T_ALL);
    unsigned in = 1 + rnd_below(2);
    if (rnd_below(2))
        direct_copy(f, sizeof f, ty);
    else
        functor(f, sizeof f, ty);
    ADDF(F_UNROLL_EW,
         "void at::native::unrolled_elementwise_kernel<%s, std::array<char*, %uul>, 4, TrivialOffsetCalculator<%u, "
         "unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<%u>, "
         "at::native::memory::StoreWithCast<1> >(int, %s, std::array<char*, %uul>, TrivialOffsetCalculator<%u, "
         "unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<%u>, "
         "at::native::memory::StoreWithCast<1>) [clone .kd]",
         f, in + 1, in, in, f, in + 1, in, in);
}

static void gen_manual(void)
{
    char f[1024];
    const char *ty = PICK(T_ALL);
    const char *impl = rnd_below(3) ? "gpu_kernel_impl_nocast" : "gpu_kernel_impl";
    unsigned nt = rnd_below(4) ? 128 : 512, vt = rnd_below(2) ? 4 : 8;
    const char *cl;
    if (rnd_below(3))
        direct_copy(f, sizeof f, ty);
    else
        functor(f, sizeof f, ty);
    /* the demangler separates a closing '>' from a preceding one: "<...> >" */
    cl = f[strlen(f) - 1] == '>' ? " >" : ">";
    if (rnd_below(2))
        ADDF(F_MANUAL,
             "void at::native::elementwise_kernel_manual_unroll<%u, %u, at::native::%s<%s%s(at::TensorIteratorBase&, "
             "%s const&)::{lambda(int, bool)#1}>(int, at::native::%s<%s%s(at::TensorIteratorBase&, %s const&)::"
             "{lambda(int, bool)#1}) [clone .kd]",
             nt, vt, impl, f, cl, f, impl, f, cl, f);
    else
        ADDF(F_MANUAL,
             "void at::native::elementwise_kernel<%u, %u, at::native::%s<%s%s(at::TensorIteratorBase&, %s const&)::"
             "{lambda(int)#1}>(int, at::native::%s<%s%s(at::TensorIteratorBase&, %s const&)::{lambda(int)#1}) "
             "[clone .kd]",
             nt, vt, impl, f, cl, f, impl, f, cl, f);
}

static void gen_reduce(void)
{
    static const char *const ops[] = {"MeanOps<float, float, float, float>", "NormTwoOps<float, float, float>",
                                      "MaxOps<float>", "MinOps<float>", "ArgMaxOps<float>",
                                      "WelfordOps<float, float, int, thrust::pair<float, float> >"};
    char op[512];
    const char *ty = PICK(T_ALL);
    unsigned nt = rnd_below(2) ? 512 : 128, vt = rnd_below(2) ? 1 : 4;
    unsigned iv = 1u << rnd_below(4), ov = 1u << rnd_below(4);
    if (rnd_below(2))
        snprintf(op, sizeof op, "at::native::%s", PICK(ops));
    else
        snprintf(op, sizeof op,
                 "at::native::func_wrapper_t<%s, at::native::sum_functor<%s, float, %s>::operator()(at::TensorIterator&)"
                 "::{lambda(float, float)#1}>",
                 ty, ty, ty);
    ADDF(F_REDUCE,
         "void at::native::reduce_kernel<%u, %u, at::native::ReduceOp<%s, %s, unsigned int, %s, %u, %u> >"
         "(at::native::ReduceOp<%s, %s, unsigned int, %s, %u, %u>) [clone .kd]",
         nt, vt, ty, op, ty, iv, ov, ty, op, ty, iv, ov);
}

static void gen_softmax(void)
{
    const char *ty = PICK(T_ALL);
    unsigned log2e = 5 + rnd_below(7);
    switch (rnd_below(4)) {
    case 0:
        ADDF(F_SOFTMAX,
             "void (anonymous namespace)::softmax_warp_forward<%s, %s, float, %u, %s, false>(%s*, %s const*, int, int, "
             "int, bool const*, int, bool) [clone .kd]",
             ty, ty, log2e, rnd_below(2) ? "false" : "true", ty, ty);
        break;
    case 1:
        ADDF(F_SOFTMAX,
             "void (anonymous namespace)::softmax_warp_backward<%s, %s, float, %u, %s, false>(%s*, %s const*, "
             "%s const*, int, int, int, bool const*) [clone .kd]",
             ty, ty, log2e, rnd_below(2) ? "false" : "true", ty, ty, ty);
        break;
    case 2:
        ADDF(F_SOFTMAX,
             "void at::native::(anonymous namespace)::cunn_SoftMaxForward<%u, %s, float, %s, "
             "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(%s*, %s const*, int) [clone .kd]",
             1u << (1 + rnd_below(3)), ty, ty, ty, ty);
        break;
    default:
        ADDF(F_SOFTMAX,
             "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<%u, %s, float, %s, "
             "at::native::(anonymous namespace)::SoftMaxBackwardEpilogue>(%s*, %s const*, %s const*, long) [clone .kd]",
             1u << (1 + rnd_below(3)), ty, ty, ty, ty, ty);
        break;
    }
}

static void gen_lnorm(void)
{
    const char *ty = PICK(T_ALL);
    const char *tf = rnd_below(2) ? "true" : "false";
    switch (rnd_below(5)) {
    case 0:
        ADDF(F_LNORM,
             "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<%s, float, %s>(int, float, %s const*, "
             "%s const*, %s const*, float*, float*, %s*) [clone .kd]",
             ty, tf, ty, ty, ty, ty);
        break;
    case 1:
        ADDF(F_LNORM,
             "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<%s, float, %s>(%s const*, "
             "%s const*, float const*, float const*, %s const*, %s*, int) [clone .kd]",
             ty, tf, ty, ty, ty, ty);
        break;
    case 2: {
        unsigned bx = 16u << rnd_below(2);
        unsigned by = 16u << rnd_below(2);
        unsigned bt = 128u << rnd_below(2);
        ADDF(F_LNORM,
             "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<%s, float, %uu, %uu, %uu, "
             "false, %s, false>(long, long, %s const*, %s const*, float const*, float const*, %s*, %s*) [clone .kd]",
             ty, bx, by, bt, tf, ty, ty, ty, ty);
        break;
    }
    case 3:
        ADDF(F_LNORM,
             "void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<%s, %s>(long, float, %s const*, float*, "
             "float*) [clone .kd]",
             ty, tf, ty);
        break;
    default:
        ADDF(F_LNORM,
             "void at::native::(anonymous namespace)::LayerNormForwardCUDAKernel<%s, float, %s>(long, %s const*, "
             "float const*, float const*, %s const*, %s const*, %s*) [clone .kd]",
             ty, tf, ty, ty, ty, ty);
        break;
    }
}

static void gen_cat(void)
{
    unsigned ot = 1u << rnd_below(4), dims = 1 + rnd_below(4), a = 64u >> rnd_below(2), b = 64u >> rnd_below(2);
    ADDF(F_CAT,
         "void at::native::(anonymous namespace)::CatArrayBatchedCopy%s<at::native::(anonymous namespace)::OpaqueType<%uu>, "
         "unsigned int, %u, %u, %u>(at::native::(anonymous namespace)::OpaqueType<%uu>*, "
         "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<%uu>, "
         "unsigned int, %u, %u>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, "
         "unsigned int) [clone .kd]",
         rnd_below(3) ? "" : "_contig", ot, dims, a, b, ot, ot, a, b);
}

static void gen_index(void)
{
    char lam[1024];
    unsigned ot = 1u << rnd_below(4);
    unsigned nt = 128, vt = 4;
    if (rnd_below(2)) {
        snprintf(lam, sizeof lam,
                 "at::native::index_kernel_impl<at::native::OpaqueType<%u> >(at::TensorIteratorBase&, "
                 "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}",
                 ot);
    } else {
        snprintf(lam, sizeof lam,
                 "at::native::index_put_kernel_impl<at::native::OpaqueType<%u> >(at::TensorIterator&, "
                 "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}",
                 ot);
    }
    if (rnd_below(3) == 0) {
        /* the short (launcher-free) spelling seen for the bare lambda form */
        ADDF(F_INDEX,
             "void at::native::index_elementwise_kernel<%u, %u, %s>(long, %s) [clone .kd]", nt, vt, lam, lam);
    } else {
        ADDF(F_INDEX,
             "void at::native::index_elementwise_kernel<%u, %u, at::native::gpu_index_kernel<%s>(at::TensorIteratorBase&, "
             "c10::ArrayRef<long>, c10::ArrayRef<long>, %s const&, bool)::{lambda(int)#1}>(long, "
             "at::native::gpu_index_kernel<%s>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, "
             "%s const&, bool)::{lambda(int)#1}) [clone .kd]",
             nt, vt, lam, lam, lam, lam);
    }
}

static void gen_nccl(void)
{
    static const char *const red[] = {"Sum", "Max", "Prod", "Min"};
    static const char *const ty[] = {"half", "float", "bfloat16", "int8_t", "uint32_t"};
    static const char *const pr[] = {"Simple", "LL", "LL128"};
    switch (rnd_below(3)) {
    case 0:
        ADDF(F_NCCL, "ncclDevKernel_Generic%s(ncclDevComm*, channelMasks, ncclWork*) [clone .kd]",
             rnd_below(2) ? "" : (rnd_below(2) ? "_4" : "_2"));
        break;
    case 1: {
        const char *r = PICK(red);
        const char *t = PICK(ty);
        const char *p = PICK(pr);
        const char *b = rnd_below(2) ? "false" : "true";
        ADDF(F_NCCL, "mscclKernel_%s_%s_%s_%s(ncclDevComm*, mscclAlgo*, mscclWork*) [clone .kd]", r, t, p, b);
        break;
    }
    default:
        ADDF(F_NCCL, "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>) [clone .kd]");
        break;
    }
}

static void gen_misc(void)
{
    const char *ty = PICK(T_ALL);
    switch (rnd_below(6)) {
    case 0:
        ADDF(F_MISC,
             "void at::native::(anonymous namespace)::indexSelectLargeIndex<%s, long, unsigned int, 2, 2, -2, true>("
             "at::cuda::detail::TensorInfo<%s, unsigned int>, at::cuda::detail::TensorInfo<%s const, unsigned int>, "
             "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long) "
             "[clone .kd]",
             ty, ty, ty);
        break;
    case 1:
        ADDF(F_MISC, "void at::native::roll_cuda_kernel<%s>(%s const*, %s*, long, long, long, long, long, long) [clone .kd]",
             ty, ty, ty);
        break;
    case 2: {
        unsigned d = 1 + rnd_below(2);
        const char *op = rnd_below(2) ? "plus" : "multiplies";
        ADDF(F_MISC,
             "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
             "TensorListMetadata<%u>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<%s, %u, %u, 0>, "
             "std::%s<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<%u>, at::native::"
             "(anonymous namespace)::BinaryOpScalarFunctor<%s, %u, %u, 0>, std::%s<float>, float) [clone .kd]",
             d, ty, d, d, op, d, ty, d, d, op);
        break;
    }
    case 3: {
        const char *b1 = rnd_below(2) ? "true" : "false";
        const char *b2 = rnd_below(2) ? "true" : "false";
        ADDF(F_MISC,
             "void ck_tile::kentry<256, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::"
             "BlockFmhaPipelineProblem<%s, %s, %s, float, float, %s> >, ck_tile::Default2DEpilogue<float, %s, %s, %s> > >"
             "(ck_tile::FmhaFwdKernel::Kargs) [clone .kd]",
             ty, ty, ty, ty, ty, b1, b2);
        break;
    }
    case 4:
        ADDF(F_MISC, "void at::native::(anonymous namespace)::fill_index_and_segment_kernel<%s, int>(int2*, int, "
             "at::cuda::detail::IntDivider<unsigned int>) [clone .kd]", ty);
        break;
    default:
        ADDF(F_MISC,
             "void rocprim::detail::block_sort_kernel<rocprim::default_config, false, %s*, %s*, rocprim::empty_type*, "
             "rocprim::empty_type*, unsigned int, rocprim::less<%s> >(%s*, %s*, rocprim::empty_type*, "
             "rocprim::empty_type*, unsigned int, rocprim::less<%s>) [clone .kd]",
             ty, ty, ty, ty, ty, ty);
        break;
    }
}

static void build_pool(void)
{
    /* target mix; loops are bounded so a small -L cannot hang us */
    static const struct { int fam; int want; } mix[] = {
        {F_GEMM, 70}, {F_VEC_EW, 60}, {F_MANUAL, 18}, {F_UNROLL_EW, 6}, {F_REDUCE, 22}, {F_SOFTMAX, 15},
        {F_LNORM, 18}, {F_CAT, 10}, {F_INDEX, 8}, {F_NCCL, 14}, {F_MISC, 24}};
    static const char *const rocclr[] = {"__amd_rocclr_copyBuffer.kd", "__amd_rocclr_fillBufferAligned.kd",
                                         "__amd_rocclr_copyBufferAligned.kd", "__amd_rocclr_fillBufferAligned2D.kd",
                                         "__amd_rocclr_copyBufferRect.kd", "__amd_rocclr_copyBufferRectAligned.kd"};
    size_t i;
    int k;
    for (i = 0; i < sizeof rocclr / sizeof rocclr[0]; i++)
        add_name(F_ROCCLR, rocclr[i]);
    for (i = 0; i < sizeof mix / sizeof mix[0]; i++) {
        int have = 0, tries;
        for (tries = 0; have < mix[i].want && tries < mix[i].want * 50; tries++) {
            int before = npool;
            switch (mix[i].fam) {
            case F_GEMM: gen_gemm(); break;
            case F_VEC_EW: gen_vec_ew(); break;
            case F_UNROLL_EW: gen_unroll_ew(); break;
            case F_MANUAL: gen_manual(); break;
            case F_REDUCE: gen_reduce(); break;
            case F_SOFTMAX: gen_softmax(); break;
            case F_LNORM: gen_lnorm(); break;
            case F_CAT: gen_cat(); break;
            case F_INDEX: gen_index(); break;
            case F_NCCL: gen_nccl(); break;
            default: gen_misc(); break;
            }
            have += npool - before;
        }
    }
    /* top up with GEMMs / vectorized kernels to exactly NNAMES when possible */
    for (k = 0; npool < NNAMES && k < 20000; k++) {
        if (k & 1) gen_gemm();
        else gen_vec_ew();
    }

    /* Fisher-Yates shuffle: pool order = Zipf rank */
    for (k = npool - 1; k > 0; k--) {
        int j = (int)rnd_below((uint32_t)k + 1);
        struct kname t = pool[k];
        pool[k] = pool[j];
        pool[j] = t;
    }
    /* like real PyTorch traces, the most frequent kernels are elementwise
     * ones and GEMMs (80..400-byte names, so the file size does not hinge on
     * which name lands on rank 0), and the rocclr copy kernel is common */
    for (k = 0; k < 8 && k < npool; k++) {
        static const int top_fam[8] = {F_VEC_EW, F_GEMM, F_MANUAL, F_VEC_EW, F_GEMM, F_VEC_EW, F_REDUCE, F_MANUAL};
        int j;
        for (j = k; j < npool && (pool[j].fam != top_fam[k] || pool[j].len < 80 || pool[j].len > 400); j++)
            ;
        if (j < npool) {
            struct kname t = pool[k];
            pool[k] = pool[j];
            pool[j] = t;
        }
    }
    for (k = 0; k < npool; k++) {
        if (strcmp(pool[k].name, "__amd_rocclr_copyBuffer.kd") == 0 && k > 12) {
            struct kname t = pool[12];
            pool[12] = pool[k];
            pool[k] = t;
        }
    }

    /* static per-kernel properties */
    for (k = 0; k < npool; k++) {
        struct kname *p = &pool[k];
        int f = p->fam, g;
        p->log2med = fam_lo[f] + rnd_unit() * (fam_hi[f] - fam_lo[f]);
        p->sigma = 0.25 + rnd_unit() * 0.5;
        p->queue = 0;
        p->scr = 0;
        p->sgpr = rnd_below(4) ? 128 : 96 + 16 * rnd_below(2);
        p->accum_vgpr = 0;
        p->lds = 0;
        switch (f) {
        case F_GEMM:
            p->wgr = 256;
            p->lds = 16384u << rnd_below(3);
            p->arch_vgpr = 128 + 8 * rnd_below(17);
            p->accum_vgpr = 64u << rnd_below(3);
            p->queue = rnd_below(5) ? 0 : 1;
            break;
        case F_REDUCE: case F_SOFTMAX: case F_LNORM:
            p->wgr = 128u << rnd_below(3);
            p->lds = rnd_below(3) ? 0 : 1024u << rnd_below(4);
            p->arch_vgpr = 16 + 8 * rnd_below(10);
            break;
        case F_NCCL:
            p->wgr = 256;
            p->lds = 0;
            p->scr = rnd_below(2) ? 0 : 8192;
            p->arch_vgpr = 64 + 8 * rnd_below(8);
            p->queue = 2;
            break;
        case F_ROCCLR:
            p->wgr = 256;
            p->arch_vgpr = 8 + 8 * rnd_below(2);
            break;
        default:
            p->wgr = 128u << rnd_below(3);
            p->arch_vgpr = 8 + 8 * rnd_below(6);
            p->queue = rnd_below(8) ? 0 : 1;
            break;
        }
        for (g = 0; g < 3; g++) {
            uint32_t groups = (f == F_GEMM || f == F_NCCL) ? 8u + rnd_below(1200) : 1u + rnd_below(65536);
            p->grd[g] = groups * p->wgr;
        }
        p->obj = 0x7f3a00000000ull + ((uint64_t)rnd_below(1u << 24) << 8);
        p->obj += (uint64_t)rnd_below(4) * 0x40;
    }
}

/* ---------------------------------------------------------- output */

static char *obuf;
static size_t olen;
#define OBUF_CAP (1u << 20)
static FILE *ofp;
static uint64_t obytes;

static void oflush(void)
{
    if (olen && fwrite(obuf, 1, olen, ofp) != olen) {
        perror("gen_results_csv: write");
        exit(1);
    }
    obytes += olen;
    olen = 0;
}

static void ostr(const char *s, size_t n)
{
    if (olen + n > OBUF_CAP) oflush();
    if (n > OBUF_CAP) {
        if (fwrite(s, 1, n, ofp) != n) {
            perror("gen_results_csv: write");
            exit(1);
        }
        obytes += n;
        return;
    }
    memcpy(obuf + olen, s, n);
    olen += n;
}

static void ou64(uint64_t v)
{
    char t[24];
    int i = 24;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ostr(t + i, (size_t)(24 - i));
}

static void ohex(uint64_t v)
{
    static const char hx[] = "0123456789abcdef";
    char t[20];
    int i = 20;
    do {
        t[--i] = hx[v & 15];
        v >>= 4;
    } while (v);
    t[--i] = 'x';
    t[--i] = '0';
    ostr("\"", 1);
    ostr(t + i, (size_t)(20 - i));
    ostr("\"", 1);
}

#define OLIT(s) ostr(s, sizeof(s) - 1)

static const char HEADER[] =
    "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\","
    "\"scr\",\"arch_vgpr\",\"accum_vgpr\",\"sgpr\",\"wave_size\",\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\","
    "\"EndNs\",\"CompleteNs\",\"DurationNs\"\n";

int main(int argc, char **argv)
{
    uint64_t n = 1000000, i;
    const char *out = "-";
    int ai = 1, k;
    double cdf[NNAMES], sum = 0;
    uint64_t qidx[4] = {0, 0, 0, 0};
    uint64_t count[NNAMES];
    const uint32_t gpu = 2, pid = 2375942;
    uint64_t host, gpu_free, last_disp, last_complete = 0;
    size_t lmin = (size_t)-1, lmax = 0, lsum = 0, in_range = 0;
    uint64_t rows_in_range = 0;

    if (ai < argc && strcmp(argv[ai], "-L") == 0 && ai + 1 < argc) {
        max_name_len = (size_t)strtoul(argv[ai + 1], NULL, 10);
        ai += 2;
    }
    if (ai < argc && (strcmp(argv[ai], "-h") == 0 || strcmp(argv[ai], "--help") == 0)) {
        fprintf(stderr, "usage: %s [-L MAXLEN] [N [OUTFILE|-]]\n", argv[0]);
        return 0;
    }
    if (ai < argc) {
        char *e;
        errno = 0;
        n = strtoull(argv[ai], &e, 10);
        if (errno || *e || e == argv[ai]) {
            fprintf(stderr, "gen_results_csv: bad N '%s'\nusage: %s [-L MAXLEN] [N [OUTFILE|-]]\n", argv[ai], argv[0]);
            return 2;
        }
        ai++;
    }
    if (ai < argc) out = argv[ai++];

    build_pool();
    if (npool < 1) {
        fprintf(stderr, "gen_results_csv: no kernel names fit -L %zu\n", max_name_len);
        return 2;
    }
    /* Zipf-like, s = 1.1 */
    for (k = 0; k < npool; k++) {
        /* weight 1/(k+1)^1.1 = 2^(-1.1 * log2(k+1)); log2 by repeated squaring (no libm) */
        {
            double x = (double)(k + 1), l2 = 0;
            int b;
            while (x >= 2.0) { x *= 0.5; l2 += 1.0; }
            for (b = 0; b < 40; b++) { /* fractional bits */
                x *= x;
                if (x >= 2.0) { x *= 0.5; l2 += 1.0 / (double)(1ull << (b + 1)); }
            }
            sum += exp2_(-1.1 * l2);
        }
        cdf[k] = sum;
        count[k] = 0;
    }
    for (k = 0; k < npool; k++) cdf[k] /= sum;
    cdf[npool - 1] = 1.0;

    if (strcmp(out, "-") == 0) {
        ofp = stdout;
    } else if (!(ofp = fopen(out, "wb"))) {
        fprintf(stderr, "gen_results_csv: %s: %s\n", out, strerror(errno));
        return 1;
    }
    obuf = malloc(OBUF_CAP);
    if (!obuf) {
        perror("malloc");
        return 1;
    }
    OLIT(HEADER);

    host = 769537349987029ull; /* HSA system clock ns, like the JB sample */
    gpu_free = host + 100000;
    last_disp = host;
    for (i = 0; i < n; i++) {
        double u = rnd_unit();
        int lo = 0, hi = npool - 1;
        struct kname *p;
        uint64_t disp, begin, end, complete, dur;
        double l2;
        uint32_t tid = pid;

        while (lo < hi) { /* first cdf >= u */
            int mid = (lo + hi) / 2;
            if (cdf[mid] >= u) hi = mid;
            else lo = mid + 1;
        }
        p = &pool[lo];
        count[lo]++;

        /* host side: launch overhead, occasional sync / python stall */
        host += 3000 + rnd_below(9000);
        if (rnd_below(2000) == 0) {
            host = (gpu_free > host ? gpu_free : host) + 50000 + rnd_below(5000000);
        } else if (rnd_below(50) == 0) {
            host += 20000 + rnd_below(200000);
        }
        disp = host;
        if (disp <= last_disp) disp = last_disp + 1;
        last_disp = disp;

        l2 = p->log2med + p->sigma * rnd_normal();
        if (l2 < 10.966) l2 = 10.966;     /* 2000 ns */
        if (l2 > 20.932) l2 = 20.932;     /* 2000000 ns */
        dur = (uint64_t)exp2_(l2);
        if (dur < 2000) dur = 2000;
        if (dur > 2000000) dur = 2000000;
        dur -= dur % 40; /* the GPU timestamp ticks at 25 MHz, like the sample */

        begin = disp + 4000 + rnd_below(20000);
        if (begin < gpu_free) begin = gpu_free + 1000 + rnd_below(4000);
        end = begin + dur;
        gpu_free = end;
        complete = end + 1000 + rnd_below(30000);
        if (rnd_below(500) == 0) complete = end - rnd_below(200); /* real quirk: CompleteNs < EndNs */
        last_complete = complete;
        if (p->fam == F_NCCL && rnd_below(4) == 0) tid = pid + 17;

        ou64(i);
        OLIT(",\"");
        ostr(p->name, p->len);
        OLIT("\",");
        ou64(gpu); OLIT(",");
        ou64(p->queue); OLIT(",");
        ou64(qidx[p->queue]); OLIT(",");
        qidx[p->queue] += (p->queue == 2) ? 2 : 1;
        ou64(pid); OLIT(",");
        ou64(tid); OLIT(",");
        ou64(p->grd[rnd_below(3)]); OLIT(",");
        ou64(p->wgr); OLIT(",");
        ou64(p->lds); OLIT(",");
        ou64(p->scr); OLIT(",");
        ou64(p->arch_vgpr); OLIT(",");
        ou64(p->accum_vgpr); OLIT(",");
        ou64(p->sgpr); OLIT(",64,");
        ohex(0); OLIT(",");
        ohex(p->obj); OLIT(",");
        ou64(disp); OLIT(",");
        ou64(begin); OLIT(",");
        ou64(end); OLIT(",");
        ou64(complete); OLIT(",");
        ou64(end - begin); OLIT("\n");
    }
    (void)last_complete;
    oflush();
    if (fflush(ofp) != 0 || (ofp != stdout && fclose(ofp) != 0)) {
        perror("gen_results_csv: write");
        return 1;
    }

    for (k = 0; k < npool; k++) {
        size_t l = pool[k].len;
        if (l < lmin) lmin = l;
        if (l > lmax) lmax = l;
        lsum += l;
        if (l >= 80 && l <= 400) {
            in_range++;
            rows_in_range += count[k];
        }
    }
    fprintf(stderr,
            "gen_results_csv: %llu rows, %llu bytes, %d distinct names (len min %zu avg %zu max %zu; "
            "%zu names / %.1f%% of rows in 80..400), top name %.1f%% of rows\n",
            (unsigned long long)n, (unsigned long long)obytes, npool, lmin, lsum / (size_t)npool, lmax, in_range,
            n ? 100.0 * (double)rows_in_range / (double)n : 0.0, n ? 100.0 * (double)count[0] / (double)n : 0.0);
    free(obuf);
    return 0;
}
