/* safe_file.h - opens trace inputs for reading only when they are regular files.
 * A trace folder copied from elsewhere may hold a FIFO, a socket or a device node: opening
 * one for reading would block forever (FIFO), fail oddly, or touch hardware. Every loader
 * opens its input through here, so what is read is what was checked. */
#ifndef DCUTOP_SAFE_FILE_H
#define DCUTOP_SAFE_FILE_H

#include <stdio.h>
#include <sys/stat.h>

#include "dcutop/error.h"

/* A word for a file type, for messages: "FIFO", "socket", "character device",
 * "block device", "directory", "symbolic link", "regular file", "unknown file type". */
const char* SafeFile_kind(mode_t mode);

/* Opens path O_RDONLY|O_NONBLOCK|O_NOCTTY (so a FIFO or device never blocks), fstats the
 * descriptor and refuses anything but a regular file (whose reads O_NONBLOCK does not
 * change, so it is left set). On success
 * returns the descriptor (owned by the caller) and fills *st when st is not NULL. On
 * failure returns -1 and sets err (DCU_ERR_IO) to "cannot open: <strerror>" or
 * "not a regular file: FIFO" (no path: callers prefix it when they want one). */
int SafeFile_open(const char* path, struct stat* st, DcuError* err);

/* The same, as a stdio stream opened "rb"; NULL and err set on failure. */
FILE* SafeFile_fopen(const char* path, DcuError* err);

/* Checks without reading: 0 when path can be opened as a regular file, else -1 and err set
 * as SafeFile_open does. For readers that must hand a path to a library (SQLite). */
int SafeFile_check(const char* path, struct stat* st, DcuError* err);

/* 1 when another open file holds a write lock on bytes [off, off + len) of fd's file (as a
 * SQLite writer does on its lock bytes while it commits), 0 when none does or it cannot be
 * told. Locks of this process through other descriptors count too (OFD lock test). */
int SafeFile_writeLocked(int fd, off_t off, off_t len);

#endif
