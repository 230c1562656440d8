/* idle.c - see idle.h. */
#include "dcutop/idle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "dcutop/dispatch_scan.h"
#include "dcutop/i64_map.h"
#include "dcutop/intern.h"
#include "dcutop/key_sort.h"
#include "dcutop/launch_calls.h"
#include "dcutop/parallel.h"
#include "dcutop/ranks.h"
#include "dcutop/trace_query.h"
#include "dcutop/tuple_ids.h"
#include "dcutop/xalloc.h"
#include "idle_host.h"

enum {
    C_HOST = IDLE_HOST_BOUND,
    C_LAUNCH = IDLE_LAUNCH_OVERHEAD,
    C_SYNC = IDLE_SYNC,
    C_OTHER_STREAM = IDLE_OTHER_STREAM,
    C_RANK_WAIT = IDLE_RANK_WAIT,
    C_UNKNOWN = IDLE_UNKNOWN,
    C_COUNT = IDLE_CAUSE_COUNT
};
static const char* const cause_names[C_COUNT] = {"host-bound",   "launch-overhead", "sync",
                                                 "other-stream", "rank-wait",       "unknown"};

const char* Idle_causeName(IdleCause c) {
    return (unsigned)c < C_COUNT ? cause_names[c] : "?";
}

IdleCause Idle_causeOf(const char* name) {
    int c = 0;
    while (name && c < C_COUNT && strcmp(cause_names[c], name) != 0) {
        c++;
    }
    return name ? (IdleCause)c : IDLE_CAUSE_COUNT;
}

int Idle_causeIsIdle(IdleCause c) {
    return c != IDLE_OTHER_STREAM && c != IDLE_RANK_WAIT && (unsigned)c < C_COUNT;
}

/* One dispatch, memset or copy, 32 bytes (a 10M-dispatch trace: 320 MB, where 128-byte
 * records and qsort's copy of them were 2.5 GB). What many records share lives in small
 * tables: the lane (run, device, stream, file) and the kind (name, comm, copy); the launch
 * call in Ctx calls, an array beside this one only when the trace has launch calls. */
typedef struct {
    int64_t start, end;
    int64_t id;    /* dispatch or copy id: the sort's last key */
    uint32_t kind; /* index in Ctx kinds */
    uint32_t lane; /* id in Ctx lanes */
} Disp;

typedef struct {
    const char* name; /* borrowed from Ctx names; NULL: none */
    int comm;         /* a collective (category comm) */
    int copy;         /* a memset or copy run by the device: busy, not a kernel */
} Kind;

typedef struct { /* the launch call of a dispatch */
    int64_t cs, ce;
    uint32_t name;   /* 1 + its index in Ctx names; 0: the dispatch has no launch call */
    uint32_t thread; /* id in Ctx threads: (pid, tid) */
} Call;

typedef struct { /* the rank-wait of dispatch idx, ns (> 0): comm dispatches of a job */
    int64_t idx, wait;
} Wait;

enum { L_RUN, L_GPU, L_STREAM, L_FILE, L_WIDTH }; /* a lane's values */
#define NO_DISP UINT32_MAX                        /* no dispatch (Gap next, prev) */

typedef struct {
    Disp* d;
    Call* calls; /* parallel to d when the trace has launch calls, else NULL */
    int64_t nd;
    uint32_t* ord; /* the walk's order: the i-th dispatch is d[ord[i]]; NULL: d's order */
    Kind* kinds;
    int64_t nkinds, capkinds;
    TupleIds lanes;    /* (run, gpu, stream, file) */
    uint32_t* dev;   /* per lane: the rank of its (run, gpu), the sort's first key */
    uint32_t ndev;   /* ranks */
    TupleIds threads;  /* (pid, tid) of launch calls */
    int has_calls;   /* the trace has launch calls: calls is read */
    Wait* waits;     /* sorted by idx */
    int64_t nwaits;
    Host* h; /* host activity of the run being processed */
    int64_t nh;
    Host* sy; /* sync calls */
    int64_t nsy;
    char** names;
    int64_t nnames, capnames;
} Ctx;

static int64_t lane_v(const Ctx* c, const Disp* x, int f) {
    return TupleIds_value(&c->lanes, x->lane, f);
}

static const Kind* kind_of(const Ctx* c, const Disp* x) {
    return &c->kinds[x->kind];
}

/* The i-th dispatch in the walk's order (read_dispatches sorts them). */
static const Disp* at(const Ctx* c, int64_t i) {
    return &c->d[c->ord ? c->ord[i] : i];
}

/* The launch call of the i-th dispatch, NULL when it has none. */
static const Call* call_of(const Ctx* c, int64_t i) {
    const Call* k = c->calls ? &c->calls[c->ord ? c->ord[i] : i] : NULL;
    return k && k->name ? k : NULL;
}

static void call_thread(const Ctx* c, const Call* k, int64_t* pid, int64_t* tid) {
    *pid = TupleIds_value(&c->threads, k->thread, 0);
    *tid = TupleIds_value(&c->threads, k->thread, 1);
}

static int64_t col_i(sqlite3_stmt* st, int c, int64_t dflt) {
    return sqlite3_column_type(st, c) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, c);
}

static const char used_files[] = "(SELECT file_id FROM used_file WHERE layer = 'kernel')";

/* The launch call: the call with the event's correlation id in its own file, else among its
 * run's files (rocprofv3 CSV: API calls in a file of their own), a HIP call first, then the
 * lowest id (as launch_link.h). Looked up per event through the index api_call_file
 * (file_id, corr_id), the run's files only when its own has none: a window over every API
 * call of the trace, sorted, was half of reading 100k dispatches. X: the event's alias; f:
 * its source_file. */
#define LAUNCH_JOIN(X)                                                                       \
    " LEFT JOIN api_call a ON a.id = coalesce((SELECT min(l.id) FROM api_call l"             \
    "  WHERE l.file_id = " X ".file_id AND l.corr_id = " X ".corr_id),"                     \
    " (SELECT l.id FROM source_file g JOIN api_call l ON l.file_id = g.id"                   \
    "  WHERE g.run_id = f.run_id AND l.corr_id = " X ".corr_id"                             \
    "  ORDER BY lower(substr(l.name, 1, 3)) <> 'hip', l.id LIMIT 1))"

static const char copy_rows[] =
    " UNION ALL SELECT f.run_id, x.gpu, coalesce(x.stream, x.queue, -1), x.start_ns, x.end_ns,"
    "  x.name, a.name, a.start_ns, a.end_ns, a.pid, a.tid, x.file_id, 0, 1, x.id"
    " FROM copy x JOIN source_file f ON f.id = x.file_id" LAUNCH_JOIN("x")
    " WHERE x.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"
    "  AND x.gpu IS NOT NULL AND x.start_ns IS NOT NULL AND x.end_ns > x.start_ns"
    "  AND f.run_id IS NOT NULL";

static const char* intern_name(Ctx* c, const char* s);

/* What reading the rows keeps besides the Ctx: the kinds by kernel id (each name read
 * once, interned into c->names: the dispatch query gives the kernel id, not the name) and
 * by name (copy rows), the launch calls' names. */
typedef struct {
    TraceDb* db;
    uint32_t* by_id; /* kernel id -> 1 + its kind, 0: not read yet */
    int64_t nid;
    Intern* by_name; /* a flag byte and a name -> 1 + its kind */
    Intern* calls;   /* a launch call's name -> 1 + its index in c->names */
    size_t cap;      /* of c->d (and c->calls) */
} Reader;

static uint32_t new_kind(Ctx* c, const char* name, int comm, int copy) {
    if (c->nkinds == c->capkinds) {
        c->capkinds = c->capkinds ? c->capkinds * 2 : 256;
        c->kinds = xrealloc(c->kinds, (size_t)c->capkinds * sizeof(*c->kinds));
    }
    c->kinds[c->nkinds] = (Kind){name, comm, copy};
    return (uint32_t)c->nkinds++;
}

/* The kind of rows named by text (NULL: no name), made once per name and flags. */
static uint32_t kind_by_name(Ctx* c, Reader* r, const char* name, int comm, int copy) {
    size_t n = name ? strlen(name) : 0;
    char* key = xmalloc(n + 1);
    key[0] = (char)(1 | (comm ? 2 : 0) | (copy ? 4 : 0) | (name ? 8 : 0));
    if (n) {
        memcpy(key + 1, name, n);
    }
    int64_t id = Intern_get(r->by_name, key, n + 1);
    if (!id) {
        id = new_kind(c, name ? intern_name(c, name) : NULL, comm, copy) + 1;
        Intern_put(r->by_name, key, n + 1, id);
    }
    free(key);
    return (uint32_t)(id - 1);
}

/* The kind of kernel id: its name read once; NULL when there is no such kernel. */
static uint32_t kernel_kind(Ctx* c, Reader* r, int64_t id, int comm) {
    if (id >= 0 && id < r->nid && r->by_id[id]) {
        return r->by_id[id] - 1;
    }
    if (id < 0 || id > 100000000) {
        return kind_by_name(c, r, NULL, comm, 0);
    }
    if (id >= r->nid) {
        int64_t n = id + 1024;
        r->by_id = xrealloc(r->by_id, (size_t)n * sizeof(*r->by_id));
        memset(r->by_id + r->nid, 0, (size_t)(n - r->nid) * sizeof(*r->by_id));
        r->nid = n;
    }
    sqlite3_stmt* q = NULL;
    DcuError e = {0};
    const char* name = NULL;
    if (TraceDb_prepareCached(r->db, "SELECT name FROM kernel WHERE id = ?", &q, &e) == DCU_OK) {
        sqlite3_bind_int64(q, 1, id);
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) {
            name = intern_name(c, (const char*)sqlite3_column_text(q, 0));
        }
        TraceDb_release(r->db, q);
    }
    r->by_id[id] = new_kind(c, name, comm, 0) + 1;
    return r->by_id[id] - 1;
}

/* The kind of a dispatch row (column 5: its kernel id) or of a copy row (its name). */
static uint32_t row_kind(Ctx* c, Reader* r, sqlite3_stmt* st) {
    int comm = (int)col_i(st, 12, 0), copy = (int)col_i(st, 13, 0);
    if (sqlite3_column_type(st, 5) == SQLITE_INTEGER && !copy) {
        return kernel_kind(c, r, sqlite3_column_int64(st, 5), comm);
    }
    return kind_by_name(c, r, (const char*)sqlite3_column_text(st, 5), comm, copy);
}

/* 1 when some API call has a correlation id: else no dispatch can have a launch call, and
 * the dispatches need not be read (stats-only and kernel-only traces). */
static int any_launch_call(TraceDb* db) {
    return TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM api_call"
                                 " WHERE corr_id IS NOT NULL)") == 1;
}

/* Column 6 (the launch call's name) interned once per name into c->names: 1 + its index. */
/* The 1-based index in c->names of text s (NULL as ""), stored once per distinct text of
 * one read (ix). */
static int64_t text_id(Ctx* c, Intern* ix, const char* s) {
    size_t n = s ? strlen(s) : 0;
    int64_t id = Intern_get(ix, s ? s : "", n);
    if (!id) {
        intern_name(c, s);
        id = c->nnames;
        Intern_put(ix, s ? s : "", n, id);
    }
    return id;
}

static uint32_t call_name(Ctx* c, Intern* ix, sqlite3_stmt* st) {
    return (uint32_t)text_id(c, ix, (const char*)sqlite3_column_text(st, 6));
}

/* Room for need records (and their calls, when the trace has launch calls). */
static void reserve(Ctx* c, size_t* cap, size_t need) {
    if (need <= *cap) {
        return;
    }
    *cap = need;
    c->d = xrealloc(c->d, *cap * sizeof(*c->d));
    if (c->has_calls) {
        c->calls = xrealloc(c->calls, *cap * sizeof(*c->calls));
    }
}

/* One row of the dispatch query (read_dispatches' columns) or of the copy query. */
static void add_row(Ctx* c, Reader* r, sqlite3_stmt* st) {
    if ((size_t)c->nd == r->cap) {
        reserve(c, &r->cap, r->cap ? r->cap * 2 : 1024);
    }
    int64_t i = c->nd++;
    int64_t lane[L_WIDTH] = {col_i(st, 0, 0), col_i(st, 1, -1), col_i(st, 2, -1),
                             col_i(st, 11, 0)};
    Disp* x = &c->d[i];
    x->start = col_i(st, 3, 0);
    x->end = col_i(st, 4, 0);
    if (x->end < x->start) {
        x->end = x->start;
    }
    x->id = col_i(st, 14, 0);
    x->kind = row_kind(c, r, st);
    x->lane = TupleIds_id(&c->lanes, lane);
    if (c->has_calls) {
        Call* k = &c->calls[i];
        memset(k, 0, sizeof(*k));
        if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
            int64_t th[2] = {col_i(st, 9, -1), col_i(st, 10, -1)};
            k->name = call_name(c, r->calls, st);
            k->cs = col_i(st, 7, 0);
            k->ce = col_i(st, 8, k->cs);
            k->thread = TupleIds_id(&c->threads, th);
        }
    }
}

static DcuStatus read_rows(Ctx* c, Reader* r, const char* sql, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(r->db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        add_row(c, r, st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? DCU_OK
                             : Error_set(err, DCU_ERR_SQL, "idle: %s",
                                         sqlite3_errmsg(TraceDb_handle(r->db)));
}

/* The direct read (dispatch_scan.h) of what the query reads without launch calls. */
typedef struct {
    Ctx* c;
    Reader* r;
    int64_t file, run;
    const signed char* comm; /* per kernel id: 1 comm, 0 not, -1 no such kernel */
    int64_t ncomm;
    const LaunchCalls* lc; /* the launch calls when the trace has them, else NULL */
    uint32_t* lc_name;     /* per lc name: 1 + its index in c->names; 0: not interned yet */
} DirectRead;

/* The launch call of a dispatch read directly, as add_row takes it from LAUNCH_JOIN. */
static void direct_call(DirectRead* r, Call* k, int64_t corr) {
    Ctx* c = r->c;
    memset(k, 0, sizeof(*k));
    const LaunchCall* a =
        corr == DISPATCH_STORE_NULL ? NULL : LaunchCalls_find(r->lc, r->file, r->run, 1, corr);
    if (!a || !a->has_start) {
        return;
    }
    if (!r->lc_name[a->name]) { /* interned as call_name does, by text */
        r->lc_name[a->name] = (uint32_t)text_id(c, r->r->calls, LaunchCalls_name(r->lc, a->name));
    }
    int64_t th[2] = {a->has_pid ? a->pid : -1, a->has_tid ? a->tid : -1};
    k->name = r->lc_name[a->name];
    k->cs = a->start;
    k->ce = a->has_end ? a->end : a->start;
    k->thread = TupleIds_id(&c->threads, th);
}

/* Row i of chunk d as the query reads it: 0 when the query drops it (another file's row,
 * untimed, or no kernel row: the JOIN drops it), else its kernel id in *k and its lane. */
static int direct_row(const DirectRead* r, const int64_t* d, int64_t i, int64_t* k,
                      int64_t lane[L_WIDTH]) {
    *k = DS_AT(d, DS_KERNEL_ID, i);
    if (DS_AT(d, DS_FILE_ID, i) != r->file || DS_AT(d, DS_START_NS, i) == DISPATCH_STORE_NULL ||
        DS_AT(d, DS_END_NS, i) == DISPATCH_STORE_NULL || *k < 0 || *k >= r->ncomm ||
        r->comm[*k] < 0) {
        return 0;
    }
    int64_t g = DS_AT(d, DS_GPU, i), sm = DS_AT(d, DS_STREAM, i), q = DS_AT(d, DS_QUEUE, i);
    lane[L_RUN] = r->run;
    lane[L_GPU] = g == DISPATCH_STORE_NULL ? -1 : g;
    lane[L_STREAM] = sm != DISPATCH_STORE_NULL ? sm : q != DISPATCH_STORE_NULL ? q : -1;
    lane[L_FILE] = r->file;
    return 1;
}

static int direct_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    DirectRead* r = ctx;
    Ctx* c = r->c;
    for (int64_t i = from; i < to; i++) {
        int64_t k, lane[L_WIDTH];
        if (!direct_row(r, d, i, &k, lane)) {
            continue;
        }
        int64_t t0 = DS_AT(d, DS_START_NS, i), t1 = DS_AT(d, DS_END_NS, i);
        if ((size_t)c->nd == r->r->cap) {
            reserve(c, &r->r->cap, r->r->cap ? r->r->cap * 2 : 1024);
        }
        if (c->has_calls) {
            direct_call(r, &c->calls[c->nd], DS_AT(d, DS_CORR_ID, i));
        }
        c->d[c->nd++] = (Disp){
            .start = t0,
            .end = t1 < t0 ? t0 : t1,
            .id = row0 + i + 1,
            .kind = kernel_kind(c, r->r, k, r->comm[k]),
            .lane = TupleIds_id(&c->lanes, lane),
        };
    }
    return 1;
}

/* One span read in parts (parallel.h): part p writes its rows from the place its first row
 * would have with none skipped, with lanes of its own and the kernel id in place of the
 * kind; then, in part order, the rows close up and take the kinds and lanes one pass gives
 * (both numbered in order of first sight, and kernel_kind may read a name through SQL,
 * which only this thread does). */
typedef struct {
    DispatchStore* store;
    const DispatchSpan* sp;
    const DirectRead* r;
    Disp* out;       /* where the span's first row goes */
    TupleIds* lanes; /* per part */
    int64_t* n;      /* per part: its rows */
    int64_t* from;   /* per part: where it wrote them, from out */
    DcuError* err;   /* per part */
    DcuStatus* s;
} SpanParts;

typedef struct {
    const DirectRead* r;
    TupleIds* lanes;
    Disp* out;
    int64_t n;
} PartRows;

static int part_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    PartRows* x = ctx;
    const DirectRead* r = x->r;
    for (int64_t i = from; i < to; i++) {
        int64_t k, lane[L_WIDTH];
        if (!direct_row(r, d, i, &k, lane)) {
            continue;
        }
        int64_t t0 = DS_AT(d, DS_START_NS, i), t1 = DS_AT(d, DS_END_NS, i);
        x->out[x->n++] = (Disp){
            .start = t0,
            .end = t1 < t0 ? t0 : t1,
            .id = row0 + i + 1,
            .kind = (uint32_t)k, /* < ncomm, itself < 2^32 (read_span) */
            .lane = TupleIds_id(x->lanes, lane),
        };
    }
    return 1;
}

static void span_part(void* ctx, int part, int64_t c0, int64_t c1) {
    SpanParts* x = ctx;
    x->from[part] = DispatchScan_rowsBefore(x->sp, c0);
    TupleIds_init(&x->lanes[part], L_WIDTH);
    PartRows pr = {x->r, &x->lanes[part], x->out + x->from[part], 0};
    x->s[part] = DispatchScan_spanChunks(x->store, x->sp, c0, c1, part_block, &pr, &x->err[part]);
    x->n[part] = pr.n;
}

static DcuStatus read_span(DispatchStore* store, const DispatchSpan* sp, DirectRead* r,
                           DcuError* err) {
    /* one pass: kernel ids that would not fit the kind field, or launch calls to look up
     * (direct_call interns their names and threads, which only this thread may do) */
    if (r->ncomm > (int64_t)UINT32_MAX || r->c->has_calls) {
        return DispatchScan_span(store, sp, direct_block, r, err);
    }
    Ctx* c = r->c;
    int64_t nchunks = DispatchScan_chunks(store, sp);
    int parts = Parallel_parts(nchunks, 16);
    SpanParts x = {store, sp, r, c->d + c->nd, xcalloc((size_t)parts, sizeof(TupleIds)),
                   xcalloc((size_t)parts, sizeof(int64_t)), xcalloc((size_t)parts, sizeof(int64_t)),
                   xcalloc((size_t)parts, sizeof(DcuError)), xcalloc((size_t)parts, sizeof(DcuStatus))};
    Parallel_for(nchunks, parts, span_part, &x);
    DcuStatus s = DCU_OK;
    for (int p = 0; p < parts; p++) {
        if (s == DCU_OK && x.s[p] != DCU_OK) {
            s = x.s[p];
            *err = x.err[p];
        }
        Disp* d = c->d + c->nd;
        if (c->d + c->nd != x.out + x.from[p]) { /* rows skipped before: close up, in order */
            memmove(d, x.out + x.from[p], (size_t)x.n[p] * sizeof(Disp));
        }
        const TupleIds* L = &x.lanes[p];
        uint32_t* lane = xcalloc((size_t)L->n + 1, sizeof(*lane)); /* 1 + its id in c, 0: none
                                                                     * yet: a hash per lane */
        for (int64_t i = 0; i < x.n[p]; i++) {
            uint32_t k = d[i].kind, l = d[i].lane;
            d[i].kind = kernel_kind(c, r->r, k, r->comm[k]);
            if (!lane[l]) { /* the lane's first row in the part: where one pass meets it */
                lane[l] = TupleIds_id(&c->lanes, L->v + (int64_t)l * L_WIDTH) + 1;
            }
            d[i].lane = lane[l] - 1;
        }
        free(lane);
        c->nd += x.n[p];
        TupleIds_done(&x.lanes[p]);
    }
    free(x.lanes);
    free(x.n);
    free(x.from);
    free(x.err);
    free(x.s);
    return s;
}

/* Per kernel id: 1 when its category is comm, 0 when not, -1 when there is no such row. */
static DcuStatus kernel_comm(TraceDb* db, signed char** out, int64_t* n, DcuError* err) {
    int64_t max = TraceDb_scalarInt(db, "SELECT coalesce(max(id), -1) FROM kernel");
    *n = max + 1 > 0 ? max + 1 : 0;
    *out = xmalloc((size_t)(*n > 0 ? *n : 1));
    memset(*out, -1, (size_t)(*n > 0 ? *n : 1));
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT id, coalesce(category = 'comm', 0) FROM kernel"
                                      " WHERE id >= 0",
                                  &st, err);
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < *n) {
            (*out)[id] = (signed char)(sqlite3_column_int64(st, 1) != 0);
        }
    }
    sqlite3_finalize(st);
    return s;
}

static DcuStatus read_direct(DispatchStore* store, Ctx* c, Reader* rd, const LaunchCalls* lc,
                             DcuError* err) {
    TraceDb* db = rd->db;
    DispatchSpan* sp = NULL;
    int64_t nsp = 0, ncomm = 0;
    signed char* comm = NULL;
    DcuStatus s = DispatchScan_usedSpans(db, &sp, &nsp, err);
    if (s == DCU_OK) {
        s = kernel_comm(db, &comm, &ncomm, err);
    }
    sqlite3_stmt* run = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT run_id FROM source_file WHERE id = ?1", &run, err);
    }
    size_t rows = 0; /* sized once: a doubling realloc copies (and faults in) every row again */
    for (int64_t i = 0; i < nsp; i++) {
        rows += (size_t)(sp[i].hi - sp[i].lo + 1);
    }
    reserve(c, &rd->cap, rows);
    uint32_t* lc_name = lc ? xcalloc((size_t)LaunchCalls_names(lc) + 1, sizeof(uint32_t)) : NULL;
    for (int64_t i = 0; s == DCU_OK && i < nsp; i++) {
        sqlite3_bind_int64(run, 1, sp[i].file_id);
        int has = sqlite3_step(run) == SQLITE_ROW && sqlite3_column_type(run, 0) != SQLITE_NULL;
        DirectRead r = {c,     rd, sp[i].file_id, has ? sqlite3_column_int64(run, 0) : 0,
                        comm,  ncomm, lc, lc_name};
        sqlite3_reset(run);
        if (has) { /* f.run_id IS NOT NULL */
            s = read_span(store, &sp[i], &r, err);
        }
    }
    sqlite3_finalize(run);
    free(lc_name);
    free(comm);
    free(sp);
    return s;
}

/* ---- the order ----------------------------------------------------------------------- */

typedef struct {
    int64_t run, gpu;
    uint32_t lane;
} LaneKey;

static int cmp_lane(const void* a, const void* b) {
    const LaneKey *x = a, *y = b;
    if (x->run != y->run) return x->run < y->run ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* c->dev: per lane, the rank of its (run, gpu) among the lanes'. */
static void lane_ranks(Ctx* c) {
    int64_t n = c->lanes.n;
    LaneKey* k = xmalloc((size_t)(n ? n : 1) * sizeof(*k));
    for (int64_t l = 0; l < n; l++) {
        k[l] = (LaneKey){TupleIds_value(&c->lanes, (uint32_t)l, L_RUN),
                         TupleIds_value(&c->lanes, (uint32_t)l, L_GPU),
                         (uint32_t)l};
    }
    qsort(k, (size_t)n, sizeof(*k), cmp_lane);
    c->dev = xmalloc((size_t)(n ? n : 1) * sizeof(*c->dev));
    uint32_t rank = 0;
    for (int64_t i = 0; i < n; i++) {
        rank += i > 0 && cmp_lane(&k[i - 1], &k[i]) != 0;
        c->dev[k[i].lane] = rank;
    }
    c->ndev = n ? rank + 1 : 0;
    free(k);
}

/* The order device_gaps and the walk need: run, device, start, end, kernels before copies,
 * id (as the ORDER BY it replaces). tie: the keys after start. */
static int cmp_tie(const Ctx* c, const Disp* x, const Disp* y) {
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    int a = kind_of(c, x)->copy, b = kind_of(c, y)->copy;
    if (a != b) return a < b ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_disp(const Ctx* c, const Disp* x, const Disp* y) {
    uint32_t a = c->dev[x->lane], b = c->dev[y->lane];
    if (a != b) return a < b ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return cmp_tie(c, x, y);
}

static int disp_tie(void* ctx, uint32_t a, uint32_t b) {
    const Ctx* c = ctx;
    return cmp_tie(c, &c->d[a], &c->d[b]);
}

/* Keys k[0..n) of one device in order already (the store's order)? */
static int keys_sorted(const Ctx* c, const SortKey* k, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        if (k[i - 1].key > k[i].key ||
            (k[i - 1].key == k[i].key && cmp_tie(c, &c->d[k[i - 1].idx], &c->d[k[i].idx]) > 0)) {
            return 0;
        }
    }
    return 1;
}

typedef struct { /* the order check of sort_disp, per part */
    const Ctx* c;
    char* out; /* per part: 1 when a record before its end is out of order */
} OrderCheck;

static void order_part(void* ctx, int part, int64_t lo, int64_t hi) {
    OrderCheck* x = ctx;
    for (int64_t i = lo > 0 ? lo : 1; i < hi && !x->out[part]; i++) {
        x->out[part] = cmp_disp(x->c, &x->c->d[i - 1], &x->c->d[i]) > 0;
    }
}

static int disp_in_order(const Ctx* c) {
    int parts = Parallel_parts(c->nd, 1 << 16);
    OrderCheck x = {c, xcalloc((size_t)parts, 1)};
    Parallel_for(c->nd, parts, order_part, &x);
    int out = 0;
    for (int p = 0; p < parts; p++) {
        out |= x.out[p];
    }
    free(x.out);
    return !out;
}

/* The walk's order (c->ord), unless the records are in it already (the store's order with
 * one device): 16-byte keys put by device (a counting sort: devices in one file come
 * interleaved), each device's sorted unless in order, then kept as 4-byte indexes. The
 * records stay where they are: glibc's merge sort of them doubled the peak, and moving
 * them in place by cycles costs a cache miss per record. */
static void sort_disp(Ctx* c) {
    int64_t i, n = c->nd;
    if (disp_in_order(c)) {
        return;
    }
    int64_t* from = xcalloc((size_t)c->ndev + 1, sizeof(*from)); /* each device's first key */
    for (i = 0; i < n; i++) {
        from[c->dev[c->d[i].lane] + 1]++;
    }
    for (uint32_t g = 0; g < c->ndev; g++) {
        from[g + 1] += from[g];
    }
    SortKey* k = xmalloc((size_t)n * sizeof(*k));
    for (i = 0; i < n; i++) { /* from[g]: where device g's next key goes, then its end */
        uint32_t g = c->dev[c->d[i].lane];
        k[from[g]++] = (SortKey){c->d[i].start, g, (uint32_t)i};
    }
    for (uint32_t g = 0; g < c->ndev; g++) {
        int64_t lo = g ? from[g - 1] : 0;
        if (!keys_sorted(c, k + lo, from[g] - lo)) {
            SortKey_sort(k + lo, (size_t)(from[g] - lo), disp_tie, c);
        }
    }
    free(from);
    uint32_t* ord = (uint32_t*)(void*)k; /* 4 bytes at 4i: k[i] is read before, k[i+1..] after */
    for (i = 0; i < n; i++) {
        uint32_t idx = k[i].idx;
        ord[i] = idx;
    }
    c->ord = xrealloc(k, (size_t)n * sizeof(*ord));
}

static DcuStatus read_dispatches(TraceDb* db, Ctx* c, int copies, DcuError* err) {
    /* Without launch calls (kernel-only traces) the two lookups per row are skipped, and the
     * rows come from the store's columns when it is not cut by a region of interest; the
     * rows are sorted here, not by SQLite's sorter (half of this read on a million). */
    c->has_calls = any_launch_call(db);
    DispatchStore* store = DispatchScan_store(db);
    char* sql = xasprintf(
        "SELECT f.run_id, coalesce(d.gpu, -1), coalesce(d.stream, d.queue, -1), d.start_ns,"
        "  d.end_ns, d.kernel_id, %s, d.file_id,"
        "  coalesce(k.category = 'comm', 0), 0, d.id"
        " FROM dispatch d JOIN source_file f ON f.id = d.file_id"
        " JOIN kernel k ON k.id = d.kernel_id%s"
        " WHERE d.file_id IN %s AND d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"
        "  AND f.run_id IS NOT NULL"
        "%s",
        c->has_calls ? "a.name, a.start_ns, a.end_ns, a.pid, a.tid"
                     : "NULL, NULL, NULL, NULL, NULL",
        c->has_calls ? LAUNCH_JOIN("d") : "", used_files, copies ? copy_rows : "");
    Reader r = {db, NULL, 0, Intern_new(), Intern_new(), 0};
    DcuStatus s;
    const LaunchCalls* lc = NULL;
    s = store && c->has_calls ? LaunchCalls_get(db, &lc, err) : DCU_OK;
    if (s == DCU_OK && store) {
        static const char union_all[] = " UNION ALL";
        s = read_direct(store, c, &r, lc, err);
        if (s == DCU_OK && copies) {
            s = read_rows(c, &r, copy_rows + sizeof(union_all) - 1, err);
        }
    } else if (s == DCU_OK) {
        s = read_rows(c, &r, sql, err);
    }
    free(sql);
    free(r.by_id);
    Intern_delete(r.by_name);
    Intern_delete(r.calls);
    if (s == DCU_OK && c->nd >= (int64_t)NO_DISP) { /* indexes are 32-bit */
        s = Error_set(err, DCU_ERR_NOMEM, "idle: more than %u dispatches", NO_DISP - 1);
    }
    if (s == DCU_OK) {
        lane_ranks(c);
        sort_disp(c);
    }
    return s;
}

static const char* intern_name(Ctx* c, const char* s) {
    if (c->nnames == c->capnames) {
        c->capnames = c->capnames ? c->capnames * 2 : 1024;
        c->names = xrealloc(c->names, (size_t)c->capnames * sizeof(char*));
    }
    return c->names[c->nnames++] = xstrdup(s ? s : "?");
}

/* A host row's name, kept once per distinct name of one read (ix): a copy per row was a
 * malloc for each of a million API calls. */
static const char* host_name(Ctx* c, Intern* ix, const char* s) {
    if (!s) {
        return intern_name(c, NULL);
    }
    int64_t id = text_id(c, ix, s); /* it may grow c->names: read the array after it */
    return c->names[id - 1];
}

/* The host rows of one run (sql with ? = run id), sorted per thread, with maxend. */
static DcuStatus read_hosts(TraceDb* db, Ctx* c, const char* sql, int64_t run, Host** out,
                            int64_t* n, DcuError* err) {
    sqlite3_stmt* st = NULL;
    /* kept prepared: a walk asks it once per run (20,000 runs: 40,000 prepares) */
    DcuStatus s = TraceDb_prepareCached(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    HostBlocks hb = {NULL, 0};
    int rc;
    Intern* ix = Intern_new();
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        Host* x = HostBlocks_add(&hb);
        x->pid = col_i(st, 0, -1);
        x->tid = col_i(st, 1, -1);
        x->start = col_i(st, 2, 0);
        x->end = col_i(st, 3, x->start);
        if (x->end < x->start) {
            x->end = x->start;
        }
        x->name = host_name(c, ix, (const char*)sqlite3_column_text(st, 4));
    }
    Intern_delete(ix);
    if (rc != SQLITE_DONE || hb.n > UINT32_MAX) {
        s = rc != SQLITE_DONE
                ? Error_set(err, DCU_ERR_SQL, "idle: %s", sqlite3_errmsg(TraceDb_handle(db)))
                : Error_set(err, DCU_ERR_SQL, "idle: more host rows than can be sorted");
    }
    TraceDb_release(db, st);
    if (s != DCU_OK) {
        HostBlocks_free(&hb);
        return s;
    }
    int64_t k = hb.n;
    Host* h = HostBlocks_sorted(&hb);
    HostBlocks_free(&hb);
    *out = h;
    *n = k;
    return DCU_OK;
}

/* A sync call on (pid, tid) overlapping [g0, g1) that ended by `by`: the latest such call,
 * NULL when none. */
static const Host* sync_in(const Ctx* c, int64_t pid, int64_t tid, int64_t g0, int64_t g1,
                           int64_t by) {
    for (int64_t i = IdleHost_upper(c->sy, c->nsy, pid, tid, g1) - 1; i >= 0; i--) {
        const Host* x = &c->sy[i];
        if (x->pid != pid || x->tid != tid || x->maxend <= g0) {
            break;
        }
        if (x->end > g0 && x->end <= by) {
            return x;
        }
    }
    return NULL;
}

/* ---- rank-wait ------------------------------------------------------------------------- */

typedef struct { /* a comm dispatch in the order the collectives are matched in */
    uint32_t name; /* the rank of its kernel name among the kinds' names (strcmp) */
    uint32_t idx;  /* its index in Ctx d */
    int64_t run, start;
} CommKey;

static int cmp_comm(const void* a, const void* b) {
    const CommKey *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->run != y->run) return x->run < y->run ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx); /* as the stable sort it replaces */
}

static int cmp_kind_name(const void* a, const void* b) {
    const Kind *x = *(const Kind* const*)a, *y = *(const Kind* const*)b;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* Per kind: the rank of its name among the kinds' (equal names: one rank). Owned. */
static uint32_t* name_ranks(const Ctx* c) {
    const Kind** p = xmalloc((size_t)(c->nkinds ? c->nkinds : 1) * sizeof(*p));
    for (int64_t i = 0; i < c->nkinds; i++) {
        p[i] = &c->kinds[i];
    }
    qsort(p, (size_t)c->nkinds, sizeof(*p), cmp_kind_name);
    uint32_t* rank = xmalloc((size_t)(c->nkinds ? c->nkinds : 1) * sizeof(*rank));
    uint32_t r = 0;
    for (int64_t i = 0; i < c->nkinds; i++) {
        r += i > 0 && cmp_kind_name(&p[i - 1], &p[i]) != 0;
        rank[p[i] - c->kinds] = r;
    }
    free(p);
    return rank;
}

/* The collectives of one kernel name, runs contiguous in p[i..j): the k-th dispatch of each
 * run is one collective; its shortest duration is the transfer, the rest each rank's wait
 * (into wait[], parallel to p). */
static void wait_kernel(const Ctx* c, const CommKey* p, int64_t* wait, int64_t i, int64_t j) {
    int64_t* first = xmalloc((size_t)(j - i + 1) * sizeof(int64_t));
    int64_t nr = 0, maxlen = 0;
    for (int64_t q = i; q < j; q++) {
        if (q == i || p[q].run != p[q - 1].run) {
            first[nr++] = q;
        }
    }
    first[nr] = j;
    for (int64_t r = 0; r < nr; r++) {
        maxlen = first[r + 1] - first[r] > maxlen ? first[r + 1] - first[r] : maxlen;
    }
    for (int64_t k = 0; k < maxlen && nr > 1; k++) {
        int64_t mn = INT64_MAX, have = 0;
        for (int64_t r = 0; r < nr; r++) {
            if (first[r] + k < first[r + 1]) {
                const Disp* d = at(c, p[first[r] + k].idx);
                mn = d->end - d->start < mn ? d->end - d->start : mn;
                have++;
            }
        }
        for (int64_t r = 0; r < nr && have > 1; r++) {
            if (first[r] + k < first[r + 1]) {
                const Disp* d = at(c, p[first[r] + k].idx);
                wait[first[r] + k] = d->end - d->start - mn;
            }
        }
    }
    free(first);
}

static int cmp_wait(const void* a, const void* b) {
    const Wait *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The waits of the matched comm dispatches p[0..n) into c->waits, those above 0, by index. */
static void keep_waits(Ctx* c, const CommKey* p, const int64_t* wait, int64_t n) {
    c->nwaits = 0;
    for (int64_t i = 0; i < n; i++) {
        c->nwaits += wait[i] > 0;
    }
    c->waits = xmalloc((size_t)(c->nwaits ? c->nwaits : 1) * sizeof(*c->waits));
    c->nwaits = 0;
    for (int64_t i = 0; i < n; i++) {
        if (wait[i] > 0) {
            c->waits[c->nwaits++] = (Wait){p[i].idx, wait[i]};
        }
    }
    qsort(c->waits, (size_t)c->nwaits, sizeof(*c->waits), cmp_wait);
}

/* The rank-waits of the comm dispatches (c->waits) when the runs are ranks of one job. */
static void rank_wait(TraceDb* db, Ctx* c) {
    int64_t n = 0;
    for (int64_t i = 0; i < c->nd && n < 2; i++) { /* two: the count only when a job */
        n += kind_of(c, at(c, i))->comm;
    }
    if (n < 2 || !Ranks_isJobDb(db)) {
        return;
    }
    n = 0;
    for (int64_t i = 0; i < c->nd; i++) {
        n += kind_of(c, at(c, i))->comm;
    }
    uint32_t* rank = name_ranks(c);
    CommKey* p = xmalloc((size_t)n * sizeof(*p));
    n = 0;
    for (int64_t i = 0; i < c->nd; i++) {
        if (kind_of(c, at(c, i))->comm) {
            p[n++] = (CommKey){rank[at(c, i)->kind], (uint32_t)i, lane_v(c, at(c, i), L_RUN),
                               at(c, i)->start};
        }
    }
    free(rank);
    qsort(p, (size_t)n, sizeof(*p), cmp_comm);
    int64_t* wait = xcalloc((size_t)n, sizeof(*wait));
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        while (j < n && p[j].name == p[i].name) {
            j++;
        }
        wait_kernel(c, p, wait, i, j);
        i = j;
    }
    keep_waits(c, p, wait, n);
    free(wait);
    free(p);
}

/* The rank-wait of the dispatches d0..d1 into sum. */
static void sum_waits(const Ctx* c, int64_t d0, int64_t d1, int64_t* gaps, int64_t* ns) {
    int64_t lo = 0, hi = c->nwaits;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (c->waits[m].idx < d0) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    for (int64_t q = lo; q < c->nwaits && c->waits[q].idx < d1; q++) {
        (*gaps)++;
        *ns += c->waits[q].wait;
    }
}

/* ---- gaps and causes ------------------------------------------------------------------- */

typedef struct {
    int64_t gaps[C_COUNT], ns[C_COUNT], idle;
} DevSum;

typedef struct { /* an idle interval of a device, with its cause */
    int64_t g0, g1;
    uint32_t next;  /* index of the dispatch after the gap, NO_DISP at the tail */
    uint32_t prev;  /* index of the dispatch that ended last before it, NO_DISP at the head */
    uint32_t sync;  /* sync: 1 + the synchronising call's index in Ctx sy, else 0 */
    int cause;
} Gap;

typedef struct { /* one stream of the device in the other-stream pass */
    int64_t stream;
    int64_t last; /* the latest end so far on the stream, INT64_MIN: none yet */
    int64_t idle; /* the device's idle time before last */
    int carried;  /* last was carried into a part of the walk (walk_parts): idle unknown */
} StreamAt;

typedef struct { /* a kernel of a part compared to its stream's carried end: settled later */
    int64_t stream, start, idle;
} StreamHead;

/* other-stream, in device_gaps' sweep: per stream, the gaps between its kernels less the
 * device's idle time inside them (the idle time between two instants: the difference of
 * the idle time before each, which the sweep knows: a kernel's end has the idle time before
 * its start, the device being busy in between). Keeps no gap: the gaps of 10M dispatches
 * were 320 MB, where the streams are a few. */
typedef struct {
    I64Map* slot; /* stream -> 1 + its index in at */
    StreamAt* at;
    int64_t n, cap;
    int64_t last_stream, last_slot; /* the stream looked up last (dispatches come in runs) */
    int64_t gaps, ns;               /* the waits, counted when the device has two streams */
    const StreamAt* in;             /* a part's: each stream's latest end before it; or NULL */
    int64_t nin;
    StreamHead* heads; /* a part's kernels compared to a carried end, in order */
    int64_t nheads, capheads;
} Streams;

static StreamAt* stream_at(Streams* S, int64_t stream) {
    if (S->n && stream == S->last_stream) {
        return &S->at[S->last_slot];
    }
    int64_t k = I64Map_get(S->slot, stream);
    if (!k) {
        if (S->n == S->cap) {
            S->cap = S->cap ? S->cap * 2 : 16;
            S->at = xrealloc(S->at, (size_t)S->cap * sizeof(*S->at));
        }
        S->at[S->n] = (StreamAt){stream, INT64_MIN, 0, 0};
        for (int64_t q = 0; q < S->nin; q++) {
            if (S->in[q].stream == stream) {
                S->at[S->n].last = S->in[q].last;
                S->at[S->n].carried = S->in[q].last != INT64_MIN;
            }
        }
        k = ++S->n;
        I64Map_put(S->slot, stream, k);
    }
    S->last_stream = stream;
    S->last_slot = k - 1;
    return &S->at[k - 1];
}

/* Kernel [start, end) of stream, idle: the device's idle time before start. */
static void stream_step(Streams* S, int64_t stream, int64_t start, int64_t end, int64_t idle) {
    StreamAt* a = stream_at(S, stream);
    if (a->last != INT64_MIN && start > a->last && a->carried) {
        if (S->nheads == S->capheads) {
            S->capheads = S->capheads ? S->capheads * 2 : 16;
            S->heads = xrealloc(S->heads, (size_t)S->capheads * sizeof(*S->heads));
        }
        S->heads[S->nheads++] = (StreamHead){stream, start, idle};
    } else if (a->last != INT64_MIN && start > a->last) {
        int64_t w = start - a->last - (idle - a->idle);
        if (w > 0) {
            S->gaps++;
            S->ns += w;
        }
    }
    if (end > a->last) {
        a->last = end;
        a->idle = idle;
        a->carried = 0;
    }
}

typedef void (*GapFn)(void* ctx, const Gap* g);

/* The synchronising call of a sync gap (borrowed from Ctx), else NULL. */
static const Host* gap_sync(const Ctx* c, const Gap* g) {
    return g->sync ? &c->sy[g->sync - 1] : NULL;
}

/* The launching thread of the gap's next kernel, (-1, -1) when none. */
static void gap_thread(const Ctx* c, const Gap* g, int64_t* pid, int64_t* tid) {
    const Call* k = g->next != NO_DISP ? call_of(c, g->next) : NULL;
    *pid = *tid = -1;
    if (k) {
        call_thread(c, k, pid, tid);
    }
}

/* A memset or copy of no length (or a bad one): not busy. */
static int idle_copy(const Ctx* c, const Disp* x) {
    return x->end <= x->start && kind_of(c, x)->copy;
}

/* The cause of the gap [g->g0, g->g1) before dispatch i, from its launch call k. */
static void gap_cause(const Ctx* c, Gap* g, const Call* k) {
    int64_t pid, tid;
    call_thread(c, k, &pid, &tid);
    const Host* y = sync_in(c, pid, tid, g->g0, g->g1, k->cs);
    g->sync = y ? (uint32_t)(y - c->sy) + 1 : 0;
    g->cause = y ? C_SYNC : k->cs > g->g0 ? C_HOST : C_LAUNCH;
}

typedef struct { /* where device_gaps sweeps: d[from..to) of the device d[..d1), and what
                   * the sweep has when it gets to from: the latest end, the dispatch that set
                   * it (-1: none) */
    int64_t from, to, reach, prev;
} Sweep;

/* The idle intervals of the device d[d0..d1) over the run span [lo, hi), with causes:
 * [lo, first start), between the union's pieces, [last end, hi); each to on_gap(ctx, gap)
 * in order, as it is found (the gaps of 10M dispatches were 320 MB kept); the other-stream
 * waits into S. A sweep of d[d0..d1) from (d0, d1, lo, -1); of a part of it, to < d1, stops
 * before to (the tail gap is the last part's). */
static void device_gaps(const Ctx* c, const Sweep* sw, int64_t d1, int64_t hi, GapFn on_gap,
                        void* ctx, Streams* S, DevSum* sum) {
    int64_t reach = sw->reach, prev = sw->prev, last = sw->to < d1 ? sw->to - 1 : d1;
    for (int64_t i = sw->from; i <= last; i++) {
        const Disp* x = i < d1 ? at(c, i) : NULL;
        if (x && idle_copy(c, x)) {
            continue;
        }
        int64_t st = x ? x->start : hi;
        if (st > reach) {
            Gap g = {reach, st, x ? (uint32_t)i : NO_DISP, prev >= 0 ? (uint32_t)prev : NO_DISP,
                     0, C_UNKNOWN};
            const Call* k = x ? call_of(c, i) : NULL;
            if (k) {
                gap_cause(c, &g, k);
            }
            sum->gaps[g.cause]++;
            sum->ns[g.cause] += st - reach;
            sum->idle += st - reach;
            on_gap(ctx, &g);
        }
        if (x) {
            stream_step(S, lane_v(c, x, L_STREAM), x->start, x->end, sum->idle);
        }
        if (x && x->end > reach) {
            reach = x->end;
            prev = i;
        }
    }
}

/* ---- host activity ---------------------------------------------------------------------- */

static const char* run_label(TraceDb* db, int64_t run, char* buf, size_t cap) {
    sqlite3_stmt* st = NULL;
    DcuError e = {0};
    snprintf(buf, cap, "%lld", (long long)run);
    if (TraceDb_prepareCached(db, "SELECT label FROM run WHERE id = ?", &st, &e) == DCU_OK) {
        sqlite3_bind_int64(st, 1, run);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            snprintf(buf, cap, "%s", (const char*)sqlite3_column_text(st, 0));
        }
        TraceDb_release(db, st);
    }
    return buf;
}

typedef struct {
    ResultSet* rs; /* NULL: no rows */
    const char* run;
    int64_t gpu;
    const Gap* g;
    int64_t origin;    /* the gap's trace start (gap_origin) */
    const char* best;  /* the gap's main host activity: the first emitted */
    int64_t best_ns;
    HostTally* tally; /* NULL: none */
    char label[256];  /* a sync gap's "call in op" */
} EmitCtx;

static void emit_row(void* p, const char* name, int64_t ns) {
    EmitCtx* e = p;
    if (e->rs) {
        int r = ResultSet_addRow(e->rs);
        ResultSet_setText(e->rs, r, 0, e->run);
        ResultSet_setInt(e->rs, r, 1, e->gpu);
        ResultSet_setNs(e->rs, r, 2, (double)(e->g->g0 - e->origin));
        ResultSet_setNs(e->rs, r, 3, (double)(e->g->g1 - e->g->g0));
        ResultSet_setText(e->rs, r, 4, cause_names[e->g->cause]);
        ResultSet_setText(e->rs, r, 5, name);
        ResultSet_setNs(e->rs, r, 6, (double)ns);
        ResultSet_setInt(e->rs, r, 7, e->g->g0);
    }
    if (e->tally) {
        HostTally_add(e->tally, e->g->cause, name, ns);
    }
    if (!e->best) { /* IdleHost_gap emits the main activity first */
        e->best_ns = ns;
        e->best = name;
    }
}

/* ---- tables ------------------------------------------------------------------------------ */

static const RsColumn cause_cols[] = {
    {"run", "Run", CT_TEXT},       {"device", "Device", CT_INT},
    {"cause", "Cause", CT_TEXT},   {"gaps", "Gaps", CT_INT},
    {"total_ns", "Total", CT_NS},  {"pct_idle", "%Idle", CT_PCT},
};
static const RsColumn launch_cols[] = {
    {"run", "Run", CT_TEXT},
    {"device", "Device", CT_INT},
    {"stream", "Stream", CT_INT},
    {"kernel", "Kernel", CT_TEXT},
    {"launch_call", "Launch call", CT_TEXT},
    {"call_start_ns", "Call start", CT_INT},
    {"call_end_ns", "Call end", CT_INT},
    {"kernel_start_ns", "Kernel start", CT_INT},
    {"kernel_end_ns", "Kernel end", CT_INT},
    {"launch_delay_ns", "Launch delay", CT_NS},
};
/* gap_start_ns: from the trace start (the run's first dispatch), as the Trace screen and the
 * timeline show times; abs_start_ns: the same instant on the trace's own clock. */
static const RsColumn gap_cols[] = {
    {"run", "Run", CT_TEXT},           {"device", "Device", CT_INT},
    {"gap_start_ns", "Gap start", CT_NS}, {"gap_ns", "Gap", CT_NS},
    {"cause", "Cause", CT_TEXT},       {"host_activity", "Host activity", CT_TEXT},
    {"host_ns", "Host time", CT_NS},   {"abs_start_ns", "Abs start", CT_INT},
};
static const RsColumn top_cols[] = {
    {"run", "Run", CT_TEXT},           {"device", "Device", CT_INT},
    {"gap_start_ns", "Gap start", CT_NS}, {"gap_ns", "Gap", CT_NS},
    {"cause", "Cause", CT_TEXT},       {"host_activity", "Main host activity", CT_TEXT},
    {"host_ns", "Host time", CT_NS},   {"next_kernel", "Next kernel", CT_TEXT},
    {"abs_start_ns", "Abs start", CT_INT},
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char* const view_names[IDLE_VIEW_COUNT] = {"idle", "launches", "idle-gaps",
                                                        "idle-top", "launch-stats"};

int Idle_viewByName(const char* name) {
    for (int i = 0; name && i < IDLE_VIEW_COUNT; i++) {
        if (strcmp(view_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

const char* Idle_viewName(IdleView v) {
    return v < IDLE_VIEW_COUNT ? view_names[v] : "?";
}

/* dcutop's launch delay: kernel start - launch call end, clipped at 0 (HTA states the
 * difference without the clip, and computes another figure: launch_stats.c). */
static int64_t launch_delay(int64_t start, int64_t call_end) {
    return start > call_end ? start - call_end : 0;
}

static const char host_sql[] =
    "SELECT pid, tid, start_ns, end_ns, name FROM cpu_op WHERE start_ns IS NOT NULL AND"
    " file_id IN (SELECT id FROM source_file WHERE run_id = ?1)"
    " UNION ALL SELECT pid, tid, start_ns, end_ns, name FROM range WHERE start_ns IS NOT NULL"
    " AND end_ns IS NOT NULL AND file_id IN (SELECT id FROM source_file WHERE run_id = ?1)"
    " UNION ALL SELECT pid, tid, start_ns, end_ns, name FROM api_call WHERE start_ns IS NOT NULL"
    " AND file_id IN (SELECT id FROM source_file WHERE run_id = ?1)";
static const char sync_sql[] =
    "SELECT a.pid, a.tid, a.start_ns, a.end_ns, a.name FROM api_call a"
    " WHERE a.start_ns IS NOT NULL AND a.end_ns IS NOT NULL"
    " AND a.file_id IN (SELECT id FROM source_file WHERE run_id = ?1) AND (a.name IN ("
    "  'hipDeviceSynchronize', 'hipStreamSynchronize', 'hipEventSynchronize',"
    "  'cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize',"
    "  'cuCtxSynchronize', 'cuStreamSynchronize', 'cuEventSynchronize', 'hipCtxSynchronize',"
    "  'hipMemcpyDtoH', 'cuMemcpyDtoH', 'cuMemcpyDtoH_v2')"
    " OR (a.name IN ('hipMemcpy', 'cudaMemcpy', 'hipMemcpyWithStream') AND NOT EXISTS (SELECT 1 FROM copy c"
    "  WHERE c.file_id = a.file_id AND c.corr_id = a.corr_id AND NOT (c.name LIKE '%DtoH%'"
    "  OR c.name LIKE '%D2H%' OR c.name LIKE '%DEVICE_TO_HOST%' OR c.name LIKE"
    "  '%DeviceToHost%'))))";

static int cmp_gap(const void* a, const void* b) {
    const Gap *x = a, *y = b;
    int64_t p = x->g1 - x->g0, q = y->g1 - y->g0;
    return p != q ? (p < q ? 1 : -1) : (x->g0 > y->g0) - (x->g0 < y->g0);
}

/* ---- the walk ------------------------------------------------------------------------------ */

typedef struct {
    TraceDb* db;
    Ctx* c;
    IdleView v;
    ResultSet* rs;     /* the table of v; NULL when only summing */
    ResultSet* top_rs; /* IDLE_CAUSES: IDLE_TOP's table as well, from the same walk; or NULL */
    IdleSummary* sum;  /* NULL when making a table */
    HostTally tally;
    const char* label; /* the run being walked */
    int64_t gpu;       /* the device being walked */
    int64_t ofile, origin; /* TraceQuery_origin of file ofile (0: none yet) */
    Gap top[IDLE_TOP_GAPS]; /* IDLE_TOP: the device's largest gaps so far, largest first */
    int ntop;
    const int64_t* origins; /* a part's walk (no db): (file, origin) pairs of the device */
    int norigins;
} Walk;

static void out_causes(Walk* w, int64_t gpu, const DevSum* sum) {
    for (int k = 0; k < C_COUNT; k++) {
        if (!sum->gaps[k]) {
            continue;
        }
        int r = ResultSet_addRow(w->rs);
        ResultSet_setText(w->rs, r, 0, w->label);
        ResultSet_setInt(w->rs, r, 1, gpu);
        ResultSet_setText(w->rs, r, 2, cause_names[k]);
        ResultSet_setInt(w->rs, r, 3, sum->gaps[k]);
        ResultSet_setNs(w->rs, r, 4, (double)sum->ns[k]);
        ResultSet_setReal(w->rs, r, 5,
                          sum->idle ? 100.0 * (double)sum->ns[k] / (double)sum->idle : 0);
    }
}

/* Keeps g among the device's IDLE_TOP_GAPS largest gaps (cmp_gap: the order a sort of
 * them all gave). */
static void top_add(Walk* w, const Gap* g) {
    int n = w->ntop;
    if (n == IDLE_TOP_GAPS && cmp_gap(g, &w->top[n - 1]) >= 0) {
        return;
    }
    int at = n < IDLE_TOP_GAPS ? w->ntop++ : n - 1;
    while (at > 0 && cmp_gap(g, &w->top[at - 1]) < 0) {
        w->top[at] = w->top[at - 1];
        at--;
    }
    w->top[at] = *g;
}

/* Host activity of gap g on its launching thread, each activity's total, to emit_row; a sync
 * gap's call named with the op that issued it. */
static void gap_host(const Ctx* c, const Gap* g, EmitCtx* e) {
    int64_t pid, tid;
    gap_thread(c, g, &pid, &tid);
    const Host* y = gap_sync(c, g);
    const char* label = y ? IdleHost_syncLabel(c->h, c->nh, y, e->label, sizeof(e->label))
                          : NULL;
    IdleHost_gap(c->h, c->nh, pid, tid, g->g0, g->g1, y, label, emit_row, e);
}

/* The name of the gap's next kernel, NULL when it has none. */
static const char* next_name(const Ctx* c, const Gap* g) {
    return g->next != NO_DISP ? kind_of(c, at(c, g->next))->name : NULL;
}

/* The lane of gap g: the dispatch after it, else the one before; NULL when none. */
static const Disp* gap_lane(const Walk* w, const Gap* g) {
    uint32_t li = g->next != NO_DISP ? g->next : g->prev;
    return li != NO_DISP ? at(w->c, li) : NULL;
}

/* The start of the trace gap g is in (TraceQuery_origin of its lane's file: the run's first
 * dispatch), which the tables and the summary show its start from; 0 when it has no lane. */
static int64_t gap_origin(Walk* w, const Gap* g) {
    const Disp* lane = gap_lane(w, g);
    int64_t file = lane ? lane_v(w->c, lane, L_FILE) : 0;
    if (lane && file != w->ofile) {
        w->ofile = file;
        w->origin = 0;
        for (int q = 0; q < w->norigins; q++) {
            w->origin = w->origins[2 * q] == file ? w->origins[2 * q + 1] : w->origin;
        }
        w->origin = w->db ? TraceQuery_origin(w->db, file) : w->origin;
    }
    return lane ? w->origin : 0;
}

/* The largest IDLE_TOP_GAPS gaps of one device. */
static void out_top(Walk* w, ResultSet* rs) {
    for (int q = 0; q < w->ntop; q++) {
        const Gap* g = &w->top[q];
        EmitCtx e = {NULL, w->label, w->gpu, g, gap_origin(w, g), NULL, 0, NULL, ""};
        gap_host(w->c, g, &e);
        const char* nx = next_name(w->c, g);
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, w->label);
        ResultSet_setInt(rs, r, 1, w->gpu);
        ResultSet_setNs(rs, r, 2, (double)(g->g0 - e.origin));
        ResultSet_setNs(rs, r, 3, (double)(g->g1 - g->g0));
        ResultSet_setText(rs, r, 4, cause_names[g->cause]);
        ResultSet_setText(rs, r, 5, e.best ? e.best : "(untraced)");
        ResultSet_setNs(rs, r, 6, (double)e.best_ns);
        ResultSet_setText(rs, r, 7, g->next != NO_DISP ? (nx ? nx : "?") : "");
        ResultSet_setInt(rs, r, 8, g->g0);
    }
}

static void fill_gap(Walk* w, IdleGap* t, const Gap* g, const char* best) {
    const Ctx* c = w->c;
    memset(t, 0, sizeof(*t));
    const Disp* lane = gap_lane(w, g);
    t->gpu = w->gpu;
    t->stream = lane ? lane_v(c, lane, L_STREAM) : -1;
    t->file = lane ? lane_v(c, lane, L_FILE) : 0;
    t->at_ns = g->g0 - gap_origin(w, g);
    t->gap_ns = g->g1 - g->g0;
    t->cause = (IdleCause)g->cause;
    if (next_name(c, g)) {
        snprintf(t->next, sizeof(t->next), "%s", next_name(c, g));
    }
    snprintf(t->host, sizeof(t->host), "%s", best ? best : "(untraced)");
}

/* The place of a gap of len among the summary's largest gaps, made there (after those as
 * large: the earlier gap first); NULL when it is not among them. */
static IdleGap* top_slot(IdleSummary* s, int64_t len) {
    int at = s->ntop;
    while (at > 0 && s->top[at - 1].gap_ns < len) {
        at--;
    }
    if (at >= IDLE_SUMMARY_GAPS) {
        return NULL;
    }
    int last = s->ntop < IDLE_SUMMARY_GAPS ? s->ntop : IDLE_SUMMARY_GAPS - 1;
    memmove(&s->top[at + 1], &s->top[at], (size_t)(last - at) * sizeof(IdleGap));
    s->ntop = last + 1;
    return &s->top[at];
}

/* Keeps g among the summary's largest gaps (best: its main host activity). */
static void keep_top(Walk* w, const Gap* g, const char* best) {
    IdleSummary* s = w->sum;
    int64_t len = g->g1 - g->g0;
    if (len > s->largest[g->cause].gap_ns) {
        fill_gap(w, &s->largest[g->cause], g, best);
    }
    IdleGap* t = top_slot(s, len);
    if (t) {
        fill_gap(w, t, g, best);
    }
}

static void sum_device(Walk* w, const DevSum* sum) {
    IdleSummary* s = w->sum;
    for (int k = 0; k < C_COUNT; k++) {
        s->ns[k] += sum->ns[k];
        s->count[k] += sum->gaps[k];
    }
    s->idle_ns += sum->idle;
}

/* One gap into the summary: its host activity, the largest gaps. */
static void sum_gap(Walk* w, const Gap* g) {
    int64_t pid, tid;
    gap_thread(w->c, g, &pid, &tid);
    w->sum->explained |= pid != -1 || tid != -1;
    const Host* y = gap_sync(w->c, g);
    if (y) { /* the host blocked in that call: it is what to remove or defer */
        char buf[256];
        const char* what = IdleHost_syncLabel(w->c->h, w->c->nh, y, buf, sizeof(buf));
        HostTally_add(&w->tally, C_SYNC, what, g->g1 - g->g0);
        keep_top(w, g, what);
        return;
    }
    EmitCtx e = {NULL, w->label, w->gpu, g, 0, NULL, 0, &w->tally, ""};
    gap_host(w->c, g, &e);
    keep_top(w, g, e.best);
}

static void out_launches(Walk* w, int64_t r0, int64_t r1) {
    const Ctx* c = w->c;
    for (int64_t i = r0; i < r1; i++) {
        const Disp* d = at(c, i);
        const Call* k = call_of(c, i);
        const Kind* kd = kind_of(c, d);
        if (!k || kd->copy) {
            continue;
        }
        ResultSet* rs = w->rs;
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, w->label);
        ResultSet_setInt(rs, r, 1, lane_v(c, d, L_GPU));
        ResultSet_setInt(rs, r, 2, lane_v(c, d, L_STREAM));
        ResultSet_setText(rs, r, 3, kd->name ? kd->name : "?");
        ResultSet_setText(rs, r, 4, c->names[k->name - 1]);
        ResultSet_setInt(rs, r, 5, k->cs);
        ResultSet_setInt(rs, r, 6, k->ce);
        ResultSet_setInt(rs, r, 7, d->start);
        ResultSet_setInt(rs, r, 8, d->end);
        ResultSet_setNs(rs, r, 9, (double)launch_delay(d->start, k->ce));
    }
}

/* One gap of the device being walked, as device_gaps finds it. */
static void walk_gap(void* p, const Gap* g) {
    Walk* w = p;
    if (w->sum) {
        sum_gap(w, g);
    } else if (w->v == IDLE_GAPS) {
        EmitCtx e = {w->rs, w->label, w->gpu, g, gap_origin(w, g), NULL, 0, NULL, ""};
        gap_host(w->c, g, &e);
    } else if (w->v == IDLE_TOP || w->top_rs) {
        top_add(w, g);
    }
}

/* ---- the summary's walk of a device in parts ------------------------------------------------
 * The sweep of a device carries its latest end, the dispatch that set it and each stream's
 * latest end from one dispatch to the next; each is a maximum over the dispatches before, so
 * a first pass over the parts (in parallel) finds each part's, and a fold in part order what
 * each part starts from. The second pass sweeps the parts (in parallel), each into its own
 * sums, tally and largest gaps; the merge adds them up in part order, as one sweep would have
 * (sums of int64, first-seen orders kept), and settles the kernels a part compared to a
 * carried stream end: their wait needs the device's idle time before the part. */

enum { WALK_PART_MIN = 1 << 16 }; /* dispatches a part at least */

typedef struct {
    const Walk* w;
    int64_t d0, d1, hi;
    struct WalkPart_* p;
} WalkParts;

typedef struct WalkPart_ {
    int64_t maxend, maxat; /* pass 1: the part's latest end, its first dispatch (-1: none) */
    Streams ends;          /* pass 1: the part's streams (at[].last: their latest end) */
    Sweep sw;              /* where the part's sweep starts */
    StreamAt* in;          /* each stream's latest end before the part (S.in) */
    Walk w;                /* pass 2: the part's own summary and tally */
    IdleSummary sum;
    DevSum dev;
    Streams S;
} WalkPart;

static void ends_part(void* ctx, int part, int64_t lo, int64_t hi) {
    WalkParts* P = ctx;
    WalkPart* p = &P->p[part];
    const Ctx* c = P->w->c;
    p->sw = (Sweep){P->d0 + lo, P->d0 + hi, 0, -1};
    p->maxend = INT64_MIN;
    p->maxat = -1;
    p->ends = (Streams){.slot = I64Map_new()};
    for (int64_t i = p->sw.from; i < p->sw.to; i++) {
        const Disp* x = at(c, i);
        if (idle_copy(c, x)) {
            continue;
        }
        StreamAt* a = stream_at(&p->ends, lane_v(c, x, L_STREAM));
        a->last = x->end > a->last ? x->end : a->last;
        if (x->end > p->maxend) {
            p->maxend = x->end;
            p->maxat = i;
        }
    }
}

static void sweep_part(void* ctx, int part, int64_t lo, int64_t hi) {
    (void)lo, (void)hi;
    WalkParts* P = ctx;
    WalkPart* p = &P->p[part];
    p->w = *P->w;
    p->w.db = NULL; /* not from threads: fill_gap takes the origins */
    p->w.sum = &p->sum;
    HostTally_init(&p->w.tally);
    device_gaps(p->w.c, &p->sw, P->d1, P->hi, walk_gap, &p->w, &p->S, &p->dev);
}

/* What each part starts from: the fold of the parts before it (pass 1). */
static void carry_in(WalkParts* P, int parts, int64_t lo) {
    Streams all = {.slot = I64Map_new()};
    int64_t reach = lo, prev = -1;
    for (int q = 0; q < parts; q++) {
        WalkPart* p = &P->p[q];
        p->sw.reach = reach;
        p->sw.prev = prev;
        p->in = all.n ? xmalloc((size_t)all.n * sizeof(*p->in)) : NULL;
        if (all.n) {
            memcpy(p->in, all.at, (size_t)all.n * sizeof(*p->in));
        }
        p->S = (Streams){.slot = I64Map_new(), .in = p->in, .nin = all.n};
        if (p->maxend > reach) {
            reach = p->maxend;
            prev = p->maxat;
        }
        for (int64_t k = 0; k < p->ends.n; k++) {
            StreamAt* a = stream_at(&all, p->ends.at[k].stream);
            a->last = p->ends.at[k].last > a->last ? p->ends.at[k].last : a->last;
        }
        I64Map_delete(p->ends.slot);
        free(p->ends.at);
    }
    I64Map_delete(all.slot);
    free(all.at);
}

/* Part p's streams into the device's S, p's first waits settled; idle: the device's idle
 * time before p. */
static void merge_streams(Streams* S, const Streams* ps, int64_t idle) {
    for (int64_t h = 0; h < ps->nheads; h++) {
        const StreamHead* x = &ps->heads[h];
        const StreamAt* a = stream_at(S, x->stream); /* carried: S has it */
        int64_t wt = x->start - a->last - (idle + x->idle - a->idle);
        if (wt > 0) {
            S->gaps++;
            S->ns += wt;
        }
    }
    for (int64_t k = 0; k < ps->n; k++) {
        StreamAt* a = stream_at(S, ps->at[k].stream);
        if (!ps->at[k].carried) {
            a->last = ps->at[k].last;
            a->idle = idle + ps->at[k].idle;
        }
    }
    S->gaps += ps->gaps;
    S->ns += ps->ns;
}

/* Part p's sums, tally and largest gaps into the walk's, after the parts before it. */
static void merge_part(Walk* w, WalkPart* p, Streams* S, DevSum* sum) {
    merge_streams(S, &p->S, sum->idle);
    for (int k = 0; k < C_COUNT; k++) {
        sum->gaps[k] += p->dev.gaps[k];
        sum->ns[k] += p->dev.ns[k];
        const IdleGap* g = &p->sum.largest[k];
        if (g->gap_ns > w->sum->largest[k].gap_ns) {
            w->sum->largest[k] = *g;
        }
    }
    sum->idle += p->dev.idle;
    w->sum->explained |= p->sum.explained;
    for (int q = 0; q < p->sum.ntop; q++) {
        IdleGap* t = top_slot(w->sum, p->sum.top[q].gap_ns);
        if (t) {
            *t = p->sum.top[q];
        }
    }
    HostTally_merge(&w->tally, &p->w.tally);
    I64Map_delete(p->S.slot);
    free(p->S.at);
    free(p->S.heads);
    free(p->in);
}

/* The origins of the files of device dev's lanes, (file, origin) pairs, for the parts. */
static int64_t* device_origins(const Walk* w, uint32_t dev, int* n) {
    const Ctx* c = w->c;
    int64_t* o = NULL;
    *n = 0;
    for (int64_t l = 0; l < c->lanes.n; l++) {
        int64_t f = TupleIds_value(&c->lanes, (uint32_t)l, L_FILE);
        int seen = c->dev[l] != dev;
        for (int q = 0; q < *n && !seen; q++) {
            seen = o[2 * q] == f;
        }
        if (!seen) {
            o = xrealloc(o, (size_t)(*n + 1) * 2 * sizeof(*o));
            o[2 * *n] = f;
            o[2 * *n + 1] = TraceQuery_origin(w->db, f);
            ++*n;
        }
    }
    return o;
}

/* The summary's walk of the device d[d0..d1) of a run spanning [lo, hi) in parts. */
static void walk_parts(Walk* w, int64_t d0, int64_t d1, int64_t lo, int64_t hi, int parts,
                       Streams* S, DevSum* sum) {
    int no;
    int64_t* origins = device_origins(w, w->c->dev[at(w->c, d0)->lane], &no);
    w->origins = origins;
    w->norigins = no;
    WalkParts P = {w, d0, d1, hi, xcalloc((size_t)parts, sizeof(WalkPart))};
    Parallel_for(d1 - d0, parts, ends_part, &P);
    carry_in(&P, parts, lo);
    Parallel_for(d1 - d0, parts, sweep_part, &P);
    for (int q = 0; q < parts; q++) {
        merge_part(w, &P.p[q], S, sum);
    }
    free(P.p);
    free(origins);
    w->origins = NULL;
    w->norigins = 0;
}

/* One device d[d0..d1) of a run spanning [lo, hi). */
static void walk_device(Walk* w, int64_t d0, int64_t d1, int64_t lo, int64_t hi) {
    DevSum sum;
    memset(&sum, 0, sizeof(sum));
    Streams S = {.slot = I64Map_new()};
    w->gpu = lane_v(w->c, at(w->c, d0), L_GPU);
    w->ntop = 0;
    int parts = w->sum ? Parallel_parts(d1 - d0, WALK_PART_MIN) : 1;
    if (parts > 1) {
        walk_parts(w, d0, d1, lo, hi, parts, &S, &sum);
    } else {
        device_gaps(w->c, &(Sweep){d0, d1, lo, -1}, d1, hi, walk_gap, w, &S, &sum);
    }
    if (S.n > 1) { /* other-stream: a stream waiting while another one works */
        sum.gaps[C_OTHER_STREAM] += S.gaps;
        sum.ns[C_OTHER_STREAM] += S.ns;
    }
    sum_waits(w->c, d0, d1, &sum.gaps[C_RANK_WAIT], &sum.ns[C_RANK_WAIT]);
    I64Map_delete(S.slot);
    free(S.at);
    if (w->sum) {
        sum_device(w, &sum);
    } else if (w->v == IDLE_CAUSES) {
        out_causes(w, w->gpu, &sum);
        if (w->top_rs) {
            out_top(w, w->top_rs);
        }
    } else if (w->v == IDLE_TOP) {
        out_top(w, w->rs);
    }
}

typedef struct { /* run_span per part */
    const Ctx* c;
    int64_t r0;
    int64_t *lo, *hi;
    int* kernels;
} SpanPass;

static void span_of_part(void* ctx, int part, int64_t a, int64_t b) {
    SpanPass* x = ctx;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int kernels = 0;
    for (int64_t i = x->r0 + a; i < x->r0 + b; i++) {
        const Disp* d = at(x->c, i);
        int copy = kind_of(x->c, d)->copy;
        kernels |= !copy;
        if (!copy || d->end > d->start) {
            lo = d->start < lo ? d->start : lo;
            hi = d->end > hi ? d->end : hi;
        }
    }
    x->lo[part] = lo;
    x->hi[part] = hi;
    x->kernels[part] = kernels;
}

/* The run's wall [lo, hi) of the dispatches r0..r1: from its first busy start to its last busy end,
 * kernels, memsets and copies (copies of no length left out), as timeline.c. 0 when the run
 * has no kernel (the timeline measures runs with timed dispatches only). In parts: a least
 * and a greatest value. */
static int run_span(const Ctx* c, int64_t r0, int64_t r1, int64_t* lo, int64_t* hi) {
    int parts = Parallel_parts(r1 - r0, WALK_PART_MIN);
    SpanPass x = {c, r0, xmalloc((size_t)parts * sizeof(int64_t)),
                  xmalloc((size_t)parts * sizeof(int64_t)), xmalloc((size_t)parts * sizeof(int))};
    Parallel_for(r1 - r0, parts, span_of_part, &x);
    int kernels = 0;
    for (int p = 0; p < parts; p++) {
        kernels |= x.kernels[p];
        *lo = x.lo[p] < *lo ? x.lo[p] : *lo;
        *hi = x.hi[p] > *hi ? x.hi[p] : *hi;
    }
    free(x.lo);
    free(x.hi);
    free(x.kernels);
    return kernels && *lo <= *hi;
}

/* The end of the group of r0 in d[r0..n) of a key that does not decrease along the walk's
 * order (run, device: sort_disp's first key): a binary search, not a pass. */
static int64_t group_end(const Ctx* c, int64_t r0, int64_t n, int run) {
    const Disp* x0 = at(c, r0);
    int64_t lo = r0 + 1, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        const Disp* x = at(c, m);
        int same = run ? lane_v(c, x, L_RUN) == lane_v(c, x0, L_RUN)
                       : c->dev[x->lane] == c->dev[x0->lane];
        if (same) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    return lo;
}

/* Walks every device of every run: gaps, causes, waits; fills the table or the summary. */
static DcuStatus walk(Walk* w, DcuError* err) {
    Ctx* c = w->c;
    DcuStatus s = DCU_OK;
    for (int64_t r0 = 0; r0 < c->nd && s == DCU_OK;) {
        int64_t r1 = group_end(c, r0, c->nd, 1), run = lane_v(c, at(c, r0), L_RUN);
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        if (!run_span(c, r0, r1, &lo, &hi)) {
            r0 = r1; /* copies only: not a run of the timeline */
            continue;
        }
        char label[512];
        w->label = run_label(w->db, run, label, sizeof(label));
        free(c->h);
        free(c->sy);
        c->h = c->sy = NULL;
        c->nh = c->nsy = 0;
        if (w->v == IDLE_LAUNCHES && !w->sum) {
            out_launches(w, r0, r1);
            r0 = r1;
            continue;
        }
        s = read_hosts(w->db, c, host_sql, run, &c->h, &c->nh, err);
        if (s == DCU_OK) {
            s = read_hosts(w->db, c, sync_sql, run, &c->sy, &c->nsy, err);
        }
        for (int64_t d0 = r0; d0 < r1 && s == DCU_OK;) {
            int64_t d1 = group_end(c, d0, r1, 0); /* a device of copies only too, as the
                                                   * timeline */
            walk_device(w, d0, d1, lo, hi);
            d0 = d1;
        }
        r0 = r1;
    }
    return s;
}

static void ctx_init(Ctx* c) {
    memset(c, 0, sizeof(*c));
    TupleIds_init(&c->lanes, L_WIDTH);
    TupleIds_init(&c->threads, 2);
}

static void ctx_done(Ctx* c) {
    for (int64_t i = 0; i < c->nnames; i++) {
        free(c->names[i]);
    }
    free(c->names);
    free(c->d);
    free(c->calls);
    free(c->kinds);
    free(c->dev);
    free(c->ord);
    free(c->waits);
    TupleIds_done(&c->lanes);
    TupleIds_done(&c->threads);
    free(c->h);
    free(c->sy);
}

DcuStatus Idle_view(TraceDb* db, IdleView v, ResultSet** out, DcuError* err) {
    static const struct {
        const RsColumn* cols;
        int n;
    } tabs[IDLE_VIEW_COUNT] = {{cause_cols, NCOLS(cause_cols)},   {launch_cols, NCOLS(launch_cols)},
                               {gap_cols, NCOLS(gap_cols)},       {top_cols, NCOLS(top_cols)},
                               {NULL, 0}}; /* launch_stats.c */
    *out = NULL;
    if (v >= IDLE_VIEW_COUNT) {
        return Error_set(err, DCU_ERR_USAGE, "idle: unknown view");
    }
    if (v == IDLE_KERNELS) {
        return Idle_launchStats(db, NULL, out, err);
    }
    Ctx c;
    ctx_init(&c);
    ResultSet* rs = ResultSet_new(view_names[v], tabs[v].cols, tabs[v].n);
    DcuStatus s = read_dispatches(db, &c, v != IDLE_LAUNCHES, err);
    if (s == DCU_OK) {
        if (v == IDLE_CAUSES) {
            rank_wait(db, &c);
        }
        Walk w = {.db = db, .c = &c, .v = v, .rs = rs};
        s = walk(&w, err);
    }
    ctx_done(&c);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

DcuStatus Idle_causesTop(TraceDb* db, ResultSet** causes, ResultSet** top, DcuError* err) {
    *causes = *top = NULL;
    Ctx c;
    ctx_init(&c);
    ResultSet* rs = ResultSet_new(view_names[IDLE_CAUSES], cause_cols, NCOLS(cause_cols));
    ResultSet* trs = ResultSet_new(view_names[IDLE_TOP], top_cols, NCOLS(top_cols));
    DcuStatus s = read_dispatches(db, &c, 1, err);
    if (s == DCU_OK) {
        rank_wait(db, &c);
        Walk w = {.db = db, .c = &c, .v = IDLE_CAUSES, .rs = rs, .top_rs = trs};
        s = walk(&w, err);
    }
    ctx_done(&c);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        ResultSet_delete(trs);
        return s;
    }
    *causes = rs;
    *top = trs;
    return DCU_OK;
}

/* The largest host activities of each cause into the summary. */
static void tally_top(const HostTally* t, IdleSummary* s) {
    for (int64_t i = 0; i < t->n; i++) {
        int k = t->cause[i];
        for (int j = 0; j < IDLE_SUMMARY_HOSTS; j++) {
            if (t->ns[i] > s->host_ns[k][j]) {
                for (int m = IDLE_SUMMARY_HOSTS - 1; m > j; m--) {
                    s->host_ns[k][m] = s->host_ns[k][m - 1];
                    memcpy(s->host[k][m], s->host[k][m - 1], sizeof(s->host[k][m]));
                }
                s->host_ns[k][j] = t->ns[i];
                snprintf(s->host[k][j], sizeof(s->host[k][j]), "%s", t->name[i]);
                break;
            }
        }
    }
}

DcuStatus Idle_summary(TraceDb* db, IdleSummary* out, DcuError* err) {
    memset(out, 0, sizeof(*out));
    Ctx c;
    ctx_init(&c);
    DcuStatus s = read_dispatches(db, &c, 1, err);
    Walk w = {.db = db, .c = &c, .v = IDLE_CAUSES, .sum = out};
    HostTally_init(&w.tally);
    if (s == DCU_OK) {
        rank_wait(db, &c);
        s = walk(&w, err);
    }
    if (s == DCU_OK) {
        tally_top(&w.tally, out);
    }
    HostTally_done(&w.tally);
    ctx_done(&c);
    return s;
}

static int cmp_wait_id(const void* a, const void* b) {
    const IdleWait *x = a, *y = b;
    return (x->dispatch > y->dispatch) - (x->dispatch < y->dispatch);
}

DcuStatus Idle_rankWaits(TraceDb* db, IdleWait** out, int64_t* n, DcuError* err) {
    *out = NULL;
    *n = 0;
    Ctx c;
    ctx_init(&c);
    DcuStatus s = read_dispatches(db, &c, 0, err); /* kernels only: ids are dispatch ids */
    if (s == DCU_OK) {
        rank_wait(db, &c);
        *out = xmalloc((size_t)(c.nwaits ? c.nwaits : 1) * sizeof(IdleWait));
        for (int64_t q = 0; q < c.nwaits; q++) {
            (*out)[q] = (IdleWait){at(&c, c.waits[q].idx)->id, c.waits[q].wait};
        }
        *n = c.nwaits;
        qsort(*out, (size_t)*n, sizeof(IdleWait), cmp_wait_id);
    }
    ctx_done(&c);
    return s;
}
