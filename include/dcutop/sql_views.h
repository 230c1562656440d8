/* sql_views.h - the stable SQL surface for user queries (--sql, the `;` prompt): TEMP views
 * over the internal tables, documented column by column in SCHEMA.md. They live in the temp
 * schema, so --save-db (which copies "main") and the internal tables are untouched; the
 * internal tables may change (#9) while these names and columns stay. */
#ifndef DCUTOP_SQL_VIEWS_H
#define DCUTOP_SQL_VIEWS_H

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

/* Creates the views once (a second call does nothing). Which definition of runs is used is
 * decided here: from the `run` table and source_file.run_id when the database has them,
 * else one run per source folder (source_file.dir). */
DcuStatus SqlViews_create(TraceDb* db, DcuError* err);

/* The CREATE TEMP VIEW statements as created for db (helpers first), one per line group,
 * ending in ";\n": what `--sql .schema` prints. Runs them in the sqlite3 CLI on a --save-db
 * file and the same views exist there. Owned by the caller (free()). */
char* SqlViews_ddl(TraceDb* db);

/* The stable view names, NULL-terminated, in SCHEMA.md order (borrowed, static). */
const char* const* SqlViews_names(void);

#endif
