/* report_trace.c - `--report --view trace`: the dispatch trace of every GPU/queue (lane), in
 * time order with the gap before each op (trace_query.h) and the device idle interval that
 * ends at it with its cause (trace_lane.h, as the Trace screen); text tables, CSV blocks
 * ("# trace" followed by the lane in a "# lane" line) or one JSON array per lane. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/device_lane.h"
#include "dcutop/export.h"
#include "dcutop/idle.h"
#include "dcutop/report.h"
#include "dcutop/trace_lane.h"
#include "dcutop/trace_query.h"
#include "dcutop/report_table.h"

static const char* const trace_keys[] = {"start_ns", "gap_ns", "idle_ns", "cause", "dur_ns",
                                         "short_name", "category", "kind", NULL};

/* The lane's ops with the device idle gaps that end at them (idle: Idle_view's gap rows)
 * and, where a device-state log or memory events have them, the device's state at each op's
 * start (device_lane.h). */
static DcuStatus lane_ops(TraceDb* db, const TraceLane* lane, const ResultSet* idle,
                          const char* filter, ResultSet** out, DcuError* err) {
    TraceGap* g = NULL;
    int64_t ng = 0;
    DcuStatus s = TraceQuery_ops(db, lane, filter, out, err);
    if (s == DCU_OK) {
        s = TraceGap_laneFrom(db, idle, lane, &g, &ng, err);
    }
    if (s == DCU_OK) {
        *out = TraceGap_annotate(*out, g, ng);
    }
    free(g);
    DeviceLanes dl;
    if (s == DCU_OK && (s = DeviceLanes_read(db, lane->gpu, &dl, err)) == DCU_OK) {
        *out = DeviceLanes_annotate(*out, &dl);
        DeviceLanes_done(&dl);
    }
    return s;
}

DcuStatus Report_trace(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    TraceLane* lanes = NULL;
    int n = 0;
    ResultSet* idle = NULL;
    DcuStatus s = TraceQuery_lanes(db, &lanes, &n, err);
    if (s == DCU_OK && n > 0) {
        s = Idle_view(db, IDLE_GAPS, &idle, err);
    }
    if (o->format == FMT_JSON) {
        fputs(",\n\"trace\": [", out);
    } else if (o->format == FMT_TEXT && s == DCU_OK && n == 0) {
        fputs("\nTrace: no per-dispatch timestamps in the data in use\n", out);
    }
    for (int i = 0; s == DCU_OK && i < n; i++) {
        ResultSet* rs = NULL;
        s = lane_ops(db, &lanes[i], idle, o->query.filter, &rs, err);
        if (s != DCU_OK) {
            ResultSet_delete(rs);
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
                         "start, gap = the wait on this GPU/queue before the op, idle = the "
                         "device idle interval that ends at it, by cause)\n",
                    lanes[i].label, (long long)lanes[i].ops);
            const char* keys[sizeof(trace_keys) / sizeof(trace_keys[0]) + DLANE_COUNT];
            int k = 0;
            for (; trace_keys[k]; k++) {
                keys[k] = trace_keys[k];
            }
            for (int c = 0; c < rs->ncols; c++) { /* the device lanes' columns, if any */
                for (int j = 0; j < DLANE_COUNT; j++) {
                    k += strcmp(rs->cols[c].key, DeviceLane_key((DeviceLaneKind)j)) == 0
                             ? (keys[k] = rs->cols[c].key, 1)
                             : 0;
                }
            }
            keys[k] = NULL;
            Report_table(out, rs, keys, "short_name", o->width, 0);
        }
        ResultSet_delete(rs);
    }
    if (o->format == FMT_JSON) {
        fputs("]", out);
    }
    ResultSet_delete(idle);
    free(lanes);
    return s;
}
