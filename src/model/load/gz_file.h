/* gz_file.h - a stdio stream over a file that may be gzipped: the line readers (step times,
 * call stacks) read X.csv and X.csv.gz alike. Private to the model's loaders. */
#ifndef DCUTOP_GZ_FILE_H
#define DCUTOP_GZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include "dcutop/error.h"

/* gzread within gz_limit.h's expansion bound: the one place that enforces it, for GzFile_open's
 * stream and for the CSV reader (which reads blocks itself, and cuts plain files into chunks). */
typedef struct GzRead_ {
    gzFile gz;      /* borrowed */
    uint64_t done;  /* bytes given out so far */
    uint64_t limit; /* the most a gzip file may expand to; UINT64_MAX for a plain file */
} GzRead;

enum { GZ_READ_ERROR = -1, GZ_READ_TOO_BIG = -2, GZ_READ_TRUNCATED = -3 };

/* 1 when gz, read to its end, stopped inside a gzip member (no final block or trailer):
 * zlib then returns the bytes it had as an ordinary end of file, so a file cut after a sync
 * flush would otherwise lose its tail without a word. */
int GzRead_cutShort(gzFile gz);

/* Why the last read of gz failed, in the user's words: "read" or "gzip" (in *kind) and zlib's
 * reason without the "<fd:N>: " it names a descriptor by (the caller names the file), or the
 * system's reason for an I/O error. Static or gz-owned text, valid until the next call. */
const char* GzRead_error(gzFile gz, const char** kind);
/* The words for a gzip file cut inside a member after `bytes` decompressed bytes, into buf
 * (the readers that stream it all say it alike). */
void GzRead_cutText(char* buf, size_t cap, uint64_t bytes);

/* Starts r over gz (borrowed; gzdirect must be able to tell already), the file at path. */
void GzRead_init(GzRead* r, gzFile gz, const char* path);
/* Reads up to n bytes (at most 1 GiB at a time): the count, 0 at the end, GZ_READ_ERROR on a
 * zlib or I/O error (gzerror says which), GZ_READ_TOO_BIG when the data would expand past the
 * limit (those bytes are not counted in done), GZ_READ_TRUNCATED when a gzip file ends inside
 * a member (GzRead_cutShort). */
int GzRead_next(GzRead* r, void* buf, size_t n);

/* Opens path as SafeFile_fopen does (a regular file only), reading through zlib: a gzip file
 * decompressed (within gz_limit.h's expansion limit: past it, a read error), a plain one as
 * it is. Not seekable. NULL and err set on failure. */
FILE* GzFile_open(const char* path, DcuError* err);
/* What a failed read of a GzFile_open stream means, from its errno: the text for a gzip file
 * cut short or expanding past the bound, else strerror's. */
const char* GzFile_readError(int errnum);

#endif
