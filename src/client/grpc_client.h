/* grpc_client.h - gRPC calls over client/h2_session, with no Lua and no
 * protobuf: a client keeps one HTTP/2 session to its server (h2c, or TLS
 * with ALPN h2), opened by grpc_client_connect and opened again by the next
 * call after it died; a call is one stream: POST of the caller's framed
 * request (proto/grpc_frame.h) with te: trailers, content-type
 * application/grpc, grpc-timeout, with cfg.gzip grpc-encoding and
 * grpc-accept-encoding, user-agent unless the caller's metadata has one,
 * and the caller's metadata (the request may
 * stay open for more messages: grpc_call_start_open, grpc_call_send); the response's
 * messages are handed to on_message as they are read (compressed ones
 * decoded by the response's grpc-encoding, whatever cfg.gzip says; past
 * max_recv once decoded: RESOURCE_EXHAUSTED), then on_done gives
 * the status: grpc-status and grpc-message from the trailers (or a
 * trailers-only response), else one made here from what went wrong
 * (DEADLINE_EXCEEDED for the deadline, UNAVAILABLE when the connection
 * failed, INTERNAL for a broken answer, gRPC's mapping of the HTTP status
 * for a response other than 200 without grpc-status: its body is read and
 * dropped, never taken for messages; a 200 whose content-type is not
 * application/grpc* is refused at its headers, UNKNOWN).
 *
 * Transparent retry (gRFC A6; RFC 9113 8.7): a call the server did not
 * process (RST_STREAM REFUSED_STREAM, above a GOAWAY's last stream id, or
 * the connection failed before its HEADERS left) is started again, at most
 * GRPC_MAX_RETRIES times, on the live session or a new one, with the same
 * headers, request and deadline (the call keeps a copy of them in buffers
 * kept across uses of the record); a call started open qualifies only while
 * nothing was given to grpc_call_send.  Otherwise the call ends UNAVAILABLE.
 * The caller owns the call's memory (grpc_call) until on_done.
 *
 * A client may hold several sessions: the live one and ones draining after
 * a GOAWAY (their streams up to its last stream id run to their end).
 * grpc_client_close ends every call on every one of them. */
#ifndef LUAMECH_GRPC_CLIENT_H
#define LUAMECH_GRPC_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "client/h2_session.h"
#include "net/tls.h"
#include "proto/grpc_frame.h"
#include "client/client_status.h"

typedef struct grpc_client grpc_client;

typedef struct grpc_client_cfg {
    uv_loop_t *loop;
    const char *address;            /* "host:port" */
    const net_tls_opts *tls;        /* NULL: plaintext (h2c with prior knowledge) */
    uint64_t connect_timeout_ns;    /* 0: none */
    size_t max_recv;                /* a response message larger fails the call; 0: 4 MiB */
    unsigned max_streams;           /* 0: H2_DEFAULT_MAX_STREAMS */
    int gzip;                       /* 1: calls send grpc-encoding: gzip (the caller compresses
                                     * their messages, grpc_gzip_frame) and grpc-accept-encoding: gzip */
} grpc_client_cfg;

typedef struct grpc_result {
    int code;                       /* the gRPC status code */
    int local;                      /* 1: the status was made here (no grpc-status from the server) */
    int http_status;                /* 0: no response headers */
    const char *message;            /* grpc-message percent-decoded, or what went wrong; "" */
    uint64_t messages;              /* response messages read */
    unsigned retries;               /* transparent retries made (0..GRPC_MAX_RETRIES) */
} grpc_result;

#define GRPC_MAX_RETRIES 2

typedef struct grpc_call_cbs {
    /* One response message (valid during the call).  Nonzero cancels the
     * call: on_done follows with code (RESOURCE_EXHAUSTED, INTERNAL ...)
     * and the message the caller left with grpc_call_fail. */
    int (*on_message)(void *ud, const uint8_t *p, size_t n);
    void (*on_done)(void *ud, const grpc_result *r);
} grpc_call_cbs;

typedef struct grpc_call {
    grpc_client *c;
    h2_stream *st;
    const grpc_call_cbs *cbs;
    void *ud;
    grpc_deframer df;               /* kept across uses of the record */
    int http_status, code, fail_code;
    int ct_grpc;                    /* the response's content-type is application/grpc* */
    uint64_t messages;
    char msg[512];
    /* the request kept for a transparent retry (keep: kept across uses) */
    char *keep;
    size_t keep_cap;
    const h2_nv *kmd;
    size_t knmd, klen;
    const char *kpath, *kbody;
    uint64_t deadline_ns;
    int eos, sent_more;
    unsigned retries;
} grpc_call;

/* A client (nothing connects yet).  0 with *out, or -1 with err. */
int grpc_client_new(const grpc_client_cfg *cfg, grpc_client **out, char *err, size_t err_len);
/* Open the session now; on_open(ud, 0, NULL) once connected, or
 * on_open(ud, status, message) when it failed.  0, or a libuv status
 * (nothing fires). */
int grpc_client_connect(grpc_client *c, void (*on_open)(void *ud, int status, const char *msg), void *ud);
/* Start a call of path ("/pkg.Service/Method") with metadata md[0..nmd)
 * (names lowercase), the framed request body[0..len) (copied) and a
 * deadline (uv_hrtime clock; 0 none; its grpc-timeout is sent).  0, or -1
 * when the call could not start: then on_done has fired already with the
 * status (UNAVAILABLE, RESOURCE_EXHAUSTED). */
int grpc_call_start(grpc_client *c, grpc_call *call, const char *path, const h2_nv *md, size_t nmd,
                    const char *body, size_t len, uint64_t deadline_ns, const grpc_call_cbs *cbs, void *ud);
/* The same with the request's end of stream left open: body (may be
 * empty) is the first of the request's messages, grpc_call_send adds more
 * and ends it (client-streaming and bidirectional methods). */
int grpc_call_start_open(grpc_client *c, grpc_call *call, const char *path, const h2_nv *md, size_t nmd,
                         const char *body, size_t len, uint64_t deadline_ns, const grpc_call_cbs *cbs, void *ud);
/* More framed request messages body[0..len) (copied) for a call started
 * open; end 1 ends the request (len may be 0).  They leave as the server's
 * flow-control windows allow.  0, or H2_ECANCELED (the call is over or
 * its request ended already), H2_ENOMEM. */
int grpc_call_send(grpc_call *call, const char *body, size_t len, int end);
/* Request bytes given and not yet taken by HTTP/2 (waiting for the
 * server's window); 0 once the call is over. */
size_t grpc_call_unsent(const grpc_call *call);
/* From on_message: the call fails with code and msg (then return nonzero). */
void grpc_call_fail(grpc_call *call, int code, const char *msg);
/* Cancel a call in flight (on_done fires with CANCELLED before this returns). */
void grpc_call_cancel(grpc_call *call);
void grpc_call_fini(grpc_call *call);   /* frees the record's buffers */
/* Close every session, the live one and those draining after a GOAWAY
 * (calls in flight end CANCELLED before this returns; calls started later
 * end CANCELLED at once); the client frees itself once its handles are
 * closed. */
void grpc_client_close(grpc_client *c);
/* Connections opened so far (the first included). */
uint64_t grpc_client_connects(const grpc_client *c);
/* Transparent retries made so far (see above). */
uint64_t grpc_client_retries(const grpc_client *c);
/* What went wrong, in the clients' one space (client_status.h): CLIENT_OK
 * when the server sent the status (whatever its code), else the kind of the
 * failure made here (timeout, cancelled, down, protocol, over a limit). */
client_status grpc_result_status(const grpc_result *r);
/* The gRPC code of an HTTP/2 status (H2_E*) a call's own step failed with
 * (a stream's send): DEADLINE_EXCEEDED, CANCELLED, RESOURCE_EXHAUSTED (out
 * of memory), INTERNAL (reset, protocol error), else UNAVAILABLE; as a
 * finished call's status is made from its stream's close. */
int grpc_code_of_h2(int status);

#endif
