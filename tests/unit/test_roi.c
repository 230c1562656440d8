/* test_roi.c - GPU idle gap buckets (gap_buckets.h) and the region of interest (roi.h): parsing,
 * bucket boundaries, and that a ROI cuts and clearing restores exactly, on a trace written
 * here (three dispatches on one queue, a copy, an API call) with the sums worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/gap_buckets.h"
#include "dcutop/roi.h"
#include "testutil.h"

static void buckets_default_and_bounds(void** state) {
    (void)state;
    GapBuckets b;
    GapBuckets_initDefault(&b);
    assert_int_equal(b.nbounds, 6);
    GapBuckets_add(&b, 10000);    /* exactly 10 us: the first bucket (bounds are inclusive) */
    GapBuckets_add(&b, 10001);    /* just over: 10-20 us */
    GapBuckets_add(&b, 0);        /* no gap */
    GapBuckets_add(&b, -5);       /* overlap */
    GapBuckets_add(&b, 20000001); /* > 10 ms */
    assert_int_equal(b.count[0], 1);
    assert_int_equal(b.count[1], 1);
    assert_int_equal(b.count[6], 1);
    assert_int_equal(b.total_ns[6], 20000001);
    char l[64];
    GapBuckets_label(&b, 0, l, sizeof(l));
    assert_string_equal(l, "<= 10 us");
    GapBuckets_label(&b, 4, l, sizeof(l));
    assert_string_equal(l, "100 us - 1 ms");
    GapBuckets_label(&b, 6, l, sizeof(l));
    assert_string_equal(l, "> 10 ms");
}

static void buckets_parse(void** state) {
    (void)state;
    GapBuckets b;
    DcuError err;
    assert_int_equal(GapBuckets_parse(&b, "5us,1.5ms,2s", &err), DCU_OK);
    assert_int_equal(b.nbounds, 3);
    assert_true(b.bound[0] == 5000 && b.bound[1] == 1500000 && b.bound[2] == 2000000000LL);
    char l[64];
    GapBuckets_label(&b, 2, l, sizeof(l));
    assert_string_equal(l, "1.5 ms - 2 s");
    assert_int_equal(GapBuckets_parse(&b, "5", &err), DCU_ERR_USAGE);
    assert_int_equal(GapBuckets_parse(&b, "1ms,1ms", &err), DCU_ERR_USAGE);
    assert_int_equal(GapBuckets_parse(&b, "", &err), DCU_ERR_USAGE);
    assert_int_equal(GapBuckets_parse(&b, "1ms,,2ms", &err), DCU_ERR_USAGE);
}

static void roi_parse(void** state) {
    (void)state;
    RoiSpec r;
    DcuError err;
    assert_int_equal(Roi_parse("10ms..20.5us", &r, &err), DCU_OK);
    assert_int_equal(r.kind, ROI_WINDOW);
    assert_true(r.has_start && r.has_end && !r.start_from_end && !r.end_from_end);
    assert_true(r.start_ns == 10000000 && r.end_ns == 20500);
    assert_int_equal(Roi_parse("-1s..", &r, &err), DCU_OK);
    assert_true(r.has_start && r.start_from_end && r.start_ns == 1000000000LL && !r.has_end);
    assert_int_equal(Roi_parse("..-3ns", &r, &err), DCU_OK);
    assert_true(!r.has_start && r.has_end && r.end_from_end && r.end_ns == 3);
    assert_int_equal(Roi_parse("auto-top", &r, &err), DCU_OK);
    assert_int_equal(r.kind, ROI_AUTO_TOP);
    assert_int_equal(Roi_parse("iteration:4", &r, &err), DCU_OK);
    assert_true(r.kind == ROI_ITERATION && r.iteration == 4);
    assert_int_equal(Roi_parse("steady", &r, &err), DCU_OK);
    assert_true(r.kind == ROI_ITERATION && r.iteration == 0);
    const char* bad[] = {"..", "10..20ms", "10ms", "iteration:0", "iteration:x", "--1ms..",
                         "1ms..2", "trimmed", NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(Roi_parse(bad[i], &r, &err), DCU_ERR_USAGE);
    }
}

/* rocprofv3 kernel trace: three kernels at 0-100, 300-400, 1000-1500 ns (clock 5000 + t). */
static const char trace_csv[] =
    "Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,"
    "End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,"
    "Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n"
    "KERNEL_DISPATCH,1,1,1,k_a,1,5000,5100,0,0,64,1,1,64,1,1\n"
    "KERNEL_DISPATCH,1,1,2,k_b,2,5300,5400,0,0,64,1,1,64,1,1\n"
    "KERNEL_DISPATCH,1,1,1,k_a,3,6000,6500,0,0,64,1,1,64,1,1\n";

static void roi_cuts_and_clears(void** state) {
    (void)state;
    char* dir = TestUtil_tempDir();
    char* path = TestUtil_writeFile(dir, "1234_kernel_trace.csv", trace_csv, sizeof(trace_csv) - 1);
    DcuStatus st;
    TraceDb* db = TestUtil_load(dir, &st);
    assert_int_equal(st, DCU_OK);
    const char* total = "SELECT sum(total_ns) || '/' || sum(calls) FROM kernel_summary";
    char* whole = TestUtil_text(db, total);
    assert_string_equal(whole, "700/3");
    RoiSpec r;
    DcuError err;
    assert_int_equal(Roi_parse("300ns..1000ns", &r, &err), DCU_OK);
    assert_int_equal(Roi_apply(db, &r, &err), DCU_OK);
    char* cut = TestUtil_text(db, total);
    assert_string_equal(cut, "600/2"); /* starts at 300 and 1000: both ends included */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM main.dispatch"), 3);
    assert_true(Roi_active(db, NULL));
    char label[256];
    Roi_label(db, label, sizeof(label));
    assert_string_equal(label, "ROI 0.000 ms..0.001 ms");
    assert_int_equal(Roi_parse("-200ns..", &r, &err), DCU_OK); /* last end 6500: from 6300 */
    assert_int_equal(Roi_apply(db, &r, &err), DCU_OK);
    char* tail = TestUtil_text(db, total);
    assert_string_equal(tail, "");                         /* nothing starts after 6300 */
    assert_int_equal(Roi_parse("auto-top", &r, &err), DCU_OK); /* k_a: 5000..6500, all */
    assert_int_equal(Roi_apply(db, &r, &err), DCU_OK);
    char* top = TestUtil_text(db, total);
    assert_string_equal(top, "700/3");
    assert_int_equal(Roi_clear(db, &err), DCU_OK);
    assert_false(Roi_active(db, NULL));
    char* again = TestUtil_text(db, total);
    assert_string_equal(again, whole);
    free(whole);
    free(cut);
    free(tail);
    free(top);
    free(again);
    TraceDb_delete(db);
    free(path);
    TestUtil_rmTree(dir);
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buckets_default_and_bounds),
        cmocka_unit_test(buckets_parse),
        cmocka_unit_test(roi_parse),
        cmocka_unit_test(roi_cuts_and_clears),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
