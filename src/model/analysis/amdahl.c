/* amdahl.c - see amdahl.h. */
#include "dcutop/amdahl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double clamp01(double p) {
    if (!(p > 0)) {
        return 0;
    }
    return p > 1 ? 1 : p;
}

double Amdahl_ceiling(double p) {
    p = clamp01(p);
    return p >= 1 ? INFINITY : 1.0 / (1.0 - p);
}

double Amdahl_speedup(double p, double k) {
    return Amdahl_combined(&p, &k, 1);
}

double Amdahl_combined(const double* p, const double* k, int n) {
    double rest = 1.0, sped = 0.0;
    for (int i = 0; i < n; i++) {
        double pi = clamp01(p[i]);
        rest -= pi;
        if (isinf(k[i])) {
            continue;
        }
        sped += k[i] > 0 ? pi / k[i] : pi;
    }
    if (rest < 0) {
        rest = 0; /* rounding: shares that add up to slightly more than 1 */
    }
    double t = rest + sped;
    return t <= 0 ? INFINITY : 1.0 / t;
}

DcuStatus WhatIf_parse(const char* spec, WhatIf* out, int max, int* n, DcuError* err) {
    *n = 0;
    const char* p = spec;
    while (*p) {
        const char* comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char* eq = memchr(p, '=', len);
        if (!eq || eq == p || (size_t)(eq - p) >= sizeof(out->name)) {
            return Error_set(err, DCU_ERR_USAGE,
                             "--what-if: expected NAME=FACTOR, e.g. gemm=2,copy=4 (got '%.*s')",
                             (int)len, p);
        }
        if (*n >= max) {
            return Error_set(err, DCU_ERR_USAGE, "--what-if: at most %d parts", max);
        }
        WhatIf* w = &out[*n];
        memcpy(w->name, p, (size_t)(eq - p));
        w->name[eq - p] = '\0';
        char num[64];
        size_t nl = len - (size_t)(eq - p) - 1;
        if (nl == 0 || nl >= sizeof(num)) {
            return Error_set(err, DCU_ERR_USAGE, "--what-if: missing factor for '%s'", w->name);
        }
        memcpy(num, eq + 1, nl);
        num[nl] = '\0';
        w->at_peak = 0;
        size_t pl = strlen(num);
        if (pl > 5 && strcmp(num + pl - 5, "%peak") == 0) {
            char* end;
            num[pl - 5] = '\0';
            w->at_peak = strtod(num, &end);
            w->k = 1;
            if (end == num || *end || !(w->at_peak > 0 && w->at_peak <= 100)) {
                return Error_set(err, DCU_ERR_USAGE,
                                 "--what-if: '%s=X%%peak' needs 0 < X <= 100 (got '%s')",
                                 w->name, num);
            }
        } else if (strcmp(num, "inf") == 0) {
            w->k = INFINITY;
        } else {
            char* end;
            w->k = strtod(num, &end);
            if (*end || !(w->k >= 1) || isnan(w->k)) {
                return Error_set(err, DCU_ERR_USAGE,
                                 "--what-if: factor for '%s' must be a speedup >= 1 or 'inf' "
                                 "(got '%s')",
                                 w->name, num);
            }
        }
        for (int i = 0; i < *n; i++) {
            if (strcmp(out[i].name, w->name) == 0) {
                return Error_set(err, DCU_ERR_USAGE, "--what-if: '%s' given twice", w->name);
            }
        }
        (*n)++;
        p += len + (comma ? 1 : 0);
    }
    return DCU_OK;
}
