/* check_rules.c - checks a dcutop rules file against a table of expected categories.
 *
 * Build (outside the repo):
 *   cc -O2 -Wall -Wextra -o /tmp/check_rules tools/check_rules.c \
 *      $(pkg-config --cflags --libs libpcre2-8)
 * Run:
 *   /tmp/check_rules src/model/names/default.rules tests/data/kernel_names_expected.tsv [-v] [-u]
 *
 * The rules file is parsed the way dcutop parses it (src/model/names/category.c): one rule a line,
 * `category<TAB>regex` (the regex is everything after the first TAB run); `#` comment lines
 * and blank lines are skipped; trailing spaces/CRs are dropped; `%` directive lines are
 * skipped.  Each regex is compiled with
 *   pcre2_compile(pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, ...)
 * and matched with pcre2_match over the whole name; the first matching rule wins and a name
 * no rule matches is `other`.
 *
 * The TSV has `expected_category<TAB>name` lines (`#` comments and blank lines skipped).
 * Prints every mismatch, then "N passed, N failed".  Exit status 0 only when nothing failed.
 *   -v  print every name with its category and rule line
 *   -u  also list rules that no name in the table matched first (unused rules)
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char* category;
    char* regex;
    int line;
    pcre2_code* code;
    long hits;
} Rule;

static const char* const known[] = {"gemm",    "attention", "conv",   "copy",   "elementwise",
                                    "softmax", "norm",      "reduce", "index",  "memcpy",
                                    "comm",    "sort",      "random", "optimizer", "other"};

static int is_known(const char* c) {
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(known[i], c) == 0) {
            return 1;
        }
    }
    return 0;
}

static char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 1 << 16, len = 0, r;
    char* buf = malloc(cap);
    while ((r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        fprintf(stderr, "%s: NUL byte in file\n", path);
        exit(2);
    }
    return buf;
}

/* Splits text into lines in place; returns the next line or NULL. */
static char* next_line(char** p) {
    if (!**p) {
        return NULL;
    }
    char* s = *p;
    char* nl = strchr(s, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = s + strlen(s);
    }
    return s;
}

int main(int argc, char** argv) {
    const char* rules_path = NULL;
    const char* tsv_path = NULL;
    int verbose = 0, unused = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "-u") == 0) {
            unused = 1;
        } else if (!rules_path) {
            rules_path = argv[i];
        } else if (!tsv_path) {
            tsv_path = argv[i];
        } else {
            rules_path = NULL;
            break;
        }
    }
    if (!rules_path || !tsv_path) {
        fprintf(stderr, "usage: %s RULES TSV [-v] [-u]\n", argv[0]);
        return 2;
    }

    /* ---- rules */
    char* rtext = slurp(rules_path);
    Rule* rules = NULL;
    int nr = 0, lineno = 0, bad = 0;
    char* p = rtext;
    char* line;
    while ((line = next_line(&p)) != NULL) {
        lineno++;
        size_t l = strlen(line);
        while (l > 0 && (line[l - 1] == '\r' || line[l - 1] == ' ')) {
            line[--l] = '\0';
        }
        char* q = line;
        while (*q == ' ') {
            q++;
        }
        if (*q == '\0' || *q == '#' || *q == '%') {
            continue;
        }
        char* tab = strchr(q, '\t');
        if (!tab) {
            fprintf(stderr, "%s:%d: expected 'category<TAB>regex'\n", rules_path, lineno);
            bad = 1;
            continue;
        }
        *tab = '\0';
        char* re = tab + 1;
        while (*re == '\t') {
            re++;
        }
        if (!is_known(q)) {
            fprintf(stderr, "%s:%d: unknown category '%s'\n", rules_path, lineno, q);
            bad = 1;
        }
        if (strcmp(q, "other") == 0) {
            fprintf(stderr, "%s:%d: note: explicit 'other' rule\n", rules_path, lineno);
        }
        int ec;
        PCRE2_SIZE off;
        pcre2_code* code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
                                         PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &off, NULL);
        if (!code) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(ec, msg, sizeof(msg));
            fprintf(stderr, "%s:%d: bad regex at offset %zu: %s\n", rules_path, lineno,
                    (size_t)off, (char*)msg);
            bad = 1;
            continue;
        }
        rules = realloc(rules, sizeof(Rule) * (size_t)(nr + 1));
        rules[nr].category = q;
        rules[nr].regex = re;
        rules[nr].line = lineno;
        rules[nr].code = code;
        rules[nr].hits = 0;
        nr++;
    }
    if (bad) {
        return 2;
    }

    /* ---- expected table */
    char* ttext = slurp(tsv_path);
    pcre2_match_data* md = pcre2_match_data_create(4, NULL);
    long passed = 0, failed = 0;
    lineno = 0;
    p = ttext;
    while ((line = next_line(&p)) != NULL) {
        lineno++;
        size_t l = strlen(line);
        if (l > 0 && line[l - 1] == '\r') {
            line[--l] = '\0';
        }
        if (line[0] == '\0' || line[0] == '#') {
            continue;
        }
        char* tab = strchr(line, '\t');
        if (!tab) {
            fprintf(stderr, "%s:%d: expected 'category<TAB>name'\n", tsv_path, lineno);
            return 2;
        }
        *tab = '\0';
        const char* want = line;
        const char* name = tab + 1;
        if (!is_known(want)) {
            fprintf(stderr, "%s:%d: unknown expected category '%s'\n", tsv_path, lineno, want);
            return 2;
        }
        const char* got = "other";
        int rl = 0;
        for (int i = 0; i < nr; i++) {
            if (pcre2_match(rules[i].code, (PCRE2_SPTR)name, strlen(name), 0, 0, md, NULL) >= 0) {
                got = rules[i].category;
                rl = rules[i].line;
                rules[i].hits++;
                break;
            }
        }
        if (strcmp(got, want) == 0) {
            passed++;
            if (verbose) {
                printf("ok   %-11s rule %-4d %s\n", got, rl, name);
            }
        } else {
            failed++;
            printf("FAIL %s:%d expected %s, got %s (rule line %d): %s\n", tsv_path, lineno, want,
                   got, rl, name);
        }
    }
    if (unused) {
        for (int i = 0; i < nr; i++) {
            if (rules[i].hits == 0) {
                printf("unused rule %s:%d %s\t%s\n", rules_path, rules[i].line, rules[i].category,
                       rules[i].regex);
            }
        }
    }
    printf("%ld passed, %ld failed\n", passed, failed);
    pcre2_match_data_free(md);
    for (int i = 0; i < nr; i++) {
        pcre2_code_free(rules[i].code);
    }
    free(rules);
    free(rtext);
    free(ttext);
    return failed ? 1 : 0;
}
