/* run_choice.c - the default scope (runs.h Runs_choice): one run of a program shown, never
 * its repeats or its other collection modes added together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/ranks.h"
#include "dcutop/runs.h"
#include "dcutop/xalloc.h"

/* Every run in preference order (runs.h): the first row is the run shown. Dispatches from the
 * per-file sums taken while loading (dispatch_agg) and the stats rows, of used kernel files. */
static const char order_sql[] =
    "WITH u AS (SELECT file_id FROM source_layer WHERE used AND layer = 'kernel'),"
    " k AS (SELECT f.run_id AS id, total(a.calls) AS n FROM dispatch_agg a"
    "   JOIN source_file f ON f.id = a.file_id WHERE a.file_id IN (SELECT file_id FROM u)"
    "   GROUP BY f.run_id"
    "  UNION ALL SELECT f.run_id, total(s.calls) FROM kernel_stat s"
    "   JOIN source_file f ON f.id = s.file_id WHERE s.file_id IN (SELECT file_id FROM u)"
    "   GROUP BY f.run_id),"
    " n AS (SELECT id, CAST(total(n) AS INTEGER) AS n FROM k GROUP BY id)"
    " SELECT r.id, r.label, r.mode, r.layers, coalesce(n.n, 0) AS n,"
    "  (instr(',' || r.layers || ',', ',kernel,') > 0) + (instr(',' || r.layers || ',', ',api,') > 0)"
    "  + (instr(',' || r.layers || ',', ',copy,') > 0) AS timed"
    " FROM run r LEFT JOIN n ON n.id = r.id"
    " ORDER BY r.mode = 'pmc', CASE r.mode WHEN 'trace' THEN 0 WHEN 'stats' THEN 1 ELSE 2 END,"
    "  timed DESC, n DESC, r.label";

typedef struct Cand_ {
    int64_t id, n;
    int timed;
    char* label;
    char* mode;
    char* layers;
} Cand;

static const char* mode_text(const char* mode) {
    return strcmp(mode, "trace") == 0   ? "a per-dispatch timeline"
           : strcmp(mode, "stats") == 0 ? "aggregates only"
           : strcmp(mode, "pmc") == 0   ? "a counter run"
           : strcmp(mode, "stack") == 0 ? "call stacks only"
                                        : "step times only";
}

/* 1 when run c gives layer to the scope. A PMC run's kernel layer gives its counters
 * ("counter"), never kernel times (used_file keeps them out beside a timed run). */
static int gives(const Cand* c, const char* layer) {
    int pmc = strcmp(c->mode, "pmc") == 0;
    if (pmc && strcmp(layer, "kernel") == 0) {
        return 0;
    }
    const char* own = pmc && strcmp(layer, "counter") == 0 ? "kernel" : layer;
    char* key = xasprintf(",%s,", own);
    char* in = xasprintf(",%s,", c->layers);
    int found = strstr(in, key) != NULL;
    free(in);
    free(key);
    return found;
}

/* 1 when c gives no layer that a run of taken[0..n) gives (and gives one). */
static int complements(const Cand* c, Cand* const* taken, int n) {
    char* copy = xstrdup(c->layers);
    int ok = c->layers[0] != 0, any = 0;
    char* save = NULL;
    for (char* l = strtok_r(copy, ",", &save); l && ok; l = strtok_r(NULL, ",", &save)) {
        const char* layer = strcmp(c->mode, "pmc") == 0 && strcmp(l, "kernel") == 0 ? "counter"
                                                                                  : l;
        any = 1;
        for (int i = 0; i < n && ok; i++) {
            ok = !gives(taken[i], layer);
        }
    }
    free(copy);
    return ok && any;
}

static void append(char* buf, size_t cap, const char* text) {
    size_t n = strlen(buf);
    if (n + strlen(text) + 2 < cap) {
        snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", text);
    } else if (n + 5 < cap && strcmp(buf + (n > 3 ? n - 3 : 0), "...") != 0) {
        snprintf(buf + n, cap - n, ", ...");
    }
}

/* Why a was put before b (the best run left out), in the order's terms. */
static void why_text(const Cand* a, const Cand* b, char* out, size_t cap) {
    int len = snprintf(out, cap, "%s, %lld dispatches", mode_text(a->mode), (long long)a->n);
    if (len < 0 || (size_t)len >= cap) {
        return;
    }
    char* p = out + len;
    size_t left = cap - (size_t)len;
    if (!b) {
        snprintf(p, left, "; no other run gives its layers");
    } else if (strcmp(a->mode, b->mode) != 0) {
        snprintf(p, left, "; %s has %s", b->label, mode_text(b->mode));
    } else if (a->timed != b->timed) {
        snprintf(p, left, "; its layers %s, %s's %s", a->layers, b->label, b->layers);
    } else if (a->n != b->n) {
        snprintf(p, left, "; %s has fewer dispatches (%lld)", b->label, (long long)b->n);
    } else {
        snprintf(p, left, "; alike with %s: the first by label", b->label);
    }
}

static DcuStatus sql_error(TraceDb* db, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "run choice: %s", sqlite3_errmsg(TraceDb_handle(db)));
}

/* Reads the candidates in preference order. */
static DcuStatus read_cands(TraceDb* db, Cand** out, int* n, DcuError* err) {
    sqlite3_stmt* st = NULL;
    *out = NULL;
    *n = 0;
    DcuStatus s = TraceDb_prepare(db, order_sql, &st, err);
    int cap = 0;
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *out = xrealloc(*out, sizeof(Cand) * (size_t)cap);
        }
        Cand* c = &(*out)[(*n)++];
        c->id = sqlite3_column_int64(st, 0);
        c->label = xstrdup((const char*)sqlite3_column_text(st, 1));
        c->mode = xstrdup((const char*)sqlite3_column_text(st, 2));
        c->layers = xstrdup(sqlite3_column_text(st, 3) ? (const char*)sqlite3_column_text(st, 3)
                                                       : "");
        c->n = sqlite3_column_int64(st, 4);
        c->timed = sqlite3_column_int(st, 5);
    }
    sqlite3_finalize(st);
    return s;
}

/* Decides and stores: temp.run_default (the default scope's runs), temp.run_choice (one row). */
static DcuStatus decide(TraceDb* db, int64_t nruns, DcuError* err) {
    Cand* c = NULL;
    int n = 0;
    RunsChoice ch;
    memset(&ch, 0, sizeof(ch));
    DcuStatus s = read_cands(db, &c, &n, err);
    Cand** taken = xcalloc((size_t)(n > 0 ? n : 1), sizeof(Cand*));
    int nt = 0;
    ch.job = s == DCU_OK && n >= 2 && Ranks_isJobDb(db);
    if (s == DCU_OK && n >= 2 && !ch.job) {
        ch.chosen = c[0].id;
        taken[nt++] = &c[0];
        const Cand* best_left = NULL;
        for (int i = 1; i < n; i++) {
            if (complements(&c[i], taken, nt)) {
                taken[nt++] = &c[i];
                char* w = strcmp(c[i].mode, "pmc") == 0
                              ? xasprintf("%s (PMC counters; its times left out)", c[i].label)
                              : xasprintf("%s (layer%s %s)", c[i].label,
                                          strchr(c[i].layers, ',') ? "s" : "", c[i].layers);
                append(ch.with, sizeof(ch.with), w);
                free(w);
            } else {
                best_left = best_left ? best_left : &c[i];
                append(ch.left, sizeof(ch.left), c[i].label);
                ch.nleft++;
            }
        }
        why_text(&c[0], best_left, ch.why, sizeof(ch.why));
    }
    sqlite3_stmt* st = NULL;
    if (s == DCU_OK) {
        s = TraceDb_exec(db,
                         "CREATE TEMP TABLE IF NOT EXISTS run_default(run_id INTEGER PRIMARY KEY);"
                         "CREATE TEMP TABLE IF NOT EXISTS run_choice(nruns INTEGER, chosen INTEGER,"
                         " job INTEGER, why TEXT, with_runs TEXT, left_runs TEXT, nleft INTEGER);"
                         "DELETE FROM temp.run_default; DELETE FROM temp.run_choice;",
                         err);
    }
    if (s == DCU_OK && ch.chosen == 0) {
        s = TraceDb_exec(db, "INSERT INTO temp.run_default SELECT id FROM run", err);
    } else if (s == DCU_OK &&
               (s = TraceDb_prepare(db, "INSERT INTO temp.run_default VALUES(?1)", &st, err)) ==
                   DCU_OK) {
        for (int i = 0; i < nt && s == DCU_OK; i++) {
            sqlite3_bind_int64(st, 1, taken[i]->id);
            s = sqlite3_step(st) == SQLITE_DONE ? DCU_OK : sql_error(db, err);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    if (s == DCU_OK && (s = TraceDb_prepare(db,
                                            "INSERT INTO temp.run_choice VALUES(?1, ?2, ?3, ?4,"
                                            " ?5, ?6, ?7)",
                                            &st, err)) == DCU_OK) {
        sqlite3_bind_int64(st, 1, nruns);
        sqlite3_bind_int64(st, 2, ch.chosen);
        sqlite3_bind_int(st, 3, ch.job);
        sqlite3_bind_text(st, 4, ch.why, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, ch.with, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, ch.left, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 7, ch.nleft);
        s = sqlite3_step(st) == SQLITE_DONE ? DCU_OK : sql_error(db, err);
        sqlite3_finalize(st);
    }
    for (int i = 0; i < n; i++) {
        free(c[i].label);
        free(c[i].mode);
        free(c[i].layers);
    }
    free(c);
    free(taken);
    return s;
}

static void copy_col(sqlite3_stmt* st, int col, char* out, size_t cap) {
    const char* t = (const char*)sqlite3_column_text(st, col);
    snprintf(out, cap, "%s", t ? t : "");
}

DcuStatus Runs_choice(TraceDb* db, RunsChoice* out, DcuError* err) {
    memset(out, 0, sizeof(*out));
    int64_t nruns = TraceDb_scalarInt(db, "SELECT count(*) FROM run");
    sqlite3_stmt* st = NULL;
    /* kept while the runs are the same (a later load into the database decides again) */
    int fresh = TraceDb_prepare(db, "SELECT nruns, chosen, job, why, with_runs, left_runs, nleft"
                                    " FROM temp.run_choice",
                                &st, NULL) == DCU_OK &&
                sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == nruns;
    sqlite3_finalize(st);
    st = NULL;
    if (!fresh) {
        DcuStatus s = decide(db, nruns, err);
        if (s != DCU_OK) {
            return s;
        }
    }
    DcuStatus s = TraceDb_prepare(db, "SELECT nruns, chosen, job, why, with_runs, left_runs, nleft"
                                      " FROM temp.run_choice",
                                  &st, err);
    if (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        out->chosen = sqlite3_column_int64(st, 1);
        out->job = sqlite3_column_int(st, 2);
        copy_col(st, 3, out->why, sizeof(out->why));
        copy_col(st, 4, out->with, sizeof(out->with));
        copy_col(st, 5, out->left, sizeof(out->left));
        out->nleft = sqlite3_column_int(st, 6);
    }
    sqlite3_finalize(st);
    return s;
}
