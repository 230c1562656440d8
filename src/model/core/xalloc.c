/* xalloc.c - see xalloc.h. */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "dcutop/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* Large blocks (a million dispatches' rows, the store's chunks) are backed by transparent
 * huge pages where the system lets a process ask (THP "madvise"): a 4 KiB page fault per
 * 4 KiB written was a sixth of a 1M-dispatch report. Only the 2 MiB-aligned interior of
 * the block is advised; nothing happens on systems without THP. glibc's thresholds are
 * left alone: a fixed mmap threshold made every one-more-element realloc over 1 MiB a copy
 * into fresh pages (quadratic over a 20,000-run folder); big arrays are sized once. */
enum { HUGE_MIN = 4 << 20, HUGE_PAGE = 2 << 20 };

static void *advise_huge(void* p, size_t size) {
#ifdef MADV_HUGEPAGE
    if (p && size >= HUGE_MIN) {
        uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t e = ((uintptr_t)p + size) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (e > a) {
            madvise((void*)a, e - a, MADV_HUGEPAGE);
        }
    }
#else
    (void)size;
#endif
    return p;
}

void* xmalloc(size_t size) {
    void* p = malloc(size ? size : 1);
    if (!p) {
        fail();
    }
    return advise_huge(p, size);
}

void* xcalloc(size_t n, size_t size) {
    void* p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fail();
    }
    return advise_huge(p, n * size);
}

void* xrealloc(void* ptr, size_t size) {
    void* p = realloc(ptr, size ? size : 1);
    if (!p) {
        fail();
    }
    return advise_huge(p, size);
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
