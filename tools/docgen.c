/* docgen.c - writes the generated documents from the program's own tables: the key table
 * (Keymap_new's default bindings, the actions' names and help) and the option table (the
 * usage text of Cli_usage(), which --help prints). `make docs` runs it through
 * tools/gen-docs.sh; tests/cli/test_docs.sh fails when the committed files differ.
 *
 *   docgen keys-md      doc/keys.md
 *   docgen options-md   doc/options.md
 *   docgen man          the generated part of dcutop.1 (MODES, OPTIONS, COMPARISON, KEYS)
 *
 * Linked with the app library (no curses, no main): nothing here is a second copy of a
 * table, so a binding or an option added to the program appears in the documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/cli.h"
#include "dcutop/keymap.h"

/* ---- the option table: the usage text, parsed ------------------------------------------ */

enum { DESC_COL = 25, MAX_ROWS = 256 };

typedef struct Row_ {
    char section[64]; /* "Modes", "Options", "Comparison", "Inputs" */
    char opt[96];     /* "-o, --output FILE" */
    char desc[1024];
} Row;

static Row rows[MAX_ROWS];
static int n_rows;
static char exit_text[512];

static void trim_right(char* s) {
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n')) {
        s[--n] = '\0';
    }
}

/* Appends " text" (or "text" to an empty dst); a text that does not fit is left out. */
static void append(char* dst, size_t cap, const char* text) {
    size_t n = strlen(dst), t = strlen(text);
    if (n + 1 + t >= cap) {
        return;
    }
    if (n) {
        dst[n++] = ' ';
    }
    memcpy(dst + n, text, t + 1);
}

/* One line of the usage text. A section header ends with ':' at column 0; an entry starts
 * with two spaces, its option, then its description at column 25 (or after two spaces when
 * the option is longer); a line indented to column 25 continues the description. */
static void parse_line(const char* line, char* section, size_t cap) {
    size_t len = strlen(line);
    if (len == 0) {
        return;
    }
    if (strncmp(line, "Exit status:", 12) == 0 || (exit_text[0] && line[0] != ' ')) {
        append(exit_text, sizeof(exit_text), line);
        return;
    }
    if (line[0] != ' ') {
        if (line[len - 1] == ':') {
            snprintf(section, cap, "%.*s", (int)strcspn(line, " :("), line);
        }
        return; /* the title lines */
    }
    if (!section[0]) {
        return;
    }
    size_t lead = strspn(line, " ");
    if (lead >= DESC_COL - 1 && n_rows > 0) {
        append(rows[n_rows - 1].desc, sizeof(rows[0].desc), line + lead);
        return;
    }
    if (n_rows == MAX_ROWS) {
        return;
    }
    Row* r = &rows[n_rows++];
    snprintf(r->section, sizeof(r->section), "%s", section);
    size_t split;
    if (len > DESC_COL && line[DESC_COL - 1] == ' ' && line[DESC_COL] != ' ') {
        split = DESC_COL;
    } else {
        const char* two = strstr(line + lead, "  ");
        split = two ? (size_t)(two - line) : len;
    }
    snprintf(r->opt, sizeof(r->opt), "%.*s", (int)(split - lead), line + lead);
    trim_right(r->opt);
    const char* d = line + split;
    d += strspn(d, " ");
    snprintf(r->desc, sizeof(r->desc), "%s", d);
}

static void parse_usage(void) {
    const char* u = Cli_usage();
    char section[64] = "";
    while (*u) {
        size_t n = strcspn(u, "\n");
        char line[512];
        snprintf(line, sizeof(line), "%.*s", (int)n, u);
        trim_right(line);
        parse_line(line, section, sizeof(section));
        u += n + (u[n] == '\n');
    }
}

/* ---- markdown and man escaping --------------------------------------------------------- */

static void md_cell(const char* s) {
    for (; *s; s++) {
        if (*s == '|') {
            fputs("\\|", stdout);
        } else if (*s == '<' || *s == '>' || *s == '*') {
            printf("\\%c", *s); /* outside code spans these would be markup */
        } else {
            putchar(*s);
        }
    }
}

/* Text in a code span: backticks in the text need a longer fence. */
static void md_code(const char* s) {
    const char* fence = strchr(s, '`') ? "``" : "`";
    const char* pad = strchr(s, '`') ? " " : "";
    printf("%s%s", fence, pad);
    for (; *s; s++) {
        if (*s == '|') {
            fputs("\\|", stdout);
        } else {
            putchar(*s);
        }
    }
    printf("%s%s", pad, fence);
}

static void man_text(const char* s) {
    if (*s == '.' || *s == '\'') {
        fputs("\\&", stdout);
    }
    for (; *s; s++) {
        if (*s == '-') {
            fputs("\\-", stdout);
        } else if (*s == '\\') {
            fputs("\\e", stdout);
        } else {
            putchar(*s);
        }
    }
}

/* ---- the key table ------------------------------------------------------------------- */

typedef void (*KeyRow)(const char* keys, const char* action, const char* help);
typedef void (*KeySection)(const char* screen); /* NULL: the actions without a key */

static void each_key(const Keymap* km, KeySection section, KeyRow row) {
    for (int i = 0; Keymap_screen(i); i++) {
        const char* screen = Keymap_screen(i);
        Action acts[ACT_COUNT];
        int n = Keymap_actionsOn(km, screen, acts, ACT_COUNT);
        if (n == 0) {
            continue;
        }
        section(screen);
        for (int j = 0; j < n; j++) {
            char keys[128];
            Keymap_keysFor(km, screen, acts[j], keys, (int)sizeof(keys));
            row(keys, Action_name(acts[j]), Action_help(acts[j]));
        }
    }
    int first = 1;
    for (int a = 1; a < ACT_COUNT; a++) {
        if (!Keymap_isBound(km, (Action)a)) {
            if (first) {
                section(NULL);
                first = 0;
            }
            row("", Action_name((Action)a), Action_help((Action)a));
        }
    }
}

static void screen_title(const char* screen, char* buf, size_t cap) {
    if (!screen) {
        snprintf(buf, cap, "Without a key (bind one in the rc file)");
    } else if (strcmp(screen, "generic") == 0) {
        snprintf(buf, cap, "Every screen");
    } else {
        snprintf(buf, cap, "%c%s screen", screen[0] - 'a' + 'A', screen + 1);
    }
}

static void md_section(const char* screen) {
    char t[64];
    screen_title(screen, t, sizeof(t));
    printf("\n## %s\n\n", t);
    if (screen) {
        printf("`bind` name: `%s`\n\n", screen);
    }
    printf("| keys | action | what |\n| --- | --- | --- |\n");
}

static void md_row(const char* keys, const char* action, const char* help) {
    printf("| ");
    char k[128];
    snprintf(k, sizeof(k), "%s", keys);
    int n = 0;
    for (char* tok = strtok(k, " "); tok; tok = strtok(NULL, " ")) {
        printf("%s", n++ ? " " : "");
        md_code(tok);
    }
    if (n == 0) {
        printf("-");
    }
    printf(" | ");
    md_code(action);
    printf(" | ");
    md_cell(help);
    printf(" |\n");
}

static void man_section(const char* screen) {
    char t[64];
    screen_title(screen, t, sizeof(t));
    printf(".SS ");
    man_text(t);
    printf("\n");
}

static void man_row(const char* keys, const char* action, const char* help) {
    printf(".TP\n.B ");
    man_text(keys[0] ? keys : "(no key)");
    printf("\n");
    man_text(help);
    printf(" (");
    man_text(action);
    printf(")\n");
}

/* ---- the three documents --------------------------------------------------------------- */

static void keys_md(const Keymap* km) {
    printf("# dcutop keys\n\n");
    printf("<!-- Generated by `make docs` from the program's key table; do not edit. -->\n\n");
    printf("Every key of the interactive view, by screen, as `F1` (or `?`) shows it. The keys\n"
           "of \"Every screen\" work everywhere unless a screen binds the same key to something\n"
           "else (its own table then says so). Rebind in `$XDG_CONFIG_HOME/dcutop/dcutoprc`\n"
           "(default `~/.config/dcutop/dcutoprc`), one line per binding:\n\n"
           "    # bind SCREEN KEY ACTION\n"
           "    bind generic x screen-categories\n"
           "    bind hotspots s sort-next\n"
           "    bind generic <C-x> quit\n\n"
           "SCREEN is the `bind` name under each heading below (`generic`: every screen;\n");
    printf("the others:");
    for (int i = 1; Keymap_screen(i); i++) {
        printf("%s%s`%s`", i > 1 ? "," : "", i % 8 == 0 ? "\n" : " ", Keymap_screen(i));
    }
    printf(").\nKEY is a character or a name in angle brackets (`<Enter>`, `<C-f>`, `<F6>`,\n"
           "`<S-Tab>`, `<Lt>` for `<`); ACTION is a name of the action column. A line with a\n"
           "typo is skipped: dcutop starts and names the first bad line on the status line.\n");
    each_key(km, md_section, md_row);
}

static void options_md(void) {
    printf("# dcutop options\n\n");
    printf("<!-- Generated by `make docs` from the program's option table (`dcutop --help`); "
           "do not edit. -->\n\n");
    printf("    dcutop [OPTIONS] PATH...\n\n"
           "PATH is a trace folder (searched recursively) or a single file; several may be\n"
           "given. What each option is for, by task: [the manual](manual.md).\n");
    const char* last = "";
    for (int i = 0; i < n_rows; i++) {
        const Row* r = &rows[i];
        if (strcmp(r->section, last) != 0) {
            last = r->section;
            printf("\n## %s\n\n| %s | meaning |\n| --- | --- |\n", r->section,
                   strcmp(r->section, "Inputs") == 0 ? "input" : "option");
        }
        printf("| ");
        md_code(r->opt);
        printf(" | ");
        md_cell(r->desc);
        printf(" |\n");
    }
    if (exit_text[0]) {
        printf("\n## Exit status\n\n%s\n", exit_text + strlen("Exit status: "));
    }
}

static void man(const Keymap* km) {
    printf(".\\\" Generated by `make docs` from the option and key tables; do not edit here.\n");
    const char* last = "";
    for (int i = 0; i < n_rows; i++) {
        const Row* r = &rows[i];
        if (strcmp(r->section, last) != 0) {
            int first_option = strcmp(last, "Inputs") == 0 || !last[0];
            last = r->section;
            if (strcmp(r->section, "Inputs") == 0) {
                printf(".SH INPUT FORMATS\n"
                       "Files are recognised by their content, never only by their name; "
                       "doc/formats.md says what is read from each.\n");
            } else {
                if (first_option) {
                    printf(".SH OPTIONS\n");
                }
                printf(".SS %s\n", r->section);
                if (strcmp(r->section, "Comparison") == 0) {
                    printf("A is the baseline, B the candidate.\n");
                }
            }
        }
        printf(".TP\n.B ");
        man_text(r->opt);
        printf("\n");
        man_text(r->desc);
        printf("\n");
    }
    printf(".SH KEYS\n"
           "The full\\-screen view uses htop, perf report and vim habits; \\fBF1\\fR or \\fB?\\fR\n"
           "shows these keys with their real bindings, the current screen first. Keys are\n"
           "rebound with \\fBbind\\fR \\fISCREEN KEY ACTION\\fR lines in the rc file (see FILES).\n");
    each_key(km, man_section, man_row);
}

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "";
    parse_usage();
    Keymap* km = Keymap_new();
    int rc = 0;
    if (strcmp(what, "keys-md") == 0) {
        keys_md(km);
    } else if (strcmp(what, "options-md") == 0) {
        options_md();
    } else if (strcmp(what, "man") == 0) {
        man(km);
    } else {
        fprintf(stderr, "usage: docgen keys-md|options-md|man\n");
        rc = 2;
    }
    Keymap_delete(km);
    return rc;
}
