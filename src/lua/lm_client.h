/* lm_client.h - what the client bindings (memcached, redis, ws, grpc; http
 * the userdata, the type and its options) share besides the operation
 * pattern (lm_op.h): a client object's userdata (a pointer: the C side may
 * outlive a collected userdata), options as data (lm_opt_spec rows read by
 * lm_opts_read), and connect()'s pooled-or-own tail: a pooled client found
 * in the registry is returned as it is; a new one is registered when pooled
 * and then connected (yielding through lm_connect).  No protocol and no
 * client call: the binding creates and connects its client, this only
 * decides and anchors. */
#ifndef LUAMECH_LM_CLIENT_H
#define LUAMECH_LM_CLIENT_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "lua/lm_core.h"
#include "lua/lm_op.h"
#include "lua/lm_tls.h"

/* Push a userdata holding obj with the metatable registered as mt; returns
 * the userdata's slot (its owner sets *slot = NULL when obj goes first). */
void **lm_ud_push(lua_State *L, void *obj, const char *mt);

/* The number on top of L as nanoseconds: the option `field` of fname, 0 to
 * 86400 seconds (NaN and other types refused with one message). */
uint64_t lm_seconds_opt(lua_State *L, const char *fname, const char *field);

/* A binding's options as data: name, kind, range, default.  The binding
 * reads them with lm_opts_read; tests/scenarios/test_lua_types.sh checks
 * its LuaLS options class against the same rows (names, kinds, defaults). */
typedef enum lm_opt_kind {
    LM_OPT_SECONDS,     /* a number of seconds in [min, max] (lm_seconds_opt: 0..86400), a uint64_t of ns */
    LM_OPT_BYTES,       /* a whole number of bytes in [min, max] */
    LM_OPT_INT,         /* a whole number in [min, max] */
    LM_OPT_OTHER        /* known here, read by the binding itself (a table, a string, a boolean, tls, pool) */
} lm_opt_kind;

typedef struct lm_opt_spec {
    const char *name;
    lm_opt_kind kind;
    double min, max, dflt;      /* SECONDS, BYTES, INT: the range and the default (seconds, bytes);
                                 * dflt LM_OPT_CALLERS: the field keeps what the caller put there
                                 * (a per-call option whose default is the client's) */
    const char *doc_default;    /* the default as the docs and types say it ("10", "timeout", "1 MiB",
                                 * "\"text\"" for a string), any kind; NULL: none, not checked */
    size_t offset, size;        /* SECONDS, BYTES, INT: the field it fills in the binding's options
                                 * (LM_OPT_AT), an unsigned or nonnegative integer of 4 or 8 bytes
                                 * (SECONDS: 8, a uint64_t of ns) */
} lm_opt_spec;

/* The offset and size of member of type, for an lm_opt_spec row. */
#define LM_OPT_AT(type, member) offsetof(type, member), sizeof(((type *)0)->member)
/* A row the binding reads itself (kind OTHER), with its documented default or NULL. */
#define LM_OPT_OWN(name, doc_default) {name, LM_OPT_OTHER, 0, 0, 0, doc_default, 0, 0}

#define LM_OPT_MAX 32
/* The dflt of a row whose default is the value already in the field. */
#define LM_OPT_CALLERS (-1.0)

/* spec (ended by a NULL name) applied to the table at idx: every SECONDS,
 * BYTES and INT option set in dst to its default (unless LM_OPT_CALLERS), then to the table's
 * value; a name not in spec raises (lm_check_options), a value out of range
 * raises "<fname>: <name> must be ...".  Returns 1 when there is a table
 * (the binding reads its OTHER options), 0 for none or nil. */
int lm_opts_read(lua_State *L, int idx, const char *fname, const lm_opt_spec *spec, void *dst);

/* The pool option of the table at idx (any true value), 0 without a table. */
int lm_pool_opt(lua_State *L, int idx);

/* The part every client binding's object starts with: its place in the
 * worker's list of the binding's clients (for teardown). */
typedef struct lm_client_obj {
    struct lm_client_obj *next, **pprev;
    struct lm_client_list *list;
    void **ud;                  /* its userdata's slot; NULL once the userdata is collected */
} lm_client_obj;

/* One per worker and binding (a binding may embed it first in its own). */
typedef struct lm_client_list {
    lm_client_obj *head;
    lm_registry pool;           /* its pooled clients */
    lm_tls_rec tls;             /* its <proto>.tls timer */
} lm_client_list;

/* The metatable mt of a client type: __index a table of methods (each a
 * closure over the metatable, lm_methods_register; more(L, mt_idx) may add
 * others to that table, NULL: none), plus the metamethods in meta
 * (NULL-terminated: __gc, __tostring).  Leaves L's stack as it was. */
void lm_client_type(lua_State *L, const char *mt, const luaL_Reg *methods, const luaL_Reg *meta,
                    void (*more)(lua_State *L, int mt_idx));
/* The module table (pushed): connect = connect_fn over (w, list); list's
 * TLS timer is "<proto>.tls" and close(list) runs at the worker's teardown.
 * list was allocated by the binding (NULL raises out of memory). */
void lm_client_module(lua_State *L, struct worker *w, lm_client_list *list, const char *proto,
                      void (*close)(void *list), lua_CFunction connect_fn);

/* Take o out of its list. */
void lm_client_unlink(lm_client_obj *o);
/* The worker's teardown: close(o) for every client (pending requests are
 * cancelled), the registry emptied, then each unlinked, its userdata's
 * slot cleared (the userdata dies in lua_close) and free_fn(o) called;
 * then the list itself is freed. */
void lm_client_list_close(lm_client_list *l, void (*close)(void *o), void (*free_fn)(void *o));

/* connect()'s arguments as every client binding takes them: (address
 * [, options]). */
typedef struct lm_connect_args {
    struct worker *w;
    const char *address;        /* arg 1, the kind's scheme removed */
    struct vu *v;               /* the calling VU */
    int pool;                   /* options.pool */
    int tls_on;
    net_tls_opts tls;           /* options.tls (lm_tls_opts), or the scheme's defaults */
    char tkey[1200];            /* lm_tls_key's text, for the pool key */
} lm_connect_args;

/* One client binding's connect, as a small table: its names, its options,
 * and how its client is created and connected. */
typedef struct lm_client_kind {
    const char *fname;          /* "memcached.connect": the prefix of its messages */
    const char *vu_fname;       /* "luamech.memcached.connect": called outside a VU */
    const char *tls_scheme;     /* an address prefix that turns TLS on ("rediss://"), or NULL */
    const char *plain_scheme;   /* a prefix removed without TLS ("redis://"), or NULL */
    /* The protocol's options from the table at idx into o; sets *pool.
     * Returns where o keeps its TLS options' pointer (set from the args). */
    const net_tls_opts **(*opts)(lua_State *L, int idx, void *o, int *pool);
    const char *mt;             /* the metatable of its Lua objects */
    size_t size;                /* bytes of its object (zeroed before create) */
    /* Create the client for a (options o, TLS included) into obj (lm_client_obj first; linked afterwards); 0, or -1 with a
     * message in err (obj is then freed). */
    int (*create)(void *obj, const lm_connect_args *a, void *o, char *err, size_t err_len);
    /* Start the connect: its callback calls lm_connect_done(cc, ...). */
    void (*connect)(void *obj, lm_connect *cc);
    /* A failed connect of a VU's own client closes it. */
    void (*close)(void *obj);
} lm_client_kind;

/* Read connect()'s arguments (k->opts into o, then the running VU, then
 * TLS with rec recording its handshakes); misuse raises. */
void lm_connect_args_read(lua_State *L, const lm_client_kind *k, struct worker *w, lm_tls_rec *rec,
                          lm_connect_args *a, void *o);

/* connect()'s tail: the pooled client of key when there is one (returned
 * at once), else a new one (k->create, its userdata pushed; registered
 * under key when pooled),
 * connected (k->connect) while the VU waits.  Returns lua's result count. */
int lm_client_connect(lua_State *L, const lm_client_kind *k, lm_client_list *list,
                      const lm_pool_key *key, const lm_connect_args *a, void *o);

#endif
