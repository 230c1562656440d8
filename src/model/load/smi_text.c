/* smi_text.c - the words every device-state parser reads alike: timestamps in the forms the
 * tools and `date` print, numbers with their units, CSV fields, memory sizes. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "load_event.h"
#include "load_smi.h"

static int digits(const char* s, size_t n, size_t* i, int want, int* out) {
    int v = 0;
    for (int k = 0; k < want; k++) {
        if (*i >= n || !isdigit((unsigned char)s[*i])) {
            return 0;
        }
        v = v * 10 + (s[(*i)++] - '0');
    }
    *out = v;
    return 1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

typedef struct Stamp_ {
    int y, mo, d, h, mi, s;
    int64_t frac_ns;
    int zone;      /* SMI_ZONE_UTC (off_min applies) or SMI_ZONE_LOCAL */
    int off_min;   /* east of UTC */
} Stamp;

static int stamp_ns(const Stamp* t, int64_t* ns, int* zone) {
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (t->y < 1970 || t->y > 2200 || t->mo < 1 || t->mo > 12 || t->d < 1 ||
        t->d > mdays[t->mo - 1] || t->h > 23 || t->mi > 59 || t->s > 60) {
        return 0;
    }
    int64_t secs;
    if (t->zone == SMI_ZONE_LOCAL) {
        struct tm tm = {0};
        tm.tm_year = t->y - 1900;
        tm.tm_mon = t->mo - 1;
        tm.tm_mday = t->d;
        tm.tm_hour = t->h;
        tm.tm_min = t->mi;
        tm.tm_sec = t->s;
        tm.tm_isdst = -1; /* the zone's rule for that date says whether summer time applies */
        time_t tt = mktime(&tm);
        if (tt == (time_t)-1) {
            return 0;
        }
        secs = (int64_t)tt;
    } else {
        secs = days_from_civil(t->y, t->mo, t->d) * 86400 + t->h * 3600 + t->mi * 60 + t->s -
               (int64_t)t->off_min * 60;
    }
    *ns = secs * 1000000000 + t->frac_ns;
    *zone = t->zone;
    return 1;
}

/* ".123" after the seconds: up to 9 digits kept as ns, more read and dropped. */
static void fraction(const char* s, size_t n, size_t* i, int64_t* ns) {
    *ns = 0;
    if (*i < n && (s[*i] == '.' || s[*i] == ',') && *i + 1 < n &&
        isdigit((unsigned char)s[*i + 1])) {
        (*i)++;
        int64_t scale = 100000000;
        while (*i < n && isdigit((unsigned char)s[*i])) {
            *ns += (s[(*i)++] - '0') * scale;
            scale /= 10;
        }
    }
}

/* "HH:MM:SS[.frac]" at *i. */
static int clock_time(const char* s, size_t n, size_t* i, Stamp* t) {
    if (!digits(s, n, i, 2, &t->h) || *i >= n || s[(*i)++] != ':' ||
        !digits(s, n, i, 2, &t->mi) || *i >= n || s[(*i)++] != ':' ||
        !digits(s, n, i, 2, &t->s)) {
        return 0;
    }
    fraction(s, n, i, &t->frac_ns);
    return 1;
}

/* A zone at s[0..n): "Z", "UTC", "GMT", "+HH:MM", "+HHMM", "+HH"; 0 when not one. */
static int zone_of(const char* s, size_t n, Stamp* t) {
    if ((n == 1 && (s[0] == 'Z' || s[0] == 'z')) ||
        (n == 3 && (strncasecmp(s, "UTC", 3) == 0 || strncasecmp(s, "GMT", 3) == 0))) {
        t->zone = SMI_ZONE_UTC;
        t->off_min = 0;
        return 1;
    }
    if (n >= 3 && (s[0] == '+' || s[0] == '-')) {
        size_t i = 1;
        int hh, mm = 0;
        if (!digits(s, n, &i, 2, &hh)) {
            return 0;
        }
        if (i < n && s[i] == ':') {
            i++;
        }
        if (i < n && !digits(s, n, &i, 2, &mm)) {
            return 0;
        }
        if (i != n || hh > 14 || mm > 59) {
            return 0;
        }
        t->zone = SMI_ZONE_UTC;
        t->off_min = (s[0] == '-' ? -1 : 1) * (hh * 60 + mm);
        return 1;
    }
    return 0;
}

/* "YYYY/MM/DD HH:MM:SS.fff", "YYYY-MM-DD[T ]HH:MM:SS[.f][zone]", "YYYYMMDD HH:MM:SS". */
static int numeric_stamp(const char* s, size_t n, Stamp* t) {
    size_t i = 0;
    if (!digits(s, n, &i, 4, &t->y)) {
        return 0;
    }
    if (i < n && (s[i] == '/' || s[i] == '-')) {
        char sep = s[i++];
        if (!digits(s, n, &i, 2, &t->mo) || i >= n || s[i++] != sep ||
            !digits(s, n, &i, 2, &t->d)) {
            return 0;
        }
    } else if (!digits(s, n, &i, 2, &t->mo) || !digits(s, n, &i, 2, &t->d)) {
        return 0;
    }
    if (i < n && (s[i] == 'T' || s[i] == 't')) {
        i++;
    } else if (i < n && s[i] == ' ') {
        while (i < n && s[i] == ' ') {
            i++;
        }
    } else {
        return 0;
    }
    if (!clock_time(s, n, &i, t)) {
        return 0;
    }
    while (i < n && s[i] == ' ') {
        i++;
    }
    t->zone = SMI_ZONE_LOCAL;
    return i == n || zone_of(s + i, n - i, t);
}

static int month_of(const char* s, size_t n) {
    static const char* const names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                        "jul", "aug", "sep", "oct", "nov", "dec"};
    if (n < 3) {
        return 0;
    }
    for (int m = 0; m < 12; m++) {
        if (strncasecmp(s, names[m], 3) == 0 && (n == 3 || (n <= 9 && isalpha((unsigned char)s[3])))) {
            return m + 1;
        }
    }
    return 0;
}

static int weekday(const char* s, size_t n) {
    static const char* const names[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
    for (int k = 0; k < 7; k++) {
        if (n >= 3 && n <= 9 && strncasecmp(s, names[k], 3) == 0) {
            return 1;
        }
    }
    return 0;
}

/* `date`'s words in any order: weekday, month name, day, HH:MM:SS, AM/PM, zone, year. */
static int words_stamp(const char* s, size_t n, Stamp* t) {
    int have_mo = 0, have_d = 0, have_t = 0, have_y = 0, pm = -1;
    t->zone = SMI_ZONE_LOCAL;
    int zone_named = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == ',')) {
            i++;
        }
        size_t b = i;
        while (i < n && s[i] != ' ' && s[i] != ',') {
            i++;
        }
        const char* w = s + b;
        size_t wl = i - b;
        if (wl == 0) {
            break;
        }
        int m;
        if (memchr(w, ':', wl)) {
            size_t k = 0;
            if (have_t || !clock_time(w, wl, &k, t) || k != wl) {
                return 0;
            }
            have_t = 1;
        } else if (isdigit((unsigned char)w[0])) {
            size_t k = 0;
            int v;
            if (wl == 4 && !have_y && digits(w, wl, &k, 4, &v)) {
                t->y = v;
                have_y = 1;
            } else if (wl <= 2 && !have_d && digits(w, wl, &k, (int)wl, &v)) {
                t->d = v;
                have_d = 1;
            } else {
                return 0;
            }
        } else if ((m = month_of(w, wl)) != 0 && !have_mo) {
            t->mo = m;
            have_mo = 1;
        } else if (weekday(w, wl)) {
        } else if (wl == 2 && (strncasecmp(w, "AM", 2) == 0 || strncasecmp(w, "PM", 2) == 0)) {
            pm = toupper((unsigned char)w[0]) == 'P';
        } else if (!zone_named && zone_of(w, wl, t)) {
            zone_named = 1;
        } else if (!zone_named && wl >= 2 && wl <= 6) {
            for (size_t k = 0; k < wl; k++) {
                if (!isupper((unsigned char)w[k])) {
                    return 0;
                }
            }
            zone_named = 1; /* a zone by its abbreviation (CST, EDT): read as local time */
        } else {
            return 0;
        }
    }
    if (!(have_mo && have_d && have_t && have_y)) {
        return 0;
    }
    if (pm >= 0) {
        if (t->h < 1 || t->h > 12) {
            return 0;
        }
        t->h = t->h % 12 + (pm ? 12 : 0);
    }
    return 1;
}

int Smi_parseTime(const char* s, size_t n, int64_t* ns, int* zone) {
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    if (n < 8 || n > 64) {
        return 0;
    }
    Stamp t = {0};
    if (isdigit((unsigned char)s[0])) {
        size_t i = strspn(s, "0123456789");
        if (i >= 9 && i <= 11 && (i == n || s[i] == '.')) { /* epoch seconds */
            if (i < n && strspn(s + i + 1, "0123456789") != n - i - 1) {
                return 0;
            }
            int64_t secs = 0;
            for (size_t k = 0; k < i; k++) {
                secs = secs * 10 + (s[k] - '0');
            }
            size_t k = i;
            fraction(s, n, &k, &t.frac_ns);
            if (secs > INT64_C(7258118400)) { /* past 2200 */
                return 0;
            }
            *ns = secs * 1000000000 + t.frac_ns;
            *zone = SMI_ZONE_UTC;
            return 1;
        }
        return numeric_stamp(s, n, &t) && stamp_ns(&t, ns, zone);
    }
    return words_stamp(s, n, &t) && stamp_ns(&t, ns, zone);
}

int Smi_number(const char* s, size_t n, double* v, const char** unit, size_t* ulen, int* na) {
    *na = 0;
    while (n > 0 && (isspace((unsigned char)*s) || *s == '"')) {
        s++;
        n--;
    }
    while (n > 0 && (isspace((unsigned char)s[n - 1]) || s[n - 1] == '"')) {
        n--;
    }
    static const char* const missing[] = {"N/A", "[N/A]", "NA", "-", "--", "", "None",
                                          "[Not Supported]", "Not Supported", "[Unknown Error]",
                                          "[Insufficient Permissions]", "[GPU is lost]",
                                          "Unavailable", "UNAVAILABLE"};
    for (size_t k = 0; k < sizeof(missing) / sizeof(missing[0]); k++) {
        if (strlen(missing[k]) == n && strncasecmp(missing[k], s, n) == 0) {
            *na = 1;
            return 0;
        }
    }
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        i++;
    }
    size_t d0 = i;
    while (i < n && isdigit((unsigned char)s[i])) {
        i++;
    }
    size_t nd = i - d0;
    if (i < n && s[i] == '.') {
        i++;
        size_t f0 = i;
        while (i < n && isdigit((unsigned char)s[i])) {
            i++;
        }
        nd += i - f0;
    }
    if (nd == 0) {
        return 0;
    }
    if (i + 1 < n && (s[i] == 'e' || s[i] == 'E') &&
        (isdigit((unsigned char)s[i + 1]) ||
         (i + 2 < n && (s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2])))) {
        i += 2;
        while (i < n && isdigit((unsigned char)s[i])) {
            i++;
        }
    }
    if (i > 60) {
        return 0;
    }
    char buf[64];
    memcpy(buf, s, i);
    buf[i] = '\0';
    double x = strtod(buf, NULL);
    if (!isfinite(x)) {
        return 0;
    }
    if (i < n && (s[i] == 'x' || s[i] == 'X')) {
        return 0; /* hexadecimal: no measurement */
    }
    size_t u = i;
    while (u < n && isspace((unsigned char)s[u])) {
        u++;
    }
    if (u < n && !(isalpha((unsigned char)s[u]) || s[u] == '%' || s[u] == '[' || s[u] == '(' ||
                   (unsigned char)s[u] >= 0x80)) {
        return 0; /* "12abc" is a unit, "12.3.4" or "12/5" is no number */
    }
    *v = x;
    *unit = s + u;
    *ulen = n - u;
    return 1;
}

int Smi_splitCsv(const char* s, size_t n, const char** fs, size_t* fl, int max) {
    int count = 0;
    size_t i = 0;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t')) {
            i++;
        }
        size_t b = i, e;
        if (i < n && s[i] == '"') {
            b = ++i;
            while (i < n && !(s[i] == '"' && (i + 1 >= n || s[i + 1] != '"'))) {
                i += s[i] == '"' ? 2 : 1;
            }
            e = i < n ? i : n;
            while (i < n && s[i] != ',') {
                i++;
            }
        } else {
            while (i < n && s[i] != ',') {
                i++;
            }
            e = i;
        }
        while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) {
            e--;
        }
        if (count < max) {
            fs[count] = s + b;
            fl[count] = e - b;
        }
        count++;
        if (i >= n) {
            break;
        }
        i++; /* the comma */
    }
    return count;
}

int64_t Smi_bytes(double v, const char* unit, size_t ulen, double dflt) {
    static const struct {
        const char* name;
        double bytes;
    } units[] = {{"B", 1.0},          {"KiB", 1024.0},          {"KB", 1024.0},
                 {"MiB", 1048576.0},  {"MB", 1048576.0},        {"GiB", 1073741824.0},
                 {"GB", 1073741824.0}, {"TiB", 1099511627776.0}};
    double scale = ulen == 0 ? dflt : 0;
    for (size_t k = 0; scale == 0 && k < sizeof(units) / sizeof(units[0]); k++) {
        if (strlen(units[k].name) == ulen && strncasecmp(units[k].name, unit, ulen) == 0) {
            scale = units[k].bytes;
        }
    }
    double b = v * scale;
    if (scale <= 0 || !(b >= 0) || b >= (double)LOAD_MAX_AMOUNT) {
        return LOAD_NULL;
    }
    return (int64_t)llround(b);
}
