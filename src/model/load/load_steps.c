/* load_steps.c - plain timing taken without a profiler: the run's end-to-end layer ('steps').
 * Two forms: a JSON object with a list of milliseconds under "step_ms_events" (or "step_ms",
 * "steps_ms"), as make_runs.py writes step-times.json, and a one-column CSV of step times in
 * ms with an optional header line. Rows go to step_time(file_id, idx, ms). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yajl/yajl_parse.h>

#include "dcutop/names.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "json_feed.h"
#include "gz_file.h"
#include "load_internal.h"

enum { STEPS_JSON = 1, STEPS_CSV = 2 };

/* The 2^53 rule of the other inputs (load_event.h LOAD_MAX_AMOUNT), in ms: a step longer
 * than 2^53 ns (104 days) is rejected, so no comparison divides infinities. */
#define STEPS_MAX_MS (9007199254740992.0 / 1e6)

static const char* const json_keys[] = {"step_ms_events", "step_ms", "steps_ms"};

static const char* base_name(const char* path) {
    const char* b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* A number that fills the whole (trimmed) text. */
static int parse_ms(const char* s, size_t n, double* out) {
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    if (n == 0 || n > 60) {
        return 0;
    }
    char buf[64];
    memcpy(buf, s, n);
    buf[n] = '\0';
    char* end;
    errno = 0;
    double v = strtod(buf, &end);
    /* decimal only: "0x10" is not 16 ms */
    if (*end || errno || !isfinite(v) || v < 0 || buf[strspn(buf, "0123456789.eE+-")]) {
        return 0;
    }
    *out = v;
    return 1;
}

/* The header of a one-column step CSV names steps or milliseconds: "step_ms", "ms". */
static int step_header(const char* s, size_t n) {
    char low[64];
    if (n == 0 || n >= sizeof(low)) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(isalnum(c) || c == '_' || c == ' ' || c == '-' || c == '(' || c == ')' ||
              c == '"' || c == '\r')) {
            return 0;
        }
        low[i] = (char)tolower(c);
    }
    low[n] = '\0';
    return strstr(low, "step") || strstr(low, "ms") || strstr(low, "time");
}

int LoadSteps_sniff(const char* path, const unsigned char* head, size_t n) {
    const char* b = base_name(path);
    size_t i = 0;
    while (i < n && isspace(head[i])) {
        i++;
    }
    if (i < n && head[i] == '{') {
        const char* h = (const char*)head;
        for (size_t k = i; k + 8 < n; k++) {
            if (memcmp(h + k, "\"step_ms", 8) == 0 || memcmp(h + k, "\"steps_ms", 9) == 0) {
                return STEPS_JSON;
            }
        }
        return strcasecmp(b, "step-times.json") == 0 || strcasecmp(b, "step_times.json") == 0
                   ? STEPS_JSON
                   : 0;
    }
    if (memchr(head, ',', n) || memchr(head, '\0', n)) {
        return 0; /* several columns: a profiler CSV */
    }
    /* the first line a number or a step header, the second a number */
    const char* s = (const char*)head;
    const char* nl = memchr(s, '\n', n);
    if (!nl) {
        return 0;
    }
    size_t l1 = (size_t)(nl - s);
    const char* s2 = nl + 1;
    const char* nl2 = memchr(s2, '\n', n - l1 - 1);
    size_t l2 = nl2 ? (size_t)(nl2 - s2) : n - l1 - 1;
    double v;
    return (parse_ms(s, l1, &v) || step_header(s, l1)) && parse_ms(s2, l2, &v) ? STEPS_CSV : 0;
}

typedef struct StepIns_ {
    LoaderCore* core;
    LoadFile* f;
    sqlite3_stmt* st;
    int64_t idx;
} StepIns;

static DcuStatus store(StepIns* si, double ms, DcuError* err) {
    sqlite3_bind_int64(si->st, 1, si->f->id);
    sqlite3_bind_int64(si->st, 2, si->idx++);
    sqlite3_bind_double(si->st, 3, ms);
    int rc = sqlite3_step(si->st);
    sqlite3_reset(si->st);
    if (rc != SQLITE_DONE) {
        return Error_set(err, DCU_ERR_SQL, "step_time: %s",
                         sqlite3_errmsg(TraceDb_handle(si->core->db)));
    }
    si->f->rows++;
    si->f->layer_rows[LAYER_STEPS]++;
    return DCU_OK;
}

/* Forgets the steps stored from this file (a list superseded by a preferred key, or a
 * document that turned out unreadable). */
static void unstore(StepIns* si) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(si->core->db, "DELETE FROM step_time WHERE file_id = ?1", &st, NULL) ==
        DCU_OK) {
        sqlite3_bind_int64(st, 1, si->f->id);
        sqlite3_step(st);
    }
    sqlite3_finalize(st);
    si->f->rows -= si->f->layer_rows[LAYER_STEPS];
    si->f->layer_rows[LAYER_STEPS] = 0;
    si->idx = 0;
}

/* ---- JSON, streamed: JsonFeed (nesting depth, token cap) then yajl's event parser; no tree
 * is ever built, so nothing recursive walks the document. ------------------------------- */

#define STEPS_TOKEN_CAP (1u << 20) /* longest token kept: a number or key is far shorter */

typedef struct StepJson_ {
    StepIns* si;
    DcuStatus status; /* a storage error stops the parse */
    int depth;        /* containers open */
    int key_rank;     /* rank in json_keys of the key just read at depth 1, -1 if another */
    int best;         /* rank of the list being read / kept; NKEYS when none */
    int active;       /* 1: inside the kept list (depth 2 holds its elements) */
    size_t elem;      /* index of the next element of the active list */
    int nested;       /* depth at which the current element, a container, started; 0 if none */
} StepJson;

enum { NKEYS = sizeof(json_keys) / sizeof(json_keys[0]) };

/* An element of the active list: a time in ms, or a rejection naming its index. */
static void element(StepJson* sj, int is_number, const char* num, size_t len) {
    StepIns* si = sj->si;
    size_t i = sj->elem++;
    double ms;
    if (!is_number || !parse_ms(num, len, &ms)) {
        Load_reject(si->core, si->f, 0, "element %zu of the step list is not a time in ms", i);
    } else if (ms > STEPS_MAX_MS) {
        Load_reject(si->core, si->f, 0,
                    "element %zu of the step list: %g ms is out of range (over 2^53 ns, 104 days)",
                    i, ms);
    } else if (sj->status == DCU_OK) {
        DcuError e;
        Error_clear(&e);
        sj->status = store(si, ms, &e);
    }
}

static int in_list(const StepJson* sj) {
    return sj->active && sj->depth == 2 && !sj->nested;
}

static int sj_scalar(void* ctx) {
    StepJson* sj = ctx;
    if (in_list(sj)) {
        element(sj, 0, NULL, 0);
    }
    sj->key_rank = -1;
    return sj->status == DCU_OK;
}

static int sj_bool(void* ctx, int b) {
    (void)b;
    return sj_scalar(ctx);
}

static int sj_string(void* ctx, const unsigned char* s, size_t n) {
    (void)s;
    (void)n;
    return sj_scalar(ctx);
}

static int sj_number(void* ctx, const char* s, size_t n) {
    StepJson* sj = ctx;
    if (in_list(sj)) {
        element(sj, 1, s, n);
    }
    sj->key_rank = -1;
    return sj->status == DCU_OK;
}

static int sj_key(void* ctx, const unsigned char* s, size_t n) {
    StepJson* sj = ctx;
    sj->key_rank = -1;
    if (sj->depth == 1) {
        for (int k = 0; k < NKEYS; k++) {
            if (strlen(json_keys[k]) == n && memcmp(json_keys[k], s, n) == 0) {
                sj->key_rank = k;
            }
        }
    }
    return 1;
}

static int sj_open(StepJson* sj, int is_array) {
    if (in_list(sj)) {
        element(sj, 0, NULL, 0); /* a list or object where a time belongs */
        sj->nested = sj->depth + 1;
    } else if (is_array && sj->depth == 1 && sj->key_rank >= 0 && sj->key_rank < sj->best) {
        /* the list of a preferred key: it replaces one read before under another key */
        if (sj->best < NKEYS) {
            unstore(sj->si);
        }
        sj->best = sj->key_rank;
        sj->active = 1;
        sj->elem = 0;
    }
    sj->depth++;
    sj->key_rank = -1;
    return sj->status == DCU_OK;
}

static int sj_close(StepJson* sj) {
    if (sj->nested == sj->depth) {
        sj->nested = 0;
    }
    sj->depth--;
    if (sj->depth == 1) {
        sj->active = 0;
    }
    sj->key_rank = -1;
    return 1;
}

static int sj_start_map(void* ctx) {
    return sj_open(ctx, 0);
}

static int sj_start_array(void* ctx) {
    return sj_open(ctx, 1);
}

static int sj_end(void* ctx) {
    return sj_close(ctx);
}

static const yajl_callbacks step_callbacks = {
    sj_scalar, sj_bool,  NULL,         NULL,   sj_number, sj_string,
    sj_start_map, sj_key, sj_end, sj_start_array, sj_end,
};

/* yajl's message for the error at hand, first line only, sanitised; owned. */
static char* parse_error(yajl_handle h, const unsigned char* chunk, size_t n) {
    unsigned char* m = yajl_get_error(h, 0, chunk, n);
    const char* t = m ? (const char*)m : "?";
    size_t ml = strcspn(t, "\n");
    while (ml > 0 && isspace((unsigned char)t[ml - 1])) {
        ml--;
    }
    char* shown = Names_sanitize(t, ml);
    if (m) {
        yajl_free_error(h, m);
    }
    return shown;
}

/* Streams the file; returns NULL when read to its end, else why the document cannot be
 * read (owned). */
static char* json_stream(yajl_handle h, FILE* fp) {
    static const unsigned char placeholder[] = "\"\"";
    JsonFeed fd;
    JsonFeed_init(&fd, STEPS_TOKEN_CAP);
    unsigned char* block = xmalloc(1 << 16);
    char* why = NULL;
    size_t n;
    while (!why && (n = fread(block, 1, 1 << 16, fp)) > 0) {
        size_t pos = 0;
        for (;;) {
            JsonOversize over;
            int o = JsonFeed_scan(&fd, block, n, &pos, &over);
            if (fd.safe > 0) {
                if (yajl_parse(h, fd.buf, fd.safe) != yajl_status_ok) {
                    why = parse_error(h, fd.buf, fd.safe);
                    break;
                }
                JsonFeed_consume(&fd);
            }
            if (o == 0) {
                break;
            }
            if (o == 2) {
                why = xasprintf("JSON nested deeper than %d levels at byte %llu (line %ld)",
                                JSON_MAX_DEPTH, (unsigned long long)over.offset, over.line);
                break;
            }
            /* a token over the cap: an empty string in its place, rejected as an element */
            if (yajl_parse(h, placeholder, 2) != yajl_status_ok) {
                why = parse_error(h, placeholder, 2);
                break;
            }
        }
    }
    if (!why && ferror(fp)) {
        why = xasprintf("read error: %s", GzFile_readError(errno));
    }
    if (!why && ((fd.len > 0 && yajl_parse(h, fd.buf, fd.len) != yajl_status_ok) ||
                 yajl_complete_parse(h) != yajl_status_ok)) {
        why = parse_error(h, NULL, 0);
    }
    JsonFeed_done(&fd);
    free(block);
    return why;
}

static DcuStatus load_json(StepIns* si, FILE* fp, DcuError* err) {
    LoadFile* f = si->f;
    StepJson sj = {si, DCU_OK, 0, -1, NKEYS, 0, 0, 0};
    yajl_handle h = yajl_alloc(&step_callbacks, NULL, &sj);
    yajl_config(h, yajl_dont_validate_strings, 1);
    char* why = json_stream(h, fp);
    yajl_free(h);
    if (sj.status != DCU_OK) {
        free(why);
        return Error_set(err, sj.status, "step_time: %s",
                         sqlite3_errmsg(TraceDb_handle(si->core->db)));
    }
    if (why) {
        /* an unreadable document loads nothing, as when it was parsed whole */
        unstore(si);
        f->format = "skipped";
        f->note = xasprintf("step times JSON that cannot be read: %s", why);
        Load_message(si->core, f, "step times JSON that cannot be read: %s", why);
        free(why);
    } else if (sj.best == NKEYS) {
        f->format = "skipped";
        f->note = xstrdup("JSON without a step_ms_events list: not a trace");
    }
    return DCU_OK;
}

/* ---- CSV, streamed a line at a time: every line is read, however large the file. ------ */

#define STEPS_LINE_MAX 256 /* a step time is a number: a longer line is rejected, not kept */

static DcuStatus load_csv(StepIns* si, FILE* fp, DcuError* err) {
    DcuStatus s = DCU_OK;
    char buf[STEPS_LINE_MAX + 2];
    long line = 0;
    while (s == DCU_OK && fgets(buf, sizeof(buf), fp)) {
        line++;
        size_t n = strlen(buf);
        size_t full = n;
        if (n > 0 && buf[n - 1] != '\n' && !feof(fp)) {
            /* longer than the buffer: the rest of the line is counted and dropped */
            int c;
            while ((c = getc(fp)) != EOF && c != '\n') {
                full++;
            }
        }
        if (n > 0 && buf[n - 1] == '\n') {
            n--;
        }
        const char* t = buf;
        size_t tn = n;
        if (line == 1 && tn >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0) {
            t += 3; /* UTF-8 BOM */
            tn -= 3;
        }
        while (tn > 0 && isspace((unsigned char)t[tn - 1])) {
            tn--;
        }
        double ms;
        if (full > STEPS_LINE_MAX) {
            Load_reject(si->core, si->f, line, "line of %zu bytes: not a step time in ms", full);
        } else if (tn == 0 || (line == 1 && !parse_ms(t, tn, &ms) && step_header(t, tn))) {
            /* blank line or the header */
        } else if (parse_ms(t, tn, &ms)) {
            if (ms > STEPS_MAX_MS) {
                Load_reject(si->core, si->f, line,
                            "step time %g ms is out of range (over 2^53 ns, 104 days)", ms);
            } else {
                si->f->line = line;
                s = store(si, ms, err);
            }
        } else {
            char* shown = Names_sanitize(t, tn > 40 ? 40 : tn);
            Load_reject(si->core, si->f, line, "expected a step time in ms, found '%s'", shown);
            free(shown);
        }
    }
    if (s == DCU_OK && ferror(fp)) {
        s = Error_set(err, DCU_ERR_IO, "read error after line %ld: %s", line,
                      GzFile_readError(errno));
    }
    return s;
}

DcuStatus LoadSteps_file(LoaderCore* core, LoadFile* f, int form, DcuError* err) {
    FILE* fp = GzFile_open(f->path, err); /* as the sniff opened it: never a FIFO; .csv.gz too */
    if (!fp) {
        return DCU_ERR_IO;
    }
    StepIns si = {core, f, NULL, 0};
    DcuStatus s = TraceDb_prepare(core->db, "INSERT INTO step_time(file_id, idx, ms) "
                                            "VALUES(?1, ?2, ?3)", &si.st, err);
    if (s == DCU_OK) {
        f->format = form == STEPS_JSON ? "step times (JSON)" : "step times (CSV)";
        s = form == STEPS_JSON ? load_json(&si, fp, err) : load_csv(&si, fp, err);
    }
    f->layer_grain[LAYER_STEPS] = 2;
    f->layer_rank[LAYER_STEPS] = 1;
    sqlite3_finalize(si.st);
    fclose(fp);
    return s;
}
