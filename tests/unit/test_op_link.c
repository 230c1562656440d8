/* test_op_link.c - every kernel of a small hand-written PyTorch trace tied back to the model
 * (dispatch_op, op_link.h): the launching op, the forward op of a backward kernel through
 * the fwdbwd flow and, with the flow gone, through the Sequence number; the module path, the
 * step; a backward kernel with no forward op (AccumulateGrad) and a kernel with no op
 * counted and named; the Ranges view's placement of backward kernels; the Ops export. The
 * expected values are read off the events below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/ops.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

#define EV(cat, name, tid, ts, dur, args)                                                     \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid          \
    ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{" args "}},\n"

/* thread 1 runs the forward pass inside ProfilerStep#5, in modules Net_0 > Linear_0;
 * thread 2 is autograd's: AddmmBackward0 (the backward of aten::addmm, sequence 7) launches
 * k_bwd; AccumulateGrad launches k_acc; k_lost has no runtime call nor op */
#define FORWARD                                                                               \
    EV("user_annotation", "ProfilerStep#5", 1, 0, 1000, "\"External id\":90")                 \
    EV("python_function", "nn.Module: Net_0", 1, 10, 490, "\"Python id\":1")                  \
    EV("python_function", "nn.Module: Linear_0", 1, 20, 180,                                  \
       "\"Python id\":2,\"Python parent id\":1")                                              \
    EV("cpu_op", "aten::linear", 1, 30, 160, "\"External id\":1,\"Sequence number\":7,"      \
       "\"Fwd thread id\":0")                                                                 \
    EV("cpu_op", "aten::addmm", 1, 40, 140, "\"External id\":2,\"Sequence number\":7,"       \
       "\"Fwd thread id\":0,\"Input Dims\":[[8],[4,16],[16,8]],"                            \
       "\"Input type\":[\"float\",\"float\",\"float\"]")                                      \
    EV("cuda_runtime", "cudaLaunchKernel", 1, 50, 10, "\"correlation\":100,\"External id\":2") \
    EV("kernel", "k_fwd", 7, 100, 50, "\"device\":0,\"stream\":7,\"correlation\":100,"        \
       "\"External id\":2")                                                                   \
    EV("cpu_op", "aten::mul", 1, 300, 20, "\"External id\":3,\"Sequence number\":8,"         \
       "\"Fwd thread id\":0")                                                                 \
    EV("cuda_runtime", "cudaLaunchKernel", 1, 305, 5, "\"correlation\":104,\"External id\":3") \
    EV("kernel", "k_mul", 7, 310, 20, "\"device\":0,\"stream\":7,\"correlation\":104,"        \
       "\"External id\":3")                                                                   \
    /* starts where aten::mul ends: after it, not inside it */                                \
    EV("cpu_op", "aten::relu", 1, 320, 10, "\"External id\":4,\"Sequence number\":9,"        \
       "\"Fwd thread id\":0")                                                                 \
    EV("cuda_runtime", "cudaLaunchKernel", 1, 322, 2, "\"correlation\":105,\"External id\":4") \
    EV("kernel", "k_relu", 7, 340, 5, "\"device\":0,\"stream\":7,\"correlation\":105,"        \
       "\"External id\":4")

#define BACKWARD                                                                              \
    EV("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 2, 600, 100,          \
       "\"External id\":10,\"Sequence number\":7,\"Fwd thread id\":1")                       \
    EV("cpu_op", "AddmmBackward0", 2, 605, 90, "\"External id\":11,\"Sequence number\":7,"   \
       "\"Fwd thread id\":1")                                                                 \
    EV("cpu_op", "aten::mm", 2, 610, 80, "\"External id\":12")                                \
    EV("cuda_runtime", "cudaLaunchKernel", 2, 615, 5, "\"correlation\":101,\"External id\":12") \
    EV("kernel", "k_bwd", 7, 650, 30, "\"device\":0,\"stream\":7,\"correlation\":101,"        \
       "\"External id\":12")                                                                  \
    EV("cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 2,   \
       710, 20, "\"External id\":20")                                                         \
    EV("cpu_op", "aten::add_", 2, 712, 10, "\"External id\":21")                              \
    EV("cuda_runtime", "cudaLaunchKernel", 2, 714, 2, "\"correlation\":102,\"External id\":21") \
    EV("kernel", "k_acc", 7, 750, 10, "\"device\":0,\"stream\":7,\"correlation\":102,"        \
       "\"External id\":21")                                                                  \
    EV("kernel", "k_lost", 7, 800, 5, "\"device\":0,\"stream\":7,\"correlation\":103")

#define FLOWS                                                                                 \
    "{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":40,\"cat\":\"fwdbwd\","               \
    "\"name\":\"fwdbwd\"},\n"                                                                 \
    "{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":605,\"cat\":\"fwdbwd\","              \
    "\"name\":\"fwdbwd\",\"bp\":\"e\"},\n"

static const char with_flows[] = "{\"traceEvents\": [\n" FORWARD BACKWARD FLOWS
                                 "{\"ph\":\"M\",\"name\":\"x\",\"pid\":1}]}\n";
static const char without_flows[] = "{\"traceEvents\": [\n" FORWARD BACKWARD
                                    "{\"ph\":\"M\",\"name\":\"x\",\"pid\":1}]}\n";

TESTUTIL_DIR_FIXTURE(dir)

static TraceDb* load(const char* text, size_t len) {
    char* path = TestUtil_writeFile(dir, "t.json", text, len);
    DcuStatus s;
    TraceDb* db = TestUtil_load(path, &s);
    assert_int_equal(s, DCU_OK);
    free(path);
    return db;
}

/* "op|fwd op|pass|module|step|how|top op" of kernel k */
static char* link_of(TraceDb* db, const char* k) {
    char* sql = xasprintf(
        "SELECT coalesce(c.name, '') || '|' || coalesce(f.name, '') || '|' || o.pass || '|'"
        " || coalesce(o.module, '') || '|' || coalesce(o.step, '') || '|' || o.how || '|'"
        " || coalesce(t.name, '') FROM dispatch_op o JOIN dispatch d ON d.id = o.dispatch_id"
        " JOIN kernel k ON k.id = d.kernel_id LEFT JOIN cpu_op c ON c.id = o.op_id"
        " LEFT JOIN cpu_op f ON f.id = o.fwd_op_id LEFT JOIN cpu_op t ON t.id = o.top_op_id"
        " WHERE k.name = '%s'",
        k);
    char* t = TestUtil_text(db, sql);
    free(sql);
    return t;
}

static void check_text(TraceDb* db, const char* kernel, const char* expected) {
    char* t = link_of(db, kernel);
    assert_string_equal(t, expected);
    free(t);
}

static void links(TraceDb* db, const char* bwd_how) {
    check_text(db, "k_fwd", "aten::addmm|aten::addmm|forward|Net_0/Linear_0|5|direct|aten::linear");
    check_text(db, "k_mul", "aten::mul|aten::mul|forward|Net_0|5|direct|aten::mul");
    check_text(db, "k_relu", "aten::relu|aten::relu|forward|Net_0|5|direct|aten::relu");
    char* bwd = xasprintf("aten::mm|aten::addmm|backward|Net_0/Linear_0|5|%s|"
                                 "autograd::engine::evaluate_function: AddmmBackward0",
                                 bwd_how);
    check_text(db, "k_bwd", bwd);
    free(bwd);
    check_text(db, "k_acc", "aten::add_||backward||5|unlinked: no forward op (backward op "
                            "without flow or sequence number)|autograd::engine::evaluate_"
                            "function: torch::autograd::AccumulateGrad");
    /* no launch call: its own start places it in the step */
    check_text(db, "k_lost", "||other||5|unlinked: no op for its correlation id|");
    /* every dispatch has its row: nothing dropped */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch_op"), 6);
    /* the Ranges view: the backward kernels sit in the step their forward op ran in */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM dispatch_range dr JOIN range_span r"
                                      " ON r.id = dr.range_id JOIN dispatch d"
                                      " ON d.id = dr.dispatch_id JOIN kernel k"
                                      " ON k.id = d.kernel_id WHERE r.name = 'ProfilerStep#5'"
                                      " AND dr.how = 'forward op'"
                                      " AND k.name IN ('k_bwd', 'k_acc')"),
                     2);
}

static void flow_links(void** state) {
    (void)state;
    TraceDb* db = load(with_flows, sizeof(with_flows) - 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kineto_flow"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT seq_nr FROM cpu_op WHERE name = 'aten::addmm'"), 7);
    assert_int_equal(TestUtil_int(db, "SELECT fwd_tid FROM cpu_op WHERE name = 'AddmmBackward0'"),
                     1);
    links(db, "flow");
    TraceDb_delete(db);
}

static void sequence_links(void** state) {
    (void)state;
    TraceDb* db = load(without_flows, sizeof(without_flows) - 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kineto_flow"), 0);
    links(db, "sequence");
    TraceDb_delete(db);
}

/* The export: one row per (run, step, module, op, pass); the backward of aten::addmm under
 * aten::addmm with its shapes; the unlinked kernel in a row with an empty op. */
static void export_rows(void** state) {
    (void)state;
    TraceDb* db = load(with_flows, sizeof(with_flows) - 1);
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Ops_export(db, NULL, &rs, &err), DCU_OK);
    int found = 0;
    int64_t sum = 0;
    for (int r = 0; r < rs->nrows; r++) {
        const char* op = ResultSet_textOf(rs, r, "op");
        const char* pass = ResultSet_textOf(rs, r, "pass");
        sum += ResultSet_intOf(rs, r, "device_ns");
        if (strcmp(op, "aten::addmm") == 0) {
            assert_string_equal(ResultSet_textOf(rs, r, "module"), "Net_0/Linear_0");
            assert_string_equal(ResultSet_textOf(rs, r, "input_shapes"), "[[8],[4,16],[16,8]]");
            assert_int_equal(ResultSet_intOf(rs, r, "calls"), 1);
            assert_int_equal(ResultSet_intOf(rs, r, "device_ns"),
                             strcmp(pass, "forward") == 0 ? 50000 : 30000);
            found++;
        }
        if (op[0] == '\0') {
            assert_int_equal(ResultSet_intOf(rs, r, "device_ns"), 5000);
            assert_int_equal(ResultSet_intOf(rs, r, "calls"), 0);
            found += 10;
        }
    }
    assert_int_equal(found, 12);
    assert_int_equal(sum, 50000 + 20000 + 5000 + 30000 + 10000 + 5000); /* every kernel, once */
    OpsCoverage c;
    assert_int_equal(Ops_coverage(db, &c, &err), DCU_OK);
    assert_int_equal(c.total_ns, 120000);
    assert_int_equal(c.linked_ns, 115000);
    assert_int_equal(c.backward_ns, 40000);
    assert_int_equal(c.backward_fwd_ns, 30000);
    ResultSet_delete(rs);
    TraceDb_delete(db);
}

/* A Sequence number that is not a number rejects its op, said, never read half. */
static void bad_sequence(void** state) {
    (void)state;
    static const char bad[] =
        "{\"traceEvents\": [\n" EV("cpu_op", "aten::mm", 1, 10, 5,
                                   "\"External id\":1,\"Sequence number\":\"abc\"")
        EV("cpu_op", "aten::add", 1, 20, 5, "\"External id\":2,\"Sequence number\":3")
        "{\"ph\":\"M\",\"name\":\"x\",\"pid\":1}]}\n";
    TraceDb* db = load(bad, sizeof(bad) - 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM cpu_op"), 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM load_message WHERE message LIKE"
                                      " '%External id, Sequence number or Fwd thread id is"
                                      " not a number%'"),
                     1);
    TraceDb_delete(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(flow_links, setup, teardown),
        cmocka_unit_test_setup_teardown(sequence_links, setup, teardown),
        cmocka_unit_test_setup_teardown(export_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_sequence, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
