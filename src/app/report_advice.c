/* report_advice.c - the "What to optimise first" section of --report (--view advice): the
 * ranked opportunities as text lines cut to --width, or the advice table as CSV / JSON. */
#include <stdio.h>
#include <string.h>

#include "dcutop/advice.h"
#include "dcutop/report_table.h"
#include "dcutop/export.h"
#include "dcutop/format.h"
#include "dcutop/report.h"

/* One line cut to width cells. */
static void put_line(FILE* out, const char* s, int width) {
    char cut[1024];
    Format_cutEnd(s, width, cut, sizeof(cut));
    fprintf(out, "%s\n", cut);
}


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
    Report_wrap(out, "What to optimise first (at most: the whole run's speedup if that part "
                     "took no time, over the basis shown; ~ approximate)", width, 2);
    char buf[2048], c[32];
    for (int i = 0; i < l->nwarn; i++) {
        snprintf(buf, sizeof(buf), "  ! %s", l->warnings[i]);
        Report_wrap(out, buf, width, 4);
    }
    if (l->n == 0) {
        put_line(out, "  (nothing holds 5% or more of its basis)", width);
    }
    int n = o->top_all > 0 && o->top_all < l->n ? o->top_all : l->n; /* --top: the first N */
    for (int i = 0; i < n; i++) {
        const Advice* a = &l->items[i];
        Advice_ceilingText(a, c, sizeof(c));
        snprintf(buf, sizeof(buf), "  %d. at most %-6s%s %6.2f%% of %-11s  %s", i + 1, c,
                 a->capped ? "~" : " ", 100.0 * a->share, a->basis, a->what);
        put_line(out, buf, width);
        snprintf(buf, sizeof(buf), "     %s: %s", a->layer, a->evidence);
        put_line(out, buf, width);
        snprintf(buf, sizeof(buf), "     why: %s", a->why);
        put_line(out, buf, width);
    }
    AdviceList_delete(l);
    return DCU_OK;
}
