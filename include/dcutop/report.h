/* report.h - the batch report (--report): the same tables the TUI shows, as plain text,
 * CSV blocks or one JSON document. */
#ifndef DCUTOP_REPORT_H
#define DCUTOP_REPORT_H

#include <stdio.h>

#include "dcutop/error.h"
#include "dcutop/query.h"
#include "dcutop/stacks.h"
#include "dcutop/trace_db.h"

typedef enum { FMT_TEXT, FMT_CSV, FMT_JSON } OutFormat;

/* ReportOpts.view for the Timeline section alone (--view timeline); not a ViewId. */
#define REPORT_VIEW_TIMELINE 100
/* ReportOpts.view for one tree (--view stacks|ranges): REPORT_VIEW_STACKS + StacksSource. */
#define REPORT_VIEW_STACKS 101
#define REPORT_VIEW_RANGES 102
/* ReportOpts.view for the dispatch trace alone (--view trace, report_trace.c). */
#define REPORT_VIEW_TRACE 110
/* ReportOpts.view for the Efficiency section alone (--view efficiency). */
#define REPORT_VIEW_EFFICIENCY 111
/* ReportOpts.view for "what to optimise first" alone (--view advice). */
#define REPORT_VIEW_ADVICE 103
/* ReportOpts.view for the Ranks section alone (--view ranks, report_ranks.c). */
#define REPORT_VIEW_RANKS 112
/* ReportOpts.view for --view idle (report_idle.c, idle.h) */
#define REPORT_VIEW_IDLE 113
/* ReportOpts.view for --view collectives (report_collectives.c, collectives.h) */
#define REPORT_VIEW_COLLECTIVES 114
/* ReportOpts.view for --view memory (report_memory.c, memory.h) */
#define REPORT_VIEW_MEMORY 115
/* ReportOpts.view for --view ops (report_ops.c, ops.h) */
#define REPORT_VIEW_OPS 116
/* ReportOpts.view for --view device (report_device.c, device_state.h) */
#define REPORT_VIEW_DEVICE 117

typedef struct ReportOpts_ {
    OutFormat format;
    int width;        /* text: total line width */
    int top;          /* text: hotspot rows shown (0 = all) */
    int view;         /* -1 = all sections, else one ViewId */
    QueryOpts query;  /* filter/sort/what-if applied to the tables */
    const char* title;
    StacksOpts stacks; /* --tree, --fold: how the stacks and ranges sections are drawn */
    int top_all;      /* --top given: every table (any format) keeps this many rows; 0 all */
} ReportOpts;

DcuStatus Report_write(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The Efficiency section (report_efficiency.c): ops against the device's peaks, or why
 * there are none (no shapes, no peaks). In the whole report only when some op is
 * modelled. */
DcuStatus Report_efficiency(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);
/* The Ops section (report_ops.c): kernel time per model op and module, and how much of it
 * is tied to an op (--view ops only). */
DcuStatus Report_ops(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The load messages, "PREFIXfile:line: reason" one a line, under title when there is any
 * (title NULL: no heading). */
void Report_loadMessages(TraceDb* db, FILE* out, const char* prefix, const char* title);

/* The Stacks and Ranges sections (report_stacks.c): with view -1 those the trace has data
 * for (text: the first `top` nodes of each tree), with REPORT_VIEW_STACKS/RANGES that one,
 * whole; nothing for other views. */
/* The dispatch trace of every GPU/queue (only with --view trace: it lists every op). */
DcuStatus Report_trace(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);
DcuStatus Report_trees(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The Runs section (report_runs.c): every run with its own figures and the scope shown;
 * text only with several runs, CSV/JSON always (JSON member "runs"). */
DcuStatus Report_runs(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* Text: the line over the headline that names the run shown and why (runs.h Runs_choice), or
 * says that the figures are a total over runs; nothing with one run or a job's ranks. */
void Report_scopeLine(TraceDb* db, FILE* out);
/* "What to optimise first" (report_advice.c): ranked opportunities as text cut to the
 * width, or the advice table as a CSV block / JSON member. */
DcuStatus Report_advice(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The Ranks section (report_ranks.c): the runs as ranks of one job, the rank x step matrix
 * and the straggler verdict (JSON members "ranks", "rank_steps", "rank_verdict"). In the
 * whole report only when the runs are ranks of one job (Ranks_isJob). */
DcuStatus Report_ranks(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The Collectives section (report_collectives.c, --view collectives only): per type and size
 * bucket, per rank how often it arrived last, and (CSV, JSON) every instance. */
DcuStatus Report_collectives(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The idle section (report_idle.c), with --view idle only: JSON members "idle",
 * "idle_top_gaps", "launch_stats". */
DcuStatus Report_idle(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);
/* The default report's idle-causes section (report_idle.c): idle time per device and cause
 * and the largest gaps with their main host activity; nothing without timed dispatches. */
DcuStatus Report_idleCauses(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);
/* The device-state section (report_device.c), with --view device only: per log and device,
 * clocks, utilisation, memory, power, temperature, throttle reasons (JSON member "device"). */
DcuStatus Report_device(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The health verdict (report_health.c) at the head of the default report's summary: text
 * lines "Health: ...", JSON member "health", CSV block "# health". */
DcuStatus Report_health(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);

/* The memory section (report_memory.c): per device the peaks of allocated and reserved bytes
 * with the op, module and call stack live at the peak, the largest allocations and, with
 * --view memory, allocated and reserved over time. In the whole report only when memory
 * events exist. JSON members "memory_peaks", "memory_largest", "memory_timeline". */
DcuStatus Report_memory(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err);


#endif
