/* inode_set.c - open addressing on a power-of-two table, grown at half full. */
#include "dcutop/inode_set.h"

#include <stdint.h>
#include <stdlib.h>

#include "dcutop/xalloc.h"

typedef struct Slot_ {
    uint64_t dev, ino;
    char* name; /* owned; NULL marks an empty slot */
} Slot;

struct InodeSet_ {
    Slot* slots;
    size_t cap, count;
};

static uint64_t mix(uint64_t dev, uint64_t ino) {
    uint64_t h = (ino ^ (dev * 0x9E3779B97F4A7C15ULL)) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 29);
}

InodeSet* InodeSet_new(void) {
    InodeSet* this = xcalloc(1, sizeof(*this));
    this->cap = 256;
    this->slots = xcalloc(this->cap, sizeof(Slot));
    return this;
}

void InodeSet_delete(InodeSet* this) {
    if (!this) {
        return;
    }
    for (size_t i = 0; i < this->cap; i++) {
        free(this->slots[i].name);
    }
    free(this->slots);
    free(this);
}

static Slot* find(Slot* slots, size_t cap, uint64_t dev, uint64_t ino) {
    size_t i = (size_t)mix(dev, ino) & (cap - 1);
    while (slots[i].name && !(slots[i].dev == dev && slots[i].ino == ino)) {
        i = (i + 1) & (cap - 1);
    }
    return &slots[i];
}

static void grow(InodeSet* this) {
    size_t ncap = this->cap * 2;
    Slot* ns = xcalloc(ncap, sizeof(Slot));
    for (size_t i = 0; i < this->cap; i++) {
        if (this->slots[i].name) {
            *find(ns, ncap, this->slots[i].dev, this->slots[i].ino) = this->slots[i];
        }
    }
    free(this->slots);
    this->slots = ns;
    this->cap = ncap;
}

const char* InodeSet_add(InodeSet* this, dev_t dev, ino_t ino, const char* name) {
    Slot* s = find(this->slots, this->cap, (uint64_t)dev, (uint64_t)ino);
    if (s->name) {
        return s->name;
    }
    if ((this->count + 1) * 2 > this->cap) {
        grow(this);
        s = find(this->slots, this->cap, (uint64_t)dev, (uint64_t)ino);
    }
    s->dev = (uint64_t)dev;
    s->ino = (uint64_t)ino;
    s->name = xstrdup(name);
    this->count++;
    return NULL;
}

const char* InodeSet_find(const InodeSet* this, dev_t dev, ino_t ino) {
    return find(this->slots, this->cap, (uint64_t)dev, (uint64_t)ino)->name;
}

size_t InodeSet_count(const InodeSet* this) {
    return this->count;
}
