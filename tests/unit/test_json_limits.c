/* test_json_limits.c - hostile chrome-trace JSON (issue 9, points 4 and 7): ts/dur values
 * that are null, booleans, negative or out of range are rejected with their reason (not read
 * as 0, no signed overflow); one token or event over --max-event-size is rejected with a
 * message naming its place while the rest of the file loads; a name just below the cap
 * still loads. Every file is written here, in a temp folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "dcutop/category.h"
#include "load/json_feed.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

static int64_t messages_like(TraceDb* db, const char* pattern) {
    char* sql = xasprintf("SELECT count(*) FROM load_message WHERE message LIKE '%s'", pattern);
    int64_t n = TestUtil_int(db, sql);
    free(sql);
    return n;
}

/* Kineto events: one good kernel, then ts/dur values that must each be rejected. Before the
 * fix, null and true durations were stored as 0 ns and the negative ts overflowed int64. */
static void ts_dur_field_checks(void** state) {
    (void)state;
    static const char j[] =
        "{\"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ok\", \"pid\": 0, \"tid\": 1, \"ts\": 10, \"dur\": 2},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_dur_null\", \"pid\": 0, \"tid\": 1, \"ts\": 5, \"dur\": null},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_dur_true\", \"pid\": 0, \"tid\": 1, \"ts\": 5, \"dur\": true},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ts_neg\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": -9223372036854775, \"dur\": 9223372036854775},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ts_null\", \"pid\": 0, \"tid\": 1, \"ts\": null, \"dur\": 1},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ts_huge\", \"pid\": 0, \"tid\": 1, \"ts\": 1e300, \"dur\": 1},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_sum_huge\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": 9000000000000000, \"dur\": 9000000000000000},\n"
        " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": 5, \"dur\": false},\n"
        " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"step\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": -1, \"dur\": 4}\n"
        "]}\n";
    char* p = TestUtil_writeFile(dir, "fields.json", j, sizeof(j) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM api_call"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM range"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 8);
    assert_int_equal(messages_like(db, "%event 2: dur is null"), 1);
    assert_int_equal(messages_like(db, "%event 3: dur is not a number"), 1);
    assert_int_equal(messages_like(db, "%event 4: ts is negative"), 1);
    assert_int_equal(messages_like(db, "%event 5: ts is null"), 1);
    TraceDb_delete(db);
    free(p);
}

/* The same checks reach the messages past the first five: load with the messages of the
 * last events only. */
static void ts_dur_field_checks_tail(void** state) {
    (void)state;
    static const char j[] =
        "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ts_huge\", \"pid\": 0, \"tid\": 1, \"ts\": 1e300, \"dur\": 1},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_sum_huge\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": 9000000000000000, \"dur\": 9000000000000000},\n"
        " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": 5, \"dur\": false},\n"
        " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"step\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": -1, \"dur\": 4},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ok\", \"pid\": 0, \"tid\": 1, \"ts\": 10, \"dur\": 2}]\n";
    char* p = TestUtil_writeFile(dir, "fields2.json", j, sizeof(j) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 4);
    assert_int_equal(messages_like(db, "%event 1: ts is out of range"), 1);
    assert_int_equal(messages_like(db, "%event 2: ts + dur is out of range"), 1);
    assert_int_equal(messages_like(db, "%event 3: dur is not a number"), 1);
    assert_int_equal(messages_like(db, "%event 4: ts is negative"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns FROM dispatch"), 2000);
    TraceDb_delete(db);
    free(p);
}

/* hipprof and rocprof v1 JSON take ts/dur when BeginNs/EndNs are absent: the same checks. */
static void ts_dur_field_checks_hipprof_v1(void** state) {
    (void)state;
    static const char j[] =
        "{\"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"HIPOPS\", \"name\": \"hk_null\", \"pid\": 1, \"tid\": \"Stream<0>\", \"ts\": 5,"
        "  \"dur\": null, \"args\": {\"index\": 1}},\n"
        " {\"ph\": \"X\", \"cat\": \"HIP\", \"name\": \"hipMemcpy\", \"pid\": 1, \"tid\": \"Thread<3>\", \"ts\": -4,"
        "  \"dur\": 2, \"args\": {\"index\": 2}},\n"
        " {\"ph\": \"X\", \"name\": \"v1k\", \"pid\": 6, \"tid\": 0, \"ts\": 5, \"dur\": true,"
        "  \"args\": {\"KernelName\": \"v1k\", \"Index\": \"3\"}},\n"
        " {\"ph\": \"X\", \"cat\": \"HIPOPS\", \"name\": \"hk_ok\", \"pid\": 1, \"tid\": \"Stream<0>\", \"ts\": 5,"
        "  \"dur\": 3, \"args\": {\"index\": 4}}\n"
        "]}\n";
    char* p = TestUtil_writeFile(dir, "hip.json", j, sizeof(j) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 3);
    assert_int_equal(messages_like(db, "%event 1: dur is null"), 1);
    assert_int_equal(messages_like(db, "%event 2: ts is negative"), 1);
    assert_int_equal(messages_like(db, "%event 3: dur is not a number"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns FROM dispatch"), 3000);
    TraceDb_delete(db);
    free(p);
}

/* Loads path with --max-event-size cap (0: the default). */
static TraceDb* load_capped(const char* path, int64_t cap) {
    TraceDb* db = NULL;
    DcuError err;
    assert_int_equal(TraceDb_open(&db, TRACE_DB_DEFAULT_MEMORY, &err), DCU_OK);
    LoadOptions lo = {0};
    lo.max_event_size = cap;
    Loader* l = Loader_new(db, &lo);
    assert_int_equal(Loader_addPath(l, path, &err), DCU_OK);
    assert_int_equal(Loader_run(l, &err), DCU_OK);
    Loader_delete(l);
    return db;
}

static char* repeat(char c, size_t n) {
    char* s = xmalloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* A 17 MiB name (over the default 16 MiB cap) between two small kernels: that event alone
 * is rejected, with its line and byte offset; a 1 MiB name loads whole. Before the cap the
 * 17 MiB name was stored. */
static void token_over_default_cap(void** state) {
    (void)state;
    char* big = repeat('b', 17u << 20);
    char* ok = repeat('m', 1u << 20);
    char* j = xasprintf(
        "{\"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_first\", \"pid\": 0, \"tid\": 1, \"ts\": 1, \"dur\": 2},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 1, \"ts\": 3, \"dur\": 2},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 1, \"ts\": 5, \"dur\": 4},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_last\", \"pid\": 0, \"tid\": 1, \"ts\": 9, \"dur\": 8}\n"
        "]}\n",
        big, ok);
    free(big);
    free(ok);
    char* p = TestUtil_writeFile(dir, "big.json", j, strlen(j));
    free(j);
    TraceDb* db = load_capped(p, 0);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 3);
    assert_int_equal(TestUtil_int(db, "SELECT max(length(name)) FROM kernel"), 1 << 20);
    assert_int_equal(TestUtil_int(db, "SELECT sum(dur_ns) FROM dispatch"), 14000);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 1);
    /* the name starts on line 3, after {"ph": ... "name": (the event's 47th byte) */
    int64_t at = (int64_t)strlen("{\"traceEvents\": [\n") +
                 (int64_t)strlen(" {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_first\", \"pid\": 0,"
                                 " \"tid\": 1, \"ts\": 1, \"dur\": 2},\n") +
                 (int64_t)strlen(" {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": ");
    char* like = xasprintf("%%event 2 (line 3, byte %lld): a token of %lld bytes is over the 16 MiB"
                           " limit (--max-event-size); event rejected",
                           (long long)at, (long long)(17 << 20) + 2);
    assert_int_equal(messages_like(db, like), 1);
    free(like);
    TraceDb_delete(db);
    free(p);
}

static void check_small_cap(const char* p) {
    TraceDb* db = load_capped(p, 4096);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT sum(dur_ns) FROM dispatch"), 5000);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 5);
    assert_int_equal(messages_like(db, "%event _ (line _, byte %): a token of 5002 bytes is over the"
                                       " 4096 bytes limit%"),
                     3);
    assert_int_equal(messages_like(db, "%event 5 (line 6, byte %): a token of 5000 bytes is over%"), 1);
    assert_int_equal(messages_like(db, "%event 6 (ending at or after byte %): its fields are over the"
                                       " 4096 bytes limit (--max-event-size); event rejected"),
                     1);
    assert_int_equal(messages_like(db, "%line 1, byte 9: a token of 5002 bytes outside any event is"
                                       " over the 4096 bytes limit (--max-event-size); skipped"),
                     1);
    TraceDb_delete(db);
}

/* With a 4 KiB cap: a long name, a long arg value, a long key, a long number and an event
 * whose many small args add up past the cap are each rejected; a long string outside any
 * event is skipped with a message; the events around them load, in plain and gzip files. */
static void small_cap_every_kind(void** state) {
    (void)state;
    char* s5k = repeat('x', 5000);
    char* n5k = repeat('7', 5000);
    char* many = xstrdup("");
    for (int i = 0; i < 100; i++) {
        char* m = xasprintf("%s\"a%03d\": \"%s\", ", many, i, "0123456789012345678901234567890123456789");
        free(many);
        many = m;
    }
    char* j = xasprintf(
        "{\"meta\": \"%s\", \"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 1, \"ts\": 3, \"dur\": 2},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_arg\", \"pid\": 0, \"tid\": 1, \"ts\": 3, \"dur\": 2,"
        " \"args\": {\"junk\": \"%s\"}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_key\", \"pid\": 0, \"tid\": 1, \"ts\": 3, \"dur\": 2,"
        " \"%s\": 1},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_num\", \"pid\": 0, \"tid\": 1, \"ts\": %s, \"dur\": 2},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_many\", \"pid\": 0, \"tid\": 1, \"ts\": 3, \"dur\": 2,"
        " \"args\": {%s\"z\": 0}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 1, \"ts\": 9, \"dur\": 4}\n"
        "]}\n",
        s5k, s5k, s5k, s5k, n5k, many);
    free(s5k);
    free(n5k);
    free(many);
    char* p = TestUtil_writeFile(dir, "small.json", j, strlen(j));
    check_small_cap(p);
    free(p);
    p = xasprintf("%s/small.json.gz", dir);
    gzFile gz = gzopen(p, "wb");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, j, (unsigned)strlen(j)), (int)strlen(j));
    assert_int_equal(gzclose(gz), Z_OK);
    check_small_cap(p);
    free(p);
    free(j);
}

/* Escapes that straddle the 64 KiB blocks the file is read in: the feed must never cut a
 * string or an escape between what it hands yajl. 3000 names, each with \" \\ \u00e9 \n
 * after a padding of 0-16 bytes, so that block boundaries fall inside escapes. */
static void escapes_across_blocks(void** state) {
    (void)state;
    char* j = xstrdup("{\"traceEvents\": [\n");
    size_t len = strlen(j), cap = len + 1;
    int64_t bytes = 0;
    for (int i = 0; i < 3000; i++) {
        char pad[20];
        memset(pad, 'p', (size_t)(i % 17));
        pad[i % 17] = '\0';
        char* ev = xasprintf("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"e%d_%s\\\"q\\\\r\\u00e9s\\nt\","
                             " \"pid\": 0, \"tid\": 1, \"ts\": %d, \"dur\": 1},\n",
                             i, pad, i * 10);
        size_t el = strlen(ev);
        xgrow((void**)&j, &cap, len + el + 64);
        memcpy(j + len, ev, el + 1);
        len += el;
        free(ev);
        char num[16];
        /* stored: e<i>_ pad "q\r é s \x0A t: the newline is a control character, shown \x0A */
        bytes += snprintf(num, sizeof(num), "%d", i) + 2 + i % 17 + 12;
    }
    static const char tail[] =
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"z\", \"pid\": 0, \"tid\": 1, \"ts\": 0, \"dur\": 1}]}\n";
    memcpy(j + len, tail, sizeof(tail));
    len += sizeof(tail) - 1;
    assert_true(len > 5 * 65536);
    char* p = TestUtil_writeFile(dir, "esc.json", j, len);
    free(j);
    TraceDb* db = load_capped(p, 0);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 3001);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT sum(length(CAST(name AS BLOB))) FROM kernel WHERE name <> 'z'"),
                     bytes);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel WHERE name GLOB 'e*_*\"q\\r\xc3\xa9s\\x0At'"),
                     3000);
    TraceDb_delete(db);
    free(p);
}

/* Issue 26 H1: the feed counts nesting outside strings and stops at the '[' or '{' that opens
 * level JSON_MAX_DEPTH + 1, wherever the blocks are cut, and stays stopped. Brackets inside a
 * string do not count, nor does a depth of exactly JSON_MAX_DEPTH. */
static int feed_depth(const char* doc, size_t block, JsonOversize* over) {
    JsonFeed f;
    JsonFeed_init(&f, 1024);
    size_t n = strlen(doc);
    int r = 0;
    for (size_t at = 0; at < n && r != 2; at += block) {
        size_t len = n - at < block ? n - at : block, pos = 0;
        while ((r = JsonFeed_scan(&f, (const unsigned char*)doc + at, len, &pos, over)) == 1) {
            JsonFeed_consume(&f);
        }
        JsonFeed_consume(&f);
    }
    if (r == 2) {
        size_t pos = 0;
        assert_int_equal(JsonFeed_scan(&f, (const unsigned char*)"[", 1, &pos, over), 2);
    }
    JsonFeed_done(&f);
    return r;
}

static void feed_depth_limit(void** state) {
    (void)state;
    char* ok = xmalloc(4 * JSON_MAX_DEPTH + 64);
    char* deep = xmalloc(4 * JSON_MAX_DEPTH + 64);
    size_t o = 0;
    o += (size_t)sprintf(ok + o, "{\"s\": \"[[[[{{{{\", \"x\":");
    for (int k = 1; k < JSON_MAX_DEPTH; k++) {
        ok[o++] = '[';
    }
    for (int k = 1; k < JSON_MAX_DEPTH; k++) {
        ok[o++] = ']';
    }
    strcpy(ok + o, "}");
    size_t d = 0;
    d += (size_t)sprintf(deep + d, "{\"x\":");
    for (int k = 0; k < JSON_MAX_DEPTH; k++) {
        deep[d++] = k % 2 ? '{' : '[';
        if (k % 2) {
            d += (size_t)sprintf(deep + d, "\"k\":");
        }
    }
    strcpy(deep + d, "1");
    JsonOversize over;
    for (size_t block = 1; block <= 4096; block *= 8) {
        assert_int_equal(feed_depth(ok, block, &over), 0);
        memset(&over, 0, sizeof(over));
        assert_int_equal(feed_depth(deep, block, &over), 2);
        /* the last bracket written is the one past the limit */
        size_t last = d - 1;
        while (deep[last] != '[' && deep[last] != '{') {
            last--;
        }
        assert_int_equal(over.offset, last);
        assert_int_equal(over.line, 1);
    }
    free(ok);
    free(deep);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(ts_dur_field_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(ts_dur_field_checks_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(ts_dur_field_checks_hipprof_v1, setup, teardown),
        cmocka_unit_test_setup_teardown(token_over_default_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(small_cap_every_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(escapes_across_blocks, setup, teardown),
        cmocka_unit_test(feed_depth_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
