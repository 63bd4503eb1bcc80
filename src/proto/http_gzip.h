/* http_gzip.h - decoding of gzip and deflate response bodies with zlib
 * (Content-Encoding), pure code: no sockets, no Lua.  One decoder is kept
 * and reset between bodies (no allocation per body once the output buffer
 * has grown). */
#ifndef LUAMECH_HTTP_GZIP_H
#define LUAMECH_HTTP_GZIP_H

#include <stddef.h>
#include <zlib.h>

typedef struct hz_decoder {
    z_stream zs;
    int ready;          /* inflateInit2 done */
    char *out;          /* the decoded body (not NUL-terminated) */
    size_t out_len, out_cap;
} hz_decoder;

enum { HZ_OK = 0, HZ_ERROR = -1, HZ_TOO_BIG = -2, HZ_NOMEM = -3 };

void hz_init(hz_decoder *d);
void hz_free(hz_decoder *d);

/* The coding named by a Content-Encoding value: 1 gzip (or x-gzip),
 * 2 deflate, 0 identity or absent, -1 anything else (left as it is). */
int hz_coding(const char *value, size_t len);

/* Decode in[0..len) (gzip, or deflate: zlib-wrapped or raw) into d->out.
 * HZ_OK with d->out_len set; HZ_TOO_BIG as soon as the output would pass
 * max (0 = no limit): a bomb never grows the buffer past max; HZ_ERROR
 * (corrupt or truncated data; *why says so) or HZ_NOMEM. */
int hz_decode(hz_decoder *d, int coding, const char *in, size_t len, size_t max, const char **why);

#endif
