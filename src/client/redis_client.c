/* redis_client.c - redis client on a libuv loop (see redis_client.h).
 *
 * Every byte goes through net/conn (TCP or a unix socket, optional TLS);
 * proto/redis_proto.c encodes commands straight into the connection's write
 * queue (a pipeline a caller encoded comes in one copy, or none when it was
 * encoded in place: redis_client_send_encoded) and parses replies (scalar ones in place, without allocation; arrays
 * and unusual ones through hiredis's reader), enforcing the reply limits.  Writes: a
 * command is queued on the connection, which flushes once per loop turn, so
 * the commands queued in a turn leave in one write.  Replies are matched to
 * requests in order, and only to requests whose bytes were handed to the
 * socket: a reply with no such request (a server talking first, an extra
 * reply) is a protocol error that resets the connection, like an unparseable
 * reply or one over the limits.  Commands queued while connecting wait until
 * AUTH/SELECT succeeded.  Timeouts, drops and close fail each request once.
 * Hostnames resolve (blocking) when the client is created. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common/clock.h"
#include "common/grow.h"
#include "common/net.h"
#include "client/redis_client.h"
#include "net/conn.h"
#include "net/tls.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REDIS_DEFAULT_PORT 6379
#define REDIS_WBUF_INIT (16 * 1024)

typedef enum redis_state {
    RS_IDLE, RS_CONNECTING, RS_HANDSHAKE, RS_READY, RS_DOWN
} redis_state;

typedef struct redis_buf {
    char *p;
    size_t len;
    size_t cap;
} redis_buf;

struct redis_client {
    uv_loop_t *loop;
    redis_client_opts opts;
    char *password;              /* owned copy of opts.password */
    char *path;                  /* unix socket, or NULL */
    char host[256];
    int port;
    char name[300];
    struct sockaddr_storage addr;
    net_conn_cfg cfg;            /* for net_conn_open */
    net_tls_client *tls;         /* NULL: plaintext */
    redis_state state;
    net_conn *nc;                /* the live connection, NULL when none */
    redis_proto proto;
    int handshake_left;          /* AUTH/SELECT replies still expected */
    int handshake_done;          /* AUTH/SELECT replies received */
    int closing;
    unsigned nhandles;           /* open libuv handles; freed at 0 once closing */
    unsigned gen;                /* bumped on every reset */
    uv_timer_t timer;
    uint64_t timer_due;          /* deadline the timer is armed for; 0 = idle */
    uint64_t connect_deadline;   /* connect + AUTH/SELECT */
    net_backoff backoff;
    client_fifo pending;         /* sent or queued, not answered; oldest first */
    redis_buf held;              /* commands queued before AUTH/SELECT succeeded */
    client_connect_wait connect;
    char errmsg[256];
    char down_why[200];          /* what marked the server down */
};

static const net_conn_cbs redis_conn_cbs;

/* The request whose head is r (base is redis_req's first member). */
static redis_req *redis_req_of(client_req *r) { return (redis_req *)r; }
static void redis_on_timer(uv_timer_t *t);

/* ---- small helpers ---------------------------------------------------- */

void redis_client_opts_default(redis_client_opts *o) {
    memset(o, 0, sizeof *o);
    o->timeout_ns = CLIENT_TIMEOUT_DEFAULT_NS;
    o->backoff_min_ns = 100000000ull;
    o->backoff_max_ns = 5000000000ull;
    redis_limits_default(&o->limits);
}

const char *redis_client_strerror(int status) {
    switch (status) {
    case 0: return "ok";
    case REDIS_CLIENT_EDOWN: return "server down (reconnect backoff not elapsed)";
    case REDIS_CLIENT_EIO: return "connection error";
    case REDIS_CLIENT_ESETUP: return "AUTH or SELECT refused";
    case REDIS_CLIENT_EPROTO: return "protocol error";
    case UV_ETIMEDOUT: return "timeout";
    case UV_ECANCELED: return "cancelled";
    case UV_ECONNREFUSED: return "connection refused";
    case UV_ECONNRESET: return "connection reset by peer";
    case UV_EOF: return "connection closed by server";
    default: return net_strerror(status);
    }
}

client_status redis_client_status(int status) {
    switch (status) {
    case REDIS_CLIENT_EDOWN: case REDIS_CLIENT_EIO: return CLIENT_DOWN;
    case REDIS_CLIENT_ESETUP: return CLIENT_SETUP;
    case REDIS_CLIENT_EPROTO: return CLIENT_PROTOCOL;
    default: return client_status_of_net(status);
    }
}

static int redis_err(char *err, size_t err_len, const char *msg, const char *addr) {
    if (err && err_len) snprintf(err, err_len, "%s '%s'", msg, addr ? addr : "");
    return -1;
}

const char *redis_client_name(const redis_client *c) { return c->name; }
size_t redis_client_pending(const redis_client *c) { return c->pending.n; }

static void redis_buf_free(redis_buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Room for n more bytes at the end of b; NULL when out of memory. */
static char *redis_buf_space(redis_buf *b, size_t n) {
    return grow_room(&b->p, &b->cap, b->len, n, REDIS_WBUF_INIT, SIZE_MAX) == 0 ? b->p + b->len : NULL;
}

/* Encode one command (RESP, proto/redis_proto.c) straight onto b, or onto
 * the connection's write queue when b is NULL; 0 or UV_ENOMEM. */
static int redis_format(redis_client *c, redis_buf *b, int argc, const char **argv,
                        const size_t *lens) {
    size_t n = redis_proto_cmd_len(argc, lens);
    char *dst = b ? redis_buf_space(b, n) : net_conn_wspace(c->nc, n);
    if (dst == NULL) return UV_ENOMEM;
    redis_proto_encode(dst, argc, argv, lens);
    if (b) b->len += n;
    else net_conn_wcommit(c->nc, n);
    return 0;
}

/* ---- creation and destruction ----------------------------------------- */

static int redis_port_ok(const char *p, int *port) {
    long v = 0;
    if (*p == 0 || strlen(p) > 5) return 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10 + (*p - '0');
    }
    *port = (int)v;
    return v >= 1 && v <= 65535;
}

/* "host:port", "host", "[v6]:port", "v6" (several colons) */
static int redis_parse_tcp(redis_client *c, const char *a, char *err, size_t err_len) {
    const char *port = NULL, *h = a;
    size_t hlen;
    c->port = REDIS_DEFAULT_PORT;
    if (*a == '[') {
        const char *close = strchr(a, ']');
        if (!close || (close[1] && close[1] != ':')) return redis_err(err, err_len, "bad address", a);
        h = a + 1;
        hlen = (size_t)(close - h);
        if (close[1] == ':') port = close + 2;
    } else {
        const char *colon = strrchr(a, ':');
        if (colon && colon == strchr(a, ':')) port = colon + 1;
        hlen = colon && port ? (size_t)(colon - a) : strlen(a);
    }
    if (hlen == 0 || hlen >= sizeof c->host) return redis_err(err, err_len, "bad host in", a);
    if (port && !redis_port_ok(port, &c->port)) return redis_err(err, err_len, "bad port in", a);
    memcpy(c->host, h, hlen);
    c->host[hlen] = 0;
    snprintf(c->name, sizeof c->name, strchr(c->host, ':') ? "[%s]:%d" : "%s:%d", c->host, c->port);
    return 0;
}

static int redis_parse(redis_client *c, const char *a, char *err, size_t err_len) {
    if (a == NULL || *a == 0) return redis_err(err, err_len, "empty address", a);
    if (strpbrk(a, " \t\r\n,")) return redis_err(err, err_len, "bad address (want host:port or /path)", a);
    if (*a != '/') return redis_parse_tcp(c, a, err, err_len);
    if (strlen(a) >= sizeof c->name) return redis_err(err, err_len, "socket path too long", a);
    c->path = strdup(a);
    snprintf(c->name, sizeof c->name, "%s", a);
    return c->path ? 0 : redis_err(err, err_len, "out of memory", a);
}

static void redis_free(redis_client *c) {
    redis_proto_free(&c->proto);
    redis_buf_free(&c->held);
    net_tls_client_free(c->tls);
    free(c->password);
    free(c->path);
    free(c);
}

static int redis_setup_conn(redis_client *c, char *err, size_t err_len) {
    if (c->opts.tls && c->path) {
        snprintf(err, err_len, "tls over a unix socket ('%s') is not supported", c->path);
        return -1;
    }
    if (c->opts.tls) {
        net_tls_opts to = *c->opts.tls;
        char terr[300];
        if (to.server_name == NULL) to.server_name = c->host;
        if (net_tls_client_new(&to, &c->tls, terr, sizeof terr) != 0) {
            snprintf(err, err_len, "tls: %s", terr);
            return -1;
        }
    }
    c->opts.tls = NULL;                 /* the settings are in c->tls now */
    c->cfg.loop = c->loop;
    c->cfg.addr = &c->addr;
    c->cfg.path = c->path;
    c->cfg.connect_timeout_ns = c->opts.connect_timeout_ns ? c->opts.connect_timeout_ns
                                                           : c->opts.timeout_ns;
    c->cfg.rbuf_init = 16 * 1024;
    c->cfg.tls = c->tls;
    c->cfg.cbs = &redis_conn_cbs;
    return 0;
}

static int redis_setup(redis_client *c, const char *address, char *err, size_t err_len) {
    const redis_limits *l = &c->opts.limits;
    if (redis_parse(c, address, err, err_len) != 0) return -1;
    if (c->opts.db < 0) return redis_err(err, err_len, "negative db for", address);
    if (l->max_reply_bytes < 1 || l->max_reply_bytes > REDIS_PROTO_MAX_REPLY_LIMIT ||
        l->max_elements < 1 || l->max_elements > REDIS_PROTO_MAX_ELEMENTS_LIMIT ||
        l->max_depth < 1 || l->max_depth > REDIS_PROTO_MAX_DEPTH_DEFAULT)
        return redis_err(err, err_len, "reply limits out of range for", address);
    if (c->opts.password && (c->password = strdup(c->opts.password)) == NULL)
        return redis_err(err, err_len, "out of memory", address);
    c->opts.password = NULL;
    if (c->path == NULL) {
        int rc = net_resolve(c->loop, c->host, c->port, &c->addr);
        if (rc < 0) {
            if (err && err_len) snprintf(err, err_len, "cannot resolve '%s': %s", c->name, uv_strerror(rc));
            return -1;
        }
    }
    if (redis_proto_init(&c->proto, &c->opts.limits) != 0)
        return redis_err(err, err_len, "out of memory", address);
    redis_proto_free(&c->proto);         /* a reader is made per connection */
    return redis_setup_conn(c, err, err_len);
}

int redis_client_new(uv_loop_t *loop, const char *address, const redis_client_opts *opts,
                     redis_client **out, char *err, size_t err_len) {
    redis_client *c = calloc(1, sizeof *c);
    *out = NULL;
    if (c == NULL) return redis_err(err, err_len, "out of memory", address);
    c->loop = loop;
    if (opts) c->opts = *opts;
    else redis_client_opts_default(&c->opts);
    if (redis_setup(c, address, err, err_len) != 0) {
        redis_free(c);
        return -1;
    }
    if (uv_timer_init(loop, &c->timer) != 0) {
        redis_free(c);                   /* cannot fail on an initialised loop */
        return redis_err(err, err_len, "cannot initialise libuv handles for", address);
    }
    c->timer.data = c;
    c->nhandles = 1;
    *out = c;
    return 0;
}

static void redis_unref(redis_client *c) {
    assert(c->nhandles > 0);             /* every close matches an open handle */
    if (--c->nhandles == 0 && c->closing) redis_free(c);
}

static void redis_on_handle_close(uv_handle_t *h) { redis_unref(h->data); }

static void redis_on_conn_closed(void *owner) { redis_unref(owner); }

/* ---- timers ----------------------------------------------------------- */

static uint64_t redis_next_deadline(const redis_client *c) {
    int connecting = c->state == RS_CONNECTING || c->state == RS_HANDSHAKE;
    uint64_t d = connecting ? c->connect_deadline : 0;
    uint64_t h = client_fifo_head_deadline(&c->pending);
    if (h && (d == 0 || h < d)) d = h;
    return d;
}

/* Arm the timer for deadline d unless it is already due earlier. */
static void redis_arm(redis_client *c, uint64_t d) {
    if (!c->closing) clock_timer_arm(&c->timer, &c->timer_due, redis_on_timer, d, 0);
}

static void redis_disarm(redis_client *c) { clock_timer_disarm(&c->timer, &c->timer_due); }

/* ---- failure paths ---------------------------------------------------- */

/* Drop the connection (closed asynchronously, unsent bytes with it), the
 * reader and the held commands; no callbacks. */
static void redis_detach(redis_client *c) {
    net_conn_close(c->nc);
    c->nc = NULL;
    c->held.len = 0;
    redis_proto_free(&c->proto);
    c->connect_deadline = 0;
    c->handshake_left = c->handshake_done = 0;
    redis_disarm(c);
    c->gen++;
}

static void redis_mark_down(redis_client *c, uint64_t now, const char *why) {
    const redis_client_opts *o = &c->opts;
    snprintf(c->down_why, sizeof c->down_why, "%.190s", why);
    net_backoff_failed(&c->backoff, now, o->backoff_min_ns, o->backoff_max_ns);
    c->state = RS_DOWN;
}

/* Fail every pending request.  The list is taken first, so a callback that
 * sends or closes never sees one of them again. */
static void redis_fail_all(redis_client *c, int status, const char *msg) {
    client_fifo all = c->pending;
    c->pending = (client_fifo){NULL, NULL, 0};
    while (all.head) {
        redis_req *r = redis_req_of(client_fifo_pop(&all));
        r->on_done(r, status, NULL, msg);
    }
}

/* Connection-level failure: drop the connection, mark down, fail everything. */
static void redis_drop(redis_client *c, int status, const char *why) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", why ? why : redis_client_strerror(status));
    redis_detach(c);
    if (c->closing) c->state = RS_IDLE;
    else redis_mark_down(c, uv_hrtime(), msg);
    redis_fail_all(c, status, msg);
    client_connect_wait_tell(&c->connect, status, msg);
}

static void redis_on_timer(uv_timer_t *t) {
    redis_client *c = t->data;
    c->timer_due = 0;
    if (c->closing) return;
    uint64_t d = redis_next_deadline(c);
    if (d && d <= uv_hrtime()) {
        int connecting = c->state == RS_CONNECTING || c->state == RS_HANDSHAKE;
        redis_drop(c, UV_ETIMEDOUT, connecting && d == c->connect_deadline ? "connect timeout"
                                                                           : "timeout");
        return;
    }
    redis_arm(c, d);
}

/* ---- reading ---------------------------------------------------------- */

static void redis_became_ready(redis_client *c) {
    c->state = RS_READY;
    net_backoff_ok(&c->backoff);
    c->connect_deadline = 0;
    redis_disarm(c);
    redis_arm(c, redis_next_deadline(c));
    if (c->held.len) {
        uint64_t base = net_conn_committed(c->nc);     /* the held requests' positions become the stream's */
        for (client_req *q = c->pending.head; q; q = q->next) redis_req_of(q)->wend += base;
        if (net_conn_write(c->nc, c->held.p, c->held.len) < 0) {
            redis_drop(c, UV_ENOMEM, NULL);
            return;
        }
        c->held.len = 0;
    }
    client_connect_wait_tell(&c->connect, 0, NULL);
}

static void redis_on_setup_reply(redis_client *c, const redisReply *r) {
    const char *what = c->password && c->handshake_done == 0 ? "AUTH" : "SELECT";
    c->handshake_done++;
    if (r->type == REDIS_REPLY_ERROR) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s refused: %.*s", what, (int)r->len, r->str);
        redis_drop(c, REDIS_CLIENT_ESETUP, msg);
        return;
    }
    if (--c->handshake_left == 0) redis_became_ready(c);
}

/* One complete reply: to AUTH/SELECT, or to the oldest request sent.
 * *now: the read's clock, read at its first reply (0 until then). */
static void redis_deliver(redis_client *c, const redisReply *r, uint64_t *now) {
    if (c->state == RS_HANDSHAKE) {
        redis_on_setup_reply(c, r);
        return;
    }
    client_req *head = c->pending.head;
    /* a reply to a request whose bytes are still queued came before the
     * server could have read it; one to a request in a send in flight may
     * not (the server answers what it has read) */
    if (c->state != RS_READY || head == NULL || redis_req_of(head)->wend > net_conn_handed(c->nc)) {
        redis_drop(c, REDIS_CLIENT_EPROTO, "protocol error: a reply nobody asked for");
        return;
    }
    /* the timer stays armed: it re-checks lazily */
    redis_req *req = redis_req_of(client_fifo_pop_answered(&c->pending, now));
    req->on_done(req, 0, r, NULL);
}

/* Bytes for hiredis's reader (an array, a big or unusual reply, or the
 * rest of a read once it holds an unfinished one): its replies, in order. */
static void redis_read_slow(redis_client *c, const char *p, size_t n, uint64_t *now) {
    unsigned gen = c->gen;
    if (redis_proto_feed(&c->proto, p, n) != 0) {
        redis_drop(c, UV_ENOMEM, c->proto.err);
        return;
    }
    for (;;) {
        redisReply *r;
        int rc = redis_proto_next(&c->proto, &r);
        if (rc == 0) return;
        if (rc < 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "protocol error: %s", c->proto.err);
            redis_drop(c, REDIS_CLIENT_EPROTO, msg);
            return;
        }
        redis_deliver(c, r, now);
        freeReplyObject(r);
        if (c->closing || c->gen != gen) return;
    }
}

/* Replies in p[0..n): scalar ones taken in place (no allocation), the rest
 * through hiredis; returns the bytes consumed (an unfinished scalar reply
 * stays in the connection's buffer until more bytes come). */
static size_t redis_read_replies(redis_client *c, const char *p, size_t n) {
    unsigned gen = c->gen;
    size_t off = 0;
    uint64_t now = 0;                    /* every reply of this read completed at once */
    /* the scanner feeds hiredis nothing: once idle, the reader stays idle
     * until the slow path below (or a reset, which ends this read) */
    int idle = redis_proto_idle(&c->proto);
    while (idle && off < n) {
        redisReply r;
        size_t used;
        int rc = redis_proto_scan(&c->proto, p + off, n - off, &r, &used);
        if (rc == 0) return off;
        if (rc == 2) break;
        if (rc < 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "protocol error: %s", c->proto.err);
            redis_drop(c, REDIS_CLIENT_EPROTO, msg);
            return n;
        }
        off += used;
        redis_deliver(c, &r, &now);
        if (c->closing || c->gen != gen) return n;
    }
    if (off < n) redis_read_slow(c, p + off, n - off, &now);
    return n;
}

static size_t redis_on_data(net_conn *nc, void *owner, const char *p, size_t n) {
    (void)nc;
    return redis_read_replies(owner, p, n);
}

static void redis_on_fail(void *owner, int status, net_phase ph, const char *msg) {
    redis_client *c = owner;
    (void)ph;
    c->nc = NULL;                        /* already closing */
    redis_drop(c, status, msg);
}

/* ---- connecting ------------------------------------------------------- */

/* Connected: AUTH and SELECT first, user commands once they succeeded. */
static void redis_handshake(redis_client *c) {
    char db[16];
    int n = snprintf(db, sizeof db, "%d", c->opts.db);
    const char *auth[2] = {"AUTH", c->password};
    const char *sel[2] = {"SELECT", db};
    size_t auth_lens[2] = {4, c->password ? strlen(c->password) : 0};
    size_t sel_lens[2] = {6, (size_t)n};
    c->handshake_left = c->handshake_done = 0;
    if ((c->password && redis_format(c, NULL, 2, auth, auth_lens) < 0) ||
        (c->opts.db > 0 && redis_format(c, NULL, 2, sel, sel_lens) < 0)) {
        redis_drop(c, UV_ENOMEM, NULL);
        return;
    }
    c->handshake_left = (c->password != NULL) + (c->opts.db > 0);
    if (c->handshake_left == 0) {
        redis_became_ready(c);
        return;
    }
    c->state = RS_HANDSHAKE;
}

static void redis_on_open(net_conn *nc, void *owner) {
    (void)nc;
    redis_handshake(owner);
}

static const net_conn_cbs redis_conn_cbs = {
    .on_open = redis_on_open,
    .on_data = redis_on_data,
    .on_fail = redis_on_fail,
    .on_closed = redis_on_conn_closed,
};

static int redis_start_failed(redis_client *c, int status, uint64_t now) {
    snprintf(c->errmsg, sizeof c->errmsg, "%s", redis_client_strerror(status));
    redis_detach(c);
    redis_mark_down(c, now, c->errmsg);
    return status;
}

/* Start a connection attempt; 0, or a status with the reason in c->errmsg. */
static int redis_start(redis_client *c, uint64_t now) {
    if (redis_proto_reset(&c->proto) != 0) return redis_start_failed(c, UV_ENOMEM, now);
    int rc = net_conn_open(&c->cfg, c, &c->nc);
    if (rc < 0) return redis_start_failed(c, rc, now);
    c->nhandles++;
    uint64_t to = c->cfg.connect_timeout_ns;
    c->state = RS_CONNECTING;
    c->connect_deadline = to ? now + to : 0;
    redis_arm(c, c->connect_deadline);
    return 0;
}

/* 0 when requests may be queued (connecting if needed), else a status. */
static int redis_ready(redis_client *c, uint64_t now) {
    switch (c->state) {
    case RS_READY: case RS_CONNECTING: case RS_HANDSHAKE:
        return 0;
    case RS_DOWN:
        if (net_backoff_waiting(&c->backoff, now)) {
            snprintf(c->errmsg, sizeof c->errmsg, "%s after: %.190s",
                     redis_client_strerror(REDIS_CLIENT_EDOWN), c->down_why);
            return REDIS_CLIENT_EDOWN;
        }
        return redis_start(c, now);
    default:
        return redis_start(c, now);
    }
}

void redis_client_connect(redis_client *c, redis_connect_cb cb, void *data) {
    if (!client_connect_wait_set(&c->connect, c->closing, cb, data)) return;
    if (c->state == RS_READY) {
        client_connect_wait_tell(&c->connect, 0, NULL);
        return;
    }
    if (c->state == RS_CONNECTING || c->state == RS_HANDSHAKE) return;
    int rc = redis_start(c, uv_hrtime());
    if (rc < 0) client_connect_wait_tell(&c->connect, rc, c->errmsg);
}

/* ---- requests --------------------------------------------------------- */

int redis_client_command_ok(const char *name, size_t len) {
    static const struct { const char *s; size_t n; } multi[] = {
        {"subscribe", 9}, {"psubscribe", 10}, {"ssubscribe", 10}, {"unsubscribe", 11},
        {"punsubscribe", 12}, {"sunsubscribe", 12}, {"monitor", 7}};
    if (len < 7 || len > 12) return 1;      /* every command but these, without a compare */
    for (size_t i = 0; i < sizeof multi / sizeof multi[0]; i++)
        if (multi[i].n == len && strncasecmp(name, multi[i].s, len) == 0) return 0;
    return 1;
}

static void redis_req_fail(redis_req *req, int status, const char *why) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", why ? why : redis_client_strerror(status));
    req->on_done(req, status, NULL, msg);
}

/* Queue req, begun at now; arm the timer for its deadline. */
static void redis_enqueue(redis_client *c, redis_req *req, uint64_t now) {
    redis_arm(c, client_fifo_push(&c->pending, &req->base, now, c->opts.timeout_ns));
}

void redis_client_send(redis_client *c, redis_req *req, int argc, const char **argv,
                       const size_t *argvlen) {
    uint64_t now = client_req_begin(&req->base);
    if (c->closing || argc < 1) {
        redis_req_fail(req, c->closing ? UV_ECANCELED : UV_EINVAL, NULL);
        return;
    }
    if (!redis_client_command_ok(argv[0], argvlen[0])) {
        redis_req_fail(req, UV_EINVAL, "pub/sub and MONITOR are not supported");
        return;
    }
    int rc = redis_ready(c, now);
    if (rc < 0) {
        redis_req_fail(req, rc, c->errmsg);
        return;
    }
    int ready = c->state == RS_READY;
    if (redis_format(c, ready ? NULL : &c->held, argc, argv, argvlen) < 0) {
        redis_req_fail(req, UV_ENOMEM, NULL);
        return;
    }
    req->wend = ready ? net_conn_committed(c->nc) : c->held.len;
    redis_enqueue(c, req, now);
}

/* Copy n encoded bytes onto the write queue (ready) or the held buffer;
 * returns where they begin in its stream, or UINT64_MAX when out of memory. */
static uint64_t redis_put_encoded(redis_client *c, const char *buf, size_t len) {
    int ready = c->state == RS_READY;
    uint64_t base = ready ? net_conn_committed(c->nc) : c->held.len;
    char *dst = ready ? net_conn_wspace(c->nc, len) : redis_buf_space(&c->held, len);
    if (dst == NULL) return UINT64_MAX;
    if (dst != buf) memcpy(dst, buf, len);      /* encoded in place: redis_client_encode_room */
    if (ready) net_conn_wcommit(c->nc, len);
    else c->held.len += len;
    return base;
}

char *redis_client_encode_room(redis_client *c, size_t len) {
    return c->closing || c->state != RS_READY ? NULL : net_conn_wspace(c->nc, len);
}

void redis_client_send_encoded(redis_client *c, redis_req *const *reqs, int n, const char *buf,
                               size_t len) {
    if (n < 1) return;
    uint64_t now = client_req_begin(&reqs[0]->base);
    int rc = c->closing ? UV_ECANCELED : redis_ready(c, now);
    const char *why = c->closing ? NULL : c->errmsg;     /* redis_ready's reason */
    uint64_t base = rc < 0 ? 0 : redis_put_encoded(c, buf, len);
    if (rc == 0 && base == UINT64_MAX) rc = UV_ENOMEM, why = NULL;
    if (rc < 0) {                        /* each fails, in order, as redis_client_send's would */
        for (int i = 0; i < n; i++) {
            if (i > 0) client_req_begin(&reqs[i]->base);
            redis_req_fail(reqs[i], rc, why);
        }
        return;
    }
    uint64_t deadline = 0;
    for (int i = 0; i < n; i++) {
        redis_req *req = reqs[i];
        uint64_t start = i == 0 ? now : client_req_begin(&req->base);
        req->wend += base;
        uint64_t d = client_fifo_push(&c->pending, &req->base, start, c->opts.timeout_ns);
        if (d && (deadline == 0 || d < deadline)) deadline = d;
    }
    redis_arm(c, deadline);
}

/* ---- close ------------------------------------------------------------ */

void redis_client_close(redis_client *c) {
    if (c == NULL || c->closing) return;
    c->closing = 1;
    redis_drop(c, UV_ECANCELED, "cancelled");
    uv_close((uv_handle_t *)&c->timer, redis_on_handle_close);
}

void redis_client_tls_stats(const redis_client *c, uint64_t *handshakes, uint64_t *resumed) {
    net_tls_stats st = {0, 0};
    if (c->tls) net_tls_client_stats(c->tls, &st);
    *handshakes = st.handshakes;
    *resumed = st.resumed;
}
