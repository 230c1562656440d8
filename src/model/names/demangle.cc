// demangle.cc - Itanium C++ names (_Z...) made readable with libstdc++'s own demangler,
// abi::__cxa_demangle (the one c++filt's library shares), never a hand-written one.
// The only C++ file of dcutop: it exports one C function, declared in dcutop/names.h.
#include <cxxabi.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "dcutop/names.h"
}

// Longer names are left as they are: real kernel symbols stay under 10 KB, and the
// demangler's work and recursion grow with its input.
static const size_t DEMANGLE_MAX_INPUT = 64 * 1024;

extern "C" char* Names_demangle(const char* name, size_t n) {
    if (n < 3 || n > DEMANGLE_MAX_INPUT || name[0] != '_' || name[1] != 'Z') {
        return NULL;
    }
    if (memchr(name, '\0', n) != NULL) {
        return NULL;
    }
    char* copy = static_cast<char*>(malloc(n + 1));
    if (copy == NULL) {
        return NULL;
    }
    memcpy(copy, name, n);
    copy[n] = '\0';
    int status = 0;
    char* out = abi::__cxa_demangle(copy, NULL, NULL, &status);
    free(copy);
    if (status != 0 || out == NULL || out[0] == '\0') {
        free(out);
        return NULL;
    }
    return out;
}
