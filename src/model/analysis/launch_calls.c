/* launch_calls.c - see launch_calls.h. */
#include "dcutop/launch_calls.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/intern.h"
#include "dcutop/xalloc.h"

struct LaunchCalls_ {
    LaunchCall* v; /* sorted by corr, file, id */
    int64_t n, cap;
    I64Map* first; /* corr -> 1 + index of its first call in v */
    Intern* ix;    /* name -> 1 + its index */
    char** names;
    uint32_t nnames, capnames;
};

static uint32_t name_of(LaunchCalls* t, const char* s) {
    size_t n = strlen(s);
    int64_t id = Intern_get(t->ix, s, n);
    if (!id) {
        if (t->nnames == t->capnames) {
            t->capnames = t->capnames ? t->capnames * 2 : 64;
            t->names = xrealloc(t->names, (size_t)t->capnames * sizeof(char*));
        }
        t->names[t->nnames++] = xstrdup(s);
        id = t->nnames;
        Intern_put(t->ix, s, n, id);
    }
    return (uint32_t)(id - 1);
}

static int cmp_call(const void* a, const void* b) {
    const LaunchCall *x = a, *y = b;
    if (x->corr != y->corr) {
        return x->corr < y->corr ? -1 : 1;
    }
    if (x->file != y->file) {
        return x->file < y->file ? -1 : 1;
    }
    return (x->id > y->id) - (x->id < y->id);
}

/* SQL's lower(substr(name, 1, 3)) <> 'hip': lower() folds ASCII only, so a name starts with
 * "hip" in any case or not. */
static signed char not_hip(const char* s) {
    static const char hip[] = "hip";
    for (int i = 0; i < 3; i++) {
        char ch = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
        if (ch != hip[i]) {
            return 1;
        }
    }
    return 0;
}

/* The files with a run: a handful of rows, read first so that no call joins source_file. */
typedef struct {
    I64Map* ix; /* file id -> 1 + index in run */
    int64_t* run;
    int64_t n;
} Runs;

static DcuStatus read_runs(TraceDb* db, Runs* r, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT id, run_id FROM source_file"
                                      " WHERE run_id IS NOT NULL", &st, err);
    int64_t cap = 0;
    while (s == DCU_OK && sqlite3_step(st) == SQLITE_ROW) {
        if (r->n == cap) {
            cap = cap ? cap * 2 : 16;
            r->run = xrealloc(r->run, (size_t)cap * sizeof(*r->run));
        }
        r->run[r->n++] = sqlite3_column_int64(st, 1);
        I64Map_put(r->ix, sqlite3_column_int64(st, 0), r->n);
    }
    sqlite3_finalize(st);
    return s;
}

static void add_call(LaunchCalls* t, sqlite3_stmt* st, const Runs* runs) {
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->v = xrealloc(t->v, (size_t)t->cap * sizeof(*t->v));
    }
    LaunchCall* c = &t->v[t->n++];
    memset(c, 0, sizeof(*c));
    c->corr = sqlite3_column_int64(st, 0);
    c->file = sqlite3_column_int64(st, 1);
    int64_t r = I64Map_get(runs->ix, c->file);
    c->has_run = r != 0;
    c->run = r ? runs->run[r - 1] : 0;
    c->id = sqlite3_column_int64(st, 2);
    const char* nm = (const char*)sqlite3_column_text(st, 3);
    c->hip = nm ? not_hip(nm) : -1;
    c->name = name_of(t, nm ? nm : "");
    c->has_start = sqlite3_column_type(st, 4) != SQLITE_NULL;
    c->start = sqlite3_column_int64(st, 4);
    c->has_end = sqlite3_column_type(st, 5) != SQLITE_NULL;
    c->end = sqlite3_column_int64(st, 5);
    c->has_pid = sqlite3_column_type(st, 6) != SQLITE_NULL;
    c->pid = sqlite3_column_int64(st, 6);
    c->has_tid = sqlite3_column_type(st, 7) != SQLITE_NULL;
    c->tid = sqlite3_column_int64(st, 7);
}

static void calls_free(void* p) {
    LaunchCalls* this = p;
    for (uint32_t i = 0; i < this->nnames; i++) {
        free(this->names[i]);
    }
    free(this->names);
    Intern_delete(this->ix);
    I64Map_delete(this->first);
    free(this->v);
    free(this);
}

static DcuStatus read_calls(TraceDb* db, LaunchCalls** out, DcuError* err) {
    *out = NULL;
    Runs runs = {I64Map_new(), NULL, 0};
    sqlite3_stmt* st = NULL;
    DcuStatus s = read_runs(db, &runs, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "SELECT corr_id, file_id, id, name, start_ns, end_ns, pid, tid"
                            " FROM api_call WHERE corr_id IS NOT NULL",
                            &st, err);
    }
    LaunchCalls* t = xcalloc(1, sizeof(*t));
    t->ix = Intern_new();
    t->first = I64Map_new();
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        add_call(t, st, &runs);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "idle: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    I64Map_delete(runs.ix);
    free(runs.run);
    if (s != DCU_OK) {
        calls_free(t);
        return s;
    }
    /* (corr, file, id) is a total order, so rows already in it (a Kineto trace's calls,
     * read in the order launched) need no sort, and any sort gives the same rows */
    int64_t k = 1;
    while (k < t->n && cmp_call(&t->v[k - 1], &t->v[k]) < 0) {
        k++;
    }
    if (k < t->n) {
        qsort(t->v, (size_t)t->n, sizeof(*t->v), cmp_call);
    }
    for (int64_t i = 0; i < t->n; i++) {
        if (i == 0 || t->v[i].corr != t->v[i - 1].corr) {
            I64Map_put(t->first, t->v[i].corr, i + 1);
        }
    }
    *out = t;
    return DCU_OK;
}

DcuStatus LaunchCalls_get(TraceDb* db, const LaunchCalls** out, DcuError* err) {
    *out = TraceDb_cached(db, TRACEDB_CACHE_LAUNCH_CALLS, TraceDb_state(db));
    if (*out) {
        return DCU_OK;
    }
    LaunchCalls* t = NULL;
    DcuStatus s = read_calls(db, &t, err);
    if (s == DCU_OK) {
        TraceDb_setCached(db, TRACEDB_CACHE_LAUNCH_CALLS, TraceDb_state(db), t, calls_free);
        *out = t;
    }
    return s;
}

/* ORDER BY lower(substr(name, 1, 3)) <> 'hip', id: a NULL key sorts first. */
static int run_better(const LaunchCall* c, const LaunchCall* best) {
    return c->hip != best->hip ? c->hip < best->hip : c->id < best->id;
}

const LaunchCall* LaunchCalls_find(const LaunchCalls* this, int64_t file, int64_t run,
                                   int has_run, int64_t corr) {
    int64_t i = I64Map_get(this->first, corr);
    if (!i) {
        return NULL;
    }
    const LaunchCall* best = NULL;
    for (int64_t j = i - 1; j < this->n && this->v[j].corr == corr; j++) {
        const LaunchCall* c = &this->v[j];
        if (c->file == file) {
            return c; /* the lowest id of the dispatch's own file (sorted by file, id) */
        }
        if (has_run && c->has_run && c->run == run && (!best || run_better(c, best))) {
            best = c;
        }
    }
    return best;
}

const char* LaunchCalls_name(const LaunchCalls* this, uint32_t i) {
    return i < this->nnames ? this->names[i] : NULL;
}

uint32_t LaunchCalls_names(const LaunchCalls* this) {
    return this->nnames;
}
