/* smi_dmon.c - nvidia-smi dmon [-s pucvmet] [-o DT]: '#' header lines naming the columns
 * ("# gpu pwr gtemp mtemp sm mem ... mclk pclk fb ...", "#Date Time gpu ..." with -o DT)
 * and their units ("# Idx W C C % % ... MHz MHz MB ..."), then one line per GPU and
 * interval (a second by default), blanks between columns, '-' for a value not supported.
 * The header comes again every screenful. Columns: `nvidia-smi dmon -h`. */
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

static void append_reason(char* out, size_t cap, const char* r) {
    size_t used = strlen(out);
    snprintf(out + used, cap - used, "%s%s", used ? "," : "", r);
}

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

static const SmiParser nv_dmon = {"nvidia-smi dmon", "nvidia-smi dmon", dmon_make, dmon_line,
                                  dmon_end, dmon_drop};

const SmiParser* SmiDmon_parser(void) {
    return &nv_dmon;
}
