/* test_bounded.c - issue 15's bounded memory must never change an answer: the exact median
 * of values spilled to a temp file equals a sort's; a database bounded far below its data
 * (TraceDb_open with 1 MiB: its pages, sorts and the timeline's gap median all spill) gives
 * the same timeline, kernel summary, variability and rank figures as one in memory; and the
 * per-file rowid spans that let readers take one rank at a time cover every dispatch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/median_spill.h"
#include "dcutop/ranks.h"
#include "dcutop/timeline.h"
#include "dcutop/xalloc.h"
#include "dcutop/dispatch_store.h"
#include "testutil.h"

static uint64_t lcg = 88172645463325252ull;
static int64_t next_value(int64_t range) {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (int64_t)((lcg >> 17) % (uint64_t)range);
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* The median as a full sort gives it, with MedianSpill's rounding. */
static int64_t sorted_median(int64_t* v, int64_t n) {
    qsort(v, (size_t)n, sizeof(int64_t), cmp_i64);
    int64_t hi = v[n / 2], lo = n % 2 ? hi : v[n / 2 - 1];
    return (int64_t)((__int128)lo + ((__int128)hi - lo + 1) / 2);
}

static void spilled_median_equals_a_sort(void** state) {
    (void)state;
    const int64_t sizes[] = {1, 2, 3, 10, 999, 1000, 5001};
    const int64_t limits[] = {1, 7, 100, 4096, INT64_MAX};
    const int64_t ranges[] = {1, 5, 1000, INT64_MAX / 4};
    for (size_t a = 0; a < sizeof(sizes) / sizeof(sizes[0]); a++) {
        for (size_t b = 0; b < sizeof(limits) / sizeof(limits[0]); b++) {
            for (size_t c = 0; c < sizeof(ranges) / sizeof(ranges[0]); c++) {
                int64_t n = sizes[a];
                int64_t* v = xmalloc(sizeof(int64_t) * (size_t)n);
                MedianSpill* m = MedianSpill_new(limits[b]);
                for (int64_t i = 0; i < n; i++) {
                    v[i] = next_value(ranges[c]) - (c == 3 ? ranges[c] / 2 : 0); /* negatives */
                    MedianSpill_add(m, &v[i], 1);
                }
                assert_int_equal(MedianSpill_count(m), n);
                assert_int_equal(MedianSpill_spilled(m), n > limits[b]);
                assert_int_equal(MedianSpill_median(m), sorted_median(v, n));
                MedianSpill_delete(m);
                free(v);
            }
        }
    }
}

static void extremes_and_empty(void** state) {
    (void)state;
    MedianSpill* m = MedianSpill_new(1);
    assert_int_equal(MedianSpill_median(m), 0);
    const int64_t v[] = {INT64_MIN, INT64_MAX, INT64_MAX, INT64_MIN, 0};
    MedianSpill_add(m, v, 5);
    assert_true(MedianSpill_spilled(m));
    assert_int_equal(MedianSpill_median(m), 0);
    MedianSpill_add(m, v + 1, 1); /* six values: the middle two are 0 and INT64_MAX */
    assert_int_equal(MedianSpill_median(m), INT64_MAX / 2 + 1);
    MedianSpill_delete(m);
}

/* Everything a comparison reads of one database, as text. */
static char* figures(TraceDb* db) {
    DcuError err;
    Timeline* tl = NULL;
    assert_int_equal(Timeline_newAllRuns(db, &tl, &err), DCU_OK);
    const TimelineSummary* s = Timeline_summary(tl);
    Ranks* rk = NULL;
    assert_int_equal(Ranks_new(db, &rk, &err), DCU_OK);
    char* verdict = Ranks_verdictText(rk);
    char* sums = TestUtil_text(db, "SELECT group_concat(x, ';') FROM (SELECT kernel_id || ','"
                                   " || calls || ',' || total_ns || ',' || golden_ns || ','"
                                   " || var_ns || ',' || outliers AS x FROM kernel_summary"
                                   " ORDER BY kernel_id)");
    char* out = xasprintf("runs %d dispatches %lld kernel %lld wall %lld busy %lld gaps %lld"
                          " gap_ns %lld p50 %lld max %lld iterations %d\n%s\n%s",
                          s->runs, (long long)s->dispatches, (long long)s->kernel_ns,
                          (long long)s->wall_ns, (long long)s->busy_ns, (long long)s->gaps,
                          (long long)s->gap_ns, (long long)s->gap_p50_ns,
                          (long long)s->gap_max_ns, s->iterations, verdict ? verdict : "-",
                          sums);
    free(sums);
    free(verdict);
    Ranks_delete(rk);
    Timeline_delete(tl);
    return out;
}

/* The job's temp folder comes in *state (TestUtil_tempDir). */
static int with_dir(void** state) {
    *state = TestUtil_tempDir();
    return 0;
}

static int without_dir(void** state) {
    TestUtil_rmTree(*state);
    free(*state);
    return 0;
}

/* Every dispatch row lies in its file's span, and the spans count every row. */
static void assert_spans_cover(TraceDb* db) {
    int64_t rows = TestUtil_int(db, "SELECT count(*) FROM dispatch");
    assert_int_equal(TestUtil_int(db, "SELECT coalesce(sum(n), 0) FROM dispatch_span"), rows);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch d JOIN dispatch_span s"
                                      " ON s.file_id = d.file_id"
                                      " WHERE d.id BETWEEN s.lo_id AND s.hi_id"),
                     rows);
}

static void a_bounded_database_gives_the_same_answers(void** state) {
    const char* dir = *state;
    char* cmd = xasprintf("python3 bench/gen_ranks_job.py '%s/job' 4 20000 >/dev/null && echo 0",
                          dir);
    assert_int_equal(TestUtil_shellInt(cmd), 0);
    free(cmd);
    char* job = xasprintf("%s/job", dir);
    DcuStatus s1, s2;
    TraceDb* mem = TestUtil_loadBounded(job, 0, &s1);
    TraceDb* tiny = TestUtil_loadBounded(job, 1 << 20, &s2);
    assert_int_equal(s1, DCU_OK);
    assert_int_equal(s2, DCU_OK);
    assert_int_equal(TestUtil_int(mem, "SELECT count(*) FROM dispatch"), 80000);
    /* the bounded one really held less than its data: 512 KiB of cache for megabytes, in
     * SQLite's pages and the dispatch store's chunks written to its temp file */
    int64_t spilled = DispatchStore_spilled(TraceDb_dispatchStore(tiny));
    assert_true(spilled > 0);
    assert_true(TestUtil_int(tiny, "SELECT page_count * page_size FROM pragma_page_count,"
                                   " pragma_page_size") +
                    spilled * DISPATCH_STORE_CHUNK * DS_NCOLS * 8 >
                4 * (1 << 20));
    assert_int_equal(TestUtil_int(tiny, "PRAGMA cache_size"), -512);
    assert_spans_cover(mem);
    assert_spans_cover(tiny);
    char* a = figures(mem);
    char* b = figures(tiny);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "runs 4 dispatches 80000"));
    assert_non_null(strstr(a, "rank 0")); /* the generator's straggler */
    free(a);
    free(b);
    TraceDb_delete(mem);
    TraceDb_delete(tiny);
    free(job);
}

static void spans_cover_every_sample(void** state) {
    (void)state;
    const char* samples[] = {"sample-traces/dcu-weather-transformer",
                             "sample-traces/kokkos-rocprof-v1-hiptrace-rocm4",
                             "sample-traces/llamacpp-rocprof-v1-stats",
                             "sample-traces/pytorch-h200-climate-transformer",
                             "sample-traces/rocprofv3-sdk-docs-csv"};
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        TraceDb* db = TestUtil_load(samples[i], NULL);
        assert_spans_cover(db);
        TraceDb_delete(db);
    }
    char* real = xasprintf("%s", TestUtil_real());
    TraceDb* db = TestUtil_load(real, NULL); /* every format at once, in one database */
    assert_true(TestUtil_int(db, "SELECT count(*) FROM dispatch_span") > 10);
    assert_spans_cover(db);
    TraceDb_delete(db);
    free(real);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spilled_median_equals_a_sort),
        cmocka_unit_test(extremes_and_empty),
        cmocka_unit_test_setup_teardown(a_bounded_database_gives_the_same_answers, with_dir,
                                        without_dir),
        cmocka_unit_test(spans_cover_every_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
