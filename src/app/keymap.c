/* keymap.c - actions, key names, bindings. */
#include "dcutop/keymap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/format.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"

#define ACTION_NAME(id, name, help) name,
static const char* const action_names[] = {ACTION_INFO(ACTION_NAME)};
#undef ACTION_NAME
#define ACTION_HELP(id, name, help) help,
static const char* const action_help[] = {ACTION_INFO(ACTION_HELP)};
#undef ACTION_HELP

const char* Action_name(Action a) {
    return a < ACT_COUNT ? action_names[a] : "?";
}

const char* Action_help(Action a) {
    return a < ACT_COUNT ? action_help[a] : "?";
}

int Action_byName(const char* name) {
    for (int i = 0; i < ACT_COUNT; i++) {
        if (strcmp(action_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

static const struct {
    const char* name;
    int key;
} key_names[] = {
    {"Up", KC_UP},         {"Down", KC_DOWN},   {"Left", KC_LEFT},     {"Right", KC_RIGHT},
    {"PgUp", KC_PGUP},     {"PgDown", KC_PGDOWN}, {"Home", KC_HOME},   {"End", KC_END},
    {"Enter", KC_ENTER},   {"Esc", KC_ESC},     {"Backspace", KC_BACKSPACE}, {"Tab", KC_TAB},
    {"S-Tab", KC_BTAB},    {"Delete", KC_DELETE}, {"Resize", KC_RESIZE}, {"F1", KC_F1},
    {"F2", KC_F2},         {"F3", KC_F3},       {"F4", KC_F4},         {"F5", KC_F5},
    {"F6", KC_F6},         {"F7", KC_F7},       {"F8", KC_F8},         {"F9", KC_F9},
    {"F10", KC_F10},       {"F11", KC_F11},     {"F12", KC_F12},       {"Space", ' '},
    {"Lt", '<'},           {"Gt", '>'},
};

void Key_name(int key, char* buf, int cap) {
    for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
        /* '<' and '>' show as themselves (the rc file and scripts read a lone '<' too) */
        if (key_names[i].key == key && key != '>' && key != '<') {
            snprintf(buf, (size_t)cap, "<%s>", key_names[i].name);
            return;
        }
    }
    if (key > 0 && key < 32) {
        snprintf(buf, (size_t)cap, "<C-%c>", key + 'a' - 1);
    } else if (key < 0x80) {
        snprintf(buf, (size_t)cap, "%c", key);
    } else if (key < KEY_CODE_BASE) {
        char u[5] = {0};
        Format_utf8Encode((unsigned int)key, u);
        snprintf(buf, (size_t)cap, "%s", u);
    } else {
        snprintf(buf, (size_t)cap, "<?>");
    }
}

int Key_parse(const char** s) {
    const unsigned char* p = (const unsigned char*)*s;
    if (!*p) {
        return -1;
    }
    if (*p == '<') {
        const char* close = strchr((const char*)p, '>');
        if (close && close > (const char*)p + 1) {
            size_t n = (size_t)(close - (const char*)p - 1);
            char name[32];
            if (n < sizeof(name)) {
                memcpy(name, p + 1, n);
                name[n] = '\0';
                for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
                    if (strcasecmp(key_names[i].name, name) == 0) {
                        *s = close + 1;
                        return key_names[i].key;
                    }
                }
                if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-' && name[2] && !name[3]) {
                    *s = close + 1;
                    return KC_CTRL(name[2]);
                }
            }
            return -1;
        }
        (*s)++;
        return '<'; /* a lone '<' */
    }
    /* one UTF-8 character */
    int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : 4;
    int cp = len == 1 ? *p : *p & (0xFF >> (len + 1));
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            return -1;
        }
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    *s += len;
    return cp;
}

/* Every screen name bindings may use, in the order the help lists them. */
static const char* const screens[] = {"generic", "summary",  "hotspots", "categories", "kernel",
                                      "dispatches", "api",    "copies",   "files",      "help",
                                      "stacks",  "trace",    "diff",     "sql",        "runs",
                                      "efficiency", "ranks", "ops"};
#define N_SCREENS ((int)(sizeof(screens) / sizeof(screens[0])))

const char* Keymap_screen(int i) {
    return i >= 0 && i < N_SCREENS ? screens[i] : NULL;
}

int Keymap_isScreen(const char* name) {
    for (size_t i = 0; i < sizeof(screens) / sizeof(screens[0]); i++) {
        if (strcmp(screens[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

typedef struct Binding_ {
    char screen[16];
    int key;
    Action action;
} Binding;

struct Keymap_ {
    Binding* b;
    int n, cap;
};

/* Defaults: htop / perf report / vim habits (PRODUCT.md 4). */
static const struct {
    const char* screen;
    int key;
    Action action;
} defaults[] = {
    {"generic", KC_UP, ACT_MOVE_UP},        {"generic", 'k', ACT_MOVE_UP},
    {"generic", KC_DOWN, ACT_MOVE_DOWN},    {"generic", 'j', ACT_MOVE_DOWN},
    {"generic", KC_PGUP, ACT_PAGE_UP},      {"generic", KC_CTRL('b'), ACT_PAGE_UP},
    {"generic", KC_PGDOWN, ACT_PAGE_DOWN},  {"generic", KC_CTRL('f'), ACT_PAGE_DOWN},
    {"generic", ' ', ACT_PAGE_DOWN},        {"generic", KC_HOME, ACT_MOVE_FIRST},
    {"generic", 'g', ACT_MOVE_FIRST},       {"generic", KC_END, ACT_MOVE_LAST},
    {"generic", 'G', ACT_MOVE_LAST},        {"generic", KC_ENTER, ACT_ENTER},
    {"generic", KC_RIGHT, ACT_ENTER},       {"generic", KC_ESC, ACT_BACK},
    {"generic", KC_LEFT, ACT_BACK},         {"generic", KC_BACKSPACE, ACT_BACK},
    {"generic", KC_TAB, ACT_NEXT_SCREEN},   {"generic", KC_BTAB, ACT_PREV_SCREEN},
    {"generic", '1', ACT_SCREEN_SUMMARY},   {"generic", '2', ACT_SCREEN_HOTSPOTS},
    {"generic", '3', ACT_SCREEN_CATEGORIES}, {"generic", '4', ACT_SCREEN_API},
    {"generic", '5', ACT_SCREEN_COPIES},    {"generic", '6', ACT_SCREEN_STACKS},
    {"generic", '7', ACT_SCREEN_DIFF},      {"generic", '0', ACT_SCREEN_FILES},
    {"generic", KC_F6, ACT_SORT_MENU},      {"generic", '<', ACT_SORT_PREV},
    {"generic", '>', ACT_SORT_NEXT},        {"generic", 'r', ACT_SORT_REVERSE},
    {"generic", '/', ACT_FILTER},           {"generic", 'n', ACT_MATCH_NEXT},
    {"generic", 'N', ACT_MATCH_PREV},       {"generic", 'c', ACT_CATEGORY},
    {"generic", 'e', ACT_EXPORT},           {"generic", KC_F1, ACT_HELP},
    {"generic", '?', ACT_HELP},             {"generic", KC_CTRL('l'), ACT_REDRAW},
    {"generic", 'q', ACT_QUIT_OR_BACK},             {"generic", KC_F10, ACT_QUIT},
    {"generic", KC_CTRL('c'), ACT_QUIT},
    {"categories", '+', ACT_WHATIF_UP},     {"categories", '-', ACT_WHATIF_DOWN},
    {"categories", '=', ACT_WHATIF_SET},    {"categories", 'x', ACT_WHATIF_CLEAR},
    {"generic", 'w', ACT_AMDAHL_BASIS},     {"api", 'i', ACT_COLD_SPLIT},
    {"copies", 'i', ACT_COLD_SPLIT},
    {"stacks", '+', ACT_EXPAND},            {"stacks", KC_RIGHT, ACT_EXPAND},
    {"stacks", '-', ACT_COLLAPSE},          {"stacks", KC_LEFT, ACT_COLLAPSE},
    {"stacks", 'E', ACT_EXPAND_ALL},        {"stacks", 'C', ACT_COLLAPSE_ALL},
    {"stacks", 'm', ACT_TREE_MODE},         {"stacks", 'f', ACT_FOLD},
    {"stacks", 't', ACT_TREE_SOURCE},
    {"generic", '8', ACT_SCREEN_TRACE},     {"trace", 'L', ACT_TRACE_LANE},
    {"summary", 'l', ACT_TRACE_GAP},
    {"trace", '[', ACT_ROI_START},          {"trace", ']', ACT_ROI_END},
    {"dispatches", '[', ACT_ROI_START},     {"dispatches", ']', ACT_ROI_END},
    {"generic", 'I', ACT_ROI_ITERATION},
    {"diff", 'v', ACT_DIFF_VIEW},
    {"generic", ';', ACT_SQL_PROMPT},
    {"generic", 'U', ACT_SCREEN_RUNS},      {"generic", 'R', ACT_RUN_SCOPE},
    {"runs", 'a', ACT_MARK_A},              {"runs", 'b', ACT_MARK_B},
    {"generic", 'F', ACT_SCREEN_EFFICIENCY}, {"generic", 'O', ACT_SCREEN_OPS},
    {"generic", '9', ACT_SCREEN_RANKS},
};

static void add(Keymap* this, const char* screen, int key, Action a) {
    for (int i = 0; i < this->n; i++) {
        if (this->b[i].key == key && strcmp(this->b[i].screen, screen) == 0) {
            this->b[i].action = a;
            return;
        }
    }
    if (this->n == this->cap) {
        this->cap = this->cap ? this->cap * 2 : 64;
        this->b = xrealloc(this->b, sizeof(Binding) * (size_t)this->cap);
    }
    snprintf(this->b[this->n].screen, sizeof(this->b[this->n].screen), "%s", screen);
    this->b[this->n].key = key;
    this->b[this->n].action = a;
    this->n++;
}

Keymap* Keymap_new(void) {
    Keymap* this = xcalloc(1, sizeof(*this));
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
        add(this, defaults[i].screen, defaults[i].key, defaults[i].action);
    }
    return this;
}

void Keymap_delete(Keymap* this) {
    if (!this) {
        return;
    }
    free(this->b);
    free(this);
}

Action Keymap_lookup(const Keymap* this, const char* screen, int key) {
    for (int i = 0; i < this->n; i++) {
        if (this->b[i].key == key && strcmp(this->b[i].screen, screen) == 0) {
            return this->b[i].action;
        }
    }
    for (int i = 0; i < this->n; i++) {
        if (this->b[i].key == key && strcmp(this->b[i].screen, "generic") == 0) {
            return this->b[i].action;
        }
    }
    return ACT_NONE;
}

DcuStatus Keymap_parseRc(Keymap* this, const char* text, const char* source, DcuError* err) {
    int lineno = 0, bad = 0;
    const char* p = text;
    DcuError first;
    Error_clear(&first);
    while (*p) {
        const char* nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char* line = xstrndup(p, len);
        p += len + (nl ? 1 : 0);
        lineno++;
        char* w[4];
        int n = 0;
        for (char* tok = strtok(line, " \t\r"); tok && n < 4; tok = strtok(NULL, " \t\r")) {
            if (tok[0] == '#' && n != 2) {
                break;
            }
            w[n++] = tok;
        }
        DcuStatus s = DCU_OK;
        if (n == 0) {
            free(line);
            continue;
        }
        const char* kp = n > 2 ? w[2] : "";
        int key = n == 4 ? Key_parse(&kp) : -1;
        int a = n == 4 ? Action_byName(w[3]) : -1;
        if (n != 4 || strcmp(w[0], "bind") != 0) {
            s = Error_set(err, DCU_ERR_USAGE, "%s:%d: expected 'bind SCREEN KEY ACTION'", source,
                          lineno);
        } else if (!Keymap_isScreen(w[1])) {
            s = Error_set(err, DCU_ERR_USAGE,
                          "%s:%d: unknown screen '%s' (generic, summary, hotspots, categories, "
                          "kernel, dispatches, api, copies, files, help, stacks, trace, diff, sql, "
                          "runs, efficiency)",
                          source, lineno, w[1]);
        } else if (key < 0 || *kp) {
            s = Error_set(err, DCU_ERR_USAGE, "%s:%d: bad key '%s' (e.g. x, <Enter>, <C-f>, <F6>)",
                          source, lineno, w[2]);
        } else if (a < 0) {
            s = Error_set(err, DCU_ERR_USAGE, "%s:%d: unknown action '%s' (see the help screen)",
                          source, lineno, w[3]);
        } else {
            add(this, w[1], key, (Action)a);
        }
        free(line);
        if (s != DCU_OK && bad++ == 0) {
            first = *err; /* a typo costs its line only: the rest still loads (htop, tig) */
        }
    }
    if (bad == 0) {
        return DCU_OK;
    }
    *err = first;
    if (bad > 1) {
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof(err->msg) - len, " (and %d more bad line%s)", bad - 1,
                 bad > 2 ? "s" : "");
    }
    return DCU_ERR_USAGE;
}

DcuStatus Keymap_loadRc(Keymap* this, const char* path, DcuError* err) {
    char* owned = NULL;
    if (!path) {
        const char* xdg = getenv("XDG_CONFIG_HOME");
        const char* home = getenv("HOME");
        if (xdg && *xdg) {
            owned = xasprintf("%s/dcutop/dcutoprc", xdg);
        } else if (home && *home) {
            owned = xasprintf("%s/.config/dcutop/dcutoprc", home);
        } else {
            return DCU_OK;
        }
        path = owned;
    }
    /* the default rc must be a regular file (a FIFO there would block the start); a path
     * given on purpose may be a pipe */
    FILE* f = owned ? SafeFile_fopen(path, NULL) : fopen(path, "rb");
    if (!f) {
        free(owned);
        return DCU_OK; /* no rc file is the normal case */
    }
    /* whole, up to KEYMAP_RC_MAX: never a silent cut (a pipe given on purpose has no size) */
    size_t cap = 65536, n = 0, r;
    char* text = xmalloc(cap);
    while ((r = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap && cap <= KEYMAP_RC_MAX) {
            xgrow((void**)&text, &cap, cap * 2);
        } else if (n + 1 == cap) {
            break;
        }
    }
    fclose(f);
    text[n] = '\0';
    DcuStatus s = n > KEYMAP_RC_MAX
                      ? Error_set(err, DCU_ERR_USAGE, "%s: larger than %d MiB: not read (default keys)",
                                  path, KEYMAP_RC_MAX >> 20)
                      : Keymap_parseRc(this, text, path, err);
    free(text);
    free(owned);
    return s;
}

void Keymap_keysFor(const Keymap* this, const char* screen, Action a, char* buf, int cap) {
    buf[0] = '\0';
    int len = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < this->n; i++) {
            const Binding* b = &this->b[i];
            int here = strcmp(b->screen, pass == 0 ? screen : "generic") == 0;
            if (!here || b->action != a) {
                continue;
            }
            /* a generic binding overridden on this screen does not count */
            if (pass == 1 && strcmp(screen, "generic") != 0 &&
                Keymap_lookup(this, screen, b->key) != a) {
                continue;
            }
            char k[16];
            Key_name(b->key, k, sizeof(k));
            if (strstr(buf, k) && strlen(k) > 1) {
                continue;
            }
            len += snprintf(buf + len, (size_t)(cap - len), "%s%s", len ? " " : "", k);
            if (len >= cap) {
                return;
            }
        }
        if (strcmp(screen, "generic") == 0) {
            break;
        }
    }
}

int Keymap_actionsOn(const Keymap* this, const char* screen, Action* out, int max) {
    int n = 0;
    for (int i = 0; i < this->n && n < max; i++) {
        const Binding* b = &this->b[i];
        if (strcmp(b->screen, screen) != 0 || b->action == ACT_NONE) {
            continue;
        }
        int seen = 0;
        for (int j = 0; j < n; j++) {
            seen |= out[j] == b->action;
        }
        if (!seen) {
            out[n++] = b->action;
        }
    }
    return n;
}

int Keymap_isBound(const Keymap* this, Action a) {
    for (int i = 0; i < this->n; i++) {
        if (this->b[i].action == a) {
            return 1;
        }
    }
    return 0;
}
