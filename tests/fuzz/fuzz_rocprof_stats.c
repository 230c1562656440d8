/* fuzz_rocprof_stats.c - rocprof v1 --stats CSVs (FORMATS.md 2): kernel, HIP, HSA and copy stats.
 * The first input byte picks the file name (the loader reads some columns by name). */
#include "fuzz_common.h"

static const char* const names[] = {
    "results.stats.csv",
    "results.hip_stats.csv",
    "results.hsa_stats.csv",
    "results.copy_stats.csv",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    Fuzz_loadAs(name, data, size);
    return 0;
}
