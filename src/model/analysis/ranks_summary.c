/* ranks_summary.c - see ranks_summary.h. */
#include "ranks_summary.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"
#include "ranks_explain.h"

int RanksSummary_present(TraceDb* db) {
    return TraceDb_scalarInt(db, "SELECT EXISTS(SELECT 1 FROM job_rank)") == 1;
}

/* The rows in the order Ranks_new sorts them: ranks first by number, then GPU, PID, run. */
static DcuStatus read_rows(TraceDb* db, Ranks* j, I64Map* at, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(
        db,
        "SELECT f.run_id, r.label, r.rank, r.world, r.gpu, r.pid, r.dispatches,"
        " r.comm_dispatches, r.kernel_ns, r.compute_ns, r.comm_ns, r.exposed_comm_ns, r.busy_ns,"
        " r.wall_ns, r.idle_ns, r.idle_known, r.first_ns, r.last_ns, r.file_id"
        " FROM job_rank r JOIN source_file f ON f.id = r.file_id"
        " WHERE f.run_id IS NOT NULL AND r.dispatches > 0"
        " ORDER BY r.rank IS NULL, r.rank, coalesce(r.gpu, -1), coalesce(r.pid, -1), f.run_id",
        &st, err);
    if (rc != DCU_OK) {
        return rc;
    }
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (j->n == cap) {
            cap = cap ? cap * 2 : 16;
            j->rows = xrealloc(j->rows, sizeof(RankRow) * (size_t)cap);
        }
        RankRow* r = &j->rows[j->n];
        memset(r, 0, sizeof(*r));
        r->run_id = sqlite3_column_int64(st, 0);
        r->label = xstrdup((const char*)sqlite3_column_text(st, 1));
        r->rank = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
        r->world = sqlite3_column_int(st, 3);
        r->gpu = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 4);
        r->pid = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
        int64_t* v[] = {&r->dispatches, &r->comm_dispatches, &r->kernel_ns, &r->compute_ns,
                        &r->comm_ns,    &r->exposed_comm_ns, &r->busy_ns,   &r->wall_ns,
                        &r->idle_ns};
        for (int c = 0; c < 9; c++) {
            *v[c] = sqlite3_column_int64(st, 6 + c);
        }
        r->idle_known = sqlite3_column_int(st, 15);
        r->first_ns = sqlite3_column_int64(st, 16);
        r->last_ns = sqlite3_column_int64(st, 17);
        I64Map_put(at, sqlite3_column_int64(st, 18), ++j->n);
    }
    sqlite3_finalize(st);
    return DCU_OK;
}

/* Each rank's steps (step_ns, compute, comm), in step order. */
static DcuStatus read_steps(TraceDb* db, Ranks* j, I64Map* at, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db,
                                   "SELECT file_id, count(*) FROM job_step GROUP BY file_id",
                                   &st, err);
    while (rc == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t i = I64Map_get(at, sqlite3_column_int64(st, 0));
        if (i) {
            RankRow* r = &j->rows[i - 1];
            r->nsteps = sqlite3_column_int(st, 1);
            r->step_ns = xcalloc((size_t)r->nsteps, sizeof(int64_t));
            r->step_compute_ns = xcalloc((size_t)r->nsteps, sizeof(int64_t));
            r->step_comm_ns = xcalloc((size_t)r->nsteps, sizeof(int64_t));
            r->step_wait_ns = xcalloc((size_t)r->nsteps, sizeof(int64_t));
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == DCU_OK) {
        rc = TraceDb_prepare(db, "SELECT file_id, step, step_ns, compute_ns, comm_ns FROM job_step",
                             &st, err);
    }
    while (rc == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t i = I64Map_get(at, sqlite3_column_int64(st, 0));
        int s = sqlite3_column_int(st, 1);
        if (i && s >= 0 && s < j->rows[i - 1].nsteps) {
            RankRow* r = &j->rows[i - 1];
            r->step_ns[s] = sqlite3_column_int64(st, 2);
            r->step_compute_ns[s] = sqlite3_column_int64(st, 3);
            r->step_comm_ns[s] = sqlite3_column_int64(st, 4);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

static DcuStatus read_kernel_steps(TraceDb* db, Ranks* j, I64Map* at, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(
        db, "SELECT file_id, kernel_id, step, ns, calls FROM job_kernel_step", &st, err);
    while (rc == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t i = I64Map_get(at, sqlite3_column_int64(st, 0));
        if (!i) {
            continue;
        }
        RankRow* r = &j->rows[i - 1];
        if (r->nks == r->capks) {
            r->capks = r->capks ? r->capks * 2 : 64;
            r->ks = xrealloc(r->ks, sizeof(RankKernelStep) * (size_t)r->capks);
        }
        r->ks[r->nks++] = (RankKernelStep){sqlite3_column_int64(st, 1), sqlite3_column_int(st, 2),
                                           sqlite3_column_int64(st, 3),
                                           sqlite3_column_int64(st, 4)};
    }
    sqlite3_finalize(st);
    return rc;
}

/* The rank-waits per step: a collective's duration beyond the shortest of the ranks that
 * ran it (two at least), as idle.c's rank_wait matches them. One sorted pass: a join of the
 * comm rows with their per-collective minimum took a third of a second at 512 ranks. */
typedef struct {
    int64_t file, dur;
    int step;
} Comm;

static void add_waits(Ranks* j, I64Map* at, const Comm* c, int64_t n) {
    if (n < 2) {
        return;
    }
    int64_t mn = c[0].dur;
    for (int64_t i = 1; i < n; i++) {
        mn = c[i].dur < mn ? c[i].dur : mn;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t r = I64Map_get(at, c[i].file);
        if (c[i].dur > mn) {
            j->have_waits = 1; /* a wait above zero somewhere, in a step or not */
            if (r && c[i].step >= 0 && c[i].step < j->rows[r - 1].nsteps) {
                j->rows[r - 1].step_wait_ns[c[i].step] += c[i].dur - mn;
            }
        }
    }
}

static DcuStatus read_waits(TraceDb* db, Ranks* j, I64Map* at, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(
        db, "SELECT kernel_id, k, file_id, dur_ns, step FROM job_comm ORDER BY kernel_id, k",
        &st, err);
    Comm* c = NULL;
    int64_t n = 0, cap = 0, kernel = -1, k = -1;
    while (rc == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t kk = sqlite3_column_int64(st, 0), ki = sqlite3_column_int64(st, 1);
        if (kk != kernel || ki != k) { /* the next collective */
            add_waits(j, at, c, n);
            n = 0;
            kernel = kk;
            k = ki;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            c = xrealloc(c, sizeof(Comm) * (size_t)cap);
        }
        c[n++] = (Comm){sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                        sqlite3_column_int(st, 4)};
    }
    add_waits(j, at, c, n);
    free(c);
    sqlite3_finalize(st);
    return rc;
}

/* How the ranks are numbered: distributedInfo when every rank has one, else by GPU and PID
 * when every rank was recorded in one folder on one clock, all at once (ranks_job.c). */
static void number(TraceDb* db, Ranks* j) {
    int dist = 1;
    for (int i = 0; i < j->n; i++) {
        dist = dist && j->rows[i].rank >= 0;
    }
    if (dist) {
        j->source = RANK_SRC_DIST;
        return;
    }
    int concurrent = j->n >= 2 && Ranks_summaryConcurrentDb(db);
    j->source = concurrent ? RANK_SRC_PIDGPU : RANK_SRC_UNKNOWN;
    for (int i = 0; i < j->n; i++) { /* the SQL order put them in GPU, PID order */
        j->rows[i].rank = concurrent ? i : -1;
    }
}

DcuStatus RanksSummary_fill(TraceDb* db, Ranks* j, DcuError* err) {
    I64Map* at = I64Map_new(); /* job_rank.file_id -> 1 + row index */
    DcuStatus rc = read_rows(db, j, at, err);
    if (rc == DCU_OK) {
        rc = read_steps(db, j, at, err);
    }
    if (rc == DCU_OK) {
        rc = read_kernel_steps(db, j, at, err);
    }
    if (rc == DCU_OK && j->n >= 2) {
        rc = read_waits(db, j, at, err);
    }
    I64Map_delete(at);
    if (rc == DCU_OK) {
        number(db, j);
    }
    return rc;
}

char* Ranks_summarySource(TraceDb* db, int64_t run_id) {
    sqlite3_stmt* st = NULL;
    char* v = NULL;
    if (TraceDb_prepare(db,
                        "SELECT r.source FROM job_rank r JOIN source_file f ON f.id = r.file_id"
                        " WHERE f.run_id = ?1 AND r.source IS NOT NULL LIMIT 1",
                        &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = xstrdup((const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    return v;
}
