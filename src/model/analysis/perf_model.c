/* perf_model.c - per-op performance models over recorded shapes (see perf_model.h).
 * The shapes arrive as the JSON text the loader stored; a small parser reads the three
 * forms Kineto writes: dims [[8944,1024],[],[[1,2],[3,4]]], types ["float","Scalar"] and
 * concrete inputs ["","[4, 4]","1","False"]. Anything else fails the model, never the op. */
#include "dcutop/perf_model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

#define MAX_IN 24  /* inputs looked at (aten ops have at most about 20) */
#define MAX_DIM 8  /* tensor rank looked at */
#define MAX_TEXT 48

typedef struct Tensor_ {
    int nd;             /* -1: not a plain dims list (a TensorList, or absent) */
    int64_t d[MAX_DIM];
} Tensor;

typedef struct Shapes_ {
    int n, ntypes, nconc, nstrides;
    Tensor dims[MAX_IN];
    Tensor strides[MAX_IN];
    char type[MAX_IN][MAX_TEXT];
    char conc[MAX_IN][MAX_TEXT];
} Shapes;

/* ---- parsing ----------------------------------------------------------------------- */

static const char* ws(const char* p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
        p++;
    }
    return p;
}

/* One element of a dims list: [] / [1,2,3] / [[1,2],[3]] (a list: nd = -1). */
static const char* parse_tensor(const char* p, Tensor* t) {
    t->nd = 0;
    p = ws(p);
    if (*p != '[') {
        return NULL;
    }
    p = ws(p + 1);
    if (*p == ']') {
        return p + 1;
    }
    for (;;) {
        p = ws(p);
        if (*p == '[') { /* a TensorList: skip the nested lists */
            Tensor inner;
            p = parse_tensor(p, &inner);
            if (!p) {
                return NULL;
            }
            t->nd = -1;
        } else {
            char* end;
            long long v = strtoll(p, &end, 10);
            if (end == p || v < 0) {
                return NULL;
            }
            p = end;
            if (t->nd >= 0) {
                if (t->nd >= MAX_DIM) {
                    return NULL;
                }
                t->d[t->nd++] = v;
            }
        }
        p = ws(p);
        if (*p == ',') {
            p++;
        } else if (*p == ']') {
            return p + 1;
        } else {
            return NULL;
        }
    }
}

static int parse_dims(const char* s, Tensor* out, int* n) {
    *n = 0;
    if (!s) {
        return 0;
    }
    const char* p = ws(s);
    if (*p != '[') {
        return 0;
    }
    p = ws(p + 1);
    if (*p == ']') {
        return 1;
    }
    for (;;) {
        Tensor t;
        p = parse_tensor(p, &t);
        if (!p) {
            return 0;
        }
        if (*n < MAX_IN) {
            out[(*n)++] = t;
        }
        p = ws(p);
        if (*p == ',') {
            p++;
        } else {
            return *p == ']';
        }
    }
}

/* ["a","b"] -> out[i] (truncated to MAX_TEXT-1); 0 when not such an array. */
static int parse_strings(const char* s, char out[][MAX_TEXT], int* n) {
    *n = 0;
    if (!s) {
        return 0;
    }
    const char* p = ws(s);
    if (*p != '[') {
        return 0;
    }
    p = ws(p + 1);
    if (*p == ']') {
        return 1;
    }
    for (;;) {
        p = ws(p);
        if (*p != '"') {
            return 0;
        }
        p++;
        char buf[MAX_TEXT];
        size_t k = 0;
        while (*p && *p != '"') {
            if (*p == '\\' && p[1]) {
                p++;
            }
            if (k + 1 < sizeof(buf)) {
                buf[k++] = *p;
            }
            p++;
        }
        if (*p != '"') {
            return 0;
        }
        buf[k] = '\0';
        if (*n < MAX_IN) {
            memcpy(out[(*n)++], buf, k + 1);
        }
        p = ws(p + 1);
        if (*p == ',') {
            p++;
        } else {
            return *p == ']';
        }
    }
}

/* Concrete input i as integers: "4" -> {4}, "[4, 4]" -> {4, 4}. Returns the count (0 when
 * absent or not integers). */
static int conc_ints(const Shapes* s, int i, int64_t* v, int max) {
    if (i >= s->nconc) {
        return 0;
    }
    const char* p = ws(s->conc[i]);
    int n = 0;
    if (*p == '[') {
        p++;
    }
    while (*p && n < max) {
        p = ws(p);
        char* end;
        long long x = strtoll(p, &end, 10);
        if (end == p) {
            break;
        }
        v[n++] = x;
        p = ws(end);
        if (*p == ',') {
            p++;
        }
    }
    return n;
}

static int conc_true(const Shapes* s, int i) {
    return i < s->nconc && (strcmp(s->conc[i], "True") == 0 || strcmp(s->conc[i], "true") == 0);
}

/* ---- types ------------------------------------------------------------------------- */

static const struct {
    const char* type;
    int size;
    const char* name;
} dtypes[] = {
    {"float", 4, "fp32"},           {"double", 8, "fp64"},
    {"c10::Half", 2, "fp16"},       {"c10::BFloat16", 2, "bf16"},
    {"c10::Float8_e4m3fn", 1, "fp8"}, {"c10::Float8_e5m2", 1, "fp8"},
    {"c10::Float8_e4m3fnuz", 1, "fp8"}, {"c10::Float8_e5m2fnuz", 1, "fp8"},
    {"long int", 8, "int64"},       {"int", 4, "int32"},
    {"short int", 2, "int16"},      {"signed char", 1, "int8"},
    {"unsigned char", 1, "uint8"},  {"bool", 1, "bool"},
    {"c10::complex<float>", 8, "c64"},
};

/* at::ScalarType codes, as Concrete Inputs give a dtype argument ("15" = BFloat16) */
static const struct {
    int code;
    int size;
    const char* name;
} scalar_types[] = {
    {0, 1, "uint8"}, {1, 1, "int8"},  {2, 2, "int16"}, {3, 4, "int32"}, {4, 8, "int64"},
    {5, 2, "fp16"},  {6, 4, "fp32"},  {7, 8, "fp64"},  {11, 1, "bool"}, {15, 2, "bf16"},
    {23, 1, "fp8"},  {24, 1, "fp8"},  {25, 1, "fp8"},  {26, 1, "fp8"},
};

int PerfModel_dtypeSize(const char* type, const char** short_name) {
    for (size_t i = 0; type && i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
        if (strcmp(type, dtypes[i].type) == 0) {
            if (short_name) {
                *short_name = dtypes[i].name;
            }
            return dtypes[i].size;
        }
    }
    return 0;
}

const char* PerfModel_kindName(PerfKind k) {
    static const char* const names[] = {"", "gemm", "conv", "attention", "memory"};
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "";
}

/* Input i is a tensor with plain dims: its element size, else 0. */
static int tsize(const Shapes* s, int i) {
    if (i >= s->n || i >= s->ntypes || s->dims[i].nd < 0) {
        return 0;
    }
    return PerfModel_dtypeSize(s->type[i], NULL);
}

static double numel(const Tensor* t) {
    double n = 1;
    for (int i = 0; i < t->nd; i++) {
        n *= (double)t->d[i];
    }
    return n;
}

/* Bytes of input i; a 0-d tensor is a scalar handed over by value (PyTorch wraps Python
 * numbers so), not memory the kernel streams. */
static double tbytes(const Shapes* s, int i) {
    int sz = tsize(s, i);
    return sz && s->dims[i].nd > 0 ? numel(&s->dims[i]) * sz : 0;
}

static void set_dtype(PerfOp* o, const Shapes* s, int i) {
    const char* n = "";
    if (i < s->ntypes) {
        PerfModel_dtypeSize(s->type[i], &n);
    }
    snprintf(o->dtype, sizeof(o->dtype), "%s", n);
}

/* Operand i is stored transposed (its last two dims swapped in memory). */
static int transposed(const Shapes* s, int i) {
    if (i >= s->nstrides || s->strides[i].nd < 2 || s->strides[i].nd != s->dims[i].nd) {
        return 0;
    }
    const Tensor* st = &s->strides[i];
    const Tensor* d = &s->dims[i];
    return st->d[st->nd - 1] != 1 && st->d[st->nd - 2] == 1 && d->d[d->nd - 1] > 1;
}

/* ---- models ------------------------------------------------------------------------ */

typedef struct Model_ Model;
typedef int (*ModelFn)(const Model* m, const Shapes* s, PerfOp* o);
struct Model_ {
    const char* name; /* op name without "aten::" */
    PerfKind kind;
    ModelFn fn;
    int a, b, c, d;   /* per-model parameters, see each function */
};

/* GEMM with operands at a (A) and b (B), an added tensor at c (-1: none); d: 1 batched
 * (bmm/baddbmm: rank 3), 0 plain (rank 2), 2 matmul (broadcast, 1-D operands). */
static int gemm(const Model* m, const Shapes* s, PerfOp* o) {
    int ia = m->a, ib = m->b;
    if (!tsize(s, ia) || !tsize(s, ib)) {
        return 0;
    }
    const Tensor* A = &s->dims[ia];
    const Tensor* B = &s->dims[ib];
    double M, N, K, K2, batch = 1;
    if (m->d == 2) { /* matmul: [..,M,K] x [..,K,N], 1-D operands and broadcast batch dims */
        if (A->nd < 1 || B->nd < 1) {
            return 0;
        }
        M = A->nd == 1 ? 1 : (double)A->d[A->nd - 2];
        K = (double)A->d[A->nd - 1];
        K2 = B->nd == 1 ? (double)B->d[0] : (double)B->d[B->nd - 2];
        N = B->nd == 1 ? 1 : (double)B->d[B->nd - 1];
        int ba = A->nd > 2 ? A->nd - 2 : 0, bb = B->nd > 2 ? B->nd - 2 : 0;
        int nb = ba > bb ? ba : bb;
        for (int i = 0; i < nb; i++) { /* right-aligned broadcasting */
            int64_t x = i < ba ? A->d[ba - 1 - i] : 1, y = i < bb ? B->d[bb - 1 - i] : 1;
            if (x != y && x != 1 && y != 1) {
                return 0;
            }
            batch *= (double)(x > y ? x : y);
        }
    } else {
        int rank = m->d ? 3 : 2;
        if (A->nd != rank || B->nd != rank) {
            return 0;
        }
        if (m->d && A->d[0] != B->d[0]) {
            return 0;
        }
        batch = m->d ? (double)A->d[0] : 1;
        M = (double)A->d[rank - 2];
        K = (double)A->d[rank - 1];
        K2 = (double)B->d[rank - 2];
        N = (double)B->d[rank - 1];
    }
    if (K != K2) {
        return 0;
    }
    int out_size = tsize(s, ia);
    set_dtype(o, s, ia);
    if (strcmp(m->name, "_scaled_mm") == 0) { /* out_dtype (argument 6), else bf16 like A's scale */
        int64_t code;
        out_size = 2;
        if (conc_ints(s, 6, &code, 1) == 1) {
            for (size_t i = 0; i < sizeof(scalar_types) / sizeof(scalar_types[0]); i++) {
                if (scalar_types[i].code == code) {
                    out_size = scalar_types[i].size;
                }
            }
        }
    }
    o->flops = 2.0 * M * N * K * batch;
    o->bytes = tbytes(s, ia) + tbytes(s, ib) + (m->c >= 0 ? tbytes(s, m->c) : 0) +
               M * N * batch * out_size;
    char b[24] = "";
    if (batch != 1) {
        snprintf(b, sizeof(b), "B=%.0f ", batch);
    }
    snprintf(o->shape, sizeof(o->shape), "%sM=%.0f N=%.0f K=%.0f%s%s", b, M, N, K,
             transposed(s, ia) ? " A^T" : "", transposed(s, ib) ? " B^T" : "");
    return 1;
}

/* linear(input [..,K], weight [N,K], bias [N]?): M = rows of input. */
static int linear(const Model* m, const Shapes* s, PerfOp* o) {
    (void)m;
    if (!tsize(s, 0) || !tsize(s, 1) || s->dims[0].nd < 1 || s->dims[1].nd != 2) {
        return 0;
    }
    const Tensor* X = &s->dims[0];
    double K = (double)X->d[X->nd - 1], N = (double)s->dims[1].d[0];
    if (K != (double)s->dims[1].d[1] || K <= 0) {
        return 0;
    }
    double M = numel(X) / K;
    o->flops = 2.0 * M * N * K;
    o->bytes = tbytes(s, 0) + tbytes(s, 1) + tbytes(s, 2) + M * N * tsize(s, 0);
    set_dtype(o, s, 0);
    snprintf(o->shape, sizeof(o->shape), "M=%.0f N=%.0f K=%.0f", M, N, K);
    return 1;
}

/* Spatial list argument (stride, padding, dilation): one value stands for every dim. */
static int64_t spatial(const int64_t* v, int n, int i, int64_t dflt) {
    return n == 0 ? dflt : n == 1 ? v[0] : i < n ? v[i] : dflt;
}

/* Convolution: input at 0 (or d for backward), weight after it; a = index of stride,
 * b = padding, c = dilation, and groups / transposed / backward by op (see table). */
typedef struct ConvArgs_ {
    int in, w, bias, stride, pad, dil, transp, groups, mask; /* -1: absent */
} ConvArgs;

static int conv_core(const Shapes* s, const ConvArgs* a, double* fwd, double* out_elems) {
    if (!tsize(s, a->in) || !tsize(s, a->w)) {
        return 0;
    }
    const Tensor* X = &s->dims[a->in];
    const Tensor* W = &s->dims[a->w];
    int sp = X->nd - 2;
    if (sp < 1 || W->nd != X->nd || sp > MAX_DIM - 2) {
        return 0;
    }
    int64_t st[MAX_DIM], pd[MAX_DIM], dl[MAX_DIM], g = 1;
    int nst = conc_ints(s, a->stride, st, MAX_DIM), npd = conc_ints(s, a->pad, pd, MAX_DIM),
        ndl = conc_ints(s, a->dil, dl, MAX_DIM);
    if (a->groups >= 0 && conc_ints(s, a->groups, &g, 1) != 1) {
        g = 1;
    }
    int tr = a->transp >= 0 && conc_true(s, a->transp);
    if (g < 1) {
        return 0;
    }
    double n = (double)X->d[0], cin = (double)X->d[1], taps = 1, in_sp = 1, out_sp = 1;
    for (int i = 0; i < sp; i++) {
        int64_t k = W->d[2 + i], in = X->d[2 + i];
        int64_t s_ = spatial(st, nst, i, 1), p = spatial(pd, npd, i, 0),
                d = spatial(dl, ndl, i, 1);
        int64_t o = tr ? (in - 1) * s_ - 2 * p + d * (k - 1) + 1
                       : (s_ > 0 ? (in + 2 * p - d * (k - 1) - 1) / s_ + 1 : 0);
        if (o <= 0) {
            return 0;
        }
        taps *= (double)k;
        in_sp *= (double)in;
        out_sp *= (double)o;
    }
    double cout;
    if (tr) { /* weight [Cin, Cout/groups, k..]: each input element feeds Cout/g * taps */
        cout = (double)W->d[1] * (double)g;
        *fwd = 2.0 * n * cin * in_sp * (double)W->d[1] * taps;
    } else { /* weight [Cout, Cin/groups, k..] */
        if ((double)W->d[1] * (double)g != cin) {
            return 0;
        }
        cout = (double)W->d[0];
        *fwd = 2.0 * n * cout * out_sp * (double)W->d[1] * taps;
    }
    *out_elems = n * cout * out_sp;
    return 1;
}

static void conv_shape(const Shapes* s, const ConvArgs* a, PerfOp* o) {
    const Tensor* X = &s->dims[a->in];
    const Tensor* W = &s->dims[a->w];
    int64_t st[MAX_DIM], g = 1;
    int nst = conc_ints(s, a->stride, st, MAX_DIM);
    if (a->groups >= 0) {
        conc_ints(s, a->groups, &g, 1);
    }
    char x[40] = "", w[40] = "";
    for (int i = 0; i < X->nd && strlen(x) < 30; i++) {
        snprintf(x + strlen(x), sizeof(x) - strlen(x), "%s%lld", i ? "x" : "", (long long)X->d[i]);
    }
    for (int i = 0; i < W->nd && strlen(w) < 30; i++) {
        snprintf(w + strlen(w), sizeof(w) - strlen(w), "%s%lld", i ? "x" : "", (long long)W->d[i]);
    }
    snprintf(o->shape, sizeof(o->shape), "in=%s w=%s s=%lld g=%lld", x, w,
             (long long)spatial(st, nst, 0, 1), (long long)g);
}

static const ConvArgs conv_args[] = {
    /* 0 convolution / _convolution (input, weight, bias, stride, padding, dilation,
     *   transposed, output_padding, groups, ...) */
    {0, 1, 2, 3, 4, 5, 6, 8, -1},
    /* 1 cudnn_convolution (self, weight, padding, stride, dilation, groups, ...) */
    {0, 1, -1, 3, 2, 4, -1, 5, -1},
    /* 2 miopen_convolution (self, weight, bias, padding, stride, dilation, groups, ...) */
    {0, 1, 2, 4, 3, 5, -1, 6, -1},
    /* 3 convolution_backward (grad_output, input, weight, bias_sizes, stride, padding,
     *   dilation, transposed, output_padding, groups, output_mask) */
    {1, 2, -1, 4, 5, 6, 7, 9, 10},
};

/* a = row of conv_args */
static int conv(const Model* m, const Shapes* s, PerfOp* o) {
    const ConvArgs* a = &conv_args[m->a];
    double fwd, out_elems;
    if (!conv_core(s, a, &fwd, &out_elems)) {
        return 0;
    }
    int out_size = tsize(s, a->in);
    set_dtype(o, s, a->in);
    conv_shape(s, a, o);
    if (a->mask < 0) {
        o->flops = fwd;
        o->bytes = tbytes(s, a->in) + tbytes(s, a->w) + (a->bias >= 0 ? tbytes(s, a->bias) : 0) +
                   out_elems * out_size;
        return 1;
    }
    /* backward: grad_input and grad_weight each cost one forward; output_mask says which
     * were asked for ([grad_input, grad_weight, grad_bias]; absent: both) */
    int gi = 1, gw = 1;
    if (a->mask < s->nconc && s->conc[a->mask][0] == '[') {
        gi = strncmp(s->conc[a->mask] + 1, "True", 4) == 0;
        const char* c2 = strchr(s->conc[a->mask], ',');
        gw = c2 && strncmp(ws(c2 + 1), "True", 4) == 0;
    }
    o->flops = fwd * (gi + gw);
    o->bytes = tbytes(s, 0) + tbytes(s, a->in) + tbytes(s, a->w) + gi * tbytes(s, a->in) +
               gw * tbytes(s, a->w);
    return 1;
}

/* Attention: a = index of q (k, v follow), b = layout (0 [B,H,S,D], 1 [B,S,H,D]),
 * c = index of is_causal (a bool, or with d & 2 a mask type: nonzero = causal),
 * d & 1 = backward (2.5x forward FLOPs; bytes: q k v o dO read, dQ dK dV written). */
static int attention(const Model* m, const Shapes* s, PerfOp* o) {
    int q = m->a;
    if (!tsize(s, q) || !tsize(s, q + 1) || !tsize(s, q + 2)) {
        return 0;
    }
    const Tensor* Q = &s->dims[q];
    const Tensor* K = &s->dims[q + 1];
    const Tensor* V = &s->dims[q + 2];
    if (Q->nd != 4 || K->nd != 4 || V->nd != 4) {
        return 0;
    }
    int hs = m->b ? 2 : 1, ss = m->b ? 1 : 2;
    double B = (double)Q->d[0], H = (double)Q->d[hs], Sq = (double)Q->d[ss],
           Sk = (double)K->d[ss], D = (double)Q->d[3], Dv = (double)V->d[3];
    int causal;
    if (m->d & 2) {
        int64_t t = 0;
        causal = conc_ints(s, m->c, &t, 1) == 1 && t != 0;
    } else {
        causal = conc_true(s, m->c);
    }
    double fwd = 2.0 * B * H * Sq * Sk * (D + Dv) * (causal ? 0.5 : 1.0);
    double io = tbytes(s, q) + tbytes(s, q + 1) + tbytes(s, q + 2) +
                B * H * Sq * Dv * tsize(s, q); /* q k v read, o written */
    int bwd = m->d & 1;
    o->flops = bwd ? 2.5 * fwd : fwd;
    o->bytes = bwd ? 2.0 * io : io;
    set_dtype(o, s, q);
    snprintf(o->shape, sizeof(o->shape), "B=%.0f H=%.0f Sq=%.0f Sk=%.0f D=%.0f%s", B, H, Sq, Sk,
             D, causal ? " causal" : "");
    return 1;
}

/* Broadcast of the tensor inputs' dims (right-aligned); 0 when they do not broadcast. */
static int broadcast(const Shapes* s, Tensor* out) {
    out->nd = 0;
    for (int i = 0; i < s->n; i++) {
        if (!tsize(s, i)) {
            continue;
        }
        const Tensor* t = &s->dims[i];
        Tensor r;
        r.nd = t->nd > out->nd ? t->nd : out->nd;
        for (int k = 0; k < r.nd; k++) {
            int64_t x = k < t->nd ? t->d[t->nd - 1 - k] : 1;
            int64_t y = k < out->nd ? out->d[out->nd - 1 - k] : 1;
            if (x != y && x != 1 && y != 1) {
                return 0;
            }
            r.d[r.nd - 1 - k] = x == 1 ? y : x;
        }
        *out = r;
    }
    return 1;
}

static void dims_shape(const Shapes* s, PerfOp* o) {
    char* p = o->shape;
    size_t room = sizeof(o->shape);
    p[0] = '\0';
    for (int i = 0; i < s->n; i++) {
        if (!tsize(s, i)) {
            continue;
        }
        size_t len = strlen(p);
        if (len + 8 >= room) {
            break;
        }
        snprintf(p + len, room - len, "%s[", len ? " " : "");
        for (int k = 0; k < s->dims[i].nd; k++) {
            len = strlen(p);
            snprintf(p + len, room - len, "%s%lld", k ? "," : "", (long long)s->dims[i].d[k]);
        }
        len = strlen(p);
        snprintf(p + len, room - len, "]");
    }
}

/* Memory-bound ops. a: 0 elementwise (output = broadcast of the inputs; in-place when the
 * name ends in '_': input 0 is the output), 1 copy_ (src 1 read, dst 0 written), 2 fill
 * (input 0 written only), 3 reduce (dims in concrete input 1; none = all), 4 norm/softmax
 * (output the size of input 0). b: FLOPs per element (of the output; reduce: of the input). */
static int memory(const Model* m, const Shapes* s, PerfOp* o) {
    int first = -1;
    double read = 0;
    for (int i = 0; i < s->n; i++) {
        if (tsize(s, i)) {
            first = first < 0 ? i : first;
            read += tbytes(s, i);
        }
    }
    if (first < 0) {
        return 0;
    }
    double in0 = numel(&s->dims[first]);
    int sz = tsize(s, first);
    double out = 0;
    switch (m->a) {
    case 0: {
        Tensor b;
        if (!broadcast(s, &b)) {
            return 0;
        }
        out = numel(&b);
        size_t nl = strlen(m->name);
        o->bytes = read + (nl && m->name[nl - 1] == '_' ? in0 : out) * sz;
        o->flops = out * m->b;
        break;
    }
    case 1:
        if (!tsize(s, 1)) {
            return 0;
        }
        o->bytes = tbytes(s, 1) + tbytes(s, 0);
        o->flops = 0;
        break;
    case 2:
        o->bytes = tbytes(s, first);
        o->flops = 0;
        break;
    case 3: {
        int64_t dims[MAX_DIM];
        int nd = conc_ints(s, 1, dims, MAX_DIM);
        const Tensor* t = &s->dims[first];
        double red = nd ? 1 : in0;
        for (int i = 0; i < nd; i++) {
            int64_t d = dims[i] < 0 ? dims[i] + t->nd : dims[i];
            if (d < 0 || d >= t->nd) {
                return 0;
            }
            red *= (double)t->d[d];
        }
        out = red > 0 ? in0 / red : 0;
        o->bytes = tbytes(s, first) + out * sz;
        o->flops = in0 * m->b;
        break;
    }
    default:
        o->bytes = read + in0 * sz;
        o->flops = in0 * m->b;
        break;
    }
    set_dtype(o, s, first);
    dims_shape(s, o);
    return 1;
}

/* Ordered by kind; names without the "aten::" prefix. */
static const Model models[] = {
    {"mm", PERF_GEMM, gemm, 0, 1, -1, 0},
    {"addmm", PERF_GEMM, gemm, 1, 2, 0, 0},
    {"bmm", PERF_GEMM, gemm, 0, 1, -1, 1},
    {"baddbmm", PERF_GEMM, gemm, 1, 2, 0, 1},
    {"_scaled_mm", PERF_GEMM, gemm, 0, 1, -1, 0},
    {"matmul", PERF_GEMM, gemm, 0, 1, -1, 2},
    {"linear", PERF_GEMM, linear, 0, 0, 0, 0},
    {"convolution", PERF_CONV, conv, 0, 0, 0, 0},
    {"_convolution", PERF_CONV, conv, 0, 0, 0, 0},
    {"cudnn_convolution", PERF_CONV, conv, 1, 0, 0, 0},
    {"miopen_convolution", PERF_CONV, conv, 2, 0, 0, 0},
    {"convolution_backward", PERF_CONV, conv, 3, 0, 0, 0},
    {"scaled_dot_product_attention", PERF_ATTENTION, attention, 0, 0, 5, 0},
    {"_scaled_dot_product_flash_attention", PERF_ATTENTION, attention, 0, 0, 4, 0},
    {"_scaled_dot_product_efficient_attention", PERF_ATTENTION, attention, 0, 0, 6, 0},
    {"_scaled_dot_product_cudnn_attention", PERF_ATTENTION, attention, 0, 0, 6, 0},
    {"_flash_attention_forward", PERF_ATTENTION, attention, 0, 1, 8, 0},
    {"_efficient_attention_forward", PERF_ATTENTION, attention, 0, 1, 9, 2},
    {"_scaled_dot_product_flash_attention_backward", PERF_ATTENTION, attention, 1, 0, 11, 1},
    {"_scaled_dot_product_efficient_attention_backward", PERF_ATTENTION, attention, 1, 0, 11, 1},
    {"_scaled_dot_product_cudnn_attention_backward", PERF_ATTENTION, attention, 1, 0, 14, 1},
    {"_flash_attention_backward", PERF_ATTENTION, attention, 1, 1, 11, 1},
    {"_efficient_attention_backward", PERF_ATTENTION, attention, 1, 1, 14, 3},
    /* elementwise: 1 FLOP per output element for arithmetic, 0 for data movement */
    {"add", PERF_MEMORY, memory, 0, 1, 0, 0},      {"add_", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"sub", PERF_MEMORY, memory, 0, 1, 0, 0},      {"sub_", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"mul", PERF_MEMORY, memory, 0, 1, 0, 0},      {"mul_", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"div", PERF_MEMORY, memory, 0, 1, 0, 0},      {"div_", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"neg", PERF_MEMORY, memory, 0, 1, 0, 0},      {"pow", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"rsqrt", PERF_MEMORY, memory, 0, 1, 0, 0},    {"sqrt", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"exp", PERF_MEMORY, memory, 0, 1, 0, 0},      {"log", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"sin", PERF_MEMORY, memory, 0, 1, 0, 0},      {"cos", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"tanh", PERF_MEMORY, memory, 0, 1, 0, 0},     {"sigmoid", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"relu", PERF_MEMORY, memory, 0, 1, 0, 0},     {"relu_", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"silu", PERF_MEMORY, memory, 0, 1, 0, 0},     {"gelu", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"gelu_backward", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"silu_backward", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"threshold_backward", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"where", PERF_MEMORY, memory, 0, 1, 0, 0},    {"clamp", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"maximum", PERF_MEMORY, memory, 0, 1, 0, 0},  {"minimum", PERF_MEMORY, memory, 0, 1, 0, 0},
    {"addcmul_", PERF_MEMORY, memory, 0, 2, 0, 0}, {"addcdiv_", PERF_MEMORY, memory, 0, 2, 0, 0},
    {"lerp_", PERF_MEMORY, memory, 0, 2, 0, 0},
    {"copy_", PERF_MEMORY, memory, 1, 0, 0, 0},
    {"fill_", PERF_MEMORY, memory, 2, 0, 0, 0},    {"zero_", PERF_MEMORY, memory, 2, 0, 0, 0},
    {"roll", PERF_MEMORY, memory, 4, 0, 0, 0},
    {"sum", PERF_MEMORY, memory, 3, 1, 0, 0},      {"mean", PERF_MEMORY, memory, 3, 1, 0, 0},
    {"amax", PERF_MEMORY, memory, 3, 1, 0, 0},     {"amin", PERF_MEMORY, memory, 3, 1, 0, 0},
    {"softmax", PERF_MEMORY, memory, 4, 5, 0, 0},  {"_softmax", PERF_MEMORY, memory, 4, 5, 0, 0},
    {"log_softmax", PERF_MEMORY, memory, 4, 5, 0, 0},
    {"_log_softmax", PERF_MEMORY, memory, 4, 5, 0, 0},
    {"_softmax_backward_data", PERF_MEMORY, memory, 4, 5, 0, 0},
    {"native_layer_norm", PERF_MEMORY, memory, 4, 5, 0, 0},
    {"native_layer_norm_backward", PERF_MEMORY, memory, 4, 5, 0, 0},
    {"rms_norm", PERF_MEMORY, memory, 4, 5, 0, 0},
    {"_fused_rms_norm", PERF_MEMORY, memory, 4, 5, 0, 0},
};

int PerfModel_eval(const char* name, const char* dims, const char* types,
                   const char* concrete, const char* strides, PerfOp* out) {
    memset(out, 0, sizeof(*out));
    if (!name || !dims) {
        return 0;
    }
    const char* bare = strncmp(name, "aten::", 6) == 0 ? name + 6 : name;
    const Model* m = NULL;
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        if (strcmp(bare, models[i].name) == 0) {
            m = &models[i];
            break;
        }
    }
    if (!m) {
        return 0;
    }
    Shapes* s = xcalloc(1, sizeof(*s));
    int ok = parse_dims(dims, s->dims, &s->n) && parse_strings(types, s->type, &s->ntypes);
    if (ok && concrete) {
        parse_strings(concrete, s->conc, &s->nconc);
    }
    if (ok && strides && !parse_dims(strides, s->strides, &s->nstrides)) {
        s->nstrides = 0;
    }
    ok = ok && m->fn(m, s, out) && out->flops >= 0 && out->bytes > 0;
    free(s);
    if (!ok) {
        memset(out, 0, sizeof(*out));
        return 0;
    }
    out->kind = m->kind;
    return 1;
}
