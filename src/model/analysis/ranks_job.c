/* ranks_job.c - whether the runs loaded are the ranks of one job (ranks.h Ranks_isJobDb):
 * apart from ranks.c, which reads the idle module's waits, so that the idle module can ask it
 * without the two files using each other. */
#include <stdlib.h>

#include "dcutop/ranks.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"

int Ranks_concurrentDb(TraceDb* db) {
    char* sql = xasprintf(
        "WITH s AS (SELECT f.run_id AS r, min(d.start_ns) AS a, max(d.end_ns) AS b"
        "  FROM dispatch d JOIN source_layer sl ON sl.file_id = d.file_id AND sl.used"
        "  AND sl.layer = 'kernel' JOIN source_file f ON f.id = d.file_id"
        "  WHERE d.start_ns IS NOT NULL GROUP BY f.run_id)"
        " SELECT (SELECT count(DISTINCT dir || char(10) || clock) FROM run"
        "   WHERE id IN (SELECT r FROM s)) = 1"
        /* every two runs overlap <=> the latest start is not after the earliest end (1-D
         * Helly); a test of every pair made a folder of 20,000 runs take minutes */
        " AND coalesce((SELECT min(b) >= max(a) FROM s), 1)");
    int64_t v = TraceDb_scalarInt(db, sql);
    free(sql);
    return v == 1;
}

int Ranks_summaryConcurrentDb(TraceDb* db) {
    return TraceDb_scalarInt(db, "SELECT count(DISTINCT coalesce(dir, '') || char(10) ||"
                                 " coalesce(clock, '')) = 1 AND min(last_ns) >= max(first_ns)"
                                 " FROM job_rank WHERE dispatches > 0") == 1;
}

int Ranks_isJobDb(TraceDb* db) {
    /* a job opened from its ranks' summaries, numbered as ranks_summary.c numbers them */
    int64_t js = TraceDb_scalarInt(db, "SELECT count(*) FROM job_rank WHERE dispatches > 0");
    if (js > 0) {
        return js >= 2 &&
               (TraceDb_scalarInt(db, "SELECT count(rank) = count(*) FROM job_rank"
                                      " WHERE dispatches > 0") == 1 ||
                Ranks_summaryConcurrentDb(db));
    }
    /* the runs with timed kernel dispatches, as Ranks_new keeps them */
    int64_t dist = TraceDb_scalarInt(
        /* one pass over the dispatches and one over the files (a correlated subquery per
         * run and file scanned the dispatches once per file: 20,000 runs took minutes) */
        /* a file's first timed row, sought in its rowid range (dispatch_span): a scan of
         * every dispatch was 0.4 s at 1M */
        db, "WITH k AS (SELECT DISTINCT f.run_id AS id FROM source_file f"
            "  JOIN source_layer sl ON sl.file_id = f.id AND sl.used AND sl.layer = 'kernel'"
            "  WHERE EXISTS (SELECT 1 FROM dispatch d WHERE d.start_ns IS NOT NULL AND "
            DISPATCH_OF_FILE("f.id") ")),"
            " t AS (SELECT f.run_id AS id, min(f.dist_rank) AS rk FROM source_file f"
            "  WHERE f.run_id IN (SELECT id FROM k) GROUP BY f.run_id)"
            " SELECT CASE WHEN count(*) < 2 THEN -1 WHEN count(rk) = count(*) THEN 1 ELSE 0 END"
            " FROM t");
    if (dist != 0) {
        return dist == 1;
    }
    return Ranks_concurrentDb(db);
}
