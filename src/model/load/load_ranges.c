/* load_ranges.c - roctx/hiptx ranges after loading: the `range` rows of used files become
 * intervals with their nesting (range_span), and every dispatch of a used kernel file is
 * attributed to the innermost range open on its launching thread at its launch
 * (dispatch_range).
 *
 * Launch time and thread: from the host API call with the dispatch's correlation id (same
 * run) when there is one (rocprofv3 kernel_trace Correlation_Id vs
 * hip_api_trace); otherwise the dispatch's own start and thread ("by time": a kernel starts
 * on the device after it was launched, so a range that ends in between loses it).
 *
 * rocprofv3 marker rows are ranges already (start..end; start == end is a mark). rocprofv2
 * roctx_trace rows are events with no thread: a row with a message opens a range (push,
 * or roctxRangeStart when ROCTX_ID is not 0), an empty message closes the innermost open
 * one (pop; with a ROCTX_ID, the range started with that id). A mark looks like a push
 * in that file; one never closed is reported and dropped. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/intern.h"
#include "dcutop/launch_link.h"
#include "dcutop/runs.h"
#include "dcutop/trace_query.h"
#include "dcutop/xalloc.h"
#include "load_internal.h"
#include "store/row_batch.h"

#define NO_TID INT64_MIN

typedef struct Span_ {
    int64_t file, pid, tid, start, end;
    char* name;
    int parent; /* index in the sorted array, -1 */
    int depth;
} Span;

typedef struct Spans_ {
    Span* v;
    int n, cap;
} Spans;

static void spans_add(Spans* s, int64_t file, int64_t pid, int64_t tid, int64_t start, int64_t end,
                      const char* name) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = xrealloc(s->v, sizeof(Span) * (size_t)s->cap);
    }
    Span* p = &s->v[s->n++];
    p->file = file;
    p->pid = pid;
    p->tid = tid;
    p->start = start;
    p->end = end;
    p->name = xstrdup(name);
    p->parent = -1;
    p->depth = 0;
}

static void message(LoaderCore* core, int64_t file_id, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void message(LoaderCore* core, int64_t file_id, const char* fmt, ...) {
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    sqlite3_stmt* st = core->st[ST_MSG];
    sqlite3_bind_int64(st, 1, file_id);
    sqlite3_bind_null(st, 2);
    sqlite3_bind_text(st, 3, buf, -1, SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_reset(st);
}

/* rocprofv2 push/pop pairing state of one file */
typedef struct Open_ {
    int64_t id; /* ROCTX_ID, 0 for push/pop */
    int64_t start, pid;
    char* name;
} Open;

typedef struct Pairing_ {
    Open* v;
    int n, cap;
    int64_t file;
    int64_t pops_unmatched;
} Pairing;

static void pairing_end(LoaderCore* core, Pairing* p) {
    if (p->file > 0 && p->n > 0) {
        message(core, p->file,
                "%d roctx range%s never closed (a mark, which this file does not tell from a "
                "push, or a trace cut short), first '%.80s': not used as range%s",
                p->n, p->n == 1 ? "" : "s", p->v[0].name, p->n == 1 ? "" : "s");
    }
    if (p->file > 0 && p->pops_unmatched > 0) {
        message(core, p->file, "%lld roctx pop%s with no open range: ignored",
                (long long)p->pops_unmatched, p->pops_unmatched == 1 ? "" : "s");
    }
    for (int i = 0; i < p->n; i++) {
        free(p->v[i].name);
    }
    p->n = 0;
    p->pops_unmatched = 0;
}

static void pairing_event(Pairing* p, Spans* out, int64_t file, int64_t pid, int64_t id,
                          const char* name, int64_t ts) {
    if (name && *name) {
        if (p->n == p->cap) {
            p->cap = p->cap ? p->cap * 2 : 32;
            p->v = xrealloc(p->v, sizeof(Open) * (size_t)p->cap);
        }
        p->v[p->n].id = id;
        p->v[p->n].start = ts;
        p->v[p->n].pid = pid;
        p->v[p->n].name = xstrdup(name);
        p->n++;
        return;
    }
    int k = -1;
    for (int i = p->n - 1; i >= 0; i--) {
        if (p->v[i].id == id) { /* innermost push (id 0) or the start with this id */
            k = i;
            break;
        }
    }
    if (k < 0) {
        p->pops_unmatched++;
        return;
    }
    if (ts > p->v[k].start) {
        spans_add(out, file, p->v[k].pid, NO_TID, p->v[k].start, ts, p->v[k].name);
    }
    free(p->v[k].name);
    memmove(&p->v[k], &p->v[k + 1], sizeof(Open) * (size_t)(p->n - k - 1));
    p->n--;
}

static int cmp_span(const void* x, const void* y) {
    const Span* a = x;
    const Span* b = y;
    if (a->file != b->file) {
        return a->file < b->file ? -1 : 1;
    }
    if (a->tid != b->tid) {
        return a->tid < b->tid ? -1 : 1;
    }
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    if (a->end != b->end) {
        return a->end > b->end ? -1 : 1; /* the enclosing one first */
    }
    return strcmp(a->name, b->name);
}

static DcuStatus read_spans(LoaderCore* core, Spans* sp, DcuError* err) {
    TraceDb* db = core->db;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT file_id, name, pid, tid, corr_id, event, start_ns, end_ns FROM range"
        " WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'range')"
        " AND start_ns IS NOT NULL ORDER BY file_id, id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    Pairing pr = {0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t file = sqlite3_column_int64(st, 0);
        const char* name = (const char*)sqlite3_column_text(st, 1);
        int64_t pid =
            sqlite3_column_type(st, 2) == SQLITE_NULL ? NO_TID : sqlite3_column_int64(st, 2);
        int64_t tid =
            sqlite3_column_type(st, 3) == SQLITE_NULL ? NO_TID : sqlite3_column_int64(st, 3);
        int64_t corr = sqlite3_column_int64(st, 4);
        const char* ev = (const char*)sqlite3_column_text(st, 5);
        int64_t start = sqlite3_column_int64(st, 6);
        int64_t end =
            sqlite3_column_type(st, 7) == SQLITE_NULL ? start : sqlite3_column_int64(st, 7);
        if (file != pr.file) {
            pairing_end(core, &pr);
            pr.file = file;
        }
        if (ev && strcmp(ev, "event") == 0) {
            pairing_event(&pr, sp, file, pid, corr, name, start);
        } else if (end > start) {
            spans_add(sp, file, pid, tid, start, end, name ? name : "");
        }
    }
    pairing_end(core, &pr);
    free(pr.v);
    if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "range: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

/* Nesting within each (file, thread) group; inserts range_span (emptied before) in sorted
 * order, span i getting id i + 1, so that a parent's id is smaller than its children's. */
static DcuStatus nest_and_store(LoaderCore* core, Spans* sp, DcuError* err) {
    if (sp->n > 1) {
        qsort(sp->v, (size_t)sp->n, sizeof(Span), cmp_span);
    }
    int* stk = xmalloc(sizeof(int) * (size_t)(sp->n > 0 ? sp->n : 1));
    int ns = 0;
    for (int i = 0; i < sp->n; i++) {
        Span* s = &sp->v[i];
        if (i > 0 && (sp->v[i - 1].file != s->file || sp->v[i - 1].tid != s->tid)) {
            ns = 0;
        }
        while (ns > 0 && sp->v[stk[ns - 1]].end <= s->start) {
            ns--;
        }
        /* a range that starts inside another is its child even when it outlives it
         * (roctxRangeStart/Stop may overlap without nesting) */
        s->parent = ns > 0 ? stk[ns - 1] : -1;
        s->depth = ns;
        stk[ns++] = i;
    }
    free(stk);
    sqlite3_stmt* ins = NULL;
    DcuStatus s = TraceDb_prepare(core->db,
                                  "INSERT INTO range_span(id, file_id, name, pid, tid, start_ns,"
                                  " end_ns, parent_id, depth) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
                                  &ins, err);
    for (int i = 0; s == DCU_OK && i < sp->n; i++) {
        Span* r = &sp->v[i];
        sqlite3_bind_int64(ins, 1, i + 1);
        sqlite3_bind_int64(ins, 2, r->file);
        sqlite3_bind_text(ins, 3, r->name, -1, SQLITE_STATIC);
        r->pid == NO_TID ? sqlite3_bind_null(ins, 4) : sqlite3_bind_int64(ins, 4, r->pid);
        r->tid == NO_TID ? sqlite3_bind_null(ins, 5) : sqlite3_bind_int64(ins, 5, r->tid);
        sqlite3_bind_int64(ins, 6, r->start);
        sqlite3_bind_int64(ins, 7, r->end);
        r->parent < 0 ? sqlite3_bind_null(ins, 8) : sqlite3_bind_int64(ins, 8, r->parent + 1);
        sqlite3_bind_int(ins, 9, r->depth);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "range_span: %s",
                          sqlite3_errmsg(TraceDb_handle(core->db)));
        }
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    return s;
}

/* ---- attribution --------------------------------------------------------------------------- */

typedef struct Group_ {
    int64_t file, tid;
    int a, b; /* spans [a, b) */
} Group;

typedef struct Attr_ {
    Spans* sp;
    Group* g;
    int ng;
    Intern* gix;     /* (file, tid) -> group + 1 */
    int64_t* compat; /* pairs (dispatch file, range file) */
    int ncompat;
    I64Map* anchor;  /* backward dispatch id -> its forward op's place + 1 (op_link.h) */
    int64_t* anchor_at; /* pairs (tid, ns) */
} Attr;

/* innermost span of group g open at t: the last one started at or before t, or the
 * nearest of its ancestors still open */
static int innermost(const Attr* a, const Group* g, int64_t t) {
    int lo = g->a, hi = g->b; /* first index with start > t */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a->sp->v[mid].start <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (int k = lo - 1; k >= g->a; k = a->sp->v[k].parent) {
        if (a->sp->v[k].end > t) {
            return k;
        }
        if (a->sp->v[k].parent < 0) {
            break;
        }
    }
    return -1;
}

static int better(const Attr* a, int cand, int best) {
    if (best < 0) {
        return 1;
    }
    const Span* c = &a->sp->v[cand];
    const Span* b = &a->sp->v[best];
    return c->start > b->start || (c->start == b->start && c->depth > b->depth);
}

static int group_of(const Attr* a, int64_t file, int64_t tid) {
    int64_t key[2] = {file, tid};
    int64_t g = Intern_get(a->gix, (const char*)key, sizeof(key));
    return g ? (int)g - 1 : -1;
}

static int attribute(const Attr* a, int64_t dfile, int64_t tid, int64_t t) {
    int best = -1;
    for (int c = 0; c < a->ncompat; c++) {
        if (a->compat[2 * c] != dfile) {
            continue;
        }
        int64_t rfile = a->compat[2 * c + 1];
        if (tid == NO_TID) { /* thread unknown: every thread of that file */
            for (int g = 0; g < a->ng; g++) {
                if (a->g[g].file == rfile) {
                    int k = innermost(a, &a->g[g], t);
                    if (k >= 0 && better(a, k, best)) {
                        best = k;
                    }
                }
            }
            continue;
        }
        int64_t tids[2] = {tid, NO_TID};
        for (int i = 0; i < 2; i++) {
            int g = group_of(a, rfile, tids[i]);
            if (g >= 0) {
                int k = innermost(a, &a->g[g], t);
                if (k >= 0 && better(a, k, best)) {
                    best = k;
                }
            }
        }
    }
    return best;
}

/* Backward kernels of PyTorch traces (dispatch_op.anchor_*): where their forward op ran. */
static DcuStatus read_anchors(TraceDb* db, Attr* a, DcuError* err) {
    a->anchor = I64Map_new();
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT dispatch_id, anchor_tid, anchor_ns FROM dispatch_op"
                                  " WHERE anchor_ns IS NOT NULL AND anchor_tid IS NOT NULL",
                                  &st, err);
    int64_t n = 0, cap = 0;
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            a->anchor_at = xrealloc(a->anchor_at, sizeof(int64_t) * 2 * (size_t)cap);
        }
        a->anchor_at[2 * n] = sqlite3_column_int64(st, 1);
        a->anchor_at[2 * n + 1] = sqlite3_column_int64(st, 2);
        I64Map_put(a->anchor, sqlite3_column_int64(st, 0), ++n);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "dispatch_op: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

/* One run's dispatches: the launch (its call's time and thread; else its own start and
 * thread; else none) and the innermost range open there. */
static DcuStatus attribute_run(TraceDb* db, const Attr* a, int64_t run, const int64_t* files,
                               int64_t nfiles, int with_calls, RowBatch* ins,
                               DcuError* err) {
    LaunchLink* v = NULL;
    int64_t n = 0;
    DcuStatus s = LaunchLink_run(db, run, files, nfiles, with_calls, &v, &n, err);
    for (int64_t i = 0; s == DCU_OK && i < n; i++) {
        const LaunchLink* l = &v[i];
        const char* how;
        int64_t tid, t;
        if (l->call && l->call_has_start) {
            how = "correlation";
            t = l->call_start;
            tid = l->call_has_tid ? l->call_tid : NO_TID;
        } else if (l->has_start) {
            how = "time";
            t = l->start;
            tid = l->has_tid ? l->tid : NO_TID;
        } else {
            how = "none";
            t = 0;
            tid = NO_TID;
        }
        int64_t an = I64Map_get(a->anchor, l->dispatch_id);
        if (an) { /* autograd's thread opens no range: the forward op's ranges stand */
            how = "forward op";
            tid = a->anchor_at[2 * (an - 1)];
            t = a->anchor_at[2 * (an - 1) + 1];
        }
        int k = how[0] == 'n' ? -1 : attribute(a, l->file_id, tid, t);
        RowBatch_int(ins, l->dispatch_id);
        k >= 0 ? RowBatch_int(ins, k + 1) : RowBatch_null(ins);
        how[0] == 'n' ? RowBatch_null(ins) : RowBatch_int(ins, t);
        RowBatch_text(ins, how);
        if (RowBatch_endRow(ins) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "dispatch_range: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
        }
    }
    if (s == DCU_OK && RowBatch_flush(ins) != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "dispatch_range: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    free(v);
    return s;
}

static DcuStatus attribute_all(LoaderCore* core, Spans* sp, DcuError* err) {
    TraceDb* db = core->db;
    Attr a = {0};
    a.sp = sp;
    a.gix = Intern_new();
    for (int i = 0; i < sp->n; i++) {
        if (i == 0 || sp->v[i].file != sp->v[i - 1].file || sp->v[i].tid != sp->v[i - 1].tid) {
            a.g = xrealloc(a.g, sizeof(Group) * (size_t)(a.ng + 1));
            a.g[a.ng].file = sp->v[i].file;
            a.g[a.ng].tid = sp->v[i].tid;
            a.g[a.ng].a = i;
            a.ng++;
            int64_t key[2] = {sp->v[i].file, sp->v[i].tid};
            Intern_put(a.gix, (const char*)key, sizeof(key), a.ng);
        }
        a.g[a.ng - 1].b = i + 1;
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT DISTINCT fd.id, fr.id FROM source_file fd JOIN source_file fr"
        " ON fd.run_id = fr.run_id"
        " WHERE fd.id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"
        "   AND fr.id IN (SELECT DISTINCT file_id FROM range_span)",
        &st, err);
    int rc;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        a.compat = xrealloc(a.compat, sizeof(int64_t) * 2 * (size_t)(a.ncompat + 1));
        a.compat[2 * a.ncompat] = sqlite3_column_int64(st, 0);
        a.compat[2 * a.ncompat + 1] = sqlite3_column_int64(st, 1);
        a.ncompat++;
    }
    sqlite3_finalize(st);
    if (s == DCU_OK) {
        s = read_anchors(db, &a, err);
    }
    int any_corr = TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM api_call"
                                         " WHERE corr_id IS NOT NULL)") != 0;
    if (s == DCU_OK && any_corr) {
        s = TraceDb_exec(db, "CREATE INDEX IF NOT EXISTS api_call_file ON api_call(file_id,"
                             " corr_id)", err);
    }
    /* a row per dispatch: stored 64 a statement (row_batch.h), in the order they come */
    RowBatch* ins = RowBatch_new(db,
                                 "INSERT OR REPLACE INTO dispatch_range(dispatch_id, range_id,"
                                 " launch_ns, how) VALUES",
                                 "(?, ?, ?, ?)", 4);
    /* run by run (dispatch_range is keyed by dispatch id: the order rows come in is moot) */
    int64_t *files = NULL, *runs = NULL, nfiles = 0;
    if (s == DCU_OK) {
        s = TraceQuery_kernelFiles(db, 0, &files, &runs, &nfiles, err);
    }
    for (int64_t i = 0; s == DCU_OK && i < nfiles;) {
        int64_t j = i;
        while (j < nfiles && runs[j] == runs[i]) {
            j++;
        }
        s = attribute_run(db, &a, runs[i], files + i, j - i, any_corr, ins, err);
        i = j;
    }
    free(files);
    free(runs);
    RowBatch_delete(ins);
    I64Map_delete(a.anchor);
    free(a.anchor_at);
    Intern_delete(a.gix);
    free(a.g);
    free(a.compat);
    return s;
}

DcuStatus LoadRanges_finish(LoaderCore* core, DcuError* err) {
    TraceDb* db = core->db;
    if (!TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM range)")) {
        return DCU_OK;
    }
    /* rebuilt from every loaded range (a second Loader_run on the same db adds files) */
    DcuStatus s = TraceDb_exec(db, "DELETE FROM dispatch_range; DELETE FROM range_span;", err);
    Spans sp = {0};
    if (s == DCU_OK) {
        s = read_spans(core, &sp, err);
    }
    if (s == DCU_OK) {
        s = nest_and_store(core, &sp, err);
    }
    if (s == DCU_OK && sp.n > 0) {
        s = attribute_all(core, &sp, err);
    }
    for (int i = 0; i < sp.n; i++) {
        free(sp.v[i].name);
    }
    free(sp.v);
    return s;
}
