/* test_dispatch_store.c - the columnar dispatch store behind main.dispatch (issue 23): every
 * plan (id =, id ranges, kernel_id =, corr_id =, seq =, full scan) answers as a full scan
 * does; NULL stays NULL and 0 stays 0; a small budget spills chunks to a temp file and reads
 * them back unchanged; SQL cannot write it; --save-db makes it a plain table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/dispatch_store.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

enum { ROWS = 20000 }; /* about five chunks: several spill at a 1 MiB bound */

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

/* Row i (0-based): kernel i % 7 + 1; gpu NULL on every third row, 0 on every fifth else;
 * corr i / 2 (two rows each); seq 3 * i. */
static void fill(DispatchStore* s) {
    for (int64_t i = 0; i < ROWS; i++) {
        int64_t v[DS_NCOLS];
        for (int c = 0; c < DS_NCOLS; c++) {
            v[c] = DISPATCH_STORE_NULL;
        }
        v[DS_FILE_ID] = 1 + i / 10000;
        v[DS_KERNEL_ID] = i % 7 + 1;
        v[DS_SEQ] = 3 * i;
        v[DS_GPU] = i % 3 == 0 ? DISPATCH_STORE_NULL : i % 5 == 0 ? 0 : 1;
        v[DS_CORR_ID] = i / 2;
        v[DS_START_NS] = 1000 * i;
        v[DS_END_NS] = 1000 * i + 10 + i % 13;
        v[DS_DUR_NS] = 10 + i % 13;
        assert_int_equal(DispatchStore_append(s, v, NULL), i + 1);
    }
}

static void check_plans(TraceDb* db) {
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), ROWS);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE id = rowid"), ROWS);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE gpu IS NULL"),
                     (ROWS + 2) / 3);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE gpu = 0"),
                     TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE +gpu = 0"));
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE queue IS NULL"), ROWS);
    assert_int_equal(TestUtil_int(db, "SELECT seq FROM dispatch WHERE id = 12345"), 3 * 12344);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE id = 0"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE id = '7'"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE id = 7.5"), 0);
    assert_int_equal(
        TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE id BETWEEN 4000 AND 9000"), 5001);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE id > 19990"), 10);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE rowid < 11"), 10);
    assert_int_equal(TestUtil_int(db, "SELECT total(dur_ns) FROM dispatch WHERE kernel_id = 3"),
                     TestUtil_int(db, "SELECT total(dur_ns) FROM dispatch WHERE +kernel_id = 3"));
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE kernel_id = 99"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE corr_id = 777"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT min(id) FROM dispatch WHERE corr_id = 777"), 1555);
    assert_int_equal(TestUtil_int(db, "SELECT id FROM dispatch WHERE seq = 300"), 101);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE seq IN (0, 3, 4)"), 2);
    int64_t pairs = 0; /* rows of kernel 1 with a next row */
    for (int64_t i = 0; i + 1 < ROWS; i++) {
        pairs += i % 7 == 0;
    }
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch d JOIN dispatch e"
                                      " ON e.id = d.id + 1 WHERE d.kernel_id = 1"),
                     pairs);
    assert_int_equal(TestUtil_int(db, "SELECT sum(start_ns / 1000 = id - 1) FROM dispatch"), ROWS);
}

static void plans_nulls_and_spill(void** state) {
    (void)state;
    int64_t bounds[] = {0, 1LL << 20}; /* no bound, then one that spills */
    for (int b = 0; b < 2; b++) {
        TraceDb* db = NULL;
        assert_int_equal(TraceDb_open(&db, bounds[b], NULL), DCU_OK);
        fill(TraceDb_dispatchStore(db));
        check_plans(db);
        check_plans(db); /* again, with the indexes built */
        if (bounds[b]) {
            assert_true(DispatchStore_spilled(TraceDb_dispatchStore(db)) > 0);
        } else {
            assert_int_equal(DispatchStore_spilled(TraceDb_dispatchStore(db)), 0);
        }
        TraceDb_delete(db);
    }
}

static void read_only_and_saved(void** state) {
    (void)state;
    TraceDb* db = NULL;
    assert_int_equal(TraceDb_open(&db, 1LL << 20, NULL), DCU_OK);
    fill(TraceDb_dispatchStore(db));
    DcuError err = {0};
    assert_int_not_equal(TraceDb_exec(db, "DELETE FROM dispatch", &err), DCU_OK);
    assert_int_not_equal(TraceDb_exec(db, "INSERT INTO dispatch(file_id, kernel_id, dur_ns)"
                                          " VALUES(1, 1, 1)", &err), DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), ROWS);
    char* path = xasprintf("%s/saved.db", dir);
    assert_int_equal(TraceDb_save(db, path, 0, &err), DCU_OK);
    TraceDb_delete(db);
    sqlite3* f = NULL;
    assert_int_equal(sqlite3_open_v2(path, &f, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt* st = NULL;
    assert_int_equal(sqlite3_prepare_v2(f,
                                        "SELECT (SELECT sql LIKE 'CREATE TABLE dispatch(%'"
                                        " FROM sqlite_schema WHERE name = 'dispatch'),"
                                        " count(*), count(gpu), sum(gpu = 0), sum(dur_ns),"
                                        " (SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
                                        " AND tbl_name = 'dispatch') FROM dispatch",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int64(st, 0), 1);
    assert_int_equal(sqlite3_column_int64(st, 1), ROWS);
    assert_int_equal(sqlite3_column_int64(st, 2), ROWS - (ROWS + 2) / 3);
    int64_t zeros = 0, dur = 0;
    for (int64_t i = 0; i < ROWS; i++) {
        zeros += i % 3 != 0 && i % 5 == 0;
        dur += 10 + i % 13;
    }
    assert_int_equal(sqlite3_column_int64(st, 3), zeros);
    assert_int_equal(sqlite3_column_int64(st, 4), dur);
    assert_int_equal(sqlite3_column_int64(st, 5), 3);
    sqlite3_finalize(st);
    sqlite3_close(f);
    free(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plans_nulls_and_spill),
        cmocka_unit_test(read_only_and_saved),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
