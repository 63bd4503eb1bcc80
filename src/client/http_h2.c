/* http_h2.c - HTTP requests over HTTP/2 for http_client (see http_h2.h):
 * each request becomes a header list (pseudo-headers, the caller's headers
 * with lowercase names, content-length; connection-specific headers
 * dropped) and a body, copied into a record kept for the next request
 * (and for a retry; a bodiless request equal to the one the record held
 * reuses its list as it is), then a stream of the first session with room,
 * or of a new connection.  The response's fields and DATA go into the record's
 * hp_parser through hp_parser_put_* (limits as for HTTP/1.1).  Host names
 * are looked up on libuv's thread pool when a new connection needs the
 * address and the last lookup is older than dns_ttl_ns (one timer fails
 * the requests whose deadline passes while they wait for it); with
 * "auto", a connection whose server selected http/1.1 is handed to the
 * HTTP/1.1 path (cfg.adopt) rather than closed.  Frames are
 * client/h2_session's business; nothing here touches a socket or Lua. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "client/http_h2.h"
#include "client/h2_session.h"
#include "common/clock.h"
#include "common/grow.h"
#include "common/net.h"
#include "net/conn.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HH2_RBUF_SIZE (64 * 1024)
#define HH2_MAX_RETRIES 2

typedef struct hh2_conn {
    hh2 *h;
    h2_session *s;
    h2_session_cfg scfg;           /* outlives the session (freed in its on_closed) */
    int dead, opened;
    uint64_t start_ns, connect_ns, tls_ns;
    struct hh2_conn *next;
} hh2_conn;

typedef struct hh2_rx {
    hh2 *h;
    http_req *req;
    hh2_conn *conn;
    h2_stream *st;                 /* its stream, while one is open */
    int opener;                    /* this request opened conn (its timing is the request's) */
    int fail;                      /* the HTTP status of a stream we reset ourselves */
    const char *why;               /* and its reason, when ours (NULL: the parser's) */
    int regular;                   /* a regular field was seen: no pseudo-header may follow */
    long long clen;                /* the response's content-length, -1 when none */
    hp_parser parser;
    char *buf;                     /* names (lowercase), values, body */
    size_t cap;
    h2_nv *nv;
    size_t nnv, nv_cap;
    size_t body_off, body_len;
    int plain;                     /* the list holds a plain request (hh2_plain) of method: */
    hp_method method;              /* hh2_same may find the next one equal */
    char errmsg[300];
    hp_header *h1;                 /* the request rebuilt for HTTP/1.1 (fallback) */
    size_t h1_cap;
    struct hh2_rx *prev, *next;    /* busy or waiting list; free list (next) */
} hh2_rx;

struct hh2 {
    hh2_cfg cfg;
    size_t authority_len;          /* strlen(cfg.authority) */
    net_conn_cfg conn;
    struct sockaddr_storage addr;
    uint64_t addr_ns;
    uv_getaddrinfo_t gai;
    uv_timer_t timer;              /* the deadlines of the requests waiting for a lookup */
    uint64_t timer_due;
    int resolving, closing, h1;
    uint64_t lookups, connects, retries, requests;
    hh2_conn *conns;
    hh2_rx *busy, *waiting, *free;
    size_t nbusy;
};

static const h2_stream_cbs hh2_stream_cbs;
static const h2_session_cbs hh2_session_cbs;
static void hh2_dispatch(hh2_rx *rx, int fresh);

/* ---- lists ---- */

static void hh2_unlink(hh2_rx **list, hh2_rx *rx) {
    if (rx->prev) rx->prev->next = rx->next;
    else *list = rx->next;
    if (rx->next) rx->next->prev = rx->prev;
    rx->prev = rx->next = NULL;
}

static void hh2_push(hh2_rx **list, hh2_rx *rx) {
    rx->prev = NULL;
    rx->next = *list;
    if (*list) (*list)->prev = rx;
    *list = rx;
}

/* ---- creation ---- */

int hh2_new(const hh2_cfg *cfg, hh2 **out) {
    hh2 *h = calloc(1, sizeof *h);
    if (!h) return UV_ENOMEM;
    h->cfg = *cfg;
    h->authority_len = strlen(cfg->authority);
    if (cfg->addr) h->addr = *cfg->addr;
    h->gai.data = h;
    h->conn.loop = cfg->loop;
    h->conn.addr = &h->addr;
    h->conn.connect_timeout_ns = cfg->connect_timeout_ns;   /* 0: the requests' deadlines cover it */
    h->conn.rbuf_init = HH2_RBUF_SIZE;
    h->conn.tls = cfg->tls;
    int rc = uv_timer_init(cfg->loop, &h->timer);
    if (rc < 0) {
        free(h);
        return rc;
    }
    h->timer.data = h;
    client_life_hold(cfg->life);             /* released when the timer is closed (hh2_close) */
    *out = h;
    return 0;
}

void hh2_free(hh2 *h) {
    if (!h) return;
    while (h->free) {
        hh2_rx *rx = h->free;
        h->free = rx->next;
        hp_parser_free(&rx->parser);
        free(rx->buf);
        free(rx->nv);
        free(rx->h1);
        free(rx);
    }
    free(h);
}

/* ---- completion ---- */

/* The request is over: on_done last; the record returns to the pool after
 * it (the response lives in its parser), the client kept alive meanwhile. */
static void hh2_finish(hh2_rx *rx, int status, int sys, const char *detail) {
    hh2 *h = rx->h;
    http_req *req = rx->req;
    hh2_unlink(&h->busy, rx);
    h->nbusy--;
    h->requests++;
    req->sys_err = sys;
    req->detail = detail;
    req->h2 = NULL;
    rx->conn = NULL;
    client_life *life = h->cfg.life;
    client_life_hold(life);
    req->on_done(req, status, status == 0 ? &rx->parser : NULL);
    rx->req = NULL;
    rx->next = h->free;
    h->free = rx;
    client_life_release(life);
}

/* ---- sessions ---- */

static hh2_conn *hh2_conn_open(hh2 *h, int *rc) {
    hh2_conn *c = calloc(1, sizeof *c);
    if (!c) {
        *rc = UV_ENOMEM;
        return NULL;
    }
    c->h = h;
    c->scfg.conn = h->conn;
    c->scfg.conn.alpn = h->cfg.tls ? h->cfg.alpn : NULL;
    c->scfg.max_streams = h->cfg.max_streams;
    c->scfg.cbs = &hh2_session_cbs;
    c->scfg.http_checks_own = 1;             /* hh2_on_header, hh2_on_data, hh2_on_close */
    c->scfg.first_stream_id = h->cfg.first_stream_id;
    c->start_ns = uv_hrtime();
    *rc = h2_session_new(&c->scfg, c, &c->s);
    if (*rc < 0) {
        free(c);
        return NULL;
    }
    client_life_hold(h->cfg.life);
    c->next = h->conns;
    h->conns = c;
    return c;
}

static void hh2_on_open(h2_session *s, void *owner) {
    hh2_conn *c = owner;
    c->opened = 1;
    c->h->connects++;
    net_conn *nc = h2_session_conn(s);
    c->tls_ns = nc ? net_conn_tls_ns(nc) : 0;
    uint64_t took = uv_hrtime() - c->start_ns;
    c->connect_ns = took > c->tls_ns ? took - c->tls_ns : 0;
}

/* The server chose HTTP/1.1 (auto): the connection goes to the HTTP/1.1
 * path, counted here as one connection opened (its timing is the opening
 * request's, as for an h2 connection). */
static int hh2_on_other_alpn(h2_session *s, void *owner, net_conn *nc, const char *alpn) {
    hh2_conn *c = owner;
    hh2 *h = c->h;
    (void)s;
    if (!h->cfg.adopt || h->closing || (alpn && strcmp(alpn, "http/1.1") != 0)) return 0;
    uint64_t tls_ns = net_conn_tls_ns(nc), took = uv_hrtime() - c->start_ns;
    if (!h->cfg.adopt(h->cfg.fallback_arg, nc)) return 0;
    c->opened = 1;
    h->connects++;
    c->tls_ns = tls_ns;
    c->connect_ns = took > tls_ns ? took - tls_ns : 0;
    return 1;
}

static void hh2_on_dead(h2_session *s, void *owner) {
    hh2_conn *c = owner;
    (void)s;
    c->dead = 1;
}

static void hh2_on_closed(void *owner) {
    hh2_conn *c = owner;
    hh2 *h = c->h;
    for (hh2_conn **pp = &h->conns; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    free(c);
    client_life_release(h->cfg.life);
}

static const h2_session_cbs hh2_session_cbs = {
    .on_open = hh2_on_open,
    .on_dead = hh2_on_dead,
    .on_closed = hh2_on_closed,
    .on_other_alpn = hh2_on_other_alpn,
};

/* ---- a stream's callbacks ---- */

/* The stream is reset for a malformed response (RFC 9113 8.1.1): the
 * checks nghttp2's HTTP messaging made (it is off: h2_session_cfg
 * http_checks_own) that a user relies on. */
static int hh2_malformed(hh2_rx *rx, const char *why) {
    rx->fail = HTTP_EPROTO;
    rx->why = why;
    return 1;
}

/* ":status": three digits, 200-599 (1xx blocks never come here). */
static int hh2_status(hh2_rx *rx, const char *v, size_t vl) {
    if (rx->parser.status) return hh2_malformed(rx, "HTTP/2 response with more than one :status");
    if (vl != 3 || v[0] < '2' || v[0] > '9' || v[1] < '0' || v[1] > '9' || v[2] < '0' || v[2] > '9')
        return hh2_malformed(rx, "HTTP/2 response with an invalid :status");
    hp_parser_put_status(&rx->parser, (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0'), 2, 0);
    return 0;
}

/* "content-length": digits only; a repeated one must say the same. */
static int hh2_clen(hh2_rx *rx, const char *v, size_t vl) {
    long long x = 0;
    if (vl == 0 || vl > 18) return hh2_malformed(rx, "HTTP/2 response with an invalid content-length");
    for (size_t i = 0; i < vl; i++) {
        if (v[i] < '0' || v[i] > '9') return hh2_malformed(rx, "HTTP/2 response with an invalid content-length");
        x = x * 10 + (v[i] - '0');
    }
    if (rx->clen >= 0 && rx->clen != x) return hh2_malformed(rx, "HTTP/2 response with two different content-lengths");
    rx->clen = x;
    return 0;
}

static int hh2_on_header(void *ud, int block, const char *n, size_t nl, const char *v, size_t vl) {
    hh2_rx *rx = ud;
    int known = block & H2_NAME_STATIC;
    if ((block & ~H2_NAME_STATIC) != H2_BLOCK_HEADERS) return 0;   /* trailers: not kept (as with HTTP/1.1) */
    if (nl && n[0] == ':') {
        if (rx->regular) return hh2_malformed(rx, "HTTP/2 response with a pseudo-header after a regular field");
        if (nl == 7 && memcmp(n, ":status", 7) == 0) return hh2_status(rx, v, vl);
        return hh2_malformed(rx, "HTTP/2 response with a pseudo-header other than :status");
    }
    rx->regular = 1;
    int rc = known ? hp_parser_put_header_known(&rx->parser, n, nl, v, vl) : hp_parser_put_header(&rx->parser, n, nl, v, vl);
    if (rc < 0) return hh2_malformed(rx, NULL);
    if (rc == 0 && nl == 14 && memcmp(n, "content-length", 14) == 0) return hh2_clen(rx, v, vl);
    return 0;
}

/* The body length the response must have: 0 for HEAD, 204 and 304, else
 * its content-length; -1 when unknown. */
static long long hh2_want_body(const hh2_rx *rx) {
    if (rx->parser.head || rx->parser.status == 204 || rx->parser.status == 304) return 0;
    return rx->clen;
}

static int hh2_on_data(void *ud, const char *p, size_t n) {
    hh2_rx *rx = ud;
    if (!rx->parser.status) return hh2_malformed(rx, "HTTP/2 response DATA before its :status");
    if (hp_parser_put_body(&rx->parser, p, n) != 0) {
        rx->fail = hp_parser_too_big(&rx->parser) ? HTTP_EBODY : HTTP_EPROTO;
        return 1;
    }
    long long want = hh2_want_body(rx);
    if (want >= 0 && rx->parser.body_seen > (unsigned long long)want)
        return hh2_malformed(rx, "HTTP/2 response body longer than its content-length");
    return 0;
}

/* The stream's figures into the request (retries add up). */
static void hh2_account(hh2_rx *rx, h2_stream *st) {
    http_req *req = rx->req;
    req->bytes_sent += h2_stream_bytes_out(st);
    req->bytes_received += h2_stream_bytes_in(st);
    if (h2_stream_sent_ns(st)) req->sent_ns = h2_stream_sent_ns(st);
    if (h2_stream_first_byte_ns(st)) req->first_byte_ns = h2_stream_first_byte_ns(st);
    if (rx->opener && rx->conn && rx->conn->opened) {
        req->connects++;
        req->connect_ns += rx->conn->connect_ns;
        req->tls_ns += rx->conn->tls_ns;
    }
    rx->opener = 0;
}

/* The server chose HTTP/1.1: rx's request, rebuilt from its copy (the
 * authority as a Host header), goes to the client's HTTP/1.1 path; the
 * record returns to the pool. */
static void hh2_fallback(hh2_rx *rx) {
    hh2 *h = rx->h;
    http_req *req = rx->req;
    hp_request r;
    memset(&r, 0, sizeof r);
    if (rx->nnv > rx->h1_cap) {
        hp_header *a = realloc(rx->h1, rx->nnv * sizeof *a);
        if (!a) {
            hh2_finish(rx, HTTP_ENOMEM, 0, NULL);
            return;
        }
        rx->h1 = a;
        rx->h1_cap = rx->nnv;
    }
    size_t n = 0;
    for (size_t i = 0; i < rx->nnv; i++) {
        const h2_nv *v = &rx->nv[i];
        if (v->name_len == 7 && memcmp(v->name, ":method", 7) == 0) {
            r.method = (hp_method)hp_method_parse(v->value, v->value_len);
        } else if (v->name_len == 5 && memcmp(v->name, ":path", 5) == 0) {
            r.path = v->value;
            r.path_len = v->value_len;
        } else if (v->name_len == 10 && memcmp(v->name, ":authority", 10) == 0) {
            rx->h1[n++] = (hp_header){"host", 4, v->value, v->value_len};
        } else if (v->name[0] != ':' && !(v->name_len == 14 && memcmp(v->name, "content-length", 14) == 0)) {
            rx->h1[n++] = (hp_header){v->name, v->name_len, v->value, v->value_len};
        }
    }
    r.headers = rx->h1;
    r.nheaders = n;
    r.body = rx->body_len ? rx->buf + rx->body_off : NULL;
    r.body_len = rx->body_len;
    hh2_unlink(&h->busy, rx);
    h->nbusy--;
    req->h2 = NULL;
    rx->conn = NULL;
    rx->req = NULL;
    client_life *life = h->cfg.life;
    client_life_hold(life);
    h->cfg.fallback(h->cfg.fallback_arg, req, &r);   /* copies what it needs before returning */
    rx->next = h->free;
    h->free = rx;
    client_life_release(life);
}

static void hh2_on_close(void *ud, int status, uint32_t code, int sys, const char *msg) {
    hh2_rx *rx = ud;
    hh2 *h = rx->h;
    hh2_conn *conn = rx->conn;
    http_req *req = rx->req;
    hh2_account(rx, rx->st);
    rx->st = NULL;
    if (conn && !h->cfg.keepalive && !conn->dead && h2_session_active(conn->s) == 0) h2_session_close(conn->s);
    switch (status) {
    case 0:
        if (rx->parser.status == 0) {
            hh2_finish(rx, HTTP_EPROTO, 0, "HTTP/2 response without :status");
            return;
        }
        if (hh2_want_body(rx) >= 0 && rx->parser.body_seen != (unsigned long long)hh2_want_body(rx)) {
            hh2_finish(rx, HTTP_EPROTO, 0, "HTTP/2 response body shorter than its content-length");
            return;
        }
        hp_parser_put_end(&rx->parser);
        hh2_finish(rx, 0, 0, NULL);
        return;
    case H2_EREFUSED:
        if (req->retried < HH2_MAX_RETRIES && !h->closing) {
            req->retried++;
            h->retries++;
            rx->conn = NULL;
            hp_parser_reset(&rx->parser, req->head);
            hh2_dispatch(rx, 0);
            return;
        }
        snprintf(rx->errmsg, sizeof rx->errmsg, "HTTP/2 request refused by the server (%s), %d retries",
                 code ? h2_error_name(code) : "GOAWAY", req->retried);
        hh2_finish(rx, HTTP_EREAD, 0, rx->errmsg);
        return;
    case H2_ERESET:
        snprintf(rx->errmsg, sizeof rx->errmsg, "HTTP/2 stream reset by the server (%s)", h2_error_name(code));
        hh2_finish(rx, HTTP_EREAD, 0, rx->errmsg);
        return;
    case H2_EGOAWAY:
        snprintf(rx->errmsg, sizeof rx->errmsg, "HTTP/2 connection going away (GOAWAY %s) before the response ended",
                 h2_error_name(code));
        hh2_finish(rx, HTTP_EREAD, 0, rx->errmsg);
        return;
    case H2_ECONN:
        hh2_finish(rx, HTTP_EREAD, sys, NULL);
        return;
    case H2_ENOTH2:
        if (h->cfg.fallback && !h->closing) {
            h->h1 = 1;
            hh2_fallback(rx);
            return;
        }
        snprintf(rx->errmsg, sizeof rx->errmsg, "%s; http = \"2\" requires HTTP/2",
                 msg ? msg : "the server did not select h2 by ALPN");
        hh2_finish(rx, HTTP_ESETUP, 0, rx->errmsg);
        return;
    case H2_ECONNECT:
        if (sys == NET_ETLS) {
            snprintf(rx->errmsg, sizeof rx->errmsg, "%s", msg ? msg : "TLS error");
            hh2_finish(rx, HTTP_ETLS, sys, rx->errmsg);
            return;
        }
        hh2_finish(rx, HTTP_ECONNECT, sys, NULL);
        return;
    case H2_EPROTO:
        snprintf(rx->errmsg, sizeof rx->errmsg, "HTTP/2: %s", msg ? msg : "protocol error");
        hh2_finish(rx, HTTP_EPROTO, 0, rx->errmsg);
        return;
    case H2_ENOSTREAMS:                      /* not retried: every connection to it would say the same */
        snprintf(rx->errmsg, sizeof rx->errmsg, "HTTP/2: %s", msg ? msg : h2_strerror(status));
        hh2_finish(rx, HTTP_ESETUP, 0, rx->errmsg);
        return;
    case H2_ETIMEOUT:
        hh2_finish(rx, HTTP_ETIMEOUT, UV_ETIMEDOUT, NULL);
        return;
    case H2_ECANCELED:
        if (rx->fail == HTTP_EBODY || rx->fail == HTTP_EPROTO) {
            hh2_finish(rx, rx->fail, 0, rx->why ? rx->why : hp_parser_error(&rx->parser));
            return;
        }
        hh2_finish(rx, HTTP_ECANCELED, UV_ECANCELED, NULL);
        return;
    default:
        hh2_finish(rx, HTTP_ENOMEM, 0, NULL);
    }
}

static const h2_stream_cbs hh2_stream_cbs = {
    .on_header = hh2_on_header,
    .on_data = hh2_on_data,
    .on_close = hh2_on_close,
};

/* ---- name lookups ---- */

static void hh2_on_resolved(uv_getaddrinfo_t *gai, int status, struct addrinfo *res) {
    hh2 *h = gai->data;
    uint64_t now = uv_hrtime();
    int rc = status == 0 ? net_addr_pick(res, h->cfg.port, &h->addr) : status;
    uv_freeaddrinfo(res);
    h->resolving = 0;
    if (rc == 0) h->addr_ns = now;
    client_life *life = h->cfg.life;
    client_life_hold(life);                  /* on_done may close the client */
    client_life_release(life);               /* the lookup's own hold */
    while (h->waiting && !h->closing) {
        hh2_rx *rx = h->waiting;
        hh2_unlink(&h->waiting, rx);
        hh2_push(&h->busy, rx);
        rx->req->dns_ns += now - rx->req->dns_start_ns;
        if (rc == 0) {
            hh2_dispatch(rx, 1);
            continue;
        }
        snprintf(rx->errmsg, sizeof rx->errmsg, "cannot resolve %s: %s", h->cfg.host, uv_strerror(rc));
        hh2_finish(rx, HTTP_ECONNECT, rc, rx->errmsg);
    }
    client_life_release(life);
}

/* A request's deadline passed while it waited for the lookup (the
 * request timeout covers getaddrinfo, as on the HTTP/1.1 path): it fails
 * with HTTP_ETIMEOUT; the lookup goes on for the others. */
static void hh2_on_timer(uv_timer_t *t) {
    hh2 *h = t->data;
    h->timer_due = 0;
    if (h->closing) return;
    uint64_t now = uv_hrtime(), next = 0;
    client_life *life = h->cfg.life;
    client_life_hold(life);                  /* on_done may close the client */
    hh2_rx *rx = h->waiting;
    while (rx && !h->closing) {
        hh2_rx *nx = rx->next;
        uint64_t dl = rx->req->deadline_ns;
        if (dl && dl <= now) {
            hh2_unlink(&h->waiting, rx);
            hh2_push(&h->busy, rx);
            rx->req->dns_ns += now - rx->req->dns_start_ns;
            hh2_finish(rx, HTTP_ETIMEOUT, UV_ETIMEDOUT, NULL);
        } else if (dl && (next == 0 || dl < next)) {
            next = dl;
        }
        rx = nx;
    }
    if (next && !h->closing) clock_timer_arm(&h->timer, &h->timer_due, hh2_on_timer, next, now);
    client_life_release(life);
}

static void hh2_on_timer_closed(uv_handle_t *t) {
    hh2 *h = t->data;
    client_life_release(h->cfg.life);
}

/* Wait for a fresh address. 0 or a libuv status. */
static int hh2_wait_lookup(hh2_rx *rx) {
    hh2 *h = rx->h;
    if (!h->resolving) {
        struct addrinfo hints;
        memset(&hints, 0, sizeof hints);
        hints.ai_socktype = SOCK_STREAM;
        int rc = uv_getaddrinfo(h->cfg.loop, &h->gai, hh2_on_resolved, h->cfg.host, NULL, &hints);
        if (rc < 0) return rc;
        h->resolving = 1;
        h->lookups++;
        client_life_hold(h->cfg.life);
    }
    uint64_t now = uv_hrtime();
    rx->req->dns_start_ns = now;
    hh2_unlink(&h->busy, rx);
    hh2_push(&h->waiting, rx);
    clock_timer_arm(&h->timer, &h->timer_due, hh2_on_timer, rx->req->deadline_ns, now);
    return 0;
}

/* ---- sending ---- */

static hh2_conn *hh2_pick(hh2 *h) {
    for (hh2_conn *c = h->conns; c; c = c->next)
        if (!c->dead && c->s && h2_session_room(c->s) > 0) return c;
    return NULL;
}

/* Send the request rx holds on a session with room, or a new connection
 * (fresh: the address was just looked up).  A session that refuses a new
 * stream because its stream ids are used up (RFC 9113 5.1.1) is dead from
 * then on (h2_session.h): the request goes to another, at most once. */
static void hh2_dispatch(hh2_rx *rx, int fresh) {
    hh2 *h = rx->h;
    http_req *req = rx->req;
    int again = 1;
pick:;
    hh2_conn *c = hh2_pick(h);
    if (!c) {
        uint64_t now = uv_hrtime();
        if (!fresh && h->cfg.host && (h->addr_ns == 0 || now - h->addr_ns >= h->cfg.dns_ttl_ns)) {
            int rc = hh2_wait_lookup(rx);
            if (rc < 0) hh2_finish(rx, HTTP_ECONNECT, rc, NULL);
            return;
        }
        int rc;
        if ((c = hh2_conn_open(h, &rc)) == NULL) {
            hh2_finish(rx, HTTP_ECONNECT, rc, NULL);
            return;
        }
        rx->opener = 1;
        if (!req->connect_start_ns) req->connect_start_ns = now;
    }
    rx->conn = c;
    rx->fail = 0;
    rx->why = NULL;
    rx->regular = 0;
    rx->clen = -1;
    int status;
    h2_stream *st = h2_stream_open(c->s, rx->nv, rx->nnv, rx->buf + rx->body_off, rx->body_len, 1,
                                   req->deadline_ns, &hh2_stream_cbs, rx, &status);
    if (!st) {
        rx->conn = NULL;
        if (status == H2_EREFUSED && again && (c->dead || h2_session_dead(c->s))) {
            again = 0;
            rx->opener = 0;
            goto pick;
        }
        hh2_finish(rx, status == H2_ENOMEM ? HTTP_ENOMEM : status == H2_EREFUSED ? HTTP_ECONNECT : HTTP_EINVAL, 0,
                   status == H2_ENOMEM      ? NULL
                   : status == H2_EREFUSED ? "HTTP/2: no connection takes a new stream"
                                           : "HTTP/2: the header list was refused");
        return;
    }
    rx->st = st;
}

/* Headers HTTP/2 forbids (RFC 9113 8.2.2): connection-specific ones (and
 * Host, which becomes :authority).  Chosen by length first: most headers
 * are compared with none. */
static int hh2_dropped(const char *n, size_t nl) {
    switch (nl) {
    case 2: return strncasecmp(n, "te", 2) == 0;
    case 4: return strncasecmp(n, "host", 4) == 0;
    case 7: return strncasecmp(n, "upgrade", 7) == 0;
    case 10: return strncasecmp(n, "connection", 10) == 0 || strncasecmp(n, "keep-alive", 10) == 0;
    case 16: return strncasecmp(n, "proxy-connection", 16) == 0;
    default: return 0;
    }
}

/* Eight bytes lowercased at once: an uppercase ASCII letter gets 0x20
 * added, nothing else changes. */
static inline uint64_t hh2_lower8(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t low7 = w & ~highs;
    uint64_t upper = (low7 + (0x80 - 'A') * ones) & ~(low7 + (0x80 - 'Z' - 1) * ones) & ~w & highs;
    return w | upper >> 2;
}

/* name[0..n) lowercased into out: eight bytes at a time (hh2_lower8), the
 * rest one by one. */
static void hh2_lower(char *out, const char *name, size_t n) {
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, name + k, 8);
        w = hh2_lower8(w);
        memcpy(out + k, &w, 8);
    }
    for (; k < n; k++) {
        unsigned char c = (unsigned char)name[k];
        out[k] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
}

/* One field of the header list: its value copied to *o, its name too
 * (lowercased) unless it is a lowercase literal (literal 1: pointed at),
 * the entry rx->nv[*n] pointing at them.  nghttp2 takes both without a
 * copy (kept): rx->buf changes only in hh2_build, for a record taken from
 * the free list, i.e. after its stream's on_close. */
static void hh2_put(hh2_rx *rx, char **o, size_t *n, const char *name, size_t nl, int literal, const char *val,
                    size_t vl) {
    char *p = *o;
    h2_nv *nv = &rx->nv[*n];
    nv->name_static = H2_NV_KEPT;
    if (literal) {
        nv->name = name;
    } else {
        hh2_lower(p, name, nl);
        nv->name = p;
        p += nl;
    }
    nv->name_len = nl;
    if (vl) memcpy(p, val, vl);
    nv->value = p;
    nv->value_len = vl;
    *o = p + vl;
    (*n)++;
}

static int hh2_body_method(hp_method m) { return m == HP_POST || m == HP_PUT || m == HP_PATCH; }

/* The request's header list and body into rx (copied).  0, or -1: invalid
 * (HTTP_EINVAL), -2: out of memory. */
static int hh2_build(hh2_rx *rx, const hp_request *r) {
    hh2 *h = rx->h;
    if (!hp_path_valid(r->path, r->path_len)) return -1;
    const char *auth = h->cfg.authority;
    size_t alen = h->authority_len;
    if (r->host) auth = r->host, alen = r->host_len;
    const char *method = hp_method_name(r->method);
    size_t need = strlen(method) + alen + r->path_len + r->body_len + 24 + 64;
    for (size_t i = 0; i < r->nheaders; i++) {
        const hp_header *hd = &r->headers[i];
        if (!hp_header_name_valid(hd->name, hd->name_len) || !hp_header_value_valid(hd->value, hd->value_len) ||
            hp_header_reserved(hd->name, hd->name_len))
            return -1;
        if (hd->name_len == 4 && strncasecmp(hd->name, "host", 4) == 0) auth = hd->value, alen = hd->value_len;
        need += hd->name_len + hd->value_len;
    }
    need += alen;
    if (grow_reserve(&rx->buf, &rx->cap, need, 1024, SIZE_MAX) != 0) return -2;
    size_t nmax = r->nheaders + 5;
    if (nmax > rx->nv_cap) {
        size_t c = rx->nv_cap ? rx->nv_cap : 16;
        while (c < nmax) c *= 2;
        h2_nv *nv = realloc(rx->nv, c * sizeof *nv);
        if (!nv) return -2;
        rx->nv = nv;
        rx->nv_cap = c;
    }
    char *o = rx->buf;
    size_t n = 0;
    hh2_put(rx, &o, &n, ":method", 7, 1, method, strlen(method));
    if (h->cfg.tls) hh2_put(rx, &o, &n, ":scheme", 7, 1, "https", 5);
    else hh2_put(rx, &o, &n, ":scheme", 7, 1, "http", 4);
    hh2_put(rx, &o, &n, ":authority", 10, 1, auth, alen);
    hh2_put(rx, &o, &n, ":path", 5, 1, r->path, r->path_len);
    for (size_t i = 0; i < r->nheaders; i++) {
        const hp_header *hd = &r->headers[i];
        if (hh2_dropped(hd->name, hd->name_len)) continue;
        hh2_put(rx, &o, &n, hd->name, hd->name_len, 0, hd->value, hd->value_len);
    }
    if (r->body_len || hh2_body_method(r->method)) {
        char num[24];
        int nl = snprintf(num, sizeof num, "%zu", r->body_len);
        hh2_put(rx, &o, &n, "content-length", 14, 1, num, (size_t)nl);
    }
    rx->nnv = n;
    rx->body_off = (size_t)(o - rx->buf);
    rx->body_len = r->body_len;
    if (r->body_len) memcpy(o, r->body, r->body_len);
    return 0;
}

/* A request whose header list hh2_same can compare: no body (nor a
 * method that sends a content-length), no Host header (the authority is
 * r->host or the client's). */
static int hh2_plain(const hp_request *r) {
    if (r->body_len || hh2_body_method(r->method)) return 0;
    for (size_t i = 0; i < r->nheaders; i++)
        if (r->headers[i].name_len == 4 && strncasecmp(r->headers[i].name, "host", 4) == 0) return 0;
    return 1;
}

/* 1 when name[0..n) lowercased is lower[0..n) (eight bytes at a time,
 * hh2_lower8). */
static int hh2_lower_eq(const char *name, const char *lower, size_t n) {
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w, l;
        memcpy(&w, name + k, 8);
        memcpy(&l, lower + k, 8);
        if (hh2_lower8(w) != l) return 0;
    }
    for (; k < n; k++) {
        unsigned char c = (unsigned char)name[k];
        if ((char)(c >= 'A' && c <= 'Z' ? c + 32 : c) != lower[k]) return 0;
    }
    return 1;
}

/* 1 when rx's header list (built by hh2_build for a plain request, and not
 * changed since) is what hh2_build would make of r: the same method, path
 * and fields (names equal but for case, values byte for byte; the ones
 * HTTP/2 drops skipped).  Then the list is sent as it is: its bytes were
 * checked when it was built. */
static int hh2_same(const hh2_rx *rx, const hp_request *r) {
    if (!rx->plain || r->method != rx->method || r->body_len || hh2_body_method(r->method)) return 0;
    const h2_nv *nv = rx->nv;                     /* :method, :scheme, :authority, :path, fields */
    const char *auth = r->host ? r->host : rx->h->cfg.authority;
    size_t alen = r->host ? r->host_len : rx->h->authority_len;
    if (nv[2].value_len != alen || memcmp(nv[2].value, auth, alen) != 0) return 0;
    if (nv[3].value_len != r->path_len || memcmp(nv[3].value, r->path, r->path_len) != 0) return 0;
    size_t k = 4;
    for (size_t i = 0; i < r->nheaders; i++) {
        const hp_header *hd = &r->headers[i];
        if (hh2_dropped(hd->name, hd->name_len)) {
            if (hd->name_len == 4 && strncasecmp(hd->name, "host", 4) == 0) return 0;   /* the authority */
            if (!hp_header_value_valid(hd->value, hd->value_len)) return 0;   /* hh2_build refuses it */
            continue;
        }
        if (k == rx->nnv || nv[k].name_len != hd->name_len || nv[k].value_len != hd->value_len ||
            !hh2_lower_eq(hd->name, nv[k].name, hd->name_len) ||
            (hd->value_len && memcmp(nv[k].value, hd->value, hd->value_len) != 0))
            return 0;
        k++;
    }
    return k == rx->nnv;
}

static hh2_rx *hh2_rx_take(hh2 *h) {
    hh2_rx *rx = h->free;
    if (rx) {
        h->free = rx->next;
        rx->next = NULL;
        return rx;
    }
    rx = calloc(1, sizeof *rx);
    if (!rx) return NULL;
    rx->h = h;
    hp_parser_init(&rx->parser);
    return rx;
}

void hh2_send(hh2 *h, http_req *req, const hp_request *r) {
    hh2_rx *rx = hh2_rx_take(h);
    if (!rx) {
        req->on_done(req, HTTP_ENOMEM, NULL);
        return;
    }
    int rc = 0;
    if (!hh2_same(rx, r)) {
        rx->plain = 0;                            /* a failed build may have moved rx->buf */
        rc = hh2_build(rx, r);
        if (rc == 0) {
            rx->plain = hh2_plain(r);
            rx->method = r->method;
        }
    }
    if (rc != 0) {
        rx->next = h->free;
        h->free = rx;
        req->on_done(req, rc == -2 ? HTTP_ENOMEM : HTTP_EINVAL, NULL);
        return;
    }
    rx->req = req;
    rx->opener = 0;
    rx->conn = NULL;
    req->h2 = rx;
    rx->st = NULL;
    rx->parser.max_body = req->max_body ? req->max_body : h->cfg.max_body;
    req->body_limit = rx->parser.max_body;
    rx->parser.discard_body = req->discard_body || h->cfg.discard_body;
    hp_parser_reset(&rx->parser, req->head);
    hh2_push(&h->busy, rx);
    h->nbusy++;
    hh2_dispatch(rx, 0);
}

void hh2_close(hh2 *h) {
    if (!h || h->closing) return;
    h->closing = 1;
    while (h->waiting) {
        hh2_rx *rx = h->waiting;
        hh2_unlink(&h->waiting, rx);
        hh2_push(&h->busy, rx);
        hh2_finish(rx, HTTP_ECANCELED, UV_ECANCELED, NULL);
    }
    for (hh2_conn *c = h->conns; c; c = c->next) h2_session_close(c->s);
    if (h->resolving) uv_cancel((uv_req_t *)&h->gai);
    clock_timer_disarm(&h->timer, &h->timer_due);
    uv_close((uv_handle_t *)&h->timer, hh2_on_timer_closed);
}

size_t hh2_pending(const hh2 *h) { return h->nbusy; }
int hh2_h1(const hh2 *h) { return h->h1; }
uint64_t hh2_lookups(const hh2 *h) { return h->lookups; }

void hh2_add_stats(const hh2 *h, http_client_stats *s) {
    s->connects += h->connects;
    s->retries += h->retries;
    s->requests += h->requests;
    for (const hh2_conn *c = h->conns; c; c = c->next) {
        s->conns++;
        if (!c->dead) s->open++;
    }
}
