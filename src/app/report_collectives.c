/* report_collectives.c - --view collectives: the collectives of a multi-rank job
 * (collectives.h) per type and size bucket, per rank how often it arrived last, and in CSV
 * and JSON every instance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/coll_ref.h"
#include "dcutop/collectives.h"
#include "dcutop/export.h"
#include "dcutop/report.h"
#include "dcutop/report_table.h"
#include "dcutop/xalloc.h"

static const char* const bucket_keys[] = {"type", "size", "count", "latency_ns", "wait_ns",
                                          "busbw_median", "busbw_p10", "busbw_p90",
                                          "skew_median_ns", "skew_max_ns", "ref_pct", NULL};
static const char* const last_keys[] = {"rank", "instances", "last", "last_pct", "skew_ns",
                                        "skew_median_ns", "first", "end_offset_ns", NULL};

DcuStatus Report_collectives(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    Collectives* c = NULL;
    DcuStatus s = Collectives_new(db, &c, err);
    if (s != DCU_OK) {
        return s;
    }
    CollRef ref;
    CollRef_init(&ref);
    s = CollRef_fromDb(db, &ref, err);
    ResultSet* b = Collectives_buckets(c, ref.n ? &ref : NULL);
    ResultSet* last = Collectives_lastArrivals(c);
    ResultSet* inst = Collectives_instances(c);
    char* sum = Collectives_summaryText(c, last);
    ResultSet_keepTop(b, o->top_all);
    ResultSet_keepTop(last, o->top_all);
    ResultSet_keepTop(inst, o->top_all);
    if (s != DCU_OK) {
        /* said below */
    } else if (o->format == FMT_CSV) {
        fputs("# collective_buckets\r\n", out);
        s = Export_csv(b, out, err);
        fputs("\r\n# collective_last\r\n", out);
        if (s == DCU_OK) {
            s = Export_csv(last, out, err);
        }
        fputs("\r\n# collectives\r\n", out);
        if (s == DCU_OK) {
            s = Export_csv(inst, out, err);
        }
    } else if (o->format == FMT_JSON) {
        fputs(",\n\"collectives_clock\": ", out);
        Export_jsonString(out, c->clock ? c->clock : "");
        fputs(",\n\"collective_buckets\": ", out);
        s = Export_json(b, out, err);
        fputs(",\n\"collective_last\": ", out);
        if (s == DCU_OK) {
            s = Export_json(last, out, err);
        }
        fputs(",\n\"collectives\": ", out);
        if (s == DCU_OK) {
            s = Export_json(inst, out, err);
        }
        fputs(",\n\"collectives_text\": ", out);
        Export_jsonString(out, sum);
    } else {
        fprintf(out, "\nCollectives: %d across %d ranks, matched by process group and sequence;"
                     " arrivals on the traces' clock (%s)\n",
                c->n, c->nranks, c->clock ? c->clock : "unknown");
        if (c->n > 0) {
            fputs("  Per type and size: latency = each collective's shortest duration over the"
                  " ranks (no waiting), wait = the rest; bus bandwidth by the nccl-tests"
                  " factors\n",
                  out);
            Report_table(out, b, bucket_keys, "size", o->width, 0);
            for (int i = 0; i < ref.n; i++) {
                fprintf(out, "  Reference (%s): %s, %d sizes\n", ref.c[i].type, ref.c[i].name,
                        ref.c[i].n);
            }
            fputs("\nLast to arrive, per rank (arrival = the collective kernel's start)\n", out);
            Report_table(out, last, last_keys, NULL, o->width, 0);
        }
        fputc('\n', out);
        char* indented = xasprintf("  %s", sum);
        Report_wrap(out, indented, o->width > 20 ? o->width : 80, 2);
        free(indented);
    }
    free(sum);
    ResultSet_delete(b);
    ResultSet_delete(last);
    ResultSet_delete(inst);
    CollRef_done(&ref);
    Collectives_delete(c);
    return s;
}
