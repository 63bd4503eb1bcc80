/* mc_client.h - memcached client on a libuv loop.
 *
 * A client is a list of servers (one TCP connection each) plus the key
 * distribution libmemcached would use for the same list (ketama consistent hashing
 * by default).  Requests are caller-allocated (libuv style) and queued FIFO per
 * connection, so many callers may pipeline on one client.  Every request's
 * on_done fires exactly once: with the server's reply, or with a negative
 * status (connection error, timeout, server down, cancelled).
 *
 * The client never touches Lua and never blocks; it allocates only when a
 * connection's buffers must grow (a larger value than seen before).  The
 * bytes queued in one loop turn leave in one write per connection.  Text and
 * meta commands may be mixed on a connection: the replies are matched by
 * order, and each request says which kind of reply it expects.
 * mc_ring.c parses the server list and maps keys to servers as libmemcached
 * would. */
#ifndef LUAMECH_MC_CLIENT_H
#define LUAMECH_MC_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>
#include "proto/mc_proto.h"
#include "net/tls.h"
#include "client/mc_ring.h"   /* mc_dist */
#include "client/req_fifo.h"
#include "client/client_status.h"

#define MC_MAX_SERVERS 64

/* Status codes beyond libuv's negative errno-style codes. */
#define MC_EDOWN   (-30001)  /* server marked down, reconnect backoff not elapsed */
#define MC_EPROTO  (-30002)  /* unparseable or unsolicited reply; connection was reset */


typedef struct mc_client_opts {
    uint64_t timeout_ns;          /* per request, from send to reply; 0 = none */
    uint64_t connect_timeout_ns;  /* 0 = use timeout_ns */
    uint64_t backoff_min_ns;      /* first reconnect delay after a failure */
    uint64_t backoff_max_ns;      /* cap of the doubling backoff */
    mc_dist distribution;
    const net_tls_opts *tls;      /* NULL: plaintext; server_name NULL: each server's host
                                     (read by mc_client_new only) */
} mc_client_opts;

void mc_client_opts_default(mc_client_opts *o);  /* 5 s, 100 ms .. 5 s, ketama */

typedef struct mc_client mc_client;
typedef struct mc_req mc_req;

/* A VALUE item (text) or a VA reply (meta).  For a meta request that answers
 * several commands (mc_client_send_meta with nreplies > 1) also every reply
 * but the last, whatever its kind (EN, an error, ...: item->kind says). */
typedef void (*mc_value_cb)(mc_req *req, const mc_reply *item);
/* status == 0: `final` is the terminal reply (END, STORED, NUMBER, ...).
 * status < 0: no reply; `final` is NULL. */
typedef void (*mc_done_cb)(mc_req *req, int status, const mc_reply *final);
typedef client_connect_cb mc_connect_cb;

struct mc_req {
    client_req base;              /* first: the clock (set base.start_ns before
                                     mc_client_send; base.done_ns is the reply's read) */
    /* set by the caller before mc_client_send */
    mc_value_cb on_value;         /* called for each VALUE item; may be NULL */
    mc_done_cb on_done;           /* required */
    void *data;                   /* caller's */
    /* private to the client */
    uint32_t server;
    int status;                   /* of a failed request, until its on_done */
    uint32_t left;                /* replies still owed to it */
    int meta;                     /* sent by mc_client_send_meta: meta replies only */
};

/* Parse `servers` ("host:port", "h1:p1,h2:p2", optional ":port", default port
 * 11211) and create a client.  Nothing is connected yet.  Returns 0, or -1
 * with a message in err. */
int mc_client_new(uv_loop_t *loop, const char *servers,
                  const mc_client_opts *opts, mc_client **out,
                  char *err, size_t err_len);

/* Connect every server that is not connected; cb fires once, when all are
 * connected (status 0) or at the first failure (status < 0, errmsg names the
 * server, then the kind and the detail: "127.0.0.1:11211: server down:
 * connection refused", client_describe). */
void mc_client_connect(mc_client *c, mc_connect_cb cb, void *data);

/* Cancel every pending request (on_done with UV_ECANCELED), close the
 * connections and free the client once libuv has closed its handles.  No
 * callback fires after this returns except those cancellations, which fire
 * before it returns. */
void mc_client_close(mc_client *c);

size_t mc_client_nservers(const mc_client *c);
/* The message of that failure (a TLS verification error, ...); NULL when not down. */
const char *mc_client_down_msg(const mc_client *c, uint32_t idx);
/* TLS handshakes completed across the servers, and how many resumed a session. */
void mc_client_tls_stats(const mc_client *c, uint64_t *handshakes, uint64_t *resumed);
/* While server idx is down: the status of the failure that marked it down
 * (what MC_EDOWN is the consequence of); 0 when it is not down. */
int mc_client_down_cause(const mc_client *c, uint32_t idx);
const char *mc_client_server_name(const mc_client *c, uint32_t idx); /* "host:port" */
/* Index of the server that owns key, the way libmemcached would choose it. */
uint32_t mc_client_server_for_key(const mc_client *c, const char *key, size_t len);

/* Queue one request on server `server`: `line` is a full command line ending
 * in \r\n; when `value` is non-NULL, value_len bytes plus "\r\n" follow it.
 * Both are copied before this returns.  If the server is down and its backoff
 * has not elapsed, on_done fires with MC_EDOWN before this returns.  Expect
 * on_value/on_done later, from the loop. */
void mc_client_send(mc_client *c, uint32_t server, mc_req *req,
                    const char *line, size_t line_len,
                    const char *value, size_t value_len);

/* Like mc_client_send for `line` holding nreplies (>= 1) meta commands (mg,
 * ...), each answered by one meta reply (or an error line): on_value fires
 * for each VA and for every reply but the last, on_done with the last.  A
 * text reply (VALUE, END, STORED, ...) to it, or a meta reply to a request
 * of mc_client_send, is a protocol error (MC_EPROTO): the connection is reset
 * and every pending request fails. */
void mc_client_send_meta(mc_client *c, uint32_t server, mc_req *req, uint32_t nreplies,
                         const char *line, size_t line_len, const char *value,
                         size_t value_len);

/* Pending requests across all servers (for tests and shutdown). */
size_t mc_client_pending(const mc_client *c);
/* The detail of a status: "connection refused", "timeout", ... (the message
 * a user sees is client_describe(mc_client_status(st), this)). */
const char *mc_client_strerror(int status);
/* A status in the clients' one space (client_status.h). */
client_status mc_client_status(int status);

#endif
