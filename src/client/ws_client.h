/* ws_client.h - a WebSocket client (RFC 6455) on a libuv loop: one
 * connection (net/conn, plaintext or TLS), the HTTP/1.1 Upgrade handshake
 * (proto/ws_proto.h builds it and checks the 101 and Sec-WebSocket-Accept),
 * messages sent as masked frames (queued, they leave at the end of the loop
 * turn), messages received into a bounded queue and handed to one waiting
 * receive at a time, pings answered, the close handshake in both
 * directions, fragments reassembled under max_message.  A server that
 * breaks the protocol (a bad frame, a masked frame, a length over the
 * limit, text that is not UTF-8) gets a close frame with 1002/1007/1009 and
 * the connection is dropped; the failure is reported once, to the waiting
 * receive or to the next one.  Never touches Lua; no reconnect, no
 * extensions (permessage-deflate is not offered). */
#ifndef LUAMECH_WS_CLIENT_H
#define LUAMECH_WS_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "net/tls.h"
#include "proto/ws_proto.h"
#include "client/client_status.h"

/* Statuses beyond libuv's (UV_ETIMEDOUT, UV_ECANCELED, UV_EOF, ...). */
#define WS_EHANDSHAKE (-35001)  /* the Upgrade was refused or its response is wrong */
#define WS_EPROTO     (-35002)  /* the server broke RFC 6455 (see the message) */
#define WS_ECLOSED    (-35003)  /* the connection is closed (close handshake, or ended) */
#define WS_EQUEUE     (-35004)  /* messages arrived faster than they were received: over max_queue */
#define WS_ESTATE     (-35005)  /* not open (connecting, closing) */
#define WS_EWFULL     (-35006)  /* WS_WQUEUE_MAX bytes wait for the socket: the server does not read */
#define WS_WQUEUE_MAX (4u << 20) /* bytes queued for the server past which sends are refused, pongs skipped */

typedef struct ws_client_opts {
    uint64_t timeout_ns;          /* each receive by default, and close's wait; 0 = none */
    uint64_t connect_timeout_ns;  /* connect + TLS + Upgrade; 0 = use timeout_ns */
    uint64_t max_message;         /* bytes of one received message (a frame, or reassembled) */
    uint64_t max_queue;           /* bytes of received messages waiting for a receive */
    const char *protocols;        /* Sec-WebSocket-Protocol offered ("a, b"); NULL: none (copied) */
    const ws_header *headers;     /* extra handshake headers (copied) */
    size_t nheaders;
    const net_tls_opts *tls;      /* wss:// settings (server_name NULL: the host); read by new only */
} ws_client_opts;

#define WS_MAX_MESSAGE_DEFAULT ((uint64_t)1 << 20)
#define WS_MAX_QUEUE_DEFAULT ((size_t)4 << 20)

void ws_client_opts_default(ws_client_opts *o);   /* 10 s, 1 MiB, 4 MiB */

typedef struct ws_client ws_client;
typedef struct ws_recv ws_recv;

/* A received message (status 0: opcode WS_OP_TEXT or WS_OP_BINARY, data
 * valid only during the call), or a failure: UV_ETIMEDOUT (the wait only:
 * the connection stays), WS_ECLOSED (close_code, reason: the server's close,
 * or 1006 when the connection ended without one), WS_EPROTO, WS_EQUEUE,
 * UV_ECANCELED; errmsg says why. */
typedef void (*ws_recv_cb)(ws_recv *r, int status, int opcode, const char *data, size_t len,
                           const char *errmsg);

struct ws_recv {
    ws_recv_cb on_done;
    void *data;
    uint64_t done_ns;             /* set by the client: when the message's bytes were read (0: now) */
};

/* status 0: open (101 checked); else why.  Also close's callback: the
 * server's close code (or 1006) and reason. */
typedef void (*ws_connect_cb)(void *data, int status, const char *errmsg);
typedef void (*ws_close_cb)(void *data, int status, int code, const char *reason, size_t reason_len);

/* Parse url (ws:// or wss://: opts->tls must be set for wss://), resolve
 * its host (blocking) and create the client; nothing is connected yet.
 * 0, or -1 with a message in err. */
int ws_client_new(uv_loop_t *loop, const char *url, const ws_client_opts *opts, ws_client **out,
                  char *err, size_t err_len);
/* Connect, TLS, Upgrade; cb fires once, from the loop. */
void ws_client_connect(ws_client *c, ws_connect_cb cb, void *data);
/* Queue one message (WS_OP_TEXT or WS_OP_BINARY; WS_OP_PING too); 0, or
 * WS_ESTATE / WS_ECLOSED / WS_EWFULL / UV_ENOMEM (nothing queued). */
int ws_client_send(ws_client *c, int opcode, const char *p, size_t len);
/* Wait for the next message (one receive at a time: a second one fails
 * with WS_ESTATE at once); a queued message or a failure already known
 * completes it before this returns.  timeout_ns 0: none. */
void ws_client_receive(ws_client *c, ws_recv *r, uint64_t timeout_ns);
/* Start the close handshake (code 1000 when 0; reason up to 123 bytes):
 * cb fires once with the server's close code and reason, or with a status
 * when it did not answer within the timeout (then the connection is
 * dropped).  A connection the server closed already reports that close
 * once the server has ended the TCP connection (our echo of its close has
 * left) or the linger timed out; a dead one at once.  A pending receive
 * fails with WS_ECLOSED. */
void ws_client_close(ws_client *c, int code, const char *reason, size_t reason_len, ws_close_cb cb,
                     void *data);
/* Drop everything now: pending callbacks fire with UV_ECANCELED before
 * this returns; freed once libuv has closed its handles.  Safe from inside
 * a callback. */
void ws_client_free(ws_client *c);

int ws_client_busy(const ws_client *c);           /* a receive, connect or close is waiting */
const char *ws_client_url(const ws_client *c);
const char *ws_client_protocol(const ws_client *c); /* the subprotocol the server chose, or "" */
/* The close seen so far: 0 while open, else its code (1006: dropped) and reason. */
int ws_client_close_code(const ws_client *c, const char **reason);
const char *ws_client_strerror(int status);      /* the detail of a status */
/* A status in the clients' one space (client_status.h). */
client_status ws_client_status(int status);
/* Why the connection ended ("" while open): the message a receive got or
 * gets next. */
const char *ws_client_error(const ws_client *c);

#endif
