/* diff_table.c - a Diff as ResultSets: what the report, the export and the Diff screen read. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/diff.h"
#include "dcutop/filter.h"

enum { D_NAME, D_STATUS, D_MATCH, D_CAT, D_BEFORE, D_AFTER, D_DELTA, D_PCT, D_RATIO, D_CB, D_CA,
       D_SHARE, D_NOISE, D_LO, D_HI, D_BMED, D_BMIN, D_BMAX, D_AMED, D_AMIN, D_AMAX, D_NCOLS };

static const RsColumn kernel_cols[D_NCOLS] = {
    {"name", "Kernel", CT_TEXT},
    {"status", "Status", CT_TEXT},
    {"match", "Match", CT_TEXT},
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
    {"before_median", "A median", CT_NS},
    {"before_min", "A min", CT_NS},
    {"before_max", "A max", CT_NS},
    {"after_median", "B median", CT_NS},
    {"after_min", "B min", CT_NS},
    {"after_max", "B max", CT_NS},
};

static const RsColumn cat_cols[D_NCOLS] = {
    {"category", "Category", CT_TEXT},
    {"status", "Status", CT_TEXT},
    {"group", "Group", CT_TEXT},
    {"gemm", "GEMM", CT_TEXT},
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
    {"before_median", "A median", CT_NS},
    {"before_min", "A min", CT_NS},
    {"before_max", "A max", CT_NS},
    {"after_median", "B median", CT_NS},
    {"after_min", "B min", CT_NS},
    {"after_max", "B max", CT_NS},
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

static void put_row(ResultSet* rs, const Diff* d, const DiffRow* x, int is_cat) {
    int r = ResultSet_addRow(rs);
    ResultSet_setText(rs, r, D_NAME, x->name);
    ResultSet_setText(rs, r, D_STATUS, Diff_presenceName(x->presence));
    if (is_cat) {
        ResultSet_setText(rs, r, D_MATCH, x->is_gemm ? "GEMM" : "non-GEMM");
        ResultSet_setText(rs, r, D_CAT, x->is_gemm ? "yes" : "no");
    } else {
        ResultSet_setText(rs, r, D_MATCH, x->fuzzy ? "fuzzy" : "exact");
        ResultSet_setText(rs, r, D_CAT, x->category);
    }
    set_ns(rs, r, D_BEFORE, x->before.mean);
    set_ns(rs, r, D_AFTER, x->after.mean);
    set_ns(rs, r, D_DELTA, x->delta);
    set_real(rs, r, D_PCT, x->delta_pct);
    set_real(rs, r, D_RATIO, x->ratio);
    ResultSet_setInt(rs, r, D_CB, llround(x->calls_before)); /* mean over repeats, rounded */
    ResultSet_setInt(rs, r, D_CA, llround(x->calls_after));
    set_real(rs, r, D_SHARE, x->share);
    ResultSet_setText(rs, r, D_NOISE, Diff_noiseName(x->noise));
    if (x->has_ci) {
        set_ns(rs, r, D_LO, x->ci_lo);
        set_ns(rs, r, D_HI, x->ci_hi);
    }
    if (d->na > 1 || d->nb > 1) {
        set_ns(rs, r, D_BMED, x->before.median);
        set_ns(rs, r, D_BMIN, x->before.min);
        set_ns(rs, r, D_BMAX, x->before.max);
        set_ns(rs, r, D_AMED, x->after.median);
        set_ns(rs, r, D_AMIN, x->after.min);
        set_ns(rs, r, D_AMAX, x->after.max);
    }
}

static DcuStatus table(const Diff* d, const DiffRow* rows, int n, int is_cat, const char* filter,
                       ResultSet** out, DcuError* err) {
    *out = NULL;
    Filter* f = NULL;
    if (filter && *filter && Filter_new(filter, &f, err) != DCU_OK) {
        return err->code;
    }
    int ncols = d->na > 1 || d->nb > 1 ? D_NCOLS : D_BMED;
    ResultSet* rs = ResultSet_new(is_cat ? "diff_categories" : "diff",
                                  is_cat ? cat_cols : kernel_cols, ncols);
    for (int i = 0; i < n; i++) {
        if (!f || Filter_matches(f, rows[i].name, strlen(rows[i].name))) {
            put_row(rs, d, &rows[i], is_cat);
        }
    }
    Filter_delete(f);
    *out = rs;
    return DCU_OK;
}

DcuStatus Diff_kernelTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err) {
    return table(d, d->rows, d->nrows, 0, filter, out, err);
}

DcuStatus Diff_categoryTable(const Diff* d, const char* filter, ResultSet** out, DcuError* err) {
    return table(d, d->cats, d->ncats, 1, filter, out, err);
}

enum { S_METRIC, S_UNIT, S_BEFORE, S_AFTER, S_DELTA, S_RATIO, S_NOISE, S_NCOLS };
static const RsColumn summary_cols[S_NCOLS] = {
    {"metric", "Metric", CT_TEXT}, {"unit", "Unit", CT_TEXT},   {"before", "Before", CT_REAL},
    {"after", "After", CT_REAL},   {"delta", "Delta", CT_REAL}, {"speedup", "Speedup", CT_RATIO},
    {"noise", "Noise", CT_TEXT},
};

static void summary_row(ResultSet* rs, const char* metric, const char* unit, double b, double a,
                        const char* noise) {
    int r = ResultSet_addRow(rs);
    ResultSet_setText(rs, r, S_METRIC, metric);
    ResultSet_setText(rs, r, S_UNIT, unit);
    set_real(rs, r, S_BEFORE, b);
    set_real(rs, r, S_AFTER, a);
    set_real(rs, r, S_DELTA, a - b);
    if (b > 0 && !isnan(a)) {
        ResultSet_setReal(rs, r, S_RATIO, b / a); /* speedup: > 1 means the candidate is faster */
    }
    if (noise) {
        ResultSet_setText(rs, r, S_NOISE, noise);
    }
}

ResultSet* Diff_summaryTable(const Diff* d) {
    ResultSet* rs = ResultSet_new("diff_summary", summary_cols, S_NCOLS);
    summary_row(rs, "device kernel time", "ns", d->total.before.mean, d->total.after.mean,
                Diff_noiseName(d->total.noise));
    summary_row(rs, "dispatches", "calls", d->total.calls_before, d->total.calls_after, NULL);
    if (d->wall_before.n && d->wall_after.n) {
        summary_row(rs, "wall span", "ns", d->wall_before.mean, d->wall_after.mean, NULL);
    }
    if (d->steps_before.n && d->steps_after.n) {
        summary_row(rs, "step time (median)", "ms", d->steps_before.mean, d->steps_after.mean,
                    Diff_noiseName(d->steps_noise));
    }
    summary_row(rs, "GEMM share", "%", d->gemm_share_before, d->gemm_share_after, NULL);
    summary_row(rs, "GEMM ceiling", "x", d->gemm_ceil_before, d->gemm_ceil_after, NULL);
    summary_row(rs, "non-GEMM ceiling", "x", d->other_ceil_before, d->other_ceil_after, NULL);
    char m[200];
    snprintf(m, sizeof(m), "largest category share (%s -> %s)",
             d->top_before[0] ? d->top_before : "-", d->top_after[0] ? d->top_after : "-");
    summary_row(rs, m, "%", d->top_share_before, d->top_share_after, NULL);
    return rs;
}
