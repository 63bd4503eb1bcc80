/* test_net_conn.c - integration tests for src/net/conn.c's transport API
 * itself, under no protocol client: ALPN offered and read back against a
 * real nginx (`listen ... ssl http2`, certificates made by
 * tests/scenarios/fixtures/tls_mkpki.sh), the h2 connection answering an
 * HTTP/2 preface with a SETTINGS frame and the http/1.1 one an HTTP/1.1
 * response, and an open connection handed to another owner
 * (net_conn_hand_over); TLS started on an open connection (net_conn_start_tls) after a
 * plaintext exchange, against starttls_server.py (Python's ssl module),
 * whose log counts the TLS exchanges it served; and the I/O backend taken
 * from the value set on the loop, not from the environment.  Every loop
 * runs the backend LUAMECH_IO names (test_io_use).  The loop is driven with
 * uv_run until the exchange is done, under a guard timer. */
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
#include "net/uring.h"
#include "servers.h"

#ifndef LUAMECH_SRC
#error "LUAMECH_SRC (the source tree) must be defined by the build"
#endif

/* ---- servers -------------------------------------------------------- */

typedef struct env {
    char dir[64];               /* PKI, nginx's files */
    pid_t nginx;
    int port;                   /* nginx: ssl http2 */
    pid_t py;
    int py_port;                /* starttls_server.py */
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

static int starttls_start(void) {
    char py[512], cert[128], key[128], log[128], port[16];
    snprintf(py, sizeof py, "%s/tests/integration/starttls_server.py", LUAMECH_SRC);
    snprintf(cert, sizeof cert, "%s/server.pem", E.dir);
    snprintf(key, sizeof key, "%s/server.key", E.dir);
    snprintf(log, sizeof log, "%s/starttls.log", E.dir);
    E.py_port = test_free_port();
    snprintf(port, sizeof port, "%d", E.py_port);
    char *argv[] = {"python3", py, port, cert, key, log, NULL};
    E.py = spawn(argv);
    return test_wait_port(E.py_port, 10000);
}

/* Lines of the Python server's log that start with prefix. */
static int starttls_log_count(const char *prefix) {
    char path[128], line[256];
    snprintf(path, sizeof path, "%s/starttls.log", E.dir);
    FILE *f = fopen(path, "r");
    int n = 0;
    if (f == NULL) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, prefix, strlen(prefix)) == 0) n++;
    fclose(f);
    return n;
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
    return starttls_start();
}

static int group_teardown(void **state) {
    (void)state;
    stop(&E.nginx);
    stop(&E.py);
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
    /* STARTTLS runs (st_cbs) */
    net_tls_client *st_tls;     /* for net_conn_start_tls */
    const char *st_name;        /* its server_name argument */
    int st_at_open;             /* start TLS from the first on_open, before any byte */
    int st_step;                /* 0 HELLO sent, 1 STARTTLS sent, 2 handshake, 3 PING sent */
    int st_rc, st_again_rc;     /* net_conn_start_tls, then once more on TLS */
    int st_open_during;         /* net_conn_is_open right after net_conn_start_tls */
    char st_alpn_plain[64];     /* net_conn_alpn before TLS */
    int nopen;
    /* hand-over runs (ho_cbs: the first owner's) */
    net_conn_cfg cfg2;          /* the new owner's settings (run_cbs) */
    int ho_einval, ho_rc, ho_busy;
    void *open_owner;           /* net_conn_open's owner; NULL: the run */
    int ho_given;
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

static const net_conn_cbs run_cbs = {.on_open = run_on_open, .on_data = run_on_data, .on_fail = run_on_fail, .on_closed = run_on_closed};

static void run_on_guard(uv_timer_t *t) {
    run *r = t->data;
    r->timed_out = 1;
    if (r->c && !r->closed) net_conn_close(r->c);
}

/* ---- STARTTLS: plaintext lines, then TLS on the same connection ------- */

static void st_start(run *r, net_conn *c) {
    const char *a = net_conn_alpn(c);
    snprintf(r->st_alpn_plain, sizeof r->st_alpn_plain, "%s", a ? a : "-");
    r->st_rc = net_conn_start_tls(c, r->st_tls, r->st_name);
    r->st_open_during = net_conn_is_open(c);
    r->st_step = 2;
    if (r->st_rc != 0) net_conn_close(c);
}

static void st_on_open(net_conn *c, void *owner) {
    run *r = owner;
    r->nopen++;
    if (r->nopen == 1 && r->st_at_open) {
        st_start(r, c);
        return;
    }
    if (r->nopen == 1) {
        assert_int_equal(net_conn_write(c, "HELLO\n", 6), 0);
        return;
    }
    const char *a = net_conn_alpn(c);          /* TLS established */
    snprintf(r->alpn, sizeof r->alpn, "%s", a ? a : "-");
    r->st_again_rc = net_conn_start_tls(c, r->st_tls, NULL);
    r->st_step = 3;
    assert_int_equal(net_conn_write(c, "PING\n", 5), 0);
}

/* One line at a time: HI -> STARTTLS, GO -> TLS, PONG -> done. */
static size_t st_on_data(net_conn *c, void *owner, const char *p, size_t n) {
    run *r = owner;
    const char *nl = memchr(p, '\n', n);
    if (nl == NULL) return 0;
    size_t len = (size_t)(nl - p) + 1;
    if (r->st_step == 0 && len == 3 && memcmp(p, "HI\n", 3) == 0) {
        r->st_step = 1;
        assert_int_equal(net_conn_write(c, "STARTTLS\n", 9), 0);
    } else if (r->st_step == 1 && len == 3 && memcmp(p, "GO\n", 3) == 0) {
        st_start(r, c);
    } else {
        snprintf(r->got, sizeof r->got, "%.*s", (int)len, p);
        net_conn_close(c);
    }
    return len;
}

static const net_conn_cbs st_cbs = {.on_open = st_on_open, .on_data = st_on_data, .on_fail = run_on_fail, .on_closed = run_on_closed};

/* ---- net_conn_hand_over: the first owner gives the open connection away -- */

typedef struct ho_first {      /* the first owner: another object than the run */
    run *r;
    int calls;                  /* callbacks it got after handing over */
} ho_first;

static void ho_on_open(net_conn *c, void *owner) {
    ho_first *f = owner;
    run *r = f->r;
    net_conn_cfg bad = r->cfg2;
    bad.cbs = NULL;
    r->ho_einval = net_conn_hand_over(c, &bad, r);
    r->ho_rc = net_conn_hand_over(c, &r->cfg2, r);
    r->ho_given = 1;
    run_on_open(c, r);                         /* the new owner's request */
    r->ho_busy = net_conn_hand_over(c, &r->cfg2, r);   /* bytes queued now */
}

static size_t ho_on_data(net_conn *c, void *owner, const char *p, size_t n) {
    (void)c, (void)p;
    ((ho_first *)owner)->calls++;
    return n;
}

static void ho_on_fail(void *owner, int status, net_phase ph, const char *msg) {
    (void)status, (void)ph, (void)msg;
    ((ho_first *)owner)->calls++;
}

static void ho_on_closed(void *owner) {
    ho_first *f = owner;
    f->calls++;
    f->r->closed = 1;                          /* ends run_go; the test then fails */
    uv_stop(&f->r->loop);
}

static const net_conn_cbs ho_cbs = {.on_open = ho_on_open, .on_data = ho_on_data, .on_fail = ho_on_fail, .on_closed = ho_on_closed};

/* client_alpn: the TLS client's list; conn_alpn: the connection's (cfg). */
static void run_init(run *r, int port, const char *client_alpn, const char *conn_alpn) {
    memset(r, 0, sizeof *r);
    assert_int_equal(uv_loop_init(&r->loop), 0);
    test_io_use(&r->loop);
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
    assert_int_equal(net_conn_open(&r->cfg, r->open_owner ? r->open_owner : r, &r->c), 0);
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

/* An open TLS connection (ALPN: http/1.1) handed to another owner from
 * the first owner's on_open: refused without callbacks (UV_EINVAL), taken
 * (0), refused once bytes are queued (UV_EBUSY); the new owner's request
 * goes out on the same connection, its response and the close reach the
 * new owner's callbacks only (run_on_closed ends the loop). */
static void test_hand_over(void **state) {
    (void)state;
    static const char req[] = "GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    run r;
    run_init(&r, E.port, "h2,http/1.1", "http/1.1");
    ho_first first = {&r, 0};
    r.open_owner = &first;
    r.cfg2 = r.cfg;
    r.cfg.cbs = &ho_cbs;
    r.send = req;
    r.send_len = sizeof req - 1;
    r.want = 12;
    run_go(&r);
    assert_false(r.failed);
    assert_true(r.ho_given);
    assert_int_equal(r.ho_einval, UV_EINVAL);
    assert_int_equal(r.ho_rc, 0);
    assert_int_equal(r.ho_busy, UV_EBUSY);
    assert_string_equal(r.alpn, "http/1.1");
    assert_memory_equal(r.got, "HTTP/1.1 200", 12);
    assert_int_equal(first.calls, 0);
    assert_true(r.closed);
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

/* A plaintext connection to starttls_server.py, its TLS client offering
 * ALPN x-line, verified against the test CA under name. */
static void st_init(run *r, const char *name, int at_open) {
    run_init(r, E.py_port, NULL, NULL);
    char ca[128], err[256];
    snprintf(ca, sizeof ca, "%s/ca.pem", E.dir);
    net_tls_opts o = {.server_name = "127.0.0.1", .ca_file = ca, .alpn = "x-line"};
    assert_int_equal(net_tls_client_new(&o, &r->st_tls, err, sizeof err), 0);
    r->cfg.tls = NULL;
    r->cfg.cbs = &st_cbs;
    r->st_name = name;
    r->st_at_open = at_open;
}

static void st_done(run *r) {
    net_tls_client_free(r->st_tls);
}

/* HELLO/HI in plaintext, STARTTLS/GO, then TLS on the same connection:
 * verified under the connection's own name (localhost, not the client's
 * 127.0.0.1), ALPN selected, PING/PONG encrypted; the server logged one
 * TLS exchange.  Before the change there was no way to start TLS on an
 * open connection (net_conn_start_tls did not exist). */
static void test_starttls(void **state) {
    (void)state;
    int before = starttls_log_count("tls ");
    run r;
    st_init(&r, "localhost", 0);
    run_go(&r);
    st_done(&r);
    assert_false(r.failed);
    assert_int_equal(r.st_rc, 0);
    assert_int_equal(r.st_open_during, 0);        /* writes wait for the handshake */
    assert_string_equal(r.st_alpn_plain, "-");    /* plaintext: no ALPN */
    assert_int_equal(r.nopen, 2);                 /* on_open again once TLS is up */
    assert_string_equal(r.alpn, "x-line");
    assert_int_equal(r.st_again_rc, UV_EINVAL);   /* TLS already */
    assert_string_equal(r.got, "PONG x-line\n");
    assert_int_equal(starttls_log_count("tls ") - before, 1);
}

/* TLS started from the first on_open, before any byte (the io_uring
 * backend has a recv in flight into the plaintext read buffer then). */
static void test_starttls_at_open(void **state) {
    (void)state;
    int before = starttls_log_count("tls ");
    run r;
    st_init(&r, NULL, 1);
    run_go(&r);
    st_done(&r);
    assert_false(r.failed);
    assert_int_equal(r.st_rc, 0);
    assert_string_equal(r.got, "PONG x-line\n");
    assert_int_equal(starttls_log_count("tls ") - before, 1);
}

/* The connection's name is verified: the certificate has no other.example
 * (the client's own 127.0.0.1 would have passed). */
static void test_starttls_wrong_name(void **state) {
    (void)state;
    run r;
    st_init(&r, "other.example", 0);
    run_go(&r);
    st_done(&r);
    assert_int_equal(r.st_rc, 0);
    assert_true(r.failed);
    assert_int_equal(r.fail_status, NET_ETLS);
    assert_non_null(strstr(r.fail_msg, "certificate verification failed"));
}

/* The backend is the value set on the loop: with LUAMECH_IO=uring in this
 * process's environment, a loop set to epoll runs no ring (before, net/
 * read LUAMECH_IO itself), and one set to uring runs one (when the kernel
 * has io_uring). */
static void test_io_backend_is_a_value(void **state) {
    (void)state;
    char why[160];
    int have_uring = net_io_probe(why, sizeof why) == 0;
    const char *old = getenv(NET_IO_ENV);
    char keep[32];
    snprintf(keep, sizeof keep, "%s", old ? old : "");
    setenv(NET_IO_ENV, "uring", 1);
    for (int m = NET_IO_URING; m <= NET_IO_EPOLL; m++) {
        run r;
        run_init(&r, E.port, NULL, NULL);
        assert_int_equal(net_io_use(&r.loop, (net_io_mode)m), 0);
        assert_int_equal(net_io_of(&r.loop), m);
        assert_int_equal(net_conn_open(&r.cfg, &r, &r.c), 0);
        int uring = net_conn_uring(r.c);
        assert_int_equal(uv_timer_start(&r.guard, run_on_guard, 10000, 0), 0);
        while (!r.closed) uv_run(&r.loop, UV_RUN_DEFAULT);
        uv_close((uv_handle_t *)&r.guard, NULL);
        uv_run(&r.loop, UV_RUN_DEFAULT);
        assert_int_equal(uv_loop_close(&r.loop), 0);
        net_tls_client_free(r.tls);
        assert_false(r.failed);
        assert_int_equal(uring, m == NET_IO_URING && have_uring);
    }
    assert_int_equal(net_io_use(&(uv_loop_t){0}, (net_io_mode)7), UV_EINVAL);
    if (old) setenv(NET_IO_ENV, keep, 1);
    else unsetenv(NET_IO_ENV);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alpn_h2),
        cmocka_unit_test(test_alpn_http11),
        cmocka_unit_test(test_alpn_none),
        cmocka_unit_test(test_hand_over),
        cmocka_unit_test(test_alpn_malformed),
        cmocka_unit_test(test_starttls),
        cmocka_unit_test(test_starttls_at_open),
        cmocka_unit_test(test_starttls_wrong_name),
        cmocka_unit_test(test_io_backend_is_a_value),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
