/* shared_intern.c - open addressing over a power-of-two table. A slot is filled by the one
 * writer (key, length, id) and then published by a release store of its tag (the hash with
 * the low bit set, never 0); a reader's acquire load of the tag sees the slot whole. A table
 * at half load is copied into one twice as large, published the same way; readers still on
 * the old one find what it held, and miss only names put after (then the writer finds them).
 * Kernel names are few (hundreds), so the tables kept alive cost nothing. */
#include "dcutop/shared_intern.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

typedef struct Slot_ {
    _Atomic uint64_t tag; /* 0: empty; else hash | 1, stored after the rest */
    uint64_t hash;        /* whole: where the slot's probe starts */
    const char* key;
    size_t len;
    int64_t id;
} Slot;

typedef struct Table_ {
    Slot* slots;
    size_t mask;
    struct Table_* older; /* kept for readers that may still hold it */
} Table;

struct SharedIntern_ {
    _Atomic(Table*) cur;
    size_t count;
    char** keys; /* the copies, owned once (tables share them) */
    size_t nkeys, capkeys;
};

static Table* table_new(size_t cap, Table* older) {
    Table* t = xcalloc(1, sizeof(*t));
    t->slots = xcalloc(cap, sizeof(Slot));
    t->mask = cap - 1;
    t->older = older;
    return t;
}

SharedIntern* SharedIntern_new(void) {
    SharedIntern* this = xcalloc(1, sizeof(*this));
    atomic_init(&this->cur, table_new(256, NULL));
    return this;
}

void SharedIntern_delete(SharedIntern* this) {
    if (!this) {
        return;
    }
    Table* t = atomic_load_explicit(&this->cur, memory_order_relaxed);
    while (t) {
        Table* older = t->older;
        free(t->slots);
        free(t);
        t = older;
    }
    for (size_t i = 0; i < this->nkeys; i++) {
        free(this->keys[i]);
    }
    free(this->keys);
    free(this);
}

int64_t SharedIntern_get(const SharedIntern* this, const char* key, size_t len, uint64_t hash) {
    const Table* t = atomic_load_explicit(&this->cur, memory_order_acquire);
    uint64_t tag = hash | 1;
    for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        const Slot* s = &t->slots[i];
        uint64_t g = atomic_load_explicit(&s->tag, memory_order_acquire);
        if (g == 0) {
            return 0;
        }
        if (g == tag && s->len == len && memcmp(s->key, key, len) == 0) {
            return s->id;
        }
    }
}

/* Fills a free slot of t (the writer's; t may already be visible to readers). */
static void place(Table* t, const char* key, size_t len, uint64_t hash, int64_t id) {
    size_t i = hash & t->mask;
    while (atomic_load_explicit(&t->slots[i].tag, memory_order_relaxed) != 0) {
        i = (i + 1) & t->mask;
    }
    Slot* s = &t->slots[i];
    s->hash = hash;
    s->key = key;
    s->len = len;
    s->id = id;
    atomic_store_explicit(&s->tag, hash | 1, memory_order_release);
}

void SharedIntern_put(SharedIntern* this, const char* key, size_t len, uint64_t hash,
                      int64_t id) {
    Table* t = atomic_load_explicit(&this->cur, memory_order_relaxed);
    if (2 * (this->count + 1) > t->mask + 1) { /* at half load: a larger copy, published */
        Table* bigger = table_new(2 * (t->mask + 1), t);
        for (size_t i = 0; i <= t->mask; i++) {
            Slot* s = &t->slots[i];
            if (atomic_load_explicit(&s->tag, memory_order_relaxed)) {
                place(bigger, s->key, s->len, s->hash, s->id);
            }
        }
        atomic_store_explicit(&this->cur, bigger, memory_order_release);
        t = bigger;
    }
    if (this->nkeys == this->capkeys) {
        this->capkeys = this->capkeys ? 2 * this->capkeys : 64;
        this->keys = xrealloc(this->keys, sizeof(char*) * this->capkeys);
    }
    char* copy = xmalloc(len + 1);
    memcpy(copy, key, len);
    copy[len] = '\0';
    this->keys[this->nkeys++] = copy;
    place(t, copy, len, hash, id);
    this->count++;
}

size_t SharedIntern_count(const SharedIntern* this) {
    return this->count;
}
