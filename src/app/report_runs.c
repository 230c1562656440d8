/* report_runs.c - the Runs section of the report: every run loaded with its own figures
 * (Runs_table), and the scope the rest of the report shows. Text: only when several runs
 * are loaded (one run needs no such table); CSV and JSON: always. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/export.h"
#include "dcutop/report.h"
#include "dcutop/runs.h"
#include "dcutop/report_table.h"

static const char* const run_keys[] = {"run", "layers", "mode", "kernel_ns", "dispatches",
                                       "span_ns", "iterations", "cold_ratio", "pmc", "files",
                                       NULL};

/* Each run's command line, where its files name one (rocpd, rocprof-compute): under the
 * table, whole, as a long column would push the figures out. */
static void commands(FILE* out, const ResultSet* rs) {
    int rc = ResultSet_columnIndex(rs, "run"), cc = ResultSet_columnIndex(rs, "command");
    for (int r = 0; rc >= 0 && cc >= 0 && r < rs->nrows; r++) {
        const RsCell* run = ResultSet_cellc(rs, r, rc);
        const RsCell* cmd = ResultSet_cellc(rs, r, cc);
        if (!cmd->null && cmd->s && *cmd->s) {
            fprintf(out, "  %s: %s\n", run->s ? run->s : "", cmd->s);
        }
    }
}

/* JSON member "run_scope": what the figures of the report are of. kind: "default" (one run
 * chosen, Runs_choice), "all" (every run added, as asked), "run" (one run picked), "job" (the
 * ranks of one job), "one" (one run loaded). */
static void json_scope(TraceDb* db, FILE* out) {
    RunsChoice ch;
    if (Runs_choice(db, &ch, NULL) != DCU_OK) {
        return;
    }
    int64_t one = Runs_scopeRun(db);
    const char* kind = one == RUNS_ALL  ? "all"
                       : one > 0        ? "run"
                       : ch.chosen      ? "default"
                       : ch.job         ? "job"
                       : Runs_count(db) > 1 ? "all"
                                            : "one";
    int64_t id = one > 0 ? one : one == 0 ? ch.chosen : 0;
    char* label = id ? Runs_label(db, id) : NULL;
    fputs(",\n\"run_scope\": {\"kind\": ", out);
    Export_jsonString(out, kind);
    fputs(", \"run\": ", out);
    if (label) {
        Export_jsonString(out, label);
    } else {
        fputs("null", out);
    }
    fprintf(out, ", \"runs_in_scope\": %d, \"total_over_runs\": %s", Runs_inScope(db),
            strcmp(kind, "all") == 0 && Runs_count(db) > 1 ? "true" : "false");
    int dflt = strcmp(kind, "default") == 0;
    fputs(", \"why\": ", out);
    Export_jsonString(out, dflt ? ch.why : "");
    fputs(", \"with\": ", out);
    Export_jsonString(out, dflt ? ch.with : "");
    fputs(", \"not_added\": ", out);
    Export_jsonString(out, dflt ? ch.left : "");
    fputs("}", out);
    free(label);
}

void Report_scopeLine(TraceDb* db, FILE* out) {
    char* text = Runs_scopeText(db);
    if (text) {
        fprintf(out, "\nScope: %s", text);
        free(text);
    }
}

DcuStatus Report_runs(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    int n = Runs_count(db);
    if (o->format == FMT_TEXT && n < 2) {
        return DCU_OK;
    }
    ResultSet* rs = NULL;
    DcuStatus s = Runs_table(db, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet_keepTop(rs, o->top_all);
    if (o->format == FMT_CSV) {
        fputs("# runs\r\n", out);
        s = Export_csv(rs, out, err);
        fputs("\r\n", out);
    } else if (o->format == FMT_JSON) {
        fputs(",\n\"runs\": ", out);
        s = Export_json(rs, out, err);
        if (s == DCU_OK) {
            json_scope(db, out);
        }
    } else {
        int64_t one = Runs_scopeRun(db);
        RunsChoice ch;
        int choice = Runs_choice(db, &ch, NULL) == DCU_OK;
        int64_t shown = one > 0 ? one : one == 0 && choice ? ch.chosen : 0;
        char* label = shown ? Runs_label(db, shown) : NULL;
        fprintf(out, "\nRuns: %d loaded, each with its own figures; the report shows %s%s%s\n", n,
                label                 ? "run "
                : one == RUNS_ALL     ? "every run added together"
                : choice && ch.job    ? "all runs (the ranks of one job)"
                                      : "all runs",
                label ? label : "",
                label || one == RUNS_ALL ? " (--run LABEL shows one run, --run all every run added)"
                                         : " (--run LABEL shows one)");
        free(label);
        Report_table(out, rs, run_keys, "run", o->width, 0);
        commands(out, rs);
    }
    ResultSet_delete(rs);
    return s;
}
