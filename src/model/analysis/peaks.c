/* peaks.c - the device peak table (peaks.h), parsed like the category rules. */
#include "dcutop/peaks.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/filter.h"
#include "dcutop/safe_file.h"
#include "dcutop/xalloc.h"

extern const char dcutop_default_peaks[]; /* generated from src/model/analysis/default.peaks */

typedef struct Entry_ {
    pcre2_code* code;
    PeakFigures fig;
} Entry;

struct Peaks_ {
    Entry* e;
    int n, cap;
    pcre2_match_data* md;
};

const char* Peaks_builtinText(void) {
    return dcutop_default_peaks;
}

Peaks* Peaks_new(void) {
    Peaks* this = xcalloc(1, sizeof(*this));
    this->md = pcre2_match_data_create(4, NULL);
    return this;
}

void Peaks_delete(Peaks* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < this->n; i++) {
        pcre2_code_free(this->e[i].code);
    }
    free(this->e);
    pcre2_match_data_free(this->md);
    free(this);
}

/* One figure: a positive finite number, or '-' (0 = not published). */
static int figure(const char** p, double* out) {
    const char* s = *p;
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    if (*s == '-' && (s[1] == ' ' || s[1] == '\t' || s[1] == '\0' || s[1] == '\r')) {
        *out = 0;
        *p = s + 1;
        return 1;
    }
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0) || v > 1e9) {
        return 0;
    }
    *out = v;
    *p = end;
    return 1;
}

DcuStatus Peaks_parse(Peaks* this, const char* text, const char* source, DcuError* err) {
    int line = 0;
    const char* p = text;
    while (*p) {
        const char* eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char* l = xstrndup(p, len);
        p += len + (eol ? 1 : 0);
        line++;
        if (len > 0 && l[len - 1] == '\r') {
            l[--len] = '\0';
        }
        if (len == 0 || l[0] == '#') {
            free(l);
            continue;
        }
        char* tab = strchr(l, '\t');
        if (!tab || tab == l) {
            free(l);
            return Error_set(err, DCU_ERR_RULES, "%s:%d: expected `pattern<TAB>bf16 fp16 fp32 fp8"
                             " hbm`", source, line);
        }
        *tab = '\0';
        Entry e = {0};
        const char* f = tab + 1;
        int ok = 1;
        for (int i = 0; i < PEAK_NTYPES && ok; i++) {
            ok = figure(&f, &e.fig.tflops[i]);
        }
        ok = ok && figure(&f, &e.fig.gbps);
        while (ok && (*f == ' ' || *f == '\t')) {
            f++;
        }
        if (!ok || *f) {
            free(l);
            return Error_set(err, DCU_ERR_RULES, "%s:%d: expected five figures (bf16 fp16 fp32"
                             " fp8 TFLOP/s, HBM GB/s), each a positive number or '-'",
                             source, line);
        }
        char* re = xasprintf("(?i)%s", l);
        DcuError rerr;
        e.code = Filter_compileRaw(re, &rerr);
        free(re);
        free(l);
        if (!e.code) {
            return Error_set(err, DCU_ERR_RULES, "%s:%d: %s", source, line, rerr.msg);
        }
        e.fig.line = line;
        snprintf(e.fig.source, sizeof(e.fig.source), "%s", source);
        if (this->n == this->cap) {
            this->cap = this->cap ? this->cap * 2 : 16;
            this->e = xrealloc(this->e, sizeof(Entry) * (size_t)this->cap);
        }
        this->e[this->n++] = e;
    }
    return DCU_OK;
}

static char* read_all(const char* path, DcuError* err) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        Error_set(err, DCU_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char* buf = xmalloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            if (cap >= (1u << 24)) {
                break; /* a peaks table is a few KiB; the rest is not read */
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        Error_set(err, DCU_ERR_RULES, "%s: NUL byte in peaks file", path);
        return NULL;
    }
    return buf;
}

DcuStatus Peaks_loadDefault(Peaks* this, const char* path, DcuError* err) {
    char* xdg_path = NULL;
    const char* user = path;
    if (!user) {
        const char* xdg = getenv("XDG_CONFIG_HOME");
        const char* home = getenv("HOME");
        if (xdg && *xdg) {
            xdg_path = xasprintf("%s/dcutop/peaks", xdg);
        } else if (home && *home) {
            xdg_path = xasprintf("%s/.config/dcutop/peaks", home);
        }
        /* only a regular file counts: a FIFO there would block the start for ever */
        if (xdg_path && SafeFile_check(xdg_path, NULL, NULL) == 0) {
            user = xdg_path;
        }
    }
    DcuStatus s = DCU_OK;
    if (user) {
        char* text = read_all(user, err);
        s = text ? Peaks_parse(this, text, user, err) : err->code;
        free(text);
    }
    if (s == DCU_OK) {
        s = Peaks_parse(this, dcutop_default_peaks, "built-in", err);
    }
    free(xdg_path);
    return s;
}

int Peaks_lookup(const Peaks* this, const char* device, PeakFigures* out) {
    memset(out, 0, sizeof(*out));
    for (int i = 0; this && device && i < this->n; i++) {
        if (pcre2_match(this->e[i].code, (PCRE2_SPTR)device, strlen(device), 0, 0, this->md,
                        NULL) >= 0) {
            *out = this->e[i].fig;
            return 1;
        }
    }
    return 0;
}

DcuStatus Peaks_parseOverride(const char* arg, PeakFigures* out, DcuError* err) {
    memset(out, 0, sizeof(*out));
    const char* p = arg ? arg : "";
    double t, g;
    if (!figure(&p, &t) || *p != ',' || t == 0) {
        return Error_set(err, DCU_ERR_USAGE, "--peak: expected TFLOPS,GBps (e.g. --peak"
                         " 1307.4,5300), got '%s'", arg ? arg : "");
    }
    p++;
    if (!figure(&p, &g) || *p || g == 0) {
        return Error_set(err, DCU_ERR_USAGE, "--peak: expected TFLOPS,GBps (e.g. --peak"
                         " 1307.4,5300), got '%s'", arg);
    }
    for (int i = 0; i < PEAK_NTYPES; i++) {
        out->tflops[i] = t;
    }
    out->gbps = g;
    snprintf(out->source, sizeof(out->source), "--peak");
    return DCU_OK;
}

double PeakFigures_tflops(const PeakFigures* p, const char* dtype) {
    static const char* const names[PEAK_NTYPES] = {"bf16", "fp16", "fp32", "fp8"};
    for (int i = 0; p && dtype && i < PEAK_NTYPES; i++) {
        if (strcmp(dtype, names[i]) == 0) {
            return p->tflops[i];
        }
    }
    return 0;
}
