/* filter.h - PCRE2 regular expressions for filters and the SQL regexp() function. */
#ifndef DCUTOP_FILTER_H
#define DCUTOP_FILTER_H

#include <sqlite3.h>
#include <stddef.h>

#include "dcutop/error.h"

typedef struct Filter_ Filter; /* owns its pcre2_code and pcre2_match_data */

/* Compiles pattern. A leading '!' negates the filter (PRODUCT.md 4). Smart case: the match
 * ignores case unless the pattern holds an upper-case letter (as in less and vim).
 * On a bad pattern returns DCU_ERR_REGEX with the PCRE2 message and offset in err. */
DcuStatus Filter_new(const char* pattern, Filter** out, DcuError* err);
void Filter_delete(Filter* this);

/* 1 if text (n bytes) passes the filter (matches, or does not match when negated). */
int Filter_matches(Filter* this, const char* text, size_t n);

/* The pattern as given, including a leading '!'. Borrowed. */
const char* Filter_pattern(const Filter* this);
int Filter_isNegated(const Filter* this);

/* Registers regexp(pattern, text) so SQL can say `name REGEXP ?1`; the compiled pattern
 * is cached per statement with sqlite3_set_auxdata. '!' negation and smart case apply. */
DcuStatus Filter_registerSql(sqlite3* db, DcuError* err);

/* Compiles a rule regex exactly (no '!', no smart case) and reports errors with offset;
 * for the categorizer. Returns a pcre2_code* as void* (owned: free with Filter_freeCode). */
void* Filter_compileRaw(const char* pattern, DcuError* err);
int Filter_matchRaw(void* code, void* match_data, const char* text, size_t n);
void Filter_freeCode(void* code);

#endif
