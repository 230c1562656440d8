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

#endif
