/* diff_ops.c - each dispatch's op identity (diff.h DiffOp), summed per op for an op-matched
 * diff. Two sources give a dispatch its op:
 *  - PyTorch traces: the table dispatch_op (the launching op, the forward op of a backward
 *    kernel, the module path, the step), with the ops of cpu_op;
 *  - marker ranges (rocprofv3 / roctx, as torch.autograd.profiler.emit_nvtx writes them on
 *    ROCm): marker_ops.c.
 * Traces with neither take the op dispatch_op names from a marker range or a stack frame
 * (how 'range' / 'stack'), one call per range or stack.
 * Either way a PyTorch op named is the outermost op around the launching one (the op the model
 * called: aten::linear, aten::scaled_dot_product_attention), not the innermost: the inner ops
 * are where backends differ (aten::addmm or aten::mm, _scaled_dot_product_cudnn_attention or
 * _efficient_attention, a cast that only autocast adds), and an op-matched diff compares what
 * the model asked for. A backward kernel is named by the outermost op around its forward op,
 * with pass backward: backward ops' own names differ from the forward ones'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/diff.h"
#include "dcutop/i64_map.h"
#include "dcutop/intern.h"
#include "dcutop/xalloc.h"
#include "diff_ops.h"

static const char in_kernel_files[] =
    " file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')";

/* ---- the PyTorch source: dispatch_op and cpu_op ----------------------------------------- */

/* The outermost op around each op of the used kernel files, on its thread (I64Map id -> root
 * id): ops sorted by start, longest first, and a stack of the ops still open. */
static DcuStatus op_roots(TraceDb* db, I64Map* root, DcuError* err) {
    char sql[512];
    snprintf(sql, sizeof(sql),
             "SELECT id, file_id, pid, tid, start_ns, coalesce(end_ns, start_ns) FROM cpu_op"
             " WHERE%s AND start_ns IS NOT NULL"
             " ORDER BY file_id, pid, tid, start_ns, end_ns DESC, id", in_kernel_files);
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db, sql, &st, err);
    if (rc != DCU_OK) {
        return rc;
    }
    int64_t* stk = NULL; /* pairs: id, end */
    int n = 0, cap = 0, r;
    int64_t file = -1, pid = -1, tid = -1;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        int64_t f = sqlite3_column_int64(st, 1), p = sqlite3_column_int64(st, 2);
        int64_t t = sqlite3_column_int64(st, 3), start = sqlite3_column_int64(st, 4);
        int64_t end = sqlite3_column_int64(st, 5);
        if (f != file || p != pid || t != tid) {
            n = 0;
            file = f;
            pid = p;
            tid = t;
        }
        while (n > 0 && start >= stk[2 * (n - 1) + 1] && end > stk[2 * (n - 1) + 1]) {
            n--; /* closed before this op starts (an op ending where it starts stays open) */
        }
        I64Map_put(root, id, n > 0 ? stk[0] : id);
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            stk = xrealloc(stk, sizeof(int64_t) * 2 * (size_t)cap);
        }
        stk[2 * n] = id;
        stk[2 * n + 1] = end;
        n++;
    }
    free(stk);
    sqlite3_finalize(st);
    return r == SQLITE_DONE ? DCU_OK : Error_set(err, DCU_ERR_SQL, "SQL error: %s",
                                                 sqlite3_errmsg(TraceDb_handle(db)));
}

static int has_table(TraceDb* db, const char* name) {
    char sql[160];
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = '%s'",
             name);
    return TraceDb_scalarInt(db, sql) > 0;
}

static char* dup_col(sqlite3_stmt* st, int c) {
    const unsigned char* t = sqlite3_column_text(st, c);
    return xstrdup(t ? (const char*)t : "");
}

/* The dispatches with their op from dispatch_op; 0 dispatches linked: none (b->nlinked 0). */
static DcuStatus from_dispatch_op(TraceDb* db, OpBuild* b, DcuError* err) {
    if (!has_table(db, "dispatch_op") || !has_table(db, "cpu_op")) {
        return DCU_OK;
    }
    I64Map* root = I64Map_new();
    DcuStatus rc = op_roots(db, root, err);
    char sql[640];
    snprintf(sql, sizeof(sql),
             "SELECT d.kernel_id, d.dur_ns, o.op_id, o.fwd_op_id, coalesce(o.pass, 'other'),"
             " coalesce(o.module, ''), coalesce(o.step, -1)"
             " FROM dispatch d LEFT JOIN dispatch_op o ON o.dispatch_id = d.id"
             " WHERE d.%s ORDER BY d.id", in_kernel_files);
    sqlite3_stmt* st = NULL;
    sqlite3_stmt* op = NULL;
    if (rc == DCU_OK) {
        rc = TraceDb_prepare(db, sql, &st, err);
    }
    if (rc == DCU_OK) {
        rc = TraceDb_prepare(db,
                             "SELECT name, coalesce(input_dims, ''), coalesce(start_ns, 0)"
                             " FROM cpu_op WHERE id = ?",
                             &op, err);
    }
    int r = SQLITE_DONE;
    while (rc == DCU_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        const char* pass = (const char*)sqlite3_column_text(st, 4);
        int back = strcmp(pass, "backward") == 0;
        int64_t id = sqlite3_column_int64(st, back && sqlite3_column_type(st, 3) != SQLITE_NULL
                                                  ? 3 : 2);
        int linked = sqlite3_column_type(st, 2) != SQLITE_NULL || (back && id);
        int64_t top = linked ? I64Map_get(root, id) : 0;
        if (linked && !top) {
            top = id; /* an op with no start: itself */
        }
        int t = -1;
        if (top) {
            t = OpBuild_top(b, top);
            if (!b->tops[t].name) {
                sqlite3_reset(op);
                sqlite3_bind_int64(op, 1, top);
                if (sqlite3_step(op) == SQLITE_ROW) {
                    b->tops[t].name = dup_col(op, 0);
                    b->tops[t].dims = dup_col(op, 1);
                    b->tops[t].start = sqlite3_column_int64(op, 2);
                } else {
                    b->tops[t].name = xstrdup("");
                    b->tops[t].dims = xstrdup("");
                }
            }
        }
        OpBuild_add(b, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), t, back,
                    (const char*)sqlite3_column_text(st, 5), pass, sqlite3_column_int64(st, 6));
    }
    if (rc == DCU_OK && r != SQLITE_DONE) {
        rc = Error_set(err, DCU_ERR_SQL, "SQL error: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    sqlite3_finalize(op);
    I64Map_delete(root);
    return rc;
}

/* ---- traces without aten ops: the ops dispatch_op names from ranges and stacks ----------- */

/* Dispatches whose dispatch_op row names an op from a marker range or a stack frame (how
 * 'range' / 'stack': a Kokkos region, a hipprof stack's innermost user frame), one call per
 * range or stack row (call_id). *kinds: bit 1 a range, bit 2 a stack gave one. */
static DcuStatus from_named(TraceDb* db, OpBuild* b, int* kinds, DcuError* err) {
    *kinds = 0;
    if (!has_table(db, "dispatch_op") ||
        !TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM pragma_table_info('dispatch_op')"
                               " WHERE name = 'op_name')")) {
        return DCU_OK;
    }
    char sql[900];
    snprintf(sql, sizeof(sql),
             "SELECT d.kernel_id, d.dur_ns, o.how = 'stack', o.op_name, coalesce(o.module, ''),"
             " coalesce(o.step, -1), o.call_id, coalesce(o.pass, 'other'),"
             " CASE o.how WHEN 'range' THEN (SELECT start_ns FROM range_span r"
             "  WHERE r.id = o.call_id) ELSE o.call_id END"
             " FROM dispatch d LEFT JOIN dispatch_op o ON o.dispatch_id = d.id"
             "  AND o.how IN ('range', 'stack') AND o.op_name IS NOT NULL"
             "  AND o.call_id IS NOT NULL"
             " WHERE d.%s ORDER BY d.id", in_kernel_files);
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db, sql, &st, err);
    int r = SQLITE_DONE;
    while (rc == DCU_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        int t = -1;
        if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
            int stack = sqlite3_column_int(st, 2);
            *kinds |= stack ? 2 : 1;
            t = OpBuild_top(b, sqlite3_column_int64(st, 6) * 2 + stack);
            if (!b->tops[t].name) {
                b->tops[t].name = dup_col(st, 3);
                b->tops[t].dims = xstrdup("");
                b->tops[t].start = sqlite3_column_int64(st, 8);
            }
        }
        OpBuild_add(b, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), t, 0,
                    (const char*)sqlite3_column_text(st, 4),
                    (const char*)sqlite3_column_text(st, 7), sqlite3_column_int64(st, 5));
    }
    if (rc == DCU_OK && r != SQLITE_DONE) {
        rc = Error_set(err, DCU_ERR_SQL, "SQL error: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return rc;
}

DcuStatus DiffSide_readOps(TraceDb* db, DiffSide* s, const int64_t* ids, DcuError* err) {
    if (s->nk == 0) {
        return DCU_OK;
    }
    OpBuild b;
    OpBuild_init(&b, s, ids);
    DcuStatus rc = from_dispatch_op(db, &b, err);
    if (rc == DCU_OK && b.nlinked > 0) {
        OpBuild_finish(&b, s, "PyTorch op links");
    }
    OpBuild_done(&b);
    if (rc == DCU_OK && s->nops == 0) {
        OpBuild_init(&b, s, ids);
        rc = MarkerOps_read(db, &b, err);
        if (rc == DCU_OK && b.nlinked > 0) {
            OpBuild_finish(&b, s, "markers");
        }
        OpBuild_done(&b);
    }
    if (rc == DCU_OK && s->nops == 0) { /* no PyTorch ops: the ranges' and stacks' own */
        static const char* const said[4] = {"", "marker ranges", "stack frames",
                                            "marker ranges and stack frames"};
        int kinds = 0;
        OpBuild_init(&b, s, ids);
        rc = from_named(db, &b, &kinds, err);
        if (rc == DCU_OK && b.nlinked > 0) {
            OpBuild_finish(&b, s, said[kinds & 3]);
        }
        OpBuild_done(&b);
    }
    return rc;
}
