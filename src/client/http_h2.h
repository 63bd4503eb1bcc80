/* http_h2.h - the HTTP/2 side of an http_client (client/http_client.c uses
 * it; nothing else does): HTTP requests as streams of h2 sessions
 * (client/h2_session.h).  A request takes the first session with room
 * (client/h2_session.h: h2_session_room) or opens a new connection, so
 * callers sharing a client share its connections, up to the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS and max_streams streams each.  The same
 * http_req and on_done as HTTP/1.1: the response is an hp_parser filled
 * with hp_parser_put_* (http_major 2).  A request refused before the server
 * processed it (REFUSED_STREAM, above a GOAWAY's last stream id, a
 * connection that failed before its HEADERS left) is sent again on another
 * connection, at most twice; other failures end it with a message. */
#ifndef LUAMECH_CLIENT_HTTP_H2_H
#define LUAMECH_CLIENT_HTTP_H2_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uv.h>

#include "client/http_client.h"
#include "client/life.h"
#include "net/conn.h"
#include "net/tls.h"

typedef struct hh2 hh2;

typedef struct hh2_cfg {
    uv_loop_t *loop;
    client_life *life;               /* the http_client's: every session and lookup holds it */
    net_tls_client *tls;             /* NULL: h2c with prior knowledge */
    const char *host;                /* a name to look up; NULL: addr is numeric */
    const struct sockaddr_storage *addr;
    int port;
    uint64_t dns_ttl_ns;
    uint64_t connect_timeout_ns;     /* TCP + TLS; 0: the requests' deadlines cover connecting */
    const char *authority;           /* :authority unless the request has a Host header */
    unsigned max_streams;            /* per connection; 0: 100 */
    int keepalive;                   /* 0: a connection closes once it has no stream left */
    size_t max_body;
    int discard_body;
    const char *alpn;                /* TLS: the offer of each connection ("h2" or "h2,http/1.1") */
    /* "auto" (alpn offers http/1.1 too): when a server does not select h2,
     * the client turns to HTTP/1.1 for good (hh2_h1) and the requests that
     * were waiting for that connection go to fallback (the http_client's
     * HTTP/1.1 path), rebuilt from their copy.  NULL: they fail instead
     * (HTTP_ECONNECT, "HTTP/2 required ..."). */
    void (*fallback)(void *arg, http_req *req, const hp_request *r);
    /* With fallback: the connection whose server selected http/1.1 (or
     * nothing) by ALPN, offered to the HTTP/1.1 path before the requests
     * are (net_conn_hand_over): 1 when taken, and the first of them goes
     * out on it, with no second handshake.  NULL: it is closed unused. */
    int (*adopt)(void *arg, net_conn *nc);
    void *fallback_arg;
    uint32_t first_stream_id;        /* tests only (h2_session_cfg): 0 */
} hh2_cfg;

/* cfg is copied (its strings must outlive the hh2).  0 or UV_ENOMEM. */
int hh2_new(const hh2_cfg *cfg, hh2 **out);
/* Send req (its fields are reset by http_client_send; deadline_ns set). */
void hh2_send(hh2 *h, http_req *req, const hp_request *r);
/* Cancel every request (on_done HTTP_ECANCELED before this returns) and
 * close every session; the handles release cfg->life as they close. */
void hh2_close(hh2 *h);
/* Free the memory once every session's on_closed has come. */
void hh2_free(hh2 *h);
size_t hh2_pending(const hh2 *h);
/* 1 once a server did not select h2 and the client fell back to HTTP/1.1. */
int hh2_h1(const hh2 *h);
void hh2_add_stats(const hh2 *h, http_client_stats *s);
uint64_t hh2_lookups(const hh2 *h);

#endif
