/* dispatch_store.h - the dispatch table as typed column arrays (issue 23), shown to SQL as
 * the virtual table main.dispatch, so the views, --sql and the SQL prompt read it unchanged
 * and the loader appends a dispatch without an SQL INSERT.
 *
 * Rows are insert-only; a row's id (the table's id and rowid) is its 1-based position.
 * Values are int64; DISPATCH_STORE_NULL (INT64_MIN, the loader's LOAD_NULL) is SQL NULL.
 * Rows live in chunks of DISPATCH_STORE_CHUNK rows, each full one compressed column by column
 * (chunk_codec.h); above the byte budget given to
 * DispatchStore_new, full chunks are written to an unlinked temporary file in SQLITE_TMPDIR
 * or TMPDIR (the tmpdir given, where SQLite puts its own), least recently used first, and
 * read back (one at a time, into a buffer) whenever a query needs them, so --db-memory
 * bounds the store as it bounds SQLite's page cache; the indexes count against the same
 * budget. The indexes by kernel_id, corr_id and seq are
 * built on the first query that uses them, and again after more rows were appended. */
#ifndef DCUTOP_DISPATCH_STORE_H
#define DCUTOP_DISPATCH_STORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "dcutop/error.h"

#define DISPATCH_STORE_NULL INT64_MIN
#define DISPATCH_STORE_CHUNK 4096
/* Values between one column and the next in a chunk buffer (raw, decoded, DS_AT): a row's
 * eighteen values 32 KiB apart fell in one L1 set and evicted one another, which made an
 * append cost about 100 ns; eight values of padding put them in eighteen sets. */
#define DISPATCH_STORE_STRIDE (DISPATCH_STORE_CHUNK + 8)

/* The stored columns, in the table's order after id. */
typedef enum {
    DS_FILE_ID,
    DS_KERNEL_ID,
    DS_SEQ,
    DS_GPU,
    DS_QUEUE,
    DS_STREAM,
    DS_PID,
    DS_TID,
    DS_CORR_ID,
    DS_START_NS,
    DS_END_NS,
    DS_DUR_NS,
    DS_GRID,
    DS_WORKGROUP,
    DS_LDS,
    DS_SCRATCH,
    DS_VGPR,
    DS_SGPR,
    DS_NCOLS
} DispatchCol;

typedef struct DispatchStore_ DispatchStore;

/* budget: bytes of rows and indexes kept in memory (0: no bound); tmpdir: the folder of
 * the spill file (copied; TraceDb_tempDir(), where SQLite puts its own). */
DispatchStore* DispatchStore_new(int64_t budget, const char* tmpdir);
void DispatchStore_delete(DispatchStore* this);

/* Appends one row; v[DS_NCOLS] in DispatchCol order. Returns its id (>= 1), or 0 when the
 * temporary file could not be written (err says why). */
int64_t DispatchStore_append(DispatchStore* this, const int64_t* v, DcuError* err);
/* on: full chunks may be encoded on a thread of their own (chunk_sealer.h) while the
 * next fills, as long as the budget leaves room for every chunk in flight without a
 * spill; nearer the budget, and with on 0 (the default), they are sealed by append as it
 * fills them. Readers wait for the thread first; results are the same either way. */
void DispatchStore_setSealThread(DispatchStore* this, int on);

int64_t DispatchStore_count(const DispatchStore* this);

/* Direct column reads for the analyses (no SQL row per dispatch): chunk ci (0-based) holds
 * rows ci * DISPATCH_STORE_CHUNK onwards, column-major (DS_AT: columns DISPATCH_STORE_STRIDE
 * apart). Returns its data decoded
 * into a store-owned buffer (or the raw rows of the chunk being filled), valid until the
 * next call on the store (a spilled chunk is read back and may evict another),
 * with *rows set to the rows it holds; NULL when a spilled chunk cannot be read back. */
const int64_t* DispatchStore_chunk(DispatchStore* this, int64_t ci, int64_t* rows);
/* Chunk ci decoded into buf (DISPATCH_STORE_CHUNK_BYTES, laid out as DS_AT), both the caller's,
 * for readers on several threads at once: nothing of the store is written (no decode
 * buffer, no least-recently-used tick), and a spilled chunk is read back into rbuf
 * (DISPATCH_STORE_CHUNK_BYTES). Returns its rows, -1 when a spilled chunk cannot be read
 * back. Not while rows are appended. */
int64_t DispatchStore_chunkCopy(const DispatchStore* this, int64_t ci, int64_t* buf,
                                uint8_t* rbuf);
#define DISPATCH_STORE_CHUNK_BYTES ((size_t)DS_NCOLS * DISPATCH_STORE_STRIDE * sizeof(int64_t))
#define DS_AT(data, col, r) ((data)[(int64_t)(col) * DISPATCH_STORE_STRIDE + (r)])

/* Column col of chunk ci alone into out (DISPATCH_STORE_CHUNK values), the rest of the chunk
 * left encoded (a paged list reads two columns of every chunk, not eighteen): its rows, 0
 * past the end, -1 when a spilled chunk cannot be read back. */
int64_t DispatchStore_column(DispatchStore* this, int64_t ci, DispatchCol col, int64_t* out);

/* Column col of rows[0 .. n) (0-based, ascending) into out[0 .. n): of a chunk in memory
 * only those values are read, not the whole column. 0 when a spilled chunk cannot be read
 * back. */
int DispatchStore_gather(DispatchStore* this, const int64_t* rows, int64_t n, DispatchCol col,
                         int64_t* out);

/* One value of the 0-based row (a page of a list); *ok = 0 on a read error or a bad row. */
int64_t DispatchStore_value(DispatchStore* this, int64_t row, DispatchCol col, int* ok);

/* Chunks written to the temporary file so far (0: all in memory). */
int64_t DispatchStore_spilled(const DispatchStore* this);

/* Bytes the full chunks take encoded (chunk_codec.h), in memory or in the temporary file;
 * the chunk being filled (raw, 144 bytes a row) is not counted. */
int64_t DispatchStore_encodedBytes(const DispatchStore* this);

/* 1 when an append failed because the temporary file's folder is out of room. */
int DispatchStore_outOfRoom(const DispatchStore* this);

/* Builds the kernel_id index now (else the first query by kernel_id does). */
void DispatchStore_buildKernelIndex(DispatchStore* this);

/* The 0-based rows of one kernel, in row order, from the kernel_id index (built if needed):
 * *rows valid until more rows are appended. 0 when there is no index (ids not dense). */
int DispatchStore_kernelRows(DispatchStore* this, int64_t kernel_id, const int64_t** rows,
                             int64_t* n);

/* 1 when the rows of the kernel, in row order (DispatchStore_kernelRows), ascend by file_id
 * and then start_ns, NULL starts first (kept by the kernel_id index as it is built): the
 * dispatch list's natural order with no read of its rows. 0 otherwise, or with no index. */
int DispatchStore_kernelInStartOrder(DispatchStore* this, int64_t kernel_id);

/* The smallest and largest non-NULL dur_ns of the kernel's rows and how many rows have one
 * (*n 0: min and max say nothing), kept by the kernel_id index as it is built. 0 with no
 * index or no such kernel. */
int DispatchStore_kernelDurations(DispatchStore* this, int64_t kernel_id, int64_t* min,
                                  int64_t* max, int64_t* n);

/* Registers the module "dcu_dispatch" on db; `CREATE VIRTUAL TABLE dispatch USING
 * dcu_dispatch` then shows this store. The store must outlive the connection. */
DcuStatus DispatchStore_register(DispatchStore* this, sqlite3* db, DcuError* err);

#endif
