/* shortname.c - the short name of a kernel and its fit to a width (see shortname.h); the
 * keys come from shortname_keys.c, the loaded kernels' names from shortname_registry.c. */
#include "dcutop/shortname.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "shortname_internal.h"

#define ELLIPSIS "\xe2\x80\xa6"

/* ---- display width: Names_utf8Decode and Names_cellWidth, shared with the view -------- */

static int width_of(const char* s, int a, int b) {
    int w = 0, len;
    for (int i = a; i < b; i += len) {
        w += Names_cellWidth(Names_utf8Decode((const unsigned char*)s + i, &len));
    }
    return w;
}

/* ---- fitting to a width ------------------------------------------------------------------- */

/* cells the name takes with this keep mask: kept characters plus one per dropped run */
static int mask_cost(const char* s, int n, const char* keep) {
    int w = 0, len;
    for (int i = 0; i < n; i += len) {
        unsigned int cp = Names_utf8Decode((const unsigned char*)s + i, &len);
        if (keep[i]) {
            w += Names_cellWidth(cp);
        } else if (i == 0 || keep[i - 1]) {
            w += 1;
        }
    }
    return w;
}

static void mark(char* keep, int a, int b, int v) {
    for (int i = a; i < b; i++) {
        keep[i] = (char)v;
    }
}

/* Keeps [a, b) if the name still fits; returns 1 if kept. */
static int try_keep(const char* s, int n, char* keep, int a, int b, int width) {
    char* save = xmalloc((size_t)n + 1);
    memcpy(save, keep, (size_t)n);
    mark(keep, a, b, 1);
    int ok = mask_cost(s, n, keep) <= width;
    if (!ok) {
        memcpy(keep, save, (size_t)n);
    }
    free(save);
    return ok;
}

/* The span a key word grows to when room allows: its identifier ("add" ->
 * "CUDAFunctor_add"), and for a bare number its template argument ("(ggml_type)2"). */
static Span grown(const char* s, int n, Span w) {
    Span g = w;
    while (g.s > 0 && sn_is_ident(s[g.s - 1])) {
        g.s--;
    }
    while (g.e < n && sn_is_ident(s[g.e])) {
        g.e++;
    }
    if (ShortName_allDigits(s, w.s, w.e) || (w.e - w.s <= 2)) {
        int a = g.s;
        while (a > 0 && s[a - 1] != ',' && s[a - 1] != '<' && g.s - a < 24) {
            a--;
        }
        while (a < g.s && s[a] == ' ') {
            a++;
        }
        g.s = a;
    }
    return g;
}

/* keys for a name from no kernel table: a functor/op word in its template arguments, or a
 * Tensile macro tile (MT128x128x32), which tell instantiations apart */
static int generic_keys(const char* s, Span* out, int max) {
    static const char* const prefer[] = {"Functor", "_kernel_cuda", "Ops", "Impl", "Epilogue",
                                         "_cuda", "Op", NULL};
    int nk = 0;
    const char* lt = strchr(s, '<');
    if (lt && lt > s && sn_is_ident(lt[-1])) {
        for (const char* p = lt + 1; *p && nk < max;) {
            if (!sn_is_ident(*p)) {
                p++;
                continue;
            }
            const char* b = p;
            while (sn_is_ident(*p)) {
                p++;
            }
            for (int i = 0; prefer[i]; i++) {
                const char* hit = strstr(b, prefer[i]);
                if (hit && hit < p) {
                    out[nk].s = (int)(b - s);
                    out[nk++].e = (int)(p - s);
                    return nk;
                }
            }
        }
    }
    const char* mt = strstr(s, "_MT");
    if (!lt && mt && sn_is_digit(mt[3]) && nk < max) {
        const char* e = mt + 1;
        while (sn_is_alnum(*e)) {
            e++;
        }
        out[nk].s = (int)(mt + 1 - s);
        out[nk++].e = (int)(e - s);
    }
    return nk;
}

static int parse_keys(const char* keys, int n, Span* out, int max) {
    int nk = 0;
    for (const char* p = keys; p && *p && nk < max;) {
        char* end;
        long a = strtol(p, &end, 10);
        if (end == p || *end != '-') {
            break;
        }
        long b = strtol(end + 1, &end, 10);
        if (a >= 0 && b > a && b <= n) {
            out[nk].s = (int)a;
            out[nk++].e = (int)b;
        }
        p = end;
        while (*p == ' ') {
            p++;
        }
    }
    return nk;
}

static char* render(const char* s, int n, const char* keep, char* out, size_t cap) {
    size_t o = 0;
    for (int i = 0; i < n && o + 4 < cap; i++) {
        if (keep[i]) {
            out[o++] = s[i];
        } else if (i == 0 || keep[i - 1]) {
            memcpy(out + o, ELLIPSIS, 3);
            o += 3;
        }
    }
    out[o] = '\0';
    return out;
}

/* The longest prefix of s in width cells, then "…". */
static char* cut_end(const char* s, int width, char* out, size_t cap) {
    int w = 0, len, i = 0;
    while (s[i]) {
        int cw = Names_cellWidth(Names_utf8Decode((const unsigned char*)s + i, &len));
        if (w + cw > width - 1) {
            break;
        }
        w += cw;
        i += len;
    }
    snprintf(out, cap, "%.*s%s", i, s, width > 0 ? ELLIPSIS : "");
    return out;
}

static char* fit_spans(const char* s, Span* key, int nk, int width, char* out, size_t cap) {
    int n = (int)strlen(s);
    char* keep = xcalloc((size_t)n + 1, 1);
    /* must: the name up to the end of its first word, and every key word */
    int first = 0;
    while (first < n && !sn_is_alnum(s[first])) {
        first++;
    }
    while (first < n && sn_is_alnum(s[first])) {
        first++;
    }
    /* too narrow: the first word shrinks to 3 characters, then the longest keys to 4 (their
     * start: "Fill…" for FillFunctor), then the last keys go */
    int lead = first;
    Span orig[64];
    memcpy(orig, key, sizeof(Span) * (size_t)(nk < 64 ? nk : 64));
    for (;;) {
        memset(keep, 0, (size_t)n);
        mark(keep, 0, lead, 1);
        for (int i = 0; i < nk; i++) {
            mark(keep, key[i].s, key[i].e, 1);
        }
        if (mask_cost(s, n, keep) <= width) {
            break;
        }
        int longest = -1;
        for (int i = 0; i < nk; i++) {
            if (key[i].e - key[i].s > 4 &&
                (longest < 0 || key[i].e - key[i].s > key[longest].e - key[longest].s)) {
                longest = i;
            }
        }
        if (lead > 3 && nk > 0) {
            lead--;
        } else if (longest >= 0) {
            key[longest].e--;
        } else if (nk > 0) {
            nk--;
            lead = first;
            memcpy(key, orig, sizeof(Span) * (size_t)nk);
        } else {
            break;
        }
    }
    if (mask_cost(s, n, keep) > width) {
        free(keep);
        return cut_end(s, width, out, cap);
    }
    /* grow: keys to whole identifiers, then the rest in order */
    for (int i = 0; i < nk; i++) {
        Span g = grown(s, n, key[i]);
        try_keep(s, n, keep, g.s, g.e, width);
    }
    for (int i = 0; i < n;) {
        if (keep[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j < n && !keep[j]) {
            j++;
        }
        if (!try_keep(s, n, keep, i, j, width)) {
            int len;
            for (int p = i; p < j; p += len) { /* a prefix of the run, code point by point */
                Names_utf8Decode((const unsigned char*)s + p, &len);
                if (!try_keep(s, n, keep, p, p + len, width)) {
                    break;
                }
            }
        }
        i = j;
    }
    render(s, n, keep, out, cap);
    free(keep);
    return out;
}

char* ShortName_fit(const char* name, const char* keys, int width, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    out[0] = '\0';
    if (width <= 0 || !name) {
        return out;
    }
    const char *rfull, *rshrt, *rkeys;
    if (!keys && ShortName_lookup(name, &rfull, &rshrt, &rkeys)) {
        name = rshrt; /* a loaded kernel, by its full or short name */
        keys = rkeys;
    }
    char* own = keys ? NULL : ShortName_stripNamespaces(name);
    const char* s = own ? own : name;
    int n = (int)strlen(s);
    if (width_of(s, 0, n) <= width) {
        snprintf(out, cap, "%s", s);
        free(own);
        return out;
    }
    Span key[64];
    int nk = keys ? parse_keys(keys, n, key, 64) : generic_keys(s, key, 64);
    fit_spans(s, key, nk, width, out, cap);
    free(own);
    return out;
}

/* ---- call-stack frames -------------------------------------------------------------------- */

char* ShortName_frame(const char* frame) {
    size_t n = strlen(frame), o = 0;
    char* out = xmalloc(n + 1);
    for (size_t i = 0; i < n;) {
        /* " at 0x7fa4e9f3e180" (or "_at_0x..." where spaces became '_') */
        if ((frame[i] == ' ' || frame[i] == '_') && strncmp(frame + i + 1, "at", 2) == 0 &&
            frame[i + 3] == frame[i] && frame[i + 4] == '0' && frame[i + 5] == 'x') {
            size_t j = i + 6;
            while (j < n && ((frame[j] >= '0' && frame[j] <= '9') ||
                             (frame[j] >= 'a' && frame[j] <= 'f') ||
                             (frame[j] >= 'A' && frame[j] <= 'F'))) {
                j++;
            }
            if (j > i + 6) {
                i = j;
                continue;
            }
        }
        out[o++] = frame[i++];
    }
    out[o] = '\0';
    return out;
}

char* ShortName_fitFrame(const char* frame, int width, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    char* f = ShortName_frame(frame);
    int n = (int)strlen(f);
    if (width_of(f, 0, n) <= width) {
        snprintf(out, cap, "%s", f);
        free(f);
        return out;
    }
    /* "dir/file.py(64): fn": file.py(64) and fn are the must, directories go first */
    const char* colon = strstr(f, "):"); /* "): fn", or "):_fn" where spaces became '_' */
    int sep = colon && (colon[2] == ' ' || colon[2] == '_') ? 3 : 2;
    const char* paren = colon ? colon : NULL;
    while (paren && paren > f && *paren != '(') {
        paren--;
    }
    if (colon && paren && paren > f) {
        int fs = (int)(paren - f);
        while (fs > 0 && f[fs - 1] != '/') {
            fs--;
        }
        Span key[2] = {{fs, (int)(colon - f) + 1}, {(int)(colon - f) + sep, n}};
        char* keep = xcalloc((size_t)n + 1, 1);
        mark(keep, key[0].s, key[0].e, 1);
        mark(keep, key[1].s, key[1].e, 1);
        if (mask_cost(f, n, keep) <= width) {
            try_keep(f, n, keep, key[0].e, key[1].s, width); /* the ": " */
            for (int b = fs - 1; b >= 0 && try_keep(f, n, keep, b, fs, width); b--) {
            }
            render(f, n, keep, out, cap);
            free(keep);
            free(f);
            return out;
        }
        free(keep);
        /* still too wide: the end, which holds the line number and the function name */
        int b = n, w = 0;
        while (b > 0) {
            int p = b - 1, len;
            while (p > 0 && ((unsigned char)f[p] & 0xC0) == 0x80) {
                p--;
            }
            int cw = Names_cellWidth(Names_utf8Decode((const unsigned char*)f + p, &len));
            if (w + cw > width - 1) {
                break;
            }
            w += cw;
            b = p;
        }
        snprintf(out, cap, "%s%s", width > 0 ? ELLIPSIS : "", f + b);
        free(f);
        return out;
    }
    Span none[1];
    fit_spans(f, none, 0, width, out, cap);
    free(f);
    return out;
}

int ShortName_indent(int depth, int room, char* tag, size_t cap) {
    int name_min = room / 2 > 24 ? room / 2 : (room < 24 ? room : 24);
    int max_indent = room - name_min > 0 ? room - name_min : 0;
    if (cap > 0) {
        tag[0] = '\0';
    }
    if (2 * depth <= max_indent) {
        return 2 * depth;
    }
    /* too deep for the width: the indentation stops growing and says how deep it is */
    int l = snprintf(tag, cap, "[%d] ", depth);
    int indent = max_indent - l;
    return indent > 0 ? indent : 0;
}

/* Drops a trailing "_kernel_cuda", "_kernel", "_cuda" or "Kernel" from a label. */
static void trim_label(char* l) {
    static const char* const suffix[] = {"_kernel_cuda", "_kernel", "_cuda", "Kernel", NULL};
    for (int i = 0; suffix[i]; i++) {
        size_t n = strlen(l), k = strlen(suffix[i]);
        if (n > k + 2 && strcmp(l + n - k, suffix[i]) == 0) {
            l[n - k] = '\0';
        }
    }
}

char* ShortName_label(const char* name, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    const char *rfull, *rshrt, *rkeys = NULL;
    int found = ShortName_lookup(name, &rfull, &rshrt, &rkeys);
    const char* s = found ? rshrt : name;
    int n = (int)strlen(s);
    Span key[64], best = {0, 0};
    int nk = found ? parse_keys(rkeys, n, key, 64) : 0;
    if (!strchr(s, '<')) { /* Tensile, nvjet: the name is its own key list */
        ShortName_fit(s, found ? rkeys : NULL, 24, out, cap);
        return out;
    }
    for (int i = 0; i < nk; i++) { /* the longest identifier among the keys */
        Span g = key[i];
        while (g.s > 0 && sn_is_ident(s[g.s - 1])) {
            g.s--;
        }
        while (g.e < n && sn_is_ident(s[g.e])) {
            g.e++;
        }
        if (g.e - g.s > best.e - best.s && !sn_is_digit(s[g.s])) {
            best = g;
        }
    }
    if (best.e - best.s < 7) { /* no telling key ("true", "__half"): the function name */
        best.s = 0;
        best.e = 0;
        while (best.e < n && s[best.e] != '<' && s[best.e] != '(') {
            best.e++;
        }
    }
    snprintf(out, cap, "%.*s", best.e - best.s, s + best.s);
    trim_label(out);
    return out;
}
