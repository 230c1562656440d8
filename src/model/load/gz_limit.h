/* gz_limit.h - how far a gzip input may expand (load_json.c for .json.gz, csv_reader.c for
 * .csv.gz): GZ_RATIO times its size on disk beyond GZ_FLOOR, never past GZ_CAP. Honest
 * traces compress 10-25:1, a gzip bomb about 1000:1. Private to the model. */
#ifndef DCUTOP_GZ_LIMIT_H
#define DCUTOP_GZ_LIMIT_H

#include <stdint.h>
#include <sys/stat.h>

#define GZ_RATIO 200
#define GZ_FLOOR (256ULL << 20)
#define GZ_CAP (64ULL << 30)

/* Most bytes the gzip file at path may expand to. */
static inline uint64_t GzLimit_bytes(const char* path) {
    struct stat st;
    uint64_t disk = stat(path, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
    uint64_t lim = disk > GZ_CAP / GZ_RATIO ? GZ_CAP : disk * GZ_RATIO;
    return lim < GZ_FLOOR ? GZ_FLOOR : lim;
}

#endif
