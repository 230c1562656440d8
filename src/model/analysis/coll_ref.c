/* coll_ref.c - nccl-tests / rccl-tests output as a reference bandwidth curve (coll_ref.h).
 *
 * The table nccl-tests prints (src/common.cu), after a header comment line naming the
 * columns:
 *   #       size         count      type   redop    root     time   algbw   busbw #wrong ...
 *          8388608       2097152     float     sum      -1    341.2   24.58   43.02      0 ...
 * Older versions have no root column; all_to_all and sendrecv print redop "none". The
 * column positions come from the header line when there is one, else from the row's width.
 * MPI launchers may prefix each line ("[1,0]<stdout>:"); that prefix is skipped. */
#include "dcutop/coll_ref.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcutop/collectives.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"

#define REF_MAX_BYTES (16 << 20)
#define MAX_TOK 32

void CollRef_init(CollRef* this) {
    memset(this, 0, sizeof(*this));
}

void CollRef_done(CollRef* this) {
    for (int i = 0; i < this->n; i++) {
        free(this->c[i].name);
        free(this->c[i].rows);
    }
    free(this->c);
    free(this->warning);
    memset(this, 0, sizeof(*this));
}

/* Splits line (modified) into whitespace-separated tokens; returns their count. */
static int tokens(char* line, char** tok) {
    int n = 0;
    char* p = line;
    while (*p && n < MAX_TOK) {
        while (*p && isspace((unsigned char)*p)) {
            p++;
        }
        if (!*p) {
            break;
        }
        tok[n++] = p;
        while (*p && !isspace((unsigned char)*p)) {
            p++;
        }
        if (*p) {
            *p++ = '\0';
        }
    }
    return n;
}

static int whole(const char* s, int64_t* out) {
    char* end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0) {
        return 0;
    }
    *out = v;
    return 1;
}

static int real(const char* s, double* out) {
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0) {
        return 0;
    }
    *out = v;
    return 1;
}

typedef struct {
    int size, time, algbw, busbw; /* token positions; -1: from the row's width */
} Layout;

/* The header line's columns, counted from "size" (the '#' removed). 1 when it is one. */
static int header(char** tok, int n, Layout* l) {
    int size = -1, time = -1, alg = -1, bus = -1;
    for (int i = 0; i < n; i++) {
        if (strcmp(tok[i], "size") == 0 && size < 0) {
            size = i;
        } else if (strcmp(tok[i], "time") == 0 && time < 0) {
            time = i;
        } else if (strcmp(tok[i], "algbw") == 0 && alg < 0) {
            alg = i;
        } else if (strcmp(tok[i], "busbw") == 0 && bus < 0) {
            bus = i;
        }
    }
    if (size < 0 || time <= size || alg <= size || bus <= size) {
        return 0; /* the row's size comes first; a line naming them otherwise is no header */
    }
    *l = (Layout){0, time - size, alg - size, bus - size};
    return 1;
}

/* The collective from a file name or the "Collective test starting" line. */
static int type_from(const char* s, char* type) {
    static const char* const known[] = {"all_reduce", "all_gather", "reduce_scatter",
                                        "alltoall", "all_to_all", "broadcast", "sendrecv",
                                        "hypercube", "gather", "scatter", "reduce"};
    const char* base = strrchr(s, '/');
    base = base ? base + 1 : s;
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strstr(base, known[i]) && strcmp(known[i], "hypercube") != 0) {
            Collectives_typeOf(known[i], type, 24);
            return 1;
        }
    }
    return 0;
}

static int cmp_row(const void* a, const void* b) {
    const CollRefRow *x = a, *y = b;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

typedef struct {
    const char* name;
    int bad;
    char first[200];
} Bad;

static void bad_line(Bad* b, long line, const char* why) {
    if (b->bad++ == 0) {
        snprintf(b->first, sizeof(b->first), "%s:%ld: %s", b->name, line, why);
    }
}

/* One table row into c (layout l or, without a header, by width). */
static void row(CollRefCurve* c, char** tok, int n, const Layout* hl, int have_header, Bad* b,
                long line) {
    Layout l = *hl;
    if (!have_header) {
        /* size count type redop [root] time algbw busbw #wrong, once (out-of-place only) or
         * twice: 9 or 13 columns with root, 8 or 12 without */
        l = n % 2 == 1 ? (Layout){0, 5, 6, 7} : (Layout){0, 4, 5, 6};
    }
    int64_t bytes;
    CollRefRow r;
    int need = l.busbw > l.time ? l.busbw : l.time;
    need = l.algbw > need ? l.algbw : need;
    if (n <= need) {
        bad_line(b, line, "too few columns for a table row");
        return;
    }
    if (!whole(tok[l.size], &bytes) || !real(tok[l.time], &r.time_us) ||
        !real(tok[l.algbw], &r.algbw) || !real(tok[l.busbw], &r.busbw)) {
        bad_line(b, line, "size, time, algbw or busbw is not a number");
        return;
    }
    if (bytes == 0) {
        return; /* nccl-tests prints size 0 rows: no bandwidth to compare */
    }
    r.bytes = bytes;
    c->rows = xrealloc(c->rows, sizeof(CollRefRow) * (size_t)(c->n + 1));
    c->rows[c->n++] = r;
}

DcuStatus CollRef_parse(CollRef* this, const char* text, size_t len, const char* name,
                        const char* type, DcuError* err) {
    CollRefCurve c;
    memset(&c, 0, sizeof(c));
    Bad b = {name, 0, ""};
    Layout l = {0, 0, 0, 0};
    int have_header = 0, found_type = 0;
    if (type) {
        Collectives_typeOf(type, c.type, sizeof(c.type));
        found_type = strcmp(c.type, "other") != 0;
        if (!found_type) {
            return Error_set(err, DCU_ERR_PARSE, "%s: unknown collective '%s'", name, type);
        }
    }
    long lineno = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') {
            j++;
        }
        lineno++;
        char* line = xstrndup(text + i, j - i);
        i = j + 1;
        char* p = line;
        if (*p == '[') { /* "[1,0]<stdout>:" of an MPI launcher */
            char* colon = strchr(p, ':');
            p = colon ? colon + 1 : p;
        }
        char* tok[MAX_TOK];
        if (*p == '#' || (*p == ' ' && strchr(p, '#') && p[strspn(p, " \t")] == '#')) {
            p = strchr(p, '#') + 1;
            if (!found_type && strstr(p, "Collective test starting:")) {
                found_type = type_from(strstr(p, ":") + 1, c.type);
            }
            int n = tokens(p, tok);
            if (!have_header && header(tok, n, &l)) {
                have_header = 1;
            }
            free(line);
            continue;
        }
        int n = tokens(p, tok);
        int64_t first;
        if (n > 0 && whole(tok[0], &first)) {
            row(&c, tok, n, &l, have_header, &b, lineno);
        } else if (n > 0 && isdigit((unsigned char)tok[0][0])) {
            bad_line(&b, lineno, "a table row whose size is not a whole number");
        } /* else: a log line (NCCL INFO ...), not the table's */
        free(line);
    }
    if (!found_type) {
        found_type = type_from(name, c.type);
    }
    if (!found_type || c.n == 0) {
        free(c.rows);
        if (c.n == 0 && b.bad) {
            return Error_set(err, DCU_ERR_PARSE, "%s (no table row read)", b.first);
        }
        return Error_set(err, DCU_ERR_PARSE, "%s: %s", name,
                         c.n == 0 ? "no nccl-tests table row"
                                  : "cannot tell the collective: give it as TYPE=FILE, e.g. "
                                    "all_gather=FILE");
    }
    qsort(c.rows, (size_t)c.n, sizeof(CollRefRow), cmp_row);
    int k = 0; /* one row per size: the last of equal sizes */
    for (int i = 0; i < c.n; i++) {
        if (k > 0 && c.rows[k - 1].bytes == c.rows[i].bytes) {
            c.rows[k - 1] = c.rows[i];
        } else {
            c.rows[k++] = c.rows[i];
        }
    }
    c.n = k;
    c.name = xstrdup(name);
    this->c = xrealloc(this->c, sizeof(CollRefCurve) * (size_t)(this->n + 1));
    this->c[this->n++] = c;
    if (b.bad) {
        char* w = b.bad > 1 ? xasprintf("%s (and %d more bad lines)", b.first, b.bad - 1)
                            : xstrdup(b.first);
        if (this->warning) {
            char* both = xasprintf("%s; %s", this->warning, w);
            free(w);
            w = both;
        }
        free(this->warning);
        this->warning = w;
    }
    return DCU_OK;
}

DcuStatus CollRef_load(CollRef* this, const char* spec, DcuError* err) {
    const char* eq = strchr(spec, '=');
    char* type = NULL;
    const char* path = spec;
    if (eq && eq > spec && !memchr(spec, '/', (size_t)(eq - spec))) {
        /* TYPE=FILE when TYPE names a collective; else '=' is part of the file name */
        char t[24];
        char* head = xstrndup(spec, (size_t)(eq - spec));
        if (strcmp(Collectives_typeOf(head, t, sizeof(t)), "other") != 0) {
            type = head;
            path = eq + 1;
        } else {
            free(head);
        }
    }
    int fd = SafeFile_open(path, NULL, err);
    if (fd < 0) {
        char why[sizeof(err->msg)];
        snprintf(why, sizeof(why), "%s", err->msg);
        Error_set(err, DCU_ERR_IO, "%s: %s", path, why); /* which of the files given */
        free(type);
        return DCU_ERR_IO;
    }
    FILE* f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        free(type);
        return Error_set(err, DCU_ERR_IO, "%s: %s", path, strerror(errno));
    }
    char* buf = xmalloc(REF_MAX_BYTES + 1);
    size_t n = fread(buf, 1, REF_MAX_BYTES + 1, f);
    int rerr = ferror(f);
    fclose(f);
    DcuStatus s;
    if (rerr) {
        s = Error_set(err, DCU_ERR_IO, "%s: cannot be read", path);
    } else if (n > REF_MAX_BYTES) {
        s = Error_set(err, DCU_ERR_IO, "%s: larger than 16 MiB: not an nccl-tests output",
                      path);
    } else {
        s = CollRef_parse(this, buf, n, path, type, err);
    }
    free(buf);
    free(type);
    return s;
}

double CollRef_busbw(const CollRef* this, const char* type, int64_t bytes) {
    for (int i = 0; this && i < this->n; i++) {
        const CollRefCurve* c = &this->c[i];
        if (strcmp(c->type, type) != 0 || c->n == 0 || bytes <= 0) {
            continue;
        }
        if (bytes < c->rows[0].bytes || bytes > c->rows[c->n - 1].bytes) {
            return NAN;
        }
        for (int k = 0; k < c->n; k++) {
            if (c->rows[k].bytes == bytes) {
                return c->rows[k].busbw;
            }
            if (c->rows[k].bytes > bytes) {
                const CollRefRow *a = &c->rows[k - 1], *b = &c->rows[k];
                double t = (log((double)bytes) - log((double)a->bytes)) /
                           (log((double)b->bytes) - log((double)a->bytes));
                return a->busbw + t * (b->busbw - a->busbw);
            }
        }
    }
    return NAN;
}

DcuStatus CollRef_store(TraceDb* db, const CollRef* this, DcuError* err) {
    sqlite3* h = TraceDb_handle(db);
    sqlite3_stmt* st = NULL;
    if (sqlite3_exec(h, "DELETE FROM coll_ref", NULL, NULL, NULL) != SQLITE_OK) {
        return Error_set(err, DCU_ERR_SQL, "coll_ref: %s", sqlite3_errmsg(h));
    }
    DcuStatus s = TraceDb_prepare(db, "INSERT INTO coll_ref(type, bytes, time_us, algbw, busbw,"
                                      " file) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                                  &st, err);
    for (int i = 0; s == DCU_OK && i < this->n; i++) {
        const CollRefCurve* c = &this->c[i];
        for (int k = 0; s == DCU_OK && k < c->n; k++) {
            sqlite3_bind_text(st, 1, c->type, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 2, c->rows[k].bytes);
            sqlite3_bind_double(st, 3, c->rows[k].time_us);
            sqlite3_bind_double(st, 4, c->rows[k].algbw);
            sqlite3_bind_double(st, 5, c->rows[k].busbw);
            sqlite3_bind_text(st, 6, c->name, -1, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE) {
                s = Error_set(err, DCU_ERR_SQL, "coll_ref: %s", sqlite3_errmsg(h));
            }
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    return s;
}

DcuStatus CollRef_fromDb(TraceDb* db, CollRef* this, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT type, file, bytes, time_us, algbw, busbw FROM"
                                      " coll_ref ORDER BY type, file, bytes",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    CollRefCurve* c = NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char* type = (const char*)sqlite3_column_text(st, 0);
        const char* file = (const char*)sqlite3_column_text(st, 1);
        if (!c || strcmp(c->type, type ? type : "") != 0 ||
            strcmp(c->name, file ? file : "") != 0) {
            this->c = xrealloc(this->c, sizeof(CollRefCurve) * (size_t)(this->n + 1));
            c = &this->c[this->n++];
            memset(c, 0, sizeof(*c));
            snprintf(c->type, sizeof(c->type), "%s", type ? type : "");
            c->name = xstrdup(file ? file : "");
        }
        c->rows = xrealloc(c->rows, sizeof(CollRefRow) * (size_t)(c->n + 1));
        c->rows[c->n++] = (CollRefRow){sqlite3_column_int64(st, 2), sqlite3_column_double(st, 3),
                                       sqlite3_column_double(st, 4),
                                       sqlite3_column_double(st, 5)};
    }
    sqlite3_finalize(st);
    return DCU_OK;
}
