/* kineto_stacks.c - the Stacks view's paths for PyTorch (Kineto) traces: a dispatch that an
 * aten op launched gets the op's python stack (the python_function frames enclosing the op
 * on its thread, or the op's own 'Call stack'), then the op. */
#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/kineto_link.h"
#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "load_internal.h"
#include "load_stacks_internal.h"
#include "store/row_batch.h"

/* Appends the python frames of one aten op, outermost first: its "Call stack" argument
 * (innermost first, ';'-separated) where PyTorch wrote one, else the python_function events
 * of its thread that enclose it (the innermost by latest start, then its parents). */
static void op_frames(Ctx* c, sqlite3_stmt* enclosing, sqlite3_stmt* parent, int64_t file_id,
                      sqlite3_stmt* op) {
    Stack* st = &c->st;
    const char* cs = (const char*)sqlite3_column_text(op, 1);
    size_t cl = (size_t)sqlite3_column_bytes(op, 1);
    if (cs && cl > 0) {
        st->root_first = 0;
        size_t start = 0;
        for (size_t i = 0; i <= cl; i++) {
            if (i == cl || cs[i] == ';') {
                const char* f = cs + start;
                size_t l = i - start;
                StackLoad_trim(&f, &l);
                if (l > 0) {
                    Stack_push(c, st, f, l, 0);
                }
                start = i + 1;
            }
        }
        return;
    }
    st->root_first = 0;
    sqlite3_bind_int64(enclosing, 1, file_id);
    for (int k = 0; k < 4; k++) {
        sqlite3_bind_value(enclosing, 2 + k, sqlite3_column_value(op, 2 + k));
    }
    int64_t id = sqlite3_step(enclosing) == SQLITE_ROW ? sqlite3_column_int64(enclosing, 0) : 0;
    sqlite3_reset(enclosing);
    int guard = 0;
    while (id > 0 && guard++ < 100000) {
        sqlite3_bind_int64(parent, 1, id);
        int64_t next = 0;
        if (sqlite3_step(parent) == SQLITE_ROW) {
            const char* nm = (const char*)sqlite3_column_text(parent, 0);
            if (nm) {
                Stack_push(c, st, nm, strlen(nm), 0);
            }
            next = sqlite3_column_int64(parent, 1);
        }
        sqlite3_reset(parent);
        id = next < id ? next : 0; /* parents come first in the file: never loop */
    }
}

static int table_exists(TraceDb* db, const char* name) {
    sqlite3_stmt* st = NULL;
    int found = 0;
    if (TraceDb_prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", &st,
                        NULL) == DCU_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    return found;
}

/* The dispatches kernel_stack already gives a stack, into set (value 1). */
static DcuStatus stacked_dispatches(TraceDb* db, I64Map* set, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db, "SELECT DISTINCT dispatch_id FROM kernel_stack WHERE dispatch_id IS NOT NULL", &st,
        err);
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        I64Map_put(set, sqlite3_column_int64(st, 0), 1);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "kineto stacks: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

/* The statements of one Kineto stack pass (kineto_stacks). */
typedef struct {
    sqlite3_stmt *op, *enclosing, *parent;
    RowBatch* ins; /* kernel_stack rows */
    sqlite3_stmt *name, *anchor; /* an op's name; a place on a thread at a time */
    I64Map* by_op; /* cpu_op.id -> stack node (+1; 1 = no frames) */
    I64Map* bwd;   /* backward dispatch id -> row of bwd_at + 1 */
    int64_t* bwd_at;
    I64Map* by_bwd; /* a backward kernel's launching op -> stack node + 1 */
    I64Map* done;  /* dispatches a stack dump gave a stack already */
    int64_t only_file; /* the one file of every ext_link and cpu_op row; 0: several */
} KinetoPass;

/* Puts name in front of the frames (they are innermost first here). */
static void push_inner(Stack* st, const char* name) {
    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 16;
        st->frames = xrealloc(st->frames, sizeof(char*) * (size_t)st->cap);
    }
    memmove(st->frames + 1, st->frames, sizeof(char*) * (size_t)st->n);
    st->frames[0] = Names_sanitize(name ? name : "?", name ? strlen(name) : 1);
    st->n++;
}

/* The stack node (+1; 1: no frames) of the row `row` stands on (an op's name, call stack,
 * pid, tid, start, end): its python frames, then the name when with_name, then leaf and
 * inner when not NULL. */
static int64_t place_node(Ctx* c, int64_t file_id, sqlite3_stmt* row, sqlite3_stmt* enclosing,
                          sqlite3_stmt* parent, int with_name, const char* leaf,
                          const char* inner) {
    Stack_clear(&c->st);
    LoadFile lf = {0};
    lf.id = file_id;
    lf.path = "";
    c->f = &lf;
    op_frames(c, enclosing, parent, file_id, row);
    Stack* st = &c->st;
    if (with_name) {
        push_inner(st, (const char*)sqlite3_column_text(row, 0));
    }
    if (leaf) {
        push_inner(st, leaf);
    }
    if (inner) {
        push_inner(st, inner);
    }
    int64_t at = 0;
    for (int k = 0; k < st->n && (k == 0 || at); k++) {
        const char* f = st->frames[st->n - 1 - k];
        int64_t fid = StackLoad_frameId(c->core, f, strlen(f));
        at = fid ? StackLoad_nodeId(c->core, at, fid, k) : 0;
    }
    c->f = NULL;
    return at + 1;
}

/* The stack node of an aten op (+1; 1: the op has no frames): its python frames, then the
 * op as the innermost frame. Cached per op. */
static int64_t op_node(Ctx* c, KinetoPass* p, int64_t file_id, int64_t op_id) {
    int64_t node = I64Map_get(p->by_op, op_id);
    if (node) {
        return node;
    }
    node = 1;
    sqlite3_bind_int64(p->op, 1, op_id);
    if (sqlite3_step(p->op) == SQLITE_ROW) {
        node = place_node(c, file_id, p->op, p->enclosing, p->parent, 1, NULL, NULL);
    }
    sqlite3_reset(p->op);
    I64Map_put(p->by_op, op_id, node);
    return node;
}

/* The name of op id (owned; NULL when none). */
static char* op_name(KinetoPass* p, int64_t id) {
    char* n = NULL;
    sqlite3_bind_int64(p->name, 1, id);
    if (sqlite3_step(p->name) == SQLITE_ROW) {
        const char* nm = (const char*)sqlite3_column_text(p->name, 0);
        n = xstrdup(nm ? nm : "?");
    }
    sqlite3_reset(p->name);
    return n;
}

/* A backward kernel (dispatch_op): the stack of its forward op (python frames, the op),
 * else of the forward thread when it was launched, then '[backward] AddmmBackward0' (the
 * autograd node that ran it), then the op that launched it when another (aten::mm).
 * Cached per launching op (it decides the rest). */
static int64_t backward_node(Ctx* c, KinetoPass* p, int64_t file_id, int64_t op_id, int64_t b) {
    const int64_t* r = &p->bwd_at[4 * b]; /* fwd op, top op, anchor tid, anchor ns; 0: none */
    int64_t node = I64Map_get(p->by_bwd, op_id);
    if (node) {
        return node;
    }
    const char* pre = "autograd::engine::evaluate_function: ";
    char* top = op_name(p, r[1]);
    char* inner = op_name(p, op_id);
    const char* nm = top ? top : "?";
    nm = strncmp(nm, pre, strlen(pre)) == 0 ? nm + strlen(pre) : nm;
    char* leaf = xasprintf("[backward] %s", nm);
    if (inner && (op_id == r[1] || strcmp(inner, nm) == 0)) {
        free(inner); /* launched by the node itself */
        inner = NULL;
    }
    free(top);
    sqlite3_stmt* row = r[0] ? p->op : p->anchor;
    sqlite3_bind_int64(row, 1, r[0] ? r[0] : r[1]);
    if (!r[0]) {
        sqlite3_bind_int64(row, 2, r[2]);
        sqlite3_bind_int64(row, 3, r[3]);
    }
    node = 0;
    if ((r[0] || r[3] != INT64_MIN) && sqlite3_step(row) == SQLITE_ROW) {
        node = place_node(c, file_id, row, p->enclosing, p->parent, r[0] != 0, leaf, inner);
    }
    sqlite3_reset(row);
    if (!node) { /* nowhere to stand: the backward op's own stack */
        sqlite3_bind_int64(p->op, 1, op_id);
        node = sqlite3_step(p->op) == SQLITE_ROW
                   ? place_node(c, file_id, p->op, p->enclosing, p->parent, 0, leaf, inner)
                   : 1;
        sqlite3_reset(p->op);
    }
    free(leaf);
    free(inner);
    I64Map_put(p->by_bwd, op_id, node);
    return node;
}

/* Backward dispatches of dispatch_op (op_link.h), by dispatch id into p->bwd. */
static DcuStatus read_backward(TraceDb* db, KinetoPass* p, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT dispatch_id, coalesce(fwd_op_id, 0), top_op_id,"
                                  " coalesce(anchor_tid, 0),"
                                  " coalesce(anchor_ns, -9223372036854775807 - 1)"
                                  " FROM dispatch_op WHERE pass = 'backward'"
                                  " AND top_op_id IS NOT NULL",
                                  &st, err);
    int64_t n = 0, cap = 0;
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            p->bwd_at = xrealloc(p->bwd_at, sizeof(int64_t) * 4 * (size_t)cap);
        }
        for (int k = 0; k < 4; k++) {
            p->bwd_at[4 * n + k] = sqlite3_column_int64(st, 1 + k);
        }
        I64Map_put(p->bwd, sqlite3_column_int64(st, 0), ++n);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "dispatch_op: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

/* The kernel_stack rows of one file's dispatches, in id order. */
static DcuStatus kineto_file(Ctx* c, KinetoPass* p, int64_t file_id, DcuError* err) {
    TraceDb* db = c->core->db;
    KinetoLink* v = NULL;
    int64_t n = 0;
    DcuStatus s = KinetoLink_file(db, file_id, p->only_file == file_id, &v, &n, err);
    for (int64_t i = 0; s == DCU_OK && i < n; i++) {
        const KinetoLink* d = &v[i];
        if (d->op == 0) {
            continue; /* no aten op for this launch (library launches often have none) */
        }
        if (I64Map_get(p->done, d->dispatch_id)) {
            continue; /* each dispatch comes once (one file, one row): only these are done */
        }
        int64_t b = I64Map_get(p->bwd, d->dispatch_id);
        int64_t node = b ? backward_node(c, p, file_id, d->op, b - 1)
                         : op_node(c, p, file_id, d->op);
        RowBatch_int(p->ins, file_id);
        node > 1 ? RowBatch_int(p->ins, node - 1) : RowBatch_null(p->ins);
        RowBatch_int(p->ins, d->kernel_id);
        RowBatch_int(p->ins, d->dispatch_id);
        RowBatch_int(p->ins, d->dur_ns);
        if (RowBatch_endRow(p->ins) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "kernel_stack: %s", sqlite3_errmsg(TraceDb_handle(db)));
        }
    }
    if (s == DCU_OK && RowBatch_flush(p->ins) != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "kernel_stack: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    free(v);
    return s;
}

static DcuStatus kineto_prepare(TraceDb* db, KinetoPass* p, DcuError* err) {
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT name, call_stack, pid, tid, start_ns, end_ns FROM cpu_op"
                                  " WHERE id = ?1",
                                  &p->op, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "SELECT id FROM py_frame WHERE file_id = ?1 AND pid IS ?2 AND tid IS ?3"
                            " AND start_ns <= ?4 AND end_ns >= ?5 ORDER BY start_ns DESC, id DESC"
                            " LIMIT 1",
                            &p->enclosing, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT name, coalesce(parent_id, 0) FROM py_frame WHERE id = ?1",
                            &p->parent, err);
    }
    /* a million rows at a Kineto load: stored 64 a statement (row_batch.h) */
    p->ins = RowBatch_new(db,
                          "INSERT INTO kernel_stack(file_id, stack_id, form, kernel_id,"
                          " dispatch_id, match, calls, time_ns) VALUES",
                          "(?, ?, 'kineto', ?, ?, 'correlation', 1, ?)", 5);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT name FROM cpu_op WHERE id = ?1", &p->name, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "SELECT NULL, NULL, pid, ?2, ?3, ?3 FROM cpu_op WHERE id = ?1",
                            &p->anchor, err);
    }
    p->by_op = I64Map_new();
    p->bwd = I64Map_new();
    p->by_bwd = I64Map_new();
    if (s == DCU_OK) {
        s = read_backward(db, p, err);
    }
    /* Dispatches that already have a stack (a dump matched them) keep it. Kept in memory
     * rather than probed per dispatch with NOT EXISTS while rows are added: the probe and
     * the index upkeep were a third of a Kineto load (issue 11). */
    p->done = I64Map_new();
    if (s == DCU_OK) {
        s = stacked_dispatches(db, p->done, err);
    }
    return s;
}

static void kineto_release(KinetoPass* p) {
    sqlite3_finalize(p->op);
    sqlite3_finalize(p->enclosing);
    sqlite3_finalize(p->parent);
    RowBatch_delete(p->ins);
    I64Map_delete(p->by_op);
    sqlite3_finalize(p->name);
    sqlite3_finalize(p->anchor);
    I64Map_delete(p->bwd);
    I64Map_delete(p->by_bwd);
    free(p->bwd_at);
    I64Map_delete(p->done);
}

/* The file of every ext_link and cpu_op row when that is one file (one trace, not a job's
 * ranks), else 0. Two scans that stop at the first other file. */
static int64_t only_linked_file(TraceDb* db) {
    int64_t f = TraceDb_scalarInt(db, "SELECT file_id FROM ext_link LIMIT 1");
    if (f <= 0) {
        return 0;
    }
    char* sql = xasprintf("SELECT NOT EXISTS (SELECT 1 FROM ext_link NOT INDEXED"
                          " WHERE file_id <> %lld) AND NOT EXISTS (SELECT 1 FROM cpu_op"
                          " NOT INDEXED WHERE file_id <> %lld)",
                          (long long)f, (long long)f);
    int one = TraceDb_scalarInt(db, sql) == 1;
    free(sql);
    return one ? f : 0;
}

/* Every dispatch of a used kernel file that a Kineto trace ties to an aten op (correlation
 * id -> External id -> cpu_op) gets a stack: the op's python stack, then the op. Exact
 * matches: the dispatch's own time. */
DcuStatus KinetoStacks_build(LoaderCore* core, DcuError* err) {
    TraceDb* db = core->db;
    if (!table_exists(db, "ext_link") || !table_exists(db, "cpu_op") ||
        !table_exists(db, "py_frame") ||
        !TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM ext_link)")) {
        return DCU_OK;
    }
    KinetoPass p = {0};
    p.only_file = only_linked_file(db);
    DcuStatus s = TraceDb_exec(db,
                               p.only_file ? "" /* links read by table scans (kineto_link.h) */
                                           : "CREATE INDEX IF NOT EXISTS ext_link_corr ON"
                                             " ext_link(file_id, corr_id);"
                                             "CREATE INDEX IF NOT EXISTS cpu_op_ext ON"
                                             " cpu_op(file_id, ext_id);",
                               err);
    if (s == DCU_OK) {
        s = TraceDb_exec(db,
                         "CREATE INDEX IF NOT EXISTS py_frame_thread ON py_frame(file_id, pid,"
                         " tid, start_ns);",
                         err);
    }
    if (s == DCU_OK) {
        s = StackLoad_init(core, err);
    }
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_stmt* files = NULL;
    s = kineto_prepare(db, &p, err);
    if (s == DCU_OK) { /* the used kernel files with links, in id order (their rows' order) */
        s = TraceDb_prepare(db,
                            "SELECT DISTINCT u.file_id FROM used_file u WHERE u.layer = 'kernel'"
                            " AND (u.file_id = ?1 OR ?1 = 0 AND EXISTS (SELECT 1 FROM ext_link e"
                            " WHERE e.file_id = u.file_id)) ORDER BY u.file_id",
                            &files, err);
    }
    if (s == DCU_OK) {
        sqlite3_bind_int64(files, 1, p.only_file);
    }
    Ctx c = {0};
    c.core = core;
    c.st.last_num = -1;
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(files)) == SQLITE_ROW) {
        s = kineto_file(&c, &p, sqlite3_column_int64(files, 0), err);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "kineto stacks: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(files);
    Stack_free(&c.st);
    free(c.tmp.p);
    kineto_release(&p);
    /* no index on kernel_stack(dispatch_id): nothing looks a row up by its dispatch since
     * the probe moved to memory (p.done), and building it over a million rows was 1% of a
     * Kineto report (issue 23) */
    return s;
}

