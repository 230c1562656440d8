/* test_efficiency.c - Efficiency_build and Efficiency_query on a small Kineto trace written
 * here: an aten::mm that launched two kernels (its FLOPs shared by duration), an aten::add,
 * an op without a model, a kernel without an op; peaks from the built-in table (H200), an
 * unknown device, --peak; the hotspots columns and the "X%peak" what-if. Every expected
 * value is computed by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/efficiency.h"
#include "dcutop/query.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

#define GEMM_A "Cijk_Alik_Bljk_HB_MT128x128x32_MI32x32x8"
#define GEMM_B "Cijk_Alik_Bljk_HB_MT64x64x32_MI32x32x8"

static char* trace_text(const char* device) {
    return xasprintf(
        "{\"deviceProperties\": [{\"id\": 0, \"name\": \"%s\"}], \"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,"
        " \"dur\":5,\"args\":{\"External id\":7,\"Input Dims\":[[1024,1024],[1024,2048]],"
        " \"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":20,"
        " \"dur\":5,\"args\":{\"External id\":8,\"Input Dims\":[[1024,1024],[1024,1024],[]],"
        " \"Input type\":[\"float\",\"float\",\"Scalar\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::index_select\",\"pid\":1,\"tid\":1,"
        " \"ts\":30,\"dur\":5,\"args\":{\"External id\":9,\"Input Dims\":[[10,4],[],[3]],"
        " \"Input type\":[\"float\",\"Scalar\",\"long int\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" GEMM_A "\",\"pid\":0,\"tid\":7,"
        " \"ts\":100,\"dur\":30,\"args\":{\"device\":0,\"correlation\":1,\"External id\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" GEMM_B "\",\"pid\":0,\"tid\":7,"
        " \"ts\":140,\"dur\":10,\"args\":{\"device\":0,\"correlation\":2,\"External id\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add_kernel\",\"pid\":0,\"tid\":7,"
        " \"ts\":160,\"dur\":20,\"args\":{\"device\":0,\"correlation\":3,\"External id\":8}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"idx_kernel\",\"pid\":0,\"tid\":7,"
        " \"ts\":190,\"dur\":5,\"args\":{\"device\":0,\"correlation\":4,\"External id\":9}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"lib_kernel\",\"pid\":0,\"tid\":7,"
        " \"ts\":200,\"dur\":5,\"args\":{\"device\":0,\"correlation\":5}}\n"
        "]}\n",
        device);
}

static TraceDb* load(const char* device, const PeakFigures* override, char** dir) {
    *dir = TestUtil_tempDir();
    char* text = trace_text(device);
    char* path = TestUtil_writeFile(*dir, "t.json", text, strlen(text));
    DcuStatus s;
    TraceDb* db = TestUtil_load(path, &s);
    assert_int_equal(s, DCU_OK);
    Peaks* p = Peaks_new();
    DcuError err;
    assert_int_equal(Peaks_parse(p, Peaks_builtinText(), "built-in", &err), DCU_OK);
    assert_int_equal(Efficiency_build(db, p, override, &err), DCU_OK);
    Peaks_delete(p);
    free(text);
    free(path);
    return db;
}

static void done(TraceDb* db, char* dir) {
    TraceDb_delete(db);
    TestUtil_rmTree(dir);
    free(dir);
}

static const RsCell* cell(const ResultSet* rs, int r, const char* key) {
    int c = ResultSet_columnIndex(rs, key);
    assert_true(c >= 0);
    return ResultSet_cellc(rs, r, c);
}

static int row_of(const ResultSet* rs, const char* key, const char* value) {
    for (int r = 0; r < rs->nrows; r++) {
        const RsCell* c = cell(rs, r, key);
        if (!c->null && strcmp(c->s, value) == 0) {
            return r;
        }
    }
    fail_msg("no row with %s = %s", key, value);
    return -1;
}

/* mm: FLOPs 2*1024*2048*1024 = 4294967296; bytes 2*(1024*1024 + 2*1024*2048) = 10485760;
 * its kernels ran 40 us. H200: bf16 989.5 TFLOP/s -> 4294967296 / 989.5e3 = 4340.543 ns;
 * 4800 GB/s -> 10485760 / 4800 = 2184.533 ns: compute-bound, 10.851% of peak.
 * add (fp32): FLOPs 1048576, bytes 4*3*1048576 = 12582912 -> 2621.44 ns at 4800 GB/s,
 * 1048576 / 67e3 = 15.65 ns at fp32 67: memory-bound, 2621.44 / 20000 = 13.1072%. */
static void ops_against_h200(void** state) {
    (void)state;
    char* dir;
    TraceDb* db = load("NVIDIA H200", NULL, &dir);
    assert_int_equal(Efficiency_modelledOps(db), 2); /* index_select has no model */
    EffDevice d;
    assert_int_equal(Efficiency_device(db, &d), 1);
    assert_string_equal(d.name, "NVIDIA H200");
    assert_int_equal(d.has_peak, 1);
    assert_float_equal(d.peak.tflops[PEAK_BF16], 989.5, 0);
    QueryOpts q = {0};
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Efficiency_query(db, &q, 0, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 2);
    /* most time lost first: mm loses 40000 - 4340.5, add 20000 - 2621.4 */
    assert_string_equal(cell(rs, 0, "op")->s, "aten::mm");
    assert_string_equal(cell(rs, 0, "shape")->s, "M=1024 N=2048 K=1024");
    assert_string_equal(cell(rs, 0, "dtype")->s, "bf16");
    assert_int_equal(cell(rs, 0, "calls")->i, 1);
    assert_float_equal(cell(rs, 0, "flops")->d, 4294967296.0, 0);
    assert_int_equal(cell(rs, 0, "bytes")->i, 10485760);
    assert_int_equal(cell(rs, 0, "kernel_ns")->i, 40000);
    assert_float_equal(cell(rs, 0, "tflops")->d, 4294967296.0 / 40000 / 1e3, 1e-9);
    assert_float_equal(cell(rs, 0, "gbps")->d, 10485760.0 / 40000, 1e-9);
    assert_float_equal(cell(rs, 0, "pct_peak")->d, 100.0 * 4294967296.0 / 989.5e3 / 40000, 1e-9);
    assert_string_equal(cell(rs, 0, "bound")->s, "compute");
    assert_int_equal(cell(rs, 0, "lost_ns")->i, 40000 - 4341);
    assert_float_equal(cell(rs, 0, "intensity")->d, 4294967296.0 / 10485760, 1e-9);
    assert_string_equal(cell(rs, 1, "op")->s, "aten::add");
    assert_string_equal(cell(rs, 1, "bound")->s, "memory");
    assert_float_equal(cell(rs, 1, "pct_peak")->d, 13.1072, 1e-9);
    ResultSet_delete(rs);
    /* the export form: the columns, then where the peaks came from (issue 24) */
    assert_int_equal(Efficiency_query(db, &q, 1, &rs, &err), DCU_OK);
    assert_int_equal(rs->ncols, 12);
    assert_string_equal(rs->cols[10].key, "bound");
    assert_string_equal(rs->cols[11].key, "peak_source");
    ResultSet_delete(rs);
    /* a filter over the op name */
    q.filter = "add";
    assert_int_equal(Efficiency_query(db, &q, 0, &rs, &err), DCU_OK);
    assert_int_equal(rs->nrows, 1);
    ResultSet_delete(rs);
    done(db, dir);
}

/* Per kernel through the op: GEMM_A ran 30 of the op's 40 us, so it gets 3/4 of the FLOPs
 * and bytes, and the same % of peak. */
static void hotspots_per_kernel(void** state) {
    (void)state;
    char* dir;
    TraceDb* db = load("NVIDIA H200", NULL, &dir);
    QueryOpts q = {0};
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Query_view(db, VIEW_HOTSPOTS, &q, &rs, &err), DCU_OK);
    int a = row_of(rs, "name", GEMM_A), b = row_of(rs, "name", GEMM_B);
    assert_float_equal(cell(rs, a, "flops")->d, 4294967296.0 * 0.75, 1e-3);
    assert_float_equal(cell(rs, b, "flops")->d, 4294967296.0 * 0.25, 1e-3);
    assert_int_equal(cell(rs, a, "bytes")->i, 10485760 * 3 / 4);
    assert_float_equal(cell(rs, a, "pct_peak")->d, cell(rs, b, "pct_peak")->d, 1e-9);
    assert_float_equal(cell(rs, a, "pct_peak")->d, 100.0 * 4294967296.0 / 989.5e3 / 40000, 1e-9);
    assert_int_equal(cell(rs, a, "peak_ns")->i, 3255); /* 4340.543 * 0.75 */
    assert_string_equal(cell(rs, a, "bound")->s, "compute");
    /* no op (library launch) and an op without a model: empty, not zero */
    assert_true(cell(rs, row_of(rs, "name", "lib_kernel"), "flops")->null);
    assert_true(cell(rs, row_of(rs, "name", "idx_kernel"), "pct_peak")->null);
    ResultSet_delete(rs);
    done(db, dir);
}

/* k for "CAT=50%peak": the category's time over the same time with each modelled kernel at
 * 50% of its peak: GEMM_A 3255.41 / 0.5 = 6510.81, GEMM_B 1085.14 / 0.5 = 2170.27 ->
 * k = 40000 / 8681.09 = 4.6077 (both kernels are Tensile GEMMs: category gemm). */
static void what_if_at_peak(void** state) {
    (void)state;
    char* dir;
    TraceDb* db = load("NVIDIA H200", NULL, &dir);
    char* ca = TestUtil_text(db, "SELECT category FROM kernel WHERE name = '" GEMM_A "'");
    char* cb = TestUtil_text(db, "SELECT category FROM kernel WHERE name = '" GEMM_B "'");
    assert_string_equal(ca, "gemm");
    assert_string_equal(cb, "gemm");
    free(ca);
    free(cb);
    WhatIf w[2];
    int n;
    DcuError err;
    assert_int_equal(WhatIf_parse("gemm=50%peak", w, 2, &n, &err), DCU_OK);
    assert_float_equal(w[0].at_peak, 50, 0);
    assert_int_equal(WhatIf_parse("gemm=0%peak", w, 2, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("gemm=120%peak", w, 2, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("gemm=x%peak", w, 2, &n, &err), DCU_ERR_USAGE);
    assert_int_equal(WhatIf_parse("gemm=50%peak", w, 2, &n, &err), DCU_OK);
    QueryOpts q = {0};
    q.what_if = w;
    q.n_what_if = n;
    ResultSet* rs = NULL;
    assert_int_equal(Query_view(db, VIEW_CATEGORIES, &q, &rs, &err), DCU_OK);
    int r = row_of(rs, "category", "gemm");
    double k = 40000.0 / (2 * 4294967296.0 / 989.5e3);
    assert_float_equal(cell(rs, r, "what_if")->d, k, 1e-9);
    assert_non_null(strstr(rs->footer, "gemm=50%peak (k=4.61)"));
    ResultSet_delete(rs);
    /* the whole-program bound: gemm is 40 of the 70 us of kernels */
    double sp;
    assert_int_equal(Query_projection(db, w, n, &sp, &err), DCU_OK);
    assert_float_equal(sp, 1.0 / (30.0 / 70 + (40.0 / 70) / k), 1e-9);
    done(db, dir);
}

/* An unknown device: achieved rates, no % of peak; --peak sets the roofs (1000 TFLOP/s,
 * 1000 GB/s: mm becomes memory-bound, 10485.76 / 40000 = 26.2144%). */
static void unknown_device_and_override(void** state) {
    (void)state;
    char* dir;
    TraceDb* db = load("Mystery GPU", NULL, &dir);
    EffDevice d;
    assert_int_equal(Efficiency_device(db, &d), 1);
    assert_int_equal(d.has_peak, 0);
    QueryOpts q = {0};
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Efficiency_query(db, &q, 0, &rs, &err), DCU_OK);
    int r = row_of(rs, "op", "aten::mm");
    assert_false(cell(rs, r, "tflops")->null);
    assert_true(cell(rs, r, "pct_peak")->null);
    assert_true(cell(rs, r, "bound")->null);
    ResultSet_delete(rs);
    done(db, dir);
    PeakFigures o;
    assert_int_equal(Peaks_parseOverride("1000,1000", &o, &err), DCU_OK);
    db = load("Mystery GPU", &o, &dir);
    assert_int_equal(Efficiency_query(db, &q, 0, &rs, &err), DCU_OK);
    r = row_of(rs, "op", "aten::mm");
    assert_float_equal(cell(rs, r, "pct_peak")->d, 26.2144, 1e-9);
    assert_string_equal(cell(rs, r, "bound")->s, "memory");
    ResultSet_delete(rs);
    done(db, dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ops_against_h200),
        cmocka_unit_test(hotspots_per_kernel),
        cmocka_unit_test(what_if_at_peak),
        cmocka_unit_test(unknown_device_and_override),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
