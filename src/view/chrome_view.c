/* chrome_view.c - see chrome_view.h. */
#include "dcutop/chrome_view.h"

#include <stdio.h>
#include <string.h>

#include "dcutop/format.h"

void ChromeView_header(Canvas* c, int y, const char* left, const char* right) {
    Canvas_fillRow(c, y, 0, STYLE_HEADER);
    int rw = right ? Format_width(right) : 0;
    int lw = c->w - rw - 2;
    /* the left text puts the least important part (the path) last: cut at the end */
    Canvas_put(c, y, 0, STYLE_HEADER, left, lw > 0 ? lw : 0);
    if (right && rw < c->w) {
        Canvas_put(c, y, c->w - rw, STYLE_HEADER, right, rw);
    }
}

/* The label of tab i as the strip shows it: " 2 Hotspots ", or " 2 " when the strip is too
 * narrow for every title and a breadcrumb (80 columns): then the breadcrumb keeps room to
 * say where the user is, and the current tab keeps its title. */
static void tab_label(int width, const char* const* tabs, int n, int active, const char* trail,
                      int i, char* t, size_t cap) {
    int full = 0;
    for (int k = 0; k < n; k++) {
        full += Format_width(tabs[k]) + 2;
    }
    int compact = full + (trail && *trail ? 30 : 0) > width;
    if (compact && i != active) {
        snprintf(t, cap, " %.*s ", (int)strcspn(tabs[i], " "), tabs[i]);
    } else {
        snprintf(t, cap, " %s ", tabs[i]);
    }
}

/* Shortens the longest step of trail (a kernel name) so that trail fits width; 0 when that
 * step would keep fewer than 12 cells. */
static int cut_longest_step(const char* trail, int width, char* out, size_t cap) {
    const char* longest = NULL;
    size_t longest_len = 0;
    int longest_w = 0;
    for (const char* p = trail; *p;) {
        const char* sep = strstr(p, " > ");
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

/* The breadcrumb "> Categories > copy > KERNEL > dispatches" in width cells: the longest step
 * (a kernel name) is shortened first, then the first steps give way to "…", so the steps
 * nearest the screen keep their meaning; the whole is cut only when nothing else fits. */
static void cut_trail(const char* trail, int width, char* out, size_t cap) {
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
        const char* sep = strstr(t, " > ");
        const char* next = sep ? strstr(sep + 3, " > ") : NULL;
        if (!sep || !next) { /* two steps or fewer left: nothing more to give */
            Format_cutName(trail, width, out, cap);
            return;
        }
        /* "… > copy > ...": the first step gives way; once it is "…", the one after it */
        char rest[2048];
        snprintf(rest, sizeof(rest), "\u2026%s", strncmp(t, "\u2026", 3) == 0 ? next : sep);
        snprintf(t, sizeof(t), "%s", rest);
    }
}

void ChromeView_tabs(Canvas* c, int y, const char* const* tabs, int n, int active,
                     const char* trail) {
    Canvas_fillRow(c, y, 0, STYLE_TAB);
    int x = 0;
    for (int i = 0; i < n && x < c->w; i++) {
        char t[64];
        tab_label(c->w, tabs, n, active, trail, i, t, sizeof(t));
        x += Canvas_put(c, y, x, i == active ? STYLE_TAB_ACTIVE : STYLE_TAB, t, -1);
    }
    if (trail && *trail && x + 2 < c->w) {
        char cut[2048];
        cut_trail(trail, c->w - x - 1, cut, sizeof(cut));
        Canvas_put(c, y, x + 1, STYLE_TITLE, cut, c->w - x - 1);
    }
}

int ChromeView_tabAt(int width, const char* const* tabs, int n, int active, const char* trail,
                     int x) {
    int at = 0;
    for (int i = 0; i < n && at < width; i++) {
        char t[64];
        tab_label(width, tabs, n, active, trail, i, t, sizeof(t));
        int w = Format_width(t);
        if (x >= at && x < at + w) {
            return i;
        }
        at += w;
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
    int avail = c->h - top - 2;
    int first = 0;
    if (selected >= avail - 1 && avail > 1) {
        first = selected - (avail - 2);
    }
    char fit[512];
    for (int x = 0; x < w; x++) {
        Canvas_put(c, top, x, STYLE_COLUMN, " ", 1);
    }
    Canvas_put(c, top, 1, STYLE_COLUMN, title, w - 2);
    for (int k = 0; k + 1 < avail && first + k < n; k++) {
        int i = first + k;
        int y = top + 1 + k;
        Format_fit(items[i], w - 2, 0, fit, sizeof(fit));
        Canvas_put(c, y, 0, STYLE_DEFAULT, " ", 1);
        Canvas_put(c, y, 1, i == selected ? STYLE_SELECTED : STYLE_DEFAULT, fit, w - 2);
        Canvas_put(c, y, w - 1, STYLE_DEFAULT, " ", 1);
    }
}
