/* test_perf_model.c - every performance model on hand-computed cases: GEMM (plain, bias,
 * batch, broadcasting, 1-D, transposed operands, fp8), convolution (stride, padding,
 * groups, transposed, backward mask), attention (causal, layouts, backward) and the
 * memory-bound ops (broadcast, in-place, copy, reduce, norm). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dcutop/perf_model.h"

static PerfOp eval(const char* name, const char* dims, const char* types, const char* conc,
                   const char* strides) {
    PerfOp o;
    assert_int_equal(PerfModel_eval(name, dims, types, conc, strides, &o), 1);
    return o;
}

static void gemm_mm_qwen(void** state) {
    (void)state;
    /* Qwen trace: aten::mm [8944,1024] x [1024,1024] bf16, B stored transposed
     * (strides [1,1024]). FLOPs = 2*8944*1024*1024 = 18756927488.
     * bytes = (8944*1024 + 1024*1024 + 8944*1024) * 2 = 38731776 */
    PerfOp o = eval("aten::mm", "[[8944,1024],[1024,1024]]",
                    "[\"c10::BFloat16\",\"c10::BFloat16\"]", "[\"\",\"\"]",
                    "[[1024,1],[1,1024]]");
    assert_int_equal(o.kind, PERF_GEMM);
    assert_float_equal(o.flops, 18756927488.0, 0);
    assert_float_equal(o.bytes, 38731776.0, 0);
    assert_string_equal(o.dtype, "bf16");
    assert_string_equal(o.shape, "M=8944 N=1024 K=1024 B^T");
}

static void gemm_addmm_bias(void** state) {
    (void)state;
    /* addmm(bias[1536], A[2048,512], B[512,1536]) fp32:
     * FLOPs 2*2048*1536*512 = 3221225472; bytes 4*(1536 + 2048*512 + 512*1536 + 2048*1536)
     * = 4*(1536 + 1048576 + 786432 + 3145728) = 19929088 */
    PerfOp o = eval("aten::addmm", "[[1536],[2048,512],[512,1536],[],[]]",
                    "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL,
                    "[[1],[512,1],[1,512],[],[]]");
    assert_float_equal(o.flops, 3221225472.0, 0);
    assert_float_equal(o.bytes, 19929088.0, 0);
    assert_string_equal(o.dtype, "fp32");
    /* A is row-major, B's strides [1,512] make it transposed */
    assert_string_equal(o.shape, "M=2048 N=1536 K=512 B^T");
}

static void gemm_bmm_batch_and_transposed_a(void** state) {
    (void)state;
    /* climate: bmm [32,512,512] x [32,512,64] bf16, A strides [262144,1,512] (A^T).
     * FLOPs 2*32*512*64*512 = 1073741824; bytes 2*(32*512*512 + 32*512*64 + 32*512*64)
     * = 2*(8388608 + 1048576 + 1048576) = 20971520 */
    PerfOp o = eval("aten::bmm", "[[32,512,512],[32,512,64]]",
                    "[\"c10::BFloat16\",\"c10::BFloat16\"]", NULL,
                    "[[262144,1,512],[32768,64,1]]");
    assert_float_equal(o.flops, 1073741824.0, 0);
    assert_float_equal(o.bytes, 20971520.0, 0);
    assert_string_equal(o.shape, "B=32 M=512 N=64 K=512 A^T");
    /* batch sizes that differ: no model */
    PerfOp bad;
    assert_int_equal(PerfModel_eval("aten::bmm", "[[2,4,8],[3,8,4]]",
                                    "[\"float\",\"float\"]", NULL, NULL, &bad), 0);
    assert_int_equal(bad.kind, PERF_NONE);
}

static void gemm_baddbmm(void** state) {
    (void)state;
    /* baddbmm(C[4,16,16], A[4,16,8], B[4,8,16]) fp16: FLOPs 2*4*16*16*8 = 16384;
     * bytes 2*(1024 + 512 + 512 + 1024) = 6144 */
    PerfOp o = eval("aten::baddbmm", "[[4,16,16],[4,16,8],[4,8,16],[],[]]",
                    "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"]", NULL,
                    NULL);
    assert_float_equal(o.flops, 16384.0, 0);
    assert_float_equal(o.bytes, 6144.0, 0);
    assert_string_equal(o.dtype, "fp16");
}

static void gemm_matmul_broadcasting(void** state) {
    (void)state;
    /* matmul [4,8,512,64] x [8,64,512] (fp32): batch broadcasts to 4*8 = 32,
     * FLOPs 2*32*512*512*64 = 1073741824; bytes 4*(1048576 + 262144 + 32*512*512) */
    PerfOp o = eval("aten::matmul", "[[4,8,512,64],[8,64,512]]", "[\"float\",\"float\"]", NULL,
                    NULL);
    assert_float_equal(o.flops, 1073741824.0, 0);
    assert_float_equal(o.bytes, 4.0 * (1048576 + 262144 + 8388608), 0);
    assert_string_equal(o.shape, "B=32 M=512 N=512 K=64");
    /* [1,32,1] x [1,1,559] (Qwen rotary): an outer product, K=1, batch 1:
     * FLOPs 2*32*559*1 = 35776 */
    o = eval("aten::matmul", "[[1,32,1],[1,1,559]]", "[\"float\",\"float\"]", NULL, NULL);
    assert_float_equal(o.flops, 35776.0, 0);
    /* a 1-D vector on the right: [3,5] x [5] -> M=3 N=1 K=5 */
    o = eval("aten::matmul", "[[3,5],[5]]", "[\"float\",\"float\"]", NULL, NULL);
    assert_float_equal(o.flops, 30.0, 0);
    /* batch dims that cannot broadcast (3 vs 2): no model */
    PerfOp bad;
    assert_int_equal(PerfModel_eval("aten::matmul", "[[3,4,5],[2,5,6]]",
                                    "[\"float\",\"float\"]", NULL, NULL, &bad), 0);
    /* K mismatch */
    assert_int_equal(PerfModel_eval("aten::mm", "[[4,5],[6,7]]", "[\"float\",\"float\"]", NULL,
                                    NULL, &bad), 0);
}

static void gemm_linear(void** state) {
    (void)state;
    /* linear(x[4,512,512], W[1536,512], b[1536]) fp32: M = 2048, N 1536, K 512 */
    PerfOp o = eval("aten::linear", "[[4,512,512],[1536,512],[1536]]",
                    "[\"float\",\"float\",\"float\"]", NULL, NULL);
    assert_float_equal(o.flops, 2.0 * 2048 * 1536 * 512, 0);
    assert_float_equal(o.bytes, 4.0 * (1048576 + 786432 + 1536 + 2048 * 1536), 0);
}

static void gemm_scaled_mm_fp8(void** state) {
    (void)state;
    /* _scaled_mm(A fp8 [64,128], B fp8 [128,32], scales, out_dtype=15 (bf16)):
     * FLOPs 2*64*32*128 = 524288; bytes 64*128 + 128*32 + 4 + 4 (scales not counted: only
     * operands) -> A 8192 + B 4096 + out 64*32*2 = 4096 -> 16384 */
    PerfOp o = eval("aten::_scaled_mm", "[[64,128],[128,32],[],[],[],[],[],[]]",
                    "[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\",\"\","
                    "\"\",\"Scalar\",\"Scalar\"]",
                    "[\"\",\"\",\"\",\"\",\"\",\"\",\"15\",\"False\"]", NULL);
    assert_float_equal(o.flops, 524288.0, 0);
    assert_float_equal(o.bytes, 16384.0, 0);
    assert_string_equal(o.dtype, "fp8");
    assert_int_equal(PerfModel_dtypeSize("c10::Float8_e5m2fnuz", NULL), 1);
}

static void conv_forward_stride_padding(void** state) {
    (void)state;
    /* climate patch embedding: cudnn_convolution in [4,72,64,128] w [512,72,4,4],
     * padding 0, stride 4: out 16x32. FLOPs 2*4*512*(16*32)*72*16 = 2415919104.
     * bytes 2*(4*72*64*128 + 512*72*16 + 4*512*16*32) = 2*(2359296 + 589824 + 1048576) */
    PerfOp o = eval("aten::cudnn_convolution", "[[4,72,64,128],[512,72,4,4],[],[],[],[],[],[],[]]",
                    "[\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"ScalarList\","
                    "\"ScalarList\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
                    "[\"\",\"\",\"[0, 0]\",\"[4, 4]\",\"[1, 1]\",\"1\",\"False\",\"False\","
                    "\"True\"]",
                    NULL);
    assert_int_equal(o.kind, PERF_CONV);
    assert_float_equal(o.flops, 2415919104.0, 0);
    assert_float_equal(o.bytes, 2.0 * (2359296 + 589824 + 1048576), 0);
    /* aten::convolution, 3x3 padding 1 stride 1 (same size out), with bias, fp32:
     * in [1,3,8,8] w [16,3,3,3] -> out [1,16,8,8]: FLOPs 2*16*64*3*9 = 55296 */
    o = eval("aten::convolution", "[[1,3,8,8],[16,3,3,3],[16],[],[],[],[],[],[]]",
             "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
             "\"Scalar\",\"ScalarList\",\"Scalar\"]",
             "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]", NULL);
    assert_float_equal(o.flops, 55296.0, 0);
    assert_float_equal(o.bytes, 4.0 * (192 + 432 + 16 + 1024), 0);
}

static void conv_groups_and_transposed(void** state) {
    (void)state;
    /* depthwise: groups 32, in [2,32,10,10] w [32,1,3,3], stride 1, pad 0 -> out 8x8:
     * FLOPs 2*2*32*64*1*9 = 73728 */
    PerfOp o = eval("aten::convolution", "[[2,32,10,10],[32,1,3,3],[],[],[],[],[],[],[]]",
                    "[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
                    "\"Scalar\",\"ScalarList\",\"Scalar\"]",
                    "[\"\",\"\",\"\",\"[1]\",\"[0]\",\"[1]\",\"False\",\"[0]\",\"32\"]", NULL);
    assert_float_equal(o.flops, 73728.0, 0);
    assert_string_equal(o.shape, "in=2x32x10x10 w=32x1x3x3 s=1 g=32");
    /* groups 2: in [1,8,4,4] w [6,4,1,1] -> out [1,6,4,4]: FLOPs 2*6*16*4*1 = 768 */
    o = eval("aten::convolution", "[[1,8,4,4],[6,4,1,1],[],[],[],[],[],[],[]]",
             "[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
             "\"Scalar\",\"ScalarList\",\"Scalar\"]",
             "[\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"2\"]", NULL);
    assert_float_equal(o.flops, 768.0, 0);
    /* groups that do not divide the channels: no model */
    PerfOp bad;
    assert_int_equal(PerfModel_eval("aten::convolution",
                                    "[[1,8,4,4],[6,3,1,1],[],[],[],[],[],[],[]]",
                                    "[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\","
                                    "\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"]",
                                    "[\"\",\"\",\"\",\"[1]\",\"[0]\",\"[1]\",\"False\",\"[0]\","
                                    "\"2\"]",
                                    NULL, &bad),
                     0);
    /* transposed: in [1,4,5,5] w [4,2,3,3] stride 2: each input element feeds 2*9 outputs:
     * FLOPs 2*1*4*25*2*9 = 3600; out spatial (5-1)*2+3 = 11 */
    o = eval("aten::convolution", "[[1,4,5,5],[4,2,3,3],[],[],[],[],[],[],[]]",
             "[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
             "\"Scalar\",\"ScalarList\",\"Scalar\"]",
             "[\"\",\"\",\"\",\"[2, 2]\",\"[0, 0]\",\"[1, 1]\",\"True\",\"[0, 0]\",\"1\"]", NULL);
    assert_float_equal(o.flops, 3600.0, 0);
    assert_float_equal(o.bytes, 4.0 * (100 + 72 + 2 * 121), 0);
}

static void conv_backward_mask(void** state) {
    (void)state;
    /* climate: convolution_backward, output_mask [False, True, True]: only grad_weight,
     * so one forward's FLOPs (2415919104, see above) */
    const char* dims = "[[4,512,16,32],[4,72,64,128],[512,72,4,4],[],[],[],[],[],[],[],[]]";
    const char* types = "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\","
                        "\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\","
                        "\"Scalar\",\"ScalarList\"]";
    PerfOp o = eval("aten::convolution_backward", dims, types,
                    "[\"\",\"\",\"\",\"[512]\",\"[4, 4]\",\"[0, 0]\",\"[1, 1]\",\"False\","
                    "\"[0, 0]\",\"1\",\"[False, True, True]\"]",
                    NULL);
    assert_float_equal(o.flops, 2415919104.0, 0);
    o = eval("aten::convolution_backward", dims, types,
             "[\"\",\"\",\"\",\"[512]\",\"[4, 4]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\","
             "\"1\",\"[True, True, True]\"]",
             NULL);
    assert_float_equal(o.flops, 2.0 * 2415919104.0, 0);
}

static void attention_causal_and_layouts(void** state) {
    (void)state;
    /* Qwen: sdpa q,k,v [16,16,559,64] bf16, is_causal True (argument 5):
     * 4*16*16*559*559*64 = 20478754816,
     * halved: 10239377408 */
    const char* bhsd = "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[],[],[],[],[]]";
    const char* t8 = "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"Scalar\","
                     "\"Scalar\",\"Scalar\",\"Scalar\"]";
    PerfOp o = eval("aten::scaled_dot_product_attention", bhsd, t8,
                    "[\"\",\"\",\"\",\"\",\"0.\",\"True\",\"0.125\",\"False\"]", NULL);
    assert_int_equal(o.kind, PERF_ATTENTION);
    assert_float_equal(o.flops, 10239377408.0, 0);
    /* bytes: q k v read + o written = 4 * 16*16*559*64 * 2 = 73269248 */
    assert_float_equal(o.bytes, 73269248.0, 0);
    assert_string_equal(o.shape, "B=16 H=16 Sq=559 Sk=559 D=64 causal");
    PerfOp full = eval("aten::scaled_dot_product_attention", bhsd, t8,
                       "[\"\",\"\",\"\",\"\",\"0.\",\"False\",\"0.125\",\"False\"]", NULL);
    assert_float_equal(full.flops, 2 * o.flops, 0);
    /* _flash_attention_forward takes [B,S,H,D]: same op, same FLOPs (is_causal at 8) */
    o = eval("aten::_flash_attention_forward",
             "[[16,559,16,64],[16,559,16,64],[16,559,16,64],[],[],[],[],[],[],[],[],[],[],[],[]]",
             "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"\",\"Scalar\","
             "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"\",\"\",\"\"]",
             "[\"\",\"\",\"\",\"\",\"\",\"559\",\"559\",\"0.\",\"True\",\"False\",\"0.125\",\"\","
             "\"\",\"\",\"\"]",
             NULL);
    assert_float_equal(o.flops, 10239377408.0, 0);
    /* cross attention Sq != Sk, not causal: 4*2*8*128*1024*64 = 536870912 */
    o = eval("aten::_scaled_dot_product_flash_attention",
             "[[2,8,128,64],[2,8,1024,64],[2,8,1024,64],[],[],[],[]]",
             "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\",\"Scalar\","
             "\"Scalar\"]",
             "[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"\"]", NULL);
    assert_float_equal(o.flops, 536870912.0, 0);
}

static void attention_backward(void** state) {
    (void)state;
    /* backward = 2.5x forward: flash backward (grad_out, q, k, v, out, lse, ...) with
     * is_causal at 11: forward causal 4*1*2*64*64*32/2 = 524288 -> 1310720 */
    PerfOp o = eval("aten::_scaled_dot_product_flash_attention_backward",
                    "[[1,2,64,32],[1,2,64,32],[1,2,64,32],[1,2,64,32],[1,2,64,32],[1,2,64],[],[],"
                    "[],[],[],[],[],[],[]]",
                    "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
                    "\"c10::BFloat16\",\"float\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\","
                    "\"Scalar\",\"\",\"\",\"Scalar\"]",
                    "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"64\",\"64\",\"0.\",\"True\",\"\","
                    "\"\",\"\"]",
                    NULL);
    assert_float_equal(o.flops, 1310720.0, 0);
    /* bytes 2x the forward's q k v o: 2 * 4 * 4096 * 2 = 65536 */
    assert_float_equal(o.bytes, 65536.0, 0);
}

static void memory_ops(void** state) {
    (void)state;
    /* broadcasting: add [16,559,1024] + [16,559,1] fp32 -> out [16,559,1024]:
     * bytes 4*(9158656 + 8944) + 4*9158656; FLOPs 9158656 */
    PerfOp o = eval("aten::add", "[[16,559,1024],[16,559,1],[]]",
                    "[\"float\",\"float\",\"Scalar\"]", NULL, NULL);
    assert_int_equal(o.kind, PERF_MEMORY);
    assert_float_equal(o.flops, 9158656.0, 0);
    assert_float_equal(o.bytes, 4.0 * (9158656 + 8944 + 9158656), 0);
    /* broadcasting both ways: [4,1] * [1,5] -> [4,5] (20 out) */
    o = eval("aten::mul", "[[4,1],[1,5]]", "[\"float\",\"float\"]", NULL, NULL);
    assert_float_equal(o.flops, 20.0, 0);
    assert_float_equal(o.bytes, 4.0 * (4 + 5 + 20), 0);
    /* a 0-d operand (a wrapped Python number, type double) is passed by value: not read */
    o = eval("aten::mul", "[[1,559,64],[]]", "[\"float\",\"double\"]", NULL, NULL);
    assert_float_equal(o.bytes, 4.0 * 2 * 35776, 0);
    /* in place: add_ writes its first input */
    o = eval("aten::add_", "[[3,4],[3,4],[]]", "[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]",
             NULL, NULL);
    assert_float_equal(o.bytes, 2.0 * 36, 0);
    /* copy_ with a dtype change: bf16 dst [4,69,64,128], fp32 src: 2260992 elements */
    o = eval("aten::copy_", "[[4,69,64,128],[4,69,64,128],[]]",
             "[\"c10::BFloat16\",\"float\",\"Scalar\"]", NULL, NULL);
    assert_float_equal(o.bytes, 2260992.0 * (2 + 4), 0);
    assert_float_equal(o.flops, 0, 0);
    /* fill_: written only */
    o = eval("aten::fill_", "[[1],[]]", "[\"int\",\"Scalar\"]", NULL, NULL);
    assert_float_equal(o.bytes, 4.0, 0);
    /* reduce: mean over the last dim of [16,559,1024] keepdim -> 8944 out */
    o = eval("aten::mean", "[[16,559,1024],[],[],[]]",
             "[\"float\",\"ScalarList\",\"Scalar\",\"\"]",
             "[\"\",\"[-1]\",\"True\",\"\"]", NULL);
    assert_float_equal(o.bytes, 4.0 * (9158656 + 8944), 0);
    assert_float_equal(o.flops, 9158656.0, 0);
    /* sum over dim 0 of [2048,1104] bf16 -> 1104 out */
    o = eval("aten::sum", "[[2048,1104],[],[],[]]",
             "[\"c10::BFloat16\",\"ScalarList\",\"Scalar\",\"\"]",
             "[\"\",\"[0]\",\"True\",\"\"]", NULL);
    assert_float_equal(o.bytes, 2.0 * (2048 * 1104 + 1104), 0);
    /* layer norm: x [4,512,512] + weight + bias read, y written; 5 FLOPs per element */
    o = eval("aten::native_layer_norm", "[[4,512,512],[],[512],[512],[]]",
             "[\"float\",\"ScalarList\",\"float\",\"float\",\"Scalar\"]", NULL, NULL);
    assert_float_equal(o.bytes, 4.0 * (1048576 + 512 + 512 + 1048576), 0);
    assert_float_equal(o.flops, 5.0 * 1048576, 0);
}

static void no_model_or_bad_input(void** state) {
    (void)state;
    PerfOp o;
    assert_int_equal(PerfModel_eval("aten::view", "[[16,559],[]]", "[\"long int\",\"ScalarList\"]",
                                    NULL, NULL, &o), 0);
    assert_int_equal(PerfModel_eval("aten::mm", NULL, NULL, NULL, NULL, &o), 0);
    assert_int_equal(PerfModel_eval("aten::mm", "[[2,3],[3", "[\"float\",\"float\"]", NULL, NULL,
                                    &o), 0);
    assert_int_equal(PerfModel_eval("aten::mm", "[[2,3],[3,4]]", "[\"float\"", NULL, NULL, &o), 0);
    assert_int_equal(PerfModel_eval("aten::mm", "[[2,-3],[3,4]]", "[\"float\",\"float\"]", NULL,
                                    NULL, &o), 0);
    assert_int_equal(PerfModel_eval("aten::mm", "[[2,3],[3,4]]", "[\"Scalar\",\"float\"]", NULL,
                                    NULL, &o), 0);
    assert_int_equal(o.kind, PERF_NONE);
    /* a TensorList (cat) is not a plain tensor: no model */
    assert_int_equal(PerfModel_eval("aten::add", "[[[1,2],[1,2]],[]]",
                                    "[\"TensorList\",\"Scalar\"]", NULL, NULL, &o), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_mm_qwen),
        cmocka_unit_test(gemm_addmm_bias),
        cmocka_unit_test(gemm_bmm_batch_and_transposed_a),
        cmocka_unit_test(gemm_baddbmm),
        cmocka_unit_test(gemm_matmul_broadcasting),
        cmocka_unit_test(gemm_linear),
        cmocka_unit_test(gemm_scaled_mm_fp8),
        cmocka_unit_test(conv_forward_stride_padding),
        cmocka_unit_test(conv_groups_and_transposed),
        cmocka_unit_test(conv_backward_mask),
        cmocka_unit_test(attention_causal_and_layouts),
        cmocka_unit_test(attention_backward),
        cmocka_unit_test(memory_ops),
        cmocka_unit_test(no_model_or_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
