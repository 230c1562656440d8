/* dispatch_files.h - what the whole dispatch list (dispatch_list.c) and the paged one
 * (dispatch_page.c) share: their columns and the kernel files they read (private to
 * src/model/analysis). */
#ifndef DCUTOP_DISPATCH_FILES_H
#define DCUTOP_DISPATCH_FILES_H

#include <stdint.h>

#include "dcutop/i64_map.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* The list's columns, KernelQuery_dispatches's order; the integer ones are the first D_NINT. */
enum { D_SEQ, D_GPU, D_QUEUE, D_STREAM, D_PID, D_TID, D_START, D_DUR, D_GRID, D_WG, D_LDS,
       D_VGPR, D_SGPR, D_FILE, D_NINT = D_FILE, D_NCOLS };
extern const RsColumn DispatchList_cols[D_NCOLS];

/* A used kernel file the filter lets through: its name and its run's clock origin. */
typedef struct {
    char* name; /* owned */
    int64_t t0;
    int t0_known;
} DispatchFile;

typedef struct {
    DispatchFile* v; /* in file id order (owned) */
    int64_t n;
    I64Map* ix; /* file id -> index + 1 (owned) */
} DispatchFiles;

/* The used kernel files whose names match filter (NULL: all), with their runs' starts. */
DcuStatus DispatchFiles_read(TraceDb* db, const char* filter, DispatchFiles* out,
                             DcuError* err);
void DispatchFiles_done(DispatchFiles* f);

#endif
