/* chunk_codec.c - see chunk_codec.h. */
#include "dcutop/chunk_codec.h"

/* The width for a column of non-NULL values min .. max (range = max - min, in uint64),
 * with one more code for NULL when has_null. */
static uint8_t width_for(uint64_t range, int has_null) {
    const uint64_t maxcode[3] = {UINT8_MAX, UINT16_MAX, UINT32_MAX};
    for (int i = 0; i < 3; i++) {
        if (has_null ? range < maxcode[i] : range <= maxcode[i]) {
            return (uint8_t)(1 << i);
        }
    }
    return 8;
}

/* One column's encoding (off left 0). */
static ChunkCol plan_col(const int64_t* v, int64_t rows) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t nulls = 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t x = v[r];
        if (x == CHUNK_CODEC_NULL) {
            nulls++;
            continue;
        }
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    ChunkCol c = {0};
    if (nulls == rows || rows == 0) {
        c.base = CHUNK_CODEC_NULL; /* all NULL: constant */
        return c;
    }
    if (nulls == 0 && lo == hi) {
        c.base = lo; /* constant */
        return c;
    }
    c.base = lo;
    c.has_null = nulls > 0;
    c.width = width_for((uint64_t)hi - (uint64_t)lo, c.has_null);
    if (c.width == 8) {
        c.base = 0;
        c.has_null = 0;
    }
    return c;
}

size_t ChunkCodec_plan(const int64_t* data, int64_t stride, int64_t rows, int ncols,
                       ChunkCol* cols) {
    for (int i = 0; i < ncols; i++) {
        cols[i] = plan_col(data + (int64_t)i * stride, rows);
    }
    size_t off = 0;
    for (int w = 8; w >= 1; w /= 2) { /* widest first: every column aligned to its width */
        for (int i = 0; i < ncols; i++) {
            if (cols[i].width == w) {
                cols[i].off = (uint32_t)off;
                off += (size_t)w * (size_t)rows;
            }
        }
    }
    return off;
}

/* Codes of one offset column of width W (bytes), T its unsigned type. NULL becomes the
 * largest code; other values their distance from base (fits: plan_col checked the range). */
#define PACK_LOOP(T, MAXCODE)                                                                  \
    do {                                                                                       \
        T* p = (T*)(void*)(out + c->off);                                                      \
        uint64_t base = (uint64_t)c->base;                                                     \
        for (int64_t r = 0; r < rows; r++) {                                                   \
            p[r] = v[r] == CHUNK_CODEC_NULL ? (T)(MAXCODE) : (T)((uint64_t)v[r] - base);        \
        }                                                                                      \
    } while (0)

void ChunkCodec_pack(const int64_t* data, int64_t stride, int64_t rows, int ncols,
                     const ChunkCol* cols, uint8_t* out) {
    for (int i = 0; i < ncols; i++) {
        const ChunkCol* c = &cols[i];
        const int64_t* v = data + (int64_t)i * stride;
        switch (c->width) {
        case 0:
            break;
        case 1:
            PACK_LOOP(uint8_t, UINT8_MAX);
            break;
        case 2:
            PACK_LOOP(uint16_t, UINT16_MAX);
            break;
        case 4:
            PACK_LOOP(uint32_t, UINT32_MAX);
            break;
        default:
            memcpy(out + c->off, v, (size_t)rows * sizeof(int64_t));
            break;
        }
    }
}

/* Values of one offset column: with no NULL in it a plain add the compiler vectorises. */
#define DECODE_LOOP(T, MAXCODE)                                                                \
    do {                                                                                       \
        const T* p = (const T*)(const void*)(enc + c->off);                                    \
        uint64_t base = (uint64_t)c->base;                                                     \
        if (c->has_null) {                                                                     \
            for (int64_t r = 0; r < rows; r++) {                                               \
                out[r] = p[r] == (T)(MAXCODE) ? CHUNK_CODEC_NULL : (int64_t)(base + p[r]);      \
            }                                                                                  \
        } else {                                                                               \
            for (int64_t r = 0; r < rows; r++) {                                               \
                out[r] = (int64_t)(base + p[r]);                                               \
            }                                                                                  \
        }                                                                                      \
    } while (0)

void ChunkCodec_decodeCol(const uint8_t* enc, const ChunkCol* c, int64_t rows, int64_t* out) {
    switch (c->width) {
    case 0:
        for (int64_t r = 0; r < rows; r++) {
            out[r] = c->base;
        }
        break;
    case 1:
        DECODE_LOOP(uint8_t, UINT8_MAX);
        break;
    case 2:
        DECODE_LOOP(uint16_t, UINT16_MAX);
        break;
    case 4:
        DECODE_LOOP(uint32_t, UINT32_MAX);
        break;
    default:
        memcpy(out, enc + c->off, (size_t)rows * sizeof(int64_t));
        break;
    }
}
