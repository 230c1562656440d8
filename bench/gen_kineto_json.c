/*
 * gen_kineto_json - write a synthetic PyTorch profiler (Kineto) chrome trace
 *
 * Usage: gen_kineto_json [N [OUTFILE]]
 *   N        number of kernel events, default 1000000
 *   OUTFILE  output path, default "-" (stdout)
 *
 * Layout follows the real traces in shared/sample-traces-real (FORMATS.md section 5):
 * top-level schemaVersion/deviceProperties/traceEvents, one "cuda_runtime" launch
 * (cudaLaunchKernel) and one "kernel" event per dispatch linked by args.correlation and
 * args."External id", one "cpu_op" per 4 kernels, a "ProfilerStep#k" user_annotation every
 * 2000 kernels, ts/dur in microseconds with 3 decimals. 60 kernel names (ATen elementwise,
 * copies, reductions, softmax, layer norm, Tensile/nvjet GEMMs) drawn with a fixed
 * xorshift PRNG: the same N gives the same bytes. Only libc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

static const char* const families[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
    "{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::"
    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
    "{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, "
    "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
    "::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t"
    "<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::"
    "{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::"
    "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()"
    "(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",
    "void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, 8, "
    "false, false>(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, int, bool)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>"
    "(int, float, float const*, float const*, float const*, float*, float*, float*)",
    "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3"
    "_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRPM1_GRVW8_GSU1",
    "nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_bias_TNT",
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)"
    "::OpaqueType<4u>, unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::OpaqueType<4u>*,"
    " at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous "
    "namespace)::OpaqueType<4u>, unsigned int, 64, 64>, at::native::(anonymous namespace)::"
    "TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
    "void at::native::unrolled_elementwise_kernel<at::native::GeluCUDAKernelImpl(at::"
    "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}"
    "::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator"
    "<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast"
    "<1>, at::native::memory::StoreWithCast<1> >(int, at::native::GeluCUDAKernelImpl)",
    "void at::native::roll_cuda_kernel<float>(float const*, float*, long, long, long, long, long, long)",
};
#define NFAM (sizeof(families) / sizeof(families[0]))
#define NNAMES 60

int main(int argc, char** argv) {
    long long n = argc > 1 ? atoll(argv[1]) : 1000000;
    const char* out = argc > 2 ? argv[2] : "-";
    FILE* f = strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
    if (!f || n < 0) {
        fprintf(stderr, "usage: gen_kineto_json [N [OUTFILE]]\n");
        return 2;
    }
    static char names[NNAMES][2048];
    for (int i = 0; i < NNAMES; i++) {
        /* variants of each family, as real traces have: the function name gets a suffix
         * (inserted before its template arguments or argument list) */
        const char* fam = families[i % NFAM];
        int v = i / (int)NFAM;
        const char* cut = fam + strcspn(fam, "<(");
        if (v == 0 || !*cut) {
            snprintf(names[i], sizeof(names[i]), "%s", fam);
        } else {
            snprintf(names[i], sizeof(names[i]), "%.*s_v%d%s", (int)(cut - fam), fam, v, cut);
        }
    }
    fprintf(f, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
               "\"Synthetic GPU\", \"totalGlobalMem\": 68702699520, \"warpSize\": 64, \"numSms\": "
               "304}],\n  \"traceName\": \"bench\",\n  \"displayTimeUnit\": \"ms\",\n"
               "  \"baseTimeNanoseconds\": 1700000000000000000,\n  \"traceEvents\": [\n");
    uint64_t host = 1000000000ull;   /* ns */
    uint64_t device = host + 20000; /* ns */
    long long step = 0;
    const int per_step = 2000;
    int first = 1;
    for (long long i = 0; i < n; i++) {
        if (i % per_step == 0) {
            long long left = n - i < per_step ? n - i : per_step;
            uint64_t dur = (uint64_t)left * 9000ull;
            fprintf(f, "%s  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%lld\","
                       " \"pid\": 4242, \"tid\": 4242, \"ts\": %llu.%03llu, \"dur\": %llu.%03llu,"
                       " \"args\": {\"External id\": %lld}}",
                    first ? "" : ",\n", step, (unsigned long long)(host / 1000),
                    (unsigned long long)(host % 1000), (unsigned long long)(dur / 1000),
                    (unsigned long long)(dur % 1000), 10000000 + step);
            step++;
            first = 0;
        }
        int k = (int)(next() % NNAMES);
        uint64_t launch = 3000 + next() % 6000;          /* host launch cost, ns */
        uint64_t kdur = 1500 + (next() % 40) * (next() % 40) * 60; /* 1.5 us .. ~95 us */
        long long corr = i + 1, ext = i / 4 + 1;
        if (i % 4 == 0) {
            fprintf(f, ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 4242,"
                       " \"tid\": 4242, \"ts\": %llu.%03llu, \"dur\": %llu.%03llu, \"args\": {\"External id\":"
                       " %lld, \"Record function id\": 0, \"Ev Idx\": %lld}}",
                    k % 17, (unsigned long long)(host / 1000), (unsigned long long)(host % 1000),
                    (unsigned long long)(4 * 9000 / 1000), 0ull, ext, i);
        }
        fprintf(f, ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\","
                   " \"pid\": 4242, \"tid\": 4242, \"ts\": %llu.%03llu, \"dur\": %llu.%03llu,"
                   " \"args\": {\"External id\": %lld, \"cbid\": 211, \"correlation\": %lld}}",
                (unsigned long long)(host / 1000), (unsigned long long)(host % 1000),
                (unsigned long long)(launch / 1000), (unsigned long long)(launch % 1000), ext, corr);
        if (device < host + launch) {
            device = host + launch + 1000;
        }
        fprintf(f, ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7,"
                   " \"ts\": %llu.%03llu, \"dur\": %llu.%03llu, \"args\": {\"External id\": %lld,"
                   " \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %lld,"
                   " \"registers per thread\": 32, \"shared memory\": 0, \"grid\": [%d, 1, 1],"
                   " \"block\": [256, 1, 1]}}",
                names[k], (unsigned long long)(device / 1000), (unsigned long long)(device % 1000),
                (unsigned long long)(kdur / 1000), (unsigned long long)(kdur % 1000), ext, corr,
                64 << (k % 6));
        device += kdur + 500 + next() % 2000;
        host += 9000;
    }
    fprintf(f, "\n  ]\n}\n");
    if (f != stdout && fclose(f) != 0) {
        perror(out);
        return 1;
    }
    return 0;
}
