/* lm_http.c - binds luamech.http: new() and the client methods request, get,
 * head, post, put, patch, delete, options, close.  Each method checks its
 * arguments (misuse raises a Lua error), builds the request (query, form and
 * json bodies, headers; absolute URLs pick a client for that host), sends it
 * with client/http_client (which encodes and parses with proto/http_proto)
 * and yields; redirects are followed from the completion on the same pooled
 * clients; the last completion pushes the response table and resumes the VU
 * through vu_resume.  Connect, read, write, timeout and body-limit (max_body)
 * failures return nil, err; with discard_body the response has body_bytes
 * and no body.  Every call (its whole redirect chain) is timed under
 * "http.<method>" (and "http <name>" when the call names itself); a status
 * outside `expect` (default 200-399) is returned normally but counted as an
 * error of those timers.  It never parses bytes (proto/ does, jansson for
 * JSON) or touches sockets.  The request's copies (path, headers, encoded
 * bodies) live in pooled per-op buffers: no allocation per request once they
 * have grown. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client/http_client.h"
#include "engine/vu.h"
#include "engine/worker.h"
#include "lua/lm_core.h"
#include "lua/lm_json.h"
#include "lua/lm_url.h"
#include "proto/cookie.h"
#include "proto/http_gzip.h"
#include "proto/url.h"
#include "lua/lm_tls.h"

#define LM_HTTP_MT "luamech.http"
#define LM_HTTP_MAX_HEADERS 64
#define LM_HTTP_DEFAULT_TIMEOUT_NS 10000000000ull
#define LM_HTTP_MAX_BODY_LIMIT (1u << 30)   /* the largest max_body a script may set */
#define LM_HTTP_EXTRA_HEADERS 4              /* Content-Type, Cookie, ... added by luamech */
#define LM_HTTP_MAX_REDIRECTS 100
#define LM_HTTP_DEFAULT_REDIRECTS 10
#define LM_HTTP_MAX_BATCH 256

typedef struct lm_http lm_http;
typedef struct lm_http_op lm_http_op;

/* One c:batch call: its requests run in parallel; the VU resumes when the
 * last completes (or the call returns at once when all completed in it). */
typedef struct lm_http_batch {
    struct vu *v;
    int n, remaining;              /* requests; those not completed yet */
    int issued;                    /* requests sent (or failed at once) */
    int waiting;                   /* the VU yielded for it */
    int aborted;                   /* the call raised: completions only release their ops */
    int res_ref, err_ref;          /* registry: results[i] (response or false), errors[i] */
    int anchor_ref;                /* registry: {client object, request list} */
} lm_http_batch;

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
    int t_connect, t_tls, t_wait, t_receive;   /* the timing breakdown (docs/http.md#timing-breakdown) */
    int c_sent, c_recv, c_connects, c_retries, c_status[6], c_redirects, c_body_raw, c_body_decoded;
    hz_decoder hz;                 /* gzip/deflate bodies, decoded on completion */
    int res_mt_ref;                /* metatable of responses (lazy headers, body_bytes, json, header_all) */
    int key_status_ref, key_body_ref, key_bytes_ref, key_redirects_ref;  /* field names, interned once */
    char *hblk;                    /* scratch for packing response headers */
    size_t hblk_cap;
    int closing;
    lm_tls_rec tls;                /* http.tls timer of this worker */
} lm_http_mod;

/* A client of the object for another host (absolute URLs, redirects). */
typedef struct lm_http_other {
    char authority[288];
    char host[256];                /* for the cookie jar */
    http_client *client;           /* private, or the worker's pooled one */
    struct lm_http_other *next;
} lm_http_other;

/* One client object as Lua sees it.  The userdata holds a pointer; the
 * object is freed by the collector (no request can be in flight then: each
 * request anchors it) or at teardown. */
struct lm_http {
    lm_http_mod *mod;
    http_client *client;           /* private or the pool's; NULL once closed */
    int pooled, keepalive;
    char base[288];                /* "host:port", for messages */
    char authority[288];           /* as in the base URL: "host[:port]" */
    char host[256];                /* the base URL's host, for the cookie jar */
    lm_http_other *others;         /* clients for other hosts, made on first use */
    int use_jar;                   /* jar = false turns cookies off */
    ck_jar jar;                    /* this object's cookies (one object per VU: a per-VU jar) */
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
    lm_http *h;
    vu *v;
    int method, call_method;       /* the current hop's; the call's (its timer) */
    int name_tid;                  /* -1 when the call has no name */
    int anchor_ref;                /* this op's registry slot: a table {object, body string} */
    int in_call, nres;
    int redirects_left, hops;
    int has_expect;                /* 0: 200-399 */
    int decoded;                   /* the body pushed is mod->hz.out */
    lm_http_batch *batch;          /* NULL unless part of c:batch */
    int batch_i;                   /* its index there (1-based) */
    const char *host;              /* the current hop's host (h's or one of h->others') */
    size_t nbase;                  /* headers before the Cookie slot */
    int cookie_slot;               /* 1: the jar's Cookie header goes at hdrs[nbase] */
    char *cbuf;                    /* the Cookie header value */
    size_t cbuf_cap;
    unsigned char expect[64];      /* bit s-100 for statuses 100..599 */
    uint64_t start_ns;
    char where[160];               /* the path without its query, for the tally */
    http_client *client;           /* alive while it may call back: names failures */
    hp_request r;                  /* the request as sent (pointers into the buffers below) */
    hp_header hdrs[LM_HTTP_MAX_HEADERS + LM_HTTP_EXTRA_HEADERS];
    char *path;                    /* the current hop's path (and query) */
    size_t path_len, path_cap;
    char *hbuf;                    /* header names and values, copied */
    size_t hbuf_cap;
    char *bbuf;                    /* an encoded json or form body */
    size_t bbuf_cap;
    char err[TALLY_MSG_MAX];       /* the failure message */
};

static const char *const lm_http_lower[HP_NMETHODS] = {"get", "head", "post", "put", "delete",
                                                       "patch", "options"};

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

static void lm_http_op_free(lm_http_op *op) {
    free(op->cbuf);
    free(op->path);
    free(op->hbuf);
    free(op->bbuf);
    free(op);
}

/* Anchor (or with obj_idx 0, release) the object and the body string of an
 * op in flight: its anchor table [1] and [2]. */
static void lm_http_op_anchor(lua_State *L, lm_http_op *op, int obj_idx, int body_idx) {
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
static int lm_http_reserve(char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    char *b = realloc(*buf, c);
    if (!b) return -1;
    *buf = b;
    *cap = c;
    return 0;
}

/* ---- results ---- */

/* The keys of a response's packed headers and of its decoded JSON (light
 * userdata: no string key can clash with them). */
static const char lm_http_hdr_key = 0;
static const char lm_http_json_key = 0;

static int lm_http_is_set_cookie(const char *n, size_t nl) {
    return nl == 10 && memcmp(n, "set-cookie", 10) == 0;
}

/* The packed header block of the response at idx (NULL: none). */
static const char *lm_http_res_block(lua_State *L, int idx, size_t *len) {
    lua_pushlightuserdata(L, (void *)&lm_http_hdr_key);
    lua_rawget(L, idx);
    *len = 0;
    const char *blk = lua_tolstring(L, -1, len);   /* stays anchored by the response */
    lua_pop(L, 1);
    return blk;
}

/* res:header_all(name) -> {values...} of every header called name (any
 * case), in the order received; {} when there is none. */
static int lm_http_res_header_all(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t ql;
    const char *q = luaL_checklstring(L, 2, &ql);
    size_t len, pos = 0, nl, vl;
    const char *blk = lm_http_res_block(L, 1, &len), *n, *v;
    lua_newtable(L);
    int i = 0;
    while (blk && hp_headers_next(blk, len, &pos, &n, &nl, &v, &vl)) {
        int same = nl == ql;
        for (size_t k = 0; same && k < nl; k++) {
            int c = (unsigned char)q[k];
            same = n[k] == (c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        if (!same) continue;
        lua_pushlstring(L, v, vl);
        lua_rawseti(L, -2, ++i);
    }
    return 1;
}

/* res:json() -> the body decoded (once; later calls return the same value)
 * | nil, err when there is no body or it is not JSON. */
static int lm_http_res_json(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushlightuserdata(L, (void *)&lm_http_json_key);
    lua_rawget(L, 1);
    if (!lua_isnil(L, -1)) return 1;
    lua_pushliteral(L, "body");
    lua_rawget(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
        lua_pushnil(L);
        lua_pushliteral(L, "res:json: the response has no body (discard_body or HEAD)");
        return 2;
    }
    size_t len;
    const char *b = lua_tolstring(L, -1, &len);
    char err[200];
    if (!lm_json_decode(L, b, len, err, sizeof err)) {
        lua_pushnil(L);
        lua_pushfstring(L, "res:json: %s", err);
        return 2;
    }
    lua_pushlightuserdata(L, (void *)&lm_http_json_key);
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

/* res.headers, built on first access from the packed block that
 * lm_http_push left in the response: a table of lowercase names, repeated
 * headers joined with ", " except Set-Cookie (the first is kept: its values
 * may hold commas; res:header_all gives every one).  The header bytes are
 * walked by proto/http_proto.  res.body_bytes of a kept body is its length
 * (a discarded body's count is stored in the response itself).  res.json and
 * res.header_all are the methods (upvalues 1 and 2). */
static int lm_http_res_index(lua_State *L) {
    size_t kl;
    const char *k = lua_tolstring(L, 2, &kl);
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    if (kl == 4 && memcmp(k, "json", 4) == 0) {
        lua_pushvalue(L, lua_upvalueindex(1));
        return 1;
    }
    if (kl == 10 && memcmp(k, "header_all", 10) == 0) {
        lua_pushvalue(L, lua_upvalueindex(2));
        return 1;
    }
    if (kl == 10 && memcmp(k, "body_bytes", 10) == 0) {
        lua_pushliteral(L, "body");
        lua_rawget(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) return 0;
        lua_pushinteger(L, (lua_Integer)lua_objlen(L, -1));
        return 1;
    }
    if (kl == 7 && memcmp(k, "cookies", 7) == 0) {   /* {name = value} set by this response */
        size_t len = 0, pos = 0, nl, vl;
        const char *blk = lm_http_res_block(L, 1, &len), *n, *v;
        lua_newtable(L);
        ck_set cs;
        while (blk && hp_headers_next(blk, len, &pos, &n, &nl, &v, &vl)) {
            if (!lm_http_is_set_cookie(n, nl) || ck_parse(v, vl, &cs) != 0) continue;
            lua_pushlstring(L, cs.name, cs.name_len);
            lua_pushlstring(L, cs.value, cs.value_len);
            lua_rawset(L, -3);
        }
        lua_pushliteral(L, "cookies");
        lua_pushvalue(L, -2);
        lua_rawset(L, 1);
        return 1;
    }
    if (kl != 7 || memcmp(k, "headers", 7) != 0) return 0;
    size_t len = 0, pos = 0, nl, vl;
    const char *blk = lm_http_res_block(L, 1, &len), *n, *v;
    lua_newtable(L);
    while (blk && hp_headers_next(blk, len, &pos, &n, &nl, &v, &vl)) {
        lua_pushlstring(L, n, nl);
        lua_pushvalue(L, -1);
        lua_rawget(L, -3);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_pushlstring(L, v, vl);
        } else if (lm_http_is_set_cookie(n, nl)) {   /* never joined: keep the first */
            lua_pop(L, 2);
            continue;
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
    if (op->hops) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, mod->key_redirects_ref);
        lua_pushinteger(L, op->hops);
        lua_rawset(L, -3);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, mod->key_status_ref);
    lua_pushinteger(L, res->status);
    lua_rawset(L, -3);
    if (op->req.discard_body) {                /* no body: its size */
        lua_rawgeti(L, LUA_REGISTRYINDEX, mod->key_bytes_ref);
        lua_pushnumber(L, (lua_Number)res->body_seen);
    } else if (op->decoded) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, mod->key_body_ref);
        lua_pushlstring(L, mod->hz.out ? mod->hz.out : "", mod->hz.out_len);
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

/* The timing breakdown of one hop: connect (when it opened a connection),
 * wait (last request byte written -> first response byte) and receive
 * (first response byte -> complete), on the loop's clock (uv_hrtime, as
 * worker_now_ns), and tls (the handshake, when the transport made one).
 * DNS is not per request (names are resolved when a client is made). */
static void lm_http_batch_done(lm_http_op *op, int status, const hp_parser *res);

static void lm_http_breakdown(lm_http_op *op, int status) {
    lm_http_mod *mod = op->mod;
    http_req *req = &op->req;
    uint64_t now = worker_now_ns();
    if (req->connects) vu_record(op->v, mod->t_connect, (int64_t)req->connect_ns, now, 1);
    if (req->tls_ns) vu_record(op->v, mod->t_tls, (int64_t)req->tls_ns, now, 1);
    if (status != 0 || !req->first_byte_ns) return;
    if (req->sent_ns && req->first_byte_ns >= req->sent_ns)
        vu_record(op->v, mod->t_wait, (int64_t)(req->first_byte_ns - req->sent_ns), now, 1);
    if (now >= req->first_byte_ns) vu_record(op->v, mod->t_receive, (int64_t)(now - req->first_byte_ns), now, 1);
}

/* Counters of one hop (a response or a failure). */
static void lm_http_count_hop(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    worker *w = mod->w;
    http_req *req = &op->req;
    if (req->bytes_sent) worker_count(w, mod->c_sent, (int64_t)req->bytes_sent);
    if (req->bytes_received) worker_count(w, mod->c_recv, (int64_t)req->bytes_received);
    if (req->connects) worker_count(w, mod->c_connects, req->connects);
    if (req->retried) worker_count(w, mod->c_retries, 1);
    if (status == 0) {
        int cls = res->status / 100;
        if (cls >= 2 && cls <= 5) worker_count(w, mod->c_status[cls], 1);
    }
    lm_http_breakdown(op, status);
}

static int lm_http_expected(const lm_http_op *op, int st) {
    if (!op->has_expect) return st >= 200 && st < 400;
    if (st < 100 || st > 599) return 0;
    return (op->expect[(st - 100) >> 3] >> ((st - 100) & 7)) & 1;
}

/* Statistics of one finished call (its last hop); fills op->err on failure. */
static void lm_http_account(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    worker *w = mod->w;
    uint64_t now = worker_now_ns();
    int64_t dur = (int64_t)(now - op->start_ns);
    int ok = status == 0 && lm_http_expected(op, res->status);
    vu_record(op->v, mod->tid[op->call_method], dur, now, ok);
    if (op->name_tid >= 0) vu_record(op->v, op->name_tid, dur, now, ok);
    char msg[TALLY_MSG_MAX];
    int n;
    if (status == 0) {
        if (ok) return;
        n = snprintf(msg, sizeof msg, "http.%s %s: status %d", lm_http_lower[op->call_method],
                     op->where, res->status);
    } else {
        char why[160];
        http_client_describe(&op->req, status, why, sizeof why);
        n = snprintf(op->err, sizeof op->err, "http.%s %s: %s", lm_http_lower[op->call_method],
                     http_client_name(op->client), why);
        memcpy(msg, op->err, sizeof msg);
    }
    worker_error(w, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
}

static http_client *lm_http_client_host(lm_http *h, const char *authority, size_t alen, char *err,
                                        size_t err_len);

/* The Set-Cookie headers of a hop's response into the object's jar. */
static void lm_http_store_cookies(lm_http_op *op, int status, const hp_parser *res) {
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
static void lm_http_cookie_header(lm_http_op *op) {
    op->r.nheaders = op->nbase;
    if (!op->cookie_slot || op->h->jar.n == 0) return;
    int64_t now = (int64_t)time(NULL);
    size_t n = ck_jar_header(&op->h->jar, op->host, op->path, op->path_len, 0, now, op->cbuf, op->cbuf_cap);
    if (n > op->cbuf_cap) {
        if (lm_http_reserve(&op->cbuf, &op->cbuf_cap, n) != 0) return;
        n = ck_jar_header(&op->h->jar, op->host, op->path, op->path_len, 0, now, op->cbuf, op->cbuf_cap);
    }
    if (n == 0 || n > 8192) return;            /* hp_header_value_valid's limit */
    op->hdrs[op->nbase].name = "Cookie";
    op->hdrs[op->nbase].name_len = 6;
    op->hdrs[op->nbase].value = op->cbuf;
    op->hdrs[op->nbase].value_len = n;
    op->r.nheaders = op->nbase + 1;
}

static const char *lm_http_host_of(lm_http *h, http_client *c);

/* A redirect to follow: 1 when the next hop was sent (its completion comes
 * later), 0 when the response is the call's answer (not a redirect, none
 * left, no usable Location). */
static int lm_http_follow(lm_http_op *op, int status, const hp_parser *res) {
    if (status != 0 || op->redirects_left <= 0 || op->mod->closing || !op->h->client) return 0;
    int st = res->status;
    if (st != 301 && st != 302 && st != 303 && st != 307 && st != 308) return 0;
    size_t ll;
    const char *loc = hp_parser_find(res, "location", &ll);
    char target[8192];
    if (!loc || url_resolve(target, sizeof target, op->path, op->path_len, loc, ll, "http") == (size_t)-1)
        return 0;
    size_t tl = strlen(target);
    http_client *c = op->client;
    const char *p = target;
    size_t pl = tl;
    if (url_is_abs(target, tl)) {
        url_abs a;
        char err[200];
        if (url_split_abs(target, tl, &a) != 0 || a.scheme_len != 4) return 0;   /* https: not yet */
        c = lm_http_client_host(op->h, a.authority, a.authority_len, err, sizeof err);
        if (!c) return 0;
        p = a.rest;
        pl = a.rest_len;
    }
    if (!hp_path_valid(p, pl) || lm_http_reserve(&op->path, &op->path_cap, pl + 1) != 0) return 0;
    memmove(op->path, p, pl);
    op->path_len = pl;
    lm_http_count_hop(op, status, res);
    worker_count(op->mod->w, op->mod->c_redirects, 1);
    op->redirects_left--;
    op->hops++;
    /* 303, and 301/302 after a POST (what browsers and k6 do): GET without a body */
    if ((st == 303 && op->method != HP_HEAD) || ((st == 301 || st == 302) && op->method == HP_POST)) {
        op->method = HP_GET;
        op->r.body = NULL;
        op->r.body_len = 0;
        for (size_t i = 0; i < op->nbase; i++)     /* drop the body's Content-Type */
            if (op->hdrs[i].name_len == 12 && strncasecmp(op->hdrs[i].name, "content-type", 12) == 0)
                op->hdrs[i--] = op->hdrs[--op->nbase];
    }
    op->r.method = (hp_method)op->method;
    op->r.path = op->path;
    op->r.path_len = op->path_len;
    op->client = c;
    op->host = lm_http_host_of(op->h, c);
    lm_http_cookie_header(op);
    /* req.start_ns stays the call's: one deadline (timeout) for the whole chain */
    http_client_send(c, &op->req, &op->r);
    return 1;
}

/* The final response's body: decoded when gzip or deflate (op->decoded),
 * bounded by max_body; both sizes counted.  Returns status, or a failure
 * (HTTP_EPROTO with req->detail, HTTP_EBODY) when it cannot be decoded. */
static int lm_http_decode(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    if (status != 0) return status;
    size_t raw = res->body_seen, out = raw;
    size_t vl;
    const char *ce = op->req.discard_body || res->body_len == 0 ? NULL
                                                                : hp_parser_find(res, "content-encoding", &vl);
    int coding = ce ? hz_coding(ce, vl) : 0;
    if (coding > 0) {
        const char *why = NULL;
        int rc = hz_decode(&mod->hz, coding, res->body, res->body_len, op->req.body_limit, &why);
        if (rc == HZ_TOO_BIG) status = HTTP_EBODY;
        else if (rc == HZ_NOMEM) status = HTTP_ENOMEM;
        else if (rc != HZ_OK) status = HTTP_EPROTO;
        op->req.detail = why;
        op->decoded = rc == HZ_OK;
        out = rc == HZ_OK ? mod->hz.out_len : 0;
    }
    if (raw) worker_count(mod->w, mod->c_body_raw, (int64_t)raw);
    if (out) worker_count(mod->w, mod->c_body_decoded, (int64_t)out);
    return status;
}

static void lm_http_batch_free(lua_State *L, lm_http_batch *b) {
    luaL_unref(L, LUA_REGISTRYINDEX, b->res_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, b->err_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, b->anchor_ref);
    free(b);
}

/* results[i] = the response, or false with errors[i] = the message. */
static void lm_http_batch_store(lua_State *L, lm_http_batch *b, int i, int nres) {
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

/* Pushes the batch's two tables on L and frees it. */
static int lm_http_batch_results(lua_State *L, lua_State *ML, lm_http_batch *b) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->res_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->err_ref);
    lm_http_batch_free(ML, b);
    return 2;
}

/* One request of a batch is over (its statistics are recorded). */
static void lm_http_batch_done(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    lm_http_batch *b = op->batch;
    lua_State *ML = mod->w->L;
    if (!b->aborted && !mod->closing) {
        lua_checkstack(ML, 8);
        lm_http_batch_store(ML, b, op->batch_i, lm_http_push(op, ML, status, res));
    }
    lm_http_op_put(op);
    if (--b->remaining > 0) return;
    if (b->aborted || mod->closing) {
        lm_http_batch_free(ML, b);
        return;
    }
    if (!b->waiting) return;                   /* all done inside the call: it returns them */
    vu *v = b->v;
    if (!vu_wants_resume(v)) {
        lm_http_batch_free(ML, b);
        return;
    }
    int n = lm_http_batch_results(v->L, ML, b);
    vu_resume(v, n);
}

static void lm_http_on_done(http_req *req, int status, const hp_parser *res) {
    lm_http_op *op = req->data;
    lm_http_mod *mod = op->mod;
    lm_http_store_cookies(op, status, res);
    if (lm_http_follow(op, status, res)) return;
    lm_http_count_hop(op, status, res);
    status = lm_http_decode(op, status, res);
    lm_http_account(op, status, res);
    if (op->batch) {
        lm_http_batch_done(op, status, res);
        return;
    }
    vu *v = op->v;
    if (op->in_call) {                         /* the Lua call returns the results */
        op->nres = lm_http_push(op, v->L, status, res);
        return;
    }
    lm_http_op_anchor(mod->w->L, op, 0, 0);    /* release the client object and body */
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

/* The `expect` option at idx: a status, or a list of statuses and
 * "200-299" ranges, into a bitmap of 100..599.  Misuse raises. */
static void lm_http_expect_opt(lua_State *L, int idx, const char *fname, unsigned char *bits) {
    memset(bits, 0, 64);
    int n = lua_istable(L, idx) ? (int)lua_objlen(L, idx) : 1;
    if (lua_istable(L, idx) && n == 0) luaL_error(L, "%s: expect must not be empty", fname);
    for (int i = 1; i <= n; i++) {
        if (lua_istable(L, idx)) lua_rawgeti(L, idx, i);
        else lua_pushvalue(L, idx);
        double lo = -1, hi = -1;
        if (lua_type(L, -1) == LUA_TNUMBER) {
            lo = hi = lua_tonumber(L, -1);
        } else if (lua_type(L, -1) == LUA_TSTRING) {
            int a, b, used = 0;
            const char *t = lua_tostring(L, -1);
            if (sscanf(t, "%d-%d%n", &a, &b, &used) == 2 && t[used] == 0) {
                lo = a;
                hi = b;
            }
        }
        if (!(lo >= 100 && hi <= 599 && lo <= hi && lo == (int)lo && hi == (int)hi))
            luaL_error(L, "%s: expect takes statuses 100..599 or \"lo-hi\" ranges (e.g. {200, \"400-404\"})",
                       fname);
        for (int st = (int)lo; st <= (int)hi; st++) bits[(st - 100) >> 3] |= (unsigned char)(1u << ((st - 100) & 7));
        lua_pop(L, 1);
    }
}

/* 1 when hdrs[0..n) has a header called name (any case). */
static int lm_http_has_header(const hp_header *hdrs, size_t n, const char *name) {
    size_t nl = strlen(name);
    for (size_t i = 0; i < n; i++)
        if (lm_http_ieq(hdrs[i].name, hdrs[i].name_len, name, nl)) return 1;
    return 0;
}

/* Copy the headers into the op (its buffer and array): the request can be
 * sent again (redirects) after the Lua strings are gone.  0 or -1 (memory). */
static int lm_http_copy_headers(lm_http_op *op, const hp_header *hdrs, size_t nh) {
    size_t total = 0, off = 0;
    for (size_t i = 0; i < nh; i++) total += hdrs[i].name_len + hdrs[i].value_len;
    if (lm_http_reserve(&op->hbuf, &op->hbuf_cap, total + 1) != 0) return -1;
    for (size_t i = 0; i < nh; i++) {
        memcpy(op->hbuf + off, hdrs[i].name, hdrs[i].name_len);
        op->hdrs[i].name = op->hbuf + off;
        op->hdrs[i].name_len = hdrs[i].name_len;
        off += hdrs[i].name_len;
        memcpy(op->hbuf + off, hdrs[i].value, hdrs[i].value_len);
        op->hdrs[i].value = op->hbuf + off;
        op->hdrs[i].value_len = hdrs[i].value_len;
        off += hdrs[i].value_len;
    }
    op->r.headers = op->hdrs;
    op->r.nheaders = op->nbase = nh;
    return 0;
}

/* The call's options, read and checked before any op is taken. */
typedef struct lm_http_call {
    uint64_t timeout_ns;
    size_t max_body;
    int discard_body, name_idx, hdr_idx, json_idx, form_idx, query_idx, body_str_idx;
    int redirects, has_expect;
    unsigned char expect[64];
    const char *body;
    size_t body_len;
} lm_http_call;

static void lm_http_call_opts(lua_State *L, lm_http *h, const char *fname, int body_idx, int opts_idx,
                              lm_http_call *c) {
    static const char *const known[] = {"headers", "body", "json", "form", "query", "name", "timeout",
                                        "max_body", "discard_body", "expect", "redirects", NULL};
    memset(c, 0, sizeof *c);
    c->timeout_ns = h->timeout_ns;
    c->max_body = h->max_body;
    c->discard_body = h->discard_body;
    c->redirects = LM_HTTP_DEFAULT_REDIRECTS;
    if (body_idx && !lua_isnoneornil(L, body_idx)) {
        c->body = luaL_checklstring(L, body_idx, &c->body_len);
        c->body_str_idx = body_idx;
    }
    if (lua_isnoneornil(L, opts_idx)) return;
    luaL_checktype(L, opts_idx, LUA_TTABLE);
    lm_check_options(L, opts_idx, fname, known);
    int nbodies = c->body != NULL;
    lua_getfield(L, opts_idx, "body");
    if (!lua_isnil(L, -1)) {
        if (body_idx) luaL_error(L, "%s: give the body as the argument, not in the options", fname);
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "%s: body must be a string", fname);
        c->body = lua_tolstring(L, -1, &c->body_len);     /* anchored by opts */
        c->body_str_idx = lua_gettop(L);
        nbodies++;
    }
    lua_getfield(L, opts_idx, "json");
    if (!lua_isnil(L, -1)) {
        c->json_idx = lua_gettop(L);
        nbodies++;
    }
    lua_getfield(L, opts_idx, "form");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) luaL_error(L, "%s: form must be a table", fname);
        c->form_idx = lua_gettop(L);
        nbodies++;
    }
    if (nbodies > 1) luaL_error(L, "%s: give one body: a body string, json or form", fname);
    lua_getfield(L, opts_idx, "query");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) luaL_error(L, "%s: query must be a table", fname);
        c->query_idx = lua_gettop(L);
    }
    lua_getfield(L, opts_idx, "timeout");
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0) || lua_tonumber(L, -1) > 86400)
            luaL_error(L, "%s: timeout must be a number of seconds between 0 and 86400", fname);
        c->timeout_ns = (uint64_t)(lua_tonumber(L, -1) * 1e9);
    }
    lm_http_body_opts(L, opts_idx, fname, &c->max_body, &c->discard_body);
    lua_getfield(L, opts_idx, "name");
    if (!lua_isnil(L, -1)) {
        size_t nl;
        if (lua_type(L, -1) != LUA_TSTRING || (lua_tolstring(L, -1, &nl), nl == 0 || nl > 200))
            luaL_error(L, "%s: name must be a string of 1..200 bytes", fname);
        c->name_idx = lua_gettop(L);
    }
    lua_getfield(L, opts_idx, "headers");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) luaL_error(L, "%s: headers must be a table", fname);
        c->hdr_idx = lua_gettop(L);
    }
    lua_getfield(L, opts_idx, "redirects");
    if (!lua_isnil(L, -1)) {
        double r = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
        if (!(r >= 0 && r <= LM_HTTP_MAX_REDIRECTS) || r != (int)r)
            luaL_error(L, "%s: redirects must be a whole number from 0 (off) to %d", fname, LM_HTTP_MAX_REDIRECTS);
        c->redirects = (int)r;
    }
    lua_getfield(L, opts_idx, "expect");
    if (!lua_isnil(L, -1)) {
        lm_http_expect_opt(L, lua_gettop(L), fname, c->expect);
        c->has_expect = 1;
    }
}

/* The path (and query) of the call into op->path; the client for an
 * absolute URL's host into *client.  0, or -1 with op->err filled (a bad
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
        if (a.scheme_len != 4) {
            snprintf(op->err, sizeof op->err, "%s: %.200s: only http:// is supported", fname, path);
            return -1;
        }
        char err[200];
        *client = lm_http_client_host(h, a.authority, a.authority_len, err, sizeof err);
        if (!*client) {
            snprintf(op->err, sizeof op->err, "%s: %s", fname, err);
            return -1;
        }
        path = a.rest;
        path_len = a.rest_len;
    }
    if (lm_http_reserve(&op->path, &op->path_cap, path_len + 1) != 0) goto oom;
    memcpy(op->path, path, path_len);
    op->path_len = path_len;
    if (query_idx) {
        char err[200];
        int had = memchr(path, '?', path_len) != NULL;
        size_t before = op->path_len;
        if (lm_http_reserve(&op->path, &op->path_cap, op->path_len + 2) != 0) goto oom;
        op->path[op->path_len++] = had ? '&' : '?';
        size_t qstart = op->path_len;
        if (lm_url_query(L, query_idx, 0, &op->path, &op->path_cap, &op->path_len, err, sizeof err) != 0) {
            lm_http_op_put(op);
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
            lm_http_op_put(op);
            luaL_error(L, "%s: json: %s", fname, err);
        }
        *body = op->bbuf;
        *body_len = len;
        return "application/json";
    }
    if (c->form_idx) {
        if (lm_url_query(L, c->form_idx, 1, &op->bbuf, &op->bbuf_cap, &len, err, sizeof err) != 0) {
            lm_http_op_put(op);
            luaL_error(L, "%s: form: %s", fname, err);
        }
        *body = len ? op->bbuf : "";
        *body_len = len;
        return "application/x-www-form-urlencoded";
    }
    return NULL;
}

/* The common path of every method: stack [self, ..., path at path_idx,
 * body at body_idx (0: none; from opts.body), opts at opts_idx]. */
/* Check, build and send one request.  Returns the op in flight (the caller
 * anchors and yields), or NULL when it completed at once: its results are
 * pushed (the count in *nres) or, for a batch, stored there. */
static lm_http_op *lm_http_start(lua_State *L, lm_http *h, int method, const char *fname, int path_idx,
                                 int body_idx, int opts_idx, lm_http_batch *b, int bi, int *nres,
                                 int *body_str_idx) {
    lm_http_mod *mod = h->mod;
    size_t path_len;
    const char *path = luaL_checklstring(L, path_idx, &path_len);
    if (!url_is_abs(path, path_len) && !hp_path_valid(path, path_len))
        luaL_argerror(L, path_idx, "a path starting with / (or an http:// URL) without spaces or control "
                                   "characters expected");
    lm_http_call c;
    lm_http_call_opts(L, h, fname, body_idx, opts_idx, &c);
    vu *v = lm_current_vu(L, mod->w, "luamech.http client methods");
    hp_header hdrs[LM_HTTP_MAX_HEADERS + LM_HTTP_EXTRA_HEADERS];
    size_t nh = 0;
    if (c.hdr_idx) lm_http_headers(L, c.hdr_idx, fname, hdrs, &nh, 0);
    if (h->headers_ref != LUA_NOREF) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->headers_ref);
        lm_http_headers(L, lua_gettop(L), fname, hdrs, &nh, 1);
    }
    lm_http_op *op = lm_http_op_get(L, mod);
    op->v = v;
    op->h = h;
    op->batch = b;
    op->batch_i = bi;
    op->method = op->call_method = method;
    op->redirects_left = c.redirects;
    op->has_expect = c.has_expect;
    memcpy(op->expect, c.expect, sizeof op->expect);
    http_client *client;
    if (lm_http_target(L, op, h, fname, path, path_len, c.query_idx, &client) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, op->err);
        lm_http_op_put(op);
        if (b) {
            lm_http_batch_store(L, b, bi, 2);
            b->remaining--;
            *nres = 0;
        } else {
            *nres = 2;
        }
        return NULL;
    }
    const char *body;
    size_t body_len;
    const char *ctype = lm_http_encode_body(L, op, fname, &c, &body, &body_len);
    if (!c.discard_body && !lm_http_has_header(hdrs, nh, "accept-encoding")) {
        hdrs[nh].name = "Accept-Encoding";     /* bodies are decoded (lm_http_decode) */
        hdrs[nh].name_len = 15;
        hdrs[nh].value = "gzip, deflate";
        hdrs[nh].value_len = 13;
        nh++;
    }
    if (ctype && !lm_http_has_header(hdrs, nh, "content-type")) {
        hdrs[nh].name = "Content-Type";
        hdrs[nh].name_len = 12;
        hdrs[nh].value = ctype;
        hdrs[nh].value_len = strlen(ctype);
        nh++;
    }
    if (lm_http_copy_headers(op, hdrs, nh) != 0) {
        lm_http_op_put(op);
        luaL_error(L, "%s: out of memory", fname);
    }
    op->cookie_slot = h->use_jar && !lm_http_has_header(hdrs, nh, "cookie");
    op->host = lm_http_host_of(h, client);
    lm_http_cookie_header(op);
    if (c.name_idx) op->name_tid = lm_http_name_tid(L, mod, c.name_idx);
    size_t wl = 0;
    while (wl < op->path_len && wl < sizeof op->where - 1 && op->path[wl] != '?' && op->path[wl] != '#') wl++;
    memcpy(op->where, op->path, wl);
    op->where[wl] = 0;
    op->client = client;
    op->req.on_done = lm_http_on_done;
    op->req.data = op;
    op->req.timeout_ns = c.timeout_ns;
    op->req.max_body = c.max_body;
    op->req.discard_body = c.discard_body;
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
    op->in_call = 1;
    op->start_ns = worker_now_ns();
    op->req.start_ns = op->start_ns;          /* the same clock: one read for both */
    *nres = 0;
    *body_str_idx = c.body_str_idx;
    int was_batch = b != NULL;
    http_client_send(client, &op->req, r);    /* copies every byte; a batch op may be gone after */
    if (was_batch) return NULL;
    op->in_call = 0;
    if (op->nres) {                                /* completed at once (pushed on L) */
        *nres = op->nres;
        lm_http_op_put(op);
        return NULL;
    }
    return op;
}

static int lm_http_do(lua_State *L, int method, const char *fname, int path_idx, int body_idx,
                      int opts_idx) {
    lm_http *h = lm_http_check(L);
    int nres, body_str_idx;
    lm_http_op *op = lm_http_start(L, h, method, fname, path_idx, body_idx, opts_idx, NULL, 0, &nres,
                                   &body_str_idx);
    if (!op) return nres;
    lm_http_op_anchor(L, op, 1, body_str_idx);
    op->v->state = VU_WAITING;
    return lua_yield(L, 0);
}

/* ---- c:batch ---- */

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
 * were sent marks the batch aborted instead of leaving them dangling). */
static int lm_http_batch_send(lua_State *L) {
    lm_http_batch_call *bc = lua_touserdata(L, 1);
    lm_http_batch *b = bc->b;
    lua_rawgeti(L, LUA_REGISTRYINDEX, b->anchor_ref);   /* this frame's own copy of the list */
    lua_rawgeti(L, -1, 2);
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
static int lm_http_batch_lua(lua_State *L) {
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
    lm_http_batch *b = calloc(1, sizeof *b);
    if (!b) return luaL_error(L, "http.batch: out of memory");
    b->v = v;
    b->n = b->remaining = n;
    lua_createtable(L, n, 0);
    b->res_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, n, 0);
    b->err_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 2);
    b->anchor_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lm_http_batch_call bc = {h, b};
    /* a request not sent because of a raise is not counted by a completion */
    int rc = lua_cpcall(L, lm_http_batch_send, &bc);
    if (rc != 0) {                             /* the message is on top */
        b->aborted = 1;
        b->remaining -= b->n - b->issued;      /* never sent: no completion will count them */
        if (b->remaining == 0) lm_http_batch_free(L, b);
        return lua_error(L);
    }
    if (b->remaining == 0) return lm_http_batch_results(L, L, b);
    b->waiting = 1;
    v->state = VU_WAITING;
    return lua_yield(L, 0);
}

/* c:request(method, path [, opts]) */
static int lm_http_request(lua_State *L) {
    size_t len;
    const char *m = luaL_checklstring(L, 2, &len);
    int method = hp_method_parse(m, len);
    if (method < 0)
        return luaL_error(L, "http.request: method must be GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS, "
                             "got \"%s\"", m);
    lua_settop(L, 4);
    return lm_http_do(L, method, "http.request", 3, 0, 4);
}

static int lm_http_get(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_GET, "http.get", 2, 0, 3); }
static int lm_http_head(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_HEAD, "http.head", 2, 0, 3); }
static int lm_http_delete(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_DELETE, "http.delete", 2, 0, 3); }
static int lm_http_options(lua_State *L) { lua_settop(L, 3); return lm_http_do(L, HP_OPTIONS, "http.options", 2, 0, 3); }
static int lm_http_post(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_POST, "http.post", 2, 3, 4); }
static int lm_http_put(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_PUT, "http.put", 2, 3, 4); }
static int lm_http_patch(lua_State *L) { lua_settop(L, 4); return lm_http_do(L, HP_PATCH, "http.patch", 2, 3, 4); }

/* ---- close, collection, teardown ---- */

static void lm_http_close(lm_http *h) {
    if (!h->client) return;
    http_client *c = h->client;
    h->client = NULL;
    if (!h->pooled) http_client_close(c);   /* in-flight requests fail with "cancelled" */
    while (h->others) {
        lm_http_other *o = h->others;
        h->others = o->next;
        if (!h->pooled) http_client_close(o->client);
        free(o);
    }
}

static void lm_http_free(lm_http *h, lua_State *L) {
    lm_http_mod *mod = h->mod;
    if (h->prev) h->prev->next = h->next;
    else mod->objs = h->next;
    if (h->next) h->next->prev = h->prev;
    if (L && h->headers_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, h->headers_ref);
    ck_jar_free(&h->jar);
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
        lm_http_op_free(op);
    }
    free(mod->hblk);
    hz_free(&mod->hz);
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
    mod->t_connect = lm_timer_id(w, "http.connect", TK_PRIMITIVE);
    mod->t_tls = lm_timer_id(w, "http.tls", TK_PRIMITIVE);
    mod->t_wait = lm_timer_id(w, "http.wait", TK_PRIMITIVE);
    mod->t_receive = lm_timer_id(w, "http.receive", TK_PRIMITIVE);
    mod->c_sent = worker_counter_id(w, "http.bytes_sent");
    mod->c_recv = worker_counter_id(w, "http.bytes_received");
    mod->c_connects = worker_counter_id(w, "http.connects");
    mod->c_retries = worker_counter_id(w, "http.retries");
    mod->c_redirects = worker_counter_id(w, "http.redirects");
    mod->c_body_raw = worker_counter_id(w, "http.body_bytes_raw");
    mod->c_body_decoded = worker_counter_id(w, "http.body_bytes_decoded");
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
    int pool, keepalive, headers_ref, discard_body, jar;
    int tls_on;                   /* https:// */
    net_tls_opts tls;             /* strings anchored by the options table */
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
                                        "discard_body", "jar", "tls", NULL};
    cfg->pool = 0;
    cfg->keepalive = 1;
    cfg->headers_ref = LUA_NOREF;
    cfg->timeout_ns = LM_HTTP_DEFAULT_TIMEOUT_NS;
    cfg->max_body = HTTP_MAX_BODY_DEFAULT;
    cfg->discard_body = 0;
    cfg->jar = 1;
    if (lua_isnil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lm_check_options(L, idx, "luamech.http.new", known);
    lm_http_body_opts(L, idx, "luamech.http.new", &cfg->max_body, &cfg->discard_body);
    lua_getfield(L, idx, "jar");
    if (!lua_isnil(L, -1)) {
        if (!lua_isboolean(L, -1)) luaL_error(L, "luamech.http.new: jar must be a boolean");
        cfg->jar = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
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
    o.tls = cfg->tls_on ? &cfg->tls : NULL;
    if (!cfg->pool) return http_client_new(&mod->w->loop, host, port, authority, &o, out, err, err_len);
    char key[1800], tkey[1200];
    lm_tls_key(&cfg->tls, cfg->tls_on, tkey, sizeof tkey);
    snprintf(key, sizeof key, "%s|%d|%s%s", host, port, cfg->keepalive ? "ka" : "close", tkey);
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

/* The client of object h for another host's "host[:port]" (absolute URLs,
 * redirects): h's own for its authority, else one made on first use (from
 * the worker's pool when h is pooled), with h's keep-alive.  NULL with err. */
static http_client *lm_http_client_host(lm_http *h, const char *authority, size_t alen, char *err,
                                        size_t err_len) {
    if (lm_http_ieq(authority, alen, h->authority, strlen(h->authority))) return h->client;
    for (lm_http_other *o = h->others; o; o = o->next)
        if (lm_http_ieq(authority, alen, o->authority, strlen(o->authority))) return o->client;
    char url[300], host[256];
    if (alen >= sizeof host) {
        snprintf(err, err_len, "host name too long");
        return NULL;
    }
    int ul = snprintf(url, sizeof url, "http://%.*s", (int)alen, authority);
    hp_base_url bu;
    const char *why;
    if (hp_parse_base_url(url, (size_t)ul, &bu, &why) != 0) {
        snprintf(err, err_len, "bad URL \"%.150s\": %s", url, why);
        return NULL;
    }
    memcpy(host, bu.host, bu.host_len);
    host[bu.host_len] = 0;
    lm_http_other *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    memcpy(o->host, host, bu.host_len + 1);
    snprintf(o->authority, sizeof o->authority, "%.*s", (int)alen, authority);
    lm_http_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.pool = h->pooled;
    cfg.keepalive = h->keepalive;
    if (lm_http_client_for(h->mod, host, bu.port, o->authority, &cfg, &o->client, err, err_len) != 0) {
        free(o);
        return NULL;
    }
    o->next = h->others;
    h->others = o;
    return o->client;
}

/* The host name (for cookies) of client c of object h. */
static const char *lm_http_host_of(lm_http *h, http_client *c) {
    for (lm_http_other *o = h->others; o; o = o->next)
        if (o->client == c) return o->host;
    return h->host;
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
    h->keepalive = cfg->keepalive;
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
    cfg.tls_on = lm_tls_opts(L, 2, "luamech.http.new", &mod->tls, &cfg.tls);
    if (cfg.tls_on && !bu.tls)
        return luaL_error(L, "luamech.http.new: tls options need an https:// base_url");
    if (bu.tls && !cfg.tls_on) lm_tls_rec_hook(&mod->tls, &cfg.tls);   /* the defaults */
    if (bu.tls && cfg.tls.alpn == NULL) cfg.tls.alpn = "http/1.1";
    cfg.tls_on = bu.tls;
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
    lm_http **ud = lua_touserdata(L, -1);
    snprintf((*ud)->authority, sizeof (*ud)->authority, "%s", authority);
    snprintf((*ud)->host, sizeof (*ud)->host, "%s", host);
    (*ud)->use_jar = cfg.jar;
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
        {"patch", lm_http_patch}, {"options", lm_http_options}, {"batch", lm_http_batch_lua},
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
    hz_init(&mod->hz);
    lm_tls_rec_init(&mod->tls, w, "http");
    mod->tls.no_timer = 1;         /* http.tls is recorded per request from req->tls_ns */
    lua_newtable(L);
    mod->names_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, lm_http_res_json);
    lua_pushcfunction(L, lm_http_res_header_all);
    lua_pushcclosure(L, lm_http_res_index, 2);
    lua_setfield(L, -2, "__index");
    mod->res_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "status");
    mod->key_status_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "body");
    mod->key_body_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "body_bytes");
    mod->key_bytes_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "redirects");
    mod->key_redirects_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    worker_on_close(w, lm_http_worker_close, mod);
    lua_newtable(L);                           /* the module */
    lua_pushlightuserdata(L, mod);
    lua_pushcclosure(L, lm_http_new, 1);
    lua_setfield(L, -2, "new");
}
