/* export.c - CSV and JSON sinks for a ResultSet. */
#include "dcutop/export.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/out_file.h"

const char* Export_cellText(const ResultSet* rs, int row, int col, char* buf, size_t cap) {
    const RsCell* c = ResultSet_cellc(rs, row, col);
    if (c->null) {
        return "";
    }
    switch (rs->cols[col].type) {
    case CT_TEXT:
        return c->s ? c->s : "";
    case CT_NS:
        if (c->d != (double)c->i && llround(c->d) == c->i) { /* an exact average */
            snprintf(buf, cap, "%.3f", c->d);
            return buf;
        }
        snprintf(buf, cap, "%" PRId64, c->i);
        return buf;
    case CT_INT:
    case CT_BYTES:
        snprintf(buf, cap, "%" PRId64, c->i);
        return buf;
    case CT_RATIO:
        if (isinf(c->d)) {
            return "inf";
        }
        snprintf(buf, cap, "%.6f", c->d);
        return buf;
    case CT_VALUE: /* the shortest text that reads back as the same double */
        for (int digits = 6; digits <= 17; digits++) {
            snprintf(buf, cap, "%.*g", digits, c->d);
            if (strtod(buf, NULL) == c->d) {
                break;
            }
        }
        return buf;
    default:
        snprintf(buf, cap, "%.6f", c->d);
        return buf;
    }
}

DcuStatus Export_csv(const ResultSet* rs, FILE* out, DcuError* err) {
    for (int c = 0; c < rs->ncols; c++) {
        if (c) {
            fputc(',', out);
        }
        fputs(rs->cols[c].key, out);
    }
    fputs("\r\n", out);
    char buf[64];
    for (int r = 0; r < rs->nrows; r++) {
        for (int c = 0; c < rs->ncols; c++) {
            if (c) {
                fputc(',', out);
            }
            const char* t = Export_cellText(rs, r, c, buf, sizeof(buf));
            if (rs->cols[c].type == CT_TEXT && !ResultSet_cellc(rs, r, c)->null) {
                csv_fwrite(out, t, strlen(t)); /* always quoted, quotes doubled */
            } else {
                fputs(t, out);
            }
        }
        fputs("\r\n", out);
    }
    if (ferror(out)) {
        return Error_set(err, DCU_ERR_IO, "write error: %s", OutFile_strerror(errno));
    }
    return DCU_OK;
}

void Export_jsonString(FILE* out, const char* s) {
    fputc('"', out);
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                fprintf(out, "\\u%04x", *p);
            } else {
                fputc(*p, out);
            }
        }
    }
    fputc('"', out);
}

DcuStatus Export_json(const ResultSet* rs, FILE* out, DcuError* err) {
    fputc('[', out);
    char buf[64];
    for (int r = 0; r < rs->nrows; r++) {
        fputs(r ? ",\n {" : "\n {", out);
        for (int c = 0; c < rs->ncols; c++) {
            const RsCell* cell = ResultSet_cellc(rs, r, c);
            if (c) {
                fputs(", ", out);
            }
            Export_jsonString(out, rs->cols[c].key);
            fputs(": ", out);
            int real = rs->cols[c].type != CT_TEXT && rs->cols[c].type != CT_INT &&
                       rs->cols[c].type != CT_NS && rs->cols[c].type != CT_BYTES;
            if (!cell->null && real && isinf(cell->d)) {
                /* JSON has no infinity; null would read as "unknown" (README) */
                fputs(cell->d > 0 ? "\"inf\"" : "\"-inf\"", out);
            } else if (cell->null || (real && !isfinite(cell->d))) {
                fputs("null", out);
            } else if (rs->cols[c].type == CT_TEXT) {
                Export_jsonString(out, cell->s ? cell->s : "");
            } else {
                fputs(Export_cellText(rs, r, c, buf, sizeof(buf)), out);
            }
        }
        fputc('}', out);
    }
    fputs(rs->nrows ? "\n]" : "]", out);
    if (ferror(out)) {
        return Error_set(err, DCU_ERR_IO, "write error: %s", OutFile_strerror(errno));
    }
    return DCU_OK;
}

DcuStatus Export_csvFile(const ResultSet* rs, const char* path, int flags, DcuError* err) {
    OutFile of;
    DcuStatus s = OutFile_open(&of, path, flags, err);
    return s == DCU_OK ? OutFile_finish(&of, Export_csv(rs, of.fp, err), err) : s;
}
