/* sql_output.c - --sql results as text, CSV or JSON; see sql_output.h. */
#include "dcutop/sql_output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/format.h"
#include "dcutop/names.h"
#include "dcutop/xalloc.h"

/* The sqlite3 shell's needCsvQuote: blanks and controls, '"', '\'', ',', and bytes >= 0x7f. */
static int csv_needs_quote(const char* s) {
    if (!*s) {
        return 1;
    }
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        if (*p <= ' ' || *p == '"' || *p == '\'' || *p == ',' || *p >= 0x7f) {
            return 1;
        }
    }
    return 0;
}

static void csv_field(FILE* out, const char* s, int is_text) {
    if (!is_text || !csv_needs_quote(s)) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const char* p = s; *p; p++) {
        if (*p == '"') {
            fputc('"', out);
        }
        fputc(*p, out);
    }
    fputc('"', out);
}

/* user_sql.c marks text values with d = NAN (SQLite never yields a NaN number): in a mixed
 * column, numbers stay numbers. */
static int cell_is_text(const ResultSet* rs, int r, int c) {
    return rs->cols[c].type == CT_TEXT && isnan(ResultSet_cellc(rs, r, c)->d);
}

static void write_csv(const ResultSet* rs, FILE* out) {
    for (int c = 0; c < rs->ncols; c++) {
        if (c) {
            fputc(',', out);
        }
        csv_field(out, rs->cols[c].key, 1);
    }
    fputc('\n', out);
    for (int r = 0; r < rs->nrows; r++) {
        for (int c = 0; c < rs->ncols; c++) {
            const RsCell* x = ResultSet_cellc(rs, r, c);
            if (c) {
                fputc(',', out);
            }
            if (!x->null) {
                csv_field(out, x->s ? x->s : "", cell_is_text(rs, r, c));
            }
        }
        fputc('\n', out);
    }
}

static void json_string(FILE* out, const char* s) {
    fputc('"', out);
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', out);
            fputc(*p, out);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void write_json(const ResultSet* rs, FILE* out) {
    fputc('[', out);
    for (int r = 0; r < rs->nrows; r++) {
        fputs(r ? ",\n{" : "\n{", out);
        for (int c = 0; c < rs->ncols; c++) {
            const RsCell* x = ResultSet_cellc(rs, r, c);
            if (c) {
                fputc(',', out);
            }
            json_string(out, rs->cols[c].key);
            fputc(':', out);
            if (x->null) {
                fputs("null", out);
            } else if (cell_is_text(rs, r, c)) {
                json_string(out, x->s ? x->s : "");
            } else if (x->s && (strchr(x->s, 'I') || strchr(x->s, 'N'))) {
                fputs("null", out); /* Inf, -Inf, NaN have no JSON form */
            } else {
                fputs(x->s ? x->s : "null", out);
            }
        }
        fputc('}', out);
    }
    fputs(rs->nrows ? "\n]\n" : "]\n", out);
}

/* Text: what a person reads; names escaped as on the screens. */
static void write_text(const ResultSet* rs, FILE* out) {
    int n = rs->ncols;
    int* w = xcalloc((size_t)(n ? n : 1), sizeof(int));
    char** cells = xcalloc((size_t)rs->nrows * (size_t)n + 1, sizeof(char*));
    for (int c = 0; c < n; c++) {
        w[c] = Format_width(rs->cols[c].key);
    }
    for (int r = 0; r < rs->nrows; r++) {
        for (int c = 0; c < n; c++) {
            const RsCell* x = ResultSet_cellc(rs, r, c);
            const char* s = x->null || !x->s ? "" : x->s;
            char* shown = Names_sanitize(s, strlen(s));
            int cw = Format_width(shown);
            w[c] = cw > w[c] ? cw : w[c];
            cells[(size_t)r * (size_t)n + (size_t)c] = shown;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < n; c++) {
            const char* t = rs->cols[c].key;
            int pad = w[c] - Format_width(t);
            fputs(c ? "  " : "", out);
            if (pass == 0) {
                fprintf(out, "%s%*s", t, c + 1 < n ? pad : 0, "");
            } else {
                for (int i = 0; i < w[c]; i++) {
                    fputc('-', out);
                }
            }
        }
        fputc('\n', out);
    }
    for (int r = 0; r < rs->nrows; r++) {
        for (int c = 0; c < n; c++) {
            const char* s = cells[(size_t)r * (size_t)n + (size_t)c];
            int pad = w[c] - Format_width(s);
            int right = rs->cols[c].type != CT_TEXT;
            fputs(c ? "  " : "", out);
            if (right) {
                fprintf(out, "%*s%s", pad, "", s);
            } else {
                fprintf(out, "%s%*s", s, c + 1 < n ? pad : 0, "");
            }
            free(cells[(size_t)r * (size_t)n + (size_t)c]);
        }
        fputc('\n', out);
    }
    fprintf(out, "(%d row%s)\n", rs->nrows, rs->nrows == 1 ? "" : "s");
    free(cells);
    free(w);
}

DcuStatus SqlOutput_write(const ResultSet* rs, OutFormat fmt, FILE* out, DcuError* err) {
    if (fmt == FMT_CSV) {
        write_csv(rs, out);
    } else if (fmt == FMT_JSON) {
        write_json(rs, out);
    } else {
        write_text(rs, out);
    }
    if (fflush(out) != 0 || ferror(out)) {
        return Error_set(err, DCU_ERR_IO, "write error: %s", strerror(errno));
    }
    return DCU_OK;
}
