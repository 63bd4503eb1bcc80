/* lm_op.h - the one operation pattern of the bindings (memcached, redis,
 * http, ws, grpc): a free-listed op per request or batch, started inside the
 * Lua call, completed either inside that call (the client failed at once: the
 * call returns the results) or later from the loop (the results are pushed on
 * the VU's stack and the VU is resumed through vu_resume), and given back to
 * its pool either way.  A binding embeds lm_op first in its own op struct and
 * gives its pool one push function (what the call returns).  Also the
 * registry of pooled clients (lm_registry), keyed by a canonical struct, one
 * per worker and module.  Only engine/vu_api.h is used
 * (tests/unit/test_lm_op.c runs all of it on a fake engine). */
#ifndef LUAMECH_LM_OP_H
#define LUAMECH_LM_OP_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/vu_api.h"

typedef struct lm_op lm_op;
typedef struct lm_op_pool lm_op_pool;
/* Push op's results on L (the calling or the resumed coroutine); returns
 * how many.  Values pushed while the op ran sit above op->base. */
typedef int (*lm_op_push_fn)(lm_op *op, lua_State *L);

struct lm_op {
    lm_op *next_free;
    lm_op_pool *pool;
    vu *v;                  /* the VU that waits for it */
    int in_call;            /* completing inside the Lua call: return, don't resume */
    int base;               /* stack top before the results (inside the call) */
    int pending;            /* requests not yet done */
    uint64_t start_ns;      /* the clock read the requests' deadlines start from */
    /* Last (lm_op_get zeroes the fields above anchor only): the registry
     * slots of lm_op_anchor's object and value (0: none yet) and which of
     * them hold one (bits 1, 2), kept across reuse; the slots die with the
     * Lua state. */
    int anchor;
    int anchor_val;
    unsigned anchor_held;
};

struct lm_op_pool {
    lm_op *free;
    size_t size;            /* bytes of one op: the binding's struct, lm_op first */
    lm_op_push_fn push;
    void (*fini)(lm_op *op);   /* frees what a pooled op owns (NULL: nothing) */
    size_t out;             /* ops handed out and not given back */
};

void lm_op_pool_init(lm_op_pool *p, size_t size, lm_op_push_fn push, void (*fini)(lm_op *op));
/* An op of the pool: a new one zeroed, a reused one with its lm_op part
 * zeroed and the binding's part as it was left (the binding resets what it
 * needs; buffers it keeps survive).  NULL when out of memory. */
lm_op *lm_op_get(lm_op_pool *p);
void lm_op_put(lm_op *op);
/* Free the pool's free ops (fini first); ops still out are not touched. */
void lm_op_pool_free(lm_op_pool *p);

/* The op of the running VU v (coroutine L) starts now with `pending`
 * requests: inside the call until lm_op_finish_call; base is L's top. */
void lm_op_start(lm_op *op, vu *v, lua_State *L, int pending);
/* After the sends, as the Lua call's return: every request done already ->
 * the results now; else the VU waits (vu_wait) for lm_op_request_done. */
int lm_op_finish_call(lm_op *op, lua_State *L);
/* Where partial results go (values of a multi-get, a pipeline's table):
 * the VU's stack, or NULL when the VU takes no results (stopped, or the op
 * dropped). */
lua_State *lm_op_stack(const lm_op *op);
/* One request of op is done.  The last one completes op: inside the call
 * nothing more (lm_op_finish_call returns the results); else the results
 * are pushed and the VU resumed, or dropped when the VU stopped; the op goes
 * back to its pool.  Returns 1 when op completed (outside the call it is
 * then back in the pool: do not touch it). */
int lm_op_request_done(lm_op *op);
/* Record the time since the op's start under timer tid. */
void lm_op_record(const lm_op *op, int tid, int ok);
/* The same under each timer of tids[0..n) (negative: none), one clock read
 * for all, less less_ns (time a binding times on timers of its own, as
 * http's connection set-up). */
void lm_op_record_less(const lm_op *op, const int *tids, int n, uint64_t less_ns, int ok);
/* The same ending at now_ns, a clock read the binding made already (0:
 * read it now). */
void lm_op_record_less_at(const lm_op *op, const int *tids, int n, uint64_t less_ns, int ok, uint64_t now_ns);
/* Keep the values at stack indexes obj_idx and val_idx of L (0 or nil:
 * none) alive while op is in flight (the VU may stop and its coroutine be
 * collected first); lm_op_anchor(op, L, 0, 0) lets them go.  Each is held
 * in a registry slot of the op's own (op->anchor, op->anchor_val), made on
 * first use and kept across reuse; a slot that holds nothing is not
 * written again. */
void lm_op_anchor(lm_op *op, lua_State *L, int obj_idx, int val_idx);
/* Nobody takes op's results any more (its Lua call raised after sending, or
 * the worker is closing): unsent of its requests will never complete, the
 * others only bring it back to its pool.  With none left it goes back now
 * (do not touch it then). */
void lm_op_drop(lm_op *op, int unsent);
/* lm_op_record, ending at now_ns: a completion time the client read already
 * (the read that brought the reply; shared by every reply in it); 0 = read
 * the clock now. */
void lm_op_record_at(const lm_op *op, int tid, int ok, uint64_t now_ns);
/* count samples of lm_op_record_at's in one (vu_record_count): replies
 * of the same read, the same timer and outcome. */
void lm_op_record_count(const lm_op *op, int tid, int ok, uint64_t now_ns, int64_t count);

/* ---- the registry of pooled clients ---- */

#define LM_POOL_KEY_STRS 4

/* What makes two connect() calls share a pooled client: every field equal.
 * Strings are compared by content (NULL and "" differ only for secret and
 * str[]).  A protocol's string options (grpc's proto file, its metadata;
 * a database user or name) go in str[], in a fixed order of its own. */
typedef struct lm_pool_key {
    const char *address;        /* as given, scheme removed: "host:port", a list, a path */
    uint64_t timeout_ns, connect_timeout_ns;
    int64_t opt[6];             /* the protocol's other options, in a fixed order; unused: 0 */
    const char *secret;         /* a password; NULL = none */
    const char *tls;            /* lm_tls_key's text; "" = no TLS */
    const char *str[LM_POOL_KEY_STRS];  /* the protocol's string options; unused: NULL */
} lm_pool_key;

/* A hash of every field of k (FNV-1a): the registry compares it before the
 * fields, so a lookup among many pooled clients reads their strings only on
 * a hash match. */
uint64_t lm_pool_key_hash(const lm_pool_key *k);

typedef struct lm_pooled {
    lm_pool_key key;            /* copies of the strings, owned */
    uint64_t hash;              /* lm_pool_key_hash(&key) */
    void *client;
    int ref;                    /* a registry reference of its Lua object, or LUA_NOREF */
    struct lm_pooled *next;
} lm_pooled;

typedef struct lm_registry { lm_pooled *head; } lm_registry;

int lm_pool_key_equal(const lm_pool_key *a, const lm_pool_key *b);
/* The pooled client with key k, or NULL. */
lm_pooled *lm_registry_find(const lm_registry *r, const lm_pool_key *k);
/* Register client (and its Lua object's reference) under a copy of k;
 * 0, or -1 when out of memory (nothing registered). */
int lm_registry_add(lm_registry *r, const lm_pool_key *k, void *client, int ref);
/* Teardown: fn(client) for each entry (when fn is not NULL), then the
 * entries are freed (references die with the Lua state). */
void lm_registry_clear(lm_registry *r, void (*fn)(void *client));

#endif
