/* load_rpd.c - rocmProfileData "RPD" databases (FORMATS.md 4.4), the SQLite files that
 * rpd_tracer / runTracer.sh and `rocprof ... -i trace.rpd` write.
 *
 * load_sqlite.c opens the input read-only and recognises the schema (rocpd_op and
 * rocpd_string, no uuid suffix); this file reads it through that connection, from the
 * tables only: RPD's own views (top, busy, op, ...) are untrusted input and serve as an
 * oracle in the tests, never as data.
 *
 *   rocpd_op      GPU work. KernelExecution and Task ops are kernel dispatches (RAPTOR
 *                 counts Task as kernels too); CopyHostToDevice / CopyDeviceToHost /
 *                 CopyDeviceToDevice and FillBuffer (a device memset: it occupies the GPU
 *                 like a copy, and RPD's busy view counts it) are copies; other types
 *                 (markers, barriers) are counted in a message and not stored. The name is
 *                 the description string, or the opType when the description is empty (as
 *                 RPD's top view does). gpuId and queueId give the device and queue.
 *   rocpd_api     host calls, with pid and tid; UserMarker rows (and roctx* ones, should a
 *                 tracer name them so) are roctx ranges, the text in args. The call's id is
 *                 its correlation id.
 *   rocpd_api_ops launch -> op: the op's corr_id is its launching call's id.
 *   rocpd_kernelapi grid, workgroup, LDS (groupSegmentSize), scratch (privateSegmentSize).
 *   rocpd_copyapi bytes of a copy (size).
 *
 * Optional tables that are missing or lack the expected columns are left out with a message;
 * a rocpd_op or rocpd_string that cannot be read skips the file with a note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "load_event.h"

typedef struct Rpd_ {
    LoaderCore* core;
    LoadFile* f;
    sqlite3* in; /* the input, read-only (borrowed from load_sqlite.c) */
    int api_ops, kernelapi, copyapi; /* optional tables usable */
    sqlite3_stmt* copy_dev;          /* sets the device and queue of the copy just stored */
    sqlite3_stmt* string_of;         /* rocpd_string lookup by id (on the input) */
    char* desc;                      /* owned: the op's description and opType, or the API
                                      * call's name and args (string_col) */
    char* type;
    int64_t other_ops;               /* ops of types not read */
    char other_types[160];           /* their names, for the message */
} Rpd;

/* 1 when sql prepares on the input (the table exists with these columns). */
static int probe(Rpd* r, const char* sql) {
    sqlite3_stmt* st = NULL;
    int ok = sqlite3_prepare_v2(r->in, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    return ok;
}

/* An optional table: usable, or a message saying why it is left out. */
static int optional(Rpd* r, const char* table, const char* cols, const char* what) {
    char* sql = sqlite3_mprintf("SELECT %s FROM \"%w\" LIMIT 0", cols, table);
    int ok = probe(r, sql);
    sqlite3_free(sql);
    if (!ok) {
        char* has = sqlite3_mprintf("SELECT 1 FROM \"%w\" LIMIT 0", table);
        int exists = probe(r, has);
        sqlite3_free(has);
        Load_message(r->core, r->f, "RPD: table %s %s: %s not read", table,
                     exists ? "lacks the expected columns" : "absent", what);
    }
    return ok;
}

/* Integer column c; 0 (row rejected) when it is NULL or not an integer. */
static int int_col(Rpd* r, sqlite3_stmt* st, int c, const char* where, int64_t* out) {
    if (sqlite3_column_type(st, c) != SQLITE_INTEGER) {
        Load_reject(r->core, r->f, 0, "%s: column %s: not an integer", where,
                    sqlite3_column_name(st, c));
        return 0;
    }
    *out = sqlite3_column_int64(st, c);
    return 1;
}

/* Integer column c, LOAD_NULL when NULL (an optional join found nothing). */
static int64_t opt_col(sqlite3_stmt* st, int c) {
    return sqlite3_column_type(st, c) == SQLITE_INTEGER ? sqlite3_column_int64(st, c)
                                                        : LOAD_NULL;
}

/* Steps st; on an error (corrupt file) says so once, keeps the rows before. */
static int next_row(Rpd* r, sqlite3_stmt* st, const char* table, int64_t row) {
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        return 1;
    }
    if (rc != SQLITE_DONE) {
        Load_message(r->core, r->f, "table %s: %s after %lld rows (the rows before are kept)",
                     table, sqlite3_errmsg(r->in), (long long)row);
        r->f->rejected++;
    }
    return 0;
}

typedef enum { OP_KERNEL, OP_COPY, OP_OTHER } OpKind;

static OpKind op_kind(const char* type) {
    static const char* const kernels[] = {"KernelExecution", "Task", NULL};
    static const char* const copies[] = {"CopyHostToDevice", "CopyDeviceToHost",
                                         "CopyDeviceToDevice", "FillBuffer", NULL};
    for (int i = 0; kernels[i]; i++) {
        if (strcmp(type, kernels[i]) == 0) {
            return OP_KERNEL;
        }
    }
    for (int i = 0; copies[i]; i++) {
        if (strcmp(type, copies[i]) == 0) {
            return OP_COPY;
        }
    }
    return OP_OTHER;
}

static void note_other(Rpd* r, const char* type) {
    r->other_ops++;
    size_t n = strlen(r->other_types);
    if (strstr(r->other_types, type) == NULL && n + strlen(type) + 3 < sizeof(r->other_types)) {
        snprintf(r->other_types + n, sizeof(r->other_types) - n, "%s%s", n ? ", " : "", type);
    }
}

/* The copy's device and queue (columns the copy insert does not take). */
static void copy_device(Rpd* r, int64_t gpu, int64_t queue) {
    sqlite3_stmt* st = r->copy_dev;
    if (!st && TraceDb_prepare(r->core->db,
                               "UPDATE copy SET gpu = ?1, queue = ?2"
                               " WHERE id = last_insert_rowid()",
                               &r->copy_dev, NULL) != DCU_OK) {
        return;
    }
    st = r->copy_dev;
    sqlite3_bind_int64(st, 1, gpu);
    sqlite3_bind_int64(st, 2, queue);
    sqlite3_step(st);
    sqlite3_reset(st);
}

/* The string of id column c of st, looked up on its own: an id held twice in rocpd_string
 * (a hostile or damaged file) gives its first string, never a second row of the op, and a
 * string too long for SQLite's limit costs this op alone. Sets *out (owned, "" when the id
 * is NULL or absent) and returns 1; 0 with the row rejected when the string cannot be read. */
static int string_col(Rpd* r, sqlite3_stmt* st, int c, const char* where, char** out) {
    free(*out);
    *out = NULL;
    if (sqlite3_column_type(st, c) == SQLITE_NULL) {
        *out = xstrdup("");
        return 1;
    }
    int64_t id = sqlite3_column_int64(st, c);
    if (!r->string_of &&
        sqlite3_prepare_v2(r->in, "SELECT string FROM rocpd_string WHERE id = ?1 LIMIT 1",
                           -1, &r->string_of, NULL) != SQLITE_OK) {
        Load_reject(r->core, r->f, 0, "%s: rocpd_string: %s", where, sqlite3_errmsg(r->in));
        return 0;
    }
    sqlite3_stmt* q = r->string_of;
    sqlite3_bind_int64(q, 1, id);
    int rc = sqlite3_step(q);
    int ok = 1;
    if (rc == SQLITE_ROW) {
        const char* v = (const char*)sqlite3_column_text(q, 0);
        *out = xstrndup(v ? v : "", v ? (size_t)sqlite3_column_bytes(q, 0) : 0);
    } else if (rc == SQLITE_DONE) {
        *out = xstrdup("");
    } else {
        Load_reject(r->core, r->f, 0, "%s: %s (rocpd_string id %lld): %s: row not read", where,
                    sqlite3_column_name(st, c), (long long)id,
                    (sqlite3_errcode(r->in) & 0xff) == SQLITE_TOOBIG
                        ? "string longer than the 16 MiB a value may hold"
                        : sqlite3_errmsg(r->in));
        ok = 0;
    }
    sqlite3_reset(q);
    return ok;
}

static void store_op(Rpd* r, sqlite3_stmt* st, const char* where) {
    int64_t gpu, queue, seq, start, end;
    if (!int_col(r, st, 0, where, &gpu) || !int_col(r, st, 1, where, &queue) ||
        !int_col(r, st, 2, where, &seq) || !int_col(r, st, 3, where, &start) ||
        !int_col(r, st, 4, where, &end) || !string_col(r, st, 5, where, &r->desc) ||
        !string_col(r, st, 6, where, &r->type)) {
        return;
    }
    const char* desc = r->desc;
    const char* type = r->type;
    size_t dl = strlen(desc), tl = strlen(type);
    const char* name = dl > 0 ? desc : type;
    size_t nl = dl > 0 ? dl : tl;
    int64_t corr = opt_col(st, 7);
    switch (op_kind(type)) {
    case OP_KERNEL: {
        LoadDispatch d;
        LoadDispatch_init(&d);
        d.seq = seq;
        d.gpu = gpu;
        d.queue = queue;
        d.corr = corr;
        d.start = start;
        d.end = end;
        d.grid = opt_col(st, 8);
        d.workgroup = opt_col(st, 9);
        d.lds = opt_col(st, 10);
        d.scratch = opt_col(st, 11);
        LoadEvent_dispatch(r->core, r->f, where, name, nl, &d, RANK_DB);
        break;
    }
    case OP_COPY:
        if (LoadEvent_copy(r->core, r->f, where, name, nl, LOAD_NULL, LOAD_NULL, LOAD_NULL, corr,
                           opt_col(st, 12), start, end, RANK_DB)) {
            copy_device(r, gpu, queue);
        }
        break;
    case OP_OTHER:
        note_other(r, tl ? type : "(no type)");
        break;
    }
}

/* rocpd_op with names, launch and launch parameters. 0 when it cannot be read at all. */
static int read_ops(Rpd* r) {
    char* sql = sqlite3_mprintf(
        "SELECT o.gpuId, o.queueId, o.sequenceId, o.start, o.\"end\", o.description_id,"
        " o.opType_id, %s, %s, %s, %s, %s, %s, o.id"
        " FROM rocpd_op o %s %s %s ORDER BY o.start, o.id",
        r->api_ops ? "ao.api_id" : "NULL",
        r->kernelapi ? "k.gridX * k.gridY * k.gridZ" : "NULL",
        r->kernelapi ? "k.workgroupX * k.workgroupY * k.workgroupZ" : "NULL",
        r->kernelapi ? "k.groupSegmentSize" : "NULL",
        r->kernelapi ? "k.privateSegmentSize" : "NULL", r->copyapi ? "c.size" : "NULL",
        r->api_ops ? "LEFT JOIN (SELECT op_id, min(api_id) AS api_id FROM rocpd_api_ops"
                     " GROUP BY op_id) ao ON ao.op_id = o.id"
                   : "",
        /* one row per launch even where a damaged file repeats an api_ptr_id: a join never
         * multiplies ops */
        r->kernelapi ? "LEFT JOIN (SELECT * FROM rocpd_kernelapi GROUP BY api_ptr_id) k"
                       " ON k.api_ptr_id = ao.api_id"
                     : "",
        r->copyapi ? "LEFT JOIN (SELECT * FROM rocpd_copyapi GROUP BY api_ptr_id) c"
                     " ON c.api_ptr_id = ao.api_id"
                   : "");
    sqlite3_stmt* st = NULL;
    int rc = sqlite3_prepare_v2(r->in, sql, -1, &st, NULL);
    sqlite3_free(sql);
    if (rc != SQLITE_OK) {
        r->f->format = "skipped";
        r->f->note = xasprintf("rocmProfileData (RPD) database of unknown or partial schema: "
                               "rocpd_op: %s",
                               sqlite3_errmsg(r->in));
        sqlite3_finalize(st);
        return 0;
    }
    char where[64];
    int64_t row = 0;
    while (next_row(r, st, "rocpd_op", row)) {
        row++;
        snprintf(where, sizeof(where), "table rocpd_op id %lld",
                 (long long)sqlite3_column_int64(st, 13));
        store_op(r, st, where);
    }
    sqlite3_finalize(st);
    if (r->other_ops > 0) {
        Load_message(r->core, r->f, "RPD: %lld ops of other types not read (%s)",
                     (long long)r->other_ops, r->other_types);
    }
    return 1;
}

/* rpd_tracer's overhead records (rocmProfileData rpd_tracer Logger::createOverheadRecord,
 * domain "rpd_tracer", category "overhead" in newer files): the time it spent writing its
 * own tables (OpTable::writeRows, KernelApiTable::writeRows, ...), in its roctracer
 * callback (hcc_activity_callback), draining (run_to_completion) or blocked on a full
 * buffer (BLOCKING). Not the application's host API time. */
static int profiler_internal(const char* name) {
    static const char* const exact[] = {"hcc_activity_callback", "run_to_completion", "BLOCKING",
                                        "ClrDataSource::chunkCallback",
                                        "RemoteDataSource::write"};
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
        if (strcmp(name, exact[i]) == 0) {
            return 1;
        }
    }
    size_t n = strlen(name);
    static const char suffix[] = "Table::writeRows";
    return n >= sizeof(suffix) - 1 && strcmp(name + n - (sizeof(suffix) - 1), suffix) == 0;
}

static const char* api_domain(const char* name) {
    if (strncmp(name, "hip", 3) == 0) {
        return "HIP";
    }
    if (strncmp(name, "hsa_", 4) == 0) {
        return "HSA";
    }
    return profiler_internal(name) ? API_DOMAIN_PROFILER : "OTHER";
}

static void store_api(Rpd* r, sqlite3_stmt* st, const char* where) {
    int64_t id, pid, tid, start, end;
    if (!int_col(r, st, 0, where, &id) || !int_col(r, st, 1, where, &pid) ||
        !int_col(r, st, 2, where, &tid) || !int_col(r, st, 3, where, &start) ||
        !int_col(r, st, 4, where, &end)) {
        return;
    }
    if (!string_col(r, st, 5, where, &r->desc) || !string_col(r, st, 6, where, &r->type)) {
        return;
    }
    const char* name = r->desc;
    const char* args = r->type;
    size_t nl = strlen(name), al = strlen(args);
    if (strcmp(name, "UserMarker") == 0 || strncmp(name, "roctx", 5) == 0) {
        /* a roctx range (push..pop, start..stop) or mark (start = end); the text is args */
        LoadEvent_range(r->core, r->f, where, "MARKER", "range", al ? args : name,
                        al ? al : nl, pid, tid, id, start, end, RANK_DB);
    } else {
        LoadEvent_apiCall(r->core, r->f, where, api_domain(name), name, nl, pid, tid, id, start,
                          end, RANK_DB);
    }
}

static void read_api(Rpd* r) {
    if (!optional(r, "rocpd_api", "id, pid, tid, start, \"end\", apiName_id, args_id",
                  "host API calls and roctx ranges")) {
        return;
    }
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(r->in,
                           "SELECT a.id, a.pid, a.tid, a.start, a.\"end\", a.apiName_id,"
                           " a.args_id FROM rocpd_api a ORDER BY a.start, a.id",
                           -1, &st, NULL) != SQLITE_OK) {
        Load_message(r->core, r->f, "table rocpd_api: %s", sqlite3_errmsg(r->in));
        sqlite3_finalize(st);
        return;
    }
    char where[64];
    int64_t row = 0;
    while (next_row(r, st, "rocpd_api", row)) {
        row++;
        snprintf(where, sizeof(where), "table rocpd_api id %lld",
                 (long long)sqlite3_column_int64(st, 0));
        store_api(r, st, where);
    }
    sqlite3_finalize(st);
}

static void read_metadata(Rpd* r) {
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(r->in, "SELECT tag, value FROM rocpd_metadata", -1, &st, NULL) !=
        SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char* tag = (const char*)sqlite3_column_text(st, 0);
        const char* value = (const char*)sqlite3_column_text(st, 1);
        if (!tag || !value) {
            continue;
        }
        if (strcmp(tag, "schema_version") == 0 && strcmp(value, "2") != 0) {
            Load_message(r->core, r->f, "RPD schema_version %.20s: only version 2 is known; "
                                        "reading its tables by column name",
                         value);
        }
        /* the Callstack extension (ext_callstack) nests API calls in API calls; it holds no
         * source frames (file, line, function), so there is no stack to attach */
        if (strcmp(tag, "Callstack::Table") == 0 && strcmp(value, "True") == 0) {
            Load_message(r->core, r->f, "RPD: ext_callstack (API call nesting) not read: "
                                        "it has no source frames");
        }
    }
    sqlite3_finalize(st);
}

/* rocpd_string.id is its key in every file rpd_tracer writes; a file where an id repeats is
 * damaged or forged. Its ops still load once each (string_col takes the first string). */
static void duplicate_strings(Rpd* r) {
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(r->in,
                           "SELECT count(*), min(id) FROM (SELECT id FROM rocpd_string"
                           " GROUP BY id HAVING count(*) > 1)",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        Load_message(r->core, r->f, "RPD: table rocpd_string holds %lld ids more than once "
                                    "(the first: id %lld): each op takes the first string of its "
                                    "id, once",
                     (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1));
    }
    sqlite3_finalize(st);
}

void LoadRpd_read(LoaderCore* core, LoadFile* f, sqlite3* in) {
    Rpd r;
    memset(&r, 0, sizeof(r));
    r.core = core;
    r.f = f;
    r.in = in;
    f->format = "rocmProfileData (RPD) database";
    if (!probe(&r, "SELECT id, string FROM rocpd_string LIMIT 0")) {
        f->format = "skipped";
        f->note = xasprintf("rocmProfileData (RPD) database of unknown or partial schema: "
                            "rocpd_string: %s",
                            sqlite3_errmsg(in));
        return;
    }
    read_metadata(&r);
    duplicate_strings(&r);
    r.api_ops = optional(&r, "rocpd_api_ops", "api_id, op_id", "launch-to-op correlation");
    r.kernelapi = r.api_ops &&
                  optional(&r, "rocpd_kernelapi",
                           "api_ptr_id, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ,"
                           " groupSegmentSize, privateSegmentSize",
                           "grid, workgroup, LDS and scratch");
    r.copyapi = r.api_ops && optional(&r, "rocpd_copyapi", "api_ptr_id, size", "copy bytes");
    if (read_ops(&r)) {
        read_api(&r);
    }
    sqlite3_finalize(r.copy_dev);
    sqlite3_finalize(r.string_of);
    free(r.desc);
    free(r.type);
}
