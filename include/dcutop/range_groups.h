/* range_groups.h - the dispatches of the used kernel files grouped by the innermost range
 * open at their launch (dispatch_range), their kernel and whether a launch time was known:
 * the samples of the ranges tree (stacks.c). Read from the dispatch store's columns and
 * dispatch_range in rowid order; a SQL join and GROUP BY over every dispatch was 3 s of
 * a million-kernel report. */
#ifndef DCUTOP_RANGE_GROUPS_H
#define DCUTOP_RANGE_GROUPS_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    int64_t range_id;  /* 0: none (no dispatch_range row, or its range_id is NULL) */
    int64_t kernel_id; /* a row of kernel */
    int none;          /* 1: no dispatch_range row, or its how is 'none'; 2: how is
                        * 'forward op' (a backward kernel); 0: another how */
    int64_t module;    /* PyTorch traces: 1 + index of the module path (dispatch_op.module)
                        * in RangeGroups_read's *modules; 0: none */
    int64_t calls;     /* count(*) */
    double time_ns;    /* total(dur_ns): a double sum, as SQL's total() */
} RangeGroup;

/* The groups of `SELECT dr.range_id, d.kernel_id, count(*), total(d.dur_ns),
 * CASE coalesce(dr.how, 'none') WHEN 'none' THEN 1 WHEN 'forward op' THEN 2 ELSE 0 END,
 * dop.module ... GROUP BY 1, 2, 5, 6` over the used kernel files (dop: dispatch_op), with the
 * join to kernel, ordered as that query's ORDER BY 1, 2, 5, 6 (no range first, no module
 * first). *modules gets the module paths RangeGroup.module points into, in the order of
 * their text (*nmodules of them; owned by the caller: each string and the array). Returns 0
 * (and nothing in *out) when the store cannot be read directly (a region of interest cuts
 * `dispatch`): the caller runs the SQL. *out is owned by the caller (free). */
int RangeGroups_read(TraceDb* db, RangeGroup** out, int64_t* n, char*** modules,
                     int64_t* nmodules, DcuStatus* s, DcuError* err);

#endif
