/* row_batch.c - see row_batch.h. A full batch goes through one statement of ROW_BATCH_ROWS
 * tuples; the rest at a flush through the one-row statement, row by row. */
#include "row_batch.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

enum { V_INT, V_NULL, V_TEXT, V_OWNED };

typedef struct {
    int64_t i;
    const char* s; /* V_TEXT */
    char* owned;   /* V_OWNED */
    int type;
} Value;

struct RowBatch_ {
    TraceDb* db;
    const char *head, *row;
    int ncols;
    sqlite3_stmt *many, *one; /* prepared on first use */
    Value* v;                 /* ROW_BATCH_ROWS * ncols */
    int nv;                   /* values added */
};

RowBatch* RowBatch_new(TraceDb* db, const char* head, const char* row, int ncols) {
    RowBatch* this = xcalloc(1, sizeof(*this));
    this->db = db;
    this->head = head;
    this->row = row;
    this->ncols = ncols;
    this->v = xmalloc(sizeof(Value) * (size_t)ROW_BATCH_ROWS * (size_t)ncols);
    return this;
}

/* frees the owned texts of values [from, to), which no statement took */
static void drop(RowBatch* this, int from, int to) {
    for (int k = from; k < to; k++) {
        if (this->v[k].type == V_OWNED) {
            free(this->v[k].owned);
        }
    }
}

void RowBatch_delete(RowBatch* this) {
    if (this) {
        drop(this, 0, this->nv);
        sqlite3_finalize(this->many);
        sqlite3_finalize(this->one);
        free(this->v);
        free(this);
    }
}

static void add(RowBatch* this, int type, int64_t i, const char* s, char* owned) {
    this->v[this->nv++] = (Value){i, s, owned, type};
}

void RowBatch_int(RowBatch* this, int64_t v) {
    add(this, V_INT, v, NULL, NULL);
}

void RowBatch_null(RowBatch* this) {
    add(this, V_NULL, 0, NULL, NULL);
}

void RowBatch_text(RowBatch* this, const char* static_text) {
    add(this, V_TEXT, 0, static_text, NULL);
}

void RowBatch_textOwned(RowBatch* this, char* text) {
    add(this, V_OWNED, 0, NULL, text);
}

/* head + rows copies of row, joined by commas */
static int prepare(RowBatch* this, int rows, sqlite3_stmt** st) {
    if (*st) {
        return SQLITE_OK;
    }
    size_t hl = strlen(this->head), rl = strlen(this->row);
    char* sql = xmalloc(hl + 1 + (rl + 1) * (size_t)rows + 1);
    memcpy(sql, this->head, hl);
    size_t n = hl;
    sql[n++] = ' ';
    for (int r = 0; r < rows; r++) {
        if (r) {
            sql[n++] = ',';
        }
        memcpy(sql + n, this->row, rl);
        n += rl;
    }
    sql[n] = '\0';
    DcuStatus s = TraceDb_prepare(this->db, sql, st, NULL);
    free(sql);
    return s == DCU_OK ? SQLITE_OK : SQLITE_ERROR;
}

/* binds values [from, from + count) as parameters 1.. of st, runs it once */
static int run(sqlite3_stmt* st, const Value* v, int count) {
    for (int k = 0; k < count; k++) {
        switch (v[k].type) {
        case V_INT:
            sqlite3_bind_int64(st, k + 1, v[k].i);
            break;
        case V_TEXT:
            sqlite3_bind_text(st, k + 1, v[k].s, -1, SQLITE_STATIC);
            break;
        case V_OWNED: /* the statement frees it, at its next binding or finalize */
            sqlite3_bind_text(st, k + 1, v[k].owned, -1, free);
            break;
        default:
            sqlite3_bind_null(st, k + 1);
        }
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc;
}

int RowBatch_endRow(RowBatch* this) {
    if (this->nv < ROW_BATCH_ROWS * this->ncols) {
        return SQLITE_DONE;
    }
    int rc = prepare(this, ROW_BATCH_ROWS, &this->many);
    if (rc != SQLITE_OK) {
        drop(this, 0, this->nv);
    }
    this->nv = 0;
    return rc == SQLITE_OK ? run(this->many, this->v, ROW_BATCH_ROWS * this->ncols) : rc;
}

int RowBatch_flush(RowBatch* this) {
    int rc = SQLITE_DONE, nv = this->nv;
    this->nv = 0;
    if (nv > 0 && prepare(this, 1, &this->one) != SQLITE_OK) {
        drop(this, 0, nv);
        return SQLITE_ERROR;
    }
    int k = 0;
    for (; k < nv && rc == SQLITE_DONE; k += this->ncols) {
        rc = run(this->one, this->v + k, this->ncols);
    }
    drop(this, k, nv); /* the rows after a failed one */
    return rc;
}
