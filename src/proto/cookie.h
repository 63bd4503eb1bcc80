/* cookie.h - RFC 6265 cookies, pure code: parsing Set-Cookie (with the
 * RFC's date algorithm), a jar with the storage model (domain, host-only,
 * path, expiry, secure; replacement and deletion) and the Cookie header for
 * a request.  No sockets, no Lua; the jar allocates only when a server
 * sets a cookie.  Not done: the public suffix list (a Domain attribute
 * naming a public suffix is accepted if the host domain-matches it). */
#ifndef LUAMECH_COOKIE_H
#define LUAMECH_COOKIE_H

#include <stddef.h>
#include <stdint.h>

#define CK_MAX_COOKIES 3000       /* per jar (RFC 6265 6.1's minimum) */
#define CK_MAX_PER_DOMAIN 50      /* per domain (RFC 6265 6.1's minimum): at most about
                                   * 50 x 4 KB of a jar per domain */
#define CK_MAX_SIZE 4096          /* name + value + attributes of one Set-Cookie (RFC 6265 6.1) */

typedef struct ck_cookie {
    char *name, *value;           /* one allocation: name\0value\0 */
    size_t name_len, value_len;
    char domain[256];             /* lowercase, no leading dot */
    char path[256];
    int64_t expires_s;            /* Unix seconds; INT64_MAX: a session cookie */
    uint64_t created;             /* order of creation (for the header's order) */
    int host_only, secure, http_only;
} ck_cookie;

typedef struct ck_jar {
    ck_cookie *v;
    size_t n, cap;
    uint64_t seq;
    uint64_t dropped;             /* cookies lost to the limits: evicted, or over CK_MAX_SIZE */
} ck_jar;

/* A parsed Set-Cookie value: pointers into the input. */
typedef struct ck_set {
    const char *name, *value, *domain, *path;
    size_t name_len, value_len, domain_len, path_len;
    int has_expires, has_max_age, secure, http_only;
    int64_t expires_s;            /* from Expires */
    int64_t max_age_s;            /* from Max-Age */
} ck_set;

/* 0, or -1 when the value is not a cookie (no '=', an empty name, too long). */
int ck_parse(const char *s, size_t len, ck_set *out);
/* RFC 6265 5.1.1: 0 with *out (Unix seconds), or -1. */
int ck_parse_date(const char *s, size_t len, int64_t *out);
/* RFC 6265 5.1.3 and 5.1.4. */
int ck_domain_match(const char *host, size_t host_len, const char *domain, size_t domain_len);
int ck_path_match(const char *req_path, size_t req_len, const char *cookie_path, size_t cookie_len);

void ck_jar_init(ck_jar *j);
void ck_jar_free(ck_jar *j);
/* Store (or replace, or delete) the cookie of one Set-Cookie value received
 * from host for request path (its query is ignored).  Returns 1 stored, 0
 * ignored or deleted, -1 out of memory.  A new cookie past the limits
 * evicts the oldest of its domain (CK_MAX_PER_DOMAIN) or of the jar
 * (CK_MAX_COOKIES), expired ones first; evictions and Set-Cookie values
 * over CK_MAX_SIZE count in j->dropped. */
int ck_jar_set(ck_jar *j, const char *sc, size_t sc_len, const char *host, const char *req_path,
               size_t req_path_len, int64_t now_s);
/* The Cookie header value for a request ("a=1; b=2": longer paths first,
 * then older first) into out[0..cap).  Returns the length it needs (0: no
 * cookie); when > cap nothing useful was written.  Expired cookies are
 * dropped from the jar on the way. */
size_t ck_jar_header(ck_jar *j, const char *host, const char *req_path, size_t req_path_len, int secure,
                     int64_t now_s, char *out, size_t cap);

#endif
