/* names.c - sanitising, normalising and shortening trace names. */
#include "dcutop/names.h"

#include <stdio.h>
#include <string.h>

#include "dcutop/xalloc.h"

/* Unicode general category Cf (format: bidi embeddings, overrides and isolates, zero-width
 * characters, joiners, the BOM, interlinear and tag characters; Unicode 15) plus the line and
 * paragraph separators U+2028/2029. They draw nothing yet reorder or hide the text around
 * them (an RLO U+202E shows "gpj.exe" as "exe.jpg"), so they are escaped like controls. */
static const struct {
    unsigned int lo, hi;
} format_chars[] = {
    {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
    {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},
    {0x200B, 0x200F},   {0x2028, 0x202E},   {0x2060, 0x2064},   {0x2066, 0x206F},
    {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
    {0xE0020, 0xE007F},
};

int Names_isFormatChar(unsigned int cp) {
    for (size_t i = 0; i < sizeof(format_chars) / sizeof(format_chars[0]); i++) {
        if (cp >= format_chars[i].lo && cp <= format_chars[i].hi) {
            return 1;
        }
    }
    return 0;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid; *out gets the code point. */
static size_t utf8_len(const unsigned char* s, size_t n, unsigned int* out) {
    unsigned char c = s[0];
    size_t len;
    unsigned int cp;
    *out = c;
    if (c < 0x80) {
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    /* reject overlong forms, surrogates, out of range, and C1 controls */
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp <= 0x9F)) {
        return 0;
    }
    *out = cp;
    return len;
}

/* For display widths (lenient: an invalid byte is one cell), unlike utf8_len above. */
unsigned int Names_utf8Decode(const unsigned char* s, int* len) {
    unsigned int c = s[0];
    int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n <= 1) {
        *len = 1;
        return c;
    }
    unsigned int cp = c & (0xFF >> (n + 1));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = n;
    return cp;
}

int Names_cellWidth(unsigned int cp) {
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
        (cp >= 0xFE00 && cp <= 0xFE0F)) {
        return 0;
    }
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
        (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD)) {
        return 2;
    }
    return 1;
}

char* Names_sanitize(const char* s, size_t n) {
    const unsigned char* u = (const unsigned char*)s;
    size_t cap = n + 1, len = 0;
    char* out = xmalloc(cap);
    for (size_t i = 0; i < n;) {
        unsigned int cp;
        size_t l = utf8_len(u + i, n - i, &cp);
        int ok = l > 0 && !(l == 1 && (u[i] < 0x20 || u[i] == 0x7F));
        size_t need = len + (ok ? l : 4 * (l ? l : 1)) + 1;
        xgrow((void**)&out, &cap, need + 8);
        if (ok && l > 1 && Names_isFormatChar(cp)) {
            len += (size_t)snprintf(out + len, 9, "\\u%04X", cp); /* \u202E, \uE0041 */
            i += l;
        } else if (ok) {
            memcpy(out + len, u + i, l);
            len += l;
            i += l;
        } else {
            size_t bad = l ? l : 1; /* a control char (1) or one invalid byte */
            for (size_t k = 0; k < bad; k++) {
                snprintf(out + len, 5, "\\x%02X", u[i + k]);
                len += 4;
            }
            i += bad;
        }
    }
    out[len] = '\0';
    return out;
}

char* Names_normalize(const char* s, size_t n) {
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) {
        n--;
    }
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s++;
        n -= 2;
    }
    static const char clone_kd[] = " [clone .kd]";
    size_t cl = sizeof(clone_kd) - 1;
    if (n >= cl && memcmp(s + n - cl, clone_kd, cl) == 0) {
        n -= cl;
    } else if (n > 3 && memcmp(s + n - 3, ".kd", 3) == 0) {
        n -= 3;
    }
    while (n > 0 && s[n - 1] == ' ') {
        n--;
    }
    return Names_sanitize(s, n);
}

char* Names_short(const char* full) {
    size_t n = strlen(full);
    int depth = 0;
    size_t end = n, start = 0;
    /* A leading "operator" name keeps its own parentheses, e.g. "operator()". */
    for (size_t i = 0; i < n; i++) {
        char c = full[i];
        if (c == '<') {
            depth++;
        } else if (c == '>' && depth > 0) {
            depth--;
        } else if (c == '(' && depth == 0) {
            if (i >= 8 && strncmp(full + i - 8, "operator", 8) == 0 && i + 1 < n &&
                full[i + 1] == ')') {
                i++;
                continue;
            }
            if (strncmp(full + i, "(anonymous namespace)", 21) == 0) {
                i += 20; /* "void (anonymous namespace)::f<...>(...)": not an argument list */
                continue;
            }
            if (i == 0) { /* odd name starting with '(': keep going */
                continue;
            }
            if (i >= 1 && full[i - 1] == ':') { /* "::(anonymous namespace)::" */
                continue;
            }
            end = i;
            break;
        } else if (c == ' ' && depth == 0) {
            /* words before the name at depth 0 are the return type ("void", "static void") */
            if (!(i >= 10 && strncmp(full + i - 10, "(anonymous", 10) == 0)) {
                start = i + 1;
            }
        }
    }
    if (start >= end) {
        start = 0;
    }
    while (end > start && full[end - 1] == ' ') {
        end--;
    }
    if (end == start) {
        return xstrdup(full);
    }
    return xstrndup(full + start, end - start);
}

int Names_isApiName(const char* s) {
    if (strncmp(s, "hip", 3) == 0 && s[3] >= 'A' && s[3] <= 'Z') {
        return 1;
    }
    if (strncmp(s, "hsa_", 4) == 0 || strncmp(s, "roctx", 5) == 0 ||
        strncmp(s, "__hip", 5) == 0 || strncmp(s, "amd_", 4) == 0) {
        return 1;
    }
    return 0;
}
