/* result_set.h - a table of typed cells: what every query returns and what every view,
 * report and export reads. Owns its strings. */
#ifndef DCUTOP_RESULT_SET_H
#define DCUTOP_RESULT_SET_H

#include <stdint.h>

typedef enum {
    CT_TEXT,  /* string */
    CT_INT,   /* count */
    CT_NS,    /* duration, integer nanoseconds (shown with a unit chosen per column) */
    CT_PCT,   /* percentage, 0..100 */
    CT_RATIO, /* speedup factor, may be INFINITY */
    CT_REAL,  /* other real number */
    CT_BYTES, /* byte count */
    CT_VALUE  /* a measured value as given (a run's metric): exported to the last digit that
               * tells it apart (%.6f would make a 1e-7 tolerance 0), shown as CT_REAL */
} ColType;

typedef struct RsColumn_ {
    const char* key;   /* machine name: CSV/JSON header, --sort name (static) */
    const char* title; /* human header in the report and TUI (static) */
    ColType type;
} RsColumn;

typedef struct RsCell_ {
    int null;
    int64_t i; /* CT_INT, CT_NS, CT_BYTES */
    double d;  /* CT_PCT, CT_RATIO, CT_REAL */
    char* s;   /* CT_TEXT (owned) */
} RsCell;

typedef struct ResultSet_ {
    char* name;  /* "hotspots", "categories", ... (owned) */
    int ncols;
    const RsColumn* cols; /* static table (borrowed) */
    int nrows, cap;
    RsCell* cells; /* nrows * ncols */
    char* footer;  /* optional line printed under the table (owned, may be NULL) */
    int pinned;    /* rows [0, pinned) stay on top when sorting (group totals) */
    int trailing;  /* rows [nrows - trailing, nrows) stay at the bottom (listed apart) */
    RsColumn* own_cols; /* ResultSet_newDynamic: the column table cols points to (owned) */
    char** own_keys;    /* ... and its key strings (owned) */
} ResultSet;

ResultSet* ResultSet_new(const char* name, const RsColumn* cols, int ncols);
void ResultSet_delete(ResultSet* this);
/* A ResultSet whose columns are known only at run time (user SQL): ncols columns of type
 * CT_TEXT with empty keys, set with ResultSet_setColumn(); the table is owned. */
ResultSet* ResultSet_newDynamic(const char* name, int ncols);
/* Dynamic sets only: column c gets key (copied; also its title) and type. */
void ResultSet_setColumn(ResultSet* this, int c, const char* key, ColType type);
/* Appends a row of NULL cells and returns its index. */
int ResultSet_addRow(ResultSet* this);
/* Room for `rows` rows in all, when the count is known: no copy of the cells as they grow. */
void ResultSet_reserve(ResultSet* this, int rows);
/* Keeps the pinned rows and the first n others, in their order (--top N); n <= 0 keeps all. */
void ResultSet_keepTop(ResultSet* this, int n);
RsCell* ResultSet_cell(ResultSet* this, int row, int col);
const RsCell* ResultSet_cellc(const ResultSet* this, int row, int col);
void ResultSet_setText(ResultSet* this, int row, int col, const char* s);
void ResultSet_setInt(ResultSet* this, int row, int col, int64_t v);
void ResultSet_setReal(ResultSet* this, int row, int col, double v);
/* A CT_NS value that need not be whole (an average): d keeps it exact, i the nearest ns (for
 * sorting and integer readers). Text and JSON show d. */
void ResultSet_setNs(ResultSet* this, int row, int col, double v);
int ResultSet_columnIndex(const ResultSet* this, const char* key);
/* Row r's value in the column named key, for readers of another module's table: its text
 * ("" when NULL, absent or this is NULL) and its integer (0 likewise). Borrowed. */
const char* ResultSet_textOf(const ResultSet* this, int r, const char* key);
int64_t ResultSet_intOf(const ResultSet* this, int r, const char* key);

/* Stable sort of the unpinned rows by column col; NULLs last. */
void ResultSet_sort(ResultSet* this, int col, int desc);

/* The default direction for a column: descending for numbers, ascending for text. */
int ResultSet_defaultDesc(const ResultSet* this, int col);

#endif
