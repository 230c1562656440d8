/* folder_walk.c - see folder_walk.h. Folders are read with lstat, so a symlink is seen as
 * a link and set aside (Deferred) until the real entries are all known; every file and
 * folder is then admitted through one (st_dev, st_ino) set. stat() and lstat() never open
 * the file, so a FIFO or device costs nothing here. */
#include "dcutop/folder_walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dcutop/inode_set.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"

typedef struct Deferred_ {
    char* path;
    char* root;
    char* dir;
    int depth; /* depth of the folder holding the link */
    int root_idx; /* the FolderWalk_add call that met it */
} Deferred;

struct FolderWalk_ {
    int max_depth;
    WalkEntry* e;
    int ne, cape;
    Deferred* dq;
    int ndq, capdq;
    InodeSet* seen; /* every file queued and folder walked */
    int nadd;       /* FolderWalk_add calls so far */
    int cur_root;   /* the one whose entries are being pushed */
};

FolderWalk* FolderWalk_new(int max_depth) {
    FolderWalk* this = xcalloc(1, sizeof(*this));
    this->max_depth = max_depth;
    this->seen = InodeSet_new();
    return this;
}

static void deferred_free(Deferred* d) {
    free(d->path);
    free(d->root);
    free(d->dir);
}

void FolderWalk_delete(FolderWalk* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->ne; i++) {
        free(this->e[i].path);
        free(this->e[i].name);
        free(this->e[i].dir);
        free(this->e[i].reldir);
        free(this->e[i].note);
    }
    for (int i = 0; i < this->ndq; i++) {
        deferred_free(&this->dq[i]);
    }
    free(this->e);
    free(this->dq);
    InodeSet_delete(this->seen);
    free(this);
}

int FolderWalk_count(const FolderWalk* this) {
    return this->ne;
}

const WalkEntry* FolderWalk_entry(const FolderWalk* this, int i) {
    return &this->e[i];
}

/* path relative to root when it lies under it, else path as is */
static const char* rel_name(const char* path, const char* root) {
    size_t rl = strlen(root);
    return rl > 0 && strncmp(path, root, rl) == 0 && path[rl] == '/' ? path + rl + 1 : path;
}

/* Adds one entry; note is owned by the entry (may be NULL). */
static WalkEntry* push(FolderWalk* this, const char* path, const char* root, const char* dir,
                       uint64_t bytes, const char* format, char* note) {
    if (this->ne == this->cape) {
        this->cape = this->cape ? this->cape * 2 : 64;
        this->e = xrealloc(this->e, sizeof(WalkEntry) * (size_t)this->cape);
    }
    WalkEntry* w = &this->e[this->ne++];
    w->path = xstrdup(path);
    w->name = xstrdup(rel_name(path, root));
    w->dir = xstrdup(dir);
    w->reldir = xstrdup(strcmp(rel_name(dir, root), dir) != 0 ? rel_name(dir, root) : "");
    w->root = this->cur_root;
    w->bytes = bytes;
    w->format = format;
    w->note = note;
    w->warn = 0;
    return w;
}

static void defer(FolderWalk* this, const char* path, const char* root, const char* dir,
                  int depth) {
    if (this->ndq == this->capdq) {
        this->capdq = this->capdq ? this->capdq * 2 : 16;
        this->dq = xrealloc(this->dq, sizeof(Deferred) * (size_t)this->capdq);
    }
    this->dq[this->ndq++] =
        (Deferred){xstrdup(path), xstrdup(root), xstrdup(dir), depth, this->cur_root};
}

static int cmp_str(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

static void walk_dir(FolderWalk* this, const char* root, const char* dir, int depth);

/* One file or folder found at path (st from stat, symlinks already followed), inside
 * folder dir at depth. */
static void visit(FolderWalk* this, const char* root, const char* dir, const char* path,
                  const struct stat* st, int depth) {
    const char* name = rel_name(path, root);
    if (S_ISDIR(st->st_mode)) {
        const char* first = InodeSet_find(this->seen, st->st_dev, st->st_ino);
        if (!first && depth >= this->max_depth) {
            /* not added to the set: a shallower way to the same folder still walks it */
            WalkEntry* w =
                push(this, path, root, dir, 0, "skipped",
                     xasprintf("folder nested deeper than %d levels: not read", this->max_depth));
            w->warn = 1;
            return;
        }
        if (!first) {
            first = InodeSet_add(this->seen, st->st_dev, st->st_ino, name);
        }
        if (first) {
            push(this, path, root, dir, 0, "skipped", xasprintf("same folder as %s", first));
        } else {
            walk_dir(this, root, path, depth + 1);
        }
    } else if (S_ISREG(st->st_mode)) {
        const char* first = InodeSet_add(this->seen, st->st_dev, st->st_ino, name);
        if (first) {
            push(this, path, root, dir, 0, "skipped", xasprintf("same file as %s", first));
        } else {
            push(this, path, root, dir, (uint64_t)st->st_size, NULL, NULL);
        }
    } else {
        push(this, path, root, dir, 0, "skipped",
             xasprintf("not a regular file: %s", SafeFile_kind(st->st_mode)));
    }
}

/* Sorted, so that load order, ids and messages are the same on every machine. */
static void walk_dir(FolderWalk* this, const char* root, const char* dir, int depth) {
    DIR* d = opendir(dir);
    if (!d) {
        push(this, dir, "", dir, 0, "unreadable",
             xasprintf("cannot open folder: %s", strerror(errno)));
        return;
    }
    char** names = NULL;
    int n = 0, cap = 0;
    struct dirent* de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            names = xrealloc(names, sizeof(char*) * (size_t)cap);
        }
        names[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (n > 1) { /* names is NULL for an empty folder: qsort(NULL, 0, ...) is undefined */
        qsort(names, (size_t)n, sizeof(char*), cmp_str);
    }
    for (int i = 0; i < n; i++) {
        char* p = xasprintf("%s/%s", dir, names[i]);
        struct stat st;
        if (lstat(p, &st) != 0) {
            push(this, p, root, dir, 0, NULL, NULL); /* vanished: the open says why */
        } else if (S_ISLNK(st.st_mode)) {
            defer(this, p, root, dir, depth);
        } else {
            visit(this, root, dir, p, &st, depth);
        }
        free(p);
        free(names[i]);
    }
    free(names);
}

DcuStatus FolderWalk_add(FolderWalk* this, const char* path, DcuError* err) {
    struct stat st;
    if (stat(path, &st) != 0) {
        return Error_set(err, DCU_ERR_IO, "%s: %s", path, strerror(errno));
    }
    char* clean = xstrdup(path);
    size_t l = strlen(clean);
    while (l > 1 && clean[l - 1] == '/') {
        clean[--l] = '\0';
    }
    this->cur_root = this->nadd++;
    char* parent = xstrdup(clean);
    char* slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
    } else {
        free(parent);
        parent = xstrdup(slash ? "/" : ".");
    }
    if (S_ISDIR(st.st_mode)) {
        const char* first = InodeSet_add(this->seen, st.st_dev, st.st_ino, clean);
        if (first) {
            push(this, clean, "", parent, 0, "skipped", xasprintf("same folder as %s", first));
        } else {
            walk_dir(this, clean, clean, 0);
        }
    } else {
        visit(this, "", parent, clean, &st, 0);
    }
    free(parent);
    free(clean);
    return DCU_OK;
}

void FolderWalk_finish(FolderWalk* this) {
    /* walk_dir may defer more links while this runs: index, never a pointer, into dq */
    for (int i = 0; i < this->ndq; i++) {
        Deferred d = this->dq[i];
        this->cur_root = d.root_idx;
        struct stat st;
        if (stat(d.path, &st) != 0) {
            push(this, d.path, d.root, d.dir, 0, NULL, NULL); /* dangling: the open says why */
        } else {
            visit(this, d.root, d.dir, d.path, &st, d.depth);
        }
        deferred_free(&this->dq[i]);
    }
    this->ndq = 0;
}
