/* user_sql.h - runs one SQL statement typed by the user (--sql, the `;` prompt) over the
 * stable views (sql_views.h) and returns its rows as a ResultSet.
 *
 * Safety: while the statement is prepared an authorizer allows only reads: SELECT, reading
 * any table or view, functions other than load_extension, recursive CTEs, and the read-only
 * pragmas listed in SCHEMA.md (without an argument). Writes, CREATE/DROP/ALTER, ATTACH and
 * DETACH, transactions, and any other pragma are refused with SQLite's "not authorized";
 * extension loading is off at the C level too. Only one statement is run.
 *
 * FTS3 tokenizer access (fts3_tokenizer(), which hands out and replaces C function
 * pointers) is off on the connection (SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER = 0) and the
 * function is refused by the authorizer.
 *
 * Cancelling: UserSql_interrupt() (safe from a signal handler: it only calls
 * sqlite3_interrupt) or the poll callback returning nonzero stops the query; the result is
 * DCU_ERR_SQL "interrupted" and opts->interrupted is set.
 *
 * Budgets (UserSqlBudget): every statement stops, with a message that names the budget and
 * how to change it, when it runs longer than time_s, when SQLite needs more than `memory`
 * bytes of heap beyond what it held when the statement started (sqlite3_hard_heap_limit64,
 * lifted again afterwards), or when the free space of the temporary folder (TraceDb_tempDir)
 * shrinks by more than `temp` bytes while it runs (SQLite's sorts and temporary tables spill
 * there). A full temporary folder is reported with the folder's name. */
#ifndef DCUTOP_USER_SQL_H
#define DCUTOP_USER_SQL_H

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* Called every few thousand SQLite VM steps; returns nonzero to stop the query (Esc). */
typedef int (*UserSqlPoll)(void* ctx);

/* Receives the rows in blocks (at most USER_SQL_BLOCK rows or about 4 MiB of text each):
 * rows is borrowed and emptied after the call. The last call has last = 1, possibly with no
 * rows, so a sink always sees the columns. Returns nonzero to stop (a write error). */
typedef int (*UserSqlSink)(void* ctx, const ResultSet* rows, int last);
#define USER_SQL_BLOCK 1000

/* Per statement; 0 in a field: no bound. */
typedef struct UserSqlBudget_ {
    double time_s;  /* wall time, seconds */
    int64_t memory; /* SQLite heap beyond what it held at the start, bytes */
    int64_t temp;   /* space taken from the temporary folder, bytes */
} UserSqlBudget;
#define USER_SQL_TIME_S 60.0
#define USER_SQL_MEMORY (1LL << 30)
#define USER_SQL_TEMP (4LL << 30)
/* The rows the prompt keeps (UserSqlOpts.max_rows there). */
#define USER_SQL_WINDOW 10000

/* The budget every later UserSql_run uses (default: 60 s, 1 GiB, 4 GiB; --sql-budget). */
void UserSql_setBudget(const UserSqlBudget* b);
const UserSqlBudget* UserSql_budget(void);

typedef struct UserSqlOpts_ {
    UserSqlPoll poll; /* may be NULL */
    void* ctx;        /* for poll (borrowed) */
    int interrupted;  /* out: 1 when the query was stopped (poll or UserSql_interrupt) */
    UserSqlSink sink; /* may be NULL: rows go to *out; else to sink, and *out is NULL */
    void* sink_ctx;   /* for sink (borrowed) */
    int64_t skip_rows; /* step past this many rows first, keeping none (the prompt's pages) */
    int64_t max_rows; /* without a sink: keep the first max_rows rows, then stop (0: all) */
    int64_t rows;     /* out: rows kept (after the skipped ones) */
    int truncated;    /* out: 1 when max_rows stopped the statement (more rows may follow) */
} UserSqlOpts;

/* Creates the views if needed, prepares sql (".schema": the views and their columns) under the authorizer and steps it to the end.
 * On success *out owns a ResultSet named "sql" whose columns are the statement's (keys =
 * SQLite's column names). Every non-NULL cell keeps SQLite's own text of the value in ->s
 * (what the sqlite3 CLI prints); numeric columns (every value an integer or real) also
 * have ->i / ->d and type CT_INT or CT_REAL (CT_NS for a column named *_ns, ->i then truncating a real); a
 * text value has ->d = NAN, so a mixed column still tells its numbers from its text.
 * On failure err holds SQLite's message (or the budget's). opts may be NULL. With a sink,
 * rows already passed to it stay passed when the statement fails later. */
DcuStatus UserSql_run(TraceDb* db, const char* sql, UserSqlOpts* opts, ResultSet** out,
                      DcuError* err);

/* Stops a running UserSql_run() on db (sqlite3_interrupt: async-signal-safe in practice). */
void UserSql_interrupt(TraceDb* db);

/* Installs/removes the read-only authorizer by itself (for tests and UserSql_run). */
void UserSql_authorize(TraceDb* db, int on);

#endif
