/* lm_memcached.c - binds luamech.memcached: connect() and the client methods
 * get, gets, get_multi, set, add, replace, append, prepend, cas, delete, incr,
 * decr, touch.  Each method checks its arguments (misuse raises a Lua error),
 * encodes the command with proto/mc_proto, queues it on client/mc_client and
 * waits; the completion pushes Lua values and resumes the VU (lua/lm_op.c:
 * the bindings' one operation pattern; pooled clients in its registry).  Runtime failures return nil, err.  Every call is timed under
 * "memcached.<command>".  Numeric arguments are integers in the range the
 * protocol field holds (NaN, infinities and fractions are refused before
 * any C conversion): exptime -2^31..2^31-1, flags 0..2^32-1, cas and delta
 * 0..2^64-1.  With connect's protocol = "meta", get, gets and get_multi
 * are sent as meta gets (mg: memcached batches their replies; text GET
 * replies leave one send each), and return what the text commands return;
 * the other commands stay text in both modes.  It never parses bytes or
 * touches sockets. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/mc_client.h"
#include "engine/vu_api.h"
#include "lua/lm_client.h"
#include "lua/lm_core.h"
#include "lua/lm_op.h"
#include "lua/lm_tls.h"

#define LM_MC_MT "luamech.memcached"

enum { OP_GET, OP_GETS, OP_GET_MULTI, OP_SET, OP_ADD, OP_REPLACE, OP_APPEND, OP_PREPEND,
       OP_CAS, OP_DELETE, OP_INCR, OP_DECR, OP_TOUCH, OP_COUNT };
static const char *const lm_mc_op_names[OP_COUNT] = {
    "get", "gets", "get_multi", "set", "add", "replace", "append", "prepend",
    "cas", "delete", "incr", "decr", "touch"};

void lm_mc_timer_names(lm_name_fn fn, void *ctx) {
    for (int i = 0; i < OP_COUNT; i++) {
        char name[64];
        snprintf(name, sizeof name, "memcached.%s", lm_mc_op_names[i]);
        fn(ctx, name);
    }
    fn(ctx, "memcached.tls");
}

typedef struct lm_mc_op lm_mc_op;

/* One client as Lua sees it.  The userdata holds a pointer: the C side may
 * outlive a collected userdata until libuv closes its handles. */
typedef struct lm_mc {
    lm_client_obj obj;          /* first: the worker's list, the userdata's slot */
    mc_client *client;          /* NULL once closed */
    worker *w;
    int tid[OP_COUNT];
    lm_op_pool ops;             /* lm_mc_op, sized for the client's servers */
    int pooled;
    int meta;                   /* protocol = "meta": reads as mg */
    /* get_multi's scratch, grown to the largest call (no allocation per call) */
    const char **keys, **sub;
    size_t *lens, *sublen;
    uint32_t *owner;
    size_t keys_cap;
    char *line;
    size_t line_cap;
} lm_mc;

/* connect()'s options: the client's, and the binding's own. */
typedef struct lm_mc_conf {
    mc_client_opts c;           /* first: lm_client_kind's TLS pointer lives in it */
    int meta;
} lm_mc_conf;

struct lm_mc_op {
    lm_op core;                 /* the pattern's part (lua/lm_op.h): first */
    lm_mc *mc;
    int op;
    int values;                 /* VALUE items received */
    int status;                 /* first failure: < 0 client status, > 0 mc_kind */
    uint32_t failed_server;
    mc_kind kind;               /* terminal reply kind (single-server ops) */
    uint64_t number;
    char server_msg[96];        /* text of CLIENT_ERROR / SERVER_ERROR */
    mc_req reqs[];              /* one per server */
};


/* ---- op pool ---- */

static lm_mc_op *lm_mc_op_get(lua_State *L, lm_mc *mc) {
    lm_mc_op *op = (lm_mc_op *)lm_op_get(&mc->ops);
    if (op == NULL) luaL_error(L, "memcached: out of memory");
    /* only what a use reads before it writes (no clearing of the message) */
    op->mc = mc;
    op->op = op->values = op->status = 0;
    op->failed_server = 0;
    op->kind = (mc_kind)0;
    op->number = 0;
    op->server_msg[0] = 0;
    return op;
}

/* ---- results ---- */

static int lm_mc_failed(const lm_mc_op *op) { return op->status != 0; }

static void lm_mc_push_error(lm_mc_op *op, lua_State *L) {
    lm_mc *mc = op->mc;
    char msg[512], whyb[96];
    const char *server = mc->client ? mc_client_server_name(mc->client, op->failed_server) : "?";
    const char *why = op->status < 0
        ? client_describe(whyb, sizeof whyb, mc_client_status(op->status), mc_client_strerror(op->status))
        : mc_kind_name((mc_kind)op->status);
    int cause = op->status == MC_EDOWN && mc->client ? mc_client_down_cause(mc->client, op->failed_server) : 0;
    const char *cause_msg = cause ? mc_client_down_msg(mc->client, op->failed_server) : NULL;
    snprintf(msg, sizeof msg, "memcached.%s %s: %s%s%s%s%s", lm_mc_op_names[op->op], server, why,
             op->server_msg[0] ? " " : "", op->server_msg, cause ? " after: " : "",
             cause ? (cause_msg ? cause_msg : mc_client_strerror(cause)) : "");   /* the cause's detail: down is said */
    lua_pushnil(L);
    lua_pushstring(L, msg);
    worker_error(mc->w, msg, strlen(msg));
}

/* Negative outcomes the server gave on purpose: not errors of the timer. */
static const char *lm_mc_negative(mc_kind k) {
    switch (k) {
    case MC_R_NOT_STORED: return "NOT_STORED";
    case MC_R_EXISTS: return "EXISTS";
    case MC_R_NOT_FOUND: return "NOT_FOUND";
    default: return NULL;
    }
}

/* Push the op's results on L; returns how many (the pool's push). */
static int lm_mc_push_results(lm_op *base, lua_State *L) {
    lm_mc_op *op = (lm_mc_op *)base;
    if (lm_mc_failed(op)) {
        lua_settop(L, op->core.base);
        lm_mc_push_error(op, L);
        return 2;
    }
    int n = lua_gettop(L) - op->core.base;
    switch (op->op) {
    case OP_GET: case OP_GETS:
        if (op->values > 0) return n;
        lua_pushnil(L);
        lua_pushliteral(L, "miss");
        return 2;
    case OP_GET_MULTI:
        if (n == 0) lua_newtable(L);
        return 1;
    case OP_INCR: case OP_DECR:
        if (op->kind == MC_R_NUMBER) { lua_pushnumber(L, (double)op->number); return 1; }
        break;
    default:
        if (!lm_mc_negative(op->kind)) { lua_pushboolean(L, 1); return 1; }
    }
    lua_pushnil(L);
    lua_pushstring(L, lm_mc_negative(op->kind) ? lm_mc_negative(op->kind) : mc_kind_name(op->kind));
    return 2;
}

/* A failure of one of op's requests (status < 0), or an error line (status 0,
 * `final` its reply): the op's first failure is kept. */
static void lm_mc_note_error(lm_mc_op *op, const mc_req *req, int status, const mc_reply *final) {
    if (status == 0 && (final->kind == MC_R_ERROR || final->kind == MC_R_CLIENT_ERROR ||
                        final->kind == MC_R_SERVER_ERROR))
        status = (int)final->kind;
    if (status == 0 || op->status != 0) return;
    op->status = status;
    op->failed_server = req->server;
    if (status > 0 && final->msg_len)
        snprintf(op->server_msg, sizeof op->server_msg, "%.*s", (int)final->msg_len, final->msg);
}

static void lm_mc_on_value(mc_req *req, const mc_reply *item) {
    lm_mc_op *op = req->data;
    if (item->kind != MC_R_VALUE && item->kind != MC_R_VA) {   /* meta get_multi: EN or an error */
        lm_mc_note_error(op, req, 0, item);
        return;
    }
    lua_State *L = lm_op_stack(&op->core);
    if (!L) return;
    if (op->op == OP_GET_MULTI) {
        if (item->key_len == 0) {           /* a VA without the k it was asked for */
            lm_mc_note_error(op, req, MC_EPROTO, NULL);
            return;
        }
        if (op->values++ == 0) lua_newtable(L);
        lua_pushlstring(L, item->key, item->key_len);
        lua_pushlstring(L, item->data, item->data_len);
        lua_rawset(L, -3);
        return;
    }
    if (op->values++ > 0) return;           /* a single get: the first value only */
    lua_pushlstring(L, item->data, item->data_len);
    lua_pushnumber(L, item->flags);
    if (op->op == OP_GETS) lua_pushnumber(L, (double)item->cas);
}

static void lm_mc_on_done(mc_req *req, int status, const mc_reply *final) {
    lm_mc_op *op = req->data;
    lm_mc_note_error(op, req, status, final);
    if (status == 0) {
        op->kind = final->kind;
        op->number = final->number;
    }
    if (op->core.pending == 1)              /* the last request: time the op */
        lm_op_record_at(&op->core, op->mc->tid[op->op], !lm_mc_failed(op), req->base.done_ns);
    lm_op_request_done(&op->core);
}

/* ---- calls ---- */

static lm_mc *lm_mc_check(lua_State *L) {
    lm_mc **ud = lm_check_self(L, LM_MC_MT);
    if (!*ud || !(*ud)->client) luaL_error(L, "memcached: the client is closed");
    return *ud;
}

static const char *lm_mc_key(lua_State *L, int idx, size_t *len) {
    const char *k = luaL_checklstring(L, idx, len);
    if (!mc_key_valid(k, *len))
        luaL_argerror(L, idx, "memcached key must be 1..250 bytes without spaces or control characters");
    return k;
}

/* Point op's request i at op's callbacks. */
static mc_req *lm_mc_req(lm_mc_op *op, int i) {
    mc_req *req = &op->reqs[i];
    req->on_value = lm_mc_on_value;
    req->on_done = lm_mc_on_done;
    req->data = op;
    req->base.start_ns = op->core.start_ns;      /* the client's deadline: the same clock read */
    return req;
}

/* Start op on one server (a meta command when meta); returns what the Lua
 * call returns. */
static int lm_mc_run_as(lua_State *L, lm_mc_op *op, uint32_t server, int meta, const char *line,
                        size_t line_len, const char *value, size_t value_len) {
    lm_op_start(&op->core, op->core.v, L, 1);
    mc_req *req = lm_mc_req(op, 0);
    if (meta) mc_client_send_meta(op->mc->client, server, req, 1, line, line_len, value, value_len);
    else mc_client_send(op->mc->client, server, req, line, line_len, value, value_len);
    return lm_op_finish_call(&op->core, L);
}

static int lm_mc_run(lua_State *L, lm_mc_op *op, uint32_t server, const char *line, size_t line_len,
                     const char *value, size_t value_len) {
    return lm_mc_run_as(L, op, server, 0, line, line_len, value, value_len);
}

static lm_mc_op *lm_mc_begin(lua_State *L, lm_mc *mc, int opcode) {
    vu *v = lm_current_vu(L, mc->w, "memcached methods");
    lm_mc_op *op = lm_mc_op_get(L, mc);
    op->core.v = v;
    op->op = opcode;
    return op;
}

static int lm_mc_get_common(lua_State *L, int opcode) {
    lm_mc *mc = lm_mc_check(L);
    size_t len;
    const char *key = lm_mc_key(L, 2, &len);
    char line[MC_LINE_MAX];
    size_t n = mc->meta ? mc_encode_meta_get(line, sizeof line, key, len, opcode == OP_GETS, 0)
                        : mc_encode_retrieval(line, sizeof line, opcode == OP_GETS, &key, &len, 1);
    lm_mc_op *op = lm_mc_begin(L, mc, opcode);
    lua_settop(L, 1);
    return lm_mc_run_as(L, op, mc_client_server_for_key(mc->client, key, len), mc->meta, line, n,
                        NULL, 0);
}

static int lm_mc_get(lua_State *L) { return lm_mc_get_common(L, OP_GET); }
static int lm_mc_gets(lua_State *L) { return lm_mc_get_common(L, OP_GETS); }

#define LM_MC_2P64 18446744073709551616.0   /* 2^64: the first double above uint64_t */

/* Argument idx (absent: dflt): an integer in [lo, hi) when hi_open, else
 * [lo, hi]; a Lua error naming the argument and its range otherwise. */
static double lm_mc_int_arg(lua_State *L, int idx, double dflt, double lo, double hi,
                            int hi_open, const char *what) {
    double v = luaL_optnumber(L, idx, dflt);
    int in = v >= lo && (hi_open ? v < hi : v <= hi) && v == floor(v);
    if (!in) luaL_argerror(L, idx, lua_pushfstring(L, "%s must be an integer in %s", what,
                           hi_open ? "0..2^64-1" : lo < 0 ? "-2^31..2^31-1" : "0..2^32-1"));
    return v;
}

static double lm_mc_exptime(lua_State *L, int idx) {
    return lm_mc_int_arg(L, idx, 0, -2147483648.0, 2147483647.0, 0, "exptime");
}

static int lm_mc_storage(lua_State *L, int opcode, mc_cmd cmd) {
    lm_mc *mc = lm_mc_check(L);
    size_t klen, vlen;
    const char *key = lm_mc_key(L, 2, &klen);
    const char *value = luaL_checklstring(L, 3, &vlen);
    int arg = 4;
    double cas = 0;
    if (cmd == MC_CAS) {
        luaL_checknumber(L, arg);
        cas = lm_mc_int_arg(L, arg++, 0, 0, LM_MC_2P64, 1, "cas");
    }
    double exptime = lm_mc_exptime(L, arg);
    double flags = lm_mc_int_arg(L, arg + 1, 0, 0, 4294967295.0, 0, "flags");
    char line[MC_LINE_MAX];
    size_t n = mc_encode_storage(line, sizeof line, cmd, key, klen, (uint32_t)flags,
                                 (int64_t)exptime, vlen, (uint64_t)cas);
    lm_mc_op *op = lm_mc_begin(L, mc, opcode);
    lua_settop(L, 3);                       /* keep value alive until copied */
    return lm_mc_run(L, op, mc_client_server_for_key(mc->client, key, klen), line, n, value, vlen);
}

static int lm_mc_set(lua_State *L) { return lm_mc_storage(L, OP_SET, MC_SET); }
static int lm_mc_add(lua_State *L) { return lm_mc_storage(L, OP_ADD, MC_ADD); }
static int lm_mc_replace(lua_State *L) { return lm_mc_storage(L, OP_REPLACE, MC_REPLACE); }
static int lm_mc_append(lua_State *L) { return lm_mc_storage(L, OP_APPEND, MC_APPEND); }
static int lm_mc_prepend(lua_State *L) { return lm_mc_storage(L, OP_PREPEND, MC_PREPEND); }
static int lm_mc_cas(lua_State *L) { return lm_mc_storage(L, OP_CAS, MC_CAS); }

static int lm_mc_delete(lua_State *L) {
    lm_mc *mc = lm_mc_check(L);
    size_t len;
    const char *key = lm_mc_key(L, 2, &len);
    char line[MC_LINE_MAX];
    size_t n = mc_encode_delete(line, sizeof line, key, len);
    lm_mc_op *op = lm_mc_begin(L, mc, OP_DELETE);
    return lm_mc_run(L, op, mc_client_server_for_key(mc->client, key, len), line, n, NULL, 0);
}

static int lm_mc_arith(lua_State *L, int opcode) {
    lm_mc *mc = lm_mc_check(L);
    size_t len;
    const char *key = lm_mc_key(L, 2, &len);
    double delta = lm_mc_int_arg(L, 3, 1, 0, LM_MC_2P64, 1, "delta");
    char line[MC_LINE_MAX];
    size_t n = mc_encode_arith(line, sizeof line, opcode == OP_INCR, key, len, (uint64_t)delta);
    lm_mc_op *op = lm_mc_begin(L, mc, opcode);
    return lm_mc_run(L, op, mc_client_server_for_key(mc->client, key, len), line, n, NULL, 0);
}

static int lm_mc_incr(lua_State *L) { return lm_mc_arith(L, OP_INCR); }
static int lm_mc_decr(lua_State *L) { return lm_mc_arith(L, OP_DECR); }

static int lm_mc_touch(lua_State *L) {
    lm_mc *mc = lm_mc_check(L);
    size_t len;
    const char *key = lm_mc_key(L, 2, &len);
    luaL_checknumber(L, 3);
    double exptime = lm_mc_exptime(L, 3);
    char line[MC_LINE_MAX];
    size_t n = mc_encode_touch(line, sizeof line, key, len, (int64_t)exptime);
    lm_mc_op *op = lm_mc_begin(L, mc, OP_TOUCH);
    return lm_mc_run(L, op, mc_client_server_for_key(mc->client, key, len), line, n, NULL, 0);
}

/* Room for n keys and a line of line_len bytes in mc's scratch; 0 or -1. */
static int lm_mc_scratch(lm_mc *mc, size_t n, size_t line_len) {
    if (n > mc->keys_cap) {
        size_t cap = n < 16 ? 16 : n * 2;
        const char **k = realloc(mc->keys, cap * sizeof *k), **sb = k ? realloc(mc->sub, cap * sizeof *sb) : NULL;
        if (k) mc->keys = k;
        if (sb) mc->sub = sb;
        size_t *l = sb ? realloc(mc->lens, cap * sizeof *l) : NULL, *sl = l ? realloc(mc->sublen, cap * sizeof *sl) : NULL;
        if (l) mc->lens = l;
        if (sl) mc->sublen = sl;
        uint32_t *o = sl ? realloc(mc->owner, cap * sizeof *o) : NULL;
        if (!o) return -1;
        mc->owner = o;
        mc->keys_cap = cap;
    }
    if (line_len > mc->line_cap) {
        char *line = realloc(mc->line, line_len * 2);
        if (!line) return -1;
        mc->line = line;
        mc->line_cap = line_len * 2;
    }
    return 0;
}

/* mc:get_multi({k1, k2, ...}) -> { [key] = value } for the keys found.
 * Keys are grouped per server: one "get" line per server, all pipelined. */
static int lm_mc_get_multi(lua_State *L) {
    lm_mc *mc = lm_mc_check(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t nkeys = lua_objlen(L, 2), nserv = mc_client_nservers(mc->client);
    if (nkeys == 0) { lua_newtable(L); return 1; }
    if (lm_mc_scratch(mc, nkeys, 0) != 0) return luaL_error(L, "memcached.get_multi: out of memory");
    size_t total = 16;
    for (size_t i = 0; i < nkeys; i++) {
        lua_rawgeti(L, 2, (int)i + 1);
        if (lua_type(L, -1) != LUA_TSTRING || !mc_key_valid(lua_tostring(L, -1), lua_objlen(L, -1)))
            return luaL_error(L, "memcached.get_multi: key %d is not a valid memcached key", (int)i + 1);
        mc->keys[i] = lua_tolstring(L, -1, &mc->lens[i]);   /* anchored by the table */
        lua_pop(L, 1);
        mc->owner[i] = mc_client_server_for_key(mc->client, mc->keys[i], mc->lens[i]);
        total += mc->lens[i] + (mc->meta ? 16 : 1);   /* "mg <key> v f k\r\n" */
    }
    if (lm_mc_scratch(mc, nkeys, total) != 0) return luaL_error(L, "memcached.get_multi: out of memory");
    lm_mc_op *op = lm_mc_begin(L, mc, OP_GET_MULTI);
    int pending = 0;
    for (uint32_t s = 0; s < nserv; s++)       /* pending first: a send may fail at once */
        for (size_t i = 0; i < nkeys; i++)
            if (mc->owner[i] == s) { pending++; break; }
    lm_op_start(&op->core, op->core.v, L, pending);
    int reqs = 0;
    for (uint32_t s = 0; s < nserv; s++) {
        size_t k = 0;
        for (size_t i = 0; i < nkeys; i++)
            if (mc->owner[i] == s) { mc->sub[k] = mc->keys[i]; mc->sublen[k++] = mc->lens[i]; }
        if (!k) continue;
        mc_req *req = lm_mc_req(op, reqs++);
        if (!mc->meta) {
            size_t n = mc_encode_retrieval(mc->line, mc->line_cap, 0, mc->sub, mc->sublen, k);
            mc_client_send(mc->client, s, req, mc->line, n, NULL, 0);
            continue;
        }
        size_t n = 0;                       /* one mg per key, each naming its key in the reply */
        for (size_t i = 0; i < k; i++)
            n += mc_encode_meta_get(mc->line + n, mc->line_cap - n, mc->sub[i], mc->sublen[i], 0, 1);
        mc_client_send_meta(mc->client, s, req, (uint32_t)k, mc->line, n, NULL, 0);
    }
    /* Values only arrive from the loop, never inside mc_client_send. */
    return lm_op_finish_call(&op->core, L);
}

/* ---- connect / close ---- */

static void lm_mc_close(lm_mc *mc) {
    if (!mc->client) return;
    mc_client *c = mc->client;
    mc_client_close(c);                     /* pending ops complete with ECANCELED */
    mc->client = NULL;
}

/* a failed connect closes a VU's own client (a pooled one keeps retrying);
 * the worker's teardown closes them all */
static void lm_mc_close_client(void *mc) { lm_mc_close(mc); }

static void lm_mc_free(void *obj) {
    lm_mc *mc = obj;
    lm_op_pool_free(&mc->ops);
    free(mc->keys);
    free(mc->sub);
    free(mc->lens);
    free(mc->sublen);
    free(mc->owner);
    free(mc->line);
    free(mc);
}

/* A collected client: close it (pending requests are cancelled and their ops
 * come back to the free list), unlink it and free it. */
static int lm_mc_gc(lua_State *L) {
    lm_mc **ud = luaL_checkudata(L, 1, LM_MC_MT);
    lm_mc *mc = *ud;
    if (!mc) return 0;
    lm_mc_close(mc);
    lm_client_unlink(&mc->obj);
    *ud = NULL;
    lm_mc_free(mc);
    return 0;
}

/* mc:close(): a VU's own client only; a pooled one is shared by the worker's
 * VUs and lives until the run ends. */
static int lm_mc_close_lua(lua_State *L) {
    lm_mc **ud = luaL_checkudata(L, 1, LM_MC_MT);
    if (*ud && (*ud)->pooled) return luaL_error(L, "memcached: a pooled client is shared and cannot be closed");
    if (*ud) lm_mc_close(*ud);
    return 0;
}

static int lm_mc_servers(lua_State *L) {
    lm_mc *mc = lm_mc_check(L);
    lua_newtable(L);
    for (size_t i = 0; i < mc_client_nservers(mc->client); i++) {
        lua_pushstring(L, mc_client_server_name(mc->client, (uint32_t)i));
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static void lm_mc_worker_close(void *list) {
    lm_client_list_close(list, lm_mc_close_client, lm_mc_free);
}

static void lm_mc_on_connect(void *data, int status, const char *errmsg) {
    lm_connect_done(data, status, "memcached.connect: %s", errmsg ? errmsg : "failed");
}

static void lm_mc_connect(void *mc, lm_connect *cc) {
    mc_client_connect(((lm_mc *)mc)->client, lm_mc_on_connect, cc);
}


/* connect's protocol option at the top of L: 1 for "meta", 0 for "text". */
static int lm_mc_protocol(lua_State *L) {
    if (lua_isnil(L, -1)) return 0;
    const char *p = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (p && strcmp(p, "text") == 0) return 0;
    if (p && strcmp(p, "meta") == 0) return 1;
    return luaL_error(L, "memcached.connect: protocol must be \"text\" or \"meta\", got %s%s%s",
                      p ? "\"" : "", p ? p : luaL_typename(L, -1), p ? "\"" : "");
}

#define LM_MC_AT(f) LM_OPT_AT(lm_mc_conf, c.f)

/* memcached.connect's options as data (lm_client.h): the reader below,
 * lua/types/luamech.lua's luamech.MemcachedOptions and docs/lua-api.md's
 * table are checked against these rows. */
static const lm_opt_spec lm_mc_spec[] = {
    {"timeout", LM_OPT_SECONDS, 0, 86400, CLIENT_TIMEOUT_DEFAULT_NS / 1e9, "10", LM_MC_AT(timeout_ns)},
    {"connect_timeout", LM_OPT_SECONDS, 0, 86400, 0, "timeout", LM_MC_AT(connect_timeout_ns)},
    LM_OPT_OWN("distribution", "\"ketama\""),
    LM_OPT_OWN("pool", "false"),
    LM_OPT_OWN("tls", NULL),
    LM_OPT_OWN("protocol", "\"text\""),
    LM_OPT_OWN(NULL, NULL)};

static const net_tls_opts **lm_mc_opts(lua_State *L, int idx, void *opts, int *pool) {
    lm_mc_conf *conf = opts;
    mc_client_opts *o = &conf->c;
    mc_client_opts_default(o);
    conf->meta = 0;
    *pool = 0;
    if (!lm_opts_read(L, idx, "memcached.connect", lm_mc_spec, conf)) return &o->tls;
    *pool = lm_pool_opt(L, idx);
    lua_getfield(L, idx, "protocol");
    conf->meta = lm_mc_protocol(L);
    lua_pop(L, 1);
    lua_getfield(L, idx, "distribution");
    if (!lua_isnil(L, -1)) {
        const char *d = luaL_checkstring(L, -1);
        if (strcmp(d, "ketama") == 0) o->distribution = MC_DIST_KETAMA;
        else if (strcmp(d, "modula") == 0) o->distribution = MC_DIST_MODULA;
        else luaL_error(L, "memcached.connect: distribution must be \"ketama\" or \"modula\", got \"%s\"", d);
    }
    lua_pop(L, 1);
    return &o->tls;
}

/* connect's lm_client_kind.create: the client of a into mc. */
static int lm_mc_new(void *obj, const lm_connect_args *a, void *opts, char *err, size_t err_len) {
    lm_mc *mc = obj;
    const lm_mc_conf *conf = opts;
    if (mc_client_new(worker_loop(a->w), a->address, &conf->c, &mc->client, err, err_len) != 0)
        return -1;
    mc->pooled = a->pool;
    mc->meta = conf->meta;
    lm_op_pool_init(&mc->ops, sizeof(lm_mc_op) + mc_client_nservers(mc->client) * sizeof(mc_req),
                    lm_mc_push_results, NULL);
    mc->w = a->w;
    for (int i = 0; i < OP_COUNT; i++) {
        char name[64];
        snprintf(name, sizeof name, "memcached.%s", lm_mc_op_names[i]);
        mc->tid[i] = lm_timer_id(a->w, name, TK_PRIMITIVE);
    }
    return 0;
}

static const lm_client_kind lm_mc_kind = {
    .fname = "memcached.connect", .vu_fname = "luamech.memcached.connect", .mt = LM_MC_MT,
    .size = sizeof(lm_mc), .opts = lm_mc_opts, .create = lm_mc_new, .connect = lm_mc_connect,
    .close = lm_mc_close_client};

/* luamech.memcached.connect(servers [, {pool=, timeout=, connect_timeout=,
 * distribution=, tls=, protocol=}]) -> client | nil, err.  Yields until every server is
 * connected (and TLS established, when tls is set).  With pool = true, VUs of a worker share one client per server
 * list and their requests are pipelined on its connections. */
static int lm_mc_connect_lua(lua_State *L) {
    lm_client_list *list = lua_touserdata(L, lua_upvalueindex(2));
    lm_mc_conf o;
    lm_connect_args a;
    lm_connect_args_read(L, &lm_mc_kind, lua_touserdata(L, lua_upvalueindex(1)), &list->tls, &a, &o);
    lm_pool_key key = {.address = a.address, .timeout_ns = o.c.timeout_ns,
                       .connect_timeout_ns = o.c.connect_timeout_ns,
                       .opt = {(int64_t)o.c.distribution, o.meta}, .tls = a.tkey};
    return lm_client_connect(L, &lm_mc_kind, list, &key, &a, &o);
}

void lm_memcached_open(lua_State *L, worker *w) {
    static const luaL_Reg methods[] = {
        {"get", lm_mc_get}, {"gets", lm_mc_gets}, {"get_multi", lm_mc_get_multi},
        {"set", lm_mc_set}, {"add", lm_mc_add}, {"replace", lm_mc_replace},
        {"append", lm_mc_append}, {"prepend", lm_mc_prepend}, {"cas", lm_mc_cas},
        {"delete", lm_mc_delete}, {"incr", lm_mc_incr}, {"decr", lm_mc_decr},
        {"touch", lm_mc_touch}, {"close", lm_mc_close_lua}, {"servers", lm_mc_servers},
        {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__gc", lm_mc_gc}, {NULL, NULL}};
    lm_client_type(L, LM_MC_MT, methods, meta, NULL);
    lm_client_module(L, w, calloc(1, sizeof(lm_client_list)), "memcached", lm_mc_worker_close,
                     lm_mc_connect_lua);
}
