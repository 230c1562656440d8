/* test_out_file.c - OutFile's protocol: nothing reaches the target before commit, abort leaves
 * it as it was and removes only the temp file it made, commit renames into place; symlinks
 * and FIFOs; the refusal without OUT_FORCE. Everything in a temp folder. */
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

#include "dcutop/out_file.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* each test's temp folder: setup, teardown */

/* The whole content of a file (owned), or NULL. */
static char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char* buf = xcalloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void assert_content(const char* path, const char* want) {
    char* got = slurp(path);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static int entries(void) { /* files in dir, . and .. included */
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "ls -a '%s' | wc -l", dir);
    return (int)TestUtil_shellInt(cmd);
}

static void commit_renames_abort_keeps(void** state) {
    (void)state;
    char* p = TestUtil_writeFile(dir, "out.csv", "old\n", 4);
    OutFile of;
    DcuError err;
    assert_int_equal(OutFile_open(&of, p, 0, &err), DCU_ERR_USAGE);
    assert_non_null(strstr(err.msg, "use --force"));
    assert_non_null(strstr(err.msg, p));
    assert_int_equal(OutFile_check(p, 0, &err), DCU_ERR_USAGE);
    assert_int_equal(OutFile_check(p, OUT_FORCE, &err), DCU_OK);
    assert_true(OutFile_wouldReplace(p));

    int before = entries();
    assert_int_equal(OutFile_open(&of, p, OUT_FORCE, &err), DCU_OK);
    assert_non_null(OutFile_tempPath(&of));
    assert_non_null(strstr(OutFile_tempPath(&of), "/.out.csv.dcutop-"));
    fputs("new\n", of.fp);
    fflush(of.fp);
    assert_content(p, "old\n"); /* nothing reaches the target before commit */
    assert_int_equal(entries(), before + 1);
    OutFile_abort(&of);
    assert_content(p, "old\n");
    assert_int_equal(entries(), before); /* the temp file went, nothing else */

    assert_int_equal(OutFile_open(&of, p, OUT_FORCE, &err), DCU_OK);
    fputs("new\n", of.fp);
    assert_int_equal(OutFile_commit(&of, &err), DCU_OK);
    assert_content(p, "new\n");
    assert_int_equal(entries(), before);
    free(p);
}

static void finish_names_the_path(void** state) {
    (void)state;
    char* p = xasprintf("%s/fresh.csv", dir);
    OutFile of;
    DcuError err;
    assert_false(OutFile_wouldReplace(p));
    assert_int_equal(OutFile_open(&of, p, 0, &err), DCU_OK);
    Error_set(&err, DCU_ERR_IO, "write error: %s", "No space left on device");
    assert_int_equal(OutFile_finish(&of, DCU_ERR_IO, &err), DCU_ERR_IO);
    char want[600];
    snprintf(want, sizeof(want), "%s: write error: No space left on device", p);
    assert_string_equal(err.msg, want);
    assert_int_equal(access(p, F_OK), -1); /* a failed writer leaves no file */
    free(p);
}

static void links_and_fifos(void** state) {
    (void)state;
    char* target = TestUtil_writeFile(dir, "t.csv", "old\n", 4);
    char* link = xasprintf("%s/l.csv", dir);
    assert_int_equal(symlink("t.csv", link), 0);
    OutFile of;
    DcuError err;
    assert_true(OutFile_wouldReplace(link));
    assert_int_equal(OutFile_open(&of, link, OUT_FORCE, &err), DCU_OK);
    fputs("new\n", of.fp);
    assert_int_equal(OutFile_commit(&of, &err), DCU_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_content(target, "new\n");

    char* fifo = xasprintf("%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_false(OutFile_wouldReplace(fifo)); /* the TUI does not ask */
    assert_int_equal(OutFile_check(fifo, 0, &err), DCU_OK);

    char* loop = xasprintf("%s/loop", dir);
    assert_int_equal(symlink("loop", loop), 0);
    assert_int_equal(OutFile_open(&of, loop, OUT_FORCE, &err), DCU_ERR_IO);
    assert_non_null(strstr(err.msg, "Too many levels"));
    assert_int_equal(OutFile_check(dir, OUT_FORCE, &err), DCU_ERR_IO);
    assert_non_null(strstr(err.msg, "is a folder"));
    free(loop);
    free(fifo);
    free(link);
    free(target);
}

/* issue 26 H6: the check at open is not enough; a file that appears at the target while the
 * temp file is written is kept (RENAME_NOREPLACE), unless OUT_FORCE */
static void commit_never_replaces_a_newcomer(void** state) {
    (void)state;
    char* p = xasprintf("%s/race.csv", dir);
    OutFile of;
    DcuError err;
    int before = entries();
    assert_int_equal(OutFile_open(&of, p, 0, &err), DCU_OK);
    fputs("mine\n", of.fp);
    free(TestUtil_writeFile(dir, "race.csv", "theirs\n", 7)); /* another writer, meanwhile */
    assert_int_equal(OutFile_commit(&of, &err), DCU_ERR_USAGE);
    assert_non_null(strstr(err.msg, "file exists: made while dcutop was writing"));
    assert_non_null(strstr(err.msg, p));
    assert_content(p, "theirs\n");
    assert_int_equal(entries(), before + 1); /* race.csv; the temp file went */

    assert_int_equal(OutFile_open(&of, p, OUT_FORCE, &err), DCU_OK);
    fputs("mine\n", of.fp);
    assert_int_equal(OutFile_commit(&of, &err), DCU_OK); /* --force: replaced */
    assert_content(p, "mine\n");
    free(p);
}

/* issue 26 H3, H4, M6: a FIFO with no reader under OUT_NOWAIT, a link that leaves its folder,
 * the temp files removed by OutFile_removeTemps() (what a signal handler calls) */
static void nowait_outside_and_signals(void** state) {
    (void)state;
    OutFile of;
    DcuError err;
    char* fifo = xasprintf("%s/nowait.fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(OutFile_open(&of, fifo, OUT_NOWAIT, &err), DCU_ERR_IO);
    assert_non_null(strstr(err.msg, "a FIFO with no reader (not waited for)"));

    char* sub = xasprintf("%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    char* out = xasprintf("%s/sub/out.csv", dir);
    char* victim = TestUtil_writeFile(dir, "victim", "precious\n", 9);
    assert_int_equal(symlink(victim, out), 0);
    OutFileInfo in;
    assert_int_equal(OutFile_inspect(out, &in, &err), DCU_OK);
    assert_true(in.is_link && in.exists && in.regular && in.outside);
    assert_string_equal(in.target, victim);
    free(in.target);
    assert_int_equal(OutFile_open(&of, out, OUT_FORCE, &err), DCU_ERR_USAGE);
    assert_non_null(strstr(err.msg, "outside its folder (not written; use --force)"));
    assert_int_equal(OutFile_check(out, OUT_FORCE_ALL, &err), DCU_OK);
    assert_content(victim, "precious\n");
    char* inside = xasprintf("%s/sub/in.csv", dir);
    assert_int_equal(symlink("new.csv", inside), 0);
    assert_int_equal(OutFile_inspect(inside, &in, &err), DCU_OK);
    assert_true(in.is_link && !in.exists && !in.outside);
    free(in.target);

    char* p = xasprintf("%s/sig.csv", dir);
    int before = entries();
    assert_int_equal(OutFile_open(&of, p, 0, &err), DCU_OK);
    assert_int_equal(entries(), before + 1);
    OutFile_removeTemps();
    assert_int_equal(entries(), before); /* the handler's unlink */
    OutFile_abort(&of);
    assert_int_equal(access(p, F_OK), -1);
    free(p);
    free(inside);
    free(victim);
    free(out);
    free(sub);
    free(fifo);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commit_renames_abort_keeps),
        cmocka_unit_test(finish_names_the_path),
        cmocka_unit_test(links_and_fifos),
        cmocka_unit_test(commit_never_replaces_a_newcomer),
        cmocka_unit_test(nowait_outside_and_signals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
