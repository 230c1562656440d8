/* table_view.c - see table_view.h. */
#include "dcutop/table_view.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int TableView_qualifiedNames(const ResultSet* rs) {
    /* API calls and PyTorch ops keep their namespace: aten::mul is not mul */
    return rs->name && (strncmp(rs->name, "api", 3) == 0 || strncmp(rs->name, "diff_op", 7) == 0);
}

void TableView_cellText(const ResultSet* rs, int r, int c, TimeUnit u, char* buf, size_t cap) {
    const RsCell* cell = ResultSet_cellc(rs, r, c);
    if (cell->null) {
        snprintf(buf, cap, "-");
        return;
    }
    switch (rs->cols[c].type) {
    case CT_TEXT:
        snprintf(buf, cap, "%s", cell->s ? cell->s : "");
        break;
    case CT_INT:
        snprintf(buf, cap, "%" PRId64, cell->i);
        break;
    case CT_NS:
        /* d: exact, also for averages (ResultSet_setNs); i where d was left behind */
        Format_durationExact(buf, cap, llround(cell->d) == cell->i ? cell->d : (double)cell->i, u);
        static const double div[] = {1, 1e3, 1e6, 1e9};
        double x = (double)cell->i / div[u];
        if (u > UNIT_NS && cell->i != 0 && fabs(x) < 0.01) {
            /* never a column of 0.00 (or 0.01) for small values beside large ones in a
             * larger unit: two significant digits (6.24 us in ms: 0.0062) */
            int dec = 3;
            while (dec < 9 && fabs(x) * pow(10, dec) < 10) {
                dec++;
            }
            snprintf(buf, cap, "%.*f", dec, x);
        }
        break;
    case CT_BYTES:
        Format_bytes(buf, cap, cell->i);
        break;
    case CT_PCT:
        snprintf(buf, cap, "%.2f", cell->d);
        break;
    case CT_RATIO:
        Format_ratio(buf, cap, cell->d);
        break;
    default:
        if (cell->s) { /* a narrow form the table's maker chose; d stays for sorting */
            snprintf(buf, cap, "%s", cell->s);
        } else if (isinf(cell->d)) {
            snprintf(buf, cap, "inf");
        } else {
            snprintf(buf, cap, "%.4g", cell->d);
        }
        break;
    }
}

void TableView_title(const TableLayout* l, const ResultSet* rs, int i, char* buf, size_t cap) {
    const RsColumn* col = &rs->cols[l->col[i]];
    if (col->type == CT_NS) {
        snprintf(buf, cap, "%s %s", col->title, Format_unitName(l->unit[i]));
    } else {
        snprintf(buf, cap, "%s", col->title);
    }
}

/* The unit of values: v(i) for i in [0, rows), has(i) 0 for a NULL. */
typedef struct {
    const ResultSet* rs;
    int c;
    int64_t rows;
} Values;

static int value_at(const Values* x, int64_t i, int64_t* out) {
    const RsCell* cell = ResultSet_cellc(x->rs, (int)i, x->c);
    *out = cell->i;
    return !cell->null;
}

static void count_values(void* ctx, int64_t bound, int64_t* n, int64_t* tiny) {
    const Values* x = ctx;
    int64_t v;
    *n = *tiny = 0;
    for (int64_t r = 0; r < x->rows; r++) {
        if (value_at(x, r, &v)) {
            (*n)++;
            *tiny += (v < 0 ? -v : v) < bound;
        }
    }
}

TimeUnit TableView_unitForCounts(int64_t mx, TableCountFn count, void* ctx) {
    TimeUnit u = Format_unitFor(mx);
    static const int64_t cut[] = {1, 10, 10000, 10000000};
    /* most values would read 0.00 in the largest value's unit: use a smaller one, unless the
     * largest would then need six digits (967824.19 us); tiny values then keep two
     * significant digits in the larger unit (TableView_cellText) */
    static const int64_t readable[] = {0, 100000LL, 100000000LL, 100000000000LL};
    if (u == UNIT_NS || mx >= readable[u]) {
        return u;
    }
    int64_t n = 0, tiny = 0;
    count(ctx, cut[u], &n, &tiny);
    return n > 0 && tiny * 2 > n ? (TimeUnit)(u - 1) : u;
}

TimeUnit TableView_unitFor(const ResultSet* rs, int c, int rows) {
    Values x = {rs, c, rows};
    int64_t mx = 0, v;
    for (int64_t r = 0; r < rows; r++) {
        if (value_at(&x, r, &v)) {
            v = v < 0 ? -v : v; /* a delta column holds negatives */
            mx = v > mx ? v : mx;
        }
    }
    return TableView_unitForCounts(mx, count_values, &x);
}

void TableLayout_compute(TableLayout* l, const ResultSet* rs, const char* const* keys,
                         const char* flex, const char* const* drop, int width) {
    TableLayout_computeUnits(l, rs, keys, flex, drop, width, NULL);
}

void TableLayout_computeUnits(TableLayout* l, const ResultSet* rs, const char* const* keys,
                              const char* flex, const char* const* drop, int width,
                              const int* units) {
    memset(l, 0, sizeof(*l));
    l->flex = -1;
    int dropped[TABLE_MAX_COLS] = {0};
    char buf[512];
    int want[TABLE_MAX_COLS];
    int n = 0;
    for (int i = 0; keys[i] && n < TABLE_MAX_COLS; i++) {
        int c = ResultSet_columnIndex(rs, keys[i]);
        if (c < 0) {
            continue;
        }
        int any = rs->nrows == 0 || (flex && strcmp(keys[i], flex) == 0);
        for (int r = 0; r < rs->nrows && !any; r++) {
            any = !ResultSet_cellc(rs, r, c)->null;
        }
        if (!any) {
            continue; /* a column with no value at all says nothing */
        }
        l->col[n] = c;
        l->unit[n] = rs->cols[c].type != CT_NS ? UNIT_NS
                     : units && units[c] >= 0 ? (TimeUnit)units[c]
                                              : TableView_unitFor(rs, c, rs->nrows);
        if (flex && strcmp(keys[i], flex) == 0) {
            l->flex = n;
        }
        n++;
    }
    l->n = n;
    /* natural widths: title and every cell (sampled beyond 2000 rows: long lists) */
    int step = rs->nrows > 2000 ? rs->nrows / 2000 : 1;
    for (int i = 0; i < n; i++) {
        TableView_title(l, rs, i, buf, sizeof(buf));
        int w = Format_width(buf) + 1; /* room for the sort arrow */
        if (i != l->flex) {
            for (int r = 0; r < rs->nrows; r += step) {
                TableView_cellText(rs, r, l->col[i], l->unit[i], buf, sizeof(buf));
                int cw = Format_width(buf);
                if (cw > w) {
                    w = cw;
                }
            }
            if (w > 40) {
                w = 40;
            }
        }
        want[i] = w;
    }
    /* the name is what people read first: give it a third of the width before extras */
    const int flex_min = width / 3 > 24 ? width / 3 : 24;
    for (;;) {
        int fixed = 0;
        for (int i = 0; i < n; i++) {
            if (!dropped[i] && i != l->flex) {
                fixed += want[i] + 1;
            }
        }
        int room = width - fixed - 1;
        if (!drop || (l->flex >= 0 && room >= flex_min) || (l->flex < 0 && fixed + 1 <= width)) {
            break; /* fits (with a flexible name column: leaving it enough room) */
        }
        int any = 0;
        for (int d = 0; drop[d] && !any; d++) {
            for (int i = 0; i < n; i++) {
                if (!dropped[i] && strcmp(rs->cols[l->col[i]].key, drop[d]) == 0) {
                    dropped[i] = 1;
                    any = 1;
                    break;
                }
            }
        }
        if (!any) {
            break;
        }
    }
    /* compact the kept columns */
    int m = 0, flex_new = -1;
    int fixed = 0;
    for (int i = 0; i < n; i++) {
        if (dropped[i]) {
            continue;
        }
        if (i == l->flex) {
            flex_new = m;
        }
        l->col[m] = l->col[i];
        l->unit[m] = l->unit[i];
        l->width[m] = want[i];
        if (i != l->flex) {
            fixed += want[i] + 1;
        }
        m++;
    }
    l->n = m;
    l->flex = flex_new;
    if (l->flex >= 0) {
        /* the name column takes the rest, but no more than its longest cell needs */
        int longest = l->width[l->flex];
        for (int r = 0; r < rs->nrows; r += step) {
            const RsCell* cell = ResultSet_cellc(rs, r, l->col[l->flex]);
            int cw = cell->s ? Format_width(cell->s) : 1;
            if (cw > longest) {
                longest = cw;
            }
        }
        int room = width - fixed - 1;
        l->width[l->flex] = room < 8 ? 8 : room;
        if (longest < l->width[l->flex]) {
            l->width[l->flex] = longest;
        }
    }
}

static Style cell_style(const ResultSet* rs, int r, int c) {
    const RsColumn* col = &rs->cols[c];
    if (col->type != CT_TEXT) {
        return STYLE_NUMBER;
    }
    if (strcmp(col->key, "category") == 0 || strcmp(col->key, "group") == 0) {
        const RsCell* cell = ResultSet_cellc(rs, r, c);
        if (cell->s && strcmp(cell->s, "GEMM") == 0) {
            return STYLE_GEMM;
        }
        if (cell->s && strcmp(cell->s, "non-GEMM") == 0) {
            return STYLE_NONGEMM;
        }
        return STYLE_CATEGORY;
    }
    return STYLE_NAME;
}

void TableView_render(const TableViewState* st, const TableLayout* l, const ResultSet* rs,
                      Canvas* c, int y0, int height) {
    char buf[4096], cut[4096], fit[4096];
    Canvas_fillRow(c, y0, 0, STYLE_COLUMN);
    int x = 1;
    for (int i = 0; i < l->n; i++) {
        int right = rs->cols[l->col[i]].type != CT_TEXT;
        int sorted = l->col[i] == st->sort_col;
        TableView_title(l, rs, i, buf, sizeof(buf));
        /* the arrow has a cell of its own (the layout keeps one): a right-aligned title
         * stays put whether or not its column is the sorted one */
        if (sorted) {
            strncat(buf, st->sort_desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2",
                    sizeof(buf) - strlen(buf) - 1);
        } else if (right) {
            strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
        }
        Format_fit(buf, l->width[i], right, fit, sizeof(fit));
        Canvas_put(c, y0, x, sorted ? STYLE_COLUMN_SORT : STYLE_COLUMN, fit, l->width[i]);
        x += l->width[i] + 1;
    }
    for (int k = 0; k < height - 1; k++) {
        int r = st->scroll + k;
        int y = y0 + 1 + k;
        Canvas_fillRow(c, y, 0, STYLE_DEFAULT);
        if (r >= rs->nrows) {
            continue;
        }
        int selected = r == st->selected;
        int pinned = r < rs->pinned;
        x = 1;
        for (int i = 0; i < l->n; i++) {
            int col = l->col[i];
            int right = rs->cols[col].type != CT_TEXT;
            TableView_cellText(rs, r, col, l->unit[i], buf, sizeof(buf));
            const char* key = rs->cols[col].key;
            if ((strcmp(key, "name") == 0 || strcmp(key, "short_name") == 0) &&
                !TableView_qualifiedNames(rs)) {
                Format_cutName(buf, l->width[i], cut, sizeof(cut)); /* names: the middle */
            } else {
                Format_cutEnd(buf, l->width[i], cut, sizeof(cut)); /* sentences: the end */
            }
            Format_fit(cut, l->width[i], right, fit, sizeof(fit));
            Style s = cell_style(rs, r, col);
            if (pinned && (s == STYLE_NAME || s == STYLE_CATEGORY)) {
                s = STYLE_TITLE;
            }
            Canvas_put(c, y, x, s, fit, l->width[i]);
            x += l->width[i] + 1;
        }
        if (selected) {
            Canvas_style(c, y, 0, c->w, STYLE_SELECTED);
        }
    }
}
