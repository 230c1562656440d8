/* export_files.c - what the export prompt writes besides a screen's table: its default file
 * name, and the microbenchmark script of the ops behind a Kernel screen or the selected row
 * of an Ops screen (repro.h). */
#include <stdio.h>
#include <string.h>

#include "dcutop/out_file.h"
#include "dcutop/repro.h"
#include "screen.h"

const char* ExportFiles_name(const char* dir, const Screen* s, int repro, char* buf,
                             size_t cap) {
    if (repro) {
        snprintf(buf, cap, "%s/repro.py", dir);
    } else if (s->category) {
        char safe[64];
        size_t j = 0;
        for (const char* p = s->category; *p && j + 1 < sizeof(safe); p++) {
            safe[j++] = (*p == '/' || *p == ' ') ? '_' : *p;
        }
        safe[j] = '\0';
        snprintf(buf, cap, "%s/%s-%s.csv", dir, s->ops->name, safe);
    } else {
        snprintf(buf, cap, "%s/%s.csv", dir,
                 s->ops == &StacksScreen ? (s->tree_src ? "ranges" : "stacks") : s->ops->name);
    }
    if (strncmp(buf, "./", 2) == 0) {
        memmove(buf, buf + 2, strlen(buf + 2) + 1);
    }
    return buf;
}

int ExportFiles_canRepro(const Screen* s) {
    return (s->ops == &KernelScreen && s->kernel && s->kernel[0]) ||
           (OpsScreen_is(s) && s->rs && s->rs->nrows > 0);
}

/* The ops of the screen's selection: a Kernel screen's kernel; on the Ops screens the
 * selected module, op (of its module) or kernel (of its op), or the dispatches' kernel. */
static void selection(const Screen* s, ReproOpts* o) {
    int r = s->tv.selected;
    if (s->ops == &KernelScreen) {
        o->kernel = s->kernel;
    } else if (s->ops == &OpsScreen) {
        o->module = ResultSet_textOf(s->rs, r, "module");
    } else if (s->ops == &OpsOpScreen) {
        o->module = s->category;
        o->model_op = ResultSet_textOf(s->rs, r, "op");
    } else if (s->ops == &OpsKernelScreen) {
        o->module = s->category;
        o->model_op = s->op;
        o->kernel = ResultSet_textOf(s->rs, r, "name");
    } else {
        o->module = s->category;
        o->model_op = s->op;
        o->kernel = s->kernel;
    }
}

DcuStatus ExportFiles_repro(App* app, const Screen* s, const char* path, int flags,
                            DcuError* err) {
    OutFile of;
    ReproOpts o = {NULL, NULL, NULL, NULL, 0, App_title(app)};
    selection(s, &o);
    ReproStats st = {0, 0, 0};
    DcuStatus r = OutFile_open(&of, path, OUT_NOWAIT | flags, err);
    if (r != DCU_OK) {
        return r;
    }
    r = OutFile_finish(&of, Repro_write(App_db(app), &o, of.fp, NULL, &st, err), err);
    if (r == DCU_OK) {
        App_setStatus(app, 0, "Wrote %s: %d op%s (%d not rebuilt; see its header)", path,
                      st.ops, st.ops == 1 ? "" : "s", st.not_rebuilt);
    }
    return r;
}
