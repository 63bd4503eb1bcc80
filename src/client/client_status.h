/* One status space for every protocol client: what kind of failure a
 * request, a connect or a stream ended with, whatever the protocol.  Each
 * client keeps its private codes (libuv's, NET_ETLS, MC_E*, REDIS_CLIENT_E*,
 * HTTP_E*, H2_E*, WS_E*) for its own logic and maps them onto these with its
 * `<p>_status()`; the text a user sees is client_strerror(status) followed
 * by the protocol's detail (client_describe).  No allocation, no state. */
#ifndef LUAMECH_CLIENT_STATUS_H
#define LUAMECH_CLIENT_STATUS_H

#include <stddef.h>

/* The timeouts every client means the same way (docs/lua-api.md#timeouts):
 * timeout bounds one operation, from the call to its result (10 s unless
 * set; 0 none); connect_timeout bounds opening a connection: TCP, TLS and
 * the protocol's setup (AUTH/SELECT, the WebSocket Upgrade); 0 or unset:
 * the timeout's value. */
#define CLIENT_TIMEOUT_DEFAULT_NS 10000000000ull

typedef enum client_status {
    CLIENT_OK = 0,
    CLIENT_DOWN,        /* the server could not be reached or went away: refused, reset,
                           closed, marked down after a failure */
    CLIENT_PROTOCOL,    /* the server broke the protocol (the connection is reset) */
    CLIENT_TIMEOUT,     /* connect_timeout or timeout passed */
    CLIENT_CANCELLED,   /* the client was closed or the run stopped first */
    CLIENT_SETUP,       /* the connection opened but its setup was refused: AUTH/SELECT,
                           the WebSocket Upgrade, HTTP/2 not selected by ALPN, a bad request */
    CLIENT_BODY,        /* a reply or message over a limit (max_body, max_message, max_queue) */
    CLIENT_TLS,         /* TLS handshake, verification or record failure */
    CLIENT_STATUS_COUNT
} client_status;

/* The kind alone: "ok", "server down", "protocol error", "timeout",
 * "cancelled", "setup refused", "over a size limit", "TLS error". */
const char *client_strerror(client_status s);

/* A libuv status or NET_ETLS (what net/conn.h reports) as a client status:
 * 0 ok, UV_ETIMEDOUT timeout, UV_ECANCELED cancelled, NET_ETLS TLS, any other
 * negative one down. */
client_status client_status_of_net(int status);

/* "<kind>: <detail>" into buf, or the detail alone when it already begins
 * with the kind's text (so "timeout" stays "timeout" and "protocol error: x"
 * is not said twice), or the kind alone when detail is NULL or empty.
 * Returns buf. */
const char *client_describe(char *buf, size_t len, client_status s, const char *detail);

#endif
