/* gap_buckets.c - see gap_buckets.h. */
#include "dcutop/gap_buckets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void GapBuckets_initDefault(GapBuckets* b) {
    static const int64_t def[] = {10000, 20000, 50000, 100000, 1000000, 10000000};
    memset(b, 0, sizeof(*b));
    b->nbounds = (int)(sizeof(def) / sizeof(def[0]));
    memcpy(b->bound, def, sizeof(def));
}

/* One bound: a positive number and a unit; returns ns, or -1. */
static int64_t parse_bound(const char* s, size_t n) {
    static const struct {
        const char* unit;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char buf[32];
    if (n == 0 || n >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    char* end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    /* decimal digits only: "0x10us" is not 16 us, "inf" not a bound */
    if (errno || end == buf || !(v > 0) || v > 1e12 || buf[0] < '0' || buf[0] > '9' ||
        end != buf + strspn(buf, "0123456789.eE+-")) {
        return -1;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            return (int64_t)(v * units[i].ns + 0.5);
        }
    }
    return -1;
}

DcuStatus GapBuckets_parse(GapBuckets* b, const char* spec, DcuError* err) {
    GapBuckets nb;
    memset(&nb, 0, sizeof(nb));
    const char* p = *spec ? spec : NULL;
    while (p) { /* every item, the one after a last comma too: "10us,," has empty bounds */
        const char* comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 0) {
            return Error_set(err, DCU_ERR_USAGE, "--gap-buckets: an empty bound in '%s' "
                             "(a comma too many)", spec);
        }
        int64_t v = parse_bound(p, n);
        if (v <= 0) {
            return Error_set(err, DCU_ERR_USAGE,
                             "--gap-buckets: '%.*s' is not a time such as 10us, 1ms", (int)n, p);
        }
        if (nb.nbounds == GAP_BUCKETS_MAX - 1) {
            return Error_set(err, DCU_ERR_USAGE, "--gap-buckets: at most %d bounds",
                             GAP_BUCKETS_MAX - 1);
        }
        if (nb.nbounds > 0 && v <= nb.bound[nb.nbounds - 1]) {
            return Error_set(err, DCU_ERR_USAGE, "--gap-buckets: bounds must increase ('%.*s')",
                             (int)n, p);
        }
        nb.bound[nb.nbounds++] = v;
        p = comma ? comma + 1 : NULL;
    }
    if (nb.nbounds == 0) {
        return Error_set(err, DCU_ERR_USAGE, "--gap-buckets: no bounds given");
    }
    *b = nb;
    return DCU_OK;
}

void GapBuckets_add(GapBuckets* b, int64_t ns) {
    if (ns <= 0) {
        return;
    }
    int i = 0;
    while (i < b->nbounds && ns > b->bound[i]) {
        i++;
    }
    b->count[i]++;
    b->total_ns[i] += ns;
}

/* A bound in the largest unit it reaches ("100 us", "1.5 ms", "10 ms"). */
static void fmt_bound(char* buf, size_t cap, int64_t ns) {
    static const struct {
        int64_t scale;
        const char* unit;
    } u[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
    size_t i = 0;
    while (i + 1 < sizeof(u) / sizeof(u[0]) && ns < u[i].scale) {
        i++;
    }
    snprintf(buf, cap, "%g %s", (double)ns / (double)u[i].scale, u[i].unit);
}

void GapBuckets_label(const GapBuckets* b, int i, char* buf, size_t cap) {
    char lo[32], hi[32];
    if (i == 0) {
        fmt_bound(hi, sizeof(hi), b->bound[0]);
        snprintf(buf, cap, "<= %s", hi);
    } else if (i >= b->nbounds) {
        fmt_bound(lo, sizeof(lo), b->bound[b->nbounds - 1]);
        snprintf(buf, cap, "> %s", lo);
    } else {
        fmt_bound(lo, sizeof(lo), b->bound[i - 1]);
        fmt_bound(hi, sizeof(hi), b->bound[i]);
        snprintf(buf, cap, "%s - %s", lo, hi);
    }
}

void GapBuckets_load(GapBuckets* b, TraceDb* db) {
    GapBuckets_initDefault(b);
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT value FROM meta WHERE key = 'gap_buckets'", &st, NULL) !=
        DCU_OK) {
        return;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        DcuError e;
        GapBuckets_parse(b, (const char*)sqlite3_column_text(st, 0), &e);
    }
    sqlite3_finalize(st);
}

DcuStatus GapBuckets_store(TraceDb* db, const char* spec, DcuError* err) {
    GapBuckets b;
    DcuStatus s = GapBuckets_parse(&b, spec, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_stmt* st = NULL;
    s = TraceDb_prepare(db, "INSERT OR REPLACE INTO meta(key, value) VALUES('gap_buckets', ?1)",
                        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, spec, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) {
        s = Error_set(err, DCU_ERR_SQL, "meta: %s", sqlite3_errmsg(TraceDb_handle(db)));
    }
    sqlite3_finalize(st);
    return s;
}
