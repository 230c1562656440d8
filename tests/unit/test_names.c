/* test_names.c - name normalising, shortening, sanitizing; display formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/format.h"
#include "dcutop/names.h"
#include "dcutop/trace_db.h"
#include "testutil.h"

/* Itanium symbols as g++ and hipcc emit them (checked with c++filt). */
#define PA_MANGLED                                                                          \
    "_Z32paged_attention_ll4mi_QKV_kernelI14__hip_bfloat16S0_Li16ELi128ELi256ELb0ELi8EEvPKT_" \
    "PKT0_S6_ifPKiPS1_"
#define PA_DEMANGLED                                                                        \
    "void paged_attention_ll4mi_QKV_kernel<__hip_bfloat16, __hip_bfloat16, 16, 128, 256, "  \
    "false, 8>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, int, "  \
    "float, int const*, __hip_bfloat16*)"
#define CK_MANGLED "_ZN7ck_tile6kentryILi256ELi1ENS_12Rmsnorm2dFwdILi128EfEEJifEEEvDpT2_"
#define CK_DEMANGLED                                                                        \
    "void ck_tile::kentry<256, 1, ck_tile::Rmsnorm2dFwd<128, float>, int, float>(int, float)"

/* What newer compilers (and hipcc) emit for _Float16 and std::bfloat16_t: g++ 12 wrote these
 * symbols; binutils 2.40's c++filt demangles them, libstdc++ 12's __cxa_demangle does not. */
#define PA16_MANGLED                                                                       \
    "_Z32paged_attention_ll4mi_QKV_kernelIDF16_DF16_Li16ELi128ELi256ELb0ELi8EEvPKT_PKT0_S5_" \
    "ifPKiPS0_"
#define PA16_DEMANGLED                                                                     \
    "void paged_attention_ll4mi_QKV_kernel<_Float16, _Float16, 16, 128, 256, false, 8>"    \
    "(_Float16 const*, _Float16 const*, _Float16 const*, int, float, int const*, _Float16*)"
#define BF16_MANGLED \
    "_ZN7sgl_hip10activation18act_and_mul_kernelIDF16bXadL_ZNS0_4siluIfEET_RKS3_EELb1EEEvPS3_PKS3_i"

static void demangle_like_cxxfilt(void** state) {
    (void)state;
    char* d = Names_demangle(PA_MANGLED, strlen(PA_MANGLED), NULL);
    assert_non_null(d);
    assert_string_equal(d, PA_DEMANGLED);
    free(d);
    d = Names_demangle(CK_MANGLED, strlen(CK_MANGLED), NULL);
    assert_non_null(d);
    assert_string_equal(d, CK_DEMANGLED);
    free(d);
    d = Names_demangle(PA16_MANGLED, strlen(PA16_MANGLED), NULL);
    assert_non_null(d);
    assert_string_equal(d, PA16_DEMANGLED);
    free(d);
    d = Names_demangle(BF16_MANGLED, strlen(BF16_MANGLED), NULL);
    assert_non_null(d);
    assert_non_null(strstr(d, "act_and_mul_kernel<std::bfloat16_t, "));
    free(d);
    /* only the first n bytes count */
    d = Names_demangle("_Z3fooix", 7, NULL);
    assert_non_null(d);
    assert_string_equal(d, "foo(int)");
    free(d);
    /* not mangled, broken, empty, embedded NUL, too long: NULL, the name stays as it is */
    const char* no[] = {"Cijk_Ailk_Bljk_SB_MT128x64x16", "_Z", "_Zfoo", "_Z3fo", "", "Z3fooi"};
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        assert_null(Names_demangle(no[i], strlen(no[i]), NULL));
    }
    assert_null(Names_demangle("_Z3f\0oi", 7, NULL));
    size_t big = 65 * 1024;
    char* longname = malloc(big + 1);
    memcpy(longname, "_Z3fooi", 7);
    memset(longname + 7, 'i', big - 7);
    longname[big] = '\0';
    assert_null(Names_demangle(longname, big, NULL));
    /* c++filt's own bound: 1,024 bytes demangle, 1,025 do not */
    longname[1024] = '\0';
    d = Names_demangle(longname, 1024, NULL);
    assert_non_null(d);
    assert_null(Names_demangle(longname, 1025, NULL));
    free(d);
    free(longname);
}

/* f(A, B<A, A>, ...) where each argument repeats the one before twice: the demangled text
 * doubles with each level (12 levels: 53,191 bytes; 21 levels, 234 bytes of symbol: 27 MB). */
static char* nested_name(int levels) {
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    char* s = malloc(32 + (size_t)levels * 16);
    strcpy(s, "_Z1f1A1BIS_S_E");
    for (int i = 1; i < levels; i++) {
        char id[8];
        int k = 0;
        char rev[8];
        for (int v = i; v > 0 || k == 0; v /= 36) {
            rev[k++] = digits[v % 36];
        }
        for (int j = 0; j < k; j++) {
            id[j] = rev[k - 1 - j];
        }
        id[k] = '\0';
        sprintf(s + strlen(s), "S0_IS%s_S%s_E", id, id);
    }
    return s;
}

/* The demangled text is capped: past the cap the symbol stays (NULL) and *capped says why. */
static void demangle_output_capped(void** state) {
    (void)state;
    char* n12 = nested_name(12);
    int capped = -1;
    char* d = Names_demangle(n12, strlen(n12), &capped);
    assert_non_null(d);
    assert_int_equal(capped, 0);
    size_t len = strlen(d);
    assert_int_equal(len, 53191); /* c++filt's output, less its newline */
    assert_true(strncmp(d, "f(A, B<A, A>, B<B<A, A>, B<A, A> >, ", 36) == 0);
    /* the cap is on bytes of text: exactly len fits, one less does not */
    char* e = Names_demangleCapped(n12, strlen(n12), len, &capped);
    assert_non_null(e);
    assert_int_equal(capped, 0);
    assert_string_equal(e, d);
    free(e);
    assert_null(Names_demangleCapped(n12, strlen(n12), len - 1, &capped));
    assert_int_equal(capped, 1);
    free(d);
    free(n12);
    char* n21 = nested_name(21);
    assert_int_equal(strlen(n21), 234);
    capped = 0;
    assert_null(Names_demangle(n21, strlen(n21), &capped));
    assert_int_equal(capped, 1);
    free(n21);
    /* a name that does not demangle is not "capped" */
    capped = -1;
    assert_null(Names_demangle("_Zfoo", 5, &capped));
    assert_int_equal(capped, 0);
}

/* A trace with mangled kernel names: the kernel table holds them demangled, with the
 * symbol in name_raw, and the rules see the demangled text. */
static void loader_demangles_and_keeps_raw(void** state) {
    (void)state;
    char* dir = TestUtil_tempDir();
    const char csv[] =
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
        "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"KERNEL_DISPATCH\",1,1,7,1,1,\"" PA_MANGLED "\",1,1000,3000\n"
        "\"KERNEL_DISPATCH\",1,1,7,2,2,\"" CK_MANGLED ".kd\",2,4000,5000\n"
        "\"KERNEL_DISPATCH\",1,1,7,3,3,\"_Zbroken_kernel\",3,6000,7000\n"
        "\"KERNEL_DISPATCH\",1,1,7,4,4,\"Cijk_Ailk_Bljk_SB_MT128x64x16\",4,8000,9000\n";
    char* path = TestUtil_writeFile(dir, "kernel_trace.csv", csv, sizeof(csv) - 1);
    DcuStatus st;
    TraceDb* db = TestUtil_load(path, &st);
    assert_int_equal(st, DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel"), 4);
    char* t = TestUtil_text(db, "SELECT name || '|' || name_raw || '|' || category FROM kernel"
                                " WHERE name_raw LIKE '_Z32%'");
    assert_string_equal(t, PA_DEMANGLED "|" PA_MANGLED "|attention");
    free(t);
    t = TestUtil_text(db, "SELECT name || '|' || name_raw || '|' || short_name || '|' || category"
                          " FROM kernel WHERE name_raw LIKE '_ZN7ck_tile%'");
    assert_string_equal(t, CK_DEMANGLED "|" CK_MANGLED
                           "|kentry<256, 1, Rmsnorm2dFwd<128, float>, int, float>"
                           "|norm");
    free(t);
    /* what does not demangle, and what is not mangled, keeps its name; name_raw = name */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel WHERE name = name_raw"), 2);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel WHERE name = '_Zbroken_kernel'"),
                     1);
    TraceDb_delete(db);
    free(path);
    TestUtil_rmTree(dir);
    free(dir);
}

static void normalize_strips_kd(void** state) {
    (void)state;
    char* a = Names_normalize("\"void soft_max_f32<true, 512>(float const*) [clone .kd]\"", 56);
    assert_string_equal(a, "void soft_max_f32<true, 512>(float const*)");
    free(a);
    const char* t = "Cijk_Alik_Bljk_HSS_BH_MT16x128x32_WG16_2_1.kd";
    a = Names_normalize(t, strlen(t));
    assert_string_equal(a, "Cijk_Alik_Bljk_HSS_BH_MT16x128x32_WG16_2_1");
    free(a);
    a = Names_normalize("  __amd_rocclr_fillBufferAligned.kd ", 36);
    assert_string_equal(a, "__amd_rocclr_fillBufferAligned");
    free(a);
}

static void short_names(void** state) {
    (void)state;
    struct {
        const char* in;
        const char* out;
    } cases[] = {
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
         "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
         "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
         "std::array<char*, 3ul> >"},
        {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float const*, int)",
         "at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>"},
        {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32", "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32"},
        {"quantize_q8_1(float const*, void*, long)", "quantize_q8_1"},
        {"Kokkos::(anonymous namespace)::init_lock_array_kernel_atomic()",
         "Kokkos::(anonymous namespace)::init_lock_array_kernel_atomic"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char* s = Names_short(cases[i].in);
        assert_string_equal(s, cases[i].out);
        free(s);
    }
}

static void sanitize_controls_and_bad_utf8(void** state) {
    (void)state;
    char* s = Names_sanitize("a\x1b[31mb\x00" "c", 9);
    assert_string_equal(s, "a\\x1B[31mb\\x00c");
    free(s);
    s = Names_sanitize("caf\xc3\xa9 \xff\xfe", 8);
    assert_string_equal(s, "caf\xc3\xa9 \\xFF\\xFE");
    free(s);
    s = Names_sanitize("\xc2\x9b", 2); /* C1 control CSI encoded in UTF-8 */
    assert_string_equal(s, "\\xC2\\x9B");
    free(s);
    s = Names_sanitize("\xe2\x80", 2); /* truncated sequence */
    assert_string_equal(s, "\\xE2\\x80");
    free(s);
}

/* Bidi and format characters (category Cf) are escaped as \uXXXX, other non-ASCII kept. */
static void sanitize_format_chars(void** state) {
    (void)state;
    /* RLO ... PDF, ZWSP, ZWJ, LRM, RLM, FSI ... PDI, BOM, soft hyphen, a tag character */
    static const char in[] = "a\xe2\x80\xae" "b\xe2\x80\xac" "c\xe2\x80\x8b" "d\xe2\x80\x8d"
                             "e\xe2\x80\x8e" "f\xe2\x80\x8f" "g\xe2\x81\xa8" "h\xe2\x81\xa9"
                             "i\xef\xbb\xbf" "j\xc2\xad" "k\xf3\xa0\x81\x81" "l";
    char* s = Names_sanitize(in, sizeof(in) - 1);
    assert_string_equal(s, "a\\u202Eb\\u202Cc\\u200Bd\\u200De\\u200Ef\\u200Fg\\u2068h\\u2069"
                           "i\\uFEFFj\\u00ADk\\uE0041l");
    free(s);
    /* letters, CJK, emoji and combining marks are not format characters */
    s = Names_sanitize("\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80" "e\xcc\x81", 12);
    assert_string_equal(s, "\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80" "e\xcc\x81");
    free(s);
    assert_true(Names_isFormatChar(0x202E) && Names_isFormatChar(0x2066) &&
                Names_isFormatChar(0x2069) && Names_isFormatChar(0x061C));
    assert_false(Names_isFormatChar(0x2070) || Names_isFormatChar(0x2065) ||
                 Names_isFormatChar('a') || Names_isFormatChar(0x00E9));
    /* the normalised join key escapes the same way */
    s = Names_normalize("\"k\xe2\x80\xae.kd\"", 9);
    assert_string_equal(s, "k\\u202E");
    free(s);
}

static void units_per_column(void** state) {
    (void)state;
    assert_int_equal(Format_unitFor(825000000), UNIT_MS);
    assert_int_equal(Format_unitFor(6917), UNIT_NS);
    assert_int_equal(Format_unitFor(69170), UNIT_US);
    assert_int_equal(Format_unitFor(12000000000LL), UNIT_S);
    char b[32];
    Format_duration(b, sizeof(b), 824963118, UNIT_MS);
    assert_string_equal(b, "824.96");
    Format_ratio(b, sizeof(b), 1.2810);
    assert_string_equal(b, "1.28x");
}

static void cut_in_template_middle(void** state) {
    (void)state;
    const char* n = "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                    "std::array<char*, 3ul> >";
    char out[256];
    Format_cutName(n, 40, out, sizeof(out));
    assert_int_equal(Format_width(out), 40);
    /* namespaces dropped; the function name (cut if need be) and the template argument
     * that tells instantiations apart are kept: vectorized_elementwise_…CUDAFunctor_add… */
    assert_null(strstr(out, "at::"));
    assert_non_null(strstr(out, "vectorized_"));
    assert_non_null(strstr(out, "\xe2\x80\xa6" "CUDAFunctor_add\xe2\x80\xa6"));
    /* the width is used in full: a wider column shows more of the name */
    Format_cutName(n, 60, out, sizeof(out));
    assert_int_equal(Format_width(out), 60);
    assert_non_null(strstr(out, "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, "));
    Format_cutName(n, 80, out, sizeof(out));
    assert_string_equal(out, "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char*, 3ul> >");
    /* a Tensile name keeps its macro tile */
    Format_cutName("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_AFC1_AG1_GLS0_ISA928_WGM8",
                   40, out, sizeof(out));
    assert_non_null(strstr(out, "MT128x128x32"));
    Format_cutName("short", 40, out, sizeof(out));
    assert_string_equal(out, "short");
    Format_cutName(n, 3, out, sizeof(out));
    assert_true(Format_width(out) <= 3);
    /* wide characters count two cells */
    assert_int_equal(Format_width("\xe4\xb8\xad\xe6\x96\x87"), 4);
    Format_cutName("\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87", 7, out,
                   sizeof(out));
    assert_true(Format_width(out) <= 7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(normalize_strips_kd),
        cmocka_unit_test(demangle_like_cxxfilt),
        cmocka_unit_test(demangle_output_capped),
        cmocka_unit_test(loader_demangles_and_keeps_raw),
        cmocka_unit_test(short_names),
        cmocka_unit_test(sanitize_controls_and_bad_utf8),
        cmocka_unit_test(sanitize_format_chars),
        cmocka_unit_test(units_per_column),
        cmocka_unit_test(cut_in_template_middle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
