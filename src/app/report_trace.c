/* report_trace.c - `--report --view trace`: the dispatch trace of every GPU/queue (lane), in
 * time order with the gap before each op (trace_query.h); text tables, CSV blocks ("# trace"
 * followed by the lane in a "# lane" line) or one JSON array per lane. */
#include <stdio.h>
#include <stdlib.h>

#include "dcutop/export.h"
#include "dcutop/report.h"
#include "dcutop/trace_query.h"
#include "dcutop/report_table.h"

static const char* const trace_keys[] = {"start_ns", "gap_ns", "dur_ns", "short_name",
                                         "category", "kind", NULL};

DcuStatus Report_trace(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    TraceLane* lanes = NULL;
    int n = 0;
    DcuStatus s = TraceQuery_lanes(db, &lanes, &n, err);
    if (o->format == FMT_JSON) {
        fputs(",\n\"trace\": [", out);
    } else if (o->format == FMT_TEXT && s == DCU_OK && n == 0) {
        fputs("\nTrace: no per-dispatch timestamps in the data in use\n", out);
    }
    for (int i = 0; s == DCU_OK && i < n; i++) {
        ResultSet* rs = NULL;
        s = TraceQuery_ops(db, &lanes[i], o->query.filter, &rs, err);
        if (s != DCU_OK) {
            break;
        }
        ResultSet_keepTop(rs, o->top_all); /* --top: the first N ops of each lane */
        if (o->format == FMT_CSV) {
            fprintf(out, "# trace\r\n# lane: %s\r\n", lanes[i].label);
            s = Export_csv(rs, out, err);
            fputs("\r\n", out);
        } else if (o->format == FMT_JSON) {
            fprintf(out, "%s\n{\"lane\": ", i ? "," : "");
            Export_jsonString(out, lanes[i].label);
            fprintf(out, ", \"gpu\": %lld, \"queue\": %lld, \"ops\": ", (long long)lanes[i].gpu,
                    (long long)lanes[i].stream);
            s = Export_json(rs, out, err);
            fputs("}", out);
        } else {
            fprintf(out, "\nTrace: %s (%lld dispatches and copies; start from the trace's "
                         "start, gap = idle time on this GPU/queue before the op)\n",
                    lanes[i].label, (long long)lanes[i].ops);
            Report_table(out, rs, trace_keys, "short_name", o->width, 0);
        }
        ResultSet_delete(rs);
    }
    if (o->format == FMT_JSON) {
        fputs("]", out);
    }
    free(lanes);
    return s;
}
