/* lm_http_batch.c - c:batch(requests): several requests of one VU sent
 * together (each over its own connection of the client's pool), each timed
 * as a call of its own; the VU resumes when the last completes, with a list
 * of responses (false where one failed) and a list of messages.  A raise
 * while sending (a bad entry) drops the batch (lm_op_drop): completions of
 * the requests already sent then only release their ops.  The batch is an op
 * of the bindings' pattern (lua/lm_op.h) whose requests are ops of their
 * own.  It does not build requests (lm_http_req.c does, through
 * lm_http_start). */
#include <lauxlib.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"
#include "lua/lm_http_int.h"

/* Let the batch's tables, object and list go (again: nothing more). */
static void lm_http_batch_release(lua_State *L, lm_http_batch *b) {
    luaL_unref(L, LUA_REGISTRYINDEX, b->res_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, b->err_ref);
    b->res_ref = b->err_ref = LUA_NOREF;
    lm_op_anchor(&b->core, L, 0, 0);
}

/* results[i] = the response, or false with errors[i] = the message. */
void lm_http_batch_store(lua_State *L, lm_http_batch *b, int i, int nres) {
    if (nres == 1) {                           /* [res] */
        lua_rawgeti(L, LUA_REGISTRYINDEX, b->res_ref);
        lua_insert(L, -2);
        lua_rawseti(L, -2, i);
        lua_pop(L, 1);
        return;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->err_ref);   /* [nil, msg] */
    lua_insert(L, -2);
    lua_rawseti(L, -2, i);
    lua_pop(L, 2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->res_ref);
    lua_pushboolean(L, 0);
    lua_rawseti(L, -2, i);
    lua_pop(L, 1);
}

/* The pool's push (lua/lm_op.h): the batch's two tables, then let go. */
int lm_http_batch_push(lm_op *core, lua_State *L) {
    lm_http_batch *b = (lm_http_batch *)core;
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->res_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->err_ref);
    lm_http_batch_release(L, b);
    return 2;
}

/* One request of a batch is over (its statistics are recorded): its result
 * stored unless nobody takes the batch's (a raise while sending, a VU
 * stopped, the worker closing), its op given back, the batch told. */
void lm_http_batch_done(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    lm_http_batch *b = op->batch;
    lua_State *ML = worker_lua(mod->w);
    if (mod->closing) lm_op_drop(&b->core, 0);
    int wanted = lm_op_stack(&b->core) != NULL;
    if (wanted) {
        lua_checkstack(ML, 8);
        lm_http_batch_store(ML, b, op->batch_i, lm_http_push(op, ML, status, res));
    }
    lm_op_put(&op->core);
    if (!wanted && b->core.pending == 1) lm_http_batch_release(ML, b);   /* the last: dropped */
    lm_op_request_done(&b->core);
}

typedef struct lm_http_batch_call {
    lm_http *h;
    lm_http_batch *b;
} lm_http_batch_call;

/* Entry i of the list at idx onto the stack as method, path, opts (a plain
 * string entry is a GET of that path); returns the method.  Raises on a
 * malformed entry. */
static int lm_http_batch_entry(lua_State *L, int idx, int i) {
    lua_rawgeti(L, idx, i);
    if (lua_type(L, -1) == LUA_TSTRING) {
        lua_pushliteral(L, "GET");
        lua_insert(L, -2);
        lua_pushnil(L);
        return HP_GET;
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "http.batch: request %d must be a table {method, path [, opts]} or a path", i);
    int t = lua_gettop(L);
    lua_rawgeti(L, t, 1);
    lua_rawgeti(L, t, 2);
    lua_rawgeti(L, t, 3);
    lua_remove(L, t);
    size_t ml;
    const char *m = lua_type(L, -3) == LUA_TSTRING ? lua_tolstring(L, -3, &ml) : NULL;
    int method = m ? hp_method_parse(m, ml) : -1;
    if (method < 0) luaL_error(L, "http.batch: request %d: method must be GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS", i);
    if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "http.batch: request %d: the path must be a string", i);
    if (!lua_isnil(L, -1) && !lua_istable(L, -1)) luaL_error(L, "http.batch: request %d: opts must be a table", i);
    return method;
}

/* Sends every request of the batch (run protected: a raise after some
 * were sent drops the batch instead of leaving them dangling). */
static int lm_http_batch_send(lua_State *L) {
    lm_http_batch_call *bc = lua_touserdata(L, 1);
    lm_http_batch *b = bc->b;
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->core.anchor_val);  /* this frame's own copy of the list */
    int list = lua_gettop(L);
    for (int i = 1; i <= b->n; i++) {
        int top = lua_gettop(L);
        int method = lm_http_batch_entry(L, list, i);
        int nres, bs;
        lm_http_start(L, bc->h, method, "http.batch", top + 2, 0, top + 3, b, i, &nres, &bs);
        b->issued = i;
        lua_settop(L, top);
    }
    return 0;
}

/* c:batch(requests) -> results, errors: requests is a list of {method,
 * path [, opts]} (or paths, for GET) sent together over several
 * connections; returns when all are done.  results[i] is the response or
 * false (errors[i] says why).  Each request is timed as a call of its own. */
int lm_http_batch_lua(lua_State *L) {
    lm_http *h = lm_http_check(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    int n = (int)lua_objlen(L, 2);
    if (n > LM_HTTP_MAX_BATCH) luaL_error(L, "http.batch: at most %d requests", LM_HTTP_MAX_BATCH);
    for (int i = 1; i <= n; i++) {             /* check every entry before sending any */
        lm_http_batch_entry(L, 2, i);
        lm_http_call c;
        lm_http_call_opts(L, h, "http.batch", 0, lua_gettop(L), &c);
        lua_settop(L, 2);
    }
    vu *v = lm_current_vu(L, h->mod->w, "luamech.http client methods");
    lm_http_batch *b = (lm_http_batch *)lm_op_get(&h->mod->batches);
    if (!b) return luaL_error(L, "http.batch: out of memory");
    b->n = n;
    b->issued = 0;
    lua_createtable(L, n, 0);
    b->res_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, n, 0);
    b->err_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lm_op_anchor(&b->core, L, 1, 2);           /* the client object and the request list */
    lm_op_start(&b->core, v, L, n);
    lm_http_batch_call bc = {h, b};
    /* a request not sent because of a raise is not counted by a completion */
    int rc = lua_cpcall(L, lm_http_batch_send, &bc);
    if (rc != 0) {                             /* the message is on top */
        lm_http_batch_release(L, b);
        lm_op_drop(&b->core, b->n - b->issued);   /* never sent: no completion will count them */
        return lua_error(L);
    }
    return lm_op_finish_call(&b->core, L);
}
