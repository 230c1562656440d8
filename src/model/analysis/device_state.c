/* device_state.c - the device-state samples and their summary per log and device
 * (device_state.h). */
#include "dcutop/device_state.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

static const char scope_sql[] =
    " FROM device_sample d JOIN source_file sf ON sf.id = d.file_id"
    " LEFT JOIN device_log l ON l.file_id = d.file_id"
    " WHERE sf.run_id IS NULL OR sf.run_id IN (SELECT run_id FROM run_scope)";

enum { S_ID, S_FILE, S_LINE, S_DEV, S_NAME, S_WALL, S_TS, S_SM, S_MEMCLK, S_MAXSM, S_UTIL,
       S_MEMUTIL, S_USED, S_TOTAL, S_POWER, S_CAP, S_TEMP, S_THR, S_DRIVER, S_COUNT };

static const RsColumn sample_cols[S_COUNT] = {
    [S_ID] = {"id", "Id", CT_INT},
    [S_FILE] = {"file_id", "File", CT_INT},
    [S_LINE] = {"line", "Line", CT_INT},
    [S_DEV] = {"device", "Device", CT_INT},
    [S_NAME] = {"device_name", "Name", CT_TEXT},
    [S_WALL] = {"wall_ns", "Wall ns", CT_INT},
    [S_TS] = {"ts_ns", "Trace ns", CT_INT},
    [S_SM] = {"sm_clock_mhz", "SM MHz", CT_REAL},
    [S_MEMCLK] = {"mem_clock_mhz", "Mem MHz", CT_REAL},
    [S_MAXSM] = {"max_sm_clock_mhz", "Max SM MHz", CT_REAL},
    [S_UTIL] = {"util_pct", "Util", CT_PCT},
    [S_MEMUTIL] = {"mem_util_pct", "Mem util", CT_PCT},
    [S_USED] = {"mem_used_bytes", "Mem used", CT_BYTES},
    [S_TOTAL] = {"mem_total_bytes", "Mem total", CT_BYTES},
    [S_POWER] = {"power_w", "Power W", CT_REAL},
    [S_CAP] = {"power_cap_w", "Cap W", CT_REAL},
    [S_TEMP] = {"temp_c", "Temp C", CT_REAL},
    [S_THR] = {"throttle", "Throttle", CT_TEXT},
    [S_DRIVER] = {"driver", "Driver", CT_TEXT},
};

static DcuStatus step_error(TraceDb* db, const char* what, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "%s: %s", what, sqlite3_errmsg(TraceDb_handle(db)));
}

DcuStatus DeviceState_samples(TraceDb* db, ResultSet** out, DcuError* err) {
    *out = NULL;
    char* sql = xasprintf("SELECT d.id, d.file_id, d.line, d.device, d.device_name, d.wall_ns,"
                          " d.ts_ns, d.sm_clock_mhz, d.mem_clock_mhz, d.max_sm_clock_mhz,"
                          " d.util_pct, d.mem_util_pct, d.mem_used_bytes, d.mem_total_bytes,"
                          " d.power_w, d.power_cap_w, d.temp_c, d.throttle, d.driver%s"
                          " ORDER BY d.id", scope_sql);
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    free(sql);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("device-state", sample_cols, S_COUNT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = 0; c < S_COUNT; c++) {
            if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                continue;
            }
            ColType t = sample_cols[c].type;
            if (t == CT_TEXT) {
                ResultSet_setText(rs, r, c, (const char*)sqlite3_column_text(st, c));
            } else if (t == CT_REAL || t == CT_PCT) {
                ResultSet_setReal(rs, r, c, sqlite3_column_double(st, c));
            } else {
                ResultSet_setInt(rs, r, c, sqlite3_column_int64(st, c));
            }
        }
    }
    if (rc != SQLITE_DONE) {
        s = step_error(db, "device_sample", err);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

/* ---- the summary --------------------------------------------------------------------- */

enum { M_FILE, M_TOOL, M_DEV, M_NAME, M_SAMPLES, M_SPAN, M_SMMIN, M_SMMED, M_SMMAX, M_MAXSM,
       M_BELOW, M_MEMCLK, M_UTILAVG, M_UTILMAX, M_MEMUTIL, M_USED, M_TOTAL, M_POWAVG,
       M_POWMAX, M_CAP, M_TEMP, M_THR, M_CLOCK, M_ALIGN, M_COUNT };

static const RsColumn sum_cols[M_COUNT] = {
    [M_FILE] = {"file", "File", CT_TEXT},
    [M_TOOL] = {"tool", "Tool", CT_TEXT},
    [M_DEV] = {"device", "Dev", CT_INT},
    [M_NAME] = {"name", "Name", CT_TEXT},
    [M_SAMPLES] = {"samples", "Samples", CT_INT},
    [M_SPAN] = {"span_s", "Span s", CT_REAL},
    [M_SMMIN] = {"sm_min_mhz", "SM min", CT_REAL},
    [M_SMMED] = {"sm_median_mhz", "SM med", CT_REAL},
    [M_SMMAX] = {"sm_max_mhz", "SM max", CT_REAL},
    [M_MAXSM] = {"max_sm_mhz", "Max clk", CT_REAL},
    [M_BELOW] = {"below_max_pct", "<Max%", CT_PCT},
    [M_MEMCLK] = {"mem_clock_median_mhz", "Mem clk", CT_REAL},
    [M_UTILAVG] = {"util_mean_pct", "Util%", CT_PCT},
    [M_UTILMAX] = {"util_max_pct", "Util max", CT_PCT},
    [M_MEMUTIL] = {"mem_util_mean_pct", "Mem util", CT_PCT},
    [M_USED] = {"mem_used_max_bytes", "Mem used", CT_BYTES},
    [M_TOTAL] = {"mem_total_bytes", "Mem total", CT_BYTES},
    [M_POWAVG] = {"power_mean_w", "Power mean", CT_REAL},
    [M_POWMAX] = {"power_max_w", "Power W", CT_REAL},
    [M_CAP] = {"power_cap_w", "Cap W", CT_REAL},
    [M_TEMP] = {"temp_max_c", "Temp C", CT_REAL},
    [M_THR] = {"throttle", "Throttle", CT_TEXT},
    [M_CLOCK] = {"clock", "Times", CT_TEXT},
    [M_ALIGN] = {"align", "Alignment", CT_TEXT},
};

typedef struct Vals_ {
    double* v;
    int n, cap;
} Vals;

static void vals_add(Vals* a, double x) {
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = xrealloc(a->v, sizeof(double) * (size_t)a->cap);
    }
    a->v[a->n++] = x;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double vals_median(Vals* a) {
    if (a->n == 0) {
        return NAN;
    }
    qsort(a->v, (size_t)a->n, sizeof(double), cmp_double);
    return a->n % 2 ? a->v[a->n / 2] : (a->v[a->n / 2 - 1] + a->v[a->n / 2]) / 2;
}

/* Sums and extremes of one column (NaN: nothing seen). */
typedef struct Agg_ {
    double sum, min, max;
    int n;
} Agg;

static void agg_add(Agg* a, double x) {
    if (a->n == 0 || x < a->min) {
        a->min = x;
    }
    if (a->n == 0 || x > a->max) {
        a->max = x;
    }
    a->sum += x;
    a->n++;
}

/* The reasons of one group with their sample counts. */
typedef struct Reasons_ {
    char name[16][48];
    int count[16];
    int n;
} Reasons;

static void reasons_add(Reasons* r, const char* list) {
    while (list && *list) {
        size_t l = strcspn(list, ",");
        if (l > 0 && l < 48) {
            int k = 0;
            while (k < r->n && (strlen(r->name[k]) != l || strncmp(r->name[k], list, l) != 0)) {
                k++;
            }
            if (k == r->n && r->n < 16) {
                snprintf(r->name[k], sizeof(r->name[k]), "%.*s", (int)l, list);
                r->count[k] = 0;
                r->n++;
            }
            if (k < r->n) {
                r->count[k]++;
            }
        }
        list += l + (list[l] == ',');
    }
}

typedef struct Group_ {
    int64_t file, device;
    int samples;
    Vals sm, memclk;
    Agg util, memutil, used, total, power, cap, temp, maxsm, wall;
    Reasons thr;
    int thr_said;
} Group;

static void set_real(ResultSet* rs, int r, int c, double v) {
    if (!isnan(v)) {
        ResultSet_setReal(rs, r, c, v);
    }
}

static void emit(ResultSet* rs, Group* g, sqlite3_stmt* meta) {
    int r = ResultSet_addRow(rs);
    sqlite3_bind_int64(meta, 1, g->file);
    sqlite3_bind_int64(meta, 2, g->device);
    if (sqlite3_step(meta) == SQLITE_ROW) {
        static const int texts[][2] = {{0, M_FILE}, {1, M_TOOL}, {2, M_NAME}, {3, M_CLOCK},
                                       {4, M_ALIGN}};
        for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
            const unsigned char* t = sqlite3_column_text(meta, texts[k][0]);
            if (t) {
                ResultSet_setText(rs, r, texts[k][1], (const char*)t);
            }
        }
    }
    sqlite3_reset(meta);
    if (g->device != INT64_MIN) {
        ResultSet_setInt(rs, r, M_DEV, g->device);
    }
    ResultSet_setInt(rs, r, M_SAMPLES, g->samples);
    if (g->wall.n > 0) {
        ResultSet_setReal(rs, r, M_SPAN, (g->wall.max - g->wall.min) / 1e9);
    }
    double maxref = g->maxsm.n ? g->maxsm.max : NAN;
    if (g->sm.n > 0) {
        int below = 0;
        double top = isnan(maxref) ? -INFINITY : maxref;
        for (int i = 0; i < g->sm.n; i++) {
            top = isnan(maxref) && g->sm.v[i] > top ? g->sm.v[i] : top;
        }
        for (int i = 0; i < g->sm.n; i++) {
            below += g->sm.v[i] < top;
        }
        ResultSet_setReal(rs, r, M_BELOW, 100.0 * below / g->sm.n);
        double med = vals_median(&g->sm);
        ResultSet_setReal(rs, r, M_SMMIN, g->sm.v[0]);
        ResultSet_setReal(rs, r, M_SMMED, med);
        ResultSet_setReal(rs, r, M_SMMAX, g->sm.v[g->sm.n - 1]);
    }
    set_real(rs, r, M_MAXSM, maxref);
    set_real(rs, r, M_MEMCLK, vals_median(&g->memclk));
    if (g->util.n) {
        ResultSet_setReal(rs, r, M_UTILAVG, g->util.sum / g->util.n);
        ResultSet_setReal(rs, r, M_UTILMAX, g->util.max);
    }
    if (g->memutil.n) {
        ResultSet_setReal(rs, r, M_MEMUTIL, g->memutil.sum / g->memutil.n);
    }
    if (g->used.n) {
        ResultSet_setInt(rs, r, M_USED, (int64_t)g->used.max);
    }
    if (g->total.n) {
        ResultSet_setInt(rs, r, M_TOTAL, (int64_t)g->total.max);
    }
    if (g->power.n) {
        ResultSet_setReal(rs, r, M_POWAVG, g->power.sum / g->power.n);
        ResultSet_setReal(rs, r, M_POWMAX, g->power.max);
    }
    if (g->cap.n) {
        ResultSet_setReal(rs, r, M_CAP, g->cap.max);
    }
    if (g->temp.n) {
        ResultSet_setReal(rs, r, M_TEMP, g->temp.max);
    }
    if (g->thr_said) {
        char buf[1024] = "";
        size_t used = 0;
        for (int k = 0; k < g->thr.n && used < sizeof(buf); k++) {
            used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s (%d)", k ? ", " : "",
                                     g->thr.name[k], g->thr.count[k]);
        }
        ResultSet_setText(rs, r, M_THR, g->thr.n ? buf : "none");
    }
}

static void col_add(sqlite3_stmt* st, int c, Agg* a) {
    if (sqlite3_column_type(st, c) != SQLITE_NULL) {
        agg_add(a, sqlite3_column_double(st, c));
    }
}

DcuStatus DeviceState_summary(TraceDb* db, ResultSet** out, DcuError* err) {
    *out = NULL;
    char* sql = xasprintf("SELECT d.file_id, coalesce(d.device, -9223372036854775807 - 1),"
                          " d.sm_clock_mhz, d.mem_clock_mhz, d.max_sm_clock_mhz, d.util_pct,"
                          " d.mem_util_pct, d.mem_used_bytes, d.mem_total_bytes, d.power_w,"
                          " d.power_cap_w, d.temp_c, d.throttle, d.wall_ns%s"
                          " ORDER BY d.file_id, d.device, d.id", scope_sql);
    sqlite3_stmt *st = NULL, *meta = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    free(sql);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT sf.name, l.tool, (SELECT device_name FROM device_sample"
                            " x WHERE x.file_id = sf.id AND x.device IS ?2 AND x.device_name IS"
                            " NOT NULL LIMIT 1), l.clock, l.align FROM source_file sf LEFT JOIN"
                            " device_log l ON l.file_id = sf.id WHERE sf.id = ?1", &meta, err);
    }
    if (s != DCU_OK) {
        sqlite3_finalize(st);
        return s;
    }
    ResultSet* rs = ResultSet_new("device", sum_cols, M_COUNT);
    Group g;
    memset(&g, 0, sizeof(g));
    int have = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t file = sqlite3_column_int64(st, 0), dev = sqlite3_column_int64(st, 1);
        if (have && (file != g.file || dev != g.device)) {
            emit(rs, &g, meta);
            free(g.sm.v);
            free(g.memclk.v);
            memset(&g, 0, sizeof(g));
        }
        have = 1;
        g.file = file;
        g.device = dev;
        g.samples++;
        if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
            vals_add(&g.sm, sqlite3_column_double(st, 2));
        }
        if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
            vals_add(&g.memclk, sqlite3_column_double(st, 3));
        }
        col_add(st, 4, &g.maxsm);
        col_add(st, 5, &g.util);
        col_add(st, 6, &g.memutil);
        col_add(st, 7, &g.used);
        col_add(st, 8, &g.total);
        col_add(st, 9, &g.power);
        col_add(st, 10, &g.cap);
        col_add(st, 11, &g.temp);
        if (sqlite3_column_type(st, 12) != SQLITE_NULL) {
            g.thr_said = 1;
            reasons_add(&g.thr, (const char*)sqlite3_column_text(st, 12));
        }
        col_add(st, 13, &g.wall);
    }
    if (have) {
        emit(rs, &g, meta);
    }
    free(g.sm.v);
    free(g.memclk.v);
    if (rc != SQLITE_DONE) {
        s = step_error(db, "device_sample", err);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(meta);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
