/* tuple_ids.h - small ids for the distinct tuples of a few int64 values (a dispatch's run,
 * device, stream and file), so that millions of records carry a 4-byte id and the values
 * live once in a table. Ids are 0, 1, ... in order of first sight. */
#ifndef DCUTOP_TUPLE_IDS_H
#define DCUTOP_TUPLE_IDS_H

#include <stdint.h>

#include "dcutop/intern.h"

typedef struct TupleIds_ {
    Intern* ix;   /* owned: the tuple's bytes -> 1 + id */
    int64_t* v;   /* owned: w values per id */
    int w;        /* values per tuple, 1..8 */
    int64_t n;    /* ids given */
    int64_t cap;  /* of v, tuples */
    int64_t last; /* the id found last, -1 none: records come in runs of one tuple */
} TupleIds;

void TupleIds_init(TupleIds* t, int w);
void TupleIds_done(TupleIds* t);
/* The id of key[0..w), given a new one when unseen. Ids past UINT32_MAX wrap: callers with
 * more than 4G records check their count. */
uint32_t TupleIds_id(TupleIds* t, const int64_t* key);
/* Value f of tuple id (borrowed table: valid until the next TupleIds_id). */
static inline int64_t TupleIds_value(const TupleIds* t, uint32_t id, int f) {
    return t->v[(int64_t)id * t->w + f];
}

#endif
