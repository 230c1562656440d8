/* shortname_base.c - the base form of a kernel's name (the text helpers both the fitting in
 * shortname.c and the registry in shortname_registry.c use, so neither calls the other). */
#include "dcutop/shortname.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "shortname_internal.h"

/* ---- the base form ---------------------------------------------------------------------- */

/* Drops namespace qualifiers ("at::native::", "std::", "(anonymous namespace)::"): the
 * class and function names carry the meaning. */
char* ShortName_stripNamespaces(const char* s) {
    size_t n = strlen(s), o = 0;
    char* out = xmalloc(n + 1);
    for (size_t i = 0; i < n;) {
        if (strncmp(s + i, "(anonymous namespace)::", 23) == 0) {
            i += 23;
            continue;
        }
        if (sn_is_ident(s[i]) && (i == 0 || !sn_is_ident(s[i - 1]))) {
            size_t j = i;
            while (j < n && sn_is_ident(s[j])) {
                j++;
            }
            if (j + 1 < n && s[j] == ':' && s[j + 1] == ':' && !sn_is_digit(s[i])) {
                i = j + 2; /* a qualifier: drop it */
                continue;
            }
            memcpy(out + o, s + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        out[o++] = s[i++];
    }
    out[o] = '\0';
    return out;
}

static int lone_keyword(const char* s) {
    static const char* const kw[] = {"void", "static", "inline", "__global__", "extern",
                                     "const", "int", "float", "double", "unsigned", "auto",
                                     "operator", "virtual", "template", NULL};
    if (!*s) {
        return 1;
    }
    for (int i = 0; kw[i]; i++) {
        if (strcmp(s, kw[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

char* ShortName_base(const char* full) {
    char* sh = Names_short(full);
    char* st = ShortName_stripNamespaces(sh);
    free(sh);
    if (lone_keyword(st)) { /* a parse gone wrong must not leave "void": keep all of it */
        free(st);
        st = ShortName_stripNamespaces(full);
        if (!*st) {
            free(st);
            st = xstrdup(full);
        }
    }
    return st;
}

