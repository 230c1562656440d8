/* chrome_view.c - see chrome_view.h. */
#include "dcutop/chrome_view.h"

#include <stdio.h>
#include <string.h>

#include "dcutop/format.h"

void ChromeView_header(Canvas* c, int y, const char* left, const char* right) {
    Canvas_fillRow(c, y, 0, STYLE_HEADER);
    int rw = right ? Format_width(right) : 0;
    int lw = c->w - rw - 2;
    /* the left text puts the least important part (the path) last: cut at the end; beside
     * a right part (the filter), whole " | " fields go from the end, so that no figure is
     * cut in the middle and the right part keeps a place of its own */
    char own[1024];
    snprintf(own, sizeof(own), "%s", left);
    while (rw > 0 && Format_width(own) > lw) {
        char* bar = NULL;
        for (char* p = strstr(own, " | "); p; p = strstr(p + 1, " | ")) {
            bar = p;
        }
        if (!bar) {
            break;
        }
        *bar = '\0';
    }
    Canvas_put(c, y, 0, STYLE_HEADER, own, lw > 0 ? lw : 0);
    if (right && rw < c->w) {
        Canvas_put(c, y, c->w - rw, STYLE_HEADER, right, rw);
    }
}

/* Where each tab of the strip goes. The strip tries, in order: every tab by its full name;
 * the current tab by its full name and the others abbreviated (" 3 Cat"); then a window of
 * the abbreviated tabs around the current one, scrolled, with "\u2039" / "\u203a" saying
 * that tabs are hidden on that side. A breadcrumb keeps about 30 cells of its own. */
enum { MAX_STRIP = 24, TRAIL_ROOM = 32 };
typedef struct Strip_ {
    int first, last;        /* the tabs shown */
    int x[MAX_STRIP];       /* where each shown tab starts */
    char label[MAX_STRIP][48];
    int more_left, more_right;
    int end;                /* the first cell after the strip */
} Strip;

static void strip_labels(const ChromeTab* tabs, int n, Strip* s) {
    for (int i = 0; i < n && i < MAX_STRIP; i++) {
        snprintf(s->label[i], sizeof(s->label[i]), " %s %s", tabs[i].key, tabs[i].name);
    }
}

static int span_width(const Strip* s, int first, int last) {
    int w = 1; /* a space after the last tab */
    for (int i = first; i <= last; i++) {
        w += Format_width(s->label[i]);
    }
    return w + (first > 0 ? 1 : 0) + (last >= 0 && s->label[last + 1][0] ? 2 : 0);
}

static void strip_layout(int width, const ChromeTab* tabs, int n, int active, const char* trail,
                         Strip* s) {
    memset(s, 0, sizeof(*s));
    n = n < MAX_STRIP - 1 ? n : MAX_STRIP - 1;
    int room = width - (trail && *trail ? TRAIL_ROOM : 0);
    room = room > 24 ? room : 24;
    active = active >= 0 && active < n ? active : -1;
    s->first = 0;
    s->last = n - 1;
    strip_labels(tabs, n, s);
    /* the longest names give way first, one at a time */
    int shortened[MAX_STRIP] = {0};
    while (span_width(s, 0, n - 1) > room) {
        int best = -1, gain = 0;
        for (int i = 0; i < n; i++) {
            int g = tabs[i].abbrev ? Format_width(tabs[i].name) - Format_width(tabs[i].abbrev) : 0;
            if (i != active && !shortened[i] && g > gain) {
                best = i;
                gain = g;
            }
        }
        if (best < 0) {
            break;
        }
        shortened[best] = 1;
        snprintf(s->label[best], sizeof(s->label[best]), " %s %s", tabs[best].key,
                 tabs[best].abbrev);
    }
    if (span_width(s, 0, n - 1) > room) {
        /* a window around the current tab: as many tabs after it as fit, then before it */
        int a = active >= 0 ? active : 0;
        s->first = s->last = a;
        for (;;) {
            if (s->last + 1 < n && span_width(s, s->first, s->last + 1) <= room) {
                s->last++;
            } else if (s->first > 0 && span_width(s, s->first - 1, s->last) <= room) {
                s->first--;
            } else {
                break;
            }
        }
    }
    s->more_left = s->first > 0;
    s->more_right = s->last < n - 1;
    int x = s->more_left ? 1 : 0; /* "\u2039 2 Hot": the tab's own space after the mark */
    for (int i = s->first; i <= s->last; i++) {
        s->x[i] = x;
        x += Format_width(s->label[i]);
    }
    s->end = x + 1 + (s->more_right ? 2 : 0);
}

/* The next " > " between two steps at or after p; NULL: none. One followed by '>' belongs to
 * a kernel name ("ReduceOp<float, 4> >"), not to the trail. */
static const char* next_sep(const char* p) {
    for (const char* s = strstr(p, " > "); s; s = strstr(s + 1, " > ")) {
        if (s[3] != '>') {
            return s;
        }
    }
    return NULL;
}

/* Shortens the longest step of trail (a kernel name) so that trail fits width; 0 when that
 * step would keep fewer than 12 cells. */
static int cut_longest_step(const char* trail, int width, char* out, size_t cap) {
    const char* longest = NULL;
    size_t longest_len = 0;
    int longest_w = 0;
    for (const char* p = trail; *p;) {
        const char* sep = next_sep(p);
        size_t len = sep ? (size_t)(sep - p) : strlen(p);
        char step[2048]; /* as long as cut_trail's copy: a step is measured whole */
        snprintf(step, sizeof(step), "%.*s", (int)len, p);
        if (Format_width(step) > longest_w) {
            longest = p;
            longest_len = len;
            longest_w = Format_width(step);
        }
        p = sep ? sep + 3 : p + len;
    }
    int keep = longest_w - (Format_width(trail) - width);
    if (!longest || keep < 12) {
        return 0;
    }
    char step[2048], shortened[1024];
    snprintf(step, sizeof(step), "%.*s", (int)longest_len, longest);
    Format_cutName(step, keep, shortened, sizeof(shortened));
    snprintf(out, cap, "%.*s%s%s", (int)(longest - trail), trail, shortened,
             longest + longest_len);
    return 1;
}

/* A step left empty by its screen (a kernel without a short name: "Trace >  > dispatches")
 * is dropped, and so is a separator at the end. */
static void drop_empty_steps(const char* trail, char* out, size_t cap) {
    snprintf(out, cap, "%s", trail);
    char* p;
    while ((p = strstr(out, " >  > ")) != NULL) {
        memmove(p, p + 3, strlen(p + 3) + 1);
    }
    while ((p = strstr(out, "> > ")) == out) {
        memmove(p, p + 2, strlen(p + 2) + 1);
    }
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == ' ' || (n >= 2 && strcmp(out + n - 2, " >") == 0))) {
        n -= out[n - 1] == ' ' ? 1 : 2;
        out[n] = '\0';
    }
}

/* The breadcrumb "> Categories > copy > KERNEL > dispatches" in width cells: the longest step
 * (a kernel name) is shortened first, then the first steps give way to "…", so the steps
 * nearest the screen keep their meaning; the whole is cut only when nothing else fits. */
static void cut_trail(const char* given, int width, char* out, size_t cap) {
    char trail[2048];
    drop_empty_steps(given, trail, sizeof(trail));
    if (Format_width(trail) <= width) {
        snprintf(out, cap, "%s", trail);
        return;
    }
    char t[2048];
    snprintf(t, sizeof(t), "%s", trail);
    for (;;) {
        if (cut_longest_step(t, width, out, cap)) {
            return;
        }
        const char* sep = next_sep(t);
        const char* next = sep ? next_sep(sep + 3) : NULL;
        if (!sep || !next) { /* two steps or fewer left: nothing more to give */
            Format_cutName(trail, width, out, cap);
            return;
        }
        /* "… > copy > ...": once the trail starts with "…", the step after it goes */
        int cut_before = strncmp(t, "\u2026", strlen("\u2026")) == 0;
        char rest[2048];
        snprintf(rest, sizeof(rest), "\u2026%s", cut_before ? next : sep);
        snprintf(t, sizeof(t), "%s", rest);
    }
}

void ChromeView_tabs(Canvas* c, int y, const ChromeTab* tabs, int n, int active,
                     const char* trail) {
    Canvas_fillRow(c, y, 0, STYLE_TAB);
    Strip s;
    strip_layout(c->w, tabs, n, active, trail, &s);
    if (s.more_left) {
        Canvas_put(c, y, 0, STYLE_TAB, "\u2039", 1);
    }
    for (int i = s.first; i <= s.last; i++) {
        Canvas_put(c, y, s.x[i], i == active ? STYLE_TAB_ACTIVE : STYLE_TAB, s.label[i], -1);
    }
    if (active >= s.first && active <= s.last) { /* the current tab, framed by two spaces */
        Canvas_style(c, y, s.x[active] + Format_width(s.label[active]), 1, STYLE_TAB_ACTIVE);
    }
    int x = s.end;
    if (s.more_right) {
        Canvas_put(c, y, x - 2, STYLE_TAB, "\u203a", 1);
    }
    if (trail && *trail && x + 2 < c->w) {
        char cut[2048];
        cut_trail(trail, c->w - x - 1, cut, sizeof(cut));
        Canvas_put(c, y, x + 1, STYLE_TITLE, cut, c->w - x - 1);
    }
}

int ChromeView_tabAt(int width, const ChromeTab* tabs, int n, int active, const char* trail,
                     int x) {
    Strip s;
    strip_layout(width, tabs, n, active, trail, &s);
    for (int i = s.first; i <= s.last; i++) {
        if (x >= s.x[i] && x < s.x[i] + Format_width(s.label[i])) {
            return i;
        }
    }
    return -1;
}

void ChromeView_status(Canvas* c, int y, const char* text, int is_error) {
    Canvas_fillRow(c, y, 0, is_error ? STYLE_ERROR : STYLE_STATUS);
    if (text) {
        Canvas_put(c, y, 0, is_error ? STYLE_ERROR : STYLE_STATUS, text, -1);
    }
}

void ChromeView_footer(Canvas* c, int y, const FooterItem* items, int n) {
    Canvas_fillRow(c, y, 0, STYLE_FOOTER);
    int x = 0;
    for (int i = 0; i < n && x < c->w; i++) {
        int kw = Format_width(items[i].key);
        int lw = Format_width(items[i].label);
        if (x + kw + lw > c->w) {
            break; /* a hint cut in half helps nobody */
        }
        x += Canvas_put(c, y, x, STYLE_FOOTER_KEY, items[i].key, -1);
        x += Canvas_put(c, y, x, STYLE_FOOTER, items[i].label, -1);
        x += Canvas_put(c, y, x, STYLE_FOOTER, " ", -1);
    }
}

void ChromeView_prompt(Canvas* c, int y, const char* label, const char* buffer, int cursor) {
    Canvas_fillRow(c, y, 0, STYLE_DEFAULT);
    int x = Canvas_put(c, y, 0, STYLE_PROMPT, label, -1);
    /* keep the cursor visible: show the tail when the text is longer than the line */
    int room = c->w - x - 1;
    const char* shown = buffer;
    char before[4096];
    snprintf(before, sizeof(before), "%.*s", cursor, buffer);
    while (Format_width(before) > room && *shown) {
        shown++;
        while (((unsigned char)*shown & 0xC0) == 0x80) {
            shown++;
        }
        snprintf(before, sizeof(before), "%.*s", cursor - (int)(shown - buffer), shown);
    }
    Canvas_put(c, y, x, STYLE_DEFAULT, shown, room);
    int cx = x + Format_width(before);
    if (cx < c->w) {
        if (buffer[cursor] == '\0') {
            Canvas_put(c, y, cx, STYLE_SELECTED, " ", 1);
        } else {
            Canvas_style(c, y, cx, 1, STYLE_SELECTED);
        }
    }
}

/* Blanks cells [x0, x1) of rows [y0, y1]. */
static void clear_rect(Canvas* c, int y0, int y1, int x0, int x1) {
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x < x1; x++) {
            Canvas_put(c, y, x, STYLE_DEFAULT, " ", 1);
        }
    }
}

void ChromeView_menu(Canvas* c, int top, const char* title, const char* const* items, int n,
                     int selected) {
    int w = Format_width(title) + 4;
    for (int i = 0; i < n; i++) {
        int iw = Format_width(items[i]) + 4;
        if (iw > w) {
            w = iw;
        }
    }
    if (w > c->w) {
        w = c->w;
    }
    /* the title, the items, then the bottom edge, all above the status line */
    int rows = c->h - top - 4;
    if (rows < 1 || w < 5) {
        return;
    }
    int shown = n < rows ? n : rows;
    int first = 0;
    if (selected >= shown) {
        first = selected - shown + 1;
    }
    int bottom = top + 1 + shown;
    /* the rows it spans, whole: a row of the screen below beside an item would read as that
     * item's figures */
    clear_rect(c, top, bottom, 0, c->w);
    for (int x = 0; x < w; x++) {
        Canvas_put(c, top, x, STYLE_COLUMN, " ", 1);
    }
    Canvas_put(c, top, 1, STYLE_COLUMN, title, w - 2);
    char fit[512];
    for (int k = 0; k < shown; k++) {
        int i = first + k;
        int y = top + 1 + k;
        Style st = i == selected ? STYLE_SELECTED : STYLE_DEFAULT;
        Canvas_put(c, y, 0, STYLE_DIM, "│", 1);
        for (int x = 1; x < w - 1; x++) {
            Canvas_put(c, y, x, st, " ", 1);
        }
        Format_fit(items[i], w - 4, 0, fit, sizeof(fit));
        Canvas_put(c, y, 2, st, fit, w - 4);
        Canvas_put(c, y, w - 1, STYLE_DIM, "│", 1);
    }
    Canvas_put(c, bottom, 0, STYLE_DIM, "└", 1);
    for (int x = 1; x < w - 1; x++) {
        Canvas_put(c, bottom, x, STYLE_DIM, "─", 1);
    }
    Canvas_put(c, bottom, w - 1, STYLE_DIM, "┘", 1);
    /* what the box cannot show, on its bottom edge */
    char more[48] = "";
    if (first > 0 && first + shown < n) {
        snprintf(more, sizeof(more), " %d above, %d below ", first, n - first - shown);
    } else if (first + shown < n) {
        snprintf(more, sizeof(more), " %d more below ", n - first - shown);
    } else if (first > 0) {
        snprintf(more, sizeof(more), " %d more above ", first);
    }
    if (more[0] && Format_width(more) <= w - 4) {
        Canvas_put(c, bottom, 2, STYLE_DIM, more, w - 4);
    }
}
