/* diff_view.h - the summary block of the Diff screen, drawn from a Diff or an Abba (diff.h)
 * onto a Canvas. No curses; the table under it is TableView over Diff_kernelTable(). */
#ifndef DCUTOP_DIFF_VIEW_H
#define DCUTOP_DIFF_VIEW_H

#include "dcutop/canvas.h"
#include "dcutop/diff.h"

/* Draws at most max_h lines from y0; returns the lines used. */
int DiffView_summary(const Diff* d, Canvas* c, int y0, int max_h);
int DiffView_abbaSummary(const Abba* a, Canvas* c, int y0, int max_h);

#endif
