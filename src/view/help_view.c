/* help_view.c - the help screen, generated from the key table. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "dcutop/doc_view.h"
#include "dcutop/format.h"

static int same_section(const char* a, const char* b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Where an action's description starts: after "  KEYS(26) ACTION(18) ". */
enum { HELP_TEXT_X = 2 + 26 + 1 + 18 + 1 };

/* Text in lines of room cells, words kept whole; the lines after the first start at column
 * indent, under the first (a narrow terminal wraps the text rather than cut it). */
static void add_wrapped(Doc* d, const char* text, int room, int indent) {
    if (room < 16 || Format_width(text) <= room) {
        Doc_add(d, STYLE_DEFAULT, "%s", text);
        return;
    }
    const char* p = text;
    for (int first = 1; *p; first = 0) {
        int len = (int)strlen(p), take = len;
        if (Format_width(p) > room) {
            /* the last space that keeps the line within room cells */
            take = 0;
            for (int k = 1; k <= len; k++) {
                char part[512];
                snprintf(part, sizeof(part), "%.*s", k, p);
                if (Format_width(part) > room) {
                    break;
                }
                if (p[k] == ' ' || p[k] == '\0') {
                    take = k;
                }
            }
            if (take == 0) { /* one word longer than the room: cut it */
                take = room;
            }
        }
        if (!first) {
            Doc_line(d);
            Doc_add(d, STYLE_DEFAULT, "%*s", indent, "");
        }
        Doc_add(d, STYLE_DEFAULT, "%.*s", take, p);
        p += take;
        while (*p == ' ') {
            p++;
        }
    }
}

Doc* HelpView_build(const char* screen, const HelpEntry* e, int n, int width) {
    Doc* d = Doc_new();
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "  dcutop keys");
    Doc_add(d, STYLE_DIM, "  (on the %s screen)", screen);
    Doc_line(d);
    Doc_add(d, STYLE_DIM, "  Rebind in $XDG_CONFIG_HOME/dcutop/dcutoprc: 'bind SCREEN KEY ACTION'");
    Doc_line(d);
    for (int i = 0; i < n; i++) {
        if (i == 0 || !same_section(e[i - 1].section, e[i].section)) {
            if (i > 0) {
                Doc_line(d);
            }
            Doc_line(d);
            if (!e[i].section) {
                Doc_add(d, STYLE_TITLE, "  Without a key (bind one in the rc file)");
            } else if (strcmp(e[i].section, "generic") == 0) {
                Doc_add(d, STYLE_TITLE, "  Every screen");
            } else {
                Doc_add(d, STYLE_TITLE, "  %c%s screen%s", toupper((unsigned char)e[i].section[0]),
                        e[i].section + 1, strcmp(e[i].section, screen) == 0 ? " (this one)" : "");
            }
        }
        char fit[96];
        Format_fit(e[i].keys[0] ? e[i].keys : e[i].section ? "(not on this screen)" : "-", 26,
                   0, fit, sizeof(fit));
        Doc_line(d);
        Doc_add(d, e[i].keys[0] ? STYLE_FOOTER_KEY : STYLE_DIM, "  %s", fit);
        Format_fit(e[i].action, 18, 0, fit, sizeof(fit));
        Doc_add(d, STYLE_DIM, " %s ", fit);
        add_wrapped(d, e[i].help, width - HELP_TEXT_X - 1, HELP_TEXT_X);
    }
    Doc_line(d);
    Doc_line(d);
    Doc_add(d, STYLE_TITLE, "  Numbers");
    Doc_line(d);
    Doc_add(d, STYLE_DEFAULT, "  ");
    add_wrapped(d, "%Time is a share of total device kernel time. Ceiling = 1/(1-p): the "
                   "whole-program speedup at most if that part took no time; with a what-if k: "
                   "1/((1-p)+p/k). These are upper bounds over device kernel time; host API "
                   "time is a different layer.",
                width > 100 ? 84 : width - 3, 2);
    return d;
}
