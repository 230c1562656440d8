/* test_user_sql.c - user SQL in process: refused writes leave the loaded data as it was, the
 * poll callback stops a runaway query, column types follow the values, the views are TEMP. */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/sql_views.h"
#include "dcutop/user_sql.h"
#include "testutil.h"

#define SAMPLE "sample-traces/rocprofv3-sdk-docs-csv"

static TraceDb* load(void) {
    DcuStatus st;
    TraceDb* db = TestUtil_load(SAMPLE, &st);
    assert_int_equal(st, DCU_OK);
    return db;
}

static void writes_refused_data_kept(void** state) {
    (void)state;
    TraceDb* db = load();
    int64_t before = TestUtil_int(db, "SELECT count(*) FROM dispatch");
    assert_true(before > 0);
    const char* bad[] = {"DELETE FROM dispatch", "DROP TABLE dispatch",
                         "UPDATE dispatch SET dur_ns = 0", "PRAGMA user_version = 9",
                         "ATTACH ':memory:' AS x", "SELECT load_extension('nothing')",
                         "CREATE TEMP TABLE t(x)"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ResultSet* rs = NULL;
        DcuError err;
        Error_clear(&err);
        assert_int_equal(UserSql_run(db, bad[i], NULL, &rs, &err), DCU_ERR_SQL);
        assert_null(rs);
        assert_non_null(strstr(err.msg, "not authorized"));
    }
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), before);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE dur_ns = 0"), 0);
    assert_int_equal(TestUtil_int(db, "PRAGMA user_version"), 3);
    /* the authorizer is off again for dcutop's own statements */
    DcuError err;
    assert_int_equal(TraceDb_exec(db, "CREATE TEMP TABLE mine(x)", &err), DCU_OK);
    TraceDb_delete(db);
}

static int polls;
static int stop_after_some(void* ctx) {
    (void)ctx;
    return ++polls > 50;
}

static void poll_stops_runaway_query(void** state) {
    (void)state;
    TraceDb* db = load();
    UserSqlOpts o = {.poll = stop_after_some};
    ResultSet* rs = NULL;
    DcuError err;
    polls = 0;
    DcuStatus s = UserSql_run(db,
                              "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
                              " SELECT count(*) FROM c",
                              &o, &rs, &err);
    assert_int_equal(s, DCU_ERR_SQL);
    assert_int_equal(o.interrupted, 1);
    assert_string_equal(err.msg, "interrupted");
    assert_int_equal(polls, 51);
    /* the next query runs normally (the poll now says go on) */
    polls = -1000000000;
    assert_int_equal(UserSql_run(db, "SELECT count(*) AS n FROM dispatches", &o, &rs, &err),
                     DCU_OK);
    assert_int_equal(o.interrupted, 0);
    assert_int_equal(ResultSet_cellc(rs, 0, 0)->i, TestUtil_int(db, "SELECT count(*) FROM dispatch"));
    ResultSet_delete(rs);
    TraceDb_delete(db);
}

static void column_types(void** state) {
    (void)state;
    TraceDb* db = load();
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(UserSql_run(db,
                                 "SELECT 1 AS a, 2.5 AS b, 'x' AS c, 7 AS total_ns, NULL AS e,"
                                 " 1.5 AS avg_ns UNION ALL SELECT 2, 3, 4, 8, NULL, 2",
                                 NULL, &rs, &err),
                     DCU_OK);
    assert_int_equal(rs->ncols, 6);
    assert_string_equal(rs->cols[0].key, "a");
    assert_int_equal(rs->cols[0].type, CT_INT);
    assert_int_equal(rs->cols[1].type, CT_REAL);
    assert_int_equal(rs->cols[2].type, CT_TEXT); /* 'x' then 4: text wins, 4 stays a number */
    assert_true(isnan(ResultSet_cellc(rs, 0, 2)->d));
    assert_false(isnan(ResultSet_cellc(rs, 1, 2)->d));
    assert_int_equal(rs->cols[3].type, CT_NS);
    assert_int_equal(rs->cols[5].type, CT_NS); /* a real duration too */
    assert_string_equal(ResultSet_cellc(rs, 0, 5)->s, "1.5");
    assert_true(ResultSet_cellc(rs, 0, 4)->null);
    assert_string_equal(ResultSet_cellc(rs, 1, 1)->s, "3"); /* SQLite's own text */
    ResultSet_delete(rs);
    TraceDb_delete(db);
}

static void views_are_temp(void** state) {
    (void)state;
    TraceDb* db = load();
    DcuError err;
    assert_int_equal(SqlViews_create(db, &err), DCU_OK);
    assert_int_equal(SqlViews_create(db, &err), DCU_OK); /* twice is fine */
    for (const char* const* n = SqlViews_names(); *n; n++) {
        char sql[200];
        snprintf(sql, sizeof(sql),
                 "SELECT count(*) FROM temp.sqlite_master WHERE type = 'view' AND name = '%s'", *n);
        assert_int_equal(TestUtil_int(db, sql), 1);
    }
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM main.sqlite_master WHERE name = 'kernels'"),
                     0);
    TraceDb_delete(db);
}

/* M3 (issue 26): fts3_tokenizer() hands out and replaces C pointers: off on the connection */
static void m3_fts3_tokenizer_off(void** state) {
    (void)state;
    TraceDb* db = load();
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(UserSql_run(db, "SELECT 1", NULL, &rs, &err), DCU_OK);
    ResultSet_delete(rs);
    int on = -1;
    sqlite3_db_config(TraceDb_handle(db), SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, -1, &on);
    assert_int_equal(on, 0);
    assert_int_equal(UserSql_run(db, "SELECT fts3_tokenizer('simple')", NULL, &rs, &err),
                     DCU_ERR_SQL);
    assert_null(rs);
    TraceDb_delete(db);
}

typedef struct {
    int calls, lasts, biggest;
    int64_t rows, sum;
} Blocks;

static int count_blocks(void* ctx, const ResultSet* rows, int last) {
    Blocks* b = ctx;
    b->calls++;
    b->lasts += last;
    b->rows += rows->nrows;
    b->biggest = rows->nrows > b->biggest ? rows->nrows : b->biggest;
    for (int r = 0; r < rows->nrows; r++) {
        b->sum += ResultSet_cellc(rows, r, 0)->i;
    }
    return 0;
}

/* M4 (issue 26): a sink gets the rows in bounded blocks, the prompt's window stops early */
static void m4_blocks_and_window(void** state) {
    (void)state;
    TraceDb* db = load();
    const char* q = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2500)"
                    " SELECT x FROM c";
    Blocks b = {0};
    UserSqlOpts o = {.sink = count_blocks, .sink_ctx = &b};
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(UserSql_run(db, q, &o, &rs, &err), DCU_OK);
    assert_null(rs);
    assert_int_equal(b.rows, 2500);
    assert_int_equal(b.sum, 2500 * 2501 / 2);
    assert_int_equal(b.biggest, USER_SQL_BLOCK);
    assert_int_equal(b.calls, 3);
    assert_int_equal(b.lasts, 1);
    UserSqlOpts w = {.max_rows = 1000};
    assert_int_equal(UserSql_run(db, q, &w, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 1000);
    assert_int_equal(w.truncated, 1);
    ResultSet_delete(rs);
    UserSqlOpts last = {.skip_rows = 2000, .max_rows = 1000}; /* the prompt's third page */
    assert_int_equal(UserSql_run(db, q, &last, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 500);
    assert_int_equal(ResultSet_cellc(rs, 0, 0)->i, 2001);
    assert_int_equal(last.truncated, 0);
    ResultSet_delete(rs);
    /* the time budget: an endless statement stops with a message that says which budget */
    UserSqlBudget keep = *UserSql_budget();
    UserSqlBudget quick = {0.2, 0, 0};
    UserSql_setBudget(&quick);
    assert_int_equal(UserSql_run(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1"
                                     " FROM c) SELECT count(*) FROM c", NULL, &rs, &err),
                     DCU_ERR_SQL);
    assert_non_null(strstr(err.msg, "time budget"));
    UserSql_setBudget(&keep);
    TraceDb_delete(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_refused_data_kept),
        cmocka_unit_test(poll_stops_runaway_query),
        cmocka_unit_test(column_types),
        cmocka_unit_test(views_are_temp),
        cmocka_unit_test(m3_fts3_tokenizer_off),
        cmocka_unit_test(m4_blocks_and_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
