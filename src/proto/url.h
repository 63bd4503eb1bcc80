/* url.h - percent-encoding (RFC 3986) and absolute-URL splitting, pure code:
 * no sockets, no Lua, no allocation (callers give the output buffers). */
#ifndef LUAMECH_URL_H
#define LUAMECH_URL_H

#include <stddef.h>

/* Percent-encode s[0..len) into out[0..cap): unreserved bytes (A-Z a-z 0-9
 * - . _ ~) stay, every other byte becomes %XX (upper case); with `form`
 * a space becomes '+' (application/x-www-form-urlencoded).  Returns the
 * bytes the result needs (nothing useful written when > cap). */
size_t url_encode(char *out, size_t cap, const char *s, size_t len, int form);

/* Decode %XX (and '+' as a space when `form`) from s[0..len) into out
 * (at least len bytes).  Returns the decoded length, or (size_t)-1 when a
 * '%' is not followed by two hex digits. */
size_t url_decode(char *out, const char *s, size_t len, int form);

/* An absolute URL "scheme://authority/path?query" split in place: scheme
 * and authority (host[:port], no user info) and the rest ("/" when absent).
 * 0, or -1 when s is not an absolute http(s) URL. */
typedef struct url_abs {
    const char *scheme; size_t scheme_len;
    const char *authority; size_t authority_len;
    const char *rest; size_t rest_len;   /* "/..." (may be the literal "/") */
} url_abs;
int url_split_abs(const char *s, size_t len, url_abs *out);

/* 1 when s starts with "http://" or "https://" (any case). */
int url_is_abs(const char *s, size_t len);

/* The length of the scheme s starts with (RFC 3986: a letter, then letters,
 * digits, '+', '-' or '.', then ':' before any '/', '?' or '#'), or 0 when
 * s has none (a relative reference): "file:///x" -> 4, "/a:b" -> 0. */
size_t url_scheme_len(const char *s, size_t len);

/* Resolve a redirect's Location against the current origin-form path
 * (RFC 3986 5.2, for the forms servers send: absolute URL, "//host/...",
 * "/abs", "rel", "?q").  An absolute or scheme-relative location is copied
 * as is (scheme-relative gets "http:" or the scheme given).  Writes into
 * out[0..cap) NUL-terminated; returns the length, or (size_t)-1 when it does
 * not fit or the location is empty. */
size_t url_resolve(char *out, size_t cap, const char *base_path, size_t base_len,
                   const char *loc, size_t loc_len, const char *scheme);

#endif
