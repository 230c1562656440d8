/* row_batch.h - rows of one INSERT kept back and stored ROW_BATCH_ROWS at a time by one
 * multi-row VALUES statement (issue 23). A one-row INSERT costs SQLite a statement run per
 * row: binding, VDBE start-up, reset. For the narrow rows of a Kineto load (ext_link,
 * kernel_stack, dispatch_range: millions of them) that run was over half of each row's
 * cost; 64 rows a statement take 341 -> 126 ns a row for ext_link alone. The rows go in in
 * the order they were added, so their rowids and every later read are as before; what
 * changes is only when: a reader of the table must RowBatch_flush first. */
#ifndef DCUTOP_ROW_BATCH_H
#define DCUTOP_ROW_BATCH_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

#define ROW_BATCH_ROWS 64

typedef struct RowBatch_ RowBatch;

/* head: "INSERT ... VALUES" (or "INSERT OR REPLACE ..."); row: one row's tuple with ncols
 * anonymous '?' parameters and any constants, e.g. "(?, ?, 'kineto', ?)". Both borrowed
 * (static text). */
RowBatch* RowBatch_new(TraceDb* db, const char* head, const char* row, int ncols);
/* Drops the rows not stored yet. */
void RowBatch_delete(RowBatch* this);

/* The next parameter of the row being added: an integer, NULL, or text that outlives the
 * batch (static). */
void RowBatch_int(RowBatch* this, int64_t v);
void RowBatch_null(RowBatch* this);
void RowBatch_text(RowBatch* this, const char* static_text);
/* Text from malloc, which the batch frees once stored (or dropped). */
void RowBatch_textOwned(RowBatch* this, char* text);

/* Ends the row (after exactly ncols values); stores the batch once it is full. Returns
 * SQLITE_DONE, or the SQLite error of that store (its message in sqlite3_errmsg). */
int RowBatch_endRow(RowBatch* this);

/* Stores the rows added since the last store. Returns SQLITE_DONE or the SQLite error; on
 * an error the rows of that statement are not stored and are dropped. */
int RowBatch_flush(RowBatch* this);

#endif
