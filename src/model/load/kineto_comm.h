/* kineto_comm.h - the collectives of a PyTorch (Kineto) trace: the args PyTorch writes on a
 * NCCL/RCCL kernel and on its record_param_comms cpu_op, stored in comm_op (trace_db.c) for
 * analysis/collectives.c. Private to load/: load_json.c calls it for each such event. */
#ifndef DCUTOP_KINETO_COMM_H
#define DCUTOP_KINETO_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "load_internal.h"

/* An event's arg by key: its text (a string's bytes, a number's digits; borrowed, valid
 * during the call) and length, or NULL when absent or not a scalar. */
typedef const char* (*KinetoCommArg)(const void* ev, const char* key, size_t* len);

typedef struct KinetoComm_ KinetoComm; /* per file: its prepared INSERT */

/* Stores one row of comm_op for file f: source "kernel" or "cpu_op", the event's ids and
 * times (ns; LOAD_NULL when absent) and its collective args read through get. A kernel is
 * stored when it carries 'Collective name' or its name starts with nccl/rccl/msccl (its args
 * may then come from its record_param_comms, joined by External id); other kernels are
 * not.
 * name: the event's (the kernel's), stored when it has no 'Collective name'. *state is
 * created on the first call (owned by the caller: KinetoComm_done). A value that is not a
 * number where a number belongs (In msg nelems "abc") is stored as NULL and named once
 * per file in a load message. */
void KinetoComm_event(KinetoComm** state, LoaderCore* core, LoadFile* f, const char* source,
                      const char* name, size_t name_len, const void* ev, KinetoCommArg get,
                      int64_t ext, int64_t corr, int64_t start, int64_t end);

/* Finalizes the statement; NULL is a no-op. */
void KinetoComm_done(KinetoComm* state);

#endif
