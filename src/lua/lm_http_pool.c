/* lm_http_pool.c - which http_client serves an origin (scheme, host, port)
 * for luamech.http: a private client per object, or with pool = true the
 * worker's shared one from the bindings' registry (lua/lm_op.h) under one
 * key rule (lm_http_pool_key: origin, keep-alive, TLS settings);
 * the clients an object makes on first use for other origins (absolute
 * URLs, redirects to another host or scheme), https ones with the object's
 * TLS settings (copied here from its options), at most LM_HTTP_MAX_OTHERS
 * of them idle (the least recently used idle one is closed for a new one).  It makes clients
 * (client/http_client resolves and connects) but sends nothing. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_http_int.h"

/* A new client (see http_client_new: names are looked up when it connects). */
static int lm_http_client_make(lm_http_mod *mod, const char *host, int port, const char *authority,
                               const http_client_opts *o, http_client **out, char *err, size_t err_len) {
    return http_client_new(worker_loop(mod->w), host, port, authority, o, out, err, err_len);
}

/* The one key rule of pooled clients (lua/lm_op.h) for http: everything
 * that changes what a connection does.  The origin is the authority as the
 * URL wrote it (host, and the port when written: the Host header sent) and
 * the port; the scheme and every TLS option are tkey (lm_tls_key: "" for
 * http://); keep-alive is opt[0], the pool flag opt[1] (only pooled clients
 * are registered: always 1 there), the port opt[2], dns.ttl opt[3], http
 * (the version) opt[4], max_streams opt[5].  Request timeouts are per request
 * (http_req.timeout_ns), not the client's: its timeout_ns is 0.  tkey is
 * the caller's buffer the key points into; connect_timeout is the client's. */
void lm_http_pool_key(const char *authority, int port, const lm_http_cfg *cfg, char *tkey, size_t tkey_len,
                      lm_pool_key *key) {
    lm_tls_key(&cfg->tls, cfg->tls_on, tkey, tkey_len);
    memset(key, 0, sizeof *key);
    key->address = authority;
    key->opt[0] = cfg->keepalive;
    key->opt[1] = cfg->pool;
    key->opt[2] = port;
    key->opt[3] = (int64_t)(cfg->dns_ttl_ns > INT64_MAX ? INT64_MAX : cfg->dns_ttl_ns);   /* dns.ttl */
    key->opt[4] = cfg->version;
    key->opt[5] = cfg->max_streams;
    key->connect_timeout_ns = cfg->connect_timeout_ns;
    key->tls = tkey;
}

/* The protocol a client speaks: "2" is HTTP/2 (h2c with prior knowledge
 * on http://, ALPN h2 required on https://); "1.1" HTTP/1.1; "auto" is
 * ALPN's choice on https:// (client/http_client.h: HTTP_VAUTO) and
 * HTTP/1.1 on http://. */
static int lm_http_version_for(const lm_http_cfg *cfg) {
    if (cfg->version == LM_HTTP_AUTO) return cfg->tls_on ? HTTP_VAUTO : HTTP_V1;
    return cfg->version;
}

/* A private client, or the worker's pooled one for this key (made on
 * first use).  0, or -1 with err filled. */
int lm_http_client_for(lm_http_mod *mod, const char *host, int port, const char *authority,
                       const lm_http_cfg *cfg, http_client **out, char *err, size_t err_len) {
    http_client_opts o;
    http_client_opts_default(&o);
    o.keepalive = cfg->keepalive;
    o.timeout_ns = 0;                          /* every request carries its own */
    o.connect_timeout_ns = cfg->connect_timeout_ns;
    o.tls = cfg->tls_on ? &cfg->tls : NULL;
    o.dns_ttl_ns = cfg->dns_ttl_ns;
    o.version = lm_http_version_for(cfg);
    o.max_streams = cfg->max_streams;
    if (!cfg->pool) return lm_http_client_make(mod, host, port, authority, &o, out, err, err_len);
    char tkey[1200];
    lm_pool_key key;
    lm_http_pool_key(authority, port, cfg, tkey, sizeof tkey, &key);
    const lm_pooled *shared = lm_registry_find(&mod->pool, &key);
    if (shared) {
        *out = shared->client;
        return 0;
    }
    if (lm_http_client_make(mod, host, port, authority, &o, out, err, err_len) != 0) return -1;
    if (lm_registry_add(&mod->pool, &key, *out, LUA_NOREF) != 0) {
        http_client_close(*out);
        *out = NULL;
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    return 0;
}

/* The TLS settings of object h for an https origin (base: its own base
 * URL's, where server_name applies; other hosts are verified against their
 * own name), recorded to the module's http.tls_resumed counter. */
static void lm_http_tls_for(lm_http *h, int base, net_tls_opts *o) {
    const lm_http_tls *t = &h->tlsc;
    memset(o, 0, sizeof *o);
    o->ca_file = t->ca_file;
    o->cert_file = t->cert_file;
    o->key_file = t->key_file;
    o->server_name = base ? t->server_name : NULL;
    o->alpn = t->alpn ? t->alpn : "http/1.1";
    o->insecure = t->insecure;
    o->min_version = t->min_version ? t->min_version : 12;
    lm_tls_rec_hook(&h->mod->tls, o);
}

/* 1 when the origin (tls, host, port) is that of client c of object h
 * (its base origin when o is NULL, else other o). */
static int lm_http_same_origin(const lm_http *h, const lm_http_other *o, int tls, const char *host,
                               size_t host_len, int port) {
    const char *oh = o ? o->host : h->host;
    if ((o ? o->tls : h->tls) != tls || (o ? o->port : h->port) != port) return 0;
    return lm_http_ieq(host, host_len, oh, strlen(oh));
}

/* Close (when private) and free other origin o of object h, unlinked. */
static void lm_http_other_free(lm_http *h, lm_http_other *o) {
    if (!o->pooled) http_client_close(o->client);
    free(o);
    h->nothers--;
}

/* Make room for one more other origin of object h: while it has
 * LM_HTTP_MAX_OTHERS or more, the least recently used one that has no
 * request in flight (nor is `keep`, the client of a hop being completed)
 * is closed.  None idle: the list grows past the cap until some are. */
static void lm_http_others_trim(lm_http *h, const http_client *keep) {
    while (h->nothers >= LM_HTTP_MAX_OTHERS) {
        lm_http_other **victim = NULL;
        for (lm_http_other **pp = &h->others; *pp; pp = &(*pp)->next)
            if ((*pp)->client != keep && http_client_pending((*pp)->client) == 0) victim = pp;
        if (!victim) return;
        lm_http_other *o = *victim;
        *victim = o->next;
        lm_http_other_free(h, o);
    }
}

/* Other origin o's client: the worker's pooled one for a pooled object,
 * made and registered while the worker has fewer than LM_HTTP_MAX_POOLED
 * for other origins; past that (a server redirecting to ever new origins)
 * a private one, closed with the object or by lm_http_others_trim, so
 * that connections stay bounded.  0, or -1 with err. */
static int lm_http_other_client(lm_http_mod *mod, lm_http_other *o, int port, lm_http_cfg *cfg, char *err,
                                size_t err_len) {
    int fresh = 0;
    if (cfg->pool) {
        char tkey[1200];
        lm_pool_key key;
        lm_http_pool_key(o->authority, port, cfg, tkey, sizeof tkey, &key);
        int known = lm_registry_find(&mod->pool, &key) != NULL;
        if (!known && mod->npooled_others >= LM_HTTP_MAX_POOLED) cfg->pool = 0;
        fresh = cfg->pool && !known;
    }
    o->pooled = cfg->pool;
    if (lm_http_client_for(mod, o->host, port, o->authority, cfg, &o->client, err, err_len) != 0) return -1;
    mod->npooled_others += fresh;
    return 0;
}

/* A new client of object h for origin bu (authority as the URL wrote it),
 * kept first in h->others.  NULL with err. */
static lm_http_other *lm_http_other_new(lm_http *h, const hp_base_url *bu, const char *authority, size_t alen,
                                        char *err, size_t err_len) {
    lm_http_other *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    memcpy(o->host, bu->host, bu->host_len);
    o->host[bu->host_len] = 0;
    snprintf(o->authority, sizeof o->authority, "%.*s", (int)alen, authority);
    o->tls = bu->tls;
    o->port = bu->port;
    o->id = ++h->others_seq;
    lm_http_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.pool = h->pooled;
    cfg.keepalive = h->keepalive;
    cfg.version = h->version;
    cfg.max_streams = h->max_streams;
    cfg.tls_on = bu->tls;
    if (bu->tls) lm_http_tls_for(h, 0, &cfg.tls);
    if (lm_http_other_client(h->mod, o, bu->port, &cfg, err, err_len) != 0) {
        free(o);
        return NULL;
    }
    o->next = h->others;
    h->others = o;
    h->nothers++;
    return o;
}

/* The other origin (tls, host, port) of object h, moved to the front of
 * h->others (most recently used first), or NULL. */
static lm_http_other *lm_http_other_find(lm_http *h, int tls, const char *host, size_t host_len, int port) {
    for (lm_http_other **pp = &h->others; *pp; pp = &(*pp)->next) {
        lm_http_other *o = *pp;
        if (!lm_http_same_origin(h, o, tls, host, host_len, port)) continue;
        *pp = o->next;
        o->next = h->others;
        h->others = o;
        return o;
    }
    return NULL;
}

/* The client of object h for origin scheme (tls 1: https) + "host[:port]"
 * (absolute URLs, redirects): h's own for its base origin, else one made
 * on first use (from the worker's pool when h is pooled) with h's
 * keep-alive and TLS settings, the least recently used idle one closed
 * when h already has LM_HTTP_MAX_OTHERS (lm_http_others_trim; keep: a
 * client not to close).  The origin's key is scheme, host (any case) and
 * port.  NULL with err. */
http_client *lm_http_client_host_keep(lm_http *h, int tls, const char *authority, size_t alen,
                                      const http_client *keep, char *err, size_t err_len) {
    char url[300];
    if (alen >= 256) {
        snprintf(err, err_len, "host name too long");
        return NULL;
    }
    int ul = snprintf(url, sizeof url, "%s://%.*s", tls ? "https" : "http", (int)alen, authority);
    hp_base_url bu;
    const char *why;
    if (hp_parse_base_url(url, (size_t)ul, &bu, &why) != 0) {
        snprintf(err, err_len, "bad URL \"%.150s\": %s", url, why);
        return NULL;
    }
    if (memchr(bu.host, '%', bu.host_len)) {     /* "127.0.0.%32": a name no resolver takes */
        snprintf(err, err_len, "bad URL \"%.150s\": '%%' in the host", url);
        return NULL;
    }
    if (lm_http_same_origin(h, NULL, tls, bu.host, bu.host_len, bu.port)) return h->client;
    lm_http_other *o = lm_http_other_find(h, tls, bu.host, bu.host_len, bu.port);
    if (o) return o->client;
    lm_http_others_trim(h, keep);
    o = lm_http_other_new(h, &bu, authority, alen, err, err_len);
    return o ? o->client : NULL;
}

http_client *lm_http_client_host(lm_http *h, int tls, const char *authority, size_t alen, char *err,
                                 size_t err_len) {
    return lm_http_client_host_keep(h, tls, authority, alen, NULL, err, err_len);
}

/* The host name (for cookies) of client c of object h, in *tls whether it
 * speaks https, in *id its origin's number in h (0: the base URL's; the
 * others' are never reused, even after one was closed). */
const char *lm_http_host_of(lm_http *h, http_client *c, int *tls, uint64_t *id) {
    for (lm_http_other *o = h->others; o; o = o->next)
        if (o->client == c) {
            *tls = o->tls;
            *id = o->id;
            return o->host;
        }
    *tls = h->tls;
    *id = 0;
    return h->host;
}

/* Object h's own copy of its TLS settings t (the Lua strings die with the
 * options table).  0, or -1 (out of memory). */
int lm_http_tls_copy(lm_http *h, const net_tls_opts *t) {
    lm_http_tls *c = &h->tlsc;
    c->insecure = t->insecure;
    c->min_version = t->min_version;
    const char *src[5] = {t->ca_file, t->cert_file, t->key_file, t->server_name, t->alpn};
    char **dst[5] = {&c->ca_file, &c->cert_file, &c->key_file, &c->server_name, &c->alpn};
    for (int i = 0; i < 5; i++)
        if (src[i] && (*dst[i] = strdup(src[i])) == NULL) return -1;
    return 0;
}

void lm_http_tls_free(lm_http *h) {
    lm_http_tls *c = &h->tlsc;
    free(c->ca_file);
    free(c->cert_file);
    free(c->key_file);
    free(c->server_name);
    free(c->alpn);
}
