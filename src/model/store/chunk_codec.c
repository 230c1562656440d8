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

/* The smallest and largest non-NULL value of v[0 .. rows) and the NULLs among them. Four
 * independent lanes without branches (NULL is INT64_MIN: it never raises the largest). */
typedef struct {
    int64_t lo, hi, nulls;
} Span;

static Span span_of(const int64_t* restrict v, int64_t rows) {
    int64_t lo[4] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    int64_t hi[4] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
    int64_t nulls[4] = {0, 0, 0, 0};
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        for (int k = 0; k < 4; k++) {
            int64_t x = v[r + k];
            int isnull = x == CHUNK_CODEC_NULL;
            int64_t y = isnull ? INT64_MAX : x;
            nulls[k] += isnull;
            lo[k] = y < lo[k] ? y : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
    }
    for (; r < rows; r++) {
        int64_t x = v[r];
        int isnull = x == CHUNK_CODEC_NULL;
        int64_t y = isnull ? INT64_MAX : x;
        nulls[0] += isnull;
        lo[0] = y < lo[0] ? y : lo[0];
        hi[0] = x > hi[0] ? x : hi[0];
    }
    Span sp = {lo[0], hi[0], nulls[0] + nulls[1] + nulls[2] + nulls[3]};
    for (int k = 1; k < 4; k++) {
        sp.lo = lo[k] < sp.lo ? lo[k] : sp.lo;
        sp.hi = hi[k] > sp.hi ? hi[k] : sp.hi;
    }
    return sp;
}

/* 1 when every value equals the first (NULL included): bitwise, so vectorised. */
static inline int all_same(const int64_t* restrict v, int64_t rows) {
    uint64_t diff = 0, first = (uint64_t)v[0];
    for (int64_t r = 0; r < rows; r++) {
        diff |= (uint64_t)v[r] ^ first;
    }
    return diff == 0;
}

/* One column's encoding (off left 0). */
static ChunkCol plan_col(const int64_t* v, int64_t rows) {
    ChunkCol c = {0};
    int same = rows == CHUNK_CODEC_BLOCK ? all_same(v, CHUNK_CODEC_BLOCK) : all_same(v, rows);
    if (rows > 0 && same) {
        c.base = v[0]; /* constant, NULL or not: no bytes */
        return c;
    }
    Span sp = span_of(v, rows);
    int64_t lo = sp.lo, hi = sp.hi, nulls = sp.nulls;
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
    return ChunkCodec_layout(cols, ncols, rows);
}

size_t ChunkCodec_layout(ChunkCol* cols, int ncols, int64_t rows) {
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
        T* restrict p = (T*)(void*)(out + c->off);                                             \
        uint64_t base = (uint64_t)c->base;                                                     \
        for (int64_t r = 0; r < rows; r++) {                                                   \
            p[r] = v[r] == CHUNK_CODEC_NULL ? (T)(MAXCODE) : (T)((uint64_t)v[r] - base);        \
        }                                                                                      \
    } while (0)

void ChunkCodec_pack(const int64_t* data, int64_t stride, int64_t rows, int ncols,
                     const ChunkCol* cols, uint8_t* out) {
    for (int i = 0; i < ncols; i++) {
        const ChunkCol* c = &cols[i];
        const int64_t* restrict v = data + (int64_t)i * stride;
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

/* Values of one offset column: with no NULL in it a plain add. Called with rows a constant
 * CHUNK_CODEC_BLOCK where it can be, so that the loops need no remainder and are vectorised
 * even at -O2's cheapest cost model. */
#define DECODE_LOOP(T, MAXCODE)                                                                \
    do {                                                                                       \
        const T* restrict p = (const T*)(const void*)(enc + c->off);                           \
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

static inline void decode_col(const uint8_t* restrict enc, const ChunkCol* c, int64_t rows,
                              int64_t* restrict out) {
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

void ChunkCodec_decodeCol(const uint8_t* enc, const ChunkCol* c, int64_t rows, int64_t* out) {
    if (rows == CHUNK_CODEC_BLOCK) {
        decode_col(enc, c, CHUNK_CODEC_BLOCK, out);
    } else {
        decode_col(enc, c, rows, out);
    }
}
