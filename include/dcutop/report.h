/* report.h - the batch report (--report): the same tables the TUI shows, as plain text,
 * CSV blocks or one JSON document. */
#ifndef DCUTOP_REPORT_H
#define DCUTOP_REPORT_H

#include <stdio.h>

#include "dcutop/error.h"
#include "dcutop/query.h"
#include "dcutop/trace_db.h"

typedef enum { FMT_TEXT, FMT_CSV, FMT_JSON } OutFormat;

typedef struct ReportOpts_ {
    OutFormat format;
    int width;        /* text: total line width */
    int top;          /* text: hotspot rows shown (0 = all) */
    int view;         /* -1 = all sections, else one ViewId */
    QueryOpts query;  /* filter/sort/what-if applied to the tables */
    const char* title;
} ReportOpts;

DcuStatus Report_write(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* One ResultSet as an aligned text table (units per column), at most max_rows rows. */
void Report_table(FILE* out, const ResultSet* rs, const char* const* keys, const char* flex,
                  int width, int max_rows);

#endif
