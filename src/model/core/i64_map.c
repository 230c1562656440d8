/* i64_map.c - see i64_map.h. */
#include "dcutop/i64_map.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/xalloc.h"

typedef struct {
    int64_t key, value; /* value 0: an empty slot */
} Slot;

/* Most keys are row ids and correlation ids: dense runs of integers. While the keys span
 * little more than twice their count they are held as a plain array indexed by key - lo
 * (dense), so a probe is one load from memory that the previous probe likely brought in;
 * hashed, each of a million probes was a cache miss (issue 23). The first key far from the
 * others turns the map into the hash table for good. */
struct I64Map_ {
    Slot* slot;
    size_t cap, used; /* cap: a power of two, at least twice used */
    int64_t* dense;   /* NULL once hashed (or before the first key) */
    uint64_t lo;      /* dense[i] is the value of key lo + i (modulo 2^64) */
    size_t dcap;      /* dense's length */
    int hashed;
};

enum { FIRST_CAP = 1024 };

I64Map* I64Map_new(void) {
    I64Map* this = xcalloc(1, sizeof(*this));
    return this;
}

void I64Map_delete(I64Map* this) {
    if (this) {
        free(this->slot);
        free(this->dense);
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
    if (!this->hashed) {
        uint64_t i = (uint64_t)key - this->lo;
        return i < this->dcap ? this->dense[i] : 0;
    }
    return probe(this, key)->value;
}

static void grow(I64Map* m) {
    Slot* old = m->slot;
    size_t n = m->cap;
    m->cap = n ? n * 2 : FIRST_CAP;
    m->slot = xcalloc(m->cap, sizeof(Slot));
    for (size_t i = 0; i < n; i++) {
        if (old[i].value) {
            *probe(m, old[i].key) = old[i];
        }
    }
    free(old);
}

static void hash_put(I64Map* m, int64_t key, int64_t value) {
    if ((m->used + 1) * 2 > m->cap) {
        grow(m);
    }
    Slot* s = probe(m, key);
    if (s->value == 0) {
        m->used++;
        s->key = key;
    }
    s->value = value;
}

/* Dense to hashed: every set key into the hash table. */
static void to_hash(I64Map* m) {
    size_t used = m->used;
    m->hashed = 1;
    m->used = 0;
    m->cap = FIRST_CAP;
    while (m->cap < 2 * used + 2) {
        m->cap *= 2;
    }
    m->slot = xcalloc(m->cap, sizeof(Slot));
    for (size_t i = 0; i < m->dcap; i++) {
        if (m->dense[i]) {
            hash_put(m, (int64_t)(m->lo + i), m->dense[i]);
        }
    }
    m->used = used;
    free(m->dense);
    m->dense = NULL;
    m->dcap = 0;
}

/* Makes room in the dense array for key, or hashes the map when the keys would span more
 * than about twice their count. Returns whether key fits now. Keys count modulo 2^64 from
 * lo, so no sum overflows and each key still has one place. */
static int dense_room(I64Map* m, int64_t key) {
    uint64_t k = (uint64_t)key;
    if (!m->dense) {
        m->dcap = FIRST_CAP;
        m->dense = xcalloc(m->dcap, sizeof(int64_t));
        m->lo = k - FIRST_CAP / 4; /* a little room below, for keys that come descending */
        return 1;
    }
    uint64_t up = k - m->lo - m->dcap + 1; /* slots to add above (key is not in the array) */
    uint64_t down = m->lo - k;             /* ... or below */
    int below = down < up;
    uint64_t gap = below ? down : up;
    if (gap > 2 * (uint64_t)m->used + 4 * FIRST_CAP) {
        to_hash(m);
        return 0;
    }
    uint64_t span = m->dcap + gap;
    size_t ncap = m->dcap;
    while (ncap < span) {
        ncap *= 2;
    }
    int64_t* d = xcalloc(ncap, sizeof(int64_t));
    size_t shift = below ? ncap - m->dcap : 0; /* growing downwards: the old values on top */
    memcpy(d + shift, m->dense, m->dcap * sizeof(int64_t));
    free(m->dense);
    m->dense = d;
    m->lo -= shift;
    m->dcap = ncap;
    return 1;
}

void I64Map_put(I64Map* this, int64_t key, int64_t value) {
    if (!this->hashed) {
        uint64_t i = (uint64_t)key - this->lo;
        if (i >= this->dcap && dense_room(this, key)) {
            i = (uint64_t)key - this->lo;
        }
        if (!this->hashed) {
            if (this->dense[i] == 0) {
                this->used++;
            }
            this->dense[i] = value;
            return;
        }
    }
    hash_put(this, key, value);
}

size_t I64Map_count(const I64Map* this) {
    return this->used;
}
