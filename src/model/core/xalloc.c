/* xalloc.c - see xalloc.h. */
#include "dcutop/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*fail_hook)(void);

void Xalloc_setFailHook(void (*hook)(void)) {
    fail_hook = hook;
}

static void fail(void) {
    if (fail_hook) {
        fail_hook();
    }
    fputs("dcutop: out of memory\n", stderr);
    abort();
}

void* xmalloc(size_t size) {
    void* p = malloc(size ? size : 1);
    if (!p) {
        fail();
    }
    return p;
}

void* xcalloc(size_t n, size_t size) {
    void* p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fail();
    }
    return p;
}

void* xrealloc(void* ptr, size_t size) {
    void* p = realloc(ptr, size ? size : 1);
    if (!p) {
        fail();
    }
    return p;
}

char* xstrdup(const char* s) {
    return xstrndup(s, strlen(s));
}

char* xstrndup(const char* s, size_t n) {
    char* p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void xgrow(void** buf, size_t* cap, size_t need) {
    if (need <= *cap) {
        return;
    }
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        c *= 2;
    }
    *buf = xrealloc(*buf, c);
    *cap = c;
}

char* xasprintf(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return xstrdup("");
    }
    char* p = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
