/* kineto_memory.h - device memory events into mem_event: PyTorch's '[memory]' instant events
 * (read by load_json.c, checked and stored here) and, after every file, rocpd's allocations
 * (mem_alloc) and each event's aten op. Private to the model's loaders. */
#ifndef DCUTOP_KINETO_MEMORY_H
#define DCUTOP_KINETO_MEMORY_H

#include <stdint.h>

#include "load_internal.h"

/* The args of a '[memory]' event that are read, in this order (LoadMemory_argNames). */
enum { MEM_ARG_BYTES, MEM_ARG_ALLOCATED, MEM_ARG_RESERVED, MEM_ARG_DEVICE, MEM_ARG_TYPE,
       MEM_ARG_ADDR, MEM_ARG_COUNT };
extern const char* const LoadMemory_argNames[MEM_ARG_COUNT];

/* One '[memory]' event of f, its number event (1-based in the file): ts in ns (LOAD_NULL when
 * absent), its pid and tid, its args (LOAD_NULL when absent) and bad, the index of the first
 * arg that is there but not a number (-1 none). Stored, or rejected with a message naming the
 * event and why. Returns 1 when stored. */
int LoadMemory_kineto(LoaderCore* core, LoadFile* f, int64_t event, int64_t ts, int64_t pid,
                      int64_t tid, const int64_t* args, int bad);

/* After every file, in the load transaction: rocpd allocations join mem_event, and each
 * Kineto event gets the aten op open on its thread (mem_event.op_id). */
DcuStatus LoadMemory_finish(LoaderCore* core, DcuError* err);

#endif
