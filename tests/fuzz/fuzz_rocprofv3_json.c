/* fuzz_rocprofv3_json.c - rocprofv3 --output-format json (rocprofiler-sdk-tool), plain text
 * (load_v3json.c). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("32432_results.json", data, size);
    return 0;
}
