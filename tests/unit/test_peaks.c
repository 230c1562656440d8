/* test_peaks.c - the device peak table: lookups by the names traces report, the order of
 * lines, the user's file ahead of the built-in one, bad lines, --peak, and that every
 * built-in row carries a citation comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "dcutop/peaks.h"
#include "testutil.h"

static Peaks* builtin(void) {
    Peaks* p = Peaks_new();
    DcuError err;
    assert_int_equal(Peaks_parse(p, Peaks_builtinText(), "built-in", &err), DCU_OK);
    return p;
}

static void lookup_trace_names(void** state) {
    (void)state;
    Peaks* p = builtin();
    PeakFigures f;
    /* the Qwen sample's deviceProperties name */
    assert_int_equal(Peaks_lookup(p, "AMD Instinct MI300X VF", &f), 1);
    assert_float_equal(f.tflops[PEAK_BF16], 1307.4, 0);
    assert_float_equal(f.tflops[PEAK_FP8], 2614.9, 0);
    assert_float_equal(f.tflops[PEAK_FP32], 163.4, 0);
    assert_float_equal(f.gbps, 5300, 0);
    assert_float_equal(PeakFigures_tflops(&f, "fp16"), 1307.4, 0);
    assert_float_equal(PeakFigures_tflops(&f, "int64"), 0, 0);
    /* the climate sample's: H200 SXM, dense = half the datasheet's sparse 1,979 */
    assert_int_equal(Peaks_lookup(p, "NVIDIA H200", &f), 1);
    assert_float_equal(f.tflops[PEAK_BF16], 989.5, 0);
    assert_float_equal(f.gbps, 4800, 0);
    /* variants before their family: first match wins */
    assert_int_equal(Peaks_lookup(p, "NVIDIA H200 NVL", &f), 1);
    assert_float_equal(f.tflops[PEAK_BF16], 835.5, 0);
    assert_int_equal(Peaks_lookup(p, "NVIDIA H100 PCIe", &f), 1);
    assert_float_equal(f.gbps, 2000, 0);
    assert_int_equal(Peaks_lookup(p, "NVIDIA H100 80GB HBM3", &f), 1);
    assert_float_equal(f.gbps, 3350, 0);
    assert_int_equal(Peaks_lookup(p, "AMD Instinct MI325X", &f), 1);
    assert_float_equal(f.gbps, 6000, 0);
    /* no fp8 on CDNA 2 */
    assert_int_equal(Peaks_lookup(p, "AMD Instinct MI250X", &f), 1);
    assert_float_equal(PeakFigures_tflops(&f, "fp8"), 0, 0);
    assert_float_equal(f.tflops[PEAK_BF16], 383, 0);
    assert_int_equal(Peaks_lookup(p, "AMD Instinct MI210", &f), 1);
    assert_float_equal(f.gbps, 1638.4, 0);
    /* Hygon: named, figures not published */
    assert_int_equal(Peaks_lookup(p, "K100_AI", &f), 1);
    assert_float_equal(f.gbps, 0, 0);
    assert_int_equal(Peaks_lookup(p, "Z100", &f), 1);
    assert_int_equal(Peaks_lookup(p, "Radeon RX 7900 XTX", &f), 0);
    assert_float_equal(f.gbps, 0, 0);
    Peaks_delete(p);
}

/* Every figure line of the shipped table follows a comment block that names its source
 * (a datasheet, a product page, or says it is not published). */
static void every_row_cited(void** state) {
    (void)state;
    const char* t = Peaks_builtinText();
    char* copy = strdup(t);
    int rows = 0;
    char last_comment[512] = "";
    char block[4096] = "";
    for (char* l = strtok(copy, "\n"); l; l = strtok(NULL, "\n")) {
        if (l[0] == '#') {
            strncat(block, l, sizeof(block) - strlen(block) - 1);
            snprintf(last_comment, sizeof(last_comment), "%s", l);
            continue;
        }
        rows++;
        assert_true(strlen(block) > 0);
        assert_true(strstr(block, "datasheet") || strstr(block, "publishes no"));
        block[0] = '\0';
    }
    assert_true(rows >= 9);
    free(copy);
}

static void user_file_first_and_errors(void** state) {
    (void)state;
    char* dir = TestUtil_tempDir();
    const char* mine = "# my lab's card, measured\nMI300X\t1000 1000 100 2000 4000\n";
    char* path = TestUtil_writeFile(dir, "peaks", mine, strlen(mine));
    Peaks* p = Peaks_new();
    DcuError err;
    assert_int_equal(Peaks_loadDefault(p, path, &err), DCU_OK);
    PeakFigures f;
    assert_int_equal(Peaks_lookup(p, "AMD Instinct MI300X", &f), 1);
    assert_float_equal(f.gbps, 4000, 0);
    assert_int_equal(f.line, 2);
    assert_string_equal(f.source, path);
    assert_int_equal(Peaks_lookup(p, "NVIDIA H200", &f), 1); /* built-in still there */
    assert_string_equal(f.source, "built-in");
    Peaks_delete(p);
    /* $XDG_CONFIG_HOME/dcutop/peaks when no path is given */
    char sub_dir[4096];
    snprintf(sub_dir, sizeof(sub_dir), "%s/dcutop", dir);
    assert_int_equal(mkdir(sub_dir, 0700), 0);
    char* sub = TestUtil_writeFile(dir, "dcutop/peaks", mine, strlen(mine));
    setenv("XDG_CONFIG_HOME", dir, 1);
    p = Peaks_new();
    assert_int_equal(Peaks_loadDefault(p, NULL, &err), DCU_OK);
    assert_int_equal(Peaks_lookup(p, "MI300X", &f), 1);
    assert_float_equal(f.gbps, 4000, 0);
    Peaks_delete(p);
    static const char* const bad[] = {
        "MI300X 1 2 3 4 5\n",          /* no TAB */
        "MI300X\t1 2 3 4\n",           /* four figures */
        "MI300X\t1 2 3 4 5 6\n",       /* six */
        "MI300X\t1 2 x 4 5\n",         /* not a number */
        "MI300X\t1 2 -3 4 5\n",        /* negative */
        "MI3(00X\t1 2 3 4 5\n",        /* bad regex */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        p = Peaks_new();
        assert_int_equal(Peaks_parse(p, bad[i], "t.peaks", &err), DCU_ERR_RULES);
        assert_non_null(strstr(err.msg, "t.peaks:1:"));
        Peaks_delete(p);
    }
    p = Peaks_new();
    assert_int_equal(Peaks_loadDefault(p, "/nonexistent/peaks", &err), DCU_ERR_IO);
    Peaks_delete(p);
    unsetenv("XDG_CONFIG_HOME");
    free(sub);
    free(path);
    TestUtil_rmTree(dir);
    free(dir);
}

static void override_flag(void** state) {
    (void)state;
    PeakFigures f;
    DcuError err;
    assert_int_equal(Peaks_parseOverride("1307.4,5300", &f, &err), DCU_OK);
    assert_float_equal(PeakFigures_tflops(&f, "bf16"), 1307.4, 0);
    assert_float_equal(PeakFigures_tflops(&f, "fp8"), 1307.4, 0);
    assert_float_equal(f.gbps, 5300, 0);
    assert_int_equal(Peaks_parseOverride("1307.4", &f, &err), DCU_ERR_USAGE);
    assert_int_equal(Peaks_parseOverride("x,5", &f, &err), DCU_ERR_USAGE);
    assert_int_equal(Peaks_parseOverride("100,0", &f, &err), DCU_ERR_USAGE);
    assert_int_equal(Peaks_parseOverride("100,5,6", &f, &err), DCU_ERR_USAGE);
    assert_int_equal(Peaks_parseOverride("-,5", &f, &err), DCU_ERR_USAGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lookup_trace_names),
        cmocka_unit_test(every_row_cited),
        cmocka_unit_test(user_file_first_and_errors),
        cmocka_unit_test(override_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
