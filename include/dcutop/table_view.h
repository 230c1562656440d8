/* table_view.h - draws a ResultSet as a table: units per column, right-aligned numbers,
 * the sort column marked, the selected row highlighted, names cut in the middle. */
#ifndef DCUTOP_TABLE_VIEW_H
#define DCUTOP_TABLE_VIEW_H

#include <stddef.h>

#include "dcutop/canvas.h"
#include "dcutop/format.h"
#include "dcutop/result_set.h"

#define TABLE_MAX_COLS 24

typedef struct TableLayout_ {
    int n;                          /* columns shown */
    int col[TABLE_MAX_COLS];        /* ResultSet column of each */
    int width[TABLE_MAX_COLS];      /* cells given to each */
    TimeUnit unit[TABLE_MAX_COLS];  /* for CT_NS columns */
    int flex;                       /* index in col[] of the name column, -1 none */
} TableLayout;

typedef struct TableViewState_ {
    int selected; /* row of the ResultSet */
    int scroll;   /* first row shown */
    int sort_col; /* ResultSet column sorted by, -1 none */
    int sort_desc;
} TableViewState;

/* Lays out the columns keys (display order) for a canvas of width cells. When they do not
 * fit, columns named in drop (first dropped first) are left out; the flex column gets
 * the rest. Units are chosen from all rows so that scrolling does not change them. */
void TableLayout_compute(TableLayout* l, const ResultSet* rs, const char* const* keys,
                         const char* flex, const char* const* drop, int width);

/* As TableLayout_compute, with the unit of each CT_NS column c given by units[c] unless it
 * is -1 (units may be NULL): a paged list lays out a sample of its rows with the units of
 * all of them. */
void TableLayout_computeUnits(TableLayout* l, const ResultSet* rs, const char* const* keys,
                              const char* flex, const char* const* drop, int width,
                              const int* units);

/* The unit TableView_unitFor gives values it is not handed (a paged list's, dispatch_page.h):
 * mx is their largest magnitude; count(ctx, bound, &n, &below), called only when the choice
 * needs it, says how many are not NULL and how many of those have a magnitude below bound. */
typedef void (*TableCountFn)(void* ctx, int64_t bound, int64_t* n, int64_t* below);
TimeUnit TableView_unitForCounts(int64_t mx, TableCountFn count, void* ctx);

/* The unit of duration column c over its first rows rows: the largest value's unit, one
 * smaller when most values would read 0.00 in it. */
TimeUnit TableView_unitFor(const ResultSet* rs, int c, int rows);

/* 1 if rs lists host API calls, whose names keep their qualifier when cut (Format_cutEnd):
 * OpTable::writeRows and KernelApiTable::writeRows are different calls. Kernel names are
 * cut in the middle with namespaces dropped (Format_cutName). */
int TableView_qualifiedNames(const ResultSet* rs);

/* Formats one cell as the table shows it. */
void TableView_cellText(const ResultSet* rs, int r, int c, TimeUnit u, char* buf, size_t cap);

/* Title row at y0, then rows in y0+1 .. y0+height-1. */
void TableView_render(const TableViewState* st, const TableLayout* l, const ResultSet* rs,
                      Canvas* c, int y0, int height);

/* The title of column i of the layout ("Total ms", with the unit). */
void TableView_title(const TableLayout* l, const ResultSet* rs, int i, char* buf, size_t cap);

#endif
