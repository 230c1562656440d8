/* shortname_internal.h - what the shortener's three files share (private to src/model):
 * shortname.c fits names to a width, shortname_keys.c finds the words that tell names
 * apart, shortname_registry.c gives the loaded kernels their short names. */
#ifndef DCUTOP_SHORTNAME_INTERNAL_H
#define DCUTOP_SHORTNAME_INTERNAL_H

typedef struct {
    int s, e; /* byte range [s, e) */
} Span;

static inline int sn_is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static inline int sn_is_ident(char c) {
    return sn_is_alnum(c) || c == '_';
}

static inline int sn_is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* 1 if s[a, b) is all digits. */
int ShortName_allDigits(const char* s, int a, int b);

/* s without namespace qualifiers ("at::native::", "(anonymous namespace)::"); new string. */
char* ShortName_stripNamespaces(const char* s);

/* The registered full name, short name and keys of a loaded kernel given its full or short
 * name (borrowed, valid until ShortName_forget); 0 when none is registered. */
int ShortName_lookup(const char* name, const char** full, const char** shrt, const char** keys);

#endif
