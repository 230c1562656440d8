/* json_feed.c - see json_feed.h. The scanner knows just enough JSON to find where tokens
 * start and end; everything else (structure, validity) is left to yajl. */
#include "json_feed.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

enum { S_OUT, S_STR, S_ESC, S_HEX, S_BARE };

/* Byte classes: C_BARE may be part of a number or literal, C_DELIM ends one and may stand
 * between tokens, C_QUOTE opens a string. str_stop marks the bytes a string scan stops at. */
enum { C_BARE = 0, C_DELIM = 1, C_QUOTE = 2 };
static const unsigned char cls[256] = {
    [' '] = C_DELIM, ['\t'] = C_DELIM, ['\r'] = C_DELIM, ['\n'] = C_DELIM, ['{'] = C_DELIM,
    ['}'] = C_DELIM, ['['] = C_DELIM, [']'] = C_DELIM, [':'] = C_DELIM, [','] = C_DELIM,
    ['"'] = C_QUOTE,
};
static const unsigned char str_stop[256] = {['"'] = 1, ['\\'] = 1, ['\n'] = 1};

void JsonFeed_init(JsonFeed* f, uint64_t cap) {
    memset(f, 0, sizeof(*f));
    f->cap = cap > 0 ? cap : 1;
    f->line = 1;
}

void JsonFeed_done(JsonFeed* f) {
    free(f->buf);
    f->buf = NULL;
}

static void append(JsonFeed* f, const unsigned char* s, size_t n, uint64_t end_off) {
    if (n > 0) {
        xgrow((void**)&f->buf, &f->size, f->len + n);
        memcpy(f->buf + f->len, s, n);
        f->len += n;
    }
    f->buf_end = end_off;
}

static void open_token(JsonFeed* f, int state, size_t at_buf, uint64_t at_off) {
    f->state = state;
    f->tok_start = at_buf;
    f->tok_len = 0;
    f->tok_off = at_off;
    f->tok_line = f->line;
}

int JsonFeed_notJson(const unsigned char* b, size_t n) {
    size_t i = n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < n && isspace(b[i])) {
        i++;
    }
    return i < n && b[i] != '{' && b[i] != '[';
}

int JsonFeed_scan(JsonFeed* f, const unsigned char* in, size_t n, size_t* pos,
                  JsonOversize* over) {
    size_t i = *pos;
    if (f->too_deep) {
        f->safe = 0;
        return 2;
    }
    if (f->off == 0 && i == 0 && f->len == 0 && n >= 3 && memcmp(in, "\xEF\xBB\xBF", 3) == 0) {
        i = 3; /* a UTF-8 BOM opens the stream (CSV takes one too): not JSON, not kept */
    }
    size_t run = i; /* in[run..i) is kept but not yet appended to buf */
    while (i < n) {
        size_t from = i;
        int was_open = f->state != S_OUT;
        unsigned char c = in[i];
        switch (f->state) {
        case S_OUT:
            while (cls[c] == C_DELIM) { /* whitespace and structure: all safe */
                f->line += c == '\n';
                if (c == '{' || c == '[') {
                    if (f->depth >= JSON_MAX_DEPTH) {
                        append(f, in + run, i - run, f->off + i);
                        f->safe = f->len;
                        f->too_deep = 1;
                        over->offset = f->off + i;
                        over->line = f->line;
                        over->len = 0;
                        *pos = i;
                        return 2;
                    }
                    f->depth++;
                } else if ((c == '}' || c == ']') && f->depth > 0) {
                    f->depth--;
                }
                if (++i == n) {
                    break;
                }
                c = in[i];
            }
            f->safe = f->len + (i - run);
            if (i == n) {
                continue;
            }
            open_token(f, cls[c] == C_QUOTE ? S_STR : S_BARE, f->len + (i - run), f->off + i);
            from = i++;
            break;
        case S_STR:
            while (i < n && !str_stop[in[i]]) {
                i++;
            }
            if (i < n) {
                c = in[i++];
                if (c == '"') {
                    f->state = S_OUT;
                } else if (c == '\\') {
                    f->state = S_ESC;
                } else {
                    f->line++;
                }
            }
            break;
        case S_ESC:
            f->state = c == 'u' ? S_HEX : S_STR;
            f->hex_left = 4;
            i++;
            break;
        case S_HEX:
            if (--f->hex_left == 0) {
                f->state = S_STR;
            }
            i++;
            break;
        case S_BARE:
            while (i < n && cls[in[i]] == C_BARE) {
                i++;
            }
            if (i < n) {
                f->state = S_OUT; /* the delimiter is scanned again, outside */
            }
            break;
        }
        f->tok_len += i - from;
        if ((was_open || f->state != S_OUT) && !f->skipping && f->tok_len > f->cap) {
            /* over the cap: forget what was kept of it and drop the rest as it streams by */
            append(f, in + run, i - run, f->off + i);
            f->len = f->tok_start;
            f->buf_end = f->tok_off;
            f->skipping = 1;
        }
        if (f->skipping) {
            run = i;
            if (f->state == S_OUT) { /* the oversized token just ended */
                f->skipping = 0;
                f->safe = f->len;
                over->offset = f->tok_off;
                over->line = f->tok_line;
                over->len = f->tok_len;
                *pos = i; /* the caller calls again, to the end of the block */
                return 1;
            }
        } else if (f->state == S_OUT) {
            f->safe = f->len + (i - run);
        }
    }
    if (!f->skipping) {
        append(f, in + run, n - run, f->off + n);
    }
    f->off += n;
    *pos = n;
    return 0;
}

void JsonFeed_consume(JsonFeed* f) {
    memmove(f->buf, f->buf + f->safe, f->len - f->safe);
    f->len -= f->safe;
    if (f->state != S_OUT && !f->skipping) {
        f->tok_start -= f->safe;
    }
    f->safe = 0;
}

uint64_t JsonFeed_bufOffset(const JsonFeed* f) {
    return f->buf_end - f->len;
}

int JsonFeed_idle(const JsonFeed* f) {
    return f->len == 0 && f->state == S_OUT && !f->skipping && !f->too_deep;
}

void JsonFeed_skip(JsonFeed* f, uint64_t to, long lines) {
    f->off = to;
    f->buf_end = to;
    f->line += lines;
}
