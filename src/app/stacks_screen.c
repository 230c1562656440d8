/* stacks_screen.c - the Stacks screen: the call tree of the code that launched kernels, or
 * the tree of roctx/hiptx ranges, perf report style (Incl, Self, %, Calls), expandable;
 * modes: call tree, callers (kernel <- who launched it), callees (function -> its kernels). */
#include <stdlib.h>
#include <string.h>

#include "dcutop/tree_view.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static void relist(Screen* s) {
    free(s->visible);
    s->visible = NULL;
    s->nvisible = 0;
    if (!s->tree || s->tree->n == 0) {
        return;
    }
    s->visible = xmalloc(sizeof(int) * (size_t)s->tree->n);
    for (int i = 0; i < s->tree->n;) {
        s->visible[s->nvisible++] = i;
        const StackNode* n = &s->tree->nodes[i];
        i = s->expanded[i] ? i + 1 : n->subtree_end; /* skip a collapsed subtree */
    }
}

static DcuStatus rebuild(Screen* s, App* app, DcuError* err) {
    int keep_node = s->tree && s->nvisible > 0 ? s->visible[s->tsel] : -1;
    char* keep_name = keep_node >= 0 ? xstrdup(s->tree->nodes[keep_node].name) : NULL;
    StacksOpts o = {(StacksMode)s->tree_mode, s->tree_fold, s->filter};
    StackTree* t = NULL;
    DcuStatus st = Stacks_build(App_db(app), (StacksSource)s->tree_src, &o, &t, err);
    if (st != DCU_OK) {
        free(keep_name);
        return st;
    }
    StackTree_delete(s->tree);
    free(s->expanded);
    s->tree = t;
    s->expanded = xcalloc((size_t)(t->n > 0 ? t->n : 1), 1);
    /* open the heaviest path through its single-child chain and one level past the first
     * fork, like perf report's first screen */
    for (int i = 0; i >= 0 && i < t->n && t->nodes[i].depth < 64; i = t->nodes[i].first_child) {
        s->expanded[i] = 1;
        if (t->nodes[i].nchildren != 1) {
            break;
        }
    }
    s->tsel = 0;
    s->tscroll = 0;
    relist(s);
    if (keep_name) {
        for (int v = 0; v < s->nvisible; v++) {
            if (strcmp(t->nodes[s->visible[v]].name, keep_name) == 0) {
                s->tsel = v;
                break;
            }
        }
        free(keep_name);
    }
    return DCU_OK;
}

static DcuStatus st_open(Screen* s, App* app, DcuError* err) {
    if (!s->tree && !Stacks_available(App_db(app), STACKS_SRC_STACKS) &&
        Stacks_available(App_db(app), STACKS_SRC_RANGES)) {
        s->tree_src = STACKS_SRC_RANGES; /* a trace with ranges only opens on them */
    }
    return rebuild(s, app, err);
}

static void clamp(Screen* s, App* app) {
    int page = App_bodyHeight(app) - 2;
    if (page < 1) {
        page = 1;
    }
    if (s->tsel >= s->nvisible) {
        s->tsel = s->nvisible - 1;
    }
    if (s->tsel < 0) {
        s->tsel = 0;
    }
    if (s->tscroll > s->tsel) {
        s->tscroll = s->tsel;
    }
    if (s->tsel >= s->tscroll + page) {
        s->tscroll = s->tsel - page + 1;
    }
    if (s->tscroll < 0) {
        s->tscroll = 0;
    }
}

static const char* mode_help(const Screen* s) {
    if (s->tree_mode == STACKS_CALLER) {
        return "Callers: each kernel or function with who called it. A launch counts once under "
               "every caller on its path, so children can add up to more than their parent.";
    }
    if (s->tree_mode == STACKS_CALLEE) {
        return "Callees: each function with the kernels under it; a launch counts once per "
               "function on its path.";
    }
    return "Call tree: Self = time of kernels launched right here, Incl = with everything below.";
}

static void st_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    clamp(s, app);
    Canvas_fillRow(c, y0, 0, STYLE_DEFAULT);
    char line[512];
    snprintf(line, sizeof(line), " %s | %s%s | %s", s->tree_src ? "Ranges" : "Call stacks",
             Stacks_modeName((StacksMode)s->tree_mode), s->tree_fold ? " | library frames folded" : "",
             s->tree && s->tree->note ? s->tree->note : "");
    Canvas_put(c, y0, 0, STYLE_TITLE, line, -1);
    Canvas_fillRow(c, y0 + h - 1, 0, STYLE_DEFAULT);
    Canvas_put(c, y0 + h - 1, 1, STYLE_DIM, mode_help(s), -1);
    if (!s->tree || s->tree->n == 0) {
        Canvas_put(c, y0 + 2, 2, STYLE_DIM,
                   s->tree_src ? "No roctx/hiptx ranges in this trace (t: call stacks)."
                               : "No call stacks in this trace (kernel-stack dumps, folded "
                                 "stacks, PyTorch with_stack); t: ranges.",
                   -1);
        return;
    }
    TreeViewState tv = {s->visible, s->nvisible, s->expanded, s->tsel, s->tscroll};
    TreeView_render(s->tree, &tv, c, y0 + 1, h - 2);
}

static void set_expanded_all(Screen* s, int on) {
    for (int i = 0; i < s->tree->n; i++) {
        s->expanded[i] = (unsigned char)on;
    }
}

static Reaction st_handle(Screen* s, App* app, Action a, DcuError* err) {
    int page = App_bodyHeight(app) - 3;
    if (page < 1) {
        page = 1;
    }
    int node = s->nvisible > 0 ? s->visible[s->tsel] : -1;
    const StackNode* n = node >= 0 ? &s->tree->nodes[node] : NULL;
    switch (a) {
    case ACT_MOVE_UP:
        s->tsel--;
        break;
    case ACT_MOVE_DOWN:
        s->tsel++;
        break;
    case ACT_PAGE_UP:
        s->tsel -= page;
        break;
    case ACT_PAGE_DOWN:
        s->tsel += page;
        break;
    case ACT_MOVE_FIRST:
        s->tsel = 0;
        break;
    case ACT_MOVE_LAST:
        s->tsel = s->nvisible - 1;
        break;
    case ACT_ENTER:
        if (n && n->kind == SNODE_KERNEL && n->kernel_id > 0) {
            return App_open(app, &KernelScreen, n->name, NULL, xasprintf("Stacks > %s", n->name));
        }
        /* fall through: Enter on a function toggles it */
        if (n && n->nchildren > 0) {
            s->expanded[node] = !s->expanded[node];
            relist(s);
        }
        break;
    case ACT_EXPAND:
        if (n && n->nchildren > 0) {
            s->expanded[node] = 1;
            relist(s);
        }
        break;
    case ACT_COLLAPSE:
        if (n && s->expanded[node] && n->nchildren > 0) {
            s->expanded[node] = 0;
            relist(s);
        } else if (n && n->parent >= 0) {
            for (int v = 0; v < s->nvisible; v++) {
                if (s->visible[v] == n->parent) {
                    s->tsel = v; /* Left on a leaf goes to its parent, as in perf report */
                }
            }
        }
        break;
    case ACT_EXPAND_ALL:
    case ACT_COLLAPSE_ALL:
        if (s->tree && s->tree->n > 0) {
            set_expanded_all(s, a == ACT_EXPAND_ALL);
            relist(s);
            if (a == ACT_COLLAPSE_ALL) {
                s->tsel = 0;
            }
        }
        break;
    case ACT_TREE_MODE:
        s->tree_mode = (s->tree_mode + 1) % 3;
        if (rebuild(s, app, err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err->msg);
        }
        break;
    case ACT_FOLD:
        s->tree_fold = !s->tree_fold;
        if (rebuild(s, app, err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err->msg);
        }
        App_setStatus(app, 0, s->tree_fold ? "Runtime and library frames folded (f shows them)."
                                           : "All frames shown.");
        break;
    case ACT_TREE_SOURCE:
        s->tree_src = !s->tree_src;
        if (rebuild(s, app, err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err->msg);
        }
        break;
    default:
        return REACT_NONE;
    }
    clamp(s, app);
    return REACT_REDRAW;
}

static const char* st_selection(Screen* s) {
    if (!s->tree || s->nvisible == 0) {
        return NULL;
    }
    return s->tree->nodes[s->visible[s->tsel]].name;
}

static void st_close(Screen* s) {
    StackTree_delete(s->tree);
    s->tree = NULL;
    free(s->expanded);
    s->expanded = NULL;
    free(s->visible);
    s->visible = NULL;
}

/* Rebuilds the tree with the screen's filter (app.c calls this for '/'). */
DcuStatus StacksScreen_refilter(Screen* s, App* app, DcuError* err) {
    return rebuild(s, app, err);
}

/* The tree as the table that --export stacks|ranges writes (owned by the caller). */
ResultSet* StacksScreen_table(Screen* s) {
    return s->tree ? Stacks_toResultSet(s->tree, (StacksSource)s->tree_src) : NULL;
}

const ScreenOps StacksScreen = {"stacks", "Stacks", 5, st_open, st_handle, st_render,
                                st_selection, st_close, VIEW_HOTSPOTS, NULL, NULL, NULL, 1};
