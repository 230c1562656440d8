/* test_bad_input.c - the loader against broken, hostile and odd input (STYLE.md 4: bad rows
 * are data, not failures). Every test builds its files in a fresh temp folder, loads the
 * folder with the Loader and checks: no crash, a load_message naming the bad line, that the
 * good rows and the other files of the folder still load (exact counts and sums), and
 * Loader_run's status. Every loaded database is also scanned for invalid UTF-8 and raw
 * control characters in the text it stores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "dcutop/loader.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

/* ---- realistic headers (FORMATS.md 2.2, 2.3, 3) ----------------------------------------- */

#define STATS_HDR "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
#define V1_HDR                                                                              \
    "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\","     \
    "\"grd\",\"wgr\",\"lds\",\"scr\",\"arch_vgpr\",\"accum_vgpr\",\"sgpr\",\"wave_size\","  \
    "\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"\n"
#define V2_HDR                                                                              \
    "Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,"       \
    "Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,Kernel_Name,Start_Timestamp," \
    "End_Timestamp,Correlation_ID\n\n"
#define V2_API_HDR "Domain,Function,Start_Timestamp,End_Timestamp,Correlation_ID\n\n"
#define V2_COPY_HDR "Domain,Operation,Start_Timestamp,Stop_Timestamp,Correlation_ID\n\n"

/* ---- a growable byte buffer for building files (may hold NULs) -------------------------- */

typedef struct Buf_ {
    char* p;
    size_t len, cap;
} Buf;

static void buf_add(Buf* b, const void* data, size_t n) {
    xgrow((void**)&b->p, &b->cap, b->len + n + 1);
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(Buf* b, const char* s) {
    buf_add(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void buf_printf(Buf* b, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    xgrow((void**)&b->p, &b->cap, b->len + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void buf_write(const Buf* b, const char* dir, const char* name) {
    free(TestUtil_writeFile(dir, name, b->p ? b->p : "", b->len));
}

static void buf_free(Buf* b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static void write_str(const char* dir, const char* name, const char* s) {
    free(TestUtil_writeFile(dir, name, s, strlen(s)));
}

static void mksub(const char* dir, const char* sub) {
    char* p = xasprintf("%s/%s", dir, sub);
    assert_int_equal(mkdir(p, 0755), 0);
    free(p);
}

/* One rocprof v1 results.csv row (ROCm >= 5.3 columns); numbers given as text so tests can
 * put anything in them. */
static void v1_row(Buf* b, int idx, const char* name, const char* pid, const char* begin,
                   const char* end, const char* dur) {
    buf_printf(b,
               "%d,\"%s\",1,0,%d,%s,%s,1024,256,0,0,32,0,16,64,\"0x7f0000\",\"0x7f0100\","
               "%s,%s,%s,%s,%s\n",
               idx, name, idx, pid, pid, begin, begin, end, end, dur);
}

static void v2_row(Buf* b, int idx, const char* name, const char* start, const char* end) {
    buf_printf(b, "%d,1,0,4242,4243,1024,256,0,0,32,0,16,64,\"%s\",%s,%s,%d\n", idx, name, start,
               end, idx + 100);
}

/* ---- the companion: a good file in the same folder that must always load ----------------- */

static void write_companion(const char* dir) {
    mksub(dir, "other");
    write_str(dir, "other/results.hip_stats.csv",
              STATS_HDR "\"hipMemcpy\",4,4000,1000,80.0\n"
                        "\"hipLaunchKernel\",10,1000,100,20.0\n");
}

/* ---- loading ------------------------------------------------------------------------------ */

typedef struct Load_ {
    TraceDb* db;
    DcuStatus status;
    LoadTotals t;
    DcuError err;
} Load;

static int64_t qint(TraceDb* db, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static int64_t qint(TraceDb* db, const char* fmt, ...) {
    char sql[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof(sql), fmt, ap);
    va_end(ap);
    return TestUtil_int(db, sql);
}

static char* qtext(TraceDb* db, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static char* qtext(TraceDb* db, const char* fmt, ...) {
    char sql[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof(sql), fmt, ap);
    va_end(ap);
    return TestUtil_text(db, sql);
}

/* Strict UTF-8 with no C0/C1 control characters and no DEL: what Names_sanitize promises. */
static int clean_text(const unsigned char* s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len;
        unsigned int cp;
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7F) {
                return 0;
            }
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + len > n) {
            return 0;
        }
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) {
                return 0;
            }
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp <= 0x9F)) {
            return 0;
        }
        i += len;
    }
    return 1;
}

static void assert_db_clean(TraceDb* db) {
    static const char* const cols[][2] = {
        {"kernel", "name"},         {"kernel", "short_name"}, {"api_stat", "name"},
        {"api_call", "name"},       {"copy_stat", "name"},    {"copy", "name"},
        {"range", "name"},          {"load_message", "message"}, {"source_file", "path"},
        {"source_file", "name"},    {"source_file", "note"},  {"source_file", "format"},
        {"dispatch_counter", "name"}};
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
        char* sql = xasprintf("SELECT %s FROM %s", cols[i][1], cols[i][0]);
        sqlite3_stmt* st = NULL;
        assert_int_equal(sqlite3_prepare_v2(TraceDb_handle(db), sql, -1, &st, NULL), SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
                continue;
            }
            const unsigned char* s = sqlite3_column_blob(st, 0);
            size_t n = (size_t)sqlite3_column_bytes(st, 0);
            if (!clean_text(s, n)) {
                fail_msg("%s.%s holds invalid UTF-8 or a raw control character: '%.*s'",
                         cols[i][0], cols[i][1], (int)(n > 200 ? 200 : n), (const char*)s);
            }
        }
        sqlite3_finalize(st);
        free(sql);
    }
}

static Load load_dir(const char* dir) {
    Load L;
    memset(&L, 0, sizeof(L));
    assert_int_equal(TraceDb_open(&L.db, TRACE_DB_DEFAULT_MEMORY, &L.err), DCU_OK);
    Loader* l = Loader_new(L.db, NULL);
    L.status = Loader_addPath(l, dir, &L.err);
    if (L.status == DCU_OK) {
        L.status = Loader_run(l, &L.err);
    }
    L.t = *Loader_totals(l);
    Loader_delete(l);
    assert_db_clean(L.db);
    return L;
}

static void check_companion(TraceDb* db) {
    const char* f = "(SELECT id FROM source_file WHERE name = 'other/results.hip_stats.csv')";
    assert_int_equal(qint(db, "SELECT rows_read FROM source_file WHERE id = %s", f), 2);
    assert_int_equal(qint(db, "SELECT rows_rejected FROM source_file WHERE id = %s", f), 0);
    assert_int_equal(qint(db, "SELECT count(*) FROM api_stat WHERE file_id = %s", f), 2);
    assert_int_equal(qint(db, "SELECT sum(total_ns) FROM api_stat WHERE file_id = %s", f), 5000);
    assert_int_equal(qint(db, "SELECT calls FROM api_stat WHERE file_id = %s"
                              " AND name = 'hipLaunchKernel' AND domain = 'HIP'", f), 10);
}

#define FILE_ID(name) "(SELECT id FROM source_file WHERE name = '" name "')"

static int64_t file_int(TraceDb* db, const char* file, const char* col) {
    return qint(db, "SELECT %s FROM source_file WHERE name = '%s'", col, file);
}

static char* file_text(TraceDb* db, const char* file, const char* col) {
    return qtext(db, "SELECT %s FROM source_file WHERE name = '%s'", col, file);
}

static int64_t msg_count(TraceDb* db, const char* file) {
    return qint(db,
                "SELECT count(*) FROM load_message WHERE file_id ="
                " (SELECT id FROM source_file WHERE name = '%s')",
                file);
}

/* The message kept for file:line must exist, be the only one for that line, and contain
 * the text that says what is wrong. */
static void assert_msg(TraceDb* db, const char* file, long line, const char* needle) {
    char cond[1024];
    snprintf(cond, sizeof(cond),
             "file_id = (SELECT id FROM source_file WHERE name = '%s') AND line = %ld", file, line);
    if (qint(db, "SELECT count(*) FROM load_message WHERE %s", cond) != 1) {
        char* all = qtext(db,
                          "SELECT group_concat(coalesce(line, '-') || ': ' || message, ' | ')"
                          " FROM load_message WHERE file_id ="
                          " (SELECT id FROM source_file WHERE name = '%s')",
                          file);
        fail_msg("%s: no single message for line %ld; messages: %s", file, line, all);
    }
    char* m = qtext(db, "SELECT message FROM load_message WHERE %s", cond);
    if (!strstr(m, needle)) {
        fail_msg("%s:%ld: message '%s' does not mention '%s'", file, line, m, needle);
    }
    free(m);
}

static void assert_text(TraceDb* db, const char* expected, const char* sql) {
    char* got = TestUtil_text(db, sql);
    assert_string_equal(got, expected);
    free(got);
}

/* Temp folders are removed by the teardown, so a failed assertion leaves none behind. */
static char* dirs[8];
static int ndirs;

static char* new_dir(void) {
    assert_true(ndirs < (int)(sizeof(dirs) / sizeof(dirs[0])));
    dirs[ndirs] = TestUtil_tempDir();
    return dirs[ndirs++];
}

static int remove_dirs(void** state) {
    (void)state;
    for (int i = 0; i < ndirs; i++) {
        TestUtil_rmTree(dirs[i]);
        free(dirs[i]);
    }
    ndirs = 0;
    return 0;
}

static void finish(Load* L, const char* dir) {
    (void)dir;
    TraceDb_delete(L->db);
    L->db = NULL;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_empty_folder(void** state) {
    (void)state;
    char* dir = new_dir();
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_ERR_EMPTY);
    assert_non_null(strstr(L.err.msg, "no files found"));
    assert_int_equal(L.t.files, 0);
    assert_int_equal(L.t.rows, 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM source_file"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM load_message"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_summary"), 0);
    finish(&L, dir);

    /* a folder holding only dot files and empty sub-folders is just as empty */
    dir = new_dir();
    mksub(dir, "a");
    mksub(dir, "a/b");
    write_str(dir, ".hidden.stats.csv", STATS_HDR "\"k\",1,1,1,100.0\n");
    L = load_dir(dir);
    assert_int_equal(L.status, DCU_ERR_EMPTY);
    assert_int_equal(L.t.files, 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 0);
    finish(&L, dir);
}

static void test_empty_file(void** state) {
    (void)state;
    char* dir = new_dir();
    write_str(dir, "empty.stats.csv", "");
    write_str(dir, "blank.stats.csv", "\n\r\n\n");
    write_str(dir, "header_only.stats.csv", STATS_HDR);
    write_companion(dir);
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.files, 4);
    assert_int_equal(L.t.files_loaded, 1);
    assert_int_equal(L.t.files_skipped, 3);
    assert_int_equal(L.t.files_failed, 0);
    assert_int_equal(L.t.rows, 2);
    assert_int_equal(L.t.rejected, 0);
    assert_text(L.db, "skipped", "SELECT format FROM source_file WHERE name = 'empty.stats.csv'");
    assert_text(L.db, "empty file", "SELECT note FROM source_file WHERE name = 'empty.stats.csv'");
    assert_int_equal(file_int(L.db, "empty.stats.csv", "bytes"), 0);
    assert_text(L.db, "skipped", "SELECT format FROM source_file WHERE name = 'blank.stats.csv'");
    assert_text(L.db, "empty file", "SELECT note FROM source_file WHERE name = 'blank.stats.csv'");
    /* a header and no rows: recognised, nothing stored, nothing wrong */
    assert_text(L.db, "rocprof v1 kernel stats",
                "SELECT format FROM source_file WHERE name = 'header_only.stats.csv'");
    assert_int_equal(file_int(L.db, "header_only.stats.csv", "rows_read"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM load_message"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 0);
    check_companion(L.db);
    finish(&L, dir);

    /* only an empty file: nothing at all could be loaded */
    dir = new_dir();
    write_str(dir, "empty.stats.csv", "");
    L = load_dir(dir);
    assert_int_equal(L.status, DCU_ERR_EMPTY);
    assert_int_equal(L.t.files, 1);
    assert_int_equal(L.t.files_skipped, 1);
    finish(&L, dir);

    /* the same, given as a single file instead of a folder */
    dir = new_dir();
    char* p = TestUtil_writeFile(dir, "only.hipkernel.csv", "", 0);
    L = load_dir(p);
    assert_int_equal(L.status, DCU_ERR_EMPTY);
    assert_int_equal(L.t.files, 1);
    free(p);
    finish(&L, dir);
}

static void test_unreadable_file(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    /* a dangling symlink can never be opened, even by root */
    char* target = xasprintf("%s/does-not-exist.csv", dir);
    char* link = xasprintf("%s/results.stats.csv", dir);
    assert_int_equal(symlink(target, link), 0);
    /* chmod 000: unreadable for a normal user; root reads it anyway */
    char* locked = TestUtil_writeFile(dir, "locked.hipkernel.csv",
                                      STATS_HDR "\"locked_kernel\",2,20,10,100.0\n",
                                      strlen(STATS_HDR "\"locked_kernel\",2,20,10,100.0\n"));
    assert_int_equal(chmod(locked, 0), 0);
    int root_reads = access(locked, R_OK) == 0;

    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.files, 3);
    assert_text(L.db, "unreadable", "SELECT format FROM source_file WHERE name = 'results.stats.csv'");
    char* note = file_text(L.db, "results.stats.csv", "note");
    assert_non_null(strstr(note, "cannot open"));
    assert_non_null(strstr(note, "No such file or directory"));
    free(note);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 0);
    if (root_reads) {
        /* running as root: chmod 000 does not stop reading, so the file simply loads */
        assert_int_equal(L.t.files_failed, 1);
        assert_int_equal(file_int(L.db, "locked.hipkernel.csv", "rows_read"), 1);
    } else {
        assert_int_equal(L.t.files_failed, 2);
        assert_text(L.db, "unreadable",
                    "SELECT format FROM source_file WHERE name = 'locked.hipkernel.csv'");
        note = file_text(L.db, "locked.hipkernel.csv", "note");
        assert_non_null(strstr(note, "Permission denied"));
        free(note);
        assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 0);
    }
    check_companion(L.db);
    TraceDb_delete(L.db);

    /* a folder of only unreadable files: nothing loadable */
    char* dir2 = new_dir();
    char* link2 = xasprintf("%s/results_123.csv", dir2);
    assert_int_equal(symlink(target, link2), 0);
    L = load_dir(dir2);
    assert_int_equal(L.status, DCU_ERR_EMPTY);
    assert_int_equal(L.t.files_failed, 1);
    finish(&L, dir2);

    chmod(locked, 0644);
    free(target);
    free(link);
    free(link2);
    free(locked);
}

static void test_binary_file(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    /* an ELF-like binary without a comma in its head */
    unsigned char elf[4096];
    memset(elf, 0, sizeof(elf));
    memcpy(elf, "\x7f" "ELF\x02\x01\x01", 7);
    for (size_t i = 64; i < sizeof(elf); i++) {
        elf[i] = (unsigned char)(i * 7 % 43 == 0 ? 0 : (i * 13) % 40 + 0x80);
    }
    free(TestUtil_writeFile(dir, "a.out", elf, sizeof(elf)));
    /* pseudo-random bytes, commas, quotes and NULs included, under a trace-like name */
    unsigned char rnd[20000];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof(rnd); i++) {
        x = x * 1103515245u + 12345u;
        rnd[i] = (unsigned char)(x >> 16);
    }
    free(TestUtil_writeFile(dir, "results.stats.csv", rnd, sizeof(rnd)));
    /* an SQLite file and a gzip file sitting beside the CSVs */
    free(TestUtil_writeFile(dir, "results.db", "SQLite format 3\0\x10\0\x01\x01\0", 22));
    free(TestUtil_writeFile(dir, "trace.json.gz", "\x1f\x8b\x08\0\0\0\0\0", 8));

    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.files, 5);
    assert_int_equal(L.t.files_loaded, 1);
    assert_int_equal(L.t.files_failed, 0);
    assert_text(L.db, "skipped", "SELECT format FROM source_file WHERE name = 'a.out'");
    assert_text(L.db, "binary file, not a trace",
                "SELECT note FROM source_file WHERE name = 'a.out'");
    assert_text(L.db, "skipped", "SELECT format FROM source_file WHERE name = 'results.stats.csv'");
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 0);
    char* note = file_text(L.db, "results.stats.csv", "note");
    assert_true(strlen(note) > 0);
    free(note);
    note = file_text(L.db, "results.db", "note");
    assert_non_null(strstr(note, "SQLite"));
    free(note);
    note = file_text(L.db, "trace.json.gz", "note");
    assert_non_null(strstr(note, "gzip"));
    free(note);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel"), 0);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_unknown_header(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    write_str(dir, "notes.csv", "Foo,Bar,Baz\n1,2,3\n4,5,6\n");
    write_str(dir, "bytes.csv", "\"Col\xff\",X\x01Y\n1,2\n");
    Buf wide = {0};
    for (int i = 0; i < 200; i++) {
        buf_printf(&wide, "%sColumnNumber%d", i ? "," : "", i);
    }
    buf_str(&wide, "\n1,2,3\n");
    buf_write(&wide, dir, "wide.csv");
    buf_free(&wide);

    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.files, 4);
    assert_int_equal(L.t.files_skipped, 3);
    assert_int_equal(L.t.rejected, 0);
    assert_text(L.db, "skipped", "SELECT format FROM source_file WHERE name = 'notes.csv'");
    char* note = file_text(L.db, "notes.csv", "note");
    assert_non_null(strstr(note, "unrecognised CSV header"));
    assert_non_null(strstr(note, "'Foo,Bar,Baz'"));
    free(note);
    assert_int_equal(file_int(L.db, "notes.csv", "rows_read"), 0);
    assert_int_equal(file_int(L.db, "notes.csv", "rows_rejected"), 0);
    /* the header is shown sanitized: bad bytes and control characters as \xNN */
    note = file_text(L.db, "bytes.csv", "note");
    assert_non_null(strstr(note, "'Col\\xFF,X\\x01Y'"));
    free(note);
    /* a very wide header is cut short in the note, not overflowed */
    note = file_text(L.db, "wide.csv", "note");
    assert_non_null(strstr(note, "unrecognised CSV header 'ColumnNumber0,ColumnNumber1,"));
    assert_true(strlen(note) < 200);
    free(note);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM load_message"), 0);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_ragged_rows(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    /* too few columns in a per-dispatch file */
    mksub(dir, "v1");
    Buf b = {0};
    buf_str(&b, V1_HDR);
    v1_row(&b, 0, "void gemm_kernel<float>(float*, int)", "100", "1000", "1400", "400");
    buf_str(&b, "1,\"void short_row(int)\",1\n");
    v1_row(&b, 2, "void gemm_kernel<float>(float*, int)", "100", "2000", "2600", "600");
    buf_write(&b, dir, "v1/results.csv");
    buf_free(&b);
    /* too few columns in a stats file */
    write_str(dir, "results.stats.csv",
              STATS_HDR "\"stat_kernel_a\",2,200,100,50.0\n"
                        "\"stat_kernel_b\",3\n"
                        "\"stat_kernel_c\",1,200,200,50.0\n");
    /* too many columns where no name column can absorb them (rocprofv2 async copies) */
    mksub(dir, "v2");
    write_str(dir, "v2/async_copy_trace_4242.csv",
              V2_COPY_HDR "HSA_OPS_DOMAIN,COPY_HOST_TO_DEVICE,100,250,1\n"
                          "HSA_OPS_DOMAIN,COPY_HOST_TO_DEVICE,300,400,2,extra,more\n"
                          "HSA_OPS_DOMAIN,COPY_DEVICE_TO_HOST,500,520,3\n");
    /* a row wider than CSV_MAX_FIELDS */
    Buf w = {0};
    buf_str(&w, STATS_HDR "\"wide_ok\",1,10,10,100.0\n\"wide_bad\"");
    for (int i = 0; i < 5000; i++) {
        buf_str(&w, ",1");
    }
    buf_str(&w, "\n\"wide_ok2\",1,30,30,100.0\n");
    buf_write(&w, dir, "wide.stats.csv");
    buf_free(&w);

    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.rejected, 4);
    assert_msg(L.db, "v1/results.csv", 3, "expected 22 columns but found 3");
    assert_int_equal(msg_count(L.db, "v1/results.csv"), 1);
    assert_int_equal(file_int(L.db, "v1/results.csv", "rows_read"), 2);
    assert_int_equal(file_int(L.db, "v1/results.csv", "rows_rejected"), 1);
    assert_int_equal(qint(L.db, "SELECT count(*) FROM dispatch WHERE file_id = %s",
                          FILE_ID("v1/results.csv")), 2);
    assert_int_equal(qint(L.db, "SELECT sum(dur_ns) FROM dispatch WHERE file_id = %s",
                          FILE_ID("v1/results.csv")), 1000);

    assert_msg(L.db, "results.stats.csv", 3, "expected 5 columns but found 2");
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 2);
    assert_int_equal(qint(L.db, "SELECT sum(total_ns) FROM kernel_stat WHERE file_id = %s",
                          FILE_ID("results.stats.csv")), 400);

    assert_text(L.db, "rocprofv2 async copy trace",
                "SELECT format FROM source_file WHERE name = 'v2/async_copy_trace_4242.csv'");
    assert_msg(L.db, "v2/async_copy_trace_4242.csv", 4, "expected 5 columns but found 7");
    assert_int_equal(file_int(L.db, "v2/async_copy_trace_4242.csv", "rows_read"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM copy"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM copy"), 170);

    assert_msg(L.db, "wide.stats.csv", 3, "more than 4096 columns");
    assert_int_equal(file_int(L.db, "wide.stats.csv", "rows_read"), 2);
    assert_int_equal(qint(L.db, "SELECT sum(total_ns) FROM kernel_stat WHERE file_id = %s",
                          FILE_ID("wide.stats.csv")), 40);

    /* the summary: dispatch kernel from v1/, the stats kernels from the top folder */
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name ="
                                        " 'void gemm_kernel<float>(float*, int)'"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_summary"), 5);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 1440);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_truncated_last_line(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    /* a complete last row without its newline still counts */
    write_str(dir, "a.stats.csv", STATS_HDR "\"kern_a1\",1,100,100,50.0\n\"kern_a2\",2,100,50,50.0");
    /* a row cut after its third field */
    write_str(dir, "b.stats.csv", STATS_HDR "\"kern_b1\",3,300,100,100.0\n\"kern_b2\",5,5");
    /* a row cut in the middle of a quoted name */
    write_str(dir, "c.stats.csv", STATS_HDR "\"kern_c1\",4,400,100,100.0\n\"void cut_kernel<int, ");
    /* a quoted name left open across lines until the end of the file */
    write_str(dir, "d.stats.csv",
              STATS_HDR "\"kern_d1\",5,500,100,100.0\n\"void cut_kernel<int,\n   float>(int");
    /* a rocprofv2 dispatch file cut inside the kernel name */
    mksub(dir, "v2");
    Buf b = {0};
    buf_str(&b, V2_HDR);
    v2_row(&b, 1, "void v2_kernel(int*)", "1000", "1700");
    buf_str(&b, "2,1,0,4242,4243,1024,256,0,0,32,0,16,64,\"void v2_ker");
    buf_write(&b, dir, "v2/results_4242.csv");
    buf_free(&b);

    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(msg_count(L.db, "a.stats.csv"), 0);
    assert_int_equal(file_int(L.db, "a.stats.csv", "rows_read"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM kernel_stat s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'kern_a2'"), 2);

    assert_msg(L.db, "b.stats.csv", 3, "expected 5 columns but found 3");
    assert_int_equal(file_int(L.db, "b.stats.csv", "rows_read"), 1);
    assert_int_equal(file_int(L.db, "b.stats.csv", "rows_rejected"), 1);

    assert_msg(L.db, "c.stats.csv", 3, "expected 5 columns but found 1");
    assert_int_equal(file_int(L.db, "c.stats.csv", "rows_read"), 1);
    assert_int_equal(file_int(L.db, "c.stats.csv", "rows_rejected"), 1);

    assert_msg(L.db, "d.stats.csv", 3, "expected 5 columns but found 1");
    assert_int_equal(file_int(L.db, "d.stats.csv", "rows_read"), 1);
    assert_int_equal(file_int(L.db, "d.stats.csv", "rows_rejected"), 1);

    assert_msg(L.db, "v2/results_4242.csv", 4, "expected 17 columns but found 14");
    assert_int_equal(file_int(L.db, "v2/results_4242.csv", "rows_read"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT dur_ns FROM dispatch"), 700);

    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name LIKE '%cut%'"
                                        " OR name LIKE '%v2_ker'"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_summary"), 6);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 2100);
    assert_int_equal(L.t.rejected, 4);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_crlf_line_ends(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    write_str(dir, "results.stats.csv",
              "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\r\n"
              "\"void crlf_kernel(float*, int)\",3,300,100,60.0\r\n"
              "crlf_plain,1,100,100,20.0\r\n"
              "\"crlf_bad\",x,100,100,20.0\r\n"
              "\"crlf_last\",1,100,100,20.0\r\n");
    mksub(dir, "v2");
    write_str(dir, "v2/hip_api_trace_4242.csv",
              "Domain,Function,Start_Timestamp,End_Timestamp,Correlation_ID\r\n\r\n"
              "HIP_API_DOMAIN,hipMalloc,100,150,7\r\n"
              "HIP_API_DOMAIN,hipFree,200,180,8\r\n"
              "HIP_API_DOMAIN,hipMemcpy,300,390,9\r\n");
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_text(L.db, "rocprof v1 kernel stats",
                "SELECT format FROM source_file WHERE name = 'results.stats.csv'");
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 3);
    assert_msg(L.db, "results.stats.csv", 4, "not a number 'x'");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name ="
                                        " 'void crlf_kernel(float*, int)'"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name = 'crlf_plain'"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name = 'crlf_last'"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name LIKE '%\\x0D%'"
                                        " OR name GLOB '*[\r\n]*'"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 500);

    assert_text(L.db, "rocprofv2 API trace",
                "SELECT format FROM source_file WHERE name = 'v2/hip_api_trace_4242.csv'");
    assert_msg(L.db, "v2/hip_api_trace_4242.csv", 4, "end timestamp 180 before start 200");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM api_call"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(corr_id) FROM api_call"), 16);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM api_call"), 140);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM api_call WHERE name = 'hipMemcpy'"), 1);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_utf8_bom(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    write_str(dir, "results.stats.csv",
              "\xEF\xBB\xBF" STATS_HDR "\"bom_kernel\",2,200,100,100.0\n\"bom_bad\",-1,5,5,0\n");
    write_str(dir, "crlf.stats.csv",
              "\xEF\xBB\xBF\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\r\n"
              "bom_crlf_kernel,1,50,50,100.0\r\n");
    mksub(dir, "v2");
    Buf b = {0};
    buf_str(&b, "\xEF\xBB\xBF" V2_HDR);
    v2_row(&b, 1, "void bom_v2_kernel()", "10", "30");
    buf_write(&b, dir, "v2/results_777.csv");
    buf_free(&b);
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_text(L.db, "rocprof v1 kernel stats",
                "SELECT format FROM source_file WHERE name = 'results.stats.csv'");
    assert_text(L.db, "rocprof v1 kernel stats",
                "SELECT format FROM source_file WHERE name = 'crlf.stats.csv'");
    assert_text(L.db, "rocprofv2 kernel trace",
                "SELECT format FROM source_file WHERE name = 'v2/results_777.csv'");
    assert_msg(L.db, "results.stats.csv", 3, "negative value '-1'");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name GLOB '*bom*'"), 3);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE hex(name) LIKE 'EFBBBF%'"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 270);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 1);
    assert_int_equal(L.t.rejected, 1);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_nul_bytes(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    static const char stats[] = STATS_HDR "\"ker\0nel_nul\",3,300,100,50.0\n"
                                          "\"kern_num_nul\",1,2\0" "00,100,20.0\n"
                                          "\"kern_calls_nul\",\0" "1,100,100,10.0\n"
                                          "\"kern_ok\",1,100,100,20.0\n";
    free(TestUtil_writeFile(dir, "results.stats.csv", stats, sizeof(stats) - 1));
    mksub(dir, "v2");
    static const char api[] = V2_API_HDR "HIP_API_DOMAIN,hipMalloc,100,150,7\n"
                                         "HIP_API_DOMAIN,hip\0Free,200,280,8\n"
                                         "HIP_API_DOMAIN,hipMemcpy,300,3\0" "90,9\n"
                                         "HIP_API_DOMAIN,hipMemset,400,410,1\0" "0\n";
    free(TestUtil_writeFile(dir, "v2/hip_api_trace_4242.csv", api, sizeof(api) - 1));
    /* an id-like column ("Agent 4" style parsing) with a NUL in it */
    static const char v2[] = V2_HDR
        "1,1,0,4242,4243,1024,256,0,0,32,0,16,64,\"void nul_v2(int)\",1000,1100,101\n"
        "2,1\0" "2,0,4242,4243,1024,256,0,0,32,0,16,64,\"void nul_v2(int)\",2000,2100,102\n";
    free(TestUtil_writeFile(dir, "v2/results_4242.csv", v2, sizeof(v2) - 1));

    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    /* a NUL in a name is kept, visibly */
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM kernel_stat s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'ker\\x00nel_nul'"), 3);
    /* a NUL in a number makes it not a number: never read as the digits before it */
    assert_msg(L.db, "results.stats.csv", 3, "not a number '2\\x0000'");
    assert_msg(L.db, "results.stats.csv", 4, "not a number '\\x001'");
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 2);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_rejected"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 500);

    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM api_call WHERE name = 'hip\\x00Free'"), 1);
    assert_msg(L.db, "v2/hip_api_trace_4242.csv", 5, "not a number '3\\x0090'");
    assert_msg(L.db, "v2/hip_api_trace_4242.csv", 6, "not a number '1\\x000'");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM api_call"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM api_call"), 130);
    assert_msg(L.db, "v2/results_4242.csv", 4, "column 2: not a number '1\\x002'");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT gpu FROM dispatch"), 1);
    assert_int_equal(L.t.rejected, 5);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_huge_kernel_name(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    /* ~100 KB: template arguments with commas, a tab in the argument list */
    Buf raw = {0}, tmpl = {0};
    buf_str(&tmpl, "huge_kernel<");
    for (int i = 0; tmpl.len < 100 * 1024; i++) {
        buf_printf(&tmpl, "%sFunctor<int, %d>", i ? ", " : "", i);
    }
    buf_str(&tmpl, ">");
    buf_printf(&raw, "void %s(float*,\tint) [clone .kd]", tmpl.p);
    assert_true(raw.len > 100 * 1024);
    Buf expect = {0};
    buf_printf(&expect, "void %s(float*,\\x09int)", tmpl.p);

    Buf b = {0};
    buf_str(&b, STATS_HDR);
    buf_printf(&b, "\"%s\",7,7000,1000,90.0\n", raw.p);
    buf_str(&b, "\"small_kernel\",1,700,700,10.0\n");
    buf_write(&b, dir, "results.stats.csv");
    buf_free(&b);
    /* the same kernel per dispatch in a rocprofv2 file (another folder, so not superseded) */
    mksub(dir, "v2");
    buf_str(&b, V2_HDR);
    v2_row(&b, 1, raw.p, "1000", "1600");
    v2_row(&b, 2, raw.p, "2000", "2400");
    buf_write(&b, dir, "v2/results_4242.csv");
    buf_free(&b);

    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.rejected, 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM load_message"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel"), 2);
    int64_t kid = TestUtil_int(L.db, "SELECT id FROM kernel WHERE name <> 'small_kernel'");
    char* name = qtext(L.db, "SELECT name FROM kernel WHERE id = %lld", (long long)kid);
    assert_int_equal(strlen(name), expect.len);
    assert_string_equal(name, expect.p);
    free(name);
    char* shrt = qtext(L.db, "SELECT short_name FROM kernel WHERE id = %lld", (long long)kid);
    assert_string_equal(shrt, tmpl.p);
    free(shrt);
    assert_int_equal(qint(L.db, "SELECT calls FROM kernel_stat WHERE kernel_id = %lld",
                          (long long)kid), 7);
    assert_int_equal(qint(L.db, "SELECT count(*) FROM dispatch WHERE kernel_id = %lld",
                          (long long)kid), 2);
    assert_int_equal(qint(L.db, "SELECT calls FROM kernel_summary WHERE kernel_id = %lld",
                          (long long)kid), 9);
    assert_int_equal(qint(L.db, "SELECT total_ns FROM kernel_summary WHERE kernel_id = %lld",
                          (long long)kid), 8000);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 8700);
    check_companion(L.db);
    buf_free(&raw);
    buf_free(&tmpl);
    buf_free(&expect);
    finish(&L, dir);
}

static void test_non_utf8_name(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    write_str(dir, "results.stats.csv",
              STATS_HDR "\"kern\xff\xfe_a\",1,10,10,1.0\n"      /* bytes never valid in UTF-8 */
                        "\"caf\xc3\xa9_ok\",2,20,10,2.0\n"      /* valid UTF-8 kept as is */
                        "\"trunc\xe2\x82\",3,30,10,3.0\n"       /* cut 3-byte sequence */
                        "\"ovl\xc0\xaf\",4,40,10,4.0\n"         /* overlong '/' */
                        "\"sur\xed\xa0\x80\",5,50,10,5.0\n"     /* UTF-16 surrogate */
                        "\"c1\xc2\x85x\",6,60,10,6.0\n"         /* C1 control NEL */
                        "\"latin1 \xe9t\xe9\",7,70,10,7.0\n");  /* ISO-8859-1 */
    write_str(dir, "bad\xff.hip_stats.csv", STATS_HDR "\"hipMalloc\xff\",2,20,10,100.0\n");
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.rejected, 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel"), 7);
    static const struct {
        const char* name;
        int calls;
    } want[] = {{"kern\\xFF\\xFE_a", 1}, {"caf\xc3\xa9_ok", 2}, {"trunc\\xE2\\x82", 3},
                {"ovl\\xC0\\xAF", 4},    {"sur\\xED\\xA0\\x80", 5}, {"c1\\xC2\\x85x", 6},
                {"latin1 \\xE9t\\xE9", 7}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        int64_t calls = qint(L.db,
                             "SELECT calls FROM kernel_stat s JOIN kernel k ON k.id = s.kernel_id"
                             " WHERE k.name = '%s'",
                             want[i].name);
        if (calls != want[i].calls) {
            fail_msg("kernel '%s' not stored as expected (calls %lld)", want[i].name,
                     (long long)calls);
        }
    }
    assert_text(L.db, "636166C3A95F6F6B", "SELECT hex(name) FROM kernel WHERE name LIKE 'caf%'");
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 280);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM source_file"
                                        " WHERE name = 'bad\\xFF.hip_stats.csv'"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM api_stat"
                                        " WHERE name = 'hipMalloc\\xFF' AND domain = 'HIP'"), 2);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_negative_and_reversed_times(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    mksub(dir, "v1");
    Buf b = {0};
    buf_str(&b, V1_HDR);
    v1_row(&b, 0, "void k_time(int)", "100", "1000", "1500", "500");
    v1_row(&b, 1, "void k_time(int)", "100", "2000", "1900", "-100");
    v1_row(&b, 2, "void k_time(int)", "100", "-5", "10", "15");
    v1_row(&b, 3, "void k_time(int)", "100", "3000", "-3100", "0");
    v1_row(&b, 4, "void k_time(int)", "100", "4000", "4250", "250");
    buf_write(&b, dir, "v1/results.csv");
    buf_free(&b);
    mksub(dir, "stats");
    write_str(dir, "stats/results.stats.csv",
              STATS_HDR "\"neg_total\",1,-300,-300,10.0\n"
                        "\"neg_calls\",-2,300,150,10.0\n"
                        "\"good_stat\",2,600,300,80.0\n");
    mksub(dir, "v2");
    write_str(dir, "v2/hip_api_trace_4242.csv",
              V2_API_HDR "HIP_API_DOMAIN,hipMalloc,100,150,7\n"
                         "HIP_API_DOMAIN,hipFree,200,199,8\n"
                         "HIP_API_DOMAIN,hipFree,-20,10,9\n"
                         "HIP_API_DOMAIN,hipMemcpy,300,390,10\n");
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_msg(L.db, "v1/results.csv", 3, "end timestamp 1900 before start 2000");
    assert_msg(L.db, "v1/results.csv", 4, "negative value '-5'");
    assert_msg(L.db, "v1/results.csv", 4, "column 19");
    assert_msg(L.db, "v1/results.csv", 5, "negative value '-3100'");
    assert_int_equal(msg_count(L.db, "v1/results.csv"), 3);
    assert_int_equal(file_int(L.db, "v1/results.csv", "rows_read"), 2);
    assert_int_equal(file_int(L.db, "v1/results.csv", "rows_rejected"), 3);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM dispatch"), 750);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch WHERE dur_ns < 0"), 0);

    assert_msg(L.db, "stats/results.stats.csv", 2, "negative value '-300'");
    assert_msg(L.db, "stats/results.stats.csv", 2, "TotalDurationNs");
    assert_msg(L.db, "stats/results.stats.csv", 3, "negative value '-2'");
    assert_msg(L.db, "stats/results.stats.csv", 3, "Calls");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat WHERE total_ns < 0"
                                        " OR calls < 0"), 0);

    assert_msg(L.db, "v2/hip_api_trace_4242.csv", 4, "end timestamp 199 before start 200");
    assert_msg(L.db, "v2/hip_api_trace_4242.csv", 5, "negative value '-20'");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM api_call"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM api_call"), 140);

    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_summary"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 1350);
    assert_int_equal(TestUtil_int(L.db, "SELECT min(min_ns) FROM kernel_summary"), 250);
    assert_int_equal(L.t.rejected, 7);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_int64_overflow(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    write_str(dir, "results.stats.csv",
              STATS_HDR "\"big_calls\",99999999999999999999,100,1,10.0\n"
                        "\"big_total\",1,9223372036854775808,1,10.0\n"
                        "\"big_negative\",1,-9223372036854775809,1,10.0\n"
                        "\"big_float\",1,1e300,1,10.0\n"
                        "\"max_total\",1,9223372036854775807,1,10.0\n"
                        "\"normal\",2,200,100,10.0\n");
    mksub(dir, "v1");
    Buf b = {0};
    buf_str(&b, V1_HDR);
    v1_row(&b, 0, "void k_big(int)", "100", "1000", "1500", "500");
    v1_row(&b, 1, "void k_big(int)", "100", "18446744073709551616", "1", "0");
    v1_row(&b, 2, "void k_big(int)", "100000000000000000000000", "2000", "2100", "100");
    v1_row(&b, 3, "void k_big(int)", "100", "3000", "3300", "300");
    buf_write(&b, dir, "v1/results.csv");
    buf_free(&b);
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_msg(L.db, "results.stats.csv", 2, "out of range");
    assert_msg(L.db, "results.stats.csv", 2, "Calls");
    assert_msg(L.db, "results.stats.csv", 3, "out of range");
    assert_msg(L.db, "results.stats.csv", 3, "TotalDurationNs");
    assert_msg(L.db, "results.stats.csv", 4, "out of range");
    assert_msg(L.db, "results.stats.csv", 5, "out of range");
    /* INT64_MAX parses but is no measurement (over 2^53): rejected, not summed */
    assert_msg(L.db, "results.stats.csv", 6, "9223372036854775807 is out of range (over 2^53)");
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 1);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_rejected"), 5);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'max_total'"),
                     0);
    assert_int_equal(TestUtil_int(L.db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'normal'"), 200);

    assert_msg(L.db, "v1/results.csv", 3, "out of range '18446744073709551616'");
    assert_msg(L.db, "v1/results.csv", 4, "out of range '100000000000000000000000'");
    assert_int_equal(file_int(L.db, "v1/results.csv", "rows_read"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM dispatch"), 800);
    assert_int_equal(TestUtil_int(L.db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'void k_big(int)'"),
                     800);
    assert_int_equal(L.t.rejected, 7);
    check_companion(L.db);
    finish(&L, dir);
}

/* Values each in range (at most 2^53, LOAD_MAX_AMOUNT) whose sum is not: 1100 of them pass
 * INT64_MAX. The summary must saturate, not fail the whole load. */
static void test_int64_sum_overflow(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    Buf a = {0};
    buf_str(&a, STATS_HDR "\"other_kernel\",1,100,100,10.0\n");
    for (int i = 0; i < 1099; i++) {
        buf_str(&a, "\"same_kernel\",1,9007199254740992,1,10.0\n");
    }
    buf_write(&a, dir, "a.stats.csv");
    buf_free(&a);
    write_str(dir, "b.stats.csv", STATS_HDR "\"same_kernel\",1,9007199254740992,1,10.0\n");
    /* per dispatch: 1100 dispatches of 2^53 ns each (start 0, end 2^53) */
    mksub(dir, "v1");
    Buf b = {0};
    buf_str(&b, V1_HDR);
    for (int i = 0; i < 1100; i++) {
        v1_row(&b, i, "void k_forever(int)", "100", "0", "9007199254740992", "0");
    }
    v1_row(&b, 1100, "void k_sane(int)", "100", "5000", "5300", "300");
    buf_write(&b, dir, "v1/results.csv");
    buf_free(&b);
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.rejected, 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 1101);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 1101);
    assert_int_equal(TestUtil_int(L.db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'other_kernel'"), 100);
    assert_int_equal(TestUtil_int(L.db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'void k_sane(int)'"), 300);
    /* the overflowing sums saturate instead of failing the load */
    assert_int_equal(TestUtil_int(L.db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'same_kernel'"),
                     INT64_MAX);
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'same_kernel'"), 1100);
    assert_int_equal(TestUtil_int(L.db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'void k_forever(int)'"),
                     INT64_MAX);
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'void k_forever(int)'"),
                     1100);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_summary"), 4);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_thousand_bad_rows(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    Buf b = {0};
    buf_str(&b, STATS_HDR "\"first_good\",1,100,100,10.0\n");
    for (int i = 0; i < 1000; i++) {
        buf_printf(&b, "\"bad_%d\",lots,100,100,0.1\n", i);
    }
    buf_str(&b, "\"last_good\",2,300,150,30.0\n");
    buf_write(&b, dir, "results.stats.csv");
    buf_free(&b);
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(L.t.rejected, 1000);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_rejected"), 1000);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 2);
    assert_int_equal(msg_count(L.db, "results.stats.csv"), 6);
    for (long line = 3; line <= 7; line++) {
        assert_msg(L.db, "results.stats.csv", line, "column 2 (Calls): not a number 'lots'");
    }
    assert_text(L.db, "995 more rejected rows not listed",
                "SELECT message FROM load_message WHERE line IS NULL AND file_id = "
                FILE_ID("results.stats.csv"));
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name LIKE 'bad_%'"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 400);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(calls) FROM kernel_summary"), 3);
    check_companion(L.db);
    finish(&L, dir);

    /* only bad rows anywhere: the messages are kept, and the load says nothing loaded */
    dir = new_dir();
    write_str(dir, "results.stats.csv", STATS_HDR "\"k1\",x,1,1,1\n\"k2\",1,y,1,1\n");
    L = load_dir(dir);
    assert_int_equal(L.status, DCU_ERR_EMPTY);
    assert_int_equal(L.t.rejected, 2);
    assert_int_equal(msg_count(L.db, "results.stats.csv"), 2);
    assert_msg(L.db, "results.stats.csv", 3, "not a number 'y'");
    finish(&L, dir);
}

static void test_unquoted_names_with_commas(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    static const char kokkos[] =
        "void Kokkos::Impl::hip_parallel_launch_local_memory<Kokkos::Impl::ParallelFor<"
        "Kokkos::Impl::ViewValueFunctor<Kokkos::Device<Kokkos::Experimental::HIP, "
        "Kokkos::Experimental::HIPSpace>, double, true>, Kokkos::RangePolicy<"
        "Kokkos::Experimental::HIP, Kokkos::IndexType<long> >, Kokkos::Experimental::HIP>, "
        "1024u, 1u>(Kokkos::Impl::ParallelFor<Kokkos::Impl::ViewValueFunctor<Kokkos::Device<"
        "Kokkos::Experimental::HIP, Kokkos::Experimental::HIPSpace>, double, true>, "
        "Kokkos::RangePolicy<Kokkos::Experimental::HIP, Kokkos::IndexType<long> >, "
        "Kokkos::Experimental::HIP>)";
    static const char lambda[] =
        "void scatter_view_loop<Kokkos::View<int**>, Kokkos::View<int*>, "
        "main::{lambda(int)#1}>(Kokkos::View<int**>, int,  int)";
    Buf b = {0};
    buf_str(&b, STATS_HDR);
    buf_printf(&b, "%s [clone .kd],1,533600,533600,32.44479034925576\n", lambda);
    buf_printf(&b, "%s,3,300000,100000,18.5\n", kokkos);
    buf_str(&b, "__amd_rocclr_fillBufferAligned.kd,2,5000,2500,0.3\n");
    buf_printf(&b, "%s,x,1,1,1\n", kokkos);
    buf_write(&b, dir, "results.stats.csv");
    buf_free(&b);
    write_str(dir, "results.hip_stats.csv",
              STATS_HDR "hipLaunchKernel,12,1200,100,60.0\nhipMemcpy,2,800,400,40.0\n");
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 3);
    assert_int_equal(qint(L.db, "SELECT calls FROM kernel_stat s JOIN kernel k ON"
                                " k.id = s.kernel_id WHERE k.name = '%s'", lambda), 1);
    assert_int_equal(qint(L.db, "SELECT total_ns FROM kernel_stat s JOIN kernel k ON"
                                " k.id = s.kernel_id WHERE k.name = '%s'", lambda), 533600);
    assert_int_equal(qint(L.db, "SELECT calls FROM kernel_stat s JOIN kernel k ON"
                                " k.id = s.kernel_id WHERE k.name = '%s'", kokkos), 3);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name ="
                                        " '__amd_rocclr_fillBufferAligned'"), 1);
    /* short names drop namespaces (shortname.c) */
    assert_text(L.db, "scatter_view_loop<View<int**>, View<int*>, {lambda(int)#1}>",
                "SELECT short_name FROM kernel WHERE name LIKE 'void scatter%'");
    assert_text(L.db, "hip_parallel_launch_local_memory<ParallelFor<ViewValueFunctor<Device<HIP, "
                      "HIPSpace>, double, true>, RangePolicy<HIP, IndexType<long> >, HIP>, 1024u, 1u>",
                "SELECT short_name FROM kernel WHERE name LIKE 'void Kokkos%'");
    /* the bad row: the column named is the one the bad value was in */
    assert_msg(L.db, "results.stats.csv", 5, "not a number 'x'");
    int commas = 0;
    for (const char* p = kokkos; *p; p++) {
        commas += *p == ',';
    }
    char needle[64];
    snprintf(needle, sizeof(needle), "column %d (Calls)", commas + 2);
    assert_msg(L.db, "results.stats.csv", 5, needle);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel"), 3);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 838600);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM api_stat WHERE file_id = "
                                        FILE_ID("results.hip_stats.csv")), 2000);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_hipprof_total_row(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    write_str(dir, "vector_add.hipkernel.csv",
              STATS_HDR "\"vector_add_kernel(float const*, float const*, float*, int)\",10,9000,"
                        "900,90.0\n"
                        "\"__amd_rocclr_copyBuffer\",2,1000,500,10.0\n"
                        "\"Total\",12,10000,833,100.0\n");
    write_str(dir, "vector_add.hiptrace.csv",
              "Name,Calls,TotalDurationNs,AverageNs,Percentage\n"
              "hipMemcpy,3,\"3,000\",1000,75.0\n"
              "hipLaunchKernel,10,1000,100,25.0\n"
              "Total,13,4000,307,100.0\n");
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_text(L.db, "hipprof kernel stats",
                "SELECT format FROM source_file WHERE name = 'vector_add.hipkernel.csv'");
    assert_int_equal(file_int(L.db, "vector_add.hipkernel.csv", "rows_read"), 2);
    assert_int_equal(file_int(L.db, "vector_add.hipkernel.csv", "rows_rejected"), 0);
    assert_int_equal(file_int(L.db, "vector_add.hiptrace.csv", "rows_read"), 2);
    assert_int_equal(file_int(L.db, "vector_add.hiptrace.csv", "rows_rejected"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM load_message"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name = 'Total'"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM api_stat WHERE name = 'Total'"), 0);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 10000);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(calls) FROM kernel_summary"), 12);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM api_stat WHERE file_id = "
                                        FILE_ID("vector_add.hiptrace.csv")), 4000);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_rocprofv2_blank_second_line(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    mksub(dir, "v2");
    Buf b = {0};
    buf_str(&b, V2_HDR); /* line 1 header, line 2 blank */
    v2_row(&b, 0, "void v2_a(float*)", "1000", "1100");
    v2_row(&b, 1, "void v2_b(float*)", "2000", "2300");
    v2_row(&b, 2, "void v2_a(float*)", "3000", "2900");
    v2_row(&b, 3, "void v2_a(float*)", "4000", "4150");
    buf_write(&b, dir, "v2/results_4242.csv");
    buf_free(&b);
    write_str(dir, "v2/hip_api_trace_4242.csv",
              V2_API_HDR "HIP_API_DOMAIN,hipLaunchKernel,900,990,100\n"
                         "HIP_API_DOMAIN,hipLaunchKernel,1900,\n"
                         "HIP_API_DOMAIN,hipDeviceSynchronize,2000,4200,104\n");
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_text(L.db, "rocprofv2 kernel trace",
                "SELECT format FROM source_file WHERE name = 'v2/results_4242.csv'");
    assert_int_equal(file_int(L.db, "v2/results_4242.csv", "rows_read"), 3);
    assert_msg(L.db, "v2/results_4242.csv", 5, "end timestamp 2900 before start 3000");
    assert_int_equal(msg_count(L.db, "v2/results_4242.csv"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 3);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(corr_id) FROM dispatch"), 304);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM dispatch"), 550);
    assert_int_equal(TestUtil_int(L.db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name = 'void v2_a(float*)'"),
                     250);

    assert_text(L.db, "rocprofv2 API trace",
                "SELECT format FROM source_file WHERE name = 'v2/hip_api_trace_4242.csv'");
    assert_msg(L.db, "v2/hip_api_trace_4242.csv", 4, "expected 5 columns but found 4");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM api_call"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(dur_ns) FROM api_call"), 2290);
    check_companion(L.db);
    finish(&L, dir);
}

static void test_quoted_fields_spanning_lines(void** state) {
    (void)state;
    char* dir = new_dir();
    write_companion(dir);
    write_str(dir, "results.stats.csv",
              STATS_HDR "\"multi\nline_kernel\",2,200,100,20.0\n" /* lines 2-3 */
                        "\"kern_after\",1,100,100,10.0\n"         /* line 4 */
                        "\"bad\nmulti\nline\",x,100,100,10.0\n"   /* lines 5-7 */
                        "\"crlf\r\ninside\",1,70,70,7.0\n"        /* lines 8-9 */
                        "\"last_kernel\",1,50,50,5.0\n"           /* line 10 */
                        "\"oops\",1\n");                          /* line 11 */
    mksub(dir, "v1");
    Buf b = {0};
    buf_str(&b, V1_HDR);
    v1_row(&b, 0, "void spans(int,\n  float)", "100", "1000", "1500", "500"); /* 2-3 */
    v1_row(&b, 1, "void spans(int,\n  float)", "100", "2000", "1500", "0");   /* 4-5 */
    v1_row(&b, 2, "void one_line(int)", "100", "3000", "3100", "100");        /* 6 */
    buf_write(&b, dir, "v1/results.csv");
    buf_free(&b);
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_read"), 4);
    assert_int_equal(file_int(L.db, "results.stats.csv", "rows_rejected"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM kernel_stat s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name ="
                                        " 'multi\\x0Aline_kernel'"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT calls FROM kernel_stat s JOIN kernel k ON"
                                        " k.id = s.kernel_id WHERE k.name ="
                                        " 'crlf\\x0D\\x0Ainside'"), 1);
    /* messages name the line where the bad row starts */
    assert_msg(L.db, "results.stats.csv", 5, "not a number 'x'");
    assert_msg(L.db, "results.stats.csv", 11, "expected 5 columns but found 2");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name LIKE 'bad%'"), 0);

    assert_int_equal(file_int(L.db, "v1/results.csv", "rows_read"), 2);
    assert_msg(L.db, "v1/results.csv", 4, "end timestamp 1500 before start 2000");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch d JOIN kernel k ON"
                                        " k.id = d.kernel_id WHERE k.name ="
                                        " 'void spans(int,\\x0A  float)'"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT sum(total_ns) FROM kernel_summary"), 1020);
    check_companion(L.db);
    finish(&L, dir);
}

/* A row rejected for a bad optional column stores nothing: not even its kernel's name. */
static void test_rejected_row_adds_no_kernel(void** state) {
    (void)state;
    char* dir = new_dir();
    Buf b = {0};
    buf_str(&b, V1_HDR);
    v1_row(&b, 0, "good_kernel.kd", "4242", "1000", "1100", "100");
    v1_row(&b, 1, "only_in_a_bad_row.kd", "not-a-pid", "2000", "2100", "100");
    buf_write(&b, dir, "results.csv");
    buf_free(&b);
    Load L = load_dir(dir);
    assert_int_equal(L.status, DCU_OK);
    assert_msg(L.db, "results.csv", 3, "not a number 'not-a-pid'");
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel"), 1);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel WHERE name = 'good_kernel'"),
                     1);
    finish(&L, dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_empty_folder, remove_dirs),
        cmocka_unit_test_teardown(test_empty_file, remove_dirs),
        cmocka_unit_test_teardown(test_unreadable_file, remove_dirs),
        cmocka_unit_test_teardown(test_binary_file, remove_dirs),
        cmocka_unit_test_teardown(test_unknown_header, remove_dirs),
        cmocka_unit_test_teardown(test_ragged_rows, remove_dirs),
        cmocka_unit_test_teardown(test_truncated_last_line, remove_dirs),
        cmocka_unit_test_teardown(test_crlf_line_ends, remove_dirs),
        cmocka_unit_test_teardown(test_utf8_bom, remove_dirs),
        cmocka_unit_test_teardown(test_nul_bytes, remove_dirs),
        cmocka_unit_test_teardown(test_huge_kernel_name, remove_dirs),
        cmocka_unit_test_teardown(test_non_utf8_name, remove_dirs),
        cmocka_unit_test_teardown(test_negative_and_reversed_times, remove_dirs),
        cmocka_unit_test_teardown(test_int64_overflow, remove_dirs),
        cmocka_unit_test_teardown(test_int64_sum_overflow, remove_dirs),
        cmocka_unit_test_teardown(test_thousand_bad_rows, remove_dirs),
        cmocka_unit_test_teardown(test_unquoted_names_with_commas, remove_dirs),
        cmocka_unit_test_teardown(test_hipprof_total_row, remove_dirs),
        cmocka_unit_test_teardown(test_rocprofv2_blank_second_line, remove_dirs),
        cmocka_unit_test_teardown(test_quoted_fields_spanning_lines, remove_dirs),
        cmocka_unit_test_teardown(test_rejected_row_adds_no_kernel, remove_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
