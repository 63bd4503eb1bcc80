/* lm_http_res.c - the response table of luamech.http: {status, body or
 * body_bytes, redirects} pushed on completion, with the headers packed into
 * one string that is unpacked only when a script reads res.headers,
 * res.cookies or calls res:header_all; res:json() decodes the body once
 * (jansson, lm_json) and caches it.  It does not parse HTTP (the header
 * bytes are walked by proto/http_proto, cookies by proto/cookie) and does
 * not record statistics (lm_http_done.c). */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_http_int.h"
#include "lua/lm_json.h"

/* The keys of a response's packed headers and of its decoded JSON (light
 * userdata: no string key can clash with them). */
static const char lm_http_hdr_key = 0;
static const char lm_http_json_key = 0;

int lm_http_is_set_cookie(const char *n, size_t nl) {
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

/* res:json([{max_bytes =, max_values =}]) -> the body decoded (once; later
 * calls return the same value) | nil, err when there is no body, it is not
 * JSON or it is over the limits (lm_json.h: 16 MiB, a million values). */
static int lm_http_res_json(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lm_json_limits lim;
    lm_json_limits_opt(L, 2, "res:json", &lim);
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
    if (!lm_json_decode(L, b, len, &lim, err, sizeof err)) {
        lua_pushnil(L);
        lua_pushfstring(L, "res:json: %s", err);
        return 2;
    }
    lua_pushlightuserdata(L, (void *)&lm_http_json_key);
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

/* One header of a response into the table on top of L (a lazy field's). */
typedef void (*lm_http_res_add_fn)(lua_State *L, const char *n, size_t nl, const char *v, size_t vl);

/* res.cookies: {name = value} of the Set-Cookie headers of this response. */
static void lm_http_res_add_cookie(lua_State *L, const char *n, size_t nl, const char *v, size_t vl) {
    ck_set cs;
    if (!lm_http_is_set_cookie(n, nl) || ck_parse(v, vl, &cs) != 0) return;
    lua_pushlstring(L, cs.name, cs.name_len);
    lua_pushlstring(L, cs.value, cs.value_len);
    lua_rawset(L, -3);
}

/* res.headers: a table of lowercase names, repeated headers joined with
 * ", " except Set-Cookie (the first is kept: its values may hold commas;
 * res:header_all gives every one). */
static void lm_http_res_add_header(lua_State *L, const char *n, size_t nl, const char *v, size_t vl) {
    lua_pushlstring(L, n, nl);
    lua_pushvalue(L, -1);
    lua_rawget(L, -3);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushlstring(L, v, vl);
    } else if (lm_http_is_set_cookie(n, nl)) {   /* never joined: keep the first */
        lua_pop(L, 2);
        return;
    } else {                                   /* repeated header: join with ", " */
        lua_pushliteral(L, ", ");
        lua_pushlstring(L, v, vl);
        lua_concat(L, 3);
    }
    lua_rawset(L, -3);
}

/* The fields of a response built on first access from the packed block
 * that lm_http_push left in it (the header bytes are walked by
 * proto/http_proto), then cached in the response: later reads find them
 * directly. */
static const struct {
    const char *name;
    lm_http_res_add_fn add;
} lm_http_res_lazy[] = {{"headers", lm_http_res_add_header}, {"cookies", lm_http_res_add_cookie}};

static int lm_http_res_build(lua_State *L, const char *name, lm_http_res_add_fn add) {
    size_t len = 0, pos = 0, nl, vl;
    const char *blk = lm_http_res_block(L, 1, &len), *n, *v;
    lua_newtable(L);
    while (blk && hp_headers_next(blk, len, &pos, &n, &nl, &v, &vl)) add(L, n, nl, v, vl);
    lua_pushstring(L, name);
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

/* __index of responses: headers and cookies (built on first access),
 * proto (upvalue 3: "HTTP/1.1", or "HTTP/2" in the metatable of HTTP/2
 * responses; an HTTP/1.0 response stores its own), body_bytes of a kept
 * body (its length; a discarded body's count is stored in the response
 * itself), and the methods json and header_all (upvalues 1 and 2). */
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
    if (kl == 5 && memcmp(k, "proto", 5) == 0) {     /* not stored: the metatable's */
        lua_pushvalue(L, lua_upvalueindex(3));
        return 1;
    }
    if (kl == 10 && memcmp(k, "body_bytes", 10) == 0) {
        lua_pushliteral(L, "body");
        lua_rawget(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) return 0;
        lua_pushinteger(L, (lua_Integer)lua_objlen(L, -1));
        return 1;
    }
    for (size_t i = 0; i < sizeof lm_http_res_lazy / sizeof lm_http_res_lazy[0]; i++)
        if (strlen(lm_http_res_lazy[i].name) == kl && memcmp(k, lm_http_res_lazy[i].name, kl) == 0)
            return lm_http_res_build(L, lm_http_res_lazy[i].name, lm_http_res_lazy[i].add);
    return 0;
}

/* The response's headers, packed into one string under a light-userdata
 * key of the table on top (nothing when there are none). */
static void lm_http_push_headers(lua_State *L, lm_http_mod *mod, const hp_parser *res) {
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
}

/* The response table {status, body} and its headers, packed into one string
 * that res.headers unpacks when a script reads it (most never do). */
int lm_http_push(lm_http_op *op, lua_State *L, int status, const hp_parser *res) {
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
    lm_http_push_headers(L, mod, res);
    if (res->http_major == 1 && res->http_minor != 1) {   /* HTTP/1.1 and HTTP/2 are __index's */
        lua_pushliteral(L, "proto");
        lua_pushliteral(L, "HTTP/1.0");
        lua_rawset(L, -3);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, res->http_major == 2 ? mod->res_mt_h2_ref : mod->res_mt_ref);
    lua_setmetatable(L, -2);
    return 1;
}

/* A metatable of responses whose proto is the string on top (popped). */
static int lm_http_res_mt(lua_State *L) {
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, lm_http_res_json);
    lua_pushcfunction(L, lm_http_res_header_all);
    lua_pushvalue(L, -4);
    lua_pushcclosure(L, lm_http_res_index, 3);
    lua_setfield(L, -2, "__index");
    lua_remove(L, -2);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

/* The responses' metatables (HTTP/1.1, HTTP/2) and the interned field
 * names, once per worker. */
void lm_http_res_init(lua_State *L, lm_http_mod *mod) {
    lua_pushliteral(L, "HTTP/1.1");
    mod->res_mt_ref = lm_http_res_mt(L);
    lua_pushliteral(L, "HTTP/2");
    mod->res_mt_h2_ref = lm_http_res_mt(L);
    lua_pushliteral(L, "status");
    mod->key_status_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "body");
    mod->key_body_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "body_bytes");
    mod->key_bytes_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushliteral(L, "redirects");
    mod->key_redirects_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}
