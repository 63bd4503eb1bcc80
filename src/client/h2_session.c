/* h2_session.c - one HTTP/2 client connection: libnghttp2 (framing, HPACK,
 * flow control) driven in memory on a net/conn connection of ours, on the
 * caller's loop.  Bytes that arrive go to nghttp2_session_mem_recv; what
 * nghttp2 has to send is copied into the connection's write queue by
 * h2_flush (after every input, and in the loop's idle phase after the calls
 * that submit something, so that no stream callback fires inside them), so
 * a loop turn's frames leave in one write.  Streams are records pooled in the
 * session; each ends with exactly one on_close (h2_session.h lists the
 * statuses).  Per-stream deadlines share one timer per session.  It knows
 * frames and streams, not HTTP's methods, bodies' meaning or Lua; it never
 * touches a socket (net/conn does). */
#include "client/h2_session.h"
#include "client/h2_mem.h"
#include "common/clock.h"

#include <nghttp2/nghttp2.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_FREE = 0, ST_OPEN, ST_DONE };

struct h2_stream {
    h2_session *s;
    int32_t id;
    int state;
    const h2_stream_cbs *cbs;
    void *ud;
    char *buf;                   /* body not yet taken by nghttp2: buf[off..len) */
    size_t len, off, cap;
    int eos, has_body, deferred;
    int headers_sent, got_end, final_seen, info;
    size_t hdr_bytes;
    int rst_out;                 /* nghttp2 reset it (its verdict on the response: msg says why) */
    uint64_t deadline_ns;
    uint64_t bytes_in, bytes_out, sent_ns, first_ns;
    h2_stream *prev, *next;      /* active list, or the free list (next) */
    char msg[160];               /* this stream's own failure reason (last: h2_st_take clears
                                  * the fields above it and msg[0] only) */
};

struct h2_session {
    const h2_session_cfg *cfg;
    void *owner;
    nghttp2_session *ng;
    h2_mem mem;                  /* nghttp2's blocks, reused stream after stream */
    net_conn *nc;                /* NULL once failed or closed */
    uv_timer_t timer;
    uint64_t timer_due;
    uv_idle_t idle;              /* flushes what the API calls submitted (never from inside them) */
    int idle_on;
    int open, dead, closing, freed_conn, freed_timer, freed_idle, in_recv, want_flush;
    int goaway_in;
    int peer_settings;           /* the server's first SETTINGS was read: DATA may leave */
    int draining;                /* no new stream (ids exhausted, or 0 allowed): close once idle */
    int wheld;                   /* h2_flush stopped at the write cap: net_conn's on_sent resumes */
    int broken;                  /* closing on a protocol error: no GOAWAY(NO_ERROR) of ours */
    int got_bytes;               /* bytes came from the server */
    int32_t goaway_last;
    uint32_t goaway_code;
    uint32_t peer_max;
    unsigned nactive;
    h2_stream *active, *free;
    h2_stream *last_st;          /* h2_st_of's last answer (a pooled record, checked on use) */
    nghttp2_nv *nv;
    size_t nv_cap;
    h2_session_stats st;
    int fail_sys;                /* the connection's failure (libuv/net status), 0: none */
    uint64_t rx_ns;              /* the clock when the bytes nghttp2 reads now arrived */
    uint64_t tx_ns;              /* the clock of this flush's first HEADERS, 0 until one */
    char msg[256];               /* the session's failure (connection, protocol): session-wide */
    int msg_fresh;               /* msg is nghttp2's latest error text, not yet given to a stream */
};

/* What h2_flush moves from nghttp2 into the connection's write queue at
 * most while the socket has not taken it: past it nghttp2 keeps its frames
 * (a server that never reads while it PINGs then meets nghttp2's own limit
 * on queued acknowledgements, max_outbound_ack, and the session ends). */
#define H2_WQUEUE_CAP (256u * 1024u)

static const net_conn_cbs h2_conn_cbs;
static const char h2_zero_msg[] =
    "the server allows 0 concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS 0): it cannot serve requests";
static void h2_flush(h2_session *s);
static void h2_maybe_free(h2_session *s);

/* ---- messages ---- */

const char *h2_strerror(int status) {
    switch (status) {
    case 0: return "ok";
    case H2_EREFUSED: return "refused by the server (not processed)";
    case H2_ERESET: return "stream reset by the server";
    case H2_EGOAWAY: return "connection going away (GOAWAY) before the response ended";
    case H2_ECONN: return "connection failed";
    case H2_ECONNECT: return "connect failed";
    case H2_ENOTH2: return "the server did not select h2 by ALPN";
    case H2_EPROTO: return "HTTP/2 protocol error";
    case H2_ETIMEOUT: return "timeout";
    case H2_ECANCELED: return "cancelled";
    case H2_ENOMEM: return "out of memory";
    case H2_ENOSTREAMS: return h2_zero_msg;
    default: return "unknown status";
    }
}

client_status h2_status(int status) {
    switch (status) {
    case 0: return CLIENT_OK;
    case H2_ERESET: case H2_EPROTO: return CLIENT_PROTOCOL;
    case H2_ETIMEOUT: return CLIENT_TIMEOUT;
    case H2_ECANCELED: return CLIENT_CANCELLED;
    case H2_ENOTH2: case H2_ENOMEM: case H2_ENOSTREAMS: return CLIENT_SETUP;
    default: return CLIENT_DOWN;          /* refused, GOAWAY, connect, connection */
    }
}

const char *h2_error_name(uint32_t code) {
    static const char *const names[] = {"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
                                        "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR",
                                        "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR",
                                        "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"};
    return code < sizeof names / sizeof names[0] ? names[code] : "UNKNOWN_ERROR";
}

/* ---- streams ---- */

static void h2_st_unlink(h2_session *s, h2_stream *st) {
    if (st->prev) st->prev->next = st->next;
    else s->active = st->next;
    if (st->next) st->next->prev = st->prev;
    st->prev = st->next = NULL;
}

/* The stream is over for its owner: on_close (which may still read the
 * stream's figures), then the record goes back to the pool (nghttp2 no
 * longer finds it: its user data is cleared, and every callback checks the
 * id and state). */
static void h2_st_finish(h2_stream *st, int status, uint32_t code, int sys, const char *msg) {
    h2_session *s = st->s;
    if (st->state != ST_OPEN) return;
    st->state = ST_DONE;
    if (s->ng && st->id > 0) nghttp2_session_set_stream_user_data(s->ng, st->id, NULL);
    h2_st_unlink(s, st);
    s->nactive--;
    st->cbs->on_close(st->ud, status, code, sys, msg);   /* the record's figures are still readable */
    st->state = ST_FREE;
    st->next = s->free;
    s->free = st;
    if (!s->closing && !s->dead && s->cfg->cbs->on_room) s->cfg->cbs->on_room(s, s->owner);
    if (s->draining && s->nactive == 0) h2_session_close(s);   /* idempotent */
}

/* The record of stream id (from nghttp2's user data, checked).  The last
 * one found is remembered: a response's frames and fields come one stream
 * at a time, a dozen callbacks in a row (a record reused for another
 * stream, or closed, fails the check and is looked up again). */
static h2_stream *h2_st_lookup(h2_session *s, int32_t id) {
    h2_stream *st = nghttp2_session_get_stream_user_data(s->ng, id);
    s->last_st = st;
    return st && st->id == id && st->state == ST_OPEN ? st : NULL;
}

static inline h2_stream *h2_st_of(h2_session *s, int32_t id) {   /* the remembered one inline */
    h2_stream *st = s->last_st;
    return st && st->id == id && st->state == ST_OPEN ? st : h2_st_lookup(s, id);
}

static h2_stream *h2_st_find(h2_session *s, int32_t id) {
    for (h2_stream *st = s->active; st; st = st->next)
        if (st->id == id) return st;
    return NULL;
}

/* Every stream still open ends: refused when it cannot have reached the
 * server (connect phase, HEADERS not sent, above a GOAWAY's last id). */
static void h2_fail_all(h2_session *s, int status, uint32_t code, int sys, const char *msg) {
    while (s->active) {
        h2_stream *st = s->active;
        int stc = status;
        if (status != H2_ECONNECT && status != H2_ECANCELED && status != H2_ENOTH2 &&
            (!st->headers_sent || (s->goaway_in && st->id > s->goaway_last)))
            stc = H2_EREFUSED;
        h2_st_finish(st, stc, code, sys, msg);
    }
}

static void h2_mark_dead(h2_session *s) {
    if (s->dead) return;
    s->dead = 1;
    if (!s->closing && s->cfg->cbs->on_dead) s->cfg->cbs->on_dead(s, s->owner);
}

/* No new stream on this session (RFC 9113 5.1.1: its stream ids are used
 * up; or its server allows none): the owner stops choosing it (on_dead),
 * its streams go on, and it closes (GOAWAY) once the last has ended. */
static void h2_drain(h2_session *s) {
    s->draining = 1;
    h2_mark_dead(s);
    if (s->nactive == 0) h2_session_close(s);
}

/* ---- timer ---- */

static void h2_on_timer(uv_timer_t *t);

static void h2_arm(h2_session *s, uint64_t deadline, uint64_t now) {
    if (deadline && !s->closing) clock_timer_arm(&s->timer, &s->timer_due, h2_on_timer, deadline, now);
}

static void h2_on_timer(uv_timer_t *t) {
    h2_session *s = t->data;
    s->timer_due = 0;
    if (s->closing) return;
    uint64_t now = uv_hrtime(), next = 0;
    h2_stream *st = s->active;
    while (st) {
        h2_stream *nx = st->next;
        if (st->deadline_ns && st->deadline_ns <= now) {
            if (st->id > 0) nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
            h2_st_finish(st, H2_ETIMEOUT, 0, UV_ETIMEDOUT, NULL);
            if (s->closing) return;
        } else if (st->deadline_ns && (next == 0 || st->deadline_ns < next)) {
            next = st->deadline_ns;
        }
        st = nx;
    }
    h2_arm(s, next, now);
    h2_flush(s);
}

/* ---- nghttp2 callbacks ---- */

static int h2_cb_begin_frame(nghttp2_session *ng, const nghttp2_frame_hd *hd, void *ud) {
    h2_session *s = ud;
    s->st.frames_in++;
    if (hd->stream_id <= 0) return 0;
    h2_stream *st = h2_st_of(s, hd->stream_id);
    (void)ng;
    if (!st) return 0;
    st->bytes_in += 9 + hd->length;
    if (!st->first_ns) st->first_ns = s->rx_ns;     /* one clock read per batch of bytes */
    return 0;
}

static int h2_cb_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *ud) {
    h2_stream *st = h2_st_of(ud, f->hd.stream_id);
    (void)ng;
    if (st) st->hdr_bytes = 0, st->info = 0;
    return 0;
}

/* A ":status" of 100-199 but 101 (HTTP/2 has no protocol switch,
 * RFC 9113 8.6): an informational block, the final one follows.  Anything
 * else (101, "1ab") is for the final block's checks to refuse. */
static int h2_informational(const uint8_t *name, size_t nl, const uint8_t *v, size_t vl) {
    return nl == 7 && memcmp(name, ":status", 7) == 0 && vl == 3 && v[0] == '1' && v[1] >= '0' && v[1] <= '9' &&
           v[2] >= '0' && v[2] <= '9' && !(v[1] == '0' && v[2] == '1');
}

static int h2_cb_header(nghttp2_session *ng, const nghttp2_frame *f, nghttp2_rcbuf *nbuf, nghttp2_rcbuf *vbuf,
                        uint8_t flags, void *ud) {
    h2_session *s = ud;
    h2_stream *st = h2_st_of(s, f->hd.stream_id);
    (void)ng;
    (void)flags;
    if (!st || f->hd.type != NGHTTP2_HEADERS) return 0;
    nghttp2_vec nv = nghttp2_rcbuf_get_buf(nbuf), vv = nghttp2_rcbuf_get_buf(vbuf);
    const uint8_t *name = nv.base, *value = vv.base;
    size_t nl = nv.len, vl = vv.len;
    size_t limit = s->cfg->max_header_bytes ? s->cfg->max_header_bytes : 65536;
    st->hdr_bytes += nl + vl + 32;
    if (st->hdr_bytes > limit) {
        snprintf(st->msg, sizeof st->msg, "response header block larger than %zu bytes", limit);
        nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
        h2_st_finish(st, H2_EPROTO, 0, 0, st->msg);
        return 0;
    }
    int block = st->final_seen ? H2_BLOCK_TRAILERS : H2_BLOCK_HEADERS;
    if (block == H2_BLOCK_HEADERS && h2_informational(name, nl, value, vl))
        st->info = 1;                        /* 1xx: not reported, the final block follows */
    if (st->info) return 0;
    if (s->cfg->http_checks_own && nghttp2_rcbuf_is_static(nbuf)) block |= H2_NAME_STATIC;
    if (st->cbs->on_header(st->ud, block, (const char *)name, nl, (const char *)value, vl) != 0) {
        nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
        h2_st_finish(st, H2_ECANCELED, 0, 0, NULL);
    }
    return 0;
}

static int h2_cb_data(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *p, size_t n, void *ud) {
    h2_session *s = ud;
    h2_stream *st = h2_st_of(s, id);
    (void)ng;
    (void)flags;
    if (!st) return 0;
    if (st->cbs->on_data(st->ud, (const char *)p, n) != 0) {
        nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
        h2_st_finish(st, H2_ECANCELED, 0, 0, NULL);
    }
    return 0;
}

/* The server's SETTINGS_MAX_CONCURRENT_STREAMS is 0: it accepts no stream
 * (RFC 9113 6.5.2).  The streams whose HEADERS did not leave end now with
 * H2_ENOSTREAMS (the others with the server's answer: a refusal is
 * H2_ENOSTREAMS too, not worth a retry); the session drains. */
static void h2_zero_streams(h2_session *s) {
    h2_stream *st = s->active;
    while (st && !s->closing) {
        h2_stream *nx = st->next;
        if (!st->headers_sent) {   /* its queued HEADERS cancelled: never sent, its fields never read again */
            nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
            h2_st_finish(st, H2_ENOSTREAMS, 0, 0, h2_zero_msg);
        }
        st = nx;
    }
    if (!s->closing) h2_drain(s);
}

/* The server's first SETTINGS: DATA held back until now (its windows were
 * unknown: RFC 9113 6.9.2 lets it start at 0) may leave. */
static void h2_settings_in(h2_session *s) {
    uint32_t m = nghttp2_session_get_remote_settings(s->ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    s->peer_max = m;
    if (!s->peer_settings) {
        s->peer_settings = 1;
        for (h2_stream *st = s->active; st; st = st->next)
            if (st->deferred && st->id > 0) {
                st->deferred = 0;
                nghttp2_session_resume_data(s->ng, st->id);
            }
    }
    if (m == 0) {
        h2_zero_streams(s);
        return;
    }
    if (!s->dead && !s->closing && s->cfg->cbs->on_room) s->cfg->cbs->on_room(s, s->owner);
}

static int h2_cb_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *ud) {
    h2_session *s = ud;
    (void)ng;
    switch (f->hd.type) {
    case NGHTTP2_SETTINGS:
        if (!(f->hd.flags & NGHTTP2_FLAG_ACK)) h2_settings_in(s);
        return 0;
    case NGHTTP2_GOAWAY:
        s->st.goaways_in++;
        s->goaway_in = 1;
        s->goaway_last = f->goaway.last_stream_id;
        s->goaway_code = f->goaway.error_code;
        h2_mark_dead(s);
        return 0;
    case NGHTTP2_RST_STREAM:
        s->st.resets_in++;
        return 0;
    case NGHTTP2_HEADERS: case NGHTTP2_DATA: break;
    default: return 0;
    }
    h2_stream *st = h2_st_of(s, f->hd.stream_id);
    if (!st) return 0;
    if (f->hd.type == NGHTTP2_HEADERS) {
        if (st->info) {
            st->info = 0;
        } else {
            int block = st->final_seen ? H2_BLOCK_TRAILERS : H2_BLOCK_HEADERS;
            st->final_seen = 1;
            if (st->cbs->on_headers_end && st->cbs->on_headers_end(st->ud, block) != 0) {
                nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
                h2_st_finish(st, H2_ECANCELED, 0, 0, NULL);
                return 0;
            }
        }
    }
    if ((f->hd.flags & NGHTTP2_FLAG_END_STREAM) && st->final_seen) st->got_end = 1;
    return 0;
}

static int h2_cb_stream_close(nghttp2_session *ng, int32_t id, uint32_t code, void *ud) {
    h2_session *s = ud;
    h2_stream *st = h2_st_of(s, id);
    (void)ng;
    if (!st) return 0;
    if (code == NGHTTP2_NO_ERROR && st->got_end) {
        h2_st_finish(st, 0, 0, 0, NULL);
    } else if (code == NGHTTP2_REFUSED_STREAM || (s->goaway_in && id > s->goaway_last)) {
        if (s->peer_settings && s->peer_max == 0) h2_st_finish(st, H2_ENOSTREAMS, code, 0, h2_zero_msg);
        else h2_st_finish(st, H2_EREFUSED, code == NGHTTP2_REFUSED_STREAM && !(s->goaway_in && id > s->goaway_last)
                                               ? code : 0, 0, NULL);   /* 0: above a GOAWAY's last stream */
    } else if (st->rst_out && code != NGHTTP2_NO_ERROR && code != NGHTTP2_CANCEL) {
        if (!st->msg[0])                     /* nghttp2 reset it: its verdict on this response */
            snprintf(st->msg, sizeof st->msg, "the response broke the protocol (%s)", h2_error_name(code));
        h2_st_finish(st, H2_EPROTO, code, 0, st->msg);
    } else {
        h2_st_finish(st, H2_ERESET, code, 0, NULL);   /* the server reset it: its code says why */
    }
    return 0;
}

static int h2_cb_frame_send(nghttp2_session *ng, const nghttp2_frame *f, void *ud) {
    h2_session *s = ud;
    (void)ng;
    s->st.frames_out++;
    if (f->hd.type == NGHTTP2_GOAWAY && f->goaway.error_code != NGHTTP2_NO_ERROR && !s->msg[0]) {
        int dl = (int)(f->goaway.opaque_data_len > 160 ? 160 : f->goaway.opaque_data_len);
        snprintf(s->msg, sizeof s->msg, "the server broke the protocol (%s%s%.*s)", h2_error_name(f->goaway.error_code),
                 dl ? ": " : "", dl, f->goaway.opaque_data ? (const char *)f->goaway.opaque_data : "");
    }
    if (f->hd.stream_id <= 0) return 0;
    h2_stream *st = h2_st_of(s, f->hd.stream_id);
    if (!st) return 0;
    st->bytes_out += 9 + f->hd.length;
    if (f->hd.type == NGHTTP2_RST_STREAM) {      /* nghttp2's own reset (ours finished the stream first) */
        st->rst_out = 1;
        if (s->msg_fresh) {                      /* the error text nghttp2 gave just before: this stream's */
            snprintf(st->msg, sizeof st->msg, "%.150s", s->msg);
            s->msg[0] = 0;
            s->msg_fresh = 0;
        }
    }
    if (f->hd.type == NGHTTP2_HEADERS && !st->headers_sent) {
        st->headers_sent = 1;
        if (!s->tx_ns) s->tx_ns = uv_hrtime();      /* one clock read per flush */
        st->sent_ns = s->tx_ns;
    }
    return 0;
}

/* A request that nghttp2 will not send (GOAWAY received, session ending):
 * it never reached the server. */
static int h2_cb_not_send(nghttp2_session *ng, const nghttp2_frame *f, int lib_error, void *ud) {
    h2_session *s = ud;
    (void)ng;
    if (f->hd.type != NGHTTP2_HEADERS || f->hd.stream_id <= 0) return 0;
    h2_stream *st = h2_st_find(s, f->hd.stream_id);
    if (!st) return 0;
    if (lib_error == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED || lib_error == NGHTTP2_ERR_STREAM_CLOSED ||
        lib_error == NGHTTP2_ERR_STREAM_CLOSING || lib_error == NGHTTP2_ERR_SESSION_CLOSING)
        h2_st_finish(st, H2_EREFUSED, 0, 0, NULL);
    else
        h2_st_finish(st, H2_EPROTO, 0, 0, nghttp2_strerror(lib_error));
    return 0;
}

static int h2_cb_error(nghttp2_session *ng, int code, const char *msg, size_t len, void *ud) {
    h2_session *s = ud;
    (void)ng;
    (void)code;
    snprintf(s->msg, sizeof s->msg, "%.*s", (int)(len > 200 ? 200 : len), msg);
    char *id = strstr(s->msg, ", stream: ");     /* one text per cause in the error tally, */
    if (id) {                                    /* not one per stream */
        size_t k = 10;
        while (id[k] >= '0' && id[k] <= '9') k++;
        memmove(id, id + k, strlen(id + k) + 1);
    }
    s->msg_fresh = 1;
    return 0;
}

static ssize_t h2_cb_read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t length, uint32_t *flags,
                               nghttp2_data_source *src, void *ud) {
    h2_stream *st = src->ptr;
    h2_session *s = ud;
    (void)ng;
    if (!st || st->id != id || st->state != ST_OPEN) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    if (!s->peer_settings) {                     /* its windows are not known yet: h2_settings_in resumes */
        st->deferred = 1;
        return NGHTTP2_ERR_DEFERRED;
    }
    size_t n = st->len - st->off;
    if (n > length) n = length;
    if (n) memcpy(buf, st->buf + st->off, n);
    st->off += n;
    if (st->off == st->len) {
        st->off = st->len = 0;
        if (st->eos) *flags |= NGHTTP2_DATA_FLAG_EOF;
        else if (n == 0) {
            st->deferred = 1;
            return NGHTTP2_ERR_DEFERRED;
        }
    }
    return (ssize_t)n;
}

/* ---- I/O ---- */

/* Close when nghttp2 is done (after a GOAWAY, or its verdict on bad
 * frames): streams still open end with the reason. */
static void h2_check_over(h2_session *s) {
    if (s->closing || s->in_recv) return;
    if (nghttp2_session_want_read(s->ng) || nghttp2_session_want_write(s->ng)) {
        if (!(s->dead && s->nactive == 0 && !s->nc)) return;
    }
    h2_mark_dead(s);
    s->broken = 1;                            /* nghttp2 said the last word (GOAWAY sent or received) */
    if (s->goaway_in) h2_fail_all(s, H2_EGOAWAY, s->goaway_code, 0, NULL);
    else h2_fail_all(s, H2_EPROTO, 0, 0, s->msg[0] ? s->msg : "the HTTP/2 session ended");
    h2_session_close(s);
}

static void h2_fatal(h2_session *s, int rv) {
    if (!s->msg[0]) snprintf(s->msg, sizeof s->msg, "%s", nghttp2_strerror(rv));
    s->broken = 1;
    h2_mark_dead(s);
    h2_fail_all(s, H2_EPROTO, 0, 0, s->msg);
    h2_session_close(s);
}

static void h2_flush(h2_session *s) {
    if (s->closing || !s->ng) return;
    if (!s->open && s->cfg->conn.tls) return;   /* ALPN first: the connection may go to HTTP/1.1 */
    if (s->in_recv) {
        s->want_flush = 1;
        return;
    }
    s->tx_ns = 0;
    for (;;) {
        if (s->nc && net_conn_wqueued(s->nc) >= H2_WQUEUE_CAP) {   /* the socket is not taking it */
            s->wheld = 1;
            break;
        }
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(s->ng, &data);
        if (n < 0) {
            h2_fatal(s, (int)n);
            return;
        }
        if (n == 0) break;
        if (s->nc && net_conn_write(s->nc, data, (size_t)n) < 0) {
            snprintf(s->msg, sizeof s->msg, "out of memory");
            h2_fatal(s, NGHTTP2_ERR_NOMEM);
            return;
        }
    }
    h2_check_over(s);
}

/* Plaintext h2 whose server's first bytes are a TLS record (an alert
 * 0x15 or a handshake 0x16, version 3.x): a TLS port spoken to in clear.
 * 1: the session failed with a message that says so. */
static int h2_tls_answer(h2_session *s, const char *p, size_t n) {
    s->got_bytes = 1;
    if (s->cfg->conn.tls || n < 2 || (p[0] != 0x15 && p[0] != 0x16) || p[1] != 0x03) return 0;
    snprintf(s->msg, sizeof s->msg, "the server answered with TLS: use https:// (or tls = {...} for gRPC)");
    s->fail_sys = UV_EPROTO;                  /* h2_session_failure gives the message */
    s->broken = 1;
    h2_mark_dead(s);
    h2_fail_all(s, H2_EPROTO, 0, 0, s->msg);
    h2_session_close(s);
    return 1;
}

static size_t h2_on_data(net_conn *nc, void *owner, const char *p, size_t n) {
    h2_session *s = owner;
    (void)nc;
    if (s->closing) return n;
    if (!s->got_bytes && h2_tls_answer(s, p, n)) return n;
    s->in_recv = 1;
    s->rx_ns = uv_hrtime();
    ssize_t rv = nghttp2_session_mem_recv(s->ng, (const uint8_t *)p, n);
    s->in_recv = 0;
    if (s->closing) return n;
    if (rv < 0) {
        h2_fatal(s, (int)rv);
        return n;
    }
    s->want_flush = 0;
    h2_flush(s);
    return n;
}

static void h2_on_open(net_conn *nc, void *owner) {
    h2_session *s = owner;
    const char *alpn = net_conn_alpn(nc);
    if (s->cfg->conn.tls && (!alpn || strcmp(alpn, "h2") != 0)) {   /* nothing queued yet */
        snprintf(s->msg, sizeof s->msg, "the server did not select h2 by ALPN (it selected %s)",
                 alpn ? alpn : "nothing");
        s->fail_sys = UV_EPROTONOSUPPORT;    /* h2_session_failure gives the message (gRPC's connect) */
        const h2_session_cbs *cbs = s->cfg->cbs;
        if (cbs->on_other_alpn && cbs->on_other_alpn(s, s->owner, nc, alpn)) {
            s->nc = NULL;                     /* another owner's now: its on_closed is theirs */
            s->freed_conn = 1;
        }
        h2_mark_dead(s);
        h2_fail_all(s, H2_ENOTH2, 0, 0, s->msg);
        h2_session_close(s);
        return;
    }
    s->open = 1;
    uint64_t now = uv_hrtime();
    for (h2_stream *st = s->active; st; st = st->next)
        if (st->headers_sent) st->sent_ns = now;
    if (s->cfg->cbs->on_open) s->cfg->cbs->on_open(s, s->owner);
    if (s->cfg->conn.tls) h2_flush(s);        /* the preface and streams held for ALPN */
}

static void h2_on_fail(void *owner, int status, net_phase ph, const char *msg) {
    h2_session *s = owner;
    s->nc = NULL;                             /* closing already: its on_closed comes */
    if (s->closing) return;
    s->fail_sys = status ? status : UV_ECONNRESET;   /* known before on_dead asks */
    if (msg) snprintf(s->msg, sizeof s->msg, "%s", msg);
    else s->msg[0] = 0;
    h2_mark_dead(s);
    int st = ph == NET_PH_CONNECT || ph == NET_PH_TLS ? H2_ECONNECT : s->goaway_in ? H2_EGOAWAY : H2_ECONN;
    h2_fail_all(s, st, s->goaway_code, status, msg ? s->msg : NULL);
    h2_session_close(s);
}

static void h2_on_idle(uv_idle_t *h) {
    h2_session *s = h->data;
    uv_idle_stop(h);
    s->idle_on = 0;
    h2_flush(s);
}

/* Flush on the loop's next idle phase (before it polls): the API calls
 * submit and return, so no stream callback fires inside them. */
static void h2_flush_soon(h2_session *s) {
    if (s->idle_on || s->closing) return;
    if (s->in_recv) {
        s->want_flush = 1;
        return;
    }
    uv_idle_start(&s->idle, h2_on_idle);
    s->idle_on = 1;
}

static void h2_on_sent(net_conn *nc, void *owner) {
    h2_session *s = owner;
    (void)nc;
    if (!s->wheld || s->closing) return;
    s->wheld = 0;
    h2_flush(s);
}

static void h2_on_conn_closed(void *owner) {
    h2_session *s = owner;
    s->freed_conn = 1;
    h2_maybe_free(s);
}

static const net_conn_cbs h2_conn_cbs = {
    .on_open = h2_on_open,
    .on_data = h2_on_data,
    .on_fail = h2_on_fail,
    .on_closed = h2_on_conn_closed,
    .on_sent = h2_on_sent,
};

/* ---- the session ---- */

static void h2_on_timer_closed(uv_handle_t *h) {
    h2_session *s = h->data;
    if (h == (uv_handle_t *)&s->idle) s->freed_idle = 1;
    else s->freed_timer = 1;
    h2_maybe_free(s);
}

static void h2_maybe_free(h2_session *s) {
    if (!s->closing || !s->freed_conn || !s->freed_timer || !s->freed_idle) return;
    const h2_session_cbs *cbs = s->cfg->cbs;
    void *owner = s->owner;
    nghttp2_session_del(s->ng);
    h2_mem_free(&s->mem);
    while (s->free) {
        h2_stream *st = s->free;
        s->free = st->next;
        free(st->buf);
        free(st);
    }
    free(s->nv);
    free(s);
    if (cbs->on_closed) cbs->on_closed(owner);
}

static int h2_ng_new(h2_session *s) {
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb) != 0) return -1;
    nghttp2_session_callbacks_set_on_begin_frame_callback(cb, h2_cb_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, h2_cb_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback2(cb, h2_cb_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, h2_cb_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, h2_cb_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, h2_cb_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, h2_cb_frame_send);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(cb, h2_cb_not_send);
    nghttp2_session_callbacks_set_error_callback2(cb, h2_cb_error);
    nghttp2_option *opt;
    if (nghttp2_option_new(&opt) != 0) {
        nghttp2_session_callbacks_del(cb);
        return -1;
    }
    nghttp2_option_set_peer_max_concurrent_streams(opt, H2_DEFAULT_MAX_STREAMS);
    nghttp2_option_set_max_settings(opt, 64);              /* entries per SETTINGS frame */
    nghttp2_option_set_max_outbound_ack(opt, 1000);        /* a SETTINGS/PING flood: the session ends */
    nghttp2_option_set_max_send_header_block_length(opt, 256 * 1024);
    if (s->cfg->http_checks_own) nghttp2_option_set_no_http_messaging(opt, 1);
    nghttp2_mem mem = h2_mem_nghttp2(&s->mem);
    int rc = nghttp2_session_client_new3(&s->ng, cb, s, opt, &mem);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cb);
    if (rc != 0) return -1;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_STREAM_WINDOW},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, 256 * 1024},
    };
    if (nghttp2_submit_settings(s->ng, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]) != 0 ||
        nghttp2_session_set_local_window_size(s->ng, NGHTTP2_FLAG_NONE, 0, (int32_t)H2_CONN_WINDOW) != 0) {
        nghttp2_session_del(s->ng);
        s->ng = NULL;
        return -1;
    }
    if (s->cfg->first_stream_id > 1 &&        /* tests: stream ids near their end (RFC 9113 5.1.1) */
        nghttp2_session_set_next_stream_id(s->ng, (int32_t)(s->cfg->first_stream_id | 1)) != 0) {
        nghttp2_session_del(s->ng);
        s->ng = NULL;
        return -1;
    }
    return 0;
}

int h2_session_new(const h2_session_cfg *cfg, void *owner, h2_session **out) {
    *out = NULL;
    h2_session *s = calloc(1, sizeof *s);
    if (!s) return UV_ENOMEM;
    s->cfg = cfg;
    s->owner = owner;
    s->peer_max = H2_DEFAULT_MAX_STREAMS;
    if (h2_ng_new(s) != 0) {
        h2_mem_free(&s->mem);
        free(s);
        return UV_ENOMEM;
    }
    net_conn_cfg cc = cfg->conn;
    cc.cbs = &h2_conn_cbs;
    int rc = net_conn_open(&cc, s, &s->nc);
    if (rc < 0) {
        nghttp2_session_del(s->ng);
        h2_mem_free(&s->mem);
        free(s);
        return rc;
    }
    uv_timer_init(cfg->conn.loop, &s->timer);
    s->timer.data = s;
    uv_idle_init(cfg->conn.loop, &s->idle);
    s->idle.data = s;
    *out = s;
    h2_flush(s);                              /* h2c: preface and SETTINGS wait in the queue for the open */
    return 0;
}

/* RFC 9113 6.8: GOAWAY(NO_ERROR, last stream 0: a client processes no
 * server stream) before an orderly close, if the socket takes it now
 * (net_conn_close_flushed); written at a frame boundary (h2_flush hands
 * nghttp2's output on whole), after whatever was queued. */
static void h2_close_conn(h2_session *s) {
    static const uint8_t goaway[17] = {0, 0, 8, NGHTTP2_GOAWAY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!s->broken && s->open && net_conn_is_open(s->nc) && net_conn_write(s->nc, goaway, sizeof goaway) == 0) {
        s->st.frames_out++;
        net_conn_close_flushed(s->nc);
    } else {
        net_conn_close(s->nc);
    }
    s->nc = NULL;
}

void h2_session_close(h2_session *s) {
    if (!s || s->closing) return;
    h2_mark_dead(s);
    s->closing = 1;
    h2_fail_all(s, H2_ECANCELED, 0, UV_ECANCELED, NULL);
    if (s->nc) h2_close_conn(s);
    clock_timer_disarm(&s->timer, &s->timer_due);
    uv_close((uv_handle_t *)&s->timer, h2_on_timer_closed);
    uv_close((uv_handle_t *)&s->idle, h2_on_timer_closed);
}

unsigned h2_session_room(const h2_session *s) {
    if (s->dead || s->closing || s->draining) return 0;
    unsigned m = s->cfg->max_streams ? s->cfg->max_streams : H2_DEFAULT_MAX_STREAMS;
    if (s->peer_max < m) m = s->peer_max;
    return m > s->nactive ? m - s->nactive : 0;
}

unsigned h2_session_active(const h2_session *s) { return s->nactive; }
int h2_session_is_open(const h2_session *s) { return s->open && !s->closing && s->nc != NULL; }
int h2_session_dead(const h2_session *s) { return s->dead; }

int h2_session_failure(const h2_session *s, const char **msg) {
    if (msg) *msg = s->fail_sys && s->msg[0] ? s->msg : NULL;
    return s->fail_sys;
}
net_conn *h2_session_conn(h2_session *s) { return s->nc; }

void h2_session_get_stats(const h2_session *s, h2_session_stats *st) {
    *st = s->st;
    st->peer_max_streams = s->peer_max;
    st->peer_settings = s->peer_settings;
}

/* ---- opening streams ---- */

static h2_stream *h2_st_take(h2_session *s) {
    h2_stream *st = s->free;
    if (st) s->free = st->next;
    else if ((st = calloc(1, sizeof *st)) == NULL) return NULL;
    char *buf = st->buf;
    size_t cap = st->cap;
    memset(st, 0, offsetof(h2_stream, msg));
    st->msg[0] = 0;
    st->buf = buf;
    st->cap = cap;
    st->s = s;
    return st;
}

static int h2_st_append(h2_stream *st, const char *p, size_t n) {
    if (n == 0) return 0;
    if (st->off == st->len) st->off = st->len = 0;
    if (st->off && st->len + n > st->cap) {     /* a body sent in chunks: what left makes room */
        memmove(st->buf, st->buf + st->off, st->len - st->off);
        st->len -= st->off;
        st->off = 0;
    }
    if (st->len + n > st->cap) {
        size_t c = st->cap ? st->cap : 1024;
        while (c < st->len + n) c *= 2;
        char *b = realloc(st->buf, c);
        if (!b) return -1;
        st->buf = b;
        st->cap = c;
    }
    memcpy(st->buf + st->len, p, n);
    st->len += n;
    return 0;
}

static int h2_nv_fill(h2_session *s, const h2_nv *h, size_t n) {
    if (n > s->nv_cap) {
        size_t c = s->nv_cap ? s->nv_cap : 16;
        while (c < n) c *= 2;
        nghttp2_nv *nv = realloc(s->nv, c * sizeof *nv);
        if (!nv) return -1;
        s->nv = nv;
        s->nv_cap = c;
    }
    for (size_t i = 0; i < n; i++) {
        s->nv[i].name = (uint8_t *)(uintptr_t)h[i].name;
        s->nv[i].namelen = h[i].name_len;
        s->nv[i].value = (uint8_t *)(uintptr_t)h[i].value;
        s->nv[i].valuelen = h[i].value_len;
        s->nv[i].flags = h[i].name_static == H2_NV_KEPT ? NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE
                         : h[i].name_static             ? NGHTTP2_NV_FLAG_NO_COPY_NAME
                                                        : NGHTTP2_NV_FLAG_NONE;
    }
    return 0;
}

h2_stream *h2_stream_open(h2_session *s, const h2_nv *hdrs, size_t n, const char *body, size_t len,
                          int eos, uint64_t deadline_ns, const h2_stream_cbs *cbs, void *ud,
                          int *status) {
    if (s->dead || s->closing) {
        *status = H2_EREFUSED;
        return NULL;
    }
    h2_stream *st = h2_st_take(s);
    if (!st || h2_nv_fill(s, hdrs, n) != 0 || h2_st_append(st, body, len) != 0) {
        if (st) st->next = s->free, s->free = st;
        *status = H2_ENOMEM;
        return NULL;
    }
    st->cbs = cbs;
    st->ud = ud;
    st->eos = eos;
    st->has_body = !(eos && len == 0);
    st->deadline_ns = deadline_ns;
    nghttp2_data_provider prd;
    prd.source.ptr = st;
    prd.read_callback = h2_cb_read_body;
    int32_t id = nghttp2_submit_request(s->ng, NULL, s->nv, n, st->has_body ? &prd : NULL, st);
    if (id < 0) {
        st->next = s->free;
        s->free = st;
        *status = id == NGHTTP2_ERR_NOMEM ? H2_ENOMEM : id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE ? H2_EREFUSED
                                                                                                  : H2_EPROTO;
        if (id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE) h2_drain(s);   /* another connection takes it */
        return NULL;
    }
    st->id = id;
    st->state = ST_OPEN;
    st->next = s->active;
    if (s->active) s->active->prev = st;
    s->active = st;
    s->nactive++;
    s->st.streams++;
    h2_arm(s, deadline_ns, 0);               /* 0: the clock is read only when the timer moves */
    h2_flush_soon(s);
    *status = 0;
    return st;
}

int h2_stream_send(h2_stream *st, const char *p, size_t len, int eos) {
    h2_session *s = st->s;
    if (st->state != ST_OPEN || st->eos || !st->has_body) return H2_ECANCELED;
    if (h2_st_append(st, p, len) != 0) return H2_ENOMEM;
    st->eos = eos;
    if (st->deferred) {
        st->deferred = 0;
        nghttp2_session_resume_data(s->ng, st->id);
    }
    h2_flush_soon(s);
    return 0;
}

void h2_stream_cancel(h2_stream *st) {
    h2_session *s = st->s;
    if (st->state != ST_OPEN) return;
    nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
    h2_st_finish(st, H2_ECANCELED, NGHTTP2_CANCEL, UV_ECANCELED, NULL);
    h2_flush_soon(s);
}

size_t h2_stream_unsent(const h2_stream *st) { return st->state == ST_OPEN ? st->len - st->off : 0; }
uint64_t h2_stream_bytes_out(const h2_stream *st) { return st->bytes_out; }
uint64_t h2_stream_bytes_in(const h2_stream *st) { return st->bytes_in; }
uint64_t h2_stream_sent_ns(const h2_stream *st) { return st->sent_ns; }
uint64_t h2_stream_first_byte_ns(const h2_stream *st) { return st->first_ns; }
int32_t h2_stream_id(const h2_stream *st) { return st->id; }
