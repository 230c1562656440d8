/* device_lane.c - see device_lane.h. */
#include "dcutop/device_lane.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

static const struct {
    const char* label;
    const char* key;
    const char* title; /* --view trace's column */
    int col; /* its column in read_samples' SELECT; 0: from mem_event */
    int lowest;
    ColType type;
} lanes[DLANE_COUNT] = {
    {"SM clk", "sm_clock_mhz", "SM MHz", 1, 1, CT_INT},
    {"Util", "util_pct", "Util%", 3, 0, CT_INT},
    {"Mem", "mem_used_bytes", "Mem used", 4, 0, CT_BYTES},
    {"Alloc", "allocated_bytes", "Allocated", 0, 0, CT_BYTES},
    {"Resvd", "reserved_bytes", "Reserved", 0, 0, CT_BYTES},
    {"Power", "power_w", "Power W", 5, 0, CT_INT},
    {"Temp", "temp_c", "Temp C", 6, 0, CT_INT},
    {"Memclk", "mem_clock_mhz", "Mem MHz", 2, 1, CT_INT},
};

const char* DeviceLane_label(DeviceLaneKind k) {
    return k < DLANE_COUNT ? lanes[k].label : "";
}

const char* DeviceLane_key(DeviceLaneKind k) {
    return k < DLANE_COUNT ? lanes[k].key : "";
}

int DeviceLane_lowest(DeviceLaneKind k) {
    return k < DLANE_COUNT && lanes[k].lowest;
}

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

static void push(DeviceSeries* s, int64_t* cap, int64_t t, double v) {
    if (s->n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        s->t = xrealloc(s->t, sizeof(int64_t) * (size_t)*cap);
        s->v = xrealloc(s->v, sizeof(double) * (size_t)*cap);
    }
    s->t[s->n] = t;
    s->v[s->n++] = v;
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

int DeviceLanes_pick(TraceDb* db, int64_t gpu, int64_t* file, int64_t* device) {
    sqlite3_stmt* st = NULL;
    int64_t found = -1, only = -1;
    int n = 0;
    if (!table_exists(db, "device_sample") ||
        TraceDb_prepare(db, "SELECT DISTINCT device FROM device_sample WHERE ts_ns IS NOT NULL"
                            " AND device IS NOT NULL", &st, NULL) != DCU_OK) {
        return 0;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t d = sqlite3_column_int64(st, 0);
        found = d == gpu ? d : found;
        only = d;
        n++;
    }
    sqlite3_finalize(st);
    if (found < 0 && n == 1) {
        /* one device in the log: it pairs with the trace's only device */
        int64_t gpus = TraceDb_scalarInt(db, "SELECT count(DISTINCT coalesce(gpu, -1)) FROM"
                                             " dispatch WHERE file_id IN (SELECT file_id FROM"
                                             " used_file WHERE layer = 'kernel')");
        found = gpus <= 1 ? only : -1;
    }
    if (found < 0 || (n > 1 && found != gpu)) {
        return 0;
    }
    /* several logs of it (nvidia-smi --query-gpu and dmon side by side): the one with the
     * most samples on the trace's clock, the finest */
    if (TraceDb_prepare(db, "SELECT file_id FROM device_sample WHERE device = ?1"
                            " AND ts_ns IS NOT NULL GROUP BY file_id"
                            " ORDER BY count(*) DESC, file_id LIMIT 1", &st, NULL) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_int64(st, 1, found);
    int ok = sqlite3_step(st) == SQLITE_ROW;
    if (ok) {
        *file = sqlite3_column_int64(st, 0);
        *device = found;
    }
    sqlite3_finalize(st);
    return ok;
}

int64_t DeviceLanes_timeQuantum(TraceDb* db, int64_t file) {
    sqlite3_stmt* st = NULL;
    int64_t q = 0;
    if (TraceDb_prepare(db, "SELECT count(*), sum(wall_ns % 1000000000 = 0) FROM device_sample"
                            " WHERE file_id = ?1 AND wall_ns IS NOT NULL AND ts_ns IS NOT NULL",
                        &st, NULL) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_int64(st, 1, file);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1 &&
        sqlite3_column_int64(st, 0) == sqlite3_column_int64(st, 1)) {
        q = 1000000000;
    }
    sqlite3_finalize(st);
    return q;
}

static DcuStatus read_samples(TraceDb* db, DeviceLanes* l, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT ts_ns, sm_clock_mhz, mem_clock_mhz, util_pct, mem_used_bytes, power_w, temp_c,"
        " max_sm_clock_mhz, mem_total_bytes, power_cap_w FROM device_sample"
        " WHERE device = ?1 AND file_id = ?2 AND ts_ns IS NOT NULL ORDER BY ts_ns, id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, l->log_device);
    sqlite3_bind_int64(st, 2, l->log_file);
    int64_t cap[DLANE_COUNT] = {0}, shift = DeviceLanes_timeQuantum(db, l->log_file) / 2;
    double max_clock = 0, total = 0, power_cap = 0;
    int rc;
    int64_t* ts = NULL;
    int64_t nts = 0, capts = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(st, 0) + shift;
        for (int k = 0; k < DLANE_COUNT; k++) {
            int c = lanes[k].col;
            if (c > 0 && sqlite3_column_type(st, c) != SQLITE_NULL) {
                push(&l->s[k], &cap[k], t, sqlite3_column_double(st, c));
            }
        }
        max_clock = sqlite3_column_double(st, 7) > max_clock ? sqlite3_column_double(st, 7)
                                                             : max_clock;
        total = sqlite3_column_double(st, 8) > total ? sqlite3_column_double(st, 8) : total;
        power_cap = sqlite3_column_double(st, 9) > power_cap ? sqlite3_column_double(st, 9)
                                                            : power_cap;
        if (nts == capts) {
            capts = capts ? capts * 2 : 256;
            ts = xrealloc(ts, sizeof(int64_t) * (size_t)capts);
        }
        ts[nts++] = t;
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "device lanes: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    int64_t hold = 0;
    if (nts > 1) { /* the median spacing */
        for (int64_t i = 0; i + 1 < nts; i++) {
            ts[i] = ts[i + 1] - ts[i];
        }
        qsort(ts, (size_t)(nts - 1), sizeof(int64_t), cmp_i64);
        hold = DEVICE_LANE_HOLD * ts[(nts - 1) / 2];
    }
    free(ts);
    for (int k = 0; k < DLANE_COUNT; k++) {
        if (lanes[k].col == 0) {
            continue;
        }
        l->s[k].hold_ns = hold > 0 ? hold : 1;
        for (int64_t i = 0; i < l->s[k].n; i++) {
            l->s[k].top = l->s[k].v[i] > l->s[k].top ? l->s[k].v[i] : l->s[k].top;
        }
    }
    if (max_clock > l->s[DLANE_SM_CLOCK].top) {
        l->s[DLANE_SM_CLOCK].top = max_clock;
    }
    l->s[DLANE_UTIL].top = 100;
    if (total > 0) {
        l->s[DLANE_MEM_USED].top = total;
    }
    if (power_cap > l->s[DLANE_POWER].top) {
        l->s[DLANE_POWER].top = power_cap;
    }
    return s;
}

/* Allocated and reserved bytes after each memory event of the device: each process's
 * latest totals summed. */
static DcuStatus read_memory(TraceDb* db, int64_t gpu, DeviceLanes* l, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db, "SELECT ts_ns, coalesce(pid, -1), total_allocated, total_reserved FROM mem_event"
            " WHERE device = ?1 AND device >= 0 AND ts_ns IS NOT NULL ORDER BY ts_ns, id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, gpu);
    enum { PIDS = 64 };
    int64_t pid[PIDS], alloc[PIDS], resv[PIDS], cap[2] = {0, 0};
    int np = 0, rc, has_resv = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t p = sqlite3_column_int64(st, 1);
        int i = 0;
        while (i < np && pid[i] != p) {
            i++;
        }
        if (i == np) {
            if (np == PIDS) {
                continue; /* more processes on one device than any run has: the first 64 */
            }
            pid[np] = p;
            alloc[np] = resv[np] = 0;
            np++;
        }
        alloc[i] = sqlite3_column_type(st, 2) == SQLITE_NULL ? alloc[i]
                                                              : sqlite3_column_int64(st, 2);
        if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
            resv[i] = sqlite3_column_int64(st, 3);
            has_resv = 1;
        }
        int64_t a = 0, r = 0;
        for (int j = 0; j < np; j++) {
            a += alloc[j];
            r += resv[j];
        }
        int64_t t = sqlite3_column_int64(st, 0);
        push(&l->s[DLANE_ALLOCATED], &cap[0], t, (double)a);
        push(&l->s[DLANE_RESERVED], &cap[1], t, (double)r);
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "memory lanes: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    if (!has_resv) { /* rocpd allocations: live bytes only */
        free(l->s[DLANE_RESERVED].t);
        free(l->s[DLANE_RESERVED].v);
        memset(&l->s[DLANE_RESERVED], 0, sizeof(DeviceSeries));
    }
    /* one scale for both: reserved holds what is allocated */
    double top = 0;
    for (int k = DLANE_ALLOCATED; k <= DLANE_RESERVED; k++) {
        for (int64_t i = 0; i < l->s[k].n; i++) {
            top = l->s[k].v[i] > top ? l->s[k].v[i] : top;
        }
    }
    l->s[DLANE_ALLOCATED].top = l->s[DLANE_RESERVED].top = top;
    return s;
}

DcuStatus DeviceLanes_read(TraceDb* db, int64_t gpu, DeviceLanes* out, DcuError* err) {
    memset(out, 0, sizeof(*out));
    out->log_device = -1;
    DcuStatus s = DCU_OK;
    if (DeviceLanes_pick(db, gpu, &out->log_file, &out->log_device)) {
        s = read_samples(db, out, err);
    }
    if (s == DCU_OK && table_exists(db, "mem_event")) {
        s = read_memory(db, gpu, out, err);
    }
    if (s != DCU_OK) {
        DeviceLanes_done(out);
    }
    return s;
}

void DeviceLanes_done(DeviceLanes* l) {
    for (int k = 0; k < DLANE_COUNT; k++) {
        free(l->s[k].t);
        free(l->s[k].v);
    }
    memset(l, 0, sizeof(*l));
    l->log_device = -1;
}

int DeviceLanes_count(const DeviceLanes* l) {
    int n = 0;
    for (int k = 0; k < DLANE_COUNT; k++) {
        n += l->s[k].n > 0;
    }
    return n;
}

int DeviceSeries_at(const DeviceSeries* s, int64_t a, int64_t b, int lowest, double* v) {
    if (s->n == 0) {
        return 0;
    }
    int64_t lo = 0, hi = s->n;
    while (lo < hi) { /* the first value from a */
        int64_t m = lo + (hi - lo) / 2;
        if (s->t[m] < a) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    int found = 0;
    for (int64_t i = lo; i < s->n && s->t[i] < b; i++) {
        if (!found || (lowest ? s->v[i] < *v : s->v[i] > *v)) {
            *v = s->v[i];
        }
        found = 1;
    }
    if (found) {
        return 1;
    }
    if (lo == 0) {
        return 0; /* before the first value */
    }
    int64_t k = lo - 1; /* the value that holds at a */
    int64_t until = k + 1 < s->n ? s->t[k + 1] : s->t[k] + s->hold_ns;
    if (s->hold_ns > 0 && until > s->t[k] + s->hold_ns) {
        until = s->t[k] + s->hold_ns;
    }
    if (s->hold_ns > 0 && a >= until) {
        return 0;
    }
    *v = s->v[k];
    return 1;
}

ResultSet* DeviceLanes_annotate(ResultSet* rs, const DeviceLanes* l) {
    int at = ResultSet_columnIndex(rs, "abs_start_ns"), add = DeviceLanes_count(l);
    if (at < 0 || add == 0) {
        return rs;
    }
    RsColumn* cols = xmalloc(sizeof(RsColumn) * (size_t)(rs->ncols + add));
    memcpy(cols, rs->cols, sizeof(RsColumn) * (size_t)rs->ncols);
    int kind[DLANE_COUNT], k = 0;
    for (int i = 0; i < DLANE_COUNT; i++) {
        if (l->s[i].n > 0) {
            cols[rs->ncols + k] = (RsColumn){lanes[i].key, lanes[i].title, lanes[i].type};
            kind[k++] = i;
        }
    }
    ResultSet* o = ResultSet_new(rs->name, cols, rs->ncols + add);
    o->own_cols = cols;
    o->footer = rs->footer;
    rs->footer = NULL;
    ResultSet_reserve(o, rs->nrows);
    for (int r = 0; r < rs->nrows; r++) {
        int nr = ResultSet_addRow(o);
        for (int c = 0; c < rs->ncols; c++) {
            RsCell* from = ResultSet_cell(rs, r, c);
            *ResultSet_cell(o, nr, c) = *from;
            from->s = NULL;
        }
        int64_t t = ResultSet_cellc(o, nr, at)->i;
        for (int j = 0; j < add; j++) {
            double v = 0;
            if (DeviceSeries_at(&l->s[kind[j]], t, t + 1, lanes[kind[j]].lowest, &v)) {
                ResultSet_setInt(o, nr, rs->ncols + j, (int64_t)(v + 0.5));
            }
        }
    }
    ResultSet_delete(rs);
    return o;
}
