/* lm_url.c - luamech.url.encode/decode/build and lm_url_query (query and
 * form bodies from a Lua table).  The byte work is proto/url's; this file
 * walks Lua tables and manages buffers.  It does no I/O. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_core.h"
#include "lua/lm_url.h"
#include "proto/url.h"

static int lm_url_append(char **buf, size_t *cap, size_t *len, const char *s, size_t sl, int enc,
                         int form) {
    size_t need = enc ? sl * 3 : sl;
    if (lm_buf_reserve(buf, cap, *len + need + 1) != 0) return -1;
    *len += enc ? url_encode(*buf + *len, *cap - *len, s, sl, form) : (memcpy(*buf + *len, s, sl), sl);
    return 0;
}

/* One k=v pair, the value at -1 (string, number or boolean). */
static int lm_url_pair(lua_State *L, const char *k, size_t kl, int form, char **buf, size_t *cap,
                       size_t *len, size_t start, char *err, size_t err_len) {
    int t = lua_type(L, -1);
    const char *v;
    size_t vl;
    if (t == LUA_TBOOLEAN) {
        v = lua_toboolean(L, -1) ? "true" : "false";
        vl = strlen(v);
    } else if (t == LUA_TSTRING || t == LUA_TNUMBER) {
        lua_pushvalue(L, -1);                  /* convert a copy, not the table's value */
        v = lua_tolstring(L, -1, &vl);
    } else {
        snprintf(err, err_len, "value of '%.60s' must be a string, number, boolean or an array of them, got %s",
                 k, lua_typename(L, t));
        return -1;
    }
    if ((*len > start && lm_url_append(buf, cap, len, "&", 1, 0, 0) != 0) ||
        lm_url_append(buf, cap, len, k, kl, 1, form) != 0 || lm_url_append(buf, cap, len, "=", 1, 0, 0) != 0 ||
        lm_url_append(buf, cap, len, v, vl, 1, form) != 0) {
        snprintf(err, err_len, "out of memory");
        if (t != LUA_TBOOLEAN) lua_pop(L, 1);
        return -1;
    }
    if (t != LUA_TBOOLEAN) lua_pop(L, 1);
    return 0;
}

int lm_url_query(lua_State *L, int idx, int form, char **buf, size_t *cap, size_t *len, char *err,
                 size_t err_len) {
    if (idx < 0) idx = lua_gettop(L) + idx + 1;
    int top = lua_gettop(L);
    int rc = 0;
    size_t start = *len;
    lua_pushnil(L);
    while (rc == 0 && lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            snprintf(err, err_len, "keys must be strings, got %s", luaL_typename(L, -2));
            rc = -1;
            break;
        }
        size_t kl;
        const char *k = lua_tolstring(L, -2, &kl);
        if (lua_istable(L, -1)) {
            size_t n = lua_objlen(L, -1);
            for (size_t i = 1; rc == 0 && i <= n; i++) {
                lua_rawgeti(L, -1, (int)i);
                rc = lm_url_pair(L, k, kl, form, buf, cap, len, start, err, err_len);
                lua_pop(L, 1);
            }
        } else {
            rc = lm_url_pair(L, k, kl, form, buf, cap, len, start, err, err_len);
        }
        lua_pop(L, 1);
    }
    lua_settop(L, top);
    return rc;
}

/* luamech.url.encode(s [, form]) -> s percent-encoded (form: space as '+') */
static int lm_url_encode_lua(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int form = lua_toboolean(L, 2);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < len; i += 256) {   /* chunks: each fits a luaL_Buffer's block */
        size_t n = len - i < 256 ? len - i : 256;
        char *p = luaL_prepbuffer(&b);
        luaL_addsize(&b, url_encode(p, LUAL_BUFFERSIZE, s + i, n, form));
    }
    luaL_pushresult(&b);
    return 1;
}

/* luamech.url.decode(s [, form]) -> decoded | nil, err */
static int lm_url_decode_lua(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    char *out = malloc(len + 1);
    if (!out) return luaL_error(L, "luamech.url.decode: out of memory");
    size_t n = url_decode(out, s, len, lua_toboolean(L, 2));
    if (n == (size_t)-1) {
        free(out);
        lua_pushnil(L);
        lua_pushliteral(L, "luamech.url.decode: '%' not followed by two hex digits");
        return 2;
    }
    lua_pushlstring(L, out, n);
    free(out);
    return 1;
}

/* luamech.url.build(base, path [, query]) -> base .. path [.. "?" .. query]
 * (a '?' already in path gets '&'); base's trailing '/' and path's leading
 * one are not doubled. */
static int lm_url_build_lua(lua_State *L) {
    size_t bl, pl = 0;
    const char *base = luaL_checklstring(L, 1, &bl);
    const char *path = luaL_optlstring(L, 2, "", &pl);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    char *buf = NULL, err[160];
    size_t cap = 0, len = 0;
    if (bl && base[bl - 1] == '/' && pl && path[0] == '/') bl--;
    int rc = lm_url_append(&buf, &cap, &len, base, bl, 0, 0);
    if (rc == 0 && pl && path[0] != '/' && path[0] != '?' && (bl == 0 || base[bl - 1] != '/'))
        rc = lm_url_append(&buf, &cap, &len, "/", 1, 0, 0);
    if (rc == 0) rc = lm_url_append(&buf, &cap, &len, path, pl, 0, 0);
    if (rc != 0) {
        free(buf);
        return luaL_error(L, "luamech.url.build: out of memory");
    }
    if (lua_istable(L, 3)) {
        char *q = NULL;
        size_t qcap = 0, qlen = 0;
        if (lm_url_query(L, 3, 0, &q, &qcap, &qlen, err, sizeof err) != 0) {
            free(buf);
            free(q);
            return luaL_error(L, "luamech.url.build: query: %s", err);
        }
        if (qlen) {
            const char *sep = memchr(buf, '?', len) ? "&" : "?";
            rc = lm_url_append(&buf, &cap, &len, sep, 1, 0, 0);
            if (rc == 0) rc = lm_url_append(&buf, &cap, &len, q, qlen, 0, 0);
        }
        free(q);
        if (rc != 0) {
            free(buf);
            return luaL_error(L, "luamech.url.build: out of memory");
        }
    }
    lua_pushlstring(L, buf, len);
    free(buf);
    return 1;
}

const luaL_Reg lm_url_fns[] = {{"encode", lm_url_encode_lua}, {"decode", lm_url_decode_lua},
                               {"build", lm_url_build_lua}, {NULL, NULL}};
