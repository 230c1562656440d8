/* op_build.c - the builder of a run's ops for an op-matched diff (diff_ops.h): the sources
 * (diff_ops.c's dispatch_op, marker_ops.c's ranges) hand it each dispatch with its op; it
 * counts each op's occurrence within its step and sums the dispatches per op identity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/diff.h"
#include "dcutop/i64_map.h"
#include "dcutop/intern.h"
#include "dcutop/xalloc.h"
#include "diff_ops.h"

void OpBuild_init(OpBuild* b, const DiffSide* s, const int64_t* ids) {
    memset(b, 0, sizeof(*b));
    b->side = s;
    b->kidx = I64Map_new();
    for (int i = 0; i < s->nk; i++) {
        I64Map_put(b->kidx, ids[i], i + 1);
    }
    b->top_of = I64Map_new();
    b->strings = Intern_new();
}

int OpBuild_top(OpBuild* b, int64_t id) {
    int64_t t = I64Map_get(b->top_of, id);
    if (t) {
        return (int)t - 1;
    }
    if (b->ntops == b->tcap) {
        b->tcap = b->tcap ? b->tcap * 2 : 256;
        b->tops = xrealloc(b->tops, sizeof(OpTop) * (size_t)b->tcap);
    }
    OpTop* x = &b->tops[b->ntops];
    memset(x, 0, sizeof(*x));
    x->step = INT64_MAX;
    x->key[0] = x->key[1] = -1;
    I64Map_put(b->top_of, id, b->ntops + 1);
    return b->ntops++;
}

/* One copy of each module text (the rows point into it). */
static const char* keep_string(OpBuild* b, const char* s) {
    size_t len = strlen(s);
    int64_t i = Intern_get(b->strings, s, len);
    if (i) {
        return b->pool[i - 1];
    }
    if (b->npool == b->pcap) {
        b->pcap = b->pcap ? b->pcap * 2 : 64;
        b->pool = xrealloc(b->pool, sizeof(char*) * (size_t)b->pcap);
    }
    b->pool[b->npool] = xstrdup(s);
    Intern_put(b->strings, s, len, b->npool + 1);
    return b->pool[b->npool++];
}

void OpBuild_add(OpBuild* b, int64_t kernel_id, int64_t dur, int top, int back,
                 const char* module, const char* pass, int64_t step) {
    if (b->nrecs == b->rcap) {
        b->rcap = b->rcap ? b->rcap * 2 : 1024;
        b->recs = xrealloc(b->recs, sizeof(OpRec) * (size_t)b->rcap);
    }
    OpRec* r = &b->recs[b->nrecs++];
    r->kidx = (int)I64Map_get(b->kidx, kernel_id) - 1;
    r->dur = dur;
    r->top = top;
    r->back = back;
    r->pass = keep_string(b, pass && *pass ? pass : "other");
    if (top < 0) {
        return;
    }
    b->nlinked++;
    b->linked_ns += dur;
    OpTop* t = &b->tops[top];
    if (step >= 0 && step < t->step) {
        t->step = step;
    }
    /* the module of a forward dispatch first; a backward one's is its forward op's anyway */
    if (!t->module || (!back && t->module_from_back)) {
        t->module = keep_string(b, module ? module : "");
        t->module_from_back = back;
    }
    if (!back && !t->fwd_pass) {
        t->fwd_pass = r->pass;
    }
}

static int cmp_top(const void* x, const void* y) {
    const OpTop* a = *(const OpTop* const*)x;
    const OpTop* b = *(const OpTop* const*)y;
    if (a->step != b->step) {
        return a->step < b->step ? -1 : 1;
    }
    return a->start < b->start ? -1 : a->start > b->start;
}

/* Each op's occurrence in its step among ops of the same module, name and shapes. */
static void occurrences(OpBuild* b) {
    OpTop** order = xmalloc(sizeof(OpTop*) * (size_t)(b->ntops ? b->ntops : 1));
    for (int i = 0; i < b->ntops; i++) {
        order[i] = &b->tops[i];
    }
    qsort(order, (size_t)b->ntops, sizeof(OpTop*), cmp_top);
    Intern* seen = Intern_new();
    for (int i = 0; i < b->ntops; i++) {
        OpTop* t = order[i];
        char* k = NULL;
        size_t len = 0;
        FILE* f = open_memstream(&k, &len);
        fprintf(f, "%lld\x1f%s\x1f%s\x1f%s", (long long)t->step, t->module ? t->module : "",
                t->name ? t->name : "", t->dims ? t->dims : "");
        fclose(f);
        int64_t n = Intern_get(seen, k, len);
        t->occ = (int)n;
        Intern_put(seen, k, len, n + 1);
        free(k);
    }
    Intern_delete(seen);
    free(order);
}

/* ---- one op's entry --------------------------------------------------------------------- */

typedef struct {
    int kidx;
    int64_t calls, ns;
} KUse;

typedef struct {
    DiffKernel k;
    KUse* uses;
    int nuses, ucap;
    int64_t dcap;
} Entry;

static int entry_of(OpBuild* b, Intern* keys, Entry** es, int* n, int* cap, const OpRec* r,
                    const OpTop* t) {
    char* name = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&name, &len);
    const char* pass = r->back ? "backward" : (t && t->fwd_pass ? t->fwd_pass : r->pass);
    if (t) {
        fprintf(f, "%s %s %s%s #%d", r->back ? "backward" : "forward",
                t->module && *t->module ? t->module : "-", t->name, t->dims, t->occ);
    } else {
        fprintf(f, "unlinked %s", r->kidx >= 0 ? b->side->k[r->kidx].name : "?");
    }
    fclose(f);
    int64_t i = Intern_get(keys, name, len);
    if (i) {
        free(name);
        return (int)i - 1;
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 128;
        *es = xrealloc(*es, sizeof(Entry) * (size_t)*cap);
    }
    Entry* e = &(*es)[*n];
    memset(e, 0, sizeof(*e));
    e->k.name = name;
    e->k.short_name = xstrdup(name);
    e->k.op = xcalloc(1, sizeof(DiffOp));
    e->k.op->module = xstrdup(t && t->module ? t->module : "");
    e->k.op->op = xstrdup(t && t->name ? t->name : "");
    e->k.op->shapes = xstrdup(t && t->dims ? t->dims : "");
    e->k.op->pass = xstrdup(t ? pass : r->pass);
    e->k.op->occurrence = t ? t->occ : 0;
    Intern_put(keys, name, len, *n + 1);
    return (*n)++;
}

static void use_kernel(Entry* e, int kidx, int64_t dur) {
    for (int i = 0; i < e->nuses; i++) {
        if (e->uses[i].kidx == kidx) {
            e->uses[i].calls++;
            e->uses[i].ns += dur;
            return;
        }
    }
    if (e->nuses == e->ucap) {
        e->ucap = e->ucap ? e->ucap * 2 : 4;
        e->uses = xrealloc(e->uses, sizeof(KUse) * (size_t)e->ucap);
    }
    e->uses[e->nuses++] = (KUse){kidx, 1, dur};
}

static int cmp_use(const void* x, const void* y) {
    const KUse* a = x;
    const KUse* b = y;
    return a->ns != b->ns ? (a->ns < b->ns ? 1 : -1) : a->kidx - b->kidx;
}

/* The kernels of an entry in words, its category (the kernel with most time's) and GEMM. */
static void finish_entry(const DiffSide* s, Entry* e) {
    qsort(e->uses, (size_t)e->nuses, sizeof(KUse), cmp_use);
    char* text = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&text, &len);
    for (int i = 0; i < e->nuses; i++) {
        const KUse* u = &e->uses[i];
        const char* nm = u->kidx >= 0 ? s->k[u->kidx].short_name : "?";
        fprintf(f, "%s%s x%lld", i ? "; " : "", nm, (long long)u->calls);
    }
    fclose(f);
    e->k.op->kernels = text;
    const DiffKernel* top = e->nuses && e->uses[0].kidx >= 0 ? &s->k[e->uses[0].kidx] : NULL;
    e->k.category = xstrdup(top ? top->category : "other");
    e->k.is_gemm = top ? top->is_gemm : 0;
    free(e->uses);
}

void OpBuild_finish(OpBuild* b, DiffSide* s, const char* source) {
    if (b->nlinked == 0) {
        return;
    }
    occurrences(b);
    Intern* keys = Intern_new();
    Entry* es = NULL;
    int n = 0, cap = 0;
    int* of = xmalloc(sizeof(int) * (size_t)(b->nrecs ? b->nrecs : 1));
    for (int64_t i = 0; i < b->nrecs; i++) {
        const OpRec* r = &b->recs[i];
        OpTop* t = r->top >= 0 ? &b->tops[r->top] : NULL;
        int e = t && t->key[r->back] >= 0 ? t->key[r->back] : entry_of(b, keys, &es, &n, &cap, r, t);
        if (t && t->key[r->back] < 0) {
            t->key[r->back] = e;
            es[e].k.calls++; /* one more call of the op */
        } else if (!t) {
            es[e].k.calls++; /* unlinked: one per dispatch */
        }
        of[i] = e;
        es[e].k.total_ns += r->dur;
        es[e].k.ndurs++;
        use_kernel(&es[e], r->kidx, r->dur);
    }
    for (int e = 0; e < n; e++) {
        es[e].k.durs = xmalloc(sizeof(int64_t) * (size_t)es[e].k.ndurs);
        es[e].dcap = es[e].k.ndurs;
        es[e].k.ndurs = 0;
    }
    for (int64_t i = 0; i < b->nrecs; i++) {
        DiffKernel* k = &es[of[i]].k;
        k->durs[k->ndurs++] = b->recs[i].dur;
    }
    s->ops = xmalloc(sizeof(DiffKernel) * (size_t)(n ? n : 1));
    for (int e = 0; e < n; e++) {
        finish_entry(s, &es[e]);
        s->ops[e] = es[e].k;
    }
    s->nops = n;
    s->op_source = source;
    s->op_linked_ns = b->linked_ns;
    free(of);
    free(es);
    Intern_delete(keys);
}

void OpBuild_done(OpBuild* b) {
    for (int i = 0; i < b->ntops; i++) {
        free(b->tops[i].name);
        free(b->tops[i].dims);
    }
    for (int i = 0; i < b->npool; i++) {
        free(b->pool[i]);
    }
    free(b->pool);
    free(b->tops);
    free(b->recs);
    I64Map_delete(b->kidx);
    I64Map_delete(b->top_of);
    Intern_delete(b->strings);
}

