/* trace_db.h - the in-memory SQLite database that holds one loaded trace.
 * The whole schema is one string in trace_db.c; every table dcutop shows is a
 * query over it. */
#ifndef DCUTOP_TRACE_DB_H
#define DCUTOP_TRACE_DB_H

#include <sqlite3.h>
#include <stdint.h>

#include "dcutop/error.h"

#define TRACE_DB_SCHEMA_VERSION 1

/* api_call.domain of the profiler's own work recorded as API calls (rpd_tracer's
 * OpTable::writeRows, hcc_activity_callback, run_to_completion): listed in the API view
 * apart from the application's calls and left out of host API time. */
#define API_DOMAIN_PROFILER "PROFILER"

typedef struct TraceDb_ TraceDb; /* opaque; see trace_db.c */

/* The page cache a database may hold when the caller names no bound (--db-memory). */
#define TRACE_DB_DEFAULT_MEMORY (512LL << 20)

/* Opens an empty database with the dcutop schema and regexp() registered. memory > 0: a
 * private temporary database (SQLite's "" name) whose page cache, sorts and temp tables
 * hold at most about `memory` bytes, the rest going to an unlinked file in SQLITE_TMPDIR
 * or TMPDIR (a 64-rank job loads in bounded memory, issue 15); while the data fits it is
 * as fast as :memory:. memory == 0: :memory:, no bound. On success *out owns a new
 * TraceDb; free it with TraceDb_delete(). */
DcuStatus TraceDb_open(TraceDb** out, int64_t memory, DcuError* err);
void TraceDb_delete(TraceDb* this);

/* The bound given to TraceDb_open (0: none): other job-sized buffers scale from it (the
 * timeline's gap median keeps memory / 128 bytes of values, median_spill.h). */
int64_t TraceDb_memory(const TraceDb* this);

/* The dispatch rows (borrowed, valid until TraceDb_delete): the loader appends to it. */
struct DispatchStore_* TraceDb_dispatchStore(TraceDb* this);

/* Where temporary files go, as SQLite chooses: SQLITE_TMPDIR, TMPDIR, /var/tmp, /tmp (the
 * first that is a writable folder; "." when none). Static or environment storage. */
const char* TraceDb_tempDir(void);

/* Derived values kept while the data they were read from is unchanged (issue 11: a report
 * built the timeline twice). The state is the connection's total row changes plus the schema
 * versions of main and temp (a region of interest swaps temp views; a scope rewrites rows):
 * any write, DDL included, makes every cached value stale. */
typedef struct TraceDbState_ {
    int64_t changes;
    int64_t main_schema, temp_schema;
} TraceDbState;
enum {
    TRACEDB_CACHE_TIMELINE,
    TRACEDB_CACHE_TIMELINE_ALL,
    TRACEDB_CACHE_TOTALS,
    TRACEDB_CACHE_RUN_STARTS,
    TRACEDB_CACHE_LAUNCH_STATS, /* launch_stats.c: Idle_launchTable */
    TRACEDB_CACHE_LAUNCH_CALLS, /* launch_calls.c: LaunchCalls_get */
    TRACEDB_CACHE_API_ROWS,     /* query.c: the API view's rows, unfiltered */
    TRACEDB_CACHE_API_SCAN,     /* api_scan.c: every API call in memory */
    TRACEDB_CACHE_ORIGINS,      /* trace_query.c: TraceQuery_origin of every file */
    TRACEDB_CACHE_SLOTS
};
TraceDbState TraceDb_state(TraceDb* this);
/* The value stored in slot while the state was `state`, or NULL (stale or none). Borrowed. */
void* TraceDb_cached(TraceDb* this, int slot, TraceDbState state);
/* Stores value (released with release(value) when replaced or at TraceDb_delete). */
void TraceDb_setCached(TraceDb* this, int slot, TraceDbState state, void* value,
                       void (*release)(void*));

/* After a change that adds no data and changes no answer (an index): values cached in state
 * `before` are kept, as of state `after`. */
void TraceDb_keepCached(TraceDb* this, TraceDbState before, TraceDbState after);

/* Borrowed: valid until TraceDb_delete(). Do not sqlite3_close() it. */
sqlite3* TraceDb_handle(const TraceDb* this);

/* Runs SQL text with no parameters (schema, BEGIN/COMMIT). Never pass user text. */
DcuStatus TraceDb_exec(TraceDb* this, const char* sql, DcuError* err);

/* Prepares a statement; the caller finalizes it. */
DcuStatus TraceDb_prepare(TraceDb* this, const char* sql, sqlite3_stmt** st, DcuError* err);
/* A statement for sql that the database keeps (reset, bindings cleared) for reads repeated
 * once per run or file: a folder of 20,000 runs spent most of its time re-parsing the same
 * SQL. Give it back with TraceDb_release (never sqlite3_finalize); not for a statement
 * still in use when the same SQL is asked for again. */
#define TRACEDB_STMT_SLOTS 32
DcuStatus TraceDb_prepareCached(TraceDb* this, const char* sql, sqlite3_stmt** st,
                                DcuError* err);
/* Resets a statement of TraceDb_prepareCached, finalizes any other. */
void TraceDb_release(TraceDb* this, sqlite3_stmt* st);

/* A WHERE clause for the dispatch rows (table alias d) of the file bound at parameter P
 * ("?1"): a seek to its rowid range (table dispatch_span), so reading one file or run costs
 * its own rows, not a scan of every rank's (issue 15). */
#define DISPATCH_OF_FILE(P)                                                                 \
    "d.id BETWEEN (SELECT lo_id FROM dispatch_span WHERE file_id = " P ")"                  \
    " AND (SELECT hi_id FROM dispatch_span WHERE file_id = " P ") AND d.file_id = " P

/* Runs a query returning one integer (or one real, rounded down); 0 when no row. */
int64_t TraceDb_scalarInt(TraceDb* this, const char* sql);
double TraceDb_scalarReal(TraceDb* this, const char* sql);

/* Writes the database to path with the SQLite backup API, through OutFile (out_file.h): a
 * temp file renamed into place, or copied into a FIFO or device. An existing regular file is
 * replaced only when force is set (else DCU_ERR_USAGE). */
DcuStatus TraceDb_save(TraceDb* this, const char* path, int force, DcuError* err);

/* The schema text, for documentation (--dump-schema). */
const char* TraceDb_schemaText(void);

#endif
