/* diff_view.c - the Diff screen's summary: device kernel time before/after with the speedup
 * and noise, wall span, step time, GEMM share and the Amdahl ceilings, then the notes. */
#include "dcutop/diff_view.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/amdahl.h"
#include "dcutop/format.h"

static void dur(char* buf, size_t cap, double ns) {
    if (isnan(ns)) {
        snprintf(buf, cap, "-");
    } else {
        Format_durationAuto(buf, cap, (int64_t)llround(ns));
    }
}

/* "label  text" from line y, the text wrapped at spaces to the canvas width (continuation
 * lines under the text, never cut mid-word), as far as y_end; returns the lines used. */
static int line(Canvas* c, int y, int y_end, const char* label, Style st, const char* text) {
    if (y >= y_end) {
        return 0;
    }
    Canvas_put(c, y, 1, STYLE_LABEL, label, -1);
    int avail = c->w - 13 - 1;
    if (avail < 20) {
        avail = 20;
    }
    int n = 0;
    const char* p = text;
    do {
        const char* q = p;
        size_t len = 0;
        int cells = 0, gap = 0; /* gap: the spaces before the next word, kept as written */
        while (*q) {
            size_t wl = strcspn(q, " ");
            char word[512];
            snprintf(word, sizeof(word), "%.*s", (int)(wl < 511 ? wl : 511), q);
            int need = cells + (cells ? gap : 0) + Format_width(word);
            if (cells && need > avail) {
                break;
            }
            cells = need;
            q += wl;
            len = (size_t)(q - p);
            gap = (int)strspn(q, " ");
            q += gap;
        }
        char buf[1024];
        snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
        Canvas_put(c, y + n, 13, st, buf, -1);
        n++;
        p = q;
    } while (*p && y + n < y_end);
    return n;
}

int DiffView_summary(const Diff* d, Canvas* c, int y0, int max_h) {
    int y = y0, end = y0 + max_h;
    char a[64], b[64], x[64], r[64], t[1024];
    const DiffRow* tot = &d->total;
    dur(a, sizeof(a), tot->before.mean);
    dur(b, sizeof(b), tot->after.mean);
    dur(x, sizeof(x), tot->delta);
    char pct[32] = "no baseline time";
    if (!isnan(tot->delta_pct)) {
        snprintf(pct, sizeof(pct), "%+.2f%%", tot->delta_pct);
    }
    if (tot->before.mean > 0 && tot->after.mean > 0) {
        Format_ratio(r, sizeof(r), tot->before.mean / tot->after.mean);
    } else {
        snprintf(r, sizeof(r), "-");
    }
    snprintf(t, sizeof(t), "%s -> %s  delta %s (%s)  speedup %s  %s noise", a, b, x, pct, r,
             Diff_noiseName(tot->noise));
    y += line(c, y, end, "Kernel time", tot->noise == DIFF_NOISE_OUTSIDE ? STYLE_NUMBER
                                                                          : STYLE_DIM, t);
    if (d->na > 1 || d->nb > 1) {
        char a2[64], a3[64], b2[64], b3[64];
        dur(a2, sizeof(a2), tot->before.min);
        dur(a3, sizeof(a3), tot->before.max);
        dur(b2, sizeof(b2), tot->after.min);
        dur(b3, sizeof(b3), tot->after.max);
        snprintf(t, sizeof(t), "A %d runs %s..%s   B %d runs %s..%s", d->na, a2, a3, d->nb, b2,
                 b3);
        y += line(c, y, end, "Repeats", STYLE_DEFAULT, t);
    }
    if (d->wall_before.n && d->wall_after.n) {
        dur(a, sizeof(a), d->wall_before.mean);
        dur(b, sizeof(b), d->wall_after.mean);
        snprintf(t, sizeof(t), "%s -> %s", a, b);
    } else {
        snprintf(t, sizeof(t), "not comparable (no timestamps on a side)");
    }
    y += line(c, y, end, "Wall span", STYLE_DEFAULT, t);
    if (d->steps_before.n && d->steps_after.n) {
        snprintf(t, sizeof(t), "%.4g ms -> %.4g ms (median, no profiler)  %s noise",
                 d->steps_before.mean, d->steps_after.mean, Diff_noiseName(d->steps_noise));
        y += line(c, y, end, "Step time", d->steps_noise == DIFF_NOISE_OUTSIDE ? STYLE_NUMBER
                                                                             : STYLE_DIM, t);
        const char* result = "none";
        char v[900];
        Diff_verdict(d, v, sizeof(v), &result);
        snprintf(t, sizeof(t), "%s", result);
        for (char* u = t; *u; u++) {
            *u = (char)(*u >= 'a' && *u <= 'z' ? *u - 32 : *u);
        }
        size_t l = strlen(t);
        snprintf(t + l, sizeof(t) - l, ": %s", v);
        y += line(c, y, end, "Verdict", strcmp(result, "trusted") == 0 ? STYLE_NUMBER
                                                                        : STYLE_WARNING, t);
    }
    Format_ratio(a, sizeof(a), d->gemm_ceil_before);
    Format_ratio(b, sizeof(b), d->gemm_ceil_after);
    snprintf(t, sizeof(t), "%.2f%% -> %.2f%%  ceiling %s -> %s   bound: %s %.1f%% -> %s %.1f%%",
             d->gemm_share_before, d->gemm_share_after, a, b,
             d->top_before[0] ? d->top_before : "-",
             isnan(d->top_share_before) ? 0.0 : d->top_share_before,
             d->top_after[0] ? d->top_after : "-",
             isnan(d->top_share_after) ? 0.0 : d->top_share_after);
    y += line(c, y, end, "GEMM share", STYLE_DEFAULT, t);
    if (d->by_op) {
        snprintf(t, sizeof(t), "ops %d gone, %d new; kernels %d gone, %d new", d->ops_gone,
                 d->ops_new, d->unmatched_a, d->unmatched_b);
    } else {
        snprintf(t, sizeof(t), "%d gone, %d new%s", d->unmatched_a, d->unmatched_b,
                 d->match == DIFF_MATCH_SHORT ? " (matched by short name: fuzzy rows marked)"
                                              : "");
    }
    y += line(c, y, end, "Unmatched", STYLE_DEFAULT, t);
    if (d->matching[0]) {
        y += line(c, y, end, "Matched", STYLE_DIM, d->matching);
    }
    for (const char* p = d->notes; *p && y < end;) {
        const char* nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        snprintf(t, sizeof(t), "%.*s", n, p);
        y += line(c, y, end, "Note", STYLE_WARNING, t);
        p += n + (nl ? 1 : 0);
    }
    return y - y0;
}

int DiffView_abbaSummary(const Abba* a, Canvas* c, int y0, int max_h) {
    int y = y0, end = y0 + max_h;
    char t[1024];
    y += line(c, y, end, "A-B-B-A", STYLE_DEFAULT,
              "effect = mean(B) - mean(A); noise = max(|A2 - A1|, |B2 - B1|); trusted when "
              "|effect| > noise");
    for (int i = 0; i < a->nhead; i++) {
        const AbbaRow* r = &a->rows[i];
        const char* src = fabs(r->repeats) > fabs(r->drift) ? "B2-B1" : "drift";
        snprintf(t, sizeof(t), "effect %+.4g ms (%+.2f%%)  noise %.4g ms (%s)  %s%s", r->effect,
                 r->effect_pct, r->noise, src, r->no_noise ? "UNTRUSTED (no noise measured)"
                                               : r->trusted ? "TRUSTED" : "UNTRUSTED",
                 i == a->decides && a->nhead > 1 && !a->disagree ? "  <- decides" : "");
        y += line(c, y, end, strcmp(r->layer, "steps") == 0 ? "Step time" : "Kernel time",
                  r->trusted ? STYLE_NUMBER : STYLE_WARNING, t);
    }
    char v[900];
    AbbaResult res = Abba_result(a);
    snprintf(t, sizeof(t), "%s", Abba_resultName(res));
    for (char* u = t; *u; u++) {
        *u = (char)(*u >= 'a' && *u <= 'z' ? *u - 32 : *u);
    }
    size_t l = strlen(t);
    snprintf(t + l, sizeof(t) - l, ": %s", Abba_verdict(a, v, sizeof(v)));
    y += line(c, y, end, "Verdict", res == ABBA_TRUSTED ? STYLE_NUMBER : STYLE_WARNING, t);
    if (*Abba_disagreement(a, v, sizeof(v))) {
        y += line(c, y, end, "Advice", STYLE_WARNING, v);
    }
    for (const char* p = a->notes; *p && y < end;) {
        const char* nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        snprintf(t, sizeof(t), "%.*s", n, p);
        y += line(c, y, end, "Note", STYLE_WARNING, t);
        p += n + (nl ? 1 : 0);
    }
    return y - y0;
}
