/* report_ops.c - the Ops section of --report (--view ops only): kernel time per model op and
 * module of a PyTorch trace (ops.h), with how much of it could be tied to an op. JSON
 * members "ops_coverage", "ops_modules", "ops"; CSV blocks of the same names. */
#include <stdio.h>

#include "dcutop/export.h"
#include "dcutop/ops.h"
#include "dcutop/report.h"
#include "dcutop/report_table.h"

static const char* const module_keys[] = {"module", "fwd_ns", "bwd_ns", "total_ns", "calls",
                                          "kernels", "share_pct", "ceiling", NULL};
static const char* const op_keys[] = {"step", "module", "op", "pass", "calls", "kernels",
                                      "device_ns", "share_pct", "input_shapes", NULL};

static double pct(int64_t a, int64_t b) {
    return b > 0 ? 100.0 * (double)a / (double)b : 0;
}

static void coverage(const OpsCoverage* c, const ReportOpts* o, FILE* out) {
    if (o->format == FMT_JSON) {
        fprintf(out,
                ",\n\"ops_coverage\": {\"kernel_ns\": %lld, \"linked_ns\": %lld, \"linked_pct\":"
                " %.4f, \"kernels\": %lld, \"linked_kernels\": %lld, \"ranged_ns\": %lld,"
                " \"ranged_pct\": %.4f, \"backward_ns\": %lld, \"backward_linked_ns\": %lld}",
                (long long)c->total_ns, (long long)c->linked_ns, pct(c->linked_ns, c->total_ns),
                (long long)c->kernels, (long long)c->linked, (long long)c->ranged_ns,
                pct(c->ranged_ns, c->total_ns), (long long)c->backward_ns,
                (long long)c->backward_fwd_ns);
    } else if (o->format == FMT_CSV) {
        fprintf(out,
                "# ops_coverage\r\nkernel_ns,linked_ns,linked_pct,kernels,linked_kernels,"
                "ranged_ns,ranged_pct,backward_ns,backward_linked_ns\r\n"
                "%lld,%lld,%.4f,%lld,%lld,%lld,%.4f,%lld,%lld\r\n\r\n",
                (long long)c->total_ns, (long long)c->linked_ns, pct(c->linked_ns, c->total_ns),
                (long long)c->kernels, (long long)c->linked, (long long)c->ranged_ns,
                pct(c->ranged_ns, c->total_ns), (long long)c->backward_ns,
                (long long)c->backward_fwd_ns);
    } else {
        fprintf(out,
                "  %.2f%% of kernel time (%lld of %lld kernels) tied to an op; %.2f%% under a "
                "range or module (backward kernels under their forward op's); backward %.2f%% of "
                "kernel time, %.2f%% of it with its forward op\n",
                pct(c->linked_ns, c->total_ns), (long long)c->linked, (long long)c->kernels,
                pct(c->ranged_ns, c->total_ns), pct(c->backward_ns, c->total_ns),
                pct(c->backward_fwd_ns, c->backward_ns));
    }
}

DcuStatus Report_ops(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    if (o->format == FMT_TEXT) {
        fputs("\nOps: device kernel time per model op and module, forward and backward (a "
              "backward kernel counts under its forward op)\n", out);
    }
    if (!Ops_available(db)) {
        if (o->format == FMT_TEXT) {
            fputs("  (no kernel of this trace is tied to an op: the Ops view needs a PyTorch "
                  "profiler trace, marker ranges or kernel-stack dumps)\n", out);
        } else if (o->format == FMT_JSON) {
            fputs(",\n\"ops\": []", out);
        }
        return DCU_OK;
    }
    OpsCoverage c;
    DcuStatus s = Ops_coverage(db, &c, err);
    if (s != DCU_OK) {
        return s;
    }
    coverage(&c, o, out);
    ResultSet* rs[2] = {NULL, NULL};
    OpsSel sel = {OPS_MODULES, NULL, NULL, NULL};
    s = Ops_table(db, &sel, &o->query, &rs[0], err);
    if (s == DCU_OK) {
        s = Ops_export(db, &o->query, &rs[1], err);
    }
    static const char* const names[2] = {"ops_modules", "ops"};
    for (int i = 0; i < 2 && s == DCU_OK; i++) {
        ResultSet_keepTop(rs[i], o->top_all);
        if (o->format == FMT_CSV) {
            fprintf(out, "# %s\r\n", names[i]);
            s = Export_csv(rs[i], out, err);
            fputs("\r\n", out);
        } else if (o->format == FMT_JSON) {
            fprintf(out, ",\n\"%s\": ", names[i]);
            s = Export_json(rs[i], out, err);
        } else {
            fputs(i == 0 ? "\n  Per module (module path as the trace names its modules)\n"
                         : "\n  Per step, module, op and pass\n",
                  out);
            Report_table(out, rs[i], i == 0 ? module_keys : op_keys, i == 0 ? "module" : "op",
                         o->width, 0);
        }
    }
    ResultSet_delete(rs[0]);
    ResultSet_delete(rs[1]);
    return s;
}
