/* test_idle_host.c - a gap's host activity worked out by hand (idle_host.h): each activity's
 * total within the gap, the largest first, a sync gap's call named with its op and emitted
 * first, a thread that is not the launching one left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/idle_host.h"

typedef struct {
    char name[8][64];
    int64_t ns[8];
    int n;
} Got;

static void got(void* ctx, const char* name, int64_t ns) {
    Got* g = ctx;
    snprintf(g->name[g->n], sizeof(g->name[0]), "%s", name);
    g->ns[g->n++] = ns;
}

/* Thread (1, 1) over the gap [100, 200): op "outer" 90..190 around two "launch" calls
 * 110..120 and 150..170; nothing from 190 on. Another thread's op 100..200 is left out.
 * Innermost per instant: outer 100..110, launch 110..120, outer 120..150, launch 150..170,
 * outer 170..190, untraced 190..200: outer 60 (three stretches), launch 30, untraced 10. */
static Host* rows(HostBlocks* hb, int64_t* n) {
    static const Host in[] = {
        {1, 1, 90, 190, 0, "outer"},   {1, 1, 110, 120, 0, "launch"},
        {1, 1, 150, 170, 0, "launch"}, {2, 1, 100, 200, 0, "other"},
    };
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        *HostBlocks_add(hb) = in[i];
    }
    *n = hb->n;
    return HostBlocks_sorted(hb);
}

static void totals_largest_first(void** state) {
    (void)state;
    HostBlocks hb = {NULL, 0};
    int64_t n;
    Host* h = rows(&hb, &n);
    Got g = {.n = 0};
    IdleHost_gap(h, n, 1, 1, 100, 200, NULL, NULL, got, &g);
    assert_int_equal(g.n, 3);
    assert_string_equal(g.name[0], "outer");
    assert_int_equal(g.ns[0], 60);
    assert_string_equal(g.name[1], "launch");
    assert_int_equal(g.ns[1], 30);
    assert_string_equal(g.name[2], "(untraced)");
    assert_int_equal(g.ns[2], 10);
    free(h);
    HostBlocks_free(&hb);
}

/* The second "launch" as the gap's sync call: its 20 ns named "launch in outer", first,
 * though outer's 60 ns are more; the other launch stays "launch". */
static void sync_call_first(void** state) {
    (void)state;
    HostBlocks hb = {NULL, 0};
    int64_t n;
    Host* h = rows(&hb, &n);
    const Host* y = NULL;
    for (int64_t i = 0; i < n; i++) {
        y = h[i].start == 150 ? &h[i] : y;
    }
    char buf[64];
    const char* label = IdleHost_syncLabel(h, n, y, buf, sizeof(buf));
    assert_string_equal(label, "launch in outer");
    Got g = {.n = 0};
    IdleHost_gap(h, n, 1, 1, 100, 200, y, label, got, &g);
    assert_int_equal(g.n, 4);
    assert_string_equal(g.name[0], "launch in outer");
    assert_int_equal(g.ns[0], 20);
    assert_string_equal(g.name[1], "outer");
    assert_int_equal(g.ns[1], 60);
    assert_string_equal(g.name[2], "launch");
    assert_int_equal(g.ns[2], 10);
    assert_string_equal(g.name[3], "(untraced)");
    assert_int_equal(g.ns[3], 10);
    free(h);
    HostBlocks_free(&hb);
}

/* No launching thread: the whole gap untraced. */
static void no_thread(void** state) {
    (void)state;
    Got g = {.n = 0};
    IdleHost_gap(NULL, 0, -1, -1, 5, 25, NULL, NULL, got, &g);
    assert_int_equal(g.n, 1);
    assert_string_equal(g.name[0], "(untraced)");
    assert_int_equal(g.ns[0], 20);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(totals_largest_first),
        cmocka_unit_test(sync_call_first),
        cmocka_unit_test(no_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
