/* lm_http_op.c - the per-request op of luamech.http on the bindings' one
 * operation pattern (lua/lm_op.h: the worker's pool of ops, the wait and
 * resume, the anchor of the client object and body in flight): its binding
 * part reset on reuse, its growable buffers, and the cookie jar's part of a
 * hop (the Cookie header sent, the Set-Cookie headers stored).  It does not
 * build or send requests (lm_http_req.c) nor parse cookies (proto/cookie). */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lua/lm_core.h"
#include "lua/lm_http_int.h"

/* An op of the module's pool (lua/lm_op.h), its binding part reset; the
 * buffers it grew on earlier requests are kept.  Raises when out of memory. */
lm_http_op *lm_http_op_get(lua_State *L, lm_http_mod *mod) {
    lm_http_op *op = (lm_http_op *)lm_op_get(&mod->ops);
    if (op == NULL) luaL_error(L, "luamech.http: out of memory");
    memset(&op->req, 0, sizeof op->req);
    op->mod = mod;
    op->h = NULL;
    op->client = NULL;
    op->method = op->call_method = op->nres = 0;
    op->redirects_left = op->hops = op->has_expect = op->decoded = 0;
    op->batch = NULL;
    op->batch_i = 0;
    op->name_tid = op->tag_tid = -1;
    op->setup_ns = 0;
    op->where[0] = op->err[0] = 0;
    return op;
}

/* The pool's push (lua/lm_op.h): the results were pushed by the
 * completion (lm_http_done.c), above the op's base. */
int lm_http_op_results(lm_op *core, lua_State *L) {
    (void)L;
    return ((lm_http_op *)core)->nres;
}

/* The pool's fini: the buffers a pooled op owns. */
void lm_http_op_fini(lm_op *core) {
    lm_http_op *op = (lm_http_op *)core;
    free(op->cbuf);
    free(op->path);
    free(op->hbuf);
    free(op->bbuf);
}

/* n cookies lost to the jar's limits (or a Cookie header too long to
 * send): counted in http.cookies_dropped, and said once per worker in the
 * error tally. */
void lm_http_cookies_dropped(lm_http_mod *mod, uint64_t n) {
    static const char msg[] = "http: cookies dropped: the jar keeps 50 per domain, 3000 per client, 4096 bytes "
                              "each (every one counted in http.cookies_dropped)";
    worker_count(mod->w, mod->c_cookies_dropped, (int64_t)n);
    if (mod->cookies_warned) return;
    mod->cookies_warned = 1;
    worker_error(mod->w, msg, sizeof msg - 1);
}

/* The Set-Cookie headers of a hop's response into the object's jar. */
void lm_http_store_cookies(lm_http_op *op, int status, const hp_parser *res) {
    if (status != 0 || !op->h->use_jar) return;
    uint64_t dropped = op->h->jar.dropped;
    int64_t now = -1;
    for (size_t i = 0; i < res->nheaders; i++) {
        if (res->hdrs[i].name_len != 10) continue;   /* not "set-cookie": no need to look */
        const char *n, *v;
        size_t nl, vl;
        hp_parser_header(res, i, &n, &nl, &v, &vl);
        if (!lm_http_is_set_cookie(n, nl)) continue;
        if (now < 0) now = (int64_t)time(NULL);
        ck_jar_set(&op->h->jar, v, vl, op->host, op->path, op->path_len, now);   /* -1 (memory): not kept */
    }
    if (op->h->jar.dropped != dropped) lm_http_cookies_dropped(op->mod, op->h->jar.dropped - dropped);
}

/* The headers of the current hop: the script's (less the credentials on
 * another origin than the one they were set for) and the jar's Cookie
 * (none when the jar is off, empty for this URL, or the script set Cookie
 * itself for this origin). */
void lm_http_cookie_header(lm_http_op *op) {
    size_t skip = op->foreign ? op->ncred : 0;
    op->r.headers = op->hdrs + skip;
    op->r.nheaders = op->nbase - skip;
    int slot = op->foreign ? op->h->use_jar : op->cookie_slot;
    if (!slot || op->h->jar.n == 0) return;
    int64_t now = (int64_t)time(NULL);
    size_t n = ck_jar_header(&op->h->jar, op->host, op->path, op->path_len, op->tls, now, op->cbuf, op->cbuf_cap);
    if (n > op->cbuf_cap) {
        if (lm_buf_reserve(&op->cbuf, &op->cbuf_cap, n) != 0) return;
        n = ck_jar_header(&op->h->jar, op->host, op->path, op->path_len, op->tls, now, op->cbuf, op->cbuf_cap);
    }
    if (n == 0) return;
    if (n > HP_COOKIE_MAX) {                   /* more than the encoder takes: none sent, counted */
        lm_http_cookies_dropped(op->mod, 1);
        return;
    }
    op->hdrs[op->nbase].name = "Cookie";
    op->hdrs[op->nbase].name_len = 6;
    op->hdrs[op->nbase].value = op->cbuf;
    op->hdrs[op->nbase].value_len = n;
    op->r.nheaders++;
}
