/* grpc_client.c - gRPC calls as HTTP/2 streams (see grpc_client.h): the
 * request's header list, the response's headers and trailers read for
 * :status, content-type, grpc-status and grpc-message, DATA fed to
 * proto/grpc_frame.c's reader (grpc-encoding read for it; only a 200's with
 * a gRPC content-type), the status of a call that went wrong made from the
 * stream's close, a call the server did not process started again.  One
 * live session at a time per client (a dead one is replaced by the next
 * call), the ones draining after a GOAWAY kept on the client's list until
 * closed.  It does not touch Lua, protobuf or a socket (h2_session and
 * net/conn do). */
#include "client/grpc_client.h"
#include "common/grow.h"
#include "common/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GC_OK = 0, GC_CANCELLED = 1, GC_UNKNOWN = 2, GC_DEADLINE = 4, GC_RESOURCE = 8, GC_INTERNAL = 13,
       GC_UNAVAILABLE = 14 };

typedef struct gc_sess {
    grpc_client *c;
    h2_session *s;
    struct gc_sess *next, **pprev;  /* c->sessions: every session not yet closed */
    h2_session_cfg cfg;             /* outlives the session: freed in on_closed */
} gc_sess;

struct grpc_client {
    grpc_client_cfg cfg;
    struct sockaddr_storage addr;
    char host[256];
    char authority[300];
    int port;
    net_tls_client *tls;
    hz_decoder hz;                  /* compressed responses, for every call (decoded and used in turn) */
    gc_sess *cur;                   /* the live session, or NULL */
    gc_sess *sessions;              /* every session not yet closed (cur, draining ones) */
    int nsess;                      /* sessions not yet closed */
    int closing;
    uint64_t connects, retries;
    void (*on_open)(void *ud, int status, const char *msg);
    void *open_ud;
};

static const h2_session_cbs gc_session_cbs;
static const h2_stream_cbs gc_stream_cbs;

static int gc_split(grpc_client *c, const char *address, char *err, size_t err_len) {
    const char *colon = strrchr(address, ':');
    const char *h = address, *he = colon;
    if (strstr(address, "://")) {
        snprintf(err, err_len, "'%s': host:port expected (no scheme; use tls = {...} for TLS)", address);
        return -1;
    }
    if (!colon || colon[1] == '\0') {
        snprintf(err, err_len, "'%s': host:port expected", address);
        return -1;
    }
    if (*h == '[' && he > h && he[-1] == ']') h++, he--;      /* [::1]:port */
    if ((size_t)(he - h) >= sizeof c->host || he == h) {
        snprintf(err, err_len, "'%s': bad host", address);
        return -1;
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port <= 0 || port > 65535) {
        snprintf(err, err_len, "'%s': bad port", address);
        return -1;
    }
    memcpy(c->host, h, (size_t)(he - h));
    c->host[he - h] = '\0';
    c->port = (int)port;
    snprintf(c->authority, sizeof c->authority, "%s", address);
    return 0;
}

int grpc_client_new(const grpc_client_cfg *cfg, grpc_client **out, char *err, size_t err_len) {
    grpc_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    c->cfg = *cfg;
    if (gc_split(c, cfg->address, err, err_len) < 0) goto fail;
    int rc = net_resolve(cfg->loop, c->host, c->port, &c->addr);
    if (rc != 0) {
        snprintf(err, err_len, "cannot resolve '%s': %s", cfg->address, uv_strerror(rc));
        goto fail;
    }
    if (cfg->tls) {
        net_tls_opts to = *cfg->tls;
        to.alpn = "h2";
        char terr[256];
        if (net_tls_client_new(&to, &c->tls, terr, sizeof terr) != 0) {
            snprintf(err, err_len, "TLS: %s", terr);
            goto fail;
        }
    }
    c->cfg.address = NULL;          /* the caller's string is not kept */
    *out = c;
    return 0;
fail:
    free(c);
    return -1;
}

static void gc_client_free(grpc_client *c) {
    net_tls_client_free(c->tls);
    hz_free(&c->hz);
    free(c);
}

static gc_sess *gc_sess_open(grpc_client *c, int *rc) {
    gc_sess *gs = calloc(1, sizeof *gs);
    if (!gs) {
        *rc = UV_ENOMEM;
        return NULL;
    }
    gs->c = c;
    gs->cfg.conn.loop = c->cfg.loop;
    gs->cfg.conn.addr = &c->addr;
    gs->cfg.conn.connect_timeout_ns = c->cfg.connect_timeout_ns;
    gs->cfg.conn.rbuf_init = 64 * 1024;
    gs->cfg.conn.tls = c->tls;
    gs->cfg.max_streams = c->cfg.max_streams;
    gs->cfg.cbs = &gc_session_cbs;
    *rc = h2_session_new(&gs->cfg, gs, &gs->s);
    if (*rc != 0) {
        free(gs);
        return NULL;
    }
    c->nsess++;
    c->connects++;
    c->cur = gs;
    gs->next = c->sessions;
    if (gs->next) gs->next->pprev = &gs->next;
    gs->pprev = &c->sessions;
    c->sessions = gs;
    return gs;
}

int grpc_client_connect(grpc_client *c, void (*on_open)(void *ud, int status, const char *msg), void *ud) {
    int rc = 0;
    c->on_open = on_open;
    c->open_ud = ud;
    if (!c->cur && !gc_sess_open(c, &rc)) c->on_open = NULL;
    return rc;
}

static void gc_report_open(grpc_client *c, int status, const char *msg) {
    void (*fn)(void *, int, const char *) = c->on_open;
    c->on_open = NULL;
    if (fn) fn(c->open_ud, status, msg);
}

static void gc_on_open(h2_session *s, void *owner) {
    (void)s;
    gc_sess *gs = owner;
    gc_report_open(gs->c, 0, NULL);
}

static void gc_on_dead(h2_session *s, void *owner) {
    gc_sess *gs = owner;
    if (gs->c->cur == gs) gs->c->cur = NULL;
    const char *why = NULL;
    int sys = h2_session_failure(s, &why);          /* TLS, timeout, refused: said as such */
    gc_report_open(gs->c, sys ? sys : UV_ECONNREFUSED,
                   why ? why : "the connection failed or went away before it was open");
}

static void gc_on_closed(void *owner) {
    gc_sess *gs = owner;
    grpc_client *c = gs->c;
    if (c->cur == gs) c->cur = NULL;
    *gs->pprev = gs->next;
    if (gs->next) gs->next->pprev = gs->pprev;
    free(gs);
    if (--c->nsess == 0 && c->closing) gc_client_free(c);
}

static const h2_session_cbs gc_session_cbs = {
    .on_open = gc_on_open,
    .on_dead = gc_on_dead,
    .on_closed = gc_on_closed,
};

void grpc_client_close(grpc_client *c) {
    if (!c || c->closing) return;
    c->closing = 1;
    c->on_open = NULL;
    c->cur = NULL;
    /* every session, draining ones too: none of their streams may outlive the
     * caller's records (on_closed unlinks them later, not during this) */
    for (gc_sess *gs = c->sessions; gs; gs = gs->next) h2_session_close(gs->s);
    if (c->nsess == 0) gc_client_free(c);
}

uint64_t grpc_client_connects(const grpc_client *c) { return c->connects; }
uint64_t grpc_client_retries(const grpc_client *c) { return c->retries; }

client_status grpc_result_status(const grpc_result *r) {
    if (!r->local || r->code == GC_OK) return CLIENT_OK;
    switch (r->code) {
    case GC_DEADLINE: return CLIENT_TIMEOUT;
    case GC_CANCELLED: return CLIENT_CANCELLED;
    case GC_RESOURCE: return CLIENT_BODY;
    case GC_UNAVAILABLE: return CLIENT_DOWN;
    default: return CLIENT_PROTOCOL;      /* INTERNAL, UNKNOWN, one made from an HTTP status */
    }
}

int grpc_code_of_h2(int status) {
    switch (status) {
    case 0: return GC_OK;
    case H2_ETIMEOUT: return GC_DEADLINE;
    case H2_ECANCELED: return GC_CANCELLED;
    case H2_ENOMEM: return GC_RESOURCE;
    case H2_ERESET: case H2_EPROTO: return GC_INTERNAL;
    default: return GC_UNAVAILABLE;       /* refused, GOAWAY, connect, connection */
    }
}

/* ---- calls ---- */

static void gc_done(grpc_call *call, int code, int local) {
    grpc_result r = {code, local, call->http_status, call->msg, call->messages, call->retries};
    call->st = NULL;
    call->cbs->on_done(call->ud, &r);
}

void grpc_call_fail(grpc_call *call, int code, const char *msg) {
    call->fail_code = code;
    snprintf(call->msg, sizeof call->msg, "%s", msg);
}

static int gc_on_header(void *ud, int block, const char *name, size_t nlen, const char *value, size_t vlen) {
    grpc_call *call = ud;
    if (block == H2_BLOCK_HEADERS && nlen == 7 && memcmp(name, ":status", 7) == 0) {
        call->http_status = grpc_status_parse(value, vlen);
    } else if (nlen == 11 && memcmp(name, "grpc-status", 11) == 0) {
        call->code = grpc_status_parse(value, vlen);
        if (call->code < 0 || call->code > 16) call->code = GC_UNKNOWN;   /* no such code: UNKNOWN, as counted */
    } else if (block == H2_BLOCK_HEADERS && nlen == 13 && memcmp(name, "grpc-encoding", 13) == 0) {
        call->df.coding = hz_coding(value, vlen);
    } else if (nlen == 12 && memcmp(name, "grpc-message", 12) == 0) {
        grpc_message_decode(value, vlen, call->msg, sizeof call->msg);
    } else if (block == H2_BLOCK_HEADERS && nlen == 12 && memcmp(name, "content-type", 12) == 0) {
        call->ct_grpc = vlen >= 16 && memcmp(value, "application/grpc", 16) == 0 &&
                        (vlen == 16 || value[16] == '+' || value[16] == ';');
    }
    return 0;
}

/* The response's headers are complete: a 200 must say application/grpc*
 * (else nothing of its body is read: UNKNOWN), unless it is a
 * trailers-only response (grpc-status among them). */
static int gc_on_headers_end(void *ud, int block) {
    grpc_call *call = ud;
    if (block != H2_BLOCK_HEADERS || call->http_status != 200 || call->ct_grpc || call->code >= 0) return 0;
    grpc_call_fail(call, GC_UNKNOWN, "HTTP status 200 whose content-type is not application/grpc");
    return 1;
}

static int gc_on_data(void *ud, const char *p, size_t n) {
    grpc_call *call = ud;
    const uint8_t *b = (const uint8_t *)p;
    const uint8_t *msg;
    size_t len;
    char err[200];
    int rc;
    if (call->http_status != 200) return 0;    /* a proxy's error page: not gRPC, dropped (the status
                                                * comes from the HTTP status at the end) */
    while ((rc = grpc_deframe(&call->df, &b, &n, &msg, &len, err, sizeof err)) == 1) {
        call->messages++;
        if (call->cbs->on_message(call->ud, msg, len) != 0) {
            if (!call->fail_code) grpc_call_fail(call, GC_INTERNAL, "the response message was refused");
            return 1;
        }
    }
    if (rc < 0) {
        grpc_call_fail(call, strstr(err, "limit") ? GC_RESOURCE : GC_INTERNAL, err);
        return 1;
    }
    return 0;
}

/* The status of a stream that ended without a usable grpc-status. */
static int gc_local_code(grpc_call *call, int status, uint32_t h2err, const char *msg) {
    const char *what = msg && *msg ? msg : h2_strerror(status);
    switch (status) {
    case 0:
        if (grpc_deframe_partial(&call->df)) {
            snprintf(call->msg, sizeof call->msg, "the stream ended inside a message");
            return GC_INTERNAL;
        }
        if (call->http_status != 200) {
            snprintf(call->msg, sizeof call->msg, "HTTP status %d without grpc-status", call->http_status);
            return grpc_status_from_http(call->http_status);
        }
        snprintf(call->msg, sizeof call->msg, "no grpc-status in the response's trailers");
        return GC_INTERNAL;
    case H2_ETIMEOUT:
        snprintf(call->msg, sizeof call->msg, "deadline exceeded (no status before the call's timeout)");
        return GC_DEADLINE;
    case H2_ERESET:
        snprintf(call->msg, sizeof call->msg, "stream reset by the server (%s)", h2_error_name(h2err));
        return h2err == 8 ? GC_CANCELLED : GC_INTERNAL;
    case H2_EPROTO:
        snprintf(call->msg, sizeof call->msg, "HTTP/2 protocol error: %s", what);
        return GC_INTERNAL;
    case H2_ECANCELED:
        snprintf(call->msg, sizeof call->msg, "cancelled");
        return GC_CANCELLED;
    case H2_ENOMEM:
        snprintf(call->msg, sizeof call->msg, "out of memory");
        return GC_RESOURCE;
    case H2_EREFUSED:
        snprintf(call->msg, sizeof call->msg, "%s%s%s%s, %u retries", what, h2err ? " (" : "",
                 h2err ? h2_error_name(h2err) : "", h2err ? ")" : "", call->retries);
        return GC_UNAVAILABLE;
    default:                        /* GOAWAY, connect, connection */
        snprintf(call->msg, sizeof call->msg, "%s", what);
        return GC_UNAVAILABLE;
    }
}

static int gc_open(grpc_call *call);

/* A call the server did not process, started again (see grpc_client.h);
 * 1 when it was (or ended in trying), 0 when it does not qualify. */
static int gc_retry(grpc_call *call, int status) {
    grpc_client *c = call->c;
    if (status != H2_EREFUSED || c->closing || call->retries >= GRPC_MAX_RETRIES || call->sent_more ||
        call->http_status != 0 || call->messages != 0 || call->fail_code)
        return 0;
    call->retries++;
    c->retries++;
    call->st = NULL;
    call->code = -1;
    call->ct_grpc = 0;
    call->msg[0] = '\0';
    call->df.have_hdr = call->df.have = 0;
    call->df.coding = 0;
    gc_open(call);                  /* fires on_done itself when it cannot start */
    return 1;
}

static void gc_on_close(void *ud, int status, uint32_t h2err, int sys, const char *msg) {
    (void)sys;
    grpc_call *call = ud;
    if (gc_retry(call, status)) return;
    if (call->fail_code) {
        gc_done(call, call->fail_code, 1);
        return;
    }
    if (status == 0 && call->code >= 0) {
        if (call->code == 0 && grpc_deframe_partial(&call->df)) {
            snprintf(call->msg, sizeof call->msg, "the stream ended inside a message");
            gc_done(call, GC_INTERNAL, 1);
            return;
        }
        gc_done(call, call->code, 0);
        return;
    }
    call->msg[0] = '\0';
    gc_done(call, gc_local_code(call, status, h2err, msg), 1);
}

static const h2_stream_cbs gc_stream_cbs = {gc_on_header, gc_on_headers_end, gc_on_data, gc_on_close};

#define GC_NV(n, v) ((h2_nv){(n), sizeof(n) - 1, (v), strlen(v), 1})   /* n: a lowercase literal */
#define GC_MAX_MD 64

/* The request's path, metadata and first body copied into call->keep (a
 * buffer kept across uses of the record): what a retry sends again.  0, or
 * -1 when out of memory. */
static int gc_keep(grpc_call *call, const char *path, const h2_nv *md, size_t nmd, const char *body, size_t len) {
    size_t plen = strlen(path) + 1, need = nmd * sizeof(h2_nv) + plen + len;
    for (size_t i = 0; i < nmd; i++) need += md[i].name_len + md[i].value_len;
    if (grow_reserve(&call->keep, &call->keep_cap, need, 1024, SIZE_MAX) != 0) return -1;
    h2_nv *kmd = (h2_nv *)(void *)call->keep;
    char *p = call->keep + nmd * sizeof(h2_nv);
    for (size_t i = 0; i < nmd; i++) {
        kmd[i] = md[i];
        kmd[i].name_static = 0;
        memcpy(p, md[i].name, md[i].name_len);
        kmd[i].name = p;
        p += md[i].name_len;
        memcpy(p, md[i].value, md[i].value_len);
        kmd[i].value = p;
        p += md[i].value_len;
    }
    memcpy(p, path, plen);
    call->kpath = p;
    p += plen;
    if (len) memcpy(p, body, len);
    call->kbody = p;
    call->klen = len;
    call->kmd = kmd;
    call->knmd = nmd;
    return 0;
}

/* Whether the caller's metadata has name (a lowercase literal). */
static int gc_md_has(const h2_nv *md, size_t n, const char *name, size_t nlen) {
    for (size_t i = 0; i < n; i++)
        if (md[i].name_len == nlen && memcmp(md[i].name, name, nlen) == 0) return 1;
    return 0;
}

/* Calls past the server's SETTINGS_MAX_CONCURRENT_STREAMS wait in
 * libnghttp2's queue, where ending one that waits (a deadline, a cancel, the
 * run's end) walks the queue: at most GC_MAX_WAITING wait per connection,
 * so that tens of thousands of calls cannot make every end quadratic. */
#define GC_MAX_WAITING 4096u

static int gc_too_many_waiting(grpc_call *call, h2_session *s) {
    h2_session_stats st;
    h2_session_get_stats(s, &st);
    /* before the server's SETTINGS its limit is not known (100 is
     * libnghttp2's guess until then): a fresh connection takes 4 x as many */
    uint64_t limit = st.peer_settings ? (uint64_t)st.peer_max_streams + GC_MAX_WAITING : 4u * GC_MAX_WAITING;
    if ((uint64_t)h2_session_active(s) < limit) return 0;
    if (st.peer_settings)
        snprintf(call->msg, sizeof call->msg,
                 "more than %u calls wait for the server's SETTINGS_MAX_CONCURRENT_STREAMS (%u) on one connection",
                 GC_MAX_WAITING, (unsigned)st.peer_max_streams);
    else
        snprintf(call->msg, sizeof call->msg,
                 "more than %u calls wait on one connection whose server has not sent its SETTINGS yet",
                 4u * GC_MAX_WAITING);
    gc_done(call, GC_RESOURCE, 1);
    return 1;
}

/* The call's stream opened from what call->keep holds, on the live session
 * or a new one.  0, or -1 after on_done fired (UNAVAILABLE, ...). */
static int gc_open(grpc_call *call) {
    grpc_client *c = call->c;
    char tmo[16];
    h2_nv nv[GC_MAX_MD + 8];
    size_t n = 0;
    nv[n++] = GC_NV(":method", "POST");
    nv[n++] = GC_NV(":scheme", c->tls ? "https" : "http");
    nv[n++] = GC_NV(":path", call->kpath);
    nv[n++] = GC_NV(":authority", c->authority);
    nv[n++] = GC_NV("te", "trailers");
    nv[n++] = GC_NV("content-type", "application/grpc");
    if (!gc_md_has(call->kmd, call->knmd, "user-agent", 10))      /* the caller's replaces ours */
        nv[n++] = GC_NV("user-agent", "luamech-grpc/" LUAMECH_VERSION);
    if (c->cfg.gzip) {
        nv[n++] = GC_NV("grpc-encoding", "gzip");
        nv[n++] = GC_NV("grpc-accept-encoding", "gzip");
    }
    if (call->deadline_ns) {
        uint64_t now = uv_hrtime();
        grpc_timeout_format(tmo, call->deadline_ns > now ? (call->deadline_ns - now + 999999) / 1000000 : 1);
        nv[n++] = GC_NV("grpc-timeout", tmo);
    }
    memcpy(nv + n, call->kmd, call->knmd * sizeof *call->kmd);
    n += call->knmd;
    int status = 0;
    for (int tries = 0; tries < 2; tries++) {   /* a session that took no new stream (its ids used up: it
                                                 * drains, RFC 9113 5.1.1): once more on a new connection */
        int rc = 0;
        if ((!c->cur || h2_session_dead(c->cur->s)) && !gc_sess_open(c, &rc)) {
            snprintf(call->msg, sizeof call->msg, "cannot connect: %s", uv_strerror(rc));
            gc_done(call, GC_UNAVAILABLE, 1);
            return -1;
        }
        h2_session *s = c->cur->s;
        if (gc_too_many_waiting(call, s)) return -1;
        call->st = h2_stream_open(s, nv, n, call->kbody, call->klen, call->eos, call->deadline_ns, &gc_stream_cbs,
                                  call, &status);
        if (call->st) return 0;
        if (status != H2_EREFUSED || (c->cur && c->cur->s == s && !h2_session_dead(s))) break;
    }
    snprintf(call->msg, sizeof call->msg, "%s", h2_strerror(status));
    gc_done(call, status == H2_ENOMEM ? GC_RESOURCE : status == H2_EPROTO ? GC_INTERNAL : GC_UNAVAILABLE, 1);
    return -1;
}

static int gc_call_begin(grpc_client *c, grpc_call *call, const char *path, const h2_nv *md, size_t nmd,
                         const char *body, size_t len, int eos, uint64_t deadline_ns, const grpc_call_cbs *cbs,
                         void *ud) {
    call->c = c;
    call->cbs = cbs;
    call->ud = ud;
    call->st = NULL;
    call->http_status = 0;
    call->code = -1;
    call->fail_code = 0;
    call->ct_grpc = 0;
    call->messages = 0;
    call->retries = 0;
    call->sent_more = 0;
    call->eos = eos;
    call->deadline_ns = deadline_ns;
    call->msg[0] = '\0';
    call->df.have_hdr = call->df.have = 0;
    call->df.max = c->cfg.max_recv;
    call->df.coding = 0;
    call->df.hz = &c->hz;
    if (c->closing) {
        snprintf(call->msg, sizeof call->msg, "the client is closed");
        gc_done(call, GC_CANCELLED, 1);
        return -1;
    }
    if (nmd > GC_MAX_MD) {
        snprintf(call->msg, sizeof call->msg, "more than %d metadata entries", GC_MAX_MD);
        gc_done(call, GC_RESOURCE, 1);
        return -1;
    }
    if (gc_keep(call, path, md, nmd, body, len) != 0) {
        snprintf(call->msg, sizeof call->msg, "out of memory");
        gc_done(call, GC_RESOURCE, 1);
        return -1;
    }
    return gc_open(call);
}

int grpc_call_start(grpc_client *c, grpc_call *call, const char *path, const h2_nv *md, size_t nmd,
                    const char *body, size_t len, uint64_t deadline_ns, const grpc_call_cbs *cbs, void *ud) {
    return gc_call_begin(c, call, path, md, nmd, body, len, 1, deadline_ns, cbs, ud);
}

int grpc_call_start_open(grpc_client *c, grpc_call *call, const char *path, const h2_nv *md, size_t nmd,
                         const char *body, size_t len, uint64_t deadline_ns, const grpc_call_cbs *cbs, void *ud) {
    return gc_call_begin(c, call, path, md, nmd, body, len, 0, deadline_ns, cbs, ud);
}

int grpc_call_send(grpc_call *call, const char *body, size_t len, int end) {
    if (!call->st) return H2_ECANCELED;
    if (len) call->sent_more = 1;   /* a message the call does not keep: no retry from now on */
    return h2_stream_send(call->st, body, len, end);
}

size_t grpc_call_unsent(const grpc_call *call) { return call->st ? h2_stream_unsent(call->st) : 0; }

void grpc_call_cancel(grpc_call *call) {
    if (call->st) h2_stream_cancel(call->st);
}

void grpc_call_fini(grpc_call *call) {
    grpc_deframer_free(&call->df);
    free(call->keep);
    call->keep = NULL;
    call->keep_cap = 0;
}
