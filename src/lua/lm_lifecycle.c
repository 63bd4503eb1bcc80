/* lm_lifecycle.c - the Lua side of setup() and teardown(data): in the run
 * of the setup (scenario.lifecycle == 1) a hidden global
 * __luamech_setup_done(data), called by lua/vu.lua's lifecycle mode, encodes
 * setup's result as JSON (luamech.json, jansson)
 * into the share; in every later run's workers (the load, the teardown)
 * luamech.setup_data is that JSON decoded once per worker.  The order of
 * the runs is the runner's (src/run/runner.c); this file runs nothing. */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"
#include "lua/lm_json.h"
#include "lua/lm_share.h"


/* __luamech_setup_done(data): upvalues luamech.json.encode, the share. */
static int lm_setup_done(lua_State *L) {
    lm_share *s = lua_touserdata(L, lua_upvalueindex(2));
    lua_settop(L, 1);
    if (lua_isnil(L, 1)) return 0;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    if (lua_pcall(L, 1, 1, 0) != 0)
        return luaL_error(L, "setup(): its result cannot be handed to the VUs (%s): return a table of strings, "
                             "numbers, booleans and tables (JSON)", lua_tostring(L, -1));
    size_t len;
    const char *json = lua_tolstring(L, -1, &len);
    char *copy = malloc(len + 1);
    if (!copy) return luaL_error(L, "setup(): out of memory");
    memcpy(copy, json, len + 1);
    uv_mutex_lock(&s->mu);
    free(s->setup_json);
    s->setup_json = copy;
    uv_mutex_unlock(&s->mu);
    return 0;
}

void lm_lifecycle_open(lua_State *L, worker *w) {
    lm_share *s = worker_script_ctx(w);
    if (!s) return;
    lm_json_open(L, w);                     /* luamech.json: encode, decode */
    if (worker_scenario(w)->lifecycle == 1) {
        lua_getfield(L, -1, "encode");
        lua_pushlightuserdata(L, s);
        lua_pushcclosure(L, lm_setup_done, 2);
        lua_setglobal(L, "__luamech_setup_done");
    }
    uv_mutex_lock(&s->mu);                  /* written by the setup's run, which has ended */
    const char *json = s->setup_json;
    uv_mutex_unlock(&s->mu);
    if (json) {                             /* our own JSON: no limits (lm_json.h) */
        char err[256];
        lua_getglobal(L, "luamech");
        if (lm_json_decode(L, json, strlen(json), NULL, err, sizeof err)) lua_setfield(L, -2, "setup_data");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);                          /* luamech.json */
}
