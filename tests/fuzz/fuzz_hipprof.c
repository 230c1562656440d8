/* fuzz_hipprof.c - hipprof CSV files (FORMATS.md 1): kernel, hipkernel, hiptrace, hsatrace.
 * The first input byte picks the file name (the loader reads some columns by name). */
#include "fuzz_common.h"

static const char* const names[] = {
    "run.kernel.csv",
    "run.hipkernel.csv",
    "run.hiptrace.csv",
    "run.hsatrace.csv",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    Fuzz_loadAs(name, data, size);
    return 0;
}
