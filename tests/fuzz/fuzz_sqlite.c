/* fuzz_sqlite.c - SQLite trace databases (rocprof v1 results.db, rocpd, rpd): the input is the
 * bytes of the database file; the loader tells the schemas apart by their tables. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Fuzz_loadAs("results.db", data, size);
    return 0;
}
