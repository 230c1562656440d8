/* load_compute.c - rocprof-compute (formerly Omniperf) outputs beside pmc_perf.csv (which
 * load_csv.c reads as per-dispatch PMC data): roofline.csv (the device's measured peaks),
 * sysinfo.csv (the machine), and the analysis database of `rocprof-compute analyze
 * --output-format db` (kernels, dispatches, metric values, roofline points, and the same
 * machine and peaks as JSON). Tables: device_info, measured_peak, compute_metric,
 * compute_roofline (trace_db.c). */
#include "load_compute.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/i64_map.h"
#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "load_event.h"

/* ---- CSV --------------------------------------------------------------------------- */

enum { RC_ROOFLINE = 1, RC_SYSINFO = 2 };

/* sysinfo.csv columns kept, in device_info's order after file_id */
static const char* const sys_cols[] = {"gpu_model",  "gpu_arch",   "gpu_series", "cu_per_gpu",
                                       "max_sclk",   "max_mclk",   "gpu_memory", "gpu_l2",
                                       "hbm_bw",     "rocm_version", "workload_name", "command"};
#define N_SYS ((int)(sizeof(sys_cols) / sizeof(sys_cols[0])))

struct ComputeCsv_ {
    LoaderCore* core;
    LoadFile* f;
    int kind;
    int ncols;
    int device_col;     /* roofline: the 'device' column */
    int* low;           /* roofline: per column, its Low column (-1 none) */
    int* high;          /* ... and its High column */
    int* is_peak;       /* roofline: 1 for a figure column (…Bw, …Flops, …Ops) */
    char** names;       /* header names, sanitized */
    int sys_at[N_SYS];  /* sysinfo: column of each kept field, -1 absent */
    sqlite3_stmt* ins;
};

static int ends_ci(const char* s, const char* suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

static int has_col(const CsvRow* r, const char* name) {
    for (int i = 0; i < r->n; i++) {
        if (r->f[i].len == strlen(name) && strncasecmp(r->f[i].s, name, r->f[i].len) == 0) {
            return i;
        }
    }
    return -1;
}

int LoadCompute_sniffCsv(const CsvRow* header) {
    if (has_col(header, "device") == 0 && has_col(header, "HBMBw") >= 0) {
        return RC_ROOFLINE;
    }
    if (has_col(header, "gpu_model") >= 0 && has_col(header, "gpu_arch") >= 0 &&
        has_col(header, "workload_name") >= 0) {
        return RC_SYSINFO;
    }
    return 0;
}

static void setup_roofline(ComputeCsv* c, const CsvRow* r) {
    c->low = xmalloc(sizeof(int) * (size_t)r->n);
    c->high = xmalloc(sizeof(int) * (size_t)r->n);
    c->is_peak = xcalloc((size_t)r->n, sizeof(int));
    for (int i = 0; i < r->n; i++) {
        c->low[i] = c->high[i] = -1;
        const char* h = c->names[i];
        c->is_peak[i] = i != c->device_col && !ends_ci(h, "Low") && !ends_ci(h, "High") &&
                        (ends_ci(h, "Bw") || ends_ci(h, "Flops") || ends_ci(h, "Ops"));
    }
    /* 'HBMBwLow' / 'hbmBwHigh': the figure's name and a suffix, any case */
    for (int i = 0; i < r->n; i++) {
        const char* h = c->names[i];
        size_t n = strlen(h);
        int low = ends_ci(h, "Low");
        if (!low && !ends_ci(h, "High")) {
            continue;
        }
        size_t base = n - (low ? 3 : 4);
        for (int j = 0; j < r->n; j++) {
            if (c->is_peak[j] && strlen(c->names[j]) == base &&
                strncasecmp(c->names[j], h, base) == 0) {
                (low ? c->low : c->high)[j] = i;
            }
        }
    }
}

ComputeCsv* LoadCompute_begin(LoaderCore* core, LoadFile* f, const CsvRow* header, int kind,
                              const char** format) {
    ComputeCsv* c = xcalloc(1, sizeof(*c));
    c->core = core;
    c->f = f;
    c->kind = kind;
    c->ncols = header->n;
    c->names = xcalloc((size_t)header->n, sizeof(char*));
    for (int i = 0; i < header->n; i++) {
        c->names[i] = Names_sanitize(header->f[i].s, header->f[i].len);
    }
    DcuError e;
    if (kind == RC_ROOFLINE) {
        c->device_col = has_col(header, "device");
        setup_roofline(c, header);
        *format = "rocprof-compute roofline.csv (measured peaks)";
        TraceDb_prepare(core->db,
                        "INSERT INTO measured_peak(file_id, device, metric, value, low, high,"
                        " unit) VALUES(?1,?2,?3,?4,?5,?6,?7)",
                        &c->ins, &e);
    } else {
        for (int k = 0; k < N_SYS; k++) {
            c->sys_at[k] = has_col(header, sys_cols[k]);
        }
        *format = "rocprof-compute sysinfo.csv (device)";
        TraceDb_prepare(core->db,
                        "INSERT INTO device_info(file_id, model, arch, series, cus, sclk_mhz,"
                        " mclk_mhz, memory_kb, l2_kb, hbm_gbps, rocm, workload, command)"
                        " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
                        &c->ins, &e);
    }
    return c;
}

/* A finite number from a field; 0 when it is not one. */
static int num(const CsvField* fl, double* out) {
    char buf[64];
    if (fl->len == 0 || fl->len >= sizeof(buf)) {
        return 0;
    }
    memcpy(buf, fl->s, fl->len);
    buf[fl->len] = '\0';
    char* end;
    double v = strtod(buf, &end);
    while (*end == ' ') {
        end++;
    }
    if (end == buf || *end || !isfinite(v)) {
        return 0;
    }
    *out = v;
    return 1;
}

static void bind_num_or_null(sqlite3_stmt* st, int i, const CsvRow* r, int col) {
    double v;
    if (col >= 0 && col < r->n && num(&r->f[col], &v)) {
        sqlite3_bind_double(st, i, v);
    } else {
        sqlite3_bind_null(st, i);
    }
}

/* A stored row of the device layer (the 'agent' layer: machine facts, not timings). */
static void count_device_row(LoadFile* f, int rank) {
    f->rows++;
    f->layer_rows[LAYER_AGENT]++;
    f->layer_grain[LAYER_AGENT] = 2;
    if (rank > f->layer_rank[LAYER_AGENT]) {
        f->layer_rank[LAYER_AGENT] = rank;
    }
}

static int step_ok(ComputeCsv* c, long line) {
    int rc = sqlite3_step(c->ins);
    sqlite3_reset(c->ins);
    if (rc != SQLITE_DONE) {
        Load_reject(c->core, c->f, line, "%s", sqlite3_errmsg(TraceDb_handle(c->core->db)));
        return 0;
    }
    return 1;
}

static void roofline_row(ComputeCsv* c, const CsvRow* r) {
    double dev;
    int has_dev = num(&r->f[c->device_col], &dev) && dev >= 0 && dev < 1e6;
    int stored = 0;
    for (int i = 0; i < r->n; i++) {
        double v;
        if (!c->is_peak[i] || !num(&r->f[i], &v) || v < 0) { /* 0: not measured */
            continue;
        }
        sqlite3_stmt* st = c->ins;
        sqlite3_bind_int64(st, 1, c->f->id);
        if (has_dev) {
            sqlite3_bind_int64(st, 2, (sqlite3_int64)dev);
        } else {
            sqlite3_bind_null(st, 2);
        }
        sqlite3_bind_text(st, 3, c->names[i], -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, v);
        bind_num_or_null(st, 5, r, c->low[i]);
        bind_num_or_null(st, 6, r, c->high[i]);
        sqlite3_bind_text(st, 7, ends_ci(c->names[i], "Bw") ? "GB/s" : "GFLOP/s", -1,
                          SQLITE_STATIC);
        stored += step_ok(c, r->line);
        sqlite3_clear_bindings(st);
    }
    if (stored > 0) {
        count_device_row(c->f, 1);
    } else {
        Load_reject(c->core, c->f, r->line, "no peak figure in the row");
    }
}

static void sysinfo_row(ComputeCsv* c, const CsvRow* r) {
    sqlite3_stmt* st = c->ins;
    sqlite3_bind_int64(st, 1, c->f->id);
    for (int k = 0; k < N_SYS; k++) {
        int col = c->sys_at[k];
        int numeric = k >= 3 && k <= 8;
        if (col < 0 || col >= r->n || r->f[col].len == 0) {
            sqlite3_bind_null(st, 2 + k);
        } else if (numeric) {
            bind_num_or_null(st, 2 + k, r, col);
        } else {
            sqlite3_bind_text(st, 2 + k, Names_sanitize(r->f[col].s, r->f[col].len), -1, free);
        }
    }
    if (step_ok(c, r->line)) {
        count_device_row(c->f, 1);
    }
    sqlite3_clear_bindings(st);
}

void LoadCompute_row(ComputeCsv* c, const CsvRow* r) {
    if (!c->ins) {
        return;
    }
    if (r->n != c->ncols) {
        Load_reject(c->core, c->f, r->line, "expected %d columns but found %d", c->ncols, r->n);
        return;
    }
    if (c->kind == RC_ROOFLINE) {
        roofline_row(c, r);
    } else {
        sysinfo_row(c, r);
    }
}

void LoadCompute_end(ComputeCsv* c) {
    if (!c) {
        return;
    }
    sqlite3_finalize(c->ins);
    for (int i = 0; i < c->ncols; i++) {
        free(c->names[i]);
    }
    free(c->names);
    free(c->low);
    free(c->high);
    free(c->is_peak);
    free(c);
}

/* ---- the analysis database ----------------------------------------------------------- */


int LoadCompute_isDb(sqlite3* in) {
    sqlite3_stmt* st = NULL;
    int n = 0;
    if (sqlite3_prepare_v2(in,
                           "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN"
                           " ('compute_kernel', 'compute_dispatch')",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return n == 2;
}

typedef struct Db_ {
    LoaderCore* core;
    LoadFile* f;
    sqlite3* in;
    I64Map* kernels; /* kernel_uuid -> kernel.id */
} Db;

/* Prepares sql on the input; a message and NULL when the schema lacks what it names. */
static sqlite3_stmt* in_prepare(Db* d, const char* what, const char* sql) {
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(d->in, sql, -1, &st, NULL) != SQLITE_OK) {
        Load_message(d->core, d->f, "%s not read: %s", what, sqlite3_errmsg(d->in));
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static void in_done(Db* d, const char* what, sqlite3_stmt* st, int rc) {
    if (rc != SQLITE_DONE) {
        Load_message(d->core, d->f, "%s: reading stopped: %s", what, sqlite3_errmsg(d->in));
    }
    sqlite3_finalize(st);
}

static int64_t opt_int(sqlite3_stmt* st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_INTEGER ? sqlite3_column_int64(st, i) : LOAD_NULL;
}

/* Kernels (by name, so they join a trace of the same program) and their dispatches. */
static void db_dispatches(Db* d) {
    sqlite3_stmt* st = in_prepare(
        d, "compute_dispatch",
        "SELECT k.kernel_uuid, k.kernel_name, x.dispatch_id, x.gpu_id, x.start_timestamp,"
        " x.end_timestamp FROM compute_dispatch x JOIN compute_kernel k"
        " ON k.kernel_uuid = x.kernel_uuid WHERE typeof(k.kernel_name) = 'text'"
        " ORDER BY x.start_timestamp, x.dispatch_uuid");
    if (!st) {
        return;
    }
    int rc;
    long row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row++;
        const char* name = (const char*)sqlite3_column_text(st, 1);
        int len = sqlite3_column_bytes(st, 1);
        LoadDispatch x;
        LoadDispatch_init(&x);
        x.seq = opt_int(st, 2);
        x.gpu = opt_int(st, 3);
        x.start = opt_int(st, 4);
        x.end = opt_int(st, 5);
        char where[64];
        snprintf(where, sizeof(where), "compute_dispatch row %ld", row);
        if (LoadEvent_dispatch(d->core, d->f, where, name, (size_t)len, &x, RANK_DB) > 0) {
            I64Map_put(d->kernels, sqlite3_column_int64(st, 0),
                       Load_kernelId(d->core, name, (size_t)len));
        }
    }
    in_done(d, "compute_dispatch", st, rc);
    /* dispatches the join above left out: no kernel row, or a kernel without a name */
    st = in_prepare(d, "compute_dispatch",
                    "SELECT count(*) FROM compute_dispatch x WHERE NOT EXISTS (SELECT 1 FROM"
                    " compute_kernel k WHERE k.kernel_uuid = x.kernel_uuid"
                    " AND typeof(k.kernel_name) = 'text')");
    if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        int64_t n = sqlite3_column_int64(st, 0);
        Load_reject(d->core, d->f, 0, "%lld dispatch%s without a named kernel not loaded",
                    (long long)n, n == 1 ? "" : "es");
        d->f->rejected += n - 1; /* one message for them all */
    }
    sqlite3_finalize(st);
}

/* The kernel.id of a compute_kernel row: its own dispatches', else its name's. */
static int64_t kernel_of(Db* d, int64_t uuid) {
    int64_t id = I64Map_get(d->kernels, uuid);
    if (id) {
        return id;
    }
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(d->in, "SELECT kernel_name FROM compute_kernel WHERE kernel_uuid = ?1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, uuid);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
            id = Load_kernelId(d->core, (const char*)sqlite3_column_text(st, 0),
                               (size_t)sqlite3_column_bytes(st, 0));
            I64Map_put(d->kernels, uuid, id);
        }
    }
    sqlite3_finalize(st);
    return id;
}

static void bind_col(sqlite3_stmt* out, int i, sqlite3_stmt* st, int c, int text) {
    int t = sqlite3_column_type(st, c);
    if (t == SQLITE_NULL) {
        sqlite3_bind_null(out, i);
    } else if (text) {
        const char* s = (const char*)sqlite3_column_text(st, c);
        sqlite3_bind_text(out, i, Names_sanitize(s, (size_t)sqlite3_column_bytes(st, c)), -1,
                          free);
    } else if (t == SQLITE_INTEGER || t == SQLITE_FLOAT) {
        double v = sqlite3_column_double(st, c);
        if (isfinite(v)) {
            sqlite3_bind_double(out, i, v);
        } else {
            sqlite3_bind_null(out, i);
        }
    } else {
        sqlite3_bind_null(out, i);
    }
}

/* Copies the rows of a query on the input (columns: kernel_uuid, then ncols values, text
 * where text[i]) into out (?1 kernel_id, ?2 file_id, ?3.. the values). */
static void db_copy(Db* d, const char* what, const char* sql, const char* out_sql, int ncols,
                    const int* text) {
    sqlite3_stmt* st = in_prepare(d, what, sql);
    sqlite3_stmt* out = NULL;
    DcuError e;
    if (!st || TraceDb_prepare(d->core->db, out_sql, &out, &e) != DCU_OK) {
        sqlite3_finalize(st);
        return;
    }
    int rc;
    long row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row++;
        int64_t kid = sqlite3_column_type(st, 0) == SQLITE_INTEGER
                          ? kernel_of(d, sqlite3_column_int64(st, 0))
                          : 0;
        if (kid <= 0) {
            Load_reject(d->core, d->f, 0, "%s row %ld: no kernel", what, row);
            continue;
        }
        sqlite3_bind_int64(out, 1, kid);
        sqlite3_bind_int64(out, 2, d->f->id);
        for (int i = 0; i < ncols; i++) {
            bind_col(out, 3 + i, st, 1 + i, text[i]);
        }
        if (sqlite3_step(out) != SQLITE_DONE) {
            Load_reject(d->core, d->f, 0, "%s row %ld: %s", what, row,
                        sqlite3_errmsg(TraceDb_handle(d->core->db)));
        }
        sqlite3_reset(out);
        sqlite3_clear_bindings(out);
    }
    in_done(d, what, st, rc);
    sqlite3_finalize(out);
}

/* The machine (sys_info_extdata) and its measured peaks (roofline_bench_extdata): JSON. */
static void db_workload(Db* d) {
    static const int text[N_SYS] = {1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1};
    char sql[1024];
    size_t n = (size_t)snprintf(sql, sizeof(sql), "SELECT 0");
    for (int k = 0; k < N_SYS && n < sizeof(sql); k++) {
        n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", json_extract(sys_info_extdata, '$.%s')",
                              sys_cols[k]);
    }
    snprintf(sql + n, sizeof(sql) - n,
             " FROM compute_workload WHERE json_valid(sys_info_extdata) ORDER BY workload_id");
    sqlite3_stmt* st = in_prepare(d, "compute_workload", sql);
    sqlite3_stmt* out = NULL;
    DcuError e;
    if (st && TraceDb_prepare(d->core->db,
                              "INSERT INTO device_info(file_id, model, arch, series, cus,"
                              " sclk_mhz, mclk_mhz, memory_kb, l2_kb, hbm_gbps, rocm, workload,"
                              " command) VALUES(?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
                              &out, &e) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            sqlite3_bind_int64(out, 2, d->f->id);
            for (int k = 0; k < N_SYS; k++) {
                bind_col(out, 3 + k, st, 1 + k, text[k]);
            }
            if (sqlite3_step(out) == SQLITE_DONE) {
                count_device_row(d->f, RANK_DB);
            }
            sqlite3_reset(out);
            sqlite3_clear_bindings(out);
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(out);
    out = NULL;
    st = in_prepare(d, "compute_workload roofline",
                    "SELECT j.key, j.value FROM compute_workload w,"
                    " json_each(w.roofline_bench_extdata) j"
                    " WHERE json_valid(w.roofline_bench_extdata)"
                    " AND j.type IN ('real', 'integer') AND j.value >= 0 ORDER BY w.workload_id, j.id");
    if (st && TraceDb_prepare(d->core->db,
                              "INSERT INTO measured_peak(file_id, device, metric, value, unit)"
                              " VALUES(?1, NULL, ?2, ?3, ?4)",
                              &out, &e) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char* key = (const char*)sqlite3_column_text(st, 0);
            double v = sqlite3_column_double(st, 1);
            if (!key || !isfinite(v)) {
                continue;
            }
            char* name = Names_sanitize(key, strlen(key));
            sqlite3_bind_int64(out, 1, d->f->id);
            sqlite3_bind_text(out, 2, name, -1, free);
            sqlite3_bind_double(out, 3, v);
            sqlite3_bind_text(out, 4, ends_ci(key, "Bw") ? "GB/s" : "GFLOP/s", -1,
                              SQLITE_STATIC);
            sqlite3_step(out);
            sqlite3_reset(out);
            sqlite3_clear_bindings(out);
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(out);
}

void LoadCompute_readDb(LoaderCore* core, LoadFile* f, sqlite3* in) {
    Db d = {core, f, in, I64Map_new()};
    f->format = "rocprof-compute analysis database";
    f->pmc = 1; /* its dispatches ran under counter collection */
    db_dispatches(&d);
    static const int metric_text[] = {1, 1, 1, 1, 1, 0, 1};
    db_copy(&d, "compute_kernel_metric_value",
            "SELECT v.kernel_uuid, m.metric_id, m.table_name, m.sub_table_name, m.name,"
            " v.value_name, v.value, m.unit FROM compute_kernel_metric_value v"
            " JOIN compute_metric_definition m ON m.metric_uuid = v.metric_uuid"
            " WHERE typeof(m.name) = 'text' ORDER BY v.value_uuid",
            "INSERT INTO compute_metric(kernel_id, file_id, metric_id, table_name, sub_table,"
            " name, value_name, value, unit) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
            7, metric_text);
    static const int roof_text[] = {0, 0, 0, 0};
    db_copy(&d, "compute_kernel_roofline_data",
            "SELECT kernel_uuid, total_flops, l1_cache_data, l2_cache_data, hbm_cache_data"
            " FROM compute_kernel_roofline_data ORDER BY roofline_uuid",
            "INSERT INTO compute_roofline(kernel_id, file_id, gflops, ai_l1, ai_l2, ai_hbm)"
            " VALUES(?1,?2,?3,?4,?5,?6)",
            4, roof_text);
    db_workload(&d);
    I64Map_delete(d.kernels);
}
