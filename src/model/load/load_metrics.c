/* load_metrics.c - a run's numeric results, beside its trace: the evidence of numerical
 * correctness an A-B-B-A checks with time and memory (abba_evidence.c). Two forms:
 *   metrics.csv   header `name,value` with optional columns `tolerance` (absolute, >= 0) and
 *                 `better` (`higher` or `lower`), in any order; one metric a line;
 *   metrics.json  {"name": value} or {"name": {"value": v, "tolerance": t, "better": "..."}}.
 * Rows go to run_metric(file_id, line, name, value, tolerance, better). A bad line is a
 * rejected row named by file:line (JSON: the line the member starts on): never a guess, since
 * a metric read wrongly would pass or fail a gate for the wrong reason. Unknown columns and
 * unknown keys of a metric are rejected too: a misspelt "tolerance" must not drop the check. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yajl/yajl_parse.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "gz_file.h"
#include "load_internal.h"

enum { METRICS_CSV = 1, METRICS_JSON = 2 };
enum { METRICS_MAX_BYTES = 1 << 20, METRICS_NAME_MAX = 200, METRICS_MAX_ROWS = 10000 };

static const char* base_name(const char* path) {
    const char* b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* Trims spaces, a '\r' and one pair of double quotes ("" inside stays as written). */
static void trim(const char** s, size_t* n) {
    while (*n > 0 && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && isspace((unsigned char)(*s)[*n - 1])) {
        (*n)--;
    }
    if (*n >= 2 && **s == '"' && (*s)[*n - 1] == '"') {
        (*s)++;
        *n -= 2;
    }
}

static int field_is(const char* s, size_t n, const char* word) {
    return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/* A finite decimal number that fills the whole text. */
static int parse_num(const char* s, size_t n, double* out) {
    trim(&s, &n);
    if (n == 0 || n > 60) {
        return 0;
    }
    char buf[64];
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (buf[strspn(buf, "0123456789.eE+-")]) {
        return 0; /* decimal only: no "0x10", "nan", "inf" */
    }
    char* end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || end == buf || errno == ERANGE || !isfinite(v)) {
        return 0;
    }
    *out = v;
    return 1;
}

/* The first line: the CSV header of a metrics file, name and value among its fields, every
 * field one of the four known ones. Fills col[] with each field's role (0 name, 1 value,
 * 2 tolerance, 3 better) and returns the field count, or 0 when it is no such header. */
static int csv_header(const char* s, size_t n, int col[8]) {
    int nf = 0, seen = 0;
    static const char* const names[] = {"name", "value", "tolerance", "better"};
    for (size_t i = 0; i <= n; nf++) {
        size_t j = i;
        while (j < n && s[j] != ',') {
            j++;
        }
        const char* f = s + i;
        size_t fl = j - i;
        trim(&f, &fl);
        int role = -1;
        for (int k = 0; k < 4; k++) {
            if (field_is(f, fl, names[k])) {
                role = k;
            }
        }
        if (nf >= 8 || role < 0 || (seen & (1 << role))) {
            return 0;
        }
        seen |= 1 << role;
        col[nf] = role;
        i = j + 1;
    }
    return (seen & 3) == 3 ? nf : 0;
}

int LoadMetrics_sniff(const char* path, const unsigned char* head, size_t n) {
    const char* b = base_name(path);
    size_t i = 0;
    if (n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0) {
        i = 3;
    }
    while (i < n && isspace(head[i])) {
        i++;
    }
    if (i < n && head[i] == '{') {
        return strcasecmp(b, "metrics.json") == 0 || strcasecmp(b, "metrics.json.gz") == 0
                   ? METRICS_JSON
                   : 0;
    }
    /* by content: the first line that is not blank or a '#' comment is a header of the
     * known fields only (name,value first or not) */
    const char* s = (const char*)head + i;
    const char* end = (const char*)head + n;
    while (s < end) {
        const char* nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) {
            return 0; /* the header line must end within the head */
        }
        const char* t = s;
        size_t tl = (size_t)(nl - s);
        trim(&t, &tl);
        int col[8];
        if (tl > 0 && *t != '#') {
            return csv_header(t, tl, col) ? METRICS_CSV : 0;
        }
        s = nl + 1;
    }
    return 0;
}

typedef struct MetricIns_ {
    LoaderCore* core;
    LoadFile* f;
    sqlite3_stmt* st;
    DcuStatus status;
    char** names; /* names stored so far (owned): a repeat is rejected */
    int nnames;
} MetricIns;

/* Stores one metric; a repeated name or too many rows is a rejection instead. */
static void store(MetricIns* mi, long line, const char* name, size_t nl, double value,
                  double tol, const char* better) {
    if (mi->nnames >= METRICS_MAX_ROWS) { /* first: the search below costs the rows kept */
        Load_reject(mi->core, mi->f, line, "more than %d metrics in one file",
                    METRICS_MAX_ROWS);
        return;
    }
    char* shown = Names_sanitize(name, nl);
    for (int i = 0; i < mi->nnames; i++) {
        if (strcmp(mi->names[i], shown) == 0) {
            Load_reject(mi->core, mi->f, line, "metric '%s' is given twice", shown);
            free(shown);
            return;
        }
    }
    sqlite3_bind_int64(mi->st, 1, mi->f->id);
    sqlite3_bind_int64(mi->st, 2, line);
    sqlite3_bind_text(mi->st, 3, shown, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(mi->st, 4, value);
    if (!isnan(tol)) {
        sqlite3_bind_double(mi->st, 5, tol);
    }
    if (better) {
        sqlite3_bind_text(mi->st, 6, better, -1, SQLITE_STATIC);
    }
    int rc = sqlite3_step(mi->st);
    sqlite3_reset(mi->st);
    sqlite3_clear_bindings(mi->st);
    if (rc != SQLITE_DONE) {
        Load_storageFailed(mi->core, rc, sqlite3_errmsg(TraceDb_handle(mi->core->db)));
        mi->status = DCU_ERR_SQL;
        free(shown);
        return;
    }
    mi->names = xrealloc(mi->names, sizeof(char*) * (size_t)(mi->nnames + 1));
    mi->names[mi->nnames++] = shown;
    mi->f->rows++;
}

/* "higher" / "lower" (any case) as stored, NULL when the text is neither. */
static const char* better_of(const char* s, size_t n) {
    trim(&s, &n);
    return field_is(s, n, "higher") ? "higher" : field_is(s, n, "lower") ? "lower" : NULL;
}

/* A value cut for a message. */
static char* shown_value(const char* s, size_t n) {
    trim(&s, &n);
    return Names_sanitize(s, n > 40 ? 40 : n);
}

/* ---- CSV --------------------------------------------------------------------------------- */

static void csv_line(MetricIns* mi, long line, const char* s, size_t n, const int* col,
                     int ncol) {
    const char* fld[8] = {0};
    size_t fl[8] = {0};
    int nf = 0;
    for (size_t i = 0; i <= n; nf++) {
        size_t j = i;
        int q = 0;
        while (j < n && (q || s[j] != ',')) {
            q ^= s[j] == '"';
            j++;
        }
        if (nf < 8) {
            fld[nf] = s + i;
            fl[nf] = j - i;
            trim(&fld[nf], &fl[nf]);
        }
        i = j + 1;
    }
    if (nf != ncol) {
        Load_reject(mi->core, mi->f, line, "expected %d fields (the header's) but found %d",
                    ncol, nf);
        return;
    }
    const char* name = NULL;
    size_t name_n = 0;
    double value = NAN, tol = NAN;
    const char* better = NULL;
    for (int c = 0; c < ncol; c++) {
        char* v = NULL;
        switch (col[c]) {
        case 0:
            name = fld[c];
            name_n = fl[c];
            break;
        case 1:
            if (!parse_num(fld[c], fl[c], &value)) {
                v = shown_value(fld[c], fl[c]);
                Load_reject(mi->core, mi->f, line, "value '%s' is not a finite number", v);
            }
            break;
        case 2:
            if (fl[c] > 0 && (!parse_num(fld[c], fl[c], &tol) || tol < 0)) {
                v = shown_value(fld[c], fl[c]);
                Load_reject(mi->core, mi->f, line,
                            "tolerance '%s' is not a number >= 0 (or empty for none)", v);
            }
            break;
        default:
            if (fl[c] > 0 && !(better = better_of(fld[c], fl[c]))) {
                v = shown_value(fld[c], fl[c]);
                Load_reject(mi->core, mi->f, line,
                            "better '%s' is neither 'higher' nor 'lower' (or empty)", v);
            }
        }
        if (v) {
            free(v);
            return;
        }
    }
    if (name_n == 0 || name_n > METRICS_NAME_MAX) {
        Load_reject(mi->core, mi->f, line, "a metric needs a name of 1 to %d bytes",
                    METRICS_NAME_MAX);
        return;
    }
    store(mi, line, name, name_n, value, tol, better);
}

static void load_csv(MetricIns* mi, const char* text, size_t n) {
    int col[8], ncol = 0;
    long line = 0;
    size_t i = 0;
    if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        i = 3;
    }
    while (i < n && mi->status == DCU_OK) {
        const char* nl = memchr(text + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (text + i)) : n - i;
        const char* s = text + i;
        size_t sl = len;
        line++;
        i += len + 1;
        trim(&s, &sl);
        if (sl == 0 || *s == '#') {
            continue; /* blank lines and comments */
        }
        if (ncol == 0) {
            if (!(ncol = csv_header(s, sl, col))) {
                Load_reject(mi->core, mi->f, line, "expected the header name,value[,tolerance]"
                            "[,better]");
                return;
            }
            continue;
        }
        if (memchr(s, '\0', sl)) {
            Load_reject(mi->core, mi->f, line, "a NUL byte in the line");
            continue;
        }
        csv_line(mi, line, s, sl, col, ncol);
    }
}

/* ---- JSON: yajl's event parser over the whole (small) text, one metric a member ---------- */

typedef struct MetricJson_ {
    MetricIns* mi;
    yajl_handle h;
    const char* text;
    size_t counted; /* bytes of text whose newlines are in line */
    long line;      /* line of the byte at counted */
    int depth;      /* containers open */
    char* name;     /* the member being read (owned) */
    size_t name_n;
    long name_line;
    int key;        /* in a metric's object: 0 value, 1 tolerance, 2 better, -1 other */
    double value, tol;
    const char* better;
    int bad;        /* the member was rejected already */
    int skip_depth; /* > 0: inside a container that is rejected as a whole */
} MetricJson;

/* The line of the token just read (yajl's bytes consumed so far). */
static long here(MetricJson* mj) {
    size_t to = yajl_get_bytes_consumed(mj->h);
    for (; mj->counted < to; mj->counted++) {
        mj->line += mj->text[mj->counted] == '\n';
    }
    return mj->line;
}

static void reject(MetricJson* mj, const char* why) {
    if (!mj->bad) {
        char* shown = Names_sanitize(mj->name ? mj->name : "", mj->name ? mj->name_n : 0);
        Load_reject(mj->mi->core, mj->mi->f, mj->name_line, "metric '%s': %s", shown, why);
        free(shown);
    }
    mj->bad = 1;
}

static void member_done(MetricJson* mj) {
    if (!mj->bad && isnan(mj->value)) {
        reject(mj, "no \"value\"");
    }
    if (!mj->bad) {
        store(mj->mi, mj->name_line, mj->name, mj->name_n, mj->value, mj->tol, mj->better);
    }
    free(mj->name);
    mj->name = NULL;
}

/* A scalar at depth 1 (the metric's value) or 2 (a field of its object). */
static int mj_scalar(MetricJson* mj, const char* num, size_t n, const char* str, size_t sn) {
    if (mj->skip_depth) {
        return mj->mi->status == DCU_OK;
    }
    double v;
    if (mj->depth == 0) {
        Load_reject(mj->mi->core, mj->mi->f, here(mj),
                    "expected an object of metrics ({\"name\": value})");
    } else if (mj->depth == 1) {
        if (!num || !parse_num(num, n, &mj->value)) {
            reject(mj, "the value is not a finite number");
        }
        member_done(mj);
    } else if (mj->depth == 2 && mj->key == 0) {
        if (!num || !parse_num(num, n, &mj->value)) {
            reject(mj, "\"value\" is not a finite number");
        }
    } else if (mj->depth == 2 && mj->key == 1) {
        if (!num || !parse_num(num, n, &v) || v < 0) {
            reject(mj, "\"tolerance\" is not a number >= 0");
        } else {
            mj->tol = v;
        }
    } else if (mj->depth == 2 && mj->key == 2) {
        if (!str || !(mj->better = better_of(str, sn))) {
            reject(mj, "\"better\" is neither \"higher\" nor \"lower\"");
        }
    }
    return mj->mi->status == DCU_OK;
}

static int mj_null(void* ctx) {
    return mj_scalar(ctx, NULL, 0, NULL, 0);
}

static int mj_bool(void* ctx, int b) {
    (void)b;
    return mj_scalar(ctx, NULL, 0, NULL, 0);
}

static int mj_number(void* ctx, const char* s, size_t n) {
    return mj_scalar(ctx, s, n, NULL, 0);
}

static int mj_string(void* ctx, const unsigned char* s, size_t n) {
    return mj_scalar(ctx, NULL, 0, (const char*)s, n);
}

static int mj_key(void* ctx, const unsigned char* s, size_t n) {
    MetricJson* mj = ctx;
    if (mj->skip_depth) {
        return 1;
    }
    if (mj->depth == 1) {
        free(mj->name);
        mj->name = xmalloc(n + 1);
        memcpy(mj->name, s, n);
        mj->name[n] = '\0';
        mj->name_n = n;
        mj->name_line = here(mj);
        mj->value = mj->tol = NAN;
        mj->better = NULL;
        mj->bad = n == 0 || n > METRICS_NAME_MAX;
        if (mj->bad) {
            Load_reject(mj->mi->core, mj->mi->f, mj->name_line,
                        "a metric needs a name of 1 to %d bytes", METRICS_NAME_MAX);
        }
    } else if (mj->depth == 2) {
        const char* k = (const char*)s;
        mj->key = field_is(k, n, "value") ? 0 : field_is(k, n, "tolerance") ? 1
                  : field_is(k, n, "better") ? 2 : -1;
        if (mj->key < 0) {
            char* shown = Names_sanitize(k, n > 40 ? 40 : n);
            char why[96];
            snprintf(why, sizeof(why), "unknown key \"%s\" (value, tolerance, better)", shown);
            free(shown);
            reject(mj, why);
        }
    }
    return 1;
}

static int mj_open(MetricJson* mj, int is_array) {
    if (mj->skip_depth) {
        mj->depth++;
        return 1;
    }
    if (mj->depth == 0 && is_array) {
        Load_reject(mj->mi->core, mj->mi->f, here(mj),
                    "expected an object of metrics ({\"name\": value}), found a list");
        mj->skip_depth = 1;
    } else if (mj->depth == 1 && is_array) {
        reject(mj, "a list where a number or {\"value\": ...} belongs");
        mj->skip_depth = 2;
    } else if (mj->depth == 2) {
        reject(mj, "a list or object where a number or text belongs");
        mj->skip_depth = 3;
    }
    mj->depth++;
    return 1;
}

static int mj_close(void* ctx) {
    MetricJson* mj = ctx;
    mj->depth--;
    if (mj->skip_depth && mj->depth < mj->skip_depth) {
        mj->skip_depth = 0;
        if (mj->depth == 1) {
            member_done(mj);
        }
        return mj->mi->status == DCU_OK;
    }
    if (!mj->skip_depth && mj->depth == 1 && mj->name) {
        member_done(mj); /* the end of a metric's object */
    }
    return mj->mi->status == DCU_OK;
}

static int mj_start_map(void* ctx) {
    return mj_open(ctx, 0);
}

static int mj_start_array(void* ctx) {
    return mj_open(ctx, 1);
}

static const yajl_callbacks metric_callbacks = {
    mj_null, mj_bool, NULL, NULL, mj_number, mj_string,
    mj_start_map, mj_key, mj_close, mj_start_array, mj_close,
};

static void load_json(MetricIns* mi, const char* text, size_t n) {
    MetricJson mj;
    memset(&mj, 0, sizeof(mj));
    mj.mi = mi;
    mj.text = text;
    mj.line = 1;
    mj.h = yajl_alloc(&metric_callbacks, NULL, &mj);
    yajl_config(mj.h, yajl_dont_validate_strings, 1); /* names are sanitised on insert */
    int ok = yajl_parse(mj.h, (const unsigned char*)text, n) == yajl_status_ok &&
             yajl_complete_parse(mj.h) == yajl_status_ok;
    if (!ok && mi->status == DCU_OK) {
        unsigned char* m = yajl_get_error(mj.h, 0, NULL, 0);
        const char* t = m ? (const char*)m : "?";
        char* shown = Names_sanitize(t, strcspn(t, "\n"));
        Load_reject(mi->core, mi->f, here(&mj), "not JSON: %s", shown);
        free(shown);
        if (m) {
            yajl_free_error(mj.h, m);
        }
    }
    free(mj.name);
    yajl_free(mj.h);
}

DcuStatus LoadMetrics_file(LoaderCore* core, LoadFile* f, int form, DcuError* err) {
    FILE* fp = GzFile_open(f->path, err);
    if (!fp) {
        return DCU_ERR_IO;
    }
    char* text = xmalloc(METRICS_MAX_BYTES + 1);
    size_t n = fread(text, 1, METRICS_MAX_BYTES + 1, fp);
    int bad = ferror(fp);
    int e = errno;
    fclose(fp);
    MetricIns mi = {core, f, NULL, DCU_OK, NULL, 0};
    f->format = form == METRICS_JSON ? "metrics (JSON)" : "metrics (CSV)";
    DcuStatus s = DCU_OK;
    if (bad) {
        s = Error_set(err, DCU_ERR_IO, "read error: %s", GzFile_readError(e));
    } else if (n > METRICS_MAX_BYTES) {
        /* a metrics file is a few lines: one this large is not one, and none of it counts */
        Load_reject(core, f, 0, "metrics file over %d bytes: not read", METRICS_MAX_BYTES);
    } else {
        s = TraceDb_prepare(core->db, "INSERT INTO run_metric(file_id, line, name, value, "
                            "tolerance, better) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", &mi.st, err);
        if (s == DCU_OK) {
            text[n] = '\0';
            if (form == METRICS_JSON) {
                load_json(&mi, text, n);
            } else {
                load_csv(&mi, text, n);
            }
            /* no layer of its own: the Files table says what it is for */
            f->note = xasprintf("numeric results (%d metrics), judged by --abba", mi.nnames);
            if (mi.status != DCU_OK) {
                s = Error_set(err, mi.status, "run_metric: %s", core->storage_why);
            }
        }
    }
    for (int i = 0; i < mi.nnames; i++) {
        free(mi.names[i]);
    }
    free(mi.names);
    sqlite3_finalize(mi.st);
    free(text);
    return s;
}
