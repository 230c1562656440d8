/* collectives_table.c - the Collectives view's tables (collectives.h): one row per
 * instance, per type and size bucket, and per rank how often it arrived last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/collectives.h"
#include "dcutop/xalloc.h"

static const RsColumn inst_cols[] = {
    {"process_group", "Group", CT_TEXT},   {"pg_desc", "Group desc", CT_TEXT},
    {"seq", "Seq", CT_INT},                {"type", "Type", CT_TEXT},
    {"bytes", "Bytes", CT_BYTES},          {"dtype", "Dtype", CT_TEXT},
    {"ranks", "Ranks", CT_INT},            {"group_size", "Group size", CT_INT},
    {"first_arrival_ns", "First arrival", CT_INT},
    {"last_arrival_ns", "Last arrival", CT_INT},
    {"skew_ns", "Skew", CT_NS},            {"first_rank", "First", CT_INT},
    {"last_rank", "Last", CT_INT},         {"latency_ns", "Latency", CT_NS},
    {"max_dur_ns", "Max dur", CT_NS},      {"algbw_gbps", "Alg GB/s", CT_REAL},
    {"busbw_gbps", "Bus GB/s", CT_REAL},   {"mismatch", "Mismatch", CT_INT},
    {"arrivals", "Arrivals (rank:offset/dur ns)", CT_TEXT},
    {"end_spread_ns", "End spread", CT_NS},
};
enum { I_PG, I_DESC, I_SEQ, I_TYPE, I_BYTES, I_DTYPE, I_RANKS, I_GSIZE, I_FIRST, I_LAST,
       I_SKEW, I_FRANK, I_LRANK, I_LAT, I_MAXDUR, I_ALG, I_BUS, I_MISMATCH, I_ARR, I_ENDSPREAD,
       I_NCOLS };

static void set_real(ResultSet* rs, int r, int c, double v) {
    if (!isnan(v)) {
        ResultSet_setReal(rs, r, c, v);
    }
}

ResultSet* Collectives_instances(const Collectives* this) {
    ResultSet* rs = ResultSet_new("collectives", inst_cols, I_NCOLS);
    ResultSet_reserve(rs, this->n);
    for (int i = 0; i < this->n; i++) {
        const CollInstance* c = &this->v[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, I_PG, c->pg);
        if (c->pg_desc) {
            ResultSet_setText(rs, r, I_DESC, c->pg_desc);
        }
        ResultSet_setInt(rs, r, I_SEQ, c->seq);
        ResultSet_setText(rs, r, I_TYPE, c->type);
        if (c->bytes >= 0) {
            ResultSet_setInt(rs, r, I_BYTES, c->bytes);
        }
        if (c->dtype) {
            ResultSet_setText(rs, r, I_DTYPE, c->dtype);
        }
        ResultSet_setInt(rs, r, I_RANKS, c->nr);
        ResultSet_setInt(rs, r, I_GSIZE, c->group_size);
        ResultSet_setInt(rs, r, I_FIRST, c->r[0].start_ns);
        ResultSet_setInt(rs, r, I_LAST, c->r[0].start_ns + c->skew_ns);
        ResultSet_setInt(rs, r, I_SKEW, c->skew_ns);
        ResultSet_setInt(rs, r, I_FRANK, c->r[0].rank);
        if (c->last_rank >= 0) {
            ResultSet_setInt(rs, r, I_LRANK, c->last_rank);
        }
        ResultSet_setInt(rs, r, I_LAT, c->latency_ns);
        int64_t mx = 0;
        size_t cap = (size_t)c->nr * 48 + 1, len = 0;
        char* arr = xmalloc(cap);
        arr[0] = '\0';
        for (int k = 0; k < c->nr; k++) {
            int64_t d = c->r[k].end_ns - c->r[k].start_ns;
            mx = d > mx ? d : mx;
            len += (size_t)snprintf(arr + len, cap - len, "%s%d:%lld/%lld", k ? " " : "",
                                    c->r[k].rank, (long long)(c->r[k].start_ns - c->r[0].start_ns),
                                    (long long)d);
        }
        ResultSet_setInt(rs, r, I_MAXDUR, mx);
        set_real(rs, r, I_ALG, c->algbw);
        set_real(rs, r, I_BUS, c->busbw);
        ResultSet_setInt(rs, r, I_MISMATCH, c->mismatch);
        ResultSet_setText(rs, r, I_ARR, arr);
        ResultSet_setInt(rs, r, I_ENDSPREAD, c->end_spread_ns);
        free(arr);
    }
    return rs;
}

/* ---- buckets ----------------------------------------------------------------------------- */

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* The p-quantile of v[0..n) sorted, linear between neighbours (p = 0.5: the median). */
static double quantile(const double* v, int n, double p) {
    if (n == 0) {
        return NAN;
    }
    double pos = p * (n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

static int log2_floor(int64_t b) {
    int k = 0;
    while (k < 62 && ((int64_t)1 << (k + 1)) <= b) {
        k++;
    }
    return k;
}

/* "512 B", "4 KiB", "16 MiB" for 2^k bytes. */
static void pow2_text(int k, char* buf, size_t cap) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    snprintf(buf, cap, "%lld %s", 1LL << (k % 10), units[k / 10]);
}

const char* Collectives_sizeLabel(int64_t bytes, char* buf, int cap) {
    if (bytes < 1) {
        snprintf(buf, (size_t)cap, "unknown");
        return buf;
    }
    char lo[32], hi[32];
    int k = log2_floor(bytes);
    pow2_text(k, lo, sizeof(lo));
    pow2_text(k + 1, hi, sizeof(hi));
    snprintf(buf, (size_t)cap, "%s-%s", lo, hi);
    return buf;
}

typedef struct {
    const CollInstance* c;
    int bucket; /* log2 of bytes; -1 unknown */
} Ref;

static int cmp_ref(const void* a, const void* b) {
    const Ref *x = a, *y = b;
    int t = strcmp(x->c->type, y->c->type);
    if (t) return t;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

static const RsColumn bucket_cols[] = {
    {"type", "Type", CT_TEXT},                {"size", "Size", CT_TEXT},
    {"count", "Count", CT_INT},               {"bytes_median", "Bytes (median)", CT_BYTES},
    {"latency_ns", "Latency", CT_NS},         {"wait_ns", "Wait", CT_NS},
    {"busbw_median", "Bus GB/s", CT_REAL},    {"busbw_p10", "p10", CT_REAL},
    {"busbw_p90", "p90", CT_REAL},            {"skew_median_ns", "Skew", CT_NS},
    {"skew_max_ns", "Max skew", CT_NS},     {"ref_busbw", "Ref GB/s", CT_REAL},
    {"ref_pct", "%Ref", CT_PCT},
};
enum { B_TYPE, B_SIZE, B_COUNT, B_BYTES, B_LAT, B_WAIT, B_BUS, B_P10, B_P90, B_SKEW, B_SKEWMAX,
       B_REF, B_REFPCT, B_NCOLS };

static void bucket_row(ResultSet* rs, const Ref* p, int n, const CollRef* ref) {
    int r = ResultSet_addRow(rs);
    ResultSet_setText(rs, r, B_TYPE, p[0].c->type);
    char size[72];
    ResultSet_setText(rs, r, B_SIZE, Collectives_sizeLabel(p[0].c->bytes, size, sizeof(size)));
    ResultSet_setInt(rs, r, B_COUNT, n);
    double* bus = xmalloc(sizeof(double) * (size_t)n);
    double* skew = xmalloc(sizeof(double) * (size_t)n);
    double* bytes = xmalloc(sizeof(double) * (size_t)n);
    int nb = 0, ny = 0;
    int64_t lat = 0, wait = 0;
    for (int i = 0; i < n; i++) {
        const CollInstance* c = p[i].c;
        if (!isnan(c->busbw)) {
            bus[nb++] = c->busbw;
        }
        if (c->bytes >= 0) {
            bytes[ny++] = (double)c->bytes;
        }
        skew[i] = (double)c->skew_ns;
        lat += c->latency_ns;
        for (int k = 0; k < c->nr; k++) {
            wait += c->r[k].end_ns - c->r[k].start_ns - c->latency_ns;
        }
    }
    qsort(bus, (size_t)nb, sizeof(double), cmp_double);
    qsort(skew, (size_t)n, sizeof(double), cmp_double);
    qsort(bytes, (size_t)ny, sizeof(double), cmp_double);
    if (ny > 0) {
        ResultSet_setInt(rs, r, B_BYTES, llround(quantile(bytes, ny, 0.5)));
    }
    ResultSet_setInt(rs, r, B_LAT, lat);
    ResultSet_setInt(rs, r, B_WAIT, wait);
    if (nb > 0) {
        double med = quantile(bus, nb, 0.5);
        ResultSet_setReal(rs, r, B_BUS, med);
        ResultSet_setReal(rs, r, B_P10, quantile(bus, nb, 0.1));
        ResultSet_setReal(rs, r, B_P90, quantile(bus, nb, 0.9));
        double rb = ref && ny > 0 ? CollRef_busbw(ref, p[0].c->type,
                                                  llround(quantile(bytes, ny, 0.5)))
                                  : NAN;
        if (!isnan(rb) && rb > 0) {
            ResultSet_setReal(rs, r, B_REF, rb);
            ResultSet_setReal(rs, r, B_REFPCT, 100.0 * med / rb);
        }
    }
    ResultSet_setNs(rs, r, B_SKEW, quantile(skew, n, 0.5));
    ResultSet_setInt(rs, r, B_SKEWMAX, (int64_t)skew[n - 1]);
    free(bus);
    free(skew);
    free(bytes);
}

ResultSet* Collectives_buckets(const Collectives* this, const CollRef* ref) {
    ResultSet* rs = ResultSet_new("collective_buckets", bucket_cols, B_NCOLS);
    Ref* p = xmalloc(sizeof(Ref) * (size_t)(this->n ? this->n : 1));
    for (int i = 0; i < this->n; i++) {
        const CollInstance* c = &this->v[i];
        p[i] = (Ref){c, c->bytes > 0 ? log2_floor(c->bytes) : -1};
    }
    qsort(p, (size_t)this->n, sizeof(Ref), cmp_ref);
    for (int i = 0; i < this->n;) {
        int j = i + 1;
        while (j < this->n && cmp_ref(&p[i], &p[j]) == 0) {
            j++;
        }
        bucket_row(rs, &p[i], j - i, ref);
        i = j;
    }
    free(p);
    return rs;
}

/* ---- last arrivals ------------------------------------------------------------------------ */

static const RsColumn last_cols[] = {
    {"rank", "Rank", CT_INT},           {"instances", "Collectives", CT_INT},
    {"last", "Last", CT_INT},           {"last_pct", "%Last", CT_PCT},
    {"skew_ns", "Skew when last", CT_NS}, {"skew_median_ns", "Median skew", CT_NS},
    {"first", "First", CT_INT},             {"end_offset_ns", "End offset", CT_NS},
};

typedef struct {
    int rank;
    int64_t in, last, first, skew;
    double* skews;
    int nskews, cap;
    double* ends; /* its end - the collective's first end */
    int nends, capends;
} PerRank;

static void push(double** v, int* n, int* cap, double x) {
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *v = xrealloc(*v, sizeof(double) * (size_t)*cap);
    }
    (*v)[(*n)++] = x;
}

static PerRank* rank_of(PerRank** v, int* n, int rank) {
    for (int i = 0; i < *n; i++) {
        if ((*v)[i].rank == rank) {
            return &(*v)[i];
        }
    }
    *v = xrealloc(*v, sizeof(PerRank) * (size_t)(*n + 1));
    PerRank* p = &(*v)[(*n)++];
    memset(p, 0, sizeof(*p));
    p->rank = rank;
    return p;
}

static int cmp_rank(const void* a, const void* b) {
    const PerRank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

ResultSet* Collectives_lastArrivals(const Collectives* this) {
    ResultSet* rs = ResultSet_new("collective_last", last_cols,
                                  (int)(sizeof(last_cols) / sizeof(last_cols[0])));
    PerRank* v = NULL;
    int n = 0;
    for (int i = 0; i < this->n; i++) {
        const CollInstance* c = &this->v[i];
        if (c->nr < 2) {
            continue; /* one rank seen: nobody arrived last */
        }
        int64_t end0 = INT64_MAX;
        for (int k = 0; k < c->nr; k++) {
            end0 = c->r[k].end_ns < end0 ? c->r[k].end_ns : end0;
        }
        for (int k = 0; k < c->nr; k++) {
            PerRank* p = rank_of(&v, &n, c->r[k].rank);
            p->in++;
            push(&p->ends, &p->nends, &p->capends, (double)(c->r[k].end_ns - end0));
        }
        if (c->last_rank < 0) { /* all at once: taken part in, nobody last or first */
            continue;
        }
        rank_of(&v, &n, c->r[0].rank)->first++;
        PerRank* p = rank_of(&v, &n, c->last_rank);
        p->last++;
        p->skew += c->skew_ns;
        push(&p->skews, &p->nskews, &p->cap, (double)c->skew_ns);
    }
    if (n > 0) {
        qsort(v, (size_t)n, sizeof(PerRank), cmp_rank);
    }
    for (int i = 0; i < n; i++) {
        int r = ResultSet_addRow(rs);
        ResultSet_setInt(rs, r, 0, v[i].rank);
        ResultSet_setInt(rs, r, 1, v[i].in);
        ResultSet_setInt(rs, r, 2, v[i].last);
        ResultSet_setReal(rs, r, 3, v[i].in ? 100.0 * (double)v[i].last / (double)v[i].in : 0);
        ResultSet_setInt(rs, r, 4, v[i].skew);
        if (v[i].nskews > 0) {
            qsort(v[i].skews, (size_t)v[i].nskews, sizeof(double), cmp_double);
            ResultSet_setNs(rs, r, 5, quantile(v[i].skews, v[i].nskews, 0.5));
        }
        ResultSet_setInt(rs, r, 6, v[i].first);
        if (v[i].nends > 0) {
            qsort(v[i].ends, (size_t)v[i].nends, sizeof(double), cmp_double);
            ResultSet_setNs(rs, r, 7, quantile(v[i].ends, v[i].nends, 0.5));
        }
        free(v[i].skews);
        free(v[i].ends);
    }
    free(v);
    return rs;
}

static void time_text(double ns, char* buf, size_t cap) {
    if (ns >= 1e6) {
        snprintf(buf, cap, "%.2f ms", ns / 1e6);
    } else {
        snprintf(buf, cap, "%.1f us", ns / 1e3);
    }
}

char* Collectives_summaryText(const Collectives* c, const ResultSet* last) {
    if (c->n == 0) {
        return xstrdup("No collectives with their arguments in these traces (PyTorch profiler "
                       "traces of NCCL/RCCL jobs carry them).");
    }
    int best = -1;
    for (int r = 0; r < last->nrows; r++) {
        if (best < 0 || ResultSet_cellc(last, r, 2)->i > ResultSet_cellc(last, best, 2)->i) {
            best = r;
        }
    }
    if (best < 0 || ResultSet_cellc(last, best, 2)->i == 0) {
        return xasprintf("%d collectives, at none of them a rank later than another: no "
                         "arrival skew.",
                         c->n);
    }
    char skew[32], spread[32];
    time_text(ResultSet_cellc(last, best, 5)->d, skew, sizeof(skew));
    char* text = xasprintf("Rank %lld arrives last at %lld of the %lld collectives it takes part "
                           "in (%.0f%%), the others waiting %s (median skew) for it.",
                           (long long)ResultSet_cellc(last, best, 0)->i,
                           (long long)ResultSet_cellc(last, best, 2)->i,
                           (long long)ResultSet_cellc(last, best, 1)->i,
                           ResultSet_cellc(last, best, 3)->d, skew);
    if (isnan(c->end_spread_median_ns)) {
        return text;
    }
    time_text(c->end_spread_median_ns, spread, sizeof(spread));
    /* every rank leaves a collective once the data is in: on clocks that agree the ends lie
     * close, so a skew far above the spread is waiting, not a clock offset */
    char* both = xasprintf("%s The ranks leave each collective within %s of one another "
                           "(median end spread), so skews well above that are waiting, not "
                           "clock offsets.",
                           text, spread);
    free(text);
    return both;
}
