/* report_ranks.c - the Ranks section of --report (--view ranks): one row per rank, the
 * rank x step matrix and the straggler verdict (ranks.h). In the whole report only when
 * the runs loaded are the ranks of one job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/export.h"
#include "dcutop/ranks.h"
#include "dcutop/report.h"
#include "dcutop/runs.h"
#include "dcutop/report_table.h"
#include "dcutop/xalloc.h"

static const char* const rank_keys[] = {"rank",       "run",        "gpu",      "kernel_ns",
                                        "compute_ns", "comm_ns",    "comm_pct", "exposed_ns",
                                        "idle_ns",    "steps",      "step_mean_ns",
                                        "critical_pct", NULL};

#define EXCESS_ROWS 10 /* the straggler's largest excess kernels in the text report */

/* The three tables of a job and its verdict, as the report writes them. */
typedef struct {
    const Ranks* j;
    ResultSet *rs, *mx, *ex;
    const char* verdict;
} Parts;

static DcuStatus write_csv(const Parts* p, FILE* out, DcuError* err) {
    fputs("# ranks\r\n", out);
    DcuStatus s = Export_csv(p->rs, out, err);
    fputs("\r\n# rank_steps\r\n", out);
    if (s == DCU_OK) {
        s = Export_csv(p->mx, out, err);
    }
    fputs("\r\n# rank_excess\r\n", out);
    if (s == DCU_OK) {
        s = Export_csv(p->ex, out, err);
    }
    fputs("\r\n# verdict\r\n", out);
    fputc('"', out);
    for (const char* c = p->verdict; *c; c++) { /* RFC 4180: a quote doubled */
        if (*c == '"') {
            fputc('"', out);
        }
        fputc(*c, out);
    }
    fputs("\"\r\n", out);
    return s;
}

static DcuStatus write_json(const Parts* p, FILE* out, DcuError* err) {
    const Ranks* j = p->j;
    const RankVerdict* v = &j->verdict;
    fputs(",\n\"ranks\": ", out);
    DcuStatus s = Export_json(p->rs, out, err);
    fputs(",\n\"rank_steps\": ", out);
    if (s == DCU_OK) {
        s = Export_json(p->mx, out, err);
    }
    fputs(",\n\"rank_excess\": ", out);
    if (s == DCU_OK) {
        s = Export_json(p->ex, out, err);
    }
    fprintf(out, ",\n\"rank_verdict\": {\"straggler\": ");
    if (v->found && j->rows[v->straggler].rank >= 0) {
        /* wait_ns: the rank-wait where known ("wait_basis"), comm_ns the whole */
        fprintf(out, "%d, \"steps\": %d, \"of_steps\": %d, \"excess_ns\": %.0f"
                     ", \"waiter\": %d, \"wait_ns\": %.0f, \"wait_basis\": \"%s\""
                     ", \"comm_ns\": %.0f, \"collective\": ",
                j->rows[v->straggler].rank, v->steps, v->of_steps, v->excess_ns,
                j->rows[v->waiter].rank, v->wait_ns, v->wait_known ? "rank-wait" : "comm",
                v->comm_ns);
        Export_jsonString(out, v->collective);
    } else {
        fputs("null", out);
    }
    fputs(", \"text\": ", out);
    Export_jsonString(out, p->verdict);
    fputs("}", out);
    return s;
}

static void write_text(const Parts* p, const ReportOpts* o, FILE* out) {
    fprintf(out, "\nRanks: %d (numbered by %s); exposed = comm time no compute hides\n", p->j->n,
            Ranks_sourceName(p->j->source));
    free(p->rs->footer); /* the verdict goes under the matrix */
    p->rs->footer = NULL;
    Report_table(out, p->rs, rank_keys, "run", o->width, 0);
    fputs("\nRanks x steps: step time, compute and collective (comm) kernel time per step,"
          " and the rank-wait in those collectives (wait)\n",
          out);
    const char* keys[32];
    int nk = 0;
    for (int c = 0; c < p->mx->ncols && nk < 31; c++) {
        keys[nk++] = p->mx->cols[c].key;
    }
    keys[nk] = NULL;
    Report_table(out, p->mx, keys, "kind", o->width, 0);
    if (p->ex->nrows > 0) {
        int all = p->ex->nrows;
        ResultSet_keepTop(p->ex, EXCESS_ROWS);
        static const char* const ex_keys[] = {"short_name", "excess_ns", "straggler_ns",
                                              "others_ns", "calls_excess", "pct", NULL};
        fprintf(out, "\nThe straggler's excess by kernel, per straggling step: rank %s"
                     " against the other ranks' median\n",
                ResultSet_cellc(p->ex, 0, 0)->s);
        Report_table(out, p->ex, ex_keys, "short_name", o->width, 0);
        if (all > p->ex->nrows) {
            fprintf(out, "  (%d more kernels with a smaller excess: --format json)\n",
                    all - p->ex->nrows);
        }
    }
    fputc('\n', out);
    char* indented = xasprintf("  %s", p->verdict); /* every line indented by two */
    Report_wrap(out, indented, o->width > 20 ? o->width : 80, 2);
    free(indented);
}

DcuStatus Report_ranks(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    if (o->view != REPORT_VIEW_RANKS && (Runs_count(db) < 2 || !Ranks_isJobDb(db))) {
        return DCU_OK; /* no job: the whole report does not pay for a timeline */
    }
    Ranks* j = NULL;
    DcuStatus s = Ranks_new(db, &j, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->view != REPORT_VIEW_RANKS && !Ranks_isJob(j)) {
        Ranks_delete(j);
        return DCU_OK;
    }
    char* verdict = Ranks_verdictText(j);
    Parts p = {j, Ranks_table(j), Ranks_matrix(j, 1), Ranks_excessTable(j), verdict};
    ResultSet_keepTop(p.rs, o->top_all); /* --top; the verdict still weighs every rank */
    ResultSet_keepTop(p.mx, o->top_all);
    ResultSet_keepTop(p.ex, o->top_all);
    if (o->format == FMT_CSV) {
        s = write_csv(&p, out, err);
    } else if (o->format == FMT_JSON) {
        s = write_json(&p, out, err);
    } else {
        write_text(&p, o, out);
    }
    free(verdict);
    ResultSet_delete(p.rs);
    ResultSet_delete(p.mx);
    ResultSet_delete(p.ex);
    Ranks_delete(j);
    return s;
}
