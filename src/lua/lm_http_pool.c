/* lm_http_pool.c - which http_client serves an origin for luamech.http: a
 * private client per object, or with pool = true the worker's shared one for
 * the same host, port, keep-alive and TLS settings; and the clients an
 * object makes on first use for other hosts (absolute URLs, redirects).  It
 * makes clients (client/http_client resolves and connects) but sends
 * nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lm_http_int.h"

/* A private client, or the worker's pooled one for this host, port and
 * keep-alive setting (made on first use).  0, or -1 with err filled. */
int lm_http_client_for(lm_http_mod *mod, const char *host, int port, const char *authority,
                              const lm_http_cfg *cfg, http_client **out, char *err, size_t err_len) {
    http_client_opts o;
    http_client_opts_default(&o);
    o.keepalive = cfg->keepalive;
    o.timeout_ns = 0;                          /* every request carries its own */
    o.tls = cfg->tls_on ? &cfg->tls : NULL;
    if (!cfg->pool) return http_client_new(worker_loop(mod->w), host, port, authority, &o, out, err, err_len);
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
    if (http_client_new(worker_loop(mod->w), host, port, authority, &o, out, err, err_len) != 0) {
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
http_client *lm_http_client_host(lm_http *h, const char *authority, size_t alen, char *err,
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
const char *lm_http_host_of(lm_http *h, http_client *c) {
    for (lm_http_other *o = h->others; o; o = o->next)
        if (o->client == c) return o->host;
    return h->host;
}
