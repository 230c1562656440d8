/* smi_csv.c - the device-state logs that are CSV with a header naming the columns:
 *   nvidia-smi --query-gpu=F1,F2,... --format=csv[,nounits] [-l S | -lms MS]: "timestamp,
 *     name, clocks.current.sm [MHz], ...", then one line per GPU and sample
 *     ("2026/12/07 19:46:48.588, NVIDIA H100 80GB HBM3, 1980 MHz, ..."); timestamps in the
 *     machine's local time (`nvidia-smi --help-query-gpu` names the fields and units);
 *   rocm-smi / hy-smi --csv: "device,GPU use (%),..." then "card0,12,..." (rocm_smi.py
 *     formatCsv); no time of its own: a loop's `date` lines give it;
 *   amd-smi metric --csv: "timestamp,gpu,gfx_activity,umc_activity,socket_power,gfx_0_clk,
 *     ...,hotspot,...,used_vram,total_vram,..." (flattened amd-smi metric keys; timestamp, epoch
 *     seconds, with --watch).
 * A header line comes again when the command was rerun into the same file: it maps the lines
 * after it. A loop's `date` lines may stand between. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/xalloc.h"
#include "load_event.h"
#include "load_smi.h"

#define CSV_MAX_COLS 160
#define CSV_MAX_IDS 64

typedef struct FieldName_ {
    const char* name;
    int kind;
    int rank;
} FieldName;

static const FieldName nv_fields[] = {
    {"timestamp", SK_TIME, 0},
    {"name", SK_NAME, 0},
    {"gpu_name", SK_NAME, 0},
    {"index", SK_INDEX, 0},
    {"uuid", SK_ID, 0},
    {"gpu_uuid", SK_ID, 0},
    {"pci.bus_id", SK_ID, 0},
    {"gpu_bus_id", SK_ID, 0},
    {"driver_version", SK_DRIVER, 0},
    {"clocks.current.sm", SK_SM, 0},
    {"clocks.sm", SK_SM, 0},
    {"clocks.current.graphics", SK_GR, 0},
    {"clocks.gr", SK_GR, 0},
    {"clocks.current.memory", SK_MEMCLK, 0},
    {"clocks.mem", SK_MEMCLK, 0},
    {"clocks.max.sm", SK_MAXSM, 0},
    {"clocks.max.graphics", SK_MAXGR, 0},
    {"clocks.max.gr", SK_MAXGR, 0},
    {"utilization.gpu", SK_UTIL, 0},
    {"utilization.memory", SK_MEMUTIL, 0},
    {"memory.used", SK_MEMUSED, 0},
    {"memory.total", SK_MEMTOTAL, 0},
    {"power.draw", SK_POWER, 1},
    {"power.draw.instant", SK_POWER, 2},
    {"power.draw.average", SK_POWER, 3},
    {"enforced.power.limit", SK_POWERCAP, 0},
    {"power.limit", SK_POWERCAP, 0},
    {"temperature.gpu", SK_TEMP, 1},
    {"clocks_throttle_reasons.active", SK_THR_MASK, 0},
    {"clocks_event_reasons.active", SK_THR_MASK, 0},
};

static const FieldName amd_fields[] = {
    {"timestamp", SK_TIME, 0},         {"gpu", SK_INDEX, 0},
    {"gfx_activity", SK_UTIL, 0},      {"umc_activity", SK_MEMUTIL, 0},
    {"socket_power", SK_POWER, 1},     {"power_limit", SK_POWERCAP, 0},
    {"socket_power_limit", SK_POWERCAP, 0},
    {"gfx_0_clk", SK_SM, 0},           {"gfx_clk", SK_SM, 0},
    {"gfx_0_max_clk", SK_MAXSM, 0},    {"gfx_max_clk", SK_MAXSM, 0},
    {"mem_0_clk", SK_MEMCLK, 0},       {"mem_clk", SK_MEMCLK, 0},
    {"hotspot", SK_TEMP, 1},           {"edge", SK_TEMP, 3},
    {"used_vram", SK_MEMUSED, 0},      {"total_vram", SK_MEMTOTAL, 0},
    {"throttle_status", SK_THR_WORD, 0}, {"market_name", SK_NAME, 0},
};

typedef struct SmiCsv_ {
    int form;
    int ncols; /* 0 until a header */
    long header_line;
    SmiField cols[CSV_MAX_COLS];
    char* ids[CSV_MAX_IDS]; /* uuids / bus ids in order of first sight (owned) */
    int nids;
    char last_stamp[64]; /* the previous line's timestamp text, for GPUs without an index */
    int round_pos;
    int hy; /* the header is hy-smi's */
} SmiCsv;

static int lookup(const FieldName* t, size_t nt, const char* s, size_t n, SmiField* f) {
    for (size_t k = 0; k < nt; k++) {
        if (strlen(t[k].name) == n && strncasecmp(t[k].name, s, n) == 0) {
            f->kind = t[k].kind;
            f->rank = t[k].rank;
            return 1;
        }
    }
    return 0;
}

/* One header name of the form's CSV into f (kind SK_OTHER when not read). */
static void header_field(int form, const char* s, size_t n, SmiField* f) {
    memset(f, 0, sizeof(*f));
    snprintf(f->label, sizeof(f->label), "%.*s", (int)(n < 47 ? n : 47), s);
    if (form == SMI_ROCM_CSV) {
        if (n == 6 && strncasecmp(s, "device", 6) == 0) {
            f->kind = SK_CARD;
        } else {
            Smi_rocmField(s, n, f);
        }
        return;
    }
    if (form == SMI_AMD_CSV) {
        lookup(amd_fields, sizeof(amd_fields) / sizeof(amd_fields[0]), s, n, f);
        f->unit = 1048576.0; /* amd-smi: VRAM in MB (MiB) */
        return;
    }
    /* nvidia-smi: "memory.used [MiB]" - the unit in brackets */
    size_t base = n;
    const char* br = memchr(s, '[', n);
    f->unit = 1048576.0;
    if (br) {
        base = (size_t)(br - s);
        const char* u = br + 1;
        size_t ul = n - base - 1;
        if (ul > 0 && u[ul - 1] == ']') {
            ul--;
        }
        double b = Smi_bytes(1.0, u, ul, 0);
        if (b != LOAD_NULL && b > 0) {
            f->unit = (double)b;
        }
    }
    while (base > 0 && s[base - 1] == ' ') {
        base--;
    }
    snprintf(f->label, sizeof(f->label), "%.*s", (int)(base < 47 ? base : 47), s);
    if (lookup(nv_fields, sizeof(nv_fields) / sizeof(nv_fields[0]), s, base, f)) {
        return;
    }
    static const char* const reason_prefix[] = {"clocks_throttle_reasons.",
                                                "clocks_event_reasons."};
    for (int k = 0; k < 2; k++) {
        size_t pl = strlen(reason_prefix[k]);
        if (base > pl && strncasecmp(s, reason_prefix[k], pl) == 0 &&
            !(base - pl == 9 && strncasecmp(s + pl, "supported", 9) == 0)) {
            f->kind = SK_THR_ONE;
            snprintf(f->reason, sizeof(f->reason), "%.*s",
                     (int)(base - pl < 47 ? base - pl : 47), s + pl);
        }
    }
}

static void* csv_make(int form) {
    SmiCsv* c = xcalloc(1, sizeof(SmiCsv));
    c->form = form;
    return c;
}

static void csv_drop(void* st) {
    SmiCsv* c = st;
    for (int i = 0; i < c->nids; i++) {
        free(c->ids[i]);
    }
    free(c);
}

/* A header line: rocm-smi's starts with "device"; the others are mostly names dcutop knows. */
static int csv_header(SmiCsv* c, const char** fs, const size_t* fl, int nf, long line) {
    if (nf > CSV_MAX_COLS || nf < 1) {
        return 0;
    }
    SmiField* cols = xmalloc(sizeof(SmiField) * (size_t)nf);
    int known = 0, dotted = 0;
    for (int k = 0; k < nf; k++) {
        header_field(c->form, fs[k], fl[k], &cols[k]);
        known += cols[k].kind != SK_OTHER;
        dotted += cols[k].kind != SK_OTHER && memchr(fs[k], '.', fl[k]) != NULL;
    }
    int is_header;
    if (c->form == SMI_ROCM_CSV) {
        is_header = cols[0].kind == SK_CARD;
    } else if (c->form == SMI_AMD_CSV) {
        int gpu = 0;
        for (int k = 0; k < nf; k++) {
            gpu |= cols[k].kind == SK_INDEX;
        }
        is_header = gpu && known >= 2;
    } else {
        is_header = known > 0 && known * 2 >= nf && (dotted > 0 || cols[0].kind == SK_TIME);
    }
    for (int k = 0; is_header && c->form == SMI_ROCM_CSV && k < nf; k++) {
        if (strncasecmp(fs[k], "HCU", 3) == 0 || strncasecmp(fs[k], "DCU", 3) == 0 ||
            strncmp(fs[k], "vram", 4) == 0) {
            c->hy = 1; /* hy-smi: HCU / DCU and "vram ... (MiB)" where rocm-smi says GPU */
        }
    }
    if (is_header) {
        memcpy(c->cols, cols, sizeof(SmiField) * (size_t)nf);
        c->ncols = nf;
        c->header_line = line;
    }
    free(cols);
    return is_header;
}

/* The device of a line without an index: by uuid / bus id, else its place in a round of
 * lines that share one timestamp (nvidia-smi writes one line per GPU per sample). */
static int64_t device_of(SmiCsv* c, const char* id, const char* stamp, size_t sl) {
    if (id) {
        for (int i = 0; i < c->nids; i++) {
            if (strcmp(c->ids[i], id) == 0) {
                return i;
            }
        }
        if (c->nids < CSV_MAX_IDS) {
            c->ids[c->nids] = xstrdup(id);
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

static void csv_line(SmiLoad* L, void* st, const char* s, size_t n, long line) {
    SmiCsv* c = st;
    const char* fs[CSV_MAX_COLS];
    size_t fl[CSV_MAX_COLS];
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    if (n == 0 || s[0] == '=' || Smi_loopTime(L, s, n)) {
        return; /* blank, a banner, or a loop's `date` */
    }
    int nf = Smi_splitCsv(s, n, fs, fl, CSV_MAX_COLS);
    if (csv_header(c, fs, fl, nf, line)) {
        return;
    }
    if (c->ncols == 0) {
        Load_reject(L->core, L->f, line, "a sample before the header line that names the"
                                         " columns");
        return;
    }
    if (c->form == SMI_ROCM_CSV && fl[0] == 6 && strncasecmp(fs[0], "system", 6) == 0) {
        return; /* rocm-smi's system-wide row: no device */
    }
    if (nf != c->ncols) {
        Load_reject(L->core, L->f, line, "expected %d fields (the header at line %ld), found %d",
                    c->ncols, c->header_line, nf);
        return;
    }
    if (c->hy) {
        L->tool = "hy-smi";
    }
    SmiAcc a;
    SmiAcc_init(&a, line);
    const char* stamp = NULL;
    size_t stampl = 0;
    int ok = 1;
    for (int k = 0; ok && k < nf; k++) {
        if (c->cols[k].kind == SK_TIME) {
            stamp = fs[k];
            stampl = fl[k];
        }
        ok = SmiAcc_put(L, &a, &c->cols[k], fs[k], fl[k], line);
    }
    if (ok) {
        if (a.s.device == LOAD_NULL) {
            a.s.device = device_of(c, a.id, stamp, stampl);
        }
        SmiAcc_store(L, &a);
    }
    SmiAcc_done(&a);
}

static void csv_end(SmiLoad* L, void* st, long last) {
    (void)L;
    (void)st;
    (void)last;
}

static const SmiParser nv_csv = {"nvidia-smi --query-gpu CSV", "nvidia-smi", csv_make,
                                 csv_line, csv_end, csv_drop};
static const SmiParser rocm_csv = {"rocm-smi / hy-smi CSV", "rocm-smi", csv_make, csv_line,
                                   csv_end, csv_drop};
static const SmiParser amd_csv = {"amd-smi metric CSV", "amd-smi", csv_make, csv_line, csv_end,
                                  csv_drop};

const SmiParser* SmiCsv_parser(int form) {
    return form == SMI_ROCM_CSV ? &rocm_csv : form == SMI_AMD_CSV ? &amd_csv : &nv_csv;
}
