/* diff_op_table.c - an op-matched Diff as ResultSets: per op ("diff_ops") and per module
 * ("diff_modules"), what the report, --export diff and the Diff screen read. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/diff.h"
#include "dcutop/filter.h"

enum { O_NAME, O_STATUS, O_PASS, O_MODULE, O_OP, O_SHAPES, O_OCC, O_CAT, O_BEFORE, O_AFTER,
       O_DELTA, O_PCT, O_RATIO, O_CB, O_CA, O_SHARE, O_NOISE, O_LO, O_HI, O_KB, O_KA,
       O_BMIN, O_BMAX, O_AMIN, O_AMAX, O_NCOLS };

static const RsColumn op_cols[O_NCOLS] = {
    {"name", "Op", CT_TEXT},
    {"status", "Status", CT_TEXT},
    {"pass", "Pass", CT_TEXT},
    {"module", "Module", CT_TEXT},
    {"op", "Op name", CT_TEXT},
    {"shapes", "Input shapes", CT_TEXT},
    {"occurrence", "Occ", CT_INT},
    {"category", "Category", CT_TEXT},
    {"before", "Before", CT_NS},
    {"after", "After", CT_NS},
    {"delta", "Delta", CT_NS},
    {"delta_pct", "Delta%", CT_PCT},
    {"ratio", "Ratio", CT_RATIO},
    {"calls_before", "Calls A", CT_INT},
    {"calls_after", "Calls B", CT_INT},
    {"share_pct", "Share%", CT_PCT},
    {"noise", "Noise", CT_TEXT},
    {"ci_lo", "CI lo", CT_NS},
    {"ci_hi", "CI hi", CT_NS},
    {"kernels_before", "Kernels A", CT_TEXT},
    {"kernels_after", "Kernels B", CT_TEXT},
    {"before_min", "A min", CT_NS},
    {"before_max", "A max", CT_NS},
    {"after_min", "B min", CT_NS},
    {"after_max", "B max", CT_NS},
};

enum { M_NAME, M_STATUS, M_BEFORE, M_AFTER, M_DELTA, M_PCT, M_RATIO, M_CB, M_CA, M_SHARE,
       M_NOISE, M_LO, M_HI, M_NCOLS };

static const RsColumn mod_cols[M_NCOLS] = {
    {"module", "Module", CT_TEXT},   {"status", "Status", CT_TEXT},
    {"before", "Before", CT_NS},     {"after", "After", CT_NS},
    {"delta", "Delta", CT_NS},       {"delta_pct", "Delta%", CT_PCT},
    {"ratio", "Ratio", CT_RATIO},    {"calls_before", "Op calls A", CT_INT},
    {"calls_after", "Op calls B", CT_INT}, {"share_pct", "Share%", CT_PCT},
    {"noise", "Noise", CT_TEXT},     {"ci_lo", "CI lo", CT_NS},
    {"ci_hi", "CI hi", CT_NS},
};

static void set_ns(ResultSet* rs, int r, int c, double v) {
    if (isfinite(v)) {
        ResultSet_setInt(rs, r, c, (int64_t)llround(v));
    }
}

static void set_real(ResultSet* rs, int r, int c, double v) {
    if (!isnan(v)) {
        ResultSet_setReal(rs, r, c, v);
    }
}

/* The figures every row has, at the columns given from `before` on. */
static void figures(ResultSet* rs, int r, const DiffRow* x, int c0) {
    set_ns(rs, r, c0, x->before.mean);
    set_ns(rs, r, c0 + 1, x->after.mean);
    set_ns(rs, r, c0 + 2, x->delta);
    set_real(rs, r, c0 + 3, x->delta_pct);
    set_real(rs, r, c0 + 4, x->ratio);
    ResultSet_setInt(rs, r, c0 + 5, llround(x->calls_before));
    ResultSet_setInt(rs, r, c0 + 6, llround(x->calls_after));
    set_real(rs, r, c0 + 7, x->share);
    ResultSet_setText(rs, r, c0 + 8, Diff_noiseName(x->noise));
    if (x->has_ci) {
        set_ns(rs, r, c0 + 9, x->ci_lo);
        set_ns(rs, r, c0 + 10, x->ci_hi);
    }
}

static void put_op(ResultSet* rs, const Diff* d, const DiffRow* x) {
    int r = ResultSet_addRow(rs);
    const DiffOp* o = x->op;
    ResultSet_setText(rs, r, O_NAME, x->name);
    ResultSet_setText(rs, r, O_STATUS, Diff_presenceName(x->presence));
    ResultSet_setText(rs, r, O_PASS, o ? o->pass : "");
    ResultSet_setText(rs, r, O_MODULE, o ? o->module : "");
    ResultSet_setText(rs, r, O_OP, o ? o->op : "");
    ResultSet_setText(rs, r, O_SHAPES, o ? o->shapes : "");
    ResultSet_setInt(rs, r, O_OCC, o ? o->occurrence : 0);
    ResultSet_setText(rs, r, O_CAT, x->category);
    figures(rs, r, x, O_BEFORE);
    ResultSet_setText(rs, r, O_KB, o && o->kernels ? o->kernels : "");
    ResultSet_setText(rs, r, O_KA, x->b_kernels ? x->b_kernels : "");
    if (d->na > 1 || d->nb > 1) {
        set_ns(rs, r, O_BMIN, x->before.min);
        set_ns(rs, r, O_BMAX, x->before.max);
        set_ns(rs, r, O_AMIN, x->after.min);
        set_ns(rs, r, O_AMAX, x->after.max);
    }
}

static const RsColumn name_cols[M_NCOLS] = {
    {"op", "Op", CT_TEXT},           {"status", "Status", CT_TEXT},
    {"before", "Before", CT_NS},     {"after", "After", CT_NS},
    {"delta", "Delta", CT_NS},       {"delta_pct", "Delta%", CT_PCT},
    {"ratio", "Ratio", CT_RATIO},    {"calls_before", "Calls A", CT_INT},
    {"calls_after", "Calls B", CT_INT}, {"share_pct", "Share%", CT_PCT},
    {"noise", "Noise", CT_TEXT},     {"ci_lo", "CI lo", CT_NS},
    {"ci_hi", "CI hi", CT_NS},
};

/* mods: 0 ops, 1 modules, 2 op names */
static DcuStatus table(const Diff* d, int mods, const char* filter, ResultSet** out,
                       DcuError* err) {
    *out = NULL;
    Filter* f = NULL;
    if (filter && *filter && Filter_new(filter, &f, err) != DCU_OK) {
        return err->code;
    }
    ResultSet* rs = mods == 1   ? ResultSet_new("diff_modules", mod_cols, M_NCOLS)
                    : mods == 2 ? ResultSet_new("diff_op_names", name_cols, M_NCOLS)
                                : ResultSet_new("diff_ops", op_cols,
                                                d->na > 1 || d->nb > 1 ? O_NCOLS : O_BMIN);
    const DiffRow* rows = mods == 1 ? d->mods : (mods == 2 ? d->names : d->ops);
    int n = mods == 1 ? d->nmods : (mods == 2 ? d->nnames : d->nops);
    for (int i = 0; i < n; i++) {
        const DiffRow* x = &rows[i];
        if (f && !Filter_matches(f, x->name, strlen(x->name))) {
            continue;
        }
        if (mods) {
            int r = ResultSet_addRow(rs);
            ResultSet_setText(rs, r, M_NAME,
                              *x->name || mods == 2 ? x->name : "(outside every module)");
            ResultSet_setText(rs, r, M_STATUS, Diff_presenceName(x->presence));
            figures(rs, r, x, M_BEFORE);
        } else {
            put_op(rs, d, x);
        }
    }
    Filter_delete(f);
    *out = rs;
    return DCU_OK;
}

DcuStatus Diff_opTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err) {
    return table(d, 0, filter, out, err);
}

DcuStatus Diff_moduleTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err) {
    return table(d, 1, filter, out, err);
}

DcuStatus Diff_opNameTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err) {
    return table(d, 2, filter, out, err);
}
