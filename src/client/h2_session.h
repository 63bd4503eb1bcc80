/* h2_session.h - one HTTP/2 connection on a libuv loop, client side, with no
 * Lua and no HTTP semantics above the frames: framing, HPACK and flow control
 * are Debian's libnghttp2 (driven in memory: nghttp2_session_mem_recv and
 * _mem_send), every byte moves through net/conn (plaintext, or TLS whose
 * ALPN chose h2), on the caller's loop (no loop or thread of its own).
 * HTTP over it is client/http_h2.c; gRPC can sit on it the same way.
 *
 * A session opens its own connection (h2_session_new), sends the client
 * preface and SETTINGS at once (h2c with prior knowledge; over TLS nothing
 * is queued before ALPN selected h2, so that a connection whose server
 * chose another protocol can be handed over untouched), and
 * carries streams.  A stream is opened with a header list (pseudo-headers
 * first, names lowercase: the caller's job) and a request body that may be
 * given at once or in chunks (h2_stream_send), the last with end of stream.
 * Its callbacks report the response's header blocks (informational 1xx,
 * the final headers, trailers), DATA chunks as they arrive, and exactly one
 * close with a status:
 *   0            the server ended the stream (END_STREAM) after a complete
 *                answer and nothing was reset;
 *   H2_EREFUSED  the server did not process the stream (RST_STREAM
 *                REFUSED_STREAM, a GOAWAY whose last stream id is below it,
 *                or the connection failed before its HEADERS could have
 *                reached the server): safe to retry on a new connection;
 *   H2_ERESET    the server reset it (h2_error: the RFC 9113 error code);
 *   H2_EGOAWAY   the connection went away (GOAWAY, h2_error) after the
 *                stream may have been processed;
 *   H2_ECONNECT  the connection could not be opened (connect or TLS
 *                handshake; sys: the libuv status or NET_ETLS, msg);
 *   H2_ENOTH2    over TLS, the server did not select "h2" by ALPN (msg
 *                names what it selected): nothing was sent, the session
 *                is closed (its on_open does not fire);
 *   H2_ECONN     the connection failed later (sys: the libuv status);
 *   H2_ENOSTREAMS the server's SETTINGS_MAX_CONCURRENT_STREAMS is 0 (RFC
 *                9113 6.5.2): the stream was not processed and no stream
 *                will be on this connection (msg says so; a retry elsewhere
 *                would meet the same server): the session drains and closes;
 *   H2_EPROTO    the peer broke the protocol (bad frames, HPACK, floods:
 *                nghttp2's verdict, msg, this stream's own when nghttp2 reset
 *                only it), or a plaintext session's server answered with TLS
 *                (msg says to use TLS); the session sends GOAWAY and closes;
 *   H2_ETIMEOUT  the stream's deadline passed (it is reset with CANCEL);
 *   H2_ECANCELED the caller reset it, or closed the session;
 *   H2_ENOMEM.
 * Callbacks fire from the loop, never from inside h2_stream_open/_send
 * (except on_close of a stream that could not even be queued: those
 * return an error instead and fire nothing; and on_dead when the
 * connection's stream ids are used up, RFC 9113 5.1.1: h2_stream_open then
 * fails with H2_EREFUSED, the session takes no new stream, its streams go
 * on and it closes after the last: the caller opens another connection).
 *
 * Flow control: receiving, nghttp2 sends WINDOW_UPDATE as the callbacks
 * consume DATA (a stream window of H2_STREAM_WINDOW and a connection
 * window of H2_CONN_WINDOW); sending, a body leaves only as the server's
 * windows allow, and not before the server's first SETTINGS was read (its
 * initial window may be 0: RFC 9113 6.9.2; HEADERS do not wait); a server
 * that never opens them leaves the stream waiting for its deadline.
 *
 * Writing: what nghttp2 has to send moves into the connection's queue
 * while that holds less than 256 KiB the socket has not taken; past it
 * nghttp2 keeps its frames until the socket takes the queue (net_conn's
 * on_sent), so a server that floods PINGs or SETTINGS and never reads
 * meets nghttp2's limit on queued acknowledgements and the session ends
 * (H2_EPROTO) instead of the queue growing.
 *
 * Concurrency: h2_session_room says how many more streams may be opened
 * now: the smaller of the caller's max_streams and the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS (100 until its SETTINGS arrive), less
 * the streams open; 0 after a GOAWAY, a failure, when the stream ids are
 * used up or the server allows 0 streams.
 *
 * Memory: stream records are pooled in the session and their body buffers
 * kept for the next stream; nghttp2's own blocks come from free lists of
 * the session (client/h2_mem.h), not from malloc per stream. */
#ifndef LUAMECH_CLIENT_H2_SESSION_H
#define LUAMECH_CLIENT_H2_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "net/conn.h"
#include "client/client_status.h"

#define H2_EREFUSED  (-34001)
#define H2_ERESET    (-34002)
#define H2_EGOAWAY   (-34003)
#define H2_ECONN     (-34004)
#define H2_EPROTO    (-34005)
#define H2_ETIMEOUT  (-34006)
#define H2_ECANCELED (-34007)
#define H2_ENOMEM    (-34008)
#define H2_ECONNECT  (-34009)   /* connect or TLS handshake failed (sys, msg) */
#define H2_ENOTH2    (-34010)   /* TLS: the server did not select h2 by ALPN (msg) */
#define H2_ENOSTREAMS (-34011)  /* the server allows 0 concurrent streams (msg) */

#define H2_STREAM_WINDOW (1u << 20)       /* 1 MiB per stream */
#define H2_CONN_WINDOW   (16u << 20)      /* 16 MiB per connection */
#define H2_DEFAULT_MAX_STREAMS 100u

typedef struct h2_session h2_session;
typedef struct h2_stream h2_stream;

/* A header field (names lowercase; pseudo-headers ":method" ... first).
 * name_static 1: the name is a lowercase literal (it outlives every
 * session) and nghttp2 takes it without a copy; 0 (what an initialiser
 * leaving it out gives): copied; H2_NV_KEPT (2): the name (lowercase) and
 * the value stay where they are, unchanged, until the stream's on_close
 * (or h2_stream_open's failure), and nghttp2 takes both without a copy
 * (the session sees to it that nghttp2 never reads them after on_close: a
 * HEADERS frame still queued then is cancelled, or dropped with the
 * session). */
typedef struct h2_nv {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
    int name_static;
} h2_nv;

#define H2_NV_KEPT 2

enum { H2_BLOCK_HEADERS = 0, H2_BLOCK_TRAILERS = 1 };
/* Or'ed into on_header's block for a session with http_checks_own when
 * the field's name is one of HPACK's static table (nghttp2's static
 * buffer): a lowercase token, no need to check its bytes. */
#define H2_NAME_STATIC 4

typedef struct h2_stream_cbs {
    /* One field of a header block (block: H2_BLOCK_*, with H2_NAME_STATIC
     * or'ed in for an http_checks_own session's static names; the response's
     * ":status" comes as a field too; informational 1xx blocks are
     * skipped, not reported).  Return nonzero to reset the stream (CANCEL):
     * on_close follows with H2_ECANCELED. */
    int (*on_header)(void *ud, int block, const char *name, size_t name_len, const char *value,
                     size_t value_len);
    /* A header block is complete.  Same return rule.  May be NULL. */
    int (*on_headers_end)(void *ud, int block);
    /* A DATA chunk (its flow-control credit returns when this returns).
     * Same return rule. */
    int (*on_data)(void *ud, const char *p, size_t n);
    /* The stream is over (exactly once; see the statuses above).  msg:
     * static or the session's, valid during the call; may be NULL.  The
     * stream's figures (h2_stream_bytes_in, ...) are readable during the
     * call; the stream is gone after it. */
    void (*on_close)(void *ud, int status, uint32_t h2_error, int sys, const char *msg);
} h2_stream_cbs;

typedef struct h2_session_cbs {
    /* Connected (TLS done): the preface and queued streams leave now. */
    void (*on_open)(h2_session *s, void *owner);
    /* Room for new streams again (a stream closed).  May be NULL. */
    void (*on_room)(h2_session *s, void *owner);
    /* No new stream will be accepted on this session any more (GOAWAY
     * received or sent, or the connection failed); its streams' on_close
     * have fired or will.  The owner stops choosing it.  May be NULL. */
    void (*on_dead)(h2_session *s, void *owner);
    /* Its handles are closed and its memory freed: the owner may count
     * it down.  Exactly once per h2_session_new that returned 0. */
    void (*on_closed)(void *owner);
    /* Over TLS, the server selected another protocol than h2 by ALPN
     * (alpn: its id, or NULL when it selected none).  Nothing was queued on
     * nc: the owner may take the connection (net_conn_hand_over to a client
     * of that protocol) and return 1; the session then no longer has it.
     * Either way the streams end with H2_ENOTH2 right after this returns
     * and the session closes (on_open never fires).  May be NULL (0). */
    int (*on_other_alpn)(h2_session *s, void *owner, net_conn *nc, const char *alpn);
} h2_session_cbs;

typedef struct h2_session_cfg {
    net_conn_cfg conn;                   /* loop, address, TLS (conn.alpn: the offer, which must
                                          * include "h2"), timeout; cbs is the session's */
    unsigned max_streams;                /* 0: H2_DEFAULT_MAX_STREAMS */
    size_t max_header_bytes;             /* a response header block larger: the stream is
                                          * reset (H2_EPROTO); 0: 64 KiB */
    const h2_session_cbs *cbs;
    int http_checks_own;                 /* 1: nghttp2's HTTP messaging checks are off
                                          * (nghttp2_option_set_no_http_messaging): the owner
                                          * checks the response's fields (client/http_h2.c;
                                          * on_header's block says H2_NAME_STATIC);
                                          * 0: nghttp2 resets a malformed response */
    uint32_t first_stream_id;            /* tests only: the first stream's id (odd, up to
                                          * 2^31-1, to reach the end of the ids); 0: 1 */
} h2_session_cfg;

typedef struct h2_session_stats {
    uint64_t streams;                    /* opened */
    uint64_t frames_in, frames_out;
    uint64_t goaways_in, resets_in;
    uint32_t peer_max_streams;           /* the server's SETTINGS_MAX_CONCURRENT_STREAMS (100 until known) */
    int peer_settings;                   /* the server's first SETTINGS was read (peer_max_streams is its) */
} h2_session_stats;

/* Connect and start the session.  0 with *out, or a negative libuv
 * status (nothing to close, no callback).  cfg must outlive the session. */
int h2_session_new(const h2_session_cfg *cfg, void *owner, h2_session **out);

/* Cancel every stream (on_close H2_ECANCELED before this returns), send
 * GOAWAY(NO_ERROR) when open and nothing went wrong (best effort: when the
 * socket takes it at once), close the connection; on_closed fires later.
 * Idempotent; safe from any callback. */
void h2_session_close(h2_session *s);

/* Streams that may be opened now (see above). */
unsigned h2_session_room(const h2_session *s);
unsigned h2_session_active(const h2_session *s);   /* streams not yet closed */
int h2_session_is_open(const h2_session *s);        /* connected (the preface may be in flight) */
int h2_session_dead(const h2_session *s);
/* When the connection itself failed (connect, TLS, reset, timeout): its
 * libuv or net/ status (NET_ETLS, UV_ETIMEDOUT, ...) and, in *msg, its
 * detail or NULL; else 0 (GOAWAY, a protocol error, closed by the owner).
 * Already set when on_dead runs. */
int h2_session_failure(const h2_session *s, const char **msg);
net_conn *h2_session_conn(h2_session *s);           /* NULL once failed or closed */
void h2_session_get_stats(const h2_session *s, h2_session_stats *st);

/* Open a stream: the header list hdrs[0..n) (copied), the first body chunk
 * body[0..len) (copied; may be empty) and eos (1: no more body; 1 with
 * len 0 and no body at all: HEADERS carries END_STREAM).  deadline_ns
 * (uv_hrtime clock; 0 none): past it the stream is reset and closes with
 * H2_ETIMEOUT.  Returns the stream, or NULL with *status (H2_ENOMEM,
 * H2_EREFUSED when the session has no room or is dead, H2_EPROTO when the
 * header list is refused).  Nothing is fired for a NULL stream. */
h2_stream *h2_stream_open(h2_session *s, const h2_nv *hdrs, size_t n, const char *body, size_t len,
                          int eos, uint64_t deadline_ns, const h2_stream_cbs *cbs, void *ud,
                          int *status);

/* More body for a stream opened with eos 0 (copied); eos 1 ends it.  0, or
 * H2_ENOMEM / H2_ECANCELED (the stream is closed or already ended). */
int h2_stream_send(h2_stream *st, const char *p, size_t len, int eos);

/* Body bytes given (h2_stream_open, _send) that nghttp2 has not taken yet:
 * they wait for the server's flow-control windows.  0 once closed. */
size_t h2_stream_unsent(const h2_stream *st);

/* Reset the stream (CANCEL); its on_close fires with H2_ECANCELED before
 * this returns. */
void h2_stream_cancel(h2_stream *st);

/* Per-stream figures: frame bytes sent and received for it (9-byte frame
 * headers included), uv_hrtime of its HEADERS handed to the connection and
 * of its first response frame (0: not yet). */
uint64_t h2_stream_bytes_out(const h2_stream *st);
uint64_t h2_stream_bytes_in(const h2_stream *st);
uint64_t h2_stream_sent_ns(const h2_stream *st);
uint64_t h2_stream_first_byte_ns(const h2_stream *st);
int32_t h2_stream_id(const h2_stream *st);

/* "refused by the server (not processed)", "reset by the server", ... */
const char *h2_strerror(int status);
/* A status in the clients' one space (client_status.h). */
client_status h2_status(int status);
/* RFC 9113 error code name: "NO_ERROR", "PROTOCOL_ERROR", ... */
const char *h2_error_name(uint32_t code);

#endif
