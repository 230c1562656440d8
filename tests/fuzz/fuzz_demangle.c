/* fuzz_demangle.c - a kernel name through the loader's demangling path (load_core.c):
 * Names_normalize, Names_demangle, Names_sanitize, Names_short, then the built-in category
 * rules on the result. Input that does not start with "_Z" gets it in front, so that every
 * input reaches the demangler.
 *
 * The oracle is the size of the output, which the demangler alone could make exponential in
 * the input (each substitution may repeat all the text before it):
 *   - no demangled text is longer than its cap (NAMES_DEMANGLE_MAX, and a small cap chosen
 *     by the first input byte);
 *   - a name cut by the small cap is one whose full text is longer than that cap, and a name
 *     under it demangles to the same text under either cap;
 *   - a capped name gives NULL (the symbol is kept), never part of a name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/category.h"
#include "dcutop/names.h"
#include "fuzz_common.h"

static void fail(const char* what, size_t got, size_t cap) {
    fprintf(stderr, "fuzz_demangle: %s (%zu bytes, cap %zu)\n", what, got, cap);
    abort();
}

static RuleSet* fuzz_rules;

static void free_rules(void) {
    RuleSet_delete(fuzz_rules);
    fuzz_rules = NULL;
}

static RuleSet* rules(void) {
    if (fuzz_rules == NULL) {
        DcuError err;
        Error_clear(&err);
        fuzz_rules = RuleSet_new(0);
        if (RuleSet_parse(fuzz_rules, RuleSet_builtinText(), "built-in", &err) != DCU_OK) {
            fail("the built-in rules do not load", 0, 0);
        }
        atexit(free_rules);
    }
    return fuzz_rules;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    size_t small = 16 + (size > 0 ? (size_t)data[0] * 8 : 0); /* 16 .. 2056 bytes */
    int prefix = !(size >= 2 && data[0] == '_' && data[1] == 'Z');
    size_t n = size + (prefix ? 2 : 0);
    char* raw = malloc(n + 1);
    if (prefix) {
        memcpy(raw, "_Z", 2);
    }
    if (size > 0) {
        memcpy(raw + (prefix ? 2 : 0), data, size);
    }
    raw[n] = '\0';

    char* norm = Names_normalize(raw, n);
    size_t nl = strlen(norm);
    int capped = 0;
    char* full = Names_demangle(norm, nl, &capped);
    size_t full_len = full ? strlen(full) : 0;
    if (full_len > NAMES_DEMANGLE_MAX) {
        fail("demangled text over NAMES_DEMANGLE_MAX", full_len, NAMES_DEMANGLE_MAX);
    }
    if (capped && full) {
        fail("a capped name returned text", full_len, NAMES_DEMANGLE_MAX);
    }
    int small_capped = 0;
    char* part = Names_demangleCapped(norm, nl, small, &small_capped);
    size_t part_len = part ? strlen(part) : 0;
    if (part_len > small) {
        fail("demangled text over the small cap", part_len, small);
    }
    if (small_capped && part) {
        fail("a capped name returned text", part_len, small);
    }
    if (full && !part && !(small_capped && full_len > small)) {
        fail("cut by the small cap though its text fits", full_len, small);
    }
    if (part && (!full || strcmp(part, full) != 0)) {
        fail("the small cap gave other text", part_len, small);
    }
    if (!full && !capped && part) {
        fail("demangled under the small cap only", part_len, small);
    }

    /* the rest of the loader's path, on what it would store */
    const char* name = norm;
    char* clean = NULL;
    if (full) {
        clean = Names_sanitize(full, full_len);
        name = clean;
    }
    free(Names_short(name));
    RuleSet_classify(rules(), name, strlen(name));
    free(clean);
    free(part);
    free(full);
    free(norm);
    free(raw);
    return 0;
}
