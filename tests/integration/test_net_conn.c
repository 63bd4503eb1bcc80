/* test_net_conn.c - integration tests for src/net/conn.c's transport API
 * itself, under no protocol client: ALPN offered and read back against a
 * real nginx (`listen ... ssl http2`, certificates made by
 * tests/scenarios/fixtures/tls_mkpki.sh), the h2 connection answering an
 * HTTP/2 preface with a SETTINGS frame and the http/1.1 one an HTTP/1.1
 * response.  The loop is driven with uv_run until the exchange is done,
 * under a guard timer. */
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

#include "net/conn.h"
#include "net/tls.h"
#include "servers.h"

#ifndef LUAMECH_SRC
#error "LUAMECH_SRC (the source tree) must be defined by the build"
#endif

/* ---- servers -------------------------------------------------------- */

typedef struct env {
    char dir[64];               /* PKI, nginx's files */
    pid_t nginx;
    int port;                   /* nginx: ssl http2 */
} env;

static env E;

static int sh(const char *fmt, ...) {
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static pid_t spawn(char *const argv[]) {
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static void stop(pid_t *pid) {
    if (*pid <= 0) return;
    kill(*pid, SIGTERM);
    waitpid(*pid, NULL, 0);
    *pid = 0;
}

static int nginx_start(void) {
    char conf[256];
    snprintf(conf, sizeof conf, "%s/nginx.conf", E.dir);
    FILE *f = fopen(conf, "w");
    if (f == NULL) return -1;
    E.port = test_free_port();
    fprintf(f, "%sworker_processes 1;\nerror_log %s/error.log warn;\npid %s/nginx.pid;\n"
            "events { worker_connections 64; }\nhttp {\n access_log %s/access.log;\n"
            " client_body_temp_path %s/tmp;\n"
            " server {\n  listen 127.0.0.1:%d ssl http2;\n"
            "  ssl_certificate %s/server.pem;\n  ssl_certificate_key %s/server.key;\n"
            "  location = /hello { return 200 \"hello\"; }\n }\n}\n",
            getuid() == 0 ? "user root;\n" : "", E.dir, E.dir, E.dir, E.dir, E.port, E.dir, E.dir);
    fclose(f);
    char *argv[] = {"nginx", "-p", E.dir, "-c", conf, "-g", "daemon off;", NULL};
    E.nginx = spawn(argv);
    return test_wait_port(E.port, 5000);
}

static int group_setup(void **state) {
    (void)state;
    snprintf(E.dir, sizeof E.dir, "/tmp/lm-netconn-XXXXXX");
    if (mkdtemp(E.dir) == NULL) return -1;
    if (sh("bash '%s/tests/scenarios/fixtures/tls_mkpki.sh' '%s'", LUAMECH_SRC, E.dir) != 0) return -1;
    if (nginx_start() != 0) {
        sh("cat '%s/error.log' >&2", E.dir);
        return -1;
    }
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    stop(&E.nginx);
    sh("rm -rf '%s'", E.dir);
    return 0;
}

/* ---- one connection driven to the end of an exchange ------------------ */

typedef struct run {
    uv_loop_t loop;
    uv_timer_t guard;
    net_conn_cfg cfg;
    struct sockaddr_storage addr;
    net_tls_client *tls;
    net_conn *c;
    const char *send;           /* written from on_open */
    size_t send_len;
    size_t want;                /* bytes to receive before closing */
    int opened, failed, closed, timed_out;
    int fail_status;
    char fail_msg[256];
    char alpn[64];              /* net_conn_alpn at on_open; "-" when NULL */
    char got[4096];
    size_t ngot;
} run;

static void run_on_open(net_conn *c, void *owner) {
    run *r = owner;
    const char *a = net_conn_alpn(c);
    snprintf(r->alpn, sizeof r->alpn, "%s", a ? a : "-");
    r->opened = 1;
    if (r->send_len) assert_int_equal(net_conn_write(c, r->send, r->send_len), 0);
    if (r->want == 0) net_conn_close(c);
}

static size_t run_on_data(net_conn *c, void *owner, const char *p, size_t n) {
    run *r = owner;
    size_t k = n < sizeof r->got - 1 - r->ngot ? n : sizeof r->got - 1 - r->ngot;
    memcpy(r->got + r->ngot, p, k);
    r->ngot += k;
    r->got[r->ngot] = '\0';
    if (r->ngot >= r->want) net_conn_close(c);
    return n;
}

static void run_on_fail(void *owner, int status, net_phase ph, const char *msg) {
    run *r = owner;
    (void)ph;
    r->failed = 1;
    r->fail_status = status;
    snprintf(r->fail_msg, sizeof r->fail_msg, "%s", msg);
}

static void run_on_closed(void *owner) {
    run *r = owner;
    r->closed = 1;
    uv_stop(&r->loop);
}

static const net_conn_cbs run_cbs = {run_on_open, run_on_data, run_on_fail, run_on_closed};

static void run_on_guard(uv_timer_t *t) {
    run *r = t->data;
    r->timed_out = 1;
    if (r->c && !r->closed) net_conn_close(r->c);
}

/* client_alpn: the TLS client's list; conn_alpn: the connection's (cfg). */
static void run_init(run *r, int port, const char *client_alpn, const char *conn_alpn) {
    memset(r, 0, sizeof *r);
    assert_int_equal(uv_loop_init(&r->loop), 0);
    assert_int_equal(uv_timer_init(&r->loop, &r->guard), 0);
    r->guard.data = r;
    struct sockaddr_in *sin = (struct sockaddr_in *)&r->addr;
    assert_int_equal(uv_ip4_addr("127.0.0.1", port, sin), 0);
    char ca[128], err[256];
    snprintf(ca, sizeof ca, "%s/ca.pem", E.dir);
    net_tls_opts o = {.server_name = "127.0.0.1", .ca_file = ca, .alpn = client_alpn};
    assert_int_equal(net_tls_client_new(&o, &r->tls, err, sizeof err), 0);
    r->cfg.loop = &r->loop;
    r->cfg.addr = &r->addr;
    r->cfg.connect_timeout_ns = 5000000000ull;
    r->cfg.tls = r->tls;
    r->cfg.cbs = &run_cbs;
    r->cfg.alpn = conn_alpn;
}

static void run_go(run *r) {
    assert_int_equal(net_conn_open(&r->cfg, r, &r->c), 0);
    assert_int_equal(uv_timer_start(&r->guard, run_on_guard, 10000, 0), 0);
    while (!r->closed) uv_run(&r->loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&r->guard, NULL);
    uv_run(&r->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&r->loop), 0);
    net_tls_client_free(r->tls);
    if (r->failed) print_message("connection failed: %s\n", r->fail_msg);
    assert_false(r->timed_out);
}

/* The client preface, then an empty SETTINGS frame (RFC 9113 3.4). */
static const char h2_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";
#define H2_PREFACE_LEN (sizeof h2_preface - 1)

/* Offered h2 first: nginx selects h2 and speaks HTTP/2 (its first frame is
 * SETTINGS: type 0x04 at byte 3 of the frame header). */
static void test_alpn_h2(void **state) {
    (void)state;
    run r;
    run_init(&r, E.port, "h2,http/1.1", NULL);
    r.send = h2_preface;
    r.send_len = H2_PREFACE_LEN;
    r.want = 9;
    run_go(&r);
    assert_false(r.failed);
    assert_string_equal(r.alpn, "h2");
    assert_true(r.ngot >= 9);
    assert_int_equal((unsigned char)r.got[3], 0x04);
}

/* Only http/1.1 offered (by the connection, over its client's h2 list):
 * nginx selects it and answers HTTP/1.1. */
static void test_alpn_http11(void **state) {
    (void)state;
    static const char req[] = "GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    run r;
    run_init(&r, E.port, "h2,http/1.1", "http/1.1");
    r.send = req;
    r.send_len = sizeof req - 1;
    r.want = 12;
    run_go(&r);
    assert_false(r.failed);
    assert_string_equal(r.alpn, "http/1.1");
    assert_memory_equal(r.got, "HTTP/1.1 200", 12);
}

/* Nothing offered: nothing selected (NULL), the protocol is the owner's. */
static void test_alpn_none(void **state) {
    (void)state;
    run r;
    run_init(&r, E.port, NULL, NULL);
    run_go(&r);
    assert_false(r.failed);
    assert_true(r.opened);
    assert_string_equal(r.alpn, "-");
}

/* A malformed list is refused at open, nothing to close. */
static void test_alpn_malformed(void **state) {
    (void)state;
    run r;
    run_init(&r, E.port, NULL, "h2,,http/1.1");
    assert_int_equal(net_conn_open(&r.cfg, &r, &r.c), UV_EINVAL);
    assert_null(r.c);
    assert_int_equal(net_tls_alpn_valid("h2,,http/1.1"), 0);
    assert_int_equal(net_tls_alpn_valid("h2,http/1.1"), 1);
    uv_close((uv_handle_t *)&r.guard, NULL);
    uv_run(&r.loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&r.loop), 0);
    net_tls_client_free(r.tls);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alpn_h2),
        cmocka_unit_test(test_alpn_http11),
        cmocka_unit_test(test_alpn_none),
        cmocka_unit_test(test_alpn_malformed),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
