/* canvas.h - a grid of styled cells that views draw into. No curses: term_curses.c copies
 * a Canvas to the terminal, term_text.c prints it as text (tig's :save-display), so every
 * screen is testable headless. */
#ifndef DCUTOP_CANVAS_H
#define DCUTOP_CANVAS_H

#include <stdio.h>

#include "dcutop/theme.h"

typedef struct Cell_ {
    char ch[8]; /* one UTF-8 character, NUL-terminated; "" = right half of a wide char */
    unsigned char style; /* Style */
} Cell;

typedef struct Canvas_ {
    int w, h;
    Cell* cells; /* h * w, owned */
} Canvas;

Canvas* Canvas_new(int w, int h);
void Canvas_delete(Canvas* this);
void Canvas_resize(Canvas* this, int w, int h);
/* Blank every cell with the given style. */
void Canvas_clear(Canvas* this, Style style);
/* Fills row y from column x to the end with spaces in style. */
void Canvas_fillRow(Canvas* this, int y, int x, Style style);
/* Writes UTF-8 text at (y, x), clipped to the canvas and to max_w cells (-1: to the edge).
 * Control characters are drawn as '?' (names are sanitized before, this is the last
 * guard). Returns the cells written. */
int Canvas_put(Canvas* this, int y, int x, Style style, const char* text, int max_w);
int Canvas_putf(Canvas* this, int y, int x, Style style, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Restyles cells [x, x + n) of row y. */
void Canvas_style(Canvas* this, int y, int x, int n, Style style);
const Cell* Canvas_at(const Canvas* this, int y, int x);
/* Prints the cell text, one line per row, trailing spaces removed. */
void Canvas_dump(const Canvas* this, FILE* out);
/* Prints one line per row of style ids (one letter per cell, 'a' + Style). */
void Canvas_dumpStyles(const Canvas* this, FILE* out);

#endif
