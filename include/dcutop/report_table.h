/* report_table.h - the text table writer of --report (report_table.c). */
#ifndef DCUTOP_REPORT_TABLE_H
#define DCUTOP_REPORT_TABLE_H

#include <stdio.h>

#include "dcutop/result_set.h"

/* One ResultSet as an aligned text table (units per column), at most max_rows rows. */
void Report_table(FILE* out, const ResultSet* rs, const char* const* keys, const char* flex,
                  int width, int max_rows);

/* Prose at most width cells a line, cut at spaces: the line's own leading spaces stay, the
 * lines after the first are indented by indent. */
void Report_wrap(FILE* out, const char* s, int width, int indent);

#endif
