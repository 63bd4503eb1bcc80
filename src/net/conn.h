/* conn.h - one client connection on a libuv loop, shared by the memcached,
 * redis, HTTP/1.1, HTTP/2 (h2_session) and WebSocket clients: connect (TCP or
 * unix socket) with a timeout, a read buffer handed to the protocol as it
 * fills, a write queue flushed once per loop turn (everything queued in a
 * turn leaves in one write), close, and the failure cause (phase + status +
 * message).  A transport sits under the byte stream: plaintext, or TLS
 * (net/tls.h) from the connect when cfg->tls is set or from later on
 * (net_conn_start_tls: STARTTLS, an upgrade); ALPN offered per client or per
 * connection (cfg->alpn) and the selected protocol read back (net_conn_alpn).
 *
 * The owner (a client) keeps the protocol: request FIFO, parsing, request
 * deadlines, reconnect policy (net_backoff below).  A connection is one
 * attempt: after a failure or a close it is gone and the owner opens a new
 * one.  Callbacks fire from the loop, never from inside net_conn_open/_write.
 *
 * The I/O backend (net/uring.h): per loop, libuv's epoll stream or an
 * io_uring ring, by the mode the loop's owner set (net_io_use; `luamech run
 * --io` sets each worker's); the same calls and callbacks on both.
 * net_conn_open fails with the ring's status when the loop's mode is uring
 * and the ring cannot be set up. */
#ifndef LUAMECH_NET_CONN_H
#define LUAMECH_NET_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uv.h>

/* Statuses beyond libuv's. */
#define NET_ETLS (-33001)   /* TLS handshake, verification or record failure (see msg) */

/* Where a connection failed. */
typedef enum net_phase {
    NET_PH_CONNECT = 1,     /* TCP connect (UV_ETIMEDOUT: the connect timeout) */
    NET_PH_TLS,             /* TLS handshake (UV_ETIMEDOUT: the connect timeout) */
    NET_PH_WRITE,
    NET_PH_READ             /* UV_EOF: closed by the peer */
} net_phase;

typedef struct net_conn net_conn;
typedef struct net_tls_client net_tls_client;

typedef struct net_conn_cbs {
    /* Connected (and TLS established): queued bytes go out from now on.
     * Fires again when TLS started later (net_conn_start_tls) is established. */
    void (*on_open)(net_conn *c, void *owner);
    /* Bytes arrived: p/n is everything not consumed so far; return how many
     * were consumed (the rest stays, ahead of the next bytes).  May close. */
    size_t (*on_data)(net_conn *c, void *owner, const char *p, size_t n);
    /* The connection failed; it is already closing and fires nothing more
     * (except on_closed), and the owner must not touch it again.  msg says
     * why; valid only during the call. */
    void (*on_fail)(void *owner, int status, net_phase ph, const char *msg);
    /* Its libuv handles are closed and its memory freed (after a failure or
     * net_conn_close); the owner may count it down.  May be NULL. */
    void (*on_closed)(void *owner);
    /* What was queued was handed on (the socket took it, or a write of
     * it is in flight; after each flush and each completed write): an
     * owner holding bytes back while net_conn_wqueued was large may queue
     * more.  May be NULL. */
    void (*on_sent)(net_conn *c, void *owner);
} net_conn_cbs;

typedef struct net_conn_cfg {
    uv_loop_t *loop;
    const struct sockaddr_storage *addr;  /* TCP peer, or */
    const char *path;                     /* a unix socket path (no TLS) */
    uint64_t connect_timeout_ns;          /* connect + TLS handshake; 0 = none */
    size_t rbuf_init;                     /* read buffer size (it grows on demand) */
    net_tls_client *tls;                  /* NULL: plaintext */
    const net_conn_cbs *cbs;
    /* ALPN offered by this connection's TLS handshake, "h2,http/1.1"
     * (net/tls.h: ids by preference, comma-separated); NULL: the TLS
     * client's own list (net_tls_opts.alpn), if any.  Ignored without TLS. */
    const char *alpn;
} net_conn_cfg;

/* Start connecting.  Returns 0 with *out set, or a negative status (nothing
 * to close; UV_EINVAL: a malformed cfg->alpn).  cfg and cfg->tls must
 * outlive the connection. */
int net_conn_open(const net_conn_cfg *cfg, void *owner, net_conn **out);

/* Close now: no callback fires after this except on_closed.  Unsent bytes
 * are dropped.  Idempotent; safe from inside any of its callbacks. */
void net_conn_close(net_conn *c);
/* The same, after one attempt to hand what is queued to the socket (a
 * last frame such as HTTP/2's GOAWAY: it leaves when the socket takes it
 * at once, else it is dropped; never waits). */
void net_conn_close_flushed(net_conn *c);

/* Queue bytes; they leave at the end of this loop turn (or when the
 * connection opens), coalesced with everything else queued by then.
 * net_conn_wspace returns room for n bytes (NULL: out of memory) that
 * net_conn_wcommit then queues (any count up to n). */
int net_conn_write(net_conn *c, const void *p, size_t n);
char *net_conn_wspace(net_conn *c, size_t n);
void net_conn_wcommit(net_conn *c, size_t n);

/* Start TLS on an open connection (after plaintext was exchanged: STARTTLS,
 * an upgrade): the handshake with tc's settings, SNI and verification
 * against server_name (NULL: tc's own), the ALPN offer of cfg->alpn (else
 * tc's), bounded by cfg->connect_timeout_ns from now.  Call it when the
 * peer expects the ClientHello and nothing is queued (net_conn_wqueued 0;
 * typically from on_data, on the peer's go-ahead).  Bytes received and not
 * consumed stay, ahead of the decrypted ones.  While the handshake runs
 * net_conn_is_open is 0 and writes wait; once established on_open fires
 * again (net_conn_alpn is set from then on); a failure is on_fail with
 * NET_PH_TLS.  0, UV_EINVAL (not open, or TLS already), UV_EBUSY (bytes
 * queued) or UV_ENOMEM; nothing changed on failure.  tc must outlive c. */
int net_conn_start_tls(net_conn *c, net_tls_client *tc, const char *server_name);

/* Hand an open connection to another owner: from now on cfg->cbs fire
 * for `owner` (on_closed included: the old owner hears nothing more, not
 * even on_closed) and cfg replaces the settings given at open (cfg must
 * outlive c; its address, TLS and ALPN are not used again, the connection
 * is established).  For a connection whose ALPN chose another protocol than
 * its opener speaks (client/http_h2.c gives an "http/1.1" pick to the
 * HTTP/1.1 client).  Call it with nothing queued (typically from on_open).
 * 0, UV_EINVAL (not open, no callbacks) or UV_EBUSY (bytes queued);
 * nothing changed on failure. */
int net_conn_hand_over(net_conn *c, const net_conn_cfg *cfg, void *owner);

/* Make room for `need` unconsumed bytes (a large reply); 0 or UV_ENOMEM. */
int net_conn_rreserve(net_conn *c, size_t need);

int net_conn_is_open(const net_conn *c);       /* on_open fired, not failed or closed */
size_t net_conn_wqueued(const net_conn *c);    /* bytes not yet handed to the socket */
/* Payload bytes ever queued on this connection (a position in its stream),
 * and of those the ones that left the queue: sent, in a write in flight, or
 * encrypted for TLS.  A request whose last byte is at or below
 * net_conn_handed may have reached the peer; one above it cannot have. */
uint64_t net_conn_committed(const net_conn *c);
uint64_t net_conn_handed(const net_conn *c);
int net_conn_wbusy(const net_conn *c);         /* bytes queued or a write in flight */
uint64_t net_conn_sent(const net_conn *c);     /* payload bytes handed to the socket */
int net_conn_uring(const net_conn *c);         /* 1: its bytes move through the loop's io_uring ring */
/* TLS: handshake duration (0 when plaintext or not done) and whether the
 * session was resumed. */
uint64_t net_conn_tls_ns(const net_conn *c);
int net_conn_tls_resumed(const net_conn *c);
/* ALPN: the protocol id the server selected in the TLS handshake ("h2",
 * "http/1.1"), NUL-terminated, valid while c lives; NULL when plaintext,
 * when nothing was offered or the server selected nothing (the protocol is
 * then the owner's default), or before the handshake is done.  Set from
 * on_open on. */
const char *net_conn_alpn(const net_conn *c);
/* 1 when the end of c's stream is trustworthy: plaintext, or TLS whose peer
 * sent close_notify; 0 for TLS closed without it (a truncation attack looks
 * like that).  Valid in on_fail too. */
int net_conn_clean_eof(const net_conn *c);

/* Reconnect policy: after a failure, wait min_ns, then doubling up to max_ns;
 * a success resets it. */
typedef struct net_backoff {
    uint64_t delay_ns;      /* used last; 0 = none yet */
    uint64_t retry_at_ns;
} net_backoff;

void net_backoff_failed(net_backoff *b, uint64_t now_ns, uint64_t min_ns, uint64_t max_ns);
static inline void net_backoff_ok(net_backoff *b) { b->delay_ns = 0; }
static inline int net_backoff_waiting(const net_backoff *b, uint64_t now_ns) {
    return now_ns < b->retry_at_ns;
}

/* "connection refused", "timeout", "connection closed by server", ... */
const char *net_strerror(int status);

#endif
