/* kineto_link.c - see kineto_link.h. */
#include "dcutop/kineto_link.h"

#include <stdlib.h>

#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"

/* The best op so far for a key: SQL's ORDER BY start_ns DESC, id LIMIT 1 (a NULL start
 * sorts last under DESC). */
typedef struct {
    int64_t start, id; /* id 0: none yet */
    int has_start;
} Best;

/* key -> Best, the values in an array (the map holds index + 1). */
typedef struct {
    I64Map* ix;
    Best* v;
    int64_t n, cap;
} Map;

static Best* find(Map* m, int64_t key, int add) {
    int64_t i = I64Map_get(m->ix, key);
    if (i) {
        return &m->v[i - 1];
    }
    if (!add) {
        return NULL;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 1024;
        m->v = xrealloc(m->v, sizeof(Best) * (size_t)m->cap);
    }
    m->v[m->n] = (Best){0, 0, 0};
    I64Map_put(m->ix, key, ++m->n);
    return &m->v[m->n - 1];
}

static void map_free(Map* m) {
    I64Map_delete(m->ix);
    free(m->v);
}

/* Keeps in b the better of b and (start, id): later start first, then lower id. */
static void offer(Best* b, int has_start, int64_t start, int64_t id) {
    int better;
    if (b->id == 0) {
        better = 1;
    } else if (has_start != b->has_start) {
        better = has_start;
    } else if (has_start && start != b->start) {
        better = start > b->start;
    } else {
        better = id < b->id;
    }
    if (better) {
        b->has_start = has_start;
        b->start = start;
        b->id = id;
    }
}

/* One file's rows of `sql` into m. Without via, a row is (key, start_ns, id): an op by its
 * External id. With via, a row is (key, ext_id): the op via gives that External id. */
static DcuStatus best_ops(TraceDb* db, int64_t file, const char* sql, Map* via, Map* m,
                          DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t key = sqlite3_column_int64(st, 0);
        if (!via) {
            offer(find(m, key, 1), sqlite3_column_type(st, 1) != SQLITE_NULL,
                  sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
            continue;
        }
        const Best* op = find(via, sqlite3_column_int64(st, 1), 0);
        if (op && op->id != 0) {
            offer(find(m, key, 1), op->has_start, op->start, op->id);
        }
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "kineto links: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

static DcuStatus dispatches(TraceDb* db, int64_t file, Map* corr, KinetoLink** out, int64_t* n,
                            DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT d.id, d.kernel_id, d.dur_ns, d.corr_id FROM dispatch d"
                                  " WHERE " DISPATCH_OF_FILE("?1") " AND d.corr_id IS NOT NULL"
                                  " ORDER BY d.id",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    /* sized once from the file's row count: growing a million-row array was 1% (issue 23) */
    char* sql = xasprintf("SELECT n FROM dispatch_span WHERE file_id = %lld", (long long)file);
    int64_t rows = TraceDb_scalarInt(db, sql);
    free(sql);
    size_t cap = rows > 0 ? (size_t)rows : 0;
    *out = cap ? xmalloc(sizeof(KinetoLink) * cap) : NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((size_t)*n == cap) {
            cap = cap ? cap * 2 : 1024;
            *out = xrealloc(*out, sizeof(KinetoLink) * cap);
        }
        const Best* op = find(corr, sqlite3_column_int64(st, 3), 0);
        (*out)[(*n)++] = (KinetoLink){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                      sqlite3_column_int64(st, 2), op ? op->id : 0};
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "kineto dispatches: %s",
                      sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    if (*n == 0) {
        free(*out); /* none: NULL, as before the array was sized up front */
        *out = NULL;
    }
    return s;
}

DcuStatus KinetoLink_file(TraceDb* db, int64_t file, int only_file, KinetoLink** out,
                          int64_t* n, DcuError* err) {
    *out = NULL;
    *n = 0;
    Map ext = {I64Map_new(), NULL, 0, 0}, corr = {I64Map_new(), NULL, 0, 0};
    /* External id -> the file's innermost op with it; then correlation id -> the best op
     * over every ext_link row of that correlation */
    DcuStatus s = best_ops(db, file,
                           only_file ? "SELECT ext_id, start_ns, id FROM cpu_op NOT INDEXED"
                                       " WHERE file_id = ?1 AND ext_id IS NOT NULL"
                                     : "SELECT ext_id, start_ns, id FROM cpu_op"
                                       " WHERE file_id = ?1 AND ext_id IS NOT NULL",
                           NULL, &ext, err);
    if (s == DCU_OK) {
        s = best_ops(db, file,
                     only_file ? "SELECT corr_id, ext_id FROM ext_link NOT INDEXED"
                                 " WHERE file_id = ?1 AND corr_id IS NOT NULL"
                                 " AND ext_id IS NOT NULL"
                               : "SELECT corr_id, ext_id FROM ext_link WHERE file_id = ?1"
                                 " AND corr_id IS NOT NULL AND ext_id IS NOT NULL",
                     &ext, &corr, err);
    }
    map_free(&ext);
    if (s == DCU_OK) {
        s = dispatches(db, file, &corr, out, n, err);
    }
    map_free(&corr);
    if (s != DCU_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return s;
}
