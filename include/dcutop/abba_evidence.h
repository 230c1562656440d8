/* abba_evidence.h - what an A-B-B-A checks beside time: memory, numerics and the environment
 * each run was taken in (the closing test: "checking run time, memory use and numerical
 * correctness together"). No curses; the SQL is in AbbaFacts_fromDb.
 *
 *  - Memory: each run's peak allocated and reserved device bytes (PyTorch's [memory] events,
 *    table mem_event; else rocpd allocations, mem_alloc) judged as a time layer is: effect =
 *    mean(B) - mean(A), noise = max(|A2 - A1|, |B2 - B1|), trusted when |effect| > noise. A
 *    noise of exactly 0 is allowed here (a caching allocator repeats itself to the byte).
 *  - Numerics: each metric of run_metric (metrics.csv / metrics.json) across the four runs.
 *    With a tolerance: |mean(B) - mean(A)| beyond it rejects B, whatever time says, and either
 *    way: a numerics check asks for the same result, and `better` only names the direction
 *    in words. Without one: the change is judged against the metric's own repeat noise and
 *    reported (a warning when beyond it in the worse direction, or in any direction when
 *    `better` is not given), never a rejection.
 *  - Environment: device names, software versions (Kineto's *_version members, rocprof-compute's
 *    ROCm, the device log's driver) and the SM clock of each run (device_sample). Runs whose
 *    names or versions differ, or whose median clocks differ beyond the runs' own clock noise,
 *    make every time and memory verdict untrusted. */
#ifndef DCUTOP_ABBA_EVIDENCE_H
#define DCUTOP_ABBA_EVIDENCE_H

#include <stdint.h>

#include "dcutop/diff.h"
#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* One metric of one run. */
typedef struct AbbaMetricVal_ {
    char* name;       /* owned */
    double value;
    double tolerance; /* absolute; NAN: none given */
    int better;       /* +1 higher is better, -1 lower, 0 not said */
} AbbaMetricVal;

/* One run as the evidence sees it (the database's current scope). */
typedef struct AbbaRunFacts_ {
    double peak_alloc, peak_reserved; /* bytes; NAN unknown */
    const char* mem_source;           /* static: where the peaks come from; NULL none */
    char* device;     /* distinct device names, sorted, ", "-joined (owned; NULL unknown) */
    char* software;   /* versions "key value, ..." sorted (owned; NULL unknown) */
    char* driver;     /* the device log's driver(s) (owned; NULL unknown) */
    double clock_mhz; /* median SM clock of the samples used, MHz; NAN: no device log */
    double clock_p10, clock_p90;
    double clock_max; /* the log's max SM clock (clocks.max.sm), NAN unknown */
    int clock_n;      /* samples used */
    int clock_in_span; /* samples used: 2 inside the trace's span; 1 the log's busy samples
                        * (none inside); 0 the whole log (none busy) */
    char* throttle;   /* throttle reasons the samples used name (owned; NULL none) */
    AbbaMetricVal* metrics; /* owned */
    int nmetrics;
    int metric_dups;  /* metric names given twice in the run (metrics.csv and .json) */
} AbbaRunFacts;

/* Reads the facts of the runs in db's scope. *out is filled (AbbaFacts_done frees it). */
DcuStatus AbbaFacts_fromDb(TraceDb* db, AbbaRunFacts* out, DcuError* err);
void AbbaFacts_done(AbbaRunFacts* f);

typedef enum {
    METRIC_SAME,         /* equal in all four runs */
    METRIC_WITHIN_TOL,   /* changed, within its tolerance */
    METRIC_REJECT,       /* beyond its tolerance, either way: B rejected */
    METRIC_WITHIN_NOISE, /* no tolerance: |effect| <= the metric's own repeat noise */
    METRIC_BEYOND_NOISE, /* no tolerance: |effect| > its noise: reported, a warning */
    METRIC_MISSING       /* not in every run: not judged */
} MetricState;

typedef struct AbbaMetric_ {
    char* name;       /* owned */
    double v[4];      /* A1 B1 B2 A2; NAN where a run lacks it */
    double tolerance; /* NAN none (the smallest any run gives) */
    int better;
    double effect, drift, repeats, noise;
    MetricState state;
} AbbaMetric;

typedef struct AbbaEvidence_ {
    AbbaRow mem[2];   /* peak allocated, peak reserved: v in bytes (names static) */
    int nmem;         /* 0..2: those every run has */
    const char* mem_source;
    AbbaMetric* metrics; /* owned, by name */
    int nmetrics;
    int rejected;     /* a metric beyond its tolerance */
    char reject[512]; /* "metric final_loss changed by +0.4 (+5%), beyond its tolerance 0.01" */
    int metric_warn;  /* a metric without tolerance changed beyond its noise */
    char warn[512];
    int env_differs;  /* the environment differs between runs: time and memory untrusted */
    char env[1024];   /* why, "; "-separated */
    char facts[4][512]; /* per run: device, software, driver, clock */
    AbbaRunFacts runs[4]; /* the facts judged (owned) */
    char notes[512];  /* what could not be judged, one a line */
} AbbaEvidence;

/* Judges the four runs' facts (A1 B1 B2 A2), taking them over (each is emptied). Owned by the
 * caller (AbbaEvidence_delete); Abba_setEvidence hands it to an Abba. */
AbbaEvidence* AbbaEvidence_judge(AbbaRunFacts facts[4]);
void AbbaEvidence_delete(AbbaEvidence* this);
/* "memory" rows as Abba_table's (name, layer, a1..a2 in MiB, ..., verdict) and "metrics"
 * (name, a1, b1, b2, a2, effect, drift, repeats, noise, tolerance, better, verdict);
 * "environment" (run, device, software, driver, clock_mhz, clock_max_mhz, samples). */
ResultSet* AbbaEvidence_memoryTable(const AbbaEvidence* e);
ResultSet* AbbaEvidence_metricTable(const AbbaEvidence* e);
ResultSet* AbbaEvidence_envTable(const AbbaEvidence* e);
/* What a metric row says, e.g. "changed by +0.41 (+5.1%), beyond its tolerance 0.01: reject". */
const char* AbbaMetric_says(const AbbaMetric* m, char* buf, size_t n);
/* What a memory row says, e.g. "B lower by 8 MiB (-0.97%), beyond its noise 0 B: trusted". */
const char* AbbaMemory_says(const AbbaRow* r, char* buf, size_t n);

#endif
