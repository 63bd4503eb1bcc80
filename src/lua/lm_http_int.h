/* lm_http_int.h - what the files of the luamech.http binding share: the
 * per-worker module state, the client object, the per-request op, the batch,
 * and the functions one file calls in another.  Not a public interface:
 * only src/lua/lm_http*.c include it.
 *
 *   lm_http.c        luamech.http.new, the object's methods table, close,
 *                    collection and worker teardown
 *   lm_http_opts.c   checking options (new's and every request's)
 *   lm_http_pool.c   which http_client serves an origin (pooled, others)
 *                    and the pool key of a shared one
 *   lm_http_req.c    building and sending one request (the methods)
 *   lm_http_op.c     the per-request op (on lua/lm_op), its buffers, its cookies
 *   lm_http_done.c   a hop's completion: statistics, redirects, decoding
 *   lm_http_res.c    the response table and its lazy fields
 *   lm_http_tags.c   per-request tags and the tagged timers they select
 *   lm_http_batch.c  c:batch */
#ifndef LUAMECH_LM_HTTP_INT_H
#define LUAMECH_LM_HTTP_INT_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "client/http_client.h"
#include "engine/vu_api.h"
#include "stats/tally.h"
#include "lua/lm_op.h"
#include "lua/lm_tls.h"
#include "proto/cookie.h"
#include "proto/http_gzip.h"

struct vu;
struct worker;

#define LM_HTTP_MT "luamech.http"
#define LM_HTTP_MAX_HEADERS 64
#define LM_HTTP_DEFAULT_TIMEOUT_NS CLIENT_TIMEOUT_DEFAULT_NS
#define LM_HTTP_MAX_BODY_LIMIT (1u << 30)   /* the largest max_body a script may set */
#define LM_HTTP_EXTRA_HEADERS 4              /* Content-Type, Cookie, ... added by luamech */
#define LM_HTTP_MAX_REDIRECTS 100
#define LM_HTTP_MAX_OTHERS 64                /* other origins an object keeps clients for (idle ones) */
#define LM_HTTP_MAX_POOLED 256               /* pooled clients a worker makes for other origins */
#define LM_HTTP_DEFAULT_REDIRECTS 10
#define LM_HTTP_MAX_BATCH 256
#define LM_HTTP_MAX_TAGS 16                  /* per request, the client's included */
#define LM_HTTP_TAG_LEN 64                   /* bytes of a tag's name or value */
#define LM_HTTP_CRED_MAX 16                  /* names in a credential_headers list */
#define LM_HTTP_CRED_LEN 64                  /* bytes of such a name */
#define LM_HTTP_EREFUSED (-32100)            /* a redirect refused (scheme, downgrade): op->err says why */

typedef struct lm_http lm_http;
typedef struct lm_http_op lm_http_op;

/* One c:batch call, an lm_op whose requests are its own ops: the VU
 * resumes when the last completes (or the call returns at once when all
 * completed in it).  Its anchor holds {client object, request list}. */
typedef struct lm_http_batch {
    lm_op core;                    /* first (lua/lm_op.h); pending: requests not done */
    int n;                         /* requests */
    int issued;                    /* requests sent (or failed at once) */
    int res_ref, err_ref;          /* registry: results[i] (response or false), errors[i];
                                    * LUA_NOREF once handed over or let go */
} lm_http_batch;

/* The module's per-worker state. */
typedef struct lm_http_mod {
    struct worker *w;
    lm_http *objs;                 /* every live object, for teardown */
    lm_registry pool;              /* the clients of pool = true objects (lm_http_pool_key) */
    int npooled_others;            /* of them, made for other origins: LM_HTTP_MAX_POOLED at most */
    lm_op_pool ops;                /* lm_http_op */
    lm_op_pool batches;            /* lm_http_batch */
    int names_ref;                 /* "http <name>" -> timer id cache */
    int tagged_ref;                /* "<timer>{k=v,...}" -> tagged timer id cache */
    int ids_ready;
    int tid[HP_NMETHODS];
    int t_connect, t_tls, t_wait, t_receive;   /* the timing breakdown (docs/http.md#timing-breakdown) */
    int t_dns;                     /* http.dns: one sample per request that waited for a host name lookup */
    int c_sent, c_recv, c_connects, c_retries, c_status[6], c_redirects, c_body_raw, c_body_decoded;
    int c_cookies_dropped;         /* http.cookies_dropped */
    int cookies_warned;            /* the tally's one message about them was given */
    hz_decoder hz;                 /* gzip/deflate bodies, decoded on completion */
    int res_mt_ref;                /* metatable of responses (lazy headers, body_bytes, json, header_all) */
    int res_mt_h2_ref;             /* the same for HTTP/2 responses (their proto) */
    int key_status_ref, key_body_ref, key_bytes_ref, key_redirects_ref;  /* field names, interned once */
    char *hblk;                    /* scratch for packing response headers */
    size_t hblk_cap;
    int closing;
    lm_tls_rec tls;                /* http.tls timer of this worker */
} lm_http_mod;

/* A client of the object for another origin (absolute URLs, redirects). */
typedef struct lm_http_other {
    char authority[288];           /* as the URL wrote it: the Host header */
    char host[256];                /* for the cookie jar */
    int tls, port;                 /* the origin: scheme (1: https), host, port */
    http_client *client;           /* private, or the worker's pooled one */
    int pooled;                    /* 1: the worker's (not closed with the object) */
    uint64_t id;                   /* its number in the object (1, 2, ...; never reused) */
    struct lm_http_other *next;    /* the next less recently used */
} lm_http_other;

/* The object's own copy of its `tls` options (NULL: not given), applied
 * to every https origin it reaches; server_name only to its base URL's. */
typedef struct lm_http_tls {
    char *ca_file, *cert_file, *key_file, *server_name, *alpn;
    int insecure, min_version;
} lm_http_tls;

/* One client object as Lua sees it.  The userdata holds a pointer; the
 * object is freed by the collector (no request can be in flight then: each
 * request anchors it) or at teardown. */
struct lm_http {
    lm_http_mod *mod;
    http_client *client;           /* private or the pool's; NULL once closed */
    int pooled, keepalive;
    char base[288];                /* "host:port", for messages */
    char authority[288];           /* as in the base URL: "host[:port]" */
    char host[256];                /* the base URL's host, for the cookie jar */
    int tls, port;                 /* the base URL's scheme (1: https) and port */
    lm_http_tls tlsc;              /* for https origins */
    lm_http_other *others;         /* clients for other origins, made on first use,
                                    * most recently used first */
    int nothers;                   /* in others: LM_HTTP_MAX_OTHERS, more only while busy */
    uint64_t others_seq;           /* the last other's id */
    int use_jar;                   /* jar = false turns cookies off */
    int ncred;                     /* credential_headers of new (besides Authorization, ...) */
    char cred[LM_HTTP_CRED_MAX][LM_HTTP_CRED_LEN + 1];
    ck_jar jar;                    /* this object's cookies (one object per VU: a per-VU jar) */
    int headers_ref;               /* default headers (validated copy) or LUA_NOREF */
    int tags_ref;                  /* default tags (validated copy) or LUA_NOREF */
    uint64_t timeout_ns;           /* 0 = none */
    size_t max_body;               /* bytes */
    int discard_body;
    int version;                   /* lm_http_cfg's, for the clients of other origins */
    unsigned max_streams;
    lm_http *prev, *next;
    lm_http **ud;
};

struct lm_http_op {
    lm_op core;                    /* first (lua/lm_op.h): VU, start, anchor {object, body} */
    http_req req;
    lm_http_mod *mod;
    lm_http *h;
    int method, call_method;       /* the current hop's; the call's (its timer) */
    int name_tid;                  /* -1 when the call has no name */
    int tag_tid;                   /* the call's tagged timer; -1 when it has no tags */
    int nres;                      /* results pushed by the completion */
    int redirects_left, hops;
    int has_expect;                /* 0: 200-399 */
    int decoded;                   /* the body pushed is mod->hz.out */
    lm_http_batch *batch;          /* NULL unless part of c:batch */
    int batch_i;                   /* its index there (1-based) */
    const char *host;              /* the current hop's host (h's or one of h->others') */
    int tls;                       /* the current hop is https (Secure cookies, "//host" Locations) */
    size_t nbase;                  /* headers before the Cookie slot */
    size_t ncred;                  /* hdrs[0..ncred): credentials, sent to the origin only */
    uint64_t origin;               /* the origin the credentials were set for (lm_http_host_of's id) */
    int foreign;                   /* the current hop is on another origin (no credentials) */
    int allow_downgrade;           /* an https -> http redirect may be followed */
    int cookie_slot;               /* 1: the jar's Cookie header goes at hdrs[nbase] */
    char *cbuf;                    /* the Cookie header value */
    size_t cbuf_cap;
    unsigned char expect[64];      /* bit s-100 for statuses 100..599 */
    uint64_t setup_ns;             /* connect + TLS handshake time of the call's hops (kept out of its timers) */
    char where[160];               /* the path without its query, for the tally */
    http_client *client;           /* alive while it may call back: names failures */
    hp_request r;                  /* the request as sent (pointers into the buffers below) */
    hp_header hdrs[LM_HTTP_MAX_HEADERS + LM_HTTP_EXTRA_HEADERS];
    char *path;                    /* the current hop's path (and query) */
    size_t path_len, path_cap;
    char *hbuf;                    /* header names and values, copied */
    size_t hbuf_cap;
    char *bbuf;                    /* an encoded json or form body */
    size_t bbuf_cap;
    char err[TALLY_MSG_MAX];       /* the failure message */
};

/* The options of luamech.http.new. */
typedef struct lm_http_cfg {
    int pool, keepalive, headers_ref, tags_ref, discard_body, jar;
    int ncred;                    /* credential_headers: names, lowercased */
    char cred[LM_HTTP_CRED_MAX][LM_HTTP_CRED_LEN + 1];
    int tls_on;                   /* https:// */
    net_tls_opts tls;             /* strings anchored by the options table */
    uint64_t timeout_ns;
    uint64_t connect_timeout_ns;  /* 0: the request's timeout covers connecting */
    uint64_t dns_ttl_ns;          /* dns = { ttl = s }: UINT64_MAX once, 0 every new connection */
    size_t max_body;
    int version;                  /* http = "auto" (LM_HTTP_AUTO), "1.1" (HTTP_V1), "2" (HTTP_V2) */
    unsigned max_streams;         /* HTTP/2 streams per connection; 0: 100 */
} lm_http_cfg;

#define LM_HTTP_AUTO 0

/* The options of one request, read and checked before any op is taken
 * (stack indexes of the values that must stay anchored). */
typedef struct lm_http_call {
    uint64_t timeout_ns;
    size_t max_body;
    int discard_body, name_idx, hdr_idx, json_idx, form_idx, query_idx, body_str_idx, tags_idx;
    int redirects, has_expect;
    int cred_idx;                 /* credential_headers (a list of names), 0: none */
    int allow_downgrade;
    unsigned char expect[64];
    const char *body;
    size_t body_len;
} lm_http_call;

/* "get", "head", ... by hp_method (timer names, messages). */
extern const char *const lm_http_lower[HP_NMETHODS];

/* 1 when a[0..alen) equals b[0..blen) ignoring ASCII case. */
static inline int lm_http_ieq(const char *a, size_t alen, const char *b, size_t blen) {
    if (alen != blen) return 0;
    for (size_t i = 0; i < alen; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
    }
    return 1;
}

/* lm_http_opts.c */
void lm_http_new_opts(lua_State *L, int idx, lm_http_cfg *cfg);
void lm_http_call_opts(lua_State *L, lm_http *h, const char *fname, int body_idx, int opts_idx,
                       lm_http_call *c);
void lm_http_headers(lua_State *L, int idx, const char *fname, hp_header *hdrs, size_t *nh, int defaults);
void lm_http_check_tags(lua_State *L, int idx, const char *fname, int client);
int lm_http_cred_opt(lua_State *L, int idx, const char *fname, char (*names)[LM_HTTP_CRED_LEN + 1]);

/* lm_http_tags.c */
int lm_http_tag_tid(lua_State *L, lm_http *h, const lm_http_call *c, int method);

/* lm_http_pool.c */
void lm_http_pool_key(const char *authority, int port, const lm_http_cfg *cfg, char *tkey, size_t tkey_len,
                      lm_pool_key *key);
int lm_http_client_for(lm_http_mod *mod, const char *host, int port, const char *authority,
                       const lm_http_cfg *cfg, http_client **out, char *err, size_t err_len);
http_client *lm_http_client_host(lm_http *h, int tls, const char *authority, size_t alen, char *err,
                                 size_t err_len);
http_client *lm_http_client_host_keep(lm_http *h, int tls, const char *authority, size_t alen,
                                      const http_client *keep, char *err, size_t err_len);
const char *lm_http_host_of(lm_http *h, http_client *c, int *tls, uint64_t *id);
int lm_http_tls_copy(lm_http *h, const net_tls_opts *t);
void lm_http_tls_free(lm_http *h);

/* lm_http_op.c */
lm_http_op *lm_http_op_get(lua_State *L, lm_http_mod *mod);
int lm_http_op_results(lm_op *core, lua_State *L);
void lm_http_op_fini(lm_op *core);
void lm_http_cookie_header(lm_http_op *op);
void lm_http_store_cookies(lm_http_op *op, int status, const hp_parser *res);
void lm_http_cookies_dropped(lm_http_mod *mod, uint64_t n);

/* lm_http_req.c */
lm_http_op *lm_http_start(lua_State *L, lm_http *h, int method, const char *fname, int path_idx,
                          int body_idx, int opts_idx, lm_http_batch *b, int bi, int *nres,
                          int *body_str_idx);
lm_http *lm_http_check(lua_State *L);
/* Timer ids cached in the registry table ref under the string at key_idx
 * (an absolute index): the id, or -1 when not cached yet; and caching one. */
int lm_http_tid_cached(lua_State *L, int ref, int key_idx);
void lm_http_tid_cache(lua_State *L, int ref, int key_idx, int id);
int lm_http_request(lua_State *L);
int lm_http_get(lua_State *L);
int lm_http_head(lua_State *L);
int lm_http_post(lua_State *L);
int lm_http_put(lua_State *L);
int lm_http_patch(lua_State *L);
int lm_http_delete(lua_State *L);
int lm_http_options(lua_State *L);

/* lm_http_done.c */
void lm_http_on_done(http_req *req, int status, const hp_parser *res);

/* lm_http_res.c */
int lm_http_is_set_cookie(const char *n, size_t nl);
int lm_http_push(lm_http_op *op, lua_State *L, int status, const hp_parser *res);
void lm_http_res_init(lua_State *L, lm_http_mod *mod);

/* lm_http_batch.c */
void lm_http_batch_store(lua_State *L, lm_http_batch *b, int i, int nres);
void lm_http_batch_done(lm_http_op *op, int status, const hp_parser *res);
int lm_http_batch_push(lm_op *core, lua_State *L);
int lm_http_batch_lua(lua_State *L);

#endif
