/* test_redis_client.c - integration tests for src/client/redis_client.c
 * against real redis-server processes started on free loopback ports
 * (redis_server.h): every reply type, binary and large values, pipelining
 * checked against the server's INFO commandstats, AUTH, SELECT, refused /
 * down / reconnect, a killed and a stopped server, close with pending
 * requests (also from inside callbacks), unix sockets.  The loop is driven
 * with uv_run until a counter is reached, under a guard timer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "client/redis_client.h"
#include "redis_server.h"

#define NRECS 2100
#define MS 1000000ull

typedef struct fx fx;
typedef struct rec rec;

struct rec {
    redis_req req;
    fx *f;
    redis_client *c;
    int ndone, status, order;
    int sync;                    /* completed inside redis_client_send */
    int in_send;
    char shape[512];             /* reply as text: +OK $bulk :1 _ -ERR [a,b] */
    char *str;                   /* a top-level bulk/status, binary-safe */
    size_t len;
    char msg[256];
    uint64_t t_done;
    void (*then)(rec *);
};

struct fx {
    test_server own;             /* per-test server, stopped in teardown */
    uv_loop_t loop;
    uv_timer_t guard;
    int guard_fired;
    redis_client *c[4];          /* closed in teardown unless already closed */
    int closed[4];
    rec *recs;
    int nrecs, seq, ndone;
    int conn_status, conn_calls;
    char conn_msg[256];
    int close_on_connect;
    char sock_path[128];
};

static test_server shared;       /* one server for the tests that need no special one */

/* ---- replies as text -------------------------------------------------- */

static void shape_add(char *buf, size_t cap, const char *fmt, ...) {
    size_t n = strlen(buf);
    if (n + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

static void shape_of(const redisReply *r, char *buf, size_t cap) {
    switch (r->type) {
    case REDIS_REPLY_STATUS: shape_add(buf, cap, "+%.*s", (int)r->len, r->str); break;
    case REDIS_REPLY_STRING: shape_add(buf, cap, "$%.*s", (int)r->len, r->str); break;
    case REDIS_REPLY_INTEGER: shape_add(buf, cap, ":%lld", r->integer); break;
    case REDIS_REPLY_NIL: shape_add(buf, cap, "_"); break;
    case REDIS_REPLY_ERROR: shape_add(buf, cap, "-%.*s", (int)r->len, r->str); break;
    case REDIS_REPLY_ARRAY:
        shape_add(buf, cap, "[");
        for (size_t i = 0; i < r->elements; i++) {
            if (i) shape_add(buf, cap, ",");
            shape_of(r->element[i], buf, cap);
        }
        shape_add(buf, cap, "]");
        break;
    default: shape_add(buf, cap, "?");
    }
}

/* ---- records and callbacks -------------------------------------------- */

static void rec_on_done(redis_req *req, int status, const redisReply *reply, const char *msg) {
    rec *r = req->data;
    r->ndone++;
    r->status = status;
    r->order = r->f->seq++;
    r->f->ndone++;
    r->sync = r->in_send;
    r->t_done = uv_hrtime();
    r->shape[0] = 0;
    if (status == 0) {
        assert_non_null(reply);
        shape_of(reply, r->shape, sizeof r->shape);
        if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS) {
            free(r->str);
            r->str = malloc(reply->len + 1);
            memcpy(r->str, reply->str, reply->len);
            r->len = reply->len;
        }
    } else {
        assert_null(reply);
        assert_non_null(msg);
        snprintf(r->msg, sizeof r->msg, "%s", msg);
    }
    if (r->then) r->then(r);
}

static rec *new_rec(fx *f) {
    assert_true(f->nrecs < NRECS);
    rec *r = &f->recs[f->nrecs++];
    memset(r, 0, sizeof *r);
    r->f = f;
    r->req.on_done = rec_on_done;
    r->req.data = r;
    return r;
}

static rec *send_argv(fx *f, redis_client *c, int argc, const char **argv, const size_t *lens) {
    rec *r = new_rec(f);
    r->c = c;
    r->in_send = 1;
    redis_client_send(c, &r->req, argc, argv, lens);
    r->in_send = 0;
    return r;
}

/* sendv(f, c, "SET", "k", "v", NULL): text arguments */
static rec *sendv(fx *f, redis_client *c, ...) {
    const char *argv[16];
    size_t lens[16];
    int argc = 0;
    va_list ap;
    va_start(ap, c);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL && argc < 16; argc++) {
        argv[argc] = a;
        lens[argc] = strlen(a);
    }
    va_end(ap);
    return send_argv(f, c, argc, argv, lens);
}

/* ---- driving the loop ------------------------------------------------- */

static void on_guard(uv_timer_t *t) {
    fx *f = t->data;
    f->guard_fired = 1;
}

static void run_until_count(fx *f, int target, int ms) {
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, (uint64_t)ms, 0);
    while (f->ndone < target && !f->guard_fired) uv_run(&f->loop, UV_RUN_ONCE);
    uv_timer_stop(&f->guard);
}

/* Run the loop for ms from now: the loop's cached time may be stale after a
 * blocking call (starting a server), which would end the wait early. */
static void run_for(fx *f, int ms) {
    uv_update_time(&f->loop);
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, (uint64_t)ms, 0);
    while (!f->guard_fired) uv_run(&f->loop, UV_RUN_ONCE);
}

static void wait_rec(fx *f, rec *r) {
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, 5000, 0);
    while (r->ndone == 0 && !f->guard_fired) uv_run(&f->loop, UV_RUN_ONCE);
    uv_timer_stop(&f->guard);
    assert_int_equal(r->ndone, 1);
}

static void expect_shape(fx *f, rec *r, const char *want) {
    wait_rec(f, r);
    if (r->status != 0) fprintf(stderr, "status %d (%s)\n", r->status, r->msg);
    assert_int_equal(r->status, 0);
    if (strcmp(r->shape, want) != 0) fprintf(stderr, "got %s, want %s\n", r->shape, want);
    assert_string_equal(r->shape, want);
}

static void expect_fail(fx *f, rec *r, int status) {
    wait_rec(f, r);
    if (r->status != status)
        fprintf(stderr, "got status %d (%s), want %d (%s)\n", r->status, r->msg, status,
                redis_client_strerror(status));
    assert_int_equal(r->status, status);
}

/* Every record completed exactly once (none twice, none never). */
static void all_once(fx *f) {
    for (int i = 0; i < f->nrecs; i++) {
        if (f->recs[i].ndone != 1) fprintf(stderr, "record %d completed %d times\n", i, f->recs[i].ndone);
        assert_int_equal(f->recs[i].ndone, 1);
    }
}

/* ---- clients ---------------------------------------------------------- */

static void on_connect(void *data, int status, const char *msg) {
    fx *f = data;
    f->conn_calls++;
    f->conn_status = status;
    snprintf(f->conn_msg, sizeof f->conn_msg, "%s", msg ? msg : "");
    if (f->close_on_connect) {
        for (int i = 0; i < 4; i++)
            if (f->c[i] && !f->closed[i]) {
                f->closed[i] = 1;
                redis_client_close(f->c[i]);
            }
    }
}

static redis_client *client_opts(fx *f, const char *addr, const redis_client_opts *o) {
    char err[256];
    int slot = 0;
    while (slot < 4 && f->c[slot]) slot++;
    assert_true(slot < 4);
    assert_int_equal(redis_client_new(&f->loop, addr, o, &f->c[slot], err, sizeof err), 0);
    return f->c[slot];
}

static redis_client *client_port(fx *f, int port, const redis_client_opts *o) {
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    return client_opts(f, addr, o);
}

static void close_client(fx *f, redis_client *c) {
    for (int i = 0; i < 4; i++)
        if (f->c[i] == c && !f->closed[i]) {
            f->closed[i] = 1;
            redis_client_close(c);
        }
}

/* Connect and wait for the callback; returns its status. */
static int connect_wait(fx *f, redis_client *c) {
    int calls = f->conn_calls;
    redis_client_connect(c, on_connect, f);
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, 5000, 0);
    while (f->conn_calls == calls && !f->guard_fired) uv_run(&f->loop, UV_RUN_ONCE);
    uv_timer_stop(&f->guard);
    assert_int_equal(f->conn_calls, calls + 1);
    return f->conn_status;
}

static void start_own(fx *f, const char *const *extra) {
    assert_int_equal(test_redis_start(&f->own, extra), 0);
}

/* ---- fixtures --------------------------------------------------------- */

static int group_setup(void **state) {
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    return test_redis_start(&shared, NULL);
}

static int group_teardown(void **state) {
    (void)state;
    test_server_stop(&shared);
    return 0;
}

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->recs = calloc(NRECS, sizeof *f->recs);
    uv_loop_init(&f->loop);
    test_io_use(&f->loop);
    uv_timer_init(&f->loop, &f->guard);
    f->guard.data = f;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    for (int i = 0; i < 4; i++)
        if (f->c[i] && !f->closed[i]) redis_client_close(f->c[i]);
    uv_close((uv_handle_t *)&f->guard, NULL);
    int rc = UV_EBUSY;
    for (int i = 0; i < 500 && rc == UV_EBUSY; i++) {   /* bounded: a leaked handle fails */
        uv_run(&f->loop, UV_RUN_NOWAIT);
        rc = uv_loop_close(&f->loop);
        if (rc == UV_EBUSY) usleep(2000);
    }
    test_server_stop(&f->own);
    if (f->sock_path[0]) unlink(f->sock_path);
    for (int i = 0; i < f->nrecs; i++) free(f->recs[i].str);
    free(f->recs);
    free(f);
    assert_int_equal(rc, 0);    /* every handle (ours and hiredis's) was closed */
    return 0;
}

/* ---- tests ------------------------------------------------------------ */

static void test_reply_types(void **state) {
    fx *f = *state;
    redis_client *c = client_port(f, shared.port, NULL);
    assert_int_equal(connect_wait(f, c), 0);
    expect_shape(f, sendv(f, c, "DEL", "rt:k", "rt:n", "rt:l", NULL), ":0");
    expect_shape(f, sendv(f, c, "SET", "rt:k", "hello", NULL), "+OK");
    expect_shape(f, sendv(f, c, "PING", NULL), "+PONG");
    expect_shape(f, sendv(f, c, "GET", "rt:k", NULL), "$hello");
    expect_shape(f, sendv(f, c, "GET", "rt:missing", NULL), "_");
    expect_shape(f, sendv(f, c, "INCR", "rt:n", NULL), ":1");
    expect_shape(f, sendv(f, c, "INCRBY", "rt:n", "-5", NULL), ":-4");
    expect_shape(f, sendv(f, c, "RPUSH", "rt:l", "a", "b", "c", NULL), ":3");
    expect_shape(f, sendv(f, c, "LRANGE", "rt:l", "0", "-1", NULL), "[$a,$b,$c]");
    expect_shape(f, sendv(f, c, "LRANGE", "rt:none", "0", "-1", NULL), "[]");
    expect_shape(f, sendv(f, c, "MGET", "rt:k", "rt:missing", NULL), "[$hello,_]");
    expect_shape(f, sendv(f, c, "EVAL", "return {1,{2,'x',{}},'y'}", "0", NULL), "[:1,[:2,$x,[]],$y]");
    rec *e = sendv(f, c, "INCR", "rt:k", NULL);
    expect_shape(f, e, "-ERR value is not an integer or out of range");
    rec *u = sendv(f, c, "NOSUCHCOMMAND", "x", NULL);
    wait_rec(f, u);
    assert_int_equal(u->status, 0);
    assert_non_null(strstr(u->shape, "-ERR unknown command"));
    /* pub/sub and MONITOR would get several replies: refused at once */
    rec *sub = sendv(f, c, "subscribe", "ch", NULL);
    assert_true(sub->sync);
    assert_int_equal(sub->status, UV_EINVAL);
    assert_true(sendv(f, c, "MONITOR", NULL)->sync);
    /* the connection survives error replies */
    expect_shape(f, sendv(f, c, "GET", "rt:k", NULL), "$hello");
    assert_int_equal(redis_client_pending(c), 0);
    all_once(f);
}

static void test_binary_and_large(void **state) {
    fx *f = *state;
    redis_client *c = client_port(f, shared.port, NULL);
    static const char key[] = "bin\0key\r\n";
    static const char val[] = "a\0b\r\nc\r\n$3\r\nEND\r\n\0";
    const char *set[3] = {"SET", key, val};
    size_t setl[3] = {3, sizeof key - 1, sizeof val - 1};
    expect_shape(f, send_argv(f, c, 3, set, setl), "+OK");
    const char *get[2] = {"GET", key};
    size_t getl[2] = {3, sizeof key - 1};
    rec *g = send_argv(f, c, 2, get, getl);
    wait_rec(f, g);
    assert_int_equal(g->status, 0);
    assert_int_equal(g->len, sizeof val - 1);
    assert_memory_equal(g->str, val, sizeof val - 1);

    size_t big = 1 << 24;     /* beyond loopback's socket buffers: partial writes */
    char *v = malloc(big);
    for (size_t i = 0; i < big; i++) v[i] = (char)(i * 131 + (i >> 9));
    const char *bset[3] = {"SET", "big", v};
    size_t bsetl[3] = {3, 3, big};
    expect_shape(f, send_argv(f, c, 3, bset, bsetl), "+OK");
    memset(v, 0, 16);                        /* copied at send: changing it now is harmless */
    rec *bg = sendv(f, c, "GET", "big", NULL);
    wait_rec(f, bg);
    assert_int_equal(bg->status, 0);
    assert_int_equal(bg->len, big);
    for (size_t i = 0; i < 16; i++) v[i] = (char)(i * 131 + (i >> 9));
    assert_memory_equal(bg->str, v, big);
    free(v);
    all_once(f);
}

/* A reply to a request whose send is still in flight, while a newer request
 * waits in the write queue, is that request's reply, not an unsolicited one
 * (before the fix the client called it "a reply nobody asked for" and
 * reconnected whenever the queue was not empty). */
static void test_reply_while_sending(void **state) {
    fx *f = *state;
    redis_client *c = client_port(f, shared.port, NULL);
    assert_int_equal(connect_wait(f, c), 0);
    size_t big = 1 << 24;       /* two of them: far beyond loopback's socket buffers */
    char *v = malloc(big);
    assert_non_null(v);
    memset(v, 'x', big);
    const char *set1[3] = {"SET", "inflight1", v}, *set2[3] = {"SET", "inflight2", v};
    size_t setl[3] = {3, 9, big};
    rec *a = send_argv(f, c, 3, set1, setl);
    rec *b = send_argv(f, c, 3, set2, setl);
    free(v);                    /* copied at send */
    uv_run(&f->loop, UV_RUN_ONCE);  /* flushed: a write in flight (epoll: a partial write and a
                                       uv_write; io_uring may send it all at once, a weaker case) */
    rec *d = sendv(f, c, "INCR", "inflight-ctr", NULL);    /* queued behind the write in flight */
    expect_shape(f, a, "+OK");
    expect_shape(f, b, "+OK");
    expect_shape(f, d, ":1");
    all_once(f);
}

static void check_incr_order(fx *f, int from, int n, int first_value) {
    for (int i = 0; i < n; i++) {
        rec *r = &f->recs[from + i];
        char want[32];
        snprintf(want, sizeof want, ":%d", first_value + i);
        assert_int_equal(r->status, 0);
        assert_string_equal(r->shape, want);
        if (i > 0) assert_true(r->order > f->recs[from + i - 1].order);
    }
}

static void test_pipeline_1000(void **state) {
    fx *f = *state;
    int64_t before = test_redis_cmdstat(shared.port, NULL, "incr");
    assert_true(before >= 0);
    redis_client *c = client_port(f, shared.port, NULL);
    sendv(f, c, "DEL", "pipe:ctr", NULL);
    int first = f->nrecs;
    for (int i = 0; i < 500; i++) sendv(f, c, "INCR", "pipe:ctr", NULL);   /* queued while connecting */
    run_until_count(f, f->nrecs, 5000);
    assert_int_equal(f->ndone, f->nrecs);
    check_incr_order(f, first, 500, 1);
    first = f->nrecs;
    for (int i = 0; i < 1000; i++) sendv(f, c, "INCR", "pipe:ctr", NULL);  /* on a ready connection */
    assert_int_equal(redis_client_pending(c), 1000);
    run_until_count(f, f->nrecs, 5000);
    check_incr_order(f, first, 1000, 501);
    run_for(f, 100);                         /* nothing more arrives */
    all_once(f);
    assert_int_equal(f->ndone, 1501);
    assert_int_equal(test_redis_cmdstat(shared.port, NULL, "incr") - before, 1500);
}

static void test_auth(void **state) {
    fx *f = *state;
    const char *extra[] = {"--requirepass", "s3cret", NULL};
    start_own(f, extra);
    redis_client_opts o;
    redis_client_opts_default(&o);
    o.password = "s3cret";
    o.db = 2;
    redis_client *good = client_port(f, f->own.port, &o);
    assert_int_equal(connect_wait(f, good), 0);
    expect_shape(f, sendv(f, good, "SET", "authkey", "in db 2", NULL), "+OK");
    expect_shape(f, sendv(f, good, "GET", "authkey", NULL), "$in db 2");

    o.db = 0;                                /* password only: db 0 has no such key */
    redis_client *db0 = client_port(f, f->own.port, &o);
    expect_shape(f, sendv(f, db0, "GET", "authkey", NULL), "_");

    o.password = "wrong";
    redis_client *bad = client_port(f, f->own.port, &o);
    rec *r = sendv(f, bad, "GET", "authkey", NULL);  /* held until AUTH succeeds: it never does */
    expect_fail(f, r, REDIS_CLIENT_ESETUP);
    assert_non_null(strstr(r->msg, "AUTH refused"));
    run_for(f, 150);                          /* the backoff elapses */
    assert_int_equal(connect_wait(f, bad), REDIS_CLIENT_ESETUP);
    assert_non_null(strstr(f->conn_msg, "AUTH"));

    redis_client *none = client_port(f, f->own.port, NULL);
    rec *n = sendv(f, none, "GET", "authkey", NULL);
    wait_rec(f, n);
    assert_int_equal(n->status, 0);
    assert_true(strncmp(n->shape, "-NOAUTH", 7) == 0);
    all_once(f);
    assert_int_equal(test_redis_cmdstat(f->own.port, "s3cret", "get"), 2); /* the NOAUTH one never ran */
}

static void test_select_db(void **state) {
    fx *f = *state;
    redis_client_opts o;
    redis_client_opts_default(&o);
    o.db = 3;
    redis_client *d3 = client_port(f, shared.port, &o);
    redis_client *d0 = client_port(f, shared.port, NULL);
    expect_shape(f, sendv(f, d3, "SET", "dbkey", "three", NULL), "+OK");
    expect_shape(f, sendv(f, d0, "GET", "dbkey", NULL), "_");
    expect_shape(f, sendv(f, d3, "GET", "dbkey", NULL), "$three");
    o.db = 999;                              /* redis has 16 databases by default */
    redis_client *bad = client_port(f, shared.port, &o);
    rec *r = sendv(f, bad, "SET", "dbkey", "never", NULL);
    expect_fail(f, r, REDIS_CLIENT_ESETUP);
    assert_non_null(strstr(r->msg, "SELECT refused"));
    expect_shape(f, sendv(f, d0, "GET", "dbkey", NULL), "_");   /* nothing ran on db 0 */
    all_once(f);
}

static void test_refused_down_reconnect(void **state) {
    fx *f = *state;
    int port = test_free_port();
    redis_client_opts o;
    redis_client_opts_default(&o);
    /* backoffs of 1 s and then 2 s: each check lands 100 ms past the backoff
     * it must outlast and 900 ms before the one it must not, a margin a busy
     * machine's stalls do not eat (with 300/600 ms, a 250 ms stall sent
     * d2 after the backoff: a retry, refused, and the backoff doubled again) */
    o.backoff_min_ns = 1000 * MS;
    o.backoff_max_ns = 4000 * MS;
    redis_client *c = client_port(f, port, &o);
    rec *r = sendv(f, c, "PING", NULL);
    expect_fail(f, r, UV_ECONNREFUSED);
    assert_non_null(strstr(r->msg, "refused"));
    rec *d = sendv(f, c, "PING", NULL);       /* down: fails before send returns */
    assert_int_equal(d->ndone, 1);
    assert_true(d->sync);
    assert_int_equal(d->status, REDIS_CLIENT_EDOWN);
    assert_non_null(strstr(d->msg, "after: connection refused"));   /* and why it is down */
    run_for(f, 1100);
    expect_fail(f, sendv(f, c, "PING", NULL), UV_ECONNREFUSED);  /* retried: refused again */
    uint64_t t_fail = uv_hrtime();            /* the backoff doubled to 2 s */
    run_for(f, 1100);
    rec *d2 = sendv(f, c, "PING", NULL);
    assert_true(d2->sync);
    assert_int_equal(d2->status, REDIS_CLIENT_EDOWN);
    assert_int_equal(test_redis_start_port(&f->own, port, NULL), 0);
    if (uv_hrtime() - t_fail < 1800 * MS) {   /* the server is back, the backoff is not over */
        rec *d3 = sendv(f, c, "PING", NULL);
        assert_int_equal(d3->status, REDIS_CLIENT_EDOWN);
    }
    uint64_t since = uv_hrtime() - t_fail;
    if (since < 2100 * MS) run_for(f, (int)((2100 * MS - since) / MS));
    expect_shape(f, sendv(f, c, "PING", NULL), "+PONG");
    all_once(f);
}

static void test_server_killed(void **state) {
    fx *f = *state;
    start_own(f, NULL);
    int port = f->own.port;
    redis_client *c = client_port(f, port, NULL);
    expect_shape(f, sendv(f, c, "SET", "k", "v", NULL), "+OK");
    int first = f->nrecs;
    for (int i = 0; i < 3; i++) sendv(f, c, "BLPOP", "nolist", "10", NULL);
    run_for(f, 50);                           /* sent and blocked in the server */
    assert_int_equal(redis_client_pending(c), 3);
    kill(f->own.pid, SIGKILL);
    waitpid(f->own.pid, NULL, 0);
    f->own.pid = 0;
    run_until_count(f, f->nrecs, 3000);
    for (int i = first; i < first + 3; i++) {
        assert_int_equal(f->recs[i].ndone, 1);
        assert_true(f->recs[i].status < 0);
        assert_true(f->recs[i].status != REDIS_CLIENT_EDOWN);
    }
    rec *d = sendv(f, c, "PING", NULL);
    assert_int_equal(d->status, REDIS_CLIENT_EDOWN);
    assert_int_equal(test_redis_start_port(&f->own, port, NULL), 0);
    run_for(f, 150);                          /* first backoff: 100 ms */
    expect_shape(f, sendv(f, c, "GET", "k", NULL), "_");   /* a new, empty server */
    run_for(f, 50);
    all_once(f);
}

static void test_sigstop_timeout(void **state) {
    fx *f = *state;
    start_own(f, NULL);
    redis_client_opts o;
    redis_client_opts_default(&o);
    o.timeout_ns = 300 * MS;
    redis_client *c = client_port(f, f->own.port, &o);
    expect_shape(f, sendv(f, c, "PING", NULL), "+PONG");
    int st = 0;
    kill(f->own.pid, SIGSTOP);
    assert_int_equal(waitpid(f->own.pid, &st, WUNTRACED), f->own.pid);
    assert_true(WIFSTOPPED(st));
    uint64_t t0 = uv_hrtime();
    int first = f->nrecs;
    for (int i = 0; i < 3; i++) sendv(f, c, "SET", "frozen", "x", NULL);
    run_until_count(f, f->nrecs, 5000);
    for (int i = first; i < first + 3; i++) {
        assert_int_equal(f->recs[i].status, UV_ETIMEDOUT);
        uint64_t took = f->recs[i].t_done - t0;
        assert_true(took >= 290 * MS && took < 3000 * MS);   /* 10x the timeout: a busy machine's stalls */
    }
    assert_int_equal(sendv(f, c, "PING", NULL)->status, REDIS_CLIENT_EDOWN);
    /* connect timeout: TCP connects (the kernel accepts), SELECT never answers */
    o.db = 1;
    o.connect_timeout_ns = 200 * MS;
    redis_client *c2 = client_port(f, f->own.port, &o);
    t0 = uv_hrtime();
    assert_int_equal(connect_wait(f, c2), UV_ETIMEDOUT);
    assert_true(uv_hrtime() - t0 >= 190 * MS);
    kill(f->own.pid, SIGCONT);
    run_for(f, 150);
    expect_shape(f, sendv(f, c, "PING", NULL), "+PONG");
    run_for(f, 100);                          /* late replies of the dropped connection: none */
    all_once(f);
}

static void close_in_callback(rec *r) { close_client(r->f, r->c); }

/* The first callback holds the loop for 2 ms of the clock. */
static void then_hold_2ms(rec *r) {
    (void)r;
    uint64_t until = uv_hrtime() + 2 * MS;
    while (uv_hrtime() < until) {
    }
}

static void test_replies_of_one_read(void **state) {
    fx *f = *state;
    /* three commands leave in one write and redis answers them in one: the
     * replies come in one read and complete at the same instant, the
     * read's, however long the callbacks before them take (one clock read
     * per read, not per reply); a request failed without a reply has none */
    redis_client *c = client_port(f, shared.port, NULL);
    assert_int_equal(connect_wait(f, c), 0);
    rec *r[3];
    for (int i = 0; i < 3; i++) r[i] = sendv(f, c, "PING", NULL);
    r[0]->then = then_hold_2ms;
    for (int i = 0; i < 3; i++) expect_shape(f, r[i], "+PONG");
    assert_true(r[0]->req.base.done_ns > 0);
    assert_true(r[0]->req.base.done_ns <= r[0]->t_done);
    assert_true(r[1]->req.base.done_ns == r[0]->req.base.done_ns);
    assert_true(r[2]->req.base.done_ns == r[0]->req.base.done_ns);
    assert_true(r[2]->t_done >= r[2]->req.base.done_ns + 2 * MS);   /* not the callback's clock */
    rec *cancelled = sendv(f, c, "PING", NULL);
    close_client(f, c);
    assert_int_equal(cancelled->status, UV_ECANCELED);
    assert_true(cancelled->req.base.done_ns == 0);
}

static void test_close_pending(void **state) {
    fx *f = *state;
    /* requests queued while connecting (formatted, not sent yet) */
    redis_client *a = client_port(f, shared.port, NULL);
    for (int i = 0; i < 10; i++) sendv(f, a, "SET", "x", "1", NULL);
    close_client(f, a);
    assert_int_equal(f->ndone, 10);           /* cancelled before close returned */
    for (int i = 0; i < 10; i++) assert_int_equal(f->recs[i].status, UV_ECANCELED);
    /* requests handed to hiredis on a ready connection */
    redis_client *b = client_port(f, shared.port, NULL);
    assert_int_equal(connect_wait(f, b), 0);
    for (int i = 0; i < 50; i++) sendv(f, b, "BLPOP", "nolist", "5", NULL);
    run_for(f, 30);
    close_client(f, b);
    assert_int_equal(f->ndone, 60);
    for (int i = 10; i < 60; i++) assert_int_equal(f->recs[i].status, UV_ECANCELED);
    /* closed from the 6th reply's callback: hiredis is mid-read */
    redis_client *c = client_port(f, shared.port, NULL);
    for (int i = 0; i < 20; i++) sendv(f, c, "PING", NULL);
    f->recs[60 + 5].then = close_in_callback;
    run_until_count(f, 80, 3000);
    for (int i = 60; i < 80; i++)
        assert_int_equal(f->recs[i].status, i <= 65 ? 0 : UV_ECANCELED);
    run_for(f, 50);
    all_once(f);
    assert_int_equal(f->ndone, 80);
}

static void test_close_from_connect_callback(void **state) {
    fx *f = *state;
    f->close_on_connect = 1;
    /* no handshake: the callback runs inside hiredis's connect callback */
    redis_client *a = client_port(f, shared.port, NULL);
    rec *r = sendv(f, a, "PING", NULL);
    assert_int_equal(connect_wait(f, a), 0);
    assert_int_equal(r->ndone, 1);
    assert_int_equal(r->status, UV_ECANCELED);
    run_for(f, 50);
    /* with SELECT: the callback runs inside a reply callback */
    redis_client_opts o;
    redis_client_opts_default(&o);
    o.db = 1;
    redis_client *b = client_port(f, shared.port, &o);
    rec *r2 = sendv(f, b, "PING", NULL);
    assert_int_equal(connect_wait(f, b), 0);
    assert_int_equal(r2->status, UV_ECANCELED);
    run_for(f, 50);
    all_once(f);
}

static void test_unix_socket(void **state) {
    fx *f = *state;
    snprintf(f->sock_path, sizeof f->sock_path, "/tmp/luamech-redis-%d.sock", (int)getpid());
    const char *extra[] = {"--unixsocket", f->sock_path, "--unixsocketperm", "700", NULL};
    start_own(f, extra);
    redis_client *c = client_opts(f, f->sock_path, NULL);
    assert_string_equal(redis_client_name(c), f->sock_path);
    assert_int_equal(connect_wait(f, c), 0);
    expect_shape(f, sendv(f, c, "SET", "unix", "yes", NULL), "+OK");
    expect_shape(f, sendv(f, c, "GET", "unix", NULL), "$yes");
    redis_client *missing = client_opts(f, "/tmp/luamech-no-such-redis.sock", NULL);
    rec *r = sendv(f, missing, "PING", NULL);
    wait_rec(f, r);
    assert_true(r->status < 0);
    all_once(f);
}

static void test_bad_address(void **state) {
    fx *f = *state;
    const char *bad[] = {"", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1:x", ":6379",
                         "a b:1", "[::1", "[::1]x"};
    char err[256];
    redis_client *c;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(redis_client_new(&f->loop, bad[i], NULL, &c, err, sizeof err), -1);
        assert_null(c);
        assert_true(err[0] != 0);
    }
    assert_int_equal(redis_client_new(&f->loop, "localhost", NULL, &c, err, sizeof err), 0);
    assert_string_equal(redis_client_name(c), "localhost:6379");
    redis_client_close(c);
    assert_int_equal(redis_client_new(&f->loop, "[::1]:7000", NULL, &c, err, sizeof err), 0);
    assert_string_equal(redis_client_name(c), "[::1]:7000");
    redis_client_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reply_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binary_and_large, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_while_sending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipeline_1000, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_select_db, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_down_reconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigstop_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replies_of_one_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_from_connect_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unix_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_address, setup, teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
