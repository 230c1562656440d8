/* kineto_memory.c - device memory events (kineto_memory.h). PyTorch writes one '[memory]'
 * instant event per allocation and free of its allocators, with the totals after it:
 *   {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "ts": 5815698867397.362,
 *    "args": {"Total Reserved": 962592768, "Total Allocated": 793947648, "Bytes": 67108864,
 *             "Device Id": 0, "Device Type": 1, "Addr": 140405802795008}}
 * (written by torch/csrc/autograd/profiler_kineto.cpp: Bytes < 0 frees; Device Type is
 * c10::DeviceType, 0 the CPU, 1 CUDA, 6 HIP: a ROCm trace may write either). */
#include "kineto_memory.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"
#include "load_event.h"

const char* const LoadMemory_argNames[MEM_ARG_COUNT] = {
    [MEM_ARG_BYTES] = "Bytes",         [MEM_ARG_ALLOCATED] = "Total Allocated",
    [MEM_ARG_RESERVED] = "Total Reserved", [MEM_ARG_DEVICE] = "Device Id",
    [MEM_ARG_TYPE] = "Device Type",    [MEM_ARG_ADDR] = "Addr",
};

/* Why the event cannot be used, or NULL; *device gets the device it counts on. */
static const char* check(int64_t ts, const int64_t* a, int64_t* device) {
    if (ts == LOAD_NULL) {
        return "no ts";
    }
    if (a[MEM_ARG_BYTES] == LOAD_NULL) {
        return "no Bytes";
    }
    if (a[MEM_ARG_BYTES] > LOAD_MAX_AMOUNT || a[MEM_ARG_BYTES] < -LOAD_MAX_AMOUNT) {
        return "Bytes is out of range (more than 2^53)";
    }
    for (int i = MEM_ARG_ALLOCATED; i <= MEM_ARG_RESERVED; i++) {
        if (a[i] != LOAD_NULL && (a[i] < 0 || a[i] > LOAD_MAX_AMOUNT)) {
            return i == MEM_ARG_ALLOCATED ? "Total Allocated is negative or past 2^53"
                                          : "Total Reserved is negative or past 2^53";
        }
    }
    int64_t type = a[MEM_ARG_TYPE], id = a[MEM_ARG_DEVICE];
    if (type == 0 || (type == LOAD_NULL && id != LOAD_NULL && id < 0)) {
        *device = -1; /* host memory (its Device Id is -1) */
        return NULL;
    }
    if (id == LOAD_NULL || id < 0 || id > 65535) {
        return "no Device Id from 0 to 65535";
    }
    *device = id;
    return NULL;
}

int LoadMemory_kineto(LoaderCore* core, LoadFile* f, int64_t event, int64_t ts, int64_t pid,
                      int64_t tid, const int64_t* a, int bad) {
    if (bad >= 0) {
        Load_reject(core, f, 0, "event %lld: [memory] event not used: %s is not a number",
                    (long long)event, LoadMemory_argNames[bad]);
        return 0;
    }
    int64_t device = -1;
    const char* why = check(ts, a, &device);
    if (why) {
        Load_reject(core, f, 0, "event %lld: [memory] event not used: %s", (long long)event,
                    why);
        return 0;
    }
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepareCached(core->db,
                              "INSERT INTO mem_event(file_id, ts_ns, device, addr, bytes,"
                              " total_allocated, total_reserved, pid, tid, source, event,"
                              " device_type) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'kineto',"
                              " ?10, ?11)",
                              &st, NULL) != DCU_OK) {
        return 0;
    }
    const int64_t v[] = {f->id, ts, device, a[MEM_ARG_ADDR], a[MEM_ARG_BYTES],
                         a[MEM_ARG_ALLOCATED], a[MEM_ARG_RESERVED], pid, tid,
                         event, a[MEM_ARG_TYPE]};
    for (int i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++) {
        if (v[i] != LOAD_NULL) {
            sqlite3_bind_int64(st, i + 1, v[i]);
        }
    }
    int rc = sqlite3_step(st);
    TraceDb_release(core->db, st);
    if (rc != SQLITE_DONE) {
        Load_storageFailed(core, rc, sqlite3_errmsg(TraceDb_handle(core->db)));
        return 0;
    }
    f->rows++;
    return 1;
}

/* rocpd allocations: each REAL-level operation's signed bytes are the change of its file's
 * live bytes (a FREE names no size; alloc_live.c knows the block's), summed per agent. */
static const char rocpd_sql[] =
    "INSERT INTO mem_event(file_id, ts_ns, device, addr, bytes, total_allocated, pid, source,"
    " event)"
    " SELECT file_id, start_ns, agent, address, d,"
    "  sum(d) OVER (PARTITION BY file_id, agent ORDER BY rid ROWS UNBOUNDED PRECEDING),"
    "  pid, 'rocpd', rid"
    " FROM (SELECT rowid AS rid, file_id, start_ns, coalesce(agent, 0) AS agent, address, pid,"
    "  live_bytes - coalesce(lag(live_bytes) OVER (PARTITION BY file_id ORDER BY rowid), 0)"
    "  AS d FROM mem_alloc"
    "  WHERE upper(substr(coalesce(level, ''), 1, 7)) NOT IN ('VIRTUAL', 'SCRATCH')"
    "  AND live_bytes IS NOT NULL)"
    " WHERE start_ns IS NOT NULL AND d <> 0 ORDER BY rid";

typedef struct Span_ {
    int64_t id, end;
    char* name; /* owned: the module's name (module sweep), NULL for ops */
} Span;

typedef struct Key_ {
    int64_t file, pid, tid;
} Key;

static int key_cmp(const Key* a, const Key* b) {
    const int64_t x[] = {a->file, a->pid, a->tid}, y[] = {b->file, b->pid, b->tid};
    for (int i = 0; i < 3; i++) {
        if (x[i] != y[i]) {
            return x[i] < y[i] ? -1 : 1;
        }
    }
    return 0;
}

static Key key_at(sqlite3_stmt* st, int col) {
    return (Key){sqlite3_column_int64(st, col), sqlite3_column_int64(st, col + 1),
                 sqlite3_column_int64(st, col + 2)};
}

/* The spans a sweep pushes: (id, file, pid, tid, start, end, name) in the merge's order. */
static const char ops_sql[] =
    "SELECT id, file_id, pid, tid, start_ns, end_ns, NULL FROM cpu_op"
    " WHERE pid IS NOT NULL AND tid IS NOT NULL AND start_ns IS NOT NULL AND end_ns IS NOT NULL"
    " AND file_id IN (SELECT DISTINCT file_id FROM mem_event WHERE source = 'kineto')"
    " ORDER BY file_id, pid, tid, start_ns, end_ns DESC, id";
static const char modules_sql[] =
    "SELECT id, file_id, pid, tid, start_ns, end_ns, substr(name, 12) FROM py_frame"
    " WHERE name LIKE 'nn.Module: %' AND pid IS NOT NULL AND tid IS NOT NULL"
    " AND start_ns IS NOT NULL AND end_ns IS NOT NULL"
    " AND file_id IN (SELECT DISTINCT file_id FROM mem_event WHERE source = 'kineto')"
    " ORDER BY file_id, pid, tid, start_ns, end_ns DESC, id";

/* The module path of the spans open at ts, outermost first, joined by '/'; NULL if none. */
static char* module_path(const Span* stack, size_t n, int64_t ts) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        len += stack[i].end >= ts ? strlen(stack[i].name) + 1 : 0;
    }
    if (len == 0) {
        return NULL;
    }
    char* p = xmalloc(len);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (stack[i].end >= ts) {
            size_t l = strlen(stack[i].name);
            if (at) {
                p[at++] = '/';
            }
            memcpy(p + at, stack[i].name, l);
            at += l;
        }
    }
    p[at] = '\0';
    return p;
}

static void pop(Span* stack, size_t* n) {
    free(stack[--*n].name);
}

/* A merge of each thread's events and spans (aten ops, or module frames), both in time order,
 * with the spans begun so far on a stack. Spans pushed in order of start (then longest first)
 * leave on top the latest begun; those ended before the event's time are popped (times only
 * grow), so the top is the innermost span open then: the event's op (mem_event.op_id), or the
 * last of its module path (mem_event.module, the open spans outermost first). */
static DcuStatus sweep(TraceDb* db, int modules, DcuError* err) {
    sqlite3_stmt *ev = NULL, *sp = NULL, *up = NULL;
    Span* stack = NULL;
    size_t nstack = 0, capstack = 0;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT id, file_id, pid, tid, ts_ns FROM mem_event"
                                  " WHERE source = 'kineto' AND pid IS NOT NULL AND tid IS NOT"
                                  " NULL ORDER BY file_id, pid, tid, ts_ns, id",
                                  &ev, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, modules ? modules_sql : ops_sql, &sp, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, modules ? "UPDATE mem_event SET module = ?2 WHERE id = ?1"
                                        : "UPDATE mem_event SET op_id = ?2 WHERE id = ?1",
                            &up, err);
    }
    int src = s == DCU_OK ? sqlite3_step(sp) : SQLITE_DONE;
    Key cur = {0, 0, 0};
    int have_cur = 0;
    while (s == DCU_OK && sqlite3_step(ev) == SQLITE_ROW) {
        Key k = key_at(ev, 1);
        int64_t ts = sqlite3_column_int64(ev, 4);
        if (!have_cur || key_cmp(&k, &cur) != 0) {
            while (nstack > 0) {
                pop(stack, &nstack);
            }
            cur = k;
            have_cur = 1;
        }
        while (src == SQLITE_ROW) {
            Key sk = key_at(sp, 1);
            int c = key_cmp(&sk, &k);
            if (c > 0 || (c == 0 && sqlite3_column_int64(sp, 4) > ts)) {
                break;
            }
            if (c == 0) {
                if (nstack == capstack) {
                    capstack = capstack ? capstack * 2 : 64;
                    stack = xrealloc(stack, capstack * sizeof(Span));
                }
                const char* name = (const char*)sqlite3_column_text(sp, 6);
                stack[nstack++] = (Span){sqlite3_column_int64(sp, 0), sqlite3_column_int64(sp, 5),
                                         modules ? xstrdup(name ? name : "") : NULL};
            }
            src = sqlite3_step(sp);
        }
        while (nstack > 0 && stack[nstack - 1].end < ts) {
            pop(stack, &nstack);
        }
        if (nstack == 0) {
            continue;
        }
        /* the event's row is behind the cursor of ev (sorted apart): updating it is safe */
        sqlite3_bind_int64(up, 1, sqlite3_column_int64(ev, 0));
        if (modules) {
            sqlite3_bind_text(up, 2, module_path(stack, nstack, ts), -1, free);
        } else {
            sqlite3_bind_int64(up, 2, stack[nstack - 1].id);
        }
        if (sqlite3_step(up) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "memory events: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_reset(up);
    }
    if (s == DCU_OK && src != SQLITE_ROW && src != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "memory events: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    while (nstack > 0) {
        pop(stack, &nstack);
    }
    sqlite3_finalize(ev);
    sqlite3_finalize(sp);
    sqlite3_finalize(up);
    free(stack);
    return s;
}

DcuStatus LoadMemory_finish(LoaderCore* core, DcuError* err) {
    DcuStatus s = TraceDb_exec(core->db, rocpd_sql, err);
    if (s == DCU_OK) {
        s = sweep(core->db, 0, err);
    }
    if (s == DCU_OK) {
        s = sweep(core->db, 1, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_exec(core->db,
                         "CREATE INDEX IF NOT EXISTS mem_event_addr ON mem_event(file_id, device, addr,"
                         " ts_ns)",
                         err);
    }
    return s;
}
