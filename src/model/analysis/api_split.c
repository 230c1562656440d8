/* api_split.c - see api_split.h. */
#include "api_split.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/intern.h"
#include "dcutop/xalloc.h"

#define EXACT_LIMIT ((int64_t)1 << 53)

typedef struct {
    ApiSplit* v;
    int n, cap;
    int64_t* abs_ns; /* per row: the sum of |dur_ns| of its calls, for the 2^53 bound */
    Intern* ix;      /* (domain length, domain, name) -> 1 + index */
    char* key;
    size_t keycap;
    int exact;
} Acc;

/* the row of (domain, name), added on first sight */
static ApiSplit* row_of(Acc* a, const char* d, int dl, const char* nm, int nl) {
    size_t len = sizeof(int) + (size_t)dl + (size_t)nl;
    if (len > a->keycap) {
        a->keycap = len * 2;
        a->key = xrealloc(a->key, a->keycap);
    }
    memcpy(a->key, &dl, sizeof(int));
    memcpy(a->key + sizeof(int), d, (size_t)dl);
    memcpy(a->key + sizeof(int) + dl, nm, (size_t)nl);
    int64_t i = Intern_get(a->ix, a->key, len);
    if (i) {
        return &a->v[i - 1];
    }
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = xrealloc(a->v, sizeof(ApiSplit) * (size_t)a->cap);
        a->abs_ns = xrealloc(a->abs_ns, sizeof(int64_t) * (size_t)a->cap);
    }
    ApiSplit* r = &a->v[a->n];
    memset(r, 0, sizeof(*r));
    r->domain = xmalloc((size_t)dl + 1);
    memcpy(r->domain, d, (size_t)dl);
    r->domain[dl] = '\0';
    r->name = xmalloc((size_t)nl + 1);
    memcpy(r->name, nm, (size_t)nl);
    r->name[nl] = '\0';
    if (strlen(r->domain) != (size_t)dl || strlen(r->name) != (size_t)nl) {
        a->exact = 0; /* a NUL inside: C strings would compare it otherwise */
    }
    a->abs_ns[a->n] = 0;
    Intern_put(a->ix, a->key, len, ++a->n);
    return r;
}

static int is_int_or_null(sqlite3_stmt* st, int c) {
    int t = sqlite3_column_type(st, c);
    return t == SQLITE_INTEGER || t == SQLITE_NULL;
}

/* One joined row: domain, name, start_ns, dur_ns, cut_ns. */
static void add(Acc* a, sqlite3_stmt* st) {
    if (sqlite3_column_type(st, 0) != SQLITE_TEXT || sqlite3_column_type(st, 1) != SQLITE_TEXT ||
        sqlite3_column_type(st, 3) != SQLITE_INTEGER || !is_int_or_null(st, 2) ||
        !is_int_or_null(st, 4)) {
        a->exact = 0; /* SQL compares and sums other types its own way */
        return;
    }
    const char* d = (const char*)sqlite3_column_text(st, 0);
    int dl = sqlite3_column_bytes(st, 0);
    const char* nm = (const char*)sqlite3_column_text(st, 1);
    ApiSplit* r = row_of(a, d, dl, nm, sqlite3_column_bytes(st, 1));
    int64_t dur = sqlite3_column_int64(st, 3);
    int64_t* abs_ns = &a->abs_ns[r - a->v];
    int64_t mag = dur < 0 ? (dur == INT64_MIN ? EXACT_LIMIT + 1 : -dur) : dur;
    if (mag > EXACT_LIMIT || (*abs_ns += mag) > EXACT_LIMIT) {
        a->exact = 0;
        return;
    }
    r->calls++;
    r->total_ns += dur;
    if (sqlite3_column_type(st, 4) == SQLITE_NULL) {
        return; /* no cut: neither side (SQL's c.cut_ns IS NOT NULL AND ...) */
    }
    r->cut = 1;
    if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
        return; /* start_ns < cut_ns is NULL: counted on neither side */
    }
    if (sqlite3_column_int64(st, 2) < sqlite3_column_int64(st, 4)) {
        r->first_calls++;
        r->first_ns += dur;
    } else {
        r->steady_calls++;
        r->steady_ns += dur;
    }
}

/* SQL's BINARY collation: bytes, then the shorter first */
static int cmp_text(const char* x, const char* y) {
    size_t lx = strlen(x), ly = strlen(y);
    int c = memcmp(x, y, lx < ly ? lx : ly);
    return c ? c : (lx > ly) - (lx < ly);
}

/* ORDER BY total DESC, name */
static int cmp_row(const void* p, const void* q) {
    const ApiSplit *x = p, *y = q;
    if (x->total_ns != y->total_ns) {
        return x->total_ns > y->total_ns ? -1 : 1;
    }
    return cmp_text(x->name, y->name);
}

void ApiSplit_free(ApiSplit* v, int n) {
    for (int i = 0; i < n; i++) {
        free(v[i].domain);
        free(v[i].name);
    }
    free(v);
}

DcuStatus ApiSplit_read(TraceDb* db, ApiSplit** out, int* n, int* exact, DcuError* err) {
    *out = NULL;
    *n = 0;
    *exact = 0;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT a.domain, a.name, a.start_ns, a.dur_ns, c.cut_ns"
        " FROM api_call a LEFT JOIN temp.timeline_cut c ON c.file_id = a.file_id"
        " WHERE a.file_id IN (SELECT file_id FROM used_file WHERE layer = 'api')",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    Acc a = {0};
    a.ix = Intern_new();
    a.exact = 1;
    int rc = SQLITE_DONE;
    while (a.exact && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        add(&a, st);
    }
    if (a.exact && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "timeline: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    Intern_delete(a.ix);
    free(a.key);
    free(a.abs_ns);
    if (s == DCU_OK && a.exact) {
        qsort(a.v, (size_t)a.n, sizeof(ApiSplit), cmp_row);
        for (int i = 1; i < a.n && a.exact; i++) {
            a.exact = cmp_row(&a.v[i - 1], &a.v[i]) != 0; /* a tie SQL may order either way */
        }
    }
    if (s != DCU_OK || !a.exact) {
        ApiSplit_free(a.v, a.n);
        return s;
    }
    *out = a.v;
    *n = a.n;
    *exact = 1;
    return DCU_OK;
}
