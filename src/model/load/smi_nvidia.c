/* smi_nvidia.c - nvidia-smi's device-state logs:
 *   --query-gpu=F1,F2,... --format=csv[,nounits] [-l S | -lms MS]: a header line naming the
 *     fields ("timestamp, name, clocks.current.sm [MHz], ..."), then one line per GPU and
 *     sample ("2026/12/07 19:46:48.588, NVIDIA H100 80GB HBM3, 1980 MHz, ..."). Timestamps
 *     are the machine's local time. The header comes again when the command was rerun into
 *     the same file.
 *   dmon [-s pucvmet] [-o DT]: '#' header lines naming the columns and their units, then one
 *     line per GPU and second, blanks between columns, '-' for a value not supported.
 * Field names and units: `nvidia-smi --help-query-gpu` and `nvidia-smi dmon -h`. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "load_event.h"
#include "load_smi.h"

#define NV_MAX_COLS 96
#define NV_MAX_IDS 64

enum {
    NV_OTHER,
    NV_TIME,
    NV_NAME,
    NV_INDEX,
    NV_ID, /* uuid or pci.bus_id: a device by its identity */
    NV_DRIVER,
    NV_SM,
    NV_GR,
    NV_MEMCLK,
    NV_MAXSM,
    NV_MAXGR,
    NV_UTIL,
    NV_MEMUTIL,
    NV_MEMUSED,
    NV_MEMTOTAL,
    NV_POWER,
    NV_POWERCAP,
    NV_TEMP,
    NV_THR_MASK, /* clocks_event_reasons.active: a bit mask */
    NV_THR_ONE   /* clocks_event_reasons.<reason>: Active / Not Active */
};

static const struct {
    const char* name;
    int kind;
} nv_fields[] = {
    {"timestamp", NV_TIME},
    {"name", NV_NAME},
    {"gpu_name", NV_NAME},
    {"index", NV_INDEX},
    {"uuid", NV_ID},
    {"gpu_uuid", NV_ID},
    {"pci.bus_id", NV_ID},
    {"gpu_bus_id", NV_ID},
    {"driver_version", NV_DRIVER},
    {"clocks.current.sm", NV_SM},
    {"clocks.sm", NV_SM},
    {"clocks.current.graphics", NV_GR},
    {"clocks.gr", NV_GR},
    {"clocks.current.memory", NV_MEMCLK},
    {"clocks.mem", NV_MEMCLK},
    {"clocks.max.sm", NV_MAXSM},
    {"clocks.max.graphics", NV_MAXGR},
    {"clocks.max.gr", NV_MAXGR},
    {"utilization.gpu", NV_UTIL},
    {"utilization.memory", NV_MEMUTIL},
    {"memory.used", NV_MEMUSED},
    {"memory.total", NV_MEMTOTAL},
    {"power.draw", NV_POWER},
    {"power.draw.instant", NV_POWER},
    {"power.draw.average", NV_POWER},
    {"enforced.power.limit", NV_POWERCAP},
    {"power.limit", NV_POWERCAP},
    {"temperature.gpu", NV_TEMP},
    {"clocks_throttle_reasons.active", NV_THR_MASK},
    {"clocks_event_reasons.active", NV_THR_MASK},
};

/* NVML's clocks event reasons (nvmlClocksEventReason*), by nvidia-smi's field names. */
static const char* const nv_reason_bits[] = {
    "gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
    "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
    "display_clock_setting"};

typedef struct NvCol_ {
    int kind;
    double bytes_unit;  /* memory columns: bytes per unit the header names ([MiB]) */
    char label[48];     /* the header's name, for messages */
    char reason[48];    /* NV_THR_ONE: the reason's name */
} NvCol;

typedef struct NvCsv_ {
    int ncols; /* 0 until a header */
    long header_line;
    NvCol cols[NV_MAX_COLS];
    char* ids[NV_MAX_IDS]; /* uuids / bus ids in order of first sight (owned) */
    int nids;
    char last_stamp[64]; /* the previous line's timestamp text, for devices without an index */
    int round_pos;
} NvCsv;

static int field_kind(const char* s, size_t n, NvCol* c) {
    size_t base = n;
    const char* br = memchr(s, '[', n);
    double unit = 1048576.0; /* nvidia-smi reports memory in MiB */
    if (br) {
        base = (size_t)(br - s);
        const char* u = br + 1;
        size_t ul = n - base - 1;
        if (ul > 0 && u[ul - 1] == ']') {
            ul--;
        }
        if (ul == 3 && strncasecmp(u, "KiB", 3) == 0) {
            unit = 1024.0;
        } else if (ul == 3 && strncasecmp(u, "GiB", 3) == 0) {
            unit = 1073741824.0;
        }
    }
    while (base > 0 && s[base - 1] == ' ') {
        base--;
    }
    c->bytes_unit = unit;
    snprintf(c->label, sizeof(c->label), "%.*s", (int)(base < 47 ? base : 47), s);
    c->reason[0] = '\0';
    for (size_t k = 0; k < sizeof(nv_fields) / sizeof(nv_fields[0]); k++) {
        if (strlen(nv_fields[k].name) == base && strncasecmp(nv_fields[k].name, s, base) == 0) {
            return nv_fields[k].kind;
        }
    }
    static const char* const reason_prefix[] = {"clocks_throttle_reasons.",
                                                "clocks_event_reasons."};
    for (int k = 0; k < 2; k++) {
        size_t pl = strlen(reason_prefix[k]);
        if (base > pl && strncasecmp(s, reason_prefix[k], pl) == 0 &&
            !(base - pl == 9 && strncasecmp(s + pl, "supported", 9) == 0)) {
            snprintf(c->reason, sizeof(c->reason), "%.*s", (int)(base - pl < 47 ? base - pl : 47),
                     s + pl);
            return NV_THR_ONE;
        }
    }
    return NV_OTHER;
}

static void* csv_make(int form) {
    (void)form;
    return xcalloc(1, sizeof(NvCsv));
}

static void csv_drop(void* st) {
    NvCsv* c = st;
    for (int i = 0; i < c->nids; i++) {
        free(c->ids[i]);
    }
    free(c);
}

/* A header: most of its fields are nvidia-smi field names. */
static int csv_header(NvCsv* c, const char** fs, const size_t* fl, int nf, long line) {
    NvCol cols[NV_MAX_COLS];
    int known = 0, query = 0;
    for (int k = 0; k < nf && k < NV_MAX_COLS; k++) {
        cols[k].kind = field_kind(fs[k], fl[k], &cols[k]);
        known += cols[k].kind != NV_OTHER;
        query += memchr(fs[k], '.', fl[k]) != NULL && cols[k].kind != NV_OTHER;
    }
    if (nf > NV_MAX_COLS || known == 0 || known * 2 < nf ||
        (query == 0 && nf > 1 && cols[0].kind != NV_TIME)) {
        return 0;
    }
    memcpy(c->cols, cols, sizeof(NvCol) * (size_t)nf);
    c->ncols = nf;
    c->header_line = line;
    return 1;
}

/* A clocks-event mask ("0x0000000000000004") as reason names into out; 0 when no mask. */
static int reason_mask(const char* s, size_t n, char* out, size_t cap) {
    if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
        return 0;
    }
    unsigned long long m = 0;
    for (size_t i = 2; i < n; i++) {
        int d = isdigit((unsigned char)s[i]) ? s[i] - '0'
                : isxdigit((unsigned char)s[i]) ? tolower((unsigned char)s[i]) - 'a' + 10
                                                : -1;
        if (d < 0) {
            return 0;
        }
        m = m * 16 + (unsigned long long)d;
    }
    out[0] = '\0';
    size_t used = 0;
    int nb = (int)(sizeof(nv_reason_bits) / sizeof(nv_reason_bits[0]));
    for (int b = 0; b < nb; b++) {
        if (m & (1ULL << b)) {
            used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "," : "",
                                     nv_reason_bits[b]);
            if (used >= cap) {
                used = cap - 1;
            }
        }
    }
    unsigned long long rest = m >> nb;
    if (rest) {
        snprintf(out + used, cap - used, "%s0x%llx", used ? "," : "", rest << nb);
    }
    return 1;
}

static void append_reason(char* out, size_t cap, const char* r) {
    size_t used = strlen(out);
    snprintf(out + used, cap - used, "%s%s", used ? "," : "", r);
}

/* The device of a line without an index: by uuid / bus id, else its place in a round of
 * lines that share one timestamp (nvidia-smi writes one line per GPU per sample). */
static int64_t device_of(NvCsv* c, const char* id, size_t idl, const char* stamp, size_t sl) {
    if (id) {
        for (int i = 0; i < c->nids; i++) {
            if (strlen(c->ids[i]) == idl && memcmp(c->ids[i], id, idl) == 0) {
                return i;
            }
        }
        if (c->nids < NV_MAX_IDS) {
            c->ids[c->nids] = xstrndup(id, idl);
            return c->nids++;
        }
        return LOAD_NULL;
    }
    if (sl > 0 && sl < sizeof(c->last_stamp) && strlen(c->last_stamp) == sl &&
        memcmp(c->last_stamp, stamp, sl) == 0) {
        c->round_pos++;
    } else {
        c->round_pos = 0;
        snprintf(c->last_stamp, sizeof(c->last_stamp), "%.*s", (int)(sl < 63 ? sl : 63), stamp);
    }
    return c->round_pos;
}

/* The value of a numeric column into *out within [lo, hi]; 1 stored or missing, 0 rejected. */
static int csv_num(SmiLoad* L, const NvCol* col, const char* s, size_t n, long line, double lo,
                   double hi, double* out) {
    double v;
    const char* u;
    size_t ul;
    int na;
    if (!Smi_number(s, n, &v, &u, &ul, &na)) {
        if (na) {
            return 1;
        }
        char* shown = Names_sanitize(s, n > 40 ? 40 : n);
        Load_reject(L->core, L->f, line, "%s: '%s' is not a number", col->label, shown);
        free(shown);
        return 0;
    }
    if (v < lo || v > hi) {
        Load_reject(L->core, L->f, line, "%s: %g is out of range (%g .. %g)", col->label, v, lo,
                    hi);
        return 0;
    }
    *out = v;
    return 1;
}

static int csv_bytes(SmiLoad* L, const NvCol* col, const char* s, size_t n, long line,
                     int64_t* out) {
    double v;
    const char* u;
    size_t ul;
    int na;
    if (!Smi_number(s, n, &v, &u, &ul, &na)) {
        if (na) {
            return 1;
        }
        char* shown = Names_sanitize(s, n > 40 ? 40 : n);
        Load_reject(L->core, L->f, line, "%s: '%s' is not a number", col->label, shown);
        free(shown);
        return 0;
    }
    int64_t b = Smi_bytes(v, u, ul, col->bytes_unit);
    if (b == LOAD_NULL) {
        Load_reject(L->core, L->f, line, "%s: %g %.*s is no memory size in range", col->label,
                    v, (int)(ul > 16 ? 16 : ul), u);
        return 0;
    }
    *out = b;
    return 1;
}

static void csv_line(SmiLoad* L, void* st, const char* s, size_t n, long line) {
    NvCsv* c = st;
    const char* fs[NV_MAX_COLS];
    size_t fl[NV_MAX_COLS];
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    if (n == 0 || Smi_loopTime(L, s, n)) {
        return;
    }
    int nf = Smi_splitCsv(s, n, fs, fl, NV_MAX_COLS);
    if (csv_header(c, fs, fl, nf, line)) {
        return;
    }
    if (c->ncols == 0) {
        Load_reject(L->core, L->f, line, "a sample before the header line that names the"
                                         " fields");
        return;
    }
    if (nf != c->ncols) {
        Load_reject(L->core, L->f, line, "expected %d fields (the header at line %ld), found %d",
                    c->ncols, c->header_line, nf);
        return;
    }
    SmiSample smp;
    SmiSample_init(&smp, line);
    char* name = NULL;
    char* driver = NULL;
    char thr[256] = "";
    int thr_said = 0;
    const char* id = NULL;
    size_t idl = 0;
    const char* stamp = NULL;
    size_t stampl = 0;
    int ok = 1;
    double gr = NAN, maxgr = NAN, idx = NAN;
    for (int k = 0; ok && k < nf; k++) {
        const NvCol* col = &c->cols[k];
        const char* v = fs[k];
        size_t vl = fl[k];
        int zone;
        switch (col->kind) {
        case NV_TIME:
            stamp = v;
            stampl = vl;
            if (!Smi_parseTime(v, vl, &smp.wall_ns, &zone)) {
                char* shown = Names_sanitize(v, vl > 40 ? 40 : vl);
                Load_reject(L->core, L->f, line, "timestamp '%s' is not a date and time", shown);
                free(shown);
                ok = 0;
            } else {
                L->zones_seen |= zone;
            }
            break;
        case NV_NAME:
            free(name);
            name = Names_sanitize(v, vl > 200 ? 200 : vl);
            break;
        case NV_DRIVER:
            free(driver);
            driver = Names_sanitize(v, vl > 100 ? 100 : vl);
            break;
        case NV_ID:
            if (!id) {
                id = v;
                idl = vl;
            }
            break;
        case NV_INDEX:
            ok = csv_num(L, col, v, vl, line, 0, 1e6, &idx);
            break;
        case NV_SM:
            ok = csv_num(L, col, v, vl, line, 0, 1e5, &smp.sm_clock_mhz);
            break;
        case NV_GR:
            ok = csv_num(L, col, v, vl, line, 0, 1e5, &gr);
            break;
        case NV_MEMCLK:
            ok = csv_num(L, col, v, vl, line, 0, 1e5, &smp.mem_clock_mhz);
            break;
        case NV_MAXSM:
            ok = csv_num(L, col, v, vl, line, 0, 1e5, &smp.max_sm_clock_mhz);
            break;
        case NV_MAXGR:
            ok = csv_num(L, col, v, vl, line, 0, 1e5, &maxgr);
            break;
        case NV_UTIL:
            ok = csv_num(L, col, v, vl, line, 0, 100, &smp.util_pct);
            break;
        case NV_MEMUTIL:
            ok = csv_num(L, col, v, vl, line, 0, 100, &smp.mem_util_pct);
            break;
        case NV_MEMUSED:
            ok = csv_bytes(L, col, v, vl, line, &smp.mem_used_bytes);
            break;
        case NV_MEMTOTAL:
            ok = csv_bytes(L, col, v, vl, line, &smp.mem_total_bytes);
            break;
        case NV_POWER:
            if (isnan(smp.power_w)) {
                ok = csv_num(L, col, v, vl, line, 0, 1e5, &smp.power_w);
            }
            break;
        case NV_POWERCAP:
            if (isnan(smp.power_cap_w)) {
                ok = csv_num(L, col, v, vl, line, 0, 1e5, &smp.power_cap_w);
            }
            break;
        case NV_TEMP:
            ok = csv_num(L, col, v, vl, line, -100, 300, &smp.temp_c);
            break;
        case NV_THR_MASK: {
            double dummy;
            const char* u;
            size_t ul;
            int na;
            char names[200];
            if (reason_mask(v, vl, names, sizeof(names))) {
                if (names[0]) {
                    append_reason(thr, sizeof(thr), names);
                }
                thr_said = 1;
            } else if (!Smi_number(v, vl, &dummy, &u, &ul, &na) && na) {
                /* not supported: nothing said */
            } else {
                char* shown = Names_sanitize(v, vl > 40 ? 40 : vl);
                Load_reject(L->core, L->f, line, "%s: '%s' is not a reason mask (0x...)",
                            col->label, shown);
                free(shown);
                ok = 0;
            }
            break;
        }
        case NV_THR_ONE:
            if (vl == 6 && strncasecmp(v, "Active", 6) == 0) {
                if (!strstr(thr, col->reason)) {
                    append_reason(thr, sizeof(thr), col->reason);
                }
                thr_said = 1;
            } else if (vl == 10 && strncasecmp(v, "Not Active", 10) == 0) {
                thr_said = 1;
            }
            break;
        default:
            break;
        }
    }
    if (ok) {
        if (isnan(smp.sm_clock_mhz)) {
            smp.sm_clock_mhz = gr; /* the graphics clock: the SM clock on every NVIDIA GPU */
        }
        if (isnan(smp.max_sm_clock_mhz)) {
            smp.max_sm_clock_mhz = maxgr;
        }
        smp.device = !isnan(idx) ? (int64_t)idx : device_of(c, id, idl, stamp, stampl);
        smp.device_name = name;
        smp.driver = driver;
        smp.throttle = thr_said ? thr : NULL;
        Smi_store(L, &smp);
    }
    free(name);
    free(driver);
}

static void csv_end(SmiLoad* L, void* st, long last) {
    (void)L;
    (void)st;
    (void)last;
}

/* ---- dmon ---------------------------------------------------------------------------- */

enum {
    DM_OTHER,
    DM_DATE,
    DM_TIME,
    DM_GPU,
    DM_PWR,
    DM_GTEMP,
    DM_SM,
    DM_MEM,
    DM_MCLK,
    DM_PCLK,
    DM_FB,
    DM_PVIOL,
    DM_TVIOL
};

static const struct {
    const char* name;
    int kind;
} dm_cols[] = {{"Date", DM_DATE}, {"Time", DM_TIME},   {"gpu", DM_GPU},     {"pwr", DM_PWR},
               {"gtemp", DM_GTEMP}, {"sm", DM_SM},     {"mem", DM_MEM},     {"mclk", DM_MCLK},
               {"pclk", DM_PCLK}, {"fb", DM_FB},       {"pviol", DM_PVIOL}, {"tviol", DM_TVIOL}};

typedef struct Dmon_ {
    int ncols;
    long header_line;
    int kinds[NV_MAX_COLS];
    char names[NV_MAX_COLS][16];
    int said_no_date;
} Dmon;

static void* dmon_make(int form) {
    (void)form;
    return xcalloc(1, sizeof(Dmon));
}

static void dmon_drop(void* st) {
    free(st);
}

/* Whitespace-separated words: starts and lengths; the count (more than max: only max kept). */
static int words(const char* s, size_t n, const char** ws, size_t* wl, int max) {
    int c = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i])) {
            i++;
        }
        if (i >= n) {
            break;
        }
        size_t b = i;
        while (i < n && !isspace((unsigned char)s[i])) {
            i++;
        }
        if (c < max) {
            ws[c] = s + b;
            wl[c] = i - b;
        }
        c++;
    }
    return c;
}

static void dmon_header(Dmon* d, const char* s, size_t n, long line) {
    const char* ws[NV_MAX_COLS];
    size_t wl[NV_MAX_COLS];
    int nw = words(s + 1, n - 1, ws, wl, NV_MAX_COLS);
    int gpu = 0;
    for (int k = 0; k < nw && k < NV_MAX_COLS; k++) {
        gpu |= wl[k] == 3 && strncasecmp(ws[k], "gpu", 3) == 0;
    }
    if (!gpu || nw > NV_MAX_COLS) {
        return; /* the units line ("# Idx W C ...") or a comment */
    }
    d->ncols = nw;
    d->header_line = line;
    for (int k = 0; k < nw; k++) {
        d->kinds[k] = DM_OTHER;
        snprintf(d->names[k], sizeof(d->names[k]), "%.*s", (int)(wl[k] < 15 ? wl[k] : 15), ws[k]);
        for (size_t c = 0; c < sizeof(dm_cols) / sizeof(dm_cols[0]); c++) {
            if (strlen(dm_cols[c].name) == wl[k] && strncasecmp(dm_cols[c].name, ws[k], wl[k]) == 0) {
                d->kinds[k] = dm_cols[c].kind;
            }
        }
    }
}

static void dmon_line(SmiLoad* L, void* st, const char* s, size_t n, long line) {
    Dmon* d = st;
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    size_t lead = 0;
    while (lead < n && isspace((unsigned char)s[lead])) {
        lead++;
    }
    if (lead == n) {
        return;
    }
    if (s[lead] == '#') {
        dmon_header(d, s + lead, n - lead, line);
        return;
    }
    if (Smi_loopTime(L, s, n)) {
        return;
    }
    if (d->ncols == 0) {
        Load_reject(L->core, L->f, line, "a sample before the '# gpu ...' header line");
        return;
    }
    const char* ws[NV_MAX_COLS];
    size_t wl[NV_MAX_COLS];
    int nw = words(s, n, ws, wl, NV_MAX_COLS);
    if (nw != d->ncols) {
        Load_reject(L->core, L->f, line, "expected %d columns (the header at line %ld), found %d",
                    d->ncols, d->header_line, nw);
        return;
    }
    SmiSample smp;
    SmiSample_init(&smp, line);
    const char* date = NULL;
    size_t datel = 0;
    const char* tod = NULL;
    size_t todl = 0;
    int said = 0;
    char thr[32] = "";
    for (int k = 0; k < nw; k++) {
        int kind = d->kinds[k];
        if (kind == DM_OTHER) {
            continue;
        }
        if (kind == DM_DATE) {
            date = ws[k];
            datel = wl[k];
            continue;
        }
        if (kind == DM_TIME) {
            tod = ws[k];
            todl = wl[k];
            continue;
        }
        double v;
        const char* u;
        size_t ul;
        int na;
        if (!Smi_number(ws[k], wl[k], &v, &u, &ul, &na)) {
            if (na) {
                continue;
            }
            char* shown = Names_sanitize(ws[k], wl[k] > 40 ? 40 : wl[k]);
            Load_reject(L->core, L->f, line, "%s: '%s' is not a number", d->names[k], shown);
            free(shown);
            return;
        }
        double hi = kind == DM_SM || kind == DM_MEM || kind == DM_PVIOL || kind == DM_TVIOL ? 100
                    : kind == DM_GTEMP ? 300 : kind == DM_GPU ? 1e6 : 1e9;
        if (ul > 0 || v < (kind == DM_GTEMP ? -100 : 0) || v > hi) {
            Load_reject(L->core, L->f, line, "%s: '%.*s' is out of range", d->names[k],
                        (int)(wl[k] > 40 ? 40 : wl[k]), ws[k]);
            return;
        }
        switch (kind) {
        case DM_GPU:
            smp.device = (int64_t)v;
            break;
        case DM_PWR:
            smp.power_w = v;
            break;
        case DM_GTEMP:
            smp.temp_c = v;
            break;
        case DM_SM:
            smp.util_pct = v;
            break;
        case DM_MEM:
            smp.mem_util_pct = v;
            break;
        case DM_MCLK:
            smp.mem_clock_mhz = v;
            break;
        case DM_PCLK:
            smp.sm_clock_mhz = v;
            break;
        case DM_FB: /* dmon's "MB" are MiB: the same figure as memory.used [MiB] */
            smp.mem_used_bytes = Smi_bytes(v, "MiB", 3, 0);
            break;
        case DM_PVIOL:
        case DM_TVIOL:
            said = 1;
            if (v > 0) {
                append_reason(thr, sizeof(thr), kind == DM_PVIOL ? "pviol" : "tviol");
            }
            break;
        default:
            break;
        }
    }
    if (date && tod) {
        char both[80];
        snprintf(both, sizeof(both), "%.*s %.*s", (int)(datel < 20 ? datel : 20), date,
                 (int)(todl < 20 ? todl : 20), tod);
        int zone;
        if (!Smi_parseTime(both, strlen(both), &smp.wall_ns, &zone)) {
            char* shown = Names_sanitize(both, strlen(both));
            Load_reject(L->core, L->f, line, "date and time '%s' is not a date and time", shown);
            free(shown);
            return;
        }
        L->zones_seen |= zone;
    } else if (tod && !d->said_no_date) {
        d->said_no_date = 1;
        Load_message(L->core, L->f, "dmon -o T gives the time of day without the date: its "
                                    "samples are not placed in time (record with -o DT)");
    }
    smp.throttle = said ? thr : NULL;
    Smi_store(L, &smp);
}

static void dmon_end(SmiLoad* L, void* st, long last) {
    (void)L;
    (void)st;
    (void)last;
}

static const SmiParser nv_csv = {"nvidia-smi --query-gpu CSV", "nvidia-smi", csv_make,
                                 csv_line, csv_end, csv_drop};
static const SmiParser nv_dmon = {"nvidia-smi dmon", "nvidia-smi dmon", dmon_make, dmon_line,
                                  dmon_end, dmon_drop};

const SmiParser* SmiNvidia_parser(int form) {
    return form == SMI_NV_DMON ? &nv_dmon : &nv_csv;
}
