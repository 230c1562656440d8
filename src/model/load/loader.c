/* loader.c - takes the files found by the folder walk (folder_walk.c), sniffs each one,
 * owns the load transaction and the prepared statements, and then groups the files into
 * runs (load_runs.c), which decides which files of a run are superseded. */
#include "dcutop/loader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "dcutop/csv_reader.h"
#include "dcutop/dispatch_store.h"
#include "dcutop/folder_walk.h"
#include "dcutop/names.h"
#include "dcutop/op_link.h"
#include "dcutop/safe_file.h"
#include "dcutop/shortname.h"
#include "dcutop/variab.h"
#include "dcutop/xalloc.h"
#include "store/dispatch_agg.h"
#include "store/row_batch.h"
#include "kineto_memory.h"
#include "load_event.h"
#include "load_internal.h"
#include "load_stacks_internal.h"
#include "load_smi.h"

#define MAX_DEPTH 8

/* What the runs need of each walk entry once it is loaded (index = entry index). */
typedef struct Loaded_ {
    int64_t id;         /* source_file.id */
    const char* format; /* static text */
    char* tag;          /* run_tag() of the path (owned) */
} Loaded;

struct Loader_ {
    LoaderCore core;
    FolderWalk* walk; /* the files to load, in order */
    Loaded* loaded;   /* one per walk entry, filled by load_one (owned) */
    char** roots;     /* the paths given, trailing slashes dropped (owned) */
    int nroots;
    sqlite3_stmt* file_ins; /* source_file row, before reading (messages refer to it) */
    sqlite3_stmt* file_upd; /* its outcome, after */
    sqlite3_stmt* layer_ins;
    LoadTotals totals;
};

static const char* const layer_names[LAYER_COUNT] = {"kernel", "api", "copy", "range", "agent",
                                                     "stack", "steps"};

static const char* const stmt_sql[ST_COUNT] = {
    [ST_KERNEL] = "INSERT INTO kernel(id, name, short_name, name_raw) VALUES(?1, ?2, ?3, ?4)",
    [ST_COUNTER] = "INSERT INTO dispatch_counter(dispatch_id, name, value) VALUES(?1, ?2, ?3)",
    [ST_KSTAT] = "INSERT INTO kernel_stat(file_id, kernel_id, calls, total_ns, min_ns, max_ns,"
                 " stddev_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_APISTAT] = "INSERT INTO api_stat(file_id, domain, name, calls, total_ns, min_ns, max_ns,"
                   " stddev_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_COPYSTAT] = "INSERT INTO copy_stat(file_id, name, calls, total_ns, min_ns, max_ns,"
                    " stddev_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_COPY] = "INSERT INTO copy(file_id, name, src_agent, dst_agent, stream, corr_id, bytes,"
                " start_ns, end_ns, dur_ns, gpu) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
                " ?11)",
    [ST_RANGE] = "INSERT INTO range(file_id, domain, name, pid, tid, corr_id, event, start_ns,"
                 " end_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [ST_AGENT] = "INSERT INTO agent(file_id, node_id, type, name, product_name, cu_count,"
                 " wave_size, gfx_version) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_MSG] = "INSERT INTO load_message(file_id, line, message) VALUES(?1, ?2, ?3)",
    [ST_CPUOP] = "INSERT INTO cpu_op(file_id, name, pid, tid, ext_id, start_ns, end_ns,"
                 " call_stack, input_dims, input_types, input_strides, concrete_inputs, seq_nr,"
                 " fwd_tid) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    [ST_FLOW] = "INSERT INTO kineto_flow(file_id, flow_id, ph, pid, tid, ts_ns)"
                " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_PYFRAME] = "INSERT INTO py_frame(file_id, pid, tid, py_id, parent_py_id, name, start_ns,"
                   " end_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
};

Loader* Loader_new(TraceDb* db, const LoadOptions* opt) {
    Loader* this = xcalloc(1, sizeof(*this));
    this->core.db = db;
    if (opt) {
        this->core.opt = *opt;
    }
    if (this->core.opt.max_messages <= 0) {
        this->core.opt.max_messages = 5;
    }
    if (this->core.opt.max_event_size <= 0) {
        this->core.opt.max_event_size = LOAD_DEFAULT_EVENT_SIZE;
    }
    this->walk = FolderWalk_new(MAX_DEPTH);
    this->core.kernels = Intern_new();
    this->core.raw_kernels = Intern_new();
    this->core.raw_shared = SharedIntern_new();
    this->core.agg = DispatchAgg_new();
    /* with threads to spare, the store encodes full chunks beside the loading thread */
    DispatchStore_setSealThread(TraceDb_dispatchStore(db), CsvReader_threads() > 1);
    this->core.next_kernel_id = TraceDb_scalarInt(db, "SELECT coalesce(max(id), 0) FROM kernel") + 1;
    return this;
}

void Loader_delete(Loader* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(this->core.st[i]);
    }
    Intern_delete(this->core.kernels);
    Intern_delete(this->core.raw_kernels);
    SharedIntern_delete(this->core.raw_shared);
    DispatchAgg_delete(this->core.agg);
    RowBatch_delete(this->core.links);
    RowBatch_delete(this->core.calls);
    sqlite3_finalize(this->file_ins);
    sqlite3_finalize(this->file_upd);
    sqlite3_finalize(this->layer_ins);
    LoadStacks_done(&this->core);
    if (this->loaded) {
        for (int i = 0; i < FolderWalk_count(this->walk); i++) {
            free(this->loaded[i].tag);
        }
        free(this->loaded);
    }
    FolderWalk_delete(this->walk);
    for (int i = 0; i < this->nroots; i++) {
        free(this->roots[i]);
    }
    free(this->roots);
    free(this);
}

const LoadTotals* Loader_totals(const Loader* this) {
    return &this->totals;
}

DcuStatus Loader_addPath(Loader* this, const char* path, DcuError* err) {
    DcuStatus s = FolderWalk_add(this->walk, path, err);
    if (s == DCU_OK) { /* the runs name themselves after the path */
        char* clean = xstrdup(path);
        size_t l = strlen(clean);
        while (l > 1 && clean[l - 1] == '/') {
            clean[--l] = '\0';
        }
        this->roots = xrealloc(this->roots, sizeof(char*) * (size_t)(this->nroots + 1));
        this->roots[this->nroots++] = clean;
    }
    return s;
}

/* A pid-like number in the file name ties the files of one process together
 * (result_1234.kernel.csv, 1234_kernel_trace.csv, hip_api_trace_1234.csv). */
static char* run_tag(const char* path) {
    const char* b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (const char* p = b; *p; p++) {
        if (*p >= '0' && *p <= '9' && (p == b || !(p[-1] >= '0' && p[-1] <= '9'))) {
            size_t n = strspn(p, "0123456789");
            if (n >= 3) {
                return xstrndup(p, n);
            }
        }
    }
    return xstrdup("");
}

/* Files that sit beside traces but are never traces: said once, not warned about. */
static int is_doc_file(const char* path) {
    const char* b = strrchr(path, '/');
    b = b ? b + 1 : path;
    static const char* const suffixes[] = {".md", ".py", ".sh", ".rules", ".theme", ".keys",
                                           ".expected", ".c", ".h", ".html", ".pdf", ".png"};
    size_t bl = strlen(b);
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t sl = strlen(suffixes[i]);
        if (bl >= sl && strcmp(b + bl - sl, suffixes[i]) == 0) {
            return 1;
        }
    }
    return strcmp(b, "SOURCE.txt") == 0 || strncmp(b, "README", 6) == 0 ||
           strncmp(b, "LICENSE", 7) == 0;
}

/* Markers returned by sniff_other for the formats read by load_sqlite.c / load_json.c. */
static const char sniffed_sqlite[] = "sqlite", sniffed_json[] = "json", sniffed_gzip[] = "gzip";

/* The first bytes of a gzip file, decompressed, into head (cap bytes); how many (0 when
 * they cannot be read). */
static size_t gzip_head(const char* path, unsigned char* head, size_t cap) {
    FILE* fp = SafeFile_fopen(path, NULL);
    if (!fp) {
        return 0;
    }
    int fd = dup(fileno(fp));
    fclose(fp);
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (!gz) {
        if (fd >= 0) {
            close(fd);
        }
        return 0;
    }
    int got = gzread(gz, head, (unsigned)cap);
    gzclose(gz);
    return got > 0 ? (size_t)got : 0;
}

/* Non-CSV content recognised by its first bytes. NULL: try CSV. */
static const char* sniff_other(const unsigned char* b, size_t n, const char** note) {
    if (n >= 16 && memcmp(b, "SQLite format 3", 16) == 0) {
        return sniffed_sqlite;
    }
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        return sniffed_gzip; /* read_file looks inside */
    }
    size_t i = 0;
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
        i = 3;
    }
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
        i++;
    }
    if (i < n && (b[i] == '{' || b[i] == '[')) {
        return sniffed_json;
    }
    if (n >= 12 && memcmp(b, "CMD: rocminfo", 13 > n ? n : 13) == 0) {
        *note = "rocminfo system info (device state layer): not a timing source";
        return "skipped";
    }
    if (memchr(b, '\0', n) && !memchr(b, ',', n)) {
        *note = "binary file, not a trace";
        return "skipped";
    }
    return NULL;
}

/* rocprofv3's JSON: its only top-level key, "rocprofiler-sdk-tool", opens the document. */
static int is_v3json(const unsigned char* b, size_t n) {
    static const char key[] = "\"rocprofiler-sdk-tool\"";
    size_t i = 0;
    while (i < n && b[i] != '{') {
        i++;
    }
    for (i++; i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'); i++) {
    }
    return i + sizeof(key) - 1 <= n && memcmp(b + i, key, sizeof(key) - 1) == 0;
}

/* A SQLite database's -wal, -shm or -journal file beside it (the base path holds a SQLite
 * header): part of that database, read with it by load_sqlite.c. Returns the suffix
 * ("-wal", ...) or NULL. */
static const char* sqlite_companion(const char* path) {
    static const char* const suffixes[] = {"-wal", "-shm", "-journal"};
    size_t n = strlen(path);
    for (size_t k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++) {
        size_t sl = strlen(suffixes[k]);
        if (n <= sl || strcmp(path + n - sl, suffixes[k]) != 0) {
            continue;
        }
        char* base = xstrndup(path, n - sl);
        DcuError e;
        FILE* fp = SafeFile_fopen(base, &e);
        free(base);
        char head[16];
        int is_db = fp && fread(head, 1, 16, fp) == 16 && memcmp(head, "SQLite format 3", 16) == 0;
        if (fp) {
            fclose(fp);
        }
        return is_db ? suffixes[k] : NULL;
    }
    return NULL;
}

/* Opens, sniffs and reads one file into f. DCU_OK, or the reason it could not be read. */
static DcuStatus read_file(LoaderCore* core, LoadFile* f, DcuError* ferr) {
    unsigned char head[512];
    FILE* fp = SafeFile_fopen(f->path, ferr); /* a FIFO or device is refused, never waited on */
    if (!fp) {
        return DCU_ERR_IO;
    }
    size_t n = fread(head, 1, sizeof(head), fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        return Error_set(ferr, DCU_ERR_IO, "cannot read: %s", strerror(errno));
    }
    if (is_doc_file(f->path)) {
        f->format = "skipped";
        f->note = xstrdup("not a trace (documentation or code)");
        return DCU_OK;
    }
    const char* part = sqlite_companion(f->path);
    if (part) {
        const char* b = strrchr(f->path, '/');
        b = b ? b + 1 : f->path;
        f->format = "part of a SQLite database";
        char* db_name = Names_sanitize(b, strlen(b) - strlen(part));
        f->note = xasprintf("the %s file of %s: read with it", part, db_name);
        free(db_name);
        return DCU_OK;
    }
    int smi = n == 0 ? 0 : LoadSmi_sniff(head, n);
    if (smi > 0) { /* a device-state log (nvidia-smi, rocm-smi, hy-smi, amd-smi) */
        return LoadSmi_file(core, f, smi, ferr);
    }
    const char* note = "empty file";
    const char* other = n == 0 ? "skipped" : sniff_other(head, n, &note);
    int steps = n == 0 ? 0 : LoadSteps_sniff(f->path, head, n);
    int metrics = n == 0 ? 0 : LoadMetrics_sniff(f->path, head, n);
    int sform;
    if (other == sniffed_gzip) { /* .json.gz to the JSON reader, .csv.gz to the CSV one */
        unsigned char inner[512];
        size_t m = gzip_head(f->path, inner, sizeof(inner));
        if (m > 0 && (smi = LoadSmi_sniff(inner, m)) > 0) {
            return LoadSmi_file(core, f, smi, ferr);
        }
        const char* inside = m == 0 ? NULL : sniff_other(inner, m, &note);
        if (inside == sniffed_sqlite || inside == sniffed_gzip) {
            f->format = "skipped";
            f->note = xstrdup("gzip file that holds no CSV or JSON trace");
            return DCU_OK;
        }
        if (inside == sniffed_json && is_v3json(inner, m)) {
            return LoadV3Json_file(core, f, ferr);
        }
        int gmetrics = m == 0 ? 0 : LoadMetrics_sniff(f->path, inner, m);
        if (gmetrics > 0 && inside != sniffed_sqlite) {
            return LoadMetrics_file(core, f, gmetrics, ferr);
        }
        int gsteps = m == 0 || inside ? 0 : LoadSteps_sniff(f->path, inner, m);
        if (gsteps > 0) { /* a gzipped step-time or stack CSV reads as the plain one */
            return LoadSteps_file(core, f, gsteps, ferr);
        }
        if (m > 0 && !inside && (sform = LoadStacks_sniff(f->path)) > 0) {
            return LoadStacks_file(core, f, sform, ferr);
        }
        return m == 0 || inside == sniffed_json ? LoadJson_file(core, f, ferr)
                                                : LoadCsv_file(core, f, ferr);
    }
    if (metrics > 0) {
        return LoadMetrics_file(core, f, metrics, ferr);
    } else if (steps > 0) {
        return LoadSteps_file(core, f, steps, ferr);
    } else if (other == sniffed_sqlite) {
        return LoadSqlite_file(core, f, ferr);
    } else if (other == sniffed_json) {
        return is_v3json(head, n) ? LoadV3Json_file(core, f, ferr)
                                  : LoadJson_file(core, f, ferr);
    } else if (other) {
        f->format = other;
        f->note = xstrdup(note);
        return DCU_OK;
    } else if ((sform = LoadStacks_sniff(f->path)) > 0) {
        return LoadStacks_file(core, f, sform, ferr);
    }
    return LoadCsv_file(core, f, ferr);
}

/* Stores f's outcome in source_file and its layers in source_layer. */
static DcuStatus record_file(Loader* this, const LoadFile* f, DcuError* err) {
    sqlite3* db = TraceDb_handle(this->core.db);
    sqlite3_stmt* upd = this->file_upd;
    sqlite3_bind_text(upd, 1, f->format, -1, SQLITE_STATIC);
    sqlite3_bind_int64(upd, 2, f->rows);
    sqlite3_bind_int64(upd, 3, f->rejected);
    sqlite3_bind_int(upd, 4, f->pmc);
    if (f->note) {
        sqlite3_bind_text(upd, 5, f->note, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(upd, 5);
    }
    sqlite3_bind_int64(upd, 6, f->id);
    int rc = sqlite3_step(upd);
    sqlite3_reset(upd);
    if (rc != SQLITE_DONE) {
        return Error_set(err, DCU_ERR_SQL, "source_file: %s", sqlite3_errmsg(db));
    }
    for (int l = 0; l < LAYER_COUNT; l++) {
        if (f->layer_rows[l] == 0) {
            continue;
        }
        sqlite3_stmt* ly = this->layer_ins;
        sqlite3_bind_int64(ly, 1, f->id);
        sqlite3_bind_text(ly, 2, layer_names[l], -1, SQLITE_STATIC);
        sqlite3_bind_int(ly, 3, f->layer_grain[l]);
        sqlite3_bind_int(ly, 4, f->layer_rank[l]);
        rc = sqlite3_step(ly);
        sqlite3_reset(ly);
        if (rc != SQLITE_DONE) {
            return Error_set(err, DCU_ERR_SQL, "source_layer: %s", sqlite3_errmsg(db));
        }
    }
    return DCU_OK;
}

/* Names kept mangled because their demangled text passed the cap: one message per file. */
static void capped_note(LoaderCore* core, LoadFile* f) {
    if (core->names_capped == 0) {
        return;
    }
    char* shown = Names_sanitize(core->capped_name, strlen(core->capped_name));
    Load_message(core, f,
                 "%d kernel name%s kept mangled (%s...): demangled, each would pass %d KiB",
                 core->names_capped, core->names_capped == 1 ? "" : "s", shown,
                 NAMES_DEMANGLE_MAX / 1024);
    free(shown);
    core->names_capped = 0;
}

static DcuStatus load_one(Loader* this, int index, const WalkEntry* q, DcuError* err) {
    LoaderCore* core = &this->core;
    LoadFile f = {0};
    f.path = q->path;
    f.format = "?";
    sqlite3* db = TraceDb_handle(core->db);
    sqlite3_stmt* ins = this->file_ins;
    char* spath = Names_sanitize(q->path, strlen(q->path));
    sqlite3_bind_text(ins, 1, spath, -1, free);
    sqlite3_bind_text(ins, 2, q->dir, -1, SQLITE_TRANSIENT);
    Loaded* ld = &this->loaded[index];
    ld->tag = run_tag(q->path);
    sqlite3_bind_text(ins, 3, ld->tag, -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 4, (sqlite3_int64)q->bytes);
    sqlite3_bind_text(ins, 5, Names_sanitize(q->name, strlen(q->name)), -1, free);
    sqlite3_bind_int(ins, 6, q->root);
    int rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    if (rc != SQLITE_DONE) {
        return Error_set(err, DCU_ERR_SQL, "source_file: %s", sqlite3_errmsg(db));
    }
    f.id = sqlite3_last_insert_rowid(db);
    ld->id = f.id;
    this->totals.files++;

    DcuError ferr;
    Error_clear(&ferr);
    DcuStatus fs = DCU_OK;
    if (q->format) { /* decided by the walk: never opened */
        f.format = q->format;
        f.note = Names_sanitize(q->note, strlen(q->note));
        if (strcmp(q->format, "unreadable") == 0) {
            fs = Error_set(&ferr, DCU_ERR_IO, "%s", f.note);
        }
        if (q->warn) {
            Load_message(core, &f, "%s", f.note);
        }
    } else {
        fs = read_file(core, &f, &ferr);
    }
    LoadEvent_flush(core, &f); /* the rows kept back, before the check and any reader */
    capped_note(core, &f);
    if (core->storage_rc) { /* no later file could be stored either: stop, and say why */
        free(f.note);
        int full = (core->storage_rc & 0xff) == SQLITE_FULL;
        return Error_set(err, DCU_ERR_IO,
                         "%s: the trace database could not store rows (%s): its temporary "
                         "files in %s %s; point SQLITE_TMPDIR or TMPDIR at a %s folder, or "
                         "raise --db-memory",
                         q->path,
                         core->storage_why[0] ? core->storage_why
                                              : sqlite3_errstr(core->storage_rc),
                         TraceDb_tempDir(),
                         full ? "are out of room; free space there" : "cannot be written",
                         full ? "larger" : "writable");
    }
    /* the sums of the rows this file stored, whatever became of the rest of it */
    DcuStatus as = DispatchAgg_flush(core->agg, core->db, f.id, err);
    if (as != DCU_OK) {
        free(f.note);
        return as;
    }
    if (fs != DCU_OK) {
        f.format = "unreadable";
        /* the path is already in the file column; keep only the reason */
        const char* m = ferr.msg;
        const char* colon = strstr(m, ": ");
        char* reason =
            xstrdup(colon && strncmp(m, q->path, strlen(q->path)) == 0 ? colon + 2 : m);
        free(f.note);
        f.note = reason;
        this->totals.files_failed++;
    } else if (f.rows > 0) {
        this->totals.files_loaded++;
    } else {
        this->totals.files_skipped++;
    }
    this->totals.rows += f.rows;
    this->totals.rejected += f.rejected;
    if (f.names_cut > 1) {
        Load_message(core, &f, "%lld names in all were longer than 1 MiB and cut to it (their rows kept)",
                     (long long)f.names_cut);
    }
    if (f.rejected > f.messages) {
        Load_message(core, &f, "%lld more rejected rows not listed",
                     (long long)(f.rejected - f.messages));
    }
    core->bytes_before += q->bytes;
    ld->format = f.format;
    DcuStatus s = record_file(this, &f, err);
    free(f.note);
    return s;
}

/* Runs, then supersession inside each run, then the materialized kernel summary. */
static DcuStatus finish_runs(Loader* this, DcuError* err) {
    int n = FolderWalk_count(this->walk);
    RunFile* rf = xcalloc((size_t)(n > 0 ? n : 1), sizeof(RunFile));
    for (int i = 0; i < n; i++) {
        const WalkEntry* q = FolderWalk_entry(this->walk, i);
        const Loaded* ld = &this->loaded[i];
        rf[i] = (RunFile){ld->id, q->root, q->path, q->dir, q->reldir, ld->tag, ld->format, -1};
    }
    DcuStatus s = LoadRuns_assign(&this->core, rf, n, (const char* const*)this->roots,
                                  this->nroots, err);
    free(rf);
    if (s == DCU_OK) { /* a job summary's run reads as the rank it summarizes */
        s = TraceDb_exec(this->core.db,
                         "UPDATE run SET label = substr(label, 1, length(label) - 7)"
                         " WHERE label LIKE '%.dcusum' AND id IN (SELECT run_id FROM source_file"
                         " WHERE format = 'dcutop job summary') AND NOT EXISTS (SELECT 1 FROM run r2"
                         " WHERE r2.label = substr(run.label, 1, length(run.label) - 7))",
                         err);
    }
    if (s == DCU_OK) {
        int64_t lost = 0;
        s = LoadCsv_linkCounters(&this->core, &lost, err);
        this->totals.rows -= lost; /* counters alone load nothing (the empty load's exit) */
        this->totals.rejected += lost;
    }
    if (s == DCU_OK) {
        s = LoadRuns_finish(&this->core, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_exec(this->core.db,
                         "INSERT INTO kernel_summary(kernel_id, calls, total_ns, min_ns, max_ns,"
                         " sumsq, has_sq, per_dispatch) SELECT * FROM kernel_summary_agg_v",
                         err);
    }
    return s;
}

DcuStatus Loader_run(Loader* this, DcuError* err) {
    LoaderCore* core = &this->core;
    DcuStatus s = TraceDb_exec(core->db, "BEGIN", err);
    if (!core->links) {
        core->links = RowBatch_new(core->db, "INSERT INTO ext_link(file_id, corr_id, ext_id)"
                                   " VALUES", "(?, ?, ?)", 3);
    }
    if (!core->calls) { /* a million rows at a 1M-kernel Kineto load */
        core->calls = RowBatch_new(core->db, "INSERT INTO api_call(file_id, domain, name, pid,"
                                   " tid, corr_id, start_ns, end_ns, dur_ns) VALUES",
                                   "(?, ?, ?, ?, ?, ?, ?, ?, ?)", 9);
    }
    for (int i = 0; s == DCU_OK && i < ST_COUNT; i++) {
        if (!core->st[i]) {
            s = TraceDb_prepare(core->db, stmt_sql[i], &core->st[i], err);
        }
    }
    static const char* const file_sql[3] = {
        "INSERT INTO source_file(path, dir, run_tag, format, bytes, name, root) "
        "VALUES(?1, ?2, ?3, '?', ?4, ?5, ?6)",
        "UPDATE source_file SET format = ?1, rows_read = ?2, rows_rejected = ?3, pmc = ?4,"
        " note = ?5 WHERE id = ?6",
        "INSERT INTO source_layer(file_id, layer, grain, rank) VALUES(?1, ?2, ?3, ?4)"};
    sqlite3_stmt** file_st[3] = {&this->file_ins, &this->file_upd, &this->layer_ins};
    for (int i = 0; s == DCU_OK && i < 3; i++) {
        if (!*file_st[i]) {
            s = TraceDb_prepare(core->db, file_sql[i], file_st[i], err);
        }
    }
    FolderWalk_finish(this->walk);
    int n = FolderWalk_count(this->walk);
    this->loaded = xcalloc((size_t)(n > 0 ? n : 1), sizeof(Loaded));
    for (int i = 0; i < n; i++) {
        core->bytes_total += FolderWalk_entry(this->walk, i)->bytes;
    }
    for (int i = 0; s == DCU_OK && i < n; i++) {
        s = load_one(this, i, FolderWalk_entry(this->walk, i), err);
    }
    if (s == DCU_OK) {
        s = finish_runs(this, err);
    }
    if (s == DCU_OK) { /* device-state logs onto the clock of the trace in their run */
        s = LoadSmi_finish(core, err);
    }
    if (s == DCU_OK) {
        s = Variab_compute(core->db, err);
    }
    if (s == DCU_OK) { /* before the stacks and ranges, which follow backward kernels */
        s = OpLink_build(core->db, err);
    }
    if (s == DCU_OK) { /* needs used files and kernel_summary */
        s = KinetoStacks_build(core, err); /* the Kineto python stacks, then every other's */
    }
    if (s == DCU_OK) {
        s = LoadStacks_finish(core, err);
    }
    if (s == DCU_OK) {
        s = LoadRanges_finish(core, err);
    }
    if (s == DCU_OK) {
        s = LoadMemory_finish(core, err);
    }
    if (s == DCU_OK) { /* after the ranges and stacks it reads */
        s = OpLink_markers(core->db, err);
    }
    if (s == DCU_OK) { /* after the stacks matched kernels by their old short names */
        s = ShortName_assignAll(core->db, err);
    }
    if (s != DCU_OK) {
        TraceDb_exec(core->db, "ROLLBACK", NULL);
        return s;
    }
    s = TraceDb_exec(core->db, "COMMIT", err);
    if (s != DCU_OK) {
        return s;
    }
    if (this->totals.files == 0) {
        return Error_set(err, DCU_ERR_EMPTY, "no files found");
    }
    if (this->totals.rows == 0) {
        return Error_set(err, DCU_ERR_EMPTY, "nothing could be loaded from %d file%s",
                         this->totals.files, this->totals.files == 1 ? "" : "s");
    }
    if (core->opt.strict && this->totals.rejected > 0) {
        return Error_set(err, DCU_ERR_PARSE, "%lld rows rejected (--strict)",
                         (long long)this->totals.rejected);
    }
    return DCU_OK;
}
