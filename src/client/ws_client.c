/* ws_client.c - WebSocket client on a libuv loop (see ws_client.h).
 *
 * One connection through net/conn (TCP, optional TLS).  Once it is open the
 * Upgrade request (proto/ws_proto.c builds it at creation) leaves, the 101
 * response's head is parsed and checked (Sec-WebSocket-Accept, Upgrade,
 * Connection, no extension, an offered subprotocol), and the bytes after it
 * are frames.  Frames are parsed in place in the connection's read buffer
 * (reserved up to a whole frame, which max_message bounds); an unfragmented
 * message goes straight to a waiting receive without a copy, otherwise it
 * is reassembled (ws_msg, kept) and, with nobody waiting, copied into the
 * queue (one buffer, reused, bounded by max_queue).  Pings get pongs (none while 4 MiB wait for the socket: WS_WQUEUE_MAX also refuses sends), the
 * server's close gets its echo, a close we start waits for the server's
 * within the timeout.  After a failure or a close the connection lingers
 * (bytes read and dropped) until the server ends it, for at most 2 s (the
 * timeout when shorter), so that the close frame we queued leaves.  One timer serves the connect,
 * the receive wait and the close.  Never touches Lua; no reconnect. */
#include "client/ws_client.h"
#include "common/clock.h"
#include "common/grow.h"
#include "common/net.h"
#include "net/conn.h"

#include <openssl/rand.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum ws_state {
    WSC_IDLE, WSC_CONNECTING, WSC_HANDSHAKE, WSC_OPEN,
    WSC_CLOSING,                  /* our close sent, the server's awaited */
    WSC_CLOSED                    /* the close is known; the connection may linger */
} ws_state;

typedef struct ws_qhdr {          /* a queued message: this, then its bytes */
    uint64_t len;
    int opcode;
} ws_qhdr;

struct ws_client {
    uv_loop_t *loop;
    char *url;                    /* owned; u points into it */
    ws_url u;
    char name[300];
    struct sockaddr_storage addr;
    net_conn_cfg cfg;
    net_tls_client *tls;
    net_conn *nc;
    ws_state state;
    uint64_t timeout_ns, connect_timeout_ns;
    ws_limits lim;
    size_t max_queue;
    char *req;                    /* the Upgrade request */
    size_t req_len;
    char *offered;                /* Sec-WebSocket-Protocol offered, or NULL */
    char accept[WS_ACCEPT_LEN + 1];
    char protocol[64];
    uint64_t rng;                 /* masking keys */
    ws_msg msg;
    char *q;                      /* queued messages: [qhead, qlen) */
    size_t qhead, qlen, qcap, qn;
    ws_recv *recv;
    uint64_t recv_deadline, conn_deadline, close_deadline;
    uv_timer_t timer;
    uint64_t timer_due;
    ws_connect_cb connect_cb;
    void *connect_data;
    ws_close_cb close_cb;
    void *close_data;
    int close_code;               /* 0: open */
    char close_reason[124];
    size_t close_reason_len;
    int dead_status;              /* what the next receive is told once the queue is empty */
    char dead_msg[256];
    int closing;                  /* ws_client_free was called */
    unsigned nhandles;
    unsigned gen;                 /* bumped when a callback may have changed everything */
    uint64_t read_ns;             /* the clock of the read being handled (0: not read yet) */
};

static const net_conn_cbs ws_conn_cbs;
static void ws_on_timer(uv_timer_t *t);

void ws_client_opts_default(ws_client_opts *o) {
    memset(o, 0, sizeof *o);
    o->timeout_ns = CLIENT_TIMEOUT_DEFAULT_NS;
    o->max_message = WS_MAX_MESSAGE_DEFAULT;
    o->max_queue = WS_MAX_QUEUE_DEFAULT;
}

const char *ws_client_strerror(int status) {
    switch (status) {
    case 0: return "ok";
    case WS_EHANDSHAKE: return "handshake refused";
    case WS_EPROTO: return "protocol error";
    case WS_ECLOSED: return "closed";
    case WS_EQUEUE: return "receive queue full";
    case WS_ESTATE: return "not open";
    case WS_EWFULL: return "send queue full: 4 MiB wait to be written (the server does not read)";
    case UV_ETIMEDOUT: return "timeout";
    case UV_ECANCELED: return "cancelled";
    case UV_EOF: return "connection closed by server";
    default: return net_strerror(status);
    }
}

client_status ws_client_status(int status) {
    switch (status) {
    case WS_EHANDSHAKE: return CLIENT_SETUP;
    case WS_EPROTO: return CLIENT_PROTOCOL;
    case WS_ECLOSED: case WS_ESTATE: return CLIENT_DOWN;
    case WS_EQUEUE: case WS_EWFULL: return CLIENT_BODY;
    default: return client_status_of_net(status);
    }
}

const char *ws_client_url(const ws_client *c) { return c->name; }
const char *ws_client_protocol(const ws_client *c) { return c->protocol; }

int ws_client_busy(const ws_client *c) {
    return c->recv != NULL || c->connect_cb != NULL || c->close_cb != NULL;
}

const char *ws_client_error(const ws_client *c) { return c->dead_msg; }

int ws_client_close_code(const ws_client *c, const char **reason) {
    if (reason) *reason = c->close_reason;
    return c->close_code;
}

/* ---- creation ---- */

static uint64_t ws_rand64(ws_client *c) {     /* xorshift64*: masking keys, not secrets */
    uint64_t x = c->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    c->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static void ws_free_mem(ws_client *c) {
    net_tls_client_free(c->tls);
    ws_msg_free(&c->msg);
    free(c->q);
    free(c->req);
    free(c->offered);
    free(c->url);
    free(c);
}

static int ws_err(char *err, size_t len, const char *fmt, const char *what) {
    snprintf(err, len, fmt, what);
    return -1;
}

/* The Upgrade request, with a fresh key, and the accept it expects. */
static int ws_make_request(ws_client *c, const ws_client_opts *o, char *err, size_t err_len) {
    uint8_t rnd[24];
    char key[WS_KEY_LEN + 1];
    if (RAND_bytes(rnd, sizeof rnd) != 1) return ws_err(err, err_len, "%s", "no random bytes for the key");
    ws_key_make(rnd, key);
    memcpy(&c->rng, rnd + 16, 8);
    c->rng |= 1;
    if (ws_accept_of(key, WS_KEY_LEN, c->accept) != 0) return ws_err(err, err_len, "%s", "SHA-1 failed");
    ws_request rq = {&c->u, key, c->offered, o->headers, o->nheaders};
    size_t need = ws_request_build(NULL, 0, &rq);
    if (need == 0) return ws_err(err, err_len, "%s", "a header that may not be sent (bad name or value, or one the handshake sets)");
    if ((c->req = malloc(need)) == NULL) return ws_err(err, err_len, "%s", "out of memory");
    c->req_len = ws_request_build(c->req, need, &rq);
    return 0;
}

static int ws_setup(ws_client *c, const char *url, const ws_client_opts *o, char *err, size_t err_len) {
    const char *why;
    if ((c->url = strdup(url)) == NULL) return ws_err(err, err_len, "%s", "out of memory");
    if (ws_url_parse(c->url, strlen(c->url), &c->u, &why) != 0) return ws_err(err, err_len, "%s", why);
    snprintf(c->name, sizeof c->name, "%.299s", url);
    if (c->u.tls && o->tls == NULL) return ws_err(err, err_len, "%s", "wss:// needs TLS settings");
    if (!c->u.tls && o->tls) return ws_err(err, err_len, "%s", "tls options need a wss:// URL");
    if (o->protocols && *o->protocols && (c->offered = strdup(o->protocols)) == NULL)
        return ws_err(err, err_len, "%s", "out of memory");
    if (ws_make_request(c, o, err, err_len) != 0) return -1;
    char host[256];
    memcpy(host, c->u.host, c->u.host_len);
    host[c->u.host_len] = 0;
    int rc = net_resolve(c->loop, host, c->u.port, &c->addr);
    if (rc < 0) {
        snprintf(err, err_len, "cannot resolve '%s': %s", host, uv_strerror(rc));
        return -1;
    }
    if (o->tls) {
        net_tls_opts to = *o->tls;
        char terr[300];
        if (to.server_name == NULL) to.server_name = host;
        if (net_tls_client_new(&to, &c->tls, terr, sizeof terr) != 0) {
            snprintf(err, err_len, "tls: %s", terr);
            return -1;
        }
    }
    c->cfg = (net_conn_cfg){.loop = c->loop, .addr = &c->addr, .connect_timeout_ns = c->connect_timeout_ns,
                            .rbuf_init = 16 * 1024, .tls = c->tls, .cbs = &ws_conn_cbs};
    return 0;
}

int ws_client_new(uv_loop_t *loop, const char *url, const ws_client_opts *opts, ws_client **out,
                  char *err, size_t err_len) {
    ws_client_opts def;
    if (opts == NULL) ws_client_opts_default(&def), opts = &def;
    *out = NULL;
    ws_client *c = calloc(1, sizeof *c);
    if (c == NULL) return ws_err(err, err_len, "%s", "out of memory");
    c->loop = loop;
    c->timeout_ns = opts->timeout_ns;
    c->connect_timeout_ns = opts->connect_timeout_ns ? opts->connect_timeout_ns : opts->timeout_ns;
    c->lim.max_message = opts->max_message ? opts->max_message : WS_MAX_MESSAGE_DEFAULT;
    c->max_queue = opts->max_queue ? (size_t)opts->max_queue : WS_MAX_QUEUE_DEFAULT;
    if (ws_setup(c, url, opts, err, err_len) != 0 || uv_timer_init(loop, &c->timer) != 0) {
        ws_free_mem(c);
        return -1;
    }
    c->timer.data = c;
    c->nhandles = 1;
    *out = c;
    return 0;
}

static void ws_unref(ws_client *c) {
    assert(c->nhandles > 0);             /* every close matches an open handle */
    if (--c->nhandles == 0 && c->closing) ws_free_mem(c);
}

static void ws_on_handle_closed(uv_handle_t *h) { ws_unref(h->data); }
static void ws_on_conn_closed(void *owner) { ws_unref(owner); }

/* ---- timer ---- */

static uint64_t ws_min_deadline(uint64_t a, uint64_t b) { return !a ? b : !b ? a : a < b ? a : b; }

static void ws_rearm(ws_client *c) {
    clock_timer_disarm(&c->timer, &c->timer_due);
    if (c->closing) return;
    uint64_t d = ws_min_deadline(ws_min_deadline(c->conn_deadline, c->recv_deadline), c->close_deadline);
    clock_timer_arm(&c->timer, &c->timer_due, ws_on_timer, d, 0);
}

/* ---- ending ---- */

static void ws_drop_conn(ws_client *c) {
    net_conn_close(c->nc);
    c->nc = NULL;
    c->close_deadline = 0;
}

static void ws_tell_connect(ws_client *c, int status, const char *msg) {
    ws_connect_cb cb = c->connect_cb;
    if (cb == NULL) return;
    c->connect_cb = NULL;
    c->conn_deadline = 0;
    cb(c->connect_data, status, msg);
}

/* What a close that found the connection closed already reports. */
static int ws_close_status(const ws_client *c) {
    return c->dead_status == WS_ECLOSED || c->dead_status == 0 ? 0 : c->dead_status;
}

static void ws_tell_close(ws_client *c, int status) {
    ws_close_cb cb = c->close_cb;
    if (cb == NULL) return;
    c->close_cb = NULL;
    cb(c->close_data, status, c->close_code, c->close_reason, c->close_reason_len);
}

/* Hand the waiting receive its result. */
static void ws_tell_recv(ws_client *c, int status, int opcode, const char *p, size_t n, const char *msg,
                         uint64_t done_ns) {
    ws_recv *r = c->recv;
    if (r == NULL) return;
    c->recv = NULL;
    c->recv_deadline = 0;
    r->done_ns = done_ns;
    c->gen++;
    r->on_done(r, status, opcode, p, n, msg);
}

/* The failure the next receive reports once the queue is empty: given
 * once, then "closed". */
static void ws_tell_recv_dead(ws_client *c) {
    char msg[256];
    int st = c->dead_status;
    snprintf(msg, sizeof msg, "%s", c->dead_msg);
    c->dead_status = WS_ECLOSED;
    snprintf(c->dead_msg, sizeof c->dead_msg, "closed (%d%s%.*s)", c->close_code,
             c->close_reason_len ? " " : "", (int)c->close_reason_len, c->close_reason);
    ws_tell_recv(c, st, 0, NULL, 0, msg, 0);
}

/* Queue a close frame with code (0: none) and reason. */
static void ws_send_close(ws_client *c, int code, const char *reason, size_t rlen) {
    char pl[WS_CONTROL_MAX];
    size_t n = 0;
    if (c->nc == NULL || !net_conn_is_open(c->nc)) return;
    if (code) {
        if (rlen > WS_CONTROL_MAX - 2) rlen = WS_CONTROL_MAX - 2;
        pl[0] = (char)(code >> 8);
        pl[1] = (char)code;
        memcpy(pl + 2, reason, rlen);
        n = 2 + rlen;
    }
    uint64_t m = ws_rand64(c);
    char *dst = net_conn_wspace(c->nc, ws_frame_size(n));
    if (dst) net_conn_wcommit(c->nc, ws_frame_build(dst, WS_OP_CLOSE, pl, n, (const uint8_t *)&m));
}

/* The connection is over for the user (code: the close code to report;
 * send: the close code to send, 0 none); it lingers until the server ends
 * it or the timeout.  Waiters are told. */
static void ws_dead(ws_client *c, int status, int code, int send, const char *why) {
    int was = c->state;
    if (c->close_code == 0) {
        c->close_code = code;
        c->close_reason_len = 0;
        c->close_reason[0] = 0;
    }
    c->dead_status = status;
    snprintf(c->dead_msg, sizeof c->dead_msg, "%s", why);
    c->state = WSC_CLOSED;
    if (send) ws_send_close(c, send, "", 0);
    if (c->nc && (send || was == WSC_OPEN) && c->timeout_ns) {
        uint64_t linger = c->timeout_ns < 2000000000ull ? c->timeout_ns : 2000000000ull;
        c->close_deadline = uv_hrtime() + linger;
    } else {
        ws_drop_conn(c);
    }
    ws_rearm(c);
    ws_tell_connect(c, status == WS_ECLOSED ? WS_EHANDSHAKE : status, why);
    ws_tell_close(c, status);
    if (c->recv && c->qn == 0) ws_tell_recv_dead(c);
}

static void ws_fail_proto(ws_client *c, int code, const char *why) {
    char msg[200];
    snprintf(msg, sizeof msg, "protocol error: %s", why);
    ws_dead(c, WS_EPROTO, code, code, msg);
}

static void ws_on_timer(uv_timer_t *t) {
    ws_client *c = t->data;
    c->timer_due = 0;
    if (c->closing) return;
    uint64_t now = uv_hrtime();
    if (c->conn_deadline && c->conn_deadline <= now) {
        c->conn_deadline = 0;
        ws_drop_conn(c);
        ws_dead(c, UV_ETIMEDOUT, WS_CLOSE_ABNORMAL, 0, "timeout in the handshake");
    }
    if (c->close_deadline && c->close_deadline <= now) {
        int waiting = c->state == WSC_CLOSING;
        ws_drop_conn(c);
        if (waiting) ws_dead(c, UV_ETIMEDOUT, WS_CLOSE_ABNORMAL, 0, "close: no close frame from the server in time");
        else ws_tell_close(c, ws_close_status(c));     /* the linger is over */
    }
    if (c->recv_deadline && c->recv_deadline <= now)
        ws_tell_recv(c, UV_ETIMEDOUT, 0, NULL, 0, "timeout", 0);
    ws_rearm(c);
}

/* ---- the queue of received messages ---- */

static int ws_queue_push(ws_client *c, int opcode, const char *p, size_t n) {
    size_t need = sizeof(ws_qhdr) + n;
    if (c->qlen - c->qhead + need > c->max_queue) return WS_EQUEUE;
    if (c->qhead && c->qlen + need > c->qcap) {        /* reuse the consumed front */
        memmove(c->q, c->q + c->qhead, c->qlen - c->qhead);
        c->qlen -= c->qhead;
        c->qhead = 0;
    }
    if (grow_room(&c->q, &c->qcap, c->qlen, need, 8192, SIZE_MAX) != 0) return UV_ENOMEM;
    ws_qhdr h = {n, opcode};
    memcpy(c->q + c->qlen, &h, sizeof h);
    memcpy(c->q + c->qlen + sizeof h, p, n);
    c->qlen += need;
    c->qn++;
    return 0;
}

/* The oldest queued message to the waiting receive. */
static void ws_queue_pop(ws_client *c) {
    ws_qhdr h;
    memcpy(&h, c->q + c->qhead, sizeof h);
    const char *p = c->q + c->qhead + sizeof h;
    c->qhead += sizeof h + (size_t)h.len;
    c->qn--;
    if (c->qn == 0) c->qhead = c->qlen = 0;   /* the bytes stay valid: nothing writes before the call */
    ws_tell_recv(c, 0, h.opcode, p, (size_t)h.len, NULL, 0);   /* it waited for nothing */
}

/* ---- reading ---- */

static void ws_deliver(ws_client *c, int opcode, const char *p, size_t n) {
    if (c->state != WSC_OPEN) return;              /* closing: data is dropped */
    if (c->recv && c->qn == 0) {
        ws_tell_recv(c, 0, opcode, p, n, NULL, c->read_ns);
        return;
    }
    int rc = ws_queue_push(c, opcode, p, n);
    if (rc == 0) return;
    char msg[200];
    snprintf(msg, sizeof msg, "receive queue full: over max_queue (%zu bytes) of messages not received yet",
             c->max_queue);
    ws_dead(c, rc == UV_ENOMEM ? UV_ENOMEM : WS_EQUEUE, 1008, 1008, msg);
}

static void ws_on_close_frame(ws_client *c, const ws_frame *f) {
    int code;
    const char *reason;
    size_t rlen;
    if (ws_close_parse(f->payload, f->len, &code, &reason, &rlen) != 0) {
        ws_fail_proto(c, WS_CLOSE_PROTOCOL, "a bad close frame");
        return;
    }
    if (c->state == WSC_CLOSED) return;
    int ours = c->state == WSC_CLOSING;
    c->close_code = code;
    c->close_reason_len = rlen < sizeof c->close_reason ? rlen : sizeof c->close_reason - 1;
    memcpy(c->close_reason, reason, c->close_reason_len);
    c->close_reason[c->close_reason_len] = 0;
    char msg[200];
    snprintf(msg, sizeof msg, "closed by the server (%d%s%s)", code, rlen ? " " : "", c->close_reason);
    if (ours) {                                     /* the handshake is complete */
        c->state = WSC_CLOSED;
        c->dead_status = WS_ECLOSED;
        snprintf(c->dead_msg, sizeof c->dead_msg, "%s", msg);
        ws_drop_conn(c);
        ws_rearm(c);
        ws_tell_close(c, 0);
        return;
    }
    ws_send_close(c, code == WS_CLOSE_NO_STATUS ? 0 : code, reason, rlen);
    ws_dead(c, WS_ECLOSED, code, 0, msg);
}

static void ws_on_control(ws_client *c, const ws_frame *f) {
    if (f->opcode == WS_OP_CLOSE) {
        ws_on_close_frame(c, f);
    } else if (f->opcode == WS_OP_PING && c->state == WSC_OPEN) {
        /* A server that pings and never reads: no pong while WS_WQUEUE_MAX
         * bytes wait (RFC 6455 5.5.3 lets a pong answer only the latest ping). */
        if (net_conn_wqueued(c->nc) >= WS_WQUEUE_MAX) return;
        uint64_t m = ws_rand64(c);
        char *dst = net_conn_wspace(c->nc, ws_frame_size(f->len));
        if (dst == NULL) ws_dead(c, UV_ENOMEM, WS_CLOSE_ABNORMAL, 0, "out of memory");
        else net_conn_wcommit(c->nc, ws_frame_build(dst, WS_OP_PONG, f->payload, f->len, (const uint8_t *)&m));
    }
}

/* Frames in p[0..n); returns the bytes consumed. */
static size_t ws_read_frames(ws_client *c, const char *p, size_t n) {
    size_t off = 0;
    while (off < n && c->nc && !c->closing) {
        if (c->state == WSC_CLOSED) return n;       /* lingering: bytes are dropped */
        ws_frame f;
        int rc = ws_frame_parse(p + off, n - off, &c->lim, &f);
        if (rc == WS_NEED_MORE) {
            if (f.size > n - off && net_conn_rreserve(c->nc, f.size) != 0)
                ws_dead(c, UV_ENOMEM, WS_CLOSE_ABNORMAL, 0, "out of memory");
            return off;
        }
        if (rc == WS_ERROR) {
            ws_fail_proto(c, f.close_code, f.err);
            return n;
        }
        off += f.size;
        if (f.opcode & 0x08) {
            ws_on_control(c, &f);
            continue;
        }
        const char *m, *why;
        size_t mlen;
        int op, code;
        int r = ws_msg_add(&c->msg, &f, &c->lim, &m, &mlen, &op, &code, &why);
        if (r < 0) {
            ws_fail_proto(c, code, why);
            return n;
        }
        if (r == 1) ws_deliver(c, op, m, mlen);
    }
    return c->nc && !c->closing && c->state != WSC_CLOSED ? off : n;
}

static size_t ws_read_handshake(ws_client *c, const char *p, size_t n) {
    ws_response r;
    const char *why;
    char err[256];
    long used = ws_response_parse(p, n, &r, &why);
    if (used == 0) return 0;
    if (used < 0 || ws_response_check(&r, c->accept, c->offered, err, sizeof err) != 0) {
        if (used < 0) snprintf(err, sizeof err, "handshake: %s", why);
        ws_drop_conn(c);
        ws_dead(c, WS_EHANDSHAKE, WS_CLOSE_ABNORMAL, 0, err);
        return n;
    }
    if (r.protocol) snprintf(c->protocol, sizeof c->protocol, "%.*s", (int)r.protocol_len, r.protocol);
    c->state = WSC_OPEN;
    c->conn_deadline = 0;
    ws_rearm(c);
    unsigned gen = ++c->gen;
    ws_tell_connect(c, 0, NULL);
    if (c->gen != gen || c->closing || c->nc == NULL) return n;
    return (size_t)used + ws_read_frames(c, p + used, n - (size_t)used);
}

static size_t ws_on_data(net_conn *nc, void *owner, const char *p, size_t n) {
    ws_client *c = owner;
    (void)nc;
    c->read_ns = uv_hrtime();
    if (c->state == WSC_HANDSHAKE) return ws_read_handshake(c, p, n);
    return ws_read_frames(c, p, n);
}

static void ws_on_open(net_conn *nc, void *owner) {
    ws_client *c = owner;
    if (net_conn_write(nc, c->req, c->req_len) != 0) {
        ws_drop_conn(c);
        ws_dead(c, UV_ENOMEM, WS_CLOSE_ABNORMAL, 0, "out of memory");
        return;
    }
    c->state = WSC_HANDSHAKE;
}

static void ws_on_fail(void *owner, int status, net_phase ph, const char *msg) {
    ws_client *c = owner;
    char why[256];
    (void)ph;
    c->nc = NULL;
    c->close_deadline = 0;
    if (c->state == WSC_CLOSED) {                   /* the linger ended: a close waiting is told */
        ws_rearm(c);
        ws_tell_close(c, ws_close_status(c));
        return;
    }
    int hs = c->state == WSC_CONNECTING || c->state == WSC_HANDSHAKE;
    snprintf(why, sizeof why, "%s%s", hs ? "" : "connection ended without a close frame: ",
             msg ? msg : ws_client_strerror(status));
    ws_dead(c, hs ? status : WS_ECLOSED, WS_CLOSE_ABNORMAL, 0, why);
}

static const net_conn_cbs ws_conn_cbs = {
    .on_open = ws_on_open, .on_data = ws_on_data, .on_fail = ws_on_fail, .on_closed = ws_on_conn_closed};

/* ---- the user's calls ---- */

void ws_client_connect(ws_client *c, ws_connect_cb cb, void *data) {
    if (c->closing || c->state != WSC_IDLE) {
        cb(data, WS_ESTATE, "connect: already connected");
        return;
    }
    c->connect_cb = cb;
    c->connect_data = data;
    int rc = net_conn_open(&c->cfg, c, &c->nc);
    if (rc < 0) {
        c->nc = NULL;
        ws_dead(c, rc, WS_CLOSE_ABNORMAL, 0, ws_client_strerror(rc));
        return;
    }
    c->nhandles++;
    c->state = WSC_CONNECTING;
    c->conn_deadline = c->connect_timeout_ns ? uv_hrtime() + c->connect_timeout_ns : 0;
    ws_rearm(c);
}

int ws_client_send(ws_client *c, int opcode, const char *p, size_t len) {
    if (c->closing || c->state == WSC_CLOSED || c->state == WSC_CLOSING) return WS_ECLOSED;
    if (c->state != WSC_OPEN) return WS_ESTATE;
    if (opcode == WS_OP_PING && len > WS_CONTROL_MAX) return UV_EINVAL;
    if (net_conn_wqueued(c->nc) >= WS_WQUEUE_MAX) return WS_EWFULL;
    uint64_t m = ws_rand64(c);
    char *dst = net_conn_wspace(c->nc, ws_frame_size(len));
    if (dst == NULL) return UV_ENOMEM;
    net_conn_wcommit(c->nc, ws_frame_build(dst, opcode, p, len, (const uint8_t *)&m));
    return 0;
}

void ws_client_receive(ws_client *c, ws_recv *r, uint64_t timeout_ns) {
    if (c->closing || c->recv) {
        r->done_ns = 0;
        r->on_done(r, c->closing ? UV_ECANCELED : WS_ESTATE, 0, NULL, 0,
                   c->closing ? "cancelled" : "another receive is waiting");
        return;
    }
    c->recv = r;
    if (c->qn) {
        ws_queue_pop(c);
        return;
    }
    if (c->state == WSC_CLOSED || c->state == WSC_CLOSING) {
        if (c->state == WSC_CLOSING) ws_tell_recv(c, WS_ECLOSED, 0, NULL, 0, "closing", 0);
        else ws_tell_recv_dead(c);
        return;
    }
    if (c->state != WSC_OPEN) {
        ws_tell_recv(c, WS_ESTATE, 0, NULL, 0, "not connected", 0);
        return;
    }
    c->recv_deadline = timeout_ns ? uv_hrtime() + timeout_ns : 0;
    ws_rearm(c);
}

void ws_client_close(ws_client *c, int code, const char *reason, size_t reason_len, ws_close_cb cb,
                     void *data) {
    if (!c->closing && !c->close_cb && c->state == WSC_CLOSED && c->nc) {
        c->close_cb = cb;                           /* told when the server ends the connection */
        c->close_data = data;
        return;
    }
    if (c->closing || c->close_cb || c->state == WSC_CLOSING || c->state != WSC_OPEN) {
        int st = c->closing ? UV_ECANCELED : c->state == WSC_CLOSED ? ws_close_status(c) : WS_ESTATE;
        cb(data, st, c->close_code, c->close_reason, c->close_reason_len);
        return;
    }
    c->close_cb = cb;
    c->close_data = data;
    ws_send_close(c, code ? code : WS_CLOSE_NORMAL, reason, reason_len);
    c->state = WSC_CLOSING;
    c->close_deadline = c->timeout_ns ? uv_hrtime() + c->timeout_ns : 0;
    ws_rearm(c);
    ws_tell_recv(c, WS_ECLOSED, 0, NULL, 0, "closing", 0);
}

void ws_client_free(ws_client *c) {
    if (c == NULL || c->closing) return;
    c->closing = 1;
    ws_drop_conn(c);
    clock_timer_disarm(&c->timer, &c->timer_due);
    ws_tell_recv(c, UV_ECANCELED, 0, NULL, 0, "cancelled", 0);
    ws_tell_connect(c, UV_ECANCELED, "cancelled");
    ws_tell_close(c, UV_ECANCELED);
    uv_close((uv_handle_t *)&c->timer, ws_on_handle_closed);
}
