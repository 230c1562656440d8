/* xalloc.h - allocation that never returns NULL.
 * On failure the registered hook runs (the app restores the terminal there),
 * then abort(): the one place below main() that ends the process (htop XUtils). */
#ifndef DCUTOP_XALLOC_H
#define DCUTOP_XALLOC_H

#include <stddef.h>

void* xmalloc(size_t size);
void* xcalloc(size_t n, size_t size);
void* xrealloc(void* ptr, size_t size);
char* xstrdup(const char* s);
char* xstrndup(const char* s, size_t n);
/* Grows *buf (capacity *cap) to hold at least need bytes. */
void xgrow(void** buf, size_t* cap, size_t need);
/* printf into a new heap string (owned by the caller). */
char* xasprintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

void Xalloc_setFailHook(void (*hook)(void));

#endif
