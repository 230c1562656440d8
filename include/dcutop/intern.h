/* intern.h - a string -> integer id hash map, so that each kernel name is stored once
 * and a million dispatches carry only an integer. Keys are copied (owned). */
#ifndef DCUTOP_INTERN_H
#define DCUTOP_INTERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct Intern_ Intern;

Intern* Intern_new(void);
void Intern_delete(Intern* this);
/* The id stored for key, or 0 if absent (ids are > 0). */
int64_t Intern_get(const Intern* this, const char* key, size_t len);
void Intern_put(Intern* this, const char* key, size_t len, int64_t id);
/* The hash Intern_get computes, and Intern_get with it given: a parser thread hashes a
 * kernel name, the loading thread looks it up (csv_reader.h's CsvPrepare). */
uint64_t Intern_hash(const char* key, size_t len);
int64_t Intern_getHashed(const Intern* this, const char* key, size_t len, uint64_t hash);
size_t Intern_count(const Intern* this);

#endif
