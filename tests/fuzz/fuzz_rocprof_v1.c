/* fuzz_rocprof_v1.c - rocprof v1 results.csv (FORMATS.md 2): one row per kernel dispatch. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("results.csv", data, size);
    return 0;
}
