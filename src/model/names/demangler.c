/* demangler.c - Itanium C++ names (_Z...) made readable by binutils' own demangler: libiberty's
 * cplus_demangle_v3_callback (Debian's libiberty-dev), the code c++filt runs, never a
 * hand-written one. libstdc++'s abi::__cxa_demangle is an older copy of the same code: it
 * fails on what newer compilers emit (_Float16 as DF16_, std::bfloat16_t as DF16b), which
 * hipcc writes into ROCm kernel symbols.
 *
 * The demangled text can be exponentially longer than the symbol (each substitution may
 * repeat all the text before it: 234 bytes become 27 MB). The callback form streams the text
 * to us in pieces, so we stop as soon as it passes the cap and keep the symbol instead: the
 * work is bounded by the symbol's length plus the cap, whatever the symbol. */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* libiberty.h (included by demangle.h) declares basename() unless told it is declared */
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>

#include "dcutop/names.h"

/* The demangler keeps one node per input byte pair on the stack and refuses (without
 * DMGL_NO_RECURSE_LIMIT) any symbol whose nodes pass DEMANGLE_RECURSION_LIMIT: c++filt's own
 * default bound. Checked here too, so that no longer symbol is even copied. */
#define DEMANGLE_MAX_INPUT ((size_t)DEMANGLE_RECURSION_LIMIT / 2)

typedef struct {
    char* buf;
    size_t len, cap, limit;
    int over; /* the text passed limit: demangling was stopped */
    jmp_buf stop;
} Sink;

/* Appends one piece of demangled text; past the cap (or out of memory) it jumps back out of
 * the demangler, which in callback mode holds only stack memory, so nothing leaks. */
static void sink_put(const char* s, size_t n, void* opaque) {
    Sink* k = opaque;
    if (n > k->limit - k->len) {
        k->over = 1;
        longjmp(k->stop, 1);
    }
    if (k->len + n + 1 > k->cap) {
        size_t cap = k->cap ? k->cap : 256;
        while (cap < k->len + n + 1) {
            cap *= 2;
        }
        if (cap > k->limit + 1) {
            cap = k->limit + 1;
        }
        char* b = realloc(k->buf, cap);
        if (b == NULL) {
            longjmp(k->stop, 1);
        }
        k->buf = b;
        k->cap = cap;
    }
    memcpy(k->buf + k->len, s, n);
    k->len += n;
    k->buf[k->len] = '\0';
}

char* Names_demangleCapped(const char* name, size_t n, size_t max_out, int* capped) {
    if (capped) {
        *capped = 0;
    }
    if (n < 3 || n > DEMANGLE_MAX_INPUT || name[0] != '_' || name[1] != 'Z') {
        return NULL;
    }
    if (memchr(name, '\0', n) != NULL) {
        return NULL;
    }
    char sym[DEMANGLE_MAX_INPUT + 1];
    memcpy(sym, name, n);
    sym[n] = '\0';
    /* the options of abi::__cxa_demangle, so that names read as they always did */
    Sink k;
    memset(&k, 0, sizeof(k));
    k.limit = max_out;
    volatile int ok = 0; /* read after a jump out of the demangler */
    if (setjmp(k.stop) == 0) {
        ok = cplus_demangle_v3_callback(sym, DMGL_PARAMS | DMGL_TYPES, sink_put, &k);
    }
    if (!ok || k.over || k.len == 0) {
        if (capped) {
            *capped = k.over;
        }
        free(k.buf);
        return NULL;
    }
    return k.buf;
}

char* Names_demangle(const char* name, size_t n, int* capped) {
    return Names_demangleCapped(name, n, NAMES_DEMANGLE_MAX, capped);
}
