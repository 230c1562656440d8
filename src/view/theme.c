/* theme.c - style names and tig-style theme files. */
#include "dcutop/theme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"

extern const char dcutop_default_theme[]; /* generated from themes/default.theme */
extern const char dcutop_mono_theme[];    /* generated from themes/mono.theme */

#define STYLE_NAME(id, name, help) name,
static const char* const style_names[] = {STYLE_INFO(STYLE_NAME)};
#undef STYLE_NAME

const char* Theme_styleName(Style s) {
    return s < STYLE_COUNT ? style_names[s] : "?";
}

int Theme_styleByName(const char* name) {
    for (int i = 0; i < STYLE_COUNT; i++) {
        if (strcmp(style_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

static int parse_color(const char* s, short* out) {
    static const char* const names[] = {"black", "red",     "green", "yellow",
                                        "blue",  "magenta", "cyan",  "white"};
    if (strcmp(s, "default") == 0) {
        *out = THEME_COLOR_DEFAULT;
        return 1;
    }
    const char* base = s;
    int bright = 0;
    if (strncmp(s, "bright-", 7) == 0) {
        base = s + 7;
        bright = 8;
    }
    for (int i = 0; i < 8; i++) {
        if (strcmp(base, names[i]) == 0) {
            *out = (short)(i + bright);
            return 1;
        }
    }
    char* end;
    long v = strtol(s, &end, 10);
    if (*s && !*end && v >= 0 && v <= 255) {
        *out = (short)v;
        return 1;
    }
    return 0;
}

static int parse_attr(const char* s, int* attrs) {
    static const struct {
        const char* n;
        int a;
    } t[] = {{"normal", 0},
             {"bold", THEME_ATTR_BOLD},
             {"dim", THEME_ATTR_DIM},
             {"underline", THEME_ATTR_UNDERLINE},
             {"reverse", THEME_ATTR_REVERSE},
             {"italic", THEME_ATTR_ITALIC}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (strcmp(s, t[i].n) == 0) {
            *attrs |= t[i].a;
            return 1;
        }
    }
    return 0;
}

DcuStatus Theme_parse(Theme* t, const char* text, const char* source, DcuError* err) {
    Theme tmp = *t;
    int lineno = 0;
    const char* p = text;
    while (*p) {
        const char* nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char* line = xstrndup(p, len);
        p += len + (nl ? 1 : 0);
        lineno++;
        char* hash = strchr(line, '#');
        if (hash) {
            *hash = '\0';
        }
        char* words[8];
        int n = 0;
        for (char* tok = strtok(line, " \t\r"); tok && n < 8; tok = strtok(NULL, " \t\r")) {
            words[n++] = tok;
        }
        if (n == 0) {
            free(line);
            continue;
        }
        DcuStatus s = DCU_OK;
        int st;
        short fg, bg;
        int attrs = 0;
        if (strcmp(words[0], "color") != 0 || n < 4) {
            s = Error_set(err, DCU_ERR_USAGE, "%s:%d: expected 'color ELEMENT FG BG [ATTR...]'",
                          source, lineno);
        } else if ((st = Theme_styleByName(words[1])) < 0) {
            s = Error_set(err, DCU_ERR_USAGE, "%s:%d: unknown element '%s'", source, lineno,
                          words[1]);
        } else if (!parse_color(words[2], &fg) || !parse_color(words[3], &bg)) {
            s = Error_set(err, DCU_ERR_USAGE, "%s:%d: unknown color in '%s %s'", source, lineno,
                          words[2], words[3]);
        } else {
            for (int i = 4; i < n && s == DCU_OK; i++) {
                if (!parse_attr(words[i], &attrs)) {
                    s = Error_set(err, DCU_ERR_USAGE, "%s:%d: unknown attribute '%s'", source,
                                  lineno, words[i]);
                }
            }
            if (s == DCU_OK) {
                tmp.spec[st].fg = fg;
                tmp.spec[st].bg = bg;
                tmp.spec[st].attrs = attrs;
            }
        }
        free(line);
        if (s != DCU_OK) {
            return s;
        }
    }
    *t = tmp;
    return DCU_OK;
}

void Theme_initDefault(Theme* t) {
    memset(t, 0, sizeof(*t));
    for (int i = 0; i < STYLE_COUNT; i++) {
        t->spec[i].fg = THEME_COLOR_DEFAULT;
        t->spec[i].bg = THEME_COLOR_DEFAULT;
    }
    DcuError err;
    if (Theme_parse(t, dcutop_default_theme, "built-in", &err) != DCU_OK) {
        fprintf(stderr, "dcutop: built-in theme: %s\n", err.msg); /* a build defect */
    }
}

void Theme_makeMono(Theme* t) {
    for (int i = 0; i < STYLE_COUNT; i++) {
        t->spec[i].fg = THEME_COLOR_DEFAULT;
        t->spec[i].bg = THEME_COLOR_DEFAULT;
    }
    t->mono = 1;
}

/* The text of a theme file; NULL when there is none. A name that exists but is no regular
 * file (a folder, a FIFO: never waited on) is NULL with *why set to say so. */
static char* read_small(const char* path, DcuError* why) {
    DcuError e;
    Error_clear(&e);
    FILE* f = SafeFile_fopen(path, &e);
    if (!f) {
        struct stat st;
        if (stat(path, &st) == 0 && why->code == DCU_OK) {
            *why = e; /* "not a regular file: directory" */
        }
        return NULL;
    }
    size_t cap = 8192, len = 0, r;
    char* buf = xmalloc(cap);
    while ((r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (len + 1 >= cap) {
            if (cap > (1u << 20)) {
                break;
            }
            xgrow((void**)&buf, &cap, cap * 2);
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

DcuStatus Theme_load(Theme* t, const char* name, const char* themes_dir, DcuError* err) {
    char* text = NULL;
    char* used = NULL;
    DcuError why; /* a candidate that exists but is not a file */
    Error_clear(&why);
    char* bad = NULL;
    if (strchr(name, '/')) {
        used = xstrdup(name);
        text = read_small(used, &why);
        bad = why.code != DCU_OK ? xstrdup(used) : NULL;
    } else {
        const char* xdg = getenv("XDG_CONFIG_HOME");
        const char* home = getenv("HOME");
        char* cands[3] = {NULL, NULL, NULL};
        int n = 0;
        if (xdg && *xdg) {
            cands[n++] = xasprintf("%s/dcutop/themes/%s.theme", xdg, name);
        } else if (home && *home) {
            cands[n++] = xasprintf("%s/.config/dcutop/themes/%s.theme", home, name);
        }
        if (themes_dir) {
            cands[n++] = xasprintf("%s/%s.theme", themes_dir, name);
        }
        for (int i = 0; i < n && !text && !bad; i++) {
            text = read_small(cands[i], &why);
            if (text) {
                used = xstrdup(cands[i]);
            } else if (why.code != DCU_OK) {
                bad = xstrdup(cands[i]);
            }
        }
        for (int i = 0; i < n; i++) {
            free(cands[i]);
        }
        if (!text && !bad && strcmp(name, "default") == 0) {
            Theme_initDefault(t);
            return DCU_OK;
        }
        if (!text && !bad && strcmp(name, "mono") == 0) { /* NO_COLOR must work wherever installed */
            Theme_initDefault(t);
            return Theme_parse(t, dcutop_mono_theme, "built-in mono", err);
        }
    }
    if (bad) {
        DcuStatus s = Error_set(err, DCU_ERR_USAGE, "theme %s: %s", bad, why.msg);
        free(bad);
        free(used);
        return s;
    }
    if (!text) {
        DcuStatus s = Error_set(err, DCU_ERR_USAGE,
                                "theme '%s' not found (a NAME from themes/: default, mono, "
                                "light, high-contrast; or a PATH)",
                                name);
        free(used);
        return s;
    }
    Theme_initDefault(t);
    DcuStatus s = Theme_parse(t, text, used, err);
    free(text);
    free(used);
    return s;
}
