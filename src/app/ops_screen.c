/* ops_screen.c - the Ops screen (key O): device kernel time per module of a PyTorch model,
 * forward and backward apart and together (ops.h); Enter drills from a module to its ops,
 * to an op's kernels, to their dispatches, and from a dispatch to its kernel's detail. Four
 * table screens, one per level, that differ only in their columns (table_screen.c does the
 * sorting, filtering and export). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/ops.h"
#include "dcutop/xalloc.h"
#include "screen.h"

static const char* const module_keys[] = {"module", "fwd_ns", "bwd_ns", "total_ns", "calls",
                                          "kernels", "share_pct", "ceiling", NULL};
static const char* const module_drop[] = {"kernels", "calls", "ceiling", "share_pct", NULL};
static const char* const op_keys[] = {"op", "fwd_ns", "bwd_ns", "total_ns", "calls", "kernels",
                                      "share_pct", "ceiling", "input_shapes", NULL};
static const char* const op_drop[] = {"input_shapes", "kernels", "ceiling", "calls", NULL};
static const char* const kernel_keys[] = {"short_name", "pass", "kernels", "total_ns", "avg_ns",
                                          "share_pct", "ceiling", NULL};
static const char* const kernel_drop[] = {"ceiling", "avg_ns", NULL};
static const char* const dispatch_keys[] = {"id", "run", "step", "pass", "dur_ns", "how",
                                            "op_id", "fwd_op_id", NULL};
static const char* const dispatch_drop[] = {"fwd_op_id", "op_id", "run", NULL};

static OpsLevel level_of(const Screen* s) {
    return s->ops == &OpsOpScreen       ? OPS_OPS
           : s->ops == &OpsKernelScreen   ? OPS_KERNELS
           : s->ops == &OpsDispatchScreen ? OPS_DISPATCHES
                                          : OPS_MODULES;
}

int OpsScreen_is(const Screen* s) {
    return s->ops == &OpsScreen || s->ops == &OpsOpScreen || s->ops == &OpsKernelScreen ||
           s->ops == &OpsDispatchScreen;
}

DcuStatus OpsScreen_query(Screen* s, App* app, const QueryOpts* q, ResultSet** out,
                          DcuError* err) {
    OpsSel sel = {level_of(s), s->category, s->op, s->kernel};
    return Ops_table(App_db(app), &sel, q, out, err);
}

static DcuStatus os_open(Screen* s, App* app, DcuError* err) {
    if (s->ops == &OpsScreen && !Ops_available(App_db(app))) {
        App_setStatus(app, 0, "No kernel of this trace is tied to an op: the Ops screen needs a "
                              "PyTorch profiler trace, marker ranges or kernel-stack dumps.");
    }
    return TableScreen_requery(s, app, err);
}

/* Enter: the next level down for the selected row. */
static Reaction os_handle(Screen* s, App* app, Action a, DcuError* err) {
    if (a != ACT_ENTER) {
        return TableScreen_handle(s, app, a, err);
    }
    if (!s->rs || s->rs->nrows == 0) {
        return REACT_NONE;
    }
    int r = s->tv.selected;
    const char* crumb = s->crumb ? s->crumb : "Ops";
    if (level_of(s) == OPS_DISPATCHES) {
        const char* shown = strrchr(crumb, '>');
        return App_open(app, &KernelScreen, s->kernel, NULL,
                        xasprintf("%s > %s", crumb, shown ? shown + 2 : "kernel"));
    }
    static const ScreenOps* const next[] = {&OpsOpScreen, &OpsKernelScreen, &OpsDispatchScreen};
    static const char* const label_key[] = {"module", "op", "short_name"};
    OpsLevel lv = level_of(s);
    const char* label = ResultSet_textOf(s->rs, r, label_key[lv]);
    Screen* n = Screen_new(next[lv]);
    n->category = xstrdup(lv == OPS_MODULES ? label : s->category);
    n->op = lv == OPS_OPS ? xstrdup(label) : s->op ? xstrdup(s->op) : NULL;
    n->kernel = lv == OPS_KERNELS ? xstrdup(ResultSet_textOf(s->rs, r, "name")) : NULL;
    n->crumb = xasprintf("%s > %s", crumb, label);
    if (App_push(app, n, err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err->msg);
    }
    return REACT_REDRAW;
}

static void os_close(Screen* s) {
    free(s->op);
    s->op = NULL;
}

#define OPS_SCREEN(title, keys, flex, drop)                                                    \
    {"ops", title, -1, os_open, os_handle, TableScreen_render, TableScreen_selection, os_close, \
     VIEW_HOTSPOTS, keys, flex, drop, 1}

const ScreenOps OpsScreen = OPS_SCREEN("Ops", module_keys, "module", module_drop);
const ScreenOps OpsOpScreen = OPS_SCREEN("Ops", op_keys, "op", op_drop);
const ScreenOps OpsKernelScreen = OPS_SCREEN("Ops", kernel_keys, "short_name", kernel_drop);
const ScreenOps OpsDispatchScreen = OPS_SCREEN("Ops", dispatch_keys, "how", dispatch_drop);
