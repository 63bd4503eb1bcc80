/* url.c - percent-encoding, absolute-URL splitting and redirect resolution
 * (see url.h).  Pure functions over caller buffers; it does not normalise
 * dot segments beyond what a Location resolution needs and never touches
 * sockets or Lua. */
#include "proto/url.h"

#include <string.h>

static int url_unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

size_t url_encode(char *out, size_t cap, const char *s, size_t len, int form) {
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (url_unreserved(c) || (form && c == ' ')) {
            if (n < cap) out[n] = c == ' ' ? '+' : (char)c;
            n++;
        } else {
            if (n + 3 <= cap) {
                out[n] = '%';
                out[n + 1] = hex[c >> 4];
                out[n + 2] = hex[c & 15];
            }
            n += 3;
        }
    }
    return n;
}

static int url_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t url_decode(char *out, const char *s, size_t len, int form) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%') {
            if (i + 2 >= len) return (size_t)-1;
            int h = url_hex(s[i + 1]), l = url_hex(s[i + 2]);
            if (h < 0 || l < 0) return (size_t)-1;
            out[n++] = (char)(h * 16 + l);
            i += 2;
        } else {
            out[n++] = form && s[i] == '+' ? ' ' : s[i];
        }
    }
    return n;
}

static int url_prefix(const char *s, size_t len, const char *p) {
    size_t pl = strlen(p);
    if (len < pl) return 0;
    for (size_t i = 0; i < pl; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c += 32;
        if (c != p[i]) return 0;
    }
    return 1;
}

int url_is_abs(const char *s, size_t len) {
    return url_prefix(s, len, "http://") || url_prefix(s, len, "https://");
}

size_t url_scheme_len(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (c == ':') return i;
        if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) return 0;
    }
    return 0;
}

int url_split_abs(const char *s, size_t len, url_abs *out) {
    if (!url_is_abs(s, len)) return -1;
    size_t sl = s[4] == ':' ? 4 : 5;
    out->scheme = s;
    out->scheme_len = sl;
    const char *a = s + sl + 3, *end = s + len;
    const char *e = a;
    while (e < end && *e != '/' && *e != '?' && *e != '#') e++;
    if (e == a || memchr(a, '@', (size_t)(e - a))) return -1;
    out->authority = a;
    out->authority_len = (size_t)(e - a);
    if (e == end || *e != '/') {
        out->rest = "/";
        out->rest_len = 1;
        if (e < end && *e == '?') {      /* "http://h?q": keep the query after a "/" */
            out->rest = e;
            out->rest_len = (size_t)(end - e);
        }
    } else {
        out->rest = e;
        out->rest_len = (size_t)(end - e);
    }
    return 0;
}

static size_t url_put(char *out, size_t cap, size_t n, const char *s, size_t len) {
    if (n == (size_t)-1 || n + len >= cap) return (size_t)-1;
    memcpy(out + n, s, len);
    out[n + len] = 0;
    return n + len;
}

size_t url_resolve(char *out, size_t cap, const char *base_path, size_t base_len,
                   const char *loc, size_t loc_len, const char *scheme) {
    size_t n = 0;
    if (loc_len == 0 || cap == 0) return (size_t)-1;
    size_t fl = 0;                     /* drop a fragment */
    while (fl < loc_len && loc[fl] != '#') fl++;
    loc_len = fl;
    if (loc_len == 0) return (size_t)-1;
    if (url_is_abs(loc, loc_len)) return url_put(out, cap, 0, loc, loc_len);
    if (loc_len >= 2 && loc[0] == '/' && loc[1] == '/') {
        n = url_put(out, cap, 0, scheme, strlen(scheme));
        n = url_put(out, cap, n, ":", 1);
        return url_put(out, cap, n, loc, loc_len);
    }
    if (loc[0] == '/') return url_put(out, cap, 0, loc, loc_len);
    size_t bq = 0;                     /* the base without its query */
    while (bq < base_len && base_path[bq] != '?') bq++;
    if (loc[0] == '?') {
        n = url_put(out, cap, 0, base_path, bq);
        return url_put(out, cap, n, loc, loc_len);
    }
    size_t dir = bq;                   /* up to and including the last '/' */
    while (dir > 0 && base_path[dir - 1] != '/') dir--;
    if (dir == 0) n = url_put(out, cap, 0, "/", 1);
    else n = url_put(out, cap, 0, base_path, dir);
    while (n != (size_t)-1) {          /* "./" and "../" at the start */
        if (loc_len >= 2 && memcmp(loc, "./", 2) == 0) {
            loc += 2;
            loc_len -= 2;
        } else if (loc_len >= 3 && memcmp(loc, "../", 3) == 0) {
            loc += 3;
            loc_len -= 3;
            if (n > 1) {
                n--;
                while (n > 0 && out[n - 1] != '/') n--;
                out[n] = 0;
            }
        } else {
            break;
        }
    }
    return url_put(out, cap, n, loc, loc_len);
}
