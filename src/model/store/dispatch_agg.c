/* dispatch_agg.c - see dispatch_agg.h. Kernel ids are dense (Load_kernelId counts from 1),
 * so the sums live in an array indexed by id, with the list of ids touched by this file. */
#include "dispatch_agg.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

typedef struct {
    int64_t calls, min_ns, max_ns;
    int64_t min_start; /* INT64_MIN: none yet */
    double total_ns, sumsq; /* as total(dur_ns) and sum(CAST(dur_ns AS REAL) * dur_ns) */
} Agg;

struct DispatchAgg_ {
    Agg* by_id;
    int64_t cap;
    int64_t* touched;
    int64_t ntouched, captouched;
    int64_t lo_id, hi_id, rows; /* the rowids of this file's dispatches (rows 0: none) */
};

DispatchAgg* DispatchAgg_new(void) {
    return xcalloc(1, sizeof(DispatchAgg));
}

void DispatchAgg_delete(DispatchAgg* this) {
    if (this) {
        free(this->by_id);
        free(this->touched);
        free(this);
    }
}

void DispatchAgg_add(DispatchAgg* this, int64_t row_id, int64_t kernel_id, int64_t dur_ns,
                     int64_t start_ns) {
    if (this->rows++ == 0 || row_id < this->lo_id) {
        this->lo_id = row_id;
    }
    if (this->rows == 1 || row_id > this->hi_id) {
        this->hi_id = row_id;
    }
    if (kernel_id <= 0) {
        return;
    }
    if (kernel_id >= this->cap) {
        int64_t cap = this->cap ? this->cap : 256;
        while (cap <= kernel_id) {
            cap *= 2;
        }
        this->by_id = xrealloc(this->by_id, (size_t)cap * sizeof(Agg));
        memset(this->by_id + this->cap, 0, (size_t)(cap - this->cap) * sizeof(Agg));
        this->cap = cap;
    }
    Agg* a = &this->by_id[kernel_id];
    if (a->calls == 0) {
        if (this->ntouched == this->captouched) {
            this->captouched = this->captouched ? 2 * this->captouched : 256;
            this->touched = xrealloc(this->touched, (size_t)this->captouched * sizeof(int64_t));
        }
        this->touched[this->ntouched++] = kernel_id;
        a->min_ns = a->max_ns = dur_ns;
        a->min_start = INT64_MIN;
    }
    if (start_ns != INT64_MIN && (a->min_start == INT64_MIN || start_ns < a->min_start)) {
        a->min_start = start_ns;
    }
    a->calls++;
    a->total_ns += (double)dur_ns;
    a->sumsq += (double)dur_ns * (double)dur_ns;
    a->min_ns = dur_ns < a->min_ns ? dur_ns : a->min_ns;
    a->max_ns = dur_ns > a->max_ns ? dur_ns : a->max_ns;
}

static DcuStatus flush_span(DispatchAgg* this, TraceDb* db, int64_t file_id, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "INSERT INTO dispatch_span(file_id, lo_id, hi_id, n)"
                                  " VALUES(?1, ?2, ?3, ?4)",
                                  &st, err);
    if (s == DCU_OK) {
        sqlite3_bind_int64(st, 1, file_id);
        sqlite3_bind_int64(st, 2, this->lo_id);
        sqlite3_bind_int64(st, 3, this->hi_id);
        sqlite3_bind_int64(st, 4, this->rows);
        if (sqlite3_step(st) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "dispatch_span: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
        }
    }
    sqlite3_finalize(st);
    this->rows = 0;
    return s;
}

DcuStatus DispatchAgg_flush(DispatchAgg* this, TraceDb* db, int64_t file_id, DcuError* err) {
    if (this->rows > 0) {
        DcuStatus s = flush_span(this, db, file_id, err);
        if (s != DCU_OK) {
            return s;
        }
    }
    if (this->ntouched == 0) {
        return DCU_OK;
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "INSERT INTO dispatch_agg(file_id, kernel_id, calls, total_ns,"
                                  " min_ns, max_ns, sumsq, min_start) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                                  &st, err);
    for (int64_t i = 0; i < this->ntouched; i++) {
        Agg* a = &this->by_id[this->touched[i]];
        if (s == DCU_OK) {
            sqlite3_bind_int64(st, 1, file_id);
            sqlite3_bind_int64(st, 2, this->touched[i]);
            sqlite3_bind_int64(st, 3, a->calls);
            sqlite3_bind_double(st, 4, a->total_ns);
            sqlite3_bind_int64(st, 5, a->min_ns);
            sqlite3_bind_int64(st, 6, a->max_ns);
            sqlite3_bind_double(st, 7, a->sumsq);
            if (a->min_start == INT64_MIN) {
                sqlite3_bind_null(st, 8);
            } else {
                sqlite3_bind_int64(st, 8, a->min_start);
            }
            if (sqlite3_step(st) != SQLITE_DONE) {
                s = Error_set(err, DCU_ERR_SQL, "dispatch_agg: %s",
                              sqlite3_errmsg(TraceDb_handle(db)));
            }
            sqlite3_reset(st);
        }
        memset(a, 0, sizeof(*a));
    }
    this->ntouched = 0;
    sqlite3_finalize(st);
    return s;
}
