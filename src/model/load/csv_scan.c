/* csv_scan.c - see csv_scan.h. The states and their transitions are libcsv 3's
 * (libcsv.c, csv_parse), with is_space always false: no trimming, so `spaces` stays 0. */
#include "csv_scan.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

enum { ROW_NOT_BEGUN, FIELD_NOT_BEGUN, FIELD_BEGUN, FIELD_MIGHT_HAVE_ENDED };

void CsvScan_init(CsvScan* this) {
    memset(this, 0, sizeof(*this));
}

void CsvScan_free(CsvScan* this) {
    free(this->buf);
    memset(this, 0, sizeof(*this));
}

int CsvScan_atRowStart(const CsvScan* this) {
    return this->state == ROW_NOT_BEGUN;
}

static void append(CsvScan* this, const char* s, size_t n) {
    if (this->len + n + 1 > this->cap) {
        xgrow((void**)&this->buf, &this->cap, this->len + n + 1);
    }
    memcpy(this->buf + this->len, s, n);
    this->len += n;
}

/* libcsv's SUBMIT_FIELD: the field, then a fresh one */
static void submit_field(CsvScan* this, CsvScanField on_field, void* ctx) {
    if (!this->buf) {
        xgrow((void**)&this->buf, &this->cap, 64);
    }
    on_field(this->buf, this->len, ctx);
    this->len = 0;
    this->quoted = 0;
    this->state = FIELD_NOT_BEGUN;
}

/* the bytes that end an unquoted field's run of ordinary bytes */
static const unsigned char stops[256] = {[','] = 1, ['\r'] = 1, ['\n'] = 1};

static size_t count_nl(const char* s, size_t n) {
    size_t k = 0;
    const char* e = s + n;
    while ((s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
        k++;
        s++;
    }
    return k;
}

/* A whole field found inside s, handed over where it lies (no copy: the field buffer is
 * for fields that span blocks or hold a doubled quote). */
static void submit_direct(CsvScan* this, char* s, size_t len, CsvScanField on_field,
                          void* ctx) {
    on_field(s, len, ctx);
    this->quoted = 0;
    this->state = FIELD_NOT_BEGUN;
}

/* After a field that c (',', '\r' or '\n', at i - 1) ended: the row's end when c ends one.
 * 1 when the parse stops there. */
static int after_field(CsvScan* this, unsigned char c, size_t i, size_t stop_at, long* line,
                       CsvScanRow on_row, void* ctx) {
    if (c == ',') {
        return 0;
    }
    on_row(c, ctx);
    this->state = ROW_NOT_BEGUN;
    if (c != '\n') {
        return 0;
    }
    (*line)++;
    return stop_at && i >= stop_at;
}

/* A quoted field that closes inside s and is followed by its terminator there, with no
 * doubled quote: handed over in place. Returns the bytes taken from i (quote, field,
 * quote, terminator), 0 when the field needs the buffer. *stop: the parse stops after. */
static size_t quoted_direct(CsvScan* this, char* s, size_t n, size_t i, size_t stop_at,
                            long* line, CsvScanField on_field, CsvScanRow on_row, void* ctx,
                            int* stop) {
    const char* q = memchr(s + i + 1, '"', n - i - 1);
    if (!q || (size_t)(q - s) + 1 >= n) {
        return 0;
    }
    unsigned char c = (unsigned char)q[1];
    if (c != ',' && c != '\r' && c != '\n') {
        return 0;
    }
    size_t len = (size_t)(q - (s + i + 1));
    *line += (long)count_nl(s + i + 1, len);
    submit_direct(this, s + i + 1, len, on_field, ctx);
    size_t end = (size_t)(q - s) + 2;
    *stop = after_field(this, c, end, stop_at, line, on_row, ctx);
    return end - i;
}

size_t CsvScan_parse(CsvScan* this, char* s, size_t n, size_t stop_at, long* line,
                     CsvScanField on_field, CsvScanRow on_row, void* ctx) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        switch (this->state) {
        case ROW_NOT_BEGUN:
        case FIELD_NOT_BEGUN:
            if (c == ',') {
                submit_field(this, on_field, ctx);
                i++;
            } else if (c == '\r' || c == '\n') {
                if (this->state == FIELD_NOT_BEGUN) {
                    submit_field(this, on_field, ctx);
                    on_row(c, ctx);
                }
                this->state = ROW_NOT_BEGUN; /* a blank line is no row */
                i++;
                if (c == '\n') {
                    (*line)++;
                    if (stop_at && i >= stop_at) {
                        return i;
                    }
                }
            } else {
                int stop = 0;
                size_t took = c == '"' ? quoted_direct(this, s, n, i, stop_at, line, on_field,
                                                       on_row, ctx, &stop)
                                       : 0;
                if (took) {
                    i += took;
                    if (stop) {
                        return i;
                    }
                    break;
                }
                this->quoted = c == '"';
                this->state = FIELD_BEGUN;
                i += this->quoted; /* an unquoted field's first byte is read below */
            }
            break;
        case FIELD_BEGUN:
            if (this->quoted) {
                /* everything up to the next quote is the field's, newlines included; the
                 * quote too, taken back if the field ends there (libcsv keeps it) */
                const char* q = memchr(s + i, '"', n - i);
                size_t run = q ? (size_t)(q - (s + i)) + 1 : n - i;
                append(this, s + i, run);
                *line += (long)count_nl(s + i, run);
                i += run;
                if (q) {
                    this->state = FIELD_MIGHT_HAVE_ENDED;
                }
            } else {
                size_t j = i;
                while (j < n && !stops[(unsigned char)s[j]]) {
                    j++;
                }
                if (j < n && this->len == 0) {
                    submit_direct(this, s + i, j - i, on_field, ctx); /* all of it is here */
                } else {
                    append(this, s + i, j - i);
                    if (j < n) {
                        submit_field(this, on_field, ctx);
                    }
                }
                i = j;
                if (i < n) {
                    c = (unsigned char)s[i++];
                    if (after_field(this, c, i, stop_at, line, on_row, ctx)) {
                        return i;
                    }
                }
            }
            break;
        default: /* FIELD_MIGHT_HAVE_ENDED: after a quote in a quoted field */
            i++;
            if (c == ',' || c == '\r' || c == '\n') {
                this->len--; /* the closing quote */
                submit_field(this, on_field, ctx);
                if (c != ',') {
                    on_row(c, ctx);
                    this->state = ROW_NOT_BEGUN;
                    if (c == '\n') {
                        (*line)++;
                        if (stop_at && i >= stop_at) {
                            return i;
                        }
                    }
                }
            } else if (c == '"') {
                this->state = FIELD_BEGUN; /* "" is one quote: the one kept */
            } else {
                append(this, s + i - 1, 1); /* text after a closing quote joins the field */
                this->state = FIELD_BEGUN;
            }
            break;
        }
    }
    return i;
}

void CsvScan_fini(CsvScan* this, CsvScanField on_field, CsvScanRow on_row, void* ctx) {
    if (this->state == ROW_NOT_BEGUN) {
        return;
    }
    if (this->state == FIELD_MIGHT_HAVE_ENDED) {
        this->len--;
    }
    submit_field(this, on_field, ctx);
    on_row(-1, ctx);
    this->state = ROW_NOT_BEGUN;
}
