/* lm_json.c - luamech.json (encode, decode, null, array) and the C helpers
 * lm_json_encode/lm_json_decode used by the HTTP binding.  The JSON text is
 * parsed and printed by Debian's jansson (libjansson); this file only maps
 * values between Lua and jansson's tree:
 *   - null <-> luamech.json.null (a light userdata); a nil in a table is
 *     simply absent;
 *   - arrays: a decoded array carries the array marker metatable, so an empty
 *     one encodes back to []; luamech.json.array(t) marks a table; an
 *     unmarked table whose keys are exactly 1..n (n >= 1) is an array, an
 *     empty unmarked table is {};
 *   - numbers: Lua numbers are doubles: decoded integers beyond 2^53 lose
 *     precision (send such ids as strings); an integral number below 2^63
 *     encodes without a fraction; NaN and infinities cannot be encoded.
 * Encoding errors (functions, userdata, cycles, mixed or non-string keys,
 * invalid UTF-8) are returned as one message with the path of the value.
 * Decoding text from a server is bounded (lm_json_limits: its bytes and
 * its values, counted in one pass before jansson builds anything).
 * It does not read files or sockets and allocates only when called. */
#include <jansson.h>
#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_json.h"

#define LM_JSON_MAX_DEPTH 1000

/* Registry key of the array marker metatable (its address; never written). */
static const char lm_json_array_key = 0;

typedef struct lm_json_enc {
    lua_State *L;
    const void *seen[LM_JSON_MAX_DEPTH];   /* tables being encoded (cycle check) */
    int depth;
    char path[200];                         /* ".user[2].name" of the current value */
    size_t plen;
    char *err;
    size_t err_len;
} lm_json_enc;

/* Push the array marker metatable, creating it on first use. */
static void lm_json_push_array_mt(lua_State *L) {
    lua_pushlightuserdata(L, (void *)&lm_json_array_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
    if (!lua_isnil(L, -1)) return;
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "array");
    lua_setfield(L, -2, "__jsontype");
    lua_pushlightuserdata(L, (void *)&lm_json_array_key);
    lua_pushvalue(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
}

static int lm_json_fail(lm_json_enc *e, const char *fmt, ...) {
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(e->err, e->err_len, "%s (at %s)", what, e->plen ? e->path : "the top level");
    return -1;
}

/* Extend the path with ".key" or "[i]"; returns the old length to restore. */
static size_t lm_json_path_push(lm_json_enc *e, const char *key, lua_Number idx) {
    size_t old = e->plen;
    int n = key ? snprintf(e->path + old, sizeof e->path - old, ".%.40s", key)
                : snprintf(e->path + old, sizeof e->path - old, "[%.0f]", (double)idx);
    if (n > 0) e->plen = old + (size_t)n < sizeof e->path ? old + (size_t)n : sizeof e->path - 1;
    return old;
}

static void lm_json_path_pop(lm_json_enc *e, size_t old) {
    e->plen = old;
    e->path[old] = 0;
}

static json_t *lm_json_value(lm_json_enc *e, int idx);

/* n >= 1 when the table at idx has exactly the keys 1..n; 0 when it is
 * empty; -1 otherwise. */
static int lm_json_seq_len(lua_State *L, int idx) {
    size_t n = lua_objlen(L, idx), count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        count++;
        if (lua_type(L, -1) != LUA_TNUMBER) {
            lua_pop(L, 1);
            return -1;
        }
        lua_Number k = lua_tonumber(L, -1);
        if (k < 1 || k > (lua_Number)n || k != floor(k)) {
            lua_pop(L, 1);
            return -1;
        }
    }
    return count == n ? (int)n : -1;
}

static json_t *lm_json_array(lm_json_enc *e, int idx, size_t n) {
    lua_State *L = e->L;
    json_t *a = json_array();
    if (!a) return lm_json_fail(e, "out of memory"), NULL;
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (int)i);
        size_t old = lm_json_path_push(e, NULL, (lua_Number)i);
        json_t *v = lua_isnil(L, -1) ? json_null() : lm_json_value(e, lua_gettop(L));
        lm_json_path_pop(e, v ? old : e->plen);
        lua_pop(L, 1);
        if (!v || json_array_append_new(a, v) != 0) {
            json_decref(a);
            return v ? (lm_json_fail(e, "out of memory"), NULL) : NULL;
        }
    }
    return a;
}

static json_t *lm_json_object(lm_json_enc *e, int idx) {
    lua_State *L = e->L;
    json_t *o = json_object();
    if (!o) return lm_json_fail(e, "out of memory"), NULL;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            int kt = lua_type(L, -2);
            lua_pop(L, 2);
            json_decref(o);
            return lm_json_fail(e, "object keys must be strings, got a %s key (an array needs keys 1..n)",
                                lua_typename(L, kt)), NULL;
        }
        size_t kl;
        const char *k = lua_tolstring(L, -2, &kl);
        size_t old = lm_json_path_push(e, k, 0);
        json_t *v = lm_json_value(e, lua_gettop(L));
        if (!v) {
            lua_pop(L, 2);
            json_decref(o);
            return NULL;
        }
        lm_json_path_pop(e, old);
        lua_pop(L, 1);
        if (json_object_setn_new(o, k, kl, v) != 0) {
            lua_pop(L, 1);
            json_decref(o);
            return lm_json_fail(e, "object key is not valid UTF-8"), NULL;
        }
    }
    return o;
}

static json_t *lm_json_table(lm_json_enc *e, int idx) {
    lua_State *L = e->L;
    const void *p = lua_topointer(L, idx);
    for (int i = 0; i < e->depth; i++)
        if (e->seen[i] == p) return lm_json_fail(e, "a table contains itself (a cycle)"), NULL;
    if (e->depth >= LM_JSON_MAX_DEPTH)
        return lm_json_fail(e, "nested deeper than %d levels", LM_JSON_MAX_DEPTH), NULL;
    if (!lua_checkstack(L, 6)) return lm_json_fail(e, "Lua stack exhausted"), NULL;
    e->seen[e->depth++] = p;
    int marked = 0;
    if (lua_getmetatable(L, idx)) {
        lm_json_push_array_mt(L);
        marked = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    json_t *r;
    int n = marked ? (int)lua_objlen(L, idx) : lm_json_seq_len(L, idx);
    if (marked || n > 0) r = lm_json_array(e, idx, (size_t)n);
    else r = lm_json_object(e, idx);
    if (r) e->depth--;
    return r;
}

static json_t *lm_json_value(lm_json_enc *e, int idx) {
    lua_State *L = e->L;
    switch (lua_type(L, idx)) {
    case LUA_TNIL: return json_null();
    case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER: {
        lua_Number x = lua_tonumber(L, idx);
        if (isnan(x) || isinf(x)) return lm_json_fail(e, "cannot encode %s", isnan(x) ? "NaN" : "an infinity"), NULL;
        if (x == floor(x) && fabs(x) < 9223372036854775807.0) return json_integer((json_int_t)x);
        return json_real(x);
    }
    case LUA_TSTRING: {
        size_t l;
        const char *s = lua_tolstring(L, idx, &l);
        json_t *v = json_stringn(s, l);
        return v ? v : (lm_json_fail(e, "string is not valid UTF-8"), NULL);
    }
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL) return json_null();
        return lm_json_fail(e, "cannot encode a userdata"), NULL;
    case LUA_TTABLE: return lm_json_table(e, idx);
    default: return lm_json_fail(e, "cannot encode a %s", luaL_typename(L, idx)), NULL;
    }
}

int lm_json_encode(lua_State *L, int idx, char **buf, size_t *cap, size_t *len, char *err,
                   size_t err_len) {
    if (idx < 0) idx = lua_gettop(L) + idx + 1;
    lm_json_enc *e = malloc(sizeof *e);
    if (!e) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    e->L = L;
    e->depth = 0;
    e->plen = 0;
    e->path[0] = 0;
    e->err = err;
    e->err_len = err_len;
    int top = lua_gettop(L);
    json_t *root = lm_json_value(e, idx);
    lua_settop(L, top);
    free(e);
    if (!root) return -1;
    size_t flags = JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
    size_t need = json_dumpb(root, *buf, *cap, flags);
    if (need > *cap) {
        char *b = realloc(*buf, need);
        if (!b) {
            json_decref(root);
            snprintf(err, err_len, "out of memory");
            return -1;
        }
        *buf = b;
        *cap = need;
        need = json_dumpb(root, *buf, *cap, flags);
    }
    json_decref(root);
    if (need == 0) {
        snprintf(err, err_len, "cannot encode the value");
        return -1;
    }
    *len = need;
    return 0;
}

/* ---- decoding ---- */

static void lm_json_push(lua_State *L, json_t *v);

static void lm_json_push_container(lua_State *L, json_t *v) {
    if (json_is_array(v)) {
        size_t n = json_array_size(v);
        lua_createtable(L, (int)n, 0);
        for (size_t i = 0; i < n; i++) {
            lm_json_push(L, json_array_get(v, i));
            lua_rawseti(L, -2, (int)i + 1);
        }
        lm_json_push_array_mt(L);
        lua_setmetatable(L, -2);
        return;
    }
    lua_createtable(L, 0, (int)json_object_size(v));
    const char *k;
    size_t kl;
    json_t *x;
    json_object_keylen_foreach(v, k, kl, x) {
        lua_pushlstring(L, k, kl);
        lm_json_push(L, x);
        lua_rawset(L, -3);
    }
}

static void lm_json_push(lua_State *L, json_t *v) {
    luaL_checkstack(L, 4, "luamech.json.decode: nested too deeply");
    switch (json_typeof(v)) {
    case JSON_OBJECT: case JSON_ARRAY: lm_json_push_container(L, v); break;
    case JSON_STRING: lua_pushlstring(L, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: lua_pushnumber(L, (lua_Number)json_integer_value(v)); break;
    case JSON_REAL: lua_pushnumber(L, json_real_value(v)); break;
    case JSON_TRUE: lua_pushboolean(L, 1); break;
    case JSON_FALSE: lua_pushboolean(L, 0); break;
    default: lua_pushlightuserdata(L, NULL); break;
    }
}

/* An upper bound of the values in JSON text s[0..len), counted up to
 * limit + 1 at most: one, plus one per ',' ':' '[' '{' outside strings
 * (every value but the first follows one of them; a key counts as a value).
 * One pass, no allocation: text over the limit is refused before jansson
 * builds a tree of it (30 to 170 bytes a value: 20 times and more the
 * text of "[0,0,...]"). */
static size_t lm_json_count_values(const char *s, size_t len, size_t limit) {
    size_t n = 1;
    int in_str = 0;
    for (size_t i = 0; i < len && n <= limit; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == ',' || c == ':' || c == '[' || c == '{') {
            n++;
        }
    }
    return n;
}

void lm_json_limits_opt(lua_State *L, int idx, const char *fname, lm_json_limits *lim) {
    static const char *const key[2] = {"max_bytes", "max_values"};
    size_t *dst[2] = {&lim->max_bytes, &lim->max_values};
    lim->max_bytes = LM_JSON_MAX_BYTES_DEFAULT;
    lim->max_values = LM_JSON_MAX_VALUES_DEFAULT;
    if (idx == 0 || lua_isnoneornil(L, idx)) return;
    if (!lua_istable(L, idx)) luaL_error(L, "%s: options must be a table ({ max_bytes =, max_values = })", fname);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
        if (strcmp(k, key[0]) != 0 && strcmp(k, key[1]) != 0)
            luaL_error(L, "%s: unknown option '%s' (max_bytes, max_values)", fname, k);
    }
    for (int i = 0; i < 2; i++) {
        lua_getfield(L, idx, key[i]);
        if (!lua_isnil(L, -1)) {
            double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
            if (!(v >= 1 && v <= (double)LM_JSON_LIMIT_CAP) || v != (double)(size_t)v)
                luaL_error(L, "%s: %s must be a whole number from 1 to %d", fname, key[i], (int)LM_JSON_LIMIT_CAP);
            *dst[i] = (size_t)v;
        }
        lua_pop(L, 1);
    }
}

int lm_json_decode(lua_State *L, const char *s, size_t len, const lm_json_limits *lim, char *err,
                   size_t err_len) {
    if (lim && len > lim->max_bytes) {
        snprintf(err, err_len, "text of %zu bytes is over max_bytes (%zu)", len, lim->max_bytes);
        return 0;
    }
    if (lim && lm_json_count_values(s, len, lim->max_values) > lim->max_values) {
        snprintf(err, err_len, "more than %zu values (max_values)", lim->max_values);
        return 0;
    }
    json_error_t je;
    json_t *root = json_loadb(s, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &je);
    if (!root) {
        snprintf(err, err_len, "line %d column %d: %s", je.line, je.column, je.text);
        return 0;
    }
    lm_json_push(L, root);   /* jansson's depth limit (2048) keeps this within the stack */
    json_decref(root);
    return 1;
}

/* ---- luamech.json ---- */

/* luamech.json.encode(value) -> text; a value that cannot be encoded raises
 * "luamech.json.encode: why (at path)". */
static int lm_json_encode_lua(lua_State *L) {
    luaL_checkany(L, 1);
    char *buf = NULL, err[256];
    size_t cap = 0, len = 0;
    if (lm_json_encode(L, 1, &buf, &cap, &len, err, sizeof err) != 0) {
        free(buf);
        return luaL_error(L, "luamech.json.encode: %s", err);
    }
    lua_pushlstring(L, buf, len);
    free(buf);
    return 1;
}

/* luamech.json.decode(text [, {max_bytes =, max_values =}]) -> value | nil, err */
static int lm_json_decode_lua(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    lm_json_limits lim;
    lm_json_limits_opt(L, 2, "luamech.json.decode", &lim);
    char err[256];
    if (lm_json_decode(L, s, len, &lim, err, sizeof err)) return 1;
    lua_pushnil(L);
    lua_pushfstring(L, "luamech.json.decode: %s", err);
    return 2;
}

/* luamech.json.array(t) -> t marked as an array ([] when empty). */
static int lm_json_array_lua(lua_State *L) {
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lm_json_push_array_mt(L);
    lua_setmetatable(L, 1);
    return 1;
}

void lm_json_open(lua_State *L, struct worker *w) {
    static const luaL_Reg fns[] = {{"encode", lm_json_encode_lua}, {"decode", lm_json_decode_lua},
                                   {"array", lm_json_array_lua}, {NULL, NULL}};
    (void)w;
    lua_createtable(L, 0, 4);
    luaL_register(L, NULL, fns);
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
}
