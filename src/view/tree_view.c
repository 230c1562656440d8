/* tree_view.c - see tree_view.h. */
#include "dcutop/tree_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/format.h"
#include "dcutop/shortname.h"

void TreeView_render(const StackTree* t, const TreeViewState* st, Canvas* c, int y0, int height) {
    int64_t mx = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->nodes[i].incl_ns > mx) {
            mx = t->nodes[i].incl_ns;
        }
    }
    TimeUnit u = Format_unitFor(mx);
    char h[160];
    snprintf(h, sizeof(h), "%10s %10s %7s %7s %8s  %s", "", "", "Incl%", "Self%", "Calls",
             "Call path");
    char inc[32], self[32];
    snprintf(inc, sizeof(inc), "Incl %s", Format_unitName(u));
    snprintf(self, sizeof(self), "Self %s", Format_unitName(u));
    snprintf(h, sizeof(h), "%10s %10s %7s %7s %8s  %s", inc, self, "Incl%", "Self%", "Calls",
             "Call path");
    Canvas_fillRow(c, y0, 0, STYLE_COLUMN);
    Canvas_put(c, y0, 0, STYLE_COLUMN, h, -1);
    int name_x = 10 + 1 + 10 + 1 + 7 + 1 + 7 + 1 + 8 + 2;
    for (int k = 0; k < height - 1; k++) {
        int y = y0 + 1 + k;
        Canvas_fillRow(c, y, 0, STYLE_DEFAULT);
        int vi = st->scroll + k;
        if (vi >= st->nvisible) {
            continue;
        }
        const StackNode* n = &t->nodes[st->visible[vi]];
        char a[32], b[32], line[128];
        Format_duration(a, sizeof(a), n->incl_ns, u);
        Format_duration(b, sizeof(b), n->self_ns, u);
        snprintf(line, sizeof(line), "%10s %10s %7.2f %7.2f %8" PRId64, a, b, n->incl_pct,
                 n->self_pct, n->calls);
        Canvas_put(c, y, 0, STYLE_NUMBER, line, -1);
        char tag[24];
        int x = name_x + ShortName_indent(n->depth, c->w - name_x - 2, tag, sizeof(tag));
        const char* mark = n->nchildren == 0 ? "  "
                           : st->expanded[st->visible[vi]] ? "\xe2\x96\xbe "
                                                           : "\xe2\x96\xb8 ";
        x += Canvas_put(c, y, x, STYLE_DIM, mark, -1);
        x += Canvas_put(c, y, x, STYLE_DIM, tag, -1);
        Style s = n->kind == SNODE_KERNEL  ? STYLE_NAME
                  : n->kind == SNODE_RANGE ? STYLE_CATEGORY
                  : n->kind == SNODE_PSEUDO ? STYLE_DIM
                  : n->library             ? STYLE_DIM
                                           : STYLE_DEFAULT;
        char cut[2048];
        int room = c->w - x;
        if (room > 0) {
            if (n->kind == SNODE_KERNEL) {
                Format_cutName(n->name, room, cut, sizeof(cut)); /* the kernel's short name */
            } else {
                ShortName_fitFrame(n->name, room, cut, sizeof(cut));
            }
            Canvas_put(c, y, x, s, cut, room);
        }
        if (vi == st->selected) {
            Canvas_style(c, y, 0, c->w, STYLE_SELECTED);
        }
    }
}
