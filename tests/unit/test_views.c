/* test_views.c - the view layer without curses: canvas, table view on a hand-built
 * ResultSet, themes, key names and rc parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/canvas.h"
#include "dcutop/chrome_view.h"
#include "dcutop/doc_view.h"
#include "dcutop/keymap.h"
#include "dcutop/table_view.h"
#include "dcutop/theme.h"

static char* dump(const Canvas* c) {
    char* buf = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    Canvas_dump(c, f);
    fclose(f);
    return buf;
}

static void canvas_neutralizes_controls_and_counts_wide(void** state) {
    (void)state;
    Canvas* c = Canvas_new(10, 2);
    assert_int_equal(Canvas_put(c, 0, 0, STYLE_NAME, "a\x1b[1mb", -1), 6);
    assert_string_equal(Canvas_at(c, 0, 1)->ch, "?");
    /* two wide characters take four cells; the fifth cell stays blank */
    assert_int_equal(Canvas_put(c, 1, 0, STYLE_NAME, "\xe4\xb8\xad\xe6\x96\x87x", -1), 5);
    assert_string_equal(Canvas_at(c, 1, 1)->ch, "");
    /* clipped at the edge, never past it */
    assert_int_equal(Canvas_put(c, 0, 8, STYLE_NAME, "abcdef", -1), 2);
    char* d = dump(c);
    assert_string_equal(d, "a?[1mb  ab\n\xe4\xb8\xad\xe6\x96\x87x\n");
    free(d);
    Canvas_delete(c);
}

static const RsColumn cols[] = {
    {"name", "Kernel", CT_TEXT}, {"calls", "Calls", CT_INT}, {"total_ns", "Total", CT_NS},
    {"pct", "%Time", CT_PCT},    {"extra", "Extra", CT_INT},
};

static void table_view_units_sort_mark_and_selection(void** state) {
    (void)state;
    ResultSet* rs = ResultSet_new("t", cols, 5);
    const char* names[] = {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN", "softmax_warp"};
    int64_t tot[] = {825000000, 6900000};
    for (int i = 0; i < 2; i++) {
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, 0, names[i]);
        ResultSet_setInt(rs, r, 1, 10 + i);
        ResultSet_setInt(rs, r, 2, tot[i]);
        ResultSet_setReal(rs, r, 3, 50.0 * (i + 1));
        ResultSet_setInt(rs, r, 4, 7);
    }
    static const char* const keys[] = {"name", "calls", "total_ns", "pct", "extra", NULL};
    static const char* const drop[] = {"extra", NULL};
    TableLayout l;
    TableLayout_compute(&l, rs, keys, "name", drop, 36);
    assert_int_equal(l.n, 4); /* "extra" dropped to give the name room */
    TableLayout_compute(&l, rs, keys, "name", drop, 56);
    Canvas* c = Canvas_new(56, 4);
    TableViewState st = {1, 0, 2, 1};
    TableView_render(&st, &l, rs, c, 0, 3);
    char* d = dump(c);
    /* unit chosen from the values (ms), sort arrow on Total, numbers right-aligned */
    assert_non_null(strstr(d, "Total ms\xe2\x96\xbc"));
    assert_non_null(strstr(d, "825.00"));
    assert_non_null(strstr(d, "  6.90"));
    assert_non_null(strstr(d, "MT128x128x32"));
    free(d);
    assert_int_equal(Canvas_at(c, 2, 5)->style, STYLE_SELECTED);
    assert_int_equal(Canvas_at(c, 1, 5)->style, STYLE_NAME);
    Canvas_delete(c);
    ResultSet_delete(rs);
}

/* The Summary's first screen (SummaryData.pending): the totals show, the timeline's and the
 * advice's places say "computing..." (their analyses come after the first screen); once
 * they are in, those lines go and the totals stay as they were. */
static void summary_pending_then_whole(void** state) {
    (void)state;
    SummaryData sd;
    memset(&sd, 0, sizeof(sd));
    sd.title = "t";
    sd.totals.kernels = 2;
    sd.totals.dispatches = 5;
    sd.totals.kernel_ns = 1000000;
    sd.totals.gemm_ns = 250000;
    sd.totals.per_dispatch = 1;
    sd.pending = 1;
    char* text[2];
    for (int pass = 0; pass < 2; pass++) {
        Doc* d = SummaryView_build(&sd, 100);
        Canvas* c = Canvas_new(100, d->n);
        DocView_render(d, 0, c, 0, d->n);
        text[pass] = dump(c);
        Canvas_delete(c);
        Doc_delete(d);
        sd.pending = 0;
    }
    assert_non_null(strstr(text[0], "GPU busy/idle  computing..."));
    assert_non_null(strstr(text[0], "What to optimise first  computing..."));
    assert_non_null(strstr(text[0], "Timeline  computing..."));
    assert_null(strstr(text[1], "computing..."));
    const char* line = "in 5 dispatches of 2 kernels (per-dispatch data)";
    assert_non_null(strstr(text[0], line));
    assert_non_null(strstr(text[1], line));
    free(text[0]);
    free(text[1]);
}

static void theme_files(void** state) {
    (void)state;
    Theme t;
    Theme_initDefault(&t);
    DcuError err;
    assert_int_equal(Theme_parse(&t, "# c\ncolor selected white 21 bold underline\n", "x", &err),
                     DCU_OK);
    assert_int_equal(t.spec[STYLE_SELECTED].fg, 7);
    assert_int_equal(t.spec[STYLE_SELECTED].bg, 21);
    assert_int_equal(t.spec[STYLE_SELECTED].attrs, THEME_ATTR_BOLD | THEME_ATTR_UNDERLINE);
    assert_int_equal(Theme_parse(&t, "color nosuch red blue\n", "t.theme", &err), DCU_ERR_USAGE);
    assert_string_equal(err.msg, "t.theme:1: unknown element 'nosuch'");
    assert_int_equal(Theme_parse(&t, "color header red\n", "t.theme", &err), DCU_ERR_USAGE);
    assert_int_equal(Theme_parse(&t, "color header red blue blink\n", "t.theme", &err),
                     DCU_ERR_USAGE);
    assert_non_null(strstr(err.msg, "unknown attribute 'blink'"));
}

static void key_names_round_trip(void** state) {
    (void)state;
    const char* s = "/gemm<Enter><C-f><F6><Lt><S-Tab>\xc3\xa9";
    int want[] = {'/', 'g', 'e', 'm', 'm', KC_ENTER, KC_CTRL('f'), KC_F6, '<', KC_BTAB, 0xE9};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_int_equal(Key_parse(&s), want[i]);
    }
    assert_int_equal(*s, '\0');
    const char* bad = "<Nope>";
    assert_int_equal(Key_parse(&bad), -1);
    char buf[16];
    Key_name(KC_CTRL('l'), buf, sizeof(buf));
    assert_string_equal(buf, "<C-l>");
    Key_name(KC_PGDOWN, buf, sizeof(buf));
    assert_string_equal(buf, "<PgDown>");
}

static void keymap_defaults_and_rc(void** state) {
    (void)state;
    Keymap* km = Keymap_new();
    assert_int_equal(Keymap_lookup(km, "hotspots", KC_F6), ACT_SORT_MENU);
    assert_int_equal(Keymap_lookup(km, "categories", '+'), ACT_WHATIF_UP);
    assert_int_equal(Keymap_lookup(km, "hotspots", '+'), ACT_NONE);
    DcuError err;
    assert_int_equal(Keymap_parseRc(km, "# mine\nbind hotspots + quit\nbind generic <C-x> help\n",
                                    "rc", &err),
                     DCU_OK);
    assert_int_equal(Keymap_lookup(km, "hotspots", '+'), ACT_QUIT);
    assert_int_equal(Keymap_lookup(km, "api", KC_CTRL('x')), ACT_HELP);
    char keys[64];
    Keymap_keysFor(km, "generic", ACT_HELP, keys, sizeof(keys));
    assert_non_null(strstr(keys, "<F1>"));
    assert_non_null(strstr(keys, "<C-x>"));
    assert_int_equal(Keymap_parseRc(km, "bind hotspots x nosuch\n", "rc", &err), DCU_ERR_USAGE);
    assert_string_equal(err.msg, "rc:1: unknown action 'nosuch' (see the help screen)");
    assert_int_equal(Keymap_parseRc(km, "unbind x\n", "rc", &err), DCU_ERR_USAGE);
    /* a typo costs its own line only: the lines around it still bind */
    assert_int_equal(Keymap_parseRc(km, "bind nowhere x quit\nbind hotspots y sort-next\n"
                                        "bidn api z help\n", "rc", &err),
                     DCU_ERR_USAGE);
    assert_int_equal(Keymap_lookup(km, "hotspots", 'y'), ACT_SORT_NEXT);
    assert_non_null(strstr(err.msg, "rc:1: unknown screen 'nowhere'"));
    assert_non_null(strstr(err.msg, "(and 1 more bad line)"));
    Keymap_delete(km);
}


static const ChromeTab strip_tabs[] = {
    {"1", "Summary", "Sum"}, {"2", "Hotspots", "Hot"}, {"3", "Categories", "Cat"},
    {"4", "API", "API"},     {"5", "Copies", "Copy"},  {"6", "Stacks", "Stk"},
    {"7", "Diff", "Diff"},   {"8", "Trace", "Trace"},  {"9", "Ranks", "Rank"},
    {"F", "Efficiency", "Eff"}, {"U", "Runs", "Runs"}, {"0", "Files", "File"}};
#define N_STRIP ((int)(sizeof(strip_tabs) / sizeof(strip_tabs[0])))

/* The strip line of a canvas of width w with tab `active` and trail drawn (owned). */
static char* strip_line(int w, int active, const char* trail) {
    Canvas* c = Canvas_new(w, 1);
    ChromeView_tabs(c, 0, strip_tabs, N_STRIP, active, trail);
    char* d = dump(c);
    Canvas_delete(c);
    return d;
}

/* Every top screen has a tab with its key and a name: whole names when they fit, the
 * current one whole and the others abbreviated at 80 columns, scrolled with a mark when even
 * that does not fit; a click lands on the tab drawn under it. */
static void chrome_tabs_name_every_screen(void** state) {
    (void)state;
    char* wide = strip_line(200, 0, NULL);
    for (int i = 0; i < N_STRIP; i++) {
        char want[64];
        snprintf(want, sizeof(want), " %s %s", strip_tabs[i].key, strip_tabs[i].name);
        assert_non_null(strstr(wide, want));
    }
    free(wide);
    for (int a = 0; a < N_STRIP; a++) {
        char* d = strip_line(80, a, NULL);
        char want[64];
        snprintf(want, sizeof(want), " %s %s", strip_tabs[a].key, strip_tabs[a].name);
        assert_non_null(strstr(d, want));
        int named = 0; /* every tab shown has a name, not a key alone */
        for (int i = 0; i < N_STRIP; i++) {
            snprintf(want, sizeof(want), " %s %s", strip_tabs[i].key, strip_tabs[i].abbrev);
            named += strstr(d, want) != NULL;
        }
        assert_true(named >= N_STRIP - 2);
        /* the tab under the middle of the current tab's name is the current tab */
        int x = (int)(strstr(d, strip_tabs[a].name) - d);
        assert_int_equal(ChromeView_tabAt(80, strip_tabs, N_STRIP, a, NULL, x + 1), a);
        free(d);
    }
    /* a breadcrumb keeps its room: the tabs scroll around the current one */
    char* d = strip_line(80, 9, "> Efficiency > aten::mm");
    assert_non_null(strstr(d, " F Efficiency"));
    assert_non_null(strstr(d, "\u2039"));
    assert_non_null(strstr(d, "> Efficiency > aten::mm"));
    free(d);
}

/* A breadcrumb never shows an empty step ("… > > dispatches": a kernel name's own "> >" taken
 * for a step), and one of many short steps is cut to fit (it used to loop for ever once it
 * started with "…"). */
static void chrome_breadcrumb_steps(void** state) {
    (void)state;
    char* d = strip_line(80, 1, "> Hotspots >  > dispatches");
    assert_null(strstr(d, "> >"));
    assert_non_null(strstr(d, "> Hotspots > dispatches"));
    free(d);
    d = strip_line(80, 1, "> Hotspots > reduce_kernel<512, 1, ReduceOp<float, MeanOps<float, "
                          "float>, unsigned int, float, 4> > > dispatches");
    assert_null(strstr(d, "> > dispatches"));
    assert_non_null(strstr(d, " > dispatches"));
    free(d);
    d = strip_line(80, 1, "> aaaaaaaaa > bbbbbbbbb > ccccccccc > ddddddddd > eeeeeeeee");
    assert_non_null(strstr(d, "eeeeeeeee"));
    assert_null(strstr(d, "> >"));
    free(d);
}

/* At 80 columns the help wraps a long description under itself instead of cutting it. */
static void help_wraps_descriptions(void** state) {
    (void)state;
    HelpEntry e[1] = {{"generic", "<Esc>", "back",
                       "Back a level from a pushed screen (help too), to its row; on a top "
                       "screen clear the filter, then the region of interest"}};
    Doc* doc = HelpView_build("hotspots", e, 1, 80);
    Canvas* c = Canvas_new(80, 12);
    DocView_render(doc, 0, c, 0, 12);
    char* d = dump(c);
    assert_null(strstr(d, "\u2026"));
    assert_non_null(strstr(d, "interest\n")); /* the last word, on a line of its own row */
    free(d);
    Canvas_delete(c);
    Doc_delete(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(canvas_neutralizes_controls_and_counts_wide),
        cmocka_unit_test(table_view_units_sort_mark_and_selection),
        cmocka_unit_test(summary_pending_then_whole),
        cmocka_unit_test(theme_files),
        cmocka_unit_test(key_names_round_trip),
        cmocka_unit_test(keymap_defaults_and_rc),
        cmocka_unit_test(chrome_tabs_name_every_screen),
        cmocka_unit_test(chrome_breadcrumb_steps),
        cmocka_unit_test(help_wraps_descriptions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
