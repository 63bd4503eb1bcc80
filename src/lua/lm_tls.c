/* lm_tls.c - the `tls = {...}` option of the protocol bindings into
 * net_tls_opts, and the handshake hook that records <proto>.tls (handshake
 * time, out of request latency like connect time) and counts
 * <proto>.tls_resumed.  It does not load certificates (net/tls.c does, when
 * the client is made, and says which file failed). */
#include "lua/lm_tls.h"
#include "lua/lm_core.h"
#include "engine/vu_api.h"
#include "stats/local.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

void lm_tls_rec_init(lm_tls_rec *r, worker *w, const char *proto) {
    r->w = w;
    r->proto = proto;
    r->tid = r->cid = -1;
    r->no_timer = 0;
}

static void lm_tls_on_handshake(void *arg, uint64_t ns, int resumed) {
    lm_tls_rec *r = arg;
    uint64_t now = uv_hrtime();
    if (r->tid >= 0) worker_record(r->w, r->tid, (int64_t)ns, now, 1);
    if (resumed && r->cid >= 0) worker_count(r->w, r->cid, 1);
}

/* Timer and counter ids, made at the first TLS client of the module. */
static void lm_tls_rec_ids(lm_tls_rec *r) {
    char name[64];
    if (r->cid >= 0) return;
    snprintf(name, sizeof name, "%s.tls", r->proto);
    if (!r->no_timer) r->tid = lm_timer_id(r->w, name, TK_PRIMITIVE);
    snprintf(name, sizeof name, "%s.tls_resumed", r->proto);
    r->cid = worker_counter_id(r->w, name);
}

static const char *lm_tls_str(lua_State *L, int t, const char *field, const char *fname) {
    lua_getfield(L, t, field);
    const char *s = NULL;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TSTRING || lua_objlen(L, -1) == 0)
            luaL_error(L, "%s: tls: %s must be a non-empty string", fname, field);
        s = lua_tostring(L, -1);        /* anchored by the options table */
    }
    lua_pop(L, 1);
    return s;
}

static void lm_tls_check_known(lua_State *L, int t, const char *fname) {
    static const char *const known[] = {"ca_file", "cert", "key", "insecure", "min_version",
                                        "server_name", "alpn", NULL};
    lua_pushnil(L);
    while (lua_next(L, t)) {
        int ok = 0;
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        for (int i = 0; k && known[i]; i++) ok |= strcmp(k, known[i]) == 0;
        if (!ok)
            luaL_error(L, "%s: unknown tls option '%s' (known: ca_file, cert, key, insecure, "
                          "min_version, server_name, alpn)", fname, k ? k : "?");
        lua_pop(L, 1);
    }
}

static void lm_tls_table(lua_State *L, int t, const char *fname, net_tls_opts *o) {
    lm_tls_check_known(L, t, fname);
    o->ca_file = lm_tls_str(L, t, "ca_file", fname);
    o->cert_file = lm_tls_str(L, t, "cert", fname);
    o->key_file = lm_tls_str(L, t, "key", fname);
    o->server_name = lm_tls_str(L, t, "server_name", fname);
    o->alpn = lm_tls_str(L, t, "alpn", fname);
    const char *mv = lm_tls_str(L, t, "min_version", fname);
    if (mv && strcmp(mv, "1.2") != 0 && strcmp(mv, "1.3") != 0)
        luaL_error(L, "%s: tls: min_version must be \"1.2\" or \"1.3\", got \"%s\"", fname, mv);
    o->min_version = mv && strcmp(mv, "1.3") == 0 ? 13 : 12;
    lua_getfield(L, t, "insecure");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
        luaL_error(L, "%s: tls: insecure must be true or false", fname);
    o->insecure = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (o->key_file && !o->cert_file) luaL_error(L, "%s: tls: key given without cert", fname);
}

int lm_tls_opts(lua_State *L, int idx, const char *fname, lm_tls_rec *rec, net_tls_opts *o) {
    memset(o, 0, sizeof *o);
    o->min_version = 12;
    if (!lua_istable(L, idx)) return 0;
    lua_getfield(L, idx, "tls");
    int t = lua_gettop(L), on = 0;
    if (lua_istable(L, t)) {
        lm_tls_table(L, t, fname, o);
        on = 1;
    } else if (lua_isboolean(L, t)) {
        on = lua_toboolean(L, t);
    } else if (!lua_isnil(L, t)) {
        luaL_error(L, "%s: tls must be true, false or a table of options", fname);
    }
    lua_pop(L, 1);          /* the table stays referenced by the options table */
    if (on && rec) lm_tls_rec_hook(rec, o);
    return on;
}

void lm_tls_rec_hook(lm_tls_rec *rec, net_tls_opts *o) {
    lm_tls_rec_ids(rec);
    o->on_handshake = lm_tls_on_handshake;
    o->on_handshake_arg = rec;
}

void lm_tls_key(const net_tls_opts *o, int on, char *buf, size_t len) {
    if (!on) {
        snprintf(buf, len, "%s", "");
        return;
    }
    snprintf(buf, len, "|tls|%s|%s|%s|%s|%s|%d|%d", o->ca_file ? o->ca_file : "",
             o->cert_file ? o->cert_file : "", o->key_file ? o->key_file : "",
             o->server_name ? o->server_name : "", o->alpn ? o->alpn : "", o->insecure,
             o->min_version);
}
