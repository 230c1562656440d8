/* out_file.c - see out_file.h. */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */
#include "dcutop/out_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dcutop/xalloc.h"

enum { MAX_LINKS = 40 }; /* the kernel's own ELOOP limit */

/* What a path leads to once its symlinks are followed. */
typedef struct {
    char* target;   /* owned: the end of the chain, never a symlink */
    int fd;         /* >= 0: the name of an open descriptor (/dev/stdout, /dev/fd/N) */
    int exists;     /* target exists; st describes it */
    int is_link;    /* the name itself is a symlink */
    int outside;    /* is_link, and the chain ends outside the name's folder */
    struct stat st;
} Resolved;

/* ---- the temp files alive now, for OutFile_removeTemps() in a signal handler ------------
 * A slot is set once the name is complete (signals blocked around mkstemp and the set) and
 * cleared before the name is freed, so the handler only ever reads whole names. */
enum { MAX_LIVE = 8 }; /* a run writes two at most (--report -o with --save-db) */
static char* volatile live[MAX_LIVE];

static void track(char* tmp) {
    for (int i = 0; i < MAX_LIVE; i++) {
        if (!live[i]) {
            live[i] = tmp;
            return;
        }
    }
}

static void untrack(const char* tmp) {
    for (int i = 0; i < MAX_LIVE; i++) {
        if (tmp && live[i] == tmp) {
            live[i] = NULL;
        }
    }
}

void OutFile_removeTemps(void) {
    for (int i = 0; i < MAX_LIVE; i++) {
        char* p = live[i];
        if (p) {
            unlink(p); /* async-signal-safe; a name already renamed into place is ENOENT */
        }
    }
}

/* A name from the disk (a link's target) for a message: control bytes become '?'. */
static const char* shown(const char* p, char* buf, size_t cap) {
    size_t j = 0;
    for (; *p && j + 1 < cap; p++) {
        unsigned char c = (unsigned char)*p;
        buf[j++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    buf[j] = '\0';
    return buf;
}

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

/* The folder of p ("." when p has no slash), through realpath; NULL when it does not exist. */
static char* real_folder(const char* p) {
    const char* slash = strrchr(p, '/');
    char* d = slash ? xstrndup(p, slash == p ? 1 : (size_t)(slash - p)) : xstrdup(".");
    char* r = realpath(d, NULL);
    free(d);
    return r;
}

/* 1 when target is not in name's folder or below it (or either folder cannot be found). */
static int leaves_folder(const char* name, const char* target) {
    char* a = real_folder(name);
    char* b = real_folder(target);
    int out = 1;
    if (a && b) {
        size_t n = strlen(a);
        out = !(strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/' || strcmp(a, "/") == 0));
    }
    free(a);
    free(b);
    return out;
}

static DcuStatus resolve(const char* path, Resolved* r, DcuError* err) {
    memset(r, 0, sizeof(*r));
    if (!*path) {
        return Error_set(err, DCU_ERR_USAGE, "empty output file name");
    }
    char* cur = xstrdup(path);
    for (int hops = 0;; hops++) {
        int end = 1; /* the end of the chain: a descriptor, nothing, or not a link */
        if ((r->fd = fd_alias(cur)) >= 0) {
            r->exists = 1;
        } else if (lstat(cur, &r->st) == 0) {
            r->exists = !S_ISLNK(r->st.st_mode);
            end = r->exists;
        } else if (errno != ENOENT) {
            break;
        } else { /* a new file, or a dangling link whose target is created */
            memset(&r->st, 0, sizeof(r->st));
        }
        if (end) {
            r->is_link = hops > 0;
            r->outside = r->is_link && leaves_folder(path, cur);
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
    if (r->outside && !(flags & OUT_OUTSIDE)) {
        char t[512];
        return Error_set(err, DCU_ERR_USAGE,
                         "%s: a link to %s, outside its folder (not written; use --force)", path,
                         shown(r->target, t, sizeof(t)));
    }
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

DcuStatus OutFile_inspect(const char* path, OutFileInfo* info, DcuError* err) {
    memset(info, 0, sizeof(*info));
    Resolved r;
    DcuStatus s = resolve(path, &r, err);
    if (s != DCU_OK) {
        return s;
    }
    if (r.fd < 0 && r.exists && S_ISDIR(r.st.st_mode)) {
        free(r.target);
        return Error_set(err, DCU_ERR_IO, "%s: is a folder", path);
    }
    info->target = r.target;
    info->is_link = r.is_link;
    info->exists = r.exists;
    info->regular = r.fd < 0 && r.exists && S_ISREG(r.st.st_mode);
    info->outside = r.outside;
    return DCU_OK;
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
    sigset_t all, mask; /* no signal between the file's birth and its entry in live[] */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &mask);
    int fd = mkstemp(this->tmp);
    if (fd >= 0) {
        track(this->tmp);
    }
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
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

/* Opens an existing FIFO or device for writing without ever blocking in open(): no O_CREAT,
 * no O_TRUNC (if it vanished meanwhile, nothing is made in its place), O_NONBLOCK (a FIFO
 * with no reader, a modem line). A FIFO with no reader yet is waited for, as `>fifo` waits,
 * in short sleeps (a signal ends the wait as it ends the program); with OUT_NOWAIT (the TUI,
 * which must not freeze) it is an error at once. The descriptor is made blocking again for
 * the writes. -1 with errno set (ENXIO: no reader; EEXIST: a regular file took its place). */
static int open_special(const char* target, int fifo, int flags) {
    int fd;
    while ((fd = open(target, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0 &&
           errno == ENXIO && fifo && !(flags & OUT_NOWAIT)) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISREG(st.st_mode))) {
        close(fd); /* swapped for a regular file since lstat(): never written in place */
        errno = EEXIST;
        return -1;
    }
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fl >= 0 && !(fifo && (flags & OUT_NOWAIT))) {
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    return fd;
}

/* The TUI's writer to a FIFO stays non-blocking: a reader that stops reading (a pager left
 * open, `sleep 1000 < fifo`) must not freeze the screen. Each write waits for room at most
 * STALL_MS, then fails with ETIMEDOUT; the export reports it and the TUI goes on. */
enum { STALL_MS = 5000 };
typedef struct {
    int fd;
    int stalled; /* once the reader stalled, every later write fails at once */
} Stall;
static ssize_t stall_write(void* cookie, const char* buf, size_t n) {
    Stall* st = cookie;
    int fd = st->fd;
    size_t done = 0;
    if (st->stalled) {
        errno = ETIMEDOUT;
        return -1;
    }
    while (done < n) {
        ssize_t w = write(fd, buf + done, n - done);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0 && errno != EAGAIN) {
            return done ? (ssize_t)done : -1;
        }
        struct pollfd p = {fd, POLLOUT, 0};
        int r = poll(&p, 1, STALL_MS);
        if (r == 0) {
            st->stalled = 1;
            errno = ETIMEDOUT;
            return done ? (ssize_t)done : -1;
        }
        if (r < 0 && errno != EINTR) {
            return done ? (ssize_t)done : -1;
        }
    }
    return (ssize_t)n;
}
static int stall_close(void* cookie) {
    int fd = ((Stall*)cookie)->fd;
    free(cookie);
    return close(fd);
}

/* A FILE over fd: stdio's own, or the stall-limited writer when fd is non-blocking. */
static FILE* file_of(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || !(fl & O_NONBLOCK)) {
        return fdopen(fd, "wb");
    }
    Stall* cookie = xmalloc(sizeof(*cookie));
    *cookie = (Stall){fd, 0};
    cookie_io_functions_t io = {NULL, stall_write, NULL, stall_close};
    FILE* f = fopencookie(cookie, "wb", io);
    if (!f) {
        free(cookie);
    }
    return f;
}

const char* OutFile_strerror(int e) {
    return e == ETIMEDOUT ? "the reader stopped reading (nothing taken for 5 s; output incomplete)"
                          : strerror(e);
}

/* A FIFO, a device or a descriptor: written as it is, never truncated or renamed over. */
static DcuStatus open_direct(OutFile* this, int fd, int flags, DcuError* err) {
    if (fd < 0) {
        return Error_set(err, DCU_ERR_IO, "%s: %s", this->path, strerror(errno));
    }
    FILE* f = file_of(fd);
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
    this->flags = flags;
    if ((s = refuse(path, &r, flags, err)) != DCU_OK) {
        OutFile_abort(this);
        return s;
    }
    if (r.fd >= 0) {
        s = open_direct(this, dup_writable(r.fd), flags, err);
    } else if (r.exists && !S_ISREG(r.st.st_mode)) {
        int fifo = S_ISFIFO(r.st.st_mode);
        int fd = open_special(r.target, fifo, flags);
        s = fd < 0 && fifo && errno == ENXIO
                ? Error_set(err, DCU_ERR_IO, "%s: a FIFO with no reader (not waited for)", path)
            : fd < 0 && errno == EEXIST
                ? Error_set(err, DCU_ERR_IO, "%s: changed while being opened (not written)", path)
                : open_direct(this, fd, flags, err);
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
    untrack(this->tmp);
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

/* Moves the finished temp file to target. Without replace, never over a file that appeared
 * meanwhile (another dcutop, another user): renameat2(RENAME_NOREPLACE); where the filesystem
 * lacks it, link() + unlink(), which fail on an existing name too; where it lacks hard links
 * too (vfat), a last lstat() just before rename(). 0, or -1 with errno (EEXIST: refused). */
static int place(const char* tmp, const char* target, int replace) {
    if (replace) {
        return rename(tmp, target);
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_NOREPLACE) == 0) {
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
        return -1;
    }
    if (link(tmp, target) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS) {
        return -1; /* EEXIST among them */
    }
    struct stat st;
    if (lstat(target, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(tmp, target);
}

DcuStatus OutFile_commit(OutFile* this, DcuError* err) {
    DcuStatus s = DCU_OK;
    int renames = this->tmp && !this->direct; /* a regular file: the temp goes into place */
    if ((this->direct && copy_into_direct(this) != 0) || close_file(&this->fp, renames) != 0 ||
        close_file(&this->direct, 0) != 0) {
        s = Error_set(err, DCU_ERR_IO, "%s: write error: %s", this->path, OutFile_strerror(errno));
    } else if (renames && place(this->tmp, this->target, this->flags & OUT_FORCE) != 0) {
        s = errno == EEXIST
                ? Error_set(err, DCU_ERR_USAGE,
                            "%s: file exists: made while dcutop was writing (not overwritten; "
                            "use --force)",
                            this->path)
                : Error_set(err, DCU_ERR_IO, "%s: cannot rename into place: %s", this->path,
                            strerror(errno));
    } else if (renames) {
        untrack(this->tmp);
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
        untrack(this->tmp);
        unlink(this->tmp); /* ours: mkstemp made it */
    }
    free(this->tmp);
    free(this->target);
    free(this->path);
    memset(this, 0, sizeof(*this));
}
