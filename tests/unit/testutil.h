/* testutil.h - helpers shared by the unit tests (no curses). */
#ifndef DCUTOP_TESTUTIL_H
#define DCUTOP_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/loader.h"
#include "dcutop/trace_db.h"

/* A new empty temp directory (owned string, removed by TestUtil_rmTree). */
char* TestUtil_tempDir(void);
void TestUtil_rmTree(const char* dir);
/* The temp-folder fixture most file tests share: TestUtil_dirSetup makes *dir a fresh temp
 * folder (owned), TestUtil_dirTeardown removes it, frees *dir and sets it NULL. Both return 0,
 * what cmocka's setup and teardown return on success:
 *     static int setup(void** state) { (void)state; return TestUtil_dirSetup(&dir); } */
int TestUtil_dirSetup(char** dir);
int TestUtil_dirTeardown(char** dir);

/* That fixture in one line: a static char* NAME and the cmocka setup/teardown that fill and
 * clear it (the nine file tests that share it each wrote the same eleven lines). */
#define TESTUTIL_DIR_FIXTURE(NAME)                                                           \
    static char* NAME;                                                                       \
    static int setup(void** state) {                                                         \
        (void)state;                                                                         \
        return TestUtil_dirSetup(&NAME);                                                     \
    }                                                                                        \
    static int teardown(void** state) {                                                      \
        (void)state;                                                                         \
        return TestUtil_dirTeardown(&NAME);                                                  \
    }
/* Writes len bytes to dir/name; returns the path (owned). */
char* TestUtil_writeFile(const char* dir, const char* name, const void* data, size_t len);
/* Loads path into a fresh db and applies the built-in rules.
 * *status gets Loader_run's status; the db is returned even when nothing loaded. */
TraceDb* TestUtil_load(const char* path, DcuStatus* status);
/* The same with the database's memory bound (TraceDb_open; 0: :memory:). */
TraceDb* TestUtil_loadBounded(const char* path, int64_t memory, DcuStatus* status);
/* Runs SQL returning one integer / one text (owned, "" when no row). */
int64_t TestUtil_int(TraceDb* db, const char* sql);
char* TestUtil_text(TraceDb* db, const char* sql);
/* Runs a shell command and returns its first output line as an integer. */
int64_t TestUtil_shellInt(const char* cmd);
/* The real profiler outputs the tests read, copied into the repository (each with SOURCE.txt). */
const char* TestUtil_real(void);

#endif
