/* fuzz_folded.c - folded stacks 'frame;frame;leaf VALUE' (torch.profiler export_stacks).
 * The first input byte picks the file name (the loader reads some columns by name). */
#include "fuzz_common.h"

static const char* const names[] = {
    "climate.stacks.txt",
    "profile.folded",
    "profile.collapsed",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    Fuzz_loadAs(name, data, size);
    return 0;
}
