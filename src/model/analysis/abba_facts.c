/* abba_facts.c - one run's memory peaks, metrics and environment, read from its database for
 * the A-B-B-A's evidence (abba_evidence.h). Tables other loaders fill (mem_event: PyTorch's
 * memory events; device_sample: a device-state log) are read only where the schema has them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/abba_evidence.h"
#include "dcutop/xalloc.h"

#define IN_SCOPE " JOIN source_file f ON f.id = x.file_id WHERE f.run_id IN (SELECT run_id" \
                 " FROM run_scope)"

static int has_table(TraceDb* db, const char* name) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view')"
                        " AND name = ?1", &st, NULL) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/* The text of a one-row, one-column query; NULL when NULL, empty or no row. Owned. */
static char* text_of(TraceDb* db, const char* sql, DcuError* err, DcuStatus* s) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if ((*s = TraceDb_prepare(db, sql, &st, err)) != DCU_OK) {
        return NULL;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        const char* t = (const char*)sqlite3_column_text(st, 0);
        out = t && *t ? xstrdup(t) : NULL;
    }
    sqlite3_finalize(st);
    return out;
}

static DcuStatus peaks(TraceDb* db, AbbaRunFacts* o, DcuError* err) {
    const char* sql = NULL;
    if (has_table(db, "mem_event") &&
        TraceDb_scalarInt(db, "SELECT count(*) FROM mem_event x" IN_SCOPE
                              " AND x.device >= 0 AND x.total_allocated IS NOT NULL") > 0) {
        /* total_allocated is per device: its largest value is the largest device's peak */
        sql = "SELECT max(x.total_allocated), max(x.total_reserved) FROM mem_event x" IN_SCOPE
              " AND x.device >= 0";
        o->mem_source = "memory events (PyTorch [memory], rocpd allocations)";
    } else if (TraceDb_scalarInt(db, "SELECT count(*) FROM mem_alloc x" IN_SCOPE) > 0) {
        sql = "SELECT max(x.live_bytes), NULL FROM mem_alloc x" IN_SCOPE
              " AND coalesce(x.level, '') NOT IN ('VIRTUAL', 'SCRATCH')";
        o->mem_source = "rocpd allocations";
    }
    if (!sql) {
        return DCU_OK;
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < 2; c++) {
            double v = sqlite3_column_type(st, c) == SQLITE_NULL ? NAN
                                                                 : sqlite3_column_double(st, c);
            *(c ? &o->peak_reserved : &o->peak_alloc) = v;
        }
    }
    sqlite3_finalize(st);
    return s;
}

static DcuStatus metrics(TraceDb* db, AbbaRunFacts* o, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT x.name, x.value, x.tolerance, x.better"
                                  " FROM run_metric x" IN_SCOPE " ORDER BY x.name, f.id, x.line",
                                  &st, err);
    int cap = 0;
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        const char* name = (const char*)sqlite3_column_text(st, 0);
        if (o->nmetrics > 0 && strcmp(o->metrics[o->nmetrics - 1].name, name) == 0) {
            o->metric_dups++; /* the first file's value counts; a note says so */
            continue;
        }
        if (o->nmetrics == cap) {
            cap = cap ? cap * 2 : 8;
            o->metrics = xrealloc(o->metrics, sizeof(AbbaMetricVal) * (size_t)cap);
        }
        AbbaMetricVal* m = &o->metrics[o->nmetrics++];
        m->name = xstrdup(name);
        m->value = sqlite3_column_double(st, 1);
        m->tolerance = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN
                                                                 : sqlite3_column_double(st, 2);
        const char* b = (const char*)sqlite3_column_text(st, 3);
        m->better = !b ? 0 : strcmp(b, "higher") == 0 ? 1 : strcmp(b, "lower") == 0 ? -1 : 0;
    }
    sqlite3_finalize(st);
    return s;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted v[0..n) */
static double pct(const double* v, int n, double p) {
    int i = (int)ceil(p / 100.0 * n) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* Fewer samples than this inside the trace's span (a short trace, a 100 ms log) say too
 * little of its clock: the log's busy samples are used instead. */
#define CLOCK_MIN_IN_SPAN 3

/* The SM clock of the device log, judged over busy time (an idle GPU drops its clock to a
 * few hundred MHz, which says nothing of the run): the samples inside the trace's span (first
 * kernel start to last kernel end, on the trace's clock) when the log is aligned and has a
 * few there; else the log's busy samples (utilisation above 0, no idle reason); else the whole
 * log (a log that never met the trace still says the clocks the machine ran at). */
static DcuStatus clocks(TraceDb* db, AbbaRunFacts* o, DcuError* err) {
    static const char* const sql[3] = {
        "SELECT x.sm_clock_mhz, x.throttle FROM device_sample x" IN_SCOPE " AND x.sm_clock_mhz IS NOT NULL"
        " AND x.ts_ns BETWEEN (SELECT min(start_ns) FROM dispatch WHERE file_id IN (SELECT"
        "  file_id FROM used_file WHERE layer = 'kernel')) AND (SELECT max(end_ns) FROM"
        "  dispatch WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel'))",
        "SELECT x.sm_clock_mhz, x.throttle FROM device_sample x" IN_SCOPE " AND x.sm_clock_mhz IS NOT NULL"
        " AND x.util_pct > 0 AND coalesce(x.throttle, '') NOT LIKE '%idle%'",
        "SELECT x.sm_clock_mhz, x.throttle FROM device_sample x" IN_SCOPE " AND x.sm_clock_mhz IS NOT NULL"};
    DcuStatus s = DCU_OK;
    for (int k = 0; k < 3 && s == DCU_OK && o->clock_n == 0; k++) {
        sqlite3_stmt* st = NULL;
        if ((s = TraceDb_prepare(db, sql[k], &st, err)) != DCU_OK) {
            break;
        }
        double* v = NULL;
        int n = 0, cap = 0;
        char seen[256] = ""; /* the throttle reasons of these samples, ", "-joined */
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                v = xrealloc(v, sizeof(double) * (size_t)cap);
            }
            v[n++] = sqlite3_column_double(st, 0);
            const char* t = (const char*)sqlite3_column_text(st, 1);
            size_t l = strlen(seen);
            if (t && *t && !strstr(seen, t) && l + strlen(t) + 3 < sizeof(seen)) {
                snprintf(seen + l, sizeof(seen) - l, "%s%s", l ? ", " : "", t);
            }
        }
        if (n > 0 && seen[0]) {
            o->throttle = xstrdup(seen);
        }
        sqlite3_finalize(st);
        if (n > 0 && (k > 0 || n >= CLOCK_MIN_IN_SPAN)) {
            qsort(v, (size_t)n, sizeof(double), cmp_double);
            o->clock_mhz = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            o->clock_p10 = pct(v, n, 10);
            o->clock_p90 = pct(v, n, 90);
            o->clock_n = n;
            o->clock_in_span = 2 - k;
        }
        free(v);
    }
    if (s == DCU_OK) {
        o->clock_max = TraceDb_scalarReal(db, "SELECT coalesce(max(x.max_sm_clock_mhz), -1)"
                                              " FROM device_sample x" IN_SCOPE);
        if (o->clock_max <= 0) {
            o->clock_max = NAN;
        }
    }
    return s;
}

DcuStatus AbbaFacts_fromDb(TraceDb* db, AbbaRunFacts* o, DcuError* err) {
    memset(o, 0, sizeof(*o));
    o->peak_alloc = o->peak_reserved = o->clock_mhz = o->clock_max = NAN;
    DcuStatus s = peaks(db, o, err);
    if (s == DCU_OK) {
        s = metrics(db, o, err);
    }
    int log = has_table(db, "device_sample");
    /* the device: as the trace names its GPUs (Kineto deviceProperties, rocpd agents,
     * rocprof-compute's model), and as the device log does */
    if (s == DCU_OK) {
        o->device = text_of(db, log ?
            "SELECT group_concat(n, ', ') FROM (SELECT DISTINCT n FROM ("
            " SELECT coalesce(nullif(x.product_name, ''), x.name) AS n FROM agent x" IN_SCOPE
            " AND x.type = 'GPU' UNION SELECT x.model FROM device_info x" IN_SCOPE
            " UNION SELECT x.device_name FROM device_sample x" IN_SCOPE ")"
            " WHERE n IS NOT NULL AND n <> '' ORDER BY n)" :
            "SELECT group_concat(n, ', ') FROM (SELECT DISTINCT n FROM ("
            " SELECT coalesce(nullif(x.product_name, ''), x.name) AS n FROM agent x" IN_SCOPE
            " AND x.type = 'GPU' UNION SELECT x.model FROM device_info x" IN_SCOPE ")"
            " WHERE n IS NOT NULL AND n <> '' ORDER BY n)", err, &s);
    }
    if (s == DCU_OK) {
        o->software = text_of(db,
            "SELECT group_concat(kv, ', ') FROM (SELECT DISTINCT kv FROM ("
            " SELECT x.key || ' ' || x.value AS kv FROM trace_meta x" IN_SCOPE
            " UNION SELECT 'ROCm ' || x.rocm FROM device_info x" IN_SCOPE
            "  AND coalesce(x.rocm, '') <> '') ORDER BY kv)", err, &s);
    }
    if (s == DCU_OK && log) {
        o->driver = text_of(db, "SELECT group_concat(d, ', ') FROM (SELECT DISTINCT x.driver"
                            " AS d FROM device_sample x" IN_SCOPE " AND coalesce(x.driver, '')"
                            " <> '' ORDER BY d)", err, &s);
        if (s == DCU_OK) {
            s = clocks(db, o, err);
        }
    }
    return s;
}

void AbbaFacts_done(AbbaRunFacts* f) {
    free(f->device);
    free(f->software);
    free(f->driver);
    free(f->throttle);
    for (int i = 0; i < f->nmetrics; i++) {
        free(f->metrics[i].name);
    }
    free(f->metrics);
    memset(f, 0, sizeof(*f));
}
