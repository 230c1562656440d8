/* chunk_codec.h - the dispatch store's compressed column chunks (issue 23): each column of a
 * full chunk is stored as a constant (no bytes), as offsets from its smallest value in 1, 2
 * or 4 bytes a row, or as the raw int64 values, whichever is the narrowest that holds every
 * value of that column in that chunk exactly. Pure functions over caller-owned buffers.
 *
 * Most dispatch columns are narrow within 4096 rows (gpu, queue, pid, lds... are constant or
 * take a few values; start, end, seq, corr grow steadily), so a typical trace takes 20-30
 * bytes a row instead of 144. Every int64 round-trips: INT64_MIN (the store's NULL) gets a
 * code of its own (the width's largest) in an offset column, and the offset arithmetic is
 * done in uint64 so that ranges as wide as INT64_MIN + 1 .. INT64_MAX cannot overflow (they
 * fall back to raw). */
#ifndef DCUTOP_CHUNK_CODEC_H
#define DCUTOP_CHUNK_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CHUNK_CODEC_NULL INT64_MIN
#define CHUNK_CODEC_BLOCK 4096 /* the rows of a full chunk: the loops' fast path */

/* How one column of one chunk is stored. */
typedef struct {
    int64_t base;     /* width 0: every row's value (NULL included); else the smallest non-NULL */
    uint32_t off;     /* bytes from the chunk's encoded start to this column's codes */
    uint8_t width;    /* bytes a row: 0, 1, 2, 4 or 8 (8: the int64 values unchanged) */
    uint8_t has_null; /* width 1, 2, 4: the width's largest code means NULL */
} ChunkCol;

/* Chooses the narrowest encoding of each of ncols columns of data (column-major, stride
 * `stride` values a column, `rows` rows used) and lays the columns out widest first, so each
 * column's codes are aligned to their width. Returns the encoded size in bytes (0 when every
 * column is constant): a multiple of rows. */
size_t ChunkCodec_plan(const int64_t* data, int64_t stride, int64_t rows, int ncols,
                       ChunkCol* cols);

/* Lays out columns again after the caller changed some (e.g. made one a constant it
 * derives from others): sets each off; returns the encoded size, as ChunkCodec_plan. */
size_t ChunkCodec_layout(ChunkCol* cols, int ncols, int64_t rows);

/* Writes the encoded bytes that ChunkCodec_plan sized into out (8-byte aligned). */
void ChunkCodec_pack(const int64_t* data, int64_t stride, int64_t rows, int ncols,
                     const ChunkCol* cols, uint8_t* out);

/* Decodes column `col` of an encoded chunk into out[0 .. rows). */
void ChunkCodec_decodeCol(const uint8_t* enc, const ChunkCol* col, int64_t rows, int64_t* out);

/* The value of row r of one column, read from the encoded bytes alone. */
static inline int64_t ChunkCodec_value(const uint8_t* enc, const ChunkCol* c, int64_t r) {
    const uint8_t* p = enc + c->off;
    uint64_t code;
    switch (c->width) {
    case 0:
        return c->base;
    case 1:
        code = p[r];
        if (c->has_null && code == UINT8_MAX) {
            return CHUNK_CODEC_NULL;
        }
        break;
    case 2: {
        uint16_t x;
        memcpy(&x, p + 2 * r, sizeof(x));
        if (c->has_null && x == UINT16_MAX) {
            return CHUNK_CODEC_NULL;
        }
        code = x;
        break;
    }
    case 4: {
        uint32_t x;
        memcpy(&x, p + 4 * r, sizeof(x));
        if (c->has_null && x == UINT32_MAX) {
            return CHUNK_CODEC_NULL;
        }
        code = x;
        break;
    }
    default: {
        int64_t x;
        memcpy(&x, p + 8 * r, sizeof(x));
        return x;
    }
    }
    return (int64_t)((uint64_t)c->base + code);
}

#endif
