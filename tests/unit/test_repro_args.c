/* test_repro_args.c - recorded op inputs to the repro script's argument specs: tensors with
 * strides, tensor lists, scalars and scalar lists from Concrete Inputs, unrecorded
 * arguments, index bounds (embedding, nll_loss, gather, index), and the inputs that cannot be
 * rebuilt with their reason. Trace text never reaches the script as code: names are checked,
 * scalars re-printed from parsed numbers, strings escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/repro_args.h"

/* The specs of one op, or NULL with the reason in reason[256]. Owned by the caller. */
static char* specs(const char* name, const char* dims, const char* types, const char* strides,
                   const char* conc, char* reason) {
    char* text = NULL;
    size_t len = 0;
    FILE* m = open_memstream(&text, &len);
    assert_non_null(m);
    int ok = ReproArgs_write(m, name, dims, types, strides, conc, "bfloat16", reason, 256);
    fclose(m);
    if (!ok) {
        assert_int_equal(len, 0);
        free(text);
        return NULL;
    }
    return text;
}

static void tensors_and_scalars(void** state) {
    (void)state;
    char why[256];
    char* s = specs("aten::addmm", "[[2048],[4096,512],[512,2048],[],[]]",
                    "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
                    "[[1],[512,1],[1,512],[],[]]", "[\"\",\"\",\"\",\"1\",\"1\"]", why);
    assert_non_null(s);
    assert_string_equal(s, "[T([2048], [1], \"bfloat16\"), T([4096, 512], [512, 1], \"bfloat16\"), "
                           "T([512, 2048], [1, 512], \"bfloat16\"), S(1), S(1)]");
    free(s);
    /* layer norm: a size list, an epsilon, and strides not recorded (contiguous) */
    s = specs("aten::native_layer_norm", "[[16,256,512],[],[512],[512],[]]",
              "[\"float\",\"ScalarList\",\"float\",\"float\",\"Scalar\"]", NULL,
              "[\"\",\"[512]\",\"\",\"\",\"1.0000000000000001e-05\"]", why);
    assert_string_equal(s, "[T([16, 256, 512], None, \"float32\"), S([512]), T([512], None, "
                           "\"float32\"), T([512], None, \"float32\"), S(1.0000000000000001e-05)]");
    free(s);
    /* bools, negative ints, a float without digits after the point, an unrecorded argument,
     * infinity; a 0-dim tensor */
    s = specs("aten::foo", "[[],[],[],[],[],[]]",
              "[\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"ScalarList\",\"long int\"]",
              "[[],[],[],[],[],[]]", "[\"True\",\"-100\",\"0.\",\"\",\"[True, False]\",\"\"]", why);
    assert_string_equal(s, "[S(True), S(-100), S(0.0), N(), S([True, False]), T([], [], \"int64\")]");
    free(s);
    s = specs("aten::clamp", "[[4],[]]", "[\"float\",\"Scalar\"]", "[[1],[]]",
              "[\"\",\"-inf\"]", why);
    assert_string_equal(s, "[T([4], [1], \"float32\"), S(float('-inf'))]");
    free(s);
}

static void lists_and_index_bounds(void** state) {
    (void)state;
    char why[256];
    char* s = specs("aten::cat", "[[[2,3],[4,3]],[]]", "[\"TensorList\",\"Scalar\"]",
                    "[[[3,1],[3,1]],[]]", "[\"\",\"0\"]", why);
    assert_string_equal(s, "[L([T([2, 3], [3, 1], \"bfloat16\"), T([4, 3], [3, 1], \"bfloat16\")]), S(0)]");
    free(s);
    s = specs("aten::embedding", "[[4096,512],[16,256],[],[],[]]",
              "[\"float\",\"long int\",\"Scalar\",\"Scalar\",\"Scalar\"]", NULL,
              "[\"\",\"\",\"-1\",\"False\",\"False\"]", why);
    assert_non_null(strstr(s, "T([16, 256], None, \"int64\", hi=4096)"));
    free(s);
    s = specs("aten::embedding_dense_backward", "[[16,256,512],[16,256],[],[],[]]",
              "[\"float\",\"long int\",\"Scalar\",\"Scalar\",\"Scalar\"]", NULL,
              "[\"\",\"\",\"4096\",\"-1\",\"False\"]", why);
    assert_non_null(strstr(s, "hi=4096)"));
    free(s);
    s = specs("aten::nll_loss_backward", "[[],[4096,1000],[4096],[],[],[],[]]",
              "[\"float\",\"float\",\"long int\",\"\",\"Scalar\",\"Scalar\",\"float\"]", NULL,
              "[\"\",\"\",\"\",\"\",\"1\",\"-100\",\"\"]", why);
    assert_non_null(strstr(s, "T([4096], None, \"int64\", hi=1000)"));
    free(s);
    /* gather along dim -1 of [8, 300]: indices below 300, expanded (stride 0) */
    s = specs("aten::gather", "[[8,300],[],[8,5],[]]", "[\"float\",\"Scalar\",\"long int\",\"Scalar\"]",
              "[[300,1],[],[1,0],[]]", "[\"\",\"-1\",\"\",\"False\"]", why);
    assert_non_null(strstr(s, "T([8, 5], [1, 0], \"int64\", hi=300)"));
    free(s);
    /* index with a list of index tensors: element e below self's size e */
    s = specs("aten::index", "[[7,9],[[3],[3]]]", "[\"float\",\"TensorList\"]", NULL,
              "[\"\",\"\"]", why);
    assert_string_equal(s, "[T([7, 9], None, \"float32\"), L([T([3], None, \"int64\", hi=7), "
                           "T([3], None, \"int64\", hi=9)])]");
    free(s);
}

static void not_rebuilt(void** state) {
    (void)state;
    char why[256];
    assert_null(specs("aten::_foreach_add_", "[[],[]]", "[\"TensorList\",\"Scalar\"]",
                      "[[],[]]", "[\"\",\"1e-08\"]", why));
    assert_string_equal(why, "argument 0: the profiler did not record the shapes in the tensor list");
    assert_null(specs("aten::mm", NULL, NULL, NULL, NULL, why));
    assert_string_equal(why, "no shapes recorded (profile with record_shapes=True)");
    assert_null(specs("autograd::engine::evaluate_function: AddmmBackward0", "[[]]",
                      "[\"float\"]", NULL, NULL, why));
    assert_non_null(strstr(why, "autograd backward node"));
    assert_null(specs("record_param_comms", "[[]]", "[\"float\"]", NULL, NULL, why));
    assert_non_null(strstr(why, "a collective"));
    assert_null(specs("c10d::allreduce_", "[[4]]", "[\"float\"]", NULL, NULL, why));
    assert_non_null(strstr(why, "a collective"));
    assert_null(specs("MyModule.forward", "[[]]", "[\"float\"]", NULL, NULL, why));
    assert_string_equal(why, "not a dispatcher op (torch.ops cannot call it)");
    assert_null(specs("aten::foo", "[[2],[]]", "[\"float\",\"Device\"]", NULL, NULL, why));
    assert_string_equal(why, "argument 1: this type cannot be rebuilt: 'Device'");
    assert_null(specs("aten::foo", "[[2]]", "[\"float\",\"float\"]", NULL, NULL, why));
    assert_string_equal(why, "1 sizes for 2 types recorded");
    assert_null(specs("aten::foo", "[[-2]]", "[\"float\"]", NULL, NULL, why));
    assert_string_equal(why, "argument 0: a tensor without recorded sizes");
}

/* Text from the trace that would be code if pasted: refused or escaped, never written. */
static void hostile_text(void** state) {
    (void)state;
    char why[256];
    assert_null(specs("aten::mm\"),__import__('os').system('x')#", "[[2]]", "[\"float\"]", NULL,
                      NULL, why));
    assert_null(specs("aten::mm", "[[],[2]]", "[\"Scalar\",\"float\"]", NULL,
                      "[\"__import__('os').system('x')\",\"\"]", why));
    assert_non_null(strstr(why, "argument 0: the scalar is not a number"));
    assert_null(specs("aten::mm", "[[]]", "[\"ScalarList\"]", NULL, "[\"[1, exit()]\"]", why));
    assert_null(specs("aten::mm", "[[]]", "[\"Scalar\"]", NULL, "[\"1e5; import os\"]", why));
    for (const char* p = why; *p; p++) {
        assert_true(*p >= 0x20 && *p < 0x7f);
    }
    char* text = NULL;
    size_t len = 0;
    FILE* m = open_memstream(&text, &len);
    ReproArgs_pyString(m, "a\"b\\c\n\x01\xc3\xa9");
    ReproArgs_literal(m, "[\"x\\\"y\", 1, 2.5, true, null, [3]]");
    ReproArgs_literal(m, "[1, 2");
    fclose(m);
    assert_string_equal(text, "\"a\\\"b\\\\c\\x0a\\x01\\xc3\\xa9\"[\"x\\\"y\", 1, 2.5, True, None, [3]]None");
    free(text);
    char ns[64], op[128];
    assert_int_equal(ReproArgs_splitName("aten::_scaled_dot_product_flash_attention", ns, op), 1);
    assert_string_equal(op, "_scaled_dot_product_flash_attention");
    assert_int_equal(ReproArgs_splitName("aten::add.Tensor", ns, op), 0);
    assert_int_equal(ReproArgs_splitName("a::b::c", ns, op), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tensors_and_scalars),
        cmocka_unit_test(lists_and_index_bounds),
        cmocka_unit_test(not_rebuilt),
        cmocka_unit_test(hostile_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
