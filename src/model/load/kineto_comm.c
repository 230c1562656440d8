/* kineto_comm.c - the collective args of Kineto events into comm_op (kineto_comm.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "kineto_comm.h"
#include "load_event.h"

struct KinetoComm_ {
    sqlite3_stmt* st;
    int warned; /* a bad number was named for this file */
};

static int is_collective(const char* name, size_t len, const void* ev, KinetoCommArg get) {
    size_t n;
    if (get(ev, "Collective name", &n)) {
        return 1;
    }
    static const char* const pre[] = {"nccl", "rccl", "msccl"};
    for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
        size_t pl = strlen(pre[i]);
        if (len >= pl && strncasecmp(name, pre[i], pl) == 0) {
            return 1;
        }
    }
    return 0;
}

static void bind_text(sqlite3_stmt* st, int idx, const void* ev, KinetoCommArg get,
                      const char* key) {
    size_t n;
    const char* v = get(ev, key, &n);
    if (v && n > 0) {
        /* names shown on the screen: control characters stripped as for kernel names */
        sqlite3_bind_text(st, idx, Names_sanitize(v, n < 256 ? n : 256), -1, free);
    } else {
        sqlite3_bind_null(st, idx);
    }
}

/* A whole non-negative number arg; LOAD_NULL when absent, *bad when not a number. */
static int64_t num_arg(const void* ev, KinetoCommArg get, const char* key, const char** bad) {
    size_t n;
    const char* v = get(ev, key, &n);
    int64_t x;
    if (!v || n == 0) {
        return LOAD_NULL;
    }
    if (n > 19 || memchr(v, '\0', n) || !LoadEvent_parseScaled(v, n, 0, &x) || x < 0) {
        *bad = key;
        return LOAD_NULL;
    }
    return x;
}

static void bind_num(sqlite3_stmt* st, int idx, int64_t v) {
    if (v == LOAD_NULL) {
        sqlite3_bind_null(st, idx);
    } else {
        sqlite3_bind_int64(st, idx, v);
    }
}

void KinetoComm_event(KinetoComm** state, LoaderCore* core, LoadFile* f, const char* source,
                      const char* name, size_t name_len, const void* ev, KinetoCommArg get,
                      int64_t ext, int64_t corr, int64_t start, int64_t end) {
    if (strcmp(source, "kernel") == 0 && !is_collective(name, name_len, ev, get)) {
        return;
    }
    KinetoComm* k = *state;
    if (!k) {
        k = *state = xcalloc(1, sizeof(*k));
        if (sqlite3_prepare_v2(TraceDb_handle(core->db),
                               "INSERT INTO comm_op(file_id, source, ext_id, corr_id, start_ns,"
                               " end_ns, name, in_nelems, out_nelems, group_size, dtype,"
                               " pg_name, pg_desc, pg_ranks, rank, seq) VALUES(?1, ?2, ?3, ?4,"
                               " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                               -1, &k->st, NULL) != SQLITE_OK) {
            Load_message(core, f, "SQLite: %s", sqlite3_errmsg(TraceDb_handle(core->db)));
            k->st = NULL;
        }
    }
    if (!k->st) {
        return;
    }
    sqlite3_stmt* st = k->st;
    const char* bad = NULL;
    sqlite3_bind_int64(st, 1, f->id);
    sqlite3_bind_text(st, 2, source, -1, SQLITE_STATIC);
    bind_num(st, 3, ext);
    bind_num(st, 4, corr);
    bind_num(st, 5, start);
    bind_num(st, 6, end);
    size_t n;
    if (get(ev, "Collective name", &n) || name_len == 0) {
        bind_text(st, 7, ev, get, "Collective name");
    } else { /* the kernel's own name tells the type (ncclDevKernel_AllReduce_...) */
        sqlite3_bind_text(st, 7, Names_sanitize(name, name_len < 256 ? name_len : 256), -1,
                          free);
    }
    bind_num(st, 8, num_arg(ev, get, "In msg nelems", &bad));
    bind_num(st, 9, num_arg(ev, get, "Out msg nelems", &bad));
    bind_num(st, 10, num_arg(ev, get, "Group size", &bad));
    bind_text(st, 11, ev, get, "dtype");
    bind_text(st, 12, ev, get, "Process Group Name");
    bind_text(st, 13, ev, get, "Process Group Description");
    bind_text(st, 14, ev, get, "Process Group Ranks");
    bind_num(st, 15, num_arg(ev, get, "Rank", &bad));
    bind_num(st, 16, num_arg(ev, get, "Seq", &bad));
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        Load_storageFailed(core, rc, sqlite3_errmsg(TraceDb_handle(core->db)));
        return;
    }
    if (bad && !k->warned) {
        k->warned = 1;
        Load_message(core, f, "a collective's '%s' is not a whole number: stored as unknown",
                     bad);
    }
}

void KinetoComm_done(KinetoComm* state) {
    if (!state) {
        return;
    }
    sqlite3_finalize(state->st);
    free(state);
}
