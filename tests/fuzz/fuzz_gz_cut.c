/* fuzz_gz_cut.c - gzip members cut short: the input (after two bytes that pick the cut) is a
 * rocprofv3 kernel trace, compressed with a sync flush and no final block or trailer, then
 * cut at the picked point, as a profiler killed while writing leaves a .csv.gz. Oracle: the
 * reader never takes such a file for a whole one (its last read is an error, never an
 * ordinary end of file); then the file goes through the production loader. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz_common.h"
#include "load/gz_file.h"

static void check_cut(const char* path) {
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        abort();
    }
    GzRead r;
    GzRead_init(&r, gz, path);
    static unsigned char buf[1 << 16];
    int got;
    while ((got = GzRead_next(&r, buf, sizeof(buf))) > 0) {
    }
    if (got == 0) {
        fprintf(stderr, "fuzz_gz_cut: a cut gzip member read as a whole file\n");
        abort();
    }
    gzclose(gz);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) {
        return 0;
    }
    unsigned pick = (unsigned)data[0] | (unsigned)data[1] << 8;
    data += 2;
    size -= 2;
    z_stream z = {0};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        abort();
    }
    uLong cap = deflateBound(&z, (uLong)size) + 64;
    uint8_t* out = malloc(cap);
    z.next_in = (Bytef*)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_SYNC_FLUSH) != Z_OK) {
        abort();
    }
    size_t n = z.total_out;
    deflateEnd(&z);
    /* the cut: from just past the 10-byte header to the whole sync-flushed stream */
    size_t cut = n <= 10 ? n : 10 + pick % (n - 10 + 1);
    char* path = Fuzz_write("kernel_trace.csv.gz", out, cut);
    if (cut > 10) {
        check_cut(path);
    }
    const char* paths[] = {path};
    Fuzz_load(paths, 1);
    unlink(path);
    free(path);
    free(out);
    return 0;
}
