/* modules.c - the table of protocol modules opened in every worker's Lua
 * state.  Adding a protocol adds one line here. */
#include "lua/lm_core.h"

void lm_memcached_open(lua_State *L, struct worker *w);
void lm_redis_open(lua_State *L, struct worker *w);
void lm_http_open(lua_State *L, struct worker *w);
void lm_json_open(lua_State *L, struct worker *w);
void lm_url_open(lua_State *L, struct worker *w);

const lm_module lm_modules[] = {
    {"memcached", lm_memcached_open},
    {"redis", lm_redis_open},
    {"http", lm_http_open},
    {"json", lm_json_open},
    {"url", lm_url_open},
    {NULL, NULL},
};
