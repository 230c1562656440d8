/* test_util.c - see testutil.h. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcutop/category.h"
#include "dcutop/xalloc.h"

char* TestUtil_tempDir(void) {
    char* t = xstrdup("/tmp/dcutop-test-XXXXXX");
    if (!mkdtemp(t)) {
        abort();
    }
    return t;
}

void TestUtil_rmTree(const char* dir) {
    char* cmd = xasprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot remove %s\n", dir);
    }
    free(cmd);
}

int TestUtil_dirSetup(char** dir) {
    *dir = TestUtil_tempDir();
    return 0;
}

int TestUtil_dirTeardown(char** dir) {
    TestUtil_rmTree(*dir);
    free(*dir);
    *dir = NULL;
    return 0;
}

char* TestUtil_writeFile(const char* dir, const char* name, const void* data, size_t len) {
    char* p = xasprintf("%s/%s", dir, name);
    FILE* f = fopen(p, "wb");
    if (!f) {
        abort();
    }
    fwrite(data, 1, len, f);
    fclose(f);
    return p;
}

TraceDb* TestUtil_load(const char* path, DcuStatus* status) {
    return TestUtil_loadBounded(path, TRACE_DB_DEFAULT_MEMORY, status);
}

TraceDb* TestUtil_loadBounded(const char* path, int64_t memory, DcuStatus* status) {
    TraceDb* db = NULL;
    DcuError err;
    if (TraceDb_open(&db, memory, &err) != DCU_OK) {
        abort();
    }
    Loader* l = Loader_new(db, NULL);
    DcuStatus s = Loader_addPath(l, path, &err);
    if (s == DCU_OK) {
        s = Loader_run(l, &err);
    }
    Loader_delete(l);
    RuleSet* r = RuleSet_new(0);
    if (RuleSet_parse(r, RuleSet_builtinText(), "built-in", &err) != DCU_OK ||
        RuleSet_apply(r, db, &err) != DCU_OK) {
        fprintf(stderr, "rules: %s\n", err.msg);
        abort();
    }
    RuleSet_delete(r);
    if (status) {
        *status = s;
    }
    return db;
}

int64_t TestUtil_int(TraceDb* db, const char* sql) {
    return TraceDb_scalarInt(db, sql);
}

char* TestUtil_text(TraceDb* db, const char* sql) {
    sqlite3_stmt* st = NULL;
    char* out = NULL;
    if (sqlite3_prepare_v2(TraceDb_handle(db), sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        out = xstrdup((const char*)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return out ? out : xstrdup("");
}

int64_t TestUtil_shellInt(const char* cmd) {
    FILE* p = popen(cmd, "r");
    if (!p) {
        return -1;
    }
    char line[256] = "";
    if (!fgets(line, sizeof(line), p)) {
        line[0] = '\0';
    }
    pclose(p);
    return strtoll(line, NULL, 10);
}

const char* TestUtil_real(void) {
    return "tests/data/real";
}
