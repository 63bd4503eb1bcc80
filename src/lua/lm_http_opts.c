/* lm_http_opts.c - checks the options of luamech.http: those of
 * luamech.http.new (pool, keepalive, timeout, headers, max_body,
 * discard_body, jar, dns, credential_headers; tls is lm_tls.c's) and those of
 * every request (headers, body/json/form, query, name, timeout, max_body,
 * discard_body, expect, redirects, allow_downgrade, credential_headers).
 * Misuse raises one message naming the call.  It only reads and validates:
 * encoding bodies and queries, and building the request, are
 * lm_http_req.c's. */
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "lua/lm_client.h"
#include "lua/lm_core.h"
#include "lua/lm_http_int.h"

/* Add the headers of the table at idx to hdrs (skipping names already there
 * when `defaults`).  Number values are converted; the strings stay anchored
 * on the stack (one slot per converted value) until the caller pops them. */
void lm_http_headers(lua_State *L, int idx, const char *fname, hp_header *hdrs, size_t *nh,
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

/* A credential_headers list at idx (an array of header names; names NULL:
 * only checked, else copied lowercased into names[]): the count.  Misuse
 * raises. */
int lm_http_cred_opt(lua_State *L, int idx, const char *fname, char (*names)[LM_HTTP_CRED_LEN + 1]) {
    if (!lua_istable(L, idx)) luaL_error(L, "%s: credential_headers must be a list of header names", fname);
    int n = (int)lua_objlen(L, idx), count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) count++, lua_pop(L, 1);
    if (count != n || n > LM_HTTP_CRED_MAX)
        luaL_error(L, "%s: credential_headers must be a list of at most %d header names", fname, LM_HTTP_CRED_MAX);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        size_t nl = 0;
        const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &nl) : NULL;
        if (!name || nl > LM_HTTP_CRED_LEN || !hp_header_name_valid(name, nl))
            luaL_error(L, "%s: credential_headers: header names of 1..%d characters expected", fname,
                       LM_HTTP_CRED_LEN);
        for (size_t k = 0; names && k < nl; k++)
            names[i - 1][k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
        if (names) names[i - 1][nl] = 0;
        lua_pop(L, 1);
    }
    return n;
}

/* 1 when the tag name or value s[0..n) uses only the allowed bytes: a name
 * 1..64 of A-Z a-z 0-9 _ . : -, a value 0..64 printable ASCII bytes other
 * than " \\ , = { } (so that a tag set has one unambiguous name). */
static int lm_http_tag_ok(const char *s, size_t n, int is_name) {
    if (n > LM_HTTP_TAG_LEN || (is_name && n == 0)) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (is_name && !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                         ch == '_' || ch == '.' || ch == ':' || ch == '-'))
            return 0;
        if (ch < 0x20 || ch > 0x7e || strchr("\"\\,={}", ch)) return 0;
    }
    return 1;
}

/* The tags table at idx: at most LM_HTTP_MAX_TAGS names (see lm_http_tag_ok)
 * to strings, numbers or booleans; `name` is the call's timer name (not in
 * a client's default tags).  Misuse raises. */
void lm_http_check_tags(lua_State *L, int idx, const char *fname, int client) {
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        size_t kl, vl = 0;
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &kl) : NULL;
        if (!k || !lm_http_tag_ok(k, kl, 1))
            luaL_error(L, "%s: tags: names are 1..%d characters of A-Z a-z 0-9 _ . : -", fname, LM_HTTP_TAG_LEN);
        if (client && kl == 4 && memcmp(k, "name", 4) == 0)
            luaL_error(L, "%s: tags: name is per request (the timer's name), not a client default", fname);
        int t = lua_type(L, -1);
        if (t == LUA_TSTRING) lua_tolstring(L, -1, &vl);
        if ((t != LUA_TSTRING && t != LUA_TNUMBER && t != LUA_TBOOLEAN) ||
            (t == LUA_TSTRING && !lm_http_tag_ok(lua_tostring(L, -1), vl, 0)))
            luaL_error(L, "%s: tags: '%s' must be a string of at most %d printable ASCII characters other than "
                          "\" \\ , = { } (or a number or a boolean)", fname, k, LM_HTTP_TAG_LEN);
        if (++n > LM_HTTP_MAX_TAGS) luaL_error(L, "%s: tags: at most %d", fname, LM_HTTP_MAX_TAGS);
        lua_pop(L, 1);
    }
}

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

/* The dns option of new's table at idx ({ ttl = seconds }, math.huge:
 * never again) into cfg; misuse raises.  Leaves the stack as it was. */
static void lm_http_dns_opt(lua_State *L, int idx, lm_http_cfg *cfg) {
    static const char *const known[] = {"ttl", NULL};
    lua_getfield(L, idx, "dns");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) luaL_error(L, "luamech.http.new: dns must be a table (e.g. { ttl = 60 })");
        lm_check_options(L, lua_gettop(L), "luamech.http.new: dns", known);
        lua_getfield(L, -1, "ttl");
        double t = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
        if (!lua_isnil(L, -1) && !(t >= 0))
            luaL_error(L, "luamech.http.new: dns.ttl must be a number of seconds >= 0 (math.huge: look up once)");
        if (!lua_isnil(L, -1)) cfg->dns_ttl_ns = t >= 1e9 ? UINT64_MAX : (uint64_t)(t * 1e9);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* The body of a request: the body argument (body_idx, 0: the method takes
 * none) or one of the options body, json, form.  Leaves their values on the
 * stack (they stay anchored there while the request is built). */
static void lm_http_call_body(lua_State *L, const char *fname, int body_idx, int opts_idx, lm_http_call *c) {
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
}

/* The field of options table opts_idx called key, left on the stack; its
 * index, or 0 when it is nil.  A value not of type `type` raises. */
static int lm_http_field(lua_State *L, int opts_idx, const char *key, int type, const char *fname,
                         const char *what) {
    lua_getfield(L, opts_idx, key);
    if (lua_isnil(L, -1)) return 0;
    if (lua_type(L, -1) != type) luaL_error(L, "%s: %s must be %s", fname, key, what);
    return lua_gettop(L);
}

/* A request's tags option (a table, checked), and tags.name as its name
 * (left on the stack) unless it has a name option too (a Lua error). */
static void lm_http_call_tags(lua_State *L, const char *fname, int opts_idx, lm_http_call *c) {
    c->tags_idx = lm_http_field(L, opts_idx, "tags", LUA_TTABLE, fname, "a table");
    if (!c->tags_idx) return;
    lm_http_check_tags(L, c->tags_idx, fname, 0);
    lua_getfield(L, c->tags_idx, "name");
    if (lua_isnil(L, -1)) return;
    if (c->name_idx) luaL_error(L, "%s: give name or tags.name, not both", fname);
    if (lua_type(L, -1) != LUA_TSTRING || lua_objlen(L, -1) == 0)
        luaL_error(L, "%s: tags.name must be a non-empty string", fname);
    size_t len;
    const char *name = lua_tolstring(L, -1, &len);
    lm_name_check(L, name, len, fname, "tags.name");
    c->name_idx = lua_gettop(L);
}

/* The redirects, expect, allow_downgrade and credential_headers options of
 * a request. */
static void lm_http_call_follow(lua_State *L, const char *fname, int opts_idx, lm_http_call *c) {
    c->allow_downgrade = lm_http_field(L, opts_idx, "allow_downgrade", LUA_TBOOLEAN, fname, "a boolean") &&
                         lua_toboolean(L, -1);
    c->cred_idx = lm_http_field(L, opts_idx, "credential_headers", LUA_TTABLE, fname,
                                "a list of header names");
    if (c->cred_idx) lm_http_cred_opt(L, c->cred_idx, fname, NULL);
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

/* A request's options as data (lm_client.h): the reader below,
 * lua/types/luamech.lua's luamech.HttpRequestOptions and docs/lua-api.md's
 * request opts table are checked against these rows.  timeout, max_body and
 * discard_body default to the client's. */
static const lm_opt_spec lm_http_call_spec[] = {
    LM_OPT_OWN("headers", NULL),
    LM_OPT_OWN("body", NULL),
    LM_OPT_OWN("json", NULL),
    LM_OPT_OWN("form", NULL),
    LM_OPT_OWN("query", NULL),
    LM_OPT_OWN("name", NULL),
    {"timeout", LM_OPT_SECONDS, 0, 86400, LM_OPT_CALLERS, "the client's", LM_OPT_AT(lm_http_call, timeout_ns)},
    LM_OPT_OWN("max_body", "the client's"),
    LM_OPT_OWN("discard_body", "the client's"),
    LM_OPT_OWN("expect", "200-399"),
    LM_OPT_OWN("redirects", "10"),
    LM_OPT_OWN("tags", NULL),
    LM_OPT_OWN("allow_downgrade", NULL),
    LM_OPT_OWN("credential_headers", NULL),
    LM_OPT_OWN(NULL, NULL)};

/* The options table of a request at opts_idx (and the body argument at
 * body_idx, 0: none) into *c, over the client's defaults; misuse raises.
 * The values referred to by index stay on the stack. */
void lm_http_call_opts(lua_State *L, lm_http *h, const char *fname, int body_idx, int opts_idx,
                       lm_http_call *c) {
    memset(c, 0, sizeof *c);
    c->timeout_ns = h->timeout_ns;
    c->max_body = h->max_body;
    c->discard_body = h->discard_body;
    c->redirects = LM_HTTP_DEFAULT_REDIRECTS;
    if (body_idx && !lua_isnoneornil(L, body_idx)) {
        c->body = luaL_checklstring(L, body_idx, &c->body_len);
        c->body_str_idx = body_idx;
    }
    if (lua_isnoneornil(L, opts_idx)) return;   /* most calls: lm_opts_read would store no default (the
                                                * spec's are the caller's, set above, or its own) */
    if (!lm_opts_read(L, opts_idx, fname, lm_http_call_spec, c)) return;
    lm_http_call_body(L, fname, body_idx, opts_idx, c);
    c->query_idx = lm_http_field(L, opts_idx, "query", LUA_TTABLE, fname, "a table");
    lm_http_body_opts(L, opts_idx, fname, &c->max_body, &c->discard_body);
    c->name_idx = lm_http_field(L, opts_idx, "name", LUA_TSTRING, fname, "a string of 1..200 bytes");
    if (c->name_idx) {
        size_t len;
        const char *name = lua_tolstring(L, c->name_idx, &len);
        lm_name_check(L, name, len, fname, "name");           /* 1..200 bytes, printable */
    }
    c->hdr_idx = lm_http_field(L, opts_idx, "headers", LUA_TTABLE, fname, "a table");
    lm_http_call_follow(L, fname, opts_idx, c);
    lm_http_call_tags(L, fname, opts_idx, c);
}

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

/* The client's default tags (option tags of new's table at idx, checked
 * already): a copy with every value a string, as a registry reference. */
static void lm_http_new_tags(lua_State *L, int idx, lm_http_cfg *cfg) {
    lua_getfield(L, idx, "tags");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    int t = lua_gettop(L);                    /* checked by lm_http_new_opts */
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pushvalue(L, -2);
        if (lua_isboolean(L, -2)) lua_pushstring(L, lua_toboolean(L, -2) ? "true" : "false");
        else lua_pushstring(L, lua_tostring(L, -2));
        lua_rawset(L, -5);
        lua_pop(L, 1);
    }
    cfg->tags_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
}

/* http = "auto" | "1.1" | "2" of new's options. */
static void lm_http_version_opts(lua_State *L, int idx, lm_http_cfg *cfg) {
    lua_getfield(L, idx, "http");
    if (!lua_isnil(L, -1)) {
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (v && strcmp(v, "auto") == 0) cfg->version = LM_HTTP_AUTO;
        else if (v && strcmp(v, "1.1") == 0) cfg->version = HTTP_V1;
        else if (v && strcmp(v, "2") == 0) cfg->version = HTTP_V2;
        else luaL_error(L, "luamech.http.new: http must be \"auto\", \"1.1\" or \"2\"");
    }
    lua_pop(L, 1);
}

#define LM_HTTP_AT(f) LM_OPT_AT(lm_http_cfg, f)

/* http.new's options as data (lm_client.h): the reader below,
 * lua/types/luamech.lua's luamech.HttpOptions and docs/lua-api.md's list
 * are checked against these rows (max_body is read with the requests' own). */
static const lm_opt_spec lm_http_spec[] = {
    LM_OPT_OWN("pool", "false"),
    LM_OPT_OWN("keepalive", "true"),
    {"timeout", LM_OPT_SECONDS, 0, 86400, LM_HTTP_DEFAULT_TIMEOUT_NS / 1e9, "10", LM_HTTP_AT(timeout_ns)},
    {"connect_timeout", LM_OPT_SECONDS, 0, 86400, 0, "only the request's timeout", LM_HTTP_AT(connect_timeout_ns)},
    LM_OPT_OWN("headers", NULL),
    LM_OPT_OWN("max_body", "64 MiB"),
    LM_OPT_OWN("discard_body", "false"),
    LM_OPT_OWN("jar", NULL),
    LM_OPT_OWN("tls", NULL),
    LM_OPT_OWN("http", "\"auto\""),
    {"max_streams", LM_OPT_INT, 1, 1000, 100, "100", LM_HTTP_AT(max_streams)},
    LM_OPT_OWN("tags", NULL),
    LM_OPT_OWN("dns", NULL),
    LM_OPT_OWN("credential_headers", NULL),
    LM_OPT_OWN(NULL, NULL)};

/* The options table at idx (or nil) into cfg; misuse raises. */
void lm_http_new_opts(lua_State *L, int idx, lm_http_cfg *cfg) {
    cfg->pool = 0;
    cfg->version = LM_HTTP_AUTO;         /* the default (h2 by ALPN on https://): docs/http.md#http2 says why */
    cfg->keepalive = 1;
    cfg->headers_ref = cfg->tags_ref = LUA_NOREF;
    cfg->max_body = HTTP_MAX_BODY_DEFAULT;
    cfg->dns_ttl_ns = HTTP_DNS_TTL_DEFAULT_NS;
    cfg->discard_body = 0;
    cfg->jar = 1;
    cfg->ncred = 0;
    if (!lm_opts_read(L, idx, "luamech.http.new", lm_http_spec, cfg)) return;
    lua_getfield(L, idx, "tags");             /* checked before any reference is made */
    if (!lua_isnil(L, -1) && !lua_istable(L, -1)) luaL_error(L, "luamech.http.new: tags must be a table");
    if (lua_istable(L, -1)) lm_http_check_tags(L, lua_gettop(L), "luamech.http.new", 1);
    lua_pop(L, 1);
    lm_http_body_opts(L, idx, "luamech.http.new", &cfg->max_body, &cfg->discard_body);
    lm_http_dns_opt(L, idx, cfg);
    lm_http_version_opts(L, idx, cfg);
    lua_getfield(L, idx, "credential_headers");
    if (!lua_isnil(L, -1)) cfg->ncred = lm_http_cred_opt(L, lua_gettop(L), "luamech.http.new", cfg->cred);
    lua_pop(L, 1);
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
    lua_getfield(L, idx, "headers");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) luaL_error(L, "luamech.http.new: headers must be a table");
        cfg->headers_ref = lm_http_default_headers(L, lua_gettop(L));   /* raises before the ref */
    }
    lua_pop(L, 3);
    lm_http_new_tags(L, idx, cfg);
}
