/* memory.h - device memory over time, from the loader's mem_event table: PyTorch's '[memory]'
 * events (profile_memory=True) and rocpd's allocations. Per device: the peak of allocated and
 * of reserved bytes, the aten op, module path and call stack live at the peak, the largest
 * allocations, allocated and reserved bytes over time, and every event with its totals.
 *
 * PyTorch's "Total Allocated" and "Total Reserved" are its caching allocator's figures for
 * its own process: tensors live, and the blocks the allocator holds from the device. The
 * device's used memory (nvidia-smi, rocm-smi) is more: the CUDA/HIP context, other
 * allocators, other processes. rocpd's figure is the bytes its allocation calls hold (level
 * REAL); it has no reserved figure. */
#ifndef DCUTOP_MEMORY_H
#define DCUTOP_MEMORY_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

/* One device's peaks in one run. A device whose events come from several files (processes)
 * takes the largest single-process total: the totals are each allocator's own. */
typedef struct MemPeak_ {
    int64_t device;         /* device index ('Device Id', rocpd agent); -1: host memory */
    int64_t events;         /* its memory events */
    int64_t allocated;      /* peak allocated bytes */
    int64_t allocated_ns;   /* when first reached (trace clock, ns) */
    int64_t allocated_event; /* that event: mem_event.id */
    int64_t reserved_then;  /* reserved bytes at that event, -1 when the source has none */
    int64_t reserved;       /* peak reserved bytes, -1 when the source has none (rocpd, and
                             * host memory, whose Total Reserved PyTorch writes as 0) */
    int64_t reserved_ns;    /* when first reached, -1 when none */
    int64_t reserved_event; /* that event: mem_event.id, -1 when none */
} MemPeak;

/* The peaks of run run_id (a run.id; 0: every run in scope together) per device, in device
 * order (host first), into out[0 .. max); *n gets the number of devices with memory events
 * (may exceed max; 0 when the run has none). DCU_ERR_SQL on a query failure. */
DcuStatus Memory_peaks(TraceDb* db, int64_t run_id, MemPeak* out, int max, int* n,
                       DcuError* err);

/* 1 when some run in scope has memory events. */
int Memory_any(TraceDb* db);

typedef enum {
    MEM_VIEW_PEAKS,    /* per run and device: peaks, and op, module, stack at each peak */
    MEM_VIEW_LARGEST,  /* per run and device: the largest allocations, with their op, module
                        * and lifetime (freed: the next free of the same address) */
    MEM_VIEW_TIMELINE, /* per run and device: allocated and reserved over MEM_BUCKETS spans */
    MEM_VIEW_EVENTS,   /* every event with its totals (--export memory) */
    MEM_VIEW_COUNT
} MemView;

enum { MEM_LARGEST = 10, MEM_BUCKETS = 20 };

/* The view's rows, runs in scope; times from the run's start (TraceQuery_origin). largest:
 * the allocations MEM_VIEW_LARGEST lists per run and device (other views ignore it). *out
 * owned by the caller. */
DcuStatus Memory_view(TraceDb* db, MemView v, int largest, ResultSet** out, DcuError* err);

/* MemView by its --view / --export name: "memory" is MEM_VIEW_EVENTS; -1 unknown. */
int Memory_viewByName(const char* name);

#endif
