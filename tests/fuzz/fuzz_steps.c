/* fuzz_steps.c - plain step timings (load_steps.c): step-times.json with a list of
 * milliseconds, or a one-column CSV of milliseconds. The first byte picks the file name,
 * so both forms, and the sniffing between them, are reached. */
#include "fuzz_common.h"

static const char* const names[] = {"step-times.json", "step_times.csv", "steps.txt"};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    Fuzz_loadAs(name, data, size);
    return 0;
}
