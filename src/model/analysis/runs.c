/* runs.c - see runs.h. */
#include "dcutop/runs.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/timeline.h"
#include "dcutop/variab.h"
#include "dcutop/roi.h"
#include "dcutop/xalloc.h"

static DcuStatus sql_error(TraceDb* db, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "runs: %s", sqlite3_errmsg(TraceDb_handle(db)));
}

DcuStatus Runs_setScope(TraceDb* db, const int64_t* ids, int n, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = DCU_OK;
    int all = ids && n == 1 && ids[0] == RUNS_ALL;
    RunsChoice ch;
    if (!all && (!ids || n <= 0) && (s = Runs_choice(db, &ch, err)) != DCU_OK) {
        return s;
    }
    for (int i = 0; ids && !all && i < n; i++) { /* check first: a bad id leaves the scope as it was */
        if (TraceDb_prepare(db, "SELECT 1 FROM run WHERE id = ?1", &st, err) != DCU_OK) {
            return DCU_ERR_SQL;
        }
        sqlite3_bind_int64(st, 1, ids[i]);
        int found = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
        if (!found) {
            return Error_set(err, DCU_ERR_USAGE, "no run with id %lld", (long long)ids[i]);
        }
    }
    s = TraceDb_exec(db, "SAVEPOINT scope; DELETE FROM run_scope", err);
    if (s != DCU_OK) {
        return s;
    }
    if (all) {
        s = TraceDb_exec(db, "INSERT INTO run_scope(run_id) SELECT id FROM run", err);
    } else if (!ids || n <= 0) {
        s = TraceDb_exec(db, "INSERT INTO run_scope(run_id) SELECT run_id FROM temp.run_default",
                         err);
    } else if ((s = TraceDb_prepare(db, "INSERT OR IGNORE INTO run_scope(run_id) VALUES(?1)", &st,
                                    err)) == DCU_OK) {
        for (int i = 0; s == DCU_OK && i < n; i++) {
            sqlite3_bind_int64(st, 1, ids[i]);
            if (sqlite3_step(st) != SQLITE_DONE) {
                s = sql_error(db, err);
            }
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    /* every screen reads the materialized summary: rebuild it for the new scope */
    if (s == DCU_OK) {
        /* from the sums taken while loading, unless a region of interest cuts dispatches */
        s = TraceDb_exec(db,
                         Roi_active(db, NULL)
                             ? "DELETE FROM kernel_summary;"
                               "INSERT INTO kernel_summary(kernel_id, calls, total_ns, min_ns,"
                               " max_ns, sumsq, has_sq, per_dispatch)"
                               " SELECT * FROM kernel_summary_v"
                             : "DELETE FROM kernel_summary;"
                               "INSERT INTO kernel_summary(kernel_id, calls, total_ns, min_ns,"
                               " max_ns, sumsq, has_sq, per_dispatch)"
                               " SELECT * FROM kernel_summary_agg_v",
                         err);
    }
    if (s == DCU_OK) { /* variability is a figure of the kernels in scope too */
        s = Variab_compute(db, err);
    }
    if (s == DCU_OK) {
        return TraceDb_exec(db, "RELEASE scope", err);
    }
    TraceDb_exec(db, "ROLLBACK TO scope; RELEASE scope", NULL);
    return s;
}

int64_t Runs_byLabel(TraceDb* db, const char* label) {
    sqlite3_stmt* st = NULL;
    int64_t id = 0;
    if (label && TraceDb_prepare(db, "SELECT id FROM run WHERE label = ?1", &st, NULL) == DCU_OK) {
        sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW) {
            id = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    }
    return id;
}

int Runs_count(TraceDb* db) {
    return (int)TraceDb_scalarInt(db, "SELECT count(*) FROM run");
}

int Runs_inScope(TraceDb* db) {
    return (int)TraceDb_scalarInt(db, "SELECT count(*) FROM run_scope s JOIN run r"
                                      " ON r.id = s.run_id");
}

int64_t Runs_scopeRun(TraceDb* db) {
    RunsChoice ch;
    int n = Runs_count(db);
    if (n < 2 || Runs_choice(db, &ch, NULL) != DCU_OK) {
        return 0;
    }
    int in = Runs_inScope(db);
    if (TraceDb_scalarInt(db, "SELECT (SELECT count(*) FROM temp.run_default) = count(*)"
                              " AND count(*) = (SELECT count(*) FROM temp.run_default d"
                              "  JOIN run_scope s ON s.run_id = d.run_id) FROM run_scope") == 1) {
        return 0; /* the default scope */
    }
    if (in == n) {
        return RUNS_ALL;
    }
    return in == 1 ? TraceDb_scalarInt(db, "SELECT run_id FROM run_scope") : 0;
}

char* Runs_label(TraceDb* db, int64_t id) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if (TraceDb_prepare(db, "SELECT label FROM run WHERE id = ?1", &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            out = xstrdup((const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    return out;
}

char* Runs_labels(TraceDb* db) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if (TraceDb_prepare(db, "SELECT group_concat(label, ', ') FROM (SELECT label FROM run"
                            " ORDER BY id)",
                        &st, NULL) == DCU_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            out = xstrdup((const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    return out ? out : xstrdup("");
}

char* Runs_command(TraceDb* db) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if (TraceDb_prepare(db,
                        "SELECT min(command), count(DISTINCT command) FROM run_command",
                        &st, NULL) == DCU_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 1) == 1) {
            out = xstrdup((const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    return out;
}

int Runs_sameLayer(TraceDb* db) {
    return (int)TraceDb_scalarInt(
        db, "SELECT coalesce(max(n), 0) FROM (SELECT count(DISTINCT f.run_id) AS n"
            " FROM source_layer l JOIN source_file f ON f.id = l.file_id"
            " WHERE l.used AND l.layer IN ('kernel', 'api', 'copy') GROUP BY l.layer)");
}

enum { RC_RUN, RC_LAYERS, RC_MODE, RC_KERNEL, RC_DISPATCHES, RC_SPAN, RC_ITER, RC_COLD,
       RC_PMC, RC_FILES, RC_CLOCK, RC_COMMAND, RC_ID };

static const RsColumn run_cols[] = {
    [RC_RUN] = {"run", "Run", CT_TEXT},
    [RC_LAYERS] = {"layers", "Layers", CT_TEXT},
    [RC_MODE] = {"mode", "Mode", CT_TEXT},
    [RC_KERNEL] = {"kernel_ns", "Kernel", CT_NS},
    [RC_DISPATCHES] = {"dispatches", "Dispatches", CT_INT},
    [RC_SPAN] = {"span_ns", "Wall span", CT_NS},
    [RC_ITER] = {"iterations", "Iter", CT_INT},
    [RC_COLD] = {"cold_ratio", "Cold", CT_RATIO},
    [RC_PMC] = {"pmc", "PMC", CT_TEXT},
    [RC_FILES] = {"files", "Files", CT_INT},
    [RC_CLOCK] = {"clock", "Clock", CT_TEXT},
    [RC_COMMAND] = {"command", "Command", CT_TEXT},
    [RC_ID] = {"id", "Id", CT_INT},
};

/* Each run's device kernel time and calls from its own used kernel files (per-dispatch rows
 * and stats rows), whatever the scope. */
static const char run_kernel_sql[] =
    "SELECT f.run_id, CAST(total(x.calls) AS INTEGER), CAST(total(x.ns) AS INTEGER)"
    " FROM (SELECT file_id, count(*) AS calls, total(dur_ns) AS ns FROM dispatch"
    "   WHERE file_id IN (SELECT file_id FROM source_layer WHERE used AND layer = 'kernel')"
    "   GROUP BY file_id"
    "  UNION ALL SELECT file_id, total(calls), total(total_ns) FROM kernel_stat"
    "   WHERE file_id IN (SELECT file_id FROM source_layer WHERE used AND layer = 'kernel')"
    "   GROUP BY file_id) x"
    " JOIN source_file f ON f.id = x.file_id GROUP BY f.run_id";

/* The row of run id: rows are in id order, so a binary search (a scan per run made a folder
 * of 100,000 one-file runs quadratic). */
static int row_of(const ResultSet* rs, int64_t id) {
    int a = 0, b = rs->nrows - 1;
    while (a <= b) {
        int m = a + (b - a) / 2;
        int64_t v = ResultSet_cellc(rs, m, RC_ID)->i;
        if (v == id) {
            return m;
        }
        if (v < id) {
            a = m + 1;
        } else {
            b = m - 1;
        }
    }
    return -1;
}

DcuStatus Runs_table(TraceDb* db, ResultSet** out, DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    /* the command line of the run's process, where a file gave one (run_command) */
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT r.id, r.label, r.layers, r.mode, r.files, r.clock,"
        " (SELECT c.command FROM run_command c WHERE c.run_id = r.id LIMIT 1)"
        " FROM run r ORDER BY r.id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("runs", run_cols, (int)(sizeof(run_cols) / sizeof(run_cols[0])));
    while (sqlite3_step(st) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        ResultSet_setInt(rs, r, RC_ID, sqlite3_column_int64(st, 0));
        ResultSet_setText(rs, r, RC_RUN, (const char*)sqlite3_column_text(st, 1));
        ResultSet_setText(rs, r, RC_LAYERS, (const char*)sqlite3_column_text(st, 2));
        ResultSet_setText(rs, r, RC_MODE, (const char*)sqlite3_column_text(st, 3));
        ResultSet_setText(rs, r, RC_PMC,
                          strcmp((const char*)sqlite3_column_text(st, 3), "pmc") == 0 ? "PMC"
                                                                                        : "");
        ResultSet_setInt(rs, r, RC_FILES, sqlite3_column_int64(st, 4));
        ResultSet_setText(rs, r, RC_CLOCK, (const char*)sqlite3_column_text(st, 5));
        if (sqlite3_column_text(st, 6)) {
            ResultSet_setText(rs, r, RC_COMMAND, (const char*)sqlite3_column_text(st, 6));
        }
    }
    sqlite3_finalize(st);
    s = TraceDb_prepare(db, run_kernel_sql, &st, err);
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int r = row_of(rs, sqlite3_column_int64(st, 0));
        if (r >= 0) {
            ResultSet_setInt(rs, r, RC_DISPATCHES, sqlite3_column_int64(st, 1));
            ResultSet_setInt(rs, r, RC_KERNEL, sqlite3_column_int64(st, 2));
        }
    }
    sqlite3_finalize(st);
    Timeline* tl = NULL;
    if (s == DCU_OK) {
        s = Timeline_newAllRuns(db, &tl, err);
    }
    for (int i = 0; s == DCU_OK && i < Timeline_runCount(tl); i++) {
        int64_t id = 0;
        const TimelineSummary* t = Timeline_runSummary(tl, i, &id);
        int r = row_of(rs, id);
        if (r < 0) {
            continue;
        }
        ResultSet_setInt(rs, r, RC_SPAN, t->span_ns);
        ResultSet_setInt(rs, r, RC_ITER, t->iterations);
        if (t->cold_ratio > 0) {
            ResultSet_setReal(rs, r, RC_COLD, t->cold_ratio);
        }
    }
    Timeline_delete(tl);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

/* The default scope told (runs.h Runs_choice, in run_choice.c). */

char* Runs_scopeText(TraceDb* db) {
    RunsChoice ch;
    if (Runs_count(db) < 2 || Runs_choice(db, &ch, NULL) != DCU_OK) {
        return NULL;
    }
    int64_t scope = Runs_scopeRun(db);
    if (scope == 0 && ch.chosen == 0) {
        return NULL;
    }
    if (scope == RUNS_ALL) {
        return xasprintf("all %d runs added together (a total over runs, as asked)",
                         Runs_count(db));
    }
    char* label = Runs_label(db, scope ? scope : ch.chosen);
    char* out = NULL;
    if (scope) {
        out = xasprintf("run %s (picked); the others are not added", label ? label : "?");
    } else {
        out = xasprintf("run %s, the most complete timed run (%s)%s%s; not added: %s",
                        label ? label : "?", ch.why, ch.with[0] ? "; with " : "", ch.with,
                        ch.nleft ? ch.left : "none");
    }
    free(label);
    return out;
}

char* Runs_scopeName(TraceDb* db) {
    RunsChoice ch;
    int64_t one = Runs_scopeRun(db);
    int64_t shown = one ? one : Runs_choice(db, &ch, NULL) == DCU_OK ? ch.chosen : 0;
    char* label = shown > 0 ? Runs_label(db, shown) : NULL;
    return label ? label : xstrdup(one == RUNS_ALL ? "all, added" : "all");
}

DcuStatus Runs_applyDefault(TraceDb* db, DcuError* err) {
    RunsChoice ch;
    if (Runs_count(db) < 2) {
        return DCU_OK;
    }
    DcuStatus s = Runs_choice(db, &ch, err);
    return s == DCU_OK && ch.chosen ? Runs_setScope(db, NULL, 0, err) : s;
}
