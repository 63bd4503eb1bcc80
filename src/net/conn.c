/* conn.c - one client connection on a libuv loop (see conn.h): connect with
 * a timeout, a growable read buffer handed to the owner's on_data, a write
 * queue flushed once per loop turn by a uv_prepare handle (libuv computes the
 * poll timeout after the prepare phase, so nothing waits: every request queued
 * in a turn leaves in one write), close, and the failure cause.
 *
 * Two tables of operations, chosen per connection, replace any branching on
 * what the connection is.  The transport (conn_transport: tp_plain,
 * tp_tls) says where the socket's bytes land, what arrived bytes become and
 * what goes on the wire: plaintext moves rbuf and wbuf themselves; TLS
 * (net/tls.c) decrypts from the space the socket read into and encrypts
 * wbuf straight into tout.  A connection starts plain and switches to TLS
 * once, at connect (cfg->tls) or later (net_conn_start_tls).  The I/O
 * backend (conn_io: io_epoll, io_uring) moves the bytes once connected:
 * libuv's stream (uv_read_start, uv_try_write then uv_write) or the loop's
 * io_uring ring (net/uring.c: one recv and at most one send in flight per
 * connection, all of a turn's submitted by one system call), by the loop's
 * mode (net_io_use, a value its owner set); connect and close always go
 * through libuv.  It knows no protocol, parses nothing, and does not
 * reconnect (the owner opens a new connection after a failure). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "net/conn.h"
#include "net/tls.h"
#include "net/uring.h"
#include "common/clock.h"
#include "common/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NET_RBUF_MIN_FREE 4096
#define NET_WBUF_INIT (16 * 1024)
#define NET_RBUF_DEFAULT (16 * 1024)

typedef enum net_state { NS_CONNECTING, NS_HANDSHAKE, NS_OPEN, NS_CLOSED } net_state;

struct net_conn {
    union {
        uv_handle_t handle;
        uv_stream_t stream;
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } h;
    uv_connect_t creq;
    uv_write_t wreq;
    uv_prepare_t flush;
    uv_timer_t timer;            /* connect + handshake timeout */
    uint64_t deadline_ns;        /* of the connect + handshake (uv_hrtime); 0 = none */
    const net_conn_cfg *cfg;
    void *owner;
    net_state state;
    int tcp;                     /* 0: unix socket */
    int writing;                 /* a uv_write is in flight */
    int nhandles;                /* handles not yet closed */
    size_t wfly_payload;         /* payload bytes behind the write in flight */
    uint64_t sent;
    uint64_t committed;          /* payload bytes ever queued (net_conn_wcommit) */
    net_buf wbuf;                /* payload queued for the next flush */
    net_buf wfly;                /* bytes of the uv_write in flight */
    net_buf rbuf;                /* payload not consumed by the owner */
    net_buf tout;                /* TLS: ciphertext for the next write (net/tls.c appends) */
    const net_conn_cbs *cbs;
    const struct conn_transport *tp;   /* tp_plain, or tp_tls once TLS starts */
    const struct conn_io *io;          /* io_epoll or io_uring */
    net_tls *tls;                /* tp_tls's state; NULL: plaintext */
    net_uio *uio;                /* io_uring's record; NULL: epoll (libuv's stream) */
    size_t wfly_off;             /* io_uring: bytes of wfly already sent */
    char *urx;                   /* io_uring + TLS: where recv lands (NET_URX bytes) */
    char *rx_given;              /* TLS: the receive space handed out last */
    char *rx_landed;             /* io_uring: where the recv in flight lands */
};

/* The transport: where bytes from the socket land and what they become,
 * and what goes to the socket. */
typedef struct conn_transport {
    /* A synchronous read's space (epoll: filled before the call returns). */
    void (*rx_space)(net_conn *c, char **p, size_t *n);
    /* An asynchronous read's space (io_uring): a heap block the ring may
     * fill after the connection is freed (conn_free hands it over); NULL
     * with a status when it cannot be had. */
    int (*rx_landing)(net_conn *c, char **p, size_t *n);
    /* n bytes arrived at p (one of the spaces above, of this or of the
     * previous transport: a recv in flight when TLS started). */
    void (*rx)(net_conn *c, char *p, size_t n);
    /* The bytes to put on the wire now, in *out (payload counted in *payload). */
    int (*tx)(net_conn *c, net_buf **out, size_t *payload, const char **msg);
    /* Connected (or, for TLS on an open connection, started). */
    void (*begin)(net_conn *c);
} conn_transport;

/* The I/O backend, once connected. */
typedef struct conn_io {
    int (*read_start)(net_conn *c);
    /* Put out's bytes (payload of them the owner's) on the wire. */
    void (*send)(net_conn *c, net_buf *out, size_t payload);
    void (*cancel)(net_conn *c);       /* closing: nothing more fires */
    void (*release)(net_conn *c);      /* freeing: buffers the kernel may still use */
} conn_io;

#define NET_URX (16 * 1024)

static void conn_on_connect(uv_connect_t *req, int status);
static void conn_on_write(uv_write_t *w, int status);
static void conn_on_flush(uv_prepare_t *h);
static void conn_flush(net_conn *c);
static void conn_sent(net_conn *c);
static void conn_schedule(net_conn *c);
static void conn_on_handle_close(uv_handle_t *h);
static void conn_on_urecv(void *conn, int res);
static void conn_on_usend(void *conn, int res);

static const net_uio_cbs conn_uio_cbs = {conn_on_urecv, conn_on_usend};
static const conn_transport tp_plain, tp_tls;
static const conn_io io_epoll, io_uring;

/* ---- small helpers ---------------------------------------------------- */

const char *net_strerror(int status) {
    switch (status) {
    case 0: return "ok";
    case NET_ETLS: return "TLS error";
    case UV_ETIMEDOUT: return "timeout";
    case UV_ECANCELED: return "cancelled";
    case UV_ECONNREFUSED: return "connection refused";
    case UV_ECONNRESET: return "connection reset by peer";
    case UV_EOF: return "connection closed by server";
    case UV_EPIPE: return "broken pipe";
    default: return status < 0 ? uv_strerror(status) : "unknown status";
    }
}

void net_backoff_failed(net_backoff *b, uint64_t now_ns, uint64_t min_ns, uint64_t max_ns) {
    if (b->delay_ns == 0) b->delay_ns = min_ns < max_ns ? min_ns : max_ns;
    else b->delay_ns = b->delay_ns < max_ns / 2 ? b->delay_ns * 2 : max_ns;
    b->retry_at_ns = now_ns + b->delay_ns;
}

static int conn_buf_reserve(net_buf *b, size_t need, size_t init) {
    return grow_reserve(&b->p, &b->cap, need, init, SIZE_MAX) == 0 ? 0 : UV_ENOMEM;
}

static void conn_buf_free(net_buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- closing ---------------------------------------------------------- */

static void conn_free(net_conn *c) {
    c->io->release(c);
    net_tls_free(c->tls);
    conn_buf_free(&c->wbuf);
    conn_buf_free(&c->wfly);
    conn_buf_free(&c->rbuf);
    conn_buf_free(&c->tout);
    free(c->urx);
    free(c);
}

/* Close every initialised handle (the first nhandles of stream, flush, timer). */
static void conn_close_handles(net_conn *c) {
    int n = c->nhandles;
    if (n > 0) uv_close(&c->h.handle, conn_on_handle_close);
    if (n > 1) uv_close((uv_handle_t *)&c->flush, conn_on_handle_close);
    if (n > 2) uv_close((uv_handle_t *)&c->timer, conn_on_handle_close);
}

static void conn_on_handle_close(uv_handle_t *h) {
    net_conn *c = h->data;
    if (--c->nhandles > 0) return;
    const net_conn_cbs *cbs = c->cbs;     /* NULL: opening failed, the owner never saw it */
    void *owner = c->owner;
    conn_free(c);
    if (cbs && cbs->on_closed) cbs->on_closed(owner);
}

void net_conn_close(net_conn *c) {
    if (c == NULL || c->state == NS_CLOSED) return;
    c->state = NS_CLOSED;
    c->io->cancel(c);
    conn_close_handles(c);
}

void net_conn_close_flushed(net_conn *c) {
    if (c == NULL || c->state == NS_CLOSED) return;
    if (c->state == NS_OPEN) conn_flush(c);   /* one attempt: what the socket takes now */
    net_conn_close(c);
}

/* Close, then tell the owner why (once). */
static void conn_fail(net_conn *c, int status, net_phase ph, const char *msg) {
    if (c->state == NS_CLOSED) return;
    if (status == UV_ETIMEDOUT && (ph == NET_PH_CONNECT || ph == NET_PH_TLS) && msg == NULL)
        msg = ph == NET_PH_TLS ? "TLS handshake timeout" : "connect timeout";
    net_conn_close(c);
    c->cbs->on_fail(c->owner, status, ph, msg ? msg : net_strerror(status));
}

/* ---- connecting ------------------------------------------------------- */

/* libuv's timers count from the loop's cached time, which may be older than
 * the connect: a timer that fires early re-arms for what is left. */
static void conn_on_timer(uv_timer_t *t) {
    net_conn *c = t->data;
    uint64_t now = uv_hrtime();
    if (now < c->deadline_ns) {
        uv_timer_start(t, conn_on_timer, clock_ms_until(c->deadline_ns, now), 0);
        return;
    }
    conn_fail(c, UV_ETIMEDOUT, c->state == NS_HANDSHAKE ? NET_PH_TLS : NET_PH_CONNECT, NULL);
}

static int conn_handles_init(net_conn *c) {
    const net_conn_cfg *cfg = c->cfg;
    int rc = c->tcp ? uv_tcp_init(cfg->loop, &c->h.tcp) : uv_pipe_init(cfg->loop, &c->h.pipe, 0);
    if (rc < 0) return rc;
    c->nhandles = 1;
    rc = uv_prepare_init(cfg->loop, &c->flush);
    if (rc == 0) {
        c->nhandles++;
        rc = uv_timer_init(cfg->loop, &c->timer);
    }
    if (rc == 0) c->nhandles++;
    return rc;
}

/* The TLS state of c (not started yet): its client, the connection's ALPN
 * offer and, when given, its own server name. */
static int conn_tls_new(net_conn *c, net_tls_client *tc, const char *server_name) {
    int rc = net_tls_new(tc, &c->tout, &c->tls);
    if (rc == 0 && c->cfg->alpn) rc = net_tls_set_alpn(c->tls, c->cfg->alpn);
    if (rc == 0 && server_name) rc = net_tls_set_server_name(c->tls, server_name);
    if (rc < 0) {
        net_tls_free(c->tls);
        c->tls = NULL;
        return rc;
    }
    c->tp = &tp_tls;
    return 0;
}

int net_conn_open(const net_conn_cfg *cfg, void *owner, net_conn **out) {
    *out = NULL;
    net_conn *c = calloc(1, sizeof *c);
    if (c == NULL) return UV_ENOMEM;
    c->cfg = cfg;
    c->owner = owner;
    c->tcp = cfg->path == NULL;
    c->tp = &tp_plain;
    c->io = &io_epoll;
    c->h.handle.data = c->creq.data = c->wreq.data = c->flush.data = c->timer.data = c;
    int rc = conn_buf_reserve(&c->rbuf, cfg->rbuf_init ? cfg->rbuf_init : NET_RBUF_DEFAULT, 1);
    if (rc == 0 && cfg->tls) rc = conn_tls_new(c, cfg->tls, NULL);
    if (rc == 0) rc = conn_handles_init(c);
    if (rc == 0 && (c->uio = net_uio_open(cfg->loop, c, &conn_uio_cbs, &rc)) != NULL) c->io = &io_uring;
    if (rc == 0 && c->tcp)
        rc = uv_tcp_connect(&c->creq, &c->h.tcp, (const struct sockaddr *)cfg->addr, conn_on_connect);
    else if (rc == 0)
        uv_pipe_connect(&c->creq, &c->h.pipe, cfg->path, conn_on_connect);
    if (rc == 0 && cfg->connect_timeout_ns) {
        c->deadline_ns = uv_hrtime() + cfg->connect_timeout_ns;
        rc = uv_timer_start(&c->timer, conn_on_timer, (cfg->connect_timeout_ns + 999999) / 1000000, 0);
    }
    if (rc < 0) {
        c->state = NS_CLOSED;
        if (c->nhandles == 0) conn_free(c);
        else conn_close_handles(c);     /* cbs still NULL: the owner hears nothing */
        return rc;
    }
    c->state = NS_CONNECTING;
    c->cbs = cfg->cbs;
    *out = c;
    return 0;
}

/* Connected and, with TLS, established: queued bytes may go. */
static void conn_opened(net_conn *c) {
    c->state = NS_OPEN;
    uv_timer_stop(&c->timer);
    c->cbs->on_open(c, c->owner);
    if (c->state == NS_OPEN) conn_flush(c);
}

/* ---- the plaintext transport ------------------------------------------ */

/* Room for NET_RBUF_MIN_FREE more bytes in rbuf; 0 or UV_ENOMEM. */
static int conn_rbuf_room(net_conn *c) {
    net_buf *rb = &c->rbuf;
    if (rb->cap - rb->len >= NET_RBUF_MIN_FREE) return 0;
    return conn_buf_reserve(rb, rb->len + NET_RBUF_MIN_FREE, NET_RBUF_DEFAULT);
}

/* Hand the unconsumed payload to the owner; keep what it left. */
static void conn_deliver(net_conn *c) {
    if (c->rbuf.len == 0) return;
    size_t used = c->cbs->on_data(c, c->owner, c->rbuf.p, c->rbuf.len);
    if (c->state == NS_CLOSED || used == 0) return;
    if (used > c->rbuf.len) used = c->rbuf.len;
    memmove(c->rbuf.p, c->rbuf.p + used, c->rbuf.len - used);
    c->rbuf.len -= used;
}

int net_conn_rreserve(net_conn *c, size_t need) {
    return conn_buf_reserve(&c->rbuf, need + NET_RBUF_MIN_FREE, NET_RBUF_DEFAULT);
}

/* Plaintext lands in rbuf's free space (none: libuv reports UV_ENOBUFS). */
static void plain_rx_space(net_conn *c, char **p, size_t *n) {
    *p = NULL;
    *n = 0;
    if (conn_rbuf_room(c) < 0) return;
    *p = c->rbuf.p + c->rbuf.len;
    *n = c->rbuf.cap - c->rbuf.len;
}

static int plain_rx_landing(net_conn *c, char **p, size_t *n) {
    int rc = conn_rbuf_room(c);
    *p = rc == 0 ? c->rbuf.p + c->rbuf.len : NULL;
    *n = rc == 0 ? c->rbuf.cap - c->rbuf.len : 0;
    return rc;
}

/* It landed right after what rbuf holds: counted there, handed over. */
static void plain_rx(net_conn *c, char *p, size_t n) {
    (void)p;
    c->rbuf.len += n;
    conn_deliver(c);
}

/* Plaintext: wbuf itself. */
static int plain_tx(net_conn *c, net_buf **out, size_t *payload, const char **msg) {
    (void)msg;
    *out = &c->wbuf;
    *payload = c->wbuf.len;
    return 0;
}

static void plain_begin(net_conn *c) { conn_opened(c); }

static const conn_transport tp_plain = {plain_rx_space, plain_rx_landing, plain_rx, plain_tx, plain_begin};

/* ---- the TLS transport ------------------------------------------------ */

static net_phase conn_rphase(const net_conn *c) { return c->state == NS_HANDSHAKE ? NET_PH_TLS : NET_PH_READ; }

static void tls_rx_space(net_conn *c, char **p, size_t *n) {
    net_tls_rx_space(c->tls, p, n);
    c->rx_given = *p;
}

/* The ring's landing buffer (NET_URX bytes, made once). */
static int tls_rx_landing(net_conn *c, char **p, size_t *n) {
    if (c->urx == NULL && (c->urx = malloc(NET_URX)) == NULL) return UV_ENOMEM;
    *p = c->urx;
    *n = NET_URX;
    return 0;
}

/* n ciphertext bytes are in the TLS layer's rx space: payload out into
 * rbuf (and handshake progress). */
static void tls_rx_in_place(net_conn *c, size_t n) {
    const char *msg = NULL;
    int was_open = c->state == NS_OPEN;
    int rc = net_tls_rx(c->tls, n, &msg);
    if (rc == 0 && !was_open && net_tls_established(c->tls)) conn_opened(c);
    if (c->state == NS_CLOSED) return;
    if (rc == 0 && c->state == NS_HANDSHAKE) conn_flush(c);   /* the next handshake flight */
    while (rc == 0 && c->state == NS_OPEN) {
        if (conn_rbuf_room(c) < 0) {
            rc = UV_ENOMEM;
            break;
        }
        size_t got = 0;
        rc = net_tls_read(c->tls, c->rbuf.p + c->rbuf.len, c->rbuf.cap - c->rbuf.len, &got, &msg);
        if (rc < 0 || got == 0) break;
        c->rbuf.len += got;
        conn_deliver(c);
        if (!net_tls_more(c->tls)) break;    /* spares the SSL_read that would say "none yet" */
    }
    if (rc < 0) conn_fail(c, rc, was_open ? NET_PH_READ : NET_PH_TLS, msg);
    else if (c->state == NS_OPEN && c->tout.len) conn_schedule(c);
}

/* Bytes in the rx space given out: in place.  Elsewhere (the ring's
 * landing buffer, or rbuf for a recv armed before TLS started): copied into
 * the TLS layer's rx space, in pieces of its size. */
static void tls_rx_copy(net_conn *c, const char *p, size_t n);

static void tls_rx(net_conn *c, char *p, size_t n) {
    if (p == c->rx_given) {
        c->rx_given = NULL;
        tls_rx_in_place(c, n);
        return;
    }
    if (p == c->urx) {
        tls_rx_copy(c, p, n);
        return;
    }
    /* rbuf's free space (a recv armed before TLS started), where the
     * decrypted payload goes: moved out first.  Once per connection. */
    char *tmp = malloc(n);
    if (tmp == NULL) {
        conn_fail(c, UV_ENOMEM, conn_rphase(c), NULL);
        return;
    }
    memcpy(tmp, p, n);
    tls_rx_copy(c, tmp, n);
    free(tmp);
}

static void tls_rx_copy(net_conn *c, const char *p, size_t n) {
    size_t off = 0;
    while (off < n && c->state != NS_CLOSED) {
        char *sp;
        size_t room;
        net_tls_rx_space(c->tls, &sp, &room);
        if (room == 0) {                 /* cannot happen: OpenSSL drains rx each time */
            conn_fail(c, UV_ENOBUFS, conn_rphase(c), NULL);
            return;
        }
        size_t k = n - off < room ? n - off : room;
        memcpy(sp, p + off, k);
        off += k;
        tls_rx_in_place(c, k);
    }
}

/* tout, where net/tls.c appended the handshake's bytes and appends wbuf
 * encrypted (once open). */
static int tls_tx(net_conn *c, net_buf **out, size_t *payload, const char **msg) {
    size_t took = 0;
    if (c->state == NS_OPEN && c->wbuf.len) {
        int rc = net_tls_write(c->tls, c->wbuf.p, c->wbuf.len, &took, msg);
        if (rc < 0) return rc;
        c->wbuf.len = 0;      /* net_tls_write takes everything or fails */
    }
    *out = &c->tout;
    *payload = took;
    return 0;
}

/* The first handshake flight; on_open fires when it is established. */
static void tls_begin(net_conn *c) {
    c->state = NS_HANDSHAKE;
    const char *msg = NULL;
    int rc = net_tls_start(c->tls, &msg);
    if (rc < 0) conn_fail(c, rc, NET_PH_TLS, msg);
    else conn_flush(c);
}

static const conn_transport tp_tls = {tls_rx_space, tls_rx_landing, tls_rx, tls_tx, tls_begin};

int net_conn_start_tls(net_conn *c, net_tls_client *tc, const char *server_name) {
    if (c->state != NS_OPEN || c->tls) return UV_EINVAL;
    if (c->wbuf.len) return UV_EBUSY;            /* it would leave after the ClientHello */
    int rc = conn_tls_new(c, tc, server_name);
    if (rc < 0) return rc;
    uint64_t to = c->cfg->connect_timeout_ns;
    if (to) {
        c->deadline_ns = uv_hrtime() + to;
        uv_timer_start(&c->timer, conn_on_timer, (to + 999999) / 1000000, 0);   /* cannot fail: initialised */
    }
    c->tp->begin(c);
    return 0;
}

int net_conn_hand_over(net_conn *c, const net_conn_cfg *cfg, void *owner) {
    if (c->state != NS_OPEN || !cfg || !cfg->cbs) return UV_EINVAL;
    if (c->wbuf.len) return UV_EBUSY;            /* the old owner's bytes would reach the new one's peer */
    c->cfg = cfg;
    c->cbs = cfg->cbs;
    c->owner = owner;
    return 0;
}

/* ---- reading through libuv's stream (epoll backend) ------------------- */

static void conn_on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
    net_conn *c = h->data;
    (void)hint;
    c->tp->rx_space(c, &buf->base, &buf->len);
}

static void conn_on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf) {
    net_conn *c = st->data;
    if (c->state == NS_CLOSED || nread == 0) return;
    if (nread < 0) conn_fail(c, (int)nread, conn_rphase(c), NULL);
    else c->tp->rx(c, buf->base, (size_t)nread);
}

static int epoll_read_start(net_conn *c) { return uv_read_start(&c->h.stream, conn_on_alloc, conn_on_read); }

/* ---- reading through the ring (io_uring backend) ---------------------- */

/* One recv in flight, into the transport's landing space. */
static void conn_urecv_arm(net_conn *c) {
    char *p;
    size_t n;
    int rc = c->tp->rx_landing(c, &p, &n);
    if (rc == 0) rc = net_uio_recv(c->uio, p, n);
    if (rc < 0) conn_fail(c, rc, conn_rphase(c), NULL);
    else c->rx_landed = p;
}

static void conn_on_urecv(void *conn, int res) {
    net_conn *c = conn;
    if (c->state == NS_CLOSED) return;
    if (res <= 0) {
        conn_fail(c, res == 0 ? UV_EOF : res, conn_rphase(c), NULL);
        return;
    }
    c->tp->rx(c, c->rx_landed, (size_t)res);
    if (c->state != NS_CLOSED) conn_urecv_arm(c);
}

/* Start reading: the ring on the socket's fd. */
static int uring_read_start(net_conn *c) {
    uv_os_fd_t fd;
    int rc = uv_fileno(&c->h.handle, &fd);
    if (rc < 0) return rc;
    net_uio_set_fd(c->uio, fd);
    conn_urecv_arm(c);
    return c->state == NS_CLOSED ? UV_ENOBUFS : 0;
}

static void conn_on_connect(uv_connect_t *req, int status) {
    net_conn *c = req->data;
    if (c->state == NS_CLOSED) return;
    if (status == 0) status = c->io->read_start(c);
    if (c->state == NS_CLOSED) return;
    if (status < 0) {
        conn_fail(c, status, NET_PH_CONNECT, NULL);
        return;
    }
    if (c->tcp) uv_tcp_nodelay(&c->h.tcp, 1);   /* cannot fail on a connected socket */
    c->tp->begin(c);
}

/* ---- writing ---------------------------------------------------------- */

static void conn_schedule(net_conn *c) {
    if (c->state == NS_OPEN && !c->writing && !uv_is_active((uv_handle_t *)&c->flush))
        uv_prepare_start(&c->flush, conn_on_flush);     /* cannot fail: the handle is initialised */
}

char *net_conn_wspace(net_conn *c, size_t n) {
    if (n > SIZE_MAX - c->wbuf.len) return NULL;
    if (conn_buf_reserve(&c->wbuf, c->wbuf.len + n, NET_WBUF_INIT) < 0) return NULL;
    return c->wbuf.p + c->wbuf.len;
}

void net_conn_wcommit(net_conn *c, size_t n) {
    c->wbuf.len += n;
    c->committed += n;
    conn_schedule(c);
}

int net_conn_write(net_conn *c, const void *p, size_t n) {
    char *dst = net_conn_wspace(c, n);
    if (dst == NULL) return UV_ENOMEM;
    memcpy(dst, p, n);
    net_conn_wcommit(c, n);
    return 0;
}

/* io_uring: swap the bytes into wfly (untouched until sent) and queue one
 * send; conn_on_usend sends the rest of a short send, then flushes again. */
static void uring_send(net_conn *c, net_buf *out, size_t payload) {
    net_buf tmp = c->wfly;
    c->wfly = *out;
    *out = tmp;
    out->len = 0;
    c->wfly_off = 0;
    int rc = net_uio_send(c->uio, c->wfly.p, c->wfly.len);
    if (rc < 0) {
        conn_fail(c, rc, c->state == NS_HANDSHAKE ? NET_PH_TLS : NET_PH_WRITE, NULL);
        return;
    }
    c->writing = 1;
    c->wfly_payload = payload;
}

static void conn_on_usend(void *conn, int res) {
    net_conn *c = conn;
    if (c->state == NS_CLOSED) return;
    net_phase ph = c->state == NS_HANDSHAKE ? NET_PH_TLS : NET_PH_WRITE;
    if (res <= 0) {
        conn_fail(c, res == 0 ? UV_EPIPE : res, ph, NULL);
        return;
    }
    c->wfly_off += (size_t)res;
    if (c->wfly_off < c->wfly.len) {
        int rc = net_uio_send(c->uio, c->wfly.p + c->wfly_off, c->wfly.len - c->wfly_off);
        if (rc < 0) conn_fail(c, rc, ph, NULL);
        return;
    }
    c->writing = 0;
    c->wfly.len = 0;
    c->sent += c->wfly_payload;
    c->wfly_payload = 0;
    conn_flush(c);
    conn_sent(c);
}

/* What was queued was handed on (taken by the socket, or a write of it is
 * in flight): the owner may queue more (net_conn_cbs.on_sent). */
static void conn_sent(net_conn *c) {
    if (c->state == NS_OPEN && c->cbs->on_sent) c->cbs->on_sent(c, c->owner);
}

/* Put what is queued on the wire (the transport says what, the backend
 * moves it), unless a write is in flight: its completion flushes again. */
static void conn_flush(net_conn *c) {
    if (c->writing || (c->state != NS_OPEN && c->state != NS_HANDSHAKE)) return;
    net_buf *out;
    size_t payload;
    const char *msg = NULL;
    int rc = c->tp->tx(c, &out, &payload, &msg);
    if (rc < 0) conn_fail(c, rc, NET_PH_WRITE, msg);
    else if (out->len) c->io->send(c, out, payload);
}

/* epoll: uv_try_write, then uv_write the rest from the swapped-in wfly
 * buffer, untouched until conn_on_write. */
static void epoll_send(net_conn *c, net_buf *out, size_t payload) {
    uv_buf_t b = uv_buf_init(out->p, (unsigned)out->len);
    int n = uv_try_write(&c->h.stream, &b, 1);
    if (n == UV_EAGAIN || n == UV_ENOSYS) n = 0;
    if (n < 0) {
        conn_fail(c, n, c->state == NS_HANDSHAKE ? NET_PH_TLS : NET_PH_WRITE, NULL);
        return;
    }
    if ((size_t)n == out->len) {
        out->len = 0;
        c->sent += payload;
        return;
    }
    net_buf tmp = c->wfly;
    c->wfly = *out;
    *out = tmp;
    out->len = 0;
    b = uv_buf_init(c->wfly.p + n, (unsigned)(c->wfly.len - (size_t)n));
    int rc = uv_write(&c->wreq, &c->h.stream, &b, 1, conn_on_write);
    if (rc < 0) {
        conn_fail(c, rc, NET_PH_WRITE, NULL);
        return;
    }
    c->writing = 1;
    c->wfly_payload = payload;
}

static void conn_on_flush(uv_prepare_t *h) {
    net_conn *c = h->data;
    uv_prepare_stop(h);
    conn_flush(c);
    conn_sent(c);
}

static void conn_on_write(uv_write_t *w, int status) {
    net_conn *c = w->data;
    if (c->state == NS_CLOSED) return;
    c->writing = 0;
    c->wfly.len = 0;
    if (status < 0) {
        conn_fail(c, status, c->state == NS_HANDSHAKE ? NET_PH_TLS : NET_PH_WRITE, NULL);
        return;
    }
    c->sent += c->wfly_payload;
    c->wfly_payload = 0;
    conn_flush(c);
    conn_sent(c);
}

/* ---- the two backends' tables ----------------------------------------- */

static void epoll_cancel(net_conn *c) { (void)c; }   /* uv_close cancels the stream's requests */
static void epoll_release(net_conn *c) { (void)c; }

static void uring_cancel(net_conn *c) { net_uio_cancel(c->uio); }

/* The buffers the kernel may still use go with the I/O record. */
static void uring_release(net_conn *c) {
    void *bufs[3] = {c->rbuf.p, c->wfly.p, c->urx};
    net_uio_detach(c->uio, bufs, 3);
    c->rbuf.p = c->wfly.p = c->urx = NULL;
}

static const conn_io io_epoll = {epoll_read_start, epoll_send, epoll_cancel, epoll_release};
static const conn_io io_uring = {uring_read_start, uring_send, uring_cancel, uring_release};

/* ---- queries ---------------------------------------------------------- */

int net_conn_is_open(const net_conn *c) { return c && c->state == NS_OPEN; }
size_t net_conn_wqueued(const net_conn *c) { return c->wbuf.len; }
uint64_t net_conn_committed(const net_conn *c) { return c->committed; }
uint64_t net_conn_handed(const net_conn *c) { return c->committed - c->wbuf.len; }
int net_conn_wbusy(const net_conn *c) { return c->writing || c->wbuf.len > 0; }
uint64_t net_conn_sent(const net_conn *c) { return c->sent; }
int net_conn_uring(const net_conn *c) { return c->io == &io_uring; }
uint64_t net_conn_tls_ns(const net_conn *c) { return c->tls ? net_tls_handshake_ns(c->tls) : 0; }
int net_conn_tls_resumed(const net_conn *c) { return c->tls ? net_tls_resumed(c->tls) : 0; }
const char *net_conn_alpn(const net_conn *c) { return c->tls ? net_tls_alpn(c->tls) : NULL; }
int net_conn_clean_eof(const net_conn *c) { return c->tls ? net_tls_peer_closed(c->tls) : 1; }
