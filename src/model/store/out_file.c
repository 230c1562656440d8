/* out_file.c - see out_file.h. */
#include "dcutop/out_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcutop/xalloc.h"

enum { MAX_LINKS = 40 }; /* the kernel's own ELOOP limit */

/* What a path leads to once its symlinks are followed. */
typedef struct {
    char* target;   /* owned: the end of the chain, never a symlink */
    int fd;         /* >= 0: the name of an open descriptor (/dev/stdout, /dev/fd/N) */
    int exists;     /* target exists; st describes it */
    struct stat st;
} Resolved;

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N name descriptor N. It is written as it
 * is: opening the name anew would start at offset 0 and drop O_APPEND, and following the
 * /proc link by hand would give "pipe:[123]". -1: not such a name. */
static int fd_alias(const char* p) {
    if (strcmp(p, "/dev/stdout") == 0) {
        return 1;
    }
    if (strcmp(p, "/dev/stderr") == 0) {
        return 2;
    }
    const char* n = strncmp(p, "/dev/fd/", 8) == 0          ? p + 8
                    : strncmp(p, "/proc/self/fd/", 14) == 0 ? p + 14
                                                            : NULL;
    if (!n || !isdigit((unsigned char)*n)) {
        return -1;
    }
    char* end;
    long v = strtol(n, &end, 10);
    return *end || v > INT_MAX ? -1 : (int)v;
}

/* The path a symlink points to, relative to the link's own folder. NULL with errno set. */
static char* link_target(const char* link) {
    char buf[PATH_MAX];
    ssize_t n = readlink(link, buf, sizeof(buf) - 1);
    if (n < 0) {
        return NULL;
    }
    buf[n] = '\0';
    const char* slash = strrchr(link, '/');
    if (buf[0] == '/' || !slash) {
        return xstrdup(buf);
    }
    return xasprintf("%.*s%s", (int)(slash - link + 1), link, buf);
}

static DcuStatus resolve(const char* path, Resolved* r, DcuError* err) {
    memset(r, 0, sizeof(*r));
    if (!*path) {
        return Error_set(err, DCU_ERR_USAGE, "empty output file name");
    }
    char* cur = xstrdup(path);
    for (int hops = 0;; hops++) {
        if ((r->fd = fd_alias(cur)) >= 0) {
            r->target = cur;
            return DCU_OK;
        }
        if (lstat(cur, &r->st) != 0) {
            if (errno == ENOENT) { /* new, or a dangling link: its target is created */
                r->target = cur;
                return DCU_OK;
            }
            break;
        }
        if (!S_ISLNK(r->st.st_mode)) {
            r->exists = 1;
            r->target = cur;
            return DCU_OK;
        }
        if (hops == MAX_LINKS) {
            errno = ELOOP;
            break;
        }
        char* next = link_target(cur);
        if (!next) {
            break;
        }
        free(cur);
        cur = next;
    }
    int e = errno;
    free(cur);
    return Error_set(err, DCU_ERR_IO, "%s: %s", path, strerror(e));
}

/* What OutFile_open refuses before creating anything. */
static DcuStatus refuse(const char* path, const Resolved* r, int flags, DcuError* err) {
    if (r->fd >= 0 || !r->exists) {
        return DCU_OK;
    }
    if (S_ISDIR(r->st.st_mode)) {
        return Error_set(err, DCU_ERR_IO, "%s: is a folder", path);
    }
    if (S_ISREG(r->st.st_mode) && !(flags & OUT_FORCE)) {
        return Error_set(err, DCU_ERR_USAGE, "%s: file exists (not overwritten; use --force)",
                         path);
    }
    return DCU_OK;
}

DcuStatus OutFile_check(const char* path, int flags, DcuError* err) {
    Resolved r;
    DcuStatus s = resolve(path, &r, err);
    if (s == DCU_OK) {
        s = refuse(path, &r, flags, err);
        free(r.target);
    }
    return s;
}

int OutFile_wouldReplace(const char* path) {
    Resolved r;
    if (resolve(path, &r, NULL) != DCU_OK) {
        return 0;
    }
    free(r.target);
    return r.fd < 0 && r.exists && S_ISREG(r.st.st_mode);
}

static mode_t current_umask(void) {
    mode_t m = umask(022); /* the only portable way to read it; outputs run on one thread */
    umask(m);
    return m;
}

/* mkstemp beside `near` (".NAME.dcutop-XXXXXX": O_EXCL, a name nobody else holds), with the
 * mode of the file it replaces (and its owner, for root) or 0666 & ~umask (mkstemp's 0600
 * would hide a new report from the group). */
static DcuStatus make_temp(OutFile* this, const char* near, const struct stat* old,
                           DcuError* err) {
    const char* slash = strrchr(near, '/');
    int dlen = slash ? (int)(slash - near + 1) : 0;
    this->tmp = xasprintf("%.*s.%.200s.dcutop-XXXXXX", dlen, near, slash ? slash + 1 : near);
    int fd = mkstemp(this->tmp);
    if (fd < 0) {
        int e = errno;
        free(this->tmp);
        this->tmp = NULL;
        return Error_set(err, DCU_ERR_IO, "%s: cannot create: %s", this->path, strerror(e));
    }
    if (old && geteuid() == 0 && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
        fchown(fd, old->st_uid, old->st_gid) != 0) {
        /* a filesystem without owners: the file is still written */
    }
    /* fchmod fails only where modes do not exist (vfat): nothing to keep there */
    if (fchmod(fd, old ? old->st_mode & 07777 : 0666 & ~current_umask()) != 0) {
        errno = 0;
    }
    this->fp = fdopen(fd, "wb");
    if (!this->fp) {
        close(fd);
        return Error_set(err, DCU_ERR_IO, "%s: %s", this->path, strerror(errno));
    }
    return DCU_OK;
}

/* A FIFO, a device or a descriptor: written as it is, never truncated or renamed over. */
static DcuStatus open_direct(OutFile* this, int fd, int flags, DcuError* err) {
    if (fd < 0) {
        return Error_set(err, DCU_ERR_IO, "%s: %s", this->path, strerror(errno));
    }
    FILE* f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        return Error_set(err, DCU_ERR_IO, "%s: %s", this->path, strerror(errno));
    }
    if (!(flags & OUT_SEEKABLE)) {
        this->fp = f;
        return DCU_OK;
    }
    this->direct = f; /* SQLite writes a real file first; commit copies it here */
    const char* dir = getenv("TMPDIR");
    char* near = xasprintf("%s/dcutop-out", dir && *dir ? dir : "/tmp");
    DcuStatus s = make_temp(this, near, NULL, err);
    free(near);
    return s;
}

/* A descriptor dcutop inherited (/dev/stdout): a duplicate, once it is known to be writable. */
static int dup_writable(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) {
        return -1;
    }
    if ((fl & O_ACCMODE) == O_RDONLY) {
        errno = EBADF;
        return -1;
    }
    return dup(fd);
}

DcuStatus OutFile_open(OutFile* this, const char* path, int flags, DcuError* err) {
    memset(this, 0, sizeof(*this));
    Resolved r;
    DcuStatus s = resolve(path, &r, err);
    if (s != DCU_OK) {
        return s;
    }
    this->path = xstrdup(path);
    this->target = r.target;
    if ((s = refuse(path, &r, flags, err)) != DCU_OK) {
        OutFile_abort(this);
        return s;
    }
    if (r.fd >= 0) {
        s = open_direct(this, dup_writable(r.fd), flags, err);
    } else if (r.exists && !S_ISREG(r.st.st_mode)) {
        /* no O_CREAT, no O_TRUNC: if it vanished meanwhile, nothing is made in its place */
        s = open_direct(this, open(r.target, O_WRONLY | O_NOCTTY), flags, err);
    } else {
        s = make_temp(this, r.target, r.exists ? &r.st : NULL, err);
    }
    if (s != DCU_OK) {
        OutFile_abort(this);
    }
    return s;
}

const char* OutFile_tempPath(const OutFile* this) {
    return this->tmp;
}

/* Flushes and closes *f (if open); 0, or -1 with errno from the first failure. */
static int close_file(FILE** f, int sync) {
    if (!*f) {
        return 0;
    }
    int e = 0;
    if (fflush(*f) != 0) { /* a retry of what failed before: errno is fresh (ENOSPC) */
        e = errno;
    } else if (ferror(*f)) {
        e = EIO;
    } else if (sync && fsync(fileno(*f)) != 0 && errno != EINVAL) {
        e = errno;
    }
    if (fclose(*f) != 0 && !e) {
        e = errno;
    }
    *f = NULL;
    errno = e;
    return e ? -1 : 0;
}

/* OUT_SEEKABLE on a FIFO or device: the finished temp file's bytes go to the target. */
static int copy_into_direct(OutFile* this) {
    /* the writer is done with the name: drop it now, so a reader that goes away (SIGPIPE)
     * leaves nothing behind in $TMPDIR */
    unlink(this->tmp);
    free(this->tmp);
    this->tmp = NULL;
    if (fflush(this->fp) != 0 || lseek(fileno(this->fp), 0, SEEK_SET) != 0) {
        return -1;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(fileno(this->fp), buf, sizeof(buf))) > 0) {
        if (fwrite(buf, 1, (size_t)n, this->direct) != (size_t)n) {
            return -1;
        }
    }
    return n < 0 ? -1 : 0;
}

DcuStatus OutFile_commit(OutFile* this, DcuError* err) {
    DcuStatus s = DCU_OK;
    int renames = this->tmp && !this->direct; /* a regular file: the temp goes into place */
    if ((this->direct && copy_into_direct(this) != 0) || close_file(&this->fp, renames) != 0 ||
        close_file(&this->direct, 0) != 0) {
        s = Error_set(err, DCU_ERR_IO, "%s: write error: %s", this->path, strerror(errno));
    } else if (renames && rename(this->tmp, this->target) != 0) {
        s = Error_set(err, DCU_ERR_IO, "%s: cannot rename into place: %s", this->path,
                      strerror(errno));
    } else if (renames) {
        free(this->tmp); /* it is the target now: nothing to remove */
        this->tmp = NULL;
    }
    OutFile_abort(this);
    return s;
}

DcuStatus OutFile_finish(OutFile* this, DcuStatus written, DcuError* err) {
    if (written == DCU_OK) {
        return OutFile_commit(this, err);
    }
    if (written == DCU_ERR_IO && err && strncmp(err->msg, this->path, strlen(this->path)) != 0) {
        char msg[sizeof(err->msg)];
        snprintf(msg, sizeof(msg), "%s", err->msg);
        Error_set(err, DCU_ERR_IO, "%s: %s", this->path, msg);
    }
    OutFile_abort(this);
    return written;
}

void OutFile_abort(OutFile* this) {
    if (this->fp) {
        fclose(this->fp);
    }
    if (this->direct) {
        fclose(this->direct);
    }
    if (this->tmp) {
        unlink(this->tmp); /* ours: mkstemp made it */
    }
    free(this->tmp);
    free(this->target);
    free(this->path);
    memset(this, 0, sizeof(*this));
}
