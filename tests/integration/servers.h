/* servers.h - test helpers: start real servers (memcached, ...) on free
 * loopback ports, stop them, and read their own counters. Blocking, for tests
 * only. */
#ifndef LUAMECH_TEST_SERVERS_H
#define LUAMECH_TEST_SERVERS_H

#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

typedef struct test_server {
    pid_t pid;
    int port;
} test_server;

/* A TCP port on 127.0.0.1 that was free a moment ago. */
int test_free_port(void);
/* Start memcached on a free port (extra args may be NULL); waits until it
 * accepts connections. Returns 0 or -1. */
int test_memcached_start(test_server *s, const char *const *extra_args);
/* SIGTERM + wait. Safe to call twice. */
void test_server_stop(test_server *s);
/* Block until something accepts on 127.0.0.1:port, up to timeout_ms. */
int test_wait_port(int port, int timeout_ms);
/* Read one counter from memcached's "stats" (e.g. "cmd_get"); -1 on error. */
int64_t test_memcached_stat(int port, const char *name);
/* Send raw text to 127.0.0.1:port and read the reply into buf (NUL-terminated)
 * until `until` is seen or timeout. Returns bytes read or -1. */
int test_raw_request(int port, const char *req, char *buf, size_t cap, const char *until);

/* The tests' I/O backend for loop: LUAMECH_IO ("auto" when unset, as a run
 * without --io; .ci/run sets epoll, then uring for `ctest -L net`) handed to
 * net_io_use, as `luamech run` hands its plan's value.  Aborts the test
 * program on a bad name.  Returns the mode set. */
int test_io_use(uv_loop_t *loop);

#endif
