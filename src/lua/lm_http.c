/* lm_http.c - binds luamech.http: new() and the client methods request, get,
 * post, put, delete, head, close.  Each method checks its arguments (misuse
 * raises a Lua error), sends the request with client/http_client (which
 * encodes and parses with proto/http_proto) and yields; the completion pushes
 * the response table and resumes the VU through vu_resume.  Connect, read,
 * write, timeout and body-limit (max_body) failures return nil, err; with
 * discard_body the response has body_bytes and no body.  Every call is timed
 * under "http.<method>" (and "http <name>" when the call names itself); a
 * non-2xx status is returned normally but counted as an error of those
 * timers.  It never parses bytes or touches sockets. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/http_client.h"
#include "engine/vu.h"
#include "engine/worker.h"
#include "lua/lm_core.h"

#define LM_HTTP_MT "luamech.http"
#define LM_HTTP_MAX_HEADERS 64
#define LM_HTTP_DEFAULT_TIMEOUT_NS 10000000000ull
#define LM_HTTP_MAX_BODY_LIMIT (1u << 30)   /* the largest max_body a script may set */

typedef struct lm_http lm_http;
typedef struct lm_http_op lm_http_op;

/* A client shared by the objects made with pool = true (per worker and key). */
typedef struct lm_http_pool {
    char *key;
    http_client *client;
    struct lm_http_pool *next;
} lm_http_pool;

/* The module's per-worker state. */
typedef struct lm_http_mod {
    worker *w;
    lm_http *objs;                 /* every live object, for teardown */
    lm_http_pool *pools;
    lm_http_op *free_ops;
    int names_ref;                 /* "http <name>" -> timer id cache */
    int ids_ready;
    int tid[HP_NMETHODS];
    int c_sent, c_recv, c_connects, c_retries, c_status[6];
    int res_mt_ref;                /* metatable of responses (lazy headers, body_bytes) */
    int key_status_ref, key_body_ref, key_bytes_ref;  /* the field names, interned once */
    char *hblk;                    /* scratch for packing response headers */
    size_t hblk_cap;
    int closing;
} lm_http_mod;

/* One client object as Lua sees it.  The userdata holds a pointer; the
 * object is freed by the collector (no request can be in flight then: each
 * request anchors it) or at teardown. */
struct lm_http {
    lm_http_mod *mod;
    http_client *client;           /* private or the pool's; NULL once closed */
    int pooled;
    char base[288];                /* "host:port", for messages */
    int headers_ref;               /* default headers (validated copy) or LUA_NOREF */
    uint64_t timeout_ns;           /* 0 = none */
    size_t max_body;               /* bytes */
    int discard_body;
    lm_http *prev, *next;
    lm_http **ud;
};

struct lm_http_op {
    http_req req;
    lm_http_op *next;
    lm_http_mod *mod;
    vu *v;
    int method;
    int name_tid;                  /* -1 when the call has no name */
    int anchor_ref;                /* this op's registry slot: the object while in flight, else false */
    int in_call, nres;
    uint64_t start_ns;
    char where[160];               /* the path without its query, for the tally */
    http_client *client;           /* alive while it may call back: names failures */
    char err[TALLY_MSG_MAX];       /* the failure message */
};

static const char *const lm_http_lower[HP_NMETHODS] = {"get", "head", "post", "put", "delete"};

/* ---- ops ---- */

/* A pooled op.  Each op owns one registry slot for its whole life (false
 * while idle; never nil, so the registry's array part has no holes), which
 * anchors the client object while a request is in flight. */
static lm_http_op *lm_http_op_get(lua_State *L, lm_http_mod *mod) {
    lm_http_op *op = mod->free_ops;
    if (op) {
        mod->free_ops = op->next;
    } else {
        op = calloc(1, sizeof *op);
        if (op == NULL) luaL_error(L, "luamech.http: out of memory");
        op->mod = mod;
        lua_pushboolean(L, 0);
        op->anchor_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    memset(&op->req, 0, sizeof op->req);
    op->next = NULL;
    op->v = NULL;
    op->client = NULL;
    op->method = op->in_call = op->nres = 0;
    op->name_tid = -1;
    op->start_ns = 0;
    op->where[0] = op->err[0] = 0;
    return op;
}

static void lm_http_op_put(lm_http_op *op) {
    lm_http_mod *mod = op->mod;
    op->next = mod->free_ops;
    mod->free_ops = op;
}

/* ---- results ---- */

/* The key of a response's packed headers (a light userdata: no string key
 * can clash with it). */
static const char lm_http_hdr_key = 0;

/* res.headers, built on first access from the packed block that
 * lm_http_push left in the response: a table of lowercase names, repeated
 * headers joined with ", ".  The header bytes are walked by proto/http_proto.
 * res.body_bytes of a kept body is its length (a discarded body's count is
 * stored in the response itself). */
static int lm_http_res_index(lua_State *L) {
    size_t kl;
    const char *k = lua_tolstring(L, 2, &kl);
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    if (kl == 10 && memcmp(k, "body_bytes", 10) == 0) {
        lua_pushliteral(L, "body");
        lua_rawget(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) return 0;
        lua_pushinteger(L, (lua_Integer)lua_objlen(L, -1));
        return 1;
    }
    if (kl != 7 || memcmp(k, "headers", 7) != 0) return 0;
    lua_pushlightuserdata(L, (void *)&lm_http_hdr_key);
    lua_rawget(L, 1);
    size_t len = 0, pos = 0, nl, vl;
    const char *blk = lua_tolstring(L, -1, &len), *n, *v;   /* NULL: no headers */
    lua_newtable(L);
    while (blk && hp_headers_next(blk, len, &pos, &n, &nl, &v, &vl)) {
        lua_pushlstring(L, n, nl);
        lua_pushvalue(L, -1);
        lua_rawget(L, -3);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_pushlstring(L, v, vl);
        } else {                               /* repeated header: join with ", " */
            lua_pushliteral(L, ", ");
            lua_pushlstring(L, v, vl);
            lua_concat(L, 3);
        }
        lua_rawset(L, -3);
    }
    lua_pushliteral(L, "headers");
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);                          /* later reads find it directly */
    lua_pushlightuserdata(L, (void *)&lm_http_hdr_key);
    lua_pushnil(L);
    lua_rawset(L, 1);
    return 1;
}

/* The response table {status, body} and its headers, packed into one string
 * that res.headers unpacks when a script reads it (most never do). */
static int lm_http_push(lm_http_op *op, lua_State *L, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    lua_checkstack(L, 8);
    if (status != 0) {
        lua_pushnil(L);
        lua_pushstring(L, op->err);
        return 2;
    }
    lua_createtable(L, 0, 4);
    lua_rawgeti(L, LUA_REGISTRYINDEX, mod->key_status_ref);
    lua_pushinteger(L, res->status);
    lua_rawset(L, -3);
    if (op->req.discard_body) {                /* no body: its size */
        lua_rawgeti(L, LUA_REGISTRYINDEX, mod->key_bytes_ref);
        lua_pushnumber(L, (lua_Number)res->body_seen);
    } else {
        lua_rawgeti(L, LUA_REGISTRYINDEX, mod->key_body_ref);
        lua_pushlstring(L, res->body ? res->body : "", res->body_len);
    }
    lua_rawset(L, -3);
    size_t need = hp_parser_headers_pack(res, mod->hblk, mod->hblk_cap);
    if (need > mod->hblk_cap) {
        char *b = realloc(mod->hblk, need * 2);
        if (b == NULL) luaL_error(L, "luamech.http: out of memory");
        mod->hblk = b;
        mod->hblk_cap = need * 2;
        need = hp_parser_headers_pack(res, mod->hblk, mod->hblk_cap);
    }
    if (need) {
        lua_pushlightuserdata(L, (void *)&lm_http_hdr_key);
        lua_pushlstring(L, mod->hblk, need);
        lua_rawset(L, -3);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, mod->res_mt_ref);
    lua_setmetatable(L, -2);
    return 1;
}

/* Statistics of one finished request; fills op->err on failure. */
static void lm_http_account(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    worker *w = mod->w;
    uint64_t now = worker_now_ns();
    int64_t dur = (int64_t)(now - op->start_ns);
    int ok = status == 0 && res->status >= 200 && res->status < 300;
    vu_record(op->v, mod->tid[op->method], dur, now, ok);
    if (op->name_tid >= 0) vu_record(op->v, op->name_tid, dur, now, ok);
    http_req *req = &op->req;
    if (req->bytes_sent) worker_count(w, mod->c_sent, (int64_t)req->bytes_sent);
    if (req->bytes_received) worker_count(w, mod->c_recv, (int64_t)req->bytes_received);
    if (req->connects) worker_count(w, mod->c_connects, req->connects);
    if (req->retried) worker_count(w, mod->c_retries, 1);
    char msg[TALLY_MSG_MAX];
    int n;
    if (status == 0) {
        int cls = res->status / 100;
        if (cls >= 2 && cls <= 5) worker_count(w, mod->c_status[cls], 1);
        if (ok) return;
        n = snprintf(msg, sizeof msg, "http.%s %s: status %d", lm_http_lower[op->method],
                     op->where, res->status);
    } else {
        char why[160];
        http_client_describe(req, status, why, sizeof why);
        n = snprintf(op->err, sizeof op->err, "http.%s %s: %s", lm_http_lower[op->method],
                     http_client_name(op->client), why);
        memcpy(msg, op->err, sizeof msg);
    }
    worker_error(w, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
}

static void lm_http_on_done(http_req *req, int status, const hp_parser *res) {
    lm_http_op *op = req->data;
    lm_http_mod *mod = op->mod;
    lm_http_account(op, status, res);
    vu *v = op->v;
    if (op->in_call) {                         /* the Lua call returns the results */
        op->nres = lm_http_push(op, v->L, status, res);
        return;
    }
    lua_pushboolean(mod->w->L, 0);             /* release the client object */
    lua_rawseti(mod->w->L, LUA_REGISTRYINDEX, op->anchor_ref);
    if (mod->closing || !vu_wants_resume(v)) {
        lm_http_op_put(op);
        return;
    }
    /* Inside another VU's call (it closed a client this VU waits on),
     * vu_resume defers the resume to the loop. */
    int n = lm_http_push(op, v->L, status, res);
    lm_http_op_put(op);
    vu_resume(v, n);
}

/* ---- argument checks ---- */

/* self of a method: the method closures carry the metatable as upvalue 1,
 * so the check needs no registry lookup by name (luaL_checkudata's). */
static lm_http *lm_http_check(lua_State *L) {
    lm_http **ud = lua_touserdata(L, 1);
    if (ud == NULL || !lua_getmetatable(L, 1)) luaL_typerror(L, 1, LM_HTTP_MT);
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (!same) luaL_typerror(L, 1, LM_HTTP_MT);
    if (!*ud || !(*ud)->client) luaL_error(L, "luamech.http: the client is closed");
    return *ud;
}

static int lm_http_ieq(const char *a, size_t alen, const char *b, size_t blen) {
    if (alen != blen) return 0;
    for (size_t i = 0; i < alen; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
    }
    return 1;
}

/* Add the headers of the table at idx to hdrs (skipping names already there
 * when `defaults`).  Number values are converted; the strings stay anchored
 * on the stack (one slot per converted value) until the caller pops them. */
static void lm_http_headers(lua_State *L, int idx, const char *fname, hp_header *hdrs, size_t *nh,
                            int defaults) {
    size_t first = *nh;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_checkstack(L, 4);
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "%s: header names must be strings", fname);
        size_t nl, vl;
        const char *name = lua_tolstring(L, -2, &nl);
        if (!hp_header_name_valid(name, nl))
            luaL_error(L, "%s: invalid header name '%s'", fname, name);
        if (hp_header_reserved(name, nl))
            luaL_error(L, "%s: header '%s' is set by luamech", fname, name);
        int t = lua_type(L, -1);
        if (t != LUA_TSTRING && t != LUA_TNUMBER)
            luaL_error(L, "%s: header '%s' must be a string or a number, got %s", fname, name,
                       lua_typename(L, t));
        if (t == LUA_TNUMBER) {                /* convert a copy; keep it below the key */
            lua_pushvalue(L, -1);
            lua_tolstring(L, -1, NULL);
            lua_insert(L, -3);
        }
        const char *value = lua_tolstring(L, t == LUA_TNUMBER ? -3 : -1, &vl);
        if (!hp_header_value_valid(value, vl))
            luaL_error(L, "%s: header '%s' has CR, LF or NUL in its value (or is over 8 KB)", fname, name);
        int skip = 0;
        for (size_t i = 0; defaults && i < first && !skip; i++)
            skip = lm_http_ieq(hdrs[i].name, hdrs[i].name_len, name, nl);
        if (!skip) {
            if (*nh >= LM_HTTP_MAX_HEADERS)
                luaL_error(L, "%s: at most %d headers", fname, LM_HTTP_MAX_HEADERS);
            hdrs[*nh].name = name;
            hdrs[*nh].name_len = nl;
            hdrs[*nh].value = value;
            hdrs[*nh].value_len = vl;
            (*nh)++;
        }
        lua_pop(L, 1);
    }
}

/* ---- the request ---- */

/* max_body and discard_body of the options table at idx (client or request
 * options), over *max_body and *discard; misuse raises.  Leaves the stack as
 * it was. */
static void lm_http_body_opts(lua_State *L, int idx, const char *fname, size_t *max_body, int *discard) {
    lua_getfield(L, idx, "max_body");
    if (!lua_isnil(L, -1)) {
        double b = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
        if (!(b >= 1 && b <= (double)LM_HTTP_MAX_BODY_LIMIT) || b != (double)(size_t)b)
            luaL_error(L, "%s: max_body must be a whole number of bytes from 1 to %d (1 GiB)", fname,
                       (int)LM_HTTP_MAX_BODY_LIMIT);
        *max_body = (size_t)b;
    }
    lua_getfield(L, idx, "discard_body");
    if (!lua_isnil(L, -1)) {
        if (!lua_isboolean(L, -1)) luaL_error(L, "%s: discard_body must be a boolean", fname);
        *discard = lua_toboolean(L, -1);
    }
    lua_pop(L, 2);
}

static int lm_http_name_tid(lua_State *L, lm_http_mod *mod, int idx) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, mod->names_ref);
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    int id;
    if (lua_isnumber(L, -1)) {
        id = (int)lua_tointeger(L, -1);
    } else {
        char name[256];
        snprintf(name, sizeof name, "http %s", lua_tostring(L, idx));
        id = lm_timer_id(mod->w, name, TK_PRIMITIVE);
        lua_pushvalue(L, idx);
        lua_pushinteger(L, id);
        lua_rawset(L, -4);
    }
    lua_pop(L, 2);
    return id;
}

/* The common path of every method: stack [self, ..., path at path_idx,
 * body at body_idx (0: none; from opts.body), opts at opts_idx]. */
static int lm_http_do(lua_State *L, int method, const char *fname, int path_idx, int body_idx,
                      int opts_idx) {
    static const char *const known[] = {"headers", "body", "name", "timeout", "max_body", "discard_body", NULL};
    lm_http *h = lm_http_check(L);
    lm_http_mod *mod = h->mod;
    size_t path_len, body_len = 0;
    const char *path = luaL_checklstring(L, path_idx, &path_len);
    if (!hp_path_valid(path, path_len))
        luaL_argerror(L, path_idx, "a path starting with / without spaces or control characters expected");
    const char *body = NULL;
    if (body_idx && !lua_isnoneornil(L, body_idx)) body = luaL_checklstring(L, body_idx, &body_len);
    uint64_t timeout_ns = h->timeout_ns;
    size_t max_body = h->max_body;
    int discard_body = h->discard_body;
    int name_idx = 0, hdr_idx = 0;
    if (!lua_isnoneornil(L, opts_idx)) {
        luaL_checktype(L, opts_idx, LUA_TTABLE);
        lm_check_options(L, opts_idx, fname, known);
        lua_getfield(L, opts_idx, "body");
        if (!lua_isnil(L, -1)) {
            if (body_idx) luaL_error(L, "%s: give the body as the argument, not in the options", fname);
            if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "%s: body must be a string", fname);
            body = lua_tolstring(L, -1, &body_len);     /* anchored by opts */
        }
        lua_getfield(L, opts_idx, "timeout");
        if (!lua_isnil(L, -1)) {
            if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0) || lua_tonumber(L, -1) > 86400)
                luaL_error(L, "%s: timeout must be a number of seconds between 0 and 86400", fname);
            timeout_ns = (uint64_t)(lua_tonumber(L, -1) * 1e9);
        }
        lm_http_body_opts(L, opts_idx, fname, &max_body, &discard_body);
        lua_getfield(L, opts_idx, "name");
        if (!lua_isnil(L, -1)) {
            size_t nl;
            if (lua_type(L, -1) != LUA_TSTRING || (lua_tolstring(L, -1, &nl), nl == 0 || nl > 200))
                luaL_error(L, "%s: name must be a string of 1..200 bytes", fname);
            name_idx = lua_gettop(L);
        }
        lua_getfield(L, opts_idx, "headers");
        if (!lua_isnil(L, -1)) {
            if (!lua_istable(L, -1)) luaL_error(L, "%s: headers must be a table", fname);
            hdr_idx = lua_gettop(L);
        }
    }
    vu *v = lm_current_vu(L, mod->w, "luamech.http client methods");
    hp_header hdrs[LM_HTTP_MAX_HEADERS];
    size_t nh = 0;
    if (hdr_idx) lm_http_headers(L, hdr_idx, fname, hdrs, &nh, 0);
    if (h->headers_ref != LUA_NOREF) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->headers_ref);
        lm_http_headers(L, lua_gettop(L), fname, hdrs, &nh, 1);
    }
    lm_http_op *op = lm_http_op_get(L, mod);
    op->v = v;
    op->method = method;
    if (name_idx) op->name_tid = lm_http_name_tid(L, mod, name_idx);
    size_t wl = strcspn(path, "?#");
    if (wl >= sizeof op->where) wl = sizeof op->where - 1;
    memcpy(op->where, path, wl);
    op->where[wl] = 0;
    op->client = h->client;
    op->req.on_done = lm_http_on_done;
    op->req.data = op;
    op->req.timeout_ns = timeout_ns;
    op->req.max_body = max_body;
    op->req.discard_body = discard_body;
    hp_request r;
    memset(&r, 0, sizeof r);
    r.method = (hp_method)method;
    r.path = path;
    r.path_len = path_len;
    r.headers = hdrs;
    r.nheaders = nh;
    r.body = body;
    r.body_len = body_len;
    if (!body && (method == HP_POST || method == HP_PUT)) r.body = "";
    op->in_call = 1;
    op->start_ns = worker_now_ns();
    op->req.start_ns = op->start_ns;          /* the same clock: one read for both */
    http_client_send(h->client, &op->req, &r);  /* copies every byte */
    op->in_call = 0;
    if (op->nres) {                            /* completed at once (pushed on L) */
        int n = op->nres;
        lm_http_op_put(op);
        return n;
    }
    lua_pushvalue(L, 1);
    lua_rawseti(L, LUA_REGISTRYINDEX, op->anchor_ref);
    v->state = VU_WAITING;
    return lua_yield(L, 0);
}

/* c:request(method, path [, opts]) */
static int lm_http_request(lua_State *L) {
    size_t len;
    const char *m = luaL_checklstring(L, 2, &len);
    int method = hp_method_parse(m, len);
    if (method < 0)
        return luaL_error(L, "luamech.http: method must be GET, HEAD, POST, PUT or DELETE, got \"%s\"", m);
    lua_settop(L, 4);
    return lm_http_do(L, method, "http.request", 3, 0, 4);
}

static int lm_http_get(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_GET, "http.get", 2, 0, 3); }
static int lm_http_head(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_HEAD, "http.head", 2, 0, 3); }
static int lm_http_delete(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_DELETE, "http.delete", 2, 0, 3); }
static int lm_http_post(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_POST, "http.post", 2, 3, 4); }
static int lm_http_put(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_PUT, "http.put", 2, 3, 4); }

/* ---- close, collection, teardown ---- */

static void lm_http_close(lm_http *h) {
    if (!h->client) return;
    http_client *c = h->client;
    h->client = NULL;
    if (!h->pooled) http_client_close(c);   /* in-flight requests fail with "cancelled" */
}

static void lm_http_free(lm_http *h, lua_State *L) {
    lm_http_mod *mod = h->mod;
    if (h->prev) h->prev->next = h->next;
    else mod->objs = h->next;
    if (h->next) h->next->prev = h->prev;
    if (L && h->headers_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, h->headers_ref);
    *h->ud = NULL;
    free(h);
}

static int lm_http_close_lua(lua_State *L) {
    lm_http **ud = luaL_checkudata(L, 1, LM_HTTP_MT);
    if (*ud) lm_http_close(*ud);
    return 0;
}

static int lm_http_gc(lua_State *L) {
    lm_http **ud = luaL_checkudata(L, 1, LM_HTTP_MT);
    if (*ud) {
        lm_http_close(*ud);
        lm_http_free(*ud, L);
    }
    return 0;
}

static void lm_http_worker_close(void *data) {
    lm_http_mod *mod = data;
    mod->closing = 1;                          /* completions from now on resume nobody */
    for (lm_http *h = mod->objs; h; h = h->next) lm_http_close(h);
    while (mod->pools) {
        lm_http_pool *p = mod->pools;
        mod->pools = p->next;
        http_client_close(p->client);
        free(p->key);
        free(p);
    }
    while (mod->objs) lm_http_free(mod->objs, NULL);   /* their userdata die in lua_close */
    while (mod->free_ops) {
        lm_http_op *op = mod->free_ops;
        mod->free_ops = op->next;
        free(op);
    }
    free(mod->hblk);
    free(mod);
}

/* ---- luamech.http.new ---- */

static void lm_http_ids(lm_http_mod *mod) {
    if (mod->ids_ready) return;
    worker *w = mod->w;
    for (int m = 0; m < HP_NMETHODS; m++) {
        char name[32];
        snprintf(name, sizeof name, "http.%s", lm_http_lower[m]);
        mod->tid[m] = lm_timer_id(w, name, TK_PRIMITIVE);
    }
    mod->c_sent = worker_counter_id(w, "http.bytes_sent");
    mod->c_recv = worker_counter_id(w, "http.bytes_received");
    mod->c_connects = worker_counter_id(w, "http.connects");
    mod->c_retries = worker_counter_id(w, "http.retries");
    for (int k = 2; k <= 5; k++) {
        char name[32];
        snprintf(name, sizeof name, "http.status_%dxx", k);
        mod->c_status[k] = worker_counter_id(w, name);
    }
    mod->ids_ready = 1;
}

/* luamech.http.new(base_url [, {pool=, keepalive=, timeout=, headers=}]) ->
 * client | nil, err (the host cannot be resolved).  No I/O: connections are
 * opened by the first requests. */
/* The options of luamech.http.new. */
typedef struct lm_http_cfg {
    int pool, keepalive, headers_ref, discard_body;
    uint64_t timeout_ns;
    size_t max_body;
} lm_http_cfg;

/* A validated copy of the default headers at hidx (values as strings), as a
 * registry reference. */
static int lm_http_default_headers(lua_State *L, int hidx) {
    hp_header hdrs[LM_HTTP_MAX_HEADERS];
    size_t nh = 0;
    int top = lua_gettop(L);
    lm_http_headers(L, hidx, "luamech.http.new", hdrs, &nh, 0);
    lua_createtable(L, 0, (int)nh);
    for (size_t i = 0; i < nh; i++) {
        lua_pushlstring(L, hdrs[i].name, hdrs[i].name_len);
        lua_pushlstring(L, hdrs[i].value, hdrs[i].value_len);
        lua_rawset(L, -3);
    }
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_settop(L, top);
    return ref;
}

/* The options table at idx (or nil) into cfg; misuse raises. */
static void lm_http_new_opts(lua_State *L, int idx, lm_http_cfg *cfg) {
    static const char *const known[] = {"pool", "keepalive", "timeout", "headers", "max_body",
                                        "discard_body", NULL};
    cfg->pool = 0;
    cfg->keepalive = 1;
    cfg->headers_ref = LUA_NOREF;
    cfg->timeout_ns = LM_HTTP_DEFAULT_TIMEOUT_NS;
    cfg->max_body = HTTP_MAX_BODY_DEFAULT;
    cfg->discard_body = 0;
    if (lua_isnil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lm_check_options(L, idx, "luamech.http.new", known);
    lm_http_body_opts(L, idx, "luamech.http.new", &cfg->max_body, &cfg->discard_body);
    lua_getfield(L, idx, "pool");
    cfg->pool = lua_toboolean(L, -1);
    lua_getfield(L, idx, "keepalive");
    if (!lua_isnil(L, -1)) {
        if (!lua_isboolean(L, -1)) luaL_error(L, "luamech.http.new: keepalive must be a boolean");
        cfg->keepalive = lua_toboolean(L, -1);
    }
    lua_getfield(L, idx, "timeout");
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0) || lua_tonumber(L, -1) > 86400)
            luaL_error(L, "luamech.http.new: timeout must be a number of seconds between 0 and 86400");
        cfg->timeout_ns = (uint64_t)(lua_tonumber(L, -1) * 1e9);
    }
    lua_getfield(L, idx, "headers");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) luaL_error(L, "luamech.http.new: headers must be a table");
        cfg->headers_ref = lm_http_default_headers(L, lua_gettop(L));   /* raises before the ref */
    }
    lua_pop(L, 4);
}

/* A private client, or the worker's pooled one for this host, port and
 * keep-alive setting (made on first use).  0, or -1 with err filled. */
static int lm_http_client_for(lm_http_mod *mod, const char *host, int port, const char *authority,
                              const lm_http_cfg *cfg, http_client **out, char *err, size_t err_len) {
    http_client_opts o;
    http_client_opts_default(&o);
    o.keepalive = cfg->keepalive;
    o.timeout_ns = 0;                          /* every request carries its own */
    if (!cfg->pool) return http_client_new(&mod->w->loop, host, port, authority, &o, out, err, err_len);
    char key[600];
    snprintf(key, sizeof key, "%s|%d|%s", host, port, cfg->keepalive ? "ka" : "close");
    for (lm_http_pool *p = mod->pools; p; p = p->next)
        if (strcmp(p->key, key) == 0) {
            *out = p->client;
            return 0;
        }
    lm_http_pool *p = calloc(1, sizeof *p);
    char *k = strdup(key);
    if (!p || !k) {
        free(p);
        free(k);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    if (http_client_new(&mod->w->loop, host, port, authority, &o, out, err, err_len) != 0) {
        free(p);
        free(k);
        return -1;
    }
    p->key = k;
    p->client = *out;
    p->next = mod->pools;
    mod->pools = p;
    return 0;
}

/* The Lua object around client c; pushes its userdata. */
static void lm_http_wrap(lua_State *L, lm_http_mod *mod, http_client *c, const lm_http_cfg *cfg) {
    lm_http *h = calloc(1, sizeof *h);
    if (h == NULL) {
        if (!cfg->pool) http_client_close(c);
        luaL_error(L, "luamech.http.new: out of memory");
    }
    h->mod = mod;
    h->client = c;
    h->pooled = cfg->pool;
    h->headers_ref = cfg->headers_ref;
    h->timeout_ns = cfg->timeout_ns;
    h->max_body = cfg->max_body;
    h->discard_body = cfg->discard_body;
    snprintf(h->base, sizeof h->base, "%s", http_client_name(c));
    h->next = mod->objs;
    if (mod->objs) mod->objs->prev = h;
    mod->objs = h;
    lm_http **ud = lua_newuserdata(L, sizeof *ud);
    *ud = h;
    h->ud = ud;
    luaL_getmetatable(L, LM_HTTP_MT);
    lua_setmetatable(L, -2);
}

static int lm_http_new(lua_State *L) {
    lm_http_mod *mod = lua_touserdata(L, lua_upvalueindex(1));
    size_t len;
    const char *url = luaL_checklstring(L, 1, &len);
    hp_base_url bu;
    const char *why;
    if (hp_parse_base_url(url, len, &bu, &why) != 0)
        return luaL_error(L, "luamech.http.new: bad base_url \"%s\": %s", url, why);
    char host[256], authority[288];
    if (bu.host_len >= sizeof host || bu.authority_len >= sizeof authority)
        return luaL_error(L, "luamech.http.new: host name too long");
    memcpy(host, bu.host, bu.host_len);
    host[bu.host_len] = 0;
    memcpy(authority, bu.authority, bu.authority_len);
    authority[bu.authority_len] = 0;
    lua_settop(L, 2);
    lm_http_cfg cfg;
    lm_http_new_opts(L, 2, &cfg);
    lm_http_ids(mod);
    http_client *c = NULL;
    char err[256];
    if (lm_http_client_for(mod, host, bu.port, authority, &cfg, &c, err, sizeof err) != 0) {
        if (cfg.headers_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, cfg.headers_ref);
        lua_pushnil(L);
        lua_pushfstring(L, "luamech.http.new: %s", err);
        return 2;
    }
    lm_http_wrap(L, mod, c, &cfg);
    return 1;
}

static int lm_http_tostring(lua_State *L) {
    lm_http **ud = luaL_checkudata(L, 1, LM_HTTP_MT);
    lua_pushfstring(L, "luamech.http client (%s%s)", *ud ? (*ud)->base : "?",
                    *ud && (*ud)->client ? "" : ", closed");
    return 1;
}

void lm_http_open(lua_State *L, worker *w) {
    static const luaL_Reg methods[] = {
        {"request", lm_http_request}, {"get", lm_http_get}, {"post", lm_http_post},
        {"put", lm_http_put}, {"delete", lm_http_delete}, {"head", lm_http_head},
        {"close", lm_http_close_lua}, {NULL, NULL}};
    luaL_newmetatable(L, LM_HTTP_MT);
    lua_newtable(L);
    for (const luaL_Reg *m = methods; m->name; m++) {
        lua_pushvalue(L, -2);                  /* the metatable, for lm_http_check */
        lua_pushcclosure(L, m->func, 1);
        lua_setfield(L, -2, m->name);
    }
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, lm_http_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, lm_http_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);

    lm_http_mod *mod = calloc(1, sizeof *mod);
    if (mod == NULL) luaL_error(L, "luamech.http: out of memory");
    mod->w = w;
    lua_newtable(L);
    mod->names_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, lm_http_res_index);
    lua_setfield(L, -2, "__index");
    mod->res_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "status");
    mod->key_status_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "body");
    mod->key_body_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "body_bytes");
    mod->key_bytes_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    worker_on_close(w, lm_http_worker_close, mod);
    lua_newtable(L);                           /* the module */
    lua_pushlightuserdata(L, mod);
    lua_pushcclosure(L, lm_http_new, 1);
    lua_setfield(L, -2, "new");
}
