/* export.h - writes a ResultSet as RFC 4180 CSV or as JSON. Export reads a ResultSet and
 * never touches the UI (ncdu's dir_export beside dir_mem). Numbers are raw: durations in
 * integer ns, percentages 0..100, ratios as numbers ("inf" in CSV, null in JSON). */
#ifndef DCUTOP_EXPORT_H
#define DCUTOP_EXPORT_H

#include <stdio.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"

/* CSV: header of column keys, CRLF line ends, text fields quoted with libcsv's csv_fwrite. */
DcuStatus Export_csv(const ResultSet* rs, FILE* out, DcuError* err);

/* JSON array of objects keyed by column keys. */
DcuStatus Export_json(const ResultSet* rs, FILE* out, DcuError* err);

/* Writes CSV to path through OutFile (out_file.h): a temp file renamed into place, a FIFO or
 * device written directly. flags: OUT_* of out_file.h (0: DCU_ERR_USAGE if path is an
 * existing regular file, OUT_FORCE_ALL for --force). */
DcuStatus Export_csvFile(const ResultSet* rs, const char* path, int flags, DcuError* err);

/* s as a quoted JSON string (quotes, backslashes and control bytes escaped). */
void Export_jsonString(FILE* out, const char* s);

/* Formats a cell the way CSV export writes it (no quoting); buf holds at least 64 bytes. */
const char* Export_cellText(const ResultSet* rs, int row, int col, char* buf, size_t cap);

#endif
