/* lm_grpc_stream.c - luamech.grpc's streams read and written while they
 * run: c:open_stream(method [, request [, {metadata =, timeout =, name =}]])
 * starts a call of a server-streaming, client-streaming or bidirectional
 * method (the request, when given, is its first message) and returns a
 * stream object:
 *   s:send(request) -> true | nil, err    (client-streaming, bidi; no yield)
 *   s:close_send() -> true                (bidi, server-streaming: the
 *     request ends), or -> reply, code, msg (client-streaming: waits for the
 *     one reply and the status, as c:invoke)
 *   s:recv() -> message | nil, code, msg  (server-streaming, bidi: yields
 *     the VU until the next message, or the end with the call's status)
 *   s:cancel()                            (the call ends CANCELLED)
 * Messages are queued as they arrive (each checked against the output type
 * then, so that a malformed one fails the call as for c:stream) and decoded
 * for the script at recv.  The call is one sample of "grpc <method>" from
 * open to its status, one count of grpc.status.<NAME>, a tallied error when
 * not OK; messages count in grpc.stream.messages_sent and _received.  A
 * waiting VU is woken from a uv_check handle after the loop's I/O, never
 * from inside HTTP/2's callbacks (the script may cancel or drop the stream
 * there), except by the call's end.  A collected stream's record goes back
 * to its worker's pool with its buffers.  No bytes are parsed here and no
 * socket is touched. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_core.h"
#include "lua/lm_grpc_int.h"

enum { LM_GS_RECV = 1, LM_GS_CLOSE = 2 };

typedef struct lm_gs_op {
    lm_op core;                     /* first */
    lm_gs *s;
    int kind;                       /* LM_GS_RECV, LM_GS_CLOSE */
} lm_gs_op;

struct lm_gs {
    lm_gr *g;                       /* NULL once the client closed (the call is over then) */
    lm_gs *next, **pprev;           /* g->streams */
    lm_gs *wake_next;               /* the list's streams to wake; on it: wake_on */
    int wake_on;
    grpc_call call;
    const pb_method *m;
    vu *v;
    int tid;
    uint64_t start_ns;
    int done, ended_send, code;
    uint64_t received;
    char msg[600];
    uint8_t *rx;                    /* queued messages, one after another */
    size_t rx_len, rx_cap;
    size_t *ends;                   /* where each queued message ends in rx */
    size_t nends, ends_cap, head;   /* head: the next message for recv */
    lm_gs_op *waiter;
};

/* The deferred wake-ups of a worker's streams (one per list, made at the
 * first open_stream; freed by its handle's close callback). */
struct lm_gs_waker {
    uv_check_t chk;
    lm_gs *head;
    int on;
};

/* ---- the queue ---- */

static size_t lm_gs_start_of(const lm_gs *s, size_t i) { return i == 0 ? 0 : s->ends[i - 1]; }

static void lm_gs_compact(lm_gs *s) {
    size_t shift = lm_gs_start_of(s, s->head);
    if (s->head == 0) return;
    memmove(s->rx, s->rx + shift, s->rx_len - shift);
    s->rx_len -= shift;
    for (size_t i = s->head; i < s->nends; i++) s->ends[i - s->head] = s->ends[i] - shift;
    s->nends -= s->head;
    s->head = 0;
}

/* Append a message; 0, or -1 with the call failed. */
static int lm_gs_queue(lm_gs *s, const uint8_t *p, size_t n) {
    size_t kept = s->rx_len - lm_gs_start_of(s, s->head) + (s->nends - s->head + 1) * (size_t)LM_GR_MSG_COST;
    if (kept + n > LM_GR_STREAM_MAX) {
        grpc_call_fail(&s->call, 8, "more than 64 MiB of messages wait for s:recv() (64 bytes counted per message besides its own)");
        return -1;
    }
    if (s->rx_len + n > s->rx_cap || s->nends == s->ends_cap) lm_gs_compact(s);
    if (s->rx_len + n > s->rx_cap) {
        size_t cap = s->rx_cap ? s->rx_cap : 4096;
        while (cap < s->rx_len + n) cap *= 2;
        uint8_t *b = realloc(s->rx, cap);
        if (!b) return grpc_call_fail(&s->call, 8, "out of memory"), -1;
        s->rx = b;
        s->rx_cap = cap;
    }
    if (s->nends == s->ends_cap) {
        size_t cap = s->ends_cap ? s->ends_cap * 2 : 8;
        size_t *e = realloc(s->ends, cap * sizeof *e);
        if (!e) return grpc_call_fail(&s->call, 8, "out of memory"), -1;
        s->ends = e;
        s->ends_cap = cap;
    }
    if (n) memcpy(s->rx + s->rx_len, p, n);
    s->rx_len += n;
    s->ends[s->nends++] = s->rx_len;
    return 0;
}

/* Push the next queued message decoded (it was checked on arrival); 1, or
 * 0 when none is queued. */
static int lm_gs_pop(lm_gs *s, lua_State *L) {
    if (s->head == s->nends) return 0;
    if (!s->g) return 0;                /* the client closed: its messages went with it */
    pb_arena *ar = &s->g->list->dec;
    const pb_schema *schema = s->g->schema;
    size_t a = lm_gs_start_of(s, s->head), b = s->ends[s->head];
    pb_arena_reset(ar);
    pb_val *tree;
    char err[300];
    pb_limits lim = {0, LM_GR_STREAM_MAX};
    if (pb_decode(schema, s->m->out, s->rx + a, b - a, ar, &lim, &tree, err, sizeof err) < 0) {
        lua_pushnil(L);                 /* not reached: checked on arrival */
    } else {
        lm_pb_push(L, schema, tree);
    }
    if (++s->head == s->nends) s->head = s->nends = s->rx_len = 0;
    return 1;
}

/* ---- completion ---- */

static void lm_gs_wake(lm_gs *s) {
    lm_gs_op *op = s->waiter;
    if (!op) return;
    s->waiter = NULL;
    lm_op_request_done(&op->core);
}

static void lm_gs_on_check(uv_check_t *h) {
    lm_gs_waker *wk = h->data;
    while (wk->head) {
        lm_gs *s = wk->head;
        wk->head = s->wake_next;
        s->wake_on = 0;
        lm_gs_wake(s);
    }
    uv_check_stop(h);
    wk->on = 0;
}

static void lm_gs_wake_later(lm_gs *s) {
    lm_gs_waker *wk = s->g->list->waker;
    if (s->wake_on) return;
    s->wake_on = 1;
    s->wake_next = wk->head;
    wk->head = s;
    if (!wk->on && uv_check_start(&wk->chk, lm_gs_on_check) == 0) wk->on = 1;
}

/* Take s off the wake-up list (it is detached or collected). */
static void lm_gs_unwake(lm_gs *s) {
    if (!s->wake_on || !s->g) return;
    for (lm_gs **pp = &s->g->list->waker->head; *pp; pp = &(*pp)->wake_next)
        if (*pp == s) {
            *pp = s->wake_next;
            break;
        }
    s->wake_on = 0;
}

static int lm_gs_on_message(void *ud, const uint8_t *p, size_t n) {
    lm_gs *s = ud;
    if (s->done || !s->g) return 1;                 /* cancelled from a callback meanwhile */
    lm_gr_list *l = s->g->list;
    if (!s->m->server_streaming && s->received >= 1) {
        grpc_call_fail(&s->call, 13, "a client-streaming method answered more than one message");
        return 1;
    }
    pb_arena_reset(&l->dec);
    pb_val *tree;
    char err[300];
    pb_limits lim = {0, LM_GR_STREAM_MAX};
    if (pb_decode(s->g->schema, s->m->out, p, n, &l->dec, &lim, &tree, err, sizeof err) < 0) {
        char e[400];
        snprintf(e, sizeof e, "response %llu: %s", (unsigned long long)s->received + 1, err);
        grpc_call_fail(&s->call, 13, e);
        return 1;
    }
    if (lm_gs_queue(s, p, n) < 0) return 1;
    s->received++;
    worker_count(l->w, l->cid_received, 1);
    if (s->waiter && s->waiter->kind == LM_GS_RECV) lm_gs_wake_later(s);
    return 0;
}

static void lm_gs_on_done(void *ud, const grpc_result *r) {
    lm_gs *s = ud;
    s->done = 1;
    s->code = r->code;
    if (s->g) lm_gr_count_retries(s->g->list, r->retries);
    snprintf(s->msg, sizeof s->msg, "%s", r->message ? r->message : "");
    if (s->code == 0 && !s->m->server_streaming && s->received != 1) {
        s->code = 12;                   /* as for a unary call without its response */
        snprintf(s->msg, sizeof s->msg, "a client-streaming method answered OK with %llu messages",
                 (unsigned long long)s->received);
    }
    uint64_t now = worker_now_ns();
    vu_record(s->v, s->tid, now > s->start_ns ? (int64_t)(now - s->start_ns) : 0, now, s->code == 0);
    if (s->g) lm_gr_count_status(s->g->list, s->v, s->m, s->code, s->msg);
    lm_gs_wake(s);                      /* the call's end: safe here, as for c:invoke */
}

static const grpc_call_cbs lm_gs_call_cbs = {lm_gs_on_message, lm_gs_on_done};

static int lm_gs_push_status(lm_gs *s, lua_State *L) {
    lua_pushnil(L);
    lua_pushinteger(L, s->code);
    lua_pushstring(L, s->code == 0 ? "" : s->msg);
    return 3;
}

/* recv: a message, or nil, code, msg at the end; close (client-streaming):
 * reply, code, msg. */
static int lm_gs_results(lm_gs *s, int kind, lua_State *L) {
    if (kind == LM_GS_RECV) return lm_gs_pop(s, L) ? 1 : lm_gs_push_status(s, L);
    if (s->code == 0 && lm_gs_pop(s, L)) {
        lua_pushinteger(L, 0);
        lua_pushstring(L, "");
        return 3;
    }
    return lm_gs_push_status(s, L);
}

static int lm_gs_push(lm_op *o, lua_State *L) {
    lm_gs_op *op = (lm_gs_op *)o;
    lm_op_anchor(o, L, 0, 0);
    return lm_gs_results(op->s, op->kind, L);
}

/* ---- the stream object ---- */

static lm_gs *lm_gs_check(lua_State *L, const char *fname) {
    lm_gs **ud = lm_check_self(L, LM_GS_MT);
    if (!*ud) luaL_error(L, "%s: the stream is gone", fname);
    return *ud;
}

static void lm_gs_unlink(lm_gs *s) {
    if (!s->pprev) return;
    *s->pprev = s->next;
    if (s->next) s->next->pprev = s->pprev;
    s->next = NULL;
    s->pprev = NULL;
}

void lm_gs_detach_all(lm_gr *g) {
    while (g->streams) {
        lm_gs *s = g->streams;
        lm_gs_unwake(s);
        lm_gs_unlink(s);
        s->g = NULL;
    }
}

/* Wait for the next message or the end (kind RECV), or for the end (CLOSE). */
static int lm_gs_wait(lua_State *L, lm_gs *s, int kind, const char *fname) {
    if (s->waiter) luaL_error(L, "%s: another VU waits on this stream", fname);
    if (!s->g) luaL_error(L, "%s: the client is closed", fname);
    vu *v = lm_current_vu(L, s->g->w, fname);
    lm_gs_op *op = (lm_gs_op *)lm_op_get(&s->g->list->sops);
    if (!op) luaL_error(L, "%s: out of memory", fname);
    op->s = s;
    op->kind = kind;
    lm_op_start(&op->core, v, L, 1);
    lm_op_anchor(&op->core, L, 1, 0);   /* the stream stays while a VU waits on it */
    s->waiter = op;
    return lm_op_finish_call(&op->core, L);
}

static int lm_gs_recv(lua_State *L) {
    lm_gs *s = lm_gs_check(L, "stream recv");
    if (!s->m->server_streaming)
        luaL_error(L, "stream recv: %s is client-streaming: its reply comes from s:close_send()", s->m->path);
    if (lm_gs_pop(s, L)) return 1;
    if (s->done) return lm_gs_push_status(s, L);
    return lm_gs_wait(L, s, LM_GS_RECV, "stream recv");
}

static int lm_gs_send(lua_State *L) {
    lm_gs *s = lm_gs_check(L, "stream send");
    if (!s->m->client_streaming) luaL_error(L, "stream send: %s is server-streaming: its request went at open", s->m->path);
    if (s->ended_send) luaL_error(L, "stream send: the request was ended by s:close_send()");
    char e[800], why[600];
    if (s->done || !s->g) {
        snprintf(why, sizeof why, "the call is over%s%.570s", s->msg[0] ? ": " : "", s->msg);
        lm_gr_error_text(e, sizeof e, s->m, s->code, why);
        lua_pushnil(L);
        lua_pushstring(L, e);
        return 2;
    }
    (void)lm_current_vu(L, s->g->w, "stream send");
    size_t len;
    const char *body = lm_gr_encode(L, s->g, 2, s->m->in, "stream send", &len);
    size_t unsent = grpc_call_unsent(&s->call);
    int rc = unsent + len > LM_GS_UNSENT_MAX ? H2_ENOMEM : grpc_call_send(&s->call, body, len, 0);
    if (rc != 0) {
        if (unsent + len > LM_GS_UNSENT_MAX)
            snprintf(why, sizeof why, "%zu bytes wait for the server's flow-control window (at most 16 MiB)", unsent);
        else
            snprintf(why, sizeof why, "%s", h2_strerror(rc));
        lm_gr_error_text(e, sizeof e, s->m, grpc_code_of_h2(rc), why);
        lua_pushnil(L);
        lua_pushstring(L, e);
        return 2;
    }
    worker_count(s->g->w, s->g->list->cid_sent, 1);
    lua_pushboolean(L, 1);
    return 1;
}

static int lm_gs_close_send(lua_State *L) {
    lm_gs *s = lm_gs_check(L, "stream close_send");
    if (!s->ended_send) {
        s->ended_send = 1;
        if (!s->done) grpc_call_send(&s->call, NULL, 0, 1);
    }
    if (s->m->server_streaming) {
        lua_pushboolean(L, 1);
        return 1;
    }
    if (s->done) return lm_gs_results(s, LM_GS_CLOSE, L);
    return lm_gs_wait(L, s, LM_GS_CLOSE, "stream close_send");
}

static int lm_gs_cancel(lua_State *L) {
    lm_gs *s = lm_gs_check(L, "stream cancel");
    if (!s->done) grpc_call_cancel(&s->call);
    return 0;
}

static void lm_gs_free(lm_gs *s) {
    grpc_call_fini(&s->call);
    free(s->rx);
    free(s->ends);
    free(s);
}

/* A record for a new stream: a pooled one (its buffers kept, the rest
 * zeroed) or a new one; NULL when out of memory. */
static lm_gs *lm_gs_take(lm_gr_list *l) {
    lm_gs *s = l->gs_free;
    if (!s) return calloc(1, sizeof *s);
    l->gs_free = s->next;
    lm_gs keep = *s;
    memset(s, 0, sizeof *s);
    s->call.df = keep.call.df;
    s->call.keep = keep.call.keep;
    s->call.keep_cap = keep.call.keep_cap;
    s->rx = keep.rx;
    s->rx_cap = keep.rx_cap;
    s->ends = keep.ends;
    s->ends_cap = keep.ends_cap;
    return s;
}

static int lm_gs_gc(lua_State *L) {
    lm_gs **ud = luaL_checkudata(L, 1, LM_GS_MT);
    lm_gs *s = *ud;
    if (!s) return 0;
    *ud = NULL;
    if (!s->done) grpc_call_cancel(&s->call);   /* dropped while running: CANCELLED (a no-op once
                                                 * its client closed: that ended the call) */
    lm_gs_unwake(s);
    lm_gs_unlink(s);
    if (s->g) {                         /* the record and its buffers serve the next stream */
        lm_gr_list *l = s->g->list;
        s->next = l->gs_free;
        l->gs_free = s;
        return 0;
    }
    lm_gs_free(s);
    return 0;
}

static int lm_gs_tostring(lua_State *L) {
    lm_gs **ud = luaL_checkudata(L, 1, LM_GS_MT);
    lua_pushfstring(L, "grpc stream %s", *ud ? (*ud)->m->path : "(gone)");
    return 1;
}

void lm_gs_type(lua_State *L) {
    static const luaL_Reg methods[] = {{"send", lm_gs_send}, {"close_send", lm_gs_close_send}, {"recv", lm_gs_recv},
                                       {"cancel", lm_gs_cancel}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__gc", lm_gs_gc}, {"__tostring", lm_gs_tostring}, {NULL, NULL}};
    lm_client_type(L, LM_GS_MT, methods, meta, NULL);
}

/* ---- open ---- */

static void lm_gs_waker_closed(uv_handle_t *h) { free(h->data); }

void lm_gs_list_close(lm_gr_list *l) {
    while (l->gs_free) {
        lm_gs *s = l->gs_free;
        l->gs_free = s->next;
        lm_gs_free(s);
    }
    lm_op_pool_free(&l->sops);
    if (l->waker) uv_close((uv_handle_t *)&l->waker->chk, lm_gs_waker_closed);
    l->waker = NULL;
}

/* The list's stream parts, made at the first open_stream. */
static void lm_gs_list_init(lua_State *L, lm_gr_list *l) {
    if (l->sops.size) return;
    lm_op_pool_init(&l->sops, sizeof(lm_gs_op), lm_gs_push, NULL);
    lm_gr_stream_counters(l);
    lm_gs_waker *wk = calloc(1, sizeof *wk);
    if (!wk || uv_check_init(worker_loop(l->w), &wk->chk) != 0) {
        free(wk);
        luaL_error(L, "grpc open_stream: cannot make the wake-up handle");
    }
    wk->chk.data = wk;
    l->waker = wk;
}

int lm_gs_open(lua_State *L) {
    const char *fname = "grpc open_stream";
    lm_gr_call_args a;
    lm_gr *g = lm_gr_call_args_read(L, 4, fname, &a);
    const pb_method *m = a.m;
    if (!m->client_streaming && !m->server_streaming)
        luaL_error(L, "%s: %s is unary: use c:invoke", fname, m->path);
    if (!m->client_streaming && lua_isnoneornil(L, 3))
        luaL_error(L, "%s: %s is server-streaming: its request is given here", fname, m->path);
    vu *v = lm_current_vu(L, g->w, fname);
    lm_gs_list_init(L, g->list);
    size_t len = 0;
    const char *body = lua_isnoneornil(L, 3) ? "" : lm_gr_encode(L, g, 3, m->in, fname, &len);
    lm_gs **ud = lua_newuserdata(L, sizeof *ud);
    *ud = NULL;
    lm_gs *s = lm_gs_take(g->list);
    if (!s) luaL_error(L, "%s: out of memory", fname);
    *ud = s;
    luaL_getmetatable(L, LM_GS_MT);
    lua_setmetatable(L, -2);
    lua_createtable(L, 1, 0);               /* the stream keeps its client */
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_setfenv(L, -2);
    s->g = g;
    s->m = m;
    s->v = v;
    s->tid = a.tid;
    s->next = g->streams;
    if (s->next) s->next->pprev = &s->next;
    s->pprev = &g->streams;
    g->streams = s;
    s->start_ns = worker_now_ns();
    s->ended_send = !m->client_streaming;
    uint64_t deadline = a.timeout_ns ? s->start_ns + a.timeout_ns : 0;
    if (len) worker_count(g->w, g->list->cid_sent, 1);
    if (m->client_streaming)
        grpc_call_start_open(g->client, &s->call, a.path, a.md, a.nmd, body, len, deadline, &lm_gs_call_cbs, s);
    else
        grpc_call_start(g->client, &s->call, a.path, a.md, a.nmd, body, len, deadline, &lm_gs_call_cbs, s);
    return 1;
}
