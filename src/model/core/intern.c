/* intern.c - open addressing, word-at-a-time hash, power-of-two table. */
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

/* 8 bytes a step (kernel names run to hundreds of bytes, one lookup per dispatch row), in
 * four independent lanes over 32-byte blocks: one lane's multiply chain left the CPU waiting
 * on each multiply, and the hash was 7% of a one-thread load. */
static uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 32);
}

static uint64_t word_at(const char* s) {
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

static uint64_t hash_bytes(const char* s, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    size_t i = 0;
    if (n >= 32) {
        uint64_t a = h, b = h ^ 0x2545F4914F6CDD1DULL, c = h + 0x61C8864680B583EBULL,
                 d = ~h;
        for (; i + 32 <= n; i += 32) {
            a = mix(a, word_at(s + i));
            b = mix(b, word_at(s + i + 8));
            c = mix(c, word_at(s + i + 16));
            d = mix(d, word_at(s + i + 24));
        }
        h = mix(mix(mix(a, b), c), d);
    }
    for (; i + 8 <= n; i += 8) {
        h = mix(h, word_at(s + i));
    }
    uint64_t w = 0;
    memcpy(&w, s + i, n - i);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 29;
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

uint64_t Intern_hash(const char* key, size_t len) {
    return hash_bytes(key, len);
}

int64_t Intern_getHashed(const Intern* this, const char* key, size_t len, uint64_t hash) {
    Slot* s = find(this, key, len, hash);
    return s->key ? s->id : 0;
}

int64_t Intern_get(const Intern* this, const char* key, size_t len) {
    Slot* s = find(this, key, len, hash_bytes(key, len));
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
    uint64_t h = hash_bytes(key, len);
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
