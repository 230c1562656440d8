/* test_load_db.c - SQLite inputs: a hipprof DB built here from the documented schema
 * (FORMATS.md 1.6; no real sample exists), a rocprof v1 results.db in both column sets, a
 * rocpd-like DB, and bad databases (wrong schema, wrong value types, truncated, locked,
 * read-only, 10 MB names). Expected values come from the rows written below or from
 * SQLite over the input itself; every input must stay byte-identical after loading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "dcutop/query.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

/* Creates dir/name as an SQLite database holding sql. Returns the path (owned). */
static char* make_db(const char* name, const char* sql) {
    char* p = xasprintf("%s/%s", dir, name);
    remove(p);
    sqlite3* db = NULL;
    assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
    char* msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fail_msg("test db: %s", msg);
    }
    sqlite3_close(db);
    return p;
}

/* The whole file, to check it is unchanged. */
static char* slurp(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long l = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* b = xmalloc((size_t)l + 1);
    *n = fread(b, 1, (size_t)l, f);
    fclose(f);
    return b;
}

static void assert_same_file(const char* path, const char* before, size_t n) {
    size_t m;
    char* after = slurp(path, &m);
    assert_int_equal(m, n);
    assert_memory_equal(after, before, n);
    free(after);
}

static void assert_sql_text(TraceDb* db, const char* expected, const char* sql) {
    char* t = TestUtil_text(db, sql);
    assert_string_equal(t, expected);
    free(t);
}

/* ---- hipprof ---------------------------------------------------------------------- */

static const char hipprof_sql[] =
    "CREATE TABLE STR_TABLE(STR_ID INTEGER, STR_NAME TEXT);"
    "INSERT INTO STR_TABLE VALUES(1, 'Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1'),"
    " (2, 'void at::native::vectorized_elementwise_kernel<4, at::native::direct_copy_kernel_cuda>(int)');"
    "CREATE TABLE HIPOPS_4242(BeginNs INTEGER, EndNs INTEGER, dev_id INTEGER, queue_id INTEGER,"
    " Name INTEGER, _Index INTEGER, DurationNs INTEGER);"
    "INSERT INTO HIPOPS_4242 VALUES(1000, 1600, 0, 0, 1, 1, 600), (2000, 2300, 0, 0, 2, 2, 300),"
    " (3000, 3200, 0, 1, 2, 3, 200), (4000, 4900, 0, 0, 1, 4, 900);"
    "CREATE TABLE HIPCOPY_4242(BeginNs INTEGER, EndNs INTEGER, dev_id INTEGER, queue_id INTEGER,"
    " Kind INTEGER, _Index INTEGER, Bytes INTEGER, MemoryType INTEGER);"
    "INSERT INTO HIPCOPY_4242 VALUES(500, 900, 0, 0, 1, 10, 4096, 0),"
    " (5000, 5100, 0, 0, 2, 11, 1024, 0);"
    "CREATE TABLE HIP_4242(BeginNs INTEGER, EndNs INTEGER, pid INTEGER, tid INTEGER,"
    " Name INTEGER, _Index INTEGER, State INTEGER, DurationNs INTEGER);"
    /* API 7 = hipMalloc (3 calls, 3000 ns); API 9 = hipLaunchKernel (2 calls, 50 ns);
     * API 11 has no match in the companion CSV */
    "INSERT INTO HIP_4242 VALUES(10, 1010, 4242, 1, 7, 1, 0, 1000), (20, 1020, 4242, 1, 7, 2, 0, 1000),"
    " (30, 1030, 4242, 1, 7, 3, 0, 1000), (40, 60, 4242, 1, 9, 4, 0, 20), (70, 100, 4242, 1, 9, 5, 0, 30),"
    " (200, 205, 4242, 1, 11, 6, 0, 5);"
    "CREATE TABLE SUMMARY(NAME INTEGER, CALLS INTEGER, TOTAL_NS INTEGER, KIND INTEGER);"
    "INSERT INTO SUMMARY VALUES(7, 3, 3000, 1), (9, 2, 50, 1), (11, 1, 5, 1);";

static const char hiptrace_csv[] =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
    "\"hipMalloc\",3,3000,1000,98.2\n"
    "\"hipLaunchKernel\",2,50,25,1.6\n"
    "\"hipFree\",4,999,249,0.2\n"
    "\"Total\",9,4049,449,100.0\n";

static void hipprof_db(void** state) {
    (void)state;
    char* p = make_db("app.db", hipprof_sql);
    free(TestUtil_writeFile(dir, "app.hiptrace.csv", hiptrace_csv, sizeof(hiptrace_csv) - 1));
    size_t n;
    char* before = slurp(p, &n);
    DcuStatus s;
    TraceDb* db = TestUtil_load(dir, &s);
    assert_int_equal(s, DCU_OK);
    assert_sql_text(db, "hipprof database", "SELECT format FROM source_file WHERE name = 'app.db'");
    /* kernels: names through STR_TABLE, durations End - Begin */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel_summary"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT s.total_ns FROM kernel_summary s JOIN kernel k"
                                      " ON k.id = s.kernel_id WHERE k.name LIKE 'Cijk%'"),
                     1500);
    assert_int_equal(TestUtil_int(db, "SELECT s.calls FROM kernel_summary s JOIN kernel k"
                                      " ON k.id = s.kernel_id WHERE k.name LIKE '%direct_copy%'"),
                     2);
    assert_int_equal(TestUtil_int(db, "SELECT count(DISTINCT pid) FROM dispatch WHERE pid = 4242"), 1);
    /* API ids named through the companion CSV by (calls, total); 11 keeps its id */
    assert_int_equal(TestUtil_int(db, "SELECT total_ns FROM api_summary_v WHERE name = 'hipMalloc'"),
                     3000);
    assert_int_equal(TestUtil_int(db, "SELECT calls FROM api_summary_v WHERE name = 'hipLaunchKernel'"),
                     2);
    assert_int_equal(TestUtil_int(db, "SELECT calls FROM api_summary_v WHERE name = 'HIP API #11'"), 1);
    /* the hiptrace.csv aggregate is superseded by the per-call DB rows */
    assert_int_equal(TestUtil_int(db, "SELECT l.used FROM source_layer l JOIN source_file f"
                                      " ON f.id = l.file_id WHERE f.name = 'app.hiptrace.csv'"),
                     0);
    assert_int_equal(TestUtil_int(db, "SELECT sum(calls) FROM api_summary_v"), 6);
    /* copies: hipMemcpyKind names, bytes */
    assert_int_equal(TestUtil_int(db, "SELECT bytes FROM copy_summary_v WHERE name = 'CopyHostToDevice'"),
                     4096);
    assert_int_equal(TestUtil_int(db, "SELECT total_ns FROM copy_summary_v WHERE name = 'CopyDeviceToHost'"),
                     100);
    TraceDb_delete(db);
    assert_same_file(p, before, n);
    free(before);
    free(p);
}

/* ---- rocprof v1 results.db ------------------------------------------------------------ */

static void rocprof_v1_new_columns(void** state) {
    (void)state;
    char* p = make_db(
        "results.db",
        "CREATE TABLE KERN (\"Index\" INTEGER, \"KernelName\" TEXT, \"gpu-id\" INTEGER,"
        " \"queue-id\" INTEGER, \"queue-index\" INTEGER, \"pid\" INTEGER, \"tid\" INTEGER,"
        " \"grd\" INTEGER, \"wgr\" INTEGER, \"lds\" INTEGER, \"scr\" INTEGER, \"arch_vgpr\" INTEGER,"
        " \"accum_vgpr\" INTEGER, \"sgpr\" INTEGER, \"wave_size\" INTEGER, \"sig\" INTEGER,"
        " \"obj\" INTEGER, \"DispatchNs\" INTEGER, \"BeginNs\" INTEGER, \"EndNs\" INTEGER,"
        " \"CompleteNs\" INTEGER, \"DurationNs\" INTEGER, \"SQ_WAVES\" INTEGER);"
        "INSERT INTO KERN VALUES(0, '\"my_kernel.kd\"', 2, 0, 0, 77, 77, 256, 64, 0, 0, 16, 0, 32, 32,"
        " '0x0', '0x1', 90, 100, 400, 500, 300, 12);"
        "INSERT INTO KERN VALUES(1, '\"void foo<int>(int) [clone .kd]\"', 2, 0, 2, 77, 77, 256, 64, 0, 0,"
        " 16, 0, 32, 32, '0x0', '0x1', 450, 500, 550, 600, 50, 4);"
        "INSERT INTO KERN VALUES(2, '\"<barrier packet>\"', 2, 0, 4, 77, 77, 0, 0, 0, 0, 0, 0, 0, 0,"
        " '0x0', '0x1', 600, 600, 600, 600, 0, 0);"
        "CREATE TABLE HIP (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"pid\" INTEGER, \"tid\" INTEGER,"
        " \"Name\" TEXT, \"args\" TEXT, \"Index\" INTEGER, \"Data\" TEXT, \"__section\" INTEGER,"
        " \"__lane\" INTEGER, \"DurationNs\" INTEGER);"
        "INSERT INTO HIP VALUES(50, 90, 77, 77, 'hipLaunchKernel', '( )', 0, '', 2, 0, 40);"
        "CREATE TABLE rocTX (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"pid\" INTEGER,"
        " \"tid\" INTEGER, \"Name\" TEXT, \"Index\" INTEGER, \"__section\" INTEGER, \"__lane\" INTEGER);"
        "INSERT INTO rocTX VALUES(10, 700, 77, 77, '\"step\"', 0, 0, 0);");
    size_t n;
    char* before = slurp(p, &n);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_sql_text(db, "rocprof v1 results.db", "SELECT format FROM source_file");
    /* names lose their quotes and .kd; the barrier packet is no kernel */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                      " k.id = s.kernel_id WHERE k.name = 'my_kernel'"),
                     300);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel WHERE name = 'void foo<int>(int)'"),
                     1);
    assert_int_equal(TestUtil_int(db, "SELECT vgpr + sgpr + grid + workgroup FROM dispatch WHERE seq = 0"),
                     16 + 32 + 256 + 64);
    /* the unknown numeric column is a PMC counter, and the file is flagged */
    assert_int_equal(TestUtil_int(db, "SELECT sum(value) FROM dispatch_counter WHERE name = 'SQ_WAVES'"),
                     16);
    assert_int_equal(TestUtil_int(db, "SELECT pmc FROM source_file"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT pid FROM api_call WHERE name = 'hipLaunchKernel'"), 77);
    assert_sql_text(db, "step", "SELECT name FROM range");
    TraceDb_delete(db);
    assert_same_file(p, before, n);
    free(before);
    free(p);
}

static void rocprof_v1_rocm4_columns(void** state) {
    (void)state;
    /* ROCm 4.0: no __section column, pid holds the trace section (2 for HIP, 6 for GPU0) */
    char* p = make_db(
        "results.db",
        "CREATE TABLE A (\"Index\" INTEGER, \"KernelName\" TEXT);"
        "CREATE TABLE OPS (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"dev-id\" INTEGER,"
        " \"queue-id\" INTEGER, \"Name\" TEXT, \"pid\" INTEGER, \"tid\" INTEGER, \"Index\" INTEGER,"
        " \"proc-id\" INTEGER, \"Data\" TEXT, \"DurationNs\" INTEGER);"
        "INSERT INTO OPS VALUES(100, 200, 0, 0, 'k1(int)', 6, 1, 21, 9999, '', 100),"
        " (300, 300, 0, 1, 'Unknown command type', 6, 2, 22, 9999, '', 0),"
        " (400, 450, 0, 0, 'k1(int)', 6, 1, 23, 9999, '', 50);"
        "CREATE TABLE HIP (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"pid\" INTEGER, \"tid\" INTEGER,"
        " \"Name\" TEXT, \"args\" TEXT, \"Index\" INTEGER, \"Data\" TEXT, \"DurationNs\" INTEGER);"
        "INSERT INTO HIP VALUES(90, 95, 2, 9999, 'hipLaunchKernel', '( )', 21, '', 5);"
        "CREATE TABLE COPY (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"dev-id\" INTEGER,"
        " \"queue-id\" INTEGER, \"Name\" TEXT, \"pid\" INTEGER, \"tid\" INTEGER, \"Index\" INTEGER,"
        " \"proc-id\" INTEGER, \"Data\" TEXT, \"DurationNs\" INTEGER);"
        "INSERT INTO COPY VALUES(10, 60, 0, 0, 'CopyHostToDevice', 1, 0, 8, 9999, '', 50);");
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_sql_text(db, "rocprof v1 results.db (ROCm 4 columns)", "SELECT format FROM source_file");
    assert_int_equal(TestUtil_int(db, "SELECT calls * 1000 + total_ns FROM kernel_summary"), 2150);
    assert_int_equal(TestUtil_int(db, "SELECT pid FROM dispatch LIMIT 1"), 9999);
    /* section numbers are not pids; Index links the launch to the kernel */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM api_call WHERE pid IS NULL AND corr_id = 21"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch WHERE corr_id = 21"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT total_ns FROM copy_summary_v"), 50);
    TraceDb_delete(db);
    free(p);
}

/* ---- rocpd ----------------------------------------------------------------------------- */

static void rocpd_views_and_version(void** state) {
    (void)state;
    /* the views dcutop reads, over plain tables (the real writer builds them over uuid tables) */
    char* p = make_db(
        "4711_results.db",
        "CREATE TABLE rocpd_metadata(id INTEGER, tag TEXT, value TEXT);"
        "INSERT INTO rocpd_metadata VALUES(1, 'schema_version', '3');"
        "CREATE TABLE k(name TEXT, dispatch_id INT, agent_abs_index INT, queue_id INT,"
        " stream_id INT, pid INT, tid INT, corr_id INT, start INT, end INT, grid_x INT, grid_y INT,"
        " grid_z INT, workgroup_x INT, workgroup_y INT, workgroup_z INT, lds_size INT,"
        " scratch_size INT, vgpr_count INT, sgpr_count INT);"
        "INSERT INTO k VALUES('gemm_kernel', 1, 1, 0, 0, 4711, 4711, 5, 1000, 5000, 64, 2, 1, 256, 1, 1,"
        " 0, 0, 64, 32), ('add_kernel', 2, 1, 0, 0, 4711, 4711, 6, 6000, 6004, 8, 1, 1, 64, 1, 1, 0, 0,"
        " 8, 16);"
        "CREATE VIEW kernels AS SELECT * FROM k;"
        "CREATE TABLE r(category TEXT, name TEXT, pid INT, tid INT, corr_id INT, start INT, end INT);"
        "INSERT INTO r VALUES('HIP_RUNTIME_API_EXT', 'hipLaunchKernel', 4711, 4711, 5, 900, 950),"
        " ('MARKER_CORE_RANGE_API', 'forward', 4711, 4711, 0, 800, 7000);"
        "CREATE VIEW regions AS SELECT * FROM r;"
        "CREATE TABLE m(name TEXT, src_agent_abs_index INT, dst_agent_abs_index INT, stream_id INT,"
        " corr_id INT, size INT, start INT, end INT);"
        "INSERT INTO m VALUES('MEMORY_COPY_HOST_TO_DEVICE', 0, 1, 0, 9, 1048576, 100, 600);"
        "CREATE VIEW memory_copies AS SELECT * FROM m;");
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_sql_text(db, "rocpd database (rocprofv3)", "SELECT format FROM source_file");
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 4004);
    assert_int_equal(TestUtil_int(db, "SELECT grid * 1000 + workgroup FROM dispatch WHERE seq = 1"),
                     128256);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM api_call WHERE domain = 'HIP'"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT end_ns - start_ns FROM range WHERE name = 'forward'"),
                     6200);
    assert_int_equal(TestUtil_int(db, "SELECT bytes FROM copy WHERE dst_agent = 1"), 1048576);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message"), 0);
    TraceDb_delete(db);
    /* an unknown schema_version (3 and 4 are known) still reads the views, with a message */
    sqlite3* h = NULL;
    assert_int_equal(sqlite3_open(p, &h), SQLITE_OK);
    sqlite3_exec(h, "UPDATE rocpd_metadata SET value = '5.0.0'", NULL, NULL, NULL);
    sqlite3_close(h);
    db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message WHERE message LIKE"
                                      " '%schema_version 5.0.0%'"),
                     1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 2);
    TraceDb_delete(db);
    free(p);
}

/* ---- bad databases ------------------------------------------------------------------------ */

/* A folder with a good CSV beside the bad database: the CSV must still load. */
static const char good_csv[] =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
    "\"good_kernel\",2,200,100,100.0\n";

static TraceDb* load_with_good(const char* bad_name, DcuStatus* s) {
    /* in its own folder: a database's per-event rows would supersede stats of its folder */
    char* sub = xasprintf("%s/good", dir);
    mkdir(sub, 0755);
    free(TestUtil_writeFile(sub, "good.stats.csv", good_csv, sizeof(good_csv) - 1));
    free(sub);
    (void)bad_name;
    TraceDb* db = TestUtil_load(dir, s);
    assert_int_equal(*s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT total_ns FROM kernel_summary s JOIN kernel k"
                                      " ON k.id = s.kernel_id WHERE k.name = 'good_kernel'"),
                     200);
    return db;
}

static void wrong_schema_and_types(void** state) {
    (void)state;
    /* KERN without timestamps; OPS with text where numbers belong */
    char* p = make_db("results.db",
                      "CREATE TABLE KERN(\"Index\" INTEGER, \"KernelName\" TEXT);"
                      "INSERT INTO KERN VALUES(0, '\"k\"');"
                      "CREATE TABLE OPS(\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"dev-id\" INTEGER,"
                      " \"queue-id\" INTEGER, \"Name\" TEXT, \"Index\" INTEGER, \"__section\" INTEGER,"
                      " \"DurationNs\" INTEGER);"
                      "INSERT INTO OPS VALUES('soon', 200, 0, 0, 'k_text_time', 1, 6, 5),"
                      " (100, 50, 0, 0, 'k_reversed', 2, 6, 5), (100, 300, x'00ff', 0, 'k_blob', 3, 6, 2),"
                      " (1000, 1500, 0, 0, 'k_ok', 4, 6, 500);");
    size_t n;
    char* before = slurp(p, &n);
    DcuStatus s;
    TraceDb* db = load_with_good("results.db", &s);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file WHERE name = 'results.db'"),
                     3);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message WHERE message LIKE"
                                      " 'table KERN: no KernelName or BeginNs/EndNs%'"),
                     1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message WHERE message LIKE"
                                      " 'table OPS row 1: column BeginNs: not a number ''soon''%'"),
                     1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message WHERE message LIKE"
                                      " '%end timestamp 50 before start 100%'"),
                     1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel WHERE name = 'k_ok'"), 1);
    TraceDb_delete(db);
    assert_same_file(p, before, n);
    free(before);
    free(p);
}

static void truncated_database(void** state) {
    (void)state;
    /* a real database of many pages, cut in half */
    char* sql = xstrdup("CREATE TABLE KERN(\"Index\" INTEGER, \"KernelName\" TEXT, \"BeginNs\" INTEGER,"
                        " \"EndNs\" INTEGER); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1"
                        " FROM c WHERE i < 20000) INSERT INTO KERN SELECT i, '\"kernel_' || (i % 50)"
                        " || '_' || hex(randomblob(20)) || '\"', i * 10, i * 10 + 5 FROM c;");
    char* p = make_db("results.db", sql);
    free(sql);
    size_t n;
    char* whole = slurp(p, &n);
    assert_true(n > 100000);
    char* cut = TestUtil_writeFile(dir, "results.db", whole, n / 2);
    free(whole);
    size_t m;
    char* before = slurp(cut, &m);
    DcuStatus s;
    TraceDb* db = load_with_good("results.db", &s);
    /* a message names the file's table and the SQLite error; nothing crashed */
    char* msg = TestUtil_text(db, "SELECT group_concat(message, ' | ') FROM load_message m"
                                  " JOIN source_file f ON f.id = m.file_id WHERE f.name = 'results.db'");
    assert_non_null(strstr(msg, "malformed"));
    free(msg);
    /* either unreadable from the start (skipped, with the reason) or rows kept up to the
     * damage with the error counted as a rejected row */
    assert_true(TestUtil_int(db, "SELECT rows_rejected > 0 OR note LIKE '%cannot be read%'"
                                 " FROM source_file WHERE name = 'results.db'"));
    TraceDb_delete(db);
    assert_same_file(cut, before, m);
    free(before);
    free(cut);
    free(p);
}

static void locked_database(void** state) {
    (void)state;
    char* p = make_db("results.db", "CREATE TABLE KERN(\"Index\" INTEGER, \"KernelName\" TEXT,"
                                    " \"BeginNs\" INTEGER, \"EndNs\" INTEGER);"
                                    "INSERT INTO KERN VALUES(0, '\"k\"', 10, 20);");
    size_t n;
    char* before = slurp(p, &n);
    /* another process (the profiler) holds an exclusive lock while dcutop loads. It must be
     * another process: POSIX locks belong to the process, and any close() of the file in
     * this process (the loader's sniffing read) would drop them. */
    int go[2], done[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(done), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(go[0]);
        close(done[1]); /* so that the read below ends if the test process dies */
        sqlite3* w = NULL;
        char c = sqlite3_open(p, &w) == SQLITE_OK &&
                         sqlite3_exec(w, "BEGIN EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK
                     ? 'y'
                     : 'n';
        if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1) {
            _exit(2);
        }
        _exit(0); /* the lock goes with the process */
    }
    close(go[1]);
    close(done[0]);
    char c = 0;
    assert_int_equal(read(go[0], &c, 1), 1);
    assert_int_equal(c, 'y');
    DcuStatus s;
    TraceDb* db = load_with_good("results.db", &s);
    char* note = TestUtil_text(db, "SELECT coalesce(note, '') || ' ' || (SELECT group_concat(message)"
                                   " FROM load_message WHERE file_id = f.id) FROM source_file f"
                                   " WHERE name = 'results.db'");
    assert_non_null(strstr(note, "locked"));
    free(note);
    TraceDb_delete(db);
    assert_int_equal(write(done[1], "x", 1), 1);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_int_equal(status, 0);
    close(go[0]);
    close(done[1]);
    assert_same_file(p, before, n);
    /* unlocked, the same file loads */
    db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 10);
    TraceDb_delete(db);
    free(before);
    free(p);
}

static void read_only_file_and_huge_name(void** state) {
    (void)state;
    char* p = make_db("results.db", "CREATE TABLE KERN(\"Index\" INTEGER, \"KernelName\" TEXT,"
                                    " \"BeginNs\" INTEGER, \"EndNs\" INTEGER);"
                                    "INSERT INTO KERN VALUES(0, '\"' || replace(hex(zeroblob(5000000)),"
                                    " '00', 'ab') || '\"', 10, 30);"
                                    "INSERT INTO KERN VALUES(1, '\"small\"', 40, 45);");
    assert_int_equal(chmod(p, 0444), 0);
    size_t n;
    char* before = slurp(p, &n);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    /* the 10 MB name is kept, cut to the 1 MiB every format caps names at; its row loads */
    assert_int_equal(TestUtil_int(db, "SELECT max(length(name)) FROM kernel"), 1 << 20);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 25);
    TraceDb_delete(db);
    assert_same_file(p, before, n);
    chmod(p, 0644);
    free(before);
    free(p);
}

static void not_a_database_and_unknown_schema(void** state) {
    (void)state;
    free(TestUtil_writeFile(dir, "junk.db", "SQLite format 3\0garbage garbage garbage", 40));
    free(make_db("other.db", "CREATE TABLE t(x); INSERT INTO t VALUES(1);"));
    DcuStatus s;
    TraceDb* db = load_with_good("junk.db", &s);
    char* note = TestUtil_text(db, "SELECT note FROM source_file WHERE name = 'junk.db'");
    assert_non_null(strstr(note, "SQLite database that cannot be read"));
    free(note);
    note = TestUtil_text(db, "SELECT note FROM source_file WHERE name = 'other.db'");
    assert_non_null(strstr(note, "unknown schema"));
    free(note);
    TraceDb_delete(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hipprof_db, setup, teardown),
        cmocka_unit_test_setup_teardown(rocprof_v1_new_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(rocprof_v1_rocm4_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(rocpd_views_and_version, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_schema_and_types, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_database, setup, teardown),
        cmocka_unit_test_setup_teardown(locked_database, setup, teardown),
        cmocka_unit_test_setup_teardown(read_only_file_and_huge_name, setup, teardown),
        cmocka_unit_test_setup_teardown(not_a_database_and_unknown_schema, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
