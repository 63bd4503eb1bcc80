/* lm_client.c - the client bindings' shared connect pieces (lm_client.h):
 * the userdata around a client object, options as data (lm_opt_spec rows
 * read and checked by lm_opts_read) and the pooled-or-own connect.  It
 * knows no protocol and calls no client; the op pattern and the registry
 * itself are lm_op.c's. */
#include "lua/lm_client.h"

#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void **lm_ud_push(lua_State *L, void *obj, const char *mt) {
    void **ud = lua_newuserdata(L, sizeof *ud);
    *ud = obj;
    luaL_getmetatable(L, mt);
    lua_setmetatable(L, -2);
    return ud;
}

uint64_t lm_seconds_opt(lua_State *L, const char *fname, const char *field) {
    double s = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(s >= 0) || s > 86400)
        luaL_error(L, "%s: %s must be a number of seconds between 0 and 86400", fname, field);
    return (uint64_t)(s * 1e9);
}

/* v into the field of dst that row s names (4 or 8 bytes). */
static void lm_opt_store(const lm_opt_spec *s, void *dst, uint64_t v) {
    char *at = (char *)dst + s->offset;
    if (s->size == sizeof(uint32_t)) {
        uint32_t v32 = (uint32_t)v;
        memcpy(at, &v32, sizeof v32);
    } else {
        memcpy(at, &v, sizeof v);
    }
}

/* The value on top of L for option s, checked. */
static uint64_t lm_opt_number(lua_State *L, const char *fname, const lm_opt_spec *s) {
    if (s->kind == LM_OPT_SECONDS) return lm_seconds_opt(L, fname, s->name);
    double v = lua_tonumber(L, -1);
    if (lua_type(L, -1) == LUA_TNUMBER && v >= s->min && v <= s->max && v == floor(v)) return (uint64_t)v;
    if (s->kind == LM_OPT_BYTES)
        luaL_error(L, "%s: %s must be a whole number of bytes in %.0f..%.0f", fname, s->name, s->min, s->max);
    return (uint64_t)luaL_error(L, "%s: %s must be an integer in %.0f..%.0f", fname, s->name, s->min, s->max);
}

int lm_opts_read(lua_State *L, int idx, const char *fname, const lm_opt_spec *spec, void *dst) {
    for (const lm_opt_spec *s = spec; s->name; s++)
        if (s->kind != LM_OPT_OTHER && s->dflt != LM_OPT_CALLERS)
            lm_opt_store(s, dst, (uint64_t)(s->kind == LM_OPT_SECONDS ? s->dflt * 1e9 : s->dflt));
    if (lua_isnoneornil(L, idx)) return 0;     /* the defaults alone (most calls) */
    const char *known[LM_OPT_MAX + 1];
    size_t n = 0;
    for (const lm_opt_spec *s = spec; s->name && n < LM_OPT_MAX; s++) known[n++] = s->name;
    known[n] = NULL;
    luaL_checktype(L, idx, LUA_TTABLE);
    lm_check_options(L, idx, fname, known);
    for (const lm_opt_spec *s = spec; s->name; s++) {
        if (s->kind == LM_OPT_OTHER) continue;
        lua_getfield(L, idx, s->name);
        if (!lua_isnil(L, -1)) lm_opt_store(s, dst, lm_opt_number(L, fname, s));
        lua_pop(L, 1);
    }
    return 1;
}

int lm_pool_opt(lua_State *L, int idx) {
    if (!lua_istable(L, idx)) return 0;
    lua_getfield(L, idx, "pool");
    int pool = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return pool;
}

void lm_client_type(lua_State *L, const char *mt, const luaL_Reg *methods, const luaL_Reg *meta,
                    void (*more)(lua_State *L, int mt_idx)) {
    luaL_newmetatable(L, mt);
    int mt_idx = lua_gettop(L);
    lua_newtable(L);
    lm_methods_register(L, mt_idx, methods);   /* self checked by one compare */
    if (more) more(L, mt_idx);
    lua_setfield(L, mt_idx, "__index");
    luaL_register(L, NULL, meta);
    lua_pop(L, 1);
}

void lm_client_module(lua_State *L, struct worker *w, lm_client_list *list, const char *proto,
                      void (*close)(void *list), lua_CFunction connect_fn) {
    if (list == NULL) luaL_error(L, "luamech.%s: out of memory", proto);
    lm_tls_rec_init(&list->tls, w, proto);
    worker_on_close(w, close, list);
    lua_newtable(L);
    lua_pushlightuserdata(L, w);
    lua_pushlightuserdata(L, list);
    lua_pushcclosure(L, connect_fn, 2);
    lua_setfield(L, -2, "connect");
}

void lm_client_unlink(lm_client_obj *o) {
    *o->pprev = o->next;
    if (o->next) o->next->pprev = o->pprev;
    o->next = NULL;
    o->pprev = &o->next;                    /* unlinking again changes nothing */
}

void lm_client_list_close(lm_client_list *l, void (*close)(void *o), void (*free_fn)(void *o)) {
    for (lm_client_obj *o = l->head; o; o = o->next) close(o);
    lm_registry_clear(&l->pool, NULL);      /* the clients are the list's */
    while (l->head) {
        lm_client_obj *o = l->head;
        lm_client_unlink(o);
        if (o->ud) *o->ud = NULL;           /* its userdata dies in lua_close */
        free_fn(o);
    }
    free(l);
}

void lm_connect_args_read(lua_State *L, const lm_client_kind *k, struct worker *w, lm_tls_rec *rec,
                          lm_connect_args *a, void *o) {
    size_t n;
    a->w = w;
    a->address = luaL_checkstring(L, 1);
    const net_tls_opts **tls = k->opts(L, 2, o, &a->pool);
    a->v = lm_current_vu(L, w, k->vu_fname);
    a->tls_on = lm_tls_opts(L, 2, k->fname, rec, &a->tls);
    if (k->tls_scheme && strncmp(a->address, k->tls_scheme, n = strlen(k->tls_scheme)) == 0) {
        a->address += n;                    /* TLS with the defaults */
        a->tls_on = 1;                      /* lm_tls_opts zeroed tls */
        if (a->tls.on_handshake == NULL) lm_tls_rec_hook(rec, &a->tls);
    } else if (k->plain_scheme && strncmp(a->address, k->plain_scheme, n = strlen(k->plain_scheme)) == 0) {
        a->address += n;
    }
    lm_tls_key(&a->tls, a->tls_on, a->tkey, sizeof a->tkey);
    *tls = a->tls_on ? &a->tls : NULL;      /* a outlives the client's creation */
}

/* When pool is set and k's client exists, push its Lua object: 1; else 0. */
static int lm_pooled_push(lua_State *L, const lm_registry *r, const lm_pool_key *k, int pool) {
    const lm_pooled *shared = pool ? lm_registry_find(r, k) : NULL;
    if (shared == NULL) return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, shared->ref);
    return 1;
}

/* With the new client's userdata on top of L: registered under key when
 * pooled (the registry keeps it alive), then its connect begins (on_fail
 * only for a VU's own client: a pooled one keeps retrying). */
static lm_connect *lm_client_connect_begin(lua_State *L, const lm_client_kind *k, lm_registry *r,
                                           const lm_pool_key *key, const lm_connect_args *a, void *obj) {
    if (a->pool) {
        lua_pushvalue(L, -1);
        int ref = luaL_ref(L, LUA_REGISTRYINDEX);
        if (lm_registry_add(r, key, obj, ref) != 0) {
            luaL_unref(L, LUA_REGISTRYINDEX, ref);
            luaL_error(L, "%s: out of memory", k->fname);
        }
    }
    lm_connect *cc = lm_connect_begin(L, a->v, a->pool ? NULL : k->close, obj);
    if (cc == NULL) luaL_error(L, "%s: out of memory", k->fname);
    return cc;
}

/* The new client's object, its userdata pushed; raises when it cannot be made. */
static void *lm_client_new(lua_State *L, const lm_client_kind *k, lm_client_list *list,
                           const lm_connect_args *a, void *o) {
    char err[256];
    lm_client_obj *obj = calloc(1, k->size);
    if (obj == NULL) luaL_error(L, "%s: out of memory", k->fname);
    obj->ud = lm_ud_push(L, obj, k->mt);
    obj->list = list;
    if (k->create(obj, a, o, err, sizeof err) != 0) {
        *obj->ud = NULL;                    /* its collector finds nothing */
        free(obj);
        luaL_error(L, "%s: %s", k->fname, err);
    }
    obj->next = list->head;
    obj->pprev = &list->head;
    if (list->head) list->head->pprev = &obj->next;
    list->head = obj;
    return obj;
}

int lm_client_connect(lua_State *L, const lm_client_kind *k, lm_client_list *list,
                      const lm_pool_key *key, const lm_connect_args *a, void *o) {
    if (lm_pooled_push(L, &list->pool, key, a->pool)) return 1;
    void *obj = lm_client_new(L, k, list, a, o);
    lm_connect *cc = lm_client_connect_begin(L, k, &list->pool, key, a, obj);
    k->connect(obj, cc);
    return lm_connect_wait(L, cc);
}
