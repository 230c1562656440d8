/* load_compute.h - rocprof-compute workload files and analysis databases (load_compute.c).
 * Private to the model's load/ floor. */
#ifndef DCUTOP_LOAD_COMPUTE_H
#define DCUTOP_LOAD_COMPUTE_H

#include <sqlite3.h>

#include "dcutop/csv_reader.h"
#include "load_internal.h"

typedef struct ComputeCsv_ ComputeCsv; /* one roofline.csv or sysinfo.csv being read */

/* > 0 when a CSV header row is rocprof-compute's roofline.csv or sysinfo.csv. */
int LoadCompute_sniffCsv(const CsvRow* header);
/* Starts reading the file whose header (kind from LoadCompute_sniffCsv) was just read;
 * *format gets its static format name. Free with LoadCompute_end. */
ComputeCsv* LoadCompute_begin(LoaderCore* core, LoadFile* f, const CsvRow* header, int kind,
                              const char** format);
/* One data row: stored, or rejected with a reason (Load_reject). */
void LoadCompute_row(ComputeCsv* c, const CsvRow* r);
void LoadCompute_end(ComputeCsv* c); /* NULL is a no-op */

/* 1 when a database (read-only connection in, borrowed) is a rocprof-compute analysis
 * database (tables compute_kernel and compute_dispatch). */
int LoadCompute_isDb(sqlite3* in);
/* Reads it: kernels and dispatches (a PMC run), metric values, roofline points, the
 * machine and its measured peaks. Sets f->format and f->pmc; bad rows are rejected. */
void LoadCompute_readDb(LoaderCore* core, LoadFile* f, sqlite3* in);

#endif
