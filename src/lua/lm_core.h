/* lm_core.h - the `luamech` Lua module: core functions (sleep, timers,
 * random, VU identity, parameters) and the table of protocol modules. */
#ifndef LUAMECH_LM_CORE_H
#define LUAMECH_LM_CORE_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include "common/grow.h"
#include "common/params.h"

struct worker;

/* For a worker's state: the global `luamech` (scenario/script.h's, plus the
 * core functions) and every protocol module from the module table
 * (modules.c).  The engine calls it through run_hooks.open_lua: it never
 * includes this header. */
void lm_open_all(lua_State *L, struct worker *w);
/* luamech.random's distributions and luamech.keys (lm_random.c), into the
 * luamech table on top of L. */
void lm_random_open(lua_State *L, struct worker *w);
/* luamech.keys for bindings that draw keys themselves (a redis pipeline's
 * arguments, lm_random.c): lm_gen_metatable is the metatable of luamech's
 * generators (lua_topointer; NULL before lm_random_open), to recognise one
 * by a pointer compare; lm_keys_draw draws from the generator whose userdata
 * is ud for the running VU v (its random stream, as a call of the generator
 * would) into buf (LM_KEY_MAX bytes) and returns the key's length, or -1
 * when ud is another kind of generator (zipf, weighted, ...); with v NULL it
 * draws nothing and returns 0 for a keys generator. */
#define LM_KEY_MAX 224
struct vu;
const void *lm_gen_metatable(lua_State *L);
int lm_keys_draw(void *ud, struct vu *v, char *buf);
/* luamech.random(m, n) with its arguments from stack slot first on (none:
 * a float in [0, 1)): pushes the draw from the running VU's stream of w;
 * returns 1.  lm_core.c's function and lm_random.c's __call share it. */
int lm_random_draw(lua_State *L, struct worker *w, int first);
/* luamech.metrics and luamech.counter/gauge/rate (lm_metrics.c), into the
 * luamech table on top of L. */
void lm_metrics_open(lua_State *L, struct worker *w);
/* luamech.setup_data and, in the setup's run, the hand-over of its result
 * (lm_lifecycle.c); L's stack is left as it was. */
void lm_lifecycle_open(lua_State *L, struct worker *w);
/* luamech.data (lm_data.c), into the luamech table on top of L. */
void lm_data_open_lua(lua_State *L, struct worker *w);

/* A protocol module: pushes its table (e.g. luamech.memcached). */
typedef void (*lm_module_open)(lua_State *L, struct worker *w);
/* open pushes the module's table; a module of functions only gives fns
 * (open NULL) and gets a table of them. */
typedef struct lm_module { const char *name; lm_module_open open; const luaL_Reg *fns; } lm_module;
extern const lm_module lm_modules[];   /* terminated by {NULL, NULL, NULL}; read-only */
/* The protocol modules' open functions, one per binding file (the
 * lm_module_open of their line in modules.c); json's and protobuf's are in
 * lm_json.h and lm_pb.h. */
void lm_memcached_open(lua_State *L, struct worker *w);   /* lm_memcached.c */
void lm_redis_open(lua_State *L, struct worker *w);       /* lm_redis.c */
void lm_http_open(lua_State *L, struct worker *w);        /* lm_http.c */
void lm_ws_open(lua_State *L, struct worker *w);          /* lm_ws.c */
void lm_grpc_open(lua_State *L, struct worker *w);        /* lm_grpc.c */

/* Counter name prefixes of luamech.check: common/check_names.h. */
#include "common/check_names.h"

/* Helpers for bindings. */
struct vu;
/* The VU running on this worker; raises a Lua error when called outside a VU
 * coroutine (from the scenario file, or from a coroutine the script made). */
struct vu *lm_current_vu(lua_State *L, struct worker *w, const char *fname);
/* A client's connect, for bindings: begin with the client's userdata on
 * top of L (it is anchored); the client's connect callback calls
 * lm_connect_done; lm_connect_wait returns the client, or nil and the
 * message (then on_fail(client) runs, unless it is NULL), yielding until the
 * callback when it has not come yet.  Never resumes re-entrantly.
 * lm_connect_begin returns NULL when out of memory (the userdata stays). */
typedef struct lm_connect lm_connect;
lm_connect *lm_connect_begin(lua_State *L, struct vu *v, void (*on_fail)(void *client), void *client);
void lm_connect_done(lm_connect *cc, int status, const char *fmt, ...);
int lm_connect_wait(lua_State *L, lm_connect *cc);
void *lm_connect_client(const lm_connect *cc);

/* Methods of a userdata type whose self is checked by one pointer compare:
 * lm_methods_register sets each of methods (NULL-terminated) in the table on
 * top of L as a closure whose upvalue 1 is the type's metatable (at mt_idx,
 * an absolute index); lm_check_self is
 * luaL_checkudata for such a method (the same message), without its lookup
 * of the type's name in the registry on every call. */
void lm_methods_register(lua_State *L, int mt_idx, const luaL_Reg *methods);
void *lm_check_self(lua_State *L, const char *tname);

/* Raise "<fname>: unknown option 'x'" for a key of the table at idx that is
 * not in `known` (a NULL-terminated list): a typo never passes silently. */
void lm_check_options(lua_State *L, int idx, const char *fname, const char *const *known);

/* Grow *buf (capacity *cap, doubling from 256) to hold need bytes; 0, or
 * -1 when out of memory (*buf and *cap as they were).  The bindings'
 * growable buffers: an op's, a query string's (common/grow.h's rule). */
static inline int lm_buf_reserve(char **buf, size_t *cap, size_t need) {
    return grow_reserve(buf, cap, need, 256, SIZE_MAX);
}

/* A name made at run time (a custom timer, check, metric, an HTTP or gRPC
 * call's name) must be 1..200 bytes without a NUL byte or another control
 * character (a NUL would cut it short in C and merge two names): else a
 * Lua error "<fname>: <what> "<name, escaped>": ...".  Call it when a name
 * is first seen (cache miss), not on every use. */
void lm_name_check(lua_State *L, const char *name, size_t len, const char *fname, const char *what);

/* Id of the timer `name` on this worker (created on first use). */
int lm_timer_id(struct worker *w, const char *name, int kind);
/* A primitive timer with data fields of its own (fields: a JSON object's
 * text, e.g. {"tagged_of":"http.get","tags":{"env":"x"}}; NULL: none). */
int lm_tagged_timer_id(struct worker *w, const char *name, const char *tags);
/* The timers the bindings name by themselves, before any script runs
 * (modules.c): fn(ctx, name) for each ("http", "http.get", ...,
 * "memcached.get", ..., "redis.pipeline", the TLS timers).  Not the ones
 * named at run time ("http <name>", tagged timers, "redis.<command>"). */
typedef void (*lm_name_fn)(void *ctx, const char *name);
void lm_builtin_timers(lm_name_fn fn, void *ctx);
/* 1 when every timer and counter of name's family is listed by
 * lm_builtin_timers and lm_builtin_counters ("http" and "http.x",
 * "memcached.x", "ws.x", "grpc" and "grpc.x"): a name there that is not
 * listed never gets a sample.  0 for others (redis.<command>: any command;
 * "grpc <method>": any method). */
int lm_builtin_closed(const char *name);
/* The counters the bindings may make by themselves ("http.status_5xx",
 * "grpc.status.OK", "ws.messages_sent", "<proto>.tls_resumed", ...):
 * thresholds check a counter subject of their families against them. */
void lm_builtin_counters(lm_name_fn fn, void *ctx);
void lm_http_timer_names(lm_name_fn fn, void *ctx);       /* lm_http.c */
void lm_http_counter_names(lm_name_fn fn, void *ctx);     /* lm_http.c */
void lm_mc_timer_names(lm_name_fn fn, void *ctx);         /* lm_memcached.c */
void lm_ws_timer_names(lm_name_fn fn, void *ctx);         /* lm_ws.c */
/* Timer tid's samples also count in aggregate timer agg_id, summed once
 * per tick (stats/local.h, stats_part_of). */
void lm_timer_part_of(struct worker *w, int tid, int agg_id);

#endif
