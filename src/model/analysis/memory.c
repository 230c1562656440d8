/* memory.c - device memory over time (memory.h), from mem_event. The op and the module path
 * live at an event are the loader's (mem_event.op_id, mem_event.module); its call stack the
 * op's 'Call stack' when PyTorch wrote one, else the python frames (modules aside) enclosing
 * it on its thread, innermost first. */
#include "dcutop/memory.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/trace_query.h"
#include "dcutop/xalloc.h"

/* ?1: a run.id, or 0 for every run in scope */
#define IN_RUN                                                                                 \
    " FROM mem_event m JOIN source_file sf ON sf.id = m.file_id"                               \
    " WHERE ((?1 = 0 AND sf.run_id IN (SELECT run_id FROM run_scope)) OR sf.run_id = ?1)"

static DcuStatus sql_fail(TraceDb* db, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "memory: %s", sqlite3_errmsg(TraceDb_handle(db)));
}

/* The first event of the run and device whose column col (0 allocated, 1 reserved) is v. */
static DcuStatus first_at(TraceDb* db, int64_t run, int64_t dev, int col, int64_t v,
                          int64_t* id, int64_t* ts, int64_t* reserved, DcuError* err) {
    static const char* const sql[2] = {
        "SELECT m.id, m.ts_ns, m.total_reserved" IN_RUN
        " AND m.device = ?2 AND m.total_allocated = ?3 ORDER BY m.ts_ns, m.id LIMIT 1",
        "SELECT m.id, m.ts_ns, m.total_reserved" IN_RUN
        " AND m.device = ?2 AND m.total_reserved = ?3 ORDER BY m.ts_ns, m.id LIMIT 1"};
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql[col], &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, dev);
    sqlite3_bind_int64(st, 3, v);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        *ts = sqlite3_column_int64(st, 1);
        *reserved = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
    } else if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

DcuStatus Memory_peaks(TraceDb* db, int64_t run_id, MemPeak* out, int max, int* n,
                       DcuError* err) {
    *n = 0;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT m.device, count(*), max(m.total_allocated),"
                                  " max(m.total_reserved)" IN_RUN
                                  " GROUP BY m.device ORDER BY m.device",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int k = (*n)++;
        if (k >= max) {
            continue;
        }
        MemPeak* p = &out[k];
        *p = (MemPeak){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), -1, -1, -1, -1,
                       -1, -1, -1};
        if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
            p->allocated = sqlite3_column_int64(st, 2);
        }
        /* PyTorch writes Total Reserved 0 for host memory: its CPU allocator reserves none */
        if (sqlite3_column_type(st, 3) != SQLITE_NULL && sqlite3_column_int64(st, 3) > 0) {
            p->reserved = sqlite3_column_int64(st, 3);
        }
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    for (int k = 0; s == DCU_OK && k < *n && k < max; k++) {
        MemPeak* p = &out[k];
        int64_t res;
        if (p->allocated >= 0) {
            s = first_at(db, run_id, p->device, 0, p->allocated, &p->allocated_event,
                         &p->allocated_ns, &p->reserved_then, err);
            p->reserved_then = p->reserved < 0 ? -1 : p->reserved_then;
        }
        if (s == DCU_OK && p->reserved >= 0) {
            s = first_at(db, run_id, p->device, 1, p->reserved, &p->reserved_event,
                         &p->reserved_ns, &res, err);
        }
    }
    return s;
}

int Memory_any(TraceDb* db) {
    return TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM mem_event m JOIN source_file sf"
                                 " ON sf.id = m.file_id WHERE sf.run_id IN (SELECT run_id FROM"
                                 " run_scope))") == 1;
}

int Memory_viewByName(const char* name) {
    return name && strcmp(name, "memory") == 0 ? MEM_VIEW_EVENTS : -1;
}

/* ---- where an event happened ---------------------------------------------------------- */

typedef struct Where_ {
    char *op, *module, *stack; /* owned, NULL when unknown */
} Where;

static void where_done(Where* w) {
    free(w->op);
    free(w->module);
    free(w->stack);
}

/* The texts of a one-column query on event id, joined with sep; NULL when it has no rows. */
static char* joined(TraceDb* db, const char* sql, int64_t id, const char* sep) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, sql, &st, NULL) != DCU_OK) {
        return NULL;
    }
    sqlite3_bind_int64(st, 1, id);
    char* s = NULL;
    size_t len = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char* t = (const char*)sqlite3_column_text(st, 0);
        size_t tl = t ? strlen(t) : 0, sl = s ? strlen(sep) : 0;
        s = xrealloc(s, len + sl + tl + 1);
        memcpy(s + len, sep, sl);
        memcpy(s + len + sl, t ? t : "", tl);
        len += sl + tl;
        s[len] = '\0';
    }
    sqlite3_finalize(st);
    return s;
}

#define FRAMES_AT                                                                              \
    " FROM mem_event m JOIN py_frame p ON p.file_id = m.file_id AND p.pid = m.pid"             \
    " AND p.tid = m.tid AND p.start_ns <= m.ts_ns AND p.end_ns >= m.ts_ns WHERE m.id = ?1"

static Where where_at(TraceDb* db, int64_t id) {
    Where w;
    w.op = joined(db, "SELECT o.name FROM mem_event m JOIN cpu_op o ON o.id = m.op_id"
                      " WHERE m.id = ?1", id, "");
    w.module = joined(db, "SELECT module FROM mem_event WHERE id = ?1 AND module IS NOT NULL",
                      id, "");
    w.stack = joined(db, "SELECT o.call_stack FROM mem_event m JOIN cpu_op o ON o.id = m.op_id"
                         " WHERE m.id = ?1 AND o.call_stack <> ''", id, "");
    if (!w.stack) {
        w.stack = joined(db, "SELECT p.name" FRAMES_AT " AND p.name NOT LIKE 'nn.Module: %'"
                             " ORDER BY p.start_ns DESC, p.end_ns", id, ";");
    }
    return w;
}

/* ---- the views ---------------------------------------------------------------------- */

static int64_t origin_of(TraceDb* db, int64_t file) {
    int64_t o = TraceQuery_origin(db, file);
    if (o != 0) {
        return o;
    }
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT min(ts_ns) FROM mem_event WHERE file_id = ?1", &st, NULL) ==
        DCU_OK) {
        sqlite3_bind_int64(st, 1, file);
        if (sqlite3_step(st) == SQLITE_ROW) {
            o = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    }
    return o;
}

/* The time zero of a run: its first file's origin (the files of a run share their clock). */
static int64_t run_origin(TraceDb* db, int64_t run) {
    sqlite3_stmt* st = NULL;
    int64_t file = 0;
    if (TraceDb_prepare(db, "SELECT min(m.file_id)" IN_RUN, &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, run);
        if (sqlite3_step(st) == SQLITE_ROW) {
            file = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    }
    return file ? origin_of(db, file) : 0;
}

enum { P_RUN, P_DEV, P_EVENTS, P_ALLOC, P_ALLOC_T, P_RES_THEN, P_UNUSED, P_RES, P_RES_T, P_OP,
       P_MODULE, P_STACK, P_ROP, P_RMODULE, P_RSTACK, P_COUNT };
static const RsColumn peak_cols[P_COUNT] = {
    [P_RUN] = {"run", "Run", CT_TEXT},
    [P_DEV] = {"device", "Device", CT_INT},
    [P_EVENTS] = {"events", "Events", CT_INT},
    [P_ALLOC] = {"peak_allocated", "Peak alloc", CT_BYTES},
    [P_ALLOC_T] = {"peak_at_ns", "At", CT_NS},
    [P_RES_THEN] = {"reserved_at_peak", "Resv then", CT_BYTES},
    [P_UNUSED] = {"unused_reserved_at_peak", "Resv-alloc", CT_BYTES},
    [P_RES] = {"peak_reserved", "Peak resv", CT_BYTES},
    [P_RES_T] = {"peak_reserved_at_ns", "Reserved at", CT_NS},
    [P_OP] = {"op", "Op", CT_TEXT},
    [P_MODULE] = {"module", "Module", CT_TEXT},
    [P_STACK] = {"stack", "Call stack", CT_TEXT},
    [P_ROP] = {"reserved_op", "Op at the reserved peak", CT_TEXT},
    [P_RMODULE] = {"reserved_module", "Its module", CT_TEXT},
    [P_RSTACK] = {"reserved_stack", "Its call stack", CT_TEXT},
};

enum { L_RUN, L_DEV, L_BYTES, L_ADDR, L_AT, L_FREED, L_LIFE, L_OP, L_MODULE, L_COUNT };
static const RsColumn largest_cols[L_COUNT] = {
    [L_RUN] = {"run", "Run", CT_TEXT},           [L_DEV] = {"device", "Device", CT_INT},
    [L_BYTES] = {"bytes", "Bytes", CT_BYTES},    [L_ADDR] = {"addr", "Address", CT_INT},
    [L_AT] = {"allocated_ns", "Allocated", CT_NS}, [L_FREED] = {"freed_ns", "Freed", CT_NS},
    [L_LIFE] = {"lifetime_ns", "Lifetime", CT_NS}, [L_OP] = {"op", "Op", CT_TEXT},
    [L_MODULE] = {"module", "Module", CT_TEXT},
};

enum { T_RUN, T_DEV, T_FROM, T_TO, T_EVENTS, T_ALLOC, T_RES, T_COUNT };
static const RsColumn timeline_cols[T_COUNT] = {
    [T_RUN] = {"run", "Run", CT_TEXT},          [T_DEV] = {"device", "Device", CT_INT},
    [T_FROM] = {"from_ns", "From", CT_NS},      [T_TO] = {"to_ns", "To", CT_NS},
    [T_EVENTS] = {"events", "Events", CT_INT},
    [T_ALLOC] = {"max_allocated", "Max allocated", CT_BYTES},
    [T_RES] = {"max_reserved", "Max reserved", CT_BYTES},
};

enum { E_RUN, E_DEV, E_TS, E_T, E_BYTES, E_ALLOC, E_RES, E_UNUSED, E_ADDR, E_OP, E_MODULE,
       E_PID, E_TID, E_SOURCE, E_EVENT, E_COUNT };
static const RsColumn event_cols[E_COUNT] = {
    [E_RUN] = {"run", "Run", CT_TEXT},
    [E_DEV] = {"device", "Device", CT_INT},
    [E_TS] = {"ts_ns", "Timestamp", CT_INT},
    [E_T] = {"t_ns", "At", CT_NS},
    [E_BYTES] = {"bytes", "Bytes", CT_INT},
    [E_ALLOC] = {"total_allocated", "Allocated", CT_BYTES},
    [E_RES] = {"total_reserved", "Reserved", CT_BYTES},
    [E_UNUSED] = {"unused_reserved", "Resv-alloc", CT_BYTES},
    [E_ADDR] = {"addr", "Address", CT_INT},
    [E_OP] = {"op", "Op", CT_TEXT},
    [E_MODULE] = {"module", "Module", CT_TEXT},
    [E_PID] = {"pid", "Pid", CT_INT},
    [E_TID] = {"tid", "Tid", CT_INT},
    [E_SOURCE] = {"source", "Source", CT_TEXT},
    [E_EVENT] = {"event", "Event", CT_INT},
};

static void set_opt(ResultSet* rs, int r, int c, int64_t v) {
    if (v >= 0) {
        ResultSet_setInt(rs, r, c, v);
    }
}

static void set_where(ResultSet* rs, int r, int c_op, const Where* w) {
    ResultSet_setText(rs, r, c_op, w->op);
    ResultSet_setText(rs, r, c_op + 1, w->module);
}

enum { MAX_DEVICES = 256 };

static DcuStatus peaks_rows(TraceDb* db, ResultSet* rs, int64_t run, const char* label,
                            int largest, DcuError* err) {
    (void)largest;
    MemPeak p[MAX_DEVICES];
    int n = 0;
    DcuStatus s = Memory_peaks(db, run, p, MAX_DEVICES, &n, err);
    int64_t t0 = run_origin(db, run);
    for (int k = 0; s == DCU_OK && k < n && k < MAX_DEVICES; k++) {
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, P_RUN, label);
        ResultSet_setInt(rs, r, P_DEV, p[k].device);
        ResultSet_setInt(rs, r, P_EVENTS, p[k].events);
        set_opt(rs, r, P_ALLOC, p[k].allocated);
        set_opt(rs, r, P_RES_THEN, p[k].reserved_then);
        set_opt(rs, r, P_RES, p[k].reserved);
        if (p[k].allocated >= 0) {
            ResultSet_setInt(rs, r, P_ALLOC_T, p[k].allocated_ns - t0);
            if (p[k].reserved_then >= 0) {
                ResultSet_setInt(rs, r, P_UNUSED, p[k].reserved_then - p[k].allocated);
            }
            Where w = where_at(db, p[k].allocated_event);
            set_where(rs, r, P_OP, &w);
            ResultSet_setText(rs, r, P_STACK, w.stack);
            where_done(&w);
        }
        if (p[k].reserved >= 0) {
            ResultSet_setInt(rs, r, P_RES_T, p[k].reserved_ns - t0);
            Where w = where_at(db, p[k].reserved_event);
            set_where(rs, r, P_ROP, &w);
            ResultSet_setText(rs, r, P_RSTACK, w.stack);
            where_done(&w);
        }
    }
    return s;
}

static DcuStatus largest_rows(TraceDb* db, ResultSet* rs, int64_t run, const char* label,
                              int largest, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT m.device, m.bytes, m.addr, m.ts_ns, m.id, (SELECT x.ts_ns FROM mem_event x"
        "  WHERE x.file_id = m.file_id AND x.device = m.device AND x.addr = m.addr"
        "  AND x.bytes < 0 AND (x.ts_ns > m.ts_ns OR (x.ts_ns = m.ts_ns AND x.id > m.id))"
        "  ORDER BY x.ts_ns, x.id LIMIT 1)"
        " FROM (SELECT m.*, row_number() OVER (PARTITION BY m.device ORDER BY m.bytes DESC,"
        "  m.ts_ns, m.id) AS k" IN_RUN " AND m.bytes > 0) m"
        " WHERE m.k <= ?2 ORDER BY m.device, m.k",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, largest > 0 ? largest : MEM_LARGEST);
    int64_t t0 = run_origin(db, run);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        int64_t at = sqlite3_column_int64(st, 3);
        ResultSet_setText(rs, r, L_RUN, label);
        ResultSet_setInt(rs, r, L_DEV, sqlite3_column_int64(st, 0));
        ResultSet_setInt(rs, r, L_BYTES, sqlite3_column_int64(st, 1));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
            ResultSet_setInt(rs, r, L_ADDR, sqlite3_column_int64(st, 2));
        }
        ResultSet_setInt(rs, r, L_AT, at - t0);
        if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
            int64_t freed = sqlite3_column_int64(st, 5);
            ResultSet_setInt(rs, r, L_FREED, freed - t0);
            ResultSet_setInt(rs, r, L_LIFE, freed - at);
        }
        Where w = where_at(db, sqlite3_column_int64(st, 4));
        set_where(rs, r, L_OP, &w);
        where_done(&w);
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

/* Spans [from, to) of the device's rows that no event reached: the totals the last event
 * left (none before the first). */
static void carry(ResultSet* rs, int first, int from, int to, int64_t a, int64_t r) {
    for (int e = from; e < to; e++) {
        set_opt(rs, first + e, T_ALLOC, a);
        set_opt(rs, first + e, T_RES, r);
    }
}

/* MEM_BUCKETS equal spans from the device's first event to its last: the largest totals in
 * each, or, in a span without events, the totals the last event left. */
static DcuStatus timeline_rows(TraceDb* db, ResultSet* rs, int64_t run, const char* label,
                               int largest, DcuError* err) {
    (void)largest;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT m.device, m.ts_ns, m.total_allocated, m.total_reserved,"
        " min(m.ts_ns) OVER (PARTITION BY m.device), max(m.ts_ns) OVER (PARTITION BY m.device)"
        IN_RUN " ORDER BY m.device, m.ts_ns, m.id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    int64_t t0 = run_origin(db, run);
    int64_t dev = INT64_MIN, lo = 0, span = 1, last[2] = {-1, -1};
    int first = -1, b_at = -1, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t d = sqlite3_column_int64(st, 0), ts = sqlite3_column_int64(st, 1);
        if (d != dev) {
            if (first >= 0) {
                carry(rs, first, b_at + 1, MEM_BUCKETS, last[0], last[1]);
            }
            dev = d;
            lo = sqlite3_column_int64(st, 4);
            span = sqlite3_column_int64(st, 5) - lo + 1;
            first = rs->nrows;
            for (int b = 0; b < MEM_BUCKETS; b++) {
                int r = ResultSet_addRow(rs);
                ResultSet_setText(rs, r, T_RUN, label);
                ResultSet_setInt(rs, r, T_DEV, d);
                ResultSet_setInt(rs, r, T_FROM, lo - t0 + span * b / MEM_BUCKETS);
                ResultSet_setInt(rs, r, T_TO, lo - t0 + span * (b + 1) / MEM_BUCKETS);
                ResultSet_setInt(rs, r, T_EVENTS, 0);
            }
            last[0] = last[1] = -1;
            b_at = -1;
        }
        int b = (int)((ts - lo) * MEM_BUCKETS / span);
        b = b < 0 ? 0 : b >= MEM_BUCKETS ? MEM_BUCKETS - 1 : b;
        if (b > b_at) { /* spans entered: they start from the totals left */
            carry(rs, first, b_at + 1, b + 1, last[0], last[1]);
            b_at = b;
        }
        ResultSet_cell(rs, first + b, T_EVENTS)->i++;
        for (int c = 0; c < 2; c++) {
            if (sqlite3_column_type(st, 2 + c) == SQLITE_NULL) {
                continue;
            }
            int64_t v = sqlite3_column_int64(st, 2 + c);
            const RsCell* cell = ResultSet_cellc(rs, first + b, c ? T_RES : T_ALLOC);
            if (cell->null || v > cell->i) {
                ResultSet_setInt(rs, first + b, c ? T_RES : T_ALLOC, v);
            }
            last[c] = v;
        }
    }
    if (first >= 0) {
        carry(rs, first, b_at + 1, MEM_BUCKETS, last[0], last[1]);
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

static DcuStatus event_rows(TraceDb* db, ResultSet* rs, int64_t run, const char* label,
                            int largest, DcuError* err) {
    (void)largest;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(
        db,
        "SELECT m.device, m.ts_ns, m.bytes, m.total_allocated, m.total_reserved, m.addr,"
        " (SELECT o.name FROM cpu_op o WHERE o.id = m.op_id), m.module, m.pid, m.tid, m.source,"
        " m.event"
        IN_RUN " ORDER BY m.file_id, m.ts_ns, m.id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, run);
    int64_t t0 = run_origin(db, run);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = ResultSet_addRow(rs);
        ResultSet_setText(rs, r, E_RUN, label);
        static const int map[] = {E_DEV, E_TS, E_BYTES, E_ALLOC, E_RES, E_ADDR, E_OP, E_MODULE,
                                  E_PID, E_TID, E_SOURCE, E_EVENT};
        for (int c = 0; c < (int)(sizeof(map) / sizeof(map[0])); c++) {
            if (sqlite3_column_type(st, c) == SQLITE_NULL) {
                continue;
            }
            if (event_cols[map[c]].type == CT_TEXT) {
                ResultSet_setText(rs, r, map[c], (const char*)sqlite3_column_text(st, c));
            } else {
                ResultSet_setInt(rs, r, map[c], sqlite3_column_int64(st, c));
            }
        }
        ResultSet_setInt(rs, r, E_T, sqlite3_column_int64(st, 1) - t0);
        /* host memory's Total Reserved is 0 (no reserve): no unused part */
        if (sqlite3_column_type(st, 3) != SQLITE_NULL && sqlite3_column_int64(st, 4) > 0) {
            ResultSet_setInt(rs, r, E_UNUSED,
                             sqlite3_column_int64(st, 4) - sqlite3_column_int64(st, 3));
        }
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

DcuStatus Memory_view(TraceDb* db, MemView v, int largest, ResultSet** out, DcuError* err) {
    static const struct {
        const char* name;
        const RsColumn* cols;
        int ncols;
        DcuStatus (*rows)(TraceDb*, ResultSet*, int64_t, const char*, int, DcuError*);
    } views[MEM_VIEW_COUNT] = {
        [MEM_VIEW_PEAKS] = {"memory_peaks", peak_cols, P_COUNT, peaks_rows},
        [MEM_VIEW_LARGEST] = {"memory_largest", largest_cols, L_COUNT, largest_rows},
        [MEM_VIEW_TIMELINE] = {"memory_timeline", timeline_cols, T_COUNT, timeline_rows},
        [MEM_VIEW_EVENTS] = {"memory", event_cols, E_COUNT, event_rows},
    };
    *out = NULL;
    if ((int)v < 0 || v >= MEM_VIEW_COUNT) {
        return Error_set(err, DCU_ERR_USAGE, "memory: no such view");
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT r.id, r.label FROM run r WHERE r.id IN (SELECT run_id"
                                  " FROM run_scope) AND EXISTS (SELECT 1 FROM mem_event m JOIN"
                                  " source_file sf ON sf.id = m.file_id WHERE sf.run_id = r.id)"
                                  " ORDER BY r.id",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = ResultSet_new(views[v].name, views[v].cols, views[v].ncols);
    int rc;
    while (s == DCU_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        char* label = xstrdup((const char*)sqlite3_column_text(st, 1));
        s = views[v].rows(db, rs, sqlite3_column_int64(st, 0), label, largest, err);
        free(label);
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
