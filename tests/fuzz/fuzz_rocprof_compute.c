/* fuzz_rocprof_compute.c - rocprof-compute workload CSVs (issue 24): roofline.csv (measured
 * peaks), sysinfo.csv (the device) and pmc_perf.csv (PMC per dispatch), plain or gzip (the
 * input's own bytes decide). The first input byte picks the file name. */
#include "fuzz_common.h"

static const char* const names[] = {"roofline.csv", "sysinfo.csv", "pmc_perf.csv",
                                    "roofline.csv.gz"};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    Fuzz_loadAs(name, data, size);
    return 0;
}
