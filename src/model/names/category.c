/* category.c - rule parsing, classification, and writing categories into the db. */
#include "dcutop/category.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/filter.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"

extern const char dcutop_default_rules[]; /* generated from src/model/names/default.rules */

/* Display order of the known categories, and which are GEMM (CATEGORIES.md 1). */
static const char* const known[] = {"gemm",   "attention", "conv",   "copy",  "elementwise",
                                    "softmax", "norm",     "reduce", "index", "memcpy",
                                    "comm",    "sort",     "random", "optimizer", "other"};
#define N_KNOWN (sizeof(known) / sizeof(known[0]))

typedef struct Rule_ {
    char* category;
    char* regex;
    char* source; /* owned copy */
    int line;
    pcre2_code* code;
} Rule;

struct RuleSet_ {
    Rule* rules;
    int n, cap;
    char** gemm; /* GEMM-group category names */
    int n_gemm;
    char** extra; /* user-defined categories, in order of first appearance */
    int n_extra;
    pcre2_match_data* md;
    int replace; /* a user file said %replace */
};

const char* RuleSet_builtinText(void) {
    return dcutop_default_rules;
}

static void add_gemm(RuleSet* this, const char* name) {
    if (RuleSet_isGemm(this, name)) {
        return;
    }
    this->gemm = xrealloc(this->gemm, sizeof(char*) * (size_t)(this->n_gemm + 1));
    this->gemm[this->n_gemm++] = xstrdup(name);
}

RuleSet* RuleSet_new(int gemm_like) {
    RuleSet* this = xcalloc(1, sizeof(*this));
    add_gemm(this, "gemm");
    if (gemm_like) {
        add_gemm(this, "conv");
        add_gemm(this, "attention");
    }
    this->md = pcre2_match_data_create(4, NULL);
    return this;
}

void RuleSet_delete(RuleSet* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->n; i++) {
        free(this->rules[i].category);
        free(this->rules[i].regex);
        free(this->rules[i].source);
        pcre2_code_free(this->rules[i].code);
    }
    free(this->rules);
    for (int i = 0; i < this->n_gemm; i++) {
        free(this->gemm[i]);
    }
    free(this->gemm);
    for (int i = 0; i < this->n_extra; i++) {
        free(this->extra[i]);
    }
    free(this->extra);
    pcre2_match_data_free(this->md);
    free(this);
}

static int is_known(const char* c) {
    for (size_t i = 0; i < N_KNOWN; i++) {
        if (strcmp(known[i], c) == 0) {
            return 1;
        }
    }
    return 0;
}

static void note_category(RuleSet* this, const char* c) {
    if (is_known(c)) {
        return;
    }
    for (int i = 0; i < this->n_extra; i++) {
        if (strcmp(this->extra[i], c) == 0) {
            return;
        }
    }
    this->extra = xrealloc(this->extra, sizeof(char*) * (size_t)(this->n_extra + 1));
    this->extra[this->n_extra++] = xstrdup(c);
}

static int valid_category(const char* s, size_t n) {
    if (n == 0 || n > 40) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            return 0;
        }
    }
    return 1;
}

/* Parses into a temporary list first so that a bad file leaves the set unchanged. */
DcuStatus RuleSet_parse(RuleSet* this, const char* text, const char* source, DcuError* err) {
    int lineno = 0;
    const char* p = text;
    Rule* tmp = NULL;
    int nt = 0;
    DcuStatus s = DCU_OK;
    char* line = NULL;
    while (*p) {
        const char* nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        free(line);
        line = xstrndup(p, len);
        p += len + (nl ? 1 : 0);
        size_t l = strlen(line);
        if (l != len) {
            s = Error_set(err, DCU_ERR_RULES, "%s:%d: NUL byte in rules file", source, lineno);
            goto done;
        }
        while (l > 0 && (line[l - 1] == '\r' || line[l - 1] == ' ')) {
            line[--l] = '\0';
        }
        const char* q = line;
        while (*q == ' ') {
            q++;
        }
        if (*q == '\0' || *q == '#') {
            continue;
        }
        if (strncmp(q, "%replace", 8) == 0 && (q[8] == '\0' || q[8] == ' ')) {
            this->replace = 1;
            continue;
        }
        if (strncmp(q, "%gemm", 5) == 0 && (q[5] == ' ' || q[5] == '\t')) {
            char* names = xstrdup(q + 5);
            for (char* tok = strtok(names, " \t"); tok; tok = strtok(NULL, " \t")) {
                add_gemm(this, tok);
            }
            free(names);
            continue;
        }
        const char* tab = strchr(q, '\t');
        if (!tab || !valid_category(q, (size_t)(tab - q))) {
            s = Error_set(err, DCU_ERR_RULES,
                          "%s:%d: expected 'category<TAB>regex' (category: lower-case "
                          "letters, digits, '_' or '-')",
                          source, lineno);
            goto done;
        }
        const char* re = tab + 1;
        while (*re == '\t') {
            re++;
        }
        if (*re == '\0') {
            s = Error_set(err, DCU_ERR_RULES, "%s:%d: empty regex", source, lineno);
            goto done;
        }
        DcuError rerr;
        pcre2_code* code = Filter_compileRaw(re, &rerr);
        if (!code) {
            s = Error_set(err, DCU_ERR_RULES, "%s:%d: bad regex: %s", source, lineno, rerr.msg);
            goto done;
        }
        tmp = xrealloc(tmp, sizeof(Rule) * (size_t)(nt + 1));
        tmp[nt].category = xstrndup(q, (size_t)(tab - q));
        tmp[nt].regex = xstrdup(re);
        tmp[nt].source = xstrdup(source);
        tmp[nt].line = lineno;
        tmp[nt].code = code;
        nt++;
    }
done:
    free(line);
    if (s != DCU_OK) {
        for (int i = 0; i < nt; i++) {
            free(tmp[i].category);
            free(tmp[i].regex);
            free(tmp[i].source);
            pcre2_code_free(tmp[i].code);
        }
        free(tmp);
        return s;
    }
    for (int i = 0; i < nt; i++) {
        if (this->n == this->cap) {
            this->cap = this->cap ? this->cap * 2 : 64;
            this->rules = xrealloc(this->rules, sizeof(Rule) * (size_t)this->cap);
        }
        note_category(this, tmp[i].category);
        this->rules[this->n++] = tmp[i];
    }
    free(tmp);
    return DCU_OK;
}

static char* read_file(const char* path, DcuError* err) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        Error_set(err, DCU_ERR_IO, "%s: cannot open rules file", path);
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char* buf = xmalloc(cap);
    size_t r;
    while ((r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (cap - len - 1 == 0) {
            xgrow((void**)&buf, &cap, cap * 2);
        }
        if (len > (16u << 20)) {
            fclose(f);
            free(buf);
            Error_set(err, DCU_ERR_RULES, "%s: rules file larger than 16 MiB", path);
            return NULL;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        Error_set(err, DCU_ERR_IO, "%s: read error", path);
        return NULL;
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        Error_set(err, DCU_ERR_RULES, "%s: NUL byte in rules file", path);
        return NULL;
    }
    return buf;
}

DcuStatus RuleSet_loadDefault(RuleSet* this, const char* rules_path, DcuError* err) {
    char* xdg_path = NULL;
    const char* user = rules_path;
    if (!user) {
        const char* xdg = getenv("XDG_CONFIG_HOME");
        const char* home = getenv("HOME");
        if (xdg && *xdg) {
            xdg_path = xasprintf("%s/dcutop/categories.rules", xdg);
        } else if (home && *home) {
            xdg_path = xasprintf("%s/.config/dcutop/categories.rules", home);
        }
        /* only a regular file counts: a FIFO there would block the start for ever */
        if (xdg_path && SafeFile_check(xdg_path, NULL, NULL) == 0) {
            user = xdg_path;
        }
    }
    DcuStatus s = DCU_OK;
    if (user) {
        char* text = read_file(user, err);
        if (!text) {
            free(xdg_path);
            return err ? err->code : DCU_ERR_IO;
        }
        s = RuleSet_parse(this, text, user, err);
        free(text);
    }
    if (s == DCU_OK && !this->replace) {
        s = RuleSet_parse(this, dcutop_default_rules, "built-in", err);
    }
    free(xdg_path);
    return s;
}

CategoryMatch RuleSet_classify(RuleSet* this, const char* name, size_t n) {
    for (int i = 0; i < this->n; i++) {
        if (pcre2_match(this->rules[i].code, (PCRE2_SPTR)name, n, 0, 0, this->md, NULL) >= 0) {
            CategoryMatch m = {this->rules[i].category, this->rules[i].line,
                               this->rules[i].source, this->rules[i].regex};
            return m;
        }
    }
    CategoryMatch none = {"other", 0, NULL, NULL};
    return none;
}

int RuleSet_isGemm(const RuleSet* this, const char* category) {
    for (int i = 0; i < this->n_gemm; i++) {
        if (strcmp(this->gemm[i], category) == 0) {
            return 1;
        }
    }
    return 0;
}

int RuleSet_count(const RuleSet* this) {
    return this->n;
}

DcuStatus RuleSet_apply(RuleSet* this, TraceDb* db, DcuError* err) {
    sqlite3_stmt* sel = NULL;
    sqlite3_stmt* upd = NULL;
    sqlite3_stmt* cat = NULL;
    DcuStatus s = TraceDb_exec(db, "BEGIN; DELETE FROM category;", err);
    if (s != DCU_OK) {
        return s;
    }
    if ((s = TraceDb_prepare(db, "SELECT id, name, name_raw FROM kernel", &sel, err)) != DCU_OK ||
        (s = TraceDb_prepare(db,
                             "UPDATE kernel SET category = ?1, rule_line = ?2, rule_source = ?3,"
                             " rule_pattern = ?5 WHERE id = ?4",
                             &upd, err)) != DCU_OK ||
        (s = TraceDb_prepare(db, "INSERT INTO category(name, is_gemm, ord) VALUES(?1, ?2, ?3)",
                             &cat, err)) != DCU_OK) {
        goto done;
    }
    while (sqlite3_step(sel) == SQLITE_ROW) {
        const char* name = (const char*)sqlite3_column_text(sel, 1);
        int len = sqlite3_column_bytes(sel, 1);
        CategoryMatch m = RuleSet_classify(this, name ? name : "", name ? (size_t)len : 0);
        /* a demangled name no rule knows: rules written for the mangled form still apply */
        const char* raw = (const char*)sqlite3_column_text(sel, 2);
        if (m.line == 0 && raw && (!name || strcmp(raw, name) != 0)) {
            m = RuleSet_classify(this, raw, (size_t)sqlite3_column_bytes(sel, 2));
        }
        sqlite3_bind_text(upd, 1, m.category, -1, SQLITE_TRANSIENT);
        if (m.line) {
            sqlite3_bind_int(upd, 2, m.line);
            sqlite3_bind_text(upd, 3, m.source, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(upd, 5, m.pattern, -1, SQLITE_TRANSIENT);
        } else {
            sqlite3_bind_null(upd, 2);
            sqlite3_bind_null(upd, 3);
            sqlite3_bind_null(upd, 5);
        }
        sqlite3_bind_int64(upd, 4, sqlite3_column_int64(sel, 0));
        if (sqlite3_step(upd) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "categorize: %s",
                          sqlite3_errmsg(TraceDb_handle(db)));
            goto done;
        }
        sqlite3_reset(upd);
    }
    int ord = 0;
    for (size_t i = 0; i < N_KNOWN + (size_t)this->n_extra; i++) {
        const char* c = i < N_KNOWN ? known[i] : this->extra[i - N_KNOWN];
        sqlite3_bind_text(cat, 1, c, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(cat, 2, RuleSet_isGemm(this, c));
        sqlite3_bind_int(cat, 3, ord++);
        if (sqlite3_step(cat) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "categories: %s", sqlite3_errmsg(TraceDb_handle(db)));
            goto done;
        }
        sqlite3_reset(cat);
    }
done:
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    sqlite3_finalize(cat);
    if (s == DCU_OK) {
        return TraceDb_exec(db, "COMMIT", err);
    }
    TraceDb_exec(db, "ROLLBACK", NULL);
    return s;
}

char* RuleSet_dump(const RuleSet* this) {
    size_t cap = 4096, len = 0;
    char* out = xmalloc(cap);
    out[0] = '\0';
    const char* last_source = NULL;
    for (int i = 0; i < this->n; i++) {
        const Rule* r = &this->rules[i];
        char* line;
        if (!last_source || strcmp(last_source, r->source) != 0) {
            line = xasprintf("%s# rules from %s\n", i ? "\n" : "", r->source);
            last_source = r->source;
            size_t l = strlen(line);
            xgrow((void**)&out, &cap, len + l + 1);
            memcpy(out + len, line, l + 1);
            len += l;
            free(line);
        }
        line = xasprintf("%s\t%s\n", r->category, r->regex);
        size_t l = strlen(line);
        xgrow((void**)&out, &cap, len + l + 1);
        memcpy(out + len, line, l + 1);
        len += l;
        free(line);
    }
    /* the GEMM group beyond 'gemm' itself (%gemm lines, --gemm-like) */
    for (int i = 0; i < this->n_gemm; i++) {
        if (strcmp(this->gemm[i], "gemm") == 0) {
            continue;
        }
        char* line = xasprintf("%%gemm %s\n", this->gemm[i]);
        size_t l = strlen(line);
        xgrow((void**)&out, &cap, len + l + 1);
        memcpy(out + len, line, l + 1);
        len += l;
        free(line);
    }
    return out;
}
