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
#include <cmocka.h>

#include "dcutop/xalloc.h"
#include "testutil.h"

static char* dir;

static int setup(void** state) {
    (void)state;
    dir = TestUtil_tempDir();
    return 0;
}

static int teardown(void** state) {
    (void)state;
    TestUtil_rmTree(dir);
    free(dir);
    return 0;
}

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(ts_dur_field_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(ts_dur_field_checks_tail, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
