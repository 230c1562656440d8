/* api_split.c - see api_split.h. The calls come from api_scan.h's one scan; the cuts, a
 * handful of rows, from temp.timeline_cut. */
#include "api_split.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "api_scan.h"
#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"

/* file_id -> 1 + index in *cut, from temp.timeline_cut; 0 when a value is not an integer
 * (SQL would compare it its own way) */
static int read_cuts(TraceDb* db, I64Map* ix, int64_t** cut, DcuStatus* s, DcuError* err) {
    sqlite3_stmt* st = NULL;
    *s = TraceDb_prepare(db, "SELECT file_id, cut_ns FROM temp.timeline_cut", &st, err);
    int ok = *s == DCU_OK, n = 0;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        ok = sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
             sqlite3_column_type(st, 1) == SQLITE_INTEGER;
        *cut = xrealloc(*cut, sizeof(int64_t) * (size_t)(n + 1));
        (*cut)[n++] = sqlite3_column_int64(st, 1);
        I64Map_put(ix, sqlite3_column_int64(st, 0), n);
    }
    sqlite3_finalize(st);
    return ok;
}

/* the split of every group: v[g] for group g of the scan */
static void split(const ApiScan* sc, const I64Map* ix, const int64_t* cut, ApiSplit* v) {
    for (int g = 0; g < sc->ng; g++) {
        v[g].domain = xstrdup(sc->g[g].domain);
        v[g].name = xstrdup(sc->g[g].name);
        v[g].calls = sc->g[g].calls;
        v[g].total_ns = sc->g[g].total_ns;
    }
    int64_t last_file = 0, c = 0;
    for (int64_t i = 0; i < sc->n; i++) {
        if (i == 0 || sc->file[i] != last_file) {
            last_file = sc->file[i];
            c = I64Map_get(ix, last_file);
        }
        if (!c) {
            continue; /* no cut: neither side (SQL's c.cut_ns IS NOT NULL AND ...) */
        }
        ApiSplit* r = &v[sc->group[i]];
        r->cut = 1;
        if (!sc->has_start[i]) {
            continue; /* start_ns < cut_ns is NULL: counted on neither side */
        }
        if (sc->start[i] < cut[c - 1]) {
            r->first_calls++;
            r->first_ns += sc->dur[i];
        } else {
            r->steady_calls++;
            r->steady_ns += sc->dur[i];
        }
    }
}

/* ORDER BY total DESC, name */
static int cmp_row(const void* p, const void* q) {
    const ApiSplit *x = p, *y = q;
    if (x->total_ns != y->total_ns) {
        return x->total_ns > y->total_ns ? -1 : 1;
    }
    return ApiScan_cmpText(x->name, y->name);
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
    const ApiScan* sc = NULL;
    DcuStatus s = ApiScan_get(db, &sc, err);
    if (s != DCU_OK || !sc->exact) {
        return s;
    }
    I64Map* ix = I64Map_new();
    int64_t* cut = NULL;
    int ok = read_cuts(db, ix, &cut, &s, err);
    ApiSplit* v = ok ? xcalloc((size_t)(sc->ng ? sc->ng : 1), sizeof(ApiSplit)) : NULL;
    if (ok) {
        split(sc, ix, cut, v);
        qsort(v, (size_t)sc->ng, sizeof(ApiSplit), cmp_row);
        for (int i = 1; i < sc->ng && ok; i++) {
            ok = cmp_row(&v[i - 1], &v[i]) != 0; /* a tie SQL may order either way */
        }
    }
    I64Map_delete(ix);
    free(cut);
    if (!ok) {
        ApiSplit_free(v, v ? sc->ng : 0);
        return s;
    }
    *out = v;
    *n = sc->ng;
    *exact = 1;
    return DCU_OK;
}
