/* load_smi.c - device-state logs into device_sample (load_smi.h): which tool wrote a file,
 * reading it a line at a time through that tool's parser, storing the samples, and after
 * the runs are known putting them on the clock of the trace beside them. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dcutop/xalloc.h"
#include "gz_file.h"
#include "load_event.h"
#include "load_smi.h"

#define SMI_LINE_MAX (1 << 16) /* no tool writes a longer line: a longer one is rejected */

/* ---- which tool wrote it ------------------------------------------------------------- */

static int starts_with(const char* s, size_t n, const char* p) {
    size_t l = strlen(p);
    return n >= l && strncasecmp(s, p, l) == 0;
}

/* nvidia-smi --query-gpu names its fields by these prefixes (nvidia-smi --help-query-gpu). */
static int nv_query_name(const char* s, size_t n) {
    static const char* const prefixes[] = {
        "clocks.", "utilization.", "memory.", "power.", "temperature.", "clocks_throttle_reasons.",
        "clocks_event_reasons.", "enforced.power", "fan.speed", "pstate"};
    for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
        if (starts_with(s, n, prefixes[k])) {
            return 1;
        }
    }
    return 0;
}

static int sniff_nv_csv(const char* s, size_t n) {
    const char* fs[64];
    size_t fl[64];
    int c = Smi_splitCsv(s, n, fs, fl, 64);
    int known = 0;
    for (int k = 0; k < c && k < 64; k++) {
        known += nv_query_name(fs[k], fl[k]);
    }
    return known >= 1 && (known >= 2 || c == 1 || starts_with(fs[0], fl[0], "timestamp"));
}

/* dmon's header: "# gpu   pwr ..." or "#Date  Time  gpu ..." */
static int sniff_dmon(const char* s, size_t n) {
    if (n < 2 || s[0] != '#') {
        return 0;
    }
    char low[256];
    size_t m = n < sizeof(low) - 1 ? n : sizeof(low) - 1;
    for (size_t i = 0; i < m; i++) {
        low[i] = (char)tolower((unsigned char)s[i]);
    }
    low[m] = '\0';
    const char* g = strstr(low, " gpu ");
    if (!g && strncmp(low, "#gpu ", 5) != 0) {
        return 0;
    }
    return strstr(low, " sm ") || strstr(low, " pwr ") || strstr(low, " pclk") ||
           strstr(low, " fb ");
}

/* The first key of a JSON document at s (its first object's, inside a list when in_list),
 * into key; 0 when the text does not open so. */
static int first_key(const char* s, size_t n, char* key, size_t cap, int* in_list) {
    size_t i = 0;
    *in_list = 0;
    if (i < n && s[i] == '[') {
        *in_list = 1;
        for (i++; i < n && isspace((unsigned char)s[i]); i++) {
        }
    }
    if (i >= n || s[i] != '{') {
        return 0;
    }
    for (i++; i < n && isspace((unsigned char)s[i]); i++) {
    }
    if (i >= n || s[i] != '"') {
        return 0;
    }
    size_t b = ++i;
    while (i < n && s[i] != '"' && i - b < cap - 1) {
        i++;
    }
    if (i >= n || s[i] != '"') {
        return 0;
    }
    memcpy(key, s + b, i - b);
    key[i - b] = '\0';
    return 1;
}

/* rocm-smi / hy-smi's device lines: "GPU[0]\t\t: ...", "HCU[0]", "DCU[0]". */
static int rocm_device_line(const char* s, size_t n) {
    if (n < 7 || !(strncasecmp(s, "GPU[", 4) == 0 || strncasecmp(s, "HCU[", 4) == 0 ||
                   strncasecmp(s, "DCU[", 4) == 0)) {
        return 0;
    }
    size_t i = 4;
    while (i < n && isdigit((unsigned char)s[i])) {
        i++;
    }
    if (i == 4 || i >= n || s[i] != ']') {
        return 0;
    }
    for (i++; i < n && (s[i] == ' ' || s[i] == '\t'); i++) {
    }
    return i < n && s[i] == ':';
}

/* amd-smi metric --csv: a "gpu" column beside its metric names. */
static int sniff_amd_csv(const char* s, size_t n) {
    const char* fs[64];
    size_t fl[64];
    int c = Smi_splitCsv(s, n, fs, fl, 64);
    int gpu = 0, known = 0;
    static const char* const names[] = {"gfx_activity", "umc_activity", "socket_power",
                                        "gfx_0_clk", "mem_0_clk", "used_vram", "hotspot"};
    for (int k = 0; k < c && k < 64; k++) {
        gpu |= fl[k] == 3 && strncasecmp(fs[k], "gpu", 3) == 0;
        for (size_t m = 0; m < sizeof(names) / sizeof(names[0]); m++) {
            known += strlen(names[m]) == fl[k] && strncasecmp(names[m], fs[k], fl[k]) == 0;
        }
    }
    return gpu && known >= 1;
}

/* rocm-smi / hy-smi --csv: "device," then a key rocm-smi prints (rocprof-compute's
 * roofline.csv opens with "device," too, its peaks after). */
static int sniff_rocm_csv(const char* s, size_t n) {
    const char* fs[64];
    size_t fl[64];
    int c = Smi_splitCsv(s, n, fs, fl, 64);
    SmiField f;
    for (int k = 1; k < c && k < 64; k++) {
        if (Smi_rocmField(fs[k], fl[k], &f)) {
            return 1;
        }
    }
    return 0;
}

int LoadSmi_sniff(const unsigned char* head, size_t n) {
    const char* s = (const char*)head;
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        n -= 3;
    }
    /* the first line that is not blank, a banner, a warning or a loop's `date` */
    size_t i = 0;
    for (int lines = 0; lines < 12 && i < n; lines++) {
        const char* nl = memchr(s + i, '\n', n - i);
        size_t l = nl ? (size_t)(nl - (s + i)) : n - i;
        const char* t = s + i;
        size_t tl = l;
        while (tl > 0 && isspace((unsigned char)t[tl - 1])) {
            tl--;
        }
        while (tl > 0 && isspace((unsigned char)*t)) {
            t++;
            tl--;
        }
        int64_t ns;
        int zone;
        if (tl == 0 || t[0] == '=' || starts_with(t, tl, "WARNING") ||
            Smi_parseTime(t, tl, &ns, &zone)) {
            i += l + 1;
            continue;
        }
        char key[64];
        int in_list;
        if (first_key(t, n - (size_t)(t - s), key, sizeof(key), &in_list)) {
            if (!in_list && strncasecmp(key, "card", 4) == 0) {
                return SMI_ROCM_JSON;
            }
            if ((in_list && strcmp(key, "gpu") == 0) || (!in_list && strcmp(key, "gpu_data") == 0)) {
                return SMI_AMD_JSON;
            }
            return 0;
        }
        if (rocm_device_line(t, tl)) {
            return SMI_ROCM_TEXT;
        }
        if (starts_with(t, tl, "device,") && sniff_rocm_csv(t, tl)) {
            return SMI_ROCM_CSV;
        }
        if (sniff_nv_csv(t, tl)) {
            return SMI_NV_CSV;
        }
        if (sniff_amd_csv(t, tl)) {
            return SMI_AMD_CSV;
        }
        if (sniff_dmon(t, tl)) {
            return SMI_NV_DMON;
        }
        return 0;
    }
    return 0;
}

/* ---- reading ------------------------------------------------------------------------- */

static const SmiParser* parser_of(int form) {
    switch (form) {
    case SMI_NV_CSV:
    case SMI_ROCM_CSV:
    case SMI_AMD_CSV:
        return SmiCsv_parser(form);
    case SMI_NV_DMON:
        return SmiDmon_parser();
    case SMI_ROCM_TEXT:
        return SmiText_parser();
    case SMI_ROCM_JSON:
    case SMI_AMD_JSON:
        return SmiJson_parser(form);
    default:
        return NULL;
    }
}

/* What the file's times are, in words (device_log.clock). Owned. */
static char* clock_words(int zones) {
    if (zones & SMI_ZONE_LOCAL) {
        const char* tz = getenv("TZ");
        tzset();
        return xasprintf("local time (%s%s, %s)%s", tz ? "TZ=" : "TZ unset: the system's zone",
                         tz ? tz : "", tzname[0], zones & SMI_ZONE_UTC ? " and UTC" : "");
    }
    return xstrdup(zones & SMI_ZONE_UTC ? "UTC" : "none");
}

static DcuStatus record_log(SmiLoad* L, const SmiParser* p, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(L->core->db, "INSERT OR REPLACE INTO device_log(file_id, tool,"
                                  " clock, align) VALUES(?1, ?2, ?3, ?4)", &st, err);
    if (s == DCU_OK) {
        char* clock = clock_words(L->zones_seen);
        sqlite3_bind_int64(st, 1, L->f->id);
        sqlite3_bind_text(st, 2, L->tool ? L->tool : p->tool, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, clock, -1, free);
        sqlite3_bind_text(st, 4, L->zones_seen ? "unaligned: no trace with a wall-clock anchor"
                                               : "unaligned: the log has no times", -1,
                          SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "device_log: %s",
                          sqlite3_errmsg(TraceDb_handle(L->core->db)));
        }
    }
    sqlite3_finalize(st);
    return s;
}

/* Each line to the parser; a line over SMI_LINE_MAX is rejected whole. */
static DcuStatus read_lines(SmiLoad* L, const SmiParser* p, void* state, FILE* fp,
                            DcuError* err) {
    char* buf = xmalloc(SMI_LINE_MAX + 1);
    long line = 0;
    int c = 0;
    while (L->status == DCU_OK && c != EOF) {
        size_t n = 0, full = 0;
        while ((c = getc(fp)) != EOF && c != '\n') {
            if (n < SMI_LINE_MAX) {
                buf[n++] = (char)c;
            }
            full++;
        }
        if (c == EOF && full == 0) {
            break;
        }
        line++;
        L->f->line = line;
        if (n > 0 && buf[n - 1] == '\r') {
            n--;
        }
        buf[n] = '\0';
        const char* t = buf;
        if (line == 1 && n >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0) {
            t += 3;
            n -= 3;
        }
        if (full > SMI_LINE_MAX) {
            Load_reject(L->core, L->f, line, "line of %zu bytes: longer than any %s line",
                        full, p->tool);
            continue;
        }
        if (memchr(t, '\0', n)) {
            Load_reject(L->core, L->f, line, "line holds a NUL byte: not %s text", p->tool);
            continue;
        }
        p->line(L, state, t, n, line);
    }
    if (L->status == DCU_OK) {
        p->end(L, state, line);
    }
    free(buf);
    if (L->status != DCU_OK) {
        return Error_set(err, L->status, "device_sample: %s",
                         sqlite3_errmsg(TraceDb_handle(L->core->db)));
    }
    if (ferror(fp)) {
        Load_reject(L->core, L->f, line, "read error after line %ld: %s", line,
                    GzFile_readError(errno));
    }
    return DCU_OK;
}

DcuStatus LoadSmi_file(LoaderCore* core, LoadFile* f, int form, DcuError* err) {
    const SmiParser* p = parser_of(form);
    if (!p) {
        return Error_set(err, DCU_ERR_PARSE, "no reader for device-state form %d", form);
    }
    FILE* fp = GzFile_open(f->path, err);
    if (!fp) {
        return DCU_ERR_IO;
    }
    SmiLoad L = {core, f, NULL, DCU_OK, LOAD_NULL, 0, 0, NULL};
    DcuStatus s = TraceDb_prepare(core->db,
                                  "INSERT INTO device_sample(file_id, line, device, device_name,"
                                  " wall_ns, sm_clock_mhz, mem_clock_mhz, max_sm_clock_mhz,"
                                  " util_pct, mem_util_pct, mem_used_bytes, mem_total_bytes,"
                                  " power_w, power_cap_w, temp_c, throttle, driver) VALUES(?1, ?2,"
                                  " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
                                  " ?16, ?17)", &L.ins, err);
    f->format = p->format;
    if (s == DCU_OK) {
        void* state = p->make(form);
        s = read_lines(&L, p, state, fp, err);
        p->drop(state);
    }
    if (s == DCU_OK && f->rows == 0) {
        f->format = "skipped";
        f->note = xasprintf("%s log without a sample", p->tool);
    } else if (s == DCU_OK) {
        /* no layer of a run: the Files view says "used:" and this note */
        f->note = xasprintf("%s device-state log (--view device)", L.tool ? L.tool : p->tool);
        s = record_log(&L, p, err);
    }
    sqlite3_finalize(L.ins);
    fclose(fp);
    return s;
}

/* ---- the trace's clock --------------------------------------------------------------- */

static void bind_int(sqlite3_stmt* st, int i, int64_t v) {
    if (v == LOAD_NULL) {
        sqlite3_bind_null(st, i);
    } else {
        sqlite3_bind_int64(st, i, v);
    }
}

void LoadSmi_wallAnchor(LoaderCore* core, LoadFile* f, const char* num, size_t n) {
    int64_t v;
    if (!LoadEvent_parseScaled(num, n, 0, &v) || v <= 0) {
        Load_message(core, f, "baseTimeNanoseconds is not a count of ns: the trace has no "
                              "wall-clock anchor");
        return;
    }
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(core->db, "INSERT OR REPLACE INTO wall_anchor(file_id, base_ns)"
                                  " VALUES(?1, ?2)", &st, NULL) == DCU_OK) {
        sqlite3_bind_int64(st, 1, f->id);
        sqlite3_bind_int64(st, 2, v);
        int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE) {
            Load_storageFailed(core, rc, sqlite3_errmsg(TraceDb_handle(core->db)));
        }
    }
    sqlite3_finalize(st);
}

/* The anchors a log may take: those of the traces in its run, else in its folder. */
static const char anchor_sql[] =
    "WITH lg AS (SELECT id, run_id, dir FROM source_file WHERE id = ?1),"
    " cand AS (SELECT a.file_id, a.base_ns, 1 AS tier FROM wall_anchor a JOIN source_file t"
    "   ON t.id = a.file_id, lg WHERE t.run_id = lg.run_id"
    "  UNION ALL SELECT a.file_id, a.base_ns, 2 FROM wall_anchor a JOIN source_file t"
    "   ON t.id = a.file_id, lg WHERE t.dir = lg.dir),"
    " best AS (SELECT * FROM cand WHERE tier = (SELECT min(tier) FROM cand))"
    " SELECT count(DISTINCT base_ns), min(file_id), min(base_ns),"
    "  (SELECT name FROM source_file WHERE id = (SELECT min(file_id) FROM best)) FROM best";

DcuStatus LoadSmi_finish(LoaderCore* core, DcuError* err) {
    sqlite3_stmt *logs = NULL, *anc = NULL, *upd = NULL, *lupd = NULL;
    DcuStatus s = TraceDb_prepare(core->db, "SELECT l.file_id, (SELECT count(*) FROM"
                                  " device_sample d WHERE d.file_id = l.file_id AND d.wall_ns IS"
                                  " NOT NULL) FROM device_log l ORDER BY l.file_id", &logs, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(core->db, anchor_sql, &anc, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(core->db, "UPDATE device_sample SET ts_ns = wall_ns - ?2"
                            " WHERE file_id = ?1 AND wall_ns IS NOT NULL", &upd, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_prepare(core->db, "UPDATE device_log SET anchor_file = ?2, align = ?3"
                            " WHERE file_id = ?1", &lupd, err);
    }
    while (s == DCU_OK && sqlite3_step(logs) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(logs, 0);
        int64_t timed = sqlite3_column_int64(logs, 1);
        sqlite3_bind_int64(anc, 1, id);
        char* align = xstrdup("unaligned");
        int64_t anchor_file = LOAD_NULL;
        if (sqlite3_step(anc) == SQLITE_ROW) {
            int64_t bases = sqlite3_column_int64(anc, 0);
            free(align);
            if (timed == 0) {
                align = xstrdup("unaligned: the log has no times");
            } else if (bases == 0) {
                align = xstrdup("unaligned: no trace with a wall-clock anchor (Kineto"
                                " baseTimeNanoseconds) in its run or folder");
            } else if (bases > 1) {
                align = xstrdup("unaligned: the traces beside it have different wall-clock"
                                " anchors");
            } else {
                anchor_file = sqlite3_column_int64(anc, 1);
                const unsigned char* tn = sqlite3_column_text(anc, 3);
                align = xasprintf("aligned to %s", tn ? (const char*)tn : "?");
                sqlite3_bind_int64(upd, 1, id);
                sqlite3_bind_int64(upd, 2, sqlite3_column_int64(anc, 2));
                if (sqlite3_step(upd) != SQLITE_DONE) {
                    s = Error_set(err, DCU_ERR_SQL, "device_sample: %s",
                                  sqlite3_errmsg(TraceDb_handle(core->db)));
                }
                sqlite3_reset(upd);
            }
        }
        sqlite3_reset(anc);
        sqlite3_bind_int64(lupd, 1, id);
        bind_int(lupd, 2, anchor_file);
        sqlite3_bind_text(lupd, 3, align, -1, free);
        if (s == DCU_OK && sqlite3_step(lupd) != SQLITE_DONE) {
            s = Error_set(err, DCU_ERR_SQL, "device_log: %s",
                          sqlite3_errmsg(TraceDb_handle(core->db)));
        }
        sqlite3_reset(lupd);
    }
    sqlite3_finalize(logs);
    sqlite3_finalize(anc);
    sqlite3_finalize(upd);
    sqlite3_finalize(lupd);
    return s;
}
