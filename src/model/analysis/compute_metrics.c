/* compute_metrics.c - rocprof-compute metrics and roofline points per kernel
 * (compute_metrics.h), read from compute_metric, compute_roofline and measured_peak. */
#include "dcutop/compute_metrics.h"

#include <stdint.h>
#include <string.h>

static const RsColumn cols[] = {
    {"kernel", "Kernel", CT_TEXT},     {"short_name", "Kernel", CT_TEXT},
    {"table", "Table", CT_TEXT},       {"metric_id", "Id", CT_TEXT},
    {"metric", "Metric", CT_TEXT},     {"value_name", "Value", CT_TEXT},
    {"value", "Number", CT_REAL},      {"unit", "Unit", CT_TEXT},
};
enum { C_KERNEL, C_SHORT, C_TABLE, C_ID, C_METRIC, C_VNAME, C_VALUE, C_UNIT, C_N };

#define SOL "m.sub_table LIKE '%Speed-of-Light%'"

/* Rows of st (columns as cols from first on) into a new set. */
static DcuStatus fill(TraceDb* db, sqlite3_stmt* st, int first, ResultSet** out,
                      DcuError* err) {
    ResultSet* rs = ResultSet_new("compute", cols + first, C_N - first);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = first; c < C_N; c++) {
            int k = c - first;
            if (sqlite3_column_type(st, k) == SQLITE_NULL) {
                continue;
            }
            if (c == C_VALUE) {
                ResultSet_setReal(rs, r, k, sqlite3_column_double(st, k));
            } else {
                ResultSet_setText(rs, r, k, (const char*)sqlite3_column_text(st, k));
            }
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        ResultSet_delete(rs);
        return Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    *out = rs;
    return DCU_OK;
}

DcuStatus ComputeMetrics_kernel(TraceDb* db, const char* kernel, ResultSet** out,
                                DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT m.sub_table, m.metric_id, m.name, m.value_name,"
                                  " m.value, m.unit FROM compute_metric m JOIN kernel k"
                                  " ON k.id = m.kernel_id WHERE k.name = ?1 AND " SOL
                                  " ORDER BY m.rowid",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, kernel, -1, SQLITE_TRANSIENT);
    return fill(db, st, C_TABLE, out, err);
}

double ComputeMetrics_measuredPeak(TraceDb* db, int64_t fid, const char* metric) {
    sqlite3_stmt* st = NULL;
    double v = 0;
    if (TraceDb_prepare(db,
                        "SELECT value FROM measured_peak WHERE file_id = ?1 AND metric = ?2"
                        " AND value > 0 ORDER BY device LIMIT 1",
                        &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, fid);
        sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_double(st, 0);
        }
    }
    sqlite3_finalize(st);
    return v;
}

int ComputeMetrics_roofline(TraceDb* db, const char* kernel, ComputeRoof* out) {
    memset(out, 0, sizeof(*out));
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        "SELECT r.gflops, r.ai_l1, r.ai_l2, r.ai_hbm, r.file_id FROM"
                        " compute_roofline r JOIN kernel k ON k.id = r.kernel_id"
                        " WHERE k.name = ?1 ORDER BY r.rowid LIMIT 1",
                        &st, NULL) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_text(st, 1, kernel, -1, SQLITE_TRANSIENT);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        out->gflops = sqlite3_column_double(st, 0);
        out->ai_l1 = sqlite3_column_double(st, 1);
        out->ai_l2 = sqlite3_column_double(st, 2);
        out->ai_hbm = sqlite3_column_double(st, 3);
        int64_t fid = sqlite3_column_int64(st, 4);
        out->hbm_gbps = ComputeMetrics_measuredPeak(db, fid, "HBMBw");
        out->fp32_gflops = ComputeMetrics_measuredPeak(db, fid, "FP32Flops");
    }
    sqlite3_finalize(st);
    return found;
}

DcuStatus ComputeMetrics_export(TraceDb* db, const QueryOpts* o, ResultSet** out,
                                DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT k.name, k.short_name, m.sub_table, m.metric_id, m.name, m.value_name, m.value,"
        " m.unit FROM compute_metric m JOIN kernel k ON k.id = m.kernel_id"
        " WHERE " SOL " AND (?1 IS NULL OR regexp(?1, k.name))"
        " UNION ALL SELECT k.name, k.short_name, 'Roofline point', NULL, p.metric, 'Value',"
        "  p.value, p.unit FROM (SELECT kernel_id, 1 AS o, 'Performance' AS metric,"
        "   gflops AS value, 'GFLOP/s' AS unit, rowid AS rid FROM compute_roofline"
        "  UNION ALL SELECT kernel_id, 2, 'AI L1', ai_l1, 'FLOP/byte', rowid FROM compute_roofline"
        "  UNION ALL SELECT kernel_id, 3, 'AI L2', ai_l2, 'FLOP/byte', rowid FROM compute_roofline"
        "  UNION ALL SELECT kernel_id, 4, 'AI HBM', ai_hbm, 'FLOP/byte', rowid"
        "   FROM compute_roofline ORDER BY rid, o) p"
        "  JOIN kernel k ON k.id = p.kernel_id WHERE (?1 IS NULL OR regexp(?1, k.name))",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o && o->filter && *o->filter) {
        sqlite3_bind_text(st, 1, o->filter, -1, SQLITE_TRANSIENT);
    }
    return fill(db, st, C_KERNEL, out, err);
}

static const RsColumn point_cols[] = {
    {"name", "Kernel", CT_TEXT},          {"short_name", "Kernel", CT_TEXT},
    {"gflops", "GFLOP/s", CT_REAL},       {"ai_hbm", "FLOP/B HBM", CT_REAL},
    {"ai_l2", "FLOP/B L2", CT_REAL},      {"ai_l1", "FLOP/B L1", CT_REAL},
    {"roof_gflops", "Roof GFLOP/s", CT_REAL}, {"pct_roof", "%Roof", CT_PCT},
};

DcuStatus ComputeMetrics_points(TraceDb* db, ResultSet** out, double* fp32_gflops,
                                double* hbm_gbps, DcuError* err) {
    *out = NULL;
    *fp32_gflops = *hbm_gbps = 0;
    int64_t fid = TraceDb_scalarInt(db, "SELECT min(file_id) FROM compute_roofline");
    if (fid > 0) {
        *fp32_gflops = ComputeMetrics_measuredPeak(db, fid, "FP32Flops");
        *hbm_gbps = ComputeMetrics_measuredPeak(db, fid, "HBMBw");
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT k.name, k.short_name, r.gflops, r.ai_hbm, r.ai_l2,"
                                  " r.ai_l1 FROM compute_roofline r JOIN kernel k"
                                  " ON k.id = r.kernel_id ORDER BY r.gflops DESC, k.name",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("compute_roofline", point_cols, 8);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, (const char*)sqlite3_column_text(st, 0));
        ResultSet_setText(rs, r, 1, (const char*)sqlite3_column_text(st, 1));
        for (int c = 2; c < 6; c++) {
            if (sqlite3_column_type(st, c) != SQLITE_NULL) {
                ResultSet_setReal(rs, r, c, sqlite3_column_double(st, c));
            }
        }
        double ai = sqlite3_column_double(st, 3), gf = sqlite3_column_double(st, 2);
        if (*fp32_gflops > 0 && *hbm_gbps > 0 && ai > 0) {
            double roof = ai * *hbm_gbps < *fp32_gflops ? ai * *hbm_gbps : *fp32_gflops;
            ResultSet_setReal(rs, r, 6, roof);
            ResultSet_setReal(rs, r, 7, 100.0 * gf / roof);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        ResultSet_delete(rs);
        return Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    *out = rs;
    return DCU_OK;
}
