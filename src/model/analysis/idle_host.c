/* idle_host.c - see idle_host.h. */
#include "idle_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/key_sort.h"
#include "dcutop/xalloc.h"

/* Host rows in blocks of HOST_BLOCK: growing one array and glibc's merge sort of the 48-byte
 * rows were half of reading a million of them. */
enum { HOST_SHIFT = 16, HOST_BLOCK = 1 << HOST_SHIFT };

static Host* host_at(const HostBlocks* hb, int64_t i) {
    return &hb->b[i >> HOST_SHIFT][i & (HOST_BLOCK - 1)];
}

Host* HostBlocks_add(HostBlocks* hb) {
    if ((hb->n & (HOST_BLOCK - 1)) == 0) {
        hb->b = xrealloc(hb->b, (size_t)((hb->n >> HOST_SHIFT) + 1) * sizeof(*hb->b));
        hb->b[hb->n >> HOST_SHIFT] = xmalloc(HOST_BLOCK * sizeof(Host));
    }
    return host_at(hb, hb->n++);
}

void HostBlocks_free(HostBlocks* hb) {
    for (int64_t i = 0; i < hb->n; i += HOST_BLOCK) {
        free(hb->b[i >> HOST_SHIFT]);
    }
    free(hb->b);
    hb->b = NULL;
    hb->n = 0;
}

/* The last key (end, outer first), then the order read: what a stable sort keeps. */
static int host_tie(void* ctx, uint32_t a, uint32_t b) {
    const Host *x = host_at(ctx, a), *y = host_at(ctx, b);
    if (x->end != y->end) {
        return x->end > y->end ? -1 : 1;
    }
    return (a > b) - (a < b);
}

static int cmp_thread(const void* a, const void* b) {
    const int64_t *x = a, *y = b; /* pid, tid, index */
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Threads ranked by (pid, tid) as the group, start as the key (ties as glibc's stable qsort
 * left them). */
Host* HostBlocks_sorted(HostBlocks* hb) {
    int64_t n = hb->n;
    if (n == 0) {
        return NULL;
    }
    SortKey* k = xmalloc((size_t)n * sizeof(*k));
    Intern* ix = Intern_new(); /* (pid, tid) -> 1 + index in th */
    int64_t* th = NULL;        /* pid, tid, index: three per thread */
    int64_t nth = 0, last = 0, lpid = 0, ltid = 0;
    for (int64_t i = 0; i < n; i++) {
        const Host* x = host_at(hb, i);
        if (!last || x->pid != lpid || x->tid != ltid) {
            int64_t key[2] = {x->pid, x->tid};
            last = Intern_get(ix, (const char*)key, sizeof(key));
            if (!last) {
                th = xrealloc(th, (size_t)(nth + 1) * 3 * sizeof(*th));
                th[3 * nth] = x->pid;
                th[3 * nth + 1] = x->tid;
                th[3 * nth + 2] = nth;
                last = ++nth;
                Intern_put(ix, (const char*)key, sizeof(key), last);
            }
            lpid = x->pid;
            ltid = x->tid;
        }
        k[i] = (SortKey){x->start, (uint32_t)(last - 1), (uint32_t)i};
    }
    Intern_delete(ix);
    qsort(th, (size_t)nth, 3 * sizeof(*th), cmp_thread);
    uint32_t* rank = xmalloc((size_t)(nth ? nth : 1) * sizeof(*rank));
    for (int64_t r = 0; r < nth; r++) {
        rank[th[3 * r + 2]] = (uint32_t)r;
    }
    for (int64_t i = 0; i < n; i++) {
        k[i].group = rank[k[i].group];
    }
    SortKey_sort(k, (size_t)n, host_tie, hb);
    Host* h = xmalloc((size_t)n * sizeof(*h));
    for (int64_t i = 0; i < n; i++) {
        h[i] = *host_at(hb, k[i].idx);
        int same = i && h[i - 1].pid == h[i].pid && h[i - 1].tid == h[i].tid;
        h[i].maxend = same && h[i - 1].maxend > h[i].end ? h[i - 1].maxend : h[i].end;
    }
    free(rank);
    free(th);
    free(k);
    return h;
}

int64_t IdleHost_upper(const Host* h, int64_t n, int64_t pid, int64_t tid, int64_t t) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        const Host* x = &h[m];
        int before = x->pid < pid || (x->pid == pid && (x->tid < tid ||
                                                        (x->tid == tid && x->start < t)));
        if (before) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    return lo;
}

/* The issuer is the innermost host activity of the thread around the call, ATen's private
 * ops (aten::_local_scalar_dense under aten::item) skipped: they are how the public op the
 * user wrote does its work. */
const char* IdleHost_syncLabel(const Host* h, int64_t nh, const Host* y, char* buf,
                               size_t cap) {
    const Host* best = NULL;
    for (int64_t i = IdleHost_upper(h, nh, y->pid, y->tid, y->start + 1) - 1; i >= 0; i--) {
        const Host* x = &h[i];
        if (x->pid != y->pid || x->tid != y->tid || x->maxend < y->end) {
            break;
        }
        if (x->start > y->start || x->end < y->end || strcmp(x->name, y->name) == 0 ||
            strncmp(x->name, "aten::_", 7) == 0) {
            continue;
        }
        if (!best || x->start > best->start ||
            (x->start == best->start && x->end < best->end)) {
            best = x;
        }
    }
    if (!best) {
        return y->name;
    }
    snprintf(buf, cap, "%s in %s", y->name, best->name);
    return buf;
}

static void sort_points(int64_t* pts, int np) {
    for (int i = 1; i < np; i++) { /* insertion sort: few points */
        int64_t v = pts[i];
        int j = i - 1;
        while (j >= 0 && pts[j] > v) {
            pts[j + 1] = pts[j];
            j--;
        }
        pts[j + 1] = v;
    }
}

enum { MAXI = 512 }; /* host rows of one gap looked at, the latest first */

typedef struct { /* one activity's total within a gap */
    const char* name;
    int64_t ns;
} Part;

/* The innermost of iv covering [a, b): the one that started latest, the shorter on a tie. */
static const Host* innermost(const Host* const* iv, int ni, int64_t a, int64_t b) {
    const Host* best = NULL;
    for (int i = 0; i < ni; i++) {
        const Host* x = iv[i];
        if (x->start <= a && x->end >= b &&
            (!best || x->start > best->start ||
             (x->start == best->start && x->end < best->end))) {
            best = x;
        }
    }
    return best;
}

static void part_add(Part* p, int* np, const char* name, int64_t ns) {
    for (int i = 0; i < *np; i++) {
        if (p[i].name == name || strcmp(p[i].name, name) == 0) {
            p[i].ns += ns;
            return;
        }
    }
    p[(*np)++] = (Part){name, ns};
}

void IdleHost_gap(const Host* h, int64_t nh, int64_t pid, int64_t tid, int64_t g0, int64_t g1,
                  const Host* sync, const char* sync_name, IdleHostEmit emit, void* ctx) {
    const Host* iv[MAXI];
    int ni = 0;
    if (pid != -1 || tid != -1) {
        for (int64_t i = IdleHost_upper(h, nh, pid, tid, g1) - 1; i >= 0 && ni < MAXI; i--) {
            const Host* x = &h[i];
            if (x->pid != pid || x->tid != tid || x->maxend <= g0) {
                break;
            }
            if (x->end > g0) {
                iv[ni++] = x;
            }
        }
    }
    int64_t* pts = xmalloc((size_t)(2 * ni + 2) * sizeof(int64_t)); /* breakpoints */
    Part* parts = xmalloc((size_t)(ni + 2) * sizeof(Part));
    int np = 0, nparts = 0;
    pts[np++] = g0;
    pts[np++] = g1;
    for (int i = 0; i < ni; i++) {
        if (iv[i]->start > g0 && iv[i]->start < g1) pts[np++] = iv[i]->start;
        if (iv[i]->end > g0 && iv[i]->end < g1) pts[np++] = iv[i]->end;
    }
    sort_points(pts, np);
    if (sync) {
        parts[nparts++] = (Part){sync_name, 0};
    }
    for (int p = 0; p + 1 < np; p++) {
        int64_t a = pts[p], b = pts[p + 1];
        if (b <= a) {
            continue;
        }
        const Host* best = innermost(iv, ni, a, b);
        int in_sync = sync && best && best->start == sync->start && best->end == sync->end &&
                      strcmp(best->name, sync->name) == 0;
        part_add(parts, &nparts, in_sync ? sync_name : best ? best->name : "(untraced)", b - a);
    }
    /* largest first, the earlier on a tie (stable insertion), the sync call kept first */
    for (int i = sync ? 2 : 1; i < nparts; i++) {
        Part v = parts[i];
        int j = i - 1;
        while (j >= (sync ? 1 : 0) && parts[j].ns < v.ns) {
            parts[j + 1] = parts[j];
            j--;
        }
        parts[j + 1] = v;
    }
    for (int i = 0; i < nparts; i++) {
        if (parts[i].ns > 0 || (sync && i == 0)) {
            emit(ctx, parts[i].name, parts[i].ns);
        }
    }
    free(parts);
    free(pts);
}

/* "cause\x1fname" into key (at most cap - 1 bytes, as snprintf cut it); its length. */
static size_t tally_key(char* key, size_t cap, int cause, const char* name) {
    size_t kl = (size_t)snprintf(key, cap, "%d\x1f", cause);
    size_t nl = strlen(name);
    nl = nl < cap - 1 - kl ? nl : cap - 1 - kl;
    memcpy(key + kl, name, nl);
    key[kl + nl] = '\0';
    return kl + nl;
}

void HostTally_init(HostTally* t) {
    memset(t, 0, sizeof(*t));
    t->ix = Intern_new();
}

void HostTally_add(HostTally* t, int cause, const char* name, int64_t ns) {
    int64_t id = t->last[cause];
    if (id && strcmp(t->name[id - 1], name) == 0) {
        t->ns[id - 1] += ns;
        return;
    }
    char key[600];
    size_t kl = tally_key(key, sizeof(key), cause, name);
    id = Intern_get(t->ix, key, kl);
    if (!id) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 64;
            t->name = xrealloc(t->name, (size_t)t->cap * sizeof(char*));
            t->cause = xrealloc(t->cause, (size_t)t->cap * sizeof(int));
            t->ns = xrealloc(t->ns, (size_t)t->cap * sizeof(int64_t));
        }
        t->name[t->n] = xstrdup(name);
        t->cause[t->n] = cause;
        t->ns[t->n] = 0;
        id = ++t->n;
        Intern_put(t->ix, key, kl, id);
    }
    t->last[cause] = id;
    t->ns[id - 1] += ns;
}

void HostTally_merge(HostTally* t, HostTally* from) {
    for (int64_t i = 0; i < from->n; i++) {
        HostTally_add(t, from->cause[i], from->name[i], from->ns[i]);
    }
    HostTally_done(from);
}

void HostTally_done(HostTally* t) {
    for (int64_t i = 0; i < t->n; i++) {
        free(t->name[i]);
    }
    free(t->name);
    free(t->cause);
    free(t->ns);
    Intern_delete(t->ix);
    memset(t, 0, sizeof(*t));
}
