/* test_json_chunks.c - the parallel read of a Kineto JSON trace (issue 23): the traceEvents
 * array cut at event boundaries, each chunk parsed by its own yajl handle on a worker thread,
 * the events handled in file order. Every table the loader writes, and every message, must
 * equal what one serial parser gives, at any chunk size and thread count: strings holding
 * {}[],: and escaped quotes, \u escapes and raw UTF-8, nested args objects and arrays, an
 * empty traceEvents, and bad input (a trailing comma, a missing comma, a truncated file, a
 * bad token or escape inside an event, nesting too deep, a token over the size cap, an event
 * whose fields pass the cap, a root array, a BOM) giving the serial parser's message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "dcutop/csv_reader.h"
#include "dcutop/xalloc.h"
#include "load/json_chunks.h"
#include "testutil.h"

static char* dir;

static int setup(void** state) {
    (void)state;
    dir = TestUtil_tempDir();
    return 0;
}

static int teardown(void** state) {
    (void)state;
    CsvReader_setThreads(0);
    JsonChunks_setTesting(0, 0);
    TestUtil_rmTree(dir);
    free(dir);
    return 0;
}

typedef struct Str_ {
    char* s;
    size_t len, cap;
} Str;

static void add(Str* b, const char* s, size_t n) {
    xgrow((void**)&b->s, &b->cap, b->len + n + 1);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void adds(Str* b, const char* s) {
    add(b, s, strlen(s));
}

static void addf(Str* b, const char* fmt, ...) {
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof(tmp));
    add(b, tmp, (size_t)n);
}

/* Every row of the tables a JSON load writes, and the load's status. */
static char* dump(TraceDb* db, DcuStatus st) {
    static const char* const tables[] = {
        "source_file", "load_message", "kernel", "dispatch", "dispatch_counter", "api_call",
        "copy", "range", "ext_link", "cpu_op", "py_frame", "agent", "frame", "kernel_stack",
        "dispatch_range", NULL};
    Str out = {0};
    addf(&out, "status %s\n", Error_statusText(st));
    sqlite3* h = TraceDb_handle(db);
    for (int t = 0; tables[t]; t++) {
        char* sql = sqlite3_mprintf("SELECT * FROM \"%w\" ORDER BY rowid", tables[t]);
        sqlite3_stmt* stmt = NULL;
        assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &stmt, NULL), SQLITE_OK);
        sqlite3_free(sql);
        addf(&out, "[%s]\n", tables[t]);
        while (sqlite3_step(stmt) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(stmt); c++) {
                const unsigned char* v = sqlite3_column_text(stmt, c);
                add(&out, v ? (const char*)v : "NULL", v ? (size_t)sqlite3_column_bytes(stmt, c) : 4);
                add(&out, "|", 1);
            }
            add(&out, "\n", 1);
        }
        sqlite3_finalize(stmt);
    }
    return out.s;
}

static char* load_dump(const char* path, int threads, size_t chunk, int64_t cap) {
    CsvReader_setThreads(threads);
    JsonChunks_setTesting(chunk, 1);
    TraceDb* db = NULL;
    DcuError err;
    assert_int_equal(TraceDb_open(&db, TRACE_DB_DEFAULT_MEMORY, &err), DCU_OK);
    LoadOptions opt = {0};
    opt.max_event_size = cap;
    Loader* l = Loader_new(db, &opt);
    DcuStatus s = Loader_addPath(l, path, &err);
    if (s == DCU_OK) {
        s = Loader_run(l, &err);
    }
    Loader_delete(l);
    char* d = dump(db, s);
    TraceDb_delete(db);
    return d;
}

/* The file loaded serially, then with 2, 3, 5 and 16 threads at several chunk sizes (1 byte:
 * one event a chunk): the same rows and messages. Returns the chunks cut. */
static long same_as_serial(const char* name, const char* json, size_t len, int64_t cap) {
    static const size_t sizes[] = {1, 40, 300, 1000, 5000, 1 << 20};
    static const int threads[] = {2, 3, 5, 16};
    char* p = TestUtil_writeFile(dir, name, json, len);
    char* serial = load_dump(p, 1, 0, cap);
    long before = JsonChunks_cutTotal();
    for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
        for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
            char* par = load_dump(p, threads[t], sizes[c], cap);
            if (strcmp(serial, par) != 0) {
                fprintf(stderr, "%s: %d threads, chunks of %zu bytes differ\n--- serial\n%s\n"
                        "--- parallel\n%s\n", name, threads[t], sizes[c], serial, par);
            }
            assert_string_equal(serial, par);
            free(par);
        }
    }
    free(serial);
    free(p);
    CsvReader_setThreads(0);
    JsonChunks_setTesting(0, 0);
    return JsonChunks_cutTotal() - before;
}

/* A Kineto trace whose strings hold every byte a careless cutter would stop at. */
static void kineto_events(Str* b, int n) {
    static const char* const names[] = {
        "void k<\\\"{[,]}\\\">(float*)",        /* escaped quotes around structure */
        "gemm {x: [1, 2]}, \\\\\\\" tail\\\\", /* escaped backslashes before a quote */
        "caf\\u00e9 \\u65e5\\u672c \\ud83d\\ude00", /* \u escapes, a surrogate pair */
        "raw UTF-8 caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac {\xe2\x80\x9c}", /* raw UTF-8 */
        "tab\\tnew\\nline\\/slash ,{\\\"",        /* ends in an escaped quote-like run */
        "plain_kernel",
    };
    for (int i = 0; i < n; i++) {
        const char* nm = names[i % 6];
        int corr = 1000 + i;
        addf(b, "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d [%s]\","
                " \"pid\": 7, \"tid\": 7, \"ts\": %d.5, \"dur\": 30,"
                " \"args\": {\"External id\": %d, \"Input Dims\": [[2, 3], [], [[1], [2, 4]]],"
                " \"Input type\": [\"float\", \"c10::Half\", \"\"],"
                " \"Concrete Inputs\": [\"\", \"[1, 2]\", \"{\\\"a\\\": 1}\"],"
                " \"Call stack\": \"model.py(%d): forward;train.py(10): <module>;\"}},\r\n",
             i, nm, 100 + 10 * i, corr, i);
        addf(b, "\t{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                "\"pid\":7,\"tid\":7,\"ts\":%d,\"dur\":5.25,"
                "\"args\":{\"External id\":%d,\"correlation\":%d}},\n",
             101 + 10 * i, corr, corr);
        addf(b, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0,"
                " \"tid\": %d, \"ts\": %d.0005, \"dur\": 3.25, \"args\": {\"device\": 0,"
                " \"stream\": %d, \"correlation\": %d, \"External id\": %d,"
                " \"grid\": [4, %d, 1], \"block\": [256, 1, 1],"
                " \"extra\": {\"a\": [{\"b\": \"}]\"}, [1, [2, {}]], true, null], \"c\": {}}}}"
                " , \n",
             nm, 7 + i % 2, 105 + 10 * i, 7 + i % 2, corr, corr, 1 + i % 3);
        if (i % 7 == 3) {
            addf(b, "  {\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %d,"
                    " \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n",
                 corr, 105 + 10 * i);
            addf(b, "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\","
                    " \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 1,"
                    " \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096}},\n",
                 106 + 10 * i);
        }
        if (i % 11 == 5) {
            addf(b, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\", \"pid\": 0,"
                    " \"tid\": 7, \"ts\": \"abc\", \"dur\": 1, \"args\": {}},\n");
            addf(b, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"neg\", \"pid\": 0,"
                    " \"tid\": 7, \"ts\": -5, \"dur\": [1], \"args\": {}},\n");
        }
    }
}

static void kineto_doc(Str* b, int n, const char* last_event, const char* tail) {
    adds(b, "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU {0} [\\\"x\\\"]\"}],\n"
            " \"traceEvents\": [\n");
    addf(b, "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"GPU 0\"}},\n"
            "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 7,"
            " \"tid\": 7, \"ts\": 99, \"dur\": 100000, \"args\": {\"External id\": 1}},\n"
            "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): <module>\","
            " \"pid\": 7, \"tid\": 7, \"ts\": 99, \"dur\": 100000,"
            " \"args\": {\"Python parent id\": null, \"Python id\": 1}},\n");
    kineto_events(b, n);
    adds(b, last_event);
    adds(b, tail);
}

static const char good_last[] =
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"last\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 99999, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}\n";
static const char good_tail[] =
    " ],\n \"distributedInfo\": {\"rank\": 3, \"world_size\": 8},\n \"traceName\": \"t\"}\n";

static void kineto_rich(void** state) {
    (void)state;
    Str b = {0};
    kineto_doc(&b, 40, good_last, good_tail);
    assert_true(same_as_serial("rich.json", b.s, b.len, 0) > 0);
    /* and the serial result is what the events say: every kernel but the 8 rejected ones */
    char* p = TestUtil_writeFile(dir, "rich2.json", b.s, b.len);
    DcuStatus s;
    CsvReader_setThreads(3);
    JsonChunks_setTesting(200, 1);
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 41);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 8);
    assert_int_equal(TestUtil_int(db, "SELECT dist_rank * 100 + dist_world FROM source_file"), 308);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel WHERE name LIKE 'raw UTF-8 caf\xc3\xa9%'"), 1);
    TraceDb_delete(db);
    free(p);
    free(b.s);
}

static void empty_and_tiny(void** state) {
    (void)state;
    static const char* const docs[] = {
        "{\"traceEvents\": []}",
        "{\"traceEvents\":[ \r\n\t], \"deviceProperties\": []}",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}]}",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}], "
        "\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"ts\": 3, \"dur\": 2}]}",
        "{\"a\": {\"traceEvents\": [1]}, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\","
        " \"name\": \"k\", \"ts\": 1, \"dur\": 2}]}",
        NULL};
    for (int i = 0; docs[i]; i++) {
        char name[32];
        snprintf(name, sizeof(name), "tiny%d.json", i);
        same_as_serial(name, docs[i], strlen(docs[i]), 0);
    }
}

/* The rich trace with one defect at a given event: the same rows before it, the same
 * message, whatever the cuts. */
static void malformed(void** state) {
    (void)state;
    static const struct {
        const char* name;
        const char* last; /* replaces the last event (its text, then the tail) */
        const char* tail;
    } bad[] = {
        {"trailing-comma", "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"l\", \"ts\": 1},\n", " ]}"},
        {"missing-comma", "  {\"ph\": \"X\", \"name\": \"a\"}\n  {\"ph\": \"X\", \"name\": \"b\"},\n",
         "  {\"ph\": \"X\"}]}"},
        {"double-comma", "  {\"ph\": \"X\", \"name\": \"a\"},,\n", "  {\"ph\": \"X\"}]}"},
        {"bad-number", "  {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1x2, \"name\": \"a\"},\n",
         "  {\"ph\": \"X\"}]}"},
        {"bad-escape", "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\\qb\", \"ts\": 1},\n",
         "  {\"ph\": \"X\"}]}"},
        {"bad-unicode", "  {\"ph\": \"X\", \"name\": \"a\\u12\\\"}\", \"ts\": 1},\n", "  {\"ph\": \"X\"}]}"},
        {"control-char", "  {\"ph\": \"X\", \"name\": \"a\x01 b\", \"ts\": 1},\n", "  {\"ph\": \"X\"}]}"},
        {"mismatched", "  {\"ph\": \"X\", \"args\": [1, 2}},\n", "  {\"ph\": \"X\"}]}"},
        {"not-object", "  [1, 2], 7, \"s\", null,\n", good_last},
        {"unclosed", "  {\"ph\": \"X\", \"name\": \"a\"", ""},
        {"no-tail", good_last, " ]"},
        {"garbage-after", good_last, " ]} x"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        Str b = {0};
        kineto_doc(&b, 12, bad[i].last, bad[i].tail);
        char name[64];
        snprintf(name, sizeof(name), "%s.json", bad[i].name);
        same_as_serial(name, b.s, b.len, 0);
        if (strcmp(bad[i].name, "missing-comma") == 0) {
            char* p = TestUtil_writeFile(dir, "mc.json", b.s, b.len);
            char* d = load_dump(p, 3, 100, 0);
            assert_non_null(strstr(d, "JSON error at byte"));
            free(d);
            free(p);
        }
        free(b.s);
    }
}

/* A file cut short anywhere: the events before the cut and the same truncation error. */
static void truncated_anywhere(void** state) {
    (void)state;
    Str b = {0};
    kineto_doc(&b, 6, good_last, good_tail);
    char* p;
    for (size_t cut = 1; cut < b.len; cut += 173) {
        char name[32];
        snprintf(name, sizeof(name), "cut%zu.json", cut);
        p = TestUtil_writeFile(dir, name, b.s, cut);
        char* serial = load_dump(p, 1, 0, 0);
        for (int t = 2; t <= 3; t++) {
            char* par = load_dump(p, t, 1, 0);
            assert_string_equal(serial, par);
            free(par);
        }
        free(serial);
        free(p);
    }
    free(b.s);
}

/* Limits: a token over the cap, an event whose fields pass it, nesting past what the cutter
 * takes (still loads) and past JSON_MAX_DEPTH (stops), a root array, a BOM. */
static void limits(void** state) {
    (void)state;
    Str big = {0}, ev = {0};
    for (int i = 0; i < 3000; i++) {
        add(&big, "x", 1);
    }
    addf(&ev, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"ts\": 1, \"dur\": 1},\n", big.s);
    Str doc = {0};
    kineto_doc(&doc, 12, ev.s, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"after\", \"ts\": 5, \"dur\": 1}]}");
    same_as_serial("token-cap.json", doc.s, doc.len, 2048);
    free(doc.s);
    doc = (Str){0};
    ev.len = 0;
    adds(&ev, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"many\", \"ts\": 1, \"dur\": 1, \"args\": {");
    for (int i = 0; i < 40; i++) {
        addf(&ev, "%s\"k%d\": \"%.60s\"", i ? ", " : "", i, big.s);
    }
    adds(&ev, "}},\n");
    kineto_doc(&doc, 12, ev.s, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"after\", \"ts\": 5, \"dur\": 1}]}");
    same_as_serial("fields-cap.json", doc.s, doc.len, 2048);
    free(doc.s);
    for (int depth = 110; depth <= 140; depth += 30) {
        doc = (Str){0};
        ev.len = 0;
        adds(&ev, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"deep\", \"ts\": 1, \"args\": {\"a\": ");
        for (int i = 0; i < depth; i++) {
            add(&ev, "[", 1);
        }
        for (int i = 0; i < depth; i++) {
            add(&ev, "]", 1);
        }
        adds(&ev, "}},\n");
        kineto_doc(&doc, 12, ev.s, good_last);
        adds(&doc, good_tail);
        same_as_serial("deep.json", doc.s, doc.len, 0);
        free(doc.s);
    }
    static const char root_array[] =
        "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2},"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 3, \"dur\": 2}]";
    assert_int_equal(same_as_serial("root-array.json", root_array, sizeof(root_array) - 1, 0), 0);
    static const char bom[] =
        "\xef\xbb\xbf{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1}]}";
    same_as_serial("bom.json", bom, sizeof(bom) - 1, 0);
    free(big.s);
    free(ev.s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kineto_rich),     cmocka_unit_test(empty_and_tiny),
        cmocka_unit_test(malformed),       cmocka_unit_test(truncated_anywhere),
        cmocka_unit_test(limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
