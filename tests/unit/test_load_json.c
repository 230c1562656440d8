/* test_load_json.c - chrome-trace JSON inputs: a small Kineto trace written here (kernels,
 * copies, runtime calls linked by correlation, cpu_ops by External id, python frames with
 * parents, ProfilerStep annotations), the same gzip-compressed, hipprof and rocprof v1 JSON,
 * and bad JSON (truncated, wrong value types, 7 MiB strings, not a trace). Expected values
 * are computed by hand from the events written below; inputs must stay unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "dcutop/xalloc.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

static void assert_sql_text(TraceDb* db, const char* expected, const char* sql) {
    char* t = TestUtil_text(db, sql);
    assert_string_equal(t, expected);
    free(t);
}

/* Two kernels (one with fractional-µs times), a memcpy, a memset, two runtime calls, one
 * cpu_op with its python stack (2 frames), a ProfilerStep. ts/dur in µs. */
static const char kineto[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): <module>\", \"pid\": 7, \"tid\": 7,"
    "   \"ts\": 100, \"dur\": 900, \"args\": {\"Python parent id\": null, \"Python id\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(20): forward\", \"pid\": 7, \"tid\": 7,"
    "   \"ts\": 110, \"dur\": 500, \"args\": {\"Python parent id\": 1, \"Python id\": 2}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 7, \"tid\": 7,"
    "   \"ts\": 105, \"dur\": 800, \"args\": {\"External id\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 7, \"tid\": 7,"
    "   \"ts\": 120, \"dur\": 30, \"args\": {\"External id\": 42, \"Input Dims\": [[2, 3], [3, 4]],"
    "   \"Call stack\": \"model.py(20): forward;train.py(10): <module>;\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 7, \"tid\": 7,"
    "   \"ts\": 125, \"dur\": 5.5, \"args\": {\"External id\": 42, \"correlation\": 1001}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm_kernel<float>(float*)\", \"pid\": 0, \"tid\": 7,"
    "   \"ts\": 200.0005, \"dur\": 12.3456, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1001,"
    "   \"External id\": 42, \"grid\": [4, 2, 1], \"block\": [256, 1, 1]}},\n"
    "  {\"ph\": \"f\", \"id\": 1001, \"pid\": 0, \"tid\": 7, \"ts\": 200, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipLaunchKernel\", \"pid\": 7, \"tid\": 7,"
    "   \"ts\": 300, \"dur\": 4, \"args\": {\"correlation\": 1002}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"add_kernel\", \"pid\": 0, \"tid\": 7,"
    "   \"ts\": 400, \"dur\": 3, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1002}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0,"
    "   \"tid\": 7, \"ts\": 500, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1003,"
    "   \"bytes\": 65536}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7,"
    "   \"ts\": 530, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1004, \"bytes\": 4}},\n"
    "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 7, \"tid\": 7, \"ts\": 130.5,"
    "   \"args\": {\"Bytes\": 4096, \"Total Allocated\": 8192, \"Total Reserved\": 2097152,"
    "   \"Device Id\": 0, \"Device Type\": 1, \"Addr\": 139000000000000}}\n"
    " ], \"traceName\": \"x\"}\n";

static void check_kineto(TraceDb* db, const char* file) {
    char* sql = xasprintf("SELECT format FROM source_file WHERE name = '%s'", file);
    assert_sql_text(db, "PyTorch profiler (Kineto) trace", sql);
    free(sql);
    /* µs with a fraction become exact ns: 200.0005 us -> 200001 (rounded), 12.3456 -> 12346 */
    assert_int_equal(TestUtil_int(db, "SELECT start_ns FROM dispatch WHERE corr_id = 1001"), 200001);
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns FROM dispatch WHERE corr_id = 1001"), 12346);
    assert_int_equal(TestUtil_int(db, "SELECT grid * 1000 + workgroup FROM dispatch WHERE corr_id = 1001"),
                     8256);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 12346 + 3000);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM api_call"), 2);
    assert_sql_text(db, "CUDA", "SELECT domain FROM api_call WHERE corr_id = 1001");
    assert_sql_text(db, "HIP", "SELECT domain FROM api_call WHERE corr_id = 1002");
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns FROM api_call WHERE corr_id = 1001"), 5500);
    /* copies and memsets */
    assert_int_equal(TestUtil_int(db, "SELECT bytes FROM copy WHERE name LIKE 'Memcpy HtoD%'"), 65536);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM copy"), 2);
    /* linking: kernel -> External id -> aten op; its call stack string is kept */
    assert_sql_text(db, "aten::mm", "SELECT o.name FROM dispatch d JOIN ext_link l ON l.file_id ="
                                    " d.file_id AND l.corr_id = d.corr_id JOIN cpu_op o ON o.ext_id ="
                                    " l.ext_id WHERE d.corr_id = 1001 LIMIT 1");
    assert_sql_text(db, "model.py(20): forward;train.py(10): <module>;",
                    "SELECT call_stack FROM cpu_op");
    /* python frames: parents resolved to row ids */
    assert_sql_text(db, "train.py(10): <module>",
                    "SELECT p.name FROM py_frame c JOIN py_frame p ON p.id = c.parent_id"
                    " WHERE c.name = 'model.py(20): forward'");
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM py_frame WHERE parent_id IS NULL"), 1);
    /* annotations are ranges */
    assert_int_equal(TestUtil_int(db, "SELECT end_ns - start_ns FROM range WHERE name = 'ProfilerStep#3'"),
                     800000);
    /* a memory event (profile_memory=True) inside aten::mm on its thread */
    assert_sql_text(db, "130500 0 4096 8192 2097152 139000000000000 aten::mm",
                    "SELECT m.ts_ns || ' ' || m.device || ' ' || m.bytes || ' ' || m.total_allocated"
                    " || ' ' || m.total_reserved || ' ' || m.addr || ' ' || o.name FROM mem_event m"
                    " JOIN cpu_op o ON o.id = m.op_id");
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 0);
}

static void kineto_plain_and_gzip(void** state) {
    (void)state;
    char* p = TestUtil_writeFile(dir, "a.json", kineto, sizeof(kineto) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    check_kineto(db, p);
    TraceDb_delete(db);
    /* the same events through zlib */
    char* gzp = xasprintf("%s/b.json.gz", dir);
    gzFile gz = gzopen(gzp, "wb");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, kineto, (unsigned)(sizeof(kineto) - 1)), (int)(sizeof(kineto) - 1));
    gzclose(gz);
    db = TestUtil_load(gzp, &s);
    assert_int_equal(s, DCU_OK);
    check_kineto(db, gzp);
    TraceDb_delete(db);
    free(gzp);
    free(p);
}

/* Kineto distributedInfo: rank and world_size of the top-level object go to the file's row;
 * the nested process-group "ranks" list and a "rank" inside an event's args do not; a trace
 * without it leaves both NULL. */
static void distributed_info(void** state) {
    (void)state;
    static const char j[] =
        "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 5,"
        " \"world_size\": 8, \"pg_config\": [{\"pg_size\": 8, \"rank\": 99, \"ranks\": [0, 1]}]},\n"
        " \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
        " \"tid\": 7, \"ts\": 1, \"dur\": 2, \"args\": {\"device\": 0, \"rank\": 77}}]}\n";
    char* p = TestUtil_writeFile(dir, "r5.json", j, sizeof(j) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT dist_rank * 100 + dist_world FROM source_file"), 508);
    TraceDb_delete(db);
    free(p);
    p = TestUtil_writeFile(dir, "plain.json", kineto, sizeof(kineto) - 1);
    db = TestUtil_load(p, &s);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM source_file WHERE dist_rank IS NULL"
                                      " AND dist_world IS NULL"), 1);
    TraceDb_delete(db);
    free(p);
}

static void hipprof_json(void** state) {
    (void)state;
    static const char j[] =
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"HIPOPS\",\"name\":\"vector_add\",\"pid\":1,\"tid\":\"Stream<3>\",\"ts\":1,\"dur\":2,"
        " \"args\":{\"BeginNs\":1000,\"EndNs\":3500,\"devId\":1,\"queueId\":0,\"index\":5,\"procId\":77,"
        " \"name\":\"vector_add_kernel(float const*, float*, int)\"}},\n"
        "{\"ph\":\"X\",\"cat\":\"HIPCOPY\",\"name\":\"copy\",\"pid\":1,\"tid\":\"H2D\",\"ts\":0,\"dur\":1,"
        " \"args\":{\"BeginNs\":100,\"EndNs\":900,\"Bytes\":4096,\"index\":2}},\n"
        "{\"ph\":\"X\",\"cat\":\"HIP\",\"name\":\"hipLaunchKernel\",\"pid\":2,\"tid\":\"Thread<77>\",\"ts\":0,"
        " \"dur\":1,\"args\":{\"BeginNs\":950,\"EndNs\":990,\"index\":5}},\n"
        "{\"ph\":\"s\",\"cat\":\"DataFlow\",\"id\":5,\"pid\":2,\"tid\":\"Thread<77>\",\"ts\":0}\n"
        "]}\n";
    char* p = TestUtil_writeFile(dir, "vector_add.json", j, sizeof(j) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_sql_text(db, "hipprof JSON trace", "SELECT format FROM source_file");
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns * 100 + stream FROM dispatch"), 250003);
    assert_int_equal(TestUtil_int(db, "SELECT gpu * 1000 + pid FROM dispatch"), 1077);
    assert_sql_text(db, "CopyHostToDevice", "SELECT name FROM copy");
    assert_int_equal(TestUtil_int(db, "SELECT tid FROM api_call WHERE corr_id = 5"), 77);
    TraceDb_delete(db);
    free(p);
}

static void rocprof_v1_json(void** state) {
    (void)state;
    /* string ts/dur/args as rocprof writes them; kinds from the process_name metadata */
    static const char j[] =
        "{ \"traceEvents\":[{}\n"
        ",{\"args\":{\"name\":\"Markers and Ranges\"},\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\"}\n"
        ",{\"args\":{\"name\":\"CPU HIP API\"},\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\"}\n"
        ",{\"args\":{\"name\":\"COPY\"},\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\"}\n"
        ",{\"args\":{\"name\":\"GPU0\"},\"ph\":\"M\",\"pid\":6,\"name\":\"process_name\"}\n"
        ",{\"ph\":\"X\",\"name\":\"r\",\"pid\":\"0\",\"tid\":\"9\",\"ts\":\"1\",\"dur\":\"5\","
        "\"args\":{\"BeginNs\":\"10\",\"EndNs\":\"5010\",\"Name\":\"step\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"hipMemcpy\",\"pid\":\"2\",\"tid\":\"9\",\"ts\":\"1\",\"dur\":\"1\","
        "\"args\":{\"BeginNs\":\"20\",\"EndNs\":\"520\",\"Name\":\"hipMemcpy\",\"args\":\"( dst(0x1))\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"CopyHostToDevice\",\"pid\":\"1\",\"tid\":\"0\",\"ts\":\"1\",\"dur\":\"1\","
        "\"args\":{\"BeginNs\":\"30\",\"EndNs\":\"330\",\"Name\":\"CopyHostToDevice\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"k(int)\",\"pid\":\"6\",\"tid\":\"1\",\"ts\":\"1\",\"dur\":\"1\","
        "\"args\":{\"BeginNs\":\"600\",\"EndNs\":\"800\",\"dev-id\":\"0\",\"queue-id\":\"0\",\"Name\":\"k(int)\","
        "\"proc-id\":\"55\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"Unknown command type\",\"pid\":\"6\",\"tid\":\"2\",\"ts\":\"1\",\"dur\":\"1\","
        "\"args\":{\"BeginNs\":\"900\",\"EndNs\":\"900\",\"Name\":\"Unknown command type\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"kk.kd\",\"pid\":8,\"tid\":3,\"ts\":\"1\",\"dur\":\"1\","
        "\"args\":{\"KernelName\":\"kk.kd\",\"gpu-id\":\"2\",\"grd\":\"512\",\"BeginNs\":\"1000\","
        "\"EndNs\":\"1100\",\"DurationNs\":\"100\",\"GRBM_COUNT\":\"7\"}}\n"
        ",{\"ts\":1,\"ph\":\"s\",\"cat\":\"DataFlow\",\"id\":0,\"pid\":2,\"tid\":9,\"name\":\"dep\"}\n"
        "],\n\"otherData\": {\"x\": \"y\"}}\n";
    char* p = TestUtil_writeFile(dir, "results.json", j, sizeof(j) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_sql_text(db, "rocprof v1 results.json", "SELECT format FROM source_file");
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT total_ns FROM kernel_summary s JOIN kernel k ON"
                                      " k.id = s.kernel_id WHERE k.name = 'kk'"),
                     100);
    assert_int_equal(TestUtil_int(db, "SELECT pid FROM dispatch WHERE gpu = 0"), 55);
    assert_int_equal(TestUtil_int(db, "SELECT value FROM dispatch_counter WHERE name = 'GRBM_COUNT'"), 7);
    assert_int_equal(TestUtil_int(db, "SELECT pmc FROM source_file"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns FROM api_call"), 500);
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns FROM copy"), 300);
    assert_sql_text(db, "step", "SELECT name FROM range");
    TraceDb_delete(db);
    free(p);
}

static void truncated_json_keeps_what_was_read(void** state) {
    (void)state;
    /* cut inside the 6th event: the kernels before the cut are kept, the error is reported */
    const char* cut = strstr(kineto, "\"hipLaunchKernel\"");
    char* p = TestUtil_writeFile(dir, "cut.json", kineto, (size_t)(cut - kineto));
    char* sub = xasprintf("%s/empty", dir);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message WHERE message LIKE"
                                      " 'JSON error at byte %premature EOF%events before it are kept'"),
                     1);
    TraceDb_delete(db);
    /* a truncated gzip stream */
    char* gzp = xasprintf("%s/t.json.gz", dir);
    gzFile gz = gzopen(gzp, "wb");
    gzwrite(gz, kineto, (unsigned)(sizeof(kineto) - 1));
    gzclose(gz);
    FILE* f = fopen(gzp, "rb");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    free(TestUtil_writeFile(dir, "t.json.gz", buf, n / 2));
    remove(p);
    db = TestUtil_load(dir, &s);
    char* msg = TestUtil_text(db, "SELECT coalesce(group_concat(message), '') || coalesce((SELECT note"
                                  " FROM source_file), '') FROM load_message");
    assert_true(strstr(msg, "gzip") || strstr(msg, "JSON error"));
    free(msg);
    TraceDb_delete(db);
    free(gzp);
    free(sub);
    free(p);
}

static void wrong_value_types(void** state) {
    (void)state;
    static const char j[] =
        "{\"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_bad_ts\", \"pid\": 0, \"tid\": 1, \"ts\": \"soon\","
        "  \"dur\": 1, \"args\": {}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_obj_dur\", \"pid\": 0, \"tid\": 1, \"ts\": 5,"
        "  \"dur\": {\"x\": 1}, \"args\": {}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_neg\", \"pid\": 0, \"tid\": 1, \"ts\": 5, \"dur\": -3},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_bad_corr\", \"pid\": [1], \"tid\": 1, \"ts\": 5,"
        "  \"dur\": 1, \"args\": {\"correlation\": \"abc\"}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_nul\\u0000\\u001b[31m\", \"pid\": 0, \"tid\": 1,"
        "  \"ts\": 1e3, \"dur\": 2.5e0, \"args\": {\"finished\": true}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ok\", \"pid\": 0, \"tid\": 1, \"ts\": 10, \"dur\": 2}\n"
        "]}\n";
    char* p = TestUtil_writeFile(dir, "bad.json", j, sizeof(j) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 4);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 2);
    /* control characters and NULs in names become visible text */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel WHERE name LIKE 'k_nul\\x00\\x1b[31m'"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT dur_ns FROM dispatch d JOIN kernel k ON k.id = d.kernel_id"
                                      " WHERE k.name LIKE 'k_nul%'"),
                     2500);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message WHERE message LIKE"
                                      " 'event % ts is not a number'"),
                     1);
    TraceDb_delete(db);
    free(p);
}

/* Two 7 MiB strings in one event: long, yet within the 16 MiB event cap (test_json_limits
 * covers what is over it). The event loads; its name is cut to the 1 MiB every format caps
 * names at, the row kept. */
static void huge_strings(void** state) {
    (void)state;
    size_t big = 7 * 1024 * 1024;
    char* name = xmalloc(big + 1);
    memset(name, 'n', big);
    name[big] = '\0';
    char* j = xasprintf("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\","
                        " \"pid\": 0, \"tid\": 1, \"ts\": 1, \"dur\": 2, \"args\": {\"junk\": \"%s\"}},"
                        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"small\", \"pid\": 0, \"tid\": 1,"
                        " \"ts\": 5, \"dur\": 1}]}",
                        name, name);
    free(name);
    char* p = TestUtil_writeFile(dir, "huge.json", j, strlen(j));
    free(j);
    DcuStatus s;
    TraceDb* db = TestUtil_load(p, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT max(length(name)) FROM kernel"), 1 << 20);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch"), 2);
    TraceDb_delete(db);
    free(p);
}

static void not_a_trace(void** state) {
    (void)state;
    static const char j[] = "{\"torch\": \"2.1\", \"kernels\": [{\"name\": \"x\", \"calls\": 3}]}";
    char* p = TestUtil_writeFile(dir, "oracle.json", j, sizeof(j) - 1);
    static const char gz_csv[] = "not json at all";
    char* gzp = xasprintf("%s/x.csv.gz", dir);
    gzFile gz = gzopen(gzp, "wb");
    gzwrite(gz, gz_csv, sizeof(gz_csv) - 1);
    gzclose(gz);
    static const char csv[] = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                              "\"k\",1,10,10,100\n";
    free(TestUtil_writeFile(dir, "k.stats.csv", csv, sizeof(csv) - 1));
    DcuStatus s;
    TraceDb* db = TestUtil_load(dir, &s);
    assert_int_equal(s, DCU_OK);
    char* note = TestUtil_text(db, "SELECT note FROM source_file WHERE name = 'oracle.json'");
    assert_non_null(strstr(note, "no traceEvents"));
    free(note);
    note = TestUtil_text(db, "SELECT note FROM source_file WHERE name = 'x.csv.gz'");
    assert_non_null(strstr(note, "unrecognised CSV header")); /* a .csv.gz is read as CSV */
    free(note);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 10);
    TraceDb_delete(db);
    free(gzp);
    free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(kineto_plain_and_gzip, setup, teardown),
        cmocka_unit_test_setup_teardown(hipprof_json, setup, teardown),
        cmocka_unit_test_setup_teardown(rocprof_v1_json, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_json_keeps_what_was_read, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_value_types, setup, teardown),
        cmocka_unit_test_setup_teardown(huge_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(not_a_trace, setup, teardown),
        cmocka_unit_test_setup_teardown(distributed_info, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
