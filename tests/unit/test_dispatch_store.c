/* test_dispatch_store.c - the columnar dispatch store behind main.dispatch (issue 23): every
 * plan (id =, id ranges, kernel_id =, corr_id =, seq =, full scan) answers as a full scan
 * does; NULL stays NULL and 0 stays 0; a small budget spills chunks to a temp file and reads
 * them back unchanged; SQL cannot write it; --save-db makes it a plain table. Full chunks are
 * compressed (chunk_codec.h): every width (constant, NULL only, 1, 2, 4, 8 bytes) round-trips
 * every int64 exactly, through the codec, DispatchStore_chunk and the virtual table, in
 * memory and spilled; real traces take at most 48 bytes a row; spilled chunks give their
 * memory back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "dcutop/chunk_codec.h"
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


/* ---- compressed chunks ------------------------------------------------------------------ */

enum { CH = DISPATCH_STORE_CHUNK, NCASES = 18 };

/* Row r of column case k (one case per stored column), and the width it must get. */
static int64_t case_value(int k, int64_t r) {
    const int64_t N = DISPATCH_STORE_NULL;
    switch (k) {
    case 0: return 42;                                        /* constant */
    case 1: return N;                                         /* NULL only */
    case 2: return INT64_MAX;                                 /* constant at the edge */
    case 3: return INT64_MIN + 1;                             /* the smallest non-NULL */
    case 4: return r % 2 ? N : 7;                             /* one value and NULL */
    case 5: return r % 256;                                   /* 0 .. 255: 1 byte */
    case 6: return r % 17 == 0 ? N : r % 255;                 /* 0 .. 254 and NULL: 1 byte */
    case 7: return r % 17 == 0 ? N : r % 256;                 /* 0 .. 255 and NULL: 2 bytes */
    case 8: return r == 1 ? 65535 + 5 : 5 + r % 100;          /* range 65535: 2 bytes */
    case 9: return r == 2 ? N : r == 1 ? 65535 - 9 : r % 100 - 9; /* and NULL: 4 bytes */
    case 10: return r == 1 ? 4294967295LL : r;               /* range 2^32 - 1: 4 bytes */
    case 11: return r == 2 ? N : r == 1 ? -4294967295LL : -r; /* and NULL: 8 bytes */
    case 12: return r % 5 == 0 ? N : -1000 + r % 900;        /* negatives: 2 bytes */
    case 13: return r % 3 == 0 ? N : INT64_MAX - r % 200;     /* near INT64_MAX: 1 byte */
    case 14: return r % 3 == 0 ? N : INT64_MIN + 1 + r % 200; /* near INT64_MIN: 1 byte */
    case 15: return r % 2 ? INT64_MAX : INT64_MIN + 1;        /* the widest range: 8 bytes */
    case 16: return r % 3 == 0 ? N : r % 3 == 1 ? INT64_MAX : INT64_MIN + 1;
    default: return 1000000000000000LL + r * 12345;          /* a start time: 4 bytes */
    }
}

static const int case_width[NCASES] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 4, 4, 8, 2, 1, 1, 8, 8, 4};

/* Column c of chunk k uses case (c + k) % NCASES, so each column meets every width. */
static int64_t ref_value(int64_t row, int c) {
    return case_value((int)((c + row / CH) % NCASES), row % CH);
}

static void codec_every_width(void** state) {
    (void)state;
    int64_t* data = xmalloc((size_t)NCASES * CH * sizeof(int64_t));
    for (int k = 0; k < NCASES; k++) {
        for (int64_t r = 0; r < CH; r++) {
            data[(int64_t)k * CH + r] = case_value(k, r);
        }
    }
    ChunkCol cols[NCASES];
    size_t bytes = ChunkCodec_plan(data, CH, CH, NCASES, cols);
    size_t want = 0;
    for (int k = 0; k < NCASES; k++) {
        assert_int_equal(cols[k].width, case_width[k]);
        assert_int_equal(cols[k].off % (cols[k].width ? cols[k].width : 1), 0);
        want += (size_t)case_width[k] * CH;
    }
    assert_int_equal(bytes, want);
    uint8_t* enc = xmalloc(bytes);
    ChunkCodec_pack(data, CH, CH, NCASES, cols, enc);
    int64_t* out = xmalloc(CH * sizeof(int64_t));
    for (int k = 0; k < NCASES; k++) {
        ChunkCodec_decodeCol(enc, &cols[k], CH, out);
        assert_memory_equal(out, data + (int64_t)k * CH, CH * sizeof(int64_t));
        for (int64_t r = 0; r < CH; r++) {
            assert_true(ChunkCodec_value(enc, &cols[k], r) == data[(int64_t)k * CH + r]);
        }
    }
    free(out);
    free(enc);
    free(data);
}

/* Every value through DispatchStore_chunk, SELECT * and id lookups equals ref_value. */
static void check_reads(TraceDb* db, int64_t rows) {
    DispatchStore* s = TraceDb_dispatchStore(db);
    for (int pass = 0; pass < 2; pass++) { /* again: from the decode buffers, read back */
        for (int64_t ci = 0; ci * CH < rows; ci++) {
            int64_t n = 0;
            const int64_t* d = DispatchStore_chunk(s, ci, &n);
            assert_non_null(d);
            assert_int_equal(n, rows - ci * CH < CH ? rows - ci * CH : CH);
            for (int c = 0; c < DS_NCOLS; c++) {
                for (int64_t r = 0; r < n; r++) {
                    assert_true(DS_AT(d, c, r) == ref_value(ci * CH + r, c));
                }
            }
        }
        sqlite3_stmt* st = NULL;
        assert_int_equal(sqlite3_prepare_v2(TraceDb_handle(db), "SELECT * FROM dispatch", -1,
                                            &st, NULL),
                         SQLITE_OK);
        int64_t row = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            assert_int_equal(sqlite3_column_int64(st, 0), row + 1);
            for (int c = 0; c < DS_NCOLS; c++) {
                int64_t want = ref_value(row, c);
                if (want == DISPATCH_STORE_NULL) {
                    assert_int_equal(sqlite3_column_type(st, c + 1), SQLITE_NULL);
                } else {
                    assert_true(sqlite3_column_int64(st, c + 1) == want);
                }
            }
            row++;
        }
        sqlite3_finalize(st);
        assert_int_equal(row, rows);
        assert_int_equal(sqlite3_prepare_v2(TraceDb_handle(db),
                                            "SELECT queue, end_ns, sgpr FROM dispatch WHERE id = ?",
                                            -1, &st, NULL),
                         SQLITE_OK);
        for (int64_t id = rows; id >= 1; id -= 997) { /* backwards: chunks out of order */
            sqlite3_bind_int64(st, 1, id);
            assert_int_equal(sqlite3_step(st), SQLITE_ROW);
            const int cs[3] = {DS_QUEUE, DS_END_NS, DS_SGPR};
            for (int j = 0; j < 3; j++) {
                int64_t want = ref_value(id - 1, cs[j]);
                assert_true(want == DISPATCH_STORE_NULL ? sqlite3_column_type(st, j) == SQLITE_NULL
                                                        : sqlite3_column_int64(st, j) == want);
            }
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
}

static void store_every_width(void** state) {
    (void)state;
    const int64_t rows = 20 * CH + 1000; /* 20 full chunks (every case in every column), a part */
    int64_t bounds[] = {0, 1LL << 20};  /* in memory, then spilled */
    for (int b = 0; b < 2; b++) {
        TraceDb* db = NULL;
        assert_int_equal(TraceDb_open(&db, bounds[b], NULL), DCU_OK);
        DispatchStore* s = TraceDb_dispatchStore(db);
        for (int64_t i = 0; i < rows; i++) {
            int64_t v[DS_NCOLS];
            for (int c = 0; c < DS_NCOLS; c++) {
                v[c] = ref_value(i, c);
            }
            assert_int_equal(DispatchStore_append(s, v, NULL), i + 1);
        }
        check_reads(db, rows);
        /* each case once per column across 18 chunks: bytes = 18 * CH * sum of widths */
        int64_t sum = 0;
        for (int k = 0; k < NCASES; k++) {
            sum += case_width[k];
        }
        int64_t full = rows / CH;
        assert_true(DispatchStore_encodedBytes(s) >= full / NCASES * NCASES * CH * sum);
        assert_true(DispatchStore_encodedBytes(s) < full * CH * sum * 2);
        if (bounds[b]) {
            assert_true(DispatchStore_spilled(s) > 0);
        } else {
            assert_int_equal(DispatchStore_spilled(s), 0);
        }
        TraceDb_delete(db);
    }
}

/* Full chunks sealed on the sealer thread (DispatchStore_setSealThread) make the same store
 * as sealed by append: every value and the encoded size, with no bound,
 * with a bound the load crosses (the thread is left for append's own seal near it) and with
 * one too small for the thread at all; reads between appends wait for the chunks in flight. */
static void seal_thread_same_store(void** state) {
    (void)state;
    const int64_t rows = 40 * CH + 1000;
    int64_t bounds[] = {0, 8LL << 20, 1LL << 20};
    for (int b = 0; b < 3; b++) {
        int64_t bytes[2], spilled[2];
        for (int on = 0; on < 2; on++) {
            TraceDb* db = NULL;
            assert_int_equal(TraceDb_open(&db, bounds[b], NULL), DCU_OK);
            DispatchStore* s = TraceDb_dispatchStore(db);
            DispatchStore_setSealThread(s, on);
            for (int64_t i = 0; i < rows; i++) {
                int64_t v[DS_NCOLS];
                for (int c = 0; c < DS_NCOLS; c++) {
                    v[c] = ref_value(i, c);
                }
                assert_int_equal(DispatchStore_append(s, v, NULL), i + 1);
                if (i % (7 * CH) == 7 * CH - 1) { /* a full chunk just pushed: read it */
                    int64_t got = 0;
                    const int64_t* d = DispatchStore_chunk(s, i / CH, &got);
                    assert_non_null(d);
                    assert_int_equal(got, CH);
                    assert_int_equal(DS_AT(d, DS_SEQ, CH - 1), ref_value(i, DS_SEQ));
                }
                if (i % (5 * CH) == 5 * CH - 1) { /* the same through gather */
                    int64_t row = i, out = 0;
                    assert_true(DispatchStore_gather(s, &row, 1, DS_SEQ, &out));
                    assert_int_equal(out, ref_value(i, DS_SEQ));
                }
            }
            check_reads(db, rows);
            bytes[on] = DispatchStore_encodedBytes(s);
            spilled[on] = DispatchStore_spilled(s);
            TraceDb_delete(db);
        }
        assert_int_equal(bytes[1], bytes[0]);
        /* the thread's spare buffers count against the bound: a few more may spill */
        assert_true(spilled[1] >= spilled[0] && spilled[1] <= spilled[0] + 4);
        assert_true(bounds[b] == 0 ? spilled[0] == 0 : spilled[0] > 0);
    }
}

/* Real traces' full chunks take at most 48 bytes a row (raw: 144), and so does fill(). */
static void typical_bytes_per_row(void** state) {
    (void)state;
    const char* traces[] = {"llamacpp-rocprof-v1-stats", "llamacpp-rocprofv3-rocpd",
                            "pytorch-h200-ddp-2rank"};
    for (size_t i = 0; i < sizeof(traces) / sizeof(*traces); i++) {
        char* path = xasprintf("%s/%s", TestUtil_real(), traces[i]);
        DcuStatus st = DCU_OK;
        TraceDb* db = TestUtil_load(path, &st);
        assert_int_equal(st, DCU_OK);
        DispatchStore* s = TraceDb_dispatchStore(db);
        int64_t full = DispatchStore_count(s) / CH * CH;
        assert_true(full > 0);
        assert_true(DispatchStore_encodedBytes(s) <= 48 * full);
        TraceDb_delete(db);
        free(path);
    }
    TraceDb* db = NULL;
    assert_int_equal(TraceDb_open(&db, 0, NULL), DCU_OK);
    fill(TraceDb_dispatchStore(db));
    assert_true(DispatchStore_encodedBytes(TraceDb_dispatchStore(db)) <= 48 * (ROWS / CH * CH));
    TraceDb_delete(db);
}

/* Resident pages of this process, in bytes. */
static int64_t rss_bytes(void) {
    FILE* f = fopen("/proc/self/statm", "r");
    long long size = 0, res = 0;
    if (!f || fscanf(f, "%lld %lld", &size, &res) != 2) {
        res = -1;
    }
    if (f) {
        fclose(f);
    }
    return res < 0 ? -1 : res * sysconf(_SC_PAGESIZE);
}

/* 64 chunks that do not compress (36 MiB) under a 4 MiB budget: what is spilled leaves the
 * resident set, so it grows by about the budget, not by the data (nor by whole arenas). */
static void spilled_memory_goes_back(void** state) {
    (void)state;
    int64_t before = rss_bytes();
    if (before < 0) {
        skip();
    }
    DispatchStore* s = DispatchStore_new(4LL << 20, dir);
    uint64_t x = 88172645463325252ULL;
    for (int64_t i = 0; i < 64 * CH; i++) {
        int64_t v[DS_NCOLS];
        for (int c = 0; c < DS_NCOLS; c++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift: every column 8 bytes */
            v[c] = (int64_t)(x >> 1);
        }
        assert_int_equal(DispatchStore_append(s, v, NULL), i + 1);
    }
    assert_true(DispatchStore_spilled(s) >= 50);
    int64_t grown = rss_bytes() - before;
    int64_t rows = 0;
    for (int64_t ci = 63; ci >= 0; ci--) { /* read back, newest first: arenas fragment */
        assert_non_null(DispatchStore_chunk(s, ci, &rows));
    }
    int64_t grown2 = rss_bytes() - before;
    DispatchStore_delete(s);
    assert_true(grown < (16LL << 20));
    assert_true(grown2 < (16LL << 20));
}

/* end_ns = start_ns + dur_ns (NULL when either is, wrapping as uint64 does) is not stored;
 * a chunk with one row that breaks the rule stores its ends. Both read back exactly. */
static int64_t derived_value(int64_t row, int c) {
    int64_t start = row % 11 == 0 ? DISPATCH_STORE_NULL : row % 13 == 0 ? INT64_MAX - 5 : 1000 * row;
    int64_t dur = row % 17 == 0 ? DISPATCH_STORE_NULL : 10 + row % 7;
    if (c == DS_START_NS) {
        return start;
    }
    if (c == DS_DUR_NS) {
        return dur;
    }
    if (c == DS_END_NS) {
        if (row == 3 * CH + 77) { /* chunk 3 breaks the rule once */
            return 5;
        }
        if (start == DISPATCH_STORE_NULL || dur == DISPATCH_STORE_NULL) {
            return DISPATCH_STORE_NULL;
        }
        return (int64_t)((uint64_t)start + (uint64_t)dur); /* INT64_MAX - 5 + 10 wraps */
    }
    return c == DS_KERNEL_ID ? 1 + row % 5 : 7;
}

static void end_from_start_and_dur(void** state) {
    (void)state;
    const int64_t rows = 4 * CH + 10;
    for (int b = 0; b < 2; b++) {
        TraceDb* db = NULL;
        assert_int_equal(TraceDb_open(&db, b ? 1LL << 20 : 0, NULL), DCU_OK);
        DispatchStore* s = TraceDb_dispatchStore(db);
        for (int64_t i = 0; i < rows; i++) {
            int64_t v[DS_NCOLS];
            for (int c = 0; c < DS_NCOLS; c++) {
                v[c] = derived_value(i, c);
            }
            assert_int_equal(DispatchStore_append(s, v, NULL), i + 1);
        }
        /* start 8 bytes (the wide values), dur 1, kernel 1; end 8 in chunk 3 only */
        assert_int_equal(DispatchStore_encodedBytes(s), 4 * CH * 10 + CH * 8);
        for (int64_t ci = 0; ci < 5; ci++) {
            int64_t n = 0;
            const int64_t* d = DispatchStore_chunk(s, ci, &n);
            assert_non_null(d);
            for (int64_t r = 0; r < n; r++) {
                for (int c = 0; c < DS_NCOLS; c++) {
                    assert_true(DS_AT(d, c, r) == derived_value(ci * CH + r, c));
                }
            }
        }
        sqlite3_stmt* st = NULL;
        assert_int_equal(sqlite3_prepare_v2(TraceDb_handle(db),
                                            "SELECT id, end_ns FROM dispatch WHERE id % 3 = 0",
                                            -1, &st, NULL),
                         SQLITE_OK);
        int64_t seen = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t want = derived_value(sqlite3_column_int64(st, 0) - 1, DS_END_NS);
            assert_true(want == DISPATCH_STORE_NULL ? sqlite3_column_type(st, 1) == SQLITE_NULL
                                                    : sqlite3_column_int64(st, 1) == want);
            seen++;
        }
        sqlite3_finalize(st);
        assert_int_equal(seen, rows / 3);
        assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE end_ns = 5"), 1);
        TraceDb_delete(db);
    }
}

/* A temporary folder that cannot be written: an append that must spill fails with a
 * message, but reads of chunks in memory go on over the budget instead of failing. */
static void unwritable_spill_reads_go_on(void** state) {
    (void)state;
    char* missing = xasprintf("%s/missing", dir);
    /* the raw buffer, three incompressible chunks and one decode buffer fit; two do not */
    DispatchStore* s = DispatchStore_new((int64_t)(5 * CH * DS_NCOLS * 8 + CH * 8), missing);
    uint64_t x = 2463534242ULL;
    int64_t* ref = xmalloc((size_t)3 * CH * DS_NCOLS * sizeof(int64_t));
    for (int64_t i = 0; i < 3 * CH; i++) {
        int64_t v[DS_NCOLS];
        for (int c = 0; c < DS_NCOLS; c++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[c] = ref[i * DS_NCOLS + c] = (int64_t)x;
        }
        assert_int_equal(DispatchStore_append(s, v, NULL), i + 1);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t ci = 0; ci < 3; ci++) {
            int64_t rows = 0;
            const int64_t* d = DispatchStore_chunk(s, ci, &rows);
            assert_non_null(d);
            assert_int_equal(rows, CH);
            for (int64_t r = 0; r < CH; r++) {
                for (int c = 0; c < DS_NCOLS; c++) {
                    assert_true(DS_AT(d, c, r) == ref[(ci * CH + r) * DS_NCOLS + c]);
                }
            }
        }
    }
    assert_int_equal(DispatchStore_spilled(s), 0);
    DcuError err = {0};
    int64_t v[DS_NCOLS] = {0};
    int64_t id = 1;
    for (int64_t i = 0; i < 2 * CH && id; i++) { /* the next full chunk must spill: it fails */
        v[DS_SEQ] = (int64_t)(x ^= x << 13) ;
        id = DispatchStore_append(s, v, &err);
    }
    assert_int_equal(id, 0);
    assert_non_null(strstr(err.msg, "cannot write its temporary file"));
    free(ref);
    DispatchStore_delete(s);
    free(missing);
}

/* DispatchStore_gather (the paged dispatch list, the kernel histogram): the values of a
 * kernel's rows, every column (the derived end included), as DispatchStore_value reads
 * them one by one, from chunks in memory, spilled, decoded and the one being filled. */
static void gather_reads_as_value(void** state) {
    (void)state;
    int64_t bounds[] = {0, 1LL << 20};
    for (int b = 0; b < 2; b++) {
        DispatchStore* s = DispatchStore_new(bounds[b], dir);
        fill(s);
        const int64_t* kr;
        int64_t nk;
        assert_true(DispatchStore_kernelRows(s, 3, &kr, &nk));
        assert_int_equal(nk, ROWS / 7 + (ROWS % 7 > 2));
        int64_t* out = xmalloc(sizeof(int64_t) * (size_t)nk);
        for (int c = 0; c < DS_NCOLS; c++) {
            int64_t ignored;
            DispatchStore_chunk(s, 1, &ignored); /* one chunk decoded: read from there */
            assert_true(DispatchStore_gather(s, kr, nk, (DispatchCol)c, out));
            for (int64_t i = 0; i < nk; i++) {
                int ok = 0;
                assert_true(out[i] == DispatchStore_value(s, kr[i], (DispatchCol)c, &ok));
                assert_true(ok);
            }
        }
        assert_true(bounds[b] == 0 || DispatchStore_spilled(s) > 0);
        free(out);
        DispatchStore_delete(s);
    }
}

/* The kernel index's start-order flag (the paged dispatch list needs no read of rows that
 * have it): per kernel, rows in row order ascend by file and then start, NULL starts first;
 * a later file may start earlier (the file orders first); one step back unsets it, and so
 * does a later row of an earlier file. Across chunks, spilled or not. */
static void kernel_start_order(void** state) {
    (void)state;
    enum { N = 3 * CH + 100 };
    int64_t bounds[] = {0, 1LL << 20};
    for (int b = 0; b < 2; b++) {
        DispatchStore* s = DispatchStore_new(bounds[b], dir);
        DcuError err = {0};
        uint64_t x = 88172645463325252ULL;
        for (int64_t i = 0; i < N; i++) {
            int64_t v[DS_NCOLS] = {0};
            for (int c = DS_SEQ; c <= DS_CORR_ID; c++) { /* wide chunks: some spill */
                v[c] = (int64_t)(x ^= x << 13, x ^= x >> 7, x ^= x << 17);
            }
            int64_t k = 1 + i % 5;
            v[DS_KERNEL_ID] = k;
            v[DS_FILE_ID] = i < N / 2 ? 1 : 2;
            v[DS_START_NS] = i < N / 2 ? 1000000 + i : i; /* file 2 starts earlier */
            if (k == 2 && i >= N - 10 && i < N - 5) {
                v[DS_START_NS] = 5; /* one step back, late in file 2 */
            }
            if (k == 3 && i >= N - 5) {
                v[DS_FILE_ID] = 1; /* file 1 again after file 2 */
            }
            if (k == 4 && i < N / 2 && i % 1000 < 5) {
                v[DS_START_NS] = DISPATCH_STORE_NULL; /* NULL starts: first within a file? */
            }
            if (k == 5 && i < 10) {
                v[DS_START_NS] = DISPATCH_STORE_NULL; /* only at the start of file 1: in order */
            }
            v[DS_DUR_NS] = k == 1 ? (i % 3 ? 100 - i : DISPATCH_STORE_NULL) : 7;
            assert_true(DispatchStore_append(s, v, &err) > 0);
        }
        int64_t lo, hi, nn, k1 = (N + 4) / 5, last = N - 1 - (N - 1) % 5; /* kernel 1's rows */
        assert_true(DispatchStore_kernelDurations(s, 1, &lo, &hi, &nn));
        while (last % 3 == 0) {
            last -= 5; /* the last row of kernel 1 with a duration */
        }
        assert_true(lo == 100 - last && hi == 100 - 5 && nn == k1 - (k1 + 2) / 3);
        assert_true(DispatchStore_kernelDurations(s, 2, &lo, &hi, &nn));
        assert_true(lo == 7 && hi == 7 && nn == (N + 3) / 5);
        assert_false(DispatchStore_kernelDurations(s, 9, &lo, &hi, &nn));
        assert_true(DispatchStore_kernelInStartOrder(s, 1));
        assert_false(DispatchStore_kernelInStartOrder(s, 2));
        assert_false(DispatchStore_kernelInStartOrder(s, 3));
        assert_false(DispatchStore_kernelInStartOrder(s, 4)); /* a NULL after a start */
        assert_true(DispatchStore_kernelInStartOrder(s, 5));
        assert_false(DispatchStore_kernelInStartOrder(s, 9)); /* no such kernel */
        assert_true(bounds[b] == 0 || DispatchStore_spilled(s) > 0);
        DispatchStore_delete(s);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_start_order),
        cmocka_unit_test(gather_reads_as_value),
        cmocka_unit_test(plans_nulls_and_spill),
        cmocka_unit_test(read_only_and_saved),
        cmocka_unit_test(codec_every_width),
        cmocka_unit_test(store_every_width),
        cmocka_unit_test(typical_bytes_per_row),
        cmocka_unit_test(spilled_memory_goes_back),
        cmocka_unit_test(unwritable_spill_reads_go_on),
        cmocka_unit_test(end_from_start_and_dur),
        cmocka_unit_test(seal_thread_same_store),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
