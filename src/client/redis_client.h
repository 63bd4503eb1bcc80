/* redis_client.h - a redis client on a libuv loop: one connection (TCP or
 * unix socket) carried by libuv, proto/redis_proto.h encoding commands and
 * reading replies (with reply limits); caller-allocated requests
 * pipelined FIFO, request and connect timeouts, AUTH/SELECT at connect,
 * reconnect with doubling backoff; every on_done fires exactly once.  A reply
 * nobody asked for, a malformed one or one over the limits is a protocol error
 * of the connection (reset, reconnect).  TLS when opts.tls is set (not over
 * a unix socket).  Never touches Lua; no pub/sub, MONITOR, nor retries; a
 * redis Cluster is client/redis_cluster.h's, one of these per node. */
#ifndef LUAMECH_REDIS_CLIENT_H
#define LUAMECH_REDIS_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <hiredis/hiredis.h>
#include "proto/redis_proto.h"
#include "net/tls.h"
#include "client/req_fifo.h"
#include <uv.h>

#include "client/client_status.h"

/* Status codes beyond libuv's (UV_ETIMEDOUT, UV_ECANCELED, UV_ECONNREFUSED,
 * UV_EOF, ...). */
#define REDIS_CLIENT_EDOWN  (-31001)  /* server marked down, reconnect backoff not elapsed */
#define REDIS_CLIENT_EIO    (-31002)  /* I/O error (see the message) */
#define REDIS_CLIENT_ESETUP (-31003)  /* AUTH or SELECT refused at connect */
#define REDIS_CLIENT_EPROTO (-31004)  /* unparseable reply, reply nobody asked for, or a
                                         reply over the limits; the connection was reset */

typedef struct redis_client_opts {
    uint64_t timeout_ns;          /* per request, from send to reply; 0 = none */
    uint64_t connect_timeout_ns;  /* connect + AUTH/SELECT; 0 = use timeout_ns */
    uint64_t backoff_min_ns;      /* first reconnect delay after a failure */
    uint64_t backoff_max_ns;      /* cap of the doubling backoff */
    const char *password;         /* AUTH at connect; NULL = none (copied) */
    int db;                       /* SELECT at connect when > 0 */
    redis_limits limits;          /* reply size limits (redis_limits_default) */
    const net_tls_opts *tls;      /* NULL: plaintext; server_name NULL: the host
                                     (read by redis_client_new only) */
} redis_client_opts;

void redis_client_opts_default(redis_client_opts *o);  /* 5 s, 100 ms .. 5 s, default limits */

typedef struct redis_client redis_client;
typedef struct redis_req redis_req;

/* status == 0: `reply` is the server's reply (an error reply included); it
 * is valid only during the call, and its strings (str) may point into the
 * read buffer, not NUL-terminated: use len.  status < 0: `reply` is NULL and `errmsg`
 * says why (valid only during the call). */
typedef void (*redis_done_cb)(redis_req *req, int status, const redisReply *reply,
                              const char *errmsg);
typedef client_connect_cb redis_connect_cb;

struct redis_req {
    client_req base;              /* first: the clock (set base.start_ns before
                                     redis_client_send; base.done_ns is the reply's read) */
    /* set by the caller before redis_client_send */
    redis_done_cb on_done;        /* required */
    void *data;                   /* caller's */
    /* the client's own */
    uint64_t wend;                /* its last byte's position in the connection's
                                     stream (net_conn_committed); in the held
                                     buffer's until the connection is ready
                                     (redis_client_send_encoded: set by the
                                     caller, its end in the caller's buffer) */
};

/* Parse `address` ("host:port", "host" (port 6379), "[v6]:port" or a unix
 * socket path starting with '/') and create a client.  Nothing is connected
 * yet.  Returns 0, or -1 with a message in err. */
int redis_client_new(uv_loop_t *loop, const char *address, const redis_client_opts *opts,
                     redis_client **out, char *err, size_t err_len);

/* Connect (and AUTH/SELECT) unless ready; cb fires once: status 0 when ready,
 * or < 0 with the reason.  It may fire before this returns.  One connect at a
 * time: a second call before the first's cb replaces that cb. */
void redis_client_connect(redis_client *c, redis_connect_cb cb, void *data);

/* 0 for the commands whose replies are not one per request (SUBSCRIBE and
 * the other pub/sub commands, MONITOR): redis_client_send refuses them. */
int redis_client_command_ok(const char *name, size_t len);

/* Queue one command (argv[0] is its name; arguments are binary-safe and
 * copied before this returns).  Connects if needed.  If the server is down and
 * its backoff has not elapsed, on_done fires with REDIS_CLIENT_EDOWN before
 * this returns (UV_EINVAL for a refused command); otherwise expect it later,
 * from the loop. */
void redis_client_send(redis_client *c, redis_req *req, int argc, const char **argv,
                       const size_t *argvlen);

/* Queue n commands already encoded, back to back in buf[0..len) (RESP, as
 * proto/redis_proto.h's put_array/put_arg write them; copied before this
 * returns), in one copy: a pipeline.  The caller has checked each command's
 * name with redis_client_command_ok and sets reqs[i]->wend to the offset in
 * buf where command i ends (the client makes it its stream position).  The
 * requests' base.start_ns as for redis_client_send.  Connects if needed; a
 * failure before anything is queued (server down, closed, out of memory)
 * fails every request, in order, before this returns. */
void redis_client_send_encoded(redis_client *c, redis_req *const *reqs, int n, const char *buf,
                               size_t len);
/* Room for len bytes of commands at the end of the connection's write
 * queue, for a caller that encodes in place and then passes this pointer as
 * redis_client_send_encoded's buf (no copy); valid until the next call into
 * the client.  NULL when not connected and ready (or out of memory): encode
 * elsewhere. */
char *redis_client_encode_room(redis_client *c, size_t len);
/* Cancel every pending request (on_done with UV_ECANCELED, before this
 * returns), drop the connection and free the client once libuv has closed
 * its handles.  Safe from inside any callback of this client. */
void redis_client_close(redis_client *c);

const char *redis_client_name(const redis_client *c); /* "host:port" or the path */
size_t redis_client_pending(const redis_client *c);
const char *redis_client_strerror(int status);   /* the detail of a status */
/* A status in the clients' one space (client_status.h). */
client_status redis_client_status(int status);
/* TLS handshakes completed, and how many resumed a session. */
void redis_client_tls_stats(const redis_client *c, uint64_t *handshakes, uint64_t *resumed);

#endif
