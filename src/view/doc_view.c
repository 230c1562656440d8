/* doc_view.c - the Doc type and its renderer. */
#include "dcutop/doc_view.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/format.h"
#include "dcutop/xalloc.h"

Doc* Doc_new(void) {
    Doc* d = xcalloc(1, sizeof(Doc));
    d->selected = -1;
    return d;
}

void Doc_delete(Doc* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->n; i++) {
        for (int k = 0; k < this->lines[i].n; k++) {
            free(this->lines[i].seg[k].text);
        }
        free(this->lines[i].seg);
        free(this->lines[i].target);
    }
    free(this->lines);
    free(this);
}

void Doc_line(Doc* this) {
    if (this->n == this->cap) {
        this->cap = this->cap ? this->cap * 2 : 64;
        this->lines = xrealloc(this->lines, sizeof(DocLine) * (size_t)this->cap);
    }
    this->lines[this->n].seg = NULL;
    this->lines[this->n].n = 0;
    this->lines[this->n].link = DOC_LINK_NONE;
    this->lines[this->n].target = NULL;
    this->n++;
}

void Doc_link(Doc* this, DocLinkKind kind, const char* target) {
    if (this->n == 0) {
        Doc_line(this);
    }
    DocLine* l = &this->lines[this->n - 1];
    free(l->target);
    l->link = kind;
    l->target = xstrdup(target ? target : "");
}

int Doc_nextLink(const Doc* this, int from, int dir) {
    for (int i = from + dir; i >= 0 && i < this->n; i += dir) {
        if (this->lines[i].link != DOC_LINK_NONE) {
            return i;
        }
    }
    return -1;
}

static void add_text(Doc* this, Style s, char* owned) {
    if (this->n == 0) {
        Doc_line(this);
    }
    DocLine* l = &this->lines[this->n - 1];
    l->seg = xrealloc(l->seg, sizeof(DocSeg) * (size_t)(l->n + 1));
    l->seg[l->n].style = s;
    l->seg[l->n].text = owned;
    l->n++;
}

void Doc_add(Doc* this, Style s, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char* t = NULL;
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    t = xmalloc((size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, fmt);
    vsnprintf(t, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    va_end(ap);
    add_text(this, s, t);
}

void Doc_field(Doc* this, int label_w, const char* label, Style vs, const char* fmt, ...) {
    Doc_line(this);
    char fit[256];
    Format_fit(label, label_w, 0, fit, sizeof(fit));
    Doc_add(this, STYLE_LABEL, "  %s ", fit);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char* t = xmalloc((size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, fmt);
    vsnprintf(t, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    va_end(ap);
    add_text(this, vs, t);
}

void Doc_bar(Doc* this, Style s, double share, int width) {
    static const char* const eighths[] = {"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
                                          "\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a",
                                          "\xe2\x96\x89"};
    if (share < 0) {
        share = 0;
    }
    if (share > 1) {
        share = 1;
    }
    int units = (int)(share * width * 8 + 0.5);
    char* t = xmalloc((size_t)width * 3 + 8);
    size_t o = 0;
    for (int i = 0; i < units / 8; i++) {
        memcpy(t + o, "\xe2\x96\x88", 3);
        o += 3;
    }
    const char* e = eighths[units % 8];
    memcpy(t + o, e, strlen(e));
    o += strlen(e);
    t[o] = '\0';
    add_text(this, s, t);
}

/* The cells a line takes, trailing spaces left out (they cut nothing). */
static int visible_width(const DocLine* l) {
    int w = 0, spaces = 0;
    for (int s = 0; s < l->n; s++) {
        for (const char* p = l->seg[s].text; *p;) {
            int len;
            int cw = Format_nextChar(p, &len);
            cw = cw < 0 ? 1 : cw;
            if (*p == ' ') {
                spaces += cw;
            } else {
                w += spaces + cw;
                spaces = 0;
            }
            p += len > 0 ? len : 1;
        }
    }
    return w;
}

void DocView_render(const Doc* d, int scroll, Canvas* c, int y0, int height) {
    for (int k = 0; k < height; k++) {
        int y = y0 + k;
        Canvas_fillRow(c, y, 0, STYLE_DEFAULT);
        int i = scroll + k;
        if (i < 0 || i >= d->n) {
            continue;
        }
        int x = 0;
        Style last = STYLE_DEFAULT;
        for (int s = 0; s < d->lines[i].n && x < c->w; s++) {
            last = d->lines[i].seg[s].style;
            x += Canvas_put(c, y, x, last, d->lines[i].seg[s].text, -1);
        }
        if (visible_width(&d->lines[i]) > c->w) {
            Canvas_put(c, y, c->w - 1, last, "\u2026", 1); /* a cut line says so */
        }
        if (i == d->selected) {
            Canvas_style(c, y, 0, c->w, STYLE_SELECTED);
        }
    }
}
