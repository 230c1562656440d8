/* test_variab.c - variability inside one run (variab.h) on hand-built per-dispatch traces.
 * Every expected golden / variability / outlier count is worked out by hand next to the rows
 * that produce it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "dcutop/canvas.h"
#include "dcutop/doc_view.h"
#include "dcutop/kernel_query.h"
#include "dcutop/parallel.h"
#include "dcutop/query.h"
#include "dcutop/variab.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

#define V2_HDR                                                                              \
    "Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,"       \
    "Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,Kernel_Name,Start_Timestamp," \
    "End_Timestamp,Correlation_ID\n\n"
#define STATS_HDR "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"

#define K_A "Cijk_Ailk_Bljk_variab_A" /* a GEMM: category gemm */
#define K_B "void single_kernel(int*)"
#define K_C "void stats_only_kernel(int*)"
#define K_D "void few_kernel(int*)"
#define K_E "void two_runs_kernel(int*)"
#define K_T "void tie_kernel(int*)"

/* A rocprofv2 kernel trace being written: one row per dispatch, back to back in time. */
typedef struct Trace_ {
    char* text;
    size_t len, cap;
    int idx;
    int64_t at;
} Trace;

static void row(Trace* t, const char* name, int64_t dur) {
    char line[512];
    int n = snprintf(line, sizeof(line),
                     "%d,1,0,4242,4243,1024,256,0,0,32,0,16,64,\"%s\",%lld,%lld,%d\n", t->idx,
                     name, (long long)t->at, (long long)(t->at + dur), t->idx + 100);
    xgrow((void**)&t->text, &t->cap, t->len + (size_t)n + 1);
    memcpy(t->text + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
    t->idx++;
    t->at += dur + 1000;
}

/* A new trace: the header, then rows from time at0 */
static void start(Trace* t, int64_t at0) {
    memset(t, 0, sizeof(*t));
    t->cap = sizeof(V2_HDR) + 4096;
    t->text = xmalloc(t->cap);
    memcpy(t->text, V2_HDR, sizeof(V2_HDR));
    t->len = sizeof(V2_HDR) - 1;
    t->idx = 1;
    t->at = at0;
}

static void write_trace(Trace* t, const char* dir, const char* name) {
    free(TestUtil_writeFile(dir, name, t->text, t->len));
    free(t->text);
    memset(t, 0, sizeof(*t));
}

static void mksub(const char* dir, const char* sub) {
    char* p = xasprintf("%s/%s", dir, sub);
    assert_int_equal(mkdir(p, 0755), 0);
    free(p);
}

static TraceDb* db;
static char* dir;

static int setup(void** state) {
    (void)state;
    dir = TestUtil_tempDir();
    mksub(dir, "run1");
    mksub(dir, "run2");
    mksub(dir, "stats");
    Trace t;
    start(&t, 1000);
    /* A: 42 dispatches, 10 ns, 100..139 ns and 300 ns. n = 42, mean = 121.19,
     * population sd = 34.43: z(10) = -3.23 and z(300) = +5.19 are outliers, every other
     * |z| < 0.62. Golden = 100 (not 10, the plain minimum).
     * Variability = (0 + 1 + ... + 39) + (300 - 100) = 780 + 200 = 980; the fast outlier
     * adds nothing (it is below golden). */
    row(&t, K_A, 10);
    for (int d = 100; d < 140; d++) {
        row(&t, K_A, d);
    }
    row(&t, K_A, 300);
    /* B: one dispatch: golden 500, variability 0 */
    row(&t, K_B, 500);
    /* D: 5 dispatches (n <= 10: no |z| can exceed 3): golden 10,
     * variability 0 + 2 + 5 + 1 + 20 = 28 */
    row(&t, K_D, 10);
    row(&t, K_D, 12);
    row(&t, K_D, 15);
    row(&t, K_D, 11);
    row(&t, K_D, 30);
    /* E in run 1: golden 200, variability 10 */
    row(&t, K_E, 200);
    row(&t, K_E, 210);
    /* T: nine 110 ns and one 100 ns: mean 109, sd = sqrt((9*1 + 81) / 10) = 3,
     * z(100) = -3 exactly: not an outlier (|z| > 3 is), so golden = 100 and
     * variability = 9 * 10 = 90 (with 100 dropped it would be 110 and 0) */
    for (int i = 0; i < 9; i++) {
        row(&t, K_T, 110);
    }
    row(&t, K_T, 100);
    write_trace(&t, dir, "run1/results_4242.csv");

    /* E in run 2, slower: golden 300, variability 30. Per run, E's variability is
     * 10 + 30 = 40; one golden over both runs (200) would make it 0+10+100+130 = 240. */
    Trace u;
    start(&u, 1000);
    row(&u, K_E, 300);
    row(&u, K_E, 330);
    write_trace(&u, dir, "run2/results_4343.csv");

    /* C: aggregated stats only (a folder of its own, so nothing supersedes it) */
    char stats[512];
    snprintf(stats, sizeof(stats), STATS_HDR "\"%s\",4,4000,1000,100.0\n", K_C);
    free(TestUtil_writeFile(dir, "stats/results.stats.csv", stats, strlen(stats)));

    DcuStatus s;
    db = TestUtil_load(dir, &s);
    return s == DCU_OK ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    TraceDb_delete(db);
    TestUtil_rmTree(dir);
    free(dir);
    return 0;
}

/* kernel_summary's value of column col for kernel name, or -1 when NULL */
static int64_t ks(TraceDb* d, const char* col, const char* name) {
    char* sql = xasprintf("SELECT coalesce(s.%s, -1) FROM kernel_summary s JOIN kernel k"
                          " ON k.id = s.kernel_id WHERE k.name = '%s'",
                          col, name);
    int64_t v = TestUtil_int(d, sql);
    free(sql);
    return v;
}

static void outliers_never_become_the_golden(void** state) {
    (void)state;
    assert_int_equal(ks(db, "calls", K_A), 42);
    assert_int_equal(ks(db, "min_ns", K_A), 10);
    assert_int_equal(ks(db, "golden_ns", K_A), 100);
    assert_int_equal(ks(db, "var_ns", K_A), 980);
    assert_int_equal(ks(db, "outliers", K_A), 2);
}

static void small_and_single_dispatch_kernels(void** state) {
    (void)state;
    assert_int_equal(ks(db, "golden_ns", K_B), 500);
    assert_int_equal(ks(db, "var_ns", K_B), 0);
    assert_int_equal(ks(db, "outliers", K_B), 0);
    assert_int_equal(ks(db, "golden_ns", K_D), 10);
    assert_int_equal(ks(db, "var_ns", K_D), 28);
    assert_int_equal(ks(db, "outliers", K_D), 0);
}

static void z_of_exactly_three_is_not_an_outlier(void** state) {
    (void)state;
    assert_int_equal(ks(db, "golden_ns", K_T), 100);
    assert_int_equal(ks(db, "var_ns", K_T), 90);
    assert_int_equal(ks(db, "outliers", K_T), 0);
}

static void stats_only_kernel_is_null_not_zero(void** state) {
    (void)state;
    assert_int_equal(ks(db, "calls", K_C), 4);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel_summary s JOIN kernel k"
                                      " ON k.id = s.kernel_id WHERE k.name = '" K_C "'"
                                      " AND golden_ns IS NULL AND var_ns IS NULL"
                                      " AND outliers IS NULL"),
                     1);
}

static void each_run_has_its_own_golden(void** state) {
    (void)state;
    assert_int_equal(ks(db, "var_ns", K_E), 40);
    assert_int_equal(ks(db, "golden_ns", K_E), 200); /* the shortest of the runs' goldens */
    assert_int_equal(ks(db, "outliers", K_E), 0);
}

static const RsCell* cell(const ResultSet* rs, const char* key, const char* name,
                          const char* name_key) {
    int nc = ResultSet_columnIndex(rs, name_key);
    int c = ResultSet_columnIndex(rs, key);
    assert_true(nc >= 0 && c >= 0);
    for (int r = 0; r < rs->nrows; r++) {
        const char* s = ResultSet_cellc(rs, r, nc)->s;
        if (s && strcmp(s, name) == 0) {
            return ResultSet_cellc(rs, r, c);
        }
    }
    fail_msg("no row %s", name);
    return NULL;
}

static void views_and_totals_carry_it(void** state) {
    (void)state;
    DcuError err;
    ResultSet* rs = NULL;
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, NULL, &rs, &err), DCU_OK);
    assert_int_equal(cell(rs, "var_ns", K_A, "name")->i, 980);
    assert_int_equal(cell(rs, "golden_ns", K_A, "name")->i, 100);
    assert_int_equal(cell(rs, "outliers", K_A, "name")->i, 2);
    assert_int_equal(cell(rs, "var_ns", K_B, "name")->i, 0);
    assert_false(cell(rs, "var_ns", K_B, "name")->null);
    assert_true(cell(rs, "var_ns", K_C, "name")->null);
    assert_true(cell(rs, "golden_ns", K_C, "name")->null);
    /* sortable: largest variability first, n/a last */
    assert_int_equal(Query_sort(rs, "var_ns", &err), DCU_OK);
    assert_string_equal(ResultSet_cellc(rs, 0, ResultSet_columnIndex(rs, "name"))->s, K_A);
    assert_string_equal(ResultSet_cellc(rs, rs->nrows - 1, ResultSet_columnIndex(rs, "name"))->s,
                        K_C);
    ResultSet_delete(rs);

    /* categories: gemm holds A alone; other holds B, D, E, T (0 + 28 + 40 + 90) and C (n/a) */
    assert_int_equal(Query_view(db, VIEW_CATEGORIES, NULL, &rs, &err), DCU_OK);
    assert_int_equal(cell(rs, "var_ns", "gemm", "category")->i, 980);
    assert_int_equal(cell(rs, "var_ns", "other", "category")->i, 158);
    assert_int_equal(cell(rs, "var_ns", "GEMM", "category")->i, 980);
    assert_int_equal(cell(rs, "var_ns", "non-GEMM", "category")->i, 158);
    ResultSet_delete(rs);

    Totals t;
    assert_int_equal(Query_totals(db, &t, &err), DCU_OK);
    assert_int_equal(t.var_ns, 980 + 158);
    assert_int_equal(t.var_kernels, 5);
    assert_int_equal(t.outliers, 2);
    assert_int_equal(t.var_base_ns, t.kernel_ns - 4000); /* all but the stats-only kernel */
}

static void per_run_figures(void** state) {
    (void)state;
    DcuError err;
    ResultSet* rs = NULL;
    assert_int_equal(Variab_runs(db, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 2); /* the stats file is no run with dispatches */
    /* run 1: A, B, D, E, T: 42 + 1 + 5 + 2 + 10 dispatches, 980 + 0 + 28 + 10 + 90 above golden
     * out of 5090 + 500 + 78 + 410 + 1090 ns */
    assert_string_equal(cell(rs, "file", "run1/results_4242.csv", "file")->s,
                        "run1/results_4242.csv");
    assert_int_equal(cell(rs, "kernels", "run1/results_4242.csv", "file")->i, 5);
    assert_int_equal(cell(rs, "dispatches", "run1/results_4242.csv", "file")->i, 60);
    assert_int_equal(cell(rs, "kernel_ns", "run1/results_4242.csv", "file")->i, 7168);
    assert_int_equal(cell(rs, "var_ns", "run1/results_4242.csv", "file")->i, 1108);
    assert_int_equal(cell(rs, "outliers", "run1/results_4242.csv", "file")->i, 2);
    /* run 2: E alone, 300 + 330 ns, 30 above its golden */
    assert_int_equal(cell(rs, "kernels", "run2/results_4343.csv", "file")->i, 1);
    assert_int_equal(cell(rs, "kernel_ns", "run2/results_4343.csv", "file")->i, 630);
    assert_int_equal(cell(rs, "var_ns", "run2/results_4343.csv", "file")->i, 30);
    assert_float_equal(cell(rs, "var_pct", "run2/results_4343.csv", "file")->d, 100.0 * 30 / 630,
                       1e-9);
    ResultSet_delete(rs);
}

static void kernel_detail_carries_it(void** state) {
    (void)state;
    DcuError err;
    KernelDetail d;
    assert_int_equal(KernelQuery_detail(db, K_A, &d, &err), DCU_OK);
    assert_true(d.has_var);
    assert_int_equal(d.golden_ns, 100);
    assert_int_equal(d.var_ns, 980);
    assert_int_equal(d.outliers, 2);
    KernelDetail_done(&d);
    assert_int_equal(KernelQuery_detail(db, K_C, &d, &err), DCU_OK);
    assert_false(d.has_var);
    KernelDetail_done(&d);
}

/* A Doc as text, 100 columns wide (owned) */
static char* doc_text(Doc* d) {
    Canvas* c = Canvas_new(100, 60);
    Canvas_clear(c, STYLE_DEFAULT);
    DocView_render(d, 0, c, 0, 60);
    char* buf = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    Canvas_dump(c, f);
    fclose(f);
    Canvas_delete(c);
    Doc_delete(d);
    return buf;
}

static void kernel_detail_and_summary_screens_show_it(void** state) {
    (void)state;
    DcuError err;
    KernelDetail k;
    assert_int_equal(KernelQuery_detail(db, K_A, &k, &err), DCU_OK);
    char* t = doc_text(KernelView_build(&k, NULL, 100));
    KernelDetail_done(&k);
    assert_non_null(strstr(t, "Golden       100 ns  fastest dispatch that is not an outlier"));
    /* 980 of A's 5090 ns */
    assert_non_null(strstr(t, "Variability  980 ns  (19.25% of its time)  above golden; 2 outliers"));
    free(t);
    assert_int_equal(KernelQuery_detail(db, K_C, &k, &err), DCU_OK);
    t = doc_text(KernelView_build(&k, NULL, 100));
    KernelDetail_done(&k);
    assert_null(strstr(t, "Golden"));
    assert_non_null(strstr(t, "Variability  n/a (aggregated stats only"));
    free(t);

    SummaryData sd = {0};
    assert_int_equal(Query_totals(db, &sd.totals, &err), DCU_OK);
    t = doc_text(SummaryView_build(&sd, 100));
    assert_non_null(strstr(t, "Variability    1.1 us above golden"));
    assert_non_null(strstr(t, ", 2 outliers (|z| > 3)"));
    free(t);
    sd.totals.var_kernels = 0; /* as with stats only */
    t = doc_text(SummaryView_build(&sd, 100));
    assert_non_null(strstr(t, "Variability    n/a (aggregated stats only"));
    free(t);
}

/* Variab_compute reads used_file: a file taken out of use (as a scope change or supersession
 * does) no longer counts, and a kernel left without dispatches goes back to NULL. */
static void follows_the_files_in_use(void** state) {
    (void)state;
    DcuError err;
    assert_int_equal(TraceDb_exec(db,
                                  "UPDATE source_layer SET used = 0 WHERE file_id IN"
                                  " (SELECT id FROM source_file WHERE name LIKE 'run2/%');"
                                  "DELETE FROM kernel_summary;"
                                  "INSERT INTO kernel_summary(kernel_id, calls, total_ns, min_ns,"
                                  " max_ns, sumsq, has_sq, per_dispatch)"
                                  " SELECT * FROM kernel_summary_v;",
                                  &err),
                     DCU_OK);
    assert_int_equal(Variab_compute(db, &err), DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel_var_run WHERE file_id IN"
                                      " (SELECT id FROM source_file WHERE name LIKE 'run2/%')"),
                     0);
    assert_int_equal(ks(db, "var_ns", K_E), 10);
    assert_int_equal(ks(db, "golden_ns", K_E), 200);
    assert_int_equal(ks(db, "var_ns", K_A), 980);
    assert_int_equal(TraceDb_exec(db,
                                  "UPDATE source_layer SET used = 0 WHERE file_id IN"
                                  " (SELECT id FROM source_file WHERE name LIKE 'run1/%')",
                                  &err),
                     DCU_OK);
    assert_int_equal(Variab_compute(db, &err), DCU_OK);
    assert_int_equal(ks(db, "var_ns", K_A), -1);
    assert_int_equal(ks(db, "golden_ns", K_E), -1);
    assert_int_equal(ks(db, "outliers", K_A), -1);
    /* back as loaded, for the tests that follow in any order */
    assert_int_equal(TraceDb_exec(db,
                                  "UPDATE source_layer SET used = 1;"
                                  "DELETE FROM kernel_summary;"
                                  "INSERT INTO kernel_summary(kernel_id, calls, total_ns, min_ns,"
                                  " max_ns, sumsq, has_sq, per_dispatch)"
                                  " SELECT * FROM kernel_summary_v;",
                                  &err),
                     DCU_OK);
    assert_int_equal(Variab_compute(db, &err), DCU_OK);
    assert_int_equal(ks(db, "var_ns", K_E), 40);
}

/* Durations near the loader's ceiling (2^53 ns: larger ones are rejected at load as absurd)
 * must still give exact figures, not garbage from cancellation in the z test. */
static void huge_durations_stay_right(void** state) {
    (void)state;
    char* d2 = TestUtil_tempDir();
    Trace t;
    start(&t, 0);
    const int64_t e18 = 9000000000000000LL; /* just under 2^53 */
    row(&t, "void huge(int*)", e18 + 100);
    row(&t, "void huge(int*)", e18);
    row(&t, "void huge(int*)", e18 + 40);
    write_trace(&t, d2, "results_1.csv");
    DcuStatus s;
    TraceDb* h = TestUtil_load(d2, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(ks(h, "golden_ns", "void huge(int*)"), e18);
    assert_int_equal(ks(h, "var_ns", "void huge(int*)"), 140);
    assert_int_equal(ks(h, "outliers", "void huge(int*)"), 0);
    TraceDb_delete(h);
    TestUtil_rmTree(d2);
    free(d2);
}

/* The passes over the store's chunks in parts (parallel.h) give the one pass's figures:
 * 10,000 dispatches in 3 chunks, durations big enough that the kernel's sums go wide (the
 * long double sums, which are summed again in one pass) and a small kernel beside it. */
static void parts_give_one_pass_figures(void** state) {
    (void)state;
    char* d2 = TestUtil_tempDir();
    Trace t;
    start(&t, 0);
    const int64_t e15 = 500000000000000LL; /* 10,000 of them stay below INT64_MAX ns */
    for (int i = 0; i < 10000; i++) {
        row(&t, "void wide(int*)", e15 + (int64_t)((i * 7919) % 1000) + (i % 997 == 0 ? 90000 : 0));
        if (i % 3 == 0) {
            row(&t, "void narrow(int*)", 1000 + (i * 31) % 200 + (i % 1009 == 0 ? 50000 : 0));
        }
    }
    write_trace(&t, d2, "results_1.csv");
    static const char* const cols[] = {"golden_ns", "var_ns", "outliers"};
    static const char* const names[] = {"void wide(int*)", "void narrow(int*)"};
    int64_t want[2][3];
    for (int run = 0; run < 3; run++) {
        Parallel_setThreads(run == 0 ? 1 : run == 1 ? 2 : 3);
        setenv("DCUTOP_PART_MIN", run == 0 ? "" : "1", 1);
        DcuStatus s;
        TraceDb* h = TestUtil_load(d2, &s);
        assert_int_equal(s, DCU_OK);
        for (int k = 0; k < 2; k++) {
            for (int c = 0; c < 3; c++) {
                int64_t v = ks(h, cols[c], names[k]);
                if (run == 0) {
                    want[k][c] = v;
                } else {
                    assert_int_equal(v, want[k][c]);
                }
            }
        }
        assert_true(want[0][2] > 0 && want[1][2] > 0); /* both have outliers */
        TraceDb_delete(h);
    }
    unsetenv("DCUTOP_PART_MIN");
    Parallel_setThreads(0);
    TestUtil_rmTree(d2);
    free(d2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(outliers_never_become_the_golden),
        cmocka_unit_test(small_and_single_dispatch_kernels),
        cmocka_unit_test(z_of_exactly_three_is_not_an_outlier),
        cmocka_unit_test(stats_only_kernel_is_null_not_zero),
        cmocka_unit_test(each_run_has_its_own_golden),
        cmocka_unit_test(views_and_totals_carry_it),
        cmocka_unit_test(per_run_figures),
        cmocka_unit_test(kernel_detail_carries_it),
        cmocka_unit_test(kernel_detail_and_summary_screens_show_it),
        cmocka_unit_test(follows_the_files_in_use),
        cmocka_unit_test(huge_durations_stay_right),
        cmocka_unit_test(parts_give_one_pass_figures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
