/* summary_view.c - the Summary screen as a Doc. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/advice.h"
#include "dcutop/timeline.h"
#include "dcutop/amdahl.h"
#include "dcutop/doc_view.h"
#include "dcutop/format.h"
#include "dcutop/idle.h"

static const RsCell* cell(const ResultSet* rs, int r, const char* key) {
    int c = ResultSet_columnIndex(rs, key);
    return c >= 0 ? ResultSet_cellc(rs, r, c) : NULL;
}

static const char* text(const ResultSet* rs, int r, const char* key) {
    const RsCell* c = cell(rs, r, key);
    return c && c->s ? c->s : "";
}

enum { LW = 14 }; /* label width */

static int bar_width(int width) {
    return width >= 100 ? 30 : width >= 70 ? 20 : 10;
}

/* Several runs: one line per run with its own iterations and cold start, never a blend. */
static void summary_runs(Doc* d, const ResultSet* runs, int lw, int width) {
    char a[64], b[64], name[256];
    Doc_field(d, lw, "Runs", STYLE_NUMBER, "%d with timestamps, each on its own clock: "
              "iterations and cold start per run", runs->nrows);
    for (int r = 0; r < runs->nrows; r++) {
        const RsCell* it = cell(runs, r, "iterations");
        const RsCell* first = cell(runs, r, "first_iteration_span_ns");
        const RsCell* steady = cell(runs, r, "steady_iteration_span_ns");
        const RsCell* cold = cell(runs, r, "cold_ratio");
        Format_cutName(text(runs, r, "run"), width / 3 > 12 ? width / 3 : 12, name, sizeof(name));
        Doc_line(d);
        Doc_add(d, STYLE_NAME, "  %*s %s", lw, "", name);
        if (steady && !steady->null && cold && !cold->null) {
            Format_durationAuto(a, sizeof(a), first->i);
            Format_durationAuto(b, sizeof(b), steady->i);
            Doc_add(d, STYLE_NUMBER, ": %lld iterations, first %s, steady %s (cold start %.2fx)",
                    (long long)it->i, a, b, cold->d);
        } else {
            Doc_add(d, STYLE_DIM, ": %lld iteration%s, no steady state", (long long)it->i,
                    it->i == 1 ? "" : "s");
        }
        Doc_link(d, DOC_LINK_SCREEN, "runs");
    }
}

/* GPU idle gaps: their count and total (the union of idle time per device, so the total is
 * GPU idle, never more than the wall time) and the non-empty size buckets. */
static void idle_gaps_line(Doc* d, int lw, const TimelineSummary* tl) {
    char a[64], label[64];
    Format_durationAuto(a, sizeof(a), tl->idle_ns);
    Doc_field(d, lw, "Idle gaps", STYLE_NUMBER, "%lld, %s in all (GPU idle; l: the largest)",
              (long long)tl->idle_gaps, a);
    const GapBuckets* b = &tl->idle_buckets;
    for (int i = 0; i <= b->nbounds; i++) {
        if (b->count[i] > 0) {
            GapBuckets_label(b, i, label, sizeof(label));
            Format_durationAuto(a, sizeof(a), b->total_ns[i]);
            Doc_add(d, STYLE_DIM, "%s %s: %lld = %s", i ? ";" : " ", label,
                    (long long)b->count[i], a);
        }
    }
}

/* GPU busy and idle, and whether launches bound the run: by what they cost the wall (the
 * advice's figures: launch-overhead idle and kernels under 10 us), never by the share of
 * kernel time in short kernels. */
static void busy_lines(Doc* d, const SummaryData* s, int pending) {
    const TimelineSummary* tl = s->timeline;
    const AdviceList* l = s->advice;
    char a[64], b[64], c[64];
    if (pending) {
        Doc_field(d, LW, "GPU busy/idle", STYLE_DIM, "computing...");
    } else if (tl && tl->available) {
        Format_durationAuto(a, sizeof(a), tl->busy_ns);
        Format_durationAuto(b, sizeof(b), tl->idle_ns);
        Format_durationAuto(c, sizeof(c), tl->wall_ns);
        Doc_field(d, LW, "GPU busy/idle", tl->idle_pct >= 25 ? STYLE_WARNING : STYLE_NUMBER,
                  "busy %s, idle %s (%.2f%%) of %s device wall", a, b, tl->idle_pct, c);
        if (l && l->has_launch && l->launch_idle_ns >= 0) {
            Format_durationAuto(a, sizeof(a), l->launch_idle_ns);
            if (l->rank >= 0) { /* a job: the figures are its critical rank's */
                snprintf(b, sizeof(b), "rank %d's wall", l->rank);
            } else {
                snprintf(b, sizeof(b), "the wall");
            }
            Doc_field(d, LW, "Launch-bound", l->launch_bound ? STYLE_WARNING : STYLE_NUMBER,
                      "%s: launches take %.2f%% of %s (launch-overhead idle %s, "
                      "kernels < 10 us %.2f%%)", l->launch_bound ? "yes" : "no",
                      l->launch_cost_pct, b, a, l->short_wall_pct);
        } else if (l && l->has_launch) { /* no host layer: the short kernels alone */
            Doc_field(d, LW, "Launch-bound", l->launch_bound ? STYLE_WARNING : STYLE_NUMBER,
                      "%s: kernels < 10 us take %.2f%% of the wall (no launch calls traced)",
                      l->launch_bound ? "yes" : "no", l->launch_cost_pct);
        }
    } else {
        Doc_field(d, LW, "GPU busy/idle", STYLE_DIM, "unknown: no per-dispatch timestamps");
    }
}

/* What was loaded and the GEMM / non-GEMM split over the basis of the ceilings; a folder of
 * stacks only says where their time is instead of "0 kernels (aggregated stats only)". */

static void totals_lines(Doc* d, const SummaryData* s, int lw, int barw) {
    const Totals* t = &s->totals;
    char a[64];
    if (t->kernels == 0 && s->stacks_ns > 0) {
        Format_durationAuto(a, sizeof(a), s->stacks_ns);
        Doc_field(d, lw, "Call stacks", STYLE_NUMBER,
                  "%s in all over %" PRId64 " calls (no device kernels loaded)", a,
                  s->stacks_samples);
        if (s->stacks_hot[0]) {
            Doc_field(d, lw, "Most self", STYLE_NAME, "%s", s->stacks_hot);
            Doc_add(d, STYLE_NUMBER, "  %.2f%%", s->stacks_hot_pct);
        }
        Doc_field(d, lw, "", STYLE_DIM, "6 opens the Stacks tree: where the time is, by call path");
        return;
    }
    Format_durationAuto(a, sizeof(a), t->kernel_ns);
    Doc_field(d, lw, "Device kernels", STYLE_NUMBER,
              "%s in %" PRId64 " dispatches of %" PRId64 " kernels (%s)", a, t->dispatches,
              t->kernels, t->per_dispatch ? "per-dispatch data" : "aggregated stats only");
    busy_lines(d, s, s->pending && t->per_dispatch);
    if (t->kernel_ns <= 0) {
        return;
    }
    /* one basis: over wall time the shares are of the wall too (with GPU idle the rest) */
    double B = s->basis_ns > 0 ? (double)s->basis_ns : (double)t->kernel_ns;
    double p[2] = {(double)t->gemm_ns / B, (double)(t->kernel_ns - t->gemm_ns) / B};
    for (int g = 0; g < 2; g++) {
        /* the ceiling is over the group's work: waiting for a straggler is not an opportunity */
        double wait = (g == 0) == (t->wait_gemm != 0) ? (double)t->wait_ns / B : 0;
        Format_ratio(a, sizeof(a), Amdahl_ceiling(p[g] - wait));
        Doc_field(d, lw, g ? "non-GEMM" : "GEMM", g ? STYLE_NONGEMM : STYLE_GEMM, "%6.2f%% ",
                  100 * p[g]);
        Doc_bar(d, g ? STYLE_NONGEMM : STYLE_GEMM, p[g], barw);
        Doc_add(d, STYLE_DEFAULT, "%*s", (int)(barw - (int)(p[g] * barw)) + 1, "");
        Doc_add(d, STYLE_DEFAULT, "ceiling %s", a);
        if (s->wall_basis && g == 0) {
            Doc_add(d, STYLE_DIM, " (of wall time)");
        }
        if (wait > 0) {
            Doc_add(d, STYLE_DIM, " (without its %.2f%% waiting)", 100 * wait);
        }
    }
}

/* A field whose text wraps at spaces within width (the lines after the first under it). */
static void wrapped_field(Doc* d, const char* label, Style st, const char* text, int width) {
    int w = width - LW - 3 > 20 ? width - LW - 3 : 20;
    for (int first = 1; first || *text; first = 0) {
        int n = (int)strlen(text);
        if (n > w) {
            n = w;
            while (n > w / 2 && text[n] != ' ') {
                n--;
            }
            n = text[n] == ' ' ? n : w;
        }
        Doc_field(d, LW, first ? label : "", st, "%.*s", n, text);
        text += n;
        while (*text == ' ') {
            text++;
        }
    }
}

/* Several runs of one program: the run the figures are of and why, the runs not added; or
 * that the figures are a total over runs, as asked. */
static void scope_lines(Doc* d, const SummaryData* s, int width) {
    char t[1400];
    if (s->scope_total > 0) {
        snprintf(t, sizeof(t), "all %d runs added together: a total over runs, as asked "
                 "(R: back to one run)", s->scope_total);
        wrapped_field(d, "Runs", STYLE_WARNING, t, width);
        return;
    }
    if (!s->scope_run[0]) {
        return;
    }
    if (s->scope_why[0]) {
        snprintf(t, sizeof(t), "%s, the most complete timed run: %s%s%s", s->scope_run,
                 s->scope_why, s->scope_with[0] ? "; with " : "", s->scope_with);
    } else {
        snprintf(t, sizeof(t), "%s (picked)", s->scope_run);
    }
    wrapped_field(d, "Run", STYLE_NAME, t, width); /* no link: the first link stays item 1 */
    snprintf(t, sizeof(t), "%s (R: pick a run, or all runs added)",
             s->scope_left[0] ? s->scope_left : s->scope_why[0] ? "none" : "the other runs");
    wrapped_field(d, "Not added", STYLE_DIM, t, width);
}

/* The first lines, all on the first screen at 80x24: device kernel time, GPU busy and idle,
 * the launch-bound share, the GEMM / non-GEMM ceilings. */
static void head(Doc* d, const SummaryData* s, int width) {
    Doc_line(d);
    Doc_field(d, LW, "Trace", STYLE_NAME, "%s", s->title ? s->title : "");
    for (int i = 0, first = 1; i < s->nhealth; i++) {
        if (strcmp(s->health[i].kind, "no-log") != 0) {
            char t[HEALTH_LINE_MAX + 4]; /* "! " starts each verdict among the wrapped lines */
            snprintf(t, sizeof(t), "%s%s", s->health[i].warn ? "! " : "", s->health[i].text);
            wrapped_field(d, first ? "Health" : "", s->health[i].warn ? STYLE_WARNING : STYLE_DIM,
                          t, width);
            first = 0;
        }
    }
    scope_lines(d, s, width);
    totals_lines(d, s, LW, bar_width(width));
}

/* Gap row r of the gaps view as a link: "file\tgpu\tstream\tat_ns\tnext kernel". */
static void gap_link(Doc* d, const SummaryData* s, int r) {
    char link[1200];
    const RsCell* fid = cell(s->gaps, r, "file_id");
    const RsCell* gpu = cell(s->gaps, r, "gpu");
    const RsCell* stream = cell(s->gaps, r, "stream");
    const RsCell* at = cell(s->gaps, r, "at_ns");
    snprintf(link, sizeof(link), "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s",
             fid && !fid->null ? fid->i : 0, gpu && !gpu->null ? gpu->i : -1,
             stream && !stream->null ? stream->i : -1, at && !at->null ? at->i : 0,
             text(s->gaps, r, "after"));
    Doc_link(d, DOC_LINK_GAP, link);
}

/* An idle gap as a link, in gap_link's form: the lane of the kernel after it. */
static void idle_gap_link(Doc* d, const IdleGap* g) {
    char link[1200];
    snprintf(link, sizeof(link), "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s",
             g->file, g->gpu, g->stream, g->at_ns, g->next);
    Doc_link(d, DOC_LINK_GAP, link);
}

static const IdleSummary* idle_of(const SummaryData* s) {
    return s->advice && s->advice->idle ? s->advice->idle : NULL;
}

/* What Enter on an opportunity opens: where its evidence is. Every opportunity leads
 * somewhere: GPU idle -> the Trace at the largest gap; a straggler -> Ranks on its rank; a
 * category -> its kernels; launch-bound -> the short kernels; copies -> Copies; a kernel ->
 * its detail; run-to-run variability -> Runs. */
static void advice_link(Doc* d, const Advice* a, const SummaryData* s) {
    char t[1100];
    switch (a->kind) {
    case ADV_CATEGORY:
        Doc_link(d, DOC_LINK_CATEGORY, a->target);
        break;
    case ADV_IDLE:
        if (idle_of(s) && a->cause >= 0 && idle_of(s)->largest[a->cause].gap_ns > 0) {
            idle_gap_link(d, &idle_of(s)->largest[a->cause]); /* its cause's largest gap */
        } else if (idle_of(s) && idle_of(s)->ntop > 0) {
            idle_gap_link(d, &idle_of(s)->top[0]);
        } else if (s->gaps && s->gaps->nrows > 0 && cell(s->gaps, 0, "file_id")) {
            gap_link(d, s, 0);
        } else {
            Doc_link(d, DOC_LINK_SCREEN, "trace-gap");
        }
        break;
    case ADV_COPIES:
        Doc_link(d, DOC_LINK_SCREEN, "copies");
        break;
    case ADV_LAUNCH:
        Doc_link(d, DOC_LINK_SCREEN, "short-kernels");
        break;
    case ADV_STRAGGLER: /* target: the straggler's run label */
        snprintf(t, sizeof(t), "ranks\t%s", a->target);
        Doc_link(d, DOC_LINK_SCREEN, t);
        break;
    case ADV_VARIABILITY:
        Doc_link(d, DOC_LINK_SCREEN, "runs");
        break;
    default:
        if (a->target[0]) {
            Doc_link(d, DOC_LINK_KERNEL, a->target);
        }
        break;
    }
}

/* Words of s over lines of at most room cells (a word longer than a line is cut); each line
 * into out[i] (at most max). Returns the lines, those past max counted. */
static int wrap_words(const char* s, int room, char out[][512], int max) {
    int n = 0;
    char line[512] = "";
    const char* p = s;
    while (*p) {
        while (*p == ' ') {
            p++;
        }
        const char* e = p;
        while (*e && *e != ' ') {
            e++;
        }
        if (e == p) {
            break;
        }
        char word[512];
        snprintf(word, sizeof(word), "%.*s", (int)(e - p), p);
        char next[1100];
        snprintf(next, sizeof(next), "%s%s%s", line, line[0] ? " " : "", word);
        if (line[0] && Format_width(next) > room) {
            if (n < max) {
                snprintf(out[n], 512, "%s", line);
            }
            n++;
            Format_cutEnd(word, room, line, sizeof(line));
        } else {
            Format_cutEnd(next, room, line, sizeof(line));
        }
        p = e;
    }
    if (line[0]) {
        if (n < max) {
            snprintf(out[n], 512, "%s", line);
        }
        n++;
    }
    return n;
}

enum { ADVICE_TOP = 5, FIX_LINES = 8 };

int SummaryView_adviceRows(const SummaryData* s) {
    const AdviceList* l = s->pending ? NULL : s->advice;
    int rows = 0;
    for (int i = 0; l && i < l->n && Advice_rank(l, i) <= ADVICE_TOP; i++) {
        if (!l->items[i].nested || Advice_rank(l, i - 1) <= ADVICE_TOP) {
            rows = i + 1;
        }
    }
    return rows;
}

/* The fix and the evidence of item i: "fix 2: ..." then "evidence: ...", wrapped. */
static int fix_text(const AdviceList* l, int i, int room, char out[][512], int max) {
    const Advice* a = &l->items[i];
    char buf[1200];
    int r = Advice_rank(l, i);
    if (r > 0) {
        snprintf(buf, sizeof(buf), "fix %d: %s", r, a->why);
    } else {
        snprintf(buf, sizeof(buf), "fix (of which): %s", a->why);
    }
    int n = wrap_words(buf, room, out, max);
    snprintf(buf, sizeof(buf), "%s: %s", a->layer, a->evidence);
    return n + wrap_words(buf, room, n < max ? out + n : out, n < max ? max - n : 0);
}

/* Under the list, the selected item's fix and evidence, in as many lines as the longest of
 * the shown items takes: the lines below keep their places whichever item is selected. */
static void advice_fix(Doc* d, const SummaryData* s, int width, int rows) {
    const AdviceList* l = s->advice;
    int room = width - 4 > 20 ? width - 4 : 20;
    char lines[FIX_LINES][512];
    int height = 0;
    for (int i = 0; i < rows; i++) {
        int h = fix_text(l, i, room, lines, 0);
        height = h > height ? h : height;
    }
    height = height < FIX_LINES ? height : FIX_LINES;
    int sel = s->advice_sel >= 0 && s->advice_sel < rows ? s->advice_sel : 0;
    int n = fix_text(l, sel, room, lines, FIX_LINES);
    for (int i = 0; i < height; i++) {
        Doc_line(d);
        if (i < n) {
            Doc_add(d, i == 0 ? STYLE_DEFAULT : STYLE_DIM, "  %s", lines[i]);
        }
    }
}

static void advice(Doc* d, const SummaryData* s, int width) {
    const AdviceList* l = s->advice;
    if (s->pending) {
        Doc_line(d);
        Doc_line(d);
        Doc_add(d, STYLE_TITLE, "What to optimise first");
        Doc_add(d, STYLE_DIM, "  computing...");
        return;
    }
    if (!l) {
        return;
    }
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "What to optimise first");
    char cut[512];
    Format_cutEnd(l->basis_note, width - 40 > 12 ? width - 40 : 12, cut, sizeof(cut));
    Doc_add(d, STYLE_DIM, "  (speedup at most; of %s)", cut);
    for (int i = 0; i < l->nwarn; i++) {
        Format_cutEnd(l->warnings[i], width - 4, cut, sizeof(cut));
        Doc_line(d);
        Doc_add(d, STYLE_WARNING, "  ! %s", cut);
    }
    /* one basis for the list: "wall" or "kernel" on every row */
    const char* basis = strncmp(l->basis, "wall", 4) == 0 ? "wall" : "kernel";
    int rows = SummaryView_adviceRows(s);
    for (int i = 0; i < rows; i++) {
        const Advice* a = &l->items[i];
        char c[32], num[16];
        Advice_ceilingText(a, c, sizeof(c));
        Doc_line(d);
        if (a->nested) { /* "     of which 1.35x  26.2% wall  direct_copy…" */
            Doc_add(d, STYLE_DIM, "     of which");
            Doc_add(d, STYLE_NUMBER, " %7s%s %5.1f%% %-6s ", c, a->capped ? "~" : " ",
                    100.0 * a->share, basis);
            Format_cutEnd(a->what, width - 38 > 10 ? width - 38 : 10, cut, sizeof(cut));
        } else {
            snprintf(num, sizeof(num), "%d.", Advice_rank(l, i));
            Doc_add(d, STYLE_NUMBER, "  %-3s %7s%s %5.1f%% %-6s ", num, c, a->capped ? "~" : " ",
                    100.0 * a->share, basis);
            Format_cutEnd(a->what, width - 30 > 10 ? width - 30 : 10, cut, sizeof(cut));
        }
        Doc_add(d, STYLE_NAME, "%s", cut);
        advice_link(d, a, s);
    }
    if (l->n == 0) {
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "  nothing holds 5%% or more of its basis");
        return;
    }
    char t[512];
    Advice_togetherText(l, t, sizeof(t));
    if (t[0]) {
        Format_cutEnd(t, width - 4, cut, sizeof(cut));
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "  %s", cut);
    }
    advice_fix(d, s, width, rows);
}

/* A ceiling, or "wait" where there is none: time waiting for a straggler is not work. */
static void ceiling_text(char* buf, size_t cap, const RsCell* c) {
    if (!c || c->null) {
        snprintf(buf, cap, "wait");
    } else {
        Format_ratio(buf, cap, c->d);
    }
}

static void top_kernels(Doc* d, const SummaryData* s, int width) {
    char a[64];
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "Top kernels");
    Doc_add(d, STYLE_DIM, "  (share of %s, ceiling if the kernel took no time)",
            s->wall_basis ? "wall time" : "device kernel time");
    int nw = width - 34;
    if (nw < 20) {
        nw = 20;
    }
    for (int r = 0; s->hotspots && r < s->hotspots->nrows && r < 5; r++) {
        char name[2048], fit[2048];
        Format_cutName(text(s->hotspots, r, "short_name"), nw, name, sizeof(name));
        Format_fit(name, nw, 0, fit, sizeof(fit));
        Doc_line(d);
        Doc_add(d, STYLE_NAME, "  %s", fit);
        Format_fit(text(s->hotspots, r, "category"), 12, 0, name, sizeof(name));
        Doc_add(d, STYLE_CATEGORY, " %s", name);
        ceiling_text(a, sizeof(a), cell(s->hotspots, r, "ceiling"));
        Doc_add(d, STYLE_NUMBER, "%6.2f%% %7s", cell(s->hotspots, r, "pct")->d, a);
        Doc_link(d, DOC_LINK_KERNEL, text(s->hotspots, r, "name"));
    }
}

static void categories(Doc* d, const SummaryData* s, int width) {
    char a[64];
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "Categories");
    Doc_add(d, STYLE_DIM, "  (shares and Amdahl ceilings over %s)",
            s->wall_basis ? "wall time" : "device kernel time");
    int shown = 0;
    for (int r = s->categories ? s->categories->pinned : 0;
         s->categories && r < s->categories->nrows && shown < 8; r++) {
        const RsCell* tot = cell(s->categories, r, "total_ns");
        if (!tot || tot->i == 0) {
            continue;
        }
        char fit[64];
        Format_fit(text(s->categories, r, "category"), 12, 0, fit, sizeof(fit));
        int gemm = strcmp(text(s->categories, r, "group"), "GEMM") == 0;
        double p = cell(s->categories, r, "pct")->d;
        ceiling_text(a, sizeof(a), cell(s->categories, r, "ceiling"));
        Doc_line(d);
        Doc_add(d, gemm ? STYLE_GEMM : STYLE_CATEGORY, "  %s", fit);
        Doc_add(d, STYLE_NUMBER, "%6.2f%% %7s  ", p, a);
        Doc_bar(d, gemm ? STYLE_GEMM : STYLE_BAR, p / 100.0, bar_width(width));
        Doc_link(d, DOC_LINK_CATEGORY, text(s->categories, r, "category"));
        shown++;
    }
}

/* PyTorch / rocpd memory peaks, one line per device (host memory left to the report):
 * allocated, reserved, the op at the peak; the allocator's figures, said as such. */
static void memory_rows(Doc* d, const SummaryData* s) {
    const ResultSet* m = s->memory;
    int shown = 0;
    for (int r = 0; m && r < m->nrows && shown < 4; r++) {
        const RsCell* dev = cell(m, r, "device");
        const RsCell* peak = cell(m, r, "peak_allocated");
        if (!dev || dev->i < 0 || !peak || peak->null) {
            continue;
        }
        char a[32], b[32];
        Format_bytes(a, sizeof(a), peak->i);
        Doc_field(d, LW, shown ? "" : "Memory peak", STYLE_NUMBER,
                  "device %" PRId64 ": %s allocated", dev->i, a);
        const RsCell* res = cell(m, r, "peak_reserved");
        if (res && !res->null) {
            Format_bytes(b, sizeof(b), res->i);
            Doc_add(d, STYLE_NUMBER, ", %s reserved", b);
        }
        const char* op = text(m, r, "op");
        if (op[0]) {
            Doc_add(d, STYLE_NUMBER, ", in %s", op);
        }
        shown++;
    }
    if (shown) {
        Doc_field(d, LW, "", STYLE_DIM, "(the allocator's figures; the device's used memory is "
                                         "more: --view memory)");
    }
}

static void host(Doc* d, const SummaryData* s) {
    const Totals* t = &s->totals;
    char a[64];
    if (t->var_kernels > 0) {
        Format_durationAuto(a, sizeof(a), t->var_ns);
        Doc_field(d, LW, "Variability", STYLE_NUMBER,
                  "%s above golden = %.2f%% of their kernel time, %" PRId64
                  " outlier%s (|z| > 3)",
                  a, t->var_base_ns > 0 ? 100.0 * (double)t->var_ns / (double)t->var_base_ns : 0.0,
                  t->outliers, t->outliers == 1 ? "" : "s");
    } else if (t->kernels > 0) {
        Doc_field(d, LW, "Variability", STYLE_DIM, "n/a (aggregated stats only: no dispatches)");
    }
    if (t->api_calls > 0) {
        Format_durationAuto(a, sizeof(a), t->api_ns);
        Doc_field(d, LW, "Host API", STYLE_NUMBER,
                  "%s in %" PRId64 " calls (host layer: never added to kernel time)", a,
                  t->api_calls);
    }
    if (t->copy_calls > 0) {
        Format_durationAuto(a, sizeof(a), t->copy_ns);
        Doc_field(d, LW, "Copies", STYLE_NUMBER, "%s in %" PRId64 " copies", a, t->copy_calls);
        Doc_link(d, DOC_LINK_SCREEN, "copies");
    }
    memory_rows(d, s);
    if (t->mem_allocs > 0) {
        Format_bytes(a, sizeof(a), t->mem_peak_bytes);
        Doc_field(d, LW, "Memory", STYLE_NUMBER, "%s live at the peak, %" PRId64 " allocations",
                  a, t->mem_allocs);
        if (t->scratch_peak_bytes > 0) {
            Format_bytes(a, sizeof(a), t->scratch_peak_bytes);
            Doc_add(d, STYLE_NUMBER, "; scratch %s at its peak", a);
        }
    }
}

/* The largest device-idle gaps (never a stream's wait while another stream of the device
 * works), each with its cause and main host activity, a link to the gap. */
static void gap_rows(Doc* d, const SummaryData* s, int width) {
    const IdleSummary* is = idle_of(s);
    char a[64], b[64], host[64], cut[512];
    for (int r = 0; is && r < is->ntop; r++) {
        const IdleGap* g = &is->top[r];
        Format_durationAuto(a, sizeof(a), g->gap_ns);
        Format_durationAuto(b, sizeof(b), g->at_ns);
        Format_cutName(g->host, 24, host, sizeof(host));
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "  %*s %9s idle at %9s, ", LW, "", a, b);
        Doc_add(d, STYLE_WARNING, "%s", Idle_causeName(g->cause));
        int used = LW + 2 + 30 + (int)strlen(Idle_causeName(g->cause));
        if (strcmp(g->host, "(untraced)") == 0) {
            if (g->cause != IDLE_UNKNOWN) {
                Doc_add(d, STYLE_DIM, " (untraced)");
                used += 11;
            }
        } else {
            Doc_add(d, STYLE_DIM, " (%s)", host);
            used += (int)strlen(host) + 3;
        }
        Format_cutName(g->next[0] ? g->next : "the end of the run", width - used - 10 > 20
                                                                        ? width - used - 10
                                                                        : 20,
                       cut, sizeof(cut));
        Doc_add(d, STYLE_DIM, ", %s ", g->next[0] ? "before" : "until");
        Doc_add(d, STYLE_NAME, "%s", cut);
        idle_gap_link(d, g);
    }
}

/* Idle time by cause (idle.h) with the ceiling of each, and the waits that are not idle. */
static void idle_causes_line(Doc* d, const SummaryData* s) {
    const IdleSummary* is = idle_of(s);
    const TimelineSummary* tl = s->timeline;
    if (!is || !is->explained || is->idle_ns <= 0) {
        return;
    }
    char a[64], c[32];
    Doc_field(d, LW, "Idle causes", STYLE_NUMBER, "%s", "");
    const char* sep = "";
    for (int k = 0; k < IDLE_CAUSE_COUNT; k++) {
        if (!Idle_causeIsIdle((IdleCause)k) || is->ns[k] <= 0) {
            continue;
        }
        Format_durationAuto(a, sizeof(a), is->ns[k]);
        Format_ratio(c, sizeof(c),
                     Amdahl_ceiling(tl->wall_ns > 0 ? (double)is->ns[k] / (double)tl->wall_ns : 0));
        Doc_add(d, STYLE_NUMBER, "%s%s %s (at most %s)", sep, Idle_causeName(k), a, c);
        sep = ", ";
    }
    if (is->ns[IDLE_OTHER_STREAM] > 0 || is->ns[IDLE_RANK_WAIT] > 0) {
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "  %*s not idle: ", LW, "");
        sep = "";
        if (is->ns[IDLE_OTHER_STREAM] > 0) {
            Format_durationAuto(a, sizeof(a), is->ns[IDLE_OTHER_STREAM]);
            Doc_add(d, STYLE_DIM, "streams waiting while another stream works %s", a);
            sep = "; ";
        }
        if (is->ns[IDLE_RANK_WAIT] > 0) {
            Format_durationAuto(a, sizeof(a), is->ns[IDLE_RANK_WAIT]);
            Doc_add(d, STYLE_DIM, "%scollectives waiting for a slower rank %s", sep, a);
        }
    }
}

static void timeline(Doc* d, const SummaryData* s, int width) {
    const TimelineSummary* tl = s->timeline;
    if (s->pending && s->totals.per_dispatch) {
        Doc_line(d);
        Doc_line(d);
        Doc_add(d, STYLE_TITLE, "Timeline");
        Doc_add(d, STYLE_DIM, "  computing...");
        return;
    }
    if (!tl || !tl->available) {
        return;
    }
    char a[64], b[64];
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "Timeline");
    Doc_add(d, STYLE_DIM, "  (per-dispatch timestamps%s)",
            s->wall_basis ? "; ceilings above are over wall time" : "");
    Format_durationAuto(a, sizeof(a), tl->gap_p50_ns);
    Format_durationAuto(b, sizeof(b), tl->gap_max_ns);
    Doc_field(d, LW, "Kernel gaps", STYLE_NUMBER,
              "median %s, max %s (kernel to kernel, not GPU idle)", a, b);
    idle_gaps_line(d, LW, tl);
    if (s->hta_queue_events > 0) { /* HTA's queue length, sampled at its events */
        Doc_field(d, LW, "Queue length", STYLE_NUMBER,
                  "0 at %.1f%% of its %" PRId64 " events (HTA's: +1 at a launch call, -1 when "
                  "its GPU op starts; %d stream%s)",
                  100.0 * (double)s->hta_queue_empty / (double)s->hta_queue_events,
                  s->hta_queue_events, s->hta_queue_lanes, s->hta_queue_lanes == 1 ? "" : "s");
    }
    if (s->queue_lanes > 0) { /* dcutop's; the Trace draws it as its Queue row */
        Doc_field(d, LW, "Queue depth", STYLE_NUMBER, "empty %.1f%% of the time (dcutop's: "
                  "ops launched and not ended, kernels, memsets and copies, %d stream%s)",
                  s->queue_empty_pct, s->queue_lanes, s->queue_lanes == 1 ? "" : "s");
    }
    idle_causes_line(d, s);
    gap_rows(d, s, width);
    if (s->runs) {
        summary_runs(d, s->runs, LW, width);
    } else if (tl->iterations > 1) {
        Format_durationAuto(a, sizeof(a), tl->first_iter_span_ns);
        Format_durationAuto(b, sizeof(b), (int64_t)tl->steady_iter_span_ns);
        Doc_field(d, LW, "Iterations", STYLE_NUMBER,
                  "%d (%s): first %s, steady %s on average (cold start %.2fx%s)",
                  tl->iterations,
                  tl->iter_source == ITER_ANNOTATION ? "ProfilerStep#" : "repeating sequence",
                  a, b, tl->cold_ratio, tl->warmup_dispatches > 0 ? ", after a warm-up" : "");
    }
    if (tl->steady_h2d + tl->steady_d2h > 0) {
        Doc_line(d);
        Doc_add(d, STYLE_WARNING,
                "  ! %lld host-to-device and %lld device-to-host copies inside the steady "
                "state (synchronous copies in the loop?)",
                (long long)tl->steady_h2d, (long long)tl->steady_d2h);
        Doc_link(d, DOC_LINK_SCREEN, "copies");
    }
}

Doc* SummaryView_build(const SummaryData* s, int width) {
    Doc* d = Doc_new();
    const Totals* t = &s->totals;
    head(d, s, width);
    advice(d, s, width);
    top_kernels(d, s, width);
    categories(d, s, width);
    if (t->api_calls > 0 || t->copy_calls > 0 || t->kernels > 0) {
        Doc_line(d);
        host(d, s);
    }
    timeline(d, s, width);
    Doc_line(d);
    Doc_line(d);
    int used = 0, skipped = 0;
    for (int r = 0; s->files && r < s->files->nrows; r++) {
        const char* st = text(s->files, r, "status");
        if (strncmp(st, "used", 4) == 0) {
            used++;
        } else if (strncmp(st, "skipped", 7) == 0 || strncmp(st, "error", 5) == 0) {
            skipped++;
        }
    }
    Doc_add(d, STYLE_TITLE, "Files");
    Doc_add(d, STYLE_DEFAULT, "  %d used, %d skipped or unreadable, %d in all (0 lists them)",
            used, skipped, s->files ? s->files->nrows : 0);
    if (s->nhealth == 1 && strcmp(s->health[0].kind, "no-log") == 0) {
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "  Health: %s", s->health[0].text);
    }
    int warned = 0;
    if (t->pmc) {
        Doc_line(d);
        Doc_add(d, STYLE_WARNING, "  ! Kernel times come from a PMC (counter) run: instrumented "
                                  "timings are not performance (a 0.0185 ms kernel measured "
                                  "1.48 ms).");
        warned = 1;
    }
    if (s->rows_rejected > 0) {
        Doc_line(d);
        Doc_add(d, STYLE_WARNING, "  ! %" PRId64 " rows rejected while loading: see the Files "
                                  "screen (0) and the messages on standard error.",
                s->rows_rejected);
        warned = 1;
    }
    if (!t->per_dispatch && t->kernel_ns > 0) {
        Doc_line(d);
        Doc_add(d, STYLE_DIM, "  Aggregated stats only: no min/max/histograms or dispatch lists.");
    }
    (void)warned;
    return d;
}
