/* tls.h - the TLS transport under net/conn.c: OpenSSL on memory BIOs, so the
 * libuv loop moves every byte and nothing blocks.  A net_tls_client holds one
 * client's settings (an SSL_CTX: verification against the system store or
 * ca_file, or none with insecure; client certificate; minimum version; ALPN)
 * and the last session, offered again on the next connection (resumption).
 * A net_tls is one connection's state: an SSL on a BIO of ours that reads
 * ciphertext from the space net_tls_rx_space handed to the socket and
 * appends what OpenSSL writes to the connection's output buffer (no copy
 * through a memory BIO). */
#ifndef LUAMECH_NET_TLS_H
#define LUAMECH_NET_TLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct net_tls_client net_tls_client;
typedef struct net_tls net_tls;

/* A growable byte buffer (net/conn.c's; realloc'd, freed by its owner). */
typedef struct net_buf {
    char *p;
    size_t len;
    size_t cap;
} net_buf;

typedef struct net_tls_opts {
    const char *server_name;  /* SNI and the name verified; NULL: none */
    const char *ca_file;      /* PEM bundle; NULL: the system store */
    const char *cert_file;    /* client certificate chain (PEM); NULL: none */
    const char *key_file;     /* its key (PEM); NULL: in cert_file */
    /* ALPN: the protocol ids offered, in order of preference, separated by
     * commas ("h2,http/1.1"; each 1..255 bytes, no empty id); NULL: no ALPN
     * extension.  A connection may offer another list (net_tls_set_alpn,
     * net_conn_cfg.alpn); what the server selected: net_tls_alpn. */
    const char *alpn;
    int insecure;             /* 1: no verification at all */
    int min_version;          /* 12 (default) or 13 */
    /* Called after each completed handshake (from the loop): its duration
     * from the TCP connection on, and 1 when a session was resumed. */
    void (*on_handshake)(void *arg, uint64_t ns, int resumed);
    void *on_handshake_arg;
} net_tls_opts;

typedef struct net_tls_stats {
    uint64_t handshakes;      /* completed */
    uint64_t resumed;         /* of which resumed a session */
} net_tls_stats;

/* Settings -> client; -1 with a message naming the bad option or file. */
int net_tls_client_new(const net_tls_opts *o, net_tls_client **out, char *err, size_t err_len);
void net_tls_client_free(net_tls_client *t);
void net_tls_client_stats(const net_tls_client *t, net_tls_stats *s);

/* ---- one connection (for net/conn.c) ---- */
/* out: where ciphertext to send is appended (it must outlive the net_tls);
 * 0 or UV_ENOMEM. */
int net_tls_new(net_tls_client *tc, net_buf *out, net_tls **t);
void net_tls_free(net_tls *t);                                /* NULL ok */
/* Statuses: 0, NET_ETLS (msg says why), UV_EOF (close_notify), UV_ENOMEM. */
int net_tls_start(net_tls *t, const char **msg);              /* first handshake flight */
void net_tls_rx_space(net_tls *t, char **p, size_t *n);       /* where the socket reads into */
int net_tls_rx(net_tls *t, size_t n, const char **msg);       /* n bytes arrived there */
int net_tls_established(const net_tls *t);
/* 0 when everything received so far has been read (a net_tls_read now
 * would only say "none yet"). */
int net_tls_more(const net_tls *t);
/* Decrypted payload into dst (*got 0: none yet). */
int net_tls_read(net_tls *t, char *dst, size_t cap, size_t *got, const char **msg);
/* Encrypt payload (*took: bytes taken), appended to the output buffer. */
int net_tls_write(net_tls *t, const char *p, size_t n, size_t *took, const char **msg);
uint64_t net_tls_handshake_ns(const net_tls *t);
int net_tls_resumed(const net_tls *t);
/* ALPN of one connection.  net_tls_set_alpn (before net_tls_start) offers
 * `list` ("h2,http/1.1", as net_tls_opts.alpn) instead of its client's;
 * 0, UV_EINVAL (malformed list) or UV_ENOMEM.  net_tls_alpn_valid: 1 when
 * list is well formed.  net_tls_alpn: once established, the id the server
 * selected ("h2"), NUL-terminated and valid while t lives; NULL when none
 * was offered, the server selected none, or not established yet. */
int net_tls_set_alpn(net_tls *t, const char *list);
int net_tls_alpn_valid(const char *list);
const char *net_tls_alpn(const net_tls *t);
/* 1 once the peer's close_notify was read (a clean end of the stream). */
int net_tls_peer_closed(const net_tls *t);

#endif
