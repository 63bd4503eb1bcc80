/* lm_pb.h - protocol buffers for the bindings: schemas loaded from a .proto
 * (protoc run once per worker and path) or a descriptor set, and Lua tables
 * converted to and from proto/pb.h's neutral trees (the codec does every
 * byte).  luamech.protobuf (load, encode, decode) and luamech.grpc use it. */
#ifndef LUAMECH_LM_PB_H
#define LUAMECH_LM_PB_H

#include <lua.h>

#include "proto/pb.h"

struct worker;

/* The schema of path (".proto": compiled by protoc --include_imports, its
 * folder the import path; anything else: a descriptor set read as it is;
 * relative paths against the scenario's folder), its userdata pushed (kept
 * per worker: a second load of the same file costs nothing).  Raises
 * "<fname>: ..." with protoc's first error lines. */
const pb_schema *lm_pb_load(lua_State *L, struct worker *w, const char *path, const char *fname);
/* The tree of message msg from the Lua table at idx (field names as keys;
 * repeated fields as arrays, maps as tables, enums by name or number,
 * 64-bit integers as numbers or decimal strings, bytes as strings).
 * Raises "<fname>: <Message>.<field>: ..." for a key that is no field or a
 * value of the wrong type.  The tree points into the table's strings. */
pb_val *lm_pb_from_table(lua_State *L, int idx, const pb_schema *s, int32_t msg, pb_arena *a, const char *fname);
/* Push the table of a decoded message (absent fields are nil; enums by
 * name when known; 64-bit integers past 2^53 as decimal strings). */
void lm_pb_push(lua_State *L, const pb_schema *s, const pb_val *m);
/* luamech.protobuf's table, pushed. */
void lm_protobuf_open(lua_State *L, struct worker *w);

#endif
