/* grpc_frame.c - the gRPC message prefix, an incremental message reader,
 * grpc-timeout, grpc-status, grpc-message and -bin values in base64 (see
 * grpc_frame.h); gzip
 * messages compressed here and decoded through http_gzip.c under the
 * receive limit.  It does not touch sockets, HTTP/2 streams or protobuf, and
 * decides nothing about which encoding a call uses (the client does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/grpc_frame.h"

void grpc_frame_prefix(uint8_t out[GRPC_PREFIX], uint32_t len) {
    out[0] = 0;
    out[1] = (uint8_t)(len >> 24);
    out[2] = (uint8_t)(len >> 16);
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
}

void grpc_frame_prefix_compressed(uint8_t out[GRPC_PREFIX], uint32_t len) {
    grpc_frame_prefix(out, len);
    out[0] = 1;
}

size_t grpc_gzip_bound(size_t len) { return GRPC_PREFIX + compressBound((uLong)len) + 18; }

int grpc_gzip_frame(grpc_gzip *z, const uint8_t *msg, size_t len, uint8_t *out, size_t *out_len) {
    if (len > UINT32_MAX / 2) return -1;
    if (!z->ready) {
        memset(&z->zs, 0, sizeof z->zs);
        if (deflateInit2(&z->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return -1;
        z->ready = 1;
    } else if (deflateReset(&z->zs) != Z_OK) {
        return -1;
    }
    size_t room = grpc_gzip_bound(len) - GRPC_PREFIX;
    z->zs.next_in = (Bytef *)(uintptr_t)msg;
    z->zs.avail_in = (uInt)len;
    z->zs.next_out = out + GRPC_PREFIX;
    z->zs.avail_out = (uInt)room;
    if (deflate(&z->zs, Z_FINISH) != Z_STREAM_END) return -1;
    size_t n = room - z->zs.avail_out;
    grpc_frame_prefix_compressed(out, (uint32_t)n);
    *out_len = n + GRPC_PREFIX;
    return 0;
}

void grpc_gzip_free(grpc_gzip *z) {
    if (z->ready) deflateEnd(&z->zs);
    memset(z, 0, sizeof *z);
}

static int grpc_header_done(grpc_deframer *d, char *err, size_t err_len) {
    size_t max = d->max ? d->max : GRPC_MAX_RECV_DEFAULT;
    uint32_t len = (uint32_t)d->hdr[1] << 24 | (uint32_t)d->hdr[2] << 16 | (uint32_t)d->hdr[3] << 8 | d->hdr[4];
    if (d->hdr[0] == 1 && d->coding == 0) {
        snprintf(err, err_len, "grpc: a compressed message on a response without grpc-encoding");
        return -1;
    }
    if (d->hdr[0] == 1 && (d->coding < 0 || !d->hz)) {
        snprintf(err, err_len, "grpc: a compressed message in a grpc-encoding luamech cannot decode (gzip, deflate)");
        return -1;
    }
    if (d->hdr[0] > 1) {
        snprintf(err, err_len, "grpc: message flag %u (0 or 1 expected): not a gRPC message", d->hdr[0]);
        return -1;
    }
    if (len > max) {
        snprintf(err, err_len, "grpc: a message of %u bytes, above the receive limit of %zu", len, max);
        return -1;
    }
    d->need = len;
    d->have = 0;
    return 0;
}

static int grpc_gather(grpc_deframer *d, const uint8_t **p, size_t *n, char *err, size_t err_len) {
    if (d->cap < d->need) {
        uint8_t *b = realloc(d->buf, d->need);
        if (!b) {
            snprintf(err, err_len, "grpc: out of memory for a message of %u bytes", d->need);
            return -1;
        }
        d->buf = b;
        d->cap = d->need;
    }
    size_t take = d->need - d->have < *n ? d->need - d->have : *n;
    if (take) memcpy(d->buf + d->have, *p, take);
    d->have += take;
    *p += take;
    *n -= take;
    return 0;
}

/* A whole message in[0..n): handed out as it is, or decoded when its flag
 * says compressed (the decoded size bounded by max: a bomb stops there). */
static int grpc_deliver(grpc_deframer *d, const uint8_t *in, size_t n, const uint8_t **msg, size_t *len, char *err,
                        size_t err_len) {
    d->have_hdr = 0;
    d->have = 0;
    if (d->hdr[0] == 0) {
        *msg = in;
        *len = n;
        return 1;
    }
    size_t max = d->max ? d->max : GRPC_MAX_RECV_DEFAULT;
    const char *why = NULL;
    int rc = hz_decode(d->hz, d->coding, (const char *)in, n, max, &why);
    if (rc == HZ_TOO_BIG) {
        snprintf(err, err_len, "grpc: a compressed message of %zu bytes decompresses past the receive limit of %zu",
                 n, max);
        return -1;
    }
    if (rc != HZ_OK) {
        snprintf(err, err_len, "grpc: a compressed message cannot be decoded: %s",
                 rc == HZ_NOMEM ? "out of memory" : why ? why : "corrupt");
        return -1;
    }
    *msg = (const uint8_t *)d->hz->out;
    *len = d->hz->out_len;
    return 1;
}

int grpc_deframe(grpc_deframer *d, const uint8_t **p, size_t *n, const uint8_t **msg, size_t *len, char *err,
                 size_t err_len) {
    while (d->have_hdr < GRPC_PREFIX) {
        if (*n == 0) return 0;
        d->hdr[d->have_hdr++] = **p;
        (*p)++;
        (*n)--;
        if (d->have_hdr == GRPC_PREFIX && grpc_header_done(d, err, err_len) < 0) return -1;
    }
    if (d->have == 0 && *n >= d->need) {         /* whole in this piece: in place */
        const uint8_t *in = *p;
        *p += d->need;
        *n -= d->need;
        return grpc_deliver(d, in, d->need, msg, len, err, err_len);
    }
    if (grpc_gather(d, p, n, err, err_len) < 0) return -1;
    if (d->have < d->need) return 0;
    return grpc_deliver(d, d->buf, d->need, msg, len, err, err_len);
}

int grpc_deframe_partial(const grpc_deframer *d) { return d->have_hdr > 0; }

void grpc_deframer_free(grpc_deframer *d) {
    free(d->buf);
    memset(d, 0, sizeof(*d));
}

void grpc_timeout_format(char out[16], uint64_t ms) {
    static const struct { char unit; uint64_t ms; } units[] = {{'m', 1}, {'S', 1000}, {'M', 60000}, {'H', 3600000}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        uint64_t v = (ms + units[i].ms - 1) / units[i].ms;
        if (v <= 99999999u) {
            snprintf(out, 16, "%llu%c", (unsigned long long)v, units[i].unit);
            return;
        }
    }
    snprintf(out, 16, "99999999H");
}

int grpc_timeout_parse(const char *s, size_t n, uint64_t *ms) {
    if (n < 2 || n > 9) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    switch (s[n - 1]) {
    case 'H': *ms = v * 3600000; break;
    case 'M': *ms = v * 60000; break;
    case 'S': *ms = v * 1000; break;
    case 'm': *ms = v; break;
    case 'u': *ms = (v + 999) / 1000; break;
    case 'n': *ms = (v + 999999) / 1000000; break;
    default: return -1;
    }
    return 0;
}

int grpc_status_parse(const char *s, size_t n) {
    if (n == 0 || n > 10) return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v > INT32_MAX ? -1 : (int)v;
}

const char *grpc_status_name(int code) {
    static const char *const names[] = {
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
        "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
        "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
    return code >= 0 && code <= 16 ? names[code] : "UNKNOWN";
}

int grpc_status_from_http(int http_status) {
    switch (http_status) {
    case 400: return 13;                /* INTERNAL */
    case 401: return 16;                /* UNAUTHENTICATED */
    case 403: return 7;                 /* PERMISSION_DENIED */
    case 404: return 12;                /* UNIMPLEMENTED */
    case 429: case 502: case 503: case 504: return 14;   /* UNAVAILABLE */
    default: return 2;                  /* UNKNOWN */
    }
}

static int grpc_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t grpc_message_decode(const char *s, size_t n, char *out, size_t cap) {
    size_t o = 0;
    if (cap == 0) return 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        int hi, lo;
        if (s[i] == '%' && i + 2 < n && (hi = grpc_hex(s[i + 1])) >= 0 && (lo = grpc_hex(s[i + 2])) >= 0 &&
            (hi | lo) != 0) {            /* %00 stays as it is: a NUL would end the message's text there */
            out[o++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return o;
}

size_t grpc_base64(const uint8_t *in, size_t n, char *out) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = a[v >> 18];
        out[o++] = a[(v >> 12) & 63];
        out[o++] = a[(v >> 6) & 63];
        out[o++] = a[v & 63];
    }
    if (n - i == 1) {
        out[o++] = a[in[i] >> 2];
        out[o++] = a[(in[i] & 3) << 4];
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 8 | in[i + 1];
        out[o++] = a[v >> 10];
        out[o++] = a[(v >> 4) & 63];
        out[o++] = a[(v & 15) << 2];
    }
    return o;
}
