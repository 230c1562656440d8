/* api_summary.c - see api_summary.h. */
#include "api_summary.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "api_scan.h"
#include "dcutop/intern.h"
#include "dcutop/xalloc.h"

typedef struct {
    ApiSumRow* v;
    int n, cap;
    int64_t* abs; /* per row: |calls| and |total_ns| summed, two a row, for the 2^53 bound */
    Intern* ix;   /* ApiScan_groupKey -> 1 + index */
    char* key;
    size_t keycap;
} Sums;

/* the row of (domain, name), added on first sight (texts without a NUL) */
static ApiSumRow* row_of(Sums* m, const char* d, const char* nm) {
    size_t len = ApiScan_groupKey(&m->key, &m->keycap, d, (int)strlen(d), nm, strlen(nm));
    int64_t i = Intern_get(m->ix, m->key, len);
    if (!i) {
        if (m->n == m->cap) {
            m->cap = m->cap ? m->cap * 2 : 64;
            m->v = xrealloc(m->v, sizeof(ApiSumRow) * (size_t)m->cap);
            m->abs = xrealloc(m->abs, 2 * sizeof(int64_t) * (size_t)m->cap);
        }
        memset(&m->v[m->n], 0, sizeof(ApiSumRow));
        m->v[m->n].domain = xstrdup(d);
        m->v[m->n].name = xstrdup(nm);
        m->abs[2 * m->n] = m->abs[2 * m->n + 1] = 0;
        Intern_put(m->ix, m->key, len, i = ++m->n);
    }
    return &m->v[i - 1];
}

/* adds calls and total to row r within the bound; 0 past it */
static int add_sums(Sums* m, ApiSumRow* r, int64_t calls, int64_t total) {
    int64_t* a = &m->abs[2 * (r - m->v)];
    int64_t mc = ApiScan_magnitude(calls), mt = ApiScan_magnitude(total);
    if (mc > API_EXACT_LIMIT || mt > API_EXACT_LIMIT || (a[0] += mc) > API_EXACT_LIMIT ||
        (a[1] += mt) > API_EXACT_LIMIT) {
        return 0;
    }
    r->calls += calls;
    r->total_ns += total;
    return 1;
}

static void add_min_max(ApiSumRow* r, int has_min, int64_t mn, int has_max, int64_t mx) {
    if (has_min && (!r->has_min || mn < r->min_ns)) {
        r->min_ns = mn;
        r->has_min = 1;
    }
    if (has_max && (!r->has_max || mx > r->max_ns)) {
        r->max_ns = mx;
        r->has_max = 1;
    }
}

/* the api_stat rows of the used API files; 0 when a value could not be summed exactly */
static int add_stats(TraceDb* db, Sums* m, DcuStatus* s, DcuError* err) {
    sqlite3_stmt* st = NULL;
    *s = TraceDb_prepare(db,
                         "SELECT domain, name, calls, total_ns, min_ns, max_ns FROM api_stat"
                         " WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'api')",
                         &st, err);
    int ok = *s == DCU_OK;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        int t[6];
        for (int c = 0; c < 6; c++) {
            t[c] = sqlite3_column_type(st, c);
        }
        const char* d = (const char*)sqlite3_column_text(st, 0);
        const char* nm = (const char*)sqlite3_column_text(st, 1);
        ok = t[0] == SQLITE_TEXT && t[1] == SQLITE_TEXT && t[2] == SQLITE_INTEGER &&
             t[3] == SQLITE_INTEGER && (t[4] == SQLITE_INTEGER || t[4] == SQLITE_NULL) &&
             (t[5] == SQLITE_INTEGER || t[5] == SQLITE_NULL) &&
             strlen(d) == (size_t)sqlite3_column_bytes(st, 0) &&
             strlen(nm) == (size_t)sqlite3_column_bytes(st, 1);
        ApiSumRow* r = ok ? row_of(m, d, nm) : NULL;
        ok = ok && add_sums(m, r, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
        if (ok) {
            add_min_max(r, t[4] == SQLITE_INTEGER, sqlite3_column_int64(st, 4),
                        t[5] == SQLITE_INTEGER, sqlite3_column_int64(st, 5));
        }
    }
    sqlite3_finalize(st);
    return ok;
}

/* ORDER BY domain = 'PROFILER', total_ns DESC, name */
static int cmp_row(const void* p, const void* q) {
    const ApiSumRow *x = p, *y = q;
    if (x->profiler != y->profiler) {
        return x->profiler - y->profiler;
    }
    if (x->total_ns != y->total_ns) {
        return x->total_ns > y->total_ns ? -1 : 1;
    }
    return ApiScan_cmpText(x->name, y->name);
}

void ApiSummary_free(ApiSumRow* v, int n) {
    for (int i = 0; i < n; i++) {
        free(v[i].domain);
        free(v[i].name);
    }
    free(v);
}

DcuStatus ApiSummary_rows(TraceDb* db, ApiSumRow** out, int* n, int* exact, DcuError* err) {
    *out = NULL;
    *n = *exact = 0;
    const ApiScan* sc = NULL;
    DcuStatus s = ApiScan_get(db, &sc, err);
    if (s != DCU_OK || !sc->exact) {
        return s;
    }
    Sums m = {0};
    m.ix = Intern_new();
    int ok = 1;
    for (int g = 0; g < sc->ng && ok; g++) { /* the calls: one row each, per_call */
        const ApiGroup* a = &sc->g[g];
        ApiSumRow* r = row_of(&m, a->domain, a->name);
        r->per_call = 1;
        ok = add_sums(&m, r, a->calls, a->total_ns);
        add_min_max(r, 1, a->min_ns, 1, a->max_ns);
    }
    ok = ok && add_stats(db, &m, &s, err);
    for (int i = 0; ok && i < m.n; i++) {
        m.v[i].profiler = strcmp(m.v[i].domain, API_DOMAIN_PROFILER) == 0;
    }
    if (ok && m.n > 1) { /* none: m.v is NULL, which qsort may not be given */
        qsort(m.v, (size_t)m.n, sizeof(ApiSumRow), cmp_row);
        for (int i = 1; i < m.n && ok; i++) {
            ok = cmp_row(&m.v[i - 1], &m.v[i]) != 0; /* a tie SQL may order either way */
        }
    }
    Intern_delete(m.ix);
    free(m.key);
    free(m.abs);
    if (!ok) {
        ApiSummary_free(m.v, m.n);
        return s;
    }
    *out = m.v;
    *n = m.n;
    *exact = 1;
    return DCU_OK;
}
