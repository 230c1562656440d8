/* health.h - is the device in a basically healthy state while the trace ran? The verdict
 * over a device-state log (table device_sample: nvidia-smi, rocm-smi, hy-smi, amd-smi samples
 * aligned to the trace's clock) and the trace itself, judged over the trace's busy time.
 *
 * Definitions (integer ns on the trace's own clock; one device of the trace paired with one
 * device of the log: the same index, or the only one of each; of several logs of it, the one
 * with the most samples, device_lane.h DeviceLanes_pick):
 *   span          the trace's recorded span on the device: its first timestamp (kernels,
 *                 copies, API calls of the files in use) to its last end. A sample whose
 *                 interval reaches into it is judged for the device's state (weighted by the
 *                 busy time in its interval: a trace shorter than the spacing has samples
 *                 only around it); another process only from samples inside it (outside, the
 *                 process ran untraced work).
 *   busy          the union of the device's kernels, memsets and copies in the trace.
 *   interval of a sample: from half-way to the previous sample to half-way to the next one
 *                 (at most HEALTH_HOLD intervals of the log's median spacing); the state a
 *                 sample reads holds over its interval.
 *   low clock     a sample whose SM/core clock is below HEALTH_CLOCK_FRAC of the device's own
 *                 maximum (the log's max clock column; else the highest clock it shows),
 *                 unless its only active reason is idle (power saving). Judged over the busy
 *                 time within the samples' intervals, so clocks that drop while idle do not
 *                 count.
 *   throttle      a sample with an active clock reason other than idle; its busy time.
 *   another process, per sample (either signal):
 *     utilisation  the log's utilisation exceeds, by HEALTH_UTIL_EXCESS points or more, the
 *                  trace's own busy share in every window one spacing long that ends within
 *                  HEALTH_UTIL_LAG_NS before the sample (NVML averages over up to 1 s and
 *                  reports late); windows reaching outside the span are unknown and explain
 *                  anything, so such samples are not judged;
 *     memory       memory used minus the trace's own reserved memory (mem_event's latest
 *                  total_reserved per process, the most of it within HEALTH_MEM_SLACK_NS of
 *                  the sample, or half a whole-second log's second; none: not judged)
 *                  exceeds its usual level (the lower quartile over the span's samples: a
 *                  level held through most of it, while the process's own buffers freed at
 *                  its end stay below it) by
 *                  HEALTH_MEM_EXCESS or 1% of the total, whichever is larger.
 *   window        consecutive flagged samples (one unflagged sample between two flagged ones
 *                 does not split it); its edges are half-way between the last sample without
 *                 the signal and the first with it (memory's edges where memory flags the
 *                 window: a reading of an instant; else utilisation's, which lag), the span's
 *                 edge when the window touches it; res_ns is half the local spacing.
 *   memory near full  memory used at least HEALTH_MEM_FULL_FRAC of the total in the span.
 *   power cap     busy time at HEALTH_POWER_FRAC of the log's power cap or more, or with a
 *                 power reason active (SW power cap, HW power brake).
 *   temperature   a thermal reason active during busy time, or HEALTH_TEMP_HOT_C or more. */
#ifndef DCUTOP_HEALTH_H
#define DCUTOP_HEALTH_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

#define HEALTH_CLOCK_FRAC 0.95
#define HEALTH_SHARE_MIN 0.05    /* share of busy time from which clock/throttle/power flag */
#define HEALTH_UTIL_EXCESS 25.0  /* percentage points */
#define HEALTH_UTIL_LAG_NS 1000000000LL
#define HEALTH_MEM_EXCESS (512LL << 20)
#define HEALTH_MEM_SLACK_NS 25000000LL /* a sample's time +- this for the trace's own memory */
#define HEALTH_MEM_FULL_FRAC 0.95
#define HEALTH_POWER_FRAC 0.97
#define HEALTH_TEMP_HOT_C 85.0
#define HEALTH_HOLD 3            /* a sample holds for at most this many median spacings */
#define HEALTH_MAX_WINDOWS 4

typedef enum {
    HEALTH_NO_LOG,    /* no device_sample rows */
    HEALTH_NO_TRACE,  /* a log, but no timed op in the trace to judge it against */
    HEALTH_UNALIGNED, /* a log whose samples have no time on the trace's clock */
    HEALTH_JUDGED     /* devices[] judged (some may be unpaired) */
} HealthState;

typedef struct HealthWindow_ {
    int64_t t0, t1;      /* ns, trace clock */
    int64_t res_ns;      /* each edge +- this (half the sample spacing there) */
    int samples;         /* flagged samples in it */
    int util_judged;     /* samples in it whose utilisation could be judged */
    int by_memory, by_util; /* which signals flag samples in it */
    double util_min, util_max; /* the log's utilisation over its flagged samples, % */
    double own_pct;      /* the trace's own busy share over [t0, t1), % */
    int64_t mem_excess;  /* the largest memory excess in it, bytes (0: none) */
} HealthWindow;

typedef struct HealthDevice_ {
    int64_t gpu;            /* the trace's device (dispatch.gpu, -1 unknown) */
    int paired;             /* a device of the log pairs with it */
    int64_t log_device;     /* that device_sample.device */
    int64_t log_file;       /* the log it is read from (DeviceLanes_pick: of several, the
                             * one with the most samples) */
    char name[96];          /* device_name of the log */
    char log[160];          /* the log's file name */
    int64_t file;           /* the trace's first kernel file on it */
    int64_t origin_ns;      /* TraceQuery_origin(file): the Trace screen's time zero */
    int has_wall;           /* wall_offset_ns known */
    int64_t wall_offset_ns; /* wall_ns - ts_ns of the samples (UTC ns since epoch) */
    int64_t span0, span1;   /* the span, ns */
    int samples;            /* samples judged (their interval reaches into the span) */
    int64_t spacing_ns;     /* median spacing of the log's samples */
    int64_t time_q_ns;      /* the log's times are whole seconds: 1e9 (each sample put half a
                             * second later, and that half second added to edges' error) */
    int64_t busy_ns;        /* busy time within the judged samples' intervals */
    /* clock */
    double max_clock;       /* MHz; 0: unknown */
    int max_seen;           /* 1: the highest clock seen, the log has no max column */
    int64_t low_busy_ns;
    double low_min, low_max; /* the low clocks' range, MHz */
    int64_t low_t0, low_t1;  /* first and last low sample's time */
    /* throttle */
    int64_t thr_busy_ns;
    char reasons[192];       /* the active reasons seen during busy time, ", "-joined */
    int64_t thr_t0, thr_t1;
    int64_t power_reason_ns, thermal_reason_ns; /* busy time with one of those active */
    /* another process */
    HealthWindow win[HEALTH_MAX_WINDOWS]; /* the longest first */
    int nwin;                /* windows (may exceed HEALTH_MAX_WINDOWS: the rest dropped) */
    int has_util;            /* the log has utilisation */
    int other_judged;        /* samples judged for another process (by either signal) */
    int has_mem_events;      /* the trace has memory events on this device */
    int64_t own_reserved;    /* the trace's own largest reserved memory, bytes */
    int below_own;           /* judged samples whose memory used is below the trace's own
                              * reserved memory: more than half of them says the log's device
                              * is not the one the trace ran on (Health_mismatch) */
    int with_own;            /* judged samples with both figures */
    /* memory */
    int64_t mem_used_max, mem_total; /* bytes; 0: not in the log */
    int64_t mem_max_t;
    /* power and temperature */
    double power_max, power_cap; /* W; 0: not in the log */
    int64_t power_cap_busy_ns;   /* busy time at HEALTH_POWER_FRAC of the cap or more */
    double temp_max;             /* C; 0: not in the log (a sample of 0 C is not read) */
    int64_t temp_max_t;
    int64_t hot_busy_ns;         /* busy time at HEALTH_TEMP_HOT_C or more */
} HealthDevice;

typedef struct Health_ {
    HealthState state;
    char log[160];       /* the first log's file name ("" none) */
    int64_t log_rows;    /* samples in the log(s) */
    char why[256];       /* HEALTH_UNALIGNED: the loader's reason (device_log.align), or "" */
    int whole_trace;     /* a region of interest is set: judged over the whole trace all the
                          * same (a window inside another process's load has no edge to see) */
    HealthDevice* dev;   /* owned */
    int ndev;
} Health;

/* The verdicts' flags of one device (each judged as the definitions above say). */
int Health_lowClock(const HealthDevice* d);
int Health_throttled(const HealthDevice* d);
int Health_powerCapped(const HealthDevice* d);
int Health_hot(const HealthDevice* d);
int Health_memoryFull(const HealthDevice* d);
/* The log's device used less memory than the trace alone reserved at most of its samples:
 * not the device the trace ran on (a renumbered device, CUDA_VISIBLE_DEVICES); no other
 * verdict is given for it. */
int Health_mismatch(const HealthDevice* d);

/* Judges the devices of the data in use. out is filled (Health_done frees it) whatever the
 * state; errors: DCU_ERR_SQL. */
DcuStatus Health_compute(TraceDb* db, Health* out, DcuError* err);
void Health_done(Health* h);

/* The clock reasons of a log's text, as names: the text itself, or a hex mask of nvidia-smi's
 * clocks_event_reasons decoded (0x4 -> "sw_power_cap"). Sets *idle_only when the only reason
 * is idle, *power / *thermal when a power or thermal reason is among them. "" when none. */
void Health_reasons(const char* raw, char* out, int cap, int* idle_only, int* power,
                    int* thermal);

/* The core over plain arrays, for tests and for Health_compute: busy intervals (merged, by
 * start) and samples (by time) of one paired device; fills the judged fields of d (span0,
 * span1, spacing, max_clock... left to the caller). */
typedef struct HealthSample_ {
    int64_t t;               /* ns, trace clock */
    double sm, max_sm, util; /* MHz, MHz, %; < 0: absent */
    int64_t used, total;     /* bytes; < 0 absent */
    double power, cap, temp; /* W, W, C; < 0 absent */
    int64_t own;             /* the trace's own reserved bytes then; < 0 unknown */
    char reasons[96];        /* Health_reasons' names */
    int idle_only, power_r, thermal_r;
} HealthSample;
void Health_judge(HealthDevice* d, const int64_t* bs, const int64_t* be, int64_t nb,
                  const HealthSample* s, int ns);

#endif
