/* gz_file.c - GzRead and GzFile_open (gz_file.h): zlib's gzread within the expansion bound,
 * and behind a stdio stream (fopencookie), so that readers written for FILE* take gzipped
 * inputs unchanged. */
#define _GNU_SOURCE /* fopencookie */
#include "gz_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "gz_limit.h"

void GzRead_init(GzRead* r, gzFile gz, const char* path) {
    r->gz = gz;
    r->done = 0;
    r->limit = gzdirect(gz) ? UINT64_MAX : GzLimit_bytes(path);
}

int GzRead_cutShort(gzFile gz) {
    int zerr = Z_OK;
    gzerror(gz, &zerr);
    return !gzdirect(gz) && zerr == Z_BUF_ERROR;
}

const char* GzRead_error(gzFile gz, const char** kind) {
    int zerr = Z_OK;
    const char* m = gzerror(gz, &zerr);
    *kind = gzdirect(gz) ? "read" : "gzip";
    if (zerr == Z_ERRNO) {
        return strerror(errno);
    }
    if (m && strncmp(m, "<fd:", 4) == 0) { /* gzdopen's name for the file */
        const char* sep = strstr(m, ">: ");
        m = sep ? sep + 3 : m;
    }
    if (m && strcmp(m, "incorrect data check") == 0) {
        return "incorrect data check (the data does not match its CRC: the file is damaged)";
    }
    return m && *m ? m : "?";
}

int GzRead_next(GzRead* r, void* buf, size_t n) {
    unsigned want = n > (1u << 30) ? 1u << 30 : (unsigned)n;
    int got = gzread(r->gz, buf, want);
    if (got < 0) {
        return GZ_READ_ERROR;
    }
    if (got == 0 && GzRead_cutShort(r->gz)) {
        return GZ_READ_TRUNCATED;
    }
    if ((uint64_t)got > r->limit - r->done) { /* a gzip bomb: stop, as .json.gz does */
        return GZ_READ_TOO_BIG;
    }
    r->done += (uint64_t)got;
    return got;
}

static ssize_t gz_read(void* cookie, char* buf, size_t n) {
    int got = GzRead_next(cookie, buf, n);
    if (got < 0) {
        errno = got == GZ_READ_TOO_BIG ? EFBIG : got == GZ_READ_TRUNCATED ? ENODATA : EIO;
        return -1;
    }
    return got;
}

static int gz_close(void* cookie) {
    GzRead* c = cookie;
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
    GzRead* c = xmalloc(sizeof(*c));
    GzRead_init(c, gz, path);
    cookie_io_functions_t io = {gz_read, NULL, NULL, gz_close};
    FILE* f = fopencookie(c, "rb", io);
    if (!f) {
        gz_close(c);
        Error_set(err, DCU_ERR_NOMEM, "cannot open a stream");
    }
    return f;
}

void GzRead_cutText(char* buf, size_t cap, uint64_t bytes) {
    snprintf(buf, cap, "gzip data ends inside a member after %llu bytes (the file was cut short, "
             "gzip -t says 'unexpected end of file'): the rest is lost",
             (unsigned long long)bytes);
}

const char* GzFile_readError(int errnum) {
    if (errnum == ENODATA) {
        return "gzip data ends inside a member (the file was cut short): the rest is lost";
    }
    if (errnum == EFBIG) {
        return "gzip data expands past its bound: reading stopped";
    }
    return strerror(errnum);
}
