/* test_http2_hostile.c - the HTTP/2 client (client/http_h2.c over
 * client/h2_session.c) at the end of a connection's stream ids (RFC 9113
 * 5.1.1), which no server makes happen in a test's time: every session
 * starts at stream 2^31-1 (h2_session_cfg.first_stream_id, for tests), so
 * a connection carries one stream and the next request finds its ids used
 * up.  That request must go to a new connection (not fail with "the header
 * list was refused"), and the exhausted connection must close once its
 * stream ended, with a GOAWAY.  Counted by the server
 * (tests/scenarios/fixtures/h2_hostile.py, "serve": connections, requests,
 * requests on stream 2^31-1, GOAWAYs received).  The loop is driven with
 * uv_run until each request is done.
 *
 * And a server that sends PINGs and never reads (the test is the server,
 * on the same loop thread): 400 PINGs at a time, the next once the client
 * has read the last, so that no read holds more than nghttp2's limit of
 * 1,000 unacknowledged.  The acknowledgements pile up in the client; its
 * connection's write queue must stay under h2_session's cap (256 KiB, plus
 * a frame) and nghttp2's own limit then ends the session with a counted
 * flood error (before: the queue grew as long as the server went on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "client/h2_session.h"
#include "client/http_h2.h"
#include "client/life.h"
#include "net/conn.h"
#include "net/uring.h"
#include "servers.h"

#ifndef LUAMECH_SRC
#error "LUAMECH_SRC (the source tree) must be defined by the build"
#endif

enum { C_CONNS, C_REQS, C_SERVED, C_RST, C_GOAWAY, C_GOAWAY_IN, C_PEAK, C_TOP, C_N };

typedef struct env {
    char dir[64];
    char counts[128];
    pid_t py;
    int port;
} env;

static env E;

static int read_counts(long c[C_N]) {
    FILE *f = fopen(E.counts, "r");
    if (f == NULL) return -1;
    int n = 0;
    for (int i = 0; i < C_N; i++) n += fscanf(f, "%ld", &c[i]) == 1;
    fclose(f);
    return n == C_N ? 0 : -1;
}

static int group_setup(void **state) {
    (void)state;
    snprintf(E.dir, sizeof E.dir, "/tmp/lm-h2hostile-XXXXXX");
    if (mkdtemp(E.dir) == NULL) return -1;
    snprintf(E.counts, sizeof E.counts, "%s/counts", E.dir);
    char py[512], port[16];
    snprintf(py, sizeof py, "%s/tests/scenarios/fixtures/h2_hostile.py", LUAMECH_SRC);
    E.port = test_free_port();
    snprintf(port, sizeof port, "%d", E.port);
    E.py = fork();
    if (E.py == 0) {
        execlp("python3", "python3", py, port, "serve", E.counts, (char *)NULL);
        _exit(127);
    }
    return test_wait_port(E.port, 10000);
}

static int group_teardown(void **state) {
    (void)state;
    if (E.py > 0) {
        kill(E.py, SIGTERM);
        waitpid(E.py, NULL, 0);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", E.dir);
    return system(cmd) == 0 ? 0 : -1;
}

typedef struct run {
    int done, status, http;
    int freed;
} run;

static void on_free(void *p) { ((run *)p)->freed = 1; }

static void on_done(http_req *req, int status, const hp_parser *res) {
    run *r = req->data;
    r->done = 1;
    r->status = status;
    r->http = res ? res->status : 0;
}

static void test_stream_ids_used_up(void **state) {
    (void)state;
    uv_loop_t loop;
    memset(&loop, 0, sizeof loop);            /* uv_loop_init leaves data alone: test_io_use reads it */
    assert_int_equal(uv_loop_init(&loop), 0);
    test_io_use(&loop);
    run r;
    memset(&r, 0, sizeof r);
    client_life life;
    client_life_init(&life, on_free, &r);
    struct sockaddr_in a4;
    assert_int_equal(uv_ip4_addr("127.0.0.1", E.port, &a4), 0);
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    memcpy(&addr, &a4, sizeof a4);
    char authority[32];
    snprintf(authority, sizeof authority, "127.0.0.1:%d", E.port);
    hh2_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.loop = &loop;
    cfg.life = &life;
    cfg.addr = &addr;
    cfg.port = E.port;
    cfg.authority = authority;
    cfg.keepalive = 1;
    cfg.first_stream_id = 0x7fffffff;        /* one stream per connection */
    hh2 *h;
    assert_int_equal(hh2_new(&cfg, &h), 0);
    long before[C_N];
    for (int k = 0; k < 100 && read_counts(before) != 0; k++) usleep(20000);   /* the port probe's count */
    assert_int_equal(read_counts(before), 0);
    for (int i = 0; i < 3; i++) {
        http_req req;
        memset(&req, 0, sizeof req);
        req.on_done = on_done;
        req.data = &r;
        req.deadline_ns = uv_hrtime() + 5000000000ull;
        hp_request hr;
        memset(&hr, 0, sizeof hr);
        hr.method = HP_GET;
        hr.path = "/x";
        hr.path_len = 2;
        r.done = 0;
        hh2_send(h, &req, &hr);
        while (!r.done) uv_run(&loop, UV_RUN_ONCE);
        assert_int_equal(r.status, 0);        /* old: "HTTP/2: the header list was refused" */
        assert_int_equal(r.http, 200);
    }
    hh2_close(h);
    life.closing = 1;
    while (!r.freed) uv_run(&loop, UV_RUN_ONCE);
    hh2_free(h);
    long c[C_N];
    for (int k = 0; k < 100; k++) {           /* the server counts as it reads: let it catch up */
        if (read_counts(c) == 0 && c[C_GOAWAY_IN] >= 3) break;
        usleep(20000);
    }
    assert_int_equal(read_counts(c), 0);
    assert_int_equal(c[C_REQS] - before[C_REQS], 3);
    assert_int_equal(c[C_SERVED] - before[C_SERVED], 3);
    assert_int_equal(c[C_TOP] - before[C_TOP], 3);      /* each on stream 2^31-1 */
    assert_int_equal(c[C_CONNS] - before[C_CONNS], 3);  /* a new connection for each */
    assert_int_equal(c[C_GOAWAY_IN] - before[C_GOAWAY_IN], 3);   /* each closed with GOAWAY */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

typedef struct flood {
    int closed, status, freed;
    char msg[200];
} flood;

static int fl_header(void *ud, int block, const char *n, size_t nl, const char *v, size_t vl) {
    (void)ud, (void)block, (void)n, (void)nl, (void)v, (void)vl;
    return 0;
}
static int fl_data(void *ud, const char *p, size_t n) {
    (void)ud, (void)p, (void)n;
    return 0;
}
static void fl_close(void *ud, int status, uint32_t code, int sys, const char *msg) {
    flood *f = ud;
    (void)code, (void)sys;
    f->closed = 1;
    f->status = status;
    snprintf(f->msg, sizeof f->msg, "%s", msg ? msg : "");
}
static void fl_sess_closed(void *owner) { ((flood *)owner)->freed = 1; }

static const h2_stream_cbs fl_stream_cbs = {fl_header, NULL, fl_data, fl_close};
static const h2_session_cbs fl_session_cbs = {.on_closed = fl_sess_closed};

static void frame_hd(uint8_t *b, size_t len, uint8_t type, uint8_t flags, uint32_t sid) {
    b[0] = (uint8_t)(len >> 16), b[1] = (uint8_t)(len >> 8), b[2] = (uint8_t)len;
    b[3] = type, b[4] = flags;
    b[5] = (uint8_t)(sid >> 24), b[6] = (uint8_t)(sid >> 16), b[7] = (uint8_t)(sid >> 8), b[8] = (uint8_t)sid;
}

/* Write all of p (the socket is non-blocking: the loop turns meanwhile). */
static void put_all(uv_loop_t *loop, int fd, const uint8_t *p, size_t n) {
    for (int k = 0; n > 0 && k < 100000; k++) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else {
            uv_run(loop, UV_RUN_NOWAIT);
        }
    }
}

static void test_ping_flood_unread(void **state) {
    (void)state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(lfd >= 0);
    int small = 4096;                        /* the server's kernel holds little of what it never reads */
    setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in a4;
    memset(&a4, 0, sizeof a4);
    a4.sin_family = AF_INET;
    a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a4, sizeof a4), 0);
    assert_int_equal(listen(lfd, 4), 0);
    socklen_t al = sizeof a4;
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&a4, &al), 0);
    fcntl(lfd, F_SETFL, O_NONBLOCK);
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    memcpy(&addr, &a4, sizeof a4);

    uv_loop_t loop;
    memset(&loop, 0, sizeof loop);
    assert_int_equal(uv_loop_init(&loop), 0);
    /* epoll whatever LUAMECH_IO says: the test paces the server on the
     * client's frame count turn by turn (UV_RUN_NOWAIT), and on io_uring the
     * client's receives did not complete in those turns (not investigated) */
    assert_int_equal(net_io_use(&loop, NET_IO_EPOLL), 0);
    flood f;
    memset(&f, 0, sizeof f);
    h2_session_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.conn.loop = &loop;
    cfg.conn.addr = &addr;
    cfg.conn.rbuf_init = 64 * 1024;
    cfg.cbs = &fl_session_cbs;
    h2_session *s;
    assert_int_equal(h2_session_new(&cfg, &f, &s), 0);
    h2_nv nv[] = {{":method", 7, "GET", 3, 1}, {":scheme", 7, "http", 4, 1}, {":authority", 10, "x", 1, 1},
                  {":path", 5, "/", 1, 1}};
    int status;
    assert_non_null(h2_stream_open(s, nv, 4, NULL, 0, 1, 0, &fl_stream_cbs, &f, &status));
    int fd = -1;
    for (int k = 0; k < 5000 && fd < 0; k++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
        if (fd < 0) usleep(1000);
    }
    assert_true(fd >= 0);
    uint8_t settings[9];
    frame_hd(settings, 0, 4, 0, 0);
    put_all(&loop, fd, settings, sizeof settings);
    enum { PINGS = 400 };
    static uint8_t burst[PINGS * 17];
    for (int i = 0; i < PINGS; i++) {
        frame_hd(burst + i * 17, 8, 6, 0, 0);
        memcpy(burst + i * 17 + 9, "12345678", 8);
    }
    size_t maxq = 0;
    int bursts = 0;
    for (; bursts < 4000 && !f.closed; bursts++) {   /* 4000 bursts: 27 MB of acknowledgements */
        h2_session_stats st0, st1;
        h2_session_get_stats(s, &st0);
        put_all(&loop, fd, burst, sizeof burst);
        st1 = st0;
        for (int k = 0; k < 100000 && st1.frames_in < st0.frames_in + PINGS && !f.closed; k++) {
            uv_run(&loop, UV_RUN_NOWAIT);     /* until the client has read the burst */
            if (!f.freed) h2_session_get_stats(s, &st1);
        }
        uv_run(&loop, UV_RUN_NOWAIT);
        if (f.freed) break;                   /* the session is gone (its memory too) */
        net_conn *nc = h2_session_conn(s);
        if (nc && net_conn_wqueued(nc) > maxq) maxq = net_conn_wqueued(nc);
    }
    print_message("flood: %d bursts of %d PINGs, the client's write queue at most %zu bytes: %s\n", bursts, PINGS,
                  maxq, f.msg);
    assert_true(maxq <= 256 * 1024 + 32 * 1024);   /* old: it grew with every burst */
    assert_true(f.closed);
    assert_int_equal(f.status, H2_EPROTO);
    assert_non_null(strstr(f.msg, "Flooding"));
    close(fd);
    close(lfd);
    if (!f.freed) h2_session_close(s);
    while (!f.freed) uv_run(&loop, UV_RUN_ONCE);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_ids_used_up),
        cmocka_unit_test(test_ping_flood_unread),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
