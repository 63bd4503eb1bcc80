/* lm_http_req.c - the request methods of a luamech.http client (request,
 * get, head, post, put, patch, delete, options): each checks its arguments
 * (misuse raises a Lua error naming the call), builds the request into a
 * pooled op (path and query, absolute URLs on the client for that origin,
 * json or form bodies, headers with the client's defaults, Accept-Encoding,
 * the jar's Cookie; the headers that carry credentials put apart, for the
 * origin they were set for only), sends it with client/http_client and waits on the
 * bindings' operation pattern (lua/lm_op.h); lm_http_done.c completes it.
 * A failure before sending (a bad URL) returns nil, err at once.  It never parses bytes nor touches sockets; once the
 * op's buffers have grown, building a request allocates nothing. */
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"
#include "lua/lm_http_int.h"
#include "lua/lm_json.h"
#include "lua/lm_url.h"
#include "proto/url.h"

/* self of a method: the method closures carry the metatable as upvalue 1,
 * so the check needs no registry lookup by name (luaL_checkudata's). */
lm_http *lm_http_check(lua_State *L) {
    lm_http **ud = lua_touserdata(L, 1);
    if (ud == NULL || !lua_getmetatable(L, 1)) luaL_typerror(L, 1, LM_HTTP_MT);
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (!same) luaL_typerror(L, 1, LM_HTTP_MT);
    if (!*ud || !(*ud)->client) luaL_error(L, "luamech.http: the client is closed");
    return *ud;
}

int lm_http_tid_cached(lua_State *L, int ref, int key_idx) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushvalue(L, key_idx);
    lua_rawget(L, -2);
    int id = lua_isnumber(L, -1) ? (int)lua_tointeger(L, -1) : -1;
    lua_pop(L, 2);
    return id;
}

void lm_http_tid_cache(lua_State *L, int ref, int key_idx, int id) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushvalue(L, key_idx);
    lua_pushinteger(L, id);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* The timer id of "http <name>" for the name at idx (an absolute index;
 * cached per worker). */
static int lm_http_name_tid(lua_State *L, lm_http_mod *mod, int idx) {
    int id = lm_http_tid_cached(L, mod->names_ref, idx);
    if (id < 0) {
        char name[256];
        snprintf(name, sizeof name, "http %s", lua_tostring(L, idx));
        id = lm_timer_id(mod->w, name, TK_PRIMITIVE);
        lm_http_tid_cache(L, mod->names_ref, idx, id);
    }
    return id;
}

/* 1 when hdrs[0..n) has a header called name (any case). */
static int lm_http_has_header(const hp_header *hdrs, size_t n, const char *name) {
    size_t nl = strlen(name);
    for (size_t i = 0; i < n; i++)
        if (lm_http_ieq(hdrs[i].name, hdrs[i].name_len, name, nl)) return 1;
    return 0;
}

/* 1 when the header name[0..nl) carries credentials: Authorization,
 * Proxy-Authorization, Cookie, the client's credential_headers and the
 * request's (the list at cred_idx, 0: none). */
static int lm_http_is_cred(lua_State *L, const lm_http *h, int cred_idx, const char *name, size_t nl) {
    static const char *const always[] = {"authorization", "proxy-authorization", "cookie"};
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        if (lm_http_ieq(name, nl, always[i], strlen(always[i]))) return 1;
    for (int i = 0; i < h->ncred; i++)
        if (lm_http_ieq(name, nl, h->cred[i], strlen(h->cred[i]))) return 1;
    int n = cred_idx ? (int)lua_objlen(L, cred_idx) : 0, hit = 0;
    for (int i = 1; i <= n && !hit; i++) {
        size_t cl;
        lua_rawgeti(L, cred_idx, i);
        const char *c = lua_tolstring(L, -1, &cl);
        hit = lm_http_ieq(name, nl, c, cl);
        lua_pop(L, 1);
    }
    return hit;
}

/* Copy the headers into the op (its buffer and array): the request can be
 * sent again (redirects) after the Lua strings are gone.  The credentials
 * (kind[i] 1) go first, hdrs[0..op->ncred), so that a hop on another origin
 * sends the rest alone; kind[i] 2 is a header not copied.  0 or -1 (memory). */
static int lm_http_copy_headers(lm_http_op *op, const hp_header *hdrs, const unsigned char *kind, size_t nh) {
    size_t total = 0, off = 0, k = 0;
    for (size_t i = 0; i < nh; i++) total += hdrs[i].name_len + hdrs[i].value_len;
    if (lm_buf_reserve(&op->hbuf, &op->hbuf_cap, total + 1) != 0) return -1;
    for (int pass = 1; pass >= 0; pass--) {
        for (size_t i = 0; i < nh; i++) {
            if (kind[i] != pass) continue;
            memcpy(op->hbuf + off, hdrs[i].name, hdrs[i].name_len);
            op->hdrs[k].name = op->hbuf + off;
            op->hdrs[k].name_len = hdrs[i].name_len;
            off += hdrs[i].name_len;
            memcpy(op->hbuf + off, hdrs[i].value, hdrs[i].value_len);
            op->hdrs[k].value = op->hbuf + off;
            op->hdrs[k].value_len = hdrs[i].value_len;
            off += hdrs[i].value_len;
            k++;
        }
        if (pass == 1) op->ncred = k;
    }
    op->r.headers = op->hdrs;
    op->r.nheaders = op->nbase = k;
    return 0;
}

/* What each header of the call is (lm_http_copy_headers' kind): the
 * credentials among the script's (the request's, hdrs[0..nreq), then the
 * client's defaults) are 1, but 2 (dropped) for a client default when the
 * call starts on another origin than the client's base URL: they were set
 * for that one. */
static void lm_http_cred_kinds(lua_State *L, const lm_http *h, const lm_http_call *c, const hp_header *hdrs,
                               size_t nreq, size_t nscript, size_t nh, int foreign, unsigned char *kind) {
    for (size_t i = 0; i < nh; i++) {
        kind[i] = i < nscript && lm_http_is_cred(L, h, c->cred_idx, hdrs[i].name, hdrs[i].name_len);
        if (kind[i] && i >= nreq && foreign) kind[i] = 2;
    }
}

/* 1 when the kept headers hdrs (kind not 2) have a Cookie. */
static int lm_http_has_cookie(const hp_header *hdrs, const unsigned char *kind, size_t nh) {
    for (size_t i = 0; i < nh; i++)
        if (kind[i] != 2 && lm_http_ieq(hdrs[i].name, hdrs[i].name_len, "cookie", 6)) return 1;
    return 0;
}

/* The path (and query) of the call into op->path; the client for an
 * absolute URL's origin (http:// or https://) into *client.  0, or -1 with op->err filled (a bad
 * query value raises instead: it is the script's fault). */
static int lm_http_target(lua_State *L, lm_http_op *op, lm_http *h, const char *fname, const char *path,
                          size_t path_len, int query_idx, http_client **client) {
    *client = h->client;
    if (url_is_abs(path, path_len)) {
        url_abs a;
        if (url_split_abs(path, path_len, &a) != 0 || !hp_path_valid(a.rest, a.rest_len)) {
            snprintf(op->err, sizeof op->err, "%s: bad URL \"%.200s\"", fname, path);
            return -1;
        }
        char err[200];
        *client = lm_http_client_host(h, a.scheme_len == 5, a.authority, a.authority_len, err, sizeof err);
        if (!*client) {
            snprintf(op->err, sizeof op->err, "%s: %s", fname, err);
            return -1;
        }
        path = a.rest;
        path_len = a.rest_len;
    }
    if (lm_buf_reserve(&op->path, &op->path_cap, path_len + 1) != 0) goto oom;
    memcpy(op->path, path, path_len);
    op->path_len = path_len;
    if (query_idx) {
        char err[200];
        int had = memchr(path, '?', path_len) != NULL;
        size_t before = op->path_len;
        if (lm_buf_reserve(&op->path, &op->path_cap, op->path_len + 2) != 0) goto oom;
        op->path[op->path_len++] = had ? '&' : '?';
        size_t qstart = op->path_len;
        if (lm_url_query(L, query_idx, 0, &op->path, &op->path_cap, &op->path_len, err, sizeof err) != 0) {
            lm_op_put(&op->core);
            luaL_error(L, "%s: query: %s", fname, err);
        }
        if (op->path_len == qstart) op->path_len = before;     /* empty table: no '?' */
    }
    return 0;
oom:
    snprintf(op->err, sizeof op->err, "%s: out of memory", fname);
    return -1;
}

/* A json or form body into op->bbuf; returns the content type to add, or
 * NULL for a plain body.  Encoding errors raise, naming the call. */
static const char *lm_http_encode_body(lua_State *L, lm_http_op *op, const char *fname,
                                       const lm_http_call *c, const char **body, size_t *body_len) {
    char err[256];
    size_t len = 0;
    *body = c->body;
    *body_len = c->body_len;
    if (c->json_idx) {
        if (lm_json_encode(L, c->json_idx, &op->bbuf, &op->bbuf_cap, &len, err, sizeof err) != 0) {
            lm_op_put(&op->core);
            luaL_error(L, "%s: json: %s", fname, err);
        }
        *body = op->bbuf;
        *body_len = len;
        return "application/json";
    }
    if (c->form_idx) {
        if (lm_url_query(L, c->form_idx, 1, &op->bbuf, &op->bbuf_cap, &len, err, sizeof err) != 0) {
            lm_op_put(&op->core);
            luaL_error(L, "%s: form: %s", fname, err);
        }
        *body = len ? op->bbuf : "";
        *body_len = len;
        return "application/x-www-form-urlencoded";
    }
    return NULL;
}

/* The script's headers into hdrs: the call's (their count in *nreq), then
 * the client's defaults it did not override.  Returns the count.  The
 * strings stay anchored on the stack. */
static size_t lm_http_req_headers(lua_State *L, lm_http *h, const char *fname, const lm_http_call *c,
                                  hp_header *hdrs, size_t *nreq) {
    size_t nh = 0;
    if (c->hdr_idx) lm_http_headers(L, c->hdr_idx, fname, hdrs, &nh, 0);
    *nreq = nh;
    if (h->headers_ref != LUA_NOREF) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->headers_ref);
        lm_http_headers(L, lua_gettop(L), fname, hdrs, &nh, 1);
    }
    return nh;
}

/* Append header name: value (value NULL: none) to hdrs[*nh] unless the
 * script set one of that name: Accept-Encoding (bodies are decoded,
 * lm_http_done.c) and the content type of a json or form body. */
static void lm_http_add_header(hp_header *hdrs, size_t *nh, const char *name, const char *value) {
    if (!value || lm_http_has_header(hdrs, *nh, name)) return;
    hdrs[*nh].name = name;
    hdrs[*nh].name_len = strlen(name);
    hdrs[*nh].value = value;
    hdrs[*nh].value_len = strlen(value);
    (*nh)++;
}

/* A request that failed before it was sent (op->err says why): its nil,
 * err pushed (*nres = 2) or, in a batch, stored there and done (*nres = 0). */
static void lm_http_start_failed(lua_State *L, lm_http_op *op, lm_http_batch *b, int bi, int *nres) {
    lua_pushnil(L);
    lua_pushstring(L, op->err);
    lm_op_put(&op->core);
    *nres = 2;
    if (!b) return;
    lm_http_batch_store(L, b, bi, 2);
    lm_op_request_done(&b->core);          /* inside the batch's call: the call returns them */
    *nres = 0;
}

/* The op's fields from the call's options (before its target is known). */
static void lm_http_op_setup(lm_http_op *op, lm_http *h, int method, const lm_http_call *c,
                             lm_http_batch *b, int bi) {
    op->h = h;
    op->batch = b;
    op->batch_i = bi;
    op->method = op->call_method = method;
    op->redirects_left = c->redirects;
    op->allow_downgrade = c->allow_downgrade;
    op->foreign = 0;
    op->has_expect = c->has_expect;
    memcpy(op->expect, c->expect, sizeof op->expect);
    op->req.on_done = lm_http_on_done;
    op->req.data = op;
    op->req.timeout_ns = c->timeout_ns;
    op->req.max_body = c->max_body;
    op->req.discard_body = c->discard_body;
}

/* op->where: the path without its query or fragment, for messages. */
static void lm_http_op_where(lm_http_op *op) {
    size_t wl = 0;
    while (wl < op->path_len && wl < sizeof op->where - 1 && op->path[wl] != '?' && op->path[wl] != '#') wl++;
    memcpy(op->where, op->path, wl);
    op->where[wl] = 0;
}

/* The request line and body of the op's first hop. */
static void lm_http_op_request(lm_http_op *op, int method, const char *body, size_t body_len) {
    hp_request *r = &op->r;
    r->method = (hp_method)method;
    r->path = op->path;
    r->path_len = op->path_len;
    r->host = NULL;
    r->host_len = 0;
    r->close = 0;
    r->body = body;
    r->body_len = body_len;
    if (!body && (method == HP_POST || method == HP_PUT || method == HP_PATCH)) r->body = "";
}

/* Sends the op's first hop: the op (lua/lm_op.h) starts now with one
 * request, whose deadline counts from the same clock read.  Returns the op
 * of a single call (completed or not: the caller finishes the call), NULL
 * for a batch's (which may have released it already). */
static lm_http_op *lm_http_send(lua_State *L, lm_http_op *op, vu *v, http_client *client, int *nres) {
    lm_op_start(&op->core, v, L, 1);
    op->req.start_ns = op->core.start_ns;
    *nres = 0;
    int was_batch = op->batch != NULL;
    http_client_send(client, &op->req, &op->r);   /* copies every byte; a batch op may be gone after */
    return was_batch ? NULL : op;
}

/* Check, build and send one request: stack [self, ..., path at path_idx,
 * body at body_idx (0: none; from opts.body), opts at opts_idx].  Returns
 * the op of a single call once sent (the caller anchors it while in flight
 * and finishes the call: lm_op_finish_call), or NULL when it failed before
 * it was sent (nil, err pushed: the count in *nres) or belongs to a batch
 * (its results are stored there). */
lm_http_op *lm_http_start(lua_State *L, lm_http *h, int method, const char *fname, int path_idx,
                          int body_idx, int opts_idx, lm_http_batch *b, int bi, int *nres,
                          int *body_str_idx) {
    size_t path_len;
    const char *path = luaL_checklstring(L, path_idx, &path_len);
    if (!url_is_abs(path, path_len) && !hp_path_valid(path, path_len))
        luaL_argerror(L, path_idx, "a path starting with / (or an http:// or https:// URL) without spaces or control "
                                   "characters expected");
    lm_http_call c;
    lm_http_call_opts(L, h, fname, body_idx, opts_idx, &c);
    vu *v = lm_current_vu(L, h->mod->w, "luamech.http client methods");
    hp_header hdrs[LM_HTTP_MAX_HEADERS + LM_HTTP_EXTRA_HEADERS];
    size_t nreq;
    size_t nh = lm_http_req_headers(L, h, fname, &c, hdrs, &nreq);
    lm_http_op *op = lm_http_op_get(L, h->mod);
    lm_http_op_setup(op, h, method, &c, b, bi);
    http_client *client;
    if (lm_http_target(L, op, h, fname, path, path_len, c.query_idx, &client) != 0) {
        lm_http_start_failed(L, op, b, bi, nres);
        return NULL;
    }
    const char *body;
    size_t body_len;
    const char *ctype = lm_http_encode_body(L, op, fname, &c, &body, &body_len);
    size_t nscript = nh;
    if (!c.discard_body) lm_http_add_header(hdrs, &nh, "Accept-Encoding", "gzip, deflate");
    lm_http_add_header(hdrs, &nh, "Content-Type", ctype);
    unsigned char kind[LM_HTTP_MAX_HEADERS + LM_HTTP_EXTRA_HEADERS];
    lm_http_cred_kinds(L, h, &c, hdrs, nreq, nscript, nh, client != h->client, kind);
    if (lm_http_copy_headers(op, hdrs, kind, nh) != 0) {
        lm_op_put(&op->core);
        luaL_error(L, "%s: out of memory", fname);
    }
    op->cookie_slot = h->use_jar && !lm_http_has_cookie(hdrs, kind, nh);
    op->host = lm_http_host_of(h, client, &op->tls, &op->origin);
    lm_http_cookie_header(op);
    if (c.name_idx) op->name_tid = lm_http_name_tid(L, h->mod, c.name_idx);
    op->tag_tid = lm_http_tag_tid(L, h, &c, method);
    lm_http_op_where(op);
    op->client = client;
    lm_http_op_request(op, method, body, body_len);
    *body_str_idx = c.body_str_idx;
    return lm_http_send(L, op, v, client, nres);
}

static int lm_http_do(lua_State *L, int method, const char *fname, int path_idx, int body_idx,
                      int opts_idx) {
    lm_http *h = lm_http_check(L);
    int nres, body_str_idx;
    lm_http_op *op = lm_http_start(L, h, method, fname, path_idx, body_idx, opts_idx, NULL, 0, &nres,
                                   &body_str_idx);
    if (!op) return nres;
    if (op->core.pending) lm_op_anchor(&op->core, L, 1, body_str_idx);   /* in flight */
    return lm_op_finish_call(&op->core, L);
}

/* c:request(method, path [, opts]) */
int lm_http_request(lua_State *L) {
    size_t len;
    const char *m = luaL_checklstring(L, 2, &len);
    int method = hp_method_parse(m, len);
    if (method < 0)
        return luaL_error(L, "http.request: method must be GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS, "
                             "got \"%s\"", m);
    lua_settop(L, 4);
    return lm_http_do(L, method, "http.request", 3, 0, 4);
}

int lm_http_get(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_GET, "http.get", 2, 0, 3); }
int lm_http_head(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_HEAD, "http.head", 2, 0, 3); }
int lm_http_delete(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_DELETE, "http.delete", 2, 0, 3); }
int lm_http_options(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_OPTIONS, "http.options", 2, 0, 3); }
int lm_http_post(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_POST, "http.post", 2, 3, 4); }
int lm_http_put(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_PUT, "http.put", 2, 3, 4); }
int lm_http_patch(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_PATCH, "http.patch", 2, 3, 4); }
