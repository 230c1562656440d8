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
#include <yajl/yajl_tree.h>

#include "dcutop/names.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "load_internal.h"

enum { STEPS_JSON = 1, STEPS_CSV = 2 };
#define MAX_STEPS_FILE (64u << 20) /* a timing file is small; anything larger is not one */

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

static char* read_all(const char* path, size_t* len, DcuError* err) {
    FILE* fp = SafeFile_fopen(path, err); /* as the sniff opened it: never a FIFO */
    if (!fp) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char* buf = xmalloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            if (cap >= MAX_STEPS_FILE) {
                break;
            }
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        Error_set(err, DCU_ERR_IO, "cannot read: %s", strerror(errno));
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static DcuStatus load_json(StepIns* si, char* text, DcuError* err) {
    char ebuf[256] = "";
    yajl_val root = yajl_tree_parse(text, ebuf, sizeof(ebuf));
    LoadFile* f = si->f;
    if (!root) {
        /* yajl's message goes on with the text around the error on further lines */
        char* shown = Names_sanitize(ebuf, strcspn(ebuf, "\n"));
        f->format = "skipped";
        f->note = xasprintf("step times JSON that cannot be read: %s", shown);
        Load_message(si->core, f, "step times JSON that cannot be read: %s", shown);
        free(shown);
        return DCU_OK;
    }
    yajl_val list = NULL;
    for (size_t k = 0; !list && k < sizeof(json_keys) / sizeof(json_keys[0]); k++) {
        const char* path[] = {json_keys[k], NULL};
        list = yajl_tree_get(root, path, yajl_t_array);
    }
    DcuStatus s = DCU_OK;
    if (!list) {
        f->format = "skipped";
        f->note = xstrdup("JSON without a step_ms_events list: not a trace");
    } else {
        for (size_t i = 0; s == DCU_OK && i < YAJL_GET_ARRAY(list)->len; i++) {
            yajl_val v = YAJL_GET_ARRAY(list)->values[i];
            double ms = YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : -1;
            if (!isfinite(ms) || ms < 0) {
                Load_reject(si->core, f, 0, "element %zu of the step list is not a time in ms", i);
            } else {
                s = store(si, ms, err);
            }
        }
    }
    yajl_tree_free(root);
    return s;
}

static DcuStatus load_csv(StepIns* si, const char* text, size_t len, DcuError* err) {
    DcuStatus s = DCU_OK;
    const char* p = text;
    const char* end = text + len;
    long line = 0;
    while (s == DCU_OK && p < end) {
        const char* nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line++;
        double ms;
        size_t skip = 0;
        if (line == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
            skip = 3; /* UTF-8 BOM */
        }
        const char* t = p + skip;
        size_t tn = n - skip;
        while (tn > 0 && isspace((unsigned char)t[tn - 1])) {
            tn--;
        }
        if (tn == 0 || (line == 1 && !parse_ms(t, tn, &ms) && step_header(t, tn))) {
            /* blank line or the header */
        } else if (parse_ms(t, tn, &ms)) {
            si->f->line = line;
            s = store(si, ms, err);
        } else {
            char* shown = Names_sanitize(t, tn > 40 ? 40 : tn);
            Load_reject(si->core, si->f, line, "expected a step time in ms, found '%s'", shown);
            free(shown);
        }
        p = nl ? nl + 1 : end;
    }
    return s;
}

DcuStatus LoadSteps_file(LoaderCore* core, LoadFile* f, int form, DcuError* err) {
    size_t len = 0;
    char* text = read_all(f->path, &len, err);
    if (!text) {
        return DCU_ERR_IO;
    }
    StepIns si = {core, f, NULL, 0};
    DcuStatus s = TraceDb_prepare(core->db, "INSERT INTO step_time(file_id, idx, ms) "
                                            "VALUES(?1, ?2, ?3)", &si.st, err);
    if (s == DCU_OK) {
        f->format = form == STEPS_JSON ? "step times (JSON)" : "step times (CSV)";
        s = form == STEPS_JSON ? load_json(&si, text, err) : load_csv(&si, text, len, err);
    }
    f->layer_grain[LAYER_STEPS] = 2;
    f->layer_rank[LAYER_STEPS] = 1;
    sqlite3_finalize(si.st);
    free(text);
    return s;
}
