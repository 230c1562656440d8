/* test_db_cache.c - issue 11's shortcuts must never give a stale or different answer:
 * TraceDb cache slots go stale on any row change, DDL in main or temp (a region of interest)
 * and a scope change; a cached timeline is shared, not copied, and outlives its callers;
 * the kernel summary from the per-file sums (dispatch_agg) equals the one grouped from every
 * dispatch row, over several files, and after a scope change; so do the runs' clock origins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/kernel_query.h"
#include "dcutop/query.h"
#include "dcutop/runs.h"
#include "dcutop/shortname.h"
#include "dcutop/timeline.h"
#include "../../src/model/names/shortname_internal.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

/* Two runs (two pid-tagged rocprofv3 kernel traces), kernels shared between them. */
static TraceDb* two_runs(void) {
    static const char head[] = "Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
                               "Start_Timestamp,End_Timestamp\n";
    char a[1024], b[1024];
    snprintf(a, sizeof(a),
             "%sKERNEL_DISPATCH,1,1,1,gemm_a,1,1000,1500\nKERNEL_DISPATCH,1,1,2,copy_b,2,1600,1700\n"
             "KERNEL_DISPATCH,1,1,1,gemm_a,3,1800,2500\nKERNEL_DISPATCH,1,1,3,norm_c,4,2600,2633\n",
             head);
    snprintf(b, sizeof(b),
             "%sKERNEL_DISPATCH,1,1,1,gemm_a,1,10,410\nKERNEL_DISPATCH,1,1,2,copy_b,2,500,777\n"
             "KERNEL_DISPATCH,1,1,2,copy_b,3,800,1000\n",
             head);
    free(TestUtil_writeFile(dir, "100_kernel_trace.csv", a, strlen(a)));
    free(TestUtil_writeFile(dir, "200_kernel_trace.csv", b, strlen(b)));
    DcuStatus s;
    TraceDb* db = TestUtil_load(dir, &s);
    assert_int_equal(s, DCU_OK);
    return db;
}

/* rows of A not in B, both ways (0 = the same set) */
static int64_t differ(TraceDb* db, const char* a, const char* b) {
    char sql[512];
    snprintf(sql, sizeof(sql),
             "SELECT (SELECT count(*) FROM (SELECT * FROM %s EXCEPT SELECT * FROM %s))"
             " + (SELECT count(*) FROM (SELECT * FROM %s EXCEPT SELECT * FROM %s))",
             a, b, b, a);
    return TestUtil_int(db, sql);
}

static void slots_go_stale_on_any_change(void** state) {
    (void)state;
    TraceDb* db = two_runs();
    int* v = malloc(sizeof(int));
    TraceDbState st = TraceDb_state(db);
    TraceDb_setCached(db, TRACEDB_CACHE_TOTALS, st, v, free);
    assert_ptr_equal(TraceDb_cached(db, TRACEDB_CACHE_TOTALS, TraceDb_state(db)), v);
    TraceDb_exec(db, "UPDATE kernel SET category = category", NULL); /* a row write */
    assert_null(TraceDb_cached(db, TRACEDB_CACHE_TOTALS, TraceDb_state(db)));
    TraceDb_setCached(db, TRACEDB_CACHE_TOTALS, TraceDb_state(db), malloc(1), free);
    TraceDb_exec(db, "CREATE TEMP VIEW x AS SELECT 1", NULL); /* temp DDL (ROI) */
    assert_null(TraceDb_cached(db, TRACEDB_CACHE_TOTALS, TraceDb_state(db)));
    TraceDb_setCached(db, TRACEDB_CACHE_TOTALS, TraceDb_state(db), malloc(1), free);
    TraceDb_exec(db, "CREATE TABLE y(a)", NULL); /* main DDL */
    assert_null(TraceDb_cached(db, TRACEDB_CACHE_TOTALS, TraceDb_state(db)));
    TraceDb_delete(db); /* frees what the slot holds (ASan and valgrind check) */
}

static void timeline_is_shared_until_the_data_changes(void** state) {
    (void)state;
    TraceDb* db = two_runs();
    Timeline *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(Timeline_new(db, &a, NULL), DCU_OK);
    assert_int_equal(Timeline_new(db, &b, NULL), DCU_OK);
    assert_ptr_equal(a, b);
    int64_t span = Timeline_summary(a)->span_ns;
    Timeline_delete(a);
    assert_int_equal(Timeline_summary(b)->span_ns, span); /* still valid for b */
    int64_t first = TestUtil_int(db, "SELECT min(id) FROM run");
    assert_int_equal(Runs_setScope(db, &first, 1, NULL), DCU_OK);
    assert_int_equal(Timeline_new(db, &c, NULL), DCU_OK);
    assert_ptr_not_equal(c, b); /* a new scope, a new timeline */
    assert_int_not_equal(Timeline_summary(c)->span_ns, span);
    Timeline_delete(b);
    Timeline_delete(c);
    TraceDb_delete(db);
}

static void totals_follow_the_scope(void** state) {
    (void)state;
    TraceDb* db = two_runs();
    Totals all, one, again;
    assert_int_equal(Query_totals(db, &all, NULL), DCU_OK);
    assert_int_equal(all.kernel_ns, 500 + 100 + 700 + 33 + 400 + 277 + 200);
    int64_t first = TestUtil_int(db, "SELECT min(id) FROM run");
    assert_int_equal(Runs_setScope(db, &first, 1, NULL), DCU_OK);
    assert_int_equal(Query_totals(db, &one, NULL), DCU_OK);
    assert_true(one.kernel_ns == 500 + 100 + 700 + 33 || one.kernel_ns == 400 + 277 + 200);
    int64_t every = RUNS_ALL; /* every run again (NULL would be the default scope) */
    assert_int_equal(Runs_setScope(db, &every, 1, NULL), DCU_OK);
    assert_int_equal(Query_totals(db, &again, NULL), DCU_OK);
    assert_int_equal(again.kernel_ns, all.kernel_ns);
    TraceDb_delete(db);
}

static void summary_from_sums_equals_summary_from_rows(void** state) {
    (void)state;
    TraceDb* db = two_runs();
    assert_int_equal(differ(db, "kernel_summary_v", "kernel_summary_agg_v"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT calls FROM kernel_summary s JOIN kernel k"
                                      " ON k.id = s.kernel_id WHERE k.name = 'copy_b'"),
                     3);
    assert_int_equal(TestUtil_int(db, "SELECT min_ns * 10000 + max_ns FROM kernel_summary s"
                                      " JOIN kernel k ON k.id = s.kernel_id"
                                      " WHERE k.name = 'copy_b'"),
                     100 * 10000 + 277);
    int64_t first = TestUtil_int(db, "SELECT min(id) FROM run");
    assert_int_equal(Runs_setScope(db, &first, 1, NULL), DCU_OK);
    assert_int_equal(differ(db, "kernel_summary_v", "kernel_summary_agg_v"), 0);
    /* each run's clock origin (the dispatch list's Start column) from the kept minimum */
    assert_int_equal(differ(db,
                            "(SELECT f.run_id, min(d.start_ns) FROM dispatch d JOIN source_file f"
                            " ON f.id = d.file_id GROUP BY f.run_id)",
                            "(SELECT f.run_id, min(a.min_start) FROM dispatch_agg a JOIN"
                            " source_file f ON f.id = a.file_id GROUP BY f.run_id)"),
                     0);
    assert_int_equal(TestUtil_int(db, "SELECT count(DISTINCT min_start) FROM dispatch_agg"
                                      " WHERE min_start IN (10, 1000)"),
                     2);
    TraceDb_delete(db);
}

/* Loading the same runs again (an A/B session reloads) keeps the short-name registry's
 * size: each load appended the same keys to the name's union again (found by the fuzzers:
 * 2 GB after 17,000 loads). The union after 2 loads and after 60 is the same. */
static void reloading_does_not_grow_the_name_registry(void** state) {
    (void)state;
    static const char head[] = "Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
                               "Start_Timestamp,End_Timestamp\n";
    static const char name[] = "void gemm<float, 128, true>(int)";
    char a[1024], b[1024];
    snprintf(a, sizeof(a),
             "%sKERNEL_DISPATCH,1,1,1,%s,1,1000,1500\n"
             "KERNEL_DISPATCH,1,1,2,void gemm<float, 64, true>(int),2,1600,1700\n", head, name);
    snprintf(b, sizeof(b),
             "%sKERNEL_DISPATCH,1,1,1,%s,1,10,410\n"
             "KERNEL_DISPATCH,1,1,2,void gemm<float, 128, false>(int),2,500,777\n", head, name);
    char* da = TestUtil_tempDir();
    char* db_dir = TestUtil_tempDir();
    free(TestUtil_writeFile(da, "1_kernel_trace.csv", a, strlen(a)));
    free(TestUtil_writeFile(db_dir, "2_kernel_trace.csv", b, strlen(b)));
    size_t after2 = 0;
    const char *full, *shrt, *keys = NULL;
    for (int i = 0; i < 60; i++) {
        DcuStatus s;
        TraceDb_delete(TestUtil_load(i % 2 ? db_dir : da, &s));
        assert_int_equal(s, DCU_OK);
        assert_true(ShortName_lookup(name, &full, &shrt, &keys));
        if (i == 1) {
            after2 = strlen(keys);
            assert_non_null(strchr(keys, ' ')); /* both runs' keys: "s-e s-e" */
        }
    }
    assert_int_equal(strlen(keys), after2);
    ShortName_forget();
    TestUtil_rmTree(da);
    TestUtil_rmTree(db_dir);
    free(da);
    free(db_dir);
}

static int stops, stop_after;
static int stop_late(void) {
    return ++stops >= stop_after;
}

/* The drill-down index built in idle time and stopped by a key: the database stays sound
 * (with the load's journal_mode OFF the rollback left "malformed database schema"), the
 * index is built later, and what was cached before it survives it. */
static void a_stopped_index_build_leaves_the_database_sound(void** state) {
    (void)state;
    static const char head[] = "Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
                               "Start_Timestamp,End_Timestamp\n";
    char* text = NULL;
    size_t cap = 0;
    FILE* m = open_memstream(&text, &cap);
    fputs(head, m);
    for (int i = 0; i < 100000; i++) { /* enough SQLite steps to be stopped mid-build */
        fprintf(m, "KERNEL_DISPATCH,1,1,%d,k%d,%d,%d,%d\n", i, i % 7, i, 10 * i, 10 * i + 5);
    }
    fclose(m);
    free(TestUtil_writeFile(dir, "1_kernel_trace.csv", text, strlen(text)));
    free(text);
    static const int after[] = {1, 3, 8, 20, 60};
    for (size_t k = 0; k < sizeof(after) / sizeof(after[0]); k++) { /* every phase */
        stop_after = after[k];
        DcuStatus s;
        TraceDb* db = TestUtil_load(dir, &s);
        assert_int_equal(s, DCU_OK);
        Timeline* t = NULL;
        assert_int_equal(Timeline_new(db, &t, NULL), DCU_OK);
        stops = 0;
        int built = KernelQuery_indexWhenIdle(db, stop_late);
        assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE kernel_id > 0"),
                         100000);
        assert_int_equal(KernelQuery_indexWhenIdle(db, NULL), 1);
        assert_int_equal(KernelQuery_ensureIndex(db, NULL), DCU_OK);
        char* ok = TestUtil_text(db, "PRAGMA integrity_check");
        assert_string_equal(ok, "ok");
        free(ok);
        /* the dispatch store's kernel index against a full scan (+ hides the column) */
        assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE kernel_id = 3"),
                         TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE +kernel_id = 3"));
        Timeline* again = NULL;
        assert_int_equal(Timeline_new(db, &again, NULL), DCU_OK);
        assert_ptr_equal(again, t); /* the index changed no answer: the cache was kept */
        Timeline_delete(t);
        Timeline_delete(again);
        TraceDb_delete(db);
        if (built) {
            break; /* stop_after is past the whole build */
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(slots_go_stale_on_any_change, setup, teardown),
        cmocka_unit_test_setup_teardown(timeline_is_shared_until_the_data_changes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(totals_follow_the_scope, setup, teardown),
        cmocka_unit_test_setup_teardown(summary_from_sums_equals_summary_from_rows, setup,
                                        teardown),
        cmocka_unit_test(reloading_does_not_grow_the_name_registry),
        cmocka_unit_test_setup_teardown(a_stopped_index_build_leaves_the_database_sound, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
