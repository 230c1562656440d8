/* kineto_flow.c - Kineto 'fwdbwd' flow events: each pairs a forward op (ph 's', at the
 * op's start on its thread) with the backward op that autograd ran for it (ph 'f'). Stored
 * as they come in kineto_flow; op_link.c binds each end to its op once the file is read. */
#include "load_event.h"

#include "load_internal.h"

int LoadEvent_flow(LoaderCore* core, LoadFile* f, const char* where, char ph, int64_t id,
                   int64_t pid, int64_t tid, int64_t ts) {
    (void)where;
    if ((ph != 's' && ph != 'f') || id == LOAD_NULL || ts == LOAD_NULL) {
        return 0; /* a step ('t') or an end without its id: nothing to pair */
    }
    sqlite3_stmt* st = core->st[ST_FLOW];
    char p[2] = {ph, '\0'};
    sqlite3_bind_int64(st, 1, f->id);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_text(st, 3, p, 1, SQLITE_TRANSIENT);
    pid == LOAD_NULL ? sqlite3_bind_null(st, 4) : sqlite3_bind_int64(st, 4, pid);
    tid == LOAD_NULL ? sqlite3_bind_null(st, 5) : sqlite3_bind_int64(st, 5, tid);
    sqlite3_bind_int64(st, 6, ts);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE;
}
