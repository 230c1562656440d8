/* load_json.c - chrome-trace JSON (FORMATS.md 1.5, 2.6, 5): rocprof v1 results.json, hipprof
 * --output-type 0 JSON and PyTorch profiler (Kineto) traces, plain or gzip.
 *
 * The file is streamed: zlib's gzread (which also reads uncompressed files) feeds 64 KiB
 * blocks to yajl, an event-driven (SAX) parser, and only the event being parsed is held in
 * memory. Each "traceEvents" element is collected (its scalar fields and scalar args; the
 * grid/block arrays as products) and handled when its object closes. Numbers are taken as
 * the text yajl saw, so µs timestamps with a fraction become exact integer ns.
 *
 * Events are recognised by their category: Kineto's kernel, gpu_memcpy, gpu_memset,
 * cuda_runtime, cuda_driver, cpu_op, user_annotation, gpu_user_annotation, python_function;
 * hipprof's HIPOPS, HIPCOPY, HIP; rocprof v1 events have no category and are told apart by
 * the process_name metadata of their pid (GPU<n>, COPY, CPU HIP API, ...).
 * Bad input is a message, never a crash: an event with values of the wrong type is
 * rejected; a truncated or invalid document stops the parse with "file: JSON error at
 * byte N: ...", the events before it are kept and the error counts as one rejected row. */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "dcutop/csv_reader.h"
#include "dcutop/names.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "gz_file.h"
#include "gz_limit.h"
#include "json_chunks.h"
#include "json_feed.h"
#include "kineto_comm.h"
#include "kineto_memory.h"
#include "load_event.h"
#include "load_smi.h"

#define BLOCK (64 * 1024)


/* Per stored field of an event, beside its bytes: what an Arg costs in memory. */
#define FIELD_OVERHEAD 64

typedef struct Buf_ {
    char* s;
    size_t len, cap;
} Buf;

static void buf_set(Buf* b, const char* s, size_t n) {
    xgrow((void**)&b->s, &b->cap, n + 1);
    memcpy(b->s, s, n);
    b->s[n] = '\0';
    b->len = n;
}

static int buf_is(const Buf* b, const char* s) {
    return b->s && b->len == strlen(s) && memcmp(b->s, s, b->len) == 0;
}

typedef enum { V_NONE = 0, V_STR, V_NUM, V_NULL, V_BOOL, V_CONTAINER } VType;

typedef struct Arg_ {
    Buf key, val;
    VType type;
} Arg;

typedef struct Ev_ {
    Buf ph, cat, name, pid, tid, ts, dur, id; /* id: a flow's */
    VType ts_type, dur_type, pid_type, tid_type;
    int has_name;
    Arg* args;
    int nargs, capargs;
    int64_t grid, block; /* products of args.grid / args.block, LOAD_NULL if absent */
    uint64_t bytes;      /* field bytes stored, counted against the event size cap */
    char over[200];      /* why the event is over the size cap; "" when it is not */
} Ev;

typedef struct Proc_ {
    int64_t pid;
    char* name;
} Proc;

typedef enum { SRC_NONE, SRC_KINETO, SRC_HIPPROF, SRC_V1 } SrcKind;

typedef struct J_ {
    LoaderCore* core;
    LoadFile* f;
    int depth;
    int root_map;       /* 1 if the document is an object */
    int want_events;    /* the last root key was "traceEvents" */
    int ev_depth;       /* depth of the events array, 0 when outside it */
    int in_event;       /* depth of the open event object, 0 if none */
    int in_args;        /* depth of its args object, 0 if none */
    int arr_depth;      /* depth of an args.grid/block array being multiplied */
    int arr_which;      /* 1 grid, 2 block */
    int64_t arr_prod;
    Buf key, argkey;
    int cap_depth;      /* depth inside a shape array being copied as JSON text, 0 if none */
    int cap_bad;        /* the copied array held an object: not a shape list, dropped */
    Buf shape;          /* the JSON text of that array so far */
    int dev_depth;      /* depth of the deviceProperties elements, 0 when outside */
    Buf dev_name;       /* deviceProperties[i].name of the element being read */
    int64_t dev_id;     /* deviceProperties[i].id, LOAD_NULL when absent */
    int dist_depth;     /* depth inside the top-level distributedInfo object, 0 outside */
    int64_t dist_rank, dist_world; /* its rank and world_size, LOAD_NULL when absent */
    Ev ev;
    int64_t nevents;    /* trace events seen */
    int64_t recognised; /* events of a kind dcutop reads */
    int kineto_hint;    /* top-level keys of a Kineto trace seen */
    SrcKind kind;
    Proc* procs;
    int nprocs, capprocs;
    int py_frames;
    struct KinetoComm_* comm; /* collectives' args into comm_op (owned) */
    char where[64];
    char error[320]; /* why the parse stopped, "" if it did not */
    uint64_t cap;          /* --max-event-size, bytes */
    uint64_t chunk_off;    /* stream offset of the chunk yajl is parsing */
    yajl_handle h;         /* the parser (borrowed): where in the chunk a callback is */
    const JsonOversize* oversize; /* set while yajl parses the placeholder of a token over
                                   * the cap; the callback that receives it clears it */
    int standin;          /* 1 while yajl parses "{}" in place of a chunk of events parsed
                           * by a worker (read_chunked): its callbacks do nothing */
    struct EvBatch_* collect; /* on a worker thread: closed events are copied here instead
                               * of handled (no LoaderCore there) */
} J;

/* "16 MiB" or "1 GiB" when whole, else bytes. */
static const char* size_text(uint64_t n, char* buf, size_t sz) {
    if (n >= (1u << 30) && n % (1u << 30) == 0) {
        snprintf(buf, sz, "%llu GiB", (unsigned long long)(n >> 30));
    } else if (n >= (1u << 20) && n % (1u << 20) == 0) {
        snprintf(buf, sz, "%llu MiB", (unsigned long long)(n >> 20));
    } else if (n >= (1u << 20)) {
        snprintf(buf, sz, "%.1f MiB", (double)n / (1u << 20));
    } else {
        snprintf(buf, sz, "%llu bytes", (unsigned long long)n);
    }
    return buf;
}

/* ---- event fields ------------------------------------------------------------------ */

static const Arg* arg(const Ev* e, const char* key) {
    size_t kl = strlen(key);
    for (int i = 0; i < e->nargs; i++) {
        if (e->args[i].key.len == kl && memcmp(e->args[i].key.s, key, kl) == 0) {
            return &e->args[i];
        }
    }
    return NULL;
}

/* Integer from text (scale 3: µs text -> ns). LOAD_NULL when absent or null;
 * LOAD_NULL with *bad set when present but not a number (true/false, an object, "abc"). */
static int64_t num_text(const Buf* b, VType t, int scale, int* bad) {
    if (t == V_NONE || t == V_NULL || (t == V_STR && b->len == 0)) {
        return LOAD_NULL; /* absent or null */
    }
    int64_t v;
    if ((t == V_NUM || t == V_STR) && b->len > 0 && !memchr(b->s, '\0', b->len) &&
        LoadEvent_parseScaled(b->s, b->len, scale, &v)) {
        return v;
    }
    *bad = 1;
    return LOAD_NULL;
}

static int64_t arg_num(const Ev* e, const char* key, int scale, int* bad) {
    const Arg* a = arg(e, key);
    return a ? num_text(&a->val, a->type, scale, bad) : LOAD_NULL;
}

/* First of several spellings (dev_id / dev-id / devId). */
static int64_t arg_num2(const Ev* e, const char* k1, const char* k2, const char* k3, int* bad) {
    const char* keys[] = {k1, k2, k3};
    for (int i = 0; i < 3; i++) {
        if (keys[i] && arg(e, keys[i])) {
            return arg_num(e, keys[i], 0, bad);
        }
    }
    return LOAD_NULL;
}

/* "Stream<7>" / "Thread<123>" / "7" / 7 -> 7 */
static int64_t id_of(const Buf* b, VType t) {
    if (t == V_NONE || b->len == 0) {
        return LOAD_NULL;
    }
    size_t i = 0;
    while (i < b->len && !isdigit((unsigned char)b->s[i])) {
        i++;
    }
    size_t j = i;
    while (j < b->len && isdigit((unsigned char)b->s[j])) {
        j++;
    }
    int64_t v;
    if (j > i && j - i <= 18 && LoadEvent_parseScaled(b->s + i, j - i, 0, &v)) {
        return v;
    }
    return LOAD_NULL;
}

static void reject_bad(J* j, const char* what) {
    Load_reject(j->core, j->f, 0, "%s: %s is not a number", j->where, what);
}

/* One of ts/dur (µs) -> ns in *out (LOAD_NULL when absent). A value that is there but not
 * a usable time rejects the event with the reason: null, not a number, negative, or a
 * number too large for int64 ns. Returns 0 when rejected. */
static int time_field(J* j, const char* what, const Buf* b, VType t, int64_t* out) {
    *out = LOAD_NULL;
    if (t == V_NONE) {
        return 1;
    }
    const char* why = NULL;
    int64_t v;
    if (t == V_NULL) {
        why = "is null";
    } else if ((t != V_NUM && t != V_STR) || b->len == 0 || memchr(b->s, '\0', b->len)) {
        why = "is not a number";
    } else if (!LoadEvent_parseScaled(b->s, b->len, 3, &v)) {
        why = t == V_NUM ? "is out of range" : "is not a number";
    } else if (v < 0) {
        why = "is negative";
    }
    if (why) {
        Load_reject(j->core, j->f, 0, "%s: %s %s", j->where, what, why);
        return 0;
    }
    *out = v;
    return 1;
}

/* ts/dur in µs -> start/end ns. */
static int times_us(J* j, int64_t* start, int64_t* end) {
    int64_t ts, dur;
    if (!time_field(j, "ts", &j->ev.ts, j->ev.ts_type, &ts) ||
        !time_field(j, "dur", &j->ev.dur, j->ev.dur_type, &dur)) {
        return 0;
    }
    if (ts == LOAD_NULL) {
        Load_reject(j->core, j->f, 0, "%s: no ts", j->where);
        return 0;
    }
    if (dur != LOAD_NULL && dur > INT64_MAX - ts) { /* both are >= 0 here */
        Load_reject(j->core, j->f, 0, "%s: ts + dur is out of range", j->where);
        return 0;
    }
    *start = ts;
    *end = dur == LOAD_NULL ? ts : ts + dur;
    return 1;
}

/* BeginNs/EndNs args (rocprof v1, hipprof), else ts/dur. */
static int times_ns(J* j, int64_t* start, int64_t* end) {
    if (arg(&j->ev, "BeginNs") && arg(&j->ev, "EndNs")) {
        int bad = 0;
        *start = arg_num(&j->ev, "BeginNs", 0, &bad);
        *end = arg_num(&j->ev, "EndNs", 0, &bad);
        if (bad) {
            reject_bad(j, "BeginNs/EndNs");
            return 0;
        }
        return 1;
    }
    return times_us(j, start, end);
}

static const char* ev_name(const Ev* e, size_t* len) {
    *len = e->name.len;
    return e->name.s ? e->name.s : "";
}

/* ---- Kineto -------------------------------------------------------------------------- */

static int cat_is(const Ev* e, const char* c) {
    return e->cat.len == strlen(c) && strncasecmp(e->cat.s, c, e->cat.len) == 0;
}

/* An aten op, with its Call stack and record_shapes args when present; 0 when rejected
 * (bad: an id in args was not a number). */
static int kineto_cpu_op(J* j, int bad, int64_t pid, int64_t tid, int64_t ext) {
    static const char* const shape_keys[LOAD_SHAPE_FIELDS] = {"Input Dims", "Input type",
                                                              "Input Strides", "Concrete Inputs"};
    const Ev* e = &j->ev;
    int64_t start, end;
    size_t nl;
    const char* name = ev_name(e, &nl);
    LoadShapes sh = {{NULL}, arg_num(e, "Sequence number", 0, &bad),
                     arg_num(e, "Fwd thread id", 0, &bad)};
    if (bad) { /* the op's links are read whole or it is rejected */
        reject_bad(j, "External id, Sequence number or Fwd thread id");
        return 0;
    }
    if (!times_us(j, &start, &end)) {
        return 0;
    }
    const Arg* cs = arg(e, "Call stack");
    for (int i = 0; i < LOAD_SHAPE_FIELDS; i++) {
        const Arg* a = arg(e, shape_keys[i]);
        sh.json[i] = a && a->type == V_CONTAINER ? a->val.s : NULL;
    }
    LoadEvent_cpuOpShaped(j->core, j->f, j->where, name, nl, pid, tid, ext, start, end,
                          cs && cs->type == V_STR ? cs->val.s : NULL, cs ? cs->val.len : 0, &sh);
    return 1;
}

static const char* comm_arg(const void* ev, const char* key, size_t* len) {
    const Arg* a = arg(ev, key);
    *len = a ? a->val.len : 0;
    return a && (a->type == V_STR || a->type == V_NUM) ? a->val.s : NULL;
}

static void kineto_event(J* j) {
    Ev* e = &j->ev;
    LoaderCore* core = j->core;
    LoadFile* f = j->f;
    int bad = 0;
    int64_t corr = arg_num(e, "correlation", 0, &bad);
    int64_t ext = arg_num(e, "External id", 0, &bad);
    int64_t pid = id_of(&e->pid, e->pid_type), tid = id_of(&e->tid, e->tid_type);
    int64_t start, end;
    size_t nl;
    const char* name = ev_name(e, &nl);
    if (cat_is(e, "kernel")) {
        int64_t dev = arg_num(e, "device", 0, &bad), stream = arg_num(e, "stream", 0, &bad);
        if (bad) {
            reject_bad(j, "an id in args");
            return;
        }
        if (!times_us(j, &start, &end)) {
            return;
        }
        LoadDispatch d;
        LoadDispatch_init(&d);
        d.gpu = dev != LOAD_NULL ? dev : pid;
        d.stream = stream != LOAD_NULL ? stream : tid;
        d.corr = corr;
        d.start = start;
        d.end = end;
        d.grid = e->grid;
        d.workgroup = e->block;
        if (LoadEvent_dispatch(core, f, j->where, name, nl, &d, RANK_JSON) && ext != LOAD_NULL &&
            corr != LOAD_NULL) {
            LoadEvent_extLink(core, f, corr, ext);
        }
        KinetoComm_event(&j->comm, core, f, "kernel", name, nl, e, comm_arg, ext, corr, start,
                         end); /* a collective's args, if it is one */
    } else if (cat_is(e, "gpu_memcpy") || cat_is(e, "gpu_memset") || cat_is(e, "memcpy") ||
               cat_is(e, "memset")) {
        int64_t stream = arg_num(e, "stream", 0, &bad), bytes = arg_num(e, "bytes", 0, &bad),
                dev = arg_num(e, "device", 0, &bad);
        if (bad) {
            reject_bad(j, "stream/bytes/device in args");
            return;
        }
        if (!times_us(j, &start, &end)) {
            return;
        }
        /* the device that ran it, as for kernels (pid when the args do not say) */
        if (LoadEvent_copyOn(core, f, j->where, name, nl, LOAD_NULL, dev,
                             stream != LOAD_NULL ? stream : tid, corr, bytes, start, end,
                             dev != LOAD_NULL ? dev : pid, RANK_JSON) &&
            ext != LOAD_NULL && corr != LOAD_NULL) {
            LoadEvent_extLink(core, f, corr, ext);
        }
    } else if (cat_is(e, "cuda_runtime") || cat_is(e, "cuda_driver") || cat_is(e, "runtime")) {
        if (bad) {
            reject_bad(j, "correlation/External id");
            return;
        }
        if (!times_us(j, &start, &end)) {
            return;
        }
        const char* dom = cat_is(e, "cuda_driver") ? "CUDA_DRIVER"
                          : (nl >= 3 && strncmp(name, "hip", 3) == 0) ? "HIP"
                                                                       : "CUDA";
        if (LoadEvent_apiCall(core, f, j->where, dom, name, nl, pid, tid, corr, start, end,
                              RANK_JSON) &&
            ext != LOAD_NULL && corr != LOAD_NULL) {
            LoadEvent_extLink(core, f, corr, ext);
        }
    } else if (cat_is(e, "cpu_op") || cat_is(e, "operator")) {
        if (!kineto_cpu_op(j, bad, pid, tid, ext)) {
            return;
        }
        if (nl == 18 && memcmp(name, "record_param_comms", 18) == 0) {
            times_us(j, &start, &end); /* accepted by kineto_cpu_op */
            KinetoComm_event(&j->comm, core, f, "cpu_op", name, 0, e, comm_arg, ext, LOAD_NULL,
                             start, end);
        }
    } else if (cat_is(e, "user_annotation") || cat_is(e, "gpu_user_annotation")) {
        if (!times_us(j, &start, &end)) {
            return;
        }
        LoadEvent_range(core, f, j->where,
                        cat_is(e, "user_annotation") ? "ANNOTATION" : "GPU_ANNOTATION", "range",
                        name, nl, pid, tid, ext, start, end, RANK_JSON);
    } else if (cat_is(e, "python_function")) {
        int64_t py = arg_num(e, "Python id", 0, &bad),
                parent = arg_num(e, "Python parent id", 0, &bad);
        if (bad) {
            reject_bad(j, "Python id / Python parent id");
            return;
        }
        if (!times_us(j, &start, &end)) {
            return;
        }
        j->py_frames += LoadEvent_pyFrame(core, f, j->where, name, nl, pid, tid, py, parent,
                                          start, end);
    } else {
        return; /* Trace, overhead, cpu_instant_event, ...: not read */
    }
    j->recognised++;
}

/* ---- hipprof JSON ---------------------------------------------------------------------- */

static void hipprof_event(J* j) {
    Ev* e = &j->ev;
    int bad = 0;
    int64_t start, end;
    size_t nl;
    const char* name = ev_name(e, &nl);
    const Arg* an = arg(e, "name");
    if (an && an->type == V_STR && an->val.len > 0) {
        name = an->val.s;
        nl = an->val.len;
    }
    int64_t idx = arg_num(e, "index", 0, &bad);
    if (cat_is(e, "HIPOPS")) {
        LoadDispatch d;
        LoadDispatch_init(&d);
        d.gpu = arg_num2(e, "devId", "dev_id", "dev-id", &bad);
        d.queue = arg_num2(e, "queueId", "queue_id", "queue-id", &bad);
        d.pid = arg_num2(e, "procId", "proc_id", "pid", &bad);
        d.seq = idx;
        d.corr = idx;
        d.stream = id_of(&e->tid, e->tid_type);
        if (bad) {
            reject_bad(j, "an id in args");
            return;
        }
        if (!times_ns(j, &d.start, &d.end)) {
            return;
        }
        LoadEvent_dispatch(j->core, j->f, j->where, name, nl, &d, RANK_JSON);
    } else if (cat_is(e, "HIPCOPY")) {
        static const struct {
            const char* tid;
            const char* name;
        } kinds[] = {{"H2D", "CopyHostToDevice"}, {"D2H", "CopyDeviceToHost"},
                     {"D2D", "CopyDeviceToDevice"}, {"H2H", "CopyHostToHost"},
                     {"SET", "Memset"}};
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
            if (buf_is(&e->tid, kinds[k].tid)) {
                name = kinds[k].name;
                nl = strlen(name);
            }
        }
        int64_t bytes = arg_num2(e, "Bytes", "bytes", NULL, &bad);
        int64_t q = arg_num2(e, "queueId", "queue_id", "queue-id", &bad);
        if (bad) {
            reject_bad(j, "Bytes or an id in args");
            return;
        }
        if (!times_ns(j, &start, &end)) {
            return;
        }
        LoadEvent_copy(j->core, j->f, j->where, name, nl, LOAD_NULL, LOAD_NULL, q, idx, bytes,
                       start, end, RANK_JSON);
    } else if (cat_is(e, "HIP")) {
        if (bad) {
            reject_bad(j, "index");
            return;
        }
        if (!times_ns(j, &start, &end)) {
            return;
        }
        LoadEvent_apiCall(j->core, j->f, j->where, "HIP", name, nl, LOAD_NULL,
                          id_of(&e->tid, e->tid_type), idx, start, end, RANK_JSON);
    } else if (e->cat.len >= 5 && strncasecmp(e->cat.s, "HIPTX", 5) == 0) {
        if (!times_ns(j, &start, &end)) {
            return;
        }
        LoadEvent_range(j->core, j->f, j->where, "HIPTX", "range", name, nl, LOAD_NULL,
                        id_of(&e->tid, e->tid_type), LOAD_NULL, start, end, RANK_JSON);
    } else {
        return;
    }
    j->recognised++;
}

/* ---- rocprof v1 results.json --------------------------------------------------------- */

typedef enum { P_UNKNOWN, P_MARKERS, P_COPY, P_HIP, P_HSA, P_GPU, P_BARRIER } ProcKind;

static ProcKind proc_kind(const J* j, int64_t pid) {
    for (int i = 0; i < j->nprocs; i++) {
        if (j->procs[i].pid != pid) {
            continue;
        }
        const char* n = j->procs[i].name;
        if (strncmp(n, "GPU Barriers", 12) == 0) {
            return P_BARRIER;
        }
        if (strncmp(n, "GPU", 3) == 0) {
            return P_GPU;
        }
        if (strcmp(n, "COPY") == 0) {
            return P_COPY;
        }
        if (strstr(n, "HIP")) {
            return P_HIP;
        }
        if (strstr(n, "HSA")) {
            return P_HSA;
        }
        if (strstr(n, "Marker") || strstr(n, "Range")) {
            return P_MARKERS;
        }
        return P_UNKNOWN;
    }
    /* rocprof v1's fixed numbering (FORMATS.md 2.6) when the metadata is missing */
    if (pid == 0) {
        return P_MARKERS;
    }
    if (pid == 1) {
        return P_COPY;
    }
    if (pid == 2) {
        return P_HIP;
    }
    if (pid == 3) {
        return P_HSA;
    }
    if (pid >= 6 && pid < 518) {
        return P_GPU;
    }
    return pid >= 518 ? P_BARRIER : P_UNKNOWN;
}

static int v1_skip_name(const char* s, size_t n) {
    return (n == 20 && memcmp(s, "Unknown command type", 20) == 0) ||
           (n == 16 && memcmp(s, "<barrier packet>", 16) == 0);
}

static int known_kern_arg(const char* c) {
    static const char* const known[] = {
        "Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr",
        "lds", "scr", "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "fbar", "wave_size", "sig",
        "obj", "DispatchNs", "BeginNs", "EndNs", "CompleteNs", "DurationNs", NULL};
    for (int i = 0; known[i]; i++) {
        if (strcmp(known[i], c) == 0) {
            return 1;
        }
    }
    return 0;
}

static void v1_event(J* j) {
    Ev* e = &j->ev;
    int bad = 0;
    int64_t start, end;
    size_t nl;
    const char* name = ev_name(e, &nl);
    const Arg* an = arg(e, "Name");
    if (an && an->type == V_STR && an->val.len > 0) {
        name = an->val.s;
        nl = an->val.len;
    }
    int64_t pid = id_of(&e->pid, e->pid_type);
    const Arg* kn = arg(e, "KernelName");
    ProcKind pk = kn ? P_GPU : proc_kind(j, pid);
    if (kn) { /* a KERN row: results.csv's columns as strings */
        name = kn->val.s ? kn->val.s : "";
        nl = kn->val.len;
        if (v1_skip_name(name, nl)) {
            return;
        }
        LoadDispatch d;
        LoadDispatch_init(&d);
        d.seq = arg_num(e, "Index", 0, &bad);
        d.gpu = arg_num(e, "gpu-id", 0, &bad);
        d.queue = arg_num(e, "queue-id", 0, &bad);
        d.pid = arg_num(e, "pid", 0, &bad);
        d.tid = arg_num(e, "tid", 0, &bad);
        d.grid = arg_num(e, "grd", 0, &bad);
        d.workgroup = arg_num(e, "wgr", 0, &bad);
        d.lds = arg_num(e, "lds", 0, &bad);
        d.scratch = arg_num(e, "scr", 0, &bad);
        d.vgpr = arg(e, "arch_vgpr") ? arg_num(e, "arch_vgpr", 0, &bad) : arg_num(e, "vgpr", 0, &bad);
        d.sgpr = arg_num(e, "sgpr", 0, &bad);
        if (bad) {
            reject_bad(j, "a column in args");
            return;
        }
        if (!times_ns(j, &d.start, &d.end)) {
            return;
        }
        int64_t did = LoadEvent_dispatch(j->core, j->f, j->where, name, nl, &d, RANK_JSON);
        for (int i = 0; did && i < e->nargs; i++) {
            const Arg* a = &e->args[i];
            if (known_kern_arg(a->key.s)) {
                continue;
            }
            char* end_p;
            double v = a->val.s ? strtod(a->val.s, &end_p) : 0;
            if (a->val.len > 0 && a->val.s && *end_p == '\0' && end_p != a->val.s) {
                LoadEvent_counter(j->core, j->f, did, a->key.s, v);
            }
        }
        j->recognised++;
        return;
    }
    switch (pk) {
    case P_GPU: {
        if (v1_skip_name(name, nl)) {
            return;
        }
        LoadDispatch d;
        LoadDispatch_init(&d);
        d.gpu = arg_num(e, "dev-id", 0, &bad);
        d.queue = arg_num(e, "queue-id", 0, &bad);
        d.stream = arg_num(e, "stream-id", 0, &bad);
        d.pid = arg_num(e, "proc-id", 0, &bad);
        d.corr = arg_num(e, "Index", 0, &bad);
        d.seq = d.corr;
        if (bad) {
            reject_bad(j, "a column in args");
            return;
        }
        if (!times_ns(j, &d.start, &d.end)) {
            return;
        }
        LoadEvent_dispatch(j->core, j->f, j->where, name, nl, &d, RANK_JSON);
        break;
    }
    case P_COPY:
        if (!times_ns(j, &start, &end)) {
            return;
        }
        LoadEvent_copy(j->core, j->f, j->where, name, nl, LOAD_NULL, LOAD_NULL,
                       arg_num(e, "stream-id", 0, &bad), arg_num(e, "Index", 0, &bad), LOAD_NULL,
                       start, end, RANK_JSON);
        break;
    case P_HIP:
    case P_HSA:
        if (!times_ns(j, &start, &end)) {
            return;
        }
        LoadEvent_apiCall(j->core, j->f, j->where, pk == P_HIP ? "HIP" : "HSA", name, nl,
                          LOAD_NULL, id_of(&e->tid, e->tid_type), arg_num(e, "Index", 0, &bad),
                          start, end, RANK_JSON);
        break;
    case P_MARKERS:
        if (!times_ns(j, &start, &end)) {
            return;
        }
        LoadEvent_range(j->core, j->f, j->where, "ROCTX", "range", name, nl, LOAD_NULL,
                        id_of(&e->tid, e->tid_type), LOAD_NULL, start, end, RANK_JSON);
        break;
    default:
        return;
    }
    j->recognised++;
}

/* ---- one event ---------------------------------------------------------------------- */

/* where = "event n", as snprintf's "event %lld" writes it: snprintf on every event was 1% of
 * a 1M-kernel Kineto load */
static void set_where(char where[64], int64_t n) {
    char digits[24];
    int k = 0;
    uint64_t v = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
    do {
        digits[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(where, "event ", 6);
    int at = 6;
    if (n < 0) {
        where[at++] = '-';
    }
    while (k) {
        where[at++] = digits[--k];
    }
    where[at] = '\0';
}

/* PyTorch's profile_memory=True events; kineto_memory.c checks and stores them */
static void kineto_memory(J* j) {
    int64_t a[MEM_ARG_COUNT], ts;
    int bad = -1, b = 0; /* the first arg that is not a number */
    for (int i = 0; i < MEM_ARG_COUNT; i++) {
        a[i] = arg_num(&j->ev, LoadMemory_argNames[i], 0, &b);
        bad = b && bad < 0 ? i : bad;
    }
    set_where(j->where, j->nevents);
    if (time_field(j, "ts", &j->ev.ts, j->ev.ts_type, &ts)) {
        j->recognised += LoadMemory_kineto(j->core, j->f, j->nevents, ts,
                                           id_of(&j->ev.pid, j->ev.pid_type),
                                           id_of(&j->ev.tid, j->ev.tid_type), a, bad);
        j->kind = j->kind == SRC_NONE ? SRC_KINETO : j->kind; /* only PyTorch writes them */
    }
}

static void handle_event(J* j) {
    Ev* e = &j->ev;
    j->nevents++;
    if (e->over[0]) {
        Load_reject(j->core, j->f, 0, "event %lld %s", (long long)j->nevents, e->over);
        return;
    }
    if (buf_is(&e->ph, "M")) {
        if (buf_is(&e->name, "process_name")) {
            const Arg* a = arg(e, "name");
            int64_t pid = id_of(&e->pid, e->pid_type);
            if (a && a->type == V_STR && pid != LOAD_NULL && j->nprocs < 4096) {
                if (j->nprocs == j->capprocs) {
                    j->capprocs = j->capprocs ? j->capprocs * 2 : 16;
                    j->procs = xrealloc(j->procs, sizeof(Proc) * (size_t)j->capprocs);
                }
                j->procs[j->nprocs++] = (Proc){pid, xstrdup(a->val.s)};
            }
        }
        return;
    }
    if (buf_is(&e->ph, "i") && buf_is(&e->name, "[memory]")) {
        kineto_memory(j);
        return;
    }
    if (!buf_is(&e->ph, "X")) { /* fwdbwd flows are read; other instants, counters are not */
        int64_t ts;
        char ph = e->ph.len == 1 ? e->ph.s[0] : 0;
        set_where(j->where, j->nevents);
        if (cat_is(e, "fwdbwd") && time_field(j, "ts", &e->ts, e->ts_type, &ts)) {
            j->recognised += LoadEvent_flow(j->core, j->f, j->where, ph, id_of(&e->id, V_NUM),
                                            id_of(&e->pid, e->pid_type),
                                            id_of(&e->tid, e->tid_type), ts);
        }
        return;
    }
    set_where(j->where, j->nevents);
    if (e->cat.len == 0) {
        if (arg(e, "BeginNs") || arg(e, "KernelName")) {
            if (j->kind == SRC_NONE) {
                j->kind = SRC_V1;
            }
            v1_event(j);
        }
        return;
    }
    if (cat_is(e, "HIPOPS") || cat_is(e, "HIPCOPY") || cat_is(e, "HIP") ||
        (e->cat.len >= 5 && strncasecmp(e->cat.s, "HIPTX", 5) == 0)) {
        if (j->kind == SRC_NONE) {
            j->kind = SRC_HIPPROF;
        }
        hipprof_event(j);
        return;
    }
    int64_t before = j->recognised;
    kineto_event(j);
    if (j->recognised > before && j->kind == SRC_NONE) {
        j->kind = SRC_KINETO;
    }
}

static void ev_reset(Ev* e) {
    e->ph.len = e->cat.len = e->name.len = e->pid.len = e->tid.len = e->ts.len = e->dur.len = 0;
    e->id.len = 0;
    if (e->ph.s) {
        e->ph.s[0] = '\0';
    }
    if (e->cat.s) {
        e->cat.s[0] = '\0';
    }
    if (e->name.s) {
        e->name.s[0] = '\0';
    }
    if (e->tid.s) {
        e->tid.s[0] = '\0';
    }
    e->ts_type = e->dur_type = e->pid_type = e->tid_type = V_NONE;
    e->has_name = 0;
    e->nargs = 0;
    e->grid = e->block = LOAD_NULL;
    e->bytes = 0;
    e->over[0] = '\0';
}

/* A token over the cap, or an event whose stored fields pass it: the event is rejected
 * when it closes; outside an event, the token is only skipped, with a message. */
static void take_oversize(J* j) {
    const JsonOversize* o = j->oversize;
    char cap[32];
    j->oversize = NULL;
    if (j->in_event) {
        if (!j->ev.over[0]) {
            snprintf(j->ev.over, sizeof(j->ev.over),
                     "(line %ld, byte %llu): a token of %llu bytes is over the %s limit"
                     " (--max-event-size); event rejected",
                     o->line, (unsigned long long)o->offset, (unsigned long long)o->len,
                     size_text(j->cap, cap, sizeof(cap)));
        }
        return;
    }
    Load_message(j->core, j->f,
                 "line %ld, byte %llu: a token of %llu bytes outside any event is over the %s"
                 " limit (--max-event-size); skipped",
                 o->line, (unsigned long long)o->offset, (unsigned long long)o->len,
                 size_text(j->cap, cap, sizeof(cap)));
}

/* Counts n more stored bytes of the open event; 0 (store nothing more) once over the cap. */
static int ev_room(J* j, size_t n) {
    Ev* e = &j->ev;
    if (e->over[0]) {
        return 0;
    }
    e->bytes += n + FIELD_OVERHEAD;
    if (e->bytes > j->cap) {
        char cap[32];
        snprintf(e->over, sizeof(e->over),
                 "(ending at or after byte %llu): its fields are over the %s limit"
                 " (--max-event-size); event rejected",
                 (unsigned long long)(j->chunk_off + yajl_get_bytes_consumed(j->h)),
                 size_text(j->cap, cap, sizeof(cap)));
        return 0;
    }
    return 1;
}

/* ---- shape arrays (record_shapes) -------------------------------------------------------
 * The cpu_op args "Input Dims", "Input type", "Input Strides" and "Concrete Inputs" are
 * arrays (of arrays); they are copied back to compact JSON text and stored with the op, for
 * perf_model.c to read. Objects inside make the copy invalid (never seen in Kineto). */

static int is_shape_key(const Buf* k) {
    return buf_is(k, "Input Dims") || buf_is(k, "Input type") || buf_is(k, "Input Strides") ||
           buf_is(k, "Concrete Inputs");
}

static void cap_add(Buf* b, const char* s, size_t n) {
    xgrow((void**)&b->s, &b->cap, b->len + n + 1);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* A comma before a value unless it opens its array. */
static void cap_sep(Buf* b) {
    if (b->len > 0 && b->s[b->len - 1] != '[') {
        cap_add(b, ",", 1);
    }
}

static void cap_scalar(J* j, const char* s, size_t n, VType t) {
    Buf* b = &j->shape;
    cap_sep(b);
    if (t == V_STR) {
        cap_add(b, "\"", 1);
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            char esc[8];
            if (c == '"' || c == '\\') {
                esc[0] = '\\';
                esc[1] = (char)c;
                cap_add(b, esc, 2);
            } else if (c < 0x20) {
                snprintf(esc, sizeof(esc), "\\u%04x", c);
                cap_add(b, esc, 6);
            } else {
                cap_add(b, (const char*)&s[i], 1);
            }
        }
        cap_add(b, "\"", 1);
    } else if (t == V_NULL) {
        cap_add(b, "null", 4);
    } else {
        cap_add(b, s, n);
    }
}

/* The copied array closed: it becomes an arg of the event, typed V_CONTAINER. */
static void cap_store(J* j) {
    Ev* e = &j->ev;
    j->cap_depth = 0;
    if (j->cap_bad || !ev_room(j, j->shape.len + j->argkey.len)) {
        return;
    }
    if (e->nargs == e->capargs) {
        int nc = e->capargs ? e->capargs * 2 : 16;
        e->args = xrealloc(e->args, sizeof(Arg) * (size_t)nc);
        memset(e->args + e->capargs, 0, sizeof(Arg) * (size_t)(nc - e->capargs));
        e->capargs = nc;
    }
    Arg* a = &e->args[e->nargs++];
    buf_set(&a->key, j->argkey.s ? j->argkey.s : "", j->argkey.len);
    buf_set(&a->val, j->shape.s ? j->shape.s : "", j->shape.len);
    a->type = V_CONTAINER;
}

/* Kineto deviceProperties: one agent row per device, named as the trace names it. */
static void dev_store(J* j) {
    if (j->dev_name.len == 0) {
        return;
    }
    sqlite3_stmt* st = j->core->st[ST_AGENT];
    sqlite3_bind_int64(st, 1, j->f->id);
    if (j->dev_id != LOAD_NULL) {
        sqlite3_bind_int64(st, 2, j->dev_id);
    }
    sqlite3_bind_text(st, 3, "GPU", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, Names_sanitize(j->dev_name.s, j->dev_name.len), -1, free);
    sqlite3_bind_text(st, 5, Names_sanitize(j->dev_name.s, j->dev_name.len), -1, free);
    sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* ---- events parsed on a worker (read_chunked) --------------------------------------------
 * A worker's events are copied into a batch: the Ev structs, their field bytes in an arena
 * of large blocks (one free per block, not per field). The loading thread swaps each in as
 * j->ev and handles it, exactly as if its own parser had just closed it. */

typedef struct ArenaBlk_ {
    struct ArenaBlk_* next;
    size_t used, size;
    max_align_t data[];
} ArenaBlk;

typedef struct EvBatch_ {
    Ev* evs;
    size_t n, cap;
    ArenaBlk* blocks;
} EvBatch;

enum { ARENA_BLOCK = 256 << 10 };

static void* arena_take(EvBatch* b, size_t n) {
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    ArenaBlk* a = b->blocks;
    if (!a || a->size - a->used < n) {
        size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        a = xmalloc(sizeof(ArenaBlk) + size);
        a->next = b->blocks;
        a->used = 0;
        a->size = size;
        b->blocks = a;
    }
    void* p = (unsigned char*)a->data + a->used;
    a->used += n;
    return p;
}

/* dst gets a NUL-terminated copy of src in the arena (never NULL: no reader tells a NULL
 * buffer from an empty one). */
static void arena_buf(EvBatch* b, Buf* dst, const Buf* src) {
    char* s = arena_take(b, src->len + 1);
    if (src->len > 0) {
        memcpy(s, src->s, src->len);
    }
    s[src->len] = '\0';
    dst->s = s;
    dst->len = src->len;
    dst->cap = 0;
}

static void batch_free(void* p) {
    EvBatch* b = p;
    while (b->blocks) {
        ArenaBlk* a = b->blocks;
        b->blocks = a->next;
        free(a);
    }
    free(b->evs);
    free(b);
}

/* The worker's event closed: copy it. 0 (stop the parse: the chunk is then read serially)
 * when it is over the size cap, whose message names a stream offset only the serial read
 * knows. */
static int collect_event(J* j) {
    const Ev* e = &j->ev;
    EvBatch* b = j->collect;
    if (e->over[0]) {
        return 0;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->evs = xrealloc(b->evs, b->cap * sizeof(Ev));
    }
    Ev* d = &b->evs[b->n++];
    *d = *e;
    arena_buf(b, &d->ph, &e->ph);
    arena_buf(b, &d->cat, &e->cat);
    arena_buf(b, &d->name, &e->name);
    arena_buf(b, &d->pid, &e->pid);
    arena_buf(b, &d->tid, &e->tid);
    arena_buf(b, &d->ts, &e->ts);
    arena_buf(b, &d->dur, &e->dur);
    arena_buf(b, &d->id, &e->id);
    d->args = e->nargs > 0 ? arena_take(b, sizeof(Arg) * (size_t)e->nargs) : NULL;
    d->capargs = e->nargs;
    for (int i = 0; i < e->nargs; i++) {
        arena_buf(b, &d->args[i].key, &e->args[i].key);
        arena_buf(b, &d->args[i].val, &e->args[i].val);
        d->args[i].type = e->args[i].type;
    }
    return 1;
}

/* ---- yajl callbacks ------------------------------------------------------------------ */

static int scalar(J* j, const char* s, size_t n, VType t) {
    if (j->oversize) {
        take_oversize(j);
    }
    if (j->cap_depth) {
        cap_scalar(j, s, n, t);
        return 1;
    }
    if (j->depth == 1 && j->root_map && t == V_NUM && buf_is(&j->key, "baseTimeNanoseconds")) {
        LoadSmi_wallAnchor(j->core, j->f, s, n); /* the trace's wall clock (load_smi.c) */
        return 1;
    }
    if (j->depth == 1 && j->root_map && !j->in_event) { /* cuda_driver_version, ... */
        KinetoMeta_scalar(j->core, j->f, j->key.s, j->key.len, s, n);
        return 1;
    }
    if (j->dev_depth && j->depth == j->dev_depth + 1 && !j->in_event) {
        int64_t v;
        if (buf_is(&j->key, "name") && t == V_STR) {
            buf_set(&j->dev_name, s, n);
        } else if (buf_is(&j->key, "id") && t == V_NUM && LoadEvent_parseScaled(s, n, 0, &v)) {
            j->dev_id = v;
        }
        return 1;
    }
    if (j->dist_depth && j->depth == j->dist_depth && t == V_NUM) {
        int64_t v;
        if (LoadEvent_parseScaled(s, n, 0, &v) && v >= 0 && v < (1LL << 31)) {
            if (buf_is(&j->key, "rank")) {
                j->dist_rank = v;
            } else if (buf_is(&j->key, "world_size")) {
                j->dist_world = v;
            }
        }
        return 1;
    }
    if (j->in_event && j->depth == j->in_event) {
        Ev* e = &j->ev;
        const Buf* k = &j->key;
        Buf* dst = NULL;
        VType* ty = NULL;
        if (buf_is(k, "ph")) {
            dst = &e->ph;
        } else if (buf_is(k, "cat")) {
            dst = &e->cat;
        } else if (buf_is(k, "name")) {
            dst = &e->name;
        } else if (buf_is(k, "pid")) {
            dst = &e->pid;
            ty = &e->pid_type;
        } else if (buf_is(k, "tid")) {
            dst = &e->tid;
            ty = &e->tid_type;
        } else if (buf_is(k, "ts")) {
            dst = &e->ts;
            ty = &e->ts_type;
        } else if (buf_is(k, "dur")) {
            dst = &e->dur;
            ty = &e->dur_type;
        } else if (buf_is(k, "id")) {
            dst = &e->id;
        }
        if (dst && ev_room(j, n)) {
            if (t == V_STR || t == V_NUM) {
                buf_set(dst, s, n);
            } else {
                buf_set(dst, "", 0);
            }
            if (ty) {
                *ty = t;
            }
        }
        return 1;
    }
    if (j->in_args && j->depth == j->in_args) {
        Ev* e = &j->ev;
        if (!ev_room(j, n + j->argkey.len)) {
            return 1;
        }
        if (e->nargs == e->capargs) {
            int nc = e->capargs ? e->capargs * 2 : 16;
            e->args = xrealloc(e->args, sizeof(Arg) * (size_t)nc);
            memset(e->args + e->capargs, 0, sizeof(Arg) * (size_t)(nc - e->capargs));
            e->capargs = nc;
        }
        Arg* a = &e->args[e->nargs++];
        buf_set(&a->key, j->argkey.s ? j->argkey.s : "", j->argkey.len);
        if (t == V_STR || t == V_NUM) {
            buf_set(&a->val, s, n);
        } else {
            buf_set(&a->val, "", 0);
        }
        a->type = t;
        return 1;
    }
    if (j->arr_depth && j->depth == j->arr_depth && t == V_NUM) {
        int64_t v;
        if (LoadEvent_parseScaled(s, n, 0, &v) && v > 0 && v < (1LL << 31) &&
            j->arr_prod < (1LL << 40)) {
            j->arr_prod *= v;
        }
    }
    return 1;
}

static int cb_null(void* ctx) {
    return scalar(ctx, "", 0, V_NULL);
}

static int cb_bool(void* ctx, int b) {
    return scalar(ctx, b ? "true" : "false", b ? 4 : 5, V_BOOL);
}

static int cb_number(void* ctx, const char* s, size_t n) {
    return scalar(ctx, s, n, V_NUM);
}

static int cb_string(void* ctx, const unsigned char* s, size_t n) {
    return scalar(ctx, (const char*)s, n, V_STR);
}

/* An object or array where the event wants a scalar (ts, dur, pid, tid): a wrong type. */
static void mark_container(J* j) {
    if (!j->in_event || j->depth != j->in_event) {
        return;
    }
    Ev* e = &j->ev;
    if (buf_is(&j->key, "ts")) {
        buf_set(&e->ts, "", 0);
        e->ts_type = V_CONTAINER;
    } else if (buf_is(&j->key, "dur")) {
        buf_set(&e->dur, "", 0);
        e->dur_type = V_CONTAINER;
    }
}

static int cb_start_map(void* ctx) {
    J* j = ctx;
    if (j->standin) {
        return 1;
    }
    mark_container(j);
    if (j->cap_depth) {
        j->cap_bad = 1;
    }
    if (j->dev_depth && j->depth == j->dev_depth) {
        j->dev_name.len = 0;
        j->dev_id = LOAD_NULL;
    }
    if (j->depth == 0) {
        j->root_map = 1;
    } else if (j->depth == 1 && j->root_map && buf_is(&j->key, "distributedInfo")) {
        j->dist_depth = 2;
    } else if (j->ev_depth && j->depth == j->ev_depth && !j->in_event) {
        j->in_event = j->depth + 1;
        ev_reset(&j->ev);
    } else if (j->in_event && j->depth == j->in_event && buf_is(&j->key, "args")) {
        j->in_args = j->depth + 1;
    }
    j->want_events = 0;
    j->depth++;
    return 1;
}

static int cb_map_key(void* ctx, const unsigned char* s, size_t n) {
    J* j = ctx;
    if (j->oversize) {
        take_oversize(j);
    }
    if (j->in_args && j->depth == j->in_args) {
        buf_set(&j->argkey, (const char*)s, n);
    } else if (j->in_event && j->depth == j->in_event) {
        buf_set(&j->key, (const char*)s, n);
    } else if (j->dev_depth && j->depth == j->dev_depth + 1) {
        buf_set(&j->key, (const char*)s, n);
    } else if (j->dist_depth && j->depth == j->dist_depth) {
        buf_set(&j->key, (const char*)s, n);
    } else if (j->depth == 1 && j->root_map) {
        buf_set(&j->key, (const char*)s, n);
        j->want_events = buf_is(&j->key, "traceEvents");
        if (buf_is(&j->key, "deviceProperties") || buf_is(&j->key, "schemaVersion") ||
            buf_is(&j->key, "baseTimeNanoseconds") || buf_is(&j->key, "traceName")) {
            j->kineto_hint = 1;
        }
    }
    return 1;
}

static int cb_end_map(void* ctx) {
    J* j = ctx;
    if (j->standin) {
        return 1;
    }
    j->depth--;
    if (j->dev_depth && j->depth == j->dev_depth) {
        dev_store(j);
    }
    if (j->dist_depth && j->depth + 1 == j->dist_depth) {
        j->dist_depth = 0;
    }
    if (j->in_args && j->depth + 1 == j->in_args) {
        j->in_args = 0;
    } else if (j->in_event && j->depth + 1 == j->in_event) {
        j->in_event = 0;
        if (j->collect) {
            return collect_event(j);
        }
        handle_event(j);
    }
    return 1;
}

static int cb_start_array(void* ctx) {
    J* j = ctx;
    mark_container(j);
    if (j->cap_depth) {
        cap_sep(&j->shape);
        cap_add(&j->shape, "[", 1);
    } else if (j->in_args && j->depth == j->in_args && is_shape_key(&j->argkey)) {
        j->cap_depth = j->depth + 1;
        j->cap_bad = 0;
        j->shape.len = 0;
        cap_add(&j->shape, "[", 1);
    } else if (j->depth == 1 && j->root_map && !j->in_event &&
               buf_is(&j->key, "deviceProperties")) {
        j->dev_depth = 2;
    }
    if (j->depth == 0) { /* the array form of chrome trace: [ {event}, ... ] */
        j->ev_depth = 1;
    } else if (j->want_events && j->depth == 1) {
        j->ev_depth = 2;
    } else if (j->in_args && j->depth == j->in_args &&
               (buf_is(&j->argkey, "grid") || buf_is(&j->argkey, "block"))) {
        j->arr_depth = j->depth + 1;
        j->arr_which = buf_is(&j->argkey, "grid") ? 1 : 2;
        j->arr_prod = 1;
    }
    j->want_events = 0;
    j->depth++;
    return 1;
}

static int cb_end_array(void* ctx) {
    J* j = ctx;
    j->depth--;
    if (j->cap_depth) {
        cap_add(&j->shape, "]", 1);
        if (j->depth + 1 == j->cap_depth) {
            cap_store(j);
        }
        return 1;
    }
    if (j->dev_depth && j->depth + 1 == j->dev_depth) {
        j->dev_depth = 0;
    }
    if (j->arr_depth && j->depth + 1 == j->arr_depth) {
        if (j->arr_which == 1) {
            j->ev.grid = j->arr_prod;
        } else {
            j->ev.block = j->arr_prod;
        }
        j->arr_depth = 0;
    } else if (j->ev_depth && j->depth + 1 == j->ev_depth) {
        j->ev_depth = 0;
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* ---- entry ---------------------------------------------------------------------------- */

static void json_error(J* j, yajl_handle h, const unsigned char* chunk, size_t n,
                       uint64_t offset) {
    unsigned char* m = yajl_get_error(h, 0, chunk, n);
    /* yajl counts the byte it stopped at as consumed: the offset is that byte's, from 0 */
    size_t consumed = chunk ? yajl_get_bytes_consumed(h) : 0;
    consumed -= consumed > 0;
    size_t ml = m ? strlen((const char*)m) : 0;
    while (ml > 0 && isspace(m[ml - 1])) {
        ml--;
    }
    char* shown = Names_sanitize(m ? (const char*)m : "?", m ? ml : 1);
    snprintf(j->error, sizeof(j->error), "JSON error at byte %llu: %s",
             (unsigned long long)(offset + consumed), shown);
    free(shown);
    if (m) {
        yajl_free_error(h, m);
    }
}

static void free_ev(Ev* e) {
    free(e->ph.s);
    free(e->id.s);
    free(e->cat.s);
    free(e->name.s);
    free(e->pid.s);
    free(e->tid.s);
    free(e->ts.s);
    free(e->dur.s);
    for (int i = 0; i < e->capargs; i++) {
        free(e->args[i].key.s);
        free(e->args[i].val.s);
    }
    free(e->args);
}

/* Hands yajl n bytes that start at stream offset off; 0 with j->error set when the
 * document is bad. */
static int parse_chunk(J* j, yajl_handle h, const unsigned char* s, size_t n, uint64_t off) {
    j->chunk_off = off;
    if (yajl_parse(h, s, n) != yajl_status_ok) {
        json_error(j, h, s, n, off);
        return 0;
    }
    return 1;
}

/* One decompressed block through the feed: yajl gets each token whole, and an empty string
 * in place of a token over the cap, parsed alone so that its callback knows it. */
static int feed_block(J* j, yajl_handle h, JsonFeed* fd, const unsigned char* block, size_t n) {
    static const unsigned char placeholder[] = "\"\"";
    size_t pos = 0;
    JsonOversize over;
    for (;;) {
        int o = JsonFeed_scan(fd, block, n, &pos, &over);
        if (fd->safe > 0) {
            if (!parse_chunk(j, h, fd->buf, fd->safe, JsonFeed_bufOffset(fd))) {
                return 0;
            }
            JsonFeed_consume(fd);
        }
        if (!o) {
            return 1;
        }
        if (o == 2) {
            snprintf(j->error, sizeof(j->error),
                     "JSON nested deeper than %d levels at byte %llu (line %ld): reading stopped",
                     JSON_MAX_DEPTH, (unsigned long long)over.offset, over.line);
            return 0;
        }
        j->oversize = &over;
        int ok = parse_chunk(j, h, placeholder, 2, over.offset);
        if (j->oversize) {
            take_oversize(j);
        }
        if (!ok) {
            return 0;
        }
    }
}

/* Streams the file into yajl. Returns 1 when the document was read to its end, 0 when
 * reading stopped (j->error says why), -1 when the file is not JSON (f->note says so). */
static int read_stream(J* j, gzFile gz, yajl_handle h) {
    LoaderCore* core = j->core;
    JsonFeed fd;
    JsonFeed_init(&fd, j->cap);
    unsigned char* block = xmalloc(BLOCK);
    uint64_t limit = gzdirect(gz) ? UINT64_MAX : GzLimit_bytes(j->f->path), total = 0;
    int rc = 1;
    for (;;) {
        int n = gzread(gz, block, BLOCK);
        if (n < 0) {
            const char* kind;
            const char* m = GzRead_error(gz, &kind);
            char* shown = Names_sanitize(m, strlen(m));
            snprintf(j->error, sizeof(j->error), "%s error at byte %llu: %s", kind,
                     (unsigned long long)total, shown);
            free(shown);
            rc = 0;
            break;
        }
        if (n == 0) {
            if (GzRead_cutShort(gz)) {
                GzRead_cutText(j->error, sizeof(j->error), total);
                rc = 0;
            }
            break;
        }
        if (total == 0 && JsonFeed_notJson(block, (size_t)n)) {
            j->f->format = "skipped";
            j->f->note = xstrdup("gzip file that does not hold a JSON trace");
            rc = -1;
            break;
        }
        total += (uint64_t)n;
        if (total > limit) {
            char lim[32];
            snprintf(j->error, sizeof(j->error),
                     "gzip data expands past %s, over %d times its size on disk: reading"
                     " stopped at byte %llu",
                     size_text(limit, lim, sizeof(lim)), GZ_RATIO,
                     (unsigned long long)(total - (uint64_t)n));
            rc = 0;
            break;
        }
        if (!feed_block(j, h, &fd, block, (size_t)n)) {
            rc = 0;
            break;
        }
        Load_progress(core, j->f, (uint64_t)gzoffset(gz));
    }
    /* what is left is an unclosed token: yajl reports the truncation */
    if (rc == 1 && ((fd.len > 0 && !parse_chunk(j, h, fd.buf, fd.len, JsonFeed_bufOffset(&fd))) ||
                    yajl_complete_parse(h) != yajl_status_ok)) {
        if (!j->error[0]) {
            json_error(j, h, NULL, 0, total);
        }
        rc = 0;
    }
    JsonFeed_done(&fd);
    free(block);
    return rc;
}

/* ---- the parallel read of a plain file (issue 23) ------------------------------------
 * The traceEvents array is cut into chunks of whole events (json_chunks.c) that worker
 * threads parse with their own yajl handles into event batches. The loading thread reads
 * the document itself as read_stream does, every byte outside the chunks through the same
 * feed and parser, and in place of a chunk it gives its parser "{}" (callbacks off) and
 * handles the chunk's events in file order. It does so only when its parser stands where a
 * new element of the events array begins (after its '[' or a ','), so a chunk's events are
 * exactly what the serial parse would have seen; any other chunk, and one its worker could
 * not parse, it reads serially: every figure and every message are the serial read's. */

/* Runs on a worker: "[" chunk "]" through a parser of its own. */
static void parse_events_chunk(void* ctx, JsonChunk* c) {
    const J* main_j = ctx;
    J w;
    memset(&w, 0, sizeof(w));
    w.cap = main_j->cap;
    w.dist_rank = w.dist_world = LOAD_NULL;
    EvBatch* b = xcalloc(1, sizeof(*b));
    b->cap = (size_t)(c->end - c->start) / 128 + 16; /* Kineto events are 150-400 bytes */
    b->evs = xmalloc(b->cap * sizeof(Ev));
    w.collect = b;
    yajl_handle h = yajl_alloc(&callbacks, NULL, &w);
    w.h = h;
    yajl_config(h, yajl_dont_validate_strings, 1);
    c->ok = yajl_parse(h, (const unsigned char*)"[", 1) == yajl_status_ok &&
            yajl_parse(h, c->data, (size_t)(c->end - c->start)) == yajl_status_ok &&
            yajl_parse(h, (const unsigned char*)"]", 1) == yajl_status_ok &&
            yajl_complete_parse(h) == yajl_status_ok && b->n > 0;
    yajl_free(h);
    free_ev(&w.ev);
    free(w.key.s);
    free(w.argkey.s);
    free(w.shape.s);
    free(w.dev_name.s);
    c->out = b;
}

typedef struct Serial_ {
    JsonFeed fd;
    unsigned char* block;
    int file;             /* the open file (borrowed) */
    uint64_t pos;         /* file offset of the next byte to read serially */
    uint64_t total;       /* bytes given to the parser, or skipped with a chunk */
    unsigned char last;   /* the last byte not a space that the parser was given */
} Serial;

/* n bytes at s.pos through the feed, as one block of read_stream. */
static int serial_bytes(J* j, yajl_handle h, Serial* s, const unsigned char* b, size_t n) {
    if (n == 0) {
        return 1;
    }
    if (s->total == 0 && JsonFeed_notJson(b, n)) {
        j->f->format = "skipped";
        j->f->note = xstrdup("gzip file that does not hold a JSON trace");
        return -1;
    }
    s->total += n;
    s->pos += n;
    for (size_t i = n; i > 0; i--) {
        if (!isspace(b[i - 1])) {
            s->last = b[i - 1];
            break;
        }
    }
    return feed_block(j, h, &s->fd, b, n) ? 1 : 0;
}

/* The file from s.pos up to `to`, serially, in blocks. */
static int serial_range(J* j, yajl_handle h, Serial* s, uint64_t to) {
    while (s->pos < to) {
        size_t want = to - s->pos < BLOCK ? (size_t)(to - s->pos) : BLOCK;
        ssize_t n = pread(s->file, s->block, want, (off_t)s->pos);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            snprintf(j->error, sizeof(j->error), "read error at byte %llu: %s",
                     (unsigned long long)s->total, n < 0 ? strerror(errno) : "file shrank");
            return 0;
        }
        int rc = serial_bytes(j, h, s, s->block, (size_t)n);
        if (rc != 1) {
            return rc;
        }
    }
    return 1;
}

/* 1 when the parser stands at the start of an element of the events array. */
static int at_event_start(const J* j, const Serial* s) {
    return JsonFeed_idle(&s->fd) && (s->last == ',' || s->last == '[') && j->ev_depth &&
           j->depth == j->ev_depth && !j->in_event && !j->error[0] && !j->oversize;
}

/* A chunk: its events handled in order, or its bytes read serially. */
static int take_chunk(J* j, yajl_handle h, Serial* s, const JsonChunk* c) {
    if (!c->ok || !at_event_start(j, s)) {
        return serial_bytes(j, h, s, c->data, (size_t)(c->end - c->start));
    }
    j->standin = 1;
    int ok = parse_chunk(j, h, (const unsigned char*)"{}", 2, c->start);
    j->standin = 0;
    if (!ok) {
        return 0;
    }
    const EvBatch* b = c->out;
    Ev keep = j->ev;
    for (size_t i = 0; i < b->n; i++) {
        j->ev = b->evs[i];
        handle_event(j);
    }
    j->ev = keep;
    JsonFeed_skip(&s->fd, c->end, c->lines);
    s->total += c->end - c->start;
    s->pos = c->end;
    s->last = '}';
    return 1;
}

/* read_stream for a plain file of `size` bytes with `workers` parser threads; -2 when it
 * cannot be cut (no traceEvents array near its start): the caller then reads it serially. */
static int read_chunked(J* j, int file, uint64_t size, yajl_handle h, int workers) {
    LoaderCore* core = j->core;
    JsonChunks* cs = JsonChunks_start(file, size, j->cap, JsonChunks_chunkBytes(), workers,
                                      parse_events_chunk, batch_free, j);
    if (!cs) {
        return -2;
    }
    Serial s;
    memset(&s, 0, sizeof(s));
    JsonFeed_init(&s.fd, j->cap);
    s.block = xmalloc(BLOCK);
    s.file = file;
    int rc = 1;
    JsonChunk* c;
    while (rc == 1 && (c = JsonChunks_next(cs)) != NULL) {
        rc = serial_range(j, h, &s, c->start);
        if (rc == 1) {
            rc = take_chunk(j, h, &s, c);
        }
        JsonChunks_release(cs, c);
        Load_progress(core, j->f, s.pos);
    }
    JsonChunks_stop(cs);
    if (rc == 1) {
        rc = serial_range(j, h, &s, size);
    }
    if (rc == 1 &&
        ((s.fd.len > 0 && !parse_chunk(j, h, s.fd.buf, s.fd.len, JsonFeed_bufOffset(&s.fd))) ||
         yajl_complete_parse(h) != yajl_status_ok)) {
        if (!j->error[0]) {
            json_error(j, h, NULL, 0, s.total);
        }
        rc = 0;
    }
    JsonFeed_done(&s.fd);
    free(s.block);
    return rc;
}

/* Workers for a parallel read of this file, 0 for a serial one: a plain file of
 * JsonChunks_minFile() bytes or more, and --threads 2 or more. At most MAX_WORKERS: the
 * loading thread (events into SQLite) is the critical path; three workers keep it fed on a
 * 1M-kernel trace, and 15 were slower than three on a 16-core host (12.8 s against 10.4 s
 * for the load), as busy workers shared its core. */
enum { MAX_WORKERS = 4 };

static int chunk_workers(int file, uint64_t* size) {
    struct stat st;
    unsigned char magic[2];
    int threads = CsvReader_threads();
    if (threads < 2 || fstat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size < JsonChunks_minFile() || pread(file, magic, 2, 0) != 2 ||
        (magic[0] == 0x1f && magic[1] == 0x8b)) {
        return 0;
    }
    *size = (uint64_t)st.st_size;
    return threads - 1 < MAX_WORKERS ? threads - 1 : MAX_WORKERS;
}

static void set_format(J* j) {
    LoadFile* f = j->f;
    switch (j->kind) {
    case SRC_KINETO:
        f->format = "PyTorch profiler (Kineto) trace";
        break;
    case SRC_HIPPROF:
        f->format = "hipprof JSON trace";
        break;
    case SRC_V1:
        f->format = "rocprof v1 results.json";
        break;
    default:
        if (j->kineto_hint && j->nevents > 0) {
            f->format = "PyTorch profiler (Kineto) trace";
            f->note = xstrdup("no kernel, copy, runtime or annotation events");
        } else if (j->nevents > 0) {
            f->format = "skipped";
            f->note = xstrdup("JSON trace without events dcutop reads");
        } else {
            f->format = "skipped";
            f->note = xstrdup("JSON without trace events (no traceEvents array): not a trace");
        }
        break;
    }
}

/* Kineto distributedInfo: the file's rank and world size (ranks.c reads them per run). */
static void dist_store(J* j) {
    if (j->dist_rank == LOAD_NULL && j->dist_world == LOAD_NULL) {
        return;
    }
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(j->core->db,
                        "UPDATE source_file SET dist_rank = ?1, dist_world = ?2 WHERE id = ?3",
                        &st, NULL) != DCU_OK) {
        return;
    }
    if (j->dist_rank != LOAD_NULL) {
        sqlite3_bind_int64(st, 1, j->dist_rank);
    }
    if (j->dist_world != LOAD_NULL) {
        sqlite3_bind_int64(st, 2, j->dist_world);
    }
    sqlite3_bind_int64(st, 3, j->f->id);
    sqlite3_step(st);
    sqlite3_finalize(st);
}

DcuStatus LoadJson_file(LoaderCore* core, LoadFile* f, DcuError* err) {
    int fd = SafeFile_open(f->path, NULL, err); /* never a FIFO or device */
    if (fd < 0) {
        return DCU_ERR_IO;
    }
    gzFile gz = gzdopen(fd, "rb"); /* owns fd from here, gzclose closes it */
    if (!gz) {
        close(fd);
        return Error_set(err, DCU_ERR_IO, "cannot open: %s", strerror(errno ? errno : ENOMEM));
    }
    gzbuffer(gz, BLOCK);
    J j = {0};
    j.core = core;
    j.f = f;
    j.cap = (uint64_t)core->opt.max_event_size;
    j.dist_rank = j.dist_world = LOAD_NULL;
    f->format = "JSON";
    yajl_handle h = yajl_alloc(&callbacks, NULL, &j);
    j.h = h;
    yajl_config(h, yajl_dont_validate_strings, 1); /* names are sanitised on insert */
    uint64_t size = 0;
    int workers = chunk_workers(fd, &size);
    int read = workers > 0 ? read_chunked(&j, fd, size, h, workers) : -2;
    int direct = 1;
    if (read == -2) {
        read = read_stream(&j, gz, h);
        direct = gzdirect(gz);
    }
    if (read == 0) {
        /* a broken or oversized document: what was read before the error stays (a profiler
         * killed while writing leaves a truncated trace); the error is a message and one
         * rejected row */
        if (j.nevents > 0 || f->rows > 0) {
            Load_message(core, f, "%s; the %lld events before it are kept", j.error,
                         (long long)j.nevents);
            f->rejected++;
            f->messages++; /* listed: not one of the "more rejected rows not listed" */
        } else {
            Load_message(core, f, "%s", j.error);
            f->format = "skipped";
            f->note = xasprintf("%s that cannot be read: %s",
                                direct ? "JSON file" : "gzip file", j.error);
            read = -1;
        }
    }
    if (read >= 0) {
        if (j.py_frames > 0) {
            LoadEvent_linkFrames(core, f);
        }
        set_format(&j);
        dist_store(&j);
    }
    yajl_free(h);
    gzclose(gz);
    free_ev(&j.ev);
    KinetoComm_done(j.comm);
    free(j.key.s);
    free(j.argkey.s);
    free(j.shape.s);
    free(j.dev_name.s);
    for (int i = 0; i < j.nprocs; i++) {
        free(j.procs[i].name);
    }
    free(j.procs);
    return DCU_OK;
}
