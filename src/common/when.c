/* when.c - parses and prints the wall-clock instants of --start-at
 * (RFC 3339 with a zone, or "+DUR" from now) and refuses an instant more
 * than WHEN_MAX_AHEAD_NS after now or before 1970 (ranges are checked in
 * seconds before any product in ns: no overflow).  Pure: the caller reads
 * the clock; nothing here waits or schedules. */
#include "common/when.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/units.h"

static int when_digits(const char *p, int n, int *out) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

/* "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)" -> seconds since the epoch
 * and the fraction in ns (not yet combined: the caller checks the range). */
static int when_rfc3339(const char *s, int64_t *at_s, int64_t *frac) {
    int Y, M, D, h, m, sec, oh = 0, om = 0;
    if (strlen(s) < 20 || when_digits(s, 4, &Y) || s[4] != '-' || when_digits(s + 5, 2, &M) || s[7] != '-' ||
        when_digits(s + 8, 2, &D) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        when_digits(s + 11, 2, &h) || s[13] != ':' || when_digits(s + 14, 2, &m) || s[16] != ':' ||
        when_digits(s + 17, 2, &sec))
        return -1;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60) return -1;
    const char *p = s + 19;
    int64_t frac_ns = 0, scale = 100000000;
    if (*p == '.') {
        if (p[1] < '0' || p[1] > '9') return -1;
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10) frac_ns += scale * (*p - '0');
    }
    int sign = 0;
    if ((*p == 'Z' || *p == 'z') && p[1] == 0) sign = 0;
    else if ((*p == '+' || *p == '-') && strlen(p) == 6 && !when_digits(p + 1, 2, &oh) && p[3] == ':' &&
             !when_digits(p + 4, 2, &om) && oh <= 23 && om <= 59)
        sign = *p == '+' ? 1 : -1;
    else return -1;
    struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec};
    time_t t = timegm(&tm);
    if (tm.tm_mday != D) return -1;                 /* 2026-02-31 */
    *at_s = (int64_t)t - sign * (oh * 3600 + om * 60);
    *frac = frac_ns;
    return 0;
}

/* 0 when at_s (+ frac_ns) is between 1970 and now + WHEN_MAX_AHEAD_NS, then
 * *at_ns is set; else -1 and why. */
static int when_in_range(const char *arg, int64_t at_s, int64_t frac_ns, int64_t now_ns, int64_t *at_ns,
                         char *why, size_t len) {
    int64_t max_ns = now_ns + WHEN_MAX_AHEAD_NS;
    if (at_s > max_ns / 1000000000LL || (at_s == max_ns / 1000000000LL && frac_ns > max_ns % 1000000000LL)) {
        char buf[64];
        snprintf(why, len, "'%s' is too far in the future (at most %d days ahead: %s)", arg,
                 (int)(WHEN_MAX_AHEAD_NS / 86400000000000LL), when_format(max_ns, buf, sizeof buf));
        return -1;
    }
    if (at_s < 0) {
        snprintf(why, len, "'%s' is before 1970: give a later time", arg);
        return -1;
    }
    *at_ns = at_s * 1000000000LL + frac_ns;
    return 0;
}

int when_parse_ns(const char *arg, int64_t now_ns, int64_t *at_ns, char *why, size_t len) {
    int64_t d, at_s, frac;
    if (arg[0] == '+' && units_parse_duration_ns(arg + 1, &d) == 0 && d > 0)
        return when_in_range(arg, (now_ns + d % 1000000000LL) / 1000000000LL + d / 1000000000LL,
                             (now_ns + d % 1000000000LL) % 1000000000LL, now_ns, at_ns, why, len);
    if (arg[0] != '+' && when_rfc3339(arg, &at_s, &frac) == 0)
        return when_in_range(arg, at_s, frac, now_ns, at_ns, why, len);
    snprintf(why, len, "expected an RFC 3339 time with a zone such as 2026-12-02T10:00:00Z, "
                       "or a delay such as +30s; got '%s'", arg);
    return -1;
}

char *when_format(int64_t at_ns, char *buf, size_t len) {
    time_t t = (time_t)(at_ns / 1000000000LL);
    struct tm tm;
    char s[32];
    gmtime_r(&t, &tm);
    strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03dZ", s, (int)(at_ns % 1000000000LL / 1000000));
    return buf;
}
