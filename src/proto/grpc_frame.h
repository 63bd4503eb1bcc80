/* grpc_frame.h - gRPC over HTTP/2 below the streams: the 5-byte message
 * prefix (compressed flag, big-endian length) both ways, with an incremental
 * reader for messages that arrive in pieces; the grpc-timeout header's
 * value; the status from trailers (grpc-status, grpc-message
 * percent-decoded) and the status codes' names; gzip messages (flag 1)
 * written, and read under the receive limit on the decompressed size
 * (proto/http_gzip.c's zlib decoder).  No sockets, no HTTP/2 (the stream
 * layer carries the bytes), no protobuf (pb.h). */
#ifndef LUAMECH_GRPC_FRAME_H
#define LUAMECH_GRPC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "proto/http_gzip.h"

#define GRPC_PREFIX 5
#define GRPC_MAX_RECV_DEFAULT (4u << 20)     /* gRPC's default receive limit */

/* Writes the prefix of an uncompressed message of len bytes. */
void grpc_frame_prefix(uint8_t out[GRPC_PREFIX], uint32_t len);

/* Writes the prefix of a message of len bytes compressed with the stream's
 * grpc-encoding (flag 1). */
void grpc_frame_prefix_compressed(uint8_t out[GRPC_PREFIX], uint32_t len);

/* gzip request messages: one zlib deflate state, made once and reset per
 * message. */
typedef struct grpc_gzip {
    z_stream zs;
    int ready;
} grpc_gzip;
/* The most bytes (prefix included) that grpc_gzip_frame writes for len bytes. */
size_t grpc_gzip_bound(size_t len);
/* msg[0..len) gzip-compressed with a flag-1 prefix into out (room for
 * grpc_gzip_bound(len)); *out_len the framed size.  0, or -1 (out of memory
 * or a zlib failure). */
int grpc_gzip_frame(grpc_gzip *z, const uint8_t *msg, size_t len, uint8_t *out, size_t *out_len);
void grpc_gzip_free(grpc_gzip *z);

/* Reads messages from a byte stream fed in pieces.  A message that lies whole
 * in one piece is handed out in place; one split across pieces is gathered in
 * buf (grown up to max, kept across messages); a compressed one (flag 1) is
 * decoded by coding into the buffer of hz, the caller's decoder (one may
 * serve many readers: a message is used before the next is read), which
 * never grows past max. */
typedef struct grpc_deframer {
    uint8_t hdr[GRPC_PREFIX];
    size_t have_hdr;
    uint32_t need;              /* the current message's length, once hdr is whole */
    uint8_t *buf;
    size_t have, cap;
    size_t max;                 /* 0: GRPC_MAX_RECV_DEFAULT; on both the compressed and decompressed size */
    int coding;                 /* the stream's grpc-encoding: hz_coding()'s 0 none, 1 gzip, 2 deflate, -1 other */
    hz_decoder *hz;             /* compressed messages' decoder (the caller's); NULL: they are refused */
} grpc_deframer;

/* Consumes from *p (n bytes): 1 with a message in msg and len (valid until the next
 * call), 0 when *n is used up without one, -1 with a message in err (a
 * compressed message on a stream with no grpc-encoding or one luamech cannot
 * decode, or corrupt; a flag other than 0 or 1; a length above max, before
 * or after decompression: the message then says "receive limit"; out of
 * memory).  Call again while it returns 1. */
int grpc_deframe(grpc_deframer *d, const uint8_t **p, size_t *n, const uint8_t **msg, size_t *len, char *err,
                 size_t err_len);
/* Bytes of an unfinished message are buffered (the stream ended mid-message). */
int grpc_deframe_partial(const grpc_deframer *d);
/* Frees buf (not hz, the caller's). */
void grpc_deframer_free(grpc_deframer *d);

/* The grpc-timeout value for ms milliseconds (at most 8 digits and a unit:
 * "250m", "100000000m" becomes "100000S"); out needs 16 bytes. */
void grpc_timeout_format(char out[16], uint64_t ms);
/* A grpc-timeout value in milliseconds (rounded up): 0, or -1 if malformed. */
int grpc_timeout_parse(const char *s, size_t n, uint64_t *ms);

/* A grpc-status value: its code (0..2^31), or -1 when it is not a decimal number. */
int grpc_status_parse(const char *s, size_t n);
/* The name of a status code ("OK", "DEADLINE_EXCEEDED"; "UNKNOWN" past 16). */
const char *grpc_status_name(int code);
/* The status a response without grpc-status maps to from its HTTP status
 * (gRPC's http-grpc-status-mapping: 404 UNIMPLEMENTED, 503 UNAVAILABLE, ...). */
int grpc_status_from_http(int http_status);
/* grpc-message percent-decoded into out (cap bytes, NUL-terminated, cut
 * short if needed); a malformed escape, and %00 (it would end the text), is
 * kept as it is.  Returns the length. */
size_t grpc_message_decode(const char *s, size_t n, char *out, size_t cap);
/* A binary ("-bin") metadata value in base64 as gRPC emits it (RFC 4648,
 * unpadded) into out, which has room for GRPC_BASE64_LEN(n) bytes; the
 * length written (no NUL). */
#define GRPC_BASE64_LEN(n) (((n) / 3) * 4 + ((n) % 3 ? (n) % 3 + 1 : 0))
size_t grpc_base64(const uint8_t *in, size_t n, char *out);

#endif
