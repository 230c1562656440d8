/* health.c - see health.h: reads the device-state log (device_sample), the trace's busy
 * intervals and its memory events (mem_event) per device; health_judge.c judges them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/device_lane.h"
#include "dcutop/health.h"
#include "dcutop/roi.h"
#include "dcutop/trace_query.h"
#include "dcutop/xalloc.h"

/* The timed ops of the files in use (kernels, memsets, copies: device activity), of the whole
 * trace: main's tables, not a region of interest's views (the device's health is about the
 * recording; the verdict says so when a region is set). */
#define HEALTH_OPS_SQL                                                                          \
    "SELECT d.file_id AS file, coalesce(d.gpu, -1) AS gpu, d.start_ns AS s, d.end_ns AS e"      \
    " FROM main.dispatch d WHERE d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"               \
    "  AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"                 \
    " UNION ALL SELECT c.file_id, coalesce(c.gpu, -1), c.start_ns, c.end_ns FROM main.copy c"   \
    " WHERE c.start_ns IS NOT NULL AND c.end_ns IS NOT NULL"                                    \
    "  AND c.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"

static int table_exists(TraceDb* db, const char* name) {
    sqlite3_stmt* st = NULL;
    int yes = 0;
    if (TraceDb_prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                        &st, NULL) == DCU_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        yes = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    return yes;
}

static DcuStatus sql_error(TraceDb* db, const char* what, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "health: %s: %s", what,
                     sqlite3_errmsg(TraceDb_handle(db)));
}

static double col_real(sqlite3_stmt* st, int c) {
    return sqlite3_column_type(st, c) == SQLITE_NULL ? -1 : sqlite3_column_double(st, c);
}

static int64_t col_i64(sqlite3_stmt* st, int c) {
    return sqlite3_column_type(st, c) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, c);
}

/* The device's busy intervals, merged, by start. */
static DcuStatus read_busy(TraceDb* db, int64_t gpu, int64_t** bs, int64_t** be, int64_t* nb,
                           DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT s, e FROM (" HEALTH_OPS_SQL ") WHERE gpu = ?1"
                                      " ORDER BY s", &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, gpu);
    int64_t n = 0, cap = 0, *a = NULL, *z = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t x = sqlite3_column_int64(st, 0), y = sqlite3_column_int64(st, 1);
        y = y < x ? x : y;
        if (n > 0 && x <= z[n - 1]) {
            z[n - 1] = y > z[n - 1] ? y : z[n - 1];
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            a = xrealloc(a, sizeof(int64_t) * (size_t)cap);
            z = xrealloc(z, sizeof(int64_t) * (size_t)cap);
        }
        a[n] = x;
        z[n++] = y;
    }
    if (rc != SQLITE_DONE) {
        s = sql_error(db, "busy intervals", err);
    }
    sqlite3_finalize(st);
    *bs = a;
    *be = z;
    *nb = n;
    return s;
}

/* The trace's own memory (reserved, else allocated) per sample: the latest value of each
 * process summed (before a process's first event, its first value), the most of it within
 * +-slack of the sample's time. */
typedef struct {
    int64_t t, pid, v;
} MemRow;

static DcuStatus own_memory(TraceDb* db, int64_t gpu, int64_t slack, HealthSample* s, int n,
                            int* has, DcuError* err) {
    *has = 0;
    if (!table_exists(db, "mem_event")) {
        return DCU_OK;
    }
    sqlite3_stmt* st = NULL;
    DcuStatus rs = TraceDb_prepare(
        db, "SELECT ts_ns, coalesce(pid, -1), coalesce(total_reserved, total_allocated)"
            " FROM mem_event WHERE device = ?1 AND device >= 0 AND ts_ns IS NOT NULL"
            "  AND coalesce(total_reserved, total_allocated) IS NOT NULL ORDER BY ts_ns, id",
        &st, err);
    if (rs != DCU_OK) {
        return rs;
    }
    sqlite3_bind_int64(st, 1, gpu);
    MemRow* m = NULL;
    int64_t k = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (k == cap) {
            cap = cap ? cap * 2 : 4096;
            m = xrealloc(m, sizeof(MemRow) * (size_t)cap);
        }
        m[k++] = (MemRow){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                          sqlite3_column_int64(st, 2)};
    }
    if (rc != SQLITE_DONE) {
        rs = sql_error(db, "memory events", err);
    }
    sqlite3_finalize(st);
    if (rs == DCU_OK && k > 0) {
        enum { PIDS = 64 };
        int64_t pid[PIDS], cur[PIDS];
        int np = 0;
        for (int64_t j = 0; j < k; j++) { /* each process's first value */
            int p = 0;
            while (p < np && pid[p] != m[j].pid) {
                p++;
            }
            if (p == np && np < PIDS) {
                pid[np] = m[j].pid;
                cur[np++] = m[j].v;
            }
        }
        /* the trace's own memory after each event: each process's latest value, summed */
        int64_t* after = xmalloc(sizeof(int64_t) * (size_t)k);
        int64_t sum0 = 0;
        for (int p = 0; p < np; p++) {
            sum0 += cur[p];
        }
        for (int64_t j = 0; j < k; j++) {
            int64_t sum = 0;
            for (int p = 0; p < np; p++) {
                cur[p] = pid[p] == m[j].pid ? m[j].v : cur[p];
                sum += cur[p];
            }
            after[j] = sum;
        }
        /* per sample, the most it held within +-slack of the sample's time: a sample read a
         * little before or after its timestamp must not turn the trace's own allocation or
         * free into memory of another process */
        int64_t j = 0;
        for (int i = 0; i < n; i++) {
            int64_t a = s[i].t - slack, z = s[i].t + slack;
            while (j < k && m[j].t <= a) {
                j++;
            }
            int64_t own = j > 0 ? after[j - 1] : sum0;
            for (int64_t e = j; e < k && m[e].t <= z; e++) {
                own = after[e] > own ? after[e] : own;
            }
            s[i].own = own;
        }
        free(after);
        *has = 1;
    }
    free(m);
    return rs;
}

/* The paired log device's samples by time (*out owned). */
static DcuStatus read_samples(TraceDb* db, HealthDevice* d, HealthSample** out, int* n,
                              DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT ts_ns, sm_clock_mhz, max_sm_clock_mhz, util_pct, mem_used_bytes,"
        " mem_total_bytes, power_w, power_cap_w, temp_c, throttle, device_name, wall_ns,"
        " (SELECT name FROM source_file f WHERE f.id = ds.file_id)"
        " FROM device_sample ds WHERE device = ?1 AND file_id = ?2 AND ts_ns IS NOT NULL"
        " ORDER BY ts_ns, id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, d->log_device);
    sqlite3_bind_int64(st, 2, d->log_file);
    HealthSample* a = NULL;
    int k = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (k == cap) {
            cap = cap ? cap * 2 : 1024;
            a = xrealloc(a, sizeof(HealthSample) * (size_t)cap);
        }
        HealthSample* x = &a[k++];
        memset(x, 0, sizeof(*x));
        x->t = sqlite3_column_int64(st, 0);
        x->sm = col_real(st, 1);
        x->max_sm = col_real(st, 2);
        x->util = col_real(st, 3);
        x->used = col_i64(st, 4);
        x->total = col_i64(st, 5);
        x->power = col_real(st, 6);
        x->cap = col_real(st, 7);
        x->temp = col_real(st, 8);
        x->own = -1;
        Health_reasons((const char*)sqlite3_column_text(st, 9), x->reasons,
                       (int)sizeof(x->reasons), &x->idle_only, &x->power_r, &x->thermal_r);
        if (!d->name[0] && sqlite3_column_text(st, 10)) {
            snprintf(d->name, sizeof(d->name), "%s", sqlite3_column_text(st, 10));
        }
        if (!d->has_wall && sqlite3_column_type(st, 11) != SQLITE_NULL) {
            d->has_wall = 1;
            d->wall_offset_ns = sqlite3_column_int64(st, 11) - x->t;
        }
        if (!d->log[0] && sqlite3_column_text(st, 12)) {
            snprintf(d->log, sizeof(d->log), "%s", sqlite3_column_text(st, 12));
        }
        if (x->max_sm > d->max_clock) {
            d->max_clock = x->max_sm;
        }
    }
    if (rc != SQLITE_DONE) {
        s = sql_error(db, "device samples", err);
    }
    sqlite3_finalize(st);
    d->time_q_ns = DeviceLanes_timeQuantum(db, d->log_file);
    for (int i = 0; d->time_q_ns > 0 && i < k; i++) {
        a[i].t += d->time_q_ns / 2;
    }
    *out = a;
    *n = k;
    return s;
}

static DcuStatus judge_device(TraceDb* db, HealthDevice* d, DcuError* err) {
    int64_t *bs = NULL, *be = NULL, nb = 0;
    HealthSample* s = NULL;
    int n = 0;
    DcuStatus st = read_busy(db, d->gpu, &bs, &be, &nb, err);
    if (st == DCU_OK) {
        st = read_samples(db, d, &s, &n, err);
    }
    if (st == DCU_OK) {
        int64_t slack = HEALTH_MEM_SLACK_NS > d->time_q_ns / 2 ? HEALTH_MEM_SLACK_NS
                                                               : d->time_q_ns / 2;
        st = own_memory(db, d->gpu, slack, s, n, &d->has_mem_events, err);
    }
    if (st == DCU_OK) {
        for (int i = 0; i < n && !d->has_util; i++) {
            d->has_util = s[i].util >= 0;
        }
        Health_judge(d, bs, be, nb, s, n);
    }
    free(bs);
    free(be);
    free(s);
    return st;
}

/* The trace's devices with their span, and each one's log device. */
static DcuStatus read_devices(TraceDb* db, Health* h, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "WITH o AS (" HEALTH_OPS_SQL "),"
        " api AS (SELECT min(start_ns) AS s, max(coalesce(end_ns, start_ns)) AS e"
        "  FROM main.api_call"
        "  WHERE start_ns IS NOT NULL"
        "   AND file_id IN (SELECT file_id FROM used_file WHERE layer = 'api'))"
        " SELECT o.gpu, min(o.file), min(min(o.s), coalesce((SELECT s FROM api), min(o.s))),"
        "  max(max(o.e), coalesce((SELECT e FROM api), max(o.e)))"
        " FROM o GROUP BY o.gpu ORDER BY o.gpu",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (h->ndev == cap) {
            cap = cap ? cap * 2 : 4;
            h->dev = xrealloc(h->dev, sizeof(HealthDevice) * (size_t)cap);
        }
        HealthDevice* d = &h->dev[h->ndev++];
        memset(d, 0, sizeof(*d));
        d->gpu = sqlite3_column_int64(st, 0);
        d->file = sqlite3_column_int64(st, 1);
        d->span0 = sqlite3_column_int64(st, 2);
        d->span1 = sqlite3_column_int64(st, 3);
    }
    if (rc != SQLITE_DONE) {
        s = sql_error(db, "devices", err);
    }
    sqlite3_finalize(st);
    for (int i = 0; s == DCU_OK && i < h->ndev; i++) {
        HealthDevice* d = &h->dev[i];
        d->paired = DeviceLanes_pick(db, d->gpu, &d->log_file, &d->log_device);
        d->log_device = d->paired ? d->log_device : -1;
    }
    return s;
}

DcuStatus Health_compute(TraceDb* db, Health* out, DcuError* err) {
    memset(out, 0, sizeof(*out));
    out->state = HEALTH_NO_LOG;
    if (!table_exists(db, "device_sample")) {
        return DCU_OK;
    }
    out->log_rows = TraceDb_scalarInt(db, "SELECT count(*) FROM device_sample");
    if (out->log_rows <= 0) {
        return DCU_OK;
    }
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT name FROM source_file WHERE id ="
                            " (SELECT min(file_id) FROM device_sample)", &st, NULL) == DCU_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            snprintf(out->log, sizeof(out->log), "%s", sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    if (TraceDb_scalarInt(db, "SELECT count(ts_ns) FROM device_sample") == 0) {
        out->state = HEALTH_UNALIGNED;
        if (table_exists(db, "device_log") &&
            TraceDb_prepare(db, "SELECT align FROM device_log WHERE file_id ="
                                " (SELECT min(file_id) FROM device_sample)", &st, NULL) == DCU_OK) {
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
                snprintf(out->why, sizeof(out->why), "%s", sqlite3_column_text(st, 0));
            }
            sqlite3_finalize(st);
        }
        return DCU_OK;
    }
    DcuStatus s = read_devices(db, out, err);
    if (s != DCU_OK) {
        return s;
    }
    if (out->ndev == 0) {
        out->state = HEALTH_NO_TRACE;
        return DCU_OK;
    }
    out->state = HEALTH_JUDGED;
    out->whole_trace = Roi_active(db, NULL);
    for (int i = 0; s == DCU_OK && i < out->ndev; i++) {
        HealthDevice* d = &out->dev[i];
        d->origin_ns = TraceQuery_origin(db, d->file);
        if (d->paired) {
            s = judge_device(db, d, err);
        }
    }
    if (out->ndev > 0 && out->dev[0].log[0]) { /* the log judged, of several */
        snprintf(out->log, sizeof(out->log), "%s", out->dev[0].log);
    }
    return s;
}

void Health_done(Health* h) {
    free(h->dev);
    memset(h, 0, sizeof(*h));
}
