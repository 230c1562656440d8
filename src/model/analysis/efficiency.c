/* efficiency.c - op figures against the device's peaks (efficiency.h).
 * A kernel belongs to the aten op whose External id its launch carries (the innermost op:
 * Kineto tags a launch with the op that issued it, so a parent such as aten::linear only
 * owns kernels that no child op launched, and a convolution counts once). An op that
 * launched several kernels shares its FLOPs and bytes among them by duration, so every
 * kernel of the op reaches the op's % of peak. */
#include "dcutop/efficiency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/compute_metrics.h"
#include "dcutop/perf_model.h"
#include "dcutop/xalloc.h"

const char* Efficiency_noShapesText(void) {
    return "This trace has no recorded shapes, so FLOPs and bytes cannot be computed. Record "
           "them with torch.profiler.profile(record_shapes=True, ...) (Kineto writes 'Input "
           "Dims' and 'Input type' on each cpu_op).";
}

int Efficiency_hasShapes(TraceDb* db) {
    return TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM cpu_op WHERE input_dims IS NOT"
                                 " NULL)") == 1;
}

long long Efficiency_modelledOps(TraceDb* db) {
    return (long long)TraceDb_scalarInt(db, "SELECT count(*) FROM op_perf");
}

/* Device figures by name, cached for the build (a trace names one or a few devices). */
typedef struct DevCache_ {
    char* name;
    PeakFigures fig;
    int matched;
} DevCache;

/* Overlays the peaks rocprof-compute measured on this device (roofline.csv named by the
 * sysinfo.csv of its folder, or an analysis database's benchmark): the file whose device
 * model appears in the trace's device name. Measured figures win over the table's. */
static void overlay_measured(TraceDb* db, const char* device, PeakFigures* fig) {
    if (!device || !*device) {
        return;
    }
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(
            db,
            "SELECT m.fid, f.name FROM (SELECT DISTINCT file_id AS fid FROM measured_peak) m"
            " JOIN source_file f ON f.id = m.fid"
            " JOIN device_info i ON i.file_id = m.fid OR i.file_id IN"
            "  (SELECT g.id FROM source_file g WHERE g.dir = f.dir)"
            " WHERE length(i.model) > 0 AND instr(lower(?1), lower(i.model)) > 0"
            " ORDER BY i.file_id = m.fid DESC, m.fid LIMIT 1",
            &st, NULL) != DCU_OK) {
        return;
    }
    sqlite3_bind_text(st, 1, device, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) {
        int64_t fid = sqlite3_column_int64(st, 0);
        /* rocprof-compute's names: the matrix (MFMA) peak per type, fp32 the larger of the
         * matrix and vector ones (as the table's fp32 is the matrix peak) */
        double v[PEAK_NTYPES + 1] = {
            ComputeMetrics_measuredPeak(db, fid, "MFMABF16Flops"), ComputeMetrics_measuredPeak(db, fid, "MFMAF16Flops"),
            fmax(ComputeMetrics_measuredPeak(db, fid, "MFMAF32Flops"), ComputeMetrics_measuredPeak(db, fid, "FP32Flops")),
            ComputeMetrics_measuredPeak(db, fid, "MFMAF8Flops"), ComputeMetrics_measuredPeak(db, fid, "HBMBw")};
        for (int i = 0; i <= PEAK_NTYPES; i++) {
            if (v[i] <= 0) {
                continue;
            }
            if (i < PEAK_NTYPES) {
                fig->tflops[i] = v[i] / 1e3; /* GFLOP/s */
            } else {
                fig->gbps = v[i];
            }
            fig->measured |= 1u << i;
        }
        if (fig->measured) {
            snprintf(fig->measured_from, sizeof(fig->measured_from), "%s",
                     (const char*)sqlite3_column_text(st, 1));
        }
    }
    sqlite3_finalize(st);
}

static const DevCache* device_peaks(TraceDb* db, DevCache** cache, int* n, const char* name,
                                    const Peaks* peaks, const PeakFigures* override) {
    const char* key = name ? name : "";
    for (int i = 0; i < *n; i++) {
        if (strcmp((*cache)[i].name, key) == 0) {
            return &(*cache)[i];
        }
    }
    *cache = xrealloc(*cache, sizeof(DevCache) * (size_t)(*n + 1));
    DevCache* c = &(*cache)[(*n)++];
    c->name = xstrdup(key);
    if (override) {
        c->fig = *override;
        c->matched = 1;
    } else {
        c->matched = name && Peaks_lookup(peaks, name, &c->fig);
        if (!c->matched) {
            memset(&c->fig, 0, sizeof(c->fig));
        }
        overlay_measured(db, name, &c->fig);
        c->matched |= c->fig.measured != 0;
    }
    return c;
}

static void bind_real_or_null(sqlite3_stmt* st, int i, double v) {
    if (isnan(v)) {
        sqlite3_bind_null(st, i);
    } else {
        sqlite3_bind_double(st, i, v);
    }
}

/* The op of every dispatch in a used kernel file (temp table d2op). */
static DcuStatus link_dispatches(TraceDb* db, DcuError* err) {
    return TraceDb_exec(
        db,
        "DELETE FROM op_perf; DELETE FROM dispatch_perf; DELETE FROM kernel_perf;"
        "DELETE FROM eff_device;"
        "CREATE INDEX IF NOT EXISTS ext_link_corr ON ext_link(file_id, corr_id);"
        "CREATE INDEX IF NOT EXISTS cpu_op_ext ON cpu_op(file_id, ext_id);"
        "DROP TABLE IF EXISTS temp.d2op;"
        "CREATE TEMP TABLE d2op AS"
        " SELECT d.id AS did, d.dur_ns AS dur, d.kernel_id AS kid, d.file_id AS fid,"
        "  d.gpu AS gpu,"
        "  (SELECT o.id FROM ext_link e JOIN cpu_op o ON o.file_id = e.file_id"
        "    AND o.ext_id = e.ext_id WHERE e.file_id = d.file_id AND e.corr_id = d.corr_id"
        "    ORDER BY o.start_ns DESC, o.id LIMIT 1) AS op,"
        "  NULL AS device"
        " FROM dispatch d WHERE d.corr_id IS NOT NULL"
        "  AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"
        "  AND d.file_id IN (SELECT file_id FROM cpu_op WHERE input_dims IS NOT NULL);"
        "DELETE FROM temp.d2op WHERE op IS NULL"
        "  OR op NOT IN (SELECT id FROM cpu_op WHERE input_dims IS NOT NULL);"
        /* the device of each (file, gpu): its agent, else the file's first agent */
        "DROP TABLE IF EXISTS temp.d2dev;"
        "CREATE TEMP TABLE d2dev AS SELECT fid, gpu,"
        "  coalesce((SELECT a.product_name FROM agent a WHERE a.file_id = g.fid"
        "    AND a.node_id = g.gpu LIMIT 1), (SELECT a.product_name FROM agent a"
        "    WHERE a.file_id = g.fid ORDER BY a.node_id LIMIT 1)) AS device"
        " FROM (SELECT DISTINCT fid, gpu FROM temp.d2op) g;"
        "UPDATE temp.d2op SET device = (SELECT v.device FROM temp.d2dev v"
        "  WHERE v.fid = d2op.fid AND v.gpu IS d2op.gpu);"
        "DROP TABLE temp.d2dev;",
        err);
}

/* eff_device: the devices, most modelled time first, with the figures used. */
static DcuStatus store_devices(TraceDb* db, DevCache** cache, int* ncache, const Peaks* peaks,
                               const PeakFigures* override, DcuError* err) {
    DcuStatus s = DCU_OK;
    sqlite3_stmt* dv = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT device, CAST(total(kernel_ns) AS INTEGER) FROM op_perf"
                                " GROUP BY device ORDER BY 2 DESC, device",
                            &dv, err);
    }
    sqlite3_stmt* di = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "INSERT INTO eff_device(ord, name, source, line, bf16, fp16, fp32,"
                            " fp8, gbps, kernel_ns, measured, measured_from)"
                            " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)",
                            &di, err);
    }
    for (int ord = 0; s == DCU_OK && sqlite3_step(dv) == SQLITE_ROW; ord++) {
        const char* dev = (const char*)sqlite3_column_text(dv, 0);
        const DevCache* dc = device_peaks(db, cache, ncache, dev, peaks, override);
        sqlite3_bind_int(di, 1, ord);
        if (dev) {
            sqlite3_bind_text(di, 2, dev, -1, SQLITE_TRANSIENT);
        }
        if (dc->matched && dc->fig.source[0]) {
            sqlite3_bind_text(di, 3, dc->fig.source, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int(di, 4, dc->fig.line);
        }
        sqlite3_bind_int(di, 11, (int)dc->fig.measured);
        if (dc->fig.measured) {
            sqlite3_bind_text(di, 12, dc->fig.measured_from, -1, SQLITE_TRANSIENT);
        }
        for (int i = 0; i < PEAK_NTYPES; i++) {
            if (dc->fig.tflops[i] > 0) {
                sqlite3_bind_double(di, 5 + i, dc->fig.tflops[i]);
            }
        }
        if (dc->fig.gbps > 0) {
            sqlite3_bind_double(di, 9, dc->fig.gbps);
        }
        sqlite3_bind_int64(di, 10, sqlite3_column_int64(dv, 1));
        if (sqlite3_step(di) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_reset(di);
        sqlite3_clear_bindings(di);
    }
    sqlite3_finalize(dv);
    sqlite3_finalize(di);
    return s;
}

/* Binds one op's row of op_perf: ops' row (id, ..., kernel time, kernels, device), its model p
 * and its device's peaks. */
static void bind_op(sqlite3_stmt* ins, sqlite3_stmt* ops, const PerfOp* p, const DevCache* dc) {
    const char* dev = (const char*)sqlite3_column_text(ops, 8);
    double pf = PeakFigures_tflops(&dc->fig, p->dtype), pb = dc->fig.gbps;
    /* ns at peak: FLOPs / (TFLOP/s * 1e3 per ns), bytes / (GB/s per ns). A memory-bound
     * op of a type without a floating-point roof (integers) is judged on bytes alone. */
    double cns = pf > 0 ? p->flops / (pf * 1e3) : (p->kind == PERF_MEMORY ? 0 : NAN);
    double mns = pb > 0 ? p->bytes / pb : NAN;
    sqlite3_bind_int64(ins, 1, sqlite3_column_int64(ops, 0));
    sqlite3_bind_text(ins, 2, PerfModel_kindName(p->kind), -1, SQLITE_STATIC);
    sqlite3_bind_double(ins, 3, p->flops);
    sqlite3_bind_double(ins, 4, p->bytes);
    sqlite3_bind_text(ins, 5, p->dtype, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 6, p->shape, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins, 7, sqlite3_column_int64(ops, 6));
    sqlite3_bind_int64(ins, 8, sqlite3_column_int64(ops, 7));
    if (dev) {
        sqlite3_bind_text(ins, 9, dev, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(ins, 9);
    }
    bind_real_or_null(ins, 10, cns);
    bind_real_or_null(ins, 11, mns);
}

/* op_perf: each CPU op with launched kernels (temp.d2op) that the performance model knows,
 * its FLOPs, bytes and time at its device's peaks (cached in *cache). */
static DcuStatus model_ops(TraceDb* db, const Peaks* peaks, const PeakFigures* override,
                           DevCache** cache, int* ncache, DcuError* err) {
    sqlite3_stmt *ops = NULL, *ins = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT o.id, o.name, o.input_dims, o.input_types,"
                                  " o.concrete_inputs, o.input_strides,"
                                  " CAST(total(x.dur) AS INTEGER), count(*), max(x.device)"
                                  " FROM temp.d2op x JOIN cpu_op o ON o.id = x.op GROUP BY o.id",
                                  &ops, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "INSERT INTO op_perf(op_id, kind, flops, bytes, dtype, shape,"
                            " kernel_ns, kernels, device, compute_ns, memory_ns)"
                            " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                            &ins, err);
    }
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(ops)) == SQLITE_ROW) {
        PerfOp p;
        if (!PerfModel_eval((const char*)sqlite3_column_text(ops, 1),
                            (const char*)sqlite3_column_text(ops, 2),
                            (const char*)sqlite3_column_text(ops, 3),
                            (const char*)sqlite3_column_text(ops, 4),
                            (const char*)sqlite3_column_text(ops, 5), &p)) {
            continue;
        }
        const char* dev = (const char*)sqlite3_column_text(ops, 8);
        bind_op(ins, ops, &p, device_peaks(db, cache, ncache, dev, peaks, override));
        if (sqlite3_step(ins) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_reset(ins);
        sqlite3_clear_bindings(ins);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(ops);
    sqlite3_finalize(ins);
    return s;
}

/* dispatch_perf and kernel_perf: each op's figures shared among its kernels by duration. */
static DcuStatus spread_ops(TraceDb* db, DcuError* err) {
    return TraceDb_exec(
        db,
        "INSERT INTO dispatch_perf(dispatch_id, op_id, flops, bytes, compute_ns, memory_ns)"
        " SELECT x.did, p.op_id, p.flops * x.dur / p.kernel_ns, p.bytes * x.dur /"
        "  p.kernel_ns, p.compute_ns * x.dur / p.kernel_ns, p.memory_ns * x.dur /"
        "  p.kernel_ns"
        " FROM temp.d2op x JOIN op_perf p ON p.op_id = x.op WHERE p.kernel_ns > 0;"
        "INSERT INTO kernel_perf(kernel_id, dispatches, dur_ns, flops, bytes, compute_ns,"
        " memory_ns)"
        " SELECT x.kid, count(*), CAST(total(x.dur) AS INTEGER), total(d.flops),"
        "  total(d.bytes),"
        "  CASE WHEN count(d.compute_ns) = count(*) THEN total(d.compute_ns) END,"
        "  CASE WHEN count(d.memory_ns) = count(*) THEN total(d.memory_ns) END"
        " FROM temp.d2op x JOIN dispatch_perf d ON d.dispatch_id = x.did GROUP BY x.kid;"
        "DROP TABLE temp.d2op;",
        err);
}

DcuStatus Efficiency_build(TraceDb* db, const Peaks* peaks, const PeakFigures* override,
                           DcuError* err) {
    if (!Efficiency_hasShapes(db)) { /* nothing to model: no cost for other traces */
        return TraceDb_exec(db, "DELETE FROM op_perf; DELETE FROM dispatch_perf;"
                                " DELETE FROM kernel_perf; DELETE FROM eff_device;", err);
    }
    DcuStatus s = TraceDb_exec(db, "SAVEPOINT eff", err);
    if (s != DCU_OK) {
        return s;
    }
    s = link_dispatches(db, err);
    DevCache* cache = NULL;
    int ncache = 0;
    if (s == DCU_OK) {
        s = model_ops(db, peaks, override, &cache, &ncache, err);
    }
    if (s == DCU_OK) {
        s = spread_ops(db, err);
    }
    if (s == DCU_OK) {
        s = store_devices(db, &cache, &ncache, peaks, override, err);
    }
    for (int i = 0; i < ncache; i++) {
        free(cache[i].name);
    }
    free(cache);
    DcuError ignore;
    TraceDb_exec(db, s == DCU_OK ? "RELEASE eff" : "ROLLBACK TO eff; RELEASE eff", &ignore);
    return s;
}

#define DEVICE_COLS                                                                            \
    "SELECT coalesce(name, ''), coalesce(source, ''), coalesce(line, 0), bf16, fp16, fp32,"   \
    " fp8, gbps, measured, coalesce(measured_from, '') FROM eff_device"

static void read_device(sqlite3_stmt* st, EffDevice* out) {
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", sqlite3_column_text(st, 0));
    snprintf(out->peak.source, sizeof(out->peak.source), "%s", sqlite3_column_text(st, 1));
    out->peak.line = sqlite3_column_int(st, 2);
    int any = 0;
    for (int i = 0; i < PEAK_NTYPES; i++) {
        out->peak.tflops[i] = sqlite3_column_double(st, 3 + i);
        any |= out->peak.tflops[i] > 0;
    }
    out->peak.gbps = sqlite3_column_double(st, 7);
    out->peak.measured = (unsigned)sqlite3_column_int(st, 8);
    snprintf(out->peak.measured_from, sizeof(out->peak.measured_from), "%s",
             sqlite3_column_text(st, 9));
    out->has_peak = any && out->peak.gbps > 0;
}

int Efficiency_device(TraceDb* db, EffDevice* out) {
    memset(out, 0, sizeof(*out));
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, DEVICE_COLS " ORDER BY ord LIMIT 1", &st, NULL) != DCU_OK) {
        return 0;
    }
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        read_device(st, out);
    }
    sqlite3_finalize(st);
    return found;
}

void Efficiency_figureSource(const PeakFigures* p, int fig, char* buf, size_t cap) {
    int known = fig < PEAK_NTYPES ? p->tflops[fig] > 0 : p->gbps > 0;
    if (p->measured & (1u << fig)) {
        snprintf(buf, cap, "measured (%s)", p->measured_from);
    } else if (!known) {
        snprintf(buf, cap, "no peak known");
    } else if (strcmp(p->source, "built-in") == 0) {
        snprintf(buf, cap, "table (built-in line %d)", p->line);
    } else if (p->line > 0) {
        snprintf(buf, cap, "user file (%s line %d)", p->source, p->line);
    } else {
        snprintf(buf, cap, "%s", p->source);
    }
}

/* "bf16: measured (workload/roofline.csv); HBM: table (built-in line 47)" for a row of
 * dtype on the device named dev (NULL: none). */
static void row_source(TraceDb* db, const char* dev, const char* dtype, char* buf, size_t cap) {
    static const char* const names[PEAK_NTYPES] = {"bf16", "fp16", "fp32", "fp8"};
    EffDevice d;
    memset(&d, 0, sizeof(d));
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, DEVICE_COLS " WHERE name IS ?1 LIMIT 1", &st, NULL) == DCU_OK) {
        if (dev) {
            sqlite3_bind_text(st, 1, dev, -1, SQLITE_TRANSIENT);
        }
        if (sqlite3_step(st) == SQLITE_ROW) {
            read_device(st, &d);
        }
    }
    sqlite3_finalize(st);
    char a[128] = "", b[128];
    for (int i = 0; dtype && i < PEAK_NTYPES; i++) {
        if (strcmp(dtype, names[i]) == 0) {
            char t[112];
            Efficiency_figureSource(&d.peak, i, t, sizeof(t));
            snprintf(a, sizeof(a), "%s: %s; ", names[i], t);
        }
    }
    Efficiency_figureSource(&d.peak, PEAK_NTYPES, b, sizeof(b));
    snprintf(buf, cap, "%sHBM: %s", a, b);
}

/* ---- the grouped table ------------------------------------------------------------------ */

enum { E_OP, E_SHAPE, E_DTYPE, E_CALLS, E_FLOPS, E_BYTES, E_NS, E_TFLOPS, E_GBPS, E_PCT, E_BOUND,
       E_SRC, E_KIND, E_AI, E_PEAK, E_LOST, E_NCOLS };
static const RsColumn eff_cols[E_NCOLS] = {
    {"op", "Op", CT_TEXT},           {"shape", "Shape", CT_TEXT},
    {"dtype", "Type", CT_TEXT},      {"calls", "Calls", CT_INT},
    {"flops", "FLOPs", CT_REAL},     {"bytes", "Bytes", CT_BYTES},
    {"kernel_ns", "Time", CT_NS},    {"tflops", "TFLOP/s", CT_REAL},
    {"gbps", "GB/s", CT_REAL},       {"pct_peak", "%Peak", CT_PCT},
    {"bound", "Bound", CT_TEXT},     {"peak_source", "Peaks from", CT_TEXT},
    {"kind", "Model", CT_TEXT},
    {"intensity", "FLOP/B", CT_REAL}, {"peak_ns", "AtPeak", CT_NS},
    {"lost_ns", "Lost", CT_NS},
};
#define E_EXPORT_COLS (E_SRC + 1)

/* The first ncols columns of rs, same rows and order; rs is consumed. */
static ResultSet* narrow(ResultSet* rs, int ncols) {
    ResultSet* n = ResultSet_new(rs->name, rs->cols, ncols);
    for (int r = 0; r < rs->nrows; r++) {
        int k = ResultSet_addRow(n);
        for (int c = 0; c < ncols; c++) {
            RsCell* src = ResultSet_cell(rs, r, c);
            *ResultSet_cell(n, k, c) = *src;
            src->s = NULL; /* moved */
        }
    }
    ResultSet_delete(rs);
    return n;
}

DcuStatus Efficiency_query(TraceDb* db, const QueryOpts* o, int export_only, ResultSet** out,
                           DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT c.name, p.shape, p.dtype, count(*), total(p.flops), total(p.bytes),"
        " CAST(total(p.kernel_ns) AS INTEGER), p.kind,"
        " CASE WHEN count(p.compute_ns) = count(*) AND count(p.memory_ns) = count(*) THEN"
        "   total(max(p.compute_ns, p.memory_ns)) END,"
        " CASE WHEN count(p.compute_ns) = count(*) AND count(p.memory_ns) = count(*) THEN"
        "   CASE WHEN total(p.compute_ns) >= total(p.memory_ns) THEN 'compute'"
        "   ELSE 'memory' END END, max(p.device)"
        " FROM op_perf p JOIN cpu_op c ON c.id = p.op_id"
        " WHERE (?1 IS NULL OR regexp(?1, c.name))"
        " GROUP BY c.name, p.shape, p.dtype",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o && o->filter && *o->filter) {
        sqlite3_bind_text(st, 1, o->filter, -1, SQLITE_TRANSIENT);
    }
    ResultSet* rs = ResultSet_new("efficiency", eff_cols, E_NCOLS);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = E_OP; c <= E_DTYPE; c++) {
            if (sqlite3_column_type(st, c) != SQLITE_NULL) {
                ResultSet_setText(rs, r, c, (const char*)sqlite3_column_text(st, c));
            }
        }
        double flops = sqlite3_column_double(st, 4), bytes = sqlite3_column_double(st, 5);
        int64_t ns = sqlite3_column_int64(st, 6);
        ResultSet_setInt(rs, r, E_CALLS, sqlite3_column_int64(st, 3));
        ResultSet_setReal(rs, r, E_FLOPS, flops);
        ResultSet_setInt(rs, r, E_BYTES, (int64_t)llround(bytes));
        ResultSet_setInt(rs, r, E_NS, ns);
        if (ns > 0) {
            ResultSet_setReal(rs, r, E_TFLOPS, flops / (double)ns / 1e3);
            ResultSet_setReal(rs, r, E_GBPS, bytes / (double)ns);
        }
        int known = sqlite3_column_type(st, 8) != SQLITE_NULL;
        double peak = sqlite3_column_double(st, 8);
        if (known && ns > 0) {
            ResultSet_setReal(rs, r, E_PCT, 100.0 * peak / (double)ns);
            ResultSet_setText(rs, r, E_BOUND, (const char*)sqlite3_column_text(st, 9));
        }
        ResultSet_setText(rs, r, E_KIND, (const char*)sqlite3_column_text(st, 7));
        char src[320];
        row_source(db, (const char*)sqlite3_column_text(st, 10),
                   (const char*)sqlite3_column_text(st, 2), src, sizeof(src));
        ResultSet_setText(rs, r, E_SRC, src);
        if (bytes > 0) {
            ResultSet_setReal(rs, r, E_AI, flops / bytes);
        }
        if (known) {
            ResultSet_setInt(rs, r, E_PEAK, (int64_t)llround(peak));
            ResultSet_setInt(rs, r, E_LOST, ns - (int64_t)llround(peak));
        }
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    /* time lost against peak first (a stable sort over time order: rows without a peak,
     * NULL lost, stay last in time order) */
    s = Query_sort(rs, o && o->sort ? o->sort : "kernel_ns", err);
    if (s == DCU_OK && !(o && o->sort)) {
        ResultSet_sort(rs, E_LOST, 1);
    }
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = export_only ? narrow(rs, E_EXPORT_COLS) : rs;
    return DCU_OK;
}

static const RsColumn op_kernel_cols[] = {
    {"name", "Kernel", CT_TEXT},
    {"short_name", "Kernel", CT_TEXT},
    {"dispatches", "Dispatches", CT_INT},
    {"kernel_ns", "Time", CT_NS},
};

DcuStatus Efficiency_opKernels(TraceDb* db, const char* op, const char* shape, const char* dtype,
                               ResultSet** out, DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT k.name, k.short_name, count(*), CAST(total(d.dur_ns) AS INTEGER)"
        " FROM dispatch_perf x JOIN dispatch d ON d.id = x.dispatch_id"
        " JOIN kernel k ON k.id = d.kernel_id JOIN op_perf p ON p.op_id = x.op_id"
        " JOIN cpu_op o ON o.id = x.op_id"
        " WHERE o.name = ?1 AND p.shape IS ?2 AND p.dtype IS ?3"
        " GROUP BY k.id ORDER BY 4 DESC, k.name",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, op, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, shape, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, dtype, -1, SQLITE_TRANSIENT);
    ResultSet* rs = ResultSet_new("op_kernels", op_kernel_cols, 4);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, (const char*)sqlite3_column_text(st, 0));
        ResultSet_setText(rs, r, 1, (const char*)sqlite3_column_text(st, 1));
        ResultSet_setInt(rs, r, 2, sqlite3_column_int64(st, 2));
        ResultSet_setInt(rs, r, 3, sqlite3_column_int64(st, 3));
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
        ResultSet_delete(rs);
        rs = NULL;
    }
    sqlite3_finalize(st);
    *out = rs;
    return s;
}
