/* i64_map.c - see i64_map.h. */
#include "dcutop/i64_map.h"

#include <stdlib.h>

#include "dcutop/xalloc.h"

typedef struct {
    int64_t key, value; /* value 0: an empty slot */
} Slot;

struct I64Map_ {
    Slot* slot;
    size_t cap, used; /* cap: a power of two, at least twice used */
};

I64Map* I64Map_new(void) {
    I64Map* this = xcalloc(1, sizeof(*this));
    this->cap = 1024;
    this->slot = xcalloc(this->cap, sizeof(Slot));
    return this;
}

void I64Map_delete(I64Map* this) {
    if (this) {
        free(this->slot);
        free(this);
    }
}

static size_t hash(int64_t k) {
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 31));
}

static Slot* probe(const I64Map* m, int64_t key) {
    for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        Slot* s = &m->slot[i];
        if (s->value == 0 || s->key == key) {
            return s;
        }
    }
}

int64_t I64Map_get(const I64Map* this, int64_t key) {
    return probe(this, key)->value;
}

static void grow(I64Map* m) {
    I64Map big = {xcalloc(m->cap * 2, sizeof(Slot)), m->cap * 2, m->used};
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slot[i].value) {
            *probe(&big, m->slot[i].key) = m->slot[i];
        }
    }
    free(m->slot);
    *m = big;
}

void I64Map_put(I64Map* this, int64_t key, int64_t value) {
    if ((this->used + 1) * 2 > this->cap) {
        grow(this);
    }
    Slot* s = probe(this, key);
    if (s->value == 0) {
        this->used++;
        s->key = key;
    }
    s->value = value;
}

size_t I64Map_count(const I64Map* this) {
    return this->used;
}
