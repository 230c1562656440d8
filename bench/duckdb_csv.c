/* duckdb_csv.c - the DuckDB peer of `make bench` (issue 23): DuckDB's C library answers
 * the kernel summary of a rocprof v1 results.csv with a given number of threads.
 *
 *   duckdb_csv LIBDUCKDB THREADS FILE.csv   prints one line per kernel name
 *
 * libduckdb.so is loaded with dlopen (bench/fetch_duckdb.sh fetches it from npm into the
 * git-ignored bench/duckdb/), so building this needs neither the library nor its header:
 * the few C API calls are declared here, the result struct kept as opaque, ample storage. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void* Handle;                      /* duckdb_database, duckdb_connection */
typedef struct { char opaque[256]; } Res;  /* duckdb_result is 48 bytes in DuckDB 1.x */

int main(int argc, char** argv) {
    if (argc != 4 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: duckdb_csv LIBDUCKDB THREADS FILE.csv\n");
        return 2;
    }
    void* lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "duckdb_csv: %s\n", dlerror());
        return 2;
    }
    int (*open_db)(const char*, Handle*) = (int (*)(const char*, Handle*))dlsym(lib, "duckdb_open");
    int (*connect)(Handle, Handle*) = (int (*)(Handle, Handle*))dlsym(lib, "duckdb_connect");
    int (*query)(Handle, const char*, Res*) = (int (*)(Handle, const char*, Res*))dlsym(lib, "duckdb_query");
    unsigned long long (*rows)(Res*) = (unsigned long long (*)(Res*))dlsym(lib, "duckdb_row_count");
    char* (*value)(Res*, unsigned long long, unsigned long long) =
        (char* (*)(Res*, unsigned long long, unsigned long long))dlsym(lib, "duckdb_value_varchar");
    const char* (*error)(Res*) = (const char* (*)(Res*))dlsym(lib, "duckdb_result_error");
    void (*free_value)(void*) = (void (*)(void*))dlsym(lib, "duckdb_free");
    if (!open_db || !connect || !query || !rows || !value || !error || !free_value) {
        fprintf(stderr, "duckdb_csv: %s lacks the C API\n", argv[1]);
        return 2;
    }
    Handle db, con;
    Res r;
    char sql[8192];
    size_t n = (size_t)snprintf(sql, sizeof(sql), "SET threads = %d", atoi(argv[2]));
    if (open_db(NULL, &db) != 0 || connect(db, &con) != 0 || query(con, sql, &r) != 0) {
        fprintf(stderr, "duckdb_csv: cannot open DuckDB\n");
        return 1;
    }
    n = (size_t)snprintf(sql, sizeof(sql), "SELECT KernelName, count(*), sum(DurationNs), "
                         "avg(DurationNs), min(DurationNs), max(DurationNs) FROM read_csv('");
    for (const char* p = argv[3]; *p && n + 64 < sizeof(sql); p++) { /* a path as SQL text */
        sql[n++] = *p;
        if (*p == '\'') {
            sql[n++] = '\'';
        }
    }
    snprintf(sql + n, sizeof(sql) - n, "') GROUP BY 1 ORDER BY 3 DESC");
    if (query(con, sql, &r) != 0) {
        fprintf(stderr, "duckdb_csv: %s\n", error(&r));
        return 1;
    }
    for (unsigned long long i = 0; i < rows(&r); i++) {
        for (unsigned long long c = 0; c < 6; c++) {
            char* v = value(&r, c, i);
            printf("%s%s", c ? "," : "", v ? v : "");
            free_value(v);
        }
        putchar('\n');
    }
    return 0;
}
