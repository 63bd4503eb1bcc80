/* test_mc_client.c - integration tests for src/client/mc_client.c against
 * real memcached servers started on free loopback ports (servers.h), plus a
 * few in-loop fake servers for protocol errors.  The loop is driven with
 * uv_run until a counter is reached, under a guard timer so a bug cannot
 * hang the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmemcached/memcached.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "client/mc_client.h"
#include "net/uring.h"
#include "proto/mc_proto.h"
#include "servers.h"

#define NRECS 2100
#define MS 1000000ull

typedef struct fx fx;
typedef struct rec rec;

struct rec {
    mc_req req;
    fx *f;
    int ndone, status, order, nvalues, final_ok;
    int nother;                 /* on_value calls for other replies than values (meta) */
    mc_kind kind;
    uint64_t number, cas;
    uint32_t flags;
    char keys[512];
    char msg[128];
    char *data;
    size_t data_len;
    uint64_t t_done;
    void (*then)(rec *);
};

/* In-loop fake server: answers every read (or the accept) with fixed bytes. */
typedef struct fake {
    int on;
    uv_tcp_t listen;
    uv_tcp_t peers[4];
    int npeers;
    int port;
    const char *on_accept;
    const char *on_data;
    char rbuf[4096];
} fake;

struct fx {
    test_server srv[2];
    int nsrv;
    test_server own;    /* per-test server, stopped in teardown */
    uv_loop_t loop;
    uv_timer_t guard;
    int guard_fired;
    mc_client *c;
    mc_client *closing; /* client being closed from a callback */
    rec *recs;
    int nrecs, seq, ndone;
    int chain_left;
    int done_at_close;
    int conn_status, conn_calls;
    char conn_msg[256];
    fake fk;
};

/* ---- records and callbacks -------------------------------------------- */

static void rec_on_value(mc_req *req, const mc_reply *it) {
    rec *r = req->data;
    size_t kl = strlen(r->keys);
    if (it->kind != MC_R_VALUE && it->kind != MC_R_VA) {
        r->nother++;
        return;
    }
    r->nvalues++;
    snprintf(r->keys + kl, sizeof r->keys - kl, "%s%.*s", kl ? " " : "", (int)it->key_len,
             it->key);
    r->flags = it->flags;
    r->cas = it->cas;
    free(r->data);
    r->data = malloc(it->data_len + 1);
    if (r->data) memcpy(r->data, it->data, it->data_len);
    r->data_len = it->data_len;
}

static void rec_on_done(mc_req *req, int status, const mc_reply *fin) {
    rec *r = req->data;
    r->ndone++;
    r->status = status;
    r->order = r->f->seq++;
    r->f->ndone++;
    r->t_done = uv_hrtime();
    r->final_ok = (status == 0) == (fin != NULL);
    r->kind = fin ? fin->kind : MC_R_NEED_MORE;
    if (fin) {
        r->number = fin->number;
        snprintf(r->msg, sizeof r->msg, "%.*s", (int)fin->msg_len, fin->msg ? fin->msg : "");
    }
    if (r->then) r->then(r);
}

static rec *new_rec(fx *f) {
    assert_true(f->nrecs < NRECS);
    rec *r = &f->recs[f->nrecs++];
    memset(r, 0, sizeof *r);
    r->f = f;
    r->req.on_value = rec_on_value;
    r->req.on_done = rec_on_done;
    r->req.data = r;
    return r;
}

static uint32_t srv_of(fx *f, const char *key) {
    return mc_client_server_for_key(f->c, key, strlen(key));
}

static rec *send_raw(fx *f, uint32_t server, const char *line, size_t n, const void *val,
                     size_t vlen) {
    rec *r = new_rec(f);
    mc_client_send(f->c, server, &r->req, line, n, val, vlen);
    return r;
}

static rec *s_store(fx *f, mc_cmd cmd, const char *key, const void *val, size_t vlen,
                    uint32_t flags, uint64_t cas) {
    char line[MC_LINE_MAX];
    size_t n = mc_encode_storage(line, sizeof line, cmd, key, strlen(key), flags, 0, vlen, cas);
    assert_true(n > 0);
    return send_raw(f, srv_of(f, key), line, n, val ? val : "", vlen);
}

static rec *s_set(fx *f, const char *key, const char *val) {
    return s_store(f, MC_SET, key, val, strlen(val), 0, 0);
}

static rec *s_get(fx *f, int with_cas, const char *key) {
    char line[MC_LINE_MAX];
    size_t kl = strlen(key);
    const char *keys[1] = {key};
    size_t n = mc_encode_retrieval(line, sizeof line, with_cas, keys, &kl, 1);
    assert_true(n > 0);
    return send_raw(f, srv_of(f, key), line, n, NULL, 0);
}

static rec *s_arith(fx *f, int incr, const char *key, uint64_t delta) {
    char line[MC_LINE_MAX];
    size_t n = mc_encode_arith(line, sizeof line, incr, key, strlen(key), delta);
    return send_raw(f, srv_of(f, key), line, n, NULL, 0);
}

/* mg <key> v f [c] [k] as a meta request */
static rec *s_mg(fx *f, int with_cas, int with_key, const char *key) {
    char line[MC_LINE_MAX];
    size_t n = mc_encode_meta_get(line, sizeof line, key, strlen(key), with_cas, with_key);
    assert_true(n > 0);
    rec *r = new_rec(f);
    mc_client_send_meta(f->c, srv_of(f, key), &r->req, 1, line, n, NULL, 0);
    return r;
}

/* "mg k v f k" for each of nkeys keys, one meta request owed nkeys replies */
static rec *s_mg_multi(fx *f, const char *const *keys, size_t nkeys) {
    char line[4096];
    size_t n = 0;
    for (size_t i = 0; i < nkeys; i++)
        n += mc_encode_meta_get(line + n, sizeof line - n, keys[i], strlen(keys[i]), 0, 1);
    rec *r = new_rec(f);
    mc_client_send_meta(f->c, 0, &r->req, (uint32_t)nkeys, line, n, NULL, 0);
    return r;
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

static void run_for(fx *f, int ms) { run_until_count(f, INT_MAX, ms); }

static void wait_rec(fx *f, rec *r) {
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, 5000, 0);
    while (r->ndone == 0 && !f->guard_fired) uv_run(&f->loop, UV_RUN_ONCE);
    uv_timer_stop(&f->guard);
    assert_int_equal(r->ndone, 1);
}

static void expect_ok(fx *f, rec *r, mc_kind kind) {
    wait_rec(f, r);
    if (r->status != 0) fprintf(stderr, "status %d (%s)\n", r->status, mc_client_strerror(r->status));
    assert_int_equal(r->status, 0);
    assert_true(r->final_ok);
    if (r->kind != kind)
        fprintf(stderr, "got %s, want %s\n", mc_kind_name(r->kind), mc_kind_name(kind));
    assert_int_equal(r->kind, kind);
}

static void expect_fail(fx *f, rec *r, int status) {
    wait_rec(f, r);
    if (r->status != status)
        fprintf(stderr, "status %d (%s), want %d\n", r->status, mc_client_strerror(r->status), status);
    assert_int_equal(r->status, status);
    assert_true(r->final_ok);
}

static void new_client_str(fx *f, const char *servers, const mc_client_opts *o) {
    char err[256] = "";
    int rc = mc_client_new(&f->loop, servers, o, &f->c, err, sizeof err);
    if (rc != 0) fprintf(stderr, "mc_client_new: %s\n", err);
    assert_int_equal(rc, 0);
}

static void new_client(fx *f, int port, const mc_client_opts *o) {
    char s[64];
    snprintf(s, sizeof s, "127.0.0.1:%d", port);
    new_client_str(f, s, o);
}

static void close_client(fx *f) {
    mc_client *c = f->c;
    f->c = NULL;
    mc_client_close(c);
}

/* ---- fake server ------------------------------------------------------ */

static void fake_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
    fake *fk = h->data;
    (void)hint;
    buf->base = fk->rbuf;
    buf->len = sizeof fk->rbuf;
}

static void fake_write(uv_tcp_t *t, const char *s) {
    uv_buf_t b = uv_buf_init((char *)s, (unsigned)strlen(s));
    uv_try_write((uv_stream_t *)t, &b, 1);
}

static void fake_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
    fake *fk = s->data;
    (void)buf;
    if (nread > 0 && fk->on_data) fake_write((uv_tcp_t *)s, fk->on_data);
    if (nread < 0) uv_read_stop(s);
}

static void fake_conn(uv_stream_t *l, int status) {
    fake *fk = l->data;
    if (status < 0 || fk->npeers >= 4) return;
    uv_tcp_t *p = &fk->peers[fk->npeers++];
    uv_tcp_init(l->loop, p);
    p->data = fk;
    uv_accept(l, (uv_stream_t *)p);
    uv_read_start((uv_stream_t *)p, fake_alloc, fake_read);
    if (fk->on_accept) fake_write(p, fk->on_accept);
}

static void fake_start(fx *f, const char *on_accept, const char *on_data) {
    fake *fk = &f->fk;
    struct sockaddr_in a;
    int len = sizeof a;
    memset(fk, 0, sizeof *fk);
    fk->on_accept = on_accept;
    fk->on_data = on_data;
    uv_tcp_init(&f->loop, &fk->listen);
    fk->listen.data = fk;
    fk->on = 1;
    uv_ip4_addr("127.0.0.1", 0, &a);
    assert_int_equal(uv_tcp_bind(&fk->listen, (struct sockaddr *)&a, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&fk->listen, 16, fake_conn), 0);
    uv_tcp_getsockname(&fk->listen, (struct sockaddr *)&a, &len);
    fk->port = ntohs(a.sin_port);
}

static void fake_stop(fx *f) {
    fake *fk = &f->fk;
    if (!fk->on) return;
    fk->on = 0;
    for (int i = 0; i < fk->npeers; i++) uv_close((uv_handle_t *)&fk->peers[i], NULL);
    uv_close((uv_handle_t *)&fk->listen, NULL);
}

/* ---- fixtures --------------------------------------------------------- */

static int start_memcached_on(test_server *s, int port) {
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execlp("memcached", "memcached", "-l", "127.0.0.1", "-p", portstr, "-U", "0", "-t",
               "1", "-u", "root", (char *)NULL);
        _exit(127);
    }
    if (test_wait_port(port, 3000) != 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    s->pid = pid;
    s->port = port;
    return 0;
}

static int group_setup_n(void **state, int nsrv) {
    fx *f = calloc(1, sizeof *f);
    if (f == NULL) return -1;
    f->nsrv = nsrv;
    for (int i = 0; i < nsrv; i++)
        if (test_memcached_start(&f->srv[i], NULL) != 0) return -1;
    *state = f;
    return 0;
}

static int group_setup0(void **state) { return group_setup_n(state, 0); }
static int group_setup1(void **state) { return group_setup_n(state, 1); }
static int group_setup2(void **state) { return group_setup_n(state, 2); }

static int group_teardown(void **state) {
    fx *f = *state;
    for (int i = 0; i < f->nsrv; i++) test_server_stop(&f->srv[i]);
    free(f);
    return 0;
}

static int test_setup(void **state) {
    fx *f = *state;
    if (uv_loop_init(&f->loop) != 0) return -1;
    test_io_use(&f->loop);
    uv_timer_init(&f->loop, &f->guard);
    f->guard.data = f;
    f->recs = calloc(NRECS, sizeof *f->recs);
    f->nrecs = f->seq = f->ndone = 0;
    f->c = f->closing = NULL;
    f->conn_calls = 0;
    memset(&f->own, 0, sizeof f->own);
    memset(&f->fk, 0, sizeof f->fk);
    return f->recs ? 0 : -1;
}

static int test_teardown(void **state) {
    fx *f = *state;
    if (f->c) close_client(f);
    fake_stop(f);
    uv_close((uv_handle_t *)&f->guard, NULL);
    for (int i = 0; i < 2000 && uv_loop_alive(&f->loop); i++) {
        struct timespec ts = {0, 1000000};
        uv_run(&f->loop, UV_RUN_NOWAIT);
        nanosleep(&ts, NULL);
    }
    int rc = uv_loop_close(&f->loop);
    test_server_stop(&f->own);
    for (int i = 0; i < f->nrecs; i++) free(f->recs[i].data);
    free(f->recs);
    if (rc != 0) fprintf(stderr, "loop still has handles after mc_client_close\n");
    return rc == 0 ? 0 : -1;
}

/* ---- single server: replies ------------------------------------------- */

static void test_set_get(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    assert_int_equal(mc_client_nservers(f->c), 1);
    rec *r = s_store(f, MC_SET, "sg:k1", "hello", 5, 42, 0);
    assert_int_equal(mc_client_pending(f->c), 1);
    expect_ok(f, r, MC_R_STORED);
    r = s_get(f, 0, "sg:k1");
    expect_ok(f, r, MC_R_END);
    assert_int_equal(r->nvalues, 1);
    assert_string_equal(r->keys, "sg:k1");
    assert_int_equal(r->flags, 42);
    assert_int_equal(r->data_len, 5);
    assert_memory_equal(r->data, "hello", 5);
    assert_true(r->cas == 0);
    r = s_get(f, 1, "sg:k1");
    expect_ok(f, r, MC_R_END);
    assert_true(r->cas != 0);
    /* empty value */
    expect_ok(f, s_store(f, MC_SET, "sg:empty", "", 0, 0, 0), MC_R_STORED);
    r = s_get(f, 0, "sg:empty");
    expect_ok(f, r, MC_R_END);
    assert_int_equal(r->nvalues, 1);
    assert_int_equal(r->data_len, 0);
    assert_int_equal(mc_client_pending(f->c), 0);
}

static void test_get_miss(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    rec *r = s_get(f, 0, "miss:nothing-here");
    expect_ok(f, r, MC_R_END);
    assert_int_equal(r->nvalues, 0);
    assert_null(r->data);
}

static void test_multi_get(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    expect_ok(f, s_set(f, "mg:a", "1"), MC_R_STORED);
    expect_ok(f, s_set(f, "mg:b", "22"), MC_R_STORED);
    expect_ok(f, s_set(f, "mg:c", "333"), MC_R_STORED);
    const char *line = "get mg:a mg:missing mg:b mg:c\r\n";
    rec *r = send_raw(f, 0, line, strlen(line), NULL, 0);
    expect_ok(f, r, MC_R_END);
    assert_int_equal(r->nvalues, 3);
    assert_string_equal(r->keys, "mg:a mg:b mg:c");
    assert_memory_equal(r->data, "333", 3);
}

static void test_storage_commands(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    expect_ok(f, s_set(f, "st:x", "val"), MC_R_STORED);
    expect_ok(f, s_store(f, MC_ADD, "st:x", "zz", 2, 0, 0), MC_R_NOT_STORED);
    expect_ok(f, s_store(f, MC_ADD, "st:new", "zz", 2, 0, 0), MC_R_STORED);
    expect_ok(f, s_store(f, MC_REPLACE, "st:absent", "zz", 2, 0, 0), MC_R_NOT_STORED);
    expect_ok(f, s_store(f, MC_REPLACE, "st:new", "yy", 2, 0, 0), MC_R_STORED);
    expect_ok(f, s_store(f, MC_APPEND, "st:x", "app", 3, 0, 0), MC_R_STORED);
    expect_ok(f, s_store(f, MC_PREPEND, "st:x", "pre", 3, 0, 0), MC_R_STORED);
    expect_ok(f, s_store(f, MC_APPEND, "st:absent", "a", 1, 0, 0), MC_R_NOT_STORED);
    rec *r = s_get(f, 1, "st:x");
    expect_ok(f, r, MC_R_END);
    assert_int_equal(r->data_len, 9);
    assert_memory_equal(r->data, "prevalapp", 9);
    uint64_t cas = r->cas;
    assert_true(cas != 0);
    expect_ok(f, s_store(f, MC_CAS, "st:x", "c1", 2, 0, cas + 1000), MC_R_EXISTS);
    expect_ok(f, s_store(f, MC_CAS, "st:x", "c2", 2, 7, cas), MC_R_STORED);
    expect_ok(f, s_store(f, MC_CAS, "st:x", "c3", 2, 0, cas), MC_R_EXISTS);
    expect_ok(f, s_store(f, MC_CAS, "st:absent", "c4", 2, 0, 1), MC_R_NOT_FOUND);
    r = s_get(f, 0, "st:x");
    expect_ok(f, r, MC_R_END);
    assert_memory_equal(r->data, "c2", 2);
    assert_int_equal(r->flags, 7);
}

static void test_delete_arith_touch(void **state) {
    fx *f = *state;
    char line[MC_LINE_MAX];
    new_client(f, f->srv[0].port, NULL);
    expect_ok(f, s_set(f, "ar:n", "10"), MC_R_STORED);
    rec *r = s_arith(f, 1, "ar:n", 5);
    expect_ok(f, r, MC_R_NUMBER);
    assert_true(r->number == 15);
    r = s_arith(f, 0, "ar:n", 20);
    expect_ok(f, r, MC_R_NUMBER);
    assert_true(r->number == 0);
    expect_ok(f, s_arith(f, 1, "ar:absent", 1), MC_R_NOT_FOUND);
    expect_ok(f, s_set(f, "ar:text", "abc"), MC_R_STORED);
    r = s_arith(f, 1, "ar:text", 1);
    expect_ok(f, r, MC_R_CLIENT_ERROR);
    assert_non_null(strstr(r->msg, "non-numeric"));
    size_t n = mc_encode_touch(line, sizeof line, "ar:n", 4, 100);
    expect_ok(f, send_raw(f, 0, line, n, NULL, 0), MC_R_TOUCHED);
    n = mc_encode_touch(line, sizeof line, "ar:absent", 9, 100);
    expect_ok(f, send_raw(f, 0, line, n, NULL, 0), MC_R_NOT_FOUND);
    n = mc_encode_delete(line, sizeof line, "ar:n", 4);
    expect_ok(f, send_raw(f, 0, line, n, NULL, 0), MC_R_DELETED);
    expect_ok(f, send_raw(f, 0, line, n, NULL, 0), MC_R_NOT_FOUND);
    expect_ok(f, send_raw(f, 0, "bogus_command\r\n", 15, NULL, 0), MC_R_ERROR);
    /* the connection is still in sync after an error */
    expect_ok(f, s_get(f, 0, "ar:text"), MC_R_END);
}

static char *pattern(size_t len, unsigned seed) {
    char *p = malloc(len);
    assert_non_null(p);
    for (size_t i = 0; i < len; i++) p[i] = (char)((i * 7 + i / 251 + seed) & 0xff);
    return p;
}

static void big_round_trip(fx *f, const char *key, size_t len) {
    char *v = pattern(len, (unsigned)len);
    /* set and get pipelined: the get is queued while the set is in flight */
    rec *w = s_store(f, MC_SET, key, v, len, 3, 0);
    rec *r = s_get(f, 0, key);
    expect_ok(f, w, MC_R_STORED);
    expect_ok(f, r, MC_R_END);
    assert_int_equal(r->nvalues, 1);
    assert_int_equal(r->data_len, len);
    assert_memory_equal(r->data, v, len);
    assert_int_equal(r->flags, 3);
    free(v);
}

static void test_big_values(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    big_round_trip(f, "big:30k", 30 * 1024);
    big_round_trip(f, "big:900k", 900 * 1024);
    /* two big replies back to back on one connection */
    rec *a = s_get(f, 0, "big:900k"), *b = s_get(f, 0, "big:30k");
    expect_ok(f, a, MC_R_END);
    expect_ok(f, b, MC_R_END);
    assert_int_equal(a->data_len, 900 * 1024);
    assert_int_equal(b->data_len, 30 * 1024);
    assert_true(a->order < b->order);
}

static void test_pipeline_1000(void **state) {
    fx *f = *state;
    int port = f->srv[0].port;
    rec *r[1000];
    char key[64], val[64];
    new_client(f, port, NULL);
    expect_ok(f, s_set(f, "pl:warm", "x"), MC_R_STORED);
    int64_t g0 = test_memcached_stat(port, "cmd_get"), s0 = test_memcached_stat(port, "cmd_set");
    assert_true(g0 >= 0 && s0 >= 0);
    int base = f->seq;
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "pl:%d", i / 2);
        snprintf(val, sizeof val, "value-%d", i / 2);
        r[i] = i % 2 == 0 ? s_set(f, key, val) : s_get(f, 0, key);
    }
    assert_int_equal(mc_client_pending(f->c), 1000);
    run_until_count(f, base + 1000, 20000);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(r[i]->ndone, 1);
        assert_int_equal(r[i]->status, 0);
        assert_int_equal(r[i]->order, base + i); /* FIFO */
        if (i % 2 == 0) {
            assert_int_equal(r[i]->kind, MC_R_STORED);
        } else {
            snprintf(val, sizeof val, "value-%d", i / 2);
            assert_int_equal(r[i]->kind, MC_R_END);
            assert_int_equal(r[i]->nvalues, 1);
            assert_int_equal(r[i]->data_len, strlen(val));
            assert_memory_equal(r[i]->data, val, strlen(val));
        }
    }
    assert_int_equal(mc_client_pending(f->c), 0);
    assert_int_equal(test_memcached_stat(port, "cmd_get") - g0, 500);
    assert_int_equal(test_memcached_stat(port, "cmd_set") - s0, 500);
    run_for(f, 50); /* nothing else arrives */
    assert_int_equal(f->ndone, base + 1000);
}

/* Write system calls this process made so far (the kernel's count). */
static long long proc_syscw(void) {
    FILE *fp = fopen("/proc/self/io", "r");
    char line[128];
    long long v = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "syscw: %lld", &v) == 1) break;
    if (fp) fclose(fp);
    return v;
}

/* Requests queued in one loop turn on one connection leave in one write
 * (net/conn flushes once per turn): 200 gets cost the process 1 write system
 * call, not 200 (io_uring backend: none, the one send goes through the
 * ring); the server counts all 200. */
static void test_coalesced_writes(void **state) {
    fx *f = *state;
    int port = f->srv[0].port;
    char key[64];
    new_client(f, port, NULL);
    expect_ok(f, s_set(f, "co:warm", "x"), MC_R_STORED);   /* connected */
    int64_t g0 = test_memcached_stat(port, "cmd_get");
    long long w0 = proc_syscw();
    assert_true(w0 >= 0 && g0 >= 0);
    int base = f->seq;
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof key, "co:%d", i);
        s_get(f, 0, key);
    }
    run_until_count(f, base + 200, 20000);
    long long writes = proc_syscw() - w0;
    assert_int_equal(f->ndone, base + 200);
    const char *io = getenv(NET_IO_ENV);
    char why[160];
    int uring = !(io && strcmp(io, "epoll") == 0) && net_io_probe(why, sizeof why) == 0;
    assert_true(writes >= (uring ? 0 : 1) && writes <= 2);
    assert_int_equal(test_memcached_stat(port, "cmd_get") - g0, 200);
}

static void then_chain(rec *r) {
    fx *f = r->f;
    if (r->status != 0 || f->chain_left <= 0) return;
    f->chain_left--;
    rec *n = s_arith(f, 1, "chain:n", 1);
    n->then = then_chain;
}

static void test_send_from_callback(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    expect_ok(f, s_set(f, "chain:n", "0"), MC_R_STORED);
    int base = f->ndone;
    f->chain_left = 199;
    rec *first = s_arith(f, 1, "chain:n", 1);
    first->then = then_chain;
    run_until_count(f, base + 200, 10000);
    assert_int_equal(f->ndone, base + 200);
    rec *last = &f->recs[f->nrecs - 1];
    assert_int_equal(last->status, 0);
    assert_true(last->number == 200);
    for (int i = 1; i < f->nrecs; i++) assert_int_equal(f->recs[i].ndone, 1);
}

/* io_uring backend: a chain of requests, each sent from the previous one's
 * completion, costs one loop turn per request.  The kernel completes a send
 * inline, while the turn's prepare pass submits it; before the ring reaped
 * those completions right there, each one made the poll return at once and
 * cost a turn of its own (two turns per request).  Counted as uv_run
 * (UV_RUN_ONCE) calls: a structural count, not a timing.  Skipped on the
 * epoll backend (LUAMECH_IO=epoll, or no io_uring here). */
static void test_uring_turns_per_request(void **state) {
    fx *f = *state;
    const char *io = getenv(NET_IO_ENV);
    char why[160];
    if ((io && strcmp(io, "epoll") == 0) || net_io_probe(why, sizeof why) != 0) skip();
    new_client(f, f->srv[0].port, NULL);
    expect_ok(f, s_set(f, "chain:n", "0"), MC_R_STORED);
    int base = f->ndone, turns = 0;
    f->chain_left = 199;
    rec *first = s_arith(f, 1, "chain:n", 1);
    first->then = then_chain;
    f->guard_fired = 0;
    uv_timer_start(&f->guard, on_guard, 10000, 0);
    while (f->ndone < base + 200 && !f->guard_fired) {
        uv_run(&f->loop, UV_RUN_ONCE);
        turns++;
    }
    uv_timer_stop(&f->guard);
    assert_int_equal(f->ndone, base + 200);
    if (turns > 230) fprintf(stderr, "%d loop turns for 200 chained requests\n", turns);
    assert_true(turns <= 230);   /* 200 on this machine; 275-400 before */
}

static void then_resend_on_cancel(rec *r) {
    fx *f = r->f;
    if (r->status != UV_ECANCELED || f->closing == NULL) return;
    rec *n = new_rec(f);
    mc_client_send(f->closing, 0, &n->req, "get x\r\n", 7, NULL, 0);
    /* cancelled synchronously: the client is closing */
}

static void test_close_pending(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    expect_ok(f, s_set(f, "cl:k", "v"), MC_R_STORED);
    int base = f->ndone;
    for (int i = 0; i < 100; i++) s_get(f, 0, "cl:k");
    f->recs[f->nrecs - 50].then = then_resend_on_cancel;
    assert_int_equal(mc_client_pending(f->c), 100);
    f->closing = f->c;
    close_client(f);
    /* every pending request (and the one sent from a callback) cancelled
     * exactly once, before mc_client_close returned */
    assert_int_equal(f->ndone, base + 101);
    for (int i = 1; i < f->nrecs; i++) {
        assert_int_equal(f->recs[i].ndone, 1);
        assert_int_equal(f->recs[i].status, UV_ECANCELED);
        assert_true(f->recs[i].final_ok);
    }
    f->closing = NULL;
    run_for(f, 100);
    assert_int_equal(f->ndone, base + 101);
}

static void then_close(rec *r) {
    fx *f = r->f;
    mc_client *c = f->c;
    f->c = NULL;
    f->closing = c;
    mc_client_close(c);
    f->done_at_close = f->ndone;
}

static void test_close_from_callback(void **state) {
    fx *f = *state;
    rec *r[10];
    new_client(f, f->srv[0].port, NULL);
    for (int i = 0; i < 10; i++) r[i] = s_set(f, "cc:k", "v");
    r[3]->then = then_close;
    run_until_count(f, 10, 5000);
    assert_int_equal(f->done_at_close, 10);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(r[i]->ndone, 1);
        assert_int_equal(r[i]->status, i <= 3 ? 0 : UV_ECANCELED);
    }
    run_for(f, 100);
    assert_int_equal(f->ndone, 10);
}

static void on_connected(void *data, int status, const char *errmsg) {
    fx *f = data;
    f->conn_calls++;
    f->conn_status = status;
    snprintf(f->conn_msg, sizeof f->conn_msg, "%s", errmsg ? errmsg : "");
    f->ndone++;
}

static void test_connect_and_names(void **state) {
    fx *f = *state;
    char s[64], err[256];
    snprintf(s, sizeof s, "localhost:%d", f->srv[0].port);
    new_client_str(f, s, NULL);
    assert_string_equal(mc_client_server_name(f->c, 0), s);
    assert_null(mc_client_server_name(f->c, 1));
    mc_client_connect(f->c, on_connected, f);
    run_until_count(f, 1, 5000);
    assert_int_equal(f->conn_calls, 1);
    assert_int_equal(f->conn_status, 0);
    expect_ok(f, s_set(f, "lh:k", "v"), MC_R_STORED);
    /* already connected: reported at once */
    mc_client_connect(f->c, on_connected, f);
    assert_int_equal(f->conn_calls, 2);
    assert_int_equal(f->conn_status, 0);
    /* out-of-range server index */
    rec *r = send_raw(f, 5, "get x\r\n", 7, NULL, 0);
    assert_int_equal(r->ndone, 1);
    assert_true(r->status < 0);
    /* bad server lists */
    static const char *bad[] = {"", "127.0.0.1:abc", "h:99999", ",,", "a b:1", "h:0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mc_client *c = (mc_client *)1;
        err[0] = 0;
        assert_int_equal(mc_client_new(&f->loop, bad[i], NULL, &c, err, sizeof err), -1);
        assert_null(c);
        assert_true(err[0] != 0);
    }
    assert_string_equal(mc_client_strerror(UV_ETIMEDOUT), "timeout");
    assert_non_null(mc_client_strerror(MC_EDOWN));
}

/* ---- meta protocol ---------------------------------------------------- */

static int64_t stat_of(fx *f, const char *name) { return test_memcached_stat(f->srv[0].port, name); }

/* mg against a real memcached: what get and gets return, and what the
 * server counts (cmd_get, get_hits, get_misses) */
static void test_meta_get(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    int64_t g0 = stat_of(f, "cmd_get"), h0 = stat_of(f, "get_hits"), m0 = stat_of(f, "get_misses");
    expect_ok(f, s_store(f, MC_SET, "meta:k1", "he\r\no", 5, 4294967295u, 0), MC_R_STORED);
    rec *r = s_mg(f, 0, 0, "meta:k1");
    expect_ok(f, r, MC_R_VA);
    assert_int_equal(r->nvalues, 1);
    assert_int_equal(r->flags, 4294967295u);
    assert_int_equal(r->data_len, 5);
    assert_memory_equal(r->data, "he\r\no", 5);
    assert_true(r->cas == 0);
    rec *t = s_get(f, 1, "meta:k1");                 /* text gets: the same cas as mg ... c */
    r = s_mg(f, 1, 0, "meta:k1");
    expect_ok(f, t, MC_R_END);
    expect_ok(f, r, MC_R_VA);
    assert_true(r->cas != 0 && r->cas == t->cas);
    r = s_mg(f, 0, 0, "meta:missing");
    expect_ok(f, r, MC_R_EN);
    assert_int_equal(r->nvalues, 0);
    /* text and meta pipelined on one connection, matched by order */
    rec *a = s_set(f, "meta:k2", "two"), *b = s_mg(f, 0, 0, "meta:k2"), *c = s_get(f, 0, "meta:k2"),
        *d = s_mg(f, 0, 0, "meta:nope"), *e = s_set(f, "meta:k3", "three");
    expect_ok(f, a, MC_R_STORED);
    expect_ok(f, b, MC_R_VA);
    expect_ok(f, c, MC_R_END);
    expect_ok(f, d, MC_R_EN);
    expect_ok(f, e, MC_R_STORED);
    assert_memory_equal(b->data, "two", 3);
    assert_memory_equal(c->data, "two", 3);
    /* several mg in one request: a reply each, every value names its key */
    const char *keys[] = {"meta:k1", "meta:nope", "meta:k2", "meta:k3", "meta:nope2"};
    r = s_mg_multi(f, keys, 5);
    expect_ok(f, r, MC_R_EN);                       /* its last reply */
    assert_int_equal(r->nvalues, 3);
    assert_int_equal(r->nother, 1);                 /* the EN before the last reply */
    assert_string_equal(r->keys, "meta:k1 meta:k2 meta:k3");
    assert_memory_equal(r->data, "three", 5);
    /* what the server counted: 2 + 1 + 1 + 1 + 5 mg and 1 gets + 1 get */
    assert_int_equal(stat_of(f, "cmd_get") - g0, 12);
    assert_int_equal(stat_of(f, "get_hits") - h0, 8);
    assert_int_equal(stat_of(f, "get_misses") - m0, 4);
    assert_int_equal(mc_client_pending(f->c), 0);
}

/* 1000 mg pipelined in one write: every reply to its request */
static void test_meta_pipeline(void **state) {
    fx *f = *state;
    new_client(f, f->srv[0].port, NULL);
    expect_ok(f, s_set(f, "metap:even", "E"), MC_R_STORED);
    int base = f->ndone;
    rec *r[1000];
    for (int i = 0; i < 1000; i++) r[i] = s_mg(f, 0, 0, i % 2 ? "metap:odd" : "metap:even");
    run_until_count(f, base + 1000, 10000);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(r[i]->status, 0);
        assert_int_equal(r[i]->kind, i % 2 ? MC_R_EN : MC_R_VA);
        assert_int_equal(r[i]->order, r[0]->order + i);
    }
}

static void test_meta_bad_va_length(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "VA x f0\r\n");
    new_client(f, f->fk.port, NULL);
    rec *a = s_mg(f, 0, 0, "k"), *b = s_mg(f, 0, 0, "k");
    expect_fail(f, a, MC_EPROTO);
    expect_fail(f, b, MC_EPROTO);
    assert_int_equal(mc_client_down_cause(f->c, 0), MC_EPROTO);
}

static void test_meta_short_data(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "VA 2 f0\r\nabc\r\n");    /* the data is longer than said */
    new_client(f, f->fk.port, NULL);
    expect_fail(f, s_mg(f, 0, 0, "k"), MC_EPROTO);
}

static void test_meta_huge_va(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "VA 4000000000 f0\r\nabc");
    new_client(f, f->fk.port, NULL);
    expect_fail(f, s_mg(f, 0, 0, "k"), MC_EPROTO);
}

static void test_meta_junk(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "VX 1\r\n");
    new_client(f, f->fk.port, NULL);
    expect_fail(f, s_mg(f, 0, 0, "k"), MC_EPROTO);
}

/* a meta reply to a text request */
static void test_meta_reply_to_text(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "VA 1 f0\r\nx\r\n");
    new_client(f, f->fk.port, NULL);
    expect_fail(f, s_get(f, 0, "k"), MC_EPROTO);
}

/* a text reply to a meta request */
static void test_text_reply_to_meta(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "VALUE k 0 1\r\nx\r\nEND\r\n");
    new_client(f, f->fk.port, NULL);
    expect_fail(f, s_mg(f, 0, 0, "k"), MC_EPROTO);
}

/* one reply more than the mg sent: the second is unsolicited */
static void test_meta_unsolicited(void **state) {
    fx *f = *state;
    mc_client_opts o;
    mc_client_opts_default(&o);
    o.backoff_min_ns = 3000 * MS;
    fake_start(f, NULL, "VA 1 f0\r\nx\r\nVA 1 f0\r\ny\r\n");
    new_client(f, f->fk.port, &o);
    rec *a = s_mg(f, 0, 0, "k");
    expect_ok(f, a, MC_R_VA);
    assert_memory_equal(a->data, "x", 1);
    run_for(f, 100);
    assert_int_equal(mc_client_down_cause(f->c, 0), MC_EPROTO);
    rec *b = s_mg(f, 0, 0, "k");
    assert_int_equal(b->ndone, 1);
    assert_int_equal(b->status, MC_EDOWN);
}

/* a server without the meta commands answers each with ERROR: a request of
 * three mg ends with its third, as an error, and nothing is left over */
static void test_meta_old_server(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "ERROR\r\nERROR\r\nERROR\r\n");
    new_client(f, f->fk.port, NULL);
    const char *keys[] = {"a", "b", "c"};
    rec *r = s_mg_multi(f, keys, 3);
    expect_ok(f, r, MC_R_ERROR);
    assert_int_equal(r->nother, 2);                 /* the two ERRORs before the last */
    assert_int_equal(mc_client_down_cause(f->c, 0), 0);
    run_for(f, 50);
    assert_int_equal(mc_client_down_cause(f->c, 0), 0);
}

/* ---- protocol errors (fake server in the loop) ------------------------- */

static void test_proto_garbage(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "HELLO THERE\r\n");
    new_client(f, f->fk.port, NULL);
    rec *a = s_get(f, 0, "k"), *b = s_get(f, 0, "k");
    expect_fail(f, a, MC_EPROTO);
    expect_fail(f, b, MC_EPROTO);
    rec *c = s_get(f, 0, "k");
    assert_int_equal(c->ndone, 1); /* before send returned */
    assert_int_equal(c->status, MC_EDOWN);
}

static void test_proto_unsolicited(void **state) {
    fx *f = *state;
    mc_client_opts o;
    mc_client_opts_default(&o);
    o.backoff_min_ns = 3000 * MS; /* still down after the 100 ms below */
    fake_start(f, "STORED\r\n", NULL);
    new_client(f, f->fk.port, &o);
    mc_client_connect(f->c, on_connected, f);
    run_until_count(f, 1, 5000);
    assert_int_equal(f->conn_status, 0);
    run_for(f, 100);
    rec *c = s_get(f, 0, "k");
    assert_int_equal(c->ndone, 1);
    assert_int_equal(c->status, MC_EDOWN);
    assert_int_equal(mc_client_down_cause(f->c, 0), MC_EPROTO);   /* the first cause is kept */
}

static void test_proto_huge_value(void **state) {
    fx *f = *state;
    fake_start(f, NULL, "VALUE k 0 4000000000\r\nabc");
    new_client(f, f->fk.port, NULL);
    expect_fail(f, s_get(f, 0, "k"), MC_EPROTO);
}

static void test_proto_split_reply(void **state) {
    fx *f = *state;
    /* a full reply for the first request and half of the next one, then EOF:
     * the first succeeds, the second fails with the connection */
    fake_start(f, NULL, "VALUE k 0 3\r\nabc\r\nEND\r\nVALUE k 0 3\r\nab");
    new_client(f, f->fk.port, NULL);
    rec *a = s_get(f, 0, "k"), *b = s_get(f, 0, "k");
    expect_ok(f, a, MC_R_END);
    assert_memory_equal(a->data, "abc", 3);
    run_for(f, 50);
    assert_int_equal(b->ndone, 0);
    fake_stop(f);
    expect_fail(f, b, UV_EOF);
}

/* The first callback holds the loop for 2 ms of the clock. */
static void then_hold_2ms(rec *r) {
    (void)r;
    uint64_t until = uv_hrtime() + 2 * MS;
    while (uv_hrtime() < until) {
    }
}

static void test_replies_of_one_read(void **state) {
    fx *f = *state;
    /* three sets leave in one write, the fake answers them in one write: the
     * three replies come in one read and complete at the same instant, the
     * read's, however long the callbacks before them take; a failure
     * without a reply carries no completion time */
    fake_start(f, NULL, "STORED\r\nSTORED\r\nSTORED\r\n");
    new_client(f, f->fk.port, NULL);
    rec *r[3];
    for (int i = 0; i < 3; i++) r[i] = s_set(f, "one:read", "v");
    r[0]->then = then_hold_2ms;
    for (int i = 0; i < 3; i++) expect_ok(f, r[i], MC_R_STORED);
    assert_true(r[0]->req.base.done_ns > 0);
    assert_true(r[0]->req.base.done_ns <= r[0]->t_done);
    assert_true(r[1]->req.base.done_ns == r[0]->req.base.done_ns);
    assert_true(r[2]->req.base.done_ns == r[0]->req.base.done_ns);
    assert_true(r[2]->t_done >= r[2]->req.base.done_ns + 2 * MS);   /* not the callback's clock */
    rec *late = s_get(f, 0, "one:read");
    fake_stop(f);
    wait_rec(f, late);
    assert_true(late->status < 0);          /* EOF or a failed write: no reply */
    assert_true(late->req.base.done_ns == 0);
}

/* ---- failures --------------------------------------------------------- */

static void opts_fast(mc_client_opts *o) {
    mc_client_opts_default(o);
    o->backoff_min_ns = 200 * MS;
    o->backoff_max_ns = 800 * MS;
    o->timeout_ns = 2000 * MS;
}

/* Runs the loop until uv_hrtime() reaches t.  The loop's cached clock can
 * lag (it is updated once per turn, and not while the test blocks), so a
 * timer set from it fires early on a loaded machine: refresh it and go on
 * until the real time is there. */
static void run_until_time(fx *f, uint64_t t) {
    for (uint64_t now = uv_hrtime(); now < t; now = uv_hrtime()) {
        uv_update_time(&f->loop);
        run_for(f, (int)((t - now) / MS) + 1);
    }
}

static void test_refused_then_backoff(void **state) {
    fx *f = *state;
    mc_client_opts o;
    opts_fast(&o);
    /* backoffs of 1 s, then 2 s: each check lands 250 ms past the backoff
     * it must outlast and 750 ms before the one it must not (with 200/400
     * ms, a 150 ms stall of a busy machine sent d after the backoff) */
    o.backoff_min_ns = 1000 * MS;
    o.backoff_max_ns = 4000 * MS;
    int port = test_free_port();
    new_client(f, port, &o);
    rec *a = s_get(f, 0, "k");
    assert_int_equal(a->ndone, 0);
    expect_fail(f, a, UV_ECONNREFUSED);
    rec *b = s_get(f, 0, "k"); /* down: refused at once */
    assert_int_equal(b->ndone, 1);
    assert_int_equal(b->status, MC_EDOWN);
    /* after backoff_min a new attempt is made */
    run_until_time(f, a->t_done + 1250 * MS);
    rec *c = s_get(f, 0, "k");
    assert_int_equal(c->ndone, 0);
    expect_fail(f, c, UV_ECONNREFUSED);
    /* the backoff doubled: still down after 1.x * backoff_min */
    run_until_time(f, c->t_done + 1250 * MS);
    rec *d = s_get(f, 0, "k");
    assert_int_equal(d->ndone, 1);
    assert_int_equal(d->status, MC_EDOWN);
    /* the server comes up; after the backoff the client reconnects */
    assert_int_equal(start_memcached_on(&f->own, port), 0);
    run_until_time(f, c->t_done + 2250 * MS);
    expect_ok(f, s_set(f, "k", "v"), MC_R_STORED);
    /* success reset the backoff: the next failure waits backoff_min again */
    test_server_stop(&f->own);
    run_for(f, 50); /* EOF on the idle connection marks it down */
    uint64_t t_eof = uv_hrtime();
    rec *e = s_get(f, 0, "k");
    assert_int_equal(e->ndone, 1);
    assert_int_equal(e->status, MC_EDOWN);
    run_until_time(f, t_eof + 1250 * MS);
    rec *g = s_get(f, 0, "k");
    assert_int_equal(g->ndone, 0);
    expect_fail(f, g, UV_ECONNREFUSED);
}

static void test_connect_refused_cb(void **state) {
    fx *f = *state;
    int port = test_free_port();
    char want[64];
    new_client(f, port, NULL);
    mc_client_connect(f->c, on_connected, f);
    run_until_count(f, 1, 5000);
    assert_int_equal(f->conn_calls, 1);
    assert_int_equal(f->conn_status, UV_ECONNREFUSED);
    snprintf(want, sizeof want, "127.0.0.1:%d", port);
    assert_non_null(strstr(f->conn_msg, want));
    assert_non_null(strstr(f->conn_msg, "refused"));
}

static void test_connect_timeout(void **state) {
    fx *f = *state;
    mc_client_opts o;
    /* a listener with a full accept queue drops SYNs: connect hangs */
    int l = socket(AF_INET, SOCK_STREAM, 0), filler = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t alen = sizeof a;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
    assert_int_equal(listen(l, 0), 0);
    fcntl(filler, F_SETFL, O_NONBLOCK);
    connect(filler, (struct sockaddr *)&a, sizeof a);
    struct pollfd p = {filler, POLLOUT, 0};
    assert_int_equal(poll(&p, 1, 1000), 1);
    opts_fast(&o);
    o.connect_timeout_ns = 300 * MS;
    new_client(f, ntohs(a.sin_port), &o);
    uint64_t t0 = uv_hrtime();
    rec *r = s_get(f, 0, "k");
    expect_fail(f, r, UV_ETIMEDOUT);
    assert_true(r->t_done - t0 >= 300 * MS);
    assert_true(r->t_done - t0 < 3000 * MS);   /* 10x the timeout: a busy machine's stalls */
    rec *d = s_get(f, 0, "k");
    assert_int_equal(d->status, MC_EDOWN);
    close(filler);
    close(l);
}

/* SIGSTOP and wait until the child really is stopped (kill() is async). */
static void freeze(pid_t pid) {
    int st = 0;
    assert_int_equal(kill(pid, SIGSTOP), 0);
    assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
    assert_true(WIFSTOPPED(st));
}

static void test_server_killed(void **state) {
    fx *f = *state;
    assert_int_equal(test_memcached_start(&f->own, NULL), 0);
    new_client(f, f->own.port, NULL);
    for (int i = 0; i < 10; i++) expect_ok(f, s_set(f, "kill:k", "v"), MC_R_STORED);
    freeze(f->own.pid);
    int base = f->ndone, first = f->nrecs;
    for (int i = 0; i < 100; i++) s_get(f, 0, "kill:k");
    run_for(f, 50);
    assert_int_equal(f->ndone, base);
    kill(f->own.pid, SIGKILL);
    waitpid(f->own.pid, NULL, 0);
    f->own.pid = 0;
    run_until_count(f, base + 100, 5000);
    run_for(f, 50);
    assert_int_equal(f->ndone, base + 100);
    for (int i = first; i < first + 100; i++) {
        assert_int_equal(f->recs[i].ndone, 1);
        assert_true(f->recs[i].status < 0);
        assert_true(f->recs[i].status != MC_EDOWN);
        assert_true(f->recs[i].final_ok);
    }
    assert_int_equal(mc_client_pending(f->c), 0);
}

static void test_timeout_sigstop(void **state) {
    fx *f = *state;
    mc_client_opts o;
    opts_fast(&o);
    o.timeout_ns = 200 * MS;
    assert_int_equal(test_memcached_start(&f->own, NULL), 0);
    new_client(f, f->own.port, &o);
    expect_ok(f, s_set(f, "to:k", "v"), MC_R_STORED);
    freeze(f->own.pid);
    int base = f->ndone, first = f->nrecs;
    uint64_t t0 = uv_hrtime();
    for (int i = 0; i < 5; i++) s_get(f, 0, "to:k");
    run_until_count(f, base + 5, 5000);
    for (int i = first; i < first + 5; i++) {
        assert_int_equal(f->recs[i].ndone, 1);
        assert_int_equal(f->recs[i].status, UV_ETIMEDOUT);
        assert_true(f->recs[i].t_done - t0 >= 200 * MS);
        assert_true(f->recs[i].t_done - t0 < 3000 * MS);   /* 15x the timeout */
    }
    rec *d = s_get(f, 0, "to:k");
    assert_int_equal(d->status, MC_EDOWN);
    run_for(f, 100);
    assert_int_equal(f->ndone, base + 6);
    /* teardown's test_server_stop sends SIGCONT */
}

/* ---- two servers ------------------------------------------------------ */

static memcached_st *plain_client(const char *servers, int ketama) {
    memcached_st *m = memcached_create(NULL);
    memcached_server_list_st l = memcached_servers_parse(servers);
    assert_non_null(m);
    assert_non_null(l);
    assert_int_equal(memcached_server_push(m, l), MEMCACHED_SUCCESS);
    memcached_server_list_free(l);
    if (ketama) memcached_behavior_set(m, MEMCACHED_BEHAVIOR_KETAMA, 1);
    return m;
}

static void two_servers(fx *f, mc_dist dist, const char *prefix) {
    char servers[128], key[64], val[64];
    int count[2] = {0, 0};
    int64_t s0[2];
    mc_client_opts o;
    mc_client_opts_default(&o);
    o.distribution = dist;
    snprintf(servers, sizeof servers, "127.0.0.1:%d,127.0.0.1:%d", f->srv[0].port,
             f->srv[1].port);
    new_client_str(f, servers, &o);
    assert_int_equal(mc_client_nservers(f->c), 2);
    for (int i = 0; i < 2; i++) s0[i] = test_memcached_stat(f->srv[i].port, "cmd_set");
    int base = f->ndone;
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "%s:%d", prefix, i);
        snprintf(val, sizeof val, "v-%d", i);
        uint32_t s = srv_of(f, key);
        assert_true(s < 2);
        count[s]++;
        rec *r = s_set(f, key, val);
        assert_int_equal(r->req.server, s);
    }
    run_until_count(f, base + 300, 10000);
    for (int i = f->nrecs - 300; i < f->nrecs; i++) {
        assert_int_equal(f->recs[i].status, 0);
        assert_int_equal(f->recs[i].kind, MC_R_STORED);
    }
    assert_true(count[0] >= 50 && count[1] >= 50);
    for (int i = 0; i < 2; i++)
        assert_int_equal(test_memcached_stat(f->srv[i].port, "cmd_set") - s0[i], count[i]);
    /* a plain blocking libmemcached client finds every key */
    memcached_st *m = plain_client(servers, dist == MC_DIST_KETAMA);
    for (int i = 0; i < 300; i++) {
        size_t vlen;
        uint32_t fl;
        memcached_return_t rc;
        snprintf(key, sizeof key, "%s:%d", prefix, i);
        snprintf(val, sizeof val, "v-%d", i);
        assert_int_equal(memcached_generate_hash(m, key, strlen(key)), srv_of(f, key));
        char *got = memcached_get(m, key, strlen(key), &vlen, &fl, &rc);
        if (got == NULL) fprintf(stderr, "libmemcached get %s: %s\n", key, memcached_strerror(m, rc));
        assert_non_null(got);
        assert_int_equal(vlen, strlen(val));
        assert_memory_equal(got, val, vlen);
        free(got);
    }
    memcached_free(m);
}

static void test_two_servers_ketama(void **state) { two_servers(*state, MC_DIST_KETAMA, "kt"); }
static void test_two_servers_modula(void **state) { two_servers(*state, MC_DIST_MODULA, "md"); }

#define T(fn) cmocka_unit_test_setup_teardown(fn, test_setup, test_teardown)

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest one[] = {
        T(test_set_get),          T(test_get_miss),
        T(test_multi_get),        T(test_storage_commands),
        T(test_delete_arith_touch), T(test_big_values),
        T(test_pipeline_1000),
        T(test_coalesced_writes),
        T(test_send_from_callback),
        T(test_uring_turns_per_request),
        T(test_close_pending),    T(test_close_from_callback),
        T(test_connect_and_names),
        T(test_meta_get),         T(test_meta_pipeline),
    };
    const struct CMUnitTest none[] = {
        T(test_proto_garbage),     T(test_proto_unsolicited),
        T(test_proto_huge_value),  T(test_proto_split_reply),
        T(test_replies_of_one_read),
        T(test_refused_then_backoff), T(test_connect_refused_cb),
        T(test_connect_timeout),   T(test_server_killed),
        T(test_timeout_sigstop),
        T(test_meta_bad_va_length), T(test_meta_short_data),
        T(test_meta_huge_va),     T(test_meta_junk),
        T(test_meta_reply_to_text), T(test_text_reply_to_meta),
        T(test_meta_unsolicited),
        T(test_meta_old_server),
    };
    const struct CMUnitTest two[] = {
        T(test_two_servers_ketama), T(test_two_servers_modula),
    };
    int fails = 0;
    fails += cmocka_run_group_tests_name("mc_client_one_server", one, group_setup1, group_teardown);
    fails += cmocka_run_group_tests_name("mc_client_failures", none, group_setup0, group_teardown);
    fails += cmocka_run_group_tests_name("mc_client_two_servers", two, group_setup2, group_teardown);
    return fails ? 1 : 0;
}
