/* out_file.h - opening an output path without destroying what is there. Every file dcutop
 * writes (--export, --report -o, --save-db, the interactive `e`) goes through here:
 *  - a FIFO, a device or an open descriptor (/dev/stdout, /dev/fd/N) is written directly,
 *    never truncated, renamed over or unlinked;
 *  - a symlink is followed to its target (a dangling one creates its target), and the target
 *    is replaced, so the link stays a link;
 *  - a regular file is written to a unique temp file beside it (".NAME.dcutop-XXXXXX",
 *    mkstemp: O_EXCL) and renamed into place at OutFile_commit(), so no reader ever sees half
 *    a file. An existing regular file is replaced only with OUT_FORCE; the new file keeps the
 *    old one's mode (and owner, for root); a new file gets 0666 & ~umask.
 * Only the temp file this OutFile created is ever removed. */
#ifndef DCUTOP_OUT_FILE_H
#define DCUTOP_OUT_FILE_H

#include <stdio.h>

#include "dcutop/error.h"

enum {
    OUT_FORCE = 1,    /* replace an existing regular file (--force, or the TUI's "yes") */
    OUT_SEEKABLE = 2, /* the writer needs a real file at OutFile_tempPath() (SQLite): for a
                         FIFO or device, a temp file in $TMPDIR is copied there at commit */
};

typedef struct OutFile_ {
    FILE* fp;     /* owned until commit/abort: write here (the temp file or the target) */
    char* path;   /* owned: the path as given, for messages */
    char* target; /* owned: the file that is replaced (a symlink's target), or NULL */
    char* tmp;    /* owned: the temp file's name, NULL when writing straight to the target */
    FILE* direct; /* owned: OUT_SEEKABLE on a FIFO or device, the target itself */
} OutFile;

/* Opens path for writing. DCU_ERR_USAGE when path is an existing regular file and flags
 * lacks OUT_FORCE (the message says to use --force); DCU_ERR_IO when it cannot be created.
 * On success call exactly one of OutFile_commit() and OutFile_abort(). */
DcuStatus OutFile_open(OutFile* this, const char* path, int flags, DcuError* err);

/* Checks, without creating anything, what OutFile_open() would refuse: an existing regular
 * file without OUT_FORCE, a folder. Lets a command refuse before a long load. */
DcuStatus OutFile_check(const char* path, int flags, DcuError* err);

/* 1 when writing path would replace an existing regular file (the TUI asks first). */
int OutFile_wouldReplace(const char* path);

/* Where a writer that opens files by name (SQLite) writes; NULL when writing directly. */
const char* OutFile_tempPath(const OutFile* this);

/* Flushes and closes; moves the temp file into place (or copies it into the FIFO or device).
 * A write error (ENOSPC on a full device...) is DCU_ERR_IO naming the path; the temp file is
 * removed then. Frees everything either way. */
DcuStatus OutFile_commit(OutFile* this, DcuError* err);

/* The usual ending: commit when the writer returned DCU_OK, else abort and return its status,
 * with the path put in front of an I/O error's message. */
DcuStatus OutFile_finish(OutFile* this, DcuStatus written, DcuError* err);

/* Closes and removes the temp file: the target is left as it was. Safe after a failed open. */
void OutFile_abort(OutFile* this);

#endif
