/* sql_output.h - a user query's ResultSet (user_sql.h) written for --sql. Values are written
 * as SQLite renders them (the text kept in each cell), so CSV output is byte for byte what
 * `sqlite3 -csv -header` prints for the same query: fields quoted only when they hold a
 * blank, a control or non-ASCII byte, a quote or a comma, or are empty; "\n" line ends. */
#ifndef DCUTOP_SQL_OUTPUT_H
#define DCUTOP_SQL_OUTPUT_H

#include <stdio.h>

#include "dcutop/error.h"
#include "dcutop/report.h"
#include "dcutop/result_set.h"

/* text: an aligned table (numbers right-aligned, NULL empty, names' control characters
 * escaped); csv: as above; json: an array of objects keyed by column name, numbers as
 * numbers (non-finite reals as null), NULL as null. A write error is DCU_ERR_IO. */
DcuStatus SqlOutput_write(const ResultSet* rs, OutFormat fmt, FILE* out, DcuError* err);

/* The same output written block by block as the rows come (--sql streams: memory stays
 * bounded whatever the row count). Text takes its column widths and alignment from the
 * first block (USER_SQL_BLOCK rows), so a result of one block is written as above. */
typedef struct SqlOutput_ SqlOutput;
SqlOutput* SqlOutput_new(OutFormat fmt, FILE* out); /* out borrowed */
void SqlOutput_delete(SqlOutput* this);
/* A UserSqlSink (ctx: the SqlOutput): writes rows; last = 1 ends the output (the JSON
 * array's end, the text's row count). Returns nonzero on a write error (errno kept). */
int SqlOutput_rows(void* ctx, const ResultSet* rows, int last);

#endif
