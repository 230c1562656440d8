/* tuple_ids.c - see tuple_ids.h. */
#include "dcutop/tuple_ids.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

void TupleIds_init(TupleIds* t, int w) {
    memset(t, 0, sizeof(*t));
    t->ix = Intern_new();
    t->w = w;
    t->last = -1;
}

void TupleIds_done(TupleIds* t) {
    Intern_delete(t->ix);
    free(t->v);
    memset(t, 0, sizeof(*t));
}

uint32_t TupleIds_id(TupleIds* t, const int64_t* key) {
    size_t len = (size_t)t->w * sizeof(int64_t);
    if (t->last >= 0 && memcmp(t->v + t->last * t->w, key, len) == 0) {
        return (uint32_t)t->last;
    }
    int64_t id = Intern_get(t->ix, (const char*)key, len);
    if (!id) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 64;
            t->v = xrealloc(t->v, (size_t)(t->cap * t->w) * sizeof(int64_t));
        }
        memcpy(t->v + t->n * t->w, key, len);
        id = ++t->n;
        Intern_put(t->ix, (const char*)key, len, id);
    }
    t->last = id - 1;
    return (uint32_t)(id - 1);
}
