/* out_file.h - opening an output path without destroying what is there. Every file dcutop
 * writes (--export, --report -o, --diff/--abba -o, --sql -o, --save-db, --timing, the
 * interactive `e`) goes through here:
 *  - a FIFO, a device or an open descriptor (/dev/stdout, /dev/fd/N) is written directly,
 *    never truncated, renamed over or unlinked, and never opened blocking (O_NONBLOCK; a FIFO
 *    with no reader is waited for in short sleeps, or refused at once with OUT_NOWAIT);
 *  - a symlink is followed to its target (a dangling one creates its target), and the target
 *    is replaced, so the link stays a link; a chain that ends outside the link's folder is
 *    refused without OUT_OUTSIDE;
 *  - a regular file is written to a unique temp file beside it (".NAME.dcutop-XXXXXX",
 *    mkstemp: O_EXCL), fsync'ed and moved into place at OutFile_commit(), so no reader ever
 *    sees half a file. An existing regular file is replaced only with OUT_FORCE, and without
 *    it the move is renameat2(RENAME_NOREPLACE) (or link() + unlink()): a file that appeared
 *    while dcutop wrote is kept. The new file keeps the old one's mode (and owner, for root);
 *    a new file gets 0666 & ~umask.
 * Only the temp file this OutFile created is ever removed; OutFile_removeTemps() removes
 * those alive from a signal handler. */
#ifndef DCUTOP_OUT_FILE_H
#define DCUTOP_OUT_FILE_H

#include <stdio.h>

#include "dcutop/error.h"

enum {
    OUT_FORCE = 1,    /* replace an existing regular file (--force, or the TUI's "yes") */
    OUT_SEEKABLE = 2, /* the writer needs a real file at OutFile_tempPath() (SQLite): for a
                         FIFO or device, a temp file in $TMPDIR is copied there at commit */
    OUT_NOWAIT = 4,   /* a FIFO with no reader is an error at once, never waited for (TUI) */
    OUT_OUTSIDE = 8,  /* follow a symlink whose target leaves the link's folder (--force, or
                         the TUI's typed "yes") */
    OUT_FORCE_ALL = OUT_FORCE | OUT_OUTSIDE, /* --force */
};

typedef struct OutFile_ {
    FILE* fp;     /* owned until commit/abort: write here (the temp file or the target) */
    char* path;   /* owned: the path as given, for messages */
    char* target; /* owned: the file that is replaced (a symlink's target), or NULL */
    char* tmp;    /* owned: the temp file's name, NULL when writing straight to the target */
    FILE* direct; /* owned: OUT_SEEKABLE on a FIFO or device, the target itself */
    int flags;    /* OUT_* as opened */
} OutFile;

/* What writing a path would do, for the TUI's question. */
typedef struct OutFileInfo_ {
    char* target; /* owned (free()): where the bytes go, the end of a symlink chain */
    int is_link;  /* the name is a symlink */
    int exists;   /* the target exists (a file, a FIFO, a device, a descriptor) */
    int regular;  /* ... and is a regular file: writing replaces it */
    int outside;  /* is_link, and the target is not in the name's folder or below it */
} OutFileInfo;

/* Opens path for writing. DCU_ERR_USAGE when path is an existing regular file and flags
 * lacks OUT_FORCE, or a link leaving its folder and flags lacks OUT_OUTSIDE (the message says
 * to use --force); DCU_ERR_IO when it cannot be created, or is a FIFO with no reader and
 * flags has OUT_NOWAIT ("a FIFO with no reader (not waited for)").
 * On success call exactly one of OutFile_commit() and OutFile_abort(). */
DcuStatus OutFile_open(OutFile* this, const char* path, int flags, DcuError* err);

/* Checks, without creating anything, what OutFile_open() would refuse: an existing regular
 * file without OUT_FORCE, a folder. Lets a command refuse before a long load. */
DcuStatus OutFile_check(const char* path, int flags, DcuError* err);

/* 1 when writing path would replace an existing regular file (the TUI asks first). */
int OutFile_wouldReplace(const char* path);

/* Fills *info for path without creating anything. DCU_ERR_IO for a folder, a symlink loop or
 * an unreadable name (the message names path). */
DcuStatus OutFile_inspect(const char* path, OutFileInfo* info, DcuError* err);

/* Where a writer that opens files by name (SQLite) writes; NULL when writing directly. */
const char* OutFile_tempPath(const OutFile* this);

/* Flushes, fsyncs and closes; moves the temp file into place (or copies it into the FIFO or
 * device). A write error (ENOSPC on a full device, EFBIG past `ulimit -f`, EPIPE from a FIFO
 * whose reader left) is DCU_ERR_IO naming the path; a file that appeared at the target meanwhile
 * without OUT_FORCE is DCU_ERR_USAGE ("file exists: made while dcutop was writing"); the temp
 * file is removed then. Frees everything either way. */
DcuStatus OutFile_commit(OutFile* this, DcuError* err);

/* The usual ending: commit when the writer returned DCU_OK, else abort and return its status,
 * with the path put in front of an I/O error's message. */
DcuStatus OutFile_finish(OutFile* this, DcuStatus written, DcuError* err);

/* Closes and removes the temp file: the target is left as it was. Safe after a failed open. */
void OutFile_abort(OutFile* this);

/* Removes every temp file an OutFile holds now (unlink only: async-signal-safe). For the
 * handler of a signal that ends the program; the targets are left as they were. */
void OutFile_removeTemps(void);

/* strerror(e), but a FIFO reader that stopped reading (ETIMEDOUT from the TUI's writer,
 * which waits for room at most 5 s) is said in words. */
const char* OutFile_strerror(int e);

#endif
