/* sqlite_cols.c - the column names of a table or view of an input database. */
#include "sqlite_cols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/xalloc.h"

void Cols_free(Cols* c) {
    for (int i = 0; i < c->n; i++) {
        free(c->name[i]);
    }
    free(c->name);
    memset(c, 0, sizeof(*c));
}

int Cols_read(sqlite3* db, const char* view, Cols* c, char* err, size_t cap) {
    memset(c, 0, sizeof(*c));
    sqlite3_stmt* st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL);
    sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && c->n < 4096 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        const char* n = (const char*)sqlite3_column_text(st, 0);
        if (n) {
            if (c->n == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 16;
                c->name = xrealloc(c->name, sizeof(char*) * (size_t)c->cap);
            }
            c->name[c->n++] = xstrdup(n);
        }
    }
    /* stepping a view SQLite cannot compile fails: its reason is the user's to read */
    snprintf(err, cap, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK || rc == SQLITE_DONE;
}

int Cols_has(const Cols* c, const char* name, size_t n) {
    for (int i = 0; i < c->n; i++) {
        if (strlen(c->name[i]) == n && strncasecmp(c->name[i], name, n) == 0) {
            return 1;
        }
    }
    return 0;
}
