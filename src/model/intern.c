/* intern.c - open addressing, FNV-1a, power-of-two table. */
#include "dcutop/intern.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

typedef struct Slot_ {
    char* key;
    size_t len;
    uint64_t hash;
    int64_t id;
} Slot;

struct Intern_ {
    Slot* slots;
    size_t cap, count;
};

static uint64_t fnv1a(const char* s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

Intern* Intern_new(void) {
    Intern* this = xcalloc(1, sizeof(*this));
    this->cap = 1024;
    this->slots = xcalloc(this->cap, sizeof(Slot));
    return this;
}

void Intern_delete(Intern* this) {
    if (!this) {
        return;
    }
    for (size_t i = 0; i < this->cap; i++) {
        free(this->slots[i].key);
    }
    free(this->slots);
    free(this);
}

static Slot* find(const Intern* this, const char* key, size_t len, uint64_t h) {
    size_t mask = this->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        Slot* s = &this->slots[i];
        if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)) {
            return s;
        }
    }
}

int64_t Intern_get(const Intern* this, const char* key, size_t len) {
    Slot* s = find(this, key, len, fnv1a(key, len));
    return s->key ? s->id : 0;
}

static void grow(Intern* this) {
    Slot* old = this->slots;
    size_t oldcap = this->cap;
    this->cap *= 2;
    this->slots = xcalloc(this->cap, sizeof(Slot));
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].key) {
            *find(this, old[i].key, old[i].len, old[i].hash) = old[i];
        }
    }
    free(old);
}

void Intern_put(Intern* this, const char* key, size_t len, int64_t id) {
    if ((this->count + 1) * 2 > this->cap) {
        grow(this);
    }
    uint64_t h = fnv1a(key, len);
    Slot* s = find(this, key, len, h);
    if (!s->key) {
        s->key = xstrndup(key, len);
        s->len = len;
        s->hash = h;
        this->count++;
    }
    s->id = id;
}

size_t Intern_count(const Intern* this) {
    return this->count;
}
