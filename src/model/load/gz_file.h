/* gz_file.h - a stdio stream over a file that may be gzipped: the line readers (step times,
 * call stacks) read X.csv and X.csv.gz alike. Private to the model's loaders. */
#ifndef DCUTOP_GZ_FILE_H
#define DCUTOP_GZ_FILE_H

#include <stdio.h>

#include "dcutop/error.h"

/* Opens path as SafeFile_fopen does (a regular file only), reading through zlib: a gzip file
 * decompressed (within gz_limit.h's expansion limit: past it, a read error), a plain one as
 * it is. Not seekable. NULL and err set on failure. */
FILE* GzFile_open(const char* path, DcuError* err);

#endif
