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

static void csv_header(const ResultSet* rs, FILE* out) {
    for (int c = 0; c < rs->ncols; c++) {
        if (c) {
            fputc(',', out);
        }
        csv_field(out, rs->cols[c].key, 1);
    }
    fputc('\n', out);
}

static void csv_rows(const ResultSet* rs, FILE* out) {
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

static void json_rows(const ResultSet* rs, FILE* out, int64_t before) {
    for (int r = 0; r < rs->nrows; r++) {
        fputs(before + r ? ",\n{" : "\n{", out);
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
}

struct SqlOutput_ {
    OutFormat fmt;
    FILE* out;
    int64_t rows;   /* written so far */
    int ncols;
    int* w;         /* text: column widths, from the first block */
    int* right;     /* text: numbers right-aligned, from the first block */
};

SqlOutput* SqlOutput_new(OutFormat fmt, FILE* out) {
    SqlOutput* this = xcalloc(1, sizeof(*this));
    this->fmt = fmt;
    this->out = out;
    return this;
}

void SqlOutput_delete(SqlOutput* this) {
    if (this) {
        free(this->w);
        free(this->right);
        free(this);
    }
}

/* Text: the first block sets the widths and the header; later rows use the same widths
 * (a wider value pushes its row's later columns right, as the sqlite3 shell's columns do). */
static void text_rows(SqlOutput* this, const ResultSet* rs) {
    FILE* out = this->out;
    int n = rs->ncols;
    char** cells = xcalloc((size_t)rs->nrows * (size_t)n + 1, sizeof(char*));
    for (int r = 0; r < rs->nrows; r++) {
        for (int c = 0; c < n; c++) {
            const RsCell* x = ResultSet_cellc(rs, r, c);
            const char* s = x->null || !x->s ? "" : x->s;
            cells[(size_t)r * (size_t)n + (size_t)c] = Names_sanitize(s, strlen(s));
        }
    }
    if (!this->w) {
        this->ncols = n;
        this->w = xcalloc((size_t)(n ? n : 1), sizeof(int));
        this->right = xcalloc((size_t)(n ? n : 1), sizeof(int));
        for (int c = 0; c < n; c++) {
            this->w[c] = Format_width(rs->cols[c].key);
            this->right[c] = rs->cols[c].type != CT_TEXT;
            for (int r = 0; r < rs->nrows; r++) {
                int cw = Format_width(cells[(size_t)r * (size_t)n + (size_t)c]);
                this->w[c] = cw > this->w[c] ? cw : this->w[c];
            }
        }
        for (int pass = 0; pass < 2; pass++) {
            for (int c = 0; c < n; c++) {
                const char* t = rs->cols[c].key;
                int pad = this->w[c] - Format_width(t);
                fputs(c ? "  " : "", out);
                if (pass == 0) {
                    fprintf(out, "%s%*s", t, c + 1 < n ? pad : 0, "");
                } else {
                    for (int i = 0; i < this->w[c]; i++) {
                        fputc('-', out);
                    }
                }
            }
            fputc('\n', out);
        }
    }
    for (int r = 0; r < rs->nrows; r++) {
        for (int c = 0; c < n; c++) {
            const char* s = cells[(size_t)r * (size_t)n + (size_t)c];
            int pad = this->w[c] - Format_width(s);
            pad = pad > 0 ? pad : 0;
            fputs(c ? "  " : "", out);
            if (this->right[c]) {
                fprintf(out, "%*s%s", pad, "", s);
            } else {
                fprintf(out, "%s%*s", s, c + 1 < n ? pad : 0, "");
            }
            free(cells[(size_t)r * (size_t)n + (size_t)c]);
        }
        fputc('\n', out);
    }
    free(cells);
}

int SqlOutput_rows(void* ctx, const ResultSet* rs, int last) {
    SqlOutput* this = ctx;
    FILE* out = this->out;
    if (this->fmt == FMT_CSV) {
        if (this->rows == 0 && !this->w) {
            csv_header(rs, out);
            this->w = xcalloc(1, sizeof(int)); /* marks the header written */
        }
        csv_rows(rs, out);
    } else if (this->fmt == FMT_JSON) {
        if (this->rows == 0 && !this->w) {
            fputc('[', out);
            this->w = xcalloc(1, sizeof(int));
        }
        json_rows(rs, out, this->rows);
    } else {
        text_rows(this, rs);
    }
    this->rows += rs->nrows;
    if (last) {
        if (this->fmt == FMT_JSON) {
            fputs(this->rows ? "\n]\n" : "]\n", out);
        } else if (this->fmt == FMT_TEXT) {
            fprintf(out, "(%lld row%s)\n", (long long)this->rows, this->rows == 1 ? "" : "s");
        }
        fflush(out);
    }
    return ferror(out) != 0;
}

DcuStatus SqlOutput_write(const ResultSet* rs, OutFormat fmt, FILE* out, DcuError* err) {
    SqlOutput* o = SqlOutput_new(fmt, out);
    SqlOutput_rows(o, rs, 1);
    SqlOutput_delete(o);
    if (fflush(out) != 0 || ferror(out)) {
        return Error_set(err, DCU_ERR_IO, "write error: %s", strerror(errno));
    }
    return DCU_OK;
}
