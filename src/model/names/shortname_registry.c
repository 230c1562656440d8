/* shortname_registry.c - after loading, every kernel gets a unique short name and its keys
 * (kernel.short_name, kernel.short_keys), registered so that every caller that fits a kernel
 * name shows it the same way (see shortname.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/shortname.h"
#include "dcutop/xalloc.h"
#include "shortname_internal.h"

/* ---- after loading: unique short names and their keys ------------------------------------ */

typedef struct {
    int64_t id;
    char* full;
    char* shrt;
} KName;

static int cmp_short(const void* a, const void* b) {
    const KName* x = a;
    const KName* y = b;
    int c = strcmp(x->shrt, y->shrt);
    return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* Kernels whose base forms are equal (overloads, namespaces, return types) take a fuller
 * form: the name without namespaces, else the full name, which is unique by the schema. */
static void make_unique(KName* k, int n) {
    if (n < 2) {
        return; /* (and k may be NULL) */
    }
    qsort(k, (size_t)n, sizeof(KName), cmp_short);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && strcmp(k[j].shrt, k[i].shrt) == 0) {
            j++;
        }
        if (j - i > 1) {
            int distinct = 1;
            char** alt = xmalloc(sizeof(char*) * (size_t)(j - i));
            for (int a = i; a < j; a++) {
                alt[a - i] = ShortName_stripNamespaces(k[a].full);
                for (int b = i; b < a && distinct; b++) {
                    distinct = strcmp(alt[a - i], alt[b - i]) != 0;
                }
            }
            for (int a = i; a < j; a++) {
                free(k[a].shrt);
                k[a].shrt = distinct ? alt[a - i] : xstrdup(k[a].full);
                if (!distinct) {
                    free(alt[a - i]);
                }
            }
            free(alt);
        }
        i = j;
    }
}

/* ---- the names of the loaded kernels -------------------------------------------------------
 * Filled by ShortName_assignAll, read by ShortName_fit: every caller that fits a kernel's name
 * (full or short) to a width gets the same short name and keys without carrying them along.
 * Loading more than one trace (A/B) adds to it; a name seen twice keeps all its keys. */

typedef struct {
    char* name;  /* full or short name (owned) */
    char* full;  /* the full name (owned) */
    char* shrt;  /* the short name (owned) */
    char* keys;  /* its key ranges (owned) */
} RegEntry;

static RegEntry* reg;
static size_t reg_cap, reg_n;
/* A trace loading in the background (a second run) may register while the screen fits
 * names: the table is locked, and the strings it hands out stay valid until
 * ShortName_forget (keys replaced by a union are retired, not freed). */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static char** retired;
static size_t nretired;

static uint64_t hash_str(const char* s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    return h;
}

static RegEntry* reg_find(const char* name) {
    if (!reg_cap) {
        return NULL;
    }
    for (size_t i = hash_str(name) & (reg_cap - 1);; i = (i + 1) & (reg_cap - 1)) {
        if (!reg[i].name) {
            return NULL;
        }
        if (strcmp(reg[i].name, name) == 0) {
            return &reg[i];
        }
    }
}

/* keys (space-separated ranges) is already the whole union or one of its words: registering
 * the same trace again must not grow the union (it did, every load of an A/B session) */
static int has_keys(const char* unioned, const char* keys) {
    size_t n = strlen(keys);
    for (const char* p = strstr(unioned, keys); p; p = strstr(p + 1, keys)) {
        if ((p == unioned || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) {
            return 1;
        }
    }
    return 0;
}

static void reg_put(const char* name, const char* full, const char* shrt, const char* keys) {
    if ((reg_n + 1) * 2 > reg_cap) {
        size_t ocap = reg_cap;
        RegEntry* old = reg;
        reg_cap = reg_cap ? reg_cap * 2 : 256;
        reg = xcalloc(reg_cap, sizeof(RegEntry));
        reg_n = 0;
        for (size_t i = 0; i < ocap; i++) {
            if (old[i].name) {
                size_t j = hash_str(old[i].name) & (reg_cap - 1);
                while (reg[j].name) {
                    j = (j + 1) & (reg_cap - 1);
                }
                reg[j] = old[i];
                reg_n++;
            }
        }
        free(old);
    }
    RegEntry* e = reg_find(name);
    if (e) {
        if (strcmp(e->shrt, shrt) == 0 && *keys && !has_keys(e->keys, keys)) {
            char* u = xasprintf("%s%s%s", e->keys, *e->keys ? " " : "", keys);
            retired = xrealloc(retired, sizeof(char*) * (nretired + 1));
            retired[nretired++] = e->keys;
            e->keys = u;
        }
        return;
    }
    size_t j = hash_str(name) & (reg_cap - 1);
    while (reg[j].name) {
        j = (j + 1) & (reg_cap - 1);
    }
    reg[j].name = xstrdup(name);
    reg[j].full = xstrdup(full);
    reg[j].shrt = xstrdup(shrt);
    reg[j].keys = xstrdup(keys);
    reg_n++;
}

/* The registered names of name (borrowed, stable until ShortName_forget); 0 if none. */
int ShortName_lookup(const char* name, const char** full, const char** shrt, const char** keys) {
    pthread_mutex_lock(&reg_lock);
    const RegEntry* e = reg_find(name);
    if (e) {
        *full = e->full;
        *shrt = e->shrt;
        *keys = e->keys;
    }
    pthread_mutex_unlock(&reg_lock);
    return e != NULL;
}

const char* ShortName_fullName(const char* name) {
    const char *full, *shrt, *keys;
    return ShortName_lookup(name, &full, &shrt, &keys) ? full : NULL;
}

void ShortName_forget(void) {
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nretired; i++) {
        free(retired[i]);
    }
    free(retired);
    retired = NULL;
    nretired = 0;
    for (size_t i = 0; i < reg_cap; i++) {
        free(reg[i].name);
        free(reg[i].full);
        free(reg[i].shrt);
        free(reg[i].keys);
    }
    free(reg);
    reg = NULL;
    reg_cap = reg_n = 0;
    pthread_mutex_unlock(&reg_lock);
}

DcuStatus ShortName_assignAll(TraceDb* db, DcuError* err) {
    sqlite3_stmt* st = NULL;
    KName* k = NULL;
    int n = 0, cap = 0;
    DcuStatus s = TraceDb_prepare(db, "SELECT id, name FROM kernel ORDER BY id", &st, err);
    if (s != DCU_OK) {
        return s;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            k = xrealloc(k, sizeof(KName) * (size_t)cap);
        }
        k[n].id = sqlite3_column_int64(st, 0);
        k[n].full = xstrdup((const char*)sqlite3_column_text(st, 1));
        k[n].shrt = ShortName_base(k[n].full);
        n++;
    }
    sqlite3_finalize(st);
    st = NULL;
    make_unique(k, n);
    const char** names = xmalloc(sizeof(char*) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        names[i] = k[i].shrt;
    }
    char** keys = ShortName_keysFor(names, n);
    s = TraceDb_prepare(db, "UPDATE kernel SET short_name = ?1, short_keys = ?2 WHERE id = ?3",
                        &st, err);
    for (int i = 0; i < n && s == DCU_OK; i++) {
        sqlite3_bind_text(st, 1, k[i].shrt, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, keys[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, k[i].id);
        if (sqlite3_step(st) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "short names: %s", sqlite3_errmsg(TraceDb_handle(db)));
        }
        sqlite3_reset(st);
        pthread_mutex_lock(&reg_lock);
        reg_put(k[i].full, k[i].full, k[i].shrt, keys[i]);
        reg_put(k[i].shrt, k[i].full, k[i].shrt, keys[i]);
        pthread_mutex_unlock(&reg_lock);
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        free(k[i].full);
        free(k[i].shrt);
        free(keys[i]);
    }
    free(keys);
    free(names);
    free(k);
    return s;
}


/* ---- a comparison: the names of both sides at once ----------------------------------------
 * Each side's kernels got their keys among that side's kernels only: a kernel new in B and
 * one gone from A that differ by one word ("…coopA_gelubias_TNT", "…coopA_bias_TNT") may
 * each be alone on its side and keep keys that do not tell them apart. */

static int cmp_cstr(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char*const*)b);
}

void ShortName_registerAcross(const char* const* full, int n) {
    if (n < 2) {
        return;
    }
    /* the short name of each, as registered (else its base form), once each */
    char** shrt = xmalloc(sizeof(char*) * (size_t)n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        const char *rf, *rs, *rk;
        shrt[m++] = ShortName_lookup(full[i], &rf, &rs, &rk) ? xstrdup(rs) : ShortName_base(full[i]);
    }
    qsort(shrt, (size_t)m, sizeof(char*), cmp_cstr);
    int u = 0;
    for (int i = 0; i < m; i++) {
        if (u > 0 && strcmp(shrt[u - 1], shrt[i]) == 0) {
            free(shrt[i]);
            continue;
        }
        shrt[u++] = shrt[i];
    }
    char** keys = ShortName_keysFor((const char* const*)shrt, u);
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < n; i++) {
        const RegEntry* e = reg_find(full[i]);
        char* own = e ? NULL : ShortName_base(full[i]);
        const char* s = e ? e->shrt : own;
        const char* const* hit = bsearch(&s, shrt, (size_t)u, sizeof(char*), cmp_cstr);
        if (hit) {
            const char* k = keys[hit - (const char* const*)shrt];
            char* f = xstrdup(full[i]); /* reg_put may move the entry e points into */
            char* sh = xstrdup(s);
            reg_put(f, f, sh, k);
            reg_put(sh, f, sh, k);
            free(f);
            free(sh);
        }
        free(own);
    }
    pthread_mutex_unlock(&reg_lock);
    for (int i = 0; i < u; i++) {
        free(shrt[i]);
        free(keys[i]);
    }
    free(keys);
    free(shrt);
}
