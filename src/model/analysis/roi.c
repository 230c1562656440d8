/* roi.c - see roi.h. */
#include "dcutop/roi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/timeline.h"
#include "dcutop/trace_query.h"
#include "dcutop/variab.h"
#include "dcutop/xalloc.h"

#define LO_OPEN INT64_MIN
#define HI_OPEN INT64_MAX

/* The tables a ROI cuts (their temp views shadow them) and what is left whole. */
static const char* const cut_tables[] = {"dispatch", "copy", "api_call", "range"};

/* ---- parsing -------------------------------------------------------------------------- */

/* "[-]number unit" -> ns (a bare 0 needs no unit); 0 on a bad bound, -1 on one past
 * INT64_MAX ns. Decimal digits only: "0x10ms" is not 16 ms, "inf" and "nan" are not times. */
static int parse_time(const char* s, size_t n, int* from_end, int64_t* ns) {
    static const struct {
        const char* unit;
        int64_t ns;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    char buf[64];
    *from_end = n > 0 && s[0] == '-';
    if (*from_end) {
        s++;
        n--;
    }
    if (n == 0 || n >= sizeof(buf) || s[0] < '0' || s[0] > '9') {
        return 0;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (strcmp(buf, "0") == 0) {
        *ns = 0;
        return 1;
    }
    size_t num = strspn(buf, "0123456789.eE+-");
    size_t digits = strspn(buf, "0123456789");
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(buf + num, units[i].unit) != 0) {
            continue;
        }
        char* end = NULL;
        errno = 0;
        if (digits == num) { /* whole: exact up to INT64_MAX ns */
            long long v = strtoll(buf, &end, 10);
            if (errno == ERANGE || v > INT64_MAX / units[i].ns) {
                return -1;
            }
            *ns = (int64_t)v * units[i].ns;
            return 1;
        }
        double v = strtod(buf, &end);
        if (end != buf + num || !(v >= 0)) {
            return 0;
        }
        double x = v * (double)units[i].ns + 0.5;
        if (!(x < 9223372036854775807.0)) {
            return -1;
        }
        *ns = (int64_t)x;
        return 1;
    }
    return 0;
}

/* a + b, held at the ends of int64_t (a bound may be as large as INT64_MAX ns) */
static int64_t sat_add(int64_t a, int64_t b) {
    int64_t x;
    return __builtin_add_overflow(a, b, &x) ? (b > 0 ? INT64_MAX : INT64_MIN) : x;
}

/* The message for a bound parse_time refused (rc 0 or -1). */
static DcuStatus bad_time(int rc, const char* t, int n, DcuError* err) {
    if (rc < 0) {
        return Error_set(err, DCU_ERR_USAGE, "--roi: '%.*s' is past the longest time, "
                         "9223372036854775807ns (about 292 years)", n, t);
    }
    return Error_set(err, DCU_ERR_USAGE, "--roi: '%.*s' is not a time such as 10ms, 250us, -1s "
                     "(decimal digits and a unit; 0 alone needs none)", n, t);
}

DcuStatus Roi_parse(const char* text, RoiSpec* out, DcuError* err) {
    RoiSpec r;
    memset(&r, 0, sizeof(r));
    const char* dots = strstr(text, "..");
    if (strcmp(text, "auto-top") == 0) {
        r.kind = ROI_AUTO_TOP;
    } else if (strcmp(text, "trim") == 0) {
        r.kind = ROI_TRIM;
    } else if (strcmp(text, "steady") == 0) {
        r.kind = ROI_ITERATION;
    } else if (strncmp(text, "iteration:", 10) == 0) {
        char* end = NULL;
        long v = strtol(text + 10, &end, 10);
        if (end == text + 10 || *end || v < 1 || v > 1000000) {
            return Error_set(err, DCU_ERR_USAGE, "--roi iteration:N needs N >= 1");
        }
        r.kind = ROI_ITERATION;
        r.iteration = (int)v;
    } else if (dots) {
        r.kind = ROI_WINDOW;
        size_t a = (size_t)(dots - text);
        const char* b = dots + 2;
        int rc = a > 0 ? parse_time(text, a, &r.start_from_end, &r.start_ns) : 1;
        if (rc != 1) {
            return bad_time(rc, text, (int)a, err);
        }
        rc = *b ? parse_time(b, strlen(b), &r.end_from_end, &r.end_ns) : 1;
        if (rc != 1) {
            return bad_time(rc, b, (int)strlen(b), err);
        }
        r.has_start = a > 0;
        r.has_end = *b != '\0';
        if (!r.has_start && !r.has_end) {
            return Error_set(err, DCU_ERR_USAGE, "--roi: '..' needs a start or an end");
        }
    } else {
        return Error_set(err, DCU_ERR_USAGE, "--roi: '%s': use START..END (ms, us, ns, s; a "
                         "leading - counts from the end), auto-top, trim, iteration:N or steady",
                         text);
    }
    *out = r;
    return DCU_OK;
}

/* ---- state in meta ---------------------------------------------------------------------- */

static DcuStatus meta_set(TraceDb* db, const char* key, const char* value, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, value ? "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)"
                                            : "DELETE FROM meta WHERE key = ?1",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (value) {
        sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
    }
    if (sqlite3_step(st) != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "meta: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

static char* meta_get(TraceDb* db, const char* key) {
    sqlite3_stmt* st = NULL;
    char* v = NULL;
    if (TraceDb_prepare(db, "SELECT value FROM main.meta WHERE key = ?1", &st, NULL) != DCU_OK) {
        return NULL;
    }
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        v = xstrdup((const char*)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return v;
}

static DcuStatus save_spec(TraceDb* db, const RoiSpec* r, const char* label, DcuError* err) {
    char nums[256];
    snprintf(nums, sizeof(nums), "%d %d %d %d %d %lld %lld %d", (int)r->kind, r->has_start,
             r->has_end, r->start_from_end, r->end_from_end, (long long)r->start_ns,
             (long long)r->end_ns, r->iteration);
    DcuStatus s = meta_set(db, "roi", nums, err);
    if (s == DCU_OK) {
        s = meta_set(db, "roi_from", r->from, err);
    }
    if (s == DCU_OK) {
        s = meta_set(db, "roi_to", r->to, err);
    }
    if (s == DCU_OK) {
        s = meta_set(db, "roi_label", label, err);
    }
    return s;
}

int Roi_active(TraceDb* db, RoiSpec* spec) {
    char* nums = meta_get(db, "roi");
    if (!nums) {
        return 0;
    }
    RoiSpec r;
    memset(&r, 0, sizeof(r));
    int kind = 0;
    long long a = 0, b = 0;
    int ok = sscanf(nums, "%d %d %d %d %d %lld %lld %d", &kind, &r.has_start, &r.has_end,
                    &r.start_from_end, &r.end_from_end, &a, &b, &r.iteration) == 8;
    free(nums);
    if (!ok || kind == ROI_OFF) {
        return 0;
    }
    r.kind = (RoiKind)kind;
    r.start_ns = a;
    r.end_ns = b;
    char* from = meta_get(db, "roi_from");
    char* to = meta_get(db, "roi_to");
    snprintf(r.from, sizeof(r.from), "%s", from ? from : "");
    snprintf(r.to, sizeof(r.to), "%s", to ? to : "");
    free(from);
    free(to);
    if (spec) {
        *spec = r;
    }
    return 1;
}

void Roi_label(TraceDb* db, char* buf, size_t cap) {
    char* l = Roi_active(db, NULL) ? meta_get(db, "roi_label") : NULL;
    snprintf(buf, cap, "%s", l ? l : "");
    free(l);
}

/* ---- windows -------------------------------------------------------------------------- */

/* Files of file's group (folder and run tag, as superseding ties them). */
#define GROUP_OF(param)                                                                       \
    " (SELECT fb.id FROM source_file fa JOIN source_file fb ON fb.dir = fa.dir"               \
    "  AND (fb.run_tag = fa.run_tag OR fb.run_tag = '' OR fa.run_tag = '')"                   \
    "  WHERE fa.id = " param ")"
#define TIMED_USED                                                                            \
    " d.start_ns IS NOT NULL AND d.end_ns IS NOT NULL"                                        \
    " AND d.file_id IN (SELECT file_id FROM main.used_file WHERE layer = 'kernel')"

/* One int64 from sql with ?1 = file, ?2 = text (NULL if none), ?3 = int; *null set when NULL. */
static DcuStatus scalar(TraceDb* db, const char* sql, int64_t file, const char* text, int64_t i3,
                        int64_t* out, int* null, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, file);
    if (text) {
        sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
    }
    sqlite3_bind_int64(st, 3, i3);
    int rc = sqlite3_step(st);
    *null = rc != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL;
    *out = *null ? 0 : sqlite3_column_int64(st, 0);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        s = Error_set(err, text ? DCU_ERR_REGEX : DCU_ERR_SQL, "%s",
                      sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}

typedef struct Ctx_ {
    TraceDb* db;
    const RoiSpec* r;
    Timeline* tl;    /* ROI_ITERATION (owned) */
    int64_t top;     /* ROI_AUTO_TOP: kernel id */
    int empty;       /* groups whose window holds nothing */
} Ctx;

/* The window [lo, hi] of the group of kernel file f (its clock). */
static DcuStatus window_of(Ctx* c, int64_t f, int64_t* lo, int64_t* hi, DcuError* err) {
    const RoiSpec* r = c->r;
    int64_t origin = TraceQuery_origin(c->db, f), gend = 0;
    int null = 0;
    DcuStatus s = scalar(c->db, "SELECT max(d.end_ns) FROM main.dispatch d WHERE" TIMED_USED
                                " AND d.file_id IN" GROUP_OF("?1"),
                         f, NULL, 0, &gend, &null, err);
    *lo = LO_OPEN;
    *hi = HI_OPEN;
    int nl = 0, nh = 0;
    switch (r->kind) {
    case ROI_WINDOW:
        if (r->has_start) {
            *lo = r->start_from_end ? sat_add(gend, -r->start_ns) : sat_add(origin, r->start_ns);
        }
        if (r->has_end) {
            *hi = r->end_from_end ? sat_add(gend, -r->end_ns) : sat_add(origin, r->end_ns);
        }
        break;
    case ROI_TRIM:
        *lo = origin;
        *hi = gend;
        break;
    case ROI_MATCH:
    case ROI_AUTO_TOP: {
        const char* by = r->kind == ROI_AUTO_TOP ? "d.kernel_id = ?3" : "regexp(?2, k.name)";
        char* first = xasprintf("SELECT min(d.start_ns) FROM main.dispatch d JOIN kernel k"
                                " ON k.id = d.kernel_id WHERE" TIMED_USED
                                " AND d.file_id IN" GROUP_OF("?1") " AND %s", by);
        char* last = xasprintf("SELECT max(d.end_ns) FROM main.dispatch d JOIN kernel k"
                               " ON k.id = d.kernel_id WHERE" TIMED_USED
                               " AND d.file_id IN" GROUP_OF("?1") " AND %s", by);
        if (s == DCU_OK && (r->kind == ROI_AUTO_TOP || r->from[0])) {
            s = scalar(c->db, first, f, r->kind == ROI_AUTO_TOP ? NULL : r->from, c->top, lo,
                       &nl, err);
        } else {
            *lo = origin;
        }
        if (s == DCU_OK && (r->kind == ROI_AUTO_TOP || r->to[0])) {
            s = scalar(c->db, last, f, r->kind == ROI_AUTO_TOP ? NULL : r->to, c->top, hi, &nh,
                       err);
        } else {
            *hi = gend;
        }
        free(first);
        free(last);
        break;
    }
    case ROI_ITERATION:
        nl = !Timeline_iterationWindow(c->tl, f, r->iteration, lo, hi);
        break;
    case ROI_OFF:
        break;
    }
    if (nl || nh || *hi < *lo) {
        c->empty++;
        *lo = 1; /* an empty window: nothing of the group is in the ROI */
        *hi = 0;
    }
    return s;
}

/* temp.roi_window(file_id, lo, hi) for every file of every group with timed dispatches. */
static DcuStatus fill_windows(Ctx* c, int* groups, DcuError* err) {
    DcuStatus s = TraceDb_exec(c->db,
                               "CREATE TEMP TABLE roi_window(file_id INTEGER PRIMARY KEY,"
                               " lo INTEGER NOT NULL, hi INTEGER NOT NULL)",
                               err);
    sqlite3_stmt *files = NULL, *ins = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(c->db, "SELECT DISTINCT d.file_id FROM main.dispatch d WHERE" TIMED_USED
                                   " ORDER BY 1",
                            &files, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(c->db, "INSERT OR REPLACE INTO temp.roi_window(file_id, lo, hi)"
                                   " SELECT id, ?2, ?3 FROM" GROUP_OF("?1"),
                            &ins, err);
    }
    *groups = 0;
    while (s == DCU_OK && sqlite3_step(files) == SQLITE_ROW) {
        int64_t f = sqlite3_column_int64(files, 0), lo, hi;
        s = window_of(c, f, &lo, &hi, err);
        sqlite3_bind_int64(ins, 1, f);
        sqlite3_bind_int64(ins, 2, lo);
        sqlite3_bind_int64(ins, 3, hi);
        if (s == DCU_OK && sqlite3_step(ins) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "roi: %s", sqlite3_errmsg(TraceDb_handle(c->db)));
        }
        sqlite3_reset(ins);
        (*groups)++;
    }
    sqlite3_finalize(files);
    sqlite3_finalize(ins);
    return s;
}

/* The temp views: the cut tables, then every main view again (reading the temp ones), then
 * kernel_summary materialized from them. */
static DcuStatus install(TraceDb* db, DcuError* err) {
    DcuStatus s = DCU_OK;
    for (size_t i = 0; s == DCU_OK && i < sizeof(cut_tables) / sizeof(cut_tables[0]); i++) {
        char* sql = sqlite3_mprintf(
            "CREATE TEMP VIEW \"%w\" AS SELECT x.* FROM main.\"%w\" x"
            " LEFT JOIN temp.roi_window w ON w.file_id = x.file_id"
            " WHERE w.file_id IS NULL OR x.start_ns IS NULL OR x.start_ns BETWEEN w.lo AND w.hi",
            cut_tables[i], cut_tables[i]);
        s = TraceDb_exec(db, sql, err);
        sqlite3_free(sql);
    }
    sqlite3_stmt* st = NULL;
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT sql FROM main.sqlite_master WHERE type = 'view'"
                                " AND sql LIKE 'CREATE VIEW %' ORDER BY rowid",
                            &st, err);
    }
    char** views = NULL;
    int n = 0;
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        views = xrealloc(views, sizeof(char*) * (size_t)(n + 1));
        views[n++] = xasprintf("CREATE TEMP VIEW%s", (const char*)sqlite3_column_text(st, 0) + 11);
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        if (s == DCU_OK) {
            s = TraceDb_exec(db, views[i], err);
        }
        free(views[i]);
    }
    free(views);
    if (s == DCU_OK) {
        /* the same columns as main.kernel_summary (variability included), then the figures
         * of the cut dispatches */
        s = TraceDb_exec(db,
                         "CREATE TEMP TABLE kernel_summary AS SELECT * FROM main.kernel_summary"
                         " WHERE 0;"
                         "INSERT INTO temp.kernel_summary(kernel_id, calls, total_ns, min_ns,"
                         " max_ns, sumsq, has_sq, per_dispatch) SELECT * FROM kernel_summary_v;",
                         err);
    }
    if (s == DCU_OK) {
        s = Variab_compute(db, err);
    }
    return s;
}

DcuStatus Roi_clear(TraceDb* db, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT type, name FROM temp.sqlite_master"
                                      " WHERE type IN ('view', 'table') AND (name LIKE 'roi_%'"
                                      "  OR name = 'kernel_summary' OR name IN (SELECT name FROM"
                                      "  main.sqlite_master WHERE type IN ('view', 'table')))",
                                  &st, err);
    char** drops = NULL;
    int n = 0;
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        drops = xrealloc(drops, sizeof(char*) * (size_t)(n + 1));
        drops[n++] = sqlite3_mprintf("DROP %s temp.\"%w\"",
                                     strcmp((const char*)sqlite3_column_text(st, 0), "view") == 0
                                         ? "VIEW"
                                         : "TABLE",
                                     (const char*)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        if (s == DCU_OK) {
            s = TraceDb_exec(db, drops[i], err);
        }
        sqlite3_free(drops[i]);
    }
    free(drops);
    if (s == DCU_OK) {
        s = meta_set(db, "roi", NULL, err);
    }
    if (s == DCU_OK) {
        s = meta_set(db, "roi_label", NULL, err);
    }
    return s;
}

static void fmt_ms(char* buf, size_t cap, int from_end, int64_t ns) {
    snprintf(buf, cap, "%s%.3f ms", from_end ? "end-" : "", (double)ns / 1e6);
}

static void make_label(TraceDb* db, const Ctx* c, char* buf, size_t cap) {
    const RoiSpec* r = c->r;
    char a[64] = "start", b[64] = "end";
    switch (r->kind) {
    case ROI_WINDOW:
        if (r->has_start) {
            fmt_ms(a, sizeof(a), r->start_from_end, r->start_ns);
        }
        if (r->has_end) {
            fmt_ms(b, sizeof(b), r->end_from_end, r->end_ns);
        }
        snprintf(buf, cap, "ROI %s..%s", a, b);
        break;
    case ROI_MATCH:
        snprintf(buf, cap, "ROI /%.100s/../%.100s/", r->from[0] ? r->from : "^",
                 r->to[0] ? r->to : "$");
        break;
    case ROI_AUTO_TOP: {
        char* k = NULL;
        sqlite3_stmt* st = NULL;
        if (TraceDb_prepare(db, "SELECT short_name FROM kernel WHERE id = ?1", &st, NULL) ==
            DCU_OK) {
            sqlite3_bind_int64(st, 1, c->top);
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
                k = xstrdup((const char*)sqlite3_column_text(st, 0));
            }
            sqlite3_finalize(st);
        }
        snprintf(buf, cap, "ROI auto-top (%.80s)", k ? k : "?");
        free(k);
        break;
    }
    case ROI_TRIM:
        snprintf(buf, cap, "ROI trim (first to last dispatch)");
        break;
    case ROI_ITERATION:
        if (r->iteration > 0) {
            snprintf(buf, cap, "ROI iteration %d", r->iteration);
        } else {
            snprintf(buf, cap, "ROI steady state (iterations 2 on)");
        }
        break;
    case ROI_OFF:
        buf[0] = '\0';
        return;
    }
    /* what a time window cannot cut: aggregated stats of files in use */
    int64_t stats = TraceDb_scalarInt(
        db, "SELECT (SELECT count(*) FROM kernel_stat WHERE file_id IN (SELECT file_id FROM"
            " main.used_file WHERE layer = 'kernel')) + (SELECT count(*) FROM api_stat WHERE"
            " file_id IN (SELECT file_id FROM main.used_file WHERE layer = 'api'))"
            " + (SELECT count(*) FROM copy_stat WHERE file_id IN (SELECT file_id FROM"
            " main.used_file WHERE layer = 'copy'))");
    if (stats > 0) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, " (aggregated stats not cut)");
    }
}

DcuStatus Roi_apply(TraceDb* db, const RoiSpec* spec, DcuError* err) {
    DcuStatus s = Roi_clear(db, err);
    if (s != DCU_OK || spec->kind == ROI_OFF) {
        return s;
    }
    if (TraceDb_scalarInt(db, "SELECT count(*) FROM main.dispatch d WHERE" TIMED_USED) == 0) {
        return Error_set(err, DCU_ERR_EMPTY, "region of interest: no per-dispatch timestamps "
                                             "(aggregated stats cannot be cut by time); the data "
                                             "is left whole");
    }
    Ctx c = {db, spec, NULL, 0, 0};
    if (spec->kind == ROI_ITERATION) {
        s = Timeline_new(db, &c.tl, err);
    } else if (spec->kind == ROI_AUTO_TOP) {
        c.top = TraceDb_scalarInt(db, "SELECT d.kernel_id FROM main.dispatch d WHERE" TIMED_USED
                                      " GROUP BY d.kernel_id ORDER BY sum(d.dur_ns) DESC,"
                                      " d.kernel_id LIMIT 1");
    }
    int groups = 0;
    if (s == DCU_OK) {
        s = fill_windows(&c, &groups, err);
    }
    Timeline_delete(c.tl);
    if (s == DCU_OK && c.empty == groups) {
        s = Error_set(err, DCU_ERR_USAGE, "region of interest: %s; the data is left whole",
                      spec->kind == ROI_ITERATION ? "no such iteration"
                      : spec->kind == ROI_MATCH   ? "no dispatch of a matching kernel"
                                                  : "the window holds no dispatch");
    }
    if (s == DCU_OK) {
        s = install(db, err);
    }
    char label[400];
    if (s == DCU_OK) {
        make_label(db, &c, label, sizeof(label));
        s = save_spec(db, spec, label, err);
    }
    if (s != DCU_OK) {
        DcuError ignored;
        Roi_clear(db, &ignored);
    }
    return s;
}

int64_t Roi_relative(TraceDb* db, int64_t file, int64_t abs_ns) {
    return abs_ns - TraceQuery_origin(db, file);
}
