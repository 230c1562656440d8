/* op_markers.c - see op_link.h (OpLink_markers): the Ops view of traces without aten ops.
 * A dispatch launched inside a marker range (rocprofv3 / rocpd / roctx markers: its
 * dispatch_range) takes that range's name as its op and the names of the ranges around it,
 * outermost first, as its module ('range'); else a dispatch a stack dump matched exactly
 * (kernel_stack.dispatch_id) takes its innermost frame of user code (not a runtime or
 * library frame) as its op and the user frames above it as its module ('stack'). Paths are
 * built once per range or stack node, in memory. */
#include "dcutop/op_link.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"
#include "store/row_batch.h"

typedef struct {
    int64_t n;      /* ids 1..n-1 */
    int64_t* parent; /* by id, 0: none */
    char** name;     /* by id (owned) */
    unsigned char* lib;  /* by id: a library frame (stacks) */
    char** path;     /* by id: the module path above it (owned, lazily; "" none) */
    unsigned char* done;
} Tree;

static DcuStatus tree_read(TraceDb* db, const char* max_sql, const char* rows_sql, Tree* t,
                           DcuError* err) {
    memset(t, 0, sizeof(*t));
    t->n = TraceDb_scalarInt(db, max_sql) + 1;
    t->parent = xcalloc((size_t)t->n, sizeof(int64_t));
    t->name = xcalloc((size_t)t->n, sizeof(char*));
    t->lib = xcalloc((size_t)t->n, 1);
    t->path = xcalloc((size_t)t->n, sizeof(char*));
    t->done = xcalloc((size_t)t->n, 1);
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, rows_sql, &st, err);
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id <= 0 || id >= t->n) {
            continue;
        }
        int64_t p = sqlite3_column_int64(st, 1);
        t->parent[id] = p > 0 && p < id ? p : 0; /* parents come first: never a loop */
        const char* nm = (const char*)sqlite3_column_text(st, 2);
        t->name[id] = xstrdup(nm ? nm : "");
        t->lib[id] = (unsigned char)sqlite3_column_int(st, 3);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "op markers: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

static void tree_free(Tree* t) {
    for (int64_t i = 0; i < t->n; i++) {
        free(t->name[i]);
        free(t->path[i]);
    }
    free(t->parent);
    free(t->name);
    free(t->lib);
    free(t->path);
    free(t->done);
}

/* The user (not library) node nearest to id going up, or 0. */
static int64_t user_node(const Tree* t, int64_t id) {
    while (id > 0 && t->lib[id]) {
        id = t->parent[id];
    }
    return id;
}

/* The names of the user nodes above id, outermost first, joined by '/' (borrowed). */
static const char* above(Tree* t, int64_t id) {
    if (t->done[id]) {
        return t->path[id];
    }
    int64_t up = user_node(t, t->parent[id]);
    const char* rest = up ? above(t, up) : "";
    t->path[id] = !up ? xstrdup("") : *rest ? xasprintf("%s/%s", rest, t->name[up])
                                            : xstrdup(t->name[up]);
    t->done[id] = 1;
    return t->path[id];
}

/* One row per dispatch of the query (dispatch id, node id, call id) not already in
 * dispatch_op; how names the source. */
static DcuStatus put_rows(TraceDb* db, const char* sql, Tree* t, const char* how, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    RowBatch* ins = RowBatch_new(db,
                                 "INSERT OR IGNORE INTO dispatch_op(dispatch_id, pass, module, how,"
                                 " op_name, call_id) VALUES",
                                 "(?, 'other', ?, ?, ?, ?)", 5);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t node = user_node(t, sqlite3_column_int64(st, 1));
        if (node <= 0 || node >= t->n) {
            continue;
        }
        const char* mod = above(t, node);
        RowBatch_int(ins, sqlite3_column_int64(st, 0));
        *mod ? RowBatch_text(ins, mod) : RowBatch_null(ins);
        RowBatch_text(ins, how);
        RowBatch_text(ins, t->name[node]);
        RowBatch_int(ins, sqlite3_column_int64(st, 2));
        if (RowBatch_endRow(ins) != SQLITE_DONE) {
            break;
        }
    }
    if (RowBatch_flush(ins) != SQLITE_DONE || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
        s = Error_set(err, DCU_ERR_SQL, "op markers: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    RowBatch_delete(ins);
    sqlite3_finalize(st);
    return s;
}

DcuStatus OpLink_markers(TraceDb* db, DcuError* err) {
    Tree t;
    DcuStatus s = DCU_OK;
    if (TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM dispatch_range"
                              " WHERE range_id IS NOT NULL)") == 1) {
        s = tree_read(db, "SELECT coalesce(max(id), 0) FROM range_span",
                      "SELECT id, coalesce(parent_id, 0), name, 0 FROM range_span", &t, err);
        if (s == DCU_OK) { /* the rows op_link.c wrote (PyTorch traces) stay theirs */
            s = put_rows(db,
                         "SELECT dispatch_id, range_id, range_id FROM dispatch_range"
                         " WHERE range_id IS NOT NULL ORDER BY dispatch_id",
                         &t, "range", err);
        }
        tree_free(&t);
    }
    if (s == DCU_OK && TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM kernel_stack"
                                             " WHERE dispatch_id IS NOT NULL"
                                             " AND form <> 'kineto')") == 1) {
        s = tree_read(db, "SELECT coalesce(max(id), 0) FROM stack_node",
                      "SELECT n.id, coalesce(n.parent, 0), f.name, f.lib FROM stack_node n"
                      " JOIN frame f ON f.id = n.frame_id",
                      &t, err);
        if (s == DCU_OK) {
            s = put_rows(db,
                         "SELECT dispatch_id, stack_id, id FROM kernel_stack"
                         " WHERE dispatch_id IS NOT NULL AND stack_id IS NOT NULL"
                         " AND form <> 'kineto' ORDER BY dispatch_id, id",
                         &t, "stack", err);
        }
        tree_free(&t);
    }
    if (s == DCU_OK) { /* the other dispatches of those files: counted, and said why */
        s = TraceDb_exec(db,
                         "INSERT OR IGNORE INTO dispatch_op(dispatch_id, pass, how)"
                         " SELECT d.id, 'other', 'unlinked: no marker range or stack at its"
                         " launch' FROM dispatch d WHERE d.file_id IN (SELECT DISTINCT"
                         " d2.file_id FROM dispatch_op o JOIN dispatch d2"
                         " ON d2.id = o.dispatch_id WHERE o.how IN ('range', 'stack'))",
                         err);
    }
    return s;
}
