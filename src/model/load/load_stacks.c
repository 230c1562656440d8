/* load_stacks.c - call-stack files (the call-source layer, PRODUCT.md 1):
 *   - hipprof --kernel-stack style dumps (FORMATS.md 1.7, no verified sample): blocks of
 *     gdb frames ("#N 0xADDR in func (args) at file:line", "... from lib.so") or glibc
 *     backtrace_symbols lines ("lib.so(func+0x1a) [0xADDR]"), each block after a header
 *     line naming the kernel, its launch index and/or correlation id;
 *   - CSV rows with a stack column (frames separated by newlines, '|', ';', "->", "<-")
 *     and a kernel index / correlation id / name;
 *   - folded stacks "frame;frame;...;leaf VALUE" (torch.profiler export_stacks: VALUE is
 *     microseconds of self device time).
 * Each stack becomes a path in the frame prefix tree (stack_node) and a kernel_stack row.
 * Which kernel and dispatch a stack belongs to, and its time, is decided after every file
 * has been read (LoadStacks_finish), because the kernel files may come later. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/csv_reader.h"
#include "dcutop/i64_map.h"
#include "dcutop/kineto_link.h"
#include "dcutop/names.h"
#include "dcutop/safe_file.h"
#include "dcutop/stacks.h"
#include "dcutop/xalloc.h"
#include "gz_file.h"
#include "load_internal.h"
#include "load_stacks_internal.h"
#include "store/row_batch.h"

enum { SF_NONE, SF_TEXT, SF_CSV, SF_FOLDED, SF_UNKNOWN };

#define FRAME_MAX 16384 /* longer frame names are cut (a 1 MB frame is not a name) */
#define SNIFF_BYTES 65536
#define MSG_MAX 5       /* finish-pass messages kept per file */
#define DEEP_STACK 1000 /* a stack deeper than this is worth a word */

static const char accepted_forms[] =
    "accepted: gdb frames '#N 0xADDR in func (args) at file:line' or '... from lib.so'; "
    "backtrace_symbols 'lib.so(func+0x1a) [0xADDR]'; a header before each stack "
    "'kernel: NAME', 'index: N', 'correlation_id: N'; CSV with a stack column; folded "
    "'frame;frame;leaf VALUE'";

struct StackLoad_ {
    Intern* frames; /* frame name -> frame.id */
    Intern* nodes;  /* (parent node id, frame id) as 16 bytes -> stack_node.id */
    int64_t next_frame, next_node;
    sqlite3_stmt* ins_frame;
    sqlite3_stmt* ins_node;
    sqlite3_stmt* ins_stack;
};


static void buf_add(Buf* b, const char* s, size_t n) {
    xgrow((void**)&b->p, &b->cap, b->len + n + 1);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(Buf* b, const char* s) {
    buf_add(b, s, strlen(s));
}

/* ---- per-load state ------------------------------------------------------------ */

DcuStatus StackLoad_init(LoaderCore* core, DcuError* err) {
    if (core->stacks) {
        return DCU_OK;
    }
    struct StackLoad_* sl = xcalloc(1, sizeof(*sl));
    core->stacks = sl;
    sl->frames = Intern_new();
    sl->nodes = Intern_new();
    TraceDb* db = core->db;
    DcuStatus s = TraceDb_prepare(db, "INSERT INTO frame(id, name, lib) VALUES(?1, ?2, ?3)",
                                  &sl->ins_frame, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "INSERT INTO stack_node(id, parent, frame_id, depth)"
                            " VALUES(?1, ?2, ?3, ?4)",
                            &sl->ins_node, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "INSERT INTO kernel_stack(file_id, line, stack_id, form, kernel_name,"
                            " seq, corr_id, value_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                            &sl->ins_stack, err);
    }
    if (s != DCU_OK) {
        return s;
    }
    /* a database that already holds stacks (a second Loader on the same db) */
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT id, name FROM frame", &st, NULL) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(st, 0);
            Intern_put(sl->frames, (const char*)sqlite3_column_text(st, 1),
                       (size_t)sqlite3_column_bytes(st, 1), id);
        }
        sqlite3_finalize(st);
    }
    if (TraceDb_prepare(db, "SELECT id, coalesce(parent, 0), frame_id FROM stack_node", &st,
                        NULL) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t key[2] = {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
            Intern_put(sl->nodes, (const char*)key, sizeof(key), sqlite3_column_int64(st, 0));
        }
        sqlite3_finalize(st);
    }
    sl->next_frame = TraceDb_scalarInt(db, "SELECT coalesce(max(id), 0) FROM frame") + 1;
    sl->next_node = TraceDb_scalarInt(db, "SELECT coalesce(max(id), 0) FROM stack_node") + 1;
    return DCU_OK;
}

void LoadStacks_done(LoaderCore* core) {
    struct StackLoad_* sl = core->stacks;
    if (!sl) {
        return;
    }
    Intern_delete(sl->frames);
    Intern_delete(sl->nodes);
    sqlite3_finalize(sl->ins_frame);
    sqlite3_finalize(sl->ins_node);
    sqlite3_finalize(sl->ins_stack);
    free(sl);
    core->stacks = NULL;
}

int64_t StackLoad_frameId(LoaderCore* core, const char* name, size_t len) {
    struct StackLoad_* sl = core->stacks;
    int64_t id = Intern_get(sl->frames, name, len);
    if (id) {
        return id;
    }
    id = sl->next_frame++;
    sqlite3_stmt* st = sl->ins_frame;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, name, (int)len, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, Names_isLibraryFrame(name));
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        return 0;
    }
    Intern_put(sl->frames, name, len, id);
    return id;
}

int64_t StackLoad_nodeId(LoaderCore* core, int64_t parent, int64_t frame, int depth) {
    struct StackLoad_* sl = core->stacks;
    int64_t key[2] = {parent, frame};
    int64_t id = Intern_get(sl->nodes, (const char*)key, sizeof(key));
    if (id) {
        return id;
    }
    id = sl->next_node++;
    sqlite3_stmt* st = sl->ins_node;
    sqlite3_bind_int64(st, 1, id);
    if (parent) {
        sqlite3_bind_int64(st, 2, parent);
    } else {
        sqlite3_bind_null(st, 2);
    }
    sqlite3_bind_int64(st, 3, frame);
    sqlite3_bind_int(st, 4, depth);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        return 0;
    }
    Intern_put(sl->nodes, (const char*)key, sizeof(key), id);
    return id;
}

/* ---- one parsed stack ------------------------------------------------------------ */


void Stack_clear(Stack* s) {
    for (int i = 0; i < s->n; i++) {
        free(s->frames[i]);
    }
    s->n = 0;
    free(s->kernel);
    s->kernel = NULL;
    s->has_seq = s->has_corr = 0;
    s->bad = 0;
    s->line = 0;
    s->last_num = -1;
    s->root_first = 0;
}

void Stack_free(Stack* s) {
    Stack_clear(s);
    free(s->frames);
    s->frames = NULL;
    s->cap = 0;
}


/* Sanitized frame name, cut at FRAME_MAX (said once per file). */
void Stack_push(Ctx* c, Stack* s, const char* name, size_t len, long line) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->frames = xrealloc(s->frames, sizeof(char*) * (size_t)s->cap);
    }
    if (len > FRAME_MAX) {
        if (!c->cut_noted) {
            c->cut_noted = 1;
            Load_message(c->core, c->f,
                         "line %ld: a frame of %zu bytes is cut to %d bytes (longer frames are "
                         "cut too; not said again)",
                         line, len, FRAME_MAX);
        }
        char* cut = Names_sanitize(name, FRAME_MAX);
        s->frames[s->n++] = xasprintf("%s...[cut]", cut);
        free(cut);
        return;
    }
    s->frames[s->n++] = Names_sanitize(name, len);
}

/* Inserts the stack (and its prefix-tree path). Returns 1 when stored. */
static int stack_store(Ctx* c, Stack* s, const char* form, int64_t value_ns, int has_value) {
    LoaderCore* core = c->core;
    int64_t parent = 0;
    if (s->n > DEEP_STACK && !c->deep_noted) {
        c->deep_noted = 1;
        Load_message(core, c->f,
                     "line %ld: a stack of %d frames (recursion?); kept whole, the caller and "
                     "callee views show %d levels below each name (not said again)",
                     s->line, s->n, STACKS_CHAIN_MAX);
    }
    for (int k = 0; k < s->n; k++) {
        int i = s->root_first ? k : s->n - 1 - k;
        const char* name = s->frames[i];
        int64_t fid = StackLoad_frameId(core, name, strlen(name));
        int64_t nid = fid ? StackLoad_nodeId(core, parent, fid, k) : 0;
        if (!nid) {
            Load_message(core, c->f, "SQLite: %s", sqlite3_errmsg(TraceDb_handle(core->db)));
            return 0;
        }
        parent = nid;
    }
    sqlite3_stmt* st = core->stacks->ins_stack;
    sqlite3_bind_int64(st, 1, c->f->id);
    sqlite3_bind_int64(st, 2, s->line);
    if (parent) {
        sqlite3_bind_int64(st, 3, parent);
    } else {
        sqlite3_bind_null(st, 3);
    }
    sqlite3_bind_text(st, 4, form, -1, SQLITE_STATIC);
    if (s->kernel) {
        sqlite3_bind_text(st, 5, s->kernel, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, 5);
    }
    s->has_seq ? sqlite3_bind_int64(st, 6, s->seq) : sqlite3_bind_null(st, 6);
    s->has_corr ? sqlite3_bind_int64(st, 7, s->corr) : sqlite3_bind_null(st, 7);
    has_value ? sqlite3_bind_int64(st, 8, value_ns) : sqlite3_bind_null(st, 8);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        Load_message(core, c->f, "SQLite: %s", sqlite3_errmsg(TraceDb_handle(core->db)));
        return 0;
    }
    c->f->layer_rows[LAYER_STACK]++;
    c->f->layer_grain[LAYER_STACK] = 2;
    c->f->layer_rank[LAYER_STACK] = 1;
    c->f->rows++;
    return 1;
}

/* ---- frame lines ---------------------------------------------------------------------- */

typedef enum { FR_NONE, FR_GDB, FR_BT } FrameForm;

void StackLoad_trim(const char** s, size_t* n) {
    while (*n > 0 && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && isspace((unsigned char)(*s)[*n - 1])) {
        (*n)--;
    }
}

static const char* base_name(const char* s, size_t n, size_t* bl) {
    size_t i = n;
    while (i > 0 && s[i - 1] != '/' && s[i - 1] != '\\') {
        i--;
    }
    *bl = n - i;
    return s + i;
}

static int is_hex(char ch) {
    return isxdigit((unsigned char)ch) != 0;
}

/* Length of "0x[hex]+" at s (0 if none). */
static size_t hex_len(const char* s, size_t n) {
    if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !is_hex(s[2])) {
        return 0;
    }
    size_t i = 2;
    while (i < n && is_hex(s[i])) {
        i++;
    }
    return i;
}

/* Where " (" starts the argument list of a gdb frame: outside <...>; n if none. */
static size_t args_start(const char* s, size_t n, int use_angles) {
    int depth = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (use_angles && s[i] == '<') {
            depth++;
        } else if (use_angles && s[i] == '>' && depth > 0) {
            depth--;
        } else if (depth == 0 && s[i] == ' ' && s[i + 1] == '(') {
            return i;
        }
    }
    return n;
}

static size_t find_word(const char* s, size_t n, const char* w) {
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++) {
        if (memcmp(s + i, w, wl) == 0) {
            return i;
        }
    }
    return n;
}

/* gdb: "#N [0xADDR in ]FUNC[ (ARGS)][ at FILE:LINE| from LIB]" -> "FUNC at FILE:LINE",
 * "FUNC from LIB" or "FUNC" (arguments dropped: they differ per call). */
static int parse_gdb(const char* s, size_t n, Buf* out, long* num) {
    StackLoad_trim(&s, &n);
    if (n < 2 || s[0] != '#' || !isdigit((unsigned char)s[1])) {
        return 0;
    }
    size_t i = 1;
    long v = 0;
    while (i < n && isdigit((unsigned char)s[i])) {
        v = v < 100000000 ? v * 10 + (s[i] - '0') : v;
        i++;
    }
    if (i < n && !isspace((unsigned char)s[i])) {
        return 0;
    }
    *num = v;
    const char* r = s + i;
    size_t rn = n - i;
    StackLoad_trim(&r, &rn);
    size_t h = hex_len(r, rn);
    if (h > 0 && h + 4 <= rn && memcmp(r + h, " in ", 4) == 0) {
        r += h + 4;
        rn -= h + 4;
        StackLoad_trim(&r, &rn);
    }
    /* the function ends where its argument list, " at " or " from " begins */
    size_t a = args_start(r, rn, 1);
    if (a == rn) {
        a = args_start(r, rn, 0); /* operator< and friends unbalance the angles */
    }
    size_t at = find_word(r, rn, " at "), from = find_word(r, rn, " from ");
    size_t fe = a;
    fe = at < fe ? at : fe;
    fe = from < fe ? from : fe;
    const char* func = r;
    size_t fl = fe;
    StackLoad_trim(&func, &fl);
    if (fl == 0) {
        func = "??";
        fl = 2;
    }
    buf_add(out, func, fl);
    size_t rest = fe;
    if (a == fe && a < rn) { /* skip the balanced argument list */
        int depth = 0;
        size_t k = a + 1;
        for (; k < rn; k++) {
            if (r[k] == '(') {
                depth++;
            } else if (r[k] == ')' && --depth == 0) {
                k++;
                break;
            }
        }
        rest = k;
    }
    const char* t = r + rest;
    size_t tn = rn - rest;
    size_t loc = find_word(t, tn, " at ");
    size_t lib = find_word(t, tn, " from ");
    /* "at file:line" wins over "from lib.so"; either is kept as its base name */
    const char* kw = NULL;
    size_t o = 0;
    if (loc < tn || (tn >= 3 && memcmp(t, "at ", 3) == 0)) {
        kw = " at ";
        o = loc < tn ? loc + 4 : 3;
    } else if (lib < tn || (tn >= 5 && memcmp(t, "from ", 5) == 0)) {
        kw = " from ";
        o = lib < tn ? lib + 6 : 5;
    }
    if (kw) {
        const char* p = t + o;
        size_t pn = tn - o;
        StackLoad_trim(&p, &pn);
        size_t bl;
        const char* b = base_name(p, pn, &bl);
        if (bl > 0) {
            buf_str(out, kw);
            buf_add(out, b, bl);
        }
    }
    return 1;
}

/* backtrace_symbols: "MODULE(SYM+0xOFF) [0xADDR]", "MODULE(+0xOFF) [0xADDR]",
 * "MODULE [0xADDR]" -> "SYM from MODULE", "MODULE+0xOFF", "MODULE@0xADDR". */
static int parse_bt(const char* s, size_t n, Buf* out) {
    StackLoad_trim(&s, &n);
    if (n < 5 || s[n - 1] != ']') {
        return 0;
    }
    size_t lb = n - 1;
    while (lb > 0 && s[lb] != '[') {
        lb--;
    }
    if (s[lb] != '[' || hex_len(s + lb + 1, n - lb - 2) != n - lb - 2) {
        return 0;
    }
    const char* addr = s + lb + 1;
    size_t addrn = n - lb - 2;
    const char* pre = s;
    size_t pn = lb;
    StackLoad_trim(&pre, &pn);
    if (pn == 0) {
        return 0;
    }
    if (pre[pn - 1] == ')') {
        int depth = 0;
        size_t k = pn;
        while (k > 0) {
            k--;
            if (pre[k] == ')') {
                depth++;
            } else if (pre[k] == '(' && --depth == 0) {
                break;
            }
        }
        if (depth != 0 || k == 0) {
            return 0;
        }
        const char* mod = pre;
        size_t ml = k;
        StackLoad_trim(&mod, &ml);
        const char* in = pre + k + 1;
        size_t il = pn - k - 2;
        size_t plus = il;
        while (plus > 0 && in[plus - 1] != '+') {
            plus--;
        }
        size_t sl = plus > 0 ? plus - 1 : il;
        size_t bl;
        const char* b = base_name(mod, ml, &bl);
        if (bl == 0) {
            return 0;
        }
        if (sl > 0) {
            buf_add(out, in, sl);
            buf_str(out, " from ");
            buf_add(out, b, bl);
        } else {
            buf_add(out, b, bl);
            if (plus > 0) {
                buf_str(out, "+");
                buf_add(out, in + plus, il - plus);
            }
        }
        return 1;
    }
    if (memchr(pre, ' ', pn)) { /* "MODULE [0x...]": the module is one word */
        return 0;
    }
    size_t bl;
    const char* b = base_name(pre, pn, &bl);
    if (bl == 0) {
        return 0;
    }
    buf_add(out, b, bl);
    buf_str(out, "@");
    buf_add(out, addr, addrn);
    return 1;
}

static FrameForm parse_frame(const char* s, size_t n, Buf* out, long* num) {
    out->len = 0;
    if (out->p) {
        out->p[0] = '\0';
    }
    *num = -1;
    if (parse_gdb(s, n, out, num)) {
        return FR_GDB;
    }
    out->len = 0;
    if (parse_bt(s, n, out)) {
        return FR_BT;
    }
    out->len = 0;
    return FR_NONE;
}

/* ---- stack headers ----------------------------------------------------------------------- */

typedef enum { HK_NAME, HK_SEQ, HK_CORR } HeaderKey;

static const struct {
    const char* key;
    HeaderKey k;
} header_keys[] = {
    /* longest first: "kernel_name" before "kernel" before "name" */
    {"correlation_id", HK_CORR},
    {"correlation id", HK_CORR},
    {"launch_index", HK_SEQ},
    {"launch index", HK_SEQ},
    {"kernel_index", HK_SEQ},
    {"kernel index", HK_SEQ},
    {"kernel_name", HK_NAME},
    {"kernel name", HK_NAME},
    {"kernel-name", HK_NAME},
    {"correlation", HK_CORR},
    {"dispatch_id", HK_SEQ},
    {"kernelname", HK_NAME},
    {"dispatch", HK_SEQ},
    {"corr_id", HK_CORR},
    {"kernel", HK_NAME},
    {"index", HK_SEQ},
    {"launch", HK_SEQ},
    {"name", HK_NAME},
    {"corr", HK_CORR},
    {"idx", HK_SEQ},
    {"seq", HK_SEQ},
};

static int key_at(const char* s, size_t n, size_t i, size_t* kl) {
    for (size_t k = 0; k < sizeof(header_keys) / sizeof(header_keys[0]); k++) {
        size_t l = strlen(header_keys[k].key);
        if (i + l <= n && strncasecmp(s + i, header_keys[k].key, l) == 0 &&
            (i + l == n || !isalnum((unsigned char)s[i + l]))) {
            *kl = l;
            return (int)k;
        }
    }
    return -1;
}

/* Reads "key: value" pairs: numbers for index/correlation keys, the rest of the line for a
 * name key ("kernel[3]: NAME" gives both). Returns the number of keys read. */
static int parse_header(Ctx* c, const char* s, size_t n, Stack* st) {
    int found = 0;
    size_t i = 0;
    while (i < n) {
        if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) {
            i++;
            continue;
        }
        size_t kl;
        int k = key_at(s, n, i, &kl);
        if (k < 0) {
            i++;
            continue;
        }
        size_t j = i + kl;
        HeaderKey hk = header_keys[k].k;
        if (hk == HK_NAME && j < n && s[j] == '[') { /* kernel[12]: */
            size_t d = j + 1;
            int64_t v = 0;
            while (d < n && isdigit((unsigned char)s[d]) && v < (INT64_MAX - 9) / 10) {
                v = v * 10 + (s[d] - '0');
                d++;
            }
            if (d < n && s[d] == ']' && d > j + 1) {
                st->has_seq = 1;
                st->seq = v;
                found++;
                j = d + 1;
            }
        }
        while (j < n && s[j] == ' ') {
            j++;
        }
        int sep =
            j < n && (s[j] == ':' || s[j] == '=' || s[j] == '(' || s[j] == '#' || s[j] == '[');
        int paren = sep && s[j] == '(';
        if (sep) {
            j++;
        }
        while (j < n && isspace((unsigned char)s[j])) {
            j++;
        }
        if (hk == HK_NAME) {
            if (!sep) {
                i = j;
                continue;
            }
            const char* v = s + j;
            size_t vl = n - j;
            StackLoad_trim(&v, &vl);
            if (paren && vl > 0 && v[vl - 1] == ')') {
                vl--;
            }
            if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
                v++;
                vl -= 2;
            }
            if (vl > 0) {
                free(st->kernel);
                st->kernel = Names_sanitize(v, vl > FRAME_MAX ? FRAME_MAX : vl);
                found++;
            }
            (void)c;
            return found;
        }
        if (j < n && isdigit((unsigned char)s[j])) {
            int64_t v = 0;
            while (j < n && isdigit((unsigned char)s[j]) && v < (INT64_MAX - 9) / 10) {
                v = v * 10 + (s[j] - '0');
                j++;
            }
            if (hk == HK_SEQ) {
                st->has_seq = 1;
                st->seq = v;
            } else {
                st->has_corr = 1;
                st->corr = v;
            }
            found++;
        }
        i = j;
    }
    return found;
}

/* ---- text dumps (gdb / backtrace_symbols blocks) --------------------------------------- */

static void text_flush(Ctx* c, long line) {
    Stack* s = &c->st;
    if (s->n == 0) {
        if ((s->kernel || s->has_seq || s->has_corr) && !s->bad) {
            Load_reject(c->core, c->f, s->line, "stack header without frames (%s)", accepted_forms);
        }
    } else if (!s->bad) { /* a bad stack was counted as rejected when it went bad */
        stack_store(c, s, c->st.last_num >= 0 ? "gdb" : "backtrace", 0, 0);
    }
    (void)line;
    Stack_clear(s);
}

static void text_line(Ctx* c, const char* s, size_t n, long line) {
    Stack* st = &c->st;
    const char* t = s;
    size_t tn = n;
    StackLoad_trim(&t, &tn);
    if (tn == 0) {
        text_flush(c, line);
        return;
    }
    if ((t[0] == '#' && (tn == 1 || !isdigit((unsigned char)t[1]))) ||
        (tn >= 2 && t[0] == '/' && t[1] == '/')) {
        return; /* comment */
    }
    long num;
    FrameForm ff = parse_frame(t, tn, &c->tmp, &num);
    if (ff != FR_NONE) {
        if (ff == FR_GDB && num == 0 && st->n > 0) {
            text_flush(c, line); /* "#0" again: the next stack, without a header */
        }
        if (st->n == 0 && st->line == 0) {
            st->line = line;
        }
        if (ff == FR_GDB && st->last_num >= 0 && num <= st->last_num && !st->bad) {
            st->bad = 1;
            Load_reject(c->core, c->f, line,
                        "frame #%ld after #%ld: frames out of order (a cycle or two stacks "
                        "run together); stack dropped",
                        num, st->last_num);
        }
        if (ff == FR_GDB) {
            st->last_num = num;
        }
        Stack_push(c, st, c->tmp.p, c->tmp.len, line);
        return;
    }
    if (st->n > 0) {
        text_flush(c, line); /* a header line starts the next stack */
    }
    if (parse_header(c, t, tn, st) > 0) {
        if (st->line == 0) {
            st->line = line;
        }
        return;
    }
    char* shown = Names_sanitize(t, tn > 60 ? 60 : tn);
    Load_reject(c->core, c->f, line, "not a stack frame or header: '%s%s' (%s)", shown,
                tn > 60 ? "..." : "", accepted_forms);
    free(shown);
}

/* ---- folded stacks ------------------------------------------------------------------------- */

static void folded_line(Ctx* c, const char* s, size_t n, long line) {
    const char* t = s;
    size_t tn = n;
    StackLoad_trim(&t, &tn);
    if (tn == 0 || t[0] == '#') {
        return;
    }
    size_t sp = tn;
    while (sp > 0 && t[sp - 1] != ' ' && t[sp - 1] != '\t') {
        sp--;
    }
    const char* v = t + sp;
    size_t vl = tn - sp;
    char num[64];
    double value = -1;
    if (sp > 0 && vl > 0 && vl < sizeof(num) && !memchr(v, '\0', vl)) {
        memcpy(num, v, vl);
        num[vl] = '\0';
        char* end;
        errno = 0;
        value = strtod(num, &end);
        if (*end != '\0' || !isdigit((unsigned char)num[0]) || errno == ERANGE || !(value < 9e12)) {
            value = -1;
        }
    }
    if (value < 0) {
        char* shown = Names_sanitize(t + (tn > 40 ? tn - 40 : 0), tn > 40 ? 40 : tn);
        Load_reject(c->core, c->f, line,
                    "expected 'frame;frame;...;leaf VALUE' with VALUE a number of "
                    "microseconds, line ends '%s'",
                    shown);
        free(shown);
        return;
    }
    size_t fl = sp;
    while (fl > 0 && (t[fl - 1] == ' ' || t[fl - 1] == '\t')) {
        fl--;
    }
    Stack* st = &c->st;
    Stack_clear(st);
    st->root_first = 1;
    st->line = line;
    size_t start = 0;
    int idx = 0;
    for (size_t i = 0; i <= fl; i++) {
        if (i == fl || t[i] == ';') {
            idx++;
            const char* f = t + start;
            size_t l = i - start;
            StackLoad_trim(&f, &l);
            if (l == 0) {
                Load_reject(c->core, c->f, line, "frame %d is empty ('a;;b' or a stray ';')", idx);
                Stack_clear(st);
                return;
            }
            Stack_push(c, st, f, l, line);
            start = i + 1;
        }
    }
    /* the leaf may be a kernel: LoadStacks_finish looks it up */
    st->kernel = xstrdup(st->frames[st->n - 1]);
    stack_store(c, st, "folded", llround(value * 1000.0), 1);
    Stack_clear(st);
}

/* ---- CSV with a stack column -------------------------------------------------------------- */

static const struct {
    const char* name;
    int what; /* 0 stack, 1 seq, 2 corr, 3 kernel name */
} csv_cols[] = {
    {"stack", 0},          {"callstack", 0},    {"call_stack", 0},   {"call stack", 0},
    {"kernel_stack", 0},   {"kernelstack", 0},  {"kernel stack", 0}, {"host_stack", 0},
    {"backtrace", 0},      {"stacktrace", 0},   {"stack_trace", 0},  {"frames", 0},
    {"index", 1},          {"kernel_index", 1}, {"launch_index", 1}, {"dispatch_id", 1},
    {"dispatch", 1},       {"seq", 1},          {"idx", 1},          {"kernel index", 1},
    {"correlation_id", 2}, {"correlation", 2},  {"corr_id", 2},      {"corrid", 2},
    {"kernel_name", 3},    {"kernelname", 3},   {"kernel-name", 3},  {"kernel", 3},
    {"name", 3},           {"kernel name", 3},
};

static int csv_col_kind(const char* s, size_t n) {
    char h[64];
    StackLoad_trim(&s, &n);
    while (n > 0 && s[0] == '"') {
        s++;
        n--;
    }
    while (n > 0 && s[n - 1] == '"') {
        n--;
    }
    if (n == 0 || n >= sizeof(h)) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        h[i] = (char)tolower((unsigned char)s[i]);
    }
    h[n] = '\0';
    for (size_t i = 0; i < sizeof(csv_cols) / sizeof(csv_cols[0]); i++) {
        if (strcmp(csv_cols[i].name, h) == 0) {
            return csv_cols[i].what;
        }
    }
    return -1;
}

static int is_launch_api(const char* f) {
    static const char* const apis[] = {
        "hipLaunchKernel",        "hipModuleLaunchKernel",      "hipExtModuleLaunchKernel",
        "hipExtLaunchKernel",     "hipLaunchCooperativeKernel", "hipGraphLaunch",
        "ihipModuleLaunchKernel", "cudaLaunchKernel",           "cuLaunchKernel"};
    for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
        if (strncmp(f, apis[i], strlen(apis[i])) == 0) {
            return 1;
        }
    }
    return strstr(f, "libamdhip64") != NULL;
}

static int is_entry_point(const char* f) {
    return strncmp(f, "main", 4) == 0 || strncmp(f, "_start", 6) == 0 ||
           strncmp(f, "__libc_start_main", 17) == 0 || strstr(f, "<module>") != NULL;
}

/* Splits a stack cell into frames: newlines, " -> ", " <- ", '|' or ';'. Frames in gdb
 * numbering are ordered by number; "<-" lists the innermost first; otherwise the innermost
 * comes first when the first frame is a HIP launch call or the last an entry point (main,
 * _start, <module>), and the outermost first in every other case. Returns 0 (and reports)
 * on an empty frame. */
static int split_stack(Ctx* c, const char* s, size_t n, long line, Stack* st) {
    const char* sep = ";";
    StackLoad_trim(&s, &n);
    if (n == 0) {
        Load_reject(c->core, c->f, line, "empty stack");
        return 0;
    }
    int innermost_first = -1;
    if (memchr(s, '\n', n)) {
        sep = "\n";
    } else if (find_word(s, n, "->") < n) {
        sep = "->";
        innermost_first = 0;
    } else if (find_word(s, n, "<-") < n) {
        sep = "<-";
        innermost_first = 1;
    } else if (memchr(s, '|', n)) {
        sep = "|";
    }
    size_t sl = strlen(sep);
    size_t start = 0;
    int idx = 0, numbered = 0;
    long last = -1;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !(i + sl <= n && memcmp(s + i, sep, sl) == 0)) {
            continue;
        }
        const char* f = s + start;
        size_t l = i - start;
        StackLoad_trim(&f, &l);
        start = i + sl;
        i += sl - 1;
        idx++;
        if (l == 0) {
            if (sep[0] == '\n' || (i >= n && idx > 1)) {
                continue; /* blank line, or one trailing separator */
            }
            Load_reject(c->core, c->f, line, "stack frame %d is empty", idx);
            return 0;
        }
        long num;
        if (parse_frame(f, l, &c->tmp, &num) != FR_NONE) {
            if (num >= 0) {
                if (numbered && num <= last) {
                    Load_reject(c->core, c->f, line,
                                "frame #%ld after #%ld: frames out of order; row dropped", num,
                                last);
                    return 0;
                }
                numbered = 1;
                last = num;
            }
            Stack_push(c, st, c->tmp.p, c->tmp.len, line);
        } else {
            Stack_push(c, st, f, l, line);
        }
    }
    if (st->n == 0) {
        Load_reject(c->core, c->f, line, "empty stack");
        return 0;
    }
    if (numbered) {
        innermost_first = 1;
    } else if (innermost_first < 0) {
        innermost_first = is_launch_api(st->frames[0]) || is_entry_point(st->frames[st->n - 1]);
    }
    st->root_first = !innermost_first;
    return 1;
}

static int csv_num(const CsvField* fl, int64_t* out) {
    const char* s = fl->s;
    size_t n = fl->len;
    StackLoad_trim(&s, &n);
    if (n == 0 || n > 18) {
        return 0;
    }
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) {
            return -1;
        }
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

static int csv_row(const CsvRow* r, void* data) {
    Ctx* c = data;
    if (!c->header_done) {
        c->header_done = 1;
        c->ncols = r->n;
        c->c_stack = c->c_seq = c->c_corr = c->c_name = -1;
        for (int i = 0; i < r->n; i++) {
            int k = csv_col_kind(r->f[i].s, r->f[i].len);
            int* slot = k == 0   ? &c->c_stack
                        : k == 1 ? &c->c_seq
                        : k == 2 ? &c->c_corr
                        : k == 3 ? &c->c_name
                                 : NULL;
            if (slot && *slot < 0) {
                *slot = i;
            }
        }
        if (c->c_stack < 0) {
            /* the sniffer saw a stack header further down; the first row is the header */
            Load_reject(c->core, c->f, r->line, "no stack column in the header row");
            return 1;
        }
        return 0;
    }
    if (r->n == 1 && r->f[0].len == 0) {
        return 0;
    }
    if (r->n != c->ncols) {
        Load_reject(c->core, c->f, r->line, "expected %d columns but found %d", c->ncols, r->n);
        return 0;
    }
    Stack* st = &c->st;
    Stack_clear(st);
    st->line = r->line;
    int64_t v;
    int k;
    if (c->c_seq >= 0 && (k = csv_num(&r->f[c->c_seq], &v)) != 0) {
        if (k < 0) {
            Load_reject(c->core, c->f, r->line, "column %d: launch index is not a number",
                        c->c_seq + 1);
            return 0;
        }
        st->has_seq = 1;
        st->seq = v;
    }
    if (c->c_corr >= 0 && (k = csv_num(&r->f[c->c_corr], &v)) != 0) {
        if (k < 0) {
            Load_reject(c->core, c->f, r->line, "column %d: correlation id is not a number",
                        c->c_corr + 1);
            return 0;
        }
        st->has_corr = 1;
        st->corr = v;
    }
    if (c->c_name >= 0) {
        const char* s = r->f[c->c_name].s;
        size_t n = r->f[c->c_name].len;
        StackLoad_trim(&s, &n);
        if (n > 0) {
            st->kernel = Names_sanitize(s, n > FRAME_MAX ? FRAME_MAX : n);
        }
    }
    if (split_stack(c, r->f[c->c_stack].s, r->f[c->c_stack].len, r->line, st)) {
        stack_store(c, st, "csv", 0, 0);
    }
    Stack_clear(st);
    return 0;
}

/* ---- sniffing ----------------------------------------------------------------------------- */

static int folded_syntax(const char* s, size_t n, int* semis) {
    StackLoad_trim(&s, &n);
    size_t sp = n;
    while (sp > 0 && s[sp - 1] != ' ' && s[sp - 1] != '\t') {
        sp--;
    }
    if (sp < 2 || sp == n) {
        return 0;
    }
    int dot = 0;
    for (size_t i = sp; i < n; i++) {
        if (s[i] == '.' && !dot && i > sp) {
            dot = 1;
        } else if (!isdigit((unsigned char)s[i])) {
            return 0;
        }
    }
    if (memchr(s, ';', sp)) {
        (*semis)++;
    }
    return 1;
}

/* A first line longer than the sniff window: folded when its start holds a ';' and its
 * end (read on, up to 1 GiB) is " VALUE". */
static int long_line_folded(const char* path, size_t off, const char* head, size_t hn) {
    if (!memchr(head, ';', hn) || memchr(head, ',', hn)) {
        return 0;
    }
    FILE* fp = SafeFile_fopen(path, NULL);
    if (!fp || fseek(fp, (long)off, SEEK_SET) != 0) {
        if (fp) {
            fclose(fp);
        }
        return 0;
    }
    char tail[128];
    size_t tl = 0;
    char chunk[65536];
    size_t got, total = 0;
    int done = 0;
    while (!done && (got = fread(chunk, 1, sizeof(chunk), fp)) > 0 && total < (1u << 30)) {
        size_t k = 0;
        while (k < got && chunk[k] != '\n') {
            k++;
        }
        done = k < got;
        total += k;
        /* keep the last bytes of the line */
        if (k >= sizeof(tail)) {
            memcpy(tail, chunk + k - sizeof(tail), sizeof(tail));
            tl = sizeof(tail);
        } else {
            size_t keep = tl + k > sizeof(tail) ? sizeof(tail) - k : tl;
            memmove(tail, tail + tl - keep, keep);
            memcpy(tail + keep, chunk, k);
            tl = keep + k;
        }
    }
    fclose(fp);
    int semis = 0;
    return folded_syntax(tail, tl, &semis);
}

static int name_says_stacks(const char* path) {
    const char* b = strrchr(path, '/');
    b = b ? b + 1 : path;
    char low[256];
    size_t n = strlen(b);
    if (n >= sizeof(low)) {
        n = sizeof(low) - 1;
    }
    for (size_t i = 0; i < n; i++) {
        low[i] = (char)tolower((unsigned char)b[i]);
    }
    low[n] = '\0';
    return strstr(low, "stack") || strstr(low, "backtrace") || strstr(low, ".folded") ||
           strstr(low, ".collapsed");
}

int LoadStacks_sniff(const char* path) {
    FILE* fp = GzFile_open(path, NULL); /* X.csv.gz as X.csv */
    if (!fp) {
        return SF_NONE;
    }
    char* b = xmalloc(SNIFF_BYTES + 1);
    size_t n = fread(b, 1, SNIFF_BYTES, fp);
    int more = !feof(fp);
    fclose(fp);
    b[n] = '\0';
    size_t i = 0;
    if (n >= 3 && (unsigned char)b[0] == 0xEF && (unsigned char)b[1] == 0xBB &&
        (unsigned char)b[2] == 0xBF) {
        i = 3;
    }
    int form = SF_NONE, lines = 0, folded = 0, semis = 0, first = 1, first_folded = 0;
    Buf tmp = {0};
    while (i < n && lines < 64 && form == SF_NONE) {
        size_t e = i;
        while (e < n && b[e] != '\n') {
            e++;
        }
        if (e == n && more) {
            /* a line longer than the sniff window: its start and its end decide */
            if (lines == 0 && long_line_folded(path, (size_t)i, b + i, n - i)) {
                lines++;
                folded++;
                semis++;
                first_folded = 1;
            }
            break;
        }
        const char* l = b + i;
        size_t ll = e - i;
        i = e + 1;
        const char* t = l;
        size_t tn = ll;
        StackLoad_trim(&t, &tn);
        if (tn == 0) {
            continue;
        }
        if (first) {
            first = 0;
            /* CSV header with a stack column */
            size_t s = 0;
            int inq = 0;
            for (size_t k = 0; k <= tn; k++) {
                if (k < tn && t[k] == '"') {
                    inq = !inq;
                }
                if (k == tn || (t[k] == ',' && !inq)) {
                    if (csv_col_kind(t + s, k - s) == 0 && memchr(t, ',', tn)) {
                        form = SF_CSV;
                    }
                    s = k + 1;
                }
            }
            if (form != SF_NONE) {
                break;
            }
        }
        long num;
        FrameForm ff = parse_frame(t, tn, &tmp, &num);
        if (ff == FR_GDB || ff == FR_BT) {
            form = SF_TEXT;
            break;
        }
        lines++;
        int fs = folded_syntax(t, tn, &semis);
        if (lines == 1) {
            first_folded = fs; /* a CSV header never ends in " NUMBER" */
        }
        folded += fs;
    }
    free(tmp.p);
    free(b);
    /* most lines in the folded form (the others are reported line by line when read), and
     * the first one too unless the file name says stacks */
    int named = name_says_stacks(path);
    if (form == SF_NONE && folded > 0 && folded * 2 >= lines && (first_folded || named) &&
        (semis > 0 || named)) {
        form = SF_FOLDED;
    }
    if (form == SF_NONE && name_says_stacks(path) && n > 0) {
        form = SF_UNKNOWN;
    }
    return form;
}

/* ---- reading a file ----------------------------------------------------------------------- */

static DcuStatus read_lines(Ctx* c, int form, DcuError* err) {
    DcuError oe;
    FILE* fp = GzFile_open(c->f->path, &oe);
    if (!fp) {
        return Error_set(err, DCU_ERR_IO, "%s: %s", c->f->path, oe.msg);
    }
    char* line = NULL;
    size_t cap = 0;
    ssize_t got;
    long ln = 0;
    while ((got = getline(&line, &cap, fp)) >= 0) {
        ln++;
        size_t n = (size_t)got;
        const char* s = line;
        if (ln == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
            s += 3;
            n -= 3;
        }
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) {
            n--;
        }
        if (form == SF_FOLDED) {
            folded_line(c, s, n, ln);
        } else {
            text_line(c, s, n, ln);
        }
        if ((ln & 0xFFFF) == 0 && ftell(fp) >= 0) {
            Load_progress(c->core, c->f, (uint64_t)ftell(fp));
        }
    }
    int bad = ferror(fp), bad_errno = errno;
    free(line);
    fclose(fp);
    if (form == SF_TEXT) {
        text_flush(c, ln + 1);
    }
    if (bad) {
        return Error_set(err, DCU_ERR_IO, "%s: read error after line %ld: %s", c->f->path, ln,
                         GzFile_readError(bad_errno));
    }
    return DCU_OK;
}

DcuStatus LoadStacks_file(LoaderCore* core, LoadFile* f, int form, DcuError* err) {
    if (form == SF_UNKNOWN) {
        f->format = "skipped";
        f->note = xasprintf("named like a call-stack file, but no stack form recognised (%s)",
                            accepted_forms);
        return DCU_OK;
    }
    DcuStatus s = StackLoad_init(core, err);
    if (s != DCU_OK) {
        return s;
    }
    Ctx c = {0};
    c.core = core;
    c.f = f;
    c.st.last_num = -1;
    if (form == SF_CSV) {
        f->format = "call stacks (CSV)";
        s = Load_keepCut(core, f, CsvReader_readFile(f->path, csv_row, NULL, &c, err), err);
    } else {
        f->format = form == SF_FOLDED ? "folded stacks" : "call stacks (gdb/backtrace)";
        s = read_lines(&c, form, err);
    }
    Stack_free(&c.st);
    free(c.tmp.p);
    if (s == DCU_OK && f->rows == 0 && !f->note) {
        f->note = xasprintf("no stack could be read (%s)", accepted_forms);
    }
    return s;
}

/* ---- after loading: attach stacks to kernels and launches ------------------------------------ */

typedef struct Finish_ {
    LoaderCore* core;
    TraceDb* db;
    Intern* names; /* kernel name as written in a dump -> kernel.id, or -1 when unknown */
    sqlite3_stmt* by_name;
    sqlite3_stmt* by_short;
    sqlite3_stmt* by_seq;
    sqlite3_stmt* by_corr;
    sqlite3_stmt* upd;
    int64_t msg_file; /* messages kept per file */
    int msg_count;
    int64_t msg_more;
} Finish;

static void fin_message(Finish* fz, int64_t file_id, int64_t line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fin_flush_more(Finish* fz) {
    if (fz->msg_more > 0) {
        char buf[128];
        snprintf(buf, sizeof(buf), "%lld more stacks with the same kinds of problem not listed",
                 (long long)fz->msg_more);
        sqlite3_stmt* st = fz->core->st[ST_MSG];
        sqlite3_bind_int64(st, 1, fz->msg_file);
        sqlite3_bind_null(st, 2);
        sqlite3_bind_text(st, 3, buf, -1, SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    fz->msg_more = 0;
}

static void fin_message(Finish* fz, int64_t file_id, int64_t line, const char* fmt, ...) {
    if (file_id != fz->msg_file) {
        fin_flush_more(fz);
        fz->msg_file = file_id;
        fz->msg_count = 0;
    }
    if (fz->msg_count >= MSG_MAX) {
        fz->msg_more++;
        return;
    }
    fz->msg_count++;
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    sqlite3_stmt* st = fz->core->st[ST_MSG];
    sqlite3_bind_int64(st, 1, file_id);
    if (line > 0) {
        sqlite3_bind_int64(st, 2, line);
    } else {
        sqlite3_bind_null(st, 2);
    }
    sqlite3_bind_text(st, 3, buf, -1, SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_reset(st);
}

/* kernel.id for a name as a dump writes it: the normalised full name, else a unique short
 * name; 0 when no loaded kernel has it. */
static int64_t kernel_by_name(Finish* fz, const char* name) {
    size_t n = strlen(name);
    int64_t id = Intern_get(fz->names, name, n);
    if (id) {
        return id > 0 ? id : 0;
    }
    char* norm = Names_normalize(name, n);
    id = 0;
    sqlite3_bind_text(fz->by_name, 1, norm, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(fz->by_name) == SQLITE_ROW) {
        id = sqlite3_column_int64(fz->by_name, 0);
    }
    sqlite3_reset(fz->by_name);
    if (!id) {
        sqlite3_bind_text(fz->by_short, 1, norm, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(fz->by_short) == SQLITE_ROW &&
            sqlite3_column_int64(fz->by_short, 1) == 1) {
            id = sqlite3_column_int64(fz->by_short, 0);
        }
        sqlite3_reset(fz->by_short);
    }
    free(norm);
    Intern_put(fz->names, name, n, id ? id : -1);
    return id;
}

/* The used dispatch with this launch index (or correlation id) in the stack file's folder
 * and run; prefers one of the named kernel. */
static int find_dispatch(sqlite3_stmt* st, int64_t file_id, int64_t key, int64_t kernel_id,
                         int64_t* did, int64_t* kid, int64_t* dur) {
    sqlite3_bind_int64(st, 1, key);
    sqlite3_bind_int64(st, 2, file_id);
    sqlite3_bind_int64(st, 3, kernel_id);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        *did = sqlite3_column_int64(st, 0);
        *kid = sqlite3_column_int64(st, 1);
        *dur = sqlite3_column_int64(st, 2);
    }
    sqlite3_reset(st);
    return found;
}

#define DISPATCH_BY(col)                                                                           \
    "SELECT d.id, d.kernel_id, d.dur_ns FROM dispatch d"                                           \
    " JOIN used_file u ON u.file_id = d.file_id AND u.layer = 'kernel'"                            \
    " JOIN source_file fd ON fd.id = d.file_id JOIN source_file fs ON fs.id = ?2"                  \
    " WHERE d." col " = ?1 AND fd.run_id = fs.run_id"                                              \
    " ORDER BY d.kernel_id = ?3 DESC, d.id LIMIT 1"

typedef struct Pending_ {
    int64_t id, kernel_id;
} Pending;

static int cmp_pending(const void* a, const void* b) {
    const Pending* x = a;
    const Pending* y = b;
    if (x->kernel_id != y->kernel_id) {
        return x->kernel_id < y->kernel_id ? -1 : 1;
    }
    return x->id < y->id ? -1 : x->id > y->id;
}

static void set_match(Finish* fz, int64_t id, int64_t kernel_id, int64_t dispatch_id,
                      const char* how, int64_t calls, int64_t time_ns, int64_t stack_parent) {
    sqlite3_stmt* u = fz->upd;
    kernel_id ? sqlite3_bind_int64(u, 1, kernel_id) : sqlite3_bind_null(u, 1);
    dispatch_id ? sqlite3_bind_int64(u, 2, dispatch_id) : sqlite3_bind_null(u, 2);
    sqlite3_bind_text(u, 3, how, -1, SQLITE_STATIC);
    sqlite3_bind_int64(u, 4, calls);
    sqlite3_bind_int64(u, 5, time_ns);
    sqlite3_bind_int(u, 6, stack_parent != 0);
    sqlite3_bind_int64(u, 7, id);
    sqlite3_step(u);
    sqlite3_reset(u);
}

/* floor(r * i / m) without overflow (r, m > 0, i <= m). */
static int64_t share(int64_t r, int64_t i, int64_t m) {
    return (r / m) * i + (int64_t)(((__int128)(r % m) * i) / m);
}

/* ---- PyTorch profiler (Kineto) traces recorded with_stack ----------------------------------- */

DcuStatus LoadStacks_finish(LoaderCore* core, DcuError* err) {
    TraceDb* db = core->db;
    if (!TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM kernel_stack WHERE match IS NULL)")) {
        return DCU_OK;
    }
    /* dispatch's seq and corr_id lookups use the dispatch store's own indexes, built on
     * their first use (dispatch_store.h) */
    int has_disp =
        TraceDb_scalarInt(
            db, "SELECT EXISTS (SELECT 1 FROM dispatch d JOIN used_file u ON u.file_id = d.file_id"
                " AND u.layer = 'kernel')") != 0;
    DcuStatus s = DCU_OK;
    Finish fz = {0};
    fz.core = core;
    fz.db = db;
    fz.msg_file = -1;
    fz.names = Intern_new();
    sqlite3_stmt* rows = NULL;
    Pending* pend = NULL;
    size_t npend = 0, cappend = 0;
    s = TraceDb_prepare(db, "SELECT id FROM kernel WHERE name = ?1", &fz.by_name, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT min(id), count(*) FROM kernel WHERE short_name = ?1",
                            &fz.by_short, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, DISPATCH_BY("seq"), &fz.by_seq, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, DISPATCH_BY("corr_id"), &fz.by_corr, err);
    }
    if (s == DCU_OK) {
        /* ?6: a folded leaf that is a kernel leaves the path (the kernel is the leaf) */
        s = TraceDb_prepare(db,
                            "UPDATE kernel_stack SET kernel_id = ?1, dispatch_id = ?2, match = ?3,"
                            " calls = ?4, time_ns = ?5, stack_id = CASE WHEN ?6 THEN"
                            " (SELECT parent FROM stack_node WHERE id = stack_id) ELSE stack_id END"
                            " WHERE id = ?7",
                            &fz.upd, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(db,
                            "SELECT ks.id, ks.file_id, ks.line, ks.form, ks.kernel_name, ks.seq,"
                            " ks.corr_id, ks.value_ns FROM kernel_stack ks"
                            " WHERE ks.match IS NULL ORDER BY ks.file_id, ks.id",
                            &rows, err);
    }
    /* exact matches claim their dispatch; a second stack for the same launch gets no time */
    Intern* claimed = Intern_new();
    int rc = SQLITE_DONE;
    while (s == DCU_OK && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(rows, 0);
        int64_t file_id = sqlite3_column_int64(rows, 1);
        int64_t line = sqlite3_column_int64(rows, 2);
        const char* form = (const char*)sqlite3_column_text(rows, 3);
        const char* kname = (const char*)sqlite3_column_text(rows, 4);
        int has_seq = sqlite3_column_type(rows, 5) != SQLITE_NULL;
        int64_t seq = sqlite3_column_int64(rows, 5);
        int has_corr = sqlite3_column_type(rows, 6) != SQLITE_NULL;
        int64_t corr = sqlite3_column_int64(rows, 6);
        int64_t kid = kname ? kernel_by_name(&fz, kname) : 0;
        if (strcmp(form, "folded") == 0) {
            int64_t v = sqlite3_column_int64(rows, 7);
            /* a leaf that is a kernel leaves the path and becomes its kernel */
            set_match(&fz, id, kid, 0, "value", 1, v, kid != 0);
            continue;
        }
        int64_t did = 0, dkid = 0, dur = 0;
        const char* how = NULL;
        if (has_disp && has_seq && find_dispatch(fz.by_seq, file_id, seq, kid, &did, &dkid, &dur)) {
            how = "index";
        } else if (has_disp && has_corr &&
                   find_dispatch(fz.by_corr, file_id, corr, kid, &did, &dkid, &dur)) {
            how = "correlation";
        }
        if (how) {
            if (kid && dkid != kid) {
                fin_message(&fz, file_id, line,
                            "launch %s %lld is another kernel in the trace than '%.120s' named "
                            "by the stack; attached by %s",
                            how, (long long)(has_seq ? seq : corr), kname, how);
            }
            if (Intern_get(claimed, (const char*)&did, sizeof(did))) {
                fin_message(&fz, file_id, line,
                            "a second stack for launch %s %lld: kept without time", how,
                            (long long)(has_seq ? seq : corr));
                set_match(&fz, id, dkid, 0, "duplicate", 0, 0, 0);
                continue;
            }
            Intern_put(claimed, (const char*)&did, sizeof(did), 1);
            set_match(&fz, id, dkid, did, how, 1, dur, 0);
            continue;
        }
        if (has_disp && (has_seq || has_corr)) {
            fin_message(&fz, file_id, line,
                        "no loaded dispatch has %s %lld in this folder and run; attached by "
                        "kernel name",
                        has_seq ? "launch index" : "correlation id",
                        (long long)(has_seq ? seq : corr));
        }
        if (!kid) {
            if (kname) {
                fin_message(&fz, file_id, line,
                            "the stack names kernel '%.160s', which no loaded kernel file has: "
                            "kept without time",
                            kname);
            } else {
                fin_message(&fz, file_id, line,
                            "the stack names no kernel (no name, or an index/correlation id "
                            "that matches nothing): kept without time");
            }
            set_match(&fz, id, 0, 0, "none", 1, 0, 0);
            continue;
        }
        if (npend == cappend) {
            cappend = cappend ? cappend * 2 : 256;
            pend = xrealloc(pend, sizeof(Pending) * cappend);
        }
        pend[npend].id = id;
        pend[npend].kernel_id = kid;
        npend++;
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "kernel_stack: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    fin_flush_more(&fz);
    /* name matches share what exact matches left of each kernel's time and calls */
    if (s == DCU_OK && npend > 0) {
        qsort(pend, npend, sizeof(Pending), cmp_pending);
        sqlite3_stmt* left = NULL;
        s = TraceDb_prepare(db,
                            "SELECT max(0, s.total_ns - coalesce((SELECT CAST(sum(CAST(time_ns AS REAL)) AS INTEGER) FROM"
                            " kernel_stack WHERE kernel_id = ?1 AND dispatch_id IS NOT NULL), 0)),"
                            " max(0, s.calls - coalesce((SELECT CAST(sum(CAST(calls AS REAL)) AS INTEGER) FROM kernel_stack"
                            " WHERE kernel_id = ?1 AND dispatch_id IS NOT NULL), 0))"
                            " FROM kernel_summary s WHERE s.kernel_id = ?1",
                            &left, err);
        for (size_t a = 0; s == DCU_OK && a < npend;) {
            size_t b = a;
            while (b < npend && pend[b].kernel_id == pend[a].kernel_id) {
                b++;
            }
            int64_t t = 0, calls = 0;
            sqlite3_bind_int64(left, 1, pend[a].kernel_id);
            if (sqlite3_step(left) == SQLITE_ROW) {
                t = sqlite3_column_int64(left, 0);
                calls = sqlite3_column_int64(left, 1);
            }
            sqlite3_reset(left);
            int64_t m = (int64_t)(b - a);
            for (int64_t i = 0; i < m; i++) {
                set_match(&fz, pend[a + (size_t)i].id, pend[a].kernel_id, 0, "name",
                          share(calls, i + 1, m) - share(calls, i, m),
                          share(t, i + 1, m) - share(t, i, m), 0);
            }
            a = b;
        }
        sqlite3_finalize(left);
    }
    Intern_delete(claimed);
    free(pend);
    sqlite3_finalize(rows);
    sqlite3_finalize(fz.by_name);
    sqlite3_finalize(fz.by_short);
    sqlite3_finalize(fz.by_seq);
    sqlite3_finalize(fz.by_corr);
    sqlite3_finalize(fz.upd);
    Intern_delete(fz.names);
    return s;
}
