/* test_load_shapes.c - record_shapes args of Kineto cpu_ops (Input Dims, Input type, Input
 * Strides, Concrete Inputs) stored as compact JSON text, and deviceProperties names stored
 * as agents. Expected texts are written by hand from the events below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/perf_model.h"
#include "testutil.h"

static const char trace[] =
    "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\", \"numSms\": 132},"
    "  {\"id\": 1, \"name\": \"AMD Instinct MI300X VF\", \"x\": [1, {\"name\": \"no\"}]}],\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1,"
    "   \"ts\": 10, \"dur\": 5, \"args\": {\"External id\": 7,"
    "   \"Input Dims\": [[8944, 1024], [1024, 1024]],"
    "   \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"],"
    "   \"Input Strides\": [[1024, 1], [1, 1024]], \"Concrete Inputs\": [\"\", \"\"]}},\n"
    /* a TensorList, a quote and a control character in a concrete input, a null */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cat\", \"pid\": 1, \"tid\": 1,"
    "   \"ts\": 20, \"dur\": 5, \"args\": {\"External id\": 8,"
    "   \"Input Dims\": [[[1, 2], [1, 2]], []], \"Input type\": [\"TensorList\", \"Scalar\"],"
    "   \"Concrete Inputs\": [\"\\\"q\\u0001\", null]}},\n"
    /* an object inside a shape arg is not a shape: dropped, the op kept */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::odd\", \"pid\": 1, \"tid\": 1,"
    "   \"ts\": 30, \"dur\": 5, \"args\": {\"Input Dims\": [{\"a\": 1}], \"Input type\": []}},\n"
    /* recorded without shapes */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::plain\", \"pid\": 1, \"tid\": 1,"
    "   \"ts\": 40, \"dur\": 5, \"args\": {\"External id\": 9}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
    "   \"ts\": 12, \"dur\": 2, \"args\": {\"device\": 0, \"correlation\": 5, \"External id\": 7}}\n"
    "]}\n";

static void assert_sql_text(TraceDb* db, const char* expected, const char* sql) {
    char* t = TestUtil_text(db, sql);
    assert_string_equal(t, expected);
    free(t);
}

static void shapes_stored(void** state) {
    (void)state;
    char* dir = TestUtil_tempDir();
    char* path = TestUtil_writeFile(dir, "t.json", trace, sizeof(trace) - 1);
    DcuStatus s;
    TraceDb* db = TestUtil_load(path, &s);
    assert_int_equal(s, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM cpu_op"), 4);
    assert_sql_text(db, "[[8944,1024],[1024,1024]]",
                    "SELECT input_dims FROM cpu_op WHERE name = 'aten::mm'");
    assert_sql_text(db, "[\"c10::BFloat16\",\"c10::BFloat16\"]",
                    "SELECT input_types FROM cpu_op WHERE name = 'aten::mm'");
    assert_sql_text(db, "[[1024,1],[1,1024]]",
                    "SELECT input_strides FROM cpu_op WHERE name = 'aten::mm'");
    assert_sql_text(db, "[\"\",\"\"]",
                    "SELECT concrete_inputs FROM cpu_op WHERE name = 'aten::mm'");
    assert_sql_text(db, "[[[1,2],[1,2]],[]]",
                    "SELECT input_dims FROM cpu_op WHERE name = 'aten::cat'");
    assert_sql_text(db, "[\"\\\"q\\u0001\",null]",
                    "SELECT concrete_inputs FROM cpu_op WHERE name = 'aten::cat'");
    /* stored text is valid JSON (SQLite's json_valid agrees) */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM cpu_op WHERE input_dims IS NOT NULL"
                                      " AND json_valid(input_dims) AND json_valid(input_types)"),
                     2);
    assert_int_equal(TestUtil_int(db, "SELECT input_dims IS NULL FROM cpu_op"
                                      " WHERE name = 'aten::odd'"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT input_dims IS NULL AND input_types IS NULL"
                                      " FROM cpu_op WHERE name = 'aten::plain'"), 1);
    /* the stored mm shapes evaluate as the Qwen GEMM */
    char* d = TestUtil_text(db, "SELECT input_dims FROM cpu_op WHERE name = 'aten::mm'");
    char* t = TestUtil_text(db, "SELECT input_types FROM cpu_op WHERE name = 'aten::mm'");
    PerfOp o;
    assert_int_equal(PerfModel_eval("aten::mm", d, t, NULL, NULL, &o), 1);
    assert_float_equal(o.flops, 2.0 * 8944 * 1024 * 1024, 0);
    free(d);
    free(t);
    /* devices by name, nested objects ignored */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM agent"), 2);
    assert_sql_text(db, "0:NVIDIA H200|1:AMD Instinct MI300X VF",
                    "SELECT group_concat(node_id || ':' || product_name, '|')"
                    " FROM (SELECT * FROM agent ORDER BY node_id)");
    assert_int_equal(TestUtil_int(db, "SELECT rows_rejected FROM source_file"), 0);
    TraceDb_delete(db);
    free(path);
    TestUtil_rmTree(dir);
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shapes_stored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
