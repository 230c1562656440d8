/* report_table.c - one ResultSet as an aligned text table that fits --width: the writer
 * every text report (report.c and the report_*.c views) shares, below all of them. */
#include "dcutop/report_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/format.h"
#include "dcutop/table_view.h"
#include "dcutop/xalloc.h"

/* Columns a narrow report leaves out first, in this order (the TUI drops the same kind). */
static const char* const drop_first[] = {"stddev_ns", "min_ns", "max_ns", "cum_pct", "avg_ns",
                                         "source", "domain", "gbps", "rejected", "layer",
                                         "bound", "pct_peak", "outliers", "var_pct", "pmc",
                                         "files", "mode", "var_ns", "layers",
                                         /* A-B-B-A: the ms figures give way to the shares */
                                         "effect", "drift", "repeats_pct", "repeats",
                                         NULL};
/* Extras that go sooner: while the name has less than a third of the width, as in the TUI
 * (Hotspots' launch group, idle.h; its headline, the median launch delay, last). */
static const char* const drop_extra[] = {"call_p50_ns", "short_launch_pct", "launched",
                                         "delay_p95_ns", "delay_p50_ns", NULL};

/* Leaves out the columns of drop, in order, while the kept ones and the name column fi (at
 * most name_min cells of it) do not fit width. */
static void drop_until_fit(const ResultSet* rs, const int* cols, int n, int fi, const int* w,
                           int* keep, int width, const char* const* drop, int name_min) {
    for (int d = 0;; d++) {
        int fixed = 0;
        for (int i = 0; i < n; i++) {
            fixed += keep[i] && i != fi ? w[i] + 2 : 0;
        }
        int want = fi >= 0 ? 2 + (w[fi] < name_min ? w[fi] : name_min) : 0;
        if (fixed + want <= width || !drop[d]) {
            break;
        }
        for (int i = 0; i < n; i++) {
            if (i != fi && strcmp(rs->cols[cols[i]].key, drop[d]) == 0) {
                keep[i] = 0;
            }
        }
    }
}

/* Makes the columns fit width: leaves out extras while the name column (fi) would get less
 * than a third of the width, secondary columns while it would get less than 24 cells, then
 * narrows the widest other text columns. keep[i] = 0 for a column left out; w[] shrinks. */
static void fit_columns(const ResultSet* rs, const int* cols, int n, int fi, int* w, int* keep,
                        int width) {
    drop_until_fit(rs, cols, n, fi, w, keep, width, drop_extra, width / 3 > 24 ? width / 3 : 24);
    drop_until_fit(rs, cols, n, fi, w, keep, width, drop_first, 24);
    for (;;) {
        int fixed = 0, widest = -1;
        for (int i = 0; i < n; i++) {
            if (keep[i] && i != fi) {
                fixed += w[i] + 2;
                if (rs->cols[cols[i]].type == CT_TEXT && w[i] > 10 &&
                    (widest < 0 || w[i] > w[widest])) {
                    widest = i;
                }
            }
        }
        if (fixed + (fi >= 0 ? 22 : 0) <= width || widest < 0) {
            break;
        }
        w[widest]--;
    }
}

/* The first line of s that fits width cells, broken at a space where there is one, into out;
 * returns the rest (spaces skipped), "" when none. */
static const char* wrap_first(const char* s, int width, char* out, size_t cap) {
    int used = 0;
    const char* p = s;
    const char* brk = NULL;
    while (*p && used < width) {
        int len;
        Format_nextChar(p, &len);
        if (*p == ' ') {
            brk = p;
        }
        used++;
        p += len > 0 ? len : 1;
    }
    if (*p && *p != ' ' && brk && brk > s) {
        p = brk;
    }
    size_t n = (size_t)(p - s) < cap - 1 ? (size_t)(p - s) : cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    while (n > 0 && out[n - 1] == ' ') {
        out[--n] = '\0';
    }
    while (*p == ' ') {
        p++;
    }
    return p;
}

/* How one table is laid out: the columns shown, their units, titles and widths. */
typedef struct Layout_ {
    int cols[32], n;  /* rs's columns, in order */
    TimeUnit unit[32];
    char head[32][48];
    int w[32], keep[32]; /* width in cells; 0: left out to fit */
    int fi;              /* the flexible column (index into cols), -1: none */
    int fixed;           /* cells the kept columns other than fi take, separators included */
} Layout;

/* The columns of keys that hold a value in the first rows (all of them when there are no rows). */
static void pick_columns(const ResultSet* rs, const char* const* keys, int rows, Layout* L) {
    L->n = 0;
    for (int i = 0; keys[i] && L->n < 32; i++) {
        int c = ResultSet_columnIndex(rs, keys[i]);
        int any = 0;
        for (int r = 0; c >= 0 && r < rows && !any; r++) {
            any = !ResultSet_cellc(rs, r, c)->null;
        }
        if (c >= 0 && (any || rows == 0)) { /* a column with no value at all is left out */
            L->cols[L->n++] = c;
        }
    }
}

/* Each column's unit, title and width: its widest cell or title. */
static void measure_columns(const ResultSet* rs, int rows, Layout* L) {
    char buf[1024];
    for (int i = 0; i < L->n; i++) {
        const RsColumn* col = &rs->cols[L->cols[i]];
        L->unit[i] = TableView_unitFor(rs, L->cols[i], rows);
        if (col->type == CT_NS) {
            snprintf(L->head[i], sizeof(L->head[i]), "%s(%s)", col->title,
                     Format_unitName(L->unit[i]));
        } else {
            snprintf(L->head[i], sizeof(L->head[i]), "%s", col->title);
        }
        L->w[i] = Format_width(L->head[i]);
        for (int r = 0; r < rows; r++) {
            TableView_cellText(rs, r, L->cols[i], L->unit[i], buf, sizeof(buf));
            int cw = Format_width(buf);
            if (cw > L->w[i]) {
                L->w[i] = cw;
            }
        }
    }
}

/* Fits the columns to width: the flexible column (a name) gets what is left, at least 20 cells. */
static void fit_layout(const ResultSet* rs, const char* flex, int width, Layout* L) {
    L->fixed = 0;
    L->fi = -1;
    for (int i = 0; i < L->n; i++) {
        L->keep[i] = 1;
        if (flex && strcmp(rs->cols[L->cols[i]].key, flex) == 0) {
            L->fi = i;
        }
    }
    fit_columns(rs, L->cols, L->n, L->fi, L->w, L->keep, width);
    for (int i = 0; i < L->n; i++) {
        L->fixed += L->keep[i] && i != L->fi ? L->w[i] + 2 : 0;
    }
    if (L->fi >= 0) {
        int room = width - L->fixed - 2;
        if (room < 20) {
            room = 20;
        }
        if (L->w[L->fi] > room) {
            L->w[L->fi] = room;
        }
    }
}

/* Row r (-1: the titles) as one line, no trailing spaces; a status (the why of the Files
 * table) too long for the last column is wrapped, not cut: names keep their shortened form,
 * a sentence needs every word. */
static void put_row(FILE* out, const ResultSet* rs, const char* flex, const Layout* L, int r,
                    char** line, size_t* lcap) {
    char buf[1024], cell[4096], fit[4096], wrapped[1024];
    size_t llen = 0;
    const char* rest = NULL;
    for (int i = 0; i < L->n; i++) {
        if (!L->keep[i]) {
            continue;
        }
        int right = rs->cols[L->cols[i]].type != CT_TEXT;
        if (r < 0) {
            snprintf(cell, sizeof(cell), "%s", L->head[i]);
        } else {
            TableView_cellText(rs, r, L->cols[i], L->unit[i], buf, sizeof(buf));
            if (i == L->fi && i == L->n - 1 && strcmp(flex, "status") == 0 &&
                Format_width(buf) > L->w[i]) {
                rest = wrap_first(buf, L->w[i], cell, sizeof(cell));
                snprintf(wrapped, sizeof(wrapped), "%s", rest);
                rest = wrapped;
            } else if (i == L->fi && !TableView_qualifiedNames(rs)) {
                Format_cutName(buf, L->w[i], cell, sizeof(cell));
            } else {
                Format_cutEnd(buf, L->w[i], cell, sizeof(cell)); /* narrowed to fit */
            }
        }
        Format_fit(cell, L->w[i], right, fit, sizeof(fit));
        size_t fl = strlen(fit);
        xgrow((void**)line, lcap, llen + fl + 4);
        memcpy(*line + llen, "  ", 2);
        memcpy(*line + llen + 2, fit, fl);
        llen += fl + 2;
    }
    /* no trailing spaces: golden files and diffs stay clean */
    while (llen > 0 && (*line)[llen - 1] == ' ') {
        llen--;
    }
    (*line)[llen] = '\0';
    fprintf(out, "%s\n", *line);
    int indent = L->fixed + 2; /* the wrapped column starts after the fixed ones */
    while (rest && *rest) {
        rest = wrap_first(rest, L->w[L->fi], cell, sizeof(cell));
        fprintf(out, "%*s%s\n", indent, "", cell);
    }
}

void Report_table(FILE* out, const ResultSet* rs, const char* const* keys, const char* flex,
                  int width, int max_rows) {
    int rows = max_rows > 0 && max_rows < rs->nrows ? max_rows : rs->nrows;
    Layout L;
    pick_columns(rs, keys, rows, &L);
    measure_columns(rs, rows, &L);
    fit_layout(rs, flex, width, &L);
    size_t lcap = 256;
    char* line = xmalloc(lcap);
    for (int r = -1; r < rows; r++) {
        put_row(out, rs, flex, &L, r, &line, &lcap);
    }
    free(line);
    if (rows < rs->nrows) {
        fprintf(out, "  ... %d more rows (--top 0 shows all)\n", rs->nrows - rows);
    }
    if (rs->footer) {
        fprintf(out, " %s\n", rs->footer);
    }
}

/* Words wrapped to width cells, every line after the first indented by indent spaces. Written
 * word by word, so a wide --width holds a line of any length. */
void Report_wrap(FILE* out, const char* s, int width, int indent) {
    int n = (int)strspn(s, " "); /* the line's own indentation stays */
    fprintf(out, "%*s", n, "");
    int w = n, bare = 1; /* cells on the line; bare: nothing on it but indentation */
    for (const char* p = s + n; *p;) {
        size_t wl = strcspn(p, " ");
        char word[512];
        snprintf(word, sizeof(word), "%.*s", (int)(wl < 511 ? wl : 511), p);
        int ww = Format_width(word);
        if (w > indent && w + 1 + ww > width) {
            fprintf(out, "\n%*s", indent, "");
            w = indent;
        } else if (!bare) {
            fputc(' ', out);
            w++;
        }
        fwrite(p, 1, wl, out);
        w += ww;
        bare = 0;
        p += wl;
        while (*p == ' ') {
            p++;
        }
    }
    if (n > 0 || !bare) {
        fputc('\n', out);
    }
}
