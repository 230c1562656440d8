/* sql_screen.c - the `;` prompt (lnav's key): one read-only query over the views of
 * SCHEMA.md, its rows shown as a table screen (sort, filter, Enter on a kernel, export), the
 * history of queries and Tab completion of view and column names. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcutop/filter.h"
#include "dcutop/names.h"
#include "dcutop/safe_file.h"
#include "dcutop/user_sql.h"
#include "dcutop/xalloc.h"
#include "screen.h"

/* ---- history ------------------------------------------------------------------------ */

#define HIST_MAX 500

struct SqlHistory_ {
    char* path; /* owned; NULL when there is no home to keep it in */
    char* line[HIST_MAX];
    int n;
    int at;          /* line shown by Up/Down; n = the text being typed */
    char typed[PROMPT_TEXT_MAX]; /* what was typed before the first Up */
};

/* $XDG_STATE_HOME/dcutop, else $HOME/.local/state/dcutop (XDG base directories). */
static char* state_dir(void) {
    const char* xdg = getenv("XDG_STATE_HOME");
    const char* home = getenv("HOME");
    if (xdg && *xdg) {
        return xasprintf("%s/dcutop", xdg);
    }
    return home && *home ? xasprintf("%s/.local/state/dcutop", home) : NULL;
}

static void push_line(SqlHistory* h, const char* q) {
    if (h->n == HIST_MAX) {
        free(h->line[0]);
        memmove(h->line, h->line + 1, sizeof(char*) * (HIST_MAX - 1));
        h->n--;
    }
    h->line[h->n++] = xstrdup(q);
}

/* The history keeps its last HIST_MAX queries: at most its last HIST_READ bytes are read,
 * and a file grown past that is rewritten with what was kept, so it never grows without
 * bound. Opened O_NOFOLLOW, as every output of dcutop refuses to write through a link: a
 * history file that is a symbolic link (out of its folder, say) is neither read nor
 * appended to. */
enum { HIST_READ = 1 << 20 };

static FILE* open_history(const char* path, off_t* size) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) {
            close(fd);
        }
        return NULL;
    }
    *size = st.st_size;
    FILE* f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return NULL;
    }
    if (st.st_size > HIST_READ) { /* the tail: from the first whole line after the cut */
        int c;
        fseeko(f, st.st_size - HIST_READ, SEEK_SET);
        while ((c = fgetc(f)) != EOF && c != '\n') {
        }
    }
    return f;
}

/* Rewrites the file with the lines kept (a temp file renamed over it: never half written). */
static void rewrite_history(const SqlHistory* h) {
    char* tmp = xasprintf("%s.%ld.tmp", h->path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE* f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    int ok = f != NULL;
    for (int i = 0; ok && i < h->n; i++) {
        ok = fprintf(f, "%s\n", h->line[i]) >= 0;
    }
    if (f) {
        ok = fclose(f) == 0 && ok;
    } else if (fd >= 0) {
        close(fd);
    }
    if (!ok || rename(tmp, h->path) != 0) {
        unlink(tmp);
    }
    free(tmp);
}

SqlHistory* SqlHistory_load(void) {
    SqlHistory* h = xcalloc(1, sizeof(*h));
    char* dir = state_dir();
    if (dir) {
        h->path = xasprintf("%s/sql_history", dir);
        free(dir);
        off_t size = 0;
        FILE* f = open_history(h->path, &size); /* a FIFO or device there is never waited on */
        char* line = NULL;
        size_t cap = 0;
        ssize_t n;
        long lines = 0;
        while (f && (n = getline(&line, &cap, f)) >= 0) {
            line[strcspn(line, "\r\n")] = '\0';
            lines++;
            /* each line whole; one too long for the prompt was not typed there: skipped */
            if (line[0] && strlen(line) < PROMPT_TEXT_MAX) {
                push_line(h, line);
            }
        }
        free(line);
        if (f) {
            fclose(f);
            if (size > HIST_READ || lines > 2 * HIST_MAX) {
                rewrite_history(h);
            }
        }
    }
    h->at = h->n;
    return h;
}

void SqlHistory_delete(SqlHistory* h) {
    if (!h) {
        return;
    }
    for (int i = 0; i < h->n; i++) {
        free(h->line[i]);
    }
    free(h->path);
    free(h);
}

/* mkdir -p for the state folder */
static void make_dirs(const char* path) {
    char* p = xstrdup(path);
    for (char* s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0700);
            *s = '/';
        }
    }
    free(p);
}

/* Appends q and a newline to the history file in one write (a line stays whole beside another
 * dcutop appending too). Never blocks: O_NONBLOCK, and anything but a regular file (a FIFO
 * someone made there, a device) is closed unwritten; a symbolic link is not followed. A failure costs the file only: the
 * history in memory stays. */
static void append_line(const char* path, const char* q) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
                            O_NOFOLLOW, 0600);
    struct stat st;
    if (fd < 0) {
        return;
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        char* text = xasprintf("%s\n", q);
        size_t len = strlen(text);
        ssize_t w = write(fd, text, len);
        (void)w; /* best effort, as before */
        free(text);
    }
    close(fd);
}

void SqlHistory_add(SqlHistory* h, const char* q) {
    if (!h) {
        return;
    }
    h->at = h->n;
    if (h->n > 0 && strcmp(h->line[h->n - 1], q) == 0) {
        return;
    }
    push_line(h, q);
    h->at = h->n;
    if (h->path) {
        make_dirs(h->path);
        append_line(h->path, q);
    }
}

const char* SqlHistory_step(SqlHistory* h, int dir, const char* typed) {
    if (!h || h->n == 0) {
        return NULL;
    }
    if (h->at == h->n) {
        snprintf(h->typed, sizeof(h->typed), "%s", typed);
    }
    int to = h->at + dir;
    if (to < 0 || to > h->n) {
        return NULL;
    }
    h->at = to;
    return to == h->n ? h->typed : h->line[to];
}

/* ---- completion ------------------------------------------------------------------------ */

static int is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void SqlPrompt_complete(App* app, char* buf, size_t cap, int* cur) {
    int start = *cur;
    while (start > 0 && is_ident(buf[start - 1])) {
        start--;
    }
    size_t plen = (size_t)(*cur - start);
    ResultSet* names = NULL;
    DcuError err;
    /* the views first, then their columns, each name once */
    if (plen == 0 || UserSql_run(App_db(app), ".schema", NULL, &names, &err) != DCU_OK) {
        App_setStatus(app, 0, "Tab completes view and column names: type their first letters.");
        return;
    }
    char prefix[256];
    snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, buf + start);
    char list[900] = "";
    char common[256] = "";
    int found = 0;
    for (int pass = 0; pass < 2; pass++) { /* view names, then column names */
        for (int r = 0; r < names->nrows; r++) {
            const char* n = ResultSet_cellc(names, r, pass)->s;
            if (!n || strncmp(n, prefix, plen) != 0) {
                continue;
            }
            char word[260];
            snprintf(word, sizeof(word), " %s ", n);
            char padded[sizeof(list) + 2];
            snprintf(padded, sizeof(padded), " %s", list);
            if (strstr(padded, word)) {
                continue; /* a column that several views have */
            }
            if (!found++) {
                snprintf(common, sizeof(common), "%s", n);
            } else {
                size_t i = 0;
                while (common[i] && common[i] == n[i]) {
                    i++;
                }
                common[i] = '\0';
            }
            size_t ll = strlen(list);
            snprintf(list + ll, sizeof(list) - ll, "%s ", n);
        }
    }
    ResultSet_delete(names);
    if (!found) {
        App_setStatus(app, 0, "No view or column starts with %s.", prefix);
        return;
    }
    size_t add = strlen(common) - plen;
    size_t len = strlen(buf);
    if (add > 0 && len + add < cap) {
        memmove(buf + *cur + add, buf + *cur, len - (size_t)*cur + 1);
        memcpy(buf + *cur, common + plen, add);
        *cur += (int)add;
    }
    if (found > 1) {
        App_setStatus(app, 0, "%s", list);
    }
}

/* ---- the result screen ----------------------------------------------------------------- */

/* s->aux[0]: the whole result (owned); s->rs: its rows that match the filter, sorted. */
static ResultSet* copy_rows(const ResultSet* all, const char* filter, DcuError* err) {
    Filter* f = NULL;
    if (filter && Filter_new(filter, &f, err) != DCU_OK) {
        return NULL;
    }
    ResultSet* rs = ResultSet_newDynamic("sql", all->ncols);
    for (int c = 0; c < all->ncols; c++) {
        ResultSet_setColumn(rs, c, all->cols[c].key, all->cols[c].type);
    }
    for (int r = 0; r < all->nrows; r++) {
        int keep = !f;
        for (int c = 0; c < all->ncols && !keep; c++) {
            const char* t = ResultSet_cellc(all, r, c)->s;
            keep = all->cols[c].type == CT_TEXT && t && Filter_matches(f, t, strlen(t));
        }
        if (!keep) {
            continue;
        }
        int k = ResultSet_addRow(rs);
        for (int c = 0; c < all->ncols; c++) {
            RsCell* dst = ResultSet_cell(rs, k, c);
            const RsCell* src = ResultSet_cellc(all, r, c);
            *dst = *src;
            dst->s = src->s ? xstrdup(src->s) : NULL;
        }
    }
    Filter_delete(f);
    return rs;
}

DcuStatus SqlScreen_refilter(Screen* s, App* app, DcuError* err) {
    if (!s->aux[0]) {
        return DCU_OK;
    }
    ResultSet* rs = copy_rows(s->aux[0], s->filter, err);
    if (!rs) {
        return err->code;
    }
    if (s->sort && Query_sort(rs, s->sort, err) != DCU_OK) {
        ResultSet_delete(rs);
        return err->code;
    }
    ResultSet_delete(s->rs);
    s->rs = rs;
    s->layout_w = -1;
    s->tv.sort_col = -1;
    if (s->sort) {
        char key[96];
        snprintf(key, sizeof(key), "%.*s", (int)strcspn(s->sort, ":"), s->sort);
        s->tv.sort_col = ResultSet_columnIndex(rs, key);
        s->tv.sort_desc = strstr(s->sort, ":desc") != NULL;
    }
    TableScreen_clamp(s, app);
    return DCU_OK;
}

static DcuStatus sql_open(Screen* s, App* app, DcuError* err) {
    return SqlScreen_refilter(s, app, err);
}

static void sql_render(Screen* s, App* app, Canvas* c, int y0, int h) {
    if (!s->rs) {
        return;
    }
    int w = App_width(app);
    if (s->layout_w != w) {
        const char* keys[TABLE_MAX_COLS + 1];
        const char* flex = NULL;
        int n = 0;
        for (int i = 0; i < s->rs->ncols && n < TABLE_MAX_COLS; i++) {
            keys[n++] = s->rs->cols[i].key;
            if (!flex && s->rs->cols[i].type == CT_TEXT) {
                flex = s->rs->cols[i].key;
            }
        }
        keys[n] = NULL;
        TableLayout_compute(&s->layout, s->rs, keys, flex, NULL, w);
        s->layout_w = w;
    }
    TableScreen_clamp(s, app);
    TableView_render(&s->tv, &s->layout, s->rs, c, y0, h);
    if (s->rs->nrows == 0 && h > 2) {
        Canvas_put(c, y0 + 2, 2, STYLE_DIM,
                   s->filter ? "No rows match the filter (Esc clears it)." : "No rows.", -1);
    }
}

/* The kernel a row names: its "kernel" column, else a "name" that is a kernel. */
static const char* row_kernel(Screen* s, App* app) {
    const char* keys[] = {"kernel", "name"};
    for (int i = 0; i < 2; i++) {
        int c = ResultSet_columnIndex(s->rs, keys[i]);
        const char* t = c >= 0 && s->rs->nrows ? ResultSet_cellc(s->rs, s->tv.selected, c)->s
                                               : NULL;
        if (!t) {
            continue;
        }
        sqlite3_stmt* st = NULL;
        int known = 0;
        if (TraceDb_prepare(App_db(app), "SELECT 1 FROM kernel WHERE name = ?1", &st, NULL) ==
            DCU_OK) {
            sqlite3_bind_text(st, 1, t, -1, SQLITE_TRANSIENT);
            known = sqlite3_step(st) == SQLITE_ROW;
            sqlite3_finalize(st);
        }
        if (known) {
            return t;
        }
    }
    return NULL;
}

static DcuStatus load_window(Screen* s, App* app, int64_t first, DcuError* err);
static void window_status(Screen* s, App* app);

static Reaction sql_handle(Screen* s, App* app, Action a, DcuError* err) {
    /* paging: past the window's last row the next window, before its first the previous */
    int n = s->rs ? s->rs->nrows : 0;
    int down = (a == ACT_MOVE_DOWN || a == ACT_PAGE_DOWN) && s->sql_more && n > 0 &&
               s->tv.selected == n - 1;
    int up = (a == ACT_MOVE_UP || a == ACT_PAGE_UP) && s->sql_first > 0 && s->tv.selected == 0;
    if (down || up) {
        int64_t size = s->aux[0] ? s->aux[0]->nrows : 0;
        int64_t first = down ? s->sql_first + size : s->sql_first - USER_SQL_WINDOW;
        if (load_window(s, app, first < 0 ? 0 : first, err) != DCU_OK) {
            App_setStatus(app, 1, "SQL: %s (this window kept)", err->msg);
            return REACT_REDRAW;
        }
        s->tv.selected = down ? 0 : (s->rs ? s->rs->nrows - 1 : 0);
        s->tv.scroll = down ? 0 : s->tv.selected;
        TableScreen_clamp(s, app);
        window_status(s, app);
        return REACT_REDRAW;
    }
    if (a == ACT_ENTER) {
        const char* k = s->rs ? row_kernel(s, app) : NULL;
        if (!k) {
            App_setStatus(app, 0, "Enter opens a kernel: a row with a kernel or name column.");
            return REACT_REDRAW;
        }
        char* shown = Names_sanitize(k, strlen(k));
        Reaction r = App_open(app, &KernelScreen, k, NULL, xasprintf("SQL > %s", shown));
        free(shown);
        return r;
    }
    if (a == ACT_CATEGORY || a == ACT_WHATIF_UP || a == ACT_WHATIF_DOWN || a == ACT_COLD_SPLIT ||
        a == ACT_WHATIF_CLEAR) {
        return REACT_NONE;
    }
    return TableScreen_handle(s, app, a, err);
}

static const char* sql_selection(Screen* s) {
    return s->crumb;
}

static void sql_close(Screen* s) {
    ResultSet_delete(s->aux[0]);
    s->aux[0] = NULL;
    free(s->sql);
    s->sql = NULL;
}

static const char* const sql_keys[] = {NULL}; /* columns come from each result */

const ScreenOps SqlScreen = {"sql", "SQL", -1, sql_open, sql_handle, sql_render, sql_selection,
                             sql_close, VIEW_HOTSPOTS, sql_keys, NULL, NULL, 1};

/* Polls the terminal every few thousand SQLite steps: Esc or Ctrl-C stops the query. */
static int poll_app(void* ctx) {
    return App_cancelRequested(ctx);
}

/* Runs the screen's statement again for the window of rows from `first`: aux[0] replaced. */
static DcuStatus load_window(Screen* s, App* app, int64_t first, DcuError* err) {
    UserSqlOpts o = {.poll = poll_app, .ctx = app, .skip_rows = first,
                     .max_rows = USER_SQL_WINDOW};
    ResultSet* rs = NULL;
    App_setStatus(app, 0, "Running the query... Esc or Ctrl-C stops it.");
    App_drawNow(app);
    if (UserSql_run(App_db(app), s->sql, &o, &rs, err) != DCU_OK) {
        if (o.interrupted) {
            Error_set(err, DCU_ERR_SQL, "query stopped");
        }
        return err->code;
    }
    ResultSet_delete(s->aux[0]);
    s->aux[0] = rs;
    s->sql_first = first;
    s->sql_more = o.truncated;
    return SqlScreen_refilter(s, app, err);
}

/* "123 rows", or which window of a longer result is shown and how to move on */
static void window_status(Screen* s, App* app) {
    int64_t n = s->aux[0] ? s->aux[0]->nrows : 0;
    if (!s->sql_more && s->sql_first == 0) {
        App_setStatus(app, 0, "%lld row%s", (long long)n, n == 1 ? "" : "s");
        return;
    }
    App_setStatus(app, 0, "Rows %lld-%lld shown%s%s", (long long)s->sql_first + 1,
                  (long long)(s->sql_first + n),
                  s->sql_more ? "; Down at the last row: the next ones" : "",
                  s->sql_first > 0 ? "; Up at the first: the previous ones" : "");
}

void SqlScreen_run(App* app, const char* sql) {
    DcuError err;
    Error_clear(&err);
    char* shown = Names_sanitize(sql, strlen(sql));
    Screen* s = Screen_new(&SqlScreen);
    s->sql = xstrdup(sql);
    s->crumb = xasprintf("SQL: %s", shown);
    free(shown);
    /* a bounded window: the first USER_SQL_WINDOW rows, the statement stopped there */
    if (load_window(s, app, 0, &err) != DCU_OK) {
        App_setStatus(app, 1, "SQL: %s%s", err.msg, " (previous result kept)");
        Screen_delete(s);
        return;
    }
    if (App_push(app, s, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
        return;
    }
    window_status(s, app);
}
