/* lm_json.h - Lua values <-> JSON text through Debian's jansson, for
 * luamech.json and for the HTTP binding (json = tbl bodies, res:json()). */
#ifndef LUAMECH_LM_JSON_H
#define LUAMECH_LM_JSON_H

#include <lua.h>
#include <stddef.h>

/* Encode the value at idx into *buf (grown with realloc; *cap its size),
 * compact, object keys sorted.  Returns 0 with *len set, or -1 with a
 * message in err ("cannot encode a function (at .user.cb)", "a table
 * contains itself (at .a)", ...).  Never raises; allocates only the
 * encoder's temporary tree and the buffer growth. */
int lm_json_encode(lua_State *L, int idx, char **buf, size_t *cap, size_t *len, char *err,
                   size_t err_len);

/* Decode s[0..len) and push the value: returns 1, or 0 (nothing pushed) with
 * "line L column C: why" in err.  Arrays come back with the array marker
 * metatable (so [] stays [] when encoded again), null as luamech.json.null. */
int lm_json_decode(lua_State *L, const char *s, size_t len, char *err, size_t err_len);

/* Pushes the luamech.json module table. */
struct worker;
void lm_json_open(lua_State *L, struct worker *w);

#endif
