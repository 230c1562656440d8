/* test_filter.c - the SQL filter functions: regexp() on one column, regexp_any() over the
 * columns a table shows (a row passes when any matches; with '!', when none does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "dcutop/filter.h"

/* The integer a one-row SELECT gives, or -1 for NULL, -2 for an SQL error. */
static int eval(sqlite3* db, const char* sql) {
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        return -2;
    }
    int rc = sqlite3_step(st);
    int v = rc != SQLITE_ROW ? -2 : sqlite3_column_type(st, 0) == SQLITE_NULL
                                        ? -1
                                        : sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void regexp_any_over_columns(void** state) {
    (void)state;
    sqlite3* db = NULL;
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    DcuError err;
    assert_int_equal(Filter_registerSql(db, &err), DCU_OK);
    /* a gemm kernel whose name says nothing of gemm: found by its category */
    assert_int_equal(eval(db, "SELECT regexp_any('gemm', 'Cijk_Ailk', 'Cijk…', 'gemm')"), 1);
    assert_int_equal(eval(db, "SELECT regexp_any('gemm', 'roll_cuda', 'roll', 'copy')"), 0);
    /* negated: the row goes when any column matches, stays when none does */
    assert_int_equal(eval(db, "SELECT regexp_any('!gemm', 'Cijk_Ailk', 'Cijk…', 'gemm')"), 0);
    assert_int_equal(eval(db, "SELECT regexp_any('!gemm', 'roll_cuda', 'roll', 'copy')"), 1);
    /* smart case as regexp(): lower case ignores case, a capital letter does not */
    assert_int_equal(eval(db, "SELECT regexp_any('cijk', 'x', 'Cijk_Ailk')"), 1);
    assert_int_equal(eval(db, "SELECT regexp_any('CIJK', 'x', 'Cijk_Ailk')"), 0);
    /* NULL columns are skipped; a NULL pattern is no filter (NULL) */
    assert_int_equal(eval(db, "SELECT regexp_any('copy', NULL, 'copy')"), 1);
    assert_int_equal(eval(db, "SELECT regexp_any(NULL, 'a', 'b')"), -1);
    /* over the rows of a table, the pattern compiled once per statement */
    assert_int_equal(eval(db, "SELECT count(*) FROM (VALUES ('a','gemm'),('b','copy'),"
                              "('gemm_x','other')) WHERE regexp_any('gemm', column1, column2)"),
                     2);
    /* a bad pattern is an SQL error with PCRE2's message, never a crash */
    assert_int_equal(eval(db, "SELECT regexp_any('(', 'a')"), -2);
    sqlite3_close(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regexp_any_over_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
