/* op_link.c - see op_link.h. One file at a time: its aten ops, module frames, steps and
 * flows are read into memory, sorted by thread and start, nested, and every dispatch of
 * the file is resolved through hash maps (a million kernels: no SQL per row). */
#include "dcutop/op_link.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/intern.h"
#include "dcutop/xalloc.h"
#include "store/row_batch.h"

#define EVAL_PREFIX "autograd::engine::evaluate_function:"
#define MODULE_PREFIX "nn.Module: "

typedef struct {
    int64_t id, pid, tid, start, end, seq, fwd_tid, ext;
    int parent;   /* enclosing op on the same thread, -1 */
    int flow_fwd; /* a flow's 'f' end: the op at its 's' end, -1 */
    int mod;      /* module frame + 1; 0: none; -1: not looked up yet */
    int thr;      /* its thread (Thr index) */
    unsigned node : 1, has_seq : 1, has_fwd_tid : 1;
} Op;

typedef struct {
    int64_t pid, tid, start, end;
    int parent;
    char* path; /* owned: 'TinyGPT_0/DecoderBlock_1' */
} Mod;

typedef struct {
    int64_t pid, tid;
    int a, b; /* rows [a, b) of its array, sorted by start */
} Thr;

typedef struct {
    int64_t pid, start, end, n;
} Step;

typedef struct {
    Op* op;
    int nop;
    Thr* thr;
    int nthr;
    Intern* thr_ix; /* (pid, tid) -> thr + 1 */
    Mod* mod;
    int nmod;
    Thr* mthr;
    int nmthr;
    Intern* mthr_ix;
    Step* step;
    int nstep;
    I64Map* by_ext;    /* External id -> op + 1 */
    I64Map* by_corr;   /* correlation id -> op + 1 */
    I64Map* call_ns;   /* correlation id -> launch call start + 1 */
    Intern* by_seq;    /* (pid, tid, seq) -> forward op + 1 */
    Intern* fwd_thr;   /* (pid, Fwd thread id) -> thr + 1, learnt from the flows */
} File;

/* ---- reading --------------------------------------------------------------------------- */

static int64_t col_or(sqlite3_stmt* st, int i, int64_t dflt) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

/* Threads of rows sorted by (pid, tid, start): each thread's run [a, b). */
static void group_threads(const int64_t* pid, const int64_t* tid, int n, size_t stride, Thr** out,
                          int* nout, Intern* ix) {
    for (int i = 0; i < n; i++) {
        int64_t p = *(const int64_t*)((const char*)pid + stride * (size_t)i);
        int64_t t = *(const int64_t*)((const char*)tid + stride * (size_t)i);
        if (*nout == 0 || (*out)[*nout - 1].pid != p || (*out)[*nout - 1].tid != t) {
            *out = xrealloc(*out, sizeof(Thr) * (size_t)(*nout + 1));
            (*out)[*nout] = (Thr){p, t, i, i};
            (*nout)++;
            int64_t key[2] = {p, t};
            Intern_put(ix, (const char*)key, sizeof(key), *nout);
        }
        (*out)[*nout - 1].b = i + 1;
    }
}

static int thread_of(const Intern* ix, int64_t pid, int64_t tid) {
    int64_t key[2] = {pid, tid};
    return (int)Intern_get(ix, (const char*)key, sizeof(key)) - 1;
}

/* Whether span [s, e] holds [cs, ce] (rows sorted by start, the longer first): a span that
 * starts where another ends follows it, it is not inside (back-to-back ops would otherwise
 * nest a thread's whole run into one chain). */
static int encloses(int64_t s, int64_t e, int64_t cs, int64_t ce) {
    return s <= cs && ce <= e && (cs < e || s == cs);
}

static DcuStatus sql_fail(TraceDb* db, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "op links: %s", sqlite3_errmsg(TraceDb_handle(db)));
}

static DcuStatus read_ops(TraceDb* db, int64_t file, File* f, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT id, coalesce(pid, -1), coalesce(tid, -1), start_ns,"
                                  " end_ns, seq_nr, fwd_tid, ext_id,"
                                  " substr(name, 1, 36) = '" EVAL_PREFIX "'"
                                  " FROM cpu_op WHERE file_id = ?1 AND start_ns IS NOT NULL"
                                  " ORDER BY 2, 3, 4, 5 DESC, 1",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (f->nop == cap) {
            cap = cap ? cap * 2 : 1024;
            f->op = xrealloc(f->op, sizeof(Op) * (size_t)cap);
        }
        Op* o = &f->op[f->nop++];
        int64_t start = sqlite3_column_int64(st, 3);
        *o = (Op){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                  sqlite3_column_int64(st, 2), start, col_or(st, 4, start),
                  col_or(st, 5, 0), col_or(st, 6, 0), col_or(st, 7, 0),
                  -1, -1, -1, 0, 0, 0, 0};
        o->has_seq = sqlite3_column_type(st, 5) != SQLITE_NULL;
        o->has_fwd_tid = sqlite3_column_type(st, 6) != SQLITE_NULL;
        o->node = (o->has_fwd_tid && o->fwd_tid > 0) || sqlite3_column_int(st, 8);
        if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
            int64_t cur = I64Map_get(f->by_ext, o->ext);
            /* the innermost op with that External id: latest start, then lowest id */
            if (!cur || start > f->op[cur - 1].start) {
                I64Map_put(f->by_ext, o->ext, f->nop);
            }
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        return sql_fail(db, err);
    }
    if (f->nop > 0) {
        group_threads(&f->op[0].pid, &f->op[0].tid, f->nop, sizeof(Op), &f->thr, &f->nthr,
                      f->thr_ix);
    }
    int* stk = xmalloc(sizeof(int) * (size_t)(f->nop ? f->nop : 1));
    for (int t = 0; t < f->nthr; t++) {
        int ns = 0;
        for (int i = f->thr[t].a; i < f->thr[t].b; i++) {
            Op* o = &f->op[i];
            while (ns > 0 && !encloses(f->op[stk[ns - 1]].start, f->op[stk[ns - 1]].end,
                                       o->start, o->end)) {
                ns--;
            }
            o->parent = ns > 0 ? stk[ns - 1] : -1;
            o->thr = t;
            stk[ns++] = i;
        }
    }
    free(stk);
    return DCU_OK;
}

static DcuStatus read_modules(TraceDb* db, int64_t file, File* f, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT coalesce(pid, -1), coalesce(tid, -1), start_ns, end_ns,"
                                  " substr(name, 12) FROM py_frame WHERE file_id = ?1"
                                  " AND substr(name, 1, 11) = '" MODULE_PREFIX "'"
                                  " AND start_ns IS NOT NULL ORDER BY 1, 2, 3, 4 DESC, id",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (f->nmod == cap) {
            cap = cap ? cap * 2 : 256;
            f->mod = xrealloc(f->mod, sizeof(Mod) * (size_t)cap);
        }
        int64_t start = sqlite3_column_int64(st, 2);
        const char* nm = (const char*)sqlite3_column_text(st, 4);
        f->mod[f->nmod++] = (Mod){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), start,
                                  col_or(st, 3, start), -1, xstrdup(nm ? nm : "?")};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        return sql_fail(db, err);
    }
    if (f->nmod > 0) {
        group_threads(&f->mod[0].pid, &f->mod[0].tid, f->nmod, sizeof(Mod), &f->mthr, &f->nmthr,
                      f->mthr_ix);
    }
    int* stk = xmalloc(sizeof(int) * (size_t)(f->nmod ? f->nmod : 1));
    for (int t = 0; t < f->nmthr; t++) {
        int ns = 0;
        for (int i = f->mthr[t].a; i < f->mthr[t].b; i++) {
            Mod* m = &f->mod[i];
            while (ns > 0 && !encloses(f->mod[stk[ns - 1]].start, f->mod[stk[ns - 1]].end,
                                       m->start, m->end)) {
                ns--;
            }
            if (ns > 0) { /* parents come first: their path is complete */
                m->parent = stk[ns - 1];
                char* p = xasprintf("%s/%s", f->mod[m->parent].path, m->path);
                free(m->path);
                m->path = p;
            }
            stk[ns++] = i;
        }
    }
    free(stk);
    return DCU_OK;
}

static int cmp_step(const void* x, const void* y) {
    const Step *a = x, *b = y;
    return a->start < b->start ? -1 : a->start > b->start;
}

static DcuStatus read_steps(TraceDb* db, int64_t file, File* f, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT coalesce(pid, -1), start_ns, end_ns,"
                                  " CAST(substr(name, 14) AS INTEGER) FROM range"
                                  " WHERE file_id = ?1 AND substr(name, 1, 13) = 'ProfilerStep#'"
                                  " AND start_ns IS NOT NULL AND end_ns IS NOT NULL",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        f->step = xrealloc(f->step, sizeof(Step) * (size_t)(f->nstep + 1));
        f->step[f->nstep++] = (Step){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                     sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        return sql_fail(db, err);
    }
    if (f->nstep > 1) {
        qsort(f->step, (size_t)f->nstep, sizeof(Step), cmp_step);
    }
    return DCU_OK;
}

/* The step of process pid open at t: 0 with *n unset when none. */
static int step_at(const File* f, int64_t pid, int64_t t, int64_t* n) {
    int lo = 0, hi = f->nstep;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (f->step[mid].start <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (int k = lo - 1, tries = 0; k >= 0 && tries < 64; k--, tries++) {
        if ((f->step[k].pid == pid || f->step[k].pid == -1) && f->step[k].end >= t) {
            *n = f->step[k].n;
            return 1;
        }
    }
    return 0;
}

/* Index of the innermost op (mod_at: module frame) of thread th open at t
 * (start <= t <= end), -1 when none. */
static int op_at(const File* f, const Thr* th, int64_t t) {
    int lo = th->a, hi = th->b;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (f->op[mid].start <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (int k = lo - 1; k >= th->a; k = f->op[k].parent) {
        if (f->op[k].end >= t) {
            return k;
        }
        if (f->op[k].parent < 0) {
            break;
        }
    }
    return -1;
}

static int mod_at(const File* f, const Thr* th, int64_t t) {
    int lo = th->a, hi = th->b;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (f->mod[mid].start <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (int k = lo - 1; k >= th->a; k = f->mod[k].parent) {
        if (f->mod[k].end >= t) {
            return k;
        }
        if (f->mod[k].parent < 0) {
            break;
        }
    }
    return -1;
}

/* The op a flow end at (pid, tid, ts) binds to: one starting exactly there (the outermost
 * with a Sequence number, else the outermost), else the innermost open there. */
static int flow_op(const File* f, int64_t pid, int64_t tid, int64_t ts) {
    int t = thread_of(f->thr_ix, pid, tid);
    if (t < 0) {
        return -1;
    }
    const Thr* th = &f->thr[t];
    int lo = th->a, hi = th->b;
    while (lo < hi) { /* first row starting at or after ts */
        int mid = lo + (hi - lo) / 2;
        if (f->op[mid].start < ts) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int any = -1;
    for (int k = lo; k < th->b && f->op[k].start == ts; k++) {
        if (f->op[k].has_seq) {
            return k;
        }
        if (any < 0) {
            any = k;
        }
    }
    return any >= 0 ? any : op_at(f, th, ts);
}

static DcuStatus read_flows(TraceDb* db, int64_t file, File* f, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT flow_id, ph, coalesce(pid, -1), coalesce(tid, -1), ts_ns"
                                  " FROM kineto_flow WHERE file_id = ?1 ORDER BY flow_id, ph DESC",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    int rc, start = -1;
    int64_t start_id = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char* ph = (const char*)sqlite3_column_text(st, 1);
        int k = flow_op(f, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                        sqlite3_column_int64(st, 4));
        if (ph && ph[0] == 's') { /* 's' sorts before 'f' under DESC */
            start = k;
            start_id = id;
        } else if (ph && ph[0] == 'f' && k >= 0 && start >= 0 && start_id == id) {
            Op* b = &f->op[k];
            b->flow_fwd = start;
            b->node = 1;
            Op* up = b->parent >= 0 ? &f->op[b->parent] : NULL;
            if (up && up->node && up->has_seq && b->has_seq && up->seq == b->seq) {
                up->flow_fwd = start; /* evaluate_function: X around X: the same node */
            }
            if (b->has_fwd_tid && b->fwd_tid > 0) {
                int64_t key[2] = {b->pid, b->fwd_tid};
                Intern_put(f->fwd_thr, (const char*)key, sizeof(key), f->op[start].thr + 1);
            }
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? DCU_OK : sql_fail(db, err);
}

/* corr -> op through ext_link; correlation -> its launch call's start. */
static DcuStatus read_links(TraceDb* db, int64_t file, File* f, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT corr_id, ext_id FROM ext_link WHERE file_id = ?1"
                                  " AND corr_id IS NOT NULL AND ext_id IS NOT NULL",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t corr = sqlite3_column_int64(st, 0);
        int64_t op = I64Map_get(f->by_ext, sqlite3_column_int64(st, 1));
        int64_t cur = op ? I64Map_get(f->by_corr, corr) : 0;
        if (op && (!cur || f->op[op - 1].start > f->op[cur - 1].start ||
                   (f->op[op - 1].start == f->op[cur - 1].start &&
                    f->op[op - 1].id < f->op[cur - 1].id))) {
            I64Map_put(f->by_corr, corr, op);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        return sql_fail(db, err);
    }
    s = TraceDb_prepare(db,
                        "SELECT corr_id, min(start_ns) FROM api_call WHERE file_id = ?1"
                        " AND corr_id IS NOT NULL AND start_ns IS NOT NULL GROUP BY 1",
                        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(st, 1);
        if (t >= 0 && t < INT64_MAX) {
            I64Map_put(f->call_ns, sqlite3_column_int64(st, 0), t + 1);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? DCU_OK : sql_fail(db, err);
}

/* Forward ops by (pid, thread, Sequence number): the latest-starting one of each, as
 * PyTorch pairs them (the op that made the autograd node starts last among its peers). */
static void index_sequences(File* f) {
    for (int i = 0; i < f->nop; i++) {
        const Op* o = &f->op[i];
        if (!o->has_seq || o->node || (o->has_fwd_tid && o->fwd_tid > 0)) {
            continue;
        }
        int64_t key[3] = {o->pid, o->tid, o->seq};
        int64_t cur = Intern_get(f->by_seq, (const char*)key, sizeof(key));
        if (!cur || o->start >= f->op[cur - 1].start) {
            Intern_put(f->by_seq, (const char*)key, sizeof(key), i + 1);
        }
    }
}

/* ---- resolving ------------------------------------------------------------------------- */

typedef struct {
    int fwd;         /* forward op, -1 */
    int top;         /* outermost op enclosing the launching op */
    const char* pass;
    const char* how;
} Res;

/* The forward op of backward node n by its Sequence number: on the thread the flows tied
 * to its Fwd thread id, else on the one thread of the process that has such a forward op. */
static int by_sequence(const File* f, const Op* n) {
    int64_t key[2] = {n->pid, n->fwd_tid};
    int t = (int)Intern_get(f->fwd_thr, (const char*)key, sizeof(key)) - 1;
    int found = -1;
    for (int k = 0; k < f->nthr; k++) {
        if ((t >= 0 && k != t) || f->thr[k].pid != n->pid) {
            continue;
        }
        int64_t sk[3] = {n->pid, f->thr[k].tid, n->seq};
        int64_t i = Intern_get(f->by_seq, (const char*)sk, sizeof(sk));
        if (i) {
            if (found >= 0) {
                return -2; /* several threads have it: ambiguous */
            }
            found = (int)i - 1;
        }
    }
    return found;
}

static int module_of(File* f, int i) {
    Op* o = &f->op[i];
    if (o->mod < 0) {
        int t = thread_of(f->mthr_ix, o->pid, o->tid);
        int m = t >= 0 ? mod_at(f, &f->mthr[t], o->start) : -1;
        o->mod = m + 1;
    }
    return o->mod - 1;
}

static Res resolve(File* f, int i) {
    Res r = {-1, i, "other", "direct"};
    int node = -1, seq_anc = 0;
    for (int a = i; a >= 0; a = f->op[a].parent) {
        if (node < 0 && (f->op[a].node || f->op[a].flow_fwd >= 0)) {
            node = a;
        }
        seq_anc |= f->op[a].has_seq;
        r.top = a;
    }
    if (node < 0) {
        r.fwd = i;
        r.pass = seq_anc || module_of(f, i) >= 0 ? "forward" : "other";
        return r;
    }
    r.pass = "backward";
    for (int a = i; a >= 0; a = f->op[a].parent) {
        if (f->op[a].flow_fwd >= 0) {
            r.fwd = f->op[a].flow_fwd;
            r.how = "flow";
            return r;
        }
    }
    for (int a = i; a >= 0; a = f->op[a].parent) {
        const Op* n = &f->op[a];
        if (n->has_seq && n->has_fwd_tid && n->fwd_tid > 0) {
            int k = by_sequence(f, n);
            if (k >= 0) {
                r.fwd = k;
                r.how = "sequence";
            } else {
                r.how = k == -2 ? "unlinked: no forward op (sequence number on several threads)"
                                : "unlinked: no forward op with its sequence number";
            }
            return r;
        }
    }
    r.how = "unlinked: no forward op (backward op without flow or sequence number)";
    return r;
}

/* The forward thread of a process, for backward kernels with no forward op: its thread
 * with the most forward ops (those with a Sequence number), -1 when none has any. */
static int forward_thread(const File* f, int64_t pid) {
    int found = -1, best = 0;
    for (int k = 0; k < f->nthr; k++) {
        if (f->thr[k].pid != pid) {
            continue;
        }
        int n = 0;
        for (int i = f->thr[k].a; i < f->thr[k].b; i++) {
            n += f->op[i].has_seq && !f->op[i].node;
        }
        if (n > best) {
            best = n;
            found = k;
        }
    }
    return found;
}

typedef struct {
    File f;
    RowBatch* ins;
    int* fwd_thread; /* by thread: the process's forward thread + 2; 0 not computed */
} Pass;

static void put_row(Pass* p, int64_t dispatch, int op, const Res* r, int64_t launch_ns,
                    const char* unlinked) {
    File* f = &p->f;
    RowBatch* b = p->ins;
    RowBatch_int(b, dispatch);
    if (op < 0) {
        RowBatch_null(b);
        RowBatch_null(b);
        RowBatch_text(b, "other");
        RowBatch_null(b);
    } else {
        RowBatch_int(b, f->op[op].id);
        r->fwd >= 0 ? RowBatch_int(b, f->op[r->fwd].id) : RowBatch_null(b);
        RowBatch_text(b, r->pass);
        int m = r->fwd >= 0 ? module_of(f, r->fwd) : -1;
        m >= 0 ? RowBatch_text(b, f->mod[m].path) : RowBatch_null(b);
    }
    int64_t pid = op >= 0 ? f->op[op].pid : -1, n = 0;
    int64_t t = op >= 0 ? f->op[op].start : launch_ns;
    int has = t != INT64_MIN && (op >= 0 ? step_at(f, pid, t, &n) : step_at(f, -1, t, &n));
    if (!has && op < 0 && t != INT64_MIN) { /* an unlinked launch: any process's step */
        for (int k = 0; k < f->nstep && !has; k++) {
            if (f->step[k].start <= t && f->step[k].end >= t) {
                n = f->step[k].n;
                has = 1;
            }
        }
    }
    has ? RowBatch_int(b, n) : RowBatch_null(b);
    RowBatch_text(b, op < 0 ? unlinked : r->how);
    op >= 0 ? RowBatch_int(b, f->op[r->top].id) : RowBatch_null(b);
    /* backward: ranges and stack of the forward op, else of the forward thread then */
    if (op >= 0 && r->pass[0] == 'b' && r->fwd >= 0) {
        RowBatch_int(b, f->op[r->fwd].tid);
        RowBatch_int(b, f->op[r->fwd].start);
    } else if (op >= 0 && r->pass[0] == 'b') {
        int th = f->op[op].thr;
        if (!p->fwd_thread[th]) {
            p->fwd_thread[th] = forward_thread(f, f->op[op].pid) + 2;
        }
        int ft = p->fwd_thread[th] - 2;
        ft >= 0 ? RowBatch_int(b, f->thr[ft].tid) : RowBatch_null(b);
        ft >= 0 ? RowBatch_int(b, f->op[r->top].start) : RowBatch_null(b);
    } else {
        RowBatch_null(b);
        RowBatch_null(b);
    }
}

static DcuStatus link_dispatches(TraceDb* db, int64_t file, Pass* p, DcuError* err) {
    File* f = &p->f;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT d.id, d.corr_id, d.start_ns FROM dispatch d"
                                  " WHERE " DISPATCH_OF_FILE("?1") " ORDER BY d.id",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    Res* memo = xmalloc(sizeof(Res) * (size_t)(f->nop ? f->nop : 1));
    unsigned char* done = xcalloc((size_t)(f->nop ? f->nop : 1), 1);
    p->fwd_thread = xcalloc((size_t)(f->nthr ? f->nthr : 1), sizeof(int));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        int has_corr = sqlite3_column_type(st, 1) != SQLITE_NULL;
        int64_t corr = sqlite3_column_int64(st, 1);
        int op = has_corr ? (int)I64Map_get(f->by_corr, corr) - 1 : -1;
        int64_t call = has_corr ? I64Map_get(f->call_ns, corr) : 0;
        int64_t launch = call ? call - 1 : col_or(st, 2, INT64_MIN);
        if (op >= 0 && !done[op]) {
            memo[op] = resolve(f, op);
            done[op] = 1;
        }
        put_row(p, id, op, op >= 0 ? &memo[op] : NULL, launch,
                !has_corr ? "unlinked: no correlation id"
                : call    ? "unlinked: no op encloses the launch"
                          : "unlinked: no op for its correlation id");
        if (RowBatch_endRow(p->ins) != SQLITE_DONE) {
            s = sql_fail(db, err);
            break;
        }
    }
    if (s == DCU_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    if (s == DCU_OK && RowBatch_flush(p->ins) != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    free(memo);
    free(done);
    free(p->fwd_thread);
    p->fwd_thread = NULL;
    return s;
}

static void file_free(File* f) {
    for (int i = 0; i < f->nmod; i++) {
        free(f->mod[i].path);
    }
    free(f->op);
    free(f->thr);
    free(f->mod);
    free(f->mthr);
    free(f->step);
    Intern_delete(f->thr_ix);
    Intern_delete(f->mthr_ix);
    Intern_delete(f->by_seq);
    Intern_delete(f->fwd_thr);
    I64Map_delete(f->by_ext);
    I64Map_delete(f->by_corr);
    I64Map_delete(f->call_ns);
    memset(f, 0, sizeof(*f));
}

static DcuStatus link_file(TraceDb* db, int64_t file, Pass* p, DcuError* err) {
    File* f = &p->f;
    f->thr_ix = Intern_new();
    f->mthr_ix = Intern_new();
    f->by_seq = Intern_new();
    f->fwd_thr = Intern_new();
    f->by_ext = I64Map_new();
    f->by_corr = I64Map_new();
    f->call_ns = I64Map_new();
    DcuStatus s = read_ops(db, file, f, err);
    if (s == DCU_OK) {
        s = read_modules(db, file, f, err);
    }
    if (s == DCU_OK) {
        s = read_steps(db, file, f, err);
    }
    if (s == DCU_OK) {
        s = read_flows(db, file, f, err);
    }
    if (s == DCU_OK) {
        s = read_links(db, file, f, err);
    }
    if (s == DCU_OK) {
        index_sequences(f);
        s = link_dispatches(db, file, p, err);
    }
    file_free(f);
    return s;
}

DcuStatus OpLink_build(TraceDb* db, DcuError* err) {
    DcuStatus s = TraceDb_exec(db, "DELETE FROM dispatch_op", err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_stmt* files = NULL;
    s = TraceDb_prepare(db,
                        "SELECT id FROM source_file WHERE format = 'PyTorch profiler (Kineto)"
                        " trace' OR id IN (SELECT DISTINCT file_id FROM cpu_op) ORDER BY id",
                        &files, err);
    if (s != DCU_OK) {
        return s;
    }
    Pass p = {0};
    p.ins = RowBatch_new(db,
                         "INSERT OR REPLACE INTO dispatch_op(dispatch_id, op_id, fwd_op_id, pass,"
                         " module, step, how, top_op_id, anchor_tid, anchor_ns) VALUES",
                         "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", 10);
    int rc;
    while (s == DCU_OK && (rc = sqlite3_step(files)) == SQLITE_ROW) {
        s = link_file(db, sqlite3_column_int64(files, 0), &p, err);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(files);
    RowBatch_delete(p.ins);
    return s;
}
