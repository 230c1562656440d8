/* json_chunks.h - the parallel read of a plain JSON trace's "traceEvents" array (issue 23).
 * Private to the model; load_json.c is its user.
 *
 * The array is cut at top-level event boundaries into chunks of whole events, about
 * chunk_bytes each, by a scanner that tracks strings (with their escapes) and nesting. Worker
 * threads take the chunks in file order, cut them one after another under a lock, and each
 * calls `parse` on its own chunk (its own yajl handle, in load_json.c); the reading thread
 * takes the chunks back in file order with JsonChunks_next.
 *
 * The cutter is conservative: it stops cutting (the rest of the file is then the caller's
 * to read serially) at anything but well-formed separators, an element that is not an
 * object, a token longer than the event size cap, nesting near JSON_MAX_DEPTH, an event
 * over CHUNK_EVENT_MAX bytes, or the end of the file. A chunk never holds a byte the serial
 * parser would treat differently: its caller still reads everything outside the chunks
 * (the document's head, the separators between chunks, its tail) serially, and a chunk
 * whose parse failed (`ok` 0) serially too, so every message is the serial parser's. */
#ifndef DCUTOP_JSON_CHUNKS_H
#define DCUTOP_JSON_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct JsonChunk_ {
    uint64_t start, end;  /* file offsets: [start, end) is whole events and their separators,
                           * from the first event's '{' to just after the last one's '}' */
    unsigned char* data;  /* owned: the bytes of [start, end) */
    long lines;           /* newlines in [start, end) */
    int ok;               /* set by parse: 1 when out holds every event of the chunk */
    void* out;            /* parse's output, freed by the caller's free_out */
    int done;             /* parsed (internal) */
} JsonChunk;

/* Runs on a worker thread: parses c->data, sets c->ok and c->out. */
typedef void (*JsonChunkParseFn)(void* ctx, JsonChunk* c);
typedef void (*JsonChunkFreeFn)(void* out);

typedef struct JsonChunks_ JsonChunks;

/* Starts `workers` threads (>= 1) over the open plain file fd (borrowed) of `size` bytes.
 * cap: the event size cap (--max-event-size). NULL when the document's head does not lead
 * to a "traceEvents" array within its first HEAD_MAX bytes or no thread could start: then
 * the caller reads the file serially. */
JsonChunks* JsonChunks_start(int fd, uint64_t size, uint64_t cap, size_t chunk_bytes,
                             int workers, JsonChunkParseFn parse, JsonChunkFreeFn free_out,
                             void* ctx);

/* The next chunk in file order once it is parsed (blocks while it is not); NULL when there
 * are no more. Borrowed until JsonChunks_release. */
JsonChunk* JsonChunks_next(JsonChunks* cs);
void JsonChunks_release(JsonChunks* cs, JsonChunk* c);

/* Stops the workers (chunks not taken are dropped), joins them and frees cs. NULL: no-op. */
void JsonChunks_stop(JsonChunks* cs);

/* Tests: the chunk size and the smallest file read in chunks (0 for either: the default,
 * or with DCUTOP_JSON_CHUNK_BYTES=N in the environment, chunks of N bytes from any file). */
void JsonChunks_setTesting(size_t chunk_bytes, uint64_t min_file);
size_t JsonChunks_chunkBytes(void);
uint64_t JsonChunks_minFile(void);
/* Tests: chunks cut since the program started (to show a read went parallel). */
long JsonChunks_cutTotal(void);

#endif
