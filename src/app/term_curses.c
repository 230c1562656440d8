/* term_curses.c - the only file that includes <curses.h>: colors from the theme, a Canvas
 * copied to the screen, keys read and mapped to dcutop key codes, resize, clean exits. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "dcutop/term.h"

#include <curses.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dcutop/format.h"
#include "dcutop/keymap.h"

static int active;
static int utf8;
static attr_t style_attr[STYLE_COUNT];

void Term_end(void) {
    if (active) {
        active = 0;
        endwin();
    }
}

int Term_runChild(const char* const* argv) {
    def_prog_mode();
    endwin();
    int status = -1;
    pid_t pid = fork();
    if (pid == 0) {
        char* args[16] = {0}; /* execv's type: the strings are not written */
        for (int i = 0; i < 15 && argv[i]; i++) {
            memcpy(&args[i], &argv[i], sizeof(char*));
        }
        execv(args[0], args);
        _exit(127);
    }
    if (pid > 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    reset_prog_mode();
    clearok(curscr, TRUE); /* the child drew over everything */
    refresh();
    return status;
}

static attr_t attrs_of(int a) {
    attr_t r = A_NORMAL;
    if (a & THEME_ATTR_BOLD) {
        r |= A_BOLD;
    }
    if (a & THEME_ATTR_DIM) {
        r |= A_DIM;
    }
    if (a & THEME_ATTR_UNDERLINE) {
        r |= A_UNDERLINE;
    }
    if (a & THEME_ATTR_REVERSE) {
        r |= A_REVERSE;
    }
#ifdef A_ITALIC
    if (a & THEME_ATTR_ITALIC) {
        r |= A_ITALIC;
    }
#endif
    return r;
}

DcuStatus Term_init(const Theme* theme, int mouse, DcuError* err) {
    const char* cs = nl_langinfo(CODESET);
    utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
    if (!newterm(NULL, stdout, stdin)) {
        return Error_set(err, DCU_ERR_IO, "cannot start the terminal (TERM=%s)",
                         getenv("TERM") ? getenv("TERM") : "unset");
    }
    active = 1;
    atexit(Term_end);
    /* the signals that end dcutop restore the terminal (main installs that before anything is
     * drawn); SIGPIPE does not end the TUI: a FIFO export whose reader left is a write error */
    signal(SIGPIPE, SIG_IGN);
    raw();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    if (mouse) { /* htop: click a tab or a row, double-click opens, the wheel scrolls */
        mmask_t want = BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
        want |= BUTTON5_PRESSED;
#endif
        mousemask(want, NULL);
    }
    int color = !theme->mono && has_colors();
    if (color) {
        start_color();
        use_default_colors();
    }
    for (int i = 0; i < STYLE_COUNT; i++) {
        const StyleSpec* sp = &theme->spec[i];
        style_attr[i] = attrs_of(sp->attrs);
        if (color && i + 1 < COLOR_PAIRS) {
            short fg = sp->fg < COLORS ? sp->fg : (short)(sp->fg % 8);
            short bg = sp->bg < COLORS ? sp->bg : (short)(sp->bg % 8);
            init_pair((short)(i + 1), fg, bg);
            style_attr[i] |= COLOR_PAIR(i + 1);
        }
    }
    return DCU_OK;
}

void Term_size(int* w, int* h) {
    *w = COLS;
    *h = LINES;
}

void Term_progress(uint64_t done, uint64_t total, const char* path, void* ctx) {
    (void)ctx;
    static struct timespec last;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double ms = (double)(now.tv_sec - last.tv_sec) * 1e3 + (double)(now.tv_nsec - last.tv_nsec) / 1e6;
    if (!active || (ms < 100 && done < total)) {
        return; /* at most ten redraws a second */
    }
    last = now;
    int pct = total ? (int)(100.0 * (double)done / (double)total) : 0;
    erase();
    attrset(style_attr[STYLE_TITLE]);
    mvprintw(LINES / 2 - 1, 2, "dcutop: loading %d%% (%llu of %llu MiB)", pct,
             (unsigned long long)(done >> 20), (unsigned long long)(total >> 20));
    attrset(style_attr[STYLE_DIM]);
    mvaddnstr(LINES / 2, 2, path, COLS - 4);
    int bw = COLS - 4;
    attrset(style_attr[STYLE_BAR]);
    for (int i = 0; i < bw * pct / 100; i++) {
        mvaddstr(LINES / 2 + 1, 2 + i, utf8 ? "\xe2\x96\x88" : "#");
    }
    attrset(A_NORMAL);
    refresh();
}

/* In a non-UTF-8 terminal, the few non-ASCII characters dcutop draws get ASCII stand-ins. */
static const char* ascii_of(const char* ch) {
    if (strcmp(ch, "\xe2\x80\xa6") == 0) {
        return "~";
    }
    if (strcmp(ch, "\xe2\x96\xbc") == 0) {
        return "v";
    }
    if (strcmp(ch, "\xe2\x96\xb2") == 0) {
        return "^";
    }
    if ((unsigned char)ch[0] == 0xE2 && (unsigned char)ch[1] == 0x96) {
        return "#";
    }
    return "?";
}

static void draw(const Canvas* c) {
    char run[4096];
    for (int y = 0; y < c->h && y < LINES; y++) {
        int x = 0;
        while (x < c->w && x < COLS) {
            int st = Canvas_at(c, y, x)->style;
            int x0 = x;
            size_t len = 0;
            while (x < c->w && x < COLS && Canvas_at(c, y, x)->style == st && len + 8 < sizeof(run)) {
                const char* ch = Canvas_at(c, y, x)->ch;
                if (ch[0] == '\0') { /* right half of a wide character */
                    x++;
                    continue;
                }
                if (!utf8 && (unsigned char)ch[0] >= 0x80) {
                    ch = ascii_of(ch);
                }
                size_t l = strlen(ch);
                memcpy(run + len, ch, l);
                len += l;
                x++;
            }
            run[len] = '\0';
            attrset(style_attr[st < STYLE_COUNT ? st : 0]);
            mvaddstr(y, x0, run);
        }
    }
    attrset(A_NORMAL);
    refresh();
}

static int map_key(int ch, int is_key) {
    if (is_key) {
        switch (ch) {
        case KEY_UP:
            return KC_UP;
        case KEY_DOWN:
            return KC_DOWN;
        case KEY_LEFT:
            return KC_LEFT;
        case KEY_RIGHT:
            return KC_RIGHT;
        case KEY_PPAGE:
            return KC_PGUP;
        case KEY_NPAGE:
            return KC_PGDOWN;
        case KEY_HOME:
            return KC_HOME;
        case KEY_END:
            return KC_END;
        case KEY_ENTER:
            return KC_ENTER;
        case KEY_BACKSPACE:
            return KC_BACKSPACE;
        case KEY_DC:
            return KC_DELETE;
        case KEY_BTAB:
            return KC_BTAB;
        case KEY_RESIZE:
            return KC_RESIZE;
        default:
            if (ch >= KEY_F(1) && ch <= KEY_F(12)) {
                return KC_F1 + (ch - KEY_F(1));
            }
            return -1;
        }
    }
    switch (ch) {
    case '\n':
    case '\r':
        return KC_ENTER;
    case 27:
        return KC_ESC;
    case 127:
    case 8:
        return KC_BACKSPACE;
    case '\t':
        return KC_TAB;
    default:
        return ch;
    }
}

void Term_drawNow(App* app) {
    if (active) {
        draw(App_render(app));
    }
}

/* Reads one key without waiting. 0: none waiting; 2: Esc or Ctrl-C (consumed when
 * take_cancel); 1: any other key, put back for the main loop. */
static int peek_key(int take_cancel) {
    nodelay(stdscr, TRUE);
    wint_t ch;
    int r = get_wch(&ch);
    nodelay(stdscr, FALSE);
    if (r == ERR) {
        return 0;
    }
    if (take_cancel && r == OK && (ch == 27 || ch == 3)) {
        return 2;
    }
    if (r == KEY_CODE_YES) {
        ungetch((int)ch);
    } else {
        unget_wch((wchar_t)ch);
    }
    return 1;
}

int Term_pollCancel(void) {
    return active && peek_key(1) == 2;
}

/* A mouse report from curses as an App event; 0 when it is none of ours. */
static int mouse_event(App* app) {
    MEVENT ev;
    if (getmouse(&ev) != OK) {
        return 0;
    }
    MouseKind k;
    if (ev.bstate & BUTTON1_DOUBLE_CLICKED) {
        k = MOUSE_DOUBLE;
    } else if (ev.bstate & BUTTON1_CLICKED) {
        k = MOUSE_CLICK;
    } else if (ev.bstate & BUTTON4_PRESSED) {
        k = MOUSE_WHEEL_UP;
#ifdef BUTTON5_PRESSED
    } else if (ev.bstate & BUTTON5_PRESSED) {
        k = MOUSE_WHEEL_DOWN;
#endif
    } else {
        return 0;
    }
    App_mouse(app, k, ev.x, ev.y);
    return 1;
}

/* A key is waiting (left in the queue). */
static int input_pending(void) {
    return peek_key(0) != 0;
}

void Term_loop(App* app, KeyTiming* timing) {
    int w, h;
    Term_size(&w, &h);
    App_resize(app, w, h);
    draw(App_render(app));
    KeyTiming_first(timing, app);
    while (!App_quitting(app)) {
        while (App_idle(app, input_pending)) {
            draw(App_render(app));
            KeyTiming_idle(timing, app);
        }
        wint_t ch;
        int r = get_wch(&ch);
        if (r == ERR) {
            continue;
        }
        if (r == KEY_CODE_YES && ch == KEY_MOUSE) {
            if (mouse_event(app) && !App_quitting(app)) {
                draw(App_render(app));
            }
            continue;
        }
        int key = map_key((int)ch, r == KEY_CODE_YES);
        if (key < 0) {
            continue;
        }
        if (key == KC_RESIZE) {
            Term_size(&w, &h);
            App_resize(app, w, h);
        }
        double t0 = KeyTiming_nowUs();
        Reaction re = App_key(app, key);
        if (re & REACT_QUIT) {
            break;
        }
        if (key == KC_CTRL('l')) {
            clear();
        }
        draw(App_render(app));
        KeyTiming_key(timing, key, t0, app);
    }
}
