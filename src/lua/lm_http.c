/* lm_http.c - the luamech.http module: luamech.http.new(base_url [, opts])
 * makes a client object (no I/O: connections open with the first requests;
 * its `tls` options serve its https:// base URL and every https origin it
 * reaches by absolute URL or redirect), its methods table, close,
 * collection and the worker's teardown.  The rest of the binding is split by
 * concern (the list is in lm_http_int.h): options, the client registry,
 * building requests, completions, responses and batches.  Every call (its
 * whole redirect chain) is timed under "http.<method>" (and "http <name>"),
 * and counted in "http", the sum of the http.<method> timers;
 * connect, read, write, timeout and body-limit failures return nil, err.
 * The binding never parses bytes (proto/ does, jansson for JSON) nor
 * touches sockets (client/http_client does). */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_client.h"
#include "lua/lm_core.h"
#include "lua/lm_http_int.h"

const char *const lm_http_lower[HP_NMETHODS] = {"get", "head", "post", "put", "delete", "patch", "options"};

/* ---- close, collection, teardown ---- */

static void lm_http_close(lm_http *h) {
    if (!h->client) return;
    http_client *c = h->client;
    h->client = NULL;
    if (!h->pooled) http_client_close(c);   /* in-flight requests fail with "cancelled" */
    while (h->others) {
        lm_http_other *o = h->others;
        h->others = o->next;
        if (!o->pooled) http_client_close(o->client);
        free(o);
    }
}

static void lm_http_free(lm_http *h, lua_State *L) {
    lm_http_mod *mod = h->mod;
    if (h->prev) h->prev->next = h->next;
    else mod->objs = h->next;
    if (h->next) h->next->prev = h->prev;
    if (L && h->headers_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, h->headers_ref);
    if (L && h->tags_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, h->tags_ref);
    ck_jar_free(&h->jar);
    lm_http_tls_free(h);
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

static void lm_http_close_pooled(void *client) { http_client_close(client); }

static void lm_http_worker_close(void *data) {
    lm_http_mod *mod = data;
    mod->closing = 1;                          /* completions from now on resume nobody */
    for (lm_http *h = mod->objs; h; h = h->next) lm_http_close(h);
    lm_registry_clear(&mod->pool, lm_http_close_pooled);
    while (mod->objs) lm_http_free(mod->objs, NULL);   /* their userdata die in lua_close */
    lm_op_pool_free(&mod->ops);               /* every op is back: closing cancelled the rest */
    lm_op_pool_free(&mod->batches);
    free(mod->hblk);
    hz_free(&mod->hz);
    free(mod);
}

/* ---- luamech.http.new ---- */

/* The per-phase timers of every call (connect, TLS, wait, receive, DNS). */
static const char *const lm_http_phase_timers[] = {"http.connect", "http.tls", "http.wait", "http.receive",
                                                   "http.dns"};

void lm_http_timer_names(lm_name_fn fn, void *ctx) {
    fn(ctx, "http");
    for (int m = 0; m < HP_NMETHODS; m++) {
        char name[32];
        snprintf(name, sizeof name, "http.%s", lm_http_lower[m]);
        fn(ctx, name);
    }
    for (size_t i = 0; i < sizeof lm_http_phase_timers / sizeof *lm_http_phase_timers; i++)
        fn(ctx, lm_http_phase_timers[i]);
}

/* The counters of every client, in lm_http_ids's order; then http.status_2xx
 * ... http.status_5xx. */
static const char *const lm_http_counters[] = {"http.bytes_sent", "http.bytes_received", "http.connects",
                                               "http.retries", "http.redirects", "http.body_bytes_raw",
                                               "http.body_bytes_decoded", "http.cookies_dropped"};

static void lm_http_status_counter(int k, char *name, size_t len) { snprintf(name, len, "http.status_%dxx", k); }

void lm_http_counter_names(lm_name_fn fn, void *ctx) {
    for (size_t i = 0; i < sizeof lm_http_counters / sizeof *lm_http_counters; i++) fn(ctx, lm_http_counters[i]);
    for (int k = 2; k <= 5; k++) {
        char name[32];
        lm_http_status_counter(k, name, sizeof name);
        fn(ctx, name);
    }
}

/* The timer and counter ids of the module (once per worker). */
static void lm_http_ids(lm_http_mod *mod) {
    if (mod->ids_ready) return;
    worker *w = mod->w;
    /* "http": every call of the run (k6's http_req_duration), the sum of
     * the http.<method> timers, each call being in one of them */
    int all = lm_timer_id(w, "http", TK_PRIMITIVE);
    for (int m = 0; m < HP_NMETHODS; m++) {
        char name[32];
        snprintf(name, sizeof name, "http.%s", lm_http_lower[m]);
        mod->tid[m] = lm_timer_id(w, name, TK_PRIMITIVE);
        lm_timer_part_of(w, mod->tid[m], all);
    }
    mod->t_connect = lm_timer_id(w, lm_http_phase_timers[0], TK_PRIMITIVE);
    mod->t_tls = lm_timer_id(w, lm_http_phase_timers[1], TK_PRIMITIVE);
    mod->t_wait = lm_timer_id(w, lm_http_phase_timers[2], TK_PRIMITIVE);
    mod->t_receive = lm_timer_id(w, lm_http_phase_timers[3], TK_PRIMITIVE);
    mod->t_dns = lm_timer_id(w, lm_http_phase_timers[4], TK_PRIMITIVE);
    int *const cid[] = {&mod->c_sent, &mod->c_recv, &mod->c_connects, &mod->c_retries, &mod->c_redirects,
                        &mod->c_body_raw, &mod->c_body_decoded, &mod->c_cookies_dropped};
    for (size_t i = 0; i < sizeof cid / sizeof *cid; i++) *cid[i] = worker_counter_id(w, lm_http_counters[i]);
    for (int k = 2; k <= 5; k++) {
        char name[32];
        lm_http_status_counter(k, name, sizeof name);
        mod->c_status[k] = worker_counter_id(w, name);
    }
    mod->ids_ready = 1;
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
    h->version = cfg->version;
    h->max_streams = cfg->max_streams;
    h->headers_ref = cfg->headers_ref;
    h->tags_ref = cfg->tags_ref;
    h->timeout_ns = cfg->timeout_ns;
    h->max_body = cfg->max_body;
    h->discard_body = cfg->discard_body;
    snprintf(h->base, sizeof h->base, "%s", http_client_name(c));
    h->next = mod->objs;
    if (mod->objs) mod->objs->prev = h;
    mod->objs = h;
    h->ud = (lm_http **)lm_ud_push(L, h, LM_HTTP_MT);
}

/* luamech.http.new(base_url [, {pool=, keepalive=, timeout=, headers=,
 * max_body=, discard_body=, jar=, tls=}]) -> client.  Misuse raises (a bad
 * URL or option, a TLS file that cannot be loaded), as memcached.connect and
 * redis.connect do; no I/O here (connections and host look-ups come with the
 * first requests, whose failures return nil, err), so nothing returns nil. */
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
    /* with an http:// base URL the options serve the https origins it reaches */
    lm_tls_opts(L, 2, "luamech.http.new", &mod->tls, &cfg.tls);
    net_tls_opts given = cfg.tls;
    if (bu.tls) lm_tls_rec_hook(&mod->tls, &cfg.tls);
    if (bu.tls && cfg.tls.alpn == NULL) cfg.tls.alpn = "http/1.1";
    cfg.tls_on = bu.tls;
    lm_http_ids(mod);
    http_client *c = NULL;
    char err[256];
    if (lm_http_client_for(mod, host, bu.port, authority, &cfg, &c, err, sizeof err) != 0) {
        if (cfg.headers_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, cfg.headers_ref);
        if (cfg.tags_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, cfg.tags_ref);
        return luaL_error(L, "luamech.http.new: %s", err);
    }
    lm_http_wrap(L, mod, c, &cfg);
    lm_http *h = *(lm_http **)lua_touserdata(L, -1);
    snprintf(h->authority, sizeof h->authority, "%s", authority);
    snprintf(h->host, sizeof h->host, "%s", host);
    h->tls = bu.tls;
    h->port = bu.port;
    h->use_jar = cfg.jar;
    h->ncred = cfg.ncred;
    memcpy(h->cred, cfg.cred, sizeof h->cred);
    if (lm_http_tls_copy(h, &given) != 0) return luaL_error(L, "luamech.http.new: out of memory");
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
    static const luaL_Reg meta[] = {{"__gc", lm_http_gc}, {"__tostring", lm_http_tostring}, {NULL, NULL}};
    lm_client_type(L, LM_HTTP_MT, methods, meta, NULL);

    lm_http_mod *mod = calloc(1, sizeof *mod);
    if (mod == NULL) luaL_error(L, "luamech.http: out of memory");
    mod->w = w;
    lm_op_pool_init(&mod->ops, sizeof(lm_http_op), lm_http_op_results, lm_http_op_fini);
    lm_op_pool_init(&mod->batches, sizeof(lm_http_batch), lm_http_batch_push, NULL);
    hz_init(&mod->hz);
    lm_tls_rec_init(&mod->tls, w, "http");
    mod->tls.no_timer = 1;         /* http.tls is recorded per request from req->tls_ns */
    lua_newtable(L);
    mod->names_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    mod->tagged_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lm_http_res_init(L, mod);
    worker_on_close(w, lm_http_worker_close, mod);
    lua_newtable(L);                           /* the module */
    lua_pushlightuserdata(L, mod);
    lua_pushcclosure(L, lm_http_new, 1);
    lua_setfield(L, -2, "new");
}
