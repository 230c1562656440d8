/* ranks_explain.c - the kernels that make up the straggler's excess (ranks.h "excess
 * kernels"): per kernel, its time per straggling step on the straggler against the median of
 * the other ranks'. */
#include "ranks_explain.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

void RanksExplain_add(RankRow* r, I64Map* map, int64_t kernel, int step, int64_t ns) {
    int64_t key = kernel * (int64_t)(r->nsteps + 1) + step + 1;
    int64_t at = I64Map_get(map, key);
    if (at == 0) {
        if (r->nks == r->capks) {
            r->capks = r->capks ? r->capks * 2 : 64;
            r->ks = xrealloc(r->ks, sizeof(RankKernelStep) * (size_t)r->capks);
        }
        r->ks[r->nks] = (RankKernelStep){kernel, step, 0, 0};
        at = ++r->nks;
        I64Map_put(map, key, at);
    }
    r->ks[at - 1].ns += ns;
    r->ks[at - 1].calls++;
}

static int cmp_dbl(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
    if (n == 0) {
        return 0;
    }
    qsort(v, (size_t)n, sizeof(double), cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int by_excess(const void* a, const void* b) {
    const RankExcess *x = a, *y = b;
    if (x->excess_ns != y->excess_ns) {
        return x->excess_ns > y->excess_ns ? -1 : 1;
    }
    return (x->kernel_id > y->kernel_id) - (x->kernel_id < y->kernel_id);
}

static void name_kernels(TraceDb* db, RankExcess* k, int n) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT name, short_name FROM kernel WHERE id = ?1", &st, NULL) !=
        DCU_OK) {
        st = NULL;
    }
    for (int i = 0; i < n; i++) {
        const char *name = NULL, *sn = NULL;
        if (st) {
            sqlite3_bind_int64(st, 1, k[i].kernel_id);
            if (sqlite3_step(st) == SQLITE_ROW) {
                name = (const char*)sqlite3_column_text(st, 0);
                sn = (const char*)sqlite3_column_text(st, 1);
            }
        }
        k[i].name = xstrdup(name ? name : "?");
        k[i].short_name = xstrdup(sn ? sn : k[i].name);
        if (st) {
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
}

#define DONE INT64_MAX /* a column already weighed */

void RanksExplain_kernels(TraceDb* db, Ranks* j, int best, const unsigned char* straggling) {
    RankVerdict* v = &j->verdict;
    I64Map* col = I64Map_new(); /* kernel -> 1 + its column */
    int nk = 0;
    const RankRow* b = &j->rows[best];
    for (int64_t q = 0; q < b->nks; q++) { /* the straggler's kernels in those steps */
        if (b->ks[q].step < j->nsteps && straggling[b->ks[q].step] &&
            I64Map_get(col, b->ks[q].kernel_id) == 0) {
            I64Map_put(col, b->ks[q].kernel_id, ++nk);
        }
    }
    /* per rank and kernel: time and dispatches per straggling step */
    double* ns = xcalloc((size_t)j->n * (size_t)(nk ? nk : 1), sizeof(double));
    double* calls = xcalloc((size_t)j->n * (size_t)(nk ? nk : 1), sizeof(double));
    for (int i = 0; i < j->n; i++) {
        const RankRow* r = &j->rows[i];
        for (int64_t q = 0; q < r->nks; q++) {
            int64_t c = r->ks[q].step < j->nsteps && straggling[r->ks[q].step]
                            ? I64Map_get(col, r->ks[q].kernel_id)
                            : 0;
            if (c > 0) {
                ns[(size_t)i * (size_t)nk + (size_t)(c - 1)] += (double)r->ks[q].ns / v->steps;
                calls[(size_t)i * (size_t)nk + (size_t)(c - 1)] +=
                    (double)r->ks[q].calls / v->steps;
            }
        }
    }
    RankExcess* out = xcalloc((size_t)(nk ? nk : 1), sizeof(RankExcess));
    double* tmp = xmalloc(sizeof(double) * (size_t)j->n);
    int kept = 0;
    for (int64_t q = 0; q < b->nks; q++) {
        int64_t c = I64Map_get(col, b->ks[q].kernel_id);
        if (c <= 0 || c == DONE) { /* not in those steps, or already weighed */
            continue;
        }
        I64Map_put(col, b->ks[q].kernel_id, DONE);
        RankExcess* e = &out[kept];
        int m = 0, mc = 0;
        for (int i = 0; i < j->n; i++) {
            if (i != best) {
                tmp[m++] = ns[(size_t)i * (size_t)nk + (size_t)(c - 1)];
            }
        }
        e->others_ns = median(tmp, m);
        for (int i = 0; i < j->n; i++) {
            if (i != best) {
                tmp[mc++] = calls[(size_t)i * (size_t)nk + (size_t)(c - 1)];
            }
        }
        e->kernel_id = b->ks[q].kernel_id;
        e->straggler_ns = ns[(size_t)best * (size_t)nk + (size_t)(c - 1)];
        e->excess_ns = e->straggler_ns - e->others_ns;
        e->calls_excess = calls[(size_t)best * (size_t)nk + (size_t)(c - 1)] - median(tmp, mc);
        kept += e->excess_ns > 0;
    }
    for (int i = 0; i < j->n; i++) {
        free(j->rows[i].ks);
        j->rows[i].ks = NULL;
        j->rows[i].nks = j->rows[i].capks = 0;
    }
    qsort(out, (size_t)kept, sizeof(RankExcess), by_excess);
    name_kernels(db, out, kept);
    v->kernels = out;
    v->nkernels = kept;
    free(tmp);
    free(ns);
    free(calls);
    I64Map_delete(col);
}
