/* test_query.c - views over a small hand-made trace: filter, sort, categories, what-if,
 * export. Expected values are computed by hand from the rows written below. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/export.h"
#include "dcutop/query.h"
#include "testutil.h"

/* 4 kernels: GEMM 600 ns, direct_copy 300 ns, softmax 80 ns, unknown 20 ns (total 1000) */
static const char stats[] =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
    "\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1\",3,600,200,60.0\n"
    "\"void at::native::vectorized_elementwise_kernel<4, at::native::direct_copy_kernel_cuda>(int)\",2,300,150,30.0\n"
    "\"void at::native::softmax_warp_forward<float>(float*)\",4,80,20,8.0\n"
    "\"my_mystery_kernel\",1,20,20,2.0\n";

static TraceDb* db;
static char* dir;

static int setup(void** state) {
    (void)state;
    dir = TestUtil_tempDir();
    free(TestUtil_writeFile(dir, "results.stats.csv", stats, sizeof(stats) - 1));
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

static const RsCell* cell(const ResultSet* rs, int r, const char* key) {
    return ResultSet_cellc(rs, r, ResultSet_columnIndex(rs, key));
}

static void hotspots_default_order_and_shares(void** state) {
    (void)state;
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, NULL, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 4);
    assert_int_equal(cell(rs, 0, "total_ns")->i, 600);
    assert_string_equal(cell(rs, 0, "category")->s, "gemm");
    assert_string_equal(cell(rs, 1, "category")->s, "copy");
    assert_string_equal(cell(rs, 3, "category")->s, "other");
    assert_float_equal(cell(rs, 0, "pct")->d, 60.0, 1e-9);
    assert_float_equal(cell(rs, 1, "cum_pct")->d, 90.0, 1e-9);
    assert_float_equal(cell(rs, 0, "ceiling")->d, 2.5, 1e-9);
    ResultSet_delete(rs);
}

static void filter_is_bound_and_negatable(void** state) {
    (void)state;
    ResultSet* rs = NULL;
    DcuError err;
    QueryOpts q = {"copy|softmax", NULL, NULL, 0, NULL, 0, 0};
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 2);
    /* shares stay relative to all device kernel time, not to the filtered rows */
    assert_float_equal(cell(rs, 0, "pct")->d, 30.0, 1e-9);
    ResultSet_delete(rs);
    q.filter = "!copy|softmax";
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 2);
    ResultSet_delete(rs);
    /* SQL text in a filter is only a pattern */
    q.filter = "x'; DROP TABLE kernel; --";
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 0);
    ResultSet_delete(rs);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel"), 4);
    q.filter = "(";
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_ERR_REGEX);
    assert_null(rs);
    assert_non_null(strstr(err.msg, "missing closing parenthesis at offset 1"));
}

static void sort_by_any_column(void** state) {
    (void)state;
    ResultSet* rs = NULL;
    DcuError err;
    QueryOpts q = {NULL, "calls", NULL, 0, NULL, 0, 0};
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_OK);
    assert_int_equal(cell(rs, 0, "calls")->i, 4);
    ResultSet_delete(rs);
    q.sort = "calls:asc";
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_OK);
    assert_int_equal(cell(rs, 0, "calls")->i, 1);
    /* the running share follows the displayed order */
    assert_float_equal(cell(rs, 0, "cum_pct")->d, 2.0, 1e-9);
    ResultSet_delete(rs);
    q.sort = "name";
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_OK);
    assert_string_equal(cell(rs, 0, "short_name")->s, "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1");
    ResultSet_delete(rs);
    q.sort = "nosuch";
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_ERR_USAGE);
    assert_non_null(strstr(err.msg, "total_ns"));
}

static void categories_groups_on_top_and_what_if(void** state) {
    (void)state;
    WhatIf w[2];
    int n;
    DcuError err;
    assert_int_equal(WhatIf_parse("gemm=2,copy=inf", w, 2, &n, &err), DCU_OK);
    QueryOpts q = {NULL, "calls:asc", w, n, NULL, 0, 0};
    ResultSet* rs = NULL;
    assert_int_equal(Query_view(db, VIEW_CATEGORIES, &q, &rs, &err), DCU_OK);
    assert_string_equal(cell(rs, 0, "category")->s, "GEMM");
    assert_string_equal(cell(rs, 1, "category")->s, "non-GEMM");
    assert_int_equal(cell(rs, 1, "total_ns")->i, 400);
    assert_float_equal(cell(rs, 0, "ceiling")->d, 1.0 / 0.4, 1e-9);
    for (int r = 2; r < rs->nrows; r++) {
        if (strcmp(cell(rs, r, "category")->s, "copy") == 0) {
            assert_true(isinf(cell(rs, r, "speedup")->d) == 0);
            assert_float_equal(cell(rs, r, "speedup")->d, 1.0 / 0.7, 1e-9);
        }
    }
    double sp;
    assert_int_equal(Query_projection(db, w, n, &sp, &err), DCU_OK);
    assert_float_equal(sp, 1.0 / (0.1 + 0.6 / 2), 1e-9);
    assert_non_null(rs->footer);
    assert_non_null(strstr(rs->footer, "2.50x"));
    ResultSet_delete(rs);
    assert_int_equal(WhatIf_parse("nosuch=2", w, 2, &n, &err), DCU_OK);
    q.what_if = w;
    q.n_what_if = n;
    assert_int_equal(Query_view(db, VIEW_CATEGORIES, &q, &rs, &err), DCU_ERR_USAGE);
}

static void export_csv_quotes_and_crlf(void** state) {
    (void)state;
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, NULL, &rs, &err), DCU_OK);
    ResultSet_setText(rs, 3, 0, "a \"quoted\", name");
    char* buf = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    assert_int_equal(Export_csv(rs, f, &err), DCU_OK);
    fclose(f);
    assert_non_null(strstr(buf, "name,short_name,category,calls,total_ns"));
    assert_non_null(strstr(buf, "\r\n"));
    assert_non_null(strstr(buf, "\"a \"\"quoted\"\", name\""));
    free(buf);
    /* never overwrites without being told to */
    char* p = TestUtil_writeFile(dir, "exists.csv", "x", 1);
    assert_int_equal(Export_csvFile(rs, p, 0, &err), DCU_ERR_USAGE); /* exit 2 */
    assert_int_equal(Export_csvFile(rs, p, 1, &err), DCU_OK);
    free(p);
    ResultSet_delete(rs);
}

/* The in-place sort (cycles of row moves) against the rule it must keep: pinned rows stay,
 * keys ascend (descend), NULLs last in row order, ties in row order, and every row's cells
 * move together. 5,000 rows with duplicates and NULLs, three pinned. */
static void sort_moves_whole_rows_in_place(void** state) {
    (void)state;
    static const RsColumn cols[] = {{"v", "V", CT_INT}, {"tag", "Tag", CT_TEXT}};
    for (int desc = 0; desc <= 1; desc++) {
        ResultSet* rs = ResultSet_new("t", cols, 2);
        uint64_t x = 12345;
        enum { N = 5000, PIN = 3 };
        for (int i = 0; i < N; i++) {
            int r = ResultSet_addRow(rs);
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            if ((x >> 60) != 0 || i < PIN) { /* about one row in 16 is NULL */
                ResultSet_setInt(rs, r, 0, (int64_t)((x >> 33) % 700) - 300);
            }
            char tag[32];
            snprintf(tag, sizeof(tag), "%d", i);
            ResultSet_setText(rs, r, 1, tag);
        }
        int64_t before[N];
        int nulls[N];
        for (int i = 0; i < N; i++) {
            nulls[i] = ResultSet_cellc(rs, i, 0)->null;
            before[i] = ResultSet_cellc(rs, i, 0)->i;
        }
        rs->pinned = PIN;
        ResultSet_sort(rs, 0, desc);
        int last_tag = -1, seen_null = 0;
        for (int i = 0; i < N; i++) {
            const RsCell* v = ResultSet_cellc(rs, i, 0);
            int tag = atoi(ResultSet_cellc(rs, i, 1)->s);
            assert_int_equal(v->null, nulls[tag]); /* the row's cells moved together */
            assert_int_equal(v->i, before[tag]);
            if (i < PIN) {
                assert_int_equal(tag, i);
                continue;
            }
            if (i > PIN) {
                const RsCell* p = ResultSet_cellc(rs, i - 1, 0);
                if (v->null) {
                    assert_true(!p->null || last_tag < tag); /* NULLs last, in row order */
                } else {
                    assert_false(p->null);
                    assert_true(desc ? p->i >= v->i : p->i <= v->i);
                    if (p->i == v->i) {
                        assert_true(last_tag < tag); /* stable */
                    }
                }
            }
            seen_null |= v->null;
            last_tag = tag;
        }
        assert_true(seen_null);
        ResultSet_delete(rs);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sort_moves_whole_rows_in_place),
        cmocka_unit_test(hotspots_default_order_and_shares),
        cmocka_unit_test(filter_is_bound_and_negatable),
        cmocka_unit_test(sort_by_any_column),
        cmocka_unit_test(categories_groups_on_top_and_what_if),
        cmocka_unit_test(export_csv_quotes_and_crlf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
