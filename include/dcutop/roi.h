/* roi.h - the region of interest (ROI): a time window that every screen and the report follow
 * until it is cleared.
 *
 * A dispatch, copy, API call or range is in the ROI when it starts inside the window of its
 * file's group (both ends included). Windows are per group of files (one folder and run, as
 * superseding ties them: the API and copy files of a run follow its kernel file), in that
 * group's clock, with times relative to the group's first dispatch (TraceQuery_origin(); a
 * per-run start later changes only that function). Rows without timestamps and aggregated
 * stats (kernel_stat, api_stat, copy_stat) cannot be cut by time: they stay whole, and the
 * label says so.
 *
 * How every query follows: Roi_apply() installs TEMP views named dispatch, copy, api_call and
 * range that select the rows in the window from the main tables; SQLite resolves unqualified
 * names in the temp schema first, so each query over those tables sees the ROI. The main
 * schema's views are re-created in temp the same way (a main view would keep reading the main
 * tables) and kernel_summary is re-materialized as a temp table. Roi_clear() drops them all;
 * the main tables are never changed. */
#ifndef DCUTOP_ROI_H
#define DCUTOP_ROI_H

#include <stddef.h>
#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef enum { ROI_OFF, ROI_WINDOW, ROI_MATCH, ROI_AUTO_TOP, ROI_TRIM, ROI_ITERATION } RoiKind;

typedef struct RoiSpec_ {
    RoiKind kind;
    /* ROI_WINDOW: ns from the group's first dispatch, or back from its last dispatch end
     * when *_from_end; has_* = 0: open on that side */
    int has_start, has_end, start_from_end, end_from_end;
    int64_t start_ns, end_ns;
    /* ROI_MATCH: PCRE2 patterns on kernel names, "" = open: from the first dispatch of a
     * kernel matching `from` to the end of the last dispatch of one matching `to` */
    char from[512], to[512];
    int iteration; /* ROI_ITERATION: 1-based; 0 = the steady state (2nd iteration to the end) */
} RoiSpec;

/* --roi: "START..END" (each a number with ns, us, ms or s, a leading '-' counting back from
 * the end; either may be left out), "auto-top", "trim", "iteration:N", "steady".
 * DCU_ERR_USAGE with a message for anything else. */
DcuStatus Roi_parse(const char* text, RoiSpec* out, DcuError* err);

/* Replaces the active ROI (if any) with spec (ROI_OFF clears). DCU_ERR_EMPTY when the data has
 * no per-dispatch timestamps (aggregated stats only), DCU_ERR_USAGE when a pattern matches no
 * kernel or the iteration does not exist: no ROI then, the data is whole; DCU_ERR_REGEX for a
 * bad pattern. */
DcuStatus Roi_apply(TraceDb* db, const RoiSpec* spec, DcuError* err);
DcuStatus Roi_clear(TraceDb* db, DcuError* err);

/* The active ROI: 1 and spec copied (when not NULL), or 0. */
int Roi_active(TraceDb* db, RoiSpec* spec);

/* "ROI 100.000 ms..200.000 ms (stats not cut)" for headers and reports; "" when none. */
void Roi_label(TraceDb* db, char* buf, size_t cap);

/* A time of file's clock (ns) as a ROI_WINDOW bound: relative to its group's start (for [ and ]
 * in the TUI, from a selected dispatch). */
int64_t Roi_relative(TraceDb* db, int64_t file, int64_t abs_ns);

#endif
