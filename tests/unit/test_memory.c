/* test_memory.c - Memory_peaks (memory.h), what the A-B-B-A reads per run: two Kineto traces
 * in two folders (two runs) with '[memory]' events written here; each run's peaks per device,
 * and every run together (run_id 0), computed by hand from the events below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "dcutop/memory.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

#define MEM(ts, bytes, alloc, res, dev, type)                                                  \
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\","    \
    " \"pid\": 1, \"tid\": 1, \"ts\": " #ts ", \"args\": {\"Bytes\": " #bytes ","              \
    " \"Total Allocated\": " #alloc ", \"Total Reserved\": " #res ", \"Device Id\": " #dev ","  \
    " \"Device Type\": " #type ", \"Addr\": 4096}}"

/* run A: device 0 peaks at 350 allocated (t = 40 us, 2000 reserved then), reserved peaks at
 * 2000 first at t = 30 us; host memory peaks at 8 bytes, with no reserved figure */
static const char run_a[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 1, \"tid\": 1,"
    " \"ts\": 35, \"dur\": 10},\n"
    MEM(10, 100, 100, 1000, 0, 1) ",\n" MEM(20, 50, 150, 1000, 0, 1) ",\n"
    MEM(30, -100, 50, 2000, 0, 1) ",\n" MEM(40, 300, 350, 2000, 0, 1) ",\n"
    MEM(41, -300, 50, 2000, 0, 1) ",\n" MEM(15, 8, 8, 0, -1, 0) "]}\n";
/* run B: device 0 peaks at 500 (t = 5 us), reserved 600 */
static const char run_b[] =
    "{\"traceEvents\": [\n" MEM(5, 500, 500, 600, 0, 1) ",\n" MEM(6, -500, 0, 600, 0, 1) "]}\n";

static int64_t run_id(TraceDb* db, const char* label) {
    char sql[128];
    snprintf(sql, sizeof(sql), "SELECT id FROM run WHERE label = '%s'", label);
    return TestUtil_int(db, sql);
}

static TraceDb* load_two(void) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/A", dir);
    mkdir(path, 0700);
    free(TestUtil_writeFile(path, "a.trace.json", run_a, sizeof(run_a) - 1));
    snprintf(path, sizeof(path), "%s/B", dir);
    mkdir(path, 0700);
    free(TestUtil_writeFile(path, "b.trace.json", run_b, sizeof(run_b) - 1));
    DcuStatus s;
    TraceDb* db = TestUtil_load(dir, &s);
    assert_int_equal(s, DCU_OK);
    return db;
}

static void peaks_per_run(void** state) {
    (void)state;
    TraceDb* db = load_two();
    MemPeak p[4];
    int n = -1;
    DcuError err;
    assert_int_equal(Memory_peaks(db, run_id(db, "A"), p, 4, &n, &err), DCU_OK);
    assert_int_equal(n, 2);
    /* host first: 8 bytes, PyTorch's 0 reserved is no reserved figure */
    assert_int_equal(p[0].device, -1);
    assert_int_equal(p[0].allocated, 8);
    assert_int_equal(p[0].reserved, -1);
    assert_int_equal(p[0].reserved_then, -1);
    assert_int_equal(p[1].device, 0);
    assert_int_equal(p[1].events, 5);
    assert_int_equal(p[1].allocated, 350);
    assert_int_equal(p[1].allocated_ns, 40000);
    assert_int_equal(p[1].reserved_then, 2000);
    assert_int_equal(p[1].reserved, 2000);
    assert_int_equal(p[1].reserved_ns, 30000);
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT ts_ns * 10 + bytes FROM mem_event WHERE id = %lld",
             (long long)p[1].reserved_event);
    assert_int_equal(TestUtil_int(db, sql), 300000 - 100); /* the free at 30 us */
    snprintf(sql, sizeof(sql), "SELECT ts_ns FROM mem_event WHERE id = %lld",
             (long long)p[1].allocated_event);
    assert_int_equal(TestUtil_int(db, sql), 40000);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM mem_event m JOIN cpu_op o ON"
                                      " o.id = m.op_id WHERE o.name = 'aten::empty'"), 2);
    assert_int_equal(Memory_peaks(db, run_id(db, "B"), p, 4, &n, &err), DCU_OK);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].device, 0);
    assert_int_equal(p[0].allocated, 500);
    assert_int_equal(p[0].allocated_ns, 5000);
    assert_int_equal(p[0].reserved, 600);
    /* every run in scope: the largest single-process figures */
    assert_int_equal(Memory_peaks(db, 0, p, 4, &n, &err), DCU_OK);
    assert_int_equal(n, 2);
    assert_int_equal(p[1].allocated, 500);
    assert_int_equal(p[1].reserved, 2000);
    /* room for one device: the count still says two */
    assert_int_equal(Memory_peaks(db, run_id(db, "A"), p, 1, &n, &err), DCU_OK);
    assert_int_equal(n, 2);
    assert_int_equal(p[0].device, -1);
    /* a run without memory events, or none at all */
    assert_int_equal(Memory_peaks(db, 999, p, 4, &n, &err), DCU_OK);
    assert_int_equal(n, 0);
    TraceDb_delete(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(peaks_per_run, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
