/* load_v3json.c - rocprofv3 `--output-format json` (<pid>_results.json, top key
 * "rocprofiler-sdk-tool"; schema: rocprofiler-sdk source/docs/rocprofv3-schema.json).
 *
 * The document is an array of processes; each holds metadata (pid), agents, strings (the
 * names of buffer record kinds and operations: strings.buffer_records[kind].operations[op],
 * and the marker messages: strings.marker_api[] {key: internal correlation id, value}),
 * kernel_symbols (kernel_id -> kernel_name, register counts) and buffer_records with the
 * arrays kernel_dispatch, hip_api, hsa_api, rccl_api, marker_api and memory_copy (the others,
 * memory_allocation, scratch_memory, pc_sample_host_trap, rocdecode/rocjpeg_api and the
 * callback_records' counter_collection, are not read). strings.buffer_records is indexed by
 * the kind's enum value and each operations list by the operation's (rocprofiler-sdk's
 * name_info, serialized as an array). rocprofv3 writes agents, strings and kernel_symbols
 * before buffer_records: records are then stored as they close; in a file with another order
 * they are kept (numbers only) until the process's object closes.
 *
 * Streamed like load_json.c: gzread -> JsonFeed (tokens whole, capped, depth-limited) ->
 * yajl. Each record object is collected as flat "a.b.c" -> scalar fields. Bad input is a
 * message naming the file: a record with a value of the wrong type or a kernel id without a
 * symbol is rejected; a truncated document keeps the records read before the error. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "dcutop/names.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "gz_file.h"
#include "gz_limit.h"
#include "json_feed.h"
#include "load_event.h"

#define BLOCK (64 * 1024)

/* The sections that name what buffer records refer to. Once all three of a process are read
 * (rocprofv3 writes them before buffer_records), records are stored as they close, so memory
 * stays bounded; before that, they wait for the process to close. */
enum { SEEN_AGENTS = 1, SEEN_STRINGS = 2, SEEN_SYMBOLS = 4, SEEN_ALL = 7 };
#define MAX_FIELDS 64    /* fields kept per record (real buffer records hold under 30) */
#define MAX_PATH 8       /* nesting kept per record key */

typedef enum { REC_NONE, REC_META, REC_AGENT, REC_SYMBOL, REC_SKIND, REC_SMARK, REC_DISPATCH,
               REC_API, REC_COPY } RecKind;

typedef struct Field_ {
    char* key; /* "dispatch_info.grid_size.x" */
    char* val; /* the text yajl saw */
    int is_num, is_str;
} Field;

typedef struct Rec_ {
    RecKind kind;
    int depth;   /* depth of the record's object */
    int api_dom; /* REC_API: 0 hip_api, 1 hsa_api, 2 marker_api */
    Field f[MAX_FIELDS];
    int n;
    int bad;     /* a field held an object or array where a scalar belongs, or too many */
} Rec;

typedef struct Name_ {
    int64_t id;
    char* s;
    int64_t vgpr, sgpr;
    int seq; /* order of arrival: of two records of one id, the first is used */
} Name;

typedef struct Names_ {
    Name* v;
    int n, cap;
    int sorted;
    int next_seq;
    int64_t dups, dup_id; /* records of an id given before (names_sort), the first such id */
} NameTab;

typedef struct Op_ { /* one buffered record */
    RecKind kind;
    int dom;
    int64_t kid, op, agent, src, dst, queue, stream, seq, corr, tid, start, end, bytes;
    int64_t grid, wg, lds, scratch;
    int64_t index; /* its place in its array, for messages */
} Op;

typedef struct Kind_ { /* strings.buffer_records[i] */
    char* name;
    char** ops;
    int nops;
} Kind;

typedef struct V_ {
    LoaderCore* core;
    LoadFile* f;
    int depth;
    char* keys[JSON_MAX_DEPTH + 2]; /* the last key seen at each open map's depth */
    int is_arr[JSON_MAX_DEPTH + 2];
    int is_root_tool; /* the document is {"rocprofiler-sdk-tool": [...]} */
    int root_seen;    /* "rocprofiler-sdk-tool" keys met at the top */
    Rec rec;
    int in_ops_array; /* depth of a strings.buffer_records[].operations array */
    int64_t pid;
    NameTab syms, marks, agents;
    Kind* kinds;
    int nkinds, capkinds; /* grown by doubling: a file may name 200,000 kinds */
    Op* ops;
    size_t nops, capops;
    int64_t counts[4]; /* records seen of dispatches, api, copies, per array index */
    int64_t processes, records, missing_syms;
    int sections; /* SEEN_* of the open process: sections read whole */
    char error[320];
} V;

/* ---- small tables ------------------------------------------------------------------ */

static void names_put(NameTab* t, int64_t id, const char* s, int64_t vgpr, int64_t sgpr) {
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->v = xrealloc(t->v, sizeof(Name) * (size_t)t->cap);
    }
    t->v[t->n] = (Name){id, xstrdup(s ? s : ""), vgpr, sgpr, t->next_seq++};
    t->n++;
    t->sorted = 0;
}

static int name_cmp(const void* a, const void* b) {
    int64_t x = ((const Name*)a)->id, y = ((const Name*)b)->id;
    return x < y ? -1 : x > y;
}

static int name_seq_cmp(const void* a, const void* b) {
    int c = name_cmp(a, b);
    return c ? c : ((const Name*)a)->seq - ((const Name*)b)->seq;
}

/* Sorts t by id, keeping the first record of each id; the others are counted in t->dups. */
static void names_sort(NameTab* t) {
    if (t->sorted || t->n == 0) {
        return;
    }
    qsort(t->v, (size_t)t->n, sizeof(Name), name_seq_cmp);
    int k = 0;
    for (int i = 0; i < t->n; i++) {
        if (k > 0 && t->v[k - 1].id == t->v[i].id) {
            if (t->dups++ == 0) {
                t->dup_id = t->v[i].id;
            }
            free(t->v[i].s);
        } else {
            t->v[k++] = t->v[i];
        }
    }
    t->n = k;
    t->sorted = 1;
}

static const Name* names_get(NameTab* t, int64_t id) {
    if (t->n == 0) {
        return NULL; /* an empty table has no array: qsort(NULL, 0) is undefined behaviour */
    }
    names_sort(t);
    Name key = {id, NULL, 0, 0, 0};
    return bsearch(&key, t->v, (size_t)t->n, sizeof(Name), name_cmp);
}

static void names_free(NameTab* t) {
    for (int i = 0; i < t->n; i++) {
        free(t->v[i].s);
    }
    free(t->v);
    memset(t, 0, sizeof(*t));
}

static void kinds_free(V* v) {
    for (int i = 0; i < v->nkinds; i++) {
        for (int k = 0; k < v->kinds[i].nops; k++) {
            free(v->kinds[i].ops[k]);
        }
        free(v->kinds[i].ops);
        free(v->kinds[i].name);
    }
    free(v->kinds);
    v->kinds = NULL;
    v->nkinds = v->capkinds = 0;
}

static void rec_clear(Rec* r) {
    for (int i = 0; i < r->n; i++) {
        free(r->f[i].key);
        free(r->f[i].val);
    }
    r->n = 0;
    r->bad = 0;
    r->kind = REC_NONE;
}

static const Field* rec_get(const Rec* r, const char* key) {
    for (int i = 0; i < r->n; i++) {
        if (strcmp(r->f[i].key, key) == 0) {
            return &r->f[i];
        }
    }
    return NULL;
}

/* An integer field: 1 with *out set (LOAD_NULL when absent), 0 when it has the wrong type. */
static int rec_int(const Rec* r, const char* key, int64_t* out) {
    const Field* f = rec_get(r, key);
    *out = LOAD_NULL;
    if (!f) {
        return 1;
    }
    return f->is_num && LoadEvent_parseScaled(f->val, strlen(f->val), 0, out);
}

/* The first present of two keys. */
static int rec_int2(const Rec* r, const char* a, const char* b, int64_t* out) {
    return rec_get(r, a) ? rec_int(r, a, out) : rec_int(r, b, out);
}

/* x*y*z of an {x,y,z} object; LOAD_NULL when absent; 0 on a bad value. */
static int rec_xyz(const Rec* r, const char* key, int64_t* out) {
    char k[96];
    int64_t p = 1;
    *out = LOAD_NULL;
    for (const char* c = "xyz"; *c; c++) {
        int64_t x;
        snprintf(k, sizeof(k), "%s.%c", key, *c);
        if (!rec_int(r, k, &x)) {
            return 0;
        }
        if (x == LOAD_NULL) {
            return 1;
        }
        if (x < 0 || x > LOAD_MAX_AMOUNT || (x > 0 && p > LOAD_MAX_AMOUNT / x)) {
            return 0;
        }
        p *= x;
    }
    *out = p;
    return 1;
}

/* ---- records -> buffered ops --------------------------------------------------------- */

static Op* op_new(V* v, RecKind kind) {
    if (v->nops == v->capops) {
        v->capops = v->capops ? v->capops * 2 : 1024;
        v->ops = xrealloc(v->ops, sizeof(Op) * v->capops);
    }
    Op* o = &v->ops[v->nops++];
    memset(o, 0, sizeof(*o));
    o->kind = kind;
    o->index = v->counts[kind == REC_DISPATCH ? 0 : kind == REC_API ? 1 : 2]++;
    return o;
}

static int take_common(const Rec* r, Op* o) {
    /* {"internal": N, "external": M} as rocprofv3 writes it, or a plain N */
    return rec_int2(r, "correlation_id.internal", "correlation_id", &o->corr) &&
           rec_int(r, "thread_id", &o->tid) && rec_int(r, "start_timestamp", &o->start) &&
           rec_int(r, "end_timestamp", &o->end) && rec_int(r, "kind", &o->kid) &&
           rec_int(r, "operation", &o->op) &&
           rec_int2(r, "stream_id.handle", "stream_id", &o->stream);
}

static int take_dispatch(const Rec* r, Op* o) {
    int ok = take_common(r, o) && rec_int(r, "dispatch_info.kernel_id", &o->kid) &&
             rec_int(r, "dispatch_info.agent_id.handle", &o->agent) &&
             rec_int(r, "dispatch_info.queue_id.handle", &o->queue) &&
             rec_int(r, "dispatch_info.dispatch_id", &o->seq) &&
             rec_int(r, "dispatch_info.group_segment_size", &o->lds) &&
             rec_int(r, "dispatch_info.private_segment_size", &o->scratch) &&
             rec_xyz(r, "dispatch_info.grid_size", &o->grid) &&
             rec_xyz(r, "dispatch_info.workgroup_size", &o->wg);
    return ok && o->kid != LOAD_NULL;
}

static int take_copy(const Rec* r, Op* o) {
    return take_common(r, o) && rec_int(r, "src_agent_id.handle", &o->src) &&
           rec_int(r, "dst_agent_id.handle", &o->dst) && rec_int(r, "bytes", &o->bytes);
}

static char* rec_str(const Rec* r, const char* key) {
    const Field* f = rec_get(r, key);
    return f && f->is_str ? f->val : NULL;
}

/* strings.buffer_records[i]: the kind's name and its operations, in order. */
static void take_kind(V* v, const Rec* r) {
    if (v->nkinds == v->capkinds) {
        v->capkinds = v->capkinds ? 2 * v->capkinds : 16;
        v->kinds = xrealloc(v->kinds, sizeof(Kind) * (size_t)v->capkinds);
    }
    Kind* k = &v->kinds[v->nkinds++];
    const char* name = rec_str(r, "kind");
    k->name = xstrdup(name ? name : "");
    k->nops = 0;
    int nops = 0; /* counted first: one allocation, not one per operation */
    for (int i = 0; i < r->n; i++) {
        nops += strcmp(r->f[i].key, "operations") == 0 && r->f[i].is_str;
    }
    k->ops = nops ? xmalloc(sizeof(char*) * (size_t)nops) : NULL;
    for (int i = 0; i < r->n; i++) {
        if (strcmp(r->f[i].key, "operations") == 0 && r->f[i].is_str) {
            k->ops[k->nops++] = xstrdup(r->f[i].val);
        }
    }
}

/* agents[i]: handle -> node_id (records name a device by its handle, dcutop by its node, as
 * rocpd's absolute_index), and the agent row (node, CPU/GPU, name, product name). */
static void take_agent(V* v, const Rec* r) {
    int64_t handle, node, type;
    if (r->bad || !rec_int(r, "id.handle", &handle) || !rec_int(r, "node_id", &node) ||
        !rec_int(r, "type", &type) || handle == LOAD_NULL || node == LOAD_NULL) {
        Load_reject(v->core, v->f, 0, "agents record: no id.handle and node_id, or a value of "
                    "the wrong type");
        return;
    }
    names_put(&v->agents, handle, "", node, 0);
    sqlite3_stmt* ins = v->core->st[ST_AGENT];
    sqlite3_bind_int64(ins, 1, v->f->id);
    sqlite3_bind_int64(ins, 2, node);
    if (type == 1 || type == 2) {
        sqlite3_bind_text(ins, 3, type == 1 ? "CPU" : "GPU", -1, SQLITE_STATIC);
    }
    const char* keys[2] = {"name", "product_name"};
    for (int i = 0; i < 2; i++) {
        const char* s = rec_str(r, keys[i]);
        if (s) {
            sqlite3_bind_text(ins, 4 + i, Names_sanitize(s, strlen(s)), -1, free);
        }
    }
    if (sqlite3_step(ins) == SQLITE_DONE) {
        v->f->layer_rows[LAYER_AGENT]++;
        v->f->layer_grain[LAYER_AGENT] = 2;
        v->f->layer_rank[LAYER_AGENT] = RANK_JSON;
        v->f->rows++;
    }
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
}

static void store_op(V* v, const Op* o);

static void rec_done(V* v) {
    Rec* r = &v->rec;
    v->records++;
    int64_t a, b, c;
    Op* o;
    switch (r->kind) {
    case REC_META:
        if (rec_int(r, "pid", &a)) {
            v->pid = a;
        }
        break;
    case REC_AGENT:
        take_agent(v, r);
        break;
    case REC_SYMBOL:
        if (!r->bad && rec_int(r, "kernel_id", &a) && a != LOAD_NULL && rec_str(r, "kernel_name") &&
            rec_int2(r, "arch_vgpr_count", "vgpr_count", &b) && rec_int(r, "sgpr_count", &c)) {
            names_put(&v->syms, a, rec_str(r, "kernel_name"), b, c);
        } else {
            Load_reject(v->core, v->f, 0, "kernel_symbols record %lld: no kernel_id and "
                        "kernel_name, or a value of the wrong type", (long long)v->records);
        }
        break;
    case REC_SKIND:
        take_kind(v, r);
        break;
    case REC_SMARK:
        if (rec_int(r, "key", &a) && a != LOAD_NULL && rec_str(r, "value")) {
            names_put(&v->marks, a, rec_str(r, "value"), 0, 0);
        }
        break;
    case REC_DISPATCH:
    case REC_API:
    case REC_COPY:
        o = op_new(v, r->kind);
        o->dom = r->api_dom;
        if (r->bad || !(r->kind == REC_DISPATCH ? take_dispatch(r, o)
                        : r->kind == REC_COPY   ? take_copy(r, o)
                                                : take_common(r, o))) {
            Load_reject(v->core, v->f, 0, "%s[%lld]: a value of the wrong type or a missing "
                        "id", r->kind == REC_DISPATCH ? "kernel_dispatch"
                        : r->kind == REC_COPY ? "memory_copy"
                        : r->api_dom == 2 ? "marker_api"
                        : r->api_dom == 1 ? "hsa_api" : "hip_api", (long long)o->index);
            v->nops--;
        } else if (v->sections == SEEN_ALL) {
            v->nops--;
            store_op(v, o);
        }
        break;
    default:
        break;
    }
    rec_clear(r);
}

/* ---- storing a process ------------------------------------------------------------- */

static const char* kind_name(const V* v, int64_t kid) {
    return kid >= 0 && kid < v->nkinds ? v->kinds[kid].name : NULL;
}

static const char* op_name(const V* v, int64_t kid, int64_t op) {
    if (kid < 0 || kid >= v->nkinds || op < 0 || op >= v->kinds[kid].nops) {
        return NULL;
    }
    return v->kinds[kid].ops[op];
}

static int64_t agent_index(V* v, int64_t handle) {
    const Name* a = handle == LOAD_NULL ? NULL : names_get(&v->agents, handle);
    return a ? a->vgpr : handle;
}

/* The API domain of a record kind's name, as rocpd's regions (load_sqlite.c region_domain). */
static const char* api_domain(const char* kind, int dom) {
    if (dom == 2 || (kind && strncasecmp(kind, "MARKER", 6) == 0)) {
        return "MARKER";
    }
    if (kind && strncasecmp(kind, "HIP_COMPILER", 12) == 0) {
        return "HIP_COMPILER";
    }
    if (kind && strncasecmp(kind, "HSA", 3) == 0) {
        return "HSA";
    }
    if (kind && strncasecmp(kind, "RCCL", 4) == 0) {
        return "RCCL";
    }
    return dom == 1 ? "HSA" : "HIP";
}

static void store_dispatch(V* v, const Op* o, const char* where) {
    const Name* s = names_get(&v->syms, o->kid);
    if (!s) {
        v->missing_syms++;
        Load_reject(v->core, v->f, 0, "%s: kernel_id %lld has no kernel_symbols record", where,
                    (long long)o->kid);
        return;
    }
    LoadDispatch d;
    LoadDispatch_init(&d);
    d.seq = o->seq;
    d.gpu = agent_index(v, o->agent);
    d.queue = o->queue;
    d.stream = o->stream;
    d.pid = v->pid;
    d.tid = o->tid;
    d.corr = o->corr;
    d.start = o->start;
    d.end = o->end;
    d.grid = o->grid;
    d.workgroup = o->wg;
    d.lds = o->lds;
    d.scratch = o->scratch;
    d.vgpr = s->vgpr;
    d.sgpr = s->sgpr;
    LoadEvent_dispatch(v->core, v->f, where, s->s, strlen(s->s), &d, RANK_JSON);
}

static void store_op(V* v, const Op* o) {
    char where[64];
    const char* arr = o->kind == REC_DISPATCH ? "kernel_dispatch"
                      : o->kind == REC_COPY   ? "memory_copy"
                      : o->dom == 2           ? "marker_api"
                      : o->dom == 1           ? "hsa_api"
                                              : "hip_api"; /* or rccl_api */
    snprintf(where, sizeof(where), "%s[%lld]", arr, (long long)o->index);
    if (o->kind == REC_DISPATCH) {
        store_dispatch(v, o, where);
        return;
    }
    const char* name = op_name(v, o->kid, o->op);
    if (o->kind == REC_API && o->dom == 2) {
        const Name* m = o->corr == LOAD_NULL ? NULL : names_get(&v->marks, o->corr);
        name = m ? m->s : name;
    }
    if (!name || !*name) {
        Load_reject(v->core, v->f, 0, "%s: kind %lld operation %lld not named in strings", where,
                    (long long)o->kid, (long long)o->op);
        return;
    }
    if (o->kind == REC_COPY) {
        LoadEvent_copy(v->core, v->f, where, name, strlen(name), agent_index(v, o->src),
                       agent_index(v, o->dst), o->stream, o->corr, o->bytes, o->start, o->end,
                       RANK_JSON);
        return;
    }
    const char* dom = api_domain(kind_name(v, o->kid), o->dom);
    if (strcmp(dom, "MARKER") == 0) {
        LoadEvent_range(v->core, v->f, where, dom, "range", name, strlen(name), v->pid, o->tid,
                        o->corr, o->start, o->end, RANK_JSON);
    } else {
        LoadEvent_apiCall(v->core, v->f, where, dom, name, strlen(name), v->pid, o->tid,
                          o->corr, o->start, o->end, RANK_JSON);
    }
}

/* The records kept until their names were known. */
static void flush_ops(V* v) {
    for (size_t i = 0; i < v->nops; i++) {
        store_op(v, &v->ops[i]);
    }
    v->nops = 0;
}

/* A process object closed: its records, with every name known now. */
static void process_done(V* v) {
    v->processes++;
    flush_ops(v);
    names_sort(&v->syms);
    if (v->syms.dups > 0) { /* each a record not used: rejected, said once */
        Load_message(v->core, v->f, "process %lld: kernel_symbols gives %lld kernel_ids a second "
                     "time (first: %lld): the first record of each is used, %lld not",
                     (long long)v->processes, (long long)v->syms.dups,
                     (long long)v->syms.dup_id, (long long)v->syms.dups);
        v->f->rejected += v->syms.dups;
        v->f->messages++; /* listed: not one of the "more rejected rows not listed" */
    }
    v->sections = 0;
    memset(v->counts, 0, sizeof(v->counts));
    names_free(&v->syms);
    names_free(&v->marks);
    names_free(&v->agents);
    kinds_free(v);
    v->pid = LOAD_NULL;
}

/* ---- yajl callbacks ----------------------------------------------------------------- */

static int key_is(const V* v, int d, const char* s) {
    return d >= 1 && d <= v->depth && v->keys[d] && strcmp(v->keys[d], s) == 0;
}

/* The kind of record an object opening at depth d (1-based, after the push) is, if any. */
static RecKind rec_kind_at(V* v, int d, int* dom) {
    *dom = 0;
    if (!v->is_root_tool || d < 4 || !v->is_arr[2]) {
        return REC_NONE;
    }
    if (d == 4 && key_is(v, 3, "metadata")) {
        return REC_META;
    }
    if (d == 5 && v->is_arr[4] && key_is(v, 3, "agents")) {
        return REC_AGENT;
    }
    if (d == 5 && v->is_arr[4] && key_is(v, 3, "kernel_symbols")) {
        return REC_SYMBOL;
    }
    if (d != 6 || !v->is_arr[5]) {
        return REC_NONE;
    }
    if (key_is(v, 3, "strings")) {
        return key_is(v, 4, "buffer_records") ? REC_SKIND
               : key_is(v, 4, "marker_api")   ? REC_SMARK
                                              : REC_NONE;
    }
    if (!key_is(v, 3, "buffer_records")) {
        return REC_NONE;
    }
    if (key_is(v, 4, "kernel_dispatch")) {
        return REC_DISPATCH;
    }
    if (key_is(v, 4, "memory_copy")) {
        return REC_COPY;
    }
    *dom = key_is(v, 4, "hsa_api") ? 1 : key_is(v, 4, "marker_api") ? 2 : 0;
    return key_is(v, 4, "hip_api") || key_is(v, 4, "rccl_api") || *dom ? REC_API : REC_NONE;
}

/* Agents (some 60 fields), kernel symbols (a score, more in newer versions) and metadata
 * (with the run's whole configuration) keep only the fields read; buffer records all. */
static int keep_field(RecKind kind, const char* key) {
    static const char* const agent[] = {"id.handle", "node_id", "type", "name", "product_name",
                                        NULL};
    static const char* const symbol[] = {"kernel_id", "kernel_name", "arch_vgpr_count",
                                         "vgpr_count", "sgpr_count", NULL};
    static const char* const meta[] = {"pid", NULL};
    const char* const* keep = kind == REC_AGENT    ? agent
                              : kind == REC_SYMBOL ? symbol
                              : kind == REC_META   ? meta
                                                   : NULL;
    if (!keep) {
        return 1;
    }
    for (int i = 0; keep[i]; i++) {
        if (strcmp(key, keep[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

/* A scalar inside the open record: kept under its dotted key. */
static void rec_scalar(V* v, const char* s, size_t n, int is_num, int is_str) {
    Rec* r = &v->rec;
    if (r->kind == REC_NONE || v->depth < r->depth) {
        return;
    }
    if (v->is_arr[v->depth] && !(r->kind == REC_SKIND && v->depth == r->depth + 1)) {
        return; /* elements of arrays other than strings' operations lists are not read */
    }
    if (r->n >= MAX_FIELDS || v->depth - r->depth >= MAX_PATH) {
        r->bad = r->n >= MAX_FIELDS;
        return;
    }
    char key[256] = "";
    size_t kl = 0;
    for (int d = r->depth; d <= v->depth; d++) {
        const char* k = v->keys[d] ? v->keys[d] : "";
        if (v->is_arr[d]) {
            continue;
        }
        kl += (size_t)snprintf(key + kl, sizeof(key) - kl, "%s%s", kl ? "." : "", k);
        if (kl >= sizeof(key)) {
            return;
        }
    }
    if (v->is_arr[v->depth]) {
        snprintf(key, sizeof(key), "operations");
        if (!key_is(v, r->depth, "operations")) {
            return;
        }
    }
    if (!keep_field(r->kind, key)) {
        return;
    }
    r->f[r->n].key = xstrdup(key);
    r->f[r->n].val = xstrndup(s, n);
    r->f[r->n].is_num = is_num;
    r->f[r->n].is_str = is_str;
    r->n++;
}

static int cb_null(void* ctx) {
    rec_scalar(ctx, "null", 4, 0, 0);
    return 1;
}

static int cb_bool(void* ctx, int b) {
    rec_scalar(ctx, b ? "true" : "false", b ? 4 : 5, 0, 0);
    return 1;
}

static int cb_number(void* ctx, const char* s, size_t n) {
    rec_scalar(ctx, s, n, 1, 0);
    return 1;
}

static int cb_string(void* ctx, const unsigned char* s, size_t n) {
    V* v = ctx;
    if (v->depth == 0) {
        return 1;
    }
    rec_scalar(v, (const char*)s, n, 0, 1);
    return 1;
}

static int open_container(V* v, int is_arr) {
    if (v->depth >= JSON_MAX_DEPTH) {
        return 0; /* the feed stops first */
    }
    v->depth++;
    v->is_arr[v->depth] = is_arr;
    free(v->keys[v->depth]);
    v->keys[v->depth] = NULL;
    if (v->depth == 2) {
        v->is_root_tool = is_arr && !v->is_arr[1] && key_is(v, 1, "rocprofiler-sdk-tool");
        if (v->is_root_tool && v->root_seen++) { /* JSON keeps one value per key */
            v->is_root_tool = 0;
            Load_reject(v->core, v->f, 0, "a second top-level \"rocprofiler-sdk-tool\" key: "
                        "not read (its records would count twice; the first is used)");
        }
    }
    if (v->depth == 3 && v->is_root_tool && is_arr) {
        v->is_root_tool = 0;
    }
    Rec* r = &v->rec;
    if (r->kind != REC_NONE) {
        if (is_arr && (r->kind == REC_DISPATCH || r->kind == REC_API || r->kind == REC_COPY)) {
            r->bad = 1; /* a buffer record holds scalars and objects only */
        }
        return 1;
    }
    if (!is_arr) {
        int dom;
        RecKind k = rec_kind_at(v, v->depth, &dom);
        if (k != REC_NONE) {
            r->kind = k;
            r->depth = v->depth;
            r->api_dom = dom;
        }
    }
    return 1;
}

static int close_container(V* v) {
    Rec* r = &v->rec;
    if (r->kind != REC_NONE && v->depth == r->depth) {
        rec_done(v);
    }
    if (v->depth == 4 && v->is_root_tool && !v->is_arr[3]) {
        v->sections |= key_is(v, 3, "agents")           ? SEEN_AGENTS
                       : key_is(v, 3, "strings")        ? SEEN_STRINGS
                       : key_is(v, 3, "kernel_symbols") ? SEEN_SYMBOLS
                                                        : 0;
        if (v->sections == SEEN_ALL) {
            flush_ops(v);
        }
    }
    if (v->depth == 3 && v->is_root_tool && !v->is_arr[3]) {
        process_done(v);
    }
    free(v->keys[v->depth]);
    v->keys[v->depth] = NULL;
    v->depth--;
    return 1;
}

static int cb_start_map(void* ctx) {
    return open_container(ctx, 0);
}

static int cb_end_map(void* ctx) {
    return close_container(ctx);
}

static int cb_start_array(void* ctx) {
    return open_container(ctx, 1);
}

static int cb_end_array(void* ctx) {
    return close_container(ctx);
}

static int cb_map_key(void* ctx, const unsigned char* s, size_t n) {
    V* v = ctx;
    free(v->keys[v->depth]);
    v->keys[v->depth] = xstrndup((const char*)s, n > 200 ? 200 : n);
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* ---- stream ------------------------------------------------------------------------ */

static int parse(V* v, yajl_handle h, const unsigned char* s, size_t n, uint64_t off) {
    if (yajl_parse(h, s, n) == yajl_status_ok) {
        return 1;
    }
    unsigned char* m = yajl_get_error(h, 0, s, n);
    size_t ml = m ? strlen((const char*)m) : 0;
    while (ml > 0 && isspace(m[ml - 1])) {
        ml--;
    }
    char* shown = Names_sanitize(m ? (const char*)m : "?", m ? ml : 1);
    /* yajl counts the byte it stopped at as consumed: the offset is that byte's, from 0 */
    size_t consumed = s ? yajl_get_bytes_consumed(h) : 0;
    consumed -= consumed > 0;
    snprintf(v->error, sizeof(v->error), "JSON error at byte %llu: %s",
             (unsigned long long)(off + consumed), shown);
    free(shown);
    if (m) {
        yajl_free_error(h, m);
    }
    return 0;
}

static int feed(V* v, yajl_handle h, JsonFeed* fd, const unsigned char* b, size_t n) {
    static const unsigned char placeholder[] = "\"\"";
    size_t pos = 0;
    JsonOversize over;
    for (;;) {
        int o = JsonFeed_scan(fd, b, n, &pos, &over);
        if (fd->safe > 0) {
            if (!parse(v, h, fd->buf, fd->safe, JsonFeed_bufOffset(fd))) {
                return 0;
            }
            JsonFeed_consume(fd);
        }
        if (!o) {
            return 1;
        }
        if (o == 2) {
            snprintf(v->error, sizeof(v->error),
                     "JSON nested deeper than %d levels at byte %llu: reading stopped",
                     JSON_MAX_DEPTH, (unsigned long long)over.offset);
            return 0;
        }
        Load_message(v->core, v->f, "value of %llu bytes at byte %llu over the event size cap:"
                     " read as empty", (unsigned long long)over.len,
                     (unsigned long long)over.offset);
        if (!parse(v, h, placeholder, 2, over.offset)) {
            return 0;
        }
    }
}

/* 1: read to the end; 0: stopped (v->error says why). */
static int read_all(V* v, gzFile gz, yajl_handle h) {
    JsonFeed fd;
    JsonFeed_init(&fd, (uint64_t)v->core->opt.max_event_size);
    unsigned char* block = xmalloc(BLOCK);
    uint64_t limit = gzdirect(gz) ? UINT64_MAX : GzLimit_bytes(v->f->path), total = 0;
    int rc = 1;
    for (;;) {
        int n = gzread(gz, block, BLOCK);
        if (n < 0) {
            const char* kind;
            const char* m = GzRead_error(gz, &kind);
            char* shown = Names_sanitize(m, strlen(m));
            snprintf(v->error, sizeof(v->error), "%s error at byte %llu: %s", kind,
                     (unsigned long long)total, shown);
            free(shown);
            rc = 0;
            break;
        }
        if (n == 0) {
            if (GzRead_cutShort(gz)) {
                GzRead_cutText(v->error, sizeof(v->error), total);
                rc = 0;
            }
            break;
        }
        total += (uint64_t)n;
        if (total > limit) {
            snprintf(v->error, sizeof(v->error), "gzip data expands over %d times its size on "
                     "disk: reading stopped at byte %llu", GZ_RATIO,
                     (unsigned long long)(total - (uint64_t)n));
            rc = 0;
            break;
        }
        if (!feed(v, h, &fd, block, (size_t)n)) {
            rc = 0;
            break;
        }
    }
    if (rc == 1 && ((fd.len > 0 && !parse(v, h, fd.buf, fd.len, JsonFeed_bufOffset(&fd))) ||
                    yajl_complete_parse(h) != yajl_status_ok)) {
        if (!v->error[0]) {
            parse(v, h, NULL, 0, total);
        }
        rc = 0;
    }
    JsonFeed_done(&fd);
    free(block);
    return rc;
}

static void v_free(V* v) {
    rec_clear(&v->rec);
    for (int d = 0; d < JSON_MAX_DEPTH + 2; d++) {
        free(v->keys[d]);
    }
    names_free(&v->syms);
    names_free(&v->marks);
    names_free(&v->agents);
    kinds_free(v);
    free(v->ops);
}

DcuStatus LoadV3Json_file(LoaderCore* core, LoadFile* f, DcuError* err) {
    int fd = SafeFile_open(f->path, NULL, err);
    if (fd < 0) {
        return DCU_ERR_IO;
    }
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return Error_set(err, DCU_ERR_IO, "cannot open: %s", strerror(errno ? errno : ENOMEM));
    }
    gzbuffer(gz, BLOCK);
    V* v = xcalloc(1, sizeof(V));
    v->core = core;
    v->f = f;
    v->pid = LOAD_NULL;
    f->format = "rocprofv3 JSON";
    yajl_handle h = yajl_alloc(&callbacks, NULL, v);
    yajl_config(h, yajl_dont_validate_strings, 1); /* names are sanitised on insert */
    if (!read_all(v, gz, h)) {
        /* a profiler killed while writing leaves a truncated file: the records read are
         * kept, those whose kernel or operation was not named before the error rejected */
        Load_message(core, f, "%s; the %lld records before it are kept", v->error,
                     (long long)v->records);
        f->rejected++;
        f->messages++;
        if (v->is_root_tool && v->depth >= 3) {
            rec_clear(&v->rec);
            process_done(v);
        }
    }
    if (v->processes == 0 && f->rows == 0) {
        f->format = "skipped";
        f->note = xasprintf("rocprofv3 JSON without a complete process record%s%s",
                            v->error[0] ? ": " : "", v->error);
    }
    yajl_free(h);
    gzclose(gz);
    v_free(v);
    free(v);
    return DCU_OK;
}
