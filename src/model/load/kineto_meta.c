/* kineto_meta.c - the software a Kineto trace was taken with. Kineto writes its versions as
 * top-level members beside deviceProperties: cuda_driver_version and cuda_runtime_version
 * (13000 for CUDA 13.0), cupti_version; on ROCm hip_driver_version, hip_runtime_version and
 * roctracer_version. Two runs of an A-B-B-A taken with different software are not the same
 * machine, so abba_evidence.c compares these per run. Only keys that name a version are kept,
 * and only a few of them a file: a hostile trace cannot fill the table. */
#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"
#include "load_internal.h"

enum { META_MAX_KEYS = 16, META_MAX_BYTES = 80 };

static int is_version_key(const char* k, size_t n) {
    static const char suffix[] = "_version";
    size_t sl = sizeof(suffix) - 1;
    return n > sl && n <= META_MAX_BYTES && memcmp(k + n - sl, suffix, sl) == 0;
}

void KinetoMeta_scalar(LoaderCore* core, LoadFile* f, const char* key, size_t kn,
                       const char* val, size_t vn) {
    if (!key || !is_version_key(key, kn) || vn > META_MAX_BYTES) {
        return;
    }
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepareCached(core->db,
                              "INSERT INTO trace_meta(file_id, key, value) SELECT ?1, ?2, ?3"
                              " WHERE (SELECT count(*) FROM trace_meta WHERE file_id = ?1) < ?4",
                              &st, NULL) != DCU_OK) {
        return;
    }
    sqlite3_bind_int64(st, 1, f->id);
    sqlite3_bind_text(st, 2, Names_sanitize(key, kn), -1, free);
    sqlite3_bind_text(st, 3, Names_sanitize(val, vn), -1, free);
    sqlite3_bind_int(st, 4, META_MAX_KEYS);
    sqlite3_step(st);
    sqlite3_clear_bindings(st);
    TraceDb_release(core->db, st);
}
