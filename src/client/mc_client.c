/* mc_client.c - memcached client on a libuv loop: one connection per server
 * (net/conn.c: connect timeout, read buffer, a write queue flushed once per
 * loop turn, optional TLS), FIFO-pipelined caller-owned requests, per-request
 * timeouts, and reconnect with doubling backoff.  The server list and the
 * key -> server mapping (libmemcached's ketama or modula) are mc_ring.c's;
 * every byte of I/O goes through net/conn.
 * Requests are text or meta commands (encoded by the caller); a reply of the
 * other protocol than its request's is a protocol error.  It does not retry or
 * fail over requests, nor speak the binary protocol; "noreply" commands and
 * meta's quiet mode (q) must not be sent (replies are matched to requests by
 * order, one per command). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common/clock.h"
#include "common/net.h"
#include "common/text.h"
#include "client/mc_client.h"
#include "client/life.h"
#include "client/mc_ring.h"
#include "net/conn.h"
#include "net/tls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MC_RBUF_INIT (64 * 1024)
/* Largest reply unit accepted (memcached's item size limit is at most 1 GB). */
#define MC_RBUF_MAX (((size_t)1 << 30) + 4096)

typedef enum mc_state {
    MC_DISCONNECTED, MC_CONNECTING, MC_CONNECTED, MC_DOWN
} mc_state;

struct mc_conn {
    client_life *life;         /* first: its client's (client/life.h's close callbacks) */
    mc_client *client;
    uint32_t idx;
    char name[320];
    struct sockaddr_storage addr;
    net_conn_cfg cfg;          /* for net_conn_open: addr, timeout, TLS */
    net_tls_client *tls;       /* NULL: plaintext */
    mc_state state;
    net_conn *nc;              /* the connection, NULL when none */
    uv_timer_t timer;
    uint64_t timer_due;        /* deadline the timer is armed for; 0 = idle */
    net_backoff backoff;
    int down_cause;            /* status of the failure that marked it down */
    char down_msg[200];        /* and its message */
    client_fifo pending;       /* queued and sent, oldest first */
};
typedef struct mc_conn mc_conn;

struct mc_client {
    uv_loop_t *loop;
    mc_ring *ring;                 /* the servers and the key -> server mapping */
    mc_client_opts opts;
    uint32_t n;
    mc_conn *conns;
    client_fifo dead;              /* failed; on_done not fired yet */
    client_life life;              /* freed when its last handle closes after close */
    client_connect_wait connect;
    char errmsg[400];
};

static const net_conn_cbs mc_conn_cbs;

/* The request whose head is r (base is mc_req's first member). */
static mc_req *mc_req_of(client_req *r) { return (mc_req *)r; }


/* ---- small helpers ---------------------------------------------------- */

void mc_client_opts_default(mc_client_opts *o) {
    memset(o, 0, sizeof *o);
    o->timeout_ns = CLIENT_TIMEOUT_DEFAULT_NS;
    o->connect_timeout_ns = 0;
    o->backoff_min_ns = 100000000ull;
    o->backoff_max_ns = 5000000000ull;
    o->distribution = MC_DIST_KETAMA;
}

const char *mc_client_strerror(int status) {
    switch (status) {
    case 0: return "ok";
    case MC_EDOWN: return "server down (reconnect backoff not elapsed)";
    case MC_EPROTO: return "protocol error (unparseable or unsolicited reply)";
    case UV_ETIMEDOUT: return "timeout";
    case UV_ECANCELED: return "cancelled";
    case UV_ECONNREFUSED: return "connection refused";
    case UV_ECONNRESET: return "connection reset by peer";
    default: return net_strerror(status);
    }
}

client_status mc_client_status(int status) {
    switch (status) {
    case MC_EDOWN: return CLIENT_DOWN;
    case MC_EPROTO: return CLIENT_PROTOCOL;
    default: return client_status_of_net(status);
    }
}

/* ---- creation and destruction ----------------------------------------- */


static int mc_conn_init(mc_client *c, uint32_t i, char *err, size_t err_len) {
    mc_conn *conn = &c->conns[i];
    const mc_ring_server *srv = mc_ring_server_at(c->ring, i);
    const char *host = srv->host;
    int port = srv->port;
    conn->life = &c->life;
    conn->client = c;
    conn->idx = i;
    conn->state = MC_DISCONNECTED;
    snprintf(conn->name, sizeof conn->name, "%s:%d", host, port);
    int rc = net_resolve(c->loop, host, port, &conn->addr);
    if (rc < 0)
        return text_errf(err, err_len, "cannot resolve %s: %s", conn->name, uv_strerror(rc));
    if (c->opts.tls) {
        net_tls_opts to = *c->opts.tls;
        char terr[300];
        if (to.server_name == NULL) to.server_name = host;
        if (net_tls_client_new(&to, &conn->tls, terr, sizeof terr) != 0)
            return text_errf(err, err_len, "tls: %s", terr);
    }
    conn->cfg.loop = c->loop;
    conn->cfg.addr = &conn->addr;
    conn->cfg.connect_timeout_ns = c->opts.connect_timeout_ns ? c->opts.connect_timeout_ns
                                                              : c->opts.timeout_ns;
    conn->cfg.rbuf_init = MC_RBUF_INIT;
    conn->cfg.tls = conn->tls;
    conn->cfg.cbs = &mc_conn_cbs;
    return 0;
}

static int mc_client_setup(mc_client *c, const char *servers, char *err, size_t err_len) {
    if (mc_ring_new(servers, c->opts.distribution, MC_MAX_SERVERS, &c->ring, err, err_len) != 0)
        return -1;
    uint32_t n = (uint32_t)mc_ring_count(c->ring);
    c->conns = calloc(n, sizeof *c->conns);
    if (c->conns == NULL) return text_errf(err, err_len, "out of memory");
    c->n = n;
    for (uint32_t i = 0; i < n; i++)
        if (mc_conn_init(c, i, err, err_len) != 0) return -1;
    return 0;
}

static void mc_client_free(mc_client *c) {
    for (uint32_t i = 0; c->conns && i < c->n; i++) net_tls_client_free(c->conns[i].tls);
    free(c->conns);
    mc_ring_free(c->ring);
    free(c);
}

static void mc_on_timer(uv_timer_t *t);

static void mc_client_free_any(void *c) { mc_client_free(c); }

int mc_client_new(uv_loop_t *loop, const char *servers, const mc_client_opts *opts,
                  mc_client **out, char *err, size_t err_len) {
    mc_client *c = calloc(1, sizeof *c);
    *out = NULL;
    if (c == NULL) return text_errf(err, err_len, "out of memory");
    c->loop = loop;
    client_life_init(&c->life, mc_client_free_any, c);
    if (opts) c->opts = *opts;
    else mc_client_opts_default(&c->opts);
    if (mc_client_setup(c, servers, err, err_len) != 0) {
        mc_client_free(c);
        return -1;
    }
    c->opts.tls = NULL;                 /* used by mc_client_setup only */
    for (uint32_t i = 0; i < c->n; i++) {
        uv_timer_init(loop, &c->conns[i].timer);   /* cannot fail on an initialised loop */
        c->conns[i].timer.data = &c->conns[i];
        client_life_hold(&c->life);
    }
    *out = c;
    return 0;
}


/* ---- timers ----------------------------------------------------------- */

/* Arm the timer for deadline d unless it is already due earlier. */
static void mc_conn_arm(mc_conn *conn, uint64_t d) {
    if (!conn->client->life.closing) clock_timer_arm(&conn->timer, &conn->timer_due, mc_on_timer, d, 0);
}

static void mc_conn_disarm(mc_conn *conn) { clock_timer_disarm(&conn->timer, &conn->timer_due); }

/* ---- failure paths ---------------------------------------------------- */

/* Drop the connection (closed asynchronously, unsent bytes with it); no callbacks. */
static void mc_conn_detach(mc_conn *conn) {
    net_conn_close(conn->nc);
    conn->nc = NULL;
    mc_conn_disarm(conn);
}

static void mc_conn_mark_down(mc_conn *conn, uint64_t now, int cause, const char *msg) {
    const mc_client_opts *o = &conn->client->opts;
    conn->down_cause = cause;
    snprintf(conn->down_msg, sizeof conn->down_msg, "%s", msg ? msg : mc_client_strerror(cause));
    net_backoff_failed(&conn->backoff, now, o->backoff_min_ns, o->backoff_max_ns);
    conn->state = MC_DOWN;
}

/* Move every pending request of conn to the client's dead list. */
static void mc_dead_splice(mc_client *c, mc_conn *conn, int status) {
    for (client_req *r = conn->pending.head; r; r = r->next) mc_req_of(r)->status = status;
    client_fifo_splice(&c->dead, &conn->pending);
}

/* Fire on_done for every dead request.  Each is unlinked before its callback,
 * so nested drains (from callbacks) never deliver one twice. */
static void mc_drain(mc_client *c) {
    while (c->dead.head) {
        mc_req *r = mc_req_of(client_fifo_pop(&c->dead));
        r->on_done(r, r->status, NULL);
    }
}

static void mc_connect_report(mc_client *c, int status, const mc_conn *conn, const char *msg) {
    if (c->connect.cb == NULL) return;
    if (status != 0) {                /* "<server>: <kind>: <detail>" (client_status.h) */
        int n = snprintf(c->errmsg, sizeof c->errmsg, "%.190s: ", conn ? conn->name : "client");
        if (n > 0 && (size_t)n < sizeof c->errmsg)
            client_describe(c->errmsg + n, sizeof c->errmsg - (size_t)n, mc_client_status(status),
                            msg ? msg : mc_client_strerror(status));
    }
    client_connect_wait_tell(&c->connect, status, c->errmsg);
}

static void mc_connect_check(mc_client *c) {
    if (c->connect.cb == NULL) return;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->conns[i].state != MC_CONNECTED) return;
    mc_connect_report(c, 0, NULL, NULL);
}

/* Connection-level failure: reset, mark down, fail everything pending. */
static void mc_conn_fail(mc_conn *conn, int status, const char *msg) {
    mc_client *c = conn->client;
    mc_conn_detach(conn);
    mc_conn_mark_down(conn, uv_hrtime(), status, msg);
    mc_dead_splice(c, conn, status);
    mc_connect_report(c, status, conn, msg);
    mc_drain(c);
}

static void mc_on_timer(uv_timer_t *t) {
    mc_conn *conn = t->data;
    conn->timer_due = 0;
    if (conn->client->life.closing) return;
    uint64_t d = client_fifo_head_deadline(&conn->pending);
    if (d && d <= uv_hrtime()) {
        mc_conn_fail(conn, UV_ETIMEDOUT, NULL);
        return;
    }
    mc_conn_arm(conn, d);
}

/* ---- the connection's callbacks --------------------------------------- */

static void mc_on_open(net_conn *nc, void *owner) {
    mc_conn *conn = owner;
    (void)nc;
    conn->state = MC_CONNECTED;
    net_backoff_ok(&conn->backoff);
    mc_connect_check(conn->client);
}

static void mc_on_fail(void *owner, int status, net_phase ph, const char *msg) {
    mc_conn *conn = owner;
    (void)ph;
    conn->nc = NULL;                    /* already closing */
    mc_conn_fail(conn, status, msg);
}

/* Whether a reply of kind k may answer req: the error lines answer either
 * protocol; the others only their own. */
static int mc_reply_fits(const mc_req *req, mc_kind k) {
    if (k == MC_R_ERROR || k == MC_R_CLIENT_ERROR || k == MC_R_SERVER_ERROR) return 1;
    return req->meta ? mc_kind_is_meta(k) : !mc_kind_is_meta(k);
}

/* Hand one parsed unit to the head request.  0 when the connection was failed.
 * *now: the read's clock, read at its first complete reply (0 until then).
 * *owed: the replies this read may still complete: the requests pending when
 * it began.  A request queued while its bytes are handled (a VU resumed by an
 * earlier reply sends its next one at once) cannot be answered by bytes the
 * server sent before it: more replies than owed are unsolicited. */
static int mc_conn_deliver(mc_conn *conn, const mc_reply *r, uint64_t *now, size_t *owed) {
    mc_req *req = conn->pending.head ? mc_req_of(conn->pending.head) : NULL;
    if (req == NULL || *owed == 0 || !mc_reply_fits(req, r->kind)) {
        mc_conn_fail(conn, MC_EPROTO, NULL);
        return 0;
    }
    if (r->kind == MC_R_VALUE || req->left > 1) {     /* text: END follows; meta: not its last reply */
        if (r->kind != MC_R_VALUE) req->left--;
        if (req->on_value) req->on_value(req, r);
        return 1;
    }
    if (r->kind == MC_R_VA && req->on_value) req->on_value(req, r);   /* meta: a value, its last reply */
    client_fifo_pop_answered(&conn->pending, now);   /* req; the timer stays armed: it re-checks lazily */
    (*owed)--;
    req->on_done(req, 0, r);
    return 1;
}

/* Parse every complete reply unit; returns the bytes consumed. */
static size_t mc_on_data(net_conn *nc, void *owner, const char *p, size_t len) {
    mc_conn *conn = owner;
    mc_client *c = conn->client;
    size_t off = 0, need = 0, owed = conn->pending.n;
    uint64_t now = 0;                   /* every reply of this read completed at once */
    mc_reply r;
    while (off < len) {
        size_t n = mc_parse(p + off, len - off, &r);
        if (n == 0 && r.kind == MC_R_BAD) {
            mc_conn_fail(conn, MC_EPROTO, NULL);
            return 0;
        }
        if (n == 0) {
            need = r.need_bytes;
            break;
        }
        off += n;
        if (!mc_conn_deliver(conn, &r, &now, &owed) || c->life.closing || conn->nc != nc) return 0;
    }
    if (need > MC_RBUF_MAX) mc_conn_fail(conn, MC_EPROTO, NULL);
    else if (need && net_conn_rreserve(nc, need) < 0) mc_conn_fail(conn, UV_ENOMEM, NULL);
    return off;
}

static const net_conn_cbs mc_conn_cbs = {
    .on_open = mc_on_open,
    .on_data = mc_on_data,
    .on_fail = mc_on_fail,
    .on_closed = client_life_on_owner_closed,
};

/* ---- connecting ------------------------------------------------------- */

static int mc_conn_start(mc_conn *conn, uint64_t now) {
    int rc = net_conn_open(&conn->cfg, conn, &conn->nc);
    if (rc < 0) {
        mc_conn_mark_down(conn, now, rc, NULL);
        return rc;
    }
    client_life_hold(&conn->client->life);
    conn->state = MC_CONNECTING;
    return 0;
}

/* 0 when requests may be queued on conn (connecting if needed), else status. */
static int mc_conn_ready(mc_conn *conn, uint64_t now) {
    switch (conn->state) {
    case MC_CONNECTED:
    case MC_CONNECTING:
        return 0;
    case MC_DOWN:
        if (net_backoff_waiting(&conn->backoff, now)) return MC_EDOWN;
        return mc_conn_start(conn, now);
    default:
        return mc_conn_start(conn, now);
    }
}

void mc_client_connect(mc_client *c, mc_connect_cb cb, void *data) {
    if (!client_connect_wait_set(&c->connect, c->life.closing, cb, data)) return;
    uint64_t now = uv_hrtime();
    for (uint32_t i = 0; i < c->n; i++) {
        mc_conn *conn = &c->conns[i];
        if (conn->state == MC_CONNECTED || conn->state == MC_CONNECTING) continue;
        int rc = mc_conn_start(conn, now);
        if (rc < 0) {
            mc_connect_report(c, rc, conn, NULL);
            return;
        }
    }
    mc_connect_check(c);
}

/* ---- public request path ---------------------------------------------- */

/* Queue the command's bytes; they leave with the loop turn's other requests. */
static int mc_conn_append(mc_conn *conn, const char *line, size_t line_len,
                          const char *value, size_t value_len) {
    size_t extra = value ? value_len + 2 : 0;
    if (extra < value_len || line_len > SIZE_MAX - extra) return UV_ENOMEM;
    char *dst = net_conn_wspace(conn->nc, line_len + extra);
    if (dst == NULL) return UV_ENOMEM;
    memcpy(dst, line, line_len);
    if (value) {
        if (value_len) memcpy(dst + line_len, value, value_len);
        memcpy(dst + line_len + value_len, "\r\n", 2);
    }
    net_conn_wcommit(conn->nc, line_len + extra);
    return 0;
}

/* Queue req (owed nreplies replies, of the meta protocol when meta). */
static void mc_send(mc_client *c, uint32_t server, mc_req *req, uint32_t nreplies, int meta,
                    const char *line, size_t line_len, const char *value, size_t value_len) {
    uint64_t now = client_req_begin(&req->base);
    req->server = server;
    req->left = nreplies ? nreplies : 1;
    req->meta = meta;
    if (c->life.closing || server >= c->n) {
        req->on_done(req, c->life.closing ? UV_ECANCELED : UV_EINVAL, NULL);
        return;
    }
    mc_conn *conn = &c->conns[server];
    int rc = mc_conn_ready(conn, now);
    if (rc == 0) rc = mc_conn_append(conn, line, line_len, value, value_len);
    if (rc < 0) {
        req->on_done(req, rc, NULL);
        return;
    }
    mc_conn_arm(conn, client_fifo_push(&conn->pending, &req->base, now, c->opts.timeout_ns));
}

void mc_client_send(mc_client *c, uint32_t server, mc_req *req, const char *line,
                    size_t line_len, const char *value, size_t value_len) {
    mc_send(c, server, req, 1, 0, line, line_len, value, value_len);
}

void mc_client_send_meta(mc_client *c, uint32_t server, mc_req *req, uint32_t nreplies,
                         const char *line, size_t line_len, const char *value,
                         size_t value_len) {
    mc_send(c, server, req, nreplies, 1, line, line_len, value, value_len);
}

void mc_client_close(mc_client *c) {
    if (c == NULL || c->life.closing) return;
    c->life.closing = 1;
    for (uint32_t i = 0; i < c->n; i++) {
        mc_conn *conn = &c->conns[i];
        mc_conn_detach(conn);
        conn->state = MC_DISCONNECTED;
        mc_dead_splice(c, conn, UV_ECANCELED);
        uv_close((uv_handle_t *)&conn->timer, client_life_on_handle_closed);
    }
    mc_connect_report(c, UV_ECANCELED, NULL, NULL);
    mc_drain(c);
}

size_t mc_client_nservers(const mc_client *c) { return c->n; }

int mc_client_down_cause(const mc_client *c, uint32_t idx) {
    return idx < c->n && c->conns[idx].state == MC_DOWN ? c->conns[idx].down_cause : 0;
}

const char *mc_client_down_msg(const mc_client *c, uint32_t idx) {
    return idx < c->n && c->conns[idx].state == MC_DOWN ? c->conns[idx].down_msg : NULL;
}

const char *mc_client_server_name(const mc_client *c, uint32_t idx) {
    return idx < c->n ? c->conns[idx].name : NULL;
}

uint32_t mc_client_server_for_key(const mc_client *c, const char *key, size_t len) {
    return mc_ring_pick(c->ring, key, len);
}

size_t mc_client_pending(const mc_client *c) {
    size_t n = c->dead.n;
    for (uint32_t i = 0; i < c->n; i++) n += c->conns[i].pending.n;
    return n;
}

void mc_client_tls_stats(const mc_client *c, uint64_t *handshakes, uint64_t *resumed) {
    *handshakes = *resumed = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        net_tls_stats st = {0, 0};
        if (c->conns[i].tls) net_tls_client_stats(c->conns[i].tls, &st);
        *handshakes += st.handshakes;
        *resumed += st.resumed;
    }
}
