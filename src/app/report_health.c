/* report_health.c - the health verdict (health.h, health_view.h) at the head of the default
 * report's summary: text lines "Health: ...", a "! " before each verdict against the run;
 * JSON member "health" (state, log and one object per line with its kind, device and
 * window); CSV block "# health". */
#include <inttypes.h>
#include <stdio.h>

#include "dcutop/export.h"
#include "dcutop/health.h"
#include "dcutop/health_view.h"
#include "dcutop/report.h"

enum { HEALTH_LINES = 32 };

static const char* state_name(HealthState s) {
    static const char* const names[] = {"no-log", "no-trace", "unaligned", "judged"};
    return names[s];
}

static void json_lines(const Health* h, const HealthLine* l, int n, FILE* out) {
    fprintf(out, ",\n\"health\": {\"state\": \"%s\", \"log\": ", state_name(h->state));
    if (h->log[0]) {
        Export_jsonString(out, h->log);
    } else {
        fputs("null", out);
    }
    fprintf(out, ", \"samples\": %" PRId64 ", \"lines\": [", h->log_rows);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s\n {\"kind\": \"%s\", \"warning\": %s, \"gpu\": ", i ? "," : "",
                l[i].kind, l[i].warn ? "true" : "false");
        if (l[i].gpu >= 0) {
            fprintf(out, "%" PRId64, l[i].gpu);
        } else {
            fputs("null", out);
        }
        if (l[i].t1 >= l[i].t0) {
            fprintf(out, ", \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64
                         ", \"edge_ns\": %" PRId64,
                    l[i].t0, l[i].t1, l[i].res_ns);
        }
        fputs(", \"text\": ", out);
        Export_jsonString(out, l[i].text);
        fputs("}", out);
    }
    fputs("]}", out);
}

static void csv_lines(const HealthLine* l, int n, FILE* out) {
    fputs("# health\r\nkind,warning,gpu,start_ns,end_ns,edge_ns,text\r\n", out);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s,%d,", l[i].kind, l[i].warn);
        if (l[i].gpu >= 0) {
            fprintf(out, "%" PRId64, l[i].gpu);
        }
        if (l[i].t1 >= l[i].t0) {
            fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", l[i].t0, l[i].t1, l[i].res_ns);
        } else {
            fputs(",,,,", out);
        }
        fputc('"', out);
        for (const char* p = l[i].text; *p; p++) { /* RFC 4180: quotes doubled */
            if (*p == '"') {
                fputc('"', out);
            }
            fputc(*p, out);
        }
        fputs("\"\r\n", out);
    }
    fputs("\r\n", out);
}

DcuStatus Report_health(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    Health h;
    DcuStatus s = Health_compute(db, &h, err);
    if (s != DCU_OK) {
        Health_done(&h);
        return s;
    }
    HealthLine lines[HEALTH_LINES];
    int n = HealthView_lines(&h, lines, HEALTH_LINES);
    if (o->format == FMT_JSON) {
        json_lines(&h, lines, n, out);
    } else if (o->format == FMT_CSV) {
        csv_lines(lines, n, out);
    } else {
        fputc('\n', out);
        for (int i = 0; i < n; i++) {
            fprintf(out, "Health: %s%s\n", lines[i].warn ? "! " : "", lines[i].text);
        }
    }
    Health_done(&h);
    return DCU_OK;
}
