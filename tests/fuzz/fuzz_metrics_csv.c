/* fuzz_metrics_csv.c - a run's metrics as CSV (load_metrics.c): the header name,value with
 * optional tolerance and better columns in any order, quoted fields, comments, bad lines.
 * The input is loaded as metrics.csv, so the header sniff and the line reader are both hit. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("metrics.csv", data, size);
    return 0;
}
