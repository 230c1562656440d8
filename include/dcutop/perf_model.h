/* perf_model.h - FLOPs and bytes of one aten op from its recorded shapes (PyTorch
 * record_shapes=True: the cpu_op args "Input Dims", "Input type", "Concrete Inputs",
 * "Input Strides", stored as JSON text in cpu_op). One table of models, keyed by op name:
 *
 *   gemm       aten::mm, addmm, bmm, baddbmm, _scaled_mm (fp8), and matmul / linear when
 *              they are the op that launched the kernel (no child op carries the shapes):
 *              FLOPs = 2*M*N*K*batch; bytes = A + B (+ bias/C) read, output written.
 *              Batch dims broadcast (matmul); strides only mark a transposed operand.
 *   conv       aten::convolution, _convolution, cudnn_convolution, miopen_convolution (the
 *              kernel links to the innermost op only, so a convolution counts once):
 *              FLOPs = 2*N*Cout*prod(out spatial)*(Cin/groups)*prod(kernel);
 *              convolution_backward = 2x forward (grad input + grad weight).
 *   attention  scaled_dot_product_attention and the flash / efficient / cudnn variants:
 *              FLOPs = 2*B*H*Sq*Sk*(D+Dv) (= 4*B*H*Sq*Sk*D), halved when causal;
 *              backward variants = 2.5x forward (two GEMMs forward, five backward).
 *   memory     elementwise, copy, fill, cat, norm, softmax, reduce: bytes = tensors read
 *              + output written; FLOPs 1 per output element for arithmetic, 1 per input
 *              element for reductions, 5 per element for norm and softmax, 0 for copies.
 *
 * Bytes count each operand once at its element size: the floor a kernel must move, not
 * what it does (caches, re-reads). No model: the op is left out of efficiency figures. */
#ifndef DCUTOP_PERF_MODEL_H
#define DCUTOP_PERF_MODEL_H

typedef enum { PERF_NONE = 0, PERF_GEMM, PERF_CONV, PERF_ATTENTION, PERF_MEMORY } PerfKind;

typedef struct PerfOp_ {
    PerfKind kind;
    double flops;     /* floating-point operations of one call */
    double bytes;     /* bytes read + written by one call (the model's floor) */
    char dtype[12];   /* compute type: "bf16", "fp16", "fp32", "fp64", "fp8", "int64", ... */
    char shape[96];   /* grouping key: "M=8944 N=1024 K=1024" (gemm), dims list otherwise */
} PerfOp;

/* Evaluates the model of op `name` on its recorded shapes (JSON text as stored in cpu_op;
 * types, concrete and strides may be NULL). Returns 1 with *out filled when a model applies
 * and the shapes fit it, 0 otherwise (no model, or shapes missing or malformed: *out is
 * then zeroed, kind PERF_NONE). Never reads past the strings; any input is safe. */
int PerfModel_eval(const char* name, const char* dims, const char* types,
                   const char* concrete, const char* strides, PerfOp* out);

/* "gemm", "conv", "attention", "memory", "" */
const char* PerfModel_kindName(PerfKind k);

/* Element size in bytes of a PyTorch type name as Kineto writes it ("c10::BFloat16",
 * "float", "c10::Float8_e4m3fn", "long int"); 0 when it is not a tensor type. *short_name
 * (may be NULL) gets "bf16", "fp32", "fp8", ... */
int PerfModel_dtypeSize(const char* type, const char** short_name);

#endif
