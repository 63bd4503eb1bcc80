/* test_http_client.c - integration tests for src/client/http_client.c against
 * a private nginx (http_server.h) and the in-process fake server for the
 * edge cases.  The loop runs until enough requests are done, under a guard
 * timer so a bug cannot hang the test; every request must complete exactly
 * once, and every client must free its handles (uv_loop_close succeeds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "client/http_client.h"
#include "http_server.h"
#include "servers.h"

#define NRECS 64
#define MS 1000000ull

static test_nginx nginx;
static int nginx_ok;

typedef struct fx fx;

typedef struct rec {
    http_req req;
    fx *f;
    int ndone, status, order, http_status, keep_alive;
    char *body;
    size_t body_len;
    char ctype[64];
    char xheader[64];
    char why[160];
    uint64_t t_start, t_done;
    void (*then)(struct rec *);
} rec;

struct fx {
    uv_loop_t loop;
    uv_timer_t guard;
    int guard_fired;
    http_client *c;
    http_client *closed;       /* closed from a callback (freed by the loop) */
    rec recs[NRECS];
    int nrecs, ndone, seq;
    test_fake_http fake;
    int has_fake;
    hp_method next_method;
    const char *next_path;
};

/* ---- plumbing ---- */

static void rec_done(http_req *req, int status, const hp_parser *res) {
    rec *r = req->data;
    r->ndone++;
    r->status = status;
    r->order = r->f->seq++;
    r->f->ndone++;
    r->t_done = uv_hrtime();
    http_client_describe(req, status, r->why, sizeof r->why);
    assert_true((status == 0) == (res != NULL));
    if (res) {
        r->http_status = res->status;
        r->keep_alive = res->keep_alive;
        free(r->body);
        r->body = malloc(res->body_len + 1);
        memcpy(r->body, res->body ? res->body : "", res->body_len);
        r->body[res->body_len] = 0;
        r->body_len = res->body_len;
        size_t vl;
        const char *v = hp_parser_find(res, "content-type", &vl);
        if (v) snprintf(r->ctype, sizeof r->ctype, "%.*s", (int)vl, v);
        v = hp_parser_find(res, "x-luamech", &vl);
        if (!v) v = hp_parser_find(res, "x-fake", &vl);
        if (v) snprintf(r->xheader, sizeof r->xheader, "%.*s", (int)vl, v);
    }
    if (r->then) r->then(r);
}

static rec *new_rec(fx *f) {
    assert_true(f->nrecs < NRECS);
    rec *r = &f->recs[f->nrecs++];
    memset(r, 0, sizeof *r);
    r->f = f;
    r->req.on_done = rec_done;
    r->req.data = r;
    return r;
}

static rec *send_req(fx *f, hp_method m, const char *path, const hp_header *h, size_t nh,
                     const char *body, size_t body_len) {
    rec *r = new_rec(f);
    hp_request q;
    memset(&q, 0, sizeof q);
    q.method = m;
    q.path = path;
    q.path_len = strlen(path);
    q.headers = h;
    q.nheaders = nh;
    q.body = body;
    q.body_len = body_len;
    r->t_start = uv_hrtime();
    http_client_send(f->c, &r->req, &q);
    return r;
}

static rec *get(fx *f, const char *path) { return send_req(f, HP_GET, path, NULL, 0, NULL, 0); }

static void on_guard(uv_timer_t *t) {
    fx *f = t->data;
    f->guard_fired = 1;
}

/* Run the loop until `target` requests are done or ms elapse. */
static void run_until(fx *f, int target, int ms) {
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, (uint64_t)ms, 0);
    while (f->ndone < target && !f->guard_fired) uv_run(&f->loop, UV_RUN_ONCE);
    uv_timer_stop(&f->guard);
    if (f->ndone < target) fprintf(stderr, "only %d of %d requests done\n", f->ndone, target);
    assert_true(f->ndone >= target);
}

/* Run the loop for ms (let the server's FIN, late callbacks, ... arrive). */
static void run_for(fx *f, int ms) {
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, (uint64_t)ms, 0);
    while (!f->guard_fired) uv_run(&f->loop, UV_RUN_ONCE);
}

static void new_client(fx *f, int port, int keepalive, uint64_t timeout_ns) {
    http_client_opts o;
    http_client_opts_default(&o);
    o.keepalive = keepalive;
    o.timeout_ns = timeout_ns;
    char err[256] = "";
    char authority[64];
    snprintf(authority, sizeof authority, "127.0.0.1:%d", port);
    int rc = http_client_new(&f->loop, "127.0.0.1", port, authority, &o, &f->c, err, sizeof err);
    if (rc != 0) fprintf(stderr, "http_client_new: %s\n", err);
    assert_int_equal(rc, 0);
}

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    uv_loop_init(&f->loop);
    test_io_use(&f->loop);
    uv_timer_init(&f->loop, &f->guard);
    f->guard.data = f;
    *state = f;
    return 0;
}

static int setup_nginx(void **state) {
    if (!nginx_ok) {
        fprintf(stderr, "nginx did not start\n");
        return -1;
    }
    return setup(state);
}

static int teardown(void **state) {
    fx *f = *state;
    if (f->c) http_client_close(f->c);
    f->c = NULL;
    uv_close((uv_handle_t *)&f->guard, NULL);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    int rc = uv_loop_close(&f->loop);   /* every handle of the client is closed */
    if (f->has_fake) test_fake_http_stop(&f->fake);
    for (int i = 0; i < f->nrecs; i++) {
        if (f->recs[i].ndone != 1) fprintf(stderr, "request %d completed %d times\n", i, f->recs[i].ndone);
        assert_int_equal(f->recs[i].ndone, 1);   /* exactly once */
        free(f->recs[i].body);
    }
    free(f);
    assert_int_equal(rc, 0);
    return 0;
}

static void start_fake(fx *f, fake_mode mode) {
    assert_int_equal(test_fake_http_start(&f->fake, mode), 0);
    f->has_fake = 1;
}

static int log_requests(const char *substr, int expect, int *conns) {
    int req = 0;
    assert_int_equal(test_nginx_wait_log(&nginx, substr, expect, 2000, &req, conns), 0);
    return req;
}

/* ---- against nginx ---- */

static void test_static_and_return(void **state) {
    fx *f = *state;
    new_client(f, nginx.port, 1, 5000 * MS);
    rec *a = get(f, "/small.txt");
    run_until(f, 1, 5000);
    rec *b = get(f, "/hello");
    run_until(f, 2, 5000);
    rec *c = get(f, "/missing");
    run_until(f, 3, 5000);
    assert_int_equal(a->status, 0);
    assert_int_equal(a->http_status, 200);
    assert_string_equal(a->body, TEST_NGINX_SMALL);
    assert_string_equal(a->ctype, "text/plain");
    assert_true(a->keep_alive);
    assert_int_equal(b->http_status, 200);
    assert_string_equal(b->body, "hello");
    assert_string_equal(b->xheader, "yes");
    assert_int_equal(c->status, 0);                   /* a 404 is a response, not a failure */
    assert_int_equal(c->http_status, 404);
    assert_true(c->body_len > 0);                     /* nginx's error page */
    /* bytes: exactly the encoded request; at least the body received */
    hp_request q = {.method = HP_GET, .path = "/small.txt", .path_len = 10};
    char authority[64];
    snprintf(authority, sizeof authority, "127.0.0.1:%d", nginx.port);
    q.host = authority;
    q.host_len = strlen(authority);
    assert_int_equal(a->req.bytes_sent, hp_encode_request(NULL, 0, &q));
    assert_true(a->req.bytes_received > strlen(TEST_NGINX_SMALL) + 50);
    /* one connection for the three */
    assert_int_equal(a->req.connects, 1);
    assert_int_equal(b->req.connects, 0);
    assert_int_equal(c->req.connects, 0);
    http_client_stats st;
    http_client_get_stats(f->c, &st);
    assert_int_equal(st.connects, 1);
    assert_int_equal(st.retries, 0);
    assert_int_equal(st.conns, 1);
}

static void test_large_and_head(void **state) {
    fx *f = *state;
    new_client(f, nginx.port, 1, 10000 * MS);
    rec *a = get(f, "/large.bin");
    run_until(f, 1, 10000);
    assert_int_equal(a->status, 0);
    assert_int_equal(a->http_status, 200);
    assert_int_equal(a->body_len, TEST_NGINX_LARGE_SIZE);
    size_t bad = 0;
    for (size_t i = 0; i < a->body_len; i++) bad += (unsigned char)a->body[i] != test_large_byte(i);
    assert_int_equal(bad, 0);
    assert_true(a->req.bytes_received > TEST_NGINX_LARGE_SIZE);
    rec *h = send_req(f, HP_HEAD, "/large.bin", NULL, 0, NULL, 0);
    run_until(f, 2, 5000);
    assert_int_equal(h->status, 0);
    assert_int_equal(h->http_status, 200);
    assert_int_equal(h->body_len, 0);
    assert_true(h->keep_alive);
    assert_true(h->req.bytes_received < 1000);
    /* the connection is still good after a HEAD */
    rec *b = get(f, "/hello");
    run_until(f, 3, 5000);
    assert_string_equal(b->body, "hello");
    assert_int_equal(b->req.connects, 0);
}

static void test_methods_and_bodies(void **state) {
    fx *f = *state;
    if (!nginx.has_echo) {
        fprintf(stderr, "nginx echo module missing: skipped\n");
        skip();
    }
    new_client(f, nginx.port, 1, 5000 * MS);
    hp_header h = {"X-Test", 6, "t-1", 3};
    rec *p = send_req(f, HP_POST, "/echo", &h, 1, "a=1&b=2", 7);
    run_until(f, 1, 5000);
    rec *u = send_req(f, HP_PUT, "/echo", NULL, 0, "", 0);
    run_until(f, 2, 5000);
    rec *d = send_req(f, HP_DELETE, "/echo", &h, 1, NULL, 0);
    run_until(f, 3, 5000);
    static char big[300000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    rec *g = send_req(f, HP_POST, "/echo", NULL, 0, big, sizeof big);
    run_until(f, 4, 10000);
    assert_string_equal(p->body, "POST t-1|a=1&b=2");
    assert_string_equal(u->body, "PUT |");
    assert_string_equal(d->body, "DELETE t-1|");
    assert_int_equal(g->status, 0);
    assert_int_equal(g->body_len, 6 + sizeof big);
    assert_memory_equal(g->body + 6, big, sizeof big);
    assert_true(g->req.bytes_sent > sizeof big);
    http_client_stats st;
    http_client_get_stats(f->c, &st);
    assert_int_equal(st.connects, 1);
}

static void test_keepalive_reuse(void **state) {
    fx *f = *state;
    new_client(f, nginx.port, 1, 5000 * MS);
    for (int i = 0; i < 20; i++) {
        get(f, "/hello?ka");
        run_until(f, i + 1, 5000);
    }
    int conns = 0;
    assert_int_equal(log_requests("/hello?ka ", 20, &conns), 20);
    assert_int_equal(conns, 1);
    http_client_stats st;
    http_client_get_stats(f->c, &st);
    assert_int_equal(st.connects, 1);
    assert_int_equal(st.open, 1);
}

static void test_no_keepalive(void **state) {
    fx *f = *state;
    new_client(f, nginx.port, 0, 5000 * MS);
    for (int i = 0; i < 5; i++) {
        rec *r = get(f, "/hello?close");
        run_until(f, i + 1, 5000);
        assert_int_equal(r->status, 0);
        assert_false(r->keep_alive);                  /* nginx said Connection: close */
        assert_int_equal(r->req.connects, 1);
    }
    int conns = 0;
    assert_int_equal(log_requests("/hello?close ", 5, &conns), 5);
    assert_int_equal(conns, 5);
    http_client_stats st;
    http_client_get_stats(f->c, &st);
    assert_int_equal(st.connects, 5);
    assert_int_equal(st.conns, 1);                    /* one slot, reconnected each time */
}

static void test_concurrent_pool(void **state) {
    fx *f = *state;
    new_client(f, nginx.port, 1, 5000 * MS);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 8; i++) get(f, "/small.txt?pool");
        assert_int_equal(http_client_pending(f->c), 8);
        run_until(f, 8 * (round + 1), 5000);
    }
    for (int i = 0; i < f->nrecs; i++) {
        assert_int_equal(f->recs[i].status, 0);
        assert_string_equal(f->recs[i].body, TEST_NGINX_SMALL);
    }
    int conns = 0;
    assert_int_equal(log_requests("/small.txt?pool ", 24, &conns), 24);
    assert_int_equal(conns, 8);                       /* as many as were concurrent, reused */
    http_client_stats st;
    http_client_get_stats(f->c, &st);
    assert_int_equal(st.connects, 8);
    assert_int_equal(st.conns, 8);
}

/* ---- failures ---- */

static void test_refused(void **state) {
    fx *f = *state;
    int port = test_free_port();
    new_client(f, port, 1, 5000 * MS);
    rec *r = get(f, "/");
    run_until(f, 1, 5000);
    assert_int_equal(r->status, HTTP_ECONNECT);
    assert_int_equal(r->req.sys_err, UV_ECONNREFUSED);
    assert_string_equal(r->why, "connect: connection refused");
    assert_int_equal(r->req.connects, 0);
    assert_int_equal(r->req.bytes_sent, 0);
    /* and again: each request tries afresh */
    rec *s = get(f, "/");
    run_until(f, 2, 5000);
    assert_int_equal(s->status, HTTP_ECONNECT);
}

static void test_timeout_silent(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_SILENT);
    new_client(f, f->fake.port, 1, 300 * MS);
    rec *r = get(f, "/");
    run_until(f, 1, 3000);
    assert_int_equal(r->status, HTTP_ETIMEOUT);
    assert_string_equal(r->why, "timeout");
    uint64_t took = r->t_done - r->t_start;
    assert_true(took >= 300 * MS);
    assert_true(took < 1000 * MS);
    assert_true(r->req.bytes_sent > 0);
    /* a per-request timeout overrides the client's */
    rec *s = new_rec(f);
    s->req.timeout_ns = 100 * MS;
    hp_request q = {.method = HP_GET, .path = "/", .path_len = 1};
    s->t_start = uv_hrtime();
    http_client_send(f->c, &s->req, &q);
    run_until(f, 2, 3000);
    assert_int_equal(s->status, HTTP_ETIMEOUT);
    took = s->t_done - s->t_start;
    assert_true(took >= 100 * MS);
    assert_true(took < 290 * MS);
    /* a timed-out connection is not reused */
    assert_int_equal(s->req.connects, 1);
    run_for(f, 100);
    assert_int_equal(atomic_load(&f->fake.open), 0);
}

static void test_close_cancels(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_SILENT);
    new_client(f, f->fake.port, 1, 0);
    for (int i = 0; i < 3; i++) get(f, "/");
    run_for(f, 100);
    assert_int_equal(f->ndone, 0);
    assert_int_equal(http_client_pending(f->c), 3);
    http_client_close(f->c);
    f->c = NULL;
    assert_int_equal(f->ndone, 3);                    /* before close returns */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(f->recs[i].status, HTTP_ECANCELED);
        assert_string_equal(f->recs[i].why, "cancelled");
    }
}

/* The first completion closes the client; the other request is cancelled
 * inside that close, and a request sent from its callback fails at once. */
static void close_or_resend(rec *r) {
    fx *f = r->f;
    if (f->c) {
        f->closed = f->c;
        f->c = NULL;
        http_client_close(f->closed);
        return;
    }
    rec *x = new_rec(f);
    hp_request q = {.method = HP_GET, .path = "/", .path_len = 1};
    http_client_send(f->closed, &x->req, &q);
    assert_int_equal(x->ndone, 1);
    assert_int_equal(x->status, HTTP_ECANCELED);
}

static void test_close_from_callback(void **state) {
    fx *f = *state;
    new_client(f, nginx.port, 1, 5000 * MS);
    rec *a = get(f, "/hello");
    rec *b = get(f, "/hello");                        /* on a second connection */
    a->then = b->then = close_or_resend;
    run_until(f, 3, 5000);
    assert_int_equal(f->nrecs, 3);
    assert_true(a->status == 0 || b->status == 0);
    assert_true(a->status == HTTP_ECANCELED || b->status == HTTP_ECANCELED);
}

static void test_chunked_keepalive(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_CHUNKED);
    new_client(f, f->fake.port, 1, 2000 * MS);
    for (int i = 0; i < 3; i++) {
        rec *r = get(f, "/chunked");
        run_until(f, i + 1, 3000);
        assert_int_equal(r->status, 0);
        assert_int_equal(r->http_status, 200);
        assert_string_equal(r->body, FAKE_CHUNKED_BODY);
        assert_string_equal(r->xheader, "chunked");
    }
    assert_int_equal(atomic_load(&f->fake.accepted), 1);
    assert_int_equal(atomic_load(&f->fake.requests), 3);
}

static void resend(rec *r) {
    fx *f = r->f;
    get(f, "/again");          /* at once: the server's FIN is not read yet */
}

static void test_server_closes_idle(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_CLOSE_EACH);
    new_client(f, f->fake.port, 1, 2000 * MS);
    /* 1) the next request goes out on the closed connection at once: retried */
    rec *a = get(f, "/first");
    a->then = resend;
    run_until(f, 2, 3000);
    rec *b = &f->recs[1];
    assert_int_equal(a->status, 0);
    assert_string_equal(a->body, "ok");
    assert_true(a->keep_alive);                       /* the server did not say it would close */
    assert_int_equal(b->status, 0);
    assert_string_equal(b->body, "ok");
    assert_int_equal(b->req.retried, 1);
    assert_int_equal(b->req.connects, 1);
    /* 2) after a pause the close is seen while idle: a fresh connection, no retry */
    run_for(f, 100);
    rec *c = get(f, "/third");
    run_until(f, 3, 3000);
    assert_int_equal(c->status, 0);
    assert_int_equal(c->req.retried, 0);
    assert_int_equal(c->req.connects, 1);
    http_client_stats st;
    http_client_get_stats(f->c, &st);
    assert_int_equal(st.retries, 1);
    assert_int_equal(st.connects, 3);
    assert_int_equal(atomic_load(&f->fake.requests), 3);
    assert_int_equal(atomic_load(&f->fake.accepted), 3);
}

static void test_close_without_reply(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_CLOSE_NO_REPLY);
    new_client(f, f->fake.port, 1, 2000 * MS);
    rec *r = get(f, "/");
    run_until(f, 1, 3000);
    /* a fresh connection is not retried */
    assert_int_equal(r->status, HTTP_EREAD);
    assert_int_equal(r->req.sys_err, UV_EOF);
    assert_int_equal(r->req.retried, 0);
    assert_string_equal(r->why, "read: connection closed by server");
    assert_int_equal(atomic_load(&f->fake.requests), 1);
}

static void test_close_mid_body(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_CLOSE_MID_BODY);
    new_client(f, f->fake.port, 1, 2000 * MS);
    rec *r = get(f, "/");
    run_until(f, 1, 3000);
    assert_int_equal(r->status, HTTP_EREAD);
    assert_string_equal(r->why, "read: connection closed by server");
    assert_int_equal(r->req.retried, 0);
    assert_true(r->req.bytes_received > 0);
    /* the next request reconnects and fails the same way (not a retry) */
    rec *s = get(f, "/");
    run_until(f, 2, 3000);
    assert_int_equal(s->status, HTTP_EREAD);
    assert_int_equal(s->req.connects, 1);
}

static void test_eof_body(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_EOF_BODY);
    new_client(f, f->fake.port, 1, 2000 * MS);
    for (int i = 0; i < 2; i++) {
        rec *r = get(f, "/");
        run_until(f, i + 1, 3000);
        assert_int_equal(r->status, 0);
        assert_string_equal(r->body, FAKE_EOF_BODY_TEXT);
        assert_false(r->keep_alive);
        assert_int_equal(r->req.connects, 1);
    }
}

static void test_garbage(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_GARBAGE);
    new_client(f, f->fake.port, 1, 2000 * MS);
    rec *r = get(f, "/");
    run_until(f, 1, 3000);
    assert_int_equal(r->status, HTTP_EPROTO);
    assert_true(strncmp(r->why, "protocol error: ", 16) == 0);
    run_for(f, 100);
    assert_int_equal(atomic_load(&f->fake.open), 0);  /* the connection was dropped */
}

static void test_invalid_request(void **state) {
    fx *f = *state;
    new_client(f, test_free_port(), 1, 1000 * MS);
    rec *r = get(f, "no-slash");
    assert_int_equal(r->ndone, 1);                    /* at once, inside the call */
    assert_int_equal(r->status, HTTP_EINVAL);
    hp_header h = {"Content-Length", 14, "3", 1};
    rec *s = send_req(f, HP_POST, "/", &h, 1, "abc", 3);
    assert_int_equal(s->status, HTTP_EINVAL);
}

/* ---- a deadline while only the name lookup is pending ---- */

/* libuv's thread pool (UV_THREADPOOL_SIZE=2, set in main before its first
 * use) held by two blocking jobs: a getaddrinfo queued behind them cannot
 * run, so a request to a host name waits for its lookup until released. */
typedef struct pool_block {
    uv_sem_t sem;
    uv_work_t work[2];
    int done;
} pool_block;

static void block_work(uv_work_t *w) { uv_sem_wait(&((pool_block *)w->data)->sem); }
static void block_after(uv_work_t *w, int status) {
    (void)status;
    ((pool_block *)w->data)->done++;
}

static void dns_deadline_case(fx *f, int version) {
    pool_block b;
    memset(&b, 0, sizeof b);
    assert_int_equal(uv_sem_init(&b.sem, 0), 0);
    for (int i = 0; i < 2; i++) {
        b.work[i].data = &b;
        assert_int_equal(uv_queue_work(&f->loop, &b.work[i], block_work, block_after), 0);
    }
    http_client_opts o;
    http_client_opts_default(&o);
    o.timeout_ns = 200 * MS;
    o.version = version;
    char err[256] = "";
    assert_int_equal(http_client_new(&f->loop, "localhost", f->fake.port, "localhost", &o, &f->c, err, sizeof err), 0);
    int before = f->ndone;
    rec *r = get(f, "/");
    run_until(f, before + 1, 3000);          /* the guard: 3 s; without the deadline it never ends */
    assert_int_equal(r->status, HTTP_ETIMEOUT);
    assert_string_equal(r->why, "timeout");
    assert_int_equal(r->req.connects, 0);    /* it never reached a connect */
    assert_int_equal(http_client_lookups(f->c), 1);
    assert_int_equal(b.done, 0);             /* the lookup was still pending */
    assert_int_equal(atomic_load(&f->fake.accepted), 0);
    for (int i = 0; i < 2; i++) uv_sem_post(&b.sem);
    while (b.done < 2) uv_run(&f->loop, UV_RUN_ONCE);
    run_for(f, 100);                         /* the lookup ends with nobody waiting */
    assert_int_equal(r->ndone, 1);
    http_client_close(f->c);
    f->c = NULL;
    uv_sem_destroy(&b.sem);
}

static void test_dns_deadline(void **state) {
    fx *f = *state;
    start_fake(f, FAKE_SILENT);
    dns_deadline_case(f, HTTP_V1);
    dns_deadline_case(f, HTTP_V2);           /* h2c: client/http_h2.c's own lookup */
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    setenv("UV_THREADPOOL_SIZE", "2", 1);    /* test_dns_deadline blocks the whole pool */
    nginx_ok = test_nginx_start(&nginx) == 0;
    if (!nginx_ok) fprintf(stderr, "cannot start nginx\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_static_and_return, setup_nginx, teardown),
        cmocka_unit_test_setup_teardown(test_large_and_head, setup_nginx, teardown),
        cmocka_unit_test_setup_teardown(test_methods_and_bodies, setup_nginx, teardown),
        cmocka_unit_test_setup_teardown(test_keepalive_reuse, setup_nginx, teardown),
        cmocka_unit_test_setup_teardown(test_no_keepalive, setup_nginx, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_pool, setup_nginx, teardown),
        cmocka_unit_test_setup_teardown(test_close_from_callback, setup_nginx, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_silent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_cancels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunked_keepalive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_closes_idle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_without_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_mid_body, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eof_body, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dns_deadline, setup, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    test_nginx_stop(&nginx);
    return rc;
}
