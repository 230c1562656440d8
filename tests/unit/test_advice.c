/* test_advice.c - "what to optimise first", rule by rule, on small constructed traces whose
 * numbers are worked out in the comments: copy-bound, GEMM-bound, idle-bound, launch-bound,
 * a kernel nested under its category, a PMC run and stats only; and the launch-bound verdict
 * by what launches cost the wall. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/advice.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

#define V1 "\"Index\",\"KernelName\",\"gpu-id\",\"BeginNs\",\"EndNs\"\n"

/* Loads text as file name and builds the advice. */
static AdviceList* advise(const char* name, const char* text) {
    char* p = TestUtil_writeFile(dir, name, text, strlen(text));
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    AdviceList* l = NULL;
    DcuError err;
    assert_int_equal(Advice_build(db, &l, &err), DCU_OK);
    TraceDb_delete(db);
    free(p);
    return l;
}

static const Advice* find(const AdviceList* l, const char* rule) {
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->items[i].rule, rule) == 0) {
            return &l->items[i];
        }
    }
    return NULL;
}

static int warned(const AdviceList* l, const char* word) {
    for (int i = 0; i < l->nwarn; i++) {
        if (strstr(l->warnings[i], word)) {
            return 1;
        }
    }
    return 0;
}

/* Times in us. Copy 600 of 1000 (two dispatches), GEMM 400, back to back: no idle, so the
 * wall is the kernel time: copy share 0.6 of the wall -> at most 2.5x, the same of kernel
 * time beside it; GEMM 0.4 -> 1.67x. Copy leads. */
static void copy_bound(void** state) {
    (void)state;
    AdviceList* l = advise("results.csv", V1 "0,\"direct_copy_kernel_cuda\",0,0,300000\n"
                                             "1,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,300000,700000\n"
                                             "2,\"direct_copy_kernel_cuda\",0,700000,1000000\n");
    assert_true(l->n >= 2);
    assert_string_equal(l->items[0].rule, "category");
    assert_string_equal(l->items[0].target, "copy");
    assert_float_equal(l->items[0].share, 0.6, 1e-9);
    assert_float_equal(l->items[0].ceiling, 2.5, 1e-9);
    assert_string_equal(l->items[0].basis, "wall time"); /* a timeline: the wall */
    assert_float_equal(l->items[0].kernel_ceiling, 2.5, 1e-9);
    assert_string_equal(l->items[1].target, "gemm");
    assert_float_equal(l->items[1].ceiling, 1.0 / 0.6, 1e-9);
    assert_null(find(l, "idle")); /* no idle time at all */
    AdviceList_delete(l);
}

/* GEMM 900 of 1000 us: GEMM leads with 10x; the kernel itself is all of its category, so it
 * gets no line of its own. */
static void gemm_bound(void** state) {
    (void)state;
    AdviceList* l = advise("results.csv", V1 "0,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,0,900000\n"
                                             "1,\"direct_copy_kernel_cuda\",0,900000,1000000\n");
    assert_string_equal(l->items[0].target, "gemm");
    assert_float_equal(l->items[0].ceiling, 10.0, 1e-6);
    assert_null(find(l, "kernel"));
    AdviceList_delete(l);
}

/* Two kernels of 100 us in a 1000 us wall: busy 200 (union), idle 800 -> share 0.8 of wall
 * time, at most 5x; it leads over the categories (each 0.5 of kernel time, 2x). */
static void idle_bound(void** state) {
    (void)state;
    AdviceList* l = advise("results.csv", V1 "0,\"direct_copy_kernel_cuda\",0,0,100000\n"
                                             "1,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,900000,1000000\n");
    const Advice* a = find(l, "idle");
    assert_non_null(a);
    assert_ptr_equal(a, &l->items[0]);
    assert_string_equal(a->basis, "wall time");
    assert_float_equal(a->share, 0.8, 1e-9);
    assert_float_equal(a->ceiling, 5.0, 1e-9);
    assert_non_null(strstr(a->evidence, "largest gap 800.0 us"));
    AdviceList_delete(l);
}

/* Ten 5 us kernels and one 20 us kernel, back to back: 10 of 11 dispatches are short
 * (91%) and take 50 of the 70 us wall = 71.4% of the wall -> launch-bound. The same kernels
 * 1 ms apart: still 71.4% of kernel time, but 50 us of a 10.07 ms wall (0.5%): the GPU idles
 * 99% of the time, launches cost it nothing much, not launch-bound. */
static void launch_bound(void** state) {
    (void)state;
    char buf[2048] = V1;
    int64_t t = 0;
    for (int i = 0; i < 10; i++) {
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%d,\"tiny_add_kernel\",0,%lld,%lld\n",
                 i, (long long)t, (long long)(t + 5000));
        t += 5000;
    }
    snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
             "10,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,%lld,%lld\n", (long long)t,
             (long long)(t + 20000));
    AdviceList* l = advise("results.csv", buf);
    const Advice* a = find(l, "launch");
    assert_non_null(a);
    assert_float_equal(a->share, 50.0 / 70.0, 1e-9);
    assert_string_equal(a->target, "tiny_add_kernel");
    assert_true(a->across);
    assert_true(l->launch_bound);
    assert_float_equal(l->launch_cost_pct, 100.0 * 50.0 / 70.0, 1e-9);
    AdviceList_delete(l);
    snprintf(buf, sizeof(buf), V1);
    t = 0;
    for (int i = 0; i < 10; i++) {
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%d,\"tiny_add_kernel\",0,%lld,%lld\n",
                 i, (long long)t, (long long)(t + 5000));
        t += 1005000;
    }
    snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
             "10,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,%lld,%lld\n", (long long)t,
             (long long)(t + 20000));
    l = advise("results.csv", buf);
    assert_null(find(l, "launch"));
    assert_false(l->launch_bound);
    assert_float_equal(l->short_wall_pct, 100.0 * 50000.0 / (double)(t + 20000), 1e-9);
    AdviceList_delete(l);
    /* the verdict is by time share: many short dispatches holding 6% of the time are not */
    assert_false(Timeline_isLaunchBound(90.0, 6.0));
    assert_true(Timeline_isLaunchBound(90.0, 71.4));
    assert_false(Timeline_isLaunchBound(20.0, 71.4));
}

/* Times in us, a 2000 us wall: direct_copy 0-300, CatArrayBatchedCopy 300-600, GEMM
 * 1600-2000; idle 1000 (0.5 of the wall), copy 0.3, GEMM 0.2. Each copy kernel is 30% of
 * kernel time and half of copy: nested under copy (0.15 of the wall each), never rival items.
 * Ranks 1 idle, 2 copy (its kernels unranked), 3 GEMM; 1 and 2 together: 1/(1 - 0.8) = 5x. */
static void nested_kernel(void** state) {
    (void)state;
    AdviceList* l = advise("results.csv", V1 "0,\"direct_copy_kernel_cuda\",0,0,300000\n"
                                             "1,\"CatArrayBatchedCopy\",0,300000,600000\n"
                                             "2,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,1600000,2000000\n");
    assert_int_equal(l->n, 5);
    assert_string_equal(l->items[0].rule, "idle");
    assert_float_equal(l->items[0].share, 0.5, 1e-9);
    assert_string_equal(l->items[1].target, "copy");
    assert_float_equal(l->items[1].share, 0.3, 1e-9);
    assert_float_equal(l->items[1].kernel_share, 0.6, 1e-9);
    for (int i = 2; i < 4; i++) {
        assert_true(l->items[i].nested);
        assert_string_equal(l->items[i].group, "copy");
        assert_float_equal(l->items[i].share, 0.15, 1e-9);
        assert_int_equal(Advice_rank(l, i), 0);
    }
    assert_string_equal(l->items[4].target, "gemm");
    assert_int_equal(Advice_rank(l, 0), 1);
    assert_int_equal(Advice_rank(l, 1), 2);
    assert_int_equal(Advice_rank(l, 4), 3);
    assert_int_equal(l->together_a, 0);
    assert_int_equal(l->together_b, 1);
    assert_float_equal(l->together, 5.0, 1e-9);
    char t[256];
    Advice_togetherText(l, t, sizeof(t));
    assert_string_equal(t, "1 and 2 together: at most 5.00x of the run's wall time");
    AdviceList_delete(l);
}

/* A PMC run: the ranking stands by share, ceilings are not claimed. */
static void pmc_run(void** state) {
    (void)state;
    AdviceList* l = advise("results.csv",
                           "\"Index\",\"KernelName\",\"gpu-id\",\"BeginNs\",\"EndNs\",\"SQ_WAVES\"\n"
                           "0,\"direct_copy_kernel_cuda\",0,0,600000,8\n"
                           "1,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",0,600000,1000000,12\n");
    assert_true(warned(l, "PMC"));
    assert_true(l->n >= 2);
    for (int i = 0; i < l->n; i++) {
        assert_true(isnan(l->items[i].ceiling));
    }
    assert_string_equal(l->items[0].target, "copy"); /* 0.6 before 0.4 */
    char c[32];
    Advice_ceilingText(&l->items[0], c, sizeof(c));
    assert_string_equal(c, "not claimed");
    AdviceList_delete(l);
}

/* Stats only: categories over kernel time, no wall basis, so no idle or launch lines. */
static void stats_only(void** state) {
    (void)state;
    AdviceList* l = advise("a.stats.csv",
                           "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                           "\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",2,300,150,30\n"
                           "\"direct_copy_kernel_cuda\",4,700,175,70\n");
    assert_true(warned(l, "no wall basis"));
    assert_null(find(l, "idle"));
    assert_null(find(l, "launch"));
    assert_string_equal(l->items[0].target, "copy");
    assert_float_equal(l->items[0].ceiling, 1.0 / 0.3, 1e-9);
    ResultSet* rs = Advice_toResultSet(l);
    assert_int_equal(rs->nrows, l->n);
    assert_string_equal(ResultSet_cellc(rs, 0, ResultSet_columnIndex(rs, "rule"))->s, "category");
    ResultSet_delete(rs);
    AdviceList_delete(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(copy_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(gemm_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(idle_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(launch_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(nested_kernel, setup, teardown),
        cmocka_unit_test_setup_teardown(pmc_run, setup, teardown),
        cmocka_unit_test_setup_teardown(stats_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
