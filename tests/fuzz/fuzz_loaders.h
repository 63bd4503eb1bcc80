/* fuzz_loaders.h - shared by the scenario and suite fuzz harnesses: keeps an
 * input that is a data-only Lua chunk (no loops, calls into os/io/require,
 * or function definitions), so the loaders' checks are what gets fuzzed, not
 * LuaJIT's ability to run forever or touch the file system; and writes it,
 * with a valid VU script beside it, into a private folder. */
#ifndef LUAMECH_FUZZ_LOADERS_H
#define LUAMECH_FUZZ_LOADERS_H

#include <stddef.h>
#include <stdint.h>

/* 1 when the chunk may be loaded (see above). */
int fz_loader_input_ok(const uint8_t *data, size_t size);
/* Writes data to DIR/name (DIR made once per process, with DIR/s.lua and
 * DIR/sc.lua: a VU script and a small valid scenario).  Returns the path
 * (static storage of the harness), or NULL. */
const char *fz_loader_write(const char *name, const uint8_t *data, size_t size);

#endif
