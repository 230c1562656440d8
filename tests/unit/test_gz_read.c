/* test_gz_read.c - the one gzip expansion check (gz_file.h's GzRead, gz_limit.h's bound) that
 * the CSV reader and GzFile_open's stream (step times, call stacks) share: a read that would
 * pass the limit gives nothing out and says so, the bytes before it stay counted; a plain file
 * has no limit; the stream stops a gzip bomb with EFBIG at the bound. Files are written here,
 * in a temp folder. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "dcutop/xalloc.h"
#include "load/gz_file.h"
#include "load/gz_limit.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

/* dir/name: `members` gzip members of `each` zero bytes (a gzip bomb when large); the path
 * (owned). */
static char* write_gz(const char* name, int members, size_t each) {
    unsigned char* zeros = xcalloc(1, each);
    uLongf cap = compressBound((uLong)each) + 32;
    unsigned char* z = xmalloc(cap);
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = zeros;
    zs.avail_in = (uInt)each;
    zs.next_out = z;
    zs.avail_out = (uInt)cap;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t zlen = zs.total_out;
    deflateEnd(&zs);
    char* path = xasprintf("%s/%s", dir, name);
    FILE* f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < members; i++) {
        assert_int_equal(fwrite(z, 1, zlen, f), zlen);
    }
    fclose(f);
    free(z);
    free(zeros);
    return path;
}

static gzFile open_gz(const char* path) {
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    return gz;
}

/* 1 MiB inside, a limit of 300000 bytes: 64 KiB blocks until the one that would pass it */
static void limit_stops_before_the_block_that_passes_it(void** state) {
    (void)state;
    char* path = write_gz("z.csv.gz", 1, 1 << 20);
    gzFile gz = open_gz(path);
    GzRead r;
    GzRead_init(&r, gz, path);
    assert_int_equal(r.limit, GzLimit_bytes(path)); /* a gzip file: the bound of gz_limit.h */
    assert_true(r.limit >= GZ_FLOOR);
    r.limit = 300000;
    static unsigned char block[1 << 16];
    int got, reads = 0;
    while ((got = GzRead_next(&r, block, sizeof(block))) > 0) {
        reads++;
    }
    assert_int_equal(got, GZ_READ_TOO_BIG);
    assert_int_equal(reads, 4);
    assert_int_equal(r.done, 4 << 16); /* the refused block is not counted */
    gzclose(gz);
    free(path);
}

/* a plain file is read as it is, with no limit */
static void plain_file_has_no_limit(void** state) {
    (void)state;
    char* path = TestUtil_writeFile(dir, "p.csv", "a,b\n1,2\n", 8);
    gzFile gz = open_gz(path);
    GzRead r;
    GzRead_init(&r, gz, path);
    assert_true(r.limit == UINT64_MAX);
    char buf[64];
    assert_int_equal(GzRead_next(&r, buf, sizeof(buf)), 8);
    assert_int_equal(GzRead_next(&r, buf, sizeof(buf)), 0);
    assert_int_equal(r.done, 8);
    gzclose(gz);
    free(path);
}

/* GzFile_open's stream over a bomb (257 MiB of zeros in 1 MiB members, about 260 KB on disk):
 * reading stops with EFBIG at gz_limit.h's floor, never past it */
static void stream_stops_a_bomb(void** state) {
    (void)state;
    char* path = write_gz("bomb.stacks.txt.gz", 257, 1 << 20);
    DcuError err;
    FILE* f = GzFile_open(path, &err);
    assert_non_null(f);
    static char buf[1 << 16];
    uint64_t total = 0;
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        total += n;
    }
    assert_true(ferror(f));
    assert_int_equal(errno, EFBIG);
    assert_true(total <= GZ_FLOOR);
    assert_true(total > GZ_FLOOR - (1 << 20));
    fclose(f);
    free(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(limit_stops_before_the_block_that_passes_it, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(plain_file_has_no_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(stream_stops_a_bomb, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
