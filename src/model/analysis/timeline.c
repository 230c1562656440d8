/* timeline.c - see timeline.h. The timed dispatches are read once into an array, grouped by
 * run, and each run's slice is sorted three ways: by start (iterations), by device and start
 * (busy = union of intervals) and by stream and start (launch gaps); each run keeps its own
 * summary, the whole is their sum. API and copy tables are SQL over the schema with the
 * per-file steady-state cut in a TEMP table. */
#include "dcutop/dispatch_scan.h"
#include "dcutop/timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/filter.h"
#include "dcutop/i64_map.h"
#include "dcutop/kth.h"
#include "dcutop/median_spill.h"
#include "dcutop/parallel.h"
#include "dcutop/runs.h"
#include "dcutop/trace_query.h"
#include "dcutop/tuple_ids.h"
#include "dcutop/xalloc.h"
#include "api_split.h"

#define NONE INT64_MIN

/* One timed dispatch of the run being built, 32 bytes (a 10M-dispatch run: 320 MB); its
 * file, gpu and stream are its lane's, in the run's RunLanes. */
typedef struct TRow_ {
    int64_t start, end, corr;
    uint32_t kernel; /* < Timeline nks */
    uint32_t lane;   /* id in RunLanes ids */
} TRow;

enum { LN_FILE, LN_GPU, LN_STREAM, LN_WIDTH }; /* a lane's values */

typedef struct RunLanes_ { /* the (file, gpu, stream) of one run's rows */
    TupleIds ids;
    uint32_t* dev; /* per lane: the rank of its gpu among the run's (the by-device groups) */
    uint32_t* gs;  /* per lane: the rank of its (gpu, stream) (the by-stream groups) */
    uint32_t ndev, ngs;
} RunLanes;

typedef struct Busy_ { /* a memset or copy a device ran (copy.gpu set) */
    int64_t run, file, gpu, start, end;
} Busy;

typedef struct Device_ {
    int64_t file, gpu, dispatches, span, busy, kernel_ns;
    GapBuckets idle; /* the device's idle gaps by size; they add up to span - busy */
} Device;

typedef struct Gap_ {
    int64_t file, gpu, stream, gap, at; /* at: gap start, offset from the run start */
    int64_t before, after;              /* kernel ids */
} Gap;

typedef struct Iter_ {
    int64_t file;
    int index;      /* 1-based within its file; 0 = dispatches outside every step */
    char name[64];
    IterSource source;
    int64_t dispatches, kernel_ns, first_start, last_end;
    int64_t run_start;
} Iter;

typedef struct Run_ {
    int64_t id;                /* run.id */
    int64_t file, first, last; /* its first kernel file; first kernel start, last end */
    int64_t lo, hi;            /* the wall: first busy start to last busy end (kernels,
                                * memsets and copies of its devices) */
    int64_t cut;               /* host time where the steady state starts; NONE */
    TimelineSummary s;         /* the run's own figures */
} Run;

typedef struct KShort_ {
    int64_t calls, short_calls, ns, short_ns;
} KShort;

struct Timeline_ {
    int refs; /* the caller's, plus the database's cache (TraceDb_setCached) */
    TraceDb* db;
    int all_runs;        /* every run's used files, whatever the scope (Timeline_newAllRuns) */
    TimelineSummary s;
    int64_t total_kernel_ns; /* kernel_summary total (all used kernel data, timed or not) */
    int64_t kernel_busy;     /* the union of kernels per device, summed (no memsets, copies) */
    Device* dev;
    int ndev, capdev;
    GapBuckets buckets; /* the bounds in effect (counts zero) */
    Gap gaps[TIMELINE_TOP_GAPS];
    int ngaps;
    Iter* it;
    int nit, capit;
    I64Map* it_at; /* file id -> 1 + the index in it of its first iteration (they are adjacent) */
    Run* runs;
    int nruns, capruns;
    KShort* ks; /* indexed by kernel id */
    int64_t nks;
    const RunLanes* lanes; /* of the run being built (build_runs) */
};

static int64_t row_v(const Timeline* t, const TRow* r, int f) {
    return TupleIds_value(&t->lanes->ids, r->lane, f);
}

/* ---- sorting -------------------------------------------------------------------------- */

static int cmp64(int64_t a, int64_t b) {
    return (a > b) - (a < b);
}

/* Rows of one run (the run is the same): by start, end, correlation id. */
static int by_run(const void* a, const void* b) {
    const TRow *x = a, *y = b;
    int c = cmp64(x->start, y->start);
    c = c ? c : cmp64(x->end, y->end);
    return c ? c : cmp64(x->corr, y->corr);
}

/* Rows of one device or one stream: by start, end. */
static int by_time(const void* a, const void* b) {
    const TRow *x = a, *y = b;
    int c = cmp64(x->start, y->start);
    return c ? c : cmp64(x->end, y->end);
}

/* Sorts unless already in order: rows usually arrive in start order, and with one device
 * and one stream the three orders are the same (saves three sorts of a million rows). */
static void sort_rows(TRow* r, int64_t n, int (*cmp)(const void*, const void*)) {
    for (int64_t i = 1; i < n; i++) {
        if (cmp(&r[i - 1], &r[i]) > 0) {
            qsort(r, (size_t)n, sizeof(TRow), cmp);
            return;
        }
    }
}

/* In the order of group (grp: per lane, the rank of its device, or of its device and
 * stream), then by_time? */
static int is_grouped(const TRow* r, int64_t n, const uint32_t* grp) {
    for (int64_t i = 1; i < n; i++) {
        uint32_t a = grp[r[i - 1].lane], b = grp[r[i].lane];
        if (a > b || (a == b && by_time(&r[i - 1], &r[i]) > 0)) {
            return 0;
        }
    }
    return 1;
}

/* Moves row i to dest[i], by cycles: a copy of the rows would add their whole size to the
 * peak. D: int32_t or int64_t dest. */
#define PLACE_BY_CYCLES(D)                                                                 \
    static void place_##D(TRow* r, D* dest, int64_t n) {                                   \
        for (int64_t i = 0; i < n; i++) {                                                  \
            while (dest[i] != i) { /* swap row i into its place; each swap settles one */  \
                D d = dest[i];                                                             \
                TRow t = r[d];                                                             \
                r[d] = r[i];                                                               \
                r[i] = t;                                                                  \
                dest[i] = dest[d];                                                         \
                dest[d] = d;                                                               \
            }                                                                              \
        }                                                                                  \
    }
PLACE_BY_CYCLES(int32_t)
PLACE_BY_CYCLES(int64_t)

/* By device (or device and stream: grp, ngroups groups) inside one run, then by_time: a
 * stable counting sort by group, then each group's rows, which usually arrive in start
 * order already. glibc's qsort is a stable merge sort, so the order, ties included, is the
 * one a qsort of the whole slice by (group, start, end) gives; the merge sort's twenty
 * passes over a million rows were 6% of a report. */
static void sort_grouped(TRow* r, int64_t n, const uint32_t* grp, uint32_t ngroups) {
    if (is_grouped(r, n, grp)) {
        return;
    }
    int64_t* start = xcalloc((size_t)ngroups + 1, sizeof(*start));
    int64_t* pos = xmalloc(((size_t)ngroups + 1) * sizeof(*pos));
    for (int64_t i = 0; i < n; i++) {
        start[grp[r[i].lane] + 1]++;
    }
    for (uint32_t k = 0; k < ngroups; k++) {
        start[k + 1] += start[k];
        pos[k] = start[k];
    }
    if (n <= INT32_MAX) { /* where each row goes (4 bytes a row), then moved there */
        int32_t* dest = xmalloc(sizeof(*dest) * (size_t)(n ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            dest[i] = (int32_t)pos[grp[r[i].lane]]++;
        }
        place_int32_t(r, dest, n);
        free(dest);
    } else {
        int64_t* dest = xmalloc(sizeof(*dest) * (size_t)n);
        for (int64_t i = 0; i < n; i++) {
            dest[i] = pos[grp[r[i].lane]]++;
        }
        place_int64_t(r, dest, n);
        free(dest);
    }
    for (uint32_t k = 0; k < ngroups; k++) {
        sort_rows(r + start[k], start[k + 1] - start[k], by_time);
    }
    free(pos);
    free(start);
}

typedef struct {
    int64_t gpu, stream;
    uint32_t lane;
} LaneKey;

static int by_lane_key(const void* a, const void* b) {
    const LaneKey *x = a, *y = b;
    int c = cmp64(x->gpu, y->gpu);
    return c ? c : cmp64(x->stream, y->stream);
}

/* L->dev and L->gs: per lane, the rank of its gpu and of its (gpu, stream) in the run. */
static void rank_lanes(RunLanes* L) {
    int64_t n = L->ids.n;
    LaneKey* k = xmalloc(sizeof(*k) * (size_t)(n ? n : 1));
    for (int64_t l = 0; l < n; l++) {
        k[l] = (LaneKey){TupleIds_value(&L->ids, (uint32_t)l, LN_GPU),
                         TupleIds_value(&L->ids, (uint32_t)l, LN_STREAM), (uint32_t)l};
    }
    qsort(k, (size_t)n, sizeof(*k), by_lane_key);
    L->dev = xrealloc(L->dev, sizeof(*L->dev) * (size_t)(n ? n : 1));
    L->gs = xrealloc(L->gs, sizeof(*L->gs) * (size_t)(n ? n : 1));
    uint32_t dev = 0, gs = 0;
    for (int64_t i = 0; i < n; i++) {
        dev += i > 0 && k[i].gpu != k[i - 1].gpu;
        gs += i > 0 && by_lane_key(&k[i - 1], &k[i]) != 0;
        L->dev[k[i].lane] = dev;
        L->gs[k[i].lane] = gs;
    }
    L->ndev = n ? dev + 1 : 0;
    L->ngs = n ? gs + 1 : 0;
    free(k);
}

/* ---- reading ---------------------------------------------------------------------------- */

static const char used_kernel_files[] =
    "(SELECT file_id FROM used_file WHERE layer = 'kernel')";
/* PMC counters may come from a run whose kernel times are not used (trace_db.c used_file) */
static const char used_counter_files[] =
    "(SELECT file_id FROM used_file WHERE layer = 'counter')";

/* The timed rows of files[0..nfiles) of one run, appended to *rows (by rowid range: a
 * run costs its own rows, issue 15). */
/* The direct read of one file's span in parts (parallel.h): part p writes its rows from the
 * place its first row would have with none skipped, with lanes of its own (TupleIds); then
 * the parts' rows close up in part order and their lanes become the run's, given in the
 * parts' order of first sight: the rows, their order and the lane ids one pass gives. */
typedef struct {
    DispatchStore* store;
    const DispatchSpan* sp;
    int64_t nks;
    TRow* out;       /* where the span's first row goes */
    TupleIds* lanes; /* per part */
    int64_t* n;      /* per part: its rows */
    int64_t* from;   /* per part: where it wrote them, from out */
    uint32_t** map;  /* per part: its lane ids' in the run */
    DcuError* err;   /* per part */
    DcuStatus* s;
} SpanParts;

typedef struct {
    int64_t file, nks;
    TupleIds* lanes;
    TRow* out;
    int64_t n;
} PartRows;

static int part_block(void* ctx, const int64_t* d, int64_t from, int64_t to, int64_t row0) {
    (void)row0;
    PartRows* x = ctx;
    for (int64_t i = from; i < to; i++) {
        int64_t t0 = DS_AT(d, DS_START_NS, i), t1 = DS_AT(d, DS_END_NS, i);
        if (DS_AT(d, DS_FILE_ID, i) != x->file || t0 == DISPATCH_STORE_NULL ||
            t1 == DISPATCH_STORE_NULL) {
            continue;
        }
        int64_t g = DS_AT(d, DS_GPU, i), sm = DS_AT(d, DS_STREAM, i), q = DS_AT(d, DS_QUEUE, i),
                c = DS_AT(d, DS_CORR_ID, i), k = DS_AT(d, DS_KERNEL_ID, i);
        int64_t lane[LN_WIDTH] = {
            x->file, g == DISPATCH_STORE_NULL ? -1 : g,
            sm != DISPATCH_STORE_NULL ? sm : q != DISPATCH_STORE_NULL ? q : -1};
        x->out[x->n++] = (TRow){
            .start = t0,
            .end = t1,
            .corr = c == DISPATCH_STORE_NULL ? NONE : c,
            .kernel = (uint32_t)(k < 0 || k >= x->nks ? 0 : k),
            .lane = TupleIds_id(x->lanes, lane),
        };
    }
    return 1;
}

static void span_part(void* ctx, int part, int64_t c0, int64_t c1) {
    SpanParts* x = ctx;
    x->from[part] = DispatchScan_rowsBefore(x->sp, c0);
    TupleIds_init(&x->lanes[part], LN_WIDTH);
    PartRows r = {x->sp->file_id, x->nks, &x->lanes[part], x->out + x->from[part], 0};
    x->s[part] = DispatchScan_spanChunks(x->store, x->sp, c0, c1, part_block, &r, &x->err[part]);
    x->n[part] = r.n;
}

/* After the parts: their rows closed up and given the run's lane ids. */
static void relane_part(void* ctx, int part, int64_t lo, int64_t hi) {
    (void)lo;
    (void)hi;
    SpanParts* x = ctx;
    const uint32_t* map = x->map[part];
    TRow* r = x->out + x->from[part];
    for (int64_t i = 0; i < x->n[part]; i++) {
        r[i].lane = map[r[i].lane];
    }
}

/* One file's span sp into out (room for its rows); *n: the rows read. */
static DcuStatus read_span(DispatchStore* store, const DispatchSpan* sp, TupleIds* lanes,
                           int64_t nks, TRow* out, int64_t* n, DcuError* err) {
    int64_t nchunks = DispatchScan_chunks(store, sp);
    int parts = Parallel_parts(nchunks, 16);
    SpanParts x = {store, sp, nks, out, xcalloc((size_t)parts, sizeof(TupleIds)),
                   xcalloc((size_t)parts, sizeof(int64_t)), xcalloc((size_t)parts, sizeof(int64_t)),
                   xcalloc((size_t)parts, sizeof(uint32_t*)), xcalloc((size_t)parts, sizeof(DcuError)),
                   xcalloc((size_t)parts, sizeof(DcuStatus))};
    Parallel_for(nchunks, parts, span_part, &x);
    DcuStatus s = DCU_OK;
    int relane = 0;
    *n = 0;
    for (int p = 0; p < parts; p++) {
        if (s == DCU_OK && x.s[p] != DCU_OK) {
            s = x.s[p];
            *err = x.err[p];
        }
        if (x.from[p] != *n) { /* rows skipped before this part: close up, in order */
            memmove(out + *n, out + x.from[p], (size_t)x.n[p] * sizeof(TRow));
            x.from[p] = *n;
        }
        *n += x.n[p];
        TupleIds* L = &x.lanes[p]; /* the part's lanes, in its order of first sight */
        x.map[p] = xmalloc(sizeof(uint32_t) * (size_t)(L->n ? L->n : 1));
        for (int64_t l = 0; l < L->n; l++) {
            x.map[p][l] = TupleIds_id(lanes, L->v + l * LN_WIDTH);
            relane |= x.map[p][l] != (uint32_t)l;
        }
    }
    if (relane && s == DCU_OK) {
        Parallel_for(parts, parts, relane_part, &x);
    }
    for (int p = 0; p < parts; p++) {
        TupleIds_done(&x.lanes[p]);
        free(x.map[p]);
    }
    free(x.map);
    free(x.lanes);
    free(x.n);
    free(x.from);
    free(x.err);
    free(x.s);
    return s;
}

/* One run's rows: from store's columns when given (dispatch_scan.h), else through st. */
static DcuStatus read_rows(TraceDb* db, DispatchStore* store, sqlite3_stmt* st,
                           const int64_t* files, int64_t nfiles, TupleIds* lanes, int64_t nks,
                           TRow** rows, int64_t* n, size_t* cap, DcuError* err) {
    *n = 0;
    DispatchSpan* sp = store ? xmalloc(sizeof(*sp) * (size_t)(nfiles > 0 ? nfiles : 1)) : NULL;
    size_t need = 0; /* sized once: a doubling realloc copies (and faults in) every row again */
    for (int64_t f = 0; store && f < nfiles; f++) {
        sp[f].lo = 0; /* an empty span when the file has none (a stats file): read below */
        sp[f].hi = -1;
        if (DispatchScan_fileSpan(db, files[f], &sp[f])) {
            need += (size_t)(sp[f].hi - sp[f].lo + 1);
        }
    }
    if (need > *cap) {
        *cap = need;
        *rows = xrealloc(*rows, sizeof(TRow) * *cap);
    }
    for (int64_t f = 0; store && f < nfiles; f++) {
        int64_t got = 0;
        DcuStatus s = sp[f].hi >= sp[f].lo
                          ? read_span(store, &sp[f], lanes, nks, *rows + *n, &got, err)
                          : DCU_OK;
        *n += got;
        if (s != DCU_OK) {
            free(sp);
            return s;
        }
    }
    free(sp);
    for (int64_t f = 0; !store && f < nfiles; f++) {
        sqlite3_bind_int64(st, 1, files[f]);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if ((size_t)*n == *cap) {
                *cap = *cap ? *cap * 2 : 4096;
                *rows = xrealloc(*rows, sizeof(TRow) * *cap);
            }
            TRow* r = &(*rows)[(*n)++];
            int64_t lane[LN_WIDTH] = {files[f], sqlite3_column_int64(st, 0),
                                      sqlite3_column_int64(st, 1)};
            r->start = sqlite3_column_int64(st, 2);
            r->end = sqlite3_column_int64(st, 3);
            r->corr =
                sqlite3_column_type(st, 4) == SQLITE_NULL ? NONE : sqlite3_column_int64(st, 4);
            int64_t k = sqlite3_column_int64(st, 5);
            /* never out of range from the loader (kernel ids are interned); t->ks bound */
            r->kernel = (uint32_t)(k < 0 || k >= nks ? 0 : k);
            r->lane = TupleIds_id(lanes, lane);
        }
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
            return Error_set(err, DCU_ERR_SQL, "timeline: %s",
                             sqlite3_errmsg(TraceDb_handle(db)));
        }
    }
    return DCU_OK;
}

/* Launch (host) times of one file's API calls, by correlation id. */
typedef struct Launch_ {
    int64_t corr, start;
} Launch;

static int by_corr(const void* a, const void* b) {
    return cmp64(((const Launch*)a)->corr, ((const Launch*)b)->corr);
}

static Launch* read_launches(TraceDb* db, int64_t file, int64_t* n) {
    *n = 0;
    sqlite3_stmt* st = NULL;
    Launch* v = NULL;
    size_t cap = 0;
    if (TraceDb_prepareCached(db,
                        "SELECT corr_id, start_ns FROM api_call WHERE file_id = ?1"
                        " AND corr_id IS NOT NULL AND start_ns IS NOT NULL",
                        &st, NULL) != DCU_OK) {
        return NULL;
    }
    sqlite3_bind_int64(st, 1, file);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if ((size_t)*n == cap) {
            cap = cap ? cap * 2 : 1024;
            v = xrealloc(v, sizeof(Launch) * cap);
        }
        v[*n].corr = sqlite3_column_int64(st, 0);
        v[*n].start = sqlite3_column_int64(st, 1);
        (*n)++;
    }
    TraceDb_release(db, st);
    /* read through the index on (file_id, corr_id), they come sorted: the check spares a
     * sort of a million rows (0.5% of a Kineto report); glibc's qsort here is a stable
     * merge sort, so it would leave sorted rows as they are */
    int64_t i = 1;
    while (i < *n && v[i - 1].corr <= v[i].corr) {
        i++;
    }
    if (i < *n) {
        qsort(v, (size_t)*n, sizeof(Launch), by_corr);
    }
    return v;
}

static int64_t launch_of(const Launch* v, int64_t n, int64_t corr) {
    if (corr == NONE) {
        return NONE;
    }
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid].corr == corr) {
            return v[mid].start;
        }
        if (v[mid].corr < corr) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return NONE;
}

/* ---- iterations ----------------------------------------------------------------------- */

static Iter* add_iter(Timeline* t, int64_t file, int index, const char* name, IterSource src,
                      int64_t run_start) {
    if (t->nit == t->capit) {
        t->capit = t->capit ? t->capit * 2 : 16;
        t->it = xrealloc(t->it, sizeof(Iter) * (size_t)t->capit);
    }
    Iter* it = &t->it[t->nit++];
    memset(it, 0, sizeof(*it));
    it->file = file;
    it->index = index;
    snprintf(it->name, sizeof(it->name), "%s", name);
    it->source = src;
    it->first_start = NONE;
    it->last_end = NONE;
    it->run_start = run_start;
    return it;
}

static void iter_add(Iter* it, const TRow* r) {
    it->dispatches++;
    it->kernel_ns += r->end - r->start;
    if (it->first_start == NONE || r->start < it->first_start) {
        it->first_start = r->start;
    }
    if (it->last_end == NONE || r->end > it->last_end) {
        it->last_end = r->end;
    }
}

typedef struct Step_ {
    int64_t start, end;
    char name[64];
} Step;

/* ProfilerStep#N ranges of a file in one domain (ANNOTATION: the host range; GPU_ANNOTATION:
 * Kineto's gpu_user_annotation, the step's span on the device), by start. */
static Step* read_steps_in(TraceDb* db, int64_t file, const char* domain, int* n) {
    *n = 0;
    sqlite3_stmt* st = NULL;
    Step* v = NULL;
    int cap = 0;
    if (TraceDb_prepareCached(db,
                        "SELECT start_ns, end_ns, name FROM range WHERE file_id = ?1"
                        " AND domain = ?2 AND name LIKE 'ProfilerStep#%'"
                        " AND start_ns IS NOT NULL ORDER BY start_ns",
                        &st, NULL) != DCU_OK) {
        return NULL;
    }
    sqlite3_bind_int64(st, 1, file);
    sqlite3_bind_text(st, 2, domain, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            v = xrealloc(v, sizeof(Step) * (size_t)cap);
        }
        v[*n].start = sqlite3_column_int64(st, 0);
        v[*n].end = sqlite3_column_int64(st, 1);
        snprintf(v[*n].name, sizeof(v[*n].name), "%s", (const char*)sqlite3_column_text(st, 2));
        (*n)++;
    }
    TraceDb_release(db, st);
    return v;
}

/* The step whose range [start, end] holds 'at' (-1: none). */
static int step_holding(const Step* steps, int nsteps, int64_t at) {
    int hit = -1;
    int lo = 0, hi = nsteps - 1;
    while (lo <= hi) { /* last step starting at or before 'at' */
        int mid = (lo + hi) / 2;
        if (steps[mid].start <= at) {
            hit = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return hit >= 0 && at <= steps[hit].end ? hit : -1;
}

/* The host step of that name (-1: none). */
static int step_named(const Step* steps, int nsteps, const char* name) {
    for (int k = 0; k < nsteps; k++) {
        if (strcmp(steps[k].name, name) == 0) {
            return k;
        }
    }
    return -1;
}

/* A dispatch belongs to the step whose host range holds its launch (the runtime call with its
 * correlation id); a dispatch without a launch in the trace, to the step whose
 * gpu_user_annotation holds its start, where Kineto wrote one; else it is outside. Never by
 * the GPU start against the host range: the device runs behind the host, so that would pull
 * the previous step's tail (and warm-up kernels) into a step. */
static void iterations_annotated(Timeline* t, const TRow* r, int64_t n, Run* run,
                                 const Step* steps, int nsteps) {
    int64_t nl;
    Launch* l = read_launches(t->db, run->file, &nl);
    int ngpu = 0;
    Step* gpu = read_steps_in(t->db, run->file, "GPU_ANNOTATION", &ngpu);
    int base = t->nit;
    for (int k = 0; k < nsteps; k++) {
        add_iter(t, run->file, k + 1, steps[k].name, ITER_ANNOTATION, run->first);
    }
    Iter* outside = NULL;
    for (int64_t i = 0; i < n; i++) {
        int64_t at = launch_of(l, nl, r[i].corr);
        int hit = -1;
        if (at != NONE) {
            hit = step_holding(steps, nsteps, at);
        } else {
            int g = step_holding(gpu, ngpu, r[i].start);
            hit = g >= 0 ? step_named(steps, nsteps, gpu[g].name) : -1;
        }
        if (hit >= 0) {
            iter_add(&t->it[base + hit], &r[i]);
        } else {
            if (!outside) {
                outside = add_iter(t, run->file, 0, "outside ProfilerStep ranges",
                                   ITER_ANNOTATION, run->first);
            }
            iter_add(outside, &r[i]);
        }
    }
    run->cut = nsteps >= 2 ? steps[1].start : NONE;
    free(gpu);
    free(l);
}

static int by_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* The first index from which the kernel sequence repeats with period g: the first window
 * [i, i + g) equal to the next one (else the first one >= 90% equal; else 0). */
static int64_t repeat_start(const TRow* r, int64_t n, int64_t g) {
    if (n < 2 * g) {
        return 0;
    }
    int64_t lim = n - 2 * g, same = 0, first90 = -1;
    for (int64_t q = 0; q < g; q++) {
        same += r[q].kernel == r[q + g].kernel;
    }
    for (int64_t i = 0;; i++) {
        if (same == g) {
            return i;
        }
        if (first90 < 0 && same * 10 >= g * 9) {
            first90 = i;
        }
        if (i == lim) {
            break;
        }
        same += (r[i + g].kernel == r[i + 2 * g].kernel) - (r[i].kernel == r[i + g].kernel);
    }
    return first90 > 0 ? first90 : 0;
}

/* Where iteration 1 starts (what comes before is the warm-up prefix, shown apart): the first
 * dispatch when the sequence repeats from there; else, from the first repeating window, the phase of the period whose launch gaps have the largest median
 * (host work between steps). A median, not a sum: the one long gap after a warm-up (llama.cpp
 * rocpd: 9.3 ms before dispatch 98) must not outweigh a gap every iteration has. */
static int64_t iteration_start(const TRow* r, int64_t n, int64_t g) {
    int64_t s0 = repeat_start(r, n, g);
    if (s0 == 0) {
        return 0; /* it repeats from the first dispatch: the trace starts with an iteration */
    }
    int64_t* v = xmalloc(sizeof(int64_t) * (size_t)(n / g + 1));
    int64_t best = s0, best_med = -1;
    for (int64_t o = s0; o < s0 + g && o + g < n; o++) {
        int64_t m = 0;
        for (int64_t i = o; i < n; i += g) {
            int64_t gap = i > 0 ? r[i].start - r[i - 1].end : 0;
            v[m++] = gap > 0 ? gap : 0;
        }
        qsort(v, (size_t)m, sizeof(int64_t), by_i64);
        /* twice the median, so an even count needs no division */
        int64_t med2 = m % 2 ? 2 * v[m / 2] : v[m / 2 - 1] + v[m / 2];
        if (med2 > best_med) {
            best_med = med2;
            best = o;
        }
    }
    free(v);
    return best;
}

/* The positions in r of each candidate anchor (detect_period): one pass over the rows for
 * all of them, in parts (parallel.h), not a pass per candidate tried (up to 16 over ten
 * million rows); each part lists its own, and the lists join in part order. */
enum { MAX_ANCHORS = 16 }; /* candidate anchors tried */

typedef struct {
    const TRow* r;
    const signed char* which; /* per kernel id: its candidate, -1 none */
    int nc;
    int64_t** pos;            /* parts x nc lists */
    int64_t* len;             /* parts x nc */
} Anchors;

static void anchors_part(void* ctx, int part, int64_t lo, int64_t hi) {
    Anchors* x = ctx;
    int64_t** pos = x->pos + (size_t)part * x->nc;
    int64_t* len = x->len + (size_t)part * x->nc;
    int64_t cap[MAX_ANCHORS] = {0};
    for (int64_t i = lo; i < hi; i++) {
        int c = x->which[x->r[i].kernel];
        if (c >= 0) {
            if (len[c] == cap[c]) {
                cap[c] = cap[c] ? 2 * cap[c] : 256;
                pos[c] = xrealloc(pos[c], sizeof(int64_t) * (size_t)cap[c]);
            }
            pos[c][len[c]++] = i;
        }
    }
}

static int64_t** anchor_positions(const TRow* r, int64_t n, const int64_t* cand, int nc,
                                  int64_t max_kernel) {
    signed char* which = xmalloc((size_t)max_kernel + 1);
    memset(which, -1, (size_t)max_kernel + 1);
    for (int c = 0; c < nc; c++) {
        which[cand[c]] = (signed char)c;
    }
    int parts = Parallel_parts(n, 1 << 18);
    Anchors x = {r, which, nc, xcalloc((size_t)parts * (size_t)nc + 1, sizeof(int64_t*)),
                 xcalloc((size_t)parts * (size_t)nc + 1, sizeof(int64_t))};
    Parallel_for(n, parts, anchors_part, &x);
    int64_t** out = xcalloc((size_t)nc + 1, sizeof(int64_t*));
    for (int c = 0; c < nc; c++) {
        int64_t total = 0;
        for (int p = 0; p < parts; p++) {
            total += x.len[(size_t)p * nc + c];
        }
        out[c] = xmalloc(sizeof(int64_t) * (size_t)(total ? total : 1));
        total = 0;
        for (int p = 0; p < parts; p++) {
            int64_t l = x.len[(size_t)p * nc + c];
            if (l > 0) {
                memcpy(out[c] + total, x.pos[(size_t)p * nc + c], sizeof(int64_t) * (size_t)l);
            }
            total += l;
            free(x.pos[(size_t)p * nc + c]);
        }
    }
    free(x.pos);
    free(x.len);
    free(which);
    return out;
}

static void free_positions(int64_t** at, int nc) {
    for (int c = 0; c < nc; c++) {
        free(at[c]);
    }
    free(at);
}

typedef struct { /* per part, each kernel's dispatches and first position in it */
    const TRow* r;
    int64_t nk;
    int64_t *cnt, *first; /* parts x nk */
} KernelCount;

static void count_part(void* ctx, int part, int64_t lo, int64_t hi) {
    KernelCount* x = ctx;
    int64_t* cnt = x->cnt + (size_t)part * (size_t)x->nk;
    int64_t* first = x->first + (size_t)part * (size_t)x->nk;
    for (int64_t k = 0; k < x->nk; k++) {
        first[k] = -1;
    }
    for (int64_t i = lo; i < hi; i++) {
        uint32_t k = x->r[i].kernel;
        first[k] = first[k] < 0 ? i : first[k];
        cnt[k]++;
    }
}

static int by_first(const void* a, const void* b) {
    const int64_t *x = a, *y = b; /* (first position, kernel) */
    return cmp64(x[0], y[0]);
}

/* cnt and firstpos of the kernels of r[0..n) (the others' left as they are), counted in
 * parts; the kernels seen, (first position, kernel) pairs in the order they first appear. */
static int64_t* kernel_counts(const TRow* r, int64_t n, int64_t* cnt, int64_t* firstpos,
                              int64_t max_kernel, int64_t* nseen) {
    int64_t nk = max_kernel + 1;
    int parts = Parallel_parts(n, nk * 4 > (1 << 18) ? nk * 4 : (1 << 18));
    KernelCount x = {r, nk, xcalloc((size_t)parts * (size_t)nk, sizeof(int64_t)),
                     xmalloc((size_t)parts * (size_t)nk * sizeof(int64_t))};
    Parallel_for(n, parts, count_part, &x);
    int64_t* seen = xmalloc((size_t)nk * 2 * sizeof(int64_t));
    *nseen = 0;
    for (int64_t k = 0; k < nk; k++) {
        int64_t c = 0, f = -1;
        for (int p = 0; p < parts; p++) { /* parts in order: the first part seeing k */
            c += x.cnt[(size_t)p * (size_t)nk + (size_t)k];
            f = f < 0 ? x.first[(size_t)p * (size_t)nk + (size_t)k] : f;
        }
        if (c > 0) {
            cnt[k] = c;
            firstpos[k] = f;
            seen[2 * *nseen] = f;
            seen[2 * (*nseen)++ + 1] = k;
        }
    }
    qsort(seen, (size_t)*nseen, 2 * sizeof(int64_t), by_first);
    free(x.cnt);
    free(x.first);
    return seen;
}

/* A repeating kernel sequence (see timeline.h). Returns 1 and fills the boundaries (indices
 * into r where iterations 2..m start) and *first (where iteration 1 starts; the dispatches
 * before it are the warm-up prefix) when found. */
static int detect_period(const TRow* r, int64_t n, int64_t* cnt, int64_t* firstpos,
                         int64_t max_kernel, int64_t** bounds, int* nb, int64_t* period,
                         int64_t* first) {
    *bounds = NULL;
    *nb = 0;
    *first = 0;
    if (n < 4) {
        return 0;
    }
    int64_t nseen;
    int64_t* seen = kernel_counts(r, n, cnt, firstpos, max_kernel, &nseen);
    /* candidate anchors: kernels seen at least twice, rarest first (then earliest) */
    int64_t cand[MAX_ANCHORS];
    int nc = 0;
    for (int64_t q = 0; q < nseen; q++) {
        int64_t k = seen[2 * q + 1];
        if (cnt[k] < 2) {
            continue;
        }
        /* insert into cand sorted by (count, firstpos), keep the MAX_ANCHORS best */
        int pos = nc;
        while (pos > 0 && cnt[cand[pos - 1]] > cnt[k]) {
            pos--;
        }
        if (pos >= MAX_ANCHORS) {
            continue;
        }
        if (nc < MAX_ANCHORS) {
            nc++;
        }
        memmove(&cand[pos + 1], &cand[pos], sizeof(int64_t) * (size_t)(nc - 1 - pos));
        cand[pos] = k;
    }
    free(seen);
    int64_t** anchor = anchor_positions(r, n, cand, nc, max_kernel);
    for (int ci = 0; ci < nc; ci++) {
        int64_t k = cand[ci], m = cnt[k];
        const int64_t* p = anchor[ci];
        int64_t g = p[m - 1] - p[m - 2];
        int ok = g >= 2 && p[1] - p[0] >= g && m * g >= n / 2;
        for (int64_t j = 1; ok && j + 1 < m; j++) {
            ok = p[j + 1] - p[j] == g;
        }
        if (!ok) {
            continue;
        }
        /* the windows of the steady iterations (the first too when there are only two)
         * must hold the same kernels */
        int64_t same = 0, total = 0;
        for (int64_t j = (m >= 3 ? 2 : 1); j < m; j++) {
            for (int64_t q = 0; q < g && p[j] + q < n; q++) {
                total++;
                same += r[p[j] + q].kernel == r[p[j - 1] + q].kernel;
            }
        }
        if (total < g * 9 / 10 || same * 10 < total * 9) {
            continue;
        }
        *first = iteration_start(r, n, g);
        /* a tail of less than half a period joins the last iteration */
        for (int64_t at = *first + g; at < n && 2 * (n - at) >= g; at += g) {
            if (!*bounds) {
                *bounds = xmalloc(sizeof(int64_t) * (size_t)(n / g + 1));
            }
            (*bounds)[(*nb)++] = at;
        }
        if (*nb == 0) {
            continue; /* less than two whole periods after the warm-up */
        }
        *period = g;
        free_positions(anchor, nc);
        return 1;
    }
    free_positions(anchor, nc);
    return 0;
}

static void iterations_detected(Timeline* t, const TRow* r, int64_t n, Run* run, int64_t* cnt,
                                int64_t* firstpos, int64_t max_kernel) {
    int64_t* b = NULL;
    int nb = 0;
    int64_t period = 0, from = 0;
    if (!detect_period(r, n, cnt, firstpos, max_kernel, &b, &nb, &period, &from)) {
        return;
    }
    if (from > 0) { /* the warm-up prefix, apart from the iterations and the cold start */
        Iter* w = add_iter(t, run->file, 0, "warm-up (before iteration 1)", ITER_DETECTED,
                           run->first);
        for (int64_t i = 0; i < from; i++) {
            iter_add(w, &r[i]);
        }
        run->s.warmup_dispatches += from;
    }
    for (int k = 0; k <= nb; k++) {
        int64_t to = k < nb ? b[k] : n;
        char name[32];
        snprintf(name, sizeof(name), "iteration %d", k + 1);
        Iter* it = add_iter(t, run->file, k + 1, name, ITER_DETECTED, run->first);
        for (int64_t i = from; i < to; i++) {
            iter_add(it, &r[i]);
        }
        from = to;
    }
    if (run->s.iter_period == 0) {
        run->s.iter_period = period;
    }
    /* steady state from the host launch of the second iteration's first kernel */
    int64_t nl;
    Launch* l = read_launches(t->db, run->file, &nl);
    int64_t at = launch_of(l, nl, r[b[0]].corr);
    run->cut = at != NONE ? at : r[b[0]].start;
    free(l);
    free(b);
}

/* ---- building -------------------------------------------------------------------------- */

static void top_gap(Timeline* t, const Gap* g) {
    int n = t->ngaps;
    if (n == TIMELINE_TOP_GAPS && g->gap <= t->gaps[n - 1].gap) {
        return;
    }
    int pos = n < TIMELINE_TOP_GAPS ? n : n - 1;
    while (pos > 0 && t->gaps[pos - 1].gap < g->gap) {
        if (pos < TIMELINE_TOP_GAPS) {
            t->gaps[pos] = t->gaps[pos - 1];
        }
        pos--;
    }
    t->gaps[pos] = *g;
    if (n < TIMELINE_TOP_GAPS) {
        t->ngaps++;
    }
}

static DcuStatus write_cuts(Timeline* t, DcuError* err) {
    DcuStatus s = TraceDb_exec(t->db,
                               "CREATE TEMP TABLE IF NOT EXISTS timeline_cut("
                               "file_id INTEGER PRIMARY KEY, cut_ns INTEGER NOT NULL);"
                               "DELETE FROM temp.timeline_cut;",
                               err);
    if (s != DCU_OK) {
        return s;
    }
    /* a cut of kernel file K applies to every file of the same run: API and copy traces
     * often sit in other files */
    sqlite3_stmt* st = NULL;
    s = TraceDb_prepare(t->db,
                        "INSERT OR REPLACE INTO temp.timeline_cut(file_id, cut_ns)"
                        " SELECT fb.id, min(coalesce((SELECT cut_ns FROM temp.timeline_cut c"
                        "   WHERE c.file_id = fb.id), ?2), ?2)"
                        " FROM source_file fa JOIN source_file fb ON fb.run_id = fa.run_id"
                        " WHERE fa.id = ?1 GROUP BY fb.id",
                        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    for (int i = 0; i < t->nruns; i++) {
        if (t->runs[i].cut == NONE) {
            continue;
        }
        sqlite3_bind_int64(st, 1, t->runs[i].file);
        sqlite3_bind_int64(st, 2, t->runs[i].cut);
        if (sqlite3_step(st) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "timeline: %s", sqlite3_errmsg(TraceDb_handle(t->db)));
            break;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return s;
}

static Run* run_by_id(Timeline* t, int64_t id) {
    for (int i = 0; i < t->nruns; i++) {
        if (t->runs[i].id == id) {
            return &t->runs[i];
        }
    }
    return NULL;
}

/* Host<->device copies after each run's cut, per run and in all. */
static DcuStatus steady_copies(Timeline* t, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        t->db,
        "SELECT f.run_id, regexp('(?i)HtoD|HostToDevice|H2D|HOST_TO_DEVICE', c.name),"
        " regexp('(?i)DtoH|DeviceToHost|D2H|DEVICE_TO_HOST', c.name),"
        " count(*), CAST(total(c.bytes) AS INTEGER)"
        " FROM copy c JOIN temp.timeline_cut k ON k.file_id = c.file_id"
        " JOIN source_file f ON f.id = c.file_id"
        " WHERE c.start_ns >= k.cut_ns"
        "  AND c.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"
        " GROUP BY 1, 2, 3",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        Run* run = run_by_id(t, sqlite3_column_int64(st, 0));
        TimelineSummary* rs[2] = {&t->s, run ? &run->s : NULL};
        for (int k = 0; k < 2 && rs[k]; k++) {
            if (sqlite3_column_int(st, 1)) {
                rs[k]->steady_h2d += sqlite3_column_int64(st, 3);
                rs[k]->steady_h2d_bytes += sqlite3_column_int64(st, 4);
            } else if (sqlite3_column_int(st, 2)) {
                rs[k]->steady_d2h += sqlite3_column_int64(st, 3);
                rs[k]->steady_d2h_bytes += sqlite3_column_int64(st, 4);
            }
        }
    }
    sqlite3_finalize(st);
    return DCU_OK;
}

/* Whether each run's kernel data came from a PMC run (its timings are distorted). */
static void run_flags(Timeline* t) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(t->db, "SELECT mode = 'pmc' FROM run WHERE id = ?1", &st, NULL) !=
        DCU_OK) {
        return;
    }
    for (int i = 0; i < t->nruns; i++) {
        sqlite3_bind_int64(st, 1, t->runs[i].id);
        t->runs[i].s.pmc = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
}

/* Dispatch counts and short kernels of rows r[0..n) into s (and per kernel into t->ks). */
/* One pass over a run's rows in parts (as they come, before the sort: sums and a maximum do
 * not depend on the order): whether they are in by_run order, their latest end, the counts
 * of count_rows. Each part into its own; the merge adds int64s, the same whatever the parts. */
typedef struct {
    int unsorted; /* a row before the part's end is out of by_run order */
    int64_t last; /* the latest end */
    TimelineSummary s;
    KShort* ks; /* per kernel; part 0: Timeline ks itself */
} RowsPart;

typedef struct {
    const TRow* r;
    int64_t nks;
    RowsPart* p;
} RowsPass;

static void rows_part(void* ctx, int part, int64_t lo, int64_t hi) {
    RowsPass* x = ctx;
    RowsPart* p = &x->p[part];
    const TRow* r = x->r;
    p->last = r[lo].end;
    for (int64_t i = lo; i < hi; i++) {
        p->unsorted |= i > 0 && by_run(&r[i - 1], &r[i]) > 0;
        p->last = r[i].end > p->last ? r[i].end : p->last;
        int64_t d = r[i].end - r[i].start;
        KShort* k = &p->ks[r[i].kernel];
        k->calls++;
        k->ns += d;
        p->s.dispatches++;
        p->s.kernel_ns += d;
        if (d < TIMELINE_SHORT_NS) {
            k->short_calls++;
            k->short_ns += d;
            p->s.short_dispatches++;
            p->s.short_ns += d;
        }
    }
}

/* Counts the rows r[0..n) (n > 0) into t's kernels and s, sorts them by_run unless they are;
 * their latest end. */
static int64_t count_rows(Timeline* t, TRow* r, int64_t n, TimelineSummary* s) {
    int parts = Parallel_parts(n, t->nks * 4 > 65536 ? t->nks * 4 : 65536);
    RowsPass x = {r, t->nks, xcalloc((size_t)parts, sizeof(RowsPart))};
    for (int p = 0; p < parts; p++) {
        x.p[p].ks = p ? xcalloc((size_t)t->nks + 1, sizeof(KShort)) : t->ks;
    }
    Parallel_for(n, parts, rows_part, &x);
    int64_t last = x.p[0].last;
    int unsorted = 0;
    for (int p = 0; p < parts; p++) {
        const RowsPart* q = &x.p[p];
        unsorted |= q->unsorted;
        last = q->last > last ? q->last : last;
        s->dispatches += q->s.dispatches;
        s->kernel_ns += q->s.kernel_ns;
        s->short_dispatches += q->s.short_dispatches;
        s->short_ns += q->s.short_ns;
        for (int64_t k = 0; p && k < t->nks; k++) {
            t->ks[k].calls += q->ks[k].calls;
            t->ks[k].ns += q->ks[k].ns;
            t->ks[k].short_calls += q->ks[k].short_calls;
            t->ks[k].short_ns += q->ks[k].short_ns;
        }
        if (p) {
            free(q->ks);
        }
    }
    free(x.p);
    if (unsorted) {
        qsort(r, (size_t)n, sizeof(TRow), by_run);
    }
    return last;
}

/* The iterations of one run (rows in start order): the first vs the others. */
static void run_iterations(Timeline* t, const TRow* r, int64_t n, Run* run, int64_t* cnt,
                           int64_t* firstpos, int64_t max_kernel) {
    TimelineSummary* s = &run->s;
    int nsteps = 0;
    Step* steps = read_steps_in(t->db, run->file, "ANNOTATION", &nsteps);
    int before = t->nit;
    if (nsteps > 0) {
        iterations_annotated(t, r, n, run, steps, nsteps);
    } else {
        iterations_detected(t, r, n, run, cnt, firstpos, max_kernel);
    }
    free(steps);
    if (t->nit > before) {
        s->iter_source = t->it[before].source;
        if (!t->it_at) {
            t->it_at = I64Map_new();
        }
        I64Map_put(t->it_at, run->file, before + 1);
    }
    int64_t steady_n = 0;
    double steady_ns = 0, steady_span = 0;
    for (int i = before; i < t->nit; i++) {
        const Iter* it = &t->it[i];
        if (it->index == 0) {
            continue; /* the 'outside steps' row */
        }
        s->iterations++;
        int64_t span = it->dispatches ? it->last_end - it->first_start : 0;
        if (it->index == 1) {
            s->first_iter_ns += it->kernel_ns;
            s->first_iter_span_ns += span;
        } else {
            steady_n++;
            steady_ns += (double)it->kernel_ns;
            steady_span += (double)span;
        }
    }
    if (steady_n > 0) {
        s->steady_iter_ns = steady_ns / (double)steady_n;
        s->steady_iter_span_ns = steady_span / (double)steady_n;
        if (s->steady_iter_span_ns > 0) {
            s->cold_ratio = (double)s->first_iter_span_ns / s->steady_iter_span_ns;
        }
    }
}

/* Adds a device's idle gaps to a summary's buckets (the run's, and the whole's). */
static void add_idle(TimelineSummary* s, const GapBuckets* idle) {
    for (int b = 0; b <= idle->nbounds; b++) {
        s->idle_buckets.count[b] += idle->count[b];
        s->idle_buckets.total_ns[b] += idle->total_ns[b];
        s->idle_gaps += idle->count[b];
    }
}

/* The next interval of a device in start order: its kernels r[*i..n) or its copies
 * c[*k..nc) (those of no length are skipped; all lie in the run's wall, which they widen).
 * 0 when none is left. */
static int next_busy(const TRow* r, int64_t* i, int64_t n, const Busy* c, int64_t* k,
                     int64_t nc, int64_t* s, int64_t* e) {
    int64_t cs = 0, ce = 0;
    for (; *k < nc; (*k)++) {
        cs = c[*k].start;
        ce = c[*k].end;
        if (ce > cs) {
            break;
        }
    }
    int copy = *k < nc && (*i >= n || cs < r[*i].start);
    if (!copy && *i >= n) {
        return 0;
    }
    if (copy) {
        *s = cs;
        *e = ce;
        (*k)++;
    } else {
        *s = r[*i].start;
        *e = r[*i].end;
        (*i)++;
    }
    return 1;
}

/* Busy time and idle gaps of one device: the union of its kernels r[0..n) and its copies
 * c[0..nc) (both in start order) inside the run's wall [lo, hi]. A device with neither
 * (copies of no length only) is idle all along. */
static void device_union(Device* d, const TRow* r, int64_t n, const Busy* c, int64_t nc,
                         const Run* run) {
    int64_t i = 0, k = 0, s, e, cs, ce;
    if (!next_busy(r, &i, n, c, &k, nc, &cs, &ce)) {
        GapBuckets_add(&d->idle, run->hi - run->lo);
        return;
    }
    GapBuckets_add(&d->idle, cs - run->lo);
    while (next_busy(r, &i, n, c, &k, nc, &s, &e)) {
        if (s > ce) {
            d->busy += ce - cs;
            GapBuckets_add(&d->idle, s - ce);
            cs = s;
            ce = e;
        } else if (e > ce) {
            ce = e;
        }
    }
    d->busy += ce - cs;
    GapBuckets_add(&d->idle, run->hi - ce);
}

/* The union of the kernels r[0..n) (in start order); 0 for none. */
static int64_t kernel_union(const TRow* r, int64_t n) {
    if (n == 0) {
        return 0;
    }
    int64_t busy = 0, cs = r[0].start, ce = r[0].end;
    for (int64_t i = 1; i < n; i++) {
        if (r[i].start > ce) {
            busy += ce - cs;
            cs = r[i].start;
            ce = r[i].end;
        } else if (r[i].end > ce) {
            ce = r[i].end;
        }
    }
    return busy + ce - cs;
}

/* Busy time and idle gaps per device of one run (rows by_device; c[0..nc): the run's copies
 * by gpu and start). A device is busy while a kernel, memset or copy runs on it, whatever the
 * stream (HTA counts memsets and copies too); a gap runs from the latest end so far to the
 * next start; with the idle time before the device's first activity and after its last one
 * in the run, a device's gaps add up to wall - busy. The wall is the run's [lo, hi] (first
 * busy start to last busy end, copies included); a device that ran only copies is listed
 * too (no dispatches, no kernel time). */
static void run_devices(Timeline* t, const TRow* r, int64_t n, const Busy* c, int64_t nc,
                        Run* run) {
    run->s.idle_buckets = t->buckets;
    int64_t i = 0, k = 0;
    while (i < n || k < nc) {
        Device d;
        memset(&d, 0, sizeof(d));
        int kern = i < n && (k >= nc || row_v(t, &r[i], LN_GPU) <= c[k].gpu);
        d.file = kern ? row_v(t, &r[i], LN_FILE) : c[k].file;
        d.gpu = kern ? row_v(t, &r[i], LN_GPU) : c[k].gpu;
        d.span = run->hi - run->lo;
        d.idle = t->buckets;
        int64_t j = i, k1 = k;
        while (j < n && row_v(t, &r[j], LN_GPU) == d.gpu) {
            d.dispatches++;
            d.kernel_ns += r[j].end - r[j].start;
            j++;
        }
        while (k1 < nc && c[k1].gpu == d.gpu) {
            k1++;
        }
        device_union(&d, r + i, j - i, c + k, k1 - k, run);
        t->kernel_busy += kernel_union(r + i, j - i);
        add_idle(&run->s, &d.idle);
        add_idle(&t->s, &d.idle);
        if (t->ndev == t->capdev) { /* doubled: one more per device copied them all */
            t->capdev = t->capdev ? 2 * t->capdev : 16;
            t->dev = xrealloc(t->dev, sizeof(Device) * (size_t)t->capdev);
        }
        t->dev[t->ndev++] = d;
        run->s.devices++;
        run->s.wall_ns += d.span;
        run->s.busy_ns += d.busy;
        i = j;
        k = k1;
    }
}

/* The median of v[0..n) (reordered), the mean of the two middle values for an even count,
 * rounded to the nearest ns (halves up: values are >= 0). */
static int64_t median(int64_t* v, int64_t n) {
    if (Parallel_parts(n, 1 << 16) > 1) { /* 10M gaps: 0.1 s of quickselect on one thread */
        int64_t top = Kth_select(v, n, n / 2);
        return MedianSpill_middle(n % 2 ? top : Kth_select(v, n, n / 2 - 1), top);
    }
    int64_t hi = MedianSpill_kth(v, n, n / 2);
    return MedianSpill_middle(n % 2 ? hi : MedianSpill_kth(v, n, n / 2 - 1), hi);
}

/* ---- launch gaps ------------------------------------------------------------------------
 * Launch gaps per stream of one run. A gap is measured from the latest end so far on the
 * stream, not the previous kernel's end: a kernel overlapping a longer one on its stream
 * leaves no gap behind it. The rows are not moved into stream order (moving ten million
 * rows of 32 bytes by cycles was a sixth of a 10M report): one pass over them in the run's
 * order keeps each stream's state apart, which is the same walk as stream by stream, as
 * each stream's rows already lie in start order (sorted by_run, and a stable grouping keeps
 * that order). With several parts, a first pass folds each part's streams, the folds are
 * chained in part order to give each part the state its streams start from, and a second
 * pass measures the gaps: the figures are those of one pass whatever the part count. */

typedef struct { /* a stream so far: its latest end and the kernel that set it */
    int64_t latest, kernel;
    int seen;
} StreamAt;

typedef struct { /* a gap and its place in stream order (group, row): the top's tie order */
    int64_t gap, at, before, after, pos;
    uint32_t grp, lane;
} GapAt;

typedef struct {
    int64_t n, ns, max;
    GapAt top[TIMELINE_TOP_GAPS];
    int ntop;
} PartGaps;

typedef struct {
    const TRow* r;
    const uint32_t* gs; /* per lane: its (gpu, stream) rank */
    uint32_t ngs;
    int64_t first;      /* the run's first start: gaps' at are relative to it */
    StreamAt* at;       /* per part, ngs each: its own fold (pass 1), then its start state */
    int64_t* off;       /* per part: where its gaps go in gaps[] */
    int64_t* gaps;
    PartGaps* out;
} GapPass;

/* In stream order, a before b: larger gap first, then the earlier stream, then the earlier
 * row (the order one walk stream by stream inserts them in). */
static int gap_before(const GapAt* a, const GapAt* b) {
    if (a->gap != b->gap) {
        return a->gap > b->gap;
    }
    return a->grp != b->grp ? a->grp < b->grp : a->pos < b->pos;
}

static void gap_keep(GapAt* top, int* n, const GapAt* g) {
    if (*n == TIMELINE_TOP_GAPS && !gap_before(g, &top[*n - 1])) {
        return;
    }
    int pos = *n < TIMELINE_TOP_GAPS ? (*n)++ : *n - 1;
    while (pos > 0 && gap_before(g, &top[pos - 1])) {
        top[pos] = top[pos - 1];
        pos--;
    }
    top[pos] = *g;
}

/* Pass 1: each stream's latest end in the part, and the kernel of its first row that ends
 * then (a later row setting a later end replaces it; one ending at the same time does not). */
static void gaps_fold(void* ctx, int part, int64_t lo, int64_t hi) {
    const GapPass* x = ctx;
    StreamAt* at = x->at + (size_t)part * x->ngs;
    for (int64_t i = lo; i < hi; i++) {
        const TRow* r = &x->r[i];
        StreamAt* a = &at[x->gs[r->lane]];
        if (!a->seen || r->end > a->latest) {
            *a = (StreamAt){r->end, r->kernel, 1};
        }
    }
}

/* Between the passes: each part's start state is the fold of the parts before it; a part's
 * gap count is its rows less the streams whose first row it holds. Returns the streams. */
static int64_t gaps_chain(GapPass* x, int parts, int64_t n) {
    StreamAt* carry = xcalloc((size_t)x->ngs ? x->ngs : 1, sizeof(*carry));
    int64_t off = 0, streams = 0;
    for (int p = 0; p < parts; p++) {
        int64_t lo, hi, firsts = 0;
        Parallel_range(n, parts, p, &lo, &hi);
        StreamAt* at = x->at + (size_t)p * x->ngs;
        for (uint32_t k = 0; k < x->ngs; k++) {
            StreamAt own = at[k];
            at[k] = carry[k];
            if (own.seen && (!carry[k].seen || own.latest > carry[k].latest)) {
                firsts += !carry[k].seen;
                carry[k] = own;
            }
        }
        x->off[p] = off;
        off += hi - lo - firsts;
    }
    for (uint32_t k = 0; k < x->ngs; k++) {
        streams += carry[k].seen;
    }
    free(carry);
    return streams;
}

/* Pass 2: the gaps of the part's rows, from its streams' start state. */
static void gaps_emit(void* ctx, int part, int64_t lo, int64_t hi) {
    const GapPass* x = ctx;
    StreamAt* at = x->at + (size_t)part * x->ngs;
    PartGaps* o = &x->out[part];
    int64_t* gaps = x->gaps + x->off[part];
    for (int64_t i = lo; i < hi; i++) {
        const TRow* r = &x->r[i];
        uint32_t k = x->gs[r->lane];
        StreamAt* a = &at[k];
        if (!a->seen) {
            *a = (StreamAt){r->end, r->kernel, 1};
            continue;
        }
        int64_t g = r->start - a->latest;
        g = g < 0 ? 0 : g;
        GapAt ga = {g, a->latest - x->first, a->kernel, r->kernel, i, k, r->lane};
        if (r->end > a->latest) {
            a->latest = r->end;
            a->kernel = r->kernel;
        }
        gaps[o->n++] = g;
        o->ns += g;
        o->max = g > o->max ? g : o->max;
        if (g > 0) {
            gap_keep(o->top, &o->ntop, &ga);
        }
    }
}

/* The run's gaps (rows in by_run order, or grouped by device keeping it); the gap values go
 * to gaps[] (in no particular order: the run's median only reads them). */
static void run_gaps(Timeline* t, const TRow* r, int64_t n, Run* run, int64_t* gaps) {
    TimelineSummary* s = &run->s;
    uint32_t ngs = t->lanes->ngs;
    int64_t least = (int64_t)ngs * 4 > 65536 ? (int64_t)ngs * 4 : 65536;
    int parts = Parallel_parts(n, least);
    GapPass x = {r, t->lanes->gs, ngs, run->first,
                 xcalloc((size_t)parts * ngs + 1, sizeof(StreamAt)),
                 xcalloc((size_t)parts, sizeof(int64_t)), gaps,
                 xcalloc((size_t)parts, sizeof(PartGaps))};
    if (parts > 1) {
        Parallel_for(n, parts, gaps_fold, &x);
        s->streams += (int)gaps_chain(&x, parts, n);
        Parallel_for(n, parts, gaps_emit, &x);
    } else {
        gaps_emit(&x, 0, 0, n);
        for (uint32_t k = 0; k < ngs; k++) {
            s->streams += x.at[k].seen;
        }
    }
    GapAt top[TIMELINE_TOP_GAPS];
    int ntop = 0;
    for (int p = 0; p < parts; p++) { /* merged in part order: the sums are exact */
        s->gaps += x.out[p].n;
        s->gap_ns += x.out[p].ns;
        s->gap_max_ns = x.out[p].max > s->gap_max_ns ? x.out[p].max : s->gap_max_ns;
        for (int i = 0; i < x.out[p].ntop; i++) {
            gap_keep(top, &ntop, &x.out[p].top[i]);
        }
    }
    for (int i = 0; i < ntop; i++) { /* in stream order: ties rank as the walk ranked them */
        const GapAt* g = &top[i];
        TRow lane = {.lane = g->lane};
        Gap gp = {row_v(t, &lane, LN_FILE), row_v(t, &lane, LN_GPU), row_v(t, &lane, LN_STREAM),
                  g->gap, g->at, g->before, g->after};
        top_gap(t, &gp);
    }
    free(x.at);
    free(x.off);
    free(x.out);
    if (s->gaps > 0) {
        s->gap_mean_ns = (double)s->gap_ns / (double)s->gaps;
        s->gap_p50_ns = median(gaps, s->gaps);
    }
}

static void percentages(TimelineSummary* s) {
    s->idle_ns = s->wall_ns - s->busy_ns;
    if (s->wall_ns > 0) {
        s->idle_pct = 100.0 * (double)s->idle_ns / (double)s->wall_ns;
        s->kernel_pct_of_wall = 100.0 * (double)s->kernel_ns / (double)s->wall_ns;
    }
    if (s->dispatches > 0) {
        s->short_count_pct = 100.0 * (double)s->short_dispatches / (double)s->dispatches;
        s->short_time_pct = s->kernel_ns > 0 ? 100.0 * (double)s->short_ns / (double)s->kernel_ns
                                             : 0;
    }
}

/* Adds a run's figures to the whole. Spans, wall, busy, gaps and dispatches add up; the
 * iteration figures (first iteration, steady mean, cold ratio) are a run's own: with several
 * runs the whole keeps only the count, and each run's figures stay in its Run. */
static void add_run(TimelineSummary* all, const TimelineSummary* r, int nruns) {
    all->devices += r->devices;
    all->streams += r->streams;
    all->dispatches += r->dispatches;
    all->kernel_ns += r->kernel_ns;
    all->span_ns += r->span_ns;
    all->wall_ns += r->wall_ns;
    all->busy_ns += r->busy_ns;
    all->short_dispatches += r->short_dispatches;
    all->short_ns += r->short_ns;
    all->gaps += r->gaps;
    all->gap_ns += r->gap_ns;
    if (r->gap_max_ns > all->gap_max_ns) {
        all->gap_max_ns = r->gap_max_ns;
    }
    all->iterations += r->iterations;
    if (all->iter_source == ITER_NONE) {
        all->iter_source = r->iter_source;
    }
    if (nruns == 1) {
        all->iter_period = r->iter_period;
        all->first_iter_ns = r->first_iter_ns;
        all->first_iter_span_ns = r->first_iter_span_ns;
        all->steady_iter_ns = r->steady_iter_ns;
        all->steady_iter_span_ns = r->steady_iter_span_ns;
        all->cold_ratio = r->cold_ratio;
        all->warmup_dispatches = r->warmup_dispatches;
    }
}

/* One run's rows (any order): counted, iterations, devices, gaps; its gaps go to all. */
static void build_run(Timeline* t, int64_t id, TRow* r, int64_t n, const Busy* c, int64_t nc,
                      int64_t* cnt, int64_t* firstpos, int64_t* gaps,
                      MedianSpill* all /* NULL: one run */) {
    TimelineSummary counted;
    memset(&counted, 0, sizeof(counted));
    int64_t last = count_rows(t, r, n, &counted); /* and sorted by_run */
    if (t->nruns == t->capruns) { /* doubled: one more per run copied them all (M5) */
        t->capruns = t->capruns ? 2 * t->capruns : 16;
        t->runs = xrealloc(t->runs, sizeof(Run) * (size_t)t->capruns);
    }
    Run* run = &t->runs[t->nruns++];
    memset(run, 0, sizeof(*run));
    run->id = id;
    run->file = row_v(t, &r[0], LN_FILE);
    run->first = r[0].start;
    run->last = last;
    run->lo = run->first;
    run->hi = last;
    for (int64_t k = 0; k < nc; k++) { /* copies widen the wall (those of no length not) */
        if (c[k].end > c[k].start) {
            run->lo = c[k].start < run->lo ? c[k].start : run->lo;
            run->hi = c[k].end > run->hi ? c[k].end : run->hi;
        }
    }
    run->cut = NONE;
    run->s.available = 1;
    run->s.runs = 1;
    run->s.span_ns = run->hi - run->lo;
    run->s.dispatches = counted.dispatches;
    run->s.kernel_ns = counted.kernel_ns;
    run->s.short_dispatches = counted.short_dispatches;
    run->s.short_ns = counted.short_ns;
    run_iterations(t, r, n, run, cnt, firstpos, t->nks - 1);
    sort_grouped(r, n, t->lanes->dev, t->lanes->ndev);
    run_devices(t, r, n, c, nc, run);
    run_gaps(t, r, n, run, gaps); /* each stream's rows are in by_run order: not regrouped */
    if (all) {
        MedianSpill_add(all, gaps, run->s.gaps);
    }
    percentages(&run->s);
}

/* The memsets and copies a device of a used kernel file ran, with times (of some length): by
 * run, gpu and start (the device busy time counts them; copies are few next to dispatches). */
static Busy* read_copies(TraceDb* db, int64_t* n) {
    sqlite3_stmt* st = NULL;
    DcuError e = {0};
    Busy* b = NULL;
    size_t cap = 0;
    *n = 0;
    char* sql = xasprintf("SELECT f.run_id, x.gpu, x.start_ns, x.end_ns, x.file_id FROM copy x"
                          " JOIN source_file f ON f.id = x.file_id"
                          " WHERE x.file_id IN %s AND x.gpu IS NOT NULL"
                          " AND x.start_ns IS NOT NULL AND x.end_ns > x.start_ns"
                          " AND f.run_id IS NOT NULL ORDER BY 1, 2, 3, 4",
                          used_kernel_files);
    if (TraceDb_prepare(db, sql, &st, &e) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            if ((size_t)*n == cap) {
                cap = cap ? cap * 2 : 256;
                b = xrealloc(b, cap * sizeof(*b));
            }
            Busy* x = &b[(*n)++];
            x->run = sqlite3_column_int64(st, 0);
            x->gpu = sqlite3_column_int64(st, 1);
            x->start = sqlite3_column_int64(st, 2);
            x->end = sqlite3_column_int64(st, 3);
            x->file = sqlite3_column_int64(st, 4);
        }
    }
    sqlite3_finalize(st);
    free(sql);
    return b;
}

/* The copies of run in c[0..n) (sorted by run): *nrun of them from the returned pointer.
 * Never NULL, whatever c (NULL when there are no copies: NULL + 0 is undefined behaviour, as
 * UBSan found in the fuzz keys smoke), so callers may index and offset it freely. */
static const Busy* copies_of(const Busy* c, int64_t n, int64_t run, int64_t* nrun) {
    static const Busy none[1];
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (c[m].run < run) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    int64_t end = lo;
    while (end < n && c[end].run == run) {
        end++;
    }
    *nrun = end - lo;
    return *nrun > 0 ? c + lo : none;
}

/* Everything per run, one run in memory at a time (issue 15: a 64-rank job's timeline held
 * every rank's rows at once): the rows of one run are sorted three ways inside their own
 * slice, so no figure ever spans two runs (two clock domains). */
static DcuStatus build_runs(Timeline* t, int all_runs, DcuError* err) {
    t->nks = TraceDb_scalarInt(t->db, "SELECT coalesce(max(id), 0) FROM kernel") + 1;
    t->ks = xcalloc((size_t)t->nks, sizeof(KShort));
    int64_t* cnt = xcalloc((size_t)t->nks, sizeof(int64_t));
    int64_t* firstpos = xcalloc((size_t)t->nks, sizeof(int64_t));
    int64_t *file = NULL, *run = NULL, nfiles = 0;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceQuery_kernelFiles(t->db, all_runs, &file, &run, &nfiles, err);
    int many = nfiles > 0 && run[nfiles - 1] != run[0]; /* the job's median needs them all */
    int64_t bound = TraceDb_memory(t->db) / 1024; /* 8-byte values: memory / 128 bytes */
    MedianSpill* all = many ? MedianSpill_new(bound > 0 ? bound : INT64_MAX) : NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(t->db,
                            "SELECT coalesce(d.gpu, -1), coalesce(d.stream, d.queue, -1),"
                            " d.start_ns, d.end_ns, d.corr_id, d.kernel_id FROM dispatch d"
                            " WHERE d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL AND "
                            DISPATCH_OF_FILE("?1"),
                            &st, err);
    }
    /* asked once, not per run: a 20,000-run folder asked it 20,000 times */
    DispatchStore* store = s == DCU_OK ? DispatchScan_store(t->db) : NULL;
    TRow* r = NULL;
    RunLanes lanes = {{0}, NULL, NULL, 0, 0};
    TupleIds_init(&lanes.ids, LN_WIDTH);
    t->lanes = &lanes;
    int64_t* gaps = NULL;
    size_t cap = 0, capgaps = 0;
    int64_t ncp = 0;
    Busy* cp = s == DCU_OK ? read_copies(t->db, &ncp) : NULL;
    for (int64_t i = 0; s == DCU_OK && i < nfiles;) {
        int64_t j = i, n = 0;
        while (j < nfiles && run[j] == run[i]) {
            j++;
        }
        TupleIds_done(&lanes.ids);
        TupleIds_init(&lanes.ids, LN_WIDTH);
        s = read_rows(t->db, store, st, file + i, j - i, &lanes.ids, t->nks, &r, &n, &cap, err);
        if (s == DCU_OK && n > 0) {
            rank_lanes(&lanes);
            if (capgaps < (size_t)n) {
                capgaps = (size_t)n;
                gaps = xrealloc(gaps, sizeof(int64_t) * capgaps);
            }
            int64_t nc = 0;
            const Busy* c = copies_of(cp, ncp, run[i], &nc);
            build_run(t, run[i], r, n, c, nc, cnt, firstpos, gaps, all);
        }
        i = j;
    }
    sqlite3_finalize(st);
    free(r);
    TupleIds_done(&lanes.ids);
    free(lanes.dev);
    free(lanes.gs);
    t->lanes = NULL;
    free(cp);
    free(gaps);
    free(file);
    free(run);
    for (int k = 0; k < t->nruns; k++) {
        add_run(&t->s, &t->runs[k].s, t->nruns);
    }
    t->s.runs = t->nruns;
    percentages(&t->s);
    if (t->s.gaps > 0) {
        t->s.gap_mean_ns = (double)t->s.gap_ns / (double)t->s.gaps;
        t->s.gap_p50_ns = all ? MedianSpill_median(all) : t->runs[0].s.gap_p50_ns;
    }
    MedianSpill_delete(all);
    free(cnt);
    free(firstpos);
    return s;
}

static DcuStatus timeline_build(TraceDb* db, int all_runs, Timeline** out, DcuError* err) {
    *out = NULL;
    Timeline* t = xcalloc(1, sizeof(*t));
    t->refs = 1;
    t->db = db;
    t->all_runs = all_runs;
    TimelineSummary* s = &t->s;
    GapBuckets_load(&t->buckets, db);
    s->idle_buckets = t->buckets;
    t->total_kernel_ns =
        TraceDb_scalarInt(db, "SELECT CAST(total(total_ns) AS INTEGER) FROM kernel_summary");
    s->pmc = (int)TraceDb_scalarInt(db, "SELECT coalesce(max(f.pmc), 0) FROM source_file f"
                                        " JOIN used_file u ON u.file_id = f.id"
                                        " AND u.layer = 'kernel'");
    s->counter_values = TraceDb_scalarInt(
        db, "SELECT count(*) FROM dispatch_counter c JOIN dispatch d ON d.id = c.dispatch_id"
            " WHERE d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'counter')");
    DcuStatus st = build_runs(t, all_runs, err);
    if (st != DCU_OK) {
        Timeline_delete(t);
        return st;
    }
    s->available = t->nruns > 0;
    run_flags(t);
    if (!all_runs) { /* the steady-state cut table belongs to the scope's timeline */
        st = write_cuts(t, err);
        if (st == DCU_OK) {
            st = steady_copies(t, err);
        }
    }
    if (st != DCU_OK) {
        Timeline_delete(t);
        return st;
    }
    *out = t;
    return DCU_OK;
}

static void release_cached(void* t) {
    Timeline_delete(t);
}

/* A timeline is read-only once built, so callers share one while the database is unchanged
 * (a report asked for it twice: its timeline section and the advice). */
static DcuStatus timeline_get(TraceDb* db, int all_runs, Timeline** out, DcuError* err) {
    int slot = all_runs ? TRACEDB_CACHE_TIMELINE_ALL : TRACEDB_CACHE_TIMELINE;
    Timeline* t = TraceDb_cached(db, slot, TraceDb_state(db));
    if (t) {
        t->refs++;
        *out = t;
        return DCU_OK;
    }
    TraceDbState before = TraceDb_state(db);
    DcuStatus s = timeline_build(db, all_runs, out, err);
    if (s == DCU_OK) {
        /* the build writes only its own steady-state cut tables, which no other cached
         * value reads: those stay valid (a report read its totals again after the timeline) */
        TraceDbState after = TraceDb_state(db);
        TraceDb_keepCached(db, before, after);
        (*out)->refs++;
        TraceDb_setCached(db, slot, after, *out, release_cached);
    }
    return s;
}

DcuStatus Timeline_new(TraceDb* db, Timeline** out, DcuError* err) {
    return timeline_get(db, 0, out, err);
}

DcuStatus Timeline_newAllRuns(TraceDb* db, Timeline** out, DcuError* err) {
    return timeline_get(db, 1, out, err);
}

int Timeline_runCount(const Timeline* this) {
    return this->nruns;
}

const TimelineSummary* Timeline_runSummary(const Timeline* this, int i, int64_t* run_id) {
    if (i < 0 || i >= this->nruns) {
        return NULL;
    }
    if (run_id) {
        *run_id = this->runs[i].id;
    }
    return &this->runs[i].s;
}

void Timeline_delete(Timeline* this) {
    if (!this || --this->refs > 0) {
        return;
    }
    free(this->dev);
    free(this->it);
    I64Map_delete(this->it_at);
    free(this->runs);
    free(this->ks);
    free(this);
}

const TimelineSummary* Timeline_summary(const Timeline* this) {
    return &this->s;
}

/* ---- Amdahl basis ----------------------------------------------------------------------- */

const char* Timeline_basisLabel(AmdahlBasis b) {
    return b == AMDAHL_BASIS_WALL ? "wall time" : "device kernel time";
}

int Timeline_basisByName(const char* name) {
    if (strcmp(name, "kernel") == 0) {
        return AMDAHL_BASIS_KERNEL;
    }
    if (strcmp(name, "wall") == 0) {
        return AMDAHL_BASIS_WALL;
    }
    return -1;
}

/* Over wall time with overlapping streams (kernel time > the kernels' union), a part's share
 * is its share of kernel time times that union / wall: the parts then add up to the kernels'
 * busy share and GPU idle (less memsets and copies) to no more than the rest, never above
 * 100% (Query_basisNs does the same). */
static int64_t wall_denominator(const Timeline* this) {
    int64_t w = this->s.wall_ns, k = this->total_kernel_ns, b = this->kernel_busy;
    return w > 0 && b > 0 && k > b ? (int64_t)llround((double)w * (double)k / (double)b) : w;
}

int64_t Timeline_basisNs(const Timeline* this, AmdahlBasis basis) {
    return basis == AMDAHL_BASIS_WALL ? wall_denominator(this) : this->total_kernel_ns;
}

double Timeline_ceiling(const Timeline* this, int64_t part_ns, AmdahlBasis basis,
                        AmdahlBasis* used) {
    int64_t d = Timeline_basisNs(this, basis);
    if (basis == AMDAHL_BASIS_WALL && d <= 0) {
        basis = AMDAHL_BASIS_KERNEL;
        d = this->total_kernel_ns;
    }
    if (used) {
        *used = basis;
    }
    return Amdahl_ceiling(d > 0 ? (double)part_ns / (double)d : 0);
}

/* The busy events of used kernel files, as the timeline reads them: timed dispatches
 * (gpu -1 when unknown) and the memsets and copies a known device ran (those of no length
 * left out); columns f (file), g (gpu), s, e (ns) and k (1: a kernel). */
#define BUSY_EVENTS_SQL                                                                       \
    "SELECT file_id AS f, coalesce(gpu, -1) AS g, start_ns AS s, end_ns AS e, 1 AS k"        \
    " FROM dispatch WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL AND file_id IN %s"     \
    " UNION ALL SELECT file_id, gpu, start_ns, end_ns, 0 FROM copy WHERE gpu IS NOT NULL"     \
    " AND start_ns IS NOT NULL AND end_ns > start_ns AND file_id IN %s"

/* Per file with a timed dispatch, its wall (first busy start to last busy end, copies
 * included) once per device that ran a kernel, memset or copy; summed. */
int64_t Timeline_wallNs(TraceDb* db) {
    char* sql = xasprintf(
        "WITH b AS (" BUSY_EVENTS_SQL ")"
        " SELECT CAST(total(w.span) AS INTEGER) FROM"
        " (SELECT f, max(e) - min(s) AS span FROM b GROUP BY f HAVING max(k) = 1) w"
        " JOIN (SELECT DISTINCT f, g FROM b) d ON d.f = w.f",
        used_kernel_files, used_kernel_files);
    int64_t v = TraceDb_scalarInt(db, sql);
    free(sql);
    return v;
}

/* A file's iterations are adjacent in t->it: found through it_at, never by a scan of every
 * run's (a folder of 100,000 one-run files made that quadratic). */
static const Iter* iter_of(const Timeline* t, int64_t file, int index) {
    int64_t at = t->it_at ? I64Map_get(t->it_at, file) : 0;
    for (int i = at > 0 ? (int)at - 1 : t->nit; i < t->nit && t->it[i].file == file; i++) {
        if (t->it[i].index == index && t->it[i].dispatches > 0) {
            return &t->it[i];
        }
    }
    return NULL;
}

int Timeline_iterationWindow(const Timeline* this, int64_t file, int index, int64_t* lo,
                             int64_t* hi) {
    const Iter* it = iter_of(this, file, index > 0 ? index : 2);
    if (!it) {
        return 0;
    }
    *lo = it->first_start;
    *hi = it->last_end;
    for (int k = (index > 0 ? index : 2) + 1; iter_of(this, file, k); k++) {
        const Iter* next = iter_of(this, file, k);
        if (index > 0) {
            *hi = next->first_start - 1;
            break;
        }
        if (next->last_end > *hi) {
            *hi = next->last_end;
        }
    }
    return 1;
}

/* Busy per device = the span of its events, less the gaps between them, a gap measured from
 * the latest end so far (a window in start order), as run_devices; summed. With copies the
 * events are its kernels, memsets and copies (a device of a file with a timed dispatch), else
 * its kernels only. */
static int64_t busy_ns(TraceDb* db, int copies) {
    char* sql = xasprintf(
        "WITH b AS (" BUSY_EVENTS_SQL "),"
        " a AS (SELECT f, g, s, e FROM b WHERE %s"
        "  f IN (SELECT f FROM b WHERE k = 1))"
        " SELECT CAST(total(x) AS INTEGER) FROM (SELECT max(e) - min(s)"
        "  - total(CASE WHEN pe IS NOT NULL AND s > pe THEN s - pe ELSE 0 END) AS x FROM"
        " (SELECT f, g, s, e, max(e) OVER (PARTITION BY f, g ORDER BY s, e"
        "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe FROM a)"
        " GROUP BY f, g)",
        used_kernel_files, used_kernel_files, copies ? "" : "k = 1 AND");
    int64_t busy = TraceDb_scalarInt(db, sql);
    free(sql);
    return busy;
}

int64_t Timeline_idleNs(TraceDb* db) {
    return Timeline_wallNs(db) - busy_ns(db, 1);
}

int64_t Timeline_kernelBusyNs(TraceDb* db) {
    return busy_ns(db, 0);
}

const char* Timeline_pmcWarning(void) {
    return "WARNING: kernel times come from a PMC (counter) run; instrumented timings are not "
           "performance (a 0.0185 ms kernel measured 1.48 ms).";
}

/* ---- views -------------------------------------------------------------------------------- */

static const char* const view_names[TL_COUNT] = {
    "timeline", "devices", "gaps", "short_kernels", "iterations", "api_first_iteration",
    "copies_steady_state", "pmc_counters", "amdahl", "idle_gaps", "runs"};

const char* Timeline_viewName(TimelineView v) {
    return v < TL_COUNT ? view_names[v] : "?";
}

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const RsColumn ov_cols[] = {
    {"metric", "Metric", CT_TEXT}, {"ns", "Time", CT_NS},   {"count", "Count", CT_INT},
    {"pct", "%", CT_PCT},          {"ratio", "Ratio", CT_RATIO}, {"note", "Note", CT_TEXT},
};
static const RsColumn dev_cols[] = {
    {"file", "File", CT_TEXT},       {"gpu", "GPU", CT_INT},
    {"dispatches", "Dispatches", CT_INT}, {"span_ns", "Wall", CT_NS},
    {"busy_ns", "Busy", CT_NS},      {"idle_ns", "Idle", CT_NS},
    {"idle_pct", "%Idle", CT_PCT},   {"kernel_ns", "Kernel", CT_NS},
    {"kernel_pct", "%Kernel/wall", CT_PCT},
};
static const RsColumn gap_cols[] = {
    {"file", "File", CT_TEXT},    {"gpu", "GPU", CT_INT},       {"stream", "Stream", CT_INT},
    /* at_ns: when the gap starts (the latest end so far); before/after: the kernels on
     * either side of the gap, titled as the JSON keys read */
    {"gap_ns", "Gap", CT_NS},     {"at_ns", "GapStart", CT_NS}, {"before", "Kernel before", CT_TEXT},
    {"after", "Kernel after", CT_TEXT},
    {"file_id", "File id", CT_INT}, /* source_file.id: the Trace screen opens the gap there */
};
static const RsColumn short_cols[] = {
    {"name", "Kernel", CT_TEXT},          {"short_name", "Kernel", CT_TEXT},
    {"calls", "Calls", CT_INT},           {"short_calls", "Short", CT_INT},
    {"short_pct", "%Short", CT_PCT},      {"total_ns", "Total", CT_NS},
    {"short_ns", "ShortTime", CT_NS},     {"avg_ns", "Avg", CT_NS},
    {"pct_of_short", "%OfShortCalls", CT_PCT}, /* of all short dispatches (footer) */
};
static const RsColumn iter_cols[] = {
    {"file", "File", CT_TEXT},        {"iteration", "#", CT_INT},
    {"name", "Iteration", CT_TEXT},   {"source", "Found by", CT_TEXT},
    {"phase", "Phase", CT_TEXT},      {"dispatches", "Dispatches", CT_INT},
    {"kernel_ns", "Kernel", CT_NS},   {"span_ns", "Span", CT_NS},
    {"start_ns", "Starts at", CT_NS},
};
static const RsColumn api_cols[] = {
    {"domain", "Domain", CT_TEXT},         {"name", "API", CT_TEXT},
    {"calls", "Calls", CT_INT},            {"total_ns", "Total", CT_NS},
    {"avg_ns", "Avg", CT_NS},              {"first_calls", "1stCalls", CT_INT},
    {"first_ns", "1stTotal", CT_NS},       {"first_pct", "%In1st", CT_PCT},
    {"steady_calls", "SteadyCalls", CT_INT}, {"steady_ns", "SteadyTotal", CT_NS},
    {"steady_avg_ns", "SteadyAvg", CT_NS},
};
static const RsColumn copy_cols[] = {
    {"name", "Copy", CT_TEXT},             {"direction", "Dir", CT_TEXT},
    {"calls", "Calls", CT_INT},            {"bytes", "Bytes", CT_BYTES},
    {"total_ns", "Total", CT_NS},          {"steady_calls", "SteadyCalls", CT_INT},
    {"steady_bytes", "SteadyBytes", CT_BYTES}, {"steady_ns", "SteadyTotal", CT_NS},
    {"flag", "Flag", CT_TEXT},
};
static const RsColumn pmc_cols[] = {
    {"kernel", "Kernel", CT_TEXT},   {"counter", "Counter", CT_TEXT},
    {"dispatches", "Dispatches", CT_INT}, {"mean", "Mean", CT_REAL},
    {"min", "Min", CT_REAL},         {"max", "Max", CT_REAL},
};
static const RsColumn amdahl_cols[] = {
    {"category", "Category", CT_TEXT},      {"group", "Group", CT_TEXT},
    {"total_ns", "Total", CT_NS},           {"pct_kernel", "%Kernel", CT_PCT},
    {"ceiling_kernel", "Ceil(kernel)", CT_RATIO}, {"pct_wall", "%Wall", CT_PCT},
    {"ceiling_wall", "Ceil(wall)", CT_RATIO}, {"ceiling", "Ceiling", CT_RATIO},
};

static const RsColumn idle_cols[] = {
    {"file", "File", CT_TEXT},        {"gpu", "GPU", CT_INT},
    {"bucket", "Gap size", CT_TEXT},  {"gaps", "Gaps", CT_INT},
    {"total_ns", "Total", CT_NS},     {"pct_idle", "%Idle", CT_PCT},
    {"pct_wall", "%Wall", CT_PCT},
};

static const RsColumn run_cols[] = {
    {"run", "Run", CT_TEXT},
    {"dispatches", "Dispatches", CT_INT},
    {"kernel_ns", "Kernel", CT_NS},
    {"span_ns", "Span", CT_NS},
    {"wall_ns", "Wall", CT_NS},
    {"busy_ns", "Busy", CT_NS},
    {"idle_pct", "%Idle", CT_PCT},
    {"gaps", "Gaps", CT_INT},
    {"gap_p50_ns", "GapMedian", CT_NS},
    {"iterations", "Iter", CT_INT},
    {"first_iteration_span_ns", "1stIter", CT_NS},
    {"steady_iteration_span_ns", "SteadyIter", CT_NS},
    {"cold_ratio", "Cold", CT_RATIO},
    {"pmc", "PMC", CT_TEXT},
};

static char* file_name(TraceDb* db, int64_t id) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if (TraceDb_prepare(db, "SELECT name FROM source_file WHERE id = ?1", &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            out = xstrdup((const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    return out ? out : xasprintf("file %lld", (long long)id);
}

static char* kernel_name(TraceDb* db, int64_t id, int shrt) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if (TraceDb_prepare(db, shrt ? "SELECT short_name FROM kernel WHERE id = ?1"
                                 : "SELECT name FROM kernel WHERE id = ?1",
                        &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            out = xstrdup((const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    return out ? out : xstrdup("?");
}

static void ov_row(ResultSet* rs, const char* metric, int64_t ns, int64_t count, double pct,
                   double ratio, const char* note) {
    int r = ResultSet_addRow(rs);
    ResultSet_setText(rs, r, 0, metric);
    if (ns != NONE) {
        ResultSet_setInt(rs, r, 1, ns);
    }
    if (count != NONE) {
        ResultSet_setInt(rs, r, 2, count);
    }
    if (!isnan(pct)) {
        ResultSet_setReal(rs, r, 3, pct);
    }
    if (!isnan(ratio)) {
        ResultSet_setReal(rs, r, 4, ratio);
    }
    if (note) {
        ResultSet_setText(rs, r, 5, note);
    }
}

static ResultSet* v_overview(Timeline* t) {
    const TimelineSummary* s = &t->s;
    ResultSet* rs = ResultSet_new("timeline", ov_cols, NCOLS(ov_cols));
    if (!s->available) {
        rs->footer = xstrdup("No per-dispatch timestamps in the data in use: no timeline.");
        return rs;
    }
    ov_row(rs, "run span", s->span_ns, s->runs, NAN, NAN,
           "first start to last end of kernels, memsets and copies, per run");
    ov_row(rs, "device wall time", s->wall_ns, s->devices, NAN, NAN, "run span per device");
    ov_row(rs, "GPU busy", s->busy_ns, NONE, s->wall_ns ? 100.0 * (double)s->busy_ns / (double)s->wall_ns : 0,
           NAN, "union of kernels, memsets and copies per device");
    ov_row(rs, "GPU idle", s->idle_ns, NONE, s->idle_pct, NAN, "share of device wall time");
    ov_row(rs, "kernel time", s->kernel_ns, s->dispatches, s->kernel_pct_of_wall, NAN,
           "share of device wall time");
    ov_row(rs, "short kernels (< 10 us)", s->short_ns, s->short_dispatches, s->short_count_pct,
           NAN, "% = share of dispatches");
    ov_row(rs, "short kernels, time share", s->short_ns, NONE, s->short_time_pct, NAN,
           "% = share of kernel time");
    /* no total: summed over streams it can exceed the wall; the time in all is GPU idle */
    ov_row(rs, "launch gaps", NONE, s->gaps, NAN, NAN,
           "kernel to kernel per stream, from the latest kernel end so far: memsets, copies "
           "and other streams' work in them count (not GPU idle)");
    ov_row(rs, "launch gap median", s->gap_p50_ns, NONE, NAN, NAN, NULL);
    ov_row(rs, "launch gap mean", (int64_t)llround(s->gap_mean_ns), NONE, NAN, NAN, NULL);
    ov_row(rs, "launch gap max", s->gap_max_ns, NONE, NAN, NAN, NULL);
    if (s->runs > 1) {
        ov_row(rs, "iterations", NONE, s->iterations, NAN, NAN,
               "summed over runs; first iteration and cold start per run: see runs");
    } else if (s->iterations > 0) {
        char note[128];
        snprintf(note, sizeof(note), "%s%s",
                 s->iter_source == ITER_ANNOTATION ? "ProfilerStep# annotations"
                                                   : "repeating kernel sequence",
                 s->iter_source == ITER_DETECTED ? " (dispatches per iteration in Count)" : "");
        ov_row(rs, "iterations", NONE, s->iterations, NAN, NAN, note);
        if (s->iter_source == ITER_DETECTED) {
            ov_row(rs, "dispatches per iteration", NONE, s->iter_period, NAN, NAN, NULL);
        }
        ov_row(rs, "first iteration kernel time", s->first_iter_ns, NONE, NAN, NAN, "cold start");
        if (s->warmup_dispatches > 0) {
            ov_row(rs, "warm-up dispatches before iteration 1", NONE, s->warmup_dispatches, NAN,
                   NAN, "shown apart: not in the first iteration nor the cold-start ratio");
        }
        ov_row(rs, "first iteration span", s->first_iter_span_ns, NONE, NAN,
               s->cold_ratio > 0 ? s->cold_ratio : NAN,
               s->warmup_dispatches > 0 ? "ratio = first span / steady mean span, without the warm-up"
                                        : "ratio = first span / steady mean span");
        if (s->iterations > 1) {
            ov_row(rs, "steady iteration kernel time (mean)", (int64_t)llround(s->steady_iter_ns),
                   NONE, NAN, NAN, NULL);
            ov_row(rs, "steady iteration span (mean)", (int64_t)llround(s->steady_iter_span_ns),
                   NONE, NAN, NAN, NULL);
            ov_row(rs, "H2D copies in steady state", NONE, s->steady_h2d, NAN, NAN,
                   s->steady_h2d ? "host-to-device copies inside the loop" : NULL);
            ov_row(rs, "D2H copies in steady state", NONE, s->steady_d2h, NAN, NAN,
                   s->steady_d2h ? "device-to-host copies inside the loop (synchronous?)" : NULL);
        }
    } else {
        ov_row(rs, "iterations", NONE, 0, NAN, NAN,
               "no ProfilerStep# annotation and no repeating kernel sequence");
    }
    if (s->pmc) {
        rs->footer = xstrdup(Timeline_pmcWarning());
    }
    return rs;
}

static char* run_label(TraceDb* db, int64_t id) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if (TraceDb_prepare(db, "SELECT label FROM run WHERE id = ?1", &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            out = xstrdup((const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
    return out ? out : xasprintf("run %lld", (long long)id);
}

/* One row per run: its own timeline figures (never blended across runs). */
static ResultSet* v_runs(Timeline* t) {
    ResultSet* rs = ResultSet_new("runs", run_cols, NCOLS(run_cols));
    for (int i = 0; i < t->nruns; i++) {
        const TimelineSummary* s = &t->runs[i].s;
        int r = ResultSet_addRow(rs);
        char* label = run_label(t->db, t->runs[i].id);
        ResultSet_setText(rs, r, 0, label);
        free(label);
        ResultSet_setInt(rs, r, 1, s->dispatches);
        ResultSet_setInt(rs, r, 2, s->kernel_ns);
        ResultSet_setInt(rs, r, 3, s->span_ns);
        ResultSet_setInt(rs, r, 4, s->wall_ns);
        ResultSet_setInt(rs, r, 5, s->busy_ns);
        ResultSet_setReal(rs, r, 6, s->idle_pct);
        ResultSet_setInt(rs, r, 7, s->gaps);
        if (s->gaps > 0) {
            ResultSet_setInt(rs, r, 8, s->gap_p50_ns);
        }
        ResultSet_setInt(rs, r, 9, s->iterations);
        if (s->iterations > 0) {
            ResultSet_setInt(rs, r, 10, s->first_iter_span_ns);
        }
        if (s->iterations > 1) {
            ResultSet_setInt(rs, r, 11, (int64_t)llround(s->steady_iter_span_ns));
        }
        if (s->cold_ratio > 0) {
            ResultSet_setReal(rs, r, 12, s->cold_ratio);
        }
        ResultSet_setText(rs, r, 13, s->pmc ? "PMC" : "");
    }
    return rs;
}

static ResultSet* v_devices(Timeline* t) {
    ResultSet* rs = ResultSet_new("devices", dev_cols, NCOLS(dev_cols));
    for (int i = 0; i < t->ndev; i++) {
        const Device* d = &t->dev[i];
        int r = ResultSet_addRow(rs);
        char* fn = file_name(t->db, d->file);
        ResultSet_setText(rs, r, 0, fn);
        free(fn);
        if (d->gpu >= 0) {
            ResultSet_setInt(rs, r, 1, d->gpu);
        }
        ResultSet_setInt(rs, r, 2, d->dispatches);
        ResultSet_setInt(rs, r, 3, d->span);
        ResultSet_setInt(rs, r, 4, d->busy);
        ResultSet_setInt(rs, r, 5, d->span - d->busy);
        ResultSet_setReal(rs, r, 6, d->span ? 100.0 * (double)(d->span - d->busy) / (double)d->span : 0);
        ResultSet_setInt(rs, r, 7, d->kernel_ns);
        ResultSet_setReal(rs, r, 8, d->span ? 100.0 * (double)d->kernel_ns / (double)d->span : 0);
    }
    return rs;
}

static ResultSet* v_gaps(Timeline* t) {
    ResultSet* rs = ResultSet_new("gaps", gap_cols, NCOLS(gap_cols));
    for (int i = 0; i < t->ngaps; i++) {
        const Gap* g = &t->gaps[i];
        int r = ResultSet_addRow(rs);
        char* fn = file_name(t->db, g->file);
        ResultSet_setText(rs, r, 0, fn);
        free(fn);
        if (g->gpu >= 0) {
            ResultSet_setInt(rs, r, 1, g->gpu);
        }
        if (g->stream >= 0) {
            ResultSet_setInt(rs, r, 2, g->stream);
        }
        ResultSet_setInt(rs, r, 3, g->gap);
        ResultSet_setInt(rs, r, 4, g->at);
        char* a = kernel_name(t->db, g->before, 1);
        char* b = kernel_name(t->db, g->after, 1);
        ResultSet_setText(rs, r, 5, a);
        ResultSet_setText(rs, r, 6, b);
        ResultSet_setInt(rs, r, 7, g->file);
        free(a);
        free(b);
    }
    return rs;
}

static ResultSet* v_idle(Timeline* t) {
    ResultSet* rs = ResultSet_new("idle_gaps", idle_cols, NCOLS(idle_cols));
    for (int i = 0; i < t->ndev; i++) {
        const Device* d = &t->dev[i];
        char* fn = file_name(t->db, d->file);
        int64_t idle = d->span - d->busy;
        for (int b = 0; b <= d->idle.nbounds; b++) {
            char label[64];
            GapBuckets_label(&d->idle, b, label, sizeof(label));
            int r = ResultSet_addRow(rs);
            ResultSet_setText(rs, r, 0, fn);
            if (d->gpu >= 0) {
                ResultSet_setInt(rs, r, 1, d->gpu);
            }
            ResultSet_setText(rs, r, 2, label);
            ResultSet_setInt(rs, r, 3, d->idle.count[b]);
            ResultSet_setInt(rs, r, 4, d->idle.total_ns[b]);
            ResultSet_setReal(rs, r, 5, idle > 0 ? 100.0 * (double)d->idle.total_ns[b] / (double)idle
                                                 : 0);
            ResultSet_setReal(rs, r, 6, d->span > 0 ? 100.0 * (double)d->idle.total_ns[b] /
                                                          (double)d->span
                                                    : 0);
        }
        free(fn);
    }
    rs->footer = xstrdup("A gap runs from the latest end so far on the device (kernel, memset "
                         "or copy; any stream) to the next start; with the idle time before "
                         "the first and after the last, a device's gaps add up to its idle "
                         "time.");
    return rs;
}

static DcuStatus v_short(Timeline* t, const char* kernel, ResultSet** out, DcuError* err) {
    Filter* f = NULL;
    if (kernel && *kernel) {
        DcuStatus s = Filter_new(kernel, &f, err);
        if (s != DCU_OK) {
            return s;
        }
    }
    ResultSet* rs = ResultSet_new("short_kernels", short_cols, NCOLS(short_cols));
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(t->db, "SELECT name, short_name FROM kernel WHERE id = ?1", &st, err) !=
        DCU_OK) {
        Filter_delete(f);
        ResultSet_delete(rs);
        return DCU_ERR_SQL;
    }
    for (int64_t k = 1; k < t->nks; k++) {
        const KShort* ks = &t->ks[k];
        if (ks->short_calls == 0) {
            continue;
        }
        sqlite3_bind_int64(st, 1, k);
        if (sqlite3_step(st) == SQLITE_ROW) {
            const char* name = (const char*)sqlite3_column_text(st, 0);
            if (!f || Filter_matches(f, name, strlen(name))) {
                int r = ResultSet_addRow(rs);
                ResultSet_setText(rs, r, 0, name);
                ResultSet_setText(rs, r, 1, (const char*)sqlite3_column_text(st, 1));
                ResultSet_setInt(rs, r, 2, ks->calls);
                ResultSet_setInt(rs, r, 3, ks->short_calls);
                ResultSet_setReal(rs, r, 4, 100.0 * (double)ks->short_calls / (double)ks->calls);
                ResultSet_setInt(rs, r, 5, ks->ns);
                ResultSet_setInt(rs, r, 6, ks->short_ns);
                ResultSet_setNs(rs, r, 7, (double)ks->ns / (double)ks->calls);
                ResultSet_setReal(rs, r, 8, t->s.short_dispatches
                                                ? 100.0 * (double)ks->short_calls /
                                                      (double)t->s.short_dispatches
                                                : 0);
            }
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    Filter_delete(f);
    ResultSet_sort(rs, 3, 1);
    char a[32];
    snprintf(a, sizeof(a), "%.1f%%", t->s.short_count_pct);
    /* no verdict: launch-bound is judged by what launches cost the wall (advice.h) */
    rs->footer = xasprintf("Dispatches under 10 us: %lld of %lld (%s of dispatches, %.1f%% of "
                           "kernel time, %.1f%% of device wall; %%OfShortCalls = a kernel's share "
                           "of these %lld)",
                           (long long)t->s.short_dispatches, (long long)t->s.dispatches, a,
                           t->s.short_time_pct,
                           t->s.wall_ns ? 100.0 * (double)t->s.short_ns / (double)t->s.wall_ns : 0.0,
                           (long long)t->s.short_dispatches);
    *out = rs;
    return DCU_OK;
}

static ResultSet* v_iterations(Timeline* t) {
    ResultSet* rs = ResultSet_new("iterations", iter_cols, NCOLS(iter_cols));
    for (int i = 0; i < t->nit; i++) {
        const Iter* it = &t->it[i];
        int r = ResultSet_addRow(rs);
        char* fn = file_name(t->db, it->file);
        ResultSet_setText(rs, r, 0, fn);
        free(fn);
        if (it->index > 0) {
            ResultSet_setInt(rs, r, 1, it->index);
        }
        ResultSet_setText(rs, r, 2, it->name);
        ResultSet_setText(rs, r, 3, it->source == ITER_ANNOTATION ? "annotation" : "detected");
        const char* phase = it->index == 1 ? "first (cold)" : "steady";
        if (it->index == 0) {
            phase = it->source == ITER_DETECTED ? "warm-up" : "outside";
        }
        ResultSet_setText(rs, r, 4, phase);
        ResultSet_setInt(rs, r, 5, it->dispatches);
        ResultSet_setInt(rs, r, 6, it->kernel_ns);
        if (it->dispatches > 0) {
            ResultSet_setInt(rs, r, 7, it->last_end - it->first_start);
            ResultSet_setInt(rs, r, 8, it->first_start - it->run_start);
        }
    }
    if (t->nit == 0) {
        rs->footer = xstrdup("No iterations: no ProfilerStep# annotation and no repeating kernel "
                             "sequence.");
    }
    return rs;
}

/* Why the 'without the first iteration' columns are empty, in the Summary's own terms: no
 * per-call rows to place in time (stats files hold totals only), or too few iterations.
 * (owned) */
static char* no_split_reason(const Timeline* t, int no_rows, const char* what) {
    /* what: "api" or "copy", the table prefix too (api_stat, copy_stat) */
    const TimelineSummary* s = &t->s;
    const char* label = strcmp(what, "api") == 0 ? "API" : what;
    if (no_rows) {
        char* sql = xasprintf("SELECT EXISTS (SELECT 1 FROM %s_stat)", what);
        int stats = TraceDb_scalarInt(t->db, sql) == 1;
        free(sql);
        if (!stats) {
            return xasprintf("No %s data in this trace: nothing to split.", label);
        }
        if (s->iterations >= 2) {
            return xasprintf("No per-call %s data (totals only): the Summary's %d iterations "
                             "cannot split them.", label, s->iterations);
        }
        return xasprintf("No per-call %s data (totals only): nothing to split.", label);
    }
    if (s->iterations >= 2) {
        return xasprintf("The Summary's %d iterations are in other runs than these %s rows: "
                         "only the totals.", s->iterations, label);
    }
    return xasprintf("No steady state: %s (Summary); the split needs two iterations: only the "
                     "totals.", s->iterations == 1 ? "one iteration" : "no iterations found");
}

/* One row of the API table: calls and time, and with a cut the two sides of it. */
static void api_row(ResultSet* rs, const char* domain, const char* name, const int64_t f[6],
                    int cut) {
    int r = ResultSet_addRow(rs);
    int64_t calls = f[0], total = f[1];
    ResultSet_setText(rs, r, 0, domain);
    ResultSet_setText(rs, r, 1, name);
    ResultSet_setInt(rs, r, 2, calls);
    ResultSet_setInt(rs, r, 3, total);
    ResultSet_setInt(rs, r, 4, calls ? total / calls : 0);
    if (cut) {
        int64_t fc = f[2], fn = f[3], sc = f[4], sn = f[5];
        ResultSet_setInt(rs, r, 5, fc);
        ResultSet_setInt(rs, r, 6, fn);
        ResultSet_setReal(rs, r, 7, total ? 100.0 * (double)fn / (double)total : 0);
        ResultSet_setInt(rs, r, 8, sc);
        ResultSet_setInt(rs, r, 9, sn);
        if (sc > 0) {
            ResultSet_setInt(rs, r, 10, sn / sc);
        }
    }
}

/* The API rows grouped by SQL: where api_split.h cannot promise SQL's figures. */
static DcuStatus api_rows_sql(Timeline* t, ResultSet* rs, int* any_cut, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        t->db,
        "SELECT a.domain, a.name, count(*), CAST(total(a.dur_ns) AS INTEGER),"
        " sum(c.cut_ns IS NOT NULL AND a.start_ns < c.cut_ns),"
        " CAST(total(CASE WHEN c.cut_ns IS NOT NULL AND a.start_ns < c.cut_ns"
        "   THEN a.dur_ns END) AS INTEGER),"
        " sum(c.cut_ns IS NOT NULL AND a.start_ns >= c.cut_ns),"
        " CAST(total(CASE WHEN c.cut_ns IS NOT NULL AND a.start_ns >= c.cut_ns"
        "   THEN a.dur_ns END) AS INTEGER),"
        " max(c.cut_ns IS NOT NULL)"
        " FROM api_call a LEFT JOIN temp.timeline_cut c ON c.file_id = a.file_id"
        " WHERE a.file_id IN (SELECT file_id FROM used_file WHERE layer = 'api')"
        " GROUP BY a.domain, a.name ORDER BY 4 DESC, a.name",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t f[6];
        for (int k = 0; k < 6; k++) {
            f[k] = sqlite3_column_int64(st, 2 + k);
        }
        int cut = sqlite3_column_int(st, 8) != 0;
        *any_cut |= cut;
        api_row(rs, (const char*)sqlite3_column_text(st, 0),
                (const char*)sqlite3_column_text(st, 1), f, cut);
    }
    sqlite3_finalize(st);
    return DCU_OK;
}

static DcuStatus v_api(Timeline* t, ResultSet** out, DcuError* err) {
    ApiSplit* v = NULL;
    int n = 0, exact = 0, any_cut = 0;
    DcuStatus s = ApiSplit_read(t->db, &v, &n, &exact, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("api_first_iteration", api_cols, NCOLS(api_cols));
    if (exact) {
        for (int i = 0; i < n; i++) {
            const ApiSplit* a = &v[i];
            int64_t f[6] = {a->calls,      a->total_ns,     a->first_calls,
                            a->first_ns,   a->steady_calls, a->steady_ns};
            any_cut |= a->cut;
            api_row(rs, a->domain, a->name, f, a->cut);
        }
        ApiSplit_free(v, n);
    } else {
        s = api_rows_sql(t, rs, &any_cut, err);
    }
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    if (any_cut) {
        rs->footer = xstrdup("1st = before the second iteration starts (warm-up and the first "
                             "iteration); Steady = the rest. Host layer: never added to kernel "
                             "time.");
    } else {
        rs->footer = no_split_reason(t, rs->nrows == 0, "api");
    }
    *out = rs;
    return DCU_OK;
}

static DcuStatus v_copies(Timeline* t, ResultSet** out, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        t->db,
        "SELECT x.name, CASE WHEN regexp('(?i)HtoD|HostToDevice|H2D|HOST_TO_DEVICE', x.name)"
        "   THEN 'H2D' WHEN regexp('(?i)DtoH|DeviceToHost|D2H|DEVICE_TO_HOST', x.name) THEN 'D2H'"
        "   WHEN regexp('(?i)DtoD|DeviceToDevice|D2D|DEVICE_TO_DEVICE', x.name) THEN 'D2D'"
        "   WHEN regexp('(?i)set|fill', x.name) THEN 'set' ELSE '' END,"
        " count(*), CAST(sum(CAST(x.bytes AS REAL)) AS INTEGER), CAST(total(x.dur_ns) AS INTEGER),"
        " sum(c.cut_ns IS NOT NULL AND x.start_ns >= c.cut_ns),"
        " CAST(sum(CASE WHEN c.cut_ns IS NOT NULL AND x.start_ns >= c.cut_ns"
        "   THEN CAST(x.bytes AS REAL) END) AS INTEGER),"
        " CAST(total(CASE WHEN c.cut_ns IS NOT NULL AND x.start_ns >= c.cut_ns"
        "   THEN x.dur_ns END) AS INTEGER),"
        " max(c.cut_ns IS NOT NULL)"
        " FROM copy x LEFT JOIN temp.timeline_cut c ON c.file_id = x.file_id"
        " WHERE x.file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')"
        " GROUP BY x.name ORDER BY 5 DESC, x.name",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("copies_steady_state", copy_cols, NCOLS(copy_cols));
    int any_cut = 0, flagged = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        const char* dir = (const char*)sqlite3_column_text(st, 1);
        ResultSet_setText(rs, r, 0, (const char*)sqlite3_column_text(st, 0));
        ResultSet_setText(rs, r, 1, dir);
        ResultSet_setInt(rs, r, 2, sqlite3_column_int64(st, 2));
        if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
            ResultSet_setInt(rs, r, 3, sqlite3_column_int64(st, 3));
        }
        ResultSet_setInt(rs, r, 4, sqlite3_column_int64(st, 4));
        if (sqlite3_column_int(st, 8)) {
            any_cut = 1;
            int64_t sc = sqlite3_column_int64(st, 5);
            ResultSet_setInt(rs, r, 5, sc);
            if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
                ResultSet_setInt(rs, r, 6, sqlite3_column_int64(st, 6));
            }
            ResultSet_setInt(rs, r, 7, sqlite3_column_int64(st, 7));
            if (sc > 0 && (strcmp(dir, "H2D") == 0 || strcmp(dir, "D2H") == 0)) {
                ResultSet_setText(rs, r, 8, "in steady state");
                flagged++;
            }
        }
    }
    sqlite3_finalize(st);
    rs->footer = !any_cut ? no_split_reason(t, rs->nrows == 0, "copy")
                 : xstrdup(flagged ? "Host<->device copies inside the steady state: synchronous "
                                     "copies in the loop stall the GPU; move them out or make "
                                     "them asynchronous."
                                   : "No host<->device copy inside the steady state.");
    *out = rs;
    return DCU_OK;
}

static DcuStatus v_counters(Timeline* t, const char* kernel, ResultSet** out, DcuError* err) {
    sqlite3_stmt* st = NULL;
    char* sql = xasprintf("SELECT k.name, c.name, count(*), avg(c.value), min(c.value),"
                          " max(c.value) FROM dispatch_counter c"
                          " JOIN dispatch d ON d.id = c.dispatch_id JOIN kernel k ON k.id = d.kernel_id"
                          " WHERE d.file_id IN %s AND (?1 IS NULL OR regexp(?1, k.name))"
                          " GROUP BY k.id, c.name ORDER BY k.name, c.name",
                          used_counter_files);
    DcuStatus s = TraceDb_prepare(t->db, sql, &st, err);
    free(sql);
    if (s != DCU_OK) {
        return s;
    }
    if (kernel && *kernel) {
        sqlite3_bind_text(st, 1, kernel, -1, SQLITE_TRANSIENT);
    }
    ResultSet* rs = ResultSet_new("pmc_counters", pmc_cols, NCOLS(pmc_cols));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, (const char*)sqlite3_column_text(st, 0));
        ResultSet_setText(rs, r, 1, (const char*)sqlite3_column_text(st, 1));
        ResultSet_setInt(rs, r, 2, sqlite3_column_int64(st, 2));
        for (int c = 3; c < 6; c++) {
            ResultSet_setReal(rs, r, c, sqlite3_column_double(st, c));
        }
    }
    if (rc != SQLITE_DONE) {
        const char* m = sqlite3_errmsg(TraceDb_handle(t->db));
        s = Error_set(err, strstr(m, "offset") ? DCU_ERR_REGEX : DCU_ERR_SQL, "%s", m);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    if (t->s.pmc && rs->nrows > 0) {
        rs->footer = xstrdup(Timeline_pmcWarning());
    }
    *out = rs;
    return DCU_OK;
}

static void amdahl_row(Timeline* t, ResultSet* rs, const char* name, const char* group,
                       int64_t ns, AmdahlBasis basis) {
    int r = ResultSet_addRow(rs);
    int64_t kt = t->total_kernel_ns;
    /* GPU idle is a share of the real wall; kernel parts of the busy-scaled one */
    int64_t wt = strcmp(group, "idle") == 0 ? t->s.wall_ns : wall_denominator(t);
    ResultSet_setText(rs, r, 0, name);
    ResultSet_setText(rs, r, 1, group);
    ResultSet_setInt(rs, r, 2, ns);
    double pk = kt > 0 ? (double)ns / (double)kt : 0;
    ResultSet_setReal(rs, r, 3, 100.0 * pk);
    ResultSet_setReal(rs, r, 4, Amdahl_ceiling(pk));
    if (wt > 0) {
        double pw = (double)ns / (double)wt;
        ResultSet_setReal(rs, r, 5, 100.0 * pw);
        ResultSet_setReal(rs, r, 6, Amdahl_ceiling(pw));
    }
    if (strcmp(group, "idle") == 0) {
        ResultSet_setReal(rs, r, 7, Amdahl_ceiling(wt > 0 ? (double)ns / (double)wt : 0));
    } else {
        ResultSet_setReal(rs, r, 7, Timeline_ceiling(t, ns, basis, NULL));
    }
}

/* A group row: its time and shares, but ceilings over its work only (wait_ns: its time
 * waiting for a straggler rank, ranks.h; waiting is never an opportunity). */
static void amdahl_group(Timeline* t, ResultSet* rs, const char* name, int64_t ns,
                         int64_t wait_ns, AmdahlBasis basis) {
    amdahl_row(t, rs, name, "group", ns - wait_ns, basis);
    int r = rs->nrows - 1;
    int64_t kt = t->total_kernel_ns, wt = wall_denominator(t);
    ResultSet_setInt(rs, r, 2, ns);
    ResultSet_setReal(rs, r, 3, kt > 0 ? 100.0 * (double)ns / (double)kt : 0);
    if (wt > 0) {
        ResultSet_setReal(rs, r, 5, 100.0 * (double)ns / (double)wt);
    }
}

/* The category whose time waits for a straggler rank (meta 'wait_category'), or "". */
static void amdahl_wait(Timeline* t, char* buf, size_t cap) {
    buf[0] = '\0';
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(t->db, "SELECT value FROM meta WHERE key = 'wait_category'", &st,
                        NULL) == DCU_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            snprintf(buf, cap, "%s", (const char*)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
    }
}

static DcuStatus v_amdahl(Timeline* t, AmdahlBasis basis, ResultSet** out, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        t->db,
        "SELECT c.name, c.is_gemm, CAST(total(s.total_ns) AS INTEGER)"
        " FROM category c JOIN kernel k ON k.category = c.name"
        " JOIN kernel_summary s ON s.kernel_id = k.id"
        " GROUP BY c.name ORDER BY 3 DESC, min(c.ord)",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new("amdahl", amdahl_cols, NCOLS(amdahl_cols));
    int64_t g[2] = {0, 0}, gw[2] = {0, 0};
    char wait[64];
    amdahl_wait(t, wait, sizeof(wait));
    amdahl_row(t, rs, "GEMM", "group", 0, basis);
    amdahl_row(t, rs, "non-GEMM", "group", 0, basis);
    rs->pinned = 2;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int gemm = sqlite3_column_int(st, 1);
        int64_t ns = sqlite3_column_int64(st, 2);
        const char* name = (const char*)sqlite3_column_text(st, 0);
        int waiting = wait[0] && strcmp(name, wait) == 0;
        g[gemm ? 1 : 0] += ns;
        gw[gemm ? 1 : 0] += waiting ? ns : 0;
        amdahl_row(t, rs, name, waiting ? "wait" : gemm ? "GEMM" : "non-GEMM", ns, basis);
        for (int c = 4; waiting && c <= 7; c += c == 4 ? 2 : 1) { /* no ceiling: not work */
            ResultSet_cell(rs, rs->nrows - 1, c)->null = 1;
        }
    }
    sqlite3_finalize(st);
    /* fill the two group rows now that their sums are known */
    ResultSet* tmp = ResultSet_new("tmp", amdahl_cols, NCOLS(amdahl_cols));
    amdahl_group(t, tmp, "GEMM", g[1], gw[1], basis);
    amdahl_group(t, tmp, "non-GEMM", g[0], gw[0], basis);
    for (int r = 0; r < 2; r++) {
        for (int c = 0; c < rs->ncols; c++) {
            RsCell* dst = ResultSet_cell(rs, r, c);
            RsCell* src = ResultSet_cell(tmp, r, c);
            free(dst->s);
            *dst = *src;
            src->s = NULL;
        }
    }
    ResultSet_delete(tmp);
    if (t->s.wall_ns > 0 && t->s.idle_ns > 0) {
        /* idle time competes with the categories over wall time; it is no kernel time */
        amdahl_row(t, rs, "GPU idle", "idle", t->s.idle_ns, AMDAHL_BASIS_WALL);
        RsCell* c = ResultSet_cell(rs, rs->nrows - 1, 3);
        c->null = 1;
        c = ResultSet_cell(rs, rs->nrows - 1, 4);
        c->null = 1;
    }
    AmdahlBasis used;
    Timeline_ceiling(t, 0, basis, &used);
    rs->footer = xasprintf("Ceiling = 1/(1-p) over %s%s. Over wall time the gaps and idle time "
                           "stay, so the ceilings are lower: nearer what the run can gain.",
                           Timeline_basisLabel(used),
                           used != basis ? " (wall time unknown: no per-dispatch timestamps)" : "");
    *out = rs;
    return DCU_OK;
}

DcuStatus Timeline_view(Timeline* this, TimelineView v, const char* kernel, AmdahlBasis basis,
                        ResultSet** out, DcuError* err) {
    *out = NULL;
    switch (v) {
    case TL_OVERVIEW:
        *out = v_overview(this);
        return DCU_OK;
    case TL_DEVICES:
        *out = v_devices(this);
        return DCU_OK;
    case TL_GAPS:
        *out = v_gaps(this);
        return DCU_OK;
    case TL_SHORT:
        return v_short(this, kernel, out, err);
    case TL_ITERATIONS:
        *out = v_iterations(this);
        return DCU_OK;
    case TL_API:
        return v_api(this, out, err);
    case TL_COPIES:
        return v_copies(this, out, err);
    case TL_COUNTERS:
        return v_counters(this, kernel, out, err);
    case TL_AMDAHL:
        return v_amdahl(this, basis, out, err);
    case TL_IDLE:
        *out = v_idle(this);
        return DCU_OK;
    case TL_RUNS:
        *out = v_runs(this);
        return DCU_OK;
    default:
        return Error_set(err, DCU_ERR_USAGE, "unknown timeline view");
    }
}
