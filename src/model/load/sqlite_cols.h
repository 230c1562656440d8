/* sqlite_cols.h - the column names of a table or view of an input database (load_sqlite.c
 * maps rocpd's views by them). Private to the model. */
#ifndef DCUTOP_SQLITE_COLS_H
#define DCUTOP_SQLITE_COLS_H

#include <sqlite3.h>
#include <stddef.h>

typedef struct Cols_ {
    char** name;
    int n, cap;
} Cols;

/* Reads the columns of table or view `view` of db into c (at most 4096); 0 with SQLite's
 * reason in err when it cannot (a view SQLite cannot compile: a table it reads dropped, a
 * circular definition), else 1 (c empty when there is no such table). */
int Cols_read(sqlite3* db, const char* view, Cols* c, char* err, size_t cap);
/* 1 when c holds the column of the n bytes at name (ASCII case ignored). */
int Cols_has(const Cols* c, const char* name, size_t n);
void Cols_free(Cols* c);

#endif
