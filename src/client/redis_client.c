/* redis_client.c - redis client on hiredis's async API, its events on the
 * loop through our hooks (redis_uv.c).  Our FIFO of caller-owned requests
 * mirrors hiredis's callback queue, so timeouts, drops and close fail each
 * request once and late callbacks of a dropped context are ignored; a context
 * is never freed under hiredis (redis_detach).  Hostnames resolve blocking. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common/clock.h"
#include "client/redis_client.h"
#include "client/redis_uv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hiredis/async.h>

#define REDIS_DEFAULT_PORT 6379

typedef enum redis_state {
    RS_IDLE, RS_CONNECTING, RS_HANDSHAKE, RS_READY, RS_DOWN
} redis_state;

struct redis_client {
    uv_loop_t *loop;
    redis_client_opts opts;
    char *password;              /* owned copy of opts.password */
    char *path;                  /* unix socket, or NULL */
    char host[256];
    int port;
    char name[300];
    redisAsyncContext *ac;       /* the live context, NULL when none */
    redisAsyncContext *zombie;   /* dropped inside its connect callback: freed later */
    redis_state state;
    int handshake_left;          /* AUTH/SELECT replies still expected */
    int in_onconnect;            /* inside hiredis's connect callback */
    int closing;
    uv_timer_t timer;
    uint64_t timer_due;          /* deadline the timer is armed for; 0 = idle */
    uint64_t connect_deadline;
    uint64_t retry_at;
    uint64_t backoff;
    redis_req *head, *tail;      /* pending, oldest first */
    redis_req *unsent;           /* first request not handed to hiredis yet */
    size_t npending;
    redis_connect_cb connect_cb;
    void *connect_data;
    char errmsg[256];
};

static void redis_on_timer(uv_timer_t *t);

/* ---- small helpers ---------------------------------------------------- */

void redis_client_opts_default(redis_client_opts *o) {
    memset(o, 0, sizeof *o);
    o->timeout_ns = 5000000000ull;
    o->backoff_min_ns = 100000000ull;
    o->backoff_max_ns = 5000000000ull;
}

const char *redis_client_strerror(int status) {
    switch (status) {
    case 0: return "ok";
    case REDIS_CLIENT_EDOWN: return "server down (reconnect backoff not elapsed)";
    case REDIS_CLIENT_EIO: return "connection error";
    case REDIS_CLIENT_ESETUP: return "AUTH or SELECT refused";
    case UV_ETIMEDOUT: return "timeout";
    case UV_ECANCELED: return "cancelled";
    case UV_ECONNREFUSED: return "connection refused";
    case UV_ECONNRESET: return "connection reset by peer";
    case UV_EOF: return "connection closed by server";
    default: return status < 0 ? uv_strerror(status) : "unknown status";
    }
}

static int redis_err(char *err, size_t err_len, const char *msg, const char *addr) {
    if (err && err_len) snprintf(err, err_len, "%s '%s'", msg, addr ? addr : "");
    return -1;
}

/* A status for a failed hiredis context; sys_errno when it is known. */
static int redis_ctx_status(const redisContext *rc, int sys_errno) {
    if (rc->err == REDIS_ERR_EOF) return UV_EOF;
    if (rc->err == REDIS_ERR_IO && sys_errno > 0) return -sys_errno;
    return REDIS_CLIENT_EIO;
}

const char *redis_client_name(const redis_client *c) { return c->name; }
size_t redis_client_pending(const redis_client *c) { return c->npending; }

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
    free(c->password);
    free(c->path);
    free(c);
}

int redis_client_new(uv_loop_t *loop, const char *address, const redis_client_opts *opts,
                     redis_client **out, char *err, size_t err_len) {
    redis_client *c = calloc(1, sizeof *c);
    *out = NULL;
    if (c == NULL) return redis_err(err, err_len, "out of memory", address);
    c->loop = loop;
    if (opts) c->opts = *opts;
    else redis_client_opts_default(&c->opts);
    if (c->opts.password) c->password = strdup(c->opts.password);
    c->opts.password = NULL;
    if (redis_parse(c, address, err, err_len) != 0 || (c->opts.db < 0 &&
        redis_err(err, err_len, "negative db for", address))) {
        redis_free(c);
        return -1;
    }
    uv_timer_init(loop, &c->timer);
    c->timer.data = c;
    *out = c;
    return 0;
}

/* ---- timers ----------------------------------------------------------- */

static uint64_t redis_next_deadline(const redis_client *c) {
    int connecting = c->state == RS_CONNECTING || c->state == RS_HANDSHAKE;
    uint64_t d = connecting ? c->connect_deadline : 0;
    uint64_t h = c->head ? c->head->deadline_ns : 0;
    if (h && (d == 0 || h < d)) d = h;
    return d;
}

/* Arm the timer for deadline d unless it is already due earlier. */
static void redis_arm(redis_client *c, uint64_t d) {
    if (!c->closing) clock_timer_arm(&c->timer, &c->timer_due, redis_on_timer, d, 0);
}

static void redis_disarm(redis_client *c) {
    if (!c->zombie) clock_timer_disarm(&c->timer, &c->timer_due);   /* else the timer reaps it */
}

/* ---- failure paths ---------------------------------------------------- */

/* Free a context dropped inside its own connect callback. */
static void redis_reap(redis_client *c) {
    redisAsyncContext *z = c->zombie;
    c->zombie = NULL;
    if (z) redisAsyncFree(z);
}

/* Forget the live context.  hiredis_frees: hiredis is already freeing it (its
 * disconnect/connect-error callback or a NULL reply).  Inside a reply
 * callback redisAsyncFree only flags the context and hiredis frees it when
 * the callback returns; inside the connect callback it would free at once
 * under hiredis's feet, so the context is reaped later from the timer. */
static void redis_detach(redis_client *c, int hiredis_frees) {
    redisAsyncContext *ac = c->ac;
    if (ac == NULL) return;
    c->ac = NULL;
    if (hiredis_frees) return;
    if (c->in_onconnect) {
        c->zombie = ac;
        redis_arm(c, 1);                /* already due: fires on the next loop turn */
        return;
    }
    redisAsyncFree(ac);
}

static void redis_mark_down(redis_client *c, uint64_t now) {
    const redis_client_opts *o = &c->opts;
    c->backoff = clock_backoff_next(c->backoff, o->backoff_min_ns, o->backoff_max_ns);
    c->state = RS_DOWN;
    c->retry_at = now + c->backoff;
}

/* Fail every pending request.  The list is taken first, so a callback that
 * sends or closes never sees one of them again. */
static void redis_fail_all(redis_client *c, int status, const char *msg) {
    redis_req *r = c->head;
    c->head = c->tail = c->unsent = NULL;
    c->npending = 0;
    while (r) {
        redis_req *next = r->next;
        r->next = NULL;
        if (r->cmd) redisFreeCommand(r->cmd);
        r->cmd = NULL;
        r->on_done(r, status, NULL, msg);
        r = next;
    }
}

static void redis_connect_report(redis_client *c, int status, const char *msg) {
    redis_connect_cb cb = c->connect_cb;
    if (cb == NULL) return;
    c->connect_cb = NULL;
    cb(c->connect_data, status, status == 0 ? NULL : msg);
}

/* Connection-level failure: drop the context, mark down, fail everything. */
static void redis_drop(redis_client *c, int status, const char *why, int hiredis_frees) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", why ? why : redis_client_strerror(status));
    redis_detach(c, hiredis_frees);
    redis_disarm(c);
    c->connect_deadline = 0;
    c->handshake_left = 0;
    if (c->closing) c->state = RS_IDLE;
    else redis_mark_down(c, uv_hrtime());
    redis_fail_all(c, status, msg);
    redis_connect_report(c, status, msg);
}

/* The live context is going away on hiredis's side. */
static void redis_lost(redis_client *c, redisAsyncContext *ac) {
    const char *why = ac->c.err ? ac->c.errstr : "connection lost";
    redis_drop(c, redis_ctx_status(&ac->c, 0), why, 1);
}

static void redis_on_timer(uv_timer_t *t) {
    redis_client *c = t->data;
    c->timer_due = 0;
    if (c->closing) return;
    redis_reap(c);
    uint64_t d = redis_next_deadline(c);
    if (d && d <= uv_hrtime()) {
        int connecting = c->state == RS_CONNECTING || c->state == RS_HANDSHAKE;
        redis_drop(c, UV_ETIMEDOUT, connecting && d == c->connect_deadline ? "connect timeout"
                                                                           : "timeout", 0);
        return;
    }
    redis_arm(c, d);
}

/* ---- hiredis callbacks ------------------------------------------------ */

static void redis_on_reply(redisAsyncContext *ac, void *r, void *privdata) {
    redis_client *c = privdata;
    if (ac != c->ac) return;            /* a dropped context: already failed */
    if (r == NULL) {
        redis_lost(c, ac);
        return;
    }
    redis_req *req = c->head;
    if (req == NULL || req == c->unsent) {
        redis_drop(c, REDIS_CLIENT_EIO, "reply without a request", 0);
        return;
    }
    c->head = req->next;
    if (c->head == NULL) {
        c->tail = NULL;
        redis_disarm(c);
    }
    c->npending--;
    req->next = NULL;
    req->on_done(req, 0, r, NULL);
}

/* Hand the requests queued while connecting to hiredis, in order. */
static void redis_flush_unsent(redis_client *c) {
    for (redis_req *r = c->unsent; r; r = r->next) {
        int rc = redisAsyncFormattedCommand(c->ac, redis_on_reply, c, r->cmd, r->cmd_len);
        redisFreeCommand(r->cmd);
        r->cmd = NULL;
        c->unsent = r->next;
        if (rc != REDIS_OK) {
            redis_drop(c, REDIS_CLIENT_EIO, "hiredis refused a command", 0);
            return;
        }
    }
}

static void redis_became_ready(redis_client *c) {
    c->state = RS_READY;
    c->backoff = 0;
    c->connect_deadline = 0;
    redis_disarm(c);
    redis_arm(c, redis_next_deadline(c));
    redis_flush_unsent(c);
    if (c->state == RS_READY) redis_connect_report(c, 0, NULL);
}

static void redis_on_setup(redisAsyncContext *ac, redisReply *reply, redis_client *c,
                           const char *what) {
    if (ac != c->ac) return;
    if (reply == NULL) {
        redis_lost(c, ac);
        return;
    }
    if (reply->type == REDIS_REPLY_ERROR) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s refused: %.*s", what, (int)reply->len, reply->str);
        redis_drop(c, REDIS_CLIENT_ESETUP, msg, 0);
        return;
    }
    if (--c->handshake_left == 0) redis_became_ready(c);
}

static void redis_on_auth(redisAsyncContext *ac, void *r, void *privdata) {
    redis_on_setup(ac, r, privdata, "AUTH");
}

static void redis_on_select(redisAsyncContext *ac, void *r, void *privdata) {
    redis_on_setup(ac, r, privdata, "SELECT");
}

static int redis_send_setup(redis_client *c, redisCallbackFn *fn, const char *cmd,
                            const char *arg) {
    const char *argv[2] = {cmd, arg};
    size_t lens[2] = {strlen(cmd), strlen(arg)};
    if (redisAsyncCommandArgv(c->ac, fn, c, 2, argv, lens) != REDIS_OK) return -1;
    c->handshake_left++;
    return 0;
}

/* Connected: AUTH and SELECT first, user commands once they succeeded. */
static void redis_handshake(redis_client *c) {
    char db[16];
    c->state = RS_HANDSHAKE;
    c->handshake_left = 0;
    snprintf(db, sizeof db, "%d", c->opts.db);
    if ((c->password && redis_send_setup(c, redis_on_auth, "AUTH", c->password) != 0) ||
        (c->opts.db > 0 && redis_send_setup(c, redis_on_select, "SELECT", db) != 0)) {
        redis_drop(c, REDIS_CLIENT_EIO, "hiredis refused AUTH/SELECT", 0);
        return;
    }
    if (c->handshake_left == 0) redis_became_ready(c);
}

static void redis_on_connect(const redisAsyncContext *cac, int status) {
    int e = errno;
    redisAsyncContext *ac = (redisAsyncContext *)cac;
    redis_client *c = ac->data;
    if (ac != c->ac) return;
    if (status != REDIS_OK) {           /* hiredis frees ac when this returns */
        redis_drop(c, redis_ctx_status(&ac->c, e), ac->c.errstr, 1);
        return;
    }
    c->in_onconnect++;
    redis_handshake(c);
    c->in_onconnect--;
}

static void redis_on_disconnect(const redisAsyncContext *cac, int status) {
    redisAsyncContext *ac = (redisAsyncContext *)cac;
    redis_client *c = ac->data;
    (void)status;
    if (ac == c->zombie) c->zombie = NULL;   /* hiredis freed it first */
    else if (ac == c->ac) redis_lost(c, ac);
}

/* ---- connecting ------------------------------------------------------- */

static int redis_start_failed(redis_client *c, int status, const char *why, uint64_t now) {
    snprintf(c->errmsg, sizeof c->errmsg, "%s", why);
    redis_mark_down(c, now);
    return status;
}

/* Start a connection attempt; 0, or a status with the reason in c->errmsg. */
static int redis_start(redis_client *c, uint64_t now) {
    redisAsyncContext *ac = c->path ? redisAsyncConnectUnix(c->path)
                                    : redisAsyncConnect(c->host, c->port);
    int e = errno;
    if (ac == NULL) return redis_start_failed(c, UV_ENOMEM, "out of memory", now);
    if (ac->err) {
        int status = redis_ctx_status(&ac->c, e);
        snprintf(c->errmsg, sizeof c->errmsg, "%s", ac->errstr);
        redisAsyncFree(ac);
        redis_mark_down(c, now);
        return status;
    }
    if (redis_uv_attach(ac, c->loop) != 0) {
        redisAsyncFree(ac);
        return redis_start_failed(c, REDIS_CLIENT_EIO, "cannot attach to the loop", now);
    }
    ac->data = c;
    c->ac = ac;
    redisAsyncSetConnectCallback(ac, redis_on_connect);  /* after attach: watches writability */
    redisAsyncSetDisconnectCallback(ac, redis_on_disconnect);
    uint64_t to = c->opts.connect_timeout_ns ? c->opts.connect_timeout_ns : c->opts.timeout_ns;
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
        if (now < c->retry_at) {
            snprintf(c->errmsg, sizeof c->errmsg, "%s", redis_client_strerror(REDIS_CLIENT_EDOWN));
            return REDIS_CLIENT_EDOWN;
        }
        return redis_start(c, now);
    default:
        return redis_start(c, now);
    }
}

void redis_client_connect(redis_client *c, redis_connect_cb cb, void *data) {
    if (c->closing) {
        if (cb) cb(data, UV_ECANCELED, "client closed");
        return;
    }
    c->connect_cb = cb;
    c->connect_data = data;
    if (c->state == RS_READY) {
        redis_connect_report(c, 0, NULL);
        return;
    }
    if (c->state == RS_CONNECTING || c->state == RS_HANDSHAKE) return;
    int rc = redis_start(c, uv_hrtime());
    if (rc < 0) redis_connect_report(c, rc, c->errmsg);
}

/* ---- requests --------------------------------------------------------- */

int redis_client_command_ok(const char *name, size_t len) {
    static const char *const multi[] = {"subscribe", "psubscribe", "ssubscribe", "unsubscribe",
                                        "punsubscribe", "sunsubscribe", "monitor"};
    for (size_t i = 0; i < sizeof multi / sizeof multi[0]; i++)
        if (strlen(multi[i]) == len && strncasecmp(name, multi[i], len) == 0) return 0;
    return 1;
}

static void redis_req_fail(redis_req *req, int status, const char *why) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", why ? why : redis_client_strerror(status));
    req->on_done(req, status, NULL, msg);
}

static void redis_enqueue(redis_client *c, redis_req *req) {
    if (c->tail) c->tail->next = req;
    else c->head = req;
    c->tail = req;
    c->npending++;
    if (req->cmd && c->unsent == NULL) c->unsent = req;
}

void redis_client_send(redis_client *c, redis_req *req, int argc, const char **argv,
                       const size_t *argvlen) {
    req->next = NULL;
    req->cmd = NULL;
    req->deadline_ns = 0;
    if (c->closing || argc < 1) {
        redis_req_fail(req, c->closing ? UV_ECANCELED : UV_EINVAL, NULL);
        return;
    }
    if (!redis_client_command_ok(argv[0], argvlen[0])) {
        redis_req_fail(req, UV_EINVAL, "pub/sub and MONITOR are not supported");
        return;
    }
    uint64_t now = req->start_ns ? req->start_ns : uv_hrtime();
    int rc = redis_ready(c, now);
    if (rc < 0) {
        redis_req_fail(req, rc, c->errmsg);
        return;
    }
    if (c->state == RS_READY) {
        if (redisAsyncCommandArgv(c->ac, redis_on_reply, c, argc, argv, argvlen) != REDIS_OK) {
            redis_req_fail(req, REDIS_CLIENT_EIO, "hiredis refused the command");
            return;
        }
    } else {
        int n = redisFormatCommandArgv(&req->cmd, argc, argv, argvlen);
        if (n < 0) {
            redis_req_fail(req, UV_ENOMEM, NULL);
            return;
        }
        req->cmd_len = (size_t)n;
    }
    req->deadline_ns = c->opts.timeout_ns ? now + c->opts.timeout_ns : 0;
    redis_enqueue(c, req);
    redis_arm(c, req->deadline_ns);
}

/* ---- close ------------------------------------------------------------ */

static void redis_on_timer_close(uv_handle_t *h) {
    redis_client *c = h->data;
    redis_reap(c);
    redis_free(c);
}

void redis_client_close(redis_client *c) {
    if (c == NULL || c->closing) return;
    c->closing = 1;
    redis_drop(c, UV_ECANCELED, "cancelled", 0);
    uv_close((uv_handle_t *)&c->timer, redis_on_timer_close);
}
