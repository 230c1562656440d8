/* dispatch_scan.h - the analyses' direct read of the dispatch store: the rows of the used
 * kernel files, chunk by chunk, as column arrays, with no SQL row per dispatch (a million
 * rows through the VDBE cost the report seconds). Only while `dispatch` names the store
 * itself: under a region of interest its temp view cuts the rows, and readers go through
 * SQL (DispatchScan_store returns NULL). Single-threaded, like the connection, except
 * DispatchScan_spanChunks. */
#ifndef DCUTOP_DISPATCH_SCAN_H
#define DCUTOP_DISPATCH_SCAN_H

#include <stdint.h>

#include "dcutop/dispatch_store.h"
#include "dcutop/error.h"
#include "dcutop/trace_db.h"

/* The store when unqualified `dispatch` reads it whole (no ROI view over it), else NULL.
 * Also NULL when the environment sets DCUTOP_SQL_SCAN: tests compare both paths. */
DispatchStore* DispatchScan_store(TraceDb* db);

typedef struct {
    int64_t file_id;
    int64_t lo, hi; /* 0-based store rows, inclusive; the file's rows lie in them */
} DispatchSpan;

/* The used kernel files with dispatches (used_file layer 'kernel', dispatch_span), in file
 * id order: the rows `d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')`
 * reads. *out is owned by the caller (free). */
DcuStatus DispatchScan_usedSpans(TraceDb* db, DispatchSpan** out, int64_t* n, DcuError* err);

/* The span of one file's dispatches (dispatch_span); 0 when it has none. */
int DispatchScan_fileSpan(TraceDb* db, int64_t file_id, DispatchSpan* out);

/* Rows rows[from .. to) of a list are the file's. */
typedef struct {
    int64_t file_id, from, to;
} DispatchRun;

/* The files of rows[0 .. n) (0-based, ascending: a kernel's, DispatchStore_kernelRows) as
 * runs in row order, from the files' row ranges (dispatch_span) alone: no read of the file
 * column. 0 (*out NULL) when the ranges cannot say: one holds rows of another file (not
 * every row of it is the file's), or a row lies in none. *out is the caller's (free). */
int DispatchScan_fileRuns(TraceDb* db, const int64_t* rows, int64_t n, DispatchRun** out,
                          int64_t* nruns);

/* Called per chunk with rows [from, to) of data (DS_AT(data, col, r)); row0 is the store
 * row of r = 0, so a row's dispatch id is row0 + r + 1. Rows of other files are included:
 * check DS_FILE_ID. Return 0 to stop. */
typedef int (*DispatchBlockFn)(void* ctx, const int64_t* data, int64_t from, int64_t to,
                               int64_t row0);

/* Calls fn over the rows of span sp in order. DCU_ERR_IO when a spilled chunk cannot be
 * read back; DCU_OK when fn stopped early. */
DcuStatus DispatchScan_span(DispatchStore* st, const DispatchSpan* sp, DispatchBlockFn fn,
                            void* ctx, DcuError* err);

/* The chunks span sp lies in (DispatchScan_spanChunks numbers them from 0). */
int64_t DispatchScan_chunks(DispatchStore* st, const DispatchSpan* sp);

/* The rows of span sp before its chunk c0: where a part starting at chunk c0 puts its first
 * row in an array of the span's rows, when none before it is skipped. */
int64_t DispatchScan_rowsBefore(const DispatchSpan* sp, int64_t c0);

/* DispatchScan_span over chunks [c0, c1) of the span only, decoded into buffers of the
 * caller's thread (DispatchStore_chunkCopy): calls on several threads at once may read
 * one store, each its own chunks (the analyses' parallel passes, parallel.h). */
DcuStatus DispatchScan_spanChunks(DispatchStore* st, const DispatchSpan* sp, int64_t c0,
                                  int64_t c1, DispatchBlockFn fn, void* ctx, DcuError* err);

#endif
