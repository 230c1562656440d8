/* tree_view.h - draws a StackTree perf-report style: Incl, Self, %, Calls, then the name
 * indented by depth with an expand marker. No curses. */
#ifndef DCUTOP_TREE_VIEW_H
#define DCUTOP_TREE_VIEW_H

#include "dcutop/canvas.h"
#include "dcutop/stacks.h"

typedef struct TreeViewState_ {
    const int* visible;           /* node indices shown, in order (borrowed) */
    int nvisible;
    const unsigned char* expanded; /* per node: children shown (borrowed) */
    int selected;                  /* index into visible */
    int scroll;
} TreeViewState;

/* Column titles at y0, rows below, height rows in all. */
void TreeView_render(const StackTree* t, const TreeViewState* st, Canvas* c, int y0, int height);

#endif
