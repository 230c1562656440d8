/* fuzz_alloc.c - rocpd memory allocation tables: each input is a list of 24-byte records
 * (operation, level, address, size, start, end) written into a rocpd 4.1.0 database built
 * from tests/data/rocpd-4.1.0/schema.sql, so that every record reaches the live-bytes pass
 * (random database bytes almost never do). Oracle: no live total below 0 or past 2^53. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcutop/trace_db.h"
#include "fuzz_common.h"

static char* schema;

static void load_schema(void) {
    const char* root = getenv("DCUTOP_FUZZ_ROOT");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/data/rocpd-4.1.0/schema.sql", root ? root : ".");
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_alloc: cannot read %s (set DCUTOP_FUZZ_ROOT)\n", path);
        abort();
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    schema = malloc((size_t)n + 1);
    if (fread(schema, 1, (size_t)n, f) != (size_t)n) {
        abort();
    }
    schema[n] = '\0';
    fclose(f);
}

static int64_t i64_at(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return (int64_t)v;
}

static void check(TraceDb* db) {
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(TraceDb_handle(db),
                           "SELECT count(*) FROM mem_alloc WHERE live_bytes < 0 OR"
                           " live_bytes > 9007199254740992", -1, &st, NULL) != SQLITE_OK) {
        abort();
    }
    if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 0) != 0) {
        fprintf(stderr, "fuzz_alloc: a live total below 0 or past 2^53\n");
        abort();
    }
    sqlite3_finalize(st);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char* const ops[] = {"ALLOC", "FREE", "REALLOC", "RECLAIM", "alloc", "", "X"};
    static const char* const levels[] = {"REAL", "VIRTUAL", "SCRATCH", "real", ""};
    if (!schema) {
        load_schema();
    }
    char* path = Fuzz_write("alloc/results.db", (const uint8_t*)"", 0);
    unlink(path);
    sqlite3* w = NULL;
    if (sqlite3_open(path, &w) != SQLITE_OK || sqlite3_exec(w, schema, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(w, "BEGIN; INSERT INTO rocpd_string(id, guid, string) VALUES(1, 'g', 'a');"
                        "INSERT INTO rocpd_track(id, guid, pid, agent_id) VALUES(1, 'g', 7, 1);"
                        "INSERT INTO rocpd_event(id, guid) VALUES(1, 'g');",
                     NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "fuzz_alloc: schema: %s\n", sqlite3_errmsg(w));
        abort();
    }
    sqlite3_stmt* ins = NULL;
    if (sqlite3_prepare_v2(w, "INSERT INTO rocpd_memory_allocate(guid, track_id, type, level,"
                              " start, end, name_id, address, size, event_id)"
                              " VALUES('g', 1, ?1, ?2, ?3, ?4, 1, ?5, ?6, 1)",
                           -1, &ins, NULL) != SQLITE_OK) {
        abort();
    }
    enum { REC = 24 };
    for (size_t off = 0; off + REC <= size && off < 4096 * REC; off += REC) {
        const uint8_t* r = data + off;
        sqlite3_bind_text(ins, 1, ops[r[0] % 7], -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 2, levels[r[1] % 5], -1, SQLITE_STATIC);
        int64_t start = (int64_t)(r[2] | r[3] << 8) * 1000, end = start + (int8_t)r[4] * 10;
        sqlite3_bind_int64(ins, 3, start);
        sqlite3_bind_int64(ins, 4, end);
        sqlite3_bind_int64(ins, 5, (int64_t)(r[5] | r[6] << 8)); /* few addresses: reuse */
        int64_t sz = i64_at(r + 8);
        if (r[7] & 1) { /* mostly near the 2^53 bound, where sums overflow */
            sz = (INT64_C(1) << 53) - (sz & 0xFFFF);
        }
        sqlite3_bind_int64(ins, 6, sz);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    sqlite3_exec(w, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(w);
    const char* paths[] = {path};
    Fuzz_loadThen(paths, 1, check);
    unlink(path);
    free(path);
    return 0;
}
