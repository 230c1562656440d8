/* user_sql.c - one user SQL statement, read-only, cancellable, into a ResultSet. */
#include "dcutop/user_sql.h"

#include <strings.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        return a2 && strcasecmp(a2, "load_extension") == 0 ? SQLITE_DENY : SQLITE_OK;
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

static int progress(void* p) {
    UserSqlOpts* o = p;
    if (o->poll && o->poll(o->ctx)) {
        o->interrupted = 1;
        return 1; /* SQLite stops the statement with SQLITE_INTERRUPT */
    }
    return 0;
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
    sqlite3_prepare_v2(h, "SELECT 1 FROM temp.sqlite_master, main.sqlite_master,"
                          " pragma_table_info('kernels', 'temp')", -1, &warm, NULL);
    sqlite3_finalize(warm);
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

DcuStatus UserSql_run(TraceDb* db, const char* sql, UserSqlOpts* opts, ResultSet** out,
                      DcuError* err) {
    UserSqlOpts none = {0};
    UserSqlOpts* o = opts ? opts : &none;
    sqlite3* h = TraceDb_handle(db);
    *out = NULL;
    o->interrupted = 0;
    /* no extension can be loaded, whatever the authorizer says */
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int*)NULL);
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
    sqlite3_progress_handler(h, 1000, progress, o);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        read_row(rs, st, kind);
    }
    sqlite3_progress_handler(h, 0, NULL, NULL);
    if (rc == SQLITE_INTERRUPT) {
        o->interrupted = 1;
        s = Error_set(err, DCU_ERR_SQL, "interrupted");
    } else if (rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "%s", sqlite3_errmsg(h));
    }
    for (int c = 0; c < n; c++) {
        const char* name = sqlite3_column_name(st, c);
        name = name ? name : "";
        /* a duration shows with a unit, as on the other screens; ->i holds it truncated */
        ColType t = kind[c] == K_TEXT || kind[c] == K_NULL ? CT_TEXT
                    : ends_with(name, "_ns")               ? CT_NS
                    : kind[c] == K_INT                     ? CT_INT
                                                           : CT_REAL;
        ResultSet_setColumn(rs, c, name, t);
    }
    free(kind);
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
