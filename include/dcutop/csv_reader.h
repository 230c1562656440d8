/* csv_reader.h - streams a CSV file, one row at a time, with line numbers, parsed as libcsv
 * 3 parses it (csv_scan.h: its state machine, faster).
 * The file is read in 64 KiB blocks and never held in memory whole. A UTF-8 BOM is
 * skipped; CRLF, quoted fields spanning lines and blank lines are handled as libcsv does.
 * Fields are not trimmed (the loader needs the exact bytes to re-join names that hold
 * unquoted commas). */
#ifndef DCUTOP_CSV_READER_H
#define DCUTOP_CSV_READER_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/error.h"

#define CSV_MAX_FIELDS 4096 /* more than this in one row: the row is marked too_wide */

typedef struct CsvField_ {
    const char* s; /* borrowed, valid during the callback; NUL-terminated, may hold NULs */
    size_t len;
} CsvField;

typedef struct CsvRow_ {
    const CsvField* f;
    int n;        /* fields kept (at most CSV_MAX_FIELDS) */
    int too_wide; /* 1 if the row had more than CSV_MAX_FIELDS fields */
    long line;    /* 1-based line where the row starts */
    const void* prep; /* CsvReader_readFilePrepared: the row's payload, NULL if none */
} CsvRow;

/* Return nonzero to stop reading. */
typedef int (*CsvRowFn)(const CsvRow* row, void* ctx);
/* Called after each block with the bytes read so far. */
typedef void (*CsvProgressFn)(uint64_t bytes_done, void* ctx);

/* Reads path, calling on_row for every row (header included). Returns DCU_ERR_IO when the
 * file cannot be opened or read, DCU_ERR_CUT (err says where) when a gzip file ends inside a
 * member: every row before the cut was given to on_row. */
DcuStatus CsvReader_readFile(const char* path, CsvRowFn on_row, CsvProgressFn progress,
                             void* ctx, DcuError* err);

/* The same with the file cut into chunks of about chunk_bytes, each parsed by its own
 * parser on one of threads - 1 worker threads (two with threads 2, at most 15; with
 * threads 1, by the calling thread as it comes to it), the rows handed to on_row in file
 * order on the calling thread: the same rows and line numbers as one parser (a cut that
 * falls inside a quoted field is found and mended). CsvReader_readFile does this for a
 * plain file of 8 MiB or more; the tests call it directly. */
DcuStatus CsvReader_readFileChunked(const char* path, size_t chunk_bytes, int threads,
                                    CsvRowFn on_row, CsvProgressFn progress, void* ctx,
                                    DcuError* err);

/* A loader's per-row work that can run on the parser threads (issue 23: the calling
 * thread, which converts every row, bounded a 1M-dispatch load on 16 cores): fn fills
 * `size` bytes at out from the row and returns 1, or returns 0 (no payload: on_row does the
 * work itself), or returns 2: the payload, and on_row will not read the row's fields, so
 * on_row may get row->f NULL (n, too_wide, line and prep are set: the calling thread then
 * skips laying out twenty fields a row it never reads). It is called for every row after
 * the first (the header), only once on_row has returned for the first row, possibly on several threads at once: it may read what
 * on_row set up for the first row and nothing that changes later. Rows parsed before that
 * get their payload on the calling thread, so every row after the first has fn's result. */
typedef int (*CsvPrepareFn)(const CsvRow* row, void* ctx, void* out);
typedef struct CsvPrepare_ {
    CsvPrepareFn fn;
    size_t size;
} CsvPrepare;

/* CsvReader_readFile, with row->prep set by prep (see CsvPrepare). */
DcuStatus CsvReader_readFilePrepared(const char* path, CsvRowFn on_row, CsvProgressFn progress,
                                     const CsvPrepare* prep, void* ctx, DcuError* err);

/* --threads: how many threads a CSV read may use (0: the CPUs available). 1: the calling
 * thread alone; 2: one reader thread beside it; more: chunks parsed in parallel. */
void CsvReader_setThreads(int n);
/* The threads a read uses: the last CsvReader_setThreads, else the CPUs available. */
int CsvReader_threads(void);

/* Reads the first line of a file (BOM and line end stripped) into buf, for sniffing.
 * Returns the number of bytes read from the file start (0 on error). */
size_t CsvReader_peek(const char* path, unsigned char* buf, size_t cap);

#endif
