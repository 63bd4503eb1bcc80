/* fuzz_loaders.h - the scenario and suite fuzz harnesses' one loader: keeps
 * an input that is a data-only Lua chunk (no loops, calls into os/io/require,
 * function definitions or shared library tables), so the loaders' checks are
 * what gets fuzzed, not LuaJIT's ability to run forever, touch the file
 * system or change the state the next input runs in; and loads it from
 * memory (scenario_load_state / suite_load_state) in one Lua state reused
 * for every input of the process.  A valid VU script and a small valid
 * scenario (s.lua, sc.lua) are written once into a private folder, which
 * the inputs are named in. */
#ifndef LUAMECH_FUZZ_LOADERS_H
#define LUAMECH_FUZZ_LOADERS_H

#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

/* 1 when the chunk may be loaded (see above). */
int fz_loader_input_ok(const uint8_t *data, size_t size);

/* scenario_load_state or suite_load_state, and what frees its result. */
typedef int (*fz_load_fn)(scenario *s, lua_State *L, const char *path, const char *src, size_t len,
                          const params *p, const scenario_overrides *o, char *err, size_t err_len);
typedef void (*fz_free_fn)(scenario *s);

/* One input: loads it as DIR/name with load, checks that a refusal says
 * why (else abort: libFuzzer's finding), frees the result.  Always 0. */
int fz_loader_one(const uint8_t *data, size_t size, const char *name, fz_load_fn load, fz_free_fn free_fn);

#endif
