/* shortname.c - see shortname.h. Words are "sub-tokens": runs of letters and digits, so
 * '_' and punctuation separate them ("CUDAFunctor_add" holds "CUDAFunctor" and "add"). */
#include "dcutop/shortname.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"

#define ELLIPSIS "\xe2\x80\xa6"

typedef struct {
    int s, e; /* byte range [s, e) */
} Span;

static int is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_ident(char c) {
    return is_alnum(c) || c == '_';
}

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* ---- display width (the model cannot call the view's Format_width) -------------------- */

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

/* same table as format.c's cp_width: wide East Asian 2, combining 0 */
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

static int width_of(const char* s, int a, int b) {
    int w = 0, len;
    for (int i = a; i < b; i += len) {
        w += cp_width(decode((const unsigned char*)s + i, &len));
    }
    return w;
}

/* ---- the base form ---------------------------------------------------------------------- */

/* Drops namespace qualifiers ("at::native::", "std::", "(anonymous namespace)::"): the
 * class and function names carry the meaning. */
static char* strip_namespaces(const char* s) {
    size_t n = strlen(s), o = 0;
    char* out = xmalloc(n + 1);
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
            if (j + 1 < n && s[j] == ':' && s[j + 1] == ':' && !is_digit(s[i])) {
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

static int lone_keyword(const char* s) {
    static const char* const kw[] = {"void", "static", "inline", "__global__", "extern",
                                     "const", "int", "float", "double", "unsigned", "auto",
                                     "operator", "virtual", "template", NULL};
    if (!*s) {
        return 1;
    }
    for (int i = 0; kw[i]; i++) {
        if (strcmp(s, kw[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

char* ShortName_base(const char* full) {
    char* sh = Names_short(full);
    char* st = strip_namespaces(sh);
    free(sh);
    if (lone_keyword(st)) { /* a parse gone wrong must not leave "void": keep all of it */
        free(st);
        st = strip_namespaces(full);
        if (!*st) {
            free(st);
            st = xstrdup(full);
        }
    }
    return st;
}

/* ---- keys: the words that tell a name apart ------------------------------------------------ */

typedef struct {
    const char* s;
    size_t len; /* strlen(s) */
    Span* w; /* words in order */
    int nw;
    char** sorted; /* distinct words, sorted (owned strings) */
    int nsorted;
} Words;

static int cmp_str(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

static void words_init(Words* W, const char* s) {
    W->s = s;
    W->len = strlen(s);
    W->nw = 0;
    int cap = 16;
    W->w = xmalloc(sizeof(Span) * (size_t)cap);
    for (int i = 0; s[i];) {
        if (!is_alnum(s[i])) {
            i++;
            continue;
        }
        int j = i;
        while (is_alnum(s[j])) {
            j++;
        }
        if (W->nw == cap) {
            cap *= 2;
            W->w = xrealloc(W->w, sizeof(Span) * (size_t)cap);
        }
        W->w[W->nw].s = i;
        W->w[W->nw++].e = j;
        i = j;
    }
    W->sorted = xmalloc(sizeof(char*) * (size_t)(W->nw ? W->nw : 1));
    for (int i = 0; i < W->nw; i++) {
        W->sorted[i] = xstrndup(s + W->w[i].s, (size_t)(W->w[i].e - W->w[i].s));
    }
    qsort(W->sorted, (size_t)W->nw, sizeof(char*), cmp_str);
    int k = 0;
    for (int i = 0; i < W->nw; i++) {
        if (k > 0 && strcmp(W->sorted[k - 1], W->sorted[i]) == 0) {
            free(W->sorted[i]);
            continue;
        }
        W->sorted[k++] = W->sorted[i];
    }
    W->nsorted = k;
}

static void words_done(Words* W) {
    for (int i = 0; i < W->nsorted; i++) {
        free(W->sorted[i]);
    }
    free(W->sorted);
    free(W->w);
}

static int has_word(const Words* W, const char* s, int len) {
    int lo = 0, hi = W->nsorted - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strncmp(W->sorted[mid], s, (size_t)len);
        if (c == 0 && W->sorted[mid][len] != '\0') {
            c = 1;
        }
        if (c == 0) {
            return 1;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return 0;
}

static int word_eq(const Words* a, int i, const Words* b, int j) {
    int la = a->w[i].e - a->w[i].s, lb = b->w[j].e - b->w[j].s;
    return la == lb && strncmp(a->s + a->w[i].s, b->s + b->w[j].s, (size_t)la) == 0;
}

static int all_digits(const char* s, int a, int b) {
    for (int i = a; i < b; i++) {
        if (!is_digit(s[i])) {
            return 0;
        }
    }
    return 1;
}

/* What a key word costs in a narrow column: its length, more for a bare number (it grows
 * into its template argument to be readable). */
static int word_cost(const Words* K, int i) {
    static const char* const plumbing[] = {"const", "unsigned", "signed", "int", "char", "long",
                                           "short", "bool", "true", "false", "void", "std",
                                           "array", "operator", "lambda", NULL};
    int len = K->w[i].e - K->w[i].s;
    int extra = is_digit(K->s[K->w[i].s]) ? 8 : 0; /* 2, 4u, 3ul: numbers read poorly alone */
    for (int p = 0; plumbing[p]; p++) { /* language words say little about the kernel */
        if ((int)strlen(plumbing[p]) == len && strncmp(K->s + K->w[i].s, plumbing[p], len) == 0) {
            extra = 12;
        }
    }
    const char* w = K->s + K->w[i].s;
    if (len > 2 && w[0] == 'M' && w[1] == 'T' && is_digit(w[2])) {
        return 4; /* a Tensile macro tile (MT128x128x32): what GEMM readers look for */
    }
    return len + 2 + extra;
}

/* Greedy cover: the word of k that the most remaining look-alikes lack per cell, until each
 * look-alike lacks one shown word; where the word sets are equal (same words, another
 * order or count) the first word at which the sequences differ. */
/* How many names of a group hold each word (the first greedy step reads it instead of
 * scanning the group for every word: groups of thousands of Tensile names stay fast). */
typedef struct {
    const char** word; /* borrowed from the Words */
    int* count;
    int* start;        /* word slot i: its names are post[start[i] .. start[i] + count[i]) */
    int* post;
    size_t cap;
} WordCount;

static uint64_t hash_bytes(const char* s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    }
    return h;
}

static int* wc_slot(WordCount* wc, const char* w, size_t len, int add) {
    for (size_t i = hash_bytes(w, len) & (wc->cap - 1);; i = (i + 1) & (wc->cap - 1)) {
        if (!wc->word[i]) {
            if (!add) {
                return NULL;
            }
            wc->word[i] = w;
            return &wc->count[i];
        }
        if (strlen(wc->word[i]) == len && strncmp(wc->word[i], w, len) == 0) {
            return &wc->count[i];
        }
    }
}

static void wc_build(WordCount* wc, const Words* all, const int* members, int nm) {
    size_t total = 0;
    for (int m = 0; m < nm; m++) {
        total += (size_t)all[members[m]].nsorted;
    }
    wc->cap = 64;
    while (wc->cap < total * 2 + 1) {
        wc->cap *= 2;
    }
    wc->word = xcalloc(wc->cap, sizeof(char*));
    wc->count = xcalloc(wc->cap, sizeof(int));
    wc->start = xcalloc(wc->cap, sizeof(int));
    wc->post = xmalloc(sizeof(int) * (total ? total : 1));
    for (int m = 0; m < nm; m++) {
        const Words* W = &all[members[m]];
        for (int i = 0; i < W->nsorted; i++) {
            (*wc_slot(wc, W->sorted[i], strlen(W->sorted[i]), 1))++;
        }
    }
    int off = 0;
    for (size_t i = 0; i < wc->cap; i++) {
        wc->start[i] = off;
        off += wc->count[i];
        wc->count[i] = 0; /* counted again while filling */
    }
    for (int m = 0; m < nm; m++) {
        const Words* W = &all[members[m]];
        for (int i = 0; i < W->nsorted; i++) {
            int* c = wc_slot(wc, W->sorted[i], strlen(W->sorted[i]), 1);
            size_t slot = (size_t)(c - wc->count);
            wc->post[wc->start[slot] + (*c)++] = members[m];
        }
    }
}

static void wc_done(WordCount* wc) {
    free(wc->word);
    free(wc->count);
    free(wc->start);
    free(wc->post);
}

static char* keys_of(const Words* all, const int* members, int nm, int k, WordCount* wc) {
    const Words* K = &all[k];
    int* rem = xmalloc(sizeof(int) * (size_t)(nm ? nm : 1));
    int nrem = 0;
    for (int m = 0; m < nm; m++) {
        /* the group shares the first word, which always shows: other names are told apart */
        int j = members[m];
        if (j != k && (all[j].len != K->len || strcmp(K->s, all[j].s) != 0)) {
            rem[nrem++] = j;
        }
    }
    int first_step = nrem == nm - 1; /* every other member remains: counts come from wc */
    char* used = xcalloc((size_t)(K->nw ? K->nw : 1), 1);
    used[0] = 1;
    while (nrem > 0) {
        int best = -1, best_n = 0; /* best_n: look-alikes told apart, per cost */
        for (int i = 1; i < K->nw; i++) {
            if (used[i]) {
                continue;
            }
            int dup = 0; /* count each distinct word once: its first occurrence */
            for (int p = 0; p < i && !dup; p++) {
                dup = word_eq(K, p, K, i);
            }
            if (dup) {
                continue;
            }
            int c = 0;
            if (first_step) {
                int* df = wc_slot(wc, K->s + K->w[i].s, (size_t)(K->w[i].e - K->w[i].s), 0);
                c = nm - (df ? *df : 1); /* members lacking the word (K holds it) */
            } else {
                for (int r = 0; r < nrem; r++) {
                    c += !has_word(&all[rem[r]], K->s + K->w[i].s, K->w[i].e - K->w[i].s);
                }
            }
            /* weighted set cover: most look-alikes per cell, so that keys fit narrow columns */
            if (c > 0 && (best < 0 || c * word_cost(K, best) > best_n * word_cost(K, i))) {
                best = i;
                best_n = c;
            }
        }
        if (best >= 0 && first_step) { /* the look-alikes left: the names holding the word */
            first_step = 0;
            used[best] = 1;
            int* c = wc_slot(wc, K->s + K->w[best].s, (size_t)(K->w[best].e - K->w[best].s), 0);
            size_t slot = (size_t)(c - wc->count);
            nrem = 0;
            for (int p = 0; p < *c; p++) {
                int j = wc->post[wc->start[slot] + p];
                if (j != k && (all[j].len != K->len || strcmp(K->s, all[j].s) != 0)) {
                    rem[nrem++] = j;
                }
            }
            continue;
        }
        first_step = 0;
        if (best >= 0) {
            used[best] = 1;
            int o = 0;
            for (int r = 0; r < nrem; r++) {
                if (has_word(&all[rem[r]], K->s + K->w[best].s, K->w[best].e - K->w[best].s)) {
                    rem[o++] = rem[r];
                }
            }
            nrem = o;
            continue;
        }
        /* same word sets: the first position where the sequences differ */
        for (int r = 0; r < nrem; r++) {
            const Words* J = &all[rem[r]];
            int i = 0;
            while (i < K->nw && i < J->nw && word_eq(K, i, J, i)) {
                i++;
            }
            if (i < K->nw) {
                used[i] = 1;
            }
        }
        nrem = 0;
    }
    size_t cap = 16, len = 0;
    char* out = xmalloc(cap);
    out[0] = '\0';
    for (int i = 1; i < K->nw; i++) {
        if (!used[i]) {
            continue;
        }
        char buf[32];
        int l = snprintf(buf, sizeof(buf), "%s%d-%d", len ? " " : "", K->w[i].s, K->w[i].e);
        xgrow((void**)&out, &cap, len + (size_t)l + 1);
        memcpy(out + len, buf, (size_t)l + 1);
        len += (size_t)l;
    }
    free(used);
    free(rem);
    return out;
}

static int same_first(const Words* a, const Words* b) {
    if (a->nw == 0 || b->nw == 0) {
        return a->nw == 0 && b->nw == 0;
    }
    return word_eq(a, 0, b, 0);
}

typedef struct {
    int idx;       /* into the names */
    const char* w; /* the first word (borrowed), NULL when the name has none */
    int len;
} FirstWord;

static int cmp_first_word(const void* x, const void* y) {
    const FirstWord* a = x;
    const FirstWord* b = y;
    if (!a->w || !b->w) {
        return (a->w != NULL) - (b->w != NULL);
    }
    int c = strncmp(a->w, b->w, (size_t)(a->len < b->len ? a->len : b->len));
    return c ? c : a->len - b->len;
}

char** ShortName_keysFor(const char* const* names, int n) {
    Words* all = xmalloc(sizeof(Words) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        words_init(&all[i], names[i]);
    }
    char** out = xmalloc(sizeof(char*) * (size_t)(n ? n : 1));
    /* groups of names with the same first word: a name is only confused within its group */
    int* order = xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    FirstWord* fw = xmalloc(sizeof(FirstWord) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        fw[i].idx = i;
        fw[i].w = all[i].nw ? all[i].s + all[i].w[0].s : NULL;
        fw[i].len = all[i].nw ? all[i].w[0].e - all[i].w[0].s : 0;
    }
    if (n > 1) {
        qsort(fw, (size_t)n, sizeof(FirstWord), cmp_first_word);
    }
    for (int i = 0; i < n; i++) {
        order[i] = fw[i].idx;
    }
    free(fw);
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && same_first(&all[order[a]], &all[order[b]])) {
            b++;
        }
        WordCount wc;
        wc_build(&wc, all, order + a, b - a);
        for (int m = a; m < b; m++) {
            out[order[m]] = keys_of(all, order + a, b - a, order[m], &wc);
        }
        wc_done(&wc);
        a = b;
    }
    free(order);
    for (int i = 0; i < n; i++) {
        words_done(&all[i]);
    }
    free(all);
    return out;
}

/* ---- after loading: unique short names and their keys ------------------------------------ */

typedef struct {
    int64_t id;
    char* full;
    char* shrt;
} KName;

static int cmp_short(const void* a, const void* b) {
    const KName* x = a;
    const KName* y = b;
    int c = strcmp(x->shrt, y->shrt);
    return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* Kernels whose base forms are equal (overloads, namespaces, return types) take a fuller
 * form: the name without namespaces, else the full name, which is unique by the schema. */
static void make_unique(KName* k, int n) {
    if (n < 2) {
        return; /* (and k may be NULL) */
    }
    qsort(k, (size_t)n, sizeof(KName), cmp_short);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && strcmp(k[j].shrt, k[i].shrt) == 0) {
            j++;
        }
        if (j - i > 1) {
            int distinct = 1;
            char** alt = xmalloc(sizeof(char*) * (size_t)(j - i));
            for (int a = i; a < j; a++) {
                alt[a - i] = strip_namespaces(k[a].full);
                for (int b = i; b < a && distinct; b++) {
                    distinct = strcmp(alt[a - i], alt[b - i]) != 0;
                }
            }
            for (int a = i; a < j; a++) {
                free(k[a].shrt);
                k[a].shrt = distinct ? alt[a - i] : xstrdup(k[a].full);
                if (!distinct) {
                    free(alt[a - i]);
                }
            }
            free(alt);
        }
        i = j;
    }
}

/* ---- the names of the loaded kernels -------------------------------------------------------
 * Filled by ShortName_assignAll, read by ShortName_fit: every caller that fits a kernel's name
 * (full or short) to a width gets the same short name and keys without carrying them along.
 * Loading more than one trace (A/B) adds to it; a name seen twice keeps all its keys. */

typedef struct {
    char* name;  /* full or short name (owned) */
    char* full;  /* the full name (owned) */
    char* shrt;  /* the short name (owned) */
    char* keys;  /* its key ranges (owned) */
} RegEntry;

static RegEntry* reg;
static size_t reg_cap, reg_n;
/* A trace loading in the background (a second run) may register while the screen fits
 * names: the table is locked, and the strings it hands out stay valid until
 * ShortName_forget (keys replaced by a union are retired, not freed). */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static char** retired;
static size_t nretired;

static uint64_t hash_str(const char* s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    return h;
}

static RegEntry* reg_find(const char* name) {
    if (!reg_cap) {
        return NULL;
    }
    for (size_t i = hash_str(name) & (reg_cap - 1);; i = (i + 1) & (reg_cap - 1)) {
        if (!reg[i].name) {
            return NULL;
        }
        if (strcmp(reg[i].name, name) == 0) {
            return &reg[i];
        }
    }
}

static void reg_put(const char* name, const char* full, const char* shrt, const char* keys) {
    if ((reg_n + 1) * 2 > reg_cap) {
        size_t ocap = reg_cap;
        RegEntry* old = reg;
        reg_cap = reg_cap ? reg_cap * 2 : 256;
        reg = xcalloc(reg_cap, sizeof(RegEntry));
        reg_n = 0;
        for (size_t i = 0; i < ocap; i++) {
            if (old[i].name) {
                size_t j = hash_str(old[i].name) & (reg_cap - 1);
                while (reg[j].name) {
                    j = (j + 1) & (reg_cap - 1);
                }
                reg[j] = old[i];
                reg_n++;
            }
        }
        free(old);
    }
    RegEntry* e = reg_find(name);
    if (e) {
        if (strcmp(e->shrt, shrt) == 0 && strcmp(e->keys, keys) != 0 && *keys) {
            char* u = xasprintf("%s%s%s", e->keys, *e->keys ? " " : "", keys);
            retired = xrealloc(retired, sizeof(char*) * (nretired + 1));
            retired[nretired++] = e->keys;
            e->keys = u;
        }
        return;
    }
    size_t j = hash_str(name) & (reg_cap - 1);
    while (reg[j].name) {
        j = (j + 1) & (reg_cap - 1);
    }
    reg[j].name = xstrdup(name);
    reg[j].full = xstrdup(full);
    reg[j].shrt = xstrdup(shrt);
    reg[j].keys = xstrdup(keys);
    reg_n++;
}

/* The registered names of name (borrowed, stable until ShortName_forget); 0 if none. */
static int reg_lookup(const char* name, const char** full, const char** shrt, const char** keys) {
    pthread_mutex_lock(&reg_lock);
    const RegEntry* e = reg_find(name);
    if (e) {
        *full = e->full;
        *shrt = e->shrt;
        *keys = e->keys;
    }
    pthread_mutex_unlock(&reg_lock);
    return e != NULL;
}

const char* ShortName_fullName(const char* name) {
    const char *full, *shrt, *keys;
    return reg_lookup(name, &full, &shrt, &keys) ? full : NULL;
}

void ShortName_forget(void) {
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nretired; i++) {
        free(retired[i]);
    }
    free(retired);
    retired = NULL;
    nretired = 0;
    for (size_t i = 0; i < reg_cap; i++) {
        free(reg[i].name);
        free(reg[i].full);
        free(reg[i].shrt);
        free(reg[i].keys);
    }
    free(reg);
    reg = NULL;
    reg_cap = reg_n = 0;
    pthread_mutex_unlock(&reg_lock);
}

DcuStatus ShortName_assignAll(TraceDb* db, DcuError* err) {
    sqlite3_stmt* st = NULL;
    KName* k = NULL;
    int n = 0, cap = 0;
    DcuStatus s = TraceDb_prepare(db, "SELECT id, name FROM kernel ORDER BY id", &st, err);
    if (s != DCU_OK) {
        return s;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            k = xrealloc(k, sizeof(KName) * (size_t)cap);
        }
        k[n].id = sqlite3_column_int64(st, 0);
        k[n].full = xstrdup((const char*)sqlite3_column_text(st, 1));
        k[n].shrt = ShortName_base(k[n].full);
        n++;
    }
    sqlite3_finalize(st);
    st = NULL;
    make_unique(k, n);
    const char** names = xmalloc(sizeof(char*) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        names[i] = k[i].shrt;
    }
    char** keys = ShortName_keysFor(names, n);
    s = TraceDb_prepare(db, "UPDATE kernel SET short_name = ?1, short_keys = ?2 WHERE id = ?3",
                        &st, err);
    for (int i = 0; i < n && s == DCU_OK; i++) {
        sqlite3_bind_text(st, 1, k[i].shrt, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, keys[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, k[i].id);
        if (sqlite3_step(st) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "short names: %s", sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_reset(st);
        pthread_mutex_lock(&reg_lock);
        reg_put(k[i].full, k[i].full, k[i].shrt, keys[i]);
        reg_put(k[i].shrt, k[i].full, k[i].shrt, keys[i]);
        pthread_mutex_unlock(&reg_lock);
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        free(k[i].full);
        free(k[i].shrt);
        free(keys[i]);
    }
    free(keys);
    free(names);
    free(k);
    return s;
}

/* ---- fitting to a width ------------------------------------------------------------------- */

/* cells the name takes with this keep mask: kept characters plus one per dropped run */
static int mask_cost(const char* s, int n, const char* keep) {
    int w = 0, len;
    for (int i = 0; i < n; i += len) {
        unsigned int cp = decode((const unsigned char*)s + i, &len);
        if (keep[i]) {
            w += cp_width(cp);
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
    while (g.s > 0 && is_ident(s[g.s - 1])) {
        g.s--;
    }
    while (g.e < n && is_ident(s[g.e])) {
        g.e++;
    }
    if (all_digits(s, w.s, w.e) || (w.e - w.s <= 2)) {
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
    if (lt && lt > s && is_ident(lt[-1])) {
        for (const char* p = lt + 1; *p && nk < max;) {
            if (!is_ident(*p)) {
                p++;
                continue;
            }
            const char* b = p;
            while (is_ident(*p)) {
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
    if (!lt && mt && is_digit(mt[3]) && nk < max) {
        const char* e = mt + 1;
        while (is_alnum(*e)) {
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
        int cw = cp_width(decode((const unsigned char*)s + i, &len));
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
    while (first < n && !is_alnum(s[first])) {
        first++;
    }
    while (first < n && is_alnum(s[first])) {
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
                decode((const unsigned char*)s + p, &len);
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
    if (!keys && reg_lookup(name, &rfull, &rshrt, &rkeys)) {
        name = rshrt; /* a loaded kernel, by its full or short name */
        keys = rkeys;
    }
    char* own = keys ? NULL : strip_namespaces(name);
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
            int cw = cp_width(decode((const unsigned char*)f + p, &len));
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
    int found = reg_lookup(name, &rfull, &rshrt, &rkeys);
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
        while (g.s > 0 && is_ident(s[g.s - 1])) {
            g.s--;
        }
        while (g.e < n && is_ident(s[g.e])) {
            g.e++;
        }
        if (g.e - g.s > best.e - best.s && !is_digit(s[g.s])) {
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
