/* format.c - see format.h. */
#include "dcutop/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"

static const char ELLIPSIS[] = "\xe2\x80\xa6"; /* U+2026, one cell */

TimeUnit Format_unitFor(int64_t max_ns) {
    if (max_ns >= 10000000000LL) {
        return UNIT_S;
    }
    if (max_ns >= 10000000LL) {
        return UNIT_MS;
    }
    if (max_ns >= 10000LL) {
        return UNIT_US;
    }
    return UNIT_NS;
}

const char* Format_unitName(TimeUnit u) {
    static const char* const n[] = {"ns", "us", "ms", "s"};
    return n[u];
}

void Format_duration(char* buf, size_t cap, int64_t ns, TimeUnit u) {
    Format_durationExact(buf, cap, (double)ns, u);
}

/* Two decimals in the unit, rounded half away from zero from the value in ns: the value is
 * first counted in hundredths of the unit (10 ns for us), a division whose exact halves
 * (142015 / 10 = 14201.5) are exact in binary, so llround sees them; printing ns / 1e3 with
 * %.2f would round 142.01499.. down. */
void Format_durationExact(char* buf, size_t cap, double ns, TimeUnit u) {
    static const double hundredth[] = {1, 10, 1e4, 1e7};
    if (u == UNIT_NS) {
        snprintf(buf, cap, "%lld", (long long)llround(ns));
        return;
    }
    long long q = llround(ns / hundredth[u]);
    unsigned long long a = q < 0 ? (unsigned long long)(-(q + 1)) + 1 : (unsigned long long)q;
    snprintf(buf, cap, "%s%llu.%02llu", q < 0 ? "-" : "", a / 100, a % 100);
}

void Format_durationAuto(char* buf, size_t cap, int64_t ns) {
    int64_t a = ns < 0 ? -ns : ns;
    if (a >= 1000000000LL) {
        snprintf(buf, cap, "%.2f s", (double)ns / 1e9);
    } else if (a >= 1000000LL) {
        snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
    } else if (a >= 1000LL) {
        snprintf(buf, cap, "%.1f us", (double)ns / 1e3);
    } else {
        snprintf(buf, cap, "%lld ns", (long long)ns);
    }
}

void Format_bytes(char* buf, size_t cap, int64_t b) {
    static const char* const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int i = 0;
    while (v >= 1024.0 && i < 4) {
        v /= 1024.0;
        i++;
    }
    if (i == 0) {
        snprintf(buf, cap, "%lld B", (long long)b);
    } else {
        snprintf(buf, cap, "%.1f %s", v, u[i]);
    }
}

void Format_ratio(char* buf, size_t cap, double r) {
    if (isinf(r)) {
        snprintf(buf, cap, "inf");
    } else if (r >= 1000) {
        snprintf(buf, cap, "%.0fx", r);
    } else {
        snprintf(buf, cap, "%.2fx", r);
    }
}

/* Decodes one UTF-8 code point; *len gets its byte length (1 for an invalid byte). */
static unsigned int decode(const unsigned char* s, int* len) {
    unsigned int c = s[0];
    int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n <= 1) {
        *len = 1;
        return c;
    }
    unsigned int cp = c & (0xFF >> (n + 1));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = n;
    return cp;
}

static int cp_width(unsigned int cp) {
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
        (cp >= 0xFE00 && cp <= 0xFE0F)) {
        return 0;
    }
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
        (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD)) {
        return 2;
    }
    return 1;
}

int Format_utf8Encode(unsigned int cp, char* out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int Format_nextChar(const char* s, int* len) {
    unsigned int cp = decode((const unsigned char*)s, len);
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
        (*len == 1 && (unsigned char)s[0] >= 0x80) || Names_isFormatChar(cp)) {
        return -1; /* a control or format character, or an invalid byte */
    }
    return cp_width(cp);
}

int Format_width(const char* s) {
    int w = 0, len;
    for (const unsigned char* p = (const unsigned char*)s; *p; p += len) {
        w += cp_width(decode(p, &len));
    }
    return w;
}

/* Copies the longest prefix of s that fits in width cells; returns bytes copied. */
static size_t take_prefix(const char* s, int width, int* used) {
    size_t b = 0;
    int w = 0, len;
    while (s[b]) {
        int cw = cp_width(decode((const unsigned char*)s + b, &len));
        if (w + cw > width) {
            break;
        }
        w += cw;
        b += (size_t)len;
    }
    *used = w;
    return b;
}

/* Byte offset of the longest suffix of s that fits in width cells. */
static size_t take_suffix(const char* s, int width) {
    size_t n = strlen(s);
    size_t start = n;
    int w = 0;
    while (start > 0) {
        size_t p = start - 1;
        while (p > 0 && ((unsigned char)s[p] & 0xC0) == 0x80) {
            p--;
        }
        int len;
        int cw = cp_width(decode((const unsigned char*)s + p, &len));
        if (w + cw > width) {
            break;
        }
        w += cw;
        start = p;
    }
    return start;
}


static int is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Drops namespace qualifiers ("at::native::", "std::", "(anonymous namespace)::"): in a
 * narrow column the class or function names carry the meaning. Returns a new string. */
static char* strip_namespaces(const char* s) {
    size_t n = strlen(s);
    char* out = malloc(n + 1);
    if (!out) {
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (strncmp(s + i, "(anonymous namespace)::", 23) == 0) {
            i += 23;
            continue;
        }
        if (is_ident(s[i]) && (i == 0 || !is_ident(s[i - 1]))) {
            size_t j = i;
            while (j < n && is_ident(s[j])) {
                j++;
            }
            if (j + 1 < n && s[j] == ':' && s[j + 1] == ':' && !(s[i] >= '0' && s[i] <= '9')) {
                i = j + 2; /* a qualifier: drop it */
                continue;
            }
            memcpy(out + o, s + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        out[o++] = s[i++];
    }
    out[o] = '\0';
    return out;
}

/* The identifier inside the template arguments that tells instantiations apart: a
 * functor or op name (CUDAFunctor_add, direct_copy_kernel_cuda, MeanOps), else the first
 * identifier that is not a type, a number or plumbing. */
static int key_token(const char* args, const char** tok, size_t* len) {
    static const char* const stop[] = {
        "std", "array", "char", "float", "double", "int", "long", "unsigned", "bool", "const",
        "void", "Half", "BFloat16", "c10", "at", "native", "detail", "gpu_kernel_impl_nocast",
        "gpu_kernel_impl", "OffsetCalculator", "TrivialOffsetCalculator", "TensorIteratorBase",
        "operator", "lambda", "memory", "LoadWithoutCast", "StoreWithoutCast", "Array", "true",
        "false", "short", "signed", "int64_t", "uint32_t", "uint64_t", "int32_t", "ul", "u",
        "type", "func_wrapper_t", "ReduceOp", "ReduceConfig", "elementwise_kernel_helper",
        "unroll", "vectorized", "policies", "half", "__half", "uint8_t", "BFloat16_t",
        "ComplexHalf", "complex", "HIP_vector_type", NULL};
    static const char* const prefer[] = {"Functor", "_kernel_cuda", "Ops", "Impl", "Epilogue",
                                         "_cuda", "Op", NULL};
    const char* first = NULL;
    size_t first_len = 0;
    for (const char* p = args; *p;) {
        if (!is_ident(*p) || (*p >= '0' && *p <= '9')) {
            /* skip numbers like 128 or 3ul whole */
            if (*p >= '0' && *p <= '9') {
                while (is_ident(*p)) {
                    p++;
                }
            } else {
                p++;
            }
            continue;
        }
        const char* b = p;
        while (is_ident(*p)) {
            p++;
        }
        size_t l = (size_t)(p - b);
        int stopped = 0;
        for (int i = 0; stop[i]; i++) {
            if (strlen(stop[i]) == l && strncmp(stop[i], b, l) == 0) {
                stopped = 1;
                break;
            }
        }
        if (stopped || l < 3) {
            continue;
        }
        for (int i = 0; prefer[i]; i++) {
            size_t pl = strlen(prefer[i]);
            for (size_t k = 0; k + pl <= l; k++) {
                if (strncmp(b + k, prefer[i], pl) == 0) {
                    *tok = b;
                    *len = l;
                    return 1;
                }
            }
        }
        if (!first) {
            first = b;
            first_len = l;
        }
    }
    if (first) {
        *tok = first;
        *len = first_len;
        return 1;
    }
    return 0;
}

static char* middle_cut(const char* name, int width, char* out, size_t cap);

char* Format_cutName(const char* name, int width, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    out[0] = '\0';
    if (width <= 0) {
        return out;
    }
    /* namespaces go first, in every name, so that names in one column look alike */
    char* compact = strip_namespaces(name);
    if (!compact) {
        return middle_cut(name, width, out, cap);
    }
    if (Format_width(compact) <= width) {
        snprintf(out, cap, "%s", compact);
        free(compact);
        return out;
    }
    /* Tensile: data types and macro tile (MT128x128x32) tell GEMM kernels apart */
    if (compact[0] == 'C' && strstr(compact, "_MT") && !strchr(compact, '<')) {
        char tk[8][64];
        int nt = 0;
        const char* mt = NULL;
        const char* mi = NULL;
        for (const char* p = compact; *p && nt < 8;) {
            const char* e = strchr(p, '_');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            if (nt < 4) {
                snprintf(tk[nt++], sizeof(tk[0]), "%.*s", (int)(l < 63 ? l : 63), p);
            }
            if (!mt && l > 2 && p[0] == 'M' && p[1] == 'T' && p[2] >= '0' && p[2] <= '9') {
                mt = p;
            } else if (!mi && l > 2 && p[0] == 'M' && p[1] == 'I' && p[2] >= '0' && p[2] <= '9') {
                mi = p;
            }
            p += l + (e ? 1 : 0);
        }
        if (mt && nt == 4) {
            size_t ml = strcspn(mt, "_"), il = mi ? strcspn(mi, "_") : 0;
            char cand[4][600];
            snprintf(cand[0], sizeof(cand[0]), "%s_%s_%s_%s%s%.*s%s%.*s%s", tk[0], tk[1], tk[2],
                     tk[3], ELLIPSIS, (int)ml, mt, mi ? "_" : "", (int)il, mi ? mi : "", ELLIPSIS);
            snprintf(cand[1], sizeof(cand[1]), "%s_%s_%s_%s%s%.*s%s", tk[0], tk[1], tk[2], tk[3],
                     ELLIPSIS, (int)ml, mt, ELLIPSIS);
            snprintf(cand[2], sizeof(cand[2]), "%s_%s%s%.*s%s", tk[0], tk[3], ELLIPSIS, (int)ml,
                     mt, ELLIPSIS);
            snprintf(cand[3], sizeof(cand[3]), "%s%s%.*s", tk[3], ELLIPSIS, (int)ml, mt);
            for (int i = 0; i < 4; i++) {
                if (Format_width(cand[i]) <= width) {
                    snprintf(out, cap, "%s", cand[i]);
                    free(compact);
                    return out;
                }
            }
        }
    }
    /* fn<…key…>: the function and the one template argument that tells it apart */
    const char* lt = strchr(compact, '<');
    const char* tok;
    size_t tl;
    /* "<built-in method ...>" is not a template: a template follows an identifier */
    if (lt && lt > compact && is_ident(lt[-1]) && key_token(lt + 1, &tok, &tl) && width >= 12) {
        char fn[1024];
        size_t fl = (size_t)(lt - compact);
        if (fl >= sizeof(fn)) {
            fl = sizeof(fn) - 1;
        }
        memcpy(fn, compact, fl);
        fn[fl] = '\0';
        char key[512];
        snprintf(key, sizeof(key), "%.*s", (int)(tl < 500 ? tl : 500), tok);
        int kw = Format_width(key);
        int fw = Format_width(fn);
        int fixed = kw + 4; /* "<…" "…>" */
        if (fixed + 6 <= width) {
            char fcut[1024];
            if (fw + fixed > width) {
                middle_cut(fn, width - fixed, fcut, sizeof(fcut));
            } else {
                snprintf(fcut, sizeof(fcut), "%s", fn);
            }
            snprintf(out, cap, "%s<%s%s%s>", fcut, ELLIPSIS, key, ELLIPSIS);
            free(compact);
            return out;
        }
    }
    middle_cut(compact, width, out, cap);
    free(compact);
    return out;
}

static char* middle_cut(const char* name, int width, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    out[0] = '\0';
    if (width <= 0) {
        return out;
    }
    if (Format_width(name) <= width) {
        snprintf(out, cap, "%s", name);
        return out;
    }
    if (width < 4) {
        int used;
        size_t b = take_prefix(name, width, &used);
        snprintf(out, cap, "%.*s", (int)b, name);
        return out;
    }
    /* keep the function name up to and just past its first '<', then the end */
    const char* lt = strchr(name, '<');
    int head_w;
    int avail = width - 1; /* one cell for the ellipsis */
    const char* mt = lt ? NULL : strstr(name, "_MT");
    if (mt && mt[3] >= '0' && mt[3] <= '9' && name[0] == 'C') {
        /* Tensile: the macro tile (MT128x128x32) is what tells two GEMM kernels apart */
        const char* e = mt + 3;
        while (*e && *e != '_') {
            e++;
        }
        head_w = (int)(e - name);
        if (head_w > avail - 4) {
            head_w = avail - 4 > 0 ? avail - 4 : avail;
        }
    } else if (lt && Format_width(name) > 0) {
        char tmp[2048];
        size_t hb = (size_t)(lt - name) + 1;
        if (hb >= sizeof(tmp)) {
            hb = sizeof(tmp) - 1;
        }
        memcpy(tmp, name, hb);
        tmp[hb] = '\0';
        head_w = Format_width(tmp);
        int tail_min = avail / 4; /* the end of the name says which instantiation it is */
        if (head_w > avail - tail_min) {
            head_w = avail - tail_min; /* a very long function name: cut it too */
        } else {
            head_w += (avail - head_w - tail_min) / 3; /* and a little of the arguments */
        }
    } else {
        head_w = avail * 2 / 3;
    }
    int used;
    size_t hb = take_prefix(name, head_w, &used);
    size_t tb = take_suffix(name, avail - used);
    if (tb < hb) {
        tb = hb;
    }
    snprintf(out, cap, "%.*s%s%s", (int)hb, name, ELLIPSIS, name + tb);
    return out;
}

char* Format_cutEnd(const char* s, int width, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    if (Format_width(s) <= width) {
        snprintf(out, cap, "%s", s);
        return out;
    }
    int used;
    size_t b = take_prefix(s, width > 1 ? width - 1 : 0, &used);
    snprintf(out, cap, "%.*s%s", (int)b, s, width > 0 ? ELLIPSIS : "");
    return out;
}

char* Format_fit(const char* s, int width, int right, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    int used;
    size_t b = take_prefix(s, width, &used);
    int pad = width - used;
    size_t o = 0;
    if (right) {
        for (int i = 0; i < pad && o + 1 < cap; i++) {
            out[o++] = ' ';
        }
    }
    if (o + b + 1 > cap) {
        b = cap - o - 1;
    }
    memcpy(out + o, s, b);
    o += b;
    if (!right) {
        for (int i = 0; i < pad && o + 1 < cap; i++) {
            out[o++] = ' ';
        }
    }
    out[o] = '\0';
    return out;
}
