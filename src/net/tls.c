/* tls.c - TLS client transport on an in-memory BIO of our own (see tls.h):
 * OpenSSL reads ciphertext straight from the connection's receive space
 * (where the socket read it) and appends what it writes straight to the
 * connection's output buffer, so it never touches a socket, never blocks,
 * and no byte is copied through an intermediate memory BIO.
 * Verification is on unless insecure: the peer chain against the system
 * store (or ca_file) and the host name (or IP address) given as server_name,
 * which is also sent as SNI when it is a name.  The last session a server
 * issued (TLS 1.2 session or TLS 1.3 ticket) is offered on the next
 * connection of the same client.  It does no renegotiation, no OCSP, no
 * server side. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "net/tls.h"
#include "net/conn.h"
#include "common/grow.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define NET_TLS_RX_SIZE (16 * 1024 + 512)

struct net_tls_client {
    SSL_CTX *ctx;
    BIO_METHOD *bio_meth;     /* tls_bio_*: per client (no global state) */
    char *server_name;
    int name_is_ip;
    int insecure;
    SSL_SESSION *session;     /* offered on the next connection; NULL: none */
    void (*on_handshake)(void *arg, uint64_t ns, int resumed);
    void *on_handshake_arg;
    net_tls_stats stats;
};

struct net_tls {
    net_tls_client *tc;
    SSL *ssl;
    BIO *bio;                 /* tls_bio_*, owned by ssl (its read and write side) */
    net_buf *out;             /* ciphertext to send: the connection's buffer */
    size_t rx_off, rx_len;    /* rx[rx_off, rx_len): received, not yet read by OpenSSL */
    int oom;                  /* the output buffer could not grow */
    int established;
    int failed;               /* a TLS error: the session must not be reused */
    int resumed;
    uint64_t start_ns, handshake_ns;
    char alpn[256];           /* the protocol id the server selected; "": none */
    char err[256];
    char rx[NET_TLS_RX_SIZE];
};

/* ---- client settings -------------------------------------------------- */

static int tls_err(char *err, size_t len, const char *what, const char *arg) {
    unsigned long e = ERR_get_error();
    char ossl[160] = "";
    if (e) ERR_error_string_n(e, ossl, sizeof ossl);
    ERR_clear_error();
    snprintf(err, len, "%s%s%s%s%s", what, arg ? " " : "", arg ? arg : "", e ? ": " : "", ossl);
    return -1;
}

/* "a,b" -> ALPN wire format (length-prefixed); 0 or -1 when malformed. */
static int tls_alpn_wire(const char *list, unsigned char *out, size_t cap, size_t *len) {
    size_t n = 0;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t l = comma ? (size_t)(comma - p) : strlen(p);
        if (l == 0 || l > 255 || n + 1 + l > cap) return -1;
        out[n++] = (unsigned char)l;
        memcpy(out + n, p, l);
        n += l;
        if (!comma) break;
        p = comma + 1;
    }
    *len = n;
    return 0;
}

static int tls_name_is_ip(const char *name) {
    unsigned char ip[16];
    return inet_pton(AF_INET, name, ip) == 1 || inet_pton(AF_INET6, name, ip) == 1;
}

/* A new session from the server (TLS 1.3 tickets come after the handshake):
 * keep the newest for the next connection. */
static int tls_on_new_session(SSL *ssl, SSL_SESSION *sess) {
    net_tls *t = SSL_get_app_data(ssl);
    if (t == NULL) return 0;
    if (t->tc->session) SSL_SESSION_free(t->tc->session);
    t->tc->session = sess;
    return 1;                 /* we keep the reference */
}

static int tls_ctx_certs(net_tls_client *t, const net_tls_opts *o, char *err, size_t len) {
    if (o->ca_file) {
        if (SSL_CTX_load_verify_locations(t->ctx, o->ca_file, NULL) != 1)
            return tls_err(err, len, "cannot load ca_file", o->ca_file);
    } else if (SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
        return tls_err(err, len, "cannot load the system certificate store", NULL);
    }
    if (o->key_file && !o->cert_file) {
        snprintf(err, len, "key given without cert");
        return -1;
    }
    if (!o->cert_file) return 0;
    if (SSL_CTX_use_certificate_chain_file(t->ctx, o->cert_file) != 1)
        return tls_err(err, len, "cannot load cert", o->cert_file);
    const char *key = o->key_file ? o->key_file : o->cert_file;
    if (SSL_CTX_use_PrivateKey_file(t->ctx, key, SSL_FILETYPE_PEM) != 1)
        return tls_err(err, len, "cannot load key", key);
    if (SSL_CTX_check_private_key(t->ctx) != 1)
        return tls_err(err, len, "key does not match cert", o->cert_file);
    return 0;
}

/* ---- the BIO: OpenSSL's view of the connection's buffers ---------------- */

/* Ciphertext from OpenSSL: appended to the connection's output buffer. */
static int tls_bio_write(BIO *b, const char *data, size_t n, size_t *written) {
    net_tls *t = BIO_get_data(b);
    net_buf *o = t->out;
    if (grow_room(&o->p, &o->cap, o->len, n, 16 * 1024, SIZE_MAX) != 0) {
        t->oom = 1;
        return 0;
    }
    memcpy(o->p + o->len, data, n);
    o->len += n;
    *written = n;
    return 1;
}

/* Ciphertext for OpenSSL: from what the socket put in rx; none: retry. */
static int tls_bio_read(BIO *b, char *data, size_t n, size_t *got) {
    net_tls *t = BIO_get_data(b);
    size_t have = t->rx_len - t->rx_off;
    BIO_clear_retry_flags(b);
    if (have == 0) {
        BIO_set_retry_read(b);
        *got = 0;
        return 0;
    }
    if (n > have) n = have;
    memcpy(data, t->rx + t->rx_off, n);
    t->rx_off += n;
    *got = n;
    return 1;
}

static long tls_bio_ctrl(BIO *b, int cmd, long num, void *ptr) {
    net_tls *t = BIO_get_data(b);
    (void)num;
    (void)ptr;
    switch (cmd) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_PENDING: return t ? (long)(t->rx_len - t->rx_off) : 0;
    case BIO_CTRL_WPENDING: return 0;      /* written through at once */
    default: return 0;
    }
}

static int tls_bio_create(BIO *b) {
    BIO_set_init(b, 1);
    return 1;
}

/* The method (one per client: no global state).  Its type is a plain
 * source/sink, not a BIO_get_new_index() one: that index space is global and
 * small (about 127), and a run makes a client per VU. */
static int tls_bio_meth(net_tls_client *t) {
    t->bio_meth = BIO_meth_new(BIO_TYPE_SOURCE_SINK, "luamech conn");
    if (t->bio_meth == NULL || BIO_meth_set_write_ex(t->bio_meth, tls_bio_write) != 1 ||
        BIO_meth_set_read_ex(t->bio_meth, tls_bio_read) != 1 ||
        BIO_meth_set_ctrl(t->bio_meth, tls_bio_ctrl) != 1 || BIO_meth_set_create(t->bio_meth, tls_bio_create) != 1)
        return -1;
    return 0;
}

static int tls_ctx_setup(net_tls_client *t, const net_tls_opts *o, char *err, size_t len) {
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (t->ctx == NULL) return tls_err(err, len, "cannot create a TLS context", NULL);
    int minv = o->min_version == 13 ? TLS1_3_VERSION : TLS1_2_VERSION;
    if (o->min_version != 0 && o->min_version != 12 && o->min_version != 13) {
        snprintf(err, len, "min_version must be \"1.2\" or \"1.3\"");
        return -1;
    }
    if (SSL_CTX_set_min_proto_version(t->ctx, minv) != 1)
        return tls_err(err, len, "cannot set the minimum TLS version", NULL);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                     SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_verify(t->ctx, o->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(t->ctx, tls_on_new_session);
    if (tls_ctx_certs(t, o, err, len) != 0) return -1;
    if (tls_bio_meth(t) != 0) return tls_err(err, len, "cannot create a TLS I/O method", NULL);
    if (o->alpn) {
        unsigned char wire[512];
        size_t n;
        if (tls_alpn_wire(o->alpn, wire, sizeof wire, &n) != 0) {
            snprintf(err, len, "bad alpn \"%s\" (want \"proto1,proto2\")", o->alpn);
            return -1;
        }
        if (SSL_CTX_set_alpn_protos(t->ctx, wire, (unsigned)n) != 0)
            return tls_err(err, len, "cannot set alpn", o->alpn);
    }
    return 0;
}

int net_tls_client_new(const net_tls_opts *o, net_tls_client **out, char *err, size_t err_len) {
    *out = NULL;
    net_tls_client *t = calloc(1, sizeof *t);
    if (t == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    t->insecure = o->insecure;
    t->on_handshake = o->on_handshake;
    t->on_handshake_arg = o->on_handshake_arg;
    if (o->server_name && *o->server_name) {
        t->server_name = strdup(o->server_name);
        t->name_is_ip = tls_name_is_ip(o->server_name);
    }
    if ((o->server_name && *o->server_name && t->server_name == NULL) ||
        tls_ctx_setup(t, o, err, err_len) != 0) {
        if (t->server_name == NULL && o->server_name && *o->server_name)
            snprintf(err, err_len, "out of memory");
        net_tls_client_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

void net_tls_client_free(net_tls_client *t) {
    if (t == NULL) return;
    if (t->session) SSL_SESSION_free(t->session);
    SSL_CTX_free(t->ctx);
    BIO_meth_free(t->bio_meth);          /* after every SSL (and BIO) of it is freed */
    free(t->server_name);
    free(t);
}

void net_tls_client_stats(const net_tls_client *t, net_tls_stats *s) { *s = t->stats; }

/* ---- one connection --------------------------------------------------- */

/* SNI (a name, not an address) and the name or address verified. */
static int tls_ssl_peer(net_tls *t, const char *name, int is_ip) {
    if (name && !is_ip && SSL_set_tlsext_host_name(t->ssl, name) != 1) return -1;
    if (t->tc->insecure || name == NULL) return 0;
    if (!is_ip) return SSL_set1_host(t->ssl, name) == 1 ? 0 : -1;
    X509_VERIFY_PARAM *vp = SSL_get0_param(t->ssl);
    return X509_VERIFY_PARAM_set1_ip_asc(vp, name) == 1 ? 0 : -1;
}

int net_tls_set_server_name(net_tls *t, const char *name) {
    if (name == NULL || *name == '\0') return UV_EINVAL;
    /* the client's name, set by net_tls_new, goes: SNI, host and address */
    SSL_set_tlsext_host_name(t->ssl, NULL);
    SSL_set1_host(t->ssl, NULL);
    X509_VERIFY_PARAM_set1_ip(SSL_get0_param(t->ssl), NULL, 0);
    if (tls_ssl_peer(t, name, tls_name_is_ip(name)) != 0) {
        ERR_clear_error();
        return UV_ENOMEM;
    }
    return 0;
}

int net_tls_new(net_tls_client *tc, net_buf *out_buf, net_tls **out) {
    *out = NULL;
    net_tls *t = calloc(1, sizeof *t);
    if (t == NULL) return UV_ENOMEM;
    t->tc = tc;
    t->out = out_buf;
    t->ssl = SSL_new(tc->ctx);
    t->bio = BIO_new(tc->bio_meth);
    if (t->ssl == NULL || t->bio == NULL) {
        BIO_free(t->bio);
        SSL_free(t->ssl);
        free(t);
        ERR_clear_error();
        return UV_ENOMEM;
    }
    BIO_set_data(t->bio, t);
    SSL_set_bio(t->ssl, t->bio, t->bio);   /* one BIO both ways: the SSL owns it from here */
    SSL_set_connect_state(t->ssl);
    if (SSL_set_app_data(t->ssl, t) != 1 || tls_ssl_peer(t, tc->server_name, tc->name_is_ip) != 0 ||
        (tc->session && SSL_set_session(t->ssl, tc->session) != 1)) {
        ERR_clear_error();
        net_tls_free(t);
        return UV_ENOMEM;
    }
    *out = t;
    return 0;
}

void net_tls_free(net_tls *t) {
    if (t == NULL) return;
    /* SSL_free without a shutdown marks the session not resumable; a
     * connection closed after a clean exchange keeps it offerable. */
    if (t->established && !t->failed) SSL_set_shutdown(t->ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_set_app_data(t->ssl, NULL);
    SSL_free(t->ssl);
    free(t);
}

/* Why the last SSL call failed: the verification result when that was it,
 * else OpenSSL's first queued error. */
static int tls_fail(net_tls *t, int ret, const char **msg) {
    int e = SSL_get_error(t->ssl, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    if (t->oom) {
        ERR_clear_error();
        t->failed = 1;
        return UV_ENOMEM;
    }
    if (e == SSL_ERROR_ZERO_RETURN) return UV_EOF;
    long vr = SSL_get_verify_result(t->ssl);
    unsigned long q = ERR_peek_error();
    if (vr != X509_V_OK && !t->established) {
        snprintf(t->err, sizeof t->err, "certificate verification failed: %s",
                 X509_verify_cert_error_string(vr));
    } else if (q) {
        char ossl[200];
        ERR_error_string_n(q, ossl, sizeof ossl);
        /* a handshake answered by a plaintext server reads as a record of
         * no known version: say what it most likely means */
        int plain = !t->established && ERR_GET_LIB(q) == ERR_LIB_SSL &&
                    ERR_GET_REASON(q) == SSL_R_WRONG_VERSION_NUMBER;
        snprintf(t->err, sizeof t->err, "%s%s", ossl, plain ? " (is the server speaking TLS on this port?)" : "");
    } else {
        snprintf(t->err, sizeof t->err, "TLS %s failed (error %d)",
                 t->established ? "record" : "handshake", e);
    }
    ERR_clear_error();
    *msg = t->err;
    t->failed = 1;
    return NET_ETLS;
}

static int tls_handshake(net_tls *t, const char **msg) {
    ERR_clear_error();
    int ret = SSL_do_handshake(t->ssl);
    if (ret != 1) return tls_fail(t, ret, msg);
    t->established = 1;
    t->handshake_ns = uv_hrtime() - t->start_ns;
    t->resumed = SSL_session_reused(t->ssl);
    const unsigned char *sel = NULL;
    unsigned sel_len = 0;
    SSL_get0_alpn_selected(t->ssl, &sel, &sel_len);
    if (sel && sel_len < sizeof t->alpn) {      /* ids are 1..255 bytes */
        memcpy(t->alpn, sel, sel_len);
        t->alpn[sel_len] = '\0';
    }
    t->tc->stats.handshakes++;
    t->tc->stats.resumed += (uint64_t)t->resumed;
    if (t->tc->on_handshake) t->tc->on_handshake(t->tc->on_handshake_arg, t->handshake_ns, t->resumed);
    return 0;
}

int net_tls_start(net_tls *t, const char **msg) {
    t->start_ns = uv_hrtime();
    return tls_handshake(t, msg);
}

int net_tls_set_alpn(net_tls *t, const char *list) {
    unsigned char wire[512];
    size_t n;
    if (list == NULL || tls_alpn_wire(list, wire, sizeof wire, &n) != 0) return UV_EINVAL;
    if (SSL_set_alpn_protos(t->ssl, wire, (unsigned)n) != 0) {
        ERR_clear_error();
        return UV_ENOMEM;
    }
    return 0;
}

int net_tls_alpn_valid(const char *list) {
    unsigned char wire[512];
    size_t n;
    return list != NULL && tls_alpn_wire(list, wire, sizeof wire, &n) == 0;
}

const char *net_tls_alpn(const net_tls *t) { return t->established && t->alpn[0] ? t->alpn : NULL; }

void net_tls_rx_space(net_tls *t, char **p, size_t *n) {
    if (t->rx_off == t->rx_len) {
        t->rx_off = t->rx_len = 0;
    } else if (t->rx_off > 0) {           /* a record's start OpenSSL has not asked for yet */
        memmove(t->rx, t->rx + t->rx_off, t->rx_len - t->rx_off);
        t->rx_len -= t->rx_off;
        t->rx_off = 0;
    }
    *p = t->rx + t->rx_len;
    *n = sizeof t->rx - t->rx_len;
}

int net_tls_rx(net_tls *t, size_t n, const char **msg) {
    t->rx_len += n;
    return t->established ? 0 : tls_handshake(t, msg);
}

int net_tls_established(const net_tls *t) { return t->established; }

int net_tls_more(const net_tls *t) { return t->rx_off < t->rx_len || SSL_has_pending(t->ssl); }

/* SSL_get_error wants the thread's error queue empty before each I/O call:
 * emptied only when something is queued (a peek is cheaper than a clear,
 * which walks all its slots, and this runs for every read and write). */
static void tls_err_reset(void) {
    if (ERR_peek_error() != 0) ERR_clear_error();
}

int net_tls_read(net_tls *t, char *dst, size_t cap, size_t *got, const char **msg) {
    *got = 0;
    tls_err_reset();
    int ret = SSL_read(t->ssl, dst, cap > INT_MAX ? INT_MAX : (int)cap);
    if (ret > 0) {
        *got = (size_t)ret;
        return 0;
    }
    return tls_fail(t, ret, msg);
}

int net_tls_write(net_tls *t, const char *p, size_t n, size_t *took, const char **msg) {
    *took = 0;
    while (*took < n) {
        size_t left = n - *took;
        tls_err_reset();
        int ret = SSL_write(t->ssl, p + *took, left > INT_MAX ? INT_MAX : (int)left);
        if (ret <= 0) return tls_fail(t, ret, msg);
        *took += (size_t)ret;
    }
    return 0;
}

uint64_t net_tls_handshake_ns(const net_tls *t) { return t->handshake_ns; }
int net_tls_resumed(const net_tls *t) { return t->resumed; }
int net_tls_peer_closed(const net_tls *t) { return (SSL_get_shutdown(t->ssl) & SSL_RECEIVED_SHUTDOWN) != 0; }
