/* device_state.h - the device-state logs beside a trace (device_sample, device_log; read by
 * load_smi.c): every sample, and per log and device a summary of clocks, utilisation,
 * memory, power, temperature and throttle reasons. */
#ifndef DCUTOP_DEVICE_STATE_H
#define DCUTOP_DEVICE_STATE_H

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* One row per sample of the runs in scope (and of logs in no run), the device_sample columns
 * in order: id, file_id, line, device, device_name, wall_ns, ts_ns, sm_clock_mhz,
 * mem_clock_mhz, max_sm_clock_mhz, util_pct, mem_util_pct, mem_used_bytes, mem_total_bytes,
 * power_w, power_cap_w, temp_c, throttle, driver. *out owned by the caller. */
DcuStatus DeviceState_samples(TraceDb* db, ResultSet** out, DcuError* err);

/* One row per log file and device: file, tool, device, name, samples, span_s (first to last
 * sample), SM clock min / median / max, max_sm_mhz (the device's own maximum as the log
 * gives it, else NULL), below_max_pct (share of samples whose SM clock is below that
 * maximum, or below the highest the log shows when it gives none), memory clock median,
 * utilisation mean and max, memory utilisation mean, memory used max, memory total, power
 * mean and max, power cap, temperature max, throttle (each reason seen, with its samples),
 * clock (how the log's times read) and align (aligned to which trace, or why not).
 * Medians of an even count are the mean of the two middle values. *out owned. */
DcuStatus DeviceState_summary(TraceDb* db, ResultSet** out, DcuError* err);

#endif
