/* http_client.h - HTTP/1.1 client on a libuv loop.
 *
 * A client talks to one server (host:port) over connections it opens as
 * needed: a request takes an idle connection (the most recently used one) or
 * opens a new one, so there is one request in flight per connection and never
 * any pipelining.  A caller that sends one request at a time (a VU) therefore
 * uses a single connection; callers that share a client get as many
 * connections as they have concurrent requests, reused afterwards.
 *
 * Connections are kept alive by default (or closed after each request with
 * keepalive = 0).  Requests are caller-allocated (libuv style); every
 * request's on_done fires exactly once: with the response (status 0), or with
 * a negative status saying what failed (connect, write, read, timeout,
 * protocol, cancelled).  The timeout covers a name lookup, connecting, sending and the whole
 * response.  A request sent on a reused idle connection that the server had
 * closed (end of stream, reset or broken pipe before any response byte) is
 * retried once on a fresh connection.
 *
 * The client never touches Lua and never blocks (name lookups run on
 * libuv's thread pool); it allocates connections (kept until the client is
 * closed) and grows buffers, nothing per request. */
#ifndef LUAMECH_HTTP_CLIENT_H
#define LUAMECH_HTTP_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>
#include "proto/http_proto.h"
#include "net/tls.h"
#include "client/client_status.h"

/* Failure statuses; req->sys_err holds the libuv code behind them. */
#define HTTP_ECONNECT  (-32001)  /* the connection could not be opened */
#define HTTP_EWRITE    (-32002)  /* sending the request failed */
#define HTTP_EREAD     (-32003)  /* reading failed, or the server closed mid-response */
#define HTTP_ETIMEOUT  (-32004)  /* no complete response within the timeout */
#define HTTP_EPROTO    (-32005)  /* unparseable response (req->detail says why) */
#define HTTP_ECANCELED (-32006)  /* the client was closed */
#define HTTP_EINVAL    (-32007)  /* the request could not be encoded */
#define HTTP_ENOMEM    (-32008)
#define HTTP_EBODY     (-32009)  /* the response body is larger than max_body */
#define HTTP_ETLS      (-32010)  /* TLS handshake or verification failed, or a body delimited by the
                                    connection's end came without close_notify (req->detail says why) */
#define HTTP_ESETUP    (-32011)  /* the connection opened but its setup was refused: http = "2" over
                                    TLS and the server did not select h2 by ALPN (req->detail) */

typedef struct http_client_opts {
    uint64_t timeout_ns;     /* per request unless the request sets one; 0 = none */
    uint64_t connect_timeout_ns; /* a connection's TCP + TLS; 0: only the request's deadline */
    int keepalive;           /* 0: "Connection: close" and a new connection per request */
    size_t max_body;         /* larger bodies fail with HTTP_EBODY (connection closed); 0 = none */
    int discard_body;        /* 1: count body bytes, keep none (res->body_len 0) */
    const net_tls_opts *tls; /* https: TLS settings (server_name NULL: the host); NULL:
                                plaintext (read by http_client_new only) */
    uint64_t dns_ttl_ns;     /* a host name's address is looked up again for a new
                                connection once it is this old; 0: for every new
                                connection; UINT64_MAX: once */
    int version;             /* HTTP_V1 (default): HTTP/1.1; HTTP_V2: HTTP/2 on every
                                connection (h2c with prior knowledge on plaintext;
                                TLS offers ALPN "h2" alone and fails when the server
                                does not select it); HTTP_VAUTO: over TLS, connections
                                offer "h2,http/1.1" and the client speaks HTTP/2 while
                                servers select h2; the first that selects http/1.1
                                turns it to HTTP/1.1 for good, starting on that very
                                connection (handed over: no extra handshake);
                                plaintext: HTTP/1.1 */
    unsigned max_streams;    /* HTTP/2: streams per connection at most (also the
                                server's SETTINGS_MAX_CONCURRENT_STREAMS); 0: 100 */
} http_client_opts;

#define HTTP_V1 1
#define HTTP_V2 2
#define HTTP_VAUTO 3

#define HTTP_MAX_BODY_DEFAULT ((size_t)64 << 20)
#define HTTP_DNS_TTL_DEFAULT_NS (300ull * 1000000000ull)   /* 5 minutes, as k6 */

/* 10 s, keep-alive, max_body 64 MiB, bodies kept, DNS TTL 5 min, HTTP/1.1. */
void http_client_opts_default(http_client_opts *o);

typedef struct http_client http_client;
typedef struct http_conn http_conn;
typedef struct http_req http_req;

/* status == 0: res is the response, valid only during the callback.
 * status < 0: res is NULL. */
typedef void (*http_done_cb)(http_req *req, int status, const hp_parser *res);

struct http_req {
    /* set by the caller before http_client_send */
    http_done_cb on_done;         /* required */
    void *data;                   /* caller's */
    uint64_t timeout_ns;          /* 0 = the client's */
    uint64_t start_ns;            /* uv_hrtime() at the call, if the caller has it; 0 = read it */
    size_t max_body;              /* 0 = the client's */
    int discard_body;             /* 1: count the body, keep none; 0 = the client's setting */
    /* filled by the client; read them in on_done */
    int sys_err;                  /* libuv code behind a failure (UV_ECONNREFUSED, UV_EOF, ...) */
    const char *detail;           /* protocol error text (static), or NULL */
    uint64_t bytes_sent;          /* request bytes written, retries included */
    uint64_t bytes_received;      /* response bytes read, retries included */
    unsigned connects;            /* connections established for it (0: reused one) */
    unsigned retried;             /* times sent again on a fresh connection (HTTP/1.1: at most 1, HTTP/2: 2) */
    uint64_t tls_ns;              /* TLS handshake time of the connections opened for it */
    uint64_t connect_ns;          /* time spent connecting (TCP; the handshake is tls_ns) */
    uint64_t sent_ns;             /* uv_hrtime() when the request went to an open connection */
    uint64_t first_byte_ns;       /* uv_hrtime() of the first response byte; 0: none */
    uint64_t dns_ns;              /* time it waited for a host name lookup (0: none) */
    uint64_t setup_wait_ns;       /* http = "auto": time it waited for a connection another request
                                     opened, until the server chose HTTP/1.1 (not latency; 0: none) */
    /* private */
    uint64_t dns_start_ns;
    uint64_t connect_start_ns;
    uint64_t h2_queued_ns;        /* "auto": when it went to the HTTP/2 side (hc_fallback) */
    http_conn *conn;
    uint64_t deadline_ns;
    size_t body_limit;            /* the max_body in force, for the message */
    int head;
    void *h2;                     /* the HTTP/2 record carrying it (client/http_h2.c) */
};

typedef struct http_client_stats {
    uint64_t connects;            /* connections established (retries included) */
    uint64_t retries;             /* requests retried on a fresh connection */
    uint64_t requests;            /* requests completed, whatever the status */
    size_t conns;                 /* connection slots (open or not) */
    size_t open;                  /* connections currently open or opening */
    uint64_t tls_handshakes;      /* TLS handshakes completed */
    uint64_t tls_resumed;         /* of which resumed a session */
} http_client_stats;

/* A client for host:port sending `authority` as the Host header.  A
 * numeric address is used as it is; a name is looked up (asynchronously,
 * IPv4 preferred) when a connection is to be opened and the last lookup is
 * older than opts->dns_ttl_ns; a failed lookup fails the requests waiting
 * for it with HTTP_ECONNECT ("connect: cannot resolve NAME: ...").  Nothing
 * is looked up or connected yet.  Returns 0, or -1 with a message in err. */
int http_client_new(uv_loop_t *loop, const char *host, int port, const char *authority,
                    const http_client_opts *opts, http_client **out, char *err, size_t err_len);

/* Start one request.  r->host and r->close are filled by the client; the
 * bytes are encoded and copied before this returns.  on_done fires later from
 * the loop, or before this returns when the client is closed (HTTP_ECANCELED)
 * or the request cannot be encoded (HTTP_EINVAL) or a socket cannot be made. */
void http_client_send(http_client *c, http_req *req, const hp_request *r);

/* Cancel every request in flight (on_done with HTTP_ECANCELED, before this
 * returns), close the connections and free the client once libuv has closed
 * its handles.  No callback fires after this returns. */
void http_client_close(http_client *c);

size_t http_client_pending(const http_client *c);
void http_client_get_stats(const http_client *c, http_client_stats *s);
const char *http_client_name(const http_client *c);            /* "host:port" */
/* Host name lookups started so far (0 for a numeric address). */
uint64_t http_client_lookups(const http_client *c);

/* The detail of a failed request: "connect: connection refused", "timeout",
 * "read: connection closed by server", "protocol error: ...", "response body
 * larger than max_body (67108864 bytes)", the TLS failure's text; a user
 * sees it after its kind, client_describe(http_client_status(status), ...):
 * "server down: connect: connection refused". */
void http_client_describe(const http_req *req, int status, char *buf, size_t len);
const char *http_client_strerror(int status);                   /* the phase alone */
/* A status in the clients' one space (client_status.h). */
client_status http_client_status(int status);

#endif
