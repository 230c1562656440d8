/* script.c - the headless key-script runner. */
#include "dcutop/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcutop/xalloc.h"

int Script_parseSize(const char* s, int* w, int* h) {
    char* end;
    long a = strtol(s, &end, 10);
    if (*end != 'x' && *end != 'X') {
        return 0;
    }
    long b = strtol(end + 1, &end, 10);
    if (*end || a < 10 || b < 4 || a > 1000 || b > 500) {
        return 0;
    }
    *w = (int)a;
    *h = (int)b;
    return 1;
}

/* ":mouse click|double|wheel-up|wheel-down X Y": the event a terminal would report. */
static DcuStatus mouse_line(App* app, const char* args, const char* path, long lineno,
                            DcuError* err) {
    static const char* const kinds[] = {"click", "double", "wheel-up", "wheel-down"};
    char kind[16];
    int x, y, k = -1;
    if (sscanf(args, "%15s %d %d", kind, &x, &y) == 3) {
        for (int i = 0; i < 4; i++) {
            k = strcmp(kind, kinds[i]) == 0 ? i : k;
        }
    }
    if (k < 0 || x < 0 || y < 0) {
        return Error_set(err, DCU_ERR_USAGE,
                         "%s:%ld: expected ':mouse click|double|wheel-up|wheel-down X Y'", path,
                         lineno);
    }
    App_mouse(app, (MouseKind)k, x, y);
    App_render(app);
    return DCU_OK;
}

DcuStatus Script_run(App* app, const char* path, FILE* out, KeyTiming* timing, DcuError* err) {
    FILE* f = fopen(path, "r");
    if (!f) {
        return Error_set(err, DCU_ERR_IO, "%s: cannot open key script", path);
    }
    char* line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    DcuStatus s = DCU_OK;
    App_render(app);
    KeyTiming_first(timing, app);
    while (App_idle(app, NULL)) { /* as while a user reads the first screen */
        App_render(app);
        KeyTiming_idle(timing, app);
    }
    while (s == DCU_OK && !App_quitting(app) && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
            line[--n] = '\0';
        }
        if (n == 0 || line[0] == '#') {
            continue;
        }
        if (line[0] == ':') {
            if (strncmp(line, ":dump-styles ", 13) == 0 || strncmp(line, ":dump ", 6) == 0) {
                int styles = line[5] == '-';
                const Canvas* c = App_render(app);
                fprintf(out, "--- %s (%dx%d) ---\n", line + (styles ? 13 : 6), c->w, c->h);
                Canvas_dump(c, out);
                if (styles) {
                    Canvas_dumpStyles(c, out);
                }
            } else if (strncmp(line, ":resize ", 8) == 0) {
                int w, h;
                if (!Script_parseSize(line + 8, &w, &h)) {
                    s = Error_set(err, DCU_ERR_USAGE, "%s:%ld: bad size '%s' (WxH)", path, lineno,
                                  line + 8);
                    break;
                }
                App_resize(app, w, h);
                App_key(app, KC_RESIZE);
            } else if (strcmp(line, ":quit") == 0) {
                break;
            } else if (strncmp(line, ":mouse ", 7) == 0) {
                s = mouse_line(app, line + 7, path, lineno, err);
            } else {
                s = Error_set(err, DCU_ERR_USAGE,
                              "%s:%ld: unknown directive '%s' (:dump, :dump-styles, :resize, "
                              ":mouse, :quit)",
                              path, lineno, line);
            }
            continue;
        }
        const char* p = line;
        while (*p && !App_quitting(app)) {
            int key = Key_parse(&p);
            if (key < 0) {
                s = Error_set(err, DCU_ERR_USAGE, "%s:%ld: bad key name near '%.20s'", path,
                              lineno, p);
                break;
            }
            double t0 = KeyTiming_nowUs();
            App_key(app, key);
            App_render(app);
            KeyTiming_key(timing, key, t0, app);
            while (App_idle(app, NULL)) { /* as while a user reads the screen: not timed */
            }
        }
    }
    free(line);
    fclose(f);
    return s;
}
