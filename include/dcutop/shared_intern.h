/* shared_intern.h - a name -> id map that one thread writes and any number of threads read
 * at once, without locks: the CSV parser threads look up a kernel's id while the loading
 * thread adds names it meets for the first time (csv_reader.h's CsvPrepare). A name the
 * readers do not find yet is simply looked up again by the writer, so a miss is never wrong.
 * Entries are never changed or removed; a table that grows is replaced, and the old one
 * kept until SharedIntern_delete, so a reader holding it stays safe. */
#ifndef DCUTOP_SHARED_INTERN_H
#define DCUTOP_SHARED_INTERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct SharedIntern_ SharedIntern;

SharedIntern* SharedIntern_new(void);
/* Only when no reader is left. */
void SharedIntern_delete(SharedIntern* this);
/* Any thread: the id put for key (hash: Intern_hash of it), or 0 if absent (ids are > 0). */
int64_t SharedIntern_get(const SharedIntern* this, const char* key, size_t len, uint64_t hash);
/* The writer thread only: key (copied) gets id; key must not be present yet. */
void SharedIntern_put(SharedIntern* this, const char* key, size_t len, uint64_t hash,
                      int64_t id);
size_t SharedIntern_count(const SharedIntern* this);

#endif
