/* export_files.c - what the export prompt writes besides a screen's table: its default file
 * name, and the microbenchmark script of the ops behind a Kernel screen (repro.h). */
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
    return s->ops == &KernelScreen && s->kernel && s->kernel[0];
}

DcuStatus ExportFiles_repro(App* app, const Screen* s, const char* path, int flags,
                            DcuError* err) {
    OutFile of;
    ReproOpts o = {NULL, s->kernel, 0, App_title(app)};
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
