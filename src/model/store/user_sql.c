/* user_sql.c - one user SQL statement, read-only, cancellable, into a ResultSet. */
#include "dcutop/user_sql.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/statvfs.h>
#include <time.h>

#include "dcutop/sql_views.h"
#include "dcutop/xalloc.h"

/* Pragmas that only report, whatever their argument (table_info(kernels) ...). */
static const char* const info_pragmas[] = {
    "table_info",   "table_xinfo",   "index_list",  "index_info",   "index_xinfo",
    "foreign_key_list", "function_list", "pragma_list", "collation_list", "database_list",
    "compile_options", "module_list", NULL};
/* Pragmas read-only in their query form only (no argument): with one, they would set. */
static const char* const query_pragmas[] = {"user_version", "schema_version", "encoding",
                                            "page_size",    "page_count",     NULL};

/* Virtual tables a read may name without CREATE VIRTUAL TABLE. */
static const char* const eponymous[] = {
    "json_each",           "json_tree",           "dbstat",
    "pragma_table_info",   "pragma_table_xinfo",  "pragma_index_list",
    "pragma_index_info",   "pragma_index_xinfo",  "pragma_foreign_key_list",
    "pragma_function_list", "pragma_pragma_list", "pragma_collation_list",
    "pragma_database_list", "pragma_compile_options", "pragma_module_list",
    "pragma_user_version", "pragma_schema_version", "pragma_encoding",
    "pragma_page_size",    "pragma_page_count",   NULL};

static int in_list(const char* const* list, const char* name) {
    for (int i = 0; name && list[i]; i++) {
        if (strcasecmp(list[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The read-only authorizer: SQLite asks it for every table, column, function and pragma
 * a statement touches while it is prepared. */
static int authorize(void* ctx, int action, const char* a1, const char* a2, const char* dbname,
                     const char* inner) {
    (void)ctx;
    (void)dbname;
    (void)inner;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    case SQLITE_FUNCTION: /* a1 unused, a2 the function name */
        /* fts3_tokenizer() hands out and replaces C function pointers (M3, issue 26) */
        return a2 && (strcasecmp(a2, "load_extension") == 0 ||
                      strcasecmp(a2, "fts3_tokenizer") == 0)
                   ? SQLITE_DENY
                   : SQLITE_OK;
    case SQLITE_PRAGMA: /* a1 the pragma, a2 its argument or NULL */
        return in_list(info_pragmas, a1) || (!a2 && in_list(query_pragmas, a1)) ? SQLITE_OK
                                                                                : SQLITE_DENY;
    default: /* INSERT, UPDATE, DELETE, CREATE_*, DROP_*, ALTER, ATTACH, DETACH, TRANSACTION,
                SAVEPOINT, ANALYZE, REINDEX, CREATE_VTABLE ... */
        return SQLITE_DENY;
    }
}

void UserSql_authorize(TraceDb* db, int on) {
    sqlite3_set_authorizer(TraceDb_handle(db), on ? authorize : NULL, NULL);
}

void UserSql_interrupt(TraceDb* db) {
    sqlite3_interrupt(TraceDb_handle(db));
}

static UserSqlBudget budget = {USER_SQL_TIME_S, USER_SQL_MEMORY, USER_SQL_TEMP};

void UserSql_setBudget(const UserSqlBudget* b) {
    budget = *b;
}

const UserSqlBudget* UserSql_budget(void) {
    return &budget;
}

/* One statement's run: the caller's options and what the budget has seen. */
typedef struct Run_ {
    UserSqlOpts* o;
    struct timespec t0;
    int64_t temp_free0; /* free bytes of the temporary folder at the start; -1: unknown */
    unsigned calls;
    enum { OVER_NONE, OVER_TIME, OVER_TEMP } over;
} Run;

static int64_t temp_free(void) {
    struct statvfs v;
    return statvfs(TraceDb_tempDir(), &v) == 0 ? (int64_t)v.f_bavail * (int64_t)v.f_frsize : -1;
}

static double elapsed_s(const struct timespec* t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Every 1000 VM steps: Esc, then the time budget, then (every 64th call) the temp folder. */
static int progress(void* p) {
    Run* run = p;
    UserSqlOpts* o = run->o;
    if (o->poll && o->poll(o->ctx)) {
        o->interrupted = 1;
        return 1; /* SQLite stops the statement with SQLITE_INTERRUPT */
    }
    if (budget.time_s > 0 && elapsed_s(&run->t0) > budget.time_s) {
        run->over = OVER_TIME;
        return 1;
    }
    if (budget.temp > 0 && run->temp_free0 >= 0 && (run->calls++ & 63) == 0) {
        int64_t now = temp_free();
        if (now >= 0 && run->temp_free0 - now > budget.temp) {
            run->over = OVER_TEMP;
            return 1;
        }
    }
    return 0;
}

/* "1 GiB", "512 MiB", "300 KiB" */
static void size_text(char* buf, size_t cap, int64_t v) {
    static const char* const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    double x = (double)v;
    while (x >= 1024 && u < 5) {
        x /= 1024;
        u++;
    }
    snprintf(buf, cap, x == (double)(int64_t)x ? "%.0f %s" : "%.1f %s", x, unit[u]);
}

static const char budget_hint[] =
    "add a LIMIT or a WHERE, or set DCUTOP_SQL_BUDGET=TIME,MEMORY,TEMP (e.g. 300s,4G,20G; 0: "
    "no bound)";

/* The message for a statement that stopped with rc: which budget, or what SQLite said. */
/* SQLite's own limit on a string or blob (SQLITE_MAX_LENGTH), which a statement's limit
 * never raises. */
enum { SQL_DEFAULT_LENGTH = 1000000000 };

/* 1 when the memory budget, not SQLite's own limit, bounds a string's length. */
static int length_capped(void) {
    return budget.memory > 0 && budget.memory / 2 < SQL_DEFAULT_LENGTH;
}

static DcuStatus step_error(const Run* run, sqlite3* h, int rc, DcuError* err) {
    char n[32];
    if (run->over == OVER_TIME) {
        return Error_set(err, DCU_ERR_SQL, "stopped: the statement ran past its time budget "
                         "(%g s); %s", budget.time_s, budget_hint);
    }
    if (run->over == OVER_TEMP) {
        size_text(n, sizeof(n), budget.temp);
        return Error_set(err, DCU_ERR_SQL, "stopped: the statement's temporary files in %s "
                         "grew past its budget (%s); %s", TraceDb_tempDir(), n, budget_hint);
    }
    if (rc == SQLITE_INTERRUPT) {
        return Error_set(err, DCU_ERR_SQL, "interrupted");
    }
    /* a string or blob held whole in memory (group_concat, a long concatenation): its length
     * limit is half the memory budget while the statement runs, so the budget is what trips,
     * and before SQLite's own 1 GB limit */
    if ((rc == SQLITE_NOMEM || (rc == SQLITE_TOOBIG && length_capped())) && budget.memory > 0) {
        size_text(n, sizeof(n), budget.memory);
        return Error_set(err, DCU_ERR_SQL, "stopped: the statement needed more memory than its "
                         "budget (%s); %s", n, budget_hint);
    }
    if (rc == SQLITE_FULL || rc == SQLITE_IOERR) { /* sorts and temp tables spill there */
        return Error_set(err, DCU_ERR_SQL, "the statement's temporary files in %s are out of "
                         "room (%s); free space there, point SQLITE_TMPDIR or TMPDIR at a "
                         "larger folder, or add a LIMIT or a WHERE",
                         TraceDb_tempDir(), sqlite3_errmsg(h));
    }
    return Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(h));
}

/* Column kinds seen so far: the column's type is decided after the last row. */
enum { K_NULL, K_INT, K_REAL, K_TEXT };

static int ends_with(const char* s, const char* suf) {
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Prepares the one statement of sql under the authorizer. */
static DcuStatus prepare(TraceDb* db, const char* sql, sqlite3_stmt** st, DcuError* err) {
    sqlite3* h = TraceDb_handle(db);
    const char* tail = NULL;
    *st = NULL;
    /* the first statement after a schema change (the views just created) re-reads the schema,
     * which SQLite reports to the authorizer as writes to sqlite_master: do that first */
    sqlite3_stmt* warm = NULL;
    sqlite3_prepare_v2(h, "SELECT 1 FROM temp.sqlite_master, main.sqlite_master", -1, &warm,
                       NULL);
    sqlite3_finalize(warm);
    /* so does the first use of an eponymous virtual table (json_each, dbstat, pragma_*):
     * SQLite builds it then, and under the authorizer that fails with "vtable constructor
     * failed". Build the ones a read may use now; one SQLite lacks is simply not there. */
    for (int i = 0; eponymous[i]; i++) {
        char* q = sqlite3_mprintf("SELECT 1 FROM \"%w\"", eponymous[i]);
        sqlite3_prepare_v2(h, q, -1, &warm, NULL);
        sqlite3_finalize(warm);
        sqlite3_free(q);
    }
    UserSql_authorize(db, 1);
    int rc = sqlite3_prepare_v2(h, sql, -1, st, &tail);
    DcuStatus s = DCU_OK;
    if (rc != SQLITE_OK) {
        s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(h));
    } else if (!*st) {
        s = Error_set(err, DCU_ERR_SQL, "no SQL statement");
    } else if (tail && *tail) {
        sqlite3_stmt* more = NULL; /* only comments and blanks may follow */
        rc = sqlite3_prepare_v2(h, tail, -1, &more, NULL);
        if (rc != SQLITE_OK || more) {
            s = Error_set(err, DCU_ERR_SQL, "one statement at a time (text after the first ';')");
        }
        sqlite3_finalize(more);
    }
    /* the authorizer has said no to any write; this is the second lock on the door */
    if (s == DCU_OK && !sqlite3_stmt_readonly(*st)) {
        s = Error_set(err, DCU_ERR_SQL, "not authorized: statements may only read");
    }
    UserSql_authorize(db, 0);
    if (s != DCU_OK) {
        sqlite3_finalize(*st);
        *st = NULL;
    }
    return s;
}

static void read_row(ResultSet* rs, sqlite3_stmt* st, int* kind) {
    int r = ResultSet_addRow(rs);
    for (int c = 0; c < rs->ncols; c++) {
        int t = sqlite3_column_type(st, c);
        if (t == SQLITE_NULL) {
            continue;
        }
        RsCell* cell = ResultSet_cell(rs, r, c);
        if (t == SQLITE_INTEGER) {
            ResultSet_setInt(rs, r, c, sqlite3_column_int64(st, c));
            kind[c] = kind[c] > K_INT ? kind[c] : K_INT;
        } else if (t == SQLITE_FLOAT) {
            ResultSet_setReal(rs, r, c, sqlite3_column_double(st, c));
            cell->i = (int64_t)cell->d;
            kind[c] = kind[c] > K_REAL ? kind[c] : K_REAL;
        } else {
            cell->d = NAN; /* marks a text value (sql_output.c) */
            kind[c] = K_TEXT;
        }
        const unsigned char* txt = sqlite3_column_text(st, c);
        int n = sqlite3_column_bytes(st, c);
        cell->s = xstrndup(txt ? (const char*)txt : "", (size_t)n);
        cell->null = 0;
    }
}

/* .schema: the stable views and their columns, in creation (SCHEMA.md) order */
static const char schema_sql[] =
    "SELECT v.name AS view, c.name AS column FROM temp.sqlite_master v,"
    " pragma_table_info(v.name, 'temp') c WHERE v.type = 'view' AND v.name NOT LIKE 'dcu\\_%'"
    " ESCAPE '\\' ORDER BY v.rowid, c.cid";

static int is_dot(const char* sql, const char* cmd) {
    while (*sql == ' ' || *sql == '\t') {
        sql++;
    }
    size_t n = strlen(cmd);
    if (strncmp(sql, cmd, n) != 0) {
        return 0;
    }
    for (sql += n; *sql == ' ' || *sql == '\t' || *sql == ';' || *sql == '\n'; sql++) {
    }
    return *sql == '\0';
}

/* Sets the columns' keys and types from the kinds seen in the rows so far. */
static void set_columns(ResultSet* rs, sqlite3_stmt* st, const int* kind) {
    for (int c = 0; c < rs->ncols; c++) {
        const char* name = sqlite3_column_name(st, c);
        name = name ? name : "";
        /* a duration shows with a unit, as on the other screens; ->i holds it truncated */
        ColType t = kind[c] == K_TEXT || kind[c] == K_NULL ? CT_TEXT
                    : ends_with(name, "_ns")               ? CT_NS
                    : kind[c] == K_INT                     ? CT_INT
                                                           : CT_REAL;
        ResultSet_setColumn(rs, c, name, t);
    }
}

/* Empties rs for the next block (its columns stay). */
static void clear_rows(ResultSet* rs) {
    for (int i = 0; i < rs->nrows * rs->ncols; i++) {
        free(rs->cells[i].s);
    }
    rs->nrows = 0;
}

/* Steps st to the end (or a budget, or max_rows) into rs, handing blocks to the sink. */
static int step_all(sqlite3_stmt* st, ResultSet* rs, Run* run, int* kind, int* stop) {
    UserSqlOpts* o = run->o;
    size_t bytes = 0;
    int64_t skipped = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (skipped < o->skip_rows) {
            skipped++;
            continue;
        }
        if (o->max_rows > 0 && o->rows == o->max_rows) {
            o->truncated = 1;
            return SQLITE_DONE;
        }
        read_row(rs, st, kind);
        o->rows++;
        for (int c = 0; c < rs->ncols; c++) {
            bytes += (size_t)sqlite3_column_bytes(st, c);
        }
        if (o->sink && (rs->nrows == USER_SQL_BLOCK || bytes > (4u << 20))) {
            set_columns(rs, st, kind);
            if (o->sink(o->sink_ctx, rs, 0)) {
                *stop = 1;
                return SQLITE_DONE;
            }
            clear_rows(rs);
            memset(kind, 0, sizeof(int) * (size_t)rs->ncols);
            bytes = 0;
        }
    }
    return rc;
}

DcuStatus UserSql_run(TraceDb* db, const char* sql, UserSqlOpts* opts, ResultSet** out,
                      DcuError* err) {
    UserSqlOpts none = {0};
    UserSqlOpts* o = opts ? opts : &none;
    sqlite3* h = TraceDb_handle(db);
    *out = NULL;
    o->interrupted = 0;
    o->rows = 0;
    o->truncated = 0;
    /* no extension can be loaded, and no tokenizer pointer read or replaced, whatever the
     * authorizer says */
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int*)NULL);
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int*)NULL);
    DcuStatus s = SqlViews_create(db, err);
    sqlite3_stmt* st = NULL;
    if (is_dot(sql, ".schema")) {
        sql = schema_sql;
    }
    if (s == DCU_OK) {
        s = prepare(db, sql, &st, err);
    }
    if (s != DCU_OK) {
        return s;
    }
    int n = sqlite3_column_count(st);
    ResultSet* rs = ResultSet_newDynamic("sql", n);
    int* kind = xcalloc((size_t)(n > 0 ? n : 1), sizeof(int));
    Run run = {o, {0, 0}, budget.temp > 0 ? temp_free() : -1, 0, OVER_NONE};
    clock_gettime(CLOCK_MONOTONIC, &run.t0);
    /* the memory budget: SQLite's heap as it is now, plus the budget (the trace's own pages
     * are already counted); the old limit comes back when the statement ends */
    sqlite3_int64 old_limit = sqlite3_hard_heap_limit64(-1);
    if (budget.memory > 0) {
        sqlite3_int64 lim = sqlite3_memory_used() + budget.memory;
        sqlite3_hard_heap_limit64(old_limit > 0 && old_limit < lim ? old_limit : lim);
    }
    int old_length = sqlite3_limit(h, SQLITE_LIMIT_LENGTH, -1);
    if (length_capped() && budget.memory / 2 < old_length) {
        sqlite3_limit(h, SQLITE_LIMIT_LENGTH, (int)(budget.memory / 2));
    }
    sqlite3_progress_handler(h, 1000, progress, &run);
    int stop = 0;
    int rc = step_all(st, rs, &run, kind, &stop);
    sqlite3_progress_handler(h, 0, NULL, NULL);
    sqlite3_limit(h, SQLITE_LIMIT_LENGTH, old_length);
    sqlite3_hard_heap_limit64(old_limit);
    if (o->interrupted || (rc == SQLITE_INTERRUPT && run.over == OVER_NONE)) {
        o->interrupted = 1;
        s = Error_set(err, DCU_ERR_SQL, "interrupted");
    } else if (rc != SQLITE_DONE) {
        s = step_error(&run, h, rc, err);
    }
    set_columns(rs, st, kind);
    free(kind);
    sqlite3_finalize(st);
    if (s == DCU_OK && o->sink && !stop && o->sink(o->sink_ctx, rs, 1)) {
        stop = 1;
    }
    if (s == DCU_OK && stop) {
        s = Error_set(err, DCU_ERR_IO, "the rows could not be written");
    }
    if (s != DCU_OK || o->sink) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
