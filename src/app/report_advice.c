/* report_advice.c - the "What to optimise first" section of --report (--view advice): the
 * ranked opportunities as text wrapped at --width (never cut: the evidence and the fix are
 * what a reader acts on), or the advice table as CSV / JSON. */
#include <stdio.h>
#include <string.h>

#include "dcutop/advice.h"
#include "dcutop/report_table.h"
#include "dcutop/export.h"
#include "dcutop/format.h"
#include "dcutop/report.h"

DcuStatus Report_advice(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    AdviceList* l = NULL;
    DcuStatus s = Advice_build(db, &l, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->format == FMT_CSV || o->format == FMT_JSON) {
        ResultSet* rs = Advice_toResultSet(l);
        ResultSet_keepTop(rs, o->top_all);
        if (o->format == FMT_CSV) {
            fputs("# advice\r\n", out);
            s = Export_csv(rs, out, err);
            fputs("\r\n", out);
        } else {
            fputs(",\n\"advice\": ", out);
            s = Export_json(rs, out, err);
        }
        ResultSet_delete(rs);
        AdviceList_delete(l);
        return s;
    }
    int width = o->width > 40 ? o->width : 40;
    fputs("\n", out);
    char buf[2048], c[32];
    snprintf(buf, sizeof(buf), "What to optimise first (at most: the whole run's speedup if that "
             "part took no time, on %s; ~ approximate)", l->basis_note);
    Report_wrap(out, buf, width, 2);
    for (int i = 0; i < l->nwarn; i++) {
        snprintf(buf, sizeof(buf), "  ! %s", l->warnings[i]);
        Report_wrap(out, buf, width, 4);
    }
    if (l->n == 0) {
        Report_wrap(out, "  (nothing holds 5% or more of its basis)", width, 2);
    }
    int top = o->top_all > 0 ? o->top_all : l->n; /* --top: the first N, with their nested */
    for (int i = 0; i < l->n; i++) {
        const Advice* a = &l->items[i];
        int rank = Advice_rank(l, i);
        if (rank > top || (a->nested && Advice_rank(l, i - 1) > top)) {
            break;
        }
        Advice_ceilingText(a, c, sizeof(c));
        if (a->nested) { /* a kernel of the category above: of its share, never beside it */
            snprintf(buf, sizeof(buf), "     of which: at most %s%s  %.2f%% of %s  %s", c,
                     a->capped ? "~" : "", 100.0 * a->share, a->basis, a->what);
        } else {
            snprintf(buf, sizeof(buf), "  %d. at most %-6s%s %6.2f%% of %s  %s%s", rank, c,
                     a->capped ? "~" : " ", 100.0 * a->share, a->basis, a->what,
                     a->across ? " (across categories)" : "");
        }
        Report_wrap(out, buf, width, a->nested ? 9 : 5);
        snprintf(buf, sizeof(buf), "%s%s: %s", a->nested ? "       " : "     ", a->layer,
                 a->evidence);
        Report_wrap(out, buf, width, a->nested ? 9 : 7);
        snprintf(buf, sizeof(buf), "%swhy: %s", a->nested ? "       " : "     ", a->why);
        Report_wrap(out, buf, width, a->nested ? 9 : 7);
    }
    Advice_togetherText(l, buf, sizeof(buf));
    if (buf[0]) {
        char line[2200];
        snprintf(line, sizeof(line), "  %s (disjoint parts added)", buf);
        Report_wrap(out, line, width, 4);
    }
    AdviceList_delete(l);
    return DCU_OK;
}
