/* test_shortname.c - the one shortener: base forms, keys that tell look-alikes apart, the
 * width used in full, Python frames, deep stacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/format.h"
#include "dcutop/shortname.h"

static void base_never_a_keyword(void** state) {
    (void)state;
    char* s = ShortName_base("void (anonymous namespace)::softmax_warp_forward<float, float, float, "
                             "9, false, false>(float*, float const*, int, int, int, bool const*)");
    assert_string_equal(s, "softmax_warp_forward<float, float, float, 9, false, false>");
    free(s);
    s = ShortName_base("void at::native::vectorized_elementwise_kernel<4, "
                       "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int)");
    assert_string_equal(s, "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, "
                           "array<char*, 3ul> >");
    free(s);
    s = ShortName_base("void");
    assert_string_equal(s, "void");
    free(s);
}

/* Fits every name of the set at width w; 1 if all texts differ. */
static int all_differ(const char* const* names, int n, int w) {
    char** keys = ShortName_keysFor(names, n);
    char out[16][512];
    int ok = 1;
    for (int i = 0; i < n; i++) {
        ShortName_fit(names[i], keys[i], w, out[i], sizeof(out[i]));
        if (Format_width(out[i]) > w) {
            ok = 0;
        }
        for (int j = 0; j < i; j++) {
            if (strcmp(out[i], out[j]) == 0) {
                print_message("same text at %d: %s\n", w, out[i]);
                ok = 0;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        free(keys[i]);
    }
    free(keys);
    return ok;
}

/* the text of names[i] at width w, with the keys of the whole set */
static void fit_in_set(const char* const* names, int n, int i, int w, char* out, size_t cap) {
    char** keys = ShortName_keysFor(names, n);
    ShortName_fit(names[i], keys[i], w, out, cap);
    for (int k = 0; k < n; k++) {
        free(keys[k]);
    }
    free(keys);
}

static void keys_keep_what_differs(void** state) {
    (void)state;
    const char* dtype[] = {
        "vectorized_elementwise_kernel<8, CUDAFunctor_add<BFloat16>, array<char*, 3ul> >",
        "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char*, 3ul> >",
        "vectorized_elementwise_kernel<4, FillFunctor<float>, array<char*, 1ul> >"};
    const char* functor[] = {
        "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarFunctor<float, 1, 1, 0>, "
        "plus<float>, float>",
        "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarFunctor<float, 1, 1, 0>, "
        "multiplies<float>, float>"};
    const char* op[] = {
        "hip_parallel_launch_local_memory<ParallelFor<scatter_view_loop(View<int**>, "
        "View<int*>)::{lambda(int)#1}, RangePolicy<HIP>, RangePolicy>, 1024u, 1u>",
        "hip_parallel_launch_local_memory<ParallelFor<atomic_loop<HIP>(HIP const&, View<int**>, "
        "View<int*, MemoryTraits<4u> >)::{lambda(int)#1}, RangePolicy<HIP>, HIP>, 1024u, 1u>"};
    const char* tint[] = {"mul_mat_vec_q<(ggml_type)2, 1, true, false>",
                          "mul_mat_vec_q<(ggml_type)14, 1, false, false>",
                          "mul_mat_vec_q<(ggml_type)2, 1, false, false>"};
    const char* order[] = {"rope_norm<true, false, float, float>",
                           "rope_norm<true, false, float, __half>"};
    for (int w = 16; w <= 200; w += 4) {
        assert_true(all_differ(dtype, 3, w));
        assert_true(all_differ(functor, 2, w));
        assert_true(all_differ(op, 2, w));
        assert_true(all_differ(tint, 3, w));
        assert_true(all_differ(order, 2, w));
    }
    char out[512];
    fit_in_set(dtype, 3, 0, 30, out, sizeof(out));
    assert_non_null(strstr(out, "BFloat16"));
    fit_in_set(functor, 2, 0, 30, out, sizeof(out));
    assert_non_null(strstr(out, "plus"));
    fit_in_set(functor, 2, 1, 30, out, sizeof(out));
    assert_non_null(strstr(out, "multiplies"));
    fit_in_set(op, 2, 0, 40, out, sizeof(out));
    assert_non_null(strstr(out, "scatter"));
    fit_in_set(op, 2, 1, 40, out, sizeof(out));
    assert_non_null(strstr(out, "atomic"));
    fit_in_set(tint, 3, 1, 30, out, sizeof(out));
    assert_non_null(strstr(out, "(ggml_type)14"));
}

static void width_used_in_full(void** state) {
    (void)state;
    const char* n = "elementwise_kernel_manual_unroll<128, 8, gpu_kernel_impl_nocast<CUDAFunctor_add"
                    "<float> >(TensorIteratorBase&, CUDAFunctor_add<float> const&)::{lambda(int, "
                    "bool)#1}>";
    char out[512];
    int len = Format_width(n);
    for (int w = 8; w < len; w++) {
        ShortName_fit(n, NULL, w, out, sizeof(out));
        assert_int_equal(Format_width(out), w);
    }
    ShortName_fit(n, NULL, len + 50, out, sizeof(out));
    assert_string_equal(out, n); /* a wide terminal shows all of it */
}

static void python_frames(void** state) {
    (void)state;
    char* f = ShortName_frame("<built-in method softmax of Tensor object at 0x7fa484919cc0>");
    assert_string_equal(f, "<built-in method softmax of Tensor object>");
    free(f);
    f = ShortName_frame("<built-in_method_cat_of_type_object_at_0x7fa4e9f3e180>");
    assert_string_equal(f, "<built-in_method_cat_of_type_object>");
    free(f);
    char out[256];
    ShortName_fitFrame("torch/autograd/graph.py(769): _engine_run_backward", 36, out, sizeof(out));
    assert_non_null(strstr(out, "graph.py(769): _engine_run_backward"));
    ShortName_fitFrame("torch/_tensor.py(576): backward", 28, out, sizeof(out));
    assert_string_equal(out, "\xe2\x80\xa6" "h/_tensor.py(576): backward");
}

/* A repeated name gets the same keys as its first copy, and tells nothing apart: the keys of
 * the others are those of the set without the repeats. */
static void repeats_keyed_once(void** state) {
    (void)state;
    const char* const with[] = {"triton_poi_fused_add_1", "triton_poi_fused_mul_2",
                                "triton_poi_fused_add_1", "triton_poi_fused_add_3",
                                "triton_poi_fused_add_1"};
    const char* const without[] = {"triton_poi_fused_add_1", "triton_poi_fused_mul_2",
                                   "triton_poi_fused_add_3"};
    char** a = ShortName_keysFor(with, 5);
    char** b = ShortName_keysFor(without, 3);
    assert_string_equal(a[0], b[0]);
    assert_string_equal(a[2], b[0]);
    assert_string_equal(a[4], b[0]);
    assert_string_equal(a[1], b[1]);
    assert_string_equal(a[3], b[2]);
    assert_true(a[0] != a[2] && a[2] != a[4]); /* each its own string: the caller frees each */
    assert_string_not_equal(a[0], "");
    for (int i = 0; i < 5; i++) {
        free(a[i]);
    }
    for (int i = 0; i < 3; i++) {
        free(b[i]);
    }
    free(a);
    free(b);
}

static void deep_stacks_compress_indentation(void** state) {
    (void)state;
    char tag[24];
    assert_int_equal(ShortName_indent(3, 40, tag, sizeof(tag)), 6);
    assert_string_equal(tag, "");
    int ind = ShortName_indent(30, 40, tag, sizeof(tag));
    assert_string_equal(tag, "[30] ");
    assert_true(40 - ind - (int)strlen(tag) >= 20); /* half the room stays for the name */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base_never_a_keyword),
        cmocka_unit_test(keys_keep_what_differs),
        cmocka_unit_test(width_used_in_full),
        cmocka_unit_test(python_frames),
        cmocka_unit_test(deep_stacks_compress_indentation),
        cmocka_unit_test(repeats_keyed_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
