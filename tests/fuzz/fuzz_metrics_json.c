/* fuzz_metrics_json.c - a run's metrics as JSON (load_metrics.c): {"name": value} or
 * {"name": {"value": v, "tolerance": t, "better": "higher"}}, with the line of each member
 * counted from yajl's offset. Loaded as metrics.json (the name decides that form). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("metrics.json", data, size);
    return 0;
}
