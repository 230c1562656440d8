/* report.c - text, CSV and JSON renderings of the views for --report. */
#include "dcutop/advice.h"
#include "dcutop/report.h"
#include "dcutop/report_table.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/export.h"
#include "dcutop/format.h"
#include "dcutop/memory.h"
#include "dcutop/roi.h"
#include "dcutop/runs.h"
#include "dcutop/table_view.h"
#include "dcutop/timeline.h"
#include "dcutop/variab.h"
#include "dcutop/xalloc.h"

/* Columns the text report shows per view (the CSV/JSON forms carry all columns). */
static const char* const hot_keys[] = {"short_name", "category", "calls", "total_ns", "avg_ns",
                                       "min_ns", "max_ns", "pct", "cum_pct", "ceiling",
                                       "var_ns", "pct_peak", "bound", "launched",
                                       "call_p50_ns", "delay_p50_ns", "delay_p95_ns",
                                       "short_launch_pct", NULL};
static const char* const cat_keys[] = {"category", "group", "kernels", "calls", "total_ns",
                                       "pct", "ceiling", "what_if", "speedup", "var_ns", NULL};
static const char* const api_keys[] = {"domain", "name", "calls", "total_ns", "avg_ns",
                                       "min_ns", "max_ns", "pct", "source", NULL};
static const char* const copy_keys[] = {"name", "calls", "bytes", "total_ns", "avg_ns",
                                        "min_ns", "max_ns", "pct", "gbps", NULL};
static const char* const file_keys[] = {"name", "format", "layer", "rows", "rejected", "status",
                                        NULL};

static void rule(FILE* out, const char* title) {
    fprintf(out, "\n%s\n", title);
}

/* The combined what-if projection (the text has it in the Categories footer) as a JSON
 * object "what_if" or a CSV block "# what_if": spec, speedup ("inf" when unbounded), basis. */
static DcuStatus what_if_projection(TraceDb* db, const QueryOpts* q, int format, FILE* out,
                                    DcuError* err) {
    int basis = Query_amdahlBasis(db);
    double sp = 1.0;
    DcuStatus s = Query_projectionBasis(db, q->what_if, q->n_what_if, basis, &sp, err);
    if (s != DCU_OK) {
        return s;
    }
    char spec[512], sps[32];
    Query_whatIfSpec(q->what_if, NULL, q->n_what_if, spec, sizeof(spec));
    if (isinf(sp)) {
        snprintf(sps, sizeof(sps), format == FMT_JSON ? "\"inf\"" : "inf");
    } else {
        snprintf(sps, sizeof(sps), "%.6f", sp);
    }
    const char* b = basis ? "wall" : "kernel";
    if (format == FMT_JSON) {
        fputs(",\n\"what_if\": {\"spec\": ", out);
        Export_jsonString(out, spec);
        fprintf(out, ", \"speedup\": %s, \"basis\": \"%s\"}", sps, b);
    } else {
        fprintf(out, "# what_if\r\nspec,speedup,basis\r\n\"%s\",%s,%s\r\n\r\n", spec, sps, b);
    }
    return DCU_OK;
}

static DcuStatus section(TraceDb* db, ViewId v, const ReportOpts* o, FILE* out,
                         DcuError* err, ResultSet** keep) {
    ResultSet* rs = NULL;
    QueryOpts q = o->query;
    if (v == VIEW_FILES) { /* the file list is never filtered */
        q.filter = NULL;
        q.sort = NULL;
    }
    if (v != VIEW_CATEGORIES) {
        q.what_if = NULL;
        q.n_what_if = 0;
    }
    DcuStatus s = Query_view(db, v, &q, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    if (v != VIEW_FILES) {
        ResultSet_keepTop(rs, o->top_all);
    }
    if (o->format == FMT_CSV) {
        fprintf(out, "# %s\r\n", Query_viewName(v));
        s = Export_csv(rs, out, err);
        fputs("\r\n", out);
    } else if (o->format == FMT_JSON) {
        fprintf(out, ",\n\"%s\": ", Query_viewName(v));
        s = Export_json(rs, out, err);
    } else {
        switch (v) {
        case VIEW_FILES:
            Report_table(out, rs, file_keys, "status", o->width, 0);
            break;
        case VIEW_HOTSPOTS:
            Report_table(out, rs, hot_keys, "short_name", o->width, o->top);
            break;
        case VIEW_CATEGORIES:
            Report_table(out, rs, cat_keys, NULL, o->width, 0);
            break;
        case VIEW_API:
            Report_table(out, rs, api_keys, "name", o->width, 0);
            break;
        case VIEW_COPIES:
            Report_table(out, rs, copy_keys, "name", o->width, 0);
            break;
        default:
            break;
        }
    }
    if (keep) {
        *keep = rs;
    } else {
        ResultSet_delete(rs);
    }
    if (s == DCU_OK && v == VIEW_CATEGORIES && q.n_what_if > 0 && o->format != FMT_TEXT) {
        s = what_if_projection(db, &q, o->format, out, err);
    }
    return s;
}

/* ---- Timeline ------------------------------------------------------------------------ */

static const char* const tl_dev_keys[] = {"file", "gpu", "dispatches", "span_ns", "busy_ns",
                                          "idle_ns", "idle_pct", "kernel_ns", "kernel_pct", NULL};
static const char* const tl_idle_keys[] = {"file", "gpu", "bucket", "gaps", "total_ns",
                                           "pct_idle", "pct_wall", NULL};
static const char* const tl_gap_keys[] = {"gpu", "stream", "gap_ns", "at_ns", "before", "after",
                                          NULL};
static const char* const tl_short_keys[] = {"short_name", "calls", "short_calls", "short_pct",
                                            "avg_ns", "short_ns", "pct_of_short", NULL};
static const char* const tl_iter_keys[] = {"name", "phase", "dispatches", "kernel_ns", "span_ns",
                                           "start_ns", NULL};
static const char* const tl_api_keys[] = {"domain", "name", "calls", "total_ns", "first_calls",
                                          "first_ns", "first_pct", "steady_calls", "steady_ns",
                                          "steady_avg_ns", NULL};
static const char* const tl_copy_keys[] = {"name", "direction", "calls", "bytes", "total_ns",
                                           "steady_calls", "steady_bytes", "steady_ns", "flag",
                                           NULL};
static const char* const tl_pmc_keys[] = {"kernel", "counter", "dispatches", "mean", "min", "max",
                                          NULL};
/* with several runs, the tables that mix runs say which file (and so which run) a row is of */
static const char* const tl_gap_run_keys[] = {"file", "gpu", "stream", "gap_ns", "at_ns", "before",
                                              "after", NULL};
static const char* const tl_iter_run_keys[] = {"file", "name", "phase", "dispatches", "kernel_ns",
                                               "span_ns", "start_ns", NULL};
static const char* const tl_run_keys[] = {"run", "dispatches", "kernel_ns", "span_ns", "busy_ns",
                                          "idle_pct", "gaps", "iterations",
                                          "first_iteration_span_ns", "steady_iteration_span_ns",
                                          "cold_ratio", "pmc", NULL};
static const char* const tl_amdahl_keys[] = {"category", "group", "total_ns", "pct_kernel",
                                             "ceiling_kernel", "pct_wall", "ceiling_wall", NULL};

/* With several runs: one line per run with its own iterations and cold start. */
static void tl_text_runs(Timeline* tl, TraceDb* db, FILE* out) {
    char a[64], b[64];
    fputs("  Iterations and cold start per run (never blended across runs):\n", out);
    for (int i = 0; i < Timeline_runCount(tl); i++) {
        int64_t id = 0;
        const TimelineSummary* s = Timeline_runSummary(tl, i, &id);
        char* label = Runs_label(db, id);
        Format_durationAuto(a, sizeof(a), s->span_ns);
        fprintf(out, "    %s: span %s, %" PRId64 " dispatches, ", label ? label : "?", a,
                s->dispatches);
        free(label);
        if (s->iterations > 1 && s->steady_iter_span_ns > 0) {
            Format_durationAuto(a, sizeof(a), s->first_iter_span_ns);
            Format_durationAuto(b, sizeof(b), (int64_t)llround(s->steady_iter_span_ns));
            fprintf(out, "%d iterations, first %s, steady %s (cold start %.2fx)\n",
                    s->iterations, a, b, s->cold_ratio);
        } else {
            fprintf(out, "%d iteration%s (no steady state)\n", s->iterations,
                    s->iterations == 1 ? "" : "s");
        }
    }
}

static void tl_text_summary(Timeline* tl, TraceDb* db, FILE* out) {
    const TimelineSummary* s = Timeline_summary(tl);
    char a[64], b[64], c[64], d[64];
    fprintf(out, "  %d run%s, %d device%s, %d stream%s, %" PRId64 " timed dispatches\n",
            s->runs, s->runs == 1 ? "" : "s", s->devices,
            s->devices == 1 ? "" : "s", s->streams, s->streams == 1 ? "" : "s", s->dispatches);
    Format_durationAuto(a, sizeof(a), s->span_ns);
    Format_durationAuto(b, sizeof(b), s->wall_ns);
    Format_durationAuto(c, sizeof(c), s->busy_ns);
    Format_durationAuto(d, sizeof(d), s->idle_ns);
    fprintf(out, "  Wall span %s (device wall %s); GPU busy %s (%.2f%%), idle %s (%.2f%%)\n", a, b,
            c, s->wall_ns ? 100.0 * (double)s->busy_ns / (double)s->wall_ns : 0.0, d, s->idle_pct);
    Format_durationAuto(a, sizeof(a), s->kernel_ns);
    fprintf(out, "  Kernel time %s = %.2f%% of device wall time%s\n", a, s->kernel_pct_of_wall,
            s->kernel_pct_of_wall > 100.0 ? " (kernels overlap on several streams)" : "");
    Format_durationAuto(a, sizeof(a), s->short_ns);
    /* no verdict here: launch-bound is judged by what launches cost the wall (the advice) */
    fprintf(out, "  Short kernels (< 10 us): %" PRId64 " of %" PRId64
                 " dispatches (%.2f%%), %s = %.2f%% of kernel time, %.2f%% of device wall\n",
            s->short_dispatches, s->dispatches, s->short_count_pct, a, s->short_time_pct,
            s->wall_ns ? 100.0 * (double)s->short_ns / (double)s->wall_ns : 0.0);
    if (s->gaps > 0) {
        Format_durationAuto(a, sizeof(a), s->gap_p50_ns);
        Format_durationAuto(b, sizeof(b), (int64_t)llround(s->gap_mean_ns));
        Format_durationAuto(c, sizeof(c), s->gap_max_ns);
        fprintf(out, "  Kernel gaps (per stream, not GPU idle): %" PRId64
                " gaps, median %s, mean %s, max %s\n",
                s->gaps, a, b, c);
    }
    Format_durationAuto(a, sizeof(a), s->idle_ns);
    fprintf(out, "  GPU idle gaps (union per device): %" PRId64 " gaps, total %s = GPU idle\n",
            s->idle_gaps, a);
    if (s->runs > 1) {
        tl_text_runs(tl, db, out);
    } else if (s->iterations > 0) {
        Format_durationAuto(a, sizeof(a), s->first_iter_span_ns);
        fprintf(out, "  Iterations: %d (%s", s->iterations,
                s->iter_source == ITER_ANNOTATION ? "ProfilerStep# annotations"
                                                  : "repeating kernel sequence");
        if (s->iter_source == ITER_DETECTED) {
            fprintf(out, " of %" PRId64 " dispatches", s->iter_period);
        }
        fprintf(out, "); first iteration spans %s", a);
        if (s->iterations > 1 && s->steady_iter_span_ns > 0) {
            Format_durationAuto(b, sizeof(b), (int64_t)llround(s->steady_iter_span_ns));
            fprintf(out, ", steady iterations %s on average (cold start %.2fx%s)", b,
                    s->cold_ratio, s->warmup_dispatches > 0 ? ", without the warm-up" : "");
        } else {
            fputs(" (no steady state: one iteration)", out);
        }
        fputc('\n', out);
        if (s->warmup_dispatches > 0) {
            fprintf(out, "  Warm-up before iteration 1: %" PRId64 " dispatches (shown apart)\n",
                    s->warmup_dispatches);
        }
        if (s->iterations > 1) {
            fprintf(out, "  Host<->device copies in the steady state: %" PRId64 " H2D, %" PRId64
                         " D2H%s\n",
                    s->steady_h2d, s->steady_d2h,
                    s->steady_h2d + s->steady_d2h > 0 ? " (copies inside the loop: see below)"
                                                      : "");
        }
    } else {
        fputs("  Iterations: none found (no ProfilerStep# annotation, no repeating kernel "
              "sequence)\n",
              out);
    }
    if (s->pmc) {
        fprintf(out, "%s\n", Timeline_pmcWarning());
    }
}

/* One timeline table: a CSV block, a JSON member, or a titled text table. */
static DcuStatus tl_table(Timeline* tl, TimelineView v, AmdahlBasis basis, const char* title,
                          const char* const* keys, const char* flex, int max_rows,
                          const ReportOpts* o, FILE* out, int* first, DcuError* err) {
    ResultSet* rs = NULL;
    DcuStatus s = Timeline_view(tl, v, NULL, basis, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->format == FMT_CSV) {
        fprintf(out, "# %s\r\n", Timeline_viewName(v));
        s = Export_csv(rs, out, err);
        fputs("\r\n", out);
    } else if (o->format == FMT_JSON) {
        fprintf(out, "%s\n\"%s\": ", *first ? "" : ",", Timeline_viewName(v));
        *first = 0;
        s = Export_json(rs, out, err);
    } else if (rs->nrows > 0 || rs->footer) {
        fprintf(out, "\n%s\n", title);
        Report_table(out, rs, keys, flex, o->width, max_rows);
    }
    ResultSet_delete(rs);
    return s;
}

/* The JSON "timeline" object's opening and its "summary" member. */
static void tl_json_summary(TraceDb* db, const TimelineSummary* t, FILE* out) {
    fprintf(out, ",\n\"timeline\": {\"summary\": {\"available\": %s, \"runs\": %d, "
                 "\"devices\": %d, \"streams\": %d, \"dispatches\": %" PRId64
                 ", \"kernel_ns\": %" PRId64 ", \"span_ns\": %" PRId64
                 ", \"wall_ns\": %" PRId64 ", \"busy_ns\": %" PRId64
                 ", \"idle_ns\": %" PRId64 ", \"idle_pct\": %.6f"
                 ", \"kernel_pct_of_wall\": %.6f, \"short_dispatches\": %" PRId64
                 ", \"short_ns\": %" PRId64 ", \"short_count_pct\": %.6f"
                 ", \"short_time_pct\": %.6f, \"gaps\": %" PRId64 ", \"gap_ns\": %" PRId64
                 ", \"gap_max_ns\": %" PRId64 ", \"gap_p50_ns\": %" PRId64
                 ", \"gap_mean_ns\": %.3f, \"iteration_source\": \"%s\", \"iterations\": %d"
                 ", \"iteration_period\": %" PRId64 ", \"first_iteration_ns\": %" PRId64
                 ", \"first_iteration_span_ns\": %" PRId64
                 ", \"steady_iteration_ns\": %.3f, \"steady_iteration_span_ns\": %.3f"
                 ", \"cold_ratio\": %.6f, \"warmup_dispatches\": %" PRId64
                 ", \"steady_h2d\": %" PRId64 ", \"steady_d2h\": %" PRId64
                 ", \"pmc\": %s, \"amdahl_basis\": \"%s\"}",
            t->available ? "true" : "false", t->runs, t->devices, t->streams, t->dispatches,
            t->kernel_ns, t->span_ns, t->wall_ns, t->busy_ns, t->idle_ns, t->idle_pct,
            t->kernel_pct_of_wall, t->short_dispatches, t->short_ns, t->short_count_pct,
            t->short_time_pct, t->gaps, t->gap_ns, t->gap_max_ns, t->gap_p50_ns,
            t->gap_mean_ns,
            t->iter_source == ITER_ANNOTATION ? "annotation"
            : t->iter_source == ITER_DETECTED ? "detected"
                                              : "none",
            t->iterations, t->iter_period, t->first_iter_ns, t->first_iter_span_ns,
            t->steady_iter_ns, t->steady_iter_span_ns, t->cold_ratio, t->warmup_dispatches,
            t->steady_h2d,
            t->steady_d2h, t->pmc ? "true" : "false",
            Query_amdahlBasis(db) ? "wall" : "kernel");
}

static DcuStatus timeline_section(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    Timeline* tl = NULL;
    DcuStatus s = Timeline_new(db, &tl, err);
    if (s != DCU_OK) {
        return s;
    }
    const TimelineSummary* t = Timeline_summary(tl);
    int first = 1;
    if (o->format == FMT_JSON) {
        tl_json_summary(db, t, out);
        first = 0;
    } else if (o->format == FMT_TEXT) {
        fputs("\nTimeline: per-dispatch timestamps (wall, busy/idle, gaps, iterations)\n", out);
        if (!t->available) {
            fputs("  (no per-dispatch timestamps in the data in use)\n", out);
            Timeline_delete(tl);
            return DCU_OK;
        }
        tl_text_summary(tl, db, out);
    }
    if (t->available || o->format != FMT_TEXT) {
        static const struct {
            TimelineView v;
            const char* title;
            const char* const* keys;
            const char* flex;
            int rows;
        } tabs[] = {
            {TL_OVERVIEW, NULL, NULL, NULL, 0},
            {TL_DEVICES, "Timeline: devices (wall = the run's span; busy = union of kernels, "
                         "memsets and copies)", tl_dev_keys, "file", 0},
            {TL_AMDAHL, "Timeline: Amdahl ceilings over device kernel time and over wall time",
             tl_amdahl_keys, NULL, 0},
            {TL_IDLE, "Timeline: GPU idle gaps by size (gaps of a device add up to its idle "
                      "time)", tl_idle_keys, "file", 0},
            {TL_GAPS, "Timeline: largest kernel gaps (a kernel's start - the latest kernel end on "
                      "its stream; memsets, copies and other streams' work in it count: not GPU "
                      "idle)",
             tl_gap_keys, "after", 10},
            {TL_SHORT, "Timeline: kernels with dispatches under 10 us", tl_short_keys,
             "short_name", 10},
            {TL_ITERATIONS, "Timeline: iterations (first = cold start)", tl_iter_keys, "name", 0},
            {TL_API, "Timeline: host API with and without the first iteration (host layer)",
             tl_api_keys, "name", 0},
            {TL_COPIES, "Timeline: memory copies in the steady state", tl_copy_keys, "name", 0},
            {TL_COUNTERS, "Timeline: PMC counters per kernel", tl_pmc_keys, "kernel", 0},
            {TL_RUNS, "Timeline: per run (each run's own clock; times from its own start)",
             tl_run_keys, "run", 0},
        };
        for (size_t i = 0; s == DCU_OK && i < sizeof(tabs) / sizeof(tabs[0]); i++) {
            if (o->format == FMT_TEXT && !tabs[i].title) {
                continue; /* the overview is the summary lines above */
            }
            if (o->format == FMT_TEXT &&
                ((tabs[i].v == TL_ITERATIONS && t->iterations == 0) ||
                 (tabs[i].v == TL_COUNTERS && t->counter_values == 0) ||
                 (tabs[i].v == TL_RUNS && t->runs < 2) ||
                 (tabs[i].v == TL_GAPS && t->gaps == 0) ||
                 (tabs[i].v == TL_SHORT && t->short_dispatches == 0) ||
                 ((tabs[i].v == TL_API || tabs[i].v == TL_COPIES) && t->iterations < 2))) {
                continue;
            }
            if (o->format == FMT_TEXT && (tabs[i].v == TL_API || tabs[i].v == TL_COPIES)) {
                int64_t n = TraceDb_scalarInt(
                    db, tabs[i].v == TL_API
                            ? "SELECT count(*) FROM api_call WHERE file_id IN (SELECT file_id"
                              " FROM used_file WHERE layer = 'api')"
                            : "SELECT count(*) FROM copy WHERE file_id IN (SELECT file_id"
                              " FROM used_file WHERE layer = 'copy')");
                if (n == 0) {
                    continue;
                }
            }
            const char* const* keys = tabs[i].keys;
            if (t->runs > 1 && (tabs[i].v == TL_GAPS || tabs[i].v == TL_ITERATIONS)) {
                keys = tabs[i].v == TL_GAPS ? tl_gap_run_keys : tl_iter_run_keys;
            }
            s = tl_table(tl, tabs[i].v, (AmdahlBasis)Query_amdahlBasis(db), tabs[i].title, keys,
                         tabs[i].flex, tabs[i].rows, o, out, &first, err);
        }
    }
    if (o->format == FMT_JSON) {
        fputs("}", out);
    }
    Timeline_delete(tl);
    return s;
}

void Report_loadMessages(TraceDb* db, FILE* out, const char* prefix, const char* title) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        "SELECT f.path, m.line, m.message FROM load_message m"
                        " JOIN source_file f ON f.id = m.file_id ORDER BY m.id",
                        &st, NULL) != DCU_OK) {
        return;
    }
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char* p = (const char*)sqlite3_column_text(st, 0);
        const char* m = (const char*)sqlite3_column_text(st, 2);
        if (n++ == 0 && title) {
            rule(out, title);
        }
        if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
            fprintf(out, "%s%s: %s\n", prefix, p, m);
        } else {
            fprintf(out, "%s%s:%lld: %s\n", prefix, p, (long long)sqlite3_column_int64(st, 1), m);
        }
    }
    sqlite3_finalize(st);
}

static void text_summary(TraceDb* db, const Totals* t, FILE* out) {
    char a[64], b[64];
    Format_durationAuto(a, sizeof(a), t->kernel_ns);
    Report_scopeLine(db, out); /* several runs: which one the figures are of, and why */
    fprintf(out, "\nDevice kernel time %s over %" PRId64 " dispatches of %" PRId64
                 " kernels (%s)%s\n",
            a, t->dispatches, t->kernels,
            t->per_dispatch ? "per-dispatch data" : "aggregated stats only",
            Runs_scopeRun(db) == RUNS_ALL ? ", a total over runs" : "");
    if (t->kernel_ns > 0) {
        int wall = Query_amdahlBasis(db) == 1;
        int64_t basis = Query_basisNs(db, wall); /* one basis for the shares and ceilings */
        double p = basis > 0 ? (double)t->gemm_ns / (double)basis : 0;
        double q = basis > 0 ? (double)(t->kernel_ns - t->gemm_ns) / (double)basis : 0;
        const char* on = wall ? "wall time" : "device kernel time";
        Format_ratio(b, sizeof(b), Amdahl_ceiling(p));
        sqlite3_stmt* st = NULL;
        char group[128] = "GEMM";
        if (TraceDb_prepare(db, "SELECT group_concat(name, '+') FROM (SELECT name FROM category"
                                " WHERE is_gemm ORDER BY ord)", &st, NULL) == DCU_OK) {
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
                strcmp((const char*)sqlite3_column_text(st, 0), "gemm") != 0) {
                snprintf(group, sizeof(group), "GEMM group (%s)", sqlite3_column_text(st, 0));
            }
            sqlite3_finalize(st);
        }
        fprintf(out, "%s %.2f%% of %s: speeding it up alone gives at most %s on %s; non-GEMM %.2f%%\n",
                group, 100.0 * p, on, b, on, 100.0 * q);
    }
    if (t->var_kernels > 0) {
        Format_durationAuto(a, sizeof(a), t->var_ns);
        fprintf(out, "Variability %s above each kernel's golden = %.2f%% of the time of kernels "
                     "with dispatches (dcutop's, collectives left out); %" PRId64
                     " outlier%s (|z| > 3)\n",
                a, t->var_base_ns > 0 ? 100.0 * (double)t->var_ns / (double)t->var_base_ns : 0.0,
                t->outliers, t->outliers == 1 ? "" : "s");
    } else if (t->kernels > 0) {
        fputs("Variability n/a: aggregated stats only, no dispatches\n", out);
    }
    if (t->api_calls > 0) {
        Format_durationAuto(a, sizeof(a), t->api_ns);
        fprintf(out, "Host API time %s in %" PRId64
                     " calls (host layer: never added to kernel time)\n",
                a, t->api_calls);
    }
    if (t->mem_allocs > 0) {
        Format_bytes(a, sizeof(a), t->mem_peak_bytes);
        fprintf(out, "Device memory %s live at the peak, %" PRId64 " allocations", a,
                t->mem_allocs);
        if (t->scratch_peak_bytes > 0) { /* per-queue scratch: apart from the peak */
            Format_bytes(a, sizeof(a), t->scratch_peak_bytes);
            fprintf(out, "; scratch %s at its peak", a);
        }
        fputs(" (--export allocations lists them)\n", out);
    }
    if (t->pmc) {
        fputs("WARNING: kernel times come from a PMC (counter) run; instrumented timings are "
              "not performance (a 0.0185 ms kernel measured 1.48 ms).\n",
              out);
    }
    int64_t rej = TraceDb_scalarInt(db, "SELECT coalesce(sum(rows_rejected),0) FROM source_file");
    if (rej > 0) {
        fprintf(out, "WARNING: %" PRId64 " rows rejected; see Load messages below.\n", rej);
    }
}

/* Variability per run: a JSON member, or a text table when several runs have dispatches. */
static DcuStatus variab_runs(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    static const char* const keys[] = {"file",     "kernels",  "dispatches",    "kernel_ns",
                                       "var_ns",   "var_pct",  "outliers",      "raptor_var_ns",
                                       "raptor_comm_ns", NULL};
    ResultSet* rs = NULL;
    DcuStatus s = Variab_runs(db, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->format == FMT_JSON) {
        fputs(",\n\"variability_runs\": ", out);
        s = Export_json(rs, out, err);
    } else if (o->format == FMT_TEXT && rs->nrows > 1) {
        fputs("Variability per run (each against its own goldens; RAPTOR's VarSum beside it):\n",
              out);
        Report_table(out, rs, keys, "file", o->width, 0);
    } else if (o->format == FMT_TEXT && rs->nrows == 1) {
        char a[32], c[32];
        Format_durationAuto(a, sizeof(a), ResultSet_cellc(rs, 0, 7)->i);
        Format_durationAuto(c, sizeof(c), ResultSet_cellc(rs, 0, 8)->i);
        fprintf(out, "RAPTOR's VarSum %s (each kernel with the two ops before it, (mean - min) x "
                     "calls; device-to-device copies and collectives in: %s in collectives)\n",
                a, c);
    }
    ResultSet_delete(rs);
    return s;
}

/* Writes one line wrapped at width cells: breaks at spaces, continuation lines indented two
 * more than the line; a word wider than the line is cut into pieces. */
static void wrap_line(FILE* out, const char* line, int width) {
    int indent = (int)strspn(line, " ") + 2;
    const char* p = line;
    int first = 1;
    while (*p) {
        int room = first ? width : width - indent;
        if (room < 10) {
            room = 10;
        }
        /* the longest prefix of p that fits, ending at a space where one is */
        int w = 0, len, cut = 0, last_space = -1;
        for (int i = 0; p[i]; i += len) {
            int cw = Format_nextChar(p + i, &len);
            if (w + (cw > 0 ? cw : 0) > room) {
                break;
            }
            w += cw > 0 ? cw : 0;
            cut = i + len;
            if (p[i] == ' ' && i > 0) {
                last_space = i;
            }
        }
        if (p[cut] && last_space > 0) {
            cut = last_space;
        }
        if (cut == 0) {
            cut = (int)strlen(p); /* cannot happen with room >= 10; never loop forever */
        }
        fprintf(out, "%*s%.*s\n", first ? 0 : indent, "", cut, p);
        p += cut;
        while (*p == ' ') {
            p++;
        }
        first = 0;
    }
}

static DcuStatus write_report(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The text report honours --width everywhere: tables fit by themselves (Report_table), and
 * any other line longer than the width is wrapped here. */

/* A section's title; over wall time the tables whose shares and ceilings follow the basis
 * say so (one basis at a time). */
static const char* section_title(TraceDb* db, ViewId v, const char* title) {
    if (!Query_amdahlBasis(db)) {
        return title;
    }
    if (v == VIEW_HOTSPOTS) {
        return "Hotspots: device kernels by total time; %Time and ceilings over wall time "
               "(--amdahl-basis wall)";
    }
    if (v == VIEW_CATEGORIES) {
        return "Categories: GEMM vs non-GEMM; shares and Amdahl ceilings over wall time "
               "(--amdahl-basis wall)";
    }
    return title;
}

DcuStatus Report_write(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    if (o->format != FMT_TEXT || o->width <= 0) {
        return write_report(db, o, out, err);
    }
    char* text = NULL;
    size_t size = 0;
    FILE* mem = open_memstream(&text, &size);
    if (!mem) {
        return write_report(db, o, out, err);
    }
    DcuStatus s = write_report(db, o, mem, err);
    fclose(mem);
    int write_errno = 0; /* of the first failed write: a later flush may not see it again */
    for (char* line = text; line && *line && !write_errno;) {
        char* nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
        }
        if (Format_width(line) > o->width) {
            wrap_line(out, line, o->width);
        } else {
            fprintf(out, "%s\n", line);
        }
        if (ferror(out)) { /* errno is still the failed write's */
            write_errno = errno ? errno : EIO;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!write_errno && fflush(out) != 0) {
        write_errno = errno ? errno : EIO;
    }
    free(text);
    if (s == DCU_OK && write_errno) {
        s = Error_set(err, DCU_ERR_IO, "write error: %s", strerror(write_errno));
    }
    return s;
}

/* The JSON report's opening: totals, variability per run, the region of interest. */
static DcuStatus json_head(TraceDb* db, const Totals* t, const ReportOpts* o, FILE* out,
                           DcuError* err) {
    fprintf(out,
            "{\"dcutop\": \"%s\",\n\"totals\": {\"kernel_ns\": %" PRId64
            ", \"dispatches\": %" PRId64 ", \"kernels\": %" PRId64
            ", \"per_dispatch\": %s, \"gemm_ns\": %" PRId64 ", \"gemm_pct\": %.6f"
            ", \"gemm_ceiling\": %.6f, \"api_ns\": %" PRId64 ", \"api_calls\": %" PRId64
            ", \"copy_ns\": %" PRId64 ", \"copy_calls\": %" PRId64
            ", \"rows_rejected\": %" PRId64 ", \"pmc\": %s",
            DCUTOP_VERSION, t->kernel_ns, t->dispatches, t->kernels,
            t->per_dispatch ? "true" : "false", t->gemm_ns,
            t->kernel_ns ? 100.0 * (double)t->gemm_ns / (double)t->kernel_ns : 0.0,
            t->kernel_ns && t->gemm_ns < t->kernel_ns
                ? Amdahl_ceiling((double)t->gemm_ns / (double)t->kernel_ns)
                : 0.0,
            t->api_ns, t->api_calls, t->copy_ns, t->copy_calls, t->rows_rejected,
            t->pmc ? "true" : "false");
    /* variability: null (not 0) when no kernel has dispatches */
    if (t->var_kernels > 0) {
        fprintf(out, ", \"variability_ns\": %" PRId64 ", \"variability_kernels\": %" PRId64
                     ", \"variability_base_ns\": %" PRId64 ", \"outliers\": %" PRId64 "}",
                t->var_ns, t->var_kernels, t->var_base_ns, t->outliers);
    } else {
        fputs(", \"variability_ns\": null, \"variability_kernels\": 0"
              ", \"variability_base_ns\": null, \"outliers\": null}", out);
    }
    DcuStatus s = variab_runs(db, o, out, err);
    if (s == DCU_OK && o->view < 0) {
        s = Report_health(db, o, out, err);
    }
    char roi[512];
    Roi_label(db, roi, sizeof(roi));
    if (roi[0]) {
        fputs(",\n\"roi\": ", out);
        Export_jsonString(out, roi);
    }
    return s;
}

/* The text report's title lines: version, title, command line, region of interest. */
static void text_head(TraceDb* db, const ReportOpts* o, FILE* out) {
    fprintf(out, "dcutop %s report: %s\n", DCUTOP_VERSION, o->title ? o->title : "");
    char* cmd = Runs_command(db);
    if (cmd) {
        fprintf(out, "Command: %s\n", cmd);
        free(cmd);
    }
    char roi[512];
    Roi_label(db, roi, sizeof(roi));
    if (roi[0]) {
        fprintf(out, "Region of interest: %s\n", roi);
    }
}

static DcuStatus write_report(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    Totals t;
    DcuStatus s = Query_totals(db, &t, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->format == FMT_JSON) {
        s = json_head(db, &t, o, out, err);
    } else if (o->format == FMT_TEXT) {
        text_head(db, o, out);
    }
    if (o->view < 0) {
        s = Report_runs(db, o, out, err);
    }
    if (s == DCU_OK && o->view < 0 && o->format == FMT_CSV) {
        s = Report_health(db, o, out, err);
    }
    static const struct {
        ViewId v;
        const char* title;
    } secs[] = {
        {VIEW_FILES, "Files"},
        {VIEW_HOTSPOTS, "Hotspots: device kernels by total time"},
        {VIEW_CATEGORIES, "Categories: GEMM vs non-GEMM; Amdahl ceilings over device kernel time"},
        {VIEW_API, "HIP API: host time per call (not added to kernel time)"},
        {VIEW_COPIES, "Memory copies"},
    };
    for (size_t i = 0; s == DCU_OK && i < sizeof(secs) / sizeof(secs[0]); i++) {
        if (o->view >= 0 && (int)secs[i].v != o->view) {
            continue;
        }
        if (o->format == FMT_TEXT) {
            if (secs[i].v == VIEW_HOTSPOTS && o->view < 0) {
                s = Report_health(db, o, out, err);
                text_summary(db, &t, out);
                s = variab_runs(db, o, out, err);
                if (s == DCU_OK) {
                    s = Report_advice(db, o, out, err);
                }
            }
            if ((secs[i].v == VIEW_API && t.api_calls == 0) ||
                (secs[i].v == VIEW_COPIES && t.copy_calls == 0)) {
                rule(out, secs[i].title);
                fputs("  (no data in this trace)\n", out);
                continue;
            }
            rule(out, section_title(db, secs[i].v, secs[i].title));
        }
        s = section(db, secs[i].v, o, out, err, NULL);
    }
    if (s == DCU_OK && (o->view == REPORT_VIEW_ADVICE || (o->view < 0 && o->format != FMT_TEXT))) {
        s = Report_advice(db, o, out, err);
    }
    if (s == DCU_OK && (o->view < 0 || o->view == REPORT_VIEW_TIMELINE)) {
        s = timeline_section(db, o, out, err);
    }
    if (s == DCU_OK && o->view < 0) {
        s = Report_idleCauses(db, o, out, err);
    }
    if (s == DCU_OK && o->view == REPORT_VIEW_TRACE) {
        s = Report_trace(db, o, out, err);
    }
    if (s == DCU_OK) {
        s = Report_trees(db, o, out, err);
    }
    if (s == DCU_OK && (o->view == REPORT_VIEW_EFFICIENCY ||
                        (o->view < 0 && TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM"
                                                              " op_perf)") == 1))) {
        s = Report_efficiency(db, o, out, err);
    }
    if (s == DCU_OK && (o->view < 0 || o->view == REPORT_VIEW_RANKS)) {
        s = Report_ranks(db, o, out, err);
    }
    if (s == DCU_OK && o->view == REPORT_VIEW_IDLE) {
        s = Report_idle(db, o, out, err);
    }
    if (s == DCU_OK && o->view == REPORT_VIEW_COLLECTIVES) {
        s = Report_collectives(db, o, out, err);
    }
    if (s == DCU_OK && (o->view == REPORT_VIEW_MEMORY || (o->view < 0 && Memory_any(db)))) {
        s = Report_memory(db, o, out, err);
    }
    if (s == DCU_OK && o->view == REPORT_VIEW_OPS) {
        s = Report_ops(db, o, out, err);
    }
    if (s == DCU_OK && o->view == REPORT_VIEW_DEVICE) {
        s = Report_device(db, o, out, err);
    }
    if (o->format == FMT_JSON) {
        fputs("}\n", out);
    } else if (o->format == FMT_TEXT && s == DCU_OK) {
        Report_loadMessages(db, out, "  ", "Load messages");
    }
    return s;
}
