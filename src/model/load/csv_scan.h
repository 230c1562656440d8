/* csv_scan.h - the CSV state machine of libcsv 3 (csv_parse with options 0 and no space
 * characters, as csv_reader.c sets it), run with memchr over quoted text and a table
 * lookup over unquoted text instead of a switch per byte: the same fields, rows and blank
 * lines skipped, four to five times faster (libcsv was a third of a 1M-dispatch load).
 * tests/unit/test_csv_scan.c runs both on random and real input, cut at every position,
 * and requires the same callbacks. */
#ifndef DCUTOP_CSV_SCAN_H
#define DCUTOP_CSV_SCAN_H

#include <stddef.h>

typedef void (*CsvScanField)(void* s, size_t len, void* ctx); /* as libcsv's cb1 */
typedef void (*CsvScanRow)(int c, void* ctx);                 /* as libcsv's cb2 */

typedef struct {
    int state;  /* libcsv's pstate: row not begun, field not begun, begun, might have ended */
    int quoted; /* the field began with a quote */
    char* buf;  /* the field's bytes so far (owned) */
    size_t len, cap;
} CsvScan;

void CsvScan_init(CsvScan* this);
void CsvScan_free(CsvScan* this);

/* Parses s[0, n) as csv_parse does, adding 1 to *line after each '\n' passed. A field that
 * lies whole in s is handed to on_field where it lies (so s is not const, as libcsv's
 * callback takes a char pointer), and its terminator follows it inside s: ',', '\r', '\n'
 * or its closing quote, which the caller may overwrite once the parse is past it; any
 * other field comes from this->buf. With
 * stop_at > 0, stops after the first '\n' at index >= stop_at - 1 that leaves no row
 * begun (csv_reader.c's chunk end). Returns the bytes taken: n, or fewer when it stopped. */
size_t CsvScan_parse(CsvScan* this, char* s, size_t n, size_t stop_at, long* line,
                     CsvScanField on_field, CsvScanRow on_row, void* ctx);

/* Ends the input as csv_fini does: a field or row begun is submitted (row end -1). */
void CsvScan_fini(CsvScan* this, CsvScanField on_field, CsvScanRow on_row, void* ctx);

/* 1 when no row is begun (libcsv's pstate 0, ROW_NOT_BEGUN). */
int CsvScan_atRowStart(const CsvScan* this);

#endif
