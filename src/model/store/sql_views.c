/* sql_views.c - the stable views of SCHEMA.md, as TEMP views over the internal tables.
 * Every view reads only rows of files in use (used_file: a per-kernel aggregate superseded
 * by a per-dispatch file of the same run is left out), as the screens do. Times are integer
 * ns; *_ns columns of dispatches, api_calls, copies and ranges are relative to their run's
 * first timestamp (runs.t0_ns). No dcutop SQL function is used (no regexp, no dcu_sqrt), so
 * the same DDL works in the sqlite3 CLI on a --save-db file. */
#include "dcutop/sql_views.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

/* Names starting with dcu_ are helpers, not part of the stable surface. */

/* Runs from the run model (run table, source_file.run_id: README "Runs"). */
static const char runs_from_table[] =
    "CREATE TEMP VIEW dcu_run_list(id, label) AS SELECT id, label FROM main.run;\n"
    "CREATE TEMP VIEW dcu_file_run(file_id, run) AS SELECT id, run_id FROM main.source_file;\n";

#define USED(layer) "(SELECT file_id FROM main.used_file WHERE layer = '" layer "')"
/* the share of all kernel time, and its Amdahl ceiling 1/(1-p) = T/(T-t) (NULL: infinite) */
#define KTOTAL "(SELECT total(total_ns) FROM main.kernel_summary)"

static const char views[] =
    /* first and last timestamp of a run over the rows in use */
    "CREATE TEMP VIEW dcu_run_span(run, t0_ns, end_ns) AS\n"
    "  SELECT fr.run, min(t.s), max(t.e) FROM (\n"
    "    SELECT file_id, start_ns AS s, end_ns AS e FROM main.dispatch\n"
    "      WHERE file_id IN " USED("kernel") "\n"
    "    UNION ALL SELECT file_id, start_ns, end_ns FROM main.api_call\n"
    "      WHERE file_id IN " USED("api") "\n"
    "    UNION ALL SELECT file_id, start_ns, end_ns FROM main.copy\n"
    "      WHERE file_id IN " USED("copy") "\n"
    "    UNION ALL SELECT file_id, start_ns, end_ns FROM main.range_span\n"
    "  ) t JOIN dcu_file_run fr ON fr.file_id = t.file_id GROUP BY fr.run;\n"
    "CREATE TEMP VIEW runs AS\n"
    "  SELECT r.id AS id, r.label AS label,\n"
    "    (SELECT count(*) FROM dcu_file_run fr WHERE fr.run = r.id) AS files,\n"
    "    (SELECT count(*) FROM main.dispatch d JOIN dcu_file_run fr ON fr.file_id = d.file_id\n"
    "      WHERE fr.run = r.id AND d.file_id IN " USED("kernel") ") AS dispatches,\n"
    "    (SELECT CAST(total(x) AS INTEGER) FROM (\n"
    "      SELECT d.dur_ns AS x FROM main.dispatch d JOIN dcu_file_run fr ON fr.file_id = d.file_id\n"
    "        WHERE fr.run = r.id AND d.file_id IN " USED("kernel") "\n"
    "      UNION ALL SELECT s.total_ns FROM main.kernel_stat s\n"
    "        JOIN dcu_file_run fr ON fr.file_id = s.file_id\n"
    "        WHERE fr.run = r.id AND s.file_id IN " USED("kernel") ")) AS kernel_ns,\n"
    "    sp.t0_ns AS t0_ns, sp.end_ns - sp.t0_ns AS span_ns\n"
    "  FROM dcu_run_list r LEFT JOIN dcu_run_span sp ON sp.run = r.id;\n"
    "CREATE TEMP VIEW files AS\n"
    "  SELECT f.id AS id, fr.run AS run, f.path AS path, f.name AS name, f.dir AS dir,\n"
    "    f.format AS format, f.bytes AS bytes, f.rows_read AS rows, f.rows_rejected AS rejected,\n"
    "    (SELECT group_concat(layer, '+') FROM (SELECT l.layer FROM main.source_layer l\n"
    "      WHERE l.file_id = f.id AND l.used ORDER BY l.layer)) AS layers,\n"
    "    EXISTS (SELECT 1 FROM main.source_layer l WHERE l.file_id = f.id AND l.used) AS used,\n"
    "    f.pmc AS pmc, f.note AS note\n"
    "  FROM main.source_file f LEFT JOIN dcu_file_run fr ON fr.file_id = f.id;\n"
    "CREATE TEMP VIEW kernels AS\n"
    "  SELECT k.name AS name, k.short_name AS short_name,\n"
    "    coalesce(k.category, 'other') AS category,\n"
    "    CASE WHEN coalesce(c.is_gemm, 0) THEN 'GEMM' ELSE 'non-GEMM' END AS group_name,\n"
    "    s.calls AS calls, s.total_ns AS total_ns,\n"
    "    s.total_ns * 1.0 / nullif(s.calls, 0) AS avg_ns, s.min_ns AS min_ns, s.max_ns AS max_ns,\n"
    "    100.0 * s.total_ns / nullif(" KTOTAL ", 0) AS share_pct,\n"
    "    CASE WHEN s.total_ns < " KTOTAL " THEN " KTOTAL " / (" KTOTAL " - s.total_ns) END\n"
    "      AS ceiling,\n"
    "    s.per_dispatch AS per_dispatch, coalesce(k.name_raw, k.name) AS name_raw\n"
    "  FROM main.kernel_summary s JOIN main.kernel k ON k.id = s.kernel_id\n"
    "    LEFT JOIN main.category c ON c.name = coalesce(k.category, 'other');\n"
    "CREATE TEMP VIEW dispatches AS\n"
    "  SELECT d.id AS id, fr.run AS run, k.name AS kernel, k.short_name AS short_name,\n"
    "    coalesce(k.category, 'other') AS category, d.gpu AS gpu, d.queue AS queue,\n"
    "    d.stream AS stream, d.pid AS pid, d.tid AS tid, d.corr_id AS corr_id, d.seq AS seq,\n"
    "    d.start_ns - sp.t0_ns AS start_ns, d.end_ns - sp.t0_ns AS end_ns, d.dur_ns AS dur_ns,\n"
    "    d.grid AS grid, d.workgroup AS workgroup, d.lds AS lds, d.scratch AS scratch,\n"
    "    d.vgpr AS vgpr, d.sgpr AS sgpr, dr.range_id AS range_id, d.file_id AS file_id\n"
    "  FROM main.dispatch d JOIN main.kernel k ON k.id = d.kernel_id\n"
    "    JOIN dcu_file_run fr ON fr.file_id = d.file_id\n"
    "    LEFT JOIN dcu_run_span sp ON sp.run = fr.run\n"
    "    LEFT JOIN main.dispatch_range dr ON dr.dispatch_id = d.id\n"
    "  WHERE d.file_id IN " USED("kernel") ";\n"
    "CREATE TEMP VIEW api_calls AS\n"
    "  SELECT a.id AS id, fr.run AS run, a.domain AS domain, a.name AS name, a.pid AS pid,\n"
    "    a.tid AS tid, a.corr_id AS corr_id, a.start_ns - sp.t0_ns AS start_ns,\n"
    "    a.end_ns - sp.t0_ns AS end_ns, a.dur_ns AS dur_ns, a.file_id AS file_id\n"
    "  FROM main.api_call a JOIN dcu_file_run fr ON fr.file_id = a.file_id\n"
    "    LEFT JOIN dcu_run_span sp ON sp.run = fr.run\n"
    "  WHERE a.file_id IN " USED("api") ";\n"
    "CREATE TEMP VIEW copies AS\n"
    "  SELECT c.id AS id, fr.run AS run, c.name AS name, c.src_agent AS src_agent,\n"
    "    c.dst_agent AS dst_agent, c.stream AS stream, c.corr_id AS corr_id, c.bytes AS bytes,\n"
    "    c.start_ns - sp.t0_ns AS start_ns, c.end_ns - sp.t0_ns AS end_ns, c.dur_ns AS dur_ns,\n"
    "    c.file_id AS file_id\n"
    "  FROM main.copy c JOIN dcu_file_run fr ON fr.file_id = c.file_id\n"
    "    LEFT JOIN dcu_run_span sp ON sp.run = fr.run\n"
    "  WHERE c.file_id IN " USED("copy") ";\n"
    /* range_span holds the ranges of used files only (load_ranges.c) */
    "CREATE TEMP VIEW ranges AS\n"
    "  SELECT r.id AS id, fr.run AS run, r.name AS name, r.pid AS pid, r.tid AS tid,\n"
    "    r.start_ns - sp.t0_ns AS start_ns, r.end_ns - sp.t0_ns AS end_ns,\n"
    "    r.end_ns - r.start_ns AS dur_ns, r.parent_id AS parent_id, r.depth AS depth,\n"
    "    r.file_id AS file_id\n"
    "  FROM main.range_span r JOIN dcu_file_run fr ON fr.file_id = r.file_id\n"
    "    LEFT JOIN dcu_run_span sp ON sp.run = fr.run;\n"
    /* a stack's frames outermost first, walked up from its innermost node */
    "CREATE TEMP VIEW stack_paths AS\n"
    "  WITH RECURSIVE up(ks, node, path, depth) AS (\n"
    "    SELECT ks.id, sn.parent, fm.name, 1 FROM main.kernel_stack ks\n"
    "      JOIN main.stack_node sn ON sn.id = ks.stack_id JOIN main.frame fm ON fm.id = sn.frame_id\n"
    "    UNION ALL\n"
    "    SELECT up.ks, sn.parent, fm.name || ';' || up.path, up.depth + 1 FROM up\n"
    "      JOIN main.stack_node sn ON sn.id = up.node JOIN main.frame fm ON fm.id = sn.frame_id\n"
    "  )\n"
    "  SELECT ks.id AS id, fr.run AS run, coalesce(k.name, ks.kernel_name) AS kernel,\n"
    "    up.path AS path, up.depth AS depth, ks.form AS form, ks.match AS match,\n"
    "    ks.calls AS calls, ks.time_ns AS time_ns, ks.file_id AS file_id, ks.line AS line\n"
    "  FROM main.kernel_stack ks JOIN dcu_file_run fr ON fr.file_id = ks.file_id\n"
    "    LEFT JOIN up ON up.ks = ks.id AND up.node IS NULL\n"
    "    LEFT JOIN main.kernel k ON k.id = ks.kernel_id\n"
    "  WHERE ks.file_id IN " USED("stack") ";\n"
    "CREATE TEMP VIEW categories AS\n"
    "  SELECT c.name AS name, CASE WHEN c.is_gemm THEN 'GEMM' ELSE 'non-GEMM' END AS group_name,\n"
    "    c.ord AS ord, count(s.kernel_id) AS kernels, CAST(total(s.calls) AS INTEGER) AS calls,\n"
    "    CAST(total(s.total_ns) AS INTEGER) AS total_ns,\n"
    "    100.0 * total(s.total_ns) / nullif(" KTOTAL ", 0) AS share_pct,\n"
    "    CASE WHEN total(s.total_ns) < " KTOTAL " THEN " KTOTAL " / (" KTOTAL
    " - total(s.total_ns)) END\n"
    "      AS ceiling\n"
    "  FROM main.category c LEFT JOIN main.kernel k ON coalesce(k.category, 'other') = c.name\n"
    "    LEFT JOIN main.kernel_summary s ON s.kernel_id = k.id\n"
    "  GROUP BY c.name;\n";

static const char* const names[] = {"runs",      "files",  "kernels", "dispatches",
                                    "api_calls", "copies", "ranges",  "stack_paths",
                                    "categories", NULL};

const char* const* SqlViews_names(void) {
    return names;
}

char* SqlViews_ddl(TraceDb* db) {
    (void)db;
    return xasprintf("%s%s", runs_from_table, views);
}

DcuStatus SqlViews_create(TraceDb* db, DcuError* err) {
    if (TraceDb_scalarInt(db, "SELECT count(*) FROM temp.sqlite_master WHERE type = 'view'"
                              " AND name = 'dispatches'") > 0) {
        return DCU_OK;
    }
    char* ddl = SqlViews_ddl(db);
    DcuStatus s = TraceDb_exec(db, ddl, err);
    free(ddl);
    return s;
}
