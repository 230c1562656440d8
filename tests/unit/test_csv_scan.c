/* test_csv_scan.c - csv_scan.c, the CSV state machine csv_reader.c runs instead of libcsv's
 * csv_parse (issue 23: libcsv was a third of a 1M-dispatch load), against libcsv itself as
 * csv_reader.c drove it (options 0, no space characters, fed a line at a time, csv_fini at
 * the end). Both must report the same fields (bytes), row ends (the byte that ended each),
 * and line at each callback, for random input over the bytes that matter (quotes, commas,
 * CR, LF, NUL, spaces) cut into blocks at random places, for real rocprof rows, and for the
 * chunk end: the first LF at or after a position that leaves no row begun. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <csv.h>

#include "dcutop/xalloc.h"
#include "load/csv_scan.h"

/* The callbacks, as a transcript: "F<line>:<len>:<bytes>" per field, "R<line>:<c>" per row. */
typedef struct {
    char* s;
    size_t len, cap;
    long* line;
} Log;

static void log_put(Log* g, const void* s, size_t n) {
    xgrow((void**)&g->s, &g->cap, g->len + n + 1);
    memcpy(g->s + g->len, s, n);
    g->len += n;
    g->s[g->len] = '\0';
}

static void on_field(void* s, size_t len, void* ctx) {
    Log* g = ctx;
    char head[64];
    int k = snprintf(head, sizeof(head), "F%ld:%zu:", *g->line, len);
    log_put(g, head, (size_t)k);
    log_put(g, s, len);
}

static void on_row(int c, void* ctx) {
    Log* g = ctx;
    char head[64];
    int k = snprintf(head, sizeof(head), "R%ld:%d;", *g->line, c);
    log_put(g, head, (size_t)k);
}

static int no_space(unsigned char c) {
    (void)c;
    return 0;
}

/* libcsv as csv_reader.c drove it: a line at a time, the line count after each LF; with
 * until > 0, stops after the first LF at offset >= until with no row begun. *used: bytes. */
static void by_libcsv(const char* s, size_t n, size_t until, Log* g, size_t* used) {
    long line = 1;
    g->line = &line;
    struct csv_parser cp;
    assert_int_equal(csv_init(&cp, 0), 0);
    csv_set_space_func(&cp, no_space);
    size_t i = 0;
    int stopped = 0;
    while (i < n && !stopped) {
        const char* nl = memchr(s + i, '\n', n - i);
        size_t seg = nl ? (size_t)(nl - (s + i)) + 1 : n - i;
        assert_int_equal(csv_parse(&cp, s + i, seg, on_field, on_row, g), seg);
        i += seg;
        if (nl) {
            line++;
            stopped = until && i >= until && cp.pstate == 0;
        }
    }
    if (!stopped) {
        csv_fini(&cp, on_field, on_row, g);
    }
    csv_free(&cp);
    *used = i;
}

/* csv_scan.c over the same bytes cut into blocks at the given cut points. */
static void by_scan(const char* s, size_t n, size_t until, const size_t* cuts, int ncuts, Log* g,
                    size_t* used) {
    long line = 1;
    g->line = &line;
    CsvScan cs;
    CsvScan_init(&cs);
    char* buf = xmalloc(n ? n : 1); /* the parser hands fields over in place: not const */
    memcpy(buf, s, n);
    s = buf;
    size_t i = 0;
    int stopped = 0;
    for (int k = 0; k <= ncuts && !stopped; k++) {
        size_t end = k < ncuts && cuts[k] < n ? cuts[k] : n;
        if (end < i) {
            continue;
        }
        size_t stop_at = until ? (until > i ? until - i : 1) : 0;
        size_t took = CsvScan_parse(&cs, buf + i, end - i, stop_at, &line, on_field, on_row, g);
        stopped = took < end - i || (until && took > 0 && s[i + took - 1] == '\n' &&
                                     i + took >= until && CsvScan_atRowStart(&cs));
        i += took;
    }
    if (!stopped) {
        CsvScan_fini(&cs, on_field, on_row, g);
    }
    CsvScan_free(&cs);
    free(buf);
    *used = i;
}

static int cmp_size(const void* a, const void* b) {
    size_t x = *(const size_t*)a, y = *(const size_t*)b;
    return (x > y) - (x < y);
}

/* Both readings of s equal, with random cuts, and with each cut alone when few bytes. */
static void same(const char* s, size_t n, size_t until, unsigned* seed) {
    Log a = {0}, b = {0};
    size_t ua, ub;
    by_libcsv(s, n, until, &a, &ua);
    size_t cuts[8];
    int ncuts = (int)(rand_r(seed) % 8);
    for (int k = 0; k < ncuts; k++) {
        cuts[k] = n ? (size_t)rand_r(seed) % (n + 1) : 0;
    }
    qsort(cuts, (size_t)ncuts, sizeof(size_t), cmp_size);
    by_scan(s, n, until, cuts, ncuts, &b, &ub);
    if (a.len != b.len || (a.len && memcmp(a.s, b.s, a.len) != 0) || ua != ub) {
        fprintf(stderr, "input (%zu bytes, until %zu): ", n, until);
        for (size_t i = 0; i < n; i++) {
            fprintf(stderr, "%02x", (unsigned char)s[i]);
        }
        fprintf(stderr, "\nlibcsv (%zu): %s\nscan   (%zu): %s\n", ua, a.s ? a.s : "", ub,
                b.s ? b.s : "");
        fail_msg("csv_scan differs from libcsv");
    }
    free(a.s);
    free(b.s);
}

static void random_input_is_read_as_libcsv_reads_it(void** state) {
    (void)state;
    static const char alphabet[] = {'"', '"', ',', ',', '\r', '\n', '\n', 'a', 'b', ' ', '\0', 'x'};
    unsigned seed = 23;
    char s[64];
    for (int t = 0; t < 200000; t++) {
        size_t n = (size_t)rand_r(&seed) % sizeof(s);
        for (size_t i = 0; i < n; i++) {
            s[i] = alphabet[rand_r(&seed) % sizeof(alphabet)];
        }
        size_t until = t % 3 == 0 ? 0 : (size_t)rand_r(&seed) % (n + 2);
        same(s, n, until, &seed);
    }
}

static void real_rows_are_read_as_libcsv_reads_them(void** state) {
    (void)state;
    static const char rows[] =
        "\xEF\xBB\xBF\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"DurationNs\"\r\n"
        "0,\"void at::native::reduce_kernel<512, 4, at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>"
        "::operator()(at::TensorIterator&)::{lambda(float, float)#1}> > >\",2,0,1520\r\n"
        "1,\"name with \"\"quotes\"\" and\na newline\",2,0,99\n"
        "\n"
        "2,Cijk_Ailk_Bljk_HHS_BH_MT256x256x64, unquoted, spaces ,7\n"
        "3,\"closed\"then text,\"\",,\r"
        "4,\"unterminated, at the end";
    unsigned seed = 7;
    size_t n = sizeof(rows) - 1;
    for (size_t until = 0; until <= n + 1; until++) {
        for (int r = 0; r < 20; r++) {
            same(rows, n, until, &seed);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_input_is_read_as_libcsv_reads_it),
        cmocka_unit_test(real_rows_are_read_as_libcsv_reads_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
