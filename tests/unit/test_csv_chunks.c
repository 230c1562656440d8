/* test_csv_chunks.c - the parallel CSV reader (issue 23): a file cut into chunks, each parsed
 * by its own libcsv parser on a worker thread, gives the same rows, fields and line numbers
 * as one parser, whatever the cuts: quoted fields holding newlines (a cut inside one is
 * mended), CRLF, a UTF-8 BOM, blank lines, quotes inside unquoted fields (libcsv keeps them
 * as text, so counting quotes would misplace a cut), a header-only file, an empty file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/csv_reader.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

typedef struct Dump_ {
    char* s;
    size_t len, cap;
    int rows;
} Dump;

static void put(Dump* d, const char* s, size_t n) {
    xgrow((void**)&d->s, &d->cap, d->len + n + 1);
    memcpy(d->s + d->len, s, n);
    d->len += n;
    d->s[d->len] = '\0';
}

/* every row as "line n wide|field\x1f...\x1e" */
static int dump_row(const CsvRow* row, void* ctx) {
    Dump* d = ctx;
    char head[64];
    int h = snprintf(head, sizeof(head), "%ld %d %d|", row->line, row->n, row->too_wide);
    put(d, head, (size_t)h);
    for (int i = 0; i < row->n; i++) {
        assert_int_equal(row->f[i].s[row->f[i].len], '\0'); /* as CsvField promises */
        put(d, row->f[i].s, row->f[i].len);
        put(d, "\x1f", 1);
    }
    put(d, "\x1e\n", 2);
    d->rows++;
    return 0;
}

static char* one_parser(const char* path, int* rows) {
    Dump d = {0};
    DcuError err;
    CsvReader_setThreads(1);
    assert_int_equal(CsvReader_readFile(path, dump_row, NULL, &d, &err), DCU_OK);
    CsvReader_setThreads(0);
    *rows = d.rows;
    put(&d, "", 0);
    return d.s;
}

/* Every chunk size from 1 byte to the whole file (and a few more), on 1 (the calling thread
 * parses the chunks), 2, 3 and 5 threads: the same dump as one parser. Returns the rows one
 * parser saw. */
static int same_rows_every_cut(const char* name, const char* data, size_t len) {
    char* dir = TestUtil_tempDir();
    char* path = TestUtil_writeFile(dir, name, data, len);
    int rows;
    char* want = one_parser(path, &rows);
    static const int threads[] = {1, 2, 3, 5};
    for (size_t step = 1; step <= len + 2; step += (step < 80 ? 1 : step / 3)) {
        for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
            Dump d = {0};
            DcuError err;
            assert_int_equal(
                CsvReader_readFileChunked(path, step, threads[t], dump_row, NULL, &d, &err),
                DCU_OK);
            put(&d, "", 0);
            if (strcmp(want, d.s) != 0) {
                fprintf(stderr, "%s: chunks of %zu bytes, %d threads:\n--- one parser\n%s"
                        "--- chunks\n%s", name, step, threads[t], want, d.s);
            }
            assert_string_equal(want, d.s);
            free(d.s);
        }
    }
    free(want);
    free(path);
    TestUtil_rmTree(dir);
    free(dir);
    return rows;
}

static void quoted_newlines(void** state) {
    (void)state;
    const char* s = "Index,KernelName,DurationNs\n"
                    "0,\"a\nb\",10\n"
                    "1,\"two\n\nnewlines, and a comma\",20\n"
                    "2,\"\"\"quoted\"\"\nname\",30\n"
                    "3,plain,40\n"
                    "4,\"\n\n\n\",50\n";
    assert_int_equal(same_rows_every_cut("q.csv", s, strlen(s)), 6);
}

static void crlf_and_blank_lines(void** state) {
    (void)state;
    const char* s = "h1,h2\r\n1,2\r\n\"a\r\nb\",3\r\n\r\n\r\n4,5\r\n6,\"x\r\n\"\r\n7,8";
    assert_int_equal(same_rows_every_cut("crlf.csv", s, strlen(s)), 6);
}

static void bom(void** state) {
    (void)state;
    const char* s = "\xEF\xBB\xBF\"Index\",\"KernelName\"\n0,\"k\nk\"\n1,\"q\"\"uote\"\n";
    assert_int_equal(same_rows_every_cut("bom.csv", s, strlen(s)), 3);
}

static void header_only_and_empty(void** state) {
    (void)state;
    const char* h = "\"Index\",\"KernelName\",\"DurationNs\"\n";
    assert_int_equal(same_rows_every_cut("header.csv", h, strlen(h)), 1);
    const char* h2 = "\xEF\xBB\xBFIndex,KernelName";
    assert_int_equal(same_rows_every_cut("header2.csv", h2, strlen(h2)), 1);
    assert_int_equal(same_rows_every_cut("empty.csv", "", 0), 0);
}

/* A quote inside an unquoted field is text to libcsv: an odd number of quotes before a cut
 * says nothing about the parser's state there. */
static void quotes_inside_unquoted_fields(void** state) {
    (void)state;
    const char* s = "a\"b,c\n\"d\ne\",f\"g\n h\"i,\"j\nk\"\nl,m\"\n\"n\",o\n";
    same_rows_every_cut("mid.csv", s, strlen(s));
}

/* A larger file, rows of every kind mixed, cut at many sizes. */
static void mixed_rows(void** state) {
    (void)state;
    Dump d = {0};
    put(&d, "Index,KernelName,DurationNs\r\n", 29);
    unsigned x = 12345;
    for (int i = 0; i < 400; i++) {
        x = x * 1103515245u + 12345u;
        char row[128];
        int n;
        switch ((x >> 16) % 5) {
        case 0: n = snprintf(row, sizeof(row), "%d,\"k%d\n(a, b)\",%u\n", i, i, x % 1000); break;
        case 1: n = snprintf(row, sizeof(row), "%d,plain_%d,%u\r\n", i, i, x % 1000); break;
        case 2: n = snprintf(row, sizeof(row), "%d,\"q\"\"%d\"\"\r\n\",%u\n\n", i, i, x % 9); break;
        case 3: n = snprintf(row, sizeof(row), "%d,a\"b%d,%u\n", i, i, x % 7); break;
        default: n = snprintf(row, sizeof(row), "%d,\"\",\n", i); break;
        }
        put(&d, row, (size_t)n);
    }
    assert_int_equal(same_rows_every_cut("mixed.csv", d.s, d.len), 401);
    free(d.s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quoted_newlines),
        cmocka_unit_test(crlf_and_blank_lines),
        cmocka_unit_test(bom),
        cmocka_unit_test(header_only_and_empty),
        cmocka_unit_test(quotes_inside_unquoted_fields),
        cmocka_unit_test(mixed_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
