/* http_gzip.c - gzip/deflate body decoding over zlib (see http_gzip.h).  It
 * decodes a whole body that the parser has already collected (every member
 * of a gzip body, RFC 1952 2.2); it does not
 * stream, parse HTTP or touch sockets. */
#include "proto/http_gzip.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HZ_OUT_INIT (64 * 1024)

void hz_init(hz_decoder *d) { memset(d, 0, sizeof *d); }

void hz_free(hz_decoder *d) {
    if (d->ready) inflateEnd(&d->zs);
    free(d->out);
    memset(d, 0, sizeof *d);
}

int hz_coding(const char *v, size_t len) {
    while (len && (*v == ' ' || *v == '\t')) v++, len--;
    while (len && (v[len - 1] == ' ' || v[len - 1] == '\t')) len--;
    if (len == 0 || (len == 8 && strncasecmp(v, "identity", 8) == 0)) return 0;
    if ((len == 4 && strncasecmp(v, "gzip", 4) == 0) || (len == 6 && strncasecmp(v, "x-gzip", 6) == 0)) return 1;
    if (len == 7 && strncasecmp(v, "deflate", 7) == 0) return 2;
    return -1;
}

/* (Re)start the stream for window bits wb: zlib's state is made once and
 * reset afterwards. */
static int hz_start(hz_decoder *d, int wb) {
    if (d->ready) return inflateReset2(&d->zs, wb) == Z_OK ? HZ_OK : HZ_ERROR;
    memset(&d->zs, 0, sizeof d->zs);
    d->ready = inflateInit2(&d->zs, wb) == Z_OK;
    return d->ready ? HZ_OK : HZ_NOMEM;
}

/* The end of a stream: 1 when the body is done, 0 when another gzip member
 * follows (multi: RFC 1952 allows several, "cat a.gz b.gz"; zlib's state
 * is reset for it, the output continues).  Trailing NUL bytes (padding)
 * end the body. */
static int hz_stream_end(hz_decoder *d, int multi) {
    while (d->zs.avail_in && *d->zs.next_in == 0) d->zs.next_in++, d->zs.avail_in--;
    if (!multi || d->zs.avail_in == 0) return 1;
    return inflateReset(&d->zs) == Z_OK ? 0 : 1;
}

static int hz_run(hz_decoder *d, const char *in, size_t len, size_t max, int multi, const char **why) {
    d->out_len = 0;
    d->zs.next_in = (Bytef *)(uintptr_t)in;
    d->zs.avail_in = (uInt)len;
    for (;;) {
        size_t cap_now = max && max < d->out_cap ? max : d->out_cap;   /* the buffer is kept: may be larger */
        if (d->out_len == cap_now && max && cap_now >= max) {
            /* full at the limit: only the stream's end (trailer) may follow */
            unsigned char probe;
            d->zs.next_out = &probe;
            d->zs.avail_out = 1;
            int rc = inflate(&d->zs, Z_NO_FLUSH);
            if (d->zs.avail_out == 0) return HZ_TOO_BIG;
            if (rc == Z_STREAM_END) {
                if (hz_stream_end(d, multi)) return HZ_OK;
                continue;
            }
            *why = rc == Z_OK || rc == Z_BUF_ERROR ? "truncated compressed body"
                                                   : d->zs.msg ? d->zs.msg : "corrupt compressed body";
            return HZ_ERROR;
        }
        if (d->out_len == d->out_cap) {
            size_t cap = d->out_cap ? d->out_cap * 2 : HZ_OUT_INIT;
            if (max && cap > max) cap = max;
            char *p = realloc(d->out, cap);
            if (!p) return HZ_NOMEM;
            d->out = p;
            d->out_cap = cap;
        }
        cap_now = max && max < d->out_cap ? max : d->out_cap;
        size_t room = cap_now - d->out_len;
        if (room > UINT32_MAX) room = UINT32_MAX;
        d->zs.next_out = (Bytef *)d->out + d->out_len;
        d->zs.avail_out = (uInt)room;
        int rc = inflate(&d->zs, Z_NO_FLUSH);
        d->out_len += room - d->zs.avail_out;
        if (rc == Z_STREAM_END) {
            if (hz_stream_end(d, multi)) return HZ_OK;
            continue;
        }
        if (rc == Z_BUF_ERROR && d->zs.avail_in == 0) {
            *why = "truncated compressed body";
            return HZ_ERROR;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            *why = d->zs.msg ? d->zs.msg : "corrupt compressed body";
            return HZ_ERROR;
        }
        if (d->zs.avail_out != 0 && d->zs.avail_in == 0) {
            *why = "truncated compressed body";
            return HZ_ERROR;
        }
    }
}

int hz_decode(hz_decoder *d, int coding, const char *in, size_t len, size_t max, const char **why) {
    *why = NULL;
    if (len > UINT32_MAX) {
        *why = "compressed body over 4 GiB";
        return HZ_ERROR;
    }
    /* gzip: 16+15; deflate: zlib-wrapped (15), or raw deflate (-15) as some servers send */
    int rc = hz_start(d, coding == 1 ? 16 + MAX_WBITS : MAX_WBITS);
    if (rc != HZ_OK) return rc;
    rc = hz_run(d, in, len, max, coding == 1, why);
    if (rc == HZ_ERROR && coding == 2 && d->zs.total_out == 0) {
        if (hz_start(d, -MAX_WBITS) != HZ_OK) return HZ_NOMEM;
        rc = hz_run(d, in, len, max, 0, why);
    }
    return rc;
}
