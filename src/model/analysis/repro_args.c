/* repro_args.c - a recorded op call as the argument specs of the repro script (repro_args.h).
 * The recorded columns are JSON arrays with one entry per schema argument, in schema order
 * (keyword-only ones included): Input Dims (a size list per tensor, a list of size lists
 * per tensor list, [] for the rest), Input type (the dtype of a tensor, "TensorList",
 * "Scalar", "ScalarList", "" when not recorded), Input Strides like the dims, and Concrete
 * Inputs (scalars and scalar lists as Python-like text). */
#include "repro_args.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

/* ---- a small JSON reader for the four columns ----------------------------------------- */

typedef enum { JV_NUM, JV_STR, JV_ARR, JV_LIT } JvKind;

typedef struct Jv_ {
    JvKind kind;
    int is_int;       /* JV_NUM: no fraction or exponent, fits int64 */
    long long ival;   /* JV_NUM, is_int */
    double num;       /* JV_NUM */
    char lit;         /* JV_LIT: 't', 'f' or 'n' */
    char* str;        /* JV_STR: owned, unescaped (non-ASCII \u escapes as '?') */
    struct Jv_* items; /* JV_ARR: owned */
    int n;
} Jv;

enum { JV_MAX_DEPTH = 8, JV_MAX_ITEMS = 4096 };

static void jv_free(Jv* v) {
    if (!v) {
        return;
    }
    for (int i = 0; i < v->n; i++) {
        jv_free(&v->items[i]);
    }
    free(v->items);
    free(v->str);
}

static const char* jv_ws(const char* p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
        p++;
    }
    return p;
}

static const char* jv_parse(const char* p, Jv* v, int depth);

static const char* jv_string(const char* p, Jv* v) {
    size_t cap = 16, n = 0;
    char* s = xmalloc(cap);
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            if (!*p) {
                break;
            }
            c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
            if (*p == 'u') { /* only ASCII matters here; anything else stays opaque */
                unsigned code = 0;
                for (int i = 0; i < 4 && isxdigit((unsigned char)p[1]); i++, p++) {
                    code = code * 16 + (unsigned)(isdigit((unsigned char)p[1])
                                                      ? p[1] - '0'
                                                      : (tolower((unsigned char)p[1]) - 'a' + 10));
                }
                c = code > 0 && code < 0x7f ? (char)code : '?';
            }
        }
        if (n + 2 > cap) {
            s = xrealloc(s, cap *= 2);
        }
        s[n++] = c;
    }
    s[n] = '\0';
    v->kind = JV_STR;
    v->str = s;
    return *p == '"' ? p + 1 : NULL;
}

static const char* jv_array(const char* p, Jv* v, int depth) {
    v->kind = JV_ARR;
    p = jv_ws(p + 1);
    if (*p == ']') {
        return p + 1;
    }
    int cap = 0;
    for (;;) {
        if (v->n >= JV_MAX_ITEMS) {
            return NULL;
        }
        if (v->n == cap) {
            cap = cap ? cap * 2 : 4;
            v->items = xrealloc(v->items, (size_t)cap * sizeof(Jv));
        }
        memset(&v->items[v->n], 0, sizeof(Jv));
        p = jv_parse(p, &v->items[v->n++], depth + 1);
        if (!p) {
            return NULL;
        }
        p = jv_ws(p);
        if (*p == ']') {
            return p + 1;
        }
        if (*p != ',') {
            return NULL;
        }
        p = jv_ws(p + 1);
    }
}

static const char* jv_parse(const char* p, Jv* v, int depth) {
    p = jv_ws(p);
    if (depth > JV_MAX_DEPTH) {
        return NULL;
    }
    if (*p == '"') {
        return jv_string(p, v);
    }
    if (*p == '[') {
        return jv_array(p, v, depth);
    }
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0 || strncmp(p, "null", 4) == 0) {
        v->kind = JV_LIT;
        v->lit = *p;
        return p + (*p == 'f' ? 5 : 4);
    }
    const char* q = p;
    int frac = 0;
    while (*q && strchr("+-0123456789.eE", *q)) {
        frac |= *q == '.' || *q == 'e' || *q == 'E';
        q++;
    }
    if (q == p) {
        return NULL;
    }
    char* end = NULL;
    v->kind = JV_NUM;
    v->num = strtod(p, NULL);
    if (!frac) {
        long long x = strtoll(p, &end, 10);
        v->is_int = end == q && x > INT64_MIN && x < INT64_MAX;
        v->ival = x;
    }
    return q;
}

/* Parses a whole column; NULL text or trailing garbage: 0. */
static int jv_column(const char* text, Jv* v) {
    memset(v, 0, sizeof(*v));
    if (!text) {
        return 0;
    }
    const char* p = jv_parse(text, v, 0);
    if (!p || *jv_ws(p) || v->kind != JV_ARR) {
        jv_free(v);
        memset(v, 0, sizeof(*v));
        return 0;
    }
    return 1;
}

static const Jv* jv_at(const Jv* arr, int i) {
    return arr && arr->kind == JV_ARR && i >= 0 && i < arr->n ? &arr->items[i] : NULL;
}

/* 1 when v is a list of non-negative integers (a size or stride list; strides may be 0). */
static int jv_intList(const Jv* v) {
    if (!v || v->kind != JV_ARR) {
        return 0;
    }
    for (int i = 0; i < v->n; i++) {
        if (v->items[i].kind != JV_NUM || !v->items[i].is_int || v->items[i].ival < 0) {
            return 0;
        }
    }
    return 1;
}

/* ---- names and dtypes ----------------------------------------------------------------- */

static const struct {
    const char* recorded; /* c10's type name as Kineto writes it */
    const char* torch;    /* torch.<attribute> */
} dtypes[] = {
    {"float", "float32"},
    {"double", "float64"},
    {"c10::Half", "float16"},
    {"c10::BFloat16", "bfloat16"},
    {"long int", "int64"},
    {"long", "int64"},
    {"int64_t", "int64"},
    {"int", "int32"},
    {"short int", "int16"},
    {"short", "int16"},
    {"signed char", "int8"},
    {"unsigned char", "uint8"},
    {"bool", "bool"},
    {"c10::complex<float>", "complex64"},
    {"c10::complex<double>", "complex128"},
    {"c10::complex<c10::Half>", "complex32"},
    {"c10::Float8_e4m3fn", "float8_e4m3fn"},
    {"c10::Float8_e5m2", "float8_e5m2"},
    {"c10::Float8_e4m3fnuz", "float8_e4m3fnuz"},
    {"c10::Float8_e5m2fnuz", "float8_e5m2fnuz"},
};

const char* ReproArgs_dtype(const char* recorded) {
    for (size_t i = 0; recorded && i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
        if (strcmp(recorded, dtypes[i].recorded) == 0) {
            return dtypes[i].torch;
        }
    }
    return NULL;
}

static int ident(const char* s, size_t n, int dots) {
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || (dots && s[i] == '.'))) {
            return 0;
        }
    }
    return 1;
}

int ReproArgs_splitName(const char* name, char ns[64], char op[128]) {
    const char* sep = name ? strstr(name, "::") : NULL;
    if (!sep || strstr(sep + 2, "::")) {
        return 0;
    }
    size_t nl = (size_t)(sep - name), ol = strlen(sep + 2);
    if (nl >= 64 || ol >= 128 || !ident(name, nl, 0) || !ident(sep + 2, ol, 0)) {
        return 0;
    }
    memcpy(ns, name, nl);
    ns[nl] = '\0';
    memcpy(op, sep + 2, ol + 1);
    return 1;
}

void ReproArgs_pyString(FILE* out, const char* text) {
    fputc('"', out);
    for (const unsigned char* p = (const unsigned char*)(text ? text : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p >= 0x20 && *p < 0x7f) {
            fputc(*p, out);
        } else {
            fprintf(out, "\\x%02x", *p);
        }
    }
    fputc('"', out);
}

void ReproArgs_commentText(char* buf, size_t cap, const char* text) {
    size_t n = 0;
    for (const unsigned char* p = (const unsigned char*)(text ? text : ""); *p && n + 1 < cap;
         p++) {
        buf[n++] = *p >= 0x20 && *p < 0x7f ? (char)*p : '?';
    }
    if (cap) {
        buf[n] = '\0';
    }
}

/* ---- scalars from Concrete Inputs ----------------------------------------------------- */

/* One scalar ("1", "-100", "0.", "1e-08", "True", "inf") as a Python literal into out[cap];
 * 0 when it is not a number or a bool. */
static int py_scalar(const char* s, char* out, size_t cap) {
    while (*s == ' ') {
        s++;
    }
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ') {
        n--;
    }
    if (n == 0 || n > 40) {
        return 0;
    }
    char t[48];
    memcpy(t, s, n);
    t[n] = '\0';
    if (strcmp(t, "True") == 0 || strcmp(t, "False") == 0) {
        snprintf(out, cap, "%s", t);
        return 1;
    }
    const char* u = t[0] == '-' || t[0] == '+' ? t + 1 : t;
    if (strcmp(u, "inf") == 0 || strcmp(u, "nan") == 0) {
        snprintf(out, cap, "float('%s%s')", t[0] == '-' ? "-" : "", u);
        return 1;
    }
    int frac = 0;
    for (const char* p = u; *p; p++) {
        if (!strchr("0123456789.eE+-", *p)) {
            return 0;
        }
        frac |= *p == '.' || *p == 'e' || *p == 'E';
    }
    char* end = NULL;
    if (!frac) {
        long long x = strtoll(t, &end, 10);
        if (*end || x == INT64_MIN || x == INT64_MAX) {
            return 0;
        }
        snprintf(out, cap, "%lld", x);
        return 1;
    }
    double d = strtod(t, &end);
    if (*end || !isfinite(d)) {
        return 0;
    }
    snprintf(out, cap, "%.17g", d);
    if (!strpbrk(out, ".en")) { /* stays a float in Python */
        strncat(out, ".0", cap - strlen(out) - 1);
    }
    return 1;
}

/* A scalar list ("[512]", "[True, True, True]", "[]") as a Python list into out. */
static int py_scalarList(const char* s, FILE* out) {
    while (*s == ' ') {
        s++;
    }
    if (*s != '[') {
        return 0;
    }
    const char* close = strrchr(s, ']');
    if (!close || close[1 + strspn(close + 1, " ")] != '\0') {
        return 0;
    }
    fputc('[', out);
    const char* p = s + 1;
    for (int i = 0; p < close; i++) {
        const char* comma = memchr(p, ',', (size_t)(close - p));
        const char* end = comma ? comma : close;
        char item[64], lit[64];
        size_t n = (size_t)(end - p);
        if (n >= sizeof(item)) {
            return 0;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        if (strspn(item, " ") == n && !comma && i == 0) {
            break; /* "[]" */
        }
        if (!py_scalar(item, lit, sizeof(lit))) {
            return 0;
        }
        fprintf(out, "%s%s", i ? ", " : "", lit);
        p = end + 1;
    }
    fputc(']', out);
    return 1;
}

/* ---- index ranges --------------------------------------------------------------------- */

/* Index tensors must hold valid indices: the bound of each op's index argument, from the
 * recorded shapes or scalars. Integer tensors of other ops are filled with zeros. */
typedef enum {
    B_SIZE,    /* dims[src][k] */
    B_CONC,    /* the scalar at src */
    B_CLASSES, /* dims[src][1] (dims[src][0] for 1-d): class indices of a loss */
    B_DIMARG,  /* dims[src][d], d the scalar at dim_arg */
    B_LIST     /* tensor list: element e < dims[src][e] */
} BoundKind;

static const struct {
    const char* op; /* without "aten::" */
    int arg;        /* the index argument */
    BoundKind kind;
    int src, k;     /* k: the dim for B_SIZE, the dim argument for B_DIMARG */
} bounds[] = {
    {"embedding", 1, B_SIZE, 0, 0},
    {"embedding_bag", 1, B_SIZE, 0, 0},
    {"_embedding_bag", 1, B_SIZE, 0, 0},
    {"_embedding_bag_forward_only", 1, B_SIZE, 0, 0},
    {"embedding_dense_backward", 1, B_CONC, 2, 0},
    {"embedding_backward", 1, B_CONC, 2, 0},
    {"nll_loss", 1, B_CLASSES, 0, 0},
    {"nll_loss_nd", 1, B_CLASSES, 0, 0},
    {"nll_loss_forward", 1, B_CLASSES, 0, 0},
    {"nll_loss2d_forward", 1, B_CLASSES, 0, 0},
    {"cross_entropy_loss", 1, B_CLASSES, 0, 0},
    {"nll_loss_backward", 2, B_CLASSES, 1, 0},
    {"nll_loss2d_backward", 2, B_CLASSES, 1, 0},
    {"gather", 2, B_DIMARG, 0, 1},
    {"gather_backward", 3, B_DIMARG, 1, 2},
    {"scatter", 2, B_DIMARG, 0, 1},
    {"scatter_", 2, B_DIMARG, 0, 1},
    {"scatter_add", 2, B_DIMARG, 0, 1},
    {"scatter_add_", 2, B_DIMARG, 0, 1},
    {"scatter_reduce", 2, B_DIMARG, 0, 1},
    {"scatter_reduce_", 2, B_DIMARG, 0, 1},
    {"index_select", 2, B_DIMARG, 0, 1},
    {"index_add", 2, B_DIMARG, 0, 1},
    {"index_add_", 2, B_DIMARG, 0, 1},
    {"index_copy", 2, B_DIMARG, 0, 1},
    {"index_copy_", 2, B_DIMARG, 0, 1},
    {"index_fill", 2, B_DIMARG, 0, 1},
    {"index_fill_", 2, B_DIMARG, 0, 1},
    {"index", 1, B_LIST, 0, 0},
    {"index_put", 1, B_LIST, 0, 0},
    {"index_put_", 1, B_LIST, 0, 0},
    {"_index_put_impl_", 1, B_LIST, 0, 0},
};

static long long size_at(const Jv* dims, int arg, long long d) {
    const Jv* t = jv_at(dims, arg);
    if (!jv_intList(t)) {
        return -1;
    }
    if (d < 0) {
        d += t->n;
    }
    return d >= 0 && d < t->n ? t->items[d].ival : -1;
}

static long long conc_int(const Jv* conc, int arg) {
    const Jv* c = jv_at(conc, arg);
    char* end = NULL;
    if (!c || c->kind != JV_STR || !c->str[0]) {
        return -1;
    }
    long long x = strtoll(c->str, &end, 10);
    return *end ? -1 : x;
}

/* The index bound of argument arg (element elem of a list, else -1) of op, or -1 (none). */
static long long index_bound(const char* op, int arg, int elem, const Jv* dims, const Jv* conc) {
    for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
        if (strcmp(bounds[i].op, op) != 0 || bounds[i].arg != arg) {
            continue;
        }
        switch (bounds[i].kind) {
        case B_SIZE:
            return size_at(dims, bounds[i].src, bounds[i].k);
        case B_CONC:
            return conc_int(conc, bounds[i].src);
        case B_CLASSES: {
            const Jv* t = jv_at(dims, bounds[i].src);
            return size_at(dims, bounds[i].src, t && t->n >= 2 ? 1 : 0);
        }
        case B_DIMARG: {
            long long d = conc_int(conc, bounds[i].k);
            const Jv* c = jv_at(conc, bounds[i].k);
            return c && c->kind == JV_STR && c->str[0] ? size_at(dims, bounds[i].src, d) : -1;
        }
        case B_LIST:
            return elem >= 0 ? size_at(dims, bounds[i].src, elem) : -1;
        }
    }
    return -1;
}

static void jv_literal(FILE* out, const Jv* v) {
    switch (v->kind) {
    case JV_NUM:
        if (v->is_int) {
            fprintf(out, "%lld", v->ival);
        } else if (isfinite(v->num)) {
            fprintf(out, "%.17g", v->num);
        } else {
            fputs("None", out);
        }
        break;
    case JV_STR:
        ReproArgs_pyString(out, v->str);
        break;
    case JV_LIT:
        fputs(v->lit == 't' ? "True" : v->lit == 'f' ? "False" : "None", out);
        break;
    case JV_ARR:
        fputc('[', out);
        for (int i = 0; i < v->n; i++) {
            fputs(i ? ", " : "", out);
            jv_literal(out, &v->items[i]);
        }
        fputc(']', out);
        break;
    }
}

void ReproArgs_literal(FILE* out, const char* json) {
    Jv v;
    if (jv_column(json, &v)) {
        jv_literal(out, &v);
        jv_free(&v);
    } else {
        fputs("None", out);
    }
}

/* ---- the arguments -------------------------------------------------------------------- */

static void int_list(FILE* out, const Jv* v) {
    fputc('[', out);
    for (int i = 0; i < v->n; i++) {
        fprintf(out, "%s%lld", i ? ", " : "", v->items[i].ival);
    }
    fputc(']', out);
}

/* T(size, stride, dtype, hi): stride None (contiguous) when not recorded or not matching. */
static void tensor_spec(FILE* out, const Jv* size, const Jv* stride, const char* dtype,
                        long long hi) {
    fputs("T(", out);
    int_list(out, size);
    fputs(", ", out);
    if (jv_intList(stride) && stride->n == size->n) {
        int_list(out, stride);
    } else {
        fputs("None", out);
    }
    fprintf(out, ", \"%s\"", dtype);
    if (hi > 0) {
        fprintf(out, ", hi=%lld", hi);
    }
    fputc(')', out);
}

typedef struct {
    const char* op; /* op name without its namespace */
    const Jv *dims, *types, *strides, *conc;
    const char* list_dtype;
    char* reason;
    size_t cap;
} ArgCtx;

/* The reason: "argument ARG: MSG", then 'WHAT' (printable, cut) when what is not NULL. */
static int fail(const ArgCtx* c, int arg, const char* msg, const char* what) {
    char shown[48];
    ReproArgs_commentText(shown, sizeof(shown), what);
    snprintf(c->reason, c->cap, "argument %d: %s%s%s%s", arg, msg, what ? " '" : "", shown,
             what ? "'" : "");
    return 0;
}

static int tensor_list(FILE* out, const ArgCtx* c, int i) {
    const Jv* d = jv_at(c->dims, i);
    const Jv* s = jv_at(c->strides, i);
    if (!d || d->kind != JV_ARR || d->n == 0) {
        return fail(c, i, "the profiler did not record the shapes in the tensor list", NULL);
    }
    fputs("L([", out);
    for (int e = 0; e < d->n; e++) {
        if (!jv_intList(&d->items[e])) {
            return fail(c, i, "a tensor list entry without sizes", NULL);
        }
        long long hi = index_bound(c->op, i, e, c->dims, c->conc);
        /* index lists hold int64 indices; other lists the guessed dtype */
        const char* dt = hi > 0 || index_bound(c->op, i, 0, c->dims, c->conc) > 0
                             ? "int64"
                             : c->list_dtype;
        fputs(e ? ", " : "", out);
        tensor_spec(out, &d->items[e], jv_at(s, e), dt, hi);
    }
    fputs("])", out);
    return 1;
}

static int one_arg(FILE* out, const ArgCtx* c, int i) {
    const Jv* t = jv_at(c->types, i);
    const Jv* d = jv_at(c->dims, i);
    const Jv* k = jv_at(c->conc, i);
    const char* type = t && t->kind == JV_STR ? t->str : NULL;
    const char* conc = k && k->kind == JV_STR ? k->str : "";
    if (!type) {
        return fail(c, i, "no recorded type", NULL);
    }
    const char* dtype = ReproArgs_dtype(type);
    char lit[64];
    if (dtype) {
        if (!jv_intList(d)) {
            return fail(c, i, "a tensor without recorded sizes", NULL);
        }
        tensor_spec(out, d, jv_at(c->strides, i), dtype,
                    index_bound(c->op, i, -1, c->dims, c->conc));
    } else if (strcmp(type, "TensorList") == 0) {
        return tensor_list(out, c, i);
    } else if (strcmp(type, "Scalar") == 0) {
        if (!py_scalar(conc, lit, sizeof(lit))) {
            return fail(c, i, "the scalar is not a number:", conc);
        }
        fprintf(out, "S(%s)", lit);
    } else if (strcmp(type, "ScalarList") == 0) {
        if (!conc[0]) {
            fputs("N()", out);
        } else {
            fputs("S(", out);
            if (!py_scalarList(conc, out)) {
                return fail(c, i, "the scalar list is not a list of numbers:", conc);
            }
            fputs(")", out);
        }
    } else if (!type[0]) {
        fputs("N()", out);
    } else {
        return fail(c, i, "this type cannot be rebuilt:", type);
    }
    return 1;
}

int ReproArgs_write(FILE* out, const char* name, const char* dims, const char* types,
                    const char* strides, const char* concrete, const char* list_dtype,
                    char* reason, size_t cap) {
    char ns[64], op[128];
    snprintf(reason, cap, "%s", "");
    if (name && (strcmp(name, "record_param_comms") == 0 || strncmp(name, "c10d::", 6) == 0 ||
                 strncmp(name, "nccl:", 5) == 0)) {
        snprintf(reason, cap, "%s", "a collective: its time depends on the other ranks and "
                                    "their process group, not rebuilt alone");
        return 0;
    }
    if (!ReproArgs_splitName(name, ns, op)) {
        snprintf(reason, cap, "%s",
                 name && strstr(name, "Backward")
                     ? "an autograd backward node that launched kernels itself, and no "
                       "forward op is linked to it"
                     : "not a dispatcher op (torch.ops cannot call it)");
        return 0;
    }
    Jv jd, jt, js, jc;
    int okd = jv_column(dims, &jd), okt = jv_column(types, &jt);
    jv_column(strides, &js);
    jv_column(concrete, &jc);
    int ok = 1;
    if (!okd || !okt) {
        snprintf(reason, cap, "%s", "no shapes recorded (profile with record_shapes=True)");
        ok = 0;
    } else if (jd.n != jt.n) {
        snprintf(reason, cap, "%d sizes for %d types recorded", jd.n, jt.n);
        ok = 0;
    }
    char* text = NULL;
    size_t len = 0;
    FILE* m = ok ? open_memstream(&text, &len) : NULL;
    if (ok && !m) {
        snprintf(reason, cap, "%s", "out of memory");
        ok = 0;
    }
    if (ok) {
        ArgCtx c = {op, &jd, &jt, &js, &jc, list_dtype ? list_dtype : "float32", reason, cap};
        fputc('[', m);
        for (int i = 0; ok && i < jt.n; i++) {
            fputs(i ? ", " : "", m);
            ok = one_arg(m, &c, i);
        }
        fputc(']', m);
        fclose(m);
        if (ok) {
            fwrite(text, 1, len, out);
        }
    }
    free(text);
    jv_free(&jd);
    jv_free(&jt);
    jv_free(&js);
    jv_free(&jc);
    return ok;
}
