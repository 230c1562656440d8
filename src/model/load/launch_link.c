/* launch_link.c - see launch_link.h. */
#include "dcutop/launch_link.h"

#include <stdlib.h>

#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"

typedef struct {
    int64_t id, tid, start;
    int hip, has_tid, has_start;
} Call;

typedef struct {
    I64Map* ix; /* corr_id -> index + 1 */
    Call* v;
    int64_t n, cap;
} Calls;

/* SQL's ORDER BY domain <> 'HIP', id LIMIT 1 (domain is NOT NULL). */
static int better(const Call* c, const Call* best) {
    return c->hip != best->hip ? c->hip : c->id < best->id;
}

static void offer(Calls* m, int64_t corr, const Call* c) {
    int64_t i = I64Map_get(m->ix, corr);
    if (i) {
        if (better(c, &m->v[i - 1])) {
            m->v[i - 1] = *c;
        }
        return;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 1024;
        m->v = xrealloc(m->v, sizeof(Call) * (size_t)m->cap);
    }
    m->v[m->n++] = *c;
    I64Map_put(m->ix, corr, m->n);
}

/* Every call with a correlation id in any file of the run. A table scan: through the
 * index on (file_id, corr_id) each row cost a seek besides (304 -> 220 ms at a million
 * calls); the order rows come in is moot, `better` ranks them whatever it is. */
static DcuStatus read_calls(TraceDb* db, int64_t run, Calls* m, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT a.corr_id, a.domain = 'HIP', a.id, a.tid, a.start_ns"
                                  " FROM api_call a NOT INDEXED WHERE a.corr_id IS NOT NULL"
                                  " AND a.file_id IN (SELECT id FROM source_file"
                                  " WHERE run_id = ?1)",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        Call c = {sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                  sqlite3_column_int64(st, 4), sqlite3_column_int(st, 1) != 0,
                  sqlite3_column_type(st, 3) != SQLITE_NULL,
                  sqlite3_column_type(st, 4) != SQLITE_NULL};
        offer(m, sqlite3_column_int64(st, 0), &c);
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "launch calls: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

static DcuStatus read_dispatches(TraceDb* db, const int64_t* files, int64_t nfiles,
                                 const Calls* calls, LaunchLink** out, int64_t* n,
                                 DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT d.id, d.tid, d.start_ns, d.corr_id FROM dispatch d"
                                  " WHERE " DISPATCH_OF_FILE("?1") " ORDER BY d.id",
                                  &st, err);
    /* sized once from the files' row counts: growing a million-row array was 1% (issue 23) */
    size_t cap = 0;
    for (int64_t f = 0; s == DCU_OK && f < nfiles; f++) {
        char* sql = xasprintf("SELECT n FROM dispatch_span WHERE file_id = %lld",
                              (long long)files[f]);
        int64_t rows = TraceDb_scalarInt(db, sql);
        free(sql);
        cap += rows > 0 ? (size_t)rows : 0;
    }
    *out = cap ? xmalloc(sizeof(LaunchLink) * cap) : NULL;
    for (int64_t f = 0; s == DCU_OK && f < nfiles; f++) {
        sqlite3_bind_int64(st, 1, files[f]);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if ((size_t)*n == cap) {
                cap = cap ? cap * 2 : 1024;
                *out = xrealloc(*out, sizeof(LaunchLink) * cap);
            }
            LaunchLink* l = &(*out)[(*n)++];
            l->dispatch_id = sqlite3_column_int64(st, 0);
            l->file_id = files[f];
            l->tid = sqlite3_column_int64(st, 1);
            l->start = sqlite3_column_int64(st, 2);
            l->has_tid = sqlite3_column_type(st, 1) != SQLITE_NULL;
            l->has_start = sqlite3_column_type(st, 2) != SQLITE_NULL;
            int64_t i = calls && sqlite3_column_type(st, 3) != SQLITE_NULL
                            ? I64Map_get(calls->ix, sqlite3_column_int64(st, 3))
                            : 0;
            /* every field set, found or not: the compiler tests `call && call_has_start`
             * as one mask over their shared byte, and valgrind saw an unset bit there */
            const Call* c = i ? &calls->v[i - 1] : NULL;
            l->call = c != NULL;
            l->call_tid = c ? c->tid : 0;
            l->call_start = c ? c->start : 0;
            l->call_has_tid = c && c->has_tid;
            l->call_has_start = c && c->has_start;
        }
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "launch dispatches: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
        }
    }
    sqlite3_finalize(st);
    if (*n == 0) {
        free(*out); /* none: NULL, as before the array was sized up front */
        *out = NULL;
    }
    return s;
}

DcuStatus LaunchLink_run(TraceDb* db, int64_t run, const int64_t* files, int64_t nfiles,
                         int with_calls, LaunchLink** out, int64_t* n, DcuError* err) {
    *out = NULL;
    *n = 0;
    Calls calls = {I64Map_new(), NULL, 0, 0};
    DcuStatus s = DCU_OK;
    if (with_calls && run != 0) {
        s = read_calls(db, run, &calls, err);
    }
    if (s == DCU_OK) {
        s = read_dispatches(db, files, nfiles, with_calls && run != 0 ? &calls : NULL, out, n,
                            err);
    }
    I64Map_delete(calls.ix);
    free(calls.v);
    if (s != DCU_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return s;
}
