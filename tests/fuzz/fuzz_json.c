/* fuzz_json.c - chrome-trace JSON (rocprof v1 results.json, hipprof JSON), plain text. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("results.json", data, size);
    return 0;
}
