/* load_summary.c - see load_summary.h. A summary's rows are copied as the map wrote them:
 * its kernel ids are its own, mapped to this load's by name (Load_kernelId). */
#include "load_summary.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/job_summary.h"
#include "dcutop/xalloc.h"

int LoadSummary_isDb(sqlite3* in) {
    sqlite3_stmt* st = NULL;
    int yes = 0;
    if (sqlite3_prepare_v2(in, "SELECT value FROM summary_meta WHERE key = 'format'", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char* v = (const char*)sqlite3_column_text(st, 0);
        yes = v && strcmp(v, JOB_SUMMARY_FORMAT) == 0;
    }
    sqlite3_finalize(st);
    return yes;
}

typedef struct {
    LoaderCore* core;
    LoadFile* f;
    sqlite3* in;
    I64Map* kernels; /* the summary's kernel id -> this load's */
    int ok;
} Sum;

/* Copies every row of the summary's query `from` into this load's statement `to`, column i
 * to parameter i + 2 (parameter 1 is the file id); columns listed in `kcols` (a mask) are
 * kernel ids, mapped. A row naming an unknown kernel is rejected. */
static int64_t copy(Sum* s, const char* what, const char* from, const char* to, unsigned kcols) {
    sqlite3_stmt *in = NULL, *out = NULL;
    int64_t rows = 0;
    if (sqlite3_prepare_v2(s->in, from, -1, &in, NULL) != SQLITE_OK) {
        Load_message(s->core, s->f, "job summary: %s not read: %s", what, sqlite3_errmsg(s->in));
        s->ok = 0;
        sqlite3_finalize(in);
        return 0;
    }
    if (TraceDb_prepare(s->core->db, to, &out, NULL) != DCU_OK) {
        sqlite3_finalize(in);
        s->ok = 0;
        return 0;
    }
    int n = sqlite3_column_count(in);
    int rc;
    while ((rc = sqlite3_step(in)) == SQLITE_ROW) {
        sqlite3_bind_int64(out, 1, s->f->id);
        int bad = 0;
        for (int c = 0; c < n; c++) {
            if (kcols & (1u << c)) {
                int64_t k = I64Map_get(s->kernels, sqlite3_column_int64(in, c));
                bad |= k == 0;
                sqlite3_bind_int64(out, c + 2, k);
            } else {
                sqlite3_bind_value(out, c + 2, sqlite3_column_value(in, c));
            }
        }
        if (bad) {
            Load_reject(s->core, s->f, 0, "job summary: a %s row names a kernel the summary lacks",
                        what);
        } else if (sqlite3_step(out) == SQLITE_DONE) {
            rows++;
        } else {
            Load_reject(s->core, s->f, 0, "job summary: %s row: %s", what,
                        sqlite3_errmsg(TraceDb_handle(s->core->db)));
        }
        sqlite3_reset(out);
        sqlite3_clear_bindings(out);
    }
    if (rc != SQLITE_DONE) {
        Load_message(s->core, s->f, "job summary: %s: %s", what, sqlite3_errmsg(s->in));
        s->ok = 0;
    }
    sqlite3_finalize(in);
    sqlite3_finalize(out);
    return rows;
}

static void read_kernels(Sum* s) {
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(s->in, "SELECT id, name FROM kernel", -1, &st, NULL) != SQLITE_OK) {
        Load_message(s->core, s->f, "job summary: kernels not read: %s", sqlite3_errmsg(s->in));
        s->ok = 0;
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char* name = (const char*)sqlite3_column_text(st, 1);
        int64_t id = name ? Load_kernelId(s->core, name, strlen(name)) : 0;
        if (id) {
            I64Map_put(s->kernels, sqlite3_column_int64(st, 0), id);
        }
    }
    sqlite3_finalize(st);
}

static int version_of(sqlite3* in) {
    sqlite3_stmt* st = NULL;
    int v = 0;
    if (sqlite3_prepare_v2(in, "SELECT value FROM summary_meta WHERE key = 'version'", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

void LoadSummary_read(LoaderCore* core, LoadFile* f, sqlite3* in) {
    f->format = "dcutop job summary";
    int v = version_of(in);
    if (v != JOB_SUMMARY_VERSION) {
        f->format = "skipped";
        f->note = xasprintf("dcutop job summary of version %d; this dcutop reads version %d "
                            "(summarize the trace again)",
                            v, JOB_SUMMARY_VERSION);
        return;
    }
    Sum s = {core, f, in, I64Map_new(), 1};
    read_kernels(&s);
    /* the kernel sums as the map's loader took them: the hotspots of a full load */
    int64_t rows = copy(&s, "kernel_agg",
                        "SELECT kernel, calls, total_ns, min_ns, max_ns, sumsq, min_start"
                        " FROM kernel_agg ORDER BY file, rowid",
                        "INSERT INTO dispatch_agg(file_id, kernel_id, calls, total_ns, min_ns,"
                        " max_ns, sumsq, min_start) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        1u << 0);
    copy(&s, "rank",
         "SELECT label, rank, world, gpu, pid, dispatches, comm_dispatches, kernel_ns, compute_ns,"
         " comm_ns, exposed_comm_ns, busy_ns, wall_ns, idle_ns, idle_known, first_ns, last_ns,"
         " dir, clock, source FROM rank LIMIT 1",
         "INSERT INTO job_rank VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
         " ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
         0);
    copy(&s, "step", "SELECT step, step_ns, compute_ns, comm_ns FROM step",
         "INSERT INTO job_step VALUES(?1, ?2, ?3, ?4, ?5)", 0);
    copy(&s, "kernel_step", "SELECT kernel, step, ns, calls FROM kernel_step",
         "INSERT INTO job_kernel_step VALUES(?1, ?2, ?3, ?4, ?5)", 1u << 0);
    copy(&s, "comm", "SELECT kernel, k, dur_ns, step FROM comm",
         "INSERT INTO job_comm VALUES(?1, ?2, ?3, ?4, ?5)", 1u << 0);
    copy(&s, "var_run", "SELECT kernel, dispatches, total_ns, golden_ns, var_ns, outliers FROM var_run",
         "INSERT INTO job_var_run VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)", 1u << 0);
    copy(&s, "var_shape",
         "SELECT kernel, grid, workgroup, dispatches, total_ns, golden_ns, var_ns, outliers"
         " FROM var_shape",
         "INSERT INTO job_var_shape VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", 1u << 0);
    copy(&s, "coll",
         "SELECT name, in_nelems, out_nelems, group_size, dtype, pg_name, pg_desc, pg_ranks, seq,"
         " start_ns, end_ns FROM coll ORDER BY rowid",
         "INSERT INTO comm_op(file_id, source, name, in_nelems, out_nelems, group_size, dtype,"
         " pg_name, pg_desc, pg_ranks, seq, start_ns, end_ns) VALUES(?1, 'kernel', ?2, ?3, ?4, ?5,"
         " ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
         0);
    copy(&s, "idle", "SELECT cause, gaps, ns FROM idle",
         "INSERT INTO job_idle VALUES(?1, ?2, ?3, ?4)", 0);
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(core->db,
                        "UPDATE source_file SET dist_rank = (SELECT rank FROM job_rank WHERE"
                        " file_id = ?1), dist_world = (SELECT world FROM job_rank WHERE"
                        " file_id = ?1) WHERE id = ?1",
                        &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, f->id);
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    I64Map_delete(s.kernels);
    f->rows += rows;
    if (rows > 0) {
        f->layer_rows[LAYER_KERNEL] += (int)rows;
        f->layer_grain[LAYER_KERNEL] = 1; /* sums, as a stats file's */
        f->layer_rank[LAYER_KERNEL] = 1;
    }
    if (!s.ok && !f->note) {
        f->note = xstrdup("job summary read in part (see load messages)");
    }
}
