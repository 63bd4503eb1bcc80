/* redis_server.h - test helpers: start redis-server on a free (or a given)
 * loopback port, and read its own counters (INFO commandstats) over a
 * blocking socket.  Stop it with test_server_stop (servers.h).  Test code
 * only. */
#ifndef LUAMECH_TEST_REDIS_SERVER_H
#define LUAMECH_TEST_REDIS_SERVER_H

#include <stdint.h>
#include "servers.h"

/* Start redis-server on a free 127.0.0.1 port (no persistence, output to
 * /dev/null), extra args may be NULL; waits until it answers.  0 or -1. */
int test_redis_start(test_server *s, const char *const *extra_args);
/* The same on a given port (e.g. to restart a server where it was). */
int test_redis_start_port(test_server *s, int port, const char *const *extra_args);
/* Block until redis answers PING on 127.0.0.1:port (PONG or an auth error). */
int test_redis_wait(int port, int timeout_ms);
/* "calls" of cmdstat_<cmd> (lowercase) from INFO commandstats: 0 when the
 * command was never called, -1 on error.  password may be NULL. */
int64_t test_redis_cmdstat(int port, const char *password, const char *cmd);

#endif
