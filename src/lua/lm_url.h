/* lm_url.h - luamech.url and the query/form encoder the HTTP binding uses. */
#ifndef LUAMECH_LM_URL_H
#define LUAMECH_LM_URL_H

#include <lua.h>
#include <stddef.h>

/* Append the table at idx as "k=v&k2=v2" (percent-encoded; with `form`
 * spaces become '+') to *buf at *len (grown with realloc, *cap its size).
 * Values: strings, numbers, booleans, or arrays of them (the key repeated).
 * Returns 0, or -1 with a message in err (a bad key or value type, out of
 * memory).  Never raises. */
int lm_url_query(lua_State *L, int idx, int form, char **buf, size_t *cap, size_t *len, char *err,
                 size_t err_len);

/* luamech.url's functions (a module of functions only: modules.c). */
#include <lauxlib.h>
extern const luaL_Reg lm_url_fns[];

#endif
