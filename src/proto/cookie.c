/* cookie.c - RFC 6265 Set-Cookie parsing, date parsing (5.1.1), domain and
 * path matching, the jar's storage model (5.3) and the Cookie header (5.4).
 * See cookie.h.  It never touches sockets or Lua. */
#include "proto/cookie.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int ck_ws(char c) { return c == ' ' || c == '\t'; }

static void ck_trim(const char **s, size_t *len) {
    while (*len && ck_ws(**s)) (*s)++, (*len)--;
    while (*len && ck_ws((*s)[*len - 1])) (*len)--;
}

/* ---- dates (5.1.1) ---- */

static int ck_delim(unsigned char c) {
    return c == 0x09 || (c >= 0x20 && c <= 0x2F) || (c >= 0x3B && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
}

static int ck_digit(char c) { return c >= '0' && c <= '9'; }

/* 1..max digits then anything non-digit; returns the number of digits read */
static size_t ck_digits(const char *s, size_t len, size_t min, size_t max, int *val) {
    size_t i = 0;
    *val = 0;
    while (i < len && i < max && ck_digit(s[i])) *val = *val * 10 + (s[i++] - '0');
    if (i < min || (i < len && ck_digit(s[i]))) return 0;
    return i;
}

static int64_t ck_days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int ck_parse_date(const char *s, size_t len, int64_t *out) {
    static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
    int have_time = 0, have_day = 0, have_month = 0, have_year = 0;
    int hh = 0, mi = 0, ss = 0, day = 0, month = 0, year = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && ck_delim((unsigned char)s[i])) i++;
        size_t st = i;
        while (i < len && !ck_delim((unsigned char)s[i])) i++;
        const char *t = s + st;
        size_t tl = i - st;
        if (tl == 0) continue;
        int a, b, c;
        size_t n1, n2, n3;
        if (!have_time && (n1 = ck_digits(t, tl, 1, 2, &a)) && n1 < tl && t[n1] == ':' &&
            (n2 = ck_digits(t + n1 + 1, tl - n1 - 1, 1, 2, &b)) && n1 + 1 + n2 < tl && t[n1 + 1 + n2] == ':' &&
            (n3 = ck_digits(t + n1 + n2 + 2, tl - n1 - n2 - 2, 1, 2, &c))) {
            have_time = 1;
            hh = a, mi = b, ss = c;
            continue;
        }
        if (!have_day && ck_digits(t, tl, 1, 2, &a)) {
            have_day = 1;
            day = a;
            continue;
        }
        if (!have_month && tl >= 3) {
            int found = 0;
            for (int m = 0; m < 12 && !found; m++)
                if (strncasecmp(t, months + 3 * m, 3) == 0) found = m + 1;
            if (found) {
                have_month = 1;
                month = found;
                continue;
            }
        }
        if (!have_year && ck_digits(t, tl, 2, 4, &a)) {
            have_year = 1;
            year = a;
            continue;
        }
    }
    if (have_year && year >= 70 && year <= 99) year += 1900;
    else if (have_year && year >= 0 && year <= 69) year += 2000;
    if (!have_time || !have_day || !have_month || !have_year) return -1;
    if (day < 1 || day > 31 || year < 1601 || hh > 23 || mi > 59 || ss > 59) return -1;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (day > mdays[month - 1]) return -1;   /* "Feb 30" is not a date */
    *out = ck_days_from_civil(year, (unsigned)month, (unsigned)day) * 86400 + hh * 3600 + mi * 60 + ss;
    return 0;
}

/* ---- Set-Cookie (5.2) ---- */

int ck_parse(const char *s, size_t len, ck_set *o) {
    memset(o, 0, sizeof o[0]);
    if (len > CK_MAX_SIZE) return -1;
    size_t semi = 0;
    while (semi < len && s[semi] != ';') semi++;
    const char *eq = memchr(s, '=', semi);
    if (!eq) return -1;
    o->name = s;
    o->name_len = (size_t)(eq - s);
    ck_trim(&o->name, &o->name_len);
    o->value = eq + 1;
    o->value_len = (size_t)(s + semi - eq - 1);
    ck_trim(&o->value, &o->value_len);
    if (o->name_len == 0) return -1;
    size_t i = semi;
    while (i < len) {
        i++;                                   /* past ';' */
        size_t st = i;
        while (i < len && s[i] != ';') i++;
        const char *a = s + st, *v = NULL;
        size_t al = i - st, vl = 0;
        const char *e = memchr(a, '=', al);
        if (e) {
            v = e + 1;
            vl = (size_t)(a + al - v);
            al = (size_t)(e - a);
            ck_trim(&v, &vl);
        }
        ck_trim(&a, &al);
        if (al == 7 && strncasecmp(a, "expires", 7) == 0) {
            int64_t t;
            if (v && ck_parse_date(v, vl, &t) == 0) {
                o->has_expires = 1;
                o->expires_s = t;
            }
        } else if (al == 7 && strncasecmp(a, "max-age", 7) == 0) {
            size_t k = v && vl && (v[0] == '-' || ck_digit(v[0])) ? 1 : 0;
            while (k && k < vl && ck_digit(v[k])) k++;
            if (k && k == vl && !(vl == 1 && v[0] == '-')) {
                int64_t n = 0;
                int neg = v[0] == '-';
                for (size_t d = neg; d < vl; d++) n = n < 100000000000LL ? n * 10 + (v[d] - '0') : n;
                o->has_max_age = 1;
                o->max_age_s = neg ? -n : n;
            }
        } else if (al == 6 && strncasecmp(a, "domain", 6) == 0) {
            if (v && vl) {
                if (v[0] == '.') v++, vl--;
                o->domain = v;
                o->domain_len = vl;
            }
        } else if (al == 4 && strncasecmp(a, "path", 4) == 0) {
            o->path = v;                       /* empty or relative: the default path (5.2.4) */
            o->path_len = v && vl && v[0] == '/' ? vl : 0;
            if (!o->path_len) o->path = NULL;
        } else if (al == 6 && strncasecmp(a, "secure", 6) == 0) {
            o->secure = 1;
        } else if (al == 8 && strncasecmp(a, "httponly", 8) == 0) {
            o->http_only = 1;
        }
    }
    return 0;
}

/* ---- matching (5.1.3, 5.1.4) ---- */

static int ck_is_ip(const char *h, size_t len) {
    if (memchr(h, ':', len)) return 1;         /* IPv6 */
    for (size_t i = 0; i < len; i++)
        if (!ck_digit(h[i]) && h[i] != '.') return 0;
    return len > 0;
}

int ck_domain_match(const char *host, size_t hl, const char *dom, size_t dl) {
    if (hl == dl) return strncasecmp(host, dom, hl) == 0;
    if (dl == 0 || hl < dl + 1 || ck_is_ip(host, hl)) return 0;
    return strncasecmp(host + hl - dl, dom, dl) == 0 && host[hl - dl - 1] == '.';
}

int ck_path_match(const char *rp, size_t rl, const char *cp, size_t cl) {
    if (cl > rl || memcmp(rp, cp, cl) != 0) return 0;
    return cl == rl || cp[cl - 1] == '/' || rp[cl] == '/';
}

/* 5.1.4's default-path of a request path */
static size_t ck_default_path(const char *p, size_t len) {
    if (len == 0 || p[0] != '/') return 0;
    size_t last = 0;
    for (size_t i = 0; i < len; i++)
        if (p[i] == '/') last = i;
    return last;                               /* 0 means "/" */
}

/* ---- the jar (5.3, 5.4) ---- */

void ck_jar_init(ck_jar *j) { memset(j, 0, sizeof *j); }

void ck_jar_free(ck_jar *j) {
    for (size_t i = 0; i < j->n; i++) free(j->v[i].name);
    free(j->v);
    memset(j, 0, sizeof *j);
}

static void ck_remove(ck_jar *j, size_t i) {
    free(j->v[i].name);
    j->v[i] = j->v[--j->n];
}

/* The oldest cookie of domain (NULL: of the jar): its index, or j->n. */
static size_t ck_oldest(const ck_jar *j, const char *domain) {
    size_t o = j->n;
    for (size_t i = 0; i < j->n; i++)
        if ((!domain || strcmp(j->v[i].domain, domain) == 0) && (o == j->n || j->v[i].created < j->v[o].created))
            o = i;
    return o;
}

/* Room for one more cookie of domain: expired cookies go first, then the
 * domain's oldest when it has CK_MAX_PER_DOMAIN, else the jar's oldest
 * when it has CK_MAX_COOKIES (each eviction counted in j->dropped). */
static void ck_make_room(ck_jar *j, const char *domain, int64_t now_s) {
    size_t in_domain = 0;
    for (size_t i = 0; i < j->n; i++) in_domain += strcmp(j->v[i].domain, domain) == 0;
    if (in_domain < CK_MAX_PER_DOMAIN && j->n < CK_MAX_COOKIES) return;
    for (size_t i = 0; i < j->n; i++)
        if (j->v[i].expires_s <= now_s) {
            in_domain -= strcmp(j->v[i].domain, domain) == 0;
            ck_remove(j, i--);
        }
    size_t o = in_domain >= CK_MAX_PER_DOMAIN ? ck_oldest(j, domain) : j->n >= CK_MAX_COOKIES ? ck_oldest(j, NULL) : j->n;
    if (o < j->n) {
        ck_remove(j, o);
        j->dropped++;
    }
}

static void ck_lower(char *dst, const char *s, size_t len) {
    for (size_t i = 0; i < len; i++) dst[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    dst[len] = 0;
}

int ck_jar_set(ck_jar *j, const char *sc, size_t sc_len, const char *host, const char *rp, size_t rl,
               int64_t now_s) {
    ck_set s;
    if (sc_len > CK_MAX_SIZE) {
        j->dropped++;
        return 0;
    }
    if (ck_parse(sc, sc_len, &s) != 0) return 0;
    size_t hl = strlen(host);
    for (size_t q = 0; q < rl; q++)
        if (rp[q] == '?' || rp[q] == '#') rl = q;
    ck_cookie c;
    memset(&c, 0, sizeof c);
    if (s.domain && s.domain_len) {
        if (s.domain_len >= sizeof c.domain || !ck_domain_match(host, hl, s.domain, s.domain_len)) return 0;
        ck_lower(c.domain, s.domain, s.domain_len);
    } else {
        if (hl >= sizeof c.domain) return 0;
        ck_lower(c.domain, host, hl);
        c.host_only = 1;
    }
    if (s.path) {
        if (s.path_len >= sizeof c.path) return 0;
        memcpy(c.path, s.path, s.path_len);
    } else {
        size_t dp = ck_default_path(rp, rl);
        if (dp == 0) c.path[0] = '/';
        else if (dp < sizeof c.path) memcpy(c.path, rp, dp);
        else return 0;
    }
    c.expires_s = INT64_MAX;
    if (s.has_max_age) c.expires_s = s.max_age_s <= 0 ? INT64_MIN : now_s + s.max_age_s;
    else if (s.has_expires) c.expires_s = s.expires_s;
    c.secure = s.secure;
    c.http_only = s.http_only;
    size_t old = j->n;
    for (size_t i = 0; i < j->n; i++) {
        ck_cookie *o = &j->v[i];
        if (o->name_len == s.name_len && memcmp(o->name, s.name, s.name_len) == 0 &&
            strcmp(o->domain, c.domain) == 0 && strcmp(o->path, c.path) == 0) {
            old = i;
            break;
        }
    }
    if (c.expires_s <= now_s) {                /* expired: a deletion */
        if (old < j->n) ck_remove(j, old);
        return 0;
    }
    char *nv = malloc(s.name_len + s.value_len + 2);
    if (!nv) return -1;
    memcpy(nv, s.name, s.name_len);
    nv[s.name_len] = 0;
    memcpy(nv + s.name_len + 1, s.value, s.value_len);
    nv[s.name_len + 1 + s.value_len] = 0;
    c.name = nv;
    c.value = nv + s.name_len + 1;
    c.name_len = s.name_len;
    c.value_len = s.value_len;
    if (old < j->n) {                          /* replacement keeps the creation time */
        c.created = j->v[old].created;
        free(j->v[old].name);
        j->v[old] = c;
        return 1;
    }
    ck_make_room(j, c.domain, now_s);
    if (j->n == j->cap) {
        size_t cap = j->cap ? j->cap * 2 : 8;
        ck_cookie *v = realloc(j->v, cap * sizeof *v);
        if (!v) {
            free(nv);
            return -1;
        }
        j->v = v;
        j->cap = cap;
    }
    c.created = ++j->seq;
    j->v[j->n++] = c;
    return 1;
}

size_t ck_jar_header(ck_jar *j, const char *host, const char *rp, size_t rl, int secure, int64_t now_s,
                     char *out, size_t cap) {
    size_t hl = strlen(host), n = 0;
    for (size_t q = 0; q < rl; q++)
        if (rp[q] == '?' || rp[q] == '#') rl = q;
    for (size_t i = 0; i < j->n; i++)
        if (j->v[i].expires_s <= now_s) ck_remove(j, i--);
    /* selection in order: longer paths first, then older first (a few
     * cookies: repeated scans, no sorting buffer) */
    uint64_t last_created = 0;
    size_t last_plen = SIZE_MAX;
    for (;;) {
        ck_cookie *best = NULL;
        size_t best_plen = 0;
        for (size_t i = 0; i < j->n; i++) {
            ck_cookie *c = &j->v[i];
            size_t pl = strlen(c->path);
            /* after (last_plen, last_created) in the order */
            if (pl > last_plen || (pl == last_plen && c->created <= last_created)) continue;
            if (c->secure && !secure) continue;
            size_t dl = strlen(c->domain);
            if (c->host_only ? !(dl == hl && strncasecmp(host, c->domain, hl) == 0)
                             : !ck_domain_match(host, hl, c->domain, dl))
                continue;
            if (!ck_path_match(rp, rl, c->path, pl)) continue;
            if (!best || pl > best_plen || (pl == best_plen && c->created < best->created)) {
                best = c;
                best_plen = pl;
            }
        }
        if (!best) break;
        size_t need = (n ? 2 : 0) + best->name_len + 1 + best->value_len;
        if (n + need <= cap) {
            char *p = out + n;
            if (n) *p++ = ';', *p++ = ' ';
            memcpy(p, best->name, best->name_len);
            p[best->name_len] = '=';
            memcpy(p + best->name_len + 1, best->value, best->value_len);
        }
        n += need;
        last_plen = best_plen;
        last_created = best->created;
    }
    return n;
}
