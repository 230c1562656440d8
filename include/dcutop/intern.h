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
size_t Intern_count(const Intern* this);

#endif
