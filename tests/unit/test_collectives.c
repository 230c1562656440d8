/* test_collectives.c - the collectives' rules (collectives.h) on names PyTorch and NCCL write,
 * and the nccl-tests reference reader (coll_ref.h): its layouts (header, no root column, an
 * MPI prefix, log lines), bad lines named with file:line, the type, and the log-linear
 * interpolation, each against values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dcutop/coll_ref.h"
#include "dcutop/collectives.h"

static void types_from_pytorch_and_kernel_names(void** state) {
    (void)state;
    static const char* const cases[][2] = {
        {"allreduce", "all_reduce"},
        {"allreduce_coalesced", "all_reduce"},
        {"_allgather_base", "all_gather"},
        {"allgather_into_tensor_coalesced", "all_gather"},
        {"_reduce_scatter_base", "reduce_scatter"},
        {"reduce_scatter_tensor_coalesced", "reduce_scatter"},
        {"all_to_all", "all_to_all"},
        {"alltoall_base", "all_to_all"},
        {"broadcast", "broadcast"},
        {"reduce", "reduce"},
        {"send", "send"},
        {"recv", "recv"},
        {"barrier", "barrier"},
        {"gather", "gather"},
        {"scatter", "scatter"},
        {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         "all_reduce"},
        {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", "reduce_scatter"},
        {"ncclDevKernel_AllGather_RING_LL", "all_gather"},
        {"ncclDevKernel_SendRecv", "send_recv"},
        {"ncclDevKernel_Broadcast_RING_LL", "broadcast"},
        {"gemm", "other"},
        {"", "other"},
    };
    char buf[24];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_string_equal(Collectives_typeOf(cases[i][0], buf, sizeof(buf)), cases[i][1]);
    }
}

static void bus_factors_are_nccl_tests(void** state) {
    (void)state;
    assert_true(fabs(Collectives_busFactor("all_reduce", 8) - 1.75) < 1e-12);
    assert_true(fabs(Collectives_busFactor("all_reduce", 2) - 1.0) < 1e-12);
    assert_true(fabs(Collectives_busFactor("all_gather", 4) - 0.75) < 1e-12);
    assert_true(fabs(Collectives_busFactor("reduce_scatter", 8) - 0.875) < 1e-12);
    assert_true(fabs(Collectives_busFactor("all_to_all", 2) - 0.5) < 1e-12);
    assert_true(fabs(Collectives_busFactor("broadcast", 8) - 1.0) < 1e-12);
    assert_true(fabs(Collectives_busFactor("reduce", 8) - 1.0) < 1e-12);
    assert_true(isnan(Collectives_busFactor("barrier", 8)));
    assert_true(isnan(Collectives_busFactor("other", 8)));
    assert_int_equal(Collectives_dtypeSize("Float"), 4);
    assert_int_equal(Collectives_dtypeSize("BFloat16"), 2);
    assert_int_equal(Collectives_dtypeSize("Half"), 2);
    assert_int_equal(Collectives_dtypeSize("Long"), 8);
    assert_int_equal(Collectives_dtypeSize("Float8_e4m3fn"), 1);
    assert_int_equal(Collectives_dtypeSize("Quux"), 0);
    assert_int_equal(Collectives_dtypeSize(NULL), 0);
}

static const char table13[] =
    "# Collective test starting: all_gather_perf\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "        1024           256     float    none      -1    10.00    0.10    0.08      0"
    "    11.00    0.09    0.08      0\n"
    "host:1:1 [0] NCCL INFO Launch mode Parallel\n"
    "        4096          1024     float    none      -1    20.00    0.20    0.16      0"
    "    21.00    0.19    0.16      0\n"
    "           0             0     float    none      -1     5.00    0.00    0.00      0"
    "     5.00    0.00    0.00      0\n";

static void reads_a_table_with_its_header(void** state) {
    (void)state;
    CollRef r;
    CollRef_init(&r);
    DcuError e;
    assert_int_equal(CollRef_parse(&r, table13, strlen(table13), "x.txt", NULL, &e), DCU_OK);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.c[0].type, "all_gather");
    assert_int_equal(r.c[0].n, 2); /* the size 0 row left out */
    assert_int_equal(r.c[0].rows[0].bytes, 1024);
    assert_true(fabs(r.c[0].rows[1].time_us - 20.0) < 1e-12);
    assert_true(fabs(r.c[0].rows[1].busbw - 0.16) < 1e-12);
    assert_null(r.warning);
    /* exact at a measured size, log-linear between: 2048 lies halfway in log */
    assert_true(fabs(CollRef_busbw(&r, "all_gather", 1024) - 0.08) < 1e-12);
    assert_true(fabs(CollRef_busbw(&r, "all_gather", 2048) - 0.12) < 1e-12);
    assert_true(isnan(CollRef_busbw(&r, "all_gather", 512)));  /* below the curve */
    assert_true(isnan(CollRef_busbw(&r, "all_gather", 8192))); /* above */
    assert_true(isnan(CollRef_busbw(&r, "all_reduce", 2048))); /* no curve of that type */
    CollRef_done(&r);
}

static void reads_old_rows_mpi_prefixes_and_names_bad_lines(void** state) {
    (void)state;
    static const char t[] = "[1,0]<stdout>:  1024  256  float  sum  22.00  0.05  0.50  0  22.0"
                            "  0.05  0.50  0\n"
                            "[1,0]<stdout>:  2048  512  float  sum  oops  0.09  0.90  0  23.0"
                            "  0.09  0.90  0\n"
                            "  4096  1024  float  sum  30.00  0.14  0.70  0\n"
                            "  12x  1  float\n";
    CollRef r;
    CollRef_init(&r);
    DcuError e;
    assert_int_equal(CollRef_parse(&r, t, strlen(t), "ar.txt", "allreduce", &e), DCU_OK);
    assert_string_equal(r.c[0].type, "all_reduce");
    assert_int_equal(r.c[0].n, 2); /* 12 columns without root: busbw is the 7th */
    assert_true(fabs(r.c[0].rows[0].busbw - 0.50) < 1e-12);
    assert_true(fabs(r.c[0].rows[1].busbw - 0.70) < 1e-12);
    assert_non_null(r.warning);
    assert_non_null(strstr(r.warning, "ar.txt:2: "));
    assert_non_null(strstr(r.warning, "and 1 more bad lines"));
    CollRef_done(&r);
}

static void refuses_what_it_cannot_use(void** state) {
    (void)state;
    CollRef r;
    CollRef_init(&r);
    DcuError e;
    static const char none[] = "# nThread 1\n#\n";
    assert_int_equal(CollRef_parse(&r, none, strlen(none), "a_all_reduce.txt", NULL, &e),
                     DCU_ERR_PARSE);
    assert_non_null(strstr(e.msg, "no nccl-tests table row"));
    /* rows, but no collective in the text, the name or the caller's words */
    static const char rows[] = "  1024  256  float  sum  -1  22.0  0.05  0.08  0\n";
    assert_int_equal(CollRef_parse(&r, rows, strlen(rows), "curve.txt", NULL, &e),
                     DCU_ERR_PARSE);
    assert_non_null(strstr(e.msg, "TYPE=FILE"));
    assert_int_equal(CollRef_parse(&r, rows, strlen(rows), "curve.txt", "frobnicate", &e),
                     DCU_ERR_PARSE);
    assert_int_equal(r.n, 0);
    CollRef_done(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(types_from_pytorch_and_kernel_names),
        cmocka_unit_test(bus_factors_are_nccl_tests),
        cmocka_unit_test(reads_a_table_with_its_header),
        cmocka_unit_test(reads_old_rows_mpi_prefixes_and_names_bad_lines),
        cmocka_unit_test(refuses_what_it_cannot_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
