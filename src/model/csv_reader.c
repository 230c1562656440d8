/* csv_reader.c - libcsv driven block by block, fed line by line to know line numbers. */
#include "dcutop/csv_reader.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

typedef struct Reader_ {
    CsvRowFn on_row;
    void* ctx;
    char* buf; /* field bytes of the current row, each NUL-terminated */
    size_t buf_len, buf_cap;
    size_t* off; /* offset of each field in buf */
    size_t* len;
    int n, too_wide;
    long line;      /* current line being fed (1-based) */
    long row_line;  /* line where the current row started, 0 = no field yet */
    int stop;
    CsvField* fields;
} Reader;

static int no_space(unsigned char c) {
    (void)c;
    return 0;
}

static void on_field(void* s, size_t len, void* data) {
    Reader* r = data;
    if (r->row_line == 0) {
        /* libcsv reports a field when it ends: a quoted first field spanning lines
         * started one line earlier per newline it holds */
        long nl = 0;
        for (size_t i = 0; i < len; i++) {
            nl += ((const char*)s)[i] == '\n';
        }
        r->row_line = r->line - nl;
    }
    if (r->n >= CSV_MAX_FIELDS) {
        r->too_wide = 1;
        return;
    }
    xgrow((void**)&r->buf, &r->buf_cap, r->buf_len + len + 1);
    if (len) {
        memcpy(r->buf + r->buf_len, s, len);
    }
    r->buf[r->buf_len + len] = '\0';
    r->off[r->n] = r->buf_len;
    r->len[r->n] = len;
    r->n++;
    r->buf_len += len + 1;
}

static void on_row_end(int c, void* data) {
    (void)c;
    Reader* r = data;
    if (r->row_line == 0) {
        r->row_line = r->line;
    }
    for (int i = 0; i < r->n; i++) {
        r->fields[i].s = r->buf + r->off[i];
        r->fields[i].len = r->len[i];
    }
    CsvRow row = {r->fields, r->n, r->too_wide, r->row_line};
    if (!r->stop && r->on_row(&row, r->ctx)) {
        r->stop = 1;
    }
    r->n = 0;
    r->too_wide = 0;
    r->buf_len = 0;
    r->row_line = 0;
}

DcuStatus CsvReader_readFile(const char* path, CsvRowFn on_row, CsvProgressFn progress,
                             void* ctx, DcuError* err) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return Error_set(err, DCU_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct csv_parser p;
    if (csv_init(&p, 0) != 0) {
        fclose(f);
        return Error_set(err, DCU_ERR_NOMEM, "%s: csv_init failed", path);
    }
    csv_set_space_func(&p, no_space);
    Reader r = {0};
    r.on_row = on_row;
    r.ctx = ctx;
    r.line = 1;
    r.off = xmalloc(sizeof(size_t) * CSV_MAX_FIELDS);
    r.len = xmalloc(sizeof(size_t) * CSV_MAX_FIELDS);
    r.fields = xmalloc(sizeof(CsvField) * CSV_MAX_FIELDS);
    enum { BLOCK = 1 << 16 };
    unsigned char* block = xmalloc(BLOCK);
    uint64_t done = 0;
    DcuStatus s = DCU_OK;
    int first = 1;
    size_t got;
    while (!r.stop && (got = fread(block, 1, BLOCK, f)) > 0) {
        size_t i = 0;
        if (first) {
            first = 0;
            if (got >= 3 && block[0] == 0xEF && block[1] == 0xBB && block[2] == 0xBF) {
                i = 3;
            }
        }
        while (i < got && !r.stop) {
            unsigned char* nl = memchr(block + i, '\n', got - i);
            size_t seg = nl ? (size_t)(nl - (block + i)) + 1 : got - i;
            if (csv_parse(&p, block + i, seg, on_field, on_row_end, &r) != seg) {
                s = Error_set(err, DCU_ERR_NOMEM, "%s:%ld: %s", path, r.line,
                              csv_strerror(csv_error(&p)));
                r.stop = 1;
                break;
            }
            i += seg;
            if (nl) {
                r.line++;
            }
        }
        done += got;
        if (progress) {
            progress(done, ctx);
        }
    }
    if (s == DCU_OK && ferror(f)) {
        s = Error_set(err, DCU_ERR_IO, "%s:%ld: read error: %s", path, r.line, strerror(errno));
    }
    if (s == DCU_OK && !r.stop) {
        csv_fini(&p, on_field, on_row_end, &r);
    }
    csv_free(&p);
    fclose(f);
    free(block);
    free(r.buf);
    free(r.off);
    free(r.len);
    free(r.fields);
    return s;
}

size_t CsvReader_peek(const char* path, unsigned char* buf, size_t cap) {
    FILE* f = fopen(path, "rb");
    if (!f || cap == 0) {
        if (f) {
            fclose(f);
        }
        return 0;
    }
    size_t got = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[got] = '\0';
    return got;
}
