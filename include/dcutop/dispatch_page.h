/* dispatch_page.h - one kernel's dispatch list read a page at a time, for the TUI: a
 * drill-in on a kernel of 2,000,000 dispatches must not build 2,000,000 rows (the whole list,
 * KernelQuery_dispatches, took 0.4 s at 200,000). Opening reads no row where the store's
 * kernel index says the kernel's rows are in start order and the files' row ranges say whose
 * they are (the usual case), else two columns (file and start) through the kernel index; a
 * page reads only its own rows.
 *
 * The rows, their columns and their natural order (file, start, id) are those of
 * KernelQuery_dispatches. A sort orders by one column, NULLs last, ties in the natural order
 * (the whole list keeps the order of the sort before); it is computed lazily: only the
 * positions asked for are put in place (the first 1024 by one pass over the keys, the rest by
 * a partial quicksort), so the first page of a sort of 2,000,000 rows costs one read of the
 * column and one pass over it, and later pages less. A page reads the
 * store's kernel index (borrowed): valid while no dispatch is appended (after the load). */
#ifndef DCUTOP_DISPATCH_PAGE_H
#define DCUTOP_DISPATCH_PAGE_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

typedef struct DispatchPage_ DispatchPage;

/* The list of kernel `name` in the used kernel files whose names match filter (NULL: all).
 * *out NULL (with DCU_OK) when the store cannot serve it (a region of interest, the SQL
 * path, no kernel index) or the list has fewer than min_rows rows: the caller then reads
 * the whole list. */
DcuStatus DispatchPage_open(TraceDb* db, const char* name, const char* filter, int64_t min_rows,
                            DispatchPage** out, DcuError* err);
void DispatchPage_delete(DispatchPage* this);

/* The rows of the list (exact: no row is read to count them twice). */
int64_t DispatchPage_count(const DispatchPage* this);

/* Orders by spec ("dur_ns", "dur_ns:asc", "file:desc"; a column key of the list, default
 * direction as Query_sort's); NULL or "": the natural order. DCU_ERR_USAGE for an unknown
 * key; DCU_ERR_IO when a spilled chunk cannot be read back. */
DcuStatus DispatchPage_sort(DispatchPage* this, const char* spec, DcuError* err);

/* Rows first, first + step, ... (n of them, fewer at the end) of the current order, as a
 * new ResultSet with KernelQuery_dispatches's columns (owned by the caller). */
DcuStatus DispatchPage_rows(DispatchPage* this, int64_t first, int64_t n, int64_t step,
                            ResultSet** out, DcuError* err);

/* What a time unit is chosen from (table_view.h) for column key's values as shown, NULLs left
 * out: *n of them, their largest magnitude, and *below of them of a magnitude under bound
 * (0: none counted). Where the rows are in start order the starts are not all read: each
 * file's are sorted, so binary searches find them. All 0 for the text column. */
DcuStatus DispatchPage_magnitude(DispatchPage* this, const char* key, int64_t bound, int64_t* n,
                                 int64_t* max_abs, int64_t* below, DcuError* err);

#endif
