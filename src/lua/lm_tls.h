/* lm_tls.h - the `tls` option shared by luamech.memcached.connect,
 * luamech.redis.connect and luamech.http.new, and the automatic handshake
 * timer (<proto>.tls) with its resumption counter (<proto>.tls_resumed). */
#ifndef LUAMECH_LM_TLS_H
#define LUAMECH_LM_TLS_H

#include <lua.h>
#include "net/tls.h"

struct worker;

/* Where a module records handshakes (one per module and worker; lives as
 * long as the worker's clients). */
typedef struct lm_tls_rec {
    struct worker *w;
    const char *proto;        /* "memcached", "redis", "http" */
    int tid, cid;             /* -1 until the first TLS client */
    int no_timer;             /* 1: count resumptions only (the binding times handshakes) */
} lm_tls_rec;

void lm_tls_rec_init(lm_tls_rec *r, struct worker *w, const char *proto);

/* Read field "tls" of the options table at idx (nil/false: off; true: the
 * defaults; a table: ca_file, cert, key, insecure, min_version ("1.2" or
 * "1.3"), server_name, alpn) into *o, with the handshake hook set to rec.
 * Returns 1 when TLS is on.  Bad input raises "FNAME: tls: ..." naming the
 * option.  The strings stay owned by the Lua table (valid while it is on the
 * stack).  Pushes nothing. */
int lm_tls_opts(lua_State *L, int idx, const char *fname, lm_tls_rec *rec, net_tls_opts *o);

/* TLS on with settings made elsewhere (rediss://, https://): record its
 * handshakes to rec. */
void lm_tls_rec_hook(lm_tls_rec *rec, net_tls_opts *o);

/* A short text of the settings for pool keys ("" when off). */
void lm_tls_key(const net_tls_opts *o, int on, char *buf, size_t len);

#endif
