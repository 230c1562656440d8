/* api_scan.c - see api_scan.h. */
#include "api_scan.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/intern.h"
#include "dcutop/xalloc.h"

typedef struct {
    ApiScan* s;
    int capg;
    int64_t cap;
    Intern* ix; /* (domain length, domain, name) -> 1 + group index */
    char* key;
    size_t keycap;
} Build;

static void scan_free(void* p) {
    ApiScan* s = p;
    for (int i = 0; s && i < s->ng; i++) {
        free(s->g[i].domain);
        free(s->g[i].name);
    }
    if (s) {
        free(s->g);
        free(s->group);
        free(s->file);
        free(s->start);
        free(s->has_start);
        free(s->dur);
        free(s);
    }
}

static char* copy_text(const char* p, int n) {
    char* c = xmalloc((size_t)n + 1);
    memcpy(c, p, (size_t)n);
    c[n] = '\0';
    return c;
}

int64_t ApiScan_magnitude(int64_t x) {
    return x < 0 ? (x == INT64_MIN ? API_EXACT_LIMIT + 1 : -x) : x;
}

size_t ApiScan_groupKey(char** key, size_t* cap, const char* d, int dl, const char* nm,
                        size_t nl) {
    size_t len = sizeof(int) + (size_t)dl + nl;
    if (len > *cap) {
        *cap = len * 2;
        *key = xrealloc(*key, *cap);
    }
    memcpy(*key, &dl, sizeof(int));
    memcpy(*key + sizeof(int), d, (size_t)dl);
    memcpy(*key + sizeof(int) + dl, nm, nl);
    return len;
}

/* the index of group (domain, name), added on first sight; -1 when SQL would compare the
 * texts otherwise than C strings do (a NUL inside) */
static int64_t group_of(Build* b, const char* d, int dl, const char* nm, int nl) {
    size_t len = ApiScan_groupKey(&b->key, &b->keycap, d, dl, nm, (size_t)nl);
    int64_t i = Intern_get(b->ix, b->key, len);
    if (i) {
        return i - 1;
    }
    if (memchr(d, 0, (size_t)dl) || memchr(nm, 0, (size_t)nl)) {
        return -1;
    }
    ApiScan* s = b->s;
    if (s->ng == b->capg) {
        b->capg = b->capg ? b->capg * 2 : 64;
        s->g = xrealloc(s->g, sizeof(ApiGroup) * (size_t)b->capg);
    }
    ApiGroup* g = &s->g[s->ng];
    memset(g, 0, sizeof(*g));
    g->domain = copy_text(d, dl);
    g->name = copy_text(nm, nl);
    Intern_put(b->ix, b->key, len, ++s->ng);
    return s->ng - 1;
}

static void grow(Build* b) {
    ApiScan* s = b->s;
    b->cap = b->cap ? b->cap * 2 : 4096;
    s->group = xrealloc(s->group, sizeof(uint32_t) * (size_t)b->cap);
    s->file = xrealloc(s->file, sizeof(int64_t) * (size_t)b->cap);
    s->start = xrealloc(s->start, sizeof(int64_t) * (size_t)b->cap);
    s->has_start = xrealloc(s->has_start, (size_t)b->cap);
    s->dur = xrealloc(s->dur, sizeof(int64_t) * (size_t)b->cap);
}

/* One call: file_id, domain, name, start_ns, dur_ns. 0 when the figures could not be
 * SQL's. */
static int add(Build* b, sqlite3_stmt* st) {
    int ts = sqlite3_column_type(st, 3);
    if (sqlite3_column_type(st, 1) != SQLITE_TEXT || sqlite3_column_type(st, 2) != SQLITE_TEXT ||
        sqlite3_column_type(st, 4) != SQLITE_INTEGER ||
        (ts != SQLITE_INTEGER && ts != SQLITE_NULL) ||
        sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
        return 0; /* SQL compares and sums other types its own way */
    }
    const char* d = (const char*)sqlite3_column_text(st, 1);
    int dl = sqlite3_column_bytes(st, 1);
    const char* nm = (const char*)sqlite3_column_text(st, 2);
    int64_t gi = group_of(b, d, dl, nm, sqlite3_column_bytes(st, 2));
    if (gi < 0 || gi > UINT32_MAX) {
        return 0;
    }
    ApiScan* s = b->s;
    ApiGroup* g = &s->g[gi];
    int64_t dur = sqlite3_column_int64(st, 4);
    int64_t mag = ApiScan_magnitude(dur);
    if (mag > API_EXACT_LIMIT || (g->abs_ns += mag) > API_EXACT_LIMIT) {
        return 0;
    }
    g->min_ns = g->calls == 0 || dur < g->min_ns ? dur : g->min_ns;
    g->max_ns = g->calls == 0 || dur > g->max_ns ? dur : g->max_ns;
    g->calls++;
    g->total_ns += dur;
    if (s->n == b->cap) {
        grow(b);
    }
    s->group[s->n] = (uint32_t)gi;
    s->file[s->n] = sqlite3_column_int64(st, 0);
    s->has_start[s->n] = ts == SQLITE_INTEGER;
    s->start[s->n] = sqlite3_column_int64(st, 3);
    s->dur[s->n] = dur;
    s->n++;
    return 1;
}

static DcuStatus scan(TraceDb* db, ApiScan** out, DcuError* err) {
    *out = NULL;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT file_id, domain, name, start_ns, dur_ns FROM api_call"
                                  " WHERE file_id IN (SELECT file_id FROM used_file"
                                  " WHERE layer = 'api')",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    Build b = {0};
    b.s = xcalloc(1, sizeof(ApiScan));
    b.ix = Intern_new();
    int rc, exact = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && (exact = add(&b, st)) != 0) {
    }
    if (exact && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "API calls: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    Intern_delete(b.ix);
    free(b.key);
    if (s != DCU_OK || !exact) {
        scan_free(b.s);
        b.s = s == DCU_OK ? xcalloc(1, sizeof(ApiScan)) : NULL; /* exact 0: nothing */
        *out = b.s;
        return s;
    }
    b.s->exact = 1;
    *out = b.s;
    return DCU_OK;
}

DcuStatus ApiScan_get(TraceDb* db, const ApiScan** out, DcuError* err) {
    *out = TraceDb_cached(db, TRACEDB_CACHE_API_SCAN, TraceDb_state(db));
    if (*out) {
        return DCU_OK;
    }
    ApiScan* s = NULL;
    DcuStatus st = scan(db, &s, err);
    if (st == DCU_OK) {
        TraceDb_setCached(db, TRACEDB_CACHE_API_SCAN, TraceDb_state(db), s, scan_free);
        *out = s;
    }
    return st;
}

int ApiScan_cmpText(const char* x, const char* y) {
    return strcmp(x, y);
}
