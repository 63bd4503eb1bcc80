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

/* What one decode may cost (text from a server): its size in bytes and its
 * number of values (each array, object, key, string, number, ... counts
 * one).  A decoded value costs about 30 (a number) to 170 (a small object)
 * bytes while jansson's tree and the Lua table both exist: within the
 * defaults the worst case measured took 167 MB of peak RSS (docs/http.md). */
typedef struct lm_json_limits {
    size_t max_bytes;
    size_t max_values;
} lm_json_limits;
#define LM_JSON_MAX_BYTES_DEFAULT ((size_t)16 << 20)      /* 16 MiB */
#define LM_JSON_MAX_VALUES_DEFAULT ((size_t)1000000)
#define LM_JSON_LIMIT_CAP ((size_t)1 << 30)               /* the largest a script may set */

/* Decode s[0..len) and push the value: returns 1, or 0 (nothing pushed) with
 * "line L column C: why" in err.  Arrays come back with the array marker
 * metatable (so [] stays [] when encoded again), null as luamech.json.null.
 * lim (NULL: none) bounds the text and its values: a text over them is
 * refused before any is decoded ("text of N bytes is over max_bytes (M)",
 * "more than N values (max_values)"). */
int lm_json_decode(lua_State *L, const char *s, size_t len, const lm_json_limits *lim, char *err,
                   size_t err_len);
/* The limits of options table idx (max_bytes, max_values; absent: the
 * defaults; idx 0 or nil: the defaults) for the function fname; misuse
 * raises. */
void lm_json_limits_opt(lua_State *L, int idx, const char *fname, lm_json_limits *lim);

/* Pushes the luamech.json module table. */
struct worker;
void lm_json_open(lua_State *L, struct worker *w);

#endif
