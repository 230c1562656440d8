/* user_sql.h - runs one SQL statement typed by the user (--sql, the `;` prompt) over the
 * stable views (sql_views.h) and returns its rows as a ResultSet.
 *
 * Safety: while the statement is prepared an authorizer allows only reads: SELECT, reading
 * any table or view, functions other than load_extension, recursive CTEs, and the read-only
 * pragmas listed in SCHEMA.md (without an argument). Writes, CREATE/DROP/ALTER, ATTACH and
 * DETACH, transactions, and any other pragma are refused with SQLite's "not authorized";
 * extension loading is off at the C level too. Only one statement is run.
 *
 * Cancelling: UserSql_interrupt() (safe from a signal handler: it only calls
 * sqlite3_interrupt) or the poll callback returning nonzero stops the query; the result is
 * DCU_ERR_SQL "interrupted" and opts->interrupted is set. */
#ifndef DCUTOP_USER_SQL_H
#define DCUTOP_USER_SQL_H

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* Called every few thousand SQLite VM steps; returns nonzero to stop the query (Esc). */
typedef int (*UserSqlPoll)(void* ctx);

typedef struct UserSqlOpts_ {
    UserSqlPoll poll; /* may be NULL */
    void* ctx;        /* for poll (borrowed) */
    int interrupted;  /* out: 1 when the query was stopped */
} UserSqlOpts;

/* Creates the views if needed, prepares sql (".schema": the views and their columns) under the authorizer and steps it to the end.
 * On success *out owns a ResultSet named "sql" whose columns are the statement's (keys =
 * SQLite's column names). Every non-NULL cell keeps SQLite's own text of the value in ->s
 * (what the sqlite3 CLI prints); numeric columns (every value an integer or real) also
 * have ->i / ->d and type CT_INT or CT_REAL (CT_NS for a column named *_ns, ->i then truncating a real); a
 * text value has ->d = NAN, so a mixed column still tells its numbers from its text.
 * On failure err holds SQLite's message. opts may be NULL. */
DcuStatus UserSql_run(TraceDb* db, const char* sql, UserSqlOpts* opts, ResultSet** out,
                      DcuError* err);

/* Stops a running UserSql_run() on db (sqlite3_interrupt: async-signal-safe in practice). */
void UserSql_interrupt(TraceDb* db);

/* Installs/removes the read-only authorizer by itself (for tests and UserSql_run). */
void UserSql_authorize(TraceDb* db, int on);

#endif
