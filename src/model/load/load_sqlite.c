/* load_sqlite.c - profiler databases (FORMATS.md 1.6, 2.4, 4.2): the hipprof DB, rocprof v1
 * results.db (old and new column sets) and rocprofv3 rocpd databases.
 *
 * The input is opened through SQLite itself, on a second connection, read-only
 * (SQLITE_OPEN_READONLY and a file: URI with mode=ro and immutable=1): it is never parsed by
 * hand and never written, so the file stays byte-identical and no -wal/-shm file appears.
 * A non-empty -wal beside it holds committed rows: then the file and its -wal are copied into
 * a private folder and the copy is read as SQLite would (wal_copy).
 * Reads run under a budget (steps and seconds, with a base shared by the whole load; heap per
 * step; rows per byte of the file) and sqlite3_limit caps (16 MiB a value), names computed by
 * rocpd's views are cut to LOAD_MAX_NAME_BYTES in the query (a table's names are data and load
 * whole), and views are read only where rocpd's schema defines them.
 * Columns are bound by name from each table's own header (sqlite3_column_name), never by
 * position; values of the wrong type reject the row with a message. A table that cannot be
 * read (corrupt or truncated file, locked database) is a message naming the file and table;
 * rows read before the error are kept and the error counts as one rejected row, so the Files
 * table and --strict show it. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dcutop/csv_reader.h"
#include "dcutop/i64_map.h"
#include "dcutop/names.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "alloc_live.h"
#include "load_compute.h"
#include "load_summary.h"
#include "load_event.h"
#include "sqlite_cols.h"

typedef struct Obj_ {
    char* name;
    int is_view; /* 1: a view, read only where rocpd's schema defines one */
    int warned;  /* 1: "is a view, not a table" said once */
} Obj;

typedef struct Src_ {
    LoaderCore* core;
    LoadFile* f;
    sqlite3* db; /* the input, read-only */
    Obj* tables; /* tables and views in the input */
    int ntables;
    /* the read budget (see on_progress) */
    int64_t ops, max_ops; /* VM instructions run / allowed */
    double t0, max_s;     /* start, seconds allowed */
    int64_t own_ops;      /* this file's own share of max_ops (the rest is the load's) */
    double own_s;         /* and of max_s */
    int64_t max_rows;     /* rows any one table or view may yield */
    int64_t mem0, max_mem; /* heap at the start of a step, growth allowed within one */
    int mem_check;        /* 1 while tab_next steps (the trace database is not growing) */
    uint64_t bytes;       /* size of the file */
    int over;             /* 1: budget spent, every statement now stops */
    char over_why;        /* 'o' steps, 't' time, 'm' memory */
    int64_t cut;          /* view texts cut to LOAD_MAX_NAME_BYTES (tab_next) */
    int locked;           /* 1: a writer holds the file's lock (not opened) */
    char* copy_dir;       /* owned: private folder holding a copy of the database and its
                           * -wal (wal_copy), removed with its files at the end; or NULL */
} Src;

/* ---- the read budget ------------------------------------------------------------- */

/* A database is a program as much as data: a 8 KB file whose "kernels" is a view over a cross
 * join or a recursive CTE yields rows without end. Reads therefore run under a budget that
 * grows with the file, far above what real databases use (the real rocpd sample: 460,000
 * steps for 3.6 MB, about 80 per row) and spent in a moment by a view that multiplies rows.
 * The base (OPS_BASE, SECONDS_BASE) is shared by the whole load, so N hostile files cost it
 * once, not N times; each file adds its own share per byte. Temporary tables and sorts stay
 * in memory (temp_store = MEMORY: nothing is written to TMPDIR), and one step may grow the
 * heap by at most MEM_BASE + MEM_PER_BYTE per byte of the file. */
enum { PROGRESS_OPS = 1000 };             /* VM instructions between checks */
static const int64_t OPS_BASE = 10000000; /* plus OPS_PER_BYTE per byte of the file */
static const int64_t OPS_PER_BYTE = 100;
static const double SECONDS_BASE = 30; /* plus one second per BYTES_PER_SECOND */
static const double BYTES_PER_SECOND = 8e6;
static const int64_t MIN_ROW_BYTES = 4; /* no table row is smaller in the file */
static const int64_t MEM_BASE = 512LL << 20;
static const int64_t MEM_PER_BYTE = 16;
#define VALUE_MAX_BYTES (16 << 20) /* longest string or blob a SQLite input may hold or make */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int on_progress(void* ctx) {
    Src* s = ctx;
    s->ops += PROGRESS_OPS;
    if (!s->over) {
        if (s->ops > s->max_ops) {
            s->over_why = 'o';
        } else if (now_s() - s->t0 > s->max_s) {
            s->over_why = 't';
        } else if (s->mem_check && sqlite3_memory_used() - s->mem0 > s->max_mem) {
            s->over_why = 'm';
        }
        s->over = s->over_why != 0;
    }
    return s->over; /* non-zero interrupts the statement (SQLITE_INTERRUPT) */
}

static void budget_init(Src* s) {
    SqlBudget* b = &s->core->sql_budget;
    if (!b->started) {
        b->started = 1;
        b->base_s_left = SECONDS_BASE;
        b->base_ops_left = OPS_BASE;
    }
    s->own_ops = OPS_PER_BYTE * (int64_t)s->bytes;
    s->own_s = (double)s->bytes / BYTES_PER_SECOND;
    s->max_ops = s->own_ops + b->base_ops_left;
    s->max_s = s->own_s + b->base_s_left;
    s->max_rows = (int64_t)(s->bytes / MIN_ROW_BYTES) + 16;
    s->max_mem = MEM_BASE + MEM_PER_BYTE * (int64_t)s->bytes;
    s->t0 = now_s();
    sqlite3_progress_handler(s->db, PROGRESS_OPS, on_progress, s);
    sqlite3_exec(s->db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
    /* caps on what a hostile schema can ask of SQLite; real traces stay far below */
    sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, VALUE_MAX_BYTES); /* one string, blob or row */
    sqlite3_limit(s->db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20); /* one statement's text */
    sqlite3_limit(s->db, SQLITE_LIMIT_EXPR_DEPTH, 200);
    sqlite3_limit(s->db, SQLITE_LIMIT_COMPOUND_SELECT, 500);
    sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(s->db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_limit(s->db, SQLITE_LIMIT_WORKER_THREADS, 0);
}

/* What this database spent of the load's shared base goes. */
static void budget_done(Src* s) {
    if (!s->db) {
        return;
    }
    SqlBudget* b = &s->core->sql_budget;
    double used_s = now_s() - s->t0 - s->own_s;
    int64_t used_ops = s->ops - s->own_ops;
    b->base_s_left -= used_s > 0 ? used_s : 0;
    b->base_ops_left -= used_ops > 0 ? used_ops : 0;
    if (b->base_s_left < 0 || s->over_why == 't') {
        b->base_s_left = 0;
    }
    if (b->base_ops_left < 0 || s->over_why == 'o') {
        b->base_ops_left = 0;
    }
}

/* Why the budget stopped the reads, for messages. */
static void budget_reason(const Src* s, char* buf, size_t n) {
    if (s->over_why == 'o') {
        snprintf(buf, n, "over the read budget of %lld SQLite steps for a %llu-byte database "
                         "(the load's shared part included)",
                 (long long)s->max_ops, (unsigned long long)s->bytes);
    } else if (s->over_why == 'm') {
        snprintf(buf, n, "over the read budget of %lld MiB of memory in one step for a "
                         "%llu-byte database",
                 (long long)(s->max_mem >> 20), (unsigned long long)s->bytes);
    } else if (s->max_s - s->own_s < 0.5) {
        snprintf(buf, n, "over the read budget: the load's shared %.0f s were spent by earlier "
                         "databases, and this %llu-byte one's own share is %.3f s",
                 SECONDS_BASE, (unsigned long long)s->bytes, s->own_s);
    } else {
        snprintf(buf, n, "over the read budget of %.0f s for a %llu-byte database (the load's "
                         "shared part included)",
                 s->max_s, (unsigned long long)s->bytes);
    }
}

/* ---- opening -------------------------------------------------------------------- */

/* file: URI for path (RFC 3986: everything but unreserved characters and '/' escaped, so a
 * '%', '?' or '#' in a folder name stays part of the path). immutable=1: SQLite reads the
 * file as it is, takes no lock and never opens or creates a -wal, -shm or -journal file, so a
 * WAL-mode database loads from a read-only folder and leaves nothing behind. */
static char* file_uri(const char* path) {
    size_t n = strlen(path);
    char* u = xmalloc(n * 3 + 32);
    size_t o = 0;
    memcpy(u, "file:", 5);
    o = 5;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if (isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
            u[o++] = (char)c;
        } else {
            o += (size_t)sprintf(u + o, "%%%02X", c);
        }
    }
    strcpy(u + o, "?mode=ro&immutable=1");
    return u;
}

/* ---- a -wal beside the database ------------------------------------------------- */

/* Copies the regular file from to the new file to (O_EXCL). 0, or -1 with why set. */
static int copy_file(const char* from, const char* to, char* why, size_t wn) {
    DcuError e;
    int in = SafeFile_open(from, NULL, &e);
    if (in < 0) {
        snprintf(why, wn, "%.200s", e.msg);
        return -1;
    }
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (out < 0) {
        snprintf(why, wn, "cannot create a copy: %s", strerror(errno));
        close(in);
        return -1;
    }
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof(buf))) > 0) {
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0) {
                snprintf(why, wn, "cannot write a copy: %s", strerror(errno));
                rc = -1;
                break;
            }
            done += w;
        }
        if (rc) {
            break;
        }
    }
    if (n < 0 && !rc) {
        snprintf(why, wn, "cannot read: %s", strerror(errno));
        rc = -1;
    }
    close(in);
    if (close(out) != 0 && !rc) {
        snprintf(why, wn, "cannot write a copy: %s", strerror(errno));
        rc = -1;
    }
    return rc;
}

static void copy_remove(Src* s) {
    if (!s->copy_dir) {
        return;
    }
    static const char* const names[] = {"db", "db-wal", "db-shm", "db-journal"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char* p = xasprintf("%s/%s", s->copy_dir, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(s->copy_dir);
    free(s->copy_dir);
    s->copy_dir = NULL;
}

/* A WAL-mode database copied with its -wal holds committed rows in the -wal alone; SQLite
 * reads them when it opens the database, but immutable=1 (which keeps the input untouched)
 * ignores the -wal. So when a non-empty -wal lies beside the file, both are copied into a
 * private folder and the copy is opened instead, read as SQLite would; the input is never
 * written. Returns the path to open (owned), or NULL when there is no -wal; when the copy
 * fails the input is read alone, with a message that committed rows may be missing. */
static char* wal_copy(Src* s) {
    char* wal = xasprintf("%s-wal", s->f->path);
    struct stat sb;
    DcuError e;
    char* db = NULL;
    char* journal = xasprintf("%s-journal", s->f->path);
    if (SafeFile_check(journal, &sb, &e) == 0 && sb.st_size > 0) {
        /* a rollback journal: a write was under way when the file was copied; SQLite would
         * roll it back, which needs write access to the input: read as it is, and say so */
        Load_message(s->core, s->f, "has a -journal file of %lld bytes (a write under way when "
                                    "it was copied): read without it, rows of that write may "
                                    "be half there",
                     (long long)sb.st_size);
    }
    free(journal);
    if (SafeFile_check(wal, &sb, &e) != 0 || sb.st_size == 0) {
        free(wal);
        return NULL;
    }
    char why[300] = "";
    const char* tmp = getenv("TMPDIR");
    char* dir = xasprintf("%s/dcutop-wal-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(why, sizeof(why), "cannot make a private folder in %s: %s",
                 tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
        free(dir);
    } else {
        s->copy_dir = dir;
        db = xasprintf("%s/db", dir);
        char* dbwal = xasprintf("%s/db-wal", dir);
        if (copy_file(s->f->path, db, why, sizeof(why)) != 0 ||
            copy_file(wal, dbwal, why, sizeof(why)) != 0) {
            free(db);
            db = NULL;
            copy_remove(s);
        }
        free(dbwal);
    }
    if (!db) {
        Load_message(s->core, s->f, "has a -wal file of %lld bytes that could not be read (%s):"
                                    " committed rows may be missing",
                     (long long)sb.st_size, why);
    }
    s->bytes += (uint64_t)sb.st_size;
    free(wal);
    return db;
}

static DcuStatus open_ro(Src* s, DcuError* err) {
    /* SQLite opens the path itself: check again that it is a regular file (not replaced by a
     * FIFO since it was sniffed), never hand it something that blocks */
    struct stat sb;
    int fd = SafeFile_open(s->f->path, &sb, err);
    if (fd < 0) {
        return DCU_ERR_IO;
    }
    s->bytes = (uint64_t)sb.st_size;
    /* immutable=1 takes no lock, so look for a writer ourselves: SQLite's pending and shared
     * lock bytes (os_unix.c: PENDING_BYTE 0x40000000, then RESERVED, then 510 SHARED) are
     * write-locked while a writer commits, and the file may then be half written */
    const off_t pending = 0x40000000;
    s->locked = SafeFile_writeLocked(fd, pending, 1) || SafeFile_writeLocked(fd, pending + 2, 510);
    close(fd);
    if (s->locked) {
        return Error_set(err, DCU_ERR_IO, "database is locked by a writer (read it again when "
                                          "the profiler has finished)");
    }
    char* copy = wal_copy(s);
    char* uri = file_uri(copy ? copy : s->f->path);
    if (copy) {
        /* the private copy: opened as SQLite opens a WAL database, so the -wal is read */
        uri[strlen(uri) - strlen("?mode=ro&immutable=1")] = '\0';
    }
    int rc = sqlite3_open_v2(uri, &s->db,
                             (copy ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
                                 SQLITE_OPEN_URI,
                             NULL);
    free(uri);
    free(copy);
    if (rc == SQLITE_OK && s->copy_dir) {
        sqlite3_exec(s->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        return Error_set(err, DCU_ERR_IO, "cannot open read-only as SQLite: %s",
                         s->db ? sqlite3_errmsg(s->db) : "out of memory");
    }
    sqlite3_busy_timeout(s->db, 200);
    sqlite3_extended_result_codes(s->db, 1);
    budget_init(s);
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT name, type = 'view' FROM sqlite_master"
                           " WHERE type IN ('table', 'view') ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK) {
        return Error_set(err, DCU_ERR_IO, "%s", sqlite3_errmsg(s->db));
    }
    int cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (s->ntables == cap) {
            cap = cap ? cap * 2 : 32;
            s->tables = xrealloc(s->tables, sizeof(Obj) * (size_t)cap);
        }
        const char* t = (const char*)sqlite3_column_text(st, 0);
        s->tables[s->ntables++] = (Obj){xstrdup(t ? t : ""), sqlite3_column_int(st, 1), 0};
    }
    DcuStatus r = DCU_OK;
    if (rc != SQLITE_DONE) {
        r = Error_set(err, DCU_ERR_IO, "%s", sqlite3_errmsg(s->db));
    }
    sqlite3_finalize(st);
    return r;
}

/* A table named name. A view of that name is not read (a view is a query: only rocpd's
 * schema defines views, read through has_view); it is said once, in a message. */
static int has_table(Src* s, const char* name) {
    for (int i = 0; i < s->ntables; i++) {
        Obj* o = &s->tables[i];
        if (strcmp(o->name, name) == 0) {
            if (o->is_view && !o->warned) {
                o->warned = 1;
                Load_message(s->core, s->f, "%s is a view, not a table: not read (only rocpd's "
                                            "views are)", name);
            }
            return !o->is_view;
        }
    }
    return 0;
}

/* A table or a view named name: for the objects rocpd's schema defines as views. */
static int has_view(const Src* s, const char* name) {
    for (int i = 0; i < s->ntables; i++) {
        if (strcmp(s->tables[i].name, name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* A table whose name starts with prefix (views never count). */
static int has_prefix(const Src* s, const char* prefix) {
    size_t pl = strlen(prefix);
    for (int i = 0; i < s->ntables; i++) {
        if (!s->tables[i].is_view && strncmp(s->tables[i].name, prefix, pl) == 0) {
            return 1;
        }
    }
    return 0;
}

/* ---- reading rows ------------------------------------------------------------------ */

typedef struct Tab_ Tab;
static void tab_close(Tab* t);

struct Tab_ {
    Src* s;
    const char* table; /* for messages */
    sqlite3_stmt* st;
    int ncols;
    int64_t row;       /* 1-based row being read */
    int cut_col;       /* column "dcutop_cut": 1 when the query cut a text of the row */
    char where[160];
};

static void tab_close(Tab* t) {
    sqlite3_finalize(t->st);
    t->st = NULL;
}

static DcuStatus tab_open(Src* s, Tab* t, const char* table, const char* sql) {
    memset(t, 0, sizeof(*t));
    t->s = s;
    t->table = table;
    if (sqlite3_prepare_v2(s->db, sql, -1, &t->st, NULL) != SQLITE_OK) {
        Load_message(s->core, s->f, "table %s: %s", table, sqlite3_errmsg(s->db));
        s->f->rejected++;
        s->f->messages++; /* listed: not one of the "more rejected rows not listed" */
        t->st = NULL;
        return DCU_ERR_SQL;
    }
    t->ncols = sqlite3_column_count(t->st);
    t->cut_col = -1;
    for (int i = 0; i < t->ncols; i++) {
        const char* c = sqlite3_column_name(t->st, i);
        if (c && strcmp(c, "dcutop_cut") == 0) {
            t->cut_col = i;
        }
    }
    /* ?1: the longest name kept, cut in the query, so a view's giant names never reach its
     * sort (which stays in memory, under the budget's heap cap) */
    if (sqlite3_bind_parameter_count(t->st) >= 1) {
        sqlite3_bind_int64(t->st, 1, LOAD_MAX_NAME_BYTES);
    }
    return DCU_OK;
}

/* Steps to the next row; 0 at the end or on an error (reported once). */
static int tab_next(Tab* t) {
    if (!t->st) {
        return 0;
    }
    if (t->row >= t->s->max_rows) {
        Load_message(t->s->core, t->s->f, "table %s: more rows than a %llu-byte database can "
                                          "hold (a view that multiplies rows?): stopped after "
                                          "%lld rows (the rows before are kept)",
                     t->table, (unsigned long long)t->s->bytes, (long long)t->row);
        t->s->f->rejected++;
        t->s->f->messages++;
        tab_close(t);
        return 0;
    }
    t->s->mem0 = sqlite3_memory_used();
    t->s->mem_check = 1;
    int rc = sqlite3_step(t->st);
    t->s->mem_check = 0;
    if (rc == SQLITE_ROW) {
        t->row++;
        if (t->cut_col >= 0 && sqlite3_column_int(t->st, t->cut_col)) {
            t->s->cut++;
        }
        snprintf(t->where, sizeof(t->where), "table %.100s row %lld", t->table,
                 (long long)t->row);
        return 1;
    }
    if (rc != SQLITE_DONE) {
        char why[200];
        if (t->s->over) {
            budget_reason(t->s, why, sizeof(why));
        } else if ((rc & 0xff) == SQLITE_TOOBIG) {
            snprintf(why, sizeof(why), "a value too big (over the %d MiB a SQLite input may "
                                       "hold or make)", VALUE_MAX_BYTES >> 20);
        } else {
            snprintf(why, sizeof(why), "%s", sqlite3_errmsg(t->s->db));
        }
        Load_message(t->s->core, t->s->f, "table %s: %s after %lld rows (the rows before are kept)",
                     t->table, why, (long long)t->row);
        t->s->f->rejected++;
        t->s->f->messages++;
    }
    return 0;
}

/* Column index of the first of the given names (case-insensitive), -1 if none. */
static int col(const Tab* t, const char* const* names) {
    for (int k = 0; names[k]; k++) {
        for (int i = 0; i < t->ncols; i++) {
            const char* c = sqlite3_column_name(t->st, i);
            if (c && strcasecmp(c, names[k]) == 0) {
                return i;
            }
        }
    }
    return -1;
}

#define COL(t, ...) col((t), (const char* const[]){__VA_ARGS__, NULL})

/* Integer value of column c (LOAD_NULL when the column is absent, NULL or empty text).
 * Returns 0 and rejects the row when the value is not a number. */
static int get_int(Tab* t, int c, int64_t* out) {
    *out = LOAD_NULL;
    if (c < 0) {
        return 1;
    }
    switch (sqlite3_column_type(t->st, c)) {
    case SQLITE_NULL:
        return 1;
    case SQLITE_INTEGER:
        *out = sqlite3_column_int64(t->st, c);
        return 1;
    case SQLITE_FLOAT: {
        double d = sqlite3_column_double(t->st, c);
        if (isfinite(d) && fabs(d) < 9.2e18) {
            *out = llround(d);
            return 1;
        }
        break;
    }
    default: {
        const char* s = (const char*)sqlite3_column_text(t->st, c);
        int n = sqlite3_column_bytes(t->st, c);
        size_t tn = (size_t)n;
        while (tn > 0 && (s[tn - 1] == ' ' || s[tn - 1] == '"')) {
            tn--;
        }
        size_t i = 0;
        while (i < tn && (s[i] == ' ' || s[i] == '"')) {
            i++;
        }
        if (i == tn || (tn - i == 4 && memcmp(s + i, "None", 4) == 0)) {
            return 1;
        }
        if (!memchr(s + i, '\0', tn - i) && LoadEvent_parseScaled(s + i, tn - i, 0, out)) {
            return 1;
        }
        break;
    }
    }
    const char* s = (const char*)sqlite3_column_text(t->st, c);
    int n = sqlite3_column_bytes(t->st, c);
    char* shown = Names_sanitize(s ? s : "", (size_t)(n > 40 ? 40 : n));
    Load_reject(t->s->core, t->s->f, 0, "%s: column %s: not a number '%s'", t->where,
                sqlite3_column_name(t->st, c), shown);
    free(shown);
    *out = LOAD_NULL;
    return 0;
}

/* Text of column c (borrowed until the next step); "" when absent. */
static const char* get_text(Tab* t, int c, size_t* len) {
    if (c < 0 || sqlite3_column_type(t->st, c) == SQLITE_NULL) {
        *len = 0;
        return "";
    }
    const char* s = (const char*)sqlite3_column_text(t->st, c);
    *len = (size_t)sqlite3_column_bytes(t->st, c);
    return s ? s : "";
}

/* Placeholder rows that are not kernels (FORMATS.md 6.5). */
static int skip_name(const char* s, size_t n) {
    while (n > 0 && (*s == '"' || *s == ' ')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == '"' || s[n - 1] == ' ')) {
        n--;
    }
    return (n == 20 && memcmp(s, "Unknown command type", 20) == 0) ||
           (n == 16 && memcmp(s, "<barrier packet>", 16) == 0);
}

static char* select_all(const char* table) {
    return sqlite3_mprintf("SELECT * FROM \"%w\"", table);
}

/* Columns of a results.db/hipprof table that are known and not kept, or kept elsewhere:
 * anything else numeric in KERN is a PMC counter (as in results.csv). */
static int known_kern_column(const char* c) {
    static const char* const known[] = {
        "Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr",
        "lds", "scr", "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "fbar", "wave_size", "sig",
        "obj", "DispatchNs", "BeginNs", "EndNs", "CompleteNs", "DurationNs", "__section",
        "__lane", "Data", "args", NULL};
    for (int i = 0; known[i]; i++) {
        if (strcasecmp(known[i], c) == 0) {
            return 1;
        }
    }
    return 0;
}

/* ---- rocprof v1 results.db ----------------------------------------------------------- */

/* KERN: one row per dispatch, results.csv's columns; names carry their quotes. */
static int64_t v1_kern(Src* s) {
    Tab t;
    char* sql = select_all("KERN");
    DcuStatus rc = tab_open(s, &t, "KERN", sql);
    sqlite3_free(sql);
    if (rc != DCU_OK) {
        return 0;
    }
    int cn = COL(&t, "KernelName"), ci = COL(&t, "Index"), cg = COL(&t, "gpu-id"),
        cq = COL(&t, "queue-id"), cp = COL(&t, "pid"), ct = COL(&t, "tid"), cgr = COL(&t, "grd"),
        cw = COL(&t, "wgr"), cl = COL(&t, "lds"), csc = COL(&t, "scr"),
        cv = COL(&t, "arch_vgpr", "vgpr"), csg = COL(&t, "sgpr"), cb = COL(&t, "BeginNs"),
        ce = COL(&t, "EndNs"), cd = COL(&t, "DurationNs");
    int64_t n = 0;
    if (cn < 0 || ((cb < 0 || ce < 0) && cd < 0)) {
        Load_message(s->core, s->f, "table KERN: no KernelName or BeginNs/EndNs columns; "
                                    "not loaded");
        tab_close(&t);
        return 0;
    }
    int* pmc = xcalloc((size_t)t.ncols + 1, sizeof(int));
    int npmc = 0;
    for (int i = 0; i < t.ncols; i++) {
        if (!known_kern_column(sqlite3_column_name(t.st, i))) {
            pmc[npmc++] = i;
        }
    }
    while (tab_next(&t)) {
        size_t nl;
        const char* name = get_text(&t, cn, &nl);
        if (skip_name(name, nl)) {
            continue;
        }
        LoadDispatch d;
        LoadDispatch_init(&d);
        if (!get_int(&t, ci, &d.seq) || !get_int(&t, cg, &d.gpu) || !get_int(&t, cq, &d.queue) ||
            !get_int(&t, cp, &d.pid) || !get_int(&t, ct, &d.tid) || !get_int(&t, cgr, &d.grid) ||
            !get_int(&t, cw, &d.workgroup) || !get_int(&t, cl, &d.lds) ||
            !get_int(&t, csc, &d.scratch) || !get_int(&t, cv, &d.vgpr) ||
            !get_int(&t, csg, &d.sgpr) || !get_int(&t, cb, &d.start) ||
            !get_int(&t, ce, &d.end) || !get_int(&t, cd, &d.dur)) {
            continue;
        }
        int64_t did = LoadEvent_dispatch(s->core, s->f, t.where, name, nl, &d, RANK_DB);
        if (!did) {
            continue;
        }
        n++;
        for (int k = 0; k < npmc; k++) {
            int c = pmc[k];
            int ty = sqlite3_column_type(t.st, c);
            if (ty == SQLITE_INTEGER || ty == SQLITE_FLOAT) {
                LoadEvent_counter(s->core, s->f, did, sqlite3_column_name(t.st, c),
                                  sqlite3_column_double(t.st, c));
            } else if (ty == SQLITE_TEXT) {
                char* end;
                const char* v = (const char*)sqlite3_column_text(t.st, c);
                double x = strtod(v, &end);
                if (end != v && *end == '\0' && isfinite(x)) {
                    LoadEvent_counter(s->core, s->f, did, sqlite3_column_name(t.st, c), x);
                }
            }
        }
    }
    free(pmc);
    tab_close(&t);
    return n;
}

typedef enum { V1_OPS, V1_COPY, V1_HIP, V1_HSA, V1_ROCTX } V1Table;

/* OPS (kernels from HIP activity), COPY, HIP, HSA, rocTX. The ROCm 4.0 column set has no
 * __section column and writes the trace section number into pid (2 for HIP, 6 for GPU0):
 * then pid is dropped and, for OPS/COPY, proc-id is the process. */
static int64_t v1_table(Src* s, const char* table, V1Table kind) {
    Tab t;
    char* sql = select_all(table);
    DcuStatus rc = tab_open(s, &t, table, sql);
    sqlite3_free(sql);
    if (rc != DCU_OK) {
        return 0;
    }
    int new_set = COL(&t, "__section") >= 0;
    int cn = COL(&t, "Name"), cb = COL(&t, "BeginNs"), ce = COL(&t, "EndNs"),
        cd = COL(&t, "DurationNs"), ci = COL(&t, "Index"), ct = COL(&t, "tid"),
        cg = COL(&t, "dev-id"), cq = COL(&t, "queue-id"), cs = COL(&t, "stream-id");
    int cp = COL(&t, "proc-id");
    if (cp < 0 && new_set) {
        cp = COL(&t, "pid");
    }
    if (kind == V1_OPS || kind == V1_COPY) {
        ct = -1; /* a lane number, not a thread, in OPS/COPY */
    }
    int64_t n = 0;
    if (cn < 0 || cb < 0) {
        Load_message(s->core, s->f, "table %s: no Name or BeginNs column; not loaded", table);
        tab_close(&t);
        return 0;
    }
    while (tab_next(&t)) {
        size_t nl;
        const char* name = get_text(&t, cn, &nl);
        int64_t b, e, d, idx, pid, tid, gpu, queue, stream;
        if (!get_int(&t, cb, &b) || !get_int(&t, ce, &e) || !get_int(&t, cd, &d) ||
            !get_int(&t, ci, &idx) || !get_int(&t, cp, &pid) || !get_int(&t, ct, &tid) ||
            !get_int(&t, cg, &gpu) || !get_int(&t, cq, &queue) || !get_int(&t, cs, &stream)) {
            continue;
        }
        int ok = 0;
        switch (kind) {
        case V1_OPS: {
            if (skip_name(name, nl)) {
                continue;
            }
            LoadDispatch ld;
            LoadDispatch_init(&ld);
            ld.seq = idx;
            ld.corr = idx;
            ld.gpu = gpu;
            ld.queue = queue;
            ld.stream = stream;
            ld.pid = pid;
            ld.start = b;
            ld.end = e;
            ld.dur = d;
            ok = LoadEvent_dispatch(s->core, s->f, t.where, name, nl, &ld, RANK_DB) != 0;
            break;
        }
        case V1_COPY:
            ok = LoadEvent_copy(s->core, s->f, t.where, name, nl, LOAD_NULL, LOAD_NULL, stream,
                                idx, LOAD_NULL, b, e, RANK_DB);
            break;
        case V1_HIP:
        case V1_HSA:
            ok = LoadEvent_apiCall(s->core, s->f, t.where, kind == V1_HIP ? "HIP" : "HSA", name,
                                   nl, pid, tid, idx, b, e, RANK_DB);
            break;
        case V1_ROCTX:
            ok = LoadEvent_range(s->core, s->f, t.where, "ROCTX", "range", name, nl, pid, tid,
                                 LOAD_NULL, b, e, RANK_DB);
            break;
        }
        n += ok;
    }
    tab_close(&t);
    return n;
}

static int64_t count_rows(Src* s, const char* table) {
    char* sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", table);
    sqlite3_stmt* st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_free(sql);
    return n;
}

static void load_v1(Src* s) {
    int old_set = has_table(s, "A") || (has_table(s, "OPS") && !has_table(s, "KERN"));
    s->f->format = old_set && has_table(s, "A") ? "rocprof v1 results.db (ROCm 4 columns)"
                                                : "rocprof v1 results.db";
    int64_t kern = 0;
    if (has_table(s, "KERN")) {
        kern = v1_kern(s);
    }
    if (has_table(s, "A") && count_rows(s, "A") > 0) {
        Load_message(s->core, s->f, "table A: dispatches without timestamps (ROCm 4 PMC "
                                    "table): not loaded");
    }
    if (has_table(s, "OPS")) {
        if (kern > 0) {
            Load_message(s->core, s->f, "table OPS: kernels not loaded, table KERN holds the "
                                        "same dispatches");
        } else {
            v1_table(s, "OPS", V1_OPS);
        }
    }
    if (has_table(s, "COPY")) {
        v1_table(s, "COPY", V1_COPY);
    }
    if (has_table(s, "HIP")) {
        v1_table(s, "HIP", V1_HIP);
    }
    if (has_table(s, "HSA")) {
        v1_table(s, "HSA", V1_HSA);
    }
    if (has_table(s, "rocTX")) {
        v1_table(s, "rocTX", V1_ROCTX);
    }
}

/* ---- hipprof DB ------------------------------------------------------------------------ */

typedef struct ApiName_ {
    char* name;
    int64_t calls, total;
} ApiName;

typedef struct Companion_ {
    ApiName* v;
    int n, cap;
    int c_name, c_calls, c_total, ncols;
    int header;
} Companion;

static int companion_row(const CsvRow* r, void* data) {
    Companion* c = data;
    if (!c->header) {
        c->header = 1;
        c->c_name = c->c_calls = c->c_total = -1;
        c->ncols = r->n;
        for (int i = 0; i < r->n; i++) {
            char h[64];
            size_t l = 0;
            for (size_t k = 0; k < r->f[i].len && l + 1 < sizeof(h); k++) {
                if (r->f[i].s[k] != '"' && r->f[i].s[k] != ' ') {
                    h[l++] = (char)tolower((unsigned char)r->f[i].s[k]);
                }
            }
            h[l] = '\0';
            if (strcmp(h, "name") == 0) {
                c->c_name = i;
            } else if (strcmp(h, "calls") == 0) {
                c->c_calls = i;
            } else if (strcmp(h, "totaldurationns") == 0) {
                c->c_total = i;
            }
        }
        return c->c_name < 0 || c->c_calls < 0 || c->c_total < 0;
    }
    int shift = r->n - c->ncols; /* unquoted commas in a name: right-anchored */
    if (shift < 0 || c->c_name != 0) {
        shift = 0;
    }
    if (c->c_calls + shift >= r->n || c->c_total + shift >= r->n) {
        return 0;
    }
    int64_t calls, total;
    if (!LoadEvent_parseScaled(r->f[c->c_calls + shift].s, r->f[c->c_calls + shift].len, 0,
                               &calls) ||
        !LoadEvent_parseScaled(r->f[c->c_total + shift].s, r->f[c->c_total + shift].len, 0,
                               &total)) {
        return 0;
    }
    size_t need = 0;
    for (int i = 0; i <= shift; i++) {
        need += r->f[i].len + 1;
    }
    char* name = xmalloc(need + 1);
    size_t o = 0;
    for (int i = 0; i <= shift; i++) {
        if (i) {
            name[o++] = ',';
        }
        memcpy(name + o, r->f[i].s, r->f[i].len);
        o += r->f[i].len;
    }
    name[o] = '\0';
    char* norm = Names_normalize(name, o);
    free(name);
    if (strcmp(norm, "Total") == 0) {
        free(norm);
        return 0;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 32;
        c->v = xrealloc(c->v, sizeof(ApiName) * (size_t)c->cap);
    }
    c->v[c->n++] = (ApiName){norm, calls, total};
    return 0;
}

/* The companion P.hiptrace.csv of P.db (NULL when there is none). */
static char* companion_path(const char* db_path) {
    size_t n = strlen(db_path);
    if (n > 3 && strcmp(db_path + n - 3, ".db") == 0) {
        char* p = xasprintf("%.*s.hiptrace.csv", (int)(n - 3), db_path);
        if (SafeFile_check(p, NULL, NULL) == 0) { /* a FIFO there would block the read */
            return p;
        }
        free(p);
    }
    return NULL;
}

/* Maps each HIP API id to a name: the per-id (calls, total ns) of the SUMMARY table (KIND 1)
 * or, without it, of the HIP_* rows, matched against the rows of the companion
 * .hiptrace.csv; an id with no unique match keeps the name "HIP API #id". */
typedef struct IdName_ {
    int64_t id;
    char* name;
} IdName;

static void hip_api_names(Src* s, IdName** out, int* nout) {
    *out = NULL;
    *nout = 0;
    char* cp = companion_path(s->f->path);
    if (!cp) {
        Load_message(s->core, s->f, "no companion .hiptrace.csv beside the database: HIP API "
                                    "calls are named by id");
        return;
    }
    Companion c = {0};
    DcuError e;
    CsvReader_readFile(cp, companion_row, NULL, &c, &e);
    /* per-id totals: SUMMARY when present, else the HIP_* tables */
    const char* sql = has_table(s, "SUMMARY")
                          ? "SELECT NAME, CALLS, TOTAL_NS FROM SUMMARY WHERE KIND = 1"
                          : NULL;
    char* built = NULL;
    if (!sql) {
        /* UNION ALL of every HIP_ table */
        size_t cap = 256;
        built = xmalloc(cap);
        strcpy(built, "SELECT Name, count(*), CAST(sum(CAST(EndNs - BeginNs AS REAL)) AS INTEGER) FROM (");
        int first = 1;
        for (int i = 0; i < s->ntables; i++) {
            if (s->tables[i].is_view || strncmp(s->tables[i].name, "HIP_", 4) != 0) {
                continue;
            }
            char* part = sqlite3_mprintf("%sSELECT Name, BeginNs, EndNs FROM \"%w\"",
                                         first ? "" : " UNION ALL ", s->tables[i].name);
            xgrow((void**)&built, &cap, strlen(built) + strlen(part) + 64);
            strcat(built, part);
            sqlite3_free(part);
            first = 0;
        }
        strcat(built, ") GROUP BY Name");
        sql = first ? NULL : built;
    }
    sqlite3_stmt* st = NULL;
    int cap = 0;
    if (sql && sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(st, 0), calls = sqlite3_column_int64(st, 1),
                    total = sqlite3_column_int64(st, 2);
            int match = -1, nmatch = 0;
            for (int k = 0; k < c.n; k++) {
                if (c.v[k].calls == calls && c.v[k].total == total) {
                    match = k;
                    nmatch++;
                }
            }
            if (nmatch != 1) {
                continue;
            }
            if (*nout == cap) {
                cap = cap ? cap * 2 : 32;
                *out = xrealloc(*out, sizeof(IdName) * (size_t)cap);
            }
            (*out)[(*nout)++] = (IdName){id, xstrdup(c.v[match].name)};
        }
    }
    sqlite3_finalize(st);
    free(built);
    const char* base = strrchr(cp, '/');
    Load_message(s->core, s->f, "HIP API names: %d of %d matched by (calls, total ns) in %s",
                 *nout, c.n, base ? base + 1 : cp);
    for (int k = 0; k < c.n; k++) {
        free(c.v[k].name);
    }
    free(c.v);
    free(cp);
}

/* hipMemcpyKind (HIP headers): the Kind column of HIPCOPY_* [unverified for hipprof]. */
static const char* copy_kind_name(int64_t k, char* buf, size_t n) {
    static const char* const names[] = {"CopyHostToHost", "CopyHostToDevice", "CopyDeviceToHost",
                                        "CopyDeviceToDevice", "CopyDefault"};
    if (k >= 0 && k < 5) {
        return names[k];
    }
    snprintf(buf, n, "Copy kind %lld", (long long)k); /* an unknown kind keeps its number */
    return buf;
}

/* The per-process suffix of HIPOPS_1234 as a pid, when it is a number. */
static int64_t suffix_pid(const char* table) {
    const char* u = strrchr(table, '_');
    if (!u || !u[1] || strspn(u + 1, "0123456789") != strlen(u + 1) || strlen(u + 1) > 18) {
        return LOAD_NULL;
    }
    return strtoll(u + 1, NULL, 10);
}

/* A HIPOPS_* kernel name: its STR_TABLE string (column cn), else "kernel #id" written into
 * buf from the id in column cname; NULL when that id is not a number (row rejected). */
static const char* ops_name(Tab* t, int cn, int cname, char* buf, size_t n, size_t* nl) {
    const char* name = get_text(t, cn, nl);
    if (*nl > 0) {
        return name;
    }
    int64_t id;
    if (!get_int(t, cname, &id)) {
        return NULL;
    }
    snprintf(buf, n, "kernel #%lld", (long long)id);
    *nl = strlen(buf);
    return buf;
}

/* The name matched to HIP API id, else "HIP API #id" written into buf. */
static const char* api_name(const IdName* api, int napi, int64_t id, char* buf, size_t n) {
    for (int k = 0; k < napi; k++) {
        if (api[k].id == id) {
            return api[k].name;
        }
    }
    snprintf(buf, n, "HIP API #%lld", (long long)id);
    return buf;
}

/* ROCPROF_KERNEL: the kernels of a hipprof database that has no HIPOPS_* table. */
static void hipprof_rocprof_kernel(Src* s) {
    Tab t;
    if (tab_open(s, &t, "ROCPROF_KERNEL", "SELECT * FROM ROCPROF_KERNEL") == DCU_OK) {
        int ci = COL(&t, "Dispatch_ID"), cg = COL(&t, "GPU_ID"), cq = COL(&t, "Queue_ID"),
            cn = COL(&t, "Kernel_Name"), cb = COL(&t, "Start_Timestamp"),
            ce = COL(&t, "End_Timestamp"), cgr = COL(&t, "GRD"), cw = COL(&t, "WGR"),
            cl = COL(&t, "LDS"), cv = COL(&t, "Arch_VGPR"), csg = COL(&t, "SGPR");
        while (tab_next(&t)) {
            LoadDispatch ld;
            LoadDispatch_init(&ld);
            size_t nl;
            const char* name = get_text(&t, cn, &nl);
            if (!get_int(&t, ci, &ld.seq) || !get_int(&t, cg, &ld.gpu) ||
                !get_int(&t, cq, &ld.queue) || !get_int(&t, cb, &ld.start) ||
                !get_int(&t, ce, &ld.end) || !get_int(&t, cgr, &ld.grid) ||
                !get_int(&t, cw, &ld.workgroup) || !get_int(&t, cl, &ld.lds) ||
                !get_int(&t, cv, &ld.vgpr) || !get_int(&t, csg, &ld.sgpr)) {
                continue;
            }
            LoadEvent_dispatch(s->core, s->f, t.where, name, nl, &ld, RANK_DB);
        }
        tab_close(&t);
    }
}

static void load_hipprof(Src* s) {
    s->f->format = "hipprof database";
    int has_str = has_table(s, "STR_TABLE");
    IdName* api = NULL;
    int napi = 0;
    if (has_prefix(s, "HIP_")) {
        hip_api_names(s, &api, &napi);
    }
    int64_t kernels = 0;
    for (int i = 0; i < s->ntables; i++) {
        const char* tn = s->tables[i].name;
        int ops = strncmp(tn, "HIPOPS_", 7) == 0, cpy = strncmp(tn, "HIPCOPY_", 8) == 0,
            hip = strncmp(tn, "HIP_", 4) == 0;
        if ((!ops && !cpy && !hip) || !has_table(s, tn)) { /* a view is named, not read */
            continue;
        }
        char* sql = ops && has_str
                        ? sqlite3_mprintf("SELECT o.*, s.STR_NAME AS dcutop_name FROM \"%w\" o"
                                          " LEFT JOIN STR_TABLE s ON s.STR_ID = o.Name",
                                          tn)
                        : select_all(tn);
        Tab t;
        DcuStatus rc = tab_open(s, &t, tn, sql);
        sqlite3_free(sql);
        if (rc != DCU_OK) {
            continue;
        }
        int cb = COL(&t, "BeginNs"), ce = COL(&t, "EndNs"), cd = COL(&t, "DurationNs"),
            cg = COL(&t, "dev_id", "dev-id", "devId"), cq = COL(&t, "queue_id", "queue-id"),
            ci = COL(&t, "_Index", "Index"), cp = COL(&t, "pid"), ct = COL(&t, "tid"),
            cn = COL(&t, "dcutop_name", "Name"), cname = COL(&t, "Name"),
            ck = COL(&t, "Kind"), cby = COL(&t, "Bytes");
        int64_t spid = suffix_pid(tn);
        while (tab_next(&t)) {
            int64_t b, e, d, gpu, queue, idx, pid, tid, kind, bytes;
            if (!get_int(&t, cb, &b) || !get_int(&t, ce, &e) || !get_int(&t, cd, &d) ||
                !get_int(&t, cg, &gpu) || !get_int(&t, cq, &queue) || !get_int(&t, ci, &idx) ||
                !get_int(&t, cp, &pid) || !get_int(&t, ct, &tid)) {
                continue;
            }
            if (ops) {
                size_t nl;
                char idbuf[48];
                const char* name = ops_name(&t, cn, cname, idbuf, sizeof(idbuf), &nl);
                if (!name || skip_name(name, nl)) {
                    continue;
                }
                LoadDispatch ld;
                LoadDispatch_init(&ld);
                ld.seq = idx;
                ld.corr = idx;
                ld.gpu = gpu;
                ld.queue = queue;
                ld.pid = spid;
                ld.start = b;
                ld.end = e;
                ld.dur = d;
                kernels += LoadEvent_dispatch(s->core, s->f, t.where, name, nl, &ld, RANK_DB) != 0;
            } else if (cpy) {
                if (!get_int(&t, ck, &kind) || !get_int(&t, cby, &bytes)) {
                    continue;
                }
                char kb[48];
                const char* name = copy_kind_name(kind, kb, sizeof(kb));
                LoadEvent_copy(s->core, s->f, t.where, name, strlen(name), LOAD_NULL, LOAD_NULL,
                               queue, idx, bytes, b, e, RANK_DB);
            } else {
                int64_t id;
                size_t nl;
                const char* text = get_text(&t, cname, &nl);
                char nb[48];
                const char* name = text;
                if (sqlite3_column_type(t.st, cname) == SQLITE_INTEGER) {
                    if (!get_int(&t, cname, &id)) {
                        continue;
                    }
                    name = api_name(api, napi, id, nb, sizeof(nb));
                    nl = strlen(name);
                }
                LoadEvent_apiCall(s->core, s->f, t.where, "HIP", name, nl,
                                  pid != LOAD_NULL ? pid : spid, tid, idx, b, e, RANK_DB);
            }
        }
        tab_close(&t);
    }
    if (kernels == 0 && has_table(s, "ROCPROF_KERNEL")) {
        hipprof_rocprof_kernel(s);
    }
    if (has_prefix(s, "HIPTXOPS") || has_table(s, "TRACE_COUNTER")) {
        Load_message(s->core, s->f, "tables HIPTXOPS*/TRACE_COUNTER: column layout unknown, not "
                                    "loaded");
    }
    for (int k = 0; k < napi; k++) {
        free(api[k].name);
    }
    free(api);
}

/* ---- rocpd (rocprofv3) -------------------------------------------------------------------- */

/* The domain of a region by its category (3.x upper case, 4.x lower case). */
static const char* region_domain(const char* cat, int* is_marker) {
    *is_marker = 0;
    if (!cat) {
        return "HIP";
    }
    if (strncasecmp(cat, "MARKER", 6) == 0 || strncasecmp(cat, "ROCTX", 5) == 0) {
        *is_marker = 1;
        return "MARKER";
    }
    if (strncasecmp(cat, "HIP_COMPILER", 12) == 0) {
        return "HIP_COMPILER";
    }
    if (strncasecmp(cat, "HIP", 3) == 0) {
        return "HIP";
    }
    if (strncasecmp(cat, "HSA", 3) == 0) {
        return "HSA";
    }
    if (strncasecmp(cat, "RCCL", 4) == 0) {
        return "RCCL";
    }
    return "OTHER";
}

/* rocpd's views changed names between schema versions (3.x agent_abs_index, corr_id,
 * lds_size, vgpr_count; the 4.x line agent_absolute_index, correlation_id, lds_block_size,
 * arch_vgpr_count, and pid/tid/agent/queue/stream behind a track_id). The loader reads the
 * columns a view has (pragma_table_info) and maps each of dcutop's fields through a list of
 * alternatives, first present wins:
 *   "a|b"         column a, else column b;
 *   "x*y*z"       the product of the columns (all present);
 *   "@track.c"    column c of the rocpd_track row of the view's track_id;
 *   "@agent.c"    rocpd_info_agent's absolute_index for the view's agent id column c;
 *   "@trackagent" the same for the agent of the view's track.
 * A field no alternative maps is read as NULL and said in one message per view; a view that
 * lacks a required field is not read. */
typedef struct RocpdField_ {
    const char* field;   /* dcutop's name, for messages */
    const char* alts;
    int text;            /* 1: a name, cut to LOAD_MAX_NAME_BYTES in the query */
    int required;        /* 1: the view is not read without it */
} RocpdField;

typedef struct RocpdView_ {
    Src* s;
    const char* view;
    Cols cols;    /* the view's */
    Cols track;   /* rocpd_track's (empty when the database has none) */
    int agents;   /* 1: rocpd_info_agent has absolute_index */
} RocpdView;

/* n bytes at s as a string in buf (alias names are short). */
static const char* part(char* buf, size_t bn, const char* s, size_t n) {
    snprintf(buf, bn, "%.*s", (int)n, s);
    return buf;
}

/* Appends the SQL of one alternative (n bytes at alt); 0 when the view cannot give it. */
static int alt_sql(const RocpdView* v, const char* alt, size_t n, sqlite3_str* q) {
    char b[64];
    static const char agent_q[] = "(SELECT \"absolute_index\" FROM \"rocpd_info_agent\" "
                                  "WHERE \"id\" = ";
    if (n > 7 && strncmp(alt, "@track.", 7) == 0) {
        if (!Cols_has(&v->cols, "track_id", 8) || !Cols_has(&v->track, alt + 7, n - 7)) {
            return 0;
        }
        sqlite3_str_appendf(q, "(SELECT \"%w\" FROM \"rocpd_track\" WHERE \"id\" = "
                               "dcutop_v.\"track_id\")", part(b, sizeof(b), alt + 7, n - 7));
        return 1;
    }
    if (n > 7 && strncmp(alt, "@agent.", 7) == 0) {
        if (!v->agents || !Cols_has(&v->cols, alt + 7, n - 7)) {
            return 0;
        }
        sqlite3_str_appendf(q, "%sdcutop_v.\"%w\")", agent_q, part(b, sizeof(b), alt + 7, n - 7));
        return 1;
    }
    if (n == 11 && strncmp(alt, "@trackagent", 11) == 0) {
        if (!v->agents || !Cols_has(&v->cols, "track_id", 8) ||
            !Cols_has(&v->track, "agent_id", 8)) {
            return 0;
        }
        sqlite3_str_appendf(q, "%s(SELECT \"agent_id\" FROM \"rocpd_track\" WHERE \"id\" = "
                               "dcutop_v.\"track_id\"))", agent_q);
        return 1;
    }
    /* a column or a product of columns: every part present */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && alt[j] != '*') {
            j++;
        }
        if (!Cols_has(&v->cols, alt + i, j - i)) {
            return 0;
        }
        i = j + 1;
    }
    sqlite3_str_appendchar(q, 1, '(');
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && alt[j] != '*') {
            j++;
        }
        sqlite3_str_appendf(q, "%sdcutop_v.\"%w\"", i ? " * " : "",
                            part(b, sizeof(b), alt + i, j - i));
        i = j + 1;
    }
    sqlite3_str_appendchar(q, 1, ')');
    return 1;
}

static void view_done(RocpdView* v) {
    Cols_free(&v->cols);
    Cols_free(&v->track);
}

/* The SQL of the first alternative of alts that v can give, or NULL (sqlite3_free it). */
static char* field_sql(const RocpdView* v, const char* alts) {
    for (const char* a = alts; *a;) {
        size_t n = strcspn(a, "|");
        sqlite3_str* e = sqlite3_str_new(v->s->db);
        int got = alt_sql(v, a, n, e);
        char* sql = sqlite3_str_finish(e);
        if (got && sql) {
            return sql;
        }
        sqlite3_free(sql);
        a += n;
        if (*a == '|') {
            a++;
        }
    }
    return NULL;
}

/* Opens view for the fields (column i of a row is fields[i]); 0 when the database has no such
 * view or it lacks a required field. Unmapped fields are said in a message unless quiet. */
static int rocpd_open(RocpdView* v, Src* s, const char* view, Tab* t, const RocpdField* fields,
                      int nf, int quiet) {
    memset(v, 0, sizeof(*v));
    v->s = s;
    v->view = view;
    if (!has_view(s, view)) {
        return 0;
    }
    char why[160], track_why[200] = "";
    if (!Cols_read(s->db, view, &v->cols, why, sizeof(why))) { /* say SQLite's reason */
        Load_message(s->core, s->f, "rocpd view %s cannot be read: %s; not read", view, why);
        s->f->rejected++;
        s->f->messages++; /* listed: not one of the "more rejected rows not listed" */
        return 0;
    }
    if (has_view(s, "rocpd_track") &&
        !Cols_read(s->db, "rocpd_track", &v->track, why, sizeof(why))) {
        snprintf(track_why, sizeof(track_why), " (rocpd_track cannot be read: %s)", why);
    }
    if (has_view(s, "rocpd_info_agent")) {
        Cols ag;
        Cols_read(s->db, "rocpd_info_agent", &ag, why, sizeof(why));
        v->agents = Cols_has(&ag, "absolute_index", 14);
        Cols_free(&ag);
    }
    sqlite3_str* q = sqlite3_str_new(s->db);
    sqlite3_str* cut = sqlite3_str_new(s->db);
    sqlite3_str* miss = sqlite3_str_new(s->db);
    char* order = NULL;
    int ok = 1;
    sqlite3_str_appendall(q, "SELECT ");
    for (int i = 0; i < nf; i++) {
        char* e = field_sql(v, fields[i].alts);
        if (!e) {
            sqlite3_str_appendf(miss, "%s%s (%s)", sqlite3_str_length(miss) ? ", " : "",
                                fields[i].field, fields[i].alts);
            ok = ok && !fields[i].required;
            sqlite3_str_appendall(q, "NULL");
        } else if (fields[i].text) {
            sqlite3_str_appendf(q, "substr(%s, 1, ?1)", e);
            sqlite3_str_appendf(cut, "%slength(%s) > ?1", sqlite3_str_length(cut) ? " OR " : "",
                                e);
        } else {
            sqlite3_str_appendall(q, e);
        }
        /* messages name a column by the field, never by the SQL that reads it */
        sqlite3_str_appendf(q, " AS \"%w\"", fields[i].field);
        if (e && strcmp(fields[i].field, "start") == 0) {
            order = xstrdup(e);
        }
        sqlite3_free(e);
        sqlite3_str_appendall(q, ", ");
    }
    char* cuts = sqlite3_str_finish(cut);
    sqlite3_str_appendf(q, "(%s) AS dcutop_cut FROM \"%w\" AS dcutop_v", cuts && *cuts ? cuts : "0",
                        view);
    if (order) {
        sqlite3_str_appendf(q, " ORDER BY %s", order);
    }
    sqlite3_free(cuts);
    free(order);
    char* sql = sqlite3_str_finish(q);
    char* missing = sqlite3_str_finish(miss);
    if (missing && *missing && (!quiet || ok)) {
        Load_message(s->core, s->f, "rocpd view %s: no column for %s%s: %s", view, missing,
                     track_why, ok ? "read without them" : "not read");
    }
    sqlite3_free(missing);
    int opened = ok && sql && tab_open(s, t, view, sql) == DCU_OK;
    sqlite3_free(sql);
    return opened;
}

enum { K_NAME, K_SEQ, K_GPU, K_QUEUE, K_STREAM, K_PID, K_TID, K_CORR, K_START, K_END, K_GRID,
       K_WG, K_LDS, K_SCRATCH, K_VGPR, K_SGPR, K_COUNT };

static const RocpdField kernel_fields[K_COUNT] = {
    {"name", "name|kernel_name|display_name", 1, 1},
    {"dispatch_id", "dispatch_id", 0, 0},
    {"agent", "agent_abs_index|agent_absolute_index|@agent.agent_id|@trackagent", 0, 0},
    {"queue", "queue_id|@track.queue_id", 0, 0},
    {"stream", "stream_id|@track.stream_id", 0, 0},
    {"pid", "pid|@track.pid", 0, 0},
    {"tid", "tid|@track.tid", 0, 0},
    {"correlation_id", "corr_id|correlation_id", 0, 0},
    {"start", "start", 0, 1},
    {"end", "end", 0, 1},
    /* grid_x..z count work-items in 3.x and 4.x; 4.x's grid_size_x..z count blocks */
    {"grid", "grid_x*grid_y*grid_z|ocl_grid_size|"
             "grid_size_x*grid_size_y*grid_size_z*workgroup_x*workgroup_y*workgroup_z", 0, 0},
    {"workgroup", "workgroup_x*workgroup_y*workgroup_z|block_size|ocl_workgroup_size", 0, 0},
    {"lds", "lds_size|lds_block_size", 0, 0},
    {"scratch", "scratch_size", 0, 0},
    {"vgpr", "vgpr_count|arch_vgpr_count", 0, 0},
    {"sgpr", "sgpr_count", 0, 0},
};

/* The kernels view: one row per dispatch. rocpd's dispatch_id -> dispatch.id goes to ids
 * (for the PMC values of rocpd_pmc). */
static void rocpd_kernels(Src* s, I64Map* ids) {
    Tab t;
    RocpdView v;
    if (rocpd_open(&v, s, "kernels", &t, kernel_fields, K_COUNT, 0)) {
        while (tab_next(&t)) {
            LoadDispatch d;
            LoadDispatch_init(&d);
            size_t nl;
            const char* name = get_text(&t, K_NAME, &nl);
            int64_t* val[K_COUNT] = {NULL,    &d.seq,  &d.gpu,   &d.queue, &d.stream,
                                     &d.pid,  &d.tid,  &d.corr,  &d.start, &d.end,
                                     &d.grid, &d.workgroup, &d.lds, &d.scratch, &d.vgpr,
                                     &d.sgpr};
            int ok = 1;
            for (int i = K_SEQ; ok && i < K_COUNT; i++) {
                ok = get_int(&t, i, val[i]);
            }
            int64_t seq = d.seq;
            int64_t id = ok ? LoadEvent_dispatch(s->core, s->f, t.where, name, nl, &d, RANK_DB)
                            : 0;
            if (id > 0 && seq != LOAD_NULL) {
                I64Map_put(ids, seq, id);
            }
        }
        tab_close(&t);
    }
    view_done(&v);
}

enum { R_CAT, R_NAME, R_PID, R_TID, R_CORR, R_START, R_END, R_COUNT };

static const RocpdField region_fields[R_COUNT] = {
    {"category", "category", 1, 0},
    {"name", "name", 1, 1},
    {"pid", "pid|@track.pid", 0, 0},
    {"tid", "tid|@track.tid", 0, 0},
    {"correlation_id", "corr_id|correlation_id", 0, 0},
    {"start", "start", 0, 1},
    {"end", "end", 0, 1},
};

/* The regions view: API calls, and markers as ranges. */
static void rocpd_regions(Src* s) {
    Tab t;
    RocpdView v;
    if (rocpd_open(&v, s, "regions", &t, region_fields, R_COUNT, 0)) {
        while (tab_next(&t)) {
            size_t cl, nl;
            const char* cat = get_text(&t, R_CAT, &cl);
            const char* name = get_text(&t, R_NAME, &nl);
            int64_t pid, tid, corr, b, e;
            if (!get_int(&t, R_PID, &pid) || !get_int(&t, R_TID, &tid) ||
                !get_int(&t, R_CORR, &corr) || !get_int(&t, R_START, &b) ||
                !get_int(&t, R_END, &e)) {
                continue;
            }
            int marker;
            const char* dom = region_domain(cl ? cat : NULL, &marker);
            if (marker) {
                LoadEvent_range(s->core, s->f, t.where, dom, "range", name, nl, pid, tid, corr,
                                b, e, RANK_DB);
            } else {
                LoadEvent_apiCall(s->core, s->f, t.where, dom, name, nl, pid, tid, corr, b, e,
                                  RANK_DB);
            }
        }
        tab_close(&t);
    }
    view_done(&v);
}

enum { C_NAME, C_SRC, C_DST, C_STREAM, C_CORR, C_SIZE, C_START, C_END, C_COUNT };

static const RocpdField copy_fields[C_COUNT] = {
    {"name", "name", 1, 1},
    {"src_agent", "src_agent_abs_index|src_agent_absolute_index|@agent.src_agent_id", 0, 0},
    {"dst_agent", "dst_agent_abs_index|dst_agent_absolute_index|@agent.dst_agent_id", 0, 0},
    {"stream", "stream_id|@track.stream_id", 0, 0},
    {"correlation_id", "corr_id|correlation_id", 0, 0},
    {"size", "size", 0, 0},
    {"start", "start", 0, 1},
    {"end", "end", 0, 1},
};

/* The memory_copies view. */
static void rocpd_copies(Src* s) {
    Tab t;
    RocpdView v;
    if (rocpd_open(&v, s, "memory_copies", &t, copy_fields, C_COUNT, 0)) {
        while (tab_next(&t)) {
            size_t nl;
            const char* name = get_text(&t, C_NAME, &nl);
            int64_t x[C_COUNT];
            int ok = 1;
            for (int i = C_SRC; ok && i < C_COUNT; i++) {
                ok = get_int(&t, i, &x[i]);
            }
            if (ok) {
                LoadEvent_copy(s->core, s->f, t.where, name, nl, x[C_SRC], x[C_DST],
                               x[C_STREAM], x[C_CORR], x[C_SIZE], x[C_START], x[C_END],
                               RANK_DB);
            }
        }
        tab_close(&t);
    }
    view_done(&v);
}

enum { P_DISPATCH, P_NAME, P_VALUE, P_COUNT };

static const RocpdField pmc_fields[P_COUNT] = {
    {"dispatch_id", "dispatch_id", 0, 1},
    {"counter", "pmc_name|counter_name|name", 1, 1},
    {"value", "pmc_value|counter_value|value", 0, 1},
};

/* Value of a PMC column as a double; 0 when NULL or not a number. */
static int get_real(Tab* t, int c, double* out) {
    int ty = sqlite3_column_type(t->st, c);
    if (ty == SQLITE_INTEGER || ty == SQLITE_FLOAT) {
        *out = sqlite3_column_double(t->st, c);
        return isfinite(*out);
    }
    if (ty == SQLITE_TEXT) {
        const char* x = (const char*)sqlite3_column_text(t->st, c);
        char* e = NULL;
        errno = 0;
        *out = x ? strtod(x, &e) : 0;
        return x && e != x && *e == '\0' && errno == 0 && isfinite(*out);
    }
    return 0;
}

/* PMC counter values per dispatch: 4.x kernel_pmc_events, 3.x pmc_events or
 * counters_collection (the first view that maps; each holds the same values). */
static void rocpd_pmc(Src* s, const I64Map* ids) {
    static const char* const views[] = {"kernel_pmc_events", "pmc_events", "counters_collection"};
    for (size_t k = 0; k < sizeof(views) / sizeof(views[0]); k++) {
        Tab t;
        RocpdView v;
        int64_t kept = 0, orphan = 0;
        if (!rocpd_open(&v, s, views[k], &t, pmc_fields, P_COUNT, 1)) {
            view_done(&v);
            continue;
        }
        while (tab_next(&t)) {
            int64_t disp;
            double val;
            size_t nl;
            const char* name = get_text(&t, P_NAME, &nl);
            if (!get_int(&t, P_DISPATCH, &disp) || disp == LOAD_NULL || nl == 0) {
                continue;
            }
            if (!get_real(&t, P_VALUE, &val)) {
                Load_reject(s->core, s->f, 0, "%s: counter value not a number", t.where);
                continue;
            }
            int64_t id = I64Map_get(ids, disp);
            if (id <= 0) {
                orphan++;
                continue;
            }
            char* clean = Names_sanitize(name, nl);
            kept += LoadEvent_counter(s->core, s->f, id, clean, val);
            free(clean);
        }
        tab_close(&t);
        view_done(&v);
        if (orphan > 0) {
            Load_message(s->core, s->f, "rocpd view %s: %lld counter values of dispatches not in "
                                        "the kernels view: not kept", views[k],
                         (long long)orphan);
        }
        if (kept > 0 || orphan > 0) {
            return;
        }
    }
}

enum { A_OP, A_LEVEL, A_PID, A_AGENT, A_ADDR, A_SIZE, A_START, A_END, A_COUNT };

static const RocpdField alloc_fields[A_COUNT] = {
    {"type", "type", 1, 0},
    {"level", "level", 1, 0},
    {"pid", "pid|@track.pid", 0, 0},
    {"agent", "agent_abs_index|agent_absolute_index|@trackagent", 0, 0},
    {"address", "address", 0, 0},
    {"size", "size", 0, 1},
    {"start", "start", 0, 1},
    {"end", "end", 0, 0},
};

/* The memory_allocations view: each operation, with the bytes live at its level after it
 * (the Summary's peak). */
static void rocpd_allocs(Src* s) {
    Tab t = {0};
    RocpdView v;
    sqlite3_stmt* ins = NULL;
    AllocLive live[3] = {{0}}; /* REAL (or unnamed), VIRTUAL, SCRATCH */
    if (rocpd_open(&v, s, "memory_allocations", &t, alloc_fields, A_COUNT, 0) &&
        sqlite3_prepare_v2(TraceDb_handle(s->core->db),
                           "INSERT INTO mem_alloc(file_id, pid, agent, op, level, address, bytes,"
                           " start_ns, end_ns, live_bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
                           " ?9, ?10)", -1, &ins, NULL) == SQLITE_OK) {
        for (int i = 0; i < 3; i++) {
            AllocLive_init(&live[i]);
        }
        while (tab_next(&t)) {
            size_t ol, ll;
            const char* op = get_text(&t, A_OP, &ol);
            const char* level = get_text(&t, A_LEVEL, &ll);
            int64_t x[A_COUNT];
            int ok = 1;
            for (int i = A_PID; ok && i < A_COUNT; i++) {
                ok = get_int(&t, i, &x[i]);
            }
            if (!ok) {
                continue;
            }
            int lv = ll >= 7 && strncasecmp(level, "VIRTUAL", 7) == 0   ? 1
                     : ll >= 7 && strncasecmp(level, "SCRATCH", 7) == 0 ? 2
                                                                        : 0;
            int is_free;
            const char* why =
                AllocLive_rejected(op, ol, x[A_SIZE], x[A_START], x[A_END], &is_free);
            int64_t now = why ? 0 : AllocLive_apply(&live[lv], is_free, x[A_ADDR], x[A_SIZE]);
            if (!why && now < 0) {
                why = "live bytes at its level would pass 2^53 (8 PiB)";
            }
            if (why) {
                char* shown = Names_sanitize(op, ol > 40 ? 40 : ol);
                Load_reject(s->core, s->f, 0, "%s: allocation (%s, size %lld) not used: %s",
                            t.where, shown, (long long)x[A_SIZE], why);
                free(shown);
                continue;
            }
            sqlite3_bind_int64(ins, 1, s->f->id);
            const int64_t iv[] = {x[A_PID], x[A_AGENT]};
            for (int i = 0; i < 2; i++) {
                if (iv[i] != LOAD_NULL) {
                    sqlite3_bind_int64(ins, 2 + i, iv[i]);
                }
            }
            sqlite3_bind_text(ins, 4, Names_sanitize(op, ol), -1, free);
            sqlite3_bind_text(ins, 5, Names_sanitize(level, ll), -1, free);
            const int64_t nv[] = {x[A_ADDR], x[A_SIZE], x[A_START], x[A_END], now};
            for (int i = 0; i < 5; i++) {
                if (nv[i] != LOAD_NULL) {
                    sqlite3_bind_int64(ins, 6 + i, nv[i]);
                }
            }
            if (sqlite3_step(ins) == SQLITE_DONE) {
                s->f->rows++;
            }
            sqlite3_reset(ins);
            sqlite3_clear_bindings(ins);
        }
    }
    if (t.st) {
        tab_close(&t);
    }
    sqlite3_finalize(ins);
    for (int i = 0; i < 3; i++) {
        AllocLive_done(&live[i]);
    }
    view_done(&v);
}

/* The rocpd_info_agent view: the devices. */
static void rocpd_agents(Src* s) {
    Tab t;
    if (has_view(s, "rocpd_info_agent") &&
        tab_open(s, &t, "rocpd_info_agent",
                 "SELECT absolute_index, type, name, product_name FROM rocpd_info_agent"
                 " ORDER BY absolute_index") == DCU_OK) {
        sqlite3_stmt* ins = s->core->st[ST_AGENT];
        while (tab_next(&t)) {
            int64_t node;
            if (!get_int(&t, 0, &node)) {
                continue;
            }
            sqlite3_bind_int64(ins, 1, s->f->id);
            if (node != LOAD_NULL) {
                sqlite3_bind_int64(ins, 2, node);
            }
            for (int i = 1; i <= 3; i++) {
                size_t l;
                const char* v = get_text(&t, i, &l);
                sqlite3_bind_text(ins, 2 + i, Names_sanitize(v, l), -1, free);
            }
            if (sqlite3_step(ins) == SQLITE_DONE) {
                s->f->layer_rows[LAYER_AGENT]++;
                s->f->layer_grain[LAYER_AGENT] = 2;
                s->f->layer_rank[LAYER_AGENT] = RANK_DB;
                s->f->rows++;
            }
            sqlite3_reset(ins);
            sqlite3_clear_bindings(ins);
        }
        tab_close(&t);
    }
}

/* The process's command line (rocpd_info_process.command, schema 3 and 4): what was run,
 * shown beside the run's label (Runs screen and report). */
static void rocpd_process(Src* s) {
    sqlite3_stmt* st = NULL;
    sqlite3_stmt* ins = NULL;
    if (has_view(s, "rocpd_info_process") &&
        sqlite3_prepare_v2(s->db, "SELECT pid, command FROM rocpd_info_process", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(TraceDb_handle(s->core->db),
                           "INSERT INTO process_info(file_id, pid, command) VALUES(?1, ?2, ?3)",
                           -1, &ins, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char* cmd = (const char*)sqlite3_column_text(st, 1);
            if (!cmd || !*cmd) {
                continue;
            }
            size_t n = strlen(cmd);
            sqlite3_bind_int64(ins, 1, s->f->id);
            if (sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
                sqlite3_bind_int64(ins, 2, sqlite3_column_int64(st, 0));
            }
            sqlite3_bind_text(ins, 3, Names_sanitize(cmd, n < 4096 ? n : 4096), -1, free);
            sqlite3_step(ins);
            sqlite3_reset(ins);
            sqlite3_clear_bindings(ins);
        }
    }
    sqlite3_finalize(st); /* a view without the column: no command, nothing else lost */
    sqlite3_finalize(ins);
}

static void load_rocpd(Src* s) {
    s->f->format = "rocpd database (rocprofv3)";
    char version[64] = "?";
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(version, sizeof(version), "%s", (const char*)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (version[0] != '3' && version[0] != '4') {
        Load_message(s->core, s->f, "rocpd schema_version %s: versions 3 and 4 are known; "
                                    "reading the columns that map", version);
    }
    I64Map* ids = I64Map_new();
    rocpd_kernels(s, ids);
    rocpd_pmc(s, ids);
    I64Map_delete(ids);
    rocpd_regions(s);
    rocpd_copies(s);
    rocpd_allocs(s);
    rocpd_agents(s);
    rocpd_process(s);
}

/* ---- entry ---------------------------------------------------------------------------- */

DcuStatus LoadSqlite_file(LoaderCore* core, LoadFile* f, DcuError* err) {
    Src s = {0};
    s.core = core;
    s.f = f;
    DcuError oerr;
    Error_clear(&oerr);
    DcuStatus rc = open_ro(&s, &oerr);
    if (rc != DCU_OK) {
        /* the file can be opened but SQLite cannot read it (truncated, not a database,
         * locked by a writer): bad content, like a binary file posing as CSV */
        int code = s.locked ? SQLITE_BUSY : s.db ? sqlite3_errcode(s.db) & 0xff : SQLITE_CANTOPEN;
        if (code == SQLITE_CANTOPEN || code == SQLITE_PERM || code == SQLITE_IOERR) {
            rc = Error_set(err, DCU_ERR_IO, "%s", oerr.msg);
        } else {
            rc = DCU_OK;
            Load_message(core, f, "%s", oerr.msg);
            f->format = "skipped";
            f->note = xasprintf("SQLite database that cannot be read: %s", oerr.msg);
        }
    } else {
        if (has_view(&s, "rocpd_metadata") && has_view(&s, "kernels")) {
            load_rocpd(&s);
        } else if (has_table(&s, "rocpd_op") && has_table(&s, "rocpd_string")) {
            LoadRpd_read(core, f, s.db);
        } else if (LoadSummary_isDb(s.db)) {
            LoadSummary_read(core, f, s.db);
        } else if (LoadCompute_isDb(s.db)) {
            LoadCompute_readDb(core, f, s.db);
        } else if (has_prefix(&s, "HIPOPS_") || has_prefix(&s, "HIPCOPY_") ||
                   has_prefix(&s, "HIP_") || has_table(&s, "ROCPROF_KERNEL")) {
            load_hipprof(&s);
        } else if (has_table(&s, "KERN") || has_table(&s, "OPS") || has_table(&s, "HIP") ||
                   has_table(&s, "HSA") || has_table(&s, "COPY") || has_table(&s, "rocTX") ||
                   has_table(&s, "A")) {
            load_v1(&s);
        } else {
            f->format = "skipped";
            f->note = xstrdup(s.ntables == 0 ? "SQLite database without tables"
                                             : "SQLite database of unknown schema (not hipprof, "
                                               "rocprof results.db or rocpd)");
        }
        if (f->rows == 0 && f->rejected > 0 && !f->note) {
            /* every table failed (a truncated or corrupt file): say so in the Files table;
             * the messages name each table and error */
            f->note = xstrdup("SQLite database whose tables cannot be read (see load messages)");
        }
    }
    if (s.cut > 0) {
        Load_message(core, f, "%lld names or texts longer than %d bytes cut to that length",
                     (long long)s.cut, LOAD_MAX_NAME_BYTES);
    }
    budget_done(&s);
    for (int i = 0; i < s.ntables; i++) {
        free(s.tables[i].name);
    }
    free(s.tables);
    if (s.db && sqlite3_close(s.db) != SQLITE_OK) {
        sqlite3_close_v2(s.db);
    }
    copy_remove(&s);
    return rc;
}
