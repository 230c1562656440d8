/* smi_rocmtext.c - rocm-smi / hy-smi plain text, e.g. `rocm-smi --showuse --showmemuse
 * --showclocks --showpower` run in a loop with `date` between runs. Each run prints banners
 * ("==== ROCm System Management Interface ====", hy-smi: "==== System Management Interface
 * ===="), then one line per device and value (rocm_smi.py printLog):
 *     GPU[0]		: GPU use (%): 12
 *     GPU[0]		: sclk clock level: 1 (1800Mhz)
 *     HCU[3]		: HCU use (%): 15.0            (hy-smi: HCU or DCU, "vram ... (MiB)")
 * and a closing banner. The values of one device between two `date` lines (or two runs) make
 * one sample, at the line of its first value. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/xalloc.h"
#include "load_event.h"
#include "load_smi.h"

#define TX_MAX_DEV 64

typedef struct Text_ {
    SmiAcc acc[TX_MAX_DEV];
    unsigned char used[TX_MAX_DEV];
} Text;

static void* text_make(int form) {
    (void)form;
    return xcalloc(1, sizeof(Text));
}

static void flush(SmiLoad* L, Text* t) {
    for (int d = 0; d < TX_MAX_DEV; d++) {
        if (!t->used[d]) {
            continue;
        }
        if (t->acc[d].any) {
            t->acc[d].s.device = d;
            SmiAcc_store(L, &t->acc[d]);
        }
        SmiAcc_done(&t->acc[d]);
        t->used[d] = 0;
    }
}

static void text_drop(void* st) {
    Text* t = st;
    for (int d = 0; d < TX_MAX_DEV; d++) {
        if (t->used[d]) {
            SmiAcc_done(&t->acc[d]);
        }
    }
    free(t);
}

/* "GPU[3]", "HCU[3]", "DCU[3]" at the start: the device (and *rest after the ':' that
 * follows); -1 when the line does not start so, -2 when it starts so but is cut or bad. */
static int device_prefix(const char* s, size_t n, const char** rest, size_t* rl, int* hy) {
    if (n < 4 || !(strncasecmp(s, "GPU[", 4) == 0 || strncasecmp(s, "HCU[", 4) == 0 ||
                   strncasecmp(s, "DCU[", 4) == 0)) {
        return -1;
    }
    *hy = toupper((unsigned char)s[0]) != 'G';
    size_t i = 4;
    int d = 0, nd = 0;
    while (i < n && isdigit((unsigned char)s[i]) && nd < 7) {
        d = d * 10 + (s[i++] - '0');
        nd++;
    }
    if (nd == 0 || i >= n || s[i] != ']') {
        return -2;
    }
    i++;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) {
        i++;
    }
    if (i >= n || s[i] != ':') {
        return -2;
    }
    i++;
    *rest = s + i;
    *rl = n - i;
    return d;
}

static int contains(const char* s, size_t n, const char* w) {
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++) {
        if (memcmp(s + i, w, wl) == 0) {
            return 1;
        }
    }
    return 0;
}

static void text_line(SmiLoad* L, void* st, const char* s, size_t n, long line) {
    Text* t = st;
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    int64_t ns;
    int zone;
    if (n == 0) {
        return;
    }
    if (Smi_parseTime(s, n, &ns, &zone)) {
        flush(L, t); /* the samples before it belong to the time before it */
        Smi_loopTime(L, s, n);
        return;
    }
    const char* rest;
    size_t rl;
    int hy = 0;
    int d = device_prefix(s, n, &rest, &rl, &hy);
    if (d == -1) {
        if (contains(s, n, "System Management Interface")) {
            flush(L, t); /* a new run of the tool */
        }
        return; /* banners, section titles, system-wide lines, warnings */
    }
    if (d == -2) {
        Load_reject(L->core, L->f, line, "a device line cut short or malformed (expected "
                                         "'GPU[N] : name: value')");
        return;
    }
    if (hy) {
        L->tool = "hy-smi";
    }
    if (d >= TX_MAX_DEV) {
        Load_reject(L->core, L->f, line, "device %d: dcutop reads devices 0 .. %d", d,
                    TX_MAX_DEV - 1);
        return;
    }
    const char* sep = NULL;
    for (size_t i = 0; i + 1 < rl; i++) {
        if (rest[i] == ':' && rest[i + 1] == ' ') {
            sep = rest + i;
            break;
        }
    }
    if (!sep) {
        return; /* "GPU[0] : Not supported", a section's own title */
    }
    const char* k = rest;
    size_t kl = (size_t)(sep - rest);
    const char* v = sep + 2;
    size_t vl = rl - kl - 2;
    SmiField f;
    double mhz;
    if (!Smi_rocmField(k, kl, &f)) {
        int sclk = kl >= 10 && strncasecmp(k + strspn(k, " \t"), "sclk clock", 10) == 0;
        int mclk = kl >= 10 && strncasecmp(k + strspn(k, " \t"), "mclk clock", 10) == 0;
        const char* dash = memchr(v, '-', vl);
        if ((sclk || mclk) && Smi_mhz(v, vl, &mhz)) {
            f.kind = sclk ? SK_SM : SK_MEMCLK; /* "sclk clock level: 1 (1800Mhz)" */
        } else if (strstr(f.label, "Valid sclk range") && dash) {
            f.kind = SK_MAXSM; /* "500Mhz - 1800Mhz": the top of the range */
            vl -= (size_t)(dash + 1 - v);
            v = dash + 1;
        } else {
            return;
        }
    }
    if (!t->used[d]) {
        SmiAcc_init(&t->acc[d], line);
        t->used[d] = 1;
    }
    SmiAcc_put(L, &t->acc[d], &f, v, vl, line);
}

static void text_end(SmiLoad* L, void* st, long last) {
    (void)last;
    flush(L, st);
}

static const SmiParser rocm_text = {"rocm-smi / hy-smi text", "rocm-smi", text_make, text_line,
                                    text_end, text_drop};

const SmiParser* SmiText_parser(void) {
    return &rocm_text;
}
