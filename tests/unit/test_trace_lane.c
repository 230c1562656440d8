/* test_trace_lane.c - the Trace screen's strip (issue 22): queue depth (HTA's queue length:
 * launched-but-unfinished ops per stream) worked out by hand, a Kineto memset joining its
 * device's lane, the launching thread and its host spans with their nesting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/trace_lane.h"
#include "dcutop/trace_query.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

/* ops (launch start, end): (0,10) (2,5) (3,20) (30,40): depth 1 at 0, 2 at 2, 3 at 3, 2 at 5,
 * 1 at 10, 0 at 20, 1 at 30, 0 at 40; window 40, empty 10 (20..30), max 3. */
static void depth_by_hand(void** state) {
    (void)state;
    static const int64_t ls[] = {0, 2, 3, 30}, ends[] = {10, 5, 20, 40};
    QueueDepth q;
    QueueDepth_fromOps(ls, ends, 4, &q);
    static const QueueStep want[] = {{0, 1}, {2, 2}, {3, 3}, {5, 2},
                                     {10, 1}, {20, 0}, {30, 1}, {40, 0}};
    assert_int_equal(q.n, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(q.steps[i].t, want[i].t);
        assert_int_equal(q.steps[i].depth, want[i].depth);
    }
    assert_int_equal(q.max, 3);
    assert_int_equal(q.window_ns, 40);
    assert_int_equal(q.empty_ns, 10);
    assert_int_equal(q.launched, 4);
    assert_int_equal(QueueDepth_maxIn(&q, 4, 6), 3);  /* 3 from 3, 2 from 5 */
    assert_int_equal(QueueDepth_maxIn(&q, 21, 29), 0);
    assert_int_equal(QueueDepth_maxIn(&q, 25, 35), 1);
    assert_int_equal(QueueDepth_maxIn(&q, -5, -1), 0); /* before the first launch */
    QueueDepth_done(&q);
}

/* An op that ends when the next one is launched: the queue never runs dry; an op that ends
 * before its call starts (clock skew) counts no time. */
static void depth_edges(void** state) {
    (void)state;
    static const int64_t ls[] = {0, 10, 50}, ends[] = {10, 20, 40};
    QueueDepth q;
    QueueDepth_fromOps(ls, ends, 3, &q);
    assert_int_equal(q.steps[0].t, 0);
    assert_int_equal(q.steps[1].t, 10);
    assert_int_equal(q.steps[1].depth, 1);
    assert_int_equal(q.max, 1);
    assert_int_equal(q.window_ns, 50);
    assert_int_equal(q.empty_ns, 30); /* 20..50 */
    QueueDepth_done(&q);
    QueueDepth_fromOps(ls, ends, 0, &q);
    assert_int_equal(q.n, 0);
    assert_int_equal(QueueDepth_maxIn(&q, 0, 100), 0);
    QueueDepth_done(&q);
}

#define K(name, ts, dur, corr)                                                                \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts   \
    ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":7,\"correlation\":" #corr "}},\n"
#define R(name, ts, dur, corr)                                                                \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":9,\"tid\":9,\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}},\n"

/* Times in us. Kernels a 10-20 (launched at 5), b 40-50 (at 35); a memset 25-30 on device 0
 * stream 7 (at 22); the host thread 9/9 runs aten::step 0-40 around the three calls and
 * other work 60-70 on thread 9/10. Queue: [5,20] [22,30] [35,50]: window 45, empty 2 + 5. */
static const char kineto[] =
    "{\"traceEvents\":[\n"
    K("a_kernel", 10, 10, 1)
    K("b_kernel", 40, 10, 2)
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,"
    "\"ts\":25,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3,\"bytes\":64}},\n"
    R("cudaLaunchKernel", 5, 2, 1)
    R("cudaMemsetAsync", 22, 1, 3)
    R("cudaLaunchKernel", 35, 2, 2)
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::step\",\"pid\":9,\"tid\":9,\"ts\":0,"
    "\"dur\":40,\"args\":{\"External id\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::other\",\"pid\":9,\"tid\":10,\"ts\":60,"
    "\"dur\":10,\"args\":{\"External id\":2}}\n"
    "]}\n";

static void lane_of_a_kineto_step(void** state) {
    (void)state;
    char* p = TestUtil_writeFile(dir, "k.json", kineto, sizeof(kineto) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    /* the memset carries its device: one lane, GPU 0 queue 7, with all three ops */
    TraceLane* lanes = NULL;
    int n = 0;
    DcuError err;
    assert_int_equal(TraceQuery_lanes(db, &lanes, &n, &err), DCU_OK);
    assert_int_equal(n, 1);
    assert_int_equal(lanes[0].gpu, 0);
    assert_int_equal(lanes[0].stream, 7);
    assert_int_equal(lanes[0].ops, 3);

    QueueDepth q;
    assert_int_equal(QueueDepth_lane(db, &lanes[0], &q, &err), DCU_OK);
    assert_int_equal(q.launched, 3);
    assert_int_equal(q.max, 1);
    assert_int_equal(q.window_ns, 45000);
    assert_int_equal(q.empty_ns, 7000);
    QueueDepth_done(&q);
    double pct = 0;
    int nl = 0;
    assert_true(QueueDepth_emptyPct(db, &pct, &nl));
    assert_int_equal(nl, 1);
    assert_float_equal(pct, 100.0 * 7 / 45, 1e-9);

    int64_t pid = 0, tid = 0;
    assert_true(HostLane_thread(db, &lanes[0], INT64_MIN, INT64_MAX, &pid, &tid));
    assert_int_equal(pid, 9);
    assert_int_equal(tid, 9);
    /* the window 0..100 us on the trace clock (time zero: a_kernel's start at 10 us) */
    int64_t t0 = TraceQuery_origin(db, lanes[0].file) - 10000;
    HostSpan* h = NULL;
    int nh = 0;
    assert_int_equal(HostLane_spans(db, &lanes[0], pid, tid, t0, t0 + 100000, 0, &h, &nh, &err),
                     DCU_OK);
    assert_int_equal(nh, 4); /* not aten::other: another thread */
    assert_string_equal(h[0].name, "aten::step");
    assert_int_equal(h[0].depth, 0);
    assert_int_equal(h[0].kind, 0);
    assert_int_equal(h[0].start - t0, 0);
    assert_int_equal(h[0].end - t0, 40000);
    for (int i = 1; i < 4; i++) {
        assert_int_equal(h[i].depth, 1);
        assert_int_equal(h[i].kind, 2);
    }
    assert_string_equal(h[2].name, "cudaMemsetAsync");
    free(h);
    /* a window after the calls, and a cap of one span: the longest */
    assert_int_equal(HostLane_spans(db, &lanes[0], pid, tid, t0 + 38000, t0 + 39000, 1, &h,
                                    &nh, &err),
                     DCU_OK);
    assert_int_equal(nh, 1);
    assert_string_equal(h[0].name, "aten::step");
    free(h);
    /* from memory: the launches by op start, the thread of a window, the longest span */
    LaunchRef* l = NULL;
    int64_t nl2 = 0;
    assert_int_equal(HostLane_launches(db, &lanes[0], &l, &nl2, &err), DCU_OK);
    assert_int_equal(nl2, 3);
    assert_true(l[0].start < l[1].start && l[1].start < l[2].start);
    pid = tid = 0;
    assert_true(HostLane_threadIn(l, nl2, t0 + 20000, t0 + 30000, &pid, &tid)); /* the memset */
    assert_int_equal(pid, 9);
    assert_int_equal(tid, 9);
    assert_false(HostLane_threadIn(l, nl2, t0 + 60000, t0 + 70000, &pid, &tid));
    free(l);
    int64_t longest = HostLane_longest(db, 9, 9);
    assert_int_equal(longest, 40000);
    assert_int_equal(HostLane_spansFrom(db, &lanes[0], 9, 9, t0 + 38000, t0 + 39000, longest, 0,
                                        &h, &nh, &err),
                     DCU_OK);
    assert_int_equal(nh, 1); /* aten::step, started 38 us before the window */
    free(h);
    free(lanes);
    TraceDb_delete(db);
    free(p);
}

/* Device idle gaps [10, 20) [30, 50) [70, 80): the idle inside a window, by hand. */
static void idle_in_windows(void** state) {
    (void)state;
    static const TraceGap g[] = {{10, 20, "host-bound", "", 0},
                                 {30, 50, "sync", "", 0},
                                 {70, 80, "unknown", "", 0}};
    assert_int_equal(TraceGap_idleIn(g, 3, 0, 100), 40);
    assert_int_equal(TraceGap_idleIn(g, 3, 15, 35), 10); /* 15..20 and 30..35 */
    assert_int_equal(TraceGap_idleIn(g, 3, 20, 30), 0);  /* busy in between */
    assert_int_equal(TraceGap_idleIn(g, 3, 40, 45), 5);  /* inside one gap */
    assert_int_equal(TraceGap_idleIn(g, 3, 80, 90), 0);
    assert_int_equal(TraceGap_idleIn(g, 0, 0, 100), 0);
    assert_int_equal(TraceGap_idleIn(NULL, 0, 0, 100), 0);
}

/* A page of three ops: one after a device idle gap (its idle and cause), one after a wait on
 * its queue only (other-stream, no idle), one without a gap. */
static void annotate_a_page(void** state) {
    (void)state;
    static const RsColumn cols[] = {{"gap_ns", "Gap", CT_NS}, {"abs_start_ns", "Start", CT_NS}};
    ResultSet* rs = ResultSet_new("trace", cols, 2);
    static const int64_t gap[] = {5, 30, 0}, start[] = {20, 60, 70};
    for (int i = 0; i < 3; i++) {
        int r = ResultSet_addRow(rs);
        ResultSet_setInt(rs, r, 0, gap[i]);
        ResultSet_setInt(rs, r, 1, start[i]);
    }
    static const TraceGap g[] = {{10, 20, "host-bound", "", 0}, {40, 50, "sync", "", 0}};
    rs = TraceGap_annotate(rs, g, 2);
    int ic = ResultSet_columnIndex(rs, "idle_ns"), cc = ResultSet_columnIndex(rs, "cause");
    assert_true(ic >= 0 && cc >= 0);
    assert_int_equal(ResultSet_cellc(rs, 0, ic)->i, 10);
    assert_string_equal(ResultSet_cellc(rs, 0, cc)->s, "host-bound");
    assert_true(ResultSet_cellc(rs, 1, ic)->null);
    assert_string_equal(ResultSet_cellc(rs, 1, cc)->s, "other-stream");
    assert_true(ResultSet_cellc(rs, 2, ic)->null);
    assert_null(ResultSet_cellc(rs, 2, cc)->s);
    assert_int_equal(ResultSet_cellc(rs, 1, 1)->i, 60); /* the cells moved over */
    ResultSet_delete(rs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(depth_by_hand),
        cmocka_unit_test(depth_edges),
        cmocka_unit_test(idle_in_windows),
        cmocka_unit_test(annotate_a_page),
        cmocka_unit_test_setup_teardown(lane_of_a_kineto_step, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
