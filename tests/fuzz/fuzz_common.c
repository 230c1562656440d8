/* fuzz_common.c - see fuzz_common.h. */
#include "fuzz_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcutop/category.h"
#include "dcutop/loader.h"
#include "dcutop/shortname.h"
#include "dcutop/trace_db.h"

static char* fuzz_dir;
static RuleSet* fuzz_rules;

static void remove_tree(const char* dir) {
    /* the folder holds only what Fuzz_write made: files and one level of folders */
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "fuzz: could not remove %s\n", dir);
    }
}

static void at_exit(void) {
    if (fuzz_dir) {
        remove_tree(fuzz_dir);
        free(fuzz_dir);
        fuzz_dir = NULL;
    }
    RuleSet_delete(fuzz_rules);
    fuzz_rules = NULL;
}

const char* Fuzz_dir(void) {
    if (!fuzz_dir) {
        const char* tmp = getenv("TMPDIR");
        char tmpl[4096];
        snprintf(tmpl, sizeof(tmpl), "%s/dcutop-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(tmpl)) {
            fprintf(stderr, "fuzz: mkdtemp %s: %s\n", tmpl, strerror(errno));
            abort();
        }
        fuzz_dir = strdup(tmpl);
        atexit(at_exit);
    }
    return fuzz_dir;
}

char* Fuzz_write(const char* name, const uint8_t* data, size_t size) {
    const char* dir = Fuzz_dir();
    size_t len = strlen(dir) + strlen(name) + 2;
    char* path = malloc(len);
    snprintf(path, len, "%s/%s", dir, name);
    char* slash = strrchr(path, '/');
    if (slash > path + strlen(dir)) {
        *slash = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            fprintf(stderr, "fuzz: mkdir %s: %s\n", path, strerror(errno));
            abort();
        }
        *slash = '/';
    }
    FILE* f = fopen(path, "wb");
    if (!f || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
    return path;
}

const char* Fuzz_pickName(const char* const* names, size_t n, const uint8_t** data,
                          size_t* size) {
    if (*size == 0) {
        return names[0];
    }
    const char* name = names[(*data)[0] % n];
    (*data)++;
    (*size)--;
    return name;
}

void Fuzz_load(const char* const* paths, size_t n) {
    Fuzz_loadThen(paths, n, NULL);
}

void Fuzz_loadThen(const char* const* paths, size_t n, void (*check)(TraceDb* db)) {
    DcuError err;
    Error_clear(&err);
    if (!fuzz_rules) {
        fuzz_rules = RuleSet_new(0);
        if (RuleSet_parse(fuzz_rules, RuleSet_builtinText(), "built-in", &err) != DCU_OK) {
            fprintf(stderr, "fuzz: built-in rules: %s\n", err.msg);
            abort();
        }
    }
    TraceDb* db = NULL;
    if (TraceDb_open(&db, TRACE_DB_DEFAULT_MEMORY, &err) != DCU_OK) {
        fprintf(stderr, "fuzz: TraceDb_open: %s\n", err.msg);
        abort();
    }
    Loader* loader = Loader_new(db, NULL);
    int queued = 0;
    for (size_t i = 0; i < n; i++) {
        queued += Loader_addPath(loader, paths[i], &err) == DCU_OK;
    }
    /* DCU_ERR_EMPTY / DCU_ERR_PARSE are answers about the input, not findings */
    if (queued > 0 && Loader_run(loader, &err) == DCU_OK) {
        RuleSet_apply(fuzz_rules, db, &err);
        if (check) {
            check(db);
        }
    }
    Loader_delete(loader);
    TraceDb_delete(db);
    /* each input is a fresh process: the short-name registry is per process (A/B adds to
     * it), and kept over 17,000 inputs it grew the target past libFuzzer's 2 GB limit */
    ShortName_forget();
}

void Fuzz_loadAs(const char* name, const uint8_t* data, size_t size) {
    char* path = Fuzz_write(name, data, size);
    const char* paths[] = {path};
    Fuzz_load(paths, 1);
    unlink(path);
    free(path);
}

char* Fuzz_text(const uint8_t* data, size_t size) {
    char* t = malloc(size + 1);
    if (size > 0) {
        memcpy(t, data, size);
    }
    t[size] = '\0';
    return t;
}
