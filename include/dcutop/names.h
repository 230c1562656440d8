/* names.h - kernel and API names as they come out of traces.
 * All functions return new heap strings owned by the caller (free()). */
#ifndef DCUTOP_NAMES_H
#define DCUTOP_NAMES_H

#include <stddef.h>

/* Makes raw bytes safe to store and show: valid UTF-8 is kept, every C0/C1
 * control character, DEL and every byte that is not valid UTF-8 becomes the
 * visible text \xNN, and every format character (Names_isFormatChar: bidi
 * overrides, zero-width and joiner characters, the BOM) the visible text \uXXXX
 * (e.g. \u202E). Nothing is dropped, so no two different inputs collide unless
 * one already contained the text "\xNN" or "\uXXXX". */
char* Names_sanitize(const char* s, size_t n);

/* 1 if code point cp is a Unicode format character (category Cf) or U+2028/2029: it
 * draws nothing but reorders or hides the text around it. The one definition used by
 * Names_sanitize and by the canvas (Format_nextChar). */
int Names_isFormatChar(unsigned int cp);

/* One UTF-8 code point at s, for display: *len gets its byte length, 1 for an invalid byte
 * (then U+FFFD, or the byte itself). The model and the view measure names with these. */
unsigned int Names_utf8Decode(const unsigned char* s, int* len);
/* Terminal cells of a code point: 2 wide East Asian, 0 combining, else 1. */
int Names_cellWidth(unsigned int cp);

/* The join key across tools (FORMATS.md section 6): surrounding spaces and one pair of
 * surrounding double quotes removed, then a trailing " [clone .kd]" or ".kd" removed. */
char* Names_normalize(const char* s, size_t n);

/* The most bytes of demangled text a name may have: past it the symbol is kept as it is. */
#define NAMES_DEMANGLE_MAX (64 * 1024)

/* An Itanium-mangled C++ name (_ZN7ck_tile6kentry..., _Z32paged_attention_ll4mi_QKV_kernelI...)
 * demangled by binutils' demangler, libiberty's (src/model/names/demangler.c): a new heap
 * string (raw demangler output: sanitize it before storing), or NULL when s (n bytes) is not
 * a mangled name, does not demangle, is longer than c++filt demangles by default (1,024
 * bytes), or would demangle to more than NAMES_DEMANGLE_MAX bytes. *capped (when not NULL)
 * gets 1 in that last case, where demangling stopped at the cap, else 0. */
char* Names_demangle(const char* s, size_t n, int* capped);
/* The same with a cap of max_out bytes of demangled text. */
char* Names_demangleCapped(const char* s, size_t n, size_t max_out, int* capped);

/* The short name: return type and argument list dropped, template arguments kept,
 * e.g. "void at::native::foo<4, F>(int, F)" -> "at::native::foo<4, F>".
 * Parentheses inside <...> (lambdas, function types) do not end the name. */
char* Names_short(const char* full);

/* 1 if s (n bytes) looks like a HIP/HSA runtime API name (hipMalloc, hsa_queue_create). */
int Names_isApiName(const char* s);

/* 1 if a frame name belongs to a runtime, library or interpreter (libamdhip64, libtorch_hip,
 * librocblas, libtorch_python, libc, python's threading.py / runpy / <frozen ...>, torch/...,
 * <built-in ...>, at::, c10::, hipLaunchKernel, ...): what folding hides. */
int Names_isLibraryFrame(const char* name);

#endif
