/* fuzz_common.h - shared by the libFuzzer targets in tests/fuzz: a per-process temp folder
 * (libFuzzer runs many inputs in one process), the input written there under a format's
 * file name, and the production loader (Loader_new/Loader_addPath/Loader_run) run on it. */
#ifndef DCUTOP_FUZZ_COMMON_H
#define DCUTOP_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* The folder made once per process (removed at exit with what is in it). Borrowed. */
const char* Fuzz_dir(void);

/* Writes size bytes to Fuzz_dir()/name (name may hold one '/': the folder is made).
 * Returns the path, owned by the caller. Aborts when the write fails: a full disk is not
 * a finding, but a silent skip would fuzz nothing. */
char* Fuzz_write(const char* name, const uint8_t* data, size_t size);

/* Picks one of n file names with the first input byte (so the corpus can reach every name
 * of a format family); *data and *size then skip that byte. n >= 1; size 0 picks names[0]. */
const char* Fuzz_pickName(const char* const* names, size_t n, const uint8_t** data,
                          size_t* size);

/* Loads paths[0..n) into a fresh TraceDb with the real loader, applies the built-in
 * category rules (compiled once per process) and frees everything. */
void Fuzz_load(const char* const* paths, size_t n);

/* Fuzz_load, then check(db) on what was loaded (an oracle: it aborts on a wrong figure),
 * when the load succeeded. */
typedef struct TraceDb_ TraceDb;
void Fuzz_loadThen(const char* const* paths, size_t n, void (*check)(TraceDb* db));

/* Writes data under name and loads that one file. */
void Fuzz_loadAs(const char* name, const uint8_t* data, size_t size);

/* A NUL-terminated copy of the input (owned by the caller). */
char* Fuzz_text(const uint8_t* data, size_t size);

#endif
