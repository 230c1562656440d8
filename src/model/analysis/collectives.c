/* collectives.c - the collectives of a multi-rank job matched across ranks (collectives.h). */
#include "dcutop/collectives.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

typedef struct { /* one collective kernel of one rank */
    int pg;        /* index into the group names */
    int64_t run;
    int rank;
    int64_t seq_arg; /* the 'Seq' arg, -1 absent */
    int64_t seq;
    int64_t start, end;
    char type[24];
    char dtype[24];
    int64_t bytes; /* -1 unknown */
    int group_size;
} Row;

static const struct {
    const char* key; /* in the name lowered, without '_' and '-' */
    const char* type;
} type_keys[] = {
    /* longer names first: "allreduce" before "reduce", "reducescatter" before "scatter" */
    {"reducescatter", "reduce_scatter"}, {"allreduce", "all_reduce"},
    {"allgather", "all_gather"},         {"alltoall", "all_to_all"},
    {"broadcast", "broadcast"},          {"bcast", "broadcast"},
    {"sendrecv", "send_recv"},           {"barrier", "barrier"},
    {"reduce", "reduce"},                {"gather", "gather"},
    {"scatter", "scatter"},              {"send", "send"},
    {"recv", "recv"},
};

const char* Collectives_typeOf(const char* name, char* buf, int cap) {
    char low[256];
    int n = 0;
    for (const char* p = name ? name : ""; *p && n < (int)sizeof(low) - 1; p++) {
        if (*p != '_' && *p != '-' && *p != ' ') {
            low[n++] = (char)tolower((unsigned char)*p);
        }
    }
    low[n] = '\0';
    const char* t = "other";
    for (size_t i = 0; i < sizeof(type_keys) / sizeof(type_keys[0]); i++) {
        if (strstr(low, type_keys[i].key)) {
            t = type_keys[i].type;
            break;
        }
    }
    snprintf(buf, (size_t)cap, "%s", t);
    return buf;
}

double Collectives_busFactor(const char* type, int n) {
    if (n < 1) {
        return NAN;
    }
    if (strcmp(type, "all_reduce") == 0) {
        return 2.0 * (n - 1) / n;
    }
    if (strcmp(type, "all_gather") == 0 || strcmp(type, "reduce_scatter") == 0 ||
        strcmp(type, "all_to_all") == 0 || strcmp(type, "gather") == 0 ||
        strcmp(type, "scatter") == 0) {
        return (double)(n - 1) / n;
    }
    if (strcmp(type, "broadcast") == 0 || strcmp(type, "reduce") == 0 ||
        strcmp(type, "send") == 0 || strcmp(type, "recv") == 0 ||
        strcmp(type, "send_recv") == 0) {
        return 1.0;
    }
    return NAN;
}

int Collectives_dtypeSize(const char* dtype) {
    static const struct {
        const char* name;
        int size;
    } t[] = {
        {"float", 4},        {"float32", 4},     {"double", 8},        {"float64", 8},
        {"half", 2},         {"float16", 2},     {"bfloat16", 2},      {"int", 4},
        {"int32", 4},        {"long", 8},        {"int64", 8},         {"short", 2},
        {"int16", 2},        {"char", 1},        {"int8", 1},          {"byte", 1},
        {"uint8", 1},        {"bool", 1},        {"complexfloat", 8},  {"complexdouble", 16},
        {"complexhalf", 4},  {"uint16", 2},      {"uint32", 4},        {"uint64", 8},
        {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"float8_e4m3fnuz", 1}, {"float8_e5m2fnuz", 1},
    };
    if (!dtype) {
        return 0;
    }
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (strcasecmp(dtype, t[i].name) == 0) {
            return t[i].size;
        }
    }
    return 0;
}

static int cmp_group_run(const void* a, const void* b) { /* as the query orders them */
    const Row *x = a, *y = b;
    if (x->pg != y->pg) return x->pg < y->pg ? -1 : 1;
    if (x->run != y->run) return x->run < y->run ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

static int cmp_instance(const void* a, const void* b) {
    const Row *x = a, *y = b;
    if (x->pg != y->pg) return x->pg < y->pg ? -1 : 1;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* seq of each row: per group and rank, the kernels in start order; the 'Seq' arg instead
 * when every row of the group has one. Rows sorted by group, run, start. */
static void number(Row* r, int64_t n) {
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        int all_seq = 1;
        while (j < n && r[j].pg == r[i].pg) {
            all_seq &= r[j].seq_arg >= 0;
            j++;
        }
        int64_t k = 0;
        for (int64_t q = i; q < j; q++) {
            k = q > i && r[q].run != r[q - 1].run ? 0 : k;
            r[q].seq = all_seq ? r[q].seq_arg : k;
            k++;
        }
        i = j;
    }
}

static char* col_text(sqlite3_stmt* st, int c) {
    const unsigned char* t = sqlite3_column_text(st, c);
    return t ? xstrdup((const char*)t) : NULL;
}

static const char* const rows_sql =
    "WITH runs AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS pos FROM run)"
    " SELECT coalesce(f.dist_rank, r.pos), f.run_id,"
    "  coalesce(k.pg_name, c.pg_name, k.pg_desc, c.pg_desc, k.pg_ranks, c.pg_ranks, '?') AS pg,"
    "  coalesce(k.pg_desc, c.pg_desc), coalesce(c.name, k.name),"
    "  coalesce(k.in_nelems, c.in_nelems), coalesce(k.out_nelems, c.out_nelems),"
    "  coalesce(k.group_size, c.group_size), coalesce(k.dtype, c.dtype),"
    "  coalesce(k.seq, c.seq), k.start_ns, k.end_ns"
    " FROM comm_op k JOIN source_file f ON f.id = k.file_id JOIN runs r ON r.id = f.run_id"
    /* its record_param_comms: the first of the file with its External id (comm_op_ext) */
    " LEFT JOIN comm_op c ON c.id = (SELECT min(h.id) FROM comm_op h WHERE h.file_id ="
    "  k.file_id AND h.ext_id = k.ext_id AND h.source = 'cpu_op')"
    " WHERE k.source = 'kernel' AND k.start_ns IS NOT NULL AND k.end_ns IS NOT NULL"
    "  AND EXISTS (SELECT 1 FROM source_layer sl WHERE sl.file_id = k.file_id AND sl.used"
    "   AND sl.layer = 'kernel')"
    " ORDER BY pg, f.run_id, k.start_ns, k.id";

typedef struct {
    Row* r;
    int64_t n, cap;
    char** pg;      /* group names by index (owned) */
    char** pg_desc; /* their descriptions (owned) */
    int npg;
} Rows;

static void read_row(Rows* rs, sqlite3_stmt* st) {
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 256;
        rs->r = xrealloc(rs->r, (size_t)rs->cap * sizeof(Row));
    }
    Row* w = &rs->r[rs->n++];
    memset(w, 0, sizeof(*w));
    const char* pg = (const char*)sqlite3_column_text(st, 2);
    if (rs->npg == 0 || strcmp(rs->pg[rs->npg - 1], pg ? pg : "?") != 0) {
        rs->pg = xrealloc(rs->pg, sizeof(char*) * (size_t)(rs->npg + 1));
        rs->pg_desc = xrealloc(rs->pg_desc, sizeof(char*) * (size_t)(rs->npg + 1));
        rs->pg[rs->npg] = xstrdup(pg ? pg : "?");
        rs->pg_desc[rs->npg] = col_text(st, 3);
        rs->npg++;
    }
    w->pg = rs->npg - 1;
    w->rank = sqlite3_column_int(st, 0);
    w->run = sqlite3_column_int64(st, 1);
    const char* name = (const char*)sqlite3_column_text(st, 4);
    Collectives_typeOf(name, w->type, sizeof(w->type));
    const char* dt = (const char*)sqlite3_column_text(st, 8);
    snprintf(w->dtype, sizeof(w->dtype), "%s", dt ? dt : "");
    int size = Collectives_dtypeSize(dt);
    int has_in = sqlite3_column_type(st, 5) != SQLITE_NULL,
        has_out = sqlite3_column_type(st, 6) != SQLITE_NULL;
    int64_t in = sqlite3_column_int64(st, 5), out = sqlite3_column_int64(st, 6);
    int64_t ne = in > out ? in : out;
    w->bytes = size > 0 && (has_in || has_out) && ne <= INT64_MAX / 16 ? ne * size : -1;
    w->group_size = sqlite3_column_int(st, 7);
    w->seq_arg = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
    w->start = sqlite3_column_int64(st, 10);
    w->end = sqlite3_column_int64(st, 11);
}

/* One instance from the rows r[0..n) of one group and seq, in arrival order. */
static void build(CollInstance* c, const Rows* rs, const Row* r, int n) {
    memset(c, 0, sizeof(*c));
    c->pg = xstrdup(rs->pg[r[0].pg]);
    c->pg_desc = rs->pg_desc[r[0].pg] ? xstrdup(rs->pg_desc[r[0].pg]) : NULL;
    c->seq = r[0].seq;
    /* the type and size of the lowest rank: every rank should say the same */
    int lo = 0;
    for (int i = 1; i < n; i++) {
        lo = r[i].rank < r[lo].rank ? i : lo;
    }
    snprintf(c->type, sizeof(c->type), "%s", r[lo].type);
    c->dtype = r[lo].dtype[0] ? xstrdup(r[lo].dtype) : NULL;
    c->bytes = r[lo].bytes;
    c->nr = n;
    c->r = xmalloc(sizeof(CollRank) * (size_t)n);
    c->latency_ns = INT64_MAX;
    int64_t last = INT64_MIN, end_lo = INT64_MAX, end_hi = INT64_MIN;
    for (int i = 0; i < n; i++) {
        c->r[i] = (CollRank){r[i].rank, r[i].start, r[i].end};
        c->mismatch |= strcmp(r[i].type, c->type) != 0 || r[i].bytes != c->bytes;
        c->latency_ns = r[i].end - r[i].start < c->latency_ns ? r[i].end - r[i].start
                                                              : c->latency_ns;
        end_lo = r[i].end < end_lo ? r[i].end : end_lo;
        end_hi = r[i].end > end_hi ? r[i].end : end_hi;
        if (r[i].start > last) { /* ties: the lowest rank (rows are by start, then rank) */
            last = r[i].start;
            c->last_rank = r[i].rank;
        }
    }
    c->skew_ns = last - r[0].start;
    c->end_spread_ns = end_hi - end_lo;
    c->last_rank = c->skew_ns > 0 ? c->last_rank : -1; /* all at once: nobody was late */
    c->group_size = r[lo].group_size > 0 ? r[lo].group_size : n;
    c->algbw = c->busbw = NAN;
    if (c->bytes >= 0 && c->latency_ns > 0) {
        c->algbw = (double)c->bytes / (double)c->latency_ns; /* B/ns = GB/s */
        c->busbw = c->algbw * Collectives_busFactor(c->type, c->group_size);
    }
}

static char* clock_of(TraceDb* db) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    DcuError e;
    if (TraceDb_prepare(db, "SELECT count(DISTINCT clock), group_concat(DISTINCT clock) FROM run"
                            " WHERE id IN (SELECT f.run_id FROM comm_op c JOIN source_file f"
                            " ON f.id = c.file_id)",
                        &st, &e) != DCU_OK) {
        return xstrdup("unknown");
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 1)) {
        const char* t = (const char*)sqlite3_column_text(st, 1);
        out = sqlite3_column_int(st, 0) > 1 ? xasprintf("mixed: %s", t) : xstrdup(t);
    }
    sqlite3_finalize(st);
    return out ? out : xstrdup("unknown");
}

/* The median end spread of the collectives seen on 2 ranks or more; NAN none. */
static double end_spread_median(const Collectives* c) {
    int64_t* v = xmalloc(sizeof(int64_t) * (size_t)(c->n ? c->n : 1));
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        if (c->v[i].nr > 1) {
            v[n++] = c->v[i].end_spread_ns;
        }
    }
    double m = NAN;
    if (n > 0) {
        qsort(v, (size_t)n, sizeof(int64_t), cmp_i64);
        m = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
    }
    free(v);
    return m;
}

DcuStatus Collectives_new(TraceDb* db, Collectives** out, DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, rows_sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    Rows rs = {0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        read_row(&rs, st);
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "collectives: %s",
                      sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    Collectives* c = xcalloc(1, sizeof(*c));
    if (s == DCU_OK && rs.n > 0) { /* none: n = 0 (qsort is not given NULL) */
        qsort(rs.r, (size_t)rs.n, sizeof(Row), cmp_group_run); /* stable order of equal pg */
        number(rs.r, rs.n);
        qsort(rs.r, (size_t)rs.n, sizeof(Row), cmp_instance);
        c->v = xmalloc(sizeof(CollInstance) * (size_t)(rs.n ? rs.n : 1));
        for (int64_t i = 0; i < rs.n;) {
            int64_t j = i + 1;
            while (j < rs.n && rs.r[j].pg == rs.r[i].pg && rs.r[j].seq == rs.r[i].seq) {
                j++;
            }
            build(&c->v[c->n++], &rs, &rs.r[i], (int)(j - i));
            i = j;
        }
        int64_t* runs = xmalloc(sizeof(int64_t) * (size_t)(rs.n ? rs.n : 1));
        for (int64_t i = 0; i < rs.n; i++) {
            runs[i] = rs.r[i].run;
        }
        qsort(runs, (size_t)rs.n, sizeof(int64_t), cmp_i64);
        for (int64_t i = 0; i < rs.n; i++) {
            c->nranks += i == 0 || runs[i] != runs[i - 1];
        }
        free(runs);
    }
    if (s == DCU_OK) {
        c->clock = clock_of(db);
        c->end_spread_median_ns = end_spread_median(c);
    }
    for (int i = 0; i < rs.npg; i++) {
        free(rs.pg[i]);
        free(rs.pg_desc[i]);
    }
    free(rs.pg);
    free(rs.pg_desc);
    free(rs.r);
    if (s != DCU_OK) {
        Collectives_delete(c);
        return s;
    }
    *out = c;
    return DCU_OK;
}

void Collectives_delete(Collectives* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->n; i++) {
        free(this->v[i].pg);
        free(this->v[i].pg_desc);
        free(this->v[i].dtype);
        free(this->v[i].r);
    }
    free(this->v);
    free(this->clock);
    free(this);
}
