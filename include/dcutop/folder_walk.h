/* folder_walk.h - finds the files to load under the paths the user gave, in a stable
 * (sorted) order, and decides up front what must not be opened:
 *   - anything but a regular file (FIFO, socket, device) is listed as skipped, never opened;
 *   - a file or folder reached twice (symlink, hard link, the same path given twice) is
 *     walked or loaded once, the later occurrence listed as "same file as NAME";
 *   - symlinks are followed after every real entry, each at most once, so a loop of links
 *     costs one lookup per link, never an exponential walk;
 *   - a folder deeper than the depth limit is listed (with a warning), not silently dropped.
 * Every entry becomes one row of the Files table. */
#ifndef DCUTOP_FOLDER_WALK_H
#define DCUTOP_FOLDER_WALK_H

#include <stdint.h>

#include "dcutop/error.h"

typedef struct WalkEntry_ {
    char* path;         /* owned; what to open */
    char* name;         /* owned; relative to the path the user gave */
    char* dir;          /* owned; the containing folder */
    char* reldir;       /* owned; dir relative to the path the user gave ("" at its top,
                           and for a file given by itself) */
    int root;           /* which FolderWalk_add call found it (0-based) */
    uint64_t bytes;     /* size when it is to be loaded, else 0 */
    const char* format; /* static; NULL: to be opened and sniffed; else "skipped" or
                           "unreadable", decided by the walk */
    char* note;         /* owned; why, when format is set */
    int warn;           /* 1: worth a load message too (shown by --report on stderr) */
} WalkEntry;

typedef struct FolderWalk_ FolderWalk;

/* max_depth: folders nested deeper than this below a given path are not walked. */
FolderWalk* FolderWalk_new(int max_depth);
void FolderWalk_delete(FolderWalk* this);

/* Walks a folder (dot files skipped) or queues a single file. DCU_ERR_IO if path does not
 * exist. Symlinks met inside folders wait for FolderWalk_finish. */
DcuStatus FolderWalk_add(FolderWalk* this, const char* path, DcuError* err);

/* Follows the symlinks met so far (and those met behind them). Call once, after the last
 * FolderWalk_add. */
void FolderWalk_finish(FolderWalk* this);

int FolderWalk_count(const FolderWalk* this);
/* Borrowed; valid until the next FolderWalk_add or FolderWalk_delete. */
const WalkEntry* FolderWalk_entry(const FolderWalk* this, int i);

#endif
