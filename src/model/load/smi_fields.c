/* smi_fields.c - one value of a device-state log into the sample being gathered, whatever
 * form it came in (a CSV column, a JSON key, a "GPU[0] : key: value" line): the checks, the
 * units and the preferences between sensors live here once. Also the key names rocm-smi and
 * its derivative hy-smi print (rocm_smi.py printLog / formatJson / formatCsv; hy-smi says
 * HCU or DCU where rocm-smi says GPU and "vram ... (MiB)" where it says "VRAM ... (B)"). */
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

void SmiAcc_init(SmiAcc* a, long line) {
    memset(a, 0, sizeof(*a));
    SmiSample_init(&a->s, line);
    a->gr = NAN;
    a->maxgr = NAN;
    a->temp_rank = 1 << 20;
    a->power_rank = 1 << 20;
}

void SmiAcc_done(SmiAcc* a) {
    free(a->name);
    free(a->driver);
    free(a->id);
    a->name = a->driver = a->id = NULL;
}

int Smi_mhz(const char* s, size_t n, double* mhz) {
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]) || (i > 0 && (isdigit((unsigned char)s[i - 1]) ||
                                                       s[i - 1] == '.'))) {
            continue;
        }
        size_t j = i;
        while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '.')) {
            j++;
        }
        size_t u = j;
        while (u < n && s[u] == ' ') {
            u++;
        }
        if (u + 3 <= n && strncasecmp(s + u, "mhz", 3) == 0 && j - i < 20) {
            char buf[24];
            memcpy(buf, s + i, j - i);
            buf[j - i] = '\0';
            *mhz = strtod(buf, NULL);
            return isfinite(*mhz);
        }
    }
    return 0;
}

static void add_reason(char* out, size_t cap, const char* r, size_t rl) {
    size_t used = strlen(out);
    if (used + rl + 2 < cap) {
        snprintf(out + used, cap - used, "%s%.*s", used ? "," : "", (int)rl, r);
    }
}

/* NVML's clocks event reasons (nvmlClocksEventReason*), by nvidia-smi's field names. */
static const char* const nv_reason_bits[] = {
    "gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
    "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
    "display_clock_setting"};

/* "0x0000000000000004" as reason names added to out; 0 when no mask. */
static int reason_mask(const char* s, size_t n, char* out, size_t cap) {
    if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
        return 0;
    }
    unsigned long long m = 0;
    for (size_t i = 2; i < n; i++) {
        if (!isxdigit((unsigned char)s[i])) {
            return 0;
        }
        int d = isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10;
        m = m * 16 + (unsigned long long)d;
    }
    int nb = (int)(sizeof(nv_reason_bits) / sizeof(nv_reason_bits[0]));
    for (int b = 0; b < nb; b++) {
        if (m & (1ULL << b)) {
            add_reason(out, cap, nv_reason_bits[b], strlen(nv_reason_bits[b]));
        }
    }
    if (m >> nb) {
        char rest[24];
        snprintf(rest, sizeof(rest), "0x%llx", (m >> nb) << nb);
        add_reason(out, cap, rest, strlen(rest));
    }
    return 1;
}

static void reject_value(SmiLoad* L, const SmiField* f, const char* v, size_t vl, long line,
                         const char* why) {
    char* shown = Names_sanitize(v, vl > 40 ? 40 : vl);
    Load_reject(L->core, L->f, line, "%s: '%s' %s", f->label, shown, why);
    free(shown);
}

/* A number within [lo, hi] into *out: 1 stored or missing (N/A), 0 rejected. */
static int put_num(SmiLoad* L, const SmiField* f, const char* v, size_t vl, long line, double lo,
                   double hi, double* out) {
    double x;
    const char* u;
    size_t ul;
    int na;
    int clock = f->kind == SK_SM || f->kind == SK_GR || f->kind == SK_MEMCLK ||
                f->kind == SK_MAXSM || f->kind == SK_MAXGR;
    if (clock && Smi_mhz(v, vl, &x)) {
        /* the number before MHz: rocm-smi's "(1800Mhz)", "1 (1800Mhz)" (level 1) */
    } else if (!Smi_number(v, vl, &x, &u, &ul, &na)) {
        if (na) {
            return 1;
        }
        reject_value(L, f, v, vl, line, "is not a number");
        return 0;
    }
    if (x < lo || x > hi) {
        reject_value(L, f, v, vl, line, "is out of range");
        return 0;
    }
    *out = x;
    return 1;
}

static int put_bytes(SmiLoad* L, const SmiField* f, const char* v, size_t vl, long line,
                     int64_t* out) {
    double x;
    const char* u;
    size_t ul;
    int na;
    if (!Smi_number(v, vl, &x, &u, &ul, &na)) {
        if (!na) {
            reject_value(L, f, v, vl, line, "is not a number");
        }
        return na;
    }
    int64_t b = Smi_bytes(x, u, ul, f->unit > 0 ? f->unit : 1048576.0);
    if (b == LOAD_NULL) {
        reject_value(L, f, v, vl, line, "is no memory size in range");
        return 0;
    }
    *out = b;
    return 1;
}

static int put_text(char** dst, const char* v, size_t vl) {
    while (vl > 0 && isspace((unsigned char)*v)) {
        v++;
        vl--;
    }
    while (vl > 0 && isspace((unsigned char)v[vl - 1])) {
        vl--;
    }
    if (vl == 0 || (vl == 3 && strncasecmp(v, "N/A", 3) == 0)) {
        return 1;
    }
    free(*dst);
    *dst = Names_sanitize(v, vl > 200 ? 200 : vl);
    return 1;
}

static int put_throttle(SmiLoad* L, SmiAcc* a, const SmiField* f, const char* v, size_t vl,
                        long line) {
    while (vl > 0 && isspace((unsigned char)*v)) {
        v++;
        vl--;
    }
    while (vl > 0 && isspace((unsigned char)v[vl - 1])) {
        vl--;
    }
    double x;
    const char* u;
    size_t ul;
    int na;
    if (f->kind == SK_THR_ONE) {
        if (vl == 6 && strncasecmp(v, "Active", 6) == 0) {
            add_reason(a->thr, sizeof(a->thr), f->reason, strlen(f->reason));
            a->thr_said = 1;
        } else if (vl == 10 && strncasecmp(v, "Not Active", 10) == 0) {
            a->thr_said = 1;
        }
        return 1;
    }
    if (f->kind == SK_THR_MASK && reason_mask(v, vl, a->thr, sizeof(a->thr))) {
        a->thr_said = 1;
        return 1;
    }
    if (f->kind == SK_THR_WORD) {
        if ((vl == 11 && strncasecmp(v, "UNTHROTTLED", 11) == 0)) {
            a->thr_said = 1;
            return 1;
        }
        if (vl == 9 && strncasecmp(v, "THROTTLED", 9) == 0) {
            add_reason(a->thr, sizeof(a->thr), "throttled", 9);
            a->thr_said = 1;
            return 1;
        }
        if (Smi_number(v, vl, &x, &u, &ul, &na) && ul == 0 && x >= 0 && x < 4294967296.0) {
            a->thr_said = 1; /* amd-smi's throttle_status as the status bits */
            if (x > 0) {
                char t[32];
                snprintf(t, sizeof(t), "throttle_status=0x%llx", (unsigned long long)x);
                add_reason(a->thr, sizeof(a->thr), t, strlen(t));
            }
            return 1;
        }
    }
    if (!Smi_number(v, vl, &x, &u, &ul, &na) && na) {
        return 1; /* not supported: nothing said */
    }
    reject_value(L, f, v, vl, line, "is not a throttle state");
    return 0;
}

int SmiAcc_put(SmiLoad* L, SmiAcc* a, const SmiField* f, const char* v, size_t vl, long line) {
    SmiSample* s = &a->s;
    double x = NAN;
    int ok = 1;
    int zone;
    switch (f->kind) {
    case SK_TIME:
        if (!Smi_parseTime(v, vl, &s->wall_ns, &zone)) {
            reject_value(L, f, v, vl, line, "is not a date and time");
            return 0;
        }
        L->zones_seen |= zone;
        break;
    case SK_NAME:
        return put_text(&a->name, v, vl);
    case SK_DRIVER:
        return put_text(&a->driver, v, vl);
    case SK_ID:
        return a->id ? 1 : put_text(&a->id, v, vl);
    case SK_INDEX:
        ok = put_num(L, f, v, vl, line, 0, 1e6, &x);
        if (ok && !isnan(x)) {
            s->device = (int64_t)x;
        }
        return ok;
    case SK_CARD: {
        size_t i = 0;
        while (i < vl && !isdigit((unsigned char)v[i])) {
            i++;
        }
        int64_t d;
        if (i == vl || !LoadEvent_parseScaled(v + i, vl - i, 0, &d) || d > 1000000) {
            reject_value(L, f, v, vl, line, "names no card");
            return 0;
        }
        s->device = d;
        return 1;
    }
    case SK_SM:
        ok = put_num(L, f, v, vl, line, 0, 1e5, &s->sm_clock_mhz);
        break;
    case SK_GR:
        ok = put_num(L, f, v, vl, line, 0, 1e5, &a->gr);
        break;
    case SK_MEMCLK:
        ok = put_num(L, f, v, vl, line, 0, 1e5, &s->mem_clock_mhz);
        break;
    case SK_MAXSM:
        ok = put_num(L, f, v, vl, line, 0, 1e5, &s->max_sm_clock_mhz);
        break;
    case SK_MAXGR:
        ok = put_num(L, f, v, vl, line, 0, 1e5, &a->maxgr);
        break;
    case SK_UTIL:
        ok = put_num(L, f, v, vl, line, 0, 100, &s->util_pct);
        break;
    case SK_MEMUTIL:
        ok = put_num(L, f, v, vl, line, 0, 100, &s->mem_util_pct);
        break;
    case SK_MEMUSED:
        ok = put_bytes(L, f, v, vl, line, &s->mem_used_bytes);
        break;
    case SK_MEMTOTAL:
        ok = put_bytes(L, f, v, vl, line, &s->mem_total_bytes);
        break;
    case SK_POWER:
        ok = put_num(L, f, v, vl, line, 0, 1e5, &x);
        if (ok && !isnan(x) && f->rank < a->power_rank) {
            s->power_w = x;
            a->power_rank = f->rank;
        }
        break;
    case SK_POWERCAP:
        if (isnan(s->power_cap_w)) {
            ok = put_num(L, f, v, vl, line, 0, 1e5, &s->power_cap_w);
        }
        break;
    case SK_TEMP:
        ok = put_num(L, f, v, vl, line, -100, 300, &x);
        if (ok && !isnan(x) && f->rank < a->temp_rank) {
            s->temp_c = x;
            a->temp_rank = f->rank;
        }
        break;
    case SK_THR_MASK:
    case SK_THR_ONE:
    case SK_THR_WORD:
        ok = put_throttle(L, a, f, v, vl, line);
        break;
    default:
        return 1;
    }
    a->any |= ok && f->kind != SK_TIME;
    return ok;
}

int SmiAcc_store(SmiLoad* L, SmiAcc* a) {
    SmiSample* s = &a->s;
    if (isnan(s->sm_clock_mhz)) {
        s->sm_clock_mhz = a->gr; /* the graphics clock: the SM clock on every NVIDIA GPU */
    }
    if (isnan(s->max_sm_clock_mhz)) {
        s->max_sm_clock_mhz = a->maxgr;
    }
    s->device_name = a->name;
    s->driver = a->driver;
    s->throttle = a->thr_said ? a->thr : NULL;
    return Smi_store(L, s);
}

/* ---- rocm-smi / hy-smi keys ---------------------------------------------------------- */

/* "GPU", "HCU" or "DCU" then the rest: hy-smi names its devices HCU (older) or DCU. */
static int dev_word(const char* k, size_t n, const char* rest) {
    size_t rl = strlen(rest);
    return n == rl + 3 &&
           (strncasecmp(k, "GPU", 3) == 0 || strncasecmp(k, "HCU", 3) == 0 ||
            strncasecmp(k, "DCU", 3) == 0) &&
           strncasecmp(k + 3, rest, rl) == 0;
}

static int is(const char* k, size_t n, const char* w) {
    return strlen(w) == n && strncasecmp(k, w, n) == 0;
}

static int starts(const char* k, size_t n, const char* w) {
    size_t l = strlen(w);
    return n >= l && strncasecmp(k, w, l) == 0;
}

/* The unit a key names at its end: "(B)", "(MiB)", "(MB)", "(KiB)". */
static double key_unit(const char* k, size_t n) {
    static const struct {
        const char* s;
        double b;
    } units[] = {{"(B)", 1.0}, {"(KiB)", 1024.0}, {"(KB)", 1024.0}, {"(MiB)", 1048576.0},
                 {"(MB)", 1048576.0}, {"(GiB)", 1073741824.0}, {"(GB)", 1073741824.0}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t l = strlen(units[i].s);
        if (n >= l && strncasecmp(k + n - l, units[i].s, l) == 0) {
            return units[i].b;
        }
    }
    return 0;
}

int Smi_rocmField(const char* k, size_t n, SmiField* f) {
    while (n > 0 && isspace((unsigned char)*k)) {
        k++;
        n--;
    }
    while (n > 0 && (isspace((unsigned char)k[n - 1]) || k[n - 1] == ':')) {
        n--;
    }
    memset(f, 0, sizeof(*f));
    snprintf(f->label, sizeof(f->label), "%.*s", (int)(n < 47 ? n : 47), k);
    if (dev_word(k, n, " use (%)")) {
        f->kind = SK_UTIL;
    } else if (dev_word(k, n, " memory use (%)") || is(k, n, "GPU Memory Read/Write Activity (%)")) {
        f->kind = SK_MEMUTIL;
    } else if (starts(k, n, "Temperature (Sensor ")) {
        f->kind = SK_TEMP;
        f->rank = strstr(f->label, "junction") ? 1 : strstr(f->label, "core") ? 2
                  : strstr(f->label, "edge")   ? 3 : 4;
    } else if (is(k, n, "Average Graphics Package Power (W)") ||
               is(k, n, "Current Socket Graphics Package Power (W)")) {
        f->kind = SK_POWER;
        f->rank = k[0] == 'C' || k[0] == 'c' ? 1 : 2;
    } else if (is(k, n, "Max Graphics Package Power (W)")) {
        f->kind = SK_POWERCAP;
    } else if (starts(k, n, "VRAM Total Used Memory") || starts(k, n, "vram Total Used Memory")) {
        f->kind = SK_MEMUSED;
        f->unit = key_unit(k, n);
    } else if (starts(k, n, "VRAM Total Memory") || starts(k, n, "vram Total Memory")) {
        f->kind = SK_MEMTOTAL;
        f->unit = key_unit(k, n);
    } else if (starts(k, n, "sclk clock")) {
        /* "sclk clock speed" ("(1800Mhz)"), or the text form's "sclk clock level: 1 (1800Mhz)";
         * JSON's "sclk clock level" alone is a level index, no clock */
        f->kind = is(k, n, "sclk clock level") ? SK_OTHER : SK_SM;
    } else if (starts(k, n, "mclk clock")) {
        f->kind = is(k, n, "mclk clock level") ? SK_OTHER : SK_MEMCLK;
    } else if (is(k, n, "Valid sclk range")) {
        f->kind = SK_OTHER; /* "500Mhz - 1800Mhz": read by the caller when it wants */
    } else if (is(k, n, "Card series") || is(k, n, "Card model") || is(k, n, "Device Name") ||
               is(k, n, "Card SKU")) {
        f->kind = SK_NAME;
    } else if (is(k, n, "Driver version")) {
        f->kind = SK_DRIVER;
    } else if (is(k, n, "PCI Bus") || is(k, n, "Unique ID")) {
        f->kind = SK_ID;
    }
    return f->kind != SK_OTHER;
}
