/* lm_ws.c - binds luamech.ws: connect() and the methods send, ping,
 * receive, close, closed and protocol of a WebSocket (client/ws_client.h
 * does the protocol).  Each method checks its arguments (misuse raises a
 * Lua error); receive and close wait on lua/lm_op.c's operation pattern,
 * connect on lm_client.c's.  It never parses bytes or touches sockets.
 *
 * luamech.ws.connect(url [, {headers=, tls=, subprotocols=, timeout=,
 *   max_message=, max_queue=}]) -> ws | nil, err.  url is ws://... or
 *   wss://... (TLS with the defaults; tls = {...} for settings); headers a
 *   table name -> value sent with the Upgrade request; subprotocols a string
 *   or an array of names offered in Sec-WebSocket-Protocol; timeout (s,
 *   default 10) bounds the handshake (TCP, TLS, Upgrade), each receive by
 *   default and the close handshake.  Timer "ws.connect" (the whole
 *   handshake), "ws.tls" for TLS alone.
 * ws:send(data [, "text"|"binary"]) -> true | nil, err: queued, leaves at
 *   the end of the loop turn (no yield).  Text must be UTF-8 (else raises).
 *   Counter ws.messages_sent.
 * ws:ping([data]) -> true | nil, err (the pong is not waited for).
 * ws:receive([timeout]) -> data, "text"|"binary" | nil, err [, code].
 *   Yields until a message (or one already queued).  Timer "ws.receive"
 *   (the wait), counter ws.messages_received.  err, "kind: detail" as
 *   client_describe writes it: "timeout" (the connection stays usable), the
 *   server's close ("server down: closed by the server (1000 bye)", code its
 *   close code), a protocol error (code 1002, 1007, 1009: luamech closed),
 *   the connection lost (code 1006).  The server's
 *   close with 1000, 1001 or no code ends a stream: it is neither a sample
 *   nor an error; every other failure is both.
 * ws:close([code [, reason]]) -> code, reason (the server's) | nil, err,
 *   code.  Timer "ws.close".  ws:closed() -> nil while open, else code,
 *   reason.  ws:protocol() -> the subprotocol the server chose, or "".
 * Failures are tallied as "ws.<method> <url>: <message>"; those of
 * connect, receive and close are also failed samples of their timers (the
 * server's clean close ending a receive is neither).  Every method but
 * closed and protocol must be called from a VU (its init or transaction). */
#include <lauxlib.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/ws_client.h"
#include "engine/vu_api.h"
#include "lua/lm_client.h"
#include "lua/lm_core.h"
#include "lua/lm_op.h"
#include "lua/lm_tls.h"

#define LM_WS_MT "luamech.ws"
#define LM_WS_MAX_HEADERS 64

typedef struct lm_ws_list {
    lm_client_list base;            /* first: the clients, ws.tls */
    int tid_connect, tid_receive, tid_close;
    int cid_sent, cid_received;
} lm_ws_list;

typedef struct lm_ws {
    lm_client_obj obj;              /* first */
    ws_client *client;              /* NULL once closed */
    worker *w;
    lm_ws_list *list;
    uint64_t timeout_ns;            /* receive's default wait */
    uint64_t connect_start_ns;
    vu *connect_vu;
    char url[300];                  /* for messages (the client may be gone) */
    lm_op_pool ops;
} lm_ws;

typedef struct lm_ws_op {
    lm_op core;                     /* first */
    lm_ws *ws;
    ws_recv req;
    int closing;                    /* a close op, not a receive */
    int status, code;
    int nres;                       /* values pushed by the completion (status 0) */
    char reason[124];
    size_t reason_len;
    char err[400];
} lm_ws_op;

/* connect's options, read before the client is made. */
typedef struct lm_ws_opts {
    ws_client_opts c;
    const char *url;
    ws_header headers[LM_WS_MAX_HEADERS];
    char protocols[1024];
} lm_ws_opts;

static lm_ws *lm_ws_check(lua_State *L) {
    lm_ws *ws = *(lm_ws **)lm_check_self(L, LM_WS_MT);
    if (ws == NULL || ws->client == NULL) luaL_error(L, "ws: this connection was not opened or is gone");
    return ws;
}

static void lm_ws_tally(lm_ws *ws, const char *method, const char *msg) {
    char buf[512];
    int n = snprintf(buf, sizeof buf, "ws.%s %s: %s", method, ws->url, msg);
    worker_error(ws->w, buf, n > 0 && (size_t)n < sizeof buf ? (size_t)n : strlen(buf));
}

/* ---- send, ping ---- */

static int lm_ws_sent(lua_State *L, lm_ws *ws, const char *method, int rc) {
    if (rc == 0) {
        if (strcmp(method, "send") == 0) worker_count(ws->w, ws->list->cid_sent, 1);
        lua_pushboolean(L, 1);
        return 1;
    }
    char msg[512], why[160];
    snprintf(msg, sizeof msg, "ws.%s %s: %s", method, ws->url,
             client_describe(why, sizeof why, ws_client_status(rc), ws_client_strerror(rc)));
    worker_error(ws->w, msg, strlen(msg));
    lua_pushnil(L);
    lua_pushstring(L, msg);
    return 2;
}

static int lm_ws_send(lua_State *L) {
    lm_ws *ws = lm_ws_check(L);
    size_t len;
    (void)lm_current_vu(L, ws->w, "ws:send");
    const char *p = luaL_checklstring(L, 2, &len);
    const char *kind = luaL_optstring(L, 3, "text");
    int op = strcmp(kind, "binary") == 0 ? WS_OP_BINARY : strcmp(kind, "text") == 0 ? WS_OP_TEXT : -1;
    if (op < 0) luaL_error(L, "ws:send: the kind must be \"text\" or \"binary\", got \"%s\"", kind);
    if (op == WS_OP_TEXT && !ws_utf8_ok(p, len))
        luaL_error(L, "ws:send: text is not UTF-8 (send it as binary: ws:send(data, \"binary\"))");
    return lm_ws_sent(L, ws, "send", ws_client_send(ws->client, op, p, len));
}

static int lm_ws_ping(lua_State *L) {
    lm_ws *ws = lm_ws_check(L);
    size_t len = 0;
    (void)lm_current_vu(L, ws->w, "ws:ping");
    const char *p = luaL_optlstring(L, 2, "", &len);
    if (len > WS_CONTROL_MAX) luaL_error(L, "ws:ping: at most 125 bytes of data");
    return lm_ws_sent(L, ws, "ping", ws_client_send(ws->client, WS_OP_PING, p, len));
}

/* ---- receive, close: ops ---- */

static int lm_ws_push(lm_op *core, lua_State *L) {
    lm_ws_op *op = (lm_ws_op *)core;
    if (op->status == 0 && op->closing) {
        lua_pushinteger(L, op->code);
        lua_pushlstring(L, op->reason, op->reason_len);
        return 2;
    }
    if (op->status == 0) return op->nres;
    lua_settop(L, op->core.base);
    lua_pushnil(L);
    lua_pushstring(L, op->err);
    if (op->code == 0) return 2;
    lua_pushinteger(L, op->code);
    return 3;
}

static lm_ws_op *lm_ws_op_get(lua_State *L, lm_ws *ws, int closing) {
    lm_ws_op *op = (lm_ws_op *)lm_op_get(&ws->ops);
    if (op == NULL) luaL_error(L, "ws: out of memory");
    op->ws = ws;
    op->closing = closing;
    op->status = op->code = op->nres = 0;
    op->reason_len = 0;
    op->err[0] = 0;
    return op;
}

static void lm_ws_on_message(ws_recv *r, int status, int opcode, const char *data, size_t len,
                             const char *errmsg) {
    lm_ws_op *op = r->data;
    lm_ws *ws = op->ws;
    int ok = status == 0, code = 0;
    const char *reason;
    if (!ok && status != UV_ETIMEDOUT && ws->client) code = ws_client_close_code(ws->client, &reason);
    op->status = status;
    op->code = code;
    /* the server's clean close ends a stream of messages: no sample, no error */
    int clean = status == WS_ECLOSED && (code == WS_CLOSE_NORMAL || code == WS_CLOSE_GOING_AWAY ||
                                         code == WS_CLOSE_NO_STATUS);
    if (!clean) lm_op_record_at(&op->core, ws->list->tid_receive, ok, r->done_ns);
    if (ok) {
        worker_count(ws->w, ws->list->cid_received, 1);
        lua_State *L = lm_op_stack(&op->core);
        if (L) {
            lua_pushlstring(L, data, len);
            lua_pushstring(L, opcode == WS_OP_BINARY ? "binary" : "text");
            op->nres = 2;
        }
    } else {
        int n = snprintf(op->err, sizeof op->err, "ws.receive %s: ", ws->url);
        if (n > 0 && (size_t)n < sizeof op->err)
            client_describe(op->err + n, sizeof op->err - (size_t)n, ws_client_status(status), errmsg);
        if (!clean) worker_error(ws->w, op->err, strlen(op->err));
    }
    lm_op_request_done(&op->core);
}

static uint64_t lm_ws_timeout_arg(lua_State *L, int idx, uint64_t dflt) {
    if (lua_isnoneornil(L, idx)) return dflt;
    double s = luaL_checknumber(L, idx);
    if (!(s >= 0) || s > 86400) luaL_error(L, "ws:receive: timeout must be a number of seconds between 0 and 86400");
    return (uint64_t)(s * 1e9);
}

static int lm_ws_receive(lua_State *L) {
    lm_ws *ws = lm_ws_check(L);
    uint64_t to = lm_ws_timeout_arg(L, 2, ws->timeout_ns);
    vu *v = lm_current_vu(L, ws->w, "ws:receive");
    lm_ws_op *op = lm_ws_op_get(L, ws, 0);
    op->req.on_done = lm_ws_on_message;
    op->req.data = op;
    lm_op_start(&op->core, v, L, 1);
    ws_client_receive(ws->client, &op->req, to);
    return lm_op_finish_call(&op->core, L);
}

static void lm_ws_on_closed(void *data, int status, int code, const char *reason, size_t reason_len) {
    lm_ws_op *op = data;
    lm_ws *ws = op->ws;
    op->status = status;
    op->code = code;
    op->reason_len = reason_len < sizeof op->reason ? reason_len : sizeof op->reason - 1;
    memcpy(op->reason, reason, op->reason_len);
    lm_op_record(&op->core, ws->list->tid_close, status == 0);
    if (status != 0) {
        const char *why = ws->client ? ws_client_error(ws->client) : "";
        int n = snprintf(op->err, sizeof op->err, "ws.close %s: ", ws->url);
        if (n > 0 && (size_t)n < sizeof op->err)
            client_describe(op->err + n, sizeof op->err - (size_t)n, ws_client_status(status),
                            *why && status != UV_ECANCELED ? why : ws_client_strerror(status));
        worker_error(ws->w, op->err, strlen(op->err));
    }
    lm_op_request_done(&op->core);
}

static int lm_ws_close(lua_State *L) {
    lm_ws *ws = lm_ws_check(L);
    int code = (int)luaL_optinteger(L, 2, WS_CLOSE_NORMAL);
    size_t rlen = 0;
    const char *reason = luaL_optlstring(L, 3, "", &rlen);
    if (!ws_close_code_ok(code)) luaL_error(L, "ws:close: code %d may not be sent (1000-1003, 1007-1014, 3000-4999)", code);
    if (rlen > WS_CONTROL_MAX - 2 || !ws_utf8_ok(reason, rlen))
        luaL_error(L, "ws:close: the reason must be UTF-8 of at most 123 bytes");
    vu *v = lm_current_vu(L, ws->w, "ws:close");
    lm_ws_op *op = lm_ws_op_get(L, ws, 1);
    lm_op_start(&op->core, v, L, 1);
    ws_client_close(ws->client, code, reason, rlen, lm_ws_on_closed, op);
    return lm_op_finish_call(&op->core, L);
}

static int lm_ws_closed(lua_State *L) {
    lm_ws *ws = lm_ws_check(L);
    const char *reason;
    int code = ws_client_close_code(ws->client, &reason);
    if (code == 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, code);
    lua_pushstring(L, reason);
    return 2;
}

static int lm_ws_protocol(lua_State *L) {
    lua_pushstring(L, ws_client_protocol(lm_ws_check(L)->client));
    return 1;
}

/* ---- connect / life ---- */

static void lm_ws_close_client(void *obj) {
    lm_ws *ws = obj;
    ws_client *c = ws->client;
    if (c == NULL) return;
    ws->client = NULL;
    ws_client_free(c);                      /* pending ops complete with UV_ECANCELED */
}

static void lm_ws_free(void *obj) {
    lm_ws *ws = obj;
    lm_client_unlink(&ws->obj);
    lm_op_pool_free(&ws->ops);
    free(ws);
}

/* A collected connection is freed unless an op waits on it (left to the
 * worker's teardown). */
static int lm_ws_gc(lua_State *L) {
    lm_ws **ud = luaL_checkudata(L, 1, LM_WS_MT);
    lm_ws *ws = *ud;
    if (ws == NULL) return 0;
    *ud = NULL;
    ws->obj.ud = NULL;
    if (ws->client && ws_client_busy(ws->client)) return 0;
    lm_ws_close_client(ws);
    lm_ws_free(ws);
    return 0;
}

static void lm_ws_on_connect(void *data, int status, const char *errmsg) {
    lm_ws *ws = lm_connect_client(data);
    uint64_t now = worker_now_ns();
    vu_record(ws->connect_vu, ws->list->tid_connect, (int64_t)(now - ws->connect_start_ns), now,
              status == 0 ? SAMPLE_OK : SAMPLE_FAILED);
    char why[256] = "";
    if (status != 0) {                  /* the returned error says what the tally line says */
        client_describe(why, sizeof why, ws_client_status(status), errmsg ? errmsg : ws_client_strerror(status));
        lm_ws_tally(ws, "connect", why);
    }
    lm_connect_done(data, status, "ws.connect %s: %s", ws->url, why);
}

static void lm_ws_connect(void *obj, lm_connect *cc) {
    lm_ws *ws = obj;
    ws->connect_start_ns = worker_now_ns();
    ws_client_connect(ws->client, lm_ws_on_connect, cc);
}

static void lm_ws_worker_close(void *list) { lm_client_list_close(list, lm_ws_close_client, lm_ws_free); }

/* headers = {name = value, ...} */
static void lm_ws_headers(lua_State *L, int idx, lm_ws_opts *o) {
    lua_getfield(L, idx, "headers");
    int t = lua_gettop(L);
    if (!lua_isnil(L, t)) {
        if (!lua_istable(L, t)) luaL_error(L, "ws.connect: headers must be a table of name = value");
        lua_pushnil(L);
        while (lua_next(L, t)) {
            if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
                luaL_error(L, "ws.connect: headers must be a table of name = value (strings)");
            if (o->c.nheaders == LM_WS_MAX_HEADERS) luaL_error(L, "ws.connect: at most 64 headers");
            ws_header *h = &o->headers[o->c.nheaders++];
            h->name = lua_tolstring(L, -2, &h->name_len);     /* anchored by the table */
            h->value = lua_tolstring(L, -1, &h->value_len);
            if (!ws_header_ok(h))
                luaL_error(L, "ws.connect: header '%s' may not be sent (a bad name or value, or one the "
                              "handshake sets)", h->name);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    o->c.headers = o->headers;
}

/* One subprotocol name at the top of the stack, appended to the list. */
static void lm_ws_proto_add(lua_State *L, lm_ws_opts *o) {
    size_t n = 0, have = strlen(o->protocols);
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
    if (s == NULL || !ws_token_ok(s, n)) luaL_error(L, "ws.connect: subprotocols must be names (tokens)");
    if (have + n + 3 > sizeof o->protocols) luaL_error(L, "ws.connect: subprotocols: the list is too long");
    snprintf(o->protocols + have, sizeof o->protocols - have, "%s%s", have ? ", " : "", s);
}

static void lm_ws_subprotocols(lua_State *L, int idx, lm_ws_opts *o) {
    lua_getfield(L, idx, "subprotocols");
    int t = lua_gettop(L);
    if (lua_istable(L, t)) {
        for (int i = 1; i <= (int)lua_objlen(L, t); i++) {
            lua_rawgeti(L, t, i);
            lm_ws_proto_add(L, o);
            lua_pop(L, 1);
        }
    } else if (!lua_isnil(L, t)) {
        lm_ws_proto_add(L, o);
    }
    lua_pop(L, 1);
    if (o->protocols[0]) o->c.protocols = o->protocols;
}

#define LM_WS_AT(f) LM_OPT_AT(lm_ws_opts, c.f)
#define LM_WS_GIB 1073741824.0

/* ws.connect's options as data (lm_client.h): the reader below and
 * lua/types/luamech.lua's luamech.WsOptions are checked against these rows. */
static const lm_opt_spec lm_ws_spec[] = {
    {"timeout", LM_OPT_SECONDS, 0, 86400, CLIENT_TIMEOUT_DEFAULT_NS / 1e9, "10", LM_WS_AT(timeout_ns)},
    {"connect_timeout", LM_OPT_SECONDS, 0, 86400, 0, "timeout", LM_WS_AT(connect_timeout_ns)},
    {"max_message", LM_OPT_BYTES, 1, LM_WS_GIB, (double)WS_MAX_MESSAGE_DEFAULT, "1 MiB", LM_WS_AT(max_message)},
    {"max_queue", LM_OPT_BYTES, 1, LM_WS_GIB, (double)WS_MAX_QUEUE_DEFAULT, "4 MiB", LM_WS_AT(max_queue)},
    LM_OPT_OWN("headers", NULL),
    LM_OPT_OWN("subprotocols", NULL),
    LM_OPT_OWN("tls", NULL),
    LM_OPT_OWN(NULL, NULL)};

static const net_tls_opts **lm_ws_opts_read(lua_State *L, int idx, void *opts, int *pool) {
    lm_ws_opts *o = opts;
    ws_client_opts_default(&o->c);
    o->protocols[0] = 0;
    *pool = 0;                                  /* ws clients are never pooled */
    if (!lm_opts_read(L, idx, "ws.connect", lm_ws_spec, o)) return &o->c.tls;
    lm_ws_headers(L, idx, o);
    lm_ws_subprotocols(L, idx, o);
    return &o->c.tls;
}

static int lm_ws_new(void *obj, const lm_connect_args *a, void *opts, char *err, size_t err_len) {
    lm_ws *ws = obj;
    lm_ws_opts *o = opts;
    if (ws_client_new(worker_loop(a->w), o->url, &o->c, &ws->client, err, err_len) != 0) return -1;
    ws->w = a->w;
    ws->list = (lm_ws_list *)ws->obj.list;
    ws->timeout_ns = o->c.timeout_ns;
    ws->connect_vu = a->v;
    snprintf(ws->url, sizeof ws->url, "%s", ws_client_url(ws->client));
    lm_op_pool_init(&ws->ops, sizeof(lm_ws_op), lm_ws_push, NULL);
    return 0;
}

static const lm_client_kind lm_ws_kind = {
    .fname = "ws.connect", .vu_fname = "luamech.ws.connect", .mt = LM_WS_MT, .size = sizeof(lm_ws),
    .tls_scheme = "wss://", .plain_scheme = NULL, .opts = lm_ws_opts_read, .create = lm_ws_new,
    .connect = lm_ws_connect, .close = lm_ws_close_client};

static int lm_ws_connect_lua(lua_State *L) {
    lm_ws_list *list = lua_touserdata(L, lua_upvalueindex(2));
    lm_ws_opts o;
    lm_connect_args a;
    o.url = luaL_checkstring(L, 1);
    lm_connect_args_read(L, &lm_ws_kind, lua_touserdata(L, lua_upvalueindex(1)), &list->base.tls, &a, &o);
    if (list->tid_connect < 0) {
        list->tid_connect = lm_timer_id(a.w, "ws.connect", TK_PRIMITIVE);
        list->tid_receive = lm_timer_id(a.w, "ws.receive", TK_PRIMITIVE);
        list->tid_close = lm_timer_id(a.w, "ws.close", TK_PRIMITIVE);
        list->cid_sent = worker_counter_id(a.w, "ws.messages_sent");
        list->cid_received = worker_counter_id(a.w, "ws.messages_received");
    }
    lm_pool_key key = {.address = a.address};
    return lm_client_connect(L, &lm_ws_kind, &list->base, &key, &a, &o);
}

void lm_ws_open(lua_State *L, worker *w) {
    static const luaL_Reg methods[] = {
        {"send", lm_ws_send}, {"ping", lm_ws_ping}, {"receive", lm_ws_receive}, {"close", lm_ws_close},
        {"closed", lm_ws_closed}, {"protocol", lm_ws_protocol}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__gc", lm_ws_gc}, {NULL, NULL}};
    lm_client_type(L, LM_WS_MT, methods, meta, NULL);
    lm_ws_list *list = calloc(1, sizeof *list);
    if (list) list->tid_connect = -1;
    lm_client_module(L, w, list ? &list->base : NULL, "ws", lm_ws_worker_close, lm_ws_connect_lua);
}

void lm_ws_timer_names(lm_name_fn fn, void *ctx) {
    fn(ctx, "ws.connect");
    fn(ctx, "ws.receive");
    fn(ctx, "ws.close");
    fn(ctx, "ws.tls");
}
