/* lm_op.c - the bindings' operation pattern and registry of pooled clients
 * (lm_op.h): op pools, the completed-inside-the-call path, the wake-up of a
 * waiting VU, and canonical keys for pooled clients.  It knows no protocol
 * and never touches a client: the bindings send, this only delivers. */
#include "lua/lm_op.h"

#include <assert.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>


void lm_op_pool_init(lm_op_pool *p, size_t size, lm_op_push_fn push, void (*fini)(lm_op *op)) {
    assert(size >= sizeof(lm_op));
    memset(p, 0, sizeof *p);
    p->size = size;
    p->push = push;
    p->fini = fini;
}

lm_op *lm_op_get(lm_op_pool *p) {
    lm_op *op = p->free;
    if (op) {
        p->free = op->next_free;
        memset(op, 0, offsetof(lm_op, anchor));
    } else if ((op = calloc(1, p->size)) == NULL) {
        return NULL;
    }
    op->pool = p;
    p->out++;
    return op;
}

void lm_op_put(lm_op *op) {
    lm_op_pool *p = op->pool;
    assert(p->out > 0);
    p->out--;
    op->next_free = p->free;
    p->free = op;
}

void lm_op_pool_free(lm_op_pool *p) {
    assert(p->out == 0);                    /* no op outstanding: the clients were closed first */
    while (p->free) {
        lm_op *op = p->free;
        p->free = op->next_free;
        if (p->fini) p->fini(op);
        free(op);
    }
}

void lm_op_start(lm_op *op, vu *v, lua_State *L, int pending) {
    assert(!op->in_call && op->pending == 0 && pending >= 0);   /* a fresh op, started once */
    op->v = v;
    op->pending = pending;
    op->in_call = 1;
    op->base = lua_gettop(L);
    op->start_ns = worker_now_ns();
}

int lm_op_finish_call(lm_op *op, lua_State *L) {
    assert(op->in_call);                    /* once, after lm_op_start */
    op->in_call = 0;
    if (op->pending == 0) {                 /* completed at once (server down, cancelled) */
        int n = op->pool->push(op, L);
        lm_op_put(op);
        return n;
    }
    op->base = 0;                           /* results are pushed on the yielded stack */
    return vu_wait(op->v, L);
}

lua_State *lm_op_stack(const lm_op *op) {
    return op->v && vu_wants_resume(op->v) ? vu_lua(op->v) : NULL;
}

int lm_op_request_done(lm_op *op) {
    assert(op->pending > 0);
    if (--op->pending > 0) return 0;
    if (op->in_call) return 1;              /* the Lua call returns the results */
    vu *v = op->v;
    if (!v || !vu_wants_resume(v)) {
        lm_op_put(op);
        return 1;
    }
    int n = op->pool->push(op, vu_lua(v));
    lm_op_put(op);
    vu_resume(v, n);
    return 1;
}

void lm_op_record_at(const lm_op *op, int tid, int ok, uint64_t now_ns) {
    uint64_t now = now_ns ? now_ns : worker_now_ns();
    vu_record(op->v, tid, now > op->start_ns ? (int64_t)(now - op->start_ns) : 0, now, ok);
}

void lm_op_record_count(const lm_op *op, int tid, int ok, uint64_t now_ns, int64_t count) {
    uint64_t now = now_ns ? now_ns : worker_now_ns();
    vu_record_count(op->v, tid, now > op->start_ns ? (int64_t)(now - op->start_ns) : 0, now, ok, count);
}

void lm_op_record_less(const lm_op *op, const int *tids, int n, uint64_t less_ns, int ok) {
    lm_op_record_less_at(op, tids, n, less_ns, ok, 0);
}

void lm_op_record_less_at(const lm_op *op, const int *tids, int n, uint64_t less_ns, int ok, uint64_t now_ns) {
    uint64_t now = now_ns ? now_ns : worker_now_ns(), took = now > op->start_ns ? now - op->start_ns : 0;
    int64_t dur = (int64_t)(took > less_ns ? took - less_ns : 0);
    for (int i = 0; i < n; i++)
        if (tids[i] >= 0) vu_record(op->v, tids[i], dur, now, ok);
}

/* One anchor slot (*slot, held while bit is set in *held) to the value
 * at idx, or emptied (idx 0 or nil); an empty slot is left alone. */
static void lm_op_anchor_slot(lua_State *L, int *slot, unsigned *held, unsigned bit, int idx) {
    if (!idx || lua_isnil(L, idx)) {
        if (!(*held & bit)) return;
        lua_pushboolean(L, 0);                  /* false, never nil: the slot stays ours */
        lua_rawseti(L, LUA_REGISTRYINDEX, *slot);
        *held &= ~bit;
        return;
    }
    lua_pushvalue(L, idx);
    if (*slot) lua_rawseti(L, LUA_REGISTRYINDEX, *slot);
    else *slot = luaL_ref(L, LUA_REGISTRYINDEX);
    *held |= bit;
}

void lm_op_anchor(lm_op *op, lua_State *L, int obj_idx, int val_idx) {
    lm_op_anchor_slot(L, &op->anchor, &op->anchor_held, 1, obj_idx);   /* one push, popped: */
    lm_op_anchor_slot(L, &op->anchor_val, &op->anchor_held, 2, val_idx);   /* relative indexes hold */
}

void lm_op_drop(lm_op *op, int unsent) {
    assert(unsent >= 0 && unsent <= op->pending);
    op->v = NULL;
    op->in_call = 0;
    op->pending -= unsent;
    if (op->pending == 0) lm_op_put(op);
}
void lm_op_record(const lm_op *op, int tid, int ok) { lm_op_record_at(op, tid, ok, 0); }

/* ---- registry ---- */

static int lm_str_equal(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

int lm_pool_key_equal(const lm_pool_key *a, const lm_pool_key *b) {
    if (a->timeout_ns != b->timeout_ns || a->connect_timeout_ns != b->connect_timeout_ns) return 0;
    for (size_t i = 0; i < sizeof a->opt / sizeof a->opt[0]; i++)
        if (a->opt[i] != b->opt[i]) return 0;
    for (size_t i = 0; i < LM_POOL_KEY_STRS; i++)
        if (!lm_str_equal(a->str[i], b->str[i])) return 0;
    return lm_str_equal(a->address ? a->address : "", b->address ? b->address : "") &&
           lm_str_equal(a->secret, b->secret) &&
           lm_str_equal(a->tls ? a->tls : "", b->tls ? b->tls : "");
}

#define LM_FNV_PRIME 1099511628211ull

static uint64_t lm_fnv_bytes(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * LM_FNV_PRIME;
    return h;
}

/* A string and its presence (NULL hashes apart from ""), with a separator. */
static uint64_t lm_fnv_str(uint64_t h, const char *s) {
    h = (h ^ (s ? 1u : 2u)) * LM_FNV_PRIME;
    return s ? lm_fnv_bytes(h, s, strlen(s) + 1) : h;
}

uint64_t lm_pool_key_hash(const lm_pool_key *k) {
    uint64_t h = 14695981039346656037ull;
    h = lm_fnv_bytes(h, &k->timeout_ns, sizeof k->timeout_ns);
    h = lm_fnv_bytes(h, &k->connect_timeout_ns, sizeof k->connect_timeout_ns);
    h = lm_fnv_bytes(h, k->opt, sizeof k->opt);
    h = lm_fnv_str(h, k->address ? k->address : "");
    h = lm_fnv_str(h, k->secret);
    h = lm_fnv_str(h, k->tls ? k->tls : "");
    for (size_t i = 0; i < LM_POOL_KEY_STRS; i++) h = lm_fnv_str(h, k->str[i]);
    return h;
}

lm_pooled *lm_registry_find(const lm_registry *r, const lm_pool_key *k) {
    uint64_t h = lm_pool_key_hash(k);
    for (lm_pooled *e = r->head; e; e = e->next)
        if (e->hash == h && lm_pool_key_equal(&e->key, k)) return e;
    return NULL;
}

static void lm_pooled_free(lm_pooled *e) {
    free((char *)e->key.address);
    free((char *)e->key.secret);
    free((char *)e->key.tls);
    for (size_t i = 0; i < LM_POOL_KEY_STRS; i++) free((char *)e->key.str[i]);
    free(e);
}

/* A copy of s (NULL stays NULL); 0 or -1. */
static int lm_str_copy(const char *s, const char **out) {
    *out = NULL;
    if (s == NULL) return 0;
    char *c = strdup(s);
    if (c == NULL) return -1;
    *out = c;
    return 0;
}

int lm_registry_add(lm_registry *r, const lm_pool_key *k, void *client, int ref) {
    lm_pooled *e = calloc(1, sizeof *e);
    if (e == NULL) return -1;
    e->key = *k;
    e->key.address = e->key.secret = e->key.tls = NULL;
    for (size_t i = 0; i < LM_POOL_KEY_STRS; i++) e->key.str[i] = NULL;
    int bad = lm_str_copy(k->address ? k->address : "", &e->key.address) != 0 ||
              lm_str_copy(k->secret, &e->key.secret) != 0 || lm_str_copy(k->tls ? k->tls : "", &e->key.tls) != 0;
    for (size_t i = 0; i < LM_POOL_KEY_STRS && !bad; i++) bad = lm_str_copy(k->str[i], &e->key.str[i]) != 0;
    if (bad) {
        lm_pooled_free(e);
        return -1;
    }
    e->hash = lm_pool_key_hash(&e->key);
    e->client = client;
    e->ref = ref;
    e->next = r->head;
    r->head = e;
    return 0;
}

void lm_registry_clear(lm_registry *r, void (*fn)(void *client)) {
    while (r->head) {
        lm_pooled *e = r->head;
        r->head = e->next;
        if (fn) fn(e->client);
        lm_pooled_free(e);
    }
}
