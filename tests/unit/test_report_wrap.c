/* test_report_wrap.c - Report_wrap, the one prose wrapper of the text report (advice lines, the
 * ranks verdict): words fill each line up to width cells, the text's own leading spaces stay on
 * the first line, the lines after it are indented; a line longer than 1 KiB (a wide --width)
 * keeps every word. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/report_table.h"
#include "dcutop/xalloc.h"

/* Report_wrap's output (owned). */
static char* wrap(const char* s, int width, int indent) {
    char* buf = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    assert_non_null(f);
    Report_wrap(f, s, width, indent);
    fclose(f);
    return buf;
}

static void wraps_at_width_with_indent(void** state) {
    (void)state;
    char* got = wrap("  Straggler: rank 3 computes 6.0 ms more  in step 2", 20, 2);
    /* lines of at most 20 cells; runs of spaces between words become one */
    assert_string_equal(got, "  Straggler: rank 3\n  computes 6.0 ms\n  more in step 2\n");
    free(got);
    got = wrap("What to optimise first", 10, 4);
    assert_string_equal(got, "What to\n    optimise\n    first\n");
    free(got);
    got = wrap("", 10, 2);
    assert_string_equal(got, "");
    free(got);
    got = wrap("  ", 10, 2); /* only indentation: kept, as before */
    assert_string_equal(got, "  \n");
    free(got);
}

/* 300 words of 5 cells and their spaces: 1800 cells on one line at width 10000 */
static void long_line_keeps_every_word(void** state) {
    (void)state;
    char* text = xmalloc(300 * 6 + 1);
    text[0] = '\0';
    for (int i = 0; i < 300; i++) {
        strcat(text, i ? " w" : "w");
        char num[8];
        snprintf(num, sizeof(num), "%04d", i);
        strcat(text, num);
    }
    char* got = wrap(text, 10000, 2);
    size_t n = strlen(got);
    assert_true(n > 0 && got[n - 1] == '\n');
    got[n - 1] = '\0';
    assert_string_equal(got, text);
    free(got);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wraps_at_width_with_indent),
        cmocka_unit_test(long_line_keeps_every_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
