/* loader.h - finds trace files under the given paths, recognises each by content, and
 * streams its rows into the TraceDb (one transaction, prepared INSERTs, interned names).
 * Bad rows are data, not failures: they are counted per file, the first few are kept
 * in load_message as "file:line: reason", and the rest of the folder still loads. */
#ifndef DCUTOP_LOADER_H
#define DCUTOP_LOADER_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef void (*LoadProgressFn)(uint64_t bytes_done, uint64_t bytes_total, const char* path,
                               void* ctx);

#define LOAD_DEFAULT_EVENT_SIZE (16LL * 1024 * 1024)

typedef struct LoadOptions_ {
    int strict;              /* 1: any rejected row makes Loader_run fail (--strict) */
    int max_messages;        /* bad-row messages kept per file (default 5) */
    int64_t max_event_size;  /* bytes: longest JSON token, and most field bytes kept for one
                              * JSON event (--max-event-size); <= 0: LOAD_DEFAULT_EVENT_SIZE */
    LoadProgressFn progress; /* may be NULL */
    void* progress_ctx;
} LoadOptions;

typedef struct LoadTotals_ {
    int files;         /* files looked at */
    int files_loaded;  /* files that gave at least one row */
    int files_skipped; /* not a trace, or a format not read */
    int files_failed;  /* could not be read */
    int64_t rows;      /* rows stored */
    int64_t rejected;  /* rows rejected */
} LoadTotals;

typedef struct Loader_ Loader;

/* db is borrowed and must outlive the loader. opt may be NULL (defaults). */
Loader* Loader_new(TraceDb* db, const LoadOptions* opt);
void Loader_delete(Loader* this);

/* Queues a trace folder (walked recursively, dot files skipped) or a single file.
 * DCU_ERR_IO if the path does not exist. Only regular files are ever opened, each file and
 * folder once however many links or paths lead to it (folder_walk.h); what is not loaded
 * still gets a Files-table row saying why. */
DcuStatus Loader_addPath(Loader* this, const char* path, DcuError* err);

/* Loads every queued file, then groups the files into runs (load_runs.c: run table,
 * source_file.run_id, every run in scope), decides which files are superseded inside each
 * run, and builds the kernel_summary table. DCU_ERR_EMPTY when no row could be loaded from any file;
 * DCU_ERR_PARSE in strict mode when rows were rejected. */
DcuStatus Loader_run(Loader* this, DcuError* err);

const LoadTotals* Loader_totals(const Loader* this);

#endif
