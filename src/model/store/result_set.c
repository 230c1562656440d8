/* result_set.c - see result_set.h. */
#include "dcutop/result_set.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

ResultSet* ResultSet_new(const char* name, const RsColumn* cols, int ncols) {
    ResultSet* this = xcalloc(1, sizeof(*this));
    this->name = xstrdup(name);
    this->cols = cols;
    this->ncols = ncols;
    return this;
}

void ResultSet_delete(ResultSet* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->nrows * this->ncols; i++) {
        free(this->cells[i].s);
    }
    free(this->cells);
    for (int c = 0; this->own_keys && c < this->ncols; c++) {
        free(this->own_keys[c]);
    }
    free(this->own_keys);
    free(this->own_cols);
    free(this->name);
    free(this->footer);
    free(this);
}

ResultSet* ResultSet_newDynamic(const char* name, int ncols) {
    RsColumn* cols = xcalloc((size_t)(ncols > 0 ? ncols : 1), sizeof(RsColumn));
    for (int c = 0; c < ncols; c++) {
        cols[c] = (RsColumn){"", "", CT_TEXT};
    }
    ResultSet* this = ResultSet_new(name, cols, ncols);
    this->own_cols = cols;
    this->own_keys = xcalloc((size_t)(ncols > 0 ? ncols : 1), sizeof(char*));
    return this;
}

void ResultSet_setColumn(ResultSet* this, int c, const char* key, ColType type) {
    if (!this->own_cols || c < 0 || c >= this->ncols) {
        return;
    }
    free(this->own_keys[c]);
    this->own_keys[c] = xstrdup(key);
    this->own_cols[c] = (RsColumn){this->own_keys[c], this->own_keys[c], type};
}

void ResultSet_reserve(ResultSet* this, int rows) {
    if (rows > this->cap) {
        this->cap = rows;
        this->cells = xrealloc(this->cells, sizeof(RsCell) * (size_t)this->cap * (size_t)this->ncols);
    }
}

int ResultSet_addRow(ResultSet* this) {
    if (this->nrows == this->cap) {
        ResultSet_reserve(this, this->cap ? this->cap * 2 : 64);
    }
    RsCell* row = &this->cells[(size_t)this->nrows * (size_t)this->ncols];
    for (int c = 0; c < this->ncols; c++) {
        memset(&row[c], 0, sizeof(RsCell));
        row[c].null = 1;
    }
    return this->nrows++;
}

void ResultSet_keepTop(ResultSet* this, int n) {
    if (n <= 0) {
        return;
    }
    int keep = this->pinned + n;
    if (keep >= this->nrows) {
        return;
    }
    for (size_t i = (size_t)keep * (size_t)this->ncols;
         i < (size_t)this->nrows * (size_t)this->ncols; i++) {
        free(this->cells[i].s);
    }
    this->nrows = keep;
}

RsCell* ResultSet_cell(ResultSet* this, int row, int col) {
    return &this->cells[(size_t)row * (size_t)this->ncols + (size_t)col];
}

const RsCell* ResultSet_cellc(const ResultSet* this, int row, int col) {
    return &this->cells[(size_t)row * (size_t)this->ncols + (size_t)col];
}

void ResultSet_setText(ResultSet* this, int row, int col, const char* s) {
    RsCell* c = ResultSet_cell(this, row, col);
    free(c->s);
    c->s = s ? xstrdup(s) : NULL;
    c->null = s == NULL;
}

void ResultSet_setInt(ResultSet* this, int row, int col, int64_t v) {
    RsCell* c = ResultSet_cell(this, row, col);
    c->i = v;
    c->d = (double)v;
    c->null = 0;
}

void ResultSet_setNs(ResultSet* this, int row, int col, double v) {
    RsCell* c = ResultSet_cell(this, row, col);
    c->i = (int64_t)llround(v);
    c->d = v;
    c->null = 0;
}

void ResultSet_setReal(ResultSet* this, int row, int col, double v) {
    RsCell* c = ResultSet_cell(this, row, col);
    c->d = v;
    c->null = 0;
}

int ResultSet_columnIndex(const ResultSet* this, const char* key) {
    for (int i = 0; i < this->ncols; i++) {
        if (strcmp(this->cols[i].key, key) == 0) {
            return i;
        }
    }
    return -1;
}

static const RsCell* cell_of(const ResultSet* this, int r, const char* key) {
    int c = this ? ResultSet_columnIndex(this, key) : -1;
    return c >= 0 ? ResultSet_cellc(this, r, c) : NULL;
}

const char* ResultSet_textOf(const ResultSet* this, int r, const char* key) {
    const RsCell* c = cell_of(this, r, key);
    return c && !c->null && c->s ? c->s : "";
}

int64_t ResultSet_intOf(const ResultSet* this, int r, const char* key) {
    const RsCell* c = cell_of(this, r, key);
    return c && !c->null ? c->i : 0;
}

typedef struct SortCtx_ {
    const ResultSet* rs;
    int col, desc;
} SortCtx;

static SortCtx sort_ctx; /* qsort has no context argument in C11; sorting is not reentrant */

static int cmp_rows(const void* a, const void* b) {
    int ra = *(const int*)a, rb = *(const int*)b;
    const RsCell* x = ResultSet_cellc(sort_ctx.rs, ra, sort_ctx.col);
    const RsCell* y = ResultSet_cellc(sort_ctx.rs, rb, sort_ctx.col);
    int r = 0;
    if (x->null || y->null) {
        r = x->null - y->null; /* NULLs last whatever the direction */
        return r ? r : ra - rb;
    }
    switch (sort_ctx.rs->cols[sort_ctx.col].type) {
    case CT_TEXT:
        r = strcmp(x->s ? x->s : "", y->s ? y->s : "");
        break;
    case CT_INT:
    case CT_NS:
    case CT_BYTES:
        r = (x->i > y->i) - (x->i < y->i);
        break;
    default:
        r = (x->d > y->d) - (x->d < y->d);
        break;
    }
    if (sort_ctx.desc) {
        r = -r;
    }
    return r ? r : ra - rb;
}

/* Integer columns (most of a 200,000-dispatch list) sort on keys pulled out of the cells
 * first: the same order as cmp_rows (NULLs last by row, ties by row), 255 ms to about
 * 30 ms at 200,000 rows (issue 11). */
typedef struct IKey_ {
    int64_t k;
    int row;
} IKey;

static int cmp_ikey_asc(const void* a, const void* b) {
    const IKey *x = a, *y = b;
    int r = (x->k > y->k) - (x->k < y->k);
    return r ? r : x->row - y->row;
}

static int cmp_ikey_desc(const void* a, const void* b) {
    const IKey *x = a, *y = b;
    int r = (x->k < y->k) - (x->k > y->k);
    return r ? r : x->row - y->row;
}

static void order_by_int(const ResultSet* this, int col, int desc, int* order, int n) {
    IKey* keys = xmalloc(sizeof(IKey) * (size_t)n);
    int nk = 0, nnull = 0;
    for (int i = 0; i < n; i++) { /* NULLs after, in row order */
        const RsCell* c = ResultSet_cellc(this, this->pinned + i, col);
        if (c->null) {
            order[n - 1 - nnull++] = this->pinned + i;
        } else {
            keys[nk++] = (IKey){c->i, this->pinned + i};
        }
    }
    for (int a = n - nnull, b = n - 1; a < b; a++, b--) { /* they went in from the end */
        int t = order[a];
        order[a] = order[b];
        order[b] = t;
    }
    qsort(keys, (size_t)nk, sizeof(IKey), desc ? cmp_ikey_desc : cmp_ikey_asc);
    for (int i = 0; i < nk; i++) {
        order[i] = keys[i].row;
    }
    free(keys);
}

void ResultSet_sort(ResultSet* this, int col, int desc) {
    int n = this->nrows - this->pinned - this->trailing;
    if (n <= 1 || col < 0 || col >= this->ncols) {
        return;
    }
    int* order = xmalloc(sizeof(int) * (size_t)n);
    ColType t = this->cols[col].type;
    if (t == CT_INT || t == CT_NS || t == CT_BYTES) {
        order_by_int(this, col, desc, order, n);
    } else {
        for (int i = 0; i < n; i++) {
            order[i] = this->pinned + i;
        }
        sort_ctx.rs = this;
        sort_ctx.col = col;
        sort_ctx.desc = desc;
        qsort(order, (size_t)n, sizeof(int), cmp_rows);
    }
    /* row i takes row order[i]: in place, cycle by cycle, each row moved once (a copy of
     * every row was 90 MB for a 203,000-dispatch list, and its page faults half a sort) */
    size_t rowsz = sizeof(RsCell) * (size_t)this->ncols;
    RsCell* hold = xmalloc(rowsz);
    for (int i = 0; i < n; i++) {
        if (order[i] < 0 || order[i] - this->pinned == i) {
            continue; /* moved already, or in place */
        }
        memcpy(hold, ResultSet_cell(this, this->pinned + i, 0), rowsz);
        int j = i;
        for (;;) {
            int k = order[j] - this->pinned;
            order[j] = -1;
            if (k == i) {
                memcpy(ResultSet_cell(this, this->pinned + j, 0), hold, rowsz);
                break;
            }
            memcpy(ResultSet_cell(this, this->pinned + j, 0),
                   ResultSet_cell(this, this->pinned + k, 0), rowsz);
            j = k;
        }
    }
    free(hold);
    free(order);
}

int ResultSet_defaultDesc(const ResultSet* this, int col) {
    return col >= 0 && col < this->ncols && this->cols[col].type != CT_TEXT;
}
