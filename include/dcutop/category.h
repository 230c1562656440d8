/* category.h - ordered PCRE2 rules that put kernel names into categories.
 * Rules file format (PRODUCT.md 6): one rule a line, `category<TAB>regex`; the first
 * matching rule wins; `#` starts a comment line; blank lines are ignored. Directives:
 *   %gemm NAME...   put user-defined categories in the GEMM group
 *   %replace        (user files) drop the built-in rules instead of extending them
 * Names are normalised (no ' [clone .kd]' / '.kd') before matching. */
#ifndef DCUTOP_CATEGORY_H
#define DCUTOP_CATEGORY_H

#include <stddef.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

typedef struct RuleSet_ RuleSet; /* owns compiled rules */

typedef struct CategoryMatch_ {
    const char* category; /* borrowed from the RuleSet; "other" when no rule matched */
    int line;             /* line of the rule in its source, 0 when none matched */
    const char* source;   /* "built-in" or the rules file path (borrowed) */
    const char* pattern;  /* the rule's regex (borrowed), NULL when none matched */
} CategoryMatch;

/* The compiled-in default rules text (src/model/names/default.rules). */
const char* RuleSet_builtinText(void);

/* Parses rules text. source names it in messages ("built-in" or a path).
 * Errors: DCU_ERR_RULES, "source:line: ..." with the PCRE2 message and offset. */
DcuStatus RuleSet_parse(RuleSet* this, const char* text, const char* source, DcuError* err);

/* New empty set. gemm_like folds conv and attention into the GEMM group. */
RuleSet* RuleSet_new(int gemm_like);
void RuleSet_delete(RuleSet* this);

/* Loads the rules a user gets: the user file (rules_path, or else
 * $XDG_CONFIG_HOME/dcutop/categories.rules when it exists) ahead of the built-in set,
 * or alone when it says %replace. rules_path may be NULL. */
DcuStatus RuleSet_loadDefault(RuleSet* this, const char* rules_path, DcuError* err);

/* Classifies a normalised name. */
CategoryMatch RuleSet_classify(RuleSet* this, const char* name, size_t n);

/* 1 if category is in the GEMM group. */
int RuleSet_isGemm(const RuleSet* this, const char* category);

/* Writes the category of every kernel and fills the category table. */
DcuStatus RuleSet_apply(RuleSet* this, TraceDb* db, DcuError* err);

/* Number of rules, and the text of all rules in effect (owned by the caller). */
int RuleSet_count(const RuleSet* this);
char* RuleSet_dump(const RuleSet* this);

#endif
