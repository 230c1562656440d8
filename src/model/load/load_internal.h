/* load_internal.h - what loader.c (files, transaction, superseding) shares with
 * load_csv.c (CSV formats). Not installed under include/: private to the model. */
#ifndef DCUTOP_LOAD_INTERNAL_H
#define DCUTOP_LOAD_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/intern.h"
#include "dcutop/shared_intern.h"
#include "dcutop/loader.h"
#include "dcutop/trace_db.h"

enum {
    LAYER_KERNEL,
    LAYER_API,
    LAYER_COPY,
    LAYER_RANGE,
    LAYER_AGENT,
    LAYER_STACK, /* call stacks (load_stacks.c) */
    LAYER_STEPS, /* plain step times taken without a profiler (load_steps.c) */
    LAYER_COUNT
};

enum { /* prepared statements, owned by the Loader */
    ST_KERNEL,
    ST_COUNTER,
    ST_KSTAT,
    ST_APISTAT,
    ST_COPYSTAT,
    ST_COPY,
    ST_RANGE,
    ST_AGENT,
    ST_MSG,
    ST_CPUOP,
    ST_PYFRAME,
    ST_FLOW, /* kineto_flow */
    ST_COUNT
};

typedef struct LoadFile_ {
    int64_t id;          /* source_file.id */
    const char* path;    /* borrowed */
    long line;           /* line of the row being stored (CSV), 0 for formats without lines */
    const char* format;  /* static text, set by the format reader */
    char* note;          /* owned; why skipped, or a remark */
    int64_t rows, rejected;
    int messages;        /* bad-row messages stored so far */
    int64_t names_cut;   /* names cut to LOAD_MAX_NAME_BYTES (Load_capName), rows kept */
    int pmc;             /* carries PMC counters */
    int layer_rows[LAYER_COUNT];
    int layer_grain[LAYER_COUNT];
    int layer_rank[LAYER_COUNT];
} LoadFile;

/* The part of the SQLite read budget (load_sqlite.c) shared by every database of one load:
 * what one database spends beyond its own share is gone for the next. */
typedef struct SqlBudget_ {
    int started;           /* 0 until the first database */
    double base_s_left;    /* shared seconds left */
    int64_t base_ops_left; /* shared SQLite VM steps left */
} SqlBudget;

typedef struct LoaderCore_ {
    TraceDb* db;
    sqlite3_stmt* st[ST_COUNT];
    Intern* kernels;      /* normalised name -> kernel.id */
    Intern* raw_kernels;  /* name bytes as read -> kernel.id (skips normalising repeats) */
    SharedIntern* raw_shared; /* the same, readable by the CSV parser threads at once */
    int64_t next_kernel_id;
    LoadOptions opt;
    uint64_t bytes_before; /* bytes of files already loaded, for progress */
    uint64_t bytes_total;
    struct StackLoad_* stacks; /* load_stacks.c state (owned), NULL until a stack file */
    struct DispatchAgg_* agg;  /* this file's per-kernel sums (dispatch_agg.h, owned) */
    struct RowBatch_* links;   /* ext_link rows not stored yet (row_batch.h, owned) */
    struct RowBatch_* calls;   /* api_call rows not stored yet (row_batch.h, owned) */
    int storage_rc; /* an insert's SQLITE_FULL / IOERR / NOMEM: the database itself failed
                     * (its temp folder full, most likely); the load stops (load_one) */
    char storage_why[160]; /* the first such failure's own words; load_one says it once */
    SqlBudget sql_budget; /* load_sqlite.c: the read budget left to the rest of the load */
    int names_capped;       /* this file's names whose demangled text passed the cap */
    char capped_name[44];   /* the first of them, cut (load_one names it) */
} LoaderCore;

/* Interns a kernel name as read (quotes, .kd and all); returns kernel.id or 0 on error. */
int64_t Load_kernelId(LoaderCore* core, const char* raw, size_t len);
/* The same with the raw name's Intern_hash already taken (by a parser thread). */
int64_t Load_kernelIdHashed(LoaderCore* core, const char* raw, size_t len, uint64_t hash);

/* The length of name to keep: len, or at most LOAD_MAX_NAME_BYTES (load_event.h) ending on
 * a whole UTF-8 character. A longer name costs every later step (normalising, demangling,
 * category rules, sorts) time and memory in its length, and no real name comes near the cap;
 * its row is kept under the cut name. The first cut of a file is said with its line (or
 * "where"); the loader sums up the rest. */
size_t Load_capName(LoaderCore* core, LoadFile* f, long line, const char* where,
                    const char* name, size_t len);

/* The trace database (SQLite or the dispatch store) could not store a row: the first
 * failure's SQLite code and words are kept for load_one, which stops the load with one
 * message naming the folder and the remedy; later ones add nothing. */
void Load_storageFailed(LoaderCore* core, int rc, const char* why);

/* Counts a rejected row and keeps "path:line: reason" for the first few. */
void Load_reject(LoaderCore* core, LoadFile* f, long line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reports that `done` bytes of f are read (bytes on disk for a gzip file), when the load has a
 * progress callback. */
void Load_progress(LoaderCore* core, const LoadFile* f, uint64_t done);

/* A file-level message (no line). */
void Load_message(LoaderCore* core, LoadFile* f, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A reader's DCU_ERR_CUT (a gzip file cut short) made a loss the user is told of: one
 * message and one rejected row (so --strict fails), the rows before the cut kept; DCU_OK.
 * Any other status is returned as it is. */
DcuStatus Load_keepCut(LoaderCore* core, LoadFile* f, DcuStatus s, const DcuError* err);

/* Reads a SQLite database (hipprof .db, rocprof v1 results.db, rocpd), opened read-only
 * through a second connection. DCU_ERR_IO when it cannot be opened or read at all. */
DcuStatus LoadSqlite_file(LoaderCore* core, LoadFile* f, DcuError* err);

/* load_rpd.c: a rocmProfileData (RPD) database recognised by LoadSqlite_file, read through
 * its read-only connection in (borrowed). Sets f->format, or "skipped" and f->note when the
 * schema is unknown or partial. */
void LoadRpd_read(LoaderCore* core, LoadFile* f, sqlite3* in);

/* Reads a chrome-trace JSON (rocprof v1 results.json, hipprof JSON, PyTorch/Kineto), plain
 * or gzip, streamed. DCU_ERR_IO when it cannot be opened. */
DcuStatus LoadJson_file(LoaderCore* core, LoadFile* f, DcuError* err);

/* load_v3json.c: rocprofv3 --output-format json (<pid>_results.json, top key
 * "rocprofiler-sdk-tool"), plain or gzip, streamed. DCU_ERR_IO when it cannot be opened. */
DcuStatus LoadV3Json_file(LoaderCore* core, LoadFile* f, DcuError* err);

/* load_stacks.c: call-stack files (hipprof --kernel-stack dumps in gdb or backtrace_symbols
 * form, CSV with a stack column, folded stacks). LoadStacks_sniff returns a form (> 0) when
 * path is one of them, 0 otherwise; LoadStacks_file reads it (DCU_ERR_IO: unreadable). */
int LoadStacks_sniff(const char* path);
DcuStatus LoadStacks_file(LoaderCore* core, LoadFile* f, int form, DcuError* err);
/* After every file: attaches stacks to kernels and dispatches (LoadStacks_finish), pairs
 * ranges and attributes each dispatch to the innermost range open at its launch
 * (LoadRanges_finish, load_ranges.c). Both run inside the load transaction. */
DcuStatus LoadStacks_finish(LoaderCore* core, DcuError* err);
DcuStatus LoadRanges_finish(LoaderCore* core, DcuError* err);
void LoadStacks_done(LoaderCore* core);

/* load_steps.c: plain timing (step-times.json with a step_ms_events list, or a one-column CSV
 * of step times in ms) into step_time, layer 'steps'. LoadSteps_sniff returns 1 (JSON) or 2
 * (CSV) when the head of the file (head, n bytes) looks like one, 0 otherwise. */
int LoadSteps_sniff(const char* path, const unsigned char* head, size_t n);
DcuStatus LoadSteps_file(LoaderCore* core, LoadFile* f, int form, DcuError* err);
/* kineto_meta.c: a top-level scalar of a Kineto trace (key, value as read); the software
 * versions among them (cuda_driver_version, hip_runtime_version, ...) go to trace_meta, the
 * environment an A-B-B-A compares between runs. */
void KinetoMeta_scalar(LoaderCore* core, LoadFile* f, const char* key, size_t kn,
                       const char* val, size_t vn);
/* load_metrics.c: a run's numeric results (metrics.csv with the header name,value and optional
 * tolerance and better columns, or metrics.json) into run_metric. LoadMetrics_sniff returns 1
 * (CSV, by its header) or 2 (JSON, by the name metrics.json) when the head of the file (head,
 * n bytes) is one, 0 otherwise. */
int LoadMetrics_sniff(const char* path, const unsigned char* head, size_t n);
DcuStatus LoadMetrics_file(LoaderCore* core, LoadFile* f, int form, DcuError* err);
/* load_runs.c: runs (README "Runs"). One RunFile per file looked at, in load order;
 * LoadRuns_assign groups them into runs (the run table, source_file.run_id; RunFile.run
 * gets the 0-based run index, -1 for files in no run) and, when several PATHs were given,
 * prefixes each file name with its PATH's label. LoadRuns_finish then supersedes files
 * within each run, describes each run (layers, mode, clock) and puts every run in scope. */
typedef struct RunFile_ {
    int64_t id;         /* source_file.id */
    int root;           /* which PATH (0-based) */
    const char* path;   /* borrowed, as loaded */
    const char* dir;    /* borrowed: the folder */
    const char* reldir; /* borrowed: the folder relative to the PATH, "" at its top */
    const char* tag;    /* borrowed: pid-like tag of the name, "" if none */
    const char* format; /* borrowed: source_file.format */
    int run;            /* out */
} RunFile;
DcuStatus LoadRuns_assign(LoaderCore* core, RunFile* files, int nfiles, const char* const* roots,
                          int nroots, DcuError* err);
DcuStatus LoadRuns_finish(LoaderCore* core, DcuError* err);

/* Reads a CSV trace file. Sets f->format ("skipped" + f->note when not a known format).
 * Returns DCU_ERR_IO only when the file cannot be read. */
DcuStatus LoadCsv_file(LoaderCore* core, LoadFile* f, DcuError* err);
/* After runs are assigned: attaches the staged values of counter_collection.csv files to the
 * dispatches of their run's kernel trace (dispatch_counter), by Dispatch_Id and kernel name. */
/* The values no dispatch takes are rejected rows of their file; *lost says how many. */
DcuStatus LoadCsv_linkCounters(LoaderCore* core, int64_t* lost, DcuError* err);

#endif
