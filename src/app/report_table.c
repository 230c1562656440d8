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

void Report_table(FILE* out, const ResultSet* rs, const char* const* keys, const char* flex,
                  int width, int max_rows) {
    int rows = max_rows > 0 && max_rows < rs->nrows ? max_rows : rs->nrows;
    int cols[32], n = 0;
    for (int i = 0; keys[i] && n < 32; i++) {
        int c = ResultSet_columnIndex(rs, keys[i]);
        int any = 0;
        for (int r = 0; c >= 0 && r < rows && !any; r++) {
            any = !ResultSet_cellc(rs, r, c)->null;
        }
        if (c >= 0 && (any || rows == 0)) { /* a column with no value at all is left out */
            cols[n++] = c;
        }
    }
    TimeUnit unit[32];
    int w[32];
    char buf[1024];
    char head[32][48];
    for (int i = 0; i < n; i++) {
        const RsColumn* col = &rs->cols[cols[i]];
        unit[i] = TableView_unitFor(rs, cols[i], rows);
        if (col->type == CT_NS) {
            snprintf(head[i], sizeof(head[i]), "%s(%s)", col->title, Format_unitName(unit[i]));
        } else {
            snprintf(head[i], sizeof(head[i]), "%s", col->title);
        }
        w[i] = Format_width(head[i]);
        for (int r = 0; r < rows; r++) {
            TableView_cellText(rs, r, cols[i], unit[i], buf, sizeof(buf));
            int cw = Format_width(buf);
            if (cw > w[i]) {
                w[i] = cw;
            }
        }
    }
    /* the flexible column (a name) gets what is left of the width, at least 20 cells */
    int fixed = 0, fi = -1, keep[32];
    for (int i = 0; i < n; i++) {
        keep[i] = 1;
        if (flex && strcmp(rs->cols[cols[i]].key, flex) == 0) {
            fi = i;
        }
    }
    fit_columns(rs, cols, n, fi, w, keep, width);
    for (int i = 0; i < n; i++) {
        fixed += keep[i] && i != fi ? w[i] + 2 : 0;
    }
    if (fi >= 0) {
        int room = width - fixed - 2;
        if (room < 20) {
            room = 20;
        }
        if (w[fi] > room) {
            w[fi] = room;
        }
    }
    char cell[4096], fit[4096];
    size_t lcap = 256, llen = 0;
    char* line = xmalloc(lcap);
    for (int r = -1; r < rows; r++) {
        llen = 0;
        /* a status (the why of the Files table) too long for the last column is wrapped, not
         * cut: names keep their shortened form, a sentence needs every word */
        const char* rest = NULL;
        char wrapped[1024];
        for (int i = 0; i < n; i++) {
            if (!keep[i]) {
                continue;
            }
            int right = rs->cols[cols[i]].type != CT_TEXT;
            if (r < 0) {
                snprintf(cell, sizeof(cell), "%s", head[i]);
            } else {
                TableView_cellText(rs, r, cols[i], unit[i], buf, sizeof(buf));
                if (i == fi && i == n - 1 && strcmp(flex, "status") == 0 &&
                    Format_width(buf) > w[i]) {
                    rest = wrap_first(buf, w[i], cell, sizeof(cell));
                    snprintf(wrapped, sizeof(wrapped), "%s", rest);
                    rest = wrapped;
                } else if (i == fi && !TableView_qualifiedNames(rs)) {
                    Format_cutName(buf, w[i], cell, sizeof(cell));
                } else {
                    Format_cutEnd(buf, w[i], cell, sizeof(cell)); /* narrowed to fit */
                }
            }
            Format_fit(cell, w[i], right, fit, sizeof(fit));
            size_t fl = strlen(fit);
            xgrow((void**)&line, &lcap, llen + fl + 4);
            memcpy(line + llen, "  ", 2);
            memcpy(line + llen + 2, fit, fl);
            llen += fl + 2;
        }
        /* no trailing spaces: golden files and diffs stay clean */
        while (llen > 0 && line[llen - 1] == ' ') {
            llen--;
        }
        line[llen] = '\0';
        fprintf(out, "%s\n", line);
        int indent = (int)fixed + 2; /* the wrapped column starts after the fixed ones */
        while (rest && *rest) {
            rest = wrap_first(rest, w[fi], cell, sizeof(cell));
            fprintf(out, "%*s%s\n", indent, "", cell);
        }
    }
    free(line);
    if (rows < rs->nrows) {
        fprintf(out, "  ... %d more rows (--top 0 shows all)\n", rs->nrows - rows);
    }
    if (rs->footer) {
        fprintf(out, " %s\n", rs->footer);
    }
}

/* Words wrapped to width cells, every line after the first indented by indent spaces. */
void Report_wrap(FILE* out, const char* s, int width, int indent) {
    char line[1024];
    size_t n = strspn(s, " "); /* the line's own indentation stays */
    int w = (int)n;
    memset(line, ' ', n);
    for (const char* p = s + n; *p;) {
        size_t wl = strcspn(p, " ");
        char word[512];
        snprintf(word, sizeof(word), "%.*s", (int)(wl < 511 ? wl : 511), p);
        int ww = Format_width(word);
        if (w > indent && w + 1 + ww > width) {
            line[n] = '\0';
            fprintf(out, "%s\n", line);
            n = (size_t)snprintf(line, sizeof(line), "%*s", indent, "");
            w = indent;
        } else if (n > 0 && line[n - 1] != ' ') {
            line[n++] = ' ';
            w++;
        }
        if (n + wl + 1 < sizeof(line)) {
            memcpy(line + n, p, wl);
            n += wl;
            w += ww;
        }
        p += wl;
        while (*p == ' ') {
            p++;
        }
    }
    line[n] = '\0';
    if (n > 0) {
        fprintf(out, "%s\n", line);
    }
}
