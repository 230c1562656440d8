/* ops.c - see ops.h. Every table is one GROUP BY over the dispatches in use joined to
 * dispatch_op and the ops; shapes are merged in C (the distinct shapes of a group). */
#include "dcutop/ops.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/amdahl.h"
#include "dcutop/filter.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"

/* One row per dispatch in use that dispatch_op covers: the names the view groups by. */
#define OPS_BASE                                                                              \
    "SELECT sf.run_id AS run, o.step AS step, coalesce(o.module, '') AS module,"             \
    " CASE WHEN o.op_id IS NULL AND o.op_name IS NULL THEN '[unlinked]'"                     \
    "  WHEN o.module IS NULL THEN '[no module]'"                                              \
    "  ELSE o.module END AS mlabel,"                                                          \
    " CASE WHEN o.op_id IS NULL THEN coalesce(o.op_name, '')"                                 \
    "  WHEN o.pass = 'backward' AND o.fwd_op_id IS NOT NULL THEN fo.name ELSE c.name END"    \
    "  AS op,"                                                                                \
    " o.pass AS pass, coalesce(o.fwd_op_id, o.op_id, -o.call_id) AS call_op,"                 \
    " CASE WHEN o.pass = 'backward' AND o.fwd_op_id IS NOT NULL THEN fo.input_dims"          \
    "  ELSE c.input_dims END AS dims,"                                                        \
    " CASE WHEN o.pass = 'backward' AND o.fwd_op_id IS NOT NULL THEN fo.input_types"         \
    "  ELSE c.input_types END AS types,"                                                      \
    " d.kernel_id AS kernel_id, d.dur_ns AS dur, d.id AS id, o.how AS how"                    \
    " FROM dispatch_op o JOIN dispatch d ON d.id = o.dispatch_id"                             \
    " JOIN used_file u ON u.file_id = d.file_id AND u.layer = 'kernel'"                       \
    " JOIN source_file sf ON sf.id = d.file_id"                                               \
    " LEFT JOIN cpu_op c ON c.id = o.op_id LEFT JOIN cpu_op fo ON fo.id = o.fwd_op_id"

int Ops_available(TraceDb* db) {
    return TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM dispatch_op o"
                                 " JOIN dispatch d ON d.id = o.dispatch_id"
                                 " JOIN used_file u ON u.file_id = d.file_id"
                                 " AND u.layer = 'kernel')") == 1;
}

/* The denominator of shares: the opportunity list's (ops.h). */
static double basis_ns(TraceDb* db, const char** label) {
    Timeline* tl = NULL;
    DcuError e;
    double d = 0;
    *label = "device kernel time";
    if (Timeline_new(db, &tl, &e) == DCU_OK) {
        const TimelineSummary* t = Timeline_summary(tl);
        if (t && t->available && t->wall_ns > 0) {
            d = (double)Timeline_basisNs(tl, AMDAHL_BASIS_WALL);
            *label = "wall time";
        }
    }
    Timeline_delete(tl);
    if (d <= 0) {
        Totals tot;
        d = Query_totals(db, &tot, &e) == DCU_OK ? (double)tot.kernel_ns : 0;
        *label = "device kernel time";
    }
    return d;
}

static void set_share(ResultSet* rs, int r, int col_ns, int col_share, double basis) {
    const RsCell* c = ResultSet_cellc(rs, r, col_ns);
    if (basis > 0 && !c->null) {
        double p = (double)c->i / basis;
        ResultSet_setReal(rs, r, col_share, 100.0 * p);
        ResultSet_setReal(rs, r, col_share + 1, Amdahl_ceiling(p));
    }
}

/* Appends text to a ' | '-joined list in *acc unless it is there already. */
static void join_distinct(char** acc, const char* text) {
    if (!text || !*text) {
        return;
    }
    if (*acc) {
        size_t n = strlen(text);
        for (const char* p = *acc; (p = strstr(p, text)) != NULL; p += n) {
            int starts = p == *acc || (p - *acc >= 3 && strncmp(p - 3, " | ", 3) == 0);
            int ends = p[n] == '\0' || strncmp(p + n, " | ", 3) == 0;
            if (starts && ends) {
                return;
            }
        }
        char* j = xasprintf("%s | %s", *acc, text);
        free(*acc);
        *acc = j;
    } else {
        *acc = xstrdup(text);
    }
}

/* Keeps the rows whose column col (or col2 >= 0) passes the filter. */
static DcuStatus filter_rows(ResultSet** rs, const char* pattern, int col, int col2,
                             DcuError* err) {
    if (!pattern || !*pattern) {
        return DCU_OK;
    }
    Filter* f = NULL;
    DcuStatus s = Filter_new(pattern, &f, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* in = *rs;
    ResultSet* kept = ResultSet_new(in->name, in->cols, in->ncols);
    for (int r = 0; r < in->nrows; r++) {
        const char* a = ResultSet_cellc(in, r, col)->s;
        const char* b = col2 >= 0 ? ResultSet_cellc(in, r, col2)->s : NULL;
        int ok = Filter_matches(f, a ? a : "", a ? strlen(a) : 0);
        if (!ok && b) {
            ok = Filter_matches(f, b, strlen(b));
        }
        if (!ok) {
            continue;
        }
        int k = ResultSet_addRow(kept);
        for (int c = 0; c < in->ncols; c++) {
            RsCell* dst = ResultSet_cell(kept, k, c);
            *dst = *ResultSet_cellc(in, r, c);
            dst->s = dst->s ? xstrdup(dst->s) : NULL;
        }
    }
    kept->footer = in->footer ? xstrdup(in->footer) : NULL;
    ResultSet_delete(in);
    *rs = kept;
    Filter_delete(f);
    return DCU_OK;
}

static DcuStatus sql_fail(TraceDb* db, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "ops: %s", sqlite3_errmsg(TraceDb_handle(db)));
}

static char* basis_footer(const char* label) {
    return xasprintf("share and ceiling over %s, as the opportunity list; backward kernels "
                     "count under their forward op",
                     label);
}

/* ---- --export ops ----------------------------------------------------------------------- */

static const RsColumn export_cols[] = {
    {"run", "Run", CT_INT},           {"step", "Step", CT_INT},
    {"module", "Module", CT_TEXT},    {"op", "Op", CT_TEXT},
    {"pass", "Pass", CT_TEXT},        {"calls", "Calls", CT_INT},
    {"kernels", "Kernels", CT_INT},   {"device_ns", "Device", CT_NS},
    {"input_shapes", "Shapes", CT_TEXT}, {"input_types", "Types", CT_TEXT},
    {"share_pct", "%Basis", CT_PCT},  {"ceiling", "Ceiling", CT_RATIO},
};
enum { X_RUN, X_STEP, X_MODULE, X_OP, X_PASS, X_CALLS, X_KERNELS, X_NS, X_SHAPES, X_TYPES,
       X_SHARE, X_CEIL, X_COUNT };

static int same_key(sqlite3_stmt* st, const ResultSet* rs, int r) {
    for (int k = 0; k < 5; k++) {
        const RsCell* c = ResultSet_cellc(rs, r, k);
        int null = sqlite3_column_type(st, k) == SQLITE_NULL;
        if (null != c->null) {
            return 0;
        }
        if (null) {
            continue;
        }
        if (k == X_RUN || k == X_STEP) {
            if (sqlite3_column_int64(st, k) != c->i) {
                return 0;
            }
        } else if (strcmp((const char*)sqlite3_column_text(st, k), c->s ? c->s : "") != 0) {
            return 0;
        }
    }
    return 1;
}

DcuStatus Ops_export(TraceDb* db, const QueryOpts* q, ResultSet** out, DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT run, step, module, op, pass, count(DISTINCT call_op),"
                                  " count(*), CAST(total(dur) AS INTEGER), dims, types"
                                  " FROM (" OPS_BASE ") GROUP BY 1, 2, 3, 4, 5, 9, 10"
                                  " ORDER BY 1, 2, 3, 4, 5, 9, 10",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    const char* label;
    double basis = basis_ns(db, &label);
    ResultSet* rs = ResultSet_new("ops", export_cols, X_COUNT);
    char *shapes = NULL, *types = NULL;
    int rc, r = -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r < 0 || !same_key(st, rs, r)) {
            if (r >= 0) {
                ResultSet_setText(rs, r, X_SHAPES, shapes ? shapes : "");
                ResultSet_setText(rs, r, X_TYPES, types ? types : "");
            }
            free(shapes);
            free(types);
            shapes = types = NULL;
            r = ResultSet_addRow(rs);
            ResultSet_setInt(rs, r, X_RUN, sqlite3_column_int64(st, 0));
            if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
                ResultSet_setInt(rs, r, X_STEP, sqlite3_column_int64(st, 1));
            }
            for (int k = 2; k < 5; k++) {
                ResultSet_setText(rs, r, k, (const char*)sqlite3_column_text(st, k));
            }
            ResultSet_setInt(rs, r, X_CALLS, 0);
            ResultSet_setInt(rs, r, X_KERNELS, 0);
            ResultSet_setInt(rs, r, X_NS, 0);
        }
        ResultSet_cell(rs, r, X_CALLS)->i += sqlite3_column_int64(st, 5);
        ResultSet_cell(rs, r, X_KERNELS)->i += sqlite3_column_int64(st, 6);
        ResultSet_cell(rs, r, X_NS)->i += sqlite3_column_int64(st, 7);
        join_distinct(&shapes, (const char*)sqlite3_column_text(st, 8));
        join_distinct(&types, (const char*)sqlite3_column_text(st, 9));
    }
    if (r >= 0) {
        ResultSet_setText(rs, r, X_SHAPES, shapes ? shapes : "");
        ResultSet_setText(rs, r, X_TYPES, types ? types : "");
    }
    free(shapes);
    free(types);
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    for (int i = 0; s == DCU_OK && i < rs->nrows; i++) {
        set_share(rs, i, X_NS, X_SHARE, basis);
    }
    rs->footer = basis_footer(label);
    if (s == DCU_OK) {
        s = filter_rows(&rs, q ? q->filter : NULL, X_OP, X_MODULE, err);
    }
    if (s == DCU_OK && q && q->sort && *q->sort) {
        s = Query_sort(rs, q->sort, err);
    }
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

/* ---- the screen's levels --------------------------------------------------------------- */

static const RsColumn module_cols[] = {
    {"module", "Module", CT_TEXT},  {"fwd_ns", "Forward", CT_NS},
    {"bwd_ns", "Backward", CT_NS},  {"total_ns", "Total", CT_NS},
    {"calls", "Calls", CT_INT},     {"kernels", "Kernels", CT_INT},
    {"share_pct", "%Basis", CT_PCT}, {"ceiling", "Ceiling", CT_RATIO},
};
static const RsColumn op_cols[] = {
    {"op", "Op", CT_TEXT},          {"fwd_ns", "Forward", CT_NS},
    {"bwd_ns", "Backward", CT_NS},  {"total_ns", "Total", CT_NS},
    {"calls", "Calls", CT_INT},     {"kernels", "Kernels", CT_INT},
    {"share_pct", "%Basis", CT_PCT}, {"ceiling", "Ceiling", CT_RATIO},
    {"input_shapes", "Shapes", CT_TEXT}, {"input_types", "Types", CT_TEXT},
};
static const RsColumn kernel_cols[] = {
    {"name", "Kernel", CT_TEXT},    {"short_name", "Kernel", CT_TEXT},
    {"pass", "Pass", CT_TEXT},      {"kernels", "Dispatches", CT_INT},
    {"total_ns", "Total", CT_NS},   {"avg_ns", "Avg", CT_NS},
    {"share_pct", "%Basis", CT_PCT}, {"ceiling", "Ceiling", CT_RATIO},
};
static const RsColumn dispatch_cols[] = {
    {"id", "Dispatch", CT_INT},     {"run", "Run", CT_INT},
    {"step", "Step", CT_INT},       {"pass", "Pass", CT_TEXT},
    {"dur_ns", "Duration", CT_NS},  {"how", "Linked by", CT_TEXT},
    {"op_id", "Op id", CT_INT},     {"fwd_op_id", "Fwd op id", CT_INT},
};

/* ?1 module label, ?2 op label, ?3 kernel name: the rows of one level (op label: the op, or
 * for unlinked kernels their reason). */
static const char* const level_sql[] = {
    [OPS_MODULES] = "SELECT mlabel,"
                    " CAST(total(CASE WHEN pass = 'forward' THEN dur END) AS INTEGER),"
                    " CAST(total(CASE WHEN pass = 'backward' THEN dur END) AS INTEGER),"
                    " CAST(total(dur) AS INTEGER), count(DISTINCT call_op), count(*)"
                    " FROM (" OPS_BASE ") GROUP BY 1 ORDER BY 4 DESC, 1",
    [OPS_OPS] = "SELECT CASE WHEN op = '' THEN how ELSE op END, "
                "CAST(total(CASE WHEN pass = 'forward' THEN dur END) AS INTEGER),"
                " CAST(total(CASE WHEN pass = 'backward' THEN dur END) AS INTEGER),"
                " CAST(total(dur) AS INTEGER), count(DISTINCT call_op), count(*), dims, types"
                " FROM (" OPS_BASE ") WHERE mlabel = ?1 GROUP BY 1, 7, 8 ORDER BY 1, 7, 8",
    [OPS_KERNELS] = "SELECT k.name, k.short_name, b.pass, count(*), CAST(total(b.dur) AS INTEGER)"
                    " FROM (" OPS_BASE ") b JOIN kernel k ON k.id = b.kernel_id"
                    " WHERE b.mlabel = ?1 AND CASE WHEN b.op = '' THEN b.how ELSE b.op END = ?2"
                    " GROUP BY b.kernel_id, b.pass ORDER BY 5 DESC, 1, 3",
    [OPS_DISPATCHES] = "SELECT b.id, b.run, b.step, b.pass, b.dur, b.how, o.op_id, o.fwd_op_id"
                       " FROM (" OPS_BASE ") b JOIN kernel k ON k.id = b.kernel_id"
                       " JOIN dispatch_op o ON o.dispatch_id = b.id"
                       " WHERE b.mlabel = ?1 AND CASE WHEN b.op = '' THEN b.how ELSE b.op END = ?2"
                       " AND k.name = ?3 ORDER BY b.id",
};

static void bind_sel(sqlite3_stmt* st, const OpsSel* sel) {
    const char* v[3] = {sel->module, sel->op, sel->kernel};
    for (int i = 0; i < 3; i++) {
        if (v[i] && sqlite3_bind_parameter_count(st) > i) {
            sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT);
        }
    }
}

/* OPS_OPS rows come one per (op, shapes, types): merged here into one per op. */
static void ops_row(ResultSet* rs, sqlite3_stmt* st, char** shapes, char** types) {
    const char* op = (const char*)sqlite3_column_text(st, 0);
    int r = rs->nrows - 1;
    if (r < 0 || strcmp(ResultSet_cellc(rs, r, 0)->s, op ? op : "") != 0) {
        if (r >= 0) {
            ResultSet_setText(rs, r, 8, *shapes ? *shapes : "");
            ResultSet_setText(rs, r, 9, *types ? *types : "");
        }
        free(*shapes);
        free(*types);
        *shapes = *types = NULL;
        r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, op ? op : "");
        for (int c = 1; c <= 5; c++) {
            ResultSet_setInt(rs, r, c, 0);
        }
    }
    for (int c = 1; c <= 5; c++) {
        ResultSet_cell(rs, r, c)->i += sqlite3_column_int64(st, c);
    }
    join_distinct(shapes, (const char*)sqlite3_column_text(st, 6));
    join_distinct(types, (const char*)sqlite3_column_text(st, 7));
}

static DcuStatus level_rows(TraceDb* db, const OpsSel* sel, ResultSet* rs, double basis,
                            DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, level_sql[sel->level], &st, err);
    if (s != DCU_OK) {
        return s;
    }
    bind_sel(st, sel);
    char *shapes = NULL, *types = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sel->level == OPS_OPS) {
            ops_row(rs, st, &shapes, &types);
            continue;
        }
        int r = ResultSet_addRow(rs);
        for (int c = 0; c < rs->ncols && c < sqlite3_column_count(st); c++) {
            if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                continue;
            }
            if (rs->cols[c].type == CT_TEXT) {
                ResultSet_setText(rs, r, c, (const char*)sqlite3_column_text(st, c));
            } else {
                ResultSet_setInt(rs, r, c, sqlite3_column_int64(st, c));
            }
        }
        if (sel->level == OPS_KERNELS) {
            int64_t n = sqlite3_column_int64(st, 3);
            ResultSet_setInt(rs, r, 4, sqlite3_column_int64(st, 4));
            ResultSet_setNs(rs, r, 5, n > 0 ? (double)sqlite3_column_int64(st, 4) / (double)n : 0);
        }
    }
    if (sel->level == OPS_OPS && rs->nrows > 0) {
        ResultSet_setText(rs, rs->nrows - 1, 8, shapes ? shapes : "");
        ResultSet_setText(rs, rs->nrows - 1, 9, types ? types : "");
    }
    free(shapes);
    free(types);
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    int ns = sel->level == OPS_KERNELS ? 4 : 3; /* the share and ceiling are 6 and 7 */
    for (int r = 0; s == DCU_OK && sel->level != OPS_DISPATCHES && r < rs->nrows; r++) {
        set_share(rs, r, ns, 6, basis);
    }
    return s;
}

DcuStatus Ops_table(TraceDb* db, const OpsSel* sel, const QueryOpts* q, ResultSet** out,
                    DcuError* err) {
    static const struct {
        const RsColumn* cols;
        int n;
        const char* name;
        const char* sort;
    } lv[] = {
        [OPS_MODULES] = {module_cols, 8, "ops-modules", "total_ns:desc"},
        [OPS_OPS] = {op_cols, 10, "ops", "total_ns:desc"},
        [OPS_KERNELS] = {kernel_cols, 8, "ops-kernels", "total_ns:desc"},
        [OPS_DISPATCHES] = {dispatch_cols, 8, "ops-dispatches", NULL},
    };
    *out = NULL;
    const char* label;
    double basis = sel->level == OPS_DISPATCHES ? 0 : basis_ns(db, &label);
    ResultSet* rs = ResultSet_new(lv[sel->level].name, lv[sel->level].cols, lv[sel->level].n);
    DcuStatus s = level_rows(db, sel, rs, basis, err);
    if (s == DCU_OK && sel->level != OPS_DISPATCHES) {
        rs->footer = basis_footer(label);
    }
    if (s == DCU_OK) {
        s = filter_rows(&rs, q ? q->filter : NULL, sel->level == OPS_KERNELS ? 1 : 0,
                        sel->level == OPS_KERNELS ? 0 : -1, err);
    }
    if (s == DCU_OK) {
        const char* sort = q && q->sort && *q->sort ? q->sort : lv[sel->level].sort;
        s = sort ? Query_sort(rs, sort, err) : DCU_OK;
    }
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

DcuStatus Ops_coverage(TraceDb* db, OpsCoverage* c, DcuError* err) {
    memset(c, 0, sizeof(*c));
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT CAST(total(dur) AS INTEGER), CAST(total(CASE WHEN op <> '' THEN dur END)"
        " AS INTEGER), count(*), count(CASE WHEN op <> '' THEN 1 END),"
        " CAST(total(CASE WHEN pass = 'backward' THEN dur END) AS INTEGER),"
        " CAST(total(CASE WHEN pass = 'backward' AND how IN ('flow', 'sequence') THEN dur END)"
        " AS INTEGER) FROM (" OPS_BASE ")",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        c->total_ns = sqlite3_column_int64(st, 0);
        c->linked_ns = sqlite3_column_int64(st, 1);
        c->kernels = sqlite3_column_int64(st, 2);
        c->linked = sqlite3_column_int64(st, 3);
        c->backward_ns = sqlite3_column_int64(st, 4);
        c->backward_fwd_ns = sqlite3_column_int64(st, 5);
    } else {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    if (s == DCU_OK) {
        c->ranged_ns = TraceDb_scalarInt(
            db, "SELECT CAST(total(d.dur_ns) AS INTEGER) FROM dispatch_op o"
                " JOIN dispatch d ON d.id = o.dispatch_id"
                " JOIN used_file u ON u.file_id = d.file_id AND u.layer = 'kernel'"
                " LEFT JOIN dispatch_range dr ON dr.dispatch_id = d.id"
                " WHERE dr.range_id IS NOT NULL OR o.module IS NOT NULL");
    }
    return s;
}
