/* json_feed.h - a light JSON pre-scanner between the decompressed stream and yajl
 * (load_json.c). Private to the model.
 *
 * Why: yajl re-lexes a token that spans two of the blocks it is given from its start on
 * every block, so one long string costs time quadratic in its length (a 40 MB name took
 * 64 s and 758 MB; a 2 GiB one never finished). The feed tracks only whether it is inside
 * a string (with its escapes) or a bare token (number, true, false, null), holds back an
 * open token until it closes, and hands the parser only bytes that end outside any token:
 * yajl then sees each token whole, once. A token longer than the cap is dropped while it
 * streams past (memory stays bounded by the cap) and reported, so the caller can put a
 * short placeholder in its place and reject the event that held it.
 *
 * The feed also counts the nesting of objects and arrays (outside strings) and stops at the
 * first '{' or '[' deeper than JSON_MAX_DEPTH: every JSON input is refused there with a
 * message, before any parser or tree sees the depth (a 2 MB file of 10^6 '[' overflowed the
 * stack in a recursive tree free). */
#ifndef DCUTOP_JSON_FEED_H
#define DCUTOP_JSON_FEED_H

#include <stddef.h>
#include <stdint.h>

/* Deepest nesting of objects and arrays accepted in any JSON input (real traces nest 5). */
#define JSON_MAX_DEPTH 128

typedef struct JsonFeed_ {
    uint64_t cap;        /* longest token kept, bytes (> 0) */
    unsigned char* buf;  /* owned: scanned bytes not yet given to the parser */
    size_t len, size;    /* bytes used / allocated in buf */
    size_t safe;         /* buf[0..safe) ends outside any token: ready for the parser */
    int state;           /* scanner state (json_feed.c) */
    int hex_left;        /* hex digits left in a \uXXXX escape */
    int skipping;        /* the open token passed the cap: its bytes are dropped */
    size_t tok_start;    /* where the open token starts in buf */
    uint64_t tok_len;    /* bytes of the open token so far */
    uint64_t tok_off;    /* stream offset of the open token */
    long tok_line;       /* its line (1-based) */
    uint64_t off;        /* stream offset of the current input block */
    uint64_t buf_end;    /* stream offset just after buf's last byte */
    long line;           /* line of the next byte scanned */
    int depth;           /* objects and arrays open */
    int too_deep;        /* 1: stopped at a '{' or '[' past JSON_MAX_DEPTH (for good) */
} JsonFeed;

/* A token that passed the cap: where it started and how long it was. For the depth stop
 * (JsonFeed_scan returns 2): where the '{' or '[' past the limit is, len 0. */
typedef struct JsonOversize_ {
    uint64_t offset; /* byte offset in the (decompressed) stream */
    long line;       /* 1-based */
    uint64_t len;    /* bytes, quotes included */
} JsonOversize;

/* 1 when the first block of a stream (a gzip file's) does not start like JSON: past a UTF-8
 * BOM and white space, something other than '{' or '['. */
int JsonFeed_notJson(const unsigned char* b, size_t n);
void JsonFeed_init(JsonFeed* f, uint64_t cap);
void JsonFeed_done(JsonFeed* f);

/* Scans in[*pos..n), the next block of the stream, appending what is kept to f->buf.
 * Returns 1 when it stopped just after a token over the cap ended (*over says where;
 * f->buf then holds only the bytes before it, all safe, and *pos is where to go on);
 * 2 when it stopped at a '{' or '[' that opens nesting level JSON_MAX_DEPTH + 1 (*over says
 * where; buf[0..safe) holds the bytes before it; the document must be abandoned: every later
 * call returns 2 again); 0 when the block is used up (*pos == n). The caller hands
 * buf[0..safe) to the parser and calls JsonFeed_consume between calls. */
int JsonFeed_scan(JsonFeed* f, const unsigned char* in, size_t n, size_t* pos,
                  JsonOversize* over);

/* Drops buf[0..safe), which the parser has taken, keeping the open token's bytes. */
void JsonFeed_consume(JsonFeed* f);

/* Stream offset of buf[0] (for parse error messages). */
uint64_t JsonFeed_bufOffset(const JsonFeed* f);

/* 1 when every byte scanned has been consumed and no token is open: the parser may be given
 * bytes from elsewhere (json_chunks.h). */
int JsonFeed_idle(const JsonFeed* f);

/* The stream goes on at offset `to`, `lines` newlines later (a span parsed elsewhere, whole
 * and balanced, was left out). Only when JsonFeed_idle. */
void JsonFeed_skip(JsonFeed* f, uint64_t to, long lines);

#endif
