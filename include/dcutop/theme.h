/* theme.h - named styles (theme elements) and the colors a theme gives them.
 * Theme files hold tig-style lines: `color ELEMENT FG BG [ATTR...]`, `#` comments.
 * Colors: default black red green yellow blue magenta cyan white, bright-*, or 0-255.
 * Attributes: normal bold dim underline reverse italic. */
#ifndef DCUTOP_THEME_H
#define DCUTOP_THEME_H

#include "dcutop/error.h"

#define STYLE_INFO(_)                                                                         \
    _(DEFAULT, "default", "text")                                                             \
    _(HEADER, "header", "the top line: trace, totals, filter")                                \
    _(FOOTER, "footer", "the key hints at the bottom")                                        \
    _(FOOTER_KEY, "footer-key", "a key name in the footer")                                   \
    _(STATUS, "status", "the status line")                                                    \
    _(ERROR, "error", "an error in the status line")                                          \
    _(TAB, "tab", "a screen tab")                                                             \
    _(TAB_ACTIVE, "tab-active", "the current screen tab")                                     \
    _(COLUMN, "column", "table column titles")                                                \
    _(COLUMN_SORT, "column-sort", "the sort column title")                                    \
    _(SELECTED, "selected", "the selected row")                                               \
    _(NUMBER, "number", "numbers")                                                            \
    _(NAME, "name", "kernel and API names")                                                   \
    _(CATEGORY, "category", "category names")                                                 \
    _(GEMM, "gemm", "GEMM group rows and bars")                                               \
    _(NONGEMM, "non-gemm", "non-GEMM group rows and bars")                                    \
    _(BAR, "bar", "share bars")                                                               \
    _(TITLE, "title", "section titles")                                                       \
    _(LABEL, "label", "field labels")                                                         \
    _(WARNING, "warning", "warnings")                                                         \
    _(PROMPT, "prompt", "the input prompt")                                                   \
    _(MATCH, "match", "filter matches")                                                       \
    _(DIM, "dim", "secondary text")

#define STYLE_ENUM(id, name, help) STYLE_##id,
typedef enum { STYLE_INFO(STYLE_ENUM) STYLE_COUNT } Style;
#undef STYLE_ENUM

enum { THEME_ATTR_BOLD = 1, THEME_ATTR_DIM = 2, THEME_ATTR_UNDERLINE = 4, THEME_ATTR_REVERSE = 8,
       THEME_ATTR_ITALIC = 16 };

#define THEME_COLOR_DEFAULT (-1)

typedef struct StyleSpec_ {
    short fg, bg; /* -1 default, 0-255 */
    int attrs;    /* THEME_ATTR_* */
} StyleSpec;

typedef struct Theme_ {
    StyleSpec spec[STYLE_COUNT];
    int mono; /* attributes only (NO_COLOR, --no-color, mono.theme) */
} Theme;

const char* Theme_styleName(Style s);
int Theme_styleByName(const char* name); /* -1 if unknown */

/* The compiled-in default theme (themes/default.theme). */
void Theme_initDefault(Theme* t);
/* Applies theme text over t. source names it in messages; errors: "source:line: ...". */
DcuStatus Theme_parse(Theme* t, const char* text, const char* source, DcuError* err);
/* Loads NAME (themes/NAME.theme next to the binary's share dir, $XDG_CONFIG_HOME/dcutop/
 * themes/NAME.theme) or a PATH over the default. */
DcuStatus Theme_load(Theme* t, const char* name_or_path, const char* themes_dir, DcuError* err);
/* Drops colors, keeps attributes (NO_COLOR). */
void Theme_makeMono(Theme* t);

#endif
