/* report_device.c - --view device: per device-state log and device, its samples summarised
 * (device_state.h). JSON member "device"; CSV block "device". */
#include <stdio.h>

#include "dcutop/device_state.h"
#include "dcutop/export.h"
#include "dcutop/report.h"
#include "dcutop/report_table.h"

/* the text table; CSV and JSON have every column (device_state.h) */
static const char* const keys[] = {"file",          "device",        "samples",
                                   "sm_min_mhz",    "sm_median_mhz", "sm_max_mhz",
                                   "max_sm_mhz",    "below_max_pct", "util_mean_pct",
                                   "mem_used_max_bytes", "power_max_w", "temp_max_c",
                                   NULL};

static const char* text(const ResultSet* rs, int r, int c) {
    const RsCell* x = ResultSet_cellc(rs, r, c);
    return x->null || !x->s ? "?" : x->s;
}

DcuStatus Report_device(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    ResultSet* rs = NULL;
    DcuStatus s = DeviceState_summary(db, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet_keepTop(rs, o->top_all);
    if (o->format == FMT_CSV) {
        fputs("# device\r\n", out);
        s = Export_csv(rs, out, err);
        fputs("\r\n", out);
    } else if (o->format == FMT_JSON) {
        fputs(",\n\"device\": ", out);
        s = Export_json(rs, out, err);
    } else {
        fputs("\nDevice state: the device-state logs beside the trace (nvidia-smi, rocm-smi, "
              "hy-smi, amd-smi), per log and device. Clocks in MHz; below max: the share of "
              "samples whose SM clock is under the device's own maximum (the highest in the log "
              "when it gives none); maxima of memory used, power and temperature; below the "
              "table each log's throttle reasons as the tool names them, with their samples; "
              "--export device-state for every sample.\n", out);
        if (rs->nrows == 0) {
            fputs("  (no device-state log found)\n", out);
        } else {
            Report_table(out, rs, keys, "file", o->width, 0);
            fputs("\n", out);
            for (int r = 0; r < rs->nrows; r++) {
                const RsCell* dev = ResultSet_cellc(rs, r, 2);
                const RsCell* thr = ResultSet_cellc(rs, r, 21);
                fprintf(out, "  %s device %lld (%s): throttle reasons: %s; times: %s; %s\n",
                        text(rs, r, 0), dev->null ? -1LL : (long long)dev->i, text(rs, r, 1),
                        thr->null ? "not in the log" : thr->s, text(rs, r, 22), text(rs, r, 23));
            }
        }
    }
    ResultSet_delete(rs);
    return s;
}
