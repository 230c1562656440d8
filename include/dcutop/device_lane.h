/* device_lane.h - the device's state over time for the Trace screen's lanes and the
 * --view trace columns: the device-state log's samples (device_sample: SM/core clock, memory
 * clock, utilisation, memory used, power, temperature) and the trace's own memory (mem_event:
 * allocated and reserved bytes after each event), as step series on the trace's clock.
 *
 * A sample's value holds from its time until the next sample, at most DEVICE_LANE_HOLD
 * median spacings (a log that stops does not draw on); a memory event's totals hold until
 * the next event. Over several processes on the device, memory is the sum of each one's
 * latest totals. The log's device pairs with the trace's device of the same index, or with
 * the only device of a trace when the log has only one; of several logs of that device,
 * the one with the most samples (DeviceLanes_pick, which health.h uses too). */
#ifndef DCUTOP_DEVICE_LANE_H
#define DCUTOP_DEVICE_LANE_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* In the order a screen short of rows drops them from the end. */
typedef enum {
    DLANE_SM_CLOCK,
    DLANE_UTIL,
    DLANE_MEM_USED,
    DLANE_ALLOCATED,
    DLANE_RESERVED,
    DLANE_POWER,
    DLANE_TEMP,
    DLANE_MEM_CLOCK,
    DLANE_COUNT
} DeviceLaneKind;

#define DEVICE_LANE_HOLD 3

typedef struct DeviceSeries_ {
    int64_t* t;      /* ns, trace clock, ascending (owned) */
    double* v;       /* the value from t[i] (owned); units: DeviceLane_unit */
    int64_t n;
    double top;      /* the lane's full scale: the max clock, 100 %, the memory total, the
                      * power cap (else the largest power), the largest value otherwise */
    int64_t hold_ns; /* how long the last value holds (0: until the next one, forever) */
} DeviceSeries;

typedef struct DeviceLanes_ {
    DeviceSeries s[DLANE_COUNT];
    int64_t log_device; /* the log's device paired with the trace's; -1 none */
    int64_t log_file;   /* the log file its samples come from (DeviceLanes_pick) */
} DeviceLanes;

/* The log's device that pairs with the trace's device gpu (the same index, or the log's only
 * device when the trace has one) and, of the logs that have it, the one with the most
 * aligned samples (a 100 ms --query-gpu log before a 1 s dmon log of the same GPU). Returns
 * 0 when none pairs. */
int DeviceLanes_pick(TraceDb* db, int64_t gpu, int64_t* file, int64_t* device);

/* The lanes of the trace's device gpu (-1: the format does not say). out is filled
 * (DeviceLanes_done frees it); a series without data has n = 0. Errors: DCU_ERR_SQL. */
DcuStatus DeviceLanes_read(TraceDb* db, int64_t gpu, DeviceLanes* out, DcuError* err);
void DeviceLanes_done(DeviceLanes* l);
/* Lanes with data. */
int DeviceLanes_count(const DeviceLanes* l);

/* 1e9 when every aligned sample of the log file has a whole-second time (nvidia-smi dmon, a
 * `date` loop): each was taken somewhere in the second after its time, so its lanes and the
 * health verdict put it half a second later and count the half second in their error;
 * else 0. */
int64_t DeviceLanes_timeQuantum(TraceDb* db, int64_t file);

/* The value of s over [a, b): the largest of its values there (the smallest with lowest:
 * clocks show their dips), where none starts inside, the one that holds at a. Returns 0 when
 * none holds. */
int DeviceSeries_at(const DeviceSeries* s, int64_t a, int64_t b, int lowest, double* v);

/* "SM clk", "Util", "Mem", "Alloc", "Resvd", "Power", "Temp", "Memclk" (6 cells at most). */
const char* DeviceLane_label(DeviceLaneKind k);
/* The column key, with its unit, of --view trace: sm_clock_mhz, util_pct, mem_used_bytes,
 * allocated_bytes, reserved_bytes, power_w, temp_c, mem_clock_mhz. */
const char* DeviceLane_key(DeviceLaneKind k);
/* A trace page (trace_query.h, with abs_start_ns; consumed) with one column more per lane
 * with data (DeviceLane_key): the value that holds at each op's start (the smallest clock in
 * the instant), rounded to a whole number; NULL where none holds. rs itself when no lane has
 * data. */
ResultSet* DeviceLanes_annotate(ResultSet* rs, const DeviceLanes* l);
/* 1 for a lane whose dips matter (clocks): it shows the smallest value of a column. */
int DeviceLane_lowest(DeviceLaneKind k);

#endif
