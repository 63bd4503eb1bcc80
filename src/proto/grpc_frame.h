/* grpc_frame.h - gRPC over HTTP/2 below the streams: the 5-byte message
 * prefix (compressed flag, big-endian length) both ways, with an incremental
 * reader for messages that arrive in pieces; the grpc-timeout header's
 * value; the status from trailers (grpc-status, grpc-message
 * percent-decoded) and the status codes' names.  No sockets, no HTTP/2 (the
 * stream layer carries the bytes), no protobuf (pb.h). */
#ifndef LUAMECH_GRPC_FRAME_H
#define LUAMECH_GRPC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define GRPC_PREFIX 5
#define GRPC_MAX_RECV_DEFAULT (4u << 20)     /* gRPC's default receive limit */

/* Writes the prefix of an uncompressed message of len bytes. */
void grpc_frame_prefix(uint8_t out[GRPC_PREFIX], uint32_t len);

/* Reads messages from a byte stream fed in pieces.  A message that lies whole
 * in one piece is handed out in place; one split across pieces is gathered in
 * buf (grown up to max, kept across messages). */
typedef struct grpc_deframer {
    uint8_t hdr[GRPC_PREFIX];
    size_t have_hdr;
    uint32_t need;              /* the current message's length, once hdr is whole */
    uint8_t *buf;
    size_t have, cap;
    size_t max;                 /* 0: GRPC_MAX_RECV_DEFAULT */
} grpc_deframer;

/* Consumes from *p (n bytes): 1 with a message in msg and len (valid until the next
 * call), 0 when *n is used up without one, -1 with a message in err (a
 * compressed message: no grpc-encoding is accepted; a flag other than 0
 * or 1; a length above max; out of memory).  Call again while it returns 1. */
int grpc_deframe(grpc_deframer *d, const uint8_t **p, size_t *n, const uint8_t **msg, size_t *len, char *err,
                 size_t err_len);
/* Bytes of an unfinished message are buffered (the stream ended mid-message). */
int grpc_deframe_partial(const grpc_deframer *d);
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
 * short if needed); a malformed escape is kept as it is.  Returns the length. */
size_t grpc_message_decode(const char *s, size_t n, char *out, size_t cap);

#endif
