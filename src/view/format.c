/* format.c - see format.h. */
#include "dcutop/format.h"
#include "dcutop/shortname.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"

static const char ELLIPSIS[] = "\xe2\x80\xa6"; /* U+2026, one cell */

TimeUnit Format_unitFor(int64_t max_ns) {
    if (max_ns >= 10000000000LL) {
        return UNIT_S;
    }
    if (max_ns >= 10000000LL) {
        return UNIT_MS;
    }
    if (max_ns >= 10000LL) {
        return UNIT_US;
    }
    return UNIT_NS;
}

const char* Format_unitName(TimeUnit u) {
    static const char* const n[] = {"ns", "us", "ms", "s"};
    return n[u];
}

void Format_duration(char* buf, size_t cap, int64_t ns, TimeUnit u) {
    Format_durationExact(buf, cap, (double)ns, u);
}

/* Two decimals in the unit, rounded half away from zero from the value in ns: the value is
 * first counted in hundredths of the unit (10 ns for us), a division whose exact halves
 * (142015 / 10 = 14201.5) are exact in binary, so llround sees them; printing ns / 1e3 with
 * %.2f would round 142.01499.. down. */
void Format_durationExact(char* buf, size_t cap, double ns, TimeUnit u) {
    static const double hundredth[] = {1, 10, 1e4, 1e7};
    if (u == UNIT_NS) {
        snprintf(buf, cap, "%lld", (long long)llround(ns));
        return;
    }
    long long q = llround(ns / hundredth[u]);
    unsigned long long a = q < 0 ? (unsigned long long)(-(q + 1)) + 1 : (unsigned long long)q;
    snprintf(buf, cap, "%s%llu.%02llu", q < 0 ? "-" : "", a / 100, a % 100);
}

void Format_durationAuto(char* buf, size_t cap, int64_t ns) {
    int64_t a = ns < 0 ? -ns : ns;
    if (a >= 1000000000LL) {
        snprintf(buf, cap, "%.2f s", (double)ns / 1e9);
    } else if (a >= 1000000LL) {
        snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
    } else if (a >= 1000LL) {
        snprintf(buf, cap, "%.1f us", (double)ns / 1e3);
    } else {
        snprintf(buf, cap, "%lld ns", (long long)ns);
    }
}

void Format_bytes(char* buf, size_t cap, int64_t b) {
    static const char* const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int i = 0;
    while (v >= 1024.0 && i < 4) {
        v /= 1024.0;
        i++;
    }
    if (i == 0) {
        snprintf(buf, cap, "%lld B", (long long)b);
    } else {
        snprintf(buf, cap, "%.1f %s", v, u[i]);
    }
}

void Format_ratio(char* buf, size_t cap, double r) {
    if (isinf(r)) {
        snprintf(buf, cap, "inf");
    } else if (r >= 1000) {
        snprintf(buf, cap, "%.0fx", r);
    } else {
        snprintf(buf, cap, "%.2fx", r);
    }
}

int Format_utf8Encode(unsigned int cp, char* out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int Format_nextChar(const char* s, int* len) {
    unsigned int cp = Names_utf8Decode((const unsigned char*)s, len);
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
        (*len == 1 && (unsigned char)s[0] >= 0x80) || Names_isFormatChar(cp)) {
        return -1; /* a control or format character, or an invalid byte */
    }
    return Names_cellWidth(cp);
}

int Format_width(const char* s) {
    int w = 0, len;
    for (const unsigned char* p = (const unsigned char*)s; *p; p += len) {
        w += Names_cellWidth(Names_utf8Decode(p, &len));
    }
    return w;
}

/* Copies the longest prefix of s that fits in width cells; returns bytes copied. */
static size_t take_prefix(const char* s, int width, int* used) {
    size_t b = 0;
    int w = 0, len;
    while (s[b]) {
        int cw = Names_cellWidth(Names_utf8Decode((const unsigned char*)s + b, &len));
        if (w + cw > width) {
            break;
        }
        w += cw;
        b += (size_t)len;
    }
    *used = w;
    return b;
}

char* Format_cutName(const char* name, int width, char* out, size_t cap) {
    return ShortName_fit(name, NULL, width, out, cap); /* the one shortener (model) */
}

char* Format_cutEnd(const char* s, int width, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    if (Format_width(s) <= width) {
        snprintf(out, cap, "%s", s);
        return out;
    }
    int used;
    size_t b = take_prefix(s, width > 1 ? width - 1 : 0, &used);
    snprintf(out, cap, "%.*s%s", (int)b, s, width > 0 ? ELLIPSIS : "");
    return out;
}

char* Format_fit(const char* s, int width, int right, char* out, size_t cap) {
    if (cap == 0) {
        return out;
    }
    int used;
    size_t b = take_prefix(s, width, &used);
    int pad = width - used;
    size_t o = 0;
    if (right) {
        for (int i = 0; i < pad && o + 1 < cap; i++) {
            out[o++] = ' ';
        }
    }
    if (o + b + 1 > cap) {
        b = cap - o - 1;
    }
    memcpy(out + o, s, b);
    o += b;
    if (!right) {
        for (int i = 0; i < pad && o + 1 < cap; i++) {
            out[o++] = ' ';
        }
    }
    out[o] = '\0';
    return out;
}
