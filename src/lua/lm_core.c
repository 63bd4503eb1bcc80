/* lm_core.c - binds luamech.sleep, luamech.timer, luamech.record,
 * luamech.random, luamech.vu_id/vu_group/vu_index/iteration, luamech.now,
 * luamech.param, luamech.shared, luamech.stop and luamech.abort.  Each binding checks its arguments and
 * calls into the engine through engine/vu_api.h; none parses bytes or
 * resumes coroutines itself.  lm_open_all also sets the worker's loop on
 * the run's I/O backend (net_io_use, the value in the share). */
#include "lua/lm_core.h"

#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/vu_api.h"
#include "scenario/script.h"
#include "lua/lm_share.h"
#include "net/uring.h"

#define LM_TIMER_MT "luamech.timer"

typedef struct lm_timer {
    int id;
    int running;
    uint64_t start_ns;
    uint64_t slept_base_ns;
    vu *owner;
} lm_timer;

static worker *lm_worker(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

vu *lm_current_vu(lua_State *L, worker *w, const char *fname) {
    vu *v = vu_current(w);
    if (!v || vu_lua(v) != L)
        luaL_error(L, "%s must be called from a virtual user's script (its init or its transaction), "
                      "not from the scenario file or a coroutine of your own", fname);
    return v;
}

void lm_methods_register(lua_State *L, int mt_idx, const luaL_Reg *methods) {
    for (const luaL_Reg *m = methods; m->name; m++) {
        lua_pushvalue(L, mt_idx);
        lua_pushcclosure(L, m->func, 1);
        lua_setfield(L, -2, m->name);
    }
}

void *lm_check_self(lua_State *L, const char *tname) {
    void *p = lua_type(L, 1) == LUA_TUSERDATA ? lua_touserdata(L, 1) : NULL;
    if (p == NULL || !lua_getmetatable(L, 1)) luaL_typerror(L, 1, tname);
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (!same) luaL_typerror(L, 1, tname);
    return p;
}

/* name[0..len) escaped for a message: bytes below 0x20 and 0x7f as \xNN,
 * cut at 60 bytes. */
static void lm_name_shown(const char *name, size_t len, char *out, size_t cap) {
    size_t n = 0;
    for (size_t i = 0; i < len && i < 60 && n + 5 < cap; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || c == 0x7f) n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
        else out[n++] = (char)c;
    }
    out[n] = 0;
    if (len > 60 && n + 4 < cap) memcpy(out + n, "...", 4);
}

void lm_name_check(lua_State *L, const char *name, size_t len, const char *fname, const char *what) {
    char shown[320], msg[512];
    if (len == 0 || len > 200) luaL_error(L, "%s: %s of 1..200 bytes expected, got %d bytes", fname, what, (int)len);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c >= 0x20 && c != 0x7f) continue;
        lm_name_shown(name, len, shown, sizeof shown);
        snprintf(msg, sizeof msg, "%s: %s \"%s\" has %s 0x%02x at byte %zu; names are printable text", fname, what,
                 shown, c == 0 ? "a NUL byte" : "the control character", c, i + 1);
        luaL_error(L, "%s", msg);          /* lua_pushfstring knows no %02x */
    }
}

int lm_timer_id(worker *w, const char *name, int kind) {
    return stats_timer_id(worker_stats(w), name, (timer_kind)kind);
}

void lm_timer_part_of(worker *w, int tid, int agg_id) { stats_part_of(worker_stats(w), tid, agg_id); }

int lm_tagged_timer_id(worker *w, const char *name, const char *tags) {
    return stats_tagged_timer_id(worker_stats(w), name, TK_PRIMITIVE, tags);
}

static int lm_sleep(lua_State *L) {
    worker *w = lm_worker(L);
    double s = luaL_checknumber(L, 1);
    if (!(s >= 0) || s > 86400) luaL_argerror(L, 1, "seconds between 0 and 86400 expected");
    return vu_sleep(lm_current_vu(L, w, "luamech.sleep"), L, s);
}

/* ---- timers ---- */

static uint64_t lm_timer_elapsed(const lm_timer *t, uint64_t now) {
    uint64_t slept = vu_slept_ns(t->owner) - t->slept_base_ns;
    uint64_t wall = now - t->start_ns;
    return wall > slept ? wall - slept : 0;
}

static int lm_timer_start(lua_State *L) {
    lm_timer *t = luaL_checkudata(L, 1, LM_TIMER_MT);
    t->running = 1;
    t->start_ns = worker_now_ns();
    t->slept_base_ns = vu_slept_ns(t->owner);
    lua_settop(L, 1);
    return 1;
}

/* t:stop([ok]) records the time since start (engine sleeps left out) and
 * returns it in seconds; ok == false counts a failure instead. */
static int lm_timer_stop(lua_State *L) {
    lm_timer *t = luaL_checkudata(L, 1, LM_TIMER_MT);
    int ok = lua_isnoneornil(L, 2) ? 1 : lua_toboolean(L, 2);
    if (!t->running) return luaL_error(L, "timer:stop(): the timer is not running");
    uint64_t now = worker_now_ns();
    uint64_t dur = lm_timer_elapsed(t, now);
    t->running = 0;
    vu_record(t->owner, t->id, (int64_t)dur, now, ok);
    lua_pushnumber(L, (double)dur / 1e9);
    return 1;
}

static int lm_timer_elapsed_lua(lua_State *L) {
    lm_timer *t = luaL_checkudata(L, 1, LM_TIMER_MT);
    lua_pushnumber(L, t->running ? (double)lm_timer_elapsed(t, worker_now_ns()) / 1e9 : 0);
    return 1;
}

/* luamech.timer(name): a started timer.  Timer objects are cached per VU and
 * name, so a transaction that times the same thing each iteration does not
 * allocate. */
static int lm_timer_new(lua_State *L) {
    worker *w = lm_worker(L);
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (len == 0 || len > 200) luaL_argerror(L, 1, "timer name of 1..200 bytes expected");
    vu *v = lm_current_vu(L, w, "luamech.timer");
    int *cache = vu_binding_ref(v);
    if (*cache == LUA_NOREF) {
        lua_newtable(L);
        *cache = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, *cache);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    lm_timer *t = lua_touserdata(L, -1);
    if (!t || t->running) {
        lua_pop(L, 1);
        t = lua_newuserdata(L, sizeof *t);
        luaL_getmetatable(L, LM_TIMER_MT);
        lua_setmetatable(L, -2);
        t->owner = v;
        lm_name_check(L, name, len, "luamech.timer", "timer name");
        t->id = lm_timer_id(w, name, TK_CUSTOM);
        if (worker_stats(w)->timers[t->id].role != TR_OTHER) {   /* past the cap: not cached */
            lua_pushvalue(L, 1);
            lua_pushvalue(L, -2);
            lua_rawset(L, -4);             /* cache[name] = t */
        }
    }
    t->running = 1;
    t->start_ns = worker_now_ns();
    t->slept_base_ns = vu_slept_ns(v);
    return 1;
}

/* luamech.record(name, seconds [, ok]): a duration measured by the script. */
static int lm_record(lua_State *L) {
    worker *w = lm_worker(L);
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    double s = luaL_checknumber(L, 2);
    if (len == 0 || len > 200) luaL_argerror(L, 1, "timer name of 1..200 bytes expected");
    int ok = lua_isnoneornil(L, 3) ? 1 : lua_toboolean(L, 3);
    if (!(s >= 0)) luaL_argerror(L, 2, "a duration >= 0 in seconds expected");
    vu *v = lm_current_vu(L, w, "luamech.record");
    lua_pushvalue(L, 1);
    lua_rawget(L, lua_upvalueindex(2));    /* name -> id cache */
    int id;
    if (lua_isnumber(L, -1)) id = (int)lua_tointeger(L, -1);
    else {
        lm_name_check(L, name, len, "luamech.record", "timer name");
        id = lm_timer_id(w, name, TK_CUSTOM);
        if (worker_stats(w)->timers[id].role != TR_OTHER) {      /* past the cap: not cached */
            lua_pushvalue(L, 1);
            lua_pushinteger(L, id);
            lua_rawset(L, lua_upvalueindex(2));
        }
    }
    vu_record_given(v, id, (int64_t)llround(s * 1e9), worker_now_ns(), ok);
    return 0;
}

/* Counter id of check `name`'s passes or failures (kind), cached in the
 * table at upvalue `up`. */
static int lm_check_counter(lua_State *L, worker *w, int up, counter_kind kind, const char *name, size_t len) {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(up));
    if (lua_isnumber(L, -1)) return (int)lua_tointeger(L, -1);
    lm_name_check(L, name, len, "luamech.check", "check name");
    char key[240];
    snprintf(key, sizeof key, "%s%s", counter_kind_prefix(kind), name);
    int id = stats_counter_kind_id(worker_stats(w), key, kind);
    lua_pushvalue(L, 2);
    lua_pushinteger(L, id);
    lua_rawset(L, lua_upvalueindex(up));
    return id;
}

/* luamech.check(condition, name) -> condition: counts a pass or a failure
 * under name; a failure does not stop the transaction. */
static int lm_check(lua_State *L) {
    worker *w = lm_worker(L);
    int ok = lua_toboolean(L, 1);
    size_t len;
    const char *name = luaL_checklstring(L, 2, &len);
    if (len == 0 || len > 200) luaL_argerror(L, 2, "check name of 1..200 bytes expected");
    lm_current_vu(L, w, "luamech.check");
    int id = ok ? lm_check_counter(L, w, 2, CK_CHECK_PASS, name, len)
                : lm_check_counter(L, w, 3, CK_CHECK_FAIL, name, len);
    worker_count(w, id, 1);
    lua_pushboolean(L, ok);
    return 1;
}

/* ---- random, identity, time ---- */

/* An argument of luamech.random: a number (or a numeric string, as
 * luaL_checknumber takes); argno names it in the error. */
static double lm_random_arg(lua_State *L, int idx, int argno) {
    double d = lua_tonumber(L, idx);
    if (d == 0 && !lua_isnumber(L, idx)) luaL_typerror(L, argno, lua_typename(L, LUA_TNUMBER));
    return d;
}

int lm_random_draw(lua_State *L, worker *w, int first) {
    vu *v = lm_current_vu(L, w, "luamech.random");
    uint64_t r = vu_random_u64(v);
    int n = lua_gettop(L) - first + 1;
    if (n <= 0) {
        lua_pushnumber(L, (double)(r >> 11) * (1.0 / 9007199254740992.0));
        return 1;
    }
    double lo = n >= 2 ? lm_random_arg(L, first, 1) : 1;
    double hi = lm_random_arg(L, n >= 2 ? first + 1 : first, n >= 2 ? 2 : 1);
    if (lo != floor(lo) || hi != floor(hi) || hi < lo || hi - lo > 9.0e15)
        return luaL_error(L, "luamech.random(m, n): integers with m <= n expected");
    uint64_t range = (uint64_t)(hi - lo) + 1;
    /* multiply-shift: unbiased enough for ranges far below 2^64 */
    uint64_t pick = (uint64_t)(((unsigned __int128)r * range) >> 64);
    lua_pushnumber(L, lo + (double)pick);
    return 1;
}

static int lm_random(lua_State *L) { return lm_random_draw(L, lm_worker(L), 1); }

static int lm_vu_id(lua_State *L) {
    lua_pushinteger(L, vu_id(lm_current_vu(L, lm_worker(L), "luamech.vu_id")));
    return 1;
}

static int lm_vu_group(lua_State *L) {
    worker *w = lm_worker(L);
    vu *v = lm_current_vu(L, w, "luamech.vu_group");
    lua_pushstring(L, worker_scenario(w)->groups[vu_group(v)].name);
    return 1;
}

static int lm_vu_index(lua_State *L) {
    lua_pushinteger(L, vu_index(lm_current_vu(L, lm_worker(L), "luamech.vu_index")) + 1);
    return 1;
}

static int lm_iteration(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)vu_iterations(lm_current_vu(L, lm_worker(L), "luamech.iteration")) + 1);
    return 1;
}

static int lm_now(lua_State *L) {
    lua_pushnumber(L, worker_run_time_s(lm_worker(L)));
    return 1;
}

static int lm_worker_id(lua_State *L) {
    lua_pushinteger(L, worker_id(lm_worker(L)) + 1);
    return 1;
}

/* luamech.stop([reason]): the run ends gracefully (as at its deadline);
 * this VU goes on with its transaction. */
static int lm_stop(lua_State *L) {
    worker *w = lm_worker(L);
    const char *why = luaL_optstring(L, 1, "luamech.stop() was called");
    lm_current_vu(L, w, "luamech.stop");
    worker_script_stop(w, 0, why);
    return 0;
}

/* luamech.abort(reason): the run ends now (in-flight requests cancelled,
 * results written, exit code 8); this VU never resumes. */
static int lm_abort(lua_State *L) {
    worker *w = lm_worker(L);
    const char *why = luaL_checkstring(L, 1);
    vu *v = lm_current_vu(L, w, "luamech.abort");
    worker_script_stop(w, 1, why);
    return vu_wait(v, L);                  /* nothing will wake it: the hard stop ends it */
}

static void lm_timer_metatable(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"start", lm_timer_start}, {"stop", lm_timer_stop}, {"elapsed", lm_timer_elapsed_lua}, {NULL, NULL}};
    luaL_newmetatable(L, LM_TIMER_MT);
    lua_newtable(L);
    luaL_register(L, NULL, methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

void lm_open_all(lua_State *L, worker *w) {
    static const luaL_Reg fns[] = {
        {"sleep", lm_sleep}, {"timer", lm_timer_new}, {"random", lm_random},
        {"vu_id", lm_vu_id}, {"vu_group", lm_vu_group}, {"vu_index", lm_vu_index},
        {"iteration", lm_iteration}, {"now", lm_now}, {"worker_id", lm_worker_id},
        {"stop", lm_stop}, {"abort", lm_abort}, {NULL, NULL}};
    lm_timer_metatable(L);
    lm_share *share = worker_script_ctx(w);
    if (share) net_io_use(worker_loop(w), (net_io_mode)share->io);   /* before any connection: cannot be busy */
    script_register_static(L, worker_params(w));
    lua_getglobal(L, "luamech");
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushlightuserdata(L, w);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, -2, f->name);
    }
    lm_random_open(L, w);                  /* luamech.random.*, luamech.keys (lm_random.c) */
    lm_data_open_lua(L, w);                /* luamech.data (lm_data.c) */
    lm_metrics_open(L, w);                 /* luamech.metrics (lm_metrics.c) */
    lua_pushlightuserdata(L, w);
    lua_newtable(L);
    lua_pushcclosure(L, lm_record, 2);
    lua_setfield(L, -2, "record");
    lua_pushlightuserdata(L, w);
    lua_newtable(L);
    lua_newtable(L);
    lua_pushcclosure(L, lm_check, 3);
    lua_setfield(L, -2, "check");
    lua_newtable(L);
    lua_setfield(L, -2, "shared");         /* explicitly shared by this worker's VUs */
    for (const lm_module *m = lm_modules; m->name; m++) {
        if (m->open) {
            m->open(L, w);
        } else {
            lua_newtable(L);
            luaL_register(L, NULL, m->fns);
        }
        lua_setfield(L, -2, m->name);
    }
    lua_pop(L, 1);
    char err[256];
    if (share && lm_share_install_paths(L, share, err, sizeof err) != 0) luaL_error(L, "%s", err);
    if (share) lua_pop(L, 1);             /* the undo: workers keep the paths */
    lm_lifecycle_open(L, w);               /* setup's data, setup's hand-over (lm_lifecycle.c) */
}

struct lm_connect {
    vu *v;
    int ud_ref;
    int in_call, done, status;
    void (*on_fail)(void *client);
    void *client;
    char err[256];
};

lm_connect *lm_connect_begin(lua_State *L, vu *v, void (*on_fail)(void *client), void *client) {
    lm_connect *cc = calloc(1, sizeof *cc);
    if (cc == NULL) return NULL;            /* the userdata stays on L */
    cc->v = v;
    cc->on_fail = on_fail;
    cc->client = client;
    cc->ud_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    cc->in_call = 1;
    return cc;
}

static int lm_connect_results(lua_State *L, lm_connect *cc) {
    int n = 1;
    if (cc->status == 0) lua_rawgeti(L, LUA_REGISTRYINDEX, cc->ud_ref);
    else {
        if (cc->on_fail) cc->on_fail(cc->client);
        lua_pushnil(L);
        lua_pushstring(L, cc->err);
        n = 2;
    }
    luaL_unref(L, LUA_REGISTRYINDEX, cc->ud_ref);
    free(cc);
    return n;
}

void lm_connect_done(lm_connect *cc, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cc->err, sizeof cc->err, fmt, ap);
    va_end(ap);
    cc->status = status;
    cc->done = 1;
    if (cc->in_call) return;                   /* lm_connect_wait returns the results */
    vu *v = cc->v;
    if (!vu_wants_resume(v)) {
        luaL_unref(worker_lua(vu_worker(v)), LUA_REGISTRYINDEX, cc->ud_ref);
        free(cc);
        return;
    }
    vu_resume(v, lm_connect_results(vu_lua(v), cc));
}

void *lm_connect_client(const lm_connect *cc) { return cc->client; }

int lm_connect_wait(lua_State *L, lm_connect *cc) {
    cc->in_call = 0;
    if (cc->done) return lm_connect_results(L, cc);
    return vu_wait(cc->v, L);
}

void lm_check_options(lua_State *L, int idx, const char *fname, const char *const *known) {
    if (idx < 0) idx = lua_gettop(L) + idx + 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int ok = 0;
        for (int i = 0; k && known[i]; i++) ok |= strcmp(k, known[i]) == 0;
        if (!ok) {
            lua_pushvalue(L, -1);
            const char *shown = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
            luaL_error(L, "%s: unknown option '%s'", fname, shown);
        }
    }
}
