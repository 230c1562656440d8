/* load_csv.c - every CSV trace format dcutop reads (FORMATS.md sections 1-4).
 * A file is recognised by the names in its header row (plus its file name where the
 * header alone is ambiguous: the 5-column stats schema is shared by kernel, API and copy
 * stats). Columns are bound by header name through one alias table, never by position. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/csv_reader.h"
#include "dcutop/intern.h"
#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "load_compute.h"
#include "load_event.h"
#include "load_internal.h"

typedef enum {
    F_NONE = 0, /* unknown column: a PMC counter in dispatch files, else ignored */
    F_IGNORE,   /* known column dcutop does not keep */
    F_NAME, F_CALLS, F_TOTAL, F_AVG, F_PCT, F_MIN, F_MAX, F_STDDEV,
    F_INDEX, F_GPU, F_QUEUE, F_STREAM, F_PID, F_TID, F_CORR,
    F_START, F_END, F_DUR,
    F_GRID, F_GRIDX, F_GRIDY, F_GRIDZ, F_WG, F_WGX, F_WGY, F_WGZ,
    F_LDS, F_SCRATCH, F_VGPR, F_SGPR,
    F_DOMAIN, F_FUNCTION, F_KIND, F_DIRECTION, F_SRC, F_DST, F_BYTES,
    F_MESSAGE, F_TIMESTAMP, F_OPERATION, F_KERNEL_NAME,
    F_NODE, F_AGENT_TYPE, F_AGENT_NAME, F_PRODUCT, F_CU, F_WAVE, F_GFX,
    F_COUNTER_NAME, F_COUNTER_VALUE, F_GUID,
    F_COUNT
} Field;

/* Header name (lower case, quotes stripped) -> field. One table for all formats. */
static const struct {
    const char* alias;
    Field f;
} aliases[] = {
    {"name", F_NAME}, {"calls", F_CALLS}, {"totaldurationns", F_TOTAL},
    {"averagens", F_AVG}, {"percentage", F_PCT}, {"minns", F_MIN}, {"maxns", F_MAX},
    {"stddev", F_STDDEV},
    /* rocprof v1 results.csv */
    {"index", F_INDEX}, {"kernelname", F_KERNEL_NAME}, {"gpu-id", F_GPU},
    {"queue-id", F_QUEUE}, {"queue-index", F_IGNORE}, {"pid", F_PID}, {"tid", F_TID},
    {"grd", F_GRID}, {"wgr", F_WG}, {"lds", F_LDS}, {"scr", F_SCRATCH},
    {"arch_vgpr", F_VGPR}, {"vgpr", F_VGPR}, {"accum_vgpr", F_IGNORE}, {"sgpr", F_SGPR},
    {"fbar", F_IGNORE}, {"wave_size", F_IGNORE}, {"sig", F_IGNORE}, {"obj", F_IGNORE},
    {"dispatchns", F_IGNORE}, {"beginns", F_START}, {"endns", F_END},
    {"completens", F_IGNORE}, {"durationns", F_DUR},
    /* rocprofv2 */
    {"dispatch_id", F_INDEX}, {"gpu_id", F_GPU}, {"queue_id", F_QUEUE},
    {"grid_size", F_GRID}, {"workgroup_size", F_WG}, {"lds_per_workgroup", F_LDS},
    {"scratch_per_workitem", F_SCRATCH}, {"accum_vgpr_count", F_IGNORE},
    {"kernel_name", F_KERNEL_NAME}, {"start_timestamp", F_START},
    {"end_timestamp", F_END}, {"stop_timestamp", F_END}, {"correlation_id", F_CORR},
    {"xcc_index", F_IGNORE}, {"domain", F_DOMAIN}, {"function", F_FUNCTION},
    {"roctx_id", F_CORR}, /* range.corr_id: pairs roctxRangeStart/Stop (load_ranges.c) */
    {"message", F_MESSAGE}, {"timestamp", F_TIMESTAMP},
    {"operation", F_OPERATION},
    /* rocprofv3 */
    {"kind", F_KIND}, {"agent_id", F_GPU}, {"stream_id", F_STREAM},
    {"thread_id", F_TID}, {"process_id", F_PID}, {"kernel_id", F_IGNORE},
    {"private_segment_size", F_SCRATCH}, {"group_segment_size", F_LDS},
    {"lds_block_size", F_LDS}, {"scratch_size", F_SCRATCH}, {"vgpr_count", F_VGPR},
    {"sgpr_count", F_SGPR}, {"workgroup_size_x", F_WGX}, {"workgroup_size_y", F_WGY},
    {"workgroup_size_z", F_WGZ}, {"grid_size_x", F_GRIDX}, {"grid_size_y", F_GRIDY},
    {"grid_size_z", F_GRIDZ}, {"direction", F_DIRECTION}, {"source_agent_id", F_SRC},
    {"destination_agent_id", F_DST}, {"guid", F_GUID}, {"counter_name", F_COUNTER_NAME},
    {"counter_value", F_COUNTER_VALUE}, {"bytes", F_BYTES}, {"size", F_BYTES},
    {"allocation_size", F_BYTES},
    /* dcutop's own exports (round trip) */
    {"total_ns", F_TOTAL}, {"min_ns", F_MIN}, {"max_ns", F_MAX}, {"stddev_ns", F_STDDEV},
    {"avg_ns", F_IGNORE}, {"pct", F_IGNORE}, {"cum_pct", F_IGNORE}, {"ceiling", F_IGNORE},
    {"short_name", F_IGNORE}, {"category", F_IGNORE}, {"gbps", F_IGNORE},
    {"source", F_IGNORE},
    /* agent_info */
    {"node_id", F_NODE}, {"agent_type", F_AGENT_TYPE}, {"product_name", F_PRODUCT},
    {"cu_count", F_CU}, {"wave_front_size", F_WAVE}, {"gfx_target_version", F_GFX},
};

typedef enum {
    K_UNKNOWN,
    K_SKIP,      /* recognised, deliberately not loaded (f->note says why) */
    K_STATS,     /* 5/8-column stats: kernel, API or copy decided by name */
    K_DISPATCH,  /* one kernel dispatch per row */
    K_APICALL,   /* one API call (or marker range) per row */
    K_ROCTX2,    /* rocprofv2 roctx events */
    K_COPY,      /* one memory copy per row */
    K_HCC_OPS,   /* rocprofv2 HIP activity: kernels and copies */
    K_AGENT,
    K_COMPUTE,   /* rocprof-compute roofline.csv / sysinfo.csv (load_compute.c) */
    K_COUNTER    /* rocprofv3 counter_collection.csv: one row per dispatch and counter */
} Kind;

typedef enum { STATS_GUESS, STATS_KERNEL, STATS_API, STATS_COPY } StatsKind;

typedef struct Ctx_ {
    LoaderCore* core;
    LoadFile* f;
    const char* base; /* file name without directory */
    int header_done;
    Kind kind;
    StatsKind stats;
    const char* api_domain; /* for API stats */
    int ncols;
    Field* col;              /* field per column */
    int where[F_COUNT];      /* column of each field, -1 if absent */
    int* counter_cols;       /* unknown numeric columns of dispatch files (PMC) */
    char** counter_names;
    int n_counters;
    int kernel_rank;         /* preference among per-dispatch kernel files */
    char* joined;            /* scratch for names re-joined from split fields */
    size_t joined_cap;
    ComputeCsv* compute;     /* K_COMPUTE: load_compute.c's state (owned) */
    sqlite3_stmt* stage;     /* K_COUNTER: INSERT into temp.counter_stage */
} Ctx;

/* ---- small helpers ------------------------------------------------------------ */

static void lower_header(const char* s, size_t n, char* out, size_t cap) {
    size_t j = 0;
    while (n > 0 && (*s == ' ' || *s == '"')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '"' || s[n - 1] == '\r')) {
        n--;
    }
    for (size_t i = 0; i < n && j + 1 < cap; i++) {
        out[j++] = (char)tolower((unsigned char)s[i]);
    }
    out[j] = '\0';
}

static Field lookup(const char* h) {
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        if (strcmp(aliases[i].alias, h) == 0) {
            return aliases[i].f;
        }
    }
    return F_NONE;
}

static int ends_with(const char* s, const char* suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int contains(const char* s, const char* needle) {
    return strstr(s, needle) != NULL;
}

typedef enum { NUM_OK, NUM_EMPTY, NUM_BAD, NUM_RANGE } NumStatus;

static void trim(const char** s, size_t* n) {
    while (*n > 0 && (**s == ' ' || **s == '\t' || **s == '"')) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '"' ||
                      (*s)[*n - 1] == '\r')) {
        (*n)--;
    }
}

/* Integer, or a float rounded to the nearest integer (stats averages, 6.02e+05).
 * Thousands separators ("1,234,567") are accepted; "None"/"" are empty. */
static NumStatus parse_i64(const char* s, size_t n, int64_t* out) {
    /* fast path: plain digits, the common case in every dispatch row */
    if (n > 0 && n <= 18) {
        int64_t v = 0;
        size_t i = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            v = v * 10 + (s[i] - '0');
            i++;
        }
        if (i == n) {
            *out = v;
            return NUM_OK;
        }
    }
    trim(&s, &n);
    if (n == 0 || (n == 4 && memcmp(s, "None", 4) == 0) || (n == 3 && memcmp(s, "N/A", 3) == 0)) {
        return NUM_EMPTY;
    }
    if (memchr(s, '\0', n)) { /* strtoll would stop at the NUL and read "1\0" "00" as 1 */
        return NUM_BAD;
    }
    char buf[64];
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ',') { /* thousands separator: digit on both sides */
            if (i == 0 || i + 1 == n || !isdigit((unsigned char)s[i - 1]) ||
                !isdigit((unsigned char)s[i + 1])) {
                return NUM_BAD;
            }
            continue;
        }
        if (j + 1 >= sizeof(buf)) {
            return NUM_RANGE;
        }
        buf[j++] = s[i];
    }
    buf[j] = '\0';
    if (j == 0) {
        return NUM_BAD;
    }
    char* end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (*end == '\0') {
        if (errno == ERANGE) {
            return NUM_RANGE;
        }
        *out = v;
        return NUM_OK;
    }
    errno = 0;
    double d = strtod(buf, &end);
    if (*end != '\0' || isnan(d)) {
        return NUM_BAD;
    }
    if (errno == ERANGE || !(fabs(d) < 9.2e18)) {
        return NUM_RANGE;
    }
    *out = llround(d);
    return NUM_OK;
}

static NumStatus parse_real(const char* s, size_t n, double* out) {
    trim(&s, &n);
    if (n == 0 || (n == 4 && memcmp(s, "None", 4) == 0)) {
        return NUM_EMPTY;
    }
    char buf[64];
    if (n >= sizeof(buf) || memchr(s, '\0', n)) {
        return NUM_BAD;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    char* end;
    double d = strtod(buf, &end);
    if (*end != '\0' || !isfinite(d)) {
        return NUM_BAD;
    }
    *out = d;
    return NUM_OK;
}

/* "Agent 4", "GPU 2" or "4" -> 4 (rocprofv3 writes Agent_Id either way). */
static NumStatus parse_id(const char* s, size_t n, int64_t* out) {
    trim(&s, &n);
    if (memchr(s, '\0', n)) {
        return NUM_BAD;
    }
    size_t i = n;
    while (i > 0 && isdigit((unsigned char)s[i - 1])) {
        i--;
    }
    if (i == n) {
        return parse_i64(s, n, out);
    }
    return parse_i64(s + i, n - i, out);
}

static const char* field_label(const Ctx* c, Field f) {
    static const char* const labels[F_COUNT] = {
        [F_CALLS] = "Calls", [F_TOTAL] = "TotalDurationNs", [F_MIN] = "MinNs",
        [F_MAX] = "MaxNs", [F_STDDEV] = "StdDev", [F_START] = "start timestamp",
        [F_END] = "end timestamp", [F_DUR] = "duration", [F_TIMESTAMP] = "Timestamp"};
    (void)c;
    return labels[f] ? labels[f] : "number";
}

/* ---- row access --------------------------------------------------------------- */

typedef struct Row_ {
    const CsvRow* r;
    int shift; /* extra fields merged into the name column */
    int name_col;
} Row;

static int col_of(const Ctx* c, const Row* row, Field f) {
    int k = c->where[f];
    if (k < 0) {
        return -1;
    }
    return k > row->name_col && row->name_col >= 0 ? k + row->shift : k;
}

static int has(const Ctx* c, Field f) {
    return c->where[f] >= 0;
}

/* The text of field f (merged name when the row had unquoted commas). */
static const char* text_of(Ctx* c, const Row* row, Field f, size_t* len) {
    int k = col_of(c, row, f);
    if (k < 0 || k >= row->r->n) {
        *len = 0;
        return "";
    }
    if (k == row->name_col && row->shift > 0) {
        size_t need = 0;
        for (int i = k; i <= k + row->shift; i++) {
            need += row->r->f[i].len + 1;
        }
        xgrow((void**)&c->joined, &c->joined_cap, need + 1);
        size_t o = 0;
        for (int i = k; i <= k + row->shift; i++) {
            if (i > k) {
                c->joined[o++] = ',';
            }
            memcpy(c->joined + o, row->r->f[i].s, row->r->f[i].len);
            o += row->r->f[i].len;
        }
        c->joined[o] = '\0';
        *len = o;
        return c->joined;
    }
    *len = row->r->f[k].len;
    return row->r->f[k].s;
}

/* Reads integer field f into *v: LOAD_NULL when the column is absent or empty.
 * Returns 0 and rejects the row when the value is not a number. */
static int get_opt(Ctx* c, const Row* row, Field f, int id_like, int64_t* v) {
    size_t n;
    int k = col_of(c, row, f);
    *v = LOAD_NULL;
    if (k < 0) {
        return 1;
    }
    const char* s = text_of(c, row, f, &n);
    NumStatus ns = id_like ? parse_id(s, n, v) : parse_i64(s, n, v);
    if (ns == NUM_OK || ns == NUM_EMPTY) {
        if (ns == NUM_EMPTY) {
            *v = LOAD_NULL;
        }
        return 1;
    }
    char* shown = Names_sanitize(s, n > 40 ? 40 : n);
    Load_reject(c->core, c->f, row->r->line, "column %d: %s '%s'", k + 1,
                ns == NUM_RANGE ? "number out of range" : "not a number", shown);
    free(shown);
    return 0;
}

/* get_opt, bound to parameter idx of st (NULL when absent or empty). */
static int bind_opt(Ctx* c, const Row* row, sqlite3_stmt* st, int idx, Field f, int id_like) {
    int64_t v;
    if (!get_opt(c, row, f, id_like, &v)) {
        return 0;
    }
    if (v == LOAD_NULL) {
        sqlite3_bind_null(st, idx);
    } else {
        sqlite3_bind_int64(st, idx, v);
    }
    return 1;
}

/* Reads a required non-negative integer; rejects the row otherwise. */
static int get_req(Ctx* c, const Row* row, Field f, int64_t* out) {
    size_t n;
    int k = col_of(c, row, f);
    const char* s = text_of(c, row, f, &n);
    NumStatus ns = parse_i64(s, n, out);
    if (ns == NUM_OK && *out >= 0) {
        return 1;
    }
    char* shown = Names_sanitize(s, n > 40 ? 40 : n);
    Load_reject(c->core, c->f, row->r->line, "column %d (%s): %s '%s'", k + 1,
                field_label(c, f),
                ns == NUM_OK      ? "negative value"
                : ns == NUM_RANGE ? "number out of range"
                : ns == NUM_EMPTY ? "missing value"
                                  : "not a number",
                shown);
    free(shown);
    return 0;
}

/* start/end/duration, each a required non-negative number where the format has it:
 * start and end when both columns exist (LOAD_NULL otherwise), else the duration column.
 * LoadEvent_* then checks the end against the start and derives the duration. */
static int get_times(Ctx* c, const Row* row, int64_t* start, int64_t* end, int64_t* dur) {
    *start = *end = *dur = LOAD_NULL;
    if (has(c, F_START) && has(c, F_END)) {
        return get_req(c, row, F_START, start) && get_req(c, row, F_END, end);
    }
    if (has(c, F_DUR)) {
        return get_req(c, row, F_DUR, dur);
    }
    Load_reject(c->core, c->f, row->r->line, "no timestamps");
    return 0;
}

static int step(Ctx* c, sqlite3_stmt* st) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        Load_message(c->core, c->f, "SQLite: %s", sqlite3_errmsg(TraceDb_handle(c->core->db)));
        return 0;
    }
    return 1;
}

static void count_layer(Ctx* c, int layer, int grain, int rank) {
    c->f->layer_rows[layer]++;
    c->f->layer_grain[layer] = grain;
    if (rank > c->f->layer_rank[layer]) {
        c->f->layer_rank[layer] = rank;
    }
    c->f->rows++;
}

/* Names that are summary or placeholder rows, not kernels (FORMATS.md 6.5). */
static int skip_name(const char* s, size_t n) {
    while (n > 0 && (*s == '"' || *s == ' ')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == '"' || s[n - 1] == ' ')) {
        n--;
    }
    return (n == 5 && memcmp(s, "Total", 5) == 0) ||
           (n == 20 && memcmp(s, "Unknown command type", 20) == 0) ||
           (n == 16 && memcmp(s, "<barrier packet>", 16) == 0);
}

static int64_t product3(Ctx* c, const Row* row, Field x, Field y, Field z, int* ok) {
    int64_t p = 1;
    int any = 0;
    Field fs[3] = {x, y, z};
    for (int i = 0; i < 3; i++) {
        if (!has(c, fs[i])) {
            continue;
        }
        size_t n;
        const char* s = text_of(c, row, fs[i], &n);
        int64_t v;
        if (parse_i64(s, n, &v) == NUM_OK && v >= 0 && v < (1LL << 40)) {
            p *= v ? v : 1;
            any = 1;
        }
    }
    *ok = any;
    return p;
}

/* ---- row handlers -------------------------------------------------------------- */

static const char* api_domain_of(const char* raw, size_t n, int* is_marker) {
    *is_marker = 0;
    if (n >= 6 && memcmp(raw, "MARKER", 6) == 0) {
        *is_marker = 1;
        return "MARKER";
    }
    if (n >= 5 && memcmp(raw, "ROCTX", 5) == 0) {
        *is_marker = 1;
        return "ROCTX";
    }
    if (n >= 3 && memcmp(raw, "HIP", 3) == 0) {
        return (n >= 12 && memcmp(raw, "HIP_COMPILER", 12) == 0) ? "HIP_COMPILER" : "HIP";
    }
    if (n >= 3 && memcmp(raw, "HSA", 3) == 0) {
        return "HSA";
    }
    if (n >= 4 && memcmp(raw, "RCCL", 4) == 0) {
        return "RCCL";
    }
    return NULL;
}

/* A stats row's numbers as measurements: Calls and TotalDurationNs at most LOAD_MAX_AMOUNT
 * (one row of Calls = 2^63-1 made every sum overflow), and the average between MinNs and
 * MaxNs where they are given (calls x min <= total <= calls x max, in integers). */
static int stats_sane(Ctx* c, const Row* row, int64_t calls, int64_t total) {
    long line = row->r->line;
    if (calls > LOAD_MAX_AMOUNT || total > LOAD_MAX_AMOUNT) {
        int k = col_of(c, row, calls > LOAD_MAX_AMOUNT ? F_CALLS : F_TOTAL);
        Load_reject(c->core, c->f, line, "column %d (%s): %lld is out of range (over 2^53)",
                    k + 1, field_label(c, calls > LOAD_MAX_AMOUNT ? F_CALLS : F_TOTAL),
                    (long long)(calls > LOAD_MAX_AMOUNT ? calls : total));
        return 0;
    }
    int64_t lo = LOAD_NULL, hi = LOAD_NULL;
    size_t n;
    const char* s;
    if (has(c, F_MIN) && (s = text_of(c, row, F_MIN, &n)) && parse_i64(s, n, &lo) != NUM_OK) {
        lo = LOAD_NULL;
    }
    if (has(c, F_MAX) && (s = text_of(c, row, F_MAX, &n)) && parse_i64(s, n, &hi) != NUM_OK) {
        hi = LOAD_NULL;
    }
    if (calls > 0 && lo != LOAD_NULL && lo > total / calls) {
        Load_reject(c->core, c->f, line, "average %lld ns (TotalDurationNs / Calls) is below"
                    " MinNs %lld", (long long)(total / calls), (long long)lo);
        return 0;
    }
    if (calls > 0 && hi != LOAD_NULL && (total + calls - 1) / calls > hi) {
        Load_reject(c->core, c->f, line, "average %lld ns (TotalDurationNs / Calls) is above"
                    " MaxNs %lld", (long long)(total / calls), (long long)hi);
        return 0;
    }
    return 1;
}

static void row_stats(Ctx* c, const Row* row) {
    size_t nlen;
    const char* name = text_of(c, row, F_NAME, &nlen);
    if (skip_name(name, nlen)) {
        return;
    }
    nlen = Load_capName(c->core, c->f, row->r->line, NULL, name, nlen);
    if (c->stats == STATS_GUESS) {
        char* norm = Names_normalize(name, nlen);
        if (Names_isApiName(norm)) {
            c->stats = STATS_API;
            c->api_domain = strncmp(norm, "hsa_", 4) == 0 ? "HSA" : "HIP";
        } else if (strncmp(norm, "Copy", 4) == 0 || strncmp(norm, "MEMORY_COPY", 11) == 0 ||
                   strncmp(norm, "FillBuffer", 10) == 0) {
            c->stats = STATS_COPY;
        } else {
            c->stats = STATS_KERNEL;
        }
        free(norm);
    }
    int64_t calls, total;
    if (!get_req(c, row, F_CALLS, &calls) || !get_req(c, row, F_TOTAL, &total) ||
        !stats_sane(c, row, calls, total)) {
        return;
    }
    if (nlen == 0) {
        Load_reject(c->core, c->f, row->r->line, "empty name");
        return;
    }
    sqlite3_stmt* st;
    int first_num;
    int layer;
    if (c->stats == STATS_KERNEL) {
        int64_t kid = Load_kernelId(c->core, name, nlen);
        if (!kid) {
            return;
        }
        st = c->core->st[ST_KSTAT];
        sqlite3_bind_int64(st, 1, c->f->id);
        sqlite3_bind_int64(st, 2, kid);
        first_num = 3;
        layer = LAYER_KERNEL;
    } else {
        char* norm = Names_normalize(name, nlen);
        if (c->stats == STATS_API) {
            st = c->core->st[ST_APISTAT];
            sqlite3_bind_int64(st, 1, c->f->id);
            size_t dl = 0;
            const char* dom = has(c, F_DOMAIN) ? text_of(c, row, F_DOMAIN, &dl) : NULL;
            if (dom && dl > 0) { /* a dcutop export keeps the domain of each row */
                sqlite3_bind_text(st, 2, Names_normalize(dom, dl), -1, free);
            } else {
                sqlite3_bind_text(st, 2, c->api_domain, -1, SQLITE_STATIC);
            }
            sqlite3_bind_text(st, 3, norm, -1, free);
            first_num = 4;
            layer = LAYER_API;
        } else {
            st = c->core->st[ST_COPYSTAT];
            sqlite3_bind_int64(st, 1, c->f->id);
            sqlite3_bind_text(st, 2, norm, -1, free);
            first_num = 3;
            layer = LAYER_COPY;
        }
    }
    sqlite3_bind_int64(st, first_num, calls);
    sqlite3_bind_int64(st, first_num + 1, total);
    if (!bind_opt(c, row, st, first_num + 2, F_MIN, 0) ||
        !bind_opt(c, row, st, first_num + 3, F_MAX, 0)) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        return;
    }
    double sd;
    size_t sn;
    const char* ss = text_of(c, row, F_STDDEV, &sn);
    if (has(c, F_STDDEV) && parse_real(ss, sn, &sd) == NUM_OK) {
        sqlite3_bind_double(st, first_num + 4, sd);
    } else {
        sqlite3_bind_null(st, first_num + 4);
    }
    if (step(c, st)) {
        count_layer(c, layer, 1, 1);
    }
}

/* The PMC columns of a stored dispatch row. */
static void row_counters(Ctx* c, const Row* row, int64_t did) {
    for (int i = 0; i < c->n_counters; i++) {
        int k = c->counter_cols[i] + (c->counter_cols[i] > row->name_col ? row->shift : 0);
        double v;
        if (k < row->r->n && parse_real(row->r->f[k].s, row->r->f[k].len, &v) == NUM_OK) {
            LoadEvent_counter(c->core, c->f, did, c->counter_names[i], v);
        }
    }
}

/* ---- dispatch rows on the parser threads (csv_reader.h's CsvPrepare) ------------------
 * A dispatch row whose every field reads on the plain path (the columns as the header
 * says, each number valid) is converted by a parser thread into a Prepared; on_row then
 * only stores it. Any other row (merged name fields, a bad or missing number) gets no
 * payload and takes row_dispatch's checked path, which names the problem: the same rows
 * and messages either way. Pure: reads only what on_header set. */
typedef struct Prepared_ {
    LoadDispatch d;
    uint64_t name_hash; /* Intern_hash of the raw name */
    int64_t kid;        /* its kernel id when already interned (raw_shared), else 0 */
    int skip;           /* a summary line (skip_name): nothing to store, d not read */
    int fit;            /* kid known, no counters, times taken (LoadEvent_timesFit): stored
                         * as it is, nothing checked again on the loading thread */
} Prepared;

/* Field f of a row with no merged fields: its text, or NULL when the column is absent. */
static const char* plain_text(const Ctx* c, const CsvRow* r, Field f, size_t* len) {
    int k = c->where[f];
    if (k < 0 || k >= r->n) {
        *len = 0;
        return NULL;
    }
    *len = r->f[k].len;
    return r->f[k].s;
}

/* get_opt without the message: 0 where get_opt would reject. */
static int plain_opt(const Ctx* c, const CsvRow* r, Field f, int id_like, int64_t* v) {
    size_t n;
    const char* s = plain_text(c, r, f, &n);
    *v = LOAD_NULL;
    if (!s) {
        return c->where[f] < 0; /* absent: NULL; a short row: the checked path says so */
    }
    NumStatus ns = id_like ? parse_id(s, n, v) : parse_i64(s, n, v);
    if (ns == NUM_EMPTY) {
        *v = LOAD_NULL;
    }
    return ns == NUM_OK || ns == NUM_EMPTY;
}

/* get_req without the message. */
static int plain_req(const Ctx* c, const CsvRow* r, Field f, int64_t* v) {
    size_t n;
    const char* s = plain_text(c, r, f, &n);
    return s && parse_i64(s, n, v) == NUM_OK && *v >= 0;
}

/* product3 over a row with no merged fields. */
static int64_t plain_product3(const Ctx* c, const CsvRow* r, Field x, Field y, Field z,
                              int* ok) {
    int64_t p = 1;
    int any = 0;
    Field fs[3] = {x, y, z};
    for (int i = 0; i < 3; i++) {
        size_t n;
        const char* s = plain_text(c, r, fs[i], &n);
        int64_t v;
        if (s && parse_i64(s, n, &v) == NUM_OK && v >= 0 && v < (1LL << 40)) {
            p *= v ? v : 1;
            any = 1;
        }
    }
    *ok = any;
    return p;
}

/* The numbers of a dispatch row as row_dispatch reads them; 0 where it would reject. */
static int plain_dispatch(const Ctx* c, const CsvRow* r, LoadDispatch* d) {
    LoadDispatch_init(d);
    if (c->where[F_START] >= 0 && c->where[F_END] >= 0) {
        if (!plain_req(c, r, F_START, &d->start) || !plain_req(c, r, F_END, &d->end)) {
            return 0;
        }
    } else if (c->where[F_DUR] < 0 || !plain_req(c, r, F_DUR, &d->dur)) {
        return 0;
    }
    int ok;
    if (!plain_opt(c, r, F_INDEX, 0, &d->seq) || !plain_opt(c, r, F_GPU, 1, &d->gpu) ||
        !plain_opt(c, r, F_QUEUE, 1, &d->queue) || !plain_opt(c, r, F_STREAM, 1, &d->stream) ||
        !plain_opt(c, r, F_PID, 0, &d->pid) || !plain_opt(c, r, F_TID, 0, &d->tid) ||
        !plain_opt(c, r, F_CORR, 0, &d->corr)) {
        return 0;
    }
    if (c->where[F_GRID] >= 0) {
        if (!plain_opt(c, r, F_GRID, 0, &d->grid)) {
            return 0;
        }
    } else {
        int64_t g = plain_product3(c, r, F_GRIDX, F_GRIDY, F_GRIDZ, &ok);
        d->grid = ok ? g : LOAD_NULL;
    }
    if (c->where[F_WG] >= 0) {
        if (!plain_opt(c, r, F_WG, 0, &d->workgroup)) {
            return 0;
        }
    } else {
        int64_t w = plain_product3(c, r, F_WGX, F_WGY, F_WGZ, &ok);
        d->workgroup = ok ? w : LOAD_NULL;
    }
    return plain_opt(c, r, F_LDS, 0, &d->lds) && plain_opt(c, r, F_SCRATCH, 0, &d->scratch) &&
           plain_opt(c, r, F_VGPR, 0, &d->vgpr) && plain_opt(c, r, F_SGPR, 0, &d->sgpr);
}

/* CsvPrepareFn: a dispatch row with exactly the header's columns (no merged name). */
static int prepare_row(const CsvRow* r, void* data, void* out) {
    const Ctx* c = data;
    Prepared* p = out;
    size_t nlen;
    const char* name = plain_text(c, r, F_KERNEL_NAME, &nlen);
    if (c->kind != K_DISPATCH || r->too_wide || r->n != c->ncols || !name) {
        return 0;
    }
    /* the loading thread then never reads the name's bytes: a summary line is skipped, a
     * known kernel comes with its id (a new one, the first time, is interned there) */
    p->skip = skip_name(name, nlen);
    if (p->skip) {
        return 2;
    }
    if (!plain_dispatch(c, r, &p->d)) {
        return 0;
    }
    p->name_hash = Intern_hash(name, nlen);
    p->kid = SharedIntern_get(c->core->raw_shared, name, nlen, p->name_hash);
    p->fit = p->kid && c->n_counters == 0 &&
             LoadEvent_timesFit(&p->d.start, &p->d.end, &p->d.dur);
    /* row_prepared reads the fields only for a new name (text_of) or PMC columns */
    return p->kid && c->n_counters == 0 ? 2 : 1;
}

static const CsvPrepare csv_prepare = {prepare_row, sizeof(Prepared)};

/* A row a parser thread converted (prepare_row): stored as it is. */
static void row_prepared(Ctx* c, const Row* row, const Prepared* p, int rank) {
    if (p->skip) {
        return;
    }
    c->f->line = row->r->line;
    if (p->fit) {
        LoadEvent_dispatchFit(c->core, c->f, p->kid, &p->d, rank);
        return;
    }
    LoadDispatch d = p->d; /* the parser thread read the numbers; store them */
    int64_t did;
    if (p->kid) {
        did = LoadEvent_dispatchKernel(c->core, c->f, NULL, p->kid, &d, rank);
    } else {
        size_t nlen;
        const char* name = text_of(c, row, F_KERNEL_NAME, &nlen);
        did = LoadEvent_dispatchHashed(c->core, c->f, NULL, name, nlen, p->name_hash, &d, rank);
    }
    if (did) {
        row_counters(c, row, did);
    }
}

static void row_dispatch(Ctx* c, const Row* row, Field name_field, int rank) {
    const Prepared* p = row->r->prep;
    if (p && row->shift == 0 && name_field == F_KERNEL_NAME) {
        row_prepared(c, row, p, rank);
        return;
    }
    size_t nlen;
    const char* name = text_of(c, row, name_field, &nlen);
    if (skip_name(name, nlen)) {
        return;
    }
    LoadDispatch d;
    LoadDispatch_init(&d);
    if (!get_times(c, row, &d.start, &d.end, &d.dur) || !get_opt(c, row, F_INDEX, 0, &d.seq) ||
        !get_opt(c, row, F_GPU, 1, &d.gpu) || !get_opt(c, row, F_QUEUE, 1, &d.queue) ||
        !get_opt(c, row, F_STREAM, 1, &d.stream) || !get_opt(c, row, F_PID, 0, &d.pid) ||
        !get_opt(c, row, F_TID, 0, &d.tid) || !get_opt(c, row, F_CORR, 0, &d.corr)) {
        return;
    }
    int ok;
    if (has(c, F_GRID)) {
        if (!get_opt(c, row, F_GRID, 0, &d.grid)) {
            return;
        }
    } else {
        int64_t g = product3(c, row, F_GRIDX, F_GRIDY, F_GRIDZ, &ok);
        d.grid = ok ? g : LOAD_NULL;
    }
    if (has(c, F_WG)) {
        if (!get_opt(c, row, F_WG, 0, &d.workgroup)) {
            return;
        }
    } else {
        int64_t w = product3(c, row, F_WGX, F_WGY, F_WGZ, &ok);
        d.workgroup = ok ? w : LOAD_NULL;
    }
    if (!get_opt(c, row, F_LDS, 0, &d.lds) || !get_opt(c, row, F_SCRATCH, 0, &d.scratch) ||
        !get_opt(c, row, F_VGPR, 0, &d.vgpr) || !get_opt(c, row, F_SGPR, 0, &d.sgpr)) {
        return;
    }
    c->f->line = row->r->line;
    int64_t did = LoadEvent_dispatch(c->core, c->f, NULL, name, nlen, &d, rank);
    if (did) {
        row_counters(c, row, did);
    }
}

static void row_apicall(Ctx* c, const Row* row) {
    size_t dlen, nlen;
    const char* draw = text_of(c, row, F_DOMAIN, &dlen);
    const char* name = text_of(c, row, F_FUNCTION, &nlen);
    int is_marker;
    const char* domain = api_domain_of(draw, dlen, &is_marker);
    if (!domain) {
        domain = contains(c->base, "marker") ? "MARKER" : "HIP";
        is_marker = contains(c->base, "marker");
    }
    int64_t start, end, dur, pid, tid, corr;
    /* API formats are recognised by their start and end columns: dur is never alone here */
    if (!get_times(c, row, &start, &end, &dur) || !get_opt(c, row, F_PID, 0, &pid) ||
        !get_opt(c, row, F_TID, 0, &tid) || !get_opt(c, row, F_CORR, 0, &corr)) {
        return;
    }
    c->f->line = row->r->line;
    if (is_marker) {
        LoadEvent_range(c->core, c->f, NULL, domain, "range", name, nlen, pid, tid, corr, start,
                        end, 1);
    } else {
        LoadEvent_apiCall(c->core, c->f, NULL, domain, name, nlen, pid, tid, corr, start, end,
                          1);
    }
}

static void row_roctx2(Ctx* c, const Row* row) {
    size_t mlen;
    const char* m = text_of(c, row, F_MESSAGE, &mlen);
    int64_t ts, pid, tid, corr;
    if (!get_req(c, row, F_TIMESTAMP, &ts) || !get_opt(c, row, F_PID, 0, &pid) ||
        !get_opt(c, row, F_TID, 0, &tid) || !get_opt(c, row, F_CORR, 0, &corr)) {
        return;
    }
    c->f->line = row->r->line;
    /* one push, pop or mark: load_ranges.c pairs them into ranges */
    LoadEvent_range(c->core, c->f, NULL, "ROCTX", "event", m, mlen, pid, tid, corr, ts, ts, 1);
}

static void row_copy(Ctx* c, const Row* row, Field name_field) {
    size_t nlen;
    const char* name = text_of(c, row, name_field, &nlen);
    int64_t start, end, dur, src, dst, stream, corr, bytes;
    /* copy formats are recognised by their start column: dur is never alone here */
    if (!get_times(c, row, &start, &end, &dur) || !get_opt(c, row, F_SRC, 1, &src) ||
        !get_opt(c, row, F_DST, 1, &dst) || !get_opt(c, row, F_STREAM, 1, &stream) ||
        !get_opt(c, row, F_CORR, 0, &corr) || !get_opt(c, row, F_BYTES, 0, &bytes)) {
        return;
    }
    c->f->line = row->r->line;
    LoadEvent_copy(c->core, c->f, NULL, name, nlen, src, dst, stream, corr, bytes, start, end, 1);
}

static void row_hcc_ops(Ctx* c, const Row* row) {
    size_t klen;
    const char* k = text_of(c, row, F_KERNEL_NAME, &klen);
    const char* t = k;
    size_t tl = klen;
    trim(&t, &tl);
    if (tl > 0) {
        row_dispatch(c, row, F_KERNEL_NAME, 1); /* below results_<pid>.csv (rank 3) */
    } else {
        row_copy(c, row, F_OPERATION);
    }
}

static void row_agent(Ctx* c, const Row* row) {
    sqlite3_stmt* st = c->core->st[ST_AGENT];
    size_t n;
    const char* s;
    sqlite3_bind_int64(st, 1, c->f->id);
    if (!bind_opt(c, row, st, 2, F_NODE, 0)) {
        sqlite3_clear_bindings(st);
        return;
    }
    Field tf[] = {F_AGENT_TYPE, F_AGENT_NAME, F_PRODUCT};
    for (int i = 0; i < 3; i++) {
        s = text_of(c, row, tf[i], &n);
        trim(&s, &n);
        sqlite3_bind_text(st, 3 + i, Names_sanitize(s, n), -1, free);
    }
    if (!bind_opt(c, row, st, 6, F_CU, 0) || !bind_opt(c, row, st, 7, F_WAVE, 0)) {
        sqlite3_clear_bindings(st);
        return;
    }
    s = text_of(c, row, F_GFX, &n);
    trim(&s, &n);
    sqlite3_bind_text(st, 8, Names_sanitize(s, n), -1, free);
    if (step(c, st)) {
        count_layer(c, LAYER_AGENT, 2, 1);
    }
}

/* ---- counter_collection.csv ------------------------------------------------------- */

/* rocprofv3's counter_collection.csv holds one row per dispatch and counter, without times:
 * its values are staged in temp.counter_stage and attached, once every file is read and runs
 * are known, to the dispatch of the same run's kernel trace with the same Dispatch_Id and
 * kernel name (LoadCsv_linkCounters): one row per dispatch in the PMC layer. */
static const char stage_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS counter_stage(file_id INTEGER, seq INTEGER, kernel TEXT,"
    " name TEXT, value REAL, pid INTEGER)";

static int counter_open(Ctx* c) {
    sqlite3* db = TraceDb_handle(c->core->db);
    if (sqlite3_exec(db, stage_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO temp.counter_stage VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1,
                           &c->stage, NULL) != SQLITE_OK) {
        c->f->note = xasprintf("counter values not staged: %s", sqlite3_errmsg(db));
        return 0;
    }
    c->f->pmc = 1;
    return 1;
}

static void row_counter(Ctx* c, const Row* row) {
    int64_t seq;
    size_t kn, cn, vn;
    if (!get_req(c, row, F_INDEX, &seq)) {
        return;
    }
    const char* k = text_of(c, row, F_KERNEL_NAME, &kn);
    trim(&k, &kn);
    const char* cname = text_of(c, row, F_COUNTER_NAME, &cn);
    trim(&cname, &cn);
    const char* v = text_of(c, row, F_COUNTER_VALUE, &vn);
    trim(&v, &vn);
    char num[64];
    char* e = NULL;
    double val = 0;
    if (vn > 0 && vn < sizeof(num)) {
        memcpy(num, v, vn);
        num[vn] = '\0';
        errno = 0;
        val = strtod(num, &e);
    }
    if (cn == 0) {
        Load_reject(c->core, c->f, row->r->line, "empty counter name");
        return;
    }
    if (!e || e == num || *e != '\0' || errno != 0 || !isfinite(val)) {
        char* shown = Names_sanitize(v, vn > 40 ? 40 : vn);
        Load_reject(c->core, c->f, row->r->line, "counter value not a number '%s'", shown);
        free(shown);
        return;
    }
    sqlite3_bind_int64(c->stage, 1, c->f->id);
    sqlite3_bind_int64(c->stage, 2, seq);
    kn = Load_capName(c->core, c->f, row->r->line, NULL, k, kn);
    sqlite3_bind_text(c->stage, 3, Names_normalize(k, kn), -1, free);
    sqlite3_bind_text(c->stage, 4, Names_sanitize(cname, cn), -1, free);
    sqlite3_bind_double(c->stage, 5, val);
    int64_t pid; /* Process_Id: the run of its folder it belongs to, when its name has no pid */
    size_t pn;
    const char* ps = has(c, F_PID) && col_of(c, row, F_PID) >= 0 ? text_of(c, row, F_PID, &pn)
                                                                 : NULL;
    if (ps && parse_i64(ps, pn, &pid) == NUM_OK) {
        sqlite3_bind_int64(c->stage, 6, pid);
    }
    if (step(c, c->stage)) {
        c->f->rows++;
    }
    sqlite3_clear_bindings(c->stage);
}

static const char link_sql[] =
    "CREATE TEMP TABLE counter_link AS SELECT s.rowid AS sid, min(d.id) AS did\n"
    "  FROM temp.counter_stage s JOIN source_file sf ON sf.id = s.file_id\n"
    /* the kernel trace of the same run or, for a file whose name carries no pid (one
     * counter_collection.csv beside several runs), of the run of its folder tagged with the
     * row's Process_Id */
    "  JOIN source_file df ON df.id <> sf.id AND (df.run_id = sf.run_id OR (sf.run_tag = ''\n"
    "    AND df.dir IS sf.dir AND df.run_tag = CAST(s.pid AS TEXT)))\n"
    "  JOIN dispatch d ON d.file_id = df.id AND d.seq = s.seq\n"
    "  JOIN kernel k ON k.id = d.kernel_id AND k.name = s.kernel\n"
    "  GROUP BY s.rowid;\n"
    "INSERT INTO dispatch_counter(dispatch_id, name, value)\n"
    "  SELECT l.did, s.name, s.value FROM temp.counter_link l\n"
    "  JOIN temp.counter_stage s ON s.rowid = l.sid ORDER BY l.did, s.rowid;\n"
    /* the kernel trace now carries counters: its run is a PMC run (times distorted) */
    "UPDATE source_file SET pmc = 1 WHERE id IN (SELECT DISTINCT d.file_id\n"
    "  FROM temp.counter_link l JOIN dispatch d ON d.id = l.did);\n"
    "UPDATE source_file SET note = (SELECT count(l.sid) || ' of ' || count(*)\n"
    "    || ' counter values attached to the dispatches of the kernel trace of the same run'\n"
    "    || CASE WHEN count(l.sid) < count(*) THEN ' (the others name a Dispatch_Id and kernel'\n"
    "       || ' that no kernel trace of the run holds: not kept)' ELSE '' END\n"
    "    FROM temp.counter_stage s LEFT JOIN temp.counter_link l ON l.sid = s.rowid\n"
    "    WHERE s.file_id = source_file.id)\n"
    "  WHERE id IN (SELECT file_id FROM temp.counter_stage);\n"
    /* a value not attached is not kept: a rejected row, as --strict and the totals count */
    "UPDATE source_file SET (rows_read, rows_rejected) = (SELECT rows_read - count(*),\n"
    "    rows_rejected + count(*) FROM temp.counter_stage s\n"
    "    WHERE s.file_id = source_file.id AND s.rowid NOT IN (SELECT sid FROM temp.counter_link))\n"
    "  WHERE id IN (SELECT file_id FROM temp.counter_stage);\n";
static const char unlink_sql[] =
    "DROP TABLE temp.counter_link;\n"
    "DROP TABLE temp.counter_stage;\n";

DcuStatus LoadCsv_linkCounters(LoaderCore* core, int64_t* lost, DcuError* err) {
    *lost = 0;
    sqlite3* db = TraceDb_handle(core->db);
    sqlite3_stmt* st = NULL;
    int staged = sqlite3_prepare_v2(db, "SELECT 1 FROM temp.counter_stage LIMIT 1", -1, &st,
                                    NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    if (!staged) {
        return DCU_OK; /* no counter_collection.csv was read */
    }
    DcuStatus s = TraceDb_exec(core->db, link_sql, err);
    if (s == DCU_OK && sqlite3_prepare_v2(db, "SELECT count(*) FROM temp.counter_stage WHERE "
                                              "rowid NOT IN (SELECT sid FROM temp.counter_link)",
                                          -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            *lost = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    }
    return s == DCU_OK ? TraceDb_exec(core->db, unlink_sql, err) : s;
}

/* ---- header recognition ---------------------------------------------------------- */

static const char* stats_format(Ctx* c, int dcutop_export) {
    const char* b = c->base;
    int v3 = c->where[F_MIN] >= 0;
    if (dcutop_export) {
        c->stats = STATS_GUESS;
        return "dcutop export";
    }
    if (ends_with(b, ".hipkernel.csv") || ends_with(b, ".kernel.csv") || ends_with(b, "kernel.csv")) {
        c->stats = STATS_KERNEL;
        return "hipprof kernel stats";
    }
    if (ends_with(b, ".hiptrace.csv")) {
        c->stats = STATS_API;
        c->api_domain = "HIP";
        return "hipprof HIP API stats";
    }
    if (ends_with(b, ".hsatrace.csv")) {
        c->stats = STATS_API;
        c->api_domain = "HSA";
        return "hipprof HSA API stats";
    }
    if (ends_with(b, "hip_stats.csv") || ends_with(b, "hip_api_stats.csv")) {
        c->stats = STATS_API;
        c->api_domain = "HIP";
        return v3 ? "rocprofv3 HIP API stats" : "rocprof v1 HIP API stats";
    }
    if (ends_with(b, "hsa_stats.csv") || ends_with(b, "hsa_api_stats.csv")) {
        c->stats = STATS_API;
        c->api_domain = "HSA";
        return v3 ? "rocprofv3 HSA API stats" : "rocprof v1 HSA API stats";
    }
    if (ends_with(b, "rccl_api_stats.csv")) {
        c->stats = STATS_API;
        c->api_domain = "RCCL";
        return "rocprofv3 RCCL API stats";
    }
    if (ends_with(b, "copy_stats.csv")) {
        c->stats = STATS_COPY;
        return v3 ? "rocprofv3 memory copy stats" : "rocprof v1 copy stats";
    }
    if (ends_with(b, "kernel_stats.csv")) {
        c->stats = STATS_KERNEL;
        return "rocprofv3 kernel stats";
    }
    if (ends_with(b, "domain_stats.csv") || ends_with(b, "marker_api_stats.csv") ||
        ends_with(b, "memory_allocation_stats.csv") || ends_with(b, "scratch_memory_stats.csv") ||
        contains(b, "counter_collection_stats")) {
        c->kind = K_SKIP;
        c->f->note = xstrdup("aggregate that repeats other files (or ranges, not times); not "
                             "loaded, so nothing is counted twice");
        return "rocprofv3 stats (not used)";
    }
    if (ends_with(b, ".stats.csv")) {
        c->stats = STATS_KERNEL;
        return "rocprof v1 kernel stats";
    }
    c->stats = STATS_GUESS; /* decided by the first name: hip*, Copy*, else kernel */
    return v3 ? "stats CSV (8 columns)" : "stats CSV (5 columns)";
}

/* Marks the file skipped, its note quoting the start of the header row. */
static void unknown_header(Ctx* c, const CsvRow* r) {
    c->kind = K_UNKNOWN;
    char h[81];
    size_t l = 0;
    for (int i = 0; i < r->n && l + 2 < sizeof(h); i++) {
        size_t fl = r->f[i].len;
        if (l + fl + 2 >= sizeof(h)) {
            fl = sizeof(h) - l - 2;
        }
        if (i) {
            h[l++] = ',';
        }
        memcpy(h + l, r->f[i].s, fl);
        l += fl;
    }
    char* shown = Names_sanitize(h, l);
    c->f->format = "skipped";
    c->f->note = xasprintf("unrecognised CSV header '%s' (see FORMATS in README)", shown);
    free(shown);
}

static int on_header(Ctx* c, const CsvRow* r) {
    c->ncols = r->n;
    c->col = xcalloc((size_t)r->n, sizeof(Field));
    for (int f = 0; f < F_COUNT; f++) {
        c->where[f] = -1;
    }
    int unknown = 0, dcutop_export = 0;
    for (int i = 0; i < r->n; i++) {
        char h[128];
        lower_header(r->f[i].s, r->f[i].len, h, sizeof(h));
        dcutop_export |= strcmp(h, "total_ns") == 0;
        Field f = lookup(h);
        c->col[i] = f;
        if (f == F_NONE) {
            unknown++;
        } else if (f != F_IGNORE && c->where[f] < 0) {
            c->where[f] = i;
        }
    }
    const char* fmt = NULL;
    if (has(c, F_NAME) && has(c, F_CALLS) && has(c, F_TOTAL)) {
        c->kind = K_STATS;
        fmt = stats_format(c, dcutop_export);
    } else if (has(c, F_COUNTER_NAME) && has(c, F_COUNTER_VALUE)) {
        fmt = "rocprofv3 counter collection";
        c->kind = counter_open(c) ? K_COUNTER : K_SKIP;
    } else if (has(c, F_KERNEL_NAME) && has(c, F_INDEX) && c->where[F_KIND] < 0 &&
               has(c, F_START) == has(c, F_END) && c->where[F_OPERATION] < 0) {
        c->kind = K_DISPATCH;
        int v2 = c->where[F_GPU] >= 0 && r->n > 0 && r->f[0].len > 0 &&
                 (r->f[0].s[0] == 'D' || r->f[0].s[0] == 'd') && !has(c, F_NAME);
        fmt = v2 ? "rocprofv2 kernel trace" : "rocprof v1 results.csv";
        if (v2 && strncmp(c->base, "pmc_perf", 8) == 0) { /* rocprof-compute's joined passes */
            fmt = "rocprof-compute pmc_perf.csv (PMC per dispatch)";
        }
        c->kernel_rank = 3;
        if (!has(c, F_START) && !has(c, F_DUR)) {
            c->kind = K_SKIP;
            c->f->note = xstrdup("per-dispatch PMC counters without timestamps (a PMC run): "
                                 "no kernel times to load");
        }
    } else if (has(c, F_KERNEL_NAME) && has(c, F_KIND) && has(c, F_START)) {
        c->kind = K_DISPATCH;
        fmt = has(c, F_GUID) ? "rocprofv3 kernel trace (rocpd convert)" : "rocprofv3 kernel trace";
        c->kernel_rank = 3;
    } else if (has(c, F_KIND) && has(c, F_DIRECTION) && has(c, F_START)) {
        c->kind = K_COPY;
        fmt = "rocprofv3 memory copy trace";
    } else if (has(c, F_DOMAIN) && has(c, F_FUNCTION) && has(c, F_START) && has(c, F_END)) {
        c->kind = K_APICALL;
        fmt = has(c, F_PID) ? (contains(c->base, "marker") ? "rocprofv3 marker trace"
                                                           : "rocprofv3 API trace")
                            : "rocprofv2 API trace";
    } else if (has(c, F_DOMAIN) && has(c, F_MESSAGE) && has(c, F_TIMESTAMP)) {
        c->kind = K_ROCTX2;
        fmt = "rocprofv2 roctx trace";
    } else if (has(c, F_DOMAIN) && has(c, F_OPERATION) && has(c, F_KERNEL_NAME) &&
               has(c, F_START)) {
        c->kind = K_HCC_OPS;
        fmt = "rocprofv2 HIP activity (hcc_ops)";
    } else if (has(c, F_DOMAIN) && has(c, F_OPERATION) && has(c, F_START)) {
        c->kind = K_COPY;
        fmt = "rocprofv2 async copy trace";
    } else if (has(c, F_NODE) && has(c, F_AGENT_TYPE)) {
        c->kind = K_AGENT;
        fmt = "rocprofv3 agent info";
        c->where[F_AGENT_NAME] = -1;
        for (int i = 0; i < r->n; i++) { /* agent_info has Name: the agent's name */
            if (c->col[i] == F_NAME) {
                c->where[F_AGENT_NAME] = i;
            }
        }
    }
    int ck = fmt ? 0 : LoadCompute_sniffCsv(r);
    if (ck > 0) {
        c->kind = K_COMPUTE;
        c->compute = LoadCompute_begin(c->core, c->f, r, ck, &fmt);
    }
    if (!fmt) {
        unknown_header(c, r);
        return 1;
    }
    c->f->format = fmt;
    if (c->kind == K_SKIP) {
        return 1;
    }
    /* Unknown numeric columns of a per-dispatch file are PMC counters (rocprof v1 -i). */
    if (c->kind == K_DISPATCH && !has(c, F_KIND) && unknown > 0) {
        c->counter_cols = xmalloc(sizeof(int) * (size_t)unknown);
        c->counter_names = xmalloc(sizeof(char*) * (size_t)unknown);
        for (int i = 0; i < r->n; i++) {
            if (c->col[i] == F_NONE) {
                c->counter_cols[c->n_counters] = i;
                const char* s = r->f[i].s;
                size_t n = r->f[i].len;
                trim(&s, &n);
                c->counter_names[c->n_counters++] = Names_sanitize(s, n);
            }
        }
        c->f->pmc = 1;
    }
    return 0;
}

static Field name_field(const Ctx* c) {
    switch (c->kind) {
    case K_STATS:
        return F_NAME;
    case K_DISPATCH:
    case K_HCC_OPS:
        return F_KERNEL_NAME;
    case K_APICALL:
        return F_FUNCTION;
    case K_ROCTX2:
        return F_MESSAGE;
    default:
        return F_NONE;
    }
}

/* A row of the wrong width. When its quoted fields hold line breaks, the row may have
 * swallowed the rows after its start (one unmatched '"' turns the rest of a file into one
 * field): the message says which line it runs on to, and each swallowed line that holds a
 * row's delimiters (ncols - 1 commas) counts as a lost row, so the Files table and --strict
 * show the loss and not one rejected row. A name broken over two lines loses no row. */
static void reject_width(Ctx* c, const CsvRow* r) {
    long nl = 0, rows = 0;
    for (int k = 0; r->f && k < r->n; k++) {
        const char* s = r->f[k].s;
        const char* end = s + r->f[k].len;
        const char* br;
        while ((br = memchr(s, '\n', (size_t)(end - s))) != NULL) {
            nl++;
            /* the line after this break, up to the next break or the field's end */
            const char* ln = br + 1;
            const char* le = memchr(ln, '\n', (size_t)(end - ln));
            le = le ? le : end;
            int commas = 0;
            for (const char* q = ln; q < le && commas < c->ncols - 1; q++) {
                commas += *q == ',';
            }
            rows += c->ncols > 1 && commas >= c->ncols - 1;
            s = br + 1;
        }
    }
    /* a field that ran to the end of the file holds the last line's own line break */
    const CsvField* last = r->f && r->n > 0 ? &r->f[r->n - 1] : NULL;
    long swallowed = nl - (last && last->len > 0 && last->s[last->len - 1] == '\n');
    if (swallowed <= 0) {
        Load_reject(c->core, c->f, r->line, "expected %d columns but found %d", c->ncols, r->n);
        return;
    }
    Load_reject(c->core, c->f, r->line,
                "expected %d columns but found %d; this row runs on to line %ld: a quoted field "
                "holds line breaks (an unmatched '\"'?), so the %ld rows on the %ld lines after "
                "its first were not read", c->ncols, r->n, r->line + swallowed, rows, swallowed);
    c->f->rejected += rows;
    c->f->messages += rows; /* the message above tells of them */
}

static int on_row(const CsvRow* r, void* data) {
    Ctx* c = data;
    if (c->core->storage_rc) { /* the store failed: no later row can be kept (load_one) */
        return 1;
    }
    if (!c->header_done) {
        c->header_done = 1;
        return on_header(c, r);
    }
    if (r->too_wide) {
        Load_reject(c->core, c->f, r->line, "more than %d columns", CSV_MAX_FIELDS);
        return 0;
    }
    Row row = {r, 0, -1};
    Field nf = name_field(c);
    if (nf != F_NONE && c->where[nf] >= 0) {
        row.name_col = c->where[nf];
    }
    if (r->n > c->ncols) {
        /* Unquoted names with commas (rocprof < 5.3, FORMATS.md 2.5): the extra fields
         * belong to the name; everything right of it is anchored from the right. */
        if (row.name_col >= 0) {
            row.shift = r->n - c->ncols;
        } else {
            reject_width(c, r);
            return 0;
        }
    } else if (r->n < c->ncols) {
        if (r->n == 1 && r->f[0].len == 0) {
            return 0; /* a line holding only a stray delimiter-less blank */
        }
        reject_width(c, r);
        return 0;
    }
    switch (c->kind) {
    case K_STATS:
        row_stats(c, &row);
        break;
    case K_DISPATCH:
        row_dispatch(c, &row, F_KERNEL_NAME, c->kernel_rank);
        break;
    case K_APICALL:
        row_apicall(c, &row);
        break;
    case K_ROCTX2:
        row_roctx2(c, &row);
        break;
    case K_COPY:
        row_copy(c, &row, has(c, F_DIRECTION) ? F_DIRECTION : F_OPERATION);
        break;
    case K_HCC_OPS:
        row_hcc_ops(c, &row);
        break;
    case K_AGENT:
        row_agent(c, &row);
        break;
    case K_COMPUTE:
        LoadCompute_row(c->compute, r);
        break;
    case K_COUNTER:
        row_counter(c, &row);
        break;
    default:
        return 1;
    }
    return 0;
}

static void progress(uint64_t done, void* data) {
    Ctx* c = data;
    Load_progress(c->core, c->f, done);
}

DcuStatus LoadCsv_file(LoaderCore* core, LoadFile* f, DcuError* err) {
    Ctx c = {0};
    c.core = core;
    c.f = f;
    const char* slash = strrchr(f->path, '/');
    /* the name without ".gz": a .csv.gz is known by the name of the CSV inside */
    char* base = xstrdup(slash ? slash + 1 : f->path);
    size_t bl = strlen(base);
    if (bl > 3 && strcmp(base + bl - 3, ".gz") == 0) {
        base[bl - 3] = '\0';
    }
    c.base = base;
    DcuStatus s = CsvReader_readFilePrepared(f->path, on_row, progress, &csv_prepare, &c, err);
    s = Load_keepCut(core, f, s, err);
    if (s == DCU_OK && !c.header_done) {
        f->format = "skipped";
        f->note = xstrdup("empty file");
    }
    free(c.col);
    for (int i = 0; i < c.n_counters; i++) {
        free(c.counter_names[i]);
    }
    free(c.counter_names);
    free(c.counter_cols);
    free(c.joined);
    LoadCompute_end(c.compute);
    sqlite3_finalize(c.stage);
    free(base);
    return s;
}
