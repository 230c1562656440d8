/* doc_screen.c - the document screens: Summary, Kernel detail, Help. They build a Doc from
 * model queries and scroll it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/memory.h"
#include "dcutop/advice.h"
#include "dcutop/idle.h"
#include "dcutop/shortname.h"
#include "dcutop/trace_lane.h"
#include "dcutop/runs.h"
#include "dcutop/health.h"
#include "dcutop/xalloc.h"
#include "dcutop/trace_query.h"
#include "screen.h"

static void drop_doc(Screen* s) {
    Doc_delete(s->doc);
    s->doc = NULL;
}

static void drop_data(Screen* s) {
    for (int i = 0; i < (int)(sizeof(s->aux) / sizeof(s->aux[0])); i++) {
        ResultSet_delete(s->aux[i]);
        s->aux[i] = NULL;
    }
    Timeline_delete(s->timeline);
    s->timeline = NULL;
    AdviceList_delete(s->advice);
    s->advice = NULL;
    if (s->has_detail) {
        KernelDetail_done(&s->detail);
        s->has_detail = 0;
    }
    s->has_data = 0;
}

static DcuStatus build(Screen* s, App* app, DcuError* err);

/* (Re)opening queries again: the trace's Amdahl basis may have changed since. */
static DcuStatus ds_open(Screen* s, App* app, DcuError* err) {
    drop_doc(s);
    drop_data(s);
    return build(s, app, err);
}

/* The advice item under the Summary's cursor shows its fix and evidence under the list: the
 * advice rows are the Doc's first links. The Doc is rebuilt (no query) when it changes; the
 * fix takes the same lines for every item, so the cursor's line stays. */
static void advice_follow(Screen* s, App* app) {
    int rows = SummaryView_adviceRows(&s->summary), k = 0;
    for (int i = Doc_nextLink(s->doc, -1, 1); i >= 0 && i < s->doc_sel;
         i = Doc_nextLink(s->doc, i, 1)) {
        k++;
    }
    int want = s->doc_sel >= 0 && k < rows ? k : 0;
    if (rows > 0 && want != s->summary.advice_sel) {
        DcuError err;
        s->summary.advice_sel = want;
        drop_doc(s);
        if (build(s, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
        }
    }
}

static void ds_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    if (!s->doc || s->doc_w != App_width(app)) {
        DcuError err;
        drop_doc(s);
        if (build(s, app, &err) != DCU_OK) {
            App_setStatus(app, 1, "%s", err.msg);
            return;
        }
    }
    int max = s->doc->n - h;
    if (s->doc_scroll > max) {
        s->doc_scroll = max;
    }
    if (s->doc_scroll < 0) {
        s->doc_scroll = 0;
    }
    if (s->ops == &SummaryScreen) {
        if (s->doc_sel < 0 || s->doc_sel >= s->doc->n ||
            s->doc->lines[s->doc_sel].link == DOC_LINK_NONE) {
            s->doc_sel = Doc_nextLink(s->doc, -1, 1);
        }
        advice_follow(s, app);
        s->doc->selected = s->doc_sel;
    }
    DocView_render(s->doc, s->doc_scroll, c, y0, h);
}

Reaction Summary_openGap(App* app, int64_t file, int64_t gpu, int64_t stream, int64_t at_ns,
                         const char* next_kernel) {
    /* the Trace screen at the gap: its lane, at the first op from the gap's start (the gap's
     * time is relative to its run's start, the trace's time zero of that file) */
    if (file > 0) {
        TraceLane lane;
        memset(&lane, 0, sizeof(lane));
        lane.file = file;
        lane.gpu = gpu;
        lane.stream = stream;
        return TraceScreen_openAt(app, &lane, TraceQuery_origin(App_db(app), file) + at_ns);
    }
    const char* full = ShortName_fullName(next_kernel);
    char label[96];
    Format_cutName(next_kernel, 60, label, sizeof(label));
    return App_open(app, &KernelScreen, full ? full : next_kernel, NULL,
                    xasprintf("Summary > gap before %s", label));
}

Reaction Summary_openLargestGap(App* app) {
    IdleSummary is;
    DcuError e;
    if (Idle_summary(App_db(app), &is, &e) == DCU_OK && is.ntop > 0 && is.top[0].file > 0) {
        const IdleGap* g = &is.top[0];
        return Summary_openGap(app, g->file, g->gpu, g->stream, g->at_ns, g->next);
    }
    TraceLane lane;
    int64_t at;
    if (!TraceQuery_largestGap(App_db(app), &lane, &at)) {
        App_setStatus(app, 0, "No gap: the trace has no per-dispatch timestamps.");
        return REACT_REDRAW;
    }
    return TraceScreen_openAt(app, &lane, at);
}

/* Pushes a screen opened with a sort, or on the row whose column key reads want. */
static Reaction open_table_at(App* app, const ScreenOps* ops, const char* sort, const char* key,
                              const char* want, char* crumb) {
    Screen* n = Screen_new(ops);
    n->crumb = crumb;
    n->sort = sort ? xstrdup(sort) : NULL;
    DcuError err;
    if (App_push(app, n, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
        return REACT_REDRAW;
    }
    int c = key && n->rs ? ResultSet_columnIndex(n->rs, key) : -1;
    for (int r = 0; c >= 0 && r < n->rs->nrows; r++) {
        const RsCell* x = ResultSet_cellc(n->rs, r, c);
        if (x->s && strcmp(x->s, want) == 0) {
            n->tv.selected = r;
            break;
        }
    }
    return REACT_REDRAW;
}

/* Summary links to whole screens: "copies", "runs", "trace-gap" (the Trace at the largest
 * idle gap), "short-kernels" (Hotspots, shortest average first), "ranks\tRUN" (Ranks on the
 * rank of that run). */
static Reaction summary_screen(App* app, const char* target) {
    if (strcmp(target, "runs") == 0) { /* a run's line: the Runs screen */
        return App_open(app, &RunsScreen, NULL, NULL, xstrdup("Summary > Runs"));
    }
    if (strcmp(target, "trace-gap") == 0) {
        return Summary_openLargestGap(app);
    }
    if (strcmp(target, "short-kernels") == 0) {
        return open_table_at(app, &HotspotsScreen, "avg_ns:asc", NULL, NULL,
                             xstrdup("Summary > short kernels (shortest average first)"));
    }
    if (strncmp(target, "ranks\t", 6) == 0) {
        return open_table_at(app, &RanksScreen, NULL, "run", target + 6,
                             xstrdup("Summary > Ranks"));
    }
    return App_open(app, &CopiesScreen, NULL, NULL, xstrdup("Summary > Copies"));
}

static Reaction summary_enter(Screen* s, App* app) {
    if (!s->doc || s->doc_sel < 0 || s->doc_sel >= s->doc->n) {
        return REACT_NONE;
    }
    const DocLine* l = &s->doc->lines[s->doc_sel];
    char label[96];
    switch (l->link) {
    case DOC_LINK_KERNEL: {
        const char* full = ShortName_fullName(l->target);
        Format_cutName(l->target, 60, label, sizeof(label));
        return App_open(app, &KernelScreen, full ? full : l->target, NULL,
                        xasprintf("Summary > %s", label));
    }
    case DOC_LINK_CATEGORY:
        return App_open(app, &HotspotsScreen, NULL, l->target,
                        xasprintf("Summary > %s", l->target));
    case DOC_LINK_GAP: {
        long long file = 0, gpu = 0, stream = 0, at = 0;
        int off = 0;
        if (sscanf(l->target, "%lld\t%lld\t%lld\t%lld\t%n", &file, &gpu, &stream, &at, &off) ==
                4 &&
            off > 0) {
            return Summary_openGap(app, file, gpu, stream, at, l->target + off);
        }
        return REACT_NONE;
    }
    case DOC_LINK_SCREEN:
        return summary_screen(app, l->target);
    default:
        return REACT_NONE;
    }
}

/* Summary: the cursor moves over the lines that open something; the view follows it. */
static Reaction summary_move(Screen* s, App* app, Action a) {
    int page = App_bodyHeight(app) - 1;
    int h = App_bodyHeight(app);
    int sel = s->doc_sel;
    switch (a) {
    case ACT_MOVE_UP:
        sel = Doc_nextLink(s->doc, s->doc_sel, -1);
        if (sel < 0) {
            s->doc_scroll = 0; /* above the first link: the head of the page */
            return REACT_REDRAW;
        }
        break;
    case ACT_MOVE_DOWN:
        sel = Doc_nextLink(s->doc, s->doc_sel, 1);
        if (sel < 0) {
            s->doc_scroll++; /* below the last link: the rest of the page */
            return REACT_REDRAW;
        }
        break;
    case ACT_PAGE_DOWN:
    case ACT_PAGE_UP:
        s->doc_scroll += a == ACT_PAGE_DOWN ? page : -page;
        if (s->doc_scroll < 0) {
            s->doc_scroll = 0;
        }
        sel = Doc_nextLink(s->doc, s->doc_scroll - 1, 1);
        if (sel < 0 || sel >= s->doc_scroll + h) {
            return REACT_REDRAW;
        }
        break;
    case ACT_MOVE_FIRST:
        s->doc_scroll = 0;
        sel = Doc_nextLink(s->doc, -1, 1);
        break;
    case ACT_MOVE_LAST:
        sel = Doc_nextLink(s->doc, s->doc->n, -1);
        s->doc_scroll = s->doc->n;
        break;
    default:
        return REACT_NONE;
    }
    if (sel >= 0) {
        s->doc_sel = sel;
        if (sel < s->doc_scroll) {
            s->doc_scroll = Doc_nextLink(s->doc, sel, -1) < 0 ? 0 : sel;
        } else if (sel >= s->doc_scroll + h) {
            s->doc_scroll = sel - h + 1;
        }
    }
    return REACT_REDRAW;
}

static Reaction ds_handle(Screen* s, App* app, Action a, DcuError* err) {
    (void)err; /* drill-downs report their errors on the status line */
    int page = App_bodyHeight(app) - 1;
    if (s->ops == &SummaryScreen && s->doc) {
        return a == ACT_ENTER ? summary_enter(s, app) : summary_move(s, app, a);
    }
    switch (a) {
    case ACT_MOVE_UP:
        s->doc_scroll--;
        break;
    case ACT_MOVE_DOWN:
        s->doc_scroll++;
        break;
    case ACT_PAGE_UP:
        s->doc_scroll -= page;
        break;
    case ACT_PAGE_DOWN:
        s->doc_scroll += page;
        break;
    case ACT_MOVE_FIRST:
        s->doc_scroll = 0;
        break;
    case ACT_MOVE_LAST:
        s->doc_scroll = s->doc ? s->doc->n : 0;
        break;
    case ACT_ENTER:
        if (s->ops == &KernelScreen && s->has_detail && s->db) {
            App_setStatus(app, 0, "The baseline's kernel: its dispatches open from the "
                                  "baseline's own trace (dcutop A).");
            return REACT_REDRAW;
        }
        if (s->ops == &KernelScreen && s->has_detail) {
            if (!s->detail.per_dispatch) {
                App_setStatus(app, 0, "No per-dispatch data for this kernel (aggregated stats).");
                return REACT_REDRAW;
            }
            return App_open(app, &DispatchScreen, s->kernel, NULL,
                            xasprintf("%s > dispatches", s->crumb ? s->crumb : "Kernel"));
        }
        return REACT_NONE;
    case ACT_CATEGORY:
        if (s->ops == &KernelScreen && s->has_detail && !s->db) {
            return App_open(app, &HotspotsScreen, NULL, s->detail.category,
                            xasprintf("Category > %s", s->detail.category));
        }
        return REACT_NONE;
    default:
        return REACT_NONE;
    }
    if (s->doc_scroll < 0) {
        s->doc_scroll = 0;
    }
    if (s->doc && s->doc_scroll > s->doc->n - 1) {
        s->doc_scroll = s->doc->n - 1;
    }
    return REACT_REDRAW;
}

static const char* ds_selection(Screen* s) {
    if (s->ops == &KernelScreen && s->has_detail) {
        return s->detail.name;
    }
    return NULL;
}

static void ds_close(Screen* s) {
    drop_doc(s);
    drop_data(s);
}

/* A folder of stacks only: their total and the frame with the most self time (folded). */
static void stacks_summary(TraceDb* db, SummaryData* sd) {
    StacksOpts so = {.mode = STACKS_TREE, .fold = 1, .filter = NULL};
    StackTree* t = NULL;
    DcuError e;
    if (Stacks_build(db, STACKS_SRC_STACKS, &so, &t, &e) != DCU_OK || !t) {
        StackTree_delete(t);
        return;
    }
    sd->stacks_ns = t->total_ns;
    sd->stacks_samples = t->total_calls;
    int hot = -1;
    for (int i = 0; i < t->n; i++) {
        if (hot < 0 || t->nodes[i].self_ns > t->nodes[hot].self_ns) {
            hot = i;
        }
    }
    if (hot >= 0 && t->nodes[hot].self_ns > 0) {
        snprintf(sd->stacks_hot, sizeof(sd->stacks_hot), "%s", t->nodes[hot].name);
        sd->stacks_hot_pct = t->nodes[hot].self_pct;
    }
    StackTree_delete(t);
}

/* The Summary's slow part: the timeline (gaps, iterations) and the advice, which read every
 * dispatch (0.6 s at 1M). The first screen shows without them (SummaryData.pending) and
 * DocScreen_finish adds them when the user is idle (App_idle), so the totals and the top
 * kernels show as soon as the load ends; every figure is the same as when computed at once. */
static void summary_slow(Screen* s, TraceDb* db) {
    SummaryData* sd = &s->summary;
    DcuError e2;
    if (Timeline_new(db, &s->timeline, &e2) == DCU_OK) {
        sd->timeline = Timeline_summary(s->timeline);
        if (sd->timeline->available &&
            Timeline_view(s->timeline, TL_GAPS, NULL, AMDAHL_BASIS_KERNEL, &s->aux[3],
                          &e2) == DCU_OK) {
            sd->gaps = s->aux[3];
        }
        /* several runs: their iterations and cold starts, one row each */
        if (sd->timeline->runs > 1 &&
            Timeline_view(s->timeline, TL_RUNS, NULL, AMDAHL_BASIS_KERNEL, &s->aux[4],
                          &e2) == DCU_OK) {
            sd->runs = s->aux[4];
        }
    }
    if (Advice_build(db, &s->advice, &e2) == DCU_OK) {
        sd->advice = s->advice;
    }
    sd->pending = 0;
}

int DocScreen_pending(const Screen* s) {
    return s->ops == &SummaryScreen && s->has_data && s->summary.pending;
}

int DocScreen_finish(Screen* s, App* app) {
    if (!DocScreen_pending(s)) {
        return 0;
    }
    /* the selected link stays selected though lines come in above it */
    char* keep = s->doc && s->doc_sel >= 0 && s->doc_sel < s->doc->n &&
                         s->doc->lines[s->doc_sel].target
                     ? xstrdup(s->doc->lines[s->doc_sel].target)
                     : NULL;
    int moved = s->doc_sel != (s->doc ? Doc_nextLink(s->doc, -1, 1) : -1);
    summary_slow(s, s->db ? s->db : App_db(app));
    drop_doc(s);
    DcuError err;
    if (build(s, app, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
    }
    /* the first link, as a first draw picks it, unless the user moved: set now, not at the
     * next draw, so a key that comes first (a script's Enter) opens it */
    s->doc_sel = s->doc ? Doc_nextLink(s->doc, -1, 1) : -1;
    for (int i = 0; moved && keep && s->doc && i < s->doc->n; i++) {
        if (s->doc->lines[i].target && strcmp(s->doc->lines[i].target, keep) == 0) {
            s->doc_sel = i;
            break;
        }
    }
    free(keep);
    return 1;
}

/* Several runs: which one the Summary's figures are of, and why (runs.h Runs_choice). */
static void summary_scope(TraceDb* db, SummaryData* sd) {
    RunsChoice ch;
    if (Runs_count(db) < 2 || Runs_choice(db, &ch, NULL) != DCU_OK) {
        return;
    }
    int64_t one = Runs_scopeRun(db);
    if (one == RUNS_ALL) {
        sd->scope_total = Runs_count(db);
        return;
    }
    char* label = Runs_label(db, one ? one : ch.chosen);
    if (label) {
        snprintf(sd->scope_run, sizeof(sd->scope_run), "%s", label);
        if (!one) {
            snprintf(sd->scope_why, sizeof(sd->scope_why), "%s", ch.why);
            snprintf(sd->scope_with, sizeof(sd->scope_with), "%s", ch.with);
            snprintf(sd->scope_left, sizeof(sd->scope_left), "%s", ch.left);
        }
    }
    free(label);
}

/* The queries behind a document, run once per open (the Summary's slow part later). */
static DcuStatus load_data(Screen* s, App* app, DcuError* err) {
    TraceDb* db = s->db ? s->db : App_db(app);
    if (s->ops == &SummaryScreen) {
        SummaryData* sd = &s->summary;
        memset(sd, 0, sizeof(*sd));
        sd->title = App_title(app);
        summary_scope(db, sd);
        DcuStatus st = Query_totals(db, &sd->totals, err);
        static const ViewId views[] = {VIEW_HOTSPOTS, VIEW_CATEGORIES, VIEW_FILES};
        for (int i = 0; i < 3 && st == DCU_OK; i++) {
            st = Query_view(db, views[i], NULL, &s->aux[i], err);
        }
        if (st != DCU_OK) {
            return st;
        }
        sd->pending = 1;
        QueueDepth_emptyPct(db, &sd->queue_empty_pct, &sd->queue_lanes);
        HtaQueue hq;
        if (QueueLength_hta(db, &hq)) {
            sd->hta_queue_events = hq.events;
            sd->hta_queue_empty = hq.empty;
            sd->hta_queue_lanes = hq.lanes;
        }
        sd->hotspots = s->aux[0];
        sd->categories = s->aux[1];
        sd->files = s->aux[2];
        sd->rows_rejected = sd->totals.rows_rejected;
        sd->wall_basis = Query_amdahlBasis(db) == 1;
        if (sd->totals.kernels == 0 && Stacks_available(db, STACKS_SRC_STACKS)) {
            stacks_summary(db, sd);
        }
        sd->basis_ns = Query_basisNs(db, sd->wall_basis);
        Health h;
        if (Health_compute(db, &h, err) != DCU_OK) {
            Health_done(&h);
            return err->code;
        }
        sd->nhealth = HealthView_lines(&h, sd->health, (int)(sizeof(sd->health) /
                                                             sizeof(sd->health[0])));
        Health_done(&h);
        DcuError e2;
        if (Memory_any(db) && Memory_view(db, MEM_VIEW_PEAKS, 0, &s->aux[5], &e2) == DCU_OK) {
            sd->memory = s->aux[5];
        }
    } else if (s->ops == &KernelScreen) {
        DcuStatus st = KernelQuery_detail(db, s->kernel, &s->detail, err);
        if (st != DCU_OK) {
            return st;
        }
        s->has_detail = 1;
        /* who launched it, and in which ranges (library frames folded) */
        DcuError e2;
        if (Stacks_available(db, STACKS_SRC_STACKS)) {
            Stacks_kernelPaths(db, STACKS_SRC_STACKS, s->kernel, 1, 8, &s->aux[0], &e2);
        }
        if (Stacks_available(db, STACKS_SRC_RANGES)) {
            Stacks_kernelPaths(db, STACKS_SRC_RANGES, s->kernel, 0, 8, &s->aux[1], &e2);
        }
        ComputeMetrics_kernel(db, s->kernel, &s->aux[2], &e2); /* rocprof-compute, if any */
        if (s->detail.per_dispatch && s->detail.name) { /* its launch calls (idle.h) */
            Idle_launchStats(db, s->detail.name, &s->aux[3], &e2);
        }
    }
    s->has_data = 1;
    return DCU_OK;
}

/* The Doc for the current width, from the data loaded once. */
static DcuStatus build(Screen* s, App* app, DcuError* err) {
    int w = App_width(app);
    s->doc_w = w;
    if (!s->has_data) {
        DcuStatus st = load_data(s, app, err);
        if (st != DCU_OK) {
            return st;
        }
    }
    if (s->ops == &SummaryScreen) {
        s->doc = SummaryView_build(&s->summary, w);
    } else if (s->ops == &KernelScreen) {
        ComputeRoof roof;
        int has_roof = ComputeMetrics_roofline(App_db(app), s->kernel, &roof);
        KernelExtras x = {s->aux[0], s->aux[1], NULL,
                          s->aux[2], has_roof ? &roof : NULL, s->aux[3]};
        s->doc = KernelView_build(&s->detail, &x, w);
    } else {
        /* help for the screen below it */
        HelpEntry e[4 * ACT_COUNT];
        const char* for_screen = App_previousScreenName(app);
        int n = App_helpEntries(app, for_screen, e, 4 * ACT_COUNT);
        s->doc = HelpView_build(for_screen, e, n, w);
    }
    return DCU_OK;
}

#define DOC_OPS(name_, title_, tab_)                                                           \
    {name_, title_, tab_, ds_open, ds_handle, ds_render, ds_selection, ds_close,               \
     VIEW_HOTSPOTS, NULL, NULL, NULL, 0}

const ScreenOps SummaryScreen = DOC_OPS("summary", "Summary", 0);
const ScreenOps KernelScreen = DOC_OPS("kernel", "Kernel", -1);
const ScreenOps HelpScreen = DOC_OPS("help", "Help", -1);
