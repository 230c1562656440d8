/* canvas.c - see canvas.h. */
#include "dcutop/canvas.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/format.h"
#include "dcutop/xalloc.h"

Canvas* Canvas_new(int w, int h) {
    Canvas* this = xcalloc(1, sizeof(*this));
    Canvas_resize(this, w, h);
    return this;
}

void Canvas_delete(Canvas* this) {
    if (!this) {
        return;
    }
    free(this->cells);
    free(this);
}

void Canvas_resize(Canvas* this, int w, int h) {
    if (w < 1) {
        w = 1;
    }
    if (h < 1) {
        h = 1;
    }
    free(this->cells);
    this->w = w;
    this->h = h;
    this->cells = xcalloc((size_t)w * (size_t)h, sizeof(Cell));
    Canvas_clear(this, STYLE_DEFAULT);
}

void Canvas_clear(Canvas* this, Style style) {
    for (int i = 0; i < this->w * this->h; i++) {
        this->cells[i].ch[0] = ' ';
        this->cells[i].ch[1] = '\0';
        this->cells[i].style = (unsigned char)style;
    }
}

void Canvas_fillRow(Canvas* this, int y, int x, Style style) {
    if (y < 0 || y >= this->h) {
        return;
    }
    for (int i = x < 0 ? 0 : x; i < this->w; i++) {
        Cell* c = &this->cells[y * this->w + i];
        c->ch[0] = ' ';
        c->ch[1] = '\0';
        c->style = (unsigned char)style;
    }
}

int Canvas_put(Canvas* this, int y, int x, Style style, const char* text, int max_w) {
    if (y < 0 || y >= this->h || x >= this->w) {
        return 0;
    }
    int limit = this->w - x;
    if (max_w >= 0 && max_w < limit) {
        limit = max_w;
    }
    int used = 0;
    const unsigned char* p = (const unsigned char*)text;
    while (*p && used < limit) {
        int len;
        int cw = Format_nextChar((const char*)p, &len);
        const char* src = (const char*)p;
        int sl = len;
        if (cw < 0) {
            src = "?";
            sl = 1;
            cw = 1;
        }
        if (cw == 0) { /* combining mark: append to the previous cell when it fits */
            if (used > 0 && x + used - 1 >= 0) {
                Cell* prev = &this->cells[y * this->w + x + used - 1];
                size_t pl = strlen(prev->ch);
                if (pl + (size_t)sl < sizeof(prev->ch)) {
                    memcpy(prev->ch + pl, src, (size_t)sl);
                    prev->ch[pl + (size_t)sl] = '\0';
                }
            }
            p += len;
            continue;
        }
        if (used + cw > limit) {
            break; /* a wide char that does not fit */
        }
        int cx = x + used;
        if (cx >= 0) {
            Cell* c = &this->cells[y * this->w + cx];
            memcpy(c->ch, src, (size_t)sl);
            c->ch[sl] = '\0';
            c->style = (unsigned char)style;
            if (cw == 2 && cx + 1 < this->w) {
                Cell* r = &this->cells[y * this->w + cx + 1];
                r->ch[0] = '\0';
                r->style = (unsigned char)style;
            }
        }
        used += cw;
        p += len;
    }
    return used;
}

int Canvas_putf(Canvas* this, int y, int x, Style style, const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return Canvas_put(this, y, x, style, buf, -1);
}

void Canvas_style(Canvas* this, int y, int x, int n, Style style) {
    if (y < 0 || y >= this->h) {
        return;
    }
    for (int i = x < 0 ? 0 : x; i < x + n && i < this->w; i++) {
        this->cells[y * this->w + i].style = (unsigned char)style;
    }
}

const Cell* Canvas_at(const Canvas* this, int y, int x) {
    return &this->cells[y * this->w + x];
}

void Canvas_dump(const Canvas* this, FILE* out) {
    char* line = xmalloc((size_t)this->w * 8 + 2);
    for (int y = 0; y < this->h; y++) {
        size_t len = 0;
        for (int x = 0; x < this->w; x++) {
            const char* ch = this->cells[y * this->w + x].ch;
            size_t l = strlen(ch);
            memcpy(line + len, ch, l);
            len += l;
        }
        while (len > 0 && line[len - 1] == ' ') {
            len--;
        }
        line[len] = '\0';
        fprintf(out, "%s\n", line);
    }
    free(line);
}

void Canvas_dumpStyles(const Canvas* this, FILE* out) {
    for (int y = 0; y < this->h; y++) {
        for (int x = 0; x < this->w; x++) {
            fputc('a' + this->cells[y * this->w + x].style, out);
        }
        fputc('\n', out);
    }
}
