/* gz_file.c - GzFile_open (gz_file.h): zlib's gzread behind a stdio stream (fopencookie), so
 * that readers written for FILE* take gzipped inputs unchanged. */
#define _GNU_SOURCE /* fopencookie */
#include "gz_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "gz_limit.h"

typedef struct {
    gzFile gz;
    uint64_t done, limit; /* bytes given out; the most a gzip file may expand to */
} GzCookie;

static ssize_t gz_read(void* cookie, char* buf, size_t n) {
    GzCookie* c = cookie;
    unsigned want = n > (1u << 30) ? 1u << 30 : (unsigned)n;
    int got = gzread(c->gz, buf, want);
    if (got < 0) {
        errno = EIO;
        return -1;
    }
    if ((uint64_t)got > c->limit - c->done) { /* a gzip bomb: stop, as .json.gz does */
        errno = EFBIG;
        return -1;
    }
    c->done += (uint64_t)got;
    return got;
}

static int gz_close(void* cookie) {
    GzCookie* c = cookie;
    int r = gzclose(c->gz) == Z_OK ? 0 : -1;
    free(c);
    return r;
}

FILE* GzFile_open(const char* path, DcuError* err) {
    int fd = SafeFile_open(path, NULL, err); /* never a FIFO or device */
    if (fd < 0) {
        return NULL;
    }
    gzFile gz = gzdopen(fd, "rb"); /* owns fd from here */
    if (!gz) {
        close(fd);
        Error_set(err, DCU_ERR_NOMEM, "cannot start zlib");
        return NULL;
    }
    GzCookie* c = xmalloc(sizeof(*c));
    c->gz = gz;
    c->done = 0;
    c->limit = gzdirect(gz) ? UINT64_MAX : GzLimit_bytes(path);
    cookie_io_functions_t io = {gz_read, NULL, NULL, gz_close};
    FILE* f = fopencookie(c, "rb", io);
    if (!f) {
        gz_close(c);
        Error_set(err, DCU_ERR_NOMEM, "cannot open a stream");
    }
    return f;
}
