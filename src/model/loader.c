/* loader.c - walks trace folders, sniffs each file, owns the load transaction and the
 * prepared statements, and decides after loading which files are superseded. */
#include "dcutop/loader.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dcutop/names.h"
#include "dcutop/variab.h"
#include "dcutop/shortname.h"
#include "dcutop/xalloc.h"
#include "load_internal.h"

#define MAX_DEPTH 8

typedef struct Queued_ {
    char* path;
    char* name;   /* relative to the path the user gave */
    char* dir;
    char* reldir; /* dir relative to that path ("" at its top, and for a file given) */
    char* tag;    /* run_tag() of the path */
    int root;     /* which Loader_addPath call (0-based) */
    uint64_t bytes;
    int64_t id;         /* source_file.id once loaded */
    const char* format; /* static text once loaded */
} Queued;

struct Loader_ {
    LoaderCore core;
    Queued* q;
    int nq, capq;
    char** roots; /* the paths given, trailing slashes dropped (owned) */
    int nroots;
    LoadTotals totals;
};

static const char* const layer_names[LAYER_COUNT] = {"kernel", "api", "copy", "range", "agent",
                                                     "stack", "steps"};

static const char* const stmt_sql[ST_COUNT] = {
    [ST_KERNEL] = "INSERT INTO kernel(id, name, short_name) VALUES(?1, ?2, ?3)",
    [ST_DISPATCH] = "INSERT INTO dispatch(file_id, kernel_id, seq, gpu, queue, stream, pid, tid,"
                    " corr_id, start_ns, end_ns, dur_ns, grid, workgroup, lds, scratch, vgpr,"
                    " sgpr) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
    [ST_COUNTER] = "INSERT INTO dispatch_counter(dispatch_id, name, value) VALUES(?1, ?2, ?3)",
    [ST_KSTAT] = "INSERT INTO kernel_stat(file_id, kernel_id, calls, total_ns, min_ns, max_ns,"
                 " stddev_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_APISTAT] = "INSERT INTO api_stat(file_id, domain, name, calls, total_ns, min_ns, max_ns,"
                   " stddev_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_APICALL] = "INSERT INTO api_call(file_id, domain, name, pid, tid, corr_id, start_ns,"
                   " end_ns, dur_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [ST_COPYSTAT] = "INSERT INTO copy_stat(file_id, name, calls, total_ns, min_ns, max_ns,"
                    " stddev_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_COPY] = "INSERT INTO copy(file_id, name, src_agent, dst_agent, stream, corr_id, bytes,"
                " start_ns, end_ns, dur_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [ST_RANGE] = "INSERT INTO range(file_id, domain, name, pid, tid, corr_id, event, start_ns,"
                 " end_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [ST_AGENT] = "INSERT INTO agent(file_id, node_id, type, name, product_name, cu_count,"
                 " wave_size, gfx_version) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_MSG] = "INSERT INTO load_message(file_id, line, message) VALUES(?1, ?2, ?3)",
    [ST_EXTLINK] = "INSERT INTO ext_link(file_id, corr_id, ext_id) VALUES(?1, ?2, ?3)",
    [ST_CPUOP] = "INSERT INTO cpu_op(file_id, name, pid, tid, ext_id, start_ns, end_ns,"
                 " call_stack, input_dims, input_types, input_strides, concrete_inputs)"
                 " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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
    this->core.kernels = Intern_new();
    this->core.raw_kernels = Intern_new();
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
    LoadStacks_done(&this->core);
    for (int i = 0; i < this->nq; i++) {
        free(this->q[i].path);
        free(this->q[i].name);
        free(this->q[i].dir);
        free(this->q[i].reldir);
        free(this->q[i].tag);
    }
    free(this->q);
    for (int i = 0; i < this->nroots; i++) {
        free(this->roots[i]);
    }
    free(this->roots);
    free(this);
}

const LoadTotals* Loader_totals(const Loader* this) {
    return &this->totals;
}

static char* run_tag(const char* path);

static void enqueue(Loader* this, const char* path, const char* root, const char* dir,
                    uint64_t bytes) {
    if (this->nq == this->capq) {
        this->capq = this->capq ? this->capq * 2 : 32;
        this->q = xrealloc(this->q, sizeof(Queued) * (size_t)this->capq);
    }
    Queued* q = &this->q[this->nq];
    memset(q, 0, sizeof(*q));
    q->path = xstrdup(path);
    size_t rl = strlen(root);
    q->name = xstrdup(rl > 0 && strncmp(path, root, rl) == 0 && path[rl] == '/' ? path + rl + 1 : path);
    q->dir = xstrdup(dir);
    q->reldir = xstrdup(rl > 0 && strncmp(dir, root, rl) == 0 && dir[rl] == '/' ? dir + rl + 1 : "");
    q->tag = run_tag(path);
    q->root = this->nroots - 1;
    q->bytes = bytes;
    q->format = "?";
    this->nq++;
    this->core.bytes_total += bytes;
}

static int cmp_str(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Sorted walk so that load order, ids and messages are the same on every machine. */
static void walk(Loader* this, const char* root, const char* dir, int depth) {
    DIR* d = opendir(dir);
    if (!d) {
        enqueue(this, dir, "", dir, 0); /* reported as unreadable when loaded */
        return;
    }
    char** names = NULL;
    int n = 0, cap = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            names = xrealloc(names, sizeof(char*) * (size_t)cap);
        }
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (n > 1) { /* names is NULL for an empty folder: qsort(NULL, 0, ...) is undefined */
        qsort(names, (size_t)n, sizeof(char*), cmp_str);
    }
    for (int i = 0; i < n; i++) {
        char* p = xasprintf("%s/%s", dir, names[i]);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth < MAX_DEPTH) {
                walk(this, root, p, depth + 1);
            }
        } else if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            enqueue(this, p, root, dir, (uint64_t)st.st_size);
        } else {
            enqueue(this, p, root, dir, 0);
        }
        free(p);
        free(names[i]);
    }
    free(names);
}

DcuStatus Loader_addPath(Loader* this, const char* path, DcuError* err) {
    struct stat st;
    if (stat(path, &st) != 0) {
        return Error_set(err, DCU_ERR_IO, "%s: %s", path, strerror(errno));
    }
    char* clean = xstrdup(path);
    size_t l = strlen(clean);
    while (l > 1 && clean[l - 1] == '/') {
        clean[--l] = '\0';
    }
    this->roots = xrealloc(this->roots, sizeof(char*) * (size_t)(this->nroots + 1));
    this->roots[this->nroots++] = xstrdup(clean);
    if (S_ISDIR(st.st_mode)) {
        walk(this, clean, clean, 0);
    } else {
        char* dir = xstrdup(clean);
        char* slash = strrchr(dir, '/');
        if (slash) {
            *slash = '\0';
        } else {
            strcpy(dir, ".");
        }
        enqueue(this, clean, "", dir, (uint64_t)st.st_size);
        free(dir);
    }
    free(clean);
    return DCU_OK;
}

int64_t Load_kernelId(LoaderCore* core, const char* raw, size_t len) {
    int64_t id = Intern_get(core->raw_kernels, raw, len);
    if (id) {
        return id;
    }
    char* norm = Names_normalize(raw, len);
    size_t nl = strlen(norm);
    id = Intern_get(core->kernels, norm, nl);
    if (!id) {
        id = core->next_kernel_id++;
        char* shrt = Names_short(norm);
        sqlite3_stmt* st = core->st[ST_KERNEL];
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, norm, (int)nl, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, shrt, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        free(shrt);
        if (rc != SQLITE_DONE) {
            free(norm);
            return 0;
        }
        Intern_put(core->kernels, norm, nl, id);
    }
    free(norm);
    Intern_put(core->raw_kernels, raw, len, id);
    return id;
}

static void store_message(LoaderCore* core, LoadFile* f, long line, const char* msg) {
    sqlite3_stmt* st = core->st[ST_MSG];
    sqlite3_bind_int64(st, 1, f->id);
    if (line > 0) {
        sqlite3_bind_int64(st, 2, line);
    } else {
        sqlite3_bind_null(st, 2);
    }
    sqlite3_bind_text(st, 3, msg, -1, SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_reset(st);
}

void Load_reject(LoaderCore* core, LoadFile* f, long line, const char* fmt, ...) {
    f->rejected++;
    if (f->messages >= core->opt.max_messages) {
        return;
    }
    f->messages++;
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    store_message(core, f, line, buf);
}

void Load_message(LoaderCore* core, LoadFile* f, const char* fmt, ...) {
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    store_message(core, f, 0, buf);
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
static const char sniffed_sqlite[] = "sqlite", sniffed_json[] = "json";

/* Non-CSV content recognised by its first bytes. NULL: try CSV. */
static const char* sniff_other(const unsigned char* b, size_t n, const char** note) {
    if (n >= 16 && memcmp(b, "SQLite format 3", 16) == 0) {
        return sniffed_sqlite;
    }
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        return sniffed_json; /* gzip: load_json.c looks inside */
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

static DcuStatus load_one(Loader* this, Queued* q, DcuError* err) {
    LoaderCore* core = &this->core;
    LoadFile f = {0};
    f.path = q->path;
    f.format = "?";
    sqlite3* db = TraceDb_handle(core->db);
    sqlite3_stmt* ins = NULL;
    DcuStatus s = TraceDb_prepare(core->db,
                                  "INSERT INTO source_file(path, dir, run_tag, format, bytes, name,"
                                  " root) VALUES(?1, ?2, ?3, '?', ?4, ?5, ?6)",
                                  &ins, err);
    if (s != DCU_OK) {
        return s;
    }
    char* spath = Names_sanitize(q->path, strlen(q->path));
    sqlite3_bind_text(ins, 1, spath, -1, free);
    sqlite3_bind_text(ins, 2, q->dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, q->tag, -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 4, (sqlite3_int64)q->bytes);
    sqlite3_bind_text(ins, 5, Names_sanitize(q->name, strlen(q->name)), -1, free);
    sqlite3_bind_int(ins, 6, q->root);
    if (sqlite3_step(ins) != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "source_file: %s", sqlite3_errmsg(db));
        sqlite3_finalize(ins);
        return s;
    }
    sqlite3_finalize(ins);
    f.id = sqlite3_last_insert_rowid(db);
    q->id = f.id;
    this->totals.files++;

    unsigned char head[512];
    FILE* fp = fopen(q->path, "rb");
    size_t n = 0;
    DcuStatus fs = DCU_OK;
    DcuError ferr;
    Error_clear(&ferr);
    if (!fp) {
        fs = Error_set(&ferr, DCU_ERR_IO, "cannot open: %s", strerror(errno));
    } else {
        n = fread(head, 1, sizeof(head), fp);
        if (ferror(fp)) {
            fs = Error_set(&ferr, DCU_ERR_IO, "cannot read: %s", strerror(errno));
        }
        fclose(fp);
    }
    const char* note = NULL;
    int sform;
    if (fs == DCU_OK && is_doc_file(q->path)) {
        f.format = "skipped";
        f.note = xstrdup("not a trace (documentation or code)");
    } else if (fs == DCU_OK) {
        const char* other = n == 0 ? "skipped" : sniff_other(head, n, &note);
        int steps = n == 0 ? 0 : LoadSteps_sniff(q->path, head, n);
        if (n == 0) {
            note = "empty file";
        }
        if (steps > 0) {
            fs = LoadSteps_file(core, &f, steps, &ferr);
        } else if (other == sniffed_sqlite) {
            fs = LoadSqlite_file(core, &f, &ferr);
        } else if (other == sniffed_json) {
            fs = LoadJson_file(core, &f, &ferr);
        } else if (other) {
            f.format = other;
            f.note = xstrdup(note);
        } else if ((sform = LoadStacks_sniff(q->path)) > 0) {
            fs = LoadStacks_file(core, &f, sform, &ferr);
        } else {
            fs = LoadCsv_file(core, &f, &ferr);
        }
    }
    if (fs != DCU_OK) {
        f.format = "unreadable";
        /* the path is already in the file column; keep only the reason */
        const char* m = ferr.msg;
        const char* colon = strstr(m, ": ");
        f.note = xstrdup(colon && strncmp(m, q->path, strlen(q->path)) == 0 ? colon + 2 : m);
        this->totals.files_failed++;
    } else if (f.rows > 0) {
        this->totals.files_loaded++;
    } else {
        this->totals.files_skipped++;
    }
    this->totals.rows += f.rows;
    this->totals.rejected += f.rejected;
    if (f.rejected > f.messages) {
        Load_message(core, &f, "%lld more rejected rows not listed",
                     (long long)(f.rejected - f.messages));
    }
    core->bytes_before += q->bytes;

    sqlite3_stmt* upd = NULL;
    s = TraceDb_prepare(core->db,
                        "UPDATE source_file SET format = ?1, rows_read = ?2, rows_rejected = ?3,"
                        " pmc = ?4, note = ?5 WHERE id = ?6",
                        &upd, err);
    if (s == DCU_OK) {
        sqlite3_bind_text(upd, 1, f.format, -1, SQLITE_STATIC);
        sqlite3_bind_int64(upd, 2, f.rows);
        sqlite3_bind_int64(upd, 3, f.rejected);
        sqlite3_bind_int(upd, 4, f.pmc);
        if (f.note) {
            sqlite3_bind_text(upd, 5, f.note, -1, SQLITE_STATIC);
        } else {
            sqlite3_bind_null(upd, 5);
        }
        sqlite3_bind_int64(upd, 6, f.id);
        if (sqlite3_step(upd) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "source_file: %s", sqlite3_errmsg(db));
        }
        sqlite3_finalize(upd);
    }
    for (int l = 0; s == DCU_OK && l < LAYER_COUNT; l++) {
        if (f.layer_rows[l] == 0) {
            continue;
        }
        sqlite3_stmt* ly = NULL;
        s = TraceDb_prepare(core->db,
                            "INSERT INTO source_layer(file_id, layer, grain, rank) "
                            "VALUES(?1, ?2, ?3, ?4)",
                            &ly, err);
        if (s != DCU_OK) {
            break;
        }
        sqlite3_bind_int64(ly, 1, f.id);
        sqlite3_bind_text(ly, 2, layer_names[l], -1, SQLITE_STATIC);
        sqlite3_bind_int(ly, 3, f.layer_grain[l]);
        sqlite3_bind_int(ly, 4, f.layer_rank[l]);
        if (sqlite3_step(ly) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "source_layer: %s", sqlite3_errmsg(db));
        }
        sqlite3_finalize(ly);
    }
    q->format = f.format;
    free(f.note);
    return s;
}

/* Runs, then supersession inside each run, then the materialized kernel summary. */
static DcuStatus finish_runs(Loader* this, DcuError* err) {
    RunFile* rf = xcalloc((size_t)(this->nq > 0 ? this->nq : 1), sizeof(RunFile));
    for (int i = 0; i < this->nq; i++) {
        const Queued* q = &this->q[i];
        rf[i] = (RunFile){q->id, q->root, q->path, q->dir, q->reldir, q->tag, q->format, -1};
    }
    DcuStatus s = LoadRuns_assign(&this->core, rf, this->nq, (const char* const*)this->roots,
                                  this->nroots, err);
    free(rf);
    if (s == DCU_OK) {
        s = LoadRuns_finish(&this->core, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_exec(this->core.db,
                         "INSERT INTO kernel_summary(kernel_id, calls, total_ns, min_ns, max_ns,"
                         " sumsq, has_sq, per_dispatch) SELECT * FROM kernel_summary_v",
                         err);
    }
    return s;
}

DcuStatus Loader_run(Loader* this, DcuError* err) {
    LoaderCore* core = &this->core;
    DcuStatus s = TraceDb_exec(core->db, "BEGIN", err);
    for (int i = 0; s == DCU_OK && i < ST_COUNT; i++) {
        if (!core->st[i]) {
            s = TraceDb_prepare(core->db, stmt_sql[i], &core->st[i], err);
        }
    }
    for (int i = 0; s == DCU_OK && i < this->nq; i++) {
        s = load_one(this, &this->q[i], err);
    }
    if (s == DCU_OK) {
        s = finish_runs(this, err);
    }
    if (s == DCU_OK) {
        s = Variab_compute(core->db, err);
    }
    if (s == DCU_OK) { /* needs used files and kernel_summary */
        s = LoadStacks_finish(core, err);
    }
    if (s == DCU_OK) {
        s = LoadRanges_finish(core, err);
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
