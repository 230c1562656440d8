/* mem_alloc.c - the allocation list (mem_alloc.h). A block's lifetime pairs each ALLOC with
 * the next FREE (or RECLAIM) of the same address and level in the same file: rocpd records
 * the two as separate operations, addresses are reused once freed. */
#include "dcutop/mem_alloc.h"

#include <sqlite3.h>
#include <stddef.h>

enum { C_RUN, C_PID, C_AGENT, C_OP, C_LEVEL, C_ADDR, C_BYTES, C_START, C_END, C_FREED,
       C_LIFE, C_LIVE, C_COUNT };

static const RsColumn cols[C_COUNT] = {
    [C_RUN] = {"run", "Run", CT_TEXT},          [C_PID] = {"pid", "Pid", CT_INT},
    [C_AGENT] = {"agent", "Agent", CT_INT},     [C_OP] = {"op", "Op", CT_TEXT},
    [C_LEVEL] = {"level", "Level", CT_TEXT},    [C_ADDR] = {"address", "Address", CT_INT},
    [C_BYTES] = {"bytes", "Bytes", CT_BYTES},   [C_START] = {"start_ns", "Start", CT_NS},
    [C_END] = {"end_ns", "End", CT_NS},         [C_FREED] = {"freed_ns", "Freed", CT_NS},
    [C_LIFE] = {"lifetime_ns", "Lifetime", CT_NS},
    [C_LIVE] = {"live_bytes", "Live", CT_BYTES},
};

DcuStatus MemAlloc_list(TraceDb* db, ResultSet** out, DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    /* the index makes the pairing a lookup per ALLOC, not a scan (a long run allocates a lot) */
    TraceDb_exec(db, "CREATE INDEX IF NOT EXISTS mem_alloc_addr ON mem_alloc(file_id, address,"
                     " start_ns)", NULL);
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT r.label, m.pid, m.agent, m.op, m.level, m.address, m.bytes, m.start_ns,"
        " m.end_ns, f.freed, f.freed - m.start_ns, m.live_bytes"
        " FROM mem_alloc m JOIN source_file sf ON sf.id = m.file_id"
        " LEFT JOIN run r ON r.id = sf.run_id"
        " LEFT JOIN (SELECT a.rowid AS rid, (SELECT min(x.start_ns) FROM mem_alloc x"
        "   WHERE x.file_id = a.file_id AND x.address = a.address"
        "   AND coalesce(x.level, '') = coalesce(a.level, '') AND x.start_ns >= a.start_ns"
        "   AND x.rowid <> a.rowid AND (upper(x.op) LIKE 'FREE%' OR upper(x.op) LIKE 'RECLAIM%'))"
        "   AS freed FROM mem_alloc a WHERE upper(a.op) LIKE 'ALLOC%') f ON f.rid = m.rowid"
        " WHERE sf.run_id IS NULL OR sf.run_id IN (SELECT run_id FROM run_scope)"
        " ORDER BY m.file_id, m.start_ns, m.rowid",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("allocations", cols, C_COUNT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        for (int c = 0; c < C_COUNT; c++) {
            if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                continue;
            }
            if (cols[c].type == CT_TEXT) {
                ResultSet_setText(rs, r, c, (const char*)sqlite3_column_text(st, c));
            } else {
                ResultSet_setInt(rs, r, c, sqlite3_column_int64(st, c));
            }
        }
    }
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "allocations: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
