/* test_roofline_view.c - the terminal roofline on hand-placed points: log axes fitted to
 * whole decades, where each op lands, the selected op's glyph, braille roofs, no roofs
 * without peaks, ops without FLOPs counted not drawn, too small a rectangle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/efficiency_view.h"

static int is_braille(const Cell* c) {
    const unsigned char* s = (const unsigned char*)c->ch;
    return s[0] == 0xE2 && s[1] >= 0xA0 && s[1] <= 0xA3;
}

static int count_braille(const Canvas* c) {
    int n = 0;
    for (int y = 0; y < c->h; y++) {
        for (int x = 0; x < c->w; x++) {
            n += is_braille(Canvas_at(c, y, x));
        }
    }
    return n;
}

/* 60x12: plot 53 cells wide (7 for labels), 10 rows. Peak 1000 TFLOP/s at 1000 GB/s: the
 * ridge is at 1000 FLOP/B, so x spans 10^0..10^4 (ridge / 10 .. ridge * 10 and the points),
 * y 10^0..10^3. (1, 1) is the bottom-left dot: column 7, last plot row (y 10). (100, 500):
 * x half way: dot 52.5 of 106 -> 53 -> cell 26 -> column 33; y: log10(500)/3 of 39 dots
 * up = 35 -> dot 4 from the top -> plot row 1 (y 2). */
static void points_land_where_computed(void** state) {
    (void)state;
    Canvas* c = Canvas_new(60, 12);
    Canvas_clear(c, STYLE_DEFAULT);
    RooflinePoint p[] = {{1, 1}, {100, 500}, {0, 0}};
    RooflineView_render(c, 0, 0, 60, 12, p, 3, 1, 1000, 1000, "bf16");
    assert_string_equal(Canvas_at(c, 10, 7)->ch, "•");
    assert_string_equal(Canvas_at(c, 2, 33)->ch, "◆");
    assert_int_equal(Canvas_at(c, 2, 33)->style, STYLE_SELECTED);
    assert_int_equal(RooflineView_column(p, 3, 1, 60, 1000, 1000), 33);
    assert_int_equal(RooflineView_column(p, 3, 0, 60, 1000, 1000), 7);
    assert_int_equal(RooflineView_column(p, 3, 2, 60, 1000, 1000), -1); /* no FLOPs */
    /* the compute roof: flat at 1000 (the top plot row) right of the ridge */
    assert_true(is_braille(Canvas_at(c, 1, 58)));
    /* tick labels: decades on the left, the x axis below */
    char row[256] = "";
    for (int x = 0; x < 7; x++) {
        strcat(row, Canvas_at(c, 1, x)->ch);
    }
    assert_non_null(strstr(row, "1000"));
    row[0] = '\0';
    for (int x = 0; x < 60; x++) {
        strcat(row, Canvas_at(c, 11, x)->ch);
    }
    assert_non_null(strstr(row, "10000"));
    /* the op without FLOPs is counted */
    row[0] = '\0';
    for (int x = 0; x < 60; x++) {
        strcat(row, Canvas_at(c, 10, x)->ch);
    }
    assert_non_null(strstr(row, "1 op without FLOPs not shown"));
    Canvas_delete(c);
}

static void no_roofs_without_peaks(void** state) {
    (void)state;
    Canvas* c = Canvas_new(60, 12);
    Canvas_clear(c, STYLE_DEFAULT);
    RooflinePoint p[] = {{1, 1}, {100, 500}};
    RooflineView_render(c, 0, 0, 60, 12, p, 2, 0, 0, 0, NULL);
    assert_int_equal(count_braille(c), 0);
    assert_string_equal(Canvas_at(c, 10, 7)->ch, "◆"); /* selected: the first */
    Canvas_clear(c, STYLE_DEFAULT);
    RooflineView_render(c, 0, 0, 60, 12, p, 2, 0, 1000, 1000, NULL);
    assert_true(count_braille(c) > 40);
    /* too small: nothing drawn */
    Canvas_clear(c, STYLE_DEFAULT);
    RooflineView_render(c, 0, 0, 20, 12, p, 2, 0, 1000, 1000, NULL);
    assert_string_equal(Canvas_at(c, 0, 0)->ch, " ");
    Canvas_delete(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(points_land_where_computed),
        cmocka_unit_test(no_roofs_without_peaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
