/* units.c - parse "30s"/"5m"/"10k" style values (decimal numbers only: no
 * hex, inf or nan) and format durations.  No I/O, no allocation. */
#include "common/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the decimal number at s: digits with an optional fraction and
 * exponent ("30", "2.5", ".5", "1e3"); 0 when there is none.  strtod alone
 * would also take hex ("0x10": 16), "inf", "nan" and leading blanks or signs. */
static size_t units_decimal_len(const char *s) {
    size_t i = 0, digits = 0;
    while (s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (s[i] == '.') {
        i++;
        while (s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (digits == 0) return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-') j++;
        if (s[j] >= '0' && s[j] <= '9') {
            while (s[j] >= '0' && s[j] <= '9') j++;
            i = j;
        }
    }
    return i;
}

static int units_parse_scaled(const char *s, double *num, const char **suffix) {
    char *end;
    if (!s || !*s) return -1;
    size_t len = units_decimal_len(s);
    if (len == 0) return -1;
    errno = 0;
    *num = strtod(s, &end);
    if (end != s + len || errno != 0 || !isfinite(*num) || *num < 0) return -1;
    *suffix = end;
    return 0;
}

int units_parse_duration_ns(const char *s, int64_t *ns) {
    static const struct { const char *suffix; double ns; } units[] = {
        {"", 1e9}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
    };
    double num;
    const char *suffix;
    if (units_parse_scaled(s, &num, &suffix) != 0) return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(suffix, units[i].suffix) == 0) {
            double v = num * units[i].ns;
            if (v > 9.0e18 || (v > 0 && v < 1000)) return -1;   /* below the 1 us resolution */
            *ns = (int64_t)llround(v);
            return 0;
        }
    }
    return -1;
}

int units_parse_count(const char *s, int64_t *out) {
    double num, scale;
    const char *suffix;
    if (units_parse_scaled(s, &num, &suffix) != 0) return -1;
    if (strcmp(suffix, "") == 0) scale = 1;
    else if (strcmp(suffix, "k") == 0 || strcmp(suffix, "K") == 0) scale = 1e3;
    else if (strcmp(suffix, "M") == 0) scale = 1e6;
    else return -1;
    double v = num * scale;
    if (v > 9.0e18 || v != floor(v)) return -1;
    *out = (int64_t)v;
    return 0;
}

char *units_format_duration(int64_t ns, char *buf, size_t len) {
    int64_t s = ns / 1000000000;
    if (ns < 0) ns = 0, s = 0;
    if (s >= 3600) snprintf(buf, len, "%lldh%02lldm%02llds", (long long)(s / 3600),
                            (long long)(s / 60 % 60), (long long)(s % 60));
    else if (s >= 60) snprintf(buf, len, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
    else snprintf(buf, len, "%.3gs", (double)ns / 1e9);
    return buf;
}
