/* http_client.c - HTTP/1.1 client on a libuv loop: connections opened on
 * demand, one request in flight per connection, keep-alive with a transparent
 * retry when a reused idle connection turns out to be closed by the server,
 * a per-request deadline covering connect + whole response; over TLS a body
 * delimited by the connection's end counts only when the server sent
 * close_notify (else HTTP_ETLS: it may be truncated).  Bytes are encoded
 * and parsed by proto/http_proto; every byte of I/O goes through net/conn
 * (plaintext or TLS).  A host name is looked up asynchronously
 * (uv_getaddrinfo on libuv's thread pool, never blocking the loop) when a
 * connection is to be opened and the address is older than the client's
 * dns_ttl_ns; the connections waiting for it open once it is known.  See
 * http_client.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common/clock.h"
#include "common/grow.h"
#include "common/net.h"
#include "client/http_client.h"
#include "client/life.h"
#include "client/http_h2.h"
#include "net/conn.h"
#include "net/tls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HC_RBUF_SIZE (64 * 1024)
#define HC_WBUF_INIT 1024

typedef enum hc_state { HC_CLOSED, HC_RESOLVING, HC_CONNECTING, HC_OPEN } hc_state;

struct http_conn {
    client_life *life;           /* first: its client's (client/life.h's close callbacks) */
    http_client *client;
    http_conn *prev, *next;      /* in one of the client's lists */
    http_conn **list;            /* which one */
    http_conn *next_all;
    hc_state state;
    net_conn *nc;                /* the connection, NULL when none */
    uv_timer_t timer;
    uint64_t timer_due;          /* deadline the timer is armed for; 0 = idle */
    http_req *req;               /* in flight, or NULL */
    int reused;                  /* the request went out on an already open connection */
    int adopted;                 /* handed over by the HTTP/2 side, not used yet */
    char *wbuf;                  /* the encoded request (kept for a retry) */
    size_t wlen, wcap;
    uint64_t sent_mark;          /* net_conn_sent when the request was queued */
    uint64_t attempt_rx;         /* response bytes read on this socket for req */
    hp_parser parser;
    char errmsg[300];            /* a TLS or lookup failure's message (req->detail points here) */
};

struct http_client {
    uv_loop_t *loop;
    http_client_opts opts;
    struct sockaddr_storage addr;
    net_conn_cfg cfg;            /* for net_conn_open */
    net_tls_client *tls;         /* NULL: plaintext */
    char name[300];
    char *authority;
    size_t authority_len;
    http_conn *idle_open;        /* open and idle, most recently used first */
    http_conn *idle_closed;      /* slots without a socket */
    http_conn *busy;             /* a request in flight */
    http_conn *all;
    size_t nconns, nopen, nbusy;
    uint64_t connects, retries, requests;
    char *host;                  /* a name to look up; NULL: a numeric address */
    int port;
    uint64_t addr_ns;            /* uv_hrtime() when addr was looked up; 0: not yet */
    uv_getaddrinfo_t gai;        /* the lookup in flight (resolving) */
    int resolving;
    uint64_t lookups;
    client_life life;            /* freed when its last handle closes after close */
    hh2 *h2;                     /* HTTP/2 (opts.version HTTP_V2): its requests go there */
};

static const net_conn_cbs hc_conn_cbs;
static void hc_client_free_any(void *c);
static void hc_on_timer(uv_timer_t *t);

void http_client_opts_default(http_client_opts *o) {
    memset(o, 0, sizeof *o);
    o->timeout_ns = CLIENT_TIMEOUT_DEFAULT_NS;
    o->dns_ttl_ns = HTTP_DNS_TTL_DEFAULT_NS;
    o->keepalive = 1;
    o->max_body = HTTP_MAX_BODY_DEFAULT;
    o->version = HTTP_V1;
}

/* ---- lists ---- */

static void hc_unlink(http_conn *conn) {
    if (!conn->list) return;
    if (conn->prev) conn->prev->next = conn->next;
    else *conn->list = conn->next;
    if (conn->next) conn->next->prev = conn->prev;
    conn->prev = conn->next = NULL;
    conn->list = NULL;
}

static void hc_push(http_conn **list, http_conn *conn) {
    hc_unlink(conn);
    conn->prev = NULL;
    conn->next = *list;
    if (*list) (*list)->prev = conn;
    *list = conn;
    conn->list = list;
}

/* ---- messages ---- */

static const char *hc_uv_msg(int err) {
    switch (err) {
    case UV_ECONNREFUSED: return "connection refused";
    case UV_ECONNRESET: return "connection reset by peer";
    case UV_EOF: return "connection closed by server";
    case UV_EPIPE: return "broken pipe";
    case UV_ETIMEDOUT: return "timeout";
    case UV_ECANCELED: return "cancelled";
    default: return err < 0 ? uv_strerror(err) : "unknown error";
    }
}

const char *http_client_strerror(int status) {
    switch (status) {
    case 0: return "ok";
    case HTTP_ECONNECT: return "connect";
    case HTTP_EWRITE: return "write";
    case HTTP_EREAD: return "read";
    case HTTP_ETIMEOUT: return "timeout";
    case HTTP_EPROTO: return "protocol error";
    case HTTP_ECANCELED: return "cancelled";
    case HTTP_EINVAL: return "invalid request";
    case HTTP_ENOMEM: return "out of memory";
    case HTTP_EBODY: return "response body larger than max_body";
    case HTTP_ETLS: return "tls";
    case HTTP_ESETUP: return "setup refused";
    default: return "unknown status";
    }
}

client_status http_client_status(int status) {
    switch (status) {
    case 0: return CLIENT_OK;
    case HTTP_ETIMEOUT: return CLIENT_TIMEOUT;
    case HTTP_EPROTO: return CLIENT_PROTOCOL;
    case HTTP_ECANCELED: return CLIENT_CANCELLED;
    case HTTP_EINVAL: case HTTP_ENOMEM: case HTTP_ESETUP: return CLIENT_SETUP;
    case HTTP_EBODY: return CLIENT_BODY;
    case HTTP_ETLS: return CLIENT_TLS;
    default: return CLIENT_DOWN;          /* connect, write, read */
    }
}

void http_client_describe(const http_req *req, int status, char *buf, size_t len) {
    switch (status) {
    case HTTP_ECONNECT: case HTTP_EWRITE: case HTTP_EREAD:
        if (req->detail) {                 /* a failed lookup */
            snprintf(buf, len, "%s: %s", http_client_strerror(status), req->detail);
            break;
        }
        snprintf(buf, len, "%s: %s", http_client_strerror(status), hc_uv_msg(req->sys_err));
        break;
    case HTTP_EPROTO:
        snprintf(buf, len, "protocol error: %s", req->detail ? req->detail : "bad response");
        break;
    case HTTP_ETLS:
        snprintf(buf, len, "%s", req->detail ? req->detail : "handshake failed");
        break;
    case HTTP_ESETUP:
        snprintf(buf, len, "%s", req->detail ? req->detail : "the server refused the connection's setup");
        break;
    case HTTP_EBODY:
        snprintf(buf, len, "%s (%zu bytes)", http_client_strerror(status), req->body_limit);
        break;
    default:
        snprintf(buf, len, "%s", http_client_strerror(status));
    }
}

/* ---- creation and destruction ---- */


/* TLS settings (opts.tls) into c->tls, and the connection settings. */
static int hc_client_tls(http_client *c, const char *host, char *err, size_t err_len) {
    if (c->opts.tls) {
        net_tls_opts to = *c->opts.tls;
        char terr[300];
        if (to.server_name == NULL) to.server_name = host;
        if (c->opts.version == HTTP_V2) to.alpn = "h2";
        if (net_tls_client_new(&to, &c->tls, terr, sizeof terr) != 0) {
            snprintf(err, err_len, "tls: %s", terr);
            return -1;
        }
        c->opts.tls = NULL;
    }
    c->cfg.loop = c->loop;
    c->cfg.addr = &c->addr;
    c->cfg.connect_timeout_ns = c->opts.connect_timeout_ns;   /* 0: the request's deadline covers it */
    c->cfg.rbuf_init = HC_RBUF_SIZE;
    c->cfg.tls = c->tls;
    c->cfg.cbs = &hc_conn_cbs;
    return 0;
}

/* HTTP/2: the requests go to client/http_h2's sessions. */
static void hc_send1(http_client *c, http_req *req, const hp_request *r);
static void hc_send1_on(http_client *c, http_conn *conn, http_req *req, const hp_request *r);
static http_conn *hc_conn_new(http_client *c);

/* The connection a request falls back on (auto, the server chose
 * HTTP/1.1): the one that opened the HTTP/2 attempt's connection (it
 * carries that connection's connect and TLS time: client/http_h2.c's
 * account) takes a handed-over one; any other takes an idle connection that
 * was not handed over, else opens its own, so that every connection's
 * connect and handshake are one request's. */
static http_conn *hc_fallback_conn(http_client *c, const http_req *req) {
    for (http_conn *conn = c->idle_open; conn; conn = conn->next)
        if (conn->adopted == (req->connects > 0)) return conn;
    if (req->connects > 0 && c->idle_open) return c->idle_open;
    return c->idle_closed ? c->idle_closed : hc_conn_new(c);
}

/* "auto": the server chose HTTP/1.1 while req waited for the HTTP/2
 * attempt's connection.  A request that did not open that connection
 * waited for another's handshake: that wait is setup (setup_wait_ns), not
 * latency, as the connect and TLS time of its own connection are. */
static void hc_fallback(void *arg, http_req *req, const hp_request *r) {
    http_client *c = arg;
    if (req->connects == 0 && req->h2_queued_ns) {
        uint64_t now = uv_hrtime();
        req->setup_wait_ns += now > req->h2_queued_ns ? now - req->h2_queued_ns : 0;
    }
    req->h2_queued_ns = 0;
    hc_send1_on(c, hc_fallback_conn(c, req), req, r);
}
static int hc_adopt(void *arg, net_conn *nc);

static int hc_client_h2(http_client *c, char *err, size_t err_len) {
    if (c->opts.version != HTTP_V2 && !(c->opts.version == HTTP_VAUTO && c->tls)) return 0;
    hh2_cfg hc;
    memset(&hc, 0, sizeof hc);
    hc.loop = c->loop;
    hc.life = &c->life;
    hc.tls = c->tls;
    hc.host = c->host;
    hc.addr = &c->addr;
    hc.port = c->port;
    hc.dns_ttl_ns = c->opts.dns_ttl_ns;
    hc.connect_timeout_ns = c->opts.connect_timeout_ns;
    hc.authority = c->authority;
    hc.max_streams = c->opts.max_streams;
    hc.keepalive = c->opts.keepalive;
    hc.max_body = c->opts.max_body;
    hc.discard_body = c->opts.discard_body;
    hc.alpn = c->opts.version == HTTP_V2 ? "h2" : "h2,http/1.1";
    if (c->opts.version == HTTP_VAUTO) {
        hc.fallback = hc_fallback;
        hc.adopt = hc_adopt;
        hc.fallback_arg = c;
    }
    if (hh2_new(&hc, &c->h2) != 0) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    return 0;
}

int http_client_new(uv_loop_t *loop, const char *host, int port, const char *authority,
                    const http_client_opts *opts, http_client **out, char *err, size_t err_len) {
    *out = NULL;
    if (!host || !*host || port <= 0 || port > 65535) {
        snprintf(err, err_len, "bad address");
        return -1;
    }
    http_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    c->loop = loop;
    client_life_init(&c->life, hc_client_free_any, c);
    if (opts) c->opts = *opts;
    else http_client_opts_default(&c->opts);
    snprintf(c->name, sizeof c->name, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
    c->port = port;
    if (net_numeric(host, port, &c->addr) != 0 && (c->host = strdup(host)) == NULL) {
        snprintf(err, err_len, "out of memory");
        free(c);
        return -1;
    }
    c->gai.data = c;
    c->authority = strdup(authority && *authority ? authority : c->name);
    if (c->authority == NULL) {
        snprintf(err, err_len, "out of memory");
        free(c->host);
        free(c);
        return -1;
    }
    c->authority_len = strlen(c->authority);
    if (hc_client_tls(c, host, err, err_len) != 0 || hc_client_h2(c, err, err_len) != 0) {
        net_tls_client_free(c->tls);
        free(c->authority);
        free(c->host);
        free(c);
        return -1;
    }
    *out = c;
    return 0;
}

static void hc_client_free(http_client *c) {
    while (c->all) {
        http_conn *conn = c->all;
        c->all = conn->next_all;
        hp_parser_free(&conn->parser);
        free(conn->wbuf);
        free(conn);
    }
    hh2_free(c->h2);
    net_tls_client_free(c->tls);
    free(c->authority);
    free(c->host);
    free(c);
}

static void hc_client_free_any(void *c) { hc_client_free(c); }


static http_conn *hc_conn_new(http_client *c) {
    http_conn *conn = calloc(1, sizeof *conn);
    if (!conn) return NULL;
    conn->life = &c->life;
    conn->client = c;
    hp_parser_init(&conn->parser);
    uv_timer_init(c->loop, &conn->timer);
    conn->timer.data = conn;
    client_life_hold(&c->life);
    conn->next_all = c->all;
    c->all = conn;
    c->nconns++;
    hc_push(&c->idle_closed, conn);
    return conn;
}

/* ---- timer ---- */

/* Arm the timer for deadline unless it is already due earlier.  A finished
 * request leaves the timer running: when it fires, hc_on_timer re-arms it for
 * the request then in flight, if any (no timer stop/start per request). */
static void hc_arm(http_conn *conn, uint64_t deadline, uint64_t now) {
    if (!conn->client->life.closing) clock_timer_arm(&conn->timer, &conn->timer_due, hc_on_timer, deadline, now);
}

static void hc_disarm(http_conn *conn) { clock_timer_disarm(&conn->timer, &conn->timer_due); }

/* ---- sockets ---- */

/* Count the request bytes the connection handed to the socket. */
static void hc_count_sent(http_conn *conn) {
    if (!conn->nc) return;
    uint64_t sent = net_conn_sent(conn->nc);
    if (conn->req) conn->req->bytes_sent += sent - conn->sent_mark;
    conn->sent_mark = sent;
}

/* Drop the connection (closed asynchronously); no callbacks. */
static void hc_detach(http_conn *conn) {
    if (conn->nc) {
        hc_count_sent(conn);
        net_conn_close(conn->nc);
        conn->nc = NULL;
        conn->client->nopen--;
    }
    conn->state = HC_CLOSED;
}

/* Queue the encoded request on the connection (it leaves at the end of the
 * loop turn, or once connected); 0 or a status. */
static int hc_queue(http_conn *conn) {
    conn->sent_mark = net_conn_sent(conn->nc);
    if (conn->req) conn->req->sent_ns = uv_hrtime();   /* timing: leaves this loop turn (or at open) */
    return net_conn_write(conn->nc, conn->wbuf, conn->wlen);
}

/* Open the connection to the known address and queue the request. */
static int hc_open(http_conn *conn) {
    http_client *c = conn->client;
    int rc = net_conn_open(&c->cfg, conn, &conn->nc);
    if (rc < 0) return rc;
    client_life_hold(&c->life);
    c->nopen++;
    conn->state = HC_CONNECTING;
    rc = hc_queue(conn);
    if (rc < 0) hc_detach(conn);
    return rc;
}

static void hc_on_resolved(uv_getaddrinfo_t *gai, int status, struct addrinfo *res);

/* Wait for the address: start a lookup unless one is in flight. */
static int hc_resolve(http_conn *conn, uint64_t now) {
    http_client *c = conn->client;
    if (!c->resolving) {
        struct addrinfo hints;
        memset(&hints, 0, sizeof hints);
        hints.ai_socktype = SOCK_STREAM;
        int rc = uv_getaddrinfo(c->loop, &c->gai, hc_on_resolved, c->host, NULL, &hints);
        if (rc < 0) return rc;
        c->resolving = 1;
        client_life_hold(&c->life);          /* the client stays until the callback */
        c->lookups++;
    }
    conn->state = HC_RESOLVING;
    if (conn->req) conn->req->dns_start_ns = now;
    return 0;
}

static int hc_connect(http_conn *conn) {
    http_client *c = conn->client;
    uint64_t now = uv_hrtime();
    if (conn->req) conn->req->connect_start_ns = now;   /* timing breakdown */
    if (c->host && (c->addr_ns == 0 || now - c->addr_ns >= c->opts.dns_ttl_ns)) return hc_resolve(conn, now);
    return hc_open(conn);
}

/* ---- completion ---- */

/* The request in flight on conn is over: settle the connection, then call
 * on_done last (it may send again or close the client). */
static void hc_finish(http_conn *conn, int status, int sys_err, const char *detail) {
    http_client *c = conn->client;
    http_req *req = conn->req;
    hc_count_sent(conn);
    conn->req = NULL;
    req->conn = NULL;
    req->sys_err = sys_err;
    req->detail = detail;
    hc_count_sent(conn);
    int keep = status == 0 && conn->state == HC_OPEN && c->opts.keepalive && !c->life.closing &&
               conn->parser.keep_alive && !net_conn_wbusy(conn->nc);
    if (!keep) hc_detach(conn);
    c->nbusy--;
    hc_push(conn->state == HC_OPEN ? &c->idle_open : &c->idle_closed, conn);
    c->requests++;
    req->on_done(req, status, status == 0 ? &conn->parser : NULL);
}

/* A request that went out on a reused connection the server had already
 * closed: once, on a fresh connection.  1 when retried (or finished). */
static int hc_retry(http_conn *conn, int err) {
    http_req *req = conn->req;
    if (!conn->reused || req->retried || conn->attempt_rx > 0 || conn->client->life.closing) return 0;
    if (err != UV_EOF && err != UV_ECONNRESET && err != UV_EPIPE) return 0;
    req->retried = 1;
    conn->client->retries++;
    hc_detach(conn);
    conn->reused = 0;
    conn->attempt_rx = 0;
    hp_parser_reset(&conn->parser, req->head);
    int rc = hc_connect(conn);
    if (rc < 0) hc_finish(conn, HTTP_ECONNECT, rc, NULL);
    return 1;
}

static void hc_on_timer(uv_timer_t *t) {
    http_conn *conn = t->data;
    conn->timer_due = 0;
    if (conn->client->life.closing || !conn->req || conn->req->deadline_ns == 0) return;
    uint64_t now = uv_hrtime();
    if (now < conn->req->deadline_ns) {      /* a later request, or libuv's coarse clock */
        hc_arm(conn, conn->req->deadline_ns, now);
        return;
    }
    hc_finish(conn, HTTP_ETIMEOUT, UV_ETIMEDOUT, NULL);
}

/* The lookup is over: the connections waiting for it open with the fresh
 * address, or their requests fail (HTTP_ECONNECT, "cannot resolve ...").
 * on_done may send or close the client: it stays allocated until the
 * reference the lookup holds is dropped, last. */
static void hc_on_resolved(uv_getaddrinfo_t *gai, int status, struct addrinfo *res) {
    http_client *c = gai->data;
    uint64_t now = uv_hrtime();
    int rc = status == 0 ? net_addr_pick(res, c->port, &c->addr) : status;
    uv_freeaddrinfo(res);
    c->resolving = 0;
    if (rc == 0) c->addr_ns = now;
    for (http_conn *conn = c->all; conn && !c->life.closing; conn = conn->next_all) {
        if (conn->state != HC_RESOLVING) continue;
        conn->state = HC_CLOSED;
        if (!conn->req) continue;
        conn->req->dns_ns += now - conn->req->dns_start_ns;
        conn->req->connect_start_ns = now;   /* connect time starts with the address known */
        int orc = rc == 0 ? hc_open(conn) : rc;
        if (orc < 0 && rc < 0)
            snprintf(conn->errmsg, sizeof conn->errmsg, "cannot resolve %s: %s", c->host, uv_strerror(rc));
        if (orc < 0) hc_finish(conn, HTTP_ECONNECT, orc, rc < 0 ? conn->errmsg : NULL);
    }
    client_life_release(&c->life);
}

/* ---- the connection's callbacks ---- */

static void hc_write_failed(http_conn *conn, int err) {
    if (hc_retry(conn, err)) return;
    hc_finish(conn, HTTP_EWRITE, err, NULL);
}

static void hc_idle_drop(http_conn *conn) {
    hc_detach(conn);
    hc_push(&conn->client->idle_closed, conn);
}

/* The first bytes of a response that the HTTP/1.1 parser refused look like
 * an HTTP/2 frame on stream 0: a length below 64 KiB, then SETTINGS (0x4,
 * what an h2c server sends first) or GOAWAY (0x7, its answer to a request
 * that is not the HTTP/2 connection preface), as nginx's h2c-only listen
 * answers HTTP/1.1.  The hint replaces the parser's message. */
static const char *hc_h2_hint(const char *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    if (n < 4 || b[0] != 0 || (b[3] != 0x04 && b[3] != 0x07)) return NULL;
    for (size_t i = 5; i < n && i < 9; i++)
        if ((b[i] & (i == 5 ? 0x7f : 0xff)) != 0) return NULL;   /* stream 0 (the reserved bit aside) */
    return "the server answered in HTTP/2 (h2c): use http = \"2\"";
}

static size_t hc_on_data(net_conn *nc, void *owner, const char *p, size_t n) {
    http_conn *conn = owner;
    (void)nc;
    if (!conn->req) {                        /* idle: the server spoke out of turn */
        hc_idle_drop(conn);
        return n;
    }
    if (conn->attempt_rx == 0) conn->req->first_byte_ns = uv_hrtime();
    conn->attempt_rx += (uint64_t)n;
    conn->req->bytes_received += (uint64_t)n;
    size_t used;
    int rc = hp_parser_feed(&conn->parser, p, n, &used);
    if (rc == HP_NEED_MORE) return n;
    if (rc == HP_ERROR) {
        int st = hp_parser_too_big(&conn->parser) ? HTTP_EBODY : HTTP_EPROTO;
        const char *hint = conn->attempt_rx == (uint64_t)n ? hc_h2_hint(p, n) : NULL;
        hc_finish(conn, st, 0, hint ? hint : hp_parser_error(&conn->parser));
        return n;
    }
    if (used < n) conn->parser.keep_alive = 0;   /* unsolicited bytes: do not reuse */
    hc_finish(conn, 0, 0, NULL);
    return n;
}

/* A read failure (err; clean: the stream's end was a TLS close_notify, or
 * plaintext).  A body delimited by the end of the connection is complete
 * only at a clean end: over TLS, a bare TCP close may be an attacker's
 * truncation (curl refuses it too). */
static void hc_read_failed(http_conn *conn, int err, int clean) {
    if (err == UV_EOF && hp_parser_eof(&conn->parser) == HP_DONE) {
        if (!clean) {
            hc_finish(conn, HTTP_ETLS, err, "connection closed without close_notify "
                                            "(a body delimited by the connection's end may be truncated)");
            return;
        }
        hc_finish(conn, 0, 0, NULL);         /* a body delimited by the end of the connection */
        return;
    }
    if (hc_retry(conn, err)) return;
    if (err == UV_EOF && conn->attempt_rx > 0 && conn->parser.err &&
        strcmp(conn->parser.err, "connection closed before the response ended") != 0) {
        hc_finish(conn, HTTP_EPROTO, 0, conn->parser.err);
        return;
    }
    hc_finish(conn, HTTP_EREAD, err, NULL);
}

static void hc_on_fail(void *owner, int status, net_phase ph, const char *msg) {
    http_conn *conn = owner;
    if (!conn->req) {                        /* idle: the server closed it */
        hc_idle_drop(conn);
        return;
    }
    int clean = conn->nc ? net_conn_clean_eof(conn->nc) : 1;
    hc_detach(conn);                         /* already closing: settle the counts */
    if (status == NET_ETLS) {
        snprintf(conn->errmsg, sizeof conn->errmsg, "%s", msg ? msg : "TLS error");
        hc_finish(conn, HTTP_ETLS, status, conn->errmsg);
    } else if (ph == NET_PH_CONNECT || ph == NET_PH_TLS) {
        hc_finish(conn, HTTP_ECONNECT, status, NULL);
    } else if (ph == NET_PH_WRITE) {
        hc_write_failed(conn, status);
    } else {
        hc_read_failed(conn, status, clean);
    }
}

static void hc_on_open(net_conn *nc, void *owner) {
    http_conn *conn = owner;
    http_client *c = conn->client;
    conn->state = HC_OPEN;
    c->connects++;
    if (!conn->req) return;
    conn->req->connects++;
    conn->req->tls_ns += net_conn_tls_ns(nc);
    uint64_t now = uv_hrtime(), took = now - conn->req->connect_start_ns;
    conn->req->connect_ns += took > net_conn_tls_ns(nc) ? took - net_conn_tls_ns(nc) : 0;
    conn->req->sent_ns = now;                /* the queued request leaves now */
}

static const net_conn_cbs hc_conn_cbs = {
    .on_open = hc_on_open,
    .on_data = hc_on_data,
    .on_fail = hc_on_fail,
    .on_closed = client_life_on_owner_closed,
};

/* "auto": a connection whose server selected http/1.1 by ALPN, handed over
 * by the HTTP/2 side (client/http_h2.c, which counted it as opened and
 * put its timing on the request that opened it): an idle open slot, taken
 * by that request when it falls back (hc_fallback_conn), else by the next
 * one.  1 when taken. */
static int hc_adopt(void *arg, net_conn *nc) {
    http_client *c = arg;
    if (c->life.closing) return 0;
    http_conn *conn = c->idle_closed ? c->idle_closed : hc_conn_new(c);
    if (!conn || net_conn_hand_over(nc, &c->cfg, conn) != 0) return 0;
    conn->nc = nc;
    conn->state = HC_OPEN;
    conn->adopted = 1;
    conn->sent_mark = net_conn_sent(nc);
    client_life_hold(&c->life);              /* released by its on_closed, as for hc_open */
    c->nopen++;
    hc_push(&c->idle_open, conn);
    return 1;
}

/* ---- public ---- */

void http_client_send(http_client *c, http_req *req, const hp_request *r) {
    req->sys_err = 0;
    req->detail = NULL;
    req->bytes_sent = req->bytes_received = 0;
    req->connects = req->retried = 0;
    req->tls_ns = req->connect_ns = req->sent_ns = req->first_byte_ns = req->dns_ns = 0;
    req->setup_wait_ns = req->h2_queued_ns = 0;
    req->conn = NULL;
    req->deadline_ns = 0;
    req->head = r->method == HP_HEAD;
    if (c->life.closing) {
        req->sys_err = UV_ECANCELED;
        req->on_done(req, HTTP_ECANCELED, NULL);
        return;
    }
    if (c->h2 && !hh2_h1(c->h2)) {
        hp_request rr = *r;
        if (!rr.host) rr.host = c->authority, rr.host_len = c->authority_len;
        uint64_t to = req->timeout_ns ? req->timeout_ns : c->opts.timeout_ns;
        uint64_t now = req->start_ns ? req->start_ns : uv_hrtime();
        req->deadline_ns = to ? now + to : 0;
        req->h2 = NULL;
        if (c->opts.version == HTTP_VAUTO) req->h2_queued_ns = uv_hrtime();   /* it may fall back: hc_fallback */
        hh2_send(c->h2, req, &rr);
        return;
    }
    hc_send1(c, req, r);
}

/* HTTP/1.1: an idle connection, or a new one. */
static void hc_send1(http_client *c, http_req *req, const hp_request *r) {
    hc_send1_on(c, c->idle_open ? c->idle_open : c->idle_closed ? c->idle_closed : hc_conn_new(c), req, r);
}

/* HTTP/1.1 on conn (NULL: out of memory). */
static void hc_send1_on(http_client *c, http_conn *conn, http_req *req, const hp_request *r) {
    if (!conn) {
        req->on_done(req, HTTP_ENOMEM, NULL);
        return;
    }
    hp_request rr = *r;
    rr.host = c->authority;
    rr.host_len = c->authority_len;
    rr.close = !c->opts.keepalive;
    size_t need = hp_encode_request(conn->wbuf, conn->wcap, &rr);
    if (need > conn->wcap) {
        if (grow_reserve(&conn->wbuf, &conn->wcap, need, HC_WBUF_INIT, SIZE_MAX) != 0) {
            req->on_done(req, HTTP_ENOMEM, NULL);
            return;
        }
        need = hp_encode_request(conn->wbuf, conn->wcap, &rr);
    }
    if (need == 0) {
        req->on_done(req, HTTP_EINVAL, NULL);
        return;
    }
    hc_push(&c->busy, conn);
    c->nbusy++;
    conn->req = req;
    req->conn = conn;
    conn->wlen = need;
    conn->attempt_rx = 0;
    req->body_limit = req->max_body ? req->max_body : c->opts.max_body;
    conn->parser.max_body = req->body_limit;
    conn->parser.discard_body = req->discard_body || c->opts.discard_body;
    hp_parser_reset(&conn->parser, req->head);
    uint64_t to = req->timeout_ns ? req->timeout_ns : c->opts.timeout_ns;
    uint64_t now = req->start_ns ? req->start_ns : uv_hrtime();
    req->deadline_ns = to ? now + to : 0;
    hc_arm(conn, req->deadline_ns, now);
    if (conn->state == HC_OPEN) {
        conn->reused = !conn->adopted;       /* a handed-over connection is fresh: no retry */
        conn->adopted = 0;
        int qrc = hc_queue(conn);
        if (qrc < 0) hc_finish(conn, HTTP_ENOMEM, qrc, NULL);
        return;
    }
    conn->reused = 0;
    int rc = hc_connect(conn);
    if (rc < 0) hc_finish(conn, HTTP_ECONNECT, rc, NULL);
}

void http_client_close(http_client *c) {
    if (!c || c->life.closing) return;
    c->life.closing = 1;
    while (c->busy) hc_finish(c->busy, HTTP_ECANCELED, UV_ECANCELED, NULL);
    hh2_close(c->h2);
    for (http_conn *conn = c->all; conn; conn = conn->next_all) {
        hc_detach(conn);
        hc_disarm(conn);
        uv_close((uv_handle_t *)&conn->timer, client_life_on_handle_closed);
    }
    if (c->resolving) uv_cancel((uv_req_t *)&c->gai);   /* its callback still comes (UV_EAI_CANCELED) */
    if (c->life.nhandles == 0) hc_client_free(c);
}

size_t http_client_pending(const http_client *c) { return c->nbusy + (c->h2 ? hh2_pending(c->h2) : 0); }

void http_client_get_stats(const http_client *c, http_client_stats *s) {
    s->connects = c->connects;
    s->retries = c->retries;
    s->requests = c->requests;
    s->conns = c->nconns;
    s->open = c->nopen;
    net_tls_stats ts = {0, 0};
    if (c->tls) net_tls_client_stats(c->tls, &ts);
    s->tls_handshakes = ts.handshakes;
    s->tls_resumed = ts.resumed;
    if (c->h2) hh2_add_stats(c->h2, s);
}

uint64_t http_client_lookups(const http_client *c) { return c->lookups + (c->h2 ? hh2_lookups(c->h2) : 0); }

const char *http_client_name(const http_client *c) { return c->name; }
