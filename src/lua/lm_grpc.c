/* lm_grpc.c - luamech.grpc: connect(target, {proto =, tls =, metadata =,
 * pool =, timeout =, connect_timeout =, max_recv =, compression =}) makes a client of
 * client/grpc_client.c (one HTTP/2 connection, shared by a worker's VUs
 * when pooled); c:invoke(method, request, {metadata =, timeout =, name =})
 * returns the response table, the status code and its message (never
 * raises for a call that failed); c:stream(...) the same for a
 * server-streaming method, with the responses in an array; c:open_stream
 * is lm_grpc_stream.c's (streams read and written while they run).  Requests are
 * built from Lua tables through lm_pb.c into the codec's tree and encoded
 * by proto/pb_codec.c; responses are decoded there on completion.  Each
 * call is a sample of timer "grpc <method>" (or "grpc <name>"), failed
 * unless its status is OK, a count in counter "grpc.status.<NAME>", and a
 * tallied error when not OK; the timers are parts of the aggregate "grpc".
 * No bytes are parsed here and no socket is touched. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_core.h"
#include "lua/lm_grpc_int.h"

typedef struct lm_gr_opts {
    uint64_t timeout_ns, connect_timeout_ns;
    const net_tls_opts *tls;
    const char *proto;
    size_t max_recv;
    int gzip;                       /* compression = "gzip" */
    int md_idx;                     /* the metadata table's stack index, 0: none */
} lm_gr_opts;

typedef struct lm_gr_op {
    lm_op core;                     /* first */
    lm_gr *g;
    grpc_call call;
    const pb_method *m;
    int tid, stream;
    int code, local;
    char msg[600];
    uint8_t *rx;                    /* the response messages, one after another */
    size_t rx_len, rx_cap;
    size_t *ends;                   /* where each message ends in rx */
    size_t nends, ends_cap;
    pb_arena dec;
    pb_val **trees;                 /* decoded on completion */
    size_t trees_cap;
} lm_gr_op;

/* ---- completion ---- */

static int lm_gr_on_message(void *ud, const uint8_t *p, size_t n) {
    lm_gr_op *op = ud;
    if (!op->stream && op->nends >= 1) {
        grpc_call_fail(&op->call, 13, "a unary method answered more than one message");
        return 1;
    }
    size_t cost = op->stream ? (op->nends + 1) * (size_t)LM_GR_MSG_COST : 0;   /* a unary call keeps one */
    if (op->rx_len + cost + n > LM_GR_STREAM_MAX) {
        grpc_call_fail(&op->call, 8, "the stream's messages passed 64 MiB (64 bytes counted per message besides its own)");
        return 1;
    }
    if (op->rx_len + n > op->rx_cap) {
        size_t cap = op->rx_cap ? op->rx_cap : 4096;
        while (cap < op->rx_len + n) cap *= 2;
        uint8_t *b = realloc(op->rx, cap);
        if (!b) return grpc_call_fail(&op->call, 8, "out of memory"), 1;
        op->rx = b;
        op->rx_cap = cap;
    }
    if (op->nends == op->ends_cap) {
        size_t cap = op->ends_cap ? op->ends_cap * 2 : 8;
        size_t *e = realloc(op->ends, cap * sizeof *e);
        if (!e) return grpc_call_fail(&op->call, 8, "out of memory"), 1;
        op->ends = e;
        op->ends_cap = cap;
    }
    if (n) memcpy(op->rx + op->rx_len, p, n);
    op->rx_len += n;
    op->ends[op->nends++] = op->rx_len;
    if (op->stream) worker_count(op->g->w, op->g->list->cid_received, 1);   /* as open_stream's */
    return 0;
}

/* The responses decoded into op->trees; 0, or -1 with op->msg. */
static int lm_gr_decode(lm_gr_op *op) {
    const pb_schema *s = op->g->schema;
    pb_arena_reset(&op->dec);
    if (op->nends > op->trees_cap) {
        pb_val **t = realloc(op->trees, op->nends * sizeof *t);
        if (!t) return snprintf(op->msg, sizeof op->msg, "out of memory"), -1;
        op->trees = t;
        op->trees_cap = op->nends;
    }
    size_t start = 0;
    char err[300];
    pb_limits lim = {0, LM_GR_STREAM_MAX};
    for (size_t i = 0; i < op->nends; i++) {
        if (pb_decode(s, op->m->out, op->rx + start, op->ends[i] - start, &op->dec, &lim, &op->trees[i], err,
                      sizeof err) < 0) {
            snprintf(op->msg, sizeof op->msg, "response %zu: %s", i + 1, err);
            return -1;
        }
        start = op->ends[i];
    }
    return 0;
}

static int lm_gr_status_cid(lm_gr_list *l, int code) {
    int k = code >= 0 && code <= 16 ? code : 17;
    if (!l->status_cid[k]) {
        char name[64];
        snprintf(name, sizeof name, "grpc.status.%s", k == 17 ? "OTHER" : grpc_status_name(code));
        l->status_cid[k] = worker_counter_id(l->w, name) + 1;
    }
    return l->status_cid[k] - 1;
}

int lm_gr_error_text(char *e, size_t len, const pb_method *m, int code, const char *msg) {
    return snprintf(e, len, "grpc %s: %s: %s", m->path, grpc_status_name(code), msg);
}

void lm_gr_count_status(lm_gr_list *l, const vu *v, const pb_method *m, int code, const char *msg) {
    if (v && !vu_wants_resume(v)) return;   /* its VU was stopped (the run ended): the sample is "cancelled" */
    worker_count(l->w, lm_gr_status_cid(l, code), 1);
    if (code != 0) {
        char e[800];
        int n = lm_gr_error_text(e, sizeof e, m, code, msg);
        worker_error(l->w, e, n < (int)sizeof e ? (size_t)n : sizeof e - 1);
    }
}

void lm_gr_stream_counters(lm_gr_list *l) {
    if (l->streams_on) return;
    l->cid_sent = worker_counter_id(l->w, "grpc.stream.messages_sent");
    l->cid_received = worker_counter_id(l->w, "grpc.stream.messages_received");
    l->streams_on = 1;
}

void lm_gr_count_retries(lm_gr_list *l, unsigned retries) {
    if (!retries) return;
    if (!l->cid_retries) l->cid_retries = worker_counter_id(l->w, "grpc.retries") + 1;
    worker_count(l->w, l->cid_retries - 1, retries);
}

static void lm_gr_on_done(void *ud, const grpc_result *r) {
    lm_gr_op *op = ud;
    lm_gr_count_retries(op->g->list, r->retries);
    op->code = r->code;
    op->local = r->local;
    snprintf(op->msg, sizeof op->msg, "%s", r->message ? r->message : "");
    if (op->code == 0 && !op->stream && op->nends != 1) {
        op->code = 12;                  /* UNIMPLEMENTED, as gRPC's clients say for a missing response */
        snprintf(op->msg, sizeof op->msg, "a unary method answered OK with %zu messages", op->nends);
    }
    if (op->code == 0 && lm_gr_decode(op) < 0) op->code = 13;
    lm_op_record(&op->core, op->tid, op->code == 0);
    lm_gr_count_status(op->g->list, op->core.v, op->m, op->code, op->msg);
    lm_op_request_done(&op->core);
}

static const grpc_call_cbs lm_gr_call_cbs = {lm_gr_on_message, lm_gr_on_done};

static int lm_gr_push(lm_op *o, lua_State *L) {
    lm_gr_op *op = (lm_gr_op *)o;
    const pb_schema *s = op->g->schema;
    if (op->code != 0) {
        lua_pushnil(L);
    } else if (op->stream) {
        lua_createtable(L, (int)op->nends, 0);
        for (size_t i = 0; i < op->nends; i++) {
            lm_pb_push(L, s, op->trees[i]);
            lua_rawseti(L, -2, (int)i + 1);
        }
    } else {
        lm_pb_push(L, s, op->trees[0]);
    }
    lua_pushinteger(L, op->code);
    lua_pushstring(L, op->code == 0 ? "" : op->msg);
    return 3;
}

static void lm_gr_op_fini(lm_op *o) {
    lm_gr_op *op = (lm_gr_op *)o;
    grpc_call_fini(&op->call);
    free(op->rx);
    free(op->ends);
    free(op->trees);
    pb_arena_free(&op->dec);
}

/* ---- calls ---- */

/* The timer of a call: "grpc <name>" or "grpc <method>", each a part of
 * the aggregate "grpc" (every call of the run, k6's grpc_req_duration; as
 * "http" sums the http.<method> timers; a call is in one part only). */
static int lm_gr_tid(lua_State *L, lm_gr *g, const pb_method *m, const char *name) {
    char t[400];
    lm_gr_list *l = g->list;
    if (!l->tid_all) l->tid_all = lm_timer_id(g->w, "grpc", TK_PRIMITIVE) + 1;
    if (name) {
        snprintf(t, sizeof t, "grpc %s", name);
        int tid = lm_timer_id(g->w, t, TK_PRIMITIVE);
        lm_timer_part_of(g->w, tid, l->tid_all - 1);
        return tid;
    }
    for (int i = 0; i < g->ntids; i++)
        if (g->tids[i].m == m) return g->tids[i].tid;
    snprintf(t, sizeof t, "grpc %s", m->path);
    int tid = lm_timer_id(g->w, t, TK_PRIMITIVE);
    lm_timer_part_of(g->w, tid, l->tid_all - 1);
    if (g->ntids < (int)(sizeof g->tids / sizeof g->tids[0])) {
        g->tids[g->ntids].m = m;
        g->tids[g->ntids++].tid = tid;
    }
    (void)L;
    return tid;
}

/* Names luamech sends itself (content-type, te, grpc-*: a second copy would
 * contradict them) or that HTTP/2 forbids in a request (RFC 9113 8.2.2). */
static int lm_gr_md_reserved(const char *k, size_t nl) {
    static const char *const names[] = {"content-type", "te", "grpc-timeout", "grpc-encoding",
                                        "grpc-accept-encoding", "grpc-status", "grpc-message", "host",
                                        "connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                        "upgrade", NULL};
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == nl && memcmp(names[i], k, nl) == 0) return 1;
    return 0;
}

/* A "-bin" value in base64 (gRPC's wire form), pushed into the anchor table
 * at stack index anchor (made on first use); the encoded string. */
static const char *lm_gr_md_bin(lua_State *L, int anchor, const char *v, size_t vl, size_t *out_len) {
    if (lua_isnil(L, anchor)) {
        lua_createtable(L, 4, 0);
        lua_replace(L, anchor);
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < vl; i += 3 * 256) {          /* in pieces that fit a buffer's block */
        size_t n = vl - i < 3 * 256 ? vl - i : 3 * 256;
        char *p = luaL_prepbuffer(&b);
        luaL_addsize(&b, grpc_base64((const uint8_t *)v + i, n, p));
    }
    luaL_pushresult(&b);
    const char *e = lua_tolstring(L, -1, out_len);
    lua_rawseti(L, anchor, (int)lua_objlen(L, anchor) + 1);   /* the string stays in the table */
    return e;
}

/* The metadata of the table at idx appended to md[n..max) (names must be
 * lowercase, not reserved; values without control characters, "-bin" ones
 * any bytes, sent in base64).  Pushes one value, the anchor of the encoded
 * "-bin" values (nil when none): it stays on the stack during the call. */
static size_t lm_gr_metadata(lua_State *L, int idx, h2_nv *md, size_t n, size_t max, const char *fname) {
    size_t n0 = n;
    lua_pushnil(L);
    int anchor = lua_gettop(L);
    if (lua_isnil(L, idx)) return n;
    if (!lua_istable(L, idx)) luaL_error(L, "%s: metadata must be a table of strings", fname);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "%s: metadata: string names and values expected", fname);
        if (n == max)
            luaL_error(L, "%s: metadata: more than %d entries%s", fname, (int)max,
                       n0 ? " (the client's included)" : "");
        size_t nl, vl;
        const char *k = lua_tolstring(L, -2, &nl), *v = lua_tolstring(L, -1, &vl);
        for (size_t i = 0; i < nl; i++)
            if ((k[i] >= 'A' && k[i] <= 'Z') || k[i] == ':' || (unsigned char)k[i] <= ' ' || k[i] == 0x7f)
                luaL_error(L, "%s: metadata name '%s': lowercase, no ':' or spaces", fname, k);
        if (nl == 0) luaL_error(L, "%s: metadata: an empty name", fname);
        if (lm_gr_md_reserved(k, nl))
            luaL_error(L, "%s: metadata name '%s' is reserved (luamech sends it, or HTTP/2 forbids it)", fname, k);
        if (nl > 4 && memcmp(k + nl - 4, "-bin", 4) == 0) {
            v = lm_gr_md_bin(L, anchor, v, vl, &vl);
        } else {
            for (size_t i = 0; i < vl; i++)
                if (((unsigned char)v[i] < ' ' && v[i] != '\t') || v[i] == 0x7f)
                    luaL_error(L, "%s: metadata '%s' has CR, LF, NUL or another control character in its value "
                               "(binary values go in a '-bin' key)", fname, k);
        }
        md[n++] = (h2_nv){k, nl, v, vl, 0};       /* the strings stay in the table during the call */
        lua_pop(L, 1);
    }
    return n;
}

/* The options of c:invoke, c:stream and c:open_stream as data (lm_client.h):
 * the reader below, lua/types/luamech.lua's luamech.GrpcCallOptions and
 * docs/lua-api.md's c:invoke options are checked against these rows.
 * timeout's default is the client's. */
static const lm_opt_spec lm_gr_call_spec[] = {
    LM_OPT_OWN("metadata", NULL),
    {"timeout", LM_OPT_SECONDS, 0, 86400, LM_OPT_CALLERS, "the client's",
     LM_OPT_AT(lm_gr_call_args, timeout_ns)},
    LM_OPT_OWN("name", NULL),
    LM_OPT_OWN(NULL, NULL)};

lm_gr *lm_gr_call_args_read(lua_State *L, int opts_idx, const char *fname, lm_gr_call_args *a) {
    lm_gr *g = *(lm_gr **)lm_check_self(L, LM_GR_MT);
    if (!g || !g->client) luaL_error(L, "%s: the client is closed", fname);
    const char *path = luaL_checkstring(L, 2);
    a->m = pb_schema_find_method(g->schema, path);
    if (!a->m) luaL_error(L, "%s: no method '%s' in the proto (\"pkg.Service/Method\")", fname, path);
    a->timeout_ns = g->timeout_ns;
    a->name = NULL;
    a->nmd = g->nmd;
    memcpy(a->md, g->md, a->nmd * sizeof *a->md);
    if (lm_opts_read(L, opts_idx, fname, lm_gr_call_spec, a)) {
        lua_getfield(L, opts_idx, "name");
        if (!lua_isnil(L, -1)) {
            size_t len;
            a->name = luaL_checklstring(L, -1, &len);
            lm_name_check(L, a->name, len, fname, "name");     /* 1..200 bytes, printable */
        }
        lua_getfield(L, opts_idx, "metadata");
        a->nmd = lm_gr_metadata(L, lua_gettop(L), a->md, a->nmd, sizeof a->md / sizeof a->md[0], fname);
        /* the three values stay on the stack: the strings are anchored until the call returns
         * (grpc_client copies them when the call starts) */
    }
    a->tid = lm_gr_tid(L, g, a->m, a->name);
    snprintf(a->path, sizeof a->path, "/%s", a->m->path);
    return g;
}

const char *lm_gr_encode(lua_State *L, lm_gr *g, int idx, int32_t msg, const char *fname, size_t *len) {
    lm_gr_list *l = g->list;
    pb_arena_reset(&l->enc);
    pb_val *root = lm_pb_from_table(L, idx, g->schema, msg, &l->enc, fname);
    char err[300];
    int64_t n = pb_encode_size(g->schema, root, NULL, err, sizeof err);
    if (n < 0) luaL_error(L, "%s: %s", fname, err);
    if (n > 0x7fffffff || lm_buf_reserve(&l->tx, &l->tx_cap, (size_t)n + GRPC_PREFIX) < 0)
        luaL_error(L, "%s: request too large", fname);
    grpc_frame_prefix((uint8_t *)l->tx, (uint32_t)n);
    pb_encode_write(root, (uint8_t *)l->tx + GRPC_PREFIX);
    *len = (size_t)n + GRPC_PREFIX;
    if (!g->gzip) return l->tx;
    if (lm_buf_reserve(&l->ztx, &l->ztx_cap, grpc_gzip_bound((size_t)n)) < 0 ||
        grpc_gzip_frame(&l->gz, (const uint8_t *)l->tx + GRPC_PREFIX, (size_t)n, (uint8_t *)l->ztx, len) < 0)
        luaL_error(L, "%s: out of memory compressing the request", fname);
    return l->ztx;
}

static int lm_gr_call(lua_State *L, int stream) {
    const char *fname = stream ? "grpc stream" : "grpc invoke";
    lm_gr_call_args a;
    lm_gr *g = lm_gr_call_args_read(L, 4, fname, &a);
    const pb_method *m = a.m;
    if (m->client_streaming)
        return luaL_error(L, "%s: %s is %s: use c:open_stream", fname, m->path,
                          m->server_streaming ? "bidirectional" : "client-streaming");
    if (m->server_streaming != stream)
        return luaL_error(L, "%s: %s is %s: use c:%s", fname, m->path, stream ? "unary" : "server-streaming",
                          stream ? "invoke" : "stream");
    size_t len;
    const char *body = lm_gr_encode(L, g, 3, m->in, fname, &len);
    vu *v = lm_current_vu(L, g->w, fname);
    lm_gr_op *op = (lm_gr_op *)lm_op_get(&g->ops);
    if (!op) return luaL_error(L, "%s: out of memory", fname);
    op->g = g;
    op->m = m;
    op->tid = a.tid;
    op->stream = stream;
    op->rx_len = op->nends = 0;
    op->code = 0;
    op->msg[0] = '\0';
    lm_op_start(&op->core, v, L, 1);
    if (stream) {                       /* k6 counts a server stream's messages too */
        lm_gr_stream_counters(g->list);
        worker_count(g->w, g->list->cid_sent, 1);
    }
    uint64_t deadline = a.timeout_ns ? op->core.start_ns + a.timeout_ns : 0;
    grpc_call_start(g->client, &op->call, a.path, a.md, a.nmd, body, len, deadline, &lm_gr_call_cbs, op);
    return lm_op_finish_call(&op->core, L);
}

static int lm_gr_invoke(lua_State *L) { return lm_gr_call(L, 0); }
static int lm_gr_stream(lua_State *L) { return lm_gr_call(L, 1); }

/* ---- client objects ---- */

static void lm_gr_close(lm_gr *g) {
    grpc_client *c = g->client;
    g->client = NULL;                   /* before: a VU woken by a call's end finds it closed */
    if (c) grpc_client_close(c);        /* every call on every session ends CANCELLED now */
    lm_gs_detach_all(g);
}

static void lm_gr_free(void *obj) {
    lm_gr *g = obj;
    lm_client_unlink(&g->obj);
    lm_op_pool_free(&g->ops);
    free(g->mdbuf);
    free(g);
}

static int lm_gr_gc(lua_State *L) {
    lm_gr **ud = luaL_checkudata(L, 1, LM_GR_MT);
    lm_gr *g = *ud;
    if (g == NULL) return 0;
    *ud = NULL;
    g->obj.ud = NULL;
    if (g->ops.out > 0) return 0;       /* calls in flight: left to the worker's teardown */
    lm_gr_close(g);
    lm_gr_free(g);
    return 0;
}

static int lm_gr_close_lua(lua_State *L) {
    lm_gr **ud = luaL_checkudata(L, 1, LM_GR_MT);
    if (*ud && !(*ud)->pooled) lm_gr_close(*ud);
    return 0;
}

static int lm_gr_tostring(lua_State *L) {
    lm_gr **ud = luaL_checkudata(L, 1, LM_GR_MT);
    lua_pushfstring(L, "grpc client %s", *ud ? (*ud)->name : "(closed)");
    return 1;
}

static void lm_gr_on_open(void *cc, int status, const char *msg) {
    const lm_gr *g = lm_connect_client(cc);
    char why[300] = "";
    if (status != 0) client_describe(why, sizeof why, client_status_of_net(status), msg ? msg : uv_strerror(status));
    lm_connect_done(cc, status, "grpc.connect %s: %s", g->name, why);
}

static void lm_gr_connect(void *obj, lm_connect *cc) {
    lm_gr *g = obj;
    int rc = grpc_client_connect(g->client, lm_gr_on_open, cc);
    char why[128];
    if (rc != 0)
        lm_connect_done(cc, rc, "grpc.connect %s: %s", g->name,
                        client_describe(why, sizeof why, client_status_of_net(rc), uv_strerror(rc)));
}

static void lm_gr_close_client(void *obj) { lm_gr_close(obj); }

static void lm_gr_worker_close(void *list) {
    lm_gr_list *l = list;
    for (lm_client_obj *o = l->base.head; o; o = o->next) lm_gr_close((lm_gr *)o);  /* waiters given back */
    lm_gs_list_close(l);
    pb_arena_free(&l->enc);
    pb_arena_free(&l->dec);
    free(l->tx);
    free(l->ztx);
    grpc_gzip_free(&l->gz);
    lm_client_list_close(list, lm_gr_close_client, lm_gr_free);
}

#define LM_GR_AT(f) LM_OPT_AT(lm_gr_opts, f)

/* grpc.connect's options as data (lm_client.h): the reader below,
 * lua/types/luamech.lua's luamech.GrpcOptions and docs/lua-api.md's list
 * are checked against these rows. */
static const lm_opt_spec lm_gr_spec[] = {
    LM_OPT_OWN("proto", NULL),
    LM_OPT_OWN("tls", NULL),
    LM_OPT_OWN("metadata", NULL),
    {"timeout", LM_OPT_SECONDS, 0, 86400, CLIENT_TIMEOUT_DEFAULT_NS / 1e9, "10", LM_GR_AT(timeout_ns)},
    {"connect_timeout", LM_OPT_SECONDS, 0, 86400, 0, "timeout", LM_GR_AT(connect_timeout_ns)},
    LM_OPT_OWN("pool", "false"),
    {"max_recv", LM_OPT_BYTES, 1, 1 << 30, 4 << 20, "4 MiB", LM_GR_AT(max_recv)},
    LM_OPT_OWN("compression", "\"none\""),
    LM_OPT_OWN(NULL, NULL)};

static const net_tls_opts **lm_gr_opts_read(lua_State *L, int idx, void *opts, int *pool) {
    lm_gr_opts *o = opts;
    memset(o, 0, sizeof *o);
    if (!lm_opts_read(L, idx, "grpc.connect", lm_gr_spec, o))
        luaL_error(L, "grpc.connect: options with proto = \"file.proto\" (or a descriptor set) expected");
    *pool = lm_pool_opt(L, idx);
    if (o->connect_timeout_ns == 0) o->connect_timeout_ns = o->timeout_ns;   /* one rule for every client */
    lua_getfield(L, idx, "proto");
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "grpc.connect: proto: a .proto file or a descriptor set expected");
    o->proto = lua_tostring(L, -1);
    lua_pop(L, 1);                                  /* anchored by the options table */
    lua_getfield(L, idx, "compression");
    if (!lua_isnil(L, -1)) {
        const char *c = lua_tostring(L, -1);
        if (lua_type(L, -1) != LUA_TSTRING || (strcmp(c, "gzip") != 0 && strcmp(c, "none") != 0))
            luaL_error(L, "grpc.connect: compression must be \"gzip\" or \"none\"");
        o->gzip = strcmp(c, "gzip") == 0;
    }
    lua_pop(L, 1);
    return &o->tls;
}

/* Connect's metadata copied into g (names checked). */
static int lm_gr_copy_md(lm_gr *g, const h2_nv *md, size_t n) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += md[i].name_len + md[i].value_len + 2;
    g->mdbuf = malloc(total + 1);
    if (!g->mdbuf) return -1;
    char *p = g->mdbuf;
    for (size_t i = 0; i < n; i++) {
        g->md[i] = md[i];
        memcpy(p, md[i].name, md[i].name_len);
        g->md[i].name = p;
        p += md[i].name_len + 1;
        memcpy(p, md[i].value, md[i].value_len);
        g->md[i].value = p;
        p += md[i].value_len + 1;
    }
    g->nmd = n;
    return 0;
}

typedef struct lm_gr_create {
    lm_gr_opts *o;
    const pb_schema *schema;
    h2_nv md[LM_GR_MAX_MD];
    size_t nmd;
} lm_gr_create;

static int lm_gr_new(void *obj, const lm_connect_args *a, void *opts, char *err, size_t err_len) {
    lm_gr *g = obj;
    lm_gr_create *cr = opts;
    grpc_client_cfg cfg = {worker_loop(a->w), a->address, cr->o->tls, cr->o->connect_timeout_ns, cr->o->max_recv, 0,
                           cr->o->gzip};
    if (grpc_client_new(&cfg, &g->client, err, err_len) != 0) return -1;
    if (lm_gr_copy_md(g, cr->md, cr->nmd) != 0) {
        grpc_client_close(g->client);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    g->w = a->w;
    g->list = (lm_gr_list *)g->obj.list;
    g->pooled = a->pool;
    g->schema = cr->schema;
    g->timeout_ns = cr->o->timeout_ns;
    g->gzip = cr->o->gzip;
    snprintf(g->name, sizeof g->name, "%s", a->address);
    lm_op_pool_init(&g->ops, sizeof(lm_gr_op), lm_gr_push, lm_gr_op_fini);
    return 0;
}

static const net_tls_opts **lm_gr_kind_opts(lua_State *L, int idx, void *opts, int *pool) {
    lm_gr_create *cr = opts;
    return lm_gr_opts_read(L, idx, cr->o, pool);
}

/* The metadata as one string of the pool key: "name\x1fvalue\x1e" per
 * entry, in the table's order; pushed (anchored on the stack for the call). */
static const char *lm_gr_metadata_key(lua_State *L, const h2_nv *md, size_t n) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < n; i++) {
        luaL_addlstring(&b, md[i].name, md[i].name_len);
        luaL_addchar(&b, '\x1f');
        luaL_addlstring(&b, md[i].value, md[i].value_len);
        luaL_addchar(&b, '\x1e');
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

static const lm_client_kind lm_gr_kind = {
    .fname = "grpc.connect", .vu_fname = "luamech.grpc.connect", .mt = LM_GR_MT, .size = sizeof(lm_gr),
    .tls_scheme = NULL, .plain_scheme = NULL, .opts = lm_gr_kind_opts, .create = lm_gr_new,
    .connect = lm_gr_connect, .close = lm_gr_close_client};

static int lm_gr_connect_lua(lua_State *L) {
    lm_gr_list *list = lua_touserdata(L, lua_upvalueindex(2));
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    lm_gr_opts o;
    lm_gr_create cr = {.o = &o};
    lm_connect_args a;
    lm_connect_args_read(L, &lm_gr_kind, w, &list->base.tls, &a, &cr);
    cr.schema = lm_pb_load(L, w, o.proto, "grpc.connect proto");
    lua_pop(L, 1);                                  /* the schema stays in the worker's cache */
    lua_getfield(L, 2, "metadata");
    cr.nmd = lm_gr_metadata(L, lua_gettop(L), cr.md, 0, LM_GR_MAX_MD, "grpc.connect");
    lua_remove(L, -2);                              /* the anchor of "-bin" values stays: copied at create */
    lm_pool_key pk = {.address = a.address, .timeout_ns = o.timeout_ns, .connect_timeout_ns = o.connect_timeout_ns,
                      .opt = {(int64_t)o.max_recv, (int64_t)cr.nmd, o.gzip}, .tls = a.tkey,
                      .str = {o.proto, lm_gr_metadata_key(L, cr.md, cr.nmd)}};
    return lm_client_connect(L, &lm_gr_kind, &list->base, &pk, &a, &cr);
}

void lm_grpc_open(lua_State *L, worker *w) {
    static const luaL_Reg methods[] = {{"invoke", lm_gr_invoke}, {"stream", lm_gr_stream},
                                       {"open_stream", lm_gs_open}, {"close", lm_gr_close_lua}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__gc", lm_gr_gc}, {"__tostring", lm_gr_tostring}, {NULL, NULL}};
    lm_client_type(L, LM_GR_MT, methods, meta, NULL);
    lm_gs_type(L);
    lm_gr_list *list = calloc(1, sizeof *list);
    if (list) list->w = w;
    lm_client_module(L, w, list ? &list->base : NULL, "grpc", lm_gr_worker_close, lm_gr_connect_lua);
}
