/* kernel_view.c - the Kernel detail screen as a Doc. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/advice.h"
#include "dcutop/timeline.h"
#include "dcutop/doc_view.h"
#include "dcutop/format.h"

/* A name longer than this many lines is cut, so the statistics under it stay on screen (a
 * 100 KB template name would fill a thousand lines). */
#define NAME_LINES 12

/* Splits a long name over at most NAME_LINES lines of width cells; the last line of a cut
 * name ends with "..." and says how many bytes were left out. */
static void wrapped(Doc* d, const char* s, int width, int indent) {
    int room = width - indent;
    if (room < 10) {
        room = 10;
    }
    const char* p = s;
    int lines = 0;
    while (*p) {
        /* take as many bytes as fit in room cells */
        int w = 0;
        const char* q = p;
        while (*q) {
            int len = 1;
            unsigned char ch = (unsigned char)*q;
            if (ch >= 0xF0) {
                len = 4;
            } else if (ch >= 0xE0) {
                len = 3;
            } else if (ch >= 0xC0) {
                len = 2;
            }
            char one[5] = {0};
            memcpy(one, q, (size_t)len);
            int cw = Format_width(one);
            if (w + cw > room) {
                break;
            }
            w += cw;
            q += len;
        }
        if (q == p) {
            break;
        }
        Doc_line(d);
        Doc_add(d, STYLE_NAME, "%*s%.*s", indent, "", (int)(q - p), p);
        p = q;
        if (++lines == NAME_LINES - 1 && *p && Format_width(p) > room) {
            Doc_line(d);
            Doc_add(d, STYLE_DIM, "%*s... %zu more bytes (the whole name: --sql or the ; "
                    "prompt, SELECT name FROM kernels)", indent, "", strlen(p));
            return;
        }
    }
}

/* The cells the line being built takes so far. */
static int line_width(const Doc* d) {
    int w = 0;
    if (d->n > 0) {
        const DocLine* l = &d->lines[d->n - 1];
        for (int s = 0; s < l->n; s++) {
            w += Format_width(l->seg[s].text);
        }
    }
    return w;
}

/* Text on lines of its own, indented, wrapped between words at width cells. */
static void wrap_words(Doc* d, const char* p, int width, int indent, Style st) {
    int room = width - indent < 20 ? 20 : width - indent;
    while (*p) {
        const char* q = p;
        const char* brk = NULL; /* the end of the last whole word that fits */
        int w = 0;
        while (*q) {
            int len = 1;
            int cw = Format_nextChar(q, &len);
            cw = cw < 0 ? 1 : cw;
            len = len > 0 ? len : 1;
            if (w + cw > room) {
                break;
            }
            w += cw;
            q += len;
            if (*q == ' ' || *q == '\0') {
                brk = q;
            }
        }
        const char* end = *q == '\0' || !brk ? q : brk; /* a word longer than room is cut */
        Doc_line(d);
        Doc_add(d, st, "%*s%.*s", indent, "", (int)(end - p), p);
        for (p = end; *p == ' ';) {
            p++;
        }
    }
}

/* What a figure means, after it on its line when the line has room; else on the lines below,
 * indented by indent and wrapped: a line cut at the screen's edge would lose the figures at
 * its end (an outlier count, a share). */
static void explain(Doc* d, int width, int indent, Style st, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void explain(Doc* d, int width, int indent, Style st, const char* fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (line_width(d) + Format_width(text) <= width) {
        Doc_add(d, st, "%s", text);
        return;
    }
    const char* p = text; /* on a line of its own: no leading ": " or spaces */
    while (*p == ' ' || *p == ':' || *p == ';') {
        p++;
    }
    wrap_words(d, p, width, indent, st);
}

static const RsCell* cell(const ResultSet* rs, int r, const char* key) {
    int c = ResultSet_columnIndex(rs, key);
    return c >= 0 ? ResultSet_cellc(rs, r, c) : NULL;
}

/* "Top call paths" / "Ranges": one line per path, the innermost frames kept. */

/* FLOPs and bytes of the ops its dispatches came from (recorded shapes), the rates they
 * achieved and how far from the device's peak (efficiency.h). */
static void efficiency_fields(Doc* d, const KernelDetail* k, int lw, int width) {
    char a[64];
    double ns = (double)k->eff_ns;
    Format_durationAuto(a, sizeof(a), k->eff_ns);
    Doc_field(d, lw, "Work", STYLE_NUMBER, "%.4g GFLOP, %.4g MB in %s", k->eff_flops / 1e9,
              k->eff_bytes / 1e6, a);
    explain(d, width, lw + 3, STYLE_DIM, "  (%" PRId64 " dispatch%s with recorded shapes)",
            k->eff_dispatches, k->eff_dispatches == 1 ? "" : "es");
    Doc_field(d, lw, "Achieved", STYLE_NUMBER, "%.4g TFLOP/s, %.4g GB/s, %.3g FLOP/byte",
              ns > 0 ? k->eff_flops / ns / 1e3 : 0.0, ns > 0 ? k->eff_bytes / ns : 0.0,
              k->eff_bytes > 0 ? k->eff_flops / k->eff_bytes : 0.0);
    if (k->eff_known && ns > 0) {
        Format_durationAuto(a, sizeof(a), (int64_t)llround(k->eff_peak_ns));
        Doc_field(d, lw, "Of peak", STYLE_NUMBER, "%.2f%%, %s-bound; %s at peak",
                  100.0 * k->eff_peak_ns / ns, k->eff_compute_bound ? "compute" : "memory", a);
    } else {
        Doc_field(d, lw, "Of peak", STYLE_DIM, "n/a: no peak figures for this device"
                  " (--peak TFLOPS,GBps)");
    }
    const char* p = k->eff_ops;
    for (int first = 1; p && *p; first = 0) {
        const char* nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        Doc_field(d, lw, first ? "Ops" : "", STYLE_DEFAULT, "%.*s", len, p);
        p = nl ? nl + 1 : p + len;
    }
}

static void paths(Doc* d, const char* title, const ResultSet* rs, int width) {
    if (!rs || rs->nrows == 0) {
        return;
    }
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "  %s", title);
    explain(d, width, 4, STYLE_DIM, "  (share of this kernel's time; frames outermost first)");
    for (int r = 0; r < rs->nrows && r < 8; r++) {
        const RsCell* p = cell(rs, r, "path");
        const RsCell* pct = cell(rs, r, "pct");
        const RsCell* calls = cell(rs, r, "calls");
        char cut[4096];
        int room = width - 24;
        /* the end of a path is the code nearest the launch: cut at the front */
        const char* text = p && p->s ? p->s : "";
        int w = Format_width(text);
        const char* shown = text;
        while (w > room && *shown) {
            shown++;
            while (((unsigned char)*shown & 0xC0) == 0x80) {
                shown++;
            }
            w = Format_width(shown);
        }
        snprintf(cut, sizeof(cut), "%s%s", shown == text ? "" : "\xe2\x80\xa6", shown);
        Doc_line(d);
        Doc_add(d, STYLE_NUMBER, "  %6.2f%% %7lld  ", pct && !pct->null ? pct->d : 0.0,
                calls && !calls->null ? (long long)calls->i : 0LL);
        Doc_add(d, STYLE_NAME, "%s", cut);
    }
}

/* The category with the rule that matched (its pattern), then calls, total, average, min,
 * max and the standard deviation. */
static void rule_and_stats(Doc* d, const KernelDetail* k, int lw, int width) {
    char a[64], b[64], c[64];
    Doc_field(d, lw, "Category", STYLE_CATEGORY, "%s", k->category ? k->category : "other");
    if (k->rule_line > 0) {
        /* the pattern that matched, then where it is written (a line number alone means
         * nothing without the file at hand) */
        explain(d, width, lw + 3, STYLE_DIM, "   (%s rules, line %d)",
                k->rule_source ? k->rule_source : "?", k->rule_line);
        Doc_field(d, lw, "Rule", STYLE_DIM, "/%s/", k->rule_pattern ? k->rule_pattern : "?");
    } else {
        explain(d, width, lw + 3, STYLE_DIM, "   no rule matched (add one to your rules file)");
    }
    Doc_field(d, lw, "Calls", STYLE_NUMBER, "%" PRId64, k->calls);
    Format_durationAuto(a, sizeof(a), k->total_ns);
    Doc_field(d, lw, "Total", STYLE_NUMBER, "%s  (%.2f%% of device kernel time)", a, k->pct);
    Format_durationAuto(a, sizeof(a), (int64_t)llround(k->avg_ns));
    /* aggregated stats have a count and a total only: min, max and the standard deviation
     * are unknown, never 0 ns */
    snprintf(b, sizeof(b), "n/a");
    snprintf(c, sizeof(c), "n/a");
    if (k->has_minmax) {
        Format_durationAuto(b, sizeof(b), k->min_ns);
        Format_durationAuto(c, sizeof(c), k->max_ns);
    }
    Doc_field(d, lw, "Average", STYLE_NUMBER, "%s   min %s   max %s", a, b, c);
    if (k->stddev_ns >= 0) {
        Format_durationAuto(a, sizeof(a), (int64_t)llround(k->stddev_ns));
        Doc_field(d, lw, "Std dev", STYLE_NUMBER, "%s", a);
    } else if (!k->has_minmax) {
        Doc_field(d, lw, "Std dev", STYLE_DIM, "n/a (aggregated stats only: no dispatches)");
    }
}

/* rocprof-compute's view of the kernel (an analysis database): its point on the measured
 * roofline, then its Speed-of-Light metrics by the database's own names, one line per
 * metric with its values ("Avg 12.5, Peak 100, Pct of Peak 12.5 Percent"). */
static void compute_section(Doc* d, const KernelExtras* x, int width) {
    const ComputeRoof* r = x->roof;
    const ResultSet* rs = x->compute;
    if (!r && (!rs || rs->nrows == 0)) {
        return;
    }
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "  rocprof-compute");
    explain(d, width, 4, STYLE_DIM, "  (analysis database; metrics by its own names)");
    if (r) {
        Doc_field(d, 12, "Roofline", STYLE_NUMBER, "%.4g GFLOP/s at %.3g FLOP/byte (HBM);"
                  " L2 %.3g, L1 %.3g", r->gflops, r->ai_hbm, r->ai_l2, r->ai_l1);
        if (r->hbm_gbps > 0 && r->fp32_gflops > 0 && r->ai_hbm > 0) {
            double roof = r->ai_hbm * r->hbm_gbps < r->fp32_gflops ? r->ai_hbm * r->hbm_gbps
                                                                    : r->fp32_gflops;
            Doc_field(d, 12, "", STYLE_NUMBER, "%.2f%% of the measured roof there (%.4g"
                      " GFLOP/s: HBM %.4g GB/s, FP32 %.4g GFLOP/s)", 100.0 * r->gflops / roof,
                      roof, r->hbm_gbps, r->fp32_gflops);
        }
    }
    const char* table = NULL;
    const char* metric = NULL;
    char line[512];
    size_t n = 0;
    for (int i = 0; rs && i <= rs->nrows; i++) {
        const RsCell* mt = i < rs->nrows ? cell(rs, i, "metric") : NULL;
        const RsCell* tb = i < rs->nrows ? cell(rs, i, "table") : NULL;
        int same = mt && metric && tb && table && mt->s && tb->s && strcmp(mt->s, metric) == 0 &&
                   strcmp(tb->s, table) == 0;
        if (!same && metric) { /* the metric before is complete */
            const RsCell* un = cell(rs, i - 1, "unit");
            if (un && un->s && n < sizeof(line)) {
                snprintf(line + n, sizeof(line) - n, "  (%s)", un->s);
            }
            char lab[40];
            Format_fit(metric, 30, 0, lab, sizeof(lab));
            Doc_line(d);
            Doc_add(d, STYLE_LABEL, "    %-30s ", lab);
            Doc_add(d, STYLE_NUMBER, "%.*s", width > 40 ? width - 36 : 8, line);
            metric = NULL;
            n = 0;
        }
        if (!mt) {
            break;
        }
        if (tb && tb->s && (!table || strcmp(tb->s, table) != 0)) {
            table = tb->s;
            Doc_line(d);
            Doc_add(d, STYLE_LABEL, "  %s", table);
        }
        const RsCell* vn = cell(rs, i, "value_name");
        const RsCell* v = cell(rs, i, "value");
        metric = mt->s ? mt->s : "";
        char num[32] = "-";
        if (v && !v->null) {
            snprintf(num, sizeof(num), "%.6g", v->d);
        }
        if (n < sizeof(line)) {
            n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", n ? ", " : "",
                                  vn && vn->s ? vn->s : "", num);
        }
    }
}

/* A kernel that ran at several launch shapes: each has its own golden, and its variability
 * is the sum of theirs (a slow shape is not variability of a fast one). */
static void shape_fields(Doc* d, const KernelDetail* k, int lw, int width) {
    char g[64], v[64], sh[64];
    Doc_field(d, lw, "Shapes", STYLE_NUMBER, "%d launch shapes", k->n_shapes);
    explain(d, width, lw + 3, STYLE_DIM, "  golden and variability per shape (grid x workgroup)");
    int n = k->n_shapes < KQ_SHAPES ? k->n_shapes : KQ_SHAPES;
    for (int i = 0; i < n; i++) {
        const KernelShape* s = &k->shape[i];
        if (s->grid < 0 && s->workgroup < 0) {
            snprintf(sh, sizeof(sh), "not recorded");
        } else {
            snprintf(sh, sizeof(sh), "%" PRId64 " x %" PRId64, s->grid, s->workgroup);
        }
        Format_durationAuto(g, sizeof(g), s->golden_ns);
        Format_durationAuto(v, sizeof(v), s->var_ns);
        Doc_line(d);
        Doc_add(d, STYLE_DEFAULT, "    %-18s %6" PRId64 " dispatches  golden %-9s", sh,
                s->dispatches, g);
        explain(d, width, 6, STYLE_DEFAULT, "  variability %-9s (%.2f%%)", v,
                s->total_ns > 0 ? 100.0 * (double)s->var_ns / (double)s->total_ns : 0.0);
    }
    if (k->n_shapes > n) {
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "    ... and %d more shapes", k->n_shapes - n);
    }
}

static int64_t ns_at(const ResultSet* rs, const char* key) {
    int c = ResultSet_columnIndex(rs, key);
    const RsCell* v = c >= 0 ? ResultSet_cellc(rs, 0, c) : NULL;
    return !v || v->null ? 0 : v->i;
}

/* Launch statistics (idle.h, as HTA's get_cuda_kernel_launch_stats computes them): the CPU
 * launch call, HTA's launch delay, the short launches, the outliers. */
static void launch_stats(Doc* d, const ResultSet* rs, int lw, int width) {
    if (!rs || rs->nrows < 1) {
        return;
    }
    char a[32], b[32], c[32];
    int64_t n = ns_at(rs, "launches"), sh = ns_at(rs, "short");
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "  Launch statistics");
    explain(d, width, 4, STYLE_DIM,
            "  (%" PRId64 " by cudaLaunchKernel/hipLaunchKernel, as HTA computes them, whole us)",
            n);
    Format_durationAuto(a, sizeof(a), ns_at(rs, "call_median_ns"));
    Format_durationAuto(b, sizeof(b), ns_at(rs, "call_p95_ns"));
    Format_durationAuto(c, sizeof(c), ns_at(rs, "call_max_ns"));
    Doc_field(d, lw, "Launch call", STYLE_NUMBER, "median %s, p95 %s, max %s", a, b, c);
    explain(d, width, lw + 3, STYLE_DIM, "  on the CPU; %" PRId64 " over 50 us",
            ns_at(rs, "call_outliers"));
    Format_durationAuto(a, sizeof(a), ns_at(rs, "median_ns"));
    Format_durationAuto(b, sizeof(b), ns_at(rs, "p95_ns"));
    Format_durationAuto(c, sizeof(c), ns_at(rs, "max_ns"));
    Doc_field(d, lw, "Launch delay", ns_at(rs, "delay_outliers") ? STYLE_WARNING : STYLE_NUMBER,
              "median %s, p95 %s, max %s", a, b, c);
    explain(d, width, lw + 3, STYLE_DIM, "  HTA's: start - call start + call; %" PRId64 " over 100 us",
            ns_at(rs, "delay_outliers"));
    Doc_field(d, lw, "Short", 2 * sh > n ? STYLE_WARNING : STYLE_NUMBER,
              "%" PRId64 " of %" PRId64 " shorter on the GPU than a call of at most 50 us", sh, n);
    if (2 * sh > n) {
        explain(d, width, lw + 3, STYLE_DIM,
                ": launching costs more than running (fuse it, or a graph)");
    }
}

/* Dispatch durations in doubling buckets, with the share of short dispatches; aggregated
 * stats have none and say so. */
static void histogram(Doc* d, const KernelDetail* k, int width) {
    char a[64], b[64];
    if (k->per_dispatch && k->dispatches > 0) {
        Doc_line(d);
        Doc_line(d);
        Doc_add(d, STYLE_TITLE, "  Duration histogram");
        explain(d, width, 4, STYLE_DIM, "  (%" PRId64 " dispatches; Enter lists them)",
                k->dispatches);
        double sp = 100.0 * (double)k->short_dispatches / (double)k->dispatches;
        double tp = k->total_ns ? 100.0 * (double)k->short_ns / (double)k->total_ns : 0.0;
        int lb = Timeline_isLaunchBound(sp, tp); /* by the share of time, not of dispatches */
        Doc_line(d);
        Doc_add(d, lb ? STYLE_WARNING : STYLE_DEFAULT,
                "  %" PRId64 " of %" PRId64 " dispatches under 10 us (%.1f%%, %.1f%% of its time)",
                k->short_dispatches, k->dispatches, sp, tp);
        if (lb) {
            explain(d, width, 4, STYLE_WARNING, ": launch overhead dominates");
        }
        int64_t mx = 1;
        for (int i = 0; i < k->n_buckets; i++) {
            if (k->bucket[i] > mx) {
                mx = k->bucket[i];
            }
        }
        int barw = width - 40;
        if (barw < 10) {
            barw = 10;
        }
        int64_t lo = k->bucket_lo_ns;
        for (int i = 0; i < k->n_buckets; i++) {
            Format_durationAuto(a, sizeof(a), lo);
            Format_durationAuto(b, sizeof(b), lo * 2);
            char range[160];
            snprintf(range, sizeof(range), "%s - %s", a, b);
            char fit[64];
            Format_fit(range, 21, 1, fit, sizeof(fit));
            Doc_line(d);
            Doc_add(d, STYLE_LABEL, "  %s ", fit);
            Doc_add(d, STYLE_NUMBER, "%8" PRId64 " ", k->bucket[i]);
            Doc_bar(d, STYLE_BAR, (double)k->bucket[i] / (double)mx, barw);
            lo *= 2;
        }
    } else {
        Doc_line(d);
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "  Aggregated stats only: no dispatch list or histogram for this "
                              "kernel.");
    }
}

Doc* KernelView_build(const KernelDetail* k, const KernelExtras* x, int width) {
    Doc* d = Doc_new();
    char a[64];
    const int lw = 12;
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "  %s", k->short_name ? k->short_name : "");
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_LABEL, "  Full name");
    wrapped(d, k->name ? k->name : "", width, 4);
    if (k->name_capped) {
        wrap_words(d, "Not demangled: its demangled text would pass 64 KiB (each substitution "
                   "in the symbol repeats the text before it)", width, 4, STYLE_DIM);
    }
    if (k->name_raw && k->name && strcmp(k->name_raw, k->name) != 0) {
        Doc_line(d);
        Doc_add(d, STYLE_LABEL, "  Raw name (as the trace gave it; demangled above)");
        wrapped(d, k->name_raw, width, 4);
    }
    Doc_line(d);
    rule_and_stats(d, k, lw, width);
    if (k->has_var) {
        Format_durationAuto(a, sizeof(a), k->golden_ns);
        Doc_field(d, lw, "Golden", STYLE_NUMBER, "%s", a);
        explain(d, width, lw + 3, STYLE_DIM, "  fastest dispatch that is not an outlier (|z| <= 3)%s",
                k->n_shapes > 1 ? ", of its fastest shape" : "");
        Format_durationAuto(a, sizeof(a), k->var_ns);
        Doc_field(d, lw, "Variability", STYLE_NUMBER, "%s  (%.2f%% of its time)", a,
                  k->total_ns > 0 ? 100.0 * (double)k->var_ns / (double)k->total_ns : 0.0);
        explain(d, width, lw + 3, STYLE_DIM, "  above golden%s; %" PRId64 " outlier%s (|z| > 3)",
                k->n_shapes > 1 ? " (each shape's own)" : "", k->outliers,
                k->outliers == 1 ? "" : "s");
        if (k->n_shapes > 1) {
            shape_fields(d, k, lw, width);
        }
    } else if (k->category && strcmp(k->category, "comm") == 0) {
        /* the spread of a collective is waiting for the slowest rank (variab.h) */
        Doc_field(d, lw, "Variability", STYLE_DIM,
                  "n/a (a collective: its time waits for the slowest rank)");
    } else {
        Doc_field(d, lw, "Variability", STYLE_DIM, "n/a (aggregated stats only: no dispatches)");
    }
    Format_ratio(a, sizeof(a), k->ceiling);
    Doc_field(d, lw, "Ceiling", STYLE_NUMBER, "%s", a);
    explain(d, width, lw + 3, STYLE_DIM,
            "  whole-program speedup at most, if this kernel took no time");
    if (k->eff_dispatches > 0) {
        efficiency_fields(d, k, lw, width);
    }
    Doc_field(d, lw, "From", STYLE_DEFAULT, "%s", k->sources ? k->sources : "-");
    histogram(d, k, width);
    if (x) {
        launch_stats(d, x->launch, lw + 1, width);
        paths(d, "Top call paths", x->paths, width);
        paths(d, "Ranges it ran in", x->ranges, width);
        compute_section(d, x, width);
    }
    if (k->n_counters > 0) {
        Doc_line(d);
        Doc_line(d);
        Doc_add(d, STYLE_TITLE, "  PMC counters");
        Doc_add(d, STYLE_DIM, "  (mean per dispatch)");
        Doc_line(d);
        Doc_add(d, STYLE_WARNING, "  ! Collected in a PMC run: its kernel times are not "
                                  "performance.");
        for (int i = 0; i < k->n_counters; i++) {
            Doc_field(d, 24, k->counter_name[i], STYLE_NUMBER, "%.6g", k->counter_mean[i]);
        }
    }
    return d;
}
