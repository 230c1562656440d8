/* fuzz_rocprofv3.c - rocprofv3 CSV output (FORMATS.md 4.1): traces, stats and agent info.
 * The first input byte picks the file name (the loader reads some columns by name). */
#include "fuzz_common.h"

static const char* const names[] = {
    "4242_kernel_trace.csv",
    "4242_hip_api_trace.csv",
    "4242_hsa_api_trace.csv",
    "4242_marker_api_trace.csv",
    "4242_memory_copy_trace.csv",
    "4242_memory_allocation_trace.csv",
    "4242_scratch_memory_trace.csv",
    "4242_counter_collection.csv",
    "4242_agent_info.csv",
    "4242_kernel_stats.csv",
    "4242_hip_api_stats.csv",
    "4242_domain_stats.csv",
    "4242_memory_copy_stats.csv",
    "4242_kernel_names.csv",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    Fuzz_loadAs(name, data, size);
    return 0;
}
