/* job_summary.c - see job_summary.h. The summary is written through an ATTACHed database on
 * the trace's own connection: what SQL already holds (kernel sums, names, idle) is copied
 * by INSERT ... SELECT, the Ranks row and its steps from the structs. */
#include "dcutop/job_summary.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/idle.h"
#include "dcutop/out_file.h"
#include "dcutop/ranks.h"
#include "dcutop/result_set.h"
#include "dcutop/xalloc.h"
#include "ranks_explain.h"

static const char* const schema =
    "CREATE TABLE js.summary_meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE js.kernel(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE TABLE js.kernel_agg(file INTEGER NOT NULL, kernel INTEGER NOT NULL,"
    " calls INTEGER NOT NULL, total_ns REAL NOT NULL, min_ns INTEGER, max_ns INTEGER,"
    " sumsq REAL, min_start INTEGER);"
    "CREATE TABLE js.rank(label TEXT NOT NULL, rank INTEGER, world INTEGER, gpu INTEGER,"
    " pid INTEGER, dispatches INTEGER, comm_dispatches INTEGER, kernel_ns INTEGER,"
    " compute_ns INTEGER, comm_ns INTEGER, exposed_comm_ns INTEGER, busy_ns INTEGER,"
    " wall_ns INTEGER, idle_ns INTEGER, idle_known INTEGER, first_ns INTEGER, last_ns INTEGER,"
    " dir TEXT, clock TEXT, source TEXT);"
    "CREATE TABLE js.step(step INTEGER NOT NULL, step_ns INTEGER, compute_ns INTEGER,"
    " comm_ns INTEGER);"
    "CREATE TABLE js.kernel_step(kernel INTEGER NOT NULL, step INTEGER NOT NULL, ns INTEGER,"
    " calls INTEGER);"
    "CREATE TABLE js.comm(kernel INTEGER NOT NULL, k INTEGER NOT NULL, dur_ns INTEGER NOT NULL,"
    " step INTEGER NOT NULL);"
    "CREATE TABLE js.idle(cause TEXT NOT NULL, gaps INTEGER, ns INTEGER);"
    "CREATE TABLE js.coll(name TEXT, in_nelems INTEGER, out_nelems INTEGER,"
    " group_size INTEGER, dtype TEXT, pg_name TEXT, pg_desc TEXT, pg_ranks TEXT, seq INTEGER,"
    " start_ns INTEGER, end_ns INTEGER);"
    "CREATE TABLE js.var_run(kernel INTEGER NOT NULL, dispatches INTEGER, total_ns INTEGER,"
    " golden_ns INTEGER, var_ns INTEGER, outliers INTEGER);"
    "CREATE TABLE js.var_shape(kernel INTEGER NOT NULL, grid INTEGER, workgroup INTEGER,"
    " dispatches INTEGER, total_ns INTEGER, golden_ns INTEGER, var_ns INTEGER,"
    " outliers INTEGER);";

/* the rank's kernel files, as the Ranks view reads them */
#define RANK_FILES                                                                            \
    "SELECT sl.file_id FROM source_layer sl JOIN source_file f ON f.id = sl.file_id"          \
    " WHERE sl.used AND sl.layer = 'kernel' AND f.run_id = ?1"

static DcuStatus exec_run(TraceDb* db, const char* sql, int64_t run, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    if (sqlite3_step(st) != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "job summary: %s",
                      sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

/* Runs one prepared insert of n int64 values (NULL where null[i]), then resets it. */
static int put(sqlite3_stmt* st, const int64_t* v, const int* null, int n) {
    for (int i = 0; i < n; i++) {
        if (null && null[i]) {
            sqlite3_bind_null(st, i + 1);
        } else {
            sqlite3_bind_int64(st, i + 1, v[i]);
        }
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE;
}

static int by_kernel_start(const void* a, const void* b) {
    const RankComm *x = a, *y = b;
    if (x->kernel_id != y->kernel_id) {
        return x->kernel_id < y->kernel_id ? -1 : 1;
    }
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static DcuStatus write_rank(TraceDb* db, const RankRow* r, DcuError* err) {
    sqlite3* h = TraceDb_handle(db);
    sqlite3_stmt* st = NULL;
    int ok = sqlite3_prepare_v2(h,
                                "INSERT INTO js.rank SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
                                " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, dir, clock,"
                                /* its one file, or its folder: what `dcutop PATH` opens */
                                " (SELECT CASE WHEN count(*) = 1 THEN max(f.path) ELSE run.dir END"
                                " FROM source_file f JOIN source_layer sl ON sl.file_id = f.id"
                                " AND sl.used AND sl.layer = 'kernel' WHERE f.run_id = run.id)"
                                " FROM run WHERE id = ?18",
                                -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_text(st, 1, r->label, -1, SQLITE_STATIC);
        int64_t v[] = {r->rank, r->world, r->gpu, r->pid, r->dispatches, r->comm_dispatches,
                       r->kernel_ns, r->compute_ns, r->comm_ns, r->exposed_comm_ns, r->busy_ns,
                       r->wall_ns, r->idle_ns, r->idle_known, r->first_ns, r->last_ns,
                       r->run_id};
        int null[17] = {r->rank < 0, r->world <= 0, r->gpu < 0, r->pid < 0};
        for (int i = 0; i < 17; i++) {
            if (null[i]) {
                sqlite3_bind_null(st, i + 2);
            } else {
                sqlite3_bind_int64(st, i + 2, v[i]);
            }
        }
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    sqlite3_finalize(st);
    st = NULL;
    ok = ok && sqlite3_prepare_v2(h, "INSERT INTO js.step VALUES(?1, ?2, ?3, ?4)", -1, &st,
                                  NULL) == SQLITE_OK;
    for (int s = 0; ok && s < r->nsteps; s++) {
        int64_t v[] = {s, r->step_ns[s], r->step_compute_ns[s], r->step_comm_ns[s]};
        ok = put(st, v, NULL, 4);
    }
    sqlite3_finalize(st);
    st = NULL;
    ok = ok && sqlite3_prepare_v2(h, "INSERT INTO js.kernel_step VALUES(?1, ?2, ?3, ?4)", -1,
                                  &st, NULL) == SQLITE_OK;
    for (int64_t i = 0; ok && i < r->nks; i++) {
        int64_t v[] = {r->ks[i].kernel_id, r->ks[i].step, r->ks[i].ns, r->ks[i].calls};
        ok = put(st, v, NULL, 4);
    }
    sqlite3_finalize(st);
    st = NULL;
    /* the k-th dispatch of each comm kernel, in start order (a stable sort keeps the
     * dispatch order of equal starts, as idle.c breaks their ties) */
    RankComm* c = xmalloc(sizeof(RankComm) * (size_t)(r->ncomm ? r->ncomm : 1));
    memcpy(c, r->comm, sizeof(RankComm) * (size_t)r->ncomm);
    qsort(c, (size_t)r->ncomm, sizeof(RankComm), by_kernel_start);
    ok = ok && sqlite3_prepare_v2(h, "INSERT INTO js.comm VALUES(?1, ?2, ?3, ?4)", -1, &st,
                                  NULL) == SQLITE_OK;
    for (int64_t i = 0, k = 0; ok && i < r->ncomm; i++) {
        k = i > 0 && c[i].kernel_id == c[i - 1].kernel_id ? k + 1 : 0;
        int64_t v[] = {c[i].kernel_id, k, c[i].dur_ns, c[i].step};
        ok = put(st, v, NULL, 4);
    }
    sqlite3_finalize(st);
    free(c);
    return ok ? DCU_OK : Error_set(err, DCU_ERR_SQL, "job summary: %s", sqlite3_errmsg(h));
}

/* The rank's idle by cause (idle.h), summed over its devices. */
static DcuStatus write_idle(TraceDb* db, const char* label, DcuError* err) {
    ResultSet* rs = NULL;
    DcuStatus s = Idle_view(db, IDLE_CAUSES, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3* h = TraceDb_handle(db);
    sqlite3_stmt* st = NULL;
    int cc = ResultSet_columnIndex(rs, "cause"), cg = ResultSet_columnIndex(rs, "gaps");
    int cr = ResultSet_columnIndex(rs, "run");
    int ct = ResultSet_columnIndex(rs, "total_ns");
    int ok = cc >= 0 && cg >= 0 && ct >= 0 && cr >= 0 &&
             sqlite3_prepare_v2(h, "INSERT INTO js.idle VALUES(?1, ?2, ?3)", -1, &st, NULL) ==
                 SQLITE_OK;
    for (int q = 0; ok && q < rs->nrows; q++) {
        if (strcmp(ResultSet_cellc(rs, q, cr)->s ? ResultSet_cellc(rs, q, cr)->s : "", label)) {
            continue;
        }
        sqlite3_bind_text(st, 1, ResultSet_cellc(rs, q, cc)->s, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ResultSet_cellc(rs, q, cg)->i);
        sqlite3_bind_int64(st, 3, ResultSet_cellc(rs, q, ct)->i);
        ok = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    ResultSet_delete(rs);
    return ok ? DCU_OK : Error_set(err, DCU_ERR_SQL, "job summary: %s", sqlite3_errmsg(h));
}

static DcuStatus write_all(TraceDb* db, const RankRow* r, const char* source, DcuError* err) {
    DcuStatus s = TraceDb_exec(db, schema, err);
    sqlite3_stmt* st = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "INSERT INTO js.summary_meta VALUES ('format', ?1), ('version', ?2),"
                            " ('dcutop', ?3), ('label', ?4), ('source', ?5)",
                            &st, err);
    }
    if (s == DCU_OK) {
        sqlite3_bind_text(st, 1, JOB_SUMMARY_FORMAT, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, JOB_SUMMARY_VERSION);
        sqlite3_bind_text(st, 3, DCUTOP_VERSION, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, r->label, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, source ? source : "", -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "job summary: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_finalize(st);
    }
    if (s == DCU_OK) { /* file numbered by load order: the reduce sums them in that order */
        s = exec_run(db,
                     "INSERT INTO js.kernel_agg SELECT dense_rank() OVER (ORDER BY a.file_id),"
                     " a.kernel_id, a.calls, a.total_ns, a.min_ns, a.max_ns, a.sumsq, a.min_start"
                     " FROM dispatch_agg a WHERE a.file_id IN (" RANK_FILES ")"
                     " ORDER BY a.file_id, a.rowid",
                     r->run_id, err);
    }
    if (s == DCU_OK) { /* per kernel over the rank's files, as one run's figures add up */
        s = exec_run(db,
                     "INSERT INTO js.var_run SELECT kernel_id, sum(dispatches), sum(total_ns),"
                     " min(golden_ns), sum(var_ns), sum(outliers) FROM kernel_var_run"
                     " WHERE file_id IN (" RANK_FILES ") GROUP BY kernel_id",
                     r->run_id, err);
    }
    if (s == DCU_OK) { /* shapes are kept for all runs together: one rank alone here */
        s = TraceDb_exec(db,
                         "INSERT INTO js.var_shape SELECT kernel_id, grid, workgroup, dispatches,"
                         " total_ns, golden_ns, var_ns, outliers FROM kernel_var_shape",
                         err);
    }
    if (s == DCU_OK) { /* each collective kernel with its args, its record_param_comms' filled
                        * in as the collectives view joins them (collectives.c) */
        s = exec_run(db,
                     "INSERT INTO js.coll SELECT coalesce(c.name, k.name),"
                     " coalesce(k.in_nelems, c.in_nelems), coalesce(k.out_nelems, c.out_nelems),"
                     " coalesce(k.group_size, c.group_size), coalesce(k.dtype, c.dtype),"
                     " coalesce(k.pg_name, c.pg_name), coalesce(k.pg_desc, c.pg_desc),"
                     " coalesce(k.pg_ranks, c.pg_ranks), coalesce(k.seq, c.seq), k.start_ns,"
                     " k.end_ns FROM comm_op k LEFT JOIN comm_op c ON c.id = (SELECT min(h.id)"
                     " FROM comm_op h WHERE h.file_id = k.file_id AND h.ext_id = k.ext_id"
                     " AND h.source = 'cpu_op') WHERE k.source = 'kernel' AND k.file_id IN ("
                     RANK_FILES ") ORDER BY k.file_id, k.id",
                     r->run_id, err);
    }
    if (s == DCU_OK) {
        s = write_rank(db, r, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_exec(db,
                         "INSERT INTO js.kernel SELECT id, name FROM kernel WHERE id IN"
                         " (SELECT kernel FROM js.kernel_agg UNION SELECT kernel FROM"
                         " js.kernel_step UNION SELECT kernel FROM js.comm UNION SELECT kernel"
                         " FROM js.var_run UNION SELECT kernel FROM js.var_shape)",
                         err);
    }
    if (s == DCU_OK) {
        s = write_idle(db, r->label, err);
    }
    return s;
}

/* "<label>.dcusum" in dir, the label's '/' and control characters made '_'. Owned. */
static char* summary_path(const char* dir, const char* label) {
    char* name = xasprintf("%s.dcusum", label);
    for (char* p = name; *p; p++) {
        if (*p == '/' || (unsigned char)*p < 0x20) {
            *p = '_';
        }
    }
    char* path = xasprintf("%s/%s", dir, name[0] == '.' ? name + 0 : name);
    free(name);
    return path;
}

static DcuStatus write_one(TraceDb* db, const RankRow* r, const char* path, const char* source,
                           int force, DcuError* err) {
    OutFile of;
    DcuStatus s = OutFile_open(&of, path, OUT_SEEKABLE | (force ? OUT_FORCE_ALL : 0), err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3* h = TraceDb_handle(db);
    sqlite3_stmt* at = NULL;
    if (sqlite3_prepare_v2(h, "ATTACH ?1 AS js", -1, &at, NULL) != SQLITE_OK) {
        s = Error_set(err, DCU_ERR_SQL, "%s: %s", path, sqlite3_errmsg(h));
    } else {
        sqlite3_bind_text(at, 1, OutFile_tempPath(&of), -1, SQLITE_STATIC);
        if (sqlite3_step(at) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_IO, "%s: cannot create: %s", path, sqlite3_errmsg(h));
        }
    }
    sqlite3_finalize(at);
    if (s == DCU_OK) {
        s = TraceDb_exec(db, "PRAGMA js.journal_mode=OFF; BEGIN", err);
        if (s == DCU_OK) {
            s = write_all(db, r, source, err);
            TraceDb_exec(db, s == DCU_OK ? "COMMIT" : "ROLLBACK", NULL);
        }
        TraceDb_exec(db, "DETACH js", NULL);
    }
    return OutFile_finish(&of, s, err);
}

DcuStatus JobSummary_write(TraceDb* db, const char* dir, const char* source, int force,
                           int* written, DcuError* err) {
    *written = 0;
    Ranks* j = NULL;
    DcuStatus s = Ranks_newRank(db, &j, err);
    if (s == DCU_OK && j->n == 0) {
        s = Error_set(err, DCU_ERR_EMPTY, "%s: no timed kernel dispatches: nothing to summarize",
                      source ? source : "");
    }
    for (int i = 0; s == DCU_OK && i < j->n; i++) {
        char* path = summary_path(dir, j->rows[i].label);
        s = write_one(db, &j->rows[i], path, source, force, err);
        *written += s == DCU_OK;
        free(path);
    }
    Ranks_delete(j);
    return s;
}
