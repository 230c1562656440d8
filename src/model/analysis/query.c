/* query.c - the views over the schema. */
#include "dcutop/query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/filter.h"
#include "dcutop/idle.h"
#include "dcutop/runs.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"
#include "api_scan.h"
#include "api_summary.h"

static const char* const view_names[VIEW_COUNT] = {"files", "hotspots", "categories", "api",
                                                   "copies"};

const char* Query_viewName(ViewId v) {
    return v < VIEW_COUNT ? view_names[v] : "?";
}

int Query_viewByName(const char* name) {
    for (int i = 0; i < VIEW_COUNT; i++) {
        if (strcmp(view_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* ---- column tables -------------------------------------------------------------- */

enum { H_NAME, H_SHORT, H_CAT, H_CALLS, H_TOTAL, H_AVG, H_MIN, H_MAX, H_SD, H_PCT, H_CUM, H_CEIL,
       H_VAR, H_GOLDEN, H_OUTLIERS, H_RAW, H_FLOPS, H_BYTES, H_AI, H_TFLOPS, H_GBPS, H_PEAKPCT, H_BOUND,
       H_ATPEAK };
/* The launch group's columns, counted from its first (after the efficiency group, or after
 * H_RAW without one). */
enum { L_LAUNCHES, L_CALL_P50, L_DELAY_P50, L_DELAY_P95, L_DELAY_MAX, L_SHORT_PCT, L_OUTLIERS,
       L_COUNT };
#define HOT_BASE_COLS                                                                           \
    {"name", "Kernel", CT_TEXT},         {"short_name", "Kernel", CT_TEXT},                      \
    {"category", "Category", CT_TEXT},   {"calls", "Calls", CT_INT},                             \
    {"total_ns", "Total", CT_NS},        {"avg_ns", "Avg", CT_NS},                               \
    {"min_ns", "Min", CT_NS},            {"max_ns", "Max", CT_NS},                               \
    {"stddev_ns", "StdDev", CT_NS},      {"pct", "%Time", CT_PCT},                               \
    {"cum_pct", "Cum%", CT_PCT},         {"ceiling", "Ceiling", CT_RATIO},                       \
    /* variability inside one run (variab.h); NULL for kernels known from stats only */         \
    {"var_ns", "Var", CT_NS},            {"golden_ns", "Golden", CT_NS},                         \
    {"outliers", "Outliers", CT_INT},                                                            \
    /* the name as the trace gave it: the mangled symbol of a demangled name */                 \
    {"name_raw", "Raw name", CT_TEXT}
/* efficiency (efficiency.h), only when the trace has modelled ops: over the dispatches linked
 * to an op with recorded shapes */
#define HOT_EFF_COLS                                                                            \
    {"flops", "FLOPs", CT_REAL},         {"bytes", "Bytes", CT_BYTES},                           \
    {"intensity", "FLOP/B", CT_REAL},    {"tflops", "TFLOP/s", CT_REAL},                         \
    {"gbps", "GB/s", CT_REAL},           {"pct_peak", "%Peak", CT_PCT},                          \
    {"bound", "Bound", CT_TEXT},         {"peak_ns", "AtPeak", CT_NS}
/* launch statistics (idle.h: as HTA's get_cuda_kernel_launch_stats computes them), only with
 * QueryOpts.launch_stats and a trace whose dispatches have correlated launch calls: over the
 * kernel's dispatches launched by a call of HTA's set; NULL for the other kernels */
#define HOT_LAUNCH_COLS                                                                         \
    {"launched", "Launched", CT_INT},    {"call_p50_ns", "Call p50", CT_NS},                     \
    {"delay_p50_ns", "Delay p50", CT_NS}, {"delay_p95_ns", "Delay p95", CT_NS},               \
    {"delay_max_ns", "Delay max", CT_NS}, {"short_launch_pct", "Short%", CT_PCT},                \
    {"delay_outliers", "Delay>100us", CT_INT}
static const RsColumn hot_cols[] = {HOT_BASE_COLS, HOT_EFF_COLS};
static const RsColumn hot_cols_launch[] = {HOT_BASE_COLS, HOT_LAUNCH_COLS};
static const RsColumn hot_cols_eff_launch[] = {HOT_BASE_COLS, HOT_EFF_COLS, HOT_LAUNCH_COLS};

enum { C_CAT, C_GROUP, C_KERNELS, C_CALLS, C_TOTAL, C_PCT, C_CEIL, C_K, C_SPEEDUP, C_VAR };
static const RsColumn cat_cols[] = {
    {"category", "Category", CT_TEXT}, {"group", "Group", CT_TEXT},
    {"kernels", "Kernels", CT_INT},    {"calls", "Calls", CT_INT},
    {"total_ns", "Total", CT_NS},      {"pct", "%Time", CT_PCT},
    {"ceiling", "Ceiling(inf)", CT_RATIO}, {"what_if", "k", CT_REAL},
    {"speedup", "Speedup(k)", CT_RATIO},
    {"var_ns", "Var", CT_NS}, /* summed over its kernels with dispatches; NULL: none has any */
};

enum { A_DOMAIN, A_NAME, A_CALLS, A_TOTAL, A_AVG, A_MIN, A_MAX, A_PCT, A_SRC };
static const RsColumn api_cols[] = {
    {"domain", "Domain", CT_TEXT}, {"name", "API", CT_TEXT},   {"calls", "Calls", CT_INT},
    {"total_ns", "Total", CT_NS},  {"avg_ns", "Avg", CT_NS},   {"min_ns", "Min", CT_NS},
    {"max_ns", "Max", CT_NS},      {"pct", "%API", CT_PCT},    {"source", "From", CT_TEXT},
};

enum { M_NAME, M_CALLS, M_BYTES, M_TOTAL, M_AVG, M_MIN, M_MAX, M_PCT, M_BW };
static const RsColumn copy_cols[] = {
    {"name", "Copy", CT_TEXT},    {"calls", "Calls", CT_INT},  {"bytes", "Bytes", CT_BYTES},
    {"total_ns", "Total", CT_NS}, {"avg_ns", "Avg", CT_NS},    {"min_ns", "Min", CT_NS},
    {"max_ns", "Max", CT_NS},     {"pct", "%Copy", CT_PCT},    {"gbps", "GB/s", CT_REAL},
};

enum { FI_PATH, FI_NAME, FI_FORMAT, FI_LAYER, FI_ROWS, FI_REJ, FI_STATUS };
static const RsColumn file_cols[] = {
    {"path", "Path", CT_TEXT},        {"name", "File", CT_TEXT},
    {"format", "Format", CT_TEXT},
    {"layer", "Layer", CT_TEXT},      {"rows", "Rows", CT_INT},
    {"rejected", "Rejected", CT_INT}, {"status", "Status", CT_TEXT},
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- helpers -------------------------------------------------------------------- */

static DcuStatus check_filter(const QueryOpts* o, DcuError* err) {
    if (!o || !o->filter || !*o->filter) {
        return DCU_OK;
    }
    Filter* f = NULL;
    DcuStatus s = Filter_new(o->filter, &f, err);
    Filter_delete(f);
    return s;
}

static void bind_filter(sqlite3_stmt* st, int idx, const QueryOpts* o) {
    if (o && o->filter && *o->filter) {
        sqlite3_bind_text(st, idx, o->filter, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(st, idx);
    }
}

static void set_col(ResultSet* rs, int r, int c, sqlite3_stmt* st, int sc) {
    if (sqlite3_column_type(st, sc) == SQLITE_NULL) {
        return;
    }
    switch (rs->cols[c].type) {
    case CT_TEXT:
        ResultSet_setText(rs, r, c, (const char*)sqlite3_column_text(st, sc));
        break;
    case CT_NS:
        /* an average (REAL) is kept exact: never cut to whole ns before rounding */
        if (sqlite3_column_type(st, sc) == SQLITE_FLOAT) {
            ResultSet_setNs(rs, r, c, sqlite3_column_double(st, sc));
        } else {
            ResultSet_setInt(rs, r, c, sqlite3_column_int64(st, sc));
        }
        break;
    case CT_INT:
    case CT_BYTES:
        ResultSet_setInt(rs, r, c, sqlite3_column_int64(st, sc));
        break;
    default:
        ResultSet_setReal(rs, r, c, sqlite3_column_double(st, sc));
        break;
    }
}

static DcuStatus step_error(TraceDb* db, DcuError* err) {
    const char* m = sqlite3_errmsg(TraceDb_handle(db));
    /* a bad pattern surfaces here as the regexp() error text */
    return Error_set(err, strstr(m, "offset") ? DCU_ERR_REGEX : DCU_ERR_SQL, "%s", m);
}

/* Recompute running sums over the current order. */
static void refresh_running(ResultSet* rs) {
    int cum = ResultSet_columnIndex(rs, "cum_pct");
    int pct = ResultSet_columnIndex(rs, "pct");
    if (cum < 0 || pct < 0) {
        return;
    }
    double run = 0;
    for (int r = rs->pinned; r < rs->nrows; r++) {
        const RsCell* p = ResultSet_cellc(rs, r, pct);
        run += p->null ? 0 : p->d;
        ResultSet_setReal(rs, r, cum, run > 100.0 ? 100.0 : run);
    }
}

DcuStatus Query_sort(ResultSet* rs, const char* spec, DcuError* err) {
    if (!spec || !*spec) {
        refresh_running(rs);
        return DCU_OK;
    }
    char key[64];
    const char* colon = strchr(spec, ':');
    size_t kl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (kl >= sizeof(key)) {
        kl = sizeof(key) - 1;
    }
    memcpy(key, spec, kl);
    key[kl] = '\0';
    int col = ResultSet_columnIndex(rs, key);
    if (col < 0) {
        char list[512] = "";
        for (int i = 0; i < rs->ncols; i++) {
            strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
            strncat(list, rs->cols[i].key, sizeof(list) - strlen(list) - 1);
        }
        return Error_set(err, DCU_ERR_USAGE, "unknown sort column '%s' for %s; one of: %s", key,
                         rs->name, list);
    }
    int desc = ResultSet_defaultDesc(rs, col);
    if (colon) {
        if (strcmp(colon + 1, "asc") == 0) {
            desc = 0;
        } else if (strcmp(colon + 1, "desc") == 0) {
            desc = 1;
        } else {
            return Error_set(err, DCU_ERR_USAGE, "sort direction must be :asc or :desc, not '%s'",
                             colon + 1);
        }
    }
    /* "cum_pct" sorts like its running total: by pct */
    if (strcmp(key, "cum_pct") == 0) {
        col = ResultSet_columnIndex(rs, "pct");
    }
    ResultSet_sort(rs, col, desc);
    refresh_running(rs);
    return DCU_OK;
}

static DcuStatus finish(ResultSet* rs, const QueryOpts* o, const char* default_sort,
                        ResultSet** out, DcuError* err) {
    DcuStatus s = Query_sort(rs, (o && o->sort && *o->sort) ? o->sort : default_sort, err);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

/* ---- totals -------------------------------------------------------------------------- */

static DcuStatus totals_read(TraceDb* db, Totals* t, DcuError* err);
static DcuStatus api_totals(TraceDb* db, int64_t* ns, int64_t* calls, DcuError* err);

/* The totals are asked for by every section of a report; the API and copy summaries under
 * them group every call, so they are read once while the database is unchanged. */
DcuStatus Query_totals(TraceDb* db, Totals* t, DcuError* err) {
    TraceDbState state = TraceDb_state(db);
    const Totals* cached = TraceDb_cached(db, TRACEDB_CACHE_TOTALS, state);
    if (cached) {
        *t = *cached;
        return DCU_OK;
    }
    DcuStatus s = totals_read(db, t, err);
    if (s == DCU_OK) {
        Totals* keep = xmalloc(sizeof(*keep));
        *keep = *t;
        TraceDb_setCached(db, TRACEDB_CACHE_TOTALS, TraceDb_state(db), keep, free);
    }
    return s;
}

static DcuStatus totals_read(TraceDb* db, Totals* t, DcuError* err) {
    memset(t, 0, sizeof(*t));
    int64_t api_ns = 0, api_calls = 0;
    DcuStatus s = api_totals(db, &api_ns, &api_calls, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_stmt* st = NULL;
    s = TraceDb_prepare(
        db,
        /* each summary view grouped once (they group every API call and copy); the API
         * figures from the API view's rows (api_totals) */
        "WITH cp AS MATERIALIZED (SELECT CAST(total(total_ns) AS INTEGER) AS t,"
        "   CAST(total(calls) AS INTEGER) AS c FROM copy_summary_v)"
        " SELECT (SELECT CAST(total(total_ns) AS INTEGER) FROM kernel_summary),"
        " (SELECT CAST(total(calls) AS INTEGER) FROM kernel_summary),"
        " (SELECT count(*) FROM kernel_summary WHERE calls > 0),"
        " (SELECT coalesce(max(per_dispatch), 0) FROM kernel_summary),"
        " ?1, ?2, (SELECT t FROM cp), (SELECT c FROM cp),"
        " (SELECT count(*) FROM source_file),"
        " (SELECT count(*) FROM source_file WHERE rows_read > 0),"
        " (SELECT coalesce(sum(rows_rejected), 0) FROM source_file),"
        " (SELECT coalesce(max(f.pmc), 0) FROM source_file f JOIN used_file u"
        "    ON u.file_id = f.id AND u.layer = 'kernel'),"
        " (SELECT CAST(total(s.total_ns) AS INTEGER) FROM kernel_summary s JOIN kernel k"
        "    ON k.id = s.kernel_id JOIN category c ON c.name = k.category WHERE c.is_gemm),"
        /* the time waiting for a straggler (ranks.h Ranks_storeWaiting) and its group */
        " (SELECT CAST(total(s.total_ns) AS INTEGER) FROM kernel_summary s JOIN kernel k"
        "    ON k.id = s.kernel_id WHERE k.category = (SELECT value FROM meta"
        "    WHERE key = 'wait_category')),"
        " (SELECT coalesce(max(c.is_gemm), 0) FROM category c WHERE c.name = (SELECT value"
        "    FROM meta WHERE key = 'wait_category')),"
        " (SELECT CAST(total(var_ns) AS INTEGER) FROM kernel_summary),"
        " (SELECT count(var_ns) FROM kernel_summary),"
        " (SELECT CAST(total(total_ns) AS INTEGER) FROM kernel_summary WHERE var_ns IS NOT NULL),"
        " (SELECT CAST(total(outliers) AS INTEGER) FROM kernel_summary),"
        " (SELECT count(*) FROM mem_alloc m JOIN source_file f ON f.id = m.file_id"
        "    WHERE f.run_id IN (SELECT run_id FROM run_scope) AND m.op LIKE 'ALLOC%'),"
        " (SELECT coalesce(max(m.live_bytes), 0) FROM mem_alloc m JOIN source_file f"
        "    ON f.id = m.file_id WHERE f.run_id IN (SELECT run_id FROM run_scope)"
        "    AND coalesce(m.level, '') NOT IN ('VIRTUAL', 'SCRATCH')),"
        " (SELECT coalesce(max(m.live_bytes), 0) FROM mem_alloc m JOIN source_file f"
        "    ON f.id = m.file_id WHERE f.run_id IN (SELECT run_id FROM run_scope)"
        "    AND m.level = 'SCRATCH')",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, api_ns);
    sqlite3_bind_int64(st, 2, api_calls);
    if (sqlite3_step(st) == SQLITE_ROW) {
        t->kernel_ns = sqlite3_column_int64(st, 0);
        t->dispatches = sqlite3_column_int64(st, 1);
        t->kernels = sqlite3_column_int64(st, 2);
        t->per_dispatch = sqlite3_column_int(st, 3);
        t->api_ns = sqlite3_column_int64(st, 4);
        t->api_calls = sqlite3_column_int64(st, 5);
        t->copy_ns = sqlite3_column_int64(st, 6);
        t->copy_calls = sqlite3_column_int64(st, 7);
        t->files = sqlite3_column_int64(st, 8);
        t->files_loaded = sqlite3_column_int64(st, 9);
        t->rows_rejected = sqlite3_column_int64(st, 10);
        t->pmc = sqlite3_column_int(st, 11);
        t->gemm_ns = sqlite3_column_int64(st, 12);
        t->wait_ns = sqlite3_column_int64(st, 13);
        t->wait_gemm = sqlite3_column_int(st, 14);
        t->var_ns = sqlite3_column_int64(st, 15);
        t->var_kernels = sqlite3_column_int64(st, 16);
        t->var_base_ns = sqlite3_column_int64(st, 17);
        t->outliers = sqlite3_column_int64(st, 18);
        t->mem_allocs = sqlite3_column_int64(st, 19);
        t->mem_peak_bytes = sqlite3_column_int64(st, 20);
        t->scratch_peak_bytes = sqlite3_column_int64(st, 21);
    } else {
        s = step_error(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

/* ---- views ------------------------------------------------------------------------ */

/* A kernel's efficiency columns from kernel_perf (columns sc.. of st: flops, bytes, dur_ns,
 * compute_ns, memory_ns); all NULL when no dispatch of it has a modelled op. */
static void hot_efficiency(ResultSet* rs, int r, sqlite3_stmt* st, int sc) {
    if (sqlite3_column_type(st, sc) == SQLITE_NULL) {
        return;
    }
    double flops = sqlite3_column_double(st, sc), bytes = sqlite3_column_double(st, sc + 1);
    double ns = sqlite3_column_double(st, sc + 2);
    ResultSet_setReal(rs, r, H_FLOPS, flops);
    ResultSet_setInt(rs, r, H_BYTES, (int64_t)llround(bytes));
    if (bytes > 0) {
        ResultSet_setReal(rs, r, H_AI, flops / bytes);
    }
    if (ns > 0) {
        ResultSet_setReal(rs, r, H_TFLOPS, flops / ns / 1e3);
        ResultSet_setReal(rs, r, H_GBPS, bytes / ns);
    }
    if (sqlite3_column_type(st, sc + 3) != SQLITE_NULL &&
        sqlite3_column_type(st, sc + 4) != SQLITE_NULL && ns > 0) {
        double c = sqlite3_column_double(st, sc + 3), m = sqlite3_column_double(st, sc + 4);
        double peak = c > m ? c : m;
        ResultSet_setReal(rs, r, H_PEAKPCT, 100.0 * peak / ns);
        ResultSet_setText(rs, r, H_BOUND, c >= m ? "compute" : "memory");
        ResultSet_setInt(rs, r, H_ATPEAK, (int64_t)llround(peak));
    }
}

/* The category whose time is waiting for a straggler rank (ranks.h Ranks_storeWaiting), or
 * "" : its time is not work, so it is marked `wait` and has no ceiling. */
static void wait_category(TraceDb* db, char* buf, size_t cap) {
    buf[0] = '\0';
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT value FROM meta WHERE key = 'wait_category'", &st, NULL) ==
        DCU_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            snprintf(buf, cap, "%s", (const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
}

/* The footer that says why the wait category has no ceiling. */
static char* wait_footer(const char* wait) {
    return xasprintf("%s kernels: waiting for a straggler rank (Ranks, 9), not work: no ceiling, "
                     "and none in their group's",
                     wait);
}


/* The hotspots table: the base columns, then the efficiency group (eff), then the launch
 * group (launch). */
static ResultSet* hot_new(int eff, int launch) {
    if (launch) {
        return eff ? ResultSet_new("hotspots", hot_cols_eff_launch, NCOLS(hot_cols_eff_launch))
                   : ResultSet_new("hotspots", hot_cols_launch, NCOLS(hot_cols_launch));
    }
    return ResultSet_new("hotspots", hot_cols, eff ? NCOLS(hot_cols) : H_RAW + 1);
}

/* Cell c of row r from column key of row k of the launch table lt. */
static void launch_cell(ResultSet* rs, int r, int c, const ResultSet* lt, int k, const char* key) {
    int lc = ResultSet_columnIndex(lt, key);
    if (lc >= 0) {
        RsCell* d = ResultSet_cell(rs, r, c);
        *d = *ResultSet_cellc(lt, k, lc);
        d->s = NULL; /* numbers only */
    }
}

/* Row r's launch group, from column at: its kernel's row of the launch table (idle.h); NULL
 * cells for a kernel none of whose dispatches has a launch call. */
static void hot_launch(ResultSet* rs, int r, int at, const ResultSet* lt) {
    int k = Idle_launchRow(lt, ResultSet_cellc(rs, r, H_NAME)->s);
    if (k < 0) {
        return;
    }
    launch_cell(rs, r, at + L_LAUNCHES, lt, k, "launches");
    launch_cell(rs, r, at + L_CALL_P50, lt, k, "call_median_ns");
    launch_cell(rs, r, at + L_DELAY_P50, lt, k, "median_ns");
    launch_cell(rs, r, at + L_DELAY_P95, lt, k, "p95_ns");
    launch_cell(rs, r, at + L_DELAY_MAX, lt, k, "max_ns");
    launch_cell(rs, r, at + L_OUTLIERS, lt, k, "delay_outliers");
    const RsCell* n = ResultSet_cellc(rs, r, at + L_LAUNCHES);
    int sc = ResultSet_columnIndex(lt, "short");
    if (!n->null && n->i > 0 && sc >= 0) {
        ResultSet_setReal(rs, r, at + L_SHORT_PCT,
                          100.0 * (double)ResultSet_cellc(lt, k, sc)->i / (double)n->i);
    }
}

static DcuStatus q_hotspots(TraceDb* db, const QueryOpts* o, ResultSet** out, DcuError* err) {
    const ResultSet* lt = NULL; /* launch stats per kernel (borrowed; no write below) */
    if (o && o->launch_stats) {
        DcuStatus ls = Idle_launchTable(db, &lt, err);
        if (ls != DCU_OK) {
            return ls;
        }
    }
    int launch = lt && lt->nrows > 0;
    double total = (double)TraceDb_scalarInt(db, "SELECT CAST(total(total_ns) AS INTEGER) FROM kernel_summary");
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT k.name, k.short_name, coalesce(k.category, 'other'), s.calls, s.total_ns,"
        " s.total_ns * 1.0 / nullif(s.calls, 0), s.min_ns, s.max_ns,"
        " CASE WHEN s.has_sq = s.calls AND s.calls > 0 THEN"
        "   dcu_sqrt(s.sumsq / s.calls - (s.total_ns * 1.0 / s.calls) * (s.total_ns * 1.0 / s.calls))"
        " END, s.var_ns, s.golden_ns, s.outliers,"
        " kp.flops, kp.bytes, kp.dur_ns, kp.compute_ns, kp.memory_ns, coalesce(k.name_raw, k.name)"
        " FROM kernel_summary s JOIN kernel k ON k.id = s.kernel_id"
        " LEFT JOIN kernel_perf kp ON kp.kernel_id = s.kernel_id"
        /* the columns shown: the name (full and short) and the category (/gemm finds them) */
        " WHERE (?1 IS NULL OR regexp_any(?1, k.name, k.short_name, coalesce(k.category, 'other')))"
        "   AND (?2 IS NULL OR coalesce(k.category, 'other') = ?2"
        "        OR (?2 IN ('GEMM', 'non-GEMM') AND (?2 = 'GEMM') = coalesce((SELECT is_gemm"
        "            FROM category c WHERE c.name = coalesce(k.category, 'other')), 0)))"
        " ORDER BY s.total_ns DESC, k.name",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    bind_filter(st, 1, o);
    if (o && o->category) {
        sqlite3_bind_text(st, 2, o->category, -1, SQLITE_TRANSIENT);
    }
    int eff = TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM kernel_perf)") == 1;
    ResultSet* rs = hot_new(eff, launch);
    int basis_id = Query_amdahlBasis(db);
    double basis = basis_id ? (double)Query_basisNs(db, basis_id) : total;
    char wait[64];
    wait_category(db, wait, sizeof(wait));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = H_NAME; c <= H_SD; c++) {
            set_col(rs, r, c, st, c);
        }
        for (int c = H_VAR; c <= H_OUTLIERS; c++) {
            set_col(rs, r, c, st, c - H_VAR + H_SD + 1);
        }
        set_col(rs, r, H_RAW, st, H_SD + 9);
        /* the share and the ceiling over the same basis (one basis at a time) */
        double p = basis > 0 ? ResultSet_cell(rs, r, H_TOTAL)->i / basis : 0;
        ResultSet_setReal(rs, r, H_PCT, 100.0 * p);
        const char* cat = ResultSet_cell(rs, r, H_CAT)->s;
        if (!(wait[0] && cat && strcmp(cat, wait) == 0)) { /* waiting: no ceiling (NULL) */
            ResultSet_setReal(rs, r, H_CEIL, Amdahl_ceiling(p));
        }
        if (eff) {
            hot_efficiency(rs, r, st, H_SD + 4);
        }
        if (launch) {
            hot_launch(rs, r, eff ? H_ATPEAK + 1 : H_RAW + 1, lt);
        }
    }
    if (rc != SQLITE_DONE) {
        s = step_error(db, err);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    if (wait[0] && !rs->footer) {
        rs->footer = wait_footer(wait);
    }
    return finish(rs, o, "total_ns", out, err);
}

typedef struct CatRow_ {
    char name[64];
    int is_gemm;
    int64_t kernels, calls, total;
    int64_t wait; /* a group's time waiting for a straggler (the wait category's): no ceiling */
    int64_t var, var_kernels; /* variability of its kernels that have one, and how many */
} CatRow;

static DcuStatus load_categories(TraceDb* db, CatRow** rows, int* n, int64_t* total,
                                 DcuError* err) {
    *rows = NULL;
    *n = 0;
    *total = TraceDb_scalarInt(db, "SELECT CAST(total(total_ns) AS INTEGER) FROM kernel_summary");
    sqlite3_stmt* st = NULL;
    /* every category of the rule set, with zero rows kept only for 'other' (so a missing
     * rule shows itself) and for categories that have kernels */
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT c.name, c.is_gemm, count(s.kernel_id), CAST(total(s.calls) AS INTEGER),"
        " CAST(total(s.total_ns) AS INTEGER), CAST(total(s.var_ns) AS INTEGER), count(s.var_ns)"
        " FROM category c LEFT JOIN kernel k ON k.category = c.name"
        " LEFT JOIN kernel_summary s ON s.kernel_id = k.id"
        " GROUP BY c.name HAVING count(s.kernel_id) > 0 OR c.name = 'other'"
        " ORDER BY 5 DESC, min(c.ord)",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 32;
            *rows = xrealloc(*rows, sizeof(CatRow) * (size_t)cap);
        }
        CatRow* c = &(*rows)[(*n)++];
        memset(c, 0, sizeof(*c));
        snprintf(c->name, sizeof(c->name), "%s", (const char*)sqlite3_column_text(st, 0));
        c->is_gemm = sqlite3_column_int(st, 1);
        c->kernels = sqlite3_column_int64(st, 2);
        c->calls = sqlite3_column_int64(st, 3);
        c->total = sqlite3_column_int64(st, 4);
        c->var = sqlite3_column_int64(st, 5);
        c->var_kernels = sqlite3_column_int64(st, 6);
    }
    if (rc != SQLITE_DONE) {
        s = step_error(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

static int is_group_name(const char* n, int* gemm);

DcuStatus Query_checkCategory(TraceDb* db, const char* name, DcuError* err) {
    if (!name || strcmp(name, "GEMM") == 0 || strcmp(name, "non-GEMM") == 0) {
        return DCU_OK;
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT 1 FROM category WHERE name = ?1", &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found ? DCU_OK
                 : Error_set(err, DCU_ERR_USAGE,
                             "--category: unknown category '%s' (see --dump-rules)", name);
}

static int is_group_name(const char* n, int* gemm) {
    if (strcmp(n, "gemm-group") == 0 || strcmp(n, "GEMM") == 0) {
        *gemm = 1;
        return 1;
    }
    if (strcmp(n, "non-gemm") == 0 || strcmp(n, "non-GEMM") == 0) {
        *gemm = 0;
        return 1;
    }
    return 0;
}

/* The factor that applies to a category: its own, else its group's, else 1 (none). */
static double factor_for(const CatRow* c, const WhatIf* w, int n, int* given) {
    for (int i = 0; i < n; i++) {
        if (strcmp(w[i].name, c->name) == 0) {
            *given = 1;
            return w[i].k;
        }
    }
    for (int i = 0; i < n; i++) {
        int g;
        if (is_group_name(w[i].name, &g) && g == c->is_gemm) {
            *given = 1;
            return w[i].k;
        }
    }
    *given = 0;
    return 1.0;
}

static DcuStatus check_what_if(TraceDb* db, const WhatIf* w, int n, DcuError* err) {
    for (int i = 0; i < n; i++) {
        int g;
        if (is_group_name(w[i].name, &g)) {
            continue;
        }
        sqlite3_stmt* st = NULL;
        DcuStatus s = TraceDb_prepare(db, "SELECT 1 FROM category WHERE name = ?1", &st, err);
        if (s != DCU_OK) {
            return s;
        }
        sqlite3_bind_text(st, 1, w[i].name, -1, SQLITE_TRANSIENT);
        int found = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
        if (!found) {
            return Error_set(err, DCU_ERR_USAGE,
                             "--what-if: unknown category '%s' (a category name, or gemm-group, "
                             "non-gemm; see --dump-rules)",
                             w[i].name);
        }
    }
    return DCU_OK;
}

/* k of an "X%peak" entry: its kernels' time over the same time with every kernel that has a
 * modelled op (kernel_perf with known peaks) at X% of its peak, or as it is when it already
 * does better. T / (T - D + A): T all the time, D the modelled part, A that part at X%. */
static double peak_factor(TraceDb* db, const WhatIf* w) {
    int g, group = is_group_name(w->name, &g);
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        "SELECT total(s.total_ns), total(kp.dur_ns),"
                        " total(min(kp.dur_ns, max(kp.compute_ns, kp.memory_ns) * 100.0 / ?3))"
                        " FROM kernel_summary s JOIN kernel k ON k.id = s.kernel_id"
                        " LEFT JOIN kernel_perf kp ON kp.kernel_id = s.kernel_id"
                        "  AND kp.compute_ns IS NOT NULL AND kp.memory_ns IS NOT NULL"
                        " WHERE CASE WHEN ?2 THEN coalesce((SELECT is_gemm FROM category c"
                        "  WHERE c.name = coalesce(k.category, 'other')), 0) = ?4"
                        "  ELSE coalesce(k.category, 'other') = ?1 END",
                        &st, NULL) != DCU_OK) {
        return 1.0;
    }
    sqlite3_bind_text(st, 1, w->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, group);
    sqlite3_bind_double(st, 3, w->at_peak);
    sqlite3_bind_int(st, 4, group ? g : 0);
    double k = 1.0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        double t = sqlite3_column_double(st, 0), d = sqlite3_column_double(st, 1),
               a = sqlite3_column_double(st, 2);
        double after = t - d + a;
        k = t <= 0 ? 1.0 : after > 0 ? t / after : INFINITY;
    }
    sqlite3_finalize(st);
    return k < 1.0 ? 1.0 : k;
}

/* A copy of w (owned) with every "X%peak" entry turned into its factor. */
static WhatIf* resolve_what_if(TraceDb* db, const WhatIf* w, int n) {
    WhatIf* r = xmalloc(sizeof(WhatIf) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        r[i] = w[i];
        if (w[i].at_peak > 0) {
            r[i].k = peak_factor(db, &w[i]);
        }
    }
    return r;
}

DcuStatus Query_setAmdahlBasis(TraceDb* db, int basis, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "INSERT OR REPLACE INTO meta(key, value)"
                                      " VALUES('amdahl_basis', ?1)",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, basis == AMDAHL_BASIS_WALL ? "wall" : "kernel", -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        s = step_error(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

int Query_amdahlBasis(TraceDb* db) {
    return (int)TraceDb_scalarInt(db, "SELECT coalesce((SELECT value = 'wall' FROM meta"
                                      " WHERE key = 'amdahl_basis'), 0)");
}

int64_t Query_basisNs(TraceDb* db, int basis) {
    int64_t k = TraceDb_scalarInt(db, "SELECT CAST(total(total_ns) AS INTEGER) FROM kernel_summary");
    if (basis == AMDAHL_BASIS_WALL) {
        int64_t w = Timeline_wallNs(db);
        if (w <= 0) {
            return k;
        }
        /* overlapping streams: kernel time counts the overlap twice, so a part's share of
         * the wall is its share of kernel time times the busy union's share of the wall,
         * i.e. its kernel time over wall * kernel / busy (the kernels' union: memsets and
         * copies are no part); the parts then add up to busy / wall, GPU idle (the wall less
         * kernels, memsets and copies) to no more than the rest, never above 100% */
        int64_t busy = Timeline_kernelBusyNs(db); /* kernels only: memsets stay out */
        if (busy > 0 && k > busy) {
            return (int64_t)llround((double)w * (double)k / (double)busy);
        }
        return w;
    }
    return k;
}

DcuStatus Query_projection(TraceDb* db, const WhatIf* w, int n, double* speedup, DcuError* err) {
    return Query_projectionBasis(db, w, n, AMDAHL_BASIS_KERNEL, speedup, err);
}

DcuStatus Query_projectionBasis(TraceDb* db, const WhatIf* w, int n, int basis, double* speedup,
                                DcuError* err) {
    *speedup = 1.0;
    DcuStatus s = check_what_if(db, w, n, err);
    WhatIf* wr = resolve_what_if(db, w, n);
    w = wr;
    CatRow* rows = NULL;
    int nr = 0;
    int64_t total = 0;
    if (s == DCU_OK) {
        s = load_categories(db, &rows, &nr, &total, err);
    }
    int64_t denom = basis ? Query_basisNs(db, basis) : total;
    if (s == DCU_OK && total > 0 && denom > 0) {
        double* p = xmalloc(sizeof(double) * (size_t)(nr + 1));
        double* k = xmalloc(sizeof(double) * (size_t)(nr + 1));
        int m = 0;
        char wait[64]; /* time waiting for a straggler: no gain from speeding it up */
        wait_category(db, wait, sizeof(wait));
        for (int i = 0; i < nr; i++) {
            int given;
            double f = factor_for(&rows[i], w, n, &given);
            if (given && !(wait[0] && strcmp(rows[i].name, wait) == 0)) {
                p[m] = (double)rows[i].total / (double)denom;
                k[m++] = f;
            }
        }
        *speedup = Amdahl_combined(p, k, m);
        free(p);
        free(k);
    }
    free(rows);
    free(wr);
    return s;
}

static void cat_row(ResultSet* rs, const CatRow* c, const char* group, int64_t total,
                    int64_t basis, int given, double k, const char* wait) {
    int r = ResultSet_addRow(rs);
    int64_t t = c->total;
    (void)total;
    double pb = basis > 0 ? (double)t / (double)basis : 0; /* share of the Amdahl basis */
    /* a group's ceiling and speedup are over its work: waiting is never an opportunity */
    double pw = basis > 0 ? (double)(t - c->wait) / (double)basis : 0;
    ResultSet_setText(rs, r, C_CAT, c->name);
    ResultSet_setText(rs, r, C_GROUP, group);
    ResultSet_setInt(rs, r, C_KERNELS, c->kernels);
    ResultSet_setInt(rs, r, C_CALLS, c->calls);
    ResultSet_setInt(rs, r, C_TOTAL, t);
    if (c->var_kernels > 0) {
        ResultSet_setInt(rs, r, C_VAR, c->var);
    }
    ResultSet_setReal(rs, r, C_PCT, 100.0 * pb); /* the share shown is of the same basis */
    if (wait && *wait && strcmp(c->name, wait) == 0) { /* waiting: no ceiling, no gain */
        ResultSet_setText(rs, r, C_GROUP, "wait");
        if (given) {
            ResultSet_setReal(rs, r, C_K, k);
            ResultSet_setReal(rs, r, C_SPEEDUP, 1.0);
        }
        return;
    }
    ResultSet_setReal(rs, r, C_CEIL, Amdahl_ceiling(pw));
    if (given) {
        ResultSet_setReal(rs, r, C_K, k);
        ResultSet_setReal(rs, r, C_SPEEDUP, Amdahl_speedup(pw, k));
    }
}

void Query_whatIfSpec(const WhatIf* w, const WhatIf* resolved, int n, char* buf, size_t cap) {
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        char part[96];
        if (w[i].at_peak > 0 && resolved) {
            snprintf(part, sizeof(part), "%s%s=%g%%peak (k=%.3g)", i ? "," : "", w[i].name,
                     w[i].at_peak, resolved[i].k);
        } else if (w[i].at_peak > 0) {
            snprintf(part, sizeof(part), "%s%s=%g%%peak", i ? "," : "", w[i].name, w[i].at_peak);
        } else if (isinf(w[i].k)) {
            snprintf(part, sizeof(part), "%s%s=inf", i ? "," : "", w[i].name);
        } else {
            snprintf(part, sizeof(part), "%s%s=%g", i ? "," : "", w[i].name, w[i].k);
        }
        strncat(buf, part, cap - strlen(buf) - 1);
    }
}

/* The group rows of a --group / --category selection: 1 GEMM, 0 non-GEMM, -1 both (no
 * selection), 2 neither (a category without kernels). */
static int selected_group(const CatRow* rows, int nr, const char* sel) {
    int g = -1;
    if (!sel || is_group_name(sel, &g)) {
        return g;
    }
    for (int i = 0; i < nr; i++) {
        g = strcmp(rows[i].name, sel) == 0 ? rows[i].is_gemm : g;
    }
    return g < 0 ? 2 : g;
}

/* The GEMM (g 1) or non-GEMM (g 0) row: its categories summed, its waiting kept apart. */
static void group_row(ResultSet* rs, const CatRow* rows, int nr, int g, const WhatIf* wr,
                      int nw, const char* wait, int64_t total, int64_t basis) {
    CatRow sum = {.is_gemm = g};
    snprintf(sum.name, sizeof(sum.name), "%s", g ? "GEMM" : "non-GEMM");
    for (int i = 0; i < nr; i++) {
        if (rows[i].is_gemm == g) {
            sum.kernels += rows[i].kernels;
            sum.calls += rows[i].calls;
            sum.total += rows[i].total;
            sum.var += rows[i].var;
            sum.var_kernels += rows[i].var_kernels;
            sum.wait += wait[0] && strcmp(rows[i].name, wait) == 0 ? rows[i].total : 0;
        }
    }
    int given = 0;
    double fk = 1.0;
    for (int i = 0; i < nw; i++) {
        int gg;
        if (is_group_name(wr[i].name, &gg) && gg == g) {
            given = 1;
            fk = wr[i].k;
        }
    }
    cat_row(rs, &sum, "group", total, basis, given, fk, NULL);
}

static DcuStatus q_categories(TraceDb* db, const QueryOpts* o, ResultSet** out, DcuError* err) {
    const WhatIf* w = o ? o->what_if : NULL;
    int nw = o ? o->n_what_if : 0;
    DcuStatus s = check_what_if(db, w, nw, err);
    if (s != DCU_OK) {
        return s;
    }
    CatRow* rows = NULL;
    int nr = 0;
    int64_t total = 0;
    if ((s = load_categories(db, &rows, &nr, &total, err)) != DCU_OK) {
        free(rows);
        return s;
    }
    Filter* f = NULL;
    if (o && o->filter && *o->filter && (s = Filter_new(o->filter, &f, err)) != DCU_OK) {
        free(rows);
        return s;
    }
    ResultSet* rs = ResultSet_new("categories", cat_cols, NCOLS(cat_cols));
    char wait[64];
    wait_category(db, wait, sizeof(wait));
    WhatIf* wr = resolve_what_if(db, w, nw); /* "X%peak" entries as factors */
    int basis_id = Query_amdahlBasis(db);
    int64_t basis = basis_id ? Query_basisNs(db, basis_id) : total;
    const char* sel = o ? o->category : NULL;
    int sel_gemm = selected_group(rows, nr, sel);
    /* the two groups first: they are what the method is about (PRODUCT.md 1) */
    for (int g = 1; g >= 0; g--) {
        if (!sel || sel_gemm == g) {
            group_row(rs, rows, nr, g, wr, nw, wait, total, basis);
        }
    }
    rs->pinned = rs->nrows;
    for (int i = 0; i < nr; i++) {
        if (f && !Filter_matches(f, rows[i].name, strlen(rows[i].name))) {
            continue;
        }
        if (sel && !(strcmp(rows[i].name, sel) == 0 ||
                     (is_group_name(sel, &sel_gemm) && rows[i].is_gemm == sel_gemm))) {
            continue;
        }
        int given;
        double fk = factor_for(&rows[i], wr, nw, &given);
        cat_row(rs, &rows[i], rows[i].is_gemm ? "GEMM" : "non-GEMM", total, basis, given, fk,
                wait);
    }
    if (basis_id && basis != total) {
        /* over wall time, GPU idle is a part of the run like a category: its ceiling says
         * what removing every gap could gain (gap_buckets.h) */
        int64_t idle = Timeline_idleNs(db);
        if (idle > 0 && !sel && (!f || Filter_matches(f, "GPU idle", 8))) {
            CatRow idle_row = {.name = "GPU idle", .total = idle};
            int64_t wall = Timeline_wallNs(db); /* the real wall: idle's share of it */
            cat_row(rs, &idle_row, "idle", wall, wall, 0, 1.0, NULL);
        }
    }
    Filter_delete(f);
    free(rows);
    if (nw > 0) {
        double sp = 1.0;
        if ((s = Query_projectionBasis(db, w, nw, basis_id, &sp, err)) != DCU_OK) {
            ResultSet_delete(rs);
            free(wr);
            return s;
        }
        char spec[256];
        Query_whatIfSpec(w, wr, nw, spec, sizeof(spec));
        if (isinf(sp)) {
            rs->footer = xasprintf("What-if %s: whole program unbounded (all kernel time removed)",
                                   spec);
        } else {
            rs->footer = xasprintf("What-if %s: whole program at most %.2fx faster "
                                   "(bound over %s)",
                                   spec, sp, basis != total ? "wall time" : "device kernel time");
        }
    } else if (basis_id && basis != total) {
        rs->footer = xstrdup("Shares and ceilings over wall time (--amdahl-basis wall): gaps and "
                             "idle time stay, so ceilings are lower than over device kernel time");
    } else if (wait[0]) {
        rs->footer = wait_footer(wait);
    }
    free(wr);
    return finish(rs, o, "total_ns", out, err);
}

/* The API view's rows, in its order: the api_summary_v rows whose name matches filter
 * (NULL: all), no %API yet. */
static DcuStatus api_read(TraceDb* db, const char* filter, ResultSet** out, DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    /* the profiler's own calls last, with no share of host API time */
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT domain, name, calls, total_ns, total_ns * 1.0 / nullif(calls, 0), min_ns, max_ns,"
        " CASE WHEN per_call THEN 'per-call' ELSE 'stats' END"
        " FROM api_summary_v WHERE ?1 IS NULL OR regexp(?1, name)"
        " ORDER BY domain = '" API_DOMAIN_PROFILER "', total_ns DESC, name",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    filter ? sqlite3_bind_text(st, 1, filter, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, 1);
    ResultSet* rs = ResultSet_new("api", api_cols, NCOLS(api_cols));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = A_DOMAIN; c <= A_MAX; c++) {
            set_col(rs, r, c, st, c);
        }
        set_col(rs, r, A_SRC, st, 7);
    }
    if (rc != SQLITE_DONE) {
        s = step_error(db, err);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

/* CAST(total(x) AS INTEGER) over the API view's rows but the profiler's, in SQL: the
 * figures api_totals sums itself where it can */
#define API_TOTAL_SQL(x)                                                                   \
    "SELECT CAST(total(" x ") AS INTEGER) FROM api_summary_v"                             \
    " WHERE domain <> '" API_DOMAIN_PROFILER "'"

static void api_rows_free(void* p) {
    ResultSet_delete(p);
}

/* api_read's rows from api_summary.h's sums, cell for cell as set_col sets the SQL's; 0
 * when those are not promised to be SQL's */
static int api_read_mem(TraceDb* db, ResultSet** out, DcuStatus* s, DcuError* err) {
    ApiSumRow* v = NULL;
    int n = 0, exact = 0;
    *s = ApiSummary_rows(db, &v, &n, &exact, err);
    if (*s != DCU_OK || !exact) {
        return 0;
    }
    ResultSet* rs = ResultSet_new("api", api_cols, NCOLS(api_cols));
    ResultSet_reserve(rs, n);
    for (int i = 0; i < n; i++) {
        const ApiSumRow* a = &v[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, A_DOMAIN, a->domain);
        ResultSet_setText(rs, r, A_NAME, a->name);
        ResultSet_setInt(rs, r, A_CALLS, a->calls);
        ResultSet_setInt(rs, r, A_TOTAL, a->total_ns);
        if (a->calls != 0) { /* total_ns * 1.0 / nullif(calls, 0): a REAL */
            ResultSet_setNs(rs, r, A_AVG, (double)a->total_ns * 1.0 / (double)a->calls);
        }
        if (a->has_min) {
            ResultSet_setInt(rs, r, A_MIN, a->min_ns);
        }
        if (a->has_max) {
            ResultSet_setInt(rs, r, A_MAX, a->max_ns);
        }
        ResultSet_setText(rs, r, A_SRC, a->per_call ? "per-call" : "stats");
    }
    ApiSummary_free(v, n);
    *out = rs;
    return 1;
}

/* Every row of the API view, kept while the database is unchanged: the totals' API figures
 * and an unfiltered API view read them, one grouping of every API call instead of two (0.4 s
 * at a million launches, issue 23). */
static DcuStatus api_rows(TraceDb* db, const ResultSet** out, DcuError* err) {
    *out = TraceDb_cached(db, TRACEDB_CACHE_API_ROWS, TraceDb_state(db));
    if (*out) {
        return DCU_OK;
    }
    ResultSet* rs = NULL;
    DcuStatus s = DCU_OK;
    if (!api_read_mem(db, &rs, &s, err) && s == DCU_OK) {
        s = api_read(db, NULL, &rs, err);
    }
    if (s == DCU_OK) {
        TraceDb_setCached(db, TRACEDB_CACHE_API_ROWS, TraceDb_state(db), rs, api_rows_free);
        *out = rs;
    }
    return s;
}

/* SQL's domain = 'PROFILER' (domain is NOT NULL; names hold no NUL) */
static int api_profiler(const ResultSet* rs, int r) {
    const RsCell* c = ResultSet_cellc(rs, r, A_DOMAIN);
    return !c->null && c->s && strcmp(c->s, API_DOMAIN_PROFILER) == 0;
}

/* CAST(total(x) AS INTEGER) over the API view's rows but the profiler's, x = total_ns and
 * calls. Summed as integers: the same value while no partial sum leaves +-2^53, where
 * doubles hold every whole number (SQLite's total() adds doubles in 3.40, exact integers
 * later); past that, SQL's own. */
static DcuStatus api_totals(TraceDb* db, int64_t* ns, int64_t* calls, DcuError* err) {
    const ResultSet* rs = NULL;
    DcuStatus s = api_rows(db, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    const int64_t lim = API_EXACT_LIMIT;
    int64_t t = 0, c = 0;
    int exact = 1;
    for (int r = 0; r < rs->nrows && exact; r++) {
        const RsCell *tc = ResultSet_cellc(rs, r, A_TOTAL), *cc = ResultSet_cellc(rs, r, A_CALLS);
        if (api_profiler(rs, r)) {
            continue;
        }
        exact = !tc->null && !cc->null && ApiScan_magnitude(tc->i) <= lim &&
                ApiScan_magnitude(cc->i) <= lim;
        t += exact ? tc->i : 0;
        c += exact ? cc->i : 0;
        exact = exact && ApiScan_magnitude(t) <= lim && ApiScan_magnitude(c) <= lim;
    }
    if (exact) {
        *ns = t;
        *calls = c;
        return DCU_OK;
    }
    *ns = TraceDb_scalarInt(db, API_TOTAL_SQL("total_ns"));
    *calls = TraceDb_scalarInt(db, API_TOTAL_SQL("calls"));
    return DCU_OK;
}

/* A copy of src's rows (same columns) */
static ResultSet* api_copy(const ResultSet* src) {
    ResultSet* rs = ResultSet_new(src->name, src->cols, src->ncols);
    ResultSet_reserve(rs, src->nrows);
    for (int r = 0; r < src->nrows; r++) {
        int nr = ResultSet_addRow(rs);
        for (int c = 0; c < src->ncols; c++) {
            const RsCell* from = ResultSet_cellc(src, r, c);
            RsCell* to = ResultSet_cell(rs, nr, c);
            *to = *from;
            to->s = from->s ? xstrdup(from->s) : NULL;
        }
    }
    return rs;
}

static DcuStatus q_api(TraceDb* db, const QueryOpts* o, ResultSet** out, DcuError* err) {
    /* the same figure as the totals' api_ns, which are cached: one grouping of every API
     * call fewer per API view (0.9 s at a million launches, issue 11) */
    Totals tot;
    double total = Query_totals(db, &tot, NULL) == DCU_OK
                       ? (double)tot.api_ns
                       : (double)TraceDb_scalarInt(db, API_TOTAL_SQL("total_ns"));
    ResultSet* rs = NULL;
    DcuStatus s = DCU_OK;
    if (o && o->filter && *o->filter) {
        s = api_read(db, o->filter, &rs, err);
    } else {
        const ResultSet* all = NULL;
        s = api_rows(db, &all, err);
        rs = s == DCU_OK ? api_copy(all) : NULL;
    }
    if (s != DCU_OK) {
        return s;
    }
    int profiler = 0;
    for (int r = 0; r < rs->nrows; r++) {
        if (api_profiler(rs, r)) {
            profiler++;
            continue; /* %API stays NULL: not host API time */
        }
        double p = total > 0 ? ResultSet_cell(rs, r, A_TOTAL)->i / total : 0;
        ResultSet_setReal(rs, r, A_PCT, 100.0 * p);
    }
    rs->trailing = profiler;
    if (profiler) {
        rs->footer = xstrdup(API_DOMAIN_PROFILER " rows (last): the profiler's own work, such as"
                             " rpd_tracer writing its tables; not host API time");
    }
    return finish(rs, o, "total_ns", out, err);
}

static DcuStatus q_copies(TraceDb* db, const QueryOpts* o, ResultSet** out, DcuError* err) {
    double total = (double)TraceDb_scalarInt(db, "SELECT CAST(total(total_ns) AS INTEGER) FROM copy_summary_v");
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT name, calls, bytes, total_ns, total_ns * 1.0 / nullif(calls, 0), min_ns, max_ns"
        " FROM copy_summary_v WHERE ?1 IS NULL OR regexp(?1, name) ORDER BY total_ns DESC, name",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    bind_filter(st, 1, o);
    ResultSet* rs = ResultSet_new("copies", copy_cols, NCOLS(copy_cols));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = M_NAME; c <= M_MAX; c++) {
            set_col(rs, r, c, st, c);
        }
        RsCell* t = ResultSet_cell(rs, r, M_TOTAL);
        RsCell* b = ResultSet_cell(rs, r, M_BYTES);
        ResultSet_setReal(rs, r, M_PCT, total > 0 ? 100.0 * t->i / total : 0);
        if (!b->null && t->i > 0) {
            ResultSet_setReal(rs, r, M_BW, (double)b->i / (double)t->i); /* bytes/ns = GB/s */
        }
    }
    if (rc != SQLITE_DONE) {
        s = step_error(db, err);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    return finish(rs, o, "total_ns", out, err);
}

static DcuStatus q_files(TraceDb* db, const QueryOpts* o, ResultSet** out, DcuError* err) {
    sqlite3_stmt* st = NULL;
    int no_run = Runs_scopeRun(db) <= 0; /* the default scope or every run: not one picked */
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT f.path, f.name, f.format,"
        " (SELECT group_concat(layer, '+') FROM (SELECT layer FROM source_layer"
        "   WHERE file_id = f.id ORDER BY layer)),"
        " f.rows_read, f.rows_rejected,"
        " CASE"
        "  WHEN f.format = 'unreadable' THEN 'error: ' || coalesce(f.note, '')"
        "  WHEN f.rows_read = 0 THEN 'skipped: ' || coalesce(f.note, 'no rows')"
        /* rows attached to another file's (counter_collection.csv: its note says where) */
        "  WHEN f.note IS NOT NULL AND NOT EXISTS (SELECT 1 FROM source_layer l"
        "   WHERE l.file_id = f.id) THEN 'used: ' || f.note"
        /* a PMC run beside a run that gives kernel times: its counters only (used_file) */
        "  WHEN EXISTS (SELECT 1 FROM used_file u WHERE u.file_id = f.id AND u.layer = 'counter')"
        "   AND NOT EXISTS (SELECT 1 FROM used_file u WHERE u.file_id = f.id"
        "   AND u.layer = 'kernel') THEN 'used: PMC counters only (kernel times from another run)'"
        "  WHEN EXISTS (SELECT 1 FROM source_layer l WHERE l.file_id = f.id AND l.used) THEN"
        "   'used' || coalesce((SELECT ' (' || group_concat(l.layer || ' superseded by ' ||"
        "     (SELECT name FROM source_file WHERE id = l.superseded_by), '; ') || ')'"
        "     FROM source_layer l WHERE l.file_id = f.id AND NOT l.used), '')"
        "     || CASE WHEN f.pmc THEN ' (PMC counters)' ELSE '' END"
        /* flagged while loading (load_runs.c): far below its own stats */
        "     || CASE WHEN f.note LIKE 'WARNING: %' THEN '; ' || f.note ELSE '' END"
        "  ELSE 'superseded by ' || coalesce((SELECT group_concat(p, ', ') FROM (SELECT DISTINCT"
        "     (SELECT name FROM source_file WHERE id = l.superseded_by) AS p FROM source_layer l"
        "     WHERE l.file_id = f.id)), '?') || ' (finer-grained data preferred)'"
        " END"
        " FROM source_file f WHERE (?1 IS NULL OR regexp(?1, f.path))"
        /* the runs of the scope (files in no run with every run or the default scope, not
         * with one run picked), or the one run asked */
        "  AND CASE WHEN ?2 > 0 THEN f.run_id = ?2"
        "   WHEN f.run_id IS NULL THEN ?3"
        "   ELSE f.run_id IN (SELECT run_id FROM run_scope) END"
        " ORDER BY f.id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    bind_filter(st, 1, o);
    sqlite3_bind_int64(st, 2, o ? o->run : 0);
    sqlite3_bind_int(st, 3, no_run);
    ResultSet* rs = ResultSet_new("files", file_cols, NCOLS(file_cols));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = FI_PATH; c <= FI_STATUS; c++) {
            set_col(rs, r, c, st, c);
        }
    }
    if (rc != SQLITE_DONE) {
        s = step_error(db, err);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    return finish(rs, o, NULL, out, err);
}

DcuStatus Query_view(TraceDb* db, ViewId v, const QueryOpts* opts, ResultSet** out,
                     DcuError* err) {
    *out = NULL;
    DcuStatus s = check_filter(opts, err);
    if (s != DCU_OK) {
        return s;
    }
    switch (v) {
    case VIEW_FILES:
        return q_files(db, opts, out, err);
    case VIEW_HOTSPOTS:
        return q_hotspots(db, opts, out, err);
    case VIEW_CATEGORIES:
        return q_categories(db, opts, out, err);
    case VIEW_API:
        return q_api(db, opts, out, err);
    case VIEW_COPIES:
        return q_copies(db, opts, out, err);
    default:
        return Error_set(err, DCU_ERR_USAGE, "unknown view");
    }
}

int Query_wallAvailable(TraceDb* db) {
    return Timeline_wallNs(db) > 0;
}
