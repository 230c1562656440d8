/* stack_groups.h - the rows of kernel_stack summed in one pass: per (stack, kernel, name of
 * an unmatched kernel) for the stacks tree, and per kernel for the time no stack accounts
 * for (stacks.c). Three GROUP BYs over kernel_stack, a row per dispatch in a Kineto trace,
 * were 3.5 s of a million-kernel report. */
#ifndef DCUTOP_STACK_GROUPS_H
#define DCUTOP_STACK_GROUPS_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct {
    int64_t stack_id, kernel_id; /* 0 where has_stack / has_kernel is 0 (NULL) */
    int has_stack, has_kernel;
    const char* kname; /* kernel_name of a row without kernel_id and not folded; else NULL */
    int64_t calls, time_ns; /* CAST(sum(CAST(x AS REAL)) AS INTEGER), as the SQL summed */
} StackGroup;

typedef struct {
    StackGroup* g; /* ordered as ORDER BY stack_id, kernel_id, kname (NULLs first) */
    int64_t n;
    int64_t* kid;  /* per kernel id with rows: its calls and time (the same sums), by kid */
    int64_t *kcalls, *ktime;
    int64_t nk;
    char* names;   /* the knames' bytes */
} StackGroups;

/* The kernel_stack rows that `?1 OR form <> 'folded'` keeps, with ?1 = only_folded. */
DcuStatus StackGroups_read(TraceDb* db, int only_folded, StackGroups* out, DcuError* err);
/* The sums of kernel id (0 when it has no rows): 1 when found. */
int StackGroups_kernel(const StackGroups* sg, int64_t kernel_id, int64_t* calls, int64_t* t);
void StackGroups_done(StackGroups* sg);

#endif
