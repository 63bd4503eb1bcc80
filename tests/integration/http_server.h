/* http_server.h - HTTP servers for the integration tests: a private nginx on
 * a free loopback port (generated config in a temp dir, access log that
 * names each request's connection), and an in-process fake server (a thread
 * with blocking sockets and poll) for the edge cases nginx will not produce.
 * Test code only. */
#ifndef LUAMECH_TEST_HTTP_SERVER_H
#define LUAMECH_TEST_HTTP_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

/* Static files nginx serves (DIR/www). */
#define TEST_NGINX_SMALL "hello static\n"      /* /small.txt */
#define TEST_NGINX_LARGE_SIZE (4u << 20)       /* /large.bin, bytes from test_large_byte */
/* Other locations: /hello -> 200 "hello" (+ X-Luamech: yes), /missing -> 404,
 * /echo (needs nginx's echo module) -> "<method> <X-Test>|<body>". */

typedef struct test_nginx {
    pid_t pid;
    int port;
    int has_echo;          /* the echo module was loaded (/echo works) */
    char dir[128];
} test_nginx;

unsigned char test_large_byte(size_t i);
/* Start nginx (1 worker) on a free port; waits until it accepts. 0 or -1. */
int test_nginx_start(test_nginx *n);
/* Stop it (SIGTERM, wait) and remove its directory. Safe to call twice. */
void test_nginx_stop(test_nginx *n);
/* From the access log: requests whose line contains `substr` (NULL: all), and
 * the distinct connections that carried them. 0, or -1 when unreadable. */
int test_nginx_log(const test_nginx *n, const char *substr, int *requests, int *connections);
/* Wait (up to timeout_ms) until the access log has at least `requests` lines
 * matching substr; returns what test_nginx_log found last. */
int test_nginx_wait_log(const test_nginx *n, const char *substr, int requests, int timeout_ms,
                        int *got_requests, int *got_connections);

typedef enum fake_mode {
    FAKE_CHUNKED,          /* keep-alive, chunked body "hello world" with extensions and a trailer */
    FAKE_CLOSE_EACH,       /* "ok" with Content-Length, then closes without saying so */
    FAKE_SILENT,           /* reads requests, never answers */
    FAKE_CLOSE_MID_BODY,   /* Content-Length: 100, sends 7 bytes, closes */
    FAKE_EOF_BODY,         /* no Content-Length: the body ends when the connection closes */
    FAKE_GARBAGE,          /* answers bytes that are not HTTP */
    FAKE_CLOSE_NO_REPLY    /* reads the request and closes without a byte */
} fake_mode;

#define FAKE_EOF_BODY_TEXT "this body ends with the connection"
#define FAKE_CHUNKED_BODY "hello world"

typedef struct test_fake_http {
    pthread_t thread;
    int listen_fd;
    int port;
    fake_mode mode;
    atomic_int stop;
    atomic_int accepted;   /* connections accepted */
    atomic_int requests;   /* complete requests read */
    atomic_int open;       /* connections currently open */
} test_fake_http;

int test_fake_http_start(test_fake_http *f, fake_mode mode);
void test_fake_http_stop(test_fake_http *f);

#endif
