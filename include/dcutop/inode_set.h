/* inode_set.h - the set of (st_dev, st_ino) pairs the folder walk has visited, so that a
 * file or folder reached twice (symlink, hard link, the same path given twice) is loaded
 * once. A hash set: O(1) per lookup, however many files the walk meets. Each pair keeps
 * the name it was first reached by (owned copy), for "same file as NAME" notes. */
#ifndef DCUTOP_INODE_SET_H
#define DCUTOP_INODE_SET_H

#include <sys/types.h>

typedef struct InodeSet_ InodeSet;

InodeSet* InodeSet_new(void);
void InodeSet_delete(InodeSet* this);

/* Adds (dev, ino) with name and returns NULL when it was not in the set yet; when it was,
 * leaves the set unchanged and returns the name it was first added with (borrowed, valid
 * until InodeSet_delete). */
const char* InodeSet_add(InodeSet* this, dev_t dev, ino_t ino, const char* name);

/* The name (dev, ino) was first added with (borrowed), or NULL when it is not in the set. */
const char* InodeSet_find(const InodeSet* this, dev_t dev, ino_t ino);

size_t InodeSet_count(const InodeSet* this);

#endif
