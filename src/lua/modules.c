/* modules.c - the table of luamech's Lua modules (the protocols, json,
 * url, ...) opened in every worker's Lua state.  Adding a protocol adds one
 * line here. */
#include "lua/lm_core.h"
#include "lua/lm_url.h"

void lm_memcached_open(lua_State *L, struct worker *w);
void lm_redis_open(lua_State *L, struct worker *w);
void lm_http_open(lua_State *L, struct worker *w);
void lm_json_open(lua_State *L, struct worker *w);

const lm_module lm_modules[] = {
    {"memcached", lm_memcached_open, NULL},
    {"redis", lm_redis_open, NULL},
    {"http", lm_http_open, NULL},
    {"json", lm_json_open, NULL},
    {"url", NULL, lm_url_fns},
    {NULL, NULL, NULL},
};
