/* lm_http_op.c - the per-request op of luamech.http: a pool of ops per
 * worker (taken by a request, returned on completion), their growable
 * buffers, the registry slot that anchors the client object and body while
 * a request is in flight, and the cookie jar's part of a hop (the Cookie
 * header sent, the Set-Cookie headers stored).  It does not build or send
 * requests (lm_http_req.c) nor parse cookies (proto/cookie). */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lua/lm_http_int.h"

/* A pooled op.  Each op owns one registry slot for its whole life (false
 * while idle; never nil, so the registry's array part has no holes), which
 * anchors the client object while a request is in flight. */
lm_http_op *lm_http_op_get(lua_State *L, lm_http_mod *mod) {
    lm_http_op *op = mod->free_ops;
    if (op) {
        mod->free_ops = op->next;
    } else {
        op = calloc(1, sizeof *op);
        if (op == NULL) luaL_error(L, "luamech.http: out of memory");
        op->mod = mod;
        lua_createtable(L, 2, 0);
        op->anchor_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    memset(&op->req, 0, sizeof op->req);
    op->next = NULL;
    op->v = NULL;
    op->h = NULL;
    op->client = NULL;
    op->method = op->call_method = op->in_call = op->nres = 0;
    op->redirects_left = op->hops = op->has_expect = op->decoded = 0;
    op->batch = NULL;
    op->batch_i = 0;
    op->name_tid = op->tag_tid = -1;
    op->start_ns = op->setup_ns = 0;
    op->where[0] = op->err[0] = 0;
    return op;
}

void lm_http_op_put(lm_http_op *op) {
    lm_http_mod *mod = op->mod;
    op->next = mod->free_ops;
    mod->free_ops = op;
}

void lm_http_op_free(lm_http_op *op) {
    free(op->cbuf);
    free(op->path);
    free(op->hbuf);
    free(op->bbuf);
    free(op);
}

/* Anchor (or with obj_idx 0, release) the object and the body string of an
 * op in flight: its anchor table [1] and [2]. */
void lm_http_op_anchor(lua_State *L, lm_http_op *op, int obj_idx, int body_idx) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, op->anchor_ref);
    if (obj_idx) lua_pushvalue(L, obj_idx);
    else lua_pushboolean(L, 0);
    lua_rawseti(L, -2, 1);
    if (body_idx) lua_pushvalue(L, body_idx);
    else lua_pushboolean(L, 0);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 1);
}

/* Grow *buf to hold need bytes; 0, or -1 (out of memory). */
int lm_http_reserve(char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    char *b = realloc(*buf, c);
    if (!b) return -1;
    *buf = b;
    *cap = c;
    return 0;
}

/* The Set-Cookie headers of a hop's response into the object's jar. */
void lm_http_store_cookies(lm_http_op *op, int status, const hp_parser *res) {
    if (status != 0 || !op->h->use_jar) return;
    int64_t now = -1;
    for (size_t i = 0; i < res->nheaders; i++) {
        const char *n, *v;
        size_t nl, vl;
        hp_parser_header(res, i, &n, &nl, &v, &vl);
        if (!lm_http_is_set_cookie(n, nl)) continue;
        if (now < 0) now = (int64_t)time(NULL);
        ck_jar_set(&op->h->jar, v, vl, op->host, op->path, op->path_len, now);   /* -1 (memory): not kept */
    }
}

/* The jar's Cookie header for the current hop (none when the jar is off,
 * empty for this URL, or the script set Cookie itself). */
void lm_http_cookie_header(lm_http_op *op) {
    op->r.nheaders = op->nbase;
    if (!op->cookie_slot || op->h->jar.n == 0) return;
    int64_t now = (int64_t)time(NULL);
    size_t n = ck_jar_header(&op->h->jar, op->host, op->path, op->path_len, op->tls, now, op->cbuf, op->cbuf_cap);
    if (n > op->cbuf_cap) {
        if (lm_http_reserve(&op->cbuf, &op->cbuf_cap, n) != 0) return;
        n = ck_jar_header(&op->h->jar, op->host, op->path, op->path_len, op->tls, now, op->cbuf, op->cbuf_cap);
    }
    if (n == 0 || n > 8192) return;            /* hp_header_value_valid's limit */
    op->hdrs[op->nbase].name = "Cookie";
    op->hdrs[op->nbase].name_len = 6;
    op->hdrs[op->nbase].value = op->cbuf;
    op->hdrs[op->nbase].value_len = n;
    op->r.nheaders = op->nbase + 1;
}
