/* fuzz_compute_db.c - the analysis database of `rocprof-compute analyze --output-format db`
 * (issue 24): the input is the database file's bytes; its seeds are small databases of that
 * schema (kernels, dispatches, metric values, roofline points, JSON machine and peaks). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("rocprof_compute.db", data, size);
    return 0;
}
