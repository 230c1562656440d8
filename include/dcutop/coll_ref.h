/* coll_ref.h - a reference bandwidth curve read from nccl-tests / rccl-tests output (their
 * own text: the table of size, count, type, redop, root, time, algbw, busbw, #wrong for
 * out-of-place and in-place), for the Collectives view's % of reference. Pure model. */
#ifndef DCUTOP_COLL_REF_H
#define DCUTOP_COLL_REF_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct CollRefRow_ {
    int64_t bytes;   /* size (B) */
    double time_us;  /* out-of-place time */
    double algbw;    /* out-of-place algbw, GB/s */
    double busbw;    /* out-of-place busbw, GB/s */
} CollRefRow;

typedef struct CollRefCurve_ {
    char type[24];   /* all_reduce, all_gather, ... (collectives.h Collectives_typeOf) */
    char* name;      /* the file as given (owned) */
    CollRefRow* rows; /* by size, ascending, sizes distinct and > 0 (owned) */
    int n;
} CollRefCurve;

typedef struct CollRef_ {
    CollRefCurve* c; /* (owned) */
    int n;
    char* warning;   /* "FILE:LINE: why (and N more bad lines)" when lines were skipped;
                      * NULL when none (owned) */
} CollRef;

void CollRef_init(CollRef* this);
void CollRef_done(CollRef* this);

/* Adds the curve of one output. type: the collective ("all_reduce", "allreduce", ...) or
 * NULL to take it from the text ("# Collective test starting: all_gather_perf") or else from
 * name (a file name holding all_reduce_perf, alltoall, ...). name: what messages call the
 * input. A table line that cannot be read is skipped and named (file:line) in
 * this->warning; lines that are not table rows (logs, comments) are ignored.
 * DCU_ERR_PARSE: no table row at all, or the collective cannot be told. */
DcuStatus CollRef_parse(CollRef* this, const char* text, size_t len, const char* name,
                        const char* type, DcuError* err);

/* The same from a file; spec is FILE or TYPE=FILE. DCU_ERR_IO when it cannot be read; at
 * most 16 MiB are read. */
DcuStatus CollRef_load(CollRef* this, const char* spec, DcuError* err);

/* The reference bus bandwidth (GB/s) of type at bytes: between two sizes of the curve, linear
 * in log(size); NAN outside the curve or with no curve of that type. */
double CollRef_busbw(const CollRef* this, const char* type, int64_t bytes);

/* Writes the curves into db's coll_ref table (replacing what it held). DCU_ERR_SQL. */
DcuStatus CollRef_store(TraceDb* db, const CollRef* this, DcuError* err);
/* Reads db's coll_ref table into this (CollRef_init'ed); no rows: no curve. DCU_ERR_SQL. */
DcuStatus CollRef_fromDb(TraceDb* db, CollRef* this, DcuError* err);

#endif
