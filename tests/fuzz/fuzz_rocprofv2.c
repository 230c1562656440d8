/* fuzz_rocprofv2.c - rocprofv2 file plugin CSVs (FORMATS.md 3), blank second line included.
 * The first input byte picks the file name (the loader reads some columns by name). */
#include "fuzz_common.h"

static const char* const names[] = {
    "results_4242.csv",
    "hip_api_trace_4242.csv",
    "hcc_ops_trace_4242.csv",
    "hsa_api_trace_4242.csv",
    "async_copy_trace_4242.csv",
    "roctx_trace_4242.csv",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    Fuzz_loadAs(name, data, size);
    return 0;
}
