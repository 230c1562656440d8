/* shortname_keys.c - the words that tell a name apart from its look-alikes (see
 * shortname.h). Words are runs of letters and digits, so '_' and punctuation separate them
 * ("CUDAFunctor_add" holds "CUDAFunctor" and "add"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/shortname.h"
#include "dcutop/xalloc.h"
#include "shortname_internal.h"

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
        if (!sn_is_alnum(s[i])) {
            i++;
            continue;
        }
        int j = i;
        while (sn_is_alnum(s[j])) {
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

int ShortName_allDigits(const char* s, int a, int b) {
    for (int i = a; i < b; i++) {
        if (!sn_is_digit(s[i])) {
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
    int extra = sn_is_digit(K->s[K->w[i].s]) ? 8 : 0; /* 2, 4u, 3ul: numbers read poorly alone */
    for (int p = 0; plumbing[p]; p++) { /* language words say little about the kernel */
        if ((int)strlen(plumbing[p]) == len && strncmp(K->s + K->w[i].s, plumbing[p], len) == 0) {
            extra = 12;
        }
    }
    const char* w = K->s + K->w[i].s;
    if (len > 2 && w[0] == 'M' && w[1] == 'T' && sn_is_digit(w[2])) {
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

/* The members are distinct names (ShortName_keysFor keys each text once). The look-alikes
 * left are listed only once the first word is chosen, from that word's postings: listing
 * every other member for every name made a group of n names cost n^2 (100,000
 * triton_poi_fused_* names took 56 s). */
static char* keys_of(const Words* all, const int* members, int nm, int k, WordCount* wc) {
    const Words* K = &all[k];
    int* rem = xmalloc(sizeof(int) * (size_t)(nm ? nm : 1));
    int nrem = nm - 1;   /* every other member is a look-alike until a word tells it apart */
    int first_step = 1; /* counts come from wc; rem not filled yet */
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
                if (j != k) {
                    rem[nrem++] = j;
                }
            }
            continue;
        }
        if (first_step) { /* no word tells any look-alike apart: all of them remain */
            nrem = 0;
            for (int m = 0; m < nm; m++) {
                if (members[m] != k) {
                    rem[nrem++] = members[m];
                }
            }
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

typedef struct {
    const char* s; /* borrowed */
    int i;
} NameIdx;

static int cmp_name_idx(const void* x, const void* y) {
    const NameIdx* a = x;
    const NameIdx* b = y;
    int c = strcmp(a->s, b->s);
    return c ? c : a->i - b->i;
}

static char** keys_distinct(const char* const* names, int n);

/* Each distinct text keyed once (a repeated name tells nothing apart), then copied. */
char** ShortName_keysFor(const char* const* names, int n) {
    NameIdx* by = xmalloc(sizeof(NameIdx) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        by[i] = (NameIdx){names[i], i};
    }
    if (n > 1) {
        qsort(by, (size_t)n, sizeof(NameIdx), cmp_name_idx);
    }
    const char** uniq = xmalloc(sizeof(char*) * (size_t)(n ? n : 1));
    int* rep = xmalloc(sizeof(int) * (size_t)(n ? n : 1)); /* name -> its distinct text */
    int nu = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || strcmp(by[i].s, by[i - 1].s) != 0) {
            uniq[nu++] = by[i].s;
        }
        rep[by[i].i] = nu - 1;
    }
    char** ukeys = keys_distinct(uniq, nu);
    char** out = xmalloc(sizeof(char*) * (size_t)(n ? n : 1));
    char* taken = xcalloc((size_t)(nu ? nu : 1), 1);
    for (int i = 0; i < n; i++) {
        out[i] = taken[rep[i]] ? xstrdup(ukeys[rep[i]]) : ukeys[rep[i]];
        taken[rep[i]] = 1;
    }
    free(taken);
    free(ukeys);
    free(rep);
    free(uniq);
    free(by);
    return out;
}

static char** keys_distinct(const char* const* names, int n) {
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

