/* lm_metrics.c - custom metrics: luamech.metrics.counter(name),
 * .gauge(name) and .rate(name) (also as luamech.counter/gauge/rate).  Each
 * is a worker-local counter of the stats layer (stats/local.c), merged by
 * the main thread at every tick like the engine's own counters: a counter
 * under its name, a gauge as the changes of this worker's level under
 * "gauge NAME" (the merged total is the sum of the workers' levels), a rate
 * as "rate.true NAME" / "rate.false NAME".  Recording is an array
 * increment: no lock, no allocation.  Reports and thresholds read them by
 * these prefixes (lm_core.h); this file does not report anything. */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"

enum { MET_COUNTER = 0, MET_GAUGE, MET_RATE };

#define LM_METRICS_MAX 1000     /* counters of a worker (metrics, checks, bindings') */

typedef struct lm_metric {
    worker *w;
    int kind;
    int id, id_false;          /* counter ids (id_false: rates only) */
    int64_t level;             /* gauges: this worker's current value */
} lm_metric;

/* Metatable names, by kind. */
static const char *const lm_metric_mt[] = {"luamech.counter", "luamech.gauge", "luamech.rate"};

/* Errors name the method (luaL_argerror would say "bad argument #2 to '?'":
 * a method has no global name). */
static lm_metric *lm_metric_check(lua_State *L, int kind, const char *fname) {
    lm_metric *m = luaL_testudata(L, 1, lm_metric_mt[kind]);
    if (m == NULL)
        luaL_error(L, "%s: call it as a method, with ':' (e.g. luamech.%s(\"name\"):%s), got %s as self", fname,
                   lm_metric_mt[kind] + 8, strchr(fname, ':') + 1, luaL_typename(L, 1));
    return m;
}

/* An integer argument (counters and gauges count whole units). */
static int64_t lm_metric_int(lua_State *L, int idx, const char *fname, const char *what) {
    lua_Number v = lua_type(L, idx) == LUA_TNUMBER ? lua_tonumber(L, idx) : 0.5;
    if (!(fabs(v) <= 9.0e15) || v != floor(v)) {
        lua_pushvalue(L, idx);
        const char *shown = lua_type(L, idx) == LUA_TNUMBER ? lua_tostring(L, -1) : luaL_typename(L, idx);
        luaL_error(L, "%s: %s, got %s", fname, what, shown);
    }
    return (int64_t)v;
}

/* counter:add([n]): n >= 0, default 1. */
static int lm_counter_add(lua_State *L) {
    static const char fname[] = "counter:add";
    lm_metric *m = lm_metric_check(L, MET_COUNTER, fname);
    int64_t n = lua_isnoneornil(L, 2) ? 1 : lm_metric_int(L, 2, fname, "expected a whole number >= 0");
    if (n < 0) luaL_error(L, "%s: expected a whole number >= 0 (a counter only grows; use a gauge), got %f", fname,
                          (lua_Number)n);
    worker_count(m->w, m->id, n);
    return 0;
}

/* gauge:set(v) / gauge:add(d): this worker's level becomes v / moves by d. */
static int lm_gauge_set(lua_State *L) {
    lm_metric *m = lm_metric_check(L, MET_GAUGE, "gauge:set");
    int64_t v = lm_metric_int(L, 2, "gauge:set", "expected a whole number");
    worker_count(m->w, m->id, v - m->level);
    m->level = v;
    return 0;
}

static int lm_gauge_add(lua_State *L) {
    lm_metric *m = lm_metric_check(L, MET_GAUGE, "gauge:add");
    int64_t d = lm_metric_int(L, 2, "gauge:add", "expected a whole number");
    worker_count(m->w, m->id, d);
    m->level += d;
    return 0;
}

/* gauge:value(): this worker's level. */
static int lm_gauge_value(lua_State *L) {
    lua_pushnumber(L, (lua_Number)lm_metric_check(L, MET_GAUGE, "gauge:value")->level);
    return 1;
}

/* rate:add(cond): counts cond as true or false (any value: its truth). */
static int lm_rate_add(lua_State *L) {
    lm_metric *m = lm_metric_check(L, MET_RATE, "rate:add");
    if (lua_gettop(L) < 2) luaL_error(L, "rate:add: expected a value to count as true or false, got nothing");
    int t = lua_toboolean(L, 2);
    worker_count(m->w, t ? m->id : m->id_false, 1);
    lua_pushboolean(L, t);
    return 1;
}

/* The metric `name` of this kind, one per worker (cached at upvalue 2). */
static int lm_metric_get(lua_State *L, int kind) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (len == 0 || len > 200) luaL_argerror(L, 1, "metric name of 1..200 bytes expected");
    lua_pushvalue(L, 1);
    lua_rawget(L, lua_upvalueindex(2));
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    lm_name_check(L, name, len, "luamech.metrics", "metric name");
    if (worker_stats(w)->ncounters >= LM_METRICS_MAX)
        return luaL_error(L, "luamech.metrics: more than %d distinct counter, gauge and rate names; metric "
                             "names are categories, not values (put values in the data, not in the name)",
                          LM_METRICS_MAX);
    char key[256];
    lm_metric *m = lua_newuserdata(L, sizeof *m);
    memset(m, 0, sizeof *m);
    m->w = w;
    m->kind = kind;
    stats_local *st = worker_stats(w);
    if (kind == MET_COUNTER) m->id = worker_counter_id(w, name);
    else if (kind == MET_GAUGE) {
        snprintf(key, sizeof key, "%s%s", LM_GAUGE, name);
        m->id = stats_counter_kind_id(st, key, CK_GAUGE);
    } else {
        snprintf(key, sizeof key, "%s%s", LM_RATE_TRUE, name);
        m->id = stats_counter_kind_id(st, key, CK_RATE_TRUE);
        snprintf(key, sizeof key, "%s%s", LM_RATE_FALSE, name);
        m->id_false = stats_counter_kind_id(st, key, CK_RATE_FALSE);
    }
    stats_counter_announce(worker_stats(w), m->id);
    if (kind == MET_RATE) stats_counter_announce(worker_stats(w), m->id_false);
    luaL_getmetatable(L, lm_metric_mt[kind]);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, lua_upvalueindex(2));
    return 1;
}

static int lm_metric_counter(lua_State *L) { return lm_metric_get(L, MET_COUNTER); }
static int lm_metric_gauge(lua_State *L) { return lm_metric_get(L, MET_GAUGE); }
static int lm_metric_rate(lua_State *L) { return lm_metric_get(L, MET_RATE); }

/* luamech.metrics and the luamech.counter/gauge/rate shortcuts, into the
 * luamech table on top of L. */
void lm_metrics_open(lua_State *L, worker *w) {
    static const luaL_Reg counter[] = {{"add", lm_counter_add}, {NULL, NULL}};
    static const luaL_Reg gauge[] = {{"set", lm_gauge_set}, {"add", lm_gauge_add}, {"value", lm_gauge_value},
                                     {NULL, NULL}};
    static const luaL_Reg rate[] = {{"add", lm_rate_add}, {NULL, NULL}};
    const luaL_Reg *methods[] = {counter, gauge, rate};
    for (int k = 0; k < 3; k++) {
        luaL_newmetatable(L, lm_metric_mt[k]);
        lua_newtable(L);
        luaL_register(L, NULL, methods[k]);
        lua_setfield(L, -2, "__index");
        lua_pop(L, 1);
    }
    static const struct { const char *name; lua_CFunction f; } kinds[] = {
        {"counter", lm_metric_counter}, {"gauge", lm_metric_gauge}, {"rate", lm_metric_rate}};
    lua_newtable(L);                                     /* luamech.metrics */
    for (int k = 0; k < 3; k++) {
        lua_pushlightuserdata(L, w);
        lua_newtable(L);                                 /* name -> metric, per kind */
        lua_pushcclosure(L, kinds[k].f, 2);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, kinds[k].name);
        lua_setfield(L, -3, kinds[k].name);              /* luamech.counter, ... */
    }
    lua_setfield(L, -2, "metrics");
}
