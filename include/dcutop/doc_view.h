/* doc_view.h - a scrollable document of styled lines: what the Summary, Kernel detail and
 * Help screens draw. Builders turn model data into a Doc; DocView_render draws it. */
#ifndef DCUTOP_DOC_VIEW_H
#define DCUTOP_DOC_VIEW_H

#include <stdint.h>

#include "dcutop/canvas.h"
#include "dcutop/kernel_query.h"
#include "dcutop/query.h"
#include "dcutop/compute_metrics.h"
#include "dcutop/health_view.h"
#include "dcutop/result_set.h"
#include "dcutop/timeline.h"

typedef struct DocSeg_ {
    Style style;
    char* text; /* owned */
} DocSeg;

/* What Enter on a line opens (the Summary's cursor stops on lines that have one). */
typedef enum {
    DOC_LINK_NONE,
    DOC_LINK_KERNEL,   /* target: the kernel's full or short name */
    DOC_LINK_CATEGORY, /* target: a category (its kernels) */
    DOC_LINK_GAP,      /* target: "gpu\tstream\tat_ns\tnext kernel" (DocLink_gap parses it) */
    DOC_LINK_SCREEN    /* target: a screen name ("copies", "runs") */
} DocLinkKind;

typedef struct DocLine_ {
    DocSeg* seg;
    int n;
    int link;     /* DocLinkKind */
    char* target; /* owned, NULL without a link */
} DocLine;

typedef struct Doc_ {
    DocLine* lines;
    int n, cap;
    int selected; /* line drawn as selected, -1 for none */
} Doc;

Doc* Doc_new(void);
void Doc_delete(Doc* this);
/* Starts a new line; then Doc_add appends segments to it. */
void Doc_line(Doc* this);
void Doc_add(Doc* this, Style s, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
/* "label" padded to width, then the value: one line. */
void Doc_field(Doc* this, int label_w, const char* label, Style vs, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Gives the current line a link (target copied). */
void Doc_link(Doc* this, DocLinkKind kind, const char* target);
/* The next line after from (dir 1) or before it (dir -1) that has a link; -1 when none. */
int Doc_nextLink(const Doc* this, int from, int dir);

/* A bar of share 0..1 over width cells (eighths of a block). */
void Doc_bar(Doc* this, Style s, double share, int width);

void DocView_render(const Doc* d, int scroll, Canvas* c, int y0, int height);

/* Summary: totals, GEMM group and ceiling, top kernels, categories, files, warnings. */
typedef struct SummaryData_ {
    const char* title;           /* the paths */
    Totals totals;
    const ResultSet* hotspots;   /* borrowed; first rows used */
    const ResultSet* categories; /* borrowed */
    const ResultSet* files;      /* borrowed */
    int64_t rows_rejected;
    const TimelineSummary* timeline; /* borrowed, may be NULL: the per-dispatch layer */
    const ResultSet* gaps;       /* borrowed, may be NULL: the largest launch gaps */
    const struct AdviceList_* advice; /* borrowed, may be NULL: what to optimise first */
    int wall_basis;              /* shares and ceilings shown over wall time */
    int64_t basis_ns;            /* their denominator (Query_basisNs); 0: kernel time */
    const ResultSet* runs;       /* borrowed, may be NULL: per-run timeline rows (TL_RUNS), set
                                  * when several runs are in the scope */
    const ResultSet* memory;     /* borrowed, may be NULL: memory peaks per run and device
                                  * (memory.h MEM_VIEW_PEAKS), set when memory events exist */
    /* call stacks when no kernel is loaded (a folder of stacks only): where the time is */
    int64_t stacks_ns;           /* 100% of the stacks (0: none) */
    int64_t stacks_samples;      /* their calls (launches) */
    char stacks_hot[256];        /* the frame with the most self time */
    double stacks_hot_pct;       /* its share of stacks_ns */
    double queue_empty_pct;      /* QueueDepth_emptyPct (trace_lane.h), 0..100 */
    int queue_lanes;             /* the streams it is over; 0: no launch calls, no line */
    int64_t hta_queue_events;    /* HTA's queue length (QueueLength_hta): its samples, 0: none */
    int64_t hta_queue_empty;     /* the samples at length 0 */
    int hta_queue_lanes;
    int pending;                 /* the timeline and the advice are not computed yet: their
                                  * places say so (the first screen shows before them) */
    int advice_sel;              /* the advice item whose fix and evidence show under the
                                  * list (index into advice->items; out of range: the first) */
    /* several runs of one program (runs.h Runs_choice): the one the figures are of */
    char scope_run[256];         /* its label; "": one run loaded, a job's ranks, or a total */
    char scope_why[320];         /* why the default shows it; "": one run picked */
    char scope_with[512];        /* runs beside it that give other layers */
    char scope_left[512];        /* runs not added */
    int scope_total;             /* runs added together, as asked: how many (0: not a total) */
    /* the health verdict (health_view.h): its lines open the Summary; "no device-state log"
     * alone goes to the foot, beside the files, so a trace without a log keeps its first
     * screen */
    HealthLine health[8];
    int nhealth;
} SummaryData;
Doc* SummaryView_build(const SummaryData* s, int width);
/* The advice rows the Summary shows (items, nested ones included): they are the first lines
 * of its Doc with a link, in item order. */
int SummaryView_adviceRows(const SummaryData* s);

/* Kernel detail. The extras may be NULL or empty. */
typedef struct KernelExtras_ {
    const ResultSet* paths;  /* top call paths: path, calls, time_ns, pct (stacks.h) */
    const ResultSet* ranges; /* top range paths, same columns */
    const ResultSet* timing; /* timeline rows for this kernel (short dispatches), may be NULL */
    const ResultSet* compute; /* rocprof-compute Speed-of-Light rows (ComputeMetrics_kernel) */
    const ComputeRoof* roof;  /* its roofline point, NULL: none */
    const ResultSet* launch; /* its launch stats (Idle_launchStats: one row), may be NULL */
} KernelExtras;
Doc* KernelView_build(const KernelDetail* d, const KernelExtras* x, int width);

/* Help: one entry per action with its keys, grouped in sections: a screen name, "generic"
 * (every screen) or NULL (actions no key is bound to). */
typedef struct HelpEntry_ {
    const char* section; /* borrowed */
    char keys[64];
    const char* action;
    const char* help;
} HelpEntry;
Doc* HelpView_build(const char* screen, const HelpEntry* e, int n, int width);

#endif
