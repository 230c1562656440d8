/* filter.c - PCRE2 wrapper and SQL regexp(). */
#include "dcutop/filter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

struct Filter_ {
    char* pattern; /* as given (owned) */
    int negate;
    pcre2_code* code;
    pcre2_match_data* md;
};

static int has_upper(const char* s) {
    for (size_t i = 0; s[i]; i++) {
        /* escapes like \S \D \W \B are classes, not letters the user typed */
        if (s[i] >= 'A' && s[i] <= 'Z' && !(i > 0 && s[i - 1] == '\\')) {
            return 1;
        }
    }
    return 0;
}

static pcre2_code* compile(const char* pat, uint32_t extra, DcuError* err) {
    int ec = 0;
    PCRE2_SIZE off = 0;
    pcre2_code* code = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
                                     PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | extra, &ec, &off, NULL);
    if (!code) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(ec, buf, sizeof(buf));
        Error_set(err, DCU_ERR_REGEX, "%s at offset %zu", (const char*)buf, (size_t)off);
        return NULL;
    }
    return code;
}

DcuStatus Filter_new(const char* pattern, Filter** out, DcuError* err) {
    *out = NULL;
    int neg = pattern[0] == '!';
    const char* body = pattern + neg;
    uint32_t flags = has_upper(body) ? 0 : PCRE2_CASELESS;
    pcre2_code* code = compile(body, flags, err);
    if (!code) {
        return DCU_ERR_REGEX;
    }
    Filter* this = xcalloc(1, sizeof(*this));
    this->pattern = xstrdup(pattern);
    this->negate = neg;
    this->code = code;
    this->md = pcre2_match_data_create_from_pattern(code, NULL);
    *out = this;
    return DCU_OK;
}

void Filter_delete(Filter* this) {
    if (!this) {
        return;
    }
    pcre2_match_data_free(this->md);
    pcre2_code_free(this->code);
    free(this->pattern);
    free(this);
}

int Filter_matches(Filter* this, const char* text, size_t n) {
    int rc = pcre2_match(this->code, (PCRE2_SPTR)text, n, 0, 0, this->md, NULL);
    int hit = rc >= 0;
    return this->negate ? !hit : hit;
}

const char* Filter_pattern(const Filter* this) {
    return this->pattern;
}

int Filter_isNegated(const Filter* this) {
    return this->negate;
}

static void free_filter(void* p) {
    Filter_delete(p);
}

static void sql_regexp(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
    (void)argc;
    Filter* f = sqlite3_get_auxdata(ctx, 0);
    if (!f) {
        const char* pat = (const char*)sqlite3_value_text(argv[0]);
        if (!pat) {
            sqlite3_result_null(ctx);
            return;
        }
        DcuError err;
        if (Filter_new(pat, &f, &err) != DCU_OK) {
            sqlite3_result_error(ctx, err.msg, -1);
            return;
        }
        sqlite3_set_auxdata(ctx, 0, f, free_filter);
        /* SQLite may have freed f already if it could not keep it; fetch it back */
        f = sqlite3_get_auxdata(ctx, 0);
        if (!f) {
            DcuError e2;
            if (Filter_new(pat, &f, &e2) != DCU_OK) {
                sqlite3_result_error(ctx, e2.msg, -1);
                return;
            }
            const char* t = (const char*)sqlite3_value_text(argv[1]);
            int r = t ? Filter_matches(f, t, (size_t)sqlite3_value_bytes(argv[1])) : 0;
            Filter_delete(f);
            sqlite3_result_int(ctx, r);
            return;
        }
    }
    const char* text = (const char*)sqlite3_value_text(argv[1]);
    if (!text) {
        sqlite3_result_null(ctx);
        return;
    }
    sqlite3_result_int(ctx, Filter_matches(f, text, (size_t)sqlite3_value_bytes(argv[1])));
}

/* regexp_any(pattern, text, ...): the filter over several columns of a row: a row passes when
 * any text matches (with '!', when none does). NULL texts are skipped. */
static void sql_regexp_any(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
    const char* pat = (const char*)sqlite3_value_text(argv[0]);
    if (!pat) {
        sqlite3_result_null(ctx);
        return;
    }
    Filter* f = sqlite3_get_auxdata(ctx, 0);
    Filter* own = NULL;
    if (!f) {
        DcuError err;
        if (Filter_new(pat, &own, &err) != DCU_OK) {
            sqlite3_result_error(ctx, err.msg, -1);
            return;
        }
        sqlite3_set_auxdata(ctx, 0, own, free_filter);
        f = sqlite3_get_auxdata(ctx, 0);
        own = NULL;
        if (!f && Filter_new(pat, &own, &err) != DCU_OK) { /* SQLite could not keep it */
            sqlite3_result_error(ctx, err.msg, -1);
            return;
        }
        f = f ? f : own;
    }
    int hit = 0, neg = f->negate;
    for (int i = 1; i < argc && !hit; i++) {
        const char* t = (const char*)sqlite3_value_text(argv[i]);
        if (t) { /* Filter_matches applies the negation: undo it to get the plain match */
            hit = Filter_matches(f, t, (size_t)sqlite3_value_bytes(argv[i])) != neg;
        }
    }
    Filter_delete(own);
    sqlite3_result_int(ctx, neg ? !hit : hit);
}

DcuStatus Filter_registerSql(sqlite3* db, DcuError* err) {
    if (sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                sql_regexp, NULL, NULL) != SQLITE_OK) {
        return Error_set(err, DCU_ERR_SQL, "cannot register regexp(): %s", sqlite3_errmsg(db));
    }
    if (sqlite3_create_function(db, "regexp_any", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                sql_regexp_any, NULL, NULL) != SQLITE_OK) {
        return Error_set(err, DCU_ERR_SQL, "cannot register regexp_any(): %s",
                         sqlite3_errmsg(db));
    }
    return DCU_OK;
}

void* Filter_compileRaw(const char* pattern, DcuError* err) {
    return compile(pattern, 0, err);
}

int Filter_matchRaw(void* code, void* match_data, const char* text, size_t n) {
    return pcre2_match(code, (PCRE2_SPTR)text, n, 0, 0, match_data, NULL) >= 0;
}

void Filter_freeCode(void* code) {
    pcre2_code_free(code);
}
