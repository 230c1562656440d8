/* report_runs.c - the Runs section of the report: every run loaded with its own figures
 * (Runs_table), and the scope the rest of the report shows. Text: only when several runs
 * are loaded (one run needs no such table); CSV and JSON: always. */
#include <stdio.h>
#include <stdlib.h>

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
    } else {
        int64_t one = Runs_scopeRun(db);
        char* label = one ? Runs_label(db, one) : NULL;
        fprintf(out, "\nRuns: %d loaded, each with its own figures; the report shows %s%s%s\n", n,
                label ? "run " : "all runs", label ? label : "",
                label ? "" : " (--run LABEL shows one)");
        free(label);
        Report_table(out, rs, run_keys, "run", o->width, 0);
        commands(out, rs);
    }
    ResultSet_delete(rs);
    return s;
}
