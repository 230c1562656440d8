/* fuzz_keys.c - headless key scripts (script.c: keys in the rc key syntax, :dump, :resize,
 * :quit) replayed against a whole App, the way `dcutop --headless --keys FILE` does: every
 * screen, filter, sort, drill-down and export the keys reach runs on a real trace.
 * The trace (sample-traces/rocprofv3-sdk-docs-csv, or $DCUTOP_FUZZ_TRACE) is loaded once
 * per process; each input gets a fresh App and the default key map. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dcutop/app.h"
#include "dcutop/category.h"
#include "dcutop/loader.h"
#include "dcutop/script.h"
#include "dcutop/user_sql.h"
#include "fuzz_common.h"

static TraceDb* db;

static void load_trace(void) {
    const char* trace = getenv("DCUTOP_FUZZ_TRACE");
    if (!trace || !*trace) {
        trace = "sample-traces/rocprofv3-sdk-docs-csv";
    }
    DcuError err;
    Error_clear(&err);
    RuleSet* rules = RuleSet_new(0);
    Loader* loader = NULL;
    if (TraceDb_open(&db, TRACE_DB_DEFAULT_MEMORY, &err) != DCU_OK ||
        RuleSet_parse(rules, RuleSet_builtinText(), "built-in", &err) != DCU_OK ||
        !(loader = Loader_new(db, NULL)) || Loader_addPath(loader, trace, &err) != DCU_OK ||
        Loader_run(loader, &err) != DCU_OK || RuleSet_apply(rules, db, &err) != DCU_OK) {
        fprintf(stderr, "fuzz_keys: cannot load %s (run from the repository root): %s\n", trace,
                err.msg);
        abort();
    }
    Loader_delete(loader);
    RuleSet_delete(rules);
    /* the ; prompt's statements stop within a second and 64 MiB, so an endless or huge one
     * (corpus sql_hostile) is an answer, not a timeout */
    UserSqlBudget b = {1.0, 64LL << 20, 64LL << 20};
    UserSql_setBudget(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!db) {
        load_trace();
    }
    char* path = Fuzz_write("script.keys", data, size);
    Keymap* km = Keymap_new();
    AppOptions ao = {.title = "fuzz", .gemm_like = 0, .export_dir = Fuzz_dir()};
    App* app = App_new(db, km, &ao, 100, 30);
    char* text = NULL;
    size_t len = 0;
    FILE* out = open_memstream(&text, &len);
    DcuError err;
    Error_clear(&err);
    Script_run(app, path, out, NULL, &err); /* a bad script is an answer, not a finding */
    fclose(out);
    free(text);
    App_delete(app);
    Keymap_delete(km);
    unlink(path);
    free(path);
    return 0;
}
