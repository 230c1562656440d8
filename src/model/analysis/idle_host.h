/* idle_host.h - what the host did during a device idle gap (idle.h "host activity"), kept
 * apart from idle.c's sweep of the dispatches: the host rows of one run sorted per thread,
 * the attribution of a gap to the host activities of its launching thread, and their tally
 * over many gaps.
 *
 * One attribution, read by --view idle, --export idle-gaps, the Trace screen's gap line and
 * the Summary: each instant of the gap goes to the innermost host activity covering it on the
 * launching thread ("(untraced)" where none does), and each activity gets its TOTAL within
 * the gap (an op entered three times in one gap is one row of the three parts' sum); the main
 * activity is the one with the largest total. For a sync gap the time inside the
 * synchronising call is named "<call> in <op that issued it>" and that is the gap's main
 * activity, whatever its share. */
#ifndef DCUTOP_IDLE_HOST_H
#define DCUTOP_IDLE_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/intern.h"

typedef struct { /* a host interval on one thread */
    int64_t pid, tid, start, end, maxend; /* maxend: max end of this and earlier on the thread */
    const char* name;                    /* borrowed from the reader's names */
} Host;

/* Host rows as read, in blocks (a million rows never copied to grow one array). */
typedef struct {
    Host** b;
    int64_t n;
} HostBlocks;

/* A new row at the end of hb (uninitialised). */
Host* HostBlocks_add(HostBlocks* hb);
void HostBlocks_free(HostBlocks* hb);
/* The rows of hb in host order (pid, tid, start, then the longer first, then the order read)
 * with maxend set, in a new array (free()); NULL when hb is empty. */
Host* HostBlocks_sorted(HostBlocks* hb);

/* Index one past the last row of thread (pid, tid) with start < t in h[0..n) (host order). */
int64_t IdleHost_upper(const Host* h, int64_t n, int64_t pid, int64_t tid, int64_t t);

/* "cudaStreamSynchronize in aten::item": the sync call y and the innermost host activity of
 * h around it, ATen's private ops (aten::_local_scalar_dense) skipped; y's name alone when
 * nothing holds it. Into buf, or y's name returned. */
const char* IdleHost_syncLabel(const Host* h, int64_t nh, const Host* y, char* buf, size_t cap);

typedef void (*IdleHostEmit)(void* ctx, const char* name, int64_t ns);

/* The host activities of thread (pid, tid) over [g0, g1): emit(ctx, name, total) once per
 * activity with its total within the gap, largest first (ties: the earlier in the gap); the
 * totals add up to g1 - g0. sync (may be NULL): the gap's synchronising call, whose time is
 * named sync_name and emitted first. pid = tid = -1: no thread, all "(untraced)". */
void IdleHost_gap(const Host* h, int64_t nh, int64_t pid, int64_t tid, int64_t g0, int64_t g1,
                  const Host* sync, const char* sync_name, IdleHostEmit emit, void* ctx);

/* Host time per (cause, activity) over many gaps. */
typedef struct {
    Intern* ix; /* "cause\x1fname" -> index + 1 */
    char** name;
    int* cause;
    int64_t* ns;
    int64_t n, cap;
    int64_t last[8]; /* per cause (< 8) the index + 1 added to last: gaps in a row mostly have
                      * the same activity (10M untraced gaps were 1.2 s of keys) */
} HostTally;

void HostTally_init(HostTally* t);
void HostTally_add(HostTally* t, int cause, const char* name, int64_t ns);
/* Adds every row of from into t (in from's order) and frees from. */
void HostTally_merge(HostTally* t, HostTally* from);
void HostTally_done(HostTally* t);

#endif
