/* fuzz_kineto_gz.c - Kineto JSON in a .json.gz, as PyTorch writes it. An input that starts
 * with the gzip magic is written as is (broken streams, odd ratios); any other input is
 * JSON text that this target compresses first, so the fuzzer can also mutate the JSON
 * behind the gzip layer. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        Fuzz_loadAs("rank0.trace.json.gz", data, size);
        return 0;
    }
    /* gzip wrapper (windowBits 15 + 16) at the fastest level */
    z_stream z = {0};
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        abort();
    }
    uLong cap = deflateBound(&z, (uLong)size) + 32;
    uint8_t* out = malloc(cap);
    z.next_in = (Bytef*)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
        abort();
    }
    size_t n = z.total_out;
    deflateEnd(&z);
    Fuzz_loadAs("rank0.trace.json.gz", out, n);
    free(out);
    return 0;
}
