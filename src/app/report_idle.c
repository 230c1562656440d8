/* report_idle.c - the idle section of --report (--view idle only, issue 22): idle time per
 * device and cause, the largest gaps with their causes, launch delay per kernel (idle.h).
 * JSON members "idle", "idle_top_gaps", "launch_stats"; CSV blocks of the same names. */
#include <stdio.h>
#include <stdlib.h>

#include "dcutop/export.h"
#include "dcutop/idle.h"
#include "dcutop/report.h"
#include "dcutop/report_table.h"

static const char* const cause_keys[] = {"run", "device", "cause", "gaps", "total_ns",
                                         "pct_idle", NULL};
static const char* const top_keys[] = {"device", "gap_start_ns", "gap_ns", "cause",
                                       "host_activity", "host_ns", "next_kernel", NULL};
static const char* const kern_keys[] = {"kernel",        "launches",      "median_ns",
                                        "p95_ns",        "max_ns",        "call_median_ns",
                                        "call_p95_ns",   "short",         "delay_outliers",
                                        NULL};

enum { CAUSES_TOP_GAPS = 5 }; /* the largest gaps the default report lists */

/* The default report's idle-causes section: the causes per device and the largest gaps with
 * their main host activity, the figures of --view idle; nothing for a trace without timed
 * dispatches. JSON members "idle_causes", "idle_causes_top_gaps"; CSV blocks of the same
 * names. */
DcuStatus Report_idleCauses(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    ResultSet* rs[2] = {NULL, NULL};
    DcuStatus s = Idle_causesTop(db, &rs[0], &rs[1], err);
    if (s != DCU_OK || rs[0]->nrows == 0) {
        ResultSet_delete(rs[0]);
        ResultSet_delete(rs[1]);
        return s;
    }
    ResultSet_keepTop(rs[1], CAUSES_TOP_GAPS);
    static const char* const names[2] = {"idle_causes", "idle_causes_top_gaps"};
    for (int i = 0; i < 2 && s == DCU_OK; i++) {
        if (o->format == FMT_CSV) {
            fprintf(out, "# %s\r\n", names[i]);
            s = Export_csv(rs[i], out, err);
            fputs("\r\n", out);
        } else if (o->format == FMT_JSON) {
            fprintf(out, ",\n\"%s\": ", names[i]);
            s = Export_json(rs[i], out, err);
        } else if (i == 0) {
            fputs("\nWhy the GPU idles: idle time per device and cause (host-bound: launched "
                  "after the device went idle; launch-overhead: launched before; sync: a "
                  "synchronising call held the launching thread; other-stream, rank-wait: "
                  "waits, not device idle; --view idle for every gap)\n", out);
            Report_table(out, rs[0], cause_keys, "run", o->width, 0);
        } else {
            fprintf(out, "\nThe %d largest idle gaps, with the main host activity (its total in "
                         "the gap; sync: the call and the op that issued it; start from the "
                         "trace start)\n", CAUSES_TOP_GAPS);
            Report_table(out, rs[1], top_keys, "host_activity", o->width, 0);
        }
    }
    ResultSet_delete(rs[0]);
    ResultSet_delete(rs[1]);
    return s;
}

DcuStatus Report_idle(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    static const struct {
        IdleView v;
        const char* json;
        const char* title;
        const char* const* keys;
        const char* flex;
    } secs[] = {
        {IDLE_CAUSES, "idle",
         "Idle time per device and cause (other-stream, rank-wait: not device idle)",
         cause_keys, "run"},
        {IDLE_TOP, "idle_top_gaps", "Largest idle gaps per device, with their causes", top_keys,
         "next_kernel"},
        {IDLE_KERNELS, "launch_stats",
         "Launch statistics per GPU op as HTA computes them (launches by cudaLaunchKernel, "
         "cudaMemsetAsync, cudaMemcpyAsync; whole us; delay = start - call start + call; short: "
         "call <= 50 us and longer than the op; delays over 100 us)",
         kern_keys, "kernel"},
    };
    DcuStatus s = DCU_OK;
    if (o->format == FMT_TEXT) {
        fputs("Why the GPU idles: each idle interval of a device (no kernel, memset or copy "
              "running on it) by the launch call of the next one.\n  host-bound: launched after "
              "the device went idle (nearest to HTA's host wait, which HTA takes per stream, "
              "waits behind other streams included); launch-overhead: launched before (the "
              "whole interval; HTA's kernel wait only below its consecutive_kernel_delay, 30 "
              "us, the rest other); sync: a synchronising call on the launching thread "
              "overlapped it; "
              "unknown: no launch call. Not device idle, listed apart: other-stream (a stream "
              "waits while another of the device works), rank-wait (a collective waits for a "
              "slower rank of the job).\n", out);
    }
    for (size_t i = 0; s == DCU_OK && i < sizeof(secs) / sizeof(secs[0]); i++) {
        ResultSet* rs = NULL;
        s = Idle_view(db, secs[i].v, &rs, err);
        if (s != DCU_OK) {
            break;
        }
        ResultSet_keepTop(rs, o->top_all);
        if (o->format == FMT_CSV) {
            fprintf(out, "# %s\r\n", secs[i].json);
            s = Export_csv(rs, out, err);
            fputs("\r\n", out);
        } else if (o->format == FMT_JSON) {
            fprintf(out, ",\n\"%s\": ", secs[i].json);
            s = Export_json(rs, out, err);
        } else {
            fprintf(out, "\n%s\n", secs[i].title);
            if (rs->nrows == 0) {
                fputs("  (no timed dispatches)\n", out);
            } else {
                Report_table(out, rs, secs[i].keys, secs[i].flex, o->width,
                             secs[i].v == IDLE_KERNELS ? o->top : 0);
            }
        }
        ResultSet_delete(rs);
    }
    return s;
}
