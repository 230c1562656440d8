/* diff_side.c - one run as a comparison sees it: DiffSide_fromDb reads the database's current
 * scope (kernel_summary, the used files' dispatch durations and step times). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/diff.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"

static const char kernels_sql[] =
    "SELECT k.name, k.short_name, coalesce(k.category, 'other'), coalesce(c.is_gemm, 0),"
    "       s.calls, s.total_ns, k.id"
    " FROM kernel_summary s JOIN kernel k ON k.id = s.kernel_id"
    " LEFT JOIN category c ON c.name = k.category"
    " WHERE s.calls > 0 OR s.total_ns > 0 ORDER BY k.name";

static const char durs_sql[] =
    "SELECT kernel_id, dur_ns FROM dispatch"
    " WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"
    " ORDER BY kernel_id, id";

static const char steps_sql[] =
    "SELECT ms FROM step_time"
    " WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'steps')"
    " ORDER BY file_id, idx";

static DcuStatus step_error(TraceDb* db, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "SQL error: %s", sqlite3_errmsg(TraceDb_handle(db)));
}

static char* col_text(sqlite3_stmt* st, int c) {
    const unsigned char* t = sqlite3_column_text(st, c);
    return xstrdup(t ? (const char*)t : "");
}

/* Attaches the durations to their kernels (ids kept in ids[] beside s->k). A kernel whose
 * calls are not all per-dispatch rows (stats from another file) keeps none. */
static DcuStatus read_durations(TraceDb* db, DiffSide* s, const int64_t* ids, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db, durs_sql, &st, err);
    if (rc != DCU_OK) {
        return rc;
    }
    int64_t cur = -1, n = 0, cap = 0;
    int64_t* buf = NULL;
    int r;
    for (;;) {
        r = sqlite3_step(st);
        int64_t kid = r == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
        if (kid != cur && cur >= 0) {
            for (int i = 0; i < s->nk; i++) {
                if (ids[i] == cur && s->k[i].calls == n) {
                    s->k[i].durs = buf;
                    s->k[i].ndurs = n;
                    buf = NULL;
                }
            }
            free(buf);
            buf = NULL;
            n = cap = 0;
        }
        if (r != SQLITE_ROW) {
            break;
        }
        cur = kid;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            buf = xrealloc(buf, sizeof(int64_t) * (size_t)cap);
        }
        buf[n++] = sqlite3_column_int64(st, 1);
    }
    free(buf);
    sqlite3_finalize(st);
    return r == SQLITE_DONE ? DCU_OK : step_error(db, err);
}

static DcuStatus read_steps(TraceDb* db, DiffSide* s, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db, steps_sql, &st, err);
    if (rc != DCU_OK) {
        return rc;
    }
    int cap = 0, r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (s->nsteps == cap) {
            cap = cap ? cap * 2 : 32;
            s->steps_ms = xrealloc(s->steps_ms, sizeof(double) * (size_t)cap);
        }
        s->steps_ms[s->nsteps++] = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return r == SQLITE_DONE ? DCU_OK : step_error(db, err);
}

DcuStatus DiffSide_fromDb(TraceDb* db, const char* label, DiffSide** out, DcuError* err) {
    *out = NULL;
    DiffSide* s = xcalloc(1, sizeof(*s));
    s->label = xstrdup(label ? label : "");
    int64_t* ids = NULL;
    int cap = 0, r;
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db, kernels_sql, &st, err);
    while (rc == DCU_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        if (s->nk == cap) {
            cap = cap ? cap * 2 : 64;
            s->k = xrealloc(s->k, sizeof(DiffKernel) * (size_t)cap);
            ids = xrealloc(ids, sizeof(int64_t) * (size_t)cap);
        }
        DiffKernel* k = &s->k[s->nk];
        memset(k, 0, sizeof(*k));
        k->name = col_text(st, 0);
        k->short_name = col_text(st, 1);
        k->category = col_text(st, 2);
        k->is_gemm = sqlite3_column_int(st, 3);
        k->calls = sqlite3_column_int64(st, 4);
        k->total_ns = sqlite3_column_int64(st, 5);
        ids[s->nk++] = sqlite3_column_int64(st, 6);
        s->kernel_ns += k->total_ns;
        s->dispatches += k->calls;
        s->gemm_ns += k->is_gemm ? k->total_ns : 0;
    }
    if (rc == DCU_OK && r != SQLITE_DONE) {
        rc = step_error(db, err);
    }
    sqlite3_finalize(st);
    if (rc == DCU_OK) {
        rc = read_durations(db, s, ids, err);
    }
    if (rc == DCU_OK) {
        rc = read_steps(db, s, err);
    }
    if (rc == DCU_OK) {
        rc = DiffSide_readOps(db, s, ids, err);
    }
    free(ids);
    if (rc != DCU_OK) {
        DiffSide_delete(s);
        return rc;
    }
    s->per_dispatch = s->nk > 0;
    for (int i = 0; i < s->nk; i++) {
        s->per_dispatch &= s->k[i].durs != NULL;
    }
    s->wall_ns = s->nk > 0 ? Timeline_wallNs(db) : 0;
    s->pmc = (int)TraceDb_scalarInt(
        db, "SELECT coalesce(max(pmc), 0) FROM source_file WHERE id IN"
            " (SELECT file_id FROM used_file WHERE layer = 'kernel')");
    *out = s;
    return DCU_OK;
}

void DiffSide_delete(DiffSide* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->nk; i++) {
        free(this->k[i].name);
        free(this->k[i].short_name);
        free(this->k[i].category);
        free(this->k[i].durs);
    }
    free(this->k);
    for (int i = 0; i < this->nops; i++) {
        DiffKernel* o = &this->ops[i];
        free(o->name);
        free(o->short_name);
        free(o->category);
        free(o->durs);
        DiffOp_delete(o->op);
    }
    free(this->ops);
    free(this->steps_ms);
    free(this->label);
    free(this);
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

double DiffSide_stepMs(const DiffSide* this) {
    if (this->nsteps == 0) {
        return NAN;
    }
    double* v = xmalloc(sizeof(double) * (size_t)this->nsteps);
    memcpy(v, this->steps_ms, sizeof(double) * (size_t)this->nsteps);
    qsort(v, (size_t)this->nsteps, sizeof(double), cmp_double);
    int n = this->nsteps;
    double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    free(v);
    return m;
}

void DiffOp_delete(DiffOp* o) {
    if (!o) {
        return;
    }
    free(o->module);
    free(o->op);
    free(o->shapes);
    free(o->pass);
    free(o->kernels);
    free(o);
}
