/* trace_query.c - see trace_query.h. */
#include "dcutop/trace_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"

/* Timed ops of used files with their lane, narrow (names are looked up per kernel id after
 * sorting, so the sort moves a few integers a row): dispatches (kernel layer) and copies
 * (copy layer; kernel_id NULL). The lane's stream is the stream, else the queue, as the
 * timeline's launch gaps use. */
#define OPS_SQL                                                                                \
    "SELECT d.file_id AS file, coalesce(d.gpu, -1) AS gpu,"                                    \
    "  coalesce(d.stream, d.queue, -1) AS lane, d.id AS op_id, 0 AS kind, d.kernel_id AS kid," \
    "  d.start_ns AS start_ns, d.end_ns AS end_ns"                                             \
    " FROM dispatch d"                                                                         \
    " WHERE d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"                                   \
    "  AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"                \
    " UNION ALL"                                                                               \
    " SELECT c.file_id, coalesce(c.gpu, -1), coalesce(c.stream, c.queue, -1), c.id, 1, NULL,"  \
    "  c.start_ns, c.end_ns"                                                                   \
    " FROM copy c WHERE c.start_ns IS NOT NULL AND c.end_ns IS NOT NULL"                       \
    "  AND c.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"

/* kernel id -> name, short name, category (borrowed from a ResultSet of the kernel table). */
typedef struct Names_ {
    ResultSet* rs; /* id, name, short_name, category; row i holds kernel ids[i] */
    int64_t* row_of; /* kernel id -> row, -1 */
    int64_t n;
} Names;

static const RsColumn name_cols[] = {{"name", "", CT_TEXT}, {"short_name", "", CT_TEXT},
                                     {"category", "", CT_TEXT}};

static DcuStatus names_load(TraceDb* db, Names* nm, DcuError* err) {
    memset(nm, 0, sizeof(*nm));
    nm->n = TraceDb_scalarInt(db, "SELECT coalesce(max(id), 0) + 1 FROM kernel");
    nm->row_of = xmalloc(sizeof(int64_t) * (size_t)nm->n);
    for (int64_t i = 0; i < nm->n; i++) {
        nm->row_of[i] = -1;
    }
    nm->rs = ResultSet_new("names", name_cols, 3);
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT id, name, short_name, coalesce(category, 'other')"
                                      " FROM kernel",
                                  &st, err);
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < 0 || id >= nm->n) {
            continue;
        }
        int r = ResultSet_addRow(nm->rs);
        for (int c = 0; c < 3; c++) {
            ResultSet_setText(nm->rs, r, c, (const char*)sqlite3_column_text(st, c + 1));
        }
        nm->row_of[id] = r;
    }
    sqlite3_finalize(st);
    return s;
}

static const char* names_get(const Names* nm, int64_t kid, int col) {
    if (kid < 0 || kid >= nm->n || nm->row_of[kid] < 0) {
        return "?";
    }
    const char* t = ResultSet_cellc(nm->rs, (int)nm->row_of[kid], col)->s;
    return t ? t : "?";
}

static void names_done(Names* nm) {
    ResultSet_delete(nm->rs);
    free(nm->row_of);
}

/* Every file's origin, read in one query: a query per file scanned every run's rows, and a
 * folder of 20,000 runs asked it once per gap (minutes). */
typedef struct Origins_ {
    I64Map* at; /* file id -> index + 1 into v */
    int64_t* v;
} Origins;

static void origins_free(void* p) {
    Origins* o = p;
    I64Map_delete(o->at);
    free(o->v);
    free(o);
}

static Origins* origins_read(TraceDb* db) {
    Origins* o = xcalloc(1, sizeof(*o));
    o->at = I64Map_new();
    size_t n = 0, cap = 0;
    sqlite3_stmt* st = NULL;
    /* the group: the files of the same run (README "Runs"): each run has its own clock, and
     * its times start at its first dispatch, as the timeline's do; the earliest start per
     * file and kernel is kept while loading (dispatch_agg.h) */
    if (TraceDb_prepare(db,
                        "WITH r AS (SELECT fb.run_id AS run, min(a.min_start) AS o"
                        "   FROM main.dispatch_agg a JOIN source_file fb ON fb.id = a.file_id"
                        "   WHERE a.file_id IN (SELECT file_id FROM main.used_file"
                        "     WHERE layer = 'kernel') GROUP BY fb.run_id)"
                        " SELECT f.id, r.o FROM source_file f JOIN r ON r.run IS f.run_id",
                        &st, NULL) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                o->v = xrealloc(o->v, cap * sizeof(int64_t));
            }
            o->v[n++] = sqlite3_column_int64(st, 1);
            I64Map_put(o->at, sqlite3_column_int64(st, 0), (int64_t)n);
        }
    }
    sqlite3_finalize(st);
    return o;
}

int64_t TraceQuery_origin(TraceDb* db, int64_t file) {
    TraceDbState now = TraceDb_state(db);
    Origins* o = TraceDb_cached(db, TRACEDB_CACHE_ORIGINS, now);
    if (!o) {
        o = origins_read(db);
        TraceDb_setCached(db, TRACEDB_CACHE_ORIGINS, now, o, origins_free);
    }
    int64_t k = I64Map_get(o->at, file);
    return k > 0 ? o->v[k - 1] : 0;
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

/* The lane's ops (filtered) that start before abs_start: the row where it would be. */
static int64_t rows_before(TraceDb* db, const TraceLane* lane, const char* filter,
                           int64_t abs_start) {
    sqlite3_stmt* st = NULL;
    int64_t n = 0;
    if (TraceDb_prepare(db,
                        "SELECT count(*) FROM (" OPS_SQL ") WHERE file = ?1 AND gpu = ?2"
                        " AND lane = ?3 AND start_ns < ?4 AND (?5 IS NULL OR regexp(?5,"
                        " CASE kind WHEN 0 THEN (SELECT name FROM kernel WHERE id = kid)"
                        " ELSE (SELECT name FROM copy WHERE id = op_id) END))",
                        &st, NULL) != DCU_OK) {
        return 0;
    }
    sqlite3_bind_int64(st, 1, lane->file);
    sqlite3_bind_int64(st, 2, lane->gpu);
    sqlite3_bind_int64(st, 3, lane->stream);
    sqlite3_bind_int64(st, 4, abs_start);
    if (filter && *filter) {
        sqlite3_bind_text(st, 5, filter, -1, SQLITE_TRANSIENT);
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

DcuStatus TraceQuery_ops(TraceDb* db, const TraceLane* lane, const char* filter, ResultSet** out,
                         DcuError* err) {
    return TraceQuery_opsPage(db, lane, filter, -1, 0, out, err);
}

DcuStatus TraceQuery_opsPage(TraceDb* db, const TraceLane* lane, const char* filter,
                             int64_t around, int limit, ResultSet** out, DcuError* err) {
    *out = NULL;
    int64_t offset = 0;
    if (limit > 0 && around >= 0) {
        offset = rows_before(db, lane, filter, around) - limit / 2;
        offset = offset < 0 ? 0 : offset;
    }
    Names nm;
    DcuStatus s = names_load(db, &nm, err);
    sqlite3_stmt* st = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(
            db,
            "SELECT start_ns - ?4, CASE WHEN pe IS NULL THEN NULL ELSE max(0, start_ns - pe) END,"
            " end_ns - start_ns, kind, kid, start_ns,"
            " CASE kind WHEN 1 THEN (SELECT name FROM copy WHERE id = op_id) END FROM"
            " (SELECT *, max(end_ns) OVER (ORDER BY start_ns, end_ns, kind, op_id"
            "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe"
            "  FROM (" OPS_SQL ") WHERE file = ?1 AND gpu = ?2 AND lane = ?3)"
            " WHERE ?5 IS NULL OR regexp(?5, CASE kind WHEN 0 THEN (SELECT name FROM kernel"
            "   WHERE id = kid) ELSE (SELECT name FROM copy WHERE id = op_id) END)"
            " ORDER BY start_ns, end_ns, kind, op_id LIMIT ?6 OFFSET ?7",
            &st, err);
    }
    if (s != DCU_OK) {
        names_done(&nm);
        return s;
    }
    sqlite3_bind_int64(st, 6, limit > 0 ? limit : -1);
    sqlite3_bind_int64(st, 7, offset);
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
        ResultSet_setInt(rs, r, 0, sqlite3_column_int64(st, 0));
        if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
            ResultSet_setInt(rs, r, 1, sqlite3_column_int64(st, 1));
        }
        ResultSet_setInt(rs, r, 2, sqlite3_column_int64(st, 2));
        int copy = sqlite3_column_int(st, 3) == 1;
        int64_t kid = sqlite3_column_int64(st, 4);
        const char* cname = (const char*)sqlite3_column_text(st, 6);
        ResultSet_setText(rs, r, 3, copy ? (cname ? cname : "?") : names_get(&nm, kid, 0));
        ResultSet_setText(rs, r, 4, copy ? (cname ? cname : "?") : names_get(&nm, kid, 1));
        ResultSet_setText(rs, r, 5, copy ? "(copy)" : names_get(&nm, kid, 2));
        ResultSet_setText(rs, r, 6, copy ? "copy" : "kernel");
        ResultSet_setInt(rs, r, 8, sqlite3_column_int64(st, 5));
    }
    if (rc != SQLITE_DONE) {
        /* a bad pattern surfaces here as the regexp() error text */
        s = Error_set(err, filter ? DCU_ERR_REGEX : DCU_ERR_SQL, "%s",
                      sqlite3_errmsg(TraceDb_handle(db)));
        ResultSet_delete(rs);
        rs = NULL;
    }
    sqlite3_finalize(st);
    names_done(&nm);
    if (rs && limit > 0 && (offset > 0 || rs->nrows == limit)) {
        int64_t total = rows_before(db, lane, filter, INT64_MAX);
        if (offset > 0 || total > rs->nrows) {
            rs->footer = xasprintf("Ops %lld-%lld of %lld on this GPU/queue: [ and ] (a region "
                                   "of interest) or a filter narrow it.",
                                   (long long)offset + 1, (long long)(offset + rs->nrows),
                                   (long long)total);
        }
    }
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

DcuStatus TraceQuery_kernelFiles(TraceDb* db, int every_run, int64_t** files,
                                 int64_t** runs, int64_t* n, DcuError* err) {
    *files = *runs = NULL;
    *n = 0;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        every_run ? "SELECT id, coalesce(run_id, 0) FROM source_file WHERE id IN"
                    " (SELECT file_id FROM source_layer WHERE used AND layer = 'kernel')"
                    " ORDER BY coalesce(run_id, 0), id"
                  : "SELECT id, coalesce(run_id, 0) FROM source_file WHERE id IN"
                    " (SELECT file_id FROM used_file WHERE layer = 'kernel')"
                    " ORDER BY coalesce(run_id, 0), id",
        &st, err);
    size_t cap = 0;
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        if ((size_t)*n == cap) {
            cap = cap ? cap * 2 : 64;
            *files = xrealloc(*files, sizeof(int64_t) * cap);
            *runs = xrealloc(*runs, sizeof(int64_t) * cap);
        }
        (*files)[*n] = sqlite3_column_int64(st, 0);
        (*runs)[(*n)++] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return s;
}
