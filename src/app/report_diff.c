/* report_diff.c - --report --diff and --abba: a summary, the notes on what cannot be compared,
 * the per-kernel and per-category tables and the unmatched kernels; A-B-B-A as one table. */
#include "dcutop/report_diff.h"

#include "dcutop/abba_evidence.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/export.h"
#include "dcutop/filter.h"
#include "dcutop/format.h"
#include "dcutop/query.h"
#include "dcutop/xalloc.h"
#include "dcutop/report_table.h"

static const char* const kernel_keys[] = {"name", "status", "category", "before", "after",
                                          "delta", "delta_pct", "ratio", "calls_before",
                                          "calls_after", "share_pct", "noise", NULL};
static const char* const kernel_keys_fuzzy[] = {"name", "status", "match", "before", "after",
                                                "delta", "delta_pct", "ratio", "calls_before",
                                                "calls_after", "share_pct", "noise", NULL};
static const char* const kernel_keys_rep[] = {"name", "status", "before", "after", "delta",
                                              "delta_pct", "before_min", "before_max",
                                              "after_min", "after_max", "noise", NULL};
static const char* const cat_keys[] = {"category", "group", "before", "after", "delta",
                                       "delta_pct", "ratio", "calls_before", "calls_after",
                                       "share_pct", "noise", NULL};
static const char* const op_keys[] = {"pass", "module", "op", "occurrence", "before", "after",
                                      "delta", "ratio", "share_pct", "noise", NULL};
static const char* const mod_keys[] = {"module", "status", "before", "after", "delta",
                                       "delta_pct", "ratio", "share_pct", "noise", NULL};
static const char* const name_keys[] = {"op", "status", "before", "after", "delta",
                                        "delta_pct", "ratio", "calls_before", "calls_after",
                                        "share_pct", "noise", NULL};
static const char* const abba_keys[] = {"name", "layer", "a1", "b1", "b2", "a2", "effect",
                                        "effect_pct", "drift", "drift_pct", "repeats",
                                        "verdict", NULL};

static const RsColumn note_cols[] = {{"note", "Note", CT_TEXT}};

static ResultSet* notes_table(const char* notes) {
    ResultSet* rs = ResultSet_new("notes", note_cols, 1);
    const char* p = notes;
    while (*p) {
        const char* nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char buf[512];
        snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
        ResultSet_setText(rs, ResultSet_addRow(rs), 0, buf);
        p += n + (nl ? 1 : 0);
    }
    return rs;
}

/* Notes one a line, indented, in full (never cut like a table cell). */
static void text_notes(const char* notes, FILE* out) {
    for (const char* p = notes; *p;) {
        const char* nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(out, "  %.*s\n", n, p);
        p += n + (nl ? 1 : 0);
    }
}

/* One table as a CSV block, a JSON member or a titled text table. */
static DcuStatus block(const ResultSet* rs, const char* key, const char* title,
                       const char* const* keys, const char* flex, int max_rows,
                       const DiffReportOpts* o, FILE* out, int* first, DcuError* err) {
    if (o->format == FMT_CSV) {
        fprintf(out, "# %s\r\n", key);
        DcuStatus s = Export_csv(rs, out, err);
        fputs("\r\n", out);
        return s;
    }
    if (o->format == FMT_JSON) {
        fprintf(out, "%s\n\"%s\": ", *first ? "" : ",", key);
        *first = 0;
        return Export_json(rs, out, err);
    }
    fprintf(out, "\n%s\n", title);
    if (rs->nrows == 0) {
        fputs("  (none)\n", out);
    } else {
        Report_table(out, rs, keys, flex, o->width, max_rows);
    }
    return DCU_OK;
}

static void dur(char* buf, size_t cap, double ns) {
    if (isnan(ns)) {
        snprintf(buf, cap, "-");
    } else {
        Format_durationAuto(buf, cap, (int64_t)llround(ns));
    }
}

/* The summary in words: the numbers of Diff_summaryTable, with units. */
static void text_summary(const Diff* d, FILE* out) {
    char a[64], b[64], c[64], e[64], f[64];
    const DiffRow* t = &d->total;
    fputs("\nSummary (A = baseline, B = candidate)\n", out);
    dur(a, sizeof(a), t->before.mean);
    dur(b, sizeof(b), t->after.mean);
    dur(c, sizeof(c), t->delta);
    char pct[32] = "no baseline time";
    if (!isnan(t->delta_pct)) {
        snprintf(pct, sizeof(pct), "%+.2f%%", t->delta_pct);
    }
    if (t->before.mean > 0 && t->after.mean > 0) {
        Format_ratio(e, sizeof(e), t->before.mean / t->after.mean);
    } else {
        snprintf(e, sizeof(e), "-");
    }
    fprintf(out, "  Device kernel time  %s -> %s, delta %s (%s), speedup %s, %s noise", a, b, c,
            pct, e, Diff_noiseName(t->noise));
    if (t->has_ci) {
        dur(a, sizeof(a), t->ci_lo);
        dur(b, sizeof(b), t->ci_hi);
        fprintf(out, " (95%% CI of delta %s .. %s)", a, b);
    }
    fputc('\n', out);
    if (d->na > 1 || d->nb > 1) {
        dur(a, sizeof(a), t->before.median);
        dur(b, sizeof(b), t->before.min);
        dur(c, sizeof(c), t->before.max);
        fprintf(out, "  Repeats             A: %d runs, median %s, min %s, max %s\n", d->na, a,
                b, c);
        dur(a, sizeof(a), t->after.median);
        dur(b, sizeof(b), t->after.min);
        dur(c, sizeof(c), t->after.max);
        fprintf(out, "                      B: %d runs, median %s, min %s, max %s\n", d->nb, a,
                b, c);
    }
    fprintf(out, "  Dispatches          %.0f -> %.0f; kernels gone %d, new %d%s\n",
            t->calls_before, t->calls_after, d->unmatched_a, d->unmatched_b,
            d->match == DIFF_MATCH_SHORT ? " (matched by short name)" : "");
    if (d->wall_before.n && d->wall_after.n) {
        dur(a, sizeof(a), d->wall_before.mean);
        dur(b, sizeof(b), d->wall_after.mean);
        fprintf(out, "  Wall span           %s -> %s\n", a, b);
    } else {
        fputs("  Wall span           not comparable (no per-dispatch timestamps on a side)\n", out);
    }
    if (d->steps_before.n && d->steps_after.n) {
        Format_ratio(e, sizeof(e), d->steps_before.mean / d->steps_after.mean);
        char ci[96] = "";
        if (d->steps_has_ci) {
            snprintf(ci, sizeof(ci), " (95%% CI of delta %.4g .. %.4g ms)", d->steps_ci_lo,
                     d->steps_ci_hi);
        }
        fprintf(out, "  Step time (median)  %.4g ms -> %.4g ms, speedup %s, %s noise%s (plain "
                     "timing, no profiler)\n",
                d->steps_before.mean, d->steps_after.mean, e, Diff_noiseName(d->steps_noise),
                ci);
    }
    fprintf(out, "  GEMM share          %.2f%% -> %.2f%%\n", d->gemm_share_before,
            d->gemm_share_after);
    Format_ratio(a, sizeof(a), d->gemm_ceil_before);
    Format_ratio(b, sizeof(b), d->gemm_ceil_after);
    Format_ratio(c, sizeof(c), d->other_ceil_before);
    Format_ratio(e, sizeof(e), d->other_ceil_after);
    fprintf(out, "  Amdahl ceilings     GEMM %s -> %s, non-GEMM %s -> %s\n", a, b, c, e);
    Format_ratio(e, sizeof(e), Amdahl_ceiling(d->top_share_before / 100));
    Format_ratio(f, sizeof(f), Amdahl_ceiling(d->top_share_after / 100));
    fprintf(out, "  Bounded by          A: %s %.2f%% (ceiling %s); B: %s %.2f%% (ceiling %s)\n",
            d->top_before[0] ? d->top_before : "-",
            isnan(d->top_share_before) ? 0.0 : d->top_share_before, e,
            d->top_after[0] ? d->top_after : "-",
            isnan(d->top_share_after) ? 0.0 : d->top_share_after, f);
}

/* "name xN; name xN; ..." as the report shows it: the first three kernels, each name cut to
 * 48 cells (the export has them in full), then how many more. */
static void short_kernels(const char* list, char* out, size_t cap) {
    size_t l = 0;
    int n = 0, more = 0;
    out[0] = '\0';
    for (const char* p = list; p && *p;) {
        const char* end = strstr(p, "; ");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (n < 3) {
            char item[1024], name[1024], cut[256];
            snprintf(item, sizeof(item), "%.*s", (int)len, p);
            char* x = strrchr(item, ' ');
            snprintf(name, sizeof(name), "%.*s", x ? (int)(x - item) : (int)strlen(item), item);
            Format_cutName(name, 48, cut, sizeof(cut));
            l += (size_t)snprintf(out + l, l < cap ? cap - l : 0, "%s%s%s", n ? "; " : "", cut,
                                  x ? x : "");
            n++;
        } else {
            more++;
        }
        p = end ? end + 2 : NULL;
    }
    if (more && l < cap) {
        snprintf(out + l, cap - l, "; +%d more", more);
    }
    if (!list || !*list) {
        snprintf(out, cap, "(none)");
    }
}

/* The kernels each side ran for the first ops shown, under the op table. */
static void text_op_kernels(const Diff* d, int top, const DiffReportOpts* o, FILE* out) {
    int n = top > 0 && top < d->nops ? top : d->nops;
    n = n > 10 ? 10 : n;
    if (n == 0) {
        return;
    }
    fprintf(out, "\nKernels of the first %d ops (A | B)\n", n);
    char line[4096], ka[1024], kb[1024];
    for (int i = 0; i < n; i++) {
        const DiffRow* r = &d->ops[i];
        short_kernels(r->op ? r->op->kernels : NULL, ka, sizeof(ka));
        short_kernels(r->b_kernels, kb, sizeof(kb));
        snprintf(line, sizeof(line), "%2d. %s %s%s #%d (%s): A %s | B %s", i + 1,
                 r->op && *r->op->module ? r->op->module : "-", r->op ? r->op->op : "",
                 r->op ? r->op->shapes : "", r->op ? r->op->occurrence : 0,
                 r->op ? r->op->pass : "", ka, kb);
        Report_wrap(out, line, o->width, 6);
    }
}

/* One line of the unmatched ops: the ops of one side with one module, op, shapes and pass. */
typedef struct {
    const DiffRow* first;
    int n;
    double t;
} OpGroup;

static int cmp_group(const void* x, const void* y) {
    const OpGroup* a = x;
    const OpGroup* b = y;
    return a->t != b->t ? (a->t < b->t ? 1 : -1) : strcmp(a->first->name, b->first->name);
}

/* Unmatched ops, those of one side with the same module, op, shapes and pass on one line
 * (occurrences counted), largest time first. */
static void text_unmatched_ops(const Diff* d, FILE* out) {
    fprintf(out, "\nUnmatched ops: %d only in A, %d only in B (occurrences of one op together)\n",
            d->ops_gone, d->ops_new);
    unsigned char* done = xcalloc((size_t)d->nops + 1, 1);
    OpGroup* g = xcalloc((size_t)d->nops + 1, sizeof(OpGroup));
    int ng = 0;
    for (int i = 0; i < d->nops; i++) {
        const DiffRow* r = &d->ops[i];
        if (r->presence == DIFF_BOTH || done[i] || !r->op) {
            continue;
        }
        OpGroup* x = &g[ng++];
        x->first = r;
        for (int j = i; j < d->nops; j++) {
            const DiffRow* o = &d->ops[j];
            if (!done[j] && o->op && o->presence == r->presence &&
                strcmp(o->op->module, r->op->module) == 0 && strcmp(o->op->op, r->op->op) == 0 &&
                strcmp(o->op->shapes, r->op->shapes) == 0 &&
                strcmp(o->op->pass, r->op->pass) == 0) {
                done[j] = 1;
                x->n++;
                x->t += r->presence == DIFF_GONE ? o->before.mean : o->after.mean;
            }
        }
    }
    if (ng > 1) {
        qsort(g, (size_t)ng, sizeof(OpGroup), cmp_group);
    }
    char a[64];
    for (int i = 0; i < ng; i++) {
        const DiffRow* r = g[i].first;
        dur(a, sizeof(a), g[i].t);
        fprintf(out, "  %-4s  %10s  %4d x  %s %s %s%s\n", Diff_presenceName(r->presence), a,
                g[i].n, r->op->pass, *r->op->module ? r->op->module : "-",
                *r->op->op ? r->op->op : r->name, r->op->shapes);
    }
    free(g);
    free(done);
}

static void text_unmatched(const Diff* d, FILE* out) {
    fprintf(out, "\nUnmatched kernels: %d gone (only in A), %d new (only in B)\n",
            d->unmatched_a, d->unmatched_b);
    for (int i = 0; i < d->nrows; i++) {
        if (d->rows[i].presence != DIFF_BOTH) {
            fprintf(out, "  %-4s  %s\n", Diff_presenceName(d->rows[i].presence), d->rows[i].name);
        }
    }
}

static const RsColumn verdict_cols[] = {{"result", "Result", CT_TEXT},
                                        {"verdict", "Verdict", CT_TEXT},
                                        {"advice", "Advice", CT_TEXT}};

/* The overall verdict as a CSV block or JSON member, with or without a gate. */
static DcuStatus verdict_block(const char* result, const char* verdict, const char* advice,
                               const DiffReportOpts* o, FILE* out, int* first, DcuError* err) {
    ResultSet* rs = ResultSet_new("verdict", verdict_cols, 3);
    int r = ResultSet_addRow(rs);
    ResultSet_setText(rs, r, 0, result);
    ResultSet_setText(rs, r, 1, verdict);
    ResultSet_setText(rs, r, 2, advice);
    DcuStatus s = block(rs, "verdict", "", NULL, NULL, 0, o, out, first, err);
    ResultSet_delete(rs);
    return s;
}

/* "Verdict: INCONCLUSIVE: ..." wrapped at the report's width. */
static void text_verdict(const char* result, const char* verdict, const char* advice,
                         const DiffReportOpts* o, FILE* out) {
    char line[2048], up[32];
    size_t i = 0;
    for (; result[i] && i < sizeof(up) - 1; i++) {
        up[i] = (char)(result[i] >= 'a' && result[i] <= 'z' ? result[i] - 32 : result[i]);
    }
    up[i] = '\0';
    snprintf(line, sizeof(line), "Verdict: %s: %s", up, verdict);
    Report_wrap(out, line, o->width, 2);
    if (advice && *advice) {
        snprintf(line, sizeof(line), "  %s", advice);
        Report_wrap(out, line, o->width, 2);
    }
}

static const RsColumn gate_cols[] = {{"result", "Result", CT_TEXT}, {"reason", "Reason", CT_TEXT}};

/* The gate's verdict: the last line of a text report, a block in CSV and JSON. */
static DcuStatus gate_block(const char* gate, int failed, const DiffReportOpts* o, FILE* out,
                            int* first, DcuError* err) {
    if (o->format == FMT_TEXT) {
        fprintf(out, "\n%s\n", gate);
        return DCU_OK;
    }
    ResultSet* rs = ResultSet_new("gate", gate_cols, 2);
    int r = ResultSet_addRow(rs);
    ResultSet_setText(rs, r, 0, Gate_resultName(failed));
    ResultSet_setText(rs, r, 1, gate);
    DcuStatus s = block(rs, "gate", "", NULL, NULL, 0, o, out, first, err);
    ResultSet_delete(rs);
    return s;
}

/* Per op and per module, when matched by op: where the time difference comes from. */
static DcuStatus op_blocks(const Diff* d, const DiffReportOpts* o, FILE* out, int* first,
                           DcuError* err) {
    ResultSet* ops = NULL;
    ResultSet* mods = NULL;
    ResultSet* names = NULL;
    DcuStatus s = Diff_opTable(d, o->filter, &ops, err);
    if (s == DCU_OK) {
        s = Diff_moduleTable(d, o->filter, &mods, err);
    }
    if (s == DCU_OK) {
        s = Diff_opNameTable(d, o->filter, &names, err);
    }
    if (s == DCU_OK && o->sort) {
        s = Query_sort(ops, o->sort, err);
    }
    if (s == DCU_OK) {
        s = block(ops, "ops", "Ops: where the time difference comes from, largest |delta| first",
                  op_keys, "module", o->top, o, out, first, err);
    }
    if (s == DCU_OK && o->format == FMT_TEXT && !o->sort && !o->filter) {
        text_op_kernels(d, o->top, o, out);
    }
    if (s == DCU_OK) {
        s = block(names, "op_names", "Ops by name (all modules and occurrences together)",
                  name_keys, "op", o->top, o, out, first, err);
    }
    if (s == DCU_OK) {
        s = block(mods, "modules", "Modules (each op counted in its own module)", mod_keys,
                  "module", o->top, o, out, first, err);
    }
    if (s == DCU_OK && o->format == FMT_TEXT) {
        text_unmatched_ops(d, out);
    }
    ResultSet_delete(ops);
    ResultSet_delete(mods);
    ResultSet_delete(names);
    return s;
}

DcuStatus ReportDiff_write(const Diff* d, const DiffReportOpts* o, const char* gate,
                           int gate_failed, FILE* out, DcuError* err) {
    ResultSet* k = NULL;
    ResultSet* c = NULL;
    DcuStatus s = Diff_kernelTable(d, o->filter, &k, err);
    if (s == DCU_OK) {
        s = Diff_categoryTable(d, o->filter, &c, err);
    }
    if (s == DCU_OK && o->sort) {
        s = Query_sort(k, o->sort, err);
    }
    ResultSet* sum = Diff_summaryTable(d);
    ResultSet* notes = notes_table(d->notes);
    int first = 1;
    if (s == DCU_OK) {
        if (o->format == FMT_TEXT) {
            fprintf(out, "dcutop %s diff: A = %s, B = %s\n", DCUTOP_VERSION, o->a_title,
                    o->b_title);
            text_summary(d, out);
        } else {
            fputs(o->format == FMT_JSON ? "{" : "", out);
            s = block(sum, "summary", "", NULL, NULL, 0, o, out, &first, err);
        }
    }
    char verdict[2048];
    const char* result = "none";
    Diff_verdict(d, verdict, sizeof(verdict), &result);
    if (s == DCU_OK && o->format == FMT_TEXT) {
        fputc('\n', out);
        text_verdict(result, verdict, NULL, o, out);
    } else if (s == DCU_OK) {
        s = verdict_block(result, verdict, "", o, out, &first, err);
    }
    ResultSet* match = notes_table(d->matching);
    if (s == DCU_OK && o->format == FMT_TEXT) {
        fputc('\n', out);
        char line[640];
        snprintf(line, sizeof(line), "Matching: %s", d->matching);
        Report_wrap(out, line, o->width, 2);
    } else if (s == DCU_OK) {
        s = block(match, "matching", "", NULL, NULL, 0, o, out, &first, err);
    }
    ResultSet_delete(match);
    if (s == DCU_OK && d->by_op) {
        s = op_blocks(d, o, out, &first, err);
    }
    if (s == DCU_OK && o->format == FMT_TEXT && d->notes[0]) {
        fprintf(out, "\nNotes: what cannot be compared\n");
        text_notes(d->notes, out);
    } else if (s == DCU_OK && o->format != FMT_TEXT) {
        s = block(notes, "notes", "", NULL, NULL, 0, o, out, &first, err);
    }
    const char* const* kk = d->na > 1 || d->nb > 1 ? kernel_keys_rep
                            : d->match == DIFF_MATCH_SHORT ? kernel_keys_fuzzy
                                                           : kernel_keys;
    if (s == DCU_OK) {
        s = block(k, "kernels", "Kernels: largest |delta| first (times are means over repeats)",
                  kk, "name", o->top, o, out, &first, err);
    }
    if (s == DCU_OK) {
        s = block(c, "categories", "Categories", cat_keys, NULL, 0, o, out, &first, err);
    }
    if (s == DCU_OK && o->format == FMT_TEXT) {
        text_unmatched(d, out);
    }
    if (s == DCU_OK && gate) {
        s = gate_block(gate, gate_failed, o, out, &first, err);
    }
    if (o->format == FMT_JSON) {
        fputs("\n}\n", out);
    }
    ResultSet_delete(k);
    ResultSet_delete(c);
    ResultSet_delete(sum);
    ResultSet_delete(notes);
    return s;
}

DcuStatus ReportAbba_table(const Abba* a, const char* filter, const char* sort, int ns,
                           ResultSet** out, DcuError* err) {
    *out = NULL;
    ResultSet* rs = ns ? Abba_tableNs(a) : Abba_table(a);
    if (filter && *filter) {
        Filter* f = NULL;
        if (Filter_new(filter, &f, err) != DCU_OK) {
            ResultSet_delete(rs);
            return err->code;
        }
        ResultSet* kept = ResultSet_new(rs->name, rs->cols, rs->ncols);
        for (int r = 0; r < rs->nrows; r++) {
            const char* n = ResultSet_cellc(rs, r, 0)->s;
            if (r < rs->pinned || Filter_matches(f, n, strlen(n))) {
                int k = ResultSet_addRow(kept);
                for (int c = 0; c < rs->ncols; c++) {
                    RsCell* dst = ResultSet_cell(kept, k, c);
                    *dst = *ResultSet_cellc(rs, r, c);
                    dst->s = dst->s ? xstrdup(dst->s) : NULL;
                }
            }
        }
        kept->pinned = rs->pinned;
        Filter_delete(f);
        ResultSet_delete(rs);
        rs = kept;
    }
    if (sort && Query_sort(rs, sort, err) != DCU_OK) {
        ResultSet_delete(rs);
        return err->code;
    }
    *out = rs;
    return DCU_OK;
}

/* Memory, numerics and environment, each run's figures and what they say, before the verdict;
 * each line wrapped at the report's width. */
static void text_evidence(const AbbaEvidence* e, int width, FILE* out) {
    char says[600], line[1400];
    if (e->nmem > 0) {
        fprintf(out, "Memory (peak device bytes of each run, from %s; the same noise rule)\n",
                e->mem_source ? e->mem_source : "?");
        for (int i = 0; i < e->nmem; i++) {
            const AbbaRow* r = &e->mem[i];
            snprintf(line, sizeof(line), "  %-22s A1 %.0f, B1 %.0f, B2 %.0f, A2 %.0f bytes: %s",
                     r->name, r->v[0], r->v[1], r->v[2], r->v[3],
                     AbbaMemory_says(r, says, sizeof(says)));
            Report_wrap(out, line, width, 4);
        }
    }
    if (e->nmetrics > 0) {
        fprintf(out, "Numerics (metrics.csv / metrics.json of each run; a change beyond a "
                     "metric's tolerance rejects B)\n");
        for (int i = 0; i < e->nmetrics; i++) {
            const AbbaMetric* m = &e->metrics[i];
            snprintf(line, sizeof(line), "  %-22s A1 %.9g, B1 %.9g, B2 %.9g, A2 %.9g: %s",
                     m->name, m->v[0], m->v[1], m->v[2], m->v[3],
                     AbbaMetric_says(m, says, sizeof(says)));
            Report_wrap(out, line, width, 4);
        }
    }
    static const char* const run[4] = {"A1", "B1", "B2", "A2"};
    fprintf(out, "Environment (device, software and clocks of each run)\n");
    for (int i = 0; i < 4; i++) {
        snprintf(line, sizeof(line), "  %s: %s", run[i], e->facts[i]);
        Report_wrap(out, line, width, 6);
    }
    if (e->env_differs) {
        snprintf(line, sizeof(line), "  UNTRUSTED: %s", e->env);
        Report_wrap(out, line, width, 4);
    } else {
        fprintf(out, "  the same in all four runs, as far as they say\n");
    }
}

/* The evidence's tables as CSV blocks or JSON members. */
static DcuStatus evidence_blocks(const AbbaEvidence* e, const DiffReportOpts* o, FILE* out,
                                 int* first, DcuError* err) {
    ResultSet* t[3] = {AbbaEvidence_memoryTable(e), AbbaEvidence_metricTable(e),
                       AbbaEvidence_envTable(e)};
    static const char* const keys[3] = {"memory", "metrics", "environment"};
    DcuStatus s = DCU_OK;
    for (int i = 0; i < 3 && s == DCU_OK; i++) {
        s = block(t[i], keys[i], "", NULL, NULL, 0, o, out, first, err);
    }
    for (int i = 0; i < 3; i++) {
        ResultSet_delete(t[i]);
    }
    return s;
}

DcuStatus ReportAbba_write(const Abba* a, const char* const titles[4], const DiffReportOpts* o,
                           const char* gate, int gate_result, FILE* out, DcuError* err) {
    ResultSet* rs = NULL;
    DcuStatus s = ReportAbba_table(a, o->filter, o->sort, 0, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    char all_notes[1100];
    snprintf(all_notes, sizeof(all_notes), "%s%s", a->notes, a->ev ? a->ev->notes : "");
    ResultSet* notes = notes_table(all_notes);
    int first = 1;
    char verdict[4096], advice[1024];
    Abba_verdict(a, verdict, sizeof(verdict));
    Abba_disagreement(a, advice, sizeof(advice));
    if (o->format == FMT_TEXT) {
        fprintf(out, "dcutop %s A-B-B-A: A1 = %s, B1 = %s, B2 = %s, A2 = %s\n", DCUTOP_VERSION,
                titles[0], titles[1], titles[2], titles[3]);
        fputs("effect = mean(B1, B2) - mean(A1, A2); drift = A2 - A1; repeats = B2 - B1; noise = "
              "the larger of |drift| and |repeats|; a verdict is trusted only when |effect| > "
              "noise\n",
              out);
        char why[256];
        for (int i = 0; i < a->nhead; i++) {
            const AbbaRow* r = &a->rows[i];
            fprintf(out, "  %-20s effect %+.4g ms (%+.2f%%), drift %+.4g ms (%+.2f%%), repeats "
                         "%+.4g ms (%+.2f%%): %s\n",
                    r->name, r->effect, r->effect_pct, r->drift, r->drift_pct, r->repeats,
                    r->repeats_pct, Abba_rowWhy(r, why, sizeof(why)));
        }
        if (a->ev) {
            text_evidence(a->ev, o->width, out);
        }
        text_verdict(Abba_resultName(Abba_result(a)), verdict, advice, o, out);
        if (a->matching[0]) {
            char line[640];
            snprintf(line, sizeof(line), "Matching: %s", a->matching);
            Report_wrap(out, line, o->width, 2);
        }
    } else if (o->format == FMT_JSON) {
        fputs("{", out);
    }
    if (o->format == FMT_TEXT && all_notes[0]) {
        fprintf(out, "\nNotes\n");
        text_notes(all_notes, out);
    } else if (o->format != FMT_TEXT) {
        s = verdict_block(Abba_resultName(Abba_result(a)), verdict, advice, o, out, &first, err);
        if (s == DCU_OK) {
            s = block(notes, "notes", "", NULL, NULL, 0, o, out, &first, err);
        }
        ResultSet* match = notes_table(a->matching);
        if (s == DCU_OK) {
            s = block(match, "matching", "", NULL, NULL, 0, o, out, &first, err);
        }
        ResultSet_delete(match);
        if (s == DCU_OK && a->ev) {
            s = evidence_blocks(a->ev, o, out, &first, err);
        }
    }
    if (s == DCU_OK) {
        s = block(rs, "abba",
                  a->by_op ? "A-B-B-A per layer and per op (ms), largest |effect| first"
                           : "A-B-B-A per layer and per kernel (ms), largest |effect| first",
                  abba_keys, "name", o->top ? o->top + rs->pinned : 0, o, out, &first, err);
    }
    if (s == DCU_OK && gate) {
        s = gate_block(gate, gate_result, o, out, &first, err);
    }
    if (o->format == FMT_JSON) {
        fputs("\n}\n", out);
    }
    ResultSet_delete(rs);
    ResultSet_delete(notes);
    return s;
}
