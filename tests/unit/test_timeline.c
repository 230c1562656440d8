/* test_timeline.c - the timeline layer on small traces whose numbers are worked out by hand
 * in the comments: wall, busy (overlapping streams), idle, short kernels, launch gaps,
 * detected iterations with a warm-up, ProfilerStep iterations assigned by launch time, the
 * steady-state cut for API and copy tables, H2D in the loop, Amdahl over wall time, PMC. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/query.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

#define K(name, stream, ts, dur, corr)                                                        \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream       \
    ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":" #stream             \
    ",\"correlation\":" #corr "}},\n"
#define R(name, ts, dur, corr)                                                                \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":9,\"tid\":9,\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}},\n"

/* Stream 7: warm 0-5 | A 10-30, B 31-33, C 40-60 | A 200-220, B 221-223, C 230-250 |
 * A 400-420, B 421-423, C 430-450; stream 8: D 15-25 (overlaps A). Times in us.
 *   span 450; busy = 5 + 20 (A with D) + 2 + 20 + 42 + 42 = 131 of kernels, + 5 for the
 *   H2D copy at 390 (device 0, from its pid; the one at 1 is inside warm) = 136; idle 314;
 *   kernel 141
 *   short (< 10 us): warm + 3 x B = 4 dispatches, 11 us; D (10 us) is not short
 *   gaps on stream 7: 5,1,7,140,1,7,150,1,7 = 9 gaps, 319 us, max 150, median 7
 *   iterations: anchor A every 3 dispatches; the sequence repeats from B at 31 on (the window
 *   [B C A] equals the next one, [warm A D] does not), and of the three phases from there the
 *   launch gaps before A (140, 150: median 145) beat those before B (6, 1, 1) and C (7, 7, 7):
 *   warm-up [warm A D B C] apart, then [A B C] [A B C]; first 42 us of kernels, span 50;
 *   steady 42 us, span 50; cold ratio 1.0 (without the warm-up). The second iteration's A
 *   was launched at 350: the steady state starts there (cudaMalloc at 1 is before,
 *   cudaMemcpy at 380 after; H2D copies at 1 (before) and 390 (after, 1000 bytes)). */
static const char periodic[] =
    "{\"traceEvents\":[\n"
    K("warm_kernel", 7, 0, 5, 1)
    K("Cijk_gemm_A", 7, 10, 20, 2)
    K("D_kernel", 8, 15, 10, 3)
    K("B_kernel", 7, 31, 2, 4)
    K("C_kernel", 7, 40, 20, 5)
    K("Cijk_gemm_A", 7, 200, 20, 6)
    K("B_kernel", 7, 221, 2, 7)
    K("C_kernel", 7, 230, 20, 8)
    K("Cijk_gemm_A", 7, 400, 20, 9)
    K("B_kernel", 7, 421, 2, 10)
    K("C_kernel", 7, 430, 20, 11)
    R("cudaMalloc", 1, 100, 100)
    R("cudaLaunchKernel", 350, 3, 9)
    R("cudaMemcpy", 380, 20, 101)
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,"
    "\"tid\":7,\"ts\":1,\"dur\":1,\"args\":{\"stream\":7,\"bytes\":500}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,"
    "\"tid\":7,\"ts\":390,\"dur\":5,\"args\":{\"stream\":7,\"bytes\":1000}}\n"
    "]}\n";

static const RsCell* cell(const ResultSet* rs, int r, const char* key) {
    int c = ResultSet_columnIndex(rs, key);
    assert_true(c >= 0);
    return ResultSet_cellc(rs, r, c);
}

static int row_of(const ResultSet* rs, const char* key, const char* value) {
    for (int r = 0; r < rs->nrows; r++) {
        const RsCell* c = cell(rs, r, key);
        if (!c->null && strcmp(c->s, value) == 0) {
            return r;
        }
    }
    fail_msg("no row with %s = %s", key, value);
    return -1;
}

static void periodic_trace(void** state) {
    (void)state;
    char* p = TestUtil_writeFile(dir, "p.json", periodic, sizeof(periodic) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    Timeline* tl = NULL;
    DcuError err;
    assert_int_equal(Timeline_new(db, &tl, &err), DCU_OK);
    const TimelineSummary* t = Timeline_summary(tl);
    assert_true(t->available);
    assert_int_equal(t->runs, 1);
    assert_int_equal(t->devices, 1);
    assert_int_equal(t->streams, 2);
    assert_int_equal(t->dispatches, 11);
    assert_int_equal(t->span_ns, 450000);
    assert_int_equal(t->wall_ns, 450000);
    assert_int_equal(t->kernel_ns, 141000);
    assert_int_equal(t->busy_ns, 136000);
    assert_int_equal(t->idle_ns, 314000);
    assert_float_equal(t->idle_pct, 100.0 * 314 / 450, 1e-9);
    assert_int_equal(t->short_dispatches, 4);
    assert_int_equal(t->short_ns, 11000);
    assert_int_equal(t->gaps, 9);
    assert_int_equal(t->gap_ns, 319000);
    assert_int_equal(t->gap_max_ns, 150000);
    assert_int_equal(t->gap_p50_ns, 7000);
    assert_int_equal(t->iter_source, ITER_DETECTED);
    assert_int_equal(t->iterations, 2);
    assert_int_equal(t->iter_period, 3);
    assert_int_equal(t->warmup_dispatches, 5);
    assert_int_equal(t->first_iter_ns, 42000);
    assert_int_equal(t->first_iter_span_ns, 50000);
    assert_float_equal(t->steady_iter_ns, 42000, 1e-6);
    assert_float_equal(t->cold_ratio, 1.0, 1e-9);
    assert_int_equal(t->steady_h2d, 1);
    assert_int_equal(t->steady_h2d_bytes, 1000);
    assert_int_equal(t->steady_d2h, 0);

    ResultSet* rs = NULL;
    assert_int_equal(Timeline_view(tl, TL_ITERATIONS, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 3);
    assert_int_equal(cell(rs, 0, "dispatches")->i, 5);
    assert_string_equal(cell(rs, 0, "phase")->s, "warm-up");
    assert_string_equal(cell(rs, 1, "phase")->s, "first (cold)");
    assert_int_equal(cell(rs, 1, "start_ns")->i, 200000);
    assert_int_equal(cell(rs, 2, "start_ns")->i, 400000);
    ResultSet_delete(rs);

    assert_int_equal(Timeline_view(tl, TL_API, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    int r = row_of(rs, "name", "cudaMalloc");
    assert_int_equal(cell(rs, r, "first_calls")->i, 1);
    assert_int_equal(cell(rs, r, "steady_calls")->i, 0);
    assert_float_equal(cell(rs, r, "first_pct")->d, 100.0, 1e-9);
    r = row_of(rs, "name", "cudaMemcpy");
    assert_int_equal(cell(rs, r, "steady_calls")->i, 1);
    assert_int_equal(cell(rs, r, "steady_ns")->i, 20000);
    ResultSet_delete(rs);

    assert_int_equal(Timeline_view(tl, TL_COPIES, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 1);
    assert_string_equal(cell(rs, 0, "direction")->s, "H2D");
    assert_int_equal(cell(rs, 0, "calls")->i, 2);
    assert_int_equal(cell(rs, 0, "steady_calls")->i, 1);
    assert_int_equal(cell(rs, 0, "steady_bytes")->i, 1000);
    assert_string_equal(cell(rs, 0, "flag")->s, "in steady state");
    ResultSet_delete(rs);

    assert_int_equal(Timeline_view(tl, TL_GAPS, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 9);
    assert_int_equal(cell(rs, 0, "gap_ns")->i, 150000);
    assert_int_equal(cell(rs, 0, "at_ns")->i, 250000);
    assert_string_equal(cell(rs, 0, "after")->s, "Cijk_gemm_A");
    ResultSet_delete(rs);

    assert_int_equal(Timeline_view(tl, TL_SHORT, "B_kernel", AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 1);
    assert_int_equal(cell(rs, 0, "short_calls")->i, 3);
    assert_float_equal(cell(rs, 0, "pct_of_short")->d, 75.0, 1e-9);
    ResultSet_delete(rs);

    assert_int_equal(Timeline_view(tl, TL_DEVICES, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 1);
    assert_int_equal(cell(rs, 0, "busy_ns")->i, 136000);
    ResultSet_delete(rs);
    /* the SQL figures agree: idle counts the copy as busy, the kernels' union does not */
    assert_int_equal(Timeline_idleNs(db), 314000);
    assert_int_equal(Timeline_kernelBusyNs(db), 131000);

    /* Amdahl: GEMM (A) is 60 us of 141 us of kernel time; over wall time, with D overlapping
     * A, its share is 60/141 of the kernels' union's 131/450 of the wall (the copy is no
     * part): 60 / (450 * 141 / 131) */
    double ck = 1.0 / (1.0 - 60.0 / 141.0), cw = 1.0 / (1.0 - 60.0 * 131.0 / (450.0 * 141.0));
    assert_float_equal(Timeline_ceiling(tl, 60000, AMDAHL_BASIS_KERNEL, NULL), ck, 1e-9);
    assert_float_equal(Timeline_ceiling(tl, 60000, AMDAHL_BASIS_WALL, NULL), cw, 1e-9);
    assert_int_equal(Timeline_wallNs(db), 450000);
    assert_int_equal(Timeline_view(tl, TL_AMDAHL, NULL, AMDAHL_BASIS_WALL, &rs, &err), DCU_OK);
    r = row_of(rs, "category", "GEMM");
    assert_int_equal(cell(rs, r, "total_ns")->i, 60000);
    assert_float_equal(cell(rs, r, "ceiling_kernel")->d, ck, 1e-9);
    assert_float_equal(cell(rs, r, "ceiling_wall")->d, cw, 1e-9);
    assert_float_equal(cell(rs, r, "ceiling")->d, cw, 1e-9);
    ResultSet_delete(rs);
    Timeline_delete(tl);

    /* the basis toggle reaches the hotspot and category ceilings */
    assert_int_equal(Query_amdahlBasis(db), 0);
    assert_int_equal(Query_setAmdahlBasis(db, AMDAHL_BASIS_WALL, &err), DCU_OK);
    assert_int_equal(Query_amdahlBasis(db), 1);
    assert_int_equal(Query_view(db, VIEW_CATEGORIES, NULL, &rs, &err), DCU_OK);
    r = row_of(rs, "category", "GEMM");
    assert_float_equal(cell(rs, r, "ceiling")->d, cw, 1e-9);
    /* the share over the same basis as the ceiling (one basis at a time) */
    assert_float_equal(cell(rs, r, "pct")->d, 100.0 * 60 * 131 / (450.0 * 141), 1e-4);
    ResultSet_delete(rs);
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, NULL, &rs, &err), DCU_OK);
    r = row_of(rs, "short_name", "Cijk_gemm_A");
    assert_float_equal(cell(rs, r, "ceiling")->d, cw, 1e-9);
    ResultSet_delete(rs);
    assert_int_equal(Query_setAmdahlBasis(db, AMDAHL_BASIS_KERNEL, &err), DCU_OK);
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, NULL, &rs, &err), DCU_OK);
    r = row_of(rs, "short_name", "Cijk_gemm_A");
    assert_float_equal(cell(rs, r, "ceiling")->d, ck, 1e-9);
    ResultSet_delete(rs);
    TraceDb_delete(db);
    free(p);
}

/* Steps (host us): #1 [0, 100], #2 [100, 200]. k1 launched at 10 runs 50-60; k2 launched at
 * 90 runs 120-130 (in step 1: the launch decides, not the device time); k3 launched at 150
 * runs 160-170; k4 has no launch record and runs at 250: outside both steps. */
static const char stepped[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":9,\"tid\":9,\"ts\":0,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":9,\"tid\":9,\"ts\":100,\"dur\":100},\n"
    R("hipLaunchKernel", 10, 2, 1)
    R("hipLaunchKernel", 90, 2, 2)
    R("hipLaunchKernel", 150, 2, 3)
    K("k1", 0, 50, 10, 1)
    K("k2", 0, 120, 10, 2)
    K("k3", 0, 160, 10, 3)
    K("k4", 0, 250, 10, 4)
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH (Device -> Pageable)\",\"pid\":0,"
    "\"tid\":0,\"ts\":180,\"dur\":5,\"args\":{\"stream\":0,\"bytes\":64}}\n"
    "]}\n";

static void profiler_steps(void** state) {
    (void)state;
    char* p = TestUtil_writeFile(dir, "s.json", stepped, sizeof(stepped) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    Timeline* tl = NULL;
    DcuError err;
    assert_int_equal(Timeline_new(db, &tl, &err), DCU_OK);
    const TimelineSummary* t = Timeline_summary(tl);
    assert_int_equal(t->iter_source, ITER_ANNOTATION);
    assert_int_equal(t->iterations, 2);
    assert_int_equal(t->first_iter_ns, 20000);
    assert_float_equal(t->steady_iter_ns, 10000, 1e-9);
    assert_int_equal(t->steady_d2h, 1);
    assert_int_equal(t->steady_d2h_bytes, 64);
    ResultSet* rs = NULL;
    assert_int_equal(Timeline_view(tl, TL_ITERATIONS, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 3);
    int r = row_of(rs, "name", "ProfilerStep#1");
    assert_int_equal(cell(rs, r, "dispatches")->i, 2);
    r = row_of(rs, "name", "ProfilerStep#2");
    assert_int_equal(cell(rs, r, "dispatches")->i, 1);
    r = row_of(rs, "phase", "outside");
    assert_int_equal(cell(rs, r, "dispatches")->i, 1);
    ResultSet_delete(rs);
    /* API split at the start of step 2 (100 us) */
    assert_int_equal(Timeline_view(tl, TL_API, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(cell(rs, 0, "first_calls")->i, 2);
    assert_int_equal(cell(rs, 0, "steady_calls")->i, 1);
    ResultSet_delete(rs);
    Timeline_delete(tl);
    TraceDb_delete(db);
    free(p);
}

static void no_timestamps_and_pmc(void** state) {
    (void)state;
    /* aggregate stats only: no timeline, wall basis falls back to kernel time */
    static const char stats[] = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                                "\"Cijk_x\",2,600,300,60\n\"other_k\",1,400,400,40\n";
    char* p = TestUtil_writeFile(dir, "a.stats.csv", stats, sizeof(stats) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    Timeline* tl = NULL;
    DcuError err;
    assert_int_equal(Timeline_new(db, &tl, &err), DCU_OK);
    assert_false(Timeline_summary(tl)->available);
    AmdahlBasis used;
    assert_float_equal(Timeline_ceiling(tl, 600, AMDAHL_BASIS_WALL, &used), 2.5, 1e-9);
    assert_int_equal(used, AMDAHL_BASIS_KERNEL);
    ResultSet* rs = NULL;
    assert_int_equal(Timeline_view(tl, TL_OVERVIEW, NULL, AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 0);
    assert_non_null(rs->footer);
    ResultSet_delete(rs);
    Timeline_delete(tl);
    TraceDb_delete(db);
    free(p);
    /* a PMC run: counters per kernel with the warning */
    static const char pmc[] =
        "\"Index\",\"KernelName\",\"gpu-id\",\"BeginNs\",\"EndNs\",\"SQ_WAVES\",\"VALUUtilization\"\n"
        "0,\"k1\",0,100,200,8,50.5\n1,\"k1\",0,300,500,12,60.5\n2,\"k2\",0,600,610,1,10\n";
    p = TestUtil_writeFile(dir, "results.csv", pmc, sizeof(pmc) - 1);
    db = TestUtil_load(p, &s);
    assert_int_equal(Timeline_new(db, &tl, &err), DCU_OK);
    assert_true(Timeline_summary(tl)->pmc);
    assert_int_equal(Timeline_view(tl, TL_COUNTERS, "^k1$", AMDAHL_BASIS_KERNEL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 2);
    int r = row_of(rs, "counter", "SQ_WAVES");
    assert_float_equal(cell(rs, r, "mean")->d, 10.0, 1e-9);
    assert_float_equal(cell(rs, r, "max")->d, 12.0, 1e-9);
    assert_non_null(strstr(rs->footer, "PMC"));
    ResultSet_delete(rs);
    assert_int_equal(Timeline_view(tl, TL_COUNTERS, "(", AMDAHL_BASIS_KERNEL, &rs, &err),
                     DCU_ERR_REGEX);
    Timeline_delete(tl);
    TraceDb_delete(db);
    free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(periodic_trace, setup, teardown),
        cmocka_unit_test_setup_teardown(profiler_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(no_timestamps_and_pmc, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
