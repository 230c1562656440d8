/* load_core.c - what every loader shares: a kernel's id from its raw name, and the messages
 * and rejected rows of a file. The loaders call these; the dispatcher (loader.c) calls the
 * loaders, so neither needs the other's file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/names.h"
#include "load_event.h"
#include "load_internal.h"

static void store_message(LoaderCore* core, LoadFile* f, long line, const char* msg);

int64_t Load_kernelId(LoaderCore* core, const char* raw, size_t len) {
    return Load_kernelIdHashed(core, raw, len, Intern_hash(raw, len));
}

/* LOAD_MAX_NAME_BYTES of name, or a little less, ending on a whole UTF-8 character. */
static size_t cut_len(const char* name) {
    size_t keep = LOAD_MAX_NAME_BYTES;
    /* back off to the first byte of a character: at most 3 continuation bytes */
    for (int i = 0; i < 3 && ((unsigned char)name[keep] & 0xC0) == 0x80; i++) {
        keep--;
    }
    return keep;
}

int64_t Load_kernelIdHashed(LoaderCore* core, const char* raw, size_t len, uint64_t hash) {
    if (len > LOAD_MAX_NAME_BYTES) { /* the callers said so (Load_capName); same kernel */
        len = cut_len(raw);
        hash = Intern_hash(raw, len);
    }
    int64_t id = Intern_getHashed(core->raw_kernels, raw, len, hash);
    if (id) {
        return id;
    }
    char* norm = Names_normalize(raw, len);
    /* a mangled name (rocprof, RPD, HIP code objects) is stored demangled, the symbol kept */
    char* full = NULL;
    int capped = 0;
    char* dm = Names_demangle(norm, strlen(norm), &capped);
    if (capped) { /* kept as the symbol: load_one says so once per file */
        if (core->names_capped++ == 0) {
            snprintf(core->capped_name, sizeof(core->capped_name), "%s", norm);
        }
    }
    if (dm) {
        full = Names_sanitize(dm, strlen(dm));
        free(dm);
    }
    const char* name = full ? full : norm;
    size_t nl = strlen(name);
    id = Intern_get(core->kernels, name, nl);
    if (!id) {
        id = core->next_kernel_id++;
        char* shrt = Names_short(name);
        sqlite3_stmt* st = core->st[ST_KERNEL];
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, name, (int)nl, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, shrt, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, norm, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        free(shrt);
        if (rc != SQLITE_DONE) {
            free(full);
            free(norm);
            return 0;
        }
        Intern_put(core->kernels, name, nl, id);
    }
    free(full);
    free(norm);
    Intern_put(core->raw_kernels, raw, len, id);
    SharedIntern_put(core->raw_shared, raw, len, hash, id);
    return id;
}

size_t Load_capName(LoaderCore* core, LoadFile* f, long line, const char* where,
                    const char* name, size_t len) {
    if (len <= LOAD_MAX_NAME_BYTES) {
        return len;
    }
    size_t keep = cut_len(name);
    if (f->names_cut++ == 0) {
        char msg[200];
        snprintf(msg, sizeof(msg),
                 "%s%sa name of %zu bytes cut to its first %zu (names are capped at 1 MiB); "
                 "the row is kept",
                 where ? where : "", where ? ": " : "", len, keep);
        store_message(core, f, line, msg);
    }
    return keep;
}

static void store_message(LoaderCore* core, LoadFile* f, long line, const char* msg) {
    sqlite3_stmt* st = core->st[ST_MSG];
    sqlite3_bind_int64(st, 1, f->id);
    if (line > 0) {
        sqlite3_bind_int64(st, 2, line);
    } else {
        sqlite3_bind_null(st, 2);
    }
    sqlite3_bind_text(st, 3, msg, -1, SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_reset(st);
}

void Load_storageFailed(LoaderCore* core, int rc, const char* why) {
    if (!core->storage_rc) {
        core->storage_rc = rc;
        snprintf(core->storage_why, sizeof(core->storage_why), "%s", why ? why : "");
    }
}

void Load_reject(LoaderCore* core, LoadFile* f, long line, const char* fmt, ...) {
    f->rejected++;
    if (f->messages >= core->opt.max_messages) {
        return;
    }
    f->messages++;
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    store_message(core, f, line, buf);
}

DcuStatus Load_keepCut(LoaderCore* core, LoadFile* f, DcuStatus s, const DcuError* err) {
    if (s != DCU_ERR_CUT) {
        return s;
    }
    /* the path is in the file column already: keep only the reason */
    const char* m = err->msg;
    size_t pl = strlen(f->path);
    if (strncmp(m, f->path, pl) == 0 && strncmp(m + pl, ": ", 2) == 0) {
        m += pl + 2;
    }
    Load_message(core, f, "%s; the %lld rows before the cut are kept", m, (long long)f->rows);
    f->rejected++;
    f->messages++; /* listed: not one of the "more rejected rows not listed" */
    return DCU_OK;
}

void Load_progress(LoaderCore* core, const LoadFile* f, uint64_t done) {
    if (core->opt.progress) {
        core->opt.progress(core->bytes_before + done, core->bytes_total, f->path,
                           core->opt.progress_ctx);
    }
}

void Load_message(LoaderCore* core, LoadFile* f, const char* fmt, ...) {
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    store_message(core, f, 0, buf);
}
