/* test_walk.c - the folder walk's building blocks: the (st_dev, st_ino) set, regular-file-only
 * opening (a FIFO refused without blocking), and FolderWalk on links, loops and depth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "dcutop/folder_walk.h"
#include "dcutop/inode_set.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

static void inode_set_finds_each_pair_once(void** state) {
    (void)state;
    InodeSet* s = InodeSet_new();
    enum { N = 200000 }; /* many times the first table size: growth keeps every pair */
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof(name), "f%d", i);
        assert_null(InodeSet_add(s, (dev_t)(i % 3), (ino_t)i, name));
    }
    assert_int_equal(InodeSet_count(s), N);
    for (int i = 0; i < N; i += 997) {
        char name[32];
        snprintf(name, sizeof(name), "f%d", i);
        const char* first = InodeSet_add(s, (dev_t)(i % 3), (ino_t)i, "again");
        assert_non_null(first);
        assert_string_equal(first, name);
    }
    /* the same inode number on another device is another file */
    assert_null(InodeSet_add(s, (dev_t)7, (ino_t)5, "other device"));
    assert_int_equal(InodeSet_count(s), N + 1);
    assert_string_equal(InodeSet_find(s, (dev_t)7, (ino_t)5), "other device");
    assert_null(InodeSet_find(s, (dev_t)8, (ino_t)5));
    InodeSet_delete(s);
    InodeSet_delete(NULL);
}

static void safe_open_refuses_fifo_without_blocking(void** state) {
    (void)state;
    char* dir = TestUtil_tempDir();
    char* fifo = xasprintf("%s/pipe.csv", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    DcuError err;
    Error_clear(&err);
    /* a plain open() of a FIFO with no writer would wait here forever */
    assert_int_equal(SafeFile_open(fifo, NULL, &err), -1);
    assert_string_equal(err.msg, "not a regular file: FIFO");
    assert_null(SafeFile_fopen(fifo, &err));
    assert_int_equal(SafeFile_check(dir, NULL, &err), -1);
    assert_string_equal(err.msg, "not a regular file: directory");
    char* missing = xasprintf("%s/none.csv", dir);
    assert_int_equal(SafeFile_open(missing, NULL, &err), -1);
    assert_string_equal(err.msg, "cannot open: No such file or directory");

    char* reg = TestUtil_writeFile(dir, "a.csv", "x,y\n", 4);
    FILE* f = SafeFile_fopen(reg, &err);
    assert_non_null(f);
    char buf[8] = {0};
    assert_int_equal(fread(buf, 1, sizeof(buf), f), 4); /* blocking again, reads normally */
    assert_string_equal(buf, "x,y\n");
    fclose(f);
    TestUtil_rmTree(dir);
    free(fifo);
    free(missing);
    free(reg);
    free(dir);
}

static const WalkEntry* entry(const FolderWalk* w, const char* name) {
    for (int i = 0; i < FolderWalk_count(w); i++) {
        if (strcmp(FolderWalk_entry(w, i)->name, name) == 0) {
            return FolderWalk_entry(w, i);
        }
    }
    return NULL;
}

static void walk_links_loops_and_depth(void** state) {
    (void)state;
    char* dir = TestUtil_tempDir();
    char* p = xasprintf("%s/run1/a/b", dir);
    char* cmd = xasprintf("mkdir -p '%s' && cd '%s' && ln -s run1 latest && ln -s . loop && "
                          "ln -s . run1/self && ln -s nowhere dangling.csv && mkfifo pipe.csv",
                          p, dir);
    assert_int_equal(system(cmd), 0);
    free(TestUtil_writeFile(dir, "run1/k.csv", "x\n", 2));
    free(TestUtil_writeFile(p, "deep.csv", "x\n", 2));
    FolderWalk* w = FolderWalk_new(1); /* run1 (depth 1) is read, run1/a is too deep */
    DcuError err;
    assert_int_equal(FolderWalk_add(w, dir, &err), DCU_OK);
    assert_int_equal(FolderWalk_add(w, dir, &err), DCU_OK); /* the same folder again */
    FolderWalk_finish(w);

    const WalkEntry* e = entry(w, "run1/k.csv");
    assert_non_null(e);
    assert_null(e->format); /* to be loaded, under its real name, once */
    assert_int_equal(e->bytes, 2);
    e = entry(w, "latest");
    assert_non_null(e);
    assert_string_equal(e->note, "same folder as run1");
    e = entry(w, "loop");
    assert_non_null(e);
    assert_string_equal(e->format, "skipped");
    e = entry(w, "run1/self");
    assert_non_null(e);
    assert_string_equal(e->note, "same folder as run1");
    e = entry(w, "pipe.csv");
    assert_non_null(e);
    assert_string_equal(e->note, "not a regular file: FIFO");
    e = entry(w, "run1/a");
    assert_non_null(e);
    assert_string_equal(e->note, "folder nested deeper than 1 levels: not read");
    assert_int_equal(e->warn, 1);
    e = entry(w, "dangling.csv");
    assert_non_null(e);
    assert_null(e->format); /* opened, and its open says why it failed */
    assert_null(entry(w, "run1/a/b/deep.csv"));
    /* the second root: one row */
    int same_root = 0, loads = 0;
    for (int i = 0; i < FolderWalk_count(w); i++) {
        const WalkEntry* x = FolderWalk_entry(w, i);
        same_root += x->note && strcmp(x->name, dir) == 0;
        loads += x->format == NULL && strstr(x->name, "k.csv") != NULL;
    }
    assert_int_equal(same_root, 1);
    assert_int_equal(loads, 1);
    FolderWalk_delete(w);
    TestUtil_rmTree(dir);
    free(cmd);
    free(p);
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inode_set_finds_each_pair_once),
        cmocka_unit_test(safe_open_refuses_fifo_without_blocking),
        cmocka_unit_test(walk_links_loops_and_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
