/* load_runs.c - after every file is read: which run each file belongs to (the run table,
 * source_file.run_id), which files of a run are superseded, and what each run holds.
 *
 * Runs (README "Runs"). Within one folder:
 *   - a file whose format is self-contained (a Kineto JSON, a hipprof or rocpd database) is
 *     a run of its own;
 *   - files with the same pid-like tag in their name (run_tag: result_1234.*, 1234_*,
 *     hip_api_trace_1234.csv) are one run;
 *   - rocprof v1 files of two stems or more (X.csv, X.stats.csv, ... beside Y.stats.csv):
 *     one run per stem, so that X.csv supersedes only X's stats;
 *   - files without a tag (rocprof v1 results.*, hipprof weather.*, step-times.json) join
 *     the folder's run when the folder holds exactly one run of the two kinds above, and
 *     form one run of their own otherwise (the only run of a folder without tags, or an
 *     "untagged" run beside several tagged ones).
 * Files that gave nothing (skipped, unreadable) are in no run (run_id NULL).
 *
 * Labels: the folder relative to the PATH given, then the tag or file name when the folder
 * holds several runs ("untagged" for the untagged rest); the PATH's own label (its last
 * component) comes first when several PATHs were given, or stands alone for a run at the top
 * of a PATH. Labels are unique: a repeat gets "#2", "#3". */
#include <stdlib.h>
#include <string.h>

#include "dcutop/intern.h"
#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "load_internal.h"

typedef struct Run_ {
    int64_t first_file; /* smallest source_file.id: runs are numbered in load order */
    int index;          /* position before sorting */
    int root;
    const char* dir;
    const char* reldir;
    char* tag;    /* owned: tag, file name or "" */
    char* suffix; /* owned: label part inside the folder, "" when the folder has one run */
} Run;

static int self_contained(const char* format) {
    return strstr(format, "Kineto") != NULL || strcmp(format, "hipprof database") == 0 ||
           strncmp(format, "rocpd database", 14) == 0 || strcmp(format, "dcutop job summary") == 0;
}

static int in_a_run(const char* format) {
    return strcmp(format, "skipped") != 0 && strcmp(format, "unreadable") != 0 &&
           strcmp(format, "?") != 0;
}

static const char* base_name(const char* path) {
    const char* b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static int by_folder(const void* a, const void* b) {
    const RunFile* x = *(const RunFile* const*)a;
    const RunFile* y = *(const RunFile* const*)b;
    if (x->root != y->root) {
        return x->root < y->root ? -1 : 1;
    }
    int c = strcmp(x->dir, y->dir);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int by_first_file(const void* a, const void* b) {
    const Run* x = a;
    const Run* y = b;
    if (x->first_file != y->first_file) {
        return x->first_file < y->first_file ? -1 : 1;
    }
    return (x->index > y->index) - (x->index < y->index);
}

/* The label of each PATH: its last component, or the path as given when that is not
 * telling ("." or "..") or when two PATHs end alike. Owned array of owned strings. */
static char** root_labels(const char* const* roots, int nroots) {
    char** v = xcalloc((size_t)(nroots > 0 ? nroots : 1), sizeof(char*));
    for (int i = 0; i < nroots; i++) {
        const char* b = base_name(roots[i]);
        int plain = *b && strcmp(b, ".") != 0 && strcmp(b, "..") != 0;
        for (int j = 0; plain && j < nroots; j++) {
            plain = j == i || strcmp(base_name(roots[j]), b) != 0;
        }
        v[i] = xstrdup(plain ? b : roots[i]);
    }
    return v;
}

/* rocprof v1 names one run's files by one stem: X.csv, X.stats.csv, X.hip_stats.csv,
 * X.hsa_stats.csv, X.copy_stats.csv, X.json, X.db (X.sysinfo.txt is in no run). The stem of
 * an untagged rocprof v1 file (owned), NULL for any other file. */
static char* v1_stem(const RunFile* f) {
    if (f->tag[0] || strncmp(f->format, "rocprof v1 ", 11) != 0) {
        return NULL;
    }
    static const char* const suffixes[] = {".hip_stats.csv", ".hsa_stats.csv", ".copy_stats.csv",
                                           ".stats.csv", ".csv", ".json", ".db"};
    const char* b = base_name(f->path);
    size_t n = strlen(b);
    if (n > 3 && strcmp(b + n - 3, ".gz") == 0) {
        n -= 3; /* X.csv.gz is X.csv gzipped: the same stem */
    }
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t l = strlen(suffixes[i]);
        if (n > l && strncmp(b + n - l, suffixes[i], l) == 0) {
            return xstrndup(b, n - l);
        }
    }
    return xstrndup(b, n);
}

/* 1 when the untagged rocprof v1 files of [a, b) have two stems or more: each stem is then a
 * run (a results X.csv supersedes only X's stats, never another run's). */
static int several_stems(RunFile** f, int a, int b) {
    char* first = NULL;
    int several = 0;
    for (int i = a; i < b && !several; i++) {
        char* st = v1_stem(f[i]);
        if (st && first) {
            several = strcmp(st, first) != 0;
            free(st);
        } else if (st) {
            first = st;
        }
    }
    free(first);
    return several;
}

/* The run key of a file that is a run of its own or part of a tagged one (owned; tag_out:
 * the run's tag, borrowed from f or stem), NULL for an untagged file. */
static char* primary_key(const RunFile* f, const char* stem, const char** tag_out) {
    /* a rocpd database named by its pid (<pid>_results.db) is one process's profile, as the
     * same process's rocprofv3 CSVs and JSON (<pid>_*.csv, <pid>_results.json) are: one run,
     * where one file supersedes the others layer by layer, never counted twice */
    int rocpd_tagged = strncmp(f->format, "rocpd database", 14) == 0 && f->tag[0];
    if (self_contained(f->format) && !rocpd_tagged) {
        *tag_out = base_name(f->path);
        return xasprintf("F%lld", (long long)f->id);
    }
    if (f->tag[0]) {
        *tag_out = f->tag;
        return xasprintf("T%s", f->tag);
    }
    if (stem) {
        *tag_out = stem;
        return xasprintf("S%s", stem);
    }
    return NULL;
}

/* Splits the files of one folder [a, b) into runs, appending to *runs; sets each file's run
 * index (RunFile.run) into that array. */
static void split_folder(RunFile** f, int a, int b, Run** runs, int* nruns) {
    Intern* keys = Intern_new(); /* "T<tag>" / "F<file>" / "S<stem>" -> run index + 1 */
    int primary = 0, untagged = 0;
    int stems = several_stems(f, a, b);
    for (int i = a; i < b; i++) {
        char* stem = stems ? v1_stem(f[i]) : NULL;
        const char* tag = NULL;
        char* key = primary_key(f[i], stem, &tag);
        f[i]->run = -1;
        if (key) {
            int64_t k = Intern_get(keys, key, strlen(key));
            if (!k) {
                *runs = xrealloc(*runs, sizeof(Run) * (size_t)(*nruns + 1));
                Run* r = &(*runs)[(*nruns)++];
                memset(r, 0, sizeof(*r));
                r->first_file = f[i]->id;
                r->root = f[i]->root;
                r->dir = f[i]->dir;
                r->reldir = f[i]->reldir;
                r->tag = xstrdup(tag);
                k = *nruns;
                Intern_put(keys, key, strlen(key), k);
                primary++;
            }
            f[i]->run = (int)k - 1;
            free(key);
        } else {
            untagged++;
        }
        free(stem);
    }
    int rest = -1; /* run of the untagged files */
    if (untagged && primary == 1) {
        rest = (*nruns) - 1;
    } else if (untagged) {
        *runs = xrealloc(*runs, sizeof(Run) * (size_t)(*nruns + 1));
        Run* r = &(*runs)[(*nruns)++];
        memset(r, 0, sizeof(*r));
        r->first_file = INT64_MAX;
        r->root = f[a]->root;
        r->dir = f[a]->dir;
        r->reldir = f[a]->reldir;
        r->tag = xstrdup(primary > 0 ? "untagged" : "");
        rest = *nruns - 1;
    }
    for (int i = a; i < b; i++) {
        if (f[i]->run < 0) {
            f[i]->run = rest;
            if (f[i]->id < (*runs)[rest].first_file) {
                (*runs)[rest].first_file = f[i]->id;
            }
        }
    }
    int nfolder = primary + (untagged && primary != 1);
    for (int i = *nruns - nfolder; i < *nruns; i++) {
        (*runs)[i].suffix = xstrdup(nfolder > 1 ? (*runs)[i].tag : "");
    }
    Intern_delete(keys);
}

static char* make_label(const Run* r, char* const* rlabels, int nroots) {
    const char* parts[3];
    int n = 0;
    if (nroots > 1 || (!r->reldir[0] && !r->suffix[0])) {
        parts[n++] = rlabels[r->root];
    }
    if (r->reldir[0]) {
        parts[n++] = r->reldir;
    }
    if (r->suffix[0]) {
        parts[n++] = r->suffix;
    }
    char* label = xstrdup(parts[0]);
    for (int i = 1; i < n; i++) {
        char* l = xasprintf("%s/%s", label, parts[i]);
        free(label);
        label = l;
    }
    char* clean = Names_sanitize(label, strlen(label));
    free(label);
    return clean;
}

static DcuStatus insert_runs(TraceDb* db, Run* runs, int nruns, RunFile* files, int nfiles,
                             char* const* rlabels, int nroots, DcuError* err) {
    sqlite3* h = TraceDb_handle(db);
    sqlite3_stmt *ins = NULL, *upd = NULL, *ren = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "INSERT INTO run(id, label, root, dir, tag) VALUES(?1, ?2, ?3,"
                                  " ?4, ?5)",
                                  &ins, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "UPDATE source_file SET run_id = ?1 WHERE id = ?2", &upd, err);
    }
    if (s == DCU_OK) {
        /* a name that is the path itself (a file given alone, a folder given twice) says
         * already where it came from */
        s = TraceDb_prepare(db,
                            "UPDATE source_file SET name = ?1 || '/' || name"
                            " WHERE id = ?2 AND name <> path",
                            &ren, err);
    }
    Intern* labels = Intern_new();
    int64_t base_id = TraceDb_scalarInt(db, "SELECT coalesce(max(id), 0) FROM run");
    for (int i = 0; s == DCU_OK && i < nruns; i++) {
        char* base = make_label(&runs[i], rlabels, nroots);
        char* label = xstrdup(base);
        for (int k = 2; Intern_get(labels, label, strlen(label)); k++) {
            free(label);
            label = xasprintf("%s#%d", base, k);
        }
        free(base);
        Intern_put(labels, label, strlen(label), i + 1);
        sqlite3_bind_int64(ins, 1, base_id + i + 1);
        sqlite3_bind_text(ins, 2, label, -1, free);
        sqlite3_bind_int(ins, 3, runs[i].root);
        sqlite3_bind_text(ins, 4, runs[i].dir, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 5, runs[i].tag, -1, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "run: %s", sqlite3_errmsg(h));
        }
        sqlite3_reset(ins);
    }
    for (int i = 0; s == DCU_OK && i < nfiles; i++) {
        if (files[i].run >= 0) {
            sqlite3_bind_int64(upd, 1, base_id + files[i].run + 1);
            sqlite3_bind_int64(upd, 2, files[i].id);
            if (sqlite3_step(upd) != SQLITE_DONE) {
                s = Error_set(err, DCU_ERR_SQL, "source_file: %s", sqlite3_errmsg(h));
            }
            sqlite3_reset(upd);
        }
        /* several PATHs: a name says which one it came from (two results.csv differ) */
        if (s == DCU_OK && nroots > 1) {
            sqlite3_bind_text(ren, 1, rlabels[files[i].root], -1, SQLITE_STATIC);
            sqlite3_bind_int64(ren, 2, files[i].id);
            if (sqlite3_step(ren) != SQLITE_DONE) {
                s = Error_set(err, DCU_ERR_SQL, "source_file: %s", sqlite3_errmsg(h));
            }
            sqlite3_reset(ren);
        }
    }
    Intern_delete(labels);
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    sqlite3_finalize(ren);
    return s;
}

DcuStatus LoadRuns_assign(LoaderCore* core, RunFile* files, int nfiles, const char* const* roots,
                          int nroots, DcuError* err) {
    RunFile** f = xcalloc((size_t)(nfiles > 0 ? nfiles : 1), sizeof(RunFile*));
    int n = 0;
    for (int i = 0; i < nfiles; i++) {
        files[i].run = -1;
        if (in_a_run(files[i].format)) {
            f[n++] = &files[i];
        }
    }
    if (n > 1) {
        qsort(f, (size_t)n, sizeof(RunFile*), by_folder);
    }
    Run* runs = NULL;
    int nruns = 0;
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && f[b]->root == f[a]->root && strcmp(f[b]->dir, f[a]->dir) == 0) {
            b++;
        }
        split_folder(f, a, b, &runs, &nruns);
        a = b;
    }
    free(f);
    /* number runs in load order: each file's run index follows its run */
    int* order = xcalloc((size_t)(nruns > 0 ? nruns : 1), sizeof(int));
    for (int i = 0; i < nruns; i++) {
        runs[i].index = i;
    }
    if (nruns > 1) {
        qsort(runs, (size_t)nruns, sizeof(Run), by_first_file);
    }
    for (int i = 0; i < nruns; i++) {
        order[runs[i].index] = i;
    }
    for (int i = 0; i < nfiles; i++) {
        if (files[i].run >= 0) {
            files[i].run = order[files[i].run];
        }
    }
    free(order);
    char** rlabels = root_labels(roots, nroots);
    DcuStatus s = insert_runs(core->db, runs, nruns, files, nfiles, rlabels, nroots, err);
    for (int i = 0; i < nroots; i++) {
        free(rlabels[i]);
    }
    free(rlabels);
    for (int i = 0; i < nruns; i++) {
        free(runs[i].tag);
        free(runs[i].suffix);
    }
    free(runs);
    return s;
}

/* Per run and layer, the finest (grain, then rank) file is kept; a file coarser than it is
 * superseded by it (per-dispatch rows beat per-kernel aggregates of the same run). Files of
 * different runs never supersede each other. One sort by (run, layer) through the window:
 * linear in the files apart from that sort (100,000 files: see `make bench`). */
static const char supersede_sql[] =
    "CREATE TEMP TABLE best_layer AS\n"
    "  SELECT l.file_id, l.layer, l.grain, l.rank,\n"
    "         first_value(l.file_id) OVER w AS bf, first_value(l.grain) OVER w AS bg,\n"
    "         first_value(l.rank) OVER w AS br\n"
    "  FROM source_layer l JOIN source_file f ON f.id = l.file_id\n"
    "  WINDOW w AS (PARTITION BY f.run_id, l.layer\n"
    "               ORDER BY l.grain DESC, l.rank DESC, l.file_id);\n"
    "UPDATE source_layer SET used = 0, superseded_by = b.bf FROM temp.best_layer b\n"
    "  WHERE b.file_id = source_layer.file_id AND b.layer = source_layer.layer\n"
    "    AND (b.grain < b.bg OR (b.grain = b.bg AND b.rank < b.br));\n"
    "DROP TABLE temp.best_layer;\n";

/* A per-dispatch file whose total is far below the stats file of its run that it supersedes
 * (fewer than half the calls, or less than half the time: a truncated or partial trace) is
 * kept, but flagged: its note (shown by Files) and a load message say so. */
static const char short_sql[] =
    "CREATE TEMP TABLE short_pair AS\n"
    "  WITH p AS (SELECT file_id AS coarse, superseded_by AS fine FROM source_layer\n"
    "    WHERE layer = 'kernel' AND NOT used AND grain = 1 AND superseded_by IS NOT NULL),\n"
    "  d AS (SELECT file_id, sum(calls) AS c, total(total_ns) AS t FROM dispatch_agg\n"
    "    WHERE file_id IN (SELECT fine FROM p) GROUP BY file_id),\n"
    "  k AS (SELECT file_id, sum(calls) AS c, total(total_ns) AS t FROM kernel_stat\n"
    "    WHERE file_id IN (SELECT coarse FROM p) GROUP BY file_id)\n"
    "  SELECT p.fine, p.coarse, coalesce(d.c, 0) AS dc, coalesce(d.t, 0) AS dt, k.c AS kc,\n"
    "    k.t AS kt FROM p JOIN k ON k.file_id = p.coarse LEFT JOIN d ON d.file_id = p.fine\n"
    "  WHERE coalesce(d.c, 0) * 2 < k.c OR coalesce(d.t, 0) * 2 < k.t;\n"
    "CREATE TEMP TABLE short_text AS SELECT fine, group_concat(printf('%d of the %d calls, '\n"
    "  || '%.0f of the %.0f ns in %s', dc, kc, dt, kt,\n"
    "    (SELECT name FROM source_file WHERE id = coarse)), '; ') AS why\n"
    "  FROM short_pair GROUP BY fine;\n"
    "UPDATE source_file SET note = 'WARNING: per-dispatch total far below its stats: '\n"
    "  || t.why || ' (truncated or partial?)' || coalesce('; ' || note, '')\n"
    "  FROM temp.short_text t WHERE t.fine = source_file.id;\n"
    "INSERT INTO load_message(file_id, line, message)\n"
    "  SELECT fine, NULL, 'per-dispatch data far below its own stats (' || why\n"
    "    || '): kept, but it may be truncated or partial' FROM temp.short_text ORDER BY fine;\n"
    "DROP TABLE temp.short_pair;\n"
    "DROP TABLE temp.short_text;\n";

/* What each run holds: layers, mode, clock domain, file count. */
static const char describe_sql[] =
    "UPDATE run SET files = (SELECT count(*) FROM source_file f WHERE f.run_id = run.id),\n"
    "  layers = coalesce((SELECT group_concat(layer, ',') FROM (SELECT DISTINCT l.layer\n"
    "    FROM source_layer l JOIN source_file f ON f.id = l.file_id WHERE f.run_id = run.id\n"
    "    ORDER BY CASE l.layer WHEN 'kernel' THEN 0 WHEN 'api' THEN 1 WHEN 'copy' THEN 2\n"
    "      WHEN 'range' THEN 3 WHEN 'stack' THEN 4 WHEN 'agent' THEN 5 ELSE 6 END, l.layer)),\n"
    "    ''),\n"
    "  mode = CASE\n"
    "    WHEN EXISTS (SELECT 1 FROM source_file f WHERE f.run_id = run.id AND f.pmc) THEN 'pmc'\n"
    "    WHEN EXISTS (SELECT 1 FROM source_layer l JOIN source_file f ON f.id = l.file_id\n"
    "      WHERE f.run_id = run.id AND l.grain >= 2 AND l.layer IN ('kernel', 'api', 'copy'))\n"
    "      THEN 'trace'\n"
    "    WHEN EXISTS (SELECT 1 FROM source_layer l JOIN source_file f ON f.id = l.file_id\n"
    "      WHERE f.run_id = run.id AND l.layer IN ('kernel', 'api', 'copy')) THEN 'stats'\n"
    "    WHEN EXISTS (SELECT 1 FROM source_layer l JOIN source_file f ON f.id = l.file_id\n"
    "      WHERE f.run_id = run.id AND l.layer IN ('stack', 'range')) THEN 'stack'\n"
    "    ELSE 'plain' END,\n"
    "  clock = coalesce((SELECT CASE\n"
    "    WHEN f.format LIKE '%Kineto%' THEN 'Kineto: us since the Unix epoch (stored as ns)'\n"
    "    WHEN f.format LIKE 'rocpd%' OR f.format LIKE '%rocprofv3%'\n"
    "      THEN 'rocprofv3: ns, host monotonic clock (since boot)'\n"
    "    WHEN f.format LIKE 'hipprof%' THEN 'hipprof: ns, host monotonic clock (since boot)'\n"
    "    ELSE 'rocprof: ns, host monotonic clock (since boot)' END\n"
    "    FROM source_file f JOIN source_layer l ON l.file_id = f.id AND l.grain >= 2\n"
    "      AND l.layer IN ('kernel', 'api', 'copy', 'range')\n"
    "    WHERE f.run_id = run.id ORDER BY f.id LIMIT 1), 'none: aggregates only, no timestamps');\n"
    "UPDATE run SET clock = 'none: step times only, taken without a profiler'\n"
    "  WHERE layers = 'steps';\n"
    /* a job summary's times (its collectives' arrivals) are on the clock of the rank's trace */
    "UPDATE run SET clock = (SELECT j.clock FROM job_rank j JOIN source_file f ON f.id = j.file_id\n"
    "  WHERE f.run_id = run.id) WHERE id IN (SELECT f.run_id FROM job_rank j JOIN source_file f\n"
    "  ON f.id = j.file_id WHERE j.clock IS NOT NULL);\n"
    "INSERT OR IGNORE INTO run_scope(run_id) SELECT id FROM run;\n";

DcuStatus LoadRuns_finish(LoaderCore* core, DcuError* err) {
    DcuStatus s = TraceDb_exec(core->db,
                               "CREATE INDEX IF NOT EXISTS source_file_run ON source_file(run_id)",
                               err);
    if (s == DCU_OK) {
        s = TraceDb_exec(core->db, supersede_sql, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_exec(core->db, short_sql, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_exec(core->db, describe_sql, err);
    }
    return s;
}
