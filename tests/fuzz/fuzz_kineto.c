/* fuzz_kineto.c - PyTorch profiler (Kineto) chrome-trace JSON, plain text. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("rank0.trace.json", data, size);
    return 0;
}
