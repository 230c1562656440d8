/* trace_query.c - see trace_query.h. */
#include "dcutop/trace_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

/* Timed ops of used files with their lane: dispatches (kernel layer) and copies (copy layer).
 * The lane's stream is the stream, else the queue, as the timeline's launch gaps use. */
#define OPS_SQL                                                                                \
    "SELECT d.file_id AS file, coalesce(d.gpu, -1) AS gpu,"                                    \
    "  coalesce(d.stream, d.queue, -1) AS lane, d.id AS op_id, 'kernel' AS kind, k.name AS name," \
    "  k.short_name AS short_name, coalesce(k.category, 'other') AS category,"                \
    "  d.start_ns AS start_ns, d.end_ns AS end_ns"                                             \
    " FROM dispatch d JOIN kernel k ON k.id = d.kernel_id"                                     \
    " WHERE d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"                                   \
    "  AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"                \
    " UNION ALL"                                                                               \
    " SELECT c.file_id, coalesce(c.gpu, -1), coalesce(c.stream, c.queue, -1), c.id, 'copy',"   \
    "  c.name, c.name, '(copy)', c.start_ns, c.end_ns"                                         \
    " FROM copy c WHERE c.start_ns IS NOT NULL AND c.end_ns IS NOT NULL"                       \
    "  AND c.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"

int64_t TraceQuery_origin(TraceDb* db, int64_t file) {
    sqlite3_stmt* st = NULL;
    int64_t v = 0;
    /* the group: files of the same folder and run tag (an empty tag belongs to every run) */
    if (TraceDb_prepare(db,
                        "SELECT min(d.start_ns) FROM main.dispatch d"
                        " JOIN source_file fb ON fb.id = d.file_id"
                        " JOIN source_file fa ON fa.id = ?1 AND fb.dir = fa.dir"
                        "  AND (fb.run_tag = fa.run_tag OR fb.run_tag = '' OR fa.run_tag = '')"
                        " WHERE d.start_ns IS NOT NULL"
                        "  AND d.file_id IN (SELECT file_id FROM main.used_file"
                        "   WHERE layer = 'kernel')",
                        &st, NULL) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_int64(st, 1, file);
    if (sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

DcuStatus TraceQuery_lanes(TraceDb* db, TraceLane** out, int* n, DcuError* err) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT o.file, o.gpu, o.lane, count(*), f.name FROM (" OPS_SQL
                                  ") o JOIN source_file f ON f.id = o.file"
                                  " GROUP BY o.file, o.gpu, o.lane ORDER BY o.file, o.gpu, o.lane",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *out = xrealloc(*out, sizeof(TraceLane) * (size_t)cap);
        }
        TraceLane* l = &(*out)[(*n)++];
        l->file = sqlite3_column_int64(st, 0);
        l->gpu = sqlite3_column_int64(st, 1);
        l->stream = sqlite3_column_int64(st, 2);
        l->ops = sqlite3_column_int64(st, 3);
        const char* fn = (const char*)sqlite3_column_text(st, 4);
        const char* base = fn ? strrchr(fn, '/') : NULL;
        fn = base ? base + 1 : fn;
        char g[32] = "GPU ?", q[32] = "queue ?";
        if (l->gpu >= 0) {
            snprintf(g, sizeof(g), "GPU %lld", (long long)l->gpu);
        }
        if (l->stream >= 0) {
            snprintf(q, sizeof(q), "queue %lld", (long long)l->stream);
        }
        snprintf(l->label, sizeof(l->label), "%.100s %s %s", fn ? fn : "?", g, q);
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "trace: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

static const RsColumn trace_cols[] = {
    {"start_ns", "Start", CT_NS},       {"gap_ns", "Gap", CT_NS},
    {"dur_ns", "Duration", CT_NS},      {"name", "Name", CT_TEXT},
    {"short_name", "Name", CT_TEXT},    {"category", "Category", CT_TEXT},
    {"kind", "Kind", CT_TEXT},          {"bar", "Duration bar", CT_TEXT},
    {"abs_start_ns", "Start (trace clock)", CT_NS},
};

DcuStatus TraceQuery_ops(TraceDb* db, const TraceLane* lane, const char* filter, ResultSet** out,
                         DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT start_ns - ?4, CASE WHEN pe IS NULL THEN NULL ELSE max(0, start_ns - pe) END,"
        " end_ns - start_ns, name, short_name, category, kind, start_ns FROM"
        " (SELECT *, max(end_ns) OVER (ORDER BY start_ns, end_ns, kind, op_id"
        "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe"
        "  FROM (" OPS_SQL ") WHERE file = ?1 AND gpu = ?2 AND lane = ?3)"
        " WHERE ?5 IS NULL OR regexp(?5, name) ORDER BY start_ns, end_ns, kind, op_id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, lane->file);
    sqlite3_bind_int64(st, 2, lane->gpu);
    sqlite3_bind_int64(st, 3, lane->stream);
    sqlite3_bind_int64(st, 4, TraceQuery_origin(db, lane->file));
    if (filter && *filter) {
        sqlite3_bind_text(st, 5, filter, -1, SQLITE_TRANSIENT);
    }
    ResultSet* rs = ResultSet_new("trace", trace_cols,
                                  (int)(sizeof(trace_cols) / sizeof(trace_cols[0])));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = 0; c < 8; c++) {
            int dst = c < 7 ? c : 8;
            if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                continue;
            }
            if (rs->cols[dst].type == CT_TEXT) {
                ResultSet_setText(rs, r, dst, (const char*)sqlite3_column_text(st, c));
            } else {
                ResultSet_setInt(rs, r, dst, sqlite3_column_int64(st, c));
            }
        }
    }
    if (rc != SQLITE_DONE) {
        /* a bad pattern surfaces here as the regexp() error text */
        s = Error_set(err, filter ? DCU_ERR_REGEX : DCU_ERR_SQL, "%s",
                      sqlite3_errmsg(TraceDb_handle(db)));
        ResultSet_delete(rs);
        rs = NULL;
    }
    sqlite3_finalize(st);
    *out = rs;
    return s;
}

int TraceQuery_rowAt(const ResultSet* rs, int64_t abs_start) {
    int c = ResultSet_columnIndex(rs, "abs_start_ns");
    for (int r = 0; c >= 0 && r < rs->nrows; r++) {
        const RsCell* v = ResultSet_cellc(rs, r, c);
        if (!v->null && v->i >= abs_start) {
            return r;
        }
    }
    return -1;
}

int TraceQuery_largestGap(TraceDb* db, TraceLane* lane, int64_t* abs_start) {
    /* the op after the largest gap, over every lane: the same gap as the Summary's largest
     * launch gap when copies do not sit in it */
    sqlite3_stmt* st = NULL;
    int found = 0;
    if (TraceDb_prepare(db,
                        "SELECT file, gpu, lane, start_ns, start_ns - pe AS g FROM"
                        " (SELECT *, max(end_ns) OVER (PARTITION BY file, gpu, lane"
                        "   ORDER BY start_ns, end_ns, kind, op_id"
                        "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe"
                        "  FROM (" OPS_SQL "))"
                        " WHERE pe IS NOT NULL ORDER BY g DESC, file, gpu, lane LIMIT 1",
                        &st, NULL) != DCU_OK) {
        return 0;
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        memset(lane, 0, sizeof(*lane));
        lane->file = sqlite3_column_int64(st, 0);
        lane->gpu = sqlite3_column_int64(st, 1);
        lane->stream = sqlite3_column_int64(st, 2);
        *abs_start = sqlite3_column_int64(st, 3);
        found = 1;
    }
    sqlite3_finalize(st);
    return found;
}
