/* load_event.h - typed inserts shared by every loader (load_csv.c, load_sqlite.c,
 * load_json.c): one kernel dispatch, API call, copy, range, aten op or python frame at a
 * time, with one set of checks (non-negative times, end not before start). Private to the
 * model, like load_internal.h. */
#ifndef DCUTOP_LOAD_EVENT_H
#define DCUTOP_LOAD_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "load_internal.h"

/* An absent integer (bound as SQL NULL). */
#define LOAD_NULL INT64_MIN

/* The largest count, duration (ns: 104 days) or byte count (8 PiB) taken as a measurement.
 * A larger one rejects its row: it is not data but a corrupt or hostile value, and a few
 * of them would overflow every sum. Below it, sums of up to 1024 such values stay in int64
 * and exact in a double (SQLite total()). Timestamps are not bounded: they are epoch ns. */
#define LOAD_MAX_AMOUNT (INT64_C(1) << 53)

/* Longest name read through rocpd's views (kernel, region, copy): longer ones are cut to it in
 * the query itself (substr), so a hostile view's giant computed names never reach its sort;
 * the cut is said in a message. Real kernel names stay under 10 KB; names stored in a table
 * are data and load whole (up to SQLite's 16 MiB a value). */
#define LOAD_MAX_NAME_BYTES (1 << 20)

/* Preference among per-event files of one run and layer (source_layer.rank; higher wins).
 * CSV files use 1..3 (load_csv.c); a database of the same run holds the same events and
 * yields to them; a JSON trace (rocprof results.json is a dump of results.db) yields to both. */
enum { RANK_DB = 0, RANK_JSON = -1 };

typedef struct LoadDispatch_ {
    int64_t seq, gpu, queue, stream, pid, tid, corr;
    int64_t start, end, dur; /* ns; dur = end - start when both are set */
    int64_t grid, workgroup, lds, scratch, vgpr, sgpr;
} LoadDispatch;

/* Every field LOAD_NULL. */
void LoadDispatch_init(LoadDispatch* d);

/* "where" names the row in messages ("table KERN row 12", "event 4031"); NULL for files
 * with lines, whose messages carry f->line instead (CSV). Each insert
 * validates times, rejects the row with a message when they are bad, and counts a stored
 * row in its layer with the given rank. The dispatch insert returns the new dispatch.id
 * (0 when rejected or on error); the others 1 when stored, 0 otherwise. */
int64_t LoadEvent_dispatch(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                           size_t name_len, LoadDispatch* d, int rank);
/* The same with the name's Intern_hash already taken. */
int64_t LoadEvent_dispatchHashed(LoaderCore* core, LoadFile* f, const char* where,
                                 const char* name, size_t name_len, uint64_t hash,
                                 LoadDispatch* d, int rank);
/* The same for a name already interned as kernel kid (a CSV parser thread found its id in
 * core->raw_shared): the times are checked, the name is not looked at again. */
int64_t LoadEvent_dispatchKernel(LoaderCore* core, LoadFile* f, const char* where, int64_t kid,
                                 LoadDispatch* d, int rank);
/* 1 when check_times would take these times, which it normalises as check_times does
 * (dur from start and end; a lone duration without them); 0 when it would reject them. Any
 * thread (a CSV parser's). */
int LoadEvent_timesFit(int64_t* start, int64_t* end, int64_t* dur);
/* Kernel kid's dispatch whose times LoadEvent_timesFit took: stored as it is. */
int64_t LoadEvent_dispatchFit(LoaderCore* core, LoadFile* f, int64_t kid,
                              const LoadDispatch* d, int rank);
int LoadEvent_apiCall(LoaderCore* core, LoadFile* f, const char* where, const char* domain,
                      const char* name, size_t name_len, int64_t pid, int64_t tid,
                      int64_t corr, int64_t start, int64_t end, int rank);
int LoadEvent_copy(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                   size_t name_len, int64_t src, int64_t dst, int64_t stream, int64_t corr,
                   int64_t bytes, int64_t start, int64_t end, int rank);
/* The same for a copy or memset that a device executed (Kineto gpu_memcpy/gpu_memset): gpu is
 * the device that ran it (copy.gpu), so that it joins that device's lanes and busy time. */
int LoadEvent_copyOn(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                     size_t name_len, int64_t src, int64_t dst, int64_t stream, int64_t corr,
                     int64_t bytes, int64_t start, int64_t end, int64_t gpu, int rank);
/* event: "range" for a range with its start and end, "event" for one rocprofv2 roctx
 * push/pop/mark row that load_ranges.c pairs later. */
int LoadEvent_range(LoaderCore* core, LoadFile* f, const char* where, const char* domain,
                    const char* event, const char* name, size_t name_len, int64_t pid,
                    int64_t tid, int64_t corr, int64_t start, int64_t end, int rank);
/* A PMC counter value of a stored dispatch (marks the file as a PMC run). */
int LoadEvent_counter(LoaderCore* core, LoadFile* f, int64_t dispatch_id, const char* name,
                      double value);
/* Kineto: correlation id -> External id (from kernels, copies and runtime calls). Kept
 * back and stored in batches (row_batch.h): 0 when a batch it completed failed. */
int LoadEvent_extLink(LoaderCore* core, LoadFile* f, int64_t corr, int64_t ext);
/* Stores the rows still kept back for f (the end of the file): 0 when that failed. */
int LoadEvent_flush(LoaderCore* core, LoadFile* f);
/* Kineto cpu_op (an aten op); call_stack may be NULL. */
int LoadEvent_cpuOp(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                    size_t name_len, int64_t pid, int64_t tid, int64_t ext, int64_t start,
                    int64_t end, const char* call_stack, size_t stack_len);
/* record_shapes args of a cpu_op, each the JSON text of its array or NULL when absent:
 * Input Dims, Input type, Input Strides, Concrete Inputs (cpu_op columns input_dims,
 * input_types, input_strides, concrete_inputs). Borrowed for the call. */
#define LOAD_SHAPE_FIELDS 4
typedef struct LoadShapes_ {
    const char* json[LOAD_SHAPE_FIELDS];
    int64_t seq, fwd_tid; /* args 'Sequence number', 'Fwd thread id'; LOAD_NULL: absent */
} LoadShapes;
/* LoadEvent_cpuOp with the op's recorded shapes (shapes may be NULL). */
int LoadEvent_cpuOpShaped(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                          size_t name_len, int64_t pid, int64_t tid, int64_t ext, int64_t start,
                          int64_t end, const char* call_stack, size_t stack_len,
                          const LoadShapes* shapes);
/* Kineto python_function frame; parent ids are resolved to py_frame.id by
 * LoadEvent_linkFrames() once the file is read. */
int LoadEvent_pyFrame(LoaderCore* core, LoadFile* f, const char* where, const char* name,
                      size_t name_len, int64_t pid, int64_t tid, int64_t py_id,
                      int64_t parent_py_id, int64_t start, int64_t end);
void LoadEvent_linkFrames(LoaderCore* core, LoadFile* f);
/* Kineto 'fwdbwd' flow event (ph 's' or 'f') with its id and time (kineto_flow.c). */
int LoadEvent_flow(LoaderCore* core, LoadFile* f, const char* where, char ph, int64_t id,
                   int64_t pid, int64_t tid, int64_t ts);

/* Numbers from text: a decimal integer, or a decimal with a fraction rounded to the
 * nearest integer after scaling by 10^scale (µs text with scale 3 gives exact ns).
 * Returns 1 on success, 0 when the text is not a finite number or overflows. */
int LoadEvent_parseScaled(const char* s, size_t n, int scale, int64_t* out);

#endif
